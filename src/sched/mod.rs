//! Issue and fetch policies (SCHEDULERS.md). A policy sees a read-only view
//! of its scheduler's warps and is told about issues; it never reaches
//! into the pipeline. Adding one is a file here plus a line in
//! [`registry`].

pub mod baseline;
pub mod blws;
pub mod ccws;
pub mod cta_rr;
pub mod cta_throttle;
pub mod daws;
pub mod fetch_cff;
pub mod fetch_fef;
pub mod lfws;
pub mod llos;
pub mod mwf;
pub mod registry;
pub mod saws;
pub mod swl;
pub mod two_level;

use crate::analysis::KernelAnalysis;
use crate::config::GpuConfig;
use crate::ir::Kernel;
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
    /// PC of the warp's next instruction.
    pub pc: u32,
    /// Lanes active in the warp's last issued instruction (its thread
    /// count before the first).
    pub lanes: u32,
}

/// The barrier state of one CTA slot: the BAWS paper's warp priority table
/// entry, kept by the SM as warps arrive at and leave barriers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CtaBarrier {
    /// Warps of the CTA waiting at a barrier.
    pub waiting: u32,
    /// The cycle the first of them arrived (meaningful while `waiting > 0`).
    pub first_hit: u64,
}

/// Per-slot facts the SM computes only for policies that ask for them
/// ([`IssuePolicy::wants_detail`]), as of the cycle of the view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarpDetail {
    /// Cycles the warp has spent stalled on control (an empty I-buffer
    /// after a branch or reconvergence), data (the scoreboard) or
    /// structural hazards (its unit busy) since it arrived — the BLWS
    /// paper's per-warp stall counter (§4.2, Alg. 1 step 1).
    pub stall_cycles: u64,
    /// The warp holds a valid next instruction that the scoreboard blocks.
    pub head_blocked: bool,
}

/// A scheduler's view of its warps.
#[derive(Default)]
pub struct SchedView<'a> {
    /// Current cycle.
    pub now: u64,
    /// This scheduler's live warp slots, oldest first (age, then slot).
    pub warps: &'a [u32],
    /// The same slots in ascending slot order.
    pub by_slot: &'a [u32],
    /// Every slot of the SM, indexed by slot id.
    pub info: &'a [WarpView],
    /// Every CTA slot of the SM, indexed by [`WarpView::cta`] (empty in
    /// views built by hand for policies that do not read it).
    pub cta_barrier: &'a [CtaBarrier],
    /// Per slot of the SM, [`WarpDetail`] of this scheduler's warps, filled
    /// only when the policy [`IssuePolicy::wants_detail`] (empty or stale
    /// otherwise, and in views built by hand for policies that do not read
    /// it).
    pub detail: &'a [WarpDetail],
}

/// What the pipeline tells a policy about an instruction just issued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Issued {
    /// Its PC (instruction index in the kernel).
    pub pc: u32,
    /// Lanes that executed it.
    pub lanes: u32,
    /// The warp's next PC, `None` once it exited.
    pub next_pc: Option<u32>,
    /// The warp now waits at a barrier.
    pub barrier: bool,
}

/// The L1D's verdict on every line request of one global/local load
/// (the DAWS paper's memory-system feedback, Fig. 7 (B)), delivered when
/// the last request has been looked up.
#[derive(Clone, Copy, Debug)]
pub struct LoadFeedback<'a> {
    /// The load's PC.
    pub pc: u32,
    /// Lanes that executed it.
    pub lanes: u32,
    /// Its line addresses (byte address / line size), in request order.
    pub lines: &'a [u64],
    /// Hits on lines this warp brought in, or merges into this warp's
    /// own outstanding miss (captured intra-warp locality).
    pub own_hits: u32,
    /// Hits on (or merges into misses of) other warps' lines.
    pub other_hits: u32,
    /// Misses sent to L2.
    pub misses: u32,
    /// Misses whose line was in this warp's victim tags (lost intra-warp
    /// locality, CCWS §4.1).
    pub vta_hits: u32,
}

impl LoadFeedback<'_> {
    /// The load showed intra-warp locality, captured or lost.
    pub fn has_intra_warp_locality(&self) -> bool {
        self.own_hits > 0 || self.vta_hits > 0
    }
}

/// What does not change during a launch, for policies that study the code.
#[derive(Clone, Copy)]
pub struct LaunchInfo<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Its CFG, post-dominators and loops.
    pub analysis: &'a KernelAnalysis,
    /// Per-instruction timing facts.
    pub table: &'a [TimingInst],
    /// The machine.
    pub cfg: &'a GpuConfig,
}

/// A warp-issue policy (one instance per scheduler; the schedulers of one
/// SM may share state, see [`registry::issue_policies`]). Events about a
/// warp go to the policy of the scheduler that owns it.
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
    /// True if [`IssuePolicy::order`] reads [`SchedView::detail`] (the SM
    /// then fills it before each call).
    fn wants_detail(&self) -> bool {
        false
    }
    /// May `slot` issue `next` now? (Throttling policies say no.)
    fn can_issue(&self, _slot: u32, _view: &SchedView<'_>, _next: &TimingInst) -> bool {
        true
    }
    /// `slot` issued `inst` this cycle.
    fn on_issue(&mut self, _slot: u32, _view: &SchedView<'_>, _inst: &TimingInst, _what: &Issued) {}
    /// A launch begins (before any warp of it is placed).
    fn on_launch(&mut self, _launch: &LaunchInfo<'_>) {}
    /// The launch finished.
    fn on_launch_end(&mut self) {}
    /// A warp was placed in `slot`.
    fn on_warp_start(&mut self, _slot: u32) {}
    /// The warp in `slot` exited.
    fn on_warp_exit(&mut self, _slot: u32) {}
    /// The L1D served every line request of a load of `slot`.
    fn on_load(&mut self, _slot: u32, _feedback: &LoadFeedback<'_>) {}
    /// The earliest cycle after `now` at which this policy's decisions may
    /// change with nothing else happening (scores that decay with time),
    /// so the pipeline does not sleep through it.
    fn next_change(&self, _now: u64) -> Option<u64> {
        None
    }
}

/// What a fetch policy may know in a cycle.
#[derive(Clone, Copy, Debug)]
pub struct FetchView<'a> {
    /// Slots that may fetch now, ascending: live, not exited, no control
    /// instruction fetched, no I-cache miss outstanding, and an empty
    /// I-buffer (or, for a policy that [`FetchPolicy::tops_up`], room in
    /// it).
    pub candidates: &'a [u32],
    /// I-buffer entries each candidate holds (parallel to `candidates`).
    pub entries: &'a [u32],
    /// Per slot of the SM: the slot's position in its scheduler's issue
    /// order this cycle (`u32::MAX`: not listed). Empty unless the policy
    /// [`FetchPolicy::wants_issue_order`].
    pub issue_rank: &'a [u32],
    /// Warp slots of the SM.
    pub nslots: u32,
}

/// A fetch policy (one per SM): picks the warp that fetches this cycle
/// (asked only when there is at least one candidate).
pub trait FetchPolicy {
    /// The chosen slot, if any (one of `view.candidates`).
    fn pick(&mut self, view: &FetchView<'_>) -> Option<u32>;
    /// True if the policy ranks candidates by the issue policy's order
    /// (the fetch stage then fills [`FetchView::issue_rank`]).
    fn wants_issue_order(&self) -> bool {
        false
    }
    /// True if warps whose I-buffer is neither empty nor full are
    /// candidates too (the fetch tops their I-buffer up).
    fn tops_up(&self) -> bool {
        false
    }
}

/// What a CTA policy may know about one SM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmView {
    /// One more CTA of the launch fits now.
    pub fits: bool,
    /// CTAs resident.
    pub ctas: u32,
}

/// Memory-system stall counters a CTA policy may read, cumulative since
/// the run began (the BLWS paper's Alg. 2 inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Contention {
    /// L2-slice cycles a lookup waited for room in a full DRAM queue
    /// (GPGPU-Sim's `gpu_stall_dramfull`).
    pub dram_full: u64,
    /// L2-slice cycles a reply waited for the interconnect to the SMs
    /// (GPGPU-Sim's `gpu_stall_icnt2sh`).
    pub icnt_to_sm: u64,
}

/// A CTA-assignment policy (one per GPU): each cycle, the SMs that receive
/// the next CTAs of the grid (in grid order), at most one each.
pub trait CtaPolicy {
    /// Writes the SMs to receive a CTA this cycle, in order, into `out`
    /// (cleared by the caller); only SMs with `fits` may be named. Called
    /// only in cycles where CTAs remain and at least one SM fits one.
    fn assign(&mut self, now: u64, sms: &[SmView], contention: Contention, out: &mut Vec<usize>);
}

/// An instruction's timing facts for policy tests: an SP instruction, or a
/// global load when `long_mem`.
#[cfg(test)]
pub(crate) fn test_inst(long_mem: bool) -> TimingInst {
    TimingInst {
        unit: if long_mem {
            crate::timing::units::Unit::LdSt
        } else {
            crate::timing::units::Unit::Sp
        },
        latency: 1,
        initiation: 1,
        hazards: Default::default(),
        writes: Default::default(),
        reads: Box::new([]),
        dests: Box::new([]),
        nanosleep: false,
        long_mem,
        long_op: long_mem,
        l1d_load: long_mem,
        texture: false,
        space: if long_mem {
            crate::ir::Space::Global
        } else {
            Default::default()
        },
        control: false,
    }
}
