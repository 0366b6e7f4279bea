//! Running a manifest end to end in functional-only mode: load the manifest
//! and the PTX, build the workload, run it, report.

use std::path::Path;

use crate::program::Program;
use crate::ptx::diagnostics::Diagnostics;
use crate::workload::args::Args;
use crate::workload::check::Check;
use crate::workload::host::{FunctionalHost, FunctionalOptions, TraceFn, WorkloadError};
use crate::workload::manifest::{LoadedManifest, load_manifest, manifest_beside};
use crate::workload::{Launch, registry};

/// Why a run could not produce a check result.
#[derive(Debug)]
pub enum RunError {
    /// The manifest or the PTX has errors.
    Diagnostics(Diagnostics),
    /// The workload or simulation failed.
    Workload(WorkloadError),
}

impl From<Diagnostics> for RunError {
    fn from(d: Diagnostics) -> Self {
        RunError::Diagnostics(d)
    }
}

impl From<WorkloadError> for RunError {
    fn from(e: WorkloadError) -> Self {
        RunError::Workload(e)
    }
}

/// A manifest with its program loaded and entry chosen.
pub struct Prepared {
    /// The manifest.
    pub manifest: LoadedManifest,
    /// The compiled PTX.
    pub program: Program,
    /// Index of the manifest's entry (the only kernel when the manifest
    /// names none; the first kernel when the module has several and the
    /// manifest names none, see [`Prepared::entry_named`]).
    pub entry: usize,
    /// False when the module defines several kernels and the manifest names
    /// none: the workload then names every kernel it launches (FWT, BFS),
    /// and a launch without a name is an error rather than a guess.
    pub entry_named: bool,
}

/// Loads the manifest for `path` (a `.toml`, or a `.ptx` with its manifest
/// beside it, or `launch` when given) and compiles its PTX.
pub fn prepare(path: &Path, launch: Option<&Path>) -> Result<Prepared, RunError> {
    let mpath = match launch {
        Some(l) => l.to_path_buf(),
        None if path.extension().is_some_and(|e| e == "toml") => path.to_path_buf(),
        None => manifest_beside(path),
    };
    let manifest = load_manifest(&mpath)?;
    let ptx = if launch.is_some() && path.extension().is_some_and(|e| e == "ptx") {
        path.to_path_buf()
    } else {
        manifest.ptx_path()
    };
    let program = crate::program::load(&ptx)?;
    let (entry, entry_named) = match manifest.manifest.entry.as_deref() {
        // Several entries and none named: the workload picks per launch.
        None if program.module.kernels.len() > 1 => (0, false),
        name => (program.entry(name)?, true),
    };
    Ok(Prepared {
        manifest,
        program,
        entry,
        entry_named,
    })
}

/// The outcome of a functional run.
#[derive(Clone, Debug)]
pub struct FunctionalRun {
    /// Check result.
    pub check: Check,
    /// Warp instructions executed over all launches.
    pub warp_insts: u64,
    /// Thread instructions executed.
    pub thread_insts: u64,
    /// Kernel launches.
    pub launches: u64,
    /// CTAs run.
    pub ctas: u64,
}

/// Builds the manifest's workload with `overrides` (`key=value` argument
/// overrides) applied.
pub fn build_workload(
    p: &Prepared,
    overrides: &[(String, String)],
) -> Result<Box<dyn crate::workload::Workload>, RunError> {
    let m = &p.manifest.manifest;
    let mut args = Args::new(m.args.clone());
    for (k, v) in overrides {
        args.set_from_text(k, v);
    }
    let launch = Launch {
        grid: m.grid,
        block: m.block,
        buffers: m.buffers.clone(),
        textures: m.textures.clone(),
        params: m.params.clone(),
        dir: p
            .manifest
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        entry: m.entry.clone(),
    };
    Ok(registry::create(&m.workload, &mut args, launch)?)
}

/// Runs a prepared manifest functionally; `overrides` are `key=value`
/// argument overrides.
pub fn run_functional(
    p: &Prepared,
    overrides: &[(String, String)],
    options: FunctionalOptions,
    trace: Option<TraceFn<'_>>,
) -> Result<FunctionalRun, RunError> {
    let mut workload = build_workload(p, overrides)?;
    let mut host = FunctionalHost::new(&p.program, p.entry, options);
    if !p.entry_named {
        host.require_named_entries();
    }
    if let Some(t) = trace {
        host.set_trace(t);
    }
    let check = workload.run(&mut host)?;
    Ok(FunctionalRun {
        check,
        warp_insts: host.stats.warp_insts,
        thread_insts: host.stats.thread_insts,
        launches: host.launches,
        ctas: host.stats.ctas,
    })
}
