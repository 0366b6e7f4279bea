//! One self-contained HTML page of results (`gpusim report … -o
//! report.html`): a summary table of the runs, their stall breakdowns,
//! their time series (runs with `samples`), their per-line hot spots
//! (from `launches[].pcs`), and the bar charts of any sweep CSVs. The
//! charts are inline SVG, the style is an inline `<style>`; the page has
//! no script and no external reference, so it opens from disk anywhere.
//! Every text from the inputs (file names, kernel names, PTX text,
//! errors) is HTML-escaped.

use std::fmt::Write as _;

use crate::report::plot::bars::{BarOptions, bar_chart, render_bars_svg};
use crate::report::plot::run_json::RunJson;
use crate::report::plot::stall_stack::{
    render_stalls_svg, run_label, run_stall_bars, runs_stall_bars,
};
use crate::report::plot::sweep_table::SweepTable;
use crate::report::plot::time_series::{render_time_series_svg, windows};
use crate::report::plot::{PlotError, stall_names};

/// What goes on the page besides the inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportOptions {
    /// Page title.
    pub title: String,
    /// Hot spots listed per run.
    pub top: usize,
    /// How sweep CSVs are charted.
    pub bars: BarOptions,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            title: "gpusim report".to_string(),
            top: 10,
            bars: BarOptions::default(),
        }
    }
}

/// One instruction of a kernel, its statistics summed over the launches
/// of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct HotSpot {
    /// The kernel.
    pub kernel: String,
    /// Instruction index in the kernel.
    pub pc: u64,
    /// 1-based line in the `.ptx` file.
    pub line: u64,
    /// The instruction as written.
    pub text: String,
    /// Warp instructions issued.
    pub issues: u64,
    /// Warp-cycles per category (formats.md section 1).
    pub stalls: [u64; 10],
    /// L1D line hits and misses of this load or store.
    pub l1d_hits: u64,
    /// See `l1d_hits`.
    pub l1d_misses: u64,
    /// Memory instructions whose latency was measured.
    pub mem_insts: u64,
    /// Their mean issue-to-writeback latency (weighted over launches).
    pub mem_latency_avg: f64,
}

impl HotSpot {
    /// Warp-cycles the instruction was waited on: every category but
    /// `issued` (and `idle`, which no warp has).
    pub fn stall_cycles(&self) -> u64 {
        self.stalls[1..9].iter().sum()
    }

    /// The largest stall categories (up to 3, each at least 1 % of the
    /// stall cycles), as `name share%`, largest first.
    pub fn dominant(&self) -> Vec<(&'static str, f64)> {
        let total = self.stall_cycles();
        if total == 0 {
            return Vec::new();
        }
        let names = stall_names();
        let mut cats: Vec<(usize, u64)> = (1..9).map(|c| (c, self.stalls[c])).collect();
        cats.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        cats.into_iter()
            .filter(|&(_, v)| v * 100 >= total)
            .take(3)
            .map(|(c, v)| (names[c], v as f64 * 100.0 / total as f64))
            .collect()
    }
}

/// The run's instructions summed over launches by (kernel, pc), the
/// `top` with the most stall cycles first (ties by kernel, then pc);
/// instructions with no stall cycle are left out.
pub fn hot_spots(run: &RunJson, top: usize) -> Vec<HotSpot> {
    let mut all: Vec<HotSpot> = Vec::new();
    for l in &run.launches {
        for p in &l.pcs {
            let idx = match all
                .iter()
                .position(|h| h.kernel == l.kernel && h.pc == p.pc)
            {
                Some(i) => i,
                None => {
                    all.push(HotSpot {
                        kernel: l.kernel.clone(),
                        pc: p.pc,
                        line: p.line,
                        text: p.text.clone(),
                        issues: 0,
                        stalls: [0; 10],
                        l1d_hits: 0,
                        l1d_misses: 0,
                        mem_insts: 0,
                        mem_latency_avg: 0.0,
                    });
                    all.len() - 1
                }
            };
            let h = &mut all[idx];
            h.issues += p.issues;
            for (a, b) in h.stalls.iter_mut().zip(p.stalls.to_array()) {
                *a += b;
            }
            h.l1d_hits += p.l1d_hits;
            h.l1d_misses += p.l1d_misses;
            let n = h.mem_insts + p.mem_insts;
            if n > 0 {
                h.mem_latency_avg = (h.mem_latency_avg * h.mem_insts as f64
                    + p.mem_latency_avg * p.mem_insts as f64)
                    / n as f64;
            }
            h.mem_insts = n;
        }
    }
    all.retain(|h| h.stall_cycles() > 0);
    all.sort_by(|a, b| {
        b.stall_cycles()
            .cmp(&a.stall_cycles())
            .then_with(|| a.kernel.cmp(&b.kernel))
            .then(a.pc.cmp(&b.pc))
    });
    all.truncate(top);
    all
}

/// `s` with `&`, `<`, `>`, `"` and `'` replaced by entities.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}\
h3{font-size:1em}\
table{border-collapse:collapse;margin:0.5em 0}\
th,td{border:1px solid #ccc;padding:2px 8px;text-align:right}\
th{background:#f0f0f0}td.l,th.l{text-align:left}\
code{font-family:monospace;white-space:pre}\
.note{color:#666}figure{margin:0.5em 0;overflow-x:auto}";

/// The HTML page of `runs` (source name, parsed JSON) and `sweeps`
/// (parsed sweep CSVs). Sweep warnings (left-out runs) are listed on the
/// page. Errors: a sweep that cannot be charted (see [`bar_chart`]).
pub fn html_report(
    runs: &[(String, RunJson)],
    sweeps: &[SweepTable],
    opts: &ReportOptions,
) -> Result<String, PlotError> {
    let mut h = String::new();
    let title = escape_html(&opts.title);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n"
    );
    let inputs: Vec<String> = runs
        .iter()
        .map(|(s, _)| s.clone())
        .chain(sweeps.iter().map(|t| t.source.clone()))
        .map(|s| format!("<code>{}</code>", escape_html(&s)))
        .collect();
    let _ = writeln!(h, "<p class=\"note\">Inputs: {}</p>", inputs.join(", "));

    if !runs.is_empty() {
        summary_section(&mut h, runs);
        stalls_section(&mut h, runs)?;
        time_series_section(&mut h, runs)?;
        hot_spots_section(&mut h, runs, opts.top);
    }
    for t in sweeps {
        sweep_section(&mut h, t, &opts.bars)?;
    }
    h.push_str("</body>\n</html>\n");
    Ok(h)
}

fn summary_section(h: &mut String, runs: &[(String, RunJson)]) {
    h.push_str("<h2 id=\"summary\">Summary</h2>\n<table>\n<tr><th class=\"l\">run</th><th class=\"l\">kernel</th><th class=\"l\">sched</th><th>launches</th><th>cycles</th><th>warp insts</th><th>IPC</th><th>L1D hit rate</th><th>L2 hit rate</th><th>DRAM reads</th><th>DRAM writes</th><th>DRAM B/cycle</th><th class=\"l\">check</th></tr>\n");
    for (src, run) in runs {
        let l1d = run.total.l1d;
        let m = run.mem;
        let bpc = if run.cycles == 0 {
            0.0
        } else {
            m.dram_bytes as f64 / run.cycles as f64
        };
        let _ = writeln!(
            h,
            "<tr><td class=\"l\"><code>{}</code></td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td class=\"l\">{}</td></tr>",
            escape_html(src),
            escape_html(&run.kernels().join(", ")),
            escape_html(&run.sched),
            run.launches.len(),
            run.cycles,
            run.warp_insts,
            run.ipc,
            pct(l1d.hits(), l1d.accesses),
            pct(m.l2_hits, m.l2_accesses),
            m.dram_reads,
            m.dram_writes,
            bpc,
            escape_html(run.check.as_deref().unwrap_or("-")),
        );
    }
    h.push_str("</table>\n");
}

fn stalls_section(h: &mut String, runs: &[(String, RunJson)]) -> Result<(), PlotError> {
    let names = stall_names();
    h.push_str("<h2 id=\"stalls\">Stall breakdown</h2>\n<p class=\"note\">Share of scheduler-cycles per category (docs/timing-model.md).</p>\n<table>\n<tr><th class=\"l\">run</th>");
    for n in names {
        let _ = write!(h, "<th>{n}</th>");
    }
    h.push_str("</tr>\n");
    for (src, run) in runs {
        let counts = run.stalls.to_array();
        let total: u64 = counts.iter().sum();
        let _ = write!(
            h,
            "<tr><td class=\"l\"><code>{}</code></td>",
            escape_html(src)
        );
        for c in counts {
            let _ = write!(h, "<td>{}</td>", pct(c, total));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    if runs.len() > 1 {
        let svg = render_stalls_svg("stalls per run", &runs_stall_bars(runs))?;
        let _ = writeln!(h, "<figure>{svg}</figure>");
    }
    for (src, run) in runs {
        if runs.len() == 1 || run.launches.len() > 1 {
            let title = format!("stalls: {}", run_label(src, run));
            let svg = render_stalls_svg(&title, &run_stall_bars(run))?;
            let _ = writeln!(h, "<figure>{svg}</figure>");
        }
    }
    Ok(())
}

fn time_series_section(h: &mut String, runs: &[(String, RunJson)]) -> Result<(), PlotError> {
    h.push_str("<h2 id=\"time-series\">Time series</h2>\n");
    for (src, run) in runs {
        match windows(src, run) {
            Ok(ws) => {
                let title = format!("time series: {}", run_label(src, run));
                let svg = render_time_series_svg(&title, &ws)?;
                let _ = writeln!(h, "<figure>{svg}</figure>");
            }
            Err(_) => {
                let _ = writeln!(
                    h,
                    "<p class=\"note\"><code>{}</code>: no time series; rerun with <code>gpusim run --sample N --json …</code>.</p>",
                    escape_html(src)
                );
            }
        }
    }
    Ok(())
}

fn hot_spots_section(h: &mut String, runs: &[(String, RunJson)], top: usize) {
    h.push_str("<h2 id=\"hot-spots\">Hot spots</h2>\n<p class=\"note\">The PTX lines with the most stalled warp-cycles (every category but issued), summed over launches; a barrier or waiting atomic is charged the cycles warps wait at it, any other line the cycles warps wait to issue it.</p>\n");
    for (src, run) in runs {
        let _ = writeln!(h, "<h3><code>{}</code></h3>", escape_html(src));
        let spots = hot_spots(run, top);
        if spots.is_empty() {
            h.push_str("<p class=\"note\">No per-PC statistics (<code>launches[].pcs</code>) in this file.</p>\n");
            continue;
        }
        let total_stall: u64 = hot_spots(run, usize::MAX)
            .iter()
            .map(HotSpot::stall_cycles)
            .sum();
        h.push_str("<table>\n<tr><th class=\"l\">kernel</th><th>line</th><th>pc</th><th class=\"l\">instruction</th><th>issues</th><th>stall warp-cycles</th><th>share</th><th class=\"l\">main categories</th><th>L1D miss rate</th><th>mem latency</th></tr>\n");
        for s in &spots {
            let dominant: Vec<String> = s
                .dominant()
                .iter()
                .map(|(n, p)| format!("{n} {p:.0}%"))
                .collect();
            let miss = if s.l1d_hits + s.l1d_misses == 0 {
                "-".to_string()
            } else {
                pct(s.l1d_misses, s.l1d_hits + s.l1d_misses)
            };
            let lat = if s.mem_insts == 0 {
                "-".to_string()
            } else {
                format!("{:.1}", s.mem_latency_avg)
            };
            let _ = writeln!(
                h,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\"><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td><td>{miss}</td><td>{lat}</td></tr>",
                escape_html(&s.kernel),
                s.line,
                s.pc,
                escape_html(&s.text),
                s.issues,
                s.stall_cycles(),
                pct(s.stall_cycles(), total_stall),
                dominant.join(", "),
            );
        }
        h.push_str("</table>\n");
    }
}

fn sweep_section(h: &mut String, t: &SweepTable, bars: &BarOptions) -> Result<(), PlotError> {
    let chart = bar_chart(t, bars)?;
    let _ = writeln!(
        h,
        "<h2 id=\"sweep\">Sweep <code>{}</code></h2>",
        escape_html(&t.source)
    );
    let svg = render_bars_svg(&chart)?;
    let _ = writeln!(h, "<figure>{svg}</figure>");
    h.push_str("<table>\n<tr><th class=\"l\">group</th>");
    for s in &chart.series {
        let _ = write!(h, "<th>{}</th>", escape_html(s));
    }
    h.push_str("</tr>\n");
    let fmt = |v: &Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    for (g, label) in chart.groups.iter().enumerate() {
        let _ = write!(h, "<tr><td class=\"l\">{}</td>", escape_html(label));
        for v in &chart.values[g] {
            let _ = write!(h, "<td>{}</td>", fmt(v));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("<tr><td class=\"l\">hmean</td>");
    for v in &chart.hmean {
        let _ = write!(h, "<td>{}</td>", fmt(v));
    }
    h.push_str("</tr>\n</table>\n");
    for w in &chart.warnings {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", escape_html(w));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_html("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
    }
}
