//! `gpusim report` end to end: every section present, numbers taken from
//! the runs' JSON, hot spots aggregated over launches by (kernel, pc),
//! input text (PTX with `<`, file names) escaped, no script and no
//! external reference, output byte-identical across runs.

mod markup;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gpusim::report::html_report::hot_spots;
use gpusim::report::plot::run_json::RunJson;
use markup::check_well_formed;

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .output()
        .expect("run gpusim")
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("report_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[allow(clippy::too_many_arguments)]
fn pc(
    pc: u64,
    line: u64,
    text: &str,
    issues: u64,
    data: u64,
    fetch: u64,
    lat: f64,
    mem: u64,
) -> String {
    format!(
        r#"{{"pc":{pc},"line":{line},"text":"{text}","issues":{issues},
            "stalls":{{"issued":{issues},"control":0,"data":{data},"structural":0,"barrier":0,
                      "exit":0,"fetch":{fetch},"throttled":0,"sync_wait":0,"idle":0}},
            "ready":0,"l1d_hits":1,"l1d_misses":3,"mem_insts":{mem},"mem_latency_avg":{lat}}}"#
    )
}

/// Two launches of kernel `k` and one of `j`, per-PC statistics by hand.
fn hand_run() -> String {
    format!(
        r#"{{"sched":"gto","cycles":100,"ipc":1.0,"warp_insts":100,
            "launches":[
              {{"kernel":"k","pcs":[{a},{b}]}},
              {{"kernel":"k","pcs":[{a2}]}},
              {{"kernel":"j","pcs":[{c}]}}]}}"#,
        a = pc(0, 10, "ld.global.f32 %f1, [%rd1];", 4, 100, 20, 200.0, 4),
        b = pc(1, 11, "setp.lt.s32 %p1, %r1, %r2;", 4, 5, 0, 0.0, 0),
        a2 = pc(0, 10, "ld.global.f32 %f1, [%rd1];", 4, 50, 30, 400.0, 12),
        c = pc(3, 7, "bar.sync 0;", 2, 0, 130, 0.0, 0),
    )
}

#[test]
fn hot_spots_sum_over_launches_by_kernel_and_pc() {
    let run = RunJson::parse("h.json", &hand_run()).unwrap();
    let spots = hot_spots(&run, 10);
    // k pc 0: data 150 + fetch 50 = 200; j pc 3: fetch 130; k pc 1: data 5.
    let keys: Vec<(&str, u64, u64)> = spots
        .iter()
        .map(|s| (s.kernel.as_str(), s.pc, s.stall_cycles()))
        .collect();
    assert_eq!(keys, [("k", 0, 200), ("j", 3, 130), ("k", 1, 5)]);
    let top = &spots[0];
    assert_eq!(top.issues, 8);
    assert_eq!((top.l1d_hits, top.l1d_misses), (2, 6));
    assert_eq!(top.mem_insts, 16);
    // (4 x 200 + 12 x 400) / 16 = 350.
    assert_eq!(top.mem_latency_avg, 350.0);
    assert_eq!(top.dominant(), [("data", 75.0), ("fetch", 25.0)]);
    assert_eq!(hot_spots(&run, 1).len(), 1);
}

#[test]
fn report_has_every_section_escapes_text_and_is_self_contained() {
    let dir = tmp_dir("page");
    let sampled = dir.join("saxpy<1>.json");
    let o = gpusim(&[
        "run",
        "kernels/saxpy.ptx",
        "--sample",
        "200",
        "--json",
        sampled.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A PTX text with markup in it, as a hostile or odd input would have.
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&sampled).unwrap()).unwrap();
    let pcs = v["launches"][0]["pcs"]
        .as_array_mut()
        .expect("per-PC statistics");
    let hottest = pcs
        .iter()
        .enumerate()
        .max_by_key(|(i, p)| {
            let s = &p["stalls"];
            let sum: u64 = [
                "control",
                "data",
                "structural",
                "barrier",
                "exit",
                "fetch",
                "throttled",
                "sync_wait",
            ]
            .iter()
            .map(|n| s[n].as_u64().unwrap())
            .sum();
            (sum, std::cmp::Reverse(*i))
        })
        .map(|(i, _)| i)
        .unwrap();
    pcs[hottest]["text"] = "<script>alert(1)</script> & co".into();
    std::fs::write(&sampled, serde_json::to_vec(&v).unwrap()).unwrap();
    let plain = dir.join("bfs.json");
    let o = gpusim(&["run", "kernels/bfs.ptx", "--json", plain.to_str().unwrap()]);
    assert!(o.status.success());
    let csv = dir.join("sweep.csv");
    std::fs::write(
        &csv,
        "run,kernel,config,sched,status,error,sched,ipc\n\
         0,k.ptx,gtx480,lrr,ok,,lrr,2.0\n1,k.ptx,gtx480,gto,ok,,gto,3.0\n",
    )
    .unwrap();

    let mut pages = Vec::new();
    for name in ["a.html", "b.html"] {
        let out = dir.join(name);
        let o = gpusim(&[
            "report",
            sampled.to_str().unwrap(),
            plain.to_str().unwrap(),
            csv.to_str().unwrap(),
            "--title",
            "A & B",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        pages.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(pages[0], pages[1], "same inputs, different page");
    let html = &pages[0];
    check_well_formed(html).unwrap();
    for id in ["summary", "stalls", "time-series", "hot-spots", "sweep"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "no section {id}");
    }
    assert!(html.contains("<title>A &amp; B</title>"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"));
    assert!(html.contains("saxpy&lt;1&gt;.json"));
    assert!(!html.contains("<script"), "a script element");
    // Self-contained: no reference to anything outside the page (the
    // only URL is the SVG namespace, an identifier, never fetched).
    for bad in ["src=", "href=", "<link", "<img", "url("] {
        assert!(!html.contains(bad), "the page has `{bad}`");
    }
    assert_eq!(
        html.matches("http").count(),
        html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    // The time series of the sampled run, a note for the other.
    assert!(html.contains("time series: saxpy&lt;1&gt;"));
    assert!(html.contains("bfs.json</code>: no time series"));
    // Summary numbers from the JSON.
    for json in [&sampled, &plain] {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
        let row = format!(
            "<td>{}</td><td>{}</td><td>{:.3}</td>",
            v["cycles"],
            v["warp_insts"],
            v["ipc"].as_f64().unwrap()
        );
        assert!(html.contains(&row), "no summary cells {row}");
    }
    // The sweep's table: gto over lrr = 1.5, and its hmean.
    assert!(html.contains("<tr><td class=\"l\">hmean</td><td>1.000</td><td>1.500</td></tr>"));
    // Hot spots: the escaped line is the first row of its run's table.
    let saxpy_spots = html.split("<h3>").nth(1).unwrap();
    let first_row = saxpy_spots.split("<tr><td").nth(1).unwrap();
    assert!(first_row.contains("&lt;script&gt;"), "{first_row}");
}

#[test]
fn report_errors_name_the_file() {
    let dir = tmp_dir("errors");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"cycles\": \"many\"}").unwrap();
    let out = dir.join("r.html");
    let o = gpusim(&["report", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("bad.json: not the JSON of `gpusim run --json`"),
        "{e}"
    );
    assert!(e.contains("line 1"), "{e}");
    let missing = dir.join("missing.json");
    let o = gpusim(&[
        "report",
        missing.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.json: cannot read"));
    assert!(!out.exists());
}
