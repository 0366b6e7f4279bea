#!/usr/bin/env bash
# Runs one correlation kernel in GPGPU-Sim under each one-cycle perturbation
# of docs/correlation.md ("The lrr/gto order under one-cycle perturbations"):
# the L2's ROP latency 119 and 121 (nominal 120) and the DRAM latency 99
# and 101 (nominal 100), each under lrr and gto, through run_gpgpusim.sh's
# EXTRA_OPTS. `parse_gpgpusim.py perturbed TOML OUT_DIR` then writes the
# [[kernel.perturbed]] entries. Same environment as run_gpgpusim.sh.
#
# usage: run_perturbed.sh MANIFEST NAME OUT_DIR
#        NAME is the kernel's name in the reference file; runs go to
#        OUT_DIR/NAME/TAG/{lrr,gto}/ (TAG: rop119, rop121, dram99, dram101).
set -euo pipefail
manifest=$1
name=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
for spec in rop119:-gpgpu_l2_rop_latency_SP_119 rop121:-gpgpu_l2_rop_latency_SP_121 \
            dram99:-dram_latency_SP_99 dram101:-dram_latency_SP_101; do
  tag=${spec%%:*}
  dir=$out/$name/$tag
  mkdir -p "$dir"
  # The export and the replay app are the same for every perturbation.
  first=$out/$name/rop119
  if [ "$dir" != "$first" ] && [ -x "$first/app" ] && [ ! -x "$dir/app" ]; then
    cp -r "$first/trace" "$first/app" "$dir/"
  fi
  for sched in lrr gto; do
    EXTRA_OPTS=${spec#*:} "$here/run_gpgpusim.sh" "$manifest" "$sched" "$dir"
  done
done
