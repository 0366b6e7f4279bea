//! `gpusim timeline`'s recorder (`src/timing/timeline.rs`) and SVG
//! (`src/report/timeline_svg.rs`): recording changes no cycle; each row's
//! intervals add up to the warp's own per-state cycles; the SVG has one
//! row group per warp whose rectangles cover exactly its lifetime, only
//! legend colours, one phase mark per barrier release; and it is
//! byte-identical run to run.

use std::collections::BTreeMap;
use std::path::Path;

use gpusim::report::timeline_svg::{Axis, LEGEND, MAX_COLUMNS, category, render};
use gpusim::timing::timeline::{Timeline, TimelineSelection};
use gpusim::timing::{Policies, Stall, TimedRun, run_timed_timeline};
use gpusim::workload::runner::prepare;

mod phases;
use phases::{config, run, skew_manifest};

fn timeline_run(m: &Path, sched: &str, ctas: Option<(u64, u64)>) -> TimedRun {
    let p = prepare(m, None).unwrap();
    let sel = TimelineSelection {
        sm: 0,
        launch: 0,
        ctas,
    };
    let r = run_timed_timeline(&p, &[], &config("tiny"), &Policies::sched(sched), sel).unwrap();
    assert!(r.check.passed());
    r
}

/// The recorder runs SM 0's full issue stage: the run is the same in
/// every statistic (cycles, stalls, warps' states, barrier figures).
#[test]
fn recording_changes_nothing() {
    let m = skew_manifest("timeline", "same", 3, 4, 30);
    for sched in ["lrr", "gto"] {
        let plain = run(&m, &config("tiny"), sched, false);
        let r = timeline_run(&m, sched, None);
        assert_eq!(r.stats, plain.stats, "{sched}");
        assert!(r.timeline.is_some() && plain.timeline.is_none());
    }
}

/// Each row spans its warp's record (start to end) and its intervals,
/// summed per state, are the warp's own state cycles; the marks are the
/// barrier releases.
#[test]
fn rows_add_up_to_the_warps_state_cycles() {
    let m = skew_manifest("timeline", "rows", 3, 4, 30);
    let r = timeline_run(&m, "gto", None);
    let t = r.timeline.unwrap();
    assert_eq!(t.kernel, "warp_skew");
    assert_eq!(t.rows.len(), 12);
    assert_eq!(r.stats.warps.len(), 12);
    for row in &t.rows {
        let rec = r
            .stats
            .warps
            .iter()
            .find(|w| w.cta == row.cta && w.warp == row.warp)
            .unwrap();
        assert_eq!((row.start, row.end), (rec.start, rec.end));
        let mut per_code = [0u64; 11];
        for (i, &(from, code)) in row.changes.iter().enumerate() {
            let to = row.changes.get(i + 1).map_or(row.end, |c| c.0);
            assert!(
                from < to,
                "changes strictly increase and end before the end"
            );
            per_code[code as usize] += to - from;
        }
        for (k, s) in Stall::ALL.iter().enumerate() {
            assert_eq!(per_code[k], rec.states.get(*s), "{:?} {:?}", row.cta, s);
        }
        assert_eq!(per_code[10], rec.ready);
    }
    // Two barriers per CTA, each a mark.
    assert_eq!(t.marks.len(), 6);
    assert_eq!(t.marks.len() as u64, r.stats.barriers.barriers_released);
    // Only CTA 1: its four warps and two releases.
    let one = timeline_run(&m, "gto", Some((1, 2))).timeline.unwrap();
    assert_eq!(one.rows.len(), 4);
    assert!(one.rows.iter().all(|w| w.cta_linear == 1));
    assert_eq!(one.marks.len(), 2);
    assert_eq!(one.ctas_on_sm, vec![0, 1, 2]);
}

/// One element of the SVG: name and attributes.
#[derive(Debug)]
struct Element {
    name: String,
    attrs: BTreeMap<String, String>,
    /// Index of the enclosing element, if any.
    parent: Option<usize>,
}

/// A minimal XML reader for the SVG this crate writes (elements,
/// attributes in double quotes, text): checks that tags nest and close.
fn parse_xml(s: &str) -> Vec<Element> {
    let mut out: Vec<Element> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let close = rest.find('>').expect("tag closed");
        let tag = &rest[..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack.pop().expect("closing tag has an opening one");
            assert_eq!(out[top].name, name.trim(), "tags nest");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, mut attrs_text) = tag.split_once(' ').unwrap_or((tag, ""));
        let mut attrs = BTreeMap::new();
        while let Some(eq) = attrs_text.find("=\"") {
            let key = attrs_text[..eq].trim().to_string();
            let after = &attrs_text[eq + 2..];
            let end = after.find('"').expect("attribute value closed");
            assert!(!after[..end].contains('<'));
            assert!(attrs.insert(key, after[..end].to_string()).is_none());
            attrs_text = &after[end + 1..];
        }
        assert!(attrs_text.trim().is_empty(), "stray text in <{tag}>");
        out.push(Element {
            name: name.to_string(),
            attrs,
            parent: stack.last().copied(),
        });
        if !self_closing {
            stack.push(out.len() - 1);
        }
    }
    assert!(stack.is_empty(), "every element closed");
    out
}

fn num(e: &Element, a: &str) -> u64 {
    e.attrs[a].parse().unwrap()
}

/// Checks the SVG of `t` against the timeline and returns it.
fn check_svg(t: &Timeline) -> String {
    let svg = render(t, "gto", 1);
    let els = parse_xml(&svg);
    assert_eq!(els[0].name, "svg");
    let rows_g = els
        .iter()
        .position(|e| e.attrs.get("id").is_some_and(|v| v == "rows"))
        .unwrap();
    let axis = Axis::of(&t.rows);
    assert_eq!(num(&els[rows_g], "data-cycle0"), axis.t0);
    assert_eq!(
        num(&els[rows_g], "data-cycles-per-column"),
        axis.cycles_per_column
    );
    let px = num(&els[rows_g], "data-px-per-column");
    let warps: Vec<usize> = (0..els.len())
        .filter(|&i| els[i].attrs.get("class").is_some_and(|c| c == "warp"))
        .collect();
    assert_eq!(warps.len(), t.rows.len());
    let colours: Vec<&str> = LEGEND.iter().map(|l| l.1).collect();
    for (&g, row) in warps.iter().zip(&t.rows) {
        assert_eq!(els[g].parent, Some(rows_g));
        assert_eq!(num(&els[g], "data-cta"), row.cta_linear);
        assert_eq!(num(&els[g], "data-warp"), u64::from(row.warp));
        let rects: Vec<&Element> = els
            .iter()
            .filter(|e| e.parent == Some(g) && e.name == "rect")
            .collect();
        // The rectangles tile the columns the warp lived in.
        let c = axis.cycles_per_column;
        let cols = (row.end - 1 - axis.t0) / c - (row.start - axis.t0) / c + 1;
        let width: u64 = rects.iter().map(|r| num(r, "width")).sum();
        assert_eq!(width, cols * px);
        let mut x = axis.x(row.start);
        for r in &rects {
            assert_eq!(num(r, "x"), x, "rectangles are contiguous");
            x += num(r, "width");
            assert!(colours.contains(&r.attrs["fill"].as_str()));
        }
        if c == 1 {
            assert_eq!(width, (row.end - row.start) * px);
            // Unbucketed: one rectangle per run of a legend category.
            let mut runs = 0;
            let mut last = None;
            for (i, &(from, code)) in row.changes.iter().enumerate() {
                let to = row.changes.get(i + 1).map_or(row.end, |c| c.0);
                if from < to && last != Some(category(code)) {
                    runs += 1;
                    last = Some(category(code));
                }
            }
            assert_eq!(rects.len(), runs);
        }
    }
    let marks = els
        .iter()
        .filter(|e| e.attrs.get("class").is_some_and(|c| c == "phase"))
        .count();
    assert_eq!(marks, t.marks.len());
    svg
}

#[test]
fn svg_rows_tile_lifetimes_with_legend_colours() {
    // Short: one column per cycle.
    let m = skew_manifest("timeline", "svg", 2, 4, 1);
    let t = timeline_run(&m, "gto", None).timeline.unwrap();
    assert_eq!(Axis::of(&t.rows).cycles_per_column, 1);
    check_svg(&t);
    // Long: bucketed, at most MAX_COLUMNS columns.
    let m = skew_manifest("timeline", "svg-long", 2, 4, 200);
    let r = timeline_run(&m, "lrr", None);
    let t = r.timeline.unwrap();
    let axis = Axis::of(&t.rows);
    assert!(axis.cycles_per_column > 1 && axis.columns <= MAX_COLUMNS);
    let svg = check_svg(&t);
    assert_eq!(t.marks.len(), 4);
    assert!(svg.len() < 200_000, "{} bytes", svg.len());
}

#[test]
fn svg_is_byte_identical_across_runs() {
    let m = skew_manifest("timeline", "determinism", 2, 4, 20);
    let a = timeline_run(&m, "lrr", None);
    let b = timeline_run(&m, "lrr", None);
    let sa = render(a.timeline.as_ref().unwrap(), "lrr", a.stats.cycles);
    let sb = render(b.timeline.as_ref().unwrap(), "lrr", b.stats.cycles);
    assert_eq!(sa, sb);
}

/// At most `MAX_ROWS` rows are recorded, whole CTAs in placement order;
/// the rest are counted and the SVG says so.
#[test]
fn rows_are_capped_by_whole_ctas() {
    use gpusim::timing::timeline::MAX_ROWS;
    let ctas = (MAX_ROWS / 4 + 10) as u32;
    let m = skew_manifest("timeline", "cap", ctas, 4, 1);
    let t = timeline_run(&m, "gto", None).timeline.unwrap();
    assert_eq!(t.rows.len(), MAX_ROWS);
    assert_eq!(t.warps_omitted, 40);
    assert_eq!(t.ctas_on_sm_total, u64::from(ctas));
    let mut drawn: Vec<u64> = t.rows.iter().map(|r| r.cta_linear).collect();
    drawn.dedup();
    assert_eq!(drawn, t.ctas_on_sm[..MAX_ROWS / 4].to_vec());
    // Two releases per drawn CTA.
    assert_eq!(t.marks.len(), MAX_ROWS / 4 * 2);
    let svg = check_svg(&t);
    assert!(svg.contains("40 more not drawn"));
}
