//! The operand collector and the register-file banks between issue and
//! execution, after GPGPU-Sim's `opndcoll_rfu_t` (Fung et al., "Dynamic
//! Warp Formation", MICRO 2007, §4 and Fig. 5; GPGPU-Sim 3.x manual,
//! "Operand collector"), which every seed paper's GTX480 model has.
//!
//! An instruction issued at cycle `t` moves into a free *collector unit*
//! of its unit's set at `t + 1`. Each source register lives in bank
//! `(register + warp slot) mod reg_banks`; a bank serves one read per
//! cycle, in request order, starting at `t + 2`, so two sources in one
//! bank, or another instruction's reads queued there first, delay the
//! collection. The cycle after its last read the collector unit
//! *dispatches* the instruction through one of its set's dispatch ports
//! (a port dispatches one instruction per cycle and stays held while the
//! instruction waits for its functional unit); the collector unit takes a
//! new instruction in its dispatch cycle (one issued the cycle before). The functional
//! unit accepts the instruction the cycle after dispatch (`exec`, or
//! later if it is busy), and its result is written back — the scoreboard
//! released — [`WRITEBACK_STAGES`] cycles after `exec + latency` (GPGPU-Sim's
//! EX→WB pipeline register and the writeback stage). With no contention a
//! dependent instruction therefore issues `latency + 6` cycles after its
//! producer.
//!
//! Memory instructions take the same stages in front of the LD/ST unit:
//! [`OperandCollector::collect_mem`] gives the extra cycles they add
//! before their result is written back.
//!
//! The model books every resource at issue time (reads in issue order per
//! bank, dispatch ports in dispatch order), not cycle by cycle: it keeps
//! GPGPU-Sim's structure and costs without a per-cycle arbiter. Register
//! writes take bank cycles from reads too (GPGPU-Sim gives writes
//! priority; here a write takes its bank in its writeback cycle from the
//! reads booked after it, not from reads booked before).

use crate::config::GpuConfig;
use crate::timing::units::{Unit, UnitPool};

/// Cycles from the functional unit's result (`exec + latency`) to the
/// scoreboard release: the EX→WB pipeline register and the writeback
/// stage.
pub const WRITEBACK_STAGES: u64 = 2;

/// Cycles from issue to the functional unit with no contention: collector
/// allocation, bank read, dispatch, unit.
pub const ISSUE_TO_EXEC: u64 = 4;

/// Cycles from issue to the result of a memory instruction's first
/// request compared with an LD/ST unit starting in the issue cycle, with
/// no contention ([`OperandCollector::collect_mem`]).
pub const MEM_STAGES: u64 = 6;

/// A set of collector units and its dispatch ports.
#[derive(Clone, Debug)]
pub struct CollectorSet {
    /// Collector units, as a pool: a unit is free for an instruction
    /// issued at cycle `t` when its entry is at most `t`.
    pub units: UnitPool,
    /// Next cycle each dispatch port can dispatch.
    ports: Vec<u64>,
}

impl CollectorSet {
    fn new(units: u32, ports: u32) -> CollectorSet {
        CollectorSet {
            units: UnitPool::new(units),
            ports: vec![0; ports.max(1) as usize],
        }
    }

    /// Takes the first dispatch port free at or after `ready`; returns the
    /// dispatch cycle and the port.
    fn dispatch_port(&self, ready: u64) -> (u64, usize) {
        let (p, free) = self
            .ports
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(i, f)| (f.max(ready), i))
            .unwrap_or((0, 0));
        (free.max(ready), p)
    }
}

/// The collector sets of an SM (one per functional-unit kind that has
/// collectors: SP, SFU) and its register banks.
#[derive(Clone, Debug)]
pub struct OperandCollector {
    /// Collector sets: `[sp, sfu]` (the DP unit uses the SFU set, as
    /// GPGPU-Sim does when an SM has no DP units).
    pub sets: [CollectorSet; 2],
    /// Next cycle each register bank can serve a read.
    bank_free: Vec<u64>,
    /// Per bank, the cycles in which a result is written to it (a write
    /// takes the bank's port for that cycle; GPGPU-Sim gives writes
    /// priority over reads): bit `i` of the mask is cycle `base + i`.
    /// Writes more than 64 cycles ahead of the bank's base are not booked
    /// (only long SFU operations write back that late).
    bank_writes: Vec<(u64, u64)>,
    /// Dispatch port of memory instructions (one, in front of the LD/ST
    /// unit).
    mem_port: u64,
    /// `opcoll.unit_result_slots`: one result per functional unit per
    /// cycle, and the oldest instruction waiting for a unit first.
    result_slots_on: bool,
    /// Per unit kind ([`Unit::index`]), the cycles in which an
    /// instruction a unit accepted produces its result (`exec + latency`),
    /// those not yet past.
    result_slots: [ResultSlots; 4],
    /// Per collector set, the cycles in which an instruction dispatched
    /// before waits for a unit: the union of the open intervals
    /// `(dispatch, exec)` of the instructions booked, as disjoint open
    /// intervals (two whose cycles run on without a gap merged; two that
    /// only touch, like `(0, 5)` and `(5, 9)`, kept apart, since neither
    /// holds their common end).
    waiting: [Vec<(u64, u64)>; 2],
}

/// Cycles a unit's result slots cover as bits; results further ahead go
/// to a short overflow list (GPGPU-Sim's `occupied` bit set has 512 bits,
/// its `MAX_ALU_LATENCY`).
const SLOT_WINDOW: u64 = 512;

/// The result cycles booked on each unit of one kind, those after the
/// last cycle passed to [`ResultSlots::advance`]: per unit a ring of
/// [`SLOT_WINDOW`] bits, bit `c % SLOT_WINDOW` for cycle `c`, covering the
/// cycles in `(past, past + SLOT_WINDOW)`; a result booked beyond that is
/// kept in `far` until the window reaches it.
#[derive(Clone, Debug, Default)]
struct ResultSlots {
    /// Per unit, the ring of result bits.
    bits: Vec<[u64; (SLOT_WINDOW / 64) as usize]>,
    /// Every result cycle up to this one is over (its bit cleared).
    past: u64,
    /// `(unit, cycle)` of results booked at or beyond `past + SLOT_WINDOW`.
    far: Vec<(usize, u64)>,
}

impl ResultSlots {
    /// Sizes the rings for `units` units and forgets the results up to
    /// `now`.
    fn advance(&mut self, units: usize, now: u64) {
        if self.bits.len() != units {
            self.bits.resize(units, [0; (SLOT_WINDOW / 64) as usize]);
        }
        if now <= self.past {
            return;
        }
        if now - self.past >= SLOT_WINDOW {
            for b in &mut self.bits {
                *b = [0; (SLOT_WINDOW / 64) as usize];
            }
        } else {
            // Clear the cycles `(past, now]`, a word's run at a time.
            let mut pos = (self.past + 1) % SLOT_WINDOW;
            let mut left = now - self.past;
            while left > 0 {
                let (w, o) = ((pos / 64) as usize, pos % 64);
                let k = left.min(64 - o);
                let run = if k == 64 { !0 } else { ((1u64 << k) - 1) << o };
                for b in &mut self.bits {
                    b[w] &= !run;
                }
                pos = (pos + k) % SLOT_WINDOW;
                left -= k;
            }
        }
        self.past = now;
        if !self.far.is_empty() {
            let far = std::mem::take(&mut self.far);
            for (k, c) in far {
                if c > now {
                    self.insert(k, now, c);
                }
            }
        }
    }

    /// True if unit `k` produces a result at `c` (after `past`).
    fn contains(&self, k: usize, c: u64) -> bool {
        if c - self.past < SLOT_WINDOW {
            let b = &self.bits[k];
            b[(c % SLOT_WINDOW / 64) as usize] >> (c % 64) & 1 == 1
        } else {
            self.far.contains(&(k, c))
        }
    }

    /// Books unit `k`'s result at `c` (after `now`, which is `past`).
    fn insert(&mut self, k: usize, now: u64, c: u64) {
        debug_assert_eq!(now, self.past);
        if c - now < SLOT_WINDOW {
            self.bits[k][(c % SLOT_WINDOW / 64) as usize] |= 1 << (c % 64);
        } else {
            self.far.push((k, c));
        }
    }
}

/// The collector set index of a non-memory unit.
pub fn set_of(unit: Unit) -> usize {
    match unit {
        Unit::Sp => 0,
        _ => 1,
    }
}

impl OperandCollector {
    /// The operand collector of one SM of `cfg`.
    pub fn new(cfg: &GpuConfig) -> OperandCollector {
        let o = &cfg.opcoll;
        OperandCollector {
            sets: [
                CollectorSet::new(o.sp_collectors, o.sp_dispatch),
                CollectorSet::new(o.sfu_collectors, o.sfu_dispatch),
            ],
            bank_free: vec![0; o.reg_banks.max(1) as usize],
            bank_writes: vec![(0, 0); o.reg_banks.max(1) as usize],
            mem_port: 0,
            result_slots_on: o.unit_result_slots,
            result_slots: Default::default(),
            waiting: Default::default(),
        }
    }

    /// Books the reads of `regs` for warp slot `slot`, starting no earlier
    /// than `from`; returns the cycle after the last read (`from` if there
    /// is none).
    fn read(&mut self, regs: &[u32], slot: u32, from: u64) -> u64 {
        let banks = self.bank_free.len() as u64;
        let mut done = from;
        for &r in regs {
            let b = ((u64::from(r) + u64::from(slot)) % banks) as usize;
            // Writes before `from` are over: move the window there.
            let (base, mask) = &mut self.bank_writes[b];
            if from > *base {
                let shift = from - *base;
                *mask = if shift >= 64 { 0 } else { *mask >> shift };
                *base = from;
            }
            let mut at = self.bank_free[b].max(from);
            // Skip the cycles in which a result is written to the bank.
            let off = at - *base;
            if off < 64 {
                at += u64::from((*mask >> off).trailing_ones());
            }
            self.bank_free[b] = at + 1;
            done = done.max(at + 1);
        }
        done
    }

    /// Books the writes of `regs` of warp slot `slot` at cycle `at` (the
    /// writeback of a non-memory instruction).
    pub fn write(&mut self, regs: &[u32], slot: u32, at: u64) {
        let banks = self.bank_free.len() as u64;
        for &r in regs {
            let b = ((u64::from(r) + u64::from(slot)) % banks) as usize;
            let (base, mask) = &mut self.bank_writes[b];
            if at >= *base && at - *base < 64 {
                *mask |= 1 << (at - *base);
            }
        }
    }

    /// Schedules a non-memory instruction of `unit` issued at `now` by
    /// warp slot `slot` reading `regs`, whose functional unit pool is
    /// `exec_units`: books a collector unit, the bank reads, a dispatch
    /// port and the functional unit (for `initiation` cycles; with
    /// `opcoll.unit_result_slots` also its result cycle `exec + latency`
    /// on that unit). Returns the cycle the functional unit accepts it.
    /// The caller has checked that the set has a free collector unit at
    /// `now`.
    #[allow(clippy::too_many_arguments)]
    pub fn collect(
        &mut self,
        unit: Unit,
        slot: u32,
        regs: &[u32],
        now: u64,
        exec_units: &mut UnitPool,
        initiation: u32,
        latency: u32,
    ) -> u64 {
        let collected = self.read(regs, slot, now + 2);
        let si = set_of(unit);
        let set = &mut self.sets[si];
        let cu = set.units.free(now).unwrap_or(0);
        // Dispatch the cycle after the last read (a unit with nothing to
        // read dispatches the cycle after it was allocated).
        let (dispatch, port) = set.dispatch_port(collected.max(now + 2));
        // The functional unit takes it the next cycle, or when free.
        let (k, exec) = if self.result_slots_on {
            Self::unit_with_result_slot(
                &mut self.result_slots[unit.index()],
                &mut self.waiting[si],
                exec_units,
                now,
                dispatch,
                u64::from(latency),
            )
        } else {
            let (k, free) = exec_units
                .busy_until
                .iter()
                .copied()
                .enumerate()
                .min_by_key(|&(i, b)| (b, i))
                .unwrap_or((0, 0));
            (k, (dispatch + 1).max(free))
        };
        exec_units.book(k, exec + u64::from(initiation.max(1)));
        // The port holds the instruction until the unit takes it.
        set.ports[port] = exec;
        // The collector unit is allocated again in its dispatch cycle, to
        // an instruction issued the cycle before.
        set.units.book(cu, dispatch - 1);
        exec
    }

    /// GPGPU-Sim's `simd_function_unit::can_issue` and
    /// `shader_core_ctx::execute`: a unit accepts an instruction of latency
    /// `latency` at `e` only if it is free (`busy_until`) and none of the
    /// instructions it accepted before produces its result at `e +
    /// latency` (the `occupied` bit vector: one result per unit per
    /// cycle, so a short instruction cannot enter right behind a longer
    /// one that finishes with it); and the units take the oldest waiting
    /// instruction of the set first (`register_set::get_ready`), so one
    /// dispatched before this one (in issue order) and still waiting at
    /// `e` holds it back. Returns the unit and the cycle it accepts the
    /// instruction dispatched at `dispatch`, and books the result slot.
    fn unit_with_result_slot(
        slots: &mut ResultSlots,
        waiting: &mut Vec<(u64, u64)>,
        exec_units: &UnitPool,
        now: u64,
        dispatch: u64,
        latency: u64,
    ) -> (usize, u64) {
        let n = exec_units.busy_until.len();
        // Results and waiting instructions before this one's earliest
        // cycle cannot constrain it (nor any later instruction: every
        // later one is issued at `now` or after and dispatched at least
        // two cycles later).
        slots.advance(n, now);
        if !waiting.is_empty() {
            waiting.retain(|&(_, x)| x > now);
        }
        let mut e = dispatch + 1;
        loop {
            // The oldest waiting instruction goes first: a cycle inside
            // an earlier instruction's wait is taken by it (the intervals
            // are disjoint, so at most one holds `e`).
            if let Some(&(_, x)) = waiting.iter().find(|&&(d, x)| d < e && x > e) {
                e = x;
                continue;
            }
            let unit =
                (0..n).find(|&k| exec_units.busy_until[k] <= e && !slots.contains(k, e + latency));
            match unit {
                Some(k) => {
                    slots.insert(k, now, e + latency);
                    Self::add_wait(waiting, dispatch, e);
                    return (k, e);
                }
                None => e += 1,
            }
        }
    }

    /// Adds the open interval `(d, x)` to the disjoint open intervals
    /// `waiting`, merging those whose cycles run on from its own without a
    /// gap (sharing a cycle, or one ending where the other starts: `(0,
    /// 5)` and `(4, 9)` hold 1–4 and 5–8, so `(0, 9)`).
    fn add_wait(waiting: &mut Vec<(u64, u64)>, mut d: u64, mut x: u64) {
        if x <= d + 1 {
            // No cycle strictly between: nothing is held.
            return;
        }
        while let Some(i) = waiting.iter().position(|&(a, b)| a.max(d) < b.min(x)) {
            let (a, b) = waiting.swap_remove(i);
            d = d.min(a);
            x = x.max(b);
        }
        waiting.push((d, x));
    }

    /// Schedules a memory instruction issued at `now` by warp slot `slot`
    /// reading `regs` (address and data registers): its bank reads and the
    /// LD/ST dispatch port. Returns the cycles its result is delayed by
    /// these stages and the writeback, compared with an LD/ST unit that
    /// started in the issue cycle.
    pub fn collect_mem(&mut self, slot: u32, regs: &[u32], now: u64) -> u64 {
        let collected = self.read(regs, slot, now + 2);
        let dispatch = collected.max(now + 2).max(self.mem_port);
        self.mem_port = dispatch + 1;
        // The LD/ST unit takes it the cycle after dispatch and starts on
        // it the next cycle; its own writeback register adds one more.
        dispatch + 3 - now
    }

    /// True if a collector unit of `unit`'s set is free for an instruction
    /// issued at `now`.
    #[inline]
    pub fn has_free(&self, unit: Unit, now: u64) -> bool {
        self.sets[set_of(unit)].units.has_free(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn gtx() -> GpuConfig {
        GpuConfig::gtx480()
    }

    #[test]
    fn an_uncontended_add_executes_four_cycles_after_issue() {
        let cfg = gtx();
        let mut oc = OperandCollector::new(&cfg);
        let mut sp = UnitPool::new(2);
        // Issue at 10: collector at 11, reads at 12, dispatch at 13,
        // execute at 14.
        assert_eq!(oc.collect(Unit::Sp, 0, &[1, 2], 10, &mut sp, 1, 4), 14);
    }

    #[test]
    fn two_sources_in_one_bank_take_two_read_cycles() {
        let cfg = gtx();
        let banks = cfg.opcoll.reg_banks;
        let mut oc = OperandCollector::new(&cfg);
        let mut sp = UnitPool::new(2);
        // Registers 3 and 3 + banks share a bank: reads at 12 and 13,
        // dispatch at 14, execute at 15.
        assert_eq!(
            oc.collect(Unit::Sp, 0, &[3, 3 + banks], 10, &mut sp, 1, 4),
            15
        );
        // Warp slot 1 shifts the mapping: register 2 of slot 1 is in bank
        // 3 too, whose next free read cycle is 14.
        let mut sp2 = UnitPool::new(2);
        assert_eq!(oc.collect(Unit::Sp, 1, &[2], 12, &mut sp2, 1, 4), 16);
    }

    #[test]
    fn dispatch_ports_and_busy_units_hold_instructions_back() {
        let cfg = gtx();
        let mut oc = OperandCollector::new(&cfg);
        // One SFU with an initiation interval of 8.
        let mut sfu = UnitPool::new(1);
        let e1 = oc.collect(Unit::Sfu, 0, &[1], 0, &mut sfu, 8, 4);
        assert_eq!(e1, 4);
        // The next one is collected by cycle 3 but waits for the unit
        // (free at 12); the SFU set's single port is held until then.
        let e2 = oc.collect(Unit::Sfu, 1, &[5], 1, &mut sfu, 8, 4);
        assert_eq!(e2, 12);
        let e3 = oc.collect(Unit::Sfu, 2, &[9], 2, &mut sfu, 8, 4);
        assert_eq!(e3, 20);
    }

    #[test]
    fn collector_units_run_out() {
        let mut cfg = gtx();
        cfg.opcoll.sp_collectors = 2;
        let mut oc = OperandCollector::new(&cfg);
        let mut sp = UnitPool::new(2);
        assert!(oc.has_free(Unit::Sp, 0));
        oc.collect(Unit::Sp, 0, &[1], 0, &mut sp, 1, 4);
        oc.collect(Unit::Sp, 1, &[1], 0, &mut sp, 1, 4);
        // Both units dispatch at 3 (ports: 2) and take new instructions
        // then: none is free for an instruction issued at 1, both for one
        // issued at 2.
        assert!(!oc.has_free(Unit::Sp, 1));
        assert!(oc.has_free(Unit::Sp, 2));
    }

    #[test]
    fn memory_instructions_add_the_stages_in_front_of_the_ldst_unit() {
        let cfg = gtx();
        let mut oc = OperandCollector::new(&cfg);
        // Reads at 2, dispatch at 3, LD/ST unit at 4, starts at 5: five
        // cycles later than issue, plus its writeback register.
        assert_eq!(oc.collect_mem(0, &[1], 0), 6);
        // A second one in the same cycle waits for the dispatch port.
        assert_eq!(oc.collect_mem(1, &[4], 0), 7);
    }

    #[test]
    fn one_result_per_unit_per_cycle_and_the_oldest_first() {
        let mut cfg = gtx();
        cfg.opcoll.unit_result_slots = true;
        let mut oc = OperandCollector::new(&cfg);
        let mut sp = UnitPool::new(2);
        // Two fmas (latency 5) issued at 10 execute at 14 on units 0 and
        // 1: results at 19 on both.
        assert_eq!(oc.collect(Unit::Sp, 0, &[1], 10, &mut sp, 1, 5), 14);
        assert_eq!(oc.collect(Unit::Sp, 1, &[1], 10, &mut sp, 1, 5), 14);
        // An add (latency 4) issued at 11 would execute at 15 and finish
        // at 19 too: it waits for 16 (result at 20).
        assert_eq!(oc.collect(Unit::Sp, 2, &[3], 11, &mut sp, 1, 4), 16);
        // An fma issued at 11, dispatched at 14 after the add, could
        // execute at 15 (unit 1 is free, result 20 is not taken on it)
        // but the add waiting at 15 goes first: 16, on the other unit.
        assert_eq!(oc.collect(Unit::Sp, 3, &[5], 11, &mut sp, 1, 5), 16);
        // Off (`daws`, `awg`, `tiny`), the add executes at 15 and the fma
        // too.
        let mut off_cfg = gtx();
        off_cfg.opcoll.unit_result_slots = false;
        let mut off = OperandCollector::new(&off_cfg);
        let mut sp = UnitPool::new(2);
        off.collect(Unit::Sp, 0, &[1], 10, &mut sp, 1, 5);
        off.collect(Unit::Sp, 1, &[1], 10, &mut sp, 1, 5);
        assert_eq!(off.collect(Unit::Sp, 2, &[3], 11, &mut sp, 1, 4), 15);
        assert_eq!(off.collect(Unit::Sp, 3, &[5], 11, &mut sp, 1, 5), 15);
    }

    /// The result-slot search as first written: every unit's result cycles
    /// as a list, every waiting instruction as its own `(dispatch, exec)`.
    fn naive_result_slot(
        slots: &mut Vec<Vec<u64>>,
        waiting: &mut Vec<(u64, u64)>,
        busy_until: &[u64],
        now: u64,
        dispatch: u64,
        latency: u64,
    ) -> (usize, u64) {
        let n = busy_until.len();
        slots.resize(n, Vec::new());
        for s in slots.iter_mut() {
            s.retain(|&r| r > now);
        }
        waiting.retain(|&(_, x)| x > now);
        let mut e = dispatch + 1;
        loop {
            let held = waiting
                .iter()
                .filter(|&&(d, x)| d < e && x > e)
                .map(|&(_, x)| x)
                .max();
            if let Some(x) = held {
                e = x;
                continue;
            }
            match (0..n).find(|&k| busy_until[k] <= e && !slots[k].contains(&(e + latency))) {
                Some(k) => {
                    slots[k].push(e + latency);
                    waiting.push((dispatch, e));
                    return (k, e);
                }
                None => e += 1,
            }
        }
    }

    #[test]
    fn intervals_that_only_touch_hold_nothing_between_them() {
        // Two instructions wait through (0, 5) and (5, 9): cycle 5 is
        // neither's (the first leaves its collector for the unit at 5, the
        // second was dispatched at 5), so one dispatched at 4 may take a
        // free unit at 5; merged into (0, 9) it would wait until 9.
        let mut waiting = Vec::new();
        OperandCollector::add_wait(&mut waiting, 0, 5);
        OperandCollector::add_wait(&mut waiting, 5, 9);
        assert_eq!(waiting.len(), 2);
        let pool = UnitPool::new(2);
        let mut slots = ResultSlots::default();
        let got = OperandCollector::unit_with_result_slot(&mut slots, &mut waiting, &pool, 0, 4, 4);
        assert_eq!(got, (0, 5));
        // Without a gap between them they merge: (0, 5) and (4, 9) hold
        // 1..=4 and 5..=8, (0, 5) and (3, 9) share 4.
        for d in [3, 4] {
            let mut waiting = Vec::new();
            OperandCollector::add_wait(&mut waiting, 0, 5);
            OperandCollector::add_wait(&mut waiting, d, 9);
            assert_eq!(waiting, vec![(0, 9)]);
            let mut slots = ResultSlots::default();
            let got =
                OperandCollector::unit_with_result_slot(&mut slots, &mut waiting, &pool, 0, 4, 4);
            assert_eq!(got, (0, 9));
        }
    }

    proptest::proptest! {
        /// The ring of result bits and the merged waiting intervals choose
        /// the same unit and cycle as the plain lists, call after call
        /// (latencies past the ring's 512 cycles included).
        #[test]
        fn result_slots_agree_with_plain_lists(
            units in 1usize..4,
            calls in proptest::collection::vec((0u64..4, 0u64..40, 0usize..6, 1u64..9), 1..300),
        ) {
            const LATENCIES: [u64; 6] = [1, 4, 8, 13, 40, 600];
            let mut pool = UnitPool::new(units as u32);
            let (mut ring, mut merged) = (ResultSlots::default(), Vec::new());
            let (mut lists, mut plain) = (Vec::new(), Vec::new());
            let mut now = 0;
            for (step, extra, lat, initiation) in calls {
                now += step;
                let dispatch = now + 2 + extra % 8;
                let latency = LATENCIES[lat];
                let expect =
                    naive_result_slot(&mut lists, &mut plain, &pool.busy_until, now, dispatch, latency);
                let got = OperandCollector::unit_with_result_slot(
                    &mut ring, &mut merged, &pool, now, dispatch, latency,
                );
                proptest::prop_assert_eq!(got, expect);
                pool.book(got.0, got.1 + initiation);
                proptest::prop_assert_eq!(pool.first_free, *pool.busy_until.iter().min().unwrap());
            }
        }
    }

    #[test]
    fn a_write_takes_its_bank_for_its_cycle() {
        let cfg = gtx();
        let mut oc = OperandCollector::new(&cfg);
        let mut sp = UnitPool::new(2);
        // A result written to bank 1 at cycle 12 pushes a read of bank 1
        // from 12 to 13: dispatch 14, execute 15.
        oc.write(&[1], 0, 12);
        assert_eq!(oc.collect(Unit::Sp, 0, &[1], 10, &mut sp, 1, 4), 15);
        // Another bank is unaffected.
        let mut sp2 = UnitPool::new(2);
        assert_eq!(oc.collect(Unit::Sp, 0, &[2], 10, &mut sp2, 1, 4), 14);
    }
}
