#!/usr/bin/env bash
# Runs the real ptxas (REAL_PTXAS) and rewrites its -v report into the
# form GPGPU-Sim 4.2's ptxinfo parser reads: newer ptxas prints
# "Used N registers, used N barriers, ..." and "Compile time = ... ms",
# which that parser rejects. The ", used N barriers" phrase and the
# compile-time lines are removed; register, shared, constant and local
# memory figures are passed on unchanged. Install as
# $CUDA_INSTALL_PATH/bin/ptxas of the toolkit directory GPGPU-Sim runs with
# (docs/correlation.md).
set -uo pipefail
: "${REAL_PTXAS:?set REAL_PTXAS to the ptxas to run (the one of nvcc 13.5)}"
err=$(mktemp)
"$REAL_PTXAS" "$@" 2> "$err"
status=$?
sed -E -e 's/, used [0-9]+ barriers//' -e 's/, [0-9]+ bytes cumulative stack size//' -e '/Compile time = /d' "$err" >&2
rm -f "$err"
exit $status
