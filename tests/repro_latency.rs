//! `gpusim repro lfws` / `gpusim repro blws` (`report::repro_latency`):
//! cells against direct runs of their policies, the means and claims
//! re-derived from the cycle counts, the long-operation shares from the
//! counters, independence of `--jobs`, the Fig. 1 worked example on the
//! cycle-level pipeline, and the CLI end to end.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpusim::config::load_config;
use gpusim::report::repro_latency::{self, Options, Repro, Study, fig1};
use gpusim::timing::host::{Policies, run_timed_with};
use gpusim::workload::runner::prepare;

fn dir(study: &Study) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(study.dir)
}

fn quick(study: &Study, jobs: usize, only: &[&str]) -> Repro {
    let opts = Options {
        dir: dir(study),
        jobs,
        quick: true,
        only: only.iter().map(|s| s.to_string()).collect(),
    };
    repro_latency::run(study, &opts, &|_| {}).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

#[test]
fn every_lfws_cell_is_a_direct_run_and_the_means_follow() {
    let study = &repro_latency::LFWS;
    let r = quick(study, 2, &["SP", "NW"]);
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    let mut cfg = load_config("gtx480", &[]).unwrap();
    cfg.core.num_sms = repro_latency::QUICK_SMS;
    for k in &r.kernels {
        let kernel = study.kernels.iter().find(|x| x.name == k.name).unwrap();
        let p = prepare(&dir(study).join(kernel.file), None).unwrap();
        let args: Vec<(String, String)> = kernel
            .quick_args
            .iter()
            .map(|(a, v)| (a.to_string(), v.to_string()))
            .collect();
        for s in study.setups {
            let pol = Policies {
                cta: s.cta.to_string(),
                ..Policies::sched(s.sched)
            };
            let direct = run_timed_with(&p, &args, &cfg, &pol, false).unwrap();
            let cell = k.run(s.label).unwrap();
            assert_eq!(cell.cycles, direct.stats.cycles, "{} {}", k.name, s.label);
            assert_eq!(cell.warp_insts, direct.stats.warp_insts);
            assert_eq!(cell.long_ops, direct.stats.total.long_ops);
        }
    }
    // LFWS over LRR: the arithmetic mean of the per-kernel IPC ratios.
    let ratio = |k: &str, a: &str, b: &str| {
        let k = r.kernels.iter().find(|x| x.name == k).unwrap();
        let (a, b) = (k.run(a).unwrap(), k.run(b).unwrap());
        (a.warp_insts as f64 / a.cycles as f64) / (b.warp_insts as f64 / b.cycles as f64)
    };
    let want = (ratio("SP", "LFWS", "LRR") + ratio("NW", "LFWS", "LRR")) / 2.0;
    let claim = &r.claims[0];
    assert!(claim.what.starts_with("LFWS over LRR, all"));
    assert!((claim.ours.unwrap() - want).abs() < 1e-12);
    // The long-heavy subset is SP alone here.
    assert!((r.claims[1].ours.unwrap() - ratio("SP", "LFWS", "LRR")).abs() < 1e-12);
    // Table 2's share: long ops over warp instructions, printed to 0.01%.
    let sp = r.kernels.iter().find(|k| k.name == "SP").unwrap();
    let lrr = sp.run("LRR").unwrap();
    assert!(lrr.long_ops > 0 && lrr.long_ops < lrr.warp_insts);
    let share = format!("{:.2}", 100.0 * lrr.long_ops as f64 / lrr.warp_insts as f64);
    assert!(
        r.long_ops_table().contains(&share),
        "{}",
        r.long_ops_table()
    );
    // The normalized table's LRR column is 1.000 everywhere.
    for line in r.normalized_table().lines().skip(2) {
        assert_eq!(line.split_whitespace().nth(1), Some("1.000"), "{line}");
    }
}

#[test]
fn results_do_not_depend_on_jobs() {
    let study = &repro_latency::BLWS;
    let a = quick(study, 1, &["VA", "MS"]);
    let b = quick(study, 2, &["VA", "MS"]);
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn blws_throttle_cells_run_the_throttle_cta_policy() {
    let study = &repro_latency::BLWS;
    let r = quick(study, 2, &["VA"]);
    let va = &r.kernels[0];
    let mut cfg = load_config("gtx480", &[]).unwrap();
    cfg.core.num_sms = repro_latency::QUICK_SMS;
    let p = prepare(&dir(study).join("vector_add.toml"), None).unwrap();
    let args = vec![("n".to_string(), "12500".to_string())];
    let pol = Policies {
        cta: "throttle".into(),
        ..Policies::sched("blws")
    };
    let direct = run_timed_with(&p, &args, &cfg, &pol, false).unwrap();
    assert_eq!(va.run("BLWS+throttle").unwrap().cycles, direct.stats.cycles);
    let c = va.run("BLWS").unwrap();
    assert_eq!(
        c.dram_full + c.icnt_to_sm,
        run_timed_with(&p, &args, &cfg, &Policies::sched("blws"), false)
            .map(|r| r.stats.mem.dram_full + r.stats.mem.reply_full)
            .unwrap()
    );
}

/// Cycles in a pipeline schedule in which a `ret` issued.
fn rets(r: &fig1::Fig1Run) -> u64 {
    r.schedule.split(' ').filter(|s| *s == "x").count() as u64
}

#[test]
fn fig1_on_the_pipeline_keeps_the_figures_rules_and_adds_at_most_the_ret_slots() {
    // The pipeline runs the figure's six programs with a load's dependent
    // 10 cycles behind it and one issue per cycle; what it adds is each
    // warp's `ret`, which takes an issue slot (`x`). So its schedule obeys
    // the figure's rules, and it can lose at most one cycle per `ret`
    // issued inside the window against the figure's machine.
    let m = dir(&repro_latency::LFWS).join("fig1.toml");
    for name in fig1::PIPELINE_POLICIES {
        let p = fig1::run_pipeline(&m, name, None).unwrap();
        let ideal = fig1::run_policy(name, None).unwrap();
        let slots: Vec<&str> = p.schedule.split(' ').collect();
        assert_eq!(
            slots.iter().filter(|s| **s != "." && **s != "x").count(),
            24,
            "{name}: {}",
            p.schedule
        );
        // Per warp, its ops in program order, each issued no earlier than
        // its predecessor's latency allows.
        for w in 0..6 {
            let mine: Vec<(usize, char)> = slots
                .iter()
                .enumerate()
                .filter(|(_, s)| s.starts_with(&(w + 1).to_string()) && s.len() == 2)
                .map(|(c, s)| (c, s.chars().nth(1).unwrap()))
                .collect();
            let ops: Vec<char> = fig1::PROGRAMS[w]
                .iter()
                .map(|o| if *o == fig1::Op::Long { 'L' } else { 'S' })
                .collect();
            assert_eq!(mine.iter().map(|x| x.1).collect::<Vec<_>>(), ops, "{name}");
            for k in 1..4 {
                let lat = if ops[k - 1] == 'L' { 10 } else { 1 };
                assert!(
                    mine[k].0 - mine[k - 1].0 >= lat,
                    "{name} warp {}: {}",
                    w + 1,
                    p.schedule
                );
            }
        }
        assert!(p.cycles >= ideal.cycles, "{name}");
        assert!(
            p.cycles - ideal.cycles <= rets(&p),
            "{name}: {}",
            p.schedule
        );
        assert_eq!(p.idle, p.cycles - 24);
    }
    // SRR idles through every ret-free turn: the paper's 45 exactly.
    let srr = fig1::run_pipeline(&m, "srr", None).unwrap();
    assert_eq!((srr.cycles, srr.idle), (45, 21));
    // LFWS issues the four long warps first, as in Fig. 1(d).
    let lfws = fig1::run_pipeline(&m, "lfws", None).unwrap();
    assert!(
        lfws.schedule.starts_with("1L 3L 5L 6L"),
        "{}",
        lfws.schedule
    );
}

#[test]
fn the_cli_prints_the_tables_and_writes_json() {
    let out_dir = std::env::temp_dir().join(format!("gpusim-repro-latency-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let json = out_dir.join("blws.json");
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "repro", "blws", "--quick", "--kernel", "VA", "--jobs", "2", "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("Figs. 3 and 4: IPC normalized to RR"),
        "{stdout}"
    );
    assert!(
        stdout.contains("BLWS+throttle over RR (Fig. 4)"),
        "{stdout}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with('[')).count(),
        4,
        "{stderr}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["study"], "blws");
    assert_eq!(v["kernels"][0]["cells"].as_array().unwrap().len(), 4);
    // An unknown kernel is exit status 2 with the known names.
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["repro", "lfws", "--quick", "--kernel", "AES"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NNEI"));
    let _ = std::fs::remove_dir_all(&out_dir);
}
