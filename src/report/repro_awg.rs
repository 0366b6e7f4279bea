//! `gpusim repro awg`: the AWG paper's evaluation (Duţu et al.,
//! "Independent Forward Progress of Work-groups", ISCA 2020, §IV and §VI)
//! on the `awg` preset, over the HeteroSync primitives and the paper's
//! decentralized ticket lock, hash table and bank account:
//!
//! * Fig. 7: exponential backoff with sleep (`sleep:X000`), runtime
//!   normalized to the busy-waiting baseline;
//! * Fig. 8: the fixed timeout interval (`timeout:T`), likewise;
//! * Fig. 9: wait efficiency, waiting instructions per acquire of the
//!   monitor policies (1 = every waiter succeeds at its first try after a
//!   resume, what the paper's oracular MinResume achieves);
//! * Fig. 14: speedup over the baseline without oversubscription;
//! * Fig. 15: speedup over Timeout when the GPU is full and loses a CU
//!   early in the run (its WGs are context-switched out); the baseline's
//!   deadlocks are reported as such.

use serde::Serialize;

use crate::config::GpuConfig;
use crate::report::repro::{
    Options, ReproError, display_path, pool, run_error_text, select_kernels,
};
use crate::sync::policy::SyncPolicy;
use crate::timing::{Policies, run_timed_with};
use crate::workload::runner::prepare;

/// Where the kernels are, relative to the repository.
pub const DEFAULT_DIR: &str = "kernels/sync";

/// The kernels: the paper's abbreviation (Table 2; the last four are the
/// ticket lock of Fig. 10 and the hash table and bank account of Table 2's
/// caption) and the manifest stem.
pub const KERNELS: &[(&str, &str)] = &[
    ("SPM_G", "spin_mutex_global"),
    ("SPMBO_G", "spin_mutex_ebo_global"),
    ("FAM_G", "fa_mutex_global"),
    ("SLM_G", "sleep_mutex_global"),
    ("TB_LG", "atomic_tree_barrier_uniq"),
    ("LFTB_LG", "lf_tree_barrier_uniq"),
    ("SPM_L", "spin_mutex_local"),
    ("SPMBO_L", "spin_mutex_ebo_local"),
    ("FAM_L", "fa_mutex_local"),
    ("SLM_L", "sleep_mutex_local"),
    ("TBEX_LG", "atomic_tree_barrier_uniq_local_exch"),
    ("LFTBEX_LG", "lf_tree_barrier_uniq_local_exch"),
    ("DTL", "ticket_lock_cmpwait"),
    ("DTL_W", "ticket_lock_wait"),
    ("HT", "hash_table"),
    ("BA", "bank_account"),
];

/// The cycle at which the oversubscribed runs lose their last CU: early
/// in runs of 10–60 thousand cycles (the paper removes a CU after 50 µs of
/// runs much longer than ours).
pub const REMOVE_AT: u64 = 5_000;

/// The monitor policies of Figs. 9, 14 and 15.
const MONITORS: &[&str] = &["monrs-all", "monr-all", "monnr-all", "monnr-one", "awg"];

/// Sleep maxima of Fig. 7 (cycles).
fn sleeps(quick: bool) -> Vec<u64> {
    if quick {
        vec![1_000, 4_000, 16_000]
    } else {
        vec![1_000, 2_000, 4_000, 8_000, 16_000]
    }
}

/// Timeout intervals of Fig. 8 (cycles).
fn timeouts(quick: bool) -> Vec<u64> {
    if quick {
        vec![1_000, 10_000]
    } else {
        vec![1_000, 2_000, 5_000, 10_000, 50_000]
    }
}

/// The Sleep and Timeout settings Fig. 14 and Fig. 15 use.
const SLEEP_14: &str = "sleep:4000";
/// The Timeout setting of Figs. 14 and 15 (Fig. 15's normalization).
pub const TIMEOUT_14: &str = "timeout:10000";

/// One run's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// The policy (`--sync`).
    pub policy: String,
    /// Run with the GPU full and a CU removed at [`REMOVE_AT`].
    pub oversubscribed: bool,
    /// Cycles (when it finished and its check passed).
    pub cycles: Option<u64>,
    /// Waiting instructions per acquire.
    pub waits_per_acquire: Option<f64>,
    /// Context switches out.
    pub switches: u64,
    /// It ended in a `deadlock` error.
    pub deadlock: bool,
    /// Any other failure.
    pub error: Option<String>,
}

/// One kernel's cells.
#[derive(Clone, Debug, Serialize)]
pub struct KernelResult {
    /// Abbreviation.
    pub name: String,
    /// Manifest.
    pub manifest: String,
    /// Every cell.
    pub cells: Vec<Cell>,
}

impl KernelResult {
    /// The cell of `policy`, oversubscribed or not.
    pub fn cell(&self, policy: &str, over: bool) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.policy == policy && c.oversubscribed == over)
    }

    /// Its cycles, when it finished and passed.
    pub fn cycles(&self, policy: &str, over: bool) -> Option<u64> {
        self.cell(policy, over).and_then(|c| c.cycles)
    }
}

/// The whole reproduction.
#[derive(Clone, Debug, Serialize)]
pub struct Repro {
    /// Per kernel.
    pub kernels: Vec<KernelResult>,
    /// Fig. 7's sleep maxima.
    pub sleeps: Vec<u64>,
    /// Fig. 8's timeouts.
    pub timeouts: Vec<u64>,
}

/// The runs of one kernel: (policy, oversubscribed).
fn setups(quick: bool) -> Vec<(String, bool)> {
    let mut v = vec![("busy".to_string(), false)];
    v.extend(sleeps(quick).iter().map(|s| (format!("sleep:{s}"), false)));
    v.extend(
        timeouts(quick)
            .iter()
            .map(|t| (format!("timeout:{t}"), false)),
    );
    v.extend(MONITORS.iter().map(|m| (m.to_string(), false)));
    if !v.iter().any(|(p, _)| p == SLEEP_14) {
        v.push((SLEEP_14.to_string(), false));
    }
    if !v.iter().any(|(p, _)| p == TIMEOUT_14) {
        v.push((TIMEOUT_14.to_string(), false));
    }
    for p in ["busy", TIMEOUT_14].iter().chain(MONITORS) {
        v.push((p.to_string(), true));
    }
    v
}

/// Runs the reproduction; `progress` gets one line per finished kernel.
pub fn run(opts: &Options, progress: &(dyn Fn(&str) + Sync)) -> Result<Repro, ReproError> {
    let chosen = select_kernels(KERNELS, &opts.only, |&(n, s)| (n, s))?;
    let base = GpuConfig::preset("awg").expect("the awg preset");
    let mut prepared = Vec::new();
    for (name, stem) in &chosen {
        let file = opts.dir.join(format!("{stem}.toml"));
        let p = prepare(&file, None).map_err(|error| ReproError::Manifest {
            file: file.clone(),
            error,
        })?;
        prepared.push((name.to_string(), file, p));
    }
    let setups = setups(opts.quick);
    let jobs: Vec<(usize, usize)> = (0..prepared.len())
        .flat_map(|k| (0..setups.len()).map(move |s| (k, s)))
        .collect();
    let done = std::sync::Mutex::new(0usize);
    let cells = pool(opts.jobs, &jobs, |&(k, s)| {
        let (name, _, p) = &prepared[k];
        let (policy, over) = &setups[s];
        let cell = run_cell(p, &base, policy, *over);
        let mut d = done.lock().expect("progress");
        *d += 1;
        progress(&format!(
            "[{}/{}] {name} {policy}{}",
            *d,
            jobs.len(),
            if *over { " (oversubscribed)" } else { "" }
        ));
        cell
    });
    let mut kernels: Vec<KernelResult> = prepared
        .iter()
        .map(|(name, file, _)| KernelResult {
            name: name.clone(),
            manifest: display_path(file),
            cells: Vec::new(),
        })
        .collect();
    for (&(k, _), c) in jobs.iter().zip(cells) {
        kernels[k].cells.push(c);
    }
    Ok(Repro {
        kernels,
        sleeps: sleeps(opts.quick),
        timeouts: timeouts(opts.quick),
    })
}

fn run_cell(
    p: &crate::workload::runner::Prepared,
    base: &GpuConfig,
    policy: &str,
    over: bool,
) -> Cell {
    let sync = SyncPolicy::parse(policy).expect("a known policy");
    let mut cfg = base.clone();
    if over {
        // Full: every CU holds its share of the grid; then one leaves.
        let g = p
            .manifest
            .manifest
            .grid
            .unwrap_or([16, 1, 1])
            .iter()
            .map(|&x| u64::from(x))
            .product::<u64>();
        let per = g.div_ceil(u64::from(cfg.core.num_sms)).max(1) as u32;
        cfg.core.max_ctas_per_sm = per;
        cfg.sync.remove_sms_at = REMOVE_AT;
        cfg.sync.remove_sms = 1;
    }
    let pol = Policies {
        sync,
        ..Policies::sched("gto")
    };
    let mut cell = Cell {
        policy: policy.to_string(),
        oversubscribed: over,
        cycles: None,
        waits_per_acquire: None,
        switches: 0,
        deadlock: false,
        error: None,
    };
    match run_timed_with(p, &[], &cfg, &pol, false) {
        Ok(r) if r.check.passed() => {
            cell.cycles = Some(r.stats.cycles);
            let y = &r.stats.sync;
            cell.waits_per_acquire = (y.acquires > 0).then_some(y.wait_insts_per_acquire);
            cell.switches = y.switches_out;
        }
        Ok(r) => cell.error = Some(format!("check failed: {}", r.check.to_string().trim_end())),
        Err(e) => {
            let text = run_error_text(e);
            if text.contains("deadlock") {
                cell.deadlock = true;
            } else {
                cell.error = Some(text);
            }
        }
    }
    cell
}

/// What a figure's entries are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Cycles over the busy-waiting baseline's (Figs. 7, 8).
    RuntimeOverBusy,
    /// Waiting instructions per acquire (Fig. 9).
    WaitsPerAcquire,
    /// The baseline's cycles over the policy's (Fig. 14).
    SpeedupOverBusy,
    /// Oversubscribed: `timeout:10000`'s cycles over the policy's
    /// (Fig. 15; columns end in `*`).
    SpeedupOverTimeout,
}

impl Measure {
    /// The entry of `kernel` in `column` (a policy; `*`: oversubscribed).
    pub fn value(self, k: &KernelResult, column: &str) -> Option<f64> {
        match self {
            Measure::RuntimeOverBusy => {
                Some(k.cycles(column, false)? as f64 / k.cycles("busy", false)? as f64)
            }
            Measure::WaitsPerAcquire => k.cell(column, false)?.waits_per_acquire,
            Measure::SpeedupOverBusy => {
                Some(k.cycles("busy", false)? as f64 / k.cycles(column, false)? as f64)
            }
            Measure::SpeedupOverTimeout => {
                let p = column.trim_end_matches('*');
                Some(k.cycles(TIMEOUT_14, true)? as f64 / k.cycles(p, true)? as f64)
            }
        }
    }
}

/// One figure's table: columns and what their entries are.
#[derive(Clone, Debug)]
pub struct Figure {
    /// `Fig. 7` …
    pub figure: &'static str,
    /// The table's title.
    pub title: String,
    /// Policies (`*`: oversubscribed).
    pub columns: Vec<String>,
    /// The entries.
    pub measure: Measure,
}

/// The geometric mean of positive values.
pub fn geometric_mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

impl Repro {
    /// Failed cells that are not deadlocks: (kernel, policy, error).
    pub fn errors(&self) -> Vec<(String, String, String)> {
        let mut v = Vec::new();
        for k in &self.kernels {
            for c in &k.cells {
                if let Some(e) = &c.error {
                    let over = if c.oversubscribed {
                        " (oversubscribed)"
                    } else {
                        ""
                    };
                    v.push((k.name.clone(), format!("{}{over}", c.policy), e.clone()));
                }
            }
        }
        v
    }

    /// Cells run.
    pub fn cells(&self) -> usize {
        self.kernels.iter().map(|k| k.cells.len()).sum()
    }

    /// A table of `value(kernel, column)` with a geometric-mean row.
    fn table(
        &self,
        title: &str,
        columns: &[String],
        value: impl Fn(&KernelResult, &str) -> Option<f64>,
        mean: bool,
    ) -> String {
        let mut o = format!("{title}\n{:<10}", "kernel");
        for c in columns {
            o.push_str(&format!(" {c:>12}"));
        }
        o.push('\n');
        let mut per_col: Vec<Vec<f64>> = vec![Vec::new(); columns.len()];
        for k in &self.kernels {
            o.push_str(&format!("{:<10}", k.name));
            for (i, c) in columns.iter().enumerate() {
                match value(k, c) {
                    Some(v) => {
                        per_col[i].push(v);
                        o.push_str(&format!(" {v:>12.2}"));
                    }
                    None => {
                        let over = c.ends_with('*');
                        let name = c.trim_end_matches('*');
                        let dead = k.cell(name, over).is_some_and(|x| x.deadlock);
                        o.push_str(&format!(" {:>12}", if dead { "deadlock" } else { "-" }));
                    }
                }
            }
            o.push('\n');
        }
        if mean {
            o.push_str(&format!("{:<10}", "geomean"));
            for col in &per_col {
                match geometric_mean(col) {
                    Some(g) if col.len() == self.kernels.len() => {
                        o.push_str(&format!(" {g:>12.2}"))
                    }
                    Some(g) => o.push_str(&format!(" {:>12}", format!("{g:.2}({})", col.len()))),
                    None => o.push_str(&format!(" {:>12}", "-")),
                }
            }
            o.push('\n');
        }
        o
    }

    /// The figures' tables: which columns, which measure.
    pub fn figures(&self) -> Vec<Figure> {
        let sl: Vec<String> = self.sleeps.iter().map(|s| format!("sleep:{s}")).collect();
        let to: Vec<String> = self
            .timeouts
            .iter()
            .map(|t| format!("timeout:{t}"))
            .collect();
        let mon: Vec<String> = MONITORS.iter().map(|m| m.to_string()).collect();
        let mut f14: Vec<String> = vec![SLEEP_14.into(), TIMEOUT_14.into()];
        f14.extend(mon.iter().cloned());
        let f15: Vec<String> = ["busy"]
            .iter()
            .chain(MONITORS)
            .map(|m| format!("{m}*"))
            .collect();
        vec![
            Figure {
                figure: "Fig. 7",
                title: "Fig. 7: sleep with exponential backoff up to MAX cycles, runtime / busy runtime".into(),
                columns: sl,
                measure: Measure::RuntimeOverBusy,
            },
            Figure {
                figure: "Fig. 8",
                title: "Fig. 8: fixed timeout interval T, runtime / busy runtime".into(),
                columns: to,
                measure: Measure::RuntimeOverBusy,
            },
            Figure {
                figure: "Fig. 9",
                title: "Fig. 9: wait efficiency, waiting instructions per acquire (1 = MinResume)"
                    .into(),
                columns: mon,
                measure: Measure::WaitsPerAcquire,
            },
            Figure {
                figure: "Fig. 14",
                title: "Fig. 14: speedup over busy waiting, not oversubscribed".into(),
                columns: f14,
                measure: Measure::SpeedupOverBusy,
            },
            Figure {
                figure: "Fig. 15",
                title: format!(
                    "Fig. 15: oversubscribed (GPU full, one CU leaves at cycle {REMOVE_AT}), speedup over {TIMEOUT_14}"
                ),
                columns: f15,
                measure: Measure::SpeedupOverTimeout,
            },
        ]
    }

    /// The geometric mean of a figure's column over the kernels that have
    /// a value, and how many do (the tables print `g(n)` when not all).
    pub fn column_mean(&self, measure: Measure, column: &str) -> (Option<f64>, usize) {
        let xs: Vec<f64> = self
            .kernels
            .iter()
            .filter_map(|k| measure.value(k, column))
            .collect();
        (geometric_mean(&xs), xs.len())
    }

    /// Every table.
    pub fn tables(&self) -> String {
        self.figures()
            .iter()
            .map(|f| self.table(&f.title, &f.columns, |k, c| f.measure.value(k, c), true))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every number, as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("repro serializes")
    }
}
