#!/usr/bin/env bash
# Regenerate the nvcc-compiled kernels (call_*.cu: device-function calls,
# which need `.func`/`call`, so nvcc rather than clang's subset) verbatim.
# The .ptx files are nvcc output; never edit them by hand.
set -euo pipefail
cd "$(dirname "$0")"

NVCC=${NVCC:-nvcc}
"$NVCC" --version | tail -2 | head -1

for cu in call_*.cu; do
  ptx="${cu%.cu}.ptx"
  "$NVCC" -O3 -ptx -arch=sm_75 "$cu" -o "$ptx"
  echo "$ptx: $(grep -cE '^[[:space:]]+[@a-z]' "$ptx") instruction lines, $(grep -c '^\.func\|^\.visible \.func\|^\.weak \.func' "$ptx") functions"
done
