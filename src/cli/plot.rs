//! `gpusim plot`: a sweep CSV as grouped bars, a run's JSON as a stall
//! breakdown or a time series, written as SVG (docs/plots.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use gpusim::report::plot::PlotError;
use gpusim::report::plot::bars::{BarOptions, sweep_csv_to_svg};
use gpusim::report::plot::run_json::RunJson;
use gpusim::report::plot::stall_stack::{
    render_stalls_svg, run_label, run_stall_bars, runs_stall_bars,
};
use gpusim::report::plot::time_series::{render_time_series_svg, windows};

/// Which chart to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlotKind {
    /// Grouped bars of a sweep CSV (the default for `.csv`).
    Bars,
    /// Stacked stall categories of runs' JSON (the default for `.json`).
    Stalls,
    /// IPC, stall mix, L1D miss rate and DRAM bytes/cycle per window of
    /// one run's JSON (needs `gpusim run --sample N`).
    TimeSeries,
}

/// Arguments of `gpusim plot`.
#[derive(Args, Debug)]
pub struct PlotArgs {
    /// A sweep CSV (`gpusim sweep -o F.csv`), or one or more run JSON
    /// files (`gpusim run --json F.json`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Where to write the SVG.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// The chart; by default `bars` for a `.csv`, `stalls` for `.json`.
    #[arg(long, value_enum)]
    pub kind: Option<PlotKind>,
    /// Bars: the statistic column to plot (any numeric column of the CSV:
    /// `ipc`, `cycles`, `total.l1d.misses`, …).
    #[arg(long, default_value = "ipc", value_name = "COLUMN")]
    pub metric: String,
    /// Bars: the parameter column whose values are the bars of a group
    /// (`sched`, `config`, `kernel`, `set:KEY`, `arg:KEY`); every other
    /// parameter that varies makes the groups.
    #[arg(long, default_value = "sched", value_name = "COLUMN")]
    pub by: String,
    /// Bars: the series every group is normalized to (a value of the
    /// `--by` column). Default: the first in the file.
    #[arg(long, value_name = "VALUE")]
    pub baseline: Option<String>,
    /// Bars: plot the metric itself, not normalized.
    #[arg(long)]
    pub raw: bool,
    /// Chart title (default: says what is plotted).
    #[arg(long)]
    pub title: Option<String>,
}

/// Reads `path` as UTF-8 text; the error names the file.
pub fn read_text(path: &Path) -> Result<String, PlotError> {
    std::fs::read_to_string(path)
        .map_err(|e| PlotError(format!("{}: cannot read: {e}", path.display())))
}

fn is_csv(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
}

fn plot(args: &PlotArgs) -> Result<String, PlotError> {
    let csv_count = args.files.iter().filter(|f| is_csv(f)).count();
    let kind = match args.kind {
        Some(k) => k,
        None if csv_count == args.files.len() => PlotKind::Bars,
        None if csv_count == 0 => PlotKind::Stalls,
        None => {
            return Err(PlotError::new(
                "a mix of .csv and other files: plot a sweep CSV or run JSON files, not both",
            ));
        }
    };
    let (svg, summary) = match kind {
        PlotKind::Bars => {
            let [file] = args.files.as_slice() else {
                return Err(PlotError::new(
                    "--kind bars plots one sweep CSV (merge several with `gpusim merge`)",
                ));
            };
            let (svg, chart) = sweep_csv_to_svg(
                &file.display().to_string(),
                &read_text(file)?,
                &BarOptions {
                    metric: args.metric.clone(),
                    by: args.by.clone(),
                    baseline: args.baseline.clone(),
                    raw: args.raw,
                    title: args.title.clone(),
                },
            )?;
            for w in &chart.warnings {
                eprintln!("warning: {w}");
            }
            (svg, format!("{}\n{}", chart.title, chart.to_text()))
        }
        PlotKind::Stalls => {
            let runs = read_runs(&args.files)?;
            let (title, bars) = if let [(src, run)] = runs.as_slice() {
                (
                    args.title
                        .clone()
                        .unwrap_or_else(|| format!("stalls: {}", run_label(src, run))),
                    run_stall_bars(run),
                )
            } else {
                (
                    args.title
                        .clone()
                        .unwrap_or_else(|| "stalls per run".to_string()),
                    runs_stall_bars(&runs),
                )
            };
            let mut text = format!("{title}\n");
            for b in &bars {
                let shares = b.shares();
                let parts: Vec<String> = gpusim::report::plot::stall_names()
                    .iter()
                    .zip(shares)
                    .filter(|(_, s)| *s > 0.0)
                    .map(|(n, s)| format!("{n} {:.1}%", s * 100.0))
                    .collect();
                text.push_str(&format!(
                    "{}: {} scheduler-cycles: {}\n",
                    b.label,
                    b.total(),
                    parts.join(", ")
                ));
            }
            (render_stalls_svg(&title, &bars)?, text)
        }
        PlotKind::TimeSeries => {
            let runs = read_runs(&args.files)?;
            let [(src, run)] = runs.as_slice() else {
                return Err(PlotError::new("--kind time-series plots one run JSON"));
            };
            let ws = windows(src, run)?;
            let title = args
                .title
                .clone()
                .unwrap_or_else(|| format!("time series: {}", run_label(src, run)));
            let interval = run.samples.as_ref().map_or(0, |s| s.interval);
            let text = format!(
                "{title}\n{} windows of {interval} cycles over {} cycles\n",
                ws.len(),
                ws.last().map_or(0, |w| w.end)
            );
            (render_time_series_svg(&title, &ws)?, text)
        }
    };
    std::fs::write(&args.output, svg)
        .map_err(|e| PlotError(format!("{}: cannot write: {e}", args.output.display())))?;
    Ok(format!("wrote {}: {summary}", args.output.display()))
}

/// Reads and parses run JSON files, in order.
pub fn read_runs(files: &[PathBuf]) -> Result<Vec<(String, RunJson)>, PlotError> {
    files
        .iter()
        .map(|f| {
            let src = f.display().to_string();
            let run = RunJson::parse(&src, &read_text(f)?)?;
            Ok((src, run))
        })
        .collect()
}

/// Runs `gpusim plot`: exit status 0 when the SVG is written, 2 on an error.
pub fn run(args: PlotArgs) -> ExitCode {
    match plot(&args) {
        Ok(summary) => {
            print!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
