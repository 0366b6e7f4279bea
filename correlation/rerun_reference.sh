#!/usr/bin/env bash
# Reruns the GPGPU-Sim runs of a reference file and compares the figures
# with the committed ones, without touching the reference file: each
# kernel (all of them, or the NAMEs given) is run with run_gpgpusim.sh
# under every scheduler the file has figures for, into OUT/NAME/SCHED;
# then parse_gpgpusim.py update fills a copy, OUT/BASENAME, from those logs
# and the copy is compared with REFERENCE. A run whose log already shows a
# finished replay is not repeated.
#
# usage: rerun_reference.sh REFERENCE OUT [NAME]...
#   e.g. correlation/rerun_reference.sh correlation/gtx480.toml /tmp/rerun
# Run from the repository root, with the environment of
# correlation/setup_reference.sh (source DIR/env.sh).
# Exit status: 0 the copy equals REFERENCE, 1 it differs (diff printed),
# 2 a run failed.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: rerun_reference.sh REFERENCE OUT [NAME]..." >&2; exit 2; }
ref=$1
out=$2
shift 2
here=$(dirname "$(realpath "$0")")
mkdir -p "$out"

# NAME MANIFEST SCHED, one run a line, in the file's order.
runs=$(python3 - "$ref" "$@" <<'PY'
import sys, tomllib
ref, names = sys.argv[1], sys.argv[2:]
kernels = tomllib.load(open(ref, "rb")).get("kernel", [])
known = {k["name"] for k in kernels}
for n in names:
    if n not in known:
        print(f"rerun_reference.sh: no kernel {n} in {ref}", file=sys.stderr)
        sys.exit(2)
for k in kernels:
    if names and k["name"] not in names:
        continue
    for s in ("lrr", "gto"):
        if s in k:
            print(k["name"], k["manifest"], s)
PY
)

failed=0
while read -r name manifest sched; do
  log=$out/$name/$sched/gpgpusim.log
  if [ -f "$log" ] && grep -qE "^replay: [0-9]+ launches" "$log"; then
    echo "$name $sched: already run"
    continue
  fi
  start=$(date +%s)
  if "$here/run_gpgpusim.sh" "$manifest" "$sched" "$out/$name" > /dev/null; then
    echo "$name $sched: $(( $(date +%s) - start )) s"
  else
    echo "$name $sched: FAILED"
    failed=1
  fi
done <<< "$runs"
[ "$failed" = 0 ] || { echo "rerun_reference.sh: some runs failed" >&2; exit 2; }

copy=$out/$(basename "$ref")
cp "$ref" "$copy"
python3 "$here/parse_gpgpusim.py" update "$copy" "$out"
if diff -u "$ref" "$copy"; then
  echo "rerun_reference.sh: $(wc -l <<< "$runs") runs, $copy is identical to $ref"
else
  echo "rerun_reference.sh: the rerun's figures differ from $ref (diff above)" >&2
  exit 1
fi
