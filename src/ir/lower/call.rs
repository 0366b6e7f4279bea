//! Lowering of device functions, `call` statements, `.callprototype`
//! declarations and function addresses (see [`crate::ir::call`] for the
//! representation and the linker).

use rustc_hash::FxHashMap as HashMap;

use super::{KernelCx, LineIndex, RegDeclInfo};
use crate::ir::call::{
    ArgInfo, ArgSlot, FUNC_REF_PLACEHOLDER, LoweredBody, PendingCallee, PendingSite,
    params_to_local,
};
use crate::ir::inst::*;
use crate::ptx::ast::{self, Ident};
use crate::ptx::diagnostics::{Diagnostic, Span};
use crate::ptx::suggest::closest;

/// The signature of a function or prototype: sizes in bytes.
#[derive(Clone, Debug, Default)]
pub(super) struct FuncSig {
    /// Parameter sizes.
    params: Vec<u32>,
    /// Return-value sizes.
    rets: Vec<u32>,
    /// Where it is declared.
    span: Span,
}

/// Size in bytes of a declared parameter (`None` for a bad type, which
/// lowering reports elsewhere).
fn decl_bytes(p: &ast::ParamDecl<'_>) -> Option<u32> {
    let ty = Type::from_directive(p.ty.text)?;
    Some(ty.bytes() * p.array.unwrap_or(1).clamp(1, 1 << 20) as u32)
}

fn sig_of(rets: &[ast::ParamDecl<'_>], params: &[ast::ParamDecl<'_>], span: Span) -> FuncSig {
    FuncSig {
        params: params.iter().map(|p| decl_bytes(p).unwrap_or(0)).collect(),
        rets: rets.iter().map(|p| decl_bytes(p).unwrap_or(0)).collect(),
        span,
    }
}

/// Every `.func` of the module (declarations included) by name.
pub(super) fn signatures<'a>(m: &ast::Module<'a>) -> HashMap<&'a str, FuncSig> {
    let mut out = HashMap::default();
    for f in m.functions.iter().filter(|f| !f.is_entry) {
        out.entry(f.name.text)
            .or_insert_with(|| sig_of(&f.rets, &f.params, f.keyword.join(f.name.span)));
    }
    out
}

/// Lowers every `.func` with a body, in module order; returns them by name
/// and the names declared without a body.
#[allow(clippy::type_complexity)]
pub(super) fn lower_funcs<'a>(
    m: &ast::Module<'a>,
    globals: &[Var],
    lines: &'a LineIndex,
    sigs: &HashMap<&'a str, FuncSig>,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<(String, LoweredBody)>, HashMap<String, Span>) {
    let mut bodies: Vec<(String, LoweredBody)> = Vec::new();
    let mut bodyless: HashMap<String, Span> = HashMap::default();
    let mut defined: HashMap<&str, Span> = HashMap::default();
    for f in m.functions.iter().filter(|f| !f.is_entry) {
        let Some(body) = &f.body else {
            bodyless
                .entry(f.name.text.to_string())
                .or_insert(f.keyword.join(f.name.span));
            continue;
        };
        if let Some(prev) = defined.insert(f.name.text, f.name.span) {
            diags.push(
                Diagnostic::new(
                    "gpusim::lower::duplicate_declaration",
                    format!("function `{}` is defined twice", f.name.text),
                )
                .label(f.name.span, "second definition")
                .label(prev, "first defined here"),
            );
            continue;
        }
        // Declared with other parameters before: a prototype mismatch.
        if let Some(sig) = sigs.get(f.name.text) {
            let mine = sig_of(&f.rets, &f.params, f.span);
            if sig.params != mine.params || sig.rets != mine.rets {
                diags.push(
                    Diagnostic::new(
                        "gpusim::lower::prototype_mismatch",
                        format!(
                            "`{}` is defined with other parameters than it was declared with",
                            f.name.text
                        ),
                    )
                    .label(f.name.span, "definition")
                    .label(sig.span, "declaration"),
                );
            }
        }
        let mut cx = KernelCx::new(f, globals, lines, diags);
        cx.module_funcs = sigs.clone();
        let (params, rets) = cx.declare_func_params(f);
        cx.declare(body);
        cx.instructions(body);
        let mut lowered = cx.finish_body(f, globals.len());
        lowered.params = params;
        lowered.rets = rets;
        bodies.push((f.name.text.to_string(), lowered));
    }
    bodyless.retain(|n, _| !defined.contains_key(n.as_str()));
    (bodies, bodyless)
}

impl<'a> KernelCx<'a, '_> {
    /// Finishes a body lowered on its own (before linking).
    pub(super) fn finish_body(mut self, f: &ast::Function<'a>, nglobals: usize) -> LoweredBody {
        let sites = std::mem::take(&mut self.sites);
        let func_refs = std::mem::take(&mut self.func_refs);
        let mut kernel = self.finish(f);
        params_to_local(&mut kernel, nglobals);
        LoweredBody {
            kernel,
            nglobals,
            params: Vec::new(),
            rets: Vec::new(),
            sites,
            func_refs,
        }
    }

    /// Declares a `.func`'s parameters and return values: `.param` ones as
    /// variables, `.reg` ones as registers.
    fn declare_func_params(&mut self, f: &ast::Function<'a>) -> (Vec<ArgInfo>, Vec<ArgInfo>) {
        let mut lists = (Vec::new(), Vec::new());
        for (list, decls) in [(&mut lists.1, &f.rets), (&mut lists.0, &f.params)] {
            for p in decls {
                let Some(ty) = Type::from_directive(p.ty.text).filter(|t| *t != Type::Pred) else {
                    self.err(
                        Diagnostic::new(
                            "gpusim::lower::bad_type",
                            format!("`{}` is not a parameter type", p.ty.text),
                        )
                        .label(p.ty.span, "expected `.u32`, `.u64`, `.f32`, `.b8` …"),
                    );
                    continue;
                };
                if p.is_reg {
                    self.decls.insert(
                        p.name.text,
                        RegDeclInfo {
                            ty,
                            count: None,
                            span: p.name.span,
                        },
                    );
                    self.decl_names.push((p.name.text, None));
                    if let Some((r, _, _)) = self.reg(p.name, None) {
                        list.push(ArgInfo {
                            slot: ArgSlot::Reg(r),
                            bytes: ty.bytes(),
                        });
                    }
                    continue;
                }
                let size = decl_bytes(p).unwrap_or(0);
                let v = VarId(self.vars.len() as u32);
                if self.var_ids.insert(p.name.text.to_string(), v).is_some() {
                    self.err(
                        Diagnostic::new(
                            "gpusim::lower::duplicate_declaration",
                            format!("`{}` is declared twice", p.name.text),
                        )
                        .label(p.name.span, "second declaration"),
                    );
                    continue;
                }
                self.vars.push(Var {
                    name: p.name.text.to_string(),
                    space: Space::Param,
                    ty,
                    size: u64::from(size),
                    align: p.align.unwrap_or(ty.bytes()).max(1),
                    init: None,
                    module_scope: false,
                    is_extern: false,
                });
                list.push(ArgInfo {
                    slot: ArgSlot::Var(v),
                    bytes: size,
                });
            }
        }
        lists
    }

    /// Records a `.callprototype`.
    pub(super) fn declare_prototype(&mut self, p: &ast::Prototype<'a>) {
        if self.protos.contains_key(p.name.text) {
            self.err(
                Diagnostic::new(
                    "gpusim::lower::duplicate_label",
                    format!("prototype `{}` is declared twice", p.name.text),
                )
                .label(p.name.span, "second declaration"),
            );
            return;
        }
        self.protos
            .insert(p.name.text, sig_of(&p.rets, &p.params, p.span));
    }

    /// `mov.u64 %rd, f;`: the function's address (patched by the linker).
    pub(super) fn function_address(&mut self, id: Ident<'a>, t: Type) -> Option<Operand> {
        if t.bits() != 64 || t.is_float() {
            self.err(
                Diagnostic::new(
                    "gpusim::lower::type_mismatch",
                    format!("the address of function `{}` is 64 bits", id.text),
                )
                .label(id.span, "function address")
                .help("use `mov.u64` into a `.b64`/`.u64` register"),
            );
            return None;
        }
        self.func_refs
            .push((self.insts.len() as u32, id.text.to_string()));
        Some(Operand::Imm(FUNC_REF_PLACEHOLDER))
    }

    /// One argument or return value of a call: a call-site `.param`
    /// variable or a register.
    fn call_arg(&mut self, id: Ident<'a>) -> Option<ArgInfo> {
        if id.text.starts_with('%') {
            let (r, ty, _) = self.reg(id, None)?;
            return Some(ArgInfo {
                slot: ArgSlot::Reg(r),
                bytes: ty.bytes(),
            });
        }
        if let Some(v) = self.lookup_var(id.text) {
            let var = &self.vars[v.0 as usize];
            if var.space == Space::Param && !var.module_scope {
                return Some(ArgInfo {
                    slot: ArgSlot::Var(v),
                    bytes: var.size as u32,
                });
            }
            let space = var.space.name();
            self.err(
                Diagnostic::new(
                    "gpusim::lower::bad_operand",
                    format!("`{}` is a `{space}` variable, not a call parameter", id.text),
                )
                .label(id.span, "not a `.param` variable")
                .help("pass arguments in `.param` variables declared in the call's block (`.param .b32 param0;`)"),
            );
            return None;
        }
        self.unknown_symbol(id);
        None
    }

    /// Checks actual sizes against a signature.
    fn check_args(
        &mut self,
        callee: &str,
        what: &str,
        actual: &[(ArgInfo, Span)],
        want: &[u32],
        whole: Span,
        decl: Span,
    ) -> bool {
        if actual.len() != want.len() {
            self.err(
                Diagnostic::new(
                    "gpusim::lower::call_arguments",
                    format!(
                        "the call passes {} {what}{}, `{callee}` takes {}",
                        actual.len(),
                        if actual.len() == 1 { "" } else { "s" },
                        want.len()
                    ),
                )
                .label(whole, format!("{} {what}s", actual.len()))
                .label(decl, "declared here"),
            );
            return false;
        }
        let mut ok = true;
        for (k, ((a, span), &w)) in actual.iter().zip(want).enumerate() {
            if a.bytes != w {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::call_arguments",
                        format!(
                            "{what} {} of the call is {} bytes, `{callee}` declares {} bytes",
                            k + 1,
                            a.bytes,
                            w
                        ),
                    )
                    .label(*span, format!("{} bytes", a.bytes))
                    .label(decl, "declared here"),
                );
                ok = false;
            }
        }
        ok
    }

    /// Lowers `call`.
    pub(super) fn call_inst(&mut self, c: &ast::CallStmt<'a>) -> Option<Inst> {
        let line = self.lines.line(c.span.start);
        let mut mods = Mods::default();
        let mut at = c.opcode.span.start as usize + 4;
        for m in c.opcode.text.split('.').skip(1) {
            let span = Span::new(at + 1, at + 1 + m.len());
            at += 1 + m.len();
            if m == "uni" {
                mods.flags |= flag::UNI;
            } else {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::unsupported_modifier",
                        format!("`call` does not take `.{m}`"),
                    )
                    .label(span, "unknown modifier")
                    .help("the forms are `call` and `call.uni`"),
                );
                return None;
            }
        }
        let guard = match &c.guard {
            Some((negate, p)) => Some(Guard {
                pred: self.pred(*p)?,
                negate: *negate,
            }),
            None => None,
        };
        let mut args = Vec::new();
        let mut rets = Vec::new();
        let mut ok = true;
        for (out, names) in [(&mut args, &c.args), (&mut rets, &c.rets)] {
            for id in names {
                match self.call_arg(*id) {
                    Some(a) => out.push((a, id.span)),
                    None => ok = false,
                }
            }
        }
        let span_of = |v: &[Ident<'_>], dflt: Span| {
            v.iter()
                .map(|i| i.span)
                .reduce(|a, b| a.join(b))
                .unwrap_or(dflt)
        };
        let args_span = span_of(&c.args, c.target.span);
        let rets_span = span_of(&c.rets, c.opcode.span);
        let (callee, src1, sig, callee_name, decl) = if c.target.text.starts_with('%') {
            let (r, ty, decl) = self.reg(c.target, Some(Type::U64))?;
            if ty.bits() != 64 || ty.is_float() {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::type_mismatch",
                        format!(
                            "indirect call through `{}`, a `{}` register; function addresses are 64-bit",
                            c.target.text,
                            ty.name()
                        ),
                    )
                    .label(c.target.span, "not a function address")
                    .label(decl, "declared here"),
                );
                return None;
            }
            let Some(proto) = c.proto else {
                self.err(
                    Diagnostic::new(
                        "gpusim::lower::prototype_mismatch",
                        "an indirect call needs a `.callprototype`",
                    )
                    .label(c.target.span, "called through a register")
                    .help("write `call (r), %rd, (a), proto;` with `proto: .callprototype …;` declared before it"),
                );
                return None;
            };
            let Some(sig) = self.protos.get(proto.text).cloned() else {
                let sugg = closest(proto.text, self.protos.keys().copied()).map(str::to_string);
                let mut d = Diagnostic::new(
                    "gpusim::lower::undefined_symbol",
                    format!("prototype `{}` is not declared", proto.text),
                )
                .label(proto.span, "no `.callprototype` of this name");
                if let Some(s) = sugg {
                    d = d.help(format!("did you mean `{s}`?"));
                }
                self.err(d);
                return None;
            };
            (
                PendingCallee::Indirect(r),
                Operand::Reg(r),
                sig,
                proto.text.to_string(),
                proto.span,
            )
        } else {
            let Some(sig) = self.module_funcs.get(c.target.text).cloned() else {
                let sugg =
                    closest(c.target.text, self.module_funcs.keys().copied()).map(str::to_string);
                let mut d = Diagnostic::new(
                    "gpusim::lower::unknown_callee",
                    format!(
                        "call to `{}`, which is not a function of this module",
                        c.target.text
                    ),
                )
                .label(c.target.span, "no `.func` of this name");
                d = match sugg {
                    Some(s) => d.help(format!("did you mean `{s}`?")),
                    None => d.help("declare it with `.func name(…) { … }` in this file"),
                };
                self.err(d);
                return None;
            };
            let decl = sig.span;
            (
                PendingCallee::Direct {
                    name: c.target.text.to_string(),
                    span: c.target.span,
                },
                Operand::None,
                sig,
                c.target.text.to_string(),
                decl,
            )
        };
        ok &= self.check_args(
            &callee_name,
            "argument",
            &args,
            &sig.params,
            args_span,
            decl,
        );
        ok &= self.check_args(
            &callee_name,
            "return value",
            &rets,
            &sig.rets,
            rets_span,
            decl,
        );
        if !ok {
            return None;
        }
        let site = self.sites.len() as u64;
        self.sites.push(PendingSite {
            callee,
            args: args.iter().map(|a| a.0).collect(),
            rets: rets.iter().map(|a| a.0).collect(),
            inst: self.insts.len() as u32,
        });
        let nsrc = if src1 == Operand::None { 1 } else { 2 };
        Some(Inst {
            op: Opcode::Call,
            ty: Type::Pred,
            ty2: Type::Pred,
            mods,
            guard,
            dst: Operand::None,
            dst2: Operand::None,
            src: [Operand::Imm(site), src1, Operand::None, Operand::None],
            nsrc,
            span: c.span,
            line,
        })
    }
}
