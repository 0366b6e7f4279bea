//! Helpers shared by the analytic microbenchmark tests
//! (`tests/timing_micro.rs`, `tests/timing_mechanisms.rs`): manifests for
//! the kernels of `kernels/micro/micro.ptx`, configs with `--set`
//! overrides, and timed runs whose check must pass.

use std::path::{Path, PathBuf};

use gpusim::config::{GpuConfig, load_config};
use gpusim::timing::{IssueRecord, Policies, Stats, run_timed_with};
use gpusim::workload::runner::prepare;

/// `kernels/micro/micro.ptx`.
pub fn micro_ptx() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/micro/micro.ptx")
}

/// Writes a manifest running `entry` of `micro.ptx` with `body` into a
/// fresh temporary directory named by `suite` and `tag`; returns its path.
pub fn manifest(suite: &str, tag: &str, entry: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-{suite}-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{entry}.toml"));
    let text = format!(
        "ptx = {:?}\nentry = \"{entry}\"\n{body}\n",
        micro_ptx().display().to_string()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// Preset `preset` with `KEY=VALUE` overrides, as `--set` applies them.
pub fn config(preset: &str, sets: &[&str]) -> GpuConfig {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|s| {
            let (k, v) = s.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    load_config(preset, &sets).unwrap_or_else(|d| panic!("{}", d.render(false)))
}

/// A timed run's statistics and (when asked for) its issue log.
pub struct Run {
    /// The run's statistics.
    pub stats: Stats,
    /// Every issue, when the run was asked to log them.
    pub log: Vec<IssueRecord>,
}

/// Runs manifest `m` on `cfg` under `sched` with workload `args`; the
/// check must pass and the stall categories sum to schedulers × cycles.
pub fn run(m: &Path, cfg: &GpuConfig, sched: &str, args: &[(&str, String)], log: bool) -> Run {
    let p = prepare(m, None).unwrap_or_else(|_| panic!("manifest {}", m.display()));
    let args: Vec<(String, String)> = args
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let r = run_timed_with(&p, &args, cfg, &Policies::sched(sched), log)
        .unwrap_or_else(|e| panic!("{}: {e:?}", m.display()));
    assert!(r.check.passed(), "{}: {}", m.display(), r.check);
    assert_eq!(r.stats.stalls.total(), r.stats.schedulers * r.stats.cycles);
    Run {
        stats: r.stats,
        log: r.issue_log,
    }
}

/// The cycles one whole-line reply occupies its SM's ejection port, from
/// the config: with the reply crossbar one packet per L2 sector (header +
/// sector bytes each, 1 flit of 40 bytes on the GTX480, 4 in all), else
/// one packet (header + line, ⌈136 / flit_bytes⌉ flits); each packet
/// ⌈flits / flits_per_cycle⌉ cycles.
pub fn line_reply_cycles(cfg: &GpuConfig) -> u64 {
    let ic = &cfg.icnt;
    let (packets, payload) = if ic.reply_crossbar {
        let sectors = cfg.l2.line / cfg.l2.sector_bytes;
        (sectors, cfg.l1d.line / sectors)
    } else {
        (1, cfg.l1d.line)
    };
    let flits = (ic.header_bytes + payload).div_ceil(ic.flit_bytes).max(1);
    u64::from(packets * flits.div_ceil(ic.flits_per_cycle))
}
