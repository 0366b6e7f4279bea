//! A compiled PTX module: the immutable product of the front end and the
//! analyses, shared by every simulation of it.

use std::path::Path;

use crate::analysis::KernelAnalysis;
use crate::ir::lower::lower;
use crate::ir::{Kernel, Module};
use crate::ptx::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::ptx::suggest::closest;
use crate::ptx::{lexer, parser};

/// A checked module with its analyses, ready to simulate.
#[derive(Clone, Debug)]
pub struct Program {
    /// The source it came from.
    pub file: SourceFile,
    /// The lowered kernels.
    pub module: Module,
    /// One analysis per kernel, same order as `module.kernels`.
    pub analyses: Vec<KernelAnalysis>,
}

/// Runs the front end on `file`: lex, parse, lower, then the analyses. All
/// diagnostics of every pass are returned together, in source order.
pub fn compile(file: SourceFile) -> Result<Program, Diagnostics> {
    let (file, module) = front_end(file)?;
    let analyses = module.kernels.iter().map(KernelAnalysis::new).collect();
    Ok(Program {
        file,
        module,
        analyses,
    })
}

/// Lex, parse and lower only (no analyses): the part whose throughput
/// `benches/frontend.rs` measures.
pub fn front_end(file: SourceFile) -> Result<(SourceFile, Module), Diagnostics> {
    let src: &str = &file.text;
    if let Some(d) = crate::ptx::not_ptx::check(src) {
        return Err(Diagnostics {
            file,
            list: vec![d],
        });
    }
    let (tokens, mut diags) = lexer::lex(src);
    let (ast, parse_diags) = parser::parse(src, &tokens);
    diags.extend(parse_diags);
    let (module, lower_diags) = lower(&ast, src);
    diags.extend(lower_diags);
    if !diags.is_empty() {
        diags.sort_by_key(|d| d.span().map_or(u32::MAX, |s| s.start));
        return Err(Diagnostics { file, list: diags });
    }
    if module.kernels.is_empty() {
        let d = Diagnostic::new(
            "gpusim::lower::no_entry",
            "the module defines no kernel (`.entry`)",
        )
        .label(Span::new(0, 0), "no `.entry` in this file")
        .help("a kernel is `.visible .entry name(params) { … }`");
        return Err(Diagnostics {
            file,
            list: vec![d],
        });
    }
    Ok((file, module))
}

/// Reads and compiles a PTX file. I/O failures and invalid UTF-8 are
/// diagnostics too (`gpusim::io::read`, `gpusim::parse::invalid_utf8`).
pub fn load(path: &Path) -> Result<Program, Diagnostics> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Diagnostics {
        file: SourceFile::new(name.clone(), ""),
        list: vec![Diagnostic::new(
            "gpusim::io::read",
            format!("cannot read `{name}`: {e}"),
        )],
    })?;
    compile_bytes(&name, &bytes)
}

/// Compiles raw bytes (which may not be UTF-8) named `name`.
pub fn compile_bytes(name: &str, bytes: &[u8]) -> Result<Program, Diagnostics> {
    match std::str::from_utf8(bytes) {
        Ok(text) => compile(SourceFile::new(name, text)),
        Err(e) => {
            // Invalid bytes are shown as `\xNN` (the rest as it is).
            let mut text = String::with_capacity(bytes.len());
            let mut at = None;
            let mut shown = String::new();
            for chunk in bytes.utf8_chunks() {
                text.push_str(chunk.valid());
                if !chunk.invalid().is_empty() && at.is_none() {
                    at = Some(text.len());
                }
                for b in chunk.invalid() {
                    let esc = format!("\\x{b:02x}");
                    if at == Some(text.len() - shown.len()) || shown.is_empty() {
                        shown.push_str(&esc);
                    }
                    text.push_str(&esc);
                }
            }
            let at = at.unwrap_or(e.valid_up_to());
            let d = Diagnostic::new(
                "gpusim::parse::invalid_utf8",
                format!(
                    "the file is not valid UTF-8: bytes {shown} at byte {}",
                    e.valid_up_to()
                ),
            )
            .label(Span::new(at, at + shown.len()), "invalid bytes here")
            .help("PTX is ASCII text");
            Err(Diagnostics {
                file: SourceFile::new(name, text),
                list: vec![d],
            })
        }
    }
}

impl Program {
    /// Picks a kernel: by name, or the only one when `name` is `None`.
    /// Errors are `gpusim::lower::entry_not_found` and
    /// `gpusim::lower::ambiguous_entry`, listing the module's kernels.
    pub fn entry(&self, name: Option<&str>) -> Result<usize, Diagnostics> {
        let names: Vec<&str> = self
            .module
            .kernels
            .iter()
            .map(|k| k.name.as_str())
            .collect();
        let list = names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let fail = |d: Diagnostic| {
            Err(Diagnostics {
                file: self.file.clone(),
                list: vec![d],
            })
        };
        match name {
            Some(n) => match names.iter().position(|k| *k == n) {
                Some(i) => Ok(i),
                None => {
                    let help = match closest(n, names.iter().copied()) {
                        Some(s) => format!("did you mean `{s}`? the module defines {list}"),
                        None => format!("the module defines {list}"),
                    };
                    fail(
                        Diagnostic::new(
                            "gpusim::lower::entry_not_found",
                            format!("entry `{n}` not found in `{}`", self.file.name),
                        )
                        .help(help),
                    )
                }
            },
            None if names.len() == 1 => Ok(0),
            None => fail(
                Diagnostic::new(
                    "gpusim::lower::ambiguous_entry",
                    format!("`{}` defines {} kernels", self.file.name, names.len()),
                )
                .help(format!("pick one with `--entry`: {list}")),
            ),
        }
    }

    /// The kernel at index `i`.
    pub fn kernel(&self, i: usize) -> &Kernel {
        &self.module.kernels[i]
    }

    /// The source text of an instruction (as written, whitespace collapsed).
    pub fn inst_text(&self, kernel: usize, inst: usize) -> String {
        let span = self.module.kernels[kernel].insts[inst].span;
        let text = self.file.text.get(span.range()).unwrap_or("");
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}
