//! Launch manifests (`kernels/NAME.toml`, format in PTX.md): which PTX file
//! and entry, which host workload, the launch shape, and the workload's
//! arguments. Errors carry the manifest's file name and the span of the
//! offending key or value.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};

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
    /// Registers per thread, for occupancy: one count, or one per kernel
    /// (with the span of the value, for diagnostics).
    pub regs_per_thread: Option<toml::Spanned<RegsPerThread>>,
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

/// A manifest's `regs_per_thread`: what GPGPU-Sim takes from ptxas, per
/// kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegsPerThread {
    /// `regs_per_thread = 20`: the count of every kernel the manifest
    /// launches.
    All(u32),
    /// `regs_per_thread = { Kernel = 20, Kernel2 = 6 }`: the count of each
    /// kernel, by its name as the PTX spells it; every kernel the
    /// workload launches must be named.
    PerKernel(BTreeMap<String, u32>),
}

impl RegsPerThread {
    /// The count for `kernel`; `None` when a table does not name it.
    pub fn get(&self, kernel: &str) -> Option<u32> {
        match self {
            RegsPerThread::All(n) => Some(*n),
            RegsPerThread::PerKernel(m) => m.get(kernel).copied(),
        }
    }
}

/// Reads `regs_per_thread` as a count or a table of counts.
struct RegsVisitor;

impl<'de> Visitor<'de> for RegsVisitor {
    type Value = RegsPerThread;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a register count (`regs_per_thread = 20`) or a table of counts per kernel \
             (`regs_per_thread = { Kernel = 20, Kernel2 = 6 }`)",
        )
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RegsPerThread, E> {
        u32::try_from(v).map(RegsPerThread::All).map_err(|_| {
            E::invalid_value(de::Unexpected::Signed(v), &"a count from 0 to 4294967295")
        })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RegsPerThread, E> {
        u32::try_from(v).map(RegsPerThread::All).map_err(|_| {
            E::invalid_value(de::Unexpected::Unsigned(v), &"a count from 0 to 4294967295")
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RegsPerThread, A::Error> {
        let mut counts = BTreeMap::new();
        while let Some((kernel, n)) = map.next_entry::<String, u32>()? {
            counts.insert(kernel, n);
        }
        if counts.is_empty() {
            return Err(de::Error::invalid_length(
                0,
                &"a table naming at least one kernel (`{ Kernel = 20 }`)",
            ));
        }
        Ok(RegsPerThread::PerKernel(counts))
    }
}

impl<'de> Deserialize<'de> for RegsPerThread {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<RegsPerThread, D::Error> {
        d.deserialize_any(RegsVisitor)
    }
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

    /// `file:line` of the manifest's `regs_per_thread` value (the
    /// manifest's name alone when it has none).
    fn regs_location(&self) -> String {
        match &self.manifest.regs_per_thread {
            Some(r) => format!(
                "{}:{}",
                self.file.name,
                self.file.line_of(r.span().start as u32)
            ),
            None => self.file.name.to_string(),
        }
    }

    /// The registers per thread the manifest gives `kernel`: `Ok(None)`
    /// when it has no `regs_per_thread` (the caller estimates), an error
    /// naming the kernel and the manifest's file and line when a table
    /// leaves the kernel out.
    pub fn regs_for(&self, kernel: &str) -> Result<Option<u32>, String> {
        let Some(r) = &self.manifest.regs_per_thread else {
            return Ok(None);
        };
        let m = match r.get_ref() {
            RegsPerThread::All(n) => return Ok(Some(*n)),
            RegsPerThread::PerKernel(m) => m,
        };
        match m.get(kernel) {
            Some(n) => Ok(Some(*n)),
            None => Err(format!(
                "{}: regs_per_thread gives no count for kernel `{kernel}`, which the workload launches \
                 (the table names {}); add `{kernel} = N` with ptxas's count (`ptxas -v`: \"Used N registers\")",
                self.regs_location(),
                m.keys()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Checks that every kernel a `regs_per_thread` table names is an
    /// entry of the module (`entries`): a misspelt name would otherwise
    /// only surface when the kernel it meant is launched.
    pub fn check_regs_kernels(&self, entries: &[&str]) -> Result<(), Diagnostics> {
        let Some(r) = &self.manifest.regs_per_thread else {
            return Ok(());
        };
        let RegsPerThread::PerKernel(m) = r.get_ref() else {
            return Ok(());
        };
        let list = entries
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        if let Some(k) = m.keys().find(|k| !entries.contains(&k.as_str())) {
            let span = Span::new(r.span().start, r.span().end);
            let help = match crate::ptx::suggest::closest(k, entries.iter().copied()) {
                Some(s) => format!("did you mean `{s}`? the module defines {list}"),
                None => format!("the module defines {list}"),
            };
            return Err(Diagnostics {
                file: self.file.clone(),
                list: vec![
                    Diagnostic::new(
                        "gpusim::manifest::regs_kernel",
                        format!("regs_per_thread names `{k}`, which is not a kernel of the module"),
                    )
                    .label(span, "here")
                    .help(help),
                ],
            });
        }
        Ok(())
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
    fn regs_per_thread_is_a_count_or_a_table_per_kernel() {
        let regs = |v: &str| {
            parse_manifest(
                "m.toml",
                &format!("ptx = \"k.ptx\"\nworkload = \"x\"\nregs_per_thread = {v}\n"),
            )
            .map(|m| m.regs_per_thread.map(|r| r.into_inner()))
        };
        assert_eq!(regs("20").unwrap(), Some(RegsPerThread::All(20)));
        let t = regs("{ Kernel = 20, Kernel2 = 6 }").unwrap().unwrap();
        assert_eq!(
            t,
            RegsPerThread::PerKernel(BTreeMap::from([
                ("Kernel".to_string(), 20),
                ("Kernel2".to_string(), 6)
            ]))
        );
        assert_eq!(t.get("Kernel2"), Some(6));
        assert_eq!(t.get("Kernel3"), None);
        assert_eq!(RegsPerThread::All(8).get("anything"), Some(8));
        assert!(regs("4294967296").is_err());
        assert!(regs("{ Kernel = 1.5 }").is_err());
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
