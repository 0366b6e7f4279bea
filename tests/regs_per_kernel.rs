//! `regs_per_thread` as a table of counts per kernel (`{ Kernel = 20,
//! Kernel2 = 6 }`, what ptxas reports for each kernel of a module): each
//! launch uses its kernel's count (the per-launch statistics say which),
//! a launched kernel the table leaves out is an error naming it and the
//! manifest's file and line, a name that is no kernel of the module is a
//! diagnostic at the table, and malformed values are manifest errors.

use std::path::{Path, PathBuf};

use gpusim::workload::Check;
use gpusim::workload::host::FunctionalOptions;
use gpusim::workload::runner::{Prepared, RunError, prepare, run_functional};

/// Two kernels (and a capped one), each writing `v` to `out[i]` from
/// thread 0.
const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry first(.param .u64 out, .param .u32 i, .param .u32 v)
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

.visible .entry second(.param .u64 out, .param .u32 i, .param .u32 v)
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

.visible .entry capped(.param .u64 out, .param .u32 i, .param .u32 v)
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
"#;

/// A scratch directory with `k.ptx` and `m.toml`; removed when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// `m.toml` is `ptx`, `workload`, then `regs` on line 3, then a
    /// launch of `first`, `second` and `capped` (which write 1, 2, 3 to
    /// `out[0..3]`).
    fn new(name: &str, regs: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "gpusim-regs-per-kernel-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("k.ptx"), PTX).unwrap();
        let launch = |k: &str, i: u32| {
            format!(
                "[[launch]]\nentry = \"{k}\"\nparams = [\"out\", {{ u32 = {i} }}, {{ u32 = {} }}]\n",
                i + 1
            )
        };
        std::fs::write(
            dir.join("m.toml"),
            format!(
                "ptx = \"k.ptx\"\nworkload = \"buffers\"\n{regs}\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
                 [[buffers]]\nname = \"out\"\ntype = \"u32\"\nlen = 3\nexpect = [1, 2, 3]\n{}{}{}",
                launch("first", 0),
                launch("second", 1),
                launch("capped", 2)
            ),
        )
        .unwrap();
        Scratch { dir }
    }

    fn manifest(&self) -> PathBuf {
        self.dir.join("m.toml")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn prepared(m: &Path) -> Prepared {
    prepare(m, None).unwrap_or_else(|e| panic!("{e:?}"))
}

fn timed(p: &Prepared) -> Result<gpusim::timing::TimedRun, String> {
    let cfg = gpusim::config::load_config("tiny", &[]).unwrap();
    gpusim::timing::run_timed(p, &[], &cfg, "gto", "lrr").map_err(|e| match e {
        RunError::Workload(w) => w.to_string(),
        e => format!("{e:?}"),
    })
}

/// `(kernel, regs_per_thread, regs_source)` of every launch of a timed run.
fn launch_regs(regs: &str) -> Vec<(String, u32, String)> {
    let s = Scratch::new(&format!("ok-{}", regs.len()), regs);
    let t = timed(&prepared(&s.manifest())).unwrap();
    assert_eq!(t.check, Check::Pass);
    t.stats
        .launches
        .iter()
        .map(|l| (l.kernel.clone(), l.regs_per_thread, l.regs_source.clone()))
        .collect()
}

fn row(k: &str, n: u32, src: &str) -> (String, u32, String) {
    (k.to_string(), n, src.to_string())
}

#[test]
fn each_launch_uses_its_kernels_count() {
    assert_eq!(
        launch_regs("regs_per_thread = { first = 20, second = 6, capped = 30 }"),
        vec![
            row("first", 20, "manifest"),
            row("second", 6, "manifest"),
            // `.maxnreg 4` still caps a table's count.
            row("capped", 4, "maxnreg"),
        ]
    );
    // The single number still applies to every kernel.
    assert_eq!(
        launch_regs("regs_per_thread = 12"),
        vec![
            row("first", 12, "manifest"),
            row("second", 12, "manifest"),
            row("capped", 4, "maxnreg"),
        ]
    );
    // Order in the table does not matter; an inline table and a dotted
    // key are the same TOML.
    assert_eq!(
        launch_regs(
            "regs_per_thread.second = 9\nregs_per_thread.first = 7\nregs_per_thread.capped = 2"
        ),
        vec![
            row("first", 7, "manifest"),
            row("second", 9, "manifest"),
            row("capped", 2, "manifest"),
        ]
    );
}

#[test]
fn the_count_changes_occupancy_per_kernel() {
    // tiny has 32768 registers per SM (see config): at 1024 registers per
    // thread a 32-thread CTA needs all of them, at 1025 none fits — only
    // the kernel given 1025 fails, and the error names its count.
    let s = Scratch::new(
        "huge",
        "regs_per_thread = { first = 1024, second = 1025, capped = 1 }",
    );
    let e = timed(&prepared(&s.manifest())).unwrap_err();
    assert!(e.contains("second"), "{e}");
    assert!(
        e.contains("1025 registers per thread, from the manifest's regs_per_thread"),
        "{e}"
    );
}

#[test]
fn a_launched_kernel_missing_from_the_table_is_an_error_with_file_and_line() {
    let s = Scratch::new("missing", "regs_per_thread = { first = 20, capped = 3 }");
    let p = prepared(&s.manifest());
    let e = timed(&p).unwrap_err();
    let at = format!("{}:3: ", s.manifest().display());
    assert!(e.starts_with(&at), "{e}");
    assert!(
        e.contains(
            "regs_per_thread gives no count for kernel `second`, which the workload launches"
        ) && e.contains("(the table names `capped`, `first`)")
            && e.contains("add `second = N`"),
        "{e}"
    );
    // Registers do not matter to a functional run.
    let f = run_functional(&p, &[], FunctionalOptions::default(), None).unwrap();
    assert_eq!(f.check, Check::Pass);
}

#[test]
fn a_name_that_is_no_kernel_is_a_diagnostic_at_the_table() {
    let regs = "regs_per_thread = { first = 20, secnod = 6, capped = 3 }";
    let s = Scratch::new("unknown", regs);
    let Err(RunError::Diagnostics(d)) = prepare(&s.manifest(), None) else {
        panic!("a table naming `secnod` was accepted");
    };
    let diag = &d.list[0];
    assert_eq!(diag.code, "gpusim::manifest::regs_kernel");
    assert_eq!(
        diag.message,
        "regs_per_thread names `secnod`, which is not a kernel of the module"
    );
    let help = diag.help.as_deref().unwrap();
    assert!(help.starts_with("did you mean `second`?"), "{help}");
    assert!(help.contains("`first`, `second`, `capped`"), "{help}");
    // The label covers the table's value on line 3.
    let text = std::fs::read_to_string(s.manifest()).unwrap();
    let span = diag.span().unwrap();
    assert_eq!(
        &text[span.range()],
        "{ first = 20, secnod = 6, capped = 3 }"
    );
}

#[test]
fn malformed_values_are_manifest_errors_at_the_value() {
    for (regs, bad, says) in [
        (
            "regs_per_thread = -1",
            "-1",
            "expected a count from 0 to 4294967295",
        ),
        (
            "regs_per_thread = \"20\"",
            "\"20\"",
            "expected a register count",
        ),
        ("regs_per_thread = 2.5", "2.5", "expected a register count"),
        (
            "regs_per_thread = {}",
            "{}",
            "a table naming at least one kernel",
        ),
        (
            "regs_per_thread = { first = \"x\" }",
            "\"x\"",
            "expected u32",
        ),
        ("regs_per_thread = { first = -3 }", "-3", "u32"),
    ] {
        let s = Scratch::new(&format!("bad-{}", regs.len()), regs);
        let Err(RunError::Diagnostics(d)) = prepare(&s.manifest(), None) else {
            panic!("`{regs}` was accepted");
        };
        let diag = &d.list[0];
        assert_eq!(diag.code, "gpusim::manifest::invalid", "{regs}");
        assert!(diag.message.contains(says), "{regs}: {}", diag.message);
        let text = std::fs::read_to_string(s.manifest()).unwrap();
        let span = diag.span().unwrap();
        assert!(
            text[span.range()].contains(bad),
            "{regs}: the span covers `{}`",
            &text[span.range()]
        );
        let line = 1 + text[..span.range().start].matches('\n').count();
        assert_eq!(line, 3, "{regs}");
    }
}
