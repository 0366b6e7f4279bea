//! `gpusim repro baws` (`report::repro_baws`): the quick variant with every
//! number re-derived independently (cells against direct runs, ratios and
//! harmonic means from the cycle counts, the stall table from the stall
//! counts), independence of `--jobs`, the CLI end to end and its errors.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use gpusim::report::repro_baws::{self, Class, Options, Repro, Setup};
use gpusim::timing::host::{Policies, run_timed_with};
use gpusim::workload::runner::prepare;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(repro_baws::DEFAULT_DIR)
}

fn quick(jobs: usize, only: &[&str]) -> Repro {
    let opts = Options {
        dir: dir(),
        jobs,
        quick: true,
        only: only.iter().map(|s| s.to_string()).collect(),
    };
    repro_baws::run(&opts, &|_| {}).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// The whole quick reproduction, run once for the tests that read it.
fn full() -> &'static Repro {
    static R: OnceLock<Repro> = OnceLock::new();
    R.get_or_init(|| quick(2, &[]))
}

fn ipc(r: &Repro, kernel: &str, s: Setup) -> f64 {
    let run = r
        .kernels
        .iter()
        .find(|k| k.name == kernel)
        .and_then(|k| k.run(s))
        .unwrap_or_else(|| panic!("{kernel} {s:?}"));
    run.warp_insts as f64 / run.cycles as f64
}

fn hmean(xs: &[f64]) -> f64 {
    xs.len() as f64 / xs.iter().map(|x| 1.0 / x).sum::<f64>()
}

/// The numbers of one printed row after its name.
fn printed_row(table: &str, name: &str) -> Vec<f64> {
    let line = table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"));
    line.split_whitespace()
        .skip(1)
        .map(|w| w.parse().unwrap_or_else(|_| panic!("`{w}` in `{line}`")))
        .collect()
}

#[test]
fn every_cell_ran_and_the_classes_run_their_setups() {
    let r = full();
    assert_eq!(r.sms, repro_baws::QUICK_SMS);
    assert!(r.errors().is_empty(), "{:?}", r.errors());
    assert_eq!(r.kernels.len(), repro_baws::KERNELS.len());
    let bi = r
        .kernels
        .iter()
        .filter(|k| k.class == Class::Barrier)
        .count();
    assert!(bi >= 6, "{bi} barrier-intensive kernels");
    assert!(r.kernels.len() - bi >= 6);
    for k in &r.kernels {
        let want: Vec<Setup> = match k.class {
            Class::Barrier => Setup::ALL.to_vec(),
            Class::NonBarrier => Setup::NON_BARRIER.to_vec(),
        };
        let got: Vec<Setup> = k.cells.iter().map(|c| c.setup).collect();
        assert_eq!(got, want, "{}", k.name);
        for c in &k.cells {
            let run = c.run.as_ref().expect("ran");
            assert_eq!(run.ipc, run.warp_insts as f64 / run.cycles as f64);
            // Every scheduler-cycle is in exactly one state: 2 schedulers
            // per SM.
            let schedulers = 2 * u64::from(repro_baws::QUICK_SMS);
            assert_eq!(
                run.stalls.total(),
                schedulers * run.cycles,
                "{} {:?}",
                k.name,
                c.setup
            );
        }
    }
}

#[test]
fn cells_equal_direct_runs_of_their_policies() {
    let r = full();
    let sp = r.kernels.iter().find(|k| k.name == "SP").unwrap();
    let p = prepare(&dir().join("sp.toml"), None).unwrap();
    let direct = |sched: &str, fetch: &str, extra: &[(&str, &str)]| {
        let mut sets = vec![("core.num_sms".to_string(), "4".to_string())];
        sets.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let cfg = gpusim::config::load_config("baws", &sets).unwrap();
        let pol = Policies {
            fetch: fetch.to_string(),
            ..Policies::sched(sched)
        };
        let run = run_timed_with(&p, &sp.args, &cfg, &pol, false).unwrap();
        assert!(run.check.passed());
        run.stats.cycles
    };
    // BAWS is MWF(GTO) with CFF fetch; the I-buffer cell sets 4 entries.
    assert_eq!(
        sp.run(Setup::Baws).unwrap().cycles,
        direct("mwf-gto", "cff", &[])
    );
    assert_eq!(
        sp.run(Setup::MwfLrrCff).unwrap().cycles,
        direct("mwf-lrr", "cff", &[])
    );
    assert_eq!(
        sp.run(Setup::MwfGtoFef).unwrap().cycles,
        direct("mwf-gto", "fef", &[])
    );
    assert_eq!(
        sp.run(Setup::GtoIbuf4).unwrap().cycles,
        direct("gto", "lrr", &[("core.ibuffer_entries", "4")])
    );
    assert_eq!(
        sp.run(Setup::Tls).unwrap().cycles,
        direct("two-level", "lrr", &[])
    );
    assert_eq!(
        sp.run(Setup::SawsCff).unwrap().cycles,
        direct("saws", "cff", &[])
    );
}

#[test]
fn printed_ratios_and_means_follow_from_the_cycles() {
    let r = full();
    let fig8 = r.fig8_table();
    let bis: Vec<&str> = r
        .kernels
        .iter()
        .filter(|k| k.class == Class::Barrier)
        .map(|k| k.name.as_str())
        .collect();
    let fig8_setups = [
        Setup::Lrr,
        Setup::Gto,
        Setup::Tls,
        Setup::MwfLrr,
        Setup::MwfGto,
        Setup::MwfLrrCff,
        Setup::Baws,
    ];
    for name in &bis {
        let row = printed_row(&fig8, name);
        assert_eq!(row.len(), fig8_setups.len());
        for (x, s) in row.iter().zip(fig8_setups) {
            let want = ipc(r, name, s) / ipc(r, name, Setup::Lrr);
            assert!(
                (x - want).abs() <= 0.0005 + 1e-9,
                "{name} {s:?}: {x} vs {want}"
            );
        }
    }
    // HMEAN row: the harmonic mean of the per-kernel ratios.
    let hm = printed_row(&fig8, "HMEAN");
    let baws: Vec<f64> = bis
        .iter()
        .map(|n| ipc(r, n, Setup::Baws) / ipc(r, n, Setup::Lrr))
        .collect();
    assert!((hm[6] - hmean(&baws)).abs() <= 0.0005 + 1e-9);
    assert_eq!(hm[0], 1.0);

    // Fig. 12 is normalized to GTO; the claims read the same means.
    let fig12 = r.fig12_table();
    let over_gto: Vec<f64> = bis
        .iter()
        .map(|n| ipc(r, n, Setup::Baws) / ipc(r, n, Setup::Gto))
        .collect();
    assert!((printed_row(&fig12, "HMEAN")[0] - hmean(&over_gto)).abs() <= 0.0005 + 1e-9);
    let claims = r.claims();
    let c = claims
        .iter()
        .find(|c| c.what.starts_with("BAWS over GTO, barrier"))
        .unwrap();
    assert!((c.ours.unwrap() - hmean(&over_gto)).abs() < 1e-12);
    let worst = claims
        .iter()
        .find(|c| c.what.starts_with("BAWS never below LRR"))
        .unwrap();
    let min = baws.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(worst.ours, Some(min));

    // Fig. 11 covers the non-barrier kernels only.
    let fig11 = r.fig11_table();
    for k in &r.kernels {
        let listed = fig11
            .lines()
            .any(|l| l.split_whitespace().next() == Some(k.name.as_str()));
        assert_eq!(listed, k.class == Class::NonBarrier, "{}", k.name);
    }
}

#[test]
fn the_stall_table_is_normalized_to_lrr_and_sums_to_its_total() {
    let r = full();
    let t = r.fig10_table();
    for k in r.kernels.iter().filter(|k| k.class == Class::Barrier) {
        let lines: Vec<&str> = t
            .lines()
            .filter(|l| l.split_whitespace().next() == Some(k.name.as_str()))
            .collect();
        assert_eq!(lines.len(), 4, "{}", k.name);
        let lrr = k.run(Setup::Lrr).unwrap().stalls;
        let base = (lrr.total() - lrr.issued - lrr.idle) as f64;
        for (line, s) in lines
            .iter()
            .zip([Setup::Lrr, Setup::Gto, Setup::MwfLrr, Setup::MwfLrrCff])
        {
            let v: Vec<f64> = line
                .split_whitespace()
                .skip(2)
                .map(|w| w.parse().unwrap())
                .collect();
            assert_eq!(v.len(), 8, "{line}");
            let st = k.run(s).unwrap().stalls;
            assert!(
                (v[3] - st.barrier as f64 / base).abs() <= 0.0005 + 1e-9,
                "{line}"
            );
            let sum: f64 = v[..7].iter().sum();
            assert!((sum - v[7]).abs() <= 0.004, "{line}");
            if s == Setup::Lrr {
                assert_eq!(v[7], 1.0);
            }
        }
    }
}

#[test]
fn results_do_not_depend_on_jobs() {
    let one = quick(1, &["SP", "kmn"]);
    let r = full();
    for k in &one.kernels {
        let same = r.kernels.iter().find(|x| x.name == k.name).unwrap();
        assert_eq!(k, same);
    }
    assert_eq!(
        one.kernels
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>(),
        ["SP", "KMN"]
    );
}

#[test]
fn cli_prints_tables_progress_and_json_and_names_unknown_kernels() {
    let tmp = std::env::temp_dir().join(format!("gpusim-repro-baws-{}.json", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args([
            "repro", "baws", "--quick", "--jobs", "2", "--kernel", "HISTO",
        ])
        .arg("--json")
        .arg(&tmp)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for t in [
        "Fig. 8", "Fig. 9", "Fig. 10", "6.4", "Fig. 11", "Fig. 12", "claims",
    ] {
        assert!(stdout.contains(t), "{t} missing:\n{stdout}");
    }
    // One progress line per cell, numbered.
    let n = Setup::ALL.len();
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with('[')).count(),
        n,
        "{stderr}"
    );
    assert!(stderr.contains(&format!("[{n:>3}/{n}] HISTO")), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tmp).unwrap()).unwrap();
    std::fs::remove_file(&tmp).ok();
    assert_eq!(json["config"], "baws");
    assert_eq!(json["kernels"][0]["cells"].as_array().unwrap().len(), n);
    assert!(json["claims"].as_array().unwrap().len() >= 8);

    let bad = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(["repro", "baws", "--quick", "--kernel", "nope"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("no reproduction kernel `nope`") && err.contains("SRAD2"),
        "{err}"
    );
}
