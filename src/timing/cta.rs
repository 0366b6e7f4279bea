//! The CTA scheduler (policy `rr`): CTAs in grid order go to SMs round
//! robin, at most one per SM per cycle, while the SM's occupancy limits
//! (CTAs, warps, threads, registers, shared memory) allow.

use crate::config::GpuConfig;
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
        regs_per_thread * warps * lanes,
        ctx.info.shared_dynamic_base as u32,
    ]
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

/// Round-robin CTA assignment state of one launch.
#[derive(Debug)]
pub struct CtaScheduler {
    /// CTAs in the grid.
    pub total: u64,
    /// Next CTA (linear index) to assign.
    pub next: u64,
    /// SM to try first.
    pub rr: usize,
    need: [u32; 4],
}

impl CtaScheduler {
    /// A scheduler for `total` CTAs of `need` resources each.
    pub fn new(total: u64, need: [u32; 4]) -> CtaScheduler {
        CtaScheduler {
            total,
            next: 0,
            rr: 0,
            need,
        }
    }

    /// All CTAs assigned.
    pub fn exhausted(&self) -> bool {
        self.next >= self.total
    }

    /// Assigns at most one CTA to each SM that has room, starting from the
    /// SM after the last one served. Returns true if any was assigned.
    pub fn assign(&mut self, sms: &mut [Sm], ctx: &LaunchCtx<'_>, now: u64) -> bool {
        let n = sms.len();
        let mut any = false;
        for i in 0..n {
            if self.exhausted() {
                break;
            }
            let s = (self.rr + i) % n;
            if sms[s].fits(self.need, ctx.cfg) {
                let g = ctx.grid;
                let lin = self.next;
                let id = [
                    (lin % u64::from(g[0])) as u32,
                    ((lin / u64::from(g[0])) % u64::from(g[1])) as u32,
                    (lin / (u64::from(g[0]) * u64::from(g[1]))) as u32,
                ];
                sms[s].assign_cta(ctx, id, self.need, now);
                self.next += 1;
                self.rr = (s + 1) % n;
                any = true;
            }
        }
        any
    }
}
