//! Running a manifest end to end in functional-only mode: load the manifest
//! and the PTX, build the workload, run it, report.

use std::path::{Path, PathBuf};

use crate::func::GlobalMemory;

use crate::program::Program;
use crate::ptx::diagnostics::Diagnostics;
use crate::workload::args::Args;
use crate::workload::check::Check;
use crate::workload::host::{
    FunctionalHost, FunctionalLaunch, FunctionalOptions, TraceFn, WorkloadError,
};
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
    /// Allocations to write to files after the run: the manifest's `dump`
    /// (paths resolved against its directory) plus any added by
    /// [`Prepared::add_dump`] (`--dump`).
    pub dumps: Vec<(String, PathBuf)>,
}

impl Prepared {
    /// Also dumps allocation `name` to `file` after the run.
    pub fn add_dump(&mut self, name: &str, file: &Path) {
        self.dumps.push((name.to_string(), file.to_path_buf()));
    }

    /// Replaces the manifest's launch shape (`--grid`, `--block`): the
    /// top-level `grid`/`block`, which workloads read and which every
    /// `[[launch]]` of the `buffers` workload that gives none inherits.
    pub fn override_shape(&mut self, grid: Option<[u32; 3]>, block: Option<[u32; 3]>) {
        let m = &mut self.manifest.manifest;
        if grid.is_some() {
            m.grid = grid;
        }
        if block.is_some() {
            m.block = block;
        }
    }
}

/// The contents of the allocations `dumps` names, from `global` after a
/// run: `(file, bytes)` in order. An unknown name is an error listing the
/// names there are.
pub fn capture_dumps(
    global: &GlobalMemory,
    dumps: &[(String, PathBuf)],
) -> Result<Vec<(PathBuf, Vec<u8>)>, WorkloadError> {
    let mut out = Vec::with_capacity(dumps.len());
    for (name, file) in dumps {
        let Some((_, bytes)) = global.named(name) else {
            let names: Vec<String> = global.names().iter().map(|n| format!("`{n}`")).collect();
            let hint = crate::ptx::suggest::closest(name, global.names())
                .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
            return Err(WorkloadError::Host(format!(
                "cannot dump `{name}`: no buffer of that name{hint}; the run allocated {}",
                names.join(", ")
            )));
        };
        out.push((file.clone(), bytes.to_vec()));
    }
    Ok(out)
}

/// Writes captured dumps (raw bytes, little-endian as in device memory).
pub fn write_dumps(dumps: &[(PathBuf, Vec<u8>)]) -> Result<(), String> {
    for (file, bytes) in dumps {
        std::fs::write(file, bytes).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    Ok(())
}

/// Fails unless every path can be opened for writing (checked before a
/// run starts, so a long simulation does not end in an unwritable file).
/// An existing file is not truncated; one this check creates is removed.
pub fn check_writable<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<(), String> {
    for p in paths {
        // Open for append so an existing file is not truncated before the
        // run; a file this check created is removed again.
        let existed = p.exists();
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(p)
            .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        if !existed {
            let _ = std::fs::remove_file(p);
        }
    }
    Ok(())
}

/// Loads the manifest for `path` (a `.toml`, or a `.ptx` with its manifest
/// beside it, or `launch` when given) and compiles its PTX.
pub fn prepare(path: &Path, launch: Option<&Path>) -> Result<Prepared, RunError> {
    let mpath = match launch {
        Some(l) => l.to_path_buf(),
        None if path.extension().is_some_and(|e| e == "toml") => path.to_path_buf(),
        None => manifest_beside(path),
    };
    if path.extension().is_some_and(|e| e != "toml") && !path.exists() {
        // `run K.ptx` with no K.ptx: say so, not that K.toml is missing.
        return Err(RunError::Diagnostics(Diagnostics {
            file: crate::ptx::diagnostics::SourceFile::new(path.display().to_string(), ""),
            list: vec![crate::ptx::diagnostics::Diagnostic::new(
                "gpusim::io::read",
                format!(
                    "cannot read the PTX file `{}`: {}",
                    path.display(),
                    std::fs::metadata(path)
                        .err()
                        .map_or_else(|| "not found".to_string(), |e| e.to_string())
                ),
            )],
        }));
    }
    let manifest = load_manifest(&mpath)?;
    let ptx = if launch.is_some() && path.extension().is_some_and(|e| e == "ptx") {
        path.to_path_buf()
    } else {
        manifest.ptx_path()
    };
    if !ptx.exists() {
        // Name the manifest that points at the missing file.
        return Err(RunError::Diagnostics(Diagnostics {
            file: crate::ptx::diagnostics::SourceFile::new(ptx.display().to_string(), ""),
            list: vec![
                crate::ptx::diagnostics::Diagnostic::new(
                    "gpusim::io::read",
                    format!(
                        "cannot read the PTX file `{}`: {}",
                        ptx.display(),
                        std::fs::metadata(&ptx)
                            .err()
                            .map_or_else(|| "not found".to_string(), |e| e.to_string())
                    ),
                )
                .help(
                    if launch.is_some() && path.extension().is_some_and(|e| e == "ptx") {
                        "the file given on the command line".to_string()
                    } else {
                        format!(
                            "the manifest `{}` names it (`ptx = \"{}\"`, relative to the manifest)",
                            mpath.display(),
                            manifest.manifest.ptx.display()
                        )
                    },
                ),
            ],
        }));
    }
    let program = crate::program::load(&ptx)?;
    let entries: Vec<&str> = program
        .module
        .kernels
        .iter()
        .map(|k| k.name.as_str())
        .collect();
    manifest.check_regs_kernels(&entries)?;
    let (entry, entry_named) = match manifest.manifest.entry.as_deref() {
        // Several entries and none named: the workload picks per launch.
        None if program.module.kernels.len() > 1 => (0, false),
        name => (program.entry(name)?, true),
    };
    let dir = manifest
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let dumps = manifest
        .manifest
        .dump
        .iter()
        .map(|d| (d.buffer.clone(), dir.join(&d.file)))
        .collect();
    Ok(Prepared {
        manifest,
        program,
        entry,
        entry_named,
        dumps,
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
    /// The dumped allocations: `(file, bytes)` ([`Prepared::dumps`]), to be
    /// written with [`write_dumps`].
    pub dumps: Vec<(PathBuf, Vec<u8>)>,
    /// Every launch with its counts, in order.
    pub per_launch: Vec<FunctionalLaunch>,
}

/// Builds the manifest's workload with `overrides` (`key=value` argument
/// overrides) applied.
pub fn build_workload(
    p: &Prepared,
    overrides: &[(String, String)],
) -> Result<Box<dyn crate::workload::Workload>, RunError> {
    let m = &p.manifest.manifest;
    if m.workload != "buffers" {
        let only_buffers = [
            ("shared_bytes", m.shared_bytes.is_some()),
            ("[[symbols]]", !m.symbols.is_empty()),
            ("[[launch]]", !m.launch.is_empty()),
            ("[[textures]]", !m.textures.is_empty()),
        ];
        if let Some((key, _)) = only_buffers.iter().find(|(_, given)| *given) {
            return Err(RunError::Workload(WorkloadError::Args(format!(
                "`{key}` is read only by the `buffers` workload; `{}` decides its own launches",
                m.workload
            ))));
        }
    }
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
        shared_bytes: m.shared_bytes.clone(),
        symbols: m.symbols.clone(),
        steps: m.launch.clone(),
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
    let dumps = capture_dumps(&host.global, &p.dumps)?;
    Ok(FunctionalRun {
        dumps,
        check,
        warp_insts: host.stats.warp_insts,
        thread_insts: host.stats.thread_insts,
        launches: host.launches,
        ctas: host.stats.ctas,
        per_launch: host.launch_log,
    })
}
