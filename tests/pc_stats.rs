//! Per-instruction statistics (`launches[].pcs`), per-launch totals and the
//! `--sample` time series, checked against the run's own independent
//! counters (the per-warp state cycles, the SM totals, the memory system)
//! and against what a kernel's code says it must do.

use std::path::Path;

use gpusim::config::GpuConfig;
use gpusim::fixture::Fixture;
use gpusim::timing::stats::{Stall, StallCounts, Stats};
use gpusim::timing::{Policies, Recording, TimedRun, run_timed_with};
use gpusim::workload::runner::prepare;

fn fixture(path: &str) -> Fixture {
    Fixture::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn run(f: &Fixture, sched: &str, sets: &[(&str, &str)], record: Recording) -> TimedRun {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (p, cfg) = f.prepare(&sets).unwrap_or_else(|e| panic!("{e}"));
    f.run_recording(&p, &cfg, sched, record)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A kernel's own manifest on the `tiny` machine under `gto`.
fn run_manifest(path: &str) -> (TimedRun, GpuConfig) {
    let p = prepare(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path), None).unwrap();
    let cfg = GpuConfig::preset("tiny").unwrap();
    let r = run_timed_with(&p, &[], &cfg, &Policies::sched("gto"), false).unwrap();
    assert!(r.check.passed(), "{path}: {}", r.check);
    (r, cfg)
}

/// Categories whose cycles belong to an instruction.
const CHARGED: [Stall; 7] = [
    Stall::Control,
    Stall::Data,
    Stall::Structural,
    Stall::Barrier,
    Stall::Fetch,
    Stall::Throttled,
    Stall::SyncWait,
];

/// Every launch's per-PC figures add up to its totals: issues to its warp
/// instructions, each charged category to its warp-state cycles, ready to
/// its ready cycles, L1D outcomes to its load requests.
fn check_pc_sums(s: &Stats, what: &str) {
    for (i, l) in s.launches.iter().enumerate() {
        let issues: u64 = l.pcs.iter().map(|p| p.issues).sum();
        assert_eq!(issues, l.warp_insts, "{what}: launch {i}: issues");
        for c in CHARGED {
            let sum: u64 = l.pcs.iter().map(|p| p.stalls.get(c)).sum();
            assert_eq!(
                sum,
                l.total.warp_states.get(c),
                "{what}: launch {i}: {}",
                c.name()
            );
        }
        let ready: u64 = l.pcs.iter().map(|p| p.ready).sum();
        assert_eq!(ready, l.total.warp_ready, "{what}: launch {i}: ready");
        let hits: u64 = l.pcs.iter().map(|p| p.l1d_hits).sum();
        let misses: u64 = l.pcs.iter().map(|p| p.l1d_misses).sum();
        assert_eq!(
            hits + misses,
            l.total.l1d.accesses,
            "{what}: launch {i}: L1D"
        );
        assert_eq!(misses, l.total.l1d.misses, "{what}: launch {i}: L1D misses");
        for w in l.pcs.windows(2) {
            assert!(w[0].pc < w[1].pc, "ascending PCs");
        }
        for p in &l.pcs {
            assert_eq!(p.stalls.issued, p.issues);
            assert_eq!(p.stalls.exit + p.stalls.idle, 0);
            assert!(
                !p.text.is_empty() && p.line > 0,
                "pc {} has its source",
                p.pc
            );
        }
    }
}

#[test]
fn per_pc_figures_add_up_to_the_launch_totals() {
    for (path, scheds) in [
        ("fixtures/gtx480/fwt_fetch_cff.toml", &["gto", "baws"][..]),
        ("fixtures/tiny/spmv_scalar.toml", &["lrr", "ccws"][..]),
        ("fixtures/tiny/bfs.toml", &["gto"][..]),
        (
            "fixtures/awg/atomic_tree_barrier_uniq_oversubscribed_awg.toml",
            &["gto"][..],
        ),
    ] {
        let f = fixture(path);
        for sched in scheds {
            let r = run(&f, sched, &[], Recording::default());
            check_pc_sums(&r.stats, &format!("{path} {sched}"));
            // The full issue stage (idle skip off visits every warp every
            // cycle) charges every instruction the same.
            let full = run(
                &f,
                sched,
                &[("sim.idle_skip", "false")],
                Recording::default(),
            );
            for (a, b) in r.stats.launches.iter().zip(&full.stats.launches) {
                assert_eq!(a.pcs, b.pcs, "{path} {sched}");
            }
        }
    }
}

#[test]
fn launch_totals_add_up_to_the_run_totals() {
    let f = fixture("fixtures/gtx480/fwt_fetch_cff.toml");
    let s = run(&f, "gto", &[], Recording::default()).stats;
    assert!(s.launches.len() > 1, "FWT launches several kernels");
    let mut warp_states = StallCounts::default();
    let (mut insts, mut l1d, mut dram, mut l2, mut flits) = (0, 0, 0, 0, 0);
    for l in &s.launches {
        warp_states.merge(&l.total.warp_states);
        insts += l.total.warp_insts;
        l1d += l.total.l1d.misses;
        dram += l.mem.dram_reads;
        l2 += l.mem.l2_hits;
        flits += l.mem.icnt_flits;
        assert_eq!(l.total.warp_insts, l.warp_insts);
        assert_eq!(l.total.stalls, l.stalls);
        assert_eq!(l.mem.dram_reads, l.dram_reads);
        assert!((l.ipc - l.warp_insts as f64 / l.cycles as f64).abs() < 1e-12);
    }
    assert_eq!(warp_states, s.total.warp_states);
    assert_eq!(insts, s.warp_insts);
    assert_eq!(l1d, s.total.l1d.misses);
    assert_eq!(dram, s.mem.dram_reads);
    assert_eq!(l2, s.mem.l2_hits);
    assert_eq!(flits, s.mem.icnt_flits);
}

/// `barrier_skew`: warp 0 of a 4-warp CTA loops `work` = 8 times before
/// `bar.sync`, the other three wait there. What the code implies: each
/// loop instruction issues 8 times, the instructions before the branch
/// into the loop once per warp; every barrier cycle is charged to the
/// `bar.sync` line, and they are the cycles the warps waited there.
#[test]
fn barrier_cycles_go_to_the_bar_sync_line() {
    let (r, _) = run_manifest("kernels/micro/barrier_skew.toml");
    let l = &r.stats.launches[0];
    check_pc_sums(&r.stats, "barrier_skew");
    let at = |needle: &str| {
        l.pcs
            .iter()
            .find(|p| p.text.starts_with(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in {:?}", l.pcs))
    };
    assert_eq!(at("bar.sync").issues, 4);
    assert_eq!(at("setp.ne.u32").issues, 4);
    assert_eq!(at("add.s32 %r4").issues, 8);
    assert_eq!(at("setp.lt.u32").issues, 8);
    assert_eq!(at("st.global").issues, 4);
    let waited: u64 = r.stats.warps.iter().map(|w| w.barrier_wait).sum();
    assert!(waited > 0);
    assert_eq!(at("bar.sync").stalls.barrier, l.total.warp_states.barrier);
    assert_eq!(
        at("bar.sync").stalls.barrier,
        r.stats.warps.iter().map(|w| w.states.barrier).sum::<u64>()
    );
}

/// A memory instruction's latency is its issue-to-writeback time: a
/// parameter load's is the constant-cache latency plus the operand
/// collector's stages, the same for every execution.
#[test]
fn memory_latency_per_instruction() {
    let (r, cfg) = run_manifest("kernels/micro/barrier_skew.toml");
    let l = &r.stats.launches[0];
    let params: Vec<_> = l
        .pcs
        .iter()
        .filter(|p| p.text.starts_with("ld.param"))
        .collect();
    assert_eq!(params.len(), 2);
    for p in params {
        assert_eq!(p.mem_insts, 4, "one per warp");
        assert!(p.mem_latency_avg >= f64::from(cfg.latency.const_load));
        assert_eq!(p.mem_latency_avg.fract(), 0.0, "every execution the same");
    }
    // Global loads: spmv on tiny misses in the L1D at its loads.
    let s = fixture("fixtures/tiny/spmv_scalar.toml");
    let r = run(&s, "gto", &[], Recording::default());
    let loads: Vec<_> = r.stats.launches[0]
        .pcs
        .iter()
        .filter(|p| p.text.starts_with("ld.global"))
        .collect();
    assert!(!loads.is_empty());
    for p in loads {
        assert!(p.l1d_misses > 0, "{}", p.text);
        assert!(p.mem_insts > 0 && p.mem_latency_avg > f64::from(cfg.l1d.hit_latency));
    }
}

/// `--sample N`: recording changes no statistic; the windows tile every
/// launch; per SM a window's scheduler-cycles are its schedulers × its
/// length; summed over windows they give the run's totals; idle skipping
/// does not change them.
#[test]
fn samples_tile_the_run_and_sum_to_its_totals() {
    for (path, n) in [
        ("fixtures/gtx480/fwt_fetch_cff.toml", 700),
        ("fixtures/tiny/spmv_scalar.toml", 1000),
        (
            "fixtures/awg/atomic_tree_barrier_uniq_oversubscribed_awg.toml",
            5000,
        ),
    ] {
        let f = fixture(path);
        let plain = run(&f, "gto", &[], Recording::default()).stats;
        let rec = Recording {
            issue_log: false,
            sample: Some(n),
        };
        let sampled = run(&f, "gto", &[], rec).stats;
        let samples = sampled.samples.clone().expect("samples recorded");
        assert_eq!(
            Stats {
                samples: None,
                ..sampled.clone()
            },
            plain,
            "{path}: sampling changes nothing"
        );
        let full = run(&f, "gto", &[("sim.idle_skip", "false")], rec).stats;
        assert_eq!(full.samples.as_ref(), Some(&samples), "{path}: idle skip");

        assert_eq!(samples.interval, n);
        let sms = sampled.sms.len();
        assert_eq!(samples.sms.len(), samples.gpu.len() * sms);
        // Windows tile each launch: consecutive, on multiples of n except
        // at launch ends.
        let mut t = 0;
        for g in &samples.gpu {
            assert_eq!(g.start, t, "{path}: consecutive windows");
            assert!(g.end > g.start);
            assert!(g.end % n == 0 || g.end - g.start < n, "{path}: {g:?}");
            t = g.end;
        }
        assert_eq!(t, sampled.cycles, "{path}: the windows cover every cycle");
        let per_sm = sampled.schedulers / sms as u64;
        let mut stalls = StallCounts::default();
        let (mut insts, mut misses) = (0, 0);
        for s in &samples.sms {
            assert_eq!(s.stalls.total(), per_sm * (s.end - s.start), "{path}");
            stalls.merge(&s.stalls);
            insts += s.warp_insts;
            misses += s.l1d_misses;
        }
        assert_eq!(stalls, sampled.stalls);
        assert_eq!(insts, sampled.warp_insts);
        assert_eq!(misses, sampled.total.l1d.misses);
        let dram: u64 = samples.gpu.iter().map(|g| g.dram_bytes).sum();
        assert_eq!(dram, sampled.mem.dram_bytes);
        let csv = samples.to_csv();
        assert_eq!(csv.lines().count(), samples.sms.len() + 1);
    }
}

fn gpusim(args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `run --sample N --sample-csv F --json J`: one CSV row per SM window of
/// the JSON's `samples`; the flags that cannot apply are errors.
#[test]
fn sample_flags_end_to_end() {
    let dir = std::env::temp_dir().join(format!("gpusim-sample-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, json) = (dir.join("s.csv"), dir.join("s.json"));
    let k = "kernels/micro/barrier_skew.toml";
    let (code, err) = gpusim(&[
        "run",
        k,
        "--config",
        "tiny",
        "--sample",
        "100",
        "--sample-csv",
        csv.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let sms = v["samples"]["sms"].as_array().unwrap();
    let cycles = v["cycles"].as_u64().unwrap();
    assert_eq!(
        sms.len() as u64,
        cycles.div_ceil(100) * v["sms"].as_array().unwrap().len() as u64
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), sms.len() + 1);
    assert!(rows[0].starts_with("launch,sm,start,end,warp_insts,ipc,active_warps"));
    for (row, s) in rows[1..].iter().zip(sms) {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f[2], s["start"].to_string());
        assert_eq!(f[4], s["warp_insts"].to_string());
    }
    for (args, needle) in [
        (
            vec!["--sample", "100"],
            "--sample records a time series into --json FILE or --sample-csv FILE",
        ),
        (vec!["--sample", "0"], "0"),
        (vec!["--sample-csv", "x.csv"], "--sample"),
        (
            vec!["--functional", "--sample", "10", "--json", "x.json"],
            "--sample does not apply to --functional",
        ),
    ] {
        let mut a = vec!["run", k, "--config", "tiny"];
        a.extend(args);
        let (code, err) = gpusim(&a);
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(err.contains(needle), "{a:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
