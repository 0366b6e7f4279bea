//! Reproductions of the two latency-aware scheduling papers, which share
//! one shape — a suite of kernels run under a few policy setups on the
//! GTX480 machine, IPC normalized to round robin, and the paper's average
//! claims next to ours:
//!
//! * **LFWS** (Liu et al., IEICE Trans. Fundamentals 2023, §3): IPC of
//!   LRR, GTO, two-level, two-level-opt, LPI, LLOS and LFWS normalized to
//!   LRR (Fig. 4), each kernel's share of long operations (Table 2), and
//!   the §2.2 worked example (Fig. 1, [`fig1`]);
//! * **BLWS** (Vo, Luan, Kim, §6): IPC of RR, GTO, BLWS and BLWS with the
//!   `throttle` CTA policy normalized to RR (Figs. 3 and 4), with each
//!   kernel's DRAM-full plus interconnect-to-SM stalls per cycle, the
//!   contention measure the throttle reacts to.
//!
//! [`run`] runs every kernel of a [`Study`] under every [`Setup`] on its
//! preset and returns a [`Repro`], which renders the tables and serializes
//! to JSON. IPC is warp instructions per cycle of the whole GPU. Both
//! papers report plain averages ("an average IPC improvement of 10.60%"),
//! so the means here are arithmetic means over kernels of per-kernel IPC
//! ratios. Every run's functional check must pass; a failed run is an
//! `error` cell and every ratio needing it `n/a`. Runs are spread over
//! `jobs` threads and collected by position, so nothing depends on `jobs`.

use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;

use crate::config::GpuConfig;
use crate::report::repro::{
    ReproError, display_path, load_kernel, pool, quick_sets, run_error_text, select_kernels,
};
use crate::timing::host::{Policies, TimedRun, run_timed_with};
use crate::workload::runner::Prepared;

pub mod fig1;
pub mod studies;
mod tables;

pub use studies::{BLWS, LFWS};

/// SMs of the machine in `--quick` mode (every other field is the
/// study's preset's).
pub const QUICK_SMS: u32 = 4;

/// One kernel of a study.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// Name in the tables (the paper's abbreviation).
    pub name: &'static str,
    /// Manifest file name in the study's directory.
    pub file: &'static str,
    /// In the paper's long-operation-intensive subset (LFWS §3.2: BFS,
    /// BP, EPP, NN, NNEI, SAOP, SP).
    pub long_heavy: bool,
    /// The paper's figure for the kernel, if any (LFWS Table 2's
    /// percentage of long operations).
    pub paper_long_percent: Option<f64>,
    /// `--quick` sizes: workload argument overrides that fill
    /// [`QUICK_SMS`] SMs about the way the manifest fills 15.
    pub quick_args: &'static [(&'static str, &'static str)],
}

/// A policy setup: a column of the figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Setup {
    /// The paper's name.
    pub label: &'static str,
    /// `--sched`.
    pub sched: &'static str,
    /// `--cta`.
    pub cta: &'static str,
}

/// Which kernels a claim averages over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subset {
    /// Every kernel.
    All,
    /// [`Kernel::long_heavy`] ones.
    LongHeavy,
}

/// How a claim is computed from the cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Arithmetic mean over the subset of IPC(a) / IPC(b).
    Mean(Subset, &'static str, &'static str),
    /// The smallest IPC(a) / IPC(b) over every kernel.
    Min(&'static str, &'static str),
    /// The largest IPC(a) / IPC(b) over every kernel.
    Max(&'static str, &'static str),
    /// The mean of several `Mean(All, a, b)` (b over the list).
    MeanOver(&'static str, &'static [&'static str]),
}

/// One of a paper's claims: what, the paper's figure, how ours is
/// computed (setups by label).
#[derive(Clone, Copy, Debug)]
pub struct ClaimSpec {
    /// What is compared.
    pub what: &'static str,
    /// The paper's figure.
    pub paper: &'static str,
    /// How ours is computed.
    pub measure: Measure,
}

/// A paper's reproduction: kernels, setups and claims.
#[derive(Clone, Copy, Debug)]
pub struct Study {
    /// Short name (`lfws`, `blws`).
    pub name: &'static str,
    /// Title line.
    pub title: &'static str,
    /// Machine preset.
    pub config: &'static str,
    /// Manifests' directory, relative to the repository root.
    pub dir: &'static str,
    /// The kernels, in the paper's order.
    pub kernels: &'static [Kernel],
    /// The setups; the first is the normalization.
    pub setups: &'static [Setup],
    /// The claims.
    pub claims: &'static [ClaimSpec],
}

impl Study {
    /// The setup labelled `label`.
    pub fn setup(&self, label: &str) -> Option<Setup> {
        self.setups.iter().copied().find(|s| s.label == label)
    }
}

pub use crate::report::repro::Options;

/// One successful run (a cell of the tables).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellRun {
    /// Cycles (summed over the workload's launches).
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Warp IPC: `warp_insts / cycles`.
    pub ipc: f64,
    /// Long operations issued (LFWS Table 2's numerator).
    pub long_ops: u64,
    /// L2-slice cycles lookups waited on a full DRAM queue.
    pub dram_full: u64,
    /// L2-slice cycles replies waited for the interconnect to the SMs.
    pub icnt_to_sm: u64,
}

/// One kernel × setup cell: a run, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The setup's label.
    pub setup: String,
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
    /// In the long-operation-intensive subset.
    pub long_heavy: bool,
    /// The paper's long-operation percentage, if it gives one.
    pub paper_long_percent: Option<f64>,
    /// Workload argument overrides of the runs (`--quick` sizes).
    pub args: Vec<(String, String)>,
    /// One cell per setup, in the study's order.
    pub cells: Vec<Cell>,
}

impl KernelResult {
    /// The successful run of the setup labelled `label`, if any.
    pub fn run(&self, label: &str) -> Option<&CellRun> {
        self.cells
            .iter()
            .find(|c| c.setup == label)
            .and_then(|c| c.run.as_ref())
    }

    /// IPC under `a` over IPC under `b`.
    pub fn ratio(&self, a: &str, b: &str) -> Option<f64> {
        let b = self.run(b)?.ipc;
        let a = self.run(a)?.ipc;
        (b > 0.0).then(|| a / b)
    }
}

/// One of the paper's claims next to ours.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Claim {
    /// What is compared.
    pub what: String,
    /// The paper's figure.
    pub paper: String,
    /// Ours, as a ratio (`None`: a needed cell failed).
    pub ours: Option<f64>,
    /// How `ours` reads: `speedup` (a mean ratio, shown as ±%) or `ratio`
    /// (one kernel's ratio).
    pub unit: String,
}

/// A study's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Repro {
    /// [`Study::name`].
    pub study: String,
    /// Machine preset.
    pub config: String,
    /// SMs of the machine.
    pub sms: u32,
    /// `--quick` sizes.
    pub quick: bool,
    /// Setup labels, in column order (the first is the normalization).
    pub setups: Vec<Setup>,
    /// Per kernel, in the study's order.
    pub kernels: Vec<KernelResult>,
    /// The claims (filled by [`run`]).
    pub claims: Vec<Claim>,
    /// LFWS only: the worked example of Fig. 1 under the paper's four
    /// policies and the rest of the comparison set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fig1: Vec<fig1::Fig1Run>,
    /// LFWS only: the paper's four policies on the cycle-level pipeline
    /// ([`fig1::run_pipeline`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fig1_pipeline: Vec<fig1::Fig1Run>,
    /// Pipeline runs of the example that failed: policy and error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fig1_errors: Vec<(String, String)>,
}

/// Arithmetic mean; `None` for an empty list.
pub fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

impl Repro {
    /// Every failed cell: kernel, setup label, message (the worked
    /// example's pipeline runs as kernel `Fig. 1`).
    pub fn errors(&self) -> Vec<(&str, &str, &str)> {
        let mut v: Vec<(&str, &str, &str)> = self
            .fig1_errors
            .iter()
            .map(|(p, e)| ("Fig. 1", p.as_str(), e.as_str()))
            .collect();
        for k in &self.kernels {
            for c in &k.cells {
                if let Some(e) = &c.error {
                    v.push((k.name.as_str(), c.setup.as_str(), e.as_str()));
                }
            }
        }
        v
    }

    /// Per-kernel IPC(a) / IPC(b) over `subset`; `None` if a cell is
    /// missing.
    pub fn ratios(&self, subset: Subset, a: &str, b: &str) -> Option<Vec<f64>> {
        self.kernels
            .iter()
            .filter(|k| subset == Subset::All || k.long_heavy)
            .map(|k| k.ratio(a, b))
            .collect()
    }

    /// The arithmetic mean of [`Repro::ratios`].
    pub fn mean_ratio(&self, subset: Subset, a: &str, b: &str) -> Option<f64> {
        mean(&self.ratios(subset, a, b)?)
    }

    /// Evaluates one claim.
    pub fn measure(&self, m: Measure) -> Option<f64> {
        match m {
            Measure::Mean(s, a, b) => self.mean_ratio(s, a, b),
            Measure::Min(a, b) => self.ratios(Subset::All, a, b)?.into_iter().reduce(f64::min),
            Measure::Max(a, b) => self.ratios(Subset::All, a, b)?.into_iter().reduce(f64::max),
            Measure::MeanOver(a, bs) => {
                let xs: Option<Vec<f64>> = bs
                    .iter()
                    .map(|b| self.mean_ratio(Subset::All, a, b))
                    .collect();
                mean(&xs?)
            }
        }
    }
}

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
        long_ops: s.total.long_ops,
        dram_full: s.mem.dram_full,
        icnt_to_sm: s.mem.reply_full,
    })
}

/// A kernel selected to run, with its manifest loaded.
struct Job {
    kernel: Kernel,
    prepared: Prepared,
    args: Vec<(String, String)>,
}

/// Runs `study`: every selected kernel under every setup. `progress` is
/// called with one line per finished cell (results never depend on it).
/// Errors only when it cannot start (configuration, a manifest, an
/// unknown kernel name); a failed run is a failed cell of the result.
pub fn run(
    study: &Study,
    opts: &Options,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Repro, ReproError> {
    let kernels = select_kernels(study.kernels, &opts.only, |k| (k.name, k.file))?;
    let base = quick_sets(opts.quick, QUICK_SMS);
    let cfg: GpuConfig =
        crate::config::load_config(study.config, &base).map_err(ReproError::Config)?;
    let mut jobs_list = Vec::new();
    for k in kernels {
        let (prepared, args) = load_kernel(&opts.dir, k.file, opts.quick, k.quick_args)?;
        jobs_list.push(Job {
            kernel: k,
            prepared,
            args,
        });
    }
    let tasks: Vec<(usize, Setup)> = (0..jobs_list.len())
        .flat_map(|i| study.setups.iter().map(move |&s| (i, s)))
        .collect();
    let total = tasks.len();
    let done = Mutex::new(0usize);
    let results = pool(opts.jobs.max(1), &tasks, |&(i, s)| {
        let t = Instant::now();
        let job = &jobs_list[i];
        let policies = Policies {
            cta: s.cta.to_string(),
            ..Policies::sched(s.sched)
        };
        let r = run_timed_with(&job.prepared, &job.args, &cfg, &policies, false)
            .map_err(run_error_text)
            .and_then(|r| cell_run(&r));
        let mut d = done.lock().expect("progress counter");
        *d += 1;
        let what = match &r {
            Ok(c) => format!("{} cycles", c.cycles),
            Err(e) => format!("ERROR {}", e.lines().next().unwrap_or("")),
        };
        progress(&format!(
            "[{:>3}/{total}] {:<6} {:<15} {what} ({:.1} s)",
            *d,
            job.kernel.name,
            s.label,
            t.elapsed().as_secs_f64()
        ));
        r
    });
    let mut rows: Vec<Vec<Cell>> = jobs_list.iter().map(|_| Vec::new()).collect();
    for (&(i, setup), r) in tasks.iter().zip(results) {
        let (run, error) = match r {
            Ok(run) => (Some(run), None),
            Err(e) => (None, Some(e)),
        };
        rows[i].push(Cell {
            setup: setup.label.to_string(),
            run,
            error,
        });
    }
    let kernels = jobs_list
        .iter()
        .zip(rows)
        .map(|(job, cells)| KernelResult {
            name: job.kernel.name.to_string(),
            manifest: display_path(&opts.dir.join(job.kernel.file)),
            long_heavy: job.kernel.long_heavy,
            paper_long_percent: job.kernel.paper_long_percent,
            args: job.args.clone(),
            cells,
        })
        .collect();
    let mut repro = Repro {
        study: study.name.to_string(),
        config: study.config.to_string(),
        sms: cfg.core.num_sms,
        quick: opts.quick,
        setups: study.setups.to_vec(),
        kernels,
        claims: Vec::new(),
        fig1: Vec::new(),
        fig1_pipeline: Vec::new(),
        fig1_errors: Vec::new(),
    };
    repro.claims = study
        .claims
        .iter()
        .map(|c| Claim {
            what: c.what.to_string(),
            paper: c.paper.to_string(),
            ours: repro.measure(c.measure),
            unit: match c.measure {
                Measure::Min(..) | Measure::Max(..) => "ratio",
                _ => "speedup",
            }
            .to_string(),
        })
        .collect();
    if study.name == "lfws" {
        repro.fig1 = fig1::run_all().map_err(ReproError::Config)?;
        let manifest = opts.dir.join("fig1.toml");
        for name in fig1::PIPELINE_POLICIES {
            let paper = fig1::POLICIES
                .iter()
                .find(|p| p.0 == name)
                .and_then(|p| p.1);
            match fig1::run_pipeline(&manifest, name, paper) {
                Ok(r) => repro.fig1_pipeline.push(r),
                Err(e) => repro.fig1_errors.push((name.to_string(), e)),
            }
        }
    }
    Ok(repro)
}
