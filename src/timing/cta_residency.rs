//! CTA residency on one SM: whether a CTA fits, placing one in free warp,
//! register and shared-memory slots (its warps' functional state, the
//! schedulers' lists, the policies' hooks), and retiring those whose warps
//! have all finished and drained (no outstanding stores or writebacks).

use crate::config::GpuConfig;
use crate::func::Warp;
use crate::sched::{CtaBarrier, WarpView};
use crate::timing::sm::{CtaSlot, IssueSlot, LaunchCtx, Sm, WarpSlot};
use crate::timing::stats::{Stall, StallCounts, WarpRecord};

impl Sm {
    /// True if a CTA needing `need` = [warps, threads, regs, smem] fits.
    pub fn fits(&self, need: [u32; 4], cfg: &GpuConfig) -> bool {
        let c = &cfg.core;
        !self.offline
            && self.used[4] < c.max_ctas_per_sm
            && self.used[0] + need[0] <= c.max_warps_per_sm
            && self.used[1] + need[1] <= c.max_threads_per_sm
            && self.used[2] + need[2] <= c.registers_per_sm
            && self.used[3] + need[3] <= c.shared_mem_per_sm
    }

    /// No CTA resident.
    pub fn empty(&self) -> bool {
        self.used[4] == 0
    }

    /// Places CTA `id` (linear index `linear`) on this SM at cycle `now`.
    pub fn assign_cta(&mut self, ctx: &LaunchCtx<'_>, id: [u32; 3], need: [u32; 4], now: u64) {
        // Assigned at the end of cycle `now`: alive from `now + 1`.
        self.place_cta(ctx, id, need, now, now + 1, None);
    }

    /// Places a context-switched-out CTA (`wg_sync.rs`) back on this SM at
    /// the start of cycle `now`, before the SM runs (the caller checked
    /// [`Sm::fits`]); returns its CTA slot. Its warps continue where they
    /// stopped, alive (and charged their states) from `now`.
    pub fn restore_cta(
        &mut self,
        ctx: &LaunchCtx<'_>,
        saved: CtaSlot,
        need: [u32; 4],
        now: u64,
    ) -> u32 {
        self.place_cta(ctx, saved.id, need, now, now, Some(saved))
    }

    /// [`Sm::assign_cta`] and [`Sm::restore_cta`]: a new CTA, or a saved
    /// one whose warps, shared memory and barrier phases it keeps, placed
    /// at cycle `now` (its warps' age) with its warps alive from `alive`.
    fn place_cta(
        &mut self,
        ctx: &LaunchCtx<'_>,
        id: [u32; 3],
        need: [u32; 4],
        now: u64,
        alive: u64,
        saved: Option<CtaSlot>,
    ) -> u32 {
        let c = self
            .ctas
            .iter()
            .position(Option::is_none)
            .expect("fits() checked a CTA slot");
        let lanes = ctx.cfg.core.warp_size;
        let threads = need[1];
        let nwarps = need[0];
        let ns = self.sched_warps.len() as u32;
        // A retired CTA of this launch (same kernel and shape) lends its
        // warps and shared memory, reset, instead of fresh allocations.
        let restored = saved.is_some();
        let mut saved_phases = None;
        let (mut warps, spare_shared) = match saved {
            Some(cta) => {
                saved_phases = Some(cta.phases);
                (cta.warps, Some(cta.shared))
            }
            None => match self.spare_ctas.pop() {
                Some((mut ws, sh)) => {
                    for (w, warp) in ws.iter_mut().enumerate() {
                        let w = w as u32;
                        warp.reset(
                            w * lanes,
                            threads - w * lanes,
                            ctx.block,
                            &ctx.info.zeroed_regs,
                        );
                    }
                    (ws, Some(sh))
                }
                None => (Vec::with_capacity(nwarps as usize), self.shared_pool.pop()),
            },
        };
        let reuse = !warps.is_empty();
        let mut slots = Vec::with_capacity(nwarps as usize);
        for w in 0..nwarps {
            let s = self
                .warps
                .iter()
                .position(|x| !x.live)
                .expect("fits() checked warp slots") as u32;
            if !reuse {
                // A warp of an earlier launch, made the warp `new` would.
                warps.push(match self.warp_pool.pop() {
                    Some(mut warp) => {
                        warp.reinit(
                            w,
                            lanes,
                            w * lanes,
                            threads - w * lanes,
                            ctx.block,
                            ctx.kernel.regs.len(),
                            ctx.kernel.preds.len(),
                            ctx.info.local_size,
                            &ctx.info.zeroed_regs,
                        );
                        warp
                    }
                    None => Warp::new(
                        w,
                        lanes,
                        w * lanes,
                        threads - w * lanes,
                        ctx.block,
                        ctx.kernel.regs.len(),
                        ctx.kernel.preds.len(),
                        ctx.info.local_size,
                    ),
                });
            }
            slots.push(s);
            let slot = &mut self.warps[s as usize];
            let sb = std::mem::take(&mut slot.sb);
            let mut ibuf = std::mem::take(&mut slot.ibuf);
            ibuf.clear();
            let fw = &warps[w as usize];
            let (done, pc, at_barrier) = (fw.done(), fw.pc().unwrap_or(0), fw.barrier.is_some());
            *slot = WarpSlot {
                live: true,
                cta: c as u32,
                index: w,
                dyn_id: self.next_dyn_id,
                sb,
                ibuf,
                start: alive,
                fetch_pc: pc,
                done,
                barrier_wait: at_barrier,
                ..WarpSlot::default()
            };
            slot.sb.clear(ctx.sb_words);
            self.issue_slots[s as usize] = IssueSlot::new(alive, s % ns);
            self.charge_new_warp(s, alive);
            self.refresh_fetch_need(s);
            self.next_dyn_id = self.next_dyn_id.wrapping_add(1);
            self.views[s as usize] = WarpView {
                live: true,
                age: now,
                done,
                at_barrier,
                long_pending: 0,
                cta: c as u32,
                pc,
                lanes: (threads - w * lanes).min(lanes),
            };
            self.vta.clear(s);
            self.policies[(s % ns) as usize].on_warp_start(s);
            let (age_list, slot_list) = &mut self.sched_warps[(s % ns) as usize];
            let views = &self.views;
            let key = |x: u32| (views[x as usize].age, x);
            let p = age_list.partition_point(|&x| key(x) < key(s));
            age_list.insert(p, s);
            let p = slot_list.partition_point(|&x| x < s);
            slot_list.insert(p, s);
            let p = self.live_slots.partition_point(|&x| x < s);
            self.live_slots.insert(p, s);
            let d = self.warps[s as usize].dyn_id;
            let p = self.live_by_dyn_id.partition_point(|&(x, _)| x < d);
            self.live_by_dyn_id.insert(p, (d, s));
        }
        self.cta_barrier[c] = CtaBarrier::default();
        if restored {
            let waiting = warps.iter().filter(|w| w.barrier.is_some()).count() as u32;
            self.cta_barrier[c].waiting = waiting;
            self.cta_barrier[c].first_hit = now;
        }
        if let Some(t) = self.timeline.as_mut() {
            t.cta_placed(c, id, &slots, alive);
        }
        let g = ctx.grid;
        self.ctas[c] = Some(CtaSlot {
            id,
            linear: id[0] + g[0] * (id[1] + g[1] * id[2]),
            shared: match spare_shared {
                // A restored CTA keeps its shared memory.
                Some(sh) if restored => sh,
                Some(mut sh) => {
                    sh.clear();
                    sh.resize(need[3] as usize, 0);
                    sh
                }
                None => vec![0; need[3] as usize],
            },
            warps,
            slots,
            threads,
            regs: need[2],
            smem: need[3],
            phases: saved_phases.unwrap_or_else(|| {
                crate::timing::barrier_stats::CtaPhases::new(nwarps as usize, alive)
            }),
        });
        self.used[0] += need[0];
        self.used[1] += need[1];
        self.used[2] += need[2];
        self.used[3] += need[3];
        self.used[4] += 1;
        self.active = true;
        self.issue_dirty = true;
        c as u32
    }

    /// Takes CTA slot `c` (drained: [`Sm::cta_drained`]) off this SM at the
    /// start of cycle `now`, before the SM runs (its warps are charged
    /// their states up to `now`), freeing its resources, and returns its
    /// state (a context switch out, `wg_sync.rs`).
    pub fn evict_cta(&mut self, c: u32, now: u64) -> CtaSlot {
        let cta = self.ctas[c as usize].take().expect("a resident CTA");
        let ns = self.sched_warps.len() as u32;
        for &s in &cta.slots {
            self.charge_until(s, now);
            self.policies[(s % ns) as usize].on_warp_exit(s);
            let w = &mut self.warps[s as usize];
            w.live = false;
            w.ibuf.clear();
            self.refresh_fetch_need(s);
            self.views[s as usize] = WarpView::default();
            for (a, b) in &mut self.sched_warps {
                a.retain(|&x| x != s);
                b.retain(|&x| x != s);
            }
            self.live_slots.retain(|&x| x != s);
            let d = self.warps[s as usize].dyn_id;
            if let Ok(p) = self.live_by_dyn_id.binary_search(&(d, s)) {
                self.live_by_dyn_id.remove(p);
            }
        }
        if let Some(t) = self.timeline.as_mut() {
            t.cta_retired(c as usize);
        }
        self.cta_barrier[c as usize] = CtaBarrier::default();
        self.used[0] -= cta.slots.len() as u32;
        self.used[1] -= cta.threads;
        self.used[2] -= cta.regs;
        self.used[3] -= cta.smem;
        self.used[4] -= 1;
        self.active = true;
        self.issue_dirty = true;
        cta
    }

    /// Retires CTAs whose warps all exited and drained (at the end of cycle
    /// `now`), recording their warps' state cycles for launch `launch`.
    pub fn retire_ctas(&mut self, now: u64, launch: u32) -> u32 {
        let mut retired = 0;
        if !self.maybe_retire {
            return 0;
        }
        self.maybe_retire = false;
        for c in 0..self.ctas.len() {
            let Some(cta) = &self.ctas[c] else { continue };
            let drained = cta.slots.iter().all(|&s| {
                let w = &self.warps[s as usize];
                w.done && w.outstanding == 0
            });
            if !drained {
                continue;
            }
            let mut cta = self.ctas[c].take().expect("checked");
            for (i, &s) in cta.slots.iter().enumerate() {
                self.charge_until(s, now + 1);
                if let Some(t) = self.timeline.as_mut() {
                    t.retired(s, now + 1);
                }
                let w = &self.warps[s as usize];
                let mut states = StallCounts::default();
                for (k, &cat) in Stall::ALL.iter().enumerate() {
                    states.add(cat, w.state_cycles[k]);
                }
                if self.warp_records.len() >= crate::timing::stats::MAX_WARP_RECORDS_PER_SM {
                    self.warp_records_omitted += 1;
                } else {
                    let (phase_ends, barrier_wait) = cta.phases.take_warp(i);
                    let lived = phase_ends.last().map_or(1, |&e| e + 1 - w.start);
                    self.warp_records.push(WarpRecord {
                        launch,
                        sm: self.id,
                        cta: cta.id,
                        warp: i as u32,
                        start: w.start,
                        end: now + 1,
                        insts: w.insts,
                        states,
                        ready: w.state_cycles[10],
                        barrier_fraction: barrier_wait as f64 / lived.max(1) as f64,
                        phase_ends,
                        barrier_wait,
                    });
                }
                self.warps[s as usize].live = false;
                self.warps[s as usize].ibuf.clear();
                self.refresh_fetch_need(s);
                self.views[s as usize] = WarpView::default();
                for (a, b) in &mut self.sched_warps {
                    a.retain(|&x| x != s);
                    b.retain(|&x| x != s);
                }
                self.live_slots.retain(|&x| x != s);
                let d = self.warps[s as usize].dyn_id;
                if let Ok(p) = self.live_by_dyn_id.binary_search(&(d, s)) {
                    self.live_by_dyn_id.remove(p);
                }
            }
            if let Some(t) = self.timeline.as_mut() {
                t.cta_retired(c);
            }
            self.retired_wgs.push(cta.linear);
            self.spare_ctas.push((
                std::mem::take(&mut cta.warps),
                std::mem::take(&mut cta.shared),
            ));
            self.used[0] -= cta.slots.len() as u32;
            self.used[1] -= cta.threads;
            self.used[2] -= cta.regs;
            self.used[3] -= cta.smem;
            self.used[4] -= 1;
            self.stats.ctas += 1;
            self.active = true;
            self.issue_dirty = true;
            self.progressed = true;
            retired += 1;
        }
        retired
    }
}
