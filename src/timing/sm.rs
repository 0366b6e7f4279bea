//! One streaming multiprocessor: warp slots, CTA slots, the per-SM state of
//! fetch, issue, units, LD/ST and L1D, and the order of its pipeline stages
//! within a cycle. The stages themselves live in `fetch.rs`, `issue.rs`
//! and `ldst.rs`, placing and retiring CTAs in `cta_residency.rs`; this
//! file owns the state and the cycle.

use crate::config::GpuConfig;
use crate::func::layout::KernelInfo;
use crate::func::{DynInst, GlobalMemory, SimError, Warp};
use crate::ir::Kernel;
use crate::sched::{CtaBarrier, FetchPolicy, IssuePolicy, WarpDetail, WarpView};
use crate::timing::cache::TagArray;
use crate::timing::coalescer::LineRequest;
use crate::timing::event_queue::EventQueue;
use crate::timing::memsys::{MemSys, Packet};
use crate::timing::opcoll::OperandCollector;
use crate::timing::scoreboard::Scoreboard;
use crate::timing::stats::{SmStats, Stall, WarpRecord};
use crate::timing::units::{TimingInst, Unit, UnitPool};
use crate::timing::warp_charge::{UNITS, UnitGroup};

/// Everything about the running launch that does not change.
pub struct LaunchCtx<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Its layout.
    pub info: &'a KernelInfo,
    /// Per-instruction timing facts.
    pub table: &'a [TimingInst],
    /// Packed parameters.
    pub params: &'a [u8],
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Machine.
    pub cfg: &'a GpuConfig,
    /// Scoreboard words per warp.
    pub sb_words: usize,
    /// Byte address of this kernel's instruction 0 (see `fetch.rs`).
    pub code_base: u64,
    /// The kernel's CFG, post-dominators and loops.
    pub analysis: &'a crate::analysis::KernelAnalysis,
    /// Bytes of dynamic (`.extern .shared`) shared memory per CTA.
    pub dynamic_shared: u32,
    /// The `--sync` policy (waiting loads go to the L2 unless `busy`).
    pub sync: crate::sync::policy::SyncPolicy,
}

/// One issued instruction (the issue log, for tests and `--issue-log`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct IssueRecord {
    /// Cycle.
    pub cycle: u64,
    /// SM.
    pub sm: u32,
    /// Warp slot on the SM.
    pub slot: u32,
    /// Scheduler.
    pub scheduler: u32,
    /// CTA index.
    pub cta: [u32; 3],
    /// Warp within the CTA.
    pub warp: u32,
    /// Instruction id (PC / 8).
    pub pc: u32,
    /// Slots of the same scheduler that could have issued this cycle but
    /// were not picked (bit per slot, slots ≥ 64 omitted).
    pub ready_unpicked: u64,
}

/// One I-buffer entry: an instruction and the cycle it becomes valid.
#[derive(Clone, Copy, Debug)]
pub struct IbufEntry {
    /// Instruction id (PC).
    pub pc: u32,
    /// Cycle the fetched instruction arrives.
    pub ready: u64,
}

/// A warp's I-buffer: fetched instructions, oldest first. The oldest (the
/// one the issue stage looks at) is kept inline.
#[derive(Clone, Debug, Default)]
pub struct IBuffer {
    /// The oldest entry.
    head: Option<IbufEntry>,
    /// The others, oldest first.
    rest: std::collections::VecDeque<IbufEntry>,
}

impl IBuffer {
    /// The oldest entry.
    #[inline]
    pub fn front(&self) -> Option<&IbufEntry> {
        self.head.as_ref()
    }

    /// Removes and returns the oldest entry.
    pub fn pop_front(&mut self) -> Option<IbufEntry> {
        let h = self.head.take();
        self.head = self.rest.pop_front();
        h
    }

    /// Appends `e` as the newest entry.
    pub fn push_back(&mut self, e: IbufEntry) {
        if self.head.is_none() {
            self.head = Some(e);
        } else {
            self.rest.push_back(e);
        }
    }

    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.head = None;
        self.rest.clear();
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        usize::from(self.head.is_some()) + self.rest.len()
    }
}

/// Timing state of one warp slot.
#[derive(Clone, Debug, Default)]
pub struct WarpSlot {
    /// A warp occupies the slot.
    pub live: bool,
    /// CTA slot.
    pub cta: u32,
    /// Warp index within its CTA.
    pub index: u32,
    /// SM-unique dynamic warp id (cache-line owners, victim tags).
    pub dyn_id: u32,
    /// Fetched instructions, oldest first.
    pub ibuf: IBuffer,
    /// Next PC to fetch.
    pub fetch_pc: u32,
    /// A fetched control instruction has not issued yet.
    pub fetch_blocked: bool,
    /// Waiting for this I-cache line.
    pub fetch_wait_line: Option<u64>,
    /// The I-buffer was emptied by a taken branch or reconvergence and no
    /// instruction has issued since (a control stall).
    pub branch_flush: bool,
    /// `core.branch_redirect`: the PC the warp goes on at after an issued
    /// instruction whose successor is not its fall-through (taken branch,
    /// divergence, reconvergence), while fetch still follows the
    /// fall-through; cleared when the scheduler flushes the wrong path.
    pub redirect: Option<u32>,
    /// Pending register writes.
    pub sb: Scoreboard,
    /// Instructions issued whose completion has not been processed, and
    /// stores not yet acknowledged by L2 (a CTA retires when its warps
    /// have none).
    pub outstanding: u32,
    /// Atomics in flight, global or shared: the warp issues nothing until
    /// they are written back (as GPGPU-Sim's `shd_warp_t::waiting`).
    pub atomics: u32,
    /// Arrived at a barrier not yet released.
    pub barrier_wait: bool,
    /// Cycle the released barrier lets the warp issue again.
    pub barrier_release: u64,
    /// Sleeping until this cycle (`nanosleep`).
    pub sleep_until: u64,
    /// Exited.
    pub done: bool,
    /// Cycles per state so far (`Stall` index; 10 = ready), up to the
    /// start of the state being timed ([`IssueSlot::timed`]).
    pub state_cycles: [u64; 11],
    /// Instructions issued.
    pub insts: u64,
    /// Cycle its CTA was assigned.
    pub start: u64,
}

/// The issue stage's bookkeeping of one warp slot, kept apart from
/// [`WarpSlot`] in a small dense array so that the stage's walk over a
/// scheduler's warps touches few cache lines.
#[derive(Clone, Copy, Debug)]
pub struct IssueSlot {
    /// The last computed local stall reason (everything but the unit;
    /// `Issued` when only the unit is left to check, see `issue.rs`), or
    /// `None` when it must be computed.
    pub reason: Option<Stall>,
    /// The unit of the next instruction, when `reason` is `Issued`.
    pub unit: Unit,
    /// `reason` is valid before this cycle.
    pub until: u64,
    /// The state charged this cycle (`None`: ready but not picked).
    pub state: Option<Stall>,
    /// The issue run (`Sm::issue_run`) that last gave the warp its state.
    pub state_run: u64,
    /// The cycle the state being timed (`Sm::charge_codes`) started.
    pub timed_since: u64,
    /// For a unit group: the group's busy cycles when the warp joined.
    pub group_snap: u64,
    /// Queued for re-evaluation (`Sm::dirty`).
    pub dirty: bool,
    /// The slot's scheduler (slot mod schedulers).
    pub scheduler: u32,
    /// The instruction the state being timed is charged to
    /// ([`crate::timing::pc_stats`]).
    pub charge_pc: u32,
    /// The instruction the warp issued last.
    pub last_pc: u32,
}

impl IssueSlot {
    /// A warp of `scheduler` alive from cycle `start`, timed as waiting
    /// for its first fetch.
    pub fn new(start: u64, scheduler: u32) -> IssueSlot {
        IssueSlot {
            reason: None,
            unit: Unit::Sp,
            until: 0,
            state: None,
            state_run: 0,
            timed_since: start,
            group_snap: 0,
            dirty: false,
            scheduler,
            charge_pc: 0,
            last_pc: 0,
        }
    }
}

/// One resident CTA.
pub struct CtaSlot {
    /// CTA index.
    pub id: [u32; 3],
    /// Its linear index in the grid (the work-group id of `wg_sync.rs`).
    pub linear: u32,
    /// Shared memory.
    pub shared: Vec<u8>,
    /// Functional warps.
    pub warps: Vec<Warp>,
    /// Warp slot of each warp.
    pub slots: Vec<u32>,
    /// Resources it holds: threads, registers, shared bytes.
    pub threads: u32,
    /// Registers.
    pub regs: u32,
    /// Shared bytes.
    pub smem: u32,
    /// Its warps' current barrier phases (`barrier_stats.rs`).
    pub phases: crate::timing::barrier_stats::CtaPhases,
}

/// An SM-local event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SmEvent {
    /// An instruction's result is written back: release its registers.
    Writeback {
        /// Warp slot.
        slot: u32,
        /// Instruction.
        inst: u32,
        /// A long-latency memory instruction (its `long_pending` ends).
        long: bool,
        /// A global atomic (the warp's `atomics` count drops).
        atomic: bool,
    },
    /// One line request of an in-flight memory instruction is served.
    RequestDone {
        /// In-flight memory instruction.
        id: u32,
    },
}

/// A memory instruction past issue whose data has not all returned.
#[derive(Clone, Debug, Default)]
pub struct InflightMem {
    /// Warp slot.
    pub slot: u32,
    /// Instruction.
    pub inst: u32,
    /// Requests still to be served.
    pub remaining: u32,
    /// A global/local load or atomic (for `long_pending`).
    pub long: bool,
    /// In use.
    pub used: bool,
    /// Cycles from its last request's completion to the writeback (the
    /// operand-collector stages in front of the LD/ST unit and the
    /// writeback stage, [`OperandCollector::collect_mem`](crate::timing::opcoll::OperandCollector::collect_mem)).
    pub delay: u32,
    /// A global atomic.
    pub atomic: bool,
    /// The cycle it issued.
    pub issued: u64,
}

/// An L1D miss status holding register.
#[derive(Clone, Debug, Default)]
pub struct Mshr {
    /// Line address (L1D line units).
    pub line: u64,
    /// In-flight instructions waiting for the line.
    pub waiters: Vec<u32>,
    /// Dynamic warp id of the first requester.
    pub owner: u32,
    /// In use.
    pub used: bool,
    /// The L1D way reserved for the line (allocate on miss), if any.
    pub way: Option<u32>,
}

/// A memory instruction waiting for the LD/ST unit: executed
/// functionally at issue, handed to the unit when it is idle.
#[derive(Clone, Debug)]
pub struct QueuedMem {
    /// Warp slot.
    pub slot: u32,
    /// The executed instruction.
    pub inst: DynInst,
    /// Its lane addresses (the warp's `addrs` at issue).
    pub addrs: Vec<u64>,
    /// Issue cycle.
    pub issued: u64,
}

/// The memory instruction the LD/ST unit is working through.
#[derive(Clone, Debug, Default)]
pub struct LdStJob {
    /// Warp slot.
    pub slot: u32,
    /// In-flight record (loads, atomics) or `u32::MAX` (stores).
    pub inflight: u32,
    /// Line requests.
    pub reqs: Vec<LineRequest>,
    /// Next request to process.
    pub next: usize,
    /// Kind of access.
    pub kind: JobKind,
    /// The instruction's PC.
    pub pc: u32,
    /// Lanes that executed it.
    pub lanes: u32,
    /// L1D outcomes so far (loads): own hits, other hits, misses, victim
    /// tag hits.
    pub outcomes: [u32; 4],
    /// With the L1D latency queue: the load's record in `Sm::l1q_loads`
    /// (set when its first request enters the queue).
    pub l1q_load: u32,
}

impl LdStJob {
    /// Starts the job (its `reqs` already filled) for the instruction at
    /// `pc` of warp `slot`, executed by `lanes` lanes, from its first
    /// request, with in-flight record `inflight`.
    pub fn begin(&mut self, slot: u32, kind: JobKind, pc: u32, lanes: u32, inflight: u32) {
        self.slot = slot;
        self.next = 0;
        self.kind = kind;
        self.pc = pc;
        self.lanes = lanes;
        self.outcomes = [0; 4];
        self.inflight = inflight;
    }
}

/// What the LD/ST job does with each line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JobKind {
    /// Load through the L1D.
    #[default]
    Load,
    /// Write-through store.
    Store,
    /// Global atomic (performed at L2).
    Atomic,
    /// Texture fetch through the texture cache (`l1t.sets` > 0).
    Tex,
    /// `.const`/`.param` load through the constant cache (`l1c.sets` > 0)
    /// when a line it reads is not present.
    Const,
}

/// Why the LD/ST unit could not process its request this cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LdStStall {
    /// It did, or had nothing to do.
    #[default]
    None,
    /// Every MSHR is in use (waits for a reply).
    Mshr,
    /// The SM's interconnect port is full (waits for it to drain).
    Icnt,
    /// The texture cache's FIFO is full, or its miss cannot enter the
    /// interconnect.
    Tex,
    /// The constant cache has no MSHR for the line (every one in use, or
    /// the line's full), or its miss cannot enter the interconnect.
    Const,
}

/// Why the L1D lookup of a load's line last failed with
/// [`LdStStall::Mshr`], and so what can end the wait. Until then a retry
/// of the same line fails the same way (no fill, no free MSHR, no free
/// way), so it is answered without a lookup, and only the fills that can
/// end the wait wake a sleeping SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L1dWait {
    /// Not waiting (or a fill may have ended the wait: look again).
    None,
    /// The line found every MSHR in use: any fill frees one.
    Mshr(u64),
    /// The line found every way of its set reserved (or itself reserved,
    /// its MSHR full of merges): only a fill into that set frees a way.
    Set(u64),
}

/// One SM.
pub struct Sm {
    /// SM id.
    pub id: u32,
    /// Warp slots.
    pub warps: Vec<WarpSlot>,
    /// Issue-stage bookkeeping of each slot.
    pub issue_slots: Vec<IssueSlot>,
    /// The state each slot is being charged (`Stall` index, 10 = ready,
    /// or a unit group, see `warp_charge.rs`), apart from `issue_slots`
    /// so that the issue stage's walk reads one byte per warp.
    pub charge_codes: Vec<u8>,
    /// Policy view of each slot.
    pub views: Vec<WarpView>,
    /// CTA slots.
    pub ctas: Vec<Option<CtaSlot>>,
    /// Per CTA slot: warps waiting at a barrier and the first one's
    /// arrival cycle (what barrier-aware policies read).
    pub cta_barrier: Vec<CtaBarrier>,
    /// Per slot: the facts policies that [`IssuePolicy::wants_detail`]
    /// read, refreshed for a scheduler's warps before its policy orders
    /// them ([`Sm::fill_detail`]).
    pub detail: Vec<WarpDetail>,
    /// Per scheduler: its live slots oldest first, and by slot id.
    pub sched_warps: Vec<(Vec<u32>, Vec<u32>)>,
    /// Issue policy per scheduler.
    pub policies: Vec<Box<dyn IssuePolicy>>,
    /// Whether each scheduler's policy may throttle
    /// ([`IssuePolicy::throttles`]).
    pub throttles: Vec<bool>,
    /// Whether each scheduler's policy reads [`Sm::detail`]
    /// ([`IssuePolicy::wants_detail`]).
    pub wants_detail: Vec<bool>,
    /// Fetch policy.
    pub fetch_policy: Box<dyn FetchPolicy>,
    /// The category charged to each scheduler this cycle.
    pub sched_state: Vec<Stall>,
    /// Each scheduler's core activity this cycle (DAWS Fig. 12): 0 issued,
    /// 1 no warp ready, 2 a warp could have issued but was throttled.
    pub sched_activity: Vec<u8>,
    /// SP, SFU, DP unit pools (booked by the operand collector when an
    /// instruction reaches its unit).
    pub units: [UnitPool; 3],
    /// The operand collector: collector units (which gate issue) and
    /// register banks.
    pub opcoll: OperandCollector,
    /// LD/ST accepts its next instruction from this cycle.
    pub ldst_free: u64,
    /// The LD/ST unit's current global/local job.
    pub ldst_job: Option<LdStJob>,
    /// A finished job kept for its allocation.
    pub spare_job: Option<LdStJob>,
    /// Memory instructions issued while the LD/ST unit was busy, waiting
    /// for it in issue order (at most `opcoll.mem_queue`).
    pub mem_queue: std::collections::VecDeque<QueuedMem>,
    /// Lane-address buffers of served queued instructions, for reuse.
    pub spare_addrs: Vec<Vec<u64>>,
    /// The next cycle a memory instruction may issue (one per cycle).
    pub mem_issue_free: u64,
    /// `opcoll.mem_queue`.
    pub mem_queue_cap: usize,
    /// This launch's local-memory layout (`core.local_mem_map`).
    pub local_map: crate::timing::ldst::LocalMap,
    /// Line requests of one 4-byte word of a local access (reused).
    pub local_reqs: Vec<crate::timing::coalescer::LineRequest>,
    /// Dirty L1D lines evicted and not yet sent to L2
    /// (`l1d.local_write_back`).
    pub l1d_writebacks: Vec<u64>,
    /// The L1D latency queue's requests, head first (`l1d.latency_queue`,
    /// `timing::l1q`).
    pub l1q: std::collections::VecDeque<crate::timing::l1q::L1qEntry>,
    /// `l1d.latency_queue` (0: no queue).
    pub l1q_depth: u32,
    /// The L1D latency queue head's reservation failure this cycle.
    pub l1q_stall: LdStStall,
    /// Loads with requests in the L1D latency queue (reused records).
    pub l1q_loads: Vec<crate::timing::l1q::L1qLoad>,
    /// The L1D miss queue: reads and writes looked up at the latency
    /// queue's head, waiting for the interconnect (`l1d.miss_queue`).
    pub l1_missq: std::collections::VecDeque<Packet>,
    /// `l1d.miss_queue` if `l1d.latency_queue` > 0, else 0 (no miss queue).
    pub l1_missq_cap: u32,
    /// L1 data cache tags.
    pub l1d: TagArray,
    /// The texture cache (`None` with `l1t.sets` = 0); boxed: held inline
    /// its state made the compiled hot loop 0.7% longer even without
    /// texture fetches (docs/performance.md, session 18).
    pub l1t: Option<Box<crate::timing::tex_cache::TexCache>>,
    /// Texture-cache requests handed back, to complete (reused buffer).
    pub tex_out: Vec<(u32, u64)>,
    /// The constant cache's tags and MSHRs (`None` with `l1c.sets` = 0:
    /// every constant read hits); boxed, as `l1t`.
    pub l1c: Option<Box<crate::timing::const_cache::ConstCache>>,
    /// The first cycle the writeback stage may drain the constant
    /// cache's next ready request ([`Sm::const_drain`]).
    pub const_drain_at: u64,
    /// The lines of a constant load (reused buffer).
    pub const_lines: Vec<u64>,
    /// MSHRs.
    pub mshrs: Vec<Mshr>,
    /// The line of each MSHR in use (`ldst::NO_LINE` when free), dense so
    /// a lookup scans a few cache lines.
    pub mshr_lines: Vec<u64>,
    /// Free MSHRs and a filter of the lines they hold (kept with
    /// `mshr_lines`).
    pub mshr_index: crate::timing::mshr_index::MshrIndex,
    /// In-flight memory instructions (indexed by id).
    pub inflight: Vec<InflightMem>,
    /// I-cache tags.
    pub icache: TagArray,
    /// I-cache lines requested from L2.
    pub icache_pending: Vec<u64>,
    /// Events, popped by cycle then insertion order.
    pub events: EventQueue<SmEvent>,
    /// Next dynamic warp id.
    pub next_dyn_id: u32,
    /// Resources in use: warps, threads, registers, shared bytes, CTAs.
    pub used: [u32; 5],
    /// Something changed state this cycle (no idle skip).
    pub active: bool,
    /// Counters.
    pub stats: SmStats,
    /// Scratch: a scheduler's priority order.
    pub order_buf: Vec<u32>,
    /// Scratch: fetch candidates; warps a barrier released.
    pub cand_buf: Vec<u32>,
    /// The fetch candidates' I-buffer entries (scratch).
    pub fetch_entries: Vec<u32>,
    /// Each slot's position in its scheduler's issue order, for fetch
    /// policies that ask (scratch).
    pub fetch_rank: Vec<u32>,
    /// One bit per slot whose warp needs instructions (fetch candidates),
    /// kept up to date where its conditions change (`refresh_fetch_need`).
    pub fetch_needs: Vec<u64>,
    /// Scratch: one executed instruction.
    pub dyn_buf: DynInst,
    /// Issued instructions, when logging.
    pub issue_log: Option<Vec<IssueRecord>>,
    /// The LD/ST unit's stall this cycle.
    pub ldst_stall: LdStStall,
    /// What the last L1D load lookup that failed for want of an MSHR or a
    /// way waits for, until a fill that can end the wait clears it.
    pub l1d_wait: L1dWait,
    /// Cycles to charge to the current states, not yet added to `stats`
    /// (see [`Sm::account`]).
    pub unaccounted: u64,
    /// The same for the LD/ST unit's stall alone, which changes more
    /// often than the other states (see [`Sm::flush_ldst_account`]).
    pub ldst_unaccounted: u64,
    /// Warps per state this cycle (index: position in [`Stall::ALL`]).
    pub state_counts: [u32; 10],
    /// Warps ready but not picked this cycle.
    pub ready_count: u32,
    /// The cycle whose states were computed last (charged until the next
    /// run).
    pub last_run: u64,
    /// A warp may have finished draining (check CTAs for retirement).
    pub maybe_retire: bool,
    /// Per-instruction counters of the current launch, indexed by PC
    /// ([`crate::timing::pc_stats`]).
    pub pc_counters: Vec<crate::timing::pc_stats::PcCounters>,
    /// Occupied warp slots, ascending.
    pub live_slots: Vec<u32>,
    /// The live warps as (dynamic id, slot), by increasing dynamic id
    /// (ids are handed out in increasing order): finds the warp owning an
    /// evicted L1D line without scanning the slots.
    pub live_by_dyn_id: Vec<(u32, u32)>,
    /// A warp exited or a CTA retired since the GPU last looked (livelock
    /// detection).
    pub progressed: bool,
    /// Retired warps' state cycles (the first
    /// [`MAX_WARP_RECORDS_PER_SM`](crate::timing::stats::MAX_WARP_RECORDS_PER_SM)).
    pub warp_records: Vec<WarpRecord>,
    /// Retired warps not in `warp_records`.
    pub warp_records_omitted: u64,
    /// A reply changed something a stage depends on (see `on_reply`).
    pub changed: bool,
    /// Retired CTAs' warps and shared memory, reused by the next CTAs of
    /// the same launch.
    pub spare_ctas: Vec<(Vec<Warp>, Vec<u8>)>,
    /// Warps of earlier launches, re-initialised for new CTAs
    /// ([`Warp::reinit`]) instead of fresh allocations.
    pub warp_pool: Vec<Warp>,
    /// Shared memories of earlier launches, likewise.
    pub shared_pool: Vec<Vec<u8>>,
    /// Something the issue stage depends on changed (scoreboard, LD/ST
    /// unit, warps added or removed, an instruction issued).
    pub issue_dirty: bool,
    /// The next cycle at which a time-based issue condition changes
    /// (I-buffer arrival, unit release, barrier release, sleep end).
    pub issue_wake: u64,
    /// Victim tags of the warp slots.
    pub vta: crate::timing::victim_tags::VictimTags,
    /// Scratch: a finished load's line addresses.
    pub line_buf: Vec<u64>,
    /// Runs of the issue stage so far (tells which warps got their state
    /// in the current run).
    pub issue_run: u64,
    /// The issue stage tracks warps' states incrementally (every policy
    /// orders all its warps and never throttles, barriers release after at
    /// least a cycle, no issue log; see `issue.rs`).
    pub incremental: bool,
    /// Warps with a wrong-path I-buffer waiting for a scheduler's visit
    /// (`core.branch_redirect`; [`WarpSlot::redirect`] is some).
    pub redirects_pending: u32,
    /// Incremental issue: warps charged each fixed state (`Stall` index,
    /// 10 = ready).
    pub fixed_counts: [u32; 11],
    /// Incremental issue: unit groups, `scheduler × UNITS + unit`.
    pub groups: Vec<UnitGroup>,
    /// Incremental issue: per scheduler, one bit per unit whose group has
    /// members (`groups[s * UNITS + u].count > 0`).
    pub groups_nonempty: Vec<u8>,
    /// Incremental issue: warps to re-evaluate at the next run.
    pub dirty: Vec<u32>,
    /// Incremental issue: (cycle, slot) at which a cached reason expires,
    /// earliest first (a min-heap: an expiry pops only what is due instead
    /// of walking every timer).
    pub reason_timers: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32)>>,
    /// Barrier-phase sums of the CTAs finished in the current launch
    /// (`barrier_stats.rs`; the GPU collects them at the launch's end).
    pub barrier_counters: crate::timing::barrier_stats::BarrierCounters,
    /// Records warps' states over time, when a timeline is asked for
    /// (`timeline.rs`; the SM then runs the full issue stage).
    pub timeline: Option<Box<crate::timing::timeline::TimelineRecorder>>,
    /// Waiting loads executed at issue this cycle (`--sync busy`), for the
    /// synchronization controller.
    pub wait_events: Vec<crate::timing::sm_sync::WaitSeen>,
    /// Removed from the kernel by an oversubscription event: takes no CTA.
    pub offline: bool,
    /// Linear ids of the CTAs retired by the last [`Sm::retire_ctas`].
    pub retired_wgs: Vec<u32>,
}

impl Sm {
    /// An empty SM.
    pub fn new(
        id: u32,
        cfg: &GpuConfig,
        policies: Vec<Box<dyn IssuePolicy>>,
        fetch_policy: Box<dyn FetchPolicy>,
    ) -> Sm {
        let nw = cfg.core.max_warps_per_sm as usize;
        let ns = cfg.core.schedulers_per_sm.max(1) as usize;
        let policies_track_incrementally = policies
            .iter()
            .all(|p| p.orders_every_warp() && !p.throttles());
        Sm {
            id,
            warps: vec![WarpSlot::default(); nw],
            issue_slots: (0..nw)
                .map(|i| IssueSlot::new(0, (i % ns) as u32))
                .collect(),
            charge_codes: vec![Stall::Fetch as u8; nw],
            views: vec![WarpView::default(); nw],
            ctas: (0..cfg.core.max_ctas_per_sm).map(|_| None).collect(),
            cta_barrier: vec![CtaBarrier::default(); cfg.core.max_ctas_per_sm as usize],
            detail: vec![WarpDetail::default(); nw],
            sched_warps: vec![(Vec::new(), Vec::new()); ns],
            throttles: policies.iter().map(|p| p.throttles()).collect(),
            wants_detail: policies.iter().map(|p| p.wants_detail()).collect(),
            policies,
            fetch_policy,
            sched_state: vec![Stall::Idle; ns],
            sched_activity: vec![1; ns],
            units: [
                UnitPool::new(cfg.core.sp_units),
                UnitPool::new(cfg.core.sfu_units),
                UnitPool::new(cfg.core.dp_units),
            ],
            opcoll: OperandCollector::new(cfg),
            ldst_free: 0,
            ldst_job: None,
            spare_job: None,
            mem_queue: std::collections::VecDeque::new(),
            spare_addrs: Vec::new(),
            mem_issue_free: 0,
            mem_queue_cap: cfg.opcoll.mem_queue as usize,
            local_map: Default::default(),
            local_reqs: Vec::new(),
            l1d_writebacks: Vec::new(),
            l1q: std::collections::VecDeque::new(),
            l1q_depth: cfg.l1d.latency_queue,
            l1q_stall: LdStStall::None,
            l1d_wait: L1dWait::None,
            l1q_loads: Vec::new(),
            l1_missq: std::collections::VecDeque::new(),
            l1_missq_cap: if cfg.l1d.latency_queue > 0 {
                cfg.l1d.miss_queue
            } else {
                0
            },
            l1d: if cfg.l1d.hash_sets {
                TagArray::with_fermi_hash(cfg.l1d.sets, cfg.l1d.ways, cfg.l1d.line)
            } else {
                TagArray::new(cfg.l1d.sets, cfg.l1d.ways)
            },
            l1t: (cfg.l1t.sets > 0)
                .then(|| Box::new(crate::timing::tex_cache::TexCache::new(&cfg.l1t))),
            tex_out: Vec::new(),
            l1c: (cfg.l1c.sets > 0 && cfg.l1c.line > 0)
                .then(|| Box::new(crate::timing::const_cache::ConstCache::new(&cfg.l1c))),
            const_drain_at: 0,
            const_lines: Vec::new(),
            mshrs: vec![Mshr::default(); cfg.l1d.mshrs.max(1) as usize],
            mshr_lines: vec![crate::timing::ldst::NO_LINE; cfg.l1d.mshrs.max(1) as usize],
            mshr_index: crate::timing::mshr_index::MshrIndex::new(cfg.l1d.mshrs.max(1) as usize),
            inflight: Vec::new(),
            icache: TagArray::new(cfg.icache.sets, cfg.icache.ways),
            icache_pending: Vec::new(),
            events: EventQueue::new(),
            next_dyn_id: 0,
            used: [0; 5],
            active: false,
            stats: SmStats::default(),
            order_buf: Vec::new(),
            cand_buf: Vec::new(),
            fetch_entries: Vec::new(),
            fetch_rank: Vec::new(),
            fetch_needs: vec![0; nw.div_ceil(64)],
            dyn_buf: DynInst::blank(),
            issue_log: None,
            ldst_stall: LdStStall::None,
            unaccounted: 0,
            ldst_unaccounted: 0,
            state_counts: [0; 10],
            ready_count: 0,
            last_run: 0,
            maybe_retire: false,
            pc_counters: Vec::new(),
            live_slots: Vec::new(),
            live_by_dyn_id: Vec::new(),
            progressed: false,
            warp_records: Vec::new(),
            warp_records_omitted: 0,
            changed: false,
            spare_ctas: Vec::new(),
            warp_pool: Vec::new(),
            shared_pool: Vec::new(),
            issue_dirty: true,
            issue_wake: 0,
            vta: crate::timing::victim_tags::VictimTags::new(
                nw,
                cfg.sched.vta_entries,
                cfg.sched.vta_ways,
            ),
            line_buf: Vec::new(),
            issue_run: 0,
            incremental: cfg.core.barrier_latency > 0 && policies_track_incrementally,
            redirects_pending: 0,
            fixed_counts: [0; 11],
            groups: vec![UnitGroup::default(); ns * UNITS],
            groups_nonempty: vec![0; ns],
            dirty: Vec::new(),
            reason_timers: Default::default(),
            barrier_counters: Default::default(),
            timeline: None,
            wait_events: Vec::new(),
            offline: false,
            retired_wgs: Vec::new(),
        }
    }

    /// Schedules an SM event.
    pub fn schedule(&mut self, at: u64, e: SmEvent) {
        self.events.push(at, e);
    }

    /// Runs one cycle of the SM's pipeline: writebacks and replies, issue,
    /// LD/ST, fetch. Global atomics arriving at L2 are performed by the
    /// GPU through [`Sm::perform_global_atomic`] before this.
    pub fn cycle(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        mem: &mut MemSys,
        global: &mut GlobalMemory,
        replies: &[Packet],
    ) -> Result<(), SimError> {
        for p in replies {
            self.on_reply(p, now, ctx);
        }
        if self.const_draining() {
            self.const_drain(now, ctx);
        }
        while let Some((_, e)) = self.events.pop_due(now) {
            self.active = true;
            match e {
                SmEvent::Writeback {
                    slot,
                    inst,
                    long,
                    atomic,
                } => {
                    self.issue_dirty = true;
                    self.mark_dirty(slot);
                    if long {
                        self.views[slot as usize].long_pending -= 1;
                    }
                    if atomic {
                        self.warps[slot as usize].atomics -= 1;
                    }
                    let w = &mut self.warps[slot as usize];
                    w.sb.release(&ctx.table[inst as usize].writes);
                    w.outstanding -= 1;
                    if w.done && w.outstanding == 0 {
                        self.maybe_retire = true;
                    }
                }
                SmEvent::RequestDone { id } => self.request_done(id, now, ctx),
            }
        }
        // The L1D latency queue's lookup, before issue (GPGPU-Sim's
        // `ldst_unit::cycle` runs before `shader_core_ctx::issue`).
        self.l1q_step(now, ctx, mem);
        // The issue stage's outcome depends only on state that changes
        // through the events that set `issue_dirty`, or at known cycles
        // (`issue_wake`); otherwise it would compute the same states again.
        // Debug builds check that skipping the stage skips nothing: every
        // warp is charged what a fresh look gives.
        #[cfg(debug_assertions)]
        if self.incremental && !self.issue_dirty && now < self.issue_wake {
            for s in 0..self.sched_warps.len() {
                self.check_incremental_states(s, now, ctx);
            }
        }
        if self.issue_dirty || now >= self.issue_wake {
            self.issue_dirty = false;
            let before = self.stats.warp_insts;
            self.issue(now, ctx, global)?;
            // After an issue the stage reruns next cycle anyway.
            self.issue_dirty = self.stats.warp_insts != before;
            self.issue_wake = if self.issue_dirty {
                now + 1
            } else {
                self.issue_wake_time(now)
            };
        }
        self.ldst_start_queued(now, ctx, global);
        self.ldst_step(now, ctx, mem);
        self.fetch(now, ctx, mem);
        Ok(())
    }

    /// Charges this cycle's states `cycles` times (1, or the length of an
    /// idle stretch being skipped). The charge is made by
    /// [`Sm::flush_account`], before the states next change (or at the
    /// end of the launch): an SM whose states stay the same does not touch
    /// its counters.
    pub fn account(&mut self, cycles: u64) {
        self.unaccounted += cycles;
        self.ldst_unaccounted += cycles;
    }

    /// Charges the cycles [`Sm::account`] collected to the current states.
    pub fn flush_account(&mut self) {
        let cycles = std::mem::take(&mut self.unaccounted);
        if cycles == 0 {
            return;
        }
        for &a in &self.sched_activity {
            let c = &mut self.stats.activity;
            match a {
                0 => c.issue += cycles,
                2 => c.throttled += cycles,
                _ => c.no_ready += cycles,
            }
        }
        for &s in &self.sched_state {
            self.stats.stalls.add(s, cycles);
        }
        for (i, &n) in self.state_counts.iter().enumerate() {
            if n > 0 {
                self.stats
                    .warp_states
                    .add(Stall::ALL[i], u64::from(n) * cycles);
            }
        }
        self.stats.warp_ready += u64::from(self.ready_count) * cycles;
        self.flush_ldst_account();
    }

    /// Charges the cycles [`Sm::account`] collected to the LD/ST unit's
    /// current stall only (before it changes; the other states keep
    /// collecting).
    pub fn flush_ldst_account(&mut self) {
        let cycles = std::mem::take(&mut self.ldst_unaccounted);
        match self.ldst_stall {
            LdStStall::None => {}
            LdStStall::Mshr => self.stats.l1d.mshr_full += cycles,
            LdStStall::Icnt => self.stats.l1d.icnt_stall += cycles,
            LdStStall::Tex => self.stats.tex_stall += cycles,
            LdStStall::Const => self.stats.l1c_stall += cycles,
        }
    }

    /// The earliest cycle after `now` at which a time-based condition of
    /// the issue stage changes. The incremental stage only needs the
    /// changes it tracks: a cached reason expiring (its timers) and a busy
    /// unit pool or the LD/ST unit freeing up (its group flags).
    pub fn issue_wake_time(&self, now: u64) -> u64 {
        if self.incremental {
            let mut next = self.next_reason_timer();
            for set in &self.opcoll.sets {
                if set.units.first_free > now {
                    next = next.min(set.units.first_free);
                }
            }
            if self.ldst_free > now {
                next = next.min(self.ldst_free);
            }
            debug_assert!(next > now);
            return next;
        }
        let mut next = u64::MAX;
        let mut at = |t: u64| {
            if t > now && t < next {
                next = t;
            }
        };
        self.warp_wakeups(now, &mut at);
        next
    }

    /// Feeds `at` every time at which a unit, the LD/ST unit or a live
    /// warp's I-buffer head, barrier release or sleep changes.
    fn warp_wakeups(&self, now: u64, at: &mut impl FnMut(u64)) {
        for p in &self.policies {
            if let Some(t) = p.next_change(now) {
                at(t);
            }
        }
        for set in &self.opcoll.sets {
            for &b in &set.units.busy_until {
                at(b);
            }
        }
        at(self.ldst_free);
        for &s in &self.live_slots {
            let w = &self.warps[s as usize];
            if w.done {
                continue;
            }
            if let Some(e) = w.ibuf.front() {
                at(e.ready);
            }
            at(w.barrier_release);
            at(w.sleep_until);
        }
    }

    /// The earliest cycle after `now` at which this SM's state can change
    /// by itself.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        let mut next: Option<u64> = None;
        let mut at = |t: u64| {
            if t > now {
                next = Some(next.map_or(t, |n: u64| n.min(t)));
            }
        };
        if let Some(t) = self.events.next_due() {
            at(t);
        }
        // A job blocked on MSHRs waits for a reply (which wakes the SM);
        // any other job proceeds (or retries the port) next cycle.
        // With the L1D latency queue the stall is the queue head's: a job
        // with room in the queue proceeds.
        if self.ldst_job.is_some()
            && (self.ldst_stall != LdStStall::Mshr || self.l1q.len() < self.l1q_depth as usize)
        {
            at(now + 1);
        }
        if let Some(t) = self.l1q_next(now) {
            at(t);
        }
        // The writeback stage drains the constant cache's ready requests.
        if self.const_draining() {
            at(self.const_drain_at.max(now + 1));
        }
        // The miss queue offers its oldest packet every cycle.
        if !self.l1_missq.is_empty() {
            at(now + 1);
        }
        // A queued memory instruction starts when the unit is idle.
        if self.ldst_job.is_none() && !self.mem_queue.is_empty() {
            at(self.ldst_free.max(now + 1));
        }
        // The issue stage's next time-based change: `issue_wake` is the
        // earliest of `warp_wakeups` after the stage last ran, lowered by
        // every fetch since, and nothing else changes those times without
        // an issue (after which the stage reruns next cycle).
        if self.issue_dirty {
            at(now + 1);
        }
        #[cfg(debug_assertions)]
        if !self.issue_dirty && !self.incremental {
            let mut exact = u64::MAX;
            self.warp_wakeups(now, &mut |t| {
                if t > now {
                    exact = exact.min(t);
                }
            });
            debug_assert!(
                self.issue_wake > now && self.issue_wake <= exact,
                "SM {} at {now}: issue_wake {} misses a wakeup at {exact}",
                self.id,
                self.issue_wake
            );
        }
        at(self.issue_wake);
        next
    }
}
