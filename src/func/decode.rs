//! Instructions pre-decoded once per kernel into a compact form for the
//! interpreter's fast paths (DESIGN §7): the common ALU forms with their
//! exact semantics selected up front (no per-instruction matching on
//! opcode, type and modifiers), register operands as dense ids, immediates
//! and variable addresses as values, and the guard as a predicate index.
//!
//! Every instruction gets a [`Fast`] record; those whose form has no fast
//! path are [`FastOp::General`] and run through the general interpreter.
//! A fast form is chosen only when its result is bit-identical to the
//! general interpreter's (same formula, same destination masking).

use crate::ir::*;

/// No guard predicate.
pub const NO_GUARD: u32 = u32::MAX;

/// A source operand of a fast instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastSrc {
    /// A register (dense id).
    Reg(u32),
    /// An immediate or a variable's address.
    Imm(u64),
    /// A special register (read at execution).
    Special(SpecialReg),
}

/// The operation of a fast instruction (the semantics of the general
/// interpreter for one opcode/type/modifier combination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastOp {
    /// No fast path.
    General,
    /// Integer `add` (wrapping).
    IAdd,
    /// Integer `sub` (wrapping).
    ISub,
    /// `mul.lo` (wrapping).
    IMulLo,
    /// `mad.lo` (wrapping).
    IMadLo,
    /// `mul.wide.s16/s32`.
    IMulWideS,
    /// `mul.wide.u16/u32`.
    IMulWideU,
    /// `and`
    IAnd,
    /// `or`
    IOr,
    /// `xor`
    IXor,
    /// `shl`
    IShl,
    /// `shr` of an unsigned/untyped value.
    IShrU,
    /// `shr` of a signed value.
    IShrS,
    /// `mov` of a register or immediate.
    Mov,
    /// `add.f32` (round to nearest, no ftz/sat).
    FAdd32,
    /// `sub.f32` (round to nearest, no ftz/sat).
    FSub32,
    /// `mul.f32` (round to nearest, no ftz/sat).
    FMul32,
    /// `fma.rn.f32`/`mad.rn.f32` (no ftz/sat).
    FFma32,
    /// `div.rn.f32` (no ftz/sat, not `.approx`).
    FDiv32,
    /// `cvt` of an integer to a wider or equal integer, sign-extending the
    /// source's [`Fast::bits`] (no `.sat`).
    CvtSext,
    /// `cvt` of an integer to an integer, zero-extending (truncating) the
    /// source's [`Fast::bits`] (no `.sat`).
    CvtZext,
    /// `cvt.rn.f32` of a signed integer of [`Fast::bits`] (no `.sat`).
    CvtF32S,
    /// `cvt.rn.f32` of an unsigned integer of [`Fast::bits`] (no `.sat`).
    CvtF32U,
    /// `setp` of integers without a combining operation.
    SetpInt,
    /// `ld`/`st` of one value in an explicit space through `[reg+offset]`
    /// (the register in [`Fast::a`], the offset in [`Fast::b`]).
    MemScalarReg,
    /// `ld.param` of one value from `[param+offset]` into a register (the
    /// parameter-buffer address in [`Fast::b`]).
    LdParam,
    /// `bra` (the target in [`Fast::dst`]).
    Bra,
}

impl FastOp {
    /// An ALU form (done by the interpreter's whole-warp ALU path): not
    /// [`FastOp::General`], a memory access or a branch.
    #[inline(always)]
    pub fn is_alu(self) -> bool {
        !matches!(
            self,
            FastOp::General | FastOp::Bra | FastOp::MemScalarReg | FastOp::LdParam
        )
    }
}

/// One pre-decoded instruction.
#[derive(Clone, Copy, Debug)]
pub struct Fast {
    /// What to do.
    pub op: FastOp,
    /// Guard predicate ([`NO_GUARD`] if none).
    pub guard: u32,
    /// All ones for `@!p`, else zero (XORed with the predicate mask).
    pub guard_neg: u64,
    /// Destination register id (or predicate id for `setp`).
    pub dst: u32,
    /// Second destination predicate of `setp p|q` ([`NO_GUARD`] if none).
    pub dst2: u32,
    /// Bits kept of a result written to the destination register.
    pub mask: u64,
    /// Operand width in bits (shifts, sign extension).
    pub bits: u32,
    /// Instruction type (`setp` comparisons).
    pub ty: Type,
    /// Comparison of `setp`.
    pub cmp: CmpOp,
    /// Sources.
    pub a: FastSrc,
    /// Sources.
    pub b: FastSrc,
    /// Sources.
    pub c: FastSrc,
    /// A gpusim waiting instruction ([`crate::func::DynInst::waiting`]).
    pub waiting: bool,
    /// [`FastOp::MemScalarReg`]: the space accessed (`.const` as global,
    /// as `Exec::memory_scalar_reg` treats it).
    pub space: Space,
    /// [`FastOp::MemScalarReg`]: which fused whole-warp form applies.
    pub mem: MemForm,
}

/// The fused whole-warp form of a [`FastOp::MemScalarReg`] access, with
/// everything the driver needs pre-decoded: the value's type in
/// [`Fast::ty`], the base register and offset in [`Fast::a`] and
/// [`Fast::b`]; a load's destination register in [`Fast::dst`] and its
/// width in [`Fast::bits`]; a store's value in [`Fast::c`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemForm {
    /// None (the general memory path runs it).
    None,
    /// A load into a register.
    Load,
    /// A store of a register or immediate.
    Store,
}

#[inline]
fn mask_bits(n: u32) -> u64 {
    if n == 0 {
        0
    } else {
        u64::MAX >> (64 - n.min(64))
    }
}

/// Decodes every instruction of `kernel`; `reg_bits` and `var_addr` are
/// the [`crate::func::layout::KernelInfo`] tables.
pub fn decode(kernel: &Kernel, reg_bits: &[u8], var_addr: &[u64]) -> Vec<Fast> {
    kernel
        .insts
        .iter()
        .enumerate()
        .map(|(pc, i)| {
            let mut f = decode_one(kernel, i, reg_bits, var_addr);
            if f.op == FastOp::Bra {
                // `Inst::target`, falling through when there is none.
                f.dst = i.target().map_or(pc as u32 + 1, |t| t.0);
            }
            f
        })
        .collect()
}

fn src(o: Operand, var_addr: &[u64]) -> Option<FastSrc> {
    match o {
        Operand::Reg(r) => Some(FastSrc::Reg(r.0)),
        Operand::Imm(x) => Some(FastSrc::Imm(x)),
        Operand::VarAddr(v) => Some(FastSrc::Imm(var_addr[v.0 as usize])),
        Operand::None => Some(FastSrc::Imm(0)),
        Operand::Special(s) => Some(FastSrc::Special(s)),
        _ => None,
    }
}

/// The memory a `[reg+offset]` load or store of state space `space`
/// reads or writes: `.const` is kept in global memory.
#[inline]
pub(crate) fn scalar_access_space(space: Space) -> Space {
    if space == Space::Const {
        Space::Global
    } else {
        space
    }
}

fn decode_one(kernel: &Kernel, inst: &Inst, reg_bits: &[u8], var_addr: &[u64]) -> Fast {
    let (guard, guard_neg) = match inst.guard {
        Some(g) => (g.pred.0, if g.negate { u64::MAX } else { 0 }),
        None => (NO_GUARD, 0),
    };
    let mut f = Fast {
        op: FastOp::General,
        guard,
        guard_neg,
        dst: 0,
        dst2: NO_GUARD,
        mask: 0,
        bits: inst.ty.bits(),
        ty: inst.ty,
        cmp: inst.mods.cmp,
        a: FastSrc::Imm(0),
        b: FastSrc::Imm(0),
        c: FastSrc::Imm(0),
        waiting: crate::func::DynInst::is_waiting_inst(inst),
        space: Space::Generic,
        mem: MemForm::None,
    };
    if let Some(op) = fast_op(kernel, inst, reg_bits, var_addr, &mut f) {
        f.op = op;
    }
    f
}

/// The fast form of `inst`, filling `f`'s operands; `None` when the
/// general interpreter must run it.
fn fast_op(
    kernel: &Kernel,
    inst: &Inst,
    reg_bits: &[u8],
    var_addr: &[u64],
    f: &mut Fast,
) -> Option<FastOp> {
    let t = inst.ty;
    let tb = t.bits();
    let mods = &inst.mods;
    match inst.op {
        Opcode::Bra => return Some(FastOp::Bra),
        Opcode::Ld
            if mods.vec <= 1
                && !mods.has(flag::WAIT)
                && mods.space == Space::Param
                && matches!(inst.dst, Operand::Reg(_)) =>
        {
            // `Exec::address` of `[param+offset]` in `.param` space.
            let Operand::Addr(Address {
                base: AddrBase::Param(p),
                offset,
            }) = inst.src[0]
            else {
                return None;
            };
            let base = u64::from(kernel.params.get(p.0 as usize)?.offset);
            f.b = FastSrc::Imm(base.wrapping_add(offset as u64));
            return Some(FastOp::LdParam);
        }
        Opcode::Ld | Opcode::St => {
            // The conditions under which `Exec::memory` takes
            // `memory_scalar_reg` (base register in `a`, offset in `b`).
            if mods.vec > 1 || mods.has(flag::WAIT) || mods.space == Space::Generic {
                return None;
            }
            let Operand::Addr(Address {
                base: AddrBase::Reg(r),
                offset,
            }) = inst.src[0]
            else {
                return None;
            };
            f.a = FastSrc::Reg(r.0);
            f.b = FastSrc::Imm(offset as u64);
            f.space = scalar_access_space(mods.space);
            // `Exec::dst` of the load's destination, `Exec::val` of the
            // stored value (a predicate value keeps the general path).
            match (inst.op, inst.dst) {
                (Opcode::Ld, Operand::Reg(d)) => {
                    if let Some(&b) = reg_bits.get(d.0 as usize) {
                        f.dst = d.0;
                        f.bits = u32::from(b);
                        f.mem = MemForm::Load;
                    }
                }
                (Opcode::St, _) => {
                    if let Some(v) = src(inst.src[1], var_addr) {
                        f.c = v;
                        f.mem = MemForm::Store;
                    }
                }
                _ => {}
            }
            return Some(FastOp::MemScalarReg);
        }
        Opcode::Setp => {
            if mods.bool_op.is_some() || t.is_float() || t == Type::Pred {
                return None;
            }
            let Operand::Pred { id, .. } = inst.dst else {
                return None;
            };
            f.dst = id.0;
            f.dst2 = match inst.dst2 {
                Operand::Pred { id, .. } => id.0,
                Operand::None => NO_GUARD,
                _ => return None,
            };
            f.a = src(inst.src[0], var_addr)?;
            f.b = src(inst.src[1], var_addr)?;
            return Some(FastOp::SetpInt);
        }
        _ => {}
    }
    if t == Type::Pred || mods.has(flag::CC) {
        // `.cc` writes the carry flag: the general interpreter's job.
        return None;
    }
    let Operand::Reg(d) = inst.dst else {
        return None;
    };
    let dbits = u32::from(*reg_bits.get(d.0 as usize)?);
    // The type results are stored as (`put`/`store`): only the plain
    // masking case (no sign extension into a wider register).
    let store_as = |st: Type| -> Option<u64> {
        let sb = st.bits();
        if sb < dbits && st.is_signed() {
            None
        } else {
            Some(mask_bits(sb) & mask_bits(dbits))
        }
    };
    f.dst = d.0;
    f.a = src(inst.src[0], var_addr)?;
    f.b = src(inst.src[1], var_addr)?;
    f.c = if inst.nsrc > 2 {
        src(inst.src[2], var_addr)?
    } else {
        FastSrc::Imm(0)
    };
    let sat = mods.has(flag::SAT);
    let ftz = mods.has(flag::FTZ);
    let signed = t.is_signed();
    let (op, st) = match (inst.op, t.kind()) {
        (Opcode::Mov, _) => (FastOp::Mov, t),
        (Opcode::Cvta, _) => {
            // `x ± window base`, masked to the type.
            f.b = FastSrc::Imm(match mods.space {
                Space::Shared => crate::func::memory::SHARED_WINDOW,
                Space::Local => crate::func::memory::LOCAL_WINDOW,
                _ => 0,
            });
            if mods.has(flag::TO) {
                (FastOp::ISub, t)
            } else {
                (FastOp::IAdd, t)
            }
        }
        (Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Mad | Opcode::Fma, TypeKind::Float) => {
            let r = if mods.round == Round::None {
                Round::Rn
            } else {
                mods.round
            };
            if tb != 32 || r != Round::Rn || ftz || sat {
                return None;
            }
            let op = match inst.op {
                Opcode::Add => FastOp::FAdd32,
                Opcode::Sub => FastOp::FSub32,
                Opcode::Mul => FastOp::FMul32,
                _ => FastOp::FFma32,
            };
            (op, t)
        }
        (Opcode::Div, TypeKind::Float) => {
            // `div32(.., Rn)` is the plain quotient.
            let r = if mods.round == Round::None {
                Round::Rn
            } else {
                mods.round
            };
            if tb != 32 || r != Round::Rn || ftz || sat || mods.has(flag::APPROX) {
                return None;
            }
            (FastOp::FDiv32, t)
        }
        (Opcode::Cvt, _) => {
            // `cvt`'s integer → integer and integer → f32 (nearest) cases.
            let sty = inst.ty2;
            if sat || sty.is_float() || sty == Type::Pred {
                return None;
            }
            f.bits = sty.bits();
            let op = match t.kind() {
                TypeKind::Float if tb == 32 && matches!(mods.round, Round::None | Round::Rn) => {
                    if sty.is_signed() {
                        FastOp::CvtF32S
                    } else {
                        FastOp::CvtF32U
                    }
                }
                TypeKind::Float => return None,
                _ if sty.is_signed() => FastOp::CvtSext,
                _ => FastOp::CvtZext,
            };
            // The conversion's result is masked to the destination type.
            f.mask = store_as(t)? & mask_bits(tb);
            return Some(op);
        }
        (_, TypeKind::Float) => return None,
        (Opcode::Add, _) if !(sat && signed) => (FastOp::IAdd, t),
        (Opcode::Sub, _) if !(sat && signed) => (FastOp::ISub, t),
        (Opcode::Mul, _) if mods.mul == MulMode::Lo => (FastOp::IMulLo, t),
        (Opcode::Mul, _) if mods.mul == MulMode::Wide => {
            let wide = t.widened().unwrap_or(t);
            (
                if signed {
                    FastOp::IMulWideS
                } else {
                    FastOp::IMulWideU
                },
                wide,
            )
        }
        (Opcode::Mad, _) if mods.mul == MulMode::Lo => (FastOp::IMadLo, t),
        (Opcode::And, _) => (FastOp::IAnd, t),
        (Opcode::Or, _) => (FastOp::IOr, t),
        (Opcode::Xor, _) => (FastOp::IXor, t),
        (Opcode::Shl, _) => (FastOp::IShl, t),
        (Opcode::Shr, _) if signed => (FastOp::IShrS, t),
        (Opcode::Shr, _) => (FastOp::IShrU, t),
        _ => return None,
    };
    f.mask = store_as(st)?;
    Some(op)
}
