//! `best-swl` [DAWS 3.3, 7.1]: run the workload under `swl:N` for every
//! `N` from 1 to the SM's warp slots and keep the fastest (fewest cycles;
//! ties go to the smaller `N`). The runs are independent, so they are
//! spread over `jobs` threads; the result does not depend on `jobs`.

use std::sync::Mutex;

use crate::config::GpuConfig;
use crate::timing::host::{Policies, TimedRun, run_timed_with};
use crate::workload::runner::{Prepared, RunError};

/// The outcome of a `best-swl` sweep.
#[derive(Debug)]
pub struct SwlSweep {
    /// The best warp limit.
    pub best_limit: u32,
    /// Its run.
    pub best: TimedRun,
    /// Cycles of every `swl:N`, by `N` ascending.
    pub cycles: Vec<(u32, u64)>,
    /// The `N` whose run failed the workload's check (a simulator bug:
    /// timing never changes results). The best is chosen among the others.
    pub failed_checks: Vec<u32>,
}

/// Runs `swl:1` … `swl:max_warps_per_sm` (with `base`'s other policies)
/// on `jobs` threads and returns the best among the runs whose check
/// passed (if none did, the smallest `N`'s, with every `N` listed in
/// `failed_checks`). The first error (smallest `N`) is returned if any run
/// fails to complete.
pub fn best_swl(
    p: &Prepared,
    overrides: &[(String, String)],
    cfg: &GpuConfig,
    base: &Policies,
    jobs: usize,
) -> Result<SwlSweep, RunError> {
    let max = cfg.core.max_warps_per_sm.max(1);
    let next = Mutex::new(1u32);
    let results: Mutex<Vec<(u32, Result<TimedRun, RunError>)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, max as usize) {
            s.spawn(|| {
                loop {
                    let n = {
                        let mut g = next.lock().expect("sweep counter");
                        let n = *g;
                        *g += 1;
                        n
                    };
                    if n > max {
                        break;
                    }
                    let pol = Policies {
                        sched: format!("swl:{n}"),
                        ..base.clone()
                    };
                    let r = run_timed_with(p, overrides, cfg, &pol, false);
                    results.lock().expect("sweep results").push((n, r));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("sweep results");
    results.sort_by_key(|r| r.0);
    let mut cycles = Vec::with_capacity(results.len());
    let mut best: Option<(u32, TimedRun)> = None;
    let mut failed_checks = Vec::new();
    let mut any: Option<(u32, TimedRun)> = None;
    for (n, r) in results {
        let r = r?;
        cycles.push((n, r.stats.cycles));
        if !r.check.passed() {
            failed_checks.push(n);
            any.get_or_insert((n, r));
            continue;
        }
        if best
            .as_ref()
            .is_none_or(|(_, b)| r.stats.cycles < b.stats.cycles)
        {
            best = Some((n, r));
        }
    }
    let (best_limit, best) = best.or(any).expect("at least swl:1 ran");
    Ok(SwlSweep {
        best_limit,
        best,
        cycles,
        failed_checks,
    })
}

/// Worker threads for sweeps: the machine's parallelism.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
