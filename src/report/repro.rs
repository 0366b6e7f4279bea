//! Reproduction of the DAWS paper's two headline results (Rogers, O'Connor,
//! Aamodt, "Divergence-Aware Warp Scheduling", MICRO 2013):
//!
//! * **Fig. 8** [DAWS 7.1]: the IPC of GTO, Best-SWL, CCWS, Profiled-DAWS
//!   and Detected-DAWS normalized to CCWS on highly cache-sensitive and
//!   cache-insensitive kernels, with the harmonic mean of each group (the
//!   paper: +25% profiled, +26% detected over CCWS on the cache-sensitive
//!   group, no loss on the insensitive one);
//! * **Fig. 13** [DAWS 7.2]: the programmability case study: SPMV-scalar's
//!   execution time under each of those schedulers normalized to
//!   SPMV-vector's under its best scheduler, on the same matrix (the paper:
//!   Detected-DAWS within 4% of SPMV-vector).
//!
//! [`run`] runs every kernel of [`KERNELS`] (manifests in `repro/daws/`)
//! under every [`Scheduler`] on the `daws` preset (DAWS Table 1) and
//! returns a [`Repro`], which renders the tables ([`Repro::fig8_table`],
//! [`Repro::cycles_table`], [`Repro::fig13_table`]) and serializes to JSON.
//!
//! Method, as in the paper: IPC is warp instructions per cycle (whole GPU);
//! Best-SWL is the fastest of `swl:1` … `swl:32`
//! ([`crate::timing::sweep::best_swl`], GTO priority); Profiled-DAWS's load
//! classification table is recorded by a GTO run of the same kernel at the
//! same size on a *different* input — the evaluation runs use workload
//! argument `seed = 1` ([`EVAL_SEED`]), the profiling run `seed = 2`
//! ([`PROFILE_SEED`]), whatever the manifests say. Every run's functional
//! check must pass; a run that fails its check (or errors) makes its cell
//! an error, and every ratio that needs that cell is "n/a".
//!
//! Independent runs are spread over `jobs` threads; every run is
//! deterministic and results are collected by position, so nothing depends
//! on `jobs`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

use crate::config::GpuConfig;
use crate::ptx::diagnostics::Diagnostics;
use crate::timing::host::{Policies, TimedRun, run_timed_with};
use crate::timing::sweep::best_swl;
use crate::workload::runner::{Prepared, RunError, prepare};

/// The machine: the `daws` preset (DAWS Table 1).
pub const CONFIG: &str = "daws";

/// Workload argument `seed` of every evaluation run.
pub const EVAL_SEED: u64 = 1;

/// Workload argument `seed` of Profiled-DAWS's profiling runs: a different
/// input than the evaluation's, as in the paper [DAWS 7.1].
pub const PROFILE_SEED: u64 = 2;

/// SMs of the machine in `--quick` mode (`core.num_sms`; every other field
/// is the `daws` preset's).
pub const QUICK_SMS: u32 = 2;

/// The kernels' manifests, relative to the repository root.
pub const DEFAULT_DIR: &str = "repro/daws";

/// The group a kernel belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Highly cache-sensitive [DAWS Table 2]: in Fig. 8's first harmonic
    /// mean.
    Sensitive,
    /// Cache-insensitive [DAWS Table 2]: in Fig. 8's second harmonic mean.
    Insensitive,
    /// SPMV-vector: only the reference of the Fig. 13 case study.
    CaseStudy,
}

impl Class {
    /// Short label for the tables (`CS`, `CI`, `ref`).
    pub fn label(self) -> &'static str {
        match self {
            Class::Sensitive => "CS",
            Class::Insensitive => "CI",
            Class::CaseStudy => "ref",
        }
    }
}

/// One kernel of the reproduction.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// Name in the tables (the paper's abbreviation where it has one).
    pub name: &'static str,
    /// Manifest file name in the repro directory.
    pub file: &'static str,
    /// Its group.
    pub class: Class,
    /// `--quick` sizes: workload argument overrides that fill
    /// [`QUICK_SMS`] SMs the way the manifest fills 30.
    pub quick_args: &'static [(&'static str, &'static str)],
}

/// The kernels of Fig. 8 and Fig. 13, in table order. SPMV-scalar, BFS and
/// k-means are three of the paper's five highly cache-sensitive kernels
/// (MEMC and GC are not in the suite); tiled matrix multiply and the 2-D
/// stencil stand in for its cache-insensitive LUD and HOTSP; SPMV-vector
/// is the case study's reference.
pub const KERNELS: [Kernel; 6] = [
    Kernel {
        name: "SPMV-scalar",
        file: "spmv_scalar.toml",
        class: Class::Sensitive,
        quick_args: &[("rows", "2048")],
    },
    Kernel {
        name: "BFS",
        file: "bfs.toml",
        class: Class::Sensitive,
        quick_args: &[("nodes", "2048")],
    },
    Kernel {
        name: "KMN",
        file: "kmeans.toml",
        class: Class::Sensitive,
        quick_args: &[("points", "2016")],
    },
    Kernel {
        name: "MM",
        file: "matmul.toml",
        class: Class::Insensitive,
        quick_args: &[("n", "64")],
    },
    Kernel {
        name: "STN",
        file: "stencil2d.toml",
        class: Class::Insensitive,
        quick_args: &[("width", "128"), ("height", "64")],
    },
    Kernel {
        name: "SPMV-vector",
        file: "spmv_vector.toml",
        class: Class::CaseStudy,
        quick_args: &[("rows", "2048")],
    },
];

/// The schedulers of Fig. 8 [DAWS 7.1], in the figure's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheduler {
    /// Greedy-then-oldest (`gto`).
    Gto,
    /// The fastest static warp limit (`best-swl`: `swl:1` … `swl:32`).
    BestSwl,
    /// Cache-conscious wavefront scheduling (`ccws`): the normalization.
    Ccws,
    /// DAWS with a profile recorded on another input (`daws-profiled`).
    DawsProfiled,
    /// DAWS detecting locality and divergence online (`daws`).
    Daws,
}

impl Scheduler {
    /// Every scheduler, in Fig. 8's order.
    pub const ALL: [Scheduler; 5] = [
        Scheduler::Gto,
        Scheduler::BestSwl,
        Scheduler::Ccws,
        Scheduler::DawsProfiled,
        Scheduler::Daws,
    ];

    /// The paper's name.
    pub fn label(self) -> &'static str {
        match self {
            Scheduler::Gto => "GTO",
            Scheduler::BestSwl => "Best-SWL",
            Scheduler::Ccws => "CCWS",
            Scheduler::DawsProfiled => "Profiled-DAWS",
            Scheduler::Daws => "Detected-DAWS",
        }
    }

    /// The `--sched` name.
    pub fn cli_name(self) -> &'static str {
        match self {
            Scheduler::Gto => "gto",
            Scheduler::BestSwl => "best-swl",
            Scheduler::Ccws => "ccws",
            Scheduler::DawsProfiled => "daws-profiled",
            Scheduler::Daws => "daws",
        }
    }

    fn index(self) -> usize {
        Scheduler::ALL
            .iter()
            .position(|&s| s == self)
            .expect("in ALL")
    }
}

/// What a reproduction runs (every `gpusim repro` target takes these).
#[derive(Clone, Debug)]
pub struct Options {
    /// Directory holding the reproduction's manifests (for DAWS, those of
    /// [`KERNELS`]).
    pub dir: PathBuf,
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Smaller inputs on a machine cut to a few SMs (for DAWS
    /// [`QUICK_SMS`]; for tests, not for comparing with the paper).
    pub quick: bool,
    /// Only these kernels (by table name or manifest stem, case
    /// insensitive); empty: all.
    pub only: Vec<String>,
}

/// One successful run (a cell of the tables).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellRun {
    /// Cycles (summed over the workload's launches).
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Warp IPC: `warp_insts / cycles`.
    pub ipc: f64,
    /// Best-SWL: the winning warp limit `N`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swl_limit: Option<u32>,
    /// Best-SWL: cycles of every `swl:N`, by `N` ascending.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<(u32, u64)>,
    /// Profiled-DAWS: loops with intra-warp locality in the profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile_loops: Option<usize>,
}

/// One kernel × scheduler cell: a run, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The scheduler.
    pub sched: Scheduler,
    /// The run, when it succeeded and its check passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<CellRun>,
    /// The error (simulation error or failed check), otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One kernel's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelResult {
    /// [`Kernel::name`].
    pub name: String,
    /// The manifest.
    pub manifest: String,
    /// Its group.
    pub class: Class,
    /// Workload argument overrides of the evaluation runs (the seed and,
    /// with `--quick`, the sizes).
    pub args: Vec<(String, String)>,
    /// One cell per scheduler, in [`Scheduler::ALL`] order.
    pub cells: Vec<Cell>,
}

impl KernelResult {
    /// The successful run of `s`, if any.
    pub fn run(&self, s: Scheduler) -> Option<&CellRun> {
        self.cells.get(s.index()).and_then(|c| c.run.as_ref())
    }

    /// IPC under `s` over IPC under CCWS (Fig. 8's bars).
    pub fn normalized_ipc(&self, s: Scheduler) -> Option<f64> {
        let base = self.run(Scheduler::Ccws)?.ipc;
        let x = self.run(s)?.ipc;
        (base > 0.0).then(|| x / base)
    }
}

/// The whole reproduction's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Repro {
    /// Machine preset.
    pub config: String,
    /// SMs of the machine.
    pub sms: u32,
    /// `--quick` sizes.
    pub quick: bool,
    /// [`EVAL_SEED`].
    pub eval_seed: u64,
    /// [`PROFILE_SEED`].
    pub profile_seed: u64,
    /// Per kernel, in [`KERNELS`] order.
    pub kernels: Vec<KernelResult>,
}

/// The Fig. 13 comparison, when both SPMV kernels ran.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaseStudy {
    /// SPMV-vector's best scheduler (fewest cycles; ties: Fig. 8 order).
    pub vector_best: Scheduler,
    /// Its cycles.
    pub vector_best_cycles: u64,
    /// SPMV-vector's slowest over fastest scheduler, minus 1 (the paper:
    /// < 1%).
    pub vector_spread: f64,
    /// Per scheduler: SPMV-scalar's cycles and their ratio to
    /// `vector_best_cycles` (`None` where SPMV-scalar's cell failed).
    pub scalar: Vec<(Scheduler, Option<(u64, f64)>)>,
}

/// Harmonic mean of positive values; `None` for an empty slice or a
/// non-positive value.
pub fn harmonic_mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
        return None;
    }
    Some(xs.len() as f64 / xs.iter().map(|x| 1.0 / x).sum::<f64>())
}

impl Repro {
    /// Every kernel's cells passed.
    pub fn all_passed(&self) -> bool {
        self.errors().is_empty()
    }

    /// Every failed cell: kernel, scheduler, message.
    pub fn errors(&self) -> Vec<(&str, Scheduler, &str)> {
        let mut v = Vec::new();
        for k in &self.kernels {
            for c in &k.cells {
                if let Some(e) = &c.error {
                    v.push((k.name.as_str(), c.sched, e.as_str()));
                }
            }
        }
        v
    }

    /// Harmonic mean over the kernels of `class` of the IPC under `s`
    /// normalized to CCWS; `None` when no kernel of the class ran or any
    /// needed cell failed.
    pub fn harmonic_mean(&self, class: Class, s: Scheduler) -> Option<f64> {
        let xs: Option<Vec<f64>> = self
            .kernels
            .iter()
            .filter(|k| k.class == class)
            .map(|k| k.normalized_ipc(s))
            .collect();
        harmonic_mean(&xs?)
    }

    fn kernel_of(&self, class: Class) -> Option<&KernelResult> {
        self.kernels.iter().find(|k| k.class == class)
    }

    /// The Fig. 13 comparison: SPMV-scalar (the first cache-sensitive
    /// kernel) against SPMV-vector under its best scheduler. `None` unless
    /// both ran and every SPMV-vector cell succeeded.
    pub fn case_study(&self) -> Option<CaseStudy> {
        let vector = self.kernel_of(Class::CaseStudy)?;
        let scalar = self.kernels.iter().find(|k| k.name == KERNELS[0].name)?;
        let vcycles: Option<Vec<(Scheduler, u64)>> = Scheduler::ALL
            .iter()
            .map(|&s| vector.run(s).map(|r| (s, r.cycles)))
            .collect();
        let vcycles = vcycles?;
        let &(best, best_cycles) = vcycles.iter().min_by_key(|(_, c)| *c)?;
        let worst = vcycles.iter().map(|(_, c)| *c).max()?;
        if best_cycles == 0 {
            return None;
        }
        Some(CaseStudy {
            vector_best: best,
            vector_best_cycles: best_cycles,
            vector_spread: worst as f64 / best_cycles as f64 - 1.0,
            scalar: Scheduler::ALL
                .iter()
                .map(|&s| {
                    (
                        s,
                        scalar
                            .run(s)
                            .map(|r| (r.cycles, r.cycles as f64 / best_cycles as f64)),
                    )
                })
                .collect(),
        })
    }

    fn machine(&self) -> String {
        format!(
            "`{}` preset, {} SMs{}; evaluation seed {}, Profiled-DAWS profiled on seed {}",
            self.config,
            self.sms,
            if self.quick { ", --quick sizes" } else { "" },
            self.eval_seed,
            self.profile_seed
        )
    }

    /// Fig. 8 as text: per cache-sensitive and cache-insensitive kernel
    /// the IPC under each scheduler normalized to CCWS (3 decimals;
    /// Best-SWL with its warp limit), then each group's harmonic mean
    /// (`HMEAN-CS`, `HMEAN-CI`). Failed cells print `error`, ratios that
    /// need them `n/a`.
    pub fn fig8_table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "Fig. 8: IPC normalized to CCWS ({})", self.machine());
        header(&mut o, "kernel");
        for class in [Class::Sensitive, Class::Insensitive] {
            let mut any = false;
            for k in self.kernels.iter().filter(|k| k.class == class) {
                any = true;
                let cells: Vec<String> = Scheduler::ALL
                    .iter()
                    .map(|&s| match (k.normalized_ipc(s), k.run(s)) {
                        (Some(x), Some(r)) => with_limit(format!("{x:.3}"), r),
                        (None, Some(_)) => "n/a".to_string(),
                        (_, None) => "error".to_string(),
                    })
                    .collect();
                row(&mut o, &k.name, class.label(), &cells);
            }
            if any {
                let cells: Vec<String> = Scheduler::ALL
                    .iter()
                    .map(|&s| {
                        self.harmonic_mean(class, s)
                            .map_or("n/a".to_string(), |x| format!("{x:.3}"))
                    })
                    .collect();
                row(
                    &mut o,
                    &format!("HMEAN-{}", class.label()),
                    class.label(),
                    &cells,
                );
            }
        }
        o
    }

    /// Every kernel's cycles under every scheduler (Best-SWL with its
    /// warp limit), the numbers behind both figures.
    pub fn cycles_table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "Cycles ({})", self.machine());
        header(&mut o, "kernel");
        for k in &self.kernels {
            let cells: Vec<String> = Scheduler::ALL
                .iter()
                .map(|&s| match k.run(s) {
                    Some(r) => with_limit(r.cycles.to_string(), r),
                    None => "error".to_string(),
                })
                .collect();
            row(&mut o, &k.name, k.class.label(), &cells);
        }
        o
    }

    /// Fig. 13 as text: SPMV-vector's cycles under each scheduler and its
    /// best, then SPMV-scalar's cycles under each scheduler and their
    /// ratio to that best (lower is faster; 1.000 = as fast as
    /// SPMV-vector).
    pub fn fig13_table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "Fig. 13: SPMV-scalar execution time normalized to SPMV-vector under its best scheduler, same matrix ({})",
            self.machine()
        );
        let Some(cs) = self.case_study() else {
            let _ = writeln!(
                o,
                "  n/a: needs SPMV-scalar and every SPMV-vector cell (see the errors)"
            );
            return o;
        };
        let vector = self
            .kernel_of(Class::CaseStudy)
            .expect("case_study found it");
        let _ = writeln!(
            o,
            "SPMV-vector best: {} ({} cycles); slowest scheduler {:.1}% slower",
            cs.vector_best.label(),
            cs.vector_best_cycles,
            100.0 * cs.vector_spread
        );
        let _ = writeln!(
            o,
            "{:<15} {:>14} {:>14} {:>10}",
            "scheduler", "SPMV-vector", "SPMV-scalar", "scalar/vec"
        );
        for (s, sc) in &cs.scalar {
            let v = vector
                .run(*s)
                .map_or("error".to_string(), |r| with_limit(r.cycles.to_string(), r));
            let (c, ratio) = match sc {
                Some((c, ratio)) => {
                    let r = self
                        .kernels
                        .iter()
                        .find(|k| k.name == KERNELS[0].name)
                        .and_then(|k| k.run(*s))
                        .expect("case_study found it");
                    (with_limit(c.to_string(), r), format!("{ratio:.3}"))
                }
                None => ("error".to_string(), "n/a".to_string()),
            };
            let _ = writeln!(o, "{:<15} {:>14} {:>14} {:>10}", s.label(), v, c, ratio);
        }
        o
    }

    /// The results as pretty JSON (deterministic: the same inputs give the
    /// same bytes, whatever `jobs`).
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Mean {
            class: Class,
            sched: Scheduler,
            value: Option<f64>,
        }
        #[derive(Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            repro: &'a Repro,
            harmonic_means: Vec<Mean>,
            case_study: Option<CaseStudy>,
        }
        let mut means = Vec::new();
        for class in [Class::Sensitive, Class::Insensitive] {
            for sched in Scheduler::ALL {
                means.push(Mean {
                    class,
                    sched,
                    value: self.harmonic_mean(class, sched),
                });
            }
        }
        serde_json::to_string_pretty(&Out {
            repro: self,
            harmonic_means: means,
            case_study: self.case_study(),
        })
        .expect("repro results serialize")
    }
}

/// `value` plus ` (swl:N)` for a Best-SWL cell.
fn with_limit(value: String, r: &CellRun) -> String {
    match r.swl_limit {
        Some(n) => format!("{value} (swl:{n})"),
        None => value,
    }
}

fn header(o: &mut String, first: &str) {
    let labels: Vec<String> = Scheduler::ALL
        .iter()
        .map(|s| s.label().to_string())
        .collect();
    row(o, first, "class", &labels);
}

fn row(o: &mut String, name: &str, class: &str, cells: &[String]) {
    let _ = write!(o, "{name:<12} {class:<5}");
    for (c, w) in cells.iter().zip([10, 18, 10, 14, 14]) {
        let _ = write!(o, " {c:>w$}");
    }
    o.push('\n');
}

/// Why the reproduction could not start.
#[derive(Debug)]
pub enum ReproError {
    /// The machine configuration has errors.
    Config(Diagnostics),
    /// A manifest or its PTX could not be loaded.
    Manifest {
        /// The manifest.
        file: PathBuf,
        /// What went wrong.
        error: RunError,
    },
    /// `only` named no kernel of the reproduction.
    UnknownKernel {
        /// The name given.
        name: String,
        /// The reproduction's kernels.
        known: Vec<&'static str>,
    },
}

impl ReproError {
    /// The error as text (diagnostics rendered, coloured or not).
    pub fn render(&self, colour: bool) -> String {
        match self {
            ReproError::Config(d) => d.render(colour),
            ReproError::Manifest { file, error } => match error {
                RunError::Diagnostics(d) => d.render(colour),
                RunError::Workload(w) => format!("error: {}: {w}\n", file.display()),
            },
            ReproError::UnknownKernel { name, known } => {
                format!(
                    "error: no reproduction kernel `{name}`; they are: {}\n",
                    known.join(", ")
                )
            }
        }
    }
}

/// A kernel selected to run, with its manifest loaded.
struct Job {
    kernel: Kernel,
    prepared: Prepared,
    /// Evaluation overrides (seed, quick sizes).
    eval: Vec<(String, String)>,
    /// Profiling overrides (the other seed).
    profile: Vec<(String, String)>,
}

/// One independent unit of work of the pool.
#[derive(Clone, Copy)]
enum Task {
    /// One run of a single scheduler.
    Single(usize, Scheduler),
    /// Record a profile on [`PROFILE_SEED`], then run `daws-profiled`.
    Profiled(usize),
}

/// A run error as plain text (diagnostics rendered without colour).
pub(crate) fn run_error_text(e: RunError) -> String {
    match e {
        RunError::Diagnostics(d) => d.render(false),
        RunError::Workload(w) => w.to_string(),
    }
}

/// A run's cell contents: its numbers when its check passed, else the
/// check's report.
fn cell_run(r: &TimedRun) -> Result<CellRun, String> {
    if !r.check.passed() {
        return Err(format!("check failed: {}", r.check.to_string().trim_end()));
    }
    let s = &r.stats;
    Ok(CellRun {
        cycles: s.cycles,
        warp_insts: s.warp_insts,
        ipc: if s.cycles == 0 {
            0.0
        } else {
            s.warp_insts as f64 / s.cycles as f64
        },
        swl_limit: None,
        sweep: Vec::new(),
        profile_loops: None,
    })
}

fn run_single(job: &Job, cfg: &GpuConfig, s: Scheduler) -> Result<CellRun, String> {
    let r = run_timed_with(
        &job.prepared,
        &job.eval,
        cfg,
        &Policies::sched(s.cli_name()),
        false,
    )
    .map_err(run_error_text)?;
    cell_run(&r)
}

fn run_profiled(job: &Job, cfg: &GpuConfig) -> Result<CellRun, String> {
    let recording = Policies {
        record_profile: true,
        ..Policies::sched("gto")
    };
    let rec = run_timed_with(&job.prepared, &job.profile, cfg, &recording, false)
        .map_err(|e| format!("profiling run (seed {PROFILE_SEED}): {}", run_error_text(e)))?;
    if !rec.check.passed() {
        return Err(format!(
            "profiling run (seed {PROFILE_SEED}) check failed: {}",
            rec.check.to_string().trim_end()
        ));
    }
    let profile = rec
        .profile
        .ok_or_else(|| "the profiling run returned no profile".to_string())?;
    let loops = profile.kernels.iter().map(|k| k.loops.len()).sum();
    let policies = Policies {
        profile: Some(Arc::new(profile)),
        ..Policies::sched(Scheduler::DawsProfiled.cli_name())
    };
    let r =
        run_timed_with(&job.prepared, &job.eval, cfg, &policies, false).map_err(run_error_text)?;
    let mut c = cell_run(&r)?;
    c.profile_loops = Some(loops);
    Ok(c)
}

fn run_best_swl(job: &Job, cfg: &GpuConfig, jobs: usize) -> Result<CellRun, String> {
    let sweep = best_swl(&job.prepared, &job.eval, cfg, &Policies::sched("gto"), jobs)
        .map_err(run_error_text)?;
    if !sweep.failed_checks.is_empty() {
        return Err(format!(
            "the check failed under swl:{}",
            sweep
                .failed_checks
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", swl:")
        ));
    }
    let mut c = cell_run(&sweep.best)?;
    c.swl_limit = Some(sweep.best_limit);
    c.sweep = sweep.cycles;
    Ok(c)
}

/// Runs `f` on every item on `jobs` threads; results in item order.
pub(crate) fn pool<T, R>(jobs: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let next = Mutex::new(0usize);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut g = next.lock().expect("pool counter");
                        let i = *g;
                        *g += 1;
                        i
                    };
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    out.lock().expect("pool results")[i] = Some(r);
                }
            });
        }
    });
    out.into_inner()
        .expect("pool results")
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// The `--quick` machine override: `core.num_sms = sms` (none otherwise).
pub(crate) fn quick_sets(quick: bool, sms: u32) -> Vec<(String, String)> {
    if quick {
        vec![("core.num_sms".to_string(), sms.to_string())]
    } else {
        Vec::new()
    }
}

/// Loads the manifest `file` of `dir`, with the workload-argument
/// overrides of the run: `quick_args` under `--quick`, none otherwise.
pub(crate) fn load_kernel(
    dir: &Path,
    file: &str,
    quick: bool,
    quick_args: &[(&str, &str)],
) -> Result<(Prepared, Vec<(String, String)>), ReproError> {
    let path = dir.join(file);
    let prepared = prepare(&path, None).map_err(|error| ReproError::Manifest {
        file: path.clone(),
        error,
    })?;
    let args = if quick {
        quick_args
            .iter()
            .map(|(a, v)| (a.to_string(), v.to_string()))
            .collect()
    } else {
        Vec::new()
    };
    Ok((prepared, args))
}

/// The kernels of `all` that `only` names, in `all`'s order (all of them
/// when `only` is empty). A kernel is named by its table name or its
/// manifest's stem, case-insensitively; `names` gives both. An unknown
/// name is an error listing the table names.
pub(crate) fn select_kernels<K: Copy>(
    all: &[K],
    only: &[String],
    names: impl Fn(&K) -> (&'static str, &'static str),
) -> Result<Vec<K>, ReproError> {
    let matches = |k: &K, name: &str| {
        let (table, file) = names(k);
        let stem = file.trim_end_matches(".toml");
        table.eq_ignore_ascii_case(name) || stem.eq_ignore_ascii_case(name)
    };
    if let Some(name) = only.iter().find(|n| !all.iter().any(|k| matches(k, n))) {
        return Err(ReproError::UnknownKernel {
            name: name.clone(),
            known: all.iter().map(|k| names(k).0).collect(),
        });
    }
    Ok(all
        .iter()
        .filter(|k| only.is_empty() || only.iter().any(|n| matches(k, n)))
        .copied()
        .collect())
}

/// Runs the reproduction: every selected kernel under every scheduler.
/// `progress` is called with one line per finished cell (for a status
/// display; results never depend on it). Errors only when it cannot start
/// (configuration, a manifest, an unknown kernel name); a failed run is a
/// failed cell of the result.
pub fn run(opts: &Options, progress: &(dyn Fn(&str) + Sync)) -> Result<Repro, ReproError> {
    let kernels = select_kernels(&KERNELS, &opts.only, |k| (k.name, k.file))?;
    let sets = quick_sets(opts.quick, QUICK_SMS);
    let cfg = crate::config::load_config(CONFIG, &sets).map_err(ReproError::Config)?;
    let mut jobs_list = Vec::new();
    for k in kernels {
        let (prepared, sizes) = load_kernel(&opts.dir, k.file, opts.quick, k.quick_args)?;
        let with_seed = |seed: u64| {
            let mut v = sizes.clone();
            v.push(("seed".to_string(), seed.to_string()));
            v
        };
        jobs_list.push(Job {
            kernel: k,
            prepared,
            eval: with_seed(EVAL_SEED),
            profile: with_seed(PROFILE_SEED),
        });
    }
    let jobs = opts.jobs.max(1);
    let total = jobs_list.len() * Scheduler::ALL.len();
    let done = Mutex::new(0usize);
    let report = |k: &Kernel, s: Scheduler, r: &Result<CellRun, String>, t: Instant| {
        let mut d = done.lock().expect("progress counter");
        *d += 1;
        let what = match r {
            Ok(c) => format!("{} cycles", with_limit(c.cycles.to_string(), c)),
            Err(e) => format!("ERROR {}", e.lines().next().unwrap_or("")),
        };
        progress(&format!(
            "[{:>2}/{total}] {:<12} {:<14} {what} ({:.1} s)",
            *d,
            k.name,
            s.label(),
            t.elapsed().as_secs_f64()
        ));
    };

    // Best-SWL: each kernel's sweep spreads its 32 runs over every thread.
    let mut cells: Vec<Vec<Option<Result<CellRun, String>>>> = jobs_list
        .iter()
        .map(|_| vec![None; Scheduler::ALL.len()])
        .collect();
    for (i, job) in jobs_list.iter().enumerate() {
        let t = Instant::now();
        let r = run_best_swl(job, &cfg, jobs);
        report(&job.kernel, Scheduler::BestSwl, &r, t);
        cells[i][Scheduler::BestSwl.index()] = Some(r);
    }

    // The other cells are independent runs: one pool, slowest kinds first.
    let mut tasks = Vec::new();
    for i in 0..jobs_list.len() {
        tasks.push(Task::Single(i, Scheduler::Ccws));
    }
    for i in 0..jobs_list.len() {
        tasks.push(Task::Profiled(i));
    }
    for s in [Scheduler::Gto, Scheduler::Daws] {
        for i in 0..jobs_list.len() {
            tasks.push(Task::Single(i, s));
        }
    }
    let results = pool(jobs, &tasks, |&task| {
        let t = Instant::now();
        let (i, s, r) = match task {
            Task::Single(i, s) => (i, s, run_single(&jobs_list[i], &cfg, s)),
            Task::Profiled(i) => (
                i,
                Scheduler::DawsProfiled,
                run_profiled(&jobs_list[i], &cfg),
            ),
        };
        report(&jobs_list[i].kernel, s, &r, t);
        (i, s, r)
    });
    for (i, s, r) in results {
        cells[i][s.index()] = Some(r);
    }

    let kernels = jobs_list
        .iter()
        .zip(cells)
        .map(|(job, row)| KernelResult {
            name: job.kernel.name.to_string(),
            manifest: display_path(&opts.dir.join(job.kernel.file)),
            class: job.kernel.class,
            args: job.eval.clone(),
            cells: Scheduler::ALL
                .iter()
                .zip(row)
                .map(|(&sched, r)| match r.expect("every cell ran") {
                    Ok(run) => Cell {
                        sched,
                        run: Some(run),
                        error: None,
                    },
                    Err(e) => Cell {
                        sched,
                        run: None,
                        error: Some(e),
                    },
                })
                .collect(),
        })
        .collect();
    Ok(Repro {
        config: CONFIG.to_string(),
        sms: cfg.core.num_sms,
        quick: opts.quick,
        eval_seed: EVAL_SEED,
        profile_seed: PROFILE_SEED,
        kernels,
    })
}

/// A path as printed in the results.
pub(crate) fn display_path(p: &Path) -> String {
    p.display().to_string()
}
