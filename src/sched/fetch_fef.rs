//! Fewest entries first [Liu et al., "Barrier-Aware Warp Scheduling for
//! Throughput Processors", ICS 2016, §6.2]: the fetch unit serves the warp
//! with the fewest instructions in its I-buffer, ties by the smaller slot
//! id. Unlike the other fetch policies it also tops up I-buffers that are
//! neither empty nor full, which is what makes "fewest" a choice. It knows
//! nothing of barriers: the paper uses it to show that a critical-warp-aware
//! fetch ([`crate::sched::fetch_cff`]) is what helps.

use crate::sched::{FetchPolicy, FetchView};

/// The `fef` fetch policy.
#[derive(Debug, Default)]
pub struct FetchFef;

impl FetchPolicy for FetchFef {
    fn tops_up(&self) -> bool {
        true
    }

    fn pick(&mut self, view: &FetchView<'_>) -> Option<u32> {
        // `min_by_key` keeps the first of equal keys: the smaller slot.
        view.candidates
            .iter()
            .zip(view.entries)
            .min_by_key(|&(_, &e)| e)
            .map(|(&s, _)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warp_with_the_fewest_entries_fetches_ties_by_smaller_slot() {
        let pick = |candidates: &[u32], entries: &[u32]| {
            FetchFef.pick(&FetchView {
                candidates,
                entries,
                issue_rank: &[],
                nslots: 8,
            })
        };
        assert_eq!(pick(&[1, 3, 6], &[1, 0, 1]), Some(3));
        assert_eq!(pick(&[1, 3, 6], &[1, 1, 1]), Some(1));
        assert_eq!(pick(&[2, 5], &[1, 0]), Some(5));
        assert_eq!(pick(&[], &[]), None);
    }
}
