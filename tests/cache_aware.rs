//! The cache-aware policies end to end: the loop table of a real kernel,
//! `best-swl` against independent `swl:N` runs, profile files (recorded on
//! one input, used on another, rejected with named errors when they do not
//! fit), throttling showing up in the statistics, and the CLI's errors.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use gpusim::config::GpuConfig;
use gpusim::sched::daws::loops::LoopTable;
use gpusim::sched::daws::profile::DawsProfile;
use gpusim::timing::sweep::best_swl;
use gpusim::timing::{Policies, Stall, run_timed_with};
use gpusim::workload::runner::prepare;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn spmv_scalars_row_loop_has_its_three_loads() {
    let p = gpusim::load(&root().join("kernels/spmv_scalar_global.ptx")).expect("loads");
    let k = &p.module.kernels[0];
    let t = LoopTable::new(k, &p.analyses[0], false);
    assert_eq!(t.loops.len(), 1);
    let l = &t.loops[0];
    // The loop is `$L__BB0_3: ld cols; ld val; …; ld vec; … @%p3 bra`.
    let text = |pc: u32| p.inst_text(0, pc as usize);
    assert!(
        text(l.begin).starts_with("ld.global.u32"),
        "{}",
        text(l.begin)
    );
    assert!(text(l.end).contains("bra"), "{}", text(l.end));
    assert_eq!(l.loads.len(), 3);
    assert_eq!(l.loads[0], l.begin);
    assert!(text(l.loads[1]).starts_with("ld.global.f32"));
    assert!(text(l.loads[2]).starts_with("ld.global.f32"));
    assert_eq!(t.begins_at(l.begin), Some(0));
    assert_eq!(t.next_after(0), Some(0));
    assert_eq!(t.next_after(l.begin), None);
}

#[test]
fn spmv_scalars_texture_fetch_is_a_loop_load_only_without_a_texture_cache() {
    // Read through the texture cache, vec[col] is none of the loads DAWS
    // classifies: the loop's loads are cols[j] and val[j].
    let p = gpusim::load(&root().join("kernels/spmv_scalar.ptx")).expect("loads");
    let k = &p.module.kernels[0];
    let t = LoopTable::new(k, &p.analyses[0], false);
    assert_eq!(t.loops.len(), 1);
    let l = &t.loops[0];
    let text = |pc: u32| p.inst_text(0, pc as usize);
    assert_eq!(l.loads.len(), 2);
    assert!(text(l.loads[0]).starts_with("ld.global.u32"));
    assert!(text(l.loads[1]).starts_with("ld.global.f32"));
    assert!((l.begin..=l.end).any(|pc| text(pc).starts_with("tex.1d")));
    // On a machine without a texture cache (`l1t.sets = 0`) the fetch goes
    // through the L1D, and DAWS counts it among the loop's loads.
    let t = LoopTable::new(k, &p.analyses[0], true);
    let l = &t.loops[0];
    assert_eq!(l.loads.len(), 3);
    assert!(
        text(l.loads[2]).starts_with("tex.1d"),
        "{}",
        text(l.loads[2])
    );
}

/// SPMV-scalar on `tiny` with enough rows to keep 16 warps busy.
fn spmv_tiny() -> (gpusim::workload::runner::Prepared, Vec<(String, String)>) {
    let p = prepare(
        &root().join("fixtures/tiny/../../kernels/spmv_scalar.toml"),
        None,
    )
    .expect("manifest");
    (p, vec![("rows".into(), "512".into())])
}

#[test]
fn best_swl_is_the_fastest_of_independent_swl_runs() {
    let (p, args) = spmv_tiny();
    let mut cfg = GpuConfig::tiny();
    cfg.core.max_warps_per_sm = 6;
    cfg.core.max_threads_per_sm = 6 * 32;
    let sweep = best_swl(&p, &args, &cfg, &Policies::sched("gto"), 2).expect("sweep");
    assert_eq!(sweep.cycles.len(), 6);
    assert!(sweep.failed_checks.is_empty());
    for &(n, cycles) in &sweep.cycles {
        let one = run_timed_with(
            &p,
            &args,
            &cfg,
            &Policies::sched(&format!("swl:{n}")),
            false,
        )
        .expect("run");
        assert!(one.check.passed());
        assert_eq!(one.stats.cycles, cycles, "swl:{n}");
    }
    let min = sweep.cycles.iter().map(|c| c.1).min().unwrap();
    let first = sweep.cycles.iter().find(|c| c.1 == min).unwrap().0;
    assert_eq!(sweep.best.stats.cycles, min);
    assert_eq!(sweep.best_limit, first, "ties go to the smaller N");
    // One thread gives the same sweep.
    let one = best_swl(&p, &args, &cfg, &Policies::sched("gto"), 1).expect("sweep");
    assert_eq!(one.cycles, sweep.cycles);
}

#[test]
fn swl_limits_the_warps_that_issue() {
    let (p, args) = spmv_tiny();
    let cfg = GpuConfig::tiny();
    let r = run_timed_with(&p, &args, &cfg, &Policies::sched("swl:1"), true).expect("run");
    assert!(r.check.passed());
    // With one warp allowed, consecutive issues come from one warp until
    // it exits or waits at a barrier: at most as many switches as warps.
    let switches = r
        .issue_log
        .windows(2)
        .filter(|w| w[0].slot != w[1].slot)
        .count() as u64;
    let warps = r.stats.warps.len() as u64;
    assert!(
        switches < warps + 1,
        "{switches} switches for {warps} warps"
    );
    // …and the other resident warps spend cycles throttled.
    assert!(r.stats.total.warp_states.get(Stall::Throttled) > 0);
}

#[test]
fn a_profile_from_one_input_drives_daws_profiled_on_another() {
    let p = prepare(&root().join("kernels/spmv_scalar.toml"), None).expect("manifest");
    let cfg = GpuConfig::preset("daws").unwrap();
    // The manifest's matrix (seed 1) and another one (seed 2).
    let seed1: [(String, String); 0] = [];
    let seed2 = [("seed".to_string(), "2".to_string())];
    let rec = Policies {
        record_profile: true,
        ..Policies::sched("gto")
    };
    let recorded = run_timed_with(&p, &seed2, &cfg, &rec, false).expect("profile run");
    let profile = recorded.profile.expect("a profile");
    assert_eq!(profile.kernels.len(), 1);
    let loops = &profile.kernels[0].loops;
    assert_eq!(loops.len(), 1, "the row loop has intra-warp locality");
    // cols[j] and val[j] are diverged (one row per lane).
    assert!(loops[0].loads.iter().filter(|l| l.diverged).count() >= 2);
    // The file round-trips and checks against the program.
    let text = serde_json::to_string_pretty(&profile).unwrap();
    let back = DawsProfile::parse("p.json", &text).expect("parses");
    assert_eq!(back, profile);
    back.check_program("p.json", &p.program).expect("fits");
    // Used on seed 1: throttles, passes, and differs from gto.
    let pol = Policies {
        profile: Some(Arc::new(back)),
        ..Policies::sched("daws-profiled")
    };
    let r = run_timed_with(&p, &seed1, &cfg, &pol, false).expect("run");
    assert!(r.check.passed());
    assert!(r.stats.total.warp_states.get(Stall::Throttled) > 0);
    let g = run_timed_with(&p, &seed1, &cfg, &Policies::sched("gto"), false).unwrap();
    assert_ne!(g.stats.cycles, r.stats.cycles);
}

#[test]
fn profiles_that_do_not_fit_are_named_errors() {
    let p = gpusim::load(&root().join("kernels/spmv_scalar.ptx")).expect("loads");
    let name = p.module.kernels[0].name.clone();
    let bad_json = DawsProfile::parse("t.json", "{ not json").unwrap_err();
    assert!(
        bad_json.starts_with("t.json: not a DAWS profile"),
        "{bad_json}"
    );
    let wrong_format =
        DawsProfile::parse("t.json", r#"{"format":"x","version":1,"kernels":[]}"#).unwrap_err();
    assert!(
        wrong_format.contains("gpusim-daws-profile"),
        "{wrong_format}"
    );
    let no_kernel = DawsProfile::parse(
        "t.json",
        r#"{"format":"gpusim-daws-profile","version":1,"kernels":[{"kernel":"nope","loops":[]}]}"#,
    )
    .unwrap()
    .check_program("t.json", &p)
    .unwrap_err();
    assert!(no_kernel.contains("t.json: kernel `nope`"), "{no_kernel}");
    let no_loop = DawsProfile::parse(
        "t.json",
        &format!(
            r#"{{"format":"gpusim-daws-profile","version":1,"kernels":[{{"kernel":"{name}","loops":[{{"begin_pc":0,"end_pc":1,"line":1,"loads":[]}}]}}]}}"#
        ),
    )
    .unwrap()
    .check_program("t.json", &p)
    .unwrap_err();
    assert!(no_loop.contains("no loop begins at pc 0"), "{no_loop}");
}

fn gpusim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_cli_explains_bad_scheduler_arguments() {
    let (code, _, err) = gpusim(&["run", "kernels/vector_add.ptx", "--sched", "swl:0"]);
    assert_eq!(code, 2);
    assert!(err.contains("`swl:0`: the warp limit must be"), "{err}");
    let (code, _, err) = gpusim(&["run", "kernels/vector_add.ptx", "--sched", "daws-profiled"]);
    assert_eq!(code, 2);
    assert!(err.contains("--profile FILE"), "{err}");
    let (code, _, err) = gpusim(&[
        "run",
        "kernels/vector_add.ptx",
        "--sched",
        "daws-profiled",
        "--profile",
        "no/such/file.json",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read no/such/file.json"), "{err}");
}

#[test]
fn the_cli_records_and_uses_a_profile() {
    let dir = std::env::temp_dir().join(format!("gpusim-cache-aware-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("spmv.json");
    let o = out.to_str().unwrap();
    let (code, stdout, err) = gpusim(&[
        "profile",
        "kernels/spmv_scalar.ptx",
        "--args",
        "seed=2",
        "-o",
        o,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("1 loop with intra-warp locality"),
        "{stdout}"
    );
    let (code, stdout, err) = gpusim(&[
        "run",
        "kernels/spmv_scalar.ptx",
        "--config",
        "daws",
        "--sched",
        "daws-profiled",
        "--profile",
        o,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("PASS"), "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}
