//! Every reproduction's cells as one CSV table (`gpusim repro PAPER --csv
//! FILE`): one row per cell, then the tables' summary rows (harmonic,
//! arithmetic or geometric means), told apart by the `row` column.
//!
//! Every paper's table starts with the same columns ([`COMMON_COLUMNS`]):
//!
//! * `row`: `cell` for a run; `hmean` (DAWS, BAWS), `mean` (LFWS, BLWS) or
//!   `geomean` (AWG) for a summary row; `fig1` for LFWS's worked example;
//! * `figure`: the paper's figure a summary row belongs to (empty for cells);
//! * `kernel`, `class` (the paper's group: `CS`/`CI`/`ref`, `BI`/`NB`, …),
//!   `setup` (the paper's name of the scheduler or setup), `sched` (its
//!   `--sched`), `cycles`, `warp_insts`, `ipc` (warp instructions per
//!   cycle);
//! * `normalized`, `normalized_to`: the paper's normalized value and what
//!   it is relative to (a cell's own, or a summary row's mean);
//! * `status` (`ok`, `error`, `deadlock`, or `n/a` for a mean a failed cell
//!   makes impossible) and `error` (the message).
//!
//! Then each paper's own columns (see each `to_csv`). Numbers are written
//! as the JSON (`--json`) writes them, so both files hold the same values;
//! an absent value is an empty field.

use serde::Serialize;

use crate::report::repro_latency::fig1::Fig1Run;
use crate::report::{repro, repro_awg, repro_baws, repro_latency};

/// The columns every paper's CSV starts with.
pub const COMMON_COLUMNS: [&str; 13] = [
    "row",
    "figure",
    "kernel",
    "class",
    "setup",
    "sched",
    "cycles",
    "warp_insts",
    "ipc",
    "normalized",
    "normalized_to",
    "status",
    "error",
];

/// One row: the common columns and the paper's own (`extras`, by column
/// name; a column not in a row is empty).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CsvRow {
    /// `cell` or the summary's kind.
    pub row: String,
    /// The figure of a summary row.
    pub figure: String,
    /// Kernel (or the summary row's label in the text tables).
    pub kernel: String,
    /// The kernel's group.
    pub class: String,
    /// The paper's name of the setup.
    pub setup: String,
    /// Its `--sched`.
    pub sched: String,
    /// Cycles.
    pub cycles: Option<u64>,
    /// Warp instructions.
    pub warp_insts: Option<u64>,
    /// Warp IPC.
    pub ipc: Option<f64>,
    /// The normalized value.
    pub normalized: Option<f64>,
    /// What it is normalized to.
    pub normalized_to: String,
    /// `ok`, `error`, `deadlock`, `n/a`.
    pub status: String,
    /// The error message.
    pub error: String,
    /// The paper's own columns: name and value (as written).
    pub extras: Vec<(String, String)>,
}

/// A reproduction's rows, ready to write.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReproCsv {
    /// The paper's own columns, after [`COMMON_COLUMNS`].
    pub extra_columns: Vec<String>,
    /// The rows: cells first, then summaries.
    pub rows: Vec<CsvRow>,
}

/// A number as JSON writes it (`serde_json`, shortest round-trip form);
/// empty for a non-finite value, which JSON cannot hold.
pub fn number(x: f64) -> String {
    if x.is_finite() {
        serde_json::to_string(&x).unwrap_or_default()
    } else {
        String::new()
    }
}

/// The scalar leaves of `value` serialized, keys joined with `.` under
/// `prefix`, in field order (arrays and nulls left out).
pub fn flatten(prefix: &str, value: &impl Serialize) -> Vec<(String, String)> {
    let Ok(v) = serde_json::to_value(value) else {
        return Vec::new();
    };
    crate::study::sweep::scalar_leaves(&v)
        .into_iter()
        .filter(|(_, x)| !x.is_null())
        .map(|(k, x)| {
            let key = match (prefix.is_empty(), k.is_empty()) {
                (true, _) => k,
                (false, true) => prefix.to_string(),
                (false, false) => format!("{prefix}.{k}"),
            };
            let cell = match x {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (key, cell)
        })
        .collect()
}

/// The column names [`flatten`] gives a `T` (from its default value).
fn columns_of<T: Serialize + Default>(prefix: &str) -> Vec<String> {
    flatten(prefix, &T::default())
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

fn opt(x: Option<impl ToString>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

fn status(ok: bool) -> String {
    if ok { "ok" } else { "n/a" }.to_string()
}

impl ReproCsv {
    /// An empty table with the paper's own columns.
    pub fn new(extra_columns: impl IntoIterator<Item = impl Into<String>>) -> ReproCsv {
        ReproCsv {
            extra_columns: extra_columns.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; an extra column the table does not have yet is added
    /// after the others.
    pub fn push(&mut self, row: CsvRow) {
        for (k, _) in &row.extras {
            if !self.extra_columns.contains(k) {
                self.extra_columns.push(k.clone());
            }
        }
        self.rows.push(row);
    }

    /// Every column name, in order.
    pub fn columns(&self) -> Vec<String> {
        COMMON_COLUMNS
            .iter()
            .map(|c| c.to_string())
            .chain(self.extra_columns.iter().cloned())
            .collect()
    }

    /// The table as CSV text (header line, then one line per row; fields
    /// quoted where they need it).
    pub fn to_csv(&self) -> Result<String, String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(self.columns()).map_err(|e| e.to_string())?;
        for r in &self.rows {
            let mut rec = vec![
                r.row.clone(),
                r.figure.clone(),
                r.kernel.clone(),
                r.class.clone(),
                r.setup.clone(),
                r.sched.clone(),
                opt(r.cycles),
                opt(r.warp_insts),
                r.ipc.map_or(String::new(), number),
                r.normalized.map_or(String::new(), number),
                r.normalized_to.clone(),
                r.status.clone(),
                r.error.clone(),
            ];
            for c in &self.extra_columns {
                rec.push(
                    r.extras
                        .iter()
                        .find(|(k, _)| k == c)
                        .map_or(String::new(), |(_, v)| v.clone()),
                );
            }
            w.write_record(&rec).map_err(|e| e.to_string())?;
        }
        let bytes = w.into_inner().map_err(|e| e.to_string())?;
        String::from_utf8(bytes).map_err(|e| e.to_string())
    }
}

/// A cell row's start: kernel, class, setup, status and error.
fn cell_row(kernel: &str, class: &str, setup: &str, sched: &str, error: Option<&str>) -> CsvRow {
    CsvRow {
        row: "cell".into(),
        kernel: kernel.into(),
        class: class.into(),
        setup: setup.into(),
        sched: sched.into(),
        status: if error.is_some() { "error" } else { "ok" }.into(),
        error: error.unwrap_or_default().into(),
        ..CsvRow::default()
    }
}

impl repro::Repro {
    /// The DAWS cells and Fig. 8's harmonic means as CSV rows. Cells:
    /// `normalized` is IPC over CCWS's (Fig. 8); own columns `swl_limit`
    /// (Best-SWL's winning N), `profile_loops` (Profiled-DAWS) and
    /// `vs_vector_best` (SPMV-scalar's cells: cycles over SPMV-vector's
    /// under its best scheduler, Fig. 13). Summary rows `hmean` per class
    /// (`HMEAN-CS`, `HMEAN-CI`) and scheduler.
    pub fn to_csv(&self) -> ReproCsv {
        use repro::{Class, Scheduler};
        let mut t = ReproCsv::new(["swl_limit", "profile_loops", "vs_vector_best"]);
        let case = self.case_study();
        for k in &self.kernels {
            for c in &k.cells {
                let mut r = cell_row(
                    &k.name,
                    k.class.label(),
                    c.sched.label(),
                    c.sched.cli_name(),
                    c.error.as_deref(),
                );
                if let Some(run) = &c.run {
                    r.cycles = Some(run.cycles);
                    r.warp_insts = Some(run.warp_insts);
                    r.ipc = Some(run.ipc);
                    r.normalized = k.normalized_ipc(c.sched);
                    r.normalized_to = Scheduler::Ccws.label().into();
                    r.extras.push(("swl_limit".into(), opt(run.swl_limit)));
                    r.extras
                        .push(("profile_loops".into(), opt(run.profile_loops)));
                }
                if k.name == repro::KERNELS[0].name
                    && let Some(cs) = &case
                    && let Some((_, Some((_, ratio)))) =
                        cs.scalar.iter().find(|(s, _)| *s == c.sched)
                {
                    r.extras.push(("vs_vector_best".into(), number(*ratio)));
                }
                t.push(r);
            }
        }
        for class in [Class::Sensitive, Class::Insensitive] {
            if !self.kernels.iter().any(|k| k.class == class) {
                continue;
            }
            for s in Scheduler::ALL {
                let v = self.harmonic_mean(class, s);
                t.push(CsvRow {
                    row: "hmean".into(),
                    figure: "Fig. 8".into(),
                    kernel: format!("HMEAN-{}", class.label()),
                    class: class.label().into(),
                    setup: s.label().into(),
                    sched: s.cli_name().into(),
                    normalized: v,
                    normalized_to: Scheduler::Ccws.label().into(),
                    status: status(v.is_some()),
                    ..CsvRow::default()
                });
            }
        }
        t
    }
}

impl repro_baws::Repro {
    /// The BAWS cells and the harmonic means of the normalized tables as
    /// CSV rows. Cells: `normalized` is IPC over LRR's (Figs. 8, 9, 11);
    /// own columns `fetch`, `set` (the setup's extra `--set`), `norm_gto`
    /// (IPC over GTO's: Fig. 12, §6.4), `stalls.*` (scheduler-cycles by
    /// state, Fig. 10's numbers) and `barriers.*` (barrier intensity,
    /// RTRU). Summary rows `hmean`, one per table (Figs. 8, 9, 11, 12,
    /// §6.4) and setup, `normalized_to` naming the table's base. The
    /// claims are in the JSON only.
    pub fn to_csv(&self) -> ReproCsv {
        use crate::timing::barrier_stats::BarrierStats;
        use crate::timing::stats::StallCounts;
        use repro_baws::Setup;
        let mut extra = vec!["fetch".to_string(), "set".into(), "norm_gto".into()];
        extra.extend(columns_of::<StallCounts>("stalls"));
        extra.extend(columns_of::<BarrierStats>("barriers"));
        let mut t = ReproCsv::new(extra);
        for k in &self.kernels {
            for c in &k.cells {
                let (sched, fetch, set) = c.setup.policies();
                let mut r = cell_row(
                    &k.name,
                    k.class.label(),
                    c.setup.label(),
                    sched,
                    c.error.as_deref(),
                );
                r.extras.push(("fetch".into(), fetch.into()));
                r.extras.push((
                    "set".into(),
                    set.map_or(String::new(), |(k, v)| format!("{k}={v}")),
                ));
                if let Some(run) = &c.run {
                    r.cycles = Some(run.cycles);
                    r.warp_insts = Some(run.warp_insts);
                    r.ipc = Some(run.ipc);
                    r.normalized = k.normalized_ipc(c.setup, Setup::Lrr);
                    r.normalized_to = Setup::Lrr.label().into();
                    r.extras.push((
                        "norm_gto".into(),
                        k.normalized_ipc(c.setup, Setup::Gto)
                            .map_or(String::new(), number),
                    ));
                    r.extras.extend(flatten("stalls", &run.stalls));
                    r.extras.extend(flatten("barriers", &run.barriers));
                }
                t.push(r);
            }
        }
        for table in repro_baws::NORMALIZED_TABLES {
            if !self.kernels.iter().any(|k| k.class == table.class) {
                continue;
            }
            for &s in table.setups {
                let v = self.harmonic_mean(table.class, s, table.base);
                let (sched, fetch, _) = s.policies();
                t.push(CsvRow {
                    row: "hmean".into(),
                    figure: table.figure.into(),
                    kernel: "HMEAN".into(),
                    class: table.class.label().into(),
                    setup: s.label().into(),
                    sched: sched.into(),
                    normalized: v,
                    normalized_to: table.base.label().into(),
                    status: status(v.is_some()),
                    extras: vec![("fetch".into(), fetch.into())],
                    ..CsvRow::default()
                });
            }
        }
        t
    }
}

impl repro_latency::Repro {
    /// The LFWS or BLWS cells, the normalized figure's mean and (LFWS) the
    /// Fig. 1 worked example as CSV rows. Cells: `class` is `long-heavy`
    /// for LFWS's long-operation-intensive subset; `normalized` is IPC
    /// over the first setup's (LRR, RR); own columns `cta`, `long_ops`,
    /// `dram_full`, `icnt_to_sm` (the run's counters) and
    /// `paper_long_percent` (LFWS Table 2). Summary rows `mean` (the
    /// arithmetic mean over kernels, as the papers average). Rows `fig1`:
    /// the worked example per policy, `cycles` and own columns `idle`,
    /// `paper_cycles`, `paper_idle`; `kernel` is `Fig. 1` for the
    /// figure's idealized machine, `Fig. 1 (pipeline)` for the cycle-level
    /// runs of `kernels/micro/lfws_fig1.ptx`. The claims are in the JSON
    /// only.
    pub fn to_csv(&self) -> ReproCsv {
        let base = self.setups.first().map_or("", |s| s.label);
        let mut t = ReproCsv::new([
            "cta",
            "long_ops",
            "dram_full",
            "icnt_to_sm",
            "paper_long_percent",
            "idle",
            "paper_cycles",
            "paper_idle",
        ]);
        let setup = |label: &str| self.setups.iter().find(|s| s.label == label);
        for k in &self.kernels {
            let class = if k.long_heavy { "long-heavy" } else { "" };
            for c in &k.cells {
                let s = setup(&c.setup);
                let mut r = cell_row(
                    &k.name,
                    class,
                    &c.setup,
                    s.map_or("", |s| s.sched),
                    c.error.as_deref(),
                );
                r.extras
                    .push(("cta".into(), s.map_or("", |s| s.cta).to_string()));
                r.extras.push((
                    "paper_long_percent".into(),
                    k.paper_long_percent.map_or(String::new(), number),
                ));
                if let Some(run) = &c.run {
                    r.cycles = Some(run.cycles);
                    r.warp_insts = Some(run.warp_insts);
                    r.ipc = Some(run.ipc);
                    r.normalized = k.ratio(&c.setup, base);
                    r.normalized_to = base.into();
                    r.extras.push(("long_ops".into(), run.long_ops.to_string()));
                    r.extras
                        .push(("dram_full".into(), run.dram_full.to_string()));
                    r.extras
                        .push(("icnt_to_sm".into(), run.icnt_to_sm.to_string()));
                }
                t.push(r);
            }
        }
        if !self.kernels.is_empty() {
            let figure = if self.study == "lfws" {
                "Fig. 4"
            } else {
                "Figs. 3 and 4"
            };
            for s in &self.setups {
                let v = self.mean_ratio(repro_latency::Subset::All, s.label, base);
                t.push(CsvRow {
                    row: "mean".into(),
                    figure: figure.into(),
                    kernel: "MEAN".into(),
                    setup: s.label.into(),
                    sched: s.sched.into(),
                    normalized: v,
                    normalized_to: base.into(),
                    status: status(v.is_some()),
                    extras: vec![("cta".into(), s.cta.into())],
                    ..CsvRow::default()
                });
            }
        }
        let fig1 = |r: &Fig1Run| {
            let (kernel, policy) = match r.policy.strip_suffix(" (pipeline)") {
                Some(p) => ("Fig. 1 (pipeline)", p),
                None => ("Fig. 1", r.policy.as_str()),
            };
            CsvRow {
                row: "fig1".into(),
                figure: "Fig. 1".into(),
                kernel: kernel.into(),
                setup: policy.into(),
                sched: policy.into(),
                cycles: Some(r.cycles),
                status: "ok".into(),
                extras: vec![
                    ("idle".into(), r.idle.to_string()),
                    ("paper_cycles".into(), opt(r.paper_cycles)),
                    ("paper_idle".into(), opt(r.paper_idle)),
                ],
                ..CsvRow::default()
            }
        };
        for r in self.fig1.iter().chain(&self.fig1_pipeline) {
            t.push(fig1(r));
        }
        for (policy, e) in &self.fig1_errors {
            t.push(CsvRow {
                row: "fig1".into(),
                figure: "Fig. 1".into(),
                kernel: "Fig. 1 (pipeline)".into(),
                setup: policy.clone(),
                sched: policy.clone(),
                status: "error".into(),
                error: e.clone(),
                ..CsvRow::default()
            });
        }
        t
    }
}

impl repro_awg::Repro {
    /// The AWG cells and the figures' geometric means as CSV rows. Cells:
    /// `setup` is the `--sync` policy, `sched` `gto`; `normalized` is
    /// cycles over the busy-waiting run's (Figs. 7, 8), or for
    /// oversubscribed cells over `timeout:10000`'s oversubscribed run;
    /// `status` `deadlock` for a run that deadlocked. Own columns
    /// `oversubscribed`, `speedup` (the inverse ratio: Figs. 14, 15),
    /// `waits_per_acquire` (Fig. 9), `switches` (context switches out).
    /// Summary rows `geomean` per figure and column, the mean in the
    /// figure's measure (`normalized`, `waits_per_acquire` or `speedup`)
    /// and `kernels_in_mean` (kernels with a value; the text tables print
    /// `g(n)` when some lack one).
    pub fn to_csv(&self) -> ReproCsv {
        use repro_awg::{Measure, TIMEOUT_14};
        let mut t = ReproCsv::new([
            "oversubscribed",
            "speedup",
            "waits_per_acquire",
            "switches",
            "kernels_in_mean",
        ]);
        for k in &self.kernels {
            for c in &k.cells {
                let mut r = cell_row(&k.name, "", &c.policy, "gto", c.error.as_deref());
                if c.deadlock {
                    r.status = "deadlock".into();
                }
                r.cycles = c.cycles;
                let base = if c.oversubscribed { TIMEOUT_14 } else { "busy" };
                let base_cycles = k.cycles(base, c.oversubscribed);
                if let (Some(x), Some(b)) = (c.cycles, base_cycles) {
                    r.normalized = Some(x as f64 / b as f64);
                    r.normalized_to = format!(
                        "{base}{}",
                        if c.oversubscribed {
                            " (oversubscribed)"
                        } else {
                            ""
                        }
                    );
                    r.extras
                        .push(("speedup".into(), number(b as f64 / x as f64)));
                }
                r.extras
                    .push(("oversubscribed".into(), c.oversubscribed.to_string()));
                r.extras.push((
                    "waits_per_acquire".into(),
                    c.waits_per_acquire.map_or(String::new(), number),
                ));
                r.extras.push(("switches".into(), c.switches.to_string()));
                t.push(r);
            }
        }
        if self.kernels.is_empty() {
            return t;
        }
        for f in self.figures() {
            for col in &f.columns {
                let (mean, n) = self.column_mean(f.measure, col);
                let over = col.ends_with('*');
                let policy = col.trim_end_matches('*');
                let mut r = CsvRow {
                    row: "geomean".into(),
                    figure: f.figure.into(),
                    kernel: "geomean".into(),
                    setup: policy.into(),
                    sched: "gto".into(),
                    status: status(mean.is_some()),
                    extras: vec![
                        ("oversubscribed".into(), over.to_string()),
                        ("kernels_in_mean".into(), n.to_string()),
                    ],
                    ..CsvRow::default()
                };
                let m = mean.map_or(String::new(), number);
                match f.measure {
                    Measure::RuntimeOverBusy => {
                        r.normalized = mean;
                        r.normalized_to = "busy".into();
                    }
                    Measure::WaitsPerAcquire => r.extras.push(("waits_per_acquire".into(), m)),
                    Measure::SpeedupOverBusy | Measure::SpeedupOverTimeout => {
                        r.extras.push(("speedup".into(), m))
                    }
                }
                t.push(r);
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_line_up_with_the_header_and_quote_commas() {
        let mut t = ReproCsv::new(["a"]);
        t.push(CsvRow {
            row: "cell".into(),
            kernel: "K".into(),
            cycles: Some(12),
            ipc: Some(0.1),
            status: "error".into(),
            error: "bad, \"quoted\"".into(),
            extras: vec![("b".into(), "2".into()), ("a".into(), "1".into())],
            ..CsvRow::default()
        });
        let text = t.to_csv().unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(header.len(), COMMON_COLUMNS.len() + 2);
        assert_eq!(&header[13..], ["a", "b"]);
        let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 1);
        let get = |c: &str| rows[0][header.iter().position(|h| h == c).unwrap()].to_string();
        assert_eq!(get("cycles"), "12");
        assert_eq!(get("ipc"), "0.1");
        assert_eq!(get("warp_insts"), "");
        assert_eq!(get("error"), "bad, \"quoted\"");
        assert_eq!((get("a"), get("b")), ("1".into(), "2".into()));
    }

    /// A DAWS result made by hand: SPMV-scalar (`daws` failed) and
    /// SPMV-vector, every cell's cycles given.
    fn daws_result() -> repro::Repro {
        use repro::{Cell, CellRun, Class, KernelResult, Scheduler};
        let kernel =
            |name: &str, class, cycles: [u64; 5], failed: Option<Scheduler>| KernelResult {
                name: name.into(),
                manifest: format!("{name}.toml"),
                class,
                args: Vec::new(),
                cells: Scheduler::ALL
                    .iter()
                    .zip(cycles)
                    .map(|(&s, c)| Cell {
                        sched: s,
                        run: (failed != Some(s)).then(|| CellRun {
                            cycles: c,
                            warp_insts: 1000,
                            ipc: 1000.0 / c as f64,
                            swl_limit: (s == Scheduler::BestSwl).then_some(4),
                            sweep: Vec::new(),
                            profile_loops: (s == Scheduler::DawsProfiled).then_some(2),
                        }),
                        error: (failed == Some(s)).then(|| "check failed: x, y".to_string()),
                    })
                    .collect(),
            };
        repro::Repro {
            config: "daws".into(),
            sms: 2,
            quick: true,
            eval_seed: 1,
            profile_seed: 2,
            kernels: vec![
                kernel(
                    "SPMV-scalar",
                    Class::Sensitive,
                    [400, 300, 500, 250, 0],
                    Some(Scheduler::Daws),
                ),
                kernel(
                    "SPMV-vector",
                    Class::CaseStudy,
                    [200, 100, 200, 200, 200],
                    None,
                ),
            ],
        }
    }

    #[test]
    fn daws_rows_from_a_known_result() {
        let t = daws_result().to_csv();
        let cells: Vec<&CsvRow> = t.rows.iter().filter(|r| r.row == "cell").collect();
        assert_eq!(cells.len(), 10);
        let get = |r: &CsvRow, c: &str| {
            r.extras
                .iter()
                .find(|(k, _)| k == c)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        // SPMV-scalar GTO: 400 cycles against CCWS's 500: IPC ratio 1.25;
        // against SPMV-vector's best (Best-SWL, 100 cycles): 4.
        let gto = cells[0];
        assert_eq!(
            (gto.kernel.as_str(), gto.setup.as_str()),
            ("SPMV-scalar", "GTO")
        );
        assert_eq!(gto.cycles, Some(400));
        assert!((gto.normalized.unwrap() - 1.25).abs() < 1e-12);
        assert_eq!(get(gto, "vs_vector_best"), "4.0");
        assert_eq!(get(cells[1], "swl_limit"), "4");
        assert_eq!(get(cells[3], "profile_loops"), "2");
        assert_eq!(get(cells[3], "vs_vector_best"), "2.5");
        // The failed cell: its message, no numbers.
        let daws = cells[4];
        assert_eq!(
            (daws.status.as_str(), daws.error.as_str()),
            ("error", "check failed: x, y")
        );
        assert_eq!((daws.cycles, daws.normalized), (None, None));
        assert_eq!(get(daws, "vs_vector_best"), "");
        // SPMV-vector has no Fig. 13 column of its own.
        assert!(
            cells[5..]
                .iter()
                .all(|r| get(r, "vs_vector_best").is_empty())
        );
        // HMEAN-CS only (no cache-insensitive kernel): one kernel, so its
        // ratio; n/a where the cell failed.
        let means: Vec<&CsvRow> = t.rows.iter().filter(|r| r.row == "hmean").collect();
        assert_eq!(means.len(), 5);
        assert!(means.iter().all(|r| r.kernel == "HMEAN-CS"));
        assert!((means[2].normalized.unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(
            (means[4].status.as_str(), means[4].normalized),
            ("n/a", None)
        );
        // The quoted message survives the CSV.
        let text = t.to_csv().unwrap();
        assert!(text.contains(",error,\"check failed: x, y\","), "{text}");
    }

    #[test]
    fn numbers_are_written_as_json_writes_them() {
        for x in [0.0, 1.0, 0.1, 1.0 / 3.0, 2.5e-7, 123456.789] {
            assert_eq!(number(x), serde_json::to_string(&x).unwrap());
            assert_eq!(number(x).parse::<f64>().unwrap(), x);
        }
        assert_eq!(number(f64::NAN), "");
        let f = flatten("s", &crate::timing::stats::StallCounts::default());
        assert_eq!(f.len(), 10);
        assert_eq!(f[0], ("s.issued".to_string(), "0".to_string()));
        assert!(f.iter().any(|(k, _)| k == "s.sync_wait"));
    }
}
