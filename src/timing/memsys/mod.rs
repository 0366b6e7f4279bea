//! The memory system below the SMs: the interconnect (one port per SM for
//! requests, one per L2 slice for replies), the L2 slices and the DRAM
//! channels ([`crate::timing::dram`]); GPGPU-Sim's address mapping
//! ([`crate::timing::addrdec`]) picks a line's slice and channel.
//!
//! Timing of one read that misses everywhere, sent at cycle `t` (no
//! contention): it leaves the SM port after its serialization
//! `⌈flits/flits_per_cycle⌉`, flies `icnt.latency`, waits `l2.latency` in
//! the slice (ROP), misses, goes through its DRAM channel (latency queue,
//! scheduler, bank commands at the DRAM clock), is serialized out of the
//! slice port and flies back `icnt.latency`. Every step is deterministic:
//! queues are FIFO and ties break by sequence number.
//!
//! The slices' own work (lookups, fills, write-backs, sector misses, the
//! miss queue towards DRAM) is in `l2_slice`; the unit tests in `tests`.

use rustc_hash::FxHashMap;
use std::collections::VecDeque;

use serde::Serialize;

use crate::config::GpuConfig;
use crate::timing::cache::{Evicted, TagArray};
use crate::timing::coalescer::VectorShape;
use crate::timing::crossbar::Crossbar;
use crate::timing::dram::{Dram, DramRequest};
use crate::timing::event_queue::EventQueue;

mod l2_slice;

/// What a packet asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PacketKind {
    /// A data-line read (L1D miss).
    Read,
    /// A write-through store (no reply).
    Write,
    /// A global atomic: its read-modify-write is performed on arrival at
    /// the L2 slice; the reply releases the destination register.
    Atomic,
    /// An instruction-line read (I-cache miss).
    Fetch,
}

/// A request travelling from an SM to an L2 slice (and its reply back).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Packet {
    /// Kind.
    pub kind: PacketKind,
    /// Requesting SM.
    pub sm: u32,
    /// Byte address of the accessed line.
    pub addr: u64,
    /// Payload bytes of the request (written data, atomic operands).
    pub req_bytes: u32,
    /// Payload bytes of the reply (read data, atomic results).
    pub reply_bytes: u32,
    /// Which 32nds of the line it writes or reads (bit *i*: bytes
    /// [*i* × line/32, (*i* + 1) × line/32), as
    /// [`LineRequest::chunks`](crate::timing::coalescer::LineRequest));
    /// the L2 turns them into sectors. Reads of a whole line: all bits.
    pub chunks: u32,
    /// SM-side identifier (MSHR, in-flight instruction, warp slot).
    pub tag: u32,
    /// For atomics: perform the warp's pending read-modify-write on
    /// arrival (set on the first packet of an atomic instruction).
    pub perform: bool,
    /// For a vector store: each lane's vector and element size (the L2's
    /// partial-write tracking under `l2.vector_store_first_element`);
    /// otherwise [`VectorShape::SCALAR`].
    pub vector: VectorShape,
}

// Packets are copied through every queue of the memory system: the
// vector shape fits in the padding after `kind` and `perform`.
const _: () = assert!(std::mem::size_of::<Packet>() <= 32);

/// A port: serializes packets at `flits_per_cycle`.
#[derive(Clone, Debug, Default)]
struct Port {
    free_at: u64,
    /// Start cycles of packets not yet started (FIFO).
    starts: VecDeque<u64>,
}

impl Port {
    /// Queues a packet of `cycles` serialization at `now`; returns the
    /// cycle it has left the port.
    fn send(&mut self, now: u64, cycles: u64) -> u64 {
        let start = now.max(self.free_at);
        self.free_at = start + cycles;
        if start > now {
            self.starts.push_back(start);
        }
        start + cycles
    }

    /// Packets queued but not yet started at `now`.
    fn waiting(&mut self, now: u64) -> usize {
        while self.starts.front().is_some_and(|&s| s <= now) {
            self.starts.pop_front();
        }
        self.starts.len()
    }
}

/// An L2 line with sectors on their way from DRAM.
#[derive(Clone, Debug)]
struct L2Miss {
    /// The line (its address within the slice / line size).
    line: u64,
    /// Packets waiting for it.
    waiters: Vec<Packet>,
    /// Sectors requested from DRAM.
    pending: u32,
    /// Sectors arrived.
    arrived: u32,
    /// Per sector: the sector requests its miss holds, the one that sent
    /// it included (`l2.mshr_merge` bounds them).
    merges: [u8; 32],
}

/// A slice's ejection side of the request crossbar.
#[derive(Clone, Debug, Default)]
struct Ejection {
    /// Packets granted to the slice, in grant order (which is arrival
    /// order): (arrival cycle, packet, line, flits); those not arrived yet
    /// are in flight.
    queue: VecDeque<(u64, Packet, u64, u32)>,
    /// Flits granted and not yet let into the L2.
    flits: u32,
}

/// The L2 sector accesses of a packet of `kind` touching sectors `need`:
/// one for an atomic, else one per sector (at least one).
fn accesses_of(kind: PacketKind, need: u32) -> u32 {
    match kind {
        PacketKind::Atomic => 1,
        _ => need.count_ones().max(1),
    }
}

/// A request in a slice's ROP stage or input queue.
#[derive(Clone, Copy, Debug)]
struct RopEntry {
    /// The cycle its ROP delay ends.
    ready: u64,
    packet: Packet,
    /// Its line's tag in the slice.
    line: u64,
    /// The L2 sectors it reads or writes ([`MemSys::sectors_of`]).
    need: u32,
    /// Its sector accesses ([`accesses_of`]).
    accesses: u32,
}

#[derive(Clone, Debug)]
struct Slice {
    tags: TagArray,
    /// Requests waiting for their tag lookup, in order.
    rop: VecDeque<RopEntry>,
    /// The first `rop_ready` entries of `rop` have passed the ROP delay;
    /// `rop_ready_accesses` are their sector accesses (the input queue's
    /// occupancy, with the request crossbar).
    rop_ready: usize,
    rop_ready_accesses: u64,
    /// With `l2.rop_transfer`: sector accesses moved from the ROP stage
    /// into the input queue and looked up, both since the start, and the
    /// cycle `moved` was brought up to date (the queue holds
    /// `moved - looked`).
    moved: u64,
    looked: u64,
    /// With `l2.rop_transfer`: the `rop` entry whose sectors move next,
    /// how many of them have moved, and the first cycle the next may.
    unmoved_idx: usize,
    unmoved_part: u64,
    move_free: u64,
    /// Tests: the cycles packets entered `rop`.
    #[cfg(test)]
    entered: Vec<u64>,
    /// Earliest cycle of the next tag lookup (one per cycle).
    next_lookup: u64,
    /// Outstanding DRAM reads, one per L2 line: a slab (entries named in
    /// `mshr_of` are live, the others listed in `mshr_free`, their emptied
    /// waiter lists kept for the next miss: no allocation per miss).
    mshr: Vec<L2Miss>,
    /// The live entries of `mshr` by line (only looked up, never iterated).
    mshr_of: FxHashMap<u64, u32>,
    /// Free entries of `mshr`.
    mshr_free: Vec<u32>,
    /// With `l2.miss_queue`: DRAM requests (sector reads, write-backs)
    /// waiting to enter the channel's queue from this slice, with the
    /// first cycle each may, one per cycle (GPGPU-Sim's L2 `m_miss_queue`
    /// drained by `baseline_cache::cycle`).
    missq: VecDeque<(u64, DramRequest)>,
    port: Port,
}

/// Counters of the memory system (see the README for each field).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemStats {
    /// L2 tag lookups (reads, writes, atomics, instruction fetches).
    pub l2_accesses: u64,
    /// Lookups that hit.
    pub l2_hits: u64,
    /// Lookups that missed (merged misses included).
    pub l2_misses: u64,
    /// Of the misses, sector accesses that found their sector already on
    /// its way from DRAM: a read joining the pending miss, a store into
    /// it (GPGPU-Sim's `HIT_RESERVED`, which its L2 miss count leaves
    /// out).
    pub l2_pending_hits: u64,
    /// Dirty L2 lines written back to DRAM.
    pub l2_writebacks: u64,
    /// DRAM read column commands (GPGPU-Sim's `gpgpu_n_dram_reads`: one
    /// per `burst_length × bus_width × chips` bytes read).
    pub dram_reads: u64,
    /// DRAM write column commands (GPGPU-Sim's `gpgpu_n_dram_writes`).
    pub dram_writes: u64,
    /// DRAM activates.
    pub dram_activates: u64,
    /// DRAM precharges.
    pub dram_precharges: u64,
    /// Bytes requested from DRAM (reads and writes).
    pub dram_bytes: u64,
    /// DRAM clocks the data buses were transferring, summed over channels.
    pub dram_busy_cycles: u64,
    /// Slice-cycles a lookup waited because its DRAM queue was full.
    pub dram_full: u64,
    /// Slice-cycles a lookup waited because a sector miss it would join
    /// already held `l2.mshr_merge` requests (GPGPU-Sim's
    /// `MSHR_MERGE_ENRTY_FAIL`).
    pub merge_full: u64,
    /// Slice-cycles a lookup, or a sector of one, waited for room in the
    /// slice's miss queue (`l2.miss_queue`; GPGPU-Sim's
    /// `MISS_QUEUE_FULL`).
    pub miss_queue_full: u64,
    /// Slice-cycles a lookup waited because the slice's reply buffer
    /// (`icnt.reply_buffer` packets) was full (GPGPU-Sim's
    /// `gpu_stall_icnt2sh`, per slice-cycle).
    pub reply_full: u64,
    /// Packets sent SM → L2.
    pub icnt_requests: u64,
    /// Packets sent L2 → SM.
    pub icnt_replies: u64,
    /// Flits sent in both directions.
    pub icnt_flits: u64,
    /// Global atomics performed at L2.
    pub atomics: u64,
}

impl MemStats {
    /// The counts since snapshot `before` (taken from the same counters).
    pub fn since(&self, before: &MemStats) -> MemStats {
        MemStats {
            l2_accesses: self.l2_accesses - before.l2_accesses,
            l2_hits: self.l2_hits - before.l2_hits,
            l2_misses: self.l2_misses - before.l2_misses,
            l2_pending_hits: self.l2_pending_hits - before.l2_pending_hits,
            l2_writebacks: self.l2_writebacks - before.l2_writebacks,
            dram_reads: self.dram_reads - before.dram_reads,
            dram_writes: self.dram_writes - before.dram_writes,
            dram_activates: self.dram_activates - before.dram_activates,
            dram_precharges: self.dram_precharges - before.dram_precharges,
            dram_bytes: self.dram_bytes - before.dram_bytes,
            dram_busy_cycles: self.dram_busy_cycles - before.dram_busy_cycles,
            dram_full: self.dram_full - before.dram_full,
            merge_full: self.merge_full - before.merge_full,
            miss_queue_full: self.miss_queue_full - before.miss_queue_full,
            reply_full: self.reply_full - before.reply_full,
            icnt_requests: self.icnt_requests - before.icnt_requests,
            icnt_replies: self.icnt_replies - before.icnt_replies,
            icnt_flits: self.icnt_flits - before.icnt_flits,
            atomics: self.atomics - before.atomics,
        }
    }
}

/// The interconnect, L2 slices and DRAM channels.
#[derive(Debug)]
pub struct MemSys {
    /// Collect write packets arriving at the slices in `arrived_writes`
    /// (the SyncMon watches them).
    pub observe_writes: bool,
    /// Write packets that reached their slice since the GPU last looked.
    pub arrived_writes: Vec<Packet>,
    icnt_latency: u64,
    flit_bytes: u32,
    flits_per_cycle: u32,
    header: u32,
    queue: usize,
    l2_line: u64,
    l2_latency: u64,
    /// Bytes per L2 sector and sectors per line.
    sector_bytes: u64,
    sectors: u32,
    /// Bytes per bit of a packet's `chunks` (an L1D line / 32).
    chunk_bytes: u64,
    sm_ports: Vec<Port>,
    /// Per SM: the cycle its ejection port has delivered the last reply
    /// routed to it (replies are serialized there too, flit by flit).
    sm_eject_free: Vec<u64>,
    /// Per slice: the cycle its input port has taken in the last request
    /// routed to it.
    slice_in_free: Vec<u64>,
    /// Per slice: the cycle by which it will have looked up every sector
    /// access accepted so far, one per cycle after the ROP delay (an eager
    /// estimate that ignores DRAM back-pressure).
    slice_busy: Vec<u64>,
    /// Sector accesses a slice's input queue holds past the ROP delay.
    l2_input_queue: u64,
    /// `l2.rop_transfer`.
    rop_transfer: bool,
    /// `l2.allocate_on_miss`.
    l2_allocate_on_miss: bool,
    /// `l2.lru_at_access` (with `l2.allocate_on_miss`).
    l2_lru_at_access: bool,
    /// `l2.partial_write_miss`.
    l2_partial_write_miss: bool,
    /// `l2.vector_store_first_element`: a vector store's lanes count only
    /// their first element as written.
    l2_vector_first_element: bool,
    /// `l2.half_line_alias`.
    l2_half_line_alias: bool,
    /// `l2.mshr_merge` (0: unbounded).
    l2_mshr_merge: u32,
    /// `l2.miss_queue` (0: requests go straight to the DRAM queue).
    l2_missq_cap: usize,
    /// Slices whose miss queue holds a request (the drain visits the
    /// slices only while there are any).
    missq_busy: u32,
    /// Scratch of a lookup with the miss queue: each sector's access
    /// cycle ([`MemSys::plan_sector_accesses`]).
    sector_at: [u64; 32],
    /// The first cycle at which what [`MemSys::send_dram`] sends may
    /// leave its miss queue: the cycle after the sector access that sent
    /// it.
    send_at: u64,
    /// `l1d.store_transactions`: a write of a whole L2 line's payload
    /// accesses all its sectors.
    store_transactions: bool,
    /// Bytes per cycle a slice reads out for a write-back (0: free).
    l2_data_port: u64,
    /// Per SM port: the start cycle of its oldest packet not yet started
    /// (`u64::MAX` if none), dense for `next_event`.
    port_next_start: Vec<u64>,
    /// Packets in flight to the slices, by arrival cycle, with their
    /// slice and line within it (decoded once, at injection).
    to_l2: EventQueue<(Packet, u32, u64), 8>,
    /// Replies in flight to the SMs, by arrival cycle.
    to_sm: EventQueue<Packet, 8>,
    slices: Vec<Slice>,
    /// Per slice: the cycle its next tag lookup may happen (`u64::MAX`
    /// with nothing queued), kept dense so a cycle visits only due slices.
    lookup_due: Vec<u64>,
    dram: Dram,
    /// The reply crossbar (`icnt.reply_crossbar`), else `None`: replies
    /// leave through the slices' ports.
    crossbar: Option<Crossbar<Packet>>,
    /// The reply crossbar grants nothing before this cycle (a grant or a
    /// new reply resets it).
    reply_wake: u64,
    /// The request crossbar (`icnt.request_crossbar`), else `None`:
    /// requests leave through the SMs' ports and wait by the estimate
    /// `slice_busy`. Items: the packet, its slice, its line there.
    req_crossbar: Option<Crossbar<(Packet, u32, u64)>>,
    /// With the request crossbar: requests in their L1D pipeline, by the
    /// cycle they join their SM's crossbar input (so an atomic, which
    /// bypasses the pipeline, can go before an earlier load).
    to_xbar: EventQueue<(Packet, u32, u64), 1>,
    /// Per SM: flits of its requests in `to_xbar`.
    pending_flits: Vec<u32>,
    /// The request crossbar grants nothing before this cycle (a grant,
    /// a new packet or an ejection buffer's room resets it).
    xbar_wake: u64,
    /// Per slice: its ejection buffer lets nothing into the L2 before this
    /// cycle (its head's arrival; `u64::MAX` while its input queue is too
    /// full, until a lookup).
    eject_wake: Vec<u64>,
    /// Per slice: packets through the request crossbar, waiting (or still
    /// in flight) to enter the L2, with their flits.
    eject: Vec<Ejection>,
    /// Flits a slice's ejection buffer holds.
    eject_capacity: u32,
    /// Scratch: the request crossbar's grants of one cycle, with the cycle
    /// each has left its SM.
    req_granted: Vec<((Packet, u32, u64), u64)>,
    /// Slices blocked on a full DRAM queue in the current cycle.
    blocked_now: u64,
    /// Slices blocked on a full reply buffer in the current cycle.
    reply_blocked_now: u64,
    /// Slices blocked on a full sector miss in the current cycle.
    merge_blocked_now: u64,
    /// Slices blocked on a full miss queue in the current cycle.
    missq_blocked_now: u64,
    /// Nothing can happen before this cycle (fast path of `cycle`).
    next_due: u64,
    /// Tests: every request sent to the DRAM, in order.
    #[cfg(test)]
    sent_dram: Vec<DramRequest>,
    /// Tests, with `l2.miss_queue`: the cycle each request left its miss
    /// queue for the DRAM queue, in order.
    #[cfg(test)]
    entered_dram: Vec<(u64, DramRequest)>,
    /// Counters.
    pub stats: MemStats,
}

impl MemSys {
    /// An idle memory system for `cfg`.
    pub fn new(cfg: &GpuConfig) -> MemSys {
        let slices = cfg.l2.slices.max(1);
        MemSys {
            observe_writes: false,
            arrived_writes: Vec::new(),
            icnt_latency: u64::from(cfg.icnt.latency),
            flit_bytes: cfg.icnt.flit_bytes.max(1),
            flits_per_cycle: cfg.icnt.flits_per_cycle.max(1),
            header: cfg.icnt.header_bytes,
            queue: cfg.icnt.queue.max(1) as usize,
            l2_line: u64::from(cfg.l2.line.max(1)),
            l2_latency: u64::from(cfg.l2.latency),
            sector_bytes: u64::from(cfg.l2.sector_bytes.clamp(1, cfg.l2.line.max(1))),
            sectors: (cfg.l2.line.max(1) / cfg.l2.sector_bytes.clamp(1, cfg.l2.line.max(1)))
                .clamp(1, 32),
            chunk_bytes: u64::from((cfg.l1d.line / 32).max(1)),
            sm_ports: vec![Port::default(); cfg.core.num_sms.max(1) as usize],
            port_next_start: vec![u64::MAX; cfg.core.num_sms.max(1) as usize],
            sm_eject_free: vec![0; cfg.core.num_sms.max(1) as usize],
            slice_in_free: vec![0; slices as usize],
            slice_busy: vec![0; slices as usize],
            l2_input_queue: u64::from(cfg.l2.input_queue.max(1)),
            rop_transfer: cfg.l2.rop_transfer,
            l2_allocate_on_miss: cfg.l2.allocate_on_miss,
            l2_lru_at_access: cfg.l2.allocate_on_miss && cfg.l2.lru_at_access,
            l2_partial_write_miss: cfg.l2.partial_write_miss,
            l2_vector_first_element: cfg.l2.vector_store_first_element,
            l2_half_line_alias: cfg.l2.half_line_alias,
            l2_mshr_merge: cfg.l2.mshr_merge,
            l2_missq_cap: cfg.l2.miss_queue as usize,
            missq_busy: 0,
            sector_at: [0; 32],
            send_at: 0,
            store_transactions: cfg.l1d.store_transactions,
            l2_data_port: u64::from(cfg.l2.data_port_width),
            to_l2: EventQueue::new(),
            to_sm: EventQueue::new(),
            lookup_due: vec![u64::MAX; slices as usize],
            slices: (0..slices)
                .map(|_| Slice {
                    tags: TagArray::new(cfg.l2.sets, cfg.l2.ways),
                    rop: VecDeque::new(),
                    rop_ready: 0,
                    rop_ready_accesses: 0,
                    moved: 0,
                    looked: 0,
                    unmoved_idx: 0,
                    unmoved_part: 0,
                    move_free: 0,
                    #[cfg(test)]
                    entered: Vec::new(),
                    next_lookup: 0,
                    mshr: Vec::new(),
                    mshr_of: FxHashMap::default(),
                    mshr_free: Vec::new(),
                    missq: VecDeque::new(),
                    port: Port::default(),
                })
                .collect(),
            dram: Dram::new(cfg),
            crossbar: cfg.icnt.reply_crossbar.then(|| {
                Crossbar::new(
                    slices as usize,
                    cfg.core.num_sms.max(1) as usize,
                    cfg.icnt.reply_buffer,
                )
            }),
            reply_wake: 0,
            req_crossbar: cfg.icnt.request_crossbar.then(|| {
                Crossbar::new(
                    cfg.core.num_sms.max(1) as usize,
                    slices as usize,
                    cfg.icnt.request_buffer.max(1),
                )
            }),
            eject: vec![Ejection::default(); slices as usize],
            to_xbar: EventQueue::new(),
            pending_flits: vec![0; cfg.core.num_sms.max(1) as usize],
            xbar_wake: 0,
            eject_wake: vec![u64::MAX; slices as usize],
            eject_capacity: cfg.icnt.eject_buffer.max(1),
            req_granted: Vec::new(),
            blocked_now: 0,
            reply_blocked_now: 0,
            merge_blocked_now: 0,
            missq_blocked_now: 0,
            next_due: 0,
            #[cfg(test)]
            sent_dram: Vec::new(),
            #[cfg(test)]
            entered_dram: Vec::new(),
            stats: MemStats::default(),
        }
    }

    /// Serialization cycles of a packet with `payload` bytes.
    pub fn packet_cycles(&self, payload: u32) -> u64 {
        let flits = (self.header + payload).div_ceil(self.flit_bytes).max(1);
        u64::from(flits.div_ceil(self.flits_per_cycle))
    }

    fn flits(&self, payload: u32) -> u64 {
        u64::from((self.header + payload).div_ceil(self.flit_bytes).max(1))
    }

    /// True if SM `sm`'s injection port accepts a packet at `now` (fewer
    /// than `icnt.queue` packets waiting to start).
    /// With the request crossbar: true if the SM's crossbar input has room
    /// for a packet of `req_bytes` payload.
    pub fn can_inject(&mut self, sm: u32, now: u64, req_bytes: u32) -> bool {
        if let Some(x) = &self.req_crossbar {
            let flits = self.flits(req_bytes) as u32;
            return x.has_room(sm as usize, self.pending_flits[sm as usize], flits);
        }
        let q = self.queue;
        let p = &mut self.sm_ports[sm as usize];
        let waiting = p.waiting(now);
        self.port_next_start[sm as usize] = p.starts.front().copied().unwrap_or(u64::MAX);
        waiting < q
    }

    /// Sends `p` from its SM at `now`; it reaches its L2 slice `delay`
    /// cycles later than the interconnect alone would take (the L1D
    /// pipeline in front of the port: `l1d.miss_latency` for missing
    /// loads and stores, 0 for atomics and instruction fetches).
    pub fn inject(&mut self, now: u64, delay: u64, p: Packet) {
        let cycles = self.packet_cycles(p.req_bytes);
        self.stats.icnt_requests += 1;
        self.stats.icnt_flits += self.flits(p.req_bytes);
        if self.req_crossbar.is_some() {
            let (s, line) = self.slice_of(p.addr);
            // The memory system has run this cycle: the packet joins its
            // SM's crossbar input from the next one, after its pipeline.
            let due = now + 1 + delay;
            self.pending_flits[p.sm as usize] += self.flits(p.req_bytes) as u32;
            self.to_xbar.push(due, (p, s as u32, line));
            self.next_due = self.next_due.min(due);
            return;
        }
        let port = &mut self.sm_ports[p.sm as usize];
        let left = port.send(now, cycles);
        self.port_next_start[p.sm as usize] = port.starts.front().copied().unwrap_or(u64::MAX);
        // The slice's input port takes the packet's flits one cycle's
        // worth at a time, after those of earlier packets.
        let (s, line) = self.slice_of(p.addr);
        let mut arrive = (left + self.icnt_latency + delay).max(self.slice_in_free[s] + cycles);
        // The slice takes the packet only when its input queue will have
        // room for the packet's sector accesses by the time they leave the
        // ROP stage; until then the packet waits in the interconnect and
        // holds up its SM's port (head-of-line blocking).
        let accesses = u64::from(accesses_of(p.kind, self.sectors_of(&p)));
        let room = self.l2_input_queue.saturating_sub(accesses);
        let ready = arrive + self.l2_latency;
        if self.slice_busy[s] > ready + room {
            let held = self.slice_busy[s] - room - ready;
            arrive += held;
            let port = &mut self.sm_ports[p.sm as usize];
            port.free_at = port
                .free_at
                .max(arrive.saturating_sub(self.icnt_latency + delay));
        }
        self.slice_busy[s] = self.slice_busy[s].max(arrive + self.l2_latency) + accesses;
        self.slice_in_free[s] = arrive;
        self.next_due = self.next_due.min(arrive);
        self.to_l2.push(arrive, (p, s as u32, line));
    }

    /// The slice of a byte address and the line's address within it (its
    /// tag in the slice).
    fn slice_of(&self, addr: u64) -> (usize, u64) {
        let (slice, local) = self.dram.map().slice_local(addr);
        (
            (slice as usize).min(self.slices.len() - 1),
            local / self.l2_line,
        )
    }

    fn reply(&mut self, now: u64, slice: usize, p: Packet) {
        if self.crossbar.is_some() {
            // One packet per sector the reply returns or acknowledges
            // (GPGPU-Sim splits line requests into sector requests at the
            // L2, each answered alone); an atomic's reply is one packet.
            let parts = match p.kind {
                PacketKind::Atomic => 1,
                _ => self.sectors_of(&p).count_ones().max(1),
            };
            let payload = p.reply_bytes.div_ceil(parts);
            let cycles = self.packet_cycles(payload);
            self.stats.icnt_replies += u64::from(parts);
            self.stats.icnt_flits += u64::from(parts) * self.flits(payload);
            if let Some(x) = self.crossbar.as_mut() {
                x.push(slice, p.sm, p, parts, cycles);
            }
            self.reply_wake = self.reply_wake.min(now);
            return;
        }
        let cycles = self.packet_cycles(p.reply_bytes);
        self.stats.icnt_replies += 1;
        self.stats.icnt_flits += self.flits(p.reply_bytes);
        let left = self.slices[slice].port.send(now, cycles);
        // The SM's ejection port delivers replies flit by flit, after
        // those of earlier replies to the same SM.
        let e = &mut self.sm_eject_free[p.sm as usize];
        let arrive = (left + self.icnt_latency).max(*e + cycles);
        *e = arrive;
        self.to_sm.push(arrive, p);
    }

    /// Advances to cycle `now`: delivers arrivals, performs lookups and
    /// DRAM accesses. Atomics arriving at L2 are appended to `atomics`
    /// (the caller performs their read-modify-write now); replies reaching
    /// SMs to `replies`. Returns true if anything happened.
    pub fn cycle(
        &mut self,
        now: u64,
        atomics: &mut Vec<Packet>,
        replies: &mut Vec<Packet>,
    ) -> bool {
        self.blocked_now = 0;
        self.reply_blocked_now = 0;
        self.merge_blocked_now = 0;
        self.missq_blocked_now = 0;
        if now < self.next_due {
            return false;
        }
        let active = self.step(now, atomics, replies);
        // After an active cycle the GPU comes back next cycle anyway: look
        // then (a step with nothing due does nothing) instead of searching
        // for the next due item now.
        self.next_due = if active {
            now + 1
        } else {
            self.next_event(now).unwrap_or(u64::MAX)
        };
        active
    }

    fn step(&mut self, now: u64, atomics: &mut Vec<Packet>, replies: &mut Vec<Packet>) -> bool {
        self.send_at = now + 1;
        let mut active = self.request_arbitration(now);
        active |= self.slice_arrivals(now, atomics);
        active |= self.dram_returns(now);
        active |= self.reply_arbitration(now);
        active |= self.lookups(now);
        // 5. Replies reaching SMs.
        while let Some((_, p)) = self.to_sm.pop_due(now) {
            active = true;
            replies.push(p);
        }
        active
    }

    /// A cycle's requests leaving their L1D pipeline and the request
    /// crossbar's arbitration (step 0).
    fn request_arbitration(&mut self, now: u64) -> bool {
        let mut active = false;
        // 0. Requests through their L1D pipeline join their SM's crossbar
        //    input; the request crossbar's arbitration: a slice takes a
        //    head packet when its ejection buffer has room for its flits.
        while let Some((_, (p, s, line))) = self.to_xbar.pop_due(now) {
            active = true;
            let flits = self.flits(p.req_bytes) as u32;
            self.pending_flits[p.sm as usize] -= flits;
            let cycles = self.packet_cycles(p.req_bytes);
            let x = self.req_crossbar.as_mut().expect("to_xbar is used with it");
            x.push_weighted(p.sm as usize, s, (p, s, line), 1, cycles, flits);
            self.xbar_wake = now;
        }
        if self.xbar_wake <= now
            && let Some(x) = self.req_crossbar.as_mut()
            && !x.is_empty()
        {
            let (eject, cap) = (&self.eject, self.eject_capacity);
            let granted = &mut self.req_granted;
            let any = x.step_gated(
                now,
                // Room for the packet, or an empty buffer (its flits
                // stream through one larger than the buffer).
                |o, flits| eject[o].flits == 0 || eject[o].flits + flits <= cap,
                |item, done| granted.push((item, done)),
            );
            self.xbar_wake = if any { now + 1 } else { x.next_grant_at(now) };
            active |= any;
            // A granted packet flies `icnt.latency` cycles into its
            // slice's ejection buffer (in grant order: a slice takes one
            // packet at a time, so arrivals there are in order too).
            let mut granted = std::mem::take(&mut self.req_granted);
            for ((p, s, line), done) in granted.drain(..) {
                let f = self.flits(p.req_bytes) as u32;
                let at = done + self.icnt_latency;
                let e = &mut self.eject[s as usize];
                e.flits += f;
                e.queue.push_back((at, p, line, f));
                self.eject_wake[s as usize] = self.eject_wake[s as usize].min(at);
            }
            self.req_granted = granted;
        }
        active
    }

    /// Packets entering the slices' ROP stage: arrivals of the
    /// injection-time estimate, or the ejection buffers' heads (step 1).
    fn slice_arrivals(&mut self, now: u64, atomics: &mut Vec<Packet>) -> bool {
        let mut active = false;
        // 1. Arrivals at the slices (with the request crossbar: at their
        //    ejection buffers, which let one packet per cycle into the L2
        //    while its input queue has room for a line's sectors).
        while let Some((at, (p, s, line))) = self.to_l2.pop_due(now) {
            active = true;
            self.enter_rop(at, p, s as usize, line, atomics);
        }
        if self.req_crossbar.is_some() {
            let limit = self.l2_input_queue.saturating_sub(u64::from(self.sectors));
            for s in 0..self.slices.len() {
                if self.eject_wake[s] > now {
                    continue;
                }
                let Some(&(at, p, line, flits)) = self.eject[s].queue.front() else {
                    self.eject_wake[s] = u64::MAX;
                    continue;
                };
                if at > now {
                    self.eject_wake[s] = at;
                    continue;
                }
                self.count_rop_ready(s, now);
                let held = if self.rop_transfer {
                    self.update_moved(s, now);
                    self.slices[s].moved - self.slices[s].looked
                } else {
                    self.slices[s].rop_ready_accesses
                };
                if held > limit {
                    // Until a lookup makes room.
                    self.eject_wake[s] = u64::MAX;
                    continue;
                }
                active = true;
                self.eject[s].queue.pop_front();
                self.eject[s].flits -= flits;
                self.eject_wake[s] = now + 1;
                // The crossbar may grant this slice again.
                self.xbar_wake = self.xbar_wake.min(now + 1);
                self.enter_rop(now, p, s, line, atomics);
            }
        }
        active
    }

    /// The reply crossbar's arbitration (step 3).
    fn reply_arbitration(&mut self, now: u64) -> bool {
        let mut active = false;
        // 3. The reply crossbar's arbitration (replies queued by earlier
        //    cycles' lookups and fills).
        //    Between grants it sleeps until an input and its head's
        //    output are both free.
        if self.reply_wake <= now
            && let Some(x) = self.crossbar.as_mut()
            && !x.is_empty()
        {
            let (eject, to_sm, latency) =
                (&mut self.sm_eject_free, &mut self.to_sm, self.icnt_latency);
            let any = x.step(now, |p, left| {
                // In order at the SM: a reply never overtakes an earlier
                // one to the same SM.
                let e = &mut eject[p.sm as usize];
                let arrive = (left + latency).max(*e + 1);
                *e = arrive;
                to_sm.push(arrive, p);
            });
            self.reply_wake = if any { now + 1 } else { x.next_grant_at(now) };
            active |= any;
        }
        active
    }

    /// Packet `p` enters slice `s`'s ROP delay at `at`.
    fn enter_rop(&mut self, at: u64, p: Packet, s: usize, line: u64, atomics: &mut Vec<Packet>) {
        if p.kind == PacketKind::Atomic && p.perform {
            self.stats.atomics += 1;
            atomics.push(p);
        }
        if self.observe_writes && p.kind == PacketKind::Write {
            self.arrived_writes.push(p);
        }
        let ready = at + self.l2_latency;
        let need = self.sectors_of(&p);
        let accesses = accesses_of(p.kind, need);
        self.slices[s].rop.push_back(RopEntry {
            ready,
            packet: p,
            line,
            need,
            accesses,
        });
        #[cfg(test)]
        self.slices[s].entered.push(at);
        self.refresh_lookup_due(s);
    }

    /// `l2.rop_transfer`: moves slice `s`'s sectors from the ROP stage
    /// into its input queue up to `now`, in order, one per cycle, each no
    /// earlier than its ROP delay ends, while the queue (`moved - looked`)
    /// has room; a full queue's next move waits for a lookup (every lookup
    /// and admission check brings the moves up to date first, so none
    /// happens in between).
    fn update_moved(&mut self, s: usize, now: u64) {
        let cap = self.l2_input_queue;
        loop {
            let sl = &self.slices[s];
            if sl.moved - sl.looked >= cap {
                // Full: the next move waits for a lookup.
                let sl = &mut self.slices[s];
                sl.move_free = sl.move_free.max(now);
                return;
            }
            let Some(&RopEntry {
                ready, accesses, ..
            }) = sl.rop.get(sl.unmoved_idx)
            else {
                return;
            };
            let t = ready.max(sl.move_free);
            if t > now {
                return;
            }
            let a = u64::from(accesses);
            let sl = &mut self.slices[s];
            sl.moved += 1;
            sl.unmoved_part += 1;
            sl.move_free = t + 1;
            if sl.unmoved_part >= a {
                sl.unmoved_idx += 1;
                sl.unmoved_part = 0;
            }
        }
    }

    /// Counts the entries of slice `s`'s ROP queue whose delay has ended by
    /// `now` into its input-queue occupancy.
    fn count_rop_ready(&mut self, s: usize, now: u64) {
        loop {
            let sl = &self.slices[s];
            let Some(&RopEntry {
                ready, accesses, ..
            }) = sl.rop.get(sl.rop_ready)
            else {
                return;
            };
            if ready > now {
                return;
            }
            let a = u64::from(accesses);
            let sl = &mut self.slices[s];
            sl.rop_ready += 1;
            sl.rop_ready_accesses += a;
        }
    }

    /// Recomputes slice `s`'s entry of `lookup_due` after its queue or its
    /// lookup slot changed.
    fn refresh_lookup_due(&mut self, s: usize) {
        let sl = &self.slices[s];
        self.lookup_due[s] = sl
            .rop
            .front()
            .map_or(u64::MAX, |e| e.ready.max(sl.next_lookup));
    }

    /// Adds this cycle's stall counts `cycles` times (idle skipping).
    pub fn account(&mut self, cycles: u64) {
        self.stats.dram_full += self.blocked_now * cycles;
        self.stats.reply_full += self.reply_blocked_now * cycles;
        self.stats.merge_full += self.merge_blocked_now * cycles;
        self.stats.miss_queue_full += self.missq_blocked_now * cycles;
    }

    /// The earliest cycle after the last [`MemSys::cycle`] at which
    /// something can happen (what [`MemSys::next_event`] gave then, lowered
    /// by every injection since).
    pub fn next_due(&self) -> Option<u64> {
        (self.next_due != u64::MAX).then_some(self.next_due)
    }

    /// The earliest cycle after `now` at which something can happen.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        let mut next: Option<u64> = None;
        let mut at = |t: u64| {
            if t > now {
                next = Some(next.map_or(t, |n: u64| n.min(t)));
            }
        };
        if let Some(t) = self.to_l2.next_due() {
            at(t);
        }
        if let Some(t) = self.to_xbar.next_due() {
            at(t.max(now + 1));
        }
        if let Some(t) = self.to_sm.next_due() {
            at(t);
        }
        for &due in &self.lookup_due {
            if due != u64::MAX {
                at(due.max(now + 1));
            }
        }
        if let Some(t) = self.dram.next_event(now) {
            at(t);
        }
        if self.crossbar.as_ref().is_some_and(|x| !x.is_empty()) && self.reply_wake != u64::MAX {
            at(self.reply_wake.max(now + 1));
        }
        if self.req_crossbar.as_ref().is_some_and(|x| !x.is_empty()) && self.xbar_wake != u64::MAX {
            at(self.xbar_wake.max(now + 1));
        }
        for &w in &self.eject_wake {
            if w != u64::MAX {
                at(w.max(now + 1));
            }
        }
        for &s in &self.port_next_start {
            if s != u64::MAX {
                at(s);
            }
        }
        next
    }

    /// True while any packet or DRAM access is in flight.
    pub fn busy(&self) -> bool {
        !self.to_l2.is_empty()
            || !self.to_xbar.is_empty()
            || !self.to_sm.is_empty()
            || self.crossbar.as_ref().is_some_and(|x| !x.is_empty())
            || self.req_crossbar.as_ref().is_some_and(|x| !x.is_empty())
            || self.eject.iter().any(|e| !e.queue.is_empty())
            || self
                .slices
                .iter()
                .any(|s| !s.rop.is_empty() || !s.mshr_of.is_empty())
            || self.missq_busy > 0
            || self.dram.busy()
    }
}

#[cfg(test)]
mod tests;
