//! Counting Bloom filter of the values written to one monitored address
//! (AWG paper, Section V.A: "one counting Bloom filter per monitored address
//! to count the number [of] unique updates"; Section V.C: 512 filters of 24
//! bits with 6 hash functions, "a small false positives probability (2.1%)").
//!
//! Hashing: the `k` hash functions are Carter–Wegman universal hashes
//! `h_i(x) = ((a_i·x + b_i) mod p) mod m` with the Mersenne prime
//! `p = 2^61 − 1` and fixed parameters `a_i ∈ [1, p)`, `b_i ∈ [0, p)` derived
//! deterministically from `i` by SplitMix64 (see [`hash_params`]), so every
//! run and every filter uses the same functions. The same family hashes the
//! SyncMon condition cache's set index (the paper cites a universal hash
//! there too).
//!
//! False positives: after `n` distinct values are inserted into `m` counters
//! with `k` hashes, a value not inserted is reported as present with
//! probability ≈ `(1 − e^{−kn/m})^k`. For the paper's `m = 24`, `k = 6` that
//! is 0.37% for `n = 2` and 2.16% for `n = 3`: the paper's 2.1% figure is the
//! `n = 3` point, i.e. the chance that a fourth unique value goes unnoticed
//! once three have been seen. (With exact rather than Poisson-approximated
//! occupancy the expectation is a little higher, 0.50% and 2.78%; the tests
//! check both.) A false positive makes [`CountingBloom::insert`] miss a new
//! value, so [`CountingBloom::unique`] can only under-count.
//!
//! Counters are 4 bits wide as in a classic counting Bloom filter: they
//! saturate at 15 and are stored one per byte.

/// The Mersenne prime `2^61 − 1`, modulus of the universal hash family.
pub const MERSENNE_61: u64 = (1 << 61) - 1;

/// Largest value a 4-bit counter holds (counters saturate here).
pub const COUNTER_MAX: u8 = 15;

/// Seed from which [`hash_params`] derives the hash functions' parameters.
const PARAM_SEED: u64 = 0x5EED_0A36_F00D_2021;

/// `x mod (2^61 − 1)` for any 128-bit `x`, by folding the high bits.
fn mod_mersenne61(x: u128) -> u64 {
    let p = MERSENNE_61 as u128;
    let s = (x & p) + (x >> 61); // < 2^61 + 2^67
    let s = (s & p) + (s >> 61); // < 2^61 + 2^7
    let s = s as u64;
    if s >= MERSENNE_61 { s - MERSENNE_61 } else { s }
}

/// Carter–Wegman universal hash `((a·x + b) mod (2^61 − 1)) mod m` (Section
/// V.C cites a universal hash). `x` is first reduced modulo `2^61 − 1`; `a` and
/// `b` are used as given (callers pass [`hash_params`]). Returns 0 when `m` is 0.
pub fn universal_hash(a: u64, b: u64, x: u128, m: u64) -> u64 {
    if m == 0 {
        return 0;
    }
    let x = mod_mersenne61(x) as u128;
    let y = mod_mersenne61(a as u128 * x + b as u128);
    y % m
}

/// SplitMix64 step: a fixed bijective mixer used only to derive constants.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Parameters `(a, b)` of universal hash function number `i`: `a` odd and in
/// `[1, 2^61 − 1)`, `b` in `[0, 2^61 − 1)`, both derived from `i` by SplitMix64
/// from a fixed seed, so they are the same in every run.
pub fn hash_params(i: u32) -> (u64, u64) {
    let base = PARAM_SEED.wrapping_add(2 * i as u64);
    let a = (splitmix64(base) % (MERSENNE_61 - 1)) | 1; // odd, < p, >= 1
    let b = splitmix64(base.wrapping_add(1)) % MERSENNE_61;
    (a, b)
}

/// A counting Bloom filter of 4-bit saturating counters recording the values
/// written to one monitored address (Section V.A; geometry in V.C).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountingBloom {
    /// One 4-bit counter per filter bit (stored in a byte, saturating at 15).
    counters: Vec<u8>,
    /// Number of hash functions `k`.
    hashes: u32,
    /// Inserts that reported a new value since the last reset.
    unique: u32,
}

impl CountingBloom {
    /// An empty filter of `bits` counters and `hashes` hash functions (the
    /// paper: 24 and 6). A filter with 0 bits or 0 hashes remembers nothing:
    /// it reports every value as new.
    pub fn new(bits: u32, hashes: u32) -> CountingBloom {
        CountingBloom {
            counters: vec![0; bits as usize],
            hashes,
            unique: 0,
        }
    }

    /// Counter index of hash function `i` for `value`.
    fn index(&self, i: u32, value: u64) -> usize {
        let (a, b) = hash_params(i);
        universal_hash(a, b, value as u128, self.counters.len() as u64) as usize
    }

    /// True if the filter is unable to remember anything.
    fn degenerate(&self) -> bool {
        self.counters.is_empty() || self.hashes == 0
    }

    /// True if `value` was (probably) inserted since the last reset: all its
    /// `k` counters are non-zero. False positives as in the module doc; no
    /// false negatives.
    pub fn contains(&self, value: u64) -> bool {
        !self.degenerate() && (0..self.hashes).all(|i| self.counters[self.index(i, value)] > 0)
    }

    /// Records `value`: increments its `k` counters (saturating at 15).
    /// Returns true if the value was (probably) new, i.e. not all its counters
    /// were already non-zero; such inserts are counted by [`Self::unique`].
    pub fn insert(&mut self, value: u64) -> bool {
        // One pass: a counter read before its own increment shows the state
        // before this insert (two hashes sharing a counter: the first sees it).
        let mut new = self.degenerate();
        if !self.counters.is_empty() {
            for i in 0..self.hashes {
                let j = self.index(i, value);
                new |= self.counters[j] == 0;
                self.counters[j] = (self.counters[j] + 1).min(COUNTER_MAX);
            }
        }
        if new {
            self.unique = self.unique.saturating_add(1);
        }
        new
    }

    /// Clears every counter and the unique count (Section V.A: the filter is
    /// reset once its address is no longer monitored).
    pub fn reset(&mut self) {
        self.counters.fill(0);
        self.unique = 0;
    }

    /// Number of inserts since the last reset that reported a new value: the
    /// estimate of unique values written (never above the true count).
    pub fn unique(&self) -> u32 {
        self.unique
    }

    /// Number of counters (`m`).
    pub fn bits(&self) -> u32 {
        self.counters.len() as u32
    }

    /// Number of hash functions (`k`).
    pub fn hashes(&self) -> u32 {
        self.hashes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seeded xorshift64* generator (no crate).
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    /// `(1 − e^{−kn/m})^k`, the textbook false-positive approximation.
    fn fp_formula(m: u32, k: u32, n: u32) -> f64 {
        (1.0 - (-(k as f64) * n as f64 / m as f64).exp()).powi(k as i32)
    }

    /// Exact expectation of `(X/m)^k` where `X` is the number of distinct
    /// counters hit by `k·n` independent uniform hashes (occupancy DP).
    fn fp_exact(m: u32, k: u32, n: u32) -> f64 {
        let m = m as usize;
        let mut dist = vec![0.0f64; m + 1];
        dist[0] = 1.0;
        for _ in 0..k * n {
            let mut next = vec![0.0f64; m + 1];
            for (x, &p) in dist.iter().enumerate() {
                next[x] += p * x as f64 / m as f64;
                if x < m {
                    next[x + 1] += p * (m - x) as f64 / m as f64;
                }
            }
            dist = next;
        }
        dist.iter()
            .enumerate()
            .map(|(x, &p)| p * (x as f64 / m as f64).powi(k as i32))
            .sum()
    }

    /// Measured false-positive rate of a 24×6 filter holding `n` random
    /// values, over `trials` filters × `queries` other random values.
    fn measured_fp(n: u32, trials: u32, queries: u32, seed: u64) -> f64 {
        let mut rng = XorShift(seed);
        let mut positives = 0u64;
        let mut total = 0u64;
        for _ in 0..trials {
            let mut f = CountingBloom::new(24, 6);
            let inserted: Vec<u64> = (0..n).map(|_| rng.next() & 0xFFFF_FFFF).collect();
            for &v in &inserted {
                f.insert(v);
            }
            let mut q = 0;
            while q < queries {
                let v = rng.next() & 0xFFFF_FFFF;
                if inserted.contains(&v) {
                    continue;
                }
                q += 1;
                total += 1;
                positives += f.contains(v) as u64;
            }
        }
        positives as f64 / total as f64
    }

    #[test]
    fn mersenne_reduction_matches_modulo() {
        let p = MERSENNE_61 as u128;
        let mut rng = XorShift(7);
        for x in [
            0u128,
            1,
            p - 1,
            p,
            p + 1,
            2 * p,
            u64::MAX as u128,
            u128::MAX,
        ] {
            assert_eq!(mod_mersenne61(x) as u128, x % p, "x = {x}");
        }
        for _ in 0..10_000 {
            let x = (rng.next() as u128) << 64 | rng.next() as u128;
            assert_eq!(mod_mersenne61(x) as u128, x % p);
        }
    }

    #[test]
    fn hash_params_are_in_range_odd_and_distinct() {
        let params: Vec<(u64, u64)> = (0..64).map(hash_params).collect();
        for &(a, b) in &params {
            assert!((1..MERSENNE_61).contains(&a) && a % 2 == 1);
            assert!(b < MERSENNE_61);
        }
        let mut a_s: Vec<u64> = params.iter().map(|p| p.0).collect();
        a_s.sort_unstable();
        a_s.dedup();
        assert_eq!(a_s.len(), 64);
    }

    #[test]
    fn universal_hash_is_the_formula() {
        // ((3·10 + 5) mod p) mod 7 = 35 mod 7 = 0; ((3·11 + 5) mod p) mod 7 = 38 mod 7 = 3.
        assert_eq!(universal_hash(3, 5, 10, 7), 0);
        assert_eq!(universal_hash(3, 5, 11, 7), 3);
        // x ≡ x + p (mod p): same bucket.
        assert_eq!(
            universal_hash(12345, 678, 42, 1000),
            universal_hash(12345, 678, 42 + MERSENNE_61 as u128, 1000)
        );
        // a·x wraps past p: (2^60 · 4 + 0) mod p = 2^62 mod (2^61−1) = 2.
        assert_eq!(universal_hash(1 << 60, 0, 4, 1 << 40), 2);
        assert_eq!(universal_hash(1, 2, 3, 0), 0);
    }

    #[test]
    fn insert_reports_new_values_and_counts_unique() {
        let mut f = CountingBloom::new(24, 6);
        assert!(!f.contains(5));
        assert!(f.insert(5));
        assert!(f.contains(5));
        assert!(!f.insert(5), "a repeated value is not new");
        assert_eq!(f.unique(), 1);
        // A barrier counter's values 1..=3 (few values: find ones that do not
        // collide with each other in this filter, then check the count).
        let mut g = CountingBloom::new(24, 6);
        let mut expected = 0;
        for v in 1..=3u64 {
            let was_new = !g.contains(v);
            assert_eq!(g.insert(v), was_new);
            expected += was_new as u32;
            assert!(g.contains(v));
        }
        assert_eq!(g.unique(), expected);
        assert!(
            expected >= 2,
            "three small values all collide: hash family broken"
        );
    }

    #[test]
    fn insert_is_new_exactly_when_not_contained_before() {
        // Small filters make hashes of one value share counters often.
        let mut rng = XorShift(99);
        for (bits, hashes) in [(24, 6), (5, 6), (2, 3), (1, 4)] {
            let mut f = CountingBloom::new(bits, hashes);
            let mut unique = 0;
            for n in 0..5000 {
                if n % 7 == 0 {
                    f.reset();
                    unique = 0;
                }
                let v = rng.next() % 50;
                let before = f.contains(v);
                let new = f.insert(v);
                assert_eq!(new, !before, "bits {bits}, hashes {hashes}, value {v}");
                assert!(f.contains(v), "no false negatives");
                unique += new as u32;
                assert_eq!(f.unique(), unique);
            }
        }
    }

    #[test]
    fn counters_saturate_at_fifteen() {
        let mut f = CountingBloom::new(24, 6);
        for _ in 0..100 {
            f.insert(9);
        }
        assert!(f.counters.iter().all(|&c| c <= COUNTER_MAX));
        assert!(f.counters.contains(&COUNTER_MAX));
        // Each of the 6 hashes incremented its counter 100 times: every touched
        // counter saturated, untouched ones stayed 0.
        let touched: Vec<usize> = (0..6).map(|i| f.index(i, 9)).collect();
        for (j, &c) in f.counters.iter().enumerate() {
            assert_eq!(c, if touched.contains(&j) { COUNTER_MAX } else { 0 });
        }
        assert_eq!(f.unique(), 1);
    }

    #[test]
    fn reset_forgets_everything() {
        let mut f = CountingBloom::new(24, 6);
        f.insert(1);
        f.insert(2);
        f.reset();
        assert_eq!(f.unique(), 0);
        assert!(!f.contains(1) && !f.contains(2));
        assert!(f.counters.iter().all(|&c| c == 0));
        assert!(f.insert(1));
    }

    #[test]
    fn degenerate_filters_report_every_value_new() {
        for (bits, hashes) in [(0, 6), (24, 0), (0, 0)] {
            let mut f = CountingBloom::new(bits, hashes);
            assert!(f.insert(3));
            assert!(f.insert(3));
            assert!(!f.contains(3));
            assert_eq!(f.unique(), 2);
        }
    }

    #[test]
    fn false_positive_rate_three_values_is_the_papers_two_percent() {
        let formula = fp_formula(24, 6, 3);
        let exact = fp_exact(24, 6, 3);
        assert!((formula - 0.021).abs() < 0.001, "formula gives {formula}");
        let measured = measured_fp(3, 2000, 50, 0x1234_5678);
        assert!(
            (measured - exact).abs() < 0.15 * exact,
            "measured {measured}, exact occupancy expectation {exact}"
        );
        assert!(measured > 0.5 * formula && measured < 2.0 * formula);
    }

    #[test]
    fn false_positive_rate_two_values_matches_formula() {
        let formula = fp_formula(24, 6, 2);
        let exact = fp_exact(24, 6, 2);
        let measured = measured_fp(2, 4000, 50, 0x9ABC_DEF0);
        assert!(
            (measured - exact).abs() < 0.25 * exact,
            "measured {measured}, exact occupancy expectation {exact}"
        );
        assert!(measured > 0.5 * formula && measured < 2.0 * formula);
    }
}
