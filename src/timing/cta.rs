//! The CTA scheduler: CTAs in grid order go to the SMs a CTA policy picks
//! (`rr` by default), at most one per SM per cycle, while the SM's
//! occupancy limits (CTAs, warps, threads, registers, shared memory) allow.

use crate::config::GpuConfig;
use crate::sched::{Contention, CtaPolicy, SmView};
use crate::timing::sm::{LaunchCtx, Sm};

/// Resources one CTA of a launch needs: `[warps, threads, registers,
/// shared bytes]`.
pub fn cta_need(ctx: &LaunchCtx<'_>, regs_per_thread: u32) -> [u32; 4] {
    let threads = ctx.block[0] * ctx.block[1] * ctx.block[2];
    let lanes = ctx.cfg.core.warp_size.max(1);
    let warps = threads.div_ceil(lanes);
    [
        warps,
        threads,
        regs_per_thread.next_multiple_of(ctx.cfg.core.reg_alloc_unit.max(1)) * warps * lanes,
        (ctx.info.shared_dynamic_base as u32).saturating_add(ctx.dynamic_shared),
    ]
}

/// CTAs of `need` that fit on one SM at once, as GPGPU-Sim's
/// `shader_core_config::max_cta` counts them for a grid of `total` CTAs:
/// the least of the limits of threads, registers, shared memory and CTAs,
/// and no more than `total` spread over the SMs needs (at least 1).
pub fn ctas_per_sm(need: [u32; 4], total: u64, cfg: &GpuConfig) -> u32 {
    let c = &cfg.core;
    let limit = |have: u32, each: u32| have.checked_div(each).unwrap_or(u32::MAX);
    let fit = c
        .max_ctas_per_sm
        .min(limit(c.max_warps_per_sm, need[0]))
        .min(limit(c.max_threads_per_sm, need[1]))
        .min(limit(c.registers_per_sm, need[2]))
        .min(limit(c.shared_mem_per_sm, need[3]));
    let sms = u64::from(c.num_sms.max(1));
    let spread = total.div_ceil(sms).min(u64::from(u32::MAX)) as u32;
    fit.min(spread).max(1)
}

/// Why a CTA can never fit on an SM, if it cannot.
pub fn never_fits(need: [u32; 4], cfg: &GpuConfig) -> Option<String> {
    let c = &cfg.core;
    let checks = [
        (
            need[0],
            c.max_warps_per_sm,
            "warps",
            "core.max_warps_per_sm",
        ),
        (
            need[1],
            c.max_threads_per_sm,
            "threads",
            "core.max_threads_per_sm",
        ),
        (
            need[2],
            c.registers_per_sm,
            "registers",
            "core.registers_per_sm",
        ),
        (
            need[3],
            c.shared_mem_per_sm,
            "bytes of shared memory",
            "core.shared_mem_per_sm",
        ),
    ];
    for (n, limit, what, key) in checks {
        if n > limit {
            return Some(format!(
                "one CTA needs {n} {what}, more than an SM has ({key} = {limit})"
            ));
        }
    }
    (c.max_ctas_per_sm == 0).then(|| "core.max_ctas_per_sm is 0".to_string())
}

/// CTA assignment of one launch: CTAs in grid order, SMs chosen by the
/// CTA policy.
#[derive(Debug)]
pub struct CtaScheduler {
    /// CTAs in the grid.
    pub total: u64,
    /// Next CTA (linear index) to assign.
    pub next: u64,
    need: [u32; 4],
    views: Vec<SmView>,
    targets: Vec<usize>,
    /// The last look found no SM with room, and no CTA has retired since
    /// (an SM's room only grows when one of its CTAs retires), so looking
    /// again would find the same.
    full: bool,
}

impl CtaScheduler {
    /// A scheduler for `total` CTAs of `need` resources each.
    pub fn new(total: u64, need: [u32; 4]) -> CtaScheduler {
        CtaScheduler {
            total,
            next: 0,
            need,
            views: Vec::new(),
            targets: Vec::new(),
            full: false,
        }
    }

    /// A CTA retired somewhere: an SM may have room again.
    pub fn on_retire(&mut self) {
        self.full = false;
    }

    /// All CTAs assigned.
    pub fn exhausted(&self) -> bool {
        self.next >= self.total
    }

    /// Assigns CTAs to the SMs `policy` picks. Returns true if any was
    /// assigned.
    pub fn assign(
        &mut self,
        policy: &mut dyn CtaPolicy,
        sms: &mut [Sm],
        ctx: &LaunchCtx<'_>,
        now: u64,
        contention: Contention,
    ) -> bool {
        if self.exhausted() || self.full {
            return false;
        }
        self.views.clear();
        let mut any_fits = false;
        for sm in sms.iter() {
            let fits = sm.fits(self.need, ctx.cfg);
            any_fits |= fits;
            self.views.push(SmView {
                fits,
                ctas: sm.used[4],
            });
        }
        if !any_fits {
            self.full = true;
            return false;
        }
        self.targets.clear();
        policy.assign(now, &self.views, contention, &mut self.targets);
        let mut any = false;
        for &s in &self.targets {
            if self.exhausted() || !self.views[s].fits {
                continue;
            }
            let g = ctx.grid;
            let lin = self.next;
            let id = [
                (lin % u64::from(g[0])) as u32,
                ((lin / u64::from(g[0])) % u64::from(g[1])) as u32,
                (lin / (u64::from(g[0]) * u64::from(g[1]))) as u32,
            ];
            sms[s].assign_cta(ctx, id, self.need, now);
            self.views[s].fits = false;
            self.next += 1;
            any = true;
        }
        any
    }
}
