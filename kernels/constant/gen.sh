#!/usr/bin/env bash
# Regenerate every kernels/constant/*.ptx from its .cu with nvcc 13.5
# (-ptx -arch=sm_75 -O3), print ptxas's register counts and check the files:
# see kernels/nvcc_gen.sh.
set -euo pipefail
here=$(dirname "$0")
exec "$here/../nvcc_gen.sh" "$here"
