//! The GPU: SMs, the memory system and the CTA scheduler, advanced one
//! cycle at a time. When a cycle changes nothing anywhere, the clock jumps
//! to the earliest cycle at which something can change (idle skipping) and
//! the skipped cycles are charged exactly as the current one, so results
//! do not depend on skipping.

use crate::config::GpuConfig;
use crate::func::error::SimErrorKind;
use crate::func::{GlobalMemory, SimError};
use crate::sched::LaunchInfo;
use crate::sched::registry::{self, PolicyEnv, PolicyError};
use crate::sync::policy::SyncPolicy;
use crate::timing::barrier_stats::{BarrierCounters, BarrierStats};
use crate::timing::cta::{CtaScheduler, cta_need, ctas_per_sm, never_fits};
use crate::timing::memsys::{MemSys, Packet};
use crate::timing::sampling::Sampler;
use crate::timing::sm::{IssueRecord, LaunchCtx, Sm};
use crate::timing::sm_sync::AtomicSeen;
use crate::timing::stats::{LaunchStats, SmStats, Stats};
use crate::timing::timeline::{Timeline, TimelineRecorder, TimelineSelection};
use crate::timing::wg_sync::{CONTEXT_TAG, WgSync};

/// The simulated GPU (persists across a workload's launches: L2 and DRAM
/// state carry over, L1 caches are invalidated at each launch).
pub struct Gpu {
    /// The machine.
    pub cfg: GpuConfig,
    /// Issue policy name.
    pub sched: String,
    /// Fetch policy name.
    pub fetch: String,
    /// SMs.
    pub sms: Vec<Sm>,
    /// Memory system.
    pub mem: MemSys,
    /// Current cycle.
    pub now: u64,
    /// Finished launches.
    pub launches: Vec<LaunchStats>,
    cta_policy: Box<dyn crate::sched::CtaPolicy>,
    atomics: Vec<Packet>,
    replies: Vec<Packet>,
    per_sm: Vec<Vec<Packet>>,
    /// Per SM: it must run again at this cycle (earlier if a reply or a
    /// CTA arrives). Dense, so the cycle loop need not visit sleeping SMs.
    wake: Vec<u64>,
    /// Scratch: the SMs that ran this cycle.
    ran: Vec<usize>,
    /// Barrier-phase sums of every finished launch.
    barrier_totals: BarrierCounters,
    /// Work-group synchronization (`--sync`).
    sync: WgSync,
    /// Scratch: what the atomic being performed told `sync`.
    seen: AtomicSeen,
    /// Scratch: waiting loads the SMs executed this cycle.
    issue_waits: Vec<crate::timing::sm_sync::WaitSeen>,
    /// The time series being recorded (`--sample N`).
    sampler: Option<Sampler>,
}

impl Gpu {
    /// A GPU running issue policy `sched` and fetch policy `fetch`; an
    /// unknown name is an error naming the choices.
    pub fn new(cfg: &GpuConfig, sched: &str, fetch: &str, cta: &str) -> Result<Gpu, String> {
        Gpu::with_env(cfg, sched, fetch, cta, &PolicyEnv::default())
    }

    /// [`Gpu::new`] with the inputs some policies need (a DAWS profile, a
    /// profile recorder).
    pub fn with_env(
        cfg: &GpuConfig,
        sched: &str,
        fetch: &str,
        cta: &str,
        env: &PolicyEnv,
    ) -> Result<Gpu, String> {
        let Some(cta_policy) = registry::cta_policy(cta) else {
            let names: Vec<&str> = registry::CTA_POLICIES.iter().map(|p| p.0).collect();
            return Err(format!(
                "unknown CTA policy `{cta}` (choices: {})",
                names.join(", ")
            ));
        };
        let ns = cfg.core.schedulers_per_sm.max(1) as usize;
        match registry::issue_policies(sched, cfg, ns, env) {
            Ok(_) => {}
            Err(PolicyError::Unknown) => {
                let names: Vec<&str> = registry::ISSUE_POLICIES.iter().map(|p| p.0).collect();
                return Err(format!(
                    "unknown scheduler `{sched}` (choices: {})",
                    names.join(", ")
                ));
            }
            Err(PolicyError::Invalid(why)) => return Err(why),
        }
        if registry::fetch_policy(fetch).is_none() {
            let names: Vec<&str> = registry::FETCH_POLICIES.iter().map(|p| p.0).collect();
            return Err(format!(
                "unknown fetch policy `{fetch}` (choices: {})",
                names.join(", ")
            ));
        }
        let sms = (0..cfg.core.num_sms.max(1))
            .map(|i| {
                let pols = registry::issue_policies(sched, cfg, ns, env)
                    .unwrap_or_else(|_| unreachable!("checked above"));
                Sm::new(
                    i,
                    cfg,
                    pols,
                    registry::fetch_policy(fetch).expect("checked"),
                )
            })
            .collect();
        Ok(Gpu {
            cfg: cfg.clone(),
            sched: sched.to_string(),
            fetch: fetch.to_string(),
            sms,
            mem: MemSys::new(cfg),
            now: 0,
            launches: Vec::new(),
            cta_policy,
            atomics: Vec::new(),
            replies: Vec::new(),
            per_sm: vec![Vec::new(); cfg.core.num_sms.max(1) as usize],
            wake: vec![0; cfg.core.num_sms.max(1) as usize],
            ran: Vec::new(),
            barrier_totals: BarrierCounters::default(),
            sync: WgSync::new(SyncPolicy::Busy, cfg),
            seen: AtomicSeen::default(),
            issue_waits: Vec::new(),
            sampler: None,
        })
    }

    /// Chooses the work-group synchronization policy (`--sync`; before the
    /// first launch).
    pub fn set_sync(&mut self, policy: SyncPolicy) {
        self.sync = WgSync::new(policy, &self.cfg);
        self.mem.observe_writes = policy.monitors();
    }

    /// The work-group synchronization policy.
    pub fn sync_policy(&self) -> SyncPolicy {
        self.sync.policy()
    }

    /// The synchronization statistics so far.
    pub fn sync_stats(&self) -> crate::timing::wg_sync::SyncStats {
        self.sync.stats()
    }

    /// Runs one launch to completion.
    pub fn run_launch(
        &mut self,
        ctx: &LaunchCtx<'_>,
        regs_per_thread: u32,
        global: &mut GlobalMemory,
    ) -> Result<(), SimError> {
        let r = self.run_cycles(ctx, regs_per_thread, global);
        // Every SM's counters complete, however the launch ended.
        for sm in &mut self.sms {
            sm.flush_account();
        }
        r
    }

    /// [`Gpu::run_launch`]'s cycle loop.
    fn run_cycles(
        &mut self,
        ctx: &LaunchCtx<'_>,
        regs_per_thread: u32,
        global: &mut GlobalMemory,
    ) -> Result<(), SimError> {
        let need = cta_need(ctx, regs_per_thread);
        if let Some(why) = never_fits(need, ctx.cfg) {
            return Err(SimError::launch(&ctx.kernel.name, why));
        }
        let g = ctx.grid;
        let total = u64::from(g[0]) * u64::from(g[1]) * u64::from(g[2]);
        if total == 0 {
            return Err(SimError::launch(&ctx.kernel.name, "the grid is empty"));
        }
        let info = LaunchInfo {
            kernel: ctx.kernel,
            analysis: ctx.analysis,
            table: ctx.table,
            cfg: ctx.cfg,
        };
        for sm in &mut self.sms {
            for p in &mut sm.policies {
                p.on_launch(&info);
            }
            sm.vta.clear_all();
            for (warps, shared) in sm.spare_ctas.drain(..) {
                sm.warp_pool.extend(warps);
                sm.shared_pool.push(shared);
            }
            // The L1D is invalidated at each launch; the instruction cache
            // keeps its lines (GPGPU-Sim invalidates only the L1D).
            sm.l1d.clear();
            sm.l1d_wait = crate::timing::sm::L1dWait::None;
            sm.barrier_counters = BarrierCounters::default();
            sm.pc_counters.clear();
            sm.pc_counters.resize(
                ctx.kernel.insts.len(),
                crate::timing::pc_stats::PcCounters::default(),
            );
        }
        let local_map = crate::timing::ldst::LocalMap::new(
            need[1],
            self.cfg.core.warp_size,
            ctas_per_sm(need, total, &self.cfg),
            self.cfg.core.num_sms,
        );
        for sm in &mut self.sms {
            sm.local_map = local_map;
        }
        let mut ctas = CtaScheduler::new(total, need);
        let start = self.now;
        let before = self.total_sm_stats();
        let mem_before = self.mem.stats.clone();
        let skip = self.cfg.sim.idle_skip;
        for (sm, wake) in self.sms.iter_mut().zip(&mut self.wake) {
            *wake = start;
            sm.last_run = start;
            sm.progressed = false;
        }
        let mut last_progress = start;
        // Warp instructions issued so far (only a running SM issues).
        let mut issued = before.warp_insts;
        let launch_index = self.launches.len() as u32;
        self.sync.start_launch(launch_index);
        if let Some(s) = self.sampler.as_mut() {
            s.start_launch(launch_index, start, &self.sms, &self.mem.stats);
        }
        for sm in &mut self.sms {
            if let Some(t) = sm.timeline.as_mut() {
                t.launch_start(launch_index, &ctx.kernel.name, ctx.grid, start);
            }
        }
        loop {
            let now = self.now;
            if self
                .sampler
                .as_ref()
                .is_some_and(|s| now >= s.next_boundary())
            {
                self.end_sample_window(now);
            }
            self.atomics.clear();
            self.replies.clear();
            let mem_active = self.mem.cycle(now, &mut self.atomics, &mut self.replies);
            let unstarted = !ctas.exhausted();
            for a in &self.atomics {
                self.sms[a.sm as usize].perform_global_atomic(a.tag, global, ctx, &mut self.seen);
                // Its accesses first: a failed waiting atomic's own access
                // must not resume the WG it is about to block.
                for &addr in &self.seen.accessed {
                    self.sync.on_access(now, addr, global, &mut self.sms);
                }
                if let Some(w) = self.seen.wait {
                    self.sync.on_wait(now, w, &mut self.sms, unstarted);
                }
            }
            if !self.mem.arrived_writes.is_empty() {
                let writes = std::mem::take(&mut self.mem.arrived_writes);
                for p in &writes {
                    self.sync.on_store(now, p, global, &mut self.sms);
                }
                self.mem.arrived_writes = writes;
                self.mem.arrived_writes.clear();
            }
            for r in &self.replies {
                if r.tag & CONTEXT_TAG != 0 && r.kind != crate::timing::memsys::PacketKind::Atomic {
                    self.sync.on_context_reply(now, r, &mut self.sms);
                } else {
                    self.per_sm[r.sm as usize].push(*r);
                }
            }
            self.sync
                .tick(now, ctx, &mut self.sms, &mut self.mem, global, unstarted);
            for s in self.sync.touched.drain(..) {
                self.wake[s as usize] = self.wake[s as usize].min(now);
            }
            if std::mem::take(&mut self.sync.freed) {
                ctas.on_retire();
            }
            // SMs run when they may change state: a reply arrived, or their
            // own next event is due (always, without idle skipping). A
            // sleeping SM's state is unchanged, so its cycles are charged
            // to the state it had when it last ran.
            // A sleeping SM that gets replies absorbs them (cache fills,
            // MSHRs, partial completions) and keeps sleeping unless one
            // of them can let a stage proceed.
            self.ran.clear();
            for (i, sm) in self.sms.iter_mut().enumerate() {
                let mut replies = &self.per_sm[i][..];
                if skip && now < self.wake[i] {
                    if replies.is_empty() {
                        continue;
                    }
                    sm.changed = false;
                    for p in replies {
                        sm.on_reply(p, now, ctx);
                    }
                    if !sm.changed {
                        continue;
                    }
                    replies = &[];
                }
                sm.account(now - sm.last_run);
                sm.last_run = now;
                sm.active = false;
                let insts = sm.stats.warp_insts;
                sm.cycle(now, ctx, &mut self.mem, global, replies)?;
                issued += sm.stats.warp_insts - insts;
                if sm.maybe_retire && sm.retire_ctas(now, launch_index) > 0 {
                    ctas.on_retire();
                    self.sync.on_retired(now, &sm.retired_wgs);
                }
                sm.retired_wgs.clear();
                if !sm.wait_events.is_empty() {
                    self.issue_waits.append(&mut sm.wait_events);
                }
                // Only a running SM can make progress.
                if std::mem::take(&mut sm.progressed) {
                    last_progress = now;
                }
                self.ran.push(i);
            }
            for r in &self.replies {
                self.per_sm[r.sm as usize].clear();
            }
            // Waiting loads executed at issue (`busy`): counted only.
            for w in std::mem::take(&mut self.issue_waits) {
                self.sync.on_wait(now, w, &mut self.sms, unstarted);
            }
            if std::mem::take(&mut self.sync.progressed) {
                last_progress = now;
            }
            let contention = crate::sched::Contention {
                dram_full: self.mem.stats.dram_full,
                icnt_to_sm: self.mem.stats.reply_full,
            };
            let assigned = ctas.assign(
                self.cta_policy.as_mut(),
                &mut self.sms,
                ctx,
                now,
                contention,
            );
            if assigned {
                last_progress = now;
            }
            if now - last_progress > ctx.cfg.sim.progress_window {
                let wgs = self.sync.waiting_wgs(global, ctx.grid);
                if !wgs.is_empty() {
                    return Err(self.sync_deadlock(ctx, ctx.cfg.sim.progress_window, wgs));
                }
                let resident: u64 = self.sms.iter().map(|s| u64::from(s.used[4])).sum();
                let mut e = self.deadlock(ctx);
                e.kind = SimErrorKind::NoProgress {
                    window: ctx.cfg.sim.progress_window,
                    resident,
                    waiting: ctas.total - ctas.next,
                };
                return Err(e);
            }
            // New wake-up cycles for the SMs that ran, and for those that
            // received a CTA (only those changed).
            for &i in &self.ran {
                let sm = &self.sms[i];
                self.wake[i] = if sm.active || !skip {
                    now + 1
                } else {
                    sm.next_event(now).unwrap_or(u64::MAX)
                };
            }
            if assigned {
                for (sm, wake) in self.sms.iter().zip(&mut self.wake) {
                    if sm.active {
                        *wake = now + 1;
                    }
                }
            }
            let mut next = if mem_active { now + 1 } else { u64::MAX };
            for &w in &self.wake {
                next = next.min(w);
            }
            if let Some(t) = self.sync.next_due(now) {
                next = next.min(t);
            }
            if let Some(s) = &self.sampler {
                next = next.min(s.next_boundary());
            }
            if ctas.exhausted() && self.sms.iter().all(Sm::empty) && !self.sync.outstanding() {
                self.now += 1;
                for sm in &mut self.sms {
                    sm.account(self.now - sm.last_run);
                    sm.last_run = self.now;
                }
                self.mem.account(1);
                break;
            }
            // `cycle` just computed it (or nothing was due before it). It
            // leaves out when queued packets start leaving an SM port
            // (`next_event` has them): nothing happens then, an SM that
            // waits for its port retries every cycle anyway.
            if !mem_active && let Some(t) = self.mem.next_due() {
                next = next.min(t);
            }
            if next == u64::MAX {
                let wgs = self.sync.waiting_wgs(global, ctx.grid);
                if !wgs.is_empty() {
                    return Err(self.sync_deadlock(ctx, 0, wgs));
                }
                return Err(self.deadlock(ctx));
            }
            let step = if skip { next.max(now + 1) - now } else { 1 };
            self.mem.account(step);
            self.now += step;
            debug_assert_eq!(
                issued,
                self.sms.iter().map(|s| s.stats.warp_insts).sum::<u64>()
            );
            if issued - before.warp_insts > ctx.cfg.sim.max_insts {
                let mut e = SimError::launch(&ctx.kernel.name, "");
                e.kind = SimErrorKind::StepLimit {
                    limit: ctx.cfg.sim.max_insts,
                };
                return Err(e);
            }
            if self.now - start > ctx.cfg.sim.max_cycles {
                let mut e = SimError::launch(&ctx.kernel.name, "");
                e.kind = SimErrorKind::CycleLimit {
                    limit: ctx.cfg.sim.max_cycles,
                };
                return Err(e);
            }
        }
        self.sync.end_launch(self.now);
        for sm in &mut self.sms {
            for p in &mut sm.policies {
                p.on_launch_end();
            }
            if let Some(t) = sm.timeline.as_mut() {
                t.launch_end(self.now);
            }
        }
        // Every SM's counters complete before the difference is taken.
        for sm in &mut self.sms {
            sm.flush_account();
        }
        self.end_sample_window(self.now);
        let after = self.total_sm_stats();
        let m0 = &mem_before;
        let m1 = &self.mem.stats;
        let mut stalls = crate::timing::stats::StallCounts::default();
        for s in crate::timing::stats::Stall::ALL {
            stalls.add(s, after.stalls.get(s) - before.stalls.get(s));
        }
        let mut barriers = BarrierCounters::default();
        for sm in &mut self.sms {
            barriers.merge(&std::mem::take(&mut sm.barrier_counters));
        }
        self.barrier_totals.merge(&barriers);
        let hits = |t: &SmStats| t.l1d.intra_warp_hits + t.l1d.inter_warp_hits;
        let total = after.since(&before);
        let cycles = (self.now - start).max(1) as f64;
        let pcs = {
            let per_sm: Vec<&[crate::timing::pc_stats::PcCounters]> =
                self.sms.iter().map(|s| &s.pc_counters[..]).collect();
            crate::timing::pc_stats::collect(&per_sm, |pc| ctx.kernel.insts[pc as usize].line)
        };
        self.launches.push(LaunchStats {
            kernel: ctx.kernel.name.clone(),
            grid: ctx.grid,
            block: ctx.block,
            cycles: self.now - start,
            warp_insts: after.warp_insts - before.warp_insts,
            thread_insts: after.thread_insts - before.thread_insts,
            ctas: after.ctas - before.ctas,
            shared_bytes: ctx.dynamic_shared,
            regs_per_thread,
            regs_source: String::new(),
            stalls,
            l1d_accesses: after.l1d.accesses - before.l1d.accesses,
            l1d_hits: hits(&after) - hits(&before),
            l1d_misses: after.l1d.misses - before.l1d.misses,
            l2_accesses: m1.l2_accesses - m0.l2_accesses,
            l2_hits: m1.l2_hits - m0.l2_hits,
            l2_misses: m1.l2_misses - m0.l2_misses,
            dram_reads: m1.dram_reads - m0.dram_reads,
            dram_writes: m1.dram_writes - m0.dram_writes,
            shared_accesses: after.shared_accesses - before.shared_accesses,
            barriers: BarrierStats::of(&barriers),
            ipc: total.warp_insts as f64 / cycles,
            thread_ipc: total.thread_insts as f64 / cycles,
            locality: crate::timing::stats::LocalityStats::of(&total),
            total,
            mem: m1.since(m0),
            pcs,
        });
        Ok(())
    }

    /// All SMs' counters summed.
    fn total_sm_stats(&self) -> SmStats {
        let mut total = SmStats::default();
        for s in &self.sms {
            total.merge(&s.stats);
        }
        total
    }

    /// A [`SimErrorKind::Deadlock`] naming the waiting work-groups.
    fn sync_deadlock(
        &self,
        ctx: &LaunchCtx<'_>,
        window: u64,
        mut wgs: Vec<crate::func::error::WaitingWg>,
    ) -> SimError {
        for w in &mut wgs {
            if let Some(pc) = w.pc {
                w.line = ctx.kernel.insts[pc as usize].line;
            }
        }
        let mut e = SimError::launch(&ctx.kernel.name, "");
        if let Some(w) = wgs.first() {
            e.inst = w.pc;
            e.line = w.line;
            e.cta = w.cta;
            e.addr = w.addr;
        }
        e.kind = SimErrorKind::Deadlock { window, wgs };
        e
    }

    fn deadlock(&self, ctx: &LaunchCtx<'_>) -> SimError {
        let mut e = SimError::launch(&ctx.kernel.name, "");
        e.kind = SimErrorKind::BarrierDeadlock;
        for sm in &self.sms {
            for cta in sm.ctas.iter().flatten() {
                if let Some((i, w)) = cta.warps.iter().enumerate().find(|(_, w)| !w.done()) {
                    e.inst = w.barrier.map(|b| b.inst).or(w.pc());
                    e.line = e.inst.map_or(0, |i| ctx.kernel.insts[i as usize].line);
                    e.cta = cta.id;
                    e.warp = i as u32;
                    return e;
                }
            }
        }
        e
    }

    /// Records a time series with windows of `interval` cycles
    /// ([`crate::timing::sampling`]).
    pub fn enable_sampling(&mut self, interval: u64) {
        self.sampler = Some(Sampler::new(interval));
    }

    /// Ends the sampling window at `now`: every SM's cycles are charged up
    /// to `now` first.
    fn end_sample_window(&mut self, now: u64) {
        let Some(s) = self.sampler.as_mut() else {
            return;
        };
        for sm in &mut self.sms {
            sm.account(now - sm.last_run);
            sm.last_run = now;
            sm.flush_account();
        }
        s.end_window(now, &self.sms, &self.mem.stats);
    }

    /// Starts recording every issued instruction.
    pub fn enable_issue_log(&mut self) {
        for sm in &mut self.sms {
            // Logging needs every warp's state in every run: the full
            // issue stage (no warp is resident between launches).
            debug_assert!(sm.live_slots.is_empty());
            sm.incremental = false;
            sm.issue_log.get_or_insert_with(Vec::new);
        }
    }

    /// Starts recording the timeline `sel` asks for (before the first
    /// launch). Its SM runs the issue stage that visits every warp (the
    /// same states, so the same cycles). An SM the machine lacks is an
    /// error naming the SMs there are.
    pub fn enable_timeline(&mut self, sel: TimelineSelection) -> Result<(), String> {
        let n = self.sms.len();
        let Some(sm) = self.sms.get_mut(sel.sm as usize) else {
            return Err(format!(
                "--sm {}: the machine has {n} SM{} (0 to {})",
                sel.sm,
                if n == 1 { "" } else { "s" },
                n - 1
            ));
        };
        debug_assert!(sm.live_slots.is_empty());
        sm.incremental = false;
        let (warps, ctas) = (sm.warps.len(), sm.ctas.len());
        sm.timeline = Some(Box::new(TimelineRecorder::new(sel, warps, ctas)));
        Ok(())
    }

    /// The recorded timeline, if one was asked for (taken).
    pub fn take_timeline(&mut self) -> Option<Timeline> {
        self.sms
            .iter_mut()
            .find_map(|s| s.timeline.take())
            .map(|t| t.timeline)
    }

    /// The issue log so far (all SMs, by cycle then SM and slot), emptied.
    pub fn take_issue_log(&mut self) -> Vec<IssueRecord> {
        let mut all: Vec<IssueRecord> = self
            .sms
            .iter_mut()
            .filter_map(|s| s.issue_log.as_mut().map(std::mem::take))
            .flatten()
            .collect();
        all.sort();
        all
    }

    /// The statistics so far.
    pub fn stats(&self) -> Stats {
        let total = self.total_sm_stats();
        let cycles: u64 = self.launches.iter().map(|l| l.cycles).sum();
        let c = cycles.max(1) as f64;
        Stats {
            sched: self.sched.clone(),
            fetch: self.fetch.clone(),
            cycles,
            warp_insts: total.warp_insts,
            thread_insts: total.thread_insts,
            ipc: total.warp_insts as f64 / c,
            thread_ipc: total.thread_insts as f64 / c,
            schedulers: u64::from(self.cfg.core.schedulers_per_sm.max(1)) * self.sms.len() as u64,
            stalls: total.stalls,
            locality: crate::timing::stats::LocalityStats::of(&total),
            barriers: BarrierStats::of(&self.barrier_totals),
            total,
            mem: self.mem.stats.clone(),
            launches: self.launches.clone(),
            samples: self.sampler.as_ref().map(|s| s.samples.clone()),
            sms: self.sms.iter().map(|s| s.stats.clone()).collect(),
            warps: {
                let mut w: Vec<_> = self
                    .sms
                    .iter()
                    .flat_map(|s| s.warp_records.iter().cloned())
                    .collect();
                w.sort_by_key(|r| (r.launch, r.end, r.sm, r.cta, r.warp));
                w
            },
            warps_omitted: self.sms.iter().map(|s| s.warp_records_omitted).sum(),
            sync: self.sync.stats(),
        }
    }
}
