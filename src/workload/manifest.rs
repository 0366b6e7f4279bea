//! Launch manifests (`kernels/NAME.toml`, format in PTX.md): which PTX file
//! and entry, which host workload, the launch shape, and the workload's
//! arguments. Errors carry the manifest's file name and the span of the
//! offending key or value.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::ptx::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span};

/// A parsed manifest.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The PTX file, relative to the manifest.
    pub ptx: PathBuf,
    /// Entry to launch (optional when the module has one entry).
    pub entry: Option<String>,
    /// Host workload name (see [`crate::workload::registry`]).
    pub workload: String,
    /// CTAs per dimension (the workload may derive it from `args` instead).
    pub grid: Option<[u32; 3]>,
    /// Threads per CTA per dimension.
    pub block: Option<[u32; 3]>,
    /// Registers per thread, for occupancy.
    pub regs_per_thread: Option<u32>,
    /// Arguments handed to the workload.
    #[serde(default)]
    pub args: toml::Table,
    /// Buffers of the generic `buffers` workload.
    #[serde(default)]
    pub buffers: Vec<toml::Table>,
    /// Parameters of the generic `buffers` workload, in order.
    #[serde(default)]
    pub params: Vec<toml::Value>,
    /// Bytes of dynamic shared memory per CTA of the `buffers` workload's
    /// launches (the default of each `[[launch]]`).
    pub shared_bytes: Option<toml::Value>,
    /// Initial contents (and expectations) of module-scope `.global` /
    /// `.const` variables, for the `buffers` workload.
    #[serde(default)]
    pub symbols: Vec<toml::Table>,
    /// The `buffers` workload's launches and host loops, in order.
    #[serde(default)]
    pub launch: Vec<toml::Table>,
    /// Buffers to write to files after the run (any workload).
    #[serde(default)]
    pub dump: Vec<DumpSpec>,
    /// Texture references the `buffers` workload binds
    /// ([`crate::workload::textures`]).
    #[serde(default)]
    pub textures: Vec<toml::Table>,
}

/// One `dump = [{ buffer = "x", file = "x.bin" }]` entry: after the run,
/// the named allocation's bytes go to `file` (relative to the manifest),
/// raw little-endian.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DumpSpec {
    /// The allocation's name (a buffer, a driver's named allocation, or a
    /// module-scope variable).
    pub buffer: String,
    /// Where to write it.
    pub file: PathBuf,
}

/// A manifest with where it came from.
#[derive(Clone, Debug)]
pub struct LoadedManifest {
    /// The parsed content.
    pub manifest: Manifest,
    /// The manifest file.
    pub path: PathBuf,
    /// Its text (for diagnostics that point into it).
    pub file: SourceFile,
}

impl LoadedManifest {
    /// The PTX path, resolved against the manifest's directory.
    pub fn ptx_path(&self) -> PathBuf {
        self.path
            .parent()
            .unwrap_or(Path::new("."))
            .join(&self.manifest.ptx)
    }

    /// A diagnostic about the manifest (no span: the whole file).
    pub fn error(&self, code: &'static str, message: impl Into<String>) -> Diagnostics {
        Diagnostics {
            file: self.file.clone(),
            list: vec![Diagnostic::new(code, message)],
        }
    }
}

/// Parses manifest text; `name` is used in diagnostics.
pub fn parse_manifest(name: &str, text: &str) -> Result<Manifest, Diagnostics> {
    toml::from_str::<Manifest>(text).map_err(|e| {
        let span = e.span().map_or(Span::new(0, 0), |r| Span::new(r.start, r.end));
        let msg = e.message().to_string();
        let mut d = Diagnostic::new("gpusim::manifest::invalid", format!("invalid manifest: {msg}"))
            .label(span, "here");
        if msg.contains("unknown field") {
            d = d.help("the keys are: ptx, entry, workload, grid, block, regs_per_thread, shared_bytes, params, dump, [args], [[buffers]], [[symbols]], [[launch]], [[textures]]");
        }
        Diagnostics { file: SourceFile::new(name, text), list: vec![d] }
    })
}

/// Reads a manifest file.
pub fn load_manifest(path: &Path) -> Result<LoadedManifest, Diagnostics> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Diagnostics {
        file: SourceFile::new(name.clone(), ""),
        list: vec![Diagnostic::new(
            "gpusim::io::read",
            format!("cannot read manifest `{name}`: {e}"),
        )],
    })?;
    let manifest = parse_manifest(&name, &text)?;
    Ok(LoadedManifest {
        manifest,
        path: path.to_path_buf(),
        file: SourceFile::new(name, text),
    })
}

/// The manifest beside a PTX file: `K.ptx` → `K.toml`.
pub fn manifest_beside(ptx: &Path) -> PathBuf {
    ptx.with_extension("toml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let m = parse_manifest(
            "m.toml",
            "ptx = \"spmv_scalar.ptx\"\nentry = \"spmv_csr_scalar_kernel\"\nworkload = \"spmv\"\n\
             grid = [64, 1, 1]\nblock = [128, 1, 1]\nregs_per_thread = 20\n[args]\nrows = 8192\nseed = 1\n",
        )
        .unwrap();
        assert_eq!(m.workload, "spmv");
        assert_eq!(m.grid, Some([64, 1, 1]));
        assert_eq!(m.args["rows"].as_integer(), Some(8192));
    }

    #[test]
    fn unknown_keys_are_errors_with_spans() {
        let e = parse_manifest(
            "m.toml",
            "ptx = \"k.ptx\"\nworkload = \"x\"\ngird = [1,1,1]\n",
        )
        .unwrap_err();
        let d = &e.list[0];
        assert_eq!(d.code, "gpusim::manifest::invalid");
        assert!(d.message.contains("gird"), "{}", d.message);
        let s = d.span().unwrap();
        assert_eq!(
            &"ptx = \"k.ptx\"\nworkload = \"x\"\ngird = [1,1,1]\n"[s.range()],
            "gird"
        );
    }
}
