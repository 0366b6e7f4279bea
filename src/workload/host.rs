//! The host interface a workload drives: allocate and copy buffers, launch
//! kernels. The functional core implements it here; the timing model will
//! implement the same trait, so one workload serves both.

use std::collections::HashMap;
use std::fmt;

use crate::func::launch::{self, LaunchConfig, TraceEvent};
use crate::func::layout::KernelInfo;
use crate::func::{FuncStats, GlobalMemory, SimError};
use crate::ir::{Space, Type};
use crate::program::Program;

/// A kernel argument value (pointers are `U64`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArgValue {
    /// `.u32`/`.b32`
    U32(u32),
    /// `.s32`
    S32(i32),
    /// `.u64`/`.b64`, and device pointers.
    U64(u64),
    /// `.s64`
    S64(i64),
    /// `.f32`
    F32(f32),
    /// `.f64`
    F64(f64),
}

impl ArgValue {
    fn bytes(self) -> Vec<u8> {
        match self {
            ArgValue::U32(v) => v.to_le_bytes().to_vec(),
            ArgValue::S32(v) => v.to_le_bytes().to_vec(),
            ArgValue::U64(v) => v.to_le_bytes().to_vec(),
            ArgValue::S64(v) => v.to_le_bytes().to_vec(),
            ArgValue::F32(v) => v.to_le_bytes().to_vec(),
            ArgValue::F64(v) => v.to_le_bytes().to_vec(),
        }
    }

    /// The value as PTX shows it: its type and value (`.f32 2.5`).
    pub fn describe(self) -> String {
        match self {
            ArgValue::U32(v) => format!(".u32 {v}"),
            ArgValue::S32(v) => format!(".s32 {v}"),
            ArgValue::U64(v) => format!(".u64 {v}"),
            ArgValue::S64(v) => format!(".s64 {v}"),
            ArgValue::F32(v) => format!(".f32 {v}"),
            ArgValue::F64(v) => format!(".f64 {v}"),
        }
    }

    fn fits(self, t: Type) -> bool {
        match self {
            ArgValue::U32(_) | ArgValue::S32(_) => matches!(t, Type::U32 | Type::S32 | Type::B32),
            ArgValue::U64(_) | ArgValue::S64(_) => matches!(t, Type::U64 | Type::S64 | Type::B64),
            ArgValue::F32(_) => matches!(t, Type::F32 | Type::B32),
            ArgValue::F64(_) => matches!(t, Type::F64 | Type::B64),
        }
    }
}

/// Why a workload could not run.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadError {
    /// The simulation failed (out-of-bounds access, deadlock, …).
    Sim(SimError),
    /// A workload argument is missing, unknown or malformed.
    Args(String),
    /// The host program misused the host interface (bad launch arguments…).
    Host(String),
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadError::Sim(e) => write!(f, "{e}"),
            WorkloadError::Args(m) => write!(f, "bad workload arguments: {m}"),
            WorkloadError::Host(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for WorkloadError {}

impl From<SimError> for WorkloadError {
    fn from(e: SimError) -> Self {
        WorkloadError::Sim(e)
    }
}

/// What a host program can do with the simulated GPU.
pub trait Host {
    /// Allocates `bytes` zeroed bytes of global memory; `name` appears in
    /// error messages. Returns the device address.
    fn alloc(&mut self, name: &str, bytes: u64) -> u64;
    /// Copies `data` to device address `addr`.
    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), WorkloadError>;
    /// Copies `len` bytes from device address `addr`.
    fn read_bytes(&mut self, addr: u64, len: usize) -> Result<Vec<u8>, WorkloadError>;
    /// Launches `entry` (the manifest's entry when `None`) and runs it to
    /// completion.
    fn launch(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
    ) -> Result<(), WorkloadError>;

    /// [`Host::launch`] with `shared_bytes` bytes of dynamic shared memory
    /// per CTA (the `extern __shared__` arrays; CUDA's third launch
    /// parameter). A host that cannot provide it refuses non-zero sizes.
    fn launch_shared(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
        shared_bytes: u32,
    ) -> Result<(), WorkloadError> {
        if shared_bytes == 0 {
            self.launch(entry, grid, block, args)
        } else {
            Err(WorkloadError::Host(
                "this host does not support dynamic shared memory".into(),
            ))
        }
    }

    /// The device address and declared size in bytes of the module-scope
    /// `.global` or `.const` variable `name` (what `cudaMemcpyToSymbol`
    /// writes), if the module declares one.
    fn symbol(&self, name: &str) -> Option<(u64, u64)> {
        let _ = name;
        None
    }

    /// Binds texture reference `name` (a module's `.texref`) to the texels
    /// `desc` describes, for the launches that follow.
    fn bind_texture(
        &mut self,
        name: &str,
        desc: crate::func::texture::TextureDesc,
    ) -> Result<(), WorkloadError> {
        let _ = desc;
        Err(WorkloadError::Host(format!(
            "this host cannot bind texture `{name}`"
        )))
    }
}

/// Checks a launch's block against kernel `k`'s `.reqntid` directive (the
/// block must be exactly that shape).
pub fn check_reqntid(program: &Program, k: usize, block: [u32; 3]) -> Result<(), WorkloadError> {
    let kernel = program.kernel(k);
    match kernel.reqntid {
        Some(r) if r != block => Err(WorkloadError::Host(format!(
            "kernel `{}` declares `.reqntid {}, {}, {}`, but the launch's block is [{}, {}, {}]",
            kernel.name, r[0], r[1], r[2], block[0], block[1], block[2]
        ))),
        _ => Ok(()),
    }
}

/// Element types buffers hold.
pub trait Elem: Copy {
    /// Bytes per element.
    const SIZE: usize;
    /// Appends the little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads from `SIZE` little-endian bytes.
    fn get(b: &[u8]) -> Self;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) { out.extend_from_slice(&self.to_le_bytes()); }
            fn get(b: &[u8]) -> Self { <$t>::from_le_bytes(b.try_into().expect("element size")) }
        }
    )*};
}
elem!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// Allocates a buffer holding `data`; returns its address.
pub fn upload<T: Elem>(host: &mut dyn Host, name: &str, data: &[T]) -> Result<u64, WorkloadError> {
    let mut bytes = Vec::with_capacity(data.len() * T::SIZE);
    for &v in data {
        v.put(&mut bytes);
    }
    let addr = host.alloc(name, bytes.len() as u64);
    host.write_bytes(addr, &bytes)?;
    Ok(addr)
}

/// Reads `n` elements at `addr`.
pub fn download<T: Elem>(
    host: &mut dyn Host,
    addr: u64,
    n: usize,
) -> Result<Vec<T>, WorkloadError> {
    let bytes = host.read_bytes(addr, n * T::SIZE)?;
    Ok(bytes.chunks_exact(T::SIZE).map(T::get).collect())
}

/// Overwrites a buffer with `data`.
pub fn overwrite<T: Elem>(host: &mut dyn Host, addr: u64, data: &[T]) -> Result<(), WorkloadError> {
    let mut bytes = Vec::with_capacity(data.len() * T::SIZE);
    for &v in data {
        v.put(&mut bytes);
    }
    host.write_bytes(addr, &bytes)
}

/// Options of the functional host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionalOptions {
    /// Threads per warp.
    pub warp_size: u32,
    /// SMs reported by `%nsmid` (CTA `i` runs "on" SM `i % nsm`).
    pub nsm: u32,
    /// CTAs resident at once.
    pub max_resident_ctas: u32,
    /// Instructions a warp runs per turn.
    pub quantum: u32,
    /// Warp instructions one launch may execute before it is stopped as a
    /// runaway (`sim.max_insts`).
    pub step_limit: u64,
    /// Where the host's allocations go (`sim.alloc_base`, `sim.alloc_guard`).
    pub alloc: crate::func::memory::AllocLayout,
}

impl Default for FunctionalOptions {
    fn default() -> Self {
        let d = LaunchConfig::default();
        FunctionalOptions {
            warp_size: d.warp_size,
            nsm: 15,
            max_resident_ctas: d.max_resident_ctas,
            quantum: d.quantum,
            step_limit: d.step_limit,
            alloc: Default::default(),
        }
    }
}

/// One launch's counts in a functional run (`run --functional --json`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FunctionalLaunch {
    /// The kernel launched.
    pub kernel: String,
    /// CTAs per grid dimension.
    pub grid: [u32; 3],
    /// Threads per CTA dimension.
    pub block: [u32; 3],
    /// Warp instructions executed.
    pub warp_insts: u64,
    /// Thread instructions executed.
    pub thread_insts: u64,
    /// CTAs run.
    pub ctas: u64,
}

/// A per-instruction observer (for `gpusim trace`): returns `false` to stop
/// the run (the launch then fails with [`SimErrorKind::Stopped`](crate::func::SimErrorKind)).
pub type TraceFn<'a> = Box<dyn FnMut(&Program, usize, &TraceEvent<'_>) -> bool + 'a>;

/// The functional-only host: global memory plus the interpreter.
pub struct FunctionalHost<'p> {
    program: &'p Program,
    default_entry: Option<usize>,
    /// Global memory.
    pub global: GlobalMemory,
    module_vars: HashMap<String, (u64, u64)>,
    infos: Vec<Option<KernelInfo>>,
    /// Counts over every launch so far.
    pub stats: FuncStats,
    /// Launches so far.
    pub launches: u64,
    /// Every launch so far, in order, with its counts.
    pub launch_log: Vec<FunctionalLaunch>,
    /// Options.
    pub options: FunctionalOptions,
    trace: Option<TraceFn<'p>>,
}

impl<'p> FunctionalHost<'p> {
    /// A fresh device for `program`, launching kernel `default_entry` when a
    /// workload does not name one. Module-scope variables are allocated and
    /// initialized.
    pub fn new(
        program: &'p Program,
        default_entry: usize,
        options: FunctionalOptions,
    ) -> FunctionalHost<'p> {
        let mut global = GlobalMemory::new();
        let mut module_vars = HashMap::new();
        if let Some(k) = program.module.kernels.first() {
            for v in k
                .vars
                .iter()
                .filter(|v| v.module_scope && matches!(v.space, Space::Global | Space::Const))
            {
                let addr = global.alloc_var(&v.name, v.size, u64::from(v.align));
                if let Some(init) = &v.init {
                    global.write(addr, init);
                }
                module_vars.insert(v.name.clone(), (addr, v.size));
            }
        }
        global.set_layout(options.alloc);
        let infos = vec![None; program.module.kernels.len()];
        FunctionalHost {
            program,
            default_entry: Some(default_entry),
            global,
            module_vars,
            infos,
            stats: FuncStats::default(),
            launches: 0,
            launch_log: Vec::new(),
            options,
            trace: None,
        }
    }

    /// True if byte `addr` is in a module-scope variable (a `.global` or
    /// `.const` symbol), not in an allocation.
    pub fn in_module_var(&self, addr: u64) -> bool {
        self.module_vars
            .values()
            .any(|&(a, size)| addr >= a && addr < a + size)
    }

    /// Makes every launch name its kernel: a launch with `entry = None`
    /// becomes an error (for modules with several entries whose manifest
    /// names none, e.g. `fwt.ptx`, where guessing would hide a bug).
    pub fn require_named_entries(&mut self) {
        self.default_entry = None;
    }

    /// The kernel a launch of `entry` runs (the default entry for `None`).
    pub fn resolve_entry(&self, entry: Option<&str>) -> Result<usize, WorkloadError> {
        match entry {
            None => self.default_entry.ok_or_else(|| {
                let names: Vec<String> = self
                    .program
                    .module
                    .kernels
                    .iter()
                    .map(|k| format!("`{}`", k.name))
                    .collect();
                WorkloadError::Host(format!(
                    "`{}` defines several kernels ({}) and the manifest names no entry: \
                     the workload must name the kernel it launches",
                    self.program.file.name,
                    names.join(", ")
                ))
            }),
            Some(name) => self
                .program
                .module
                .kernels
                .iter()
                .position(|k| k.name == name)
                .ok_or_else(|| WorkloadError::Host(format!("the module has no kernel `{name}`"))),
        }
    }

    /// Builds kernel `k`'s layout if not built yet.
    pub fn ensure_info(&mut self, k: usize) {
        if self.infos[k].is_none() {
            let vars = &self.module_vars;
            self.infos[k] = Some(KernelInfo::new(
                self.program.kernel(k),
                &self.program.analyses[k],
                &|n| vars.get(n).map(|&(a, _)| a),
            ));
        }
    }

    /// Kernel `k`'s layout (after [`FunctionalHost::ensure_info`]).
    pub fn info(&self, k: usize) -> &KernelInfo {
        self.infos[k].as_ref().expect("ensure_info first")
    }

    /// The program.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Observes every executed instruction.
    pub fn set_trace(&mut self, f: TraceFn<'p>) {
        self.trace = Some(f);
    }
}

/// Packs launch arguments into a parameter buffer, checking them against
/// the kernel's declared parameters.
pub fn pack_params(
    program: &Program,
    k: usize,
    args: &[ArgValue],
) -> Result<Vec<u8>, WorkloadError> {
    let kernel = program.kernel(k);
    if args.len() != kernel.params.len() {
        return Err(WorkloadError::Host(format!(
            "kernel `{}` takes {} parameters, the workload passed {}",
            kernel.name,
            kernel.params.len(),
            args.len()
        )));
    }
    let mut buf = vec![0u8; kernel.param_bytes as usize];
    for (p, a) in kernel.params.iter().zip(args) {
        if !a.fits(p.ty) || p.size != p.ty.bytes() {
            return Err(WorkloadError::Host(format!(
                "parameter `{}` of `{}` is `.{}`, the workload passed a `{}`",
                p.name,
                kernel.name,
                p.ty.name().trim_start_matches('.'),
                a.describe()
            )));
        }
        let b = a.bytes();
        buf[p.offset as usize..p.offset as usize + b.len()].copy_from_slice(&b);
    }
    Ok(buf)
}

impl Host for FunctionalHost<'_> {
    fn bind_texture(
        &mut self,
        name: &str,
        desc: crate::func::texture::TextureDesc,
    ) -> Result<(), WorkloadError> {
        self.global
            .bind_texture(name, desc)
            .map_err(WorkloadError::Host)
    }

    fn alloc(&mut self, name: &str, bytes: u64) -> u64 {
        self.global.alloc(name, bytes, 256)
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), WorkloadError> {
        if self.global.write(addr, data) {
            Ok(())
        } else {
            Err(WorkloadError::Host(format!(
                "host write of {} bytes at {addr:#x}: {}",
                data.len(),
                self.global.describe(addr)
            )))
        }
    }

    fn read_bytes(&mut self, addr: u64, len: usize) -> Result<Vec<u8>, WorkloadError> {
        let mut out = vec![0u8; len];
        if self.global.read(addr, &mut out) {
            Ok(out)
        } else {
            Err(WorkloadError::Host(format!(
                "host read of {len} bytes at {addr:#x}: {}",
                self.global.describe(addr)
            )))
        }
    }

    fn launch(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
    ) -> Result<(), WorkloadError> {
        self.launch_shared(entry, grid, block, args, 0)
    }

    fn symbol(&self, name: &str) -> Option<(u64, u64)> {
        self.module_vars.get(name).copied()
    }

    fn launch_shared(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
        shared_bytes: u32,
    ) -> Result<(), WorkloadError> {
        let k = self.resolve_entry(entry)?;
        let params = pack_params(self.program, k, args)?;
        check_reqntid(self.program, k, block)?;
        self.ensure_info(k);
        let info = self.infos[k].as_ref().expect("just built");
        let o = &self.options;
        let cfg = LaunchConfig {
            grid,
            block,
            dynamic_shared: shared_bytes,
            warp_size: o.warp_size,
            max_resident_ctas: o.max_resident_ctas,
            quantum: o.quantum,
            step_limit: o.step_limit,
            nsm: o.nsm,
        };
        let program = self.program;
        let mut tr = self.trace.take();
        let result = match tr.as_mut() {
            Some(t) => {
                let mut hook = |e: &TraceEvent<'_>| -> bool { t(program, k, e) };
                launch::run(
                    program.kernel(k),
                    info,
                    &params,
                    &mut self.global,
                    &cfg,
                    Some(&mut hook),
                )
            }
            None => launch::run(
                program.kernel(k),
                info,
                &params,
                &mut self.global,
                &cfg,
                None,
            ),
        };
        self.trace = tr;
        let s = result.map_err(|mut e| {
            // The interpreter knows instruction ids; the program knows the text.
            if let Some(i) = e.inst {
                e.text = program.inst_text(k, i as usize);
            }
            e
        })?;
        self.stats.warp_insts += s.warp_insts;
        self.stats.thread_insts += s.thread_insts;
        self.stats.ctas += s.ctas;
        self.launches += 1;
        self.launch_log.push(FunctionalLaunch {
            kernel: program.kernel(k).name.clone(),
            grid,
            block,
            warp_insts: s.warp_insts,
            thread_insts: s.thread_insts,
            ctas: s.ctas,
        });
        Ok(())
    }
}
