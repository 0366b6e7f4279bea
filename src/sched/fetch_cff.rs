//! Critical fetch first, the fetch half of barrier-aware warp scheduling
//! [Liu et al., "Barrier-Aware Warp Scheduling for Throughput Processors",
//! ICS 2016, §4.2]: the fetch unit serves the warp the issue policy would
//! issue first — among the warps that need instructions, the one ranked
//! highest in its scheduler's issue order this cycle (for GTO the greedy
//! warp, else the oldest; for MWF the critical CTA's warp). With several
//! schedulers the best position wins; ties go to the smaller slot id.
//! Candidates no issue order lists (a throttling policy left them out) come
//! last, by slot id.

use crate::sched::{FetchPolicy, FetchView};

/// The `cff` fetch policy.
#[derive(Debug, Default)]
pub struct FetchCff;

impl FetchPolicy for FetchCff {
    fn wants_issue_order(&self) -> bool {
        true
    }

    fn pick(&mut self, view: &FetchView<'_>) -> Option<u32> {
        let rank = |s: u32| view.issue_rank.get(s as usize).copied().unwrap_or(u32::MAX);
        // `min_by_key` keeps the first of equal keys: the smaller slot.
        view.candidates.iter().copied().min_by_key(|&s| rank(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(candidates: &[u32], issue_rank: &[u32]) -> Option<u32> {
        let entries = vec![0; candidates.len()];
        FetchCff.pick(&FetchView {
            candidates,
            entries: &entries,
            issue_rank,
            nslots: issue_rank.len() as u32,
        })
    }

    #[test]
    fn the_candidate_ranked_first_by_the_issue_order_fetches() {
        // Scheduler 0 orders 4, 2, 0 (ranks 2, 1, 0 at slots 0, 2, 4);
        // scheduler 1 orders 3, 1, 5.
        let rank = [2, 1, 1, 0, 0, 2];
        assert_eq!(pick(&[0, 1, 2, 5], &rank), Some(1));
        // Slot 3 and slot 4 both lead their scheduler: the smaller wins.
        assert_eq!(pick(&[0, 3, 4], &rank), Some(3));
        // Unlisted candidates come last.
        let rank = [u32::MAX, 5, u32::MAX];
        assert_eq!(pick(&[0, 1, 2], &rank), Some(1));
        assert_eq!(pick(&[0, 2], &rank), Some(0));
    }

    /// The rank array the fetch stage builds from one scheduler's order.
    fn rank_of(
        policy: &mut dyn crate::sched::IssuePolicy,
        info: &[crate::sched::WarpView],
    ) -> Vec<u32> {
        let order = crate::sched::mwf::tests::order_of(policy, info, 0);
        let mut rank = vec![u32::MAX; info.len()];
        for (i, &w) in order.iter().enumerate() {
            rank[w as usize] = i as u32;
        }
        rank
    }

    #[test]
    fn under_gto_the_greedy_warp_fetches_else_the_oldest() {
        use crate::sched::baseline::Gto;
        use crate::sched::mwf::tests::{issue, view_of};
        // Two CTAs of three warps; CTA 1 (slots 3..6) is younger.
        let info = view_of(2, 3);
        let mut gto = Gto::default();
        issue(&mut gto, &info, 4);
        let rank = rank_of(&mut gto, &info);
        // The greedy warp needs instructions: it fetches.
        assert_eq!(pick(&[1, 2, 4, 5], &rank), Some(4));
        // It does not: the oldest candidate does.
        assert_eq!(pick(&[2, 5], &rank), Some(2));
    }

    #[test]
    fn under_mwf_the_critical_ctas_warp_fetches() {
        use crate::sched::mwf::tests::view_of;
        use crate::sched::mwf::{Mwf, WithinCta};
        let mut info = view_of(2, 3);
        // Two of CTA 1's warps wait at a barrier: its third is critical.
        for s in [3, 4] {
            info[s].at_barrier = true;
        }
        let rank = rank_of(&mut Mwf::new(WithinCta::Gto), &info);
        assert_eq!(pick(&[0, 1, 2, 5], &rank), Some(5));
    }
}
