//! `gpusim sweep` and `gpusim merge` end to end through the binary: the
//! cross product and its order, rows equal to direct `gpusim run`s,
//! independence from `--jobs` and sharding, failed runs as rows, exit
//! statuses, and the Slurm example script.

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The CSV as header and rows (via the csv crate, so quoted fields
/// containing commas stay whole).
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The value of the statistic column `name` (the second `sched` is the
/// statistics' own: look columns up after `error`).
fn stat<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    let start = header.iter().position(|h| h == "error").unwrap() + 1;
    let i = start
        + header[start..]
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"));
    &row[i]
}

/// The 3 schedulers × 3 L1D sizes sweep of the README, over kmeans on
/// the `tiny` machine.
const SWEEP_3X3: &[&str] = &[
    "sweep",
    "kernels/kmeans.toml",
    "--config",
    "tiny",
    "--sched",
    "gto,lrr,two-level",
    "--set",
    "l1d.sets=4,8,16",
];

#[test]
fn three_schedulers_by_three_cache_sizes_match_direct_runs() {
    let dir = scratch("3x3");
    let csv = dir.join("results.csv");
    let mut args = SWEEP_3X3.to_vec();
    args.extend(["-o", s(&csv)]);
    let (code, _, err) = gpusim(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("9 runs in"), "{err}");
    assert!(err.contains("9 ok, 0 check_failed, 0 errors"), "{err}");
    // Not a terminal: one plain line per run.
    assert_eq!(
        err.lines().filter(|l| l.starts_with('[')).count(),
        9,
        "{err}"
    );
    assert!(err.contains("[9/9] run "), "{err}");

    let (header, rows) = read_csv(&csv);
    assert_eq!(
        header[..10],
        [
            "run",
            "kernel",
            "config",
            "set:l1d.sets",
            "sched",
            "status",
            "error",
            "stats.sched",
            "fetch",
            "cycles"
        ]
    );
    for c in ["ipc", "stalls.issued", "total.l1d.misses", "mem.dram_reads"] {
        assert!(header.contains(&c.to_string()), "no column {c}");
    }
    assert!(
        !header
            .iter()
            .any(|h| h.starts_with("launches") || h.starts_with("sms"))
    );
    assert_eq!(rows.len(), 9);
    let scheds = ["gto", "lrr", "two-level"];
    let sets = ["4", "8", "16"];
    for (i, row) in rows.iter().enumerate() {
        // The cache size outside, the scheduler innermost.
        let (set, sched) = (sets[i / 3], scheds[i % 3]);
        assert_eq!(
            row[..7],
            [
                &i.to_string(),
                "kernels/kmeans.toml",
                "tiny",
                set,
                sched,
                "ok",
                ""
            ]
        );
        assert_eq!(stat(&header, row, "stats.sched"), sched);
        assert_eq!(stat(&header, row, "fetch"), "lrr");
        // The same point run directly: the same statistics.
        let json = dir.join(format!("run{i}.json"));
        let (code, _, err) = gpusim(&[
            "run",
            "kernels/kmeans.toml",
            "--config",
            "tiny",
            "--sched",
            sched,
            "--set",
            &format!("l1d.sets={set}"),
            "--json",
            s(&json),
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(stat(&header, row, "cycles"), v["cycles"].to_string());
        // serde_json's parser may round floats by one unit in the last
        // place: compare IPC as a number.
        let ipc: f64 = stat(&header, row, "ipc").parse().unwrap();
        let direct = v["ipc"].as_f64().unwrap();
        assert!((ipc - direct).abs() <= 1e-12 * direct, "{ipc} vs {direct}");
        assert_eq!(
            stat(&header, row, "total.l1d.misses"),
            v["total"]["l1d"]["misses"].to_string()
        );
        assert_eq!(
            stat(&header, row, "mem.dram_reads"),
            v["mem"]["dram_reads"].to_string()
        );
        assert_eq!(
            stat(&header, row, "stalls.data"),
            v["stalls"]["data"].to_string()
        );
    }
    // The cache matters: 4 sets (2 KB on tiny) miss more than 16 under gto.
    let misses = |r: &Vec<String>| -> u64 { stat(&header, r, "total.l1d.misses").parse().unwrap() };
    assert!(misses(&rows[0]) > misses(&rows[6]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn results_do_not_depend_on_jobs_or_shards() {
    let dir = scratch("jobs");
    let sweep = |extra: &[&str], name: &str| -> (PathBuf, PathBuf) {
        let csv = dir.join(format!("{name}.csv"));
        let jsonl = dir.join(format!("{name}.jsonl"));
        let mut args = vec![
            "sweep",
            "kernels/kmeans.toml",
            "kernels/matmul.toml",
            "--config",
            "tiny",
            "--sched",
            "gto,lrr",
            "--set",
            "l1d.ways=2,4",
            "--arg",
            "seed=1,2",
            "-o",
            s(&csv),
            "--jsonl",
            s(&jsonl),
        ];
        args.extend(extra);
        let (code, _, err) = gpusim(&args);
        assert_eq!(code, 0, "{err}");
        (csv, jsonl)
    };
    let (one, one_j) = sweep(&["--jobs", "1"], "one");
    let (two, two_j) = sweep(&["--jobs", "2"], "two");
    let bytes = |p: &Path| std::fs::read(p).unwrap();
    assert_eq!(bytes(&one), bytes(&two));
    assert_eq!(bytes(&one_j), bytes(&two_j));
    let (header, rows) = read_csv(&one);
    assert_eq!(rows.len(), 2 * 2 * 2 * 2);
    assert_eq!(
        header[..8],
        [
            "run",
            "kernel",
            "config",
            "set:l1d.ways",
            "arg:seed",
            "sched",
            "status",
            "error"
        ]
    );
    assert_eq!(
        rows[5][1..6],
        ["kernels/kmeans.toml", "tiny", "4", "1", "lrr"]
    );
    assert_eq!(
        rows[8][1..6],
        ["kernels/matmul.toml", "tiny", "2", "1", "gto"]
    );
    // JSON lines: one per run, in run order, with the full statistics.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&one_j)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 16);
    for (i, (l, row)) in lines.iter().zip(&rows).enumerate() {
        assert_eq!(l["run"], i);
        assert_eq!(l["arg:seed"], row[4].as_str());
        assert_eq!(l["status"], row[6].as_str());
        if row[6] == "ok" {
            assert_eq!(
                l["stats"]["cycles"].to_string(),
                stat(&header, row, "cycles")
            );
            assert!(l["stats"]["launches"].is_array());
        }
    }

    // Three shards, merged: the unsharded file byte for byte.
    let shards: Vec<(PathBuf, PathBuf)> = (0..3)
        .map(|i| sweep(&["--shard", &format!("{i}/3")], &format!("shard{i}")))
        .collect();
    let (_, rows1) = read_csv(&shards[1].0);
    let runs1: Vec<&str> = rows1.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(runs1, ["1", "4", "7", "10", "13"]);
    let merged = dir.join("merged.csv");
    let mut args = vec!["merge"];
    // Any order of the inputs.
    args.extend([s(&shards[2].0), s(&shards[0].0), s(&shards[1].0)]);
    args.extend(["-o", s(&merged)]);
    let (code, _, err) = gpusim(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("merged 16 rows from 3 files"), "{err}");
    assert_eq!(bytes(&merged), bytes(&one));
    let merged_j = dir.join("merged.jsonl");
    let (code, _, err) = gpusim(&[
        "merge",
        s(&shards[0].1),
        s(&shards[1].1),
        s(&shards[2].1),
        "-o",
        s(&merged_j),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(bytes(&merged_j), bytes(&one_j));

    // A missing shard: its runs are named, the rest still written, exit 1.
    let partial = dir.join("partial.csv");
    let (code, _, err) = gpusim(&["merge", s(&shards[0].0), s(&shards[2].0), "-o", s(&partial)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("warning: no input has runs 1, 4, 7, 10, 13"),
        "{err}"
    );
    assert_eq!(read_csv(&partial).1.len(), 11);
    // The same shard twice: an error naming both, nothing written.
    let twice = dir.join("twice.csv");
    let (code, _, err) = gpusim(&[
        "merge",
        s(&shards[0].0),
        s(&shards[1].0),
        s(&shards[0].0),
        "-o",
        s(&twice),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("shard0.csv is given twice"), "{err}");
    assert!(!twice.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failed_runs_are_rows_with_their_error() {
    let dir = scratch("fail");
    // saxpy with a = 3 against the expectation for a = 2: runs, check fails.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    for f in ["saxpy.ptx", "saxpy_expected.bin"] {
        std::fs::copy(root.join(f), dir.join(f)).unwrap();
    }
    let manifest = std::fs::read_to_string(root.join("saxpy.toml"))
        .unwrap()
        .replace("{ f32 = 2.0 }", "{ f32 = 3.0 }");
    std::fs::write(dir.join("saxpy.toml"), manifest).unwrap();
    let wrong = dir.join("saxpy.toml");
    let csv = dir.join("results.csv");
    let (code, _, err) = gpusim(&[
        "sweep",
        "kernels/vector_add.toml",
        "no/such/kernel.ptx",
        s(&wrong),
        "tests/hang/intra_warp_spin.toml",
        "--config",
        "tiny",
        "--set",
        "sim.progress_window=20000",
        "--set",
        "l1d.ways=4,many",
        "-o",
        s(&csv),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("1 ok, 1 check_failed, 6 errors"), "{err}");
    let (header, rows) = read_csv(&csv);
    assert_eq!(rows.len(), 8);
    let status: Vec<&str> = rows.iter().map(|r| r[6].as_str()).collect();
    assert_eq!(
        status,
        [
            "ok",
            "error",
            "error",
            "error",
            "check_failed",
            "error",
            "error",
            "error"
        ]
    );
    // The good point ran completely.
    assert_eq!(rows[0][7], "");
    assert!(stat(&header, &rows[0], "cycles").parse::<u64>().unwrap() > 0);
    // A bad --set value, named with its key.
    assert!(
        rows[1][7].contains("`many`") && rows[1][7].contains("l1d.ways"),
        "{}",
        rows[1][7]
    );
    assert_eq!(stat(&header, &rows[1], "cycles"), "");
    // A missing kernel file.
    assert!(rows[2][7].contains("no/such/kernel.ptx"), "{}", rows[2][7]);
    // The failed check: its mismatch, and the statistics of the run.
    assert!(rows[4][7].contains("MISMATCH in `y`"), "{}", rows[4][7]);
    assert!(stat(&header, &rows[4], "cycles").parse::<u64>().unwrap() > 0);
    // The deadlock: the simulator's error.
    assert!(
        rows[6][7].contains("no progress for 20000 cycles"),
        "{}",
        rows[6][7]
    );
    assert!(err.contains("check_failed"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn arguments_that_cannot_start_a_sweep_exit_two() {
    let dir = scratch("args");
    let out = dir.join("r.csv");
    let o = s(&out);
    let cases: &[(&[&str], &str)] = &[
        (&["--shard", "3/3"], "expected I/N"),
        (&["--shard", "a/3"], "expected I/N"),
        (&["--jobs", "0"], "--jobs 0"),
        (&["--sched", "gto,,lrr"], "empty item"),
        (&["--sched", "gto,gto"], "`gto` appears twice"),
        (
            &["--set", "l1d.ways=2", "--set", "l1d.ways=4"],
            "given twice",
        ),
        (&["--set", "l1d.ways"], "KEY=V1"),
        (&["--fetch", "xyz"], "unknown fetch policy `xyz`"),
        (&["--sync", "nope"], "unknown sync policy"),
    ];
    for (extra, why) in cases {
        let mut args = vec![
            "sweep",
            "kernels/vector_add.toml",
            "--config",
            "tiny",
            "-o",
            o,
        ];
        args.extend(*extra);
        let (code, _, err) = gpusim(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(why), "{extra:?}: {err}");
        assert!(!out.exists(), "{extra:?} wrote the output");
    }
    let bad = dir.join("no/such/dir/r.csv");
    let (code, _, err) = gpusim(&["sweep", "kernels/vector_add.toml", "-o", s(&bad)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot write") && err.contains("r.csv"),
        "{err}"
    );

    // merge: headers of different sweeps, a file that is not a sweep's.
    let a = dir.join("a.csv");
    let b = dir.join("b.csv");
    std::fs::write(
        &a,
        "run,kernel,config,sched,status,error\n0,k,tiny,gto,ok,\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        "run,kernel,config,set:l1d.ways,sched,status,error\n1,k,tiny,2,gto,ok,\n",
    )
    .unwrap();
    let (code, _, err) = gpusim(&["merge", s(&a), s(&b), "-o", o]);
    assert_eq!(code, 2);
    assert!(
        err.contains("b.csv: its header differs") && err.contains("column 4"),
        "{err}"
    );
    std::fs::write(&b, "x,y\n1,2\n").unwrap();
    let (code, _, err) = gpusim(&["merge", s(&b), "-o", o]);
    assert_eq!(code, 2);
    assert!(err.contains("not a sweep CSV"), "{err}");
    let (code, _, err) = gpusim(&["merge", s(&dir.join("missing.csv")), "-o", o]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read") && err.contains("missing.csv"),
        "{err}"
    );
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slurm_example_script_is_valid_bash() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm_sweep.sh");
    let status = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .status()
        .expect("run bash");
    assert!(status.success());
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.contains("--shard \"$SLURM_ARRAY_TASK_ID/"), "{text}");
    assert!(
        text.contains("merge $OUT/shard-*.csv -o $OUT/results.csv"),
        "{text}"
    );
}

#[test]
fn any_run_scheduler_is_a_sweep_value() {
    let dir = scratch("sched");
    let csv = dir.join("r.csv");
    let (code, _, err) = gpusim(&[
        "sweep",
        "kernels/kmeans.toml",
        "--config",
        "tiny",
        "--sched",
        "best-swl,swl:2,nope",
        "-o",
        s(&csv),
    ]);
    assert_eq!(code, 1, "{err}");
    let (header, rows) = read_csv(&csv);
    assert_eq!(rows.len(), 3);
    // best-swl: the statistics of the winning swl:N, as `run` reports it.
    let (code, out, err) = gpusim(&[
        "run",
        "kernels/kmeans.toml",
        "--config",
        "tiny",
        "--sched",
        "best-swl",
    ]);
    assert_eq!(code, 0, "{err}");
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("best      "))
        .expect("best line");
    // `best      swl:16 (120354 cycles)`
    let (limit, cycles) = best.split_once(" (").unwrap();
    assert_eq!(rows[0][3..6], ["best-swl", "ok", ""]);
    assert_eq!(stat(&header, &rows[0], "stats.sched"), limit);
    assert_eq!(
        format!("{} cycles)", stat(&header, &rows[0], "cycles")),
        cycles
    );
    assert_eq!(rows[1][3..5], ["swl:2", "ok"]);
    assert_eq!(stat(&header, &rows[1], "stats.sched"), "swl:2");
    assert_eq!(rows[2][3..5], ["nope", "error"]);
    assert!(
        rows[2][5].contains("unknown scheduler `nope`"),
        "{}",
        rows[2][5]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The one-command study: 3 schedulers x 3 L1D sizes over one
/// kernel with `--plot` gives the CSV and the chart `gpusim plot` draws
/// from it (byte-identical), whose bars are the CSV's IPCs normalized to
/// the first scheduler of each cache size.
#[test]
fn one_command_gives_the_csv_and_the_plot() {
    let dir = scratch("plot");
    let (csv, svg, again) = (
        dir.join("r.csv"),
        dir.join("ipc.svg"),
        dir.join("again.svg"),
    );
    let (code, out, err) = gpusim(&[
        "sweep",
        "kernels/kmeans.toml",
        "--config",
        "tiny",
        "--sched",
        "gto,lrr,two-level",
        "--set",
        "l1d.sets=4,8,16",
        "-o",
        s(&csv),
        "--plot",
        s(&svg),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (header, rows) = read_csv(&csv);
    assert_eq!(rows.len(), 9);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.trim_end().ends_with("</svg>"));
    let (code, table, err) = gpusim(&["plot", s(&csv), "-o", s(&again)]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&again).unwrap(), picture);
    // `gpusim plot` prints the chart's numbers: each group's line holds the
    // three schedulers' IPCs over gto's.
    for (g, sets) in ["4", "8", "16"].iter().enumerate() {
        let ipc = |i: usize| {
            stat(&header, &rows[g * 3 + i], "ipc")
                .parse::<f64>()
                .unwrap()
        };
        let line = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(format!("l1d.sets={sets}").as_str()))
            .unwrap_or_else(|| panic!("no group {sets} in\n{table}"));
        for i in 1..3 {
            let want = format!("{:.3}", ipc(i) / ipc(0));
            assert!(line.contains(&want), "{want} in {line}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
