//! DAWS's mechanisms in isolation, on hand-built loops, tables and load
//! streams [DAWS MICRO'13 §5]: the footprint of one loop iteration, the
//! age-ordered cutoff, the inner-loop rule, clearing at barriers, and the
//! detected classifier (sampling warp, locality and divergence counters,
//! intra-loop repetition detector). Expected values are worked out by hand
//! from the paper's rules, in the comments.

use gpusim::config::GpuConfig;
use gpusim::ir::Kernel;
use gpusim::sched::daws::classify::{ClassificationTable, LoadClass, LoadClassifier};
use gpusim::sched::daws::loops::{LoopFacts, LoopTable};
use gpusim::sched::daws::{DawsCore, DawsMode};
use gpusim::sched::{Issued, LoadFeedback, SchedView, WarpView};

/// One loop at PCs 2..=9 with loads at 3 (diverged), 4 (converged), 5 and
/// 6 (repeating each other, diverged): the issue's example loop.
fn one_loop() -> LoopTable {
    let mut innermost = vec![None; 12];
    innermost[2..=9].fill(Some(0));
    LoopTable::from_parts(
        vec![LoopFacts {
            begin: 2,
            end: 9,
            parent: None,
            loads: vec![3, 4, 5, 6],
        }],
        innermost,
    )
}

fn one_loop_table() -> ClassificationTable {
    let mut t = ClassificationTable::new(12, 1);
    t.set_locality(0, true);
    let class = |diverged, rep| LoadClass {
        loop_id: 0,
        diverged,
        rep,
    };
    t.set(3, class(true, 3));
    t.set(4, class(false, 4));
    t.set(5, class(true, 5));
    t.set(6, class(true, 5));
    t
}

#[test]
fn footprint_counts_diverged_converged_and_repeated_loads() {
    let loops = one_loop();
    let t = one_loop_table();
    // Groups: {3} diverged, {4} converged, {5, 6} diverged (once).
    // 32 lanes: 32 + 2 + 32; 16 lanes: 16 + 2 + 16; 1 lane: 1 + 1 + 1.
    assert_eq!(t.footprint(&loops, 0, 32), 66);
    assert_eq!(t.footprint(&loops, 0, 16), 34);
    assert_eq!(t.footprint(&loops, 0, 1), 3);
    // A converged member makes no difference to a diverged group; a group
    // that is all converged counts 2.
    let mut t2 = t.clone();
    t2.set(
        6,
        LoadClass {
            loop_id: 0,
            diverged: false,
            rep: 5,
        },
    );
    assert_eq!(t2.footprint(&loops, 0, 32), 66);
    t2.set(
        5,
        LoadClass {
            loop_id: 0,
            diverged: false,
            rep: 5,
        },
    );
    assert_eq!(t2.footprint(&loops, 0, 32), 32 + 2 + 2);
    // No locality, no prediction.
    let mut t3 = t.clone();
    t3.set_locality(0, false);
    assert_eq!(t3.footprint(&loops, 0, 32), 0);
}

/// A kernel of `n` instructions (only its length matters to the core).
fn kernel(n: usize) -> Kernel {
    let src = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{{\n{}ret;\n}}\n",
        "add.u32 %r1, %r1, 1;\n".repeat(n - 1)
    );
    let src = src.replace("{\n", "{\n.reg .u32 %r<2>;\n");
    let p = gpusim::compile_bytes("k.ptx", src.as_bytes()).expect("kernel compiles");
    p.module.kernels[0].clone()
}

/// A core on the `daws` preset (256 L1D lines: `EffCacheSize` 153) with
/// `loops` and `table`, warps in `slots` 0..n, all the same CTA age
/// except as given.
fn core(loops: LoopTable, table: ClassificationTable, n: usize) -> DawsCore {
    let cfg = GpuConfig::preset("daws").expect("daws preset");
    let mut c = DawsCore::new(&cfg, 32, DawsMode::Detected);
    let k = kernel(12);
    c.begin_launch(&k, loops, vec![false; 12]);
    c.set_table(table);
    for s in 0..n as u32 {
        c.warp_start(s);
    }
    c
}

fn issue(c: &mut DawsCore, slot: u32, pc: u32, lanes: u32) {
    c.issued(
        slot,
        &Issued {
            pc,
            lanes,
            next_pc: Some(pc + 1),
            barrier: false,
        },
    );
}

fn views(ages: &[u64]) -> Vec<WarpView> {
    ages.iter()
        .map(|&a| WarpView {
            live: true,
            age: a,
            lanes: 32,
            ..WarpView::default()
        })
        .collect()
}

fn may_load(c: &mut DawsCore, info: &[WarpView], now: u64) -> Vec<bool> {
    let all: Vec<u32> = (0..info.len() as u32).collect();
    c.evaluate(&SchedView {
        now,
        warps: &all,
        by_slot: &all,
        info,
        cta_barrier: &[],
        detail: &[],
    });
    (0..info.len() as u32).map(|s| c.may_load(s)).collect()
}

#[test]
fn cutoff_is_a_prefix_sum_in_age_order() {
    let mut c = core(one_loop(), one_loop_table(), 4);
    assert_eq!(c.eff_lines(), 256 * 60 / 100);
    // Ages: slot 2 oldest, then 0, 1, 3. Lanes: 0 → 32 (66 lines),
    // 1 → 16 (34), 2 → 16 (34), 3 → 1 (3).
    let info = views(&[20, 30, 10, 40]);
    issue(&mut c, 0, 2, 32);
    issue(&mut c, 1, 2, 16);
    issue(&mut c, 2, 2, 16);
    issue(&mut c, 3, 2, 1);
    assert_eq!(c.prediction(0).lines, 66);
    assert_eq!(c.prediction(3).lines, 3);
    // Running sums in age order: 2: 34, 0: 100, 1: 134, 3: 137 — all ≤ 153.
    assert_eq!(may_load(&mut c, &info, 1), vec![true; 4]);
    // Slot 1 regains 32 lanes (66): 2: 34, 0: 100, 1: 166 > 153, 3: 169.
    issue(&mut c, 1, 2, 32);
    assert_eq!(may_load(&mut c, &info, 2), vec![true, false, true, false]);
    // Slot 0 leaves the loop (PC 10): its prediction goes, 2: 34, 1: 100,
    // 3: 103.
    issue(&mut c, 0, 10, 32);
    assert_eq!(c.prediction(0).lines, 0);
    assert_eq!(may_load(&mut c, &info, 3), vec![true; 4]);
}

#[test]
fn a_warp_predicted_over_the_cache_alone_unthrottles_its_loop() {
    let mut t = one_loop_table();
    // Five more diverged loads in their own groups: 32 × 7 + 2 = 226 > 153.
    let loops = {
        let mut innermost = vec![None; 12];
        innermost[2..=11].fill(Some(0));
        LoopTable::from_parts(
            vec![LoopFacts {
                begin: 2,
                end: 11,
                parent: None,
                loads: vec![3, 4, 5, 6, 7, 8, 9, 10, 11],
            }],
            innermost,
        )
    };
    for pc in 7..=11 {
        t.set(
            pc,
            LoadClass {
                loop_id: 0,
                diverged: true,
                rep: pc,
            },
        );
    }
    assert_eq!(t.footprint(&loops, 0, 32), 226);
    let mut c = core(loops, t, 3);
    for s in 0..3 {
        issue(&mut c, s, 2, 32);
    }
    assert_eq!(may_load(&mut c, &views(&[1, 2, 3]), 1), vec![true; 3]);
}

/// An outer loop 1..=10 around an inner loop 3..=6 (loads 4, 5 diverged,
/// own groups) with an outer load at 8 (converged).
fn nested() -> (LoopTable, ClassificationTable) {
    let mut innermost = vec![None; 12];
    innermost[1..=10].fill(Some(0));
    innermost[3..=6].fill(Some(1));
    let loops = LoopTable::from_parts(
        vec![
            LoopFacts {
                begin: 1,
                end: 10,
                parent: None,
                loads: vec![8],
            },
            LoopFacts {
                begin: 3,
                end: 6,
                parent: Some(0),
                loads: vec![4, 5],
            },
        ],
        innermost,
    );
    let mut t = ClassificationTable::new(12, 2);
    t.set_locality(0, true);
    t.set_locality(1, true);
    let c = |l, d, r| LoadClass {
        loop_id: l,
        diverged: d,
        rep: r,
    };
    t.set(8, c(0, false, 8));
    t.set(4, c(1, true, 4));
    t.set(5, c(1, true, 5));
    (loops, t)
}

#[test]
fn inner_loops_keep_their_prediction_through_the_outer_loop() {
    let (loops, t) = nested();
    let mut c = core(loops, t, 1);
    // Outer loop begins: its own loads, converged: 2 lines.
    issue(&mut c, 0, 1, 32);
    assert_eq!(c.prediction(0).loop_id, Some(0));
    assert_eq!(c.prediction(0).lines, 2);
    // Entering the inner loop: 32 + 32.
    issue(&mut c, 0, 3, 32);
    assert_eq!(c.prediction(0).loop_id, Some(1));
    assert_eq!(c.prediction(0).lines, 64);
    // Leaving the inner loop into the outer body keeps it.
    issue(&mut c, 0, 7, 32);
    issue(&mut c, 0, 8, 32);
    assert_eq!(c.prediction(0).loop_id, Some(1));
    assert_eq!(c.prediction(0).lines, 64);
    // The outer loop's next iteration recomputes for the inner loop, now
    // with 8 lanes: 8 + 8.
    issue(&mut c, 0, 1, 8);
    assert_eq!(c.prediction(0).loop_id, Some(1));
    assert_eq!(c.prediction(0).lines, 16);
    // Leaving the outer loop clears it.
    issue(&mut c, 0, 11, 8);
    assert_eq!(c.prediction(0).loop_id, None);
    assert_eq!(c.prediction(0).lines, 0);
}

#[test]
fn barriers_and_exits_clear_predictions() {
    let mut c = core(one_loop(), one_loop_table(), 2);
    issue(&mut c, 0, 2, 32);
    issue(&mut c, 1, 2, 32);
    assert_eq!(c.prediction(0).lines, 66);
    // A barrier inside the loop (PC 7): the waiting warp holds nothing.
    c.issued(
        0,
        &Issued {
            pc: 7,
            lanes: 32,
            next_pc: Some(8),
            barrier: true,
        },
    );
    assert_eq!(c.prediction(0).lines, 0);
    assert_eq!(c.prediction(0).loop_id, None);
    // An exit (no next PC) likewise.
    c.issued(
        1,
        &Issued {
            pc: 8,
            lanes: 32,
            next_pc: None,
            barrier: false,
        },
    );
    assert_eq!(c.prediction(1).lines, 0);
}

#[test]
fn warps_outside_loops_are_predicted_as_their_next_loop() {
    let mut c = core(one_loop(), one_loop_table(), 3);
    let mut info = views(&[1, 2, 3]);
    // Re-launch with PC 0 a load outside the loop.
    let mut is_load = vec![false; 12];
    is_load[0] = true;
    let k = kernel(12);
    c.begin_launch(&k, one_loop(), is_load);
    c.set_table(one_loop_table());
    for s in 0..3 {
        c.warp_start(s);
    }
    // Nobody in a loop: a warp at the outside load is not predicted.
    info[2].pc = 0;
    may_load(&mut c, &info, 1);
    assert_eq!(c.prediction(2).lines, 0);
    // Slots 0 and 1 enter the loop (66 each): slot 2, about to load
    // outside, is predicted as the loop (66): 66, 132, 198 > 153.
    issue(&mut c, 0, 2, 32);
    issue(&mut c, 1, 2, 32);
    info[0].pc = 3;
    info[1].pc = 3;
    assert_eq!(may_load(&mut c, &info, 2), vec![true, true, false]);
    assert_eq!(c.prediction(2).loop_id, Some(0));
    assert!(c.prediction(2).outside);
    assert_eq!(c.prediction(2).lines, 66);
}

fn fb<'a>(pc: u32, lanes: u32, lines: &'a [u64], own: u32, vta: u32) -> LoadFeedback<'a> {
    LoadFeedback {
        pc,
        lanes,
        lines,
        own_hits: own,
        other_hits: 0,
        misses: lines.len() as u32 - own,
        vta_hits: vta,
    }
}

#[test]
fn the_detector_classifies_a_synthetic_load_stream() {
    let loops = one_loop();
    let mut t = ClassificationTable::new(12, 1);
    let mut d = LoadClassifier::new(12, 1, 64, 8);
    // Warp 5 enters with 2 lanes: not a sampler (needs > 2).
    d.loop_begin(5, 0, 2, true);
    assert_eq!(d.sampler(0), None);
    d.loop_begin(7, 0, 32, true);
    assert_eq!(d.sampler(0), Some(7));
    d.loop_begin(8, 0, 32, true);
    assert_eq!(d.sampler(0), Some(7), "one sampler per loop");
    // Loads of other warps are ignored.
    let lines: Vec<u64> = (100..132).collect();
    d.load(8, &fb(3, 32, &lines, 32, 0), &loops, &mut t);
    assert_eq!(d.locality(0), 0);
    // Iteration 1 of the sampler: load 3 diverged (32 lines, no locality
    // yet: −1), load 4 converged (1 line, −1), load 5 touching load 3's
    // lines (repetition) with own hits (+1).
    d.load(7, &fb(3, 32, &lines, 0, 0), &loops, &mut t);
    d.load(7, &fb(4, 32, &[900], 0, 0), &loops, &mut t);
    d.load(7, &fb(5, 32, &lines, 32, 0), &loops, &mut t);
    assert_eq!(d.locality(0), -1);
    assert_eq!(d.rep(5), d.rep(3), "same lines in one iteration");
    assert_ne!(d.rep(4), d.rep(3));
    assert!(!t.has_locality(0), "no entries while the counter is ≤ 0");
    // Branching back to the loop start clears the ILRD for the sampler;
    // iterations 2..4: victim-tag hits (lost locality) on load 3, own hits
    // on 4 and 6; load 6 reads lines nobody else reads this iteration.
    let other: Vec<u64> = (200..232).collect();
    for _ in 0..3 {
        d.loop_begin(7, 0, 32, false);
        d.load(7, &fb(3, 32, &lines, 0, 5), &loops, &mut t);
        d.load(7, &fb(4, 32, &[900], 1, 0), &loops, &mut t);
        d.load(7, &fb(6, 32, &other, 32, 0), &loops, &mut t);
    }
    // −1 + 9 = 8, saturating at 7.
    assert_eq!(d.locality(0), 7);
    assert!(t.has_locality(0));
    // Divergence: load 3 made 32 requests four times (saturates at 3: >1);
    // load 4 one request each time (stays 0); load 6 three times.
    assert!(d.diverged(3));
    assert!(!d.diverged(4));
    assert!(d.diverged(6));
    // The table: 3 and 5 share a group, 4 converged, 6 alone.
    let e3 = t.get(3).expect("entered");
    let e4 = t.get(4).expect("entered");
    let e6 = t.get(6).expect("entered");
    assert!(e3.diverged && !e4.diverged && e6.diverged);
    assert_ne!(e6.rep, e3.rep, "load 6's lines were never shared");
    // Load 5 was classified before the loop had locality; the footprint
    // counts 3's group, 4 and 6: 32 + 2 + 32.
    assert_eq!(t.footprint(&loops, 0, 32), 66);
    // The sampler leaves: the next warp with > 2 lanes takes over.
    d.left(7, 0);
    assert_eq!(d.sampler(0), None);
    d.loop_begin(8, 0, 3, true);
    assert_eq!(d.sampler(0), Some(8));
}
