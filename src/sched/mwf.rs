//! Most-waiting-first warp scheduling, the issue half of barrier-aware warp
//! scheduling [Liu et al., "Barrier-Aware Warp Scheduling for Throughput
//! Processors", ICS 2016, §4.1].
//!
//! CTAs (the paper's thread blocks, TBs) are ordered by the number of
//! their warps waiting at a barrier, most first — the paper's warp
//! priority table (WPT), one counter per CTA, raised when a warp arrives
//! and cleared when the barrier releases. Ties go to the older CTA (the
//! smaller CTA id in the grid: CTAs reach an SM in grid order, one per
//! cycle at most). Inside a CTA the warps are ordered by LRR, from the warp
//! after the one this scheduler issued last in that CTA (`mwf-lrr`), or by
//! GTO, that warp first and then the oldest, i.e. the smallest warp id
//! (`mwf-gto`). Without barriers every CTA has priority 0 and the order is
//! CTA age, then LRR or GTO inside the CTA (the paper's §6.5).
//!
//! The counters are read from the SM-wide warp view, so the two schedulers
//! of an SM share one priority list, as the paper's §4.1 prescribes.

use crate::sched::{IssuePolicy, Issued, SchedView};
use crate::timing::units::TimingInst;

/// How warps of one CTA are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WithinCta {
    /// Loose round robin from the warp after the CTA's last issued one.
    Lrr,
    /// Greedy then oldest: the CTA's last issued warp, then by age.
    Gto,
}

/// One CTA of a scheduler's warps, as the CTA-level policies sort them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CtaRun {
    /// CTA slot on the SM.
    pub cta: u32,
    /// Its warps (of the whole SM) waiting at a barrier.
    pub waiting: u32,
    /// The cycle the first of them arrived (`u64::MAX`: none waits).
    pub first_hit: u64,
    /// Its warps are `view.warps[start..end]`, in slot order.
    pub start: u32,
    /// See `start`.
    pub end: u32,
}

impl CtaRun {
    /// The CTA's warps of this scheduler, in slot order.
    pub fn members<'a>(&self, view: &SchedView<'a>) -> &'a [u32] {
        &view.warps[self.start as usize..self.end as usize]
    }
}

/// The CTAs of `view`'s warps in age order, into `out` (cleared first),
/// with their barrier state from `view.cta_barrier`. An SM receives at most
/// one CTA per cycle, so CTAs have distinct ages and each CTA's warps are
/// one run of `view.warps` (age, then slot order): linear in the warps.
pub(crate) fn ctas_of(view: &SchedView<'_>, out: &mut Vec<CtaRun>) {
    out.clear();
    let mut age = 0;
    for (i, &w) in view.warps.iter().enumerate() {
        let info = &view.info[w as usize];
        match out.last_mut() {
            Some(r) if r.cta == info.cta && age == info.age => r.end = i as u32 + 1,
            _ => {
                age = info.age;
                let b = view
                    .cta_barrier
                    .get(info.cta as usize)
                    .copied()
                    .unwrap_or_default();
                out.push(CtaRun {
                    cta: info.cta,
                    waiting: b.waiting,
                    first_hit: if b.waiting > 0 { b.first_hit } else { u64::MAX },
                    start: i as u32,
                    end: i as u32 + 1,
                });
            }
        }
    }
}

/// The `mwf-lrr` and `mwf-gto` policies (and `baws`, which is `mwf-gto`
/// with the `cff` fetch policy).
#[derive(Debug)]
pub struct Mwf {
    within: WithinCta,
    /// Per CTA slot: the warp this scheduler issued last in that CTA.
    last_in_cta: Vec<Option<u32>>,
    ctas: Vec<CtaRun>,
}

impl Mwf {
    /// Most-waiting-first with `within` inside each CTA.
    pub fn new(within: WithinCta) -> Mwf {
        Mwf {
            within,
            last_in_cta: Vec::new(),
            ctas: Vec::new(),
        }
    }

    fn last_of(&self, cta: u32) -> Option<u32> {
        self.last_in_cta.get(cta as usize).copied().flatten()
    }
}

impl IssuePolicy for Mwf {
    fn orders_every_warp(&self) -> bool {
        true
    }

    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        let mut ctas = std::mem::take(&mut self.ctas);
        ctas_of(view, &mut ctas);
        // Most waiting first; the sort is stable, so ties keep age order.
        ctas.sort_by_key(|c| std::cmp::Reverse(c.waiting));
        for c in &ctas {
            let last = self.last_of(c.cta);
            let members = c.members(view);
            match self.within {
                WithinCta::Lrr => {
                    // From the member after `last` (by slot), wrapping.
                    let start = match last {
                        Some(l) => members.iter().position(|&w| w > l).unwrap_or(0),
                        None => 0,
                    };
                    out.extend_from_slice(&members[start..]);
                    out.extend_from_slice(&members[..start]);
                }
                WithinCta::Gto => {
                    // A CTA's warps share one age: oldest = smallest slot.
                    match last.filter(|l| members.binary_search(l).is_ok()) {
                        Some(g) => {
                            out.push(g);
                            out.extend(members.iter().copied().filter(|&w| w != g));
                        }
                        None => out.extend_from_slice(members),
                    }
                }
            }
        }
        self.ctas = ctas;
    }

    fn on_issue(&mut self, slot: u32, view: &SchedView<'_>, _inst: &TimingInst, _what: &Issued) {
        let cta = view.info[slot as usize].cta as usize;
        if self.last_in_cta.len() <= cta {
            self.last_in_cta.resize(cta + 1, None);
        }
        self.last_in_cta[cta] = Some(slot);
    }

    fn on_warp_start(&mut self, slot: u32) {
        // A new CTA in the slot: its warp has issued nothing yet.
        for l in &mut self.last_in_cta {
            if *l == Some(slot) {
                *l = None;
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sched::{CtaBarrier, WarpView};

    /// A one-scheduler view of `ctas` CTAs of `per` warps each: CTA `c`
    /// holds slots `c*per .. (c+1)*per`, assigned at cycle `c`.
    pub(crate) fn view_of(ctas: u32, per: u32) -> Vec<WarpView> {
        (0..ctas * per)
            .map(|s| WarpView {
                live: true,
                age: u64::from(s / per),
                cta: s / per,
                ..WarpView::default()
            })
            .collect()
    }

    /// The SM's barrier table for `info`: waiting warps counted per CTA,
    /// first arrivals from `first_hit` (by CTA slot).
    pub(crate) fn table(info: &[WarpView], first_hit: &[u64]) -> Vec<CtaBarrier> {
        let n = info.iter().map(|i| i.cta + 1).max().unwrap_or(0) as usize;
        let mut t = vec![CtaBarrier::default(); n];
        for i in info.iter().filter(|i| i.live && i.at_barrier) {
            t[i.cta as usize].waiting += 1;
        }
        for (c, &h) in first_hit.iter().enumerate() {
            t[c].first_hit = h;
        }
        t
    }

    /// `policy`'s order over every slot of `info` (one scheduler) with
    /// barrier table `bars`.
    pub(crate) fn order_with(
        policy: &mut dyn IssuePolicy,
        info: &[WarpView],
        bars: &[CtaBarrier],
        now: u64,
    ) -> Vec<u32> {
        let slots: Vec<u32> = (0..info.len() as u32).collect();
        let mut ages = slots.clone();
        ages.sort_by_key(|&s| (info[s as usize].age, s));
        let view = SchedView {
            now,
            warps: &ages,
            by_slot: &slots,
            info,
            cta_barrier: bars,
            detail: &[],
        };
        let mut out = Vec::new();
        policy.order(&view, &mut out);
        out
    }

    /// `policy`'s order with the barrier table of `info` (first arrivals
    /// all at cycle 0).
    pub(crate) fn order_of(policy: &mut dyn IssuePolicy, info: &[WarpView], now: u64) -> Vec<u32> {
        order_with(policy, info, &table(info, &[]), now)
    }

    /// Tells `policy` that `slot` issued an SP instruction.
    pub(crate) fn issue(policy: &mut dyn IssuePolicy, info: &[WarpView], slot: u32) {
        let slots: Vec<u32> = (0..info.len() as u32).collect();
        let view = SchedView {
            now: 0,
            warps: &slots,
            by_slot: &slots,
            info,
            cta_barrier: &[],
            detail: &[],
        };
        let inst = TimingInst {
            unit: crate::timing::units::Unit::Sp,
            latency: 1,
            initiation: 1,
            hazards: Default::default(),
            writes: Default::default(),
            reads: Box::new([]),
            dests: Box::new([]),
            nanosleep: false,
            long_mem: false,
            long_op: false,
            l1d_load: false,
            texture: false,
            space: Default::default(),
            control: false,
        };
        policy.on_issue(slot, &view, &inst, &Issued::default());
    }

    fn wait(info: &mut [WarpView], slot: u32) {
        info[slot as usize].at_barrier = true;
    }

    #[test]
    fn without_barriers_ctas_go_by_age_and_warps_by_the_inner_policy() {
        let info = view_of(2, 3);
        let mut gto = Mwf::new(WithinCta::Gto);
        assert_eq!(order_of(&mut gto, &info, 0), [0, 1, 2, 3, 4, 5]);
        // Greedy inside each CTA: CTA 1's last issued warp leads CTA 1
        // only, CTA 0 still goes first.
        issue(&mut gto, &info, 4);
        assert_eq!(order_of(&mut gto, &info, 1), [0, 1, 2, 4, 3, 5]);
        issue(&mut gto, &info, 1);
        assert_eq!(order_of(&mut gto, &info, 2), [1, 0, 2, 4, 3, 5]);

        let mut lrr = Mwf::new(WithinCta::Lrr);
        issue(&mut lrr, &info, 1);
        issue(&mut lrr, &info, 5);
        // CTA 0 from the warp after 1; CTA 1 wraps after 5 to 3.
        assert_eq!(order_of(&mut lrr, &info, 0), [2, 0, 1, 3, 4, 5]);
    }

    #[test]
    fn the_cta_with_most_waiting_warps_goes_first_ties_by_age() {
        // The paper's Fig. 7: TB0 w0-w3 with one waiting, TB1 w4-w7 with
        // two, TB2 w8-w11 with three. MWF(LRR) with w7 issued last in TB1
        // and w0 in TB0 gives w8, w4, w6, w1, w3, w0 among the running.
        let mut info = view_of(3, 4);
        for s in [2, 5, 7, 9, 10, 11] {
            wait(&mut info, s);
        }
        let mut lrr = Mwf::new(WithinCta::Lrr);
        issue(&mut lrr, &info, 0);
        issue(&mut lrr, &info, 7);
        let order = order_of(&mut lrr, &info, 20);
        let running: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&w| !info[w as usize].at_barrier)
            .collect();
        assert_eq!(running, [8, 4, 6, 1, 3, 0]);
        // Every warp is listed, the waiting ones in their CTA's place.
        assert_eq!(order, [8, 9, 10, 11, 4, 5, 6, 7, 1, 2, 3, 0]);

        // Equal counts: the older CTA first.
        let mut info = view_of(3, 2);
        wait(&mut info, 5);
        wait(&mut info, 3);
        let mut gto = Mwf::new(WithinCta::Gto);
        assert_eq!(order_of(&mut gto, &info, 5), [2, 3, 4, 5, 0, 1]);
    }

    #[test]
    fn a_new_cta_in_a_slot_forgets_the_old_greedy_warp() {
        let info = view_of(1, 3);
        let mut gto = Mwf::new(WithinCta::Gto);
        issue(&mut gto, &info, 2);
        assert_eq!(order_of(&mut gto, &info, 0), [2, 0, 1]);
        gto.on_warp_start(2);
        assert_eq!(order_of(&mut gto, &info, 0), [0, 1, 2]);
    }
}
