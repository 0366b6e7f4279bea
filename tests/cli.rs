//! The `gpusim` binary: exit codes, streams and output formats.

use std::process::Command;

fn gpusim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gpusim");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_accepts_every_shipped_kernel() {
    let mut args = vec!["check".to_string()];
    for dir in [
        "kernels",
        "kernels/cuda",
        "kernels/cuda/nvcc",
        "kernels/old",
        "kernels/sync",
    ] {
        let mut v: Vec<String> =
            std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
                .map(|p| format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()))
                .collect();
        v.sort();
        args.extend(v);
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = gpusim(&refs);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ok ")).count(),
        args.len() - 1
    );
    assert!(err.is_empty());
}

#[test]
fn check_reports_every_file_and_fails() {
    let (code, out, err) = gpusim(&[
        "check",
        "kernels/vector_add.ptx",
        "tests/bad_kernels/multiple_errors.ptx",
        "tests/bad_kernels/unknown_opcode.ptx",
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("ok    kernels/vector_add.ptx (vector_add)"));
    assert!(out.contains("error tests/bad_kernels/multiple_errors.ptx (4 problems)"));
    assert!(out.contains("error tests/bad_kernels/unknown_opcode.ptx (1 problem)"));
    // Diagnostics go to stderr, without colour when not on a terminal.
    assert!(err.contains("gpusim::lower::unknown_opcode"));
    assert!(err.contains("tests/bad_kernels/unknown_opcode.ptx:15:2"));
    assert!(!err.contains('\u{1b}'));
}

#[test]
fn check_reports_missing_files() {
    let (code, _, err) = gpusim(&["check", "no/such/file.ptx"]);
    assert_eq!(code, 1);
    assert!(err.contains("gpusim::io::read"));
    assert!(err.contains("no/such/file.ptx"));
}

#[test]
fn cfg_dot_shows_blocks_ipdom_and_loops() {
    let (code, out, err) = gpusim(&["cfg", "kernels/spmv_scalar.ptx", "--dot"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("digraph \"spmv_csr_scalar_kernel\" {"));
    assert!(out.trim_end().ends_with('}'));
    assert!(out.contains("style=dashed"), "ipdom edges are dashed");
    assert!(out.contains("loop L0 header, depth 1"));
    assert!(out.contains("// loop L0 begin"));
    assert!(out.contains("// loop L0 end"));
    assert!(out.contains("fma.rn.f32"));
    // Every block appears, and every block has exactly one ipdom edge.
    let blocks = out
        .lines()
        .filter(|l| l.trim_start().starts_with('b') && l.contains("[label=\"B"))
        .count();
    let ipdoms = out
        .lines()
        .filter(|l| l.contains("label=\"ipdom\""))
        .count();
    assert!(blocks >= 4);
    assert_eq!(blocks, ipdoms);
}

#[test]
fn cfg_needs_entry_when_ambiguous_and_suggests() {
    let (code, _, err) = gpusim(&["cfg", "kernels/fwt.ptx"]);
    assert_eq!(code, 1);
    assert!(err.contains("gpusim::lower::ambiguous_entry"));
    assert!(err.contains("`fwtBatch1Kernel`") && err.contains("`fwtBatch2Kernel`"));
    let (code, _, err) = gpusim(&["cfg", "kernels/fwt.ptx", "--entry", "fwtBatch3Kernel"]);
    assert_eq!(code, 1);
    assert!(err.contains("gpusim::lower::entry_not_found"));
    assert!(err.contains("did you mean"));
    let (code, out, _) = gpusim(&["cfg", "kernels/fwt.ptx", "--entry", "fwtBatch2Kernel"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("kernel fwtBatch2Kernel:"));
}

#[test]
fn help_lists_the_commands() {
    let (code, out, _) = gpusim(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("check") && out.contains("cfg"));
}

#[test]
fn run_functional_reports_pass_and_exit_codes() {
    let (code, out, err) = gpusim(&["run", "kernels/spmv_scalar.ptx", "--functional"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("kernel    spmv_csr_scalar_kernel (kernels/spmv_scalar.ptx)"),
        "{out}"
    );
    assert!(
        out.contains("workload  spmv_scalar: 1 launch, 64 CTAs"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("check     PASS"), "{out}");
    // Unknown argument: an error (exit 2) that names it.
    let (code, _, err) = gpusim(&[
        "run",
        "kernels/spmv_scalar.ptx",
        "--functional",
        "--arg",
        "rosw=5",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown argument `rosw` (did you mean `rows`?)"),
        "{err}"
    );
}

#[test]
fn run_timed_prints_summary_json_and_rejects_bad_names() {
    let dir = std::env::temp_dir().join(format!("gpusim-cli-timed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("stats.json");
    let (code, out, err) = gpusim(&[
        "run",
        "kernels/vector_add.ptx",
        "--config",
        "tiny",
        "--sched",
        "lrr",
        "--arg",
        "n=4096",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("check     PASS"), "{out}");
    assert!(out.contains("scheduler lrr (fetch lrr)"), "{out}");
    for c in gpusim::timing::Stall::ALL {
        assert!(out.contains(&format!("  {:<11}", c.name())), "{out}");
    }
    // The JSON has the documented fields and agrees with the text.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cycles = v["cycles"].as_u64().unwrap();
    assert!(
        out.contains(&format!("cycles    {cycles} (1 launch)")),
        "{out}"
    );
    let stalls: u64 = gpusim::timing::Stall::ALL
        .iter()
        .map(|c| v["stalls"][c.name()].as_u64().unwrap())
        .sum();
    assert_eq!(stalls, v["schedulers"].as_u64().unwrap() * cycles);
    // `baws` fetches with cff unless told otherwise; an unknown fetch
    // policy is named.
    let run = |extra: &[&str]| {
        let mut a = vec!["run", "kernels/matmul.toml", "--config", "tiny"];
        a.extend_from_slice(extra);
        let (code, out, err) = gpusim(&a);
        assert_eq!(code, 0, "{out}{err}");
        out
    };
    let cycles = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("cycles"))
            .unwrap()
            .to_string()
    };
    let baws = run(&["--sched", "baws"]);
    assert!(baws.contains("scheduler baws (fetch cff)"), "{baws}");
    let mwf_cff = run(&["--sched", "mwf-gto", "--fetch", "cff"]);
    assert_eq!(cycles(&baws), cycles(&mwf_cff));
    let baws_lrr = run(&["--sched", "baws", "--fetch", "lrr"]);
    assert!(
        baws_lrr.contains("scheduler baws (fetch lrr)"),
        "{baws_lrr}"
    );
    assert_eq!(cycles(&baws_lrr), cycles(&run(&["--sched", "mwf-gto"])));
    let (code, _, err) = gpusim(&["run", "kernels/vector_add.ptx", "--fetch", "fff"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown fetch policy `fff`") && err.contains("cff"),
        "{err}"
    );
    // Unknown scheduler and unknown config key: exit 2, named.
    let (code, _, err) = gpusim(&["run", "kernels/vector_add.ptx", "--sched", "gtoo"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown scheduler `gtoo`"), "{err}");
    let (code, _, err) = gpusim(&["run", "kernels/vector_add.ptx", "--set", "l1d.wayz=8"]);
    assert_eq!(code, 2);
    assert!(err.contains("l1d.ways"), "{err}");
}

#[test]
fn run_functional_mismatch_exits_one() {
    // saxpy with a wrong `a` (3 instead of 2) against its expected file.
    let dir = std::env::temp_dir().join(format!("gpusim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    for f in ["saxpy.ptx", "saxpy_expected.bin"] {
        std::fs::copy(root.join(f), dir.join(f)).unwrap();
    }
    let manifest = std::fs::read_to_string(root.join("saxpy.toml"))
        .unwrap()
        .replace("{ f32 = 2.0 }", "{ f32 = 3.0 }");
    std::fs::write(dir.join("saxpy.toml"), manifest).unwrap();
    let m = dir.join("saxpy.toml");
    let (code, out, _) = gpusim(&["run", m.to_str().unwrap(), "--functional"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{out}");
    // x = i, y = 1: y[1] = 3·1 + 1 = 4 instead of 3.
    assert!(
        out.contains("MISMATCH in `y`: 999 of 1024 elements differ"),
        "{out}"
    );
    assert!(out.contains("[1] expected 3e0, got 4e0"), "{out}");
}

#[test]
fn trace_prints_one_warp_stream() {
    let (code, out, err) = gpusim(&[
        "trace",
        "kernels/vector_add.ptx",
        "--cta",
        "1",
        "--warp",
        "2",
        "--limit",
        "8",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8);
    assert!(
        lines[0].starts_with("vector_add cta 1 warp 2 pc 0x0000 mask ffffffff line"),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].ends_with("ld.param.u32 %r1, [vector_add_param_3];"),
        "{}",
        lines[0]
    );
    // The bounds-check branch: no lane takes it, so only `exec` differs.
    assert!(
        lines[6].contains("@%p1 bra $L__BB0_2; exec 00000000"),
        "{}",
        lines[6]
    );
    assert!(lines.iter().all(|l| l.contains(" cta 1 warp 2 ")));
}

/// `gpusim timeline`: the workload options of `run` (`--arg`), an SVG
/// with one row per warp, and the summary line naming what was drawn.
#[test]
fn timeline_writes_an_svg_of_the_chosen_sm() {
    let dir = std::env::temp_dir().join(format!("gpusim-cli-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("skew.svg");
    let svg_arg = svg.to_str().unwrap();
    let (code, out, err) = gpusim(&[
        "timeline",
        "kernels/micro/barrier_skew.toml",
        "--config",
        "tiny",
        "--sched",
        "lrr",
        "--arg",
        "work=8",
        "-o",
        svg_arg,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("check     PASS"), "{out}");
    assert!(
        out.contains(&format!(
            "timeline  barrier_skew launch 0, SM 0: 4 warps of 1 CTAs, 1 barrier releases; wrote {svg_arg}"
        )),
        "{out}"
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(text.contains("barrier_skew under lrr"));
    assert_eq!(text.matches("<g class=\"warp\"").count(), 4);
    assert_eq!(text.matches("class=\"phase\"").count(), 1);
    // The same command writes the same bytes.
    let (code, _, _) = gpusim(&[
        "timeline",
        "kernels/micro/barrier_skew.toml",
        "--config",
        "tiny",
        "--sched",
        "lrr",
        "--arg",
        "work=8",
        "-o",
        svg_arg,
    ]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), text);
}

/// A bad `--sm`, `--ctas` or `--launch-index` is an error naming what
/// exists, exit status 2, no panic.
#[test]
fn timeline_rejects_bad_selections() {
    let dir = std::env::temp_dir().join(format!("gpusim-cli-timeline-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("x.svg");
    let base = [
        "timeline",
        "kernels/micro/barrier_skew.toml",
        "--config",
        "tiny",
        "-o",
        svg.to_str().unwrap(),
    ];
    for (extra, message) in [
        (
            &["--sm", "3"][..],
            "error: --sm 3: the machine has 1 SM (0 to 0)",
        ),
        (
            &["--ctas", "5..2"][..],
            "--ctas `5..2`: the range is empty (A must be below B)",
        ),
        (&["--ctas", "x..2"][..], "expected A..B"),
        (
            &["--ctas", "1..4"][..],
            "error: no CTA of --ctas 1..4 ran on SM 0 in launch 0 (barrier_skew, grid [1, 1, 1] = 1 CTAs); SM 0 ran 1 CTA: 0",
        ),
        (
            &["--launch-index", "1"][..],
            "error: --launch-index 1: the workload made 1 launch (0 to 0)",
        ),
    ] {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        let (code, _, err) = gpusim(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(message), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!svg.exists(), "nothing written on an error");
}

/// `run --json` has the barrier figures for the run and each launch.
#[test]
fn json_has_barrier_figures() {
    let dir = std::env::temp_dir().join(format!("gpusim-cli-barriers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("s.json");
    let (code, out, err) = gpusim(&[
        "run",
        "kernels/micro/barrier_skew.toml",
        "--config",
        "tiny",
        // Parameter loads that hit: with the constant cache's misses the
        // three waiting warps would also wait out warp 0's first
        // parameter miss at the barrier.
        "--set",
        "l1c.sets=0",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let b = &v["barriers"];
    for key in [
        "ctas",
        "warps",
        "phases",
        "barriers_released",
        "barrier_arrivals",
        "phases_per_cta",
        "rtru",
        "rtru_barrier_phases",
        "rtru_phase_mean",
        "barrier_intensity",
        "barrier_intensive",
        "barrier_intensity_with_exit",
        "idle_warp_cycles",
        "phase_warp_cycles",
        "barrier_wait_cycles",
        "exit_wait_cycles",
        "warp_lifetime_cycles",
    ] {
        assert!(!b[key].is_null(), "barriers.{key} missing");
    }
    assert_eq!(v["launches"][0]["barriers"], *b);
    // One CTA of four warps, one barrier: two phases.
    assert_eq!(b["phases"], 2);
    assert_eq!(b["barriers_released"], 1);
    assert_eq!(b["barrier_arrivals"], 4);
    // Three warps wait for warp 0's 8 iterations: not quite 15% of their
    // time on average.
    let intensity = b["barrier_intensity"].as_f64().unwrap();
    assert!(intensity > 0.05 && intensity < 0.15, "{intensity}");
    assert_eq!(b["barrier_intensive"], false);
    let line = out.lines().find(|l| l.starts_with("barriers ")).unwrap();
    assert!(
        line.starts_with("barriers  2.0 phases/CTA (1 release), RTRU "),
        "{line}"
    );
    assert!(line.contains("(not barrier-intensive;"), "{line}");
}
