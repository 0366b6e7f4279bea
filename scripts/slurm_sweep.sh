#!/usr/bin/env bash
# A large `gpusim sweep` as a Slurm job array: each array task runs one
# deterministic shard (`--shard I/N`: the runs with run % N == I) on all
# the cores of its node, and a last job, started once every task has
# succeeded, joins the shards with `gpusim merge` into the file the
# unsharded sweep would have written (byte for byte).
#
# Usage (from the repository root, gpusim built with `cargo build --release`):
#
#   sbatch --array=0-15 scripts/slurm_sweep.sh        # 16 shards
#
# The array size is the number of shards: SLURM_ARRAY_TASK_COUNT (set by
# Slurm for array jobs) is N. Edit SWEEP below for your study; OUT names the
# directory for the shards and the merged results.
#
#SBATCH --job-name=gpusim-sweep
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=32
#SBATCH --time=04:00:00
#SBATCH --output=sweep-%A_%a.log

set -euo pipefail

GPUSIM=${GPUSIM:-./target/release/gpusim}
OUT=${OUT:-sweep-out}
SWEEP=(
  kernels/kmeans.toml kernels/spmv_scalar.toml kernels/bfs.toml
  --config gtx480
  --sched lrr,gto,two-level,ccws,daws
  --set l1d.sets=16,32,64
  --set l1d.ways=4,8
)

I=${SLURM_ARRAY_TASK_ID:?run this script with sbatch --array=0-N-1}
N=${SLURM_ARRAY_TASK_COUNT:?run this script with sbatch --array=0-N-1}
mkdir -p "$OUT"

# This shard, on every core Slurm gave the task. A run that fails is a row
# with its error (exit status 1); only exit status 2 means the shard's file
# is unusable.
status=0
"$GPUSIM" sweep "${SWEEP[@]}" \
  --shard "$SLURM_ARRAY_TASK_ID/$N" \
  --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  -o "$OUT/shard-$I.csv" --jsonl "$OUT/shard-$I.jsonl" || status=$?
if [ "$status" -ge 2 ]; then
  exit "$status"
fi

# The first task queues the merge, to run after every task of the array
# has ended without error (`afterok` on the whole array job).
if [ "$I" -eq 0 ]; then
  sbatch --dependency="afterok:$SLURM_ARRAY_JOB_ID" --job-name=gpusim-merge \
    --ntasks=1 --cpus-per-task=1 --time=00:10:00 --output="$OUT/merge.log" \
    --wrap="$GPUSIM merge $OUT/shard-*.csv -o $OUT/results.csv && $GPUSIM merge $OUT/shard-*.jsonl -o $OUT/results.jsonl"
fi
