//! Timing-model speed: simulated warp instructions per second and simulated
//! cycles per second (criterion's "elements") for FWT and SPMV-scalar on
//! the `gtx480` preset under `gto`, and FWT under `baws` (MWF(GTO) issue with
//! the cff fetch policy, which ranks the fetch candidates by the issue
//! order every fetch cycle), `lfws` (orders every issue cycle) and `blws`
//! (reads every warp's stall cycles every issue cycle). Target: at least 5 million warp
//! instructions/s on one core.
//!
//! `sync_sleep_mutex_busy` and `sync_sleep_mutex_awg` run the global sleep
//! mutex on the `awg` preset under `--sync busy` (every waiting load
//! spins) and `--sync awg` (waiting WGs sleep in SyncMon and the
//! per-cycle synchronization controller runs).
//!
//! Each iteration is a whole `run_timed` (input generation and the CPU
//! reference check included; both are small next to the simulation).

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gpusim::config::GpuConfig;
use gpusim::sync::policy::SyncPolicy;
use gpusim::timing::{Policies, run_timed_with};
use gpusim::workload::runner::prepare;

fn bench(c: &mut Criterion, name: &str, manifest: &str, sched: &str, fetch: &str) {
    let policies = Policies {
        fetch: fetch.to_string(),
        ..Policies::sched(sched)
    };
    bench_with(c, name, manifest, &GpuConfig::gtx480(), &policies);
}

fn bench_with(c: &mut Criterion, name: &str, manifest: &str, cfg: &GpuConfig, pol: &Policies) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let p = prepare(&root.join(manifest), None).unwrap_or_else(|_| panic!("prepare {manifest}"));
    let args: Vec<(String, String)> = Vec::new();
    let first = run_timed_with(&p, &args, cfg, pol, false).expect("runs");
    assert!(first.check.passed(), "{manifest}: {}", first.check);
    let (insts, cycles) = (first.stats.warp_insts, first.stats.cycles);
    for (group, n) in [("timing_warp_insts", insts), ("timing_cycles", cycles)] {
        let mut g = c.benchmark_group(group);
        g.throughput(Throughput::Elements(n));
        g.sample_size(10);
        g.bench_function(name, |b| {
            b.iter(|| {
                let r = run_timed_with(&p, &args, cfg, pol, false).expect("runs");
                assert_eq!(r.stats.cycles, cycles, "deterministic");
            })
        });
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    bench(c, "fwt", "kernels/fwt.toml", "gto", "lrr");
    bench(c, "fwt_baws", "kernels/fwt.toml", "baws", "cff");
    bench(c, "fwt_lfws", "kernels/fwt.toml", "lfws", "lrr");
    bench(c, "fwt_blws", "kernels/fwt.toml", "blws", "lrr");
    let awg = GpuConfig::preset("awg").expect("awg preset");
    for (name, sync) in [
        ("sync_sleep_mutex_busy", SyncPolicy::Busy),
        ("sync_sleep_mutex_awg", SyncPolicy::Awg),
    ] {
        let pol = Policies {
            sync,
            ..Policies::sched("gto")
        };
        bench_with(c, name, "kernels/sync/sleep_mutex_global.toml", &awg, &pol);
    }
    // SPMV-scalar on a larger matrix than its manifest's (the driver sizes
    // the grid when the manifest gives none).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("gpusim-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let m = dir.join("spmv_scalar.toml");
    // The global-memory variant: the series of host costs in the README
    // and docs/performance.md was measured on it.
    let ptx = root.join("kernels/spmv_scalar_global.ptx");
    std::fs::write(
        &m,
        format!(
            "ptx = {:?}\nworkload = \"spmv_scalar\"\n[args]\nrows = 8192\navg_nnz_per_row = 32\nstddev_nnz_per_row = 6\nseed = 1\n",
            ptx.display().to_string()
        ),
    )
    .expect("write manifest");
    bench(
        c,
        "spmv_scalar",
        m.to_str().expect("utf-8 path"),
        "gto",
        "lrr",
    );
}

criterion_group!(timing, benches);
criterion_main!(timing);
