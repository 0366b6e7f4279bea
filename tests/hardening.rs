//! Hardening: no input makes gpusim panic, exhaust memory or hang silently.
//! Config fields and manifests have upper bounds; options that do not apply
//! are errors; a closed stdout ends quietly; runaway and deadlocked kernels
//! end with named errors.

use std::path::Path;
use std::process::Command;

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
