//! Barrier-phase statistics (BAWS §3, `src/timing/barrier_stats.rs`):
//! warp-phases, RTRU (Eq. 1) and barrier intensity, recomputed here by
//! hand from the issue log (each warp's `bar.sync` and exit cycles) and
//! the warps' start cycles, and checked against the kernel's known skew.

use std::collections::BTreeMap;

use gpusim::timing::TimedRun;
use gpusim::timing::barrier_stats::BarrierStats;
use gpusim::workload::runner::prepare;

mod phases;
use phases::{config, run, skew_manifest};

/// Each warp's story, by (CTA, warp): start, barrier arrival cycles, exit.
#[derive(Debug, Default, Clone)]
struct Warp {
    start: u64,
    arrivals: Vec<u64>,
    exit: u64,
}

/// The warps of a logged run, from the issue log (`bar` PCs and each
/// warp's last issue, its `ret`) and the warp records (start cycles).
fn warps_of(r: &TimedRun, bar_pcs: &[u32]) -> BTreeMap<([u32; 3], u32), Warp> {
    let mut warps: BTreeMap<([u32; 3], u32), Warp> = BTreeMap::new();
    for w in &r.stats.warps {
        warps.entry((w.cta, w.warp)).or_default().start = w.start;
    }
    for e in &r.issue_log {
        let w = warps
            .get_mut(&(e.cta, e.warp))
            .expect("a logged warp retired");
        if bar_pcs.contains(&e.pc) {
            w.arrivals.push(e.cycle);
        }
        w.exit = w.exit.max(e.cycle);
    }
    warps
}

/// The figures of `BarrierStats`, computed from the definitions: per CTA,
/// phase p of warp i ends at its p-th arrival (or its exit) and starts
/// the cycle after the previous phase's release (the last arrival), or at
/// the warp's start.
fn by_hand(warps: &BTreeMap<([u32; 3], u32), Warp>) -> BarrierStats {
    let mut ctas: BTreeMap<[u32; 3], Vec<&Warp>> = BTreeMap::new();
    for ((cta, _), w) in warps {
        ctas.entry(*cta).or_default().push(w);
    }
    let (mut idle, mut held, mut idle_bar, mut held_bar) = (0u64, 0u64, 0u64, 0u64);
    let (mut ratios, mut phases, mut released) = (Vec::new(), 0u64, 0u64);
    let (mut intensity, mut with_exit, mut waits, mut exit_waits, mut lifetimes) =
        (0.0, 0.0, 0u64, 0u64, 0u64);
    for ws in ctas.values() {
        let nbar = ws[0].arrivals.len();
        assert!(ws.iter().all(|w| w.arrivals.len() == nbar));
        let start = ws[0].start;
        let last_exit = ws.iter().map(|w| w.exit).max().unwrap();
        let mut phase_start = start;
        let mut wait = vec![0u64; ws.len()];
        for p in 0..=nbar {
            let ends: Vec<u64> = ws
                .iter()
                .map(|w| if p < nbar { w.arrivals[p] } else { w.exit })
                .collect();
            let t: Vec<u64> = ends.iter().map(|e| e + 1 - phase_start).collect();
            let max = *t.iter().max().unwrap();
            let n = t.len() as u64;
            let i: u64 = t.iter().map(|ti| max - ti).sum();
            idle += i;
            held += n * max;
            if p < nbar {
                idle_bar += i;
                held_bar += n * max;
                released += 1;
                let release = *ends.iter().max().unwrap();
                for (k, e) in ends.iter().enumerate() {
                    wait[k] += release - e;
                }
                phase_start = release + 1;
            }
            ratios.push(i as f64 / (n * max) as f64);
            phases += 1;
        }
        for (k, w) in ws.iter().enumerate() {
            let lived = w.exit + 1 - start;
            intensity += wait[k] as f64 / lived as f64;
            with_exit += (wait[k] + last_exit - w.exit) as f64 / (last_exit + 1 - start) as f64;
            waits += wait[k];
            exit_waits += last_exit - w.exit;
            lifetimes += lived;
        }
    }
    let n = warps.len() as f64;
    BarrierStats {
        ctas: ctas.len() as u64,
        warps: warps.len() as u64,
        phases,
        barriers_released: released,
        barrier_arrivals: warps.values().map(|w| w.arrivals.len() as u64).sum(),
        phases_per_cta: phases as f64 / ctas.len() as f64,
        rtru: idle as f64 / held as f64,
        rtru_barrier_phases: if held_bar > 0 {
            idle_bar as f64 / held_bar as f64
        } else {
            0.0
        },
        rtru_phase_mean: ratios.iter().sum::<f64>() / ratios.len() as f64,
        barrier_intensity: intensity / n,
        barrier_intensive: intensity / n > 0.15,
        barrier_intensity_with_exit: with_exit / n,
        idle_warp_cycles: idle,
        phase_warp_cycles: held,
        barrier_wait_cycles: waits,
        exit_wait_cycles: exit_waits,
        warp_lifetime_cycles: lifetimes,
    }
}

fn assert_close(got: &BarrierStats, want: &BarrierStats) {
    let ints = |s: &BarrierStats| {
        (
            s.ctas,
            s.warps,
            s.phases,
            s.barriers_released,
            s.barrier_arrivals,
            s.idle_warp_cycles,
            s.phase_warp_cycles,
            s.barrier_wait_cycles,
            s.exit_wait_cycles,
            s.warp_lifetime_cycles,
            s.barrier_intensive,
        )
    };
    assert_eq!(ints(got), ints(want));
    for (g, w, name) in [
        (got.phases_per_cta, want.phases_per_cta, "phases_per_cta"),
        (got.rtru, want.rtru, "rtru"),
        (
            got.rtru_barrier_phases,
            want.rtru_barrier_phases,
            "rtru_barrier_phases",
        ),
        (got.rtru_phase_mean, want.rtru_phase_mean, "rtru_phase_mean"),
        (
            got.barrier_intensity,
            want.barrier_intensity,
            "barrier_intensity",
        ),
        (
            got.barrier_intensity_with_exit,
            want.barrier_intensity_with_exit,
            "barrier_intensity_with_exit",
        ),
    ] {
        assert!((g - w).abs() < 1e-9, "{name}: {g} vs {w} by hand");
    }
}

fn bar_pcs(m: &std::path::Path) -> Vec<u32> {
    let p = prepare(m, None).unwrap();
    let k = p.program.kernel(p.entry);
    k.insts
        .iter()
        .enumerate()
        .filter(|(_, i)| i.op == gpusim::ir::Opcode::Bar)
        .map(|(pc, _)| pc as u32)
        .collect()
}

/// Two CTAs of four warps with two barriers each on `tiny`: every figure
/// equals the one computed by hand from the issue log, under both
/// baseline policies, and the run's figures are the launch's.
#[test]
fn skewed_phases_match_the_hand_computation() {
    let m = skew_manifest("barrier-stats", "two-ctas", 2, 4, 40);
    let pcs = bar_pcs(&m);
    assert_eq!(pcs.len(), 2);
    for sched in ["lrr", "gto"] {
        let r = run(&m, &config("tiny"), sched, true);
        let warps = warps_of(&r, &pcs);
        let want = by_hand(&warps);
        // Each warp's record lists its phases' ends (its arrivals, then
        // its exit) and its own wait: each arrival to the CTA's last
        // arrival at that barrier (its release).
        for rec in &r.stats.warps {
            let w = &warps[&(rec.cta, rec.warp)];
            let mut ends = w.arrivals.clone();
            ends.push(w.exit);
            assert_eq!(
                rec.phase_ends, ends,
                "{sched} {:?} warp {}",
                rec.cta, rec.warp
            );
            let wait: u64 = (0..w.arrivals.len())
                .map(|p| {
                    let release = warps
                        .iter()
                        .filter(|((c, _), _)| *c == rec.cta)
                        .map(|(_, o)| o.arrivals[p])
                        .max()
                        .unwrap();
                    release - w.arrivals[p]
                })
                .sum();
            assert_eq!(rec.barrier_wait, wait, "{sched}");
            let lived = w.exit + 1 - w.start;
            assert_eq!(rec.barrier_fraction, wait as f64 / lived as f64);
        }
        let got = r.stats.barriers;
        assert_close(&got, &want);
        assert_eq!((got.ctas, got.warps, got.phases), (2, 8, 6), "{sched}");
        assert_eq!((got.barriers_released, got.barrier_arrivals), (4, 16));
        assert_eq!(r.stats.launches[0].barriers, got);
        // The statistics do not depend on the issue stage's mode: the
        // incremental stage (no log) gives the same.
        let plain = run(&m, &config("tiny"), sched, false);
        assert_eq!(plain.stats.barriers, got, "{sched}");
        assert_eq!(plain.stats.cycles, r.stats.cycles);
    }
}

/// One CTA, where nothing else competes: warp w spends w·k iterations in
/// phase 0 and (3 − w)·k in phase 1, so with k large each phase's T_i
/// grows linearly with the skew and Eq. 1 tends to Σ_i (3 − i) / (4 · 3)
/// = 1/2 in both; warp w waits (3 − w)·k·L of its ≈ 3·k·L + ε cycles in
/// phase 0 and w·k·L in phase 1 (L: cycles per iteration), so each warp
/// waits ≈ 3·k·L of ≈ 6·k·L, a barrier intensity of 1/2.
#[test]
fn linear_skew_gives_half_rtru_and_half_intensity() {
    let m = skew_manifest("barrier-stats", "one-cta", 1, 4, 400);
    let pcs = bar_pcs(&m);
    let r = run(&m, &config("tiny"), "lrr", true);
    let warps = warps_of(&r, &pcs);
    let s = r.stats.barriers;
    assert_close(&s, &by_hand(&warps));
    // Arrivals at the first barrier are in warp order and nearly equally
    // spaced: L grows a little with the number of warps still looping
    // (three, then two, then one share the issue slot), within 15%.
    let a: Vec<u64> = warps.values().map(|w| w.arrivals[0]).collect();
    let steps: Vec<u64> = a.windows(2).map(|p| p[1] - p[0]).collect();
    assert!(steps.iter().all(|&d| d > 0), "{a:?}");
    let (lo, hi) = (*steps.iter().min().unwrap(), *steps.iter().max().unwrap());
    assert!(hi - lo <= hi * 15 / 100, "{steps:?}");
    assert!((s.rtru_barrier_phases - 0.5).abs() < 0.03, "{s:?}");
    assert!((s.barrier_intensity - 0.5).abs() < 0.03, "{s:?}");
    assert!(s.barrier_intensive);
    assert_eq!(s.phases_per_cta, 3.0);
}

/// A kernel without barriers: one phase per CTA (per warp: its whole
/// life), no barrier wait, barrier intensity 0; RTRU is the disparity of
/// the warps' exits, as computed by hand.
#[test]
fn no_barrier_kernel_has_one_phase_and_no_intensity() {
    let m = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/vector_add.toml");
    let r = run(&m, &config("tiny"), "gto", true);
    let want = by_hand(&warps_of(&r, &[]));
    let s = r.stats.barriers;
    assert_close(&s, &want);
    assert_eq!(s.phases, s.ctas);
    assert_eq!(s.phases_per_cta, 1.0);
    assert_eq!((s.barriers_released, s.barrier_arrivals), (0, 0));
    assert_eq!((s.barrier_intensity, s.barrier_wait_cycles), (0.0, 0));
    assert!(!s.barrier_intensive);
    assert_eq!(s.rtru_barrier_phases, 0.0);
    assert!(s.ctas > 1 && s.rtru > 0.0);
}

/// Several launches: the run's sums are the launches' sums, and the
/// summary prints the run's figures.
#[test]
fn run_figures_pool_the_launches() {
    let m = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/fwt.toml");
    let r = run(&m, &config("tiny"), "gto", false);
    let l = &r.stats.launches;
    assert!(l.len() > 1);
    let sum = |f: &dyn Fn(&BarrierStats) -> u64| l.iter().map(|x| f(&x.barriers)).sum::<u64>();
    let s = &r.stats.barriers;
    assert_eq!(s.ctas, sum(&|b| b.ctas));
    assert_eq!(s.ctas, r.stats.total.ctas);
    assert_eq!(s.phases, sum(&|b| b.phases));
    assert_eq!(s.barriers_released, sum(&|b| b.barriers_released));
    assert_eq!(s.idle_warp_cycles, sum(&|b| b.idle_warp_cycles));
    assert_eq!(s.phase_warp_cycles, sum(&|b| b.phase_warp_cycles));
    assert!(s.barriers_released > 0);
    assert!((s.rtru - s.idle_warp_cycles as f64 / s.phase_warp_cycles as f64).abs() < 1e-12);
    let text = gpusim::report::summary::timing_summary(&r.stats);
    let line = text.lines().find(|l| l.starts_with("barriers ")).unwrap();
    assert!(
        line.contains(&format!("RTRU {:.1}%", 100.0 * s.rtru)),
        "{line}"
    );
    assert!(line.contains(&format!("{:.1} phases/CTA", s.phases_per_cta)));
}
