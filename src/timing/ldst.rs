//! The LD/ST unit and the L1 data cache.
//!
//! * `.param`/`.const` loads: the constant cache (every read hits), `latency.const_load`
//!   after its last line; one line per cycle (`l1c.line`) holds the unit.
//! * Shared memory: one pass per bank-conflict degree `k`; the unit is busy
//!   `k` cycles and the result arrives `shared.latency + k − 1` cycles
//!   after issue. Shared atomics are performed at issue.
//! * Global and local memory: the coalescer turns the access into line
//!   requests, processed one per cycle starting in the issue cycle. A load
//!   hit completes `l1d.hit_latency` cycles after its request is
//!   processed; a miss merges into an MSHR for the same line or takes a
//!   free one and sends a read to L2 (the line is allocated when it
//!   returns, LRU, remembering the warp that missed). Stores write through
//!   to L2 and evict the line from L1 (no write allocate). Global atomics
//!   go to L2, which performs them on arrival. The instruction's registers
//!   are released when its last request is served.
//! * Texture fetches, with a texture cache (`l1t.sets` > 0): through it
//!   ([`crate::timing::tex_cache`]), one line request per cycle, never
//!   the L1D; without one, like global loads.
//! * Local memory is interleaved per thread in 4-byte words so that the
//!   same local offset of consecutive lanes is contiguous (as hardware
//!   does), then cached like global memory.

use crate::func::exec::perform_atomic;
use crate::func::{DynInst, GlobalMemory};
use crate::ir::Space;
use crate::sched::LoadFeedback;
use crate::timing::cache::{Evicted, ReservationFail};
use crate::timing::coalescer::{VectorShape, bank_conflict_degree, coalesce, coalesce_atomic};
use crate::timing::const_cache::CONST_TAG;
use crate::timing::memsys::{MemSys, Packet, PacketKind};
use crate::timing::opcoll::WRITEBACK_STAGES;
use crate::timing::scoreboard::RegMask;
use crate::timing::sm::{
    InflightMem, JobKind, L1dWait, LaunchCtx, LdStStall, Mshr, QueuedMem, Sm, SmEvent,
};
use crate::timing::tex_cache::TEX_TAG;

/// `Sm::mshr_lines` of an MSHR not in use (no line address is this large).
pub const NO_LINE: u64 = u64::MAX;

/// The distinct `line`-byte lines the lanes of `exec` read (at least 1;
/// 1 when `line` is 0): the constant cache's lookups for one load, as
/// GPGPU-Sim's `generate_mem_accesses` makes one access per distinct block.
pub fn distinct_lines(exec: u64, line: u32, addr: impl Fn(usize) -> u64) -> u64 {
    if line == 0 || exec == 0 {
        return 1;
    }
    // The common case (every `ld.param`, a uniform `ld.const`): one line.
    let first = addr(exec.trailing_zeros() as usize) / u64::from(line);
    let mut m = exec;
    let mut uniform = true;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        uniform &= addr(l) / u64::from(line) == first;
    }
    if uniform {
        return 1;
    }
    let mut seen = [0u64; 64];
    let mut n = 0;
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let tag = addr(l) / u64::from(line);
        if !seen[..n].contains(&tag) {
            seen[n] = tag;
            n += 1;
        }
    }
    n as u64
}

/// Base of the address range local memory is mapped to for caching.
pub const LOCAL_TIMING_BASE: u64 = 0xd000_0000_0000;

/// Tag of an L1D write-back's write: its acknowledgement finds no warp.
pub const WRITEBACK_TAG: u32 = 1 << 29;

/// GPGPU-Sim's `LOCAL_GENERIC_START` (0xC0000000 less 80 SMs' 96 KB of
/// shared memory and 80 × 2048 threads' 16 KB of local memory), added to
/// [`LOCAL_TIMING_BASE`] with `core.local_mem_map`, so the low 32 address
/// bits that pick set, slice, bank and row are GPGPU-Sim's.
pub const LOCAL_GENERIC_START: u64 = 0x1F88_0000;

/// A launch's local-memory layout under `core.local_mem_map`
/// (GPGPU-Sim's `shader_core_ctx::translate_local_memaddr`): thread `t` of
/// CTA slot `k` on SM `s` keeps word `D` at `4 * (D * concurrent + padded *
/// (s + sms * k) + t)` past [`LOCAL_GENERIC_START`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LocalMap {
    /// Threads per CTA, rounded up to whole warps (`nTpC`).
    pub padded: u64,
    /// Threads that can be resident on the GPU at once: `padded` × CTAs
    /// per SM for this launch × SMs (`N`).
    pub concurrent: u64,
    /// SMs (`nS`).
    pub sms: u64,
}

impl LocalMap {
    /// The layout of a launch of `threads`-thread CTAs of which `ctas`
    /// fit on each of `sms` SMs (warps of `warp_size` lanes).
    pub fn new(threads: u32, warp_size: u32, ctas: u32, sms: u32) -> LocalMap {
        let padded = u64::from(threads.next_multiple_of(warp_size.max(1)));
        LocalMap {
            padded,
            concurrent: padded * u64::from(ctas.max(1)) * u64::from(sms),
            sms: u64::from(sms),
        }
    }

    /// Timing address of byte `a` of the local memory of thread `t` of
    /// CTA slot `k` on SM `sm`.
    #[inline]
    pub fn addr(&self, sm: u64, k: u64, t: u64, a: u64) -> u64 {
        let base = 4 * (self.padded * (sm + self.sms * k) + t);
        LOCAL_TIMING_BASE + LOCAL_GENERIC_START + (a / 4) * self.concurrent * 4 + base + a % 4
    }
}

impl Sm {
    /// True if a memory instruction may issue at `now`: to an idle LD/ST
    /// unit, or with `opcoll.mem_queue` > 0 into the queue in front of it
    /// while it has room (one memory instruction issues per cycle).
    pub(crate) fn ldst_can_issue(&self, now: u64) -> bool {
        let cap = self.mem_queue_cap;
        if cap == 0 {
            self.ldst_job.is_none() && self.ldst_free <= now
        } else {
            self.mem_issue_free <= now && self.mem_queue.len() < cap
        }
    }

    /// Hands the memory instruction `slot` just executed (its record in
    /// `self.dyn_buf`, its lane addresses in the warp's `addrs`) to the
    /// LD/ST unit if it is idle and nothing waits for it, else queues it
    /// (GPGPU-Sim: it waits in ID_OC_MEM, a memory collector unit or
    /// OC_EX_MEM until `ldst_unit::can_issue`). A queued instruction
    /// already reserves its destination registers and holds its warp
    /// (`outstanding`) so the warp cannot retire before it is served.
    pub(crate) fn ldst_issue(
        &mut self,
        slot: u32,
        now: u64,
        ctx: &LaunchCtx<'_>,
        global: &mut GlobalMemory,
    ) {
        self.mem_issue_free = now + 1;
        let idle = self.ldst_job.is_none() && self.ldst_free <= now;
        if self.mem_queue_cap == 0 || (idle && self.mem_queue.is_empty()) {
            self.ldst_accept(slot, now, now, ctx, global);
            return;
        }
        let d = self.dyn_buf;
        let si = slot as usize;
        let (c, index) = (self.warps[si].cta as usize, self.warps[si].index as usize);
        // A recycled buffer (see `ldst_start_queued`), not a new one.
        let mut addrs = self.spare_addrs.pop().unwrap_or_default();
        addrs.clear();
        addrs.extend_from_slice(
            &self.ctas[c].as_ref().expect("live warp has a CTA").warps[index].addrs,
        );
        let w = &mut self.warps[si];
        w.sb.reserve(&ctx.table[d.inst.0 as usize].writes);
        w.outstanding += 1;
        // An atomic blocks its warp from issue on (until written back).
        if is_atomic(&d) {
            w.atomics += 1;
        }
        self.mem_queue.push_back(QueuedMem {
            slot,
            inst: d,
            addrs,
            issued: now,
        });
    }

    /// Starts the oldest queued memory instruction if the LD/ST unit is
    /// idle at `now`.
    pub(crate) fn ldst_start_queued(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        global: &mut GlobalMemory,
    ) {
        if self.ldst_job.is_some() || self.ldst_free > now {
            return;
        }
        let Some(q) = self.mem_queue.pop_front() else {
            return;
        };
        self.active = true;
        self.issue_dirty = true;
        // Its warp's state changes (outstanding work, atomics).
        self.mark_dirty(q.slot);
        let si = q.slot as usize;
        if is_atomic(&q.inst) {
            // `ldst_accept` counts it again.
            self.warps[si].atomics -= 1;
        }
        let (c, index) = (self.warps[si].cta as usize, self.warps[si].index as usize);
        let fw = &mut self.ctas[c].as_mut().expect("queued warp has a CTA").warps[index];
        let later = std::mem::replace(&mut fw.addrs, q.addrs);
        let later_inst = std::mem::replace(&mut self.dyn_buf, q.inst);
        self.ldst_accept(q.slot, now, q.issued, ctx, global);
        self.dyn_buf = later_inst;
        let fw = &mut self.ctas[c].as_mut().expect("queued warp has a CTA").warps[index];
        let served = std::mem::replace(&mut fw.addrs, later);
        self.spare_addrs.push(served);
        let w = &mut self.warps[si];
        w.outstanding -= 1;
        if w.done && w.outstanding == 0 {
            self.maybe_retire = true;
        }
    }

    /// Accepts into the LD/ST unit at `now` the memory instruction `slot`
    /// issued at `issued` (its record is in `self.dyn_buf`, its lane
    /// addresses in the warp's `addrs`).
    fn ldst_accept(
        &mut self,
        slot: u32,
        now: u64,
        issued: u64,
        ctx: &LaunchCtx<'_>,
        global: &mut GlobalMemory,
    ) {
        let d = self.dyn_buf;
        let si = slot as usize;
        let ti = &ctx.table[d.inst.0 as usize];
        let cfg = ctx.cfg;
        self.ldst_free = now + 1;
        // The operand-collector stages in front of the LD/ST unit and the
        // writeback stage delay every result by `delay` cycles. An
        // instruction that waited for the unit collected its operands
        // meanwhile: only the writeback stages are left.
        let delay = self.opcoll.collect_mem(slot, &ti.reads, now);
        let delay = if issued < now {
            delay.saturating_sub(now - issued).max(WRITEBACK_STAGES)
        } else {
            delay
        };
        let Some(m) = d.mem.filter(|_| d.exec != 0) else {
            // No lane accessed memory: done as soon as it is written back.
            self.writeback_after(slot, d.inst.0, now + delay, ctx);
            return;
        };
        let (c, index) = (self.warps[si].cta as usize, self.warps[si].index as usize);
        match m.space {
            Space::Param | Space::Const => {
                if self.l1c.is_some() && self.const_accept(slot, issued, delay, ctx) {
                    return;
                }
                // The constant cache's port looks up one line per cycle
                // (`l1c.line`); the unit is held until the last.
                // A kernel-parameter load counts as one line: its lanes read
                // one address (but for a parameter array indexed per lane,
                // rare enough that its cost of a pass over the lanes on
                // every `ld.param` is not worth paying).
                let lines = if m.space == Space::Const {
                    let fw = &self.ctas[c].as_ref().expect("live CTA").warps[index];
                    distinct_lines(d.exec, cfg.l1c.line, |l| fw.addrs[l])
                } else {
                    1
                };
                self.ldst_free = now + lines;
                let latency = u64::from(ti.latency) + delay + (lines - 1);
                if !ti.writes.is_empty() {
                    self.note_mem_latency(d.inst.0, now + latency - issued);
                }
                self.writeback_after(slot, d.inst.0, now + latency, ctx);
            }
            Space::Shared => {
                let cta = self.ctas[c].as_mut().expect("live CTA");
                let fw = &mut cta.warps[index];
                let k = bank_conflict_degree(
                    d.exec,
                    m.size,
                    cfg.shared.banks,
                    cfg.shared.bank_width,
                    |l| fw.addrs[l],
                )
                .max(1);
                if m.atomic.is_some() {
                    // The atomic just executed is the newest pending one.
                    if let Some(p) = fw.pending_atomics.pop_back() {
                        fw.pending_atomics.push_front(p);
                    }
                    perform_atomic(fw, global, &mut cta.shared);
                }
                self.stats.shared_accesses += 1;
                self.stats.bank_conflict_cycles += u64::from(k - 1);
                self.ldst_free = now + u64::from(k);
                let done = now + u64::from(cfg.shared.latency) + u64::from(k - 1) + delay;
                if !ti.writes.is_empty() {
                    self.note_mem_latency(d.inst.0, done - issued);
                }
                if m.atomic.is_some() {
                    // A shared atomic blocks its warp until written back,
                    // like a global one (GPGPU-Sim counts atomics per warp
                    // whatever their space).
                    let w = &mut self.warps[si];
                    w.atomics += 1;
                    w.sb.reserve(&ti.writes);
                    w.outstanding += 1;
                    self.schedule(
                        done,
                        SmEvent::Writeback {
                            slot,
                            inst: d.inst.0,
                            long: false,
                            atomic: true,
                        },
                    );
                } else {
                    self.writeback_after(slot, d.inst.0, done, ctx);
                }
            }
            _ => {
                let kind = if m.atomic.is_some() {
                    JobKind::Atomic
                } else if m.write {
                    JobKind::Store
                } else if ti.texture {
                    JobKind::Tex
                } else {
                    JobKind::Load
                };
                let lanes = self.ctas[c].as_ref().expect("live").warps[index].lanes as u64;
                let local_words = u64::from(ctx.info.local_size.div_ceil(4).max(1));
                let wid =
                    u64::from(self.id) * u64::from(cfg.core.max_warps_per_sm) + u64::from(slot);
                let mut job = self.spare_job.take().unwrap_or_default();
                {
                    let fw = &self.ctas[c].as_ref().expect("live").warps[index];
                    let local = m.space == Space::Local;
                    let addr = |l: usize| {
                        let a = fw.addrs[l];
                        if local {
                            LOCAL_TIMING_BASE
                                + ((wid * local_words + a / 4) * lanes + l as u64) * 4
                                + a % 4
                        } else {
                            a
                        }
                    };
                    if local && cfg.core.local_mem_map {
                        // GPGPU-Sim's layout: one 4-byte access per word
                        // of an element of 8 bytes or more (of a vector,
                        // its first element's only), each word's lanes
                        // coalesced apart (their words are `concurrent`
                        // threads apart).
                        let esize = ctx.kernel.insts[d.inst.0 as usize].ty.bytes();
                        let (words, size) = if esize >= 4 {
                            (u64::from(esize / 4), 4)
                        } else {
                            (1, esize)
                        };
                        let map = self.local_map;
                        let warp = u64::from(cfg.core.warp_size);
                        let (sm, k, t0) = (u64::from(self.id), c as u64, index as u64 * warp);
                        let mut part = std::mem::take(&mut self.local_reqs);
                        job.reqs.clear();
                        for w in 0..words {
                            coalesce(
                                d.exec,
                                size,
                                cfg.l1d.line,
                                |l| map.addr(sm, k, t0 + l as u64, fw.addrs[l] + 4 * w),
                                &mut part,
                            );
                            job.reqs.extend_from_slice(&part);
                        }
                        self.local_reqs = part;
                    } else if kind == JobKind::Atomic {
                        coalesce_atomic(
                            d.exec,
                            m.size,
                            cfg.l1d.line,
                            cfg.l1d.atomic_segment,
                            addr,
                            &mut job.reqs,
                        );
                    } else {
                        let line = if kind == JobKind::Tex {
                            cfg.l1t.line
                        } else {
                            cfg.l1d.line
                        };
                        coalesce(d.exec, m.size, line, addr, &mut job.reqs);
                        if kind == JobKind::Store {
                            // A vector store's lanes write `m.size` bytes
                            // each, in elements of the instruction's type.
                            let esize = ctx.kernel.insts[d.inst.0 as usize].ty.bytes();
                            let shape = VectorShape::new(m.size, esize);
                            let transactions =
                                cfg.l1d.store_transactions && cfg.l1d.line == 128 && m.size >= 4;
                            for r in &mut job.reqs {
                                r.vector = shape;
                                if transactions {
                                    r.bytes = store_transaction_bytes(r.chunks);
                                }
                            }
                        }
                    }
                }
                if cfg.core.accesses_descending && kind != JobKind::Tex {
                    // GPGPU-Sim's coalescer queues the transactions in
                    // ascending address order (a std::map) and the LD/ST
                    // unit takes the back first: the highest line first,
                    // and a line's requests last-made first.
                    job.reqs.sort_by_key(|r| r.line);
                    job.reqs.reverse();
                }
                job.begin(slot, kind, d.inst.0, d.exec.count_ones(), u32::MAX);
                if kind != JobKind::Store {
                    let m = InflightMem {
                        slot,
                        inst: d.inst.0,
                        remaining: job.reqs.len() as u32,
                        long: true,
                        used: true,
                        delay: delay as u32,
                        atomic: kind == JobKind::Atomic,
                        issued,
                    };
                    job.inflight = self.hold_inflight(m, &ti.writes);
                    if kind == JobKind::Atomic {
                        self.warps[si].atomics += 1;
                    }
                }
                self.ldst_job = Some(job);
            }
        }
    }

    /// Tells the policy of warp `slot` how the L1D served its load at `pc`
    /// (`lanes` lanes, line requests `reqs`, `outcomes` as in
    /// [`LdStJob::outcomes`](crate::timing::sm::LdStJob::outcomes)).
    pub(crate) fn load_feedback(
        &mut self,
        slot: u32,
        pc: u32,
        lanes: u32,
        outcomes: &[u32; 4],
        reqs: &[crate::timing::coalescer::LineRequest],
    ) {
        self.line_buf.clear();
        self.line_buf.extend(reqs.iter().map(|r| r.line));
        let fb = LoadFeedback {
            pc,
            lanes,
            lines: &self.line_buf,
            own_hits: outcomes[0],
            other_hits: outcomes[1],
            misses: outcomes[2],
            vta_hits: outcomes[3],
        };
        let ns = self.policies.len() as u32;
        let p = &mut self.policies[(slot % ns) as usize];
        p.on_load(slot, &fb);
        if p.throttles() {
            self.issue_dirty = true;
        }
    }

    /// Counts one execution of memory instruction `pc` whose result is
    /// written back `cycles` after its issue.
    fn note_mem_latency(&mut self, pc: u32, cycles: u64) {
        if let Some(c) = self.pc_counters.get_mut(pc as usize) {
            c.mem_insts += 1;
            c.mem_latency += cycles;
        }
    }

    /// Records in-flight memory instruction `m` (served request by request
    /// through [`Sm::request_done`]) and holds its warp until then: its
    /// destination registers `writes` reserved, one more outstanding
    /// instruction, and a long operation pending if `m.long`. Returns the
    /// record's id.
    pub(crate) fn hold_inflight(&mut self, m: InflightMem, writes: &RegMask) -> u32 {
        let (si, long) = (m.slot as usize, m.long);
        let id = match self.inflight.iter().position(|x| !x.used) {
            Some(i) => {
                self.inflight[i] = m;
                i as u32
            }
            None => {
                self.inflight.push(m);
                (self.inflight.len() - 1) as u32
            }
        };
        let w = &mut self.warps[si];
        w.sb.reserve(writes);
        w.outstanding += 1;
        if long {
            self.views[si].long_pending += 1;
        }
        id
    }

    /// Releases `inst`'s destination registers at `at` (if it has any).
    fn writeback_after(&mut self, slot: u32, inst: u32, at: u64, ctx: &LaunchCtx<'_>) {
        let ti = &ctx.table[inst as usize];
        if ti.writes.is_empty() {
            return;
        }
        let w = &mut self.warps[slot as usize];
        w.sb.reserve(&ti.writes);
        w.outstanding += 1;
        self.schedule(
            at,
            SmEvent::Writeback {
                slot,
                inst,
                long: false,
                atomic: false,
            },
        );
    }

    /// Processes one line request of the current global/local job.
    pub(crate) fn ldst_step(&mut self, now: u64, ctx: &LaunchCtx<'_>, mem: &mut MemSys) {
        let before = self.ldst_stall;
        self.ldst_try(now, ctx, mem);
        if self.ldst_stall != before {
            // Charge the cycles the previous stall held before it changes.
            let after = std::mem::replace(&mut self.ldst_stall, before);
            self.flush_ldst_account();
            self.ldst_stall = after;
        }
    }

    /// [`Sm::ldst_step`]'s work, setting `ldst_stall` (with the L1D latency
    /// queue: the queue head's stall, see [`Sm::l1q_step`]).
    fn ldst_try(&mut self, now: u64, ctx: &LaunchCtx<'_>, mem: &mut MemSys) {
        self.ldst_stall = self.l1q_stall;
        let Some(job) = self.ldst_job.as_ref() else {
            return;
        };
        if job.kind == JobKind::Tex {
            self.ldst_try_tex(now, ctx, mem);
            return;
        }
        if job.kind == JobKind::Const {
            self.ldst_try_const(now, ctx, mem);
            return;
        }
        let cfg = ctx.cfg;
        let r = job.reqs[job.next];
        let (kind, slot, inflight) = (job.kind, job.slot, job.inflight);
        let queued = self.l1q_depth > 0 && kind != JobKind::Atomic;
        let processed = if queued {
            // Loads and stores enter the L1D latency queue (atomics
            // bypass the L1D); the lookup is made at its head.
            self.l1q_enter(now, r)
        } else {
            match kind {
                JobKind::Load => {
                    match self.l1d_load(
                        now,
                        ctx,
                        mem,
                        r.line,
                        slot,
                        inflight,
                        u64::from(cfg.l1d.hit_latency),
                        u64::from(cfg.l1d.miss_latency),
                    ) {
                        Ok((outcome, vta_hit)) => {
                            let job = self.ldst_job.as_mut().expect("job");
                            job.outcomes[outcome] += 1;
                            if vta_hit {
                                job.outcomes[3] += 1;
                            }
                            true
                        }
                        Err(stall) => {
                            self.ldst_stall = stall;
                            false
                        }
                    }
                }
                JobKind::Store => {
                    let ok = self.l1d_store(
                        now,
                        cfg,
                        mem,
                        r,
                        slot,
                        u64::from(cfg.l1d.miss_latency),
                        true,
                    );
                    if !ok {
                        self.ldst_stall = LdStStall::Icnt;
                    }
                    ok
                }
                JobKind::Tex => unreachable!("texture jobs go through ldst_try_tex"),
                JobKind::Const => unreachable!("constant jobs go through ldst_try_const"),
                JobKind::Atomic => {
                    if mem.can_inject(self.id, now, r.bytes) {
                        let job = self.ldst_job.as_ref().expect("job");
                        // Atomics bypass the L1D pipeline.
                        mem.inject(
                            now,
                            0,
                            Packet {
                                kind: PacketKind::Atomic,
                                sm: self.id,
                                addr: r.line * u64::from(cfg.l1d.line),
                                req_bytes: r.bytes,
                                reply_bytes: r.bytes,
                                chunks: r.chunks,
                                tag: inflight,
                                perform: job.next == 0,
                                vector: VectorShape::SCALAR,
                            },
                        );
                        true
                    } else {
                        self.ldst_stall = LdStStall::Icnt;
                        false
                    }
                }
            }
        };
        if processed && let Some(mut j) = self.advance_job(now) {
            // With the latency queue a load's outcomes are known when
            // its last line is looked up (`l1q_step`).
            if j.kind == JobKind::Load && !queued {
                self.load_feedback(j.slot, j.pc, j.lanes, &j.outcomes, &j.reqs);
                if let Some(c) = self.pc_counters.get_mut(j.pc as usize) {
                    c.l1d_hits += u64::from(j.outcomes[0] + j.outcomes[1]);
                    c.l1d_misses += u64::from(j.outcomes[2]);
                }
            }
            j.reqs.clear();
            self.spare_job = Some(j);
        }
    }

    /// The LD/ST unit processed its job's current line request at `now`:
    /// on to the next one. After the last the unit is free for the next
    /// instruction and the finished job is handed back (its allocation is
    /// kept in `spare_job` for the next job).
    #[inline(always)]
    pub(crate) fn advance_job(&mut self, now: u64) -> Option<crate::timing::sm::LdStJob> {
        self.active = true;
        let job = self.ldst_job.as_mut().expect("job");
        job.next += 1;
        if job.next < job.reqs.len() {
            return None;
        }
        self.ldst_free = self.ldst_free.max(now + 1);
        self.issue_dirty = true;
        self.ldst_job.take()
    }

    /// Looks `line` up in the L1D for load `inflight` of warp `slot` at
    /// `now`. A hit completes `hit_delay` cycles later (at once, before
    /// the issue stage runs, if 0); a miss merges into an MSHR for the line
    /// or takes a free one (reserving a way with allocate on miss) and
    /// sends a read that leaves for L2 `miss_delay` cycles later (with
    /// `l1d.miss_queue`: joins the miss queue, which must have room for a
    /// miss or a merge). Returns
    /// the outcome (0 a hit on a line the warp brought, 1 another hit or
    /// merge, 2 a miss) and whether a miss hit the warp's victim tags, or
    /// the reservation failure that stops it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn l1d_load(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        mem: &mut MemSys,
        line: u64,
        slot: u32,
        inflight: u32,
        hit_delay: u64,
        miss_delay: u64,
    ) -> Result<(usize, bool), LdStStall> {
        let cfg = ctx.cfg;
        // With the L1D miss queue, a miss or a merge needs room in it for
        // two packets (GPGPU-Sim's `rd_miss_base`: `miss_queue_full(1)`,
        // room for a write-back too).
        let missq = self.l1_missq_cap > 0;
        let missq_full = missq && self.l1_missq.len() + 1 >= self.l1_missq_cap as usize;
        if let L1dWait::Mshr(l) | L1dWait::Set(l) = self.l1d_wait
            && l == line
        {
            // No fill since the last try could change its outcome: the
            // line is still absent (only a fill of its set brings it),
            // and its MSHR or way is still not to be had. The miss
            // queue may have filled up meanwhile (write-backs).
            return Err(if missq_full {
                LdStStall::Icnt
            } else {
                LdStStall::Mshr
            });
        }
        let dyn_id = self.warps[slot as usize].dyn_id;
        let st = &mut self.stats.l1d;
        if let Some(owner) = self.l1d.access(line) {
            st.accesses += 1;
            let outcome = if owner == dyn_id {
                st.intra_warp_hits += 1;
                0
            } else {
                st.inter_warp_hits += 1;
                1
            };
            if hit_delay == 0 {
                self.request_done(inflight, now, ctx);
            } else {
                self.events
                    .push(now + hit_delay, SmEvent::RequestDone { id: inflight });
            }
            return Ok((outcome, false));
        }
        if missq_full {
            return Err(LdStStall::Icnt);
        }
        if let Some(m) = self
            .mshr_index
            .candidates(line)
            .find(|&i| {
                self.mshr_lines[i] == line
                    && (self.mshrs[i].waiters.len() as u32) < cfg.l1d.mshr_merge
            })
            .map(|i| &mut self.mshrs[i])
        {
            st.accesses += 1;
            st.mshr_merges += 1;
            m.waiters.push(inflight);
            let (outcome, way) = (if m.owner == dyn_id { 0 } else { 1 }, m.way);
            if let Some(w) = way
                && cfg.l1d.lru_at_access
            {
                // A miss merged into a reserved line's fill sets its
                // access time (GPGPU-Sim's tag_array::access, HIT_RESERVED).
                self.l1d.touch(w as usize);
            }
            return Ok((outcome, false));
        }
        let Some(i) = self.mshr_index.first_free() else {
            self.l1d_wait = L1dWait::Mshr(line);
            return Err(LdStStall::Mshr);
        };
        // Allocate on miss: a way of the line's set is reserved now; none
        // free is a reservation failure (the unit waits for a fill, like a
        // full MSHR file).
        if !missq && !mem.can_inject(self.id, now, 0) {
            return Err(LdStStall::Icnt);
        }
        let way = if cfg.l1d.allocate_on_miss {
            match self.l1d.reserve_way(line, dyn_id) {
                Err(ReservationFail) => {
                    self.l1d_wait = L1dWait::Set(line);
                    return Err(LdStStall::Mshr);
                }
                Ok((w, evicted)) => {
                    if let Some(ev) = evicted {
                        self.l1d_evicted(ev);
                        self.send_writebacks(now, cfg, mem, miss_delay);
                    }
                    Some(w as u32)
                }
            }
        } else {
            None
        };
        let st = &mut self.stats.l1d;
        st.accesses += 1;
        st.misses += 1;
        let vta_hit = self.vta.probe(slot, line);
        if vta_hit {
            st.vta_hits += 1;
        }
        let m = &mut self.mshrs[i];
        *m = Mshr {
            line,
            waiters: std::mem::take(&mut m.waiters),
            owner: dyn_id,
            used: true,
            way,
        };
        m.waiters.clear();
        m.waiters.push(inflight);
        self.mshr_lines[i] = line;
        self.mshr_index.allocate(i, line);
        let read = Packet {
            kind: PacketKind::Read,
            sm: self.id,
            addr: line * u64::from(cfg.l1d.line),
            req_bytes: 0,
            reply_bytes: cfg.l1d.line,
            chunks: u32::MAX,
            tag: i as u32,
            perform: false,
            vector: VectorShape::SCALAR,
        };
        if missq {
            self.l1_missq.push_back(read);
        } else {
            mem.inject(now, miss_delay, read);
        }
        Ok((2, vta_hit))
    }

    /// Writes line request `r` of a store of warp `slot` through to L2 at
    /// `now` (it leaves `delay` cycles later) and evicts the line from the
    /// L1D; false if the SM's interconnect input (or, with `l1d.miss_queue`,
    /// the L1D miss queue) has no room. With `hold`
    /// the warp is held until L2 acknowledges the write (without, it
    /// already is: the access was counted when it entered the L1D latency
    /// queue).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn l1d_store(
        &mut self,
        now: u64,
        cfg: &crate::config::GpuConfig,
        mem: &mut MemSys,
        r: crate::timing::coalescer::LineRequest,
        slot: u32,
        delay: u64,
        hold: bool,
    ) -> bool {
        let missq = self.l1_missq_cap > 0;
        if missq {
            if self.l1_missq.len() >= self.l1_missq_cap as usize {
                return false;
            }
        } else if !mem.can_inject(self.id, now, r.bytes) {
            return false;
        }
        let line_bytes = u64::from(cfg.l1d.line);
        if cfg.l1d.local_write_back
            && r.line * line_bytes >= LOCAL_TIMING_BASE
            && self.l1d.access(r.line).is_some()
        {
            // A local store hitting its line: written back later, done now
            // (GPGPU-Sim's wr_hit_wb; the latency queue counted it at entry,
            // and its acknowledgement is immediate).
            self.l1d.mark_dirty(r.line);
            self.stats.l1d.stores += 1;
            self.stats.l1d.local_write_hits += 1;
            if !hold {
                self.store_acknowledged(slot);
            }
            return true;
        }
        if hold {
            // Held until L2 acknowledges the write.
            self.warps[slot as usize].outstanding += 1;
        }
        let st = &mut self.stats.l1d;
        st.stores += 1;
        if self.l1d.invalidate(r.line) {
            st.write_evictions += 1;
        }
        let write = Packet {
            kind: PacketKind::Write,
            sm: self.id,
            addr: r.line * u64::from(cfg.l1d.line),
            req_bytes: r.bytes,
            reply_bytes: 0,
            chunks: r.chunks,
            // A store's acknowledgement finds its warp.
            tag: slot,
            perform: false,
            vector: r.vector,
        };
        if missq {
            self.l1_missq.push_back(write);
        } else {
            mem.inject(now, delay, write);
        }
        true
    }

    /// A store of the warp in `slot` is acknowledged (by L2, or at once by
    /// a write-back hit).
    fn store_acknowledged(&mut self, slot: u32) {
        let w = &mut self.warps[slot as usize];
        w.outstanding -= 1;
        if w.done && w.outstanding == 0 {
            self.maybe_retire = true;
            self.changed = true;
        }
    }

    /// Sends the dirty lines the L1D evicted to L2, whole lines, through
    /// the miss queue if there is one (GPGPU-Sim's `send_write_request`
    /// of the write-back), else into the interconnect after `delay`.
    pub(crate) fn send_writebacks(
        &mut self,
        now: u64,
        cfg: &crate::config::GpuConfig,
        mem: &mut MemSys,
        delay: u64,
    ) {
        for line in std::mem::take(&mut self.l1d_writebacks) {
            let write = Packet {
                kind: PacketKind::Write,
                sm: self.id,
                addr: line * u64::from(cfg.l1d.line),
                req_bytes: cfg.l1d.line,
                reply_bytes: 0,
                chunks: u32::MAX,
                tag: WRITEBACK_TAG,
                perform: false,
                vector: VectorShape::SCALAR,
            };
            self.stats.l1d.writebacks += 1;
            if self.l1_missq_cap > 0 {
                self.l1_missq.push_back(write);
            } else {
                mem.inject(now, delay, write);
            }
        }
    }

    /// Counts an L1D eviction and puts the line into the victim tags of
    /// the warp that brought it, if that warp is still live.
    fn l1d_evicted(&mut self, ev: Evicted) {
        self.stats.l1d.evictions += 1;
        if ev.dirty {
            // Written back to L2 by `send_writebacks`.
            self.l1d_writebacks.push(ev.line);
        }
        // The live warp with the owner's id (ids are unique among live warps).
        let p = self.live_by_dyn_id.partition_point(|&(d, _)| d < ev.owner);
        if let Some(&(d, s)) = self.live_by_dyn_id.get(p)
            && d == ev.owner
        {
            debug_assert_eq!(
                self.live_slots
                    .iter()
                    .find(|&&x| self.warps[x as usize].dyn_id == ev.owner),
                Some(&s)
            );
            self.vta.insert(s, ev.line);
        } else {
            debug_assert!(
                !self
                    .live_slots
                    .iter()
                    .any(|&x| self.warps[x as usize].dyn_id == ev.owner)
            );
        }
    }

    /// A reply from L2 reached this SM. Sets `changed` if it can let
    /// something issue or proceed (an instruction completed, an MSHR freed
    /// for a stalled LD/ST unit, an I-cache line a warp waits for).
    pub(crate) fn on_reply(&mut self, p: &Packet, now: u64, ctx: &LaunchCtx<'_>) {
        match p.kind {
            PacketKind::Read if p.tag & CONST_TAG != 0 => self.const_fill(p, now, ctx),
            PacketKind::Read if p.tag & TEX_TAG != 0 => {
                if let Some(t) = self.l1t.as_mut() {
                    t.arrived(p.tag & !TEX_TAG);
                }
                // Requests handed back may complete later (events): the
                // SM must run to see them, as it must when its LD/ST unit
                // waits for the FIFO.
                if self.tex_complete(now, ctx) || self.ldst_stall == LdStStall::Tex {
                    self.changed = true;
                }
            }
            PacketKind::Read => {
                let i = p.tag as usize;
                let (line, owner) = (self.mshrs[i].line, self.mshrs[i].owner);
                // A lookup waiting for an MSHR may succeed now; one waiting
                // for a way of a fully reserved set only if this fill is in
                // it.
                let ends_wait = match self.l1d_wait {
                    L1dWait::None => false,
                    L1dWait::Mshr(_) => true,
                    L1dWait::Set(w) => self.l1d.same_set(w, line),
                };
                if ends_wait {
                    self.l1d_wait = L1dWait::None;
                    if self.ldst_stall == LdStStall::Mshr || self.l1q_stall == LdStStall::Mshr {
                        self.changed = true;
                    }
                }
                let evicted = match self.mshrs[i].way.take() {
                    Some(w) => {
                        self.l1d
                            .fill_reserved(w as usize, line, !ctx.cfg.l1d.lru_at_access);
                        None
                    }
                    None => self.l1d.fill(line, owner, false),
                };
                if let Some(ev) = evicted {
                    self.l1d_evicted(ev);
                    if !self.l1d_writebacks.is_empty() {
                        // The SM runs to send the write-back.
                        self.changed = true;
                    }
                }
                let waiters = std::mem::take(&mut self.mshrs[i].waiters);
                self.mshrs[i].used = false;
                self.mshr_index.release(i, line);
                self.mshr_lines[i] = NO_LINE;
                for &id in &waiters {
                    self.request_done(id, now, ctx);
                }
                self.mshrs[i].waiters = waiters;
                self.mshrs[i].waiters.clear();
            }
            PacketKind::Atomic => self.request_done(p.tag, now, ctx),
            PacketKind::Fetch => {
                let line = p.addr / u64::from(ctx.cfg.icache.line.max(1));
                self.icache.fill(line, 0, false);
                self.icache_pending.retain(|&l| l != line);
                for s in 0..self.warps.len() {
                    if self.warps[s].fetch_wait_line == Some(line) {
                        self.warps[s].fetch_wait_line = None;
                        self.changed = true;
                        self.refresh_fetch_need(s as u32);
                    }
                }
            }
            PacketKind::Write if p.tag == WRITEBACK_TAG => {}
            PacketKind::Write => self.store_acknowledged(p.tag),
        }
    }

    /// One request of in-flight instruction `id` was served at `now`; after
    /// the last one the instruction is written back `delay` cycles later.
    pub(crate) fn request_done(&mut self, id: u32, now: u64, ctx: &LaunchCtx<'_>) {
        let f = &mut self.inflight[id as usize];
        f.remaining -= 1;
        if f.remaining > 0 {
            return;
        }
        f.used = false;
        self.changed = true;
        self.issue_dirty = true;
        let (slot, inst, long, atomic) = (f.slot as usize, f.inst, f.long, f.atomic);
        let (delay, latency) = (f.delay, now + u64::from(f.delay) - f.issued);
        if !ctx.table[inst as usize].writes.is_empty() {
            self.note_mem_latency(inst, latency);
        }
        if delay > 0 || atomic {
            // The registers stay reserved (reserved at accept) until the
            // writeback event; `outstanding` is released there.
            let at = now + u64::from(delay);
            self.schedule(
                at,
                SmEvent::Writeback {
                    slot: slot as u32,
                    inst,
                    long,
                    atomic,
                },
            );
            return;
        }
        self.mark_dirty(slot as u32);
        let w = &mut self.warps[slot];
        w.sb.release(&ctx.table[inst as usize].writes);
        w.outstanding -= 1;
        if w.done && w.outstanding == 0 {
            self.maybe_retire = true;
        }
        if long {
            self.views[slot].long_pending -= 1;
        }
    }
}

/// True if `d` is an atomic that accessed memory: [`Sm::ldst_accept`]
/// counts it in its warp's `atomics` (shared and global alike).
fn is_atomic(d: &DynInst) -> bool {
    d.exec != 0 && d.mem.is_some_and(|m| m.atomic.is_some())
}

/// The size of GPGPU-Sim's Fermi write transaction for a store of 4-,
/// 8- or 16-byte lanes touching `chunks` (4-byte 32nds) of a 128-byte
/// line (`memory_coalescing_arch` with 128-byte segments, then
/// `memory_coalescing_arch_reduce_and_send`): 128 when both 64-byte
/// halves are touched, else 64 when both 32-byte quarters of the one
/// half are, else 32 (`l1d.store_transactions`).
pub(crate) fn store_transaction_bytes(chunks: u32) -> u32 {
    let quarter = |i: u32| (chunks >> (8 * i)) & 0xff != 0;
    let (q0, q1, q2, q3) = (quarter(0), quarter(1), quarter(2), quarter(3));
    let (lower, upper) = (q0 || q1, q2 || q3);
    if lower && upper {
        128
    } else if (q0 && q1) || (q2 && q3) {
        64
    } else {
        32
    }
}

#[cfg(test)]
mod store_transaction_tests {
    use super::store_transaction_bytes;

    /// Words `lo..hi` (4-byte 32nds) of a 128-byte line.
    fn words(lo: u32, hi: u32) -> u32 {
        (lo..hi).fold(0, |m, w| m | 1 << w)
    }

    #[test]
    fn fermi_write_transaction_sizes() {
        // Both halves: the whole segment.
        assert_eq!(store_transaction_bytes(words(2, 18)), 128);
        assert_eq!(store_transaction_bytes(words(15, 17)), 128);
        assert_eq!(store_transaction_bytes(1 | 1 << 31), 128);
        // One half, both of its quarters: 64.
        assert_eq!(store_transaction_bytes(words(0, 16)), 64);
        assert_eq!(store_transaction_bytes(words(20, 26)), 64);
        // One quarter: 32.
        assert_eq!(store_transaction_bytes(words(0, 8)), 32);
        assert_eq!(store_transaction_bytes(words(25, 26)), 32);
    }
}
