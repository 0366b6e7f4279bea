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
use crate::ir::Operand;
use crate::sched::{IssuePolicy, Issued, SchedView};
use crate::timing::opcoll::WRITEBACK_STAGES;
use crate::timing::sm::{IssueRecord, LaunchCtx, Sm, SmEvent, WarpSlot};
use crate::timing::stats::Stall;
use crate::timing::units::Unit;
use crate::timing::warp_charge::{Charge, GROUP, UNITS};

/// Why `w` cannot issue now apart from its unit, or `Stall::Issued` if
/// only the unit of its next instruction is left to check. Every input
/// is the warp's own state, the time, or (for policies that throttle) the
/// policy.
#[allow(clippy::too_many_arguments)]
fn local_reason(
    w: &WarpSlot,
    slot: u32,
    now: u64,
    ctx: &LaunchCtx<'_>,
    policy: &dyn IssuePolicy,
    view: &SchedView<'_>,
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
    // A wrong-path I-buffer (`core.branch_redirect`): flushed when the
    // scheduler visits the warp, never issued.
    if w.redirect.is_some() {
        return Stall::Control;
    }
    let Some(head) = w.ibuf.front().filter(|e| e.ready <= now) else {
        return if w.branch_flush {
            Stall::Control
        } else {
            Stall::Fetch
        };
    };
    let ti = &ctx.table[head.pc as usize];
    if w.atomics > 0 || w.sb.blocks(&ti.hazards) {
        return Stall::Data;
    }
    if policy.throttles() && !policy.can_issue(slot, view, ti) {
        return Stall::Throttled;
    }
    Stall::Issued
}

/// The cycle before which the local reason `local` of `w` stays valid
/// unless one of the warp's own inputs changes.
fn reason_until(w: &WarpSlot, local: Stall, now: u64) -> u64 {
    match local {
        Stall::Exit | Stall::Data | Stall::Issued => u64::MAX,
        Stall::Barrier if w.barrier_wait => u64::MAX,
        Stall::Barrier => w.barrier_release,
        Stall::SyncWait => w.sleep_until,
        // (A wrong-path head already there changes on a visit, not a
        // clock: `core.branch_redirect`.)
        Stall::Fetch | Stall::Control => w
            .ibuf
            .front()
            .map(|e| e.ready)
            .filter(|&t| t > now)
            .unwrap_or(u64::MAX),
        Stall::Structural | Stall::Throttled | Stall::Idle => now + 1,
    }
}

/// The [`Stall`] with index `i`.
fn stall_of(i: u8) -> Stall {
    Stall::ALL[usize::from(i)]
}

/// The unit the next instruction of a warp that passed [`local_reason`]
/// needs.
fn head_unit(w: &WarpSlot, ctx: &LaunchCtx<'_>) -> Unit {
    let head = w
        .ibuf
        .front()
        .expect("a warp past its local checks has an instruction");
    ctx.table[head.pc as usize].unit
}

impl Sm {
    /// Runs every scheduler's issue for cycle `now`: incrementally when the
    /// SM can ([`Sm::incremental`]), else visiting every warp.
    pub(crate) fn issue(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        global: &mut GlobalMemory,
    ) -> Result<(), SimError> {
        // The states are about to change: charge the cycles they held.
        self.flush_account();
        if self.incremental {
            self.issue_incremental(now, ctx, global)
        } else {
            self.issue_every_warp(now, ctx, global)
        }
    }

    /// The issue stage without visiting every warp. Warps whose cached
    /// reason was dropped or expired are re-evaluated first; then each
    /// scheduler walks its policy's order only until it has issued. A
    /// warp's state is its own reason, `issued`, or — when only its unit
    /// stands in the way — its unit group's: `structural` if the unit is
    /// busy after the scheduler's issue, else ready (a warp before the
    /// issued one found its unit busy, which it still is; one after it
    /// sees the unit as it is now). That is exactly what visiting every
    /// warp in order computes, as long as every warp is in the order (no
    /// `throttled`) and an issue cannot make another warp issuable in the
    /// same cycle (barriers release a cycle or more later).
    fn issue_incremental(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        global: &mut GlobalMemory,
    ) -> Result<(), SimError> {
        self.issue_run += 1;
        self.expire_reasons(now);
        let mut dirty = std::mem::take(&mut self.dirty);
        for &slot in &dirty {
            let si = slot as usize;
            if !std::mem::take(&mut self.issue_slots[si].dirty) || !self.warps[si].live {
                continue;
            }
            let c = self.local_charge(slot, now, ctx);
            self.charge_as(slot, c, now);
        }
        dirty.clear();
        // Warps that issue below are queued again for the next run.
        self.dirty = dirty;
        let width = ctx.cfg.core.issue_width.max(1);
        let mut order = std::mem::take(&mut self.order_buf);
        let nsched = self.sched_warps.len();
        let rotation = Self::sched_rotation(nsched, now, ctx);
        for si in 0..nsched {
            let s = Self::sched_turn(si, nsched, rotation);
            // Units free now, one bit each (an issue may take one).
            let mut free = self.free_units(now);
            order.clear();
            if self.wants_detail[s] {
                self.fill_detail(s, now, ctx.table);
            }
            {
                let (ages, slots) = &self.sched_warps[s];
                let view = SchedView {
                    now,
                    warps: ages,
                    by_slot: slots,
                    info: &self.views,
                    cta_barrier: &self.cta_barrier,
                    detail: &self.detail,
                };
                // No warp can issue (none is blocked only by a free unit):
                // the scheduler's state is its first warp's, if the policy
                // can name it without ordering them all.
                let issuable = free & self.groups_nonempty[s] != 0;
                debug_assert_eq!(
                    issuable,
                    (0..UNITS).any(|u| free >> u & 1 == 1 && self.groups[s * UNITS + u].count > 0)
                );
                let would_issue = |slot: u32| {
                    let code = self.charge_codes[slot as usize];
                    code >= GROUP && free >> (code - GROUP) & 1 == 1
                };
                match self.policies[s].first_in_order(&view) {
                    // (Unless a warp has a wrong path to flush: the visit
                    // to every warp before the first issue flushes it.)
                    Some(first) if !issuable && self.redirects_pending == 0 => order.extend(first),
                    // The first warp issues, and one issue is all the
                    // scheduler may make: the walk ends there.
                    Some(Some(first)) if width == 1 && would_issue(first) => order.push(first),
                    _ => {
                        self.policies[s].order(&view, &mut order);
                        debug_assert_eq!(order.len(), ages.len());
                    }
                }
            }
            // Incremental issue only runs with policies that throttle
            // nobody: core activity is issue or no warp ready.
            self.sched_activity[s] = 1;
            let mut issued = 0;
            let mut first: Option<Stall> = None;
            for &slot in &order {
                // `core.branch_redirect`: the scheduler's visits before
                // its first issue flush a wrong-path I-buffer; the warp's
                // state is then looked at afresh.
                if issued == 0 && self.redirects_pending > 0 && self.redirect_on_visit(slot, now) {
                    let c = self.local_charge(slot, now, ctx);
                    self.charge_as(slot, c, now);
                }
                let code = self.charge_codes[slot as usize];
                let r = if code < GROUP {
                    stall_of(code)
                } else if free >> (code - GROUP) & 1 == 0 {
                    Stall::Structural
                } else {
                    Stall::Issued
                };
                if r == Stall::Issued {
                    self.issue_one(slot, s, now, ctx, global)?;
                    self.charge_as(slot, Charge::Fixed(Stall::Issued), now);
                    free = self.free_units(now);
                    issued += 1;
                    self.sched_activity[s] = 0;
                    if issued == width {
                        break;
                    }
                } else {
                    first.get_or_insert(r);
                }
            }
            for u in 0..UNITS {
                self.set_group_busy(s, u, free >> u & 1 == 0, now);
            }
            #[cfg(debug_assertions)]
            self.check_incremental_states(s, now, ctx);
            let n = self.sched_warps[s].0.len();
            self.sched_state[s] = if issued > 0 {
                Stall::Issued
            } else if n == 0 {
                Stall::Idle
            } else {
                first.unwrap_or(Stall::Throttled)
            };
        }
        self.order_buf = order;
        self.count_states();
        Ok(())
    }

    /// Computes `slot`'s unit-independent reason afresh and caches it with
    /// the cycle it expires and the unit its head instruction needs:
    /// (reason, unit, expiry).
    fn refresh_local_reason(
        &mut self,
        slot: u32,
        s: usize,
        now: u64,
        ctx: &LaunchCtx<'_>,
    ) -> (Stall, Unit, u64) {
        let si = slot as usize;
        let w = &self.warps[si];
        let (ages, slots) = &self.sched_warps[s];
        let view = SchedView {
            now,
            warps: ages,
            by_slot: slots,
            info: &self.views,
            cta_barrier: &self.cta_barrier,
            detail: &self.detail,
        };
        let local = local_reason(w, slot, now, ctx, self.policies[s].as_ref(), &view);
        let until = reason_until(w, local, now);
        let unit = if local == Stall::Issued {
            head_unit(w, ctx)
        } else {
            Unit::Sp
        };
        let is = &mut self.issue_slots[si];
        is.reason = Some(local);
        is.until = until;
        is.unit = unit;
        (local, unit, until)
    }

    /// What `slot` is charged from its (cached) local reason: that reason,
    /// or its unit group when only the unit is left to check. Caches the
    /// reason and arranges its re-evaluation when it expires.
    fn local_charge(&mut self, slot: u32, now: u64, ctx: &LaunchCtx<'_>) -> Charge {
        let si = slot as usize;
        let is = self.issue_slots[si];
        let (local, unit) = match is.reason {
            Some(local) if now < is.until => (local, is.unit),
            _ => {
                let (local, unit, until) =
                    self.refresh_local_reason(slot, is.scheduler as usize, now, ctx);
                self.wake_at_cycle(slot, until);
                (local, unit)
            }
        };
        if local == Stall::Issued {
            Charge::Group(unit)
        } else {
            Charge::Fixed(local)
        }
    }

    /// Debug builds: every warp of scheduler `s` is charged what visiting
    /// it now, after the scheduler's issue, would give.
    #[cfg(debug_assertions)]
    pub(crate) fn check_incremental_states(&self, s: usize, now: u64, ctx: &LaunchCtx<'_>) {
        for &slot in &self.sched_warps[s].0 {
            let code = self.charge_codes[slot as usize];
            if code == Stall::Issued as u8 {
                continue;
            }
            let charged = if code < GROUP {
                stall_of(code)
            } else if self.groups[s * UNITS + usize::from(code - GROUP)].busy {
                Stall::Structural
            } else {
                Stall::Issued
            };
            let fresh = self.fresh_reason(slot, s, now, ctx);
            debug_assert_eq!(charged, fresh, "slot {slot} at {now}: incremental state");
        }
    }

    /// Runs every scheduler's issue for cycle `now` visiting every warp.
    /// Each live warp gets its state for the cycle once, in its
    /// scheduler's priority order (then the warps the policy left out),
    /// and is charged as it gets it.
    fn issue_every_warp(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        global: &mut GlobalMemory,
    ) -> Result<(), SimError> {
        self.issue_run += 1;
        self.state_counts = [0; 10];
        self.ready_count = 0;
        let width = ctx.cfg.core.issue_width.max(1);
        let mut order = std::mem::take(&mut self.order_buf);
        let nsched = self.sched_warps.len();
        let rotation = Self::sched_rotation(nsched, now, ctx);
        for si in 0..nsched {
            let s = Self::sched_turn(si, nsched, rotation);
            order.clear();
            if self.wants_detail[s] {
                self.fill_detail(s, now, ctx.table);
            }
            {
                let (ages, slots) = &self.sched_warps[s];
                let view = SchedView {
                    now,
                    warps: ages,
                    by_slot: slots,
                    info: &self.views,
                    cta_barrier: &self.cta_barrier,
                    detail: &self.detail,
                };
                self.policies[s].order(&view, &mut order);
            }
            let mut issued = 0;
            let log_start = self.issue_log.as_ref().map_or(0, Vec::len);
            let mut first: Option<Stall> = None;
            let mut charged = 0;
            for &slot in &order {
                debug_assert_ne!(
                    self.issue_slots[slot as usize].state_run, self.issue_run,
                    "slot {slot} twice in a policy's order"
                );
                // GPGPU-Sim's scheduler looks at warps in order until one
                // issues (`scheduler_unit::cycle` breaks there).
                if issued == 0 && self.redirects_pending > 0 {
                    self.redirect_on_visit(slot, now);
                }
                let r = self.reason_of(slot, s, now, ctx);
                let state = if r == Stall::Issued {
                    if issued < width {
                        self.issue_one(slot, s, now, ctx, global)?;
                        issued += 1;
                        Some(Stall::Issued)
                    } else {
                        None
                    }
                } else {
                    first.get_or_insert(r);
                    Some(r)
                };
                self.charge(slot, state, now);
                charged += 1;
            }
            // Warps the policy left out of its order.
            let n = self.sched_warps[s].0.len();
            if charged < n {
                for i in 0..n {
                    let slot = self.sched_warps[s].0[i];
                    if self.issue_slots[slot as usize].state_run == self.issue_run {
                        continue;
                    }
                    let r = match self.reason_of(slot, s, now, ctx) {
                        Stall::Issued => Stall::Throttled,
                        r => r,
                    };
                    self.charge(slot, Some(r), now);
                }
            }
            // The oldest warp's state (its reason when the order was empty).
            let oldest = self.sched_warps[s]
                .0
                .first()
                .and_then(|&slot| self.issue_slots[slot as usize].state);
            if let Some(log) = self.issue_log.as_mut() {
                let mut mask = 0u64;
                for &slot in &self.sched_warps[s].0 {
                    if self.issue_slots[slot as usize].state.is_none() && slot < 64 {
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
                .any(|&w| self.issue_slots[w as usize].state == Some(Stall::Throttled));
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
        Ok(())
    }

    /// `core.branch_redirect`: the scheduler looks at `slot` before any of
    /// its warps has issued this cycle. If the warp's next PC is not the
    /// fall-through its fetch followed and its I-buffer head is valid (and
    /// the warp is not waiting at a barrier or for an atomic), the
    /// I-buffer is flushed and fetch restarts at the real PC: GPGPU-Sim's
    /// `scheduler_unit::cycle` (`pc != pI->pc` → `set_next_pc`,
    /// `ibuffer_flush`), which `shd_warp_t::waiting` keeps from looking at
    /// a waiting warp. The warp issues nothing this cycle (`control`).
    fn redirect_on_visit(&mut self, slot: u32, now: u64) -> bool {
        let w = &mut self.warps[slot as usize];
        let Some(npc) = w.redirect else { return false };
        if w.done || w.barrier_wait || w.barrier_release > now || w.atomics > 0 {
            return false;
        }
        if w.ibuf.front().is_none_or(|e| e.ready > now) {
            return false;
        }
        w.ibuf.clear();
        w.fetch_pc = npc;
        w.redirect = None;
        self.redirects_pending -= 1;
        self.stats.ibuffer_flushes += 1;
        self.active = true;
        self.mark_dirty(slot);
        self.refresh_fetch_need(slot);
        true
    }

    /// Gives `slot` its state for this cycle (`None`: ready but not
    /// picked) and charges it: the SM's per-state warp counts, and the
    /// warp's own state interval, closed when the state changes.
    fn charge(&mut self, slot: u32, state: Option<Stall>, now: u64) {
        let is = &mut self.issue_slots[slot as usize];
        is.state_run = self.issue_run;
        is.state = state;
        let now_state = match state {
            Some(st) => {
                self.state_counts[st as usize] += 1;
                st as u8
            }
            None => {
                self.ready_count += 1;
                10
            }
        };
        let code = self.charge_codes[slot as usize];
        if code != now_state {
            let (since, pc) = (is.timed_since, is.charge_pc);
            self.warps[slot as usize].state_cycles[code as usize] += now - since;
            self.charge_pc(pc, code, now - since);
            self.charge_codes[slot as usize] = now_state;
            let next_pc = self.interval_pc(slot, now_state);
            let is = &mut self.issue_slots[slot as usize];
            is.timed_since = now;
            is.charge_pc = next_pc;
            if let Some(t) = self.timeline.as_mut() {
                t.state(slot, now, now_state);
            }
        }
    }

    /// The scheduler that runs `i`-th of `n` in a cycle whose turns start
    /// at scheduler `rotation` ([`Sm::sched_rotation`]): 0, 1, … in order,
    /// or, with `core.rotate_sched_priority`, starting from scheduler
    /// `now` mod `n` (GPGPU-Sim's `shader_core_ctx::issue`: `Issue_Prio` advances
    /// every cycle, so the schedulers take turns at the shared ports).
    fn sched_turn(i: usize, n: usize, rotation: usize) -> usize {
        let j = i + rotation;
        if j >= n { j - n } else { j }
    }

    /// The first scheduler of cycle `now`'s turns among `n`
    /// ([`Sm::sched_turn`]).
    fn sched_rotation(n: usize, now: u64, ctx: &LaunchCtx<'_>) -> usize {
        if ctx.cfg.core.rotate_sched_priority && n > 1 {
            (now % n as u64) as usize
        } else {
            0
        }
    }

    /// The units that can accept an instruction at `now`, one bit per
    /// [`Unit::index`].
    fn free_units(&self, now: u64) -> u8 {
        let mut free = 0;
        for u in [Unit::Sp, Unit::Sfu, Unit::Dp, Unit::LdSt] {
            if !self.unit_busy(u, now) {
                free |= 1 << u.index();
            }
        }
        free
    }

    /// True if `unit` cannot accept an instruction at `now`.
    fn unit_busy(&self, unit: Unit, now: u64) -> bool {
        match unit {
            Unit::LdSt => !self.ldst_can_issue(now),
            u => !self.opcoll.has_free(u, now),
        }
    }

    /// `slot`'s reason computed from the pipeline state.
    fn fresh_reason(&self, slot: u32, s: usize, now: u64, ctx: &LaunchCtx<'_>) -> Stall {
        let (ages, slots) = &self.sched_warps[s];
        let view = SchedView {
            now,
            warps: ages,
            by_slot: slots,
            info: &self.views,
            cta_barrier: &self.cta_barrier,
            detail: &self.detail,
        };
        let w = &self.warps[slot as usize];
        match local_reason(w, slot, now, ctx, self.policies[s].as_ref(), &view) {
            Stall::Issued if self.unit_busy(head_unit(w, ctx), now) => Stall::Structural,
            r => r,
        }
    }

    /// `slot`'s reason, from its cache when still valid. The cache holds
    /// the warp's local reason ([`local_reason`]: everything but its
    /// unit), valid until the warp's own inputs change (issue, fetch,
    /// writeback, barrier release: these clear the cache) or until a known
    /// cycle (I-buffer arrival, barrier release, sleep end). A warp past
    /// its local checks stays so until one of its own inputs changes; its
    /// reason is then `structural` or ready by its unit, checked every
    /// time. Policies that throttle are asked every time.
    fn reason_of(&mut self, slot: u32, s: usize, now: u64, ctx: &LaunchCtx<'_>) -> Stall {
        let si = slot as usize;
        let is = self.issue_slots[si];
        if let Some(local) = is.reason
            && now < is.until
        {
            let r = match local {
                Stall::Issued if self.unit_busy(is.unit, now) => Stall::Structural,
                r => r,
            };
            // Debug builds check every cached reason against a fresh one.
            #[cfg(debug_assertions)]
            {
                let fresh = self.fresh_reason(slot, s, now, ctx);
                debug_assert_eq!(
                    fresh, r,
                    "slot {slot} at {now}: stale cached reason (local {local:?} until {})",
                    is.until
                );
            }
            return r;
        }
        if self.throttles[s] {
            return self.fresh_reason(slot, s, now, ctx);
        }
        let (local, unit, _) = self.refresh_local_reason(slot, s, now, ctx);
        match local {
            Stall::Issued if self.unit_busy(unit, now) => Stall::Structural,
            r => r,
        }
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
        self.mark_dirty(slot);
        debug_assert!(
            self.warps[si].redirect.is_none(),
            "slot {slot} at {now}: issue on the wrong path"
        );
        let head = self.warps[si]
            .ibuf
            .pop_front()
            .expect("ready warp has an instruction");
        self.issue_slots[si].last_pc = head.pc;
        if let Some(c) = self.pc_counters.get_mut(head.pc as usize) {
            c.issues += 1;
        }
        let (c, index) = (self.warps[si].cta as usize, self.warps[si].index as usize);
        let cfg = ctx.cfg;
        let cta = self.ctas[c].as_mut().expect("live warp has a CTA");
        let fw = &mut cta.warps[index];
        debug_assert_eq!(fw.pc(), Some(head.pc));
        let sleep = if ctx.table[head.pc as usize].nanosleep {
            let inst = &ctx.kernel.insts[head.pc as usize];
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
                gridid: 0,
                dynamic_smem: ctx.dynamic_shared,
                total_smem: ctx.info.shared_dynamic_base as u32 + ctx.dynamic_shared,
            },
            waits_at_l2: ctx.sync.waits_at_l2(),
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
        if d.waiting && !ctx.sync.waits_at_l2() {
            self.note_waiting_load(slot, head.pc, ctx);
        }
        self.stats.warp_insts += 1;
        self.warps[si].insts += 1;
        let lanes = d.exec.count_ones();
        self.stats.thread_insts += u64::from(lanes);
        let bin = (lanes.saturating_sub(1) * 8 / cfg.core.warp_size.max(1)).min(7);
        self.stats.lane_histogram[bin as usize] += 1;
        let ti = &ctx.table[head.pc as usize];
        self.stats.long_ops += u64::from(ti.long_op);
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
                cta_barrier: &self.cta_barrier,
                detail: &self.detail,
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
                if w.redirect.take().is_some() {
                    self.redirects_pending -= 1;
                }
                self.views[si].done = true;
            }
            Some(npc) if cfg.core.branch_redirect => {
                // The next fetch is always the fall-through (GPGPU-Sim's
                // `issue_warp`: `set_next_pc(pc + isize)`), which the
                // I-buffer head or the fetch PC already is; any other PC
                // is noticed later, by the scheduler. Lanes that finish
                // flush the I-buffer at once (GPGPU-Sim's
                // `checkExecutionStatusAndUpdate`); fetch restarts at the
                // fall-through all the same.
                if d.exit {
                    if !w.ibuf.is_empty() {
                        self.stats.ibuffer_flushes += 1;
                    }
                    w.ibuf.clear();
                    w.fetch_pc = head.pc + 1;
                }
                debug_assert_eq!(w.ibuf.front().map_or(w.fetch_pc, |e| e.pc), head.pc + 1);
                if npc != head.pc + 1 {
                    debug_assert!(w.redirect.is_none(), "issued on the wrong path");
                    w.redirect = Some(npc);
                    self.redirects_pending += 1;
                    w.branch_flush = true;
                } else {
                    w.branch_flush = false;
                }
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
        self.refresh_fetch_need(slot);
        // Units and completion.
        match ti.unit {
            Unit::LdSt => self.ldst_issue(slot, now, ctx, global),
            u => {
                // Operand collection, dispatch, execution, writeback.
                let exec = self.opcoll.collect(
                    u,
                    slot,
                    &ti.reads,
                    now,
                    &mut self.units[u.index()],
                    ti.initiation,
                    ti.latency,
                );
                if !ti.writes.is_empty() {
                    let wb = exec + u64::from(ti.latency) + WRITEBACK_STAGES;
                    self.opcoll.write(&ti.dests, slot, wb);
                    let w = &mut self.warps[si];
                    w.sb.reserve(&ti.writes);
                    w.outstanding += 1;
                    self.schedule(
                        wb,
                        SmEvent::Writeback {
                            slot,
                            inst: head.pc,
                            long: false,
                            atomic: false,
                        },
                    );
                }
            }
        }
        if d.barrier {
            self.warps[si].barrier_wait = true;
            self.views[si].at_barrier = true;
            let b = &mut self.cta_barrier[c];
            if b.waiting == 0 {
                b.first_hit = now;
            }
            b.waiting += 1;
        }
        if d.barrier || d.next_pc.is_none() {
            let phases = &mut self.ctas[c].as_mut().expect("live CTA").phases;
            if d.barrier {
                phases.arrive(index, now, &mut self.barrier_counters);
            } else {
                phases.exit(index, now, &mut self.barrier_counters);
            }
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
        let mut released = std::mem::take(&mut self.cand_buf);
        released.clear();
        for (i, &s) in cta.slots.iter().enumerate() {
            let w = &mut self.warps[s as usize];
            if w.barrier_wait && cta.warps[i].barrier.is_none() {
                w.barrier_wait = false;
                w.barrier_release = now + u64::from(ctx.cfg.core.barrier_latency);
                self.views[s as usize].at_barrier = false;
                self.cta_barrier[c].waiting -= 1;
                released.push(s);
            }
        }
        if !released.is_empty() {
            if let Some(t) = self.timeline.as_mut() {
                t.released(c, now);
            }
            let warps = &self.warps;
            cta.phases.release(
                released.iter().map(|&s| warps[s as usize].index as usize),
                now,
                &mut self.barrier_counters,
            );
        }
        for &s in &released {
            self.mark_dirty(s);
        }
        self.cand_buf = released;
    }
}
