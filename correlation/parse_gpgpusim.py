#!/usr/bin/env python3
"""Reads GPGPU-Sim's output (a replay app's log, run by run_gpgpusim.sh)
and writes the reference figures of correlation/gtx480.toml.

  parse_gpgpusim.py show LOG
      print the figures of one log (and the extra facts, as comments)
  parse_gpgpusim.py update TOML RESULTS
      for every [[kernel]] of TOML whose RESULTS/NAME/{lrr,gto}/gpgpusim.log
      exists, replace its [kernel.lrr] / [kernel.gto] tables with the
      figures of that log; other keys are kept as they are
  parse_gpgpusim.py perturbed TOML RESULTS
      for every [[kernel]] of TOML with run directories
      RESULTS/NAME/TAG/{lrr,gto}/ (run_perturbed.sh's layout), replace its
      [[kernel.perturbed]] entries with one per TAG whose two logs are
      accepted: the option the run appended to GPGPU-Sim's config, the same
      change for gpusim (PERTURBATIONS below) and both cycle counts

A replay whose buffers differ from gpusim's is accepted only when
GPGPU-Sim's thread and warp instruction counts equal those of
`gpusim run MANIFEST --functional` (env GPUSIM, default
target/release/gpusim; run from the repository root).

GPGPU-Sim 4.2 counts a vector load (`ld.global.v2`/`.v4`) whose last
access hits the L1D once per destination register
(`ldst_unit::L1_latency_queue_cycle` calls `warp_inst_complete` in its loop
over the registers), so its completed-instruction counts
(`gpgpu_n_tot_w_icount`, `gpu_tot_sim_insn`) exceed what it issued. The
warps it issued (the sum of the W1..W32 buckets of the scheduler's issue
distribution) do not; when they fall short of the completed count, the
log is accepted only if gpusim's functional run executes exactly the
issued warp instructions and at most 32 more threads' instructions per
extra completion than GPGPU-Sim counted away, and then gpusim's counts
(the path both ran) are stored.

GPGPU-Sim prints its statistics after every kernel; they are totals over
the run so far, so the figures are the last value printed. docs/correlation.md
says what each field means.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

# gtx480.toml field -> the GPGPU-Sim statistic (last value in the log).
FIELDS = [
    ("cycles", r"^gpu_tot_sim_cycle = (\d+)"),
    ("thread_insts", r"^gpu_tot_sim_insn = (\d+)"),
    ("warp_insts", r"^gpgpu_n_tot_w_icount = (\d+)"),
    ("launches", None),
    ("l1d_accesses", r"^\s*L1D_total_cache_accesses = (\d+)"),
    ("l1d_misses", r"^\s*L1D_total_cache_misses = (\d+)"),
    ("l2_accesses", r"^L2_total_cache_accesses = (\d+)"),
    ("l2_misses", r"^L2_total_cache_misses = (\d+)"),
    ("dram_reads", None),
    ("dram_writes", None),
]

# GPGPU-Sim options a perturbed run may append (run_perturbed.sh), and the
# gpusim config field with the same meaning.
PERTURBATIONS = {
    "-gpgpu_l2_rop_latency": "l2.latency",
    "-dram_latency": "dram.latency",
}

# One channel's DRAM command counts (printed for every channel after every
# kernel, totals since the start).
DRAM_LINE = (
    r"^n_cmd=\d+ n_nop=\d+ n_act=\d+ n_pre=\d+ n_ref_event=\d+ n_req=\d+ "
    r"n_rd=(\d+) n_rd_L2_A=(\d+) n_write=(\d+) n_wr_bk=(\d+) "
)

# Extra facts (not in gtx480.toml): last value of each.
EXTRA = [
    ("ipc", r"^gpu_tot_ipc =\s*([\d.]+)"),
    ("total_dram_reads_stat", r"^total dram reads = (\d+)"),
    ("total_dram_writes_stat", r"^total dram writes = (\d+)"),
    ("stall_shd_mem", r"^gpgpu_n_stall_shd_mem = (\d+)"),
    ("avg_mem_latency", r"^averagemflatency = (\d+)"),
    ("avg_icnt2mem_latency", r"^avg_icnt2mem_latency = (\d+)"),
    ("avg_icnt2sh_latency", r"^avg_icnt2sh_latency = (\d+)"),
    ("dram_eff", r"^dram_eff = ([\d.]+)"),
    ("bw_util", r"^bwutil = ([\d.]+)"),
    ("l1d_reservation_fails", r"^\s*L1D_total_cache_reservation_fails = (\d+)"),
    ("l2_reservation_fails", r"^L2_total_cache_reservation_fails = (\d+)"),
    ("gpu_stall_dramfull", r"^gpu_stall_dramfull = (\d+)"),
    ("gpu_stall_icnt2sh", r"^gpu_stall_icnt2sh\s*= (\d+)"),
    ("shmem_bank_conflict_stall", r"^gpgpu_stall_shd_mem\[s_mem\]\[bk_conf\] = (\d+)"),
    ("gmem_coal_stall", r"^gpgpu_stall_shd_mem\[gl_mem\]\[coal_stall\] = (\d+)"),
    ("gmem_data_port_stall", r"^gpgpu_stall_shd_mem\[gl_mem\]\[data_port_stall\] = (\d+)"),
    ("cmem_resource_stall", r"^gpgpu_stall_shd_mem\[c_mem\]\[resource_stall\] = (\d+)"),
    ("gmem_resource_stall", r"^gpgpu_stall_shd_mem\[gl_mem\]\[resource_stall\] = (\d+)"),
    ("reg_bank_conflict_stalls", r"^gpu_reg_bank_conflict_stalls = (\d+)"),
    # Scheduler-cycle distribution (Warp Occupancy Distribution): cycles a
    # scheduler issued nothing because of a pipeline stall, had no valid
    # warp, or had warps all waiting on the scoreboard; W32 = issued 32 lanes.
    ("sched_stall", r"^Stall:(\d+)\tW0_Idle:"),
    ("sched_idle", r"^Stall:\d+\tW0_Idle:(\d+)"),
    ("sched_scoreboard", r"^Stall:\d+\tW0_Idle:\d+\tW0_Scoreboard:(\d+)"),
    ("sched_issue_w32", r"^Stall:.*\tW32:(\d+)"),
    ("n_load_insn", r"^gpgpu_n_load_insn\s*= (\d+)"),
    ("n_store_insn", r"^gpgpu_n_store_insn\s*= (\d+)"),
    ("n_shmem_insn", r"^gpgpu_n_shmem_insn\s*= (\d+)"),
    ("n_mem_read_global", r"^gpgpu_n_mem_read_global = (\d+)"),
    ("n_mem_write_global", r"^gpgpu_n_mem_write_global = (\d+)"),
]


def last(pattern, text):
    found = re.findall(pattern, text, re.M)
    return found[-1] if found else None


def parse(log):
    """The figures of one GPGPU-Sim log: (fields, extras). Raises
    ValueError when the replay did not reproduce gpusim's result or a
    statistic is missing."""
    text = Path(log).read_text(errors="replace")
    done = re.search(r"^replay: (\d+) launches, .* (SAME RESULT|MISMATCH)$", text, re.M)
    if not done:
        raise ValueError(f"{log}: the replay did not finish")
    uids = len(re.findall(r"^kernel_launch_uid = ", text, re.M))
    launches = int(done.group(1))
    if uids != launches:
        raise ValueError(f"{log}: {uids} kernels in GPGPU-Sim's stats, {launches} replayed")
    # DRAM traffic: the last block of per-channel command counts. A read
    # command moves one 64-byte burst (a 32-byte sector request takes one);
    # "total dram reads" cannot be used: it adds data_size / 64 in integer
    # arithmetic, 0 for every 32-byte sector request.
    channels = len(set(re.findall(r"^DRAM\[(\d+)\]: \d+ bks", text, re.M)))
    dram = re.findall(DRAM_LINE, text, re.M)
    if channels == 0 or len(dram) < channels:
        raise ValueError(f"{log}: no DRAM command counts")
    dram = [tuple(map(int, d)) for d in dram[-channels:]]
    fields = {}
    for key, pat in FIELDS:
        if key == "launches":
            fields[key] = launches
            continue
        if key == "dram_reads":
            fields[key] = sum(d[0] + d[1] for d in dram)
            continue
        if key == "dram_writes":
            fields[key] = sum(d[2] + d[3] for d in dram)
            continue
        v = last(pat, text)
        if v is None:
            raise ValueError(f"{log}: no `{pat}`")
        fields[key] = int(v)
    extras = {}
    for key, pat in EXTRA:
        v = last(pat, text)
        if v is not None:
            extras[key] = float(v) if "." in v else int(v)
    # Register counts GPGPU-Sim's ptxas reported, per kernel.
    regs = {}
    for name, r in re.findall(
        r"GPGPU-Sim PTX: Kernel '(\S+)' : regs=(\d+)", text
    ):
        regs[name] = int(r)
    extras["regs"] = regs
    extras["same_result"] = done.group(2) == "SAME RESULT"
    # Warp instructions issued: the W1..W32 buckets of the last issue
    # distribution (totals over the run).
    stall = last(r"^(Stall:.*)$", text)
    if stall is None:
        raise ValueError(f"{log}: no issue distribution (Stall: ... W32:)")
    extras["issued_warps"] = sum(
        int(n) for k, n in re.findall(r"\tW(\d+):(\d+)", stall) if int(k) > 0
    )
    return fields, extras


def functional_counts(manifest):
    """gpusim's functional run of MANIFEST: its JSON statistics."""
    binary = os.environ.get("GPUSIM", "target/release/gpusim")
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = subprocess.run(
            [binary, "run", manifest, "--functional", "--json", f.name],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise ValueError(f"{manifest}: gpusim run --functional failed: {r.stderr.strip()}")
        return json.load(open(f.name))


def recount_vector_loads(manifest, fields, extras, log):
    """For a log whose completed warp instructions exceed the issued ones
    (GPGPU-Sim's per-register completion of L1D-hit vector loads, above):
    replaces the instruction counts with gpusim's functional ones when
    these are the issued warps and the thread excess fits the extra
    completions; raises ValueError otherwise."""
    extra = fields["warp_insts"] - extras["issued_warps"]
    ours = functional_counts(manifest)
    threads = fields["thread_insts"] - ours["thread_insts"]
    if extra <= 0 or ours["warp_insts"] != extras["issued_warps"] or not 0 < threads <= 32 * extra:
        raise ValueError(
            f"{log}: GPGPU-Sim completed {fields['warp_insts']} warp instructions and issued "
            f"{extras['issued_warps']}; gpusim executes {ours['warp_insts']} "
            f"({ours['thread_insts']} thread instructions against {fields['thread_insts']})"
        )
    print(
        f"note: {log}: {extra} extra completions of L1D-hit vector loads "
        f"(issued {extras['issued_warps']} = gpusim's warp instructions): counts recounted",
        file=sys.stderr,
    )
    fields["warp_insts"] = ours["warp_insts"]
    fields["thread_insts"] = ours["thread_insts"]


def check_same_path(manifest, fields, log):
    """For a replay whose buffers differ from gpusim's (GPGPU-Sim rounds
    some float operations differently): fails unless GPGPU-Sim executed
    exactly the thread and warp instructions gpusim's functional run
    executes, i.e. every warp took the same path and only values differ."""
    ours = functional_counts(manifest)
    for key in ("thread_insts", "warp_insts"):
        if ours[key] != fields[key]:
            raise ValueError(
                f"{log}: buffers differ from gpusim's and {key} differs "
                f"(GPGPU-Sim {fields[key]}, gpusim {ours[key]})"
            )
    print(
        f"note: {log}: buffers differ from gpusim's, instruction counts equal "
        f"({fields['warp_insts']} warp instructions): accepted",
        file=sys.stderr,
    )


def check_regs(manifest, regs, log):
    """Fails unless the registers GPGPU-Sim's ptxas run reported for every
    kernel equal the manifest's regs_per_thread (a number, or a table of
    counts per kernel)."""
    want = tomllib.loads(Path(manifest).read_text()).get("regs_per_thread")
    if want is None:
        raise ValueError(f"{manifest}: no regs_per_thread")
    if not regs:
        raise ValueError(f"{log}: no register counts")
    for kernel, n in regs.items():
        w = want.get(kernel) if isinstance(want, dict) else want
        if w is not None and w != n:
            raise ValueError(f"{log}: GPGPU-Sim's ptxas gives `{kernel}` {n} registers, {manifest} says {w}")


def fmt_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def accepted(manifest, log):
    """The figures of `log` when it is a reference run of `manifest`
    (register counts, instruction counts and results checked as `update`
    checks them); raises ValueError otherwise."""
    fields, extras = parse(log)
    check_regs(manifest, extras["regs"], log)
    if fields["warp_insts"] != extras["issued_warps"]:
        recount_vector_loads(manifest, fields, extras, log)
    if not extras["same_result"]:
        check_same_path(manifest, fields, log)
    return fields


def appended_option(config):
    """The one option run_gpgpusim.sh appended after its own two lines
    (EXTRA_OPTS), as (name, value); None when there is not exactly one."""
    lines = Path(config).read_text().splitlines()
    marker = [i for i, l in enumerate(lines) if l.startswith("# correlation/run_gpgpusim.sh")]
    if not marker:
        return None
    extra = [l.split() for l in lines[marker[-1] + 3:] if l.strip() and not l.startswith("#")]
    if len(extra) != 1 or len(extra[0]) != 2:
        return None
    return extra[0][0], extra[0][1]


def perturbed_entries(k, results):
    """[[kernel.perturbed]] entries from RESULTS/NAME/TAG/{lrr,gto}."""
    entries = []
    base = results / k["name"]
    if not base.is_dir():
        return entries
    # run_perturbed.sh's tags in its order, then any others by name.
    order = ["rop119", "rop121", "dram99", "dram101"]
    tags = sorted((p.name for p in base.iterdir() if p.is_dir()),
                  key=lambda t: (order.index(t) if t in order else len(order), t))
    for tag in tags:
        cycles = {}
        option = None
        for sched in ("lrr", "gto"):
            log = base / tag / sched / "gpgpusim.log"
            if not log.exists():
                break
            opt = appended_option(base / tag / sched / "gpgpusim.config")
            if opt is None or opt[0] not in PERTURBATIONS or (option and opt != option):
                print(f"skipped: {log}: not one known appended option", file=sys.stderr)
                break
            option = opt
            try:
                cycles[sched] = accepted(k["manifest"], log)["cycles"]
            except ValueError as e:
                print(f"skipped: {e}", file=sys.stderr)
                break
        if len(cycles) == 2:
            entries.append({
                "gpgpusim": f"{option[0]} {option[1]}",
                "set": f"{PERTURBATIONS[option[0]]}={option[1]}",
                "lrr": cycles["lrr"],
                "gto": cycles["gto"],
            })
            print(f"{k['name']} {option[0]} {option[1]}: {cycles['lrr']} / {cycles['gto']}", file=sys.stderr)
    return entries


def render(doc):
    out = []
    ref = doc.get("reference", {})
    out.append("[reference]")
    for k, v in ref.items():
        out.append(f"{k} = {fmt_value(v)}")
    for k in doc.get("kernel", []):
        out.append("")
        out.append("[[kernel]]")
        for key, v in k.items():
            if not isinstance(v, (dict, list)):
                out.append(f"{key} = {fmt_value(v)}")
        for sched in ("lrr", "gto"):
            if sched in k:
                out.append(f"[kernel.{sched}]")
                for key, v in k[sched].items():
                    out.append(f"{key} = {fmt_value(v)}")
        for entry in k.get("perturbed", []):
            out.append("[[kernel.perturbed]]")
            for key, v in entry.items():
                out.append(f"{key} = {fmt_value(v)}")
    return "\n".join(out) + "\n"


def rewrite(path, change):
    """Applies `change` to every [[kernel]] of the TOML file `path` and
    writes it back, keeping its leading comment lines."""
    header = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    doc = tomllib.loads(path.read_text())
    for k in doc.get("kernel", []):
        change(k)
    text = render(doc)
    path.write_text(("\n".join(header) + "\n\n" if header else "") + text)


def update_kernel(k, results):
    """`update`: kernel `k`'s figures from RESULTS/NAME/SCHED/gpgpusim.log."""
    for sched in ("lrr", "gto"):
        log = results / k["name"] / sched / "gpgpusim.log"
        if log.exists():
            try:
                fields = accepted(k["manifest"], log)
            except ValueError as e:
                print(f"skipped: {e}", file=sys.stderr)
                continue
            k[sched] = fields
            print(f"{k['name']} {sched}: {fields['cycles']} cycles", file=sys.stderr)


def perturb_kernel(k, results):
    """`perturbed`: kernel `k`'s entries from RESULTS/NAME/TAG/."""
    entries = perturbed_entries(k, results)
    if entries:
        k["perturbed"] = entries


def main(argv):
    if len(argv) == 3 and argv[1] == "show":
        fields, extras = parse(argv[2])
        for k, v in fields.items():
            print(f"{k} = {v}")
        for k, v in extras.items():
            print(f"# {k} = {v}")
        return 0
    if len(argv) == 4 and argv[1] == "update":
        rewrite(Path(argv[2]), lambda k: update_kernel(k, Path(argv[3])))
        return 0
    if len(argv) == 4 and argv[1] == "perturbed":
        rewrite(Path(argv[2]), lambda k: perturb_kernel(k, Path(argv[3])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
