//! A summary of the L1D's MSHRs that answers the LD/ST unit's two
//! questions without scanning them: "which MSHRs may hold this line?" (per
//! hash bucket of their lines, a bit per MSHR in use: a miss looks only at
//! the MSHRs of its line's bucket, lowest-numbered first) and "which is
//! the first free MSHR?" (a bit per free MSHR).

/// Hash buckets of MSHR lines (several times the usual MSHR count, so a
/// bucket rarely holds an MSHR of another line).
const BUCKETS: usize = 256;

/// Free MSHRs and, per bucket, the MSHRs whose lines fall in it.
#[derive(Clone, Debug)]
pub struct MshrIndex {
    /// 64-bit words per bitmap (one bit per MSHR).
    words: usize,
    /// Bucket `b`'s bitmap: words `b * words .. (b + 1) * words`; bit `i`
    /// set while MSHR `i` tracks a line of the bucket.
    in_bucket: Vec<u64>,
    /// Bit `i % 64` of word `i / 64` set when MSHR `i` is free.
    free: Vec<u64>,
}

impl MshrIndex {
    /// An index of `n` MSHRs, all free.
    pub fn new(n: usize) -> MshrIndex {
        let words = n.div_ceil(64).max(1);
        let mut free = vec![0u64; words];
        for i in 0..n {
            free[i / 64] |= 1 << (i % 64);
        }
        MshrIndex {
            words,
            in_bucket: vec![0; BUCKETS * words],
            free,
        }
    }

    #[inline]
    fn bucket(line: u64) -> usize {
        (line.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize
    }

    /// The MSHRs that may hold `line` (every MSHR that does, and perhaps
    /// others of its bucket), in increasing order.
    #[inline]
    pub fn candidates(&self, line: u64) -> impl Iterator<Item = usize> + '_ {
        let b = MshrIndex::bucket(line) * self.words;
        self.in_bucket[b..b + self.words]
            .iter()
            .enumerate()
            .flat_map(|(k, &w)| {
                let mut w = w;
                std::iter::from_fn(move || {
                    (w != 0).then(|| {
                        let i = w.trailing_zeros() as usize;
                        w &= w - 1;
                        k * 64 + i
                    })
                })
            })
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
        self.in_bucket[MshrIndex::bucket(line) * self.words + i / 64] |= 1 << (i % 64);
    }

    /// MSHR `i`, which tracked `line`, is free again.
    pub fn release(&mut self, i: usize, line: u64) {
        debug_assert!(self.free[i / 64] >> (i % 64) & 1 == 0);
        self.free[i / 64] |= 1 << (i % 64);
        self.in_bucket[MshrIndex::bucket(line) * self.words + i / 64] &= !(1 << (i % 64));
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
                assert!(index.candidates(*l).next().is_some());
            }
            // The candidates of a line: ascending, and among them every
            // MSHR that holds it.
            for l in 0..200u64 {
                let c: Vec<usize> = index.candidates(l).collect();
                assert!(c.windows(2).all(|w| w[0] < w[1]));
                let holders: Vec<usize> = (0..n).filter(|&i| lines[i] == Some(l)).collect();
                assert_eq!(
                    c.iter()
                        .copied()
                        .filter(|&i| lines[i] == Some(l))
                        .collect::<Vec<_>>(),
                    holders
                );
            }
            // A line sharing no bucket with a line in use is reported
            // absent (the filter prunes).
            for l in 0..200u64 {
                let shared = lines
                    .iter()
                    .flatten()
                    .any(|&u| MshrIndex::bucket(u) == MshrIndex::bucket(l));
                assert_eq!(index.candidates(l).next().is_some(), shared);
            }
        }
    }
}
