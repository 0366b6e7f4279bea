//! The comparison as text: a plain table for the terminal ([`text`]) and
//! the README's Markdown tables ([`markdown`]). Both show the same
//! columns ([`COLUMNS`]), the IPC order of lrr vs gto, the summaries, the
//! kernels whose thread-instruction counts differ and the failed runs.

use std::fmt::Write as _;

use super::stats::Faster;
use super::{Correlation, KernelResult, Run, Sched, Side, Summary};

/// The per-run columns, in order: header and what each holds (`ref` =
/// GPGPU-Sim, `gpusim` = this simulator).
pub const COLUMNS: [(&str, &str); 14] = [
    ("kernel", "the kernel's name in the reference file"),
    ("sched", "warp scheduler (lrr, gto)"),
    ("cycles ref", "GPGPU-Sim cycles (gpu_tot_sim_cycle)"),
    ("cycles gpusim", "gpusim cycles, summed over launches"),
    ("ratio", "gpusim cycles / GPGPU-Sim cycles"),
    ("IPC ref", "GPGPU-Sim thread instructions per cycle"),
    ("IPC gpusim", "gpusim thread instructions per cycle"),
    ("L1D hit ref", "GPGPU-Sim 1 - L1D misses / L1D accesses"),
    ("L1D hit gpusim", "the same for gpusim (loads and stores)"),
    ("L2 hit ref", "GPGPU-Sim 1 - L2 misses / L2 accesses"),
    ("L2 hit gpusim", "the same for gpusim"),
    ("DRAM rd ref/gpusim", "DRAM reads, GPGPU-Sim / gpusim"),
    ("DRAM wr ref/gpusim", "DRAM writes, GPGPU-Sim / gpusim"),
    (
        "insts",
        "`same` when the thread-instruction counts agree, else `DIFFER`",
    ),
];

fn pct(x: Option<f64>) -> String {
    x.map_or("n/a".to_string(), |x| format!("{:.1}%", 100.0 * x))
}

fn signed_pct(x: f64) -> String {
    format!("{:+.1}%", 100.0 * x)
}

/// The cells of one run's row (without kernel and scheduler).
fn run_cells(r: &Run) -> Vec<String> {
    let g = r.gpusim.as_ref();
    let gs = |f: fn(&Side) -> String| g.map_or("error".to_string(), f);
    vec![
        r.reference.cycles.to_string(),
        gs(|s| s.cycles.to_string()),
        r.cycles_ratio
            .map_or("n/a".to_string(), |x| format!("{x:.3}")),
        format!("{:.2}", r.reference.ipc),
        gs(|s| format!("{:.2}", s.ipc)),
        pct(r.reference.l1d_hit_rate),
        gs(|s| pct(s.l1d_hit_rate)),
        pct(r.reference.l2_hit_rate),
        gs(|s| pct(s.l2_hit_rate)),
        format!(
            "{}/{}",
            r.reference.dram_reads,
            gs(|s| s.dram_reads.to_string())
        ),
        format!(
            "{}/{}",
            r.reference.dram_writes,
            gs(|s| s.dram_writes.to_string())
        ),
        match (g, r.thread_insts_differ) {
            (None, _) => "n/a".to_string(),
            (Some(_), false) => "same".to_string(),
            (Some(_), true) => "DIFFER".to_string(),
        },
    ]
}

fn faster_name(f: Faster) -> &'static str {
    match f {
        Faster::First => "lrr",
        Faster::Second => "gto",
        Faster::Tie => "tie",
    }
}

fn summary_cells(s: &Summary) -> Vec<String> {
    vec![
        s.scope.clone(),
        s.runs.to_string(),
        pct(s.mae),
        s.max_error.as_ref().map_or("n/a".to_string(), |m| {
            format!("{} ({} {})", signed_pct(m.error), m.kernel, m.sched.name())
        }),
        format!("{}/{}", s.within_20, s.runs),
        s.pearson_r.map_or("n/a".to_string(), |r| format!("{r:.4}")),
    ]
}

const SUMMARY_HEADER: [&str; 6] = [
    "scope",
    "runs",
    "MAE",
    "max error",
    "within ±20%",
    "r (cycles)",
];
const ORDER_HEADER: [&str; 4] = ["kernel", "higher IPC ref", "higher IPC gpusim", "match"];

fn order_rows(c: &Correlation) -> Vec<Vec<String>> {
    c.kernels
        .iter()
        .filter_map(|k| {
            k.ipc_order.map(|o| {
                vec![
                    k.name.clone(),
                    faster_name(o.reference).to_string(),
                    faster_name(o.gpusim).to_string(),
                    if o.matches { "yes" } else { "NO" }.to_string(),
                ]
            })
        })
        .collect()
}

const PERTURBED_HEADER: [&str; 5] = [
    "kernel",
    "change (GPGPU-Sim / gpusim)",
    "ref lrr/gto",
    "gpusim lrr/gto",
    "match",
];

/// The lrr/gto cycle ratios of the kernels with perturbed runs: the
/// nominal pair, each perturbed pair, then the means (with how many pairs
/// lrr won on each side) and whether their orders agree.
fn perturbed_rows(c: &Correlation) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let ratio = |x: [u64; 2]| format!("{:.4}", super::perturbed::ratio(x));
    for k in &c.kernels {
        let Some(o) = k.perturbed_order else { continue };
        let side = |s: Sched| k.runs.iter().find(|r| r.sched == s);
        if let (Some(l), Some(g)) = (side(Sched::Lrr), side(Sched::Gto))
            && let (Some(gl), Some(gg)) = (l.gpusim, g.gpusim)
        {
            rows.push(vec![
                k.name.clone(),
                "nominal".to_string(),
                ratio([l.reference.cycles, g.reference.cycles]),
                ratio([gl.cycles, gg.cycles]),
                String::new(),
            ]);
        }
        for p in &k.perturbed {
            rows.push(vec![
                k.name.clone(),
                format!("{} / {}", p.gpgpusim, p.set),
                ratio(p.reference),
                p.gpusim.map_or_else(|| "error".to_string(), ratio),
                String::new(),
            ]);
        }
        let mut row = vec![
            k.name.clone(),
            format!("mean of {} (lrr faster in ref / gpusim)", o.samples),
        ];
        row.extend(mean_cells(&o));
        rows.push(row);
    }
    rows
}

/// The mean cells of a kernel's perturbed order: each side's mean
/// lrr/gto ratio with the pairs lrr won, and whether the orders match.
fn mean_cells(o: &super::PerturbedOrder) -> [String; 3] {
    let side = |mean: f64, wins: usize| format!("{mean:.4} ({wins}/{})", o.samples);
    [
        side(o.reference_mean, o.reference_lrr_faster),
        side(o.gpusim_mean, o.gpusim_lrr_faster),
        if o.matches { "yes" } else { "NO" }.to_string(),
    ]
}

const PERTURBED_MEAN_HEADER: [&str; 5] = [
    "kernel",
    "pairs",
    "ref mean lrr/gto (lrr faster)",
    "gpusim mean lrr/gto (lrr faster)",
    "match",
];

/// One row per kernel with perturbed runs: the pairs averaged, each
/// side's mean lrr/gto cycle ratio (with the pairs lrr won) and whether
/// the means give the same order.
fn perturbed_mean_rows(c: &Correlation) -> Vec<Vec<String>> {
    c.kernels
        .iter()
        .filter_map(|k| {
            let o = k.perturbed_order?;
            let mut row = vec![k.name.clone(), o.samples.to_string()];
            row.extend(mean_cells(&o));
            Some(row)
        })
        .collect()
}

fn run_rows(kernels: &[KernelResult]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for k in kernels {
        for r in &k.runs {
            let mut row = vec![k.name.clone(), r.sched.name().to_string()];
            row.extend(run_cells(r));
            rows.push(row);
        }
    }
    rows
}

fn header() -> Vec<String> {
    COLUMNS.iter().map(|c| c.0.to_string()).collect()
}

/// A plain table: columns padded to their widest cell, the first two left
/// aligned, the others right aligned.
fn plain_table(o: &mut String, header: &[String], rows: &[Vec<String>], left: usize) {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    for r in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let mut line = String::new();
        for (i, (c, w)) in r.iter().zip(&width).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = w - c.chars().count();
            if i < left {
                line.push_str(c);
                line.extend(std::iter::repeat_n(' ', pad));
            } else {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(c);
            }
        }
        let _ = writeln!(o, "{}", line.trim_end());
    }
}

fn markdown_table(o: &mut String, header: &[String], rows: &[Vec<String>], left: usize) {
    let _ = writeln!(o, "| {} |", header.join(" | "));
    let rule: Vec<&str> = (0..header.len())
        .map(|i| if i < left { "---" } else { "---:" })
        .collect();
    let _ = writeln!(o, "|{}|", rule.join("|"));
    for r in rows {
        let cells: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
}

fn heading(c: &Correlation) -> String {
    let sets = if c.sets.is_empty() {
        String::new()
    } else {
        format!(" --set {}", c.sets.join(" --set "))
    };
    format!(
        "gpusim (config {}{sets}) vs {} ({}); reference {}",
        c.config, c.provenance.simulator, c.provenance.config, c.reference_file
    )
}

fn order_line(c: &Correlation) -> String {
    let o = &c.ipc_order;
    let mut s = format!(
        "IPC order lrr vs gto as in GPGPU-Sim: {}/{} kernels",
        o.matches, o.kernels
    );
    if !o.mismatched.is_empty() {
        let _ = write!(s, " (differs: {})", o.mismatched.join(", "));
    }
    if o.perturbed_kernels > 0 {
        let _ = write!(
            s,
            "\nIPC order by the means over one-cycle perturbations ({} kernels), else nominal: {}/{} kernels",
            o.perturbed_kernels, o.with_perturbed_matches, o.kernels
        );
        if !o.with_perturbed_mismatched.is_empty() {
            let _ = write!(s, " (differs: {})", o.with_perturbed_mismatched.join(", "));
        }
    }
    s
}

/// The notes after the tables: differing thread-instruction counts and
/// failed runs (the whole error text), each on its own line(s).
fn notes(c: &Correlation, o: &mut String) {
    let differ: Vec<String> = c
        .kernels
        .iter()
        .flat_map(|k| k.runs.iter().map(move |r| (k, r)))
        .filter(|(_, r)| r.thread_insts_differ)
        .map(|(k, r)| {
            format!(
                "  {} {}: GPGPU-Sim {}, gpusim {}",
                k.name,
                r.sched.name(),
                r.reference.thread_insts,
                r.gpusim.map_or(0, |g| g.thread_insts)
            )
        })
        .collect();
    if !differ.is_empty() {
        let _ = writeln!(o, "\nthread instructions differ (not the same work):");
        for d in differ {
            let _ = writeln!(o, "{d}");
        }
    }
    let unmeasured: Vec<&str> = c
        .kernels
        .iter()
        .filter(|k| k.runs.is_empty())
        .map(|k| k.name.as_str())
        .collect();
    if !unmeasured.is_empty() {
        let _ = writeln!(
            o,
            "\nnot compared (no GPGPU-Sim figures for the schedulers compared): {}",
            unmeasured.join(", ")
        );
    }
    let errors = c.errors();
    let perturbed = c.perturbed_errors();
    if !errors.is_empty() || !perturbed.is_empty() {
        let _ = writeln!(o, "\nerrors:");
        for (k, s, e) in errors {
            let _ = writeln!(o, "  {k} {}: {}", s.name(), e.replace('\n', "\n    "));
        }
        for (k, set, e) in perturbed {
            let _ = writeln!(o, "  {k} [{set}]: {}", e.replace('\n', "\n    "));
        }
    }
}

/// The comparison as plain text: a heading, the per-run table, the IPC
/// order table, every perturbed pair with the means, the summary table,
/// then the notes.
pub fn text(c: &Correlation) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}\n", heading(c));
    plain_table(&mut o, &header(), &run_rows(&c.kernels), 2);
    let orders = order_rows(c);
    if !orders.is_empty() {
        o.push('\n');
        let h: Vec<String> = ORDER_HEADER.iter().map(|s| s.to_string()).collect();
        plain_table(&mut o, &h, &orders, ORDER_HEADER.len());
    }
    let perturbed = perturbed_rows(c);
    if !perturbed.is_empty() {
        let _ = writeln!(
            o,
            "\nlrr/gto cycles under one-cycle perturbations (below 1: lrr has the higher IPC)"
        );
        let h: Vec<String> = PERTURBED_HEADER.iter().map(|s| s.to_string()).collect();
        plain_table(&mut o, &h, &perturbed, 2);
    }
    o.push('\n');
    let h: Vec<String> = SUMMARY_HEADER.iter().map(|s| s.to_string()).collect();
    let rows: Vec<Vec<String>> = c.summaries.iter().map(summary_cells).collect();
    plain_table(&mut o, &h, &rows, 1);
    let _ = writeln!(o, "{}", order_line(c));
    notes(c, &mut o);
    o
}

/// The comparison as the README's Markdown: the per-run table, the IPC
/// order table, the perturbation means (one row per kernel with perturbed
/// runs) and the summary table, each under a bold caption.
pub fn markdown(c: &Correlation) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}\n", heading(c));
    let _ = writeln!(o, "**Per kernel and scheduler** (ref = GPGPU-Sim)\n");
    markdown_table(&mut o, &header(), &run_rows(&c.kernels), 2);
    let orders = order_rows(c);
    if !orders.is_empty() {
        let _ = writeln!(o, "\n**IPC order, lrr vs gto**\n");
        let h: Vec<String> = ORDER_HEADER.iter().map(|s| s.to_string()).collect();
        markdown_table(&mut o, &h, &orders, ORDER_HEADER.len());
    }
    let perturbed = perturbed_mean_rows(c);
    if !perturbed.is_empty() {
        let _ = writeln!(
            o,
            "\n**lrr/gto cycles, mean over the nominal run and one-cycle perturbations** \
             (below 1: lrr has the higher IPC; each pair: `gpusim correlate` without `--markdown`)\n"
        );
        let h: Vec<String> = PERTURBED_MEAN_HEADER
            .iter()
            .map(|s| s.to_string())
            .collect();
        markdown_table(&mut o, &h, &perturbed, 1);
    }
    let _ = writeln!(o, "\n**Cycles, gpusim against GPGPU-Sim**\n");
    let h: Vec<String> = SUMMARY_HEADER.iter().map(|s| s.to_string()).collect();
    let rows: Vec<Vec<String>> = c.summaries.iter().map(summary_cells).collect();
    markdown_table(&mut o, &h, &rows, 1);
    // One paragraph per order line.
    let _ = writeln!(o, "\n{}", order_line(c).replace('\n', "\n\n"));
    notes(c, &mut o);
    o
}
