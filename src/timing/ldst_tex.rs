//! The LD/ST unit's texture-cache path (`l1t.sets` > 0): `tex` fetches
//! through [`crate::timing::tex_cache`] instead of the L1D, one line
//! request per cycle.

use crate::timing::coalescer::{VectorShape, line_chunks};
use crate::timing::memsys::{MemSys, Packet, PacketKind};
use crate::timing::sm::{LaunchCtx, LdStStall, Sm, SmEvent};
use crate::timing::tex_cache::{TEX_TAG, TexLookup};

impl Sm {
    /// [`Sm::ldst_try`] for a texture job: its next line request into the
    /// texture cache. Out of line, so that the global path stays as it is.
    #[cold]
    #[inline(never)]
    pub(crate) fn ldst_try_tex(&mut self, now: u64, ctx: &LaunchCtx<'_>, mem: &mut MemSys) {
        let job = self.ldst_job.as_ref().expect("a texture job");
        let (line, inflight) = (job.reqs[job.next].line, job.inflight);
        if let Err(stall) = self.tex_access(now, ctx, mem, line, inflight) {
            self.ldst_stall = stall;
            return;
        }
        if let Some(mut j) = self.advance_job(now) {
            j.reqs.clear();
            self.spare_job = Some(j);
        }
    }

    /// Looks `line` (in `l1t.line` units) up in the texture cache for
    /// in-flight instruction `inflight` at `now` and queues the request in
    /// its FIFO; a miss sends the line's read to L2. Waits (`Err`) while
    /// the FIFO is full or a miss cannot enter the interconnect.
    pub(crate) fn tex_access(
        &mut self,
        now: u64,
        ctx: &LaunchCtx<'_>,
        mem: &mut MemSys,
        line: u64,
        inflight: u32,
    ) -> Result<(), LdStStall> {
        let cfg = ctx.cfg;
        let t = self
            .l1t
            .as_mut()
            .expect("a texture job needs the texture cache");
        if !t.has_room(now) || (!t.present(line) && !mem.can_inject(self.id, now, 0)) {
            return Err(LdStStall::Tex);
        }
        self.stats.tex_accesses += 1;
        if let TexLookup::Miss(id) = t.lookup(line, inflight, now) {
            self.stats.tex_misses += 1;
            mem.inject(
                now,
                0,
                Packet {
                    kind: PacketKind::Read,
                    sm: self.id,
                    addr: line * u64::from(cfg.l1t.line),
                    req_bytes: 0,
                    reply_bytes: cfg.l1t.line,
                    chunks: line_chunks(cfg, cfg.l1t.line),
                    tag: TEX_TAG | id,
                    perform: false,
                    vector: VectorShape::SCALAR,
                },
            );
        }
        self.tex_complete(now, ctx);
        Ok(())
    }

    /// Completes the texture-cache requests that may leave its FIFO as of
    /// `now` (at once, or by a `RequestDone` event at their cycle); true
    /// if there were any.
    #[cold]
    #[inline(never)]
    pub(crate) fn tex_complete(&mut self, now: u64, ctx: &LaunchCtx<'_>) -> bool {
        let mut out = std::mem::take(&mut self.tex_out);
        if let Some(t) = self.l1t.as_mut() {
            t.drain(now, &mut out);
        }
        for &(id, at) in &out {
            if at <= now {
                self.request_done(id, now, ctx);
            } else {
                self.events.push(at, SmEvent::RequestDone { id });
            }
        }
        let any = !out.is_empty();
        out.clear();
        self.tex_out = out;
        any
    }
}
