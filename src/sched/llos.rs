//! Long-latency-operation-based scheduling, `llos` [Do, Choi, Chung, Kim,
//! "A novel warp scheduling scheme considering long-latency operations for
//! high-performance GPUs", J. Supercomputing 76(4), 2020; as described in
//! LFWS §2.1].
//!
//! The *guiding* queue holds the warps whose next instruction is a global
//! read (a load from global, local or generic memory) that the scoreboard
//! blocks; the *filling* queue holds the rest. The scheduler traverses the
//! guiding queue first, then the filling queue, each round robin from the
//! warp issued last.
//!
//! Our reading of "the scoreboard gives an invalid signal": a warp enters
//! the guiding queue when the issue stage finds its next instruction, a
//! global read, blocked by the scoreboard, and stays there until it issues
//! that read. (Taken literally at the cycle of the decision, a guiding
//! warp could never issue — the LFWS paper's criticism of LLOS — and the
//! policy would be `lrr`; keeping the mark until the read issues gives the
//! read priority the moment its operands arrive, which is LLOS's intent.)

use crate::sched::{IssuePolicy, Issued, LaunchInfo, SchedView};
use crate::timing::units::TimingInst;

/// The `llos` issue policy.
#[derive(Debug, Default)]
pub struct Llos {
    /// Per PC: a global read.
    reads: Vec<bool>,
    /// Per slot: in the guiding queue.
    guiding: Vec<bool>,
    /// The warp issued last.
    last: Option<u32>,
}

impl Llos {
    fn is_guiding(&self, slot: u32) -> bool {
        self.guiding.get(slot as usize).copied().unwrap_or(false)
    }
}

impl IssuePolicy for Llos {
    fn orders_every_warp(&self) -> bool {
        // `order` updates the guiding queue: it must run every cycle.
        false
    }
    fn wants_detail(&self) -> bool {
        true
    }
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        for &w in view.by_slot {
            let i = &view.info[w as usize];
            let d = view.detail.get(w as usize).copied().unwrap_or_default();
            let read = self.reads.get(i.pc as usize).copied().unwrap_or(false);
            if read && d.head_blocked && !i.done {
                if self.guiding.len() <= w as usize {
                    self.guiding.resize(w as usize + 1, false);
                }
                self.guiding[w as usize] = true;
            }
        }
        let ids = view.by_slot;
        let start = match self.last {
            Some(l) => ids.iter().position(|&s| s > l).unwrap_or(0),
            None => 0,
        };
        let rotation = || ids[start..].iter().chain(&ids[..start]).copied();
        out.extend(rotation().filter(|&w| self.is_guiding(w)));
        out.extend(rotation().filter(|&w| !self.is_guiding(w)));
    }
    fn on_issue(&mut self, slot: u32, _v: &SchedView<'_>, _i: &TimingInst, _w: &Issued) {
        self.last = Some(slot);
        if let Some(g) = self.guiding.get_mut(slot as usize) {
            *g = false;
        }
    }
    fn on_warp_start(&mut self, slot: u32) {
        if let Some(g) = self.guiding.get_mut(slot as usize) {
            *g = false;
        }
    }
    fn on_launch(&mut self, launch: &LaunchInfo<'_>) {
        self.reads = launch.table.iter().map(|t| t.l1d_load).collect();
        self.guiding.clear();
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::{WarpDetail, WarpView};

    fn order(p: &mut Llos, info: &[WarpView], detail: &[WarpDetail]) -> Vec<u32> {
        let ids: Vec<u32> = (0..info.len() as u32).collect();
        let view = SchedView {
            warps: &ids,
            by_slot: &ids,
            info,
            detail,
            ..SchedView::default()
        };
        let mut out = Vec::new();
        p.order(&view, &mut out);
        out
    }

    fn issue(p: &mut Llos, slot: u32) {
        let view = SchedView::default();
        p.on_issue(
            slot,
            &view,
            &crate::sched::test_inst(false),
            &Issued::default(),
        );
    }

    #[test]
    fn blocked_global_reads_guide_until_they_issue() {
        // PC 0 is a global read, PC 1 an ALU op.
        let mut p = Llos {
            reads: vec![true, false],
            ..Llos::default()
        };
        let pcs = [1, 0, 0, 1, 0];
        let info: Vec<WarpView> = pcs
            .iter()
            .map(|&pc| WarpView {
                live: true,
                pc,
                ..WarpView::default()
            })
            .collect();
        let mut detail = vec![WarpDetail::default(); 5];
        // Nobody blocked: plain round robin.
        assert_eq!(order(&mut p, &info, &detail), vec![0, 1, 2, 3, 4]);
        // Warps 2 and 4 wait on the scoreboard for their reads' operands;
        // warp 3 is blocked too, but its next instruction is no read.
        detail[2].head_blocked = true;
        detail[4].head_blocked = true;
        detail[3].head_blocked = true;
        issue(&mut p, 2);
        assert_eq!(order(&mut p, &info, &detail), vec![4, 2, 3, 0, 1]);
        // The operands arrive: the warps stay in the guiding queue, round
        // robin from the warp issued last...
        detail = vec![WarpDetail::default(); 5];
        issue(&mut p, 3);
        assert_eq!(order(&mut p, &info, &detail), vec![4, 2, 0, 1, 3]);
        // ...until each issues its read.
        issue(&mut p, 4);
        assert_eq!(order(&mut p, &info, &detail), vec![2, 0, 1, 3, 4]);
    }
}
