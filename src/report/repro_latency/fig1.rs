//! The LFWS paper's worked example (§2.2, Fig. 1), run with gpusim's own
//! issue-policy objects on the figure's abstract machine.
//!
//! Six warps, numbered 1 to 6: warps 1, 3, 5 and 6 run long, long, short,
//! long; warps 2 and 4 run short, short, long, long. A long operation
//! takes 10 cycles, a short one 1, and a warp's next instruction waits for
//! its previous one; one instruction issues per cycle. The paper counts
//! the cycles until the last operation completes: SRR 45 (21 idle), LRR
//! 39 (15), GTO 41 (17), LFWS 37 (13).
//!
//! Each cycle the machine builds a [`SchedView`] of the six warps (one
//! CTA, equal age; the next PC points at a global load for a long
//! operation and an add for a short one, so policies classify them
//! exactly as in a real kernel), asks the policy for its order, issues the
//! first warp that is ready, and tells the policy. What differs from the
//! cycle-level model is only the machine: no fetch, decode, operand
//! collection, exit instruction or memory pipeline, which is the figure's
//! premise. [`work_conserving_range`] bounds every schedule that never
//! idles while a warp is ready.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::KernelAnalysis;
use crate::config::GpuConfig;
use crate::ptx::diagnostics::Diagnostics;
use crate::sched::registry::{PolicyEnv, issue_policies};
use crate::sched::{Issued, LaunchInfo, SchedView, WarpDetail, WarpView};
use crate::timing::units::{TimingInst, timing_table};

/// An operation of the example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A long operation (a global memory access), [`LONG_CYCLES`].
    Long,
    /// A short operation (an ALU instruction), [`SHORT_CYCLES`].
    Short,
}

/// Cycles a long operation takes.
pub const LONG_CYCLES: u64 = 10;
/// Cycles a short operation takes.
pub const SHORT_CYCLES: u64 = 1;

use Op::{Long as L, Short as S};

/// The six warps' programs (warp 1 first).
pub const PROGRAMS: [[Op; 4]; 6] = [
    [L, L, S, L],
    [S, S, L, L],
    [L, L, S, L],
    [S, S, L, L],
    [L, L, S, L],
    [L, L, S, L],
];

/// The policies run: the figure's four first, with the paper's cycles and
/// idle cycles, then the rest of LFWS's comparison set and BLWS.
pub const POLICIES: [(&str, Option<(u64, u64)>); 9] = [
    ("srr", Some((45, 21))),
    ("lrr", Some((39, 15))),
    ("gto", Some((41, 17))),
    ("lfws", Some((37, 13))),
    ("two-level", None),
    ("two-level-opt", None),
    ("lpi", None),
    ("llos", None),
    ("blws", None),
];

/// One policy's run of the example.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fig1Run {
    /// The `--sched` name.
    pub policy: String,
    /// Cycles until the last operation completes.
    pub cycles: u64,
    /// Cycles in which nothing issued.
    pub idle: u64,
    /// The paper's cycles (the figure's four policies).
    pub paper_cycles: Option<u64>,
    /// The paper's idle cycles.
    pub paper_idle: Option<u64>,
    /// Per cycle, the warp (1–6) and op that issued (`3L`), or `.`.
    pub schedule: String,
}

/// A two-instruction kernel whose PC 0 is a long operation (a global
/// load) and PC 1 a short one (an add): what the policies read.
const KERNEL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry fig1()
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.global.u32 %r1, [%rd1];
  add.u32 %r2, %r1, 1;
  ret;
}
"#;

/// The PC of `op` in [`KERNEL`].
fn pc_of(op: Op) -> u32 {
    match op {
        Op::Long => 0,
        Op::Short => 1,
    }
}

/// Runs the example under issue policy `name`; `paper` = the paper's
/// (cycles, idle), if any.
pub fn run_policy(name: &str, paper: Option<(u64, u64)>) -> Result<Fig1Run, Diagnostics> {
    let cfg: GpuConfig = crate::config::load_config("tiny", &[])?;
    let program = crate::program::compile_bytes("fig1.ptx", KERNEL.as_bytes())?;
    let ki = program.entry(Some("fig1"))?;
    let kernel = program.kernel(ki);
    let analysis: &KernelAnalysis = &program.analyses[ki];
    let info = crate::func::layout::KernelInfo::new(kernel, analysis, &|_| None);
    let table: Vec<TimingInst> = timing_table(kernel, &info, &cfg);
    // `name` is one of POLICIES (a test runs them all).
    let mut policy = issue_policies(name, &cfg, 1, &PolicyEnv::default())
        .ok()
        .and_then(|mut v| v.pop())
        .expect("a registered issue policy");
    policy.on_launch(&LaunchInfo {
        kernel,
        analysis,
        table: &table,
        cfg: &cfg,
    });
    let n = PROGRAMS.len();
    for w in 0..n {
        policy.on_warp_start(w as u32);
    }
    let ids: Vec<u32> = (0..n as u32).collect();
    let mut pos = [0usize; 6];
    let mut avail = [1u64; 6];
    let mut waiting_long = [false; 6];
    let mut stalls = [0u64; 6];
    let mut end = 0;
    let mut idle = 0;
    let mut schedule = Vec::new();
    let mut order = Vec::new();
    let mut t = 1;
    while pos.iter().any(|&p| p < 4) {
        let ready = |w: usize| pos[w] < 4 && avail[w] <= t;
        let views: Vec<WarpView> = (0..n)
            .map(|w| WarpView {
                live: true,
                age: 0,
                done: pos[w] == 4,
                at_barrier: false,
                long_pending: u32::from(waiting_long[w] && avail[w] > t),
                cta: 0,
                pc: PROGRAMS[w].get(pos[w]).map_or(2, |&op| pc_of(op)),
                lanes: 32,
            })
            .collect();
        let detail: Vec<WarpDetail> = (0..n)
            .map(|w| WarpDetail {
                stall_cycles: stalls[w],
                head_blocked: pos[w] < 4 && !ready(w),
            })
            .collect();
        let view = SchedView {
            now: t,
            warps: &ids,
            by_slot: &ids,
            info: &views,
            cta_barrier: &[],
            detail: &detail,
        };
        order.clear();
        policy.order(&view, &mut order);
        let pick = order.iter().map(|&w| w as usize).find(|&w| ready(w));
        for (w, s) in stalls.iter_mut().enumerate() {
            if pos[w] < 4 && !ready(w) {
                *s += 1;
            }
        }
        match pick {
            None => {
                idle += 1;
                schedule.push(".".to_string());
            }
            Some(w) => {
                let op = PROGRAMS[w][pos[w]];
                let pc = pc_of(op);
                pos[w] += 1;
                let lat = if op == Op::Long {
                    LONG_CYCLES
                } else {
                    SHORT_CYCLES
                };
                avail[w] = t + lat;
                waiting_long[w] = op == Op::Long;
                end = end.max(t + lat - 1);
                let next_pc = PROGRAMS[w].get(pos[w]).map(|&o| pc_of(o));
                policy.on_issue(
                    w as u32,
                    &view,
                    &table[pc as usize],
                    &Issued {
                        pc,
                        lanes: 32,
                        next_pc,
                        barrier: false,
                    },
                );
                if pos[w] == 4 {
                    policy.on_warp_exit(w as u32);
                }
                schedule.push(format!(
                    "{}{}",
                    w + 1,
                    if op == Op::Long { 'L' } else { 'S' }
                ));
            }
        }
        t += 1;
    }
    // Idle cycles after the last issue, until the last completion.
    idle += end - (t - 1);
    Ok(Fig1Run {
        policy: name.to_string(),
        cycles: end,
        idle,
        paper_cycles: paper.map(|p| p.0),
        paper_idle: paper.map(|p| p.1),
        schedule: schedule.join(" "),
    })
}

/// The paper's four policies, run on the cycle-level pipeline.
pub const PIPELINE_POLICIES: [&str; 4] = ["srr", "lrr", "gto", "lfws"];

/// The example on the cycle-level pipeline: `kernels/micro/lfws_fig1.ptx`
/// (manifest `fig1.toml` in the repro directory) on the `lfws-fig1`
/// preset under `name`, the schedule read back from the issue log. The
/// body of each warp is its four issues after its `bar.sync`; the cycles
/// run from the first body issue to the completion of the last body
/// operation (a load completes when its dependent could issue: the
/// measured load-to-dependent distance). In the schedule, `x` marks a
/// cycle in which an instruction outside the figure (a warp's `ret`)
/// issued.
pub fn run_pipeline(
    manifest: &std::path::Path,
    name: &str,
    paper: Option<(u64, u64)>,
) -> Result<Fig1Run, String> {
    use crate::timing::host::{Policies, run_timed_with};
    let prepared = crate::workload::runner::prepare(manifest, None)
        .map_err(crate::report::repro::run_error_text)?;
    let cfg = crate::config::load_config("lfws-fig1", &[]).map_err(|d| d.render(false))?;
    let run = run_timed_with(&prepared, &[], &cfg, &Policies::sched(name), true)
        .map_err(crate::report::repro::run_error_text)?;
    let kernel = prepared.program.kernel(prepared.entry);
    let is_bar = |pc: u32| {
        kernel
            .insts
            .get(pc as usize)
            .is_some_and(|i| i.op == crate::ir::Opcode::Bar)
    };
    let log = &run.issue_log;
    // Per warp (slot 0-5 = warps 1-6): the cycles of its four body issues.
    let mut body: Vec<Vec<u64>> = Vec::new();
    for w in 0..PROGRAMS.len() as u32 {
        let mine: Vec<_> = log.iter().filter(|r| r.slot == w).collect();
        let bar = mine
            .iter()
            .rposition(|r| is_bar(r.pc))
            .ok_or(format!("warp {} issued no bar.sync", w + 1))?;
        let b: Vec<u64> = mine.iter().skip(bar + 1).take(4).map(|r| r.cycle).collect();
        if b.len() != 4 {
            return Err(format!(
                "warp {} issued {} body instructions",
                w + 1,
                b.len()
            ));
        }
        body.push(b);
    }
    // A long op's measured latency: from a warp's first load to the
    // second, which waits for it.
    let long = (0..PROGRAMS.len())
        .filter(|&w| PROGRAMS[w][0] == Op::Long && PROGRAMS[w][1] == Op::Long)
        .map(|w| body[w][1] - body[w][0])
        .min()
        .unwrap_or(LONG_CYCLES);
    let start = body.iter().map(|b| b[0]).min().unwrap_or(0);
    let last_issue = body.iter().flatten().copied().max().unwrap_or(0);
    let end = (0..PROGRAMS.len())
        .flat_map(|w| (0..4).map(move |k| (w, k)))
        .map(|(w, k)| {
            body[w][k]
                + if PROGRAMS[w][k] == Op::Long {
                    long - 1
                } else {
                    0
                }
        })
        .max()
        .unwrap_or(0);
    let mut schedule = Vec::new();
    let mut idle = 0;
    for c in start..=last_issue {
        let hit = (0..PROGRAMS.len())
            .flat_map(|w| (0..4).map(move |k| (w, k)))
            .find(|&(w, k)| body[w][k] == c);
        schedule.push(match hit {
            Some((w, k)) => format!(
                "{}{}",
                w + 1,
                if PROGRAMS[w][k] == Op::Long { 'L' } else { 'S' }
            ),
            None => {
                idle += 1;
                if log
                    .iter()
                    .any(|r| r.cycle == c && r.slot < PROGRAMS.len() as u32)
                {
                    "x".to_string()
                } else {
                    ".".to_string()
                }
            }
        });
    }
    let cycles = end - start + 1;
    idle += end - last_issue;
    Ok(Fig1Run {
        policy: format!("{name} (pipeline)"),
        cycles,
        idle,
        paper_cycles: paper.map(|p| p.0),
        paper_idle: paper.map(|p| p.1),
        schedule: schedule.join(" "),
    })
}

/// Every policy of [`POLICIES`].
pub fn run_all() -> Result<Vec<Fig1Run>, Diagnostics> {
    POLICIES
        .iter()
        .map(|&(name, paper)| run_policy(name, paper))
        .collect()
}

/// The fewest and most cycles any work-conserving schedule of the example
/// takes (one that issues whenever some warp is ready), by exhaustive
/// search over the choices.
pub fn work_conserving_range() -> (u64, u64) {
    type State = ([u8; 6], [u64; 6]);
    fn go(
        t: u64,
        pos: [u8; 6],
        avail: [u64; 6],
        memo: &mut BTreeMap<State, (u64, u64)>,
    ) -> (u64, u64) {
        if pos.iter().all(|&p| p == 4) {
            return (0, 0);
        }
        // Normalize: cycles until each warp is ready, relative to t.
        let rel: [u64; 6] = std::array::from_fn(|w| avail[w].saturating_sub(t));
        if let Some(&r) = memo.get(&(pos, rel)) {
            return r;
        }
        let ready: Vec<usize> = (0..6).filter(|&w| pos[w] < 4 && avail[w] <= t).collect();
        let r = if ready.is_empty() {
            let (a, b) = go(t + 1, pos, avail, memo);
            (a + 1, b + 1)
        } else {
            let mut best = (u64::MAX, 0);
            for w in ready {
                let op = PROGRAMS[w][pos[w] as usize];
                let lat = if op == Op::Long {
                    LONG_CYCLES
                } else {
                    SHORT_CYCLES
                };
                let mut p = pos;
                p[w] += 1;
                let mut a = avail;
                a[w] = t + lat;
                let (lo, hi) = go(t + 1, p, a, memo);
                // Cycles from t: this one, then the rest, at least the
                // completion of the op just issued.
                let lo = (lo + 1).max(lat);
                let hi = (hi + 1).max(lat);
                best = (best.0.min(lo), best.1.max(hi));
            }
            best
        };
        memo.insert((pos, rel), r);
        r
    }
    // `go` counts cycles from t onward, the completion of every op
    // included, so from cycle 1 it is the total.
    go(1, [0; 6], [1; 6], &mut BTreeMap::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srr_gto_and_lfws_reproduce_the_paper_exactly() {
        for name in ["srr", "gto", "lfws"] {
            let paper = POLICIES.iter().find(|p| p.0 == name).unwrap().1;
            let r = run_policy(name, paper).unwrap();
            let (c, i) = paper.unwrap();
            assert_eq!((r.cycles, r.idle), (c, i), "{name}: {}", r.schedule);
        }
    }

    #[test]
    fn lfws_issues_the_four_long_warps_first() {
        let r = run_policy("lfws", None).unwrap();
        assert!(
            r.schedule.starts_with("1L 3L 5L 6L 2S 2S 2L 4S 4S 4L"),
            "{}",
            r.schedule
        );
    }

    #[test]
    fn lrr_as_specified_reaches_the_optimum_not_the_papers_39() {
        // LRR from the warp after the one issued last: after 1L..6L the
        // ready short warps 2 and 4 fill cycles 7-10, and the schedule is
        // as short as any can be.
        let r = run_policy("lrr", None).unwrap();
        assert_eq!((r.cycles, r.idle), (37, 13), "{}", r.schedule);
        assert!(r.schedule.starts_with("1L 2S 3L 4S 5L 6L 2S 4S 2L 4L 1L"));
        assert_eq!(work_conserving_range().0, 37);
    }

    #[test]
    fn every_work_conserving_schedule_takes_37_to_43_cycles() {
        // The paper's four figures all lie in this range; SRR (45) idles
        // while warps are ready, so it is outside.
        assert_eq!(work_conserving_range(), (37, 43));
    }

    #[test]
    fn each_run_issues_all_24_operations() {
        for r in run_all().unwrap() {
            let issued = r.schedule.split(' ').filter(|s| *s != ".").count();
            assert_eq!(issued, 24, "{}", r.policy);
            assert_eq!(r.cycles, 24 + r.idle, "{}", r.policy);
        }
    }
}
