//! Two-level warp scheduling [Narasiman et al. MICRO'11; Gebhart et al.
//! ISCA'11; LFWS 2.1]: an active set of `k` warps is scheduled loose round
//! robin; a warp that issues a long-latency operation (global or local load
//! or atomic) leaves it for the pending set; the active set refills from
//! the pending set in age order with warps that have no long-latency
//! operation outstanding. Warps waiting at a barrier leave the active set
//! too (otherwise a full active set of waiting warps would starve the warps
//! the barrier waits for).
//!
//! `two-level-opt` [LFWS §3.2, "2-level opt"] keeps the same active and
//! pending sets but orders the active set long-operation-first as `lfws`
//! does: warps next to run a global/local load or store first, then the
//! rest; inside each group the warp issued last, then ascending warp id.
//!
//! `lpi` [Zhang et al., "Locality based warp scheduling in GPGPUs", FGCS
//! 82, 2018; as described in LFWS §2.1] keeps the same sets and lets the
//! pending ("blocking") warps issue too, interleaved with the active ones:
//! both sets are sorted by slot id, each pending warp goes into the gap
//! between the two active warps adjacent to its id — one per gap ("at
//! intervals"): when its own gap is taken, the next free one after it,
//! wrapping to the first; after the list when every gap is taken — and
//! the scheduler traverses that list loose round robin from the warp
//! issued last.

use crate::sched::lfws::{long_first, long_ops};
use crate::sched::{IssuePolicy, LaunchInfo, SchedView};
use crate::timing::units::TimingInst;

/// The `two-level` policy.
#[derive(Debug)]
pub struct TwoLevel {
    k: usize,
    active: Vec<u32>,
    last: Option<u32>,
    /// `two-level-opt`: per PC, a long operation (empty for `two-level`).
    long: Option<Vec<bool>>,
    /// `lpi`: pending warps interleaved with the active ones.
    interleave: bool,
    /// Scratch for `lpi`: the traversal list.
    list: Vec<u32>,
}

impl TwoLevel {
    /// An active set of `k` warps (at least 1).
    pub fn new(k: u32) -> TwoLevel {
        TwoLevel {
            k: k.max(1) as usize,
            active: Vec::new(),
            last: None,
            long: None,
            interleave: false,
            list: Vec::new(),
        }
    }

    /// `lpi`: pending warps interleaved with the active set.
    pub fn interleaved(k: u32) -> TwoLevel {
        TwoLevel {
            interleave: true,
            ..TwoLevel::new(k)
        }
    }

    /// The `lpi` traversal list: the active set (sorted) with the
    /// scheduler's other live warps inserted at intervals by id.
    fn interleave_list(&mut self, view: &SchedView<'_>) {
        let k = self.active.len();
        // gaps[i] holds the pending warp placed before active[i] (i = k:
        // after the last one).
        let mut gaps: Vec<Option<u32>> = vec![None; k + 1];
        let mut overflow = Vec::new();
        for &w in view.by_slot {
            if self.active.binary_search(&w).is_ok() || view.info[w as usize].done {
                continue;
            }
            let own = self.active.partition_point(|&a| a < w);
            match (own..=k).chain(0..own).find(|&g| gaps[g].is_none()) {
                Some(g) => gaps[g] = Some(w),
                None => overflow.push(w),
            }
        }
        self.list.clear();
        for (gap, &a) in gaps.iter().zip(&self.active) {
            self.list.extend(*gap);
            self.list.push(a);
        }
        self.list.extend(gaps[k]);
        self.list.extend(overflow);
    }

    /// `two-level-opt`: the active set ordered long-operation-first.
    pub fn long_first(k: u32) -> TwoLevel {
        TwoLevel {
            long: Some(Vec::new()),
            ..TwoLevel::new(k)
        }
    }
}

impl IssuePolicy for TwoLevel {
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        // Drop warps that left the scheduler (CTA retired), exited or wait
        // at a barrier (they would hold active slots the warps the barrier
        // waits for need).
        self.active.retain(|&w| {
            let i = &view.info[w as usize];
            view.by_slot.binary_search(&w).is_ok() && !i.done && !i.at_barrier
        });
        for &w in view.warps {
            if self.active.len() >= self.k {
                break;
            }
            let i = &view.info[w as usize];
            if !i.done && !i.at_barrier && i.long_pending == 0 && !self.active.contains(&w) {
                self.active.push(w);
            }
        }
        self.active.sort_unstable();
        if let Some(long) = &self.long {
            long_first(view, long, self.last, &self.active, out);
            return;
        }
        if self.interleave {
            self.interleave_list(view);
            let start = match self.last {
                Some(l) => self.list.iter().position(|&s| s == l).map_or(0, |p| p + 1),
                None => 0,
            };
            let start = start % self.list.len().max(1);
            out.extend_from_slice(&self.list[start..]);
            out.extend_from_slice(&self.list[..start]);
            return;
        }
        // Loose round robin over the active set, by slot id.
        let start = match self.last {
            Some(l) => self.active.iter().position(|&s| s > l).unwrap_or(0),
            None => 0,
        };
        out.extend_from_slice(&self.active[start..]);
        out.extend_from_slice(&self.active[..start]);
    }

    fn on_launch(&mut self, launch: &LaunchInfo<'_>) {
        if let Some(long) = &mut self.long {
            *long = long_ops(launch.table);
        }
    }

    fn on_issue(
        &mut self,
        slot: u32,
        _view: &SchedView<'_>,
        inst: &TimingInst,
        _what: &crate::sched::Issued,
    ) {
        self.last = Some(slot);
        if inst.long_mem {
            self.active.retain(|&w| w != slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::WarpView;

    fn view_order(p: &mut TwoLevel, info: &[WarpView]) -> Vec<u32> {
        let ids: Vec<u32> = (0..info.len() as u32).collect();
        let view = SchedView {
            warps: &ids,
            by_slot: &ids,
            info,
            ..SchedView::default()
        };
        let mut out = Vec::new();
        p.order(&view, &mut out);
        out
    }

    fn warps(pcs: &[u32]) -> Vec<WarpView> {
        pcs.iter()
            .map(|&pc| WarpView {
                live: true,
                pc,
                ..WarpView::default()
            })
            .collect()
    }

    fn issue(p: &mut TwoLevel, info: &[WarpView], slot: u32, long_mem: bool) {
        let ids: Vec<u32> = (0..info.len() as u32).collect();
        let view = SchedView {
            warps: &ids,
            by_slot: &ids,
            info,
            ..SchedView::default()
        };
        let inst = crate::sched::test_inst(long_mem);
        p.on_issue(slot, &view, &inst, &crate::sched::Issued::default());
    }

    #[test]
    fn active_set_is_round_robin_and_long_ops_demote() {
        let mut p = TwoLevel::new(3);
        let mut v = warps(&[0; 5]);
        assert_eq!(view_order(&mut p, &v), vec![0, 1, 2]);
        issue(&mut p, &v, 0, false);
        assert_eq!(view_order(&mut p, &v), vec![1, 2, 0]);
        // Warp 1 issues a global load: it leaves for the pending set and
        // warp 3 (the oldest pending warp without one outstanding) joins.
        issue(&mut p, &v, 1, true);
        v[1].long_pending = 1;
        assert_eq!(view_order(&mut p, &v), vec![2, 3, 0]);
    }

    #[test]
    fn lpi_interleaves_pending_warps_between_active_ones() {
        let mut p = TwoLevel::interleaved(3);
        let mut v = warps(&[0; 8]);
        // Warps 0..2 fill the active set; 3..7 are pending: 3 takes the
        // gap after 2, then 4, 5, 6 wrap to the gaps before 0, 1 and 2,
        // and 7 is left over.
        assert_eq!(view_order(&mut p, &v), vec![4, 0, 5, 1, 6, 2, 3, 7]);
        // Warps 0 and 2 issue global loads: 3 and 4 replace them (oldest
        // pending without one outstanding). Active {1, 3, 4}; pending 0
        // (before 1), 2 (between 1 and 3), 5 (after 4), 6 (wraps to the
        // free gap between 3 and 4), 7 left over; round robin from 2.
        issue(&mut p, &v, 0, true);
        v[0].long_pending = 1;
        issue(&mut p, &v, 2, true);
        v[2].long_pending = 1;
        assert_eq!(view_order(&mut p, &v), vec![3, 6, 4, 5, 7, 0, 1, 2]);
        issue(&mut p, &v, 1, false);
        assert_eq!(view_order(&mut p, &v), vec![2, 3, 6, 4, 5, 7, 0, 1]);
    }

    #[test]
    fn lpi_pending_warps_crowd_into_the_next_free_gap() {
        let mut p = TwoLevel::interleaved(2);
        let mut v = warps(&[0; 6]);
        // Active {4, 5}: warps 0..3 issued loads first.
        for w in &mut v[..4] {
            w.long_pending = 1;
        }
        // The gap before 4 takes 0; 1 goes to the gap between 4 and 5, 2
        // after 5, and 3 is left over.
        assert_eq!(view_order(&mut p, &v), vec![0, 4, 1, 5, 2, 3]);
    }

    #[test]
    fn opt_orders_the_active_set_long_first() {
        let mut p = TwoLevel::long_first(4);
        p.long = Some(vec![true, false]);
        // Warps 1 and 3 next run a long op; 4 and 5 are not in the set.
        let v = warps(&[1, 0, 1, 0, 0, 0]);
        assert_eq!(view_order(&mut p, &v), vec![1, 3, 0, 2]);
        // Warp 2 issued last: it leads the short group.
        issue(&mut p, &v, 2, false);
        assert_eq!(view_order(&mut p, &v), vec![1, 3, 2, 0]);
        // Warp 3 issued last: it leads the long group.
        issue(&mut p, &v, 3, false);
        assert_eq!(view_order(&mut p, &v), vec![3, 1, 0, 2]);
    }
}
