//! Determinism: the same timed run twice gives byte-identical JSON
//! statistics, and idle skipping (jumping the clock over cycles in which
//! nothing can change) does not change any statistic. Runs the fixtures'
//! workloads (`fixtures/tiny/` and six of `fixtures/gtx480/`) under each
//! scheduler they record.

use std::path::Path;

use gpusim::fixture::Fixture;

const FIXTURES: &[&str] = &[
    "fixtures/tiny/spmv_scalar.toml",
    "fixtures/tiny/histogram256.toml",
    "fixtures/tiny/bfs.toml",
    // CCWS limiting loads for long stretches (scores decaying per cycle).
    "fixtures/tiny/kmeans.toml",
    "fixtures/tiny/spin_mutex_global.toml",
    // Several SMs: sleeping SMs, absorbed replies, CTA assignment.
    "fixtures/gtx480/spmv_scalar.toml",
    "fixtures/gtx480/histogram256.toml",
    // Gathers that fill the L1D's MSHRs and reserved ways: lookups that
    // wait for a fill are not retried until one can end the wait, and
    // only such a fill wakes the waiting SM.
    "fixtures/gtx480/spmv_scalar_global.toml",
    // The fetch policies that read the issue order (cff) or top up
    // I-buffers (fef), under every scheduler including the barrier-aware.
    "fixtures/gtx480/fwt_fetch_cff.toml",
    "fixtures/gtx480/fwt_fetch_fef.toml",
    "fixtures/gtx480/vector_add_cta_throttle.toml",
    // Work-group synchronization: sleeping WGs, SyncMon resumes and
    // timeouts, context switches out and in through the memory system.
    "fixtures/awg/spin_mutex_global_sleep.toml",
    "fixtures/awg/spin_mutex_global_monnr_one.toml",
    "fixtures/awg/atomic_tree_barrier_uniq_oversubscribed_timeout.toml",
    "fixtures/awg/atomic_tree_barrier_uniq_oversubscribed_awg.toml",
];

fn json(f: &Fixture, sched: &str, idle_skip: bool) -> String {
    let set = [("sim.idle_skip".to_string(), idle_skip.to_string())];
    let run = f.run(sched, &set).unwrap_or_else(|e| panic!("{e}"));
    serde_json::to_string(&run.stats).expect("stats serialize")
}

fn each_run(mut check: impl FnMut(&Fixture, &str)) {
    for path in FIXTURES {
        let f = Fixture::load(Path::new(path)).unwrap_or_else(|e| panic!("{e}"));
        let scheds: Vec<&str> = f.schedulers().collect();
        assert!(!scheds.is_empty(), "{path}");
        for s in scheds {
            check(&f, s);
        }
    }
}

#[test]
fn the_same_run_twice_gives_identical_json() {
    each_run(|f, s| {
        let a = json(f, s, true);
        let b = json(f, s, true);
        assert!(
            a == b,
            "{} {s}: two runs differ:\n{a}\n{b}",
            f.path.display()
        );
    });
}

#[test]
fn idle_skipping_does_not_change_the_stats() {
    each_run(|f, s| {
        let on = json(f, s, true);
        let off = json(f, s, false);
        assert!(
            on == off,
            "{} {s}: sim.idle_skip=true and false differ:\n{on}\n{off}",
            f.path.display()
        );
    });
}
