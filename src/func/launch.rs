//! Functional-only execution of a kernel launch: all CTAs of the grid (up to
//! a residency limit, in CTA order), warps interleaved round robin a few
//! instructions at a time, CTA barriers, atomics performed at once.
//! Deterministic: the interleaving depends only on the launch.

use crate::func::dyninst::DynInst;
use crate::func::error::{SimError, SimErrorKind};
use crate::func::exec::{ExecCtx, LaunchEnv, exec_into, perform_atomic, run_warp};
use crate::func::layout::KernelInfo;
use crate::func::memory::GlobalMemory;
use crate::func::spin::{SpinDetector, hash_warp};
use crate::func::warp::Warp;
use crate::ir::{BarKind, Kernel, Operand};

/// Shape and limits of one launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// CTAs per grid dimension.
    pub grid: [u32; 3],
    /// Threads per CTA dimension.
    pub block: [u32; 3],
    /// Bytes of dynamic (`.extern .shared`) shared memory per CTA.
    pub dynamic_shared: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// CTAs resident at once (all of a small grid: spin locks across CTAs
    /// need their peers to run).
    pub max_resident_ctas: u32,
    /// Instructions a warp runs before the next warp's turn.
    pub quantum: u32,
    /// Error out after this many warp instructions in total.
    pub step_limit: u64,
    /// Number of SMs `%nsmid` reports; CTA `i` reports `%smid = i % nsm`.
    pub nsm: u32,
}

impl Default for LaunchConfig {
    fn default() -> LaunchConfig {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            dynamic_shared: 0,
            warp_size: 32,
            max_resident_ctas: 1024,
            quantum: 16,
            step_limit: 2_000_000_000,
            nsm: 1,
        }
    }
}

/// Most dynamic shared memory a functional launch gives a CTA (1 MiB; the
/// timing model's limit is `core.shared_mem_per_sm`).
pub const MAX_DYNAMIC_SHARED: u32 = 1 << 20;

/// Counts of a functional run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuncStats {
    /// Warp instructions executed.
    pub warp_insts: u64,
    /// Thread instructions executed (lanes that executed, guard applied).
    pub thread_insts: u64,
    /// CTAs run.
    pub ctas: u64,
}

/// One resident CTA.
struct Cta {
    id: [u32; 3],
    shared: Vec<u8>,
    warps: Vec<Warp>,
}

/// Something `run` reports per executed instruction (for `gpusim trace`).
pub struct TraceEvent<'a> {
    /// CTA index (linear).
    pub cta: u64,
    /// CTA index.
    pub ctaid: [u32; 3],
    /// Warp within the CTA.
    pub warp: u32,
    /// What executed.
    pub dyn_inst: &'a DynInst,
}

/// Runs one launch to completion in functional-only mode.
pub fn run(
    kernel: &Kernel,
    info: &KernelInfo,
    params: &[u8],
    global: &mut GlobalMemory,
    cfg: &LaunchConfig,
    mut trace: Option<&mut dyn FnMut(&TraceEvent<'_>) -> bool>,
) -> Result<FuncStats, SimError> {
    let threads = u64::from(cfg.block[0]) * u64::from(cfg.block[1]) * u64::from(cfg.block[2]);
    let ctas_total = u64::from(cfg.grid[0]) * u64::from(cfg.grid[1]) * u64::from(cfg.grid[2]);
    if threads == 0 || threads > 1024 {
        return Err(SimError::launch(
            &kernel.name,
            format!("{threads} threads per CTA (1 to 1024 allowed)"),
        ));
    }
    if ctas_total == 0 {
        return Err(SimError::launch(&kernel.name, "the grid is empty"));
    }
    if let Some(why) = grid_too_large(cfg.grid) {
        return Err(SimError::launch(&kernel.name, why));
    }
    if cfg.warp_size == 0 || cfg.warp_size > 64 {
        return Err(SimError::launch(
            &kernel.name,
            format!("warp size {} (1 to 64 allowed)", cfg.warp_size),
        ));
    }
    if params.len() < kernel.param_bytes as usize {
        return Err(SimError::launch(
            &kernel.name,
            format!(
                "{} bytes of parameters given, the kernel declares {}",
                params.len(),
                kernel.param_bytes
            ),
        ));
    }
    let threads = threads as u32;
    let lanes = cfg.warp_size;
    let nwarps = threads.div_ceil(lanes);
    if cfg.dynamic_shared > MAX_DYNAMIC_SHARED {
        return Err(SimError::launch(
            &kernel.name,
            format!(
                "{} bytes of dynamic shared memory per CTA (at most {MAX_DYNAMIC_SHARED})",
                cfg.dynamic_shared
            ),
        ));
    }
    let shared_bytes = info.shared_dynamic_base as usize + cfg.dynamic_shared as usize;
    let mut stats = FuncStats::default();
    let mut next_cta = 0u64;
    let mut resident: Vec<Cta> = Vec::new();
    let mut spin = SpinDetector::new();
    // Finished CTAs' buffers, reused for the next CTAs (same shape).
    let mut spare: Vec<Cta> = Vec::new();
    let make_cta = |linear: u64, spare: &mut Vec<Cta>| -> Cta {
        let gx = u64::from(cfg.grid[0]);
        let gy = u64::from(cfg.grid[1]);
        let id = [
            (linear % gx) as u32,
            ((linear / gx) % gy) as u32,
            (linear / (gx * gy)) as u32,
        ];
        if let Some(mut cta) = spare.pop() {
            cta.id = id;
            cta.shared.fill(0);
            for (w, warp) in cta.warps.iter_mut().enumerate() {
                let w = w as u32;
                warp.reset(w * lanes, threads - w * lanes, cfg.block, &info.zeroed_regs);
            }
            return cta;
        }
        let mut pool = WARP_POOL.take();
        let warps = (0..nwarps)
            .map(|w| match pool.pop() {
                Some(mut warp) => {
                    warp.reinit(
                        w,
                        lanes,
                        w * lanes,
                        threads - w * lanes,
                        cfg.block,
                        kernel.regs.len(),
                        kernel.preds.len(),
                        info.local_size,
                        &info.zeroed_regs,
                    );
                    warp
                }
                None => Warp::new(
                    w,
                    lanes,
                    w * lanes,
                    threads - w * lanes,
                    cfg.block,
                    kernel.regs.len(),
                    kernel.preds.len(),
                    info.local_size,
                ),
            })
            .collect();
        WARP_POOL.set(pool);
        Cta {
            id,
            shared: vec![0; shared_bytes],
            warps,
        }
    };
    loop {
        while resident.len() < cfg.max_resident_ctas.max(1) as usize && next_cta < ctas_total {
            resident.push(make_cta(next_cta, &mut spare));
            next_cta += 1;
        }
        if resident.is_empty() {
            break;
        }
        let repeat = spin.visit(
            stats.warp_insts,
            |h| {
                use std::hash::Hasher;
                h.write_u64(next_cta);
                for cta in &resident {
                    h.write_u32(cta.id[0]);
                    h.write_u32(cta.id[1]);
                    h.write_u32(cta.id[2]);
                    for w in &cta.warps {
                        hash_warp(w, h);
                    }
                }
            },
            |h| {
                use std::hash::Hasher;
                global.hash_contents(h);
                for cta in &resident {
                    h.write(&cta.shared);
                }
            },
        );
        if let Some(r) = repeat {
            // Name the first warp that is running (not at a barrier).
            let (cta, w) = resident
                .iter()
                .flat_map(|c| c.warps.iter().map(move |w| (c, w)))
                .find(|(_, w)| !w.done() && w.barrier.is_none())
                .expect("a repeating launch has a running warp");
            let mut e = SimError::launch(&kernel.name, "");
            e.kind = SimErrorKind::Repeating {
                period: r.period,
                quiet: r.quiet,
            };
            e.inst = w.pc();
            e.line = w.pc().map_or(0, |pc| kernel.insts[pc as usize].line);
            e.cta = cta.id;
            e.warp = w.warp_id;
            return Err(e);
        }
        let mut progressed = false;
        let mut d = DynInst::blank();
        for cta in resident.iter_mut() {
            let linear = u64::from(cta.id[0])
                + u64::from(cfg.grid[0])
                    * (u64::from(cta.id[1]) + u64::from(cfg.grid[1]) * u64::from(cta.id[2]));
            for wi in 0..cta.warps.len() {
                let w = &mut cta.warps[wi];
                if w.done() || w.barrier.is_some() {
                    continue;
                }
                let env = LaunchEnv {
                    ctaid: cta.id,
                    ntid: cfg.block,
                    nctaid: cfg.grid,
                    smid: (linear % u64::from(cfg.nsm.max(1))) as u32,
                    nsmid: cfg.nsm.max(1),
                    nwarpid: 64,
                    clock: stats.warp_insts,
                    gridid: 0,
                    dynamic_smem: cfg.dynamic_shared,
                    total_smem: shared_bytes as u32,
                };
                let mut cx = ExecCtx {
                    kernel,
                    info,
                    global,
                    shared: &mut cta.shared,
                    params,
                    env,
                    waits_at_l2: false,
                };
                let mut released = false;
                if trace.is_none() {
                    // Stop after the instruction that exceeds the step limit.
                    let budget = (cfg.step_limit - stats.warp_insts)
                        .saturating_add(1)
                        .min(u64::from(cfg.quantum));
                    let ran = run_warp(
                        w,
                        &mut cx,
                        budget as u32,
                        stats.warp_insts,
                        &mut d,
                        &mut stats.thread_insts,
                    )?;
                    if ran.executed > 0 {
                        stats.warp_insts += u64::from(ran.executed);
                        progressed = true;
                    }
                    if stats.warp_insts > cfg.step_limit {
                        let mut e = SimError::launch(&kernel.name, "");
                        e.kind = SimErrorKind::StepLimit {
                            limit: cfg.step_limit,
                        };
                        e.inst = Some(ran.last_pc);
                        e.line = kernel.insts[ran.last_pc as usize].line;
                        e.cta = cta.id;
                        e.warp = wi as u32;
                        return Err(e);
                    }
                    if ran.released {
                        spin.progress(stats.warp_insts);
                        release_barriers(kernel, &mut cta.warps);
                    }
                    continue;
                }
                for _ in 0..cfg.quantum {
                    if w.done() || w.barrier.is_some() {
                        break;
                    }
                    cx.env.clock = stats.warp_insts;
                    exec_into(w, &mut cx, &mut d)?;
                    while !w.pending_atomics.is_empty() {
                        perform_atomic(w, cx.global, cx.shared);
                    }
                    stats.warp_insts += 1;
                    stats.thread_insts += u64::from(d.exec.count_ones());
                    progressed = true;
                    if let Some(t) = trace.as_mut()
                        && !t(&TraceEvent {
                            cta: linear,
                            ctaid: cta.id,
                            warp: wi as u32,
                            dyn_inst: &d,
                        })
                    {
                        let mut e = SimError::launch(&kernel.name, "");
                        e.kind = SimErrorKind::Stopped;
                        e.inst = Some(d.inst.0);
                        e.line = kernel.insts[d.inst.0 as usize].line;
                        e.cta = cta.id;
                        e.warp = wi as u32;
                        return Err(e);
                    }
                    if stats.warp_insts > cfg.step_limit {
                        let mut e = SimError::launch(&kernel.name, "");
                        e.kind = SimErrorKind::StepLimit {
                            limit: cfg.step_limit,
                        };
                        e.inst = Some(d.inst.0);
                        e.line = kernel.insts[d.inst.0 as usize].line;
                        e.cta = cta.id;
                        e.warp = wi as u32;
                        return Err(e);
                    }
                    if d.barrier || d.exit {
                        released = true;
                        break;
                    }
                }
                if released {
                    spin.progress(stats.warp_insts);
                    release_barriers(kernel, &mut cta.warps);
                }
            }
        }
        let mut i = 0;
        while i < resident.len() {
            if resident[i].warps.iter().all(Warp::done) {
                // Keep CTA order (determinism): remove, not swap_remove.
                spare.push(resident.remove(i));
                stats.ctas += 1;
                spin.progress(stats.warp_insts);
            } else {
                i += 1;
            }
        }
        if !progressed && !resident.is_empty() {
            let cta = &resident[0];
            let w = cta.warps.iter().find(|w| !w.done()).expect("a live warp");
            let mut e = SimError::launch(&kernel.name, "");
            e.kind = SimErrorKind::BarrierDeadlock;
            e.inst = w.barrier.map(|b| b.inst);
            e.line = w.barrier.map_or(0, |b| kernel.insts[b.inst as usize].line);
            e.cta = cta.id;
            e.warp = w.warp_id;
            return Err(e);
        }
    }
    // Keep the finished warps' buffers for the next launch on this thread.
    let mut pool = WARP_POOL.take();
    let mut bytes: usize = pool.iter().map(Warp::buffer_bytes).sum();
    for w in spare.into_iter().flat_map(|c| c.warps) {
        bytes += w.buffer_bytes();
        if bytes > WARP_POOL_BYTES {
            break;
        }
        pool.push(w);
    }
    WARP_POOL.set(pool);
    Ok(stats)
}

/// The largest grid dimensions a launch may have: CUDA's (x up to
/// 2^31 − 1, y and z up to 65535).
pub const MAX_GRID: [u32; 3] = [(1 << 31) - 1, 65535, 65535];

/// Why a grid is too large to launch, if it is: a dimension above
/// [`MAX_GRID`].
pub fn grid_too_large(grid: [u32; 3]) -> Option<String> {
    let names = ["x", "y", "z"];
    (0..3).find(|&d| grid[d] > MAX_GRID[d]).map(|d| {
        format!(
            "grid {:?} has {} CTAs in {} (at most {} allowed)",
            grid, grid[d], names[d], MAX_GRID[d]
        )
    })
}

/// Bytes of warp buffers [`WARP_POOL`] keeps at most.
const WARP_POOL_BYTES: usize = 64 << 20;

thread_local! {
    /// Warps of finished launches on this thread, reused (re-initialised
    /// exactly as new warps) by the next launches: their buffers stay
    /// allocated and cached instead of being freed and faulted in again.
    static WARP_POOL: std::cell::Cell<Vec<Warp>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Releases every barrier id all of whose expected warps have arrived:
/// the non-exited warps of the CTA, or `count` threads when given.
pub fn release_barriers(kernel: &Kernel, warps: &mut [Warp]) {
    // Barrier ids some warp waits at (usually one).
    let mut ids = 0u32;
    let mut live = 0u32;
    for w in warps.iter() {
        if let Some(b) = w.barrier {
            ids |= 1 << b.id;
        }
        live += u32::from(!w.done());
    }
    while ids != 0 {
        let id = ids.trailing_zeros();
        ids &= ids - 1;
        let at = |w: &Warp| w.barrier.is_some_and(|b| b.id == id);
        // The waiting warps: how many, the first, their `bar.red` sums.
        let (mut waiting, mut first, mut ones, mut threads) = (0u32, 0usize, 0u32, 0u32);
        for (i, w) in warps.iter().enumerate().rev() {
            if let Some(b) = w.barrier.filter(|b| b.id == id) {
                waiting += 1;
                first = i;
                ones += w.bar_red;
                threads += b.threads;
            }
        }
        let lanes = warps[0].lanes;
        let expected = warps[first]
            .barrier
            .and_then(|b| b.count)
            .map_or(live, |c| c.div_ceil(lanes));
        if waiting < expected.min(live) {
            continue;
        }
        for w in warps.iter_mut().filter(|w| at(w)) {
            let b = w.barrier.take().expect("waiting");
            let inst = &kernel.insts[b.inst as usize];
            let n = w.lanes as usize;
            match (inst.mods.bar, inst.dst) {
                (BarKind::RedPopc, Operand::Reg(r)) => {
                    w.regs[r.0 as usize * n..][..n].fill(u64::from(ones));
                }
                (BarKind::RedAnd | BarKind::RedOr, Operand::Pred { id, .. }) => {
                    let v = if inst.mods.bar == BarKind::RedAnd {
                        ones == threads
                    } else {
                        ones > 0
                    };
                    w.preds[id.0 as usize] = if v { u64::MAX } else { 0 };
                }
                _ => {}
            }
        }
    }
}
