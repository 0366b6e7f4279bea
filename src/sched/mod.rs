//! Issue and fetch policies (SCHEDULERS.md). A policy sees a read-only view
//! of its scheduler's warps and is told about issues; it never reaches
//! into the pipeline. Adding one is a file here plus a line in
//! [`registry`].

pub mod baseline;
pub mod cta_rr;
pub mod registry;
pub mod two_level;

use crate::timing::units::TimingInst;

/// What a policy may know about one warp slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarpView {
    /// A warp occupies the slot.
    pub live: bool,
    /// Cycle its CTA was assigned (ties broken by slot id).
    pub age: u64,
    /// The warp has exited.
    pub done: bool,
    /// Waiting at a barrier.
    pub at_barrier: bool,
    /// Global/local loads or atomics of the warp still outstanding.
    pub long_pending: u32,
    /// CTA slot on the SM.
    pub cta: u32,
}

/// A scheduler's view of its warps.
pub struct SchedView<'a> {
    /// Current cycle.
    pub now: u64,
    /// This scheduler's live warp slots, oldest first (age, then slot).
    pub warps: &'a [u32],
    /// The same slots in ascending slot order.
    pub by_slot: &'a [u32],
    /// Every slot of the SM, indexed by slot id.
    pub info: &'a [WarpView],
}

/// A warp-issue policy (one instance per scheduler).
pub trait IssuePolicy {
    /// Writes the scheduler's warps in priority order into `out` (cleared
    /// by the caller). Warps left out may not issue this cycle.
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>);
    /// True if [`IssuePolicy::can_issue`] may ever say no (the pipeline
    /// skips the call otherwise).
    fn throttles(&self) -> bool {
        false
    }
    /// True if [`IssuePolicy::order`] always lists every warp of the
    /// scheduler and changes nothing in the policy (the issue stage may
    /// then track warp states incrementally instead of visiting every warp
    /// every cycle, and skip `order` when no warp can issue).
    fn orders_every_warp(&self) -> bool {
        false
    }
    /// The first warp [`IssuePolicy::order`] would list now, when the
    /// policy can tell without building the order (`None`: it cannot).
    fn first_in_order(&self, _view: &SchedView<'_>) -> Option<Option<u32>> {
        None
    }
    /// May `slot` issue `next` now? (Throttling policies say no.)
    fn can_issue(&self, _slot: u32, _view: &SchedView<'_>, _next: &TimingInst) -> bool {
        true
    }
    /// `slot` issued `inst` this cycle.
    fn on_issue(&mut self, _slot: u32, _view: &SchedView<'_>, _inst: &TimingInst) {}
}

/// A fetch policy (one per SM): picks the warp that fetches this cycle
/// among `candidates` (slots needing instructions, ascending; asked only
/// when there is at least one).
pub trait FetchPolicy {
    /// The chosen slot, if any.
    fn pick(&mut self, candidates: &[u32], nslots: u32) -> Option<u32>;
}

/// What a CTA policy may know about one SM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmView {
    /// One more CTA of the launch fits now.
    pub fits: bool,
    /// CTAs resident.
    pub ctas: u32,
}

/// A CTA-assignment policy (one per GPU): each cycle, the SMs that receive
/// the next CTAs of the grid (in grid order), at most one each.
pub trait CtaPolicy {
    /// Writes the SMs to receive a CTA this cycle, in order, into `out`
    /// (cleared by the caller); only SMs with `fits` may be named.
    fn assign(&mut self, now: u64, sms: &[SmView], out: &mut Vec<usize>);
}
