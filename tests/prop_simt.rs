//! Property test of SIMT control flow: random *structured* programs (nested
//! if/else, counted loops with data-dependent trip counts, `break` out of one
//! or two loops, `continue`, early `ret`/`exit` of some threads, stores) are
//! compiled to PTX by a small code generator and run on the functional
//! interpreter with 1–2 CTAs of 32–96 threads (warps of 32 mostly, also 8,
//! 16 and 64 lanes), so warps diverge and reconverge through the PDOM stack.
//! The same AST is interpreted per thread in plain Rust (no SIMT at all);
//! the output memories must be identical. A failure prints the shrunk
//! program as pseudo-code, the differing words (thread, CTA, warp, lane) and
//! the PTX.
//!
//! Every variable is a 32-bit thread-local integer. The output holds `K`
//! words per thread: slots `0..NVARS` get every variable at the end of the
//! kernel (threads that returned early skip this), slots `NVARS..K` are
//! written by explicit `Store` statements. Untouched words keep a sentinel.

use std::fmt::Write as _;

use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host, download, upload};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

const NVARS: usize = 6;
const NSLOTS: usize = 4;
const K: usize = NVARS + NSLOTS;
const IN_LEN: usize = 256; // a power of two: indices are masked with IN_LEN - 1
const SENTINEL: u32 = 0xDEAD_BEEF;
const MAX_LOOP_DEPTH: u32 = 3;

// ---------------------------------------------------------------- the AST

#[derive(Clone, Copy, Debug, PartialEq)]
enum Opnd {
    Var(u8),
    Const(u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum BinOp {
    Add,
    Sub,
    Mul,
    MulHiU,
    Xor,
    And,
    Or,
    Shl,
    ShrU,
    ShrS,
    MinS,
    MaxU,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmp {
    Eq,
    Ne,
    LtS,
    LeS,
    GtS,
    GeS,
    Lo,
    Ls,
    Hi,
    Hs,
}

impl Cmp {
    fn eval(self, a: u32, b: u32) -> bool {
        let (sa, sb) = (a as i32, b as i32);
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::LtS => sa < sb,
            Cmp::LeS => sa <= sb,
            Cmp::GtS => sa > sb,
            Cmp::GeS => sa >= sb,
            Cmp::Lo => a < b,
            Cmp::Ls => a <= b,
            Cmp::Hi => a > b,
            Cmp::Hs => a >= b,
        }
    }

    /// The complementary comparison (for `@!%p` forms).
    fn inverse(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::LtS => Cmp::GeS,
            Cmp::LeS => Cmp::GtS,
            Cmp::GtS => Cmp::LeS,
            Cmp::GeS => Cmp::LtS,
            Cmp::Lo => Cmp::Hs,
            Cmp::Ls => Cmp::Hi,
            Cmp::Hi => Cmp::Ls,
            Cmp::Hs => Cmp::Lo,
        }
    }

    fn ptx(self) -> (&'static str, bool) {
        // (mnemonic, signed)
        match self {
            Cmp::Eq => ("eq", false),
            Cmp::Ne => ("ne", true),
            Cmp::LtS => ("lt", true),
            Cmp::LeS => ("le", true),
            Cmp::GtS => ("gt", true),
            Cmp::GeS => ("ge", true),
            Cmp::Lo => ("lo", false),
            Cmp::Ls => ("ls", false),
            Cmp::Hi => ("hi", false),
            Cmp::Hs => ("hs", false),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Cond {
    cmp: Cmp,
    a: u8,
    b: Opnd,
}

#[derive(Clone, Debug, PartialEq)]
enum Stmt {
    /// `dst = a op b`
    Assign { dst: u8, op: BinOp, a: u8, b: Opnd },
    /// `dst = in[idx & (IN_LEN-1)]`
    Load { dst: u8, idx: u8 },
    /// `out[tid*K + NVARS + slot] = var`
    Store { slot: u8, var: u8 },
    /// `style` picks one of two code shapes (`@!p bra ELSE` or `@p bra THEN`).
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
        style: bool,
    },
    /// `for _ in 0..(var & mask) { body }` (the count is read once, at entry).
    /// `bottom_test` picks a top-tested or a guarded bottom-tested loop.
    Loop {
        trip: u8,
        mask: u32,
        bottom_test: bool,
        body: Vec<Stmt>,
    },
    /// `if cond { break 'outer_levels }`: levels 0 leaves the innermost loop.
    Break { cond: Cond, levels: u8 },
    /// `if cond { continue }` (innermost loop).
    Continue { cond: Cond },
    /// `if cond { return }`; `style` 0: `@p ret`, 1: `@!p exit` on the inverse
    /// comparison, 2: `@p bra` to a shared exit block.
    Return { cond: Cond, style: u8 },
}

#[derive(Clone, Debug)]
struct Case {
    body: Vec<Stmt>,
    input: Vec<u32>,
    grid: u32,
    block: u32,
    /// Threads per warp (the hardware's 32 mostly; others change which
    /// threads share a reconvergence stack).
    warp: u32,
}

// ------------------------------------------------------ scalar reference

fn binop(op: BinOp, a: u32, b: u32) -> u32 {
    match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::MulHiU => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        BinOp::Xor => a ^ b,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        // PTX: shift amounts greater than the register width are clamped to
        // the width (shl/shr.u give 0, shr.s fills with the sign bit).
        BinOp::Shl => a.checked_shl(b).unwrap_or(0),
        BinOp::ShrU => a.checked_shr(b).unwrap_or(0),
        BinOp::ShrS => ((a as i32) >> b.min(31)) as u32,
        BinOp::MinS => (a as i32).min(b as i32) as u32,
        BinOp::MaxU => a.max(b),
    }
}

enum Flow {
    Normal,
    Break(u8),
    Continue,
    Return,
}

struct Thread<'a> {
    v: [u32; NVARS],
    input: &'a [u32],
    out: &'a mut [u32], // this thread's K words
}

impl Thread<'_> {
    fn opnd(&self, o: Opnd) -> u32 {
        match o {
            Opnd::Var(i) => self.v[i as usize],
            Opnd::Const(c) => c,
        }
    }

    fn cond(&self, c: &Cond) -> bool {
        c.cmp.eval(self.v[c.a as usize], self.opnd(c.b))
    }

    fn block(&mut self, stmts: &[Stmt]) -> Flow {
        for s in stmts {
            match self.stmt(s) {
                Flow::Normal => {}
                f => return f,
            }
        }
        Flow::Normal
    }

    fn stmt(&mut self, s: &Stmt) -> Flow {
        match s {
            Stmt::Assign { dst, op, a, b } => {
                self.v[*dst as usize] = binop(*op, self.v[*a as usize], self.opnd(*b));
            }
            Stmt::Load { dst, idx } => {
                self.v[*dst as usize] = self.input[self.v[*idx as usize] as usize & (IN_LEN - 1)];
            }
            Stmt::Store { slot, var } => self.out[NVARS + *slot as usize] = self.v[*var as usize],
            Stmt::If {
                cond, then, els, ..
            } => {
                return if self.cond(cond) {
                    self.block(then)
                } else {
                    self.block(els)
                };
            }
            Stmt::Loop {
                trip, mask, body, ..
            } => {
                let mut n = self.v[*trip as usize] & mask;
                while n != 0 {
                    match self.block(body) {
                        Flow::Normal | Flow::Continue => {}
                        Flow::Break(0) => break,
                        Flow::Break(l) => return Flow::Break(l - 1),
                        Flow::Return => return Flow::Return,
                    }
                    n -= 1;
                }
            }
            Stmt::Break { cond, levels } => {
                if self.cond(cond) {
                    return Flow::Break(*levels);
                }
            }
            Stmt::Continue { cond } => {
                if self.cond(cond) {
                    return Flow::Continue;
                }
            }
            Stmt::Return { cond, .. } => {
                if self.cond(cond) {
                    return Flow::Return;
                }
            }
        }
        Flow::Normal
    }
}

fn init_vars(gtid: u32, tid: u32, input: &[u32]) -> [u32; NVARS] {
    let mut v = [0; NVARS];
    v[0] = gtid;
    v[1] = tid;
    for (i, x) in v.iter_mut().enumerate().skip(2) {
        *x = input[(gtid as usize + 37 * i) & (IN_LEN - 1)];
    }
    v
}

fn reference(case: &Case) -> Vec<u32> {
    let n = (case.grid * case.block) as usize;
    let mut out = vec![SENTINEL; n * K];
    for gtid in 0..n {
        let tid = (gtid as u32) % case.block;
        let v = init_vars(gtid as u32, tid, &case.input);
        let mut t = Thread {
            v,
            input: &case.input,
            out: &mut out[gtid * K..(gtid + 1) * K],
        };
        if !matches!(t.block(&case.body), Flow::Return) {
            let v = t.v;
            t.out[..NVARS].copy_from_slice(&v);
        }
    }
    out
}

// --------------------------------------------------------- code generator

struct Gen {
    s: String,
    labels: usize,
    /// (continue label, end label) of the enclosing loops, innermost last.
    loops: Vec<(String, String)>,
}

fn var(i: u8) -> String {
    format!("%r{}", i + 1)
}

fn imm(c: u32, signed: bool) -> String {
    if signed {
        (c as i32).to_string()
    } else {
        c.to_string()
    }
}

impl Gen {
    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}{}", self.labels)
    }

    fn line(&mut self, l: impl AsRef<str>) {
        let indent = if l.as_ref().ends_with(':') { "" } else { "\t" };
        writeln!(self.s, "{indent}{}", l.as_ref()).unwrap();
    }

    fn opnd(o: Opnd, signed: bool) -> String {
        match o {
            Opnd::Var(i) => var(i),
            Opnd::Const(c) => imm(c, signed),
        }
    }

    /// `setp` of `cmp` into `%p1`.
    fn setp(&mut self, cmp: Cmp, a: u8, b: Opnd) {
        let (m, signed) = cmp.ptx();
        let ty = if signed { "s32" } else { "u32" };
        let b = Self::opnd(b, signed);
        self.line(format!("setp.{m}.{ty} %p1, {}, {b};", var(a)));
    }

    fn block(&mut self, stmts: &[Stmt], depth: usize) {
        for s in stmts {
            self.stmt(s, depth);
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        match s {
            Stmt::Assign { dst, op, a, b } => {
                let (m, signed) = match op {
                    BinOp::Add => ("add.u32", false),
                    BinOp::Sub => ("sub.s32", true),
                    BinOp::Mul => ("mul.lo.u32", false),
                    BinOp::MulHiU => ("mul.hi.u32", false),
                    BinOp::Xor => ("xor.b32", false),
                    BinOp::And => ("and.b32", false),
                    BinOp::Or => ("or.b32", false),
                    BinOp::Shl => ("shl.b32", false),
                    BinOp::ShrU => ("shr.u32", false),
                    BinOp::ShrS => ("shr.s32", false),
                    BinOp::MinS => ("min.s32", true),
                    BinOp::MaxU => ("max.u32", false),
                };
                let b = Self::opnd(*b, signed);
                self.line(format!("{m} {}, {}, {b};", var(*dst), var(*a)));
            }
            Stmt::Load { dst, idx } => {
                self.line(format!("and.b32 %r11, {}, {};", var(*idx), IN_LEN - 1));
                self.line("mul.wide.u32 %rd5, %r11, 4;");
                self.line("add.s64 %rd6, %rd1, %rd5;");
                self.line(format!("ld.global.u32 {}, [%rd6];", var(*dst)));
            }
            Stmt::Store { slot, var: v } => {
                let off = 4 * (NVARS + *slot as usize);
                self.line(format!("st.global.u32 [%rd4+{off}], {};", var(*v)));
            }
            Stmt::If {
                cond,
                then,
                els,
                style,
            } => {
                self.setp(cond.cmp, cond.a, cond.b);
                let end = self.label("endif");
                if !*style {
                    // @!p bra ELSE; then; bra END; ELSE: els; END:
                    if els.is_empty() {
                        self.line(format!("@!%p1 bra {end};"));
                        self.block(then, depth);
                    } else {
                        let el = self.label("else");
                        self.line(format!("@!%p1 bra {el};"));
                        self.block(then, depth);
                        self.line(format!("bra.uni {end};"));
                        self.line(format!("{el}:"));
                        self.block(els, depth);
                    }
                } else {
                    // @p bra THEN; els; bra END; THEN: then; END:
                    let th = self.label("then");
                    self.line(format!("@%p1 bra {th};"));
                    self.block(els, depth);
                    self.line(format!("bra {end};"));
                    self.line(format!("{th}:"));
                    self.block(then, depth);
                }
                self.line(format!("{end}:"));
            }
            Stmt::Loop {
                trip,
                mask,
                bottom_test,
                body,
            } => {
                let c = format!("%r{}", 20 + depth);
                let head = self.label("head");
                let cont = self.label("cont");
                let end = self.label("end");
                self.line(format!("and.b32 {c}, {}, {mask};", var(*trip)));
                self.loops.push((cont.clone(), end.clone()));
                if !*bottom_test {
                    self.line(format!("{head}:"));
                    self.line(format!("setp.eq.u32 %p2, {c}, 0;"));
                    self.line(format!("@%p2 bra {end};"));
                    self.block(body, depth + 1);
                    self.line(format!("{cont}:"));
                    self.line(format!("sub.u32 {c}, {c}, 1;"));
                    self.line(format!("bra.uni {head};"));
                } else {
                    self.line(format!("setp.eq.u32 %p2, {c}, 0;"));
                    self.line(format!("@%p2 bra {end};"));
                    self.line(format!("{head}:"));
                    self.block(body, depth + 1);
                    self.line(format!("{cont}:"));
                    self.line(format!("add.s32 {c}, {c}, -1;"));
                    self.line(format!("setp.ne.u32 %p2, {c}, 0;"));
                    self.line(format!("@%p2 bra {head};"));
                }
                self.loops.pop();
                self.line(format!("{end}:"));
            }
            Stmt::Break { cond, levels } => {
                self.setp(cond.cmp, cond.a, cond.b);
                let target = self.loops[self.loops.len() - 1 - *levels as usize]
                    .1
                    .clone();
                self.line(format!("@%p1 bra {target};"));
            }
            Stmt::Continue { cond } => {
                // Inverse comparison and a negated guard: same meaning.
                self.setp(cond.cmp.inverse(), cond.a, cond.b);
                let target = self.loops.last().unwrap().0.clone();
                self.line(format!("@!%p1 bra {target};"));
            }
            Stmt::Return { cond, style } => match style {
                0 => {
                    self.setp(cond.cmp, cond.a, cond.b);
                    self.line("@%p1 ret;");
                }
                1 => {
                    self.setp(cond.cmp.inverse(), cond.a, cond.b);
                    self.line("@!%p1 exit;");
                }
                _ => {
                    self.setp(cond.cmp, cond.a, cond.b);
                    self.line("@%p1 bra $L_exit;");
                }
            },
        }
    }
}

fn to_ptx(body: &[Stmt]) -> String {
    let mut g = Gen {
        s: String::new(),
        labels: 0,
        loops: Vec::new(),
    };
    g.s.push_str(".version 7.0\n.target sm_70\n.address_size 64\n\n");
    g.s.push_str(".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n");
    g.line(".reg .pred %p<3>;");
    g.line(".reg .b32 %r<32>;");
    g.line(".reg .b64 %rd<8>;");
    g.line("ld.param.u64 %rd1, [k_in];");
    g.line("ld.param.u64 %rd2, [k_out];");
    g.line("mov.u32 %r12, %tid.x;");
    g.line("mov.u32 %r13, %ctaid.x;");
    g.line("mov.u32 %r14, %ntid.x;");
    g.line("mad.lo.s32 %r10, %r13, %r14, %r12;"); // global thread id
    g.line(format!("mul.lo.u32 %r15, %r10, {K};"));
    g.line("mul.wide.u32 %rd3, %r15, 4;");
    g.line("add.s64 %rd4, %rd2, %rd3;"); // &out[gtid * K]
    g.line(format!("mov.u32 {}, %r10;", var(0)));
    g.line(format!("mov.u32 {}, %r12;", var(1)));
    for i in 2..NVARS {
        g.line(format!("add.u32 %r11, %r10, {};", 37 * i));
        g.line(format!("and.b32 %r11, %r11, {};", IN_LEN - 1));
        g.line("mul.wide.u32 %rd5, %r11, 4;");
        g.line("add.s64 %rd6, %rd1, %rd5;");
        g.line(format!("ld.global.u32 {}, [%rd6];", var(i as u8)));
    }
    g.block(body, 0);
    for i in 0..NVARS {
        g.line(format!("st.global.u32 [%rd4+{}], {};", 4 * i, var(i as u8)));
    }
    g.line("ret;");
    g.line("$L_exit:");
    g.line("ret;");
    g.s.push_str("}\n");
    g.s
}

// ------------------------------------------------- readable pseudo-code

fn show_opnd(o: Opnd) -> String {
    match o {
        Opnd::Var(i) => format!("v{i}"),
        Opnd::Const(c) if c < 1 << 16 => c.to_string(),
        Opnd::Const(c) => format!("{c:#x}"),
    }
}

fn show_cond(c: &Cond) -> String {
    let op = match c.cmp {
        Cmp::Eq => "==",
        Cmp::Ne => "!=",
        Cmp::LtS => "<s",
        Cmp::LeS => "<=s",
        Cmp::GtS => ">s",
        Cmp::GeS => ">=s",
        Cmp::Lo => "<u",
        Cmp::Ls => "<=u",
        Cmp::Hi => ">u",
        Cmp::Hs => ">=u",
    };
    format!("v{} {op} {}", c.a, show_opnd(c.b))
}

/// The AST as indented pseudo-code (for failure messages).
fn show(stmts: &[Stmt], indent: usize, out: &mut String) {
    let pad = "    ".repeat(indent);
    for s in stmts {
        match s {
            Stmt::Assign { dst, op, a, b } => {
                let o = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::MulHiU => "*hi",
                    BinOp::Xor => "^",
                    BinOp::And => "&",
                    BinOp::Or => "|",
                    BinOp::Shl => "<<",
                    BinOp::ShrU => ">>u",
                    BinOp::ShrS => ">>s",
                    BinOp::MinS => "min_s",
                    BinOp::MaxU => "max_u",
                };
                writeln!(out, "{pad}v{dst} = v{a} {o} {}", show_opnd(*b)).unwrap();
            }
            Stmt::Load { dst, idx } => {
                writeln!(out, "{pad}v{dst} = in[v{idx} & {}]", IN_LEN - 1).unwrap()
            }
            Stmt::Store { slot, var } => writeln!(out, "{pad}out[slot {slot}] = v{var}").unwrap(),
            Stmt::If {
                cond,
                then,
                els,
                style,
            } => {
                writeln!(
                    out,
                    "{pad}if {} {{{}",
                    show_cond(cond),
                    if *style { "  // @p bra THEN" } else { "" }
                )
                .unwrap();
                show(then, indent + 1, out);
                if !els.is_empty() {
                    writeln!(out, "{pad}}} else {{").unwrap();
                    show(els, indent + 1, out);
                }
                writeln!(out, "{pad}}}").unwrap();
            }
            Stmt::Loop {
                trip,
                mask,
                bottom_test,
                body,
            } => {
                let form = if *bottom_test {
                    "bottom-tested"
                } else {
                    "top-tested"
                };
                writeln!(out, "{pad}repeat v{trip} & {mask} times {{  // {form}").unwrap();
                show(body, indent + 1, out);
                writeln!(out, "{pad}}}").unwrap();
            }
            Stmt::Break { cond, levels } => {
                let l = if *levels == 0 {
                    String::new()
                } else {
                    format!(" {} loops", levels + 1)
                };
                writeln!(out, "{pad}if {} {{ break{l} }}", show_cond(cond)).unwrap();
            }
            Stmt::Continue { cond } => {
                writeln!(out, "{pad}if {} {{ continue }}", show_cond(cond)).unwrap()
            }
            Stmt::Return { cond, style } => {
                let form = ["@p ret", "@!p exit", "@p bra to exit block"][*style as usize % 3];
                writeln!(out, "{pad}if {} {{ return }}  // {form}", show_cond(cond)).unwrap();
            }
        }
    }
}

// ------------------------------------------------------------- running

fn run_case(case: &Case) -> Result<(), TestCaseError> {
    let ptx = to_ptx(&case.body);
    let p = gpusim::compile(gpusim::SourceFile::new("t.ptx", ptx.clone()))
        .unwrap_or_else(|d| panic!("generated PTX does not compile: {d}\n{ptx}"));
    // A bounded step limit turns a reconvergence bug that loops forever into
    // an error instead of a hang (the generated programs stay far below it:
    // at most ~30 000 warp instructions over the default 512 cases).
    let opts = FunctionalOptions {
        step_limit: 2_000_000,
        ..FunctionalOptions::default()
    };
    let mut host = FunctionalHost::new(&p, 0, opts);
    let n = (case.grid * case.block) as usize;
    let input = upload(&mut host, "in", &case.input).unwrap();
    let out = upload(&mut host, "out", &vec![SENTINEL; n * K]).unwrap();
    if let Err(e) = host.launch(
        None,
        [case.grid, 1, 1],
        [case.block, 1, 1],
        &[ArgValue::U64(input), ArgValue::U64(out)],
    ) {
        return Err(TestCaseError::fail(format!(
            "launch failed: {e}\ngrid {} block {} warp size {}\nprogram:\n{}\nPTX:\n{ptx}",
            case.grid,
            case.block,
            case.warp,
            {
                let mut prog = String::new();
                show(&case.body, 1, &mut prog);
                prog
            }
        )));
    }
    let got: Vec<u32> = download(&mut host, out, n * K).unwrap();
    let want = reference(case);
    if got != want {
        let mut msg = format!(
            "SIMT result differs from the per-thread reference (grid {}, block {}, warp size {})\n",
            case.grid, case.block, case.warp
        );
        let mut shown = 0;
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            if g != w {
                if shown < 12 {
                    let (t, slot) = (i / K, i % K);
                    let what = if slot < NVARS {
                        format!("final v{slot}")
                    } else {
                        format!("store slot {}", slot - NVARS)
                    };
                    let tid = t as u32 % case.block;
                    writeln!(
                        msg,
                        "  thread {t} (CTA {}, warp {}, lane {}) {what}: expected {w:#x}, got {g:#x}",
                        t as u32 / case.block,
                        tid / case.warp,
                        tid % case.warp
                    )
                    .unwrap();
                }
                shown += 1;
            }
        }
        let mut prog = String::new();
        show(&case.body, 1, &mut prog);
        writeln!(
            msg,
            "  ({shown} words differ)\nvariables: v0 = global thread id, v1 = %tid.x, v{{i}} = in[(v0 + 37*i) & {}] for i >= 2\nprogram:\n{prog}input: {:x?}\nPTX:\n{ptx}",
            IN_LEN - 1,
            case.input
        )
        .unwrap();
        return Err(TestCaseError::fail(msg));
    }
    Ok(())
}

// ------------------------------------------------------------ strategies

fn var_s() -> impl Strategy<Value = u8> {
    0..NVARS as u8
}

fn opnd_s() -> impl Strategy<Value = Opnd> {
    prop_oneof![
        3 => var_s().prop_map(Opnd::Var),
        1 => (0u32..40).prop_map(Opnd::Const),
        1 => prop_oneof![Just(u32::MAX), Just(0x8000_0000), Just(0x7fff_ffff), any::<u32>()].prop_map(Opnd::Const),
    ]
}

fn binop_s() -> impl Strategy<Value = BinOp> {
    use BinOp::*;
    prop_oneof![
        Just(Add),
        Just(Sub),
        Just(Mul),
        Just(MulHiU),
        Just(Xor),
        Just(And),
        Just(Or),
        Just(Shl),
        Just(ShrU),
        Just(ShrS),
        Just(MinS),
        Just(MaxU),
    ]
}

fn cond_s() -> impl Strategy<Value = Cond> {
    use Cmp::*;
    let cmp = prop_oneof![
        Just(Eq),
        Just(Ne),
        Just(LtS),
        Just(LeS),
        Just(GtS),
        Just(GeS),
        Just(Lo),
        Just(Ls),
        Just(Hi),
        Just(Hs),
    ];
    // Comparing with a small constant or a masked-down variable keeps both
    // outcomes likely; a low-bit test splits warps down the middle.
    (cmp, var_s(), opnd_s()).prop_map(|(cmp, a, b)| Cond { cmp, a, b })
}

fn leaf_s(loop_depth: u32) -> BoxedStrategy<Stmt> {
    let assign = (var_s(), binop_s(), var_s(), opnd_s()).prop_map(|(dst, op, a, b)| Stmt::Assign {
        dst,
        op,
        a,
        b,
    });
    let load = (var_s(), var_s()).prop_map(|(dst, idx)| Stmt::Load { dst, idx });
    let store = (0..NSLOTS as u8, var_s()).prop_map(|(slot, var)| Stmt::Store { slot, var });
    let ret = (cond_s(), 0u8..3).prop_map(|(cond, style)| Stmt::Return { cond, style });
    if loop_depth == 0 {
        prop_oneof![6 => assign, 2 => load, 2 => store, 1 => ret].boxed()
    } else {
        let brk =
            (cond_s(), 0..loop_depth as u8).prop_map(|(cond, levels)| Stmt::Break { cond, levels });
        let cont = cond_s().prop_map(|cond| Stmt::Continue { cond });
        prop_oneof![6 => assign, 2 => load, 2 => store, 1 => ret, 2 => brk, 1 => cont].boxed()
    }
}

/// A statement nested at most `depth` more levels, inside `loop_depth` loops.
fn stmt_s(depth: u32, loop_depth: u32) -> BoxedStrategy<Stmt> {
    if depth == 0 {
        return leaf_s(loop_depth);
    }
    let inner = |ld| prop::collection::vec(stmt_s(depth - 1, ld), 0..5);
    let iff = (
        cond_s(),
        inner(loop_depth),
        inner(loop_depth),
        any::<bool>(),
    )
        .prop_map(|(cond, then, els, style)| Stmt::If {
            cond,
            then,
            els,
            style,
        });
    if loop_depth >= MAX_LOOP_DEPTH {
        return prop_oneof![4 => leaf_s(loop_depth), 1 => iff].boxed();
    }
    let lp = (
        var_s(),
        prop_oneof![Just(7u32), Just(3u32)],
        any::<bool>(),
        inner(loop_depth + 1),
    )
        .prop_map(|(trip, mask, bottom_test, body)| Stmt::Loop {
            trip,
            mask,
            bottom_test,
            body,
        });
    prop_oneof![6 => leaf_s(loop_depth), 2 => iff, 2 => lp].boxed()
}

/// The input array, with a one-line `Debug` (proptest prints it on failure).
#[derive(Clone)]
struct Input(Vec<u32>);

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:x?}", self.0)
    }
}

fn input_s() -> impl Strategy<Value = Input> {
    let elem = prop_oneof![
        3 => 0u32..16,
        2 => any::<u32>(),
        1 => Just(0u32),
        1 => Just(u32::MAX),
        1 => Just(0x8000_0000u32),
        1 => 0u32..(IN_LEN as u32),
    ];
    // No shrinking: the program is what should shrink; the message prints
    // the input anyway.
    prop::collection::vec(elem, IN_LEN)
        .prop_map(Input)
        .no_shrink()
}

/// (grid, block, warp size)
fn launch_s() -> impl Strategy<Value = (u32, u32, u32)> {
    (
        1u32..=2,
        prop_oneof![4 => Just(64u32), 1 => Just(48u32), 1 => Just(96u32), 1 => Just(32u32)],
        prop_oneof![4 => Just(32u32), 1 => Just(8u32), 1 => Just(16u32), 1 => Just(64u32)],
    )
}

fn config() -> ProptestConfig {
    let d = ProptestConfig::default();
    ProptestConfig {
        // 256 unless PROPTEST_CASES says otherwise.
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            d.cases
        } else {
            256
        },
        max_shrink_iters: 4096,
        // Deterministic unless PROPTEST_RNG_SEED asks otherwise.
        rng_seed: match d.rng_seed {
            RngSeed::Random => RngSeed::Fixed(0x5eed_0001),
            s => s,
        },
        ..d
    }
}

proptest! {
    #![proptest_config(config())]

    /// Any structured program: nested if/else, loops, break/continue, early
    /// return, stores.
    #[test]
    fn structured_programs_match_scalar_reference(
        body in prop::collection::vec(stmt_s(3, 0), 1..14),
        input in input_s(),
        (grid, block, warp) in launch_s(),
    ) {
        run_case(&Case { body, input: input.0, grid, block, warp })?;
    }

    /// Loops whose trip count is `gtid & 7` (so lanes of a warp run different
    /// numbers of iterations), with threads returning early and breaking
    /// out of the loop (and out of an inner loop into the outer one) from
    /// inside, around random code.
    #[test]
    fn divergent_loops_with_early_exits(
        pre in prop::collection::vec(stmt_s(1, 1), 0..3),
        ret_cond in cond_s(),
        ret_style in 0u8..3,
        mid in prop::collection::vec(stmt_s(1, 1), 0..3),
        brk_cond in cond_s(),
        inner_trip in var_s(),
        inner in prop::collection::vec(stmt_s(1, 2), 0..3),
        inner_brk in (cond_s(), 0u8..2),
        inner_ret in cond_s(),
        styles in (any::<bool>(), any::<bool>()),
        post in prop::collection::vec(stmt_s(2, 0), 0..3),
        input in input_s(),
        (grid, block, warp) in launch_s(),
    ) {
        let mut body = pre;
        body.push(Stmt::Return { cond: ret_cond, style: ret_style });
        body.extend(mid);
        body.push(Stmt::Break { cond: brk_cond, levels: 0 });
        let mut ib = inner;
        ib.push(Stmt::Break { cond: inner_brk.0, levels: inner_brk.1 });
        ib.push(Stmt::Store { slot: 1, var: 2 });
        ib.push(Stmt::Return { cond: inner_ret, style: 0 });
        body.push(Stmt::Loop { trip: inner_trip, mask: 3, bottom_test: styles.1, body: ib });
        body.push(Stmt::Store { slot: 0, var: 3 });
        // Variable 0 is the global thread id: the trip count differs per lane.
        let mut prog = vec![Stmt::Loop { trip: 0, mask: 7, bottom_test: styles.0, body }];
        prog.extend(post);
        run_case(&Case { body: prog, input: input.0, grid, block, warp })?;
    }
}

/// A fixed program through the same harness (a quick smoke test of the
/// generator and reference, independent of the random search).
#[test]
fn fixed_divergent_loop() {
    let c = |cmp, a, b| Cond { cmp, a, b };
    let body = vec![Stmt::Loop {
        trip: 0,
        mask: 7,
        bottom_test: false,
        body: vec![
            Stmt::Assign {
                dst: 2,
                op: BinOp::Add,
                a: 2,
                b: Opnd::Var(0),
            },
            Stmt::Return {
                cond: c(Cmp::Eq, 0, Opnd::Const(13)),
                style: 0,
            },
            Stmt::Break {
                cond: c(Cmp::Hi, 2, Opnd::Const(40)),
                levels: 0,
            },
            Stmt::Store { slot: 0, var: 2 },
        ],
    }];
    let input: Vec<u32> = (0..IN_LEN as u32).collect();
    run_case(&Case {
        body,
        input,
        grid: 2,
        block: 64,
        warp: 32,
    })
    .unwrap();
}
