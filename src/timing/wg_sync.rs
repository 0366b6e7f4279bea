//! The work-group synchronization controller: the GPU-side half of the
//! `--sync` policies (AWG, Duţu et al., ISCA 2020, §IV–§V). It receives
//! every waiting instruction's outcome and every write that reaches the L2,
//! applies the policy (sleep, stall, monitor, resume, context switch), runs
//! the SyncMon and the command processor (CP), and acts on SMs only through
//! [`Sm::hold_cta`], [`Sm::release_cta`], [`Sm::evict_cta`] and
//! [`Sm::restore_cta`].
//!
//! A work-group (WG) is a CTA, named by its linear index in the grid. Its
//! life here: *running*; *blocked* (sleeping, stalled, or waiting on a
//! SyncMon condition), holding its slot; *switched out* (its context saved
//! through the memory system, its slot free), ready or still waiting; and
//! back in (restored on any SM with room). Context switches happen only
//! when the GPU is oversubscribed (WGs ready or not yet started that have
//! no room), or when an SM leaves the kernel (`sync.remove_sms_at`).
//!
//! Timing: a waiting atomic's comparison and the SyncMon's arming happen
//! when the atomic reaches the L2 (a waiting load is performed there too,
//! unless `busy`); a condition is checked when a write reaches the L2 (the
//! word already holds the written value, since stores are performed at
//! issue); a resume order reaches the CU `sync.syncmon_latency` cycles
//! later. MonR/MonRS arm with a separate wait instruction: the arming
//! happens a round trip after the failed comparison and does not look at
//! the word, so a write in between is missed (the paper's lost-update
//! window, Fig. 10).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;

use crate::config::GpuConfig;
use crate::func::GlobalMemory;
use crate::sync::policy::{Resume, SyncPolicy};
use crate::sync::syncmon::{Armed, Cond, Geometry, SyncMon, SyncMonStats};
use crate::timing::coalescer::VectorShape;
use crate::timing::memsys::{MemSys, Packet, PacketKind};
use crate::timing::sm::{CtaSlot, LaunchCtx, Sm};
use crate::timing::sm_sync::WaitSeen;

/// Tag bit of context-switch traffic (the rest is the WG id).
pub const CONTEXT_TAG: u32 = 1 << 31;

/// Base address of the WG context save area.
const CONTEXT_BASE: u64 = 0xc000_0000_0000;

/// One work-group's synchronization statistics (AWG Fig. 11: running vs
/// waiting time).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WgRecord {
    /// Launch index.
    pub launch: u32,
    /// CTA linear index.
    pub wg: u32,
    /// First placed.
    pub start: u64,
    /// Retired (0 if the launch ended first).
    pub end: u64,
    /// Cycles between a failed waiting instruction and the next successful
    /// one (waiting on synchronization, however the policy waits).
    pub waiting: u64,
    /// Cycles the policy kept it from issuing while resident (sleeping,
    /// stalled, waiting on the SyncMon).
    pub blocked: u64,
    /// Cycles switched out (saving, out, restoring).
    pub switched_out: u64,
    /// Waiting instructions executed.
    pub wait_insts: u64,
    /// Of those, the ones whose comparison held.
    pub acquires: u64,
    /// Context switches out.
    pub switches: u32,
}

/// Synchronization statistics of a run (`sync` in the JSON).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SyncStats {
    /// The `--sync` policy.
    pub policy: String,
    /// Waiting instructions executed (`atom.cas.wait`, `ld.wait`, `wait`).
    pub wait_insts: u64,
    /// Of those, the ones whose comparison held (acquires: a lock taken, a
    /// barrier passed).
    pub acquires: u64,
    /// Waiting instructions per acquire (AWG Fig. 9's wait efficiency; 1 is
    /// the minimum, every waiter succeeding at its first try after a
    /// resume).
    pub wait_insts_per_acquire: f64,
    /// Waits that blocked the WG (sleep, stall or SyncMon wait).
    pub blocks: u64,
    /// WGs resumed by a met condition (or a Monitor Log scan).
    pub resumes: u64,
    /// WGs resumed by `sync.resume_timeout`.
    pub timeouts: u64,
    /// Waiters turned away because the SyncMon and the Monitor Log were
    /// full (they retry).
    pub log_full: u64,
    /// Context switches out (WG contexts saved).
    pub switches_out: u64,
    /// Context switches in (restored).
    pub switches_in: u64,
    /// Context bytes moved (saved plus restored).
    pub context_bytes: u64,
    /// Cycles WGs spent waiting on synchronization (sum of
    /// [`WgRecord::waiting`]).
    pub wg_waiting_cycles: u64,
    /// Cycles WGs were resident and not waiting (lifetime minus waiting
    /// minus switched out).
    pub wg_running_cycles: u64,
    /// Cycles WGs spent switched out.
    pub wg_switched_out_cycles: u64,
    /// The SyncMon's counters (monitor policies).
    pub syncmon: SyncMonStats,
    /// Every WG that executed a waiting instruction or was switched out.
    pub wgs: Vec<WgRecord>,
}

/// Where a WG is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    /// On SM `sm`, CTA slot `slot`.
    Resident { sm: u32, slot: u32 },
    /// Held on its SM until its warps have nothing in flight.
    Draining { sm: u32, slot: u32 },
    /// Its context being written out: `left` packets unacknowledged.
    Saving { sm: u32, slot: u32, left: u32 },
    /// Switched out.
    Out,
    /// Placed again, its context being read back: `left` packets due.
    Restoring { sm: u32, slot: u32, left: u32 },
    /// Retired.
    Done,
}

/// A timed action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    /// MonNR-One/AWG: resume a waiter no event resumed.
    ResumeTimeout,
    /// MonR/MonRS: the separate wait arms the SyncMon now.
    Arm,
    /// AWG: the predicted stall is over; switch out if still waiting.
    StallEnd,
    /// A WG switched out by `timeout:T` becomes ready.
    Ready,
    /// Start writing a drained WG's context.
    Save,
    /// Start reading a placed WG's context.
    Restore,
}

struct Wg {
    loc: Loc,
    /// Blocked by the policy since this cycle, waiting on the SyncMon if
    /// `monitored`.
    blocked: Option<(u64, bool)>,
    /// Switched out but not ready before this cycle (`timeout:T`).
    ready_at: u64,
    timers: Vec<(u64, Timer)>,
    backoff: u64,
    /// The failed waiting instruction that opened the current wait.
    episode: Option<u64>,
    last: Option<WaitSeen>,
    /// Pending MonR/MonRS arming.
    arm: Option<(u64, Cond)>,
    saved: Option<Box<CtaSlot>>,
    need: [u32; 4],
    out_since: u64,
    rec: WgRecord,
}

/// The controller.
pub struct WgSync {
    policy: SyncPolicy,
    cfg: crate::config::SyncConfig,
    line: u64,
    arm_delay: u64,
    mon: Option<SyncMon>,
    wgs: BTreeMap<u32, Wg>,
    timers: BTreeSet<(u64, u32, Timer)>,
    ready: VecDeque<u32>,
    draining: Vec<u32>,
    next_scan: u64,
    next_sm: usize,
    launch: u32,
    /// WG records of finished launches.
    records: Vec<WgRecord>,
    stats: SyncStats,
    /// AWG's wait predictor: completed SyncMon waits and their cycles.
    waits: (u64, u64),
    met: Vec<(u64, Cond)>,
    resumed: Vec<u32>,
    /// SMs whose state changed (the GPU runs them this cycle).
    pub touched: Vec<u32>,
    /// A WG left an SM (its room grew: the CTA scheduler looks again).
    pub freed: bool,
    /// A waiting instruction succeeded this cycle (progress).
    pub progressed: bool,
    events_done: (bool, bool),
}

impl WgSync {
    /// A controller for `policy` on machine `cfg`.
    pub fn new(policy: SyncPolicy, cfg: &GpuConfig) -> WgSync {
        let s = &cfg.sync;
        let mon = policy.monitors().then(|| {
            SyncMon::new(&Geometry {
                sets: s.syncmon_sets,
                ways: s.syncmon_ways,
                wg_entries: s.syncmon_wg_entries,
                log_entries: s.monitor_log_entries,
                bloom_filters: s.bloom_filters,
                bloom_bits: s.bloom_bits,
                bloom_hashes: s.bloom_hashes,
                line_bytes: cfg.l2.line,
            })
        });
        WgSync {
            policy,
            cfg: s.clone(),
            line: u64::from(cfg.l2.line.max(4)),
            // The failed atomic's reply flies to the CU, the wait issues
            // and flies back to the L2: two traversals and a lookup.
            arm_delay: 2 * u64::from(cfg.icnt.latency) + u64::from(cfg.l2.latency),
            mon,
            wgs: BTreeMap::new(),
            timers: BTreeSet::new(),
            ready: VecDeque::new(),
            draining: Vec::new(),
            next_scan: u64::MAX,
            next_sm: 0,
            launch: 0,
            records: Vec::new(),
            stats: SyncStats {
                policy: policy.to_string(),
                ..SyncStats::default()
            },
            waits: (0, 0),
            met: Vec::new(),
            resumed: Vec::new(),
            touched: Vec::new(),
            freed: false,
            progressed: false,
            events_done: (false, false),
        }
    }

    /// The policy.
    pub fn policy(&self) -> SyncPolicy {
        self.policy
    }

    /// A new launch (`index`) starts at cycle `now`.
    pub fn start_launch(&mut self, index: u32) {
        self.launch = index;
        self.wgs.clear();
        self.timers.clear();
        self.ready.clear();
        self.draining.clear();
        self.next_scan = u64::MAX;
    }

    /// The launch ended at `now`: its WG records are kept.
    pub fn end_launch(&mut self, now: u64) {
        for wg in std::mem::take(&mut self.wgs).into_values() {
            let mut r = wg.rec;
            if r.end == 0 {
                r.end = now;
            }
            self.records.push(r);
        }
    }

    /// The earliest cycle at which a timer, an event or a scan is due.
    pub fn next_due(&self, now: u64) -> Option<u64> {
        let mut next = self.timers.first().map_or(u64::MAX, |t| t.0);
        next = next.min(self.next_scan);
        if !self.draining.is_empty() || !self.ready.is_empty() {
            next = next.min(now + 1);
        }
        let c = &self.cfg;
        if c.remove_sms > 0 && c.remove_sms_at > 0 && !self.events_done.0 {
            next = next.min(c.remove_sms_at);
        }
        if c.remove_sms > 0 && c.return_sms_at > 0 && !self.events_done.1 {
            next = next.min(c.return_sms_at);
        }
        (next != u64::MAX).then_some(next.max(now + 1))
    }

    fn wg(&mut self, id: u32, sms: &[Sm]) -> &mut Wg {
        let launch = self.launch;
        self.wgs.entry(id).or_insert_with(|| {
            // First seen resident: find it.
            let mut loc = Loc::Out;
            let mut start = 0;
            for sm in sms {
                for (c, cta) in sm.ctas.iter().enumerate() {
                    if let Some(cta) = cta
                        && cta.linear == id
                    {
                        loc = Loc::Resident {
                            sm: sm.id,
                            slot: c as u32,
                        };
                        start = sm.warps[cta.slots[0] as usize].start;
                    }
                }
            }
            Wg {
                loc,
                blocked: None,
                ready_at: 0,
                timers: Vec::new(),
                backoff: 0,
                episode: None,
                last: None,
                arm: None,
                saved: None,
                need: [0; 4],
                out_since: 0,
                rec: WgRecord {
                    launch,
                    wg: id,
                    start,
                    ..WgRecord::default()
                },
            }
        })
    }

    fn set_timer(&mut self, id: u32, at: u64, t: Timer) {
        self.timers.insert((at, id, t));
        if let Some(w) = self.wgs.get_mut(&id) {
            w.timers.push((at, t));
        }
    }

    fn clear_timer(&mut self, id: u32, t: Timer) {
        if let Some(w) = self.wgs.get_mut(&id) {
            let timers = &mut self.timers;
            w.timers.retain(|&(at, k)| {
                if k == t {
                    timers.remove(&(at, id, k));
                    false
                } else {
                    true
                }
            });
        }
    }

    /// The GPU is oversubscribed: WGs wait for room (switched out and
    /// ready, or not yet started: `unstarted`).
    fn oversubscribed(&self, unstarted: bool) -> bool {
        unstarted || !self.ready.is_empty()
    }

    /// A waiting instruction's outcome (at the L2, or at issue under
    /// `busy`).
    pub fn on_wait(&mut self, now: u64, w: WaitSeen, sms: &mut [Sm], unstarted: bool) {
        self.stats.wait_insts += 1;
        let policy = self.policy;
        let cfg_initial = u64::from(self.cfg.sleep_initial.max(1));
        let wg = self.wg(w.wg, sms);
        wg.rec.wait_insts += 1;
        wg.last = Some(w);
        if w.succeeded() {
            if let Some(t0) = wg.episode.take() {
                wg.rec.waiting += now - t0;
            }
            wg.rec.acquires += 1;
            wg.backoff = 0;
            self.stats.acquires += 1;
            self.progressed = true;
            return;
        }
        wg.episode.get_or_insert(now);
        let (sm, slot) = (w.sm, w.cta_slot);
        match policy {
            SyncPolicy::Busy => {}
            SyncPolicy::Sleep { max } => {
                wg.backoff = if wg.backoff == 0 {
                    cfg_initial.min(max)
                } else {
                    (wg.backoff * 2).min(max)
                };
                let b = wg.backoff;
                wg.rec.blocked += b;
                self.stats.blocks += 1;
                self.hold(w.wg, sms, sm, slot, now + b);
            }
            SyncPolicy::Timeout { t } => {
                self.stats.blocks += 1;
                if self.oversubscribed(unstarted) {
                    let wg = self.wgs.get_mut(&w.wg).expect("present");
                    wg.ready_at = now + t;
                    wg.blocked = Some((now, false));
                    self.begin_switch_out(w.wg, sms);
                } else {
                    self.wgs.get_mut(&w.wg).expect("present").rec.blocked += t;
                    self.hold(w.wg, sms, sm, slot, now + t);
                }
            }
            _ => {
                let cond = if policy.checks_condition() {
                    Some(w.expected)
                } else {
                    None
                };
                self.stats.blocks += 1;
                let wg = self.wgs.get_mut(&w.wg).expect("present");
                wg.blocked = Some((now, true));
                self.hold(w.wg, sms, sm, slot, u64::MAX);
                if w.explicit || policy.armed_by_atomic() {
                    self.arm(now, w.wg, w.addr, cond, sms, unstarted);
                } else {
                    self.wgs.get_mut(&w.wg).expect("present").arm = Some((w.addr, cond));
                    self.set_timer(w.wg, now + self.arm_delay, Timer::Arm);
                }
            }
        }
    }

    /// Holds WG `id`'s warps until `until`, unless it is being switched
    /// out (then it stays held).
    fn hold(&mut self, id: u32, sms: &mut [Sm], sm: u32, slot: u32, until: u64) {
        if self
            .wgs
            .get(&id)
            .is_some_and(|w| !matches!(w.loc, Loc::Resident { .. }))
        {
            return;
        }
        sms[sm as usize].hold_cta(slot, until);
        self.touched.push(sm);
    }

    /// Registers waiter `id` with the SyncMon (a monitor policy).
    fn arm(&mut self, now: u64, id: u32, addr: u64, cond: Cond, sms: &mut [Sm], unstarted: bool) {
        let mon = self.mon.as_mut().expect("a monitor policy");
        match mon.arm(addr, cond, id) {
            Armed::Full => {
                // Nowhere to wait: the WG retries (Mesa semantics).
                self.stats.log_full += 1;
                self.wake(now, id, sms);
                return;
            }
            Armed::Log => {
                if self.next_scan == u64::MAX {
                    self.next_scan = now + self.cfg.cp_scan_interval.max(1);
                }
            }
            Armed::Cache => {}
        }
        if self.policy.resume_times_out() {
            self.set_timer(
                id,
                now + self.cfg.resume_timeout.max(1),
                Timer::ResumeTimeout,
            );
        }
        if self.oversubscribed(unstarted) {
            if self.policy == SyncPolicy::Awg {
                let predicted = self.waits.1.checked_div(self.waits.0).unwrap_or(0);
                self.set_timer(id, now + predicted.max(1), Timer::StallEnd);
            } else {
                self.begin_switch_out(id, sms);
            }
        }
    }

    /// Resumes WG `id`: its wait is over (a met condition, a timeout).
    fn wake(&mut self, now: u64, id: u32, sms: &mut [Sm]) {
        for t in [Timer::ResumeTimeout, Timer::StallEnd, Timer::Arm] {
            self.clear_timer(id, t);
        }
        let latency = u64::from(self.cfg.syncmon_latency);
        let Some(wg) = self.wgs.get_mut(&id) else {
            return;
        };
        wg.arm = None;
        let Some((since, monitored)) = wg.blocked.take() else {
            return;
        };
        if monitored {
            self.waits.0 += 1;
            self.waits.1 += now - since;
        }
        match wg.loc {
            Loc::Resident { sm, slot } => {
                wg.rec.blocked += now + latency - since;
                sms[sm as usize].release_cta(slot, now + latency);
                self.touched.push(sm);
            }
            Loc::Draining { sm, slot } => {
                // Not saved yet: stay.
                wg.rec.blocked += now + latency - since;
                wg.loc = Loc::Resident { sm, slot };
                self.draining.retain(|&x| x != id);
                sms[sm as usize].release_cta(slot, now + latency);
                self.touched.push(sm);
            }
            Loc::Out => {
                wg.ready_at = wg.ready_at.max(now);
                self.ready.push_back(id);
            }
            // Ready when its save completes / runs when restored.
            Loc::Saving { .. } | Loc::Restoring { .. } | Loc::Done => {}
        }
    }

    /// A write or atomic reached the L2 at word `addr` (monitor policies).
    pub fn on_access(&mut self, now: u64, addr: u64, global: &GlobalMemory, sms: &mut [Sm]) {
        let Some(mon) = self.mon.as_mut() else {
            return;
        };
        if !mon.watches(addr) {
            return;
        }
        let value = global.peek_u32(addr).unwrap_or(0);
        self.met.clear();
        mon.on_write(addr, value, &mut self.met);
        let met = std::mem::take(&mut self.met);
        for &(a, cond) in &met {
            let mon = self.mon.as_mut().expect("checked");
            self.resumed.clear();
            let all = match self.policy.resume() {
                Resume::All => true,
                Resume::One => false,
                Resume::Predict => {
                    mon.waiters(a, cond) > 1 && mon.unique_updates(a).unwrap_or(0) > 2
                }
            };
            if all {
                mon.resume_all(a, cond, &mut self.resumed);
            } else if let Some(w) = mon.resume_one(a, cond) {
                self.resumed.push(w);
            }
            let resumed = std::mem::take(&mut self.resumed);
            for &w in &resumed {
                self.stats.resumes += 1;
                self.wake(now, w, sms);
            }
            self.resumed = resumed;
        }
        self.met = met;
    }

    /// A store packet reached the L2: checks the watched words it wrote.
    pub fn on_store(&mut self, now: u64, p: &Packet, global: &GlobalMemory, sms: &mut [Sm]) {
        if self.mon.is_none() || p.tag & CONTEXT_TAG != 0 {
            return;
        }
        let chunk = (self.line / 32).max(1);
        let base = p.addr - p.addr % self.line;
        let mut word = base;
        while word < base + self.line {
            let k = (word - base) / chunk;
            if p.chunks >> k & 1 == 1 {
                self.on_access(now, word, global, sms);
            }
            word += 4;
        }
    }

    fn begin_switch_out(&mut self, id: u32, sms: &mut [Sm]) {
        let Some(wg) = self.wgs.get_mut(&id) else {
            return;
        };
        if let Loc::Resident { sm, slot } = wg.loc {
            wg.loc = Loc::Draining { sm, slot };
            self.draining.push(id);
            sms[sm as usize].hold_cta(slot, u64::MAX);
            self.touched.push(sm);
        }
    }

    /// Context bytes of a WG needing `need` = [warps, threads, registers,
    /// shared bytes]: its registers, shared memory and per-wavefront state.
    fn context_bytes(&self, need: [u32; 4]) -> u64 {
        u64::from(need[2]) * 4
            + u64::from(need[3])
            + u64::from(need[0]) * u64::from(self.cfg.wavefront_state_bytes)
    }

    fn packets(&self, need: [u32; 4]) -> u32 {
        self.context_bytes(need).div_ceil(self.line).max(1) as u32
    }

    fn send_context(&mut self, now: u64, id: u32, sm: u32, n: u32, write: bool, mem: &mut MemSys) {
        let stride = 1u64 << 20;
        for k in 0..u64::from(n) {
            let line = self.line as u32;
            mem.inject(
                now,
                0,
                Packet {
                    kind: if write {
                        PacketKind::Write
                    } else {
                        PacketKind::Read
                    },
                    sm,
                    addr: CONTEXT_BASE + u64::from(id) * stride + k * self.line,
                    req_bytes: if write { line } else { 0 },
                    reply_bytes: if write { 0 } else { line },
                    chunks: u32::MAX,
                    tag: CONTEXT_TAG | id,
                    perform: false,
                    vector: VectorShape::SCALAR,
                },
            );
        }
        self.stats.context_bytes += u64::from(n) * self.line;
    }

    /// A reply of context traffic reached its SM.
    pub fn on_context_reply(&mut self, now: u64, p: &Packet, sms: &mut [Sm]) {
        let id = p.tag & !CONTEXT_TAG;
        let Some(wg) = self.wgs.get_mut(&id) else {
            return;
        };
        match &mut wg.loc {
            Loc::Saving { sm, slot, left } => {
                *left -= 1;
                if *left == 0 {
                    let (sm, slot) = (*sm, *slot);
                    let cta = sms[sm as usize].evict_cta(slot, now);
                    wg.saved = Some(Box::new(cta));
                    wg.loc = Loc::Out;
                    wg.out_since = now;
                    wg.rec.switches += 1;
                    self.stats.switches_out += 1;
                    self.touched.push(sm);
                    self.freed = true;
                    if wg.blocked.is_none() || (wg.ready_at > 0 && !self.policy.monitors()) {
                        // Ready (now, or when its timeout ends).
                        if wg.ready_at > now {
                            let at = wg.ready_at;
                            self.set_timer(id, at, Timer::Ready);
                        } else {
                            wg.blocked = None;
                            self.ready.push_back(id);
                        }
                    }
                }
            }
            Loc::Restoring { sm, slot, left } => {
                *left -= 1;
                if *left == 0 {
                    let (sm, slot) = (*sm, *slot);
                    wg.loc = Loc::Resident { sm, slot };
                    wg.rec.switched_out += now + 1 - wg.out_since;
                    self.stats.switches_in += 1;
                    sms[sm as usize].release_cta(slot, now + 1);
                    self.touched.push(sm);
                }
            }
            _ => {}
        }
    }

    /// Runs this cycle's timers, events, drains, CP scans and switch-ins.
    #[allow(clippy::too_many_arguments)]
    pub fn tick(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        sms: &mut [Sm],
        mem: &mut MemSys,
        global: &GlobalMemory,
        unstarted: bool,
    ) {
        self.oversubscription_events(now, sms);
        while let Some(&(at, id, t)) = self.timers.first() {
            if at > now {
                break;
            }
            self.timers.pop_first();
            if let Some(w) = self.wgs.get_mut(&id) {
                w.timers.retain(|&x| x != (at, t));
            }
            self.fire(now, id, t, sms, mem, unstarted);
        }
        if now >= self.next_scan {
            self.next_scan = u64::MAX;
            if let Some(mon) = self.mon.as_mut() {
                let mut out = Vec::new();
                mon.scan_log(|a| global.peek_u32(a).unwrap_or(0), &mut out);
                for w in out {
                    self.stats.resumes += 1;
                    self.wake(now, w, sms);
                }
                if self.mon.as_ref().is_some_and(|m| m.log_len() > 0) {
                    self.next_scan = now + self.cfg.cp_scan_interval.max(1);
                }
            }
        }
        // Drained WGs start saving after the CP's latency.
        let draining = std::mem::take(&mut self.draining);
        let mut still = Vec::new();
        for id in draining {
            let Some(wg) = self.wgs.get(&id) else {
                continue;
            };
            let Loc::Draining { sm, slot } = wg.loc else {
                continue;
            };
            if sms[sm as usize].cta_drained(slot) {
                let need = cta_need_of(&sms[sm as usize], slot);
                let n = self.packets(need);
                let wg = self.wgs.get_mut(&id).expect("present");
                wg.need = need;
                wg.loc = Loc::Saving { sm, slot, left: n };
                let at = now + u64::from(self.cfg.context_switch_latency);
                self.set_timer(id, at, Timer::Save);
            } else {
                still.push(id);
            }
        }
        self.draining = still;
        self.switch_in(now, ctx, sms);
    }

    #[allow(clippy::too_many_arguments)]
    fn fire(
        &mut self,
        now: u64,
        id: u32,
        t: Timer,
        sms: &mut [Sm],
        mem: &mut MemSys,
        unstarted: bool,
    ) {
        match t {
            Timer::ResumeTimeout => {
                if let Some(m) = self.mon.as_mut() {
                    m.remove(id);
                }
                self.stats.timeouts += 1;
                self.wake(now, id, sms);
            }
            Timer::Arm => {
                let Some((addr, cond)) = self.wgs.get_mut(&id).and_then(|w| w.arm.take()) else {
                    return;
                };
                self.arm(now, id, addr, cond, sms, unstarted);
            }
            Timer::StallEnd => {
                if self.oversubscribed(unstarted)
                    && self.wgs.get(&id).is_some_and(|w| w.blocked.is_some())
                {
                    self.begin_switch_out(id, sms);
                }
            }
            Timer::Ready => {
                if let Some(w) = self.wgs.get_mut(&id)
                    && w.loc == Loc::Out
                {
                    w.blocked = None;
                    self.ready.push_back(id);
                }
            }
            Timer::Save => {
                if let Some(w) = self.wgs.get(&id)
                    && let Loc::Saving { sm, left, .. } = w.loc
                {
                    self.send_context(now, id, sm, left, true, mem);
                }
            }
            Timer::Restore => {
                if let Some(w) = self.wgs.get(&id)
                    && let Loc::Restoring { sm, left, .. } = w.loc
                {
                    self.send_context(now, id, sm, left, false, mem);
                }
            }
        }
    }

    /// `sync.remove_sms_at` / `sync.return_sms_at`.
    fn oversubscription_events(&mut self, now: u64, sms: &mut [Sm]) {
        let c = &self.cfg;
        let n = sms.len();
        let k = (c.remove_sms as usize).min(n.saturating_sub(1));
        if k == 0 {
            return;
        }
        if !self.events_done.0 && c.remove_sms_at > 0 && now >= c.remove_sms_at {
            self.events_done.0 = true;
            for sm in &mut sms[n - k..] {
                sm.offline = true;
            }
            for s in n - k..n {
                for c in 0..sms[s].ctas.len() {
                    let Some(cta) = &sms[s].ctas[c] else { continue };
                    let id = cta.linear;
                    let wg = self.wg(id, sms);
                    if matches!(wg.loc, Loc::Resident { .. }) {
                        if wg.blocked.is_none() {
                            wg.blocked = Some((now, false));
                        }
                        self.begin_switch_out(id, sms);
                        // Out by preemption, ready as soon as it is saved
                        // unless it waits on a condition.
                        let wg = self.wgs.get_mut(&id).expect("present");
                        if wg.blocked.is_some_and(|b| !b.1) {
                            wg.blocked = None;
                        }
                    }
                }
            }
        }
        let c = &self.cfg;
        if !self.events_done.1 && c.return_sms_at > 0 && now >= c.return_sms_at {
            self.events_done.1 = true;
            for sm in &mut sms[n - k..] {
                sm.offline = false;
            }
            self.freed = true;
        }
    }

    /// Places ready switched-out WGs on SMs with room (before new CTAs).
    fn switch_in(&mut self, now: u64, ctx: &LaunchCtx<'_>, sms: &mut [Sm]) {
        while let Some(&id) = self.ready.front() {
            let Some(wg) = self.wgs.get(&id) else {
                self.ready.pop_front();
                continue;
            };
            if wg.loc != Loc::Out || wg.saved.is_none() {
                self.ready.pop_front();
                continue;
            }
            let need = wg.need;
            let n = sms.len();
            let Some(s) = (0..n)
                .map(|k| (self.next_sm + k) % n)
                .find(|&s| sms[s].fits(need, ctx.cfg))
            else {
                return;
            };
            self.ready.pop_front();
            self.next_sm = (s + 1) % n;
            let packets = self.packets(need);
            let wg = self.wgs.get_mut(&id).expect("present");
            let saved = *wg.saved.take().expect("checked");
            let slot = sms[s].restore_cta(ctx, saved, need, now);
            sms[s].hold_cta(slot, u64::MAX);
            self.touched.push(s as u32);
            wg.loc = Loc::Restoring {
                sm: s as u32,
                slot,
                left: packets,
            };
            let at = now + u64::from(self.cfg.context_switch_latency);
            self.set_timer(id, at, Timer::Restore);
        }
    }

    /// CTAs that retired on `sm` this cycle (their records close).
    pub fn on_retired(&mut self, now: u64, ids: &[u32]) {
        for id in ids {
            if let Some(w) = self.wgs.get_mut(id) {
                w.loc = Loc::Done;
                w.rec.end = now + 1;
            }
        }
    }

    /// Switched-out WGs that still exist (a launch cannot end before they
    /// finish).
    pub fn outstanding(&self) -> bool {
        self.wgs.values().any(|w| {
            matches!(
                w.loc,
                Loc::Out | Loc::Saving { .. } | Loc::Restoring { .. } | Loc::Draining { .. }
            )
        })
    }

    /// Every WG that waits or is switched out, for a deadlock report.
    pub fn waiting_wgs(
        &self,
        global: &GlobalMemory,
        grid: [u32; 3],
    ) -> Vec<crate::func::error::WaitingWg> {
        let mut out = Vec::new();
        for (&id, w) in &self.wgs {
            if w.loc == Loc::Done {
                continue;
            }
            let out_of_sm = matches!(w.loc, Loc::Out | Loc::Saving { .. } | Loc::Restoring { .. });
            if w.episode.is_none() && !out_of_sm {
                continue;
            }
            let cta = [
                id % grid[0].max(1),
                (id / grid[0].max(1)) % grid[1].max(1),
                id / (grid[0].max(1) * grid[1].max(1)),
            ];
            let sm = match w.loc {
                Loc::Resident { sm, .. } | Loc::Draining { sm, .. } => Some(sm),
                _ => None,
            };
            out.push(crate::func::error::WaitingWg {
                cta,
                sm,
                pc: w.last.map(|l| l.pc),
                line: 0,
                addr: w.last.map(|l| l.addr),
                expected: w.last.map(|l| l.expected),
                value: w.last.map(|l| global.peek_u32(l.addr).unwrap_or(0)),
                blocked: w.blocked.is_some(),
            });
        }
        // The switched-out ones first: they are why the others wait.
        out.sort_by_key(|w| w.sm.is_some());
        out
    }

    /// The statistics so far.
    pub fn stats(&self) -> SyncStats {
        let mut s = self.stats.clone();
        s.wgs = self.records.clone();
        s.wgs.extend(self.wgs.values().map(|w| w.rec.clone()));
        s.wgs.sort_by_key(|r| (r.launch, r.wg));
        for r in &s.wgs {
            s.wg_waiting_cycles += r.waiting;
            s.wg_switched_out_cycles += r.switched_out;
            let life = r.end.saturating_sub(r.start);
            s.wg_running_cycles += life.saturating_sub(r.waiting + r.switched_out);
        }
        s.wait_insts_per_acquire = if s.acquires > 0 {
            s.wait_insts as f64 / s.acquires as f64
        } else {
            0.0
        };
        if let Some(m) = &self.mon {
            s.syncmon = m.stats().clone();
        }
        s
    }
}

/// The resources CTA slot `slot` of `sm` holds: [warps, threads,
/// registers, shared bytes].
fn cta_need_of(sm: &Sm, slot: u32) -> [u32; 4] {
    let cta = sm.ctas[slot as usize].as_ref().expect("a resident CTA");
    [cta.slots.len() as u32, cta.threads, cta.regs, cta.smem]
}
