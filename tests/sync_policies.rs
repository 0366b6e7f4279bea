//! The `--sync` policies on the timing model (AWG, ISCA 2020): every
//! policy runs every synchronization kernel correctly (or, under MonR and
//! MonRS, deadlocks on a lost update, as the paper's Fig. 10 warns); with a CU removed
//! from a full GPU, the busy-waiting baseline (and sleep, which keeps its
//! slot) ends in a `deadlock` error naming the waiting work-groups, while
//! every policy that can give up a slot finishes; and the counters obey
//! facts derived from the kernels and the policies.

use std::path::{Path, PathBuf};

use gpusim::config::GpuConfig;
use gpusim::func::SimErrorKind;
use gpusim::sync::policy::{SYNC_POLICIES, SyncPolicy};
use gpusim::timing::{Policies, TimedRun, run_timed_with};
use gpusim::workload::WorkloadError;
use gpusim::workload::runner::{RunError, prepare};

fn sync_manifests() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/sync");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

fn policies() -> Vec<SyncPolicy> {
    SYNC_POLICIES
        .iter()
        .map(|(n, _)| SyncPolicy::parse(&n.replace("MAX", "4000").replace(":T", ":2000")).unwrap())
        .collect()
}

fn run(m: &Path, sync: SyncPolicy, sets: &[(&str, &str)]) -> Result<TimedRun, RunError> {
    let p = prepare(m, None).unwrap();
    let mut cfg = GpuConfig::preset("awg").unwrap();
    for (k, v) in sets {
        let value = match cfg.get(k).unwrap() {
            gpusim::config::FieldValue::U32(_) => {
                gpusim::config::FieldValue::U32(v.parse().unwrap())
            }
            _ => gpusim::config::FieldValue::U64(v.parse().unwrap()),
        };
        cfg.set(k, value).unwrap();
    }
    let pol = Policies {
        sync,
        ..Policies::sched("gto")
    };
    run_timed_with(&p, &[], &cfg, &pol, false)
}

/// A full GPU (2 WGs per CU for the 16-WG kernels) that loses its last
/// CU at cycle 5000.
const OVERSUBSCRIBED: &[(&str, &str)] = &[
    ("core.max_ctas_per_sm", "2"),
    ("sync.remove_sms_at", "5000"),
    ("sync.remove_sms", "1"),
];

#[test]
fn every_policy_runs_every_sync_kernel_correctly() {
    let mut failures = Vec::new();
    let mut lost_updates = 0;
    for m in sync_manifests() {
        for &p in &policies() {
            match run(&m, p, &[]) {
                Ok(r) if r.check.passed() => {
                    let y = &r.stats.sync;
                    assert_eq!(y.policy, p.to_string());
                    // Every acquire is a waiting instruction that held.
                    assert!(y.acquires <= y.wait_insts, "{} {p}", m.display());
                    if p == SyncPolicy::Busy {
                        assert_eq!(y.blocks, 0, "busy never blocks");
                    }
                }
                Ok(r) => failures.push(format!("{} {p}: {}", m.display(), r.check)),
                // MonR and MonRS arm the SyncMon a round trip after the
                // failed atomic without re-checking the word: an update in
                // between is lost (AWG Fig. 10) and can deadlock the kernel.
                // Such a deadlock must show the lost update: a blocked
                // waiter whose word already holds the value it waits for.
                Err(RunError::Workload(WorkloadError::Sim(e)))
                    if p.monitors()
                        && !p.armed_by_atomic()
                        && matches!(&e.kind, SimErrorKind::Deadlock { wgs, .. }
                            if wgs.iter().any(|w| w.blocked
                                && w.value.is_some()
                                && w.value == w.expected)) =>
                {
                    lost_updates += 1;
                }
                Err(e) => failures.push(format!("{} {p}: {e:?}", m.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // The window is narrow: most MonR/MonRS runs finish.
    let separate = policies()
        .iter()
        .filter(|p| p.monitors() && !p.armed_by_atomic())
        .count();
    assert!(
        lost_updates < separate * sync_manifests().len() / 2,
        "{lost_updates} lost-update deadlocks"
    );
}

#[test]
fn the_baseline_deadlocks_when_a_barrier_member_is_switched_out() {
    let m =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/sync/atomic_tree_barrier_uniq.toml");
    for p in [SyncPolicy::Busy, SyncPolicy::Sleep { max: 4000 }] {
        let e = match run(&m, p, OVERSUBSCRIBED) {
            Err(RunError::Workload(WorkloadError::Sim(e))) => e,
            Ok(r) => panic!(
                "{p} finished ({} cycles), expected a deadlock",
                r.stats.cycles
            ),
            Err(e) => panic!("{p}: {e:?}"),
        };
        let SimErrorKind::Deadlock { window, wgs } = &e.kind else {
            panic!("{p}: {e}");
        };
        assert_eq!(*window, 1_000_000, "the awg preset's sim.progress_window");
        // Round-robin placement puts WGs 7 and 15 on CU 7, the one removed:
        // they are named first, switched out; the 14 others wait on a
        // barrier word for a value it does not hold.
        let out: Vec<[u32; 3]> = wgs
            .iter()
            .filter(|w| w.sm.is_none())
            .map(|w| w.cta)
            .collect();
        assert_eq!(out, [[7, 0, 0], [15, 0, 0]], "{p}");
        let waiting: Vec<_> = wgs.iter().filter(|w| w.sm.is_some()).collect();
        assert_eq!(waiting.len(), 14, "{p}");
        for w in waiting {
            assert!(w.line > 0 && w.addr.is_some(), "{p}: {w}");
            assert_ne!(w.value, w.expected, "{p}: {w} waits for what it holds");
        }
        let text = e.to_string();
        assert!(
            text.contains("deadlock") && text.contains("switched out"),
            "{text}"
        );
    }
}

#[test]
fn every_policy_that_can_yield_its_slot_survives_the_lost_cu() {
    let m =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/sync/atomic_tree_barrier_uniq.toml");
    for p in policies().into_iter().filter(|p| p.switches_out()) {
        let r = run(&m, p, OVERSUBSCRIBED).unwrap_or_else(|e| panic!("{p}: {e:?}"));
        assert!(r.check.passed(), "{p}: {}", r.check);
        let y = &r.stats.sync;
        // The two WGs of the removed CU at least were switched out, and
        // every WG switched out came back (the launch finished).
        assert!(y.switches_out >= 2, "{p}");
        assert_eq!(y.switches_in, y.switches_out, "{p}");
        // Each switch moves one WG's context, a whole number of L2 lines:
        // 16 registers x 64 lanes x 4 B + one wavefront's state (512 B)
        // + the kernel's shared memory, the same for every WG.
        let per = y.context_bytes / (y.switches_out + y.switches_in);
        assert_eq!(per * (y.switches_out + y.switches_in), y.context_bytes);
        assert_eq!(per % 64, 0);
        assert!(
            (16 * 64 * 4 + 512..16 * 64 * 4 + 512 + 64 + 256).contains(&per),
            "{per}"
        );
    }
}

#[test]
fn a_decentralized_lock_under_monnr_needs_at_most_two_waits_per_acquire() {
    // sleepMutex: each TB waits on its own ring slot, written once by its
    // predecessor's unlock. Armed by the waiting load itself (no lost
    // update), a waiter fails at most once and is resumed exactly when its
    // slot turns 1: at most 2 waiting instructions per acquire (AWG IV.C:
    // decentralized primitives have one write per sync variable).
    let m = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/sync/sleep_mutex_global.toml");
    for p in [SyncPolicy::MonNrAll, SyncPolicy::MonNrOne, SyncPolicy::Awg] {
        let r = run(&m, p, &[]).unwrap();
        let y = &r.stats.sync;
        // 16 TBs x 8 iterations.
        assert_eq!(y.acquires, 128, "{p}");
        assert!(
            y.wait_insts <= 2 * y.acquires,
            "{p}: {} waits",
            y.wait_insts
        );
        // Every block was ended by a resume (none left waiting).
        assert_eq!(y.blocks, y.resumes + y.timeouts, "{p}");
    }
    // The busy baseline polls: many more loads per acquire.
    let busy = run(&m, SyncPolicy::Busy, &[]).unwrap();
    assert!(busy.stats.sync.wait_insts > 4 * busy.stats.sync.acquires);
}

#[test]
fn sleep_backs_off_exponentially_up_to_its_maximum() {
    // One contended lock: a WG that fails k times in a row sleeps
    // 64, 128, ..., capped at MAX: with a small MAX the total blocked time
    // is at most MAX per failed wait, with a large one at most the doubling
    // sum; both bounds follow from the rule alone.
    let m = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/sync/spin_mutex_global.toml");
    for max in [64u64, 1000, 8000] {
        let r = run(&m, SyncPolicy::Sleep { max }, &[]).unwrap();
        let y = &r.stats.sync;
        let failed = y.wait_insts - y.acquires;
        assert_eq!(y.blocks, failed);
        let blocked: u64 = y.wgs.iter().map(|w| w.blocked).sum();
        assert!(
            blocked <= failed * max,
            "max {max}: {blocked} > {failed} x {max}"
        );
        assert!(blocked >= failed * 64.min(max), "max {max}");
    }
}

#[test]
fn context_switches_never_break_a_kernel() {
    // Every sync kernel, its GPU full and a CU removed at cycle 5000,
    // under every policy: the run either passes its check or ends in a
    // named deadlock (busy and sleep cannot give up a slot, MonR/MonRS
    // can lose an update); a restored WG never loses state (registers,
    // shared memory, its place in the program).
    let mut failures = Vec::new();
    for m in sync_manifests() {
        for &p in &policies() {
            match run(&m, p, OVERSUBSCRIBED) {
                Ok(r) if r.check.passed() => {}
                Ok(r) => failures.push(format!("{} {p}: {}", m.display(), r.check)),
                Err(RunError::Workload(WorkloadError::Sim(e)))
                    if matches!(e.kind, SimErrorKind::Deadlock { .. }) => {}
                Err(e) => failures.push(format!("{} {p}: {e:?}", m.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
