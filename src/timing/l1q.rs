//! The L1D latency queue (`l1d.latency_queue` > 0), as GPGPU-Sim 4.x has
//! it with `-gpgpu_l1_latency` > 0 (`ldst_unit::L1_latency_queue_cycle`,
//! `process_memory_access_queue_l1cache`, shader.cc).
//!
//! The LD/ST unit puts a global or local load's or store's line requests,
//! one per cycle, into the last of `latency_queue` stages (GPGPU-Sim's
//! `l1_latency_queue[bank][latency − 1]`, one bank); a request finding
//! that stage taken waits in the unit (`BK_CONF`). Every cycle, before the
//! unit takes a request, the request in stage 0 is looked up in the L1D
//! (`m_L1D->access`): a hit completes, a miss merges into or takes an MSHR
//! and leaves for L2, a store writes through; a reservation failure (no
//! MSHR, every way of the set reserved, no room at the interconnect) keeps
//! it in stage 0. Then every request above the lowest empty stage moves
//! down one stage, so the requests behind a failing head close up until
//! the queue is full. An instruction leaves the unit once its last request
//! is in the queue; its registers are released when its last request is
//! served. Atomics bypass the queue (and the L1D), as in GPGPU-Sim.
//!
//! With `l1d.miss_queue` > 0 a miss or store looked up at the head joins
//! the L1D miss queue (GPGPU-Sim's `m_miss_queue`, `baseline_cache::cycle`
//! sends its oldest into the interconnect when `m_memport->full` allows,
//! one per cycle, before the latency queue's step); a store finding it
//! full, or a miss or merge finding fewer than two free entries, fails
//! (`MISS_QUEUE_FULL`: `miss_queue_full(0)` in `wr_miss_no_wa`,
//! `miss_queue_full(1)` in `rd_miss_base`).
//!
//! Host cost: the queue is stepped only while it holds a request, and the
//! SM sleeps while its head waits for a reply (it is woken when the head
//! reaches stage 0). No stage is stored or moved: a request that entered
//! at cycle `e` would be looked up at `e + latency_queue` if nothing
//! blocked it, and the one `i` places from the head is at stage
//! max(`i`, that cycle − now). Since at most one request leaves per cycle
//! and a request that is blocked sits right behind the one ahead of it,
//! this is what moving every request down one free stage each cycle
//! gives; only the head's stage is ever needed.

use crate::timing::coalescer::LineRequest;
use crate::timing::memsys::MemSys;
use crate::timing::sm::{JobKind, LaunchCtx, LdStStall, Sm};

/// [`L1qEntry::load`] of a store.
pub const L1Q_STORE: u32 = u32::MAX;

/// A line request in the L1D latency queue.
#[derive(Clone, Copy, Debug)]
pub struct L1qEntry {
    /// The line request.
    pub req: LineRequest,
    /// The cycle at which it reaches stage 0 when nothing ahead of it
    /// blocks it (it entered `l1d.latency_queue` cycles before).
    pub lookup_at: u64,
    /// Warp slot.
    pub slot: u32,
    /// In-flight record of a load (unused for a store).
    pub inflight: u32,
    /// The load's record in [`Sm::l1q_loads`], or [`L1Q_STORE`].
    pub load: u32,
}

/// A load with requests in the L1D latency queue: what its policy is told
/// once the last one is looked up.
#[derive(Clone, Debug, Default)]
pub struct L1qLoad {
    /// Warp slot.
    pub slot: u32,
    /// The instruction's PC.
    pub pc: u32,
    /// Lanes that executed it.
    pub lanes: u32,
    /// Its line requests.
    pub reqs: Vec<LineRequest>,
    /// Outcomes so far, as `LdStJob::outcomes`.
    pub outcomes: [u32; 4],
    /// Requests not yet looked up.
    pub left: u32,
    /// In use.
    pub used: bool,
}

impl Sm {
    /// Puts the current job's request `r` into the L1D latency queue at
    /// `now` if its last stage is free (the queue holds fewer than
    /// `l1d.latency_queue` requests after this cycle's step); false if not.
    pub(crate) fn l1q_enter(&mut self, now: u64, r: LineRequest) -> bool {
        let depth = self.l1q_depth as usize;
        if self.l1q.len() >= depth {
            return false;
        }
        let job = self.ldst_job.as_mut().expect("job");
        let (slot, inflight) = (job.slot, job.inflight);
        let load = if job.kind == JobKind::Load {
            if job.next == 0 {
                // The load's record, taken with its first request.
                let i = match self.l1q_loads.iter().position(|l| !l.used) {
                    Some(i) => i,
                    None => {
                        self.l1q_loads.push(Default::default());
                        self.l1q_loads.len() - 1
                    }
                };
                let rec = &mut self.l1q_loads[i];
                rec.slot = job.slot;
                rec.pc = job.pc;
                rec.lanes = job.lanes;
                rec.reqs.clear();
                rec.reqs.extend_from_slice(&job.reqs);
                rec.outcomes = [0; 4];
                rec.left = job.reqs.len() as u32;
                rec.used = true;
                job.l1q_load = i as u32;
            }
            job.l1q_load
        } else {
            // GPGPU-Sim counts the store's request at entry
            // (`inc_store_req`): its warp is held until L2 acknowledges it.
            self.warps[slot as usize].outstanding += 1;
            L1Q_STORE
        };
        self.l1q.push_back(L1qEntry {
            req: r,
            lookup_at: now + u64::from(self.l1q_depth),
            slot,
            inflight,
            load,
        });
        true
    }

    /// Cycles a packet sent from the queue's head waits before it leaves
    /// for L2: what is left of `l1d.miss_latency` after the queue's stages.
    fn l1q_miss_delay(&self, cfg: &crate::config::GpuConfig) -> u64 {
        u64::from(cfg.l1d.miss_latency).saturating_sub(u64::from(self.l1q_depth))
    }

    /// One cycle of the L1D latency queue at `now`, before the issue stage:
    /// looks the head up if it is in stage 0 (sets `l1q_stall` to its
    /// reservation failure); the others move down with the clock.
    pub(crate) fn l1q_step(&mut self, now: u64, ctx: &LaunchCtx<'_>, mem: &mut MemSys) {
        if !self.l1d_writebacks.is_empty() {
            // Dirty lines a fill evicted (since the last cycle).
            let delay = self.l1q_miss_delay(ctx.cfg);
            self.send_writebacks(now, ctx.cfg, mem, delay);
        }
        if self.l1q.is_empty() && self.l1_missq.is_empty() {
            return;
        }
        // The miss queue first (GPGPU-Sim: `m_L1D->cycle()` before
        // `L1_latency_queue_cycle`): its oldest packet enters the
        // interconnect if the SM's input has room.
        if let Some(p) = self.l1_missq.front()
            && mem.can_inject(self.id, now, p.req_bytes)
        {
            let p = self.l1_missq.pop_front().expect("front");
            let delay = self.l1q_miss_delay(ctx.cfg);
            mem.inject(now, delay, p);
        }
        if self.l1q.is_empty() {
            return;
        }
        let head = self.l1q[0];
        self.l1q_stall = LdStStall::None;
        if head.lookup_at <= now {
            let cfg = ctx.cfg;
            let depth = u64::from(self.l1q_depth);
            let miss_delay = self.l1q_miss_delay(cfg);
            let served = if head.load == L1Q_STORE {
                let ok = self.l1d_store(now, cfg, mem, head.req, head.slot, miss_delay, false);
                if !ok {
                    self.l1q_stall = LdStStall::Icnt;
                }
                ok
            } else {
                let hit_delay = u64::from(cfg.l1d.hit_latency).saturating_sub(depth);
                match self.l1d_load(
                    now,
                    ctx,
                    mem,
                    head.req.line,
                    head.slot,
                    head.inflight,
                    hit_delay,
                    miss_delay,
                ) {
                    Ok((outcome, vta_hit)) => {
                        self.l1q_looked_up(head.load as usize, outcome, vta_hit);
                        true
                    }
                    Err(stall) => {
                        self.l1q_stall = stall;
                        false
                    }
                }
            };
            if served {
                self.l1q.pop_front();
                self.active = true;
            }
        }
    }

    /// Counts one looked-up request of load record `i`; after its last,
    /// tells the warp's policy and the PC counters.
    fn l1q_looked_up(&mut self, i: usize, outcome: usize, vta_hit: bool) {
        let rec = &mut self.l1q_loads[i];
        rec.outcomes[outcome] += 1;
        if vta_hit {
            rec.outcomes[3] += 1;
        }
        rec.left -= 1;
        if rec.left > 0 {
            return;
        }
        rec.used = false;
        let reqs = std::mem::take(&mut rec.reqs);
        let (slot, pc, lanes, outcomes) = (rec.slot, rec.pc, rec.lanes, rec.outcomes);
        self.load_feedback(slot, pc, lanes, &outcomes, &reqs);
        if let Some(c) = self.pc_counters.get_mut(pc as usize) {
            c.l1d_hits += u64::from(outcomes[0] + outcomes[1]);
            c.l1d_misses += u64::from(outcomes[2]);
        }
        self.l1q_loads[i].reqs = reqs;
    }

    /// The cycle at which the L1D latency queue next needs a step after
    /// `now`: when its head reaches stage 0, or the next cycle if it is
    /// there and not waiting for a reply (an MSHR or a way, which wakes
    /// the SM); `None` if it is empty or its head waits for a reply.
    pub(crate) fn l1q_next(&self, now: u64) -> Option<u64> {
        let head = self.l1q.front()?;
        // Its stage after this cycle's step is max(0, lookup_at − now − 1).
        if head.lookup_at <= now + 1 && self.l1q_stall == LdStStall::Mshr {
            return None;
        }
        Some(head.lookup_at.max(now + 1))
    }
}
