//! Charging warps their per-cycle states without visiting every warp every
//! cycle (the incremental issue stage, `issue.rs`).
//!
//! A warp is charged either a *fixed* state (a stall reason of its own,
//! or `issued`), or, when only its unit is left to check and it did not
//! issue, the state of its *unit group* — the warps of one scheduler whose
//! next instruction needs one unit: `structural` while that unit is busy
//! after the scheduler's issue, ready otherwise (DESIGN §3: a ready warp
//! is one that could have issued). A group changes state as a whole, so
//! its members are charged lazily: each group keeps the cycles it has spent
//! `structural` so far, and a member leaving it is charged the difference
//! since it joined. The SM-wide per-state warp counts are the fixed
//! counts plus each group's size under its state.

use crate::timing::pc_stats;
use crate::timing::sm::Sm;
use crate::timing::stats::Stall;
use crate::timing::units::Unit;

/// Units (as [`Unit::index`]).
pub const UNITS: usize = 4;

/// The charge code (`Sm::charge_codes`) of a ready warp (after the ten
/// [`Stall`]s).
pub const READY: u8 = 10;

/// The charge code of a member of the group of unit `u`: `GROUP + u`.
pub const GROUP: u8 = 11;

/// The warps of one scheduler whose next instruction needs one unit.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnitGroup {
    /// Members.
    pub count: u32,
    /// The unit was busy after the scheduler's last issue (members are
    /// `structural`, else ready).
    pub busy: bool,
    /// Cycles spent busy before `since`.
    pub busy_cycles: u64,
    /// The cycle `busy` last changed.
    pub since: u64,
}

impl UnitGroup {
    /// Cycles spent busy before cycle `t` (`t` at or after `since`).
    pub fn busy_before(&self, t: u64) -> u64 {
        self.busy_cycles + if self.busy { t - self.since } else { 0 }
    }
}

/// What a warp is charged from now on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charge {
    /// This state (a [`Stall`]).
    Fixed(Stall),
    /// Its unit group's state.
    Group(Unit),
}

impl Charge {
    /// As a charge code (`Sm::charge_codes`).
    fn code(self) -> u8 {
        match self {
            Charge::Fixed(s) => s as u8,
            Charge::Group(u) => GROUP + u.index() as u8,
        }
    }
}

impl Sm {
    /// The group of unit `u` of scheduler `s`.
    fn group_index(&self, slot: u32, u: usize) -> usize {
        self.issue_slots[slot as usize].scheduler as usize * UNITS + u
    }

    /// Starts charging `slot` (a warp that arrived, alive from `start`) its
    /// first state, waiting for a fetch.
    pub(crate) fn charge_new_warp(&mut self, slot: u32, start: u64) {
        self.charge_codes[slot as usize] = Stall::Fetch as u8;
        let pc = self.warps[slot as usize].fetch_pc;
        let is = &mut self.issue_slots[slot as usize];
        is.timed_since = start;
        is.charge_pc = pc;
        if self.incremental {
            self.fixed_counts[Stall::Fetch as usize] += 1;
            self.mark_dirty(slot);
        }
    }

    /// Switches `slot` to charge `c` from cycle `now`, charging its
    /// previous state up to `now`.
    pub(crate) fn charge_as(&mut self, slot: u32, c: Charge, now: u64) {
        let code = c.code();
        if self.charge_codes[slot as usize] == code {
            return;
        }
        self.charge_until(slot, now);
        let snap = match c {
            Charge::Fixed(s) => {
                self.fixed_counts[s as usize] += 1;
                0
            }
            Charge::Group(u) => {
                let g = self.group_index(slot, u.index());
                self.groups[g].count += 1;
                self.groups_nonempty[g / UNITS] |= 1 << (g % UNITS);
                self.groups[g].busy_before(now)
            }
        };
        self.charge_codes[slot as usize] = code;
        let pc = self.interval_pc(slot, code);
        let is = &mut self.issue_slots[slot as usize];
        is.timed_since = now;
        is.group_snap = snap;
        is.charge_pc = pc;
    }

    /// The instruction a state interval of `slot` in charge code `code`
    /// starting now is charged to ([`crate::timing::pc_stats`]): the last
    /// issued one for a barrier or synchronization wait, else the next.
    #[inline]
    pub(crate) fn interval_pc(&self, slot: u32, code: u8) -> u32 {
        if pc_stats::charged_to_last_issued(code) {
            self.issue_slots[slot as usize].last_pc
        } else {
            self.views[slot as usize].pc
        }
    }

    /// Adds `cycles` warp-cycles in charge code `code` (a [`Stall`] or
    /// [`READY`]) to instruction `pc`'s counters, if such cycles belong to
    /// an instruction.
    #[inline]
    pub(crate) fn charge_pc(&mut self, pc: u32, code: u8, cycles: u64) {
        if cycles > 0
            && pc_stats::charged_to_pc(code)
            && let Some(c) = self.pc_counters.get_mut(pc as usize)
        {
            c.states[code as usize] += cycles;
        }
    }

    /// Charges `slot`'s current state up to cycle `end` (exclusive) into its
    /// per-state cycles and removes it from its count or group.
    pub(crate) fn charge_until(&mut self, slot: u32, end: u64) {
        let is = self.issue_slots[slot as usize];
        let code = self.charge_codes[slot as usize];
        let g = self.group_index(slot, usize::from(code.saturating_sub(GROUP)));
        let w = &mut self.warps[slot as usize];
        if code < GROUP {
            w.state_cycles[code as usize] += end - is.timed_since;
            if self.incremental {
                self.fixed_counts[code as usize] -= 1;
            }
            self.charge_pc(is.charge_pc, code, end - is.timed_since);
        } else {
            let busy = self.groups[g].busy_before(end) - is.group_snap;
            w.state_cycles[Stall::Structural as usize] += busy;
            w.state_cycles[READY as usize] += end - is.timed_since - busy;
            self.groups[g].count -= 1;
            if self.groups[g].count == 0 {
                self.groups_nonempty[g / UNITS] &= !(1 << (g % UNITS));
            }
            self.charge_pc(is.charge_pc, Stall::Structural as u8, busy);
            self.charge_pc(is.charge_pc, READY, end - is.timed_since - busy);
        }
    }

    /// Sets scheduler `s`'s group of unit `u` busy or not from cycle `now`.
    pub(crate) fn set_group_busy(&mut self, s: usize, u: usize, busy: bool, now: u64) {
        let g = &mut self.groups[s * UNITS + u];
        if g.busy != busy {
            g.busy_cycles = g.busy_before(now);
            g.since = now;
            g.busy = busy;
        }
    }

    /// The SM's per-state warp counts for this cycle (`state_counts`,
    /// `ready_count`) from the fixed counts and the groups.
    pub(crate) fn count_states(&mut self) {
        self.state_counts.copy_from_slice(&self.fixed_counts[..10]);
        self.ready_count = self.fixed_counts[READY as usize];
        for g in &self.groups {
            if g.busy {
                self.state_counts[Stall::Structural as usize] += g.count;
            } else {
                self.ready_count += g.count;
            }
        }
    }

    /// Stall cycles (control, data, structural) `slot` has been charged
    /// before cycle `now`, its current state's interval included.
    pub(crate) fn stall_cycles_before(&self, slot: u32, now: u64) -> u64 {
        let si = slot as usize;
        let w = &self.warps[si];
        let stalls = [Stall::Control, Stall::Data, Stall::Structural];
        let mut n: u64 = stalls.iter().map(|&s| w.state_cycles[s as usize]).sum();
        let is = &self.issue_slots[si];
        let code = self.charge_codes[si];
        if code >= GROUP {
            let g = self.group_index(slot, usize::from(code - GROUP));
            n += self.groups[g].busy_before(now) - is.group_snap;
        } else if stalls.iter().any(|&s| s as u8 == code) {
            n += now.saturating_sub(is.timed_since);
        }
        n
    }

    /// Refreshes [`Sm::detail`] for scheduler `s`'s warps as of `now`
    /// (for a policy that [`crate::sched::IssuePolicy::wants_detail`]).
    pub(crate) fn fill_detail(
        &mut self,
        s: usize,
        now: u64,
        table: &[crate::timing::units::TimingInst],
    ) {
        for i in 0..self.sched_warps[s].1.len() {
            let slot = self.sched_warps[s].1[i];
            let w = &self.warps[slot as usize];
            let head_blocked = w
                .ibuf
                .front()
                .filter(|e| e.ready <= now)
                .is_some_and(|e| w.sb.blocks(&table[e.pc as usize].hazards));
            let stall_cycles = self.stall_cycles_before(slot, now);
            self.detail[slot as usize] = crate::sched::WarpDetail {
                stall_cycles,
                head_blocked,
            };
        }
    }

    /// Queues `slot` for re-evaluation at the next issue run (its cached
    /// reason was dropped).
    pub(crate) fn mark_dirty(&mut self, slot: u32) {
        let is = &mut self.issue_slots[slot as usize];
        is.reason = None;
        if self.incremental && !is.dirty {
            is.dirty = true;
            self.dirty.push(slot);
        }
    }

    /// Queues `slot` for re-evaluation at cycle `at` (its cached reason
    /// expires then).
    pub(crate) fn wake_at_cycle(&mut self, slot: u32, at: u64) {
        if self.incremental && at != u64::MAX {
            self.reason_timers.push(std::cmp::Reverse((at, slot)));
        }
    }

    /// Moves the warps whose cached reasons expired by `now` to the dirty
    /// list.
    pub(crate) fn expire_reasons(&mut self, now: u64) {
        while let Some(&std::cmp::Reverse((at, slot))) = self.reason_timers.peek() {
            if at > now {
                break;
            }
            self.reason_timers.pop();
            let is = &mut self.issue_slots[slot as usize];
            if !is.dirty {
                is.dirty = true;
                self.dirty.push(slot);
            }
        }
    }

    /// Incremental issue: the earliest cycle at which a cached reason
    /// expires (`u64::MAX`: none).
    pub(crate) fn next_reason_timer(&self) -> u64 {
        self.reason_timers.peek().map_or(u64::MAX, |t| t.0.0)
    }
}
