//! `gpusim repro daws` (`report::repro`): the quick variant end to end,
//! with every number it prints re-derived independently, plus its error
//! paths (unknown kernel, missing manifest, failed check).

use std::path::{Path, PathBuf};

use gpusim::report::repro::{self, Class, Options, Repro, Scheduler};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(repro::DEFAULT_DIR)
}

fn quick(jobs: usize, only: &[&str]) -> Repro {
    let opts = Options {
        dir: dir(),
        jobs,
        quick: true,
        only: only.iter().map(|s| s.to_string()).collect(),
    };
    repro::run(&opts, &|_| {}).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// The numbers of one printed row: the cells after the name and class
/// (Best-SWL's `(swl:N)` dropped).
fn printed_row(table: &str, name: &str) -> Vec<f64> {
    let line = table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"));
    line.split_whitespace()
        .skip(2)
        .filter(|w| !w.starts_with("(swl:"))
        .map(|w| w.parse().unwrap_or_else(|_| panic!("`{w}` in `{line}`")))
        .collect()
}

#[test]
fn quick_repro_numbers_are_consistent_and_independent_of_jobs() {
    let r = quick(2, &[]);
    assert_eq!(r.sms, repro::QUICK_SMS);
    assert_eq!(r.kernels.len(), repro::KERNELS.len());
    let cfg = gpusim::config::load_config(
        repro::CONFIG,
        &[("core.num_sms".to_string(), repro::QUICK_SMS.to_string())],
    )
    .unwrap();

    // Every cell ran and passed its check.
    assert!(r.all_passed(), "{:?}", r.errors());
    for k in &r.kernels {
        assert_eq!(k.cells.len(), Scheduler::ALL.len());
        for (c, s) in k.cells.iter().zip(Scheduler::ALL) {
            assert_eq!(c.sched, s);
            let run = c.run.as_ref().expect("cell ran");
            assert!(c.error.is_none());
            assert!(run.cycles > 0 && run.warp_insts > 0);
            // IPC is warp instructions per cycle.
            assert_eq!(run.ipc, run.warp_insts as f64 / run.cycles as f64);
        }
        // The CCWS column is exactly 1 and every other ratio is IPC over
        // CCWS's IPC.
        assert_eq!(k.normalized_ipc(Scheduler::Ccws), Some(1.0));
        let ccws = k.run(Scheduler::Ccws).unwrap();
        for s in Scheduler::ALL {
            let run = k.run(s).unwrap();
            let want = (run.warp_insts as f64 / run.cycles as f64)
                / (ccws.warp_insts as f64 / ccws.cycles as f64);
            assert!((k.normalized_ipc(s).unwrap() - want).abs() < 1e-12);
        }
        // Best-SWL: the sweep covers swl:1..=warp slots, its cycles are
        // the sweep's minimum, and the limit is the first N reaching it.
        let b = k.run(Scheduler::BestSwl).unwrap();
        let ns: Vec<u32> = b.sweep.iter().map(|&(n, _)| n).collect();
        assert_eq!(
            ns,
            (1..=cfg.core.max_warps_per_sm).collect::<Vec<_>>(),
            "{}",
            k.name
        );
        let min = b.sweep.iter().map(|&(_, c)| c).min().unwrap();
        assert_eq!(b.cycles, min, "{}", k.name);
        let first = b.sweep.iter().find(|&&(_, c)| c == min).unwrap().0;
        assert_eq!(b.swl_limit, Some(first), "{}", k.name);
        // Profiled-DAWS records how many loops its profile had.
        assert!(
            k.run(Scheduler::DawsProfiled)
                .unwrap()
                .profile_loops
                .is_some()
        );
        assert!(k.run(Scheduler::Gto).unwrap().swl_limit.is_none());
    }

    // SPMV-scalar's profile (seed 2) finds its row loop.
    let spmv = &r.kernels[0];
    assert_eq!(spmv.name, "SPMV-scalar");
    assert!(
        spmv.run(Scheduler::DawsProfiled).unwrap().profile_loops >= Some(1),
        "SPMV-scalar's row loop has intra-warp locality"
    );
    assert!(spmv.args.contains(&("seed".to_string(), "1".to_string())));

    // A cell equals a separate run of the same scheduler (same manifest,
    // same arguments): the GTO cell and Best-SWL's winner.
    let prepared =
        gpusim::workload::runner::prepare(&dir().join("spmv_scalar.toml"), None).unwrap();
    let gto = gpusim::timing::run_timed(&prepared, &spmv.args, &cfg, "gto", "lrr").unwrap();
    assert!(gto.check.passed());
    assert_eq!(gto.stats.cycles, spmv.run(Scheduler::Gto).unwrap().cycles);
    let best = spmv.run(Scheduler::BestSwl).unwrap();
    let swl = gpusim::timing::run_timed(
        &prepared,
        &spmv.args,
        &cfg,
        &format!("swl:{}", best.swl_limit.unwrap()),
        "lrr",
    )
    .unwrap();
    assert_eq!(swl.stats.cycles, best.cycles);

    // The harmonic means: from the cells' own cycles and instructions, and
    // from the numbers the Fig. 8 table prints (3 decimals).
    let fig8 = r.fig8_table();
    for class in [Class::Sensitive, Class::Insensitive] {
        let members: Vec<_> = r.kernels.iter().filter(|k| k.class == class).collect();
        assert!(!members.is_empty());
        let printed_mean = printed_row(&fig8, &format!("HMEAN-{}", class.label()));
        for (i, s) in Scheduler::ALL.into_iter().enumerate() {
            let inv: f64 = members
                .iter()
                .map(|k| {
                    let c = k.run(Scheduler::Ccws).unwrap();
                    let x = k.run(s).unwrap();
                    (c.warp_insts as f64 / c.cycles as f64)
                        / (x.warp_insts as f64 / x.cycles as f64)
                })
                .sum();
            let want = members.len() as f64 / inv;
            let got = r.harmonic_mean(class, s).unwrap();
            assert!((got - want).abs() < 1e-12, "{class:?} {s:?}");
            let from_print: f64 = members.len() as f64
                / members
                    .iter()
                    .map(|k| 1.0 / printed_row(&fig8, &k.name)[i])
                    .sum::<f64>();
            assert!(
                (printed_mean[i] - from_print).abs() <= 2e-3,
                "{class:?} {s:?}: printed {} vs {from_print} from the printed rows",
                printed_mean[i]
            );
        }
        // The CCWS column of the printed table is 1.000 throughout.
        for k in &members {
            assert_eq!(printed_row(&fig8, &k.name)[2], 1.0);
        }
        assert_eq!(printed_mean[2], 1.0);
    }

    // Fig. 13: SPMV-vector's best is its fastest cell; every ratio is
    // SPMV-scalar's cycles over it, as printed.
    let cs = r.case_study().expect("both SPMV kernels ran");
    let vector = r.kernels.iter().find(|k| k.name == "SPMV-vector").unwrap();
    let vmin = Scheduler::ALL
        .iter()
        .map(|&s| vector.run(s).unwrap().cycles)
        .min()
        .unwrap();
    assert_eq!(cs.vector_best_cycles, vmin);
    assert_eq!(vector.run(cs.vector_best).unwrap().cycles, vmin);
    let fig13 = r.fig13_table();
    for (s, sc) in &cs.scalar {
        let (c, ratio) = sc.unwrap();
        assert_eq!(c, spmv.run(*s).unwrap().cycles);
        assert_eq!(ratio, c as f64 / vmin as f64);
        let line = fig13
            .lines()
            .find(|l| l.starts_with(s.label()))
            .unwrap_or_else(|| panic!("no {} row in\n{fig13}", s.label()));
        let last: f64 = line.split_whitespace().last().unwrap().parse().unwrap();
        assert!((last - ratio).abs() <= 5e-4, "{line}");
    }

    // The same kernel alone on one thread gives the same row and the same
    // JSON bytes.
    let one = quick(1, &["stencil2d"]);
    assert_eq!(one.kernels.len(), 1);
    let stn = r.kernels.iter().find(|k| k.name == "STN").unwrap();
    assert_eq!(&one.kernels[0], stn);
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(json["sms"], repro::QUICK_SMS);
    assert_eq!(json["profile_seed"], repro::PROFILE_SEED);
    assert_eq!(quick(1, &["STN"]).to_json(), one.to_json());
}

#[test]
fn unknown_kernel_and_missing_manifest_are_clear_errors() {
    let opts = Options {
        dir: dir(),
        jobs: 1,
        quick: true,
        only: vec!["nope".to_string()],
    };
    let e = repro::run(&opts, &|_| {}).unwrap_err().render(false);
    assert!(e.contains("no reproduction kernel `nope`"), "{e}");
    assert!(e.contains("SPMV-scalar"), "{e}");

    let opts = Options {
        dir: PathBuf::from("no/such/dir"),
        jobs: 1,
        quick: true,
        only: Vec::new(),
    };
    let e = repro::run(&opts, &|_| {}).unwrap_err().render(false);
    assert!(e.contains("no/such/dir/spmv_scalar.toml"), "{e}");
}

#[test]
fn a_failed_check_is_an_error_cell_and_no_ratio() {
    // A `stencil2d.toml` whose kernel is a wrong vector_add (subtracts):
    // every run completes but fails the workload's check.
    let tmp = std::env::temp_dir().join(format!("gpusim-repro-test-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ptx = std::fs::read_to_string(root.join("kernels/vector_add.ptx")).unwrap();
    assert!(ptx.contains("add.f32 \t%f3, %f1, %f2;"));
    let wrong = ptx.replace("add.f32 \t%f3, %f1, %f2;", "sub.f32 \t%f3, %f1, %f2;");
    std::fs::write(tmp.join("wrong.ptx"), wrong).unwrap();
    std::fs::write(
        tmp.join("stencil2d.toml"),
        "ptx = \"wrong.ptx\"\nentry = \"vector_add\"\nworkload = \"vector_add\"\nblock = [256, 1, 1]\n[args]\nn = 512\n",
    )
    .unwrap();
    let opts = Options {
        dir: tmp.clone(),
        jobs: 2,
        quick: false,
        only: vec!["stencil2d".to_string()],
    };
    let r = repro::run(&opts, &|_| {}).unwrap();
    std::fs::remove_dir_all(&tmp).ok();
    assert!(!r.all_passed());
    assert_eq!(r.errors().len(), Scheduler::ALL.len());
    for c in &r.kernels[0].cells {
        assert!(c.run.is_none());
        let e = c.error.as_deref().unwrap();
        assert!(e.contains("check failed"), "{e}");
    }
    assert_eq!(r.harmonic_mean(Class::Insensitive, Scheduler::Daws), None);
    let fig8 = r.fig8_table();
    let row = fig8.lines().find(|l| l.starts_with("STN")).unwrap();
    assert_eq!(row.matches("error").count(), Scheduler::ALL.len(), "{row}");
    assert!(r.fig13_table().contains("n/a"));
}

#[test]
fn harmonic_mean_of_known_values() {
    assert_eq!(repro::harmonic_mean(&[1.0, 1.0]), Some(1.0));
    let h = repro::harmonic_mean(&[1.0, 2.0, 4.0]).unwrap();
    assert!((h - 3.0 / 1.75).abs() < 1e-15);
    assert_eq!(repro::harmonic_mean(&[]), None);
    assert_eq!(repro::harmonic_mean(&[1.0, 0.0]), None);
}
