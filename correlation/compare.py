#!/usr/bin/env python3
"""Compares gpusim with the GPGPU-Sim reference figures.

  compare.py [TOML] [GPUSIM_BIN]

For every [[kernel]] of TOML (default correlation/gtx480.toml) that has
reference figures, runs `GPUSIM run MANIFEST --sched S --json F` for S in
lrr and gto (GPUSIM default target/release/gpusim) and prints a markdown
table: cycles, thread IPC, L1D accesses and misses, L2 accesses and hit
rates, DRAM reads and writes of both simulators (in each one's units), and the cycle error. Ends with the mean absolute error and
the correlation of the cycle counts. Run from the repository root.
"""
import json
import math
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path


def pct(hits, total):
    return f"{100.0 * hits / total:.1f}" if total else "-"


def gpusim(binary, manifest, sched):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = subprocess.run(
            [binary, "run", manifest, "--sched", sched, "--json", f.name],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise RuntimeError(f"{manifest} {sched}: {r.stderr.strip() or r.stdout[-300:]}")
        d = json.load(open(f.name))
    mem, l1 = d["mem"], d["total"]["l1d"]
    return {
        "cycles": d["cycles"],
        "thread_insts": d["thread_insts"],
        "warp_insts": d["warp_insts"],
        "l1_acc": l1["accesses"] + l1["stores"],
        "l1_miss": l1["misses"],
        "l2_acc": mem["l2_accesses"],
        "l2_hit": pct(mem["l2_hits"], mem["l2_accesses"]),
        "dram_reads": mem["dram_reads"],
        "dram_writes": mem["dram_writes"],
    }


def main(argv):
    toml = Path(argv[1] if len(argv) > 1 else "correlation/gtx480.toml")
    binary = argv[2] if len(argv) > 2 else "target/release/gpusim"
    doc = tomllib.loads(toml.read_text())
    print(
        "| kernel | sched | GPGPU-Sim cycles | gpusim cycles | error | IPC ref / ours "
        "| L1D acc ref / ours (ld+st) | L1D miss ref / ours (ld) | L2 acc ref (32 B) / ours (128 B) "
        "| L2 hit % ref / ours | DRAM rd ref (bursts) / ours (lines) | DRAM wr ref / ours | same insts |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    errors, pairs = [], []
    for k in doc.get("kernel", []):
        for sched in ("lrr", "gto"):
            ref = k.get(sched)
            if not ref:
                continue
            try:
                ours = gpusim(binary, k["manifest"], sched)
            except RuntimeError as e:
                print(f"| {k['name']} | {sched} | {ref['cycles']} | error: {e} |")
                continue
            err = (ours["cycles"] - ref["cycles"]) / ref["cycles"]
            errors.append(abs(err))
            pairs.append((ref["cycles"], ours["cycles"]))
            print(
                f"| {k['name']} | {sched} | {ref['cycles']} | {ours['cycles']} | {100 * err:+.1f}% "
                f"| {ref['thread_insts'] / ref['cycles']:.1f} / {ours['thread_insts'] / ours['cycles']:.1f} "
                f"| {ref['l1d_accesses']} / {ours['l1_acc']} | {ref['l1d_misses']} / {ours['l1_miss']} "
                f"| {ref['l2_accesses']} / {ours['l2_acc']} "
                f"| {pct(ref['l2_accesses'] - ref['l2_misses'], ref['l2_accesses'])} / {ours['l2_hit']} "
                f"| {ref['dram_reads']} / {ours['dram_reads']} | {ref['dram_writes']} / {ours['dram_writes']} "
                f"| {'yes' if (ref['warp_insts'], ref['thread_insts']) == (ours['warp_insts'], ours['thread_insts']) else 'NO'} |"
            )
    if pairs:
        n = len(pairs)
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        mx, my = sum(xs) / n, sum(ys) / n
        sxy = sum((x - mx) * (y - my) for x, y in pairs)
        sxx = sum((x - mx) ** 2 for x in xs)
        syy = sum((y - my) ** 2 for y in ys)
        corr = sxy / math.sqrt(sxx * syy) if sxx and syy else float("nan")
        print()
        print(
            f"{n} runs: mean absolute cycle error {100 * sum(errors) / n:.1f}%, "
            f"max {100 * max(errors):.1f}%, correlation {corr:.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
