//! DRAM channels as GPGPU-Sim models them (`dram.cc`, `dram_sched.cc`,
//! `memory_partition_unit::dram_cycle`), at their own clock.
//!
//! A request leaves an L2 slice into the slice's queue towards DRAM
//! (`dram.l2_queue` entries). Each DRAM clock a channel moves one request
//! from its slices' queues (round robin) into its latency queue, where it
//! waits `dram.latency` **core** cycles, then into the scheduler queue
//! (`dram.queue` entries, one per clock). The scheduler gives a free bank
//! one request per clock: FR-FCFS serves the row the bank has open (or
//! last chose) oldest first, else the bank's oldest request; FIFO serves
//! the channel's oldest request when its bank is free. Each clock the
//! channel issues at most one column command and one row command, trying
//! banks round robin from a priority that moves past each bank that
//! activates, precharges or gets a request:
//!
//! * activate (bank idle): `t_rrd` after any activate of the channel, `t_rc`
//!   after the bank's last activate, `t_rp` after its precharge;
//! * precharge (another row open): `t_ras` after the activate, `t_rtpl` after
//!   a read in the bank group, and the write-to-precharge and read-to-
//!   precharge times after the bank's last write/read;
//! * read / write (its row open): `t_rcd` (`t_rcd − wl − 1` for writes) after
//!   the activate, `t_ccd` after any column command, `t_ccdl` after one in
//!   the bank group, `cl + BL/ratio + 2 − wl` after a read before a write and
//!   `wl + BL/ratio + t_cdlr` after a write before a read.
//!
//! One column command moves `burst_length × bus_width × chips` bytes (the
//! atom, 64 B on the GTX480) and occupies the data bus `burst_length /
//! data_command_ratio` clocks; a request of *b* bytes takes ⌈*b*/atom⌉
//! column commands. Its data leaves the pipeline `cl` (writes: `wl`) clocks
//! after the command, in order; a read's data reaches the L2 one clock
//! later. Rows stay open until another row is needed (open-row policy).
//!
//! Clocks: DRAM clock *k* runs in the first core cycle *c* with
//! *c* × `dram.clock_mhz` ≥ *k* × `core.clock_mhz` (integer arithmetic, no
//! drift), before that cycle's L2 lookups. An idle DRAM does no per-clock
//! work: [`Dram::next_event`] gives the next core cycle at which anything
//! can change.
//!
//! Simplification: the return queue never fills (its size only bounds
//! the requests in flight: `queue + return_queue + 1` per channel, GPGPU-
//! Sim's credits), and the L2 takes returning data at once.

use std::collections::VecDeque;

use crate::config::GpuConfig;
use crate::timing::addrdec::AddrMap;
use crate::timing::event_queue::EventQueue;

mod bank_queue;
use bank_queue::BankQueue;

/// A request to a DRAM channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DramRequest {
    /// Byte address (decoded into channel, bank, row).
    pub addr: u64,
    /// Bytes to move (a multiple of column commands' atoms is rounded up).
    pub bytes: u32,
    /// A write (no data returns).
    pub write: bool,
    /// The L2 slice that sent it (and receives a read's data).
    pub slice: u32,
    /// The sender's identifier, returned with the data.
    pub tag: u64,
}

/// A request inside a channel: decoded, with its arrival order.
#[derive(Clone, Copy, Debug)]
struct Queued {
    req: DramRequest,
    bank: u32,
    row: u64,
    /// Column commands still to issue.
    atoms_left: u32,
}

#[derive(Clone, Debug, Default)]
struct Bank {
    active: bool,
    row: u64,
    /// The request the bank is serving.
    mrq: Option<Queued>,
    /// FR-FCFS: requests for this bank, by row, and the row being served.
    queue: BankQueue<Queued>,
    /// Earliest clocks of: a read, a write, a precharge (tRAS), an activate
    /// (tRC), an activate (tRP), a precharge after a write, after a read.
    rcd_at: u64,
    rcdwr_at: u64,
    ras_at: u64,
    rc_at: u64,
    rp_at: u64,
    wtp_at: u64,
    rtp_at: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Group {
    ccdl_at: u64,
    rtpl_at: u64,
}

#[derive(Clone, Debug)]
struct Channel {
    /// Per slice of the channel: requests not yet in the latency queue.
    l2q: Vec<VecDeque<DramRequest>>,
    /// Bit `i` set while `l2q[i]` holds a request.
    l2q_mask: u64,
    /// The slice that last moved a request (round robin).
    last_sub: usize,
    /// (ready core cycle, request).
    latency_q: VecDeque<(u64, DramRequest)>,
    /// Moved from the latency queue this clock; scheduled from the next.
    arrived: Option<DramRequest>,
    /// FIFO scheduler: the channel's queue, oldest first.
    fifo: VecDeque<Queued>,
    /// Requests in the scheduler (FR-FCFS bank queues or `fifo`).
    pending: usize,
    /// Requests between the slice queues and their completion (credits).
    in_flight: usize,
    /// Clocks at which credits come back (non-decreasing).
    returns: VecDeque<u64>,
    banks: Vec<Bank>,
    groups: Vec<Group>,
    /// Banks serving a request.
    busy_banks: usize,
    /// Bit `b` set while bank `b` serves a request (`mrq` is some).
    busy_mask: u64,
    /// FR-FCFS: bit `b` set while bank `b` is free and has requests
    /// queued (the scheduler gives it one at the next clock).
    ready_mask: u64,
    /// The busy banks by their next command: a read, a write (row open),
    /// an activate (bank idle), a precharge (another row open). Disjoint;
    /// their union is `busy_mask`. Kept by [`Channel::refresh_bank`].
    next_read: u64,
    next_write: u64,
    next_activate: u64,
    next_precharge: u64,
    /// Per bank: the bank's own part of [`Dram::bank_ready_at`] for its
    /// next command (the constraints of the bank alone, without the
    /// channel's and the bank group's); `u64::MAX` while it is free.
    own_ready_at: Vec<u64>,
    /// Busy banks whose own constraint had passed at the last command
    /// clock that looked ([`Dram::issue`]); a bank leaves it when
    /// refreshed.
    own_ok: u64,
    /// The earliest `own_ready_at` of the busy banks outside `own_ok`
    /// (a lower bound: `own_ok` needs a new look only from this clock).
    own_next: u64,
    prio: usize,
    ccd_at: u64,
    rrd_at: u64,
    /// Earliest write after a read, read after a write.
    rtw_at: u64,
    wtr_at: u64,
    /// The clock the last atom leaves the data pipeline.
    pipe_last: u64,
    /// The first DRAM clock at which a tick of this channel can do
    /// anything (`u64::MAX`: not before a request arrives). Every tick
    /// before it would be a no-op; see [`Dram::wake_of`].
    wake: u64,
}

impl Channel {
    fn has_work(&self) -> bool {
        self.arrived.is_some() || self.pending > 0 || self.busy_banks > 0 || self.l2q_mask != 0
    }

    fn empty(&self) -> bool {
        !self.has_work() && self.latency_q.is_empty()
    }

    /// Re-derives bank `j`'s next command and its own constraint after
    /// anything about the bank changed (a request, its row, a command).
    fn refresh_bank(&mut self, j: usize) {
        let bit = 1u64 << j;
        self.own_ok &= !bit;
        self.next_read &= !bit;
        self.next_write &= !bit;
        self.next_activate &= !bit;
        self.next_precharge &= !bit;
        let b = &self.banks[j];
        let Some(q) = b.mrq else {
            self.own_ready_at[j] = u64::MAX;
            return;
        };
        self.own_ready_at[j] = if b.active && b.row == q.row {
            if q.req.write {
                self.next_write |= bit;
                b.rcdwr_at
            } else {
                self.next_read |= bit;
                b.rcd_at
            }
        } else if !b.active {
            self.next_activate |= bit;
            b.rp_at.max(b.rc_at)
        } else {
            self.next_precharge |= bit;
            b.ras_at.max(b.wtp_at).max(b.rtp_at)
        };
        self.own_next = self.own_next.min(self.own_ready_at[j]);
    }
}

/// Timing constraints in DRAM clocks.
#[derive(Clone, Copy, Debug)]
struct Timing {
    ccd: u64,
    ccdl: u64,
    rrd: u64,
    rcd: u64,
    rcdwr: u64,
    ras: u64,
    rp: u64,
    rc: u64,
    cl: u64,
    wl: u64,
    rtw: u64,
    wtr: u64,
    wtp: u64,
    rtpl: u64,
    /// Data-bus clocks per column command (BL / ratio).
    burst: u64,
}

/// DRAM command counters (GPGPU-Sim's `n_rd`, `n_wr` + `n_wr_WB`, `n_act`,
/// `n_pre`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DramCounts {
    /// Read column commands.
    pub reads: u64,
    /// Write column commands.
    pub writes: u64,
    /// Activates.
    pub activates: u64,
    /// Precharges.
    pub precharges: u64,
    /// DRAM clocks the data buses transferred, summed over channels.
    pub bus_clocks: u64,
}

/// The DRAM channels of the machine.
#[derive(Debug)]
pub struct Dram {
    t: Timing,
    fr_fcfs: bool,
    core_mhz: u64,
    dram_mhz: u64,
    latency: u64,
    queue: usize,
    l2_queue: usize,
    credits: usize,
    atom: u32,
    nbk: usize,
    bank_groups: u32,
    group_low_bits: bool,
    per_channel: u32,
    /// Per bank group: its banks (bit per bank).
    group_banks: Vec<u64>,
    /// A mask of every bank of a channel (bit per bank).
    all_banks: u64,
    map: AddrMap,
    channels: Vec<Channel>,
    /// The next DRAM clock to run.
    next_tick: u64,
    /// Reads whose data reaches the L2, by core cycle.
    done: EventQueue<DramRequest>,
    /// Command counters.
    pub counts: DramCounts,
}

impl Dram {
    /// Idle channels for `cfg`.
    pub fn new(cfg: &GpuConfig) -> Dram {
        let d = &cfg.dram;
        let burst = u64::from((d.burst_length / d.data_command_ratio.max(1)).max(1));
        let t = Timing {
            ccd: u64::from(d.t_ccd),
            ccdl: u64::from(d.t_ccdl),
            rrd: u64::from(d.t_rrd),
            rcd: u64::from(d.t_rcd),
            rcdwr: u64::from(d.t_rcd.saturating_sub(d.wl + 1)),
            ras: u64::from(d.t_ras),
            rp: u64::from(d.t_rp),
            rc: u64::from(d.t_rc),
            cl: u64::from(d.cl),
            wl: u64::from(d.wl),
            rtw: (u64::from(d.cl) + burst + 2).saturating_sub(u64::from(d.wl)),
            wtr: u64::from(d.wl) + burst + u64::from(d.t_cdlr),
            wtp: u64::from(d.wl) + burst + u64::from(d.t_wr),
            rtpl: u64::from(d.t_rtpl),
            burst,
        };
        let channels = cfg.dram.channels.max(1);
        let per_channel = (cfg.l2.slices / channels).max(1);
        let nbk = d.banks.max(1) as usize;
        let groups = d.bank_groups.clamp(1, d.banks.max(1));
        let mut dram = Dram {
            t,
            fr_fcfs: d.scheduler == 1,
            core_mhz: u64::from(cfg.core.clock_mhz.max(1)),
            dram_mhz: u64::from(d.clock_mhz.max(1)),
            latency: u64::from(d.latency),
            queue: d.queue.max(1) as usize,
            l2_queue: d.l2_queue.max(1) as usize,
            credits: d.queue.max(1) as usize + d.return_queue as usize + 1,
            atom: (d.burst_length * d.bus_width * d.chips).max(1),
            nbk,
            bank_groups: groups,
            group_low_bits: d.bank_group_indexing == 1,
            per_channel,
            group_banks: Vec::new(),
            all_banks: if nbk >= 64 {
                u64::MAX
            } else {
                (1u64 << nbk) - 1
            },
            map: AddrMap::new(cfg),
            channels: (0..channels)
                .map(|_| Channel {
                    l2q: vec![VecDeque::new(); per_channel as usize],
                    l2q_mask: 0,
                    last_sub: per_channel as usize - 1,
                    latency_q: VecDeque::new(),
                    arrived: None,
                    fifo: VecDeque::new(),
                    pending: 0,
                    in_flight: 0,
                    returns: VecDeque::new(),
                    banks: vec![Bank::default(); nbk],
                    groups: vec![Group::default(); groups as usize],
                    busy_banks: 0,
                    busy_mask: 0,
                    ready_mask: 0,
                    next_read: 0,
                    next_write: 0,
                    next_activate: 0,
                    next_precharge: 0,
                    own_ready_at: vec![u64::MAX; nbk],
                    own_ok: 0,
                    own_next: u64::MAX,
                    prio: 0,
                    ccd_at: 0,
                    rrd_at: 0,
                    rtw_at: 0,
                    wtr_at: 0,
                    pipe_last: 0,
                    wake: u64::MAX,
                })
                .collect(),
            next_tick: 0,
            done: EventQueue::new(),
            counts: DramCounts::default(),
        };
        dram.group_banks = (0..groups as usize)
            .map(|g| {
                (0..nbk)
                    .filter(|&j| dram.bank_group(j) == g)
                    .fold(0u64, |m, j| m | 1 << j)
            })
            .collect();
        dram
    }

    /// The address decoder.
    pub fn map(&self) -> &AddrMap {
        &self.map
    }

    /// The core cycle in which DRAM clock `k` runs.
    fn core_cycle_of(&self, k: u64) -> u64 {
        (k * self.core_mhz).div_ceil(self.dram_mhz)
    }

    /// The last DRAM clock that runs in core cycle `now`.
    fn last_tick_of(&self, now: u64) -> u64 {
        now * self.dram_mhz / self.core_mhz
    }

    fn bank_group(&self, bank: usize) -> usize {
        let g = self.bank_groups as usize;
        if self.group_low_bits {
            bank & (g - 1)
        } else {
            bank / (self.nbk / g).max(1)
        }
    }

    /// True if slice `slice`'s queue towards DRAM has room for `n` more
    /// requests (or is empty: a line's sectors always get in).
    pub fn can_accept_n(&self, slice: u32, n: u32) -> bool {
        let (ch, sub) = self.slice_pos(slice);
        let len = self.channels[ch].l2q[sub].len();
        len == 0 || len + n as usize <= self.l2_queue
    }

    fn slice_pos(&self, slice: u32) -> (usize, usize) {
        let ch = (slice / self.per_channel) as usize;
        (
            ch.min(self.channels.len() - 1),
            (slice % self.per_channel) as usize,
        )
    }

    /// Queues `r` from its slice (the caller checked [`Dram::can_accept_n`];
    /// a full queue takes it anyway). It is seen from the next DRAM clock.
    pub fn push(&mut self, r: DramRequest) {
        let (ch, sub) = self.slice_pos(r.slice);
        let c = &mut self.channels[ch];
        c.l2q[sub].push_back(r);
        c.l2q_mask |= 1 << sub;
        c.wake = 0;
    }

    /// Runs every DRAM clock up to core cycle `now`; returns true if any
    /// channel did something.
    ///
    /// A channel's clocks before its [`Channel::wake`] are skipped: each
    /// would change nothing (debug builds run them and check that).
    pub fn advance(&mut self, now: u64) -> bool {
        let last = self.last_tick_of(now);
        let mut active = false;
        // The earliest wake over the channels (kept up to date as the
        // loop sets them: a tick changes only its own channel's).
        let mut first_wake = self
            .channels
            .iter()
            .map(|c| c.wake)
            .min()
            .unwrap_or(u64::MAX);
        loop {
            let k = self.next_tick.max(if cfg!(debug_assertions) {
                // Debug builds visit every clock of a channel with work.
                if self.channels.iter().all(Channel::empty) {
                    first_wake
                } else {
                    self.next_tick
                }
            } else {
                first_wake
            });
            if k > last {
                break;
            }
            let cycle = self.core_cycle_of(k);
            let mut next_wake = u64::MAX;
            for ch in 0..self.channels.len() {
                let wake = self.channels[ch].wake;
                if wake > k {
                    next_wake = next_wake.min(wake);
                    if cfg!(debug_assertions) && !self.channels[ch].empty() {
                        let did = self.tick(ch, k, cycle);
                        assert!(
                            !did,
                            "DRAM channel {ch} acted at clock {k} before its wake {wake}"
                        );
                    }
                    continue;
                }
                let did = self.tick(ch, k, cycle);
                active |= did;
                let wake = if did { k + 1 } else { self.wake_of(ch, cycle) };
                self.channels[ch].wake = wake;
                next_wake = next_wake.min(wake);
            }
            first_wake = next_wake;
            self.next_tick = k + 1;
        }
        self.next_tick = self.next_tick.max(last + 1);
        active
    }

    /// The first clock at which busy bank `j` of channel `c` may issue a
    /// command for its request, from the timing constraints as they stand:
    /// its column command if its row is open, else an activate (bank
    /// idle) or a precharge (another row open).
    fn bank_ready_at(&self, c: &Channel, j: usize) -> u64 {
        let b = &c.banks[j];
        let Some(q) = b.mrq else {
            return u64::MAX;
        };
        let g = &c.groups[self.bank_group(j)];
        if b.active && b.row == q.row {
            let dir = if q.req.write {
                b.rcdwr_at.max(c.rtw_at)
            } else {
                b.rcd_at.max(c.wtr_at)
            };
            dir.max(c.ccd_at).max(g.ccdl_at)
        } else if !b.active {
            c.rrd_at.max(b.rp_at).max(b.rc_at)
        } else {
            b.ras_at.max(b.wtp_at).max(b.rtp_at).max(g.rtpl_at)
        }
    }

    /// The first DRAM clock at which channel `ch`, whose last tick (in
    /// core cycle `cycle`) did nothing, can do anything: nothing that
    /// blocks a tick changes until an action of its own or a new request,
    /// and every other condition is a clock reaching a bound.
    ///
    /// * A free bank with queued requests, or an arrival, is served at the
    ///   next clock; an idle tick means there is neither.
    /// * A busy bank's next command (its column command, else an activate
    ///   or precharge) waits for the latest of its timing constraints.
    /// * The latency queue's head enters the scheduler once its ready
    ///   cycle has come, if the scheduler has room (else a bank must first
    ///   take a request: an action).
    /// * A slice request waits for a credit: the next return.
    fn wake_of(&self, ch: usize, cycle: u64) -> u64 {
        let c = &self.channels[ch];
        let mut wake = u64::MAX;
        let mut busy = c.busy_mask;
        while busy != 0 {
            let j = busy.trailing_zeros() as usize;
            busy &= busy - 1;
            wake = wake.min(self.bank_ready_at(c, j));
        }
        if let Some(&(ready, _)) = c.latency_q.front()
            && c.pending < self.queue
        {
            // The first clock that runs in a core cycle ≥ ready (and
            // after this one).
            let k = if ready <= cycle {
                0
            } else {
                (ready - 1) * self.dram_mhz / self.core_mhz + 1
            };
            wake = wake.min(k);
        }
        if let Some(&r) = c.returns.front()
            && c.l2q_mask != 0
        {
            wake = wake.min(r);
        }
        wake
    }

    /// The next read whose data has reached the L2 by core cycle `now`.
    pub fn pop_done(&mut self, now: u64) -> Option<DramRequest> {
        self.done.pop_due(now).map(|(_, r)| r)
    }

    /// The earliest core cycle after `now` at which the DRAM can change
    /// anything or deliver data.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        let mut next = self.done.next_due().map(|t| t.max(now + 1));
        let mut at = |t: u64| next = Some(next.map_or(t, |n: u64| n.min(t)));
        let first = self.next_tick.max(self.last_tick_of(now) + 1);
        for c in &self.channels {
            if c.wake != u64::MAX {
                at(self.core_cycle_of(c.wake.max(first)));
            }
        }
        next
    }

    /// True while any request is queued, in flight or undelivered.
    pub fn busy(&self) -> bool {
        !self.done.is_empty() || self.channels.iter().any(|c| !c.empty())
    }

    /// One DRAM clock `k` (running in core cycle `cycle`) of channel `ch`.
    fn tick(&mut self, ch: usize, k: u64, cycle: u64) -> bool {
        let mut active = false;
        let queue = self.queue;
        let credits = self.credits;
        let latency = self.latency;
        let fr_fcfs = self.fr_fcfs;
        let nbk = self.nbk;
        // 1. The scheduler takes last clock's arrival and gives one free
        //    bank a request.
        if let Some(r) = self.channels[ch].arrived.take() {
            let (bank, row) = self.map.bank_row(r.addr);
            let q = Queued {
                req: r,
                bank: bank % nbk as u32,
                row,
                atoms_left: r.bytes.div_ceil(self.atom).max(1),
            };
            let c = &mut self.channels[ch];
            c.pending += 1;
            if fr_fcfs {
                let b = q.bank as usize;
                c.banks[b].queue.push(q.row, q);
                if c.banks[b].mrq.is_none() {
                    c.ready_mask |= 1 << b;
                }
            } else {
                c.fifo.push_back(q);
            }
            active = true;
        }
        {
            let c = &mut self.channels[ch];
            if c.pending > 0 {
                if fr_fcfs {
                    // The first free bank with requests, from `prio` on.
                    if c.ready_mask != 0 {
                        let b = first_from(c.ready_mask, c.prio, nbk);
                        let bank = &mut c.banks[b];
                        let q = bank
                            .queue
                            .schedule(bank.row)
                            .expect("a ready bank has requests");
                        c.prio = (c.prio + 1) & (nbk - 1);
                        c.banks[b].mrq = Some(q);
                        c.refresh_bank(b);
                        c.ready_mask &= !(1 << b);
                        c.busy_mask |= 1 << b;
                        c.pending -= 1;
                        c.busy_banks += 1;
                        active = true;
                    }
                } else if let Some(&q) = c.fifo.front()
                    && c.banks[q.bank as usize].mrq.is_none()
                {
                    c.fifo.pop_front();
                    c.banks[q.bank as usize].mrq = Some(q);
                    c.refresh_bank(q.bank as usize);
                    c.busy_mask |= 1 << q.bank;
                    c.pending -= 1;
                    c.busy_banks += 1;
                    active = true;
                }
            }
        }
        // 2. Commands: one column and one row command at most.
        if self.channels[ch].busy_banks > 0 {
            active |= self.issue(ch, k, cycle);
        }
        // 3. One request from the slices into the latency queue: the
        //    first slice with one after the last that moved one.
        let c = &mut self.channels[ch];
        if c.l2q_mask != 0 {
            // Credits come back with the returns due by now (only this
            // step looks at them, so they are counted only here).
            while c.returns.front().is_some_and(|&t| t <= k) {
                c.returns.pop_front();
                c.in_flight -= 1;
            }
        }
        if c.in_flight < credits && c.l2q_mask != 0 {
            let n = c.l2q.len();
            let sub = next_from(c.l2q_mask, (c.last_sub + 1) % n, 0, n.next_power_of_two())
                .expect("a slice queue holds a request");
            let q = &mut c.l2q[sub];
            let r = q.pop_front().expect("its mask bit is set");
            if q.is_empty() {
                c.l2q_mask &= !(1 << sub);
            }
            c.latency_q.push_back((cycle + latency, r));
            c.in_flight += 1;
            c.last_sub = sub;
            active = true;
        }
        // 4. One request from the latency queue into the scheduler.
        if let Some(&(ready, r)) = c.latency_q.front()
            && ready <= cycle
            && c.pending < queue
        {
            c.latency_q.pop_front();
            c.arrived = Some(r);
            active = true;
        }
        active
    }

    /// Issues at most one column and one row command on channel `ch` at
    /// clock `k` (GPGPU-Sim's single-bus loop).
    ///
    /// Each busy bank's next command is the one [`Dram::bank_ready_at`]
    /// times (its column command if its row is open, else an activate or
    /// a precharge); it issues when that time has come (a row command only
    /// if no row command issued this clock).
    fn issue(&mut self, ch: usize, k: u64, cycle: u64) -> bool {
        let nbk = self.nbk;
        let full = self.all_banks;
        let c = &mut self.channels[ch];
        // The busy banks whose own constraints allow their next command:
        // those that passed already, and, once the earliest bound of the
        // others has come, a new look at the others.
        if k >= c.own_next {
            let mut next = u64::MAX;
            let mut rest = c.busy_mask & !c.own_ok;
            while rest != 0 {
                let j = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let at = c.own_ready_at[j];
                if at <= k {
                    c.own_ok |= 1 << j;
                } else {
                    next = next.min(at);
                }
            }
            c.own_next = next;
        }
        let c = &self.channels[ch];
        let own = c.own_ok & c.busy_mask;
        if own == 0 && !cfg!(debug_assertions) {
            return false;
        }
        // The channel's and the bank groups' constraints, per command (the
        // groups looked at only for banks that passed the others).
        let gate = |ok: bool, mask: u64| if ok { mask } else { 0 };
        let mut col = own
            & (gate(k >= c.ccd_at.max(c.wtr_at), c.next_read)
                | gate(k >= c.ccd_at.max(c.rtw_at), c.next_write));
        let mut pre = own & c.next_precharge;
        if col | pre != 0 {
            let (mut col_groups, mut pre_groups) = (0, 0);
            for (grp, &banks) in c.groups.iter().zip(&self.group_banks) {
                if k >= grp.ccdl_at {
                    col_groups |= banks;
                }
                if k >= grp.rtpl_at {
                    pre_groups |= banks;
                }
            }
            col &= col_groups;
            pre &= pre_groups;
        }
        let row = (own & gate(k >= c.rrd_at, c.next_activate)) | pre;
        if cfg!(debug_assertions) {
            let mut busy = c.busy_mask;
            while busy != 0 {
                let j = busy.trailing_zeros() as usize;
                busy &= busy - 1;
                assert_eq!(
                    (col | row) >> j & 1 == 1,
                    self.bank_ready_at(c, j) <= k,
                    "DRAM channel {ch} bank {j} at clock {k}: the command masks disagree with its constraints"
                );
            }
        }
        if col | row == 0 {
            return false;
        }
        // Banks in order from `prio`: the first ready bank issues. A
        // column command ends the clock; after a row command the order
        // restarts from the bank after it, and a column command may still
        // issue at a later position, counted from the new `prio`
        // (GPGPU-Sim's single-bus loop, whose `prio` moves inside it).
        let prio = c.prio;
        let first = rotate_to(col | row, prio, nbk, full);
        let pos = first.trailing_zeros() as usize;
        let j = (pos + prio) & (nbk - 1);
        if col >> j & 1 == 1 {
            self.column(ch, j, self.bank_group(j), k, cycle);
            return true;
        }
        let t = &self.t;
        let c = &mut self.channels[ch];
        let b = &mut c.banks[j];
        if b.active {
            b.active = false;
            b.rp_at = k + t.rp;
            self.counts.precharges += 1;
        } else {
            b.active = true;
            b.row = b.mrq.map_or(0, |q| q.row);
            c.rrd_at = k + t.rrd;
            b.rcd_at = k + t.rcd;
            b.rcdwr_at = k + t.rcdwr;
            b.ras_at = k + t.ras;
            b.rc_at = k + t.rc;
            self.counts.activates += 1;
        }
        c.refresh_bank(j);
        let prio = (j + 1) & (nbk - 1);
        c.prio = prio;
        // The row command changed only bank `j` (which cannot issue again
        // this clock) and, for an activate, the channel's activate bound.
        if pos + 1 < nbk {
            let later = rotate_to(col, prio, nbk, full) & (full << (pos + 1));
            if later != 0 {
                let j = (later.trailing_zeros() as usize + prio) & (nbk - 1);
                self.column(ch, j, self.bank_group(j), k, cycle);
            }
        }
        true
    }

    /// Issues a read or write column command for bank `j` (group `g`),
    /// whose row is open and whose constraints allow it at clock `k`
    /// ([`Dram::bank_ready_at`] said so).
    fn column(&mut self, ch: usize, j: usize, g: usize, k: u64, cycle: u64) {
        let t = &self.t;
        let c = &mut self.channels[ch];
        let b = &c.banks[j];
        let Some(mut q) = b.mrq else {
            return;
        };
        let write = q.req.write;
        debug_assert!(b.active && b.row == q.row && k >= c.ccd_at && k >= c.groups[g].ccdl_at);
        debug_assert!(if write {
            k >= b.rcdwr_at && k >= c.rtw_at
        } else {
            k >= b.rcd_at && k >= c.wtr_at
        });
        let pipe = if write { t.wl } else { t.cl };
        let out = (k + pipe).max(c.pipe_last + 1);
        c.pipe_last = out;
        c.ccd_at = k + t.ccd;
        c.groups[g].ccdl_at = k + t.ccdl;
        let b = &mut c.banks[j];
        if write {
            c.wtr_at = k + t.wtr;
            b.wtp_at = k + t.wtp;
            self.counts.writes += 1;
        } else {
            c.rtw_at = k + t.rtw;
            b.rtp_at = k + t.burst;
            c.groups[g].rtpl_at = k + t.rtpl;
            self.counts.reads += 1;
        }
        self.counts.bus_clocks += t.burst;
        q.atoms_left -= 1;
        if q.atoms_left == 0 {
            b.mrq = None;
            c.busy_banks -= 1;
            c.busy_mask &= !(1 << j);
            if !b.queue.is_empty() {
                c.ready_mask |= 1 << j;
            }
            if write {
                c.returns.push_back(out);
            } else {
                // Leaves the return queue one clock after its last atom.
                c.returns.push_back(out + 1);
                let at = (out + 1) * self.core_mhz;
                let core = at.div_ceil(self.dram_mhz).max(cycle);
                self.done.push(core, q.req);
            }
        } else {
            b.mrq = Some(q);
        }
        c.refresh_bank(j);
    }
}

/// `mask` (of `nbk` banks, a power of two; `full` has their bits) rotated
/// so that bank `prio` is bit 0, bank `prio + 1` bit 1, … (mod `nbk`).
#[inline]
fn rotate_to(mask: u64, prio: usize, nbk: usize, full: u64) -> u64 {
    if prio == 0 {
        mask
    } else {
        ((mask >> prio) | (mask << (nbk - prio))) & full
    }
}

/// The first bank of `mask` in the order `prio`, `prio + 1`, … (mod `nbk`,
/// a power of two).
fn first_from(mask: u64, prio: usize, nbk: usize) -> usize {
    next_from(mask, prio, 0, nbk).expect("a bank in the mask")
}

/// The first bank of `mask` at position `i` or later of the order `prio`,
/// `prio + 1`, … (mod `nbk`, a power of two), if any.
#[inline]
fn next_from(mask: u64, prio: usize, i: usize, nbk: usize) -> Option<usize> {
    if i >= nbk || mask == 0 {
        return None;
    }
    let full = if nbk >= 64 {
        u64::MAX
    } else {
        (1u64 << nbk) - 1
    };
    // Rotate so bank `prio` is bit 0, then drop positions before `i`.
    let rotated = if prio == 0 {
        mask
    } else {
        ((mask >> prio) | (mask << (nbk - prio))) & full
    };
    let later = rotated & (full << i);
    (later != 0).then(|| (later.trailing_zeros() as usize + prio) & (nbk - 1))
}

#[cfg(test)]
mod tests;
