//! The issue stage: each scheduler asks its policy for a priority order and
//! issues the first warp(s) that can issue; every scheduler-cycle and every
//! warp-cycle is charged to exactly one [`Stall`] category (DESIGN §3).
//!
//! A warp's reason, checked in this order: `exit` (exited) → `barrier`
//! (waiting at, or being released from, a barrier) → `sync_wait`
//! (sleeping) → `control` / `fetch` (no valid instruction in the I-buffer:
//! `control` after a taken branch or reconvergence emptied it, else
//! `fetch`) → `data` (scoreboard) → `throttled` (the policy forbids it) →
//! `structural` (its unit is busy) → ready.

use crate::func::exec::{ExecCtx, LaunchEnv, exec_into};
use crate::func::{GlobalMemory, SimError};
use crate::ir::{Opcode, Operand};
use crate::sched::{IssuePolicy, Issued, SchedView};
use crate::timing::sm::{IssueRecord, LaunchCtx, Sm, SmEvent, WarpSlot};
use crate::timing::stats::Stall;
use crate::timing::units::{Unit, UnitPool};

/// Why `w` cannot issue now, or `Stall::Issued` if it can.
#[allow(clippy::too_many_arguments)]
fn reason(
    w: &WarpSlot,
    slot: u32,
    now: u64,
    ctx: &LaunchCtx<'_>,
    policy: &dyn IssuePolicy,
    view: &SchedView<'_>,
    units: &[UnitPool; 3],
    ldst_busy: bool,
) -> Stall {
    if w.done {
        return Stall::Exit;
    }
    if w.barrier_wait || w.barrier_release > now {
        return Stall::Barrier;
    }
    if w.sleep_until > now {
        return Stall::SyncWait;
    }
    let Some(head) = w.ibuf.front().filter(|e| e.ready <= now) else {
        return if w.branch_flush {
            Stall::Control
        } else {
            Stall::Fetch
        };
    };
    let ti = &ctx.table[head.pc as usize];
    if w.sb.blocks(&ti.hazards) {
        return Stall::Data;
    }
    if policy.throttles() && !policy.can_issue(slot, view, ti) {
        return Stall::Throttled;
    }
    let busy = match ti.unit {
        Unit::LdSt => ldst_busy,
        u => units[u.index()].free(now).is_none(),
    };
    if busy {
        Stall::Structural
    } else {
        Stall::Issued
    }
}

impl Sm {
    /// Runs every scheduler's issue for cycle `now`.
    pub(crate) fn issue(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        global: &mut GlobalMemory,
    ) -> Result<(), SimError> {
        for (ages, _) in &self.sched_warps {
            for &slot in ages {
                let w = &mut self.warps[slot as usize];
                w.state = None;
                w.ready_unpicked = false;
            }
        }
        let width = ctx.cfg.core.issue_width.max(1);
        let mut order = std::mem::take(&mut self.order_buf);
        for s in 0..self.sched_warps.len() {
            order.clear();
            {
                let (ages, slots) = &self.sched_warps[s];
                let view = SchedView {
                    now,
                    warps: ages,
                    by_slot: slots,
                    info: &self.views,
                };
                self.policies[s].order(&view, &mut order);
            }
            let mut issued = 0;
            let log_start = self.issue_log.as_ref().map_or(0, Vec::len);
            let mut first: Option<Stall> = None;
            for &slot in &order {
                let r = self.reason_of(slot, s, now, ctx);
                if r == Stall::Issued {
                    if issued < width {
                        self.issue_one(slot, s, now, ctx, global)?;
                        issued += 1;
                        self.warps[slot as usize].state = Some(Stall::Issued);
                    } else {
                        self.warps[slot as usize].ready_unpicked = true;
                    }
                } else {
                    self.warps[slot as usize].state = Some(r);
                    first.get_or_insert(r);
                }
            }
            // Warps the policy left out of its order.
            let n = self.sched_warps[s].0.len();
            let mut oldest: Option<Stall> = None;
            for i in 0..n {
                let slot = self.sched_warps[s].0[i];
                let w = &self.warps[slot as usize];
                if w.state.is_some() || w.ready_unpicked {
                    if i == 0 {
                        oldest = w.state;
                    }
                    continue;
                }
                let r = match self.reason_of(slot, s, now, ctx) {
                    Stall::Issued => Stall::Throttled,
                    r => r,
                };
                self.warps[slot as usize].state = Some(r);
                if i == 0 {
                    oldest = Some(r);
                }
            }
            if let Some(log) = self.issue_log.as_mut() {
                let mut mask = 0u64;
                for &slot in &self.sched_warps[s].0 {
                    if self.warps[slot as usize].ready_unpicked && slot < 64 {
                        mask |= 1 << slot;
                    }
                }
                for r in &mut log[log_start..] {
                    r.ready_unpicked = mask;
                }
            }
            let throttled = self.sched_warps[s]
                .0
                .iter()
                .any(|&w| self.warps[w as usize].state == Some(Stall::Throttled));
            self.sched_activity[s] = if issued > 0 {
                0
            } else if throttled {
                2
            } else {
                1
            };
            self.sched_state[s] = if issued > 0 {
                Stall::Issued
            } else if n == 0 {
                Stall::Idle
            } else {
                first.or(oldest).unwrap_or(Stall::Throttled)
            };
        }
        self.order_buf = order;
        self.state_counts = [0; 10];
        self.ready_count = 0;
        for (ages, _) in &self.sched_warps {
            for &slot in ages {
                let w = &mut self.warps[slot as usize];
                let now_state = match w.state {
                    Some(st) => {
                        self.state_counts[st as usize] += 1;
                        st as u8
                    }
                    None => 10,
                };
                if w.ready_unpicked {
                    self.ready_count += 1;
                }
                // Per-warp time in each state: close the previous state's
                // interval when it changes.
                let (prev, since) = w.timed_state;
                if prev != now_state {
                    w.state_cycles[prev as usize] += now - since;
                    w.timed_state = (now_state, now);
                }
            }
        }
        Ok(())
    }

    /// `slot`'s reason computed from the pipeline state.
    fn fresh_reason(&self, slot: u32, s: usize, now: u64, ctx: &LaunchCtx<'_>) -> Stall {
        let (ages, slots) = &self.sched_warps[s];
        let view = SchedView {
            now,
            warps: ages,
            by_slot: slots,
            info: &self.views,
        };
        reason(
            &self.warps[slot as usize],
            slot,
            now,
            ctx,
            self.policies[s].as_ref(),
            &view,
            &self.units,
            self.ldst_job.is_some() || self.ldst_free > now,
        )
    }

    /// `slot`'s reason, from its cache when still valid. A cached reason
    /// stays valid until the warp's own inputs change (issue, fetch,
    /// writeback, barrier release: these clear the cache), until a known
    /// cycle (I-buffer arrival, barrier release, sleep end, unit release),
    /// and — for `structural` and ready — until any unit changes hands
    /// (`unit_epoch`). Policies that throttle are asked every time.
    fn reason_of(&mut self, slot: u32, s: usize, now: u64, ctx: &LaunchCtx<'_>) -> Stall {
        let si = slot as usize;
        if let Some((r, until, epoch)) = self.warps[si].reason_cache
            && now < until
            && (epoch == self.unit_epoch || !matches!(r, Stall::Structural | Stall::Issued))
        {
            // Debug builds check every cached reason against a fresh one.
            #[cfg(debug_assertions)]
            {
                let fresh = self.fresh_reason(slot, s, now, ctx);
                debug_assert_eq!(
                    fresh, r,
                    "slot {slot} at {now}: stale cached reason (until {until}, epoch {epoch})"
                );
            }
            return r;
        }
        let r = self.fresh_reason(slot, s, now, ctx);
        if self.policies[s].throttles() {
            return r;
        }
        let w = &self.warps[si];
        let until = match r {
            Stall::Exit | Stall::Data | Stall::Issued => u64::MAX,
            Stall::Barrier if w.barrier_wait => u64::MAX,
            Stall::Barrier => w.barrier_release,
            Stall::SyncWait => w.sleep_until,
            Stall::Fetch | Stall::Control => w.ibuf.front().map_or(u64::MAX, |e| e.ready),
            Stall::Structural => {
                let head = w
                    .ibuf
                    .front()
                    .expect("a structural stall has an instruction");
                match ctx.table[head.pc as usize].unit {
                    Unit::LdSt if self.ldst_free > now => self.ldst_free,
                    Unit::LdSt => u64::MAX,
                    u => self.units[u.index()].next_free(now).unwrap_or(u64::MAX),
                }
            }
            Stall::Throttled | Stall::Idle => now + 1,
        };
        self.warps[si].reason_cache = Some((r, until, self.unit_epoch));
        r
    }

    /// Issues the head instruction of `slot`: executes it functionally and
    /// books its unit, scoreboard and completion.
    fn issue_one(
        &mut self,
        slot: u32,
        s: usize,
        now: u64,
        ctx: &LaunchCtx<'_>,
        global: &mut GlobalMemory,
    ) -> Result<(), SimError> {
        self.active = true;
        let si = slot as usize;
        self.warps[si].reason_cache = None;
        self.unit_epoch += 1;
        let head = self.warps[si]
            .ibuf
            .pop_front()
            .expect("ready warp has an instruction");
        let (c, index) = (self.warps[si].cta as usize, self.warps[si].index as usize);
        let cfg = ctx.cfg;
        let cta = self.ctas[c].as_mut().expect("live warp has a CTA");
        let fw = &mut cta.warps[index];
        debug_assert_eq!(fw.pc(), Some(head.pc));
        let inst = &ctx.kernel.insts[head.pc as usize];
        let sleep = if inst.op == Opcode::Nanosleep {
            let lane = fw.stack.active().trailing_zeros().min(fw.lanes - 1);
            match inst.src[0] {
                Operand::Imm(v) => v,
                Operand::Reg(r) => fw.reg(r.0, lane),
                _ => 0,
            }
        } else {
            0
        };
        let mut cx = ExecCtx {
            kernel: ctx.kernel,
            info: ctx.info,
            global,
            shared: &mut cta.shared,
            params: ctx.params,
            env: LaunchEnv {
                ctaid: cta.id,
                ntid: ctx.block,
                nctaid: ctx.grid,
                smid: self.id,
                nsmid: cfg.core.num_sms,
                nwarpid: cfg.core.max_warps_per_sm,
                clock: now,
            },
        };
        exec_into(fw, &mut cx, &mut self.dyn_buf)?;
        if let Some(log) = self.issue_log.as_mut() {
            log.push(IssueRecord {
                cycle: now,
                sm: self.id,
                slot,
                scheduler: s as u32,
                cta: cta.id,
                warp: index as u32,
                pc: head.pc,
                ready_unpicked: 0,
            });
        }
        let d = self.dyn_buf;
        self.stats.warp_insts += 1;
        self.warps[si].insts += 1;
        let lanes = d.exec.count_ones();
        self.stats.thread_insts += u64::from(lanes);
        let bin = (lanes.saturating_sub(1) * 8 / cfg.core.warp_size.max(1)).min(7);
        self.stats.lane_histogram[bin as usize] += 1;
        let ti = &ctx.table[head.pc as usize];
        self.views[si].lanes = lanes;
        if let Some(npc) = d.next_pc {
            self.views[si].pc = npc;
        }
        {
            let (ages, slots) = &self.sched_warps[s];
            let view = SchedView {
                now,
                warps: ages,
                by_slot: slots,
                info: &self.views,
            };
            let what = Issued {
                pc: head.pc,
                lanes,
                next_pc: d.next_pc,
                barrier: d.barrier,
            };
            self.policies[s].on_issue(slot, &view, ti, &what);
            if d.next_pc.is_none() {
                self.policies[s].on_warp_exit(slot);
            }
        }
        // Control flow: keep the I-buffer only if it holds the next PC.
        let w = &mut self.warps[si];
        if ti.control {
            w.fetch_blocked = false;
        }
        match d.next_pc {
            None => {
                self.progressed = true;
                w.done = true;
                if w.outstanding == 0 {
                    self.maybe_retire = true;
                }
                w.ibuf.clear();
                w.fetch_blocked = false;
                self.views[si].done = true;
            }
            Some(npc) => {
                let expected = w.ibuf.front().map_or(w.fetch_pc, |e| e.pc);
                if expected != npc {
                    if !w.ibuf.is_empty() {
                        self.stats.ibuffer_flushes += 1;
                    }
                    w.ibuf.clear();
                    w.fetch_pc = npc;
                    w.fetch_blocked = false;
                    w.branch_flush = true;
                } else {
                    w.branch_flush = false;
                }
            }
        }
        if sleep > 0 {
            w.sleep_until = now + sleep;
        }
        // Units and completion.
        match ti.unit {
            Unit::LdSt => self.ldst_accept(slot, now, ctx, global),
            u => {
                let pool = &mut self.units[u.index()];
                let k = pool.free(now).expect("checked free");
                pool.busy_until[k] = now + u64::from(ti.initiation);
                if !ti.writes.is_empty() {
                    let w = &mut self.warps[si];
                    w.sb.reserve(&ti.writes);
                    w.outstanding += 1;
                    self.schedule(
                        now + u64::from(ti.latency),
                        SmEvent::Writeback {
                            slot,
                            inst: head.pc,
                        },
                    );
                }
            }
        }
        if d.barrier {
            self.warps[si].barrier_wait = true;
            self.views[si].at_barrier = true;
        }
        if d.barrier || d.exit {
            self.release_barriers(c, now, ctx);
        }
        Ok(())
    }

    /// Releases the barriers of CTA slot `c` that every expected warp has
    /// reached; the released warps may issue `barrier_latency` cycles later.
    fn release_barriers(&mut self, c: usize, now: u64, ctx: &LaunchCtx<'_>) {
        let cta = self.ctas[c].as_mut().expect("live CTA");
        crate::func::launch::release_barriers(ctx.kernel, &mut cta.warps);
        for (i, &s) in cta.slots.iter().enumerate() {
            let w = &mut self.warps[s as usize];
            if w.barrier_wait && cta.warps[i].barrier.is_none() {
                w.barrier_wait = false;
                w.reason_cache = None;
                w.barrier_release = now + u64::from(ctx.cfg.core.barrier_latency);
                self.views[s as usize].at_barrier = false;
            }
        }
    }
}
