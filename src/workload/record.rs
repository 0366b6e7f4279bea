//! Recording a workload's host actions (`gpusim export`): every allocation,
//! host write and read, and every launch with its packed parameters, in the
//! order the host program made them, plus every allocation's final bytes —
//! so another simulator (GPGPU-Sim, through `correlation/harness/`) can
//! replay exactly the same workload and prove it computed the same thing.
//!
//! [`RecordingHost`] wraps any [`Host`] and forwards every call;
//! [`Recording::write_dir`] writes `trace.txt` and the data files. The
//! trace format is described in `docs/cli.md` (`gpusim export`).

use std::cell::RefCell;
use std::fmt::Write as _;
use std::path::Path;

use crate::func::texture::TextureDesc;
use crate::program::Program;
use crate::workload::check::Check;
use crate::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host, WorkloadError};
use crate::workload::runner::{Prepared, RunError, build_workload};

/// Data of at most this many bytes is written inline (hex) in the trace
/// rather than to a file.
const INLINE_BYTES: usize = 64;

/// One allocation the host program made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedAlloc {
    /// The name the host program gave it.
    pub name: String,
    /// Its device address in the recording run.
    pub addr: u64,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Where a recorded kernel parameter sits in the packed parameter buffer,
/// and the allocation it points into when it is a device pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedParam {
    /// Byte offset in the packed buffer.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// `(allocation index, byte offset into it)` when the value is an
    /// address inside (or one past the end of) an allocation.
    pub pointer: Option<(usize, u64)>,
}

/// One host action, in program order.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordedEvent {
    /// `alloc`: allocation `.0` of [`Recording::allocs`] was made (zeroed).
    Alloc(usize),
    /// `write`: bytes copied to allocation `alloc` at `offset`.
    Write {
        /// Allocation index.
        alloc: usize,
        /// Byte offset into it.
        offset: u64,
        /// The bytes.
        data: Vec<u8>,
    },
    /// `write` to a module-scope variable (`cudaMemcpyToSymbol`).
    WriteSymbol {
        /// The variable.
        name: String,
        /// Byte offset into it.
        offset: u64,
        /// The bytes.
        data: Vec<u8>,
    },
    /// `read`: bytes copied back from allocation `alloc` (what the host
    /// program saw; a replay can check it sees the same).
    Read {
        /// Allocation index.
        alloc: usize,
        /// Byte offset into it.
        offset: u64,
        /// The bytes read.
        data: Vec<u8>,
    },
    /// A kernel launch.
    Launch {
        /// The kernel's name as the PTX spells it.
        kernel: String,
        /// CTAs per dimension.
        grid: [u32; 3],
        /// Threads per CTA dimension.
        block: [u32; 3],
        /// Dynamic shared memory bytes per CTA.
        shared_bytes: u32,
        /// The packed parameter buffer.
        params: Vec<u8>,
        /// Each parameter's place in `params`, in declaration order.
        layout: Vec<RecordedParam>,
    },
    /// A texture binding (recorded so a replay that cannot bind textures
    /// refuses instead of computing something else).
    BindTexture(String),
}

/// A recorded workload: its actions and every allocation's final bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    /// Allocations in the order they were made.
    pub allocs: Vec<RecordedAlloc>,
    /// Host actions in order.
    pub events: Vec<RecordedEvent>,
    /// Each allocation's bytes after the workload finished (same order as
    /// `allocs`).
    pub finals: Vec<Vec<u8>>,
}

impl Recording {
    /// The number of launches recorded.
    pub fn launches(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, RecordedEvent::Launch { .. }))
            .count()
    }

    /// The trace text and the data files it names (`(file name, bytes)`).
    /// `ptx` is written on the trace's `ptx` line.
    pub fn render(&self, ptx: &str) -> (String, Vec<(String, Vec<u8>)>) {
        let mut t = String::new();
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let data_ref = |prefix: &str, data: &[u8], files: &mut Vec<(String, Vec<u8>)>| {
            if data.len() <= INLINE_BYTES {
                format!("={}", hex(data))
            } else {
                let name = format!("{prefix}{:04}.bin", files.len());
                files.push((name.clone(), data.to_vec()));
                format!("@{name}")
            }
        };
        let _ = writeln!(t, "gpusim-trace 1");
        let _ = writeln!(t, "ptx {ptx}");
        for e in &self.events {
            match e {
                RecordedEvent::Alloc(i) => {
                    let a = &self.allocs[*i];
                    let _ = writeln!(
                        t,
                        "alloc {i} {} {:#x} {}",
                        a.bytes,
                        a.addr,
                        sanitize(&a.name)
                    );
                }
                RecordedEvent::Write {
                    alloc,
                    offset,
                    data,
                } => {
                    let d = data_ref("write_", data, &mut files);
                    let _ = writeln!(t, "write {alloc} {offset} {} {d}", data.len());
                }
                RecordedEvent::WriteSymbol { name, offset, data } => {
                    let d = data_ref("symbol_", data, &mut files);
                    let _ = writeln!(
                        t,
                        "write_symbol {} {offset} {} {d}",
                        sanitize(name),
                        data.len()
                    );
                }
                RecordedEvent::Read {
                    alloc,
                    offset,
                    data,
                } => {
                    let d = data_ref("read_", data, &mut files);
                    let _ = writeln!(t, "read {alloc} {offset} {} {d}", data.len());
                }
                RecordedEvent::Launch {
                    kernel,
                    grid,
                    block,
                    shared_bytes,
                    params,
                    layout,
                } => {
                    let _ = writeln!(
                        t,
                        "launch {kernel} {} {} {} {} {} {} {shared_bytes} {} {}",
                        grid[0],
                        grid[1],
                        grid[2],
                        block[0],
                        block[1],
                        block[2],
                        layout.len(),
                        if params.is_empty() {
                            "-".to_string()
                        } else {
                            hex(params)
                        }
                    );
                    for p in layout {
                        match p.pointer {
                            Some((a, delta)) => {
                                let _ =
                                    writeln!(t, "param {} {} ptr {a} {delta}", p.offset, p.size);
                            }
                            None => {
                                let _ = writeln!(t, "param {} {} value", p.offset, p.size);
                            }
                        }
                    }
                }
                RecordedEvent::BindTexture(name) => {
                    let _ = writeln!(t, "texture {}", sanitize(name));
                }
            }
        }
        for (i, bytes) in self.finals.iter().enumerate() {
            let name = format!("final_{i}.bin");
            let _ = writeln!(t, "final {i} {} @{name}", bytes.len());
            files.push((name, bytes.clone()));
        }
        let _ = writeln!(t, "end");
        (t, files)
    }

    /// Writes `trace.txt` and the data files into `dir` (created if
    /// missing). `ptx` is written on the trace's `ptx` line.
    pub fn write_dir(&self, dir: &Path, ptx: &str) -> Result<(), String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let (text, files) = self.render(ptx);
        for (name, bytes) in &files {
            let p = dir.join(name);
            std::fs::write(&p, bytes).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
        let p = dir.join("trace.txt");
        std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
    }
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// A name with whitespace replaced by `_` (trace fields are
/// space-separated).
fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    if s.is_empty() { "_".to_string() } else { s }
}

/// A [`Host`] that forwards every call to `inner` and records it.
pub struct RecordingHost<'a, 'p> {
    inner: &'a mut dyn Host,
    program: &'p Program,
    default_entry: Option<usize>,
    symbols: RefCell<Vec<(String, u64, u64)>>,
    /// What has been recorded so far.
    pub recording: Recording,
}

impl<'a, 'p> RecordingHost<'a, 'p> {
    /// Records calls to `inner`, which runs `program`; a launch naming no
    /// kernel runs `default_entry` (as the inner host does).
    pub fn new(
        inner: &'a mut dyn Host,
        program: &'p Program,
        default_entry: Option<usize>,
    ) -> RecordingHost<'a, 'p> {
        RecordingHost {
            inner,
            program,
            default_entry,
            symbols: RefCell::new(Vec::new()),
            recording: Recording::default(),
        }
    }

    /// The allocation holding `addr` (one past the end counts, for
    /// pointers a kernel only compares against): `(index, offset)`.
    fn locate(&self, addr: u64) -> Option<(usize, u64)> {
        let allocs = &self.recording.allocs;
        allocs
            .iter()
            .position(|a| addr >= a.addr && addr - a.addr < a.bytes)
            .or_else(|| {
                allocs
                    .iter()
                    .position(|a| a.bytes > 0 && addr == a.addr + a.bytes)
            })
            .map(|i| (i, addr - allocs[i].addr))
    }

    /// The module variable holding `addr`: `(name, offset)`.
    fn locate_symbol(&self, addr: u64) -> Option<(String, u64)> {
        self.symbols
            .borrow()
            .iter()
            .find(|(_, a, n)| addr >= *a && addr - *a < *n)
            .map(|(name, a, _)| (name.clone(), addr - a))
    }

    /// Reads back every allocation's bytes (after the workload finished).
    pub fn capture_finals(&mut self) -> Result<(), WorkloadError> {
        let mut finals = Vec::with_capacity(self.recording.allocs.len());
        for a in &self.recording.allocs {
            let len = usize::try_from(a.bytes).map_err(|_| {
                WorkloadError::Host(format!("allocation `{}` is too large to export", a.name))
            })?;
            finals.push(self.inner.read_bytes(a.addr, len)?);
        }
        self.recording.finals = finals;
        Ok(())
    }

    fn kernel_index(&self, entry: Option<&str>) -> Result<usize, WorkloadError> {
        match entry {
            None => self.default_entry.ok_or_else(|| {
                WorkloadError::Host("a launch names no kernel and there is no default".into())
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

    fn record_data(&mut self, addr: u64, data: &[u8], read: bool) -> Result<(), WorkloadError> {
        if let Some((alloc, offset)) = self.locate(addr) {
            let data = data.to_vec();
            self.recording.events.push(if read {
                RecordedEvent::Read {
                    alloc,
                    offset,
                    data,
                }
            } else {
                RecordedEvent::Write {
                    alloc,
                    offset,
                    data,
                }
            });
            return Ok(());
        }
        match self.locate_symbol(addr) {
            // Reads of module variables are the host's business only.
            Some(_) if read => Ok(()),
            Some((name, offset)) => {
                self.recording.events.push(RecordedEvent::WriteSymbol {
                    name,
                    offset,
                    data: data.to_vec(),
                });
                Ok(())
            }
            None => Err(WorkloadError::Host(format!(
                "cannot record a host access at {addr:#x}: it is in no allocation or module variable"
            ))),
        }
    }
}

impl Host for RecordingHost<'_, '_> {
    fn alloc(&mut self, name: &str, bytes: u64) -> u64 {
        let addr = self.inner.alloc(name, bytes);
        let i = self.recording.allocs.len();
        self.recording.allocs.push(RecordedAlloc {
            name: name.to_string(),
            addr,
            bytes,
        });
        self.recording.events.push(RecordedEvent::Alloc(i));
        addr
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), WorkloadError> {
        self.inner.write_bytes(addr, data)?;
        self.record_data(addr, data, false)
    }

    fn read_bytes(&mut self, addr: u64, len: usize) -> Result<Vec<u8>, WorkloadError> {
        let data = self.inner.read_bytes(addr, len)?;
        self.record_data(addr, &data, true)?;
        Ok(data)
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

    fn launch_shared(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
        shared_bytes: u32,
    ) -> Result<(), WorkloadError> {
        self.inner
            .launch_shared(entry, grid, block, args, shared_bytes)?;
        let k = self.kernel_index(entry)?;
        let params = crate::workload::host::pack_params(self.program, k, args)?;
        let kernel = self.program.kernel(k);
        let layout = kernel
            .params
            .iter()
            .zip(args)
            .map(|(p, a)| RecordedParam {
                offset: p.offset,
                size: p.size,
                pointer: match a {
                    ArgValue::U64(v) => self.locate(*v),
                    ArgValue::S64(v) => u64::try_from(*v).ok().and_then(|v| self.locate(v)),
                    _ => None,
                },
            })
            .collect();
        self.recording.events.push(RecordedEvent::Launch {
            kernel: kernel.name.clone(),
            grid,
            block,
            shared_bytes,
            params,
            layout,
        });
        Ok(())
    }

    fn symbol(&self, name: &str) -> Option<(u64, u64)> {
        let found = self.inner.symbol(name);
        if let Some((addr, size)) = found {
            let mut s = self.symbols.borrow_mut();
            if !s.iter().any(|(n, _, _)| n == name) {
                s.push((name.to_string(), addr, size));
            }
        }
        found
    }

    fn bind_texture(&mut self, name: &str, desc: TextureDesc) -> Result<(), WorkloadError> {
        self.inner.bind_texture(name, desc)?;
        self.recording
            .events
            .push(RecordedEvent::BindTexture(name.to_string()));
        Ok(())
    }
}

/// Runs a prepared manifest functionally while recording its host
/// actions; `overrides` are `key=value` argument overrides. Returns the
/// workload's check and the recording (with final buffers).
pub fn record_functional(
    p: &Prepared,
    overrides: &[(String, String)],
    options: FunctionalOptions,
) -> Result<(Check, Recording), RunError> {
    let mut workload = build_workload(p, overrides)?;
    let mut host = FunctionalHost::new(&p.program, p.entry, options);
    if !p.entry_named {
        host.require_named_entries();
    }
    let default_entry = p.entry_named.then_some(p.entry);
    let mut rec = RecordingHost::new(&mut host, &p.program, default_entry);
    let check = workload.run(&mut rec)?;
    rec.capture_finals()?;
    Ok((check, rec.recording))
}
