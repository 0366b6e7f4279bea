//! Golden fixtures (`fixtures/**/*.toml`, PTX.md "Fixtures"): a manifest, a
//! machine config and the expected outcome of a timed run — the functional
//! check passes, and the exact cycle count under each listed scheduler.
//!
//! ```toml
//! # why this fixture exists
//! manifest = "../../kernels/spmv_scalar.toml"   # relative to this file
//! config = "tiny"                               # preset, or a file relative to this file
//! set = ["l1d.ways=8"]                          # optional config overrides
//! args = { rows = 512 }                         # optional workload-argument overrides
//! grid = [4, 1, 1]                              # optional: replaces the manifest's grid
//! check = "pass"
//!
//! [skip]                                        # optional: schedulers that cannot run, and why
//! "two-level" = "deadlocks at bar.sync (…)"
//!
//! [cycles]
//! lrr = 12345
//! gto = 12000
//! ```
//!
//! [`Fixture::evaluate`] runs every scheduler of `[cycles]` and compares;
//! [`rewrite_cycles`] rewrites the numbers under `[cycles]` with
//! `toml_edit`, leaving every comment and the layout as they were.

use std::fmt;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;

use crate::config::GpuConfig;
use crate::timing::{Stats, TimedRun};
use crate::workload::runner::{Prepared, RunError};

/// The schedulers every fixture covers, in `[cycles]` or in `[skip]` with a
/// reason.
pub const STANDARD_SCHEDULERS: &[&str] = &[
    "lrr",
    "gto",
    "two-level",
    "mwf-lrr",
    "mwf-gto",
    "baws",
    "saws",
    "two-level-opt",
    "lpi",
    "llos",
    "lfws",
    "blws",
];

/// The expected functional outcome. Only `pass` exists: a fixture records
/// a working kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpectedCheck {
    /// The workload's reference check passes.
    Pass,
}

/// A fixture file's content.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The manifest, relative to the fixture file.
    pub manifest: PathBuf,
    /// A config preset (`tiny`, `gtx480`, …) or a config file relative to
    /// the fixture file. A preset name wins over a file of that name.
    pub config: String,
    /// Config overrides, `"key=value"` as for `--set`, applied in order.
    #[serde(default)]
    pub set: Vec<String>,
    /// Workload-argument overrides, merged over the manifest's `[args]`.
    #[serde(default)]
    pub args: toml::Table,
    /// Replaces the manifest's grid.
    #[serde(default)]
    pub grid: Option<[u32; 3]>,
    /// Fetch policy for every scheduler (default: each scheduler's own,
    /// `cff` for `baws`, else `lrr`).
    #[serde(default)]
    pub fetch: Option<String>,
    /// CTA policy for every scheduler (default `rr`).
    #[serde(default)]
    pub cta: Option<String>,
    /// Work-group synchronization policy for every scheduler (`--sync`,
    /// default `busy`).
    #[serde(default)]
    pub sync: Option<String>,
    /// Expected functional outcome.
    pub check: ExpectedCheck,
    /// Schedulers deliberately not run, each with the reason.
    #[serde(default)]
    pub skip: IndexMap<String, String>,
    /// Expected cycles per scheduler, in file order.
    #[serde(default)]
    pub cycles: IndexMap<String, u64>,
}

/// What went wrong with one fixture.
#[derive(Debug)]
pub enum FixtureErrorKind {
    /// The file (or a directory) cannot be read or written.
    Io(std::io::Error),
    /// The file is not a valid fixture (TOML syntax, unknown or mistyped
    /// keys); the message has the line and column.
    Parse(String),
    /// A value makes no sense (unknown scheduler, malformed `set`, …).
    Invalid(String),
    /// The config does not load (rendered diagnostics).
    Config(String),
    /// The manifest or its PTX does not load, or the workload arguments are
    /// wrong (rendered).
    Prepare(String),
    /// The timed run failed (deadlock, out-of-bounds access, …).
    Run {
        /// Scheduler.
        sched: String,
        /// The error, rendered.
        message: String,
    },
    /// The run finished but the workload's reference check failed.
    Check {
        /// Scheduler.
        sched: String,
        /// The mismatch report.
        report: String,
    },
}

/// An error naming the fixture file.
#[derive(Debug)]
pub struct FixtureError {
    /// The fixture file (or directory) concerned.
    pub path: PathBuf,
    /// What happened.
    pub kind: FixtureErrorKind,
}

impl FixtureError {
    fn new(path: &Path, kind: FixtureErrorKind) -> FixtureError {
        FixtureError {
            path: path.to_path_buf(),
            kind,
        }
    }
}

impl fmt::Display for FixtureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path.display();
        match &self.kind {
            FixtureErrorKind::Io(e) => write!(f, "{p}: {e}"),
            FixtureErrorKind::Parse(m) => write!(f, "{p}: not a valid fixture: {}", m.trim_end()),
            FixtureErrorKind::Invalid(m) => write!(f, "{p}: {m}"),
            FixtureErrorKind::Config(m) => write!(f, "{p}: config error:\n{}", m.trim_end()),
            FixtureErrorKind::Prepare(m) => write!(f, "{p}: manifest error:\n{}", m.trim_end()),
            FixtureErrorKind::Run { sched, message } => {
                write!(f, "{p} {sched}: run failed: {}", message.trim_end())
            }
            FixtureErrorKind::Check { sched, report } => {
                write!(
                    f,
                    "{p} {sched}: check failed (the fixture expects pass): {}",
                    report.trim_end()
                )
            }
        }
    }
}

impl std::error::Error for FixtureError {}

fn render_run_error(e: RunError) -> String {
    match e {
        RunError::Diagnostics(d) => d.render(false),
        RunError::Workload(w) => w.to_string(),
    }
}

/// One scheduler's outcome.
#[derive(Clone, Debug)]
pub struct SchedResult {
    /// Scheduler name.
    pub sched: String,
    /// The fixture's number (`None`: not in `[cycles]` yet).
    pub expected: Option<u64>,
    /// The run's statistics (`stats.cycles` is the new number).
    pub stats: Stats,
}

impl SchedResult {
    /// The run gave the fixture's number.
    pub fn matches(&self) -> bool {
        self.expected == Some(self.stats.cycles)
    }
}

/// `map` reordered as the keys of table `name` appear in `doc`.
fn in_file_order<V>(
    doc: &toml_edit::DocumentMut,
    name: &str,
    mut map: IndexMap<String, V>,
) -> IndexMap<String, V> {
    let Some(t) = doc.get(name).and_then(toml_edit::Item::as_table_like) else {
        return map;
    };
    let mut out: IndexMap<String, V> = t
        .iter()
        .filter_map(|(k, _)| map.shift_remove_entry(k))
        .collect();
    out.extend(map);
    out
}

/// A loaded fixture.
#[derive(Clone, Debug)]
pub struct Fixture {
    /// The file.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Its content.
    pub spec: Spec,
}

/// A single-run issue policy name: a registered one, or `swl:N` (not the
/// `best-swl` sweep).
fn is_scheduler(name: &str) -> bool {
    if let Some(limit) = crate::sched::registry::swl_limit(name) {
        return limit.is_ok();
    }
    name != "best-swl"
        && crate::sched::registry::ISSUE_POLICIES
            .iter()
            .any(|(n, _)| *n == name)
}

fn scheduler_names() -> String {
    crate::sched::registry::ISSUE_POLICIES
        .iter()
        .map(|(n, _)| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Fixture {
    /// Reads and validates a fixture file.
    pub fn load(path: &Path) -> Result<Fixture, FixtureError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| FixtureError::new(path, FixtureErrorKind::Io(e)))?;
        Fixture::parse(path, text)
    }

    /// Validates fixture text (`path` names it in errors and anchors its
    /// relative paths).
    pub fn parse(path: &Path, text: String) -> Result<Fixture, FixtureError> {
        let mut spec: Spec = toml::from_str(&text)
            .map_err(|e| FixtureError::new(path, FixtureErrorKind::Parse(e.to_string())))?;
        // `toml` sorts table keys; take `[cycles]` and `[skip]` in file order.
        if let Ok(doc) = text.parse::<toml_edit::DocumentMut>() {
            spec.cycles = in_file_order(&doc, "cycles", std::mem::take(&mut spec.cycles));
            spec.skip = in_file_order(&doc, "skip", std::mem::take(&mut spec.skip));
        }
        let invalid = |m: String| FixtureError::new(path, FixtureErrorKind::Invalid(m));
        for s in &spec.set {
            if s.split_once('=').is_none_or(|(k, _)| k.trim().is_empty()) {
                return Err(invalid(format!("set: expected \"key=value\", got {s:?}")));
            }
        }
        for name in spec.cycles.keys().chain(spec.skip.keys()) {
            if !is_scheduler(name) {
                return Err(invalid(format!(
                    "unknown scheduler `{name}` (known: {})",
                    scheduler_names()
                )));
            }
        }
        if let Some(name) = spec.cycles.keys().find(|n| spec.skip.contains_key(*n)) {
            return Err(invalid(format!(
                "scheduler `{name}` is both in [cycles] and in [skip]"
            )));
        }
        if let Some(f) = &spec.fetch
            && !crate::sched::registry::FETCH_POLICIES
                .iter()
                .any(|(n, _)| n == f)
        {
            return Err(invalid(format!("unknown fetch policy `{f}`")));
        }
        if let Some(c) = &spec.cta
            && !crate::sched::registry::CTA_POLICIES
                .iter()
                .any(|(n, _)| n == c)
        {
            return Err(invalid(format!("unknown CTA policy `{c}`")));
        }
        if let Some(y) = &spec.sync
            && let Err(e) = crate::sync::policy::SyncPolicy::parse(y)
        {
            return Err(invalid(e));
        }
        Ok(Fixture {
            path: path.to_path_buf(),
            text,
            spec,
        })
    }

    fn dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// The manifest path, resolved against the fixture's directory.
    pub fn manifest_path(&self) -> PathBuf {
        self.dir().join(&self.spec.manifest)
    }

    /// The schedulers of `[cycles]`, in file order.
    pub fn schedulers(&self) -> impl Iterator<Item = &str> {
        self.spec.cycles.keys().map(String::as_str)
    }

    fn err(&self, kind: FixtureErrorKind) -> FixtureError {
        FixtureError::new(&self.path, kind)
    }

    /// Loads the config (with the fixture's `set` and then `extra_sets`
    /// applied) and the manifest (with the fixture's `args` and `grid`).
    pub fn prepare(
        &self,
        extra_sets: &[(String, String)],
    ) -> Result<(Prepared, GpuConfig), FixtureError> {
        let spec = &self.spec;
        let config = if crate::config::preset_text(&spec.config).is_some() {
            spec.config.clone()
        } else {
            self.dir().join(&spec.config).to_string_lossy().into_owned()
        };
        let mut sets: Vec<(String, String)> = spec
            .set
            .iter()
            .filter_map(|s| s.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        sets.extend_from_slice(extra_sets);
        let cfg = crate::config::load_config(&config, &sets)
            .map_err(|d| self.err(FixtureErrorKind::Config(d.render(false))))?;
        let mut prepared = crate::workload::runner::prepare(&self.manifest_path(), None)
            .map_err(|e| self.err(FixtureErrorKind::Prepare(render_run_error(e))))?;
        let m = &mut prepared.manifest.manifest;
        for (k, v) in &spec.args {
            m.args.insert(k.clone(), v.clone());
        }
        if let Some(g) = spec.grid {
            m.grid = Some(g);
        }
        Ok((prepared, cfg))
    }

    /// One timed run under `sched`; a failing check is an error.
    pub fn run_prepared(
        &self,
        prepared: &Prepared,
        cfg: &GpuConfig,
        sched: &str,
    ) -> Result<TimedRun, FixtureError> {
        self.run_recording(prepared, cfg, sched, crate::timing::Recording::default())
    }

    /// [`Fixture::run_prepared`] recording what `record` asks for (a time
    /// series, the issue log).
    pub fn run_recording(
        &self,
        prepared: &Prepared,
        cfg: &GpuConfig,
        sched: &str,
        record: crate::timing::Recording,
    ) -> Result<TimedRun, FixtureError> {
        let fail = |e| {
            self.err(FixtureErrorKind::Run {
                sched: sched.to_string(),
                message: render_run_error(e),
            })
        };
        let mut policies = crate::timing::Policies::sched(sched);
        if let Some(f) = &self.spec.fetch {
            policies.fetch = f.clone();
        }
        if let Some(c) = &self.spec.cta {
            policies.cta = c.clone();
        }
        if let Some(y) = &self.spec.sync {
            policies.sync = crate::sync::policy::SyncPolicy::parse(y)
                .map_err(|e| self.err(FixtureErrorKind::Invalid(e)))?;
        }
        if sched == "daws-profiled" {
            // The profile is recorded on the fixture's own input (under
            // `gto`): the fixture pins the mechanism, the repro measures
            // generalization to other inputs.
            let rec = crate::timing::Policies {
                sched: "gto".into(),
                record_profile: true,
                ..policies.clone()
            };
            let r = crate::timing::run_timed_with(prepared, &[], cfg, &rec, false).map_err(fail)?;
            policies.profile = r.profile.map(std::sync::Arc::new);
        }
        let run = crate::timing::run_timed_recording(prepared, &[], cfg, &policies, record)
            .map_err(fail)?;
        if !run.check.passed() {
            return Err(self.err(FixtureErrorKind::Check {
                sched: sched.to_string(),
                report: run.check.to_string(),
            }));
        }
        Ok(run)
    }

    /// One timed run under `sched` with extra config overrides (e.g.
    /// `sim.idle_skip=false`); a failing check is an error.
    pub fn run(
        &self,
        sched: &str,
        extra_sets: &[(String, String)],
    ) -> Result<TimedRun, FixtureError> {
        let (prepared, cfg) = self.prepare(extra_sets)?;
        self.run_prepared(&prepared, &cfg, sched)
    }

    /// Runs every scheduler of `[cycles]`, then those of `add` not in it
    /// (their `expected` is `None`). Stops at the first error.
    pub fn evaluate(&self, add: &[String]) -> Result<Vec<SchedResult>, FixtureError> {
        let mut scheds: Vec<(String, Option<u64>)> = self
            .spec
            .cycles
            .iter()
            .map(|(s, &c)| (s.clone(), Some(c)))
            .collect();
        for a in add {
            if !is_scheduler(a) {
                return Err(self.err(FixtureErrorKind::Invalid(format!(
                    "unknown scheduler `{a}` (known: {})",
                    scheduler_names()
                ))));
            }
            if !scheds.iter().any(|(s, _)| s == a) {
                scheds.push((a.clone(), None));
            }
        }
        if scheds.is_empty() {
            return Err(self.err(FixtureErrorKind::Invalid(
                "[cycles] lists no scheduler (add some with `gpusim bless --add NAME`)".into(),
            )));
        }
        let (prepared, cfg) = self.prepare(&[])?;
        scheds
            .into_iter()
            .map(|(sched, expected)| {
                let run = self.run_prepared(&prepared, &cfg, &sched)?;
                Ok(SchedResult {
                    sched,
                    expected,
                    stats: run.stats,
                })
            })
            .collect()
    }

    /// Writes the results' cycle counts into the file (see
    /// [`rewrite_cycles`]); returns whether the text changed.
    pub fn bless(&self, results: &[SchedResult]) -> Result<bool, FixtureError> {
        let new: Vec<(&str, u64)> = results
            .iter()
            .map(|r| (r.sched.as_str(), r.stats.cycles))
            .collect();
        let text =
            rewrite_cycles(&self.text, &new).map_err(|m| self.err(FixtureErrorKind::Invalid(m)))?;
        if text == self.text {
            return Ok(false);
        }
        std::fs::write(&self.path, text).map_err(|e| self.err(FixtureErrorKind::Io(e)))?;
        Ok(true)
    }
}

/// Sets `[cycles]` entries of a fixture's text: an existing number is
/// replaced in place (its comments and spacing stay), a missing scheduler
/// is appended to `[cycles]` (the table is created when absent) and
/// removed from `[skip]` (the table goes when it empties). Everything else
/// is left byte for byte.
pub fn rewrite_cycles(text: &str, new: &[(&str, u64)]) -> Result<String, String> {
    use toml_edit::{DocumentMut, Item, Value};
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    if !doc.contains_key("cycles") {
        doc.insert("cycles", toml_edit::table());
    }
    {
        let cycles = doc["cycles"]
            .as_table_like_mut()
            .ok_or("[cycles] is not a table")?;
        for &(sched, n) in new {
            let n = i64::try_from(n).map_err(|_| format!("{n} cycles do not fit TOML"))?;
            match cycles.get_mut(sched).and_then(Item::as_value_mut) {
                Some(v) => {
                    if v.as_integer() != Some(n) {
                        let decor = v.decor().clone();
                        *v = Value::from(n);
                        *v.decor_mut() = decor;
                    }
                }
                None => {
                    cycles.insert(sched, Item::Value(Value::from(n)));
                }
            }
        }
    }
    let mut drop_skip = false;
    if let Some(skip) = doc.get_mut("skip").and_then(Item::as_table_like_mut) {
        for &(sched, _) in new {
            skip.remove(sched);
        }
        drop_skip = skip.is_empty();
    }
    if drop_skip {
        doc.remove("skip");
    }
    Ok(doc.to_string())
}

/// The fixture files under `paths`: a file is taken as it is, a directory
/// contributes every `*.toml` below it (recursively, sorted). Duplicates
/// are dropped.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, FixtureError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), FixtureError> {
        let io = |e| FixtureError::new(dir, FixtureErrorKind::Io(e));
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(io)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(io)?;
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|e| e == "toml") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(FixtureError::new(
                p,
                FixtureErrorKind::Io(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such file or directory",
                )),
            ));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# a comment\nmanifest = \"m.toml\"  # trailing\nconfig = \"tiny\"\ncheck = \"pass\"\n\n[skip]\n\"two-level\" = \"deadlocks\"\n\n[cycles]\n# before lrr\nlrr = 100    # lrr note\ngto = 200\n";

    #[test]
    fn rewrite_keeps_everything_but_the_numbers() {
        assert_eq!(
            rewrite_cycles(TEXT, &[("lrr", 100), ("gto", 200)]).unwrap(),
            TEXT
        );
        let t = rewrite_cycles(TEXT, &[("lrr", 123), ("gto", 200)]).unwrap();
        assert_eq!(t, TEXT.replace("lrr = 100", "lrr = 123"));
    }

    #[test]
    fn rewrite_adds_a_scheduler_and_drops_it_from_skip() {
        let t = rewrite_cycles(TEXT, &[("two-level", 300)]).unwrap();
        assert!(!t.contains("[skip]"), "{t}");
        assert!(t.ends_with("gto = 200\ntwo-level = 300\n"), "{t}");
        let f = Fixture::parse(Path::new("x.toml"), t).unwrap();
        let v: Vec<_> = f
            .spec
            .cycles
            .iter()
            .map(|(k, &v)| (k.as_str(), v))
            .collect();
        assert_eq!(v, [("lrr", 100), ("gto", 200), ("two-level", 300)]);
    }

    #[test]
    fn rewrite_creates_cycles() {
        let t = rewrite_cycles("manifest = \"m\"\n", &[("gto", 5)]).unwrap();
        assert_eq!(t, "manifest = \"m\"\n\n[cycles]\ngto = 5\n");
    }

    #[test]
    fn errors_name_the_file() {
        let e = Fixture::parse(Path::new("f/x.toml"), TEXT.replace("config", "confg"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f/x.toml: not a valid fixture"), "{e}");
        assert!(e.contains("confg"), "{e}");
        let e = Fixture::parse(Path::new("x.toml"), TEXT.replace("gto =", "gtoo ="))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown scheduler `gtoo`"), "{e}");
        let e = Fixture::parse(Path::new("x.toml"), TEXT.replace("\"pass\"", "\"fail\""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("fail"), "{e}");
        let e = Fixture::parse(
            Path::new("x.toml"),
            TEXT.replace("[cycles]", "[cycles]\n\"two-level\" = 1"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("both in [cycles] and in [skip]"), "{e}");
    }
}
