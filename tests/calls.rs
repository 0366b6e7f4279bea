//! Device functions and calls: the nvcc-compiled `kernels/cuda/call_*.cu`
//! kernels (verbatim PTX) checked against CPU references written here,
//! functional and timed; the linked representation; SIMT reconvergence
//! across calls against a per-thread scalar model (seeded random inputs,
//! several warp sizes); call diagnostics and run-time call errors.

use std::path::{Path, PathBuf};

use gpusim::config::GpuConfig;
use gpusim::ir::call::Callee;
use gpusim::ir::{InstId, Opcode};
use gpusim::timing::run_timed;
use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host, download, upload};
use gpusim::workload::runner::{prepare, run_functional};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cuda(name: &str) -> PathBuf {
    root().join("kernels/cuda").join(name)
}

// ------------------------------------------------ CPU references (C semantics)

fn poly(x: i32, bias: i32) -> i32 {
    x.wrapping_mul(x)
        .wrapping_add(3i32.wrapping_mul(x))
        .wrapping_add(bias)
}

fn collatz_steps(mut x: i32) -> i32 {
    let mut s = 0;
    while x != 1 && s < 64 {
        x = if x & 1 != 0 {
            x.wrapping_mul(3).wrapping_add(1)
        } else {
            x >> 1
        };
        s += 1;
    }
    s
}

fn halve_or_negate(x: i32) -> i32 {
    if x > 50 { x / 2 } else { x.wrapping_neg() }
}

fn fib(n: i32) -> i32 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

fn local_sum(depth: i32, seed: i32) -> i32 {
    let buf: Vec<i32> = (0..4)
        .map(|k| seed.wrapping_mul(k + 1).wrapping_add(depth))
        .collect();
    let below = if depth > 0 {
        local_sum(depth - 1, seed + 1)
    } else {
        0
    };
    buf.iter().fold(0i32, |a, &b| a.wrapping_add(b)) + below
}

fn table_op(sel: i32, a: i32, b: i32) -> i32 {
    match sel & 3 {
        0 => a.wrapping_add(b),
        1 => a.wrapping_sub(b),
        2 => a.wrapping_mul(b),
        _ => a.max(b),
    }
}

/// The `expect` list of buffer `name` in a manifest.
fn manifest_expect(manifest: &Path, name: &str) -> Vec<i32> {
    let t: toml::Table = std::fs::read_to_string(manifest).unwrap().parse().unwrap();
    let bufs = t["buffers"].as_array().unwrap();
    let b = bufs
        .iter()
        .find(|b| b["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no buffer {name}"));
    b["expect"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_integer().unwrap() as i32)
        .collect()
}

/// Every expectation a shipped call kernel's manifest holds, from the CPU
/// references above (inputs as the manifests declare them).
fn references() -> Vec<(&'static str, &'static str, Vec<i32>)> {
    let simple = (0..200).map(|i| poly(-100 + i, 7)).collect();
    let divergent = (0..100)
        .map(|i| {
            let v = 1 + 7 * i;
            if i & 1 == 1 {
                collatz_steps(v)
            } else {
                halve_or_negate(v) + 1000
            }
        })
        .collect();
    let fibs = (0..70).map(|i| fib((3 * i) & 15)).collect();
    let sums = (0..70).map(|i| local_sum((3 * i) & 7, i)).collect();
    let ptrs = (0..100)
        .map(|i| table_op(5 * i, 100 + 3 * i, -20 + i))
        .collect();
    vec![
        ("call_simple", "out", simple),
        ("call_divergent", "out", divergent),
        ("call_recursive", "fib", fibs),
        ("call_recursive", "sum", sums),
        ("call_pointer", "out", ptrs),
    ]
}

#[test]
fn manifest_expectations_match_the_cpu_references() {
    for (kernel, buf, want) in references() {
        let got = manifest_expect(&cuda(&format!("{kernel}.toml")), buf);
        assert_eq!(got, want, "{kernel}.toml buffer {buf}");
    }
    // A few values checked by hand: fib(15) = 610; poly(-100) = 9707;
    // collatz_steps(8) = 3; table_op(5, 103, -19) = 103 - (-19) = 122.
    assert_eq!(fib(15), 610);
    assert_eq!(poly(-100, 7), 10000 - 300 + 7);
    assert_eq!(collatz_steps(8), 3);
    assert_eq!(table_op(5, 103, -19), 122);
}

const KERNELS: [&str; 4] = [
    "call_simple",
    "call_divergent",
    "call_recursive",
    "call_pointer",
];

#[test]
fn call_kernels_pass_functionally() {
    for k in KERNELS {
        let p = prepare(&cuda(&format!("{k}.toml")), None).unwrap_or_else(|e| panic!("{k}: {e:?}"));
        let r = run_functional(&p, &[], FunctionalOptions::default(), None)
            .unwrap_or_else(|e| panic!("{k}: {e:?}"));
        assert!(r.check.passed(), "{k}: {}", r.check);
    }
}

#[test]
fn call_kernels_pass_timed() {
    for (k, cfg) in KERNELS
        .iter()
        .flat_map(|k| [(k, GpuConfig::gtx480()), (k, GpuConfig::tiny())])
    {
        let p = prepare(&cuda(&format!("{k}.toml")), None).unwrap();
        for sched in ["gto", "lrr"] {
            let r = run_timed(&p, &[], &cfg, sched, "lrr").unwrap_or_else(|e| panic!("{k}: {e:?}"));
            assert!(r.check.passed(), "{k} {sched}: {}", r.check);
            assert!(r.stats.cycles > 0);
        }
    }
}

#[test]
fn timed_calls_jump_to_the_callee_and_return_after_the_call() {
    // In the issue log of each warp, a `call` is followed by the callee's
    // first instruction and the callee's `ret` by the instruction after the
    // call; the fetch redirects flush the I-buffer as taken branches do.
    let p = prepare(&cuda("call_simple.toml"), None).unwrap();
    let prog = gpusim::load(&cuda("call_simple.ptx")).unwrap();
    let k = &prog.module.kernels[0];
    let call = k.insts.iter().position(|i| i.op == Opcode::Call).unwrap() as u32;
    let f = &k.funcs[0];
    let r = gpusim::timing::run_timed_with(
        &p,
        &[],
        &GpuConfig::gtx480(),
        &gpusim::timing::Policies::sched("gto"),
        true,
    )
    .unwrap();
    assert!(r.check.passed());
    let mut warps: std::collections::BTreeMap<([u32; 3], u32), Vec<u32>> = Default::default();
    for rec in &r.issue_log {
        warps.entry((rec.cta, rec.warp)).or_default().push(rec.pc);
    }
    let mut calls = 0;
    for pcs in warps.values() {
        for w in pcs.windows(2) {
            if w[0] == call {
                assert_eq!(w[1], f.entry.0);
                calls += 1;
            }
            if w[0] == f.end.0 - 1 {
                assert_eq!(w[1], call + 1);
            }
        }
    }
    // 200 threads in 7 warps with threads, each calls once.
    assert_eq!(calls, 7);
}

// ------------------------------------------------------------ representation

#[test]
fn nvcc_call_shapes_are_linked_after_the_entry() {
    let text = std::fs::read_to_string(cuda("call_pointer.ptx")).unwrap();
    assert!(text.contains("Generated by NVIDIA NVVM Compiler"));
    assert!(text.contains(".callprototype"));
    assert!(text.contains("callseq"));
    let p = gpusim::load(&cuda("call_pointer.ptx")).unwrap();
    let k = &p.module.kernels[0];
    assert_eq!(k.funcs.len(), 4);
    let names: Vec<&str> = k.funcs.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["_Z6op_addii", "_Z6op_subii", "_Z6op_mulii", "_Z6op_maxii"]
    );
    // The entry's instructions come first; functions follow contiguously.
    assert_eq!(k.funcs[0].entry, k.entry_end());
    for w in k.funcs.windows(2) {
        assert_eq!(w[0].end, w[1].entry);
    }
    assert_eq!(k.funcs[3].end.0 as usize, k.insts.len());
    // One indirect call whose target is a register.
    assert_eq!(k.calls.len(), 1);
    assert!(matches!(k.calls[0].callee, Callee::Indirect(_)));
    assert!(k.funcs.iter().all(|f| !f.recursive));
    // Each function's first block is its own region: only `ret` leaves it.
    let a = &p.analyses[0];
    for f in &k.funcs {
        let b = a.cfg.block_of(f.entry);
        assert_eq!(a.cfg.blocks[b.index()].start, f.entry);
        assert!(a.cfg.blocks[b.index()].preds.is_empty());
        assert_eq!(a.postdom.ipdom(b), None, "a straight-line function");
    }
    // `mov.u64 %rd, _Z6op_subii` holds the function's address.
    let movs: Vec<u64> = k
        .insts
        .iter()
        .filter(|i| i.op == Opcode::Mov)
        .filter_map(|i| match i.src[0] {
            gpusim::ir::Operand::Imm(v) => Some(v),
            _ => None,
        })
        .collect();
    for f in &k.funcs {
        assert!(movs.contains(&f.address()), "{}", f.name);
    }
}

#[test]
fn recursion_is_found_and_callee_loops_are_analysed() {
    let p = gpusim::load(&cuda("call_recursive.ptx")).unwrap();
    let k = &p.module.kernels[0];
    assert!(k.funcs.iter().all(|f| f.recursive));
    // local_sum's `__local_depot` is a per-call local variable.
    let ls = k.funcs.iter().find(|f| f.name == "_Z9local_sumii").unwrap();
    assert!(
        ls.locals
            .iter()
            .any(|v| k.vars[v.0 as usize].name == "__local_depot1")
    );
    let p = gpusim::load(&cuda("call_divergent.ptx")).unwrap();
    let k = &p.module.kernels[0];
    let a = &p.analyses[0];
    let collatz = k
        .funcs
        .iter()
        .find(|f| f.name == "_Z13collatz_stepsi")
        .unwrap();
    assert!(!collatz.recursive);
    assert_eq!(a.loops.loops.len(), 1, "the loop inside collatz_steps");
    let l = &a.loops.loops[0];
    assert!(l.begin >= collatz.entry && l.end < collatz.end);
    // Existing kernels keep their ids: a kernel without calls links nothing.
    let p = gpusim::load(&root().join("kernels/spmv_scalar.ptx")).unwrap();
    assert!(p.module.kernels[0].funcs.is_empty());
    assert_eq!(
        p.module.kernels[0].entry_end(),
        InstId(p.module.kernels[0].insts.len() as u32)
    );
}

// ----------------------------------------------------- scalar-model property

/// Hand-written PTX exercising everything at once: a recursive function
/// that diverges inside, returns early from one path with a guarded `ret`
/// and uses its registers after the recursive call; a guarded call; an
/// indirect call whose targets differ per lane, one of which `exit`s some
/// threads inside the callee; old-style `.reg` parameters.
const MIX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.func (.param .b32 r) f(.param .b32 x, .param .b32 d)
{
    .reg .b32 %x, %d, %t, %u;
    .reg .pred %p, %q;
    ld.param.b32 %x, [x];
    ld.param.b32 %d, [d];
    setp.ge.u32 %p, %d, 5;
    @%p bra DONE;
    and.b32 %t, %x, 3;
    setp.eq.u32 %q, %t, 0;
    @%q bra QUAD;
    shr.u32 %u, %x, 1;
    add.u32 %t, %d, 1;
    {
    .param .b32 a0;
    .param .b32 a1;
    .param .b32 r0;
    st.param.b32 [a0], %u;
    st.param.b32 [a1], %t;
    call.uni (r0), f, (a0, a1);
    ld.param.b32 %u, [r0];
    }
    mad.lo.u32 %x, %u, 3, %x;
    bra.uni DONE;
QUAD:
    and.b32 %t, %x, 7;
    setp.eq.u32 %q, %t, 0;
    add.u32 %u, %x, 100;
    @%q st.param.b32 [r], %u;
    @%q ret;
    xor.b32 %x, %x, 85;
DONE:
    st.param.b32 [r], %x;
    ret;
}

.func (.param .b32 r) g(.param .b32 x)
{
    .reg .b32 %x, %t;
    .reg .pred %p;
    ld.param.b32 %x, [x];
    rem.u32 %t, %x, 5;
    setp.eq.u32 %p, %t, 0;
    @%p exit;
    mul.lo.u32 %x, %x, 7;
    st.param.b32 [r], %x;
    ret;
}

.func (.param .b32 r) h(.param .b32 x)
{
    .reg .b32 %x;
    ld.param.b32 %x, [x];
    sub.u32 %x, %x, 9;
    st.param.b32 [r], %x;
    ret;
}

.func (.reg .b32 %rv) twice(.reg .b32 %a)
{
    add.u32 %rv, %a, %a;
    ret;
}

.visible .entry mix(.param .u64 in, .param .u64 out, .param .u32 n)
{
    .reg .b32 %r<13>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r12, [n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r1, %r2, %r3;
    setp.ge.u32 %p3, %r4, %r12;
    @%p3 ret;
    mul.wide.u32 %rd3, %r4, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.u32 %r6, 1;
    and.b32 %r7, %r5, 64;
    setp.ne.u32 %p1, %r7, 0;
    {
    .param .b32 a0;
    .param .b32 a1;
    .param .b32 r0;
    st.param.b32 [a0], %r5;
    mov.u32 %r8, 0;
    st.param.b32 [a1], %r8;
    @%p1 call (r0), f, (a0, a1);
    @%p1 ld.param.b32 %r6, [r0];
    }
    mov.u64 %rd5, g;
    mov.u64 %rd6, h;
    and.b32 %r7, %r5, 32;
    setp.ne.u32 %p2, %r7, 0;
    selp.b64 %rd7, %rd5, %rd6, %p2;
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r5;
    call (r0), %rd7, (a0), prototype_0;
    ld.param.b32 %r9, [r0];
    }
    call.uni (%r10), twice, (%r9);
    add.u32 %r11, %r6, %r10;
    add.u64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r11;
    ret;
}
"#;

fn f_ref(x: u32, d: u32) -> u32 {
    if d >= 5 {
        return x;
    }
    if x & 3 != 0 {
        let u = f_ref(x >> 1, d + 1);
        return u.wrapping_mul(3).wrapping_add(x);
    }
    if x & 7 == 0 {
        return x.wrapping_add(100);
    }
    x ^ 85
}

/// The output word of one thread (`None`: it exited inside `g`).
fn mix_ref(x: u32) -> Option<u32> {
    let a = if x & 64 != 0 { f_ref(x, 0) } else { 1 };
    let b = if x & 32 != 0 {
        if x.is_multiple_of(5) {
            return None;
        }
        x.wrapping_mul(7)
    } else {
        x.wrapping_sub(9)
    };
    Some(a.wrapping_add(b.wrapping_add(b)))
}

const SENTINEL: u32 = 0xDEAD_BEEF;

fn run_mix(input: &[u32], block: u32, warp: u32) -> Result<(), TestCaseError> {
    let p =
        gpusim::compile(gpusim::SourceFile::new("mix.ptx", MIX)).unwrap_or_else(|d| panic!("{d}"));
    let opts = FunctionalOptions {
        warp_size: warp,
        step_limit: 10_000_000,
        ..FunctionalOptions::default()
    };
    let mut host = FunctionalHost::new(&p, 0, opts);
    let n = input.len();
    let grid = (n as u32).div_ceil(block);
    let din = upload(&mut host, "in", input).unwrap();
    let dout = upload(&mut host, "out", &vec![SENTINEL; n]).unwrap();
    host.launch(
        None,
        [grid, 1, 1],
        [block, 1, 1],
        &[
            ArgValue::U64(din),
            ArgValue::U64(dout),
            ArgValue::U32(n as u32),
        ],
    )
    .map_err(|e| TestCaseError::fail(format!("launch failed: {e}")))?;
    let got: Vec<u32> = download(&mut host, dout, n).unwrap();
    for (i, (&g, &x)) in got.iter().zip(input).enumerate() {
        let want = mix_ref(x).unwrap_or(SENTINEL);
        prop_assert_eq!(
            g,
            want,
            "thread {} (warp size {}, block {}) input {:#x}",
            i,
            warp,
            block,
            x
        );
    }
    Ok(())
}

#[test]
fn mixed_calls_match_the_scalar_model_on_chosen_inputs() {
    // Inputs chosen so one warp holds every path: guarded call on and off,
    // f's early return, recursion to the depth limit, g and h, exits.
    let input: Vec<u32> = (0..96u32)
        .map(|i| match i % 6 {
            0 => 64 + 8 * i,        // f: quad, early ret (x % 8 == 0 for even i)
            1 => 64 | 32 | (5 * i), // f and g: g exits when x % 5 == 0
            2 => 0x7f,              // deep recursion
            3 => 32 + i,            // g
            4 => i,                 // h only
            _ => 0xffff - i,
        })
        .collect();
    for warp in [32, 8, 64] {
        run_mix(&input, 96, warp).unwrap();
    }
    // Thread 2's value by hand: x = 0x7f (g path: 0x7f % 5 = 2, 0x7f * 7 = 889):
    // f(127,0) = 3·f(63,1) + 127, f(63,1) = 3·f(31,2) + 63, f(31,2) = 3·f(15,3) + 31,
    // f(15,3) = 3·f(7,4) + 15, f(7,4) = 3·f(3,5) + 7 = 3·3 + 7 = 16 → 63 → 220 → 723 → 2296.
    assert_eq!(f_ref(0x7f, 0), 2296);
    assert_eq!(mix_ref(0x7f), Some(2296 + 2 * 889));
}

fn mix_config() -> ProptestConfig {
    let d = ProptestConfig::default();
    ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            d.cases
        } else {
            64
        },
        rng_seed: match d.rng_seed {
            RngSeed::Random => RngSeed::Fixed(0x5eed_ca11),
            s => s,
        },
        ..d
    }
}

proptest! {
    #![proptest_config(mix_config())]
    #[test]
    fn mixed_calls_match_the_scalar_model(
        input in prop::collection::vec(0u32..4096, 1..150),
        block in prop_oneof![Just(32u32), Just(64u32), Just(48u32)],
        warp in prop_oneof![4 => Just(32u32), 1 => Just(16u32), 1 => Just(64u32)],
    ) {
        run_mix(&input, block, warp)?;
    }
}

// ------------------------------------------------------------- diagnostics

fn diags(src: &str) -> String {
    match gpusim::compile(gpusim::SourceFile::new("t.ptx", src)) {
        Ok(_) => panic!("compiled:\n{src}"),
        Err(d) => d
            .list
            .iter()
            .map(|d| format!("{}: {}\n", d.code, d.message))
            .collect(),
    }
}

const FUNC_HEAD: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
.func (.param .b32 r) addone(.param .b32 x)\n{\n .reg .b32 %x;\n ld.param.b32 %x, [x];\n add.u32 %x, %x, 1;\n st.param.b32 [r], %x;\n ret;\n}\n";

fn with_call(call: &str) -> String {
    format!(
        "{FUNC_HEAD}.visible .entry k()\n{{\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n {{\n .param .b32 p0;\n .param .b64 p1;\n .param .b32 q0;\n {call}\n }}\n ret;\n}}\n"
    )
}

#[test]
fn call_diagnostics_name_the_problem() {
    let d = diags(&with_call("call.uni (q0), addone, (p0, p0);"));
    assert!(
        d.contains("gpusim::lower::call_arguments: the call passes 2 arguments, `addone` takes 1"),
        "{d}"
    );
    let d = diags(&with_call("call.uni (q0), addone, (p1);"));
    assert!(
        d.contains("argument 1 of the call is 8 bytes, `addone` declares 4 bytes"),
        "{d}"
    );
    let d = diags(&with_call("call.uni addone, (p0);"));
    assert!(
        d.contains("the call passes 0 return values, `addone` takes 1"),
        "{d}"
    );
    let d = diags(&with_call("call.uni (q0), addon, (p0);"));
    assert!(
        d.contains(
            "gpusim::lower::unknown_callee: call to `addon`, which is not a function of this module"
        ),
        "{d}"
    );
    let d = diags(&with_call("call (q0), %rd1, (p0), proto;"));
    assert!(
        d.contains("gpusim::lower::undefined_symbol: prototype `proto` is not declared"),
        "{d}"
    );
    let d = diags(&with_call("call (q0), %rd1, (p0);"));
    assert!(
        d.contains("gpusim::lower::prototype_mismatch: an indirect call needs a `.callprototype`"),
        "{d}"
    );
    let d = diags(&with_call("call (q0), %r1, (p0), p;"));
    assert!(d.contains("function addresses are 64-bit"), "{d}");
    let d = diags(&with_call("call.uni.foo (q0), addone, (p0);"));
    assert!(
        d.contains("gpusim::lower::unsupported_modifier: `call` does not take `.foo`"),
        "{d}"
    );
    // A prototype that disagrees with the call.
    let d = diags(&with_call(
        "pr: .callprototype (.param .b32 _) _ (.param .b64 _);\n call (q0), %rd1, (p0), pr;",
    ));
    assert!(
        d.contains("argument 1 of the call is 4 bytes, `pr` declares 8 bytes"),
        "{d}"
    );
    // `st.param` may write call-site parameters, never the kernel's.
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u32 a)\n{\n .reg .b32 %r1;\n mov.u32 %r1, 0;\n st.param.u32 [a], %r1;\n ret;\n}\n";
    assert!(
        diags(src).contains("gpusim::lower::bad_state_space"),
        "{}",
        diags(src)
    );
}

#[test]
fn calling_a_declared_but_undefined_function_is_an_error() {
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
.extern .func (.param .b32 r) ext(.param .b32 x);\n\
.visible .entry k()\n{\n .reg .b32 %r1;\n {\n .param .b32 p0;\n .param .b32 q0;\n call.uni (q0), ext, (p0);\n }\n ret;\n}\n";
    let d = diags(src);
    assert!(
        d.contains("gpusim::lower::undefined_function: `ext` is declared but has no body"),
        "{d}"
    );
    // Declared without a body and never called: fine.
    let ok = ".version 7.0\n.target sm_70\n.address_size 64\n\
.extern .func (.param .b32 r) ext(.param .b32 x);\n.visible .entry k()\n{\n ret;\n}\n";
    assert!(gpusim::compile(gpusim::SourceFile::new("t.ptx", ok)).is_ok());
    // A declaration then a definition with other parameters.
    let bad = ".version 7.0\n.target sm_70\n.address_size 64\n\
.func (.param .b32 r) f(.param .b32 x);\n.func (.param .b32 r) f(.param .b64 x)\n{\n ret;\n}\n.visible .entry k()\n{\n ret;\n}\n";
    assert!(
        diags(bad).contains("gpusim::lower::prototype_mismatch"),
        "{}",
        diags(bad)
    );
}

// ------------------------------------------------------------ run-time errors

fn launch_err(src: &str, input: &[u32]) -> String {
    let p =
        gpusim::compile(gpusim::SourceFile::new("e.ptx", src)).unwrap_or_else(|d| panic!("{d}"));
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let din = upload(&mut host, "in", input).unwrap();
    match host.launch(None, [1, 1, 1], [32, 1, 1], &[ArgValue::U64(din)]) {
        Ok(_) => panic!("launch succeeded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn unbounded_recursion_is_a_stack_overflow_naming_function_pc_and_line() {
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
.func forever()\n{\n call.uni forever;\n ret;\n}\n\
.visible .entry k(.param .u64 in)\n{\n call.uni forever;\n ret;\n}\n";
    let e = launch_err(src, &[0]);
    assert!(
        e.contains("call stack overflow: calling `forever` would nest more than 1024 calls"),
        "{e}"
    );
    // The call inside `forever`: the entry has 2 instructions, so forever
    // starts at instruction 2 (PC 0x10); source line 6.
    assert!(e.contains("PC 0x10 (instruction 2, line 6"), "{e}");
}

#[test]
fn an_indirect_call_through_a_non_function_is_an_error() {
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
.func f()\n{\n ret;\n}\n\
.visible .entry k(.param .u64 in)\n{\n .reg .b64 %rd<3>;\n pr: .callprototype _ ();\n mov.u64 %rd1, f;\n ld.param.u64 %rd2, [in];\n call %rd1, pr;\n call %rd2, pr;\n ret;\n}\n";
    let e = launch_err(src, &[0]);
    assert!(e.contains("indirect call to 0x"), "{e}");
    assert!(e.contains("not the address of a function"), "{e}");
    assert!(
        e.contains("instruction 3, line 15: `call %rd2, pr;`"),
        "{e}"
    );
    assert!(e.contains("indirect call to 0x10000000"), "{e}");
}

#[test]
fn mixed_calls_pass_timed() {
    // The scalar-model kernel through the timing model (threads exiting
    // inside a callee, per-lane indirect targets, recursion), via a buffers
    // manifest whose expectations come from `mix_ref`.
    let input: Vec<u32> = (0..150u32).map(|i| (i * 2654435761u32) >> 20).collect();
    let want: Vec<u32> = input
        .iter()
        .map(|&x| mix_ref(x).unwrap_or(SENTINEL))
        .collect();
    let dir = std::env::temp_dir().join(format!("gpusim-calls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mix.ptx"), MIX).unwrap();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("in.bin"), bytes).unwrap();
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let manifest = format!(
        "ptx = \"mix.ptx\"\nworkload = \"buffers\"\ngrid = [3, 1, 1]\nblock = [64, 1, 1]\n\
         params = [\"in\", \"out\", {{ u32 = 150 }}]\n\
         [[buffers]]\nname = \"in\"\ntype = \"u32\"\nlen = 150\ninit = \"file\"\npath = \"in.bin\"\n\
         [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 150\ninit = \"fill\"\nvalue = {SENTINEL}\n\
         expect = [{}]\n",
        list(&want)
    );
    std::fs::write(dir.join("mix.toml"), manifest).unwrap();
    let p = prepare(&dir.join("mix.toml"), None).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(want.contains(&SENTINEL) && want.iter().any(|&w| w != SENTINEL));
    for cfg in [GpuConfig::gtx480(), GpuConfig::tiny()] {
        let r = run_timed(&p, &[], &cfg, "gto", "lrr").unwrap_or_else(|e| panic!("{e:?}"));
        assert!(r.check.passed(), "{}", r.check);
    }
    let r = run_functional(&p, &[], FunctionalOptions::default(), None).unwrap();
    assert!(r.check.passed(), "{}", r.check);
    let _ = std::fs::remove_dir_all(&dir);
}
