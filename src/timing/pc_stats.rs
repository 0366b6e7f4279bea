//! Per-instruction statistics: for every PC of a launch's kernel, the warp
//! instructions issued there, the warp-cycles charged to it by state (the
//! ten [`Stall`] categories plus ready-but-not-picked), and for memory
//! instructions the L1D outcome of their line requests and their latency.
//!
//! Which instruction a warp-cycle belongs to follows the warp-state
//! accounting (DESIGN §3 "Stall accounting"): a warp waiting at a barrier
//! or on a synchronization wait is charged to the instruction that made it
//! wait (the `bar.sync`, the waiting atomic or `nanosleep`); every other
//! state is charged to the instruction the warp waits to issue (its next
//! PC). This is how a profiler samples stall reasons per source line, with
//! every cycle counted instead of sampled. `exit` and `idle` cycles belong
//! to no instruction and are not charged here.

use serde::Serialize;

use crate::timing::stats::{Stall, StallCounts};

/// The counters of one PC on one SM during a launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PcCounters {
    /// Warp instructions issued.
    pub issues: u64,
    /// Warp-cycles by state: the ten [`Stall`] categories, then ready.
    pub states: [u64; 11],
    /// Line requests of global/local loads served by the L1D (hits and
    /// merges into an outstanding miss).
    pub l1d_hits: u64,
    /// Line requests of global/local loads sent to the L2.
    pub l1d_misses: u64,
    /// Memory instructions with a result whose latency was measured.
    pub mem_insts: u64,
    /// Their issue-to-writeback cycles, summed.
    pub mem_latency: u64,
}

impl PcCounters {
    /// Adds another SM's counters.
    pub fn merge(&mut self, o: &PcCounters) {
        self.issues += o.issues;
        for (a, b) in self.states.iter_mut().zip(o.states) {
            *a += b;
        }
        self.l1d_hits += o.l1d_hits;
        self.l1d_misses += o.l1d_misses;
        self.mem_insts += o.mem_insts;
        self.mem_latency += o.mem_latency;
    }

    /// True when nothing was counted.
    pub fn is_empty(&self) -> bool {
        *self == PcCounters::default()
    }
}

/// What a launch reports for one instruction (JSON `launches[].pcs[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PcStats {
    /// Instruction index in the kernel (the PC in instructions).
    pub pc: u32,
    /// 1-based line of the instruction in its PTX file.
    pub line: u32,
    /// The instruction's PTX text (whitespace collapsed).
    pub text: String,
    /// Warp instructions issued here.
    pub issues: u64,
    /// Warp-cycles charged here, by category (`issued` = `issues`).
    pub stalls: StallCounts,
    /// Warp-cycles a warp could have issued this instruction but another
    /// warp was picked.
    pub ready: u64,
    /// L1D line requests of this load served by the L1D (hits and merges
    /// into an outstanding miss).
    pub l1d_hits: u64,
    /// L1D line requests of this load sent to the L2.
    pub l1d_misses: u64,
    /// Executions of this memory instruction with a result (loads,
    /// atomics) whose latency was measured.
    pub mem_insts: u64,
    /// Mean cycles from issue to writeback over `mem_insts` (0 when none).
    pub mem_latency_avg: f64,
}

impl PcStats {
    /// Stall cycles: every category but `issued`.
    pub fn stall_cycles(&self) -> u64 {
        self.stalls.total() - self.stalls.issued
    }
}

/// The per-PC statistics of a launch from every SM's counters (indexed by
/// PC): the PCs with anything counted, ascending, their `line` from
/// `line_of` and their `text` left empty (the front end fills it in).
pub fn collect(per_sm: &[&[PcCounters]], line_of: impl Fn(u32) -> u32) -> Vec<PcStats> {
    let n = per_sm.iter().map(|c| c.len()).max().unwrap_or(0);
    let mut sum = vec![PcCounters::default(); n];
    for counters in per_sm {
        for (a, b) in sum.iter_mut().zip(counters.iter()) {
            a.merge(b);
        }
    }
    sum.iter()
        .enumerate()
        .filter(|(_, c)| !c.is_empty())
        .map(|(pc, c)| {
            let mut stalls = StallCounts::default();
            for s in Stall::ALL {
                stalls.add(s, c.states[s as usize]);
            }
            stalls.issued = c.issues;
            PcStats {
                pc: pc as u32,
                line: line_of(pc as u32),
                text: String::new(),
                issues: c.issues,
                stalls,
                ready: c.states[10],
                l1d_hits: c.l1d_hits,
                l1d_misses: c.l1d_misses,
                mem_insts: c.mem_insts,
                mem_latency_avg: if c.mem_insts == 0 {
                    0.0
                } else {
                    c.mem_latency as f64 / c.mem_insts as f64
                },
            }
        })
        .collect()
}

/// Whether cycles in charge code `code` (a [`Stall`] index, or 10 for
/// ready) are charged to an instruction.
#[inline]
pub fn charged_to_pc(code: u8) -> bool {
    /// Bit `code` set for the charged codes: every [`Stall`] but issued,
    /// exit and idle, and ready (10).
    const CHARGED: u32 = 0x7ff
        & !(1 << Stall::Issued as u32)
        & !(1 << Stall::Exit as u32)
        & !(1 << Stall::Idle as u32);
    code < 32 && CHARGED >> code & 1 == 1
}

/// Whether a warp in charge code `code` is charged to the instruction it
/// last issued (the one that made it wait) rather than its next one.
#[inline]
pub fn charged_to_last_issued(code: u8) -> bool {
    code == Stall::Barrier as u8 || code == Stall::SyncWait as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collect_sums_sms_and_skips_empty_pcs() {
        let mut a = vec![PcCounters::default(); 4];
        let mut b = vec![PcCounters::default(); 4];
        a[1].issues = 3;
        a[1].states[Stall::Data as usize] = 10;
        b[1].issues = 2;
        b[1].states[10] = 4;
        b[3].mem_insts = 2;
        b[3].mem_latency = 301;
        b[3].l1d_misses = 5;
        let pcs = collect(&[&a, &b], |pc| pc * 2 + 7);
        assert_eq!(pcs.len(), 2);
        assert_eq!((pcs[0].pc, pcs[0].line, pcs[0].issues), (1, 9, 5));
        assert_eq!(pcs[0].stalls.issued, 5);
        assert_eq!(pcs[0].stalls.data, 10);
        assert_eq!(pcs[0].ready, 4);
        assert_eq!(pcs[0].stall_cycles(), 10);
        assert_eq!(pcs[1].pc, 3);
        assert_eq!(pcs[1].mem_latency_avg, 150.5);
        assert_eq!(pcs[1].l1d_misses, 5);
    }

    #[test]
    fn exit_idle_and_issued_are_nobodys() {
        let charged: Vec<Stall> = Stall::ALL
            .into_iter()
            .filter(|&s| charged_to_pc(s as u8))
            .collect();
        assert_eq!(
            charged,
            [
                Stall::Control,
                Stall::Data,
                Stall::Structural,
                Stall::Barrier,
                Stall::Fetch,
                Stall::Throttled,
                Stall::SyncWait
            ]
        );
        assert!(charged_to_pc(10), "ready");
        assert!(!charged_to_pc(11), "a unit group code is resolved first");
    }
}
