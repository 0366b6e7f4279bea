//! Reproduction of the BAWS paper's evaluation (Liu, Zhang, Eeckhout et
//! al., "Barrier-Aware Warp Scheduling for Throughput Processors", ICS
//! 2016, §6):
//!
//! * **Fig. 8** [6.1]: IPC of LRR, GTO, two-level (TLS), MWF(LRR),
//!   MWF(GTO), MWF(LRR)+CFF and BAWS (= MWF(GTO)+CFF) normalized to LRR on
//!   the barrier-intensive kernels, with their harmonic mean (the paper:
//!   BAWS +16.9% over LRR, GTO +8.4%);
//! * **Fig. 9** [6.2]: fetch policy LRR vs FEF vs CFF under MWF(GTO),
//!   normalized to LRR issue (the paper: CFF +17%, FEF +11%);
//! * **Fig. 10** [6.3]: stall cycles by category under LRR, GTO, MWF(LRR)
//!   and MWF(LRR)+CFF, normalized to LRR's stall cycles;
//! * **§6.4**: the I-buffer doubled from 2 to 4 entries under GTO against
//!   CFF under GTO (the paper: +0.3% and +1.7%);
//! * **Fig. 11** [6.5]: GTO and BAWS on non-barrier-intensive kernels,
//!   normalized to LRR (the paper: BAWS neutral against GTO, +4–6% over
//!   LRR), and **Fig. 14**'s SAWS on them;
//! * **Fig. 12** [6.6]: BAWS, SAWS and SAWS+CFF normalized to GTO (the
//!   paper: BAWS +7% over SAWS).
//!
//! [`run`] runs every kernel of [`KERNELS`] (manifests in `repro/baws/`)
//! under every [`Setup`] its class needs on the `baws` preset (the paper's
//! §5 machine) and returns a [`Repro`], which renders the tables and
//! serializes to JSON. IPC is warp instructions per cycle of the whole GPU;
//! means are harmonic, as in the paper. Every run's functional check must
//! pass; a failed run is an `error` cell and every ratio needing it `n/a`.
//! Runs are spread over `jobs` threads and collected by position, so
//! nothing depends on `jobs`.

use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;

use crate::config::GpuConfig;
use crate::report::repro::{
    ReproError, display_path, harmonic_mean, load_kernel, pool, quick_sets, run_error_text,
    select_kernels,
};
use crate::timing::barrier_stats::BarrierStats;
use crate::timing::host::{Policies, TimedRun, run_timed_with};
use crate::timing::stats::StallCounts;
use crate::workload::runner::Prepared;

mod tables;

pub use tables::{NORMALIZED_TABLES, NormalizedTable};

/// The machine: the `baws` preset (BAWS §5).
pub const CONFIG: &str = "baws";

/// SMs of the machine in `--quick` mode (`core.num_sms`; every other field
/// is the `baws` preset's).
pub const QUICK_SMS: u32 = 4;

/// The kernels' manifests, relative to the repository root.
pub const DEFAULT_DIR: &str = "repro/baws";

/// The group a kernel belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Barrier-intensive [BAWS Table 2]: Figs. 8, 9, 10, 12 and §6.4.
    Barrier,
    /// Non-barrier-intensive [BAWS 6.5]: Figs. 11 and 14.
    NonBarrier,
}

impl Class {
    /// Short label for the tables (`BI`, `NB`).
    pub fn label(self) -> &'static str {
        match self {
            Class::Barrier => "BI",
            Class::NonBarrier => "NB",
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
    /// [`QUICK_SMS`] SMs about the way the manifest fills 15.
    pub quick_args: &'static [(&'static str, &'static str)],
}

/// The kernels, barrier-intensive first in the paper's Table 2 order,
/// then the non-barrier-intensive ones (Rodinia, as in §6.5).
pub const KERNELS: [Kernel; 20] = [
    Kernel {
        name: "SP",
        file: "sp.toml",
        class: Class::Barrier,
        quick_args: &[("vectors", "24")],
    },
    Kernel {
        name: "MS",
        file: "ms.toml",
        class: Class::Barrier,
        quick_args: &[("keys", "24576")],
    },
    Kernel {
        name: "FWT",
        file: "fwt.toml",
        class: Class::Barrier,
        quick_args: &[("log2_data", "14")],
    },
    Kernel {
        name: "MM",
        file: "mm.toml",
        class: Class::Barrier,
        quick_args: &[("n", "112")],
    },
    Kernel {
        name: "STN",
        file: "stn.toml",
        class: Class::Barrier,
        quick_args: &[("width", "128"), ("height", "128")],
    },
    Kernel {
        name: "OCTP",
        file: "octp.toml",
        class: Class::Barrier,
        quick_args: &[("particles", "8192")],
    },
    Kernel {
        name: "BT",
        file: "bt.toml",
        class: Class::Barrier,
        quick_args: &[("queries", "80")],
    },
    Kernel {
        name: "PVC",
        file: "pvc.toml",
        class: Class::Barrier,
        quick_args: &[("entries", "24576")],
    },
    Kernel {
        name: "PVR",
        file: "pvr.toml",
        class: Class::Barrier,
        quick_args: &[("urls", "24576")],
    },
    Kernel {
        name: "SS",
        file: "ss.toml",
        class: Class::Barrier,
        quick_args: &[("docs", "80")],
    },
    Kernel {
        name: "MG",
        file: "mg.toml",
        class: Class::Barrier,
        quick_args: &[("size", "96"), ("samples", "2304")],
    },
    Kernel {
        name: "HISTO",
        file: "histo.toml",
        class: Class::Barrier,
        quick_args: &[("bytes", "737280")],
    },
    Kernel {
        name: "SRAD2",
        file: "srad2.toml",
        class: Class::Barrier,
        quick_args: &[("rows", "96"), ("cols", "96")],
    },
    Kernel {
        name: "BP",
        file: "bp.toml",
        class: Class::NonBarrier,
        quick_args: &[("in", "2048")],
    },
    Kernel {
        name: "BFS",
        file: "bfs.toml",
        class: Class::NonBarrier,
        quick_args: &[("nodes", "8192")],
    },
    Kernel {
        name: "GAU",
        file: "gau.toml",
        class: Class::NonBarrier,
        quick_args: &[("size", "48")],
    },
    Kernel {
        name: "HS",
        file: "hs.toml",
        class: Class::NonBarrier,
        quick_args: &[("size", "96")],
    },
    Kernel {
        name: "KMN",
        file: "kmn.toml",
        class: Class::NonBarrier,
        quick_args: &[("points", "8192")],
    },
    Kernel {
        name: "NW",
        file: "nw.toml",
        class: Class::NonBarrier,
        quick_args: &[("n", "256")],
    },
    Kernel {
        name: "PF",
        file: "pf.toml",
        class: Class::NonBarrier,
        quick_args: &[("cols", "2048")],
    },
];

/// A policy configuration of the paper's figures: issue policy, fetch
/// policy and I-buffer size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Setup {
    /// `lrr`: the normalization of Figs. 8, 9, 11.
    Lrr,
    /// `gto`: the normalization of Fig. 12 and §6.4.
    Gto,
    /// `two-level` (the paper's TLS).
    Tls,
    /// `mwf-lrr`.
    MwfLrr,
    /// `mwf-gto`.
    MwfGto,
    /// `mwf-lrr --fetch cff`.
    MwfLrrCff,
    /// `baws` (`mwf-gto --fetch cff`).
    Baws,
    /// `mwf-gto --fetch fef` (Fig. 9).
    MwfGtoFef,
    /// `gto --fetch cff` (§6.4).
    GtoCff,
    /// `gto` with `core.ibuffer_entries = 4` (§6.4).
    GtoIbuf4,
    /// `saws` (Fig. 12).
    Saws,
    /// `saws --fetch cff` (Fig. 12).
    SawsCff,
}

impl Setup {
    /// Every setup, in the order of the tables.
    pub const ALL: [Setup; 12] = [
        Setup::Lrr,
        Setup::Gto,
        Setup::Tls,
        Setup::MwfLrr,
        Setup::MwfGto,
        Setup::MwfLrrCff,
        Setup::Baws,
        Setup::MwfGtoFef,
        Setup::GtoCff,
        Setup::GtoIbuf4,
        Setup::Saws,
        Setup::SawsCff,
    ];

    /// The setups a non-barrier-intensive kernel runs (Figs. 11 and 14).
    pub const NON_BARRIER: [Setup; 4] = [Setup::Lrr, Setup::Gto, Setup::Baws, Setup::Saws];

    /// The paper's name.
    pub fn label(self) -> &'static str {
        match self {
            Setup::Lrr => "LRR",
            Setup::Gto => "GTO",
            Setup::Tls => "TLS",
            Setup::MwfLrr => "MWF(LRR)",
            Setup::MwfGto => "MWF(GTO)",
            Setup::MwfLrrCff => "MWF(LRR)+CFF",
            Setup::Baws => "BAWS",
            Setup::MwfGtoFef => "MWF(GTO)+FEF",
            Setup::GtoCff => "GTO+CFF",
            Setup::GtoIbuf4 => "GTO ibuf4",
            Setup::Saws => "SAWS",
            Setup::SawsCff => "SAWS+CFF",
        }
    }

    /// The `--sched`, `--fetch` and extra `--set` of the run.
    pub fn policies(
        self,
    ) -> (
        &'static str,
        &'static str,
        Option<(&'static str, &'static str)>,
    ) {
        match self {
            Setup::Lrr => ("lrr", "lrr", None),
            Setup::Gto => ("gto", "lrr", None),
            Setup::Tls => ("two-level", "lrr", None),
            Setup::MwfLrr => ("mwf-lrr", "lrr", None),
            Setup::MwfGto => ("mwf-gto", "lrr", None),
            Setup::MwfLrrCff => ("mwf-lrr", "cff", None),
            Setup::Baws => ("baws", "cff", None),
            Setup::MwfGtoFef => ("mwf-gto", "fef", None),
            Setup::GtoCff => ("gto", "cff", None),
            Setup::GtoIbuf4 => ("gto", "lrr", Some(("core.ibuffer_entries", "4"))),
            Setup::Saws => ("saws", "lrr", None),
            Setup::SawsCff => ("saws", "cff", None),
        }
    }

    /// The setup runs on kernels of `class`.
    pub fn runs_on(self, class: Class) -> bool {
        class == Class::Barrier || Setup::NON_BARRIER.contains(&self)
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
    /// Scheduler-cycles by state (`schedulers × cycles` in all).
    pub stalls: StallCounts,
    /// The barrier-phase statistics (RTRU, barrier intensity).
    pub barriers: BarrierStats,
}

/// One kernel × setup cell: a run, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The setup.
    pub setup: Setup,
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
    /// Workload argument overrides of the runs (`--quick` sizes).
    pub args: Vec<(String, String)>,
    /// The cells it ran, in [`Setup::ALL`] order.
    pub cells: Vec<Cell>,
}

impl KernelResult {
    /// The successful run of `s`, if any.
    pub fn run(&self, s: Setup) -> Option<&CellRun> {
        self.cells
            .iter()
            .find(|c| c.setup == s)
            .and_then(|c| c.run.as_ref())
    }

    /// IPC under `s` over IPC under `base`.
    pub fn normalized_ipc(&self, s: Setup, base: Setup) -> Option<f64> {
        let b = self.run(base)?.ipc;
        let x = self.run(s)?.ipc;
        (b > 0.0).then(|| x / b)
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
    /// Per kernel, in [`KERNELS`] order.
    pub kernels: Vec<KernelResult>,
}

/// One of the paper's claims next to what the reproduction measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Claim {
    /// What is compared.
    pub what: String,
    /// The paper's figure.
    pub paper: String,
    /// Ours (`None`: a needed cell failed).
    pub ours: Option<f64>,
    /// How `ours` reads (`speedup`: a ratio shown as ±%; `min`: the
    /// smallest ratio over the kernels).
    pub unit: String,
}

impl Repro {
    /// Every failed cell: kernel, setup, message.
    pub fn errors(&self) -> Vec<(&str, Setup, &str)> {
        let mut v = Vec::new();
        for k in &self.kernels {
            for c in &k.cells {
                if let Some(e) = &c.error {
                    v.push((k.name.as_str(), c.setup, e.as_str()));
                }
            }
        }
        v
    }

    /// Harmonic mean over the kernels of `class` of IPC under `s`
    /// normalized to `base`; `None` when no kernel of the class ran or a
    /// needed cell failed.
    pub fn harmonic_mean(&self, class: Class, s: Setup, base: Setup) -> Option<f64> {
        let xs: Option<Vec<f64>> = self
            .kernels
            .iter()
            .filter(|k| k.class == class)
            .map(|k| k.normalized_ipc(s, base))
            .collect();
        harmonic_mean(&xs?)
    }

    /// The smallest ratio of IPC under `s` to IPC under `base` over the
    /// kernels of `class`.
    pub fn min_ratio(&self, class: Class, s: Setup, base: Setup) -> Option<f64> {
        let xs: Option<Vec<f64>> = self
            .kernels
            .iter()
            .filter(|k| k.class == class)
            .map(|k| k.normalized_ipc(s, base))
            .collect();
        xs?.into_iter().reduce(f64::min)
    }

    /// The paper's headline claims [BAWS abstract, 6.1–6.6] with ours.
    pub fn claims(&self) -> Vec<Claim> {
        let bi = Class::Barrier;
        let nb = Class::NonBarrier;
        let c = |what: &str, paper: &str, ours: Option<f64>, unit: &str| Claim {
            what: what.to_string(),
            paper: paper.to_string(),
            ours,
            unit: unit.to_string(),
        };
        vec![
            c(
                "BAWS over LRR, barrier-intensive (Fig. 8)",
                "+16.9% (abstract: +17%)",
                self.harmonic_mean(bi, Setup::Baws, Setup::Lrr),
                "speedup",
            ),
            c(
                "GTO over LRR, barrier-intensive (Fig. 8)",
                "+8.4%",
                self.harmonic_mean(bi, Setup::Gto, Setup::Lrr),
                "speedup",
            ),
            c(
                "BAWS over GTO, barrier-intensive (Fig. 12)",
                "+8.5% (abstract: +9%)",
                self.harmonic_mean(bi, Setup::Baws, Setup::Gto),
                "speedup",
            ),
            c(
                "BAWS over SAWS, barrier-intensive (Fig. 12)",
                "+7%",
                self.harmonic_mean(bi, Setup::Baws, Setup::Saws),
                "speedup",
            ),
            c(
                "MWF(GTO) without CFF over LRR (Fig. 8)",
                "+9.8%",
                self.harmonic_mean(bi, Setup::MwfGto, Setup::Lrr),
                "speedup",
            ),
            c(
                "MWF(GTO)+FEF over LRR (Fig. 9)",
                "+11%",
                self.harmonic_mean(bi, Setup::MwfGtoFef, Setup::Lrr),
                "speedup",
            ),
            c(
                "GTO+CFF over GTO (6.4)",
                "+1.7%",
                self.harmonic_mean(bi, Setup::GtoCff, Setup::Gto),
                "speedup",
            ),
            c(
                "GTO with a 4-entry I-buffer over GTO (6.4)",
                "+0.3%",
                self.harmonic_mean(bi, Setup::GtoIbuf4, Setup::Gto),
                "speedup",
            ),
            c(
                "BAWS never below LRR: worst kernel (Fig. 8)",
                "≥ 1.000",
                self.min_ratio(bi, Setup::Baws, Setup::Lrr),
                "min",
            ),
            c(
                "BAWS over GTO, non-barrier-intensive (Fig. 11)",
                "neutral (±0%)",
                self.harmonic_mean(nb, Setup::Baws, Setup::Gto),
                "speedup",
            ),
            c(
                "BAWS over LRR, non-barrier-intensive (Fig. 11)",
                "+5.7% (abstract: +4%)",
                self.harmonic_mean(nb, Setup::Baws, Setup::Lrr),
                "speedup",
            ),
        ]
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
        stalls: s.stalls,
        barriers: s.barriers,
    })
}

/// A kernel selected to run, with its manifest loaded.
struct Job {
    kernel: Kernel,
    prepared: Prepared,
    args: Vec<(String, String)>,
}

fn run_cell(job: &Job, base: &[(String, String)], s: Setup) -> Result<CellRun, String> {
    let (sched, fetch, set) = s.policies();
    let mut sets = base.to_vec();
    if let Some((k, v)) = set {
        sets.push((k.to_string(), v.to_string()));
    }
    let cfg: GpuConfig = crate::config::load_config(CONFIG, &sets).map_err(|d| d.render(false))?;
    let policies = Policies {
        fetch: fetch.to_string(),
        ..Policies::sched(sched)
    };
    let r =
        run_timed_with(&job.prepared, &job.args, &cfg, &policies, false).map_err(run_error_text)?;
    cell_run(&r)
}

/// Runs the reproduction: every selected kernel under every setup its
/// class needs. `progress` is called with one line per finished cell (for
/// a status display; results never depend on it). Errors only when it
/// cannot start (configuration, a manifest, an unknown kernel name); a
/// failed run is a failed cell of the result.
pub fn run(opts: &Options, progress: &(dyn Fn(&str) + Sync)) -> Result<Repro, ReproError> {
    let kernels = select_kernels(&KERNELS, &opts.only, |k| (k.name, k.file))?;
    let base = quick_sets(opts.quick, QUICK_SMS);
    let cfg = crate::config::load_config(CONFIG, &base).map_err(ReproError::Config)?;
    let mut jobs_list = Vec::new();
    for k in kernels {
        let (prepared, args) = load_kernel(&opts.dir, k.file, opts.quick, k.quick_args)?;
        jobs_list.push(Job {
            kernel: k,
            prepared,
            args,
        });
    }
    let tasks: Vec<(usize, Setup)> = jobs_list
        .iter()
        .enumerate()
        .flat_map(|(i, j)| {
            Setup::ALL
                .into_iter()
                .filter(move |s| s.runs_on(j.kernel.class))
                .map(move |s| (i, s))
        })
        .collect();
    let total = tasks.len();
    let done = Mutex::new(0usize);
    let results = pool(opts.jobs.max(1), &tasks, |&(i, s)| {
        let t = Instant::now();
        let job = &jobs_list[i];
        let r = run_cell(job, &base, s);
        let mut d = done.lock().expect("progress counter");
        *d += 1;
        let what = match &r {
            Ok(c) => format!("{} cycles", c.cycles),
            Err(e) => format!("ERROR {}", e.lines().next().unwrap_or("")),
        };
        progress(&format!(
            "[{:>3}/{total}] {:<6} {:<13} {what} ({:.1} s)",
            *d,
            job.kernel.name,
            s.label(),
            t.elapsed().as_secs_f64()
        ));
        r
    });
    let mut rows: Vec<Vec<Cell>> = jobs_list.iter().map(|_| Vec::new()).collect();
    for (&(i, setup), r) in tasks.iter().zip(results) {
        rows[i].push(match r {
            Ok(run) => Cell {
                setup,
                run: Some(run),
                error: None,
            },
            Err(e) => Cell {
                setup,
                run: None,
                error: Some(e),
            },
        });
    }
    let kernels = jobs_list
        .iter()
        .zip(rows)
        .map(|(job, cells)| KernelResult {
            name: job.kernel.name.to_string(),
            manifest: display_path(&opts.dir.join(job.kernel.file)),
            class: job.kernel.class,
            args: job.args.clone(),
            cells,
        })
        .collect();
    Ok(Repro {
        config: CONFIG.to_string(),
        sms: cfg.core.num_sms,
        quick: opts.quick,
        kernels,
    })
}
