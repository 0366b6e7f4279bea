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
pub(crate) struct CtaKey {
    /// CTA slot on the SM.
    pub cta: u32,
    /// Its assignment cycle (its warps' age).
    pub age: u64,
    /// Its warps (of the whole SM) waiting at a barrier.
    pub waiting: u32,
    /// The earliest arrival cycle among those warps (`u64::MAX`: none).
    pub first_hit: u64,
}

/// The CTAs of `view`'s warps in age order (then CTA slot), with their
/// barrier counts over every warp of the SM, into `out` (cleared first).
pub(crate) fn ctas_of(view: &SchedView<'_>, out: &mut Vec<CtaKey>) {
    out.clear();
    for &w in view.warps {
        let i = &view.info[w as usize];
        if !out.iter().any(|c| c.cta == i.cta) {
            out.push(CtaKey {
                cta: i.cta,
                age: i.age,
                waiting: 0,
                first_hit: u64::MAX,
            });
        }
    }
    for i in view.info {
        if i.live
            && i.at_barrier
            && let Some(c) = out.iter_mut().find(|c| c.cta == i.cta)
        {
            c.waiting += 1;
            c.first_hit = c.first_hit.min(i.barrier_since);
        }
    }
    out.sort_by(|a, b| a.age.cmp(&b.age).then(a.cta.cmp(&b.cta)));
}

/// The `mwf-lrr` and `mwf-gto` policies (and `baws`, which is `mwf-gto`
/// with the `cff` fetch policy).
#[derive(Debug)]
pub struct Mwf {
    within: WithinCta,
    /// Per CTA slot: the warp this scheduler issued last in that CTA.
    last_in_cta: Vec<Option<u32>>,
    ctas: Vec<CtaKey>,
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
            let members = view
                .by_slot
                .iter()
                .copied()
                .filter(|&w| view.info[w as usize].cta == c.cta);
            match self.within {
                WithinCta::Lrr => {
                    // From the member after `last` (by slot), wrapping.
                    let start = out.len();
                    out.extend(members);
                    let k = match last {
                        Some(l) => out[start..].iter().position(|&w| w > l).unwrap_or(0),
                        None => 0,
                    };
                    out[start..].rotate_left(k);
                }
                WithinCta::Gto => {
                    // A CTA's warps share one age: oldest = smallest slot.
                    let greedy = last.filter(|l| view.by_slot.binary_search(l).is_ok());
                    out.extend(greedy);
                    out.extend(members.filter(|&w| Some(w) != greedy));
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
    use crate::sched::WarpView;

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

    /// `policy`'s order over every slot of `info` (one scheduler).
    pub(crate) fn order_of(policy: &mut dyn IssuePolicy, info: &[WarpView], now: u64) -> Vec<u32> {
        let slots: Vec<u32> = (0..info.len() as u32).collect();
        let mut ages = slots.clone();
        ages.sort_by_key(|&s| (info[s as usize].age, s));
        let view = SchedView {
            now,
            warps: &ages,
            by_slot: &slots,
            info,
        };
        let mut out = Vec::new();
        policy.order(&view, &mut out);
        out
    }

    /// Tells `policy` that `slot` issued an SP instruction.
    pub(crate) fn issue(policy: &mut dyn IssuePolicy, info: &[WarpView], slot: u32) {
        let slots: Vec<u32> = (0..info.len() as u32).collect();
        let view = SchedView {
            now: 0,
            warps: &slots,
            by_slot: &slots,
            info,
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
            l1d_load: false,
            space: Default::default(),
            control: false,
        };
        policy.on_issue(slot, &view, &inst, &Issued::default());
    }

    fn wait(info: &mut [WarpView], slot: u32, since: u64) {
        info[slot as usize].at_barrier = true;
        info[slot as usize].barrier_since = since;
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
            wait(&mut info, s, 10);
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
        wait(&mut info, 5, 3);
        wait(&mut info, 3, 4);
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
