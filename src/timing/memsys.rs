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

use rustc_hash::FxHashMap;
use std::collections::VecDeque;

use serde::Serialize;

use crate::config::GpuConfig;
use crate::timing::cache::{Evicted, TagArray};
use crate::timing::crossbar::Crossbar;
use crate::timing::dram::{Dram, DramRequest};
use crate::timing::event_queue::EventQueue;

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
}

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

    /// Fills slice `slice`'s line `line` (its address within the slice);
    /// a dirty victim is written back to DRAM. Returns the cycles the
    /// write-back holds the slice's data port (0 without one).
    fn fill_l2(&mut self, slice: usize, line: u64, valid: u32, dirty: u32) -> u64 {
        self.fill_l2_lru(slice, line, valid, dirty, true)
    }

    /// [`MemSys::fill_l2`]; `touch` false keeps a present line's LRU
    /// stamp (a fill from DRAM under `l2.lru_at_access`).
    fn fill_l2_lru(&mut self, slice: usize, line: u64, valid: u32, dirty: u32, touch: bool) -> u64 {
        let Some(e) = self.slices[slice]
            .tags
            .fill_sectors(line, 0, valid, dirty, touch)
        else {
            return 0;
        };
        self.write_back(slice, e)
    }

    /// Writes evicted line `e` of slice `slice` back to DRAM if it has
    /// dirty sectors; returns the cycles it holds the slice's data port.
    fn write_back(&mut self, slice: usize, e: Evicted) -> u64 {
        if e.dirty_sectors & self.all_sectors() == 0 {
            return 0;
        }
        // One write of the dirty sectors (GPGPU-Sim's modified size).
        self.stats.l2_writebacks += 1;
        let addr = self.dram.map().compose(slice as u32, e.line * self.l2_line);
        let dirty = (e.dirty_sectors & self.all_sectors()).count_ones();
        let bytes = u64::from(dirty) * self.sector_bytes;
        self.send_dram(DramRequest {
            addr,
            bytes: bytes as u32,
            write: true,
            slice: slice as u32,
            tag: e.line,
        });
        bytes.checked_div(self.l2_data_port).unwrap_or(0)
    }

    /// A write-back read `port` cycles out of slice `s`'s data array
    /// (GPGPU-Sim's `use_data_port` on a miss that evicts a dirty line):
    /// the slice's next lookup waits until the port is free, `port − 1`
    /// cycles after the cycle that took it (`from`: the lookup's end, or
    /// now for a fill), and so does the estimate of its input queue.
    fn hold_data_port(&mut self, s: usize, from: u64, port: u64) {
        if port <= 1 {
            return;
        }
        let extra = port - 1;
        let sl = &mut self.slices[s];
        sl.next_lookup = sl.next_lookup.max(from) + extra;
        self.slice_busy[s] = self.slice_busy[s].max(from) + extra;
        self.refresh_lookup_due(s);
    }

    /// A host-to-device copy of `len` bytes at `addr`: each 32-byte
    /// sector it covers becomes a valid, clean L2 sector, in address order,
    /// without any timing (GPGPU-Sim's `-gpgpu_perf_sim_memcpy 1`: the copy
    /// engine writes through the L2 tags). A line it evicts is dropped, as
    /// GPGPU-Sim's tag update drops it.
    pub fn host_copy(&mut self, addr: u64, len: u64) {
        if len == 0 {
            return;
        }
        let sector = self.sector_bytes.max(1);
        let end = addr + len;
        // One tag update per line, with the sectors the copy covers.
        let mut a = addr - addr % self.l2_line;
        while a < end {
            let (s, line) = self.slice_of(a);
            let lo = addr.max(a) - a;
            let hi = end.min(a + self.l2_line) - a;
            let first = lo / sector;
            let last = (hi - 1) / sector;
            let bits = ((1u64 << (last + 1)) - (1u64 << first)) as u32;
            self.slices[s].tags.fill_sectors(line, 0, bits, 0, true);
            a += self.l2_line;
        }
    }

    fn all_sectors(&self) -> u32 {
        if self.sectors >= 32 {
            u32::MAX
        } else {
            (1 << self.sectors) - 1
        }
    }

    /// The L2 sectors packet `p` reads or writes: all of the line for a
    /// whole-line read, else those its chunks fall in.
    fn sectors_of(&self, p: &Packet) -> u32 {
        if p.chunks == u32::MAX {
            return self.all_sectors();
        }
        if self.store_transactions
            && p.kind == PacketKind::Write
            && u64::from(p.req_bytes) >= self.l2_line
        {
            // A line-sized write transaction: every sector of the line
            // is an access (GPGPU-Sim's breakdown of a 128-byte request),
            // those it has no bytes of written with none.
            return self.all_sectors();
        }
        let off = p.addr % self.l2_line;
        let mut m = p.chunks;
        let mut out = 0;
        while m != 0 {
            let i = u64::from(m.trailing_zeros());
            m &= m - 1;
            let byte = off + i * self.chunk_bytes;
            out |= 1 << ((byte / self.sector_bytes).min(31));
        }
        out & self.all_sectors()
    }

    /// The 32nds of the L2 line packet `p` writes (a granule counts as
    /// written when any of its bytes is: granules of 4 bytes on 128-byte
    /// lines, so narrower stores count whole words).
    fn l2_granules_of(&self, p: &Packet) -> u32 {
        if p.chunks == u32::MAX {
            return u32::MAX;
        }
        let granule = (self.l2_line / 32).max(1);
        let off = p.addr % self.l2_line;
        let mut m = p.chunks;
        let mut out = 0u32;
        while m != 0 {
            let i = u64::from(m.trailing_zeros());
            m &= m - 1;
            let lo = off + i * self.chunk_bytes;
            let hi = (lo + self.chunk_bytes).min(self.l2_line);
            let mut b = lo - lo % granule;
            while b < hi {
                out |= 1 << (b / granule).min(31);
                b += granule;
            }
        }
        out
    }

    fn send_dram(&mut self, r: DramRequest) {
        #[cfg(test)]
        self.sent_dram.push(r);
        self.stats.dram_bytes += u64::from(r.bytes);
        if self.l2_missq_cap > 0 {
            // Into the slice's miss queue; it leaves from the next cycle.
            let at = self.send_at;
            let q = &mut self.slices[r.slice as usize].missq;
            if q.is_empty() {
                self.missq_busy += 1;
            }
            q.push_back((at, r));
        } else {
            self.dram.push(r);
        }
    }

    /// `l2.miss_queue`: the cycle after the last sector access of a
    /// lookup of slice `s` at `now` whose sectors `need` (one access per
    /// cycle, lowest first) include the non-hits `misses`, of which
    /// `fetch` queue a read (and the first miss a victim's write-back,
    /// with `victim_wb`); each sector's access cycle goes into
    /// `sector_at`. GPGPU-Sim looks each sector up in its own cycle, and
    /// a read that does not hit needs room for two requests in the miss
    /// queue (`miss_queue_full(1)`), a store that misses for one
    /// (`miss_queue_full(0)`): a sector without it waits, and so do the
    /// sectors after it, while the queue's head moves on, one per cycle.
    /// The first sector had room (the caller checked); the DRAM queue is
    /// taken to keep the room it has now. A later sector's waits count
    /// in `miss_queue_full` here.
    #[allow(clippy::too_many_arguments)]
    fn plan_sector_accesses(
        &mut self,
        s: usize,
        now: u64,
        need: u32,
        misses: u32,
        fetch: u32,
        write: bool,
        victim_wb: bool,
    ) -> u64 {
        let cap = self.l2_missq_cap;
        let wanted = usize::from(!write);
        let mut len = self.slices[s].missq.len();
        let mut wb = victim_wb;
        let mut t = now;
        let mut bits = need;
        let mut first = true;
        while bits != 0 {
            let sector = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if !first {
                t += 1;
                len = len.saturating_sub(1);
            }
            first = false;
            if misses >> sector & 1 == 1 {
                while len + wanted >= cap {
                    t += 1;
                    len -= 1;
                    self.stats.miss_queue_full += 1;
                }
                len += usize::from(fetch >> sector & 1 == 1) + usize::from(std::mem::take(&mut wb));
            }
            self.sector_at[sector] = t;
        }
        t + 1
    }

    /// `l2.miss_queue`: each slice's miss queue lets its head into the
    /// DRAM queue when that has room, one per cycle (before the cycle's
    /// lookups, as GPGPU-Sim's `m_L2cache->cycle()` runs before
    /// `access`). Returns true while any miss queue holds a request.
    fn drain_miss_queues(&mut self, now: u64) -> bool {
        if self.missq_busy == 0 {
            return false;
        }
        for s in 0..self.slices.len() {
            let q = &mut self.slices[s].missq;
            if let Some(&(at, r)) = q.front()
                && at <= now
                && self.dram.can_accept_n(s as u32, 1)
            {
                q.pop_front();
                if q.is_empty() {
                    self.missq_busy -= 1;
                }
                #[cfg(test)]
                self.entered_dram.push((now, r));
                self.dram.push(r);
            }
        }
        self.missq_busy > 0
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

    /// The DRAM clocks of this cycle and the reads whose data reached the
    /// L2: fills and their waiting packets' replies (step 2).
    fn dram_returns(&mut self, now: u64) -> bool {
        let mut active = false;
        // 2. DRAM clocks up to this cycle, then reads whose data has
        //    reached the L2.
        active |= self.dram.advance(now);
        let c = self.dram.counts;
        self.stats.dram_reads = c.reads;
        self.stats.dram_writes = c.writes;
        self.stats.dram_activates = c.activates;
        self.stats.dram_precharges = c.precharges;
        self.stats.dram_busy_cycles = c.bus_clocks;
        while let Some(r) = self.dram.pop_done(now) {
            active = true;
            let s = r.slice as usize;
            let line = r.tag >> 5;
            let sl = &mut self.slices[s];
            let pos = *sl.mshr_of.get(&line).expect("a DRAM read has its L2 MSHR") as usize;
            let m = &mut sl.mshr[pos];
            debug_assert_eq!(m.line, line, "the L2 MSHR index names its line");
            m.arrived |= 1 << (r.tag & 31);
            if m.arrived & m.pending != m.pending {
                continue;
            }
            let (mut waiters, pending) = (std::mem::take(&mut m.waiters), m.pending);
            sl.mshr_of.remove(&line);
            sl.mshr_free.push(pos as u32);
            let dirty = waiters
                .iter()
                .filter(|p| p.kind == PacketKind::Atomic)
                .fold(0, |d, p| d | self.sectors_of(p));
            // Without `l2.allocate_on_miss` the victim is evicted here,
            // at the fill (GPGPU-Sim: at the miss), and its write-back
            // holds the slice's next lookups; with it the way was
            // reserved at the miss and nothing is evicted now.
            // `l2.lru_at_access`: the fill leaves the line where its
            // last access put it in the LRU order.
            let touch = !self.l2_lru_at_access;
            let port = self.fill_l2_lru(s, line, pending, dirty, touch);
            self.hold_data_port(s, now, port);
            for &p in &waiters {
                self.reply(now, s, p);
            }
            waiters.clear();
            self.slices[s].mshr[pos].waiters = waiters;
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

    /// The slices' tag lookups, one per slice and cycle (step 4).
    fn lookups(&mut self, now: u64) -> bool {
        let mut active = false;
        let missq = self.l2_missq_cap > 0;
        if missq {
            active |= self.drain_miss_queues(now);
        }
        // 4. Tag lookups, one per slice per cycle.
        for s in 0..self.slices.len() {
            if self.lookup_due[s] > now {
                continue;
            }
            self.send_at = now + 1;
            if self.crossbar.as_ref().is_some_and(|x| x.full(s)) {
                // The slice's reply buffer is full: the lookup waits.
                self.reply_blocked_now += 1;
                continue;
            }
            if missq && !self.dram.can_accept_n(s as u32, 1) {
                // `l2.miss_queue`: no lookup while the slice's DRAM queue
                // is full (GPGPU-Sim's `cache_cycle` looks up only then).
                self.blocked_now += 1;
                continue;
            }
            let Some(&RopEntry {
                packet: p,
                line,
                need,
                accesses: a,
                ..
            }) = self.slices[s].rop.front()
            else {
                continue;
            };
            let write = p.kind == PacketKind::Write;
            let way = self.slices[s].tags.way_of(line);
            let valid = way.map_or(0, |w| self.slices[s].tags.valid_at(w));
            // Sectors a read may hit: valid and, with
            // `l2.partial_write_miss`, not written in part only.
            let readable = match way {
                Some(w) if self.l2_partial_write_miss => self.slices[s].tags.readable_at(w),
                _ => valid,
            };
            let merged = self.slices[s].mshr_of.get(&line).map(|&i| i as usize);
            let pending = merged.map_or(0, |i| self.slices[s].mshr[i].pending);
            // Sectors to fetch: needed, not valid, not already on their way.
            let mut fetch = if write {
                0
            } else {
                need & !readable & !pending
            };
            // Sectors that join misses already on their way.
            let mut joins = if write { 0 } else { need & !readable & pending };
            // `l2.half_line_alias`: a 64-byte read's second sector has the
            // first's address, so while the first is not valid it joins
            // the first's miss (sent now or already on its way), is served
            // with it and stays invalid.
            let first = need & need.wrapping_neg();
            let mut alias = 0;
            if self.l2_half_line_alias
                && p.kind == PacketKind::Read
                && p.reply_bytes == 64
                && need.count_ones() == 2
                && first & !readable != 0
            {
                fetch &= first;
                joins &= first;
                alias = first;
            }
            // `l2.mshr_merge`: a sector miss holds that many requests; one
            // more waits (GPGPU-Sim's MSHR_MERGE_ENRTY_FAIL) until its
            // data arrives.
            if self.l2_mshr_merge > 0
                && let Some(i) = merged
                && self.merge_full(&self.slices[s].mshr[i], joins, alias)
            {
                self.merge_blocked_now += 1;
                continue;
            }
            let misses = need & !if write { valid } else { readable };
            if missq {
                // A read that does not hit needs room for two requests in
                // the miss queue, a store that misses for one (the later
                // sectors' room: `plan_sector_accesses`).
                let wanted = usize::from(!write);
                if misses != 0 && self.slices[s].missq.len() + wanted >= self.l2_missq_cap {
                    self.missq_blocked_now += 1;
                    continue;
                }
            } else if fetch != 0 && !self.dram.can_accept_n(s as u32, fetch.count_ones()) {
                // The DRAM queue is full: the lookup waits (counted stall).
                self.blocked_now += 1;
                continue;
            }
            // With the miss queue, the victim a miss of an absent line
            // evicts now (a read with allocate-on-miss, or a store) is
            // written back through it with the first sector.
            let victim_wb = missq
                && misses != 0
                && way.is_none()
                && (write || (self.l2_allocate_on_miss && fetch != 0))
                && self.slices[s].tags.victim_is_dirty(line);
            // `l2.allocate_on_miss`: a read missing an absent line reserves
            // its way now, evicting the victim (GPGPU-Sim's tag_array::access,
            // MISS under ON_MISS); with every way of the set reserved the
            // lookup waits for a fill (a reservation failure).
            let mut evicted = None;
            if self.l2_allocate_on_miss && fetch != 0 && way.is_none() {
                match self.slices[s].tags.reserve(line, 0) {
                    Ok(e) => evicted = e,
                    Err(_) => continue,
                }
            }
            active = true;
            if self.l2_lru_at_access
                && !write
                && let Some(w) = way
                && need & !readable != 0
            {
                // A sector miss or a read joining a pending sector sets
                // the line's access time (GPGPU-Sim's tag_array::access:
                // SECTOR_MISS, HIT_RESERVED); a hit is touched below.
                self.slices[s].tags.touch(w);
            }
            let a = u64::from(a);
            if self.rop_transfer {
                self.update_moved(s, now);
                let sl = &mut self.slices[s];
                if sl.unmoved_idx == 0 {
                    // Sectors of this packet the ROP stage had not moved
                    // yet pass through the queue now, one per cycle.
                    let left = a - sl.unmoved_part.min(a);
                    sl.moved += left;
                    sl.unmoved_part = 0;
                    sl.move_free = sl.move_free.max(now + left);
                } else {
                    sl.unmoved_idx -= 1;
                }
                sl.looked += a;
            }
            self.slices[s].rop.pop_front();
            if self.slices[s].rop_ready > 0 {
                let sl = &mut self.slices[s];
                sl.rop_ready -= 1;
                sl.rop_ready_accesses -= a;
            }
            // The ejection buffer may let its head in next cycle.
            self.eject_wake[s] = self.eject_wake[s].min(now + 1);
            // One sector per cycle (GPGPU-Sim splits a line request into
            // sector requests, each an L2 access).
            let accesses = need.count_ones().max(1);
            self.slices[s].next_lookup = if missq && misses != 0 {
                self.plan_sector_accesses(s, now, need, misses, fetch, write, victim_wb)
            } else {
                now + u64::from(accesses)
            };
            self.refresh_lookup_due(s);
            self.stats.l2_accesses += u64::from(accesses);
            let hits = (need & if write { valid } else { readable }).count_ones();
            self.stats.l2_hits += u64::from(hits);
            self.stats.l2_misses += u64::from(accesses - hits.min(accesses));
            if write {
                // Write-allocate without fetching: the written sectors
                // become valid and dirty; the write is acknowledged at once
                // (a header-only reply).
                let port = self.fill_l2(s, line, 0, need);
                if self.l2_partial_write_miss {
                    // Sectors written in part while not valid are not
                    // readable until completed or fetched.
                    let granules = self.l2_granules_of(&p);
                    let per = (self.sector_bytes * 32 / self.l2_line).max(1) as u32;
                    self.slices[s]
                        .tags
                        .note_write(line, granules, need & !valid, per);
                }
                let end = self.slices[s].next_lookup;
                self.hold_data_port(s, end, port);
                self.reply(now, s, p);
                continue;
            }
            if need & !readable == 0 {
                // Present (every needed sector is valid): found above.
                if let Some(w) = way {
                    self.slices[s].tags.touch(w);
                }
                if p.kind == PacketKind::Atomic {
                    // A hit: nothing is evicted.
                    let _ = self.fill_l2(s, line, 0, need);
                }
                self.reply(now, s, p);
                continue;
            }
            let i = match merged {
                Some(i) => i,
                None => {
                    let sl = &mut self.slices[s];
                    let i = match sl.mshr_free.pop() {
                        Some(i) => {
                            let m = &mut sl.mshr[i as usize];
                            debug_assert!(m.waiters.is_empty());
                            (m.line, m.pending, m.arrived) = (line, 0, 0);
                            m.merges = [0; 32];
                            i as usize
                        }
                        None => {
                            sl.mshr.push(L2Miss {
                                line,
                                waiters: Vec::new(),
                                pending: 0,
                                arrived: 0,
                                merges: [0; 32],
                            });
                            sl.mshr.len() - 1
                        }
                    };
                    sl.mshr_of.insert(line, i as u32);
                    i
                }
            };
            let m = &mut self.slices[s].mshr[i];
            m.waiters.push(p);
            m.pending |= fetch;
            let mut f = fetch;
            while f != 0 {
                m.merges[f.trailing_zeros() as usize] = 1;
                f &= f - 1;
            }
            let mut j = joins;
            while j != 0 {
                let k = j.trailing_zeros() as usize;
                m.merges[k] = m.merges[k].saturating_add(1);
                j &= j - 1;
            }
            if alias != 0 {
                let k = alias.trailing_zeros() as usize;
                m.merges[k] = m.merges[k].saturating_add(1);
            }
            let base = p.addr - p.addr % self.l2_line;
            let mut f = fetch;
            while f != 0 {
                let sector = u64::from(f.trailing_zeros());
                f &= f - 1;
                // With the miss queue its read leaves it from the cycle
                // after the sector's access.
                if missq {
                    self.send_at = self.sector_at[sector as usize] + 1;
                }
                self.send_dram(DramRequest {
                    addr: base + sector * self.sector_bytes,
                    bytes: self.sector_bytes as u32,
                    write: false,
                    slice: s as u32,
                    tag: line << 5 | sector,
                });
                if let Some(e) = evicted.take() {
                    let port = self.write_back(s, e);
                    let end = self.slices[s].next_lookup;
                    self.hold_data_port(s, end, port);
                }
            }
            self.send_at = now + 1;
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

    /// True if miss `m` cannot take a packet whose sectors `joins` join
    /// their pending misses (and, with `alias`, whose second sector joins
    /// the miss of sector `alias` too): one of them already holds
    /// `l2.mshr_merge` requests.
    fn merge_full(&self, m: &L2Miss, joins: u32, alias: u32) -> bool {
        let limit = self.l2_mshr_merge;
        let mut j = joins;
        while j != 0 {
            let k = j.trailing_zeros();
            j &= j - 1;
            let extra = 1 + u32::from(alias >> k & 1 == 1);
            if u32::from(m.merges[k as usize]) + extra > limit {
                return true;
            }
        }
        false
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
mod tests {
    use super::*;

    fn packet(kind: PacketKind, addr: u64, chunks: u32) -> Packet {
        Packet {
            kind,
            sm: 0,
            addr,
            req_bytes: if kind == PacketKind::Write { 4 } else { 0 },
            reply_bytes: if kind == PacketKind::Write { 0 } else { 128 },
            chunks,
            tag: 0,
            perform: false,
        }
    }

    /// Sends `p` and runs until the memory system is idle; returns the
    /// number of replies.
    fn send(m: &mut MemSys, now: &mut u64, p: Packet) -> usize {
        m.inject(*now, 0, p);
        let (mut atomics, mut replies, mut n) = (Vec::new(), Vec::new(), 0);
        while m.busy() && *now < 1_000_000 {
            replies.clear();
            m.cycle(*now, &mut atomics, &mut replies);
            n += replies.len();
            *now += 1;
        }
        n
    }

    /// GPGPU-Sim's sector L2: a 128-byte read miss is four 32-byte sector
    /// accesses and four DRAM reads (one 64-byte column command each); a
    /// second read hits all four.
    #[test]
    fn a_line_miss_reads_its_four_sectors() {
        let cfg = GpuConfig::tiny();
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        assert_eq!(
            send(&mut m, &mut now, packet(PacketKind::Read, 0x4000, u32::MAX)),
            1
        );
        let s = m.stats.clone();
        assert_eq!((s.l2_accesses, s.l2_misses, s.dram_reads), (4, 4, 4));
        assert_eq!(s.dram_bytes, 128);
        assert_eq!(
            send(&mut m, &mut now, packet(PacketKind::Read, 0x4000, u32::MAX)),
            1
        );
        assert_eq!((m.stats.l2_hits, m.stats.dram_reads), (4, 4));
    }

    /// A 4-byte store allocates its sector without fetching; a read of the
    /// line then fetches only the three other sectors.
    #[test]
    fn a_read_after_a_partial_write_fetches_the_missing_sectors() {
        let cfg = GpuConfig::tiny();
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        // Chunk 9 of 32 (4-byte chunks): bytes 36-39, sector 1.
        send(&mut m, &mut now, packet(PacketKind::Write, 0x8000, 1 << 9));
        assert_eq!((m.stats.l2_accesses, m.stats.dram_reads), (1, 0));
        send(&mut m, &mut now, packet(PacketKind::Read, 0x8000, u32::MAX));
        assert_eq!(m.stats.l2_hits, 1);
        assert_eq!(m.stats.dram_reads, 3);
    }

    /// Evicting a line with one dirty sector writes back 32 bytes (one
    /// column command); unsectored (sector = line), the whole 128-byte line
    /// (two commands).
    #[test]
    fn write_backs_carry_the_dirty_sectors() {
        for (sector, bytes, commands) in [(32, 32, 1), (128, 128, 2)] {
            let mut cfg = GpuConfig::tiny();
            cfg.l2.sector_bytes = sector;
            let mut m = MemSys::new(&cfg);
            let mut now = 0;
            // tiny: one channel, so the address is the channel's; bit 8
            // picks the slice, the slice drops it: addresses 16 KB apart
            // are 64 of a slice's lines apart, one set of its 4 ways.
            for i in 0..5u64 {
                send(&mut m, &mut now, packet(PacketKind::Write, i * 16384, 1));
            }
            assert_eq!(m.stats.l2_writebacks, 1, "sector {sector}");
            assert_eq!(m.stats.dram_bytes, bytes, "sector {sector}");
            assert_eq!(m.stats.dram_writes, commands, "sector {sector}");
        }
    }

    /// Four full-line writes fill one set of slice 0 (4 ways on `tiny`:
    /// addresses 16 KB apart), dirty, nothing fetched.
    fn fill_a_set_dirty(m: &mut MemSys, now: &mut u64) {
        for i in 0..4u64 {
            send(m, now, packet(PacketKind::Write, i * 16384, u32::MAX));
        }
    }

    /// A read miss that evicts a dirty line (allocate on miss) sends its
    /// first sector's read, then the victim's write-back, then the other
    /// sectors' reads: GPGPU-Sim's sector L2 looks the line's sectors up
    /// one by one, and the first, a MISS, queues its read before the
    /// write-back (`data_cache::rd_miss_base`); the others are SECTOR_MISSes.
    #[test]
    fn a_read_miss_sends_its_first_sector_before_the_victims_write_back() {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.allocate_on_miss = true;
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        // A read of a fifth line of the filled set evicts the LRU one.
        fill_a_set_dirty(&mut m, &mut now);
        assert!(m.sent_dram.is_empty());
        send(
            &mut m,
            &mut now,
            packet(PacketKind::Read, 4 * 16384, u32::MAX),
        );
        let got: Vec<(bool, u32)> = m.sent_dram.iter().map(|r| (r.write, r.bytes)).collect();
        assert_eq!(
            got,
            vec![
                (false, 32),
                (true, 128),
                (false, 32),
                (false, 32),
                (false, 32)
            ]
        );
        // The reads are the line's sectors in order; the write-back is the
        // first line written (the set's LRU way).
        let reads: Vec<u64> = m
            .sent_dram
            .iter()
            .filter(|r| !r.write)
            .map(|r| r.tag & 31)
            .collect();
        assert_eq!(reads, vec![0, 1, 2, 3]);
        assert_eq!(m.stats.l2_writebacks, 1);
    }

    /// The cycles at which slice 0 looks up two writes that arrive
    /// together, the first evicting a fully dirty line of its set (four
    /// full-line writes filled the set's 4 ways), the second to another set.
    fn lookups_after_a_dirty_eviction(cfg: &GpuConfig) -> (u64, u64) {
        let mut m = MemSys::new(cfg);
        let mut now = 0;
        fill_a_set_dirty(&mut m, &mut now);
        assert_eq!(m.stats.l2_writebacks, 0);
        m.inject(now, 0, packet(PacketKind::Write, 4 * 16384, u32::MAX));
        m.inject(now, 0, packet(PacketKind::Write, 128, u32::MAX));
        let (mut atomics, mut replies) = (Vec::new(), Vec::new());
        let mut looked_up = Vec::new();
        while m.busy() && now < 1_000_000 {
            let queued = m.slices[0].rop.len();
            m.cycle(now, &mut atomics, &mut replies);
            for _ in m.slices[0].rop.len()..queued {
                looked_up.push(now);
            }
            now += 1;
        }
        assert_eq!(m.stats.l2_writebacks, 1);
        assert_eq!(m.stats.dram_bytes, 128);
        assert_eq!(looked_up.len(), 2);
        (looked_up[0], looked_up[1])
    }

    /// GPGPU-Sim's L2 data port (`use_data_port`): a miss that writes back
    /// a dirty line reads it out of the data array at 32 bytes per cycle,
    /// and the slice's next access waits for the port: 128 dirty bytes hold
    /// it 4 cycles, the miss's own cycle included. Sectored, the evicting
    /// write's four sector accesses then take 1 + 3 + 3 = 7 cycles instead
    /// of 4; unsectored (one access), 4 instead of 1. Width 0: no cost.
    #[test]
    fn a_dirty_eviction_holds_the_slice_data_port() {
        for (sector, free, held) in [(32, 4, 7), (128, 1, 4)] {
            let mut cfg = GpuConfig::tiny();
            cfg.l2.sector_bytes = sector;
            assert_eq!(cfg.l2.data_port_width, 32);
            let (a, b) = lookups_after_a_dirty_eviction(&cfg);
            assert_eq!(b - a, held, "sector {sector}, port 32");
            cfg.l2.data_port_width = 0;
            let (a, b) = lookups_after_a_dirty_eviction(&cfg);
            assert_eq!(b - a, free, "sector {sector}, port 0");
        }
    }

    /// The cycles at which slices 0 and 1 let each packet into their ROP
    /// queues, with six line reads for slice 0 (all hits) sent by SM 0
    /// before one for slice 1, on `tiny` without ROP or interconnect delay,
    /// an input queue of 8 sector accesses and an ejection buffer of
    /// `eject` flits.
    fn rop_entries(eject: u32) -> (Vec<u64>, Vec<u64>) {
        let mut cfg = GpuConfig::tiny();
        cfg.l2.latency = 0;
        cfg.icnt.latency = 0;
        cfg.l2.input_queue = 8;
        cfg.icnt.eject_buffer = eject;
        assert!(cfg.icnt.request_crossbar);
        let mut m = MemSys::new(&cfg);
        // Bit 8 picks the slice: these six lines are slice 0's.
        let lines = [0u64, 128, 512, 640, 1024, 1152];
        for &a in lines.iter().chain(&[256]) {
            m.host_copy(a, 128);
        }
        for &a in lines.iter().chain(&[256]) {
            assert!(m.can_inject(0, 0, 0));
            m.inject(0, 0, packet(PacketKind::Read, a, u32::MAX));
        }
        let (mut atomics, mut replies) = (Vec::new(), Vec::new());
        let mut now = 0;
        while m.busy() && now < 10_000 {
            m.cycle(now, &mut atomics, &mut replies);
            now += 1;
        }
        assert_eq!(m.stats.l2_hits, 28);
        (m.slices[0].entered.clone(), m.slices[1].entered.clone())
    }

    /// GPGPU-Sim's request path (`memory_sub_partition::full`, intersim2's
    /// ejection and router buffers). Sent at cycle 0, the reads join SM 0's
    /// crossbar input at 1 and are granted one per cycle (one flit each),
    /// reaching slice 0 at 2, 3, …; it looks each up in 4 cycles (4
    /// sectors), so it lets a packet into its input queue only while that
    /// holds at most 8 − 4 accesses. Reads 0-2 enter at 2, 3, 4; read 3
    /// waits until read 1's lookup (cycle 6) leaves room: 7; then 11, 15
    /// (lookups at 2, 6, 10, 14, …). With a 2-flit ejection buffer (two
    /// reads granted and not yet in the queue) the crossbar grants slice 0
    /// nothing at 6 and 7, read 5 at 8, so SM 0's read for the idle slice
    /// 1, queued behind them, is granted at 9 and enters at 10 (head-of-
    /// line blocking); with 80 flits every read is granted at once (1-6)
    /// and slice 1's at 7, entering at 8.
    #[test]
    fn a_full_slice_queue_holds_up_its_sms_later_requests() {
        let (s0, s1) = rop_entries(2);
        assert_eq!(s0, vec![2, 3, 4, 7, 11, 15]);
        assert_eq!(s1, vec![10]);
        let (s0, s1) = rop_entries(80);
        assert_eq!(s0, vec![2, 3, 4, 7, 11, 15]);
        assert_eq!(s1, vec![8]);
    }

    /// Sends the packets `ps` in one cycle and runs until the memory
    /// system is idle; returns each packet's reply cycle, by tag.
    fn send_all(m: &mut MemSys, now: &mut u64, ps: &[Packet]) -> Vec<u64> {
        for &p in ps {
            m.inject(*now, 0, p);
        }
        let (mut atomics, mut replies) = (Vec::new(), Vec::new());
        let mut at = vec![0; ps.len()];
        while m.busy() && *now < 1_000_000 {
            replies.clear();
            m.cycle(*now, &mut atomics, &mut replies);
            m.account(1);
            for r in &replies {
                at[r.tag as usize] = *now;
            }
            *now += 1;
        }
        at
    }

    /// The constant cache's miss: a 64-byte read of the half line at
    /// `addr` (its 16 four-byte chunks).
    fn half_line(addr: u64) -> Packet {
        Packet {
            reply_bytes: 64,
            ..packet(PacketKind::Read, addr, (1 << 16) - 1)
        }
    }

    /// `l2.half_line_alias` (GPGPU-Sim 4.2 gives both sector requests of a
    /// 64-byte read the read's address): the first read of a cold half
    /// line fetches only its first sector, the second joining that miss
    /// and staying invalid; the next read fetches the second sector (a
    /// DRAM trip again), the one after hits. Without the alias the first
    /// read fetches both sectors and the second hits.
    #[test]
    fn a_64_byte_reads_second_sector_joins_the_first_miss() {
        let mut lat = Vec::new();
        for alias in [true, false] {
            let mut cfg = GpuConfig::tiny();
            cfg.l2.half_line_alias = alias;
            let mut m = MemSys::new(&cfg);
            let mut now = 0;
            let mut reads = Vec::new();
            let mut l = Vec::new();
            for _ in 0..3 {
                let start = now;
                l.push(send_all(&mut m, &mut now, &[half_line(0x4040)])[0] - start);
                reads.push(m.stats.dram_reads);
            }
            assert_eq!(m.stats.l2_accesses, 6, "two sectors a read");
            if alias {
                assert_eq!(reads, vec![1, 2, 2]);
                assert_eq!(
                    m.stats.l2_hits,
                    1 + 2,
                    "the second read hits its first sector"
                );
            } else {
                assert_eq!(reads, vec![2, 2, 2]);
                assert_eq!(m.stats.l2_hits, 2 + 2);
            }
            lat.push(l);
        }
        let (on, off) = (&lat[0], &lat[1]);
        assert_eq!(on[2], off[1], "both sectors valid: an L2 hit");
        assert_eq!(off[2], off[1]);
        assert!(on[1] > on[2], "the second read waits for DRAM");
        // A 128-byte read is not split so: every sector misses on its own.
        let mut cfg = GpuConfig::tiny();
        cfg.l2.half_line_alias = true;
        let mut m = MemSys::new(&cfg);
        let mut now = 0;
        send_all(
            &mut m,
            &mut now,
            &[packet(PacketKind::Read, 0x4000, u32::MAX)],
        );
        assert_eq!(m.stats.dram_reads, 4);
    }

    /// `l2.mshr_merge` (GPGPU-Sim's L2 MSHRs, `A:256:4`: four requests per
    /// sector miss): five reads of one cold line arrive together; the
    /// first misses on its four sectors, the next three join those
    /// misses, the fifth finds each sector's miss full and waits (counted
    /// in `merge_full`) until the data arrives, then hits. Unbounded, the
    /// fifth joins too and is answered with the others.
    /// `l2.lru_at_access` (allocate on miss, one set of two ways): line P
    /// holds sector 0, Q all four, P older. A read of P's sector 1 (a
    /// sector miss, sent to DRAM) then a read of Q (a hit) before P's fill:
    /// when the lookup sets P's place and the fill keeps it, P is the
    /// least recently used and a new line R evicts it, so Q hits after;
    /// when the fill refreshes P, R evicts Q and Q misses.
    #[test]
    fn a_sector_miss_lookup_not_its_fill_sets_the_lines_lru_place() {
        for lru_at_access in [true, false] {
            let mut cfg = GpuConfig::tiny();
            cfg.l2.allocate_on_miss = true;
            cfg.l2.lru_at_access = lru_at_access;
            cfg.l2.sets = 1;
            cfg.l2.ways = 2;
            let mut m = MemSys::new(&cfg);
            // Three lines of one slice.
            let base = 0x10_0000;
            let lines: Vec<u64> = (0..64)
                .map(|k| base + k * 128)
                .filter(|&a| m.slice_of(a).0 == m.slice_of(base).0)
                .take(3)
                .collect();
            let (p, q, r) = (lines[0], lines[1], lines[2]);
            let mut now = 0;
            let sector = |s: u32| 0xffu32 << (8 * s);
            send(&mut m, &mut now, packet(PacketKind::Read, p, sector(0)));
            send(&mut m, &mut now, packet(PacketKind::Read, q, u32::MAX));
            let p1 = Packet {
                tag: 0,
                ..packet(PacketKind::Read, p, sector(1))
            };
            let q2 = Packet {
                tag: 1,
                ..packet(PacketKind::Read, q, u32::MAX)
            };
            send_all(&mut m, &mut now, &[p1, q2]);
            assert_eq!(m.stats.dram_reads, 6, "P0, Q's four, P1");
            send(&mut m, &mut now, packet(PacketKind::Read, r, u32::MAX));
            let hits = m.stats.l2_hits;
            send(&mut m, &mut now, packet(PacketKind::Read, q, u32::MAX));
            let q_hits = m.stats.l2_hits - hits;
            assert_eq!(
                q_hits,
                if lru_at_access { 4 } else { 0 },
                "lru_at_access {lru_at_access}: R evicted {}",
                if q_hits == 4 { "P" } else { "Q" }
            );
        }
    }

    #[test]
    fn a_sector_miss_holds_at_most_mshr_merge_requests() {
        for limit in [4, 0] {
            let mut cfg = GpuConfig::tiny();
            cfg.l2.mshr_merge = limit;
            let mut m = MemSys::new(&cfg);
            let mut now = 0;
            let ps: Vec<Packet> = (0..5)
                .map(|tag| Packet {
                    tag,
                    ..packet(PacketKind::Read, 0x4000, u32::MAX)
                })
                .collect();
            let at = send_all(&mut m, &mut now, &ps);
            let s = &m.stats;
            assert_eq!(s.dram_reads, 4, "limit {limit}: one fetch per sector");
            assert_eq!(s.l2_accesses, 20, "limit {limit}");
            // Replies leave in order; the first four together with the fill.
            assert!(at.windows(2).all(|w| w[0] < w[1]), "limit {limit}: {at:?}");
            if limit == 4 {
                assert_eq!(s.l2_hits, 4, "the fifth read hits after the fill");
                assert!(s.merge_full > 0);
            } else {
                assert_eq!(s.l2_hits, 0);
                assert_eq!(s.merge_full, 0);
            }
        }
    }

    /// Runs until idle; returns the cycles at which slice 0 looked its
    /// queued packets up (its ROP queue shrank).
    fn run_recording_lookups(m: &mut MemSys, now: &mut u64) -> Vec<u64> {
        let (mut atomics, mut replies) = (Vec::new(), Vec::new());
        let mut looked_up = Vec::new();
        while m.busy() && *now < 1_000_000 {
            let queued = m.slices[0].rop.len();
            m.cycle(*now, &mut atomics, &mut replies);
            for _ in m.slices[0].rop.len()..queued {
                looked_up.push(*now);
            }
            *now += 1;
        }
        looked_up
    }

    /// `l2.miss_queue`: a read miss that evicts a dirty line queues its
    /// first sector's read and the write-back at its lookup (cycle L),
    /// then one read per sector access (L+1, L+2, L+3); the queue's head
    /// enters the DRAM queue one per cycle from the cycle after its
    /// access: the first read at L+1, the write-back at L+2, the other
    /// reads at L+3, L+4, L+5 (GPGPU-Sim: `baseline_cache::cycle` moves
    /// one, then the next sector's `access` queues its read). Without the
    /// miss queue all five enter at L.
    #[test]
    fn the_miss_queue_passes_one_request_a_cycle_into_the_dram_queue() {
        for cap in [4, 0] {
            let mut cfg = GpuConfig::tiny();
            cfg.l2.allocate_on_miss = true;
            cfg.l2.miss_queue = cap;
            let mut m = MemSys::new(&cfg);
            let mut now = 0;
            fill_a_set_dirty(&mut m, &mut now);
            m.inject(now, 0, packet(PacketKind::Read, 4 * 16384, u32::MAX));
            let looked_up = run_recording_lookups(&mut m, &mut now);
            assert_eq!(looked_up.len(), 1);
            let l = looked_up[0];
            let order: Vec<(bool, u64)> = m
                .sent_dram
                .iter()
                .map(|r| (r.write, if r.write { 0 } else { r.tag & 31 }))
                .collect();
            assert_eq!(
                order,
                vec![(false, 0), (true, 0), (false, 1), (false, 2), (false, 3)]
            );
            if cap == 0 {
                assert!(m.entered_dram.is_empty(), "no miss queue: sent at once");
                continue;
            }
            let entered: Vec<(u64, bool)> =
                m.entered_dram.iter().map(|&(t, r)| (t, r.write)).collect();
            assert_eq!(
                entered,
                vec![
                    (l + 1, false),
                    (l + 2, true),
                    (l + 3, false),
                    (l + 4, false),
                    (l + 5, false)
                ]
            );
        }
    }

    /// `l2.miss_queue`: no lookup while the slice's DRAM queue is full,
    /// not even a hit (GPGPU-Sim's `cache_cycle` looks up only while
    /// `m_L2_dram_queue` has room). With one DRAM-queue entry and three
    /// credits (`dram.queue` 1 + `dram.return_queue` 1 + 1), a line miss
    /// A (lookup at L, four sectors) fills the DRAM queue with its fourth
    /// sector at L+4, so a hit B queued behind A waits from L+4 until a
    /// credit returns and the channel takes that sector: B is looked up
    /// in the first cycle that ends with the queue empty, after
    /// `dram.latency`. Without the miss queue B, a hit, goes at L+4.
    #[test]
    fn no_lookup_while_the_dram_queue_is_full() {
        for cap in [4, 0] {
            let mut cfg = GpuConfig::tiny();
            cfg.l2.miss_queue = cap;
            cfg.dram.queue = 1;
            cfg.dram.return_queue = 1;
            cfg.dram.l2_queue = 1;
            let mut m = MemSys::new(&cfg);
            let mut now = 0;
            // B's line is resident (both lines in slice 0: address bit 8
            // clear).
            send(&mut m, &mut now, packet(PacketKind::Read, 0x8000, u32::MAX));
            m.inject(now, 0, packet(PacketKind::Read, 0x4000, u32::MAX));
            m.inject(now, 0, packet(PacketKind::Read, 0x8000, u32::MAX));
            let (mut atomics, mut replies) = (Vec::new(), Vec::new());
            let (mut looked_up, mut room_after) = (Vec::new(), Vec::new());
            while m.busy() && now < 1_000_000 {
                let queued = m.slices[0].rop.len();
                m.cycle(now, &mut atomics, &mut replies);
                for _ in m.slices[0].rop.len()..queued {
                    looked_up.push(now);
                }
                if m.dram.can_accept_n(0, 1) {
                    room_after.push(now);
                }
                now += 1;
            }
            assert_eq!(looked_up.len(), 2);
            let (l, b) = (looked_up[0], looked_up[1]);
            if cap == 0 {
                assert_eq!(b, l + 4, "a hit is looked up whatever the DRAM queue holds");
                continue;
            }
            let first_room = *room_after.iter().find(|&&t| t >= l + 4).unwrap();
            assert!(first_room > l + 4 + u64::from(cfg.dram.latency));
            assert_eq!(b, first_room);
            assert_eq!(
                m.stats.l2_hits, 4,
                "B hits (the warm-up and A miss): its wait is the queue's"
            );
        }
    }
}
