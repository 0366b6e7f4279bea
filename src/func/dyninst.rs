//! What one executed warp instruction did, for the timing model.

use crate::ir::{AtomOp, Inst, InstId, Opcode, Space, Type, flag};

/// Which functional unit an instruction needs and how its latency is
/// classified (DESIGN §3: SP, SFU, DP, LD/ST, plus control).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// Integer add/sub/logic/shift/compare/move (SP).
    IntAlu,
    /// Integer multiply / multiply-add (SP).
    IntMul,
    /// Integer divide / remainder.
    IntDiv,
    /// fp32 add/sub/compare/min/max/conversions (SP).
    FpAlu,
    /// fp32 multiply, fma, mad (SP).
    FpMul,
    /// fp32 divide.
    FpDiv,
    /// Transcendentals and square roots (SFU).
    Sfu,
    /// fp64 arithmetic (DP).
    Dp,
    /// fp64 divide.
    DpDiv,
    /// Loads, stores and atomics (LD/ST unit).
    Mem,
    /// Branches, `ret`, `exit`.
    Control,
    /// `bar.*`.
    Barrier,
    /// `membar`, `fence`, `nanosleep`.
    Sync,
    /// Warp-level operations (`shfl`, `vote`, `activemask`).
    Warp,
}

impl OpClass {
    /// The class of a static instruction.
    pub fn of(inst: &Inst) -> OpClass {
        let f64 = inst.ty == Type::F64 || inst.ty2 == Type::F64;
        match inst.op {
            Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red | Opcode::Wait | Opcode::Tex => {
                OpClass::Mem
            }
            Opcode::Bra | Opcode::Ret | Opcode::Exit | Opcode::Call => OpClass::Control,
            Opcode::Bar => OpClass::Barrier,
            Opcode::Membar | Opcode::Fence | Opcode::Nanosleep => OpClass::Sync,
            Opcode::Shfl | Opcode::Vote | Opcode::Activemask => OpClass::Warp,
            Opcode::Sqrt
            | Opcode::Rsqrt
            | Opcode::Rcp
            | Opcode::Ex2
            | Opcode::Lg2
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Tanh => {
                if f64 {
                    OpClass::DpDiv
                } else {
                    OpClass::Sfu
                }
            }
            Opcode::Div | Opcode::Rem => match inst.ty {
                Type::F32 => OpClass::FpDiv,
                Type::F64 => OpClass::DpDiv,
                _ => OpClass::IntDiv,
            },
            _ if f64 => OpClass::Dp,
            Opcode::Mul | Opcode::Mad | Opcode::Fma if inst.ty == Type::F32 => OpClass::FpMul,
            Opcode::Mul | Opcode::Mad | Opcode::Madc | Opcode::Mul24 | Opcode::Mad24 => {
                OpClass::IntMul
            }
            Opcode::Dp4a | Opcode::Dp2a => OpClass::IntMul,
            _ if inst.ty == Type::F32 || inst.ty2 == Type::F32 => OpClass::FpAlu,
            _ => OpClass::IntAlu,
        }
    }
}

/// A memory access of a dynamic instruction. The per-lane addresses are in
/// [`crate::func::Warp::addrs`] until the warp executes again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// Resolved state space (generic addresses already classified).
    pub space: Space,
    /// Bytes per lane.
    pub size: u32,
    /// A store (or the write half of an atomic).
    pub write: bool,
    /// An atomic (its read-modify-write is pending until performed).
    pub atomic: Option<AtomOp>,
}

/// One executed warp instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynInst {
    /// The static instruction.
    pub inst: InstId,
    /// Unit / latency class.
    pub class: OpClass,
    /// Lanes active when the warp issued it.
    pub active: u64,
    /// Lanes that executed it (active and guard true).
    pub exec: u64,
    /// For branches: lanes that took it.
    pub taken: u64,
    /// The warp's next PC after it (None when the warp finished).
    pub next_pc: Option<u32>,
    /// Memory access, for loads, stores, atomics and waits.
    pub mem: Option<MemAccess>,
    /// A `bar.sync`/`bar.red`: the warp now waits at the barrier.
    pub barrier: bool,
    /// Some lanes exited.
    pub exit: bool,
    /// A gpusim waiting atomic (`.wait` / `wait`).
    pub waiting: bool,
}

impl DynInst {
    /// An empty record (to be filled by [`crate::func::exec::exec_into`]).
    pub fn blank() -> DynInst {
        DynInst {
            inst: InstId(0),
            class: OpClass::IntAlu,
            active: 0,
            exec: 0,
            taken: 0,
            next_pc: None,
            mem: None,
            barrier: false,
            exit: false,
            waiting: false,
        }
    }

    /// True if the branch split the warp.
    pub fn diverged(&self) -> bool {
        self.taken != 0 && self.taken != self.exec
    }

    /// True for the gpusim waiting-atomic extensions.
    pub fn is_waiting_inst(inst: &Inst) -> bool {
        inst.mods.has(flag::WAIT) || inst.op == Opcode::Wait
    }
}
