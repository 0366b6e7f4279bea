//! `gpusim repro PAPER --csv FILE` end to end, one small `--quick` run per
//! paper: the CSV's cells hold the numbers the `--json` of the same run
//! holds, its normalized values and mean rows are what the JSON's cells
//! give when recomputed here, and every row has the header's width.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

type Row = BTreeMap<String, String>;

/// Runs `gpusim repro ARGS --json J --csv C`; the CSV rows and the JSON.
fn repro(paper: &str, args: &[&str]) -> (Vec<Row>, Value) {
    let dir = std::env::temp_dir();
    let tag = format!("gpusim-csv-{paper}-{}", std::process::id());
    let json = dir.join(format!("{tag}.json"));
    let csv = dir.join(format!("{tag}.csv"));
    let o = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["repro", paper, "--quick", "--jobs", "2"])
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .output()
        .expect("runs gpusim");
    assert!(
        o.status.success(),
        "{paper}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut r = csv::Reader::from_path(&csv).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header[..13],
        [
            "row",
            "figure",
            "kernel",
            "class",
            "setup",
            "sched",
            "cycles",
            "warp_insts",
            "ipc",
            "normalized",
            "normalized_to",
            "status",
            "error"
        ]
    );
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.expect("a well-formed row");
            assert_eq!(rec.len(), header.len());
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect();
    let _ = std::fs::remove_file(json);
    let _ = std::fs::remove_file(csv);
    (rows, j)
}

/// A CSV field read the way the JSON was (so equal text is an equal value).
fn val(s: &str) -> Value {
    if s.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_string()))
    }
}

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1.0),
        "{what}: {a} vs {b}"
    );
}

fn of_kind<'a>(rows: &'a [Row], kind: &str) -> Vec<&'a Row> {
    rows.iter().filter(|r| r["row"] == kind).collect()
}

/// The JSON's `kernels[].cells[]`, flattened in order, with the kernel.
fn json_cells(j: &Value) -> Vec<(&Value, &Value)> {
    j["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|k| k["cells"].as_array().unwrap().iter().map(move |c| (k, c)))
        .collect()
}

/// Cells of `rows` and the JSON's agree in order, kernel and the run's
/// counters; returns the pairs.
fn same_cells<'a>(rows: &'a [Row], j: &'a Value) -> Vec<(&'a Row, &'a Value, &'a Value)> {
    let cells = of_kind(rows, "cell");
    let jc = json_cells(j);
    assert_eq!(cells.len(), jc.len(), "one row per cell");
    assert!(!cells.is_empty());
    cells
        .into_iter()
        .zip(jc)
        .map(|(r, (k, c))| {
            assert_eq!(r["kernel"], k["name"].as_str().unwrap());
            let run = &c["run"];
            assert!(!run.is_null(), "{r:?}: these runs pass");
            assert_eq!(r["status"], "ok");
            for key in ["cycles", "warp_insts", "ipc"] {
                assert_eq!(val(&r[key]), run[key], "{key} of {r:?}");
            }
            (r, k, run)
        })
        .collect()
}

#[test]
fn daws_csv_equals_json() {
    let (rows, j) = repro("daws", &["--kernel", "MM"]);
    let pairs = same_cells(&rows, &j);
    let ccws = pairs
        .iter()
        .find(|(r, _, _)| r["sched"] == "ccws")
        .map(|(_, _, run)| f(&run["ipc"]))
        .unwrap();
    for (r, _, run) in &pairs {
        close(
            f(&val(&r["normalized"])),
            f(&run["ipc"]) / ccws,
            "normalized",
        );
        assert_eq!(r["normalized_to"], "CCWS");
        assert_eq!(val(&r["swl_limit"]), run["swl_limit"]);
        assert_eq!(val(&r["profile_loops"]), run["profile_loops"]);
        assert_eq!(r["class"], "CI");
    }
    // Best-SWL's row names its limit; the others leave it empty.
    assert!(
        pairs
            .iter()
            .all(|(r, _, _)| (r["sched"] == "best-swl") != r["swl_limit"].is_empty())
    );
    // HMEAN-CI rows equal the JSON's harmonic means of the class.
    let means = of_kind(&rows, "hmean");
    assert_eq!(means.len(), 5);
    for r in means {
        assert_eq!(
            (r["kernel"].as_str(), r["figure"].as_str()),
            ("HMEAN-CI", "Fig. 8")
        );
        let m = j["harmonic_means"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["class"] == "insensitive" && m["sched"] == r["sched"].as_str())
            .unwrap();
        assert_eq!(val(&r["normalized"]), m["value"]);
    }
    assert_eq!(rows.len(), 10);
}

fn harmonic(xs: &[f64]) -> f64 {
    xs.len() as f64 / xs.iter().map(|x| 1.0 / x).sum::<f64>()
}

#[test]
fn baws_csv_equals_json() {
    use gpusim::report::repro_baws::{NORMALIZED_TABLES, Setup};
    let (rows, j) = repro("baws", &["--kernel", "HISTO"]);
    let pairs = same_cells(&rows, &j);
    assert_eq!(pairs.len(), Setup::ALL.len());
    let ipc = |label: &str| {
        pairs
            .iter()
            .find(|(r, _, _)| r["setup"] == label)
            .map(|(_, _, run)| f(&run["ipc"]))
            .unwrap()
    };
    for (r, k, run) in &pairs {
        assert_eq!(r["class"], "BI");
        assert_eq!(k["class"], "barrier");
        close(
            f(&val(&r["normalized"])),
            f(&run["ipc"]) / ipc("LRR"),
            "normalized",
        );
        close(
            f(&val(&r["norm_gto"])),
            f(&run["ipc"]) / ipc("GTO"),
            "norm_gto",
        );
        // Every stall and barrier statistic of the JSON, one column each.
        for group in ["stalls", "barriers"] {
            let obj = run[group].as_object().unwrap();
            assert!(obj.len() >= 10);
            for (key, v) in obj {
                assert_eq!(&val(&r[&format!("{group}.{key}")]), v, "{group}.{key}");
            }
        }
        let s = Setup::ALL.iter().find(|s| s.label() == r["setup"]).unwrap();
        let (sched, fetch, set) = s.policies();
        assert_eq!((r["sched"].as_str(), r["fetch"].as_str()), (sched, fetch));
        assert_eq!(r["set"].is_empty(), set.is_none());
    }
    // One HMEAN row per barrier-intensive table and setup (no
    // non-barrier kernel ran: no Fig. 11 rows), each the harmonic mean of
    // the one kernel's ratio, i.e. that ratio.
    let means = of_kind(&rows, "hmean");
    let tables: Vec<_> = NORMALIZED_TABLES
        .iter()
        .filter(|t| t.figure != "Fig. 11")
        .collect();
    assert_eq!(
        means.len(),
        tables.iter().map(|t| t.setups.len()).sum::<usize>()
    );
    for t in tables {
        for s in t.setups {
            let r = means
                .iter()
                .find(|r| r["figure"] == t.figure && r["setup"] == s.label())
                .unwrap();
            assert_eq!(r["normalized_to"], t.base.label());
            let want = harmonic(&[ipc(s.label()) / ipc(t.base.label())]);
            close(f(&val(&r["normalized"])), want, t.figure);
        }
    }
}

/// LFWS and BLWS: cells, the arithmetic MEAN row, LFWS's Fig. 1.
fn latency(paper: &str, kernel: &str) -> (Vec<Row>, Value) {
    let (rows, j) = repro(paper, &["--kernel", kernel]);
    let pairs = same_cells(&rows, &j);
    let base = j["setups"][0]["label"].as_str().unwrap().to_string();
    let ipc = |label: &str| {
        pairs
            .iter()
            .find(|(r, _, _)| r["setup"] == label)
            .map(|(_, _, run)| f(&run["ipc"]))
            .unwrap()
    };
    for (r, k, run) in &pairs {
        for key in ["long_ops", "dram_full", "icnt_to_sm"] {
            assert_eq!(val(&r[key]), run[key], "{key}");
        }
        assert_eq!(val(&r["paper_long_percent"]), k["paper_long_percent"]);
        close(
            f(&val(&r["normalized"])),
            f(&run["ipc"]) / ipc(&base),
            "normalized",
        );
        let setup = j["setups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["label"] == r["setup"].as_str())
            .unwrap();
        assert_eq!(r["sched"], setup["sched"].as_str().unwrap());
        assert_eq!(r["cta"], setup["cta"].as_str().unwrap());
    }
    let means = of_kind(&rows, "mean");
    assert_eq!(means.len(), j["setups"].as_array().unwrap().len());
    for r in means {
        close(
            f(&val(&r["normalized"])),
            ipc(&r["setup"]) / ipc(&base),
            "mean of one kernel",
        );
    }
    (rows, j)
}

#[test]
fn lfws_csv_equals_json() {
    let (rows, j) = latency("lfws", "SP");
    // The worked example: every policy of both runs, the JSON's numbers.
    let fig1 = of_kind(&rows, "fig1");
    let runs: Vec<(&str, &Value)> = j["fig1"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| ("Fig. 1", r))
        .chain(
            j["fig1_pipeline"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| ("Fig. 1 (pipeline)", r)),
        )
        .collect();
    assert_eq!(fig1.len(), runs.len());
    assert!(runs.len() > 4);
    for (r, (kernel, run)) in fig1.iter().zip(runs) {
        assert_eq!(r["kernel"], kernel);
        assert!(run["policy"].as_str().unwrap().starts_with(&r["setup"]));
        for key in ["cycles", "idle", "paper_cycles", "paper_idle"] {
            assert_eq!(val(&r[key]), run[key], "{key}");
        }
    }
    assert_eq!(of_kind(&rows, "cell")[0]["class"], "long-heavy");
}

#[test]
fn blws_csv_equals_json() {
    let (rows, _) = latency("blws", "VA");
    assert!(of_kind(&rows, "fig1").is_empty());
    let throttle = of_kind(&rows, "cell")
        .into_iter()
        .find(|r| r["setup"] == "BLWS+throttle")
        .unwrap();
    assert_eq!(
        (throttle["sched"].as_str(), throttle["cta"].as_str()),
        ("blws", "throttle")
    );
}

#[test]
fn awg_csv_equals_json() {
    let (rows, j) = repro("awg", &["--kernel", "SPM_G"]);
    let cells = of_kind(&rows, "cell");
    let jc = json_cells(&j);
    assert_eq!(cells.len(), jc.len());
    let cycles = |policy: &str, over: bool| {
        jc.iter()
            .find(|(_, c)| c["policy"] == policy && c["oversubscribed"] == over)
            .map(|(_, c)| f(&c["cycles"]))
            .unwrap()
    };
    for (r, (_, c)) in cells.iter().zip(&jc) {
        assert_eq!(r["setup"], c["policy"].as_str().unwrap());
        for key in ["cycles", "waits_per_acquire", "switches", "oversubscribed"] {
            assert_eq!(val(&r[key]), c[key], "{key}");
        }
        let over = c["oversubscribed"].as_bool().unwrap();
        let base = cycles(if over { "timeout:10000" } else { "busy" }, over);
        close(
            f(&val(&r["normalized"])),
            f(&c["cycles"]) / base,
            "normalized",
        );
        close(f(&val(&r["speedup"])), base / f(&c["cycles"]), "speedup");
    }
    // Geometric means of one kernel: its own value, in the figure's measure.
    let means = of_kind(&rows, "geomean");
    let sleeps = j["sleeps"].as_array().unwrap().len();
    let timeouts = j["timeouts"].as_array().unwrap().len();
    assert_eq!(means.len(), sleeps + timeouts + 5 + 7 + 6);
    for r in means {
        assert_eq!(r["kernels_in_mean"], "1");
        let p = r["setup"].as_str();
        let (got, want) = match r["figure"].as_str() {
            "Fig. 7" | "Fig. 8" => (&r["normalized"], cycles(p, false) / cycles("busy", false)),
            "Fig. 9" => {
                let c = jc.iter().find(|(_, c)| c["policy"] == p).unwrap().1;
                (&r["waits_per_acquire"], f(&c["waits_per_acquire"]))
            }
            "Fig. 14" => (&r["speedup"], cycles("busy", false) / cycles(p, false)),
            "Fig. 15" => (
                &r["speedup"],
                cycles("timeout:10000", true) / cycles(p, true),
            ),
            other => panic!("figure {other}"),
        };
        close(f(&val(got)), want, &format!("{} {p}", r["figure"]));
    }
}

#[test]
fn an_unwritable_csv_is_an_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["repro", "blws", "--quick", "--kernel", "VA", "--csv"])
        .arg(PathBuf::from("/nonexistent-dir/cells.csv"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write /nonexistent-dir/cells.csv"));
}
