//! `gpusim explain`, end to end through the binary: the annotated listing
//! shows each line's figures as the run's JSON has them, the top list is
//! ordered by stalled warp-cycles, `--vs` shows each line's difference
//! between the two runs, and errors name their cause.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn gpusim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `gpusim run --json` of the same workload: line → (issues, stalled
/// warp-cycles, barrier warp-cycles), summed over launches.
fn json_lines(kernel: &str, sched: &str, extra: &[&str]) -> Vec<(u64, u64, u64, u64)> {
    let dir = std::env::temp_dir().join(format!("gpusim-explain-{}-{sched}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("run.json");
    let mut args = vec![
        "run",
        kernel,
        "--sched",
        sched,
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = gpusim(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut lines: Vec<(u64, u64, u64, u64)> = Vec::new();
    for l in v["launches"].as_array().unwrap() {
        for p in l["pcs"].as_array().unwrap() {
            let line = p["line"].as_u64().unwrap();
            let st = p["stalls"].as_object().unwrap();
            let stalled: u64 = st
                .iter()
                .filter(|(k, _)| *k != "issued")
                .map(|(_, x)| x.as_u64().unwrap())
                .sum();
            let (issues, barrier) = (
                p["issues"].as_u64().unwrap(),
                st["barrier"].as_u64().unwrap(),
            );
            match lines.iter_mut().find(|x| x.0 == line) {
                Some(x) => {
                    x.1 += issues;
                    x.2 += stalled;
                    x.3 += barrier;
                }
                None => lines.push((line, issues, stalled, barrier)),
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    lines
}

/// The listing row of `line`: its whitespace-separated fields.
fn row(out: &str, line: u64) -> Vec<String> {
    out.lines()
        .find(|l| l.split_whitespace().next() == Some(&line.to_string()))
        .unwrap_or_else(|| panic!("no row for line {line} in\n{out}"))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

const SKEW: &str = "kernels/micro/barrier_skew.toml";

#[test]
fn listing_matches_the_runs_figures() {
    let (code, out, err) = gpusim(&["explain", SKEW, "--config", "tiny"]);
    assert_eq!(code, 0, "{err}");
    let lines = json_lines(SKEW, "gto", &["--config", "tiny"]);
    assert!(!lines.is_empty());
    let total: u64 = lines.iter().map(|l| l.2).sum();
    assert!(out.starts_with("kernel barrier_skew (kernels/micro/micro.ptx), --sched gto: "));
    assert!(
        out.contains(&format!("{total} stalled warp-cycles")),
        "{out}"
    );
    for &(line, issues, stalled, _) in &lines {
        let r = row(&out, line);
        assert_eq!(r[1], issues.to_string(), "line {line}");
        assert_eq!(r[2], stalled.to_string(), "line {line}");
    }
    // The code's facts: warp 0 alone runs the 8-iteration loop; all four
    // warps run bar.sync, where three of them wait for warp 0.
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/micro/micro.ptx"),
    )
    .unwrap();
    let line_of = |needle: &str| {
        let start = src.find(".entry barrier_skew").unwrap();
        let at = start + src[start..].find(needle).unwrap();
        src[..at].matches('\n').count() as u64 + 1
    };
    assert_eq!(row(&out, line_of("bar.sync 0;"))[1], "4");
    assert_eq!(row(&out, line_of("add.s32 %r4, %r4, %r4;"))[1], "8");
    let bar = lines
        .iter()
        .find(|l| l.0 == line_of("bar.sync 0;"))
        .unwrap();
    assert!(
        bar.3 > 0 && bar.3 * 2 > bar.2,
        "barrier cycles dominate bar.sync"
    );
    // The top list: the largest stalled lines, in order.
    let mut sorted = lines.clone();
    sorted.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    let top: Vec<u64> = out
        .lines()
        .skip_while(|l| !l.starts_with("top stalling lines"))
        .filter_map(|l| l.trim().split_once(". line ").map(|(_, r)| r))
        .map(|r| r.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(top, sorted.iter().take(5).map(|l| l.0).collect::<Vec<_>>());
}

#[test]
fn vs_shows_each_lines_difference() {
    let k = "kernels/spmv_scalar.ptx";
    let shape = [
        "--config",
        "tiny",
        "--arg",
        "rows=512",
        "--arg",
        "avg_nnz_per_row=8",
    ];
    let mut args = vec!["explain", k, "--sched", "gto", "--vs", "lrr", "--top", "3"];
    args.extend_from_slice(&shape);
    let (code, out, err) = gpusim(&args);
    assert_eq!(code, 0, "{err}");
    let a = json_lines(k, "gto", &shape);
    let b = json_lines(k, "lrr", &shape);
    let mut diffs = Vec::new();
    for &(line, _, sa, _) in &a {
        let sb = b.iter().find(|x| x.0 == line).map_or(0, |x| x.2);
        let r = row(&out, line);
        assert_eq!(r[1], sa.to_string(), "line {line}");
        assert_eq!(r[2], sb.to_string(), "line {line}");
        let d = sb as i64 - sa as i64;
        assert_eq!(r[3], format!("{d:+}"), "line {line}");
        if d != 0 {
            diffs.push((line, d));
        }
    }
    diffs.sort_by(|x, y| y.1.abs().cmp(&x.1.abs()).then(x.0.cmp(&y.0)));
    let top: Vec<u64> = out
        .lines()
        .skip_while(|l| !l.starts_with("lines that differ most"))
        .filter_map(|l| l.trim().split_once(". line ").map(|(_, r)| r))
        .map(|r| r.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(top, diffs.iter().take(3).map(|d| d.0).collect::<Vec<_>>());
}

#[test]
fn errors_name_their_cause() {
    let (code, _, err) = gpusim(&["explain", SKEW, "--config", "tiny", "--kernel", "nope"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("kernel `nope` was not launched (launched: barrier_skew)"),
        "{err}"
    );
    let (code, _, err) = gpusim(&["explain", "kernels/none.ptx"]);
    assert_eq!(code, 2);
    assert!(err.contains("none"), "{err}");
    let (code, _, err) = gpusim(&["explain", SKEW, "--sched", "nosuch"]);
    assert_eq!(code, 2);
    assert!(err.contains("nosuch"), "{err}");
}
