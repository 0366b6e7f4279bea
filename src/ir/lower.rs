//! Lowering: syntax tree → checked, decoded IR.
//!
//! Resolves register names to dense ids (in order of first use), labels to
//! instruction ids and symbols to variables and parameters; decodes opcode
//! modifiers; checks operand counts, types, state spaces, vector widths and
//! immediate ranges. Every problem is a [`Diagnostic`] with a
//! `gpusim::lower::…` code; lowering keeps going after an error so that one
//! run reports all of them.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::inst::*;
use crate::ptx::ast::{self, Ident, Literal, Stmt};
use crate::ptx::diagnostics::{Diagnostic, Span};
use crate::ptx::suggest::closest;

mod call;

/// Lowers a parsed module. Returns the module (kernels with errors are still
/// included, partially) and every diagnostic.
pub fn lower(m: &ast::Module<'_>, src: &str) -> (Module, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let lines = LineIndex::new(src);
    if let Some((size, span)) = m.address_size
        && size != 64
        && size != 32
    {
        diags.push(
            Diagnostic::new(
                "gpusim::lower::unsupported",
                format!("`.address_size {size}` is not supported"),
            )
            .label(span, "only 32- and 64-bit addressing exist")
            .help("write `.address_size 64` (or 32 for 32-bit pointers)"),
        );
    }
    let mut globals = Vec::new();
    for g in &m.globals {
        if let Some(v) = lower_var(g, true, &mut diags) {
            if globals.iter().any(|o: &Var| o.name == v.name) {
                diags.push(
                    Diagnostic::new(
                        "gpusim::lower::duplicate_declaration",
                        format!("`{}` is declared twice", v.name),
                    )
                    .label(g.name.span, "second declaration"),
                );
            } else {
                globals.push(v);
            }
        }
    }
    let mut textures: Vec<String> = Vec::new();
    for t in &m.textures {
        if t.kind.text == ".samplerref" || t.kind.text == ".surfref" {
            // Declarations are accepted; only `.texref` fetches are modelled.
            continue;
        }
        if textures.iter().any(|n| n == t.name.text)
            || globals.iter().any(|g| g.name == t.name.text)
        {
            diags.push(
                Diagnostic::new(
                    "gpusim::lower::duplicate_declaration",
                    format!("`{}` is declared twice", t.name.text),
                )
                .label(t.name.span, "second declaration"),
            );
            continue;
        }
        textures.push(t.name.text.to_string());
    }
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut seen: HashMap<&str, Span> = HashMap::default();
    let sigs = call::signatures(m);
    let (funcs, bodyless) = call::lower_funcs(m, &globals, &lines, &sigs, &mut diags);
    for f in &m.functions {
        if !f.is_entry {
            continue;
        }
        if let Some(prev) = seen.insert(f.name.text, f.name.span) {
            diags.push(
                Diagnostic::new(
                    "gpusim::lower::duplicate_entry",
                    format!("entry `{}` is defined twice", f.name.text),
                )
                .label(f.name.span, "second definition")
                .label(prev, "first defined here"),
            );
            continue;
        }
        let Some(body) = &f.body else { continue };
        let mut cx = KernelCx::new(f, &globals, &lines, &mut diags);
        cx.textures = textures.clone();
        cx.module_funcs = sigs.clone();
        cx.declare(body);
        cx.instructions(body);
        let lowered = cx.finish_body(f, globals.len());
        kernels.push(crate::ir::call::link(
            lowered, &funcs, &bodyless, &mut diags,
        ));
    }
    (Module { kernels }, diags)
}

/// Byte offset → line number.
struct LineIndex {
    newlines: Vec<u32>,
}

impl LineIndex {
    fn new(src: &str) -> LineIndex {
        LineIndex {
            newlines: src
                .bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i as u32)
                .collect(),
        }
    }
    fn line(&self, offset: u32) -> u32 {
        self.newlines.partition_point(|&n| n < offset) as u32 + 1
    }
}

fn lower_var(v: &ast::VarDecl<'_>, module_scope: bool, diags: &mut Vec<Diagnostic>) -> Option<Var> {
    let space = match v.space.text {
        ".global" => Space::Global,
        ".shared" => Space::Shared,
        ".const" => Space::Const,
        ".local" => Space::Local,
        ".param" if !module_scope => Space::Param,
        other => {
            diags.push(
                Diagnostic::new(
                    "gpusim::lower::bad_state_space",
                    format!("`{other}` variables are not supported"),
                )
                .label(v.space.span, "state space"),
            );
            return None;
        }
    };
    if !module_scope && !matches!(space, Space::Shared | Space::Local | Space::Param) {
        diags.push(
            Diagnostic::new(
                "gpusim::lower::bad_state_space",
                format!(
                    "`{}` variables must be declared at module scope",
                    v.space.text
                ),
            )
            .label(v.space.span, "inside a function body")
            .help("move the declaration before the `.entry`"),
        );
        return None;
    }
    let Some(ty) = Type::from_directive(v.ty.text).filter(|t| *t != Type::Pred) else {
        diags.push(
            Diagnostic::new(
                "gpusim::lower::bad_type",
                format!("`{}` is not a variable type", v.ty.text),
            )
            .label(v.ty.span, "expected a type such as `.b8`, `.u32` or `.f32`"),
        );
        return None;
    };
    let is_extern = v.linkage.map(|l| l.text) == Some(".extern");
    let mut count: u64 = 1;
    let mut is_unsized = false;
    for d in &v.dims {
        match d {
            Some(n) => count = count.saturating_mul(*n),
            None => is_unsized = true,
        }
    }
    let mut init = None;
    if let Some(values) = &v.init {
        let mut bytes = Vec::with_capacity(values.len() * ty.bytes() as usize);
        for op in values {
            let bits = match op {
                ast::Operand::Literal(lit, span) => match immediate(*lit, ty) {
                    Ok(b) => b,
                    Err(msg) => {
                        diags.push(
                            Diagnostic::new("gpusim::lower::immediate_out_of_range", msg)
                                .label(*span, "initializer"),
                        );
                        0
                    }
                },
                other => {
                    diags.push(
                        Diagnostic::new(
                            "gpusim::lower::unsupported",
                            "only literal initializers are supported",
                        )
                        .label(other.span(), "not a literal"),
                    );
                    0
                }
            };
            bytes.extend_from_slice(&bits.to_le_bytes()[..ty.bytes() as usize]);
        }
        if is_unsized {
            count = values.len() as u64;
        }
        init = Some(bytes);
    }
    if is_unsized && init.is_none() {
        if is_extern && space == Space::Shared {
            count = 0;
        } else {
            diags.push(
                Diagnostic::new(
                    "gpusim::lower::unsupported",
                    format!("array `{}` has no size", v.name.text),
                )
                .label(v.name.span, "size it, or declare it `.extern .shared`"),
            );
        }
    }
    let size = count.saturating_mul(u64::from(ty.bytes()));
    if size > MAX_VAR_BYTES {
        diags.push(
            Diagnostic::new(
                "gpusim::lower::too_large",
                format!("variable `{}` is {size} bytes", v.name.text),
            )
            .label(
                v.name.span,
                format!("larger than the {} MiB gpusim allows", MAX_VAR_BYTES >> 20),
            ),
        );
        return None;
    }
    if let Some(b) = &mut init {
        b.resize(size as usize, 0);
    }
    Some(Var {
        name: v.name.text.to_string(),
        space,
        ty,
        size,
        align: v.align.unwrap_or(ty.bytes()).max(1),
        init,
        module_scope,
        is_extern,
    })
}

/// Largest variable gpusim accepts (bytes).
const MAX_VAR_BYTES: u64 = 1 << 30;

/// Converts a literal to the bit pattern of `ty`, or explains why it can't.
fn immediate(lit: Literal, ty: Type) -> Result<u64, String> {
    let bits = ty.bits();
    match (ty.kind(), lit) {
        (
            TypeKind::Pred,
            Literal::Int {
                magnitude: m @ (0 | 1),
                negative: false,
            },
        ) => Ok(m),
        // nvcc writes true as -1 (all bits set): `mov.pred %p1, -1;`.
        (
            TypeKind::Pred,
            Literal::Int {
                magnitude: 1,
                negative: true,
            },
        ) => Ok(1),
        (TypeKind::Pred, _) => {
            Err("a predicate literal is `0` (false), or `1` or `-1` (true)".into())
        }
        (
            TypeKind::Float,
            Literal::Int {
                magnitude,
                negative,
            },
        ) => {
            let m = magnitude as f64;
            let v = if negative { -m } else { m };
            Ok(if bits == 32 {
                u64::from((v as f32).to_bits())
            } else {
                v.to_bits()
            })
        }
        (TypeKind::Float, Literal::Float(v)) => Ok(if bits == 32 {
            u64::from((v as f32).to_bits())
        } else {
            v.to_bits()
        }),
        (TypeKind::Float, Literal::F32Bits(b)) => Ok(if bits == 32 {
            u64::from(b)
        } else {
            f64::from(f32::from_bits(b)).to_bits()
        }),
        (TypeKind::Float, Literal::F64Bits(b)) => Ok(if bits == 64 {
            b
        } else {
            u64::from((f64::from_bits(b) as f32).to_bits())
        }),
        (_, Literal::F32Bits(b)) if bits == 32 && ty.kind() == TypeKind::Bits => Ok(u64::from(b)),
        (_, Literal::F64Bits(b)) if bits == 64 && ty.kind() == TypeKind::Bits => Ok(b),
        (_, Literal::F32Bits(_) | Literal::F64Bits(_) | Literal::Float(_)) => Err(format!(
            "a float literal cannot be a `{}` operand",
            ty.name()
        )),
        (
            _,
            Literal::Int {
                magnitude,
                negative,
            },
        ) => {
            let max_unsigned: u128 = (1u128 << bits) - 1;
            let min_negative: u128 = 1u128 << (bits - 1);
            let ok = if negative {
                u128::from(magnitude) <= min_negative
            } else {
                u128::from(magnitude) <= max_unsigned
            };
            if !ok {
                let lo = -(min_negative as i128);
                return Err(format!(
                    "immediate `{}{}` does not fit in `{}` (range {}..={})",
                    if negative { "-" } else { "" },
                    magnitude,
                    ty.name(),
                    lo,
                    max_unsigned
                ));
            }
            let v = if negative {
                magnitude.wrapping_neg()
            } else {
                magnitude
            };
            Ok(if bits == 64 {
                v
            } else {
                v & ((1u64 << bits) - 1)
            })
        }
    }
}

/// A `.reg` declaration: a single name or `%prefix<N>`.
#[derive(Clone, Copy)]
struct RegDeclInfo {
    ty: Type,
    /// `Some(N)` for `%prefix<N>`.
    count: Option<u32>,
    span: Span,
}

/// The result of looking a register name up.
enum RegLookup<'a> {
    /// Declared: the dense-id key and the declaration.
    Found {
        key: (&'a str, u32),
        decl: RegDeclInfo,
    },
    /// `%prefix<N>` exists but the index is `>= N`.
    OutOfRange {
        prefix: &'a str,
        decl: RegDeclInfo,
        index: u32,
    },
    /// No declaration matches.
    Missing,
}

/// An opcode word split into its parts.
struct Decoded {
    op: Opcode,
    /// Types in written order with their spans (two for `cvt`/`slct`).
    types: Vec<(Type, Span)>,
    mods: Mods,
}

/// What an operand slot wants.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    /// A register destination of the type (`relaxed`: may be wider, ld/cvt).
    Dst(Type, bool),
    /// A register, immediate or special-register source.
    Src(Type, bool),
    /// A predicate destination, or `p|q` when `pair` is set.
    DstPred { pair: bool },
    /// A predicate source, possibly `!p`.
    SrcPred,
    /// ld/st data: a register, or a vector of `vec` registers.
    Data(Type, bool),
    /// `shfl` destination: `d` or `d|p`.
    ShflDst,
    /// `[address]`
    Addr,
    /// A label.
    Target,
    /// A register or a variable (its address): `mov`/`cvta` sources.
    SrcOrSymbol(Type),
    /// `[texref, {coords}]` with coordinates of the type.
    Tex(Type),
}

impl Slot {
    /// Does an operand in this slot get written (`Data` is written by `ld`)?
    fn is_destination(self, op: Opcode) -> bool {
        match self {
            Slot::Dst(..) | Slot::DstPred { .. } | Slot::ShflDst => true,
            Slot::Data(..) => op == Opcode::Ld || op == Opcode::Tex,
            _ => false,
        }
    }
}

/// Per-kernel lowering state.
struct KernelCx<'a, 'd> {
    lines: &'a LineIndex,
    diags: &'d mut Vec<Diagnostic>,
    decls: HashMap<&'a str, RegDeclInfo>,
    /// Declared names, for suggestions (in declaration order).
    decl_names: Vec<(&'a str, Option<u32>)>,
    reg_ids: HashMap<(&'a str, u32), RegId>,
    regs: Vec<RegInfo>,
    pred_ids: HashMap<(&'a str, u32), PredId>,
    preds: Vec<String>,
    vars: Vec<Var>,
    var_ids: HashMap<String, VarId>,
    params: Vec<Param>,
    param_bytes: u32,
    labels: HashMap<&'a str, (InstId, Span)>,
    label_list: Vec<(String, InstId)>,
    insts: Vec<Inst>,
    /// The module's texture references.
    textures: Vec<String>,
    /// The module's device functions by name (for calls and addresses).
    module_funcs: HashMap<&'a str, call::FuncSig>,
    /// `.callprototype` declarations of this body.
    protos: HashMap<&'a str, call::FuncSig>,
    /// Call sites lowered so far.
    sites: Vec<crate::ir::call::PendingSite>,
    /// Instructions taking a function's address.
    func_refs: Vec<(u32, String)>,
    /// Variables declared in each nested `{ }` block (pre-order), visible
    /// only inside it (nvcc's call sequences each declare `param0` …).
    block_scopes: Vec<HashMap<String, VarId>>,
    /// The nested blocks enclosing the statement being processed.
    scope_path: Vec<usize>,
    /// Nested blocks entered so far by the instruction pass.
    blocks_seen: usize,
    /// Registers declared inside nested blocks (a same-typed redeclaration
    /// in a sibling block, like nvcc's `temp_param_reg`, names the same one).
    nested_regs: HashMap<&'a str, ()>,
}

const NO_REG: u32 = u32::MAX;

impl<'a, 'd> KernelCx<'a, 'd> {
    fn new(
        f: &ast::Function<'a>,
        globals: &[Var],
        lines: &'a LineIndex,
        diags: &'d mut Vec<Diagnostic>,
    ) -> KernelCx<'a, 'd> {
        let mut cx = KernelCx {
            lines,
            diags,
            decls: HashMap::default(),
            decl_names: Vec::new(),
            reg_ids: HashMap::default(),
            regs: Vec::new(),
            pred_ids: HashMap::default(),
            preds: Vec::new(),
            vars: Vec::new(),
            var_ids: HashMap::default(),
            params: Vec::new(),
            param_bytes: 0,
            labels: HashMap::default(),
            label_list: Vec::new(),
            insts: Vec::new(),
            textures: Vec::new(),
            module_funcs: HashMap::default(),
            protos: HashMap::default(),
            sites: Vec::new(),
            func_refs: Vec::new(),
            block_scopes: Vec::new(),
            scope_path: Vec::new(),
            blocks_seen: 0,
            nested_regs: HashMap::default(),
        };
        for g in globals {
            cx.var_ids
                .insert(g.name.clone(), VarId(cx.vars.len() as u32));
            cx.vars.push(g.clone());
        }
        let mut offset = 0u32;
        // A `.func`'s parameters are per-call storage ([`call`]), not the
        // launch's parameter buffer.
        for p in f.params.iter().filter(|_| f.is_entry) {
            let Some(ty) = Type::from_directive(p.ty.text).filter(|t| *t != Type::Pred) else {
                cx.diags.push(
                    Diagnostic::new(
                        "gpusim::lower::bad_type",
                        format!("`{}` is not a parameter type", p.ty.text),
                    )
                    .label(p.ty.span, "expected `.u32`, `.u64`, `.f32`, `.b8` …"),
                );
                continue;
            };
            let count = p.array.unwrap_or(1).min(1 << 20) as u32;
            let size = ty.bytes() * count.max(1);
            let align = p.align.unwrap_or(ty.bytes()).max(1);
            offset = offset.next_multiple_of(align);
            cx.params.push(Param {
                name: p.name.text.to_string(),
                ty,
                size,
                align,
                offset,
            });
            offset += size;
        }
        cx.param_bytes = offset;
        cx
    }

    /// A variable by name: the innermost enclosing block's first, then the
    /// function's and the module's.
    fn lookup_var(&self, name: &str) -> Option<VarId> {
        self.scope_path
            .iter()
            .rev()
            .find_map(|&b| self.block_scopes[b].get(name).copied())
            .or_else(|| self.var_ids.get(name).copied())
    }

    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// First pass: registers, variables and labels (labels may be used before
    /// they are defined).
    fn declare(&mut self, body: &[Stmt<'a>]) {
        let mut next_inst = 0u32;
        self.declare_block(body, &mut next_inst);
    }

    fn declare_block(&mut self, body: &[Stmt<'a>], next_inst: &mut u32) {
        for s in body {
            match s {
                Stmt::Reg(r) => {
                    let ty = match Type::from_directive(r.ty.text) {
                        Some(t) => t,
                        None => {
                            self.err(
                                Diagnostic::new(
                                    "gpusim::lower::bad_type",
                                    format!("`{}` is not a register type", r.ty.text),
                                )
                                .label(r.ty.span, "expected `.pred`, `.b32`, `.u64`, `.f32` …"),
                            );
                            continue;
                        }
                    };
                    for (name, count) in &r.names {
                        if let Some(prev) = self.decls.get(name.text) {
                            if !self.scope_path.is_empty()
                                && self.nested_regs.contains_key(name.text)
                                && prev.ty == ty
                                && prev.count == *count
                            {
                                continue;
                            }
                            let prev = prev.span;
                            self.err(
                                Diagnostic::new(
                                    "gpusim::lower::duplicate_declaration",
                                    format!("register `{}` is declared twice", name.text),
                                )
                                .label(name.span, "second declaration")
                                .label(prev, "first declared here"),
                            );
                            continue;
                        }
                        self.decls.insert(
                            name.text,
                            RegDeclInfo {
                                ty,
                                count: *count,
                                span: name.span,
                            },
                        );
                        self.decl_names.push((name.text, *count));
                        if !self.scope_path.is_empty() {
                            self.nested_regs.insert(name.text, ());
                        }
                    }
                }
                Stmt::Var(v) => {
                    if let Some(var) = lower_var(v, false, self.diags) {
                        let scope = self.scope_path.last().copied();
                        let taken = match scope {
                            Some(b) => self.block_scopes[b].contains_key(&var.name),
                            None => self.var_ids.contains_key(&var.name),
                        };
                        if taken {
                            self.err(
                                Diagnostic::new(
                                    "gpusim::lower::duplicate_declaration",
                                    format!("`{}` is declared twice", var.name),
                                )
                                .label(v.name.span, "second declaration"),
                            );
                        } else {
                            let id = VarId(self.vars.len() as u32);
                            match scope {
                                Some(b) => self.block_scopes[b].insert(var.name.clone(), id),
                                None => self.var_ids.insert(var.name.clone(), id),
                            };
                            self.vars.push(var);
                        }
                    }
                }
                Stmt::Label(l) => {
                    if let Some((_, prev)) = self.labels.get(l.text) {
                        let prev = *prev;
                        self.err(
                            Diagnostic::new(
                                "gpusim::lower::duplicate_label",
                                format!("label `{}` is defined twice", l.text),
                            )
                            .label(l.span, "second definition")
                            .label(prev, "first defined here")
                            .help("rename one of them"),
                        );
                    } else {
                        self.labels.insert(l.text, (InstId(*next_inst), l.span));
                        self.label_list
                            .push((l.text.to_string(), InstId(*next_inst)));
                    }
                }
                Stmt::Inst(_) | Stmt::Call(_) => *next_inst += 1,
                Stmt::Block(b) => {
                    self.scope_path.push(self.block_scopes.len());
                    self.block_scopes.push(HashMap::default());
                    self.declare_block(b, next_inst);
                    self.scope_path.pop();
                }
                Stmt::Prototype(p) => self.declare_prototype(p),
            }
        }
    }

    fn instructions(&mut self, body: &[Stmt<'a>]) {
        for s in body {
            match s {
                Stmt::Inst(i) => {
                    let inst = self.instruction(i);
                    // Keep instruction ids aligned with the label pass even for
                    // bad instructions: a placeholder that is never run.
                    self.insts.push(
                        inst.unwrap_or_else(|| placeholder(i.span, self.lines.line(i.span.start))),
                    );
                }
                Stmt::Block(b) => {
                    self.scope_path.push(self.blocks_seen);
                    self.blocks_seen += 1;
                    self.instructions(b);
                    self.scope_path.pop();
                }
                Stmt::Call(c) => {
                    let inst = self.call_inst(c);
                    self.insts.push(
                        inst.unwrap_or_else(|| placeholder(c.span, self.lines.line(c.span.start))),
                    );
                }
                _ => {}
            }
        }
    }

    fn finish(mut self, f: &ast::Function<'a>) -> Kernel {
        // Falling off the end of an entry returns.
        let needs_ret = match self.insts.last() {
            None => true,
            Some(l) => !(l.ends_block() && l.guard.is_none()),
        };
        let labels_past_end = self
            .label_list
            .iter()
            .any(|(_, id)| id.0 as usize == self.insts.len());
        if needs_ret || labels_past_end {
            let end = Span::new(f.span.end.saturating_sub(1) as usize, f.span.end as usize);
            let mut ret = placeholder(end, self.lines.line(end.start));
            ret.op = Opcode::Ret;
            self.insts.push(ret);
        }
        Kernel {
            name: f.name.text.to_string(),
            span: f.keyword.join(f.name.span),
            params: self.params,
            param_bytes: self.param_bytes,
            regs: self.regs,
            preds: self.preds,
            vars: self.vars,
            insts: self.insts,
            funcs: Vec::new(),
            calls: Vec::new(),
            labels: self.label_list,
            maxntid: f.maxntid,
            reqntid: f.reqntid,
            maxnreg: f.maxnreg,
            textures: self.textures,
        }
    }

    // ----- names -------------------------------------------------------

    /// Splits `%rd12` into (`%rd`, 12).
    fn split_indexed(name: &str) -> Option<(&str, u32)> {
        let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits == name.len() {
            return None;
        }
        let (p, n) = name.split_at(name.len() - digits);
        if n.len() > 1 && n.starts_with('0') {
            return None;
        }
        n.parse().ok().map(|n| (p, n))
    }

    /// Finds the declaration of a register name.
    fn find_decl(&self, name: &'a str) -> RegLookup<'a> {
        if let Some(d) = self.decls.get(name)
            && d.count.is_none()
        {
            return RegLookup::Found {
                key: (name, NO_REG),
                decl: *d,
            };
        }
        if let Some((prefix, idx)) = Self::split_indexed(name)
            && let Some(d) = self.decls.get(prefix)
            && let Some(n) = d.count
        {
            if idx < n {
                return RegLookup::Found {
                    key: (prefix, idx),
                    decl: *d,
                };
            }
            return RegLookup::OutOfRange {
                prefix,
                decl: *d,
                index: idx,
            };
        }
        RegLookup::Missing
    }

    /// Reports an unknown `%name`.
    fn unknown_register(&mut self, id: Ident<'a>, want: Option<Type>) {
        match self.find_decl(id.text) {
            RegLookup::OutOfRange {
                prefix,
                decl: d,
                index: idx,
            } => {
                let n = d.count.unwrap_or(0);
                let mut diag = Diagnostic::new(
                    "gpusim::lower::register_out_of_range",
                    format!(
                        "register `{}` is beyond its declaration `{}<{}>`",
                        id.text, prefix, n
                    ),
                )
                .label(
                    id.span,
                    format!(
                        "`{prefix}<{n}>` declares `{prefix}0` to `{prefix}{}`",
                        n.saturating_sub(1)
                    ),
                )
                .label(d.span, "declared here");
                diag = diag.help(format!(
                    "declare it with `.reg {} {}<{}>;`",
                    d.ty.name(),
                    prefix,
                    idx + 1
                ));
                self.err(diag);
            }
            _ => {
                let candidates: Vec<String> = self.candidate_names(id.text, want);
                let suggestion =
                    closest(id.text, candidates.iter().map(String::as_str)).map(str::to_string);
                let mut diag = Diagnostic::new(
                    "gpusim::lower::undeclared_register",
                    format!("register `{}` is not declared", id.text),
                )
                .label(id.span, "undeclared register");
                diag = match suggestion {
                    Some(s) => diag.help(format!("did you mean `{s}`?")),
                    None => {
                        let ty = want.unwrap_or(Type::B32);
                        match Self::split_indexed(id.text) {
                            Some((p, i)) => diag.help(format!(
                                "declare it with `.reg {} {}<{}>;`",
                                ty.name(),
                                p,
                                i + 1
                            )),
                            None => diag.help(format!(
                                "declare it with `.reg {} {};`",
                                ty.name(),
                                id.text
                            )),
                        }
                    }
                };
                self.err(diag);
            }
        }
    }

    /// Declared register names near `name`: single names, and for each
    /// `%p<N>` the name with the same index (if in range) — enough for typo
    /// suggestions without listing every register.
    fn candidate_names(&self, name: &str, want: Option<Type>) -> Vec<String> {
        let idx = Self::split_indexed(name).map(|x| x.1);
        let mut out = Vec::new();
        for (n, count) in &self.decl_names {
            // Only registers that could stand where this one is written.
            let ty = self.decls[n].ty;
            let fits = match want {
                Some(Type::Pred) => ty == Type::Pred,
                Some(w) => ty != Type::Pred && ty.bits() == w.bits(),
                None => true,
            };
            if !fits {
                continue;
            }
            match (count, idx) {
                (None, _) => out.push(n.to_string()),
                (Some(c), Some(i)) if i < *c => out.push(format!("{n}{i}")),
                _ => {}
            }
        }
        out
    }

    fn reg(&mut self, id: Ident<'a>, want: Option<Type>) -> Option<(RegId, Type, Span)> {
        match self.find_decl(id.text) {
            RegLookup::Found { key, decl: d } if d.ty != Type::Pred => {
                let next = RegId(self.regs.len() as u32);
                let rid = *self.reg_ids.entry(key).or_insert(next);
                if rid == next {
                    self.regs.push(RegInfo {
                        name: id.text.to_string(),
                        ty: d.ty,
                    });
                }
                Some((rid, d.ty, d.span))
            }
            RegLookup::Found { decl: d, .. } => {
                let want = want.map(|t| t.name()).unwrap_or("a data register");
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::type_mismatch",
                        format!(
                            "`{}` is a predicate, but a `{want}` register is needed here",
                            id.text
                        ),
                    )
                    .label(id.span, "predicate register")
                    .label(d.span, "declared `.pred` here"),
                );
                None
            }
            RegLookup::OutOfRange { .. } | RegLookup::Missing => {
                self.unknown_register(id, want);
                None
            }
        }
    }

    fn pred(&mut self, id: Ident<'a>) -> Option<PredId> {
        match self.find_decl(id.text) {
            RegLookup::Found { key, decl: d } if d.ty == Type::Pred => {
                let next = PredId(self.preds.len() as u32);
                let pid = *self.pred_ids.entry(key).or_insert(next);
                if pid == next {
                    self.preds.push(id.text.to_string());
                }
                Some(pid)
            }
            RegLookup::Found { decl: d, .. } => {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::type_mismatch",
                        format!(
                            "`{}` is declared `{}`, but a predicate is needed here",
                            id.text,
                            d.ty.name()
                        ),
                    )
                    .label(id.span, "not a predicate")
                    .label(d.span, "declared here")
                    .help("compute a predicate with `setp`"),
                );
                None
            }
            RegLookup::OutOfRange { .. } | RegLookup::Missing => {
                self.unknown_register(id, Some(Type::Pred));
                None
            }
        }
    }

    fn check_compat(
        &mut self,
        want: Type,
        have: Type,
        relaxed: bool,
        use_span: Span,
        decl: Span,
        opcode: &str,
    ) -> bool {
        let size_ok = if relaxed && !want.is_float() {
            have.bits() >= want.bits()
        } else {
            have.bits() == want.bits()
        };
        let kind_ok = match want.kind() {
            TypeKind::Bits => have.kind() != TypeKind::Pred,
            TypeKind::Float => matches!(have.kind(), TypeKind::Float | TypeKind::Bits),
            TypeKind::Unsigned | TypeKind::Signed => {
                matches!(
                    have.kind(),
                    TypeKind::Unsigned | TypeKind::Signed | TypeKind::Bits
                )
            }
            TypeKind::Pred => have.kind() == TypeKind::Pred,
        };
        if size_ok && kind_ok {
            return true;
        }
        self.err(
            Diagnostic::new(
                "gpusim::lower::type_mismatch",
                format!(
                    "`{opcode}` needs a `{}` operand here, but the register is `{}`",
                    want.name(),
                    have.name()
                ),
            )
            .label(use_span, format!("`{}` register", have.name()))
            .label(decl, "declared here")
            .help(format!(
                "use a register declared `{}` (or `{}`)",
                want.name(),
                bits_type(want.bits()).name()
            )),
        );
        false
    }

    // ----- instructions ------------------------------------------------

    fn instruction(&mut self, i: &ast::Instruction<'a>) -> Option<Inst> {
        let Decoded { op, types, mods } = self.decode(i.opcode)?;
        let line = self.lines.line(i.span.start);
        let t = types.first().map(|t| t.0).unwrap_or(Type::Pred);
        let t2 = types.get(1).map(|t| t.0).unwrap_or(t);
        let slots = signature(op, &mods, t, t2, i.operands.len());
        if slots.len() != i.operands.len() {
            let form = form_of(&slots);
            let span = if i.operands.is_empty() {
                i.opcode.span
            } else {
                i.operands[0]
                    .span()
                    .join(i.operands[i.operands.len() - 1].span())
            };
            self.err(
                Diagnostic::new(
                    "gpusim::lower::operand_count",
                    format!(
                        "`{}` takes {} operand{}, found {}",
                        i.opcode.text,
                        slots.len(),
                        if slots.len() == 1 { "" } else { "s" },
                        i.operands.len()
                    ),
                )
                .label(
                    span,
                    format!(
                        "{} operand{}",
                        i.operands.len(),
                        if i.operands.len() == 1 { "" } else { "s" }
                    ),
                )
                .help(if form.is_empty() {
                    format!("write `{};`", i.opcode.text)
                } else {
                    format!("the form is `{} {};`", i.opcode.text, form)
                }),
            );
            return None;
        }
        let guard = match &i.guard {
            Some((negate, p)) => Some(Guard {
                pred: self.pred(*p)?,
                negate: *negate,
            }),
            None => None,
        };
        let mut inst = Inst {
            op,
            ty: t,
            ty2: t2,
            mods,
            guard,
            dst: Operand::None,
            dst2: Operand::None,
            src: [Operand::None; 4],
            nsrc: 0,
            span: i.span,
            line,
        };
        let mut ok = true;
        for (n, (slot, operand)) in slots.iter().zip(&i.operands).enumerate() {
            if n == 0 && slot.is_destination(op) && matches!(operand, ast::Operand::Literal(..)) {
                // `ld`'s data slot also takes immediates when it is `st`'s
                // source; as a destination it cannot.
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::bad_operand",
                        format!(
                            "`{}` expects a destination register here, not an immediate",
                            i.opcode.text
                        ),
                    )
                    .label(operand.span(), "an immediate cannot be written"),
                );
                ok = false;
                continue;
            }
            let Some((a, b)) = self.operand(*slot, operand, i.opcode.text, &mods) else {
                ok = false; // keep going: report every bad operand
                continue;
            };
            // Signatures list the destination, if any, first.
            if n == 0 && slot.is_destination(op) {
                inst.dst = a;
                inst.dst2 = b;
            } else if let Slot::Tex(_) = slot {
                // The reference, then the coordinate vector.
                inst.src[inst.nsrc as usize] = a;
                inst.src[inst.nsrc as usize + 1] = b;
                inst.nsrc += 2;
            } else {
                inst.src[inst.nsrc as usize] = a;
                inst.nsrc += 1;
            }
        }
        ok.then_some(inst)
    }

    /// Resolves one operand against its slot; returns (operand, second
    /// destination).
    fn operand(
        &mut self,
        slot: Slot,
        op: &ast::Operand<'a>,
        opcode: &str,
        mods: &Mods,
    ) -> Option<(Operand, Operand)> {
        use ast::Operand as A;
        let none = Operand::None;
        match (slot, op) {
            (Slot::Dst(Type::Pred, _), A::Name(id)) | (Slot::DstPred { .. }, A::Name(id)) => {
                Some((
                    Operand::Pred {
                        id: self.pred(*id)?,
                        negate: false,
                    },
                    none,
                ))
            }
            (Slot::DstPred { pair: true }, A::Pair(a, b)) => {
                let pa = self.pred(*a);
                let pb = self.pred(*b);
                Some((
                    Operand::Pred {
                        id: pa?,
                        negate: false,
                    },
                    Operand::Pred {
                        id: pb?,
                        negate: false,
                    },
                ))
            }
            (
                Slot::SrcPred | Slot::Src(Type::Pred, _) | Slot::SrcOrSymbol(Type::Pred),
                A::Name(id),
            ) => Some((
                Operand::Pred {
                    id: self.pred(*id)?,
                    negate: false,
                },
                none,
            )),
            (
                Slot::SrcPred | Slot::Src(Type::Pred, _) | Slot::SrcOrSymbol(Type::Pred),
                A::Not(id),
            ) => Some((
                Operand::Pred {
                    id: self.pred(*id)?,
                    negate: true,
                },
                none,
            )),
            (Slot::ShflDst, A::Name(id)) => self
                .data_reg(*id, Type::B32, false, opcode)
                .map(|r| (r, none)),
            (Slot::ShflDst, A::Pair(a, b)) => {
                let r = self.data_reg(*a, Type::B32, false, opcode);
                let p = self.pred(*b);
                Some((
                    r?,
                    Operand::Pred {
                        id: p?,
                        negate: false,
                    },
                ))
            }
            (Slot::Dst(t, relaxed), A::Name(id)) => {
                self.data_reg(*id, t, relaxed, opcode).map(|r| (r, none))
            }
            (Slot::Dst(t, _) | Slot::SrcOrSymbol(t), A::Vector(names, span))
                if opcode.split('.').next() == Some("mov") =>
            {
                self.mov_vector(t, names, *span, opcode).map(|v| (v, none))
            }
            (Slot::Data(t, relaxed), A::Name(id)) if mods.vec <= 1 => {
                self.data_reg(*id, t, relaxed, opcode).map(|r| (r, none))
            }
            (Slot::Data(t, relaxed), A::Vector(names, span)) => {
                let want = mods.vec.max(1) as usize;
                if names.len() != want {
                    self.err(
                        Diagnostic::new(
                            "gpusim::lower::bad_vector_width",
                            format!(
                                "`{opcode}` moves {want} element{}, but the vector has {}",
                                if want == 1 { "" } else { "s" },
                                names.len()
                            ),
                        )
                        .label(*span, format!("{} registers", names.len()))
                        .help(if want == 1 {
                            "write a single register, or add `.v2`/`.v4` to the opcode".to_string()
                        } else {
                            format!("write {want} registers in braces")
                        }),
                    );
                    return None;
                }
                let mut regs = [None; 4];
                let mut ok = true;
                for (k, n) in names.iter().enumerate() {
                    if n.text == "_" {
                        continue;
                    }
                    match self.data_reg(*n, t, relaxed, opcode) {
                        Some(Operand::Reg(r)) => regs[k] = Some(r),
                        _ => ok = false,
                    }
                }
                ok.then_some((
                    Operand::Vector {
                        regs,
                        len: names.len() as u8,
                    },
                    none,
                ))
            }
            (Slot::Data(_, _), A::Name(id)) => {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::bad_vector_width",
                        format!(
                            "`{opcode}` moves {} elements, but a single register is given",
                            mods.vec
                        ),
                    )
                    .label(id.span, "one register")
                    .help(format!(
                        "write {} registers in braces, e.g. `{{%f1, %f2}}`",
                        mods.vec
                    )),
                );
                None
            }
            (Slot::Src(t, relaxed), A::Name(id)) => self
                .src_name(*id, t, relaxed, opcode, false)
                .map(|o| (o, none)),
            (Slot::SrcOrSymbol(t), A::Name(id)) => self
                .src_name(*id, t, false, opcode, true)
                .map(|o| (o, none)),
            (Slot::Src(t, _) | Slot::SrcOrSymbol(t) | Slot::Data(t, _), A::Literal(lit, span)) => {
                match immediate(*lit, t) {
                    Ok(bits) => Some((Operand::Imm(bits), none)),
                    Err(msg) => {
                        let code = if matches!(lit, Literal::Int { .. })
                            && !t.is_float()
                            && t != Type::Pred
                        {
                            "gpusim::lower::immediate_out_of_range"
                        } else {
                            "gpusim::lower::type_mismatch"
                        };
                        self.err(
                            Diagnostic::new(code, msg)
                                .label(*span, format!("`{}` operand", t.name())),
                        );
                        None
                    }
                }
            }
            (Slot::Tex(ct), A::TexAddr { tex, coords, span }) => {
                self.tex_operand(*tex, coords, *span, ct, mods, opcode)
            }
            (Slot::Addr, A::Address { base, offset, span }) => {
                self.address(*base, *offset, *span, opcode, mods)
            }
            (Slot::Target, A::Name(id)) => match self.labels.get(id.text) {
                Some((target, _)) => Some((Operand::Target(*target), none)),
                None => {
                    let cands: Vec<&str> =
                        self.label_list.iter().map(|(n, _)| n.as_str()).collect();
                    let sugg = closest(id.text, cands.iter().copied()).map(str::to_string);
                    let mut d = Diagnostic::new(
                        "gpusim::lower::undefined_label",
                        format!("label `{}` is not defined", id.text),
                    )
                    .label(id.span, "no such label in this kernel");
                    if let Some(s) = sugg {
                        d = d.help(format!("did you mean `{s}`?"));
                    }
                    self.err(d);
                    None
                }
            },
            (slot, other) => {
                let want = match slot {
                    Slot::Dst(..) | Slot::ShflDst => "a destination register",
                    Slot::DstPred { pair: true } => "a predicate (or `p|q`)",
                    Slot::DstPred { .. } => "a destination predicate",
                    Slot::SrcPred => "a predicate",
                    Slot::Src(..) | Slot::SrcOrSymbol(..) => "a register or an immediate",
                    Slot::Data(..) => "a register or a vector of registers",
                    Slot::Addr => "a memory address `[…]`",
                    Slot::Target => "a label",
                    Slot::Tex(_) => "a texture operand `[texref, {x, y}]`",
                };
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::bad_operand",
                        format!("`{opcode}` expects {want} here"),
                    )
                    .label(other.span(), format!("expected {want}")),
                );
                None
            }
        }
    }

    /// `[texref, {x}]` / `[texref, {x, y}]`: the reference's index and the
    /// coordinate registers (as many as the geometry's dimensions).
    fn tex_operand(
        &mut self,
        tex: Ident<'a>,
        coords: &[Ident<'a>],
        span: Span,
        ct: Type,
        mods: &Mods,
        opcode: &str,
    ) -> Option<(Operand, Operand)> {
        let Some(id) = self.textures.iter().position(|n| n == tex.text) else {
            let sugg =
                closest(tex.text, self.textures.iter().map(String::as_str)).map(str::to_string);
            let mut d = Diagnostic::new(
                "gpusim::lower::undefined_symbol",
                format!("texture reference `{}` is not declared", tex.text),
            )
            .label(tex.span, "no `.texref` of this name");
            d = match sugg {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None => d.help(format!(
                    "declare it at module scope: `.global .texref {};`",
                    tex.text
                )),
            };
            self.err(d);
            return None;
        };
        let dims = usize::from(mods.tex_dims);
        if coords.len() != dims {
            self.err(
                Diagnostic::new(
                    "gpusim::lower::bad_vector_width",
                    format!(
                        "`{opcode}` takes {dims} coordinate{}, found {}",
                        if dims == 1 { "" } else { "s" },
                        coords.len()
                    ),
                )
                .label(span, format!("{} coordinates", coords.len()))
                .help(if dims == 1 {
                    "write `[tex, {%r1}]`"
                } else {
                    "write `[tex, {%r1, %r2}]`"
                }),
            );
            return None;
        }
        let mut regs = [None; 4];
        let mut ok = true;
        for (k, c) in coords.iter().enumerate() {
            match self.data_reg(*c, ct, false, opcode) {
                Some(Operand::Reg(r)) => regs[k] = Some(r),
                _ => ok = false,
            }
        }
        ok.then_some((
            Operand::TexRef(id as u32),
            Operand::Vector {
                regs,
                len: coords.len() as u8,
            },
        ))
    }

    /// The `{a, b}` of `mov.b64 d, {a, b}` (pack) or `mov.b64 {a, b}, s`
    /// (unpack): 2 or 4 registers that split the type's bits evenly.
    fn mov_vector(
        &mut self,
        t: Type,
        names: &[Ident<'a>],
        span: Span,
        opcode: &str,
    ) -> Option<Operand> {
        let len = names.len() as u32;
        let ebits = if matches!(len, 2 | 4) && t.kind() == TypeKind::Bits {
            t.bits() / len
        } else {
            0
        };
        if ebits < 8 {
            self.err(
                Diagnostic::new(
                    "gpusim::lower::bad_vector_width",
                    format!("`{opcode}` cannot split into {len} elements"),
                )
                .label(span, format!("{len} registers"))
                .help("pack or unpack with `mov.b64 {%r1, %r2}` or `mov.b32 {%h1, %h2}`"),
            );
            return None;
        }
        let et = bits_type(ebits);
        let mut regs = [None; 4];
        let mut ok = true;
        for (k, n) in names.iter().enumerate() {
            if n.text == "_" {
                continue;
            }
            match self.data_reg(*n, et, false, opcode) {
                Some(Operand::Reg(r)) => regs[k] = Some(r),
                _ => ok = false,
            }
        }
        ok.then_some(Operand::Vector {
            regs,
            len: len as u8,
        })
    }

    fn data_reg(&mut self, id: Ident<'a>, t: Type, relaxed: bool, opcode: &str) -> Option<Operand> {
        if !id.text.starts_with('%') {
            self.err(
                Diagnostic::new(
                    "gpusim::lower::bad_operand",
                    format!("`{}` is not a register", id.text),
                )
                .label(id.span, "a register is needed here"),
            );
            return None;
        }
        if SpecialReg::from_name(id.text).is_some() {
            self.err(
                Diagnostic::new(
                    "gpusim::lower::bad_operand",
                    format!("special register `{}` is read-only", id.text),
                )
                .label(id.span, "cannot be written"),
            );
            return None;
        }
        let (r, have, decl) = self.reg(id, Some(t))?;
        self.check_compat(t, have, relaxed, id.span, decl, opcode)
            .then_some(Operand::Reg(r))
    }

    fn src_name(
        &mut self,
        id: Ident<'a>,
        t: Type,
        relaxed: bool,
        opcode: &str,
        symbol_ok: bool,
    ) -> Option<Operand> {
        if let Some(s) = SpecialReg::from_name(id.text) {
            // PTX 1.x declares %tid, %ntid, %ctaid, %nctaid as 16-bit
            // (`mov.u16 %rh1, %ctaid.x;` in nvopencc output): read the low half.
            let old_16 = t.bits() == 16
                && matches!(
                    s,
                    SpecialReg::Tid(_)
                        | SpecialReg::Ntid(_)
                        | SpecialReg::Ctaid(_)
                        | SpecialReg::Nctaid(_)
                );
            if (s.ty().bits() != t.bits() && !(relaxed && t.bits() <= s.ty().bits()) && !old_16)
                || t.is_float()
            {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::type_mismatch",
                        format!(
                            "special register `{}` is `{}`, but `{opcode}` needs `{}`",
                            id.text,
                            s.ty().name(),
                            t.name()
                        ),
                    )
                    .label(id.span, format!("`{}` value", s.ty().name())),
                );
                return None;
            }
            return Some(Operand::Special(s));
        }
        if id.text.starts_with('%') {
            if !matches!(self.find_decl(id.text), RegLookup::Found { .. })
                && is_special_like(id.text)
            {
                self.err(
                    Diagnostic::new("gpusim::lower::unsupported", format!("special register `{}` is not supported", id.text))
                        .label(id.span, "unsupported special register")
                        .help("supported: %tid %ntid %ctaid %nctaid (.x .y .z), %laneid %warpid %nwarpid %smid %nsmid %clock %clock64 %globaltimer %dynamic_smem_size %total_smem_size"),
                );
                return None;
            }
            let (r, have, decl) = self.reg(id, Some(t))?;
            return self
                .check_compat(t, have, relaxed, id.span, decl, opcode)
                .then_some(Operand::Reg(r));
        }
        if let Some(v) = self.lookup_var(id.text) {
            if symbol_ok && t.bits() >= 32 && !t.is_float() {
                return Some(Operand::VarAddr(v));
            }
            self.err(
                Diagnostic::new(
                    "gpusim::lower::bad_operand",
                    format!("variable `{}` can only be used as an address here", id.text),
                )
                .label(id.span, "variable")
                .help(format!(
                    "load it with `ld{} … [{}]`, or take its address with `mov.u64`",
                    self.vars[v.0 as usize].space.name(),
                    id.text
                )),
            );
            return None;
        }
        if symbol_ok && self.module_funcs.contains_key(id.text) {
            return self.function_address(id, t);
        }
        self.unknown_symbol(id);
        None
    }

    fn unknown_symbol(&mut self, id: Ident<'a>) {
        let mut cands: Vec<&str> = self.vars.iter().map(|v| v.name.as_str()).collect();
        cands.extend(self.params.iter().map(|p| p.name.as_str()));
        let sugg = closest(id.text, cands.iter().copied()).map(str::to_string);
        let mut d = Diagnostic::new(
            "gpusim::lower::undefined_symbol",
            format!("`{}` is not defined", id.text),
        )
        .label(id.span, "no register, variable or parameter of this name");
        if let Some(s) = sugg {
            d = d.help(format!("did you mean `{s}`?"));
        } else if !id.text.starts_with('%') {
            d = d.help("registers start with `%`");
        }
        self.err(d);
    }

    fn address(
        &mut self,
        base: Option<Ident<'a>>,
        offset: i64,
        span: Span,
        opcode: &str,
        mods: &Mods,
    ) -> Option<(Operand, Operand)> {
        let none = Operand::None;
        let Some(b) = base else {
            return Some((
                Operand::Addr(Address {
                    base: AddrBase::Absolute,
                    offset,
                }),
                none,
            ));
        };
        if b.text.starts_with('%') {
            let (r, ty, decl) = self.reg(b, Some(Type::U64))?;
            if ty.bits() < 32 || ty.is_float() {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::type_mismatch",
                        format!(
                            "address register `{}` is `{}`; addresses are 32- or 64-bit integers",
                            b.text,
                            ty.name()
                        ),
                    )
                    .label(b.span, "not an address")
                    .label(decl, "declared here"),
                );
                return None;
            }
            return Some((
                Operand::Addr(Address {
                    base: AddrBase::Reg(r),
                    offset,
                }),
                none,
            ));
        }
        if let Some(p) = self.params.iter().position(|p| p.name == b.text) {
            if mods.space != Space::Param || opcode.starts_with("st") {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::bad_state_space",
                        format!("parameter `{}` can only be read with `ld.param`", b.text),
                    )
                    .label(span, format!("`{opcode}` cannot access a kernel parameter")),
                );
                return None;
            }
            return Some((
                Operand::Addr(Address {
                    base: AddrBase::Param(ParamId(p as u32)),
                    offset,
                }),
                none,
            ));
        }
        if let Some(v) = self.lookup_var(b.text) {
            let vs = self.vars[v.0 as usize].space;
            if mods.space != Space::Generic && mods.space != vs {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::bad_state_space",
                        format!(
                            "`{opcode}` cannot access `{}` variable `{}`",
                            vs.name(),
                            b.text
                        ),
                    )
                    .label(span, format!("`{}` variable", vs.name()))
                    .help(format!("use the `{}` state space", vs.name())),
                );
                return None;
            }
            return Some((
                Operand::Addr(Address {
                    base: AddrBase::Var(v),
                    offset,
                }),
                none,
            ));
        }
        self.unknown_symbol(b);
        None
    }

    // ----- opcode decoding --------------------------------------------

    /// Splits `ld.global.v4.f32` into opcode, types and modifiers.
    fn decode(&mut self, word: Ident<'a>) -> Option<Decoded> {
        let mut parts = Vec::new();
        let mut start = 0usize;
        for (k, piece) in word.text.split('.').enumerate() {
            let s = word.span.start as usize + start;
            parts.push((
                piece,
                Span::new(if k == 0 { s } else { s - 1 }, s + piece.len()),
            ));
            start += piece.len() + 1;
        }
        let (base, base_span) = parts[0];
        let Some(op) = Opcode::from_name(base) else {
            let names = Opcode::ALL.iter().map(|(n, _)| *n);
            let mut d = Diagnostic::new(
                "gpusim::lower::unknown_opcode",
                format!("unknown opcode `{base}`"),
            )
            .label(base_span, "not an instruction of the supported PTX subset");
            d = match closest(base, names) {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None => d.help("see PTX.md for the supported subset"),
            };
            self.err(d);
            return None;
        };
        let mut types = Vec::new();
        let mut mods = Mods {
            vec: 1,
            ..Mods::default()
        };
        let mut saw_cmp = false;
        let mut saw_atom = false;
        let mut saw_mode = false;
        let mut saw_bar = op != Opcode::Bar;
        let mut saw_sync = false;
        let mut ok = true;
        for &(m, span) in &parts[1..] {
            if let Some(t) = Type::from_suffix(m) {
                types.push((t, span));
                continue;
            }
            let accepted = match (op, m) {
                (Opcode::Tex, "v4") => {
                    mods.vec = 4;
                    true
                }
                (Opcode::Tex, "1d" | "2d") if mods.tex_dims == 0 => {
                    mods.tex_dims = if m == "1d" { 1 } else { 2 };
                    true
                }
                (_, "v2" | "v4") if matches!(op, Opcode::Ld | Opcode::St) => {
                    mods.vec = if m == "v2" { 2 } else { 4 };
                    true
                }
                (_, _) if m.starts_with('v') && m[1..].parse::<u32>().is_ok() => {
                    let msg = if matches!(op, Opcode::Ld | Opcode::St) {
                        format!("`.{m}` is not a vector width")
                    } else {
                        format!("`{}` does not take a vector width", op.name())
                    };
                    self.err(
                        Diagnostic::new("gpusim::lower::bad_vector_width", msg)
                            .label(span, "vector width")
                            .help(if matches!(op, Opcode::Ld | Opcode::St) {
                                "use `.v2` or `.v4`"
                            } else {
                                "only `ld` and `st` move vectors"
                            }),
                    );
                    ok = false;
                    true
                }
                (
                    Opcode::Add
                    | Opcode::Sub
                    | Opcode::Mul
                    | Opcode::Mad
                    | Opcode::Fma
                    | Opcode::Div
                    | Opcode::Sqrt
                    | Opcode::Rcp
                    | Opcode::Cvt,
                    "rn" | "rz" | "rm" | "rp",
                ) => {
                    mods.round = match m {
                        "rn" => Round::Rn,
                        "rz" => Round::Rz,
                        "rm" => Round::Rm,
                        _ => Round::Rp,
                    };
                    true
                }
                (Opcode::Cvt, "rni" | "rzi" | "rmi" | "rpi") => {
                    mods.round = match m {
                        "rni" => Round::Rni,
                        "rzi" => Round::Rzi,
                        "rmi" => Round::Rmi,
                        _ => Round::Rpi,
                    };
                    true
                }
                (Opcode::Mul | Opcode::Mad, "lo" | "hi" | "wide") => {
                    mods.mul = match m {
                        "lo" => MulMode::Lo,
                        "hi" => MulMode::Hi,
                        _ => MulMode::Wide,
                    };
                    true
                }
                (
                    Opcode::Add
                    | Opcode::Sub
                    | Opcode::Mul
                    | Opcode::Mad
                    | Opcode::Fma
                    | Opcode::Div
                    | Opcode::Abs
                    | Opcode::Neg
                    | Opcode::Min
                    | Opcode::Max
                    | Opcode::Sqrt
                    | Opcode::Rsqrt
                    | Opcode::Rcp
                    | Opcode::Ex2
                    | Opcode::Lg2
                    | Opcode::Sin
                    | Opcode::Cos
                    | Opcode::Cvt
                    | Opcode::Setp
                    | Opcode::Set
                    | Opcode::Slct,
                    "ftz",
                ) => {
                    mods.flags |= flag::FTZ;
                    true
                }
                (
                    Opcode::Add
                    | Opcode::Sub
                    | Opcode::Mul
                    | Opcode::Mad
                    | Opcode::Fma
                    | Opcode::Cvt,
                    "sat",
                ) => {
                    mods.flags |= flag::SAT;
                    true
                }
                (
                    Opcode::Div
                    | Opcode::Sqrt
                    | Opcode::Rcp
                    | Opcode::Rsqrt
                    | Opcode::Ex2
                    | Opcode::Lg2
                    | Opcode::Sin
                    | Opcode::Cos,
                    "approx",
                ) => {
                    mods.flags |= flag::APPROX;
                    true
                }
                (Opcode::Div, "full") => {
                    mods.flags |= flag::FULL;
                    true
                }
                (
                    Opcode::Ld
                    | Opcode::St
                    | Opcode::Atom
                    | Opcode::Red
                    | Opcode::Cvta
                    | Opcode::Wait,
                    "global" | "shared" | "local" | "param" | "const",
                ) => {
                    mods.space = match m {
                        "global" => Space::Global,
                        "shared" => Space::Shared,
                        "local" => Space::Local,
                        "param" => Space::Param,
                        _ => Space::Const,
                    };
                    true
                }
                (Opcode::Cvta, "to") => {
                    mods.flags |= flag::TO;
                    true
                }
                (Opcode::Ld | Opcode::St, "volatile") => {
                    mods.flags |= flag::VOLATILE;
                    true
                }
                (Opcode::Ld, "ca" | "cg" | "cs" | "lu" | "cv" | "nc")
                | (Opcode::St, "wb" | "cg" | "cs" | "wt") => true,
                (Opcode::Ld | Opcode::Atom, "acquire") => {
                    mods.flags |= flag::ACQUIRE;
                    true
                }
                (Opcode::St | Opcode::Atom | Opcode::Red, "release") => {
                    mods.flags |= flag::RELEASE;
                    true
                }
                (Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red, "relaxed") => {
                    mods.flags |= flag::RELAXED;
                    true
                }
                (Opcode::Atom | Opcode::Red | Opcode::Fence, "acq_rel") | (Opcode::Fence, "sc") => {
                    mods.flags |= flag::ACQ_REL;
                    true
                }
                (
                    Opcode::Ld
                    | Opcode::St
                    | Opcode::Atom
                    | Opcode::Red
                    | Opcode::Fence
                    | Opcode::Membar,
                    "cta",
                ) => {
                    mods.scope = Scope::Cta;
                    true
                }
                (Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red | Opcode::Fence, "gpu")
                | (Opcode::Membar, "gl") => {
                    mods.scope = Scope::Gpu;
                    true
                }
                (
                    Opcode::Ld
                    | Opcode::St
                    | Opcode::Atom
                    | Opcode::Red
                    | Opcode::Fence
                    | Opcode::Membar,
                    "sys",
                ) => {
                    mods.scope = Scope::Sys;
                    true
                }
                (Opcode::Setp | Opcode::Set, _) if !saw_cmp && cmp_op(m).is_some() => {
                    mods.cmp = cmp_op(m).unwrap_or_default();
                    saw_cmp = true;
                    true
                }
                (Opcode::Setp | Opcode::Set, "and" | "or" | "xor") if saw_cmp => {
                    mods.bool_op = Some(match m {
                        "and" => BoolOp::And,
                        "or" => BoolOp::Or,
                        _ => BoolOp::Xor,
                    });
                    true
                }
                (Opcode::Atom | Opcode::Red, _) if atom_op(m).is_some() && !saw_atom => {
                    mods.atom = atom_op(m).unwrap_or_default();
                    saw_atom = true;
                    true
                }
                (Opcode::Atom | Opcode::Ld, "wait") => {
                    mods.flags |= flag::WAIT;
                    true
                }
                (Opcode::Bra | Opcode::Ret, "uni") => {
                    mods.flags |= flag::UNI;
                    true
                }
                (Opcode::Bar, "sync" | "arrive" | "red") if !saw_bar => {
                    mods.bar = match m {
                        "sync" => BarKind::Sync,
                        "arrive" => BarKind::Arrive,
                        _ => BarKind::RedPopc,
                    };
                    saw_bar = true;
                    true
                }
                (Opcode::Bar, "popc" | "and" | "or")
                    if mods.bar == BarKind::RedPopc && !saw_mode =>
                {
                    mods.bar = match m {
                        "popc" => BarKind::RedPopc,
                        "and" => BarKind::RedAnd,
                        _ => BarKind::RedOr,
                    };
                    saw_mode = true;
                    true
                }
                (Opcode::Bar, "aligned") => {
                    mods.flags |= flag::ALIGNED;
                    true
                }
                (Opcode::Shfl | Opcode::Vote, "sync") if !saw_sync => {
                    saw_sync = true;
                    mods.flags |= flag::SYNC;
                    true
                }
                (Opcode::Shfl, "up" | "down" | "bfly" | "idx") if !saw_mode => {
                    mods.shfl = match m {
                        "up" => ShflMode::Up,
                        "down" => ShflMode::Down,
                        "bfly" => ShflMode::Bfly,
                        _ => ShflMode::Idx,
                    };
                    saw_mode = true;
                    true
                }
                (Opcode::Vote, "all" | "any" | "uni" | "ballot") if !saw_mode => {
                    mods.vote = match m {
                        "all" => VoteMode::All,
                        "any" => VoteMode::Any,
                        "uni" => VoteMode::Uni,
                        _ => VoteMode::Ballot,
                    };
                    saw_mode = true;
                    true
                }
                _ => self.decode_more(op, m, &mut mods, &mut saw_mode),
            };
            if !accepted {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::unsupported_modifier",
                        format!("modifier `.{m}` is not supported on `{}`", op.name()),
                    )
                    .label(span, "unsupported modifier")
                    .help("see PTX.md for the modifiers each instruction accepts"),
                );
                ok = false;
            }
        }
        // Required parts.
        let missing = |what: &str| {
            Diagnostic::new(
                "gpusim::lower::missing_modifier",
                format!("`{}` needs {what}", word.text),
            )
            .label(word.span, format!("{what} missing"))
        };
        let mut need = Vec::new();
        match op {
            Opcode::Setp if !saw_cmp => need.push("a comparison such as `.lt`"),
            Opcode::Atom | Opcode::Red if !saw_atom => need.push("an operation such as `.add`"),
            Opcode::Shfl | Opcode::Vote if !saw_mode => {
                need.push("a mode such as `.down` or `.any`")
            }
            Opcode::Shfl if !saw_sync => need.push("`.sync`"),
            Opcode::Mul24 | Opcode::Mad24 | Opcode::Dp2a if !saw_mode => {
                need.push("`.lo` or `.hi`")
            }
            Opcode::Shf if !saw_mode => need.push("a direction `.l` or `.r`"),
            Opcode::Shf if !mods.has(SHF_MODE_SEEN) => need.push("a mode `.wrap` or `.clamp`"),
            Opcode::Testp if !saw_mode => need.push("a class such as `.finite`"),
            Opcode::Tanh if !mods.has(flag::APPROX) => need.push("`.approx`"),
            Opcode::Isspacep if mods.space == Space::Generic => {
                need.push("a state space such as `.shared`")
            }
            Opcode::Set if !saw_cmp => need.push("a comparison such as `.lt`"),
            Opcode::Tex if mods.tex_dims == 0 => need.push("a geometry `.1d` or `.2d`"),
            Opcode::Tex if mods.vec != 4 => need.push("`.v4`"),
            Opcode::Bar if !saw_bar => need.push("`.sync`, `.arrive` or `.red`"),
            Opcode::Bar
                if mods.bar == BarKind::RedPopc
                    && !saw_mode
                    && parts.iter().any(|p| p.0 == "red") =>
            {
                need.push("a reduction `.popc`, `.and` or `.or`")
            }
            Opcode::Membar | Opcode::Fence if mods.scope == Scope::None => {
                need.push("a scope such as `.gl` or `.gpu`")
            }
            Opcode::Cvta if mods.space == Space::Generic => {
                need.push("a state space such as `.global`")
            }
            Opcode::Wait if mods.space != Space::Global => need.push("`.global`"),
            _ => {}
        }
        for n in need {
            self.err(missing(n));
            ok = false;
        }
        if !ok {
            return None;
        }
        // Types.
        let want_types = match op {
            Opcode::Cvt
            | Opcode::Slct
            | Opcode::Set
            | Opcode::Dp4a
            | Opcode::Dp2a
            | Opcode::Tex => 2,
            Opcode::Isspacep => 0,
            Opcode::Bra
            | Opcode::Ret
            | Opcode::Exit
            | Opcode::Membar
            | Opcode::Fence
            | Opcode::Call => 0,
            Opcode::Bar => usize::from(matches!(
                mods.bar,
                BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr
            )),
            Opcode::Vote | Opcode::Shfl | Opcode::Activemask | Opcode::Nanosleep => 1,
            _ => 1,
        };
        if types.len() != want_types {
            let d = if types.len() < want_types {
                Diagnostic::new(
                    "gpusim::lower::missing_type",
                    if want_types == 1 {
                        format!("`{}` needs a type", word.text)
                    } else {
                        format!("`{}` needs a destination and a source type", word.text)
                    },
                )
                .label(word.span, "type missing")
                .help(format!("e.g. `{}`", example_form(op)))
            } else {
                Diagnostic::new(
                    "gpusim::lower::bad_type",
                    format!("`{}` has too many types", word.text),
                )
                .label(types[want_types].1, "unexpected type")
            };
            self.err(d);
            return None;
        }
        for (k, (t, span)) in types.iter().enumerate() {
            if let Err(why) = type_allowed(op, &mods, k, *t) {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::bad_type",
                        format!("`{}` is not a valid type for `{}`", t.name(), op.name()),
                    )
                    .label(*span, why),
                );
                return None;
            }
        }
        // State spaces.
        let space_ok =
            match op {
                // `st.param` is for call-site parameters (checked per operand).
                Opcode::St => mods.space != Space::Const,
                Opcode::Atom | Opcode::Red => {
                    matches!(mods.space, Space::Global | Space::Shared | Space::Generic)
                }
                Opcode::Cvta => mods.space != Space::Param,
                Opcode::Ld if mods.has(flag::WAIT) => mods.space == Space::Global,
                Opcode::Ld if base == "ldu" => matches!(mods.space, Space::Global | Space::Generic),
                _ => true,
            } && !(op == Opcode::Atom && mods.has(flag::WAIT) && mods.space != Space::Global);
        if !space_ok {
            let span = parts
                .iter()
                .find(|p| format!(".{}", p.0) == mods.space.name())
                .map(|p| p.1)
                .unwrap_or(word.span);
            let allowed = match op {
                Opcode::St => "`.global`, `.shared` or `.local`",
                Opcode::Atom | Opcode::Red if !mods.has(flag::WAIT) => "`.global` or `.shared`",
                Opcode::Cvta => "`.global`, `.shared`, `.local` or `.const`",
                Opcode::Ld if base == "ldu" => "`.global`",
                _ => "`.global` (waiting atomics are gpusim extensions on global memory)",
            };
            self.err(
                Diagnostic::new(
                    "gpusim::lower::bad_state_space",
                    format!(
                        "`{}` cannot use the `{}` state space",
                        op.name(),
                        mods.space.name()
                    ),
                )
                .label(span, "state space not allowed here")
                .help(format!("`{}` works on {allowed}", op.name())),
            );
            return None;
        }
        if mods.vec > 1 {
            let t = types[0];
            if mods.has(flag::WAIT) || t.0.bits() * u32::from(mods.vec) > 128 {
                let span = parts
                    .iter()
                    .find(|p| p.0 == "v4" || p.0 == "v2")
                    .map(|p| p.1)
                    .unwrap_or(word.span);
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::bad_vector_width",
                        format!(
                            "`.v{}{}` is too wide: a vector access moves at most 128 bits",
                            mods.vec,
                            t.0.name()
                        ),
                    )
                    .label(span, format!("{} bits", t.0.bits() * u32::from(mods.vec)))
                    .help("use `.v2` for 64-bit elements"),
                );
                return None;
            }
        }
        if op == Opcode::Atom && mods.has(flag::WAIT) && mods.atom != AtomOp::Cas {
            self.err(
                Diagnostic::new(
                    "gpusim::lower::unsupported_modifier",
                    "`.wait` applies only to `atom.global.cas`",
                )
                .label(word.span, "gpusim waiting-atomic extension")
                .help("the waiting CAS is `atom.global.cas.wait.b32 d, [a], expected, new;`"),
            );
            return None;
        }
        mods.flags &= !SHF_MODE_SEEN;
        Some(Decoded { op, types, mods })
    }

    /// Modifiers of the opcodes added for compiler-shaped PTX (integer
    /// intrinsics, carry chains, old and special forms); `true` if `m` is
    /// accepted on `op` (and recorded in `mods`).
    fn decode_more(&mut self, op: Opcode, m: &str, mods: &mut Mods, saw_mode: &mut bool) -> bool {
        match (op, m) {
            (Opcode::Mul24 | Opcode::Mad24 | Opcode::Dp2a | Opcode::Madc, "lo" | "hi")
                if !*saw_mode =>
            {
                mods.mul = if m == "lo" { MulMode::Lo } else { MulMode::Hi };
                *saw_mode = true;
                true
            }
            (Opcode::Mad24, "sat") => {
                mods.flags |= flag::SAT;
                true
            }
            (
                Opcode::Add
                | Opcode::Sub
                | Opcode::Mad
                | Opcode::Addc
                | Opcode::Subc
                | Opcode::Madc,
                "cc",
            ) if !mods.has(flag::CC) => {
                mods.flags |= flag::CC;
                true
            }
            (Opcode::Prmt, _) if mods.prmt == PrmtMode::Generic => {
                mods.prmt = match m {
                    "f4e" => PrmtMode::F4e,
                    "b4e" => PrmtMode::B4e,
                    "rc8" => PrmtMode::Rc8,
                    "ecl" => PrmtMode::Ecl,
                    "ecr" => PrmtMode::Ecr,
                    "rc16" => PrmtMode::Rc16,
                    _ => return false,
                };
                true
            }
            (Opcode::Bfind, "shiftamt") => {
                mods.flags |= flag::SHIFTAMT;
                true
            }
            (Opcode::Shf, "l" | "r") if !*saw_mode => {
                if m == "r" {
                    mods.flags |= flag::SHF_RIGHT;
                }
                *saw_mode = true;
                true
            }
            (Opcode::Shf, "wrap" | "clamp") if !mods.has(SHF_MODE_SEEN) => {
                if m == "clamp" {
                    mods.flags |= flag::SHF_CLAMP;
                }
                mods.flags |= SHF_MODE_SEEN;
                true
            }
            (Opcode::Testp, _) if !*saw_mode => {
                mods.testp = match m {
                    "finite" => TestpOp::Finite,
                    "infinite" => TestpOp::Infinite,
                    "number" => TestpOp::Number,
                    "notanumber" => TestpOp::NotANumber,
                    "normal" => TestpOp::Normal,
                    "subnormal" => TestpOp::Subnormal,
                    _ => return false,
                };
                *saw_mode = true;
                true
            }
            (Opcode::Tanh, "approx") => {
                mods.flags |= flag::APPROX;
                true
            }
            (Opcode::Isspacep, "global" | "shared" | "local" | "const" | "param")
                if mods.space == Space::Generic =>
            {
                mods.space = match m {
                    "global" => Space::Global,
                    "shared" => Space::Shared,
                    "local" => Space::Local,
                    "param" => Space::Param,
                    _ => Space::Const,
                };
                true
            }
            _ => false,
        }
    }
}

/// Decoding-only marker: `shf` has its `.wrap`/`.clamp` (cleared before the
/// modifiers reach the IR).
const SHF_MODE_SEEN: u32 = 1 << 31;

/// Is `%name` shaped like a special register (`%tid.w`, `%lanemask_lt`)?
fn is_special_like(name: &str) -> bool {
    name.contains('.')
        || matches!(
            name,
            "%lanemask_eq"
                | "%lanemask_le"
                | "%lanemask_lt"
                | "%lanemask_ge"
                | "%lanemask_gt"
                | "%gridid"
                | "%nctarank"
                | "%ctarank"
                | "%dynamic_smem_size"
                | "%total_smem_size"
        )
}

fn bits_type(bits: u32) -> Type {
    match bits {
        8 => Type::B8,
        16 => Type::B16,
        64 => Type::B64,
        1 => Type::Pred,
        _ => Type::B32,
    }
}

fn cmp_op(m: &str) -> Option<CmpOp> {
    Some(match m {
        "eq" => CmpOp::Eq,
        "ne" => CmpOp::Ne,
        "lt" => CmpOp::Lt,
        "le" => CmpOp::Le,
        "gt" => CmpOp::Gt,
        "ge" => CmpOp::Ge,
        "lo" => CmpOp::Lo,
        "ls" => CmpOp::Ls,
        "hi" => CmpOp::Hi,
        "hs" => CmpOp::Hs,
        "equ" => CmpOp::Equ,
        "neu" => CmpOp::Neu,
        "ltu" => CmpOp::Ltu,
        "leu" => CmpOp::Leu,
        "gtu" => CmpOp::Gtu,
        "geu" => CmpOp::Geu,
        "num" => CmpOp::Num,
        "nan" => CmpOp::Nan,
        _ => return None,
    })
}

fn atom_op(m: &str) -> Option<AtomOp> {
    Some(match m {
        "add" => AtomOp::Add,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        "exch" => AtomOp::Exch,
        "cas" => AtomOp::Cas,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        _ => return None,
    })
}

fn example_form(op: Opcode) -> &'static str {
    match op {
        Opcode::Cvt => "cvt.rn.f32.s32",
        Opcode::Slct => "slct.s32.s32",
        Opcode::Ld => "ld.global.f32",
        Opcode::St => "st.global.f32",
        Opcode::Setp => "setp.lt.s32",
        Opcode::Atom => "atom.global.add.u32",
        Opcode::Bar => "bar.red.popc.u32",
        Opcode::Shfl => "shfl.sync.down.b32",
        Opcode::Vote => "vote.sync.ballot.b32",
        _ => "add.s32",
    }
}

/// Checks that type number `k` of the opcode is allowed; `Err` says why not.
fn type_allowed(op: Opcode, mods: &Mods, k: usize, t: Type) -> Result<(), &'static str> {
    use TypeKind as K;
    let kind = t.kind();
    let int = matches!(kind, K::Unsigned | K::Signed);
    let ok = match op {
        Opcode::Add | Opcode::Sub | Opcode::Min | Opcode::Max => {
            (int && t.bits() >= 16) || kind == K::Float
        }
        Opcode::Mul | Opcode::Mad => {
            (int && t.bits() >= 16 && (mods.mul != MulMode::Wide || t.bits() <= 32))
                || (kind == K::Float && mods.mul == MulMode::Lo)
        }
        Opcode::Div => (int && t.bits() >= 16) || kind == K::Float,
        Opcode::Abs | Opcode::Neg => (kind == K::Signed && t.bits() >= 16) || kind == K::Float,
        Opcode::Rem => int && t.bits() >= 16,
        Opcode::Fma | Opcode::Sqrt | Opcode::Rcp => kind == K::Float,
        Opcode::Rsqrt | Opcode::Ex2 | Opcode::Lg2 | Opcode::Sin | Opcode::Cos => {
            t == Type::F32 || (op == Opcode::Rsqrt && t == Type::F64)
        }
        Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Not => {
            (kind == K::Bits && t.bits() >= 16) || t == Type::Pred
        }
        Opcode::Shl => kind == K::Bits && t.bits() >= 16,
        Opcode::Shr => (kind == K::Bits || int) && t.bits() >= 16,
        Opcode::Popc | Opcode::Clz | Opcode::Brev | Opcode::Bfi => {
            matches!(t, Type::B32 | Type::B64)
        }
        Opcode::Bfe => matches!(t, Type::U32 | Type::U64 | Type::S32 | Type::S64),
        Opcode::Mov => t.bits() >= 16 || t == Type::Pred,
        Opcode::Cvt => t != Type::Pred,
        Opcode::Cvta => matches!(t, Type::U32 | Type::U64),
        Opcode::Ld | Opcode::St => t != Type::Pred && (!mods.has(flag::WAIT) || t == Type::B32),
        Opcode::Setp => t != Type::Pred && t.bits() >= 16,
        Opcode::Selp => t != Type::Pred && t.bits() >= 16,
        Opcode::Slct => {
            if k == 0 {
                t != Type::Pred && t.bits() >= 16
            } else {
                matches!(t, Type::S32 | Type::F32)
            }
        }
        Opcode::Bar => {
            (mods.bar == BarKind::RedPopc && t == Type::U32)
                || (matches!(mods.bar, BarKind::RedAnd | BarKind::RedOr) && t == Type::Pred)
        }
        Opcode::Nanosleep => t == Type::U32,
        Opcode::Atom | Opcode::Red => {
            if mods.has(flag::WAIT) {
                t == Type::B32
            } else {
                match mods.atom {
                    AtomOp::Add => matches!(t, Type::U32 | Type::S32 | Type::U64 | Type::F32),
                    AtomOp::Inc | AtomOp::Dec => t == Type::U32,
                    AtomOp::Min | AtomOp::Max => matches!(t, Type::U32 | Type::S32 | Type::U64),
                    AtomOp::Exch | AtomOp::Cas => {
                        matches!(t, Type::B32 | Type::U32 | Type::S32 | Type::U64)
                    }
                    AtomOp::And | AtomOp::Or | AtomOp::Xor => {
                        matches!(t, Type::B32 | Type::U32 | Type::S32)
                    }
                }
            }
        }
        Opcode::Shfl | Opcode::Activemask => t == Type::B32,
        Opcode::Vote => {
            if mods.vote == VoteMode::Ballot {
                t == Type::B32
            } else {
                t == Type::Pred
            }
        }
        Opcode::Wait => t == Type::B32,
        Opcode::Bra
        | Opcode::Ret
        | Opcode::Exit
        | Opcode::Membar
        | Opcode::Fence
        | Opcode::Call => false,
        Opcode::Mul24 | Opcode::Mad24 => {
            matches!(t, Type::U32 | Type::S32)
                && (!mods.has(flag::SAT) || (t == Type::S32 && mods.mul == MulMode::Hi))
        }
        Opcode::Sad => int && t.bits() >= 16,
        Opcode::Prmt | Opcode::Shf | Opcode::Lop3 | Opcode::Fns => t == Type::B32,
        Opcode::Bfind => matches!(t, Type::U32 | Type::U64 | Type::S32 | Type::S64),
        Opcode::Dp4a | Opcode::Dp2a => matches!(t, Type::U32 | Type::S32),
        Opcode::Copysign | Opcode::Testp => kind == K::Float,
        Opcode::Cnot => kind == K::Bits && t.bits() >= 16,
        Opcode::Addc | Opcode::Subc | Opcode::Madc => int && t.bits() >= 32,
        Opcode::Tanh => t == Type::F32,
        Opcode::Isspacep => false,
        Opcode::Tex => {
            if k == 0 {
                matches!(t, Type::U32 | Type::S32 | Type::F32)
            } else {
                matches!(t, Type::S32 | Type::F32)
            }
        }
        Opcode::Set => {
            if k == 0 {
                matches!(t, Type::U32 | Type::S32 | Type::F32)
            } else {
                t != Type::Pred && t.bits() >= 16
            }
        }
    } && !(mods.has(flag::CC)
        && matches!(op, Opcode::Add | Opcode::Sub | Opcode::Mad)
        && !(int && t.bits() >= 32 && !mods.has(flag::SAT)));
    if ok {
        Ok(())
    } else {
        Err("type not allowed for this instruction")
    }
}

/// The operand slots of an instruction (given its operand count, for the
/// forms with optional operands).
fn signature(op: Opcode, mods: &Mods, t: Type, t2: Type, n: usize) -> Vec<Slot> {
    use Slot::*;
    let wide = || t.widened().unwrap_or(t);
    match op {
        Opcode::Add
        | Opcode::Sub
        | Opcode::Min
        | Opcode::Max
        | Opcode::Div
        | Opcode::Rem
        | Opcode::And
        | Opcode::Or
        | Opcode::Xor => vec![Dst(t, false), Src(t, false), Src(t, false)],
        Opcode::Mul if mods.mul == MulMode::Wide => {
            vec![Dst(wide(), false), Src(t, false), Src(t, false)]
        }
        Opcode::Mul => vec![Dst(t, false), Src(t, false), Src(t, false)],
        Opcode::Mad if mods.mul == MulMode::Wide => {
            vec![
                Dst(wide(), false),
                Src(t, false),
                Src(t, false),
                Src(wide(), false),
            ]
        }
        Opcode::Mad | Opcode::Fma => {
            vec![Dst(t, false), Src(t, false), Src(t, false), Src(t, false)]
        }
        Opcode::Abs
        | Opcode::Neg
        | Opcode::Not
        | Opcode::Sqrt
        | Opcode::Rsqrt
        | Opcode::Rcp
        | Opcode::Ex2
        | Opcode::Lg2
        | Opcode::Sin
        | Opcode::Cos
        | Opcode::Brev => vec![Dst(t, false), Src(t, false)],
        Opcode::Popc | Opcode::Clz => vec![Dst(Type::U32, false), Src(t, false)],
        Opcode::Shl | Opcode::Shr => vec![Dst(t, false), Src(t, false), Src(Type::U32, false)],
        Opcode::Bfe => vec![
            Dst(t, false),
            Src(t, false),
            Src(Type::U32, false),
            Src(Type::U32, false),
        ],
        Opcode::Bfi => vec![
            Dst(t, false),
            Src(t, false),
            Src(t, false),
            Src(Type::U32, false),
            Src(Type::U32, false),
        ],
        Opcode::Mov => vec![Dst(t, false), SrcOrSymbol(t)],
        Opcode::Cvt => vec![Dst(t, true), Src(t2, true)],
        Opcode::Cvta => vec![Dst(t, false), SrcOrSymbol(t)],
        Opcode::Ld if mods.has(flag::WAIT) => vec![Dst(t, false), Addr, Src(t, false)],
        Opcode::Ld => vec![Data(t, true), Addr],
        Opcode::St => vec![Addr, Data(t, true)],
        Opcode::Setp if mods.bool_op.is_some() => {
            vec![
                DstPred { pair: true },
                Src(t, false),
                Src(t, false),
                SrcPred,
            ]
        }
        Opcode::Setp => vec![DstPred { pair: true }, Src(t, false), Src(t, false)],
        Opcode::Selp => vec![Dst(t, false), Src(t, false), Src(t, false), SrcPred],
        Opcode::Slct => vec![Dst(t, false), Src(t, false), Src(t, false), Src(t2, false)],
        Opcode::Bra => vec![Target],
        Opcode::Ret | Opcode::Exit | Opcode::Membar | Opcode::Fence | Opcode::Call => vec![],
        Opcode::Bar => match mods.bar {
            BarKind::Sync if n == 2 => vec![Src(Type::U32, false), Src(Type::U32, false)],
            BarKind::Sync => vec![Src(Type::U32, false)],
            BarKind::Arrive => vec![Src(Type::U32, false), Src(Type::U32, false)],
            BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr => {
                let d = if mods.bar == BarKind::RedPopc {
                    Dst(Type::U32, false)
                } else {
                    DstPred { pair: false }
                };
                if n == 4 {
                    vec![d, Src(Type::U32, false), Src(Type::U32, false), SrcPred]
                } else {
                    vec![d, Src(Type::U32, false), SrcPred]
                }
            }
        },
        Opcode::Nanosleep => vec![Src(Type::U32, false)],
        Opcode::Atom if mods.atom == AtomOp::Cas => {
            vec![Dst(t, false), Addr, Src(t, false), Src(t, false)]
        }
        Opcode::Atom => vec![Dst(t, false), Addr, Src(t, false)],
        Opcode::Red => vec![Addr, Src(t, false)],
        Opcode::Wait => vec![Addr, Src(t, false)],
        Opcode::Shfl => vec![
            ShflDst,
            Src(Type::B32, false),
            Src(Type::U32, false),
            Src(Type::U32, false),
            Src(Type::U32, false),
        ],
        Opcode::Vote if !mods.has(flag::SYNC) => {
            if mods.vote == VoteMode::Ballot {
                vec![Dst(Type::B32, false), SrcPred]
            } else {
                vec![DstPred { pair: false }, SrcPred]
            }
        }
        Opcode::Mul24 | Opcode::Copysign | Opcode::Addc | Opcode::Subc => {
            vec![Dst(t, false), Src(t, false), Src(t, false)]
        }
        Opcode::Mad24 | Opcode::Sad | Opcode::Prmt | Opcode::Madc => {
            vec![Dst(t, false), Src(t, false), Src(t, false), Src(t, false)]
        }
        Opcode::Bfind => vec![Dst(Type::U32, false), Src(t, false)],
        Opcode::Shf => vec![
            Dst(t, false),
            Src(t, false),
            Src(t, false),
            Src(Type::U32, false),
        ],
        Opcode::Dp4a | Opcode::Dp2a => {
            let acc = if t.is_signed() || t2.is_signed() {
                Type::S32
            } else {
                Type::U32
            };
            vec![
                Dst(acc, false),
                Src(t, false),
                Src(t2, false),
                Src(acc, false),
            ]
        }
        Opcode::Testp => vec![DstPred { pair: false }, Src(t, false)],
        Opcode::Cnot | Opcode::Tanh => vec![Dst(t, false), Src(t, false)],
        Opcode::Fns => vec![
            Dst(Type::B32, false),
            Src(Type::B32, false),
            Src(Type::U32, false),
            Src(Type::S32, false),
        ],
        Opcode::Lop3 => vec![
            Dst(t, false),
            Src(t, false),
            Src(t, false),
            Src(t, false),
            Src(Type::B32, false),
        ],
        Opcode::Isspacep => vec![DstPred { pair: false }, Src(Type::U64, false)],
        Opcode::Tex => vec![Data(t, false), Slot::Tex(t2)],
        Opcode::Set if mods.bool_op.is_some() => {
            vec![Dst(t, false), Src(t2, false), Src(t2, false), SrcPred]
        }
        Opcode::Set => vec![Dst(t, false), Src(t2, false), Src(t2, false)],
        Opcode::Vote if mods.vote == VoteMode::Ballot => {
            vec![Dst(Type::B32, false), SrcPred, Src(Type::U32, false)]
        }
        Opcode::Vote => vec![DstPred { pair: false }, SrcPred, Src(Type::U32, false)],
        Opcode::Activemask => vec![Dst(Type::B32, false)],
    }
}

/// `d, [a], b` — the operand form, for help lines.
fn form_of(slots: &[Slot]) -> String {
    let mut letters = "abcdef".chars();
    let parts: Vec<String> = slots
        .iter()
        .map(|s| match s {
            Slot::Dst(..) | Slot::ShflDst => "d".to_string(),
            Slot::Data(..) => "d".to_string(),
            Slot::DstPred { .. } => "p".to_string(),
            Slot::SrcPred => "q".to_string(),
            Slot::Addr => "[addr]".to_string(),
            Slot::Target => "label".to_string(),
            Slot::Tex(_) => "[tex, {x, y}]".to_string(),
            Slot::Src(..) | Slot::SrcOrSymbol(..) => letters.next().unwrap_or('x').to_string(),
        })
        .collect();
    parts.join(", ")
}

/// An instruction standing in for one that failed to lower (never executed:
/// a module with errors is never run).
fn placeholder(span: Span, line: u32) -> Inst {
    Inst {
        op: Opcode::Membar,
        ty: Type::Pred,
        ty2: Type::Pred,
        mods: Mods::default(),
        guard: None,
        dst: Operand::None,
        dst2: Operand::None,
        src: [Operand::None; 4],
        nsrc: 0,
        span,
        line,
    }
}
