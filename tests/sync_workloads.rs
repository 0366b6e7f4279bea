//! The HeteroSync primitives: every lock and barrier keeps its data right
//! under many interleavings, and a lock or barrier with its waiting removed
//! is caught by the check.

use std::path::{Path, PathBuf};

use gpusim::workload::host::FunctionalOptions;
use gpusim::workload::runner::{prepare, run_functional};

fn sync_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/sync")
}

fn manifests() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(sync_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 12, "six primitives in two scopes");
    v
}

fn run(m: &Path, quantum: u32, resident: u32) -> gpusim::workload::Check {
    let p = prepare(m, None).unwrap_or_else(|e| panic!("{}: {e:?}", m.display()));
    let opts = FunctionalOptions {
        quantum,
        max_resident_ctas: resident,
        ..FunctionalOptions::default()
    };
    run_functional(&p, &[], opts, None)
        .unwrap_or_else(|e| panic!("{} (quantum {quantum}): {e:?}", m.display()))
        .check
}

#[test]
fn every_primitive_is_correct_under_many_interleavings() {
    for m in manifests() {
        for quantum in [1, 2, 3, 7, 16, 100] {
            let c = run(&m, quantum, 1024);
            assert!(c.passed(), "{} quantum {quantum}: {c}", m.display());
        }
    }
}

#[test]
fn locks_need_no_co_residency() {
    for m in manifests()
        .iter()
        .filter(|m| m.to_string_lossy().contains("mutex"))
    {
        let c = run(m, 5, 3);
        assert!(c.passed(), "{} with 3 resident TBs: {c}", m.display());
    }
}

/// Copies a primitive's PTX and manifest into a temp dir with `edit`
/// applied to the PTX.
fn broken(manifest: &str, edit: impl Fn(&str) -> String) -> Scratch {
    let dir = std::env::temp_dir().join(format!("gpusim-sync-{}-{manifest}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let m = sync_dir().join(format!("{manifest}.toml"));
    let text = std::fs::read_to_string(&m).unwrap();
    let ptx_name = text
        .lines()
        .find_map(|l| l.strip_prefix("ptx = \""))
        .unwrap()
        .trim_end_matches('"');
    let ptx = std::fs::read_to_string(sync_dir().join(ptx_name)).unwrap();
    let edited = edit(&ptx);
    assert_ne!(edited, ptx, "the edit must change the kernel");
    std::fs::write(dir.join(ptx_name), edited).unwrap();
    std::fs::write(dir.join(format!("{manifest}.toml")), text).unwrap();
    let manifest = dir.join(format!("{manifest}.toml"));
    Scratch { dir, manifest }
}

/// A scratch directory holding a manifest; removed when dropped.
struct Scratch {
    dir: PathBuf,
    manifest: PathBuf,
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.manifest
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn a_lock_that_never_waits_loses_updates() {
    // The ticket lock's turn check always "succeeds": take the ticket as the
    // turn instead of loading it.
    let m = broken("fa_mutex_global", never_wait);
    let c = run(&m, 1, 1024);
    let text = c.to_string();
    assert!(!c.passed());
    assert!(text.contains("MISMATCH in `data`"), "{text}");
}

/// Replaces every `ld.global.wait.b32 d, [a], expected;` with
/// `mov.b32 d, expected;`: the wait "succeeds" at once.
fn never_wait(ptx: &str) -> String {
    ptx.lines()
        .map(
            |l| match l.trim_start().strip_prefix("ld.global.wait.b32") {
                Some(rest) => {
                    let ops: Vec<&str> = rest.split(',').map(str::trim).collect();
                    let expected = ops[2].split(';').next().unwrap();
                    format!("\tmov.b32 {}, {};", ops[0], expected)
                }
                None => l.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

/// Replaces every `atom.global.cas.b32 d, [a], x, y;` with `mov.b32 d, x;`:
/// the CAS "succeeds" without looking at memory.
fn fake_cas(ptx: &str) -> String {
    ptx.lines()
        .map(
            |l| match l.trim_start().strip_prefix("atom.global.cas.b32") {
                Some(rest) => {
                    let ops: Vec<&str> = rest.split(',').map(str::trim).collect();
                    format!("\tmov.b32 {}, {};", ops[0], ops[2])
                }
                None => l.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_barrier_that_does_not_wait_corrupts_the_episodes() {
    let cases: [(&str, fn(&str) -> String); 2] = [
        ("atomic_tree_barrier_uniq", fake_cas),
        ("lf_tree_barrier_uniq_local_exch", never_wait),
    ];
    for (manifest, edit) in cases {
        let m = broken(manifest, edit);
        let p = prepare(&m, None).unwrap();
        let opts = FunctionalOptions {
            quantum: 1,
            step_limit: 5_000_000,
            ..FunctionalOptions::default()
        };
        // Either the check fails or the kernel never finishes: both are caught.
        match run_functional(&p, &[], opts, None) {
            Ok(r) => assert!(
                !r.check.passed(),
                "{manifest}: a barrier that never waits passed"
            ),
            Err(e) => {
                let e = format!("{e:?}");
                assert!(
                    e.contains("StepLimit") || e.contains("Deadlock"),
                    "{manifest}: {e}"
                );
            }
        }
    }
}
