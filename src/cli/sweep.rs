//! `gpusim sweep` and `gpusim merge`: arguments and the command-line side
//! (files, progress display, exit status); the work is in
//! [`gpusim::study`].

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use gpusim::study::merge::{merge_csv, merge_jsonl};
use gpusim::study::sweep::{
    RunResult, Shard, Status, Sweep, SweepWriter, execute, parse_key_values, split_list,
};

/// The arguments of `gpusim sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Kernels (`K.ptx`, with `K.toml` beside it) or manifests.
    #[arg(required = true, value_name = "KERNEL|MANIFEST")]
    pub kernels: Vec<String>,
    /// Issue policies, comma-separated or repeated: anything `run --sched`
    /// accepts (`gto,lrr,swl:8,best-swl`).
    #[arg(long = "sched", value_name = "A,B,…", default_value = "gto")]
    pub sched: Vec<String>,
    /// Machines, comma-separated or repeated: presets or TOML files.
    #[arg(long = "config", value_name = "P,…", default_value = "gtx480")]
    pub config: Vec<String>,
    /// Vary a config field over values (repeatable, one key each), e.g.
    /// `--set l1d.sets=16,32,64`. Commas inside `[…]` do not split.
    #[arg(long = "set", value_name = "KEY=V1,V2,…", value_parser = parse_key_values)]
    pub sets: Vec<(String, Vec<String>)>,
    /// Vary a workload argument over values (repeatable, one key each),
    /// e.g. `--arg n=1024,4096`.
    #[arg(long = "arg", value_name = "KEY=V1,V2,…", value_parser = parse_key_values)]
    pub args: Vec<(String, Vec<String>)>,
    /// Fetch policies to vary (`lrr`, `cff`, `fef`); default: each
    /// scheduler's own (no column).
    #[arg(long = "fetch", value_name = "A,B,…")]
    pub fetch: Vec<String>,
    /// CTA policies to vary (`rr`, `throttle`); default `rr` (no column).
    #[arg(long = "cta", value_name = "A,B,…")]
    pub cta: Vec<String>,
    /// Work-group sync policies to vary (as `run --sync`); default `busy`
    /// (no column).
    #[arg(long = "sync", value_name = "A,B,…")]
    pub sync: Vec<String>,
    /// The CSV to write: one row per run.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Also write one JSON object per run (its values, status, error and
    /// every statistic) to FILE, one per line.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Worker threads (default: all cores; results do not depend on it).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Also draw the CSV as `gpusim plot` does by default (IPC per group,
    /// one bar per scheduler, normalized to the first scheduler, with the
    /// harmonic mean) into this SVG when the sweep is done.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Run only shard I of N (0 ≤ I < N): the runs with `run % N == I`.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// The arguments of `gpusim merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' CSVs (or all their `--jsonl` files).
    #[arg(required = true, value_name = "SHARD")]
    pub inputs: Vec<PathBuf>,
    /// The merged file to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
}

/// Every item of repeated, comma-separated lists.
fn lists(values: &[String], flag: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for v in values {
        out.extend(split_list(v).map_err(|e| format!("{flag}: {e}"))?);
    }
    Ok(out)
}

/// The sweep the arguments describe.
fn sweep_of(a: &SweepArgs) -> Result<Sweep, String> {
    let optional = |values: &[String], flag: &str| -> Result<Option<Vec<String>>, String> {
        Ok(if values.is_empty() {
            None
        } else {
            Some(lists(values, flag)?)
        })
    };
    Ok(Sweep {
        kernels: a.kernels.clone(),
        configs: lists(&a.config, "--config")?,
        sets: a.sets.clone(),
        args: a.args.clone(),
        fetch: optional(&a.fetch, "--fetch")?,
        cta: optional(&a.cta, "--cta")?,
        sync: optional(&a.sync, "--sync")?,
        scheds: lists(&a.sched, "--sched")?,
    })
}

/// A progress display: a bar with ETA on a terminal, else one line per
/// finished run.
enum Progress {
    Bar(indicatif::ProgressBar),
    Lines,
}

impl Progress {
    fn new(total: usize) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress::Lines;
        }
        let bar = indicatif::ProgressBar::new(total as u64);
        let style = indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{wide_bar}] {pos}/{len} runs, ETA {eta} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        Progress::Bar(bar)
    }

    fn finished(&self, r: &RunResult, done: usize, total: usize) {
        let line = r.progress_line(done, total);
        match self {
            Progress::Lines => eprintln!("{line}"),
            Progress::Bar(bar) => {
                if r.status != Status::Ok {
                    bar.println(line);
                }
                bar.set_message(format!("(last: run {})", r.point.run));
                bar.inc(1);
            }
        }
    }

    fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// `gpusim sweep`: exit status 0 when every run is ok, 1 when some run
/// failed or failed its check (its row says why), 2 when the sweep cannot
/// start or its output cannot be written.
pub fn run(a: SweepArgs) -> ExitCode {
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let sweep = match sweep_of(&a) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let total = match sweep.validate() {
        Ok(n) => n,
        Err(e) => return fail(e),
    };
    if a.jobs == Some(0) {
        return fail("--jobs 0: at least one thread is needed".to_string());
    }
    if a.jsonl.as_ref() == Some(&a.output) {
        return fail("-o and --jsonl name the same file".to_string());
    }
    if a.plot
        .as_ref()
        .is_some_and(|p| p == &a.output || Some(p) == a.jsonl.as_ref())
    {
        return fail("--plot names the same file as -o or --jsonl".to_string());
    }
    let outputs = std::iter::once(a.output.as_path())
        .chain(a.jsonl.as_deref())
        .chain(a.plot.as_deref());
    if let Err(e) = gpusim::workload::runner::check_writable(outputs) {
        return fail(e);
    }
    let runs: Vec<usize> = match a.shard {
        Some(s) => s.runs(total),
        None => (0..total).collect(),
    };
    let create = |p: &std::path::Path| {
        std::fs::File::create(p)
            .map(std::io::BufWriter::new)
            .map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    let csv = match create(&a.output) {
        Ok(f) => f,
        Err(e) => return fail(e),
    };
    let jsonl = match a.jsonl.as_deref().map(create).transpose() {
        Ok(f) => f,
        Err(e) => return fail(e),
    };
    let mut writer = match SweepWriter::new(
        &sweep,
        Box::new(csv),
        jsonl.map(|f| Box::new(f) as Box<dyn std::io::Write>),
    ) {
        Ok(w) => w,
        Err(e) => return fail(format!("cannot write {}: {e}", a.output.display())),
    };
    let jobs = a
        .jobs
        .unwrap_or_else(gpusim::timing::sweep::default_jobs)
        .min(runs.len().max(1));
    let names = match &a.jsonl {
        Some(j) => format!("{} or {}", a.output.display(), j.display()),
        None => a.output.display().to_string(),
    };
    let progress = Progress::new(runs.len());
    let start = Instant::now();
    let result = execute(
        &sweep,
        &runs,
        jobs,
        &mut |r, done, n| progress.finished(r, done, n),
        &mut |r| {
            writer
                .write(r)
                .map_err(|e| format!("cannot write {names}: {e}"))
        },
    );
    progress.finish();
    drop(writer);
    let counts = match result {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let shard = match a.shard {
        Some(s) => format!(" (shard {}/{} of {total})", s.index, s.count),
        None => String::new(),
    };
    eprintln!(
        "{} run{}{shard} in {:.1} s with {jobs} job{}: {} ok, {} check_failed, {} error{}; wrote {}{}",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        start.elapsed().as_secs_f64(),
        if jobs == 1 { "" } else { "s" },
        counts.ok,
        counts.check_failed,
        counts.error,
        if counts.error == 1 { "" } else { "s" },
        a.output.display(),
        a.jsonl
            .as_ref()
            .map_or(String::new(), |j| format!(" and {}", j.display())),
    );
    if let Some(svg) = &a.plot
        && let Err(e) = plot_csv(&a.output, svg)
    {
        return fail(e);
    }
    if counts.all_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Draws the sweep CSV at `csv` as the default bar chart into `svg`,
/// printing the chart's warnings on stderr.
fn plot_csv(csv: &std::path::Path, svg: &std::path::Path) -> Result<(), String> {
    let text =
        std::fs::read_to_string(csv).map_err(|e| format!("cannot read {}: {e}", csv.display()))?;
    let opts = gpusim::report::plot::bars::BarOptions::default();
    let (picture, chart) =
        gpusim::report::plot::bars::sweep_csv_to_svg(&csv.display().to_string(), &text, &opts)
            .map_err(|e| format!("cannot plot {}: {e}", csv.display()))?;
    for w in &chart.warnings {
        eprintln!("warning: {w}");
    }
    std::fs::write(svg, picture).map_err(|e| format!("cannot write {}: {e}", svg.display()))?;
    eprintln!("wrote {}", svg.display());
    Ok(())
}

/// `gpusim merge`: exit status 0, 1 when runs are missing (the merged
/// file is still written), 2 on an error (nothing written).
pub fn merge(a: MergeArgs) -> ExitCode {
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let is_jsonl = |p: &PathBuf| p.extension().is_some_and(|e| e == "jsonl");
    let jsonl = a.inputs.iter().filter(|p| is_jsonl(p)).count();
    if jsonl != 0 && jsonl != a.inputs.len() {
        return fail(
            "the inputs mix JSON-lines (.jsonl) and CSV files; merge each kind separately".into(),
        );
    }
    let mut inputs = Vec::with_capacity(a.inputs.len());
    for p in &a.inputs {
        match std::fs::read(p) {
            Ok(b) => inputs.push((p.display().to_string(), b)),
            Err(e) => return fail(format!("cannot read {}: {e}", p.display())),
        }
    }
    let merged = if jsonl != 0 {
        merge_jsonl(&inputs)
    } else {
        merge_csv(&inputs)
    };
    let m = match merged {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    if let Err(e) = std::fs::write(&a.output, &m.bytes) {
        return fail(format!("cannot write {}: {e}", a.output.display()));
    }
    eprintln!(
        "merged {} row{} from {} file{} into {}",
        m.rows,
        if m.rows == 1 { "" } else { "s" },
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" },
        a.output.display()
    );
    if m.missing.is_empty() {
        return ExitCode::SUCCESS;
    }
    const SHOWN: usize = 20;
    let mut list: Vec<String> = m.missing.iter().take(SHOWN).map(usize::to_string).collect();
    if m.missing.len() > SHOWN {
        list.push(format!("… ({} in all)", m.missing.len()));
    }
    eprintln!(
        "warning: no input has run{} {} (a shard missing or unfinished?)",
        if m.missing.len() == 1 { "" } else { "s" },
        list.join(", ")
    );
    ExitCode::FAILURE
}
