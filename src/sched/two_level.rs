//! Two-level warp scheduling [Narasiman et al. MICRO'11; Gebhart et al.
//! ISCA'11; LFWS 2.1]: an active set of `k` warps is scheduled loose round
//! robin; a warp that issues a long-latency operation (global or local load
//! or atomic) leaves it for the pending set; the active set refills from
//! the pending set in age order with warps that have no long-latency
//! operation outstanding. Warps waiting at a barrier leave the active set
//! too (otherwise a full active set of waiting warps would starve the warps
//! the barrier waits for).

use crate::sched::{IssuePolicy, SchedView};
use crate::timing::units::TimingInst;

/// The `two-level` policy.
#[derive(Debug)]
pub struct TwoLevel {
    k: usize,
    active: Vec<u32>,
    last: Option<u32>,
}

impl TwoLevel {
    /// An active set of `k` warps (at least 1).
    pub fn new(k: u32) -> TwoLevel {
        TwoLevel {
            k: k.max(1) as usize,
            active: Vec::new(),
            last: None,
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
        // Loose round robin over the active set, by slot id.
        self.active.sort_unstable();
        let start = match self.last {
            Some(l) => self.active.iter().position(|&s| s > l).unwrap_or(0),
            None => 0,
        };
        out.extend_from_slice(&self.active[start..]);
        out.extend_from_slice(&self.active[..start]);
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
