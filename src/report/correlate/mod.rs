//! `gpusim correlate`: gpusim's timing model against committed GPGPU-Sim
//! reference figures (`correlation/gtx480.toml`, [`reference`]).
//!
//! [`run`] loads the reference file, runs every kernel's manifest on
//! gpusim's timing model (default machine `gtx480`) under each scheduler
//! the file has figures for (`lrr`, `gto`), and compares per kernel and
//! scheduler: cycles on both sides and their ratio gpusim / GPGPU-Sim, IPC
//! (thread instructions per cycle), L1D and L2 hit rates, DRAM reads and
//! writes, and whether the thread-instruction counts agree (the functional
//! sides must agree exactly; a difference is flagged). [`Correlation`]
//! then holds the summary per scheduler and overall ([`Summary`]: mean
//! absolute relative error of cycles, the largest error, how many runs
//! fall within ±20 %, Pearson's r of the cycles) and, per kernel, whether
//! the IPC order of `lrr` and `gto` is the reference's ([`IpcOrder`]).
//!
//! Independent runs are spread over `jobs` threads; each run is
//! deterministic and results are collected by position, so nothing depends
//! on `jobs`, and kernels keep the file's order.
//!
//! Renderings: [`render::text`] (plain table), [`render::markdown`]
//! (README tables), [`Correlation::to_json`], [`svg::scatter`] (cycles
//! scatter plot).

pub mod perturbed;
pub mod reference;
pub mod render;
pub mod stats;
pub mod svg;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;

pub use perturbed::{PerturbedOrder, PerturbedRun};
pub use reference::{
    Figures, Perturbation, Provenance, RefKernel, Reference, Sched, load_reference,
};
use stats::Faster;

use crate::ptx::diagnostics::Diagnostics;
use crate::timing::Stats;
use crate::timing::host::{Policies, run_timed_with};
use crate::workload::runner::{RunError, prepare};

/// The reference file `gpusim correlate` reads by default, relative to the
/// repository root.
pub const DEFAULT_REFERENCE: &str = "correlation/gtx480.toml";

/// The machine preset of the comparison by default.
pub const DEFAULT_CONFIG: &str = "gtx480";

/// The band of the target: a run is "within" when gpusim's cycles are
/// within ±20 % of GPGPU-Sim's.
pub const BAND: f64 = 0.20;

/// What to compare.
#[derive(Clone, Debug)]
pub struct Options {
    /// The reference file.
    pub reference: PathBuf,
    /// The directory the file's manifest paths are relative to (the
    /// repository root).
    pub root: PathBuf,
    /// Machine: a preset or a config file ([`crate::config::load_config`]).
    pub config: String,
    /// Config overrides (`--set`).
    pub sets: Vec<(String, String)>,
    /// Only these schedulers (empty: every scheduler the file has figures
    /// for).
    pub scheds: Vec<Sched>,
    /// Only these kernels, by name (empty: all).
    pub kernels: Vec<String>,
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Run the perturbed pairs (`[[kernel.perturbed]]`) when lrr and gto
    /// are both compared.
    pub perturbed: bool,
}

/// One side's figures for a kernel under a scheduler, in common terms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Side {
    /// Cycles over every launch.
    pub cycles: u64,
    /// Thread instructions.
    pub thread_insts: u64,
    /// Warp instructions.
    pub warp_insts: u64,
    /// Kernel launches.
    pub launches: u64,
    /// Thread instructions per cycle.
    pub ipc: f64,
    /// L1D accesses (gpusim: load line requests plus store line requests,
    /// as GPGPU-Sim counts reads and writes).
    pub l1d_accesses: u64,
    /// L1D misses (gpusim: load requests sent to L2 plus stores that did
    /// not find their line).
    pub l1d_misses: u64,
    /// `1 - l1d_misses / l1d_accesses`; `None` without accesses.
    pub l1d_hit_rate: Option<f64>,
    /// L2 accesses.
    pub l2_accesses: u64,
    /// L2 misses, as GPGPU-Sim counts them (`MISS` and `SECTOR_MISS`;
    /// gpusim: its misses less the sector accesses that found their
    /// sector on its way from DRAM, GPGPU-Sim's `HIT_RESERVED`).
    pub l2_misses: u64,
    /// `1 - l2_misses / l2_accesses`; `None` without accesses.
    pub l2_hit_rate: Option<f64>,
    /// DRAM reads.
    pub dram_reads: u64,
    /// DRAM writes.
    pub dram_writes: u64,
}

fn hit_rate(accesses: u64, misses: u64) -> Option<f64> {
    (accesses > 0).then(|| 1.0 - misses.min(accesses) as f64 / accesses as f64)
}

fn ipc(thread_insts: u64, cycles: u64) -> f64 {
    if cycles == 0 {
        0.0
    } else {
        thread_insts as f64 / cycles as f64
    }
}

impl Side {
    /// GPGPU-Sim's figures.
    pub fn from_figures(f: &Figures) -> Side {
        Side {
            cycles: f.cycles,
            thread_insts: f.thread_insts,
            warp_insts: f.warp_insts,
            launches: f.launches,
            ipc: ipc(f.thread_insts, f.cycles),
            l1d_accesses: f.l1d_accesses,
            l1d_misses: f.l1d_misses,
            l1d_hit_rate: hit_rate(f.l1d_accesses, f.l1d_misses),
            l2_accesses: f.l2_accesses,
            l2_misses: f.l2_misses,
            l2_hit_rate: hit_rate(f.l2_accesses, f.l2_misses),
            dram_reads: f.dram_reads,
            dram_writes: f.dram_writes,
        }
    }

    /// A gpusim timed run's statistics. GPGPU-Sim's L1D counts reads and
    /// writes (a write-through store hits when its line is present), so
    /// gpusim's stores are counted too: a store hits when it found (and
    /// invalidated) its line, or, a local store written back, stayed in
    /// it. GPGPU-Sim's L2 counts an access that finds its sector
    /// reserved for a fill (`HIT_RESERVED`) as an access but not a miss,
    /// so gpusim's pending hits are taken out of its misses.
    pub fn from_stats(s: &Stats) -> Side {
        let l1 = &s.total.l1d;
        let l1d_accesses = l1.accesses + l1.stores;
        let l2_misses = s.mem.l2_misses - s.mem.l2_pending_hits;
        let l1d_misses = l1.misses
            + l1.stores
                .saturating_sub(l1.write_evictions + l1.local_write_hits);
        Side {
            cycles: s.cycles,
            thread_insts: s.thread_insts,
            warp_insts: s.warp_insts,
            launches: s.launches.len() as u64,
            ipc: ipc(s.thread_insts, s.cycles),
            l1d_accesses,
            l1d_misses,
            l1d_hit_rate: hit_rate(l1d_accesses, l1d_misses),
            l2_accesses: s.mem.l2_accesses,
            l2_misses,
            l2_hit_rate: hit_rate(s.mem.l2_accesses, l2_misses),
            dram_reads: s.mem.dram_reads,
            dram_writes: s.mem.dram_writes,
        }
    }
}

/// One kernel under one scheduler: both sides and how they compare.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    /// The scheduler.
    pub sched: Sched,
    /// GPGPU-Sim's figures.
    pub reference: Side,
    /// gpusim's, when the run succeeded and its check passed.
    pub gpusim: Option<Side>,
    /// Why there is no gpusim side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// gpusim cycles / GPGPU-Sim cycles.
    pub cycles_ratio: Option<f64>,
    /// `cycles_ratio - 1`.
    pub cycles_error: Option<f64>,
    /// The thread-instruction counts differ (the functional sides should
    /// agree exactly: a difference means the runs are not the same work).
    pub thread_insts_differ: bool,
}

impl Run {
    /// Compares GPGPU-Sim's figures with gpusim's outcome.
    pub fn new(sched: Sched, reference: &Figures, gpusim: Result<Side, String>) -> Run {
        let reference = Side::from_figures(reference);
        let (gpusim, error) = match gpusim {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(e)),
        };
        let cycles_error = gpusim.and_then(|g| stats::relative_error(g.cycles, reference.cycles));
        Run {
            sched,
            reference,
            error,
            cycles_ratio: cycles_error.map(|e| e + 1.0),
            cycles_error,
            thread_insts_differ: gpusim.is_some_and(|g| g.thread_insts != reference.thread_insts),
            gpusim,
        }
    }

    /// Within ±[`BAND`].
    pub fn within_band(&self) -> bool {
        self.cycles_error
            .is_some_and(|e| stats::within(&[e], BAND) == 1)
    }
}

/// Whether a kernel's IPC order of `lrr` and `gto` is the reference's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IpcOrder {
    /// Which had the higher IPC in GPGPU-Sim (`first` = lrr).
    pub reference: Faster,
    /// Which had the higher IPC in gpusim.
    pub gpusim: Faster,
    /// The two agree.
    pub matches: bool,
}

/// One kernel's comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelResult {
    /// Its name in the reference file.
    pub name: String,
    /// Its manifest, as the file writes it.
    pub manifest: String,
    /// What it stresses.
    pub stresses: String,
    /// One run per compared scheduler it has figures for, in
    /// [`Sched::ALL`] order.
    pub runs: Vec<Run>,
    /// The IPC order of lrr and gto, when both ran on both sides.
    pub ipc_order: Option<IpcOrder>,
    /// The perturbed run pairs (the reference file's `[[kernel.perturbed]]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub perturbed: Vec<PerturbedRun>,
    /// The order over the nominal and perturbed pairs, when there are
    /// perturbed pairs with a gpusim side and the nominal pair ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perturbed_order: Option<PerturbedOrder>,
}

impl KernelResult {
    /// A kernel's row from its runs (computes the IPC order); no
    /// perturbed runs ([`KernelResult::with_perturbed`] adds them).
    pub fn new(name: &str, manifest: &str, stresses: &str, runs: Vec<Run>) -> KernelResult {
        let side =
            |s: Sched, f: fn(&Run) -> Option<f64>| runs.iter().find(|r| r.sched == s).and_then(f);
        let order = |f: fn(&Run) -> Option<f64>| {
            Some(Faster::of(side(Sched::Lrr, f)?, side(Sched::Gto, f)?))
        };
        let reference = order(|r| Some(r.reference.ipc));
        let gpusim = order(|r| r.gpusim.map(|g| g.ipc));
        KernelResult {
            name: name.to_string(),
            manifest: manifest.to_string(),
            stresses: stresses.to_string(),
            ipc_order: reference.zip(gpusim).map(|(reference, gpusim)| IpcOrder {
                reference,
                gpusim,
                matches: reference == gpusim,
            }),
            runs,
            perturbed: Vec::new(),
            perturbed_order: None,
        }
    }

    /// Adds the perturbed run pairs and the order over them and the
    /// nominal pair (which needs both schedulers on both sides).
    pub fn with_perturbed(mut self, perturbed: Vec<PerturbedRun>) -> KernelResult {
        let cycles = |s: Sched| self.runs.iter().find(|r| r.sched == s);
        let nominal = match (cycles(Sched::Lrr), cycles(Sched::Gto)) {
            (Some(l), Some(g)) => l.gpusim.zip(g.gpusim).map(|(gl, gg)| {
                (
                    [l.reference.cycles, g.reference.cycles],
                    [gl.cycles, gg.cycles],
                )
            }),
            _ => None,
        };
        self.perturbed_order = nominal.and_then(|n| PerturbedOrder::of(n, &perturbed));
        self.perturbed = perturbed;
        self
    }

    /// Whether the kernel keeps GPGPU-Sim's order by the perturbation
    /// means where it has them, else by the nominal runs.
    pub fn order_matches(&self) -> Option<bool> {
        match (&self.perturbed_order, &self.ipc_order) {
            (Some(p), _) => Some(p.matches),
            (None, Some(o)) => Some(o.matches),
            (None, None) => None,
        }
    }
}

/// The largest cycle error of a group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaxError {
    /// The kernel.
    pub kernel: String,
    /// Its scheduler.
    pub sched: Sched,
    /// Signed relative error (gpusim / GPGPU-Sim − 1).
    pub error: f64,
}

/// The cycle statistics of one group of runs (one scheduler, or all).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// `lrr`, `gto` or `all`.
    pub scope: String,
    /// Runs compared (gpusim succeeded).
    pub runs: usize,
    /// Mean of |gpusim / GPGPU-Sim − 1|.
    pub mae: Option<f64>,
    /// The run with the largest |error|.
    pub max_error: Option<MaxError>,
    /// Runs within ±20 %.
    pub within_20: usize,
    /// Pearson's r of (GPGPU-Sim cycles, gpusim cycles).
    pub pearson_r: Option<f64>,
}

impl Summary {
    /// The statistics over `runs`: `(kernel, run)` pairs; runs without a
    /// gpusim side are left out.
    pub fn of(scope: &str, runs: &[(&str, &Run)]) -> Summary {
        let ok: Vec<(&str, &Run, f64)> = runs
            .iter()
            .filter_map(|&(k, r)| r.cycles_error.map(|e| (k, r, e)))
            .collect();
        let errors: Vec<f64> = ok.iter().map(|x| x.2).collect();
        let pairs: Vec<(f64, f64)> = ok
            .iter()
            .filter_map(|(_, r, _)| {
                r.gpusim
                    .map(|g| (r.reference.cycles as f64, g.cycles as f64))
            })
            .collect();
        Summary {
            scope: scope.to_string(),
            runs: ok.len(),
            mae: stats::mean_abs_error(&errors),
            max_error: stats::max_abs_error(&errors).map(|i| MaxError {
                kernel: ok[i].0.to_string(),
                sched: ok[i].1.sched,
                error: ok[i].2,
            }),
            within_20: stats::within(&errors, BAND),
            pearson_r: stats::pearson(&pairs),
        }
    }
}

/// How many kernels keep GPGPU-Sim's IPC order of lrr and gto.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OrderSummary {
    /// Kernels with both schedulers on both sides.
    pub kernels: usize,
    /// Of those, how many have the reference's order.
    pub matches: usize,
    /// The names of the others, in file order.
    pub mismatched: Vec<String>,
    /// Kernels whose order is also compared over perturbed runs.
    pub perturbed_kernels: usize,
    /// Kernels with GPGPU-Sim's order by the perturbation means where
    /// there are perturbed runs, else by the nominal runs (of `kernels`).
    pub with_perturbed_matches: usize,
    /// The names of the others, in file order.
    pub with_perturbed_mismatched: Vec<String>,
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Correlation {
    /// The reference file, as given.
    pub reference_file: String,
    /// Where its figures came from.
    pub provenance: Provenance,
    /// gpusim's machine (`--config`).
    pub config: String,
    /// Its overrides (`--set`), `key=value`.
    pub sets: Vec<String>,
    /// The schedulers compared.
    pub schedulers: Vec<Sched>,
    /// Per kernel, in the file's order.
    pub kernels: Vec<KernelResult>,
    /// Per scheduler (in [`Sched::ALL`] order), then `all`.
    pub summaries: Vec<Summary>,
    /// The IPC order of lrr vs gto.
    pub ipc_order: OrderSummary,
}

impl Correlation {
    /// Assembles a comparison from its kernels and computes the summaries.
    pub fn new(
        reference_file: &str,
        provenance: Provenance,
        config: &str,
        sets: Vec<String>,
        schedulers: Vec<Sched>,
        kernels: Vec<KernelResult>,
    ) -> Correlation {
        let all: Vec<(&str, &Run)> = kernels
            .iter()
            .flat_map(|k| k.runs.iter().map(move |r| (k.name.as_str(), r)))
            .collect();
        let mut summaries: Vec<Summary> = schedulers
            .iter()
            .map(|&s| {
                let mine: Vec<(&str, &Run)> =
                    all.iter().copied().filter(|(_, r)| r.sched == s).collect();
                Summary::of(s.name(), &mine)
            })
            .collect();
        summaries.push(Summary::of("all", &all));
        let ordered: Vec<(&str, IpcOrder)> = kernels
            .iter()
            .filter_map(|k| k.ipc_order.map(|o| (k.name.as_str(), o)))
            .collect();
        let ipc_order = OrderSummary {
            kernels: ordered.len(),
            matches: ordered.iter().filter(|(_, o)| o.matches).count(),
            mismatched: ordered
                .iter()
                .filter(|(_, o)| !o.matches)
                .map(|(k, _)| k.to_string())
                .collect(),
            perturbed_kernels: kernels
                .iter()
                .filter(|k| k.perturbed_order.is_some())
                .count(),
            with_perturbed_matches: kernels
                .iter()
                .filter(|k| k.ipc_order.is_some() && k.order_matches() == Some(true))
                .count(),
            with_perturbed_mismatched: kernels
                .iter()
                .filter(|k| k.ipc_order.is_some() && k.order_matches() == Some(false))
                .map(|k| k.name.clone())
                .collect(),
        };
        Correlation {
            reference_file: reference_file.to_string(),
            provenance,
            config: config.to_string(),
            sets,
            schedulers,
            kernels,
            summaries,
            ipc_order,
        }
    }

    /// Every run without a gpusim side: kernel, scheduler, error.
    pub fn errors(&self) -> Vec<(&str, Sched, &str)> {
        let mut v = Vec::new();
        for k in &self.kernels {
            for r in &k.runs {
                if let Some(e) = &r.error {
                    v.push((k.name.as_str(), r.sched, e.as_str()));
                }
            }
        }
        v
    }

    /// Every perturbed pair without a gpusim side: kernel, its change,
    /// error (of the first of its two runs that failed).
    pub fn perturbed_errors(&self) -> Vec<(&str, &str, &str)> {
        let mut v = Vec::new();
        for k in &self.kernels {
            for p in &k.perturbed {
                if let Some(e) = &p.error {
                    v.push((k.name.as_str(), p.set.as_str(), e.as_str()));
                }
            }
        }
        v
    }

    /// The summary of `scope` (`lrr`, `gto`, `all`).
    pub fn summary(&self, scope: &str) -> Option<&Summary> {
        self.summaries.iter().find(|s| s.scope == scope)
    }

    /// The whole comparison as pretty JSON (the same inputs give the same
    /// bytes, whatever `jobs`).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("correlation results serialize")
    }
}

/// Why the comparison could not start.
#[derive(Debug)]
pub enum CorrelateError {
    /// The reference file cannot be read or has errors.
    Reference(Diagnostics),
    /// The machine configuration has errors.
    Config(Diagnostics),
    /// A `--kernel` or `--sched` names nothing in the file.
    Selection(String),
}

impl CorrelateError {
    /// The error as text (diagnostics rendered, coloured or not).
    pub fn render(&self, colour: bool) -> String {
        match self {
            CorrelateError::Reference(d) | CorrelateError::Config(d) => d.render(colour),
            CorrelateError::Selection(m) => format!("error: {m}\n"),
        }
    }
}

fn run_error_text(e: RunError) -> String {
    match e {
        RunError::Diagnostics(d) => d.render(false).trim_end().to_string(),
        RunError::Workload(w) => w.to_string(),
    }
}

/// The kernels of `reference` that `only` selects (all when empty); an
/// unknown name is an error naming the closest kernel.
fn select_kernels<'r>(
    reference: &'r Reference,
    only: &[String],
) -> Result<Vec<&'r RefKernel>, CorrelateError> {
    for name in only {
        if !reference.kernels.iter().any(|k| k.name == *name) {
            let names = reference.kernels.iter().map(|k| k.name.as_str());
            let hint = crate::ptx::suggest::closest(name, names)
                .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
            return Err(CorrelateError::Selection(format!(
                "no kernel `{name}` in {}{hint}",
                reference.file.name
            )));
        }
    }
    Ok(reference
        .kernels
        .iter()
        .filter(|k| only.is_empty() || only.contains(&k.name))
        .collect())
}

/// The schedulers to compare: `wanted` (all the file has figures for when
/// empty), in [`Sched::ALL`] order. One the file has no figures for is an
/// error.
fn select_scheds(reference: &Reference, wanted: &[Sched]) -> Result<Vec<Sched>, CorrelateError> {
    let present = reference.schedulers();
    if let Some(s) = wanted.iter().find(|s| !present.contains(s)) {
        return Err(CorrelateError::Selection(format!(
            "{} has no figures for `{}`",
            reference.file.name,
            s.name()
        )));
    }
    Ok(present
        .into_iter()
        .filter(|s| wanted.is_empty() || wanted.contains(s))
        .collect())
}

/// Runs the comparison. `progress` receives one line per finished run
/// (for a status display; results never depend on it). Errors only when
/// it cannot start (reference file, configuration, selection); a run that
/// fails (a manifest that does not load, a simulation error, a failed
/// check) is a [`Run`] with an error.
pub fn run(
    opts: &Options,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Correlation, CorrelateError> {
    let reference = load_reference(&opts.reference).map_err(CorrelateError::Reference)?;
    let kernels = select_kernels(&reference, &opts.kernels)?;
    let scheds = select_scheds(&reference, &opts.scheds)?;
    let cfg =
        crate::config::load_config(&opts.config, &opts.sets).map_err(CorrelateError::Config)?;

    // Manifests load once per kernel; both schedulers share the result.
    // A kernel without figures for the compared schedulers is not loaded.
    let prepared: Vec<Option<Result<_, String>>> = kernels
        .iter()
        .map(|k| {
            scheds
                .iter()
                .any(|&s| k.figures(s).is_some())
                .then(|| prepare(&opts.root.join(&k.manifest), None).map_err(run_error_text))
        })
        .collect();
    // Perturbed pairs run when both schedulers are compared: each with
    // the machine plus its change (a change gpusim does not accept is a
    // configuration error, found before anything runs).
    let both = opts.perturbed && scheds.contains(&Sched::Lrr) && scheds.contains(&Sched::Gto);
    let mut perturbed_cfgs: Vec<Vec<crate::config::GpuConfig>> = Vec::new();
    for k in &kernels {
        let mut v = Vec::new();
        if both && both_compared(k, &scheds) {
            for p in &k.perturbed {
                let mut sets = opts.sets.clone();
                sets.extend(p.key_value());
                v.push(
                    crate::config::load_config(&opts.config, &sets)
                        .map_err(CorrelateError::Config)?,
                );
            }
        }
        perturbed_cfgs.push(v);
    }
    // (kernel, scheduler, perturbed run or `None` for the nominal run).
    let mut tasks: Vec<(usize, Sched, Option<usize>)> = Vec::new();
    for (i, k) in kernels.iter().enumerate() {
        for &s in &scheds {
            if k.figures(s).is_some() {
                tasks.push((i, s, None));
            }
        }
    }
    for (i, cfgs) in perturbed_cfgs.iter().enumerate() {
        for j in 0..cfgs.len() {
            for s in [Sched::Lrr, Sched::Gto] {
                tasks.push((i, s, Some(j)));
            }
        }
    }
    let total = tasks.len();
    let done = Mutex::new(0usize);
    let results = crate::report::repro::pool(opts.jobs.max(1), &tasks, |&(i, s, pert)| {
        let start = Instant::now();
        let machine = pert.map_or(&cfg, |j| &perturbed_cfgs[i][j]);
        let outcome = match prepared[i].as_ref().expect("loaded where there are tasks") {
            Err(e) => Err(e.clone()),
            Ok(p) => run_timed_with(p, &[], machine, &Policies::sched(s.name()), false)
                .map_err(run_error_text)
                .and_then(|r| {
                    if r.check.passed() {
                        Ok(Side::from_stats(&r.stats))
                    } else {
                        Err(format!("check failed: {}", r.check.to_string().trim_end()))
                    }
                }),
        };
        let k = kernels[i];
        let (reference_cycles, label) = match pert {
            None => (
                k.figures(s).expect("tasks only where figures exist").cycles,
                String::new(),
            ),
            Some(j) => {
                let p = &k.perturbed[j];
                let c = if s == Sched::Lrr { p.lrr } else { p.gto };
                (c, format!(" [{}]", p.set))
            }
        };
        let what = match &outcome {
            Ok(g) => format!(
                "{} cycles, GPGPU-Sim {reference_cycles} (ratio {:.3})",
                g.cycles,
                g.cycles as f64 / reference_cycles.max(1) as f64
            ),
            Err(e) => format!("ERROR {}", e.lines().next().unwrap_or("")),
        };
        let mut d = done.lock().expect("progress counter");
        *d += 1;
        progress(&format!(
            "[{:>2}/{total}] {} {}{label}: {what} ({:.1} s)",
            *d,
            k.name,
            s.name(),
            start.elapsed().as_secs_f64()
        ));
        outcome
    });
    let mut rows: Vec<Vec<Run>> = kernels.iter().map(|_| Vec::new()).collect();
    // Per kernel and perturbed pair: the lrr and gto outcomes.
    type Outcomes = [Option<Result<Side, String>>; 2];
    let mut pert_sides: Vec<Vec<Outcomes>> = perturbed_cfgs
        .iter()
        .map(|v| v.iter().map(|_| [None, None]).collect())
        .collect();
    for (&(i, s, pert), outcome) in tasks.iter().zip(results) {
        match pert {
            None => {
                let reference = kernels[i]
                    .figures(s)
                    .expect("tasks only where figures exist");
                rows[i].push(Run::new(s, reference, outcome));
            }
            Some(j) => pert_sides[i][j][usize::from(s == Sched::Gto)] = Some(outcome),
        }
    }
    let results = kernels
        .iter()
        .zip(rows)
        .zip(pert_sides)
        .map(|((k, runs), sides)| {
            let perturbed = k
                .perturbed
                .iter()
                .zip(sides)
                .map(|(p, [l, g])| {
                    let (l, g) = (l.expect("lrr ran"), g.expect("gto ran"));
                    let (gpusim, error) = match (l, g) {
                        (Ok(l), Ok(g)) => (Some([l.cycles, g.cycles]), None),
                        (Err(e), _) | (_, Err(e)) => (None, Some(e)),
                    };
                    PerturbedRun {
                        gpgpusim: p.gpgpusim.clone(),
                        set: p.set.clone(),
                        reference: [p.lrr, p.gto],
                        gpusim,
                        error,
                    }
                })
                .collect();
            KernelResult::new(&k.name, &k.manifest, &k.stresses, runs).with_perturbed(perturbed)
        })
        .collect();
    Ok(Correlation::new(
        &opts.reference.display().to_string(),
        reference.provenance.clone(),
        &opts.config,
        opts.sets.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        scheds,
        results,
    ))
}

/// True when `k` has figures for both schedulers and both are compared
/// (its perturbed pairs can run).
fn both_compared(k: &RefKernel, scheds: &[Sched]) -> bool {
    scheds.iter().filter(|&&s| k.figures(s).is_some()).count() == 2
}

/// The reference file and root to use when none is given: the default
/// file under the current directory when it exists there, else under the
/// source tree gpusim was built from.
pub fn default_location() -> (PathBuf, PathBuf) {
    let here = Path::new(DEFAULT_REFERENCE);
    if here.is_file() {
        (here.to_path_buf(), PathBuf::from("."))
    } else {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        (root.join(DEFAULT_REFERENCE), root)
    }
}
