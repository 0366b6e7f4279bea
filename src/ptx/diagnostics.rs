//! Diagnostics: every error the front end reports, with a stable code, a
//! message, labelled source spans and an optional help line, rendered with
//! miette.
//!
//! Codes are namespaced by the pass that found the problem:
//! `gpusim::parse::…` (lexer and parser) and `gpusim::lower::…` (name
//! resolution and type checking). They are part of the public interface:
//! tests and users may match on them.

use std::fmt;
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode};

/// A byte range in a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets.
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The byte range, for slicing the source.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// An empty span just after this one (where something is missing).
    pub fn after(self) -> Span {
        Span {
            start: self.end,
            end: self.end,
        }
    }
}

/// One error found in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code, e.g. `gpusim::lower::undeclared_register`.
    pub code: &'static str,
    /// One-line description of the problem.
    pub message: String,
    /// Labelled spans; the first is the primary one.
    pub labels: Vec<(Span, String)>,
    /// What to do about it, when we can say.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with a code and a message, no spans yet.
    pub fn new(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            labels: Vec::new(),
            help: None,
        }
    }

    /// Adds a labelled span (the first one added is the primary span).
    pub fn label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }

    /// Sets the help line.
    pub fn help(mut self, text: impl Into<String>) -> Diagnostic {
        self.help = Some(text.into());
        self
    }

    /// The primary span, if the diagnostic has one.
    pub fn span(&self) -> Option<Span> {
        self.labels.first().map(|l| l.0)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A source file: its display name and text, shared cheaply.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name diagnostics show (usually the path as given).
    pub name: Arc<str>,
    /// The whole text.
    pub text: Arc<str>,
}

impl SourceFile {
    /// Wraps a name and a text.
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<Arc<str>>) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: text.into(),
        }
    }

    /// 1-based line number of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        let end = (offset as usize).min(self.text.len());
        1 + self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32
    }
}

/// Every diagnostic of one file, with the file itself, ready to render.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    /// The file the diagnostics point into.
    pub file: SourceFile,
    /// The diagnostics, in source order.
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Renders every diagnostic, one after another, without colour (the form
    /// tests assert) or with it (for a terminal).
    pub fn render(&self, colour: bool) -> String {
        let theme = if colour {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_links(false)
            .with_width(100);
        // Control characters (binary garbage) are shown as `\xNN`, the
        // spans moved to match.
        let controls: Vec<u32> = self
            .file
            .text
            .bytes()
            .enumerate()
            .filter(|&(_, b)| is_hidden_control(b))
            .map(|(i, _)| i as u32)
            .collect();
        let text: Arc<str> = if controls.is_empty() {
            self.file.text.clone()
        } else {
            let mut t = String::with_capacity(self.file.text.len() + 3 * controls.len());
            for c in self.file.text.chars() {
                if c.is_ascii() && is_hidden_control(c as u8) {
                    t.push_str(&format!("\\x{:02x}", c as u32));
                } else {
                    t.push(c);
                }
            }
            t.into()
        };
        let moved = |o: u32| o + 3 * controls.partition_point(|&c| c < o) as u32;
        let source = NamedSource::new(&self.file.name, text).with_language("ptx");
        let mut out = String::new();
        for d in &self.list {
            let mut d = d.clone();
            for (span, _) in &mut d.labels {
                *span = Span::new(moved(span.start) as usize, moved(span.end) as usize);
            }
            let report = Rendered {
                diag: &d,
                source: &source,
            };
            // Writing into a String cannot fail.
            let _ = handler.render_report(&mut out, &report);
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}

/// A byte shown as `\xNN` in rendered source: ASCII control characters
/// other than tab, newline and carriage return.
fn is_hidden_control(b: u8) -> bool {
    (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f
}

/// A diagnostic bound to its source, as miette wants it.
#[derive(Debug)]
struct Rendered<'a> {
    diag: &'a Diagnostic,
    source: &'a NamedSource<Arc<str>>,
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.diag.code))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        if self.diag.labels.is_empty() {
            None
        } else {
            Some(self.source)
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.diag.labels.is_empty() {
            return None;
        }
        let len = self.source.inner().len();
        Some(Box::new(self.diag.labels.iter().enumerate().map(
            move |(i, (span, text))| {
                let start = (span.start as usize).min(len);
                let end = (span.end as usize).clamp(start, len);
                let label = if text.is_empty() {
                    None
                } else {
                    Some(text.clone())
                };
                if i == 0 {
                    LabeledSpan::new_primary_with_span(label, start..end)
                } else {
                    LabeledSpan::new_with_span(label, start..end)
                }
            },
        )))
    }
}
