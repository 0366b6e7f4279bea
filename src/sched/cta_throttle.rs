//! CTA policy `throttle`: BLWS's SM throttling [Vo, Luan, Kim, "Block-
//! Latency Warp Scheduling for GPGPUs", §4.2, Alg. 2].
//!
//! At every assignment round (a cycle in which CTAs remain and an SM has
//! room) the policy computes the contention degree since the previous
//! round, `(Δ DRAM-full stalls + Δ interconnect-to-SM stalls) / Δ cycles`,
//! and compares it with the previous round's: if it rose and more than two
//! SMs take new CTAs, one fewer SM does; if it fell, one more does (up to
//! every SM); otherwise the number stays. The SMs that take new CTAs are
//! the lowest-numbered ones, served round robin as by `rr`; the others
//! keep running the CTAs they hold.

use crate::sched::{Contention, CtaPolicy, SmView};

/// The `throttle` CTA policy.
#[derive(Debug, Default)]
pub struct CtaThrottle {
    /// SMs that take new CTAs (0 until the first round sets it to all).
    issuing: usize,
    /// Counters and cycle at the previous round.
    last: Contention,
    last_cycle: u64,
    /// The previous round's contention degree as (stalls, cycles).
    last_degree: (u64, u64),
    /// Round-robin position among the issuing SMs.
    next: usize,
}

impl CtaThrottle {
    /// SMs that take new CTAs now.
    pub fn issuing(&self) -> usize {
        self.issuing
    }

    /// Alg. 2 lines 7–23 at cycle `now` on a GPU of `sms` SMs.
    fn update(&mut self, now: u64, sms: usize, c: Contention) {
        if self.issuing == 0 {
            self.issuing = sms;
        }
        let dc = now.saturating_sub(self.last_cycle);
        if dc == 0 {
            return;
        }
        let stalls = c.dram_full.saturating_sub(self.last.dram_full)
            + c.icnt_to_sm.saturating_sub(self.last.icnt_to_sm);
        // Compare stalls / dc with the last degree without rounding.
        let (ls, lc) = self.last_degree;
        let now_side = u128::from(stalls) * u128::from(lc.max(1));
        let last_side = u128::from(ls) * u128::from(dc);
        if now_side > last_side && self.issuing > 2 {
            self.issuing -= 1;
        } else if now_side < last_side && self.issuing < sms {
            self.issuing += 1;
        }
        self.last = c;
        self.last_cycle = now;
        self.last_degree = (stalls, dc);
    }
}

impl CtaPolicy for CtaThrottle {
    fn assign(&mut self, now: u64, sms: &[SmView], c: Contention, out: &mut Vec<usize>) {
        let n = sms.len();
        self.update(now, n, c);
        let k = self.issuing.min(n).max(1);
        for i in 0..k {
            let s = (self.next + i) % k;
            if sms[s].fits {
                out.push(s);
            }
        }
        if let Some(&last) = out.last() {
            self.next = (last + 1) % k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(p: &mut CtaThrottle, now: u64, dram_full: u64, icnt: u64, n: usize) -> Vec<usize> {
        let sms = vec![
            SmView {
                fits: true,
                ctas: 0
            };
            n
        ];
        let mut out = Vec::new();
        p.assign(
            now,
            &sms,
            Contention {
                dram_full,
                icnt_to_sm: icnt,
            },
            &mut out,
        );
        out
    }

    #[test]
    fn steps_down_while_contention_rises_and_up_when_it_falls() {
        let mut p = CtaThrottle::default();
        // First round at cycle 0: every SM takes CTAs.
        assert_eq!(round(&mut p, 0, 0, 0, 4), vec![0, 1, 2, 3]);
        assert_eq!(p.issuing(), 4);
        // Degree 0 -> 10/100: rose, one SM fewer.
        assert_eq!(round(&mut p, 100, 6, 4, 4), vec![0, 1, 2]);
        // 10/100 -> 30/100: rose again, down to two...
        round(&mut p, 200, 26, 14, 4);
        assert_eq!(p.issuing(), 2);
        // ...but never below two.
        round(&mut p, 300, 126, 14, 4);
        assert_eq!(p.issuing(), 2);
        // 100/100 -> 5/50: fell, one more.
        round(&mut p, 350, 128, 17, 4);
        assert_eq!(p.issuing(), 3);
        // 5/50 -> 10/100: the same degree, unchanged.
        round(&mut p, 450, 133, 22, 4);
        assert_eq!(p.issuing(), 3);
        // Falls to 0: back to all four, and no further.
        round(&mut p, 460, 133, 22, 4);
        assert_eq!(p.issuing(), 4);
        round(&mut p, 470, 133, 22, 4);
        assert_eq!(p.issuing(), 4);
    }

    #[test]
    fn only_the_issuing_sms_receive_ctas_round_robin() {
        let mut p = CtaThrottle::default();
        round(&mut p, 0, 0, 0, 4);
        round(&mut p, 10, 10, 0, 4);
        assert_eq!(p.issuing(), 3);
        // SMs 0-2 only (SM 3 fits but is throttled); SM 1 is full.
        let sms = [
            SmView {
                fits: true,
                ctas: 1,
            },
            SmView {
                fits: false,
                ctas: 2,
            },
            SmView {
                fits: true,
                ctas: 1,
            },
            SmView {
                fits: true,
                ctas: 0,
            },
        ];
        let mut out = Vec::new();
        p.assign(
            10,
            &sms,
            Contention {
                dram_full: 10,
                icnt_to_sm: 0,
            },
            &mut out,
        );
        assert_eq!(out, vec![0, 2]);
    }

    #[test]
    fn a_two_sm_gpu_is_never_throttled() {
        let mut p = CtaThrottle::default();
        round(&mut p, 0, 0, 0, 2);
        round(&mut p, 10, 50, 50, 2);
        assert_eq!(p.issuing(), 2);
    }
}
