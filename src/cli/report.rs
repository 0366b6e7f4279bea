//! `gpusim report`: runs' JSON and sweep CSVs as one self-contained HTML
//! page (docs/plots.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use gpusim::report::html_report::{ReportOptions, html_report};
use gpusim::report::plot::PlotError;
use gpusim::report::plot::bars::BarOptions;
use gpusim::report::plot::sweep_table::SweepTable;

use super::plot::{read_runs, read_text};

/// Arguments of `gpusim report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Run JSON files (`gpusim run --json F.json`, with `--sample N` for
    /// the time series) and sweep CSVs (`gpusim sweep -o F.csv`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Where to write the HTML page.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Page title.
    #[arg(long, default_value = "gpusim report")]
    pub title: String,
    /// Hot spots (PTX lines) listed per run.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
    /// Sweeps: the statistic column to chart (as `plot --metric`).
    #[arg(long, default_value = "ipc", value_name = "COLUMN")]
    pub metric: String,
    /// Sweeps: the column whose values are the bars (as `plot --by`).
    #[arg(long, default_value = "sched", value_name = "COLUMN")]
    pub by: String,
    /// Sweeps: the series to normalize to (as `plot --baseline`).
    #[arg(long, value_name = "VALUE")]
    pub baseline: Option<String>,
}

fn report(args: &ReportArgs) -> Result<String, PlotError> {
    let (csvs, jsons): (Vec<PathBuf>, Vec<PathBuf>) = args
        .files
        .iter()
        .cloned()
        .partition(|f| f.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")));
    let runs = read_runs(&jsons)?;
    let sweeps = csvs
        .iter()
        .map(|f| SweepTable::parse(&f.display().to_string(), &read_text(f)?))
        .collect::<Result<Vec<_>, _>>()?;
    let opts = ReportOptions {
        title: args.title.clone(),
        top: args.top,
        bars: BarOptions {
            metric: args.metric.clone(),
            by: args.by.clone(),
            baseline: args.baseline.clone(),
            raw: false,
            title: None,
        },
    };
    let html = html_report(&runs, &sweeps, &opts)?;
    std::fs::write(&args.output, &html)
        .map_err(|e| PlotError(format!("{}: cannot write: {e}", args.output.display())))?;
    Ok(format!(
        "wrote {}: {} runs, {} sweeps, {} bytes\n",
        args.output.display(),
        runs.len(),
        sweeps.len(),
        html.len()
    ))
}

/// Runs `gpusim report`: exit status 0 when the page is written, 2 on an
/// error.
pub fn run(args: ReportArgs) -> ExitCode {
    match report(&args) {
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
