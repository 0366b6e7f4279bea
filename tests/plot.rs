//! `gpusim plot` end to end: the bar chart's normalized values and
//! harmonic means against hand-computed ones, error rows and missing
//! columns, stall stacks against the run's JSON, time series, and every
//! SVG well-formed and byte-identical across runs.

mod markup;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gpusim::report::plot::bars::{BarOptions, bar_chart};
use gpusim::report::plot::sweep_table::SweepTable;
use markup::{check_well_formed, svg_texts};

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .output()
        .expect("run gpusim")
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("plot_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A sweep CSV as formats.md section 3 lays it out (parameters, status,
/// error, then statistics), with the statistics' `sched` unprefixed as
/// that text first had it (gpusim sweep now writes `stats.sched`; a
/// repeated name is the harder case): 3 schedulers x 3 `l1d.ways` over
/// one kernel; run 8 failed.
const SWEEP: &str = "\
run,kernel,config,set:l1d.ways,sched,status,error,sched,fetch,cycles,warp_insts,ipc,total.l1d.misses
0,kernels/kmeans.ptx,gtx480,2,lrr,ok,,lrr,lrr,100,200,2.0,10
1,kernels/kmeans.ptx,gtx480,2,gto,ok,,gto,lrr,100,300,3.0,11
2,kernels/kmeans.ptx,gtx480,2,two-level,ok,,two-level,lrr,100,100,1.0,12
3,kernels/kmeans.ptx,gtx480,4,lrr,ok,,lrr,lrr,100,400,4.0,13
4,kernels/kmeans.ptx,gtx480,4,gto,ok,,gto,lrr,100,200,2.0,14
5,kernels/kmeans.ptx,gtx480,4,two-level,ok,,two-level,lrr,100,400,4.0,15
6,kernels/kmeans.ptx,gtx480,8,lrr,ok,,lrr,lrr,100,100,1.0,16
7,kernels/kmeans.ptx,gtx480,8,gto,ok,,gto,lrr,100,100,1.0,17
8,kernels/kmeans.ptx,gtx480,8,two-level,error,\"config: l1d.ways <out of range>\",,,,,,
";

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn bars_normalize_per_group_and_take_the_harmonic_mean() {
    let t = SweepTable::parse("s.csv", SWEEP).unwrap();
    let c = bar_chart(&t, &BarOptions::default()).unwrap();
    assert_eq!(c.groups, ["l1d.ways=2", "l1d.ways=4", "l1d.ways=8"]);
    assert_eq!(c.series, ["lrr", "gto", "two-level"]);
    assert_eq!(c.baseline.as_deref(), Some("lrr"));
    // ways=2: 2,3,1 over 2; ways=4: 4,2,4 over 4; ways=8: 1,1,(error) over 1.
    let expect = [
        [Some(1.0), Some(1.5), Some(0.5)],
        [Some(1.0), Some(0.5), Some(1.0)],
        [Some(1.0), Some(1.0), None],
    ];
    for (g, row) in expect.iter().enumerate() {
        for (s, v) in row.iter().enumerate() {
            match (c.values[g][s], v) {
                (Some(a), Some(b)) => assert!(close(a, *b), "group {g} series {s}: {a} vs {b}"),
                (a, b) => assert_eq!(a, *b, "group {g} series {s}"),
            }
        }
    }
    // hmean over the complete groups (ways=2, ways=4):
    // gto 2 / (1/1.5 + 1/0.5) = 0.75; two-level 2 / (1/0.5 + 1/1) = 2/3.
    assert!(close(c.hmean[0].unwrap(), 1.0));
    assert!(close(c.hmean[1].unwrap(), 0.75));
    assert!(close(c.hmean[2].unwrap(), 2.0 / 3.0));
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("run 8") && w.contains("status error"))
    );
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("l1d.ways=8") && w.contains("harmonic mean"))
    );

    // Another baseline and another metric, raw.
    let c = bar_chart(
        &t,
        &BarOptions {
            baseline: Some("gto".into()),
            ..BarOptions::default()
        },
    )
    .unwrap();
    assert!(close(c.values[0][0].unwrap(), 2.0 / 3.0));
    assert!(close(c.values[1][2].unwrap(), 2.0));
    let c = bar_chart(
        &t,
        &BarOptions {
            metric: "total.l1d.misses".into(),
            raw: true,
            ..BarOptions::default()
        },
    )
    .unwrap();
    assert_eq!(c.values[1], [Some(13.0), Some(14.0), Some(15.0)]);
    assert_eq!(c.baseline, None);
}

#[test]
fn bars_by_another_column_make_schedulers_the_groups() {
    let t = SweepTable::parse("s.csv", SWEEP).unwrap();
    let c = bar_chart(
        &t,
        &BarOptions {
            by: "set:l1d.ways".into(),
            ..BarOptions::default()
        },
    )
    .unwrap();
    assert_eq!(c.groups, ["lrr", "gto", "two-level"]);
    assert_eq!(c.series, ["l1d.ways=2", "l1d.ways=4", "l1d.ways=8"]);
    // gto: 3, 2, 1 over 3.
    assert!(close(c.values[1][1].unwrap(), 2.0 / 3.0));
    assert!(close(c.values[1][2].unwrap(), 1.0 / 3.0));
}

#[test]
fn plot_csv_end_to_end_writes_a_deterministic_well_formed_svg() {
    let dir = tmp_dir("csv");
    let csv = dir.join("results.csv");
    std::fs::write(&csv, SWEEP).unwrap();
    let svg_a = dir.join("a.svg");
    let svg_b = dir.join("b.svg");
    for out in [&svg_a, &svg_b] {
        let o = gpusim(&["plot", csv.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains("warning:") && stderr.contains("run 8"),
            "{stderr}"
        );
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains("hmean       1.000  0.750      0.667"),
            "{stdout}"
        );
    }
    let a = std::fs::read(&svg_a).unwrap();
    assert_eq!(
        a,
        std::fs::read(&svg_b).unwrap(),
        "same input, different SVG"
    );
    let svg = String::from_utf8(a).unwrap();
    let names = check_well_formed(&svg).unwrap();
    assert_eq!(names[0], "svg");
    let texts = svg_texts(&svg);
    for label in [
        "l1d.ways=2",
        "l1d.ways=4",
        "l1d.ways=8",
        "hmean",
        "lrr",
        "gto",
        "two-level",
    ] {
        assert!(
            texts.iter().any(|t| t == label),
            "no label {label} in {texts:?}"
        );
    }
    // The bar value labels: the hmean of gto and two-level.
    assert!(texts.iter().any(|t| t == "0.75"));
    assert!(texts.iter().any(|t| t == "0.667"));
    // The failed run is not drawn: eight bars of data plus three hmean.
    let bars = svg.matches("<rect").count();
    assert!(bars >= 11, "{bars} rects");
}

#[test]
fn plot_errors_name_the_file_and_the_column() {
    let dir = tmp_dir("errors");
    let csv = dir.join("no_status.csv");
    std::fs::write(&csv, "run,kernel,sched,ipc\n0,k.ptx,gto,1.0\n").unwrap();
    let out = dir.join("x.svg");
    let o = gpusim(&["plot", csv.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("no_status.csv: no column `status`"), "{e}");

    let csv = dir.join("ok.csv");
    std::fs::write(&csv, SWEEP).unwrap();
    let o = gpusim(&[
        "plot",
        csv.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--metric",
        "ipcx",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("ok.csv: no column `ipcx`"), "{e}");
    let o = gpusim(&[
        "plot",
        csv.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--baseline",
        "swl:8",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("baseline `swl:8` is not a value of `sched`"),
        "{e}"
    );
    assert!(!out.exists(), "no SVG on an error");
}

fn run_json(dir: &Path, name: &str, kernel: &str, extra: &[&str]) -> PathBuf {
    let json = dir.join(name);
    let mut args = vec!["run", kernel, "--json", json.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = gpusim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    json
}

#[test]
fn stall_stack_matches_the_runs_json() {
    let dir = tmp_dir("stalls");
    let json = run_json(&dir, "saxpy.json", "kernels/saxpy.ptx", &[]);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let stalls = &v["stalls"];
    let names = [
        "issued",
        "control",
        "data",
        "structural",
        "barrier",
        "exit",
        "fetch",
        "throttled",
        "sync_wait",
        "idle",
    ];
    let counts: Vec<u64> = names.iter().map(|n| stalls[n].as_u64().unwrap()).collect();
    let total: u64 = counts.iter().sum();
    assert_eq!(
        total,
        v["schedulers"].as_u64().unwrap() * v["cycles"].as_u64().unwrap()
    );

    let svg = dir.join("stalls.svg");
    let o = gpusim(&["plot", json.to_str().unwrap(), "-o", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let mut expect = format!("total: {total} scheduler-cycles: ");
    let parts: Vec<String> = names
        .iter()
        .zip(&counts)
        .filter(|&(_, &c)| c > 0)
        .map(|(n, &c)| format!("{n} {:.1}%", c as f64 * 100.0 / total as f64))
        .collect();
    expect.push_str(&parts.join(", "));
    assert!(stdout.contains(&expect), "{stdout}\nexpected {expect}");
    let text = std::fs::read_to_string(&svg).unwrap();
    check_well_formed(&text).unwrap();
    let texts = svg_texts(&text);
    assert!(texts.contains(&format!("{total} cycles")), "{texts:?}");
    for (n, c) in names.iter().zip(&counts) {
        assert_eq!(texts.iter().any(|t| t == n), *c > 0, "legend entry {n}");
    }
}

#[test]
fn time_series_needs_samples_and_draws_every_window() {
    let dir = tmp_dir("series");
    let plain = run_json(&dir, "plain.json", "kernels/saxpy.ptx", &[]);
    let out = dir.join("ts.svg");
    let o = gpusim(&[
        "plot",
        plain.to_str().unwrap(),
        "--kind",
        "time-series",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("plain.json: no time series") && e.contains("--sample N"),
        "{e}"
    );

    let sampled = run_json(
        &dir,
        "sampled.json",
        "kernels/saxpy.ptx",
        &["--sample", "100"],
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&sampled).unwrap()).unwrap();
    let gpu = v["samples"]["gpu"].as_array().unwrap();
    let cycles = v["cycles"].as_u64().unwrap();
    // Windows of 100 cycles, the last one cut at the end of the launch.
    assert_eq!(gpu.len() as u64, cycles.div_ceil(100));
    let mut svgs = Vec::new();
    for name in ["ts1.svg", "ts2.svg"] {
        let out = dir.join(name);
        let o = gpusim(&[
            "plot",
            sampled.to_str().unwrap(),
            "--kind",
            "time-series",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains(&format!(
                "{} windows of 100 cycles over {cycles} cycles",
                gpu.len()
            )),
            "{stdout}"
        );
        svgs.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(svgs[0], svgs[1]);
    check_well_formed(&svgs[0]).unwrap();
    let texts = svg_texts(&svgs[0]);
    for label in [
        "IPC (warp insts / cycle)",
        "stall mix (%)",
        "L1D miss rate",
        "DRAM bytes / cycle",
        "cycle",
    ] {
        assert!(texts.iter().any(|t| t == label), "no {label}");
    }
    // One IPC step line (the first 2-pixel polyline, in the IPC colour):
    // 2 points per window.
    let ipc_line = svgs[0]
        .split("<polyline")
        .find(|p| p.contains("stroke=\"#1F77B4\" stroke-width=\"2\""))
        .expect("the IPC polyline");
    let points = ipc_line
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(points.split_whitespace().count(), 2 * gpu.len());
}

/// The workflow: a sweep of 3 schedulers x 3 L1D sizes over one
/// kernel with one command, then its chart; the chart's numbers are the
/// CSV's IPCs divided, in each cache size, by lrr's.
#[test]
fn real_sweep_of_three_schedulers_by_three_cache_sizes_plots() {
    let dir = tmp_dir("real_sweep");
    let csv = dir.join("results.csv");
    let o = gpusim(&[
        "sweep",
        "kernels/kmeans.ptx",
        "--sched",
        "lrr,gto,two-level",
        "--set",
        "l1d.ways=2,4,8",
        "-o",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (ways, sched, ipc) = (col("set:l1d.ways"), col("sched"), col("ipc"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 9);
    let ipc_of = |w: &str, s: &str| -> f64 {
        rows.iter()
            .find(|r| &r[ways] == w && &r[sched] == s)
            .unwrap()[ipc]
            .parse()
            .unwrap()
    };
    let svg = dir.join("ipc.svg");
    let o = gpusim(&["plot", csv.to_str().unwrap(), "-o", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let mut hmean_inv = [0.0f64; 3];
    for w in ["2", "4", "8"] {
        let base = ipc_of(w, "lrr");
        let norm: Vec<f64> = ["lrr", "gto", "two-level"]
            .iter()
            .map(|s| ipc_of(w, s) / base)
            .collect();
        for (h, n) in hmean_inv.iter_mut().zip(&norm) {
            *h += 1.0 / n;
        }
        let line = format!(
            "l1d.ways={w}  {:.3}  {:.3}  {:>9.3}",
            norm[0], norm[1], norm[2]
        );
        assert!(stdout.contains(&line), "{stdout}\nexpected {line}");
    }
    let hm: Vec<String> = hmean_inv
        .iter()
        .map(|h| format!("{:.3}", 3.0 / h))
        .collect();
    let line = format!("hmean       {}  {}  {:>9}", hm[0], hm[1], hm[2]);
    assert!(stdout.contains(&line), "{stdout}\nexpected {line}");
    check_well_formed(&std::fs::read_to_string(&svg).unwrap()).unwrap();
}
