//! Block-latency warp scheduling, `blws` [Vo, Luan, Kim, "Block-Latency
//! Warp Scheduling for GPGPUs" (KIPS Trans. Computer and Communication
//! Systems), §4.2, Alg. 1].
//!
//! Every warp counts the cycles it has stalled on control, data (RAW on
//! the scoreboard) and structural hazards since it arrived (Alg. 1 step 1;
//! the SM's per-warp state accounting provides the count). Inside a CTA,
//! warps go by that count, most first — the "L-warps" whose long
//! latencies then overlap each other before the "S-warps" (step 2–3, the
//! paper's sort in descending order); ties by slot. CTAs are visited round
//! robin by CTA slot, starting after the CTA of the warp issued last.

use crate::sched::{IssuePolicy, Issued, SchedView};
use crate::timing::units::TimingInst;

/// The `blws` issue policy.
#[derive(Debug, Default)]
pub struct Blws {
    /// CTA slot of the warp issued last.
    last_cta: Option<u32>,
    /// Scratch: (CTA rank, stall cycles reversed, slot) per warp.
    keys: Vec<(u32, std::cmp::Reverse<u64>, u32)>,
}

impl IssuePolicy for Blws {
    fn orders_every_warp(&self) -> bool {
        true
    }
    fn wants_detail(&self) -> bool {
        true
    }
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        // CTA slots from the one after the last issued CTA, then wrapping.
        let start = self.last_cta.map_or(0, |c| c + 1);
        self.keys.clear();
        for &w in view.by_slot {
            let cta = view.info[w as usize].cta;
            let rank = if cta >= start {
                cta - start
            } else {
                u32::MAX / 2 + cta
            };
            let stalls = view.detail.get(w as usize).map_or(0, |d| d.stall_cycles);
            self.keys.push((rank, std::cmp::Reverse(stalls), w));
        }
        self.keys.sort_unstable();
        out.extend(self.keys.iter().map(|k| k.2));
    }
    fn on_issue(&mut self, slot: u32, view: &SchedView<'_>, _i: &TimingInst, _w: &Issued) {
        self.last_cta = view.info.get(slot as usize).map(|i| i.cta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::{WarpDetail, WarpView};

    /// Two CTAs of three warps each (slots 0–2 in CTA 0, 3–5 in CTA 1).
    fn info() -> Vec<WarpView> {
        (0..6)
            .map(|s| WarpView {
                live: true,
                cta: s / 3,
                ..WarpView::default()
            })
            .collect()
    }

    fn order(p: &mut Blws, info: &[WarpView], stalls: &[u64]) -> Vec<u32> {
        let ids: Vec<u32> = (0..info.len() as u32).collect();
        let detail: Vec<WarpDetail> = stalls
            .iter()
            .map(|&s| WarpDetail {
                stall_cycles: s,
                head_blocked: false,
            })
            .collect();
        let view = SchedView {
            warps: &ids,
            by_slot: &ids,
            info,
            detail: &detail,
            ..SchedView::default()
        };
        let mut out = Vec::new();
        p.order(&view, &mut out);
        out
    }

    fn issue(p: &mut Blws, info: &[WarpView], slot: u32) {
        let view = SchedView {
            info,
            ..SchedView::default()
        };
        p.on_issue(
            slot,
            &view,
            &crate::sched::test_inst(false),
            &Issued::default(),
        );
    }

    #[test]
    fn most_stalled_warps_lead_their_cta() {
        let mut p = Blws::default();
        let v = info();
        // CTA 0: warp 1 stalled most, then 2, then 0. CTA 1: 5, then 3 and
        // 4 tied (by slot).
        assert_eq!(
            order(&mut p, &v, &[10, 300, 20, 7, 7, 90]),
            vec![1, 2, 0, 5, 3, 4]
        );
    }

    #[test]
    fn ctas_go_round_robin_from_the_last_issued_cta() {
        let mut p = Blws::default();
        let v = info();
        let stalls = [0, 5, 0, 0, 0, 9];
        issue(&mut p, &v, 1);
        assert_eq!(order(&mut p, &v, &stalls), vec![5, 3, 4, 1, 0, 2]);
        issue(&mut p, &v, 5);
        assert_eq!(order(&mut p, &v, &stalls), vec![1, 0, 2, 5, 3, 4]);
    }
}
