//! The latency studies' tables as text, and the JSON.

use std::fmt::Write as _;

use super::{KernelResult, Repro};

impl Repro {
    fn machine(&self) -> String {
        format!(
            "`{}` preset, {} SMs{}",
            self.config,
            self.sms,
            if self.quick { ", --quick sizes" } else { "" }
        )
    }

    fn base(&self) -> &str {
        self.setups.first().map_or("", |s| s.label)
    }

    /// A table with a column per setup and a row per kernel, under
    /// `title`; `cell` gives each entry.
    fn per_setup_table(&self, title: &str, cell: impl Fn(&KernelResult, &str) -> String) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "{title}");
        let _ = write!(o, "{:<8}", "kernel");
        for s in &self.setups {
            let _ = write!(o, " {:>13}", s.label);
        }
        o.push('\n');
        for k in &self.kernels {
            let _ = write!(o, "{:<8}", k.name);
            for s in &self.setups {
                let _ = write!(o, " {:>13}", cell(k, s.label));
            }
            o.push('\n');
        }
        o
    }

    /// IPC of every setup normalized to the first, per kernel, with the
    /// arithmetic mean as the last row (LFWS Fig. 4, BLWS Figs. 3–4).
    pub fn normalized_table(&self) -> String {
        let base = self.base();
        let fig = if self.study == "lfws" {
            "Fig. 4"
        } else {
            "Figs. 3 and 4"
        };
        let title = format!("{fig}: IPC normalized to {base} ({})", self.machine());
        let mut o = self.per_setup_table(&title, |k, s| match (k.ratio(s, base), k.run(s)) {
            (Some(x), _) => format!("{x:.3}"),
            (None, Some(_)) => "n/a".to_string(),
            (None, None) => "error".to_string(),
        });
        let _ = write!(o, "{:<8}", "MEAN");
        for s in &self.setups {
            let v = self
                .mean_ratio(super::Subset::All, s.label, base)
                .map_or("n/a".to_string(), |x| format!("{x:.3}"));
            let _ = write!(o, " {v:>13}");
        }
        o.push('\n');
        o
    }

    /// LFWS Table 2: each kernel's share of long operations (under the
    /// first setup), next to the paper's.
    pub fn long_ops_table(&self) -> String {
        let base = self.base();
        let mut o = String::new();
        let _ = writeln!(
            o,
            "Table 2: long operations (ld/st global or local, tex) among warp instructions, under {base}"
        );
        let _ = writeln!(
            o,
            "{:<8} {:>14} {:>12} {:>9} {:>9}  subset",
            "kernel", "warp insts", "long ops", "ours %", "paper %"
        );
        for k in &self.kernels {
            let (insts, long, pct) = match k.run(base) {
                Some(r) if r.warp_insts > 0 => (
                    r.warp_insts.to_string(),
                    r.long_ops.to_string(),
                    format!("{:.2}", 100.0 * r.long_ops as f64 / r.warp_insts as f64),
                ),
                _ => ("error".into(), "error".into(), "n/a".into()),
            };
            let paper = k
                .paper_long_percent
                .map_or("-".to_string(), |p| format!("{p:.2}"));
            let _ = writeln!(
                o,
                "{:<8} {insts:>14} {long:>12} {pct:>9} {paper:>9}  {}",
                k.name,
                if k.long_heavy { "long-heavy" } else { "" }
            );
        }
        o
    }

    /// BLWS §6's contention measure per kernel and setup: (DRAM-full +
    /// interconnect-to-SM stalls) per cycle, what the throttle reacts to.
    pub fn contention_table(&self) -> String {
        let title = format!(
            "Contention: (DRAM-full + icnt-to-SM stall slice-cycles) per cycle ({})",
            self.machine()
        );
        self.per_setup_table(&title, |k, s| {
            k.run(s).map_or("error".to_string(), |r| {
                format!(
                    "{:.3}",
                    (r.dram_full + r.icnt_to_sm) as f64 / r.cycles.max(1) as f64
                )
            })
        })
    }

    /// Every kernel's cycles under every setup.
    pub fn cycles_table(&self) -> String {
        let title = format!("Cycles ({})", self.machine());
        self.per_setup_table(&title, |k, s| {
            k.run(s)
                .map_or("error".to_string(), |r| r.cycles.to_string())
        })
    }

    /// The paper's claims next to ours.
    pub fn claims_table(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "The paper's claims and ours ({})", self.machine());
        let _ = writeln!(o, "{:<48} {:>22} {:>9}", "claim", "paper", "ours");
        for c in &self.claims {
            let ours = match (c.ours, c.unit.as_str()) {
                (None, _) => "n/a".to_string(),
                (Some(x), "speedup") => format!("{:+.2}%", 100.0 * (x - 1.0)),
                (Some(x), _) => format!("{x:.3}"),
            };
            let _ = writeln!(o, "{:<48} {:>22} {:>9}", c.what, c.paper, ours);
        }
        o
    }

    /// LFWS Fig. 1: the worked example's cycles under each policy.
    pub fn fig1_table(&self) -> String {
        let mut o = String::new();
        if self.fig1.is_empty() {
            return o;
        }
        let _ = writeln!(
            o,
            "Fig. 1: six warps (1,3,5,6: L L S L; 2,4: S S L L), long = 10 cycles, short = 1, one issue per cycle"
        );
        let _ = writeln!(
            o,
            "(policy names: the figure's machine; \"(pipeline)\": kernels/micro/lfws_fig1.ptx on the lfws-fig1 preset, x = a ret issued)"
        );
        let _ = writeln!(
            o,
            "{:<14} {:>7} {:>7} {:>6} {:>6}  schedule (warp and op per cycle, . = idle)",
            "policy", "cycles", "paper", "idle", "paper"
        );
        for r in self.fig1.iter().chain(&self.fig1_pipeline) {
            let p = |x: Option<u64>| x.map_or("-".to_string(), |v| v.to_string());
            let _ = writeln!(
                o,
                "{:<14} {:>7} {:>7} {:>6} {:>6}  {}",
                r.policy,
                r.cycles,
                p(r.paper_cycles),
                r.idle,
                p(r.paper_idle),
                r.schedule
            );
        }
        o
    }

    /// Every table.
    pub fn tables(&self) -> String {
        let mut t = vec![self.normalized_table()];
        if self.study == "lfws" {
            t.push(self.long_ops_table());
        } else {
            t.push(self.contention_table());
        }
        t.push(self.cycles_table());
        t.push(self.claims_table());
        if !self.fig1.is_empty() {
            t.push(self.fig1_table());
        }
        t.join("\n")
    }

    /// Every number as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("repro results serialize")
    }
}
