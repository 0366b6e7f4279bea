//! The BAWS reproduction's tables: each figure as text, the claims, and
//! the JSON.

use std::fmt::Write as _;

use serde::Serialize;

use super::{BarrierStats, Claim, Class, Repro, Setup};
use crate::timing::stats::StallCounts;

/// One of the normalized-IPC tables: which kernels, which setups, over
/// which base; the text tables and the CSV's harmonic-mean rows read these.
#[derive(Clone, Copy, Debug)]
pub struct NormalizedTable {
    /// The paper's figure (`Fig. 8`, `§6.4`).
    pub figure: &'static str,
    /// The table's title.
    pub title: &'static str,
    /// Its kernels.
    pub class: Class,
    /// Its columns.
    pub setups: &'static [Setup],
    /// The normalization.
    pub base: Setup,
}

const FIG8: NormalizedTable = NormalizedTable {
    figure: "Fig. 8",
    title: "Fig. 8: IPC normalized to LRR, barrier-intensive kernels",
    class: Class::Barrier,
    setups: &[
        Setup::Lrr,
        Setup::Gto,
        Setup::Tls,
        Setup::MwfLrr,
        Setup::MwfGto,
        Setup::MwfLrrCff,
        Setup::Baws,
    ],
    base: Setup::Lrr,
};

const FIG9: NormalizedTable = NormalizedTable {
    figure: "Fig. 9",
    title: "Fig. 9: fetch policy under MWF(GTO) (LRR, FEF, CFF fetch), IPC normalized to LRR issue",
    class: Class::Barrier,
    setups: &[Setup::MwfGto, Setup::MwfGtoFef, Setup::Baws],
    base: Setup::Lrr,
};

const IBUFFER: NormalizedTable = NormalizedTable {
    figure: "§6.4",
    title: "6.4: I-buffer 2 -> 4 entries vs CFF, under GTO, IPC normalized to GTO",
    class: Class::Barrier,
    setups: &[Setup::GtoIbuf4, Setup::GtoCff],
    base: Setup::Gto,
};

const FIG11: NormalizedTable = NormalizedTable {
    figure: "Fig. 11",
    title: "Fig. 11: non-barrier-intensive kernels, IPC normalized to LRR",
    class: Class::NonBarrier,
    setups: &[Setup::Gto, Setup::Baws, Setup::Saws],
    base: Setup::Lrr,
};

const FIG12: NormalizedTable = NormalizedTable {
    figure: "Fig. 12",
    title: "Fig. 12: barrier-intensive kernels, IPC normalized to GTO",
    class: Class::Barrier,
    setups: &[Setup::Baws, Setup::Saws, Setup::SawsCff],
    base: Setup::Gto,
};

/// Every normalized-IPC table, in the paper's order.
pub const NORMALIZED_TABLES: [NormalizedTable; 5] = [FIG8, FIG9, IBUFFER, FIG11, FIG12];

impl Repro {
    fn machine(&self) -> String {
        format!(
            "`{}` preset, {} SMs{}",
            self.config,
            self.sms,
            if self.quick { ", --quick sizes" } else { "" }
        )
    }

    /// A table of IPC under `setups` normalized to `base` for the kernels
    /// of `class`, with the harmonic mean as the last row.
    pub fn normalized_table(
        &self,
        title: &str,
        class: Class,
        setups: &[Setup],
        base: Setup,
    ) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "{title} ({})", self.machine());
        let labels: Vec<String> = setups.iter().map(|s| s.label().to_string()).collect();
        row(&mut o, "kernel", &labels);
        for k in self.kernels.iter().filter(|k| k.class == class) {
            let cells: Vec<String> = setups
                .iter()
                .map(|&s| match (k.normalized_ipc(s, base), k.run(s)) {
                    (Some(x), _) => format!("{x:.3}"),
                    (None, Some(_)) => "n/a".to_string(),
                    (None, None) => "error".to_string(),
                })
                .collect();
            row(&mut o, &k.name, &cells);
        }
        let cells: Vec<String> = setups
            .iter()
            .map(|&s| {
                self.harmonic_mean(class, s, base)
                    .map_or("n/a".to_string(), |x| format!("{x:.3}"))
            })
            .collect();
        row(&mut o, "HMEAN", &cells);
        o
    }

    /// Fig. 8: barrier-intensive kernels, IPC normalized to LRR.
    pub fn fig8_table(&self) -> String {
        self.render(&FIG8)
    }

    /// Fig. 9: fetch LRR, FEF and CFF under MWF(GTO), normalized to LRR.
    pub fn fig9_table(&self) -> String {
        self.render(&FIG9)
    }

    /// §6.4: a 4-entry I-buffer against CFF, both under GTO.
    pub fn ibuffer_table(&self) -> String {
        self.render(&IBUFFER)
    }

    /// Fig. 11 (and Fig. 14's SAWS): non-barrier-intensive kernels,
    /// normalized to LRR.
    pub fn fig11_table(&self) -> String {
        self.render(&FIG11)
    }

    /// Fig. 12: BAWS, SAWS and SAWS+CFF normalized to GTO.
    pub fn fig12_table(&self) -> String {
        self.render(&FIG12)
    }

    fn render(&self, t: &NormalizedTable) -> String {
        self.normalized_table(t.title, t.class, t.setups, t.base)
    }

    /// Fig. 10: per barrier-intensive kernel and policy (LRR, GTO,
    /// MWF(LRR), MWF(LRR)+CFF), stall scheduler-cycles by category as a
    /// fraction of LRR's stall scheduler-cycles (all but `issued` and
    /// `idle`); `total` is the policy's own sum.
    pub fn fig10_table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "Fig. 10: stall cycles by category, normalized to LRR's stall cycles ({})",
            self.machine()
        );
        let cats = [
            "control",
            "data",
            "structural",
            "barrier",
            "exit",
            "fetch",
            "other",
            "total",
        ];
        let _ = write!(o, "{:<8} {:<13}", "kernel", "policy");
        for c in cats {
            let _ = write!(o, " {c:>10}");
        }
        o.push('\n');
        for k in self.kernels.iter().filter(|k| k.class == Class::Barrier) {
            let Some(base) = k.run(Setup::Lrr).map(|r| stall_cycles(&r.stalls)) else {
                let _ = writeln!(o, "{:<8} n/a (LRR failed)", k.name);
                continue;
            };
            for s in [Setup::Lrr, Setup::Gto, Setup::MwfLrr, Setup::MwfLrrCff] {
                let _ = write!(o, "{:<8} {:<13}", k.name, s.label());
                match k.run(s) {
                    Some(r) if base > 0 => {
                        let t = &r.stalls;
                        let other = t.throttled + t.sync_wait;
                        for v in [
                            t.control,
                            t.data,
                            t.structural,
                            t.barrier,
                            t.exit,
                            t.fetch,
                            other,
                            stall_cycles(t),
                        ] {
                            let _ = write!(o, " {:>10.3}", v as f64 / base as f64);
                        }
                    }
                    Some(_) => {
                        let _ = write!(o, " n/a");
                    }
                    None => {
                        let _ = write!(o, " error");
                    }
                }
                o.push('\n');
            }
        }
        o
    }

    /// Every kernel's barrier intensity and RTRU under LRR and GTO (the
    /// paper's Fig. 5 and its 15% barrier-intensive threshold, §5), so the
    /// table shows which kernels really are barrier-intensive here.
    pub fn barrier_table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "Barrier intensity (time warps wait at barriers) and RTRU (Eq. 1), under LRR and GTO ({})",
            self.machine()
        );
        let _ = writeln!(
            o,
            "{:<8} {:<5} {:>11} {:>11} {:>9} {:>9}  > 15% (LRR)",
            "kernel", "class", "intens. LRR", "intens. GTO", "RTRU LRR", "RTRU GTO"
        );
        for k in &self.kernels {
            let f = |s: Setup, x: fn(&BarrierStats) -> f64| {
                k.run(s).map_or("error".to_string(), |r| {
                    format!("{:.1}%", 100.0 * x(&r.barriers))
                })
            };
            let intensive = k.run(Setup::Lrr).map_or("n/a", |r| {
                if r.barriers.barrier_intensive {
                    "yes"
                } else {
                    "no"
                }
            });
            let _ = writeln!(
                o,
                "{:<8} {:<5} {:>11} {:>11} {:>9} {:>9}  {}",
                k.name,
                k.class.label(),
                f(Setup::Lrr, |b| b.barrier_intensity),
                f(Setup::Gto, |b| b.barrier_intensity),
                f(Setup::Lrr, |b| b.rtru),
                f(Setup::Gto, |b| b.rtru),
                intensive
            );
        }
        o
    }

    /// Every kernel's cycles under every setup it ran.
    pub fn cycles_table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "Cycles ({})", self.machine());
        let _ = write!(o, "{:<8} {:<5}", "kernel", "class");
        for s in Setup::ALL {
            let _ = write!(o, " {:>12}", s.label());
        }
        o.push('\n');
        for k in &self.kernels {
            let _ = write!(o, "{:<8} {:<5}", k.name, k.class.label());
            for s in Setup::ALL {
                let v = match (s.runs_on(k.class), k.run(s)) {
                    (false, _) => "-".to_string(),
                    (true, Some(r)) => r.cycles.to_string(),
                    (true, None) => "error".to_string(),
                };
                let _ = write!(o, " {v:>12}");
            }
            o.push('\n');
        }
        o
    }

    /// The paper's claims next to ours.
    pub fn claims_table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "The paper's claims and ours ({})", self.machine());
        let _ = writeln!(o, "{:<50} {:>24} {:>10}", "claim", "paper", "ours");
        for c in self.claims() {
            let ours = match (c.ours, c.unit.as_str()) {
                (None, _) => "n/a".to_string(),
                (Some(x), "speedup") => format!("{:+.1}%", 100.0 * (x - 1.0)),
                (Some(x), _) => format!("{x:.3}"),
            };
            let _ = writeln!(o, "{:<50} {:>24} {:>10}", c.what, c.paper, ours);
        }
        o
    }

    /// Every table, in the paper's order.
    pub fn tables(&self) -> String {
        [
            self.barrier_table(),
            self.fig8_table(),
            self.fig9_table(),
            self.fig10_table(),
            self.ibuffer_table(),
            self.fig11_table(),
            self.fig12_table(),
            self.cycles_table(),
            self.claims_table(),
        ]
        .join("\n")
    }

    /// The results as pretty JSON (deterministic: the same inputs give the
    /// same bytes, whatever `jobs`).
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            repro: &'a Repro,
            claims: Vec<Claim>,
        }
        serde_json::to_string_pretty(&Out {
            repro: self,
            claims: self.claims(),
        })
        .expect("repro results serialize")
    }
}

/// Scheduler-cycles spent stalled: all but `issued` and `idle`.
fn stall_cycles(t: &StallCounts) -> u64 {
    t.total() - t.issued - t.idle
}

fn row(o: &mut String, name: &str, cells: &[String]) {
    let _ = write!(o, "{name:<8}");
    for c in cells {
        let _ = write!(o, " {c:>13}");
    }
    o.push('\n');
}
