//! `gpusim sweep`: the cross product of kernels, machines (`--config`),
//! config overrides (`--set KEY=V1,V2`), workload arguments (`--arg
//! KEY=V1,V2`), optional fetch / CTA / sync policies and issue policies
//! (`--sched`), every point a timed run exactly as `gpusim run` would do
//! it, run in parallel and written as one CSV row per run (and optionally
//! one JSON line per run).
//!
//! Order and numbering: the points are numbered `run` = 0, 1, … in the
//! order of nested loops, outermost first: kernel, config, each `--set`
//! key in command-line order, each `--arg` key, fetch, CTA, sync policy
//! (each only when given), scheduler innermost. Rows are always written in
//! `run` order whatever the number of threads, and each run is
//! independent and deterministic, so the output depends only on the
//! command line. A shard `I/N` runs the points with `run % N == I` (their
//! `run` numbers unchanged): the shards interleave, so each gets runs of
//! every kernel (an expensive kernel is not one shard's alone), and
//! [`crate::study::merge`] can tell a missing shard from its gaps.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use serde_json::{Map, Value};

use crate::ptx::diagnostics::Diagnostics;
use crate::sync::policy::SyncPolicy;
use crate::timing::{Policies, Stats, TimedRun, run_timed_with};
use crate::workload::runner::{Prepared, RunError, prepare};

/// Splits a comma-separated list (`gto,lrr,swl:8`) into its trimmed
/// items. Commas inside brackets, braces or double quotes do not split, so
/// `[4,13,4,5,145],[4,10,4,5,145]` is two values. An empty item, an
/// unbalanced bracket or an unterminated quote is an error.
pub fn split_list(s: &str) -> Result<Vec<String>, String> {
    let mut items = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("`{s}`: unbalanced `{c}`"));
                }
            }
            ',' if !quoted && depth == 0 => {
                items.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted {
        return Err(format!("`{s}`: unterminated quote"));
    }
    if depth != 0 {
        return Err(format!("`{s}`: unclosed bracket"));
    }
    items.push(s[start..].trim().to_string());
    if items.iter().any(String::is_empty) {
        return Err(format!("`{s}`: empty item in the list"));
    }
    Ok(items)
}

/// Parses `KEY=V1,V2,…` (the values as [`split_list`] splits them).
pub fn parse_key_values(s: &str) -> Result<(String, Vec<String>), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), split_list(v)?)),
        _ => Err(format!("expected KEY=V1,V2,…, got `{s}`")),
    }
}

/// What a sweep varies: every list has at least one value; the points are
/// their cross product.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sweep {
    /// Kernels (`K.ptx` with `K.toml` beside it) or manifests, as given.
    pub kernels: Vec<String>,
    /// Machines: presets or TOML files, as given.
    pub configs: Vec<String>,
    /// Config overrides: each key with its values, in command-line order.
    pub sets: Vec<(String, Vec<String>)>,
    /// Workload arguments: each key with its values, in command-line order.
    pub args: Vec<(String, Vec<String>)>,
    /// Fetch policies, when given (else each scheduler's default).
    pub fetch: Option<Vec<String>>,
    /// CTA policies, when given (else `rr`).
    pub cta: Option<Vec<String>>,
    /// Work-group sync policies, when given (else `busy`).
    pub sync: Option<Vec<String>>,
    /// Issue policies: anything `gpusim run --sched` accepts.
    pub scheds: Vec<String>,
}

/// One point of a sweep: the values of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    /// The run's index in the full cross product.
    pub run: usize,
    /// Index of the kernel in [`Sweep::kernels`].
    pub kernel_index: usize,
    /// The kernel, as given.
    pub kernel: String,
    /// The machine, as given.
    pub config: String,
    /// Config overrides (`--set`), one value per key.
    pub sets: Vec<(String, String)>,
    /// Workload arguments (`--arg`), one value per key.
    pub args: Vec<(String, String)>,
    /// Fetch policy, when the sweep names them.
    pub fetch: Option<String>,
    /// CTA policy, when the sweep names them.
    pub cta: Option<String>,
    /// Sync policy, when the sweep names them.
    pub sync: Option<String>,
    /// Issue policy.
    pub sched: String,
}

impl Point {
    /// The varied values in column order ([`Sweep::varied_columns`]).
    pub fn values(&self) -> Vec<String> {
        let mut v = vec![self.kernel.clone(), self.config.clone()];
        v.extend(self.sets.iter().map(|(_, x)| x.clone()));
        v.extend(self.args.iter().map(|(_, x)| x.clone()));
        v.extend(
            [&self.fetch, &self.cta, &self.sync]
                .into_iter()
                .flatten()
                .cloned(),
        );
        v.push(self.sched.clone());
        v
    }

    /// The point in one line: `kernel config set:k=v arg:k=v sched`.
    pub fn label(&self) -> String {
        let mut parts = vec![self.kernel.clone(), self.config.clone()];
        parts.extend(self.sets.iter().map(|(k, v)| format!("set:{k}={v}")));
        parts.extend(self.args.iter().map(|(k, v)| format!("arg:{k}={v}")));
        for (name, v) in [
            ("fetch", &self.fetch),
            ("cta", &self.cta),
            ("sync", &self.sync),
        ] {
            if let Some(v) = v {
                parts.push(format!("{name}={v}"));
            }
        }
        parts.push(self.sched.clone());
        parts.join(" ")
    }
}

impl Sweep {
    /// The varied dimensions, outermost first: column name and values.
    fn dims(&self) -> Vec<(String, &[String])> {
        let mut d: Vec<(String, &[String])> = vec![
            ("kernel".to_string(), &self.kernels),
            ("config".to_string(), &self.configs),
        ];
        d.extend(self.sets.iter().map(|(k, v)| (format!("set:{k}"), &v[..])));
        d.extend(self.args.iter().map(|(k, v)| (format!("arg:{k}"), &v[..])));
        for (name, list) in [
            ("fetch", &self.fetch),
            ("cta", &self.cta),
            ("sync", &self.sync),
        ] {
            if let Some(list) = list {
                d.push((name.to_string(), &list[..]));
            }
        }
        d.push(("sched".to_string(), &self.scheds));
        d
    }

    /// Checks the sweep can start and returns its number of runs: every
    /// list non-empty, no `--set` or `--arg` key given twice, fetch, CTA
    /// and sync policies known, the count representable.
    pub fn validate(&self) -> Result<usize, String> {
        for (name, values) in self.dims() {
            if values.is_empty() {
                return Err(format!("no values for `{name}`"));
            }
        }
        for (flag, keys) in [("--set", &self.sets), ("--arg", &self.args)] {
            for (i, (k, _)) in keys.iter().enumerate() {
                if keys[..i].iter().any(|(other, _)| other == k) {
                    return Err(format!(
                        "{flag} {k} is given twice; give its values once, as one list \
                         ({flag} {k}=V1,V2,…)"
                    ));
                }
            }
        }
        for (name, values) in self.dims() {
            for (i, v) in values.iter().enumerate() {
                if values[..i].contains(v) {
                    return Err(format!("`{v}` appears twice in the values of `{name}`"));
                }
            }
        }
        for f in self.fetch.iter().flatten() {
            if crate::sched::registry::fetch_policy(f).is_none() {
                return Err(format!(
                    "unknown fetch policy `{f}` in --fetch (choices: lrr, cff, fef)"
                ));
            }
        }
        for c in self.cta.iter().flatten() {
            if crate::sched::registry::cta_policy(c).is_none() {
                let names: Vec<&str> = crate::sched::registry::CTA_POLICIES
                    .iter()
                    .map(|p| p.0)
                    .collect();
                return Err(format!(
                    "unknown CTA policy `{c}` in --cta (choices: {})",
                    names.join(", ")
                ));
            }
        }
        for s in self.sync.iter().flatten() {
            SyncPolicy::parse(s).map_err(|e| format!("--sync: {e}"))?;
        }
        self.dims()
            .iter()
            .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))
            .ok_or_else(|| "the sweep has more runs than can be counted".to_string())
    }

    /// Number of runs: the product of the list lengths (0 if a list is
    /// empty; [`Sweep::validate`] rejects that).
    pub fn len(&self) -> usize {
        self.dims()
            .iter()
            .fold(1usize, |n, (_, v)| n.saturating_mul(v.len()))
    }

    /// True when the sweep has no runs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The point numbered `run` (`run < len()`): the index of each
    /// dimension, the innermost (scheduler) varying fastest.
    pub fn point(&self, run: usize) -> Point {
        let dims = self.dims();
        let mut idx = vec![0usize; dims.len()];
        let mut rest = run;
        for (slot, (_, values)) in idx.iter_mut().zip(&dims).rev() {
            let n = values.len().max(1);
            *slot = rest % n;
            rest /= n;
        }
        let mut it = idx.into_iter();
        let mut next = || it.next().unwrap_or(0);
        let kernel_index = next();
        let config = self.configs.get(next()).cloned().unwrap_or_default();
        let sets = self
            .sets
            .iter()
            .map(|(k, v)| (k.clone(), v.get(next()).cloned().unwrap_or_default()))
            .collect();
        let args = self
            .args
            .iter()
            .map(|(k, v)| (k.clone(), v.get(next()).cloned().unwrap_or_default()))
            .collect();
        let mut opt = |list: &Option<Vec<String>>| {
            list.as_ref()
                .map(|l| l.get(next()).cloned().unwrap_or_default())
        };
        let fetch = opt(&self.fetch);
        let cta = opt(&self.cta);
        let sync = opt(&self.sync);
        let sched = self.scheds.get(next()).cloned().unwrap_or_default();
        Point {
            run,
            kernel_index,
            kernel: self.kernels.get(kernel_index).cloned().unwrap_or_default(),
            config,
            sets,
            args,
            fetch,
            cta,
            sync,
            sched,
        }
    }

    /// Names of the varied columns: `kernel`, `config`, `set:KEY`…,
    /// `arg:KEY`…, `fetch`, `cta`, `sync` (when given), `sched`.
    pub fn varied_columns(&self) -> Vec<String> {
        self.dims().into_iter().map(|(name, _)| name).collect()
    }

    /// The CSV header: `run`, the varied columns, `status`, `error`, then
    /// [`Sweep::stat_columns`].
    pub fn header(&self) -> Vec<String> {
        let mut h = vec!["run".to_string()];
        h.extend(self.varied_columns());
        h.push("status".to_string());
        h.push("error".to_string());
        h.extend(self.stat_columns());
        h
    }

    /// This sweep's statistic column names: [`stat_columns`], those a
    /// varied column already names prefixed `stats.` (the statistics'
    /// `sched`, which names the winner of `best-swl`, becomes
    /// `stats.sched`; `fetch` too when `--fetch` varies it), so every
    /// column name is unique.
    pub fn stat_columns(&self) -> Vec<String> {
        let varied = self.varied_columns();
        stat_columns()
            .into_iter()
            .map(|c| {
                if varied.contains(&c) {
                    format!("stats.{c}")
                } else {
                    c
                }
            })
            .collect()
    }
}

/// A deterministic slice of a sweep: the runs with `run % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0 ≤ index < count`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` with `0 ≤ I < N`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || {
            format!(
                "--shard `{s}`: expected I/N with 0 ≤ I < N (shard I of N, counting from 0), \
                 e.g. 0/4"
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The runs of this shard among `total`, ascending.
    pub fn runs(self, total: usize) -> Vec<usize> {
        (self.index..total).step_by(self.count).collect()
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Ran, and its check passed (or it has nothing to check).
    Ok,
    /// Ran, but the functional check failed.
    CheckFailed,
    /// Did not complete: the manifest, PTX or config has errors, the
    /// workload or the simulation failed (a deadlock, an instruction
    /// limit).
    Error,
}

impl Status {
    /// The word in the `status` column: `ok`, `check_failed`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::CheckFailed => "check_failed",
            Status::Error => "error",
        }
    }
}

/// The outcome of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// What ran.
    pub point: Point,
    /// How it ended.
    pub status: Status,
    /// Why it failed, in one line (empty when it did not).
    pub error: String,
    /// Every statistic (the `Stats` JSON of `gpusim run --json`), when it
    /// ran (also when its check failed).
    pub stats: Option<Value>,
    /// Wall-clock seconds the run took: for progress display only, never
    /// written to the results.
    pub seconds: f64,
}

impl RunResult {
    /// The run's cycles, when it ran.
    pub fn cycles(&self) -> Option<u64> {
        self.stats.as_ref()?.get("cycles")?.as_u64()
    }

    /// One progress line: `[done/total] run R: POINT: ok 12345 cycles (0.4 s)`,
    /// or the status and error.
    pub fn progress_line(&self, done: usize, total: usize) -> String {
        let what = match (self.status, self.cycles()) {
            (Status::Ok, Some(c)) => format!("ok {c} cycles"),
            (Status::CheckFailed, Some(c)) => format!("check_failed ({c} cycles): {}", self.error),
            (s, _) => format!("{}: {}", s.as_str(), self.error),
        };
        format!(
            "[{done}/{total}] run {}: {}: {what} ({:.1} s)",
            self.point.run,
            self.point.label(),
            self.seconds
        )
    }

    /// The CSV record: `run`, the varied values, status, error, then each
    /// of `stat_columns` (empty when the run has no such value).
    pub fn record(&self, stat_columns: &[String]) -> Vec<String> {
        let mut r = vec![self.point.run.to_string()];
        r.extend(self.point.values());
        r.push(self.status.as_str().to_string());
        r.push(self.error.clone());
        let leaves: HashMap<String, &Value> = match &self.stats {
            Some(s) => flatten(s).into_iter().collect(),
            None => HashMap::new(),
        };
        r.extend(
            stat_columns
                .iter()
                .map(|c| leaves.get(c).map_or(String::new(), |v| cell(v))),
        );
        r
    }

    /// The JSON line: `run`, the varied values under their column names,
    /// `status`, `error` and `stats` (the full statistics, or null).
    pub fn json_line(&self, sweep: &Sweep) -> String {
        let mut m = Map::new();
        m.insert("run".into(), self.point.run.into());
        for (name, value) in sweep.varied_columns().into_iter().zip(self.point.values()) {
            m.insert(name, value.into());
        }
        m.insert("status".into(), self.status.as_str().into());
        m.insert("error".into(), self.error.clone().into());
        m.insert("stats".into(), self.stats.clone().unwrap_or(Value::Null));
        Value::Object(m).to_string()
    }
}

/// Top-level statistics that are not summary figures (time series); left
/// out of the CSV like the arrays.
const SKIPPED_STATS: &[&str] = &["samples"];

/// The scalar leaves of a `Stats` JSON, in the JSON's field order, their
/// key paths joined with `.`; arrays (per launch, per SM, per warp) and
/// the top-level `samples` (time series) are left out.
pub fn flatten(stats: &Value) -> Vec<(String, &Value)> {
    fn walk<'v>(prefix: &str, v: &'v Value, out: &mut Vec<(String, &'v Value)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if prefix.is_empty() && SKIPPED_STATS.contains(&k.as_str()) {
                        continue;
                    }
                    let path = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&path, x, out);
                }
            }
            Value::Array(_) => {}
            _ => out.push((prefix.to_string(), v)),
        }
    }
    let mut out = Vec::new();
    walk("", stats, &mut out);
    out
}

/// The statistic columns of every sweep CSV: the scalar leaves of the
/// timing model's [`Stats`] ([`flatten`]). Derived from the type, not
/// from a run, so every shard of a sweep has the same header even when
/// none of its runs completed.
pub fn stat_columns() -> Vec<String> {
    let empty = serde_json::to_value(Stats::default()).unwrap_or(Value::Null);
    flatten(&empty).into_iter().map(|(k, _)| k).collect()
}

/// A JSON scalar as a CSV cell: strings as they are, numbers in their
/// shortest exact form, `true`/`false`, null empty.
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Text in one line: trimmed lines joined with `; `.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Diagnostics in one line: `FILE:LINE: message (label); help: …` each,
/// joined with `; `.
pub fn diagnostics_line(d: &Diagnostics) -> String {
    d.list
        .iter()
        .map(|x| {
            let mut s = d.file.name.to_string();
            if let Some(span) = x.span() {
                s += &format!(":{}", d.file.line_of(span.start));
            }
            s += &format!(": {}", x.message);
            if let Some((_, label)) = x.labels.first()
                && !label.is_empty()
            {
                s += &format!(" ({label})");
            }
            if let Some(h) = &x.help {
                s += &format!("; help: {h}");
            }
            one_line(&s)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A run error in one line.
pub fn run_error_line(e: &RunError) -> String {
    match e {
        RunError::Diagnostics(d) => diagnostics_line(d),
        RunError::Workload(w) => one_line(&w.to_string()),
    }
}

/// Runs one point as `gpusim run` would (the machine from its config and
/// overrides, the policies, the workload arguments as `--arg`
/// overrides) on a prepared kernel, or reports why it cannot. A panic
/// inside the simulator becomes an error result, so no run is lost.
pub fn run_point(point: Point, prepared: &Result<Prepared, String>) -> RunResult {
    let start = Instant::now();
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| timed_run(&point, prepared)))
            .unwrap_or_else(|panic| {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(format!("internal error: the simulator panicked: {msg}"))
            });
    let (status, error, stats) = match outcome {
        Err(e) => (Status::Error, e, None),
        Ok(r) => match serde_json::to_value(&r.stats) {
            Err(e) => (
                Status::Error,
                format!("cannot serialize the statistics: {e}"),
                None,
            ),
            Ok(stats) if r.check.passed() => (Status::Ok, String::new(), Some(stats)),
            Ok(stats) => (
                Status::CheckFailed,
                one_line(&r.check.to_string()),
                Some(stats),
            ),
        },
    };
    RunResult {
        point,
        status,
        error,
        stats,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// The timed run of one point.
fn timed_run(point: &Point, prepared: &Result<Prepared, String>) -> Result<TimedRun, String> {
    let p = prepared.as_ref().map_err(Clone::clone)?;
    let cfg =
        crate::config::load_config(&point.config, &point.sets).map_err(|d| diagnostics_line(&d))?;
    let sync = match &point.sync {
        Some(s) => SyncPolicy::parse(s)?,
        None => SyncPolicy::Busy,
    };
    let policies = Policies {
        sched: point.sched.clone(),
        fetch: point
            .fetch
            .clone()
            .unwrap_or_else(|| crate::sched::registry::default_fetch(&point.sched).to_string()),
        cta: point.cta.clone().unwrap_or_else(|| "rr".to_string()),
        profile: None,
        record_profile: false,
        sync,
    };
    let r = if point.sched == "best-swl" {
        // The sweep's own threads are busy: its `swl:N` runs one by one.
        crate::timing::sweep::best_swl(p, &point.args, &cfg, &policies, 1).map(|s| s.best)
    } else {
        run_timed_with(p, &point.args, &cfg, &policies, false)
    };
    r.map_err(|e| run_error_line(&e))
}

/// Counts of runs by status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Runs whose check passed.
    pub ok: usize,
    /// Runs whose check failed.
    pub check_failed: usize,
    /// Runs that did not complete.
    pub error: usize,
}

impl Counts {
    /// True when every run is ok.
    pub fn all_ok(&self) -> bool {
        self.check_failed == 0 && self.error == 0
    }
}

/// Runs `runs` (ascending indices into `sweep`) on a pool of `jobs`
/// threads. Each kernel is loaded once (a kernel that does not load makes
/// each of its runs an error result). `on_finish` is called on the calling
/// thread as each run finishes, in completion order, with the number
/// finished so far and the total (for progress); `on_ordered` is called
/// with every result in `run` order, whatever the threads, for writing.
/// When `on_ordered` fails no new run starts and its error is returned;
/// otherwise the counts by status.
pub fn execute(
    sweep: &Sweep,
    runs: &[usize],
    jobs: usize,
    on_finish: &mut dyn FnMut(&RunResult, usize, usize),
    on_ordered: &mut dyn FnMut(&RunResult) -> Result<(), String>,
) -> Result<Counts, String> {
    let jobs = jobs.max(1);
    let mut prepared: Vec<Option<Result<Prepared, String>>> =
        sweep.kernels.iter().map(|_| None).collect();
    for &run in runs {
        let k = sweep.point(run).kernel_index;
        if prepared[k].is_none() {
            prepared[k] =
                Some(prepare(Path::new(&sweep.kernels[k]), None).map_err(|e| run_error_line(&e)));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| format!("cannot start {jobs} worker threads: {e}"))?;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<RunResult>();
    let mut counts = Counts::default();
    let mut failure: Option<String> = None;
    let not_loaded: Result<Prepared, String> = Err("internal error: kernel not loaded".into());
    std::thread::scope(|s| {
        let (prepared, next, stop, not_loaded) = (&prepared, &next, &stop, &not_loaded);
        s.spawn(move || {
            pool.scope(|ps| {
                for _ in 0..jobs.min(runs.len()) {
                    let tx = tx.clone();
                    ps.spawn(move |_| {
                        while !stop.load(Ordering::Relaxed) {
                            let Some(&run) = runs.get(next.fetch_add(1, Ordering::Relaxed)) else {
                                break;
                            };
                            let point = sweep.point(run);
                            let p = prepared[point.kernel_index].as_ref().unwrap_or(not_loaded);
                            if tx.send(run_point(point, p)).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
            drop(tx);
        });
        // Results arrive in completion order; they are written in `run`
        // order, holding back those that finished early.
        let mut pending: BTreeMap<usize, RunResult> = BTreeMap::new();
        let (mut done, mut written) = (0usize, 0usize);
        for r in rx {
            done += 1;
            on_finish(&r, done, runs.len());
            pending.insert(r.point.run, r);
            while let Some(r) = runs.get(written).and_then(|run| pending.remove(run)) {
                written += 1;
                match r.status {
                    Status::Ok => counts.ok += 1,
                    Status::CheckFailed => counts.check_failed += 1,
                    Status::Error => counts.error += 1,
                }
                if failure.is_none()
                    && let Err(e) = on_ordered(&r)
                {
                    failure = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(counts),
    }
}

/// A CSV writer with the sweep's settings (`\n` line ends, fields quoted
/// only when needed): `gpusim sweep` and `gpusim merge` write the same
/// bytes for the same rows.
pub fn csv_writer<W: Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out)
}

/// Writes a sweep's results: the CSV (header first) and optionally the
/// JSON lines, each row flushed as it is written.
pub struct SweepWriter<'s> {
    sweep: &'s Sweep,
    stat_columns: Vec<String>,
    csv: csv::Writer<Box<dyn Write + 's>>,
    jsonl: Option<Box<dyn Write + 's>>,
}

impl<'s> SweepWriter<'s> {
    /// Starts the outputs: writes the CSV header.
    pub fn new(
        sweep: &'s Sweep,
        csv_out: Box<dyn Write + 's>,
        jsonl: Option<Box<dyn Write + 's>>,
    ) -> std::io::Result<SweepWriter<'s>> {
        let mut csv = csv_writer(csv_out);
        csv.write_record(sweep.header())?;
        csv.flush()?;
        Ok(SweepWriter {
            sweep,
            stat_columns: stat_columns(),
            csv,
            jsonl,
        })
    }

    /// Writes one run's row (and JSON line).
    pub fn write(&mut self, r: &RunResult) -> std::io::Result<()> {
        self.csv.write_record(r.record(&self.stat_columns))?;
        self.csv.flush()?;
        if let Some(j) = &mut self.jsonl {
            writeln!(j, "{}", r.json_line(self.sweep))?;
            j.flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep() -> Sweep {
        Sweep {
            kernels: vec!["a.toml".into(), "b.toml".into()],
            configs: vec!["tiny".into()],
            sets: vec![("l1d.sets".into(), vec!["4".into(), "8".into(), "16".into()])],
            args: vec![("n".into(), vec!["64".into(), "128".into()])],
            fetch: None,
            cta: None,
            sync: None,
            scheds: vec!["gto".into(), "lrr".into()],
        }
    }

    #[test]
    fn lists_split_outside_brackets_and_quotes() {
        assert_eq!(
            split_list("gto, lrr,swl:8").unwrap(),
            ["gto", "lrr", "swl:8"]
        );
        assert_eq!(
            split_list("[4,13,4,5,145],[4,10,4,5,145]").unwrap(),
            ["[4,13,4,5,145]", "[4,10,4,5,145]"]
        );
        assert_eq!(split_list(r#""a,b",c"#).unwrap(), [r#""a,b""#, "c"]);
        assert!(split_list("gto,,lrr").is_err());
        assert!(split_list("[1,2").is_err());
        assert!(split_list("1]").is_err());
        assert_eq!(
            parse_key_values("l1d.sets=8,16").unwrap(),
            (
                "l1d.sets".to_string(),
                vec!["8".to_string(), "16".to_string()]
            )
        );
        assert!(parse_key_values("=8").is_err());
        assert!(parse_key_values("l1d.sets").is_err());
    }

    #[test]
    fn points_follow_the_nested_loop_order() {
        let s = sweep();
        assert_eq!(s.validate(), Ok(2 * 3 * 2 * 2));
        // Run 0 is every first value; the scheduler varies fastest, then
        // the last --arg, then --set, then the kernel.
        let vals: Vec<Vec<String>> = (0..s.len()).map(|r| s.point(r).values()).collect();
        assert_eq!(vals[0], ["a.toml", "tiny", "4", "64", "gto"]);
        assert_eq!(vals[1], ["a.toml", "tiny", "4", "64", "lrr"]);
        assert_eq!(vals[2], ["a.toml", "tiny", "4", "128", "gto"]);
        assert_eq!(vals[4], ["a.toml", "tiny", "8", "64", "gto"]);
        assert_eq!(vals[12], ["b.toml", "tiny", "4", "64", "gto"]);
        assert_eq!(vals[23], ["b.toml", "tiny", "16", "128", "lrr"]);
        // Every combination exactly once.
        let mut sorted = vals.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 24);
        assert_eq!(
            s.varied_columns(),
            ["kernel", "config", "set:l1d.sets", "arg:n", "sched"]
        );
        assert_eq!(s.point(5).kernel_index, 0);
        assert_eq!(s.point(13).kernel_index, 1);
    }

    #[test]
    fn optional_policy_dimensions_sit_before_the_scheduler() {
        let s = Sweep {
            fetch: Some(vec!["lrr".into(), "cff".into()]),
            sync: Some(vec!["busy".into()]),
            ..sweep()
        };
        assert_eq!(
            s.varied_columns(),
            [
                "kernel",
                "config",
                "set:l1d.sets",
                "arg:n",
                "fetch",
                "sync",
                "sched"
            ]
        );
        assert_eq!(s.validate(), Ok(48));
        let p = s.point(3);
        assert_eq!(p.fetch.as_deref(), Some("cff"));
        assert_eq!(p.sync.as_deref(), Some("busy"));
        assert_eq!(p.sched, "lrr");
    }

    #[test]
    fn invalid_sweeps_are_rejected_before_running() {
        let dup = Sweep {
            sets: vec![
                ("l1d.sets".into(), vec!["4".into()]),
                ("l1d.sets".into(), vec!["8".into()]),
            ],
            ..sweep()
        };
        assert!(dup.validate().unwrap_err().contains("given twice"));
        let empty = Sweep {
            scheds: vec![],
            ..sweep()
        };
        assert!(empty.validate().unwrap_err().contains("sched"));
        let fetch = Sweep {
            fetch: Some(vec!["nope".into()]),
            ..sweep()
        };
        assert!(fetch.validate().unwrap_err().contains("nope"));
        let sync = Sweep {
            sync: Some(vec!["sleep:0".into()]),
            ..sweep()
        };
        assert!(sync.validate().is_err());
        let twice = Sweep {
            scheds: vec!["gto".into(), "lrr".into(), "gto".into()],
            ..sweep()
        };
        assert!(
            twice
                .validate()
                .unwrap_err()
                .contains("`gto` appears twice")
        );
    }

    #[test]
    fn shards_partition_the_runs() {
        assert!(Shard::parse("3/3").is_err());
        assert!(Shard::parse("0/0").is_err());
        assert!(Shard::parse("1").is_err());
        assert!(Shard::parse("-1/3").is_err());
        let total = 10;
        let mut all: Vec<usize> = (0..3)
            .flat_map(|i| Shard { index: i, count: 3 }.runs(total))
            .collect();
        assert_eq!(Shard::parse("1/3").unwrap().runs(total), [1, 4, 7]);
        all.sort_unstable();
        assert_eq!(all, (0..total).collect::<Vec<_>>());
        assert!(Shard::parse("5/8").unwrap().runs(4).is_empty());
    }

    #[test]
    fn stat_columns_follow_the_stats_field_order() {
        let cols = stat_columns();
        assert_eq!(
            &cols[..8],
            [
                "sched",
                "fetch",
                "cycles",
                "warp_insts",
                "thread_insts",
                "ipc",
                "thread_ipc",
                "schedulers"
            ]
        );
        assert_eq!(cols[8], "stalls.issued");
        let pos = |c: &str| cols.iter().position(|x| x == c);
        assert!(pos("total.l1d.misses").is_some());
        assert!(pos("stalls.issued") < pos("total.l1d.misses"));
        assert!(pos("total.l1d.misses") < pos("mem.l2_hits").or(pos("mem.dram_reads")));
        // Arrays are left out; every column is a distinct path.
        assert!(cols.iter().all(|c| !c.starts_with("launches")
            && !c.starts_with("sms")
            && !c.starts_with("warps.")));
        let mut d = cols.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), cols.len());
    }

    #[test]
    fn records_put_the_statistics_under_their_columns() {
        let s = sweep();
        let stats = serde_json::json!({
            "sched": "gto", "fetch": "lrr", "cycles": 1234, "ipc": 0.5,
            "launches": [{"cycles": 1}],
            "stalls": {"issued": 7},
            "flag": true, "missing": null
        });
        let r = RunResult {
            point: s.point(1),
            status: Status::Ok,
            error: String::new(),
            stats: Some(stats),
            seconds: 0.0,
        };
        let cols: Vec<String> = [
            "cycles",
            "ipc",
            "stalls.issued",
            "flag",
            "missing",
            "absent",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            r.record(&cols),
            [
                "1", "a.toml", "tiny", "4", "64", "lrr", "ok", "", "1234", "0.5", "7", "true", "",
                ""
            ]
        );
        assert_eq!(r.cycles(), Some(1234));
        let j: Value = serde_json::from_str(&r.json_line(&s)).unwrap();
        assert_eq!(j["run"], 1);
        assert_eq!(j["set:l1d.sets"], "4");
        assert_eq!(j["sched"], "lrr");
        assert_eq!(j["stats"]["stalls"]["issued"], 7);
        let line = r.progress_line(2, 24);
        assert!(
            line.starts_with(
                "[2/24] run 1: a.toml tiny set:l1d.sets=4 arg:n=64 lrr: ok 1234 cycles"
            ),
            "{line}"
        );
    }
}
