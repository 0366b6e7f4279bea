//! Syntax tree of a PTX module, as written: names are still text, every node
//! keeps its byte span. [`crate::ir::lower`] resolves and checks it.

use crate::ptx::diagnostics::Span;

/// A name (register, symbol, label, type, opcode) with where it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ident<'a> {
    /// The text, e.g. `%rd3` or `ld.global.f32`.
    pub text: &'a str,
    /// Where it is.
    pub span: Span,
}

/// A whole module.
#[derive(Clone, Debug, Default)]
pub struct Module<'a> {
    /// `.version` value, if given.
    pub version: Option<Ident<'a>>,
    /// `.target` names.
    pub target: Vec<Ident<'a>>,
    /// `.address_size`, if given.
    pub address_size: Option<(u32, Span)>,
    /// Module-scope variables (`.global`, `.shared`, `.const`).
    pub globals: Vec<VarDecl<'a>>,
    /// `.entry` and `.func` definitions, in order.
    pub functions: Vec<Function<'a>>,
    /// Texture, sampler and surface references (`.texref`, `.samplerref`,
    /// `.surfref`, `.global .texref`, PTX 1.x `.tex .u32`), in order.
    pub textures: Vec<TexDecl<'a>>,
}

/// `.texref name;` and its relatives.
#[derive(Clone, Debug)]
pub struct TexDecl<'a> {
    /// `.texref`, `.samplerref`, `.surfref` or `.tex`.
    pub kind: Ident<'a>,
    /// The reference's name.
    pub name: Ident<'a>,
}

/// A kernel (`.entry`) or device function (`.func`).
#[derive(Clone, Debug)]
pub struct Function<'a> {
    /// True for `.entry`.
    pub is_entry: bool,
    /// The `.entry`/`.func` keyword.
    pub keyword: Span,
    /// The (possibly mangled) name.
    pub name: Ident<'a>,
    /// Parameters in order.
    pub params: Vec<ParamDecl<'a>>,
    /// Return parameters of a `.func` (`.func (.param .b32 r) f(…)`), in order.
    pub rets: Vec<ParamDecl<'a>>,
    /// `.extern` was written before the keyword.
    pub is_extern: bool,
    /// `.maxntid x, y, z`.
    pub maxntid: Option<[u32; 3]>,
    /// `.reqntid x, y, z`.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxnreg n`.
    pub maxnreg: Option<u32>,
    /// The body, `None` for a declaration without one.
    pub body: Option<Vec<Stmt<'a>>>,
    /// From the keyword to the closing brace.
    pub span: Span,
}

/// `.param .u64 .ptr .global .align 4 name` (or an array `.b8 name[16]`).
#[derive(Clone, Debug)]
pub struct ParamDecl<'a> {
    /// The type directive, e.g. `.u64`.
    pub ty: Ident<'a>,
    /// `.align N`.
    pub align: Option<u32>,
    /// The name.
    pub name: Ident<'a>,
    /// Array length for byte-array parameters.
    pub array: Option<u64>,
    /// Declared `.reg` (an old-style register parameter of a `.func`).
    pub is_reg: bool,
    /// The whole declaration.
    pub span: Span,
}

/// `.shared .align 4 .f32 tile[256];` and friends.
#[derive(Clone, Debug)]
pub struct VarDecl<'a> {
    /// State space directive (`.shared`, `.global`, `.const`, `.local`).
    pub space: Ident<'a>,
    /// Linkage (`.visible`, `.extern`, `.weak`) if written.
    pub linkage: Option<Ident<'a>>,
    /// `.align N`.
    pub align: Option<u32>,
    /// Element type directive.
    pub ty: Ident<'a>,
    /// Variable name.
    pub name: Ident<'a>,
    /// Array dimensions; `None` for `[]` (size from the initializer or extern).
    pub dims: Vec<Option<u64>>,
    /// Initializer values, if any.
    pub init: Option<Vec<Operand<'a>>>,
    /// The whole declaration.
    pub span: Span,
}

/// `.reg .b32 %r<6>, %x;`
#[derive(Clone, Debug)]
pub struct RegDecl<'a> {
    /// The type directive.
    pub ty: Ident<'a>,
    /// Declared names: plain (`%x`) or parameterized (`%r<6>` = `%r0`..`%r5`).
    pub names: Vec<(Ident<'a>, Option<u32>)>,
    /// The whole declaration.
    pub span: Span,
}

/// A statement inside a function body.
#[derive(Clone, Debug)]
pub enum Stmt<'a> {
    /// Register declaration.
    Reg(RegDecl<'a>),
    /// Function-scope variable.
    Var(VarDecl<'a>),
    /// `name:`
    Label(Ident<'a>),
    /// An instruction.
    Inst(Instruction<'a>),
    /// A nested `{ … }` block (flattened by lowering; names are function-wide).
    Block(Vec<Stmt<'a>>),
    /// `call (r), f, (a, b);` — a device-function call (one instruction).
    Call(CallStmt<'a>),
    /// `proto: .callprototype (.param .b32 _) _ (.param .b32 _);`
    Prototype(Prototype<'a>),
}

/// `@p call.uni (ret), target, (arg, …), proto;` as written.
#[derive(Clone, Debug)]
pub struct CallStmt<'a> {
    /// Guard predicate and whether it is negated.
    pub guard: Option<(bool, Ident<'a>)>,
    /// `call` or `call.uni`.
    pub opcode: Ident<'a>,
    /// Return arguments (call-site `.param` variables or registers).
    pub rets: Vec<Ident<'a>>,
    /// The callee: a function name, or a register holding its address.
    pub target: Ident<'a>,
    /// Arguments (call-site `.param` variables or registers).
    pub args: Vec<Ident<'a>>,
    /// The `.callprototype` label (or `.calltargets` list) of an indirect call.
    pub proto: Option<Ident<'a>>,
    /// From the guard (or opcode) to the `;`.
    pub span: Span,
}

/// A `.callprototype` declaration: the signature of indirect calls.
#[derive(Clone, Debug)]
pub struct Prototype<'a> {
    /// The label naming it.
    pub name: Ident<'a>,
    /// Return parameters.
    pub rets: Vec<ParamDecl<'a>>,
    /// Parameters.
    pub params: Vec<ParamDecl<'a>>,
    /// The whole declaration.
    pub span: Span,
}

/// `@!%p1 setp.lt.s32 %p2, %r1, 4;`
#[derive(Clone, Debug)]
pub struct Instruction<'a> {
    /// Guard predicate and whether it is negated.
    pub guard: Option<(bool, Ident<'a>)>,
    /// Opcode with its modifiers, as one word (`ld.global.v2.f32`).
    pub opcode: Ident<'a>,
    /// Operands in order.
    pub operands: Vec<Operand<'a>>,
    /// From the guard (or opcode) to the `;`.
    pub span: Span,
}

/// A literal value as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// An integer; the sign is kept apart so `-0x80000000` range-checks right.
    Int {
        /// Absolute value.
        magnitude: u64,
        /// Written with a leading `-`.
        negative: bool,
    },
    /// `0f…`: single-precision bits.
    F32Bits(u32),
    /// `0d…`: double-precision bits.
    F64Bits(u64),
    /// A decimal float.
    Float(f64),
}

/// An operand as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand<'a> {
    /// A register, special register, variable or label name.
    Name(Ident<'a>),
    /// `!%p`: a negated predicate.
    Not(Ident<'a>),
    /// A literal.
    Literal(Literal, Span),
    /// `[base+offset]` (base may be absent: `[0x100]`).
    Address {
        /// Register or variable.
        base: Option<Ident<'a>>,
        /// Constant byte offset.
        offset: i64,
        /// The brackets and everything between.
        span: Span,
    },
    /// `{%f1, %f2, _}`: vector of registers (`_` is a sink).
    Vector(Vec<Ident<'a>>, Span),
    /// `%r|%p` or `%p|%q`: two destinations.
    Pair(Ident<'a>, Ident<'a>),
    /// `[texref, {x, y}]`: a texture reference and its coordinates.
    TexAddr {
        /// The texture reference.
        tex: Ident<'a>,
        /// Coordinate registers.
        coords: Vec<Ident<'a>>,
        /// The brackets and everything between.
        span: Span,
    },
}

impl Operand<'_> {
    /// Where the operand is.
    pub fn span(&self) -> Span {
        match self {
            Operand::Name(i) => i.span,
            Operand::Not(i) => i.span,
            Operand::Literal(_, s) => *s,
            Operand::Address { span, .. } => *span,
            Operand::Vector(_, s) => *s,
            Operand::Pair(a, b) => a.span.join(b.span),
            Operand::TexAddr { span, .. } => *span,
        }
    }
}
