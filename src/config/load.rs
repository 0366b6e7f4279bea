//! Loading a config: a preset name or a TOML file (possibly partial, on top
//! of a `base` preset), then `--set key=value` overrides, then validation.
//! Every problem becomes a [`Diagnostic`] with a `gpusim::config::*` code
//! and, where there is one, the span of the offending key or value in the
//! file or in the `--set` text.

use std::collections::HashMap;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeInteger, DeTable, DeValue};

use super::schema::{FieldInfo, FieldKind, FieldValue, SECTIONS, field, fields, section};
use super::{GpuConfig, PRESETS, preset_text};
use crate::ptx::diagnostics::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::ptx::suggest::closest;

/// Resolves a machine config.
///
/// `spec` is a preset name (one of [`PRESETS`]) or the path of a TOML file.
/// A preset name wins over a file of the same name (write `./gtx480` for
/// the file). A file may be partial: it starts from the preset named by its
/// top-level `base = "PRESET"` key (gtx480 when absent) and overrides the
/// fields it names. Then each `(key, value)` of `sets` overrides the field
/// with that dotted key (`l1d.ways`, `8`), the value parsed as a TOML value
/// (`8`, `[4, 13, 4, 5, 145]`, `false`), in order. Finally the result is
/// validated ([`GpuConfig::validate`]).
///
/// Errors are diagnostics pointing into the file or into the `--set`
/// text (one line `key=value` per override, named `--set`).
pub fn load_config(spec: &str, sets: &[(String, String)]) -> Result<GpuConfig, Diagnostics> {
    if let Some(base) = PRESETS.iter().find(|p| **p == spec) {
        return resolve(base, None, sets);
    }
    match std::fs::read_to_string(Path::new(spec)) {
        Ok(text) => parse_config(spec, &text, sets),
        Err(e) => {
            let looks_like_name = !spec.contains(['/', '\\', '.']);
            let mut d = if looks_like_name {
                Diagnostic::new(
                    "gpusim::config::unknown_preset",
                    format!("`{spec}` is neither a preset nor a readable file ({e})"),
                )
            } else {
                Diagnostic::new(
                    "gpusim::io::read",
                    format!("cannot read config file `{spec}`: {e}"),
                )
            };
            d = d.help(match closest(spec, PRESETS.iter().copied()) {
                Some(p) if looks_like_name => format!("did you mean the preset `{p}`?"),
                _ => format!("the presets are: {}", PRESETS.join(", ")),
            });
            Err(Diagnostics {
                file: SourceFile::new(spec, ""),
                list: vec![d],
            })
        }
    }
}

/// Like [`load_config`] for a file already read: `name` is the name
/// diagnostics show, `text` the TOML.
pub fn parse_config(
    name: &str,
    text: &str,
    sets: &[(String, String)],
) -> Result<GpuConfig, Diagnostics> {
    let file = SourceFile::new(name, text);
    let parsed = parse_file(text).map_err(|mut list| {
        list.sort_by_key(|d| d.span().map(|s| (s.start, s.end)));
        Diagnostics {
            file: file.clone(),
            list,
        }
    })?;
    resolve(parsed.base, Some((file, parsed.overrides)), sets)
}

/// One field a file or a `--set` gives a value.
struct Override {
    key: &'static str,
    value: FieldValue,
    /// From the key's start to the value's end.
    span: Span,
}

/// What a file says: its base preset and its fields.
struct ParsedFile {
    base: &'static str,
    overrides: Vec<Override>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    File,
    Set,
}

fn resolve(
    base: &'static str,
    file: Option<(SourceFile, Vec<Override>)>,
    sets: &[(String, String)],
) -> Result<GpuConfig, Diagnostics> {
    let preset_file = || {
        SourceFile::new(
            format!("preset {base}"),
            preset_text(base).unwrap_or_default(),
        )
    };
    let Some(mut config) = GpuConfig::preset(base) else {
        // Only if a shipped preset failed to parse (a test rules it out).
        return Err(Diagnostics {
            file: preset_file(),
            list: vec![Diagnostic::new(
                "gpusim::config::invalid",
                format!("the shipped preset `{base}` does not parse"),
            )],
        });
    };
    let mut origin: HashMap<&'static str, (Source, Span)> = HashMap::new();
    if let Some((_, overrides)) = &file {
        for o in overrides {
            apply(&mut config, o);
            origin.insert(o.key, (Source::File, o.span));
        }
    }

    let set_file = SourceFile::new("--set", set_text(sets));
    let set_overrides = parse_sets(sets).map_err(|list| Diagnostics {
        file: set_file.clone(),
        list,
    })?;
    for o in &set_overrides {
        apply(&mut config, o);
        origin.insert(o.key, (Source::Set, o.span));
    }

    let Err(problems) = config.validate() else {
        return Ok(config);
    };
    // The diagnostics point into one text: the `--set` text if a problem
    // involves an override from there, else the file, else the preset.
    let involves = |src: Source| {
        problems
            .iter()
            .flat_map(|p| &p.keys)
            .any(|k| origin.get(k).is_some_and(|o| o.0 == src))
    };
    let (shown, shown_file) = if involves(Source::Set) {
        (Some(Source::Set), set_file.clone())
    } else if let (true, Some((f, _))) = (involves(Source::File), &file) {
        (Some(Source::File), f.clone())
    } else {
        (None, preset_file())
    };
    let mut list: Vec<Diagnostic> = problems
        .into_iter()
        .map(|p| {
            let mut d = Diagnostic::new("gpusim::config::invalid", p.message.clone());
            let mut elsewhere = Vec::new();
            for key in &p.keys {
                let value = config.get(key).map(|v| v.to_string()).unwrap_or_default();
                match origin.get(key) {
                    Some((src, span)) if Some(*src) == shown => {
                        d = d.label(*span, format!("`{key}` = {value}"));
                    }
                    Some((Source::File, span)) => {
                        let (name, line) = file
                            .as_ref()
                            .map(|(f, _)| (f.name.to_string(), f.line_of(span.start)))
                            .unwrap_or_default();
                        elsewhere.push(format!("`{key}` = {value} ({name} line {line})"));
                    }
                    Some((Source::Set, _)) => {
                        elsewhere.push(format!("`{key}` = {value} (--set)"));
                    }
                    None => elsewhere.push(format!("`{key}` = {value} (preset {base})")),
                }
            }
            if !elsewhere.is_empty() && d.labels.len() < p.keys.len() {
                d = d.help(format!("the values involved: {}", elsewhere.join(", ")));
            }
            d
        })
        .collect();
    list.sort_by_key(|d| d.span().map(|s| (s.start, s.end)));
    Err(Diagnostics {
        file: shown_file,
        list,
    })
}

fn apply(config: &mut GpuConfig, o: &Override) {
    // The value was converted for this key's kind, so this cannot fail.
    let _ = config.set(o.key, o.value);
}

/// The `--set` overrides as one text, a line `key=value` each, for
/// diagnostics to point into.
fn set_text(sets: &[(String, String)]) -> String {
    sets.iter()
        .map(|(k, v)| format!("{}={}\n", k.trim(), v.trim()))
        .collect()
}

fn parse_sets(sets: &[(String, String)]) -> Result<Vec<Override>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut offset = 0;
    for (k, v) in sets {
        let (k, v) = (k.trim(), v.trim());
        let key_span = Span::new(offset, offset + k.len());
        let value_start = offset + k.len() + 1;
        let value_span = Span::new(value_start, value_start + v.len());
        offset = value_start + v.len() + 1;
        let Some(f) = field(k) else {
            errors.push(unknown_key_diag(k, key_span, KeyContext::Set));
            continue;
        };
        if v.is_empty() {
            errors.push(
                Diagnostic::new(
                    "gpusim::config::wrong_type",
                    format!("`--set {k}=` has no value"),
                )
                .label(value_span, format!("expected {}", f.kind.describe())),
            );
            continue;
        }
        let value = match DeValue::parse(v) {
            Ok(value) => value,
            Err(e) => {
                let mut d = Diagnostic::new(
                    "gpusim::config::wrong_type",
                    format!("`{v}` is not a TOML value ({})", e.message().trim()),
                )
                .label(value_span, format!("`{k}` expects {}", f.kind.describe()));
                if f.kind == FieldKind::Bool {
                    d = d.help("write `true` or `false` (lower case)");
                }
                errors.push(d);
                continue;
            }
        };
        match typed(f, &value, value_start) {
            Ok(value) => out.push(Override {
                key: f.key,
                value,
                span: key_span.join(value_span),
            }),
            Err(d) => errors.push(d),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn span_of<T>(s: &Spanned<T>, offset: usize) -> Span {
    let r = s.span();
    Span::new(offset + r.start, offset + r.end)
}

fn parse_file(text: &str) -> Result<ParsedFile, Vec<Diagnostic>> {
    let root = match DeTable::parse(text) {
        Ok(root) => root,
        Err(e) => {
            let span = e
                .span()
                .map_or(Span::new(0, 0), |r| Span::new(r.start, r.end));
            return Err(vec![
                Diagnostic::new(
                    "gpusim::config::syntax",
                    format!("invalid TOML: {}", e.message().trim()),
                )
                .label(span, "here"),
            ]);
        }
    };
    let mut base: &'static str = PRESETS[0];
    let mut overrides = Vec::new();
    let mut errors = Vec::new();
    for (k, v) in root.get_ref().iter() {
        let name: &str = k.get_ref();
        let key_span = span_of(k, 0);
        if name == "base" {
            match v.get_ref() {
                DeValue::String(s) => match PRESETS.iter().find(|p| **p == s.as_ref()) {
                    Some(p) => base = p,
                    None => {
                        let mut d = Diagnostic::new(
                            "gpusim::config::unknown_preset",
                            format!("unknown base preset `{s}`"),
                        )
                        .label(span_of(v, 0), "not a preset");
                        d = d.help(match closest(s, PRESETS.iter().copied()) {
                            Some(p) => format!("did you mean `{p}`?"),
                            None => format!("the presets are: {}", PRESETS.join(", ")),
                        });
                        errors.push(d);
                    }
                },
                other => errors.push(
                    Diagnostic::new(
                        "gpusim::config::wrong_type",
                        format!(
                            "`base` expects a preset name in quotes, found {}",
                            describe(other)
                        ),
                    )
                    .label(span_of(v, 0), "expected a string")
                    .help(format!("the presets are: {}", PRESETS.join(", "))),
                ),
            }
            continue;
        }
        let Some(sec) = section(name) else {
            match v.get_ref() {
                DeValue::Table(_) => errors.push(unknown_section_diag(name, key_span)),
                _ => errors.push(unknown_key_diag(name, key_span, KeyContext::TopLevel)),
            }
            continue;
        };
        let DeValue::Table(table) = v.get_ref() else {
            errors.push(
                Diagnostic::new(
                    "gpusim::config::wrong_type",
                    format!(
                        "`{name}` is a section: it expects a table, found {}",
                        describe(v.get_ref())
                    ),
                )
                .label(span_of(v, 0), "expected a table")
                .help(format!(
                    "write `[{name}]` on a line of its own followed by its fields, e.g. `{}`",
                    sec.fields[0].name
                )),
            );
            continue;
        };
        for (fk, fv) in table.iter() {
            let fname: &str = fk.get_ref();
            let fkey_span = span_of(fk, 0);
            let Some(f) = sec.fields.iter().find(|f| f.name == fname) else {
                errors.push(unknown_key_diag(
                    &format!("{name}.{fname}"),
                    fkey_span,
                    KeyContext::Section(sec.name),
                ));
                continue;
            };
            match typed(f, fv, 0) {
                Ok(value) => overrides.push(Override {
                    key: f.key,
                    value,
                    span: fkey_span.join(span_of(fv, 0)),
                }),
                Err(d) => errors.push(d),
            }
        }
    }
    if errors.is_empty() {
        Ok(ParsedFile { base, overrides })
    } else {
        Err(errors)
    }
}

fn describe(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn integer(i: &DeInteger<'_>) -> Option<i128> {
    let digits: String = i.as_str().chars().filter(|c| *c != '_').collect();
    i128::from_str_radix(&digits, i.radix()).ok()
}

/// Converts a parsed value to the field's type; `offset` is where the
/// value's text starts in the diagnostics' source.
fn typed(f: &FieldInfo, v: &Spanned<DeValue<'_>>, offset: usize) -> Result<FieldValue, Diagnostic> {
    let span = span_of(v, offset);
    let wrong = |found: &str| {
        Diagnostic::new(
            "gpusim::config::wrong_type",
            format!("`{}` expects {}, found {found}", f.key, f.kind.describe()),
        )
        .label(span, format!("expected {}", f.kind.describe()))
    };
    let u32_of = |v: &Spanned<DeValue<'_>>, what: &str| -> Result<u32, Diagnostic> {
        let span = span_of(v, offset);
        match v.get_ref() {
            DeValue::Integer(i) => match integer(i).and_then(|n| u32::try_from(n).ok()) {
                Some(n) => Ok(n),
                None => Err(Diagnostic::new(
                    "gpusim::config::out_of_range",
                    format!("{what} is out of range: it must be from 0 to 4294967295"),
                )
                .label(span, "out of range")),
            },
            other => {
                let mut d = Diagnostic::new(
                    "gpusim::config::wrong_type",
                    format!("{what} must be an integer, found {}", describe(other)),
                )
                .label(span, "expected an integer");
                d = quote_help(d, other);
                Err(d)
            }
        }
    };
    match (f.kind, v.get_ref()) {
        (FieldKind::U32, _) => u32_of(v, &format!("`{}`", f.key)).map(FieldValue::U32),
        (FieldKind::U64, DeValue::Integer(i)) => {
            match integer(i).and_then(|n| u64::try_from(n).ok()) {
                Some(n) => Ok(FieldValue::U64(n)),
                None => Err(Diagnostic::new(
                    "gpusim::config::out_of_range",
                    format!("`{}` must not be negative", f.key),
                )
                .label(span, "out of range")),
            }
        }
        (FieldKind::Bool, DeValue::Boolean(b)) => Ok(FieldValue::Bool(*b)),
        (FieldKind::U32x5, DeValue::Array(items)) => {
            if items.len() != 5 {
                return Err(Diagnostic::new(
                    "gpusim::config::wrong_type",
                    format!(
                        "`{}` expects 5 integers [add, max, mul, mad, div], found {}",
                        f.key,
                        items.len()
                    ),
                )
                .label(
                    span,
                    format!(
                        "{} element{}",
                        items.len(),
                        if items.len() == 1 { "" } else { "s" }
                    ),
                ));
            }
            let names = ["add", "max", "mul", "mad", "div"];
            let mut a = [0u32; 5];
            for (i, item) in items.iter().enumerate() {
                a[i] = u32_of(item, &format!("`{}[{i}]` ({})", f.key, names[i]))?;
            }
            Ok(FieldValue::U32x5(a))
        }
        (_, other) => Err(quote_help(wrong(describe(other)), other)),
    }
}

/// When a value is a quoted number or boolean, says to drop the quotes.
fn quote_help(d: Diagnostic, v: &DeValue<'_>) -> Diagnostic {
    match v {
        DeValue::String(s)
            if s.trim().parse::<i64>().is_ok() || s.trim() == "true" || s.trim() == "false" =>
        {
            d.help(format!("remove the quotes: `{}`", s.trim()))
        }
        DeValue::Float(x)
            if x.as_str()
                .parse::<f64>()
                .is_ok_and(|x| x.fract() == 0.0 && x >= 0.0) =>
        {
            d.help("write the integer without a decimal point or exponent")
        }
        _ => d,
    }
}

/// Where an unknown key was found.
#[derive(Clone, Copy)]
enum KeyContext {
    /// `--set key=value`: a dotted key.
    Set,
    /// A key at the top level of a file (outside any section).
    TopLevel,
    /// A key inside a known section of a file (given here as `section.key`).
    Section(&'static str),
}

/// Sections that have a field with exactly this name.
fn sections_with(name: &str) -> Vec<&'static FieldInfo> {
    fields().filter(|f| f.name == name).collect()
}

/// The best "did you mean" for a (possibly dotted) key, as a dotted key.
fn suggest(key: &str) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    let (sec, name) = match lower.split_once('.') {
        Some((s, n)) => (Some(s.to_string()), n.to_string()),
        None => (None, lower.clone()),
    };
    if let Some(f) = field(&lower) {
        return Some(f.key); // only the case differed
    }
    let in_section = |s: &'static super::SectionInfo| -> Option<&'static str> {
        if let Some(f) = s.fields.iter().find(|f| f.name == name) {
            return Some(f.key);
        }
        if let Some(n) = closest(&name, s.fields.iter().map(|f| f.name)) {
            return s.fields.iter().find(|f| f.name == n).map(|f| f.key);
        }
        // `l1d.latency` → `l1d.hit_latency`
        s.fields
            .iter()
            .find(|f| !name.is_empty() && (f.name.contains(name.as_str()) || name.contains(f.name)))
            .map(|f| f.key)
    };
    match sec {
        Some(sec) => {
            if let Some(s) = section(&sec) {
                return in_section(s);
            }
            if let Some(s) = closest(&sec, SECTIONS.iter().map(|s| s.name)).and_then(section)
                && let Some(k) = in_section(s)
            {
                return Some(k);
            }
            let owners = sections_with(&name);
            if owners.len() == 1 {
                return Some(owners[0].key);
            }
            closest(&lower, fields().map(|f| f.key))
        }
        None => {
            let owners = sections_with(&name);
            if owners.len() == 1 {
                return Some(owners[0].key);
            }
            if !owners.is_empty() {
                return None; // ambiguous: the help lists the owners
            }
            let n = closest(&name, fields().map(|f| f.name))?;
            fields().find(|f| f.name == n).map(|f| f.key)
        }
    }
}

fn unknown_key_diag(key: &str, span: Span, ctx: KeyContext) -> Diagnostic {
    let (message, label) = match ctx {
        KeyContext::TopLevel => (
            format!("unknown top-level key `{key}` (fields belong in a section)"),
            "not a section or `base`",
        ),
        KeyContext::Set | KeyContext::Section(_) => {
            (format!("unknown config key `{key}`"), "unknown key")
        }
    };
    let mut d = Diagnostic::new("gpusim::config::unknown_key", message).label(span, label);
    let name = key.rsplit('.').next().unwrap_or(key);
    let mut help = Vec::new();
    if let Some(s) = suggest(key) {
        help.push(match (ctx, s.split_once('.')) {
            (KeyContext::TopLevel, Some((sec, _))) => {
                format!("did you mean `{s}` (under `[{sec}]`)?")
            }
            _ => format!("did you mean `{s}`?"),
        });
    } else if section(key).is_some() {
        help.push(format!(
            "`{key}` is a section; set one of its fields, e.g. `{}`",
            section(key).map_or("", |s| s.fields[0].key)
        ));
    } else {
        let owners = sections_with(name);
        if !owners.is_empty() {
            let keys: Vec<String> = owners.iter().map(|f| format!("`{}`", f.key)).collect();
            help.push(format!(
                "`{name}` is a field of several sections: {}",
                keys.join(", ")
            ));
        }
    }
    if let KeyContext::Section(sec) = ctx
        && let Some(s) = section(sec)
    {
        let names: Vec<&str> = s.fields.iter().map(|f| f.name).collect();
        help.push(format!("the fields of [{sec}] are: {}", names.join(", ")));
    }
    if matches!(ctx, KeyContext::Set) && help.is_empty() {
        help.push(
            "keys are `section.field`, e.g. `l1d.ways`; `gpusim config` lists them all".to_string(),
        );
    }
    if key == "base" && matches!(ctx, KeyContext::Set) {
        help.push(
            "the base preset is the config argument itself (`gpusim config daws`)".to_string(),
        );
    }
    if !help.is_empty() {
        d = d.help(help.join("\n"));
    }
    d
}

fn unknown_section_diag(name: &str, span: Span) -> Diagnostic {
    let mut d = Diagnostic::new(
        "gpusim::config::unknown_section",
        format!("unknown config section `[{name}]`"),
    )
    .label(span, "unknown section");
    let names: Vec<&str> = SECTIONS.iter().map(|s| s.name).collect();
    d = d.help(
        match closest(&name.to_ascii_lowercase(), names.iter().copied()) {
            Some(s) => format!("did you mean `[{s}]`?"),
            None => format!("the sections are: {}", names.join(", ")),
        },
    );
    d
}
