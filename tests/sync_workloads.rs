//! The HeteroSync primitives and the AWG paper's other synchronization
//! kernels (decentralized ticket lock, hash table, bank account): every
//! lock and barrier keeps its data right under many interleavings, and a
//! lock or barrier with its waiting or locking removed is caught by the
//! check.

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
    assert_eq!(
        v.len(),
        16,
        "six HeteroSync primitives in two scopes, the two ticket-lock columns \
         of AWG Fig. 10, hash table, bank account"
    );
    v
}

fn run(m: &Path, quantum: u32, resident: u32) -> gpusim::workload::Check {
    run_with(m, &[], quantum, resident)
}

/// [`run`] with `--arg` overrides.
fn run_with(
    m: &Path,
    args: &[(&str, &str)],
    quantum: u32,
    resident: u32,
) -> gpusim::workload::Check {
    let p = prepare(m, None).unwrap_or_else(|e| panic!("{}: {e:?}", m.display()));
    let opts = FunctionalOptions {
        quantum,
        max_resident_ctas: resident,
        ..FunctionalOptions::default()
    };
    let args: Vec<(String, String)> = args
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    run_functional(&p, &args, opts, None)
        .unwrap_or_else(|e| panic!("{} (quantum {quantum}): {e:?}", m.display()))
        .check
}

/// The lock kernels (everything but the grid barriers).
fn is_lock(m: &Path) -> bool {
    !m.to_string_lossy().contains("barrier")
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
    let locks: Vec<PathBuf> = manifests().into_iter().filter(|m| is_lock(m)).collect();
    assert_eq!(
        locks.len(),
        12,
        "eight HeteroSync mutexes and four AWG kernels"
    );
    for m in &locks {
        for (quantum, resident) in [(5, 3), (1, 2), (3, 1)] {
            let c = run(m, quantum, resident);
            assert!(
                c.passed(),
                "{} with {resident} resident TBs, quantum {quantum}: {c}",
                m.display()
            );
        }
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

/// An edit of a kernel's PTX text.
type PtxEdit = fn(&str) -> String;

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
    let cases: [(&str, PtxEdit); 2] = [
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

/// Replaces every line starting with `prefix` (`op d, [a], …;`) with
/// `mov.b32 d, value;`: the instruction "succeeds" without looking at memory.
fn replace_with_mov(ptx: &str, prefix: &str, value: &str) -> String {
    ptx.lines()
        .map(|l| match l.trim_start().strip_prefix(prefix) {
            Some(rest) => {
                let dst = rest.split(',').next().unwrap().trim();
                format!("\tmov.b32 {dst}, {value};")
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs a broken kernel under several interleavings; returns the report of
/// the first failing check, and panics if every interleaving passed.
fn fails_under_some_interleaving(m: &Path, buffer: &str) -> String {
    for quantum in [1, 2, 3, 7] {
        let c = run(m, quantum, 1024);
        if !c.passed() {
            let text = c.to_string();
            assert!(
                text.contains(&format!("MISMATCH in `{buffer}")),
                "{}: {text}",
                m.display()
            );
            return text;
        }
    }
    panic!("{}: the broken lock passed every interleaving", m.display());
}

#[test]
fn a_ticket_lock_that_never_waits_loses_updates() {
    // Right column of AWG Fig. 10: compare-and-wait "sees" 1 at once.
    let m = broken("ticket_lock_cmpwait", never_wait);
    fails_under_some_interleaving(&m, "data");
    // Left column: the poll "sees" 1 at once (the separate wait is only a
    // hint and is still executed, but never reached).
    let m = broken("ticket_lock_wait", |p| {
        replace_with_mov(p, "ld.volatile.global.u32", "1")
    });
    fails_under_some_interleaving(&m, "data");
}

#[test]
fn a_hash_table_without_bucket_locks_loses_inserts() {
    // The waiting CAS always "takes" the lock: inserts race and two keys
    // land in one slot.
    let m = broken("hash_table", |p| {
        replace_with_mov(p, "atom.global.cas.wait.b32", "0")
    });
    let text = fails_under_some_interleaving(&m, "counts");
    assert!(text.contains("MISMATCH in `slots"), "{text}");
}

#[test]
fn a_bank_without_account_locks_loses_money() {
    let m = broken("bank_account", |p| {
        replace_with_mov(p, "atom.global.cas.wait.b32", "0")
    });
    fails_under_some_interleaving(&m, "balances");
}

#[test]
fn the_awg_kernels_hold_under_the_most_contention() {
    let dir = sync_dir();
    // One bucket: every insert contends for the same lock.
    let c = run_with(
        &dir.join("hash_table.toml"),
        &[("buckets", "1"), ("capacity", "128")],
        1,
        1024,
    );
    assert!(c.passed(), "hash_table, one bucket: {c}");
    // Two accounts: every transfer locks both.
    for seed in ["1", "2", "3"] {
        let c = run_with(
            &dir.join("bank_account.toml"),
            &[("accounts", "2"), ("seed", seed)],
            2,
            1024,
        );
        assert!(c.passed(), "bank_account, two accounts, seed {seed}: {c}");
    }
    // A longer queue: 16 TBs x 20 tickets.
    for m in ["ticket_lock_cmpwait", "ticket_lock_wait"] {
        let c = run_with(&dir.join(format!("{m}.toml")), &[("iters", "20")], 3, 4);
        assert!(c.passed(), "{m}, 20 iterations, 4 resident TBs: {c}");
    }
}

#[test]
fn a_hash_table_too_small_for_its_keys_is_refused() {
    let p = prepare(&sync_dir().join("hash_table.toml"), None).unwrap();
    let args = [("buckets".to_string(), "1".to_string())];
    let Err(e) = run_functional(&p, &args, FunctionalOptions::default(), None) else {
        panic!("128 keys do not fit one bucket of 32");
    };
    let e = format!("{e:?}");
    assert!(e.contains("bucket 0 receives 128 keys but holds 32"), "{e}");
}

/// Every `// EXT` line of every `kernels/sync/*.ptx` is listed in its
/// file's header as `line N  entry: instruction;  -- what`, with the right
/// line number and instruction, and the header lists nothing else.
#[test]
fn every_extension_line_is_listed_in_its_header() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(sync_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 9);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let listed: Vec<(usize, String)> = text
            .lines()
            .filter_map(|l| {
                let rest = l.strip_prefix("//   line")?.trim_start();
                let (n, rest) = rest.split_once(' ')?;
                let (_entry, rest) = rest.trim_start().split_once(": ")?;
                let (inst, _what) = rest.split_once("  -- ")?;
                Some((n.parse().ok()?, inst.to_string()))
            })
            .collect();
        let actual: Vec<(usize, String)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.starts_with("//") && l.contains("// EXT"))
            .map(|(i, l)| {
                let code = l.split("//").next().unwrap();
                (i + 1, code.split_whitespace().collect::<Vec<_>>().join(" "))
            })
            .collect();
        assert!(!actual.is_empty(), "{}: no EXT line", f.display());
        assert_eq!(listed, actual, "{}", f.display());
    }
}
