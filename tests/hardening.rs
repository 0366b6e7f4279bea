//! Hardening: no input makes gpusim panic, exhaust memory or hang silently.
//! Config fields and manifests have upper bounds; options that do not apply
//! are errors; a closed stdout ends quietly; runaway and deadlocked kernels
//! end with named errors.

use std::path::Path;
use std::process::{Command, Stdio};

use gpusim::config::{FieldKind, FieldValue, GpuConfig, fields, load_config};

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

/// Rendered diagnostics with miette's line wrapping undone.
fn flat(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `--set KEY=VALUE` text for `v` in field `f`'s type.
fn set_text(kind: FieldKind, v: u64) -> String {
    match kind {
        FieldKind::U32 | FieldKind::U64 => v.to_string(),
        FieldKind::Bool => "true".to_string(),
        FieldKind::U32x5 => format!("[{v}, {v}, {v}, {v}, {v}]"),
    }
}

#[test]
fn every_config_field_has_an_upper_bound_that_validation_enforces() {
    let tiny = GpuConfig::tiny();
    for f in fields() {
        if f.kind == FieldKind::Bool {
            assert_eq!(f.max, 1, "{}", f.key);
            continue;
        }
        // Every preset value is within its limit.
        for name in gpusim::config::PRESETS {
            let c = load_config(name, &[]).unwrap();
            let ok = match c.get(f.key).unwrap() {
                FieldValue::U32(v) => u64::from(v) <= f.max,
                FieldValue::U64(v) => v <= f.max,
                FieldValue::U32x5(a) => a.iter().all(|&v| u64::from(v) <= f.max),
                FieldValue::Bool(_) => true,
            };
            assert!(ok, "preset {name}: {} above its limit {}", f.key, f.max);
        }
        // One above the limit (or the largest value the type holds, for the
        // u64 limits that are the type's maximum) is an error naming the
        // field and the limit.
        let type_max = match f.kind {
            FieldKind::U64 => i64::MAX as u64,
            _ => u64::from(u32::MAX),
        };
        if f.max >= type_max {
            continue;
        }
        for huge in [f.max + 1, type_max] {
            let sets = vec![(f.key.to_string(), set_text(f.kind, huge))];
            let err = load_config("tiny", &sets)
                .expect_err(&format!("{} = {huge} must be rejected", f.key));
            let text = flat(&err.render(false));
            let msg = if f.key == "core.warp_size" {
                "warps have at most 64 threads".to_string()
            } else {
                format!("`{}` = ", f.key)
            };
            assert!(text.contains(&msg), "{}: {text}", f.key);
            if f.key != "core.warp_size" {
                assert!(
                    text.contains(&format!("exceeds its limit of {}", f.max)),
                    "{}: {text}",
                    f.key
                );
            }
        }
        // The limit itself is not an upper-bound error (other rules may
        // still object, e.g. power-of-two sets).
        let sets = vec![(f.key.to_string(), set_text(f.kind, f.max))];
        if let Err(e) = load_config("tiny", &sets) {
            let text = flat(&e.render(false));
            assert!(!text.contains("exceeds its limit"), "{}: {text}", f.key);
        }
    }
    // Sanity of the test's premise.
    assert!(tiny.validate().is_ok());
}

#[test]
fn huge_sm_counts_and_cache_geometries_are_errors_not_allocations() {
    let (code, _, err) = gpusim(&[
        "run",
        "kernels/vector_add.ptx",
        "--config",
        "tiny",
        "--set",
        "core.num_sms=100000000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        flat(&err).contains("`core.num_sms` = 100000000 exceeds its limit of 1024"),
        "{err}"
    );
    // Each field within its limit but the product too large.
    let (code, _, err) = gpusim(&[
        "config",
        "tiny",
        "--set",
        "l1d.sets=65536",
        "--set",
        "l1d.ways=1024",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        flat(&err).contains(
            "`l1d.sets` × `l1d.ways` make 67108864 L1D lines per SM, more than the limit of 1048576"
        ),
        "{err}"
    );
    let (code, _, err) = gpusim(&[
        "config",
        "gtx480",
        "--set",
        "l2.slices=1024",
        "--set",
        "l2.sets=65536",
        "--set",
        "dram.channels=1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(flat(&err).contains("L2 lines in all slices"), "{err}");
}

/// Every size/count field at its limit (one at a time, where the result
/// is a valid machine) still runs a small timed kernel without panicking or
/// exhausting memory: the limits are safe, not merely present.
#[test]
fn every_field_at_its_limit_runs_or_is_rejected() {
    let prepared =
        gpusim::workload::runner::prepare(&root().join("kernels/vector_add.ptx"), None).unwrap();
    let args = vec![("n".to_string(), "512".to_string())];
    let policies = gpusim::timing::Policies::sched("gto");
    let mut ran = 0;
    for f in fields() {
        if matches!(f.kind, FieldKind::Bool) || f.key == "sim.max_cycles" {
            continue;
        }
        let max = if f.kind == FieldKind::U64 {
            // Windows and limits: a large value, not the type's maximum.
            1 << 40
        } else {
            f.max
        };
        let sets = vec![
            (f.key.to_string(), set_text(f.kind, max)),
            ("sim.max_cycles".to_string(), "3_000_000".to_string()),
        ];
        let Ok(cfg) = load_config("tiny", &sets) else {
            continue;
        };
        ran += 1;
        match gpusim::timing::run_timed_with(&prepared, &args, &cfg, &policies, false) {
            Ok(r) => assert!(r.stats.cycles > 0, "{}", f.key),
            Err(e) => {
                // An error is fine (e.g. a CTA that no longer fits, or the
                // cycle limit with million-cycle latencies); a panic is not.
                let _ = format!("{e:?}");
            }
        }
    }
    assert!(ran >= 40, "only {ran} fields were valid at their limit");
}

/// The intra-warp spin lock of `tests/hang/intra_warp_spin.ptx`: lane 0
/// wins the CAS and waits at the reconvergence point while its warp's other
/// lanes spin on the lock it holds. The functional run ends with a
/// "no progress" error naming the warp, the spinning PC and line, within a
/// bounded number of instructions (the detector's quiet threshold plus a
/// few repetitions), not at the 2·10⁹-instruction limit.
#[test]
fn intra_warp_spin_lock_is_a_named_no_progress_error() {
    use gpusim::func::SimErrorKind;
    use gpusim::workload::WorkloadError;
    use gpusim::workload::runner::{RunError, prepare, run_functional};
    let p = prepare(&root().join("tests/hang/intra_warp_spin.ptx"), None).unwrap();
    let options = gpusim::workload::host::FunctionalOptions::default();
    let err = run_functional(&p, &[], options, None).unwrap_err();
    let RunError::Workload(WorkloadError::Sim(e)) = err else {
        panic!("not a simulation error: {err:?}")
    };
    let SimErrorKind::Repeating { period, quiet } = e.kind else {
        panic!("not a no-progress error: {e}")
    };
    // The loop is 3 instructions (atom.cas, setp, bra) on one warp; a
    // repetition is a whole number of them.
    assert!(period > 0 && period.is_multiple_of(3), "period {period}");
    assert!(
        quiet < gpusim::func::spin::QUIET_INSTS + 4096,
        "detected only after {quiet} quiet instructions"
    );
    // The spinning lanes are at one of the loop's three instructions
    // (lines 30–32 of the file), in warp 0 of CTA 0.
    let pc = e.inst.expect("a PC");
    assert!((2..=4).contains(&pc), "pc {pc}");
    assert!((30..=32).contains(&e.line), "line {}", e.line);
    assert_eq!((e.cta, e.warp), ([0, 0, 0], 0));
    let text = e.to_string();
    assert!(text.starts_with("no progress: "), "{text}");
    assert!(text.contains("intra_warp_spin"), "{text}");

    // The CLI: exit status 2 with the message.
    let (code, _, err) = gpusim(&["run", "tests/hang/intra_warp_spin.ptx", "--functional"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no progress: the launch repeats"), "{err}");
    assert!(err.contains("line 3"), "{err}");
}

/// The detector never fires on kernels that finish: every shipped
/// kernel that ends, including the cross-CTA spin locks and barriers of
/// kernels/sync (whose waiting warps repeat while other warps progress),
/// passes — checked by the workload suites; here the one whose spinning
/// takes longest before release.
#[test]
fn spinning_that_ends_is_not_flagged() {
    for m in [
        "kernels/sync/spin_mutex_global.toml",
        "kernels/sync/lf_tree_barrier_uniq.toml",
    ] {
        let (code, out, err) = gpusim(&["run", m, "--functional"]);
        assert_eq!(code, 0, "{m}: {out}{err}");
        assert!(out.contains("check     PASS"), "{m}: {out}");
    }
}

#[test]
fn max_insts_bounds_functional_and_timed_runs() {
    for extra in [&["--functional"][..], &["--config", "tiny"][..]] {
        let mut args = vec![
            "run",
            "tests/hang/intra_warp_spin.ptx",
            "--set",
            "sim.max_insts=10000",
        ];
        args.extend_from_slice(extra);
        let (code, _, err) = gpusim(&args);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("stopped after 10000 warp instructions (sim.max_insts"),
            "{extra:?}: {err}"
        );
    }
    // A limit the kernel stays under changes nothing: vector_add's 45056
    // warp instructions.
    let (code, out, err) = gpusim(&[
        "run",
        "kernels/vector_add.ptx",
        "--functional",
        "--set",
        "sim.max_insts=45056",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("executed  45056 warp instructions"), "{out}");
    let (code, _, err) = gpusim(&[
        "run",
        "kernels/vector_add.ptx",
        "--functional",
        "--set",
        "sim.max_insts=45055",
    ]);
    assert_eq!(code, 2, "{err}");
}

/// `trace --limit N` stops the simulation after N records: on the
/// spin-lock kernel, which never ends, it still exits 0 at once.
#[test]
fn trace_limit_stops_the_run() {
    let (code, out, err) = gpusim(&["trace", "tests/hang/intra_warp_spin.ptx", "--limit", "5"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 5, "{out}");
    assert!(
        out.lines()
            .all(|l| l.starts_with("intra_warp_spin cta 0 warp 0 pc ")),
        "{out}"
    );
    assert!(err.is_empty(), "{err}");
}

/// Spawns gpusim with stdout piped, reads `lines` lines (0: none), closes
/// the pipe and waits: the exit status and stderr.
fn run_with_closed_stdout(args: &[&str], lines: usize) -> (Option<i32>, String) {
    use std::io::{BufRead, BufReader, Read};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gpusim");
    let stdout = child.stdout.take().unwrap();
    {
        let mut r = BufReader::new(stdout);
        let mut line = String::new();
        for _ in 0..lines {
            line.clear();
            r.read_line(&mut line).unwrap();
        }
        // Dropping the reader closes the pipe.
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    (status.code(), err)
}

#[test]
fn closed_stdout_ends_quietly() {
    for (args, lines) in [
        (&["trace", "kernels/fwt.ptx", "--all"][..], 1),
        (&["trace", "kernels/vector_add.ptx", "--all"][..], 0),
        (&["run", "kernels/fwt.ptx", "--functional"][..], 0),
        (
            &["run", "kernels/vector_add.ptx", "--config", "tiny"][..],
            1,
        ),
        (&["config", "gtx480"][..], 1),
        (&["cfg", "kernels/bfs.ptx", "--entry", "bfs_kernel"][..], 0),
        (&["check", "kernels/bfs.ptx", "kernels/fwt.ptx"][..], 0),
    ] {
        let (code, err) = run_with_closed_stdout(args, lines);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
        assert_eq!(code, Some(0), "{args:?}: {err}");
    }
}

#[test]
fn options_that_do_not_apply_are_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "kernels/vector_add.ptx", "--profile", "p.json"],
            "--profile is only used by --sched daws-profiled (this run: --sched gto)",
        ),
        (
            &[
                "run",
                "kernels/vector_add.ptx",
                "--functional",
                "--profile",
                "p.json",
            ],
            "--profile is only used by --sched daws-profiled (this run: --functional)",
        ),
        (
            &["run", "kernels/vector_add.ptx", "--jobs", "2"],
            "--jobs is only used by --sched best-swl (this run: --sched gto)",
        ),
        (
            &[
                "run",
                "kernels/vector_add.ptx",
                "--functional",
                "--sched",
                "lrr",
            ],
            "--sched lrr does not apply to --functional",
        ),
        (
            &[
                "run",
                "kernels/vector_add.ptx",
                "--functional",
                "--issue-log",
                "l.txt",
            ],
            "--issue-log does not apply to --functional",
        ),
        (
            &[
                "run",
                "kernels/vector_add.toml",
                "--launch",
                "kernels/vector_add.toml",
            ],
            "two manifests: kernels/vector_add.toml and --launch kernels/vector_add.toml",
        ),
        (
            &[
                "run",
                "kernels/vector_add.ptx",
                "--launch",
                "a.toml",
                "--launch",
                "b.toml",
            ],
            "cannot be used multiple times",
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = gpusim(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}

#[test]
fn unwritable_outputs_fail_before_the_run() {
    let dir = std::env::temp_dir().join(format!("gpusim-hardening-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("no/such/dir/out.json");
    let m = missing.to_str().unwrap();
    for flag in ["--json", "--issue-log"] {
        let (code, out, err) =
            gpusim(&["run", "kernels/vector_add.ptx", "--config", "tiny", flag, m]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!("cannot write {m}: No such file or directory")),
            "{err}"
        );
        // Nothing ran: no summary.
        assert!(out.is_empty(), "{out}");
    }
    let (code, out, err) = gpusim(&["profile", "kernels/vector_add.ptx", "-o", m]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("cannot write {m}")), "{err}");
    assert!(out.is_empty(), "{out}");
    // A writable path that does not exist yet is not left behind by the
    // check when the run then fails.
    let fresh = dir.join("fresh.json");
    let (code, _, err) = gpusim(&[
        "run",
        "tests/hang/intra_warp_spin.ptx",
        "--functional",
        "--set",
        "sim.max_insts=100",
        "--json",
        fresh.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(!fresh.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `run --functional --json` writes the functional counts: totals equal to
/// the sum of the per-launch records, FWT's 10 launches of its 3 kernels.
#[test]
fn functional_json_has_totals_and_launches() {
    let path = std::env::temp_dir().join(format!("gpusim-func-{}.json", std::process::id()));
    let p = path.to_str().unwrap();
    let (code, out, err) = gpusim(&["run", "kernels/fwt.ptx", "--functional", "--json", p]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(v["mode"], "functional");
    assert_eq!(v["check_passed"], true);
    let launches = v["per_launch"].as_array().unwrap();
    assert_eq!(launches.len() as u64, v["launches"].as_u64().unwrap());
    assert_eq!(launches.len(), 10);
    let sum = |k: &str| launches.iter().map(|l| l[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("warp_insts"), v["warp_insts"].as_u64().unwrap());
    assert_eq!(sum("thread_insts"), v["thread_insts"].as_u64().unwrap());
    assert_eq!(sum("ctas"), v["ctas"].as_u64().unwrap());
    assert!(
        out.contains(&format!("executed  {} warp instructions", v["warp_insts"])),
        "{out}"
    );
    assert_eq!(v["kernels"].as_array().unwrap().len(), 3);
}

/// The issue log of a multi-kernel workload: one header per launch naming
/// its kernel and shape, as many records under it as the launch issued
/// (the JSON's per-launch counts), each with its PTX text from that
/// launch's kernel.
#[test]
fn issue_log_names_each_launch_and_its_instructions() {
    let dir = std::env::temp_dir();
    let log = dir.join(format!("gpusim-il-{}.txt", std::process::id()));
    let json = dir.join(format!("gpusim-il-{}.json", std::process::id()));
    let (code, _, err) = gpusim(&[
        "run",
        "kernels/fwt.ptx",
        "--config",
        "tiny",
        "--issue-log",
        log.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&log).unwrap();
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&log).unwrap();
    std::fs::remove_file(&json).unwrap();
    let launches = stats["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 10);
    let ptx = std::fs::read_to_string(root().join("kernels/fwt.ptx")).unwrap();
    let ptx_lines: Vec<&str> = ptx.lines().collect();
    let mut sections: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines().skip(1) {
        if let Some(h) = line.strip_prefix("# launch ") {
            sections.push((h.to_string(), Vec::new()));
        } else {
            sections.last_mut().expect("a header first").1.push(line);
        }
    }
    assert_eq!(sections.len(), 10);
    for (i, ((header, records), l)) in sections.iter().zip(launches).enumerate() {
        let kernel = l["kernel"].as_str().unwrap();
        assert!(
            header.starts_with(&format!("{i}: kernel {kernel} grid [")),
            "{header}"
        );
        assert_eq!(
            records.len() as u64,
            l["warp_insts"].as_u64().unwrap(),
            "launch {i}"
        );
        // Each record's text is the PTX source line it names (whitespace
        // normalised).
        for r in records.iter().step_by(997) {
            let f: Vec<&str> = r.splitn(9, ' ').collect();
            let line: usize = f[7].parse().unwrap();
            let code = ptx_lines[line - 1].split("//").next().unwrap();
            let src: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(!f[8].is_empty(), "{r}");
            assert_eq!(
                f[8].split_whitespace().collect::<Vec<_>>().join(" "),
                src,
                "{r}"
            );
        }
    }
}

#[test]
fn parameter_mismatches_name_ptx_types() {
    let dir = std::env::temp_dir().join(format!("gpusim-param-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("kernels/saxpy.ptx"), dir.join("saxpy.ptx")).unwrap();
    let m = dir.join("m.toml");
    std::fs::write(
        &m,
        "ptx = \"saxpy.ptx\"\nworkload = \"buffers\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\n\
         params = [\"x\", \"y\", { f32 = 1000 }, { f32 = 2.0 }]\n\
         [[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 32\n\
         [[buffers]]\nname = \"y\"\ntype = \"f32\"\nlen = 32\n",
    )
    .unwrap();
    let (code, _, err) = gpusim(&["run", m.to_str().unwrap(), "--functional"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "parameter `saxpy_param_n` of `saxpy` is `.u32`, the workload passed a `.f32 1000`"
        ),
        "{err}"
    );
    assert!(!err.contains("F32("), "{err}");
    // A manifest whose PTX is missing names the PTX file and the manifest.
    std::fs::remove_file(dir.join("saxpy.ptx")).unwrap();
    let (code, _, err) = gpusim(&["run", m.to_str().unwrap(), "--functional"]);
    assert_eq!(code, 2, "{err}");
    let err = flat(&err);
    assert!(err.contains("cannot read the PTX file"), "{err}");
    assert!(err.contains("saxpy.ptx"), "{err}");
    assert!(
        err.contains(&format!("the manifest `{}` names it", m.display())),
        "{err}"
    );
    // `run K.ptx` without K.ptx: the PTX is named, not its manifest.
    let missing = dir.join("nope.ptx");
    let (code, _, err) = gpusim(&["run", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        flat(&err).contains(&format!("cannot read the PTX file `{}`", missing.display())),
        "{err}"
    );
    assert!(!err.contains("nope.toml"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn binary_garbage_is_shown_escaped() {
    let mut bytes = b".version 7.0\n.target sm_70\n.address_size 64\n".to_vec();
    bytes.extend_from_slice(b"\x00\xff\xfe junk\n");
    let d = gpusim::compile_bytes("junk.ptx", &bytes).unwrap_err();
    let text = d.render(false);
    assert!(text.contains("bytes \\xff\\xfe at byte 45"), "{text}");
    assert!(text.contains("\\x00\\xff\\xfe junk"), "{text}");
    assert!(!text.contains('\0') && !text.contains('\u{fffd}'), "{text}");
    // Valid UTF-8 with control characters: the snippet escapes them and
    // the label still points at the character (column 5 = after `\x00`).
    let d = gpusim::compile_bytes(
        "ctl.ptx",
        b".version 7.0\n.target sm_70\n.address_size 64\n\x00\x01 x\n",
    )
    .unwrap_err();
    let text = d.render(false);
    assert!(text.contains("\\x00\\x01 x"), "{text}");
    assert!(text.contains("[ctl.ptx:4:5]"), "{text}");
    assert!(!text.contains('\0') && !text.contains('\u{1}'), "{text}");
}

/// Instruction templates: one valid form of every opcode the lowering
/// accepts (operands separated by `, `), for the operand-kind matrix.
const TEMPLATES: &[&str] = &[
    "add.s32 %r1, %r2, %r3",
    "sub.s32 %r1, %r2, %r3",
    "mul.lo.s32 %r1, %r2, %r3",
    "mul.wide.u32 %rd2, %r2, %r3",
    "mad.lo.s32 %r1, %r2, %r3, %r4",
    "fma.rn.f32 %f1, %f2, %f3, %f4",
    "div.s32 %r1, %r2, %r3",
    "rem.u32 %r1, %r2, %r3",
    "abs.s32 %r1, %r2",
    "neg.f32 %f1, %f2",
    "min.s32 %r1, %r2, %r3",
    "max.f32 %f1, %f2, %f3",
    "and.b32 %r1, %r2, %r3",
    "or.pred %p1, %p2, %p3",
    "xor.b32 %r1, %r2, %r3",
    "not.b32 %r1, %r2",
    "shl.b32 %r1, %r2, %r3",
    "shr.u32 %r1, %r2, %r3",
    "popc.b32 %r1, %r2",
    "clz.b32 %r1, %r2",
    "brev.b32 %r1, %r2",
    "bfe.u32 %r1, %r2, %r3, %r4",
    "bfi.b32 %r1, %r2, %r3, %r4, %r5",
    "sqrt.rn.f32 %f1, %f2",
    "rsqrt.approx.f32 %f1, %f2",
    "rcp.rn.f32 %f1, %f2",
    "ex2.approx.f32 %f1, %f2",
    "lg2.approx.f32 %f1, %f2",
    "sin.approx.f32 %f1, %f2",
    "cos.approx.f32 %f1, %f2",
    "mov.u32 %r1, %r2",
    "mov.u64 %rd2, sh",
    "cvt.u64.u32 %rd2, %r2",
    "cvt.rn.f32.s32 %f1, %r2",
    "cvta.to.global.u64 %rd2, %rd1",
    "ld.global.u32 %r1, [%rd1]",
    "ld.global.v2.u32 {%r1, %r2}, [%rd1]",
    "ld.shared.u32 %r1, [sh]",
    "ld.param.u64 %rd2, [buf]",
    "st.global.u32 [%rd1], %r2",
    "st.shared.u32 [sh], %r2",
    "setp.lt.s32 %p1, %r2, %r3",
    "setp.eq.and.s32 %p1|%p2, %r2, %r3, %p3",
    "selp.b32 %r1, %r2, %r3, %p1",
    "slct.s32.s32 %r1, %r2, %r3, %r4",
    "bra.uni $L_end",
    "bar.sync 0",
    "bar.red.popc.u32 %r1, 0, %p1",
    "membar.gl",
    "fence.acq_rel.gpu",
    "nanosleep.u32 %r2",
    "atom.global.add.u32 %r1, [%rd1], %r2",
    "atom.global.cas.b32 %r1, [%rd1], %r2, %r3",
    "atom.shared.exch.b32 %r1, [sh], %r2",
    "red.global.add.u32 [%rd1], %r2",
    "shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1",
    "vote.sync.all.pred %p1, %p2, -1",
    "vote.sync.ballot.b32 %r1, %p2, -1",
    "activemask.b32 %r1",
    "ret",
    "exit",
];

/// Operands of every kind: registers of each class, negated predicates,
/// integer and float immediates, addresses of each form, a label, a
/// vector, special registers, bare symbols, the sink `_`.
const OPERAND_KINDS: &[&str] = &[
    "%r5",
    "%rd5",
    "%rd1",
    "%f5",
    "%p2",
    "!%p2",
    "7",
    "-1",
    "0f3F800000",
    "0d3FF0000000000000",
    "[%rd1]",
    "[%rd1+4]",
    "[%r5]",
    "[buf]",
    "[sh]",
    "[sh+8]",
    "[7]",
    "$L_end",
    "{%r5, %r6}",
    "{%f5, %f6, %f7, %f1}",
    "%tid.x",
    "%ctaid.y",
    "%clock64",
    "buf",
    "sh",
    "_",
];

/// Every opcode × operand position × operand kind: the kernel either fails
/// `check` with diagnostics or, when it compiles, runs functionally (a
/// small step limit, one warp) to a result or a simulation error — never a
/// panic.
#[test]
fn wrong_operand_kinds_are_errors_never_panics() {
    use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host};
    let build = |inst: &str| {
        format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n\
             .visible .entry k(.param .u64 buf)\n{{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n\
             .shared .align 8 .b8 sh[256];\n\
             ld.param.u64 %rd1, [buf];\n\
             cvta.to.global.u64 %rd1, %rd1;\n\
             {inst};\n\
             $L_end:\n\
             ret;\n}}\n"
        )
    };
    let (mut compiled, mut rejected, mut ran_ok, mut sim_errors) = (0, 0, 0, 0);
    let mut panics = Vec::new();
    for t in TEMPLATES {
        let (head, ops) = match t.split_once(' ') {
            Some((h, o)) => (h, o.split(", ").collect::<Vec<_>>()),
            None => (*t, Vec::new()),
        };
        // Vector operands contain ", ": re-join brace groups.
        let mut operands: Vec<String> = Vec::new();
        let mut open = false;
        for o in ops {
            if open {
                let last = operands.last_mut().unwrap();
                last.push_str(", ");
                last.push_str(o);
            } else {
                operands.push(o.to_string());
            }
            open =
                operands.last().unwrap().contains('{') && !operands.last().unwrap().contains('}');
        }
        // The template itself, then each position with each kind, and one
        // operand too many / too few.
        let mut variants = vec![t.to_string()];
        for i in 0..operands.len() {
            for k in OPERAND_KINDS {
                let mut ops = operands.clone();
                ops[i] = k.to_string();
                variants.push(format!("{head} {}", ops.join(", ")));
            }
            let mut fewer = operands.clone();
            fewer.remove(i);
            variants.push(format!("{head} {}", fewer.join(", ")).trim().to_string());
        }
        variants.push(format!(
            "{t}{}%r5",
            if operands.is_empty() { " " } else { ", " }
        ));
        for v in variants {
            let src = build(&v);
            let outcome = std::panic::catch_unwind(|| {
                let p = match gpusim::compile(gpusim::SourceFile::new("m.ptx", src.clone())) {
                    Ok(p) => p,
                    Err(d) => {
                        assert!(!d.list.is_empty());
                        let _ = d.render(false);
                        return (false, None);
                    }
                };
                let options = FunctionalOptions {
                    step_limit: 10_000,
                    ..FunctionalOptions::default()
                };
                let mut host = FunctionalHost::new(&p, 0, options);
                let buf = host.alloc("buf", 4096);
                let r = host.launch(None, [1, 1, 1], [32, 1, 1], &[ArgValue::U64(buf)]);
                if let Err(e) = &r {
                    let _ = e.to_string();
                }
                (true, Some(r.is_ok()))
            });
            match outcome {
                Ok((false, _)) => rejected += 1,
                Ok((true, Some(true))) => {
                    compiled += 1;
                    ran_ok += 1
                }
                Ok((true, _)) => {
                    compiled += 1;
                    sim_errors += 1
                }
                Err(_) => panics.push(v),
            }
        }
    }
    eprintln!(
        "operand matrix: {} kernels, {rejected} rejected by check, {compiled} compiled \
         ({ran_ok} ran, {sim_errors} simulation errors)",
        rejected + compiled + panics.len()
    );
    assert!(panics.is_empty(), "{} panics: {panics:#?}", panics.len());
    // The matrix exercises both sides.
    assert!(rejected > 1000 && compiled > 100, "{rejected} {compiled}");
}

/// Timing memory does not grow with the CTAs already retired: an SM keeps
/// at most `MAX_WARP_RECORDS_PER_SM` per-warp records and counts the rest
/// (before this bound, 10⁶ one-warp CTAs on `tiny` peaked at 271 MB RSS;
/// now 7.5 MB, the same as 10⁴ CTAs).
#[test]
fn retired_warps_do_not_accumulate() {
    use gpusim::timing::stats::MAX_WARP_RECORDS_PER_SM;
    let dir = std::env::temp_dir().join(format!("gpusim-ctas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("triv.ptx"),
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry triv(.param .u64 buf)\n{\n.reg .b32 %r<2>;\n\
         mov.u32 %r1, %ctaid.x;\nret;\n}\n",
    )
    .unwrap();
    let ctas = 20_000u64;
    std::fs::write(
        dir.join("triv.toml"),
        format!(
            "ptx = \"triv.ptx\"\nworkload = \"buffers\"\ngrid = [{ctas}, 1, 1]\nblock = [32, 1, 1]\n\
             params = [\"buf\"]\n[[buffers]]\nname = \"buf\"\ntype = \"u32\"\nlen = 4\n"
        ),
    )
    .unwrap();
    let p = gpusim::workload::runner::prepare(&dir.join("triv.toml"), None).unwrap();
    let cfg = GpuConfig::tiny();
    let r = gpusim::timing::run_timed_with(
        &p,
        &[],
        &cfg,
        &gpusim::timing::Policies::sched("gto"),
        false,
    )
    .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(r.check.passed());
    // One SM, one warp per CTA: 2 instructions each.
    assert_eq!(r.stats.warp_insts, 2 * ctas);
    assert_eq!(r.stats.warps.len(), MAX_WARP_RECORDS_PER_SM);
    assert_eq!(r.stats.warps_omitted, ctas - MAX_WARP_RECORDS_PER_SM as u64);
    // The kept records are the first CTAs retired, in order.
    assert_eq!(r.stats.warps[0].cta, [0, 0, 0]);
    assert_eq!(
        r.stats.warps[MAX_WARP_RECORDS_PER_SM - 1].cta,
        [MAX_WARP_RECORDS_PER_SM as u32 - 1, 0, 0]
    );
}

#[test]
fn huge_grids_are_launch_errors() {
    let dir = std::env::temp_dir().join(format!("gpusim-grid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("kernels/saxpy.ptx"), dir.join("saxpy.ptx")).unwrap();
    let m = dir.join("g.toml");
    std::fs::write(
        &m,
        "ptx = \"saxpy.ptx\"\nworkload = \"buffers\"\ngrid = [4294967295, 65535, 65535]\n\
         block = [32, 1, 1]\nparams = [\"x\", \"y\", { u32 = 32 }, { f32 = 2.0 }]\n\
         [[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 32\n\
         [[buffers]]\nname = \"y\"\ntype = \"f32\"\nlen = 32\n",
    )
    .unwrap();
    for extra in [&["--functional"][..], &["--config", "tiny"][..]] {
        let mut args = vec!["run", m.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (code, _, err) = gpusim(&args);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("grid [4294967295, 65535, 65535] has 4294967295 CTAs in x (at most 2147483647 allowed)"),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
