//! Manifests that say what real host programs do: launch sequences and host
//! loops, loop counters as parameters, ping-pong buffers, symbol
//! initialization, dynamic shared memory, register counts, dumps, CLI
//! overrides and per-launch statistics. Every expected value is computed
//! here independently of the simulator.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpusim::workload::Check;
use gpusim::workload::host::FunctionalOptions;
use gpusim::workload::runner::{RunError, prepare, run_functional};

/// Hand-written kernels for the host programs below.
const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.const .align 4 .f32 c_coef[4];
.global .align 4 .u32 g_acc[2] = {5, 6};
.extern .shared .align 4 .b8 dsh[];

// Thread 0: counter[0] -= 1; hits[0] += 1.
.visible .entry dec_count(.param .u64 counter, .param .u64 hits)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [counter];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u64 %rd3, [hits];
    cvta.to.global.u64 %rd4, %rd3;
    ld.global.u32 %r2, [%rd2];
    sub.u32 %r3, %r2, 1;
    st.global.u32 [%rd2], %r3;
    ld.global.u32 %r4, [%rd4];
    add.u32 %r5, %r4, 1;
    st.global.u32 [%rd4], %r5;
DONE:
    ret;
}

// Thread 0: out[i] = v.
.visible .entry put(.param .u64 out, .param .u32 i, .param .u32 v)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u32 %r2, [i];
    ld.param.u32 %r3, [v];
    mul.wide.u32 %rd3, %r2, 4;
    add.u64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r3;
DONE:
    ret;
}

// `put` compiled with a register cap.
.visible .entry put_capped(.param .u64 out, .param .u32 i, .param .u32 v)
.maxnreg 4
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u32 %r2, [i];
    ld.param.u32 %r3, [v];
    mul.wide.u32 %rd3, %r2, 4;
    add.u64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r3;
DONE:
    ret;
}

// dst[g] = src[g] + 1 for every global thread index g < n.
.visible .entry step(.param .u64 src, .param .u64 dst, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    ld.param.u32 %r5, [n];
    setp.ge.u32 %p1, %r4, %r5;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [src];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u64 %rd3, [dst];
    cvta.to.global.u64 %rd4, %rd3;
    mul.wide.u32 %rd5, %r4, 4;
    add.u64 %rd6, %rd2, %rd5;
    ld.global.u32 %r6, [%rd6];
    add.u32 %r7, %r6, 1;
    add.u64 %rd7, %rd4, %rd5;
    st.global.u32 [%rd7], %r7;
DONE:
    ret;
}

// sh[t] = 2t in dynamic shared memory; out[t] = sh[(t+1) % ntid] + %dynamic_smem_size.
.visible .entry rotate(.param .u64 out)
{
    .reg .b32 %r<10>;
    .reg .b64 %rd<5>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, dsh;
    add.u32 %r5, %r4, %r3;
    shl.b32 %r6, %r1, 1;
    st.shared.u32 [%r5], %r6;
    bar.sync 0;
    add.u32 %r7, %r1, 1;
    rem.u32 %r7, %r7, %r2;
    shl.b32 %r7, %r7, 2;
    add.u32 %r7, %r4, %r7;
    ld.shared.u32 %r8, [%r7];
    mov.u32 %r9, %dynamic_smem_size;
    add.u32 %r8, %r8, %r9;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r8;
    ret;
}

// out[t] = c_coef[t % 4] * t; thread 0: g_acc[1] += g_acc[0].
.visible .entry use_sym(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    mov.u64 %rd1, c_coef;
    mul.wide.u32 %rd2, %r2, 4;
    add.u64 %rd3, %rd1, %rd2;
    ld.const.f32 %f1, [%rd3];
    cvt.rn.f32.u32 %f2, %r1;
    mul.f32 %f3, %f1, %f2;
    ld.param.u64 %rd4, [out];
    cvta.to.global.u64 %rd5, %rd4;
    mul.wide.u32 %rd6, %r1, 4;
    add.u64 %rd7, %rd5, %rd6;
    st.global.f32 [%rd7], %f3;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.global.u32 %r3, [g_acc];
    ld.global.u32 %r4, [g_acc+4];
    add.u32 %r5, %r3, %r4;
    st.global.u32 [g_acc+4], %r5;
DONE:
    ret;
}

// Compiled for exactly 64 threads per CTA.
.visible .entry fixed(.param .u64 out)
.reqntid 64, 1, 1
{
    ret;
}
"#;

/// A scratch directory with `k.ptx` and `m.toml`; removed when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str, manifest: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("gpusim-manifests-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("k.ptx"), PTX).unwrap();
        std::fs::write(
            dir.join("m.toml"),
            format!("ptx = \"k.ptx\"\nworkload = \"buffers\"\n{manifest}"),
        )
        .unwrap();
        Scratch { dir }
    }

    fn manifest(&self) -> PathBuf {
        self.dir.join("m.toml")
    }

    fn path(&self, f: &str) -> PathBuf {
        self.dir.join(f)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn functional(
    m: &Path,
    args: &[(&str, &str)],
) -> Result<gpusim::workload::runner::FunctionalRun, String> {
    let p = prepare(m, None).map_err(|e| format!("{e:?}"))?;
    let args: Vec<(String, String)> = args
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    run_functional(&p, &args, FunctionalOptions::default(), None).map_err(|e| match e {
        RunError::Workload(w) => w.to_string(),
        e => format!("{e:?}"),
    })
}

fn timed(m: &Path) -> Result<gpusim::timing::TimedRun, String> {
    timed_with(m, &[])
}

/// [`timed`] with config overrides (`--set` strings).
fn timed_with(m: &Path, sets: &[&str]) -> Result<gpusim::timing::TimedRun, String> {
    let p = prepare(m, None).map_err(|e| format!("{e:?}"))?;
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|s| {
            let (k, v) = s.split_once('=').expect("KEY=VALUE");
            (k.to_string(), v.to_string())
        })
        .collect();
    let cfg = gpusim::config::load_config("tiny", &sets).unwrap();
    gpusim::timing::run_timed(&p, &[], &cfg, "gto", "lrr").map_err(|e| match e {
        RunError::Workload(w) => w.to_string(),
        e => format!("{e:?}"),
    })
}

fn gpusim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn toml_list<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(T::to_string).collect();
    format!("[{}]", items.join(", "))
}

const COUNTER: &str = "grid = [1, 1, 1]\nblock = [32, 1, 1]\n\
    [[buffers]]\nname = \"counter\"\ntype = \"u32\"\nlen = 1\ninit = \"fill\"\nvalue = 7\nexpect = [0]\n\
    [[buffers]]\nname = \"hits\"\ntype = \"u32\"\nlen = 1\n";

#[test]
fn until_loop_runs_until_the_kernel_zeroes_the_counter() {
    // The kernel decrements the counter once per launch: from 7 to 0 takes
    // exactly 7 iterations, which `hits` (incremented once per launch)
    // must say.
    let s = Scratch::new(
        "until",
        &format!(
            "{COUNTER}expect = [7]\n\
             [[launch]]\nloop = \"i\"\nuntil = {{ buffer = \"counter\", index = 0, equals = 0 }}\n\
             [[launch.body]]\nentry = \"dec_count\"\nparams = [\"counter\", \"hits\"]\n"
        ),
    );
    let r = functional(&s.manifest(), &[]).unwrap();
    assert_eq!(r.check, Check::Pass, "{}", r.check);
    assert_eq!(r.launches, 7);
    // The timing model runs the same host program.
    let t = timed(&s.manifest()).unwrap();
    assert_eq!(t.check, Check::Pass, "{}", t.check);
    assert_eq!(t.stats.launches.len(), 7);
}

#[test]
fn while_loop_with_host_writes_before_each_iteration() {
    // BFS-style: before each iteration the host sets hits[0] = 100 + i;
    // the loop runs while counter != 0, so after the last (7th) iteration
    // (i = 6) hits = 106 + 1.
    let s = Scratch::new(
        "while",
        &format!(
            "{COUNTER}expect = [107]\n\
             [[launch]]\nloop = \"i\"\nwhile = {{ buffer = \"counter\", not_equals = 0 }}\n\
             before = [{{ set = \"hits\", index = 0, value = \"100 + $i\" }}]\n\
             [[launch.body]]\nentry = \"dec_count\"\nparams = [\"counter\", \"hits\"]\n"
        ),
    );
    let r = functional(&s.manifest(), &[]).unwrap();
    assert_eq!(r.check, Check::Pass, "{}", r.check);
    assert_eq!(r.launches, 7);
}

#[test]
fn a_loop_that_never_finishes_is_an_error_at_max_iterations() {
    let s = Scratch::new(
        "runaway",
        &format!(
            "{COUNTER}\
             [[launch]]\nloop = \"i\"\nmax_iterations = 10\nuntil = {{ buffer = \"counter\", equals = 4000000000 }}\n\
             [[launch.body]]\nentry = \"dec_count\"\nparams = [\"counter\", \"hits\"]\n"
        ),
    );
    let e = functional(&s.manifest(), &[]).unwrap_err();
    assert!(e.contains("max_iterations = 10"), "{e}");
    assert!(e.contains("until counter[0] == 4000000000"), "{e}");
}

#[test]
fn loop_counters_are_parameters_and_nest() {
    // out[o * 3 + i] = 10 * o + i + 1 for o in 0..$rows, i in 0..3; the
    // loop count and the buffer length follow [args] (and --arg).
    let manifest = "grid = [1, 1, 1]\nblock = [32, 1, 1]\n\
        dump = [{ buffer = \"out\", file = \"out.bin\" }]\n[args]\nrows = 2\n\
        [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = \"$rows * 3\"\n\
        [[launch]]\nloop = \"o\"\ncount = \"$rows\"\n\
        [[launch.body]]\nloop = \"i\"\ncount = 3\n\
        [[launch.body.body]]\nentry = \"put\"\nparams = [\"out\", { u32 = \"$o * 3 + $i\" }, { u32 = \"10 * $o + $i + 1\" }]\n";
    let s = Scratch::new("nested", manifest);
    for rows in [2u32, 5] {
        let r = functional(&s.manifest(), &[("rows", &rows.to_string())]).unwrap();
        assert_eq!(r.check, Check::Skipped);
        assert_eq!(r.launches, u64::from(rows) * 3);
        let expected: Vec<u32> = (0..rows)
            .flat_map(|o| (0..3).map(move |i| 10 * o + i + 1))
            .collect();
        assert_eq!(r.dumps.len(), 1);
        assert_eq!(r.dumps[0].0, s.path("out.bin"));
        assert_eq!(u32s(&r.dumps[0].1), expected);
    }
}

#[test]
fn alternate_swaps_ping_pong_buffers_each_iteration() {
    // a = 0..n; each iteration copies src + 1 to dst, src/dst swapping:
    // iterations 0, 2, 4 write b, 1, 3 write a. After 5 iterations b holds
    // a0 + 5 and a holds a0 + 4.
    let n = 100u32;
    let a: Vec<u32> = (0..n).map(|i| i + 4).collect();
    let b: Vec<u32> = (0..n).map(|i| i + 5).collect();
    let s = Scratch::new(
        "pingpong",
        &format!(
            "block = [64, 1, 1]\n[args]\nn = {n}\n\
             [[buffers]]\nname = \"a\"\ntype = \"u32\"\nlen = \"$n\"\ninit = \"iota\"\nexpect = {}\n\
             [[buffers]]\nname = \"b\"\ntype = \"u32\"\nlen = \"$n\"\nexpect = {}\n\
             [[launch]]\nloop = \"it\"\ncount = 5\n\
             [[launch.body]]\nentry = \"step\"\ngrid = [\"($n + 63) / 64\", 1, 1]\n\
             params = [{{ alternate = [\"a\", \"b\"] }}, {{ alternate = [\"b\", \"a\"] }}, {{ u32 = \"$n\" }}]\n",
            toml_list(&a),
            toml_list(&b)
        ),
    );
    let r = functional(&s.manifest(), &[]).unwrap();
    assert_eq!(r.check, Check::Pass, "{}", r.check);
    assert_eq!(r.ctas, 5 * 2);
}

#[test]
fn symbols_from_inline_values_and_files_with_expectations() {
    let coef = [0.5f32, 2.0, -1.0, 4.0];
    let out: Vec<f32> = (0..32).map(|t| coef[t % 4] * t as f32).collect();
    let base = "entry = \"use_sym\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\nparams = [\"out\"]\n\
        [[buffers]]\nname = \"out\"\ntype = \"f32\"\nlen = 32\n";
    // Inline values; g_acc keeps its declared initializer {5, 6}: 6 + 5.
    let inline = Scratch::new(
        "sym-inline",
        &format!(
            "{base}expect = {}\n\
             [[symbols]]\nname = \"c_coef\"\ntype = \"f32\"\nvalues = {}\n\
             [[symbols]]\nname = \"g_acc\"\ntype = \"u32\"\nexpect = [5, 11]\n",
            toml_list(&out),
            toml_list(&coef)
        ),
    );
    let r = functional(&inline.manifest(), &[]).unwrap();
    assert_eq!(r.check, Check::Pass, "{}", r.check);
    // From a file, and g_acc written by the host: {7, 1} -> {7, 8}; a
    // wrong expectation on the symbol fails naming it.
    let file = Scratch::new(
        "sym-file",
        &format!(
            "{base}expect = {}\n\
             [[symbols]]\nname = \"c_coef\"\ntype = \"f32\"\nfile = \"coef.bin\"\n\
             [[symbols]]\nname = \"g_acc\"\ntype = \"u32\"\nvalues = [7, 1]\nexpect = [7, 9]\n",
            toml_list(&out)
        ),
    );
    let bytes: Vec<u8> = coef.iter().flat_map(|f| f.to_le_bytes()).collect();
    std::fs::write(file.path("coef.bin"), bytes).unwrap();
    let r = functional(&file.manifest(), &[]).unwrap();
    let Check::Fail(m) = &r.check else {
        panic!("{}", r.check)
    };
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].buffer, "g_acc");
    assert_eq!(m[0].first, vec![(1, "9".to_string(), "8".to_string())]);
    // A size that does not match the declaration names both sizes.
    let bad = Scratch::new(
        "sym-size",
        &format!(
            "{base}[[symbols]]\nname = \"c_coef\"\ntype = \"f32\"\nvalues = [1.0, 2.0, 3.0]\n"
        ),
    );
    let e = functional(&bad.manifest(), &[]).unwrap_err();
    assert!(
        e.contains("symbol `c_coef` is declared with 16 bytes (4 × f32), the data has 12 bytes"),
        "{e}"
    );
    let unknown = Scratch::new(
        "sym-unknown",
        &format!("{base}[[symbols]]\nname = \"c_cof\"\ntype = \"f32\"\n"),
    );
    let e = functional(&unknown.manifest(), &[]).unwrap_err();
    assert!(e.contains("declares no module-scope"), "{e}");
}

#[test]
fn dynamic_shared_memory_in_both_modes_and_in_occupancy() {
    let n = 96u32;
    let expected: Vec<u32> = (0..n).map(|t| 2 * ((t + 1) % n) + 4 * n).collect();
    let s = Scratch::new(
        "dynshared",
        &format!(
            "entry = \"rotate\"\ngrid = [3, 1, 1]\nblock = [{n}, 1, 1]\nshared_bytes = {}\nparams = [\"out\"]\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = {n}\nexpect = {}\n",
            4 * n,
            toml_list(&expected)
        ),
    );
    let r = functional(&s.manifest(), &[]).unwrap();
    assert_eq!(r.check, Check::Pass, "{}", r.check);
    let t = timed(&s.manifest()).unwrap();
    assert_eq!(t.check, Check::Pass, "{}", t.check);
    assert_eq!(t.stats.launches[0].shared_bytes, 4 * n);
    // Without the dynamic part the kernel reads past its shared memory.
    let none = Scratch::new(
        "dynshared-none",
        &format!(
            "entry = \"rotate\"\ngrid = [1, 1, 1]\nblock = [{n}, 1, 1]\nparams = [\"out\"]\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = {n}\n"
        ),
    );
    assert!(functional(&none.manifest(), &[]).is_err());
    // More than an SM has (tiny: core.shared_mem_per_sm) cannot launch.
    let cfg = gpusim::config::load_config("tiny", &[]).unwrap();
    let too_big = cfg.core.shared_mem_per_sm + 1;
    let big = Scratch::new(
        "dynshared-big",
        &format!(
            "entry = \"rotate\"\ngrid = [1, 1, 1]\nblock = [{n}, 1, 1]\nshared_bytes = {too_big}\nparams = [\"out\"]\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = {n}\n"
        ),
    );
    let e = timed(&big.manifest()).unwrap_err();
    assert!(
        e.contains(&format!("one CTA needs {too_big} bytes of shared memory")),
        "{e}"
    );
}

#[test]
fn dynamic_shared_memory_limits_resident_ctas() {
    // With a CTA's dynamic shared memory above half of the SM's, only one
    // CTA fits per SM at a time: the launch takes longer than with none.
    let cfg = gpusim::config::load_config("tiny", &[]).unwrap();
    let half = cfg.core.shared_mem_per_sm / 2 + 4;
    let run = |shared: u32| {
        let s = Scratch::new(
            &format!("occupancy-{shared}"),
            &format!(
                "entry = \"rotate\"\ngrid = [8, 1, 1]\nblock = [64, 1, 1]\nshared_bytes = {shared}\nparams = [\"out\"]\n\
                 regs_per_thread = 8\n\
                 [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 64\n"
            ),
        );
        timed(&s.manifest()).unwrap().stats.cycles
    };
    assert!(run(half) > run(256), "one CTA at a time must be slower");
}

#[test]
fn registers_come_from_the_manifest_maxnreg_or_the_estimate() {
    let body = |entry: &str, regs: &str| {
        format!(
            "entry = \"{entry}\"\n{regs}grid = [1, 1, 1]\nblock = [32, 1, 1]\n\
             params = [\"out\", {{ u32 = 1 }}, {{ u32 = 9 }}]\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 2\nexpect = [0, 9]\n"
        )
    };
    let regs = |entry: &str, regs: &str| {
        let s = Scratch::new(&format!("regs-{entry}-{}", regs.len()), &body(entry, regs));
        let t = timed(&s.manifest()).unwrap();
        assert_eq!(t.check, Check::Pass);
        let l = &t.stats.launches[0];
        (l.regs_per_thread, l.regs_source.clone())
    };
    // `put` by hand: at `add.u64 %rd2, %rd2, %rd3` the live values are
    // %rd2, %rd3 (2 each) and %r3 (1) = 5; + the fixed overhead 2 = 7.
    assert_eq!(regs("put", ""), (7, "estimate".to_string()));
    assert_eq!(
        regs("put", "regs_per_thread = 24\n"),
        (24, "manifest".to_string())
    );
    // `.maxnreg 4` caps both.
    assert_eq!(regs("put_capped", ""), (4, "maxnreg".to_string()));
    assert_eq!(
        regs("put_capped", "regs_per_thread = 24\n"),
        (4, "maxnreg".to_string())
    );
    // A count that cannot fit names its source: 2000 × 32 lanes > tiny's
    // 32768 registers per SM.
    let s = Scratch::new("regs-huge", &body("put", "regs_per_thread = 2000\n"));
    let e = timed(&s.manifest()).unwrap_err();
    assert!(
        e.contains("one CTA needs 64000 registers")
            && e.contains("2000 registers per thread, from the manifest's regs_per_thread"),
        "{e}"
    );
}

#[test]
fn reqntid_must_match_the_block() {
    let m = |block: u32| {
        format!(
            "entry = \"fixed\"\ngrid = [1, 1, 1]\nblock = [{block}, 1, 1]\nparams = [\"out\"]\n\
             [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 1\n"
        )
    };
    let ok = Scratch::new("reqntid-ok", &m(64));
    assert_eq!(
        functional(&ok.manifest(), &[]).unwrap().check,
        Check::Skipped
    );
    let bad = Scratch::new("reqntid-bad", &m(128));
    let want = "kernel `fixed` declares `.reqntid 64, 1, 1`, but the launch's block is [128, 1, 1]";
    let e = functional(&bad.manifest(), &[]).unwrap_err();
    assert!(e.contains(want), "{e}");
    let e = timed(&bad.manifest()).unwrap_err();
    assert!(e.contains(want), "{e}");
}

/// `out[g] = in[g] + 1` over a buffer that fits the `tiny` L2, twice.
fn twice_over(name: &str) -> Scratch {
    Scratch::new(
        name,
        "entry = \"step\"\ngrid = [16, 1, 1]\nblock = [256, 1, 1]\n\
         [[buffers]]\nname = \"in\"\ntype = \"u32\"\nlen = 4096\ninit = \"iota\"\n\
         [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 4096\nexpect = { start = 1, step = 1 }\n\
         [[launch]]\nparams = [\"in\", \"out\", { u32 = 4096 }]\n\
         [[launch]]\nparams = [\"in\", \"out\", { u32 = 4096 }]\n",
    )
}

#[test]
fn per_launch_statistics_sum_to_the_totals() {
    let s = twice_over("sums");
    let t = timed(&s.manifest()).unwrap();
    assert_eq!(t.check, Check::Pass, "{}", t.check);
    let st = &t.stats;
    let l = &st.launches;
    assert_eq!(l.len(), 2);
    let sum = |f: &dyn Fn(&gpusim::timing::stats::LaunchStats) -> u64| l.iter().map(f).sum::<u64>();
    assert_eq!(sum(&|x| x.cycles), st.cycles);
    assert_eq!(sum(&|x| x.warp_insts), st.warp_insts);
    assert_eq!(sum(&|x| x.thread_insts), st.thread_insts);
    assert_eq!(sum(&|x| x.ctas), st.total.ctas);
    assert_eq!(sum(&|x| x.l1d_accesses), st.total.l1d.accesses);
    assert_eq!(sum(&|x| x.l1d_misses), st.total.l1d.misses);
    assert_eq!(sum(&|x| x.l2_accesses), st.mem.l2_accesses);
    assert_eq!(sum(&|x| x.l2_hits), st.mem.l2_hits);
    assert_eq!(sum(&|x| x.dram_reads), st.mem.dram_reads);
    assert_eq!(sum(&|x| x.dram_writes), st.mem.dram_writes);
    assert_eq!(sum(&|x| x.stalls.total()), st.stalls.total());
    // Each launch's stall categories sum to schedulers × its cycles.
    for x in l {
        assert_eq!(x.stalls.total(), st.schedulers * x.cycles);
        assert_eq!(x.ctas, 16);
    }
}

#[test]
fn l2_and_dram_state_carry_from_one_launch_to_the_next() {
    // 16 KB read + 16 KB written fit the tiny L2: the first launch misses
    // to DRAM for `in` (its upload kept out of L2), the second finds it in
    // L2.
    let s = twice_over("carry");
    let t = timed_with(&s.manifest(), &["l2.fill_on_copy=false"]).unwrap();
    let l = &t.stats.launches;
    let line = 128; // tiny's line size: 4096 u32 = 128 lines of `in`
    assert!(l[0].dram_reads >= 16384 / line, "{:?}", l[0]);
    assert!(
        l[1].dram_reads < l[0].dram_reads / 4,
        "second launch: {} DRAM reads, first: {}",
        l[1].dram_reads,
        l[0].dram_reads
    );
    assert!(l[1].l2_hits > l[0].l2_hits);
}

#[test]
fn cli_dump_grid_block_and_arg_resize_a_workload() {
    // `step` over n elements; --arg n, --grid and --block resize it and the
    // dumped `out` is compared byte for byte with in + 1.
    let s = Scratch::new(
        "cli",
        "entry = \"step\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
         params = [\"in\", \"out\", { u32 = \"$n\" }]\n[args]\nn = 32\n\
         [[buffers]]\nname = \"in\"\ntype = \"u32\"\nlen = \"$n\"\ninit = \"iota\"\nstart = 3\nstep = 7\n\
         [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = \"$n\"\n",
    );
    let m = s.manifest();
    let out = s.path("out.bin");
    let n = 1000u32;
    let (code, stdout, err) = gpusim(&[
        "run",
        m.to_str().unwrap(),
        "--functional",
        "--arg",
        &format!("n={n}"),
        "--grid",
        "4",
        "--block",
        "256,1,1",
        "--dump",
        &format!("out={}", out.display()),
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(
        stdout.contains("check     SKIPPED (no expectation)"),
        "{stdout}"
    );
    assert!(stdout.contains("1 launch, 4 CTAs"), "{stdout}");
    let expected: Vec<u8> = (0..n).flat_map(|i| (3 + 7 * i + 1).to_le_bytes()).collect();
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    // Too small a grid leaves the tail unwritten (zero).
    let (code, _, _) = gpusim(&[
        "run",
        m.to_str().unwrap(),
        "--functional",
        "--arg",
        &format!("n={n}"),
        "--grid",
        "2",
        "--block",
        "256",
        "--dump",
        &format!("out={}", out.display()),
    ]);
    assert_eq!(code, 0);
    let got = u32s(&std::fs::read(&out).unwrap());
    assert_eq!(got.len(), n as usize);
    assert_eq!(got[511], 3 + 7 * 511 + 1);
    assert_eq!(got[512], 0);
    // An unknown name lists the names; an unwritable file fails first.
    let (code, _, err) = gpusim(&[
        "run",
        m.to_str().unwrap(),
        "--functional",
        "--dump",
        &format!("ot={}", out.display()),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot dump `ot`: no buffer of that name (did you mean `out`?)")
            && err.contains("`in`, `out`"),
        "{err}"
    );
    let (code, stdout, err) = gpusim(&[
        "run",
        m.to_str().unwrap(),
        "--dump",
        "out=/nonexistent-dir/x.bin",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot write /nonexistent-dir/x.bin"), "{err}");
    assert!(stdout.is_empty(), "nothing ran: {stdout}");
}

#[test]
fn cli_skipped_check_in_text_and_json_and_launch_list() {
    let s = twice_over("cli-json");
    // Drop the expectation: the check is skipped.
    let text = std::fs::read_to_string(s.manifest())
        .unwrap()
        .replace("expect = { start = 1, step = 1 }\n", "");
    std::fs::write(s.manifest(), text).unwrap();
    let json = s.path("s.json");
    let (code, out, err) = gpusim(&[
        "run",
        s.manifest().to_str().unwrap(),
        "--config",
        "tiny",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("check     SKIPPED (no expectation)"), "{out}");
    assert!(out.contains("registers step: "), "{out}");
    assert!(out.contains("(estimate)"), "{out}");
    assert!(out.contains("launch 0  step [16,1,1]x[256,1,1]: "), "{out}");
    assert!(out.contains("launch 1  step [16,1,1]x[256,1,1]: "), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["check"], "skipped");
    let launches = v["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 2);
    let cycles: u64 = launches.iter().map(|l| l["cycles"].as_u64().unwrap()).sum();
    assert_eq!(cycles, v["cycles"].as_u64().unwrap());
    for k in [
        "kernel",
        "grid",
        "block",
        "warp_insts",
        "thread_insts",
        "regs_per_thread",
        "regs_source",
        "l2_hits",
        "dram_reads",
    ] {
        assert!(launches[0].get(k).is_some(), "launches[0] lacks {k}");
    }
    assert_eq!(launches[0]["kernel"], "step");
    assert_eq!(launches[0]["regs_source"], "estimate");
}

#[test]
fn cli_dump_reads_a_rust_drivers_named_allocations() {
    // vector_add allocates `a`, `b`, `c`: after a timed run, c = a + b in
    // f32, element by element, computed here from the dumped inputs.
    let dir = std::env::temp_dir().join(format!("gpusim-manifests-{}-vadd", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = |n: &str| dir.join(format!("{n}.bin"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ptx = root.join("kernels/vector_add.ptx");
    let mut args = vec![
        "run".to_string(),
        ptx.display().to_string(),
        "--config".into(),
        "tiny".into(),
        "--arg".into(),
        "n=1000".into(),
    ];
    for n in ["a", "b", "c"] {
        args.push("--dump".into());
        args.push(format!("{n}={}", f(n).display()));
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = gpusim(&refs);
    assert_eq!(code, 0, "{out}{err}");
    let floats = |n: &str| -> Vec<f32> {
        std::fs::read(f(n))
            .unwrap()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (a, b, c) = (floats("a"), floats("b"), floats("c"));
    assert_eq!(a.len(), 1000);
    assert!(a.iter().any(|&x| x != 0.0));
    let sum: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c, sum);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn buffers_only_keys_are_errors_for_other_workloads() {
    let dir = std::env::temp_dir().join(format!("gpusim-manifests-{}-onlybuf", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let m = dir.join("m.toml");
    std::fs::write(
        &m,
        format!(
            "ptx = \"{}\"\nworkload = \"vector_add\"\nshared_bytes = 64\n",
            root.join("kernels/vector_add.ptx").display()
        ),
    )
    .unwrap();
    let e = functional(&m, &[]).unwrap_err();
    assert!(
        e.contains("`shared_bytes` is read only by the `buffers` workload"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
