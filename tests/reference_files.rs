//! The committed GPGPU-Sim reference files (`correlation/*.toml`): each
//! parses (the parser refuses duplicate names and zero cycles), has
//! figures for both schedulers, and describes the same workload as its
//! manifest — the instruction counts
//! and launches GPGPU-Sim recorded equal what `gpusim run --functional`
//! executes on that manifest today. A changed driver, input or PTX that
//! would make `gpusim correlate` compare different work fails here.

use std::path::Path;
use std::process::Command;

use gpusim::report::correlate::Sched;
use gpusim::report::correlate::reference::load_reference;

/// The reference files `gpusim correlate` is run on (docs/correlation.md).
const FILES: [&str; 4] = [
    "correlation/gtx480.toml",
    "correlation/gtx480-holdout.toml",
    "correlation/gtx480-constant.toml",
    "correlation/gtx480-papers.toml",
];

/// Launches, warp and thread instructions of `gpusim run MANIFEST
/// --functional`.
fn functional_counts(manifest: &str, dir: &Path) -> (u64, u64, u64) {
    let json = dir.join(format!("{}.json", manifest.replace('/', "_")));
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(["run", manifest, "--functional", "--json"])
        .arg(&json)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gpusim");
    assert!(
        out.status.success(),
        "{manifest}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["check_passed"], true, "{manifest}: CPU reference check");
    (
        v["launches"].as_u64().unwrap(),
        v["warp_insts"].as_u64().unwrap(),
        v["thread_insts"].as_u64().unwrap(),
    )
}

#[test]
fn committed_references_describe_their_manifests_workloads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("gpusim-reffiles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut kernels = 0;
    for file in FILES {
        let r = load_reference(&root.join(file)).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        assert_eq!(r.schedulers(), [Sched::Lrr, Sched::Gto], "{file}");
        for k in &r.kernels {
            assert!(
                root.join(&k.manifest).is_file(),
                "{file}: {}: no manifest {}",
                k.name,
                k.manifest
            );
            let (launches, warps, threads) = functional_counts(&k.manifest, &dir);
            for s in [Sched::Lrr, Sched::Gto] {
                let f = k
                    .figures(s)
                    .unwrap_or_else(|| panic!("{file}: {} has no {} figures", k.name, s.name()));
                let what = format!("{file}: {} {}", k.name, s.name());
                assert_eq!(f.launches, launches, "{what}: launches");
                assert_eq!(f.warp_insts, warps, "{what}: warp instructions");
                assert_eq!(f.thread_insts, threads, "{what}: thread instructions");
                assert!(f.l1d_misses <= f.l1d_accesses, "{what}: L1D misses");
                assert!(f.l2_misses <= f.l2_accesses, "{what}: L2 misses");
            }
            kernels += 1;
        }
    }
    // 21 main, 10 held-out, 2 constant-cache and 15 paper kernels.
    assert_eq!(kernels, 48);
    std::fs::remove_dir_all(&dir).ok();
}
