//! The LD/ST unit's constant-cache path (`l1c.sets` > 0): `.const` and
//! `.param` loads through [`crate::timing::const_cache`], GPGPU-Sim's
//! `ldst_unit::constant_cycle` with its L1C's misses. Without misses
//! modelled the LD/ST unit times these loads by its port alone
//! ([`crate::timing::ldst`]).

use crate::ir::Space;
use crate::timing::coalescer::line_chunks;
use crate::timing::coalescer::{LineRequest, VectorShape};
use crate::timing::const_cache::{CONST_TAG, ConstLookup};
use crate::timing::memsys::{MemSys, Packet, PacketKind};
use crate::timing::sm::{InflightMem, JobKind, LaunchCtx, LdStStall, Sm, SmEvent};

impl Sm {
    /// With constant-cache misses modelled (`l1c.sets` > 0): the lines of
    /// the `.const`/`.param` load in `self.dyn_buf` (the distinct
    /// `l1c.line` lines its active lanes read; a `.param` load's first
    /// lane's, as every lane reads the same parameter), highest address
    /// first (GPGPU-Sim takes its access queue from the back). If every
    /// line is present the load is served as by a cache whose reads all
    /// hit (and false is returned, for the caller to time it so, after
    /// the LRU update here); else it becomes a job of line requests, one
    /// looked up per cycle from this one ([`Sm::ldst_try_const`]), and true
    /// is returned.
    pub(crate) fn const_accept(
        &mut self,
        slot: u32,
        issued: u64,
        delay: u64,
        ctx: &LaunchCtx<'_>,
    ) -> bool {
        let d = self.dyn_buf;
        let m = d.mem.expect("a memory instruction");
        let si = slot as usize;
        let size = u64::from(ctx.cfg.l1c.line);
        let (c, index) = (self.warps[si].cta as usize, self.warps[si].index as usize);
        let mut lines = std::mem::take(&mut self.const_lines);
        lines.clear();
        {
            let fw = &self.ctas[c].as_ref().expect("live CTA").warps[index];
            if m.space == Space::Param {
                lines.push(fw.addrs[d.exec.trailing_zeros() as usize] / size);
            } else {
                let mut e = d.exec;
                while e != 0 {
                    let l = e.trailing_zeros() as usize;
                    e &= e - 1;
                    lines.push(fw.addrs[l] / size);
                }
                lines.sort_unstable_by(|a, b| b.cmp(a));
                lines.dedup();
            }
        }
        let l1c = self.l1c.as_mut().expect("constant cache");
        if lines.iter().all(|&l| l1c.present(l)) {
            for &l in &lines {
                let _ = l1c.lookup(l, u32::MAX, false);
            }
            self.stats.l1c_accesses += lines.len() as u64;
            self.const_lines = lines;
            return false;
        }
        // A job's lines are counted as each is looked up.
        let mut job = self.spare_job.take().unwrap_or_default();
        job.reqs.clear();
        job.reqs.extend(lines.iter().map(|&line| LineRequest {
            line,
            bytes: size as u32,
            chunks: u32::MAX,
            vector: VectorShape::SCALAR,
        }));
        self.const_lines = lines;
        let ti = &ctx.table[d.inst.0 as usize];
        let m = InflightMem {
            slot,
            inst: d.inst.0,
            remaining: job.reqs.len() as u32,
            long: false,
            used: true,
            delay: delay as u32,
            atomic: false,
            issued,
        };
        let id = self.hold_inflight(m, &ti.writes);
        job.begin(slot, JobKind::Const, d.inst.0, d.exec.count_ones(), id);
        self.ldst_job = Some(job);
        true
    }

    /// [`Sm::ldst_try`] for a constant-cache job: its next line request
    /// looked up (see [`crate::timing::const_cache`]). A hit is served
    /// `latency.const_load` cycles later; a miss sends the line's read to
    /// L2 (leaving next cycle); a merge waits for its MSHR's fill; with no
    /// MSHR to be had (or no room in the interconnect for a miss) the unit
    /// waits.
    #[cold]
    #[inline(never)]
    pub(crate) fn ldst_try_const(&mut self, now: u64, ctx: &LaunchCtx<'_>, mem: &mut MemSys) {
        let job = self.ldst_job.as_ref().expect("a constant job");
        let (line, inflight, pc) = (job.reqs[job.next].line, job.inflight, job.pc);
        let cfg = ctx.cfg;
        let l1c = self
            .l1c
            .as_mut()
            .expect("a constant job needs the constant cache");
        let can_send = !l1c.present(line) && !l1c.pending(line) && mem.can_inject(self.id, now, 0);
        match l1c.lookup(line, inflight, can_send) {
            ConstLookup::Fail => {
                self.ldst_stall = LdStStall::Const;
                return;
            }
            ConstLookup::Hit => {
                let latency = u64::from(ctx.table[pc as usize].latency);
                if latency == 0 {
                    self.request_done(inflight, now, ctx);
                } else {
                    self.events
                        .push(now + latency, SmEvent::RequestDone { id: inflight });
                }
            }
            ConstLookup::Merged => self.stats.l1c_merges += 1,
            ConstLookup::Miss(id) => {
                self.stats.l1c_misses += 1;
                mem.inject(
                    now,
                    1,
                    Packet {
                        kind: PacketKind::Read,
                        sm: self.id,
                        addr: line * u64::from(cfg.l1c.line),
                        req_bytes: 0,
                        reply_bytes: cfg.l1c.line,
                        chunks: line_chunks(cfg, cfg.l1c.line),
                        tag: CONST_TAG | id,
                        perform: false,
                        vector: VectorShape::SCALAR,
                    },
                );
            }
        }
        self.stats.l1c_accesses += 1;
        if let Some(mut j) = self.advance_job(now) {
            j.reqs.clear();
            self.spare_job = Some(j);
        }
    }

    /// The constant cache's read `p` (tagged `CONST_TAG | MSHR`) arrived:
    /// its line is allocated and its MSHR joins the ready queue, whose
    /// requests the writeback stage drains one per cycle
    /// ([`Sm::const_drain`]), the first in this cycle if the stage is free.
    pub(crate) fn const_fill(&mut self, p: &Packet, now: u64, ctx: &LaunchCtx<'_>) {
        if let Some(c) = self.l1c.as_mut() {
            c.fill(p.tag & !CONST_TAG);
        }
        self.const_drain(now, ctx);
        // The SM runs to drain the rest, and a unit waiting for an MSHR
        // may go on once its MSHR is drained.
        if self.const_draining() || self.ldst_stall == LdStStall::Const {
            self.changed = true;
        }
    }

    /// True while filled constant-cache MSHRs have requests to drain.
    pub(crate) fn const_draining(&self) -> bool {
        self.l1c.as_ref().is_some_and(|c| c.has_ready())
    }

    /// The writeback stage takes one request of the constant cache's
    /// filled MSHRs per cycle (GPGPU-Sim: `ldst_unit::writeback` takes one
    /// of the L1C's ready accesses per cycle, `next_access`, before the
    /// unit's lookups of that cycle); the MSHR is freed with its last.
    pub(crate) fn const_drain(&mut self, now: u64, ctx: &LaunchCtx<'_>) {
        if self.const_drain_at > now {
            return;
        }
        let Some(id) = self.l1c.as_mut().and_then(|c| c.next_ready()) else {
            return;
        };
        self.const_drain_at = now + 1;
        self.request_done(id, now, ctx);
    }
}
