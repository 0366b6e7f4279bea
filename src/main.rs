//! The `gpusim` command line: parses arguments and calls the library.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// Set once stdout is closed (`gpusim run … | head -1`): later output is
/// dropped and the command ends with its normal exit status, quietly.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes to stdout; a closed stdout (broken pipe) is not an error.
fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write to stdout: {e}");
        }
    }
}

/// `print!` that survives a closed stdout.
macro_rules! out {
    ($($t:tt)*) => { $crate::write_stdout(format_args!($($t)*)) };
}

/// `println!` that survives a closed stdout.
macro_rules! outln {
    () => { $crate::write_stdout(format_args!("\n")) };
    ($($t:tt)*) => { $crate::write_stdout(format_args!("{}\n", format_args!($($t)*))) };
}

mod cli;

/// gpusim: run GPU kernels written in PTX on a cycle-level SM model.
#[derive(Parser)]
#[command(name = "gpusim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, lower and analyse PTX files; report every error of every file.
    ///
    /// Exits 0 when all files are valid, 1 otherwise.
    Check {
        /// PTX files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a kernel's control-flow graph: basic blocks, successors,
    /// immediate post-dominators (reconvergence points) and natural loops.
    Cfg {
        /// The PTX file.
        file: PathBuf,
        /// Kernel to show (required when the file has several entries).
        #[arg(long)]
        entry: Option<String>,
        /// Emit Graphviz DOT (blocks with their instructions, ipdom edges
        /// dashed, loop headers filled with their depth) instead of text.
        #[arg(long)]
        dot: bool,
        /// Show only this device function's blocks (a `.func` the kernel
        /// calls; by default the entry and every function it links).
        #[arg(long)]
        func: Option<String>,
    },
    /// Run a kernel's workload on the cycle-level timing model (or
    /// `--functional`): load the manifest beside the PTX (or `--launch
    /// FILE`), run every launch, check the result against the CPU reference,
    /// print cycles, IPC, stall breakdown and cache figures. Exit status 0 on
    /// PASS, 1 on a mismatch, 2 on an error.
    Run {
        /// The kernel (`K.ptx`, with `K.toml` beside it) or a manifest.
        file: PathBuf,
        /// Functional-only execution (no timing): the fast way to check a
        /// kernel.
        #[arg(long)]
        functional: bool,
        /// Warp issue policy of the timing model (see `gpusim list
        /// schedulers`), e.g. `gto`, `lrr`, `swl:N`, `best-swl` (runs every
        /// `swl:N` and reports the best), `daws-profiled` (needs
        /// `--profile`). Default `gto`.
        #[arg(long, value_name = "NAME")]
        sched: Option<String>,
        /// Fetch policy: `lrr` (round robin over warps with an empty
        /// I-buffer), `cff` (critical fetch first: the warp the issue
        /// policy ranks first), `fef` (fewest I-buffer entries first).
        /// Default `cff` under `--sched baws`, else `lrr`.
        #[arg(long, value_name = "NAME")]
        fetch: Option<String>,
        /// CTA assignment policy: `rr` (round robin), `throttle` (BLWS); see
        /// `gpusim list cta`.
        #[arg(long, default_value = "rr", value_name = "NAME")]
        cta: String,
        /// Work-group synchronization policy, what a work-group does after
        /// a waiting instruction fails (AWG): `busy`, `sleep:MAX`,
        /// `timeout:T`, `monrs-all`, `monr-all`, `monnr-all`, `monnr-one`,
        /// `awg` (see `gpusim list sync`). Default `busy`.
        #[arg(long, default_value = "busy", value_name = "POLICY",
              value_parser = gpusim::sync::policy::SyncPolicy::parse)]
        sync: gpusim::sync::policy::SyncPolicy,
        /// Load classification table for `--sched daws-profiled`, written
        /// by `gpusim profile`.
        #[arg(long, value_name = "FILE")]
        profile: Option<PathBuf>,
        /// Threads for `best-swl`'s runs (default: all cores; results do not
        /// depend on it).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
        /// Machine: a preset (see `gpusim list presets`) or a TOML file.
        #[arg(long, default_value = "gtx480", value_name = "PRESET|FILE")]
        config: String,
        /// Override one config field (repeatable), e.g. `--set l1d.ways=8`.
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
        sets: Vec<(String, String)>,
        /// Write every statistic as JSON to FILE.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write every issued instruction to FILE, one line each: cycle,
        /// SM, scheduler, warp slot, CTA, warp in CTA, PC, source line,
        /// instruction text.
        #[arg(long, value_name = "FILE")]
        issue_log: Option<PathBuf>,
        /// Record a time series: every N cycles, per SM, IPC, scheduler
        /// cycles by stall category, resident warps and L1D misses, and
        /// GPU-wide DRAM traffic; written as `samples` into `--json` and
        /// as CSV into `--sample-csv`.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        sample: Option<u64>,
        /// Write the time series (`--sample`) as CSV to FILE: one row per
        /// SM and window.
        #[arg(long, value_name = "FILE", requires = "sample")]
        sample_csv: Option<PathBuf>,
        #[command(flatten)]
        shape: WorkloadShape,
        /// After the run, write buffer NAME's bytes (raw little-endian) to
        /// FILE (repeatable). NAME is a `buffers` buffer, a driver's
        /// allocation or a module-scope variable.
        #[arg(long = "dump", value_name = "NAME=FILE", value_parser = parse_key_value)]
        dumps: Vec<(String, String)>,
    },
    /// Record a workload's host actions for replay in another simulator:
    /// run it functionally and write DIR/trace.txt (every allocation, host
    /// write and read, and launch with its packed parameters, pointers
    /// marked) plus the data files and every allocation's final bytes
    /// (docs/cli.md gives the format). Exit status 0, 1 if the run's check
    /// fails (the trace is still written), 2 on an error.
    Export {
        /// The kernel (`K.ptx`, with `K.toml` beside it) or a manifest.
        file: PathBuf,
        /// Directory to write (created if missing).
        #[arg(short = 'o', long = "output", value_name = "DIR")]
        output: PathBuf,
        /// Machine whose `sim.max_insts`, `core.warp_size` and
        /// `core.num_sms` the functional run uses.
        #[arg(long, default_value = "gtx480", value_name = "PRESET|FILE")]
        config: String,
        /// Override one config field (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
        sets: Vec<(String, String)>,
        #[command(flatten)]
        shape: WorkloadShape,
    },
    /// Record a DAWS load classification table (`daws-profiled`'s input)
    /// from a timed run: which loops have intra-warp locality, which of
    /// their loads are diverged, which repeat each other. Profile on one
    /// input (`--arg seed=2`) and evaluate on another. Exit status 0, 1 if
    /// the run's check fails (nothing written), 2 on an error.
    Profile {
        /// The kernel (`K.ptx`, with `K.toml` beside it) or a manifest.
        file: PathBuf,
        /// Where to write the table (JSON).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        /// Issue policy of the profiling run (nothing is throttled for the
        /// profile).
        #[arg(long, default_value = "gto", value_name = "NAME")]
        sched: String,
        /// Machine: a preset or a TOML file.
        #[arg(long, default_value = "daws", value_name = "PRESET|FILE")]
        config: String,
        /// Override one config field (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
        sets: Vec<(String, String)>,
        /// Use this manifest instead of the one beside the PTX.
        #[arg(long, value_name = "FILE")]
        launch: Option<PathBuf>,
        /// Override a workload argument (repeatable), e.g. `--arg seed=2`.
        #[arg(long = "arg", visible_alias = "args", value_name = "KEY=VALUE", value_parser = parse_key_value)]
        args: Vec<(String, String)>,
    },
    /// Print the dynamic instruction stream of one warp (or all warps):
    /// kernel, CTA, warp, PC, opcode, active mask (hex) and source line.
    Trace {
        /// The kernel (`K.ptx`, with `K.toml` beside it) or a manifest.
        file: PathBuf,
        /// Linear CTA index to show.
        #[arg(long, default_value_t = 0)]
        cta: u64,
        /// Warp (within the CTA) to show.
        #[arg(long, default_value_t = 0)]
        warp: u32,
        /// Show every warp of every CTA (ignores --cta/--warp).
        #[arg(long)]
        all: bool,
        /// Stop the run after printing this many lines.
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Machine whose `sim.max_insts`, `core.warp_size` and
        /// `core.num_sms` the functional run uses.
        #[arg(long, default_value = "gtx480", value_name = "PRESET|FILE")]
        config: String,
        /// Override one config field (repeatable), e.g. `--set sim.max_insts=1000000`.
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
        sets: Vec<(String, String)>,
        #[command(flatten)]
        shape: WorkloadShape,
    },
    /// Run golden fixtures (`fixtures/**/*.toml`) and rewrite the cycle
    /// counts under their `[cycles]` with this build's numbers.
    ///
    /// Prints `FILE SCHED: OLD → NEW` (or `FILE SCHED: N unchanged`) per
    /// fixture and scheduler. A fixture that cannot be read or run, or whose
    /// functional check fails, is an error and nothing is written for it.
    /// Exit status 0, or 2 after any error; with `--check`, 1 when a number
    /// differs (2 still wins).
    Bless {
        /// Fixture files or directories (searched recursively for `*.toml`).
        #[arg(default_value = "fixtures")]
        paths: Vec<PathBuf>,
        /// Only compare: write nothing, exit 1 when any number differs.
        #[arg(long)]
        check: bool,
        /// Also run these schedulers where `[cycles]` lacks them and record
        /// them (dropping them from `[skip]`); repeatable or comma-separated.
        #[arg(long = "add", value_name = "SCHED", value_delimiter = ',')]
        add: Vec<String>,
    },
    /// Reproduce a paper's results. `daws`: DAWS Fig. 8 (IPC of GTO,
    /// Best-SWL, CCWS, Profiled-DAWS and Detected-DAWS normalized to CCWS on
    /// cache-sensitive and cache-insensitive kernels, with harmonic means)
    /// and Fig. 13 (SPMV-scalar under each scheduler against SPMV-vector
    /// under its best) on the `daws` preset, from the manifests in
    /// `repro/daws/`. `baws`: BAWS Figs. 8–12 and §6.4 (LRR, GTO,
    /// two-level, MWF, BAWS, SAWS with the LRR, CFF and FEF fetch policies
    /// and a 4-entry I-buffer; stall breakdown; non-barrier neutrality) and
    /// the paper's claims against ours, on the `baws` preset from
    /// `repro/baws/`. `lfws`: LFWS Fig. 4 (IPC of LRR, GTO, two-level,
    /// two-level-opt, LPI, LLOS and LFWS normalized to LRR), Table 2 (each
    /// kernel's share of long operations) and the Fig. 1 worked example,
    /// on `gtx480` from `repro/lfws/`. `blws`: BLWS Figs. 3 and 4 (RR,
    /// GTO, BLWS and BLWS with the `throttle` CTA policy normalized to RR,
    /// and each kernel's memory contention), on `gtx480` from
    /// `repro/blws/`. `awg`: AWG Figs. 7, 8, 9, 14 and 15 (the `--sync`
    /// policies on the HeteroSync and lock kernels, with and without a
    /// removed CU), on the `awg` preset from `kernels/sync/`.
    ///
    /// Prints the tables on stdout and one progress line per finished cell
    /// on stderr.
    /// Exit status 0 when every run passed its check, 1 when some cell
    /// failed (its error is listed), 2 when the reproduction cannot start.
    Repro {
        /// What to reproduce (see `gpusim list repro`).
        #[arg(value_name = "PAPER", value_parser = repro_target_parser())]
        paper: ReproTarget,
        /// Worker threads for the independent runs (default: all cores;
        /// results do not depend on it).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
        /// Also write every number (cells, Best-SWL sweeps, harmonic means,
        /// case study; for `baws` cells with stall counts and the claims)
        /// as JSON to FILE.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write every cell (and the tables' mean rows, marked in the
        /// `row` column) as CSV to FILE; see docs/cli.md for the columns.
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Small inputs on the paper's machine cut to a few SMs (`daws`: 2
        /// SMs, every SM still holds 32 warps; `baws`, `lfws`, `blws`: 4
        /// SMs): a smoke test, not numbers to compare with the paper.
        #[arg(long)]
        quick: bool,
        /// Directory of the kernels' manifests (default: `repro/PAPER`
        /// under the current directory, else under the source tree gpusim
        /// was built from).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Run only this kernel (repeatable), by manifest stem or table
        /// name: for `daws` `spmv_scalar`, `bfs`, `kmeans`, `matmul`,
        /// `stencil2d`, `spmv_vector` (`SPMV-scalar`, `KMN`, ...); for
        /// `baws` `SP`, `FWT`, `MM`, `STN`, `HISTO`, `SRAD2`, ... (see
        /// docs/repro-baws.md).
        #[arg(long = "kernel", value_name = "NAME")]
        kernels: Vec<String>,
    },
    /// Compare gpusim's timing model with committed GPGPU-Sim figures: run
    /// every kernel of the reference file under each scheduler it has
    /// figures for (lrr, gto) and print, per kernel and scheduler, cycles
    /// on both sides and their ratio, IPC, L1D and L2 hit rates, DRAM reads
    /// and writes and whether the thread-instruction counts agree; then
    /// whether each kernel keeps GPGPU-Sim's IPC order of lrr vs gto, and
    /// per scheduler and overall the mean absolute relative error of
    /// cycles, the largest error, the runs within +-20% and Pearson's r.
    ///
    /// One progress line per finished run on stderr. Exit status 0 (also
    /// when targets are missed: it is a report), 2 on an error (reference
    /// file, configuration, selection, an output file, or a run that
    /// failed or whose check failed; the report is still printed).
    Correlate {
        /// The reference file (default: correlation/gtx480.toml under the
        /// current directory, else under the source tree gpusim was built
        /// from). Its manifest paths are relative to the current directory
        /// (the repository root).
        #[arg(value_name = "REFERENCE")]
        reference: Option<PathBuf>,
        /// Compare only these schedulers (comma-separated or repeated:
        /// `lrr`, `gto`; default: every scheduler the file has figures
        /// for).
        #[arg(long = "sched", value_name = "LIST", value_delimiter = ',')]
        sched: Vec<String>,
        /// Compare only this kernel (its name in the file; repeatable).
        #[arg(long = "kernel", value_name = "NAME")]
        kernels: Vec<String>,
        /// Worker threads for the independent runs (default: all cores;
        /// results do not depend on it).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
        /// Also write the whole comparison (both sides, ratios, summaries,
        /// IPC order) as JSON to FILE.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write an SVG scatter plot of gpusim cycles against
        /// GPGPU-Sim cycles (log-log, y = x and the +-20% band) to FILE.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Print the tables as Markdown (the README's form) instead of
        /// plain text.
        #[arg(long)]
        markdown: bool,
        /// gpusim's machine: a preset or a TOML file.
        #[arg(long, default_value = "gtx480", value_name = "PRESET|FILE")]
        config: String,
        /// Override one config field (repeatable), e.g. `--set l1d.ways=8`.
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
        sets: Vec<(String, String)>,
        /// Skip the reference file's perturbed runs (`[[kernel.perturbed]]`:
        /// GPGPU-Sim with one latency moved by a cycle), which otherwise run
        /// whenever lrr and gto are both compared.
        #[arg(long)]
        no_perturbed: bool,
    },
    /// Draw a sweep CSV as grouped bars (normalized to a baseline, with
    /// the harmonic mean), or a run's JSON as a stall breakdown or a time
    /// series, as SVG (docs/plots.md). Exit status 0, 2 on an error.
    Plot(cli::plot::PlotArgs),
    /// Write runs' JSON and sweep CSVs as one self-contained HTML page:
    /// summary, stall breakdowns, time series, per-line hot spots, sweep
    /// charts (docs/plots.md). Exit status 0, 2 on an error.
    Report(cli::report::ReportArgs),
    /// Draw each warp's state over time on one SM as SVG, after the BAWS
    /// paper's Fig. 4: one row per warp of the chosen CTAs, time to the
    /// right, coloured by state (issued, ready, data, structural, fetch /
    /// control, barrier, sleeping / throttled, exited), barrier releases
    /// marked. Takes the workload options of `run`. Exit status 0, 1 if
    /// the run's check fails (the SVG is still written), 2 on an error.
    Timeline {
        /// The kernel (`K.ptx`, with `K.toml` beside it) or a manifest.
        file: PathBuf,
        /// Where to write the SVG.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        /// Warp issue policy (as `run --sched`). Default `gto`.
        #[arg(long, default_value = "gto", value_name = "NAME")]
        sched: String,
        /// Fetch policy (as `run --fetch`): `lrr`, `cff`, `fef`. Default
        /// `cff` under `--sched baws`, else `lrr`.
        #[arg(long, value_name = "NAME")]
        fetch: Option<String>,
        /// CTA assignment policy.
        #[arg(long, default_value = "rr", value_name = "NAME")]
        cta: String,
        /// The SM whose warps are drawn.
        #[arg(long, default_value_t = 0, value_name = "N")]
        sm: u32,
        /// Draw only these CTAs (linear index in the grid): `A..B` (A to
        /// B − 1), `A..=B` or `A`. Default: every CTA the SM runs (the
        /// first 1024 warps).
        #[arg(long, value_name = "A..B", value_parser = gpusim::report::timeline_svg::parse_cta_range)]
        ctas: Option<(u64, u64)>,
        /// Which launch of the workload to draw (0-based).
        #[arg(long = "launch-index", default_value_t = 0, value_name = "N")]
        launch_index: u32,
        /// Machine: a preset or a TOML file.
        #[arg(long, default_value = "gtx480", value_name = "PRESET|FILE")]
        config: String,
        /// Override one config field (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
        sets: Vec<(String, String)>,
        #[command(flatten)]
        shape: WorkloadShape,
    },
    /// Print a kernel's PTX annotated line by line with what the timing
    /// model counted there, summed over its launches: warp instructions
    /// issued, stalled warp-cycles (every state but issued) and their share,
    /// the main stall categories, the L1D miss rate and mean latency of
    /// memory instructions; then the lines where warps stalled most. With
    /// `--vs S2`, run the workload again under S2 and show, line by line,
    /// where the two runs' warp-cycles differ and which stall categories
    /// account for the difference. Exit status 0, 1 if a run's check
    /// fails, 2 on an error.
    Explain(cli::explain::ExplainArgs),
    /// Run the cross product of kernels, configs (`--config`), config
    /// overrides (`--set KEY=V1,V2`), workload arguments (`--arg
    /// KEY=V1,V2`) and schedulers (`--sched A,B`) in parallel, one CSV row
    /// per run with every summary statistic (docs/sweep.md). Exit status 0
    /// when every run is ok, 1 when some run failed or failed its check
    /// (its row says why), 2 when the sweep cannot start.
    Sweep(cli::sweep::SweepArgs),
    /// Join the CSVs (or JSON lines) of a sharded sweep (`sweep --shard
    /// I/N`) into the unsharded sweep's file. Exit status 0, 1 when runs
    /// are missing (the file is still written), 2 on an error.
    Merge(cli::sweep::MergeArgs),
    /// Print a machine configuration, resolved and validated: every field
    /// with a comment. Exit status 2 on an error.
    Config {
        /// A preset (see `gpusim list presets`) or a TOML file, possibly
        /// partial (`base = "PRESET"` plus the fields it changes).
        #[arg(value_name = "PRESET|FILE", default_value = "gtx480")]
        spec: String,
        /// Override one field by its dotted key (repeatable), e.g.
        /// `--set l1d.ways=8`, `--set latency.int=[4,13,4,5,145]`.
        #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
        sets: Vec<(String, String)>,
    },
    /// List every scheduler, fetch, CTA and sync policy, machine preset,
    /// kernel and reproduction target, one line each with a description.
    List(cli::list::ListArgs),
}

use gpusim::report::repro_target::ReproTarget;

/// `gpusim repro`'s PAPER values, with their descriptions, from the
/// library's [`ReproTarget`].
fn repro_target_parser() -> impl clap::builder::TypedValueParser<Value = ReproTarget> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        ReproTarget::ALL.map(|t| PossibleValue::new(t.name()).help(t.description())),
    )
    .try_map(|s| ReproTarget::parse(&s))
}

/// One paper's reproduction as `gpusim repro` reports it.
struct ReproOutput {
    /// Cells run.
    cells: usize,
    /// The tables, printed on stdout.
    tables: String,
    /// Failed cells, one line each.
    errors: Vec<String>,
    /// Every number, for `--json`.
    json: String,
    /// The cells as CSV rows, for `--csv`.
    csv: gpusim::report::repro_csv::ReproCsv,
}

/// `gpusim repro PAPER`: runs the reproduction, prints its tables and
/// errors, writes the JSON.
/// Where `gpusim repro` writes its results besides stdout.
struct ReproFiles<'a> {
    /// `--json FILE`.
    json: Option<&'a std::path::Path>,
    /// `--csv FILE`.
    csv: Option<&'a std::path::Path>,
}

fn repro_cmd(
    paper: ReproTarget,
    jobs: Option<usize>,
    files: ReproFiles<'_>,
    quick: bool,
    dir: Option<PathBuf>,
    kernels: Vec<String>,
    colour: bool,
) -> ExitCode {
    use gpusim::report::{repro, repro_awg, repro_baws, repro_latency};
    let default = paper.default_dir();
    let dir = dir.unwrap_or_else(|| {
        let here = PathBuf::from(default);
        if here.is_dir() {
            here
        } else {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(default)
        }
    });
    let jobs = jobs.unwrap_or_else(gpusim::timing::sweep::default_jobs);
    let start = std::time::Instant::now();
    let progress = |line: &str| eprintln!("{line}");
    let result = match paper {
        ReproTarget::Daws => {
            let opts = repro::Options {
                dir,
                jobs,
                quick,
                only: kernels,
            };
            repro::run(&opts, &progress).map(|r| ReproOutput {
                cells: r.kernels.len() * repro::Scheduler::ALL.len(),
                tables: format!(
                    "{}\n{}\n{}",
                    r.fig8_table(),
                    r.cycles_table(),
                    r.fig13_table()
                ),
                errors: r
                    .errors()
                    .iter()
                    .map(|(k, s, e)| format!("{k} {}: {e}", s.label()))
                    .collect(),
                json: r.to_json(),
                csv: r.to_csv(),
            })
        }
        ReproTarget::Baws => {
            let opts = repro_baws::Options {
                dir,
                jobs,
                quick,
                only: kernels,
            };
            repro_baws::run(&opts, &progress).map(|r| ReproOutput {
                cells: r.kernels.iter().map(|k| k.cells.len()).sum(),
                tables: r.tables(),
                errors: r
                    .errors()
                    .iter()
                    .map(|(k, s, e)| format!("{k} {}: {e}", s.label()))
                    .collect(),
                json: r.to_json(),
                csv: r.to_csv(),
            })
        }
        ReproTarget::Awg => {
            let opts = repro::Options {
                dir,
                jobs,
                quick,
                only: kernels,
            };
            repro_awg::run(&opts, &progress).map(|r| ReproOutput {
                cells: r.cells(),
                tables: r.tables(),
                errors: r
                    .errors()
                    .iter()
                    .map(|(k, s, e)| format!("{k} {s}: {e}"))
                    .collect(),
                json: r.to_json(),
                csv: r.to_csv(),
            })
        }
        ReproTarget::Lfws | ReproTarget::Blws => {
            let study = if matches!(paper, ReproTarget::Lfws) {
                &repro_latency::LFWS
            } else {
                &repro_latency::BLWS
            };
            let opts = repro_latency::Options {
                dir,
                jobs,
                quick,
                only: kernels,
            };
            repro_latency::run(study, &opts, &progress).map(|r| ReproOutput {
                cells: r.kernels.iter().map(|k| k.cells.len()).sum(),
                tables: r.tables(),
                errors: r
                    .errors()
                    .iter()
                    .map(|(k, s, e)| format!("{k} {s}: {e}"))
                    .collect(),
                json: r.to_json(),
                csv: r.to_csv(),
            })
        }
    };
    let r = match result {
        Ok(r) => r,
        Err(e) => {
            eprint!("{}", e.render(colour));
            return ExitCode::from(2);
        }
    };
    eprintln!(
        "{} cells done in {:.1} s with {jobs} job{}",
        r.cells,
        start.elapsed().as_secs_f64(),
        if jobs == 1 { "" } else { "s" }
    );
    out!("{}", r.tables);
    if !r.errors.is_empty() {
        outln!();
        outln!("errors:");
        for e in &r.errors {
            outln!("  {e}");
        }
    }
    if let Some(path) = files.json
        && let Err(e) = std::fs::write(path, r.json + "\n")
    {
        eprintln!("error: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    if let Some(path) = files.csv {
        let written = r
            .csv
            .to_csv()
            .and_then(|text| std::fs::write(path, text).map_err(|e| e.to_string()));
        if let Err(e) = written {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if r.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The flags of `gpusim correlate`.
struct CorrelateFlags {
    reference: Option<PathBuf>,
    sched: Vec<String>,
    kernels: Vec<String>,
    jobs: Option<usize>,
    json: Option<PathBuf>,
    svg: Option<PathBuf>,
    markdown: bool,
    config: String,
    sets: Vec<(String, String)>,
    no_perturbed: bool,
}

/// `gpusim correlate`.
fn correlate(f: CorrelateFlags, colour: bool) -> ExitCode {
    use gpusim::report::correlate;
    let mut scheds = Vec::new();
    for name in &f.sched {
        match correlate::Sched::parse(name) {
            Some(s) if !scheds.contains(&s) => scheds.push(s),
            Some(_) => {}
            None => {
                eprintln!(
                    "error: --sched `{name}`: the reference has figures for lrr and gto only"
                );
                return ExitCode::from(2);
            }
        }
    }
    if f.jobs == Some(0) {
        eprintln!("error: --jobs 0: at least one thread is needed");
        return ExitCode::from(2);
    }
    let outputs = f.json.iter().chain(f.svg.iter()).map(PathBuf::as_path);
    if let Err(e) = gpusim::workload::runner::check_writable(outputs) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let (reference, root) = match f.reference {
        Some(r) => (r, PathBuf::from(".")),
        None => correlate::default_location(),
    };
    let opts = correlate::Options {
        reference,
        root,
        config: f.config,
        sets: f.sets,
        scheds,
        kernels: f.kernels,
        jobs: f.jobs.unwrap_or_else(gpusim::timing::sweep::default_jobs),
        perturbed: !f.no_perturbed,
    };
    let start = std::time::Instant::now();
    let progress = |line: &str| eprintln!("{line}");
    let c = match correlate::run(&opts, &progress) {
        Ok(c) => c,
        Err(e) => {
            eprint!("{}", e.render(colour));
            return ExitCode::from(2);
        }
    };
    let runs: usize = c
        .kernels
        .iter()
        .map(|k| k.runs.len() + 2 * k.perturbed.len())
        .sum();
    eprintln!(
        "{runs} run{} done in {:.1} s with {} job{}",
        if runs == 1 { "" } else { "s" },
        start.elapsed().as_secs_f64(),
        opts.jobs,
        if opts.jobs == 1 { "" } else { "s" }
    );
    if f.markdown {
        out!("{}", correlate::render::markdown(&c));
    } else {
        out!("{}", correlate::render::text(&c));
    }
    let mut status = if c.errors().is_empty() && c.perturbed_errors().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    };
    let files = [
        (f.json.as_deref(), c.to_json() + "\n"),
        (f.svg.as_deref(), correlate::svg::scatter(&c)),
    ];
    for (path, text) in files {
        if let Some(path) = path
            && let Err(e) = std::fs::write(path, text)
        {
            eprintln!("error: cannot write {}: {e}", path.display());
            status = ExitCode::from(2);
        }
    }
    status
}

/// Which workload a kernel runs and its shape: the options `run`,
/// `export` and `trace` share.
#[derive(Args, Debug)]
struct WorkloadShape {
    /// Use this manifest instead of the one beside the PTX.
    #[arg(long, value_name = "FILE")]
    launch: Option<PathBuf>,
    /// Override a workload argument (repeatable), e.g. `--arg rows=4096`.
    #[arg(long = "arg", visible_alias = "args", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    args: Vec<(String, String)>,
    /// Replace the manifest's grid (CTAs per dimension), e.g.
    /// `--grid 64,1,1` (missing dimensions are 1).
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_dim3)]
    grid: Option<[u32; 3]>,
    /// Replace the manifest's block (threads per CTA), e.g. `--block 256`.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_dim3)]
    block: Option<[u32; 3]>,
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("expected KEY=VALUE, got `{s}`")),
    }
}

/// `X`, `X,Y` or `X,Y,Z` (missing dimensions are 1; each at least 1).
fn parse_dim3(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("expected X,Y,Z, got `{s}`"));
    }
    let mut d = [1u32; 3];
    for (slot, p) in d.iter_mut().zip(&parts) {
        *slot = match p.parse::<u32>() {
            Ok(v) if v >= 1 => v,
            _ => return Err(format!("`{p}` in `{s}` is not a positive integer")),
        };
    }
    Ok(d)
}

fn report_run_error(e: gpusim::workload::runner::RunError, colour: bool) -> ExitCode {
    match e {
        gpusim::workload::runner::RunError::Diagnostics(d) => eprint!("{}", d.render(colour)),
        gpusim::workload::runner::RunError::Workload(w) => eprintln!("error: {w}"),
    }
    ExitCode::from(2)
}

fn kernel_names(prepared: &gpusim::workload::runner::Prepared) -> String {
    let names: Vec<&str> = if prepared.entry_named {
        vec![prepared.program.kernel(prepared.entry).name.as_str()]
    } else {
        prepared
            .program
            .module
            .kernels
            .iter()
            .map(|k| k.name.as_str())
            .collect()
    };
    format!(
        "kernel{}   {} ({})",
        if names.len() == 1 { " " } else { "s" },
        names.join(", "),
        prepared.program.file.name
    )
}

/// Optional output files of a timed run.
struct Outputs<'a> {
    json: Option<&'a std::path::Path>,
    issue_log: Option<&'a std::path::Path>,
    /// `--sample N`.
    sample: Option<u64>,
    /// `--sample-csv FILE`.
    sample_csv: Option<&'a std::path::Path>,
}

impl Outputs<'_> {
    /// What the run must record for these outputs.
    fn recording(&self) -> gpusim::timing::Recording {
        gpusim::timing::Recording {
            issue_log: self.issue_log.is_some(),
            sample: self.sample,
        }
    }
}

/// Writes the issue log: for each launch a `# launch N: kernel NAME grid
/// [..] block [..]` header, then one line per issued instruction with its
/// PC, source line and PTX text looked up in that launch's kernel.
fn write_issue_log(
    prepared: &gpusim::workload::runner::Prepared,
    log: &[gpusim::timing::IssueRecord],
    launches: &[gpusim::timing::stats::LaunchStats],
    path: &std::path::Path,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(f, "# cycle sm sched slot cta warp pc line text")?;
    // The log is in cycle order and launches run one after another, so
    // launch i's records are the next `warp_insts` of them.
    let mut rest = log;
    for (i, l) in launches.iter().enumerate() {
        let k = prepared
            .program
            .module
            .kernels
            .iter()
            .position(|k| k.name == l.kernel);
        writeln!(
            f,
            "# launch {i}: kernel {} grid [{}, {}, {}] block [{}, {}, {}]",
            l.kernel, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2]
        )?;
        let n = (l.warp_insts as usize).min(rest.len());
        let (these, later) = rest.split_at(n);
        rest = later;
        for r in these {
            let (line, text) = match k {
                Some(k) if (r.pc as usize) < prepared.program.kernel(k).insts.len() => (
                    prepared.program.kernel(k).insts[r.pc as usize].line,
                    prepared.program.inst_text(k, r.pc as usize),
                ),
                _ => (0, String::new()),
            };
            writeln!(
                f,
                "{} {} {} {} {},{},{} {} {:#06x} {} {}",
                r.cycle,
                r.sm,
                r.scheduler,
                r.slot,
                r.cta[0],
                r.cta[1],
                r.cta[2],
                r.warp,
                r.pc * 8,
                line,
                text
            )?;
        }
    }
    f.flush()
}

/// Reads a DAWS profile and checks it against the program's kernels.
fn load_profile(
    path: &std::path::Path,
    prepared: &gpusim::workload::runner::Prepared,
) -> Result<gpusim::sched::daws::profile::DawsProfile, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let p = gpusim::sched::daws::profile::DawsProfile::parse(&name, &text)?;
    p.check_program(&name, &prepared.program)?;
    Ok(p)
}

/// `run --sched best-swl`: the sweep's table, then the best run.
fn run_best_swl(
    prepared: &gpusim::workload::runner::Prepared,
    args: &[(String, String)],
    cfg: &gpusim::config::GpuConfig,
    policies: &gpusim::timing::Policies,
    out: Outputs<'_>,
    jobs: usize,
    colour: bool,
) -> ExitCode {
    match gpusim::timing::sweep::best_swl(prepared, args, cfg, policies, jobs) {
        Ok(s) => {
            outln!("{}", kernel_names(prepared));
            outln!("best-swl  swl:N for N = 1..{} (cycles):", s.cycles.len());
            for n in &s.failed_checks {
                eprintln!("error: the workload's check failed under swl:{n}");
            }
            for (n, c) in &s.cycles {
                let mark = if *n == s.best_limit { "  <- best" } else { "" };
                outln!("  swl:{n:<3} {c:>12}{mark}");
            }
            outln!(
                "best      swl:{} ({} cycles)",
                s.best_limit,
                s.best.stats.cycles
            );
            let mut best = s.best;
            if out.recording() != gpusim::timing::Recording::default() {
                // The sweep keeps no logs or time series: run the winner
                // again with them (deterministic, so the same run).
                let pol = gpusim::timing::Policies {
                    sched: format!("swl:{}", s.best_limit),
                    ..policies.clone()
                };
                match gpusim::timing::run_timed_recording(
                    prepared,
                    args,
                    cfg,
                    &pol,
                    out.recording(),
                ) {
                    Ok(r) => best = r,
                    Err(e) => return report_run_error(e, colour),
                }
            }
            let code = finish_timed(prepared, best, out);
            if s.failed_checks.is_empty() {
                code
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => report_run_error(e, colour),
    }
}

/// Prints a timed run's check and summary and writes its outputs.
fn finish_timed(
    prepared: &gpusim::workload::runner::Prepared,
    r: gpusim::timing::TimedRun,
    out: Outputs<'_>,
) -> ExitCode {
    if let Some(path) = out.issue_log
        && let Err(e) = write_issue_log(prepared, &r.issue_log, &r.stats.launches, path)
    {
        eprintln!("error: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    out!("check     {}", r.check);
    out!("{}", gpusim::report::summary::timing_summary(&r.stats));
    if let Err(e) = gpusim::workload::runner::write_dumps(&r.dumps) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if let Some(path) = out.sample_csv {
        let csv = r
            .stats
            .samples
            .as_ref()
            .map(|s| s.to_csv())
            .unwrap_or_default();
        if let Err(e) = std::fs::write(path, csv) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if let Some(path) = out.json {
        let mut v = serde_json::to_value(&r.stats).expect("stats serialize");
        if let Some(m) = v.as_object_mut() {
            m.insert("check".into(), r.check.state().into());
        }
        let text = serde_json::to_string_pretty(&v).expect("stats serialize");
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if r.check.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn run_timed(
    prepared: &gpusim::workload::runner::Prepared,
    args: &[(String, String)],
    cfg: &gpusim::config::GpuConfig,
    policies: &gpusim::timing::Policies,
    out: Outputs<'_>,
    colour: bool,
) -> ExitCode {
    match gpusim::timing::run_timed_recording(prepared, args, cfg, policies, out.recording()) {
        Ok(r) => {
            outln!("{}", kernel_names(prepared));
            finish_timed(prepared, r, out)
        }
        Err(e) => report_run_error(e, colour),
    }
}

/// `gpusim profile`.
#[allow(clippy::too_many_arguments)]
fn profile_cmd(
    file: &std::path::Path,
    output: &std::path::Path,
    sched: String,
    config: &str,
    sets: &[(String, String)],
    launch: Option<&std::path::Path>,
    args: &[(String, String)],
    colour: bool,
) -> ExitCode {
    if let Err(e) = gpusim::workload::runner::check_writable([output]) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let prepared = match gpusim::workload::runner::prepare(file, launch) {
        Ok(p) => p,
        Err(e) => return report_run_error(e, colour),
    };
    let cfg = match gpusim::config::load_config(config, sets) {
        Ok(c) => c,
        Err(d) => {
            eprint!("{}", d.render(colour));
            return ExitCode::from(2);
        }
    };
    let policies = gpusim::timing::Policies {
        record_profile: true,
        ..gpusim::timing::Policies::sched(&sched)
    };
    match gpusim::timing::run_timed_with(&prepared, args, &cfg, &policies, false) {
        Ok(r) => {
            outln!("{}", kernel_names(&prepared));
            out!("check     {}", r.check);
            if !r.check.passed() {
                eprintln!("error: the profiling run's check failed; nothing written");
                return ExitCode::FAILURE;
            }
            let p = r.profile.expect("recording run returns a profile");
            let text = serde_json::to_string_pretty(&p).expect("profile serializes");
            if let Err(e) = std::fs::write(output, text + "\n") {
                eprintln!("error: cannot write {}: {e}", output.display());
                return ExitCode::from(2);
            }
            for k in &p.kernels {
                let loads: usize = k.loops.iter().map(|l| l.loads.len()).sum();
                outln!(
                    "profile   {}: {} loop{} with intra-warp locality, {} classified load{}",
                    k.kernel,
                    k.loops.len(),
                    if k.loops.len() == 1 { "" } else { "s" },
                    loads,
                    if loads == 1 { "" } else { "s" }
                );
            }
            outln!("wrote     {}", output.display());
            ExitCode::SUCCESS
        }
        Err(e) => report_run_error(e, colour),
    }
}

/// The flags of `gpusim timeline`.
struct TimelineFlags {
    file: PathBuf,
    output: PathBuf,
    policies: gpusim::timing::Policies,
    selection: gpusim::timing::timeline::TimelineSelection,
    config: String,
    sets: Vec<(String, String)>,
    shape: WorkloadShape,
}

/// `gpusim timeline`: a timed run recording one SM's warps, drawn as SVG.
/// Prepares `file` with `shape`'s manifest and grid/block overrides and
/// loads the machine `config` with `sets`; an error is reported (exit
/// status 2).
fn prepare_shaped(
    file: &std::path::Path,
    shape: &WorkloadShape,
    config: &str,
    sets: &[(String, String)],
    colour: bool,
) -> Result<
    (
        gpusim::workload::runner::Prepared,
        gpusim::config::GpuConfig,
    ),
    ExitCode,
> {
    let mut prepared = gpusim::workload::runner::prepare(file, shape.launch.as_deref())
        .map_err(|e| report_run_error(e, colour))?;
    prepared.override_shape(shape.grid, shape.block);
    let cfg = gpusim::config::load_config(config, sets).map_err(|d| {
        eprint!("{}", d.render(colour));
        ExitCode::from(2)
    })?;
    Ok((prepared, cfg))
}

fn timeline_cmd(f: TimelineFlags, colour: bool) -> ExitCode {
    if let Err(e) = gpusim::workload::runner::check_writable([f.output.as_path()]) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let (prepared, cfg) = match prepare_shaped(&f.file, &f.shape, &f.config, &f.sets, colour) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let r = match gpusim::timing::run_timed_timeline(
        &prepared,
        &f.shape.args,
        &cfg,
        &f.policies,
        f.selection,
    ) {
        Ok(r) => r,
        Err(e) => return report_run_error(e, colour),
    };
    let Some(t) = r.timeline else {
        eprintln!("error: the run recorded no timeline");
        return ExitCode::from(2);
    };
    outln!("{}", kernel_names(&prepared));
    out!("check     {}", r.check);
    if let Some(why) = gpusim::report::timeline_svg::empty_reason(&t, r.stats.launches.len()) {
        eprintln!("error: {why}");
        return ExitCode::from(2);
    }
    let svg = gpusim::report::timeline_svg::render(&t, &r.stats.sched, r.stats.cycles);
    if let Err(e) = std::fs::write(&f.output, svg) {
        eprintln!("error: cannot write {}: {e}", f.output.display());
        return ExitCode::from(2);
    }
    let mut ctas: Vec<u64> = t.rows.iter().map(|w| w.cta_linear).collect();
    ctas.dedup();
    outln!(
        "timeline  {} launch {}, SM {}: {} warps of {} CTAs, {} barrier releases; wrote {}",
        t.kernel,
        t.selection.launch,
        t.selection.sm,
        t.rows.len(),
        ctas.len(),
        t.marks.len(),
        f.output.display()
    );
    if t.warps_omitted > 0 {
        eprintln!(
            "note: {} more warps ran but are not drawn (at most {} rows); choose CTAs with --ctas",
            t.warps_omitted,
            gpusim::report::timeline_svg::MAX_ROWS
        );
    }
    if r.check.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The flags of `gpusim run` whose combinations are checked.
struct RunFlags<'a> {
    file: &'a std::path::Path,
    functional: bool,
    sched: Option<&'a str>,
    profile: Option<&'a std::path::Path>,
    jobs: Option<usize>,
    issue_log: Option<&'a std::path::Path>,
    launch: Option<&'a std::path::Path>,
    sample: bool,
}

/// Options that do not apply to the run asked for are errors, not silently
/// ignored.
fn check_run_flags(f: &RunFlags<'_>) -> Result<(), String> {
    let sched = f.sched.unwrap_or("gto");
    if f.functional {
        if let Some(s) = f.sched {
            return Err(format!(
                "--sched {s} does not apply to --functional (no timing model, no warp scheduler)"
            ));
        }
        if f.issue_log.is_some() {
            return Err(
                "--issue-log does not apply to --functional (no cycles, no issue slots; \
                 `gpusim trace --all` lists the executed instructions)"
                    .to_string(),
            );
        }
        if f.sample {
            return Err(
                "--sample does not apply to --functional (no cycles to sample)".to_string(),
            );
        }
    }
    if f.profile.is_some() && (f.functional || sched != "daws-profiled") {
        return Err(format!(
            "--profile is only used by --sched daws-profiled (this run: {})",
            if f.functional {
                "--functional".to_string()
            } else {
                format!("--sched {sched}")
            }
        ));
    }
    if f.jobs.is_some() && (f.functional || sched != "best-swl") {
        return Err(format!(
            "--jobs is only used by --sched best-swl (this run: {})",
            if f.functional {
                "--functional".to_string()
            } else {
                format!("--sched {sched}")
            }
        ));
    }
    if let Some(l) = f.launch
        && f.file.extension().is_some_and(|e| e == "toml")
    {
        return Err(format!(
            "two manifests: {} and --launch {}; give the manifest once (or the PTX file \
             with --launch)",
            f.file.display(),
            l.display()
        ));
    }
    Ok(())
}

/// The functional interpreter's options from a machine config: its
/// instruction limit (`sim.max_insts`), warp size, SM count and allocation
/// layout (`sim.alloc_base`, `sim.alloc_guard`).
fn functional_options(
    cfg: &gpusim::config::GpuConfig,
) -> gpusim::workload::host::FunctionalOptions {
    gpusim::workload::host::FunctionalOptions {
        warp_size: cfg.core.warp_size,
        nsm: cfg.core.num_sms,
        step_limit: cfg.sim.max_insts,
        alloc: cfg.sim.alloc_layout(),
        ..Default::default()
    }
}

/// `run --functional --json FILE`: the functional run's counts.
fn write_functional_json(
    prepared: &gpusim::workload::runner::Prepared,
    r: &gpusim::workload::runner::FunctionalRun,
    path: &std::path::Path,
) -> std::io::Result<()> {
    let kernels: Vec<&str> = r.per_launch.iter().map(|l| l.kernel.as_str()).collect();
    let mut distinct = kernels.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let v = serde_json::json!({
        "mode": "functional",
        "file": prepared.program.file.name.to_string(),
        "workload": prepared.manifest.manifest.workload,
        "check_passed": r.check.passed(),
        "kernels": distinct,
        "launches": r.launches,
        "ctas": r.ctas,
        "warp_insts": r.warp_insts,
        "thread_insts": r.thread_insts,
        "per_launch": r.per_launch,
    });
    let text = serde_json::to_string_pretty(&v).map_err(std::io::Error::other)?;
    std::fs::write(path, text + "\n")
}

/// `gpusim export`: record the workload's host actions into `output`.
#[allow(clippy::too_many_arguments)]
fn export_cmd(
    file: &std::path::Path,
    output: &std::path::Path,
    config: &str,
    sets: &[(String, String)],
    launch: Option<&std::path::Path>,
    args: &[(String, String)],
    (grid, block): (Option<[u32; 3]>, Option<[u32; 3]>),
    colour: bool,
) -> ExitCode {
    let mut prepared = match gpusim::workload::runner::prepare(file, launch) {
        Ok(p) => p,
        Err(e) => return report_run_error(e, colour),
    };
    prepared.override_shape(grid, block);
    let cfg = match gpusim::config::load_config(config, sets) {
        Ok(c) => c,
        Err(d) => {
            eprint!("{}", d.render(colour));
            return ExitCode::from(2);
        }
    };
    let options = functional_options(&cfg);
    let (check, recording) =
        match gpusim::workload::record::record_functional(&prepared, args, options) {
            Ok(r) => r,
            Err(e) => return report_run_error(e, colour),
        };
    let ptx = prepared.manifest.ptx_path();
    if let Err(e) = recording.write_dir(output, &ptx.display().to_string()) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    outln!(
        "exported  {} allocations, {} launches, {} host actions to {}",
        recording.allocs.len(),
        recording.launches(),
        recording.events.len(),
        output.join("trace.txt").display()
    );
    out!("check     {check}");
    if check.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn bless(paths: &[PathBuf], check: bool, add: &[String]) -> ExitCode {
    use gpusim::fixture::{Fixture, discover};
    let files = match discover(paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut errors, mut differ, mut runs) = (0usize, 0usize, 0usize);
    for path in &files {
        let result = Fixture::load(path).and_then(|f| {
            let results = f.evaluate(add)?;
            Ok((f, results))
        });
        let (fixture, results) = match result {
            Ok(r) => r,
            Err(e) => {
                errors += 1;
                eprintln!("error: {e}");
                continue;
            }
        };
        for r in &results {
            runs += 1;
            let new = r.stats.cycles;
            match r.expected {
                Some(old) if old == new => {
                    outln!("{} {}: {new} unchanged", path.display(), r.sched)
                }
                Some(old) => outln!("{} {}: {old} → {new}", path.display(), r.sched),
                None => outln!("{} {}: (none) → {new}", path.display(), r.sched),
            }
            if !r.matches() {
                differ += 1;
            }
        }
        if !check && let Err(e) = fixture.bless(&results) {
            errors += 1;
            eprintln!("error: {e}");
        }
    }
    eprintln!(
        "{} fixture{}, {runs} run{}: {differ} {}{}",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        if runs == 1 { "" } else { "s" },
        if check { "differ" } else { "rewritten" },
        if errors > 0 {
            format!(", {errors} with errors")
        } else {
            String::new()
        }
    );
    if errors > 0 {
        ExitCode::from(2)
    } else if check && differ > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let colour = std::io::stderr().is_terminal();
    match cli.command {
        Command::Check { files } => {
            let mut failed = 0;
            for f in &files {
                match gpusim::load(f) {
                    Ok(p) => {
                        let names: Vec<&str> =
                            p.module.kernels.iter().map(|k| k.name.as_str()).collect();
                        outln!("ok    {} ({})", f.display(), names.join(", "));
                    }
                    Err(d) => {
                        failed += 1;
                        eprint!("{}", d.render(colour));
                        outln!(
                            "error {} ({} problem{})",
                            f.display(),
                            d.list.len(),
                            if d.list.len() == 1 { "" } else { "s" }
                        );
                    }
                }
            }
            if failed > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Command::Run {
            file,
            functional,
            sched,
            fetch,
            cta,
            sync,
            profile,
            jobs,
            config,
            sets,
            json,
            issue_log,
            sample,
            sample_csv,
            shape:
                WorkloadShape {
                    launch,
                    args,
                    grid,
                    block,
                },
            dumps,
        } => {
            let flags = RunFlags {
                file: &file,
                functional,
                sched: sched.as_deref(),
                profile: profile.as_deref(),
                jobs,
                issue_log: issue_log.as_deref(),
                launch: launch.as_deref(),
                sample: sample.is_some(),
            };
            if let Err(e) = check_run_flags(&flags) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            let sched = sched.unwrap_or_else(|| "gto".to_string());
            let fetch =
                fetch.unwrap_or_else(|| gpusim::sched::registry::default_fetch(&sched).to_string());
            let mut prepared = match gpusim::workload::runner::prepare(&file, launch.as_deref()) {
                Ok(p) => p,
                Err(e) => return report_run_error(e, colour),
            };
            prepared.override_shape(grid, block);
            for (name, path) in &dumps {
                prepared.add_dump(name, std::path::Path::new(path));
            }
            let outputs = json
                .iter()
                .chain(issue_log.iter())
                .map(PathBuf::as_path)
                .chain(prepared.dumps.iter().map(|(_, p)| p.as_path()));
            if let Err(e) = gpusim::workload::runner::check_writable(outputs) {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            let cfg = match gpusim::config::load_config(&config, &sets) {
                Ok(c) => c,
                Err(d) => {
                    eprint!("{}", d.render(colour));
                    return ExitCode::from(2);
                }
            };
            if !functional {
                if sample.is_some() && json.is_none() && sample_csv.is_none() {
                    eprintln!(
                        "error: --sample records a time series into --json FILE or --sample-csv FILE; give one"
                    );
                    return ExitCode::from(2);
                }
                let out = Outputs {
                    json: json.as_deref(),
                    issue_log: issue_log.as_deref(),
                    sample,
                    sample_csv: sample_csv.as_deref(),
                };
                let profile = match profile {
                    None => None,
                    Some(path) => match load_profile(&path, &prepared) {
                        Ok(p) => Some(std::sync::Arc::new(p)),
                        Err(e) => {
                            eprintln!("error: {e}");
                            return ExitCode::from(2);
                        }
                    },
                };
                let policies = gpusim::timing::Policies {
                    sched,
                    fetch,
                    cta,
                    profile,
                    record_profile: false,
                    sync,
                };
                if policies.sched == "best-swl" {
                    let jobs = jobs.unwrap_or_else(gpusim::timing::sweep::default_jobs);
                    return run_best_swl(&prepared, &args, &cfg, &policies, out, jobs, colour);
                }
                return run_timed(&prepared, &args, &cfg, &policies, out, colour);
            }
            let options = functional_options(&cfg);
            match gpusim::workload::runner::run_functional(&prepared, &args, options, None) {
                Ok(r) => {
                    outln!("{}", kernel_names(&prepared));
                    outln!(
                        "workload  {}: {} launch{}, {} CTAs",
                        prepared.manifest.manifest.workload,
                        r.launches,
                        if r.launches == 1 { "" } else { "es" },
                        r.ctas
                    );
                    outln!(
                        "executed  {} warp instructions, {} thread instructions",
                        r.warp_insts,
                        r.thread_insts
                    );
                    out!("check     {}", r.check);
                    if let Err(e) = gpusim::workload::runner::write_dumps(&r.dumps) {
                        eprintln!("error: {e}");
                        return ExitCode::from(2);
                    }
                    if let Some(path) = json.as_deref()
                        && let Err(e) = write_functional_json(&prepared, &r, path)
                    {
                        eprintln!("error: cannot write {}: {e}", path.display());
                        return ExitCode::from(2);
                    }
                    if r.check.passed() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                }
                Err(e) => report_run_error(e, colour),
            }
        }
        Command::Export {
            file,
            output,
            config,
            sets,
            shape:
                WorkloadShape {
                    launch,
                    args,
                    grid,
                    block,
                },
        } => export_cmd(
            &file,
            &output,
            &config,
            &sets,
            launch.as_deref(),
            &args,
            (grid, block),
            colour,
        ),
        Command::Trace {
            file,
            cta,
            warp,
            all,
            limit,
            config,
            sets,
            shape:
                WorkloadShape {
                    launch,
                    args,
                    grid,
                    block,
                },
        } => {
            use std::io::Write;
            let mut prepared = match gpusim::workload::runner::prepare(&file, launch.as_deref()) {
                Ok(p) => p,
                Err(e) => return report_run_error(e, colour),
            };
            prepared.override_shape(grid, block);
            let cfg = match gpusim::config::load_config(&config, &sets) {
                Ok(c) => c,
                Err(d) => {
                    eprint!("{}", d.render(colour));
                    return ExitCode::from(2);
                }
            };
            let out = std::io::stdout();
            let mut out = std::io::BufWriter::new(out.lock());
            let mut printed = 0u64;
            let limit = limit.unwrap_or(u64::MAX);
            let stopped = std::rc::Rc::new(std::cell::Cell::new(false));
            let stop = stopped.clone();
            // Returns false to stop the simulation: after `limit` records,
            // or once stdout is closed (`gpusim trace … | head`).
            let trace: gpusim::workload::host::TraceFn<'_> = Box::new(move |p, k, e| {
                if !all && (e.cta != cta || e.warp != warp) {
                    return true;
                }
                if printed >= limit {
                    stop.set(true);
                    return false;
                }
                printed += 1;
                let d = e.dyn_inst;
                let i = d.inst.0 as usize;
                let inst = &p.kernel(k).insts[i];
                // The active mask; when a guard disables lanes, also the
                // lanes that executed.
                let exec = if d.exec != d.active {
                    format!(" exec {:08x}", d.exec)
                } else {
                    String::new()
                };
                let written = writeln!(
                    out,
                    "{} cta {} warp {} pc {:#06x} mask {:08x} line {:4}  {}{}",
                    p.kernel(k).name,
                    e.cta,
                    e.warp,
                    i * 8,
                    d.active,
                    inst.line,
                    p.inst_text(k, i),
                    exec
                );
                // The last record is flushed before the run stops.
                let flushed = if printed >= limit {
                    written.and_then(|()| out.flush())
                } else {
                    written
                };
                if flushed.is_err() {
                    stop.set(true);
                    return false;
                }
                printed < limit || {
                    stop.set(true);
                    false
                }
            });
            let options = functional_options(&cfg);
            match gpusim::workload::runner::run_functional(&prepared, &args, options, Some(trace)) {
                Ok(_) => ExitCode::SUCCESS,
                Err(_) if stopped.get() => ExitCode::SUCCESS,
                Err(e) => report_run_error(e, colour),
            }
        }
        Command::Bless { paths, check, add } => bless(&paths, check, &add),
        Command::Profile {
            file,
            output,
            sched,
            config,
            sets,
            launch,
            args,
        } => profile_cmd(
            &file,
            &output,
            sched,
            &config,
            &sets,
            launch.as_deref(),
            &args,
            colour,
        ),
        Command::Repro {
            paper,
            jobs,
            json,
            csv,
            quick,
            dir,
            kernels,
        } => repro_cmd(
            paper,
            jobs,
            ReproFiles {
                json: json.as_deref(),
                csv: csv.as_deref(),
            },
            quick,
            dir,
            kernels,
            colour,
        ),
        Command::Correlate {
            reference,
            sched,
            kernels,
            jobs,
            json,
            svg,
            markdown,
            config,
            sets,
            no_perturbed,
        } => correlate(
            CorrelateFlags {
                reference,
                sched,
                kernels,
                jobs,
                json,
                svg,
                markdown,
                config,
                sets,
                no_perturbed,
            },
            colour,
        ),
        Command::Timeline {
            file,
            output,
            sched,
            fetch,
            cta,
            sm,
            ctas,
            launch_index,
            config,
            sets,
            shape,
        } => timeline_cmd(
            TimelineFlags {
                file,
                output,
                policies: gpusim::timing::Policies {
                    fetch: fetch.unwrap_or_else(|| {
                        gpusim::sched::registry::default_fetch(&sched).to_string()
                    }),
                    cta,
                    ..gpusim::timing::Policies::sched(&sched)
                },
                selection: gpusim::timing::timeline::TimelineSelection {
                    sm,
                    launch: launch_index,
                    ctas,
                },
                config,
                sets,
                shape,
            },
            colour,
        ),
        Command::Plot(args) => cli::plot::run(args),
        Command::Report(args) => cli::report::run(args),
        Command::Explain(a) => cli::explain::run(a, colour),
        Command::Sweep(args) => cli::sweep::run(args),
        Command::Merge(args) => cli::sweep::merge(args),
        Command::List(args) => cli::list::run(args),
        Command::Config { spec, sets } => match gpusim::config::load_config(&spec, &sets) {
            Ok(c) => {
                out!("{}", c.to_toml());
                ExitCode::SUCCESS
            }
            Err(d) => {
                eprint!("{}", d.render(colour));
                ExitCode::from(2)
            }
        },
        Command::Cfg {
            file,
            entry,
            dot,
            func,
        } => {
            let result = gpusim::load(&file).and_then(|p| {
                let k = p.entry(entry.as_deref())?;
                let range = match gpusim::report::cfg_text::func_range(&p, k, func.as_deref()) {
                    Ok(r) => r,
                    Err(m) => {
                        return Err(gpusim::ptx::diagnostics::Diagnostics {
                            file: p.file.clone(),
                            list: vec![gpusim::ptx::diagnostics::Diagnostic::new(
                                "gpusim::cli::unknown_function",
                                m,
                            )],
                        });
                    }
                };
                Ok(if dot {
                    gpusim::report::cfg_text::to_dot_range(&p, k, range)
                } else {
                    gpusim::report::cfg_text::to_text_range(&p, k, range)
                })
            });
            match result {
                Ok(s) => {
                    out!("{s}");
                    ExitCode::SUCCESS
                }
                Err(d) => {
                    eprint!("{}", d.render(colour));
                    ExitCode::FAILURE
                }
            }
        }
    }
}
