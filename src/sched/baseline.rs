//! The baseline issue policies of SCHEDULERS.md: `lrr`, `srr`, `gto`,
//! `gtrr`, `oldest`, and the `lrr` fetch policy. Ages and round-robin turns
//! are over the scheduler's own warps; ties break by the smaller slot id.

use crate::sched::{FetchPolicy, FetchView, IssuePolicy, SchedView};

/// Writes `warps` rotated to start after `last` (by slot id order).
fn round_robin_from(view: &SchedView<'_>, last: Option<u32>, out: &mut Vec<u32>) {
    let ids = view.by_slot;
    let start = match last {
        Some(l) => ids.iter().position(|&s| s > l).unwrap_or(0),
        None => 0,
    };
    out.extend_from_slice(&ids[start..]);
    out.extend_from_slice(&ids[..start]);
}

/// Loose round robin: start from the warp after the one issued last; the
/// first that can issue wins [LFWS 2.1].
#[derive(Debug, Default)]
pub struct Lrr {
    last: Option<u32>,
}

impl IssuePolicy for Lrr {
    fn orders_every_warp(&self) -> bool {
        true
    }
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        round_robin_from(view, self.last, out);
    }
    fn on_issue(
        &mut self,
        slot: u32,
        _v: &SchedView<'_>,
        _i: &crate::timing::units::TimingInst,
        _w: &crate::sched::Issued,
    ) {
        self.last = Some(slot);
    }
}

/// Strict round robin: only the next warp in turn may issue; if it cannot,
/// the scheduler stalls this cycle [LFWS 2.1]. The turn advances when the
/// warp in turn issues; warps that have exited or wait at a barrier are
/// not in the rotation (they cannot issue until released, and waiting on
/// them would deadlock the barrier).
#[derive(Debug, Default)]
pub struct Srr {
    last: Option<u32>,
}

impl IssuePolicy for Srr {
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        // The next live, not exited warp after `last`.
        let ids = view.by_slot;
        let start = match self.last {
            Some(l) => ids.iter().position(|&s| s > l).unwrap_or(0),
            None => 0,
        };
        let mut turn = ids[start..].iter().chain(&ids[..start]);
        let first = turn.clone().next();
        let eligible = |w: u32| {
            let i = &view.info[w as usize];
            !i.done && !i.at_barrier
        };
        if let Some(&w) = turn.find(|&&w| eligible(w)).or(first) {
            out.push(w);
        }
    }
    fn on_issue(
        &mut self,
        slot: u32,
        _v: &SchedView<'_>,
        _i: &crate::timing::units::TimingInst,
        _w: &crate::sched::Issued,
    ) {
        self.last = Some(slot);
    }
}

/// Greedy then oldest: the warp issued last, if it can issue; otherwise
/// the oldest [BAWS 2.2; Rogers et al. MICRO'12].
#[derive(Debug, Default)]
pub struct Gto {
    last: Option<u32>,
}

impl IssuePolicy for Gto {
    fn orders_every_warp(&self) -> bool {
        true
    }
    fn first_in_order(&self, view: &SchedView<'_>) -> Option<Option<u32>> {
        Some(match self.last {
            Some(l) if view.by_slot.binary_search(&l).is_ok() => Some(l),
            _ => view.warps.first().copied(),
        })
    }
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        // `greedy_then` with the oldest-first rest: two copies around it.
        match self.last {
            Some(l) if view.by_slot.binary_search(&l).is_ok() => {
                out.push(l);
                let p = view
                    .warps
                    .iter()
                    .position(|&w| w == l)
                    .unwrap_or(view.warps.len());
                out.extend_from_slice(&view.warps[..p]);
                out.extend_from_slice(view.warps.get(p + 1..).unwrap_or(&[]));
            }
            _ => out.extend_from_slice(view.warps),
        }
    }
    fn on_issue(
        &mut self,
        slot: u32,
        _v: &SchedView<'_>,
        _i: &crate::timing::units::TimingInst,
        _w: &crate::sched::Issued,
    ) {
        self.last = Some(slot);
    }
}

/// `last` first (when still on the scheduler), then `rest`'s order without it.
pub(crate) fn greedy_then(
    view: &SchedView<'_>,
    last: Option<u32>,
    out: &mut Vec<u32>,
    rest: impl Fn(&SchedView<'_>, &mut Vec<u32>),
) {
    match last {
        Some(l) if view.by_slot.binary_search(&l).is_ok() => {
            out.push(l);
            let start = out.len();
            rest(view, out);
            if let Some(p) = out[start..].iter().position(|&w| w == l) {
                out.remove(start + p);
            }
        }
        _ => rest(view, out),
    }
}

/// Greedy then round robin: the warp issued last, else round robin from it
/// [LFWS 2.1].
#[derive(Debug, Default)]
pub struct Gtrr {
    last: Option<u32>,
}

impl IssuePolicy for Gtrr {
    fn orders_every_warp(&self) -> bool {
        true
    }
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        let last = self.last;
        greedy_then(view, last, out, |v, o| round_robin_from(v, last, o));
    }
    fn on_issue(
        &mut self,
        slot: u32,
        _v: &SchedView<'_>,
        _i: &crate::timing::units::TimingInst,
        _w: &crate::sched::Issued,
    ) {
        self.last = Some(slot);
    }
}

/// Oldest first, no greed.
#[derive(Debug, Default)]
pub struct Oldest;

impl IssuePolicy for Oldest {
    fn orders_every_warp(&self) -> bool {
        true
    }
    fn first_in_order(&self, view: &SchedView<'_>) -> Option<Option<u32>> {
        Some(view.warps.first().copied())
    }
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        out.extend_from_slice(view.warps);
    }
}

/// Fetch `lrr`: round robin over the warps that need instructions,
/// starting after the warp that fetched last.
#[derive(Debug, Default)]
pub struct FetchLrr {
    last: Option<u32>,
}

impl FetchPolicy for FetchLrr {
    fn pick(&mut self, view: &FetchView<'_>) -> Option<u32> {
        let candidates = view.candidates;
        let pick = match self.last {
            Some(l) => candidates
                .iter()
                .copied()
                .find(|&c| c > l)
                .or_else(|| candidates.first().copied()),
            None => candidates.first().copied(),
        };
        if pick.is_some() {
            self.last = pick;
        }
        pick
    }
}
