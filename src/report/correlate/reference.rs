//! The reference file (`correlation/gtx480.toml`): GPGPU-Sim's figures for
//! every kernel of the correlation set under each scheduler, with where
//! they came from.
//!
//! ```toml
//! [reference]
//! simulator = "GPGPU-Sim 4.2.0 (...)"
//! config = "configs/tested-cfgs/SM2_GTX480/gpgpusim.config, ..."
//! cuda = "..."                           # optional
//! compiler = "nvcc 13.5 -O3 -arch=sm_75" # optional
//! reproduce = "docs/correlation.md"      # optional
//!
//! [[kernel]]
//! name = "rodinia_bfs"                   # unique
//! manifest = "kernels/rodinia/bfs.toml"  # from the repository root
//! stresses = "divergent control flow"    # optional
//! [kernel.lrr]                           # lrr, gto, both or (not yet measured) neither
//! cycles = 1                             # every field below is required
//! thread_insts = 0
//! warp_insts = 0
//! launches = 0
//! l1d_accesses = 0
//! l1d_misses = 0
//! l2_accesses = 0
//! l2_misses = 0
//! dram_reads = 0
//! dram_writes = 0
//! [kernel.gto]
//! # ...
//! [[kernel.perturbed]]                   # optional, repeatable: one small change
//! gpgpusim = "-gpgpu_l2_rop_latency 119" # the option appended to GPGPU-Sim's config
//! set = "l2.latency=119"                 # the same change to gpusim's machine
//! lrr = 48361                            # GPGPU-Sim's cycles under lrr
//! gto = 48050                            # and under gto
//! ```
//!
//! The perturbed runs (a latency moved by one cycle) show whether a
//! kernel's lrr/gto order is a property of the machine or of one draw: on
//! kernels whose two schedulers are within a few percent, one cycle more
//! or less somewhere can swap them in either simulator
//! ([`super::perturbed`]).
//!
//! A kernel without figures (not measured yet) is listed but not
//! compared. Unknown keys, missing fields, wrong types, duplicate kernel
//! names, zero cycles and more misses than accesses are errors: diagnostics that point at the key or value in the
//! file (its name, line and column when rendered).

use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::ptx::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span};

/// The schedulers GPGPU-Sim figures can be given for, in the order they
/// are run and reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sched {
    /// Loose round robin (`-gpgpu_scheduler lrr`; gpusim `--sched lrr`).
    Lrr,
    /// Greedy-then-oldest (`-gpgpu_scheduler gto`; gpusim `--sched gto`).
    Gto,
}

impl Sched {
    /// Every scheduler, in report order.
    pub const ALL: [Sched; 2] = [Sched::Lrr, Sched::Gto];

    /// The name in the file, on the command line and in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Sched::Lrr => "lrr",
            Sched::Gto => "gto",
        }
    }

    /// The scheduler called `name` (`lrr`, `gto`; case-insensitive).
    pub fn parse(name: &str) -> Option<Sched> {
        Sched::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// Where the reference figures came from (`[reference]`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The simulator and its version.
    pub simulator: String,
    /// Its configuration.
    pub config: String,
    /// The CUDA toolkit GPGPU-Sim and the applications were built with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda: Option<String>,
    /// The compiler and flags of the kernels' PTX.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiler: Option<String>,
    /// Where the measurement is described (a document path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
}

/// GPGPU-Sim's figures for one kernel under one scheduler, as its
/// statistics print them.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Figures {
    /// `gpu_tot_sim_cycle` after the last launch.
    pub cycles: u64,
    /// `gpu_tot_sim_insn`: thread instructions.
    pub thread_insts: u64,
    /// `gpgpu_n_tot_w_icount`: warp instructions.
    pub warp_insts: u64,
    /// Kernel launches.
    pub launches: u64,
    /// `L1D_total_cache_accesses`.
    pub l1d_accesses: u64,
    /// `L1D_total_cache_misses`.
    pub l1d_misses: u64,
    /// `L2_total_cache_accesses`.
    pub l2_accesses: u64,
    /// `L2_total_cache_misses`.
    pub l2_misses: u64,
    /// DRAM reads, as GPGPU-Sim counts them.
    pub dram_reads: u64,
    /// DRAM writes, as GPGPU-Sim counts them.
    pub dram_writes: u64,
}

/// GPGPU-Sim's cycles under one small change of its configuration (a
/// latency moved by a cycle), with the same change for gpusim.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Perturbation {
    /// The option appended to GPGPU-Sim's configuration file.
    pub gpgpusim: String,
    /// The same change to gpusim's machine, `key=value` (as `--set`).
    pub set: String,
    /// GPGPU-Sim's cycles under `lrr`.
    pub lrr: u64,
    /// GPGPU-Sim's cycles under `gto`.
    pub gto: u64,
}

impl Perturbation {
    /// The gpusim change as (key, value), when `set` has that form.
    pub fn key_value(&self) -> Option<(String, String)> {
        let (k, v) = self.set.split_once('=')?;
        let (k, v) = (k.trim(), v.trim());
        (!k.is_empty() && !v.is_empty()).then(|| (k.to_string(), v.to_string()))
    }
}

/// One kernel of the correlation set.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RefKernel {
    /// Unique id.
    pub name: String,
    /// The gpusim manifest, as written (relative to the repository root).
    pub manifest: String,
    /// What the kernel stresses (free text; empty when not given).
    pub stresses: String,
    /// Figures under `lrr`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lrr: Option<Figures>,
    /// Figures under `gto`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gto: Option<Figures>,
    /// GPGPU-Sim's cycles under small changes (`[[kernel.perturbed]]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub perturbed: Vec<Perturbation>,
    /// Line of its `name` in the file.
    #[serde(skip)]
    pub line: u32,
}

impl RefKernel {
    /// The figures under `s`, when the file gives them.
    pub fn figures(&self, s: Sched) -> Option<&Figures> {
        match s {
            Sched::Lrr => self.lrr.as_ref(),
            Sched::Gto => self.gto.as_ref(),
        }
    }
}

/// A parsed reference file.
#[derive(Clone, Debug)]
pub struct Reference {
    /// `[reference]`.
    pub provenance: Provenance,
    /// `[[kernel]]`, in file order.
    pub kernels: Vec<RefKernel>,
    /// The file (name and text), for diagnostics.
    pub file: SourceFile,
}

impl Reference {
    /// The schedulers at least one kernel has figures for, in
    /// [`Sched::ALL`] order.
    pub fn schedulers(&self) -> Vec<Sched> {
        Sched::ALL
            .into_iter()
            .filter(|&s| self.kernels.iter().any(|k| k.figures(s).is_some()))
            .collect()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    reference: Provenance,
    #[serde(default)]
    kernel: Vec<RawKernel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKernel {
    name: Spanned<String>,
    manifest: Spanned<String>,
    #[serde(default)]
    stresses: Option<String>,
    lrr: Option<Spanned<Figures>>,
    gto: Option<Spanned<Figures>>,
    #[serde(default)]
    perturbed: Vec<Spanned<Perturbation>>,
}

const CODE: &str = "gpusim::correlate::reference";

/// Parses reference text; `name` is the file name diagnostics show.
pub fn parse_reference(name: &str, text: &str) -> Result<Reference, Diagnostics> {
    let file = SourceFile::new(name, text);
    let fail = |list: Vec<Diagnostic>| Diagnostics {
        file: file.clone(),
        list,
    };
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let span = e
            .span()
            .map_or(Span::new(0, 0), |r| Span::new(r.start, r.end));
        let msg = e.message().trim_end().to_string();
        let mut d =
            Diagnostic::new(CODE, format!("invalid reference file: {msg}")).label(span, "here");
        if msg.contains("unknown field") {
            d = d.help(
                "the keys are: [reference] simulator, config, cuda, compiler, reproduce; \
                 [[kernel]] name, manifest, stresses, [kernel.lrr], [kernel.gto]; \
                 per scheduler: cycles, thread_insts, warp_insts, launches, l1d_accesses, \
                 l1d_misses, l2_accesses, l2_misses, dram_reads, dram_writes; \
                 [[kernel.perturbed]] gpgpusim, set, lrr, gto",
            );
        }
        fail(vec![d])
    })?;
    let mut problems = Vec::new();
    let mut kernels: Vec<RefKernel> = Vec::with_capacity(raw.kernel.len());
    for k in raw.kernel {
        let name_span = Span::new(k.name.span().start, k.name.span().end);
        if k.name.get_ref().trim().is_empty() {
            problems
                .push(Diagnostic::new(CODE, "a kernel's name is empty").label(name_span, "here"));
        }
        if let Some(first) = kernels.iter().find(|o| o.name == *k.name.get_ref()) {
            problems.push(
                Diagnostic::new(
                    CODE,
                    format!("kernel `{}` is listed twice", k.name.get_ref()),
                )
                .label(name_span, "again here")
                .help(format!("first at line {}", first.line)),
            );
        }
        if k.manifest.get_ref().trim().is_empty() {
            let s = k.manifest.span();
            problems.push(
                Diagnostic::new(
                    CODE,
                    format!("kernel `{}` has an empty manifest", k.name.get_ref()),
                )
                .label(Span::new(s.start, s.end), "here"),
            );
        }
        for (sched, figs) in [(Sched::Lrr, &k.lrr), (Sched::Gto, &k.gto)] {
            let Some(f) = figs else { continue };
            let span = Span::new(f.span().start, f.span().end);
            let why = figures_problem(f.get_ref());
            if let Some(why) = why {
                problems.push(
                    Diagnostic::new(
                        CODE,
                        format!("kernel `{}` {}: {why}", k.name.get_ref(), sched.name()),
                    )
                    .label(span, "these figures"),
                );
            }
        }
        for p in &k.perturbed {
            let span = Span::new(p.span().start, p.span().end);
            let q = p.get_ref();
            let why = if q.key_value().is_none() {
                Some(format!("`set = \"{}\"` is not `key=value`", q.set))
            } else if q.lrr == 0 || q.gto == 0 {
                Some("`lrr` or `gto` is 0 (no ratio can be formed)".to_string())
            } else if k.lrr.is_none() || k.gto.is_none() {
                Some("perturbed runs need the kernel's lrr and gto figures".to_string())
            } else {
                None
            };
            if let Some(why) = why {
                problems.push(
                    Diagnostic::new(
                        CODE,
                        format!("kernel `{}` perturbed run: {why}", k.name.get_ref()),
                    )
                    .label(span, "this run"),
                );
            }
        }
        kernels.push(RefKernel {
            line: file.line_of(name_span.start),
            name: k.name.into_inner(),
            manifest: k.manifest.into_inner(),
            stresses: k.stresses.unwrap_or_default(),
            lrr: k.lrr.map(Spanned::into_inner),
            gto: k.gto.map(Spanned::into_inner),
            perturbed: k.perturbed.into_iter().map(Spanned::into_inner).collect(),
        });
    }
    if kernels.is_empty() && problems.is_empty() {
        problems.push(
            Diagnostic::new(CODE, "the reference file lists no kernel")
                .help("add [[kernel]] tables with name, manifest and [kernel.lrr]/[kernel.gto]"),
        );
    }
    if !problems.is_empty() {
        return Err(fail(problems));
    }
    Ok(Reference {
        provenance: raw.reference,
        kernels,
        file,
    })
}

/// What is impossible about a set of figures, if anything.
fn figures_problem(f: &Figures) -> Option<String> {
    if f.cycles == 0 {
        return Some("`cycles` is 0 (no ratio can be formed)".to_string());
    }
    if f.l1d_misses > f.l1d_accesses {
        return Some(format!(
            "`l1d_misses` ({}) exceeds `l1d_accesses` ({})",
            f.l1d_misses, f.l1d_accesses
        ));
    }
    if f.l2_misses > f.l2_accesses {
        return Some(format!(
            "`l2_misses` ({}) exceeds `l2_accesses` ({})",
            f.l2_misses, f.l2_accesses
        ));
    }
    None
}

/// Reads and parses a reference file.
pub fn load_reference(path: &std::path::Path) -> Result<Reference, Diagnostics> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Diagnostics {
        file: SourceFile::new(name.clone(), ""),
        list: vec![Diagnostic::new(
            "gpusim::io::read",
            format!("cannot read the reference file `{name}`: {e}"),
        )],
    })?;
    parse_reference(&name, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIGS: &str = "cycles = 100\nthread_insts = 3200\nwarp_insts = 100\nlaunches = 1\n\
        l1d_accesses = 10\nl1d_misses = 5\nl2_accesses = 5\nl2_misses = 5\n\
        dram_reads = 5\ndram_writes = 0\n";

    fn file(kernels: &str) -> String {
        format!("[reference]\nsimulator = \"s\"\nconfig = \"c\"\n{kernels}")
    }

    #[test]
    fn sched_names_round_trip() {
        for s in Sched::ALL {
            assert_eq!(Sched::parse(s.name()), Some(s));
        }
        assert_eq!(Sched::parse("GTO"), Some(Sched::Gto));
        assert_eq!(Sched::parse("two-level"), None);
    }

    #[test]
    fn a_kernel_without_figures_is_listed() {
        let text = file("[[kernel]]\nname = \"a\"\nmanifest = \"m.toml\"\n");
        let r = parse_reference("r.toml", &text).unwrap();
        assert_eq!(r.kernels[0].name, "a");
        assert_eq!((r.kernels[0].lrr, r.kernels[0].gto), (None, None));
        assert!(r.schedulers().is_empty());
    }

    #[test]
    fn duplicate_names_and_zero_cycles_are_errors() {
        let zero = FIGS.replace("cycles = 100", "cycles = 0");
        let text = file(&format!(
            "[[kernel]]\nname = \"a\"\nmanifest = \"m\"\n[kernel.lrr]\n{FIGS}\
             [[kernel]]\nname = \"a\"\nmanifest = \"m\"\n[kernel.gto]\n{zero}"
        ));
        let e = parse_reference("r.toml", &text).unwrap_err();
        let msgs: Vec<&str> = e.list.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("listed twice"), "{msgs:?}");
        assert!(msgs[1].contains("`cycles` is 0"), "{msgs:?}");
    }

    #[test]
    fn more_misses_than_accesses_is_an_error() {
        let bad = FIGS.replace("l2_misses = 5", "l2_misses = 6");
        let text = file(&format!(
            "[[kernel]]\nname = \"a\"\nmanifest = \"m\"\n[kernel.gto]\n{bad}"
        ));
        let e = parse_reference("r.toml", &text).unwrap_err();
        assert!(
            e.list[0]
                .message
                .contains("`l2_misses` (6) exceeds `l2_accesses` (5)")
        );
    }

    #[test]
    fn perturbed_runs_are_read_and_checked() {
        let good = "[[kernel.perturbed]]\ngpgpusim = \"-dram_latency 101\"\n\
                    set = \"dram.latency = 101\"\nlrr = 90\ngto = 110\n";
        let text = file(&format!(
            "[[kernel]]\nname = \"a\"\nmanifest = \"m\"\n[kernel.lrr]\n{FIGS}[kernel.gto]\n{FIGS}{good}"
        ));
        let r = parse_reference("r.toml", &text).unwrap();
        let p = &r.kernels[0].perturbed[0];
        assert_eq!((p.lrr, p.gto), (90, 110));
        assert_eq!(
            p.key_value(),
            Some(("dram.latency".to_string(), "101".to_string()))
        );
        let bad = good
            .replace("dram.latency = 101", "dram.latency")
            .replace("gto = 110", "gto = 0");
        let text = file(&format!(
            "[[kernel]]\nname = \"a\"\nmanifest = \"m\"\n[kernel.lrr]\n{FIGS}{bad}"
        ));
        let e = parse_reference("r.toml", &text).unwrap_err();
        assert_eq!(e.list.len(), 1);
        assert!(
            e.list[0].message.contains("is not `key=value`"),
            "{}",
            e.list[0].message
        );
        let zero = good.replace("gto = 110", "gto = 0");
        let text = file(&format!(
            "[[kernel]]\nname = \"a\"\nmanifest = \"m\"\n[kernel.lrr]\n{FIGS}[kernel.gto]\n{FIGS}{zero}"
        ));
        let e = parse_reference("r.toml", &text).unwrap_err();
        assert!(e.list[0].message.contains("is 0"), "{}", e.list[0].message);
    }

    #[test]
    fn schedulers_present_are_listed_in_order() {
        let text = file(&format!(
            "[[kernel]]\nname = \"a\"\nmanifest = \"m\"\n[kernel.gto]\n{FIGS}"
        ));
        let r = parse_reference("r.toml", &text).unwrap();
        assert_eq!(r.schedulers(), vec![Sched::Gto]);
        assert_eq!(r.kernels[0].line, 5);
        assert_eq!(r.kernels[0].gto.unwrap().thread_insts, 3200);
    }
}
