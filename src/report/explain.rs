//! `gpusim explain`: a kernel's PTX annotated line by line with what the
//! timing model counted there (the per-instruction statistics of
//! [`crate::timing::pc_stats`], summed over every launch of the kernel),
//! the lines where warps waited most, and, for two runs of the same
//! workload, where and why their warp-cycles differ.
//!
//! The unit is the warp-cycle: one resident warp for one cycle. A line's
//! *stalled* warp-cycles are every state but `issued` charged to it
//! (`ready` — could have issued, another warp was picked — is shown apart
//! and not counted as stalled).

use std::fmt::Write;

use crate::program::Program;
use crate::timing::stats::{Stall, StallCounts, Stats};

/// What one source line of a kernel was charged, summed over its
/// instructions and the kernel's launches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineFigures {
    /// 1-based source line.
    pub line: u32,
    /// Warp instructions issued.
    pub issues: u64,
    /// Warp-cycles by state (`issued` = `issues`).
    pub stalls: StallCounts,
    /// Warp-cycles ready but not picked.
    pub ready: u64,
    /// L1D line requests served by the L1D.
    pub l1d_hits: u64,
    /// L1D line requests sent to the L2.
    pub l1d_misses: u64,
    /// Memory instructions with a measured latency.
    pub mem_insts: u64,
    /// Their latencies summed.
    pub mem_latency: f64,
}

impl LineFigures {
    /// Stalled warp-cycles: every category but `issued`.
    pub fn stalled(&self) -> u64 {
        self.stalls.total() - self.stalls.issued
    }

    /// Mean issue-to-writeback latency, if measured.
    pub fn latency(&self) -> Option<f64> {
        (self.mem_insts > 0).then(|| self.mem_latency / self.mem_insts as f64)
    }

    /// L1D miss rate of the line's loads, if it has any.
    pub fn miss_rate(&self) -> Option<f64> {
        let n = self.l1d_hits + self.l1d_misses;
        (n > 0).then(|| self.l1d_misses as f64 / n as f64)
    }

    fn add(&mut self, o: &LineFigures) {
        self.issues += o.issues;
        self.stalls.merge(&o.stalls);
        self.ready += o.ready;
        self.l1d_hits += o.l1d_hits;
        self.l1d_misses += o.l1d_misses;
        self.mem_insts += o.mem_insts;
        self.mem_latency += o.mem_latency;
    }
}

/// A kernel's figures per source line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelLines {
    /// Kernel name.
    pub kernel: String,
    /// Its launches in the run.
    pub launches: u32,
    /// Cycles of those launches.
    pub cycles: u64,
    /// Lines with anything counted, ascending.
    pub lines: Vec<LineFigures>,
}

impl KernelLines {
    /// The figures of `line` (zero if nothing was counted there).
    pub fn at(&self, line: u32) -> LineFigures {
        match self.lines.binary_search_by_key(&line, |l| l.line) {
            Ok(i) => self.lines[i].clone(),
            Err(_) => LineFigures {
                line,
                ..LineFigures::default()
            },
        }
    }

    /// Stalled warp-cycles over every line.
    pub fn stalled(&self) -> u64 {
        self.lines.iter().map(LineFigures::stalled).sum()
    }
}

/// Every launched kernel's per-line figures, in order of first launch.
pub fn kernel_lines(stats: &Stats) -> Vec<KernelLines> {
    let mut out: Vec<KernelLines> = Vec::new();
    for l in &stats.launches {
        let i = match out.iter().position(|k| k.kernel == l.kernel) {
            Some(i) => i,
            None => {
                out.push(KernelLines {
                    kernel: l.kernel.clone(),
                    ..KernelLines::default()
                });
                out.len() - 1
            }
        };
        let k = &mut out[i];
        k.launches += 1;
        k.cycles += l.cycles;
        for p in &l.pcs {
            let f = LineFigures {
                line: p.line,
                issues: p.issues,
                stalls: p.stalls,
                ready: p.ready,
                l1d_hits: p.l1d_hits,
                l1d_misses: p.l1d_misses,
                mem_insts: p.mem_insts,
                mem_latency: p.mem_latency_avg * p.mem_insts as f64,
            };
            match k.lines.binary_search_by_key(&p.line, |x| x.line) {
                Ok(j) => k.lines[j].add(&f),
                Err(j) => k.lines.insert(j, f),
            }
        }
    }
    out
}

/// What to show.
#[derive(Clone, Debug)]
pub struct ExplainOptions {
    /// Only this kernel (by name); every launched kernel if `None`.
    pub kernel: Option<String>,
    /// How many lines the top lists name.
    pub top: usize,
}

impl Default for ExplainOptions {
    fn default() -> Self {
        ExplainOptions {
            kernel: None,
            top: 5,
        }
    }
}

/// The source blocks of kernel `k` in `program` as inclusive line ranges,
/// in source order: the entry (from its `.entry` line to the line after
/// its last instruction) and each device function it calls.
fn blocks(program: &Program, k: usize) -> Vec<(u32, u32)> {
    let kernel = program.kernel(k);
    let text = &program.file.text;
    let line_of = |byte: u32| {
        text[..(byte as usize).min(text.len())]
            .matches('\n')
            .count() as u32
            + 1
    };
    let own_end = kernel.funcs.iter().map(|f| f.entry.0 as usize).min();
    let own = &kernel.insts[..own_end.unwrap_or(kernel.insts.len())];
    let last = |insts: &[crate::ir::Inst], start: u32| {
        insts.iter().map(|i| i.line).max().unwrap_or(start) + 1
    };
    let start = line_of(kernel.span.start);
    let mut out = vec![(start, last(own, start))];
    for f in &kernel.funcs {
        let s = line_of(f.span.start);
        let body = &kernel.insts[f.entry.0 as usize..f.end.0 as usize];
        out.push((s, last(body, s)));
    }
    out.sort();
    out
}

/// The first `n` categories of `c` by cycles (stalled ones only), with
/// their share of `total`.
fn main_stalls(c: &StallCounts, n: usize) -> Vec<(Stall, u64)> {
    let mut v: Vec<(Stall, u64)> = Stall::ALL
        .into_iter()
        .filter(|&s| s != Stall::Issued)
        .map(|s| (s, c.get(s)))
        .filter(|&(_, x)| x > 0)
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

fn pct(x: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * x as f64 / total as f64
    }
}

/// The source text of 1-based line `n`.
fn source_line(program: &Program, n: u32) -> &str {
    program
        .file
        .text
        .lines()
        .nth(n as usize - 1)
        .unwrap_or("")
        .trim_end()
}

/// The kernels to show: `opts.kernel`, or every launched one; an unknown
/// or unlaunched name is an error naming the launched ones.
fn selected<'a>(
    lines: &'a [KernelLines],
    opts: &ExplainOptions,
) -> Result<Vec<&'a KernelLines>, String> {
    match &opts.kernel {
        None => Ok(lines.iter().collect()),
        Some(name) => match lines.iter().find(|k| &k.kernel == name) {
            Some(k) => Ok(vec![k]),
            None => Err(format!(
                "kernel `{name}` was not launched (launched: {})",
                lines
                    .iter()
                    .map(|k| k.kernel.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        },
    }
}

/// `program`'s kernels annotated with one run's statistics.
pub fn explain(program: &Program, stats: &Stats, opts: &ExplainOptions) -> Result<String, String> {
    let all = kernel_lines(stats);
    let mut out = String::new();
    for kl in selected(&all, opts)? {
        let Some(k) = program
            .module
            .kernels
            .iter()
            .position(|x| x.name == kl.kernel)
        else {
            continue;
        };
        let stalled = kl.stalled();
        let issues: u64 = kl.lines.iter().map(|l| l.issues).sum();
        let _ = writeln!(
            out,
            "kernel {} ({}), --sched {}: {} cycles in {} launch{}, {} warp instructions, {} stalled warp-cycles",
            kl.kernel,
            program.file.name,
            stats.sched,
            kl.cycles,
            kl.launches,
            if kl.launches == 1 { "" } else { "es" },
            issues,
            stalled
        );
        let _ = writeln!(
            out,
            "\n{:>5} {:>9} {:>12} {:>6} {:<24} {:>6} {:>8}  source",
            "line", "issues", "stalled", "share", "main stalls", "L1Dmiss", "latency"
        );
        for (a, b) in blocks(program, k) {
            for n in a..=b {
                let f = kl.at(n);
                let src = source_line(program, n);
                if f.issues == 0 && f.stalled() == 0 {
                    let _ = writeln!(out, "{:>5} {:>66}  {src}", n, "");
                    continue;
                }
                let main: Vec<String> = main_stalls(&f.stalls, 2)
                    .iter()
                    .enumerate()
                    .filter(|&(i, &(_, x))| i == 0 || pct(x, f.stalled()) >= 1.0)
                    .map(|(_, x)| x)
                    .map(|&(s, x)| format!("{} {:.0}%", s.name(), pct(x, f.stalled())))
                    .collect();
                let _ = writeln!(
                    out,
                    "{:>5} {:>9} {:>12} {:>5.1}% {:<24} {:>6} {:>8}  {src}",
                    n,
                    f.issues,
                    f.stalled(),
                    pct(f.stalled(), stalled),
                    main.join(", "),
                    f.miss_rate()
                        .map_or(String::new(), |r| format!("{:.1}%", 100.0 * r)),
                    f.latency().map_or(String::new(), |l| format!("{l:.1}")),
                );
            }
            out.push('\n');
        }
        let mut top: Vec<&LineFigures> = kl.lines.iter().filter(|l| l.stalled() > 0).collect();
        top.sort_by(|a, b| b.stalled().cmp(&a.stalled()).then(a.line.cmp(&b.line)));
        let _ = writeln!(out, "top stalling lines of {}:", kl.kernel);
        for (i, f) in top.iter().take(opts.top).enumerate() {
            let why: Vec<String> = main_stalls(&f.stalls, 3)
                .iter()
                .enumerate()
                .filter(|&(i, &(_, x))| i == 0 || pct(x, f.stalled()) >= 0.1)
                .map(|(_, x)| x)
                .map(|&(s, x)| format!("{} {:.1}%", s.name(), pct(x, f.stalled())))
                .collect();
            let _ = writeln!(
                out,
                "{:>3}. line {:<5} {:>5.1}% of stalled warp-cycles ({}): {}\n       {}",
                i + 1,
                f.line,
                pct(f.stalled(), stalled),
                f.stalled(),
                why.join(", "),
                source_line(program, f.line).trim()
            );
        }
        out.push('\n');
    }
    Ok(out)
}

/// The signed difference `b − a` of every category.
fn diff(a: &StallCounts, b: &StallCounts) -> Vec<(Stall, i128)> {
    Stall::ALL
        .into_iter()
        .filter(|&s| s != Stall::Issued)
        .map(|s| (s, i128::from(b.get(s)) - i128::from(a.get(s))))
        .collect()
}

/// The categories that account for most of a difference, largest first
/// (by size, with their sign).
fn accounted(d: &[(Stall, i128)], n: usize) -> String {
    let mut v: Vec<(Stall, i128)> = d.iter().copied().filter(|&(_, x)| x != 0).collect();
    v.sort_by(|a, b| b.1.abs().cmp(&a.1.abs()).then(a.0.cmp(&b.0)));
    v.iter()
        .take(n)
        .map(|&(s, x)| format!("{} {:+}", s.name(), x))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Two runs of the same workload compared line by line: each line's
/// stalled warp-cycles under `a` and `b`, the difference and the
/// categories that account for it; then the lines that differ most.
pub fn explain_vs(
    program: &Program,
    a: &Stats,
    b: &Stats,
    opts: &ExplainOptions,
) -> Result<String, String> {
    let la = kernel_lines(a);
    let lb = kernel_lines(b);
    let mut out = String::new();
    let change = |x: u64, y: u64| {
        if x == 0 {
            String::new()
        } else {
            format!(" ({:+.1}%)", 100.0 * (y as f64 - x as f64) / x as f64)
        }
    };
    let _ = writeln!(
        out,
        "{}: --sched {} {} cycles, --sched {} {} cycles{}",
        program.file.name,
        a.sched,
        a.cycles,
        b.sched,
        b.cycles,
        change(a.cycles, b.cycles)
    );
    let _ = writeln!(
        out,
        "warp-cycles by state, whole run ({} − {}): {}\n",
        b.sched,
        a.sched,
        accounted(&diff(&a.total.warp_states, &b.total.warp_states), 10)
    );
    for ka in selected(&la, opts)? {
        let Some(kb) = lb.iter().find(|k| k.kernel == ka.kernel) else {
            continue;
        };
        let Some(k) = program
            .module
            .kernels
            .iter()
            .position(|x| x.name == ka.kernel)
        else {
            continue;
        };
        let _ = writeln!(
            out,
            "kernel {}: {} cycles under {}, {} under {}{}; stalled warp-cycles {} vs {}",
            ka.kernel,
            ka.cycles,
            a.sched,
            kb.cycles,
            b.sched,
            change(ka.cycles, kb.cycles),
            ka.stalled(),
            kb.stalled()
        );
        let wa = format!("stalled({})", a.sched);
        let wb = format!("stalled({})", b.sched);
        let _ = writeln!(
            out,
            "\n{:>5} {:>14} {:>14} {:>12}  {:<40}  source",
            "line", wa, wb, "difference", "accounted for by"
        );
        let mut rows: Vec<(u32, i128, String)> = Vec::new();
        for (s, e) in blocks(program, k) {
            for n in s..=e {
                let (fa, fb) = (ka.at(n), kb.at(n));
                let src = source_line(program, n);
                if fa.issues + fb.issues == 0 && fa.stalled() + fb.stalled() == 0 {
                    let _ = writeln!(out, "{:>5} {:>74}  {src}", n, "");
                    continue;
                }
                let d = i128::from(fb.stalled()) - i128::from(fa.stalled());
                let why = accounted(&diff(&fa.stalls, &fb.stalls), 2);
                let _ = writeln!(
                    out,
                    "{:>5} {:>14} {:>14} {:>+12}  {:<40}  {src}",
                    n,
                    fa.stalled(),
                    fb.stalled(),
                    d,
                    why
                );
                if d != 0 {
                    rows.push((n, d, accounted(&diff(&fa.stalls, &fb.stalls), 3)));
                }
            }
            out.push('\n');
        }
        rows.sort_by(|x, y| y.1.abs().cmp(&x.1.abs()).then(x.0.cmp(&y.0)));
        let _ = writeln!(
            out,
            "lines that differ most ({} − {}, stalled warp-cycles):",
            b.sched, a.sched
        );
        for (i, (n, d, why)) in rows.iter().take(opts.top).enumerate() {
            let _ = writeln!(
                out,
                "{:>3}. line {:<5} {:>+12}: {}\n       {}",
                i + 1,
                n,
                d,
                why,
                source_line(program, *n).trim()
            );
        }
        out.push('\n');
    }
    Ok(out)
}
