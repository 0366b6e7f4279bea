//! The fetch stage: each cycle the fetch policy picks one warp among those
//! that need instructions (live, not exited, I-buffer empty, no unresolved
//! control instruction fetched, no I-cache miss outstanding). Instructions
//! are 8 bytes at `CODE_BASE + 2^32 × kernel index + 8 × PC` (each kernel
//! of a module has its own code lines in L2), or with
//! `core.contiguous_code` at `CODE_BASE` + 8 × (instructions of the
//! module's earlier kernels + PC), GPGPU-Sim's layout ([`code_base`]). On an I-cache hit up to
//! `ibuffer_entries` sequential instructions enter the I-buffer, valid
//! `icache.hit_latency` cycles later; fetch stops after a control
//! instruction (no fetch past an unresolved branch), unless
//! `core.branch_redirect`: then fetch goes on past it, along the
//! fall-through, and the issue stage flushes the wrong path
//! (`Sm::redirect_on_visit`). On a miss the line is requested from L2
//! and the warp fetches again when it arrives.

use crate::sched::{FetchView, SchedView};
use crate::timing::coalescer::VectorShape;
use crate::timing::memsys::{MemSys, Packet, PacketKind};
use crate::timing::sm::{IbufEntry, LaunchCtx, Sm};

/// Byte address of the first kernel's instruction 0 (far from data
/// addresses).
pub const CODE_BASE: u64 = 0xc000_0000_0000;

/// Byte address of kernel `k`'s instruction 0. With `contiguous`
/// (`core.contiguous_code`), the module's kernels follow each other in
/// file order, 8 bytes per instruction, as GPGPU-Sim's
/// `function_info::ptx_assemble` numbers them: kernel `k` starts after the
/// entries before it (their own instructions; device functions linked into
/// a kernel are not counted). Otherwise kernel `k` starts at
/// `CODE_BASE + 2^32 × k`, on a line of its own.
pub fn code_base(program: &crate::program::Program, k: usize, contiguous: bool) -> u64 {
    if !contiguous {
        return CODE_BASE + ((k as u64) << 32);
    }
    let before: u64 = (0..k)
        .map(|j| {
            let kernel = program.kernel(j);
            kernel
                .funcs
                .first()
                .map_or(kernel.insts.len(), |f| f.entry.0 as usize) as u64
        })
        .sum();
    CODE_BASE + 8 * before
}

impl Sm {
    /// Keeps `slot`'s bit of `fetch_needs` in step with its state: set
    /// while the warp is live, not exited, its I-buffer empty, no control
    /// instruction fetched and no I-cache miss outstanding.
    pub(crate) fn refresh_fetch_need(&mut self, slot: u32) {
        let w = &self.warps[slot as usize];
        let needs = w.live
            && !w.done
            && w.ibuf.is_empty()
            && !w.fetch_blocked
            && w.fetch_wait_line.is_none();
        let (i, bit) = ((slot / 64) as usize, 1u64 << (slot % 64));
        if needs {
            self.fetch_needs[i] |= bit;
        } else {
            self.fetch_needs[i] &= !bit;
        }
    }

    /// Runs the fetch stage for cycle `now`.
    pub(crate) fn fetch(&mut self, now: u64, ctx: &LaunchCtx<'_>, mem: &mut MemSys) {
        let tops_up = self.fetch_policy.tops_up();
        if !tops_up && self.fetch_needs.iter().all(|&w| w == 0) {
            return;
        }
        let mut cand = std::mem::take(&mut self.cand_buf);
        cand.clear();
        let mut entries = std::mem::take(&mut self.fetch_entries);
        entries.clear();
        if tops_up {
            // Every warp with room in its I-buffer.
            let cap = ctx.cfg.core.ibuffer_entries.max(1) as usize;
            for (s, w) in self.warps.iter().enumerate() {
                if w.live
                    && !w.done
                    && w.ibuf.len() < cap
                    && !w.fetch_blocked
                    && w.fetch_wait_line.is_none()
                {
                    cand.push(s as u32);
                    entries.push(w.ibuf.len() as u32);
                }
            }
        } else {
            for (i, &word) in self.fetch_needs.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    cand.push(i as u32 * 64 + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
            entries.resize(cand.len(), 0);
            #[cfg(debug_assertions)]
            {
                let scan: Vec<u32> = (0..self.warps.len() as u32)
                    .filter(|&s| {
                        let w = &self.warps[s as usize];
                        w.live
                            && !w.done
                            && w.ibuf.is_empty()
                            && !w.fetch_blocked
                            && w.fetch_wait_line.is_none()
                    })
                    .collect();
                debug_assert_eq!(cand, scan, "SM {}: fetch candidates", self.id);
            }
        }
        if cand.is_empty() {
            self.cand_buf = cand;
            self.fetch_entries = entries;
            return;
        }
        let mut rank = std::mem::take(&mut self.fetch_rank);
        rank.clear();
        // One candidate needs no ranking.
        if self.fetch_policy.wants_issue_order() && cand.len() > 1 {
            rank.resize(self.warps.len(), u32::MAX);
            let mut order = std::mem::take(&mut self.order_buf);
            for s in 0..self.sched_warps.len() {
                order.clear();
                let (ages, slots) = &self.sched_warps[s];
                let view = SchedView {
                    now,
                    warps: ages,
                    by_slot: slots,
                    info: &self.views,
                    cta_barrier: &self.cta_barrier,
                    detail: &self.detail,
                };
                self.policies[s].order(&view, &mut order);
                for (i, &w) in order.iter().enumerate() {
                    rank[w as usize] = i as u32;
                }
            }
            self.order_buf = order;
        }
        let pick = self.fetch_policy.pick(&FetchView {
            candidates: &cand,
            entries: &entries,
            issue_rank: &rank,
            nslots: self.warps.len() as u32,
        });
        self.cand_buf = cand;
        self.fetch_entries = entries;
        self.fetch_rank = rank;
        let Some(slot) = pick else { return };
        let cfg = ctx.cfg;
        let n = ctx.kernel.insts.len() as u32;
        let w = &mut self.warps[slot as usize];
        let pc = w.fetch_pc;
        if pc >= n {
            // Past the end of the code (a fall-through): nothing to fetch.
            // With the wrong path already in the I-buffer the scheduler
            // flushes it; with an empty I-buffer (a control instruction
            // last in the code) fetch goes to the real PC at once, where
            // GPGPU-Sim fetches whatever code follows and flushes it.
            if w.ibuf.is_empty()
                && let Some(npc) = w.redirect.take()
            {
                self.redirects_pending -= 1;
                w.fetch_pc = npc;
                self.active = true;
                self.mark_dirty(slot);
                self.refresh_fetch_need(slot);
            }
            return;
        }
        self.active = true;
        let icl = u64::from(cfg.icache.line.max(1));
        let line = (ctx.code_base + 8 * u64::from(pc)) / icl;
        if self.icache.access(line).is_some() {
            self.stats.icache_hits += 1;
            let ready = now + u64::from(cfg.icache.hit_latency);
            let mut p = pc;
            while p < n && (w.ibuf.len() as u32) < cfg.core.ibuffer_entries.max(1) {
                w.ibuf.push_back(IbufEntry { pc: p, ready });
                p += 1;
                if ctx.table[(p - 1) as usize].control && !cfg.core.branch_redirect {
                    w.fetch_blocked = true;
                    break;
                }
            }
            w.fetch_pc = p;
            self.issue_wake = self.issue_wake.min(ready);
            self.mark_dirty(slot);
            self.refresh_fetch_need(slot);
            return;
        }
        self.stats.icache_misses += 1;
        if self.icache_pending.contains(&line) {
            w.fetch_wait_line = Some(line);
        } else if mem.can_inject(self.id, now, 0) {
            w.fetch_wait_line = Some(line);
            self.icache_pending.push(line);
            mem.inject(
                now,
                0,
                Packet {
                    kind: PacketKind::Fetch,
                    sm: self.id,
                    addr: line * icl,
                    req_bytes: 0,
                    reply_bytes: cfg.icache.line,
                    chunks: u32::MAX,
                    tag: slot,
                    perform: false,
                    vector: VectorShape::SCALAR,
                },
            );
        }
        self.refresh_fetch_need(slot);
    }
}
