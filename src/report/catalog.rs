//! What gpusim can run, one line each (`gpusim list`): the scheduler,
//! fetch, CTA and sync policies, the machine presets and the reproduction
//! targets, each read from the registry that builds them, and the kernels
//! of a `kernels/` directory, each described by the first sentence of its
//! manifest's (or PTX file's) header comment.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::PRESET_TABLE;
use crate::report::repro_target::ReproTarget;
use crate::sched::registry::{CTA_POLICIES, FETCH_POLICIES, ISSUE_POLICIES};
use crate::sync::policy::SYNC_POLICIES;

/// One listed thing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// What to type (`gto`, `swl:N`, `baws/btree.toml`).
    pub name: String,
    /// One line.
    pub description: String,
}

/// The kinds of things `gpusim list` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// `--sched` values.
    Schedulers,
    /// `--fetch` values.
    Fetch,
    /// `--cta` values.
    Cta,
    /// `--sync` values.
    Sync,
    /// `--config` presets.
    Presets,
    /// Manifests and PTX files under a kernels directory.
    Kernels,
    /// `gpusim repro` targets.
    Repro,
}

impl Section {
    /// Every section, in `gpusim list`'s order.
    pub const ALL: [Section; 7] = [
        Section::Schedulers,
        Section::Fetch,
        Section::Cta,
        Section::Sync,
        Section::Presets,
        Section::Kernels,
        Section::Repro,
    ];

    /// The `gpusim list WHAT` name (and the JSON key).
    pub fn name(self) -> &'static str {
        match self {
            Section::Schedulers => "schedulers",
            Section::Fetch => "fetch",
            Section::Cta => "cta",
            Section::Sync => "sync",
            Section::Presets => "presets",
            Section::Kernels => "kernels",
            Section::Repro => "repro",
        }
    }

    /// The heading of the section in the text listing.
    pub fn title(self) -> &'static str {
        match self {
            Section::Schedulers => "Warp schedulers (--sched)",
            Section::Fetch => "Fetch policies (--fetch)",
            Section::Cta => "CTA policies (--cta)",
            Section::Sync => "Work-group sync policies (--sync)",
            Section::Presets => "Machine presets (--config)",
            Section::Kernels => "Kernels (gpusim run FILE)",
            Section::Repro => "Paper reproductions (gpusim repro NAME)",
        }
    }

    /// The section named `name`; the error names the choices.
    pub fn parse(name: &str) -> Result<Section, String> {
        Section::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Section::ALL.iter().map(|s| s.name()).collect();
                format!("unknown list `{name}` (choices: {})", names.join(", "))
            })
    }
}

fn table(t: &[(&str, &str)]) -> Vec<Entry> {
    sorted(
        t.iter()
            .map(|(n, d)| Entry {
                name: n.to_string(),
                description: d.to_string(),
            })
            .collect(),
    )
}

fn sorted(mut v: Vec<Entry>) -> Vec<Entry> {
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// The entries of a section other than [`Section::Kernels`] (which needs
/// a directory: [`kernels`]), sorted by name.
pub fn entries(section: Section) -> Vec<Entry> {
    match section {
        Section::Schedulers => table(ISSUE_POLICIES),
        Section::Fetch => table(FETCH_POLICIES),
        Section::Cta => table(CTA_POLICIES),
        Section::Sync => table(SYNC_POLICIES),
        Section::Presets => sorted(
            PRESET_TABLE
                .iter()
                .map(|(n, d, _)| Entry {
                    name: n.to_string(),
                    description: d.to_string(),
                })
                .collect(),
        ),
        Section::Repro => sorted(
            ReproTarget::ALL
                .iter()
                .map(|t| Entry {
                    name: t.name().to_string(),
                    description: t.description().to_string(),
                })
                .collect(),
        ),
        Section::Kernels => Vec::new(),
    }
}

/// What a kernels directory could not say about one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelsError {
    /// The file or directory.
    pub path: PathBuf,
    /// Why.
    pub message: String,
}

/// Every manifest (`*.toml`) under `dir`, and every PTX file no manifest
/// names, recursively, sorted by path relative to `dir` (`/`-separated):
/// each with the first sentence of its header comment (a manifest's
/// leading `#` lines; a PTX file's first `//` comment paragraph that is
/// not compiler boilerplate, else that of the `.cu` file of the same stem).
/// A file with no such comment is listed with `(no description)`.
pub fn kernels(dir: &Path) -> Result<Vec<Entry>, KernelsError> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let mut named = Vec::new();
    for f in files.iter().filter(|f| has_ext(f, "toml")) {
        if let Some(ptx) = std::fs::read_to_string(f)
            .ok()
            .and_then(|t| manifest_ptx(&t))
        {
            let base = f.parent().unwrap_or(dir);
            named.push(normalize(&base.join(ptx)));
        }
    }
    let mut out = Vec::new();
    for f in &files {
        let text = || {
            std::fs::read_to_string(f).map_err(|e| KernelsError {
                path: f.clone(),
                message: e.to_string(),
            })
        };
        let description = if has_ext(f, "toml") {
            let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            manifest_description(&text()?, stem)
        } else if has_ext(f, "ptx") && !named.contains(&normalize(f)) {
            let cu = f.with_extension("cu");
            ptx_description(&text()?).or_else(|| {
                std::fs::read_to_string(&cu)
                    .ok()
                    .and_then(|t| ptx_description(&t))
            })
        } else {
            continue;
        };
        out.push(Entry {
            name: relative(dir, f),
            description: description.unwrap_or_else(|| "(no description)".to_string()),
        });
    }
    Ok(sorted(out))
}

fn has_ext(p: &Path, ext: &str) -> bool {
    p.extension().is_some_and(|e| e == ext)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), KernelsError> {
    let err = |e: std::io::Error| KernelsError {
        path: dir.to_path_buf(),
        message: e.to_string(),
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(err)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if has_ext(&p, "toml") || has_ext(&p, "ptx") {
            out.push(p);
        }
    }
    Ok(())
}

/// `a/./b/../c` -> `a/c`, lexically (no file system access).
fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn relative(dir: &Path, f: &Path) -> String {
    let rel = f.strip_prefix(dir).unwrap_or(f);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The `ptx = "…"` of a manifest, if it parses and has one.
fn manifest_ptx(text: &str) -> Option<String> {
    let t: toml::Table = text.parse().ok()?;
    t.get("ptx")?.as_str().map(str::to_string)
}

/// The first sentence of a manifest's leading `#` comment paragraph, less
/// a leading `NAME: ` that only repeats the kernel's name.
pub fn manifest_description(text: &str, stem: &str) -> Option<String> {
    let mut para = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(c) = t.strip_prefix('#') {
            let c = c.trim();
            if c.is_empty() {
                if para.is_empty() {
                    continue;
                }
                break;
            }
            para.push(c);
        } else if t.is_empty() && para.is_empty() {
            continue;
        } else {
            break;
        }
    }
    let s = first_sentence(&without_provenance(&para.join(" ")))?;
    Some(strip_name(&s, stem))
}

/// The text without its bracketed build notes: `(a.cu -> a.ptx, nvcc …)`
/// groups, which say how the PTX was made, not what the kernel is.
fn without_provenance(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find(" (") {
        let group = &rest[open + 1..];
        let mut depth = 0usize;
        let close = group.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
            None
        });
        let Some(close) = close else { break };
        out.push_str(&rest[..open]);
        if !group[..close].contains(" -> ") {
            out.push(' ');
            out.push_str(&group[..=close]);
        }
        rest = &group[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The first sentence of a PTX (or CUDA) file's first `//` comment
/// paragraph that is not a compiler's banner ("Generated by …"), looked
/// for before the first `.entry`/`.func`; `None` when there is none.
pub fn ptx_description(text: &str) -> Option<String> {
    let mut paras: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.lines() {
        let t = line.trim();
        if let Some(c) = t.strip_prefix("//") {
            let c = c.trim();
            if c.is_empty() {
                paras.push(Vec::new());
            } else if let Some(p) = paras.last_mut() {
                p.push(c);
            }
        } else {
            if t.contains(".entry") || t.contains(".func") || t.starts_with("__global__") {
                break;
            }
            paras.push(Vec::new());
        }
    }
    const BANNERS: [&str; 5] = [
        "Generated by",
        "Compiler Build ID",
        "Cuda compilation tools",
        "Based on NVVM",
        "hand-written PTX for gpusim",
    ];
    paras
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| p.join(" "))
        // Not a banner, nor a compiler's `.globl`/"demoted" note.
        .find(|p| !BANNERS.iter().any(|b| p.contains(b)) && !p.starts_with('.'))
        .and_then(|p| first_sentence(&p))
        .map(|s| strip_name(&s, ""))
}

/// `name: rest` -> `rest` when the part before the colon is one
/// identifier-like word (the kernel's own name) or `stem`.
fn strip_name(s: &str, stem: &str) -> String {
    if let Some((head, rest)) = s.split_once(": ") {
        let word = !head.is_empty()
            && head
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if (word || (!stem.is_empty() && head == stem)) && !rest.trim().is_empty() {
            return rest.trim().to_string();
        }
    }
    s.to_string()
}

/// The text up to and including the first full stop that ends a sentence:
/// followed by the end or by a space and not inside brackets, and not
/// ending an abbreviation (`Fig.`, `e.g.`, `al.`, …).
pub fn first_sentence(text: &str) -> Option<String> {
    const ABBREVIATIONS: [&str; 12] = [
        "fig", "figs", "e.g", "i.e", "al", "vs", "cf", "eq", "sec", "no", "approx", "etc",
    ];
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut depth = 0i32;
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '.' if depth <= 0 && chars.get(i + 1).is_none_or(|n| *n == ' ') => {
                let word: String = chars[..i]
                    .iter()
                    .rev()
                    .take_while(|c| !c.is_whitespace() && **c != '(')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                if !ABBREVIATIONS.contains(&word.to_ascii_lowercase().as_str()) {
                    return Some(chars[..=i].iter().collect());
                }
            }
            _ => {}
        }
    }
    Some(text)
}

/// Descriptions are cut to this many characters in the text listing
/// (`gpusim list` without `--full`); the registries' own descriptions fit.
pub const WIDTH: usize = 100;

/// The listing as text: per section its title, then one line per entry,
/// names padded to a column; descriptions longer than `width` characters
/// are cut at a word with `…` (`None`: never).
pub fn render_text(sections: &[(Section, Vec<Entry>)], width: Option<usize>) -> String {
    let mut o = String::new();
    for (i, (s, entries)) in sections.iter().enumerate() {
        if i > 0 {
            o.push('\n');
        }
        o.push_str(s.title());
        o.push('\n');
        let w = entries
            .iter()
            .map(|e| e.name.chars().count())
            .max()
            .unwrap_or(0);
        for e in entries {
            let d = match width {
                Some(n) => cut(&e.description, n),
                None => e.description.clone(),
            };
            o.push_str(&format!("  {:<w$}  {d}\n", e.name));
        }
    }
    o
}

/// `s` cut at the last space before `n` characters, with `…`.
fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let head: String = s.chars().take(n.saturating_sub(1)).collect();
    let head = match head.rfind(' ') {
        Some(i) if i > n / 2 => head[..i].trim_end_matches([',', ';', ':']).to_string(),
        _ => head,
    };
    format!("{head}…")
}

/// The listing as JSON: an object with one array of `{name, description}`
/// per section, in `sections` order.
pub fn render_json(sections: &[(Section, Vec<Entry>)]) -> String {
    struct Listing<'a>(&'a [(Section, Vec<Entry>)]);
    impl Serialize for Listing<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k.name(), v)))
        }
    }
    serde_json::to_string_pretty(&Listing(sections)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentences_skip_abbreviations_and_brackets() {
        assert_eq!(
            first_sentence("A kernel (LFWS Fig. 1, see x.ptx). More here.").as_deref(),
            Some("A kernel (LFWS Fig. 1, see x.ptx).")
        );
        assert_eq!(
            first_sentence("Uses e.g. shared memory.\nSecond.").as_deref(),
            Some("Uses e.g. shared memory.")
        );
        assert_eq!(
            first_sentence("nvcc 13.5 -O3 output, no stop").as_deref(),
            Some("nvcc 13.5 -O3 output, no stop")
        );
        assert_eq!(first_sentence("   "), None);
    }

    #[test]
    fn manifest_and_ptx_headers() {
        let m = "\n# btree: Rodinia b+tree. Checked exactly.\n# more\nptx = \"b.ptx\"\n";
        assert_eq!(
            manifest_description(m, "btree").as_deref(),
            Some("Rodinia b+tree.")
        );
        // A heading that is not the name stays.
        let m = "# Microbenchmark (a): one warp.\n";
        assert_eq!(
            manifest_description(m, "chain").as_deref(),
            Some("Microbenchmark (a): one warp.")
        );
        assert_eq!(manifest_description("ptx = \"x.ptx\"\n# late\n", "x"), None);
        let p = "//\n// Generated by NVIDIA NVVM Compiler\n//\n// Based on NVVM 7.0.1\n//\n\n.version 7.0\n.visible .entry k()\n";
        assert_eq!(ptx_description(p), None);
        let p = "\t.version 2.1\n\t// Hand-written in an old shape: no\n\t// .address_size. Second.\n.entry k\n// after\n";
        assert_eq!(
            ptx_description(p).as_deref(),
            Some("Hand-written in an old shape: no .address_size.")
        );
        let cu = "// bfs_expand: one level of a BFS. Each thread...\n__global__ void k() {}\n";
        assert_eq!(ptx_description(cu).as_deref(), Some("one level of a BFS."));
    }

    #[test]
    fn build_notes_are_left_out() {
        assert_eq!(
            without_provenance(
                "btree: B+tree (btree.cu -> btree.ptx, nvcc (13.5)): walks (levels)."
            ),
            "btree: B+tree: walks (levels)."
        );
        assert_eq!(without_provenance("a (b"), "a (b");
    }

    #[test]
    fn long_descriptions_are_cut_at_a_word() {
        let s = "aaaa bbbb cccc dddd eeee";
        assert_eq!(cut(s, 100), s);
        assert_eq!(cut(s, 12), "aaaa bbbb…");
        assert!(cut(s, 12).chars().count() <= 12);
    }

    #[test]
    fn registry_descriptions_fit_one_line_and_names_are_unique() {
        for s in Section::ALL {
            let e = entries(s);
            if s != Section::Kernels {
                assert!(!e.is_empty(), "{}", s.name());
            }
            for x in &e {
                assert!(
                    !x.description.trim().is_empty()
                        && !x.description.contains('\n')
                        && x.description.chars().count() <= WIDTH,
                    "{} `{}`: {:?}",
                    s.name(),
                    x.name,
                    x.description
                );
            }
            let mut names: Vec<&str> = e.iter().map(|x| x.name.as_str()).collect();
            let listed = names.clone();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names, listed, "{}: sorted, no repeats", s.name());
        }
    }

    #[test]
    fn json_keeps_the_sections_and_fields_in_order() {
        let e = |n: &str| Entry {
            name: n.into(),
            description: format!("{n} does"),
        };
        let j = render_json(&[
            (Section::Sync, vec![e("b")]),
            (Section::Cta, vec![e("a"), e("c")]),
        ]);
        let sync = j.find("\"sync\"").unwrap();
        let cta = j.find("\"cta\"").unwrap();
        assert!(sync < cta, "{j}");
        assert!(
            j.find("\"name\": \"a\"").unwrap() < j.find("\"description\": \"a does\"").unwrap()
        );
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["cta"][1]["name"], "c");
    }

    #[test]
    fn sections_round_trip() {
        for s in Section::ALL {
            assert_eq!(Section::parse(s.name()), Ok(s));
        }
        assert!(
            Section::parse("policies")
                .unwrap_err()
                .contains("schedulers")
        );
    }
}
