//! Synchronization-aware warp scheduling as the BAWS paper compares it
//! [Liu, Yang and Melhem, "SAWS: Synchronization Aware GPGPU Warp
//! Scheduling for Multiple Independent Warp Schedulers", MICRO 2015; BAWS
//! ICS 2016 §6.6].
//!
//! CTAs with warps waiting at a barrier go first, ordered by the cycle
//! their *first* warp hit that barrier, earliest first (ties: the older
//! CTA); the priority lasts until the barrier releases. Inside each such
//! CTA and among all other warps the order is GTO: the warp this scheduler
//! issued last, then the oldest. The arrival cycles come from the SM-wide
//! warp view, so both schedulers of an SM rank CTAs alike. The BAWS paper's
//! Fig. 13 contrasts this with most-waiting-first ([`crate::sched::mwf`]):
//! a CTA that hits its barrier first keeps the lead even when another has
//! more warps waiting.

use crate::sched::mwf::{CtaRun, ctas_of};
use crate::sched::{IssuePolicy, Issued, SchedView};
use crate::timing::units::TimingInst;

/// The `saws` policy.
#[derive(Debug, Default)]
pub struct Saws {
    last: Option<u32>,
    ctas: Vec<CtaRun>,
}

impl IssuePolicy for Saws {
    fn orders_every_warp(&self) -> bool {
        true
    }

    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        let mut ctas = std::mem::take(&mut self.ctas);
        ctas_of(view, &mut ctas);
        let greedy = self.last.filter(|l| view.by_slot.binary_search(l).is_ok());
        // Greedy first, then the rest in age order (a CTA's warps are in
        // slot order, which is their age order).
        let gto = |members: &[u32], out: &mut Vec<u32>| match greedy.filter(|g| members.contains(g))
        {
            Some(g) => {
                out.push(g);
                out.extend(members.iter().copied().filter(|&w| w != g));
            }
            None => out.extend_from_slice(members),
        };
        // CTAs at a barrier by first-hit cycle; stable, so ties keep age
        // order (and the others, `u64::MAX`, come last in age order).
        ctas.sort_by_key(|c| c.first_hit);
        let waiting = ctas.iter().take_while(|c| c.waiting > 0).count();
        for c in &ctas[..waiting] {
            gto(c.members(view), out);
        }
        // The rest: GTO over the warps of CTAs without waiting warps.
        if waiting < ctas.len() {
            let start = out.len();
            for c in &ctas[waiting..] {
                out.extend_from_slice(c.members(view));
            }
            if let Some(g) = greedy
                && let Some(p) = out[start..].iter().position(|&w| w == g)
            {
                out[start..=start + p].rotate_right(1);
            }
        }
        self.ctas = ctas;
    }

    fn on_issue(&mut self, slot: u32, _view: &SchedView<'_>, _inst: &TimingInst, _what: &Issued) {
        self.last = Some(slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::WarpView;
    use crate::sched::mwf::tests::{issue, order_with, table, view_of};
    use crate::sched::mwf::{Mwf, WithinCta};

    /// The CTA of the first warp of `order`.
    fn first_cta(order: &[u32], info: &[WarpView]) -> u32 {
        info[order[0] as usize].cta
    }

    #[test]
    fn fig13_saws_keeps_the_first_hit_cta_and_baws_follows_the_most_waiting() {
        // Three CTAs of four warps. t0 = 100: one warp of TB0 waits;
        // t1 = 200: two of TB1; t2 = 300: three of TB2.
        let mut info = view_of(3, 4);
        let (mut saws, mut mwf) = (Saws::default(), Mwf::new(WithinCta::Gto));
        info[1].at_barrier = true;
        let t = table(&info, &[100]);
        assert_eq!(first_cta(&order_with(&mut saws, &info, &t, 100), &info), 0);
        assert_eq!(first_cta(&order_with(&mut mwf, &info, &t, 100), &info), 0);
        for s in [4, 6] {
            info[s].at_barrier = true;
        }
        let t = table(&info, &[100, 200]);
        assert_eq!(first_cta(&order_with(&mut saws, &info, &t, 200), &info), 0);
        assert_eq!(first_cta(&order_with(&mut mwf, &info, &t, 200), &info), 1);
        for s in [8, 9, 11] {
            info[s].at_barrier = true;
        }
        let t = table(&info, &[100, 200, 300]);
        let saws_order = order_with(&mut saws, &info, &t, 300);
        assert_eq!(saws_order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        let mwf_order = order_with(&mut mwf, &info, &t, 300);
        assert_eq!(mwf_order, [8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]);
    }

    #[test]
    fn first_hit_time_not_age_decides_and_the_rest_is_gto() {
        // TB2 hit its barrier at 50, TB1 at 60; TB0 waits on nothing.
        let mut info = view_of(3, 2);
        for s in [5, 2, 3] {
            info[s].at_barrier = true;
        }
        let t = table(&info, &[0, 60, 50]);
        let mut saws = Saws::default();
        assert_eq!(order_with(&mut saws, &info, &t, 80), [4, 5, 2, 3, 0, 1]);
        // The greedy warp leads its group: in a prioritized CTA it leads
        // that CTA, elsewhere it leads the rest.
        issue(&mut saws, &info, 1);
        assert_eq!(order_with(&mut saws, &info, &t, 81), [4, 5, 2, 3, 1, 0]);
        issue(&mut saws, &info, 3);
        assert_eq!(order_with(&mut saws, &info, &t, 82), [4, 5, 3, 2, 0, 1]);
        // Equal first-hit cycles: the older CTA first.
        let t = table(&info, &[0, 60, 60]);
        assert_eq!(order_with(&mut saws, &info, &t, 83), [3, 2, 4, 5, 0, 1]);
        // The barriers released: plain GTO.
        for s in [2, 3, 5] {
            info[s].at_barrier = false;
        }
        let t = table(&info, &[0, 60, 60]);
        assert_eq!(order_with(&mut saws, &info, &t, 90), [3, 0, 1, 2, 4, 5]);
    }
}
