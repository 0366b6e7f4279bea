//! Static warp limiting, `swl:N` [DAWS 3.3; Rogers et al., "Cache-Conscious
//! Wavefront Scheduling", MICRO'12 §5]: GTO over only the `N` oldest warps
//! of the SM; the others may not issue at all (the issue stage charges
//! them `throttled`). `best-swl` (see `timing::sweep`) runs every `N`.
//!
//! The `N` are counted among warps that have not exited and do not wait at
//! a barrier: a barrier-waiting warp cannot issue anyway, and counting it
//! would deadlock a CTA whose barrier waits for younger, limited warps.
//! Ages are SM-wide (the L1D the limit protects is per SM), so with several
//! schedulers per SM each one issues only from its own warps among the `N`.

use crate::sched::baseline::Gto;
use crate::sched::{IssuePolicy, Issued, SchedView};
use crate::timing::units::TimingInst;

/// The `swl:N` policy.
#[derive(Debug)]
pub struct Swl {
    limit: u32,
    gto: Gto,
    /// Scratch: eligible warps of the SM, oldest first.
    eligible: Vec<u32>,
    /// Per slot: among the `limit` oldest this cycle.
    allowed: Vec<bool>,
    /// Scratch: the GTO order before filtering.
    order: Vec<u32>,
}

impl Swl {
    /// At most `limit` warps (at least 1) issue.
    pub fn new(limit: u32) -> Swl {
        Swl {
            limit: limit.max(1),
            gto: Gto::default(),
            eligible: Vec::new(),
            allowed: Vec::new(),
            order: Vec::new(),
        }
    }

    /// The limit `N`.
    pub fn limit(&self) -> u32 {
        self.limit
    }
}

/// Marks in `allowed` (indexed by slot) the `limit` oldest warps of the SM
/// that have not exited and are not waiting at a barrier.
pub(crate) fn oldest_warps(
    view: &SchedView<'_>,
    limit: u32,
    scratch: &mut Vec<u32>,
    allowed: &mut Vec<bool>,
) {
    scratch.clear();
    scratch.extend(
        (0..view.info.len() as u32)
            .filter(|&s| {
                let i = &view.info[s as usize];
                i.live && !i.done && !i.at_barrier
            })
            .collect::<Vec<_>>(),
    );
    scratch.sort_by_key(|&s| (view.info[s as usize].age, s));
    allowed.clear();
    allowed.resize(view.info.len(), false);
    for &s in scratch.iter().take(limit as usize) {
        allowed[s as usize] = true;
    }
}

impl IssuePolicy for Swl {
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        oldest_warps(view, self.limit, &mut self.eligible, &mut self.allowed);
        self.order.clear();
        self.gto.order(view, &mut self.order);
        out.extend(
            self.order
                .iter()
                .copied()
                .filter(|&s| self.allowed[s as usize]),
        );
    }
    fn on_issue(&mut self, slot: u32, view: &SchedView<'_>, inst: &TimingInst, what: &Issued) {
        self.gto.on_issue(slot, view, inst, what);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::WarpView;

    fn view_of(info: &[WarpView], warps: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let mut ages = warps.to_vec();
        ages.sort_by_key(|&s| (info[s as usize].age, s));
        let mut slots = warps.to_vec();
        slots.sort();
        (ages, slots)
    }

    #[test]
    fn only_the_oldest_n_issue_and_barrier_waiters_do_not_count() {
        // Slots 0..6; ages: slot 3 oldest, then 0/1 (same CTA), then 2, 4, 5.
        let ages = [10, 10, 20, 5, 30, 40];
        let mut info: Vec<WarpView> = ages
            .iter()
            .map(|&a| WarpView {
                live: true,
                age: a,
                ..WarpView::default()
            })
            .collect();
        let warps: Vec<u32> = (0..6).collect();
        let (a, s) = view_of(&info, &warps);
        let mut p = Swl::new(3);
        let mut out = Vec::new();
        p.order(
            &SchedView {
                now: 0,
                warps: &a,
                by_slot: &s,
                info: &info,
                cta_barrier: &[],
                detail: &[],
            },
            &mut out,
        );
        assert_eq!(out, vec![3, 0, 1]);
        // Slot 0 waits at a barrier: it no longer counts, slot 2 moves in.
        info[0].at_barrier = true;
        out.clear();
        p.order(
            &SchedView {
                now: 1,
                warps: &a,
                by_slot: &s,
                info: &info,
                cta_barrier: &[],
                detail: &[],
            },
            &mut out,
        );
        assert_eq!(out, vec![3, 1, 2]);
    }
}
