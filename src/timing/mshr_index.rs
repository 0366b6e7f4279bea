//! A summary of the L1D's MSHRs that answers the LD/ST unit's two
//! questions without scanning them: "may any MSHR hold this line?" (a
//! count of MSHRs per hash bucket of their lines: zero means none does)
//! and "which is the first free MSHR?" (a bit per free MSHR).

/// Hash buckets of MSHR lines.
const BUCKETS: usize = 64;

/// Free MSHRs and per-bucket counts of the lines in use.
#[derive(Clone, Debug)]
pub struct MshrIndex {
    /// MSHRs in use per bucket of their line.
    in_bucket: [u16; BUCKETS],
    /// Bit `i % 64` of word `i / 64` set when MSHR `i` is free.
    free: Vec<u64>,
}

impl MshrIndex {
    /// An index of `n` MSHRs, all free.
    pub fn new(n: usize) -> MshrIndex {
        let mut free = vec![0u64; n.div_ceil(64)];
        for i in 0..n {
            free[i / 64] |= 1 << (i % 64);
        }
        MshrIndex {
            in_bucket: [0; BUCKETS],
            free,
        }
    }

    #[inline]
    fn bucket(line: u64) -> usize {
        (line.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize
    }

    /// False when no MSHR holds `line` (true: one may).
    #[inline]
    pub fn may_hold(&self, line: u64) -> bool {
        self.in_bucket[MshrIndex::bucket(line)] != 0
    }

    /// The lowest-numbered free MSHR.
    #[inline]
    pub fn first_free(&self) -> Option<usize> {
        self.free
            .iter()
            .position(|&w| w != 0)
            .map(|k| k * 64 + self.free[k].trailing_zeros() as usize)
    }

    /// MSHR `i` (free) now tracks `line`.
    pub fn allocate(&mut self, i: usize, line: u64) {
        debug_assert!(self.free[i / 64] >> (i % 64) & 1 == 1);
        self.free[i / 64] &= !(1 << (i % 64));
        self.in_bucket[MshrIndex::bucket(line)] += 1;
    }

    /// MSHR `i`, which tracked `line`, is free again.
    pub fn release(&mut self, i: usize, line: u64) {
        debug_assert!(self.free[i / 64] >> (i % 64) & 1 == 0);
        self.free[i / 64] |= 1 << (i % 64);
        self.in_bucket[MshrIndex::bucket(line)] -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the MSHR lines themselves: the first free one is the lowest
    /// unused, and every line in use is reported as possibly held.
    #[test]
    fn agrees_with_a_scan() {
        let n = 70;
        let mut lines = vec![None::<u64>; n];
        let mut index = MshrIndex::new(n);
        let mut rng = crate::workload::generate::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut rnd = |k: u64| rng.below(k);
        for _ in 0..20_000 {
            let i = rnd(n as u64) as usize;
            match lines[i] {
                Some(l) => {
                    index.release(i, l);
                    lines[i] = None;
                }
                None => {
                    let l = rnd(200);
                    index.allocate(i, l);
                    lines[i] = Some(l);
                }
            }
            assert_eq!(index.first_free(), lines.iter().position(Option::is_none));
            for l in lines.iter().flatten() {
                assert!(index.may_hold(*l));
            }
            // A line sharing no bucket with a line in use is reported
            // absent (the filter prunes).
            for l in 0..200u64 {
                let shared = lines
                    .iter()
                    .flatten()
                    .any(|&u| MshrIndex::bucket(u) == MshrIndex::bucket(l));
                assert_eq!(index.may_hold(l), shared);
            }
        }
    }
}
