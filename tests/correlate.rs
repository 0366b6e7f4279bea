//! `gpusim correlate`: the statistics on hand-made numbers, the reference
//! file parser, the SVG plot's structure, and an end-to-end run on
//! `tests/correlate/small.toml` (made-up reference figures for two tiny
//! kernels) checked against `gpusim run --json` of the same manifests.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpusim::report::correlate::reference::parse_reference;
use gpusim::report::correlate::stats::{self, Faster};
use gpusim::report::correlate::{
    Correlation, Figures, KernelResult, Provenance, Run, Sched, Side, svg,
};

const SMALL: &str = "tests/correlate/small.toml";

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

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusim-correlate-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Figures with `cycles` and `thread_insts`; the cache and DRAM numbers
/// are fixed and irrelevant to the cycle statistics.
fn figs(cycles: u64, thread_insts: u64) -> Figures {
    Figures {
        cycles,
        thread_insts,
        warp_insts: thread_insts / 32,
        launches: 1,
        l1d_accesses: 10,
        l1d_misses: 4,
        l2_accesses: 4,
        l2_misses: 1,
        dram_reads: 1,
        dram_writes: 0,
    }
}

/// A kernel with reference cycles `r` and gpusim cycles `g` per
/// scheduler (lrr, gto); every run executes 1000 thread instructions.
fn kernel(name: &str, r: (u64, u64), g: (u64, u64)) -> KernelResult {
    let runs = vec![
        Run::new(
            Sched::Lrr,
            &figs(r.0, 1000),
            Ok(Side::from_figures(&figs(g.0, 1000))),
        ),
        Run::new(
            Sched::Gto,
            &figs(r.1, 1000),
            Ok(Side::from_figures(&figs(g.1, 1000))),
        ),
    ];
    KernelResult::new(name, &format!("{name}.toml"), "", runs)
}

fn provenance() -> Provenance {
    Provenance {
        simulator: "hand-made".to_string(),
        config: "none".to_string(),
        cuda: None,
        compiler: None,
        reproduce: None,
    }
}

fn correlation(kernels: Vec<KernelResult>) -> Correlation {
    Correlation::new(
        "hand.toml",
        provenance(),
        "gtx480",
        Vec::new(),
        vec![Sched::Lrr, Sched::Gto],
        kernels,
    )
}

/// Three kernels with hand-chosen cycles:
///
/// | kernel | ref lrr | ref gto | gpusim lrr | gpusim gto | error lrr | error gto |
/// |---|---|---|---|---|---|---|
/// | A | 100 | 200 | 110 | 180 | +10 % | −10 % |
/// | B | 1000 | 800 | 1300 | 800 | +30 % | 0 % |
/// | C | 400 | 400 | 380 | 420 | −5 % | +5 % |
fn hand_made() -> Correlation {
    correlation(vec![
        kernel("A", (100, 200), (110, 180)),
        kernel("B", (1000, 800), (1300, 800)),
        kernel("C", (400, 400), (380, 420)),
    ])
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn mae_max_and_band_on_hand_made_numbers() {
    let c = hand_made();
    let lrr = c.summary("lrr").unwrap();
    // |+0.10| + |+0.30| + |−0.05| = 0.45 over 3 runs.
    assert_eq!(lrr.runs, 3);
    assert!(close(lrr.mae.unwrap(), 0.15), "{:?}", lrr.mae);
    let m = lrr.max_error.as_ref().unwrap();
    assert_eq!((m.kernel.as_str(), m.sched), ("B", Sched::Lrr));
    assert!(close(m.error, 0.30));
    assert_eq!(lrr.within_20, 2);

    let gto = c.summary("gto").unwrap();
    // |−0.10| + 0 + |+0.05| = 0.15 over 3 runs; the largest is A's −10 %.
    assert!(close(gto.mae.unwrap(), 0.05), "{:?}", gto.mae);
    let m = gto.max_error.as_ref().unwrap();
    assert_eq!((m.kernel.as_str(), m.sched), ("A", Sched::Gto));
    assert!(close(m.error, -0.10));
    assert_eq!(gto.within_20, 3);

    let all = c.summary("all").unwrap();
    // 0.45 + 0.15 = 0.60 over 6 runs.
    assert_eq!(all.runs, 6);
    assert!(close(all.mae.unwrap(), 0.10), "{:?}", all.mae);
    assert_eq!(all.max_error.as_ref().unwrap().kernel, "B");
    assert_eq!(all.within_20, 5);
    // Ratios are per run.
    let b = &c.kernels[1].runs[0];
    assert!(close(b.cycles_ratio.unwrap(), 1.3));
    assert!(!b.within_band());
    assert!(c.kernels[0].runs[0].within_band());
}

#[test]
fn pearson_on_hand_made_numbers() {
    // x = (1, 2, 3), y = (2, 4, 5): means 2 and 11/3; deviations (−1, 0, 1)
    // and (−5/3, 1/3, 4/3); Sxy = 3, Sxx = 2, Syy = 42/9, so
    // r = 3 / sqrt(2 · 42/9) = 9 / sqrt(84) = 0.981980506…
    let r = stats::pearson(&[(1.0, 2.0), (2.0, 4.0), (3.0, 5.0)]).unwrap();
    assert!(close(r, 9.0 / 84f64.sqrt()), "{r}");
    assert!((r - 0.981_980_506).abs() < 1e-9, "{r}");
    // Exactly linear: ±1.
    assert!(close(
        stats::pearson(&[(1.0, 3.0), (2.0, 5.0), (4.0, 9.0)]).unwrap(),
        1.0
    ));
    assert!(close(
        stats::pearson(&[(1.0, 3.0), (2.0, 1.0)]).unwrap(),
        -1.0
    ));

    // The lrr cycles of the hand-made set: x = (100, 1000, 400),
    // y = (110, 1300, 380). Means 500 and 1790/3; deviations
    // (−400, 500, −100) and (−1460/3, 2110/3, −650/3): Sxy = 568000,
    // Sxx = 420000, Syy = 7006200/9, r = 568000 / sqrt(420000 · 7006200/9)
    // = 568000 / 571800.66… = 0.993353…
    let c = hand_made();
    let r = c.summary("lrr").unwrap().pearson_r.unwrap();
    let expect = 568_000.0 / (420_000.0 * 7_006_200.0 / 9.0f64).sqrt();
    assert!((r - expect).abs() < 1e-12, "{r} vs {expect}");
    assert!((r - 0.993_353).abs() < 1e-6, "{r}");
    // gto: x = (200, 800, 400), y = (180, 800, 420): means 1400/3 both;
    // deviations (−800/3, 1000/3, −200/3) and (−860/3, 1000/3, −140/3):
    // Sxy = (688000 + 1000000 + 28000)/9, Sxx = (640000 + 1000000 +
    // 40000)/9, Syy = (739600 + 1000000 + 19600)/9.
    let r = c.summary("gto").unwrap().pearson_r.unwrap();
    let expect = 1_716_000.0 / (1_680_000.0f64 * 1_759_200.0).sqrt();
    assert!((r - expect).abs() < 1e-12, "{r} vs {expect}");
}

#[test]
fn ipc_order_on_hand_made_numbers() {
    let c = hand_made();
    // A: reference IPC 1000/100 > 1000/200 (lrr), gpusim 1000/110 >
    // 1000/180 (lrr): match. B: 1000/1000 < 1000/800 (gto) on both: match.
    // C: a reference tie (400 = 400) but gpusim lrr 380 < gto 420 cycles:
    // lrr higher, no match.
    let orders: Vec<(Faster, Faster, bool)> = c
        .kernels
        .iter()
        .map(|k| {
            let o = k.ipc_order.unwrap();
            (o.reference, o.gpusim, o.matches)
        })
        .collect();
    assert_eq!(
        orders,
        [
            (Faster::First, Faster::First, true),
            (Faster::Second, Faster::Second, true),
            (Faster::Tie, Faster::First, false),
        ]
    );
    assert_eq!(c.ipc_order.kernels, 3);
    assert_eq!(c.ipc_order.matches, 2);
    assert_eq!(c.ipc_order.mismatched, ["C"]);
}

#[test]
fn failed_runs_and_differing_instructions_are_kept_apart() {
    let failed = Run::new(Sched::Lrr, &figs(100, 1000), Err("boom".to_string()));
    let differ = Run::new(
        Sched::Gto,
        &figs(100, 1000),
        Ok(Side::from_figures(&figs(150, 999))),
    );
    let c = correlation(vec![KernelResult::new(
        "K",
        "k.toml",
        "",
        vec![failed, differ],
    )]);
    let k = &c.kernels[0];
    assert_eq!(k.ipc_order, None, "no order without both gpusim runs");
    assert!(!k.runs[0].thread_insts_differ);
    assert!(k.runs[1].thread_insts_differ);
    // The failed run is out of every statistic.
    assert_eq!(c.summary("lrr").unwrap().runs, 0);
    assert_eq!(c.summary("lrr").unwrap().mae, None);
    assert_eq!(c.summary("all").unwrap().runs, 1);
    assert!(close(c.summary("all").unwrap().mae.unwrap(), 0.5));
    assert_eq!(c.summary("all").unwrap().pearson_r, None, "one pair");
    assert_eq!(c.errors(), [("K", Sched::Lrr, "boom")]);
    let text = gpusim::report::correlate::render::text(&c);
    assert!(text.contains("K gto: GPGPU-Sim 1000, gpusim 999"), "{text}");
    assert!(text.contains("K lrr: boom"), "{text}");
}

#[test]
fn hit_rates_count_loads_and_stores() {
    // Reference: 1 − 4/10.
    let s = Side::from_figures(&figs(100, 1000));
    assert!(close(s.l1d_hit_rate.unwrap(), 0.6));
    assert!(close(s.l2_hit_rate.unwrap(), 0.75));
    assert!(close(s.ipc, 10.0));
}

// ---------------------------------------------------------------- parser

#[test]
fn the_test_reference_file_parses() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SMALL);
    let text = std::fs::read_to_string(&path).unwrap();
    let r = parse_reference(SMALL, &text).unwrap();
    assert_eq!(r.provenance.simulator, "made-up figures for tests");
    assert_eq!(r.provenance.cuda, None);
    assert_eq!(
        r.provenance.reproduce.as_deref(),
        Some("tests/correlate.rs")
    );
    let names: Vec<&str> = r.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["vector_add", "saxpy"]);
    assert_eq!(r.kernels[0].manifest, "kernels/vector_add.toml");
    assert_eq!(r.kernels[0].lrr.unwrap().cycles, 5000);
    assert_eq!(r.kernels[0].gto.unwrap().cycles, 4000);
    assert_eq!(r.kernels[1].lrr.unwrap().thread_insts, 19200);
    assert_eq!(r.kernels[1].gto.unwrap().dram_writes, 32);
    assert_eq!(r.schedulers(), [Sched::Lrr, Sched::Gto]);
}

const GOOD_HEAD: &str = "[reference]\nsimulator = \"s\"\nconfig = \"c\"\n\n[[kernel]]\nname = \"k\"\nmanifest = \"kernels/vector_add.toml\"\n[kernel.lrr]\n";
const GOOD_FIGS: &str = "cycles = 10\nthread_insts = 1\nwarp_insts = 1\nlaunches = 1\nl1d_accesses = 0\nl1d_misses = 0\nl2_accesses = 0\nl2_misses = 0\ndram_reads = 0\ndram_writes = 0\n";

/// Parses `text`, expects one error, and returns its message and its
/// rendering (which names the file, line and column).
fn parse_error(text: &str) -> (String, String) {
    let e = parse_reference("bad.toml", text).unwrap_err();
    assert_eq!(e.list.len(), 1, "{}", e.render(false));
    (e.list[0].message.clone(), e.render(false))
}

#[test]
fn the_good_head_parses() {
    let r = parse_reference("good.toml", &format!("{GOOD_HEAD}{GOOD_FIGS}")).unwrap();
    assert_eq!(r.kernels[0].line, 6);
    assert_eq!(r.kernels[0].stresses, "");
    assert_eq!(r.kernels[0].gto, None);
}

#[test]
fn an_unknown_key_names_its_line() {
    // Line 9 is the first figure line (`cycles`); the typo is on line 10.
    let text = format!(
        "{GOOD_HEAD}{}",
        GOOD_FIGS.replace("thread_insts", "thread_instrs")
    );
    let (msg, shown) = parse_error(&text);
    assert!(msg.contains("unknown field `thread_instrs`"), "{msg}");
    assert!(shown.contains("bad.toml:10:1"), "{shown}");
    // And at the top level and in [[kernel]].
    let (msg, shown) = parse_error(&format!("{GOOD_HEAD}{GOOD_FIGS}bogus = 1\n"));
    assert!(msg.contains("unknown field `bogus`"), "{msg}");
    assert!(shown.contains("bad.toml:19:1"), "{shown}");
    let text = GOOD_HEAD.replace("manifest =", "note = \"x\"\nmanifest =");
    let (msg, shown) = parse_error(&format!("{text}{GOOD_FIGS}"));
    assert!(msg.contains("unknown field `note`"), "{msg}");
    assert!(shown.contains("bad.toml:7:1"), "{shown}");
}

#[test]
fn a_missing_field_names_its_table() {
    let text = format!("{GOOD_HEAD}{}", GOOD_FIGS.replace("dram_reads = 0\n", ""));
    let (msg, shown) = parse_error(&text);
    assert!(msg.contains("missing field `dram_reads`"), "{msg}");
    // The span is the `[kernel.lrr]` table, line 8.
    assert!(shown.contains("bad.toml:8:1"), "{shown}");
    let good = format!("{GOOD_HEAD}{GOOD_FIGS}");
    let (msg, _) = parse_error(&good.replace("manifest = \"kernels/vector_add.toml\"\n", ""));
    assert!(msg.contains("missing field `manifest`"), "{msg}");
    let (msg, _) = parse_error(&good.replace("config = \"c\"\n", ""));
    assert!(msg.contains("missing field `config`"), "{msg}");
}

#[test]
fn a_bad_type_names_its_value() {
    let text = format!(
        "{GOOD_HEAD}{}",
        GOOD_FIGS.replace("launches = 1", "launches = \"one\"")
    );
    let (msg, shown) = parse_error(&text);
    assert!(
        msg.contains("invalid type: string \"one\", expected u64"),
        "{msg}"
    );
    // `launches` is line 12; the value starts at column 12.
    assert!(shown.contains("bad.toml:12:12"), "{shown}");
    let (msg, shown) = parse_error(&format!(
        "{GOOD_HEAD}{}",
        GOOD_FIGS.replace("cycles = 10", "cycles = -3")
    ));
    assert!(
        msg.contains("expected u64") || msg.contains("invalid value"),
        "{msg}"
    );
    assert!(shown.contains("bad.toml:9:"), "{shown}");
}

// ------------------------------------------------------------------- SVG

/// A naive well-formedness check: every tag outside the XML declaration
/// is closed in order (self-closing tags count as closed), and attribute
/// quotes are balanced.
fn assert_well_formed(svg: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').expect("unclosed tag") + i;
        let tag = &rest[i + 1..j];
        assert_eq!(tag.matches('"').count() % 2, 0, "quotes in <{tag}>");
        if tag.starts_with('?') {
        } else if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name),
                "</{name}> closes the wrong tag"
            );
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap().to_string();
            stack.push(name);
        }
        rest = &rest[j + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

/// Decades 10^3..10^5: lrr points (ref 1000, gpusim 10000) and (10000,
/// 1000), a gto point (100000, 100000).
fn svg_case() -> Correlation {
    correlation(vec![
        kernel("up<&>", (1000, 100_000), (10_000, 100_000)),
        KernelResult::new(
            "down",
            "down.toml",
            "",
            vec![Run::new(
                Sched::Lrr,
                &figs(10_000, 1000),
                Ok(Side::from_figures(&figs(1000, 1000))),
            )],
        ),
    ])
}

#[test]
fn svg_structure_and_mapping() {
    let svg = svg::scatter(&svg_case());
    assert_well_formed(&svg);
    assert!(svg.starts_with("<?xml"));
    assert_eq!(
        svg.matches("class=\"point ").count(),
        3,
        "one marker per run"
    );
    assert_eq!(svg.matches("<circle class=\"point lrr\"").count(), 2);
    assert_eq!(svg.matches("<rect class=\"point gto\"").count(), 1);
    assert_eq!(svg.matches("class=\"identity\"").count(), 1);
    assert_eq!(svg.matches("<polygon class=\"band\"").count(), 1);
    // The plot is 480 px square at (90, 130); decades 10^3..10^5 put
    // 10^4 halfway: x = 90 + 240, y = 130 + 480 − 240.
    // up lrr: (1000, 10000) → (90, 370); down lrr: (10000, 1000) → (330, 610);
    // up gto: (100000, 100000) → (570, 130), a square drawn from (566, 126).
    assert!(
        svg.contains("<circle class=\"point lrr\" cx=\"90.00\" cy=\"370.00\""),
        "{svg}"
    );
    assert!(
        svg.contains("<circle class=\"point lrr\" cx=\"330.00\" cy=\"610.00\""),
        "{svg}"
    );
    assert!(
        svg.contains("<rect class=\"point gto\" x=\"566.00\" y=\"126.00\""),
        "{svg}"
    );
    // The identity line runs corner to corner.
    assert!(
        svg.contains("<line class=\"identity\" x1=\"90\" y1=\"610\" x2=\"570\" y2=\"130\""),
        "{svg}"
    );
    // The band's first corner is y = 1.2 × 1000 at x = 1000: 610 − 240 ×
    // log10(1.2) = 610 − 19.0035 = 590.9965.
    assert!(svg.contains("points=\"90.00,591.00 "), "{svg}");
    // Decade labels, axis titles, tooltips (escaped), outlier labels.
    for label in [
        ">1k</text>",
        ">10k</text>",
        ">100k</text>",
        ">GPGPU-Sim cycles<",
        ">gpusim cycles<",
    ] {
        assert!(svg.contains(label), "{label}");
    }
    assert!(svg.contains("<title>up&lt;&amp;&gt; (lrr): gpusim 10000 cycles, GPGPU-Sim 1000 cycles, ratio 10.000</title>"));
    assert_eq!(
        svg.matches("<text class=\"label\"").count(),
        2,
        "the two lrr points are outside ±20%"
    );
    assert!(
        svg.contains(">up&lt;&amp;&gt; (lrr)</text>") && svg.contains(">down (lrr)</text>"),
        "{svg}"
    );
    // The summaries are in the title area.
    assert!(
        svg.contains("gto: MAE 0.0%, r n/a, 1/1 within ±20%"),
        "{svg}"
    );
    // lrr: errors +9.0 and −0.9, MAE 4.95; two points falling: r = −1.
    assert!(
        svg.contains("lrr: MAE 495.0%, r -1.0000, 0/2 within ±20%"),
        "{svg}"
    );
    // Deterministic.
    assert_eq!(svg, svg::scatter(&svg_case()));
}

// ------------------------------------------------------------ end to end

/// gpusim's cycles and thread instructions of a manifest under a
/// scheduler, from `gpusim run --json`.
fn run_json(manifest: &str, sched: &str, dir: &Path) -> (u64, u64) {
    let out = dir.join(format!("{}-{sched}.json", manifest.replace('/', "_")));
    let (code, _, err) = gpusim(&[
        "run",
        manifest,
        "--sched",
        sched,
        "--json",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    (
        v["cycles"].as_u64().unwrap(),
        v["thread_insts"].as_u64().unwrap(),
    )
}

#[test]
fn correlate_end_to_end_matches_gpusim_run() {
    let dir = scratch("e2e");
    let json1 = dir.join("c1.json");
    let json2 = dir.join("c2.json");
    let svg1 = dir.join("c1.svg");
    let svg2 = dir.join("c2.svg");
    let (code, out, err) = gpusim(&[
        "correlate",
        SMALL,
        "--jobs",
        "1",
        "--json",
        json1.to_str().unwrap(),
        "--svg",
        svg1.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // One progress line per run on stderr.
    assert_eq!(
        err.lines().filter(|l| l.starts_with('[')).count(),
        4,
        "{err}"
    );

    // The reference figures of tests/correlate/small.toml.
    let cases = [
        (
            "vector_add",
            "kernels/vector_add.toml",
            "lrr",
            5000u64,
            1_376_256u64,
        ),
        (
            "vector_add",
            "kernels/vector_add.toml",
            "gto",
            4000,
            1_376_256,
        ),
        ("saxpy", "kernels/saxpy.toml", "lrr", 500, 19_200),
        ("saxpy", "kernels/saxpy.toml", "gto", 610, 19_200),
    ];
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json1).unwrap()).unwrap();
    let mut errors = Vec::new();
    let mut gpusim_cycles = Vec::new();
    for (i, (name, manifest, sched, ref_cycles, ref_insts)) in cases.iter().enumerate() {
        let (cycles, insts) = run_json(manifest, sched, &dir);
        let ratio = cycles as f64 / *ref_cycles as f64;
        gpusim_cycles.push(cycles);
        errors.push(ratio - 1.0);
        // The printed row: kernel, scheduler, both cycle counts, the ratio.
        let row = out
            .lines()
            .find(|l| l.split_whitespace().take(2).eq([*name, *sched]))
            .unwrap_or_else(|| panic!("no row for {name} {sched}:\n{out}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[2], ref_cycles.to_string(), "{row}");
        assert_eq!(cells[3], cycles.to_string(), "{row}");
        assert_eq!(cells[4], format!("{ratio:.3}"), "{row}");
        assert_eq!(
            *cells.last().unwrap(),
            if insts == *ref_insts {
                "same"
            } else {
                "DIFFER"
            },
            "{row}"
        );
        // The JSON holds the same numbers.
        let run = &v["kernels"][i / 2]["runs"][i % 2];
        assert_eq!(run["sched"], *sched);
        assert_eq!(run["gpusim"]["cycles"].as_u64(), Some(cycles));
        assert_eq!(run["reference"]["cycles"].as_u64(), Some(*ref_cycles));
        assert!((run["cycles_ratio"].as_f64().unwrap() - ratio).abs() < 1e-12);
        assert_eq!(
            run["thread_insts_differ"].as_bool(),
            Some(insts != *ref_insts)
        );
    }
    // saxpy's made-up thread_insts (19200) are not gpusim's count.
    assert!(out.contains("thread instructions differ"), "{out}");
    // The overall summary from the same numbers.
    let mae = errors.iter().map(|e| e.abs()).sum::<f64>() / 4.0;
    let all = &v["summaries"][2];
    assert_eq!(all["scope"], "all");
    assert!((all["mae"].as_f64().unwrap() - mae).abs() < 1e-12);
    let within = errors.iter().filter(|e| e.abs() <= 0.2 + 1e-12).count();
    assert_eq!(all["within_20"].as_u64(), Some(within as u64));
    let all_row = out.lines().find(|l| l.starts_with("all ")).unwrap();
    assert!(
        all_row.contains(&format!("{:.1}%", 100.0 * mae)),
        "{all_row}"
    );
    assert!(all_row.contains(&format!("{within}/4")), "{all_row}");

    // Results do not depend on --jobs; the SVG is byte-identical.
    let (code, out2, err) = gpusim(&[
        "correlate",
        SMALL,
        "--jobs",
        "2",
        "--json",
        json2.to_str().unwrap(),
        "--svg",
        svg2.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, out2);
    assert_eq!(
        std::fs::read(&json1).unwrap(),
        std::fs::read(&json2).unwrap()
    );
    let svg = std::fs::read_to_string(&svg1).unwrap();
    assert_eq!(svg.as_bytes(), std::fs::read(&svg2).unwrap().as_slice());
    assert_well_formed(&svg);
    assert_eq!(svg.matches("class=\"point ").count(), 4);

    // Markdown: the README tables.
    let (code, md, _) = gpusim(&[
        "correlate",
        SMALL,
        "--markdown",
        "--kernel",
        "saxpy",
        "--sched",
        "gto",
    ]);
    assert_eq!(code, 0);
    assert!(
        md.contains("| kernel | sched | cycles ref | cycles gpusim | ratio |"),
        "{md}"
    );
    let saxpy_gto = gpusim_cycles[3];
    let row = format!(
        "| saxpy | gto | 610 | {saxpy_gto} | {:.3} |",
        saxpy_gto as f64 / 610.0
    );
    assert!(md.contains(&row), "{row} in {md}");
    assert!(!md.contains("| vector_add |"), "--kernel selects: {md}");
    assert!(!md.contains("| lrr |"), "--sched selects: {md}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn correlate_errors_exit_2() {
    let dir = scratch("errors");
    // A bad reference file: the diagnostic names file and line.
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        format!(
            "{GOOD_HEAD}{}",
            GOOD_FIGS.replace("cycles = 10", "cycles = 1.5")
        ),
    )
    .unwrap();
    let (code, out, err) = gpusim(&["correlate", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("bad.toml:9:10"), "{err}");
    // Unknown kernel and scheduler.
    let (code, _, err) = gpusim(&["correlate", SMALL, "--kernel", "vectoradd"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `vector_add`"), "{err}");
    let (code, _, err) = gpusim(&["correlate", SMALL, "--sched", "two-level"]);
    assert_eq!(code, 2);
    assert!(err.contains("lrr and gto only"), "{err}");
    // A manifest that does not exist: the report is printed, the run is an
    // error, exit status 2.
    let missing = dir.join("missing.toml");
    std::fs::write(
        &missing,
        format!(
            "{}{GOOD_FIGS}",
            GOOD_HEAD.replace("kernels/vector_add.toml", "kernels/nope.toml")
        ),
    )
    .unwrap();
    let (code, out, err) = gpusim(&["correlate", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        out.contains("errors:") && out.contains("kernels/nope.toml"),
        "{out}"
    );
    // A config error.
    let (code, _, err) = gpusim(&["correlate", SMALL, "--set", "l1d.ways=0"]);
    assert_eq!(code, 2);
    assert!(err.contains("l1d.ways"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn kernels_without_figures_are_listed_not_run() {
    let dir = scratch("unmeasured");
    let file = dir.join("partial.toml");
    // vector_add has gto figures only; `later` has none (and a manifest
    // that does not exist: it is not loaded).
    let text = GOOD_HEAD.replace("[kernel.lrr]", "[kernel.gto]")
        + GOOD_FIGS
        + "\n[[kernel]]\nname = \"later\"\nmanifest = \"kernels/not_yet.toml\"\n";
    std::fs::write(&file, text).unwrap();
    let (code, out, err) = gpusim(&["correlate", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with('[')).count(),
        1,
        "{err}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("k ") && l.contains(" gto ")),
        "{out}"
    );
    assert!(
        !out.lines()
            .any(|l| l.starts_with("k ") && l.contains(" lrr ")),
        "{out}"
    );
    assert!(
        out.contains("not compared (no GPGPU-Sim figures for the schedulers compared): later"),
        "{out}"
    );
    // Only gto has figures: asking for lrr is an error.
    let (code, _, err) = gpusim(&["correlate", file.to_str().unwrap(), "--sched", "lrr"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no figures for `lrr`"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The perturbed runs of `tests/correlate/perturbed.toml`: each pair runs
/// gpusim with the change (checked against `gpusim run --set` of the same
/// manifest), the table prints both sides' lrr/gto ratios and the means,
/// and the order line counts the kernel by its means.
#[test]
fn perturbed_pairs_run_with_their_change() {
    let dir = scratch("perturbed");
    let json = dir.join("p.json");
    let (code, out, err) = gpusim(&[
        "correlate",
        "tests/correlate/perturbed.toml",
        "--jobs",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // Two nominal runs and two per perturbed pair.
    assert_eq!(
        err.lines().filter(|l| l.starts_with('[')).count(),
        6,
        "{err}"
    );
    let cycles = |set: Option<&str>, sched: &str| {
        let out = dir.join(format!("{sched}-{}.json", set.unwrap_or("nominal")));
        let mut args = vec!["run", "kernels/saxpy.toml", "--sched", sched];
        if let Some(s) = set {
            args.extend(["--set", s]);
        }
        args.extend(["--json", out.to_str().unwrap()]);
        let (code, _, err) = gpusim(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
        v["cycles"].as_u64().unwrap() as f64
    };
    let mut gpusim_ratios = Vec::new();
    for set in [None, Some("l2.latency=119"), Some("dram.latency=101")] {
        let r = cycles(set, "lrr") / cycles(set, "gto");
        gpusim_ratios.push(r);
        // The change column: `nominal`, or `GPGPU-Sim option / gpusim change`.
        let label = set.map_or("  nominal ".to_string(), |s| format!(" / {s} "));
        let row = out
            .lines()
            .find(|l| l.starts_with("saxpy") && l.contains(&label))
            .unwrap_or_else(|| panic!("no row for {label}:\n{out}"));
        assert!(row.contains(&format!("{r:.4}")), "{row} lacks {r:.4}");
    }
    let reference = [500.0 / 510.0, 600.0 / 500.0, 550.0 / 500.0];
    let ref_mean = reference.iter().sum::<f64>() / 3.0;
    let gs_mean = gpusim_ratios.iter().sum::<f64>() / 3.0;
    let mean_row = out
        .lines()
        .find(|l| l.starts_with("saxpy") && l.contains("mean of 3"))
        .unwrap_or_else(|| panic!("no mean row:\n{out}"));
    assert!(
        mean_row.contains(&format!("{ref_mean:.4} (1/3)")),
        "{mean_row}"
    );
    let lrr_wins = gpusim_ratios.iter().filter(|&&r| r < 1.0).count();
    assert!(
        mean_row.contains(&format!("{gs_mean:.4} ({lrr_wins}/3)")),
        "{mean_row}"
    );
    let matches = gs_mean > 1.0; // the reference's mean says gto
    assert!(
        mean_row
            .trim_end()
            .ends_with(if matches { "yes" } else { "NO" }),
        "{mean_row}"
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("IPC order by the means"))
        .unwrap_or_else(|| panic!("no order line:\n{out}"));
    assert!(
        line.contains(&format!(
            "(1 kernels), else nominal: {}/1",
            usize::from(matches)
        )),
        "{line}"
    );
    // The JSON has the pairs and the order.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let k = &v["kernels"][0];
    // `--no-perturbed` runs the nominal pair only.
    let (code, out2, err2) = gpusim(&[
        "correlate",
        "tests/correlate/perturbed.toml",
        "--no-perturbed",
    ]);
    assert_eq!(code, 0, "{err2}");
    assert_eq!(
        err2.lines().filter(|l| l.starts_with('[')).count(),
        2,
        "{err2}"
    );
    assert!(!out2.contains("one-cycle"), "{out2}");
    assert_eq!(k["perturbed"].as_array().unwrap().len(), 2);
    assert_eq!(
        k["perturbed"][0]["reference"],
        serde_json::json!([600, 500])
    );
    assert_eq!(k["perturbed_order"]["samples"], 3);
    assert_eq!(v["ipc_order"]["perturbed_kernels"], 1);
}

/// A perturbed run whose change gpusim does not know is a configuration
/// error before anything runs (exit status 2).
#[test]
fn an_unknown_perturbation_key_is_an_error() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/correlate/perturbed.toml"),
    )
    .unwrap()
    .replace("set = \"dram.latency=101\"", "set = \"dram.latencyy=101\"");
    let dir = scratch("perturbed-bad");
    let file = dir.join("bad.toml");
    std::fs::write(&file, text).unwrap();
    let (code, out, err) = gpusim(&["correlate", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("dram.latencyy"), "{err}");
}

/// A perturbed pair whose gpusim run fails (here: no progress within one
/// cycle) is listed under `errors` with its change, shows `error` in the
/// table, and makes the exit status 2; the nominal runs still compare.
#[test]
fn a_failed_perturbed_run_is_reported() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/correlate/perturbed.toml"),
    )
    .unwrap()
    .replace(
        "set = \"dram.latency=101\"",
        "set = \"sim.progress_window=1\"",
    );
    let dir = scratch("perturbed-fail");
    let file = dir.join("fail.toml");
    std::fs::write(&file, text).unwrap();
    let (code, out, err) = gpusim(&["correlate", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("saxpy [sim.progress_window=1]: ") && out.contains("no progress"),
        "{out}"
    );
    let row = out
        .lines()
        .find(|l| l.contains(" / sim.progress_window=1 "))
        .unwrap_or_else(|| panic!("no row:\n{out}"));
    assert!(row.trim_end().ends_with("error"), "{row}");
    // The mean is over the nominal pair and the pair that ran.
    assert!(out.contains("mean of 2"), "{out}");
}
