//! `buffers`: the generic workload, so a user can run a kernel of their own
//! — or a real program's sequence of kernels — with only TOML. Buffers are
//! declared in the manifest and filled; module-scope variables get initial
//! values (`cudaMemcpyToSymbol`); kernels are launched in `[[launch]]` order,
//! possibly inside host loops; then buffers and symbols are checked against
//! expected contents. The full format is in `docs/workloads.md`.
//!
//! ```toml
//! ptx = "saxpy.ptx"
//! workload = "buffers"
//! grid = [4, 1, 1]
//! block = [256, 1, 1]
//! params = ["x", "y", { u32 = "$n" }, { f32 = 2.0 }]   # buffers by name, scalars typed
//!
//! [args]
//! n = 1024
//!
//! [[buffers]]
//! name = "x"
//! type = "f32"            # u8 i32 u32 i64 u64 f32 f64
//! len = "$n"              # a number or an expression over [args]
//! init = "iota"           # zero (default) | fill | iota | random | file
//!
//! [[buffers]]
//! name = "y"
//! type = "f32"
//! len = "$n"
//! expect_file = "y_expected.bin"   # or expect = [..] / expect = { value = .. }
//! ```
//!
//! With no `[[launch]]`, the top-level `entry`, `grid`, `block`, `params` and
//! `shared_bytes` make one launch; otherwise they are the defaults of each
//! `[[launch]]`. A run with no expectation anywhere reports
//! [`Check::Skipped`].

use std::path::PathBuf;

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::expr::{Expr, Num};
use crate::workload::generate::Rng;
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::textures::TextureSpec;
use crate::workload::{Launch, Workload};

/// Element type of a declared buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    U8,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl Elem {
    fn parse(s: &str) -> Option<Elem> {
        Some(match s {
            "u8" => Elem::U8,
            "i32" | "s32" => Elem::I32,
            "u32" => Elem::U32,
            "i64" | "s64" => Elem::I64,
            "u64" => Elem::U64,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Elem::U8 => 1,
            Elem::I32 | Elem::U32 | Elem::F32 => 4,
            Elem::I64 | Elem::U64 | Elem::F64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64)
    }

    /// Encodes a value (given as f64 for floats, i128 for integers).
    fn encode(self, v: Value, out: &mut Vec<u8>) {
        match (self, v) {
            (Elem::F32, Value::F(x)) => out.extend_from_slice(&(x as f32).to_le_bytes()),
            (Elem::F64, Value::F(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (Elem::F32, Value::I(x)) => out.extend_from_slice(&(x as f32).to_le_bytes()),
            (Elem::F64, Value::I(x)) => out.extend_from_slice(&(x as f64).to_le_bytes()),
            (e, Value::I(x)) => out.extend_from_slice(&(x as u64).to_le_bytes()[..e.size()]),
            (e, Value::F(x)) => out.extend_from_slice(&(x as i64 as u64).to_le_bytes()[..e.size()]),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Value {
    I(i128),
    F(f64),
}

fn num(t: &toml::Table, key: &str, default: Value) -> Result<Value, WorkloadError> {
    match t.get(key) {
        None => Ok(default),
        Some(toml::Value::Integer(i)) => Ok(Value::I(i128::from(*i))),
        Some(toml::Value::Float(f)) => Ok(Value::F(*f)),
        Some(v) => Err(WorkloadError::Args(format!(
            "buffer key `{key}` must be a number, got {v}"
        ))),
    }
}

fn read_file(
    dir: &std::path::Path,
    rel: &str,
    bytes: usize,
    what: &str,
) -> Result<Vec<u8>, WorkloadError> {
    let path: PathBuf = dir.join(rel);
    let data = std::fs::read(&path).map_err(|e| {
        WorkloadError::Args(format!("{what}: cannot read `{}`: {e}", path.display()))
    })?;
    if data.len() != bytes {
        return Err(WorkloadError::Args(format!(
            "{what}: `{}` has {} bytes, the buffer needs {bytes}",
            path.display(),
            data.len()
        )));
    }
    Ok(data)
}

fn values(
    ty: Elem,
    len: usize,
    spec: &toml::Table,
    kind: &str,
    dir: &std::path::Path,
    what: &str,
) -> Result<Vec<u8>, WorkloadError> {
    let mut out = Vec::with_capacity(len * ty.size());
    match kind {
        "zero" => out.resize(len * ty.size(), 0),
        "fill" => {
            let v = num(spec, "value", Value::I(0))?;
            for _ in 0..len {
                ty.encode(v, &mut out);
            }
        }
        "iota" => {
            let start = num(spec, "start", Value::I(0))?;
            let step = num(spec, "step", Value::I(1))?;
            for i in 0..len {
                let v = match (start, step) {
                    (Value::I(a), Value::I(b)) => Value::I(a + b * i as i128),
                    (a, b) => {
                        let f = |v: Value| match v {
                            Value::I(x) => x as f64,
                            Value::F(x) => x,
                        };
                        Value::F(f(a) + f(b) * i as f64)
                    }
                };
                ty.encode(v, &mut out);
            }
        }
        "random" => {
            let seed = match num(spec, "seed", Value::I(1))? {
                Value::I(s) => s as u64,
                Value::F(s) => s as u64,
            };
            let mut rng = Rng::new(seed);
            let lo = num(spec, "min", Value::I(0))?;
            let hi = num(
                spec,
                "max",
                if ty.is_float() {
                    Value::F(1.0)
                } else {
                    Value::I(256)
                },
            )?;
            for _ in 0..len {
                let v = match (ty.is_float(), lo, hi) {
                    (false, Value::I(a), Value::I(b)) if b > a => {
                        Value::I(a + i128::from(rng.below((b - a) as u64)))
                    }
                    (false, _, _) => {
                        return Err(WorkloadError::Args(format!(
                            "{what}: integer random needs integer min < max"
                        )));
                    }
                    (true, a, b) => {
                        let f = |v: Value| match v {
                            Value::I(x) => x as f64,
                            Value::F(x) => x,
                        };
                        Value::F(f(a) + (f(b) - f(a)) * rng.unit_f64())
                    }
                };
                ty.encode(v, &mut out);
            }
        }
        "file" => {
            let Some(toml::Value::String(p)) = spec.get("path") else {
                return Err(WorkloadError::Args(format!(
                    "{what}: init = \"file\" needs `path`"
                )));
            };
            out = read_file(dir, p, len * ty.size(), what)?;
        }
        other => {
            return Err(WorkloadError::Args(format!(
                "{what}: unknown init `{other}` (zero, fill, iota, random, file)"
            )));
        }
    }
    Ok(out)
}

/// Decodes element `i` of `bytes` as a number of type `ty`.
fn decode(ty: Elem, bytes: &[u8], i: usize) -> Num {
    let n = ty.size();
    let b = &bytes[i * n..(i + 1) * n];
    let mut x = [0u8; 8];
    x[..n].copy_from_slice(b);
    let u = u64::from_le_bytes(x);
    match ty {
        Elem::U8 | Elem::U32 | Elem::U64 => Num::Int(u as i64),
        Elem::I32 => Num::Int(i64::from(u as u32 as i32)),
        Elem::I64 => Num::Int(u as i64),
        Elem::F32 => Num::Float(f64::from(f32::from_bits(u as u32))),
        Elem::F64 => Num::Float(f64::from_bits(u)),
    }
}

fn to_value(n: Num) -> Value {
    match n {
        Num::Int(i) => Value::I(i128::from(i)),
        Num::Float(f) => Value::F(f),
    }
}

/// A data buffer or a module-scope variable: what is uploaded, what is
/// expected.
#[derive(Clone, Debug)]
struct Buffer {
    name: String,
    ty: Elem,
    /// Initial bytes (buffers: always; symbols: `None` leaves the
    /// variable's declared initializer).
    init: Option<Vec<u8>>,
    expect: Option<Vec<u8>>,
    tolerance: f64,
}

/// A `[[symbols]]` entry, resolved against the module when the run starts
/// (its size is the variable's declaration).
#[derive(Clone, Debug)]
struct Symbol {
    name: String,
    ty: Elem,
    spec: toml::Table,
}

const BUFFER_KEYS: &[&str] = &[
    "name",
    "type",
    "len",
    "init",
    "value",
    "start",
    "step",
    "min",
    "max",
    "seed",
    "path",
    "expect",
    "expect_file",
    "tolerance",
];

const SYMBOL_KEYS: &[&str] = &[
    "name",
    "type",
    "values",
    "file",
    "init",
    "value",
    "start",
    "step",
    "min",
    "max",
    "seed",
    "path",
    "expect",
    "expect_file",
    "tolerance",
];

const LAUNCH_KEYS: &[&str] = &["entry", "grid", "block", "params", "shared_bytes"];

const LOOP_KEYS: &[&str] = &[
    "loop",
    "count",
    "until",
    "while",
    "max_iterations",
    "before",
    "body",
];

/// Iterations a `until`/`while` loop may run before it is an error.
const DEFAULT_MAX_ITERATIONS: u64 = 100_000;

fn check_keys(t: &toml::Table, keys: &[&str], what: &str) -> Result<(), WorkloadError> {
    let mut names: Vec<&String> = t.keys().collect();
    names.sort();
    match names.into_iter().find(|k| !keys.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => {
            let hint = crate::ptx::suggest::closest(k, keys.iter().copied())
                .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
            Err(WorkloadError::Args(format!(
                "{what}: unknown key `{k}`{hint} (keys: {})",
                keys.join(", ")
            )))
        }
    }
}

fn elem_type(t: &toml::Table, what: &str) -> Result<Elem, WorkloadError> {
    match t.get("type") {
        Some(toml::Value::String(s)) => Elem::parse(s).ok_or_else(|| {
            WorkloadError::Args(format!(
                "{what}: unknown type `{s}` (u8 i32 u32 i64 u64 f32 f64)"
            ))
        }),
        _ => Err(WorkloadError::Args(format!("{what}: needs `type`"))),
    }
}

/// The `expect` / `expect_file` of a buffer or symbol of `len` elements.
fn expectation(
    t: &toml::Table,
    ty: Elem,
    len: usize,
    dir: &std::path::Path,
    what: &str,
) -> Result<Option<Vec<u8>>, WorkloadError> {
    Ok(match (t.get("expect"), t.get("expect_file")) {
        (Some(_), Some(_)) => {
            return Err(WorkloadError::Args(format!(
                "{what}: give `expect` or `expect_file`, not both"
            )));
        }
        (Some(toml::Value::Array(a)), None) => {
            if a.len() != len {
                return Err(WorkloadError::Args(format!(
                    "{what}: `expect` has {} values, the {} holds {len}",
                    a.len(),
                    if what.starts_with("symbol") {
                        "variable"
                    } else {
                        "buffer"
                    }
                )));
            }
            Some(inline_values(ty, a, what)?)
        }
        (Some(toml::Value::Table(spec)), None) => {
            let k = if spec.contains_key("value") {
                "fill"
            } else if spec.contains_key("step") || spec.contains_key("start") {
                "iota"
            } else {
                "zero"
            };
            Some(values(ty, len, spec, k, dir, what)?)
        }
        (Some(v), None) => {
            return Err(WorkloadError::Args(format!(
                "{what}: `expect` must be an array or a table, got {v}"
            )));
        }
        (None, Some(toml::Value::String(p))) => Some(read_file(dir, p, len * ty.size(), what)?),
        (None, Some(v)) => {
            return Err(WorkloadError::Args(format!(
                "{what}: `expect_file` must be a path, got {v}"
            )));
        }
        (None, None) => None,
    })
}

fn inline_values(ty: Elem, a: &[toml::Value], what: &str) -> Result<Vec<u8>, WorkloadError> {
    let mut out = Vec::with_capacity(a.len() * ty.size());
    for v in a {
        let v = match v {
            toml::Value::Integer(i) => Value::I(i128::from(*i)),
            toml::Value::Float(f) => Value::F(*f),
            other => {
                return Err(WorkloadError::Args(format!(
                    "{what}: value {other} is not a number"
                )));
            }
        };
        ty.encode(v, &mut out);
    }
    Ok(out)
}

fn tolerance(t: &toml::Table) -> Result<f64, WorkloadError> {
    Ok(match num(t, "tolerance", Value::F(0.0))? {
        Value::F(x) => x,
        Value::I(x) => x as f64,
    })
}

/// `[args]` values for expressions (marks them used).
fn arg_lookup(args: &mut Args) -> impl FnMut(&str) -> Result<Option<Num>, WorkloadError> + '_ {
    move |k: &str| {
        if !args.has(k) {
            return Ok(None);
        }
        let x = args.f64(k, 0.0)?;
        Ok(Some(if x.fract() == 0.0 && x.abs() < 9.0e15 {
            Num::Int(x as i64)
        } else {
            Num::Float(x)
        }))
    }
}

/// What a launch parameter is.
#[derive(Clone, Debug)]
enum Param {
    /// A buffer's address.
    Buffer(usize),
    /// A typed scalar (`u32`, `f32`, …).
    Scalar(&'static str, Expr),
    /// Buffer `list[counter % len]`: ping-pong buffers swapped each
    /// iteration.
    Alternate(Vec<usize>, String),
}

/// Where a host read or write goes: a buffer, or a `[[symbols]]` variable.
#[derive(Clone, Debug)]
enum Target {
    Buffer(usize),
    Symbol(usize),
}

/// `{ buffer = "x", index = 0, equals = 0 }` (or `not_equals`).
#[derive(Clone, Debug)]
struct Cond {
    target: Target,
    index: Expr,
    equals: bool,
    value: Expr,
    text: String,
}

/// `{ set = "x", index = 0, value = 0 }`.
#[derive(Clone, Debug)]
struct SetOp {
    target: Target,
    index: Expr,
    value: Expr,
}

#[derive(Clone, Debug)]
enum LoopKind {
    Count(Expr),
    Until(Cond),
    While(Cond),
}

#[derive(Clone, Debug)]
struct LaunchStep {
    what: String,
    entry: Option<String>,
    grid: [Expr; 3],
    block: [Expr; 3],
    params: Vec<Param>,
    shared: Expr,
}

#[derive(Clone, Debug)]
struct LoopStep {
    what: String,
    counter: String,
    kind: LoopKind,
    max_iterations: u64,
    before: Vec<SetOp>,
    body: Vec<Step>,
}

#[derive(Clone, Debug)]
enum Step {
    Launch(LaunchStep),
    Loop(LoopStep),
}

/// The workload.
pub struct Buffers {
    buffers: Vec<Buffer>,
    symbols: Vec<Symbol>,
    textures: Vec<TextureSpec>,
    steps: Vec<Step>,
    dir: PathBuf,
}

/// Everything parsing a step needs.
struct StepCtx<'a> {
    launch: &'a Launch,
    buffers: &'a [Buffer],
    symbols: &'a [Symbol],
}

impl StepCtx<'_> {
    fn buffer(&self, name: &str, what: &str) -> Result<usize, WorkloadError> {
        self.buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.buffers.iter().map(|b| b.name.as_str()).collect();
                WorkloadError::Args(format!(
                    "{what} names buffer `{name}`, which is not declared (buffers: {})",
                    names.join(", ")
                ))
            })
    }

    fn target(&self, name: &str, what: &str) -> Result<Target, WorkloadError> {
        if let Some(i) = self.symbols.iter().position(|s| s.name == name) {
            return Ok(Target::Symbol(i));
        }
        self.buffer(name, what).map(Target::Buffer)
    }

    fn shape(
        &self,
        t: &toml::Table,
        key: &str,
        default: Option<[u32; 3]>,
        args: &mut Args,
        counters: &[String],
        what: &str,
    ) -> Result<[Expr; 3], WorkloadError> {
        match t.get(key) {
            None => {
                let d = default.ok_or_else(|| {
                    WorkloadError::Args(format!(
                        "{what}: needs `{key}` (in the launch or at the top of the manifest)"
                    ))
                })?;
                Ok(d.map(|x| Expr::Const(Num::Int(i64::from(x)))))
            }
            Some(toml::Value::Array(a)) if a.len() == 3 => {
                let mut out = Vec::with_capacity(3);
                for (d, v) in a.iter().enumerate() {
                    out.push(Expr::from_toml(
                        v,
                        &format!("{what}: {key}[{d}]"),
                        &mut arg_lookup(args),
                        counters,
                    )?);
                }
                Ok([out[0].clone(), out[1].clone(), out[2].clone()])
            }
            Some(v) => Err(WorkloadError::Args(format!(
                "{what}: `{key}` must be [x, y, z], got {v}"
            ))),
        }
    }

    fn param(
        &self,
        v: &toml::Value,
        what: &str,
        args: &mut Args,
        counters: &[String],
    ) -> Result<Param, WorkloadError> {
        let bad = || {
            WorkloadError::Args(format!(
                "{what} = {v}: use a buffer name, one typed scalar such as {{ u32 = 5 }} or {{ u32 = \"$n\" }} \
                 (u32 s32 u64 s64 f32 f64), or {{ alternate = [\"a\", \"b\"] }}"
            ))
        };
        match v {
            toml::Value::String(name) => Ok(Param::Buffer(self.buffer(name, what)?)),
            toml::Value::Table(t) if t.contains_key("alternate") => {
                check_keys(t, &["alternate", "loop"], what)?;
                let Some(toml::Value::Array(list)) = t.get("alternate") else {
                    return Err(bad());
                };
                let mut ids = Vec::new();
                for b in list {
                    let toml::Value::String(name) = b else {
                        return Err(bad());
                    };
                    ids.push(self.buffer(name, what)?);
                }
                if ids.is_empty() {
                    return Err(bad());
                }
                let counter = match t.get("loop") {
                    Some(toml::Value::String(c)) => c.clone(),
                    Some(_) => return Err(bad()),
                    None => counters.last().cloned().ok_or_else(|| {
                        WorkloadError::Args(format!(
                            "{what}: `alternate` needs an enclosing [[launch]] loop"
                        ))
                    })?,
                };
                if !counters.contains(&counter) {
                    return Err(WorkloadError::Args(format!(
                        "{what}: `alternate` follows loop `{counter}`, which does not enclose it"
                    )));
                }
                Ok(Param::Alternate(ids, counter))
            }
            toml::Value::Table(t) if t.len() == 1 => {
                let (k, x) = t.iter().next().ok_or_else(bad)?;
                let kind = match k.as_str() {
                    "u32" => "u32",
                    "s32" | "i32" => "s32",
                    "u64" => "u64",
                    "s64" | "i64" => "s64",
                    "f32" => "f32",
                    "f64" => "f64",
                    _ => return Err(bad()),
                };
                let e = Expr::from_toml(x, what, &mut arg_lookup(args), counters)?;
                Ok(Param::Scalar(kind, e))
            }
            _ => Err(bad()),
        }
    }

    fn cond(
        &self,
        v: &toml::Value,
        what: &str,
        args: &mut Args,
        counters: &[String],
    ) -> Result<Cond, WorkloadError> {
        let toml::Value::Table(t) = v else {
            return Err(WorkloadError::Args(format!(
                "{what} must be a table {{ buffer = \"x\", index = 0, equals = 0 }}, got {v}"
            )));
        };
        check_keys(t, &["buffer", "index", "equals", "not_equals"], what)?;
        let Some(toml::Value::String(name)) = t.get("buffer") else {
            return Err(WorkloadError::Args(format!("{what}: needs `buffer`")));
        };
        let target = self.target(name, what)?;
        let index = match t.get("index") {
            None => Expr::Const(Num::Int(0)),
            Some(i) => Expr::from_toml(i, what, &mut arg_lookup(args), counters)?,
        };
        let (equals, value) = match (t.get("equals"), t.get("not_equals")) {
            (Some(v), None) => (true, v),
            (None, Some(v)) => (false, v),
            _ => {
                return Err(WorkloadError::Args(format!(
                    "{what}: give one of `equals`, `not_equals`"
                )));
            }
        };
        let text = format!(
            "{name}[{}] {} {value}",
            t.get("index").map_or("0".to_string(), |i| i.to_string()),
            if equals { "==" } else { "!=" }
        );
        let value = Expr::from_toml(value, what, &mut arg_lookup(args), counters)?;
        Ok(Cond {
            target,
            index,
            equals,
            value,
            text,
        })
    }

    fn steps(
        &self,
        list: &[toml::Table],
        prefix: &str,
        args: &mut Args,
        counters: &mut Vec<String>,
    ) -> Result<Vec<Step>, WorkloadError> {
        let mut steps = Vec::new();
        for (i, t) in list.iter().enumerate() {
            let what = format!("{prefix}[{i}]");
            if t.contains_key("loop") {
                steps.push(Step::Loop(self.loop_step(t, &what, args, counters)?));
            } else {
                steps.push(Step::Launch(self.launch_step(t, &what, args, counters)?));
            }
        }
        Ok(steps)
    }

    fn launch_step(
        &self,
        t: &toml::Table,
        what: &str,
        args: &mut Args,
        counters: &[String],
    ) -> Result<LaunchStep, WorkloadError> {
        check_keys(t, LAUNCH_KEYS, what)?;
        let l = self.launch;
        let entry = match t.get("entry") {
            None => l.entry.clone(),
            Some(toml::Value::String(s)) => Some(s.clone()),
            Some(v) => {
                return Err(WorkloadError::Args(format!(
                    "{what}: `entry` must be a kernel name, got {v}"
                )));
            }
        };
        let grid = self.shape(t, "grid", l.grid, args, counters, what)?;
        let block = self.shape(t, "block", l.block, args, counters, what)?;
        let param_list = match t.get("params") {
            None => l.params.clone(),
            Some(toml::Value::Array(a)) => a.clone(),
            Some(v) => {
                return Err(WorkloadError::Args(format!(
                    "{what}: `params` must be a list, got {v}"
                )));
            }
        };
        let mut params = Vec::with_capacity(param_list.len());
        for (j, p) in param_list.iter().enumerate() {
            let pw = if t.contains_key("params") {
                format!("{what}: params[{j}]")
            } else {
                format!("params[{j}]")
            };
            params.push(self.param(p, &pw, args, counters)?);
        }
        let shared = match t.get("shared_bytes").or(l.shared_bytes.as_ref()) {
            None => Expr::Const(Num::Int(0)),
            Some(v) => Expr::from_toml(
                v,
                &format!("{what}: shared_bytes"),
                &mut arg_lookup(args),
                counters,
            )?,
        };
        Ok(LaunchStep {
            what: what.to_string(),
            entry,
            grid,
            block,
            params,
            shared,
        })
    }

    fn loop_step(
        &self,
        t: &toml::Table,
        what: &str,
        args: &mut Args,
        counters: &mut Vec<String>,
    ) -> Result<LoopStep, WorkloadError> {
        check_keys(t, LOOP_KEYS, what)?;
        let counter = match t.get("loop") {
            Some(toml::Value::String(s))
                if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                s.clone()
            }
            v => {
                return Err(WorkloadError::Args(format!(
                    "{what}: `loop` names the loop's counter (letters, digits, _), got {}",
                    v.map_or("nothing".to_string(), |v| v.to_string())
                )));
            }
        };
        if args.has(&counter) || counters.contains(&counter) {
            return Err(WorkloadError::Args(format!(
                "{what}: loop counter `{counter}` hides {} of the same name",
                if args.has(&counter) {
                    "an [args] value"
                } else {
                    "an enclosing loop's counter"
                }
            )));
        }
        counters.push(counter.clone());
        let r = self.loop_body(t, what, args, counters, counter);
        counters.pop();
        r
    }

    fn loop_body(
        &self,
        t: &toml::Table,
        what: &str,
        args: &mut Args,
        counters: &mut Vec<String>,
        counter: String,
    ) -> Result<LoopStep, WorkloadError> {
        let kind = match (t.get("count"), t.get("until"), t.get("while")) {
            (Some(c), None, None) => {
                // The count is fixed before the loop starts: its own
                // counter is not in scope.
                let outer = &counters[..counters.len() - 1];
                LoopKind::Count(Expr::from_toml(
                    c,
                    &format!("{what}: count"),
                    &mut arg_lookup(args),
                    outer,
                )?)
            }
            (None, Some(c), None) => {
                LoopKind::Until(self.cond(c, &format!("{what}: until"), args, counters)?)
            }
            (None, None, Some(c)) => {
                LoopKind::While(self.cond(c, &format!("{what}: while"), args, counters)?)
            }
            _ => {
                return Err(WorkloadError::Args(format!(
                    "{what}: a loop needs exactly one of `count`, `until`, `while`"
                )));
            }
        };
        let max_iterations = match t.get("max_iterations") {
            None => DEFAULT_MAX_ITERATIONS,
            Some(toml::Value::Integer(n)) if *n >= 1 => *n as u64,
            Some(v) => {
                return Err(WorkloadError::Args(format!(
                    "{what}: `max_iterations` must be a positive integer, got {v}"
                )));
            }
        };
        let mut before = Vec::new();
        match t.get("before") {
            None => {}
            Some(toml::Value::Array(a)) => {
                for (j, s) in a.iter().enumerate() {
                    let sw = format!("{what}: before[{j}]");
                    let toml::Value::Table(s) = s else {
                        return Err(WorkloadError::Args(format!(
                            "{sw} must be {{ set = \"x\", index = 0, value = 0 }}"
                        )));
                    };
                    check_keys(s, &["set", "index", "value"], &sw)?;
                    let Some(toml::Value::String(name)) = s.get("set") else {
                        return Err(WorkloadError::Args(format!("{sw}: needs `set`")));
                    };
                    let target = self.target(name, &sw)?;
                    let index = match s.get("index") {
                        None => Expr::Const(Num::Int(0)),
                        Some(i) => Expr::from_toml(i, &sw, &mut arg_lookup(args), counters)?,
                    };
                    let Some(value) = s.get("value") else {
                        return Err(WorkloadError::Args(format!("{sw}: needs `value`")));
                    };
                    let value = Expr::from_toml(value, &sw, &mut arg_lookup(args), counters)?;
                    before.push(SetOp {
                        target,
                        index,
                        value,
                    });
                }
            }
            Some(v) => {
                return Err(WorkloadError::Args(format!(
                    "{what}: `before` must be a list, got {v}"
                )));
            }
        }
        let body = match t.get("body") {
            Some(toml::Value::Array(a)) if !a.is_empty() => {
                let mut tables = Vec::with_capacity(a.len());
                for (j, b) in a.iter().enumerate() {
                    let toml::Value::Table(b) = b else {
                        return Err(WorkloadError::Args(format!(
                            "{what}: body[{j}] must be a table ([[launch.body]])"
                        )));
                    };
                    tables.push(b.clone());
                }
                self.steps(&tables, &format!("{what}.body"), args, counters)?
            }
            _ => {
                return Err(WorkloadError::Args(format!(
                    "{what}: a loop needs a non-empty `body` ([[launch.body]] tables)"
                )));
            }
        };
        Ok(LoopStep {
            what: what.to_string(),
            counter,
            kind,
            max_iterations,
            before,
            body,
        })
    }
}

impl Buffers {
    /// Reads the manifest's `[[buffers]]`, `[[symbols]]`, `[[launch]]` and
    /// `params` (and `seed` from `[args]`, unused but accepted for sweeps).
    pub fn new(args: &mut Args, launch: Launch) -> Result<Buffers, WorkloadError> {
        let _ = args.u64("seed", 1)?;
        let mut buffers = Vec::new();
        for (i, t) in launch.buffers.iter().enumerate() {
            let what = format!("buffer #{}", i + 1);
            check_keys(t, BUFFER_KEYS, &what)?;
            let Some(toml::Value::String(name)) = t.get("name") else {
                return Err(WorkloadError::Args(format!("{what}: needs `name`")));
            };
            let what = format!("buffer `{name}`");
            let ty = elem_type(t, &what)?;
            let len = match t.get("len") {
                None => None,
                Some(v) => {
                    let e =
                        Expr::from_toml(v, &format!("{what}: len"), &mut arg_lookup(args), &[])?;
                    e.int_in(&|_| None, &format!("{what}: len"), 1, 1 << 28)
                        .ok()
                }
            };
            let Some(len) = len.map(|n| n as usize) else {
                return Err(WorkloadError::Args(format!(
                    "{what}: needs `len` between 1 and 2^28"
                )));
            };
            let kind = match t.get("init") {
                None => "zero",
                Some(toml::Value::String(s)) => s.as_str(),
                Some(v) => {
                    return Err(WorkloadError::Args(format!(
                        "{what}: `init` must be a string, got {v}"
                    )));
                }
            };
            let init = values(ty, len, t, kind, &launch.dir, &what)?;
            let expect = expectation(t, ty, len, &launch.dir, &what)?;
            if buffers.iter().any(|b: &Buffer| &b.name == name) {
                return Err(WorkloadError::Args(format!("{what} is declared twice")));
            }
            buffers.push(Buffer {
                name: name.clone(),
                ty,
                init: Some(init),
                expect,
                tolerance: tolerance(t)?,
            });
        }
        let mut symbols = Vec::new();
        for (i, t) in launch.symbols.iter().enumerate() {
            let what = format!("symbol #{}", i + 1);
            check_keys(t, SYMBOL_KEYS, &what)?;
            let Some(toml::Value::String(name)) = t.get("name") else {
                return Err(WorkloadError::Args(format!("{what}: needs `name`")));
            };
            let what = format!("symbol `{name}`");
            let ty = elem_type(t, &what)?;
            let sources = ["values", "file", "init"]
                .iter()
                .filter(|k| t.contains_key(**k))
                .count();
            if sources > 1 {
                return Err(WorkloadError::Args(format!(
                    "{what}: give one of `values`, `file`, `init`"
                )));
            }
            if symbols.iter().any(|s: &Symbol| &s.name == name)
                || buffers.iter().any(|b| &b.name == name)
            {
                return Err(WorkloadError::Args(format!("{what} is declared twice")));
            }
            symbols.push(Symbol {
                name: name.clone(),
                ty,
                spec: t.clone(),
            });
        }
        let cx = StepCtx {
            launch: &launch,
            buffers: &buffers,
            symbols: &symbols,
        };
        let steps = if launch.steps.is_empty() {
            vec![Step::Launch(cx.launch_step(
                &toml::Table::new(),
                "the launch",
                args,
                &[],
            )?)]
        } else {
            cx.steps(&launch.steps, "launch", args, &mut Vec::new())?
        };
        let mut textures = Vec::new();
        for (i, t) in launch.textures.iter().enumerate() {
            let spec = TextureSpec::parse(t, i)?;
            if !buffers.iter().any(|b: &Buffer| b.name == spec.buffer) {
                return Err(WorkloadError::Args(format!(
                    "textures[{i}] binds buffer `{}`, which is not declared",
                    spec.buffer
                )));
            }
            textures.push(spec);
        }
        Ok(Buffers {
            buffers,
            symbols,
            textures,
            steps,
            dir: launch.dir.clone(),
        })
    }
}

/// A launch parameter's value.
fn scalar(kind: &str, n: Num, what: &str) -> Result<ArgValue, WorkloadError> {
    let int = |lo: i128, hi: i128| match n {
        Num::Int(i) if (lo..=hi).contains(&i128::from(i)) => Ok(i),
        _ => Err(WorkloadError::Args(format!(
            "{what}: {n:?} does not fit `.{kind}`"
        ))),
    };
    Ok(match kind {
        "u32" => ArgValue::U32(int(0, i128::from(u32::MAX))? as u32),
        "s32" => ArgValue::S32(int(i128::from(i32::MIN), i128::from(i32::MAX))? as i32),
        "u64" => ArgValue::U64(int(0, i128::from(i64::MAX))? as u64),
        "s64" => ArgValue::S64(int(i128::from(i64::MIN), i128::from(i64::MAX))?),
        "f32" => ArgValue::F32(n.as_f64() as f32),
        _ => ArgValue::F64(n.as_f64()),
    })
}

/// Loop counters while the steps run: `(name, value)`, innermost last.
type Counters = Vec<(String, i64)>;

fn lookup(counters: &Counters) -> impl Fn(&str) -> Option<i64> + '_ {
    |name| {
        counters
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|&(_, v)| v)
    }
}

/// A run in progress: addresses of buffers and symbols.
struct Device<'a> {
    buffers: &'a [Buffer],
    symbols: &'a [Symbol],
    addrs: Vec<u64>,
    symbol_addrs: Vec<(u64, u64)>,
}

impl Device<'_> {
    /// Address, element type and element count of a target.
    fn place(&self, t: &Target) -> (u64, Elem, usize, &str) {
        match *t {
            Target::Buffer(i) => {
                let b = &self.buffers[i];
                let len = b.init.as_ref().map_or(0, Vec::len) / b.ty.size();
                (self.addrs[i], b.ty, len, b.name.as_str())
            }
            Target::Symbol(i) => {
                let s = &self.symbols[i];
                let (addr, size) = self.symbol_addrs[i];
                (addr, s.ty, size as usize / s.ty.size(), s.name.as_str())
            }
        }
    }

    fn element(
        &self,
        t: &Target,
        index: &Expr,
        c: &Counters,
        what: &str,
    ) -> Result<(u64, Elem), WorkloadError> {
        let (addr, ty, len, name) = self.place(t);
        let i = index.int_in(
            &lookup(c),
            &format!("{what}: index into `{name}`"),
            0,
            len as i64 - 1,
        )?;
        Ok((addr + i as u64 * ty.size() as u64, ty))
    }

    fn read(
        &self,
        host: &mut dyn Host,
        t: &Target,
        index: &Expr,
        c: &Counters,
        what: &str,
    ) -> Result<(Num, Elem), WorkloadError> {
        let (addr, ty) = self.element(t, index, c, what)?;
        let b = host.read_bytes(addr, ty.size())?;
        Ok((decode(ty, &b, 0), ty))
    }

    fn holds(
        &self,
        host: &mut dyn Host,
        cond: &Cond,
        c: &Counters,
        what: &str,
    ) -> Result<bool, WorkloadError> {
        let (got, ty) = self.read(host, &cond.target, &cond.index, c, what)?;
        let want = cond.value.eval(&lookup(c))?;
        // Compare in the element's type: encode the wanted value as it.
        let mut w = Vec::new();
        ty.encode(to_value(want), &mut w);
        let same = decode(ty, &w, 0) == got;
        Ok(same == cond.equals)
    }

    fn run_steps(
        &self,
        host: &mut dyn Host,
        steps: &[Step],
        c: &mut Counters,
    ) -> Result<(), WorkloadError> {
        for step in steps {
            match step {
                Step::Launch(l) => self.launch(host, l, c)?,
                Step::Loop(l) => self.run_loop(host, l, c)?,
            }
        }
        Ok(())
    }

    fn launch(
        &self,
        host: &mut dyn Host,
        l: &LaunchStep,
        c: &Counters,
    ) -> Result<(), WorkloadError> {
        let at = |e: &Expr, what: &str| {
            e.int_in(
                &lookup(c),
                &format!("{}: {what}", l.what),
                1,
                i64::from(u32::MAX),
            )
            .map(|v| v as u32)
        };
        let mut grid = [1u32; 3];
        let mut block = [1u32; 3];
        for d in 0..3 {
            grid[d] = at(&l.grid[d], &format!("grid[{d}]"))?;
            block[d] = at(&l.block[d], &format!("block[{d}]"))?;
        }
        let mut args = Vec::with_capacity(l.params.len());
        for (j, p) in l.params.iter().enumerate() {
            args.push(match p {
                Param::Buffer(b) => ArgValue::U64(self.addrs[*b]),
                Param::Alternate(list, counter) => {
                    let k = lookup(c)(counter).unwrap_or(0);
                    ArgValue::U64(self.addrs[list[k.rem_euclid(list.len() as i64) as usize]])
                }
                Param::Scalar(kind, e) => scalar(
                    kind,
                    e.eval(&lookup(c))?,
                    &format!("{}: params[{j}]", l.what),
                )?,
            });
        }
        let shared = l.shared.int_in(
            &lookup(c),
            &format!("{}: shared_bytes", l.what),
            0,
            i64::from(u32::MAX),
        )? as u32;
        host.launch_shared(l.entry.as_deref(), grid, block, &args, shared)
    }

    fn run_loop(
        &self,
        host: &mut dyn Host,
        l: &LoopStep,
        c: &mut Counters,
    ) -> Result<(), WorkloadError> {
        let count = match &l.kind {
            LoopKind::Count(e) => {
                Some(e.int_in(&lookup(c), &format!("{}: count", l.what), 0, i64::MAX)?)
            }
            _ => None,
        };
        c.push((l.counter.clone(), 0));
        let r = (|| {
            let mut i: i64 = 0;
            loop {
                if let Some(n) = count
                    && i >= n
                {
                    return Ok(());
                }
                if count.is_none() && i as u64 >= l.max_iterations {
                    let cond = match &l.kind {
                        LoopKind::Until(x) => format!("until {}", x.text),
                        LoopKind::While(x) => format!("while {}", x.text),
                        LoopKind::Count(_) => String::new(),
                    };
                    return Err(WorkloadError::Host(format!(
                        "{} (loop `{}`, {cond}) ran max_iterations = {} iterations without finishing",
                        l.what, l.counter, l.max_iterations
                    )));
                }
                c.last_mut().expect("pushed").1 = i;
                for s in &l.before {
                    let (addr, ty) = self.element(&s.target, &s.index, c, &l.what)?;
                    let mut b = Vec::new();
                    ty.encode(to_value(s.value.eval(&lookup(c))?), &mut b);
                    host.write_bytes(addr, &b)?;
                }
                if let LoopKind::While(cond) = &l.kind
                    && !self.holds(host, cond, c, &l.what)?
                {
                    return Ok(());
                }
                self.run_steps(host, &l.body, c)?;
                if let LoopKind::Until(cond) = &l.kind
                    && self.holds(host, cond, c, &l.what)?
                {
                    return Ok(());
                }
                i += 1;
            }
        })();
        c.pop();
        r
    }
}

fn compare(b: &Buffer, expect: &[u8], got: &[u8]) -> Check {
    match b.ty {
        Elem::F32 => {
            let f = |v: &[u8]| {
                v.chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
                    .collect::<Vec<_>>()
            };
            check::close_f32(&b.name, &f(expect), &f(got), b.tolerance as f32, 0.0)
        }
        Elem::F64 => {
            let f = |v: &[u8]| {
                v.chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().expect("8")))
                    .collect::<Vec<_>>()
            };
            check::close_f64(&b.name, &f(expect), &f(got), b.tolerance, 0.0)
        }
        ty => {
            let n = ty.size();
            let f = |v: &[u8]| {
                v.chunks_exact(n)
                    .map(|c| {
                        let mut x = [0u8; 8];
                        x[..n].copy_from_slice(c);
                        u64::from_le_bytes(x)
                    })
                    .collect::<Vec<_>>()
            };
            check::exact(&b.name, &f(expect), &f(got))
        }
    }
}

/// Each symbol's `(address, declared size)`, and its data and expectation.
type ResolvedSymbols = (Vec<(u64, u64)>, Vec<Buffer>);

impl Buffers {
    /// Resolves the `[[symbols]]` against the module: address, size, the
    /// initial bytes (exactly the declared size) and the expectation.
    fn resolve_symbols(&self, host: &dyn Host) -> Result<ResolvedSymbols, WorkloadError> {
        let mut places = Vec::new();
        let mut resolved = Vec::new();
        for s in &self.symbols {
            let what = format!("symbol `{}`", s.name);
            let (addr, size) = host.symbol(&s.name).ok_or_else(|| {
                WorkloadError::Args(format!(
                    "{what}: the module declares no module-scope `.global` or `.const` variable `{}`",
                    s.name
                ))
            })?;
            let t = &s.spec;
            let len = size as usize / s.ty.size();
            let data = if let Some(v) = t.get("values") {
                let toml::Value::Array(a) = v else {
                    return Err(WorkloadError::Args(format!(
                        "{what}: `values` must be a list of numbers, got {v}"
                    )));
                };
                Some(inline_values(s.ty, a, &what)?)
            } else if let Some(f) = t.get("file") {
                let toml::Value::String(f) = f else {
                    return Err(WorkloadError::Args(format!(
                        "{what}: `file` must be a path, got {f}"
                    )));
                };
                let path = self.dir.join(f);
                Some(std::fs::read(&path).map_err(|e| {
                    WorkloadError::Args(format!("{what}: cannot read `{}`: {e}", path.display()))
                })?)
            } else if let Some(k) = t.get("init") {
                let toml::Value::String(k) = k else {
                    return Err(WorkloadError::Args(format!(
                        "{what}: `init` must be a string, got {k}"
                    )));
                };
                Some(values(s.ty, len, t, k, &self.dir, &what)?)
            } else {
                None
            };
            if let Some(d) = &data
                && d.len() as u64 != size
            {
                return Err(WorkloadError::Args(format!(
                    "{what} is declared with {size} bytes ({len} × {}), the data has {} bytes",
                    t.get("type").and_then(toml::Value::as_str).unwrap_or("?"),
                    d.len()
                )));
            }
            if !(size as usize).is_multiple_of(s.ty.size()) {
                return Err(WorkloadError::Args(format!(
                    "{what} is declared with {size} bytes, not a whole number of `{}` elements",
                    t.get("type").and_then(toml::Value::as_str).unwrap_or("?")
                )));
            }
            places.push((addr, size));
            resolved.push(Buffer {
                name: s.name.clone(),
                ty: s.ty,
                init: data,
                expect: expectation(t, s.ty, len, &self.dir, &what)?,
                tolerance: tolerance(t)?,
            });
        }
        Ok((places, resolved))
    }
}

impl Workload for Buffers {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let mut addrs = Vec::new();
        for b in &self.buffers {
            addrs.push(upload::<u8>(
                host,
                &b.name,
                b.init.as_deref().unwrap_or(&[]),
            )?);
        }
        for t in &self.textures {
            let k = self
                .buffers
                .iter()
                .position(|b| b.name == t.buffer)
                .expect("checked in Buffers::new");
            host.bind_texture(&t.name, t.desc(addrs[k]))?;
        }
        let (symbol_addrs, symbol_data) = self.resolve_symbols(host)?;
        for (s, &(addr, _)) in symbol_data.iter().zip(&symbol_addrs) {
            if let Some(d) = &s.init {
                host.write_bytes(addr, d)?;
            }
        }
        let dev = Device {
            buffers: &self.buffers,
            symbols: &self.symbols,
            addrs,
            symbol_addrs,
        };
        dev.run_steps(host, &self.steps, &mut Vec::new())?;
        let mut checks = Vec::new();
        let all = self.buffers.iter().zip(&dev.addrs).chain(
            symbol_data
                .iter()
                .zip(dev.symbol_addrs.iter().map(|(a, _)| a)),
        );
        for (b, &addr) in all {
            let Some(expect) = &b.expect else { continue };
            let got: Vec<u8> = download(host, addr, expect.len())?;
            checks.push(compare(b, expect, &got));
        }
        if checks.is_empty() {
            return Ok(Check::Skipped);
        }
        Ok(Check::all(checks))
    }
}
