#!/usr/bin/env bash
# Stands in for `cuobjdump` when GPGPU-Sim (CUDA >= 6.0 path) extracts the
# PTX of a replay app, so the simulator runs exactly the committed PTX file
# gpusim runs (REPLAY_PTX), not a recompilation of it. GPGPU-Sim calls
#   cuobjdump -lptx APP            (list the PTX files: one line "PTX file 1: NAME")
#   cuobjdump -xptx NAME APP       (write PTX file NAME into the current directory)
# and then parses NAME and runs ptxas --gpu-name=sm_75 -v on it (the sm
# number is read from NAME). Install as $CUDA_INSTALL_PATH/bin/cuobjdump
# of the toolkit directory GPGPU-Sim runs with (docs/correlation.md).
set -euo pipefail
: "${REPLAY_PTX:?set REPLAY_PTX to the .ptx file the replay must run}"
case "${1:-}" in
  -lptx)
    app=$(basename "$2")
    echo "PTX file    1: ${app}.1.sm_75.ptx"
    ;;
  -xptx)
    cp "$REPLAY_PTX" "$2"
    echo "Extracting PTX file and ELF file     1: $2"
    ;;
  *)
    echo "cuobjdump_ptx.sh: only -lptx and -xptx are provided (got: $*)" >&2
    exit 1
    ;;
esac
