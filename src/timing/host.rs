//! The timed host: the same [`Host`] interface the functional host offers,
//! with every launch run on the cycle-level [`Gpu`]. One workload therefore
//! serves both modes, and its reference check runs on timed results.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::config::GpuConfig;
use crate::func::{SimError, SimErrorKind};
use crate::sched::daws::profile::{DawsProfile, ProfileRecorder};
use crate::sched::registry::PolicyEnv;
use crate::timing::gpu::Gpu;
use crate::timing::sm::{IssueRecord, LaunchCtx};
use crate::timing::stats::Stats;
use crate::timing::units::{scoreboard_words, timing_table};
use crate::workload::check::Check;
use crate::workload::host::{
    ArgValue, FunctionalHost, FunctionalOptions, Host, WorkloadError, check_reqntid, pack_params,
};
use crate::workload::runner::{Prepared, RunError, build_workload};

/// A device whose launches run on the timing model.
pub struct TimingHost<'p> {
    /// Memory, entry resolution and kernel layouts (shared with the
    /// functional host).
    pub device: FunctionalHost<'p>,
    /// The GPU.
    pub gpu: Gpu,
    /// Collects a DAWS profile (when the policies ask for one).
    pub recorder: Option<Rc<RefCell<ProfileRecorder>>>,
    /// The manifest (its `regs_per_thread`, per kernel).
    manifest: &'p crate::workload::manifest::LoadedManifest,
    /// Per kernel: registers per thread and their source, once computed.
    regs: Vec<Option<(u32, RegSource)>>,
}

/// Where a launch's registers per thread come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegSource {
    /// The manifest's `regs_per_thread`.
    Manifest,
    /// The kernel's `.maxnreg` directive (it capped the manifest value or
    /// the estimate).
    Maxnreg,
    /// [`crate::analysis::regs::estimate_registers`]: maximum register
    /// pressure plus a fixed overhead.
    Estimate,
}

impl RegSource {
    /// The name the summary and the JSON use.
    pub fn name(self) -> &'static str {
        match self {
            RegSource::Manifest => "manifest",
            RegSource::Maxnreg => "maxnreg",
            RegSource::Estimate => "estimate",
        }
    }
}

/// Registers per thread of `kernel` for occupancy: the manifest's value,
/// else the liveness estimate; either capped by `.maxnreg` (the compiler
/// allocates at most that many), in which case the source is `maxnreg`.
pub fn regs_per_thread(
    manifest: Option<u32>,
    kernel: &crate::ir::Kernel,
    cfg: &crate::analysis::Cfg,
) -> (u32, RegSource) {
    let (n, source) = match manifest {
        Some(n) => (n, RegSource::Manifest),
        None => (
            crate::analysis::regs::estimate_registers(kernel, cfg),
            RegSource::Estimate,
        ),
    };
    match kernel.maxnreg {
        Some(cap) if cap < n => (cap, RegSource::Maxnreg),
        _ => (n, source),
    }
}

impl<'p> TimingHost<'p> {
    /// A timed device for a prepared manifest.
    pub fn new(
        p: &'p Prepared,
        cfg: &GpuConfig,
        policies: &Policies,
    ) -> Result<TimingHost<'p>, String> {
        let recorder = policies
            .record_profile
            .then(|| Rc::new(RefCell::new(ProfileRecorder::default())));
        let env = PolicyEnv {
            profile: policies.profile.clone(),
            recorder: recorder.clone(),
        };
        let mut gpu = Gpu::with_env(cfg, &policies.sched, &policies.fetch, &policies.cta, &env)?;
        gpu.set_sync(policies.sync);
        let options = FunctionalOptions {
            warp_size: cfg.core.warp_size,
            nsm: cfg.core.num_sms,
            alloc: cfg.sim.alloc_layout(),
            ..FunctionalOptions::default()
        };
        let mut device = FunctionalHost::new(&p.program, p.entry, options);
        if !p.entry_named {
            device.require_named_entries();
        }
        Ok(TimingHost {
            device,
            gpu,
            recorder,
            manifest: &p.manifest,
            regs: vec![None; p.program.module.kernels.len()],
        })
    }
}

impl Host for TimingHost<'_> {
    fn bind_texture(
        &mut self,
        name: &str,
        desc: crate::func::texture::TextureDesc,
    ) -> Result<(), WorkloadError> {
        self.device.bind_texture(name, desc)
    }

    fn alloc(&mut self, name: &str, bytes: u64) -> u64 {
        self.device.alloc(name, bytes)
    }

    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), WorkloadError> {
        self.device.write_bytes(addr, data)?;
        // A copy into a module variable (`cudaMemcpyToSymbol`) does not
        // fill the L2: GPGPU-Sim's `gpgpu_ptx_sim_memcpy_symbol` writes
        // the functional memory only (its `memcpy_to_gpu` for allocations
        // also calls `perf_memcpy_to_gpu`).
        if self.gpu.cfg.l2.fill_on_copy && !self.device.in_module_var(addr) {
            self.gpu.mem.host_copy(addr, data.len() as u64);
        }
        Ok(())
    }

    fn read_bytes(&mut self, addr: u64, len: usize) -> Result<Vec<u8>, WorkloadError> {
        self.device.read_bytes(addr, len)
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
        self.device.symbol(name)
    }

    fn launch_shared(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
        shared_bytes: u32,
    ) -> Result<(), WorkloadError> {
        let k = self.device.resolve_entry(entry)?;
        let program = self.device.program();
        let params = pack_params(program, k, args)?;
        check_reqntid(program, k, block)?;
        let threads = u64::from(block[0]) * u64::from(block[1]) * u64::from(block[2]);
        let kernel = program.kernel(k);
        if threads == 0 || threads > 1024 {
            return Err(SimError::launch(
                &kernel.name,
                format!("{threads} threads per CTA (1 to 1024 allowed)"),
            )
            .into());
        }
        if let Some(why) = crate::func::launch::grid_too_large(grid) {
            return Err(SimError::launch(&kernel.name, why).into());
        }
        self.device.ensure_info(k);
        let cfg = self.gpu.cfg.clone();
        let info = self.device.info(k).clone();
        let table = timing_table(kernel, &info, &cfg);
        let ctx = LaunchCtx {
            kernel,
            info: &info,
            table: &table,
            params: &params,
            grid,
            block,
            cfg: &cfg,
            sb_words: scoreboard_words(kernel),
            code_base: crate::timing::fetch::code_base(program, k, cfg.core.contiguous_code),
            analysis: &program.analyses[k],
            dynamic_shared: shared_bytes,
            sync: self.gpu.sync_policy(),
        };
        let (rpt, source) = match self.regs[k] {
            Some(r) => r,
            None => {
                let given = self
                    .manifest
                    .regs_for(&kernel.name)
                    .map_err(WorkloadError::Host)?;
                let r = regs_per_thread(given, kernel, &program.analyses[k].cfg);
                self.regs[k] = Some(r);
                r
            }
        };
        self.gpu
            .run_launch(&ctx, rpt, &mut self.device.global)
            .map_err(|mut e| {
                if let Some(i) = e.inst {
                    e.text = program.inst_text(k, i as usize);
                }
                if matches!(e.kind, SimErrorKind::CycleLimit { .. }) && e.inst.is_none() {
                    e.line = 0;
                }
                // Say where a register count that cannot fit came from.
                if let SimErrorKind::BadLaunch { reason } = &mut e.kind
                    && reason.contains("registers")
                {
                    reason.push_str(&format!(
                        " ({rpt} registers per thread, from the {}; see regs_per_thread in the manifest)",
                        match source {
                            RegSource::Manifest => "manifest's regs_per_thread",
                            RegSource::Maxnreg => "kernel's .maxnreg",
                            RegSource::Estimate => "register-pressure estimate",
                        }
                    ));
                }
                e
            })?;
        if let Some(l) = self.gpu.launches.last_mut() {
            l.regs_source = source.name().to_string();
            for p in &mut l.pcs {
                p.text = program.inst_text(k, p.pc as usize);
            }
        }
        self.device.launches += 1;
        Ok(())
    }
}

/// The outcome of a timed run.
#[derive(Clone, Debug)]
pub struct TimedRun {
    /// The workload's reference check.
    pub check: Check,
    /// Everything the timing model counted.
    pub stats: Stats,
    /// Every issued instruction, when asked for.
    pub issue_log: Vec<IssueRecord>,
    /// The recorded DAWS profile, when asked for.
    pub profile: Option<DawsProfile>,
    /// The dumped allocations ([`Prepared::dumps`]): `(file, bytes)`.
    pub dumps: Vec<(std::path::PathBuf, Vec<u8>)>,
    /// The recorded warp-state timeline, when asked for
    /// ([`run_timed_timeline`]).
    pub timeline: Option<crate::timing::timeline::Timeline>,
}

/// The policies of a timed run (`--sched`, `--fetch`, `--cta`,
/// `--profile`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policies {
    /// Issue policy.
    pub sched: String,
    /// Fetch policy.
    pub fetch: String,
    /// CTA policy.
    pub cta: String,
    /// Load classification for `daws-profiled`.
    pub profile: Option<Arc<DawsProfile>>,
    /// Record a DAWS load classification profile during the run
    /// (`gpusim profile`; returned in [`TimedRun::profile`]).
    pub record_profile: bool,
    /// Work-group synchronization policy (`--sync`).
    pub sync: crate::sync::policy::SyncPolicy,
}

impl Policies {
    /// Issue policy `sched` with its default fetch policy
    /// ([`crate::sched::registry::default_fetch`]: `cff` for `baws`, else
    /// `lrr`) and the `rr` CTA policy.
    pub fn sched(sched: &str) -> Policies {
        Policies {
            sched: sched.to_string(),
            fetch: crate::sched::registry::default_fetch(sched).to_string(),
            cta: "rr".to_string(),
            profile: None,
            record_profile: false,
            sync: crate::sync::policy::SyncPolicy::Busy,
        }
    }
}

/// Runs a prepared manifest on the timing model with issue policy `sched`
/// and fetch policy `fetch` (CTA policy `rr`).
pub fn run_timed(
    p: &Prepared,
    overrides: &[(String, String)],
    cfg: &GpuConfig,
    sched: &str,
    fetch: &str,
) -> Result<TimedRun, RunError> {
    let policies = Policies {
        fetch: fetch.to_string(),
        ..Policies::sched(sched)
    };
    run_timed_with(p, overrides, cfg, &policies, false)
}

/// [`run_timed`] with every policy chosen, optionally recording every
/// issued instruction.
pub fn run_timed_with(
    p: &Prepared,
    overrides: &[(String, String)],
    cfg: &GpuConfig,
    policies: &Policies,
    log: bool,
) -> Result<TimedRun, RunError> {
    let rec = Recording {
        issue_log: log,
        sample: None,
    };
    run_timed_recording(p, overrides, cfg, policies, rec)
}

/// What a timed run records besides its statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recording {
    /// Every issued instruction ([`TimedRun::issue_log`]).
    pub issue_log: bool,
    /// A time series with windows of this many cycles
    /// ([`Stats::samples`](crate::timing::Stats::samples)).
    pub sample: Option<u64>,
}

/// [`run_timed_with`] recording what `rec` asks for.
pub fn run_timed_recording(
    p: &Prepared,
    overrides: &[(String, String)],
    cfg: &GpuConfig,
    policies: &Policies,
    rec: Recording,
) -> Result<TimedRun, RunError> {
    run_timed_setup(p, overrides, cfg, policies, |gpu| {
        if rec.issue_log {
            gpu.enable_issue_log();
        }
        if let Some(n) = rec.sample {
            gpu.enable_sampling(n);
        }
        Ok(())
    })
}

/// [`run_timed_with`] recording the warp-state timeline `sel` asks for
/// ([`TimedRun::timeline`]); an SM the machine lacks is an error.
pub fn run_timed_timeline(
    p: &Prepared,
    overrides: &[(String, String)],
    cfg: &GpuConfig,
    policies: &Policies,
    sel: crate::timing::timeline::TimelineSelection,
) -> Result<TimedRun, RunError> {
    run_timed_setup(p, overrides, cfg, policies, |gpu| gpu.enable_timeline(sel))
}

/// A timed run whose GPU `setup` prepares before the first launch.
fn run_timed_setup(
    p: &Prepared,
    overrides: &[(String, String)],
    cfg: &GpuConfig,
    policies: &Policies,
    setup: impl FnOnce(&mut Gpu) -> Result<(), String>,
) -> Result<TimedRun, RunError> {
    let mut workload = build_workload(p, overrides)?;
    let mut host = TimingHost::new(p, cfg, policies)
        .map_err(|m| RunError::Workload(WorkloadError::Host(m)))?;
    setup(&mut host.gpu).map_err(|m| RunError::Workload(WorkloadError::Host(m)))?;
    let check = workload.run(&mut host)?;
    let dumps = crate::workload::runner::capture_dumps(&host.device.global, &p.dumps)?;
    Ok(TimedRun {
        dumps,
        check,
        stats: host.gpu.stats(),
        issue_log: host.gpu.take_issue_log(),
        profile: host.recorder.as_ref().map(|r| r.borrow().finish()),
        timeline: host.gpu.take_timeline(),
    })
}
