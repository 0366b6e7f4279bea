#!/usr/bin/env bash
# Regenerate every DIR/*.ptx from its .cu with nvcc, verbatim (never edit a
# .ptx by hand), print ptxas's register count per kernel (the manifests'
# regs_per_thread), and check each file with gpusim. Called by the gen.sh of
# kernels/baws, kernels/blws, kernels/correlation, kernels/ispass,
# kernels/lfws, kernels/rodinia and kernels/sdk.
#
# Compiler: NVIDIA nvcc 13.5 (V13.5.37); flags: -ptx -arch=sm_75 -O3.
# Register counts: ptxas -arch=sm_75 -O3 -v on the generated PTX.
# Usage: kernels/nvcc_gen.sh DIR   (NVCC and PTXAS override the tools)
set -euo pipefail
cd "$1"

NVCC=${NVCC:-nvcc}
PTXAS=${PTXAS:-$(dirname "$(command -v "$NVCC")")/ptxas}
"$NVCC" --version | tail -2

for cu in *.cu; do
  ptx="${cu%.cu}.ptx"
  "$NVCC" -ptx -arch=sm_75 -O3 "$cu" -o "$ptx"
  "$PTXAS" -arch=sm_75 -O3 -v "$ptx" -o /dev/null 2>&1 \
    | grep -E "Compiling entry|Used [0-9]+ registers" \
    | sed -E "s/^ptxas info +: //" | paste - - | sed -E "s/^/$ptx: /"
done
cargo run --quiet --release -- check ./*.ptx
