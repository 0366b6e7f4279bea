//! A recorded warp-state timeline as SVG (`gpusim timeline`, after the
//! BAWS paper's Fig. 4): one row per warp, time to the right, each row
//! coloured by the warp's state, barrier releases marked.
//!
//! Written by hand, like `correlate --svg`: the picture is rectangles,
//! lines and text; fixed layout and integer coordinates make the file
//! byte-identical for the same run on every platform, and no dependency
//! is needed.
//!
//! **Rows.** One per recorded warp, in placement order: the chosen CTAs
//! that ran on the SM, whole CTAs, up to [`MAX_ROWS`] warps (the recorder
//! leaves out later CTAs and counts their warps).
//!
//! **Time axis.** The plot spans the drawn warps' lifetimes, from the
//! first one's start `t0` to the last one's end `t1`. It has at most
//! [`MAX_COLUMNS`] columns: one column holds `c = ⌈(t1 − t0) /
//! MAX_COLUMNS⌉` cycles (column `k`: cycles `t0 + k·c ..< t0 + (k+1)·c`)
//! and is `⌊MAX_COLUMNS / columns⌋` pixels wide (at most
//! [`MAX_PX_PER_COLUMN`]). In a column, a row shows the state it spent
//! the most cycles in (ties go to the state listed first in the legend),
//! or nothing if the warp did not exist then; consecutive columns of the
//! same state are one rectangle. With `c = 1` every rectangle is exactly
//! one run of a state, and a row's rectangles add up to the warp's
//! lifetime. A file has at most rows × columns rectangles.
//!
//! **States** (the stall categories of docs/timing-model.md, some merged
//! into one colour): issued; ready but not picked; data (scoreboard or an
//! atomic in flight); structural (its unit busy); fetch / control (empty
//! I-buffer: fetch latency or miss, or flushed by a branch); barrier
//! (waiting at `bar.sync` or within `barrier_latency` of its release);
//! sleeping / throttled (`nanosleep`, or the policy held it back);
//! exited (the warp exited, its CTA has not retired).
//!
//! **Phase marks.** Each barrier release of a drawn CTA is a black
//! vertical line across that CTA's rows, at the start of the phase it
//! begins (the cycle after the release).

use std::fmt::Write as _;

use crate::timing::timeline::{Timeline, WarpRow};

pub use crate::timing::timeline::MAX_ROWS;

/// Columns of the time axis at most.
pub const MAX_COLUMNS: u64 = 1600;
/// Pixels per column at most (short runs).
pub const MAX_PX_PER_COLUMN: u64 = 16;
/// Left edge of the plot (room for the row labels).
pub const PLOT_LEFT: u64 = 110;
/// Top edge of the plot (title, legend).
pub const PLOT_TOP: u64 = 96;
/// Row pitch and bar height (pixels).
pub const ROW_PITCH: u64 = 10;
const BAR_HEIGHT: u64 = 8;

/// The legend: each state's name and colour, in tie-breaking order.
pub const LEGEND: [(&str, &str); 8] = [
    ("issued", "#2ca02c"),
    ("ready, not picked", "#98df8a"),
    ("data (scoreboard)", "#1f77b4"),
    ("structural (unit busy)", "#ff7f0e"),
    ("fetch / control", "#9467bd"),
    ("barrier", "#d62728"),
    ("sleeping / throttled", "#bcbd22"),
    ("exited", "#c7c7c7"),
];

/// The legend entry of state code `code` (a [`crate::timing::Stall`]
/// index, 10 for ready).
pub fn category(code: u8) -> usize {
    match code {
        0 => 0,     // issued
        10 => 1,    // ready, not picked
        2 => 2,     // data
        3 => 3,     // structural
        1 | 6 => 4, // control, fetch
        4 => 5,     // barrier
        5 => 7,     // exit
        _ => 6,     // throttled, sync_wait (idle is never a warp's)
    }
}

/// The time axis: first cycle, cycles and pixels per column, columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis {
    /// First cycle drawn.
    pub t0: u64,
    /// One past the last cycle drawn.
    pub t1: u64,
    /// Cycles per column.
    pub cycles_per_column: u64,
    /// Pixels per column.
    pub px_per_column: u64,
    /// Columns.
    pub columns: u64,
}

impl Axis {
    /// The axis for the rows `rows` (see the module doc).
    pub fn of(rows: &[WarpRow]) -> Axis {
        let t0 = rows.iter().map(|r| r.start).min().unwrap_or(0);
        let t1 = rows.iter().map(|r| r.end).max().unwrap_or(t0).max(t0 + 1);
        let span = t1 - t0;
        let cpc = span.div_ceil(MAX_COLUMNS).max(1);
        let columns = span.div_ceil(cpc);
        Axis {
            t0,
            t1,
            cycles_per_column: cpc,
            px_per_column: (MAX_COLUMNS / columns).clamp(1, MAX_PX_PER_COLUMN),
            columns,
        }
    }

    /// Pixel x of the start of cycle `t` (rounded down to its column).
    pub fn x(&self, t: u64) -> u64 {
        PLOT_LEFT + (t.saturating_sub(self.t0) / self.cycles_per_column) * self.px_per_column
    }

    /// Plot width in pixels.
    pub fn width(&self) -> u64 {
        self.columns * self.px_per_column
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A tick step of 1, 2 or 5 × 10^k cycles giving at most about 10 ticks
/// over `span` cycles.
fn tick_step(span: u64) -> u64 {
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            if span / (step * m) <= 10 {
                return step * m;
            }
        }
        step *= 10;
    }
}

/// Each row's state per column: the legend entry it spent most cycles in.
fn columns_of(row: &WarpRow, axis: &Axis, acc: &mut Vec<[u64; 8]>) -> Vec<Option<usize>> {
    acc.clear();
    acc.resize(axis.columns as usize, [0; 8]);
    for (i, &(from, code)) in row.changes.iter().enumerate() {
        let to = row.changes.get(i + 1).map_or(row.end, |c| c.0).min(row.end);
        let from = from.max(row.start);
        if from >= to {
            continue;
        }
        let cat = category(code);
        let mut t = from;
        while t < to {
            let col = (t - axis.t0) / axis.cycles_per_column;
            let col_end = axis.t0 + (col + 1) * axis.cycles_per_column;
            let upto = col_end.min(to);
            acc[col as usize][cat] += upto - t;
            t = upto;
        }
    }
    acc.iter()
        .map(|c| {
            let mut best: Option<usize> = None;
            for (k, &n) in c.iter().enumerate() {
                if n > 0 && best.is_none_or(|b| n > c[b]) {
                    best = Some(k);
                }
            }
            best
        })
        .collect()
}

/// Renders `t` (a run under scheduler `sched` of `run_cycles` cycles) as
/// SVG text.
pub fn render(t: &Timeline, sched: &str, run_cycles: u64) -> String {
    let rows = &t.rows[..];
    let axis = Axis::of(rows);
    let width = PLOT_LEFT + axis.width() + 30;
    let plot_bottom = PLOT_TOP + rows.len() as u64 * ROW_PITCH;
    let height = plot_bottom + 40;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let sel = &t.selection;
    let title = format!(
        "{} under {} — SM {}, launch {} ({} cycles); run: {} cycles",
        t.kernel,
        sched,
        sel.sm,
        sel.launch,
        t.launch_cycles.1 - t.launch_cycles.0,
        run_cycles
    );
    let _ = writeln!(o, "<title>{}</title>", escape(&title));
    let _ = writeln!(
        o,
        r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        o,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">{}</text>"#,
        escape(&title)
    );
    let ctas = match sel.ctas {
        Some((a, b)) => format!("CTAs {a}..{b}"),
        None => "every CTA".to_string(),
    };
    let shown = if t.warps_omitted > 0 {
        format!(
            " (the first {}; {} more not drawn, choose CTAs with --ctas)",
            rows.len(),
            t.warps_omitted
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        o,
        r#"<text x="10" y="38">{ctas} of the SM: {} warps{shown}; cycles {} to {}; one column = {} cycle{} ({} px), showing the state held longest in it</text>"#,
        rows.len(),
        axis.t0,
        axis.t1,
        axis.cycles_per_column,
        if axis.cycles_per_column == 1 { "" } else { "s" },
        axis.px_per_column
    );
    // Legend.
    let _ = writeln!(o, r#"<g id="legend">"#);
    let mut x = 10;
    for (name, colour) in LEGEND {
        let _ = writeln!(
            o,
            r#"<rect x="{x}" y="52" width="12" height="10" fill="{colour}"/><text x="{}" y="61">{}</text>"#,
            x + 16,
            escape(name)
        );
        x += 24 + 7 * name.len() as u64;
    }
    let _ = writeln!(
        o,
        r#"<line x1="{x}" y1="50" x2="{x}" y2="64" stroke="black" stroke-width="2"/><text x="{}" y="61">barrier release (phase start)</text>"#,
        x + 6
    );
    let _ = writeln!(o, "</g>");
    // Axis and ticks.
    let _ = writeln!(o, r#"<g id="axis" font-size="10">"#);
    let _ = writeln!(
        o,
        r#"<line x1="{PLOT_LEFT}" y1="{plot_bottom}" x2="{}" y2="{plot_bottom}" stroke="black"/>"#,
        PLOT_LEFT + axis.width()
    );
    let step = tick_step(axis.t1 - axis.t0);
    let mut tick = axis.t0.div_ceil(step) * step;
    while tick <= axis.t1 {
        let tx = axis.x(tick);
        let _ = writeln!(
            o,
            r#"<line x1="{tx}" y1="{plot_bottom}" x2="{tx}" y2="{}" stroke="black"/><text x="{tx}" y="{}" text-anchor="middle">{tick}</text>"#,
            plot_bottom + 4,
            plot_bottom + 16
        );
        tick += step;
    }
    let _ = writeln!(
        o,
        r#"<text x="{}" y="{}" text-anchor="middle">cycle</text>"#,
        PLOT_LEFT + axis.width() / 2,
        plot_bottom + 32
    );
    let _ = writeln!(o, "</g>");
    // Rows.
    let _ = writeln!(
        o,
        r#"<g id="rows" data-cycle0="{}" data-cycles-per-column="{}" data-px-per-column="{}">"#,
        axis.t0, axis.cycles_per_column, axis.px_per_column
    );
    let mut acc = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let y = PLOT_TOP + i as u64 * ROW_PITCH;
        let _ = writeln!(
            o,
            r#"<g class="warp" data-cta="{}" data-warp="{}" data-start="{}" data-end="{}">"#,
            row.cta_linear, row.warp, row.start, row.end
        );
        let _ = writeln!(
            o,
            r#"<text x="{}" y="{}" text-anchor="end" font-size="9">CTA {} warp {}</text>"#,
            PLOT_LEFT - 4,
            y + BAR_HEIGHT,
            row.cta_linear,
            row.warp
        );
        let cols = columns_of(row, &axis, &mut acc);
        let mut k = 0;
        while k < cols.len() {
            let Some(cat) = cols[k] else {
                k += 1;
                continue;
            };
            let mut end = k + 1;
            while end < cols.len() && cols[end] == Some(cat) {
                end += 1;
            }
            let _ = writeln!(
                o,
                r#"<rect x="{}" y="{y}" width="{}" height="{BAR_HEIGHT}" fill="{}"/>"#,
                PLOT_LEFT + k as u64 * axis.px_per_column,
                (end - k) as u64 * axis.px_per_column,
                LEGEND[cat].1
            );
            k = end;
        }
        let _ = writeln!(o, "</g>");
    }
    let _ = writeln!(o, "</g>");
    // Phase marks: the rows of each drawn CTA (contiguous: a CTA's warps
    // are placed together).
    let mut spans: Vec<(u64, usize, usize)> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        match spans.last_mut() {
            Some(s) if s.0 == r.cta_linear => s.2 = i,
            _ => spans.push((r.cta_linear, i, i)),
        }
    }
    spans.sort_unstable();
    let _ = writeln!(o, r#"<g id="phases">"#);
    for m in &t.marks {
        let Ok(p) = spans.binary_search_by_key(&m.cta_linear, |s| s.0) else {
            continue;
        };
        let (_, first, last) = spans[p];
        let x = axis.x(m.cycle + 1);
        let _ = writeln!(
            o,
            r#"<line class="phase" data-cta="{}" data-cycle="{}" x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="black" stroke-width="2"/>"#,
            m.cta_linear,
            m.cycle,
            PLOT_TOP + first as u64 * ROW_PITCH - 1,
            PLOT_TOP + last as u64 * ROW_PITCH + BAR_HEIGHT + 1
        );
    }
    let _ = writeln!(o, "</g>");
    let _ = writeln!(o, "</svg>");
    o
}

/// Why `t` has nothing to draw, if so: the launch does not exist, or no
/// chosen CTA ran on the SM (the message names what did).
pub fn empty_reason(t: &Timeline, launches: usize) -> Option<String> {
    let sel = &t.selection;
    if t.kernel.is_empty() {
        return Some(format!(
            "--launch-index {}: the workload made {launches} launch{} (0 to {})",
            sel.launch,
            if launches == 1 { "" } else { "es" },
            launches.saturating_sub(1)
        ));
    }
    if !t.rows.is_empty() {
        return None;
    }
    let g = t.grid;
    let total = u64::from(g[0]) * u64::from(g[1]) * u64::from(g[2]);
    let ran = if t.ctas_on_sm_total == 0 {
        "no CTA".to_string()
    } else {
        let list: Vec<String> = t.ctas_on_sm.iter().take(16).map(u64::to_string).collect();
        format!(
            "{} CTA{}: {}{}",
            t.ctas_on_sm_total,
            if t.ctas_on_sm_total == 1 { "" } else { "s" },
            list.join(", "),
            if t.ctas_on_sm_total > 16 { ", …" } else { "" }
        )
    };
    let what = match sel.ctas {
        Some((a, b)) => format!("no CTA of --ctas {a}..{b}"),
        None => "no CTA".to_string(),
    };
    Some(format!(
        "{what} ran on SM {} in launch {} ({}, grid [{}, {}, {}] = {total} CTAs); SM {} ran {ran}",
        sel.sm, sel.launch, t.kernel, g[0], g[1], g[2], sel.sm
    ))
}

/// Parses `--ctas`: `A..B` (half-open), `A..=B` or `A` (linear CTA
/// indices).
pub fn parse_cta_range(s: &str) -> Result<(u64, u64), String> {
    let bad =
        || format!("--ctas `{s}`: expected A..B (CTA indices A to B − 1), A..=B or A, with A ≤ B");
    let num = |t: &str| t.trim().parse::<u64>().map_err(|_| bad());
    let (a, b) = if let Some((a, b)) = s.split_once("..=") {
        (num(a)?, num(b)?.checked_add(1).ok_or_else(bad)?)
    } else if let Some((a, b)) = s.split_once("..") {
        (num(a)?, num(b)?)
    } else {
        let a = num(s)?;
        (a, a.checked_add(1).ok_or_else(bad)?)
    };
    if a >= b {
        return Err(format!(
            "--ctas `{s}`: the range is empty (A must be below B)"
        ));
    }
    Ok((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cta_ranges() {
        assert_eq!(parse_cta_range("2..5"), Ok((2, 5)));
        assert_eq!(parse_cta_range("2..=5"), Ok((2, 6)));
        assert_eq!(parse_cta_range("7"), Ok((7, 8)));
        assert!(parse_cta_range("5..5").unwrap_err().contains("empty"));
        assert!(parse_cta_range("5..2").is_err());
        assert!(
            parse_cta_range("a..b")
                .unwrap_err()
                .contains("expected A..B")
        );
        assert!(parse_cta_range("").is_err());
    }

    #[test]
    fn ticks_are_1_2_5() {
        assert_eq!(tick_step(10), 1);
        assert_eq!(tick_step(11), 2);
        assert_eq!(tick_step(95), 10);
        assert_eq!(tick_step(3800), 500);
    }

    #[test]
    fn bucketed_column_takes_the_longest_state() {
        let row = WarpRow {
            cta: [0; 3],
            cta_linear: 0,
            warp: 0,
            start: 0,
            end: 4000,
            // 0..3: issued 3 cycles, then barrier until 3999, issued at 3999.
            changes: vec![(0, 0), (3, 4), (3999, 0)],
        };
        let axis = Axis::of(std::slice::from_ref(&row));
        assert_eq!((axis.cycles_per_column, axis.columns), (3, 1334));
        let mut acc = Vec::new();
        let cols = columns_of(&row, &axis, &mut acc);
        assert_eq!(cols[0], Some(0));
        assert_eq!(cols[1], Some(5));
        // The last column holds cycles 3999..4002, of which only 3999 lived.
        assert_eq!(cols[1333], Some(0));
    }
}
