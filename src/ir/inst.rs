//! Decoded instructions: the IR every later layer reads.
//!
//! Lowering ([`crate::ir::lower`]) turns the syntax tree into these types
//! once; register and predicate names become dense ids, labels become
//! instruction ids, immediates become bit patterns of the operand type, and
//! every modifier becomes a field. Nothing downstream looks at text again.

use crate::ptx::diagnostics::Span;

/// A data type of an instruction or register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// `.b8`
    B8,
    /// `.b16`
    B16,
    /// `.b32`
    B32,
    /// `.b64`
    B64,
    /// `.u8`
    U8,
    /// `.u16`
    U16,
    /// `.u32`
    U32,
    /// `.u64`
    U64,
    /// `.s8`
    S8,
    /// `.s16`
    S16,
    /// `.s32`
    S32,
    /// `.s64`
    S64,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
    /// `.pred`
    Pred,
}

/// The family of a [`Type`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// Untyped bits (`.bN`): compatible with every type of the same size.
    Bits,
    /// Unsigned integer.
    Unsigned,
    /// Signed integer.
    Signed,
    /// IEEE float.
    Float,
    /// Predicate.
    Pred,
}

impl Type {
    /// Parses a type directive such as `.u32`.
    pub fn from_directive(s: &str) -> Option<Type> {
        s.strip_prefix('.').and_then(Type::from_suffix)
    }

    /// Parses a type modifier without its dot (`u32`).
    pub fn from_suffix(s: &str) -> Option<Type> {
        Some(match s {
            "b8" => Type::B8,
            "b16" => Type::B16,
            "b32" => Type::B32,
            "b64" => Type::B64,
            "u8" => Type::U8,
            "u16" => Type::U16,
            "u32" => Type::U32,
            "u64" => Type::U64,
            "s8" => Type::S8,
            "s16" => Type::S16,
            "s32" => Type::S32,
            "s64" => Type::S64,
            "f32" => Type::F32,
            "f64" => Type::F64,
            "pred" => Type::Pred,
            _ => return None,
        })
    }

    /// The directive spelling, e.g. `.u32`.
    pub fn name(self) -> &'static str {
        match self {
            Type::B8 => ".b8",
            Type::B16 => ".b16",
            Type::B32 => ".b32",
            Type::B64 => ".b64",
            Type::U8 => ".u8",
            Type::U16 => ".u16",
            Type::U32 => ".u32",
            Type::U64 => ".u64",
            Type::S8 => ".s8",
            Type::S16 => ".s16",
            Type::S32 => ".s32",
            Type::S64 => ".s64",
            Type::F32 => ".f32",
            Type::F64 => ".f64",
            Type::Pred => ".pred",
        }
    }

    /// Width in bits (1 for predicates).
    pub fn bits(self) -> u32 {
        match self {
            Type::B8 | Type::U8 | Type::S8 => 8,
            Type::B16 | Type::U16 | Type::S16 => 16,
            Type::B32 | Type::U32 | Type::S32 | Type::F32 => 32,
            Type::B64 | Type::U64 | Type::S64 | Type::F64 => 64,
            Type::Pred => 1,
        }
    }

    /// Width in bytes (predicates count as 1).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// The family.
    pub fn kind(self) -> TypeKind {
        match self {
            Type::B8 | Type::B16 | Type::B32 | Type::B64 => TypeKind::Bits,
            Type::U8 | Type::U16 | Type::U32 | Type::U64 => TypeKind::Unsigned,
            Type::S8 | Type::S16 | Type::S32 | Type::S64 => TypeKind::Signed,
            Type::F32 | Type::F64 => TypeKind::Float,
            Type::Pred => TypeKind::Pred,
        }
    }

    /// True for `.f32`/`.f64`.
    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }

    /// True for signed integers.
    pub fn is_signed(self) -> bool {
        self.kind() == TypeKind::Signed
    }

    /// The type of twice the width and the same family (for `.wide`).
    pub fn widened(self) -> Option<Type> {
        Some(match self {
            Type::U16 => Type::U32,
            Type::U32 => Type::U64,
            Type::S16 => Type::S32,
            Type::S32 => Type::S64,
            Type::B16 => Type::B32,
            Type::B32 => Type::B64,
            _ => return None,
        })
    }
}

/// A register (non-predicate), dense per kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);

/// A predicate register, dense per kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PredId(pub u32);

/// An instruction index within a kernel (PC = index × 8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

/// A kernel variable (shared, local, global, const), dense per kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// A kernel parameter, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParamId(pub u32);

/// The opcode, without modifiers (those live in [`Mods`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the PTX opcode of the same name
pub enum Opcode {
    Add,
    Sub,
    Mul,
    Mad,
    Fma,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    And,
    Or,
    Xor,
    Not,
    Shl,
    Shr,
    Popc,
    Clz,
    Brev,
    Bfe,
    Bfi,
    Sqrt,
    Rsqrt,
    Rcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Mov,
    Cvt,
    Cvta,
    Ld,
    St,
    Setp,
    Selp,
    Slct,
    Bra,
    Ret,
    Exit,
    /// `bar`/`barrier` (`.sync`, `.arrive`, `.red` in [`Mods::bar`]).
    Bar,
    Membar,
    Fence,
    Nanosleep,
    Atom,
    Red,
    Shfl,
    Vote,
    Activemask,
    /// gpusim extension: `wait.global.b32 [a], expected;` (AWG MonR/MonRS).
    Wait,
    /// `mul24.lo/.hi`: product of the low 24 bits of each operand.
    Mul24,
    /// `mad24.lo/.hi`: `mul24` plus a third operand.
    Mad24,
    /// `sad`: `c + |a - b|`.
    Sad,
    /// `prmt.b32`: byte permute (mode in [`Mods::prmt`]).
    Prmt,
    /// `bfind`: position of the most significant non-sign bit.
    Bfind,
    /// `shf.l/.r.wrap/.clamp.b32`: funnel shift.
    Shf,
    /// `dp4a.atype.btype`: four-way byte dot product and accumulate.
    Dp4a,
    /// `dp2a.lo/.hi.atype.btype`: two-way 16×8-bit dot product and accumulate.
    Dp2a,
    /// `copysign.f32/.f64 d, a, b`: `b` with the sign of `a`.
    Copysign,
    /// `testp.op.f32/.f64 p, a`: float class test (op in [`Mods::testp`]).
    Testp,
    /// `cnot`: `a == 0 ? 1 : 0`.
    Cnot,
    /// `fns.b32 d, mask, base, offset`: find the n-th set bit.
    Fns,
    /// `lop3.b32 d, a, b, c, immLut`: arbitrary three-input logic.
    Lop3,
    /// `addc`: add with carry-in (`.cc` also writes the carry).
    Addc,
    /// `subc`: subtract with borrow-in (`.cc` also writes the borrow).
    Subc,
    /// `madc`: multiply-add with carry-in.
    Madc,
    /// `tanh.approx.f32`.
    Tanh,
    /// `isspacep.space p, a`: does generic address `a` fall in the space?
    Isspacep,
    /// `set.cmp.dtype.stype d, a, b`: comparison to all ones / 1.0 or zero.
    Set,
    /// `tex.1d/.2d.v4.dtype.ctype d, [texref, {coords}]`: texture fetch.
    Tex,
    /// `call`: a device-function call; `src[0]` is the call-site index in
    /// [`Kernel::calls`], `src[1]` the target register of an indirect call.
    Call,
}

impl Opcode {
    /// Every opcode with its PTX spelling (for parsing and suggestions).
    pub const ALL: &'static [(&'static str, Opcode)] = &[
        ("add", Opcode::Add),
        ("sub", Opcode::Sub),
        ("mul", Opcode::Mul),
        ("mad", Opcode::Mad),
        ("fma", Opcode::Fma),
        ("div", Opcode::Div),
        ("rem", Opcode::Rem),
        ("abs", Opcode::Abs),
        ("neg", Opcode::Neg),
        ("min", Opcode::Min),
        ("max", Opcode::Max),
        ("and", Opcode::And),
        ("or", Opcode::Or),
        ("xor", Opcode::Xor),
        ("not", Opcode::Not),
        ("shl", Opcode::Shl),
        ("shr", Opcode::Shr),
        ("popc", Opcode::Popc),
        ("clz", Opcode::Clz),
        ("brev", Opcode::Brev),
        ("bfe", Opcode::Bfe),
        ("bfi", Opcode::Bfi),
        ("sqrt", Opcode::Sqrt),
        ("rsqrt", Opcode::Rsqrt),
        ("rcp", Opcode::Rcp),
        ("ex2", Opcode::Ex2),
        ("lg2", Opcode::Lg2),
        ("sin", Opcode::Sin),
        ("cos", Opcode::Cos),
        ("mov", Opcode::Mov),
        ("cvt", Opcode::Cvt),
        ("cvta", Opcode::Cvta),
        ("ld", Opcode::Ld),
        ("st", Opcode::St),
        ("setp", Opcode::Setp),
        ("selp", Opcode::Selp),
        ("slct", Opcode::Slct),
        ("bra", Opcode::Bra),
        ("ret", Opcode::Ret),
        ("exit", Opcode::Exit),
        ("bar", Opcode::Bar),
        ("barrier", Opcode::Bar),
        ("membar", Opcode::Membar),
        ("fence", Opcode::Fence),
        ("nanosleep", Opcode::Nanosleep),
        ("atom", Opcode::Atom),
        ("red", Opcode::Red),
        ("shfl", Opcode::Shfl),
        ("vote", Opcode::Vote),
        ("activemask", Opcode::Activemask),
        ("wait", Opcode::Wait),
        ("ldu", Opcode::Ld),
        ("mul24", Opcode::Mul24),
        ("mad24", Opcode::Mad24),
        ("sad", Opcode::Sad),
        ("prmt", Opcode::Prmt),
        ("bfind", Opcode::Bfind),
        ("shf", Opcode::Shf),
        ("dp4a", Opcode::Dp4a),
        ("dp2a", Opcode::Dp2a),
        ("copysign", Opcode::Copysign),
        ("testp", Opcode::Testp),
        ("cnot", Opcode::Cnot),
        ("fns", Opcode::Fns),
        ("lop3", Opcode::Lop3),
        ("addc", Opcode::Addc),
        ("subc", Opcode::Subc),
        ("madc", Opcode::Madc),
        ("tanh", Opcode::Tanh),
        ("isspacep", Opcode::Isspacep),
        ("set", Opcode::Set),
        ("tex", Opcode::Tex),
        ("call", Opcode::Call),
    ];

    /// Looks an opcode up by its spelling.
    pub fn from_name(s: &str) -> Option<Opcode> {
        Some(match s {
            "call" => Opcode::Call,
            "add" => Opcode::Add,
            "sub" => Opcode::Sub,
            "mul" => Opcode::Mul,
            "mad" => Opcode::Mad,
            "fma" => Opcode::Fma,
            "div" => Opcode::Div,
            "rem" => Opcode::Rem,
            "abs" => Opcode::Abs,
            "neg" => Opcode::Neg,
            "min" => Opcode::Min,
            "max" => Opcode::Max,
            "and" => Opcode::And,
            "or" => Opcode::Or,
            "xor" => Opcode::Xor,
            "not" => Opcode::Not,
            "shl" => Opcode::Shl,
            "shr" => Opcode::Shr,
            "popc" => Opcode::Popc,
            "clz" => Opcode::Clz,
            "brev" => Opcode::Brev,
            "bfe" => Opcode::Bfe,
            "bfi" => Opcode::Bfi,
            "sqrt" => Opcode::Sqrt,
            "rsqrt" => Opcode::Rsqrt,
            "rcp" => Opcode::Rcp,
            "ex2" => Opcode::Ex2,
            "lg2" => Opcode::Lg2,
            "sin" => Opcode::Sin,
            "cos" => Opcode::Cos,
            "mov" => Opcode::Mov,
            "cvt" => Opcode::Cvt,
            "cvta" => Opcode::Cvta,
            "ld" => Opcode::Ld,
            "st" => Opcode::St,
            "setp" => Opcode::Setp,
            "selp" => Opcode::Selp,
            "slct" => Opcode::Slct,
            "bra" => Opcode::Bra,
            "ret" => Opcode::Ret,
            "exit" => Opcode::Exit,
            "bar" | "barrier" => Opcode::Bar,
            "membar" => Opcode::Membar,
            "fence" => Opcode::Fence,
            "nanosleep" => Opcode::Nanosleep,
            "atom" => Opcode::Atom,
            "red" => Opcode::Red,
            "shfl" => Opcode::Shfl,
            "vote" => Opcode::Vote,
            "activemask" => Opcode::Activemask,
            "wait" => Opcode::Wait,
            "ldu" => Opcode::Ld,
            "mul24" => Opcode::Mul24,
            "mad24" => Opcode::Mad24,
            "sad" => Opcode::Sad,
            "prmt" => Opcode::Prmt,
            "bfind" => Opcode::Bfind,
            "shf" => Opcode::Shf,
            "dp4a" => Opcode::Dp4a,
            "dp2a" => Opcode::Dp2a,
            "copysign" => Opcode::Copysign,
            "testp" => Opcode::Testp,
            "cnot" => Opcode::Cnot,
            "fns" => Opcode::Fns,
            "lop3" => Opcode::Lop3,
            "addc" => Opcode::Addc,
            "subc" => Opcode::Subc,
            "madc" => Opcode::Madc,
            "tanh" => Opcode::Tanh,
            "isspacep" => Opcode::Isspacep,
            "set" => Opcode::Set,
            "tex" => Opcode::Tex,
            _ => return None,
        })
    }

    /// The PTX spelling.
    pub fn name(self) -> &'static str {
        Opcode::ALL
            .iter()
            .find(|(_, o)| *o == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
}

/// Rounding modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub enum Round {
    #[default]
    None,
    Rn,
    Rz,
    Rm,
    Rp,
    /// Round to nearest even integer (cvt to integral value).
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

/// `.lo`/`.hi`/`.wide` of `mul`/`mad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub enum MulMode {
    #[default]
    Lo,
    Hi,
    Wide,
}

/// Comparison of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub enum CmpOp {
    #[default]
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned forms.
    Lo,
    Ls,
    Hi,
    Hs,
    /// Unordered float forms (true if either operand is NaN).
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Both ordered / either NaN.
    Num,
    Nan,
}

/// Combining operation of `setp.cmp.bool` and predicate logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// State space of a memory access or variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
#[allow(missing_docs)]
pub enum Space {
    /// No space: generic addressing.
    #[default]
    Generic,
    Global,
    Shared,
    Local,
    Param,
    Const,
}

impl Space {
    /// The directive spelling (empty for generic).
    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "",
            Space::Global => ".global",
            Space::Shared => ".shared",
            Space::Local => ".local",
            Space::Param => ".param",
            Space::Const => ".const",
        }
    }
}

/// Operation of `atom`/`red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub enum AtomOp {
    #[default]
    Add,
    Inc,
    Dec,
    Min,
    Max,
    Exch,
    Cas,
    And,
    Or,
    Xor,
}

/// Mode of `shfl.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub enum ShflMode {
    #[default]
    Idx,
    Up,
    Down,
    Bfly,
}

/// Mode of `vote.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub enum VoteMode {
    #[default]
    All,
    Any,
    Uni,
    Ballot,
}

/// Kind of barrier instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BarKind {
    /// `bar.sync` / `barrier.sync`: arrive and wait.
    #[default]
    Sync,
    /// `bar.arrive`: arrive without waiting.
    Arrive,
    /// `bar.red.popc.u32`: arrive, wait, count lanes with a true predicate.
    RedPopc,
    /// `bar.red.and.pred`.
    RedAnd,
    /// `bar.red.or.pred`.
    RedOr,
}

/// Memory scope (`.cta`, `.gpu`/`.gl`, `.sys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub enum Scope {
    #[default]
    None,
    Cta,
    Gpu,
    Sys,
}

/// Boolean modifiers, as bits of [`Mods::flags`].
pub mod flag {
    /// `.ftz`: flush subnormals to zero.
    pub const FTZ: u32 = 1 << 0;
    /// `.sat`: saturate.
    pub const SAT: u32 = 1 << 1;
    /// `.approx`
    pub const APPROX: u32 = 1 << 2;
    /// `.full`
    pub const FULL: u32 = 1 << 3;
    /// `.volatile`
    pub const VOLATILE: u32 = 1 << 4;
    /// `.uni`: the branch is known non-divergent.
    pub const UNI: u32 = 1 << 5;
    /// `.wait`: a gpusim waiting-atomic extension (AWG).
    pub const WAIT: u32 = 1 << 6;
    /// `cvta.to`: generic → space (otherwise space → generic).
    pub const TO: u32 = 1 << 7;
    /// `.relaxed`
    pub const RELAXED: u32 = 1 << 8;
    /// `.acquire`
    pub const ACQUIRE: u32 = 1 << 9;
    /// `.release`
    pub const RELEASE: u32 = 1 << 10;
    /// `.acq_rel` / `.sc`
    pub const ACQ_REL: u32 = 1 << 11;
    /// `.aligned`
    pub const ALIGNED: u32 = 1 << 12;
    /// `.cc`: the instruction writes the carry (borrow) flag.
    pub const CC: u32 = 1 << 13;
    /// `shf.r` (otherwise `shf.l`).
    pub const SHF_RIGHT: u32 = 1 << 14;
    /// `shf.clamp` (otherwise `.wrap`).
    pub const SHF_CLAMP: u32 = 1 << 15;
    /// `bfind.shiftamt`: the result is `width - 1 - position`.
    pub const SHIFTAMT: u32 = 1 << 16;
    /// `.sync` written (`vote.sync`, `shfl.sync`); old `vote` has no mask.
    pub const SYNC: u32 = 1 << 17;
}

/// Every modifier of an instruction, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Mods {
    /// Rounding.
    pub round: Round,
    /// `mul`/`mad` result part.
    pub mul: MulMode,
    /// `setp` comparison.
    pub cmp: CmpOp,
    /// `setp` combining operation, `bar.red` operation.
    pub bool_op: Option<BoolOp>,
    /// Memory state space (ld, st, atom, red, cvta, wait).
    pub space: Space,
    /// Vector width of ld/st: 1, 2 or 4.
    pub vec: u8,
    /// `atom`/`red` operation.
    pub atom: AtomOp,
    /// `shfl` mode.
    pub shfl: ShflMode,
    /// `vote` mode.
    pub vote: VoteMode,
    /// `bar` kind.
    pub bar: BarKind,
    /// Memory scope.
    pub scope: Scope,
    /// `prmt` mode.
    pub prmt: PrmtMode,
    /// `testp` class.
    pub testp: TestpOp,
    /// `tex` geometry: 1 (`.1d`) or 2 (`.2d`).
    pub tex_dims: u8,
    /// Boolean modifiers ([`flag`]).
    pub flags: u32,
}

/// Mode of `prmt.b32` (PTX ISA "prmt").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PrmtMode {
    /// No mode: each selector nibble picks a byte (bit 3 replicates its sign).
    #[default]
    Generic,
    /// `.f4e`: forward 4 extract.
    F4e,
    /// `.b4e`: backward 4 extract.
    B4e,
    /// `.rc8`: replicate byte 8 times.
    Rc8,
    /// `.ecl`: edge clamp left.
    Ecl,
    /// `.ecr`: edge clamp right.
    Ecr,
    /// `.rc16`: replicate a 16-bit half.
    Rc16,
}

/// Class tested by `testp` (PTX ISA "testp").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TestpOp {
    /// `.finite`: neither infinite nor NaN.
    #[default]
    Finite,
    /// `.infinite`: ±∞.
    Infinite,
    /// `.number`: not NaN.
    Number,
    /// `.notanumber`: NaN.
    NotANumber,
    /// `.normal`: a normal number (not zero, subnormal, ∞ or NaN).
    Normal,
    /// `.subnormal`: a non-zero subnormal.
    Subnormal,
}

impl Mods {
    /// True if `f` (a [`flag`] bit) is set.
    pub fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }
}

/// A special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `%tid.{x,y,z}` (dimension 0..3).
    Tid(u8),
    /// `%ntid.{x,y,z}`
    Ntid(u8),
    /// `%ctaid.{x,y,z}`
    Ctaid(u8),
    /// `%nctaid.{x,y,z}`
    Nctaid(u8),
    /// `%laneid`
    LaneId,
    /// `%warpid`
    WarpId,
    /// `%nwarpid`
    NWarpId,
    /// `%smid`
    SmId,
    /// `%nsmid`
    NSmId,
    /// `%clock` (32 bits)
    Clock,
    /// `%clock64`
    Clock64,
    /// `%globaltimer` (64 bits)
    GlobalTimer,
    /// `%lanemask_eq`, `%lanemask_le`, `%lanemask_lt`, `%lanemask_ge`,
    /// `%lanemask_gt`: lanes relative to the reading lane.
    LaneMask(LaneMaskKind),
    /// `%gridid` (64 bits): the launch's grid id.
    GridId,
    /// `%dynamic_smem_size`: bytes of dynamic shared memory of the launch.
    DynamicSmemSize,
    /// `%total_smem_size`: static plus dynamic shared memory of the CTA.
    TotalSmemSize,
}

/// Which `%lanemask_*` register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneMaskKind {
    /// `%lanemask_eq`: the reading lane's bit.
    Eq,
    /// `%lanemask_le`: lanes at or below.
    Le,
    /// `%lanemask_lt`: lanes below.
    Lt,
    /// `%lanemask_ge`: lanes at or above.
    Ge,
    /// `%lanemask_gt`: lanes above.
    Gt,
}

impl LaneMaskKind {
    /// The mask for lane `lane` (0..32) of a 32-lane warp.
    pub fn mask(self, lane: u32) -> u32 {
        let eq = 1u32 << (lane & 31);
        let lt = eq - 1;
        match self {
            LaneMaskKind::Eq => eq,
            LaneMaskKind::Lt => lt,
            LaneMaskKind::Le => lt | eq,
            LaneMaskKind::Ge => !lt,
            LaneMaskKind::Gt => !(lt | eq),
        }
    }
}

impl SpecialReg {
    /// Parses a special register name.
    pub fn from_name(s: &str) -> Option<SpecialReg> {
        let dim = |d: &str| match d {
            "x" => Some(0u8),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        if let Some((base, d)) = s.split_once('.') {
            let d = dim(d)?;
            return Some(match base {
                "%tid" => SpecialReg::Tid(d),
                "%ntid" => SpecialReg::Ntid(d),
                "%ctaid" => SpecialReg::Ctaid(d),
                "%nctaid" => SpecialReg::Nctaid(d),
                _ => return None,
            });
        }
        Some(match s {
            "%laneid" => SpecialReg::LaneId,
            "%warpid" => SpecialReg::WarpId,
            "%nwarpid" => SpecialReg::NWarpId,
            "%smid" => SpecialReg::SmId,
            "%nsmid" => SpecialReg::NSmId,
            "%clock" => SpecialReg::Clock,
            "%clock64" => SpecialReg::Clock64,
            "%globaltimer" => SpecialReg::GlobalTimer,
            "%lanemask_eq" => SpecialReg::LaneMask(LaneMaskKind::Eq),
            "%lanemask_le" => SpecialReg::LaneMask(LaneMaskKind::Le),
            "%lanemask_lt" => SpecialReg::LaneMask(LaneMaskKind::Lt),
            "%lanemask_ge" => SpecialReg::LaneMask(LaneMaskKind::Ge),
            "%lanemask_gt" => SpecialReg::LaneMask(LaneMaskKind::Gt),
            "%gridid" => SpecialReg::GridId,
            "%dynamic_smem_size" => SpecialReg::DynamicSmemSize,
            "%total_smem_size" => SpecialReg::TotalSmemSize,
            _ => return None,
        })
    }

    /// The type a read of the register has.
    pub fn ty(self) -> Type {
        match self {
            SpecialReg::Clock64 | SpecialReg::GlobalTimer | SpecialReg::GridId => Type::U64,
            _ => Type::U32,
        }
    }
}

/// The base of a memory address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrBase {
    /// `[imm]`: an absolute address.
    Absolute,
    /// `[%rd]`: a register holding the address.
    Reg(RegId),
    /// `[var]`: a variable's address in its space.
    Var(VarId),
    /// `[param]`: a kernel parameter.
    Param(ParamId),
}

/// `[base+offset]`
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    /// What the offset is added to.
    pub base: AddrBase,
    /// Constant byte offset.
    pub offset: i64,
}

/// An operand of a decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Operand {
    /// No operand in this slot.
    #[default]
    None,
    /// A register.
    Reg(RegId),
    /// A predicate, possibly negated (`!%p`).
    Pred {
        /// Which predicate.
        id: PredId,
        /// `!` written before it.
        negate: bool,
    },
    /// An immediate, as the bit pattern of the slot's type (zero-extended).
    Imm(u64),
    /// A special register.
    Special(SpecialReg),
    /// The address of a variable (`mov.u64 %rd, smem;`, `cvta`).
    VarAddr(VarId),
    /// A memory address.
    Addr(Address),
    /// A vector of registers (`{%f1, %f2}`); `None` is the sink `_`.
    Vector {
        /// The registers.
        regs: [Option<RegId>; 4],
        /// How many are used.
        len: u8,
    },
    /// A branch target.
    Target(InstId),
    /// A texture reference, as an index into [`Kernel::textures`].
    TexRef(u32),
}

/// A guard predicate (`@p` / `@!p`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The predicate.
    pub pred: PredId,
    /// True for `@!p`.
    pub negate: bool,
}

/// A decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// Opcode.
    pub op: Opcode,
    /// Instruction type (destination type of `cvt` and `slct`; `.pred` for
    /// instructions without one).
    pub ty: Type,
    /// Second type: the source type of `cvt`/`slct`, else equal to `ty`.
    pub ty2: Type,
    /// Modifiers.
    pub mods: Mods,
    /// Guard, if any.
    pub guard: Option<Guard>,
    /// Destination (register, predicate, vector) or `None`.
    pub dst: Operand,
    /// Second destination: `q` of `setp p|q`, `p` of `shfl d|p`.
    pub dst2: Operand,
    /// Sources in PTX order; memory operands are [`Operand::Addr`].
    pub src: [Operand; 4],
    /// Number of used `src` slots.
    pub nsrc: u8,
    /// Source span of the whole statement.
    pub span: Span,
    /// 1-based source line.
    pub line: u32,
}

impl Inst {
    /// The used sources.
    pub fn srcs(&self) -> &[Operand] {
        &self.src[..self.nsrc as usize]
    }

    /// The branch target, for `bra`.
    pub fn target(&self) -> Option<InstId> {
        match (self.op, self.src[0]) {
            (Opcode::Bra, Operand::Target(t)) => Some(t),
            _ => None,
        }
    }

    /// True for instructions after which control never falls through when
    /// unguarded (`bra`, `ret`, `exit`).
    pub fn ends_block(&self) -> bool {
        matches!(self.op, Opcode::Bra | Opcode::Ret | Opcode::Exit)
    }

    /// True for `ret`/`exit`.
    pub fn is_exit(&self) -> bool {
        matches!(self.op, Opcode::Ret | Opcode::Exit)
    }
}

/// A register's declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInfo {
    /// Full name, e.g. `%rd3`.
    pub name: String,
    /// Declared type.
    pub ty: Type,
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Name.
    pub name: String,
    /// Declared type (`.b8` for byte arrays).
    pub ty: Type,
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Offset in the parameter buffer.
    pub offset: u32,
}

/// A variable in shared, local, global or const space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// Name.
    pub name: String,
    /// State space.
    pub space: Space,
    /// Element type.
    pub ty: Type,
    /// Size in bytes (0 for `.extern .shared` arrays sized at launch).
    pub size: u64,
    /// Alignment in bytes.
    pub align: u32,
    /// Initial contents (little-endian bytes), if initialized.
    pub init: Option<Vec<u8>>,
    /// Declared at module scope (shared by every kernel of the module).
    pub module_scope: bool,
    /// Declared `.extern` (dynamic shared memory).
    pub is_extern: bool,
}

/// One `.entry`: decoded, resolved and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The entry name as written (possibly mangled).
    pub name: String,
    /// The `.entry` keyword and name.
    pub span: Span,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Total parameter-buffer size in bytes.
    pub param_bytes: u32,
    /// Registers, indexed by [`RegId`], in order of first use.
    pub regs: Vec<RegInfo>,
    /// Predicate names, indexed by [`PredId`], in order of first use.
    pub preds: Vec<String>,
    /// Variables, indexed by [`VarId`] (module-scope ones first).
    pub vars: Vec<Var>,
    /// Instructions, indexed by [`InstId`]: the entry's own first, then the
    /// body of every device function it can call ([`Kernel::funcs`]).
    pub insts: Vec<Inst>,
    /// Device functions linked after the entry's instructions, in module
    /// order ([`crate::ir::call`]).
    pub funcs: Vec<crate::ir::call::FuncInfo>,
    /// Call sites, indexed by the immediate `src[0]` of each `call`.
    pub calls: Vec<crate::ir::call::CallSite>,
    /// Labels and the instruction each names, in source order.
    pub labels: Vec<(String, InstId)>,
    /// `.maxntid`
    pub maxntid: Option<[u32; 3]>,
    /// `.reqntid`
    pub reqntid: Option<[u32; 3]>,
    /// `.maxnreg`: at most this many registers per thread.
    pub maxnreg: Option<u32>,
    /// Texture references of the module, by name (what
    /// [`Operand::TexRef`] indexes).
    pub textures: Vec<String>,
}

impl Kernel {
    /// Static shared memory in bytes (all `.shared` variables, aligned).
    pub fn shared_bytes(&self) -> u64 {
        let mut total = 0u64;
        for v in self.vars.iter().filter(|v| v.space == Space::Shared) {
            total = total.next_multiple_of(u64::from(v.align.max(1))) + v.size;
        }
        total
    }
}

/// A lowered module: every `.entry` of one PTX file.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The kernels, in source order.
    pub kernels: Vec<Kernel>,
}

impl Module {
    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes() {
        let r = |n| Operand::Reg(RegId(n));
        let mut i = Inst {
            op: Opcode::St,
            ty: Type::F32,
            ty2: Type::F32,
            mods: Mods::default(),
            guard: Some(Guard {
                pred: PredId(2),
                negate: true,
            }),
            dst: Operand::None,
            dst2: Operand::None,
            src: [
                Operand::Addr(Address {
                    base: AddrBase::Reg(RegId(5)),
                    offset: 4,
                }),
                Operand::Vector {
                    regs: [Some(RegId(1)), None, Some(RegId(3)), None],
                    len: 4,
                },
                Operand::None,
                Operand::None,
            ],
            nsrc: 2,
            span: crate::ptx::diagnostics::Span::default(),
            line: 1,
        };
        assert_eq!(
            i.reads(),
            vec![
                RegRef::Reg(RegId(1)),
                RegRef::Reg(RegId(3)),
                RegRef::Reg(RegId(5)),
                RegRef::Pred(PredId(2))
            ]
        );
        assert!(i.writes().is_empty());
        i.op = Opcode::Setp;
        i.guard = None;
        i.dst = Operand::Pred {
            id: PredId(0),
            negate: false,
        };
        i.dst2 = Operand::Pred {
            id: PredId(1),
            negate: false,
        };
        i.src = [r(7), Operand::Imm(3), Operand::None, Operand::None];
        assert_eq!(i.reads(), vec![RegRef::Reg(RegId(7))]);
        assert_eq!(
            i.writes(),
            vec![RegRef::Pred(PredId(0)), RegRef::Pred(PredId(1))]
        );
    }

    #[test]
    fn opcode_names_round_trip() {
        for (name, op) in Opcode::ALL {
            assert_eq!(Opcode::from_name(name), Some(*op), "{name}");
        }
        assert_eq!(Opcode::from_name("mvo"), None);
    }
}

/// A register or predicate an instruction reads or writes (what a
/// scoreboard tracks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegRef {
    /// A data register.
    Reg(RegId),
    /// A predicate register.
    Pred(PredId),
}

impl Inst {
    /// Registers and predicates this instruction reads: guard, sources,
    /// address bases, vector elements of stores, and the destination of
    /// `setp`/`mov.pred` forms that keep inactive lanes (none: writes are
    /// masked per lane, which a scoreboard treats as a write).
    pub fn reads(&self) -> Vec<RegRef> {
        let mut out = Vec::new();
        if let Some(g) = self.guard {
            out.push(RegRef::Pred(g.pred));
        }
        for o in self.srcs() {
            operand_regs(o, &mut out);
        }
        out.sort();
        out.dedup();
        out
    }

    /// Registers and predicates this instruction writes.
    pub fn writes(&self) -> Vec<RegRef> {
        let mut out = Vec::new();
        for o in [&self.dst, &self.dst2] {
            match o {
                Operand::Addr(_) => {}
                o => operand_regs(o, &mut out),
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

fn operand_regs(o: &Operand, out: &mut Vec<RegRef>) {
    match *o {
        Operand::Reg(r) => out.push(RegRef::Reg(r)),
        Operand::Pred { id, .. } => out.push(RegRef::Pred(id)),
        Operand::Addr(Address {
            base: AddrBase::Reg(r),
            ..
        }) => out.push(RegRef::Reg(r)),
        Operand::Vector { regs, len } => out.extend(
            regs[..len as usize]
                .iter()
                .flatten()
                .map(|&r| RegRef::Reg(r)),
        ),
        _ => {}
    }
}
