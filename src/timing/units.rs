//! Functional units and the per-instruction timing facts derived once per
//! kernel from the config: which unit an instruction needs, its latency
//! and initiation interval, and its scoreboard footprint.

use crate::config::GpuConfig;
use crate::func::OpClass;
use crate::func::layout::KernelInfo;
use crate::ir::{Kernel, Opcode, Operand, RegRef, Space};
use crate::timing::scoreboard::RegMask;

/// The execution resources an instruction is dispatched to (DESIGN §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Integer and fp32 pipelines (also control, barriers, warp ops).
    Sp,
    /// Special-function unit (transcendentals, square roots).
    Sfu,
    /// Double-precision unit.
    Dp,
    /// Load/store unit (through the coalescer, shared memory, L1D).
    LdSt,
}

impl Unit {
    /// Index into per-unit arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Timing facts of one static instruction.
#[derive(Clone, Debug)]
pub struct TimingInst {
    /// The unit it needs.
    pub unit: Unit,
    /// Cycles from issue to its result (non-memory instructions).
    pub latency: u32,
    /// Cycles the unit is busy before accepting the next instruction.
    pub initiation: u32,
    /// Scoreboard ids it reads or writes (registers first, then
    /// predicates after `regs`).
    pub hazards: RegMask,
    /// Scoreboard ids it writes.
    pub writes: RegMask,
    /// Registers it reads, each once (operand-collector bank reads).
    pub reads: Box<[u32]>,
    /// Registers it writes, each once (bank writes at writeback).
    pub dests: Box<[u32]>,
    /// A `nanosleep` (the warp sleeps after issuing it).
    pub nanosleep: bool,
    /// A load, atomic or wait on global or local memory (long latency:
    /// `two-level` demotes the warp; the stall is a memory stall).
    pub long_mem: bool,
    /// A long operation in the LFWS paper's sense (Alg. 2 lines 9–12): an
    /// `ld` or `st` whose declared space is global or local, or a texture
    /// fetch. Generic accesses are not: their space is known only once
    /// they execute, after the scheduler has decided.
    pub long_op: bool,
    /// A plain load from global or local memory (or generic): what the
    /// cache-aware policies (CCWS, DAWS) may keep a warp from issuing.
    pub l1d_load: bool,
    /// A texture fetch through the texture cache (`l1t.sets` > 0).
    pub texture: bool,
    /// Declared state space of a memory instruction.
    pub space: Space,
    /// A control instruction (fetch stops after it until it issues).
    pub control: bool,
}

/// Index into GPGPU-Sim's `[add, max, mul, mad, div]` latency arrays, or
/// `None` for an instruction with the default latency (`latency.other`:
/// moves, logic, shifts, comparisons, conversions, selects), as
/// GPGPU-Sim's `ptx_instruction::set_opcode_and_latency` assigns them.
fn latency_index(op: Opcode) -> Option<usize> {
    match op {
        Opcode::Add | Opcode::Sub | Opcode::Addc | Opcode::Subc => Some(0),
        Opcode::Min | Opcode::Max => Some(1),
        Opcode::Mul | Opcode::Mul24 => Some(2),
        Opcode::Mad | Opcode::Fma | Opcode::Madc | Opcode::Mad24 | Opcode::Dp4a | Opcode::Dp2a => {
            Some(3)
        }
        Opcode::Div | Opcode::Rem => Some(4),
        _ => None,
    }
}

/// The number in a PTX register's name, as GPGPU-Sim's parser gives it
/// (`arch_regnum`: `sscanf("%d")` from the first digit, `%sp` is 0): `%f40`
/// is 40, `%rd3` is 3. `None` for a name without a digit (GPGPU-Sim's -1:
/// no register-bank access).
pub fn name_number(name: &str) -> Option<u32> {
    if name == "%sp" {
        return Some(0);
    }
    let start = name.find(|c: char| c.is_ascii_digit())?;
    let digits: String = name[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    // GPGPU-Sim's `%d` into an int: a number too large for it is not a
    // register number any PTX compiler writes; keep it in range.
    Some(
        digits
            .parse::<u64>()
            .map_or(u32::MAX, |n| n.min(u64::from(i32::MAX as u32)) as u32),
    )
}

/// Builds the timing table of `kernel`.
pub fn timing_table(kernel: &Kernel, info: &KernelInfo, cfg: &GpuConfig) -> Vec<TimingInst> {
    let nregs = kernel.regs.len() as u32;
    let lat = &cfg.latency;
    let by_name: Vec<Option<u32>> = if cfg.opcoll.bank_by_name {
        kernel.regs.iter().map(|r| name_number(&r.name)).collect()
    } else {
        Vec::new()
    };
    // The number `(number + warp slot) % reg_banks` banks register `r` by.
    let bank_number = |r: u32| {
        if cfg.opcoll.bank_by_name {
            by_name.get(r as usize).copied().flatten()
        } else {
            Some(r)
        }
    };
    // The bank number of predicate `p` with `opcoll.predicate_banks`: its
    // name's number (GPGPU-Sim), or its index after the registers'.
    let pred_bank_number = |p: u32| {
        if cfg.opcoll.bank_by_name {
            kernel.preds.get(p as usize).and_then(|n| name_number(n))
        } else {
            Some(nregs + p)
        }
    };
    kernel
        .insts
        .iter()
        .enumerate()
        .map(|(i, inst)| {
            let class = info.class[i];
            let idx = latency_index(inst.op);
            let li = idx.unwrap_or(0);
            let (unit, latency, initiation) = match class {
                // Divisions and remainders run on the SFU (GPGPU-Sim).
                OpClass::IntDiv => (Unit::Sfu, lat.int[4], lat.int_initiation[4]),
                OpClass::FpDiv => (Unit::Sfu, lat.fp32[4], lat.fp32_initiation[4]),
                OpClass::IntAlu | OpClass::IntMul | OpClass::FpAlu | OpClass::FpMul
                    if idx.is_none() =>
                {
                    (Unit::Sp, lat.other, 1)
                }
                OpClass::IntAlu | OpClass::IntMul => {
                    (Unit::Sp, lat.int[li], lat.int_initiation[li])
                }
                OpClass::FpAlu | OpClass::FpMul => {
                    (Unit::Sp, lat.fp32[li], lat.fp32_initiation[li])
                }
                OpClass::Sfu => (Unit::Sfu, lat.sfu, lat.sfu_initiation),
                // fp64 divisions: the fp64 `div` entry; fp64 square roots,
                // reciprocals and transcendentals: the SFU's latency.
                OpClass::DpDiv if idx == Some(4) => (Unit::Dp, lat.fp64[4], lat.fp64_initiation[4]),
                OpClass::DpDiv => (Unit::Sfu, lat.sfu, lat.sfu_initiation),
                // fp64 arithmetic; conversions, moves and comparisons of
                // fp64 values take the default latency on the SP units.
                OpClass::Dp if idx.is_none() => (Unit::Sp, lat.other, 1),
                OpClass::Dp => (Unit::Dp, lat.fp64[li], lat.fp64_initiation[li]),
                OpClass::Mem => (Unit::LdSt, lat.const_load, 1),
                OpClass::Control | OpClass::Barrier | OpClass::Sync => (Unit::Sp, lat.control, 1),
                OpClass::Warp if inst.op == Opcode::Shfl => (Unit::Sp, lat.warp_op, 1),
                OpClass::Warp => (Unit::Sp, lat.other, 1),
            };
            let id = |r: &RegRef| match *r {
                RegRef::Reg(r) => r.0,
                RegRef::Pred(p) => nregs + p.0,
            };
            let hazards = RegMask::of(info.reads[i].iter().chain(info.writes[i].iter()).map(id));
            let writes = RegMask::of(info.writes[i].iter().map(id));
            let mut reads: Vec<u32> = info.reads[i]
                .iter()
                .filter_map(|r| match *r {
                    RegRef::Reg(r) => bank_number(r.0),
                    RegRef::Pred(_) => None,
                })
                .collect();
            if cfg.opcoll.predicate_banks {
                // Predicate operands (not the guard) are registers too.
                reads.extend(inst.srcs().iter().filter_map(|o| match *o {
                    Operand::Pred { id, .. } => pred_bank_number(id.0),
                    _ => None,
                }));
            }
            reads.sort_unstable();
            reads.dedup();
            let mut dests: Vec<u32> = info.writes[i]
                .iter()
                .filter_map(|r| match *r {
                    RegRef::Reg(r) => bank_number(r.0),
                    RegRef::Pred(_) => None,
                })
                .collect();
            if cfg.opcoll.predicate_banks {
                dests.extend(
                    [&inst.dst, &inst.dst2]
                        .into_iter()
                        .filter_map(|o| match *o {
                            Operand::Pred { id, .. } => pred_bank_number(id.0),
                            _ => None,
                        }),
                );
            }
            dests.sort_unstable();
            dests.dedup();
            let space = inst.mods.space;
            let long_mem = class == OpClass::Mem
                && matches!(
                    inst.op,
                    Opcode::Ld | Opcode::Atom | Opcode::Wait | Opcode::Tex
                )
                && matches!(space, Space::Global | Space::Local | Space::Generic);
            let long_op = match inst.op {
                Opcode::Ld | Opcode::St => matches!(space, Space::Global | Space::Local),
                Opcode::Tex => true,
                _ => false,
            };
            // With a texture cache (`l1t.sets` > 0) a texture fetch goes
            // through it, not the L1D.
            let texture = inst.op == Opcode::Tex && cfg.l1t.sets > 0;
            let l1d_load = class == OpClass::Mem
                && (inst.op == Opcode::Ld || (inst.op == Opcode::Tex && !texture))
                && matches!(space, Space::Global | Space::Local | Space::Generic);
            // Without DP units fp64 runs on the SFU (GPGPU-Sim's Fermi).
            let unit = if unit == Unit::Dp && cfg.core.dp_units == 0 {
                Unit::Sfu
            } else {
                unit
            };
            TimingInst {
                unit,
                latency: latency.max(1),
                initiation: initiation.max(1),
                hazards,
                writes,
                reads: reads.into_boxed_slice(),
                dests: dests.into_boxed_slice(),
                long_mem,
                long_op,
                l1d_load,
                texture,
                space,
                control: class == OpClass::Control,
                nanosleep: inst.op == Opcode::Nanosleep,
            }
        })
        .collect()
}

/// Scoreboard words needed for `kernel` (registers then predicates).
pub fn scoreboard_words(kernel: &Kernel) -> usize {
    (kernel.regs.len() + kernel.preds.len()).div_ceil(64).max(1)
}

/// A pool of identical pipelined units: each accepts one instruction per
/// initiation interval.
#[derive(Clone, Debug)]
pub struct UnitPool {
    /// Cycle from which each unit accepts an instruction again.
    pub busy_until: Vec<u64>,
    /// The earliest of `busy_until`: some unit is free from this cycle.
    pub first_free: u64,
}

impl UnitPool {
    /// `n` idle units.
    pub fn new(n: u32) -> UnitPool {
        UnitPool {
            busy_until: vec![0; n.max(1) as usize],
            first_free: 0,
        }
    }

    /// Unit `k` accepts its next instruction at `until`.
    pub fn book(&mut self, k: usize, until: u64) {
        let old = std::mem::replace(&mut self.busy_until[k], until);
        if until <= self.first_free {
            self.first_free = until;
        } else if old <= self.first_free {
            // Unit `k` held the minimum and moved later: look again.
            self.first_free = self.busy_until.iter().copied().min().unwrap_or(0);
        }
    }

    /// True if some unit accepts an instruction at `now`.
    #[inline]
    pub fn has_free(&self, now: u64) -> bool {
        self.first_free <= now
    }

    /// The first unit free at `now`.
    pub fn free(&self, now: u64) -> Option<usize> {
        self.busy_until.iter().position(|&b| b <= now)
    }

    /// Earliest cycle after `now` at which a busy unit frees up.
    pub fn next_free(&self, now: u64) -> Option<u64> {
        self.busy_until.iter().copied().filter(|&b| b > now).min()
    }
}

#[cfg(test)]
mod tests {
    use super::name_number;

    #[test]
    fn a_register_is_numbered_by_the_digits_of_its_name() {
        // GPGPU-Sim's parser: the first run of digits (`sscanf("%d")`).
        assert_eq!(name_number("%f40"), Some(40));
        assert_eq!(name_number("%rd3"), Some(3));
        assert_eq!(name_number("%r_12x7"), Some(12));
        // `%sp` is register 0; a name without a digit has no number.
        assert_eq!(name_number("%sp"), Some(0));
        assert_eq!(name_number("%acc"), None);
    }
}
