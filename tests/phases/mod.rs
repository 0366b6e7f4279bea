//! Helpers shared by `tests/barrier_stats.rs` and `tests/timeline.rs`: a
//! manifest for `tests/phases/warp_skew.ptx` (warp w of W spins w·k
//! iterations before its CTA's first barrier and (W−1−w)·k before the
//! second) and timed runs on a preset.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use gpusim::config::{GpuConfig, load_config};
use gpusim::timing::{Policies, TimedRun, run_timed_with};
use gpusim::workload::runner::prepare;

/// Writes a manifest running `warp_skew` with `ctas` CTAs of `warps`
/// warps and `k` iterations per step into a fresh temporary directory
/// named by `suite` and `tag`; returns its path. Every thread must store
/// `1 + (warps − 1)·k`.
pub fn skew_manifest(suite: &str, tag: &str, ctas: u32, warps: u32, k: u32) -> PathBuf {
    let ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/phases/warp_skew.ptx");
    let dir = std::env::temp_dir().join(format!("gpusim-{suite}-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("warp_skew.toml");
    let threads = warps * 32;
    let text = format!(
        "ptx = {:?}\nentry = \"warp_skew\"\nworkload = \"buffers\"\nregs_per_thread = 16\n\
         grid = [{ctas}, 1, 1]\nblock = [{threads}, 1, 1]\nparams = [\"out\", {{ u32 = {k} }}]\n\
         [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = {}\n\
         expect = {{ start = {}, step = 0 }}\n",
        ptx.display().to_string(),
        ctas * threads,
        1 + (warps - 1) * k
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// Preset `preset`.
pub fn config(preset: &str) -> GpuConfig {
    load_config(preset, &[]).unwrap_or_else(|d| panic!("{}", d.render(false)))
}

/// Runs manifest `m` on `cfg` under `sched`, logging every issue when
/// `log`; the check must pass.
pub fn run(m: &Path, cfg: &GpuConfig, sched: &str, log: bool) -> TimedRun {
    let p = prepare(m, None).unwrap_or_else(|_| panic!("manifest {}", m.display()));
    let r = run_timed_with(&p, &[], cfg, &Policies::sched(sched), log)
        .unwrap_or_else(|e| panic!("{}: {e:?}", m.display()));
    assert!(r.check.passed(), "{}: {}", m.display(), r.check);
    r
}
