#!/usr/bin/env bash
# Regenerate every kernels/cuda/nvcc/*.ptx from its .cu with nvcc, verbatim.
# NVCC may point at any nvcc; the committed files were made with the one
# in docs/kernels.md (nvcc 13.5). Never edit a generated .ptx by hand.
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" --version | tail -2
for cu in *.cu; do
  "$NVCC" -ptx -arch=sm_75 -O3 "$cu" -o "${cu%.cu}.ptx"
  echo "${cu%.cu}.ptx: $(grep -cE '^[[:space:]]+[@a-z]' "${cu%.cu}.ptx") instruction lines"
done
