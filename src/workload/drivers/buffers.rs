//! `buffers`: the generic workload, so a user can run a kernel of their own
//! with only TOML. Buffers are declared in the manifest, filled, passed to
//! the kernel in `params` order, and optionally checked against expected
//! contents.
//!
//! ```toml
//! ptx = "saxpy.ptx"
//! workload = "buffers"
//! grid = [4, 1, 1]
//! block = [256, 1, 1]
//! params = ["x", "y", { u32 = 1024 }, { f32 = 2.0 }]   # buffers by name, scalars typed
//!
//! [[buffers]]
//! name = "x"
//! type = "f32"            # u8 i32 u32 i64 u64 f32 f64
//! len = 1024
//! init = "iota"           # zero (default) | fill | iota | random | file
//! start = 0.0             # iota: start + i * step
//! step = 1.0
//!
//! [[buffers]]
//! name = "y"
//! type = "f32"
//! len = 1024
//! init = "random"         # uniform in [min, max), from `seed`
//! min = -1.0
//! max = 1.0
//! seed = 3
//! expect_file = "y_expected.bin"   # or expect = [..] / expect = { fill = .. }
//! tolerance = 1e-6                 # relative; floats only (default exact)
//! ```
//!
//! `file` reads raw little-endian elements from `path` (relative to the
//! manifest); `expect_file` likewise. A buffer with neither `expect` nor
//! `expect_file` is not checked; a run with no checked buffer passes if it
//! completes without error.

use std::path::PathBuf;

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
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

/// One declared buffer.
#[derive(Clone, Debug)]
struct Buffer {
    name: String,
    ty: Elem,
    init: Vec<u8>,
    expect: Option<Vec<u8>>,
    tolerance: f64,
}

/// The workload.
pub struct Buffers {
    buffers: Vec<Buffer>,
    params: Vec<toml::Value>,
    textures: Vec<TextureSpec>,
    launch: Launch,
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

impl Buffers {
    /// Reads the manifest's `[[buffers]]` and `params` (and `seed` from
    /// `[args]`, unused but accepted for sweeps).
    pub fn new(args: &mut Args, launch: Launch) -> Result<Buffers, WorkloadError> {
        let _ = args.u64("seed", 1)?;
        let mut buffers = Vec::new();
        for (i, t) in launch.buffers.iter().enumerate() {
            let what = format!("buffer #{}", i + 1);
            if let Some(k) = t.keys().find(|k| !BUFFER_KEYS.contains(&k.as_str())) {
                return Err(WorkloadError::Args(format!(
                    "{what}: unknown key `{k}` (keys: {})",
                    BUFFER_KEYS.join(", ")
                )));
            }
            let Some(toml::Value::String(name)) = t.get("name") else {
                return Err(WorkloadError::Args(format!("{what}: needs `name`")));
            };
            let what = format!("buffer `{name}`");
            let ty = match t.get("type") {
                Some(toml::Value::String(s)) => Elem::parse(s).ok_or_else(|| {
                    WorkloadError::Args(format!(
                        "{what}: unknown type `{s}` (u8 i32 u32 i64 u64 f32 f64)"
                    ))
                })?,
                _ => return Err(WorkloadError::Args(format!("{what}: needs `type`"))),
            };
            let len = match t.get("len") {
                Some(toml::Value::Integer(n)) if (1..=1 << 28).contains(n) => *n as usize,
                _ => {
                    return Err(WorkloadError::Args(format!(
                        "{what}: needs `len` between 1 and 2^28"
                    )));
                }
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
            let expect = match (t.get("expect"), t.get("expect_file")) {
                (Some(_), Some(_)) => {
                    return Err(WorkloadError::Args(format!(
                        "{what}: give `expect` or `expect_file`, not both"
                    )));
                }
                (Some(toml::Value::Array(a)), None) => {
                    if a.len() != len {
                        return Err(WorkloadError::Args(format!(
                            "{what}: `expect` has {} values, `len` is {len}",
                            a.len()
                        )));
                    }
                    let mut out = Vec::new();
                    for v in a {
                        let v = match v {
                            toml::Value::Integer(i) => Value::I(i128::from(*i)),
                            toml::Value::Float(f) => Value::F(*f),
                            other => {
                                return Err(WorkloadError::Args(format!(
                                    "{what}: expected value {other} is not a number"
                                )));
                            }
                        };
                        ty.encode(v, &mut out);
                    }
                    Some(out)
                }
                (Some(toml::Value::Table(spec)), None) => {
                    let k = if spec.contains_key("value") {
                        "fill"
                    } else if spec.contains_key("step") || spec.contains_key("start") {
                        "iota"
                    } else {
                        "zero"
                    };
                    Some(values(ty, len, spec, k, &launch.dir, &what)?)
                }
                (Some(v), None) => {
                    return Err(WorkloadError::Args(format!(
                        "{what}: `expect` must be an array or a table, got {v}"
                    )));
                }
                (None, Some(toml::Value::String(p))) => {
                    Some(read_file(&launch.dir, p, len * ty.size(), &what)?)
                }
                (None, Some(v)) => {
                    return Err(WorkloadError::Args(format!(
                        "{what}: `expect_file` must be a path, got {v}"
                    )));
                }
                (None, None) => None,
            };
            let tolerance = match num(t, "tolerance", Value::F(0.0))? {
                Value::F(x) => x,
                Value::I(x) => x as f64,
            };
            if buffers.iter().any(|b: &Buffer| &b.name == name) {
                return Err(WorkloadError::Args(format!("{what} is declared twice")));
            }
            buffers.push(Buffer {
                name: name.clone(),
                ty,
                init,
                expect,
                tolerance,
            });
        }
        // Scalars written `{ u32 = "$n" }` take `[args] n` (so `--arg n=…`
        // changes them).
        let mut params = launch.params.clone();
        for (i, p) in params.iter_mut().enumerate() {
            let toml::Value::Table(t) = p else { continue };
            for (_, v) in t.iter_mut() {
                let toml::Value::String(r) = v else { continue };
                let Some(key) = r.strip_prefix('$') else {
                    continue;
                };
                let key = key.to_string();
                if !args.has(&key) {
                    return Err(WorkloadError::Args(format!(
                        "params[{i}] refers to `${key}`, which `[args]` does not define"
                    )));
                }
                *v = match args.f64(&key, 0.0)? {
                    x if x.fract() == 0.0 && x.abs() < 9.0e15 => toml::Value::Integer(x as i64),
                    x => toml::Value::Float(x),
                };
            }
        }
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
            params,
            textures,
            launch,
        })
    }
}

fn scalar(v: &toml::Value, i: usize) -> Result<ArgValue, WorkloadError> {
    let bad = || {
        WorkloadError::Args(format!(
            "params[{i}] = {v}: use a buffer name or one typed scalar such as {{ u32 = 5 }} (u32 s32 u64 s64 f32 f64)"
        ))
    };
    let toml::Value::Table(t) = v else {
        return Err(bad());
    };
    let (k, x) = t.iter().next().filter(|_| t.len() == 1).ok_or_else(bad)?;
    let int = || x.as_integer().ok_or_else(bad);
    let float = || {
        x.as_float()
            .or_else(|| x.as_integer().map(|i| i as f64))
            .ok_or_else(bad)
    };
    Ok(match k.as_str() {
        "u32" => ArgValue::U32(u32::try_from(int()?).map_err(|_| bad())?),
        "s32" | "i32" => ArgValue::S32(i32::try_from(int()?).map_err(|_| bad())?),
        "u64" => ArgValue::U64(u64::try_from(int()?).map_err(|_| bad())?),
        "s64" | "i64" => ArgValue::S64(int()?),
        "f32" => ArgValue::F32(float()? as f32),
        "f64" => ArgValue::F64(float()?),
        _ => return Err(bad()),
    })
}

impl Workload for Buffers {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let mut addrs = Vec::new();
        for b in &self.buffers {
            addrs.push(upload::<u8>(host, &b.name, &b.init)?);
        }
        for t in &self.textures {
            let k = self
                .buffers
                .iter()
                .position(|b| b.name == t.buffer)
                .expect("checked in Buffers::new");
            host.bind_texture(&t.name, t.desc(addrs[k]))?;
        }
        let mut args = Vec::new();
        for (i, p) in self.params.iter().enumerate() {
            match p {
                toml::Value::String(name) => {
                    let k = self
                        .buffers
                        .iter()
                        .position(|b| &b.name == name)
                        .ok_or_else(|| {
                            WorkloadError::Args(format!(
                                "params[{i}] names buffer `{name}`, which is not declared"
                            ))
                        })?;
                    args.push(ArgValue::U64(addrs[k]));
                }
                v => args.push(scalar(v, i)?),
            }
        }
        let grid = self.launch.grid.ok_or_else(|| {
            WorkloadError::Args("the `buffers` workload needs `grid` in the manifest".into())
        })?;
        let block = self.launch.block.ok_or_else(|| {
            WorkloadError::Args("the `buffers` workload needs `block` in the manifest".into())
        })?;
        host.launch(None, grid, block, &args)?;
        let mut checks = Vec::new();
        for (b, &addr) in self.buffers.iter().zip(&addrs) {
            let Some(expect) = &b.expect else { continue };
            let got: Vec<u8> = download(host, addr, expect.len())?;
            let c = match b.ty {
                Elem::F32 => {
                    let f = |v: &[u8]| {
                        v.chunks_exact(4)
                            .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
                            .collect::<Vec<_>>()
                    };
                    check::close_f32(&b.name, &f(expect), &f(&got), b.tolerance as f32, 0.0)
                }
                Elem::F64 => {
                    let f = |v: &[u8]| {
                        v.chunks_exact(8)
                            .map(|c| f64::from_le_bytes(c.try_into().expect("8")))
                            .collect::<Vec<_>>()
                    };
                    check::close_f64(&b.name, &f(expect), &f(&got), b.tolerance, 0.0)
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
                    check::exact(&b.name, &f(expect), &f(&got))
                }
            };
            checks.push(c);
        }
        Ok(Check::all(checks))
    }
}
