//! Device functions and calls in the IR, and the linker that places every
//! `.func` a kernel can reach after the kernel's own instructions.
//!
//! Representation: one instruction space per kernel. The entry's
//! instructions keep their ids (so existing kernels are unchanged); each
//! reachable `.func` body follows, in module order, with its registers,
//! predicates, variables, labels and branch targets renumbered into the
//! kernel's dense id spaces. A `call` is one instruction of its caller's
//! block (it does not end the block), so each function is a disconnected
//! region of the CFG with its own blocks, ipdoms and loops; a function's
//! `ret` is its exit. Call-site `.param` variables and a function's
//! parameters are per-thread `.local` storage (the ABI's stack); the `call`
//! copies the arguments in and a `ret` copies the return values back.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::inst::*;
use crate::ptx::diagnostics::{Diagnostic, Span};

/// Device-function addresses (`mov.u64 %rd, f;`) are this base plus the
/// entry instruction's PC (id × 8): distinct from every data window.
pub const FUNC_ADDR_BASE: u64 = 0x7d00_0000_0000;

/// Placeholder immediate of a function address before linking.
pub(crate) const FUNC_REF_PLACEHOLDER: u64 = FUNC_ADDR_BASE - 8;

/// Where an argument or return value lives in the caller or callee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgSlot {
    /// A `.param` variable (call-site `param0`, or a function parameter),
    /// stored in per-thread local memory.
    Var(VarId),
    /// A register (old-style `.reg` parameters, or a register argument).
    Reg(RegId),
}

/// One argument or return value of a call or function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgInfo {
    /// Where it lives.
    pub slot: ArgSlot,
    /// Size in bytes.
    pub bytes: u32,
}

/// A device function linked into a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncInfo {
    /// Name as written (possibly mangled).
    pub name: String,
    /// First instruction.
    pub entry: InstId,
    /// One past the last instruction.
    pub end: InstId,
    /// Formal parameters in order.
    pub params: Vec<ArgInfo>,
    /// Return parameters in order.
    pub rets: Vec<ArgInfo>,
    /// The function's registers: `regs.0 .. regs.1`.
    pub regs: (u32, u32),
    /// The function's predicates: `preds.0 .. preds.1`.
    pub preds: (u32, u32),
    /// The function's own `.local` variables (locals, parameters, call-site
    /// parameters).
    pub locals: Vec<VarId>,
    /// Can call itself (directly, through other functions or through a
    /// function pointer): its registers, predicates and locals are saved at
    /// each call and restored at each return.
    pub recursive: bool,
    /// The `.func` keyword and name.
    pub span: Span,
}

impl FuncInfo {
    /// The value `mov.u64 %rd, name;` gives.
    pub fn address(&self) -> u64 {
        FUNC_ADDR_BASE + u64::from(self.entry.0) * 8
    }
}

/// Whom a call site calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function of [`Kernel::funcs`].
    Direct(u32),
    /// The function whose address is in this 64-bit register (per lane).
    Indirect(RegId),
}

/// One `call` instruction's operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The callee.
    pub callee: Callee,
    /// Actual arguments in order.
    pub args: Vec<ArgInfo>,
    /// Where the return values go, in order.
    pub rets: Vec<ArgInfo>,
    /// The `call` instruction.
    pub inst: InstId,
}

impl Kernel {
    /// The linked function containing instruction `inst` (`None`: the
    /// entry's own code).
    pub fn func_of(&self, inst: InstId) -> Option<usize> {
        self.funcs
            .iter()
            .position(|f| f.entry <= inst && inst < f.end)
    }

    /// The linked function whose address is `addr`.
    pub fn func_at_address(&self, addr: u64) -> Option<usize> {
        self.funcs.iter().position(|f| f.address() == addr)
    }

    /// The instruction range of the entry's own code.
    pub fn entry_end(&self) -> InstId {
        self.funcs
            .first()
            .map_or(InstId(self.insts.len() as u32), |f| f.entry)
    }
}

/// The callee of a call site before linking.
#[derive(Clone, Debug)]
pub(crate) enum PendingCallee {
    /// By name.
    Direct { name: String, span: Span },
    /// Through a register.
    Indirect(RegId),
}

/// A call site before linking.
#[derive(Clone, Debug)]
pub(crate) struct PendingSite {
    pub callee: PendingCallee,
    pub args: Vec<ArgInfo>,
    pub rets: Vec<ArgInfo>,
    pub inst: u32,
}

/// An `.entry` or `.func` body lowered on its own, before linking.
#[derive(Clone, Debug)]
pub(crate) struct LoweredBody {
    /// The body in kernel shape (its own ids; `funcs`/`calls` empty).
    pub kernel: Kernel,
    /// Number of module-scope variables at the front of `kernel.vars`.
    pub nglobals: usize,
    /// Formal parameters (for a `.func`).
    pub params: Vec<ArgInfo>,
    /// Return parameters (for a `.func`).
    pub rets: Vec<ArgInfo>,
    /// Call sites in instruction order.
    pub sites: Vec<PendingSite>,
    /// Instructions taking a function's address, with the function's name.
    pub func_refs: Vec<(u32, String)>,
}

/// Id offsets of one body placed into a kernel.
struct Remap {
    inst: u32,
    reg: u32,
    pred: u32,
    site: u32,
    /// Old variable id → new.
    vars: Vec<VarId>,
}

impl Remap {
    fn reg(&self, r: RegId) -> RegId {
        RegId(r.0 + self.reg)
    }
    fn addr(&self, a: Address) -> Address {
        Address {
            base: match a.base {
                AddrBase::Reg(r) => AddrBase::Reg(self.reg(r)),
                AddrBase::Var(v) => AddrBase::Var(self.vars[v.0 as usize]),
                b => b,
            },
            offset: a.offset,
        }
    }
    fn operand(&self, o: Operand) -> Operand {
        match o {
            Operand::Reg(r) => Operand::Reg(self.reg(r)),
            Operand::Pred { id, negate } => Operand::Pred {
                id: PredId(id.0 + self.pred),
                negate,
            },
            Operand::VarAddr(v) => Operand::VarAddr(self.vars[v.0 as usize]),
            Operand::Addr(a) => Operand::Addr(self.addr(a)),
            Operand::Vector { regs, len } => Operand::Vector {
                regs: regs.map(|r| r.map(|r| self.reg(r))),
                len,
            },
            Operand::Target(t) => Operand::Target(InstId(t.0 + self.inst)),
            o => o,
        }
    }
    fn arg(&self, a: ArgInfo) -> ArgInfo {
        ArgInfo {
            slot: match a.slot {
                ArgSlot::Var(v) => ArgSlot::Var(self.vars[v.0 as usize]),
                ArgSlot::Reg(r) => ArgSlot::Reg(self.reg(r)),
            },
            bytes: a.bytes,
        }
    }
}

/// Appends `body` to `k`; returns the remap used.
fn append(k: &mut Kernel, body: &LoweredBody, nsites: u32) -> Remap {
    let mut vars = Vec::with_capacity(body.kernel.vars.len());
    for (i, v) in body.kernel.vars.iter().enumerate() {
        if i < body.nglobals {
            vars.push(VarId(i as u32));
        } else {
            vars.push(VarId(k.vars.len() as u32));
            k.vars.push(v.clone());
        }
    }
    let m = Remap {
        inst: k.insts.len() as u32,
        reg: k.regs.len() as u32,
        pred: k.preds.len() as u32,
        site: nsites,
        vars,
    };
    k.regs.extend(body.kernel.regs.iter().cloned());
    k.preds.extend(body.kernel.preds.iter().cloned());
    for inst in &body.kernel.insts {
        let mut i = inst.clone();
        i.guard = i.guard.map(|g| Guard {
            pred: PredId(g.pred.0 + m.pred),
            negate: g.negate,
        });
        i.dst = m.operand(i.dst);
        i.dst2 = m.operand(i.dst2);
        for s in &mut i.src {
            *s = m.operand(*s);
        }
        if i.op == Opcode::Call
            && let Operand::Imm(site) = i.src[0]
        {
            i.src[0] = Operand::Imm(site + u64::from(m.site));
        }
        k.insts.push(i);
    }
    k.labels.extend(
        body.kernel
            .labels
            .iter()
            .map(|(n, id)| (n.clone(), InstId(id.0 + m.inst))),
    );
    m
}

/// Links `entry` with the device functions it can reach (`funcs` by name,
/// in module order; `bodyless` names declared without a body). Reports
/// calls to functions without a body.
pub(crate) fn link(
    entry: LoweredBody,
    funcs: &[(String, LoweredBody)],
    bodyless: &HashMap<String, Span>,
    diags: &mut Vec<Diagnostic>,
) -> Kernel {
    let index: HashMap<&str, usize> = funcs
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    // Reachable functions: direct callees and address-taken functions.
    let mut reached = vec![false; funcs.len()];
    let mut work: Vec<&LoweredBody> = vec![&entry];
    while let Some(b) = work.pop() {
        let names = b
            .sites
            .iter()
            .filter_map(|s| match &s.callee {
                PendingCallee::Direct { name, .. } => Some(name.as_str()),
                PendingCallee::Indirect(_) => None,
            })
            .chain(b.func_refs.iter().map(|(_, n)| n.as_str()));
        for n in names {
            if let Some(&i) = index.get(n)
                && !reached[i]
            {
                reached[i] = true;
                work.push(&funcs[i].1);
            }
        }
    }
    let order: Vec<usize> = (0..funcs.len()).filter(|&i| reached[i]).collect();
    let mut slot_of = vec![u32::MAX; funcs.len()];
    for (slot, &i) in order.iter().enumerate() {
        slot_of[i] = slot as u32;
    }

    let mut k = entry.kernel.clone();
    let mut pending: Vec<(Remap, &LoweredBody)> = Vec::new();
    let own = Remap {
        inst: 0,
        reg: 0,
        pred: 0,
        site: 0,
        vars: (0..k.vars.len() as u32).map(VarId).collect(),
    };
    let mut nsites = entry.sites.len() as u32;
    pending.push((own, &entry));
    for &i in &order {
        let body = &funcs[i].1;
        let m = append(&mut k, body, nsites);
        nsites += body.sites.len() as u32;
        let locals = m.vars[body.nglobals..].to_vec();
        k.funcs.push(FuncInfo {
            name: funcs[i].0.clone(),
            entry: InstId(m.inst),
            end: InstId(k.insts.len() as u32),
            params: body.params.iter().map(|&a| m.arg(a)).collect(),
            rets: body.rets.iter().map(|&a| m.arg(a)).collect(),
            regs: (m.reg, k.regs.len() as u32),
            preds: (m.pred, k.preds.len() as u32),
            locals,
            recursive: false,
            span: body.kernel.span,
        });
        pending.push((m, body));
    }
    // Call sites and function addresses.
    for (m, body) in &pending {
        for s in &body.sites {
            let callee = match &s.callee {
                PendingCallee::Direct { name, span } => match index.get(name.as_str()) {
                    Some(&i) => Callee::Direct(slot_of[i]),
                    None => {
                        let mut d = Diagnostic::new(
                            "gpusim::lower::undefined_function",
                            format!("`{name}` is declared but has no body"),
                        )
                        .label(*span, "called here");
                        if let Some(decl) = bodyless.get(name) {
                            d = d.label(*decl, "declared here without a body");
                        }
                        diags.push(d.help(
                            "gpusim links one PTX file: define the function in it (no separate compilation)",
                        ));
                        Callee::Direct(u32::MAX)
                    }
                },
                PendingCallee::Indirect(r) => Callee::Indirect(m.reg(*r)),
            };
            k.calls.push(CallSite {
                callee,
                args: s.args.iter().map(|&a| m.arg(a)).collect(),
                rets: s.rets.iter().map(|&a| m.arg(a)).collect(),
                inst: InstId(s.inst + m.inst),
            });
        }
        for (inst, name) in &body.func_refs {
            let Some(&i) = index.get(name.as_str()) else {
                continue;
            };
            let addr = k.funcs[slot_of[i] as usize].address();
            let at = &mut k.insts[(inst + m.inst) as usize];
            for s in &mut at.src {
                if *s == Operand::Imm(FUNC_REF_PLACEHOLDER) {
                    *s = Operand::Imm(addr);
                }
            }
        }
    }
    mark_recursive(&mut k);
    k
}

/// Sets [`FuncInfo::recursive`]: a function that can reach itself through
/// direct calls or indirect calls (which may reach any address-taken
/// function).
fn mark_recursive(k: &mut Kernel) {
    let n = k.funcs.len();
    if n == 0 {
        return;
    }
    let taken: Vec<u32> = (0..n as u32)
        .filter(|&f| {
            let a = k.funcs[f as usize].address();
            k.insts
                .iter()
                .any(|i| i.op != Opcode::Call && i.srcs().contains(&Operand::Imm(a)))
        })
        .collect();
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
    for s in &k.calls {
        let Some(from) = k.func_of(s.inst) else {
            continue;
        };
        match s.callee {
            Callee::Direct(t) if (t as usize) < n => succ[from].push(t),
            Callee::Direct(_) => {}
            Callee::Indirect(_) => succ[from].extend(&taken),
        }
    }
    for f in 0..n {
        let mut seen = vec![false; n];
        let mut work: Vec<u32> = succ[f].clone();
        let mut rec = false;
        while let Some(g) = work.pop() {
            if g as usize == f {
                rec = true;
                break;
            }
            if !std::mem::replace(&mut seen[g as usize], true) {
                work.extend(&succ[g as usize]);
            }
        }
        k.funcs[f].recursive = rec;
    }
}

/// Turns function-scope `.param` variables (call-site parameters and a
/// function's own parameters) into per-thread `.local` storage, and the
/// `ld.param`/`st.param` instructions that access them into local accesses.
pub(crate) fn params_to_local(k: &mut Kernel, nglobals: usize) {
    let frame: Vec<bool> = k
        .vars
        .iter()
        .enumerate()
        .map(|(i, v)| i >= nglobals && v.space == Space::Param)
        .collect();
    if !frame.contains(&true) {
        return;
    }
    for (v, f) in k.vars.iter_mut().zip(&frame) {
        if *f {
            v.space = Space::Local;
        }
    }
    for i in &mut k.insts {
        if !matches!(i.op, Opcode::Ld | Opcode::St) || i.mods.space != Space::Param {
            continue;
        }
        let base = [i.dst, i.src[0]].into_iter().find_map(|o| match o {
            Operand::Addr(Address {
                base: AddrBase::Var(v),
                ..
            }) => Some(v),
            _ => None,
        });
        if base.is_some_and(|v| frame[v.0 as usize]) {
            i.mods.space = Space::Local;
        }
    }
}
