//! CTA policy `rr`: round robin over the SMs, starting after the SM served
//! last, one CTA per SM per cycle while it fits (GPGPU-Sim's default;
//! SCHEDULERS.md "CTA policies").

use crate::sched::{Contention, CtaPolicy, SmView};

/// The `rr` CTA policy.
#[derive(Debug, Default)]
pub struct CtaRoundRobin {
    next: usize,
}

impl CtaPolicy for CtaRoundRobin {
    fn assign(&mut self, _now: u64, sms: &[SmView], _c: Contention, out: &mut Vec<usize>) {
        let n = sms.len();
        for i in 0..n {
            let s = (self.next + i) % n;
            if sms[s].fits {
                out.push(s);
            }
        }
        if let Some(&last) = out.last() {
            self.next = (last + 1) % n;
        }
    }
}
