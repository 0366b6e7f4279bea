//! The LD/ST unit's address processing: merging a warp's lane addresses
//! into line-sized requests (global and local memory) and counting
//! shared-memory bank conflicts.

/// One coalesced request: a line and the bytes the warp touches in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRequest {
    /// Line address (byte address / line size).
    pub line: u64,
    /// Bytes of the line the active lanes access.
    pub bytes: u32,
}

/// Merges the addresses of the lanes in `mask` (each accessing `size`
/// bytes at `addr(lane)`) into line requests, in order of the first lane
/// touching each line. An access straddling a line boundary touches both.
pub fn coalesce(
    mask: u64,
    size: u32,
    line_size: u32,
    addr: impl Fn(usize) -> u64,
    out: &mut Vec<LineRequest>,
) {
    out.clear();
    let ls = u64::from(line_size.max(1));
    // Line numbers by a shift when the line size is a power of two (it
    // always is in practice; a division per lane is slow).
    let shift = ls.trailing_zeros();
    let pow2 = ls.is_power_of_two();
    let line_of = |a: u64| if pow2 { a >> shift } else { a / ls };
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = addr(l);
        let first = line_of(a);
        let last = line_of(a + u64::from(size.max(1)) - 1);
        for line in first..=last {
            let lo = a.max(line * ls);
            let hi = (a + u64::from(size.max(1))).min((line + 1) * ls);
            let bytes = (hi - lo) as u32;
            match out.iter_mut().find(|r| r.line == line) {
                Some(r) => r.bytes = (r.bytes + bytes).min(line_size),
                None => out.push(LineRequest { line, bytes }),
            }
        }
    }
}

/// The number of serialized passes a shared-memory access needs: the
/// largest number of distinct `width`-byte words any one bank must supply
/// (lanes reading the same word are served by one broadcast). 1 for a
/// conflict-free access, 0 for no active lane.
pub fn bank_conflict_degree(
    mask: u64,
    size: u32,
    banks: u32,
    width: u32,
    addr: impl Fn(usize) -> u64,
) -> u32 {
    let width = u64::from(width.max(1));
    let banks = u64::from(banks.max(1));
    // The common case first: no bank is asked for two different words,
    // so the degree is 1 (0 without lanes). Any conflict (or more than 64
    // banks, or sizes not powers of two) takes the general count below.
    if banks <= 64 && width.is_power_of_two() && banks.is_power_of_two() {
        let (shift, bank_mask) = (width.trailing_zeros(), banks - 1);
        let mut seen = 0u64;
        let mut word_of = [0u64; 64];
        let mut conflict = false;
        let mut m = mask;
        'lanes: while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = addr(l);
            for w in a >> shift..=(a + u64::from(size.max(1)) - 1) >> shift {
                let b = (w & bank_mask) as usize;
                if seen >> b & 1 == 0 {
                    seen |= 1 << b;
                    word_of[b] = w;
                } else if word_of[b] != w {
                    conflict = true;
                    break 'lanes;
                }
            }
        }
        if !conflict {
            return u32::from(seen != 0);
        }
    }
    let mut words = [0u64; 256];
    let mut n = 0;
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = addr(l);
        let first = a / width;
        let last = (a + u64::from(size.max(1)) - 1) / width;
        for w in first..=last {
            if n < words.len() {
                words[n] = w;
                n += 1;
            }
        }
    }
    let words = &mut words[..n];
    words.sort_unstable();
    let mut per_bank = [0u32; 64];
    let mut big: Vec<u32> = Vec::new();
    let mut prev = None;
    for &w in words.iter() {
        if prev == Some(w) {
            continue;
        }
        prev = Some(w);
        let b = (w % banks) as usize;
        if b < per_bank.len() {
            per_bank[b] += 1;
        } else {
            if big.len() <= b {
                big.resize(b + 1, 0);
            }
            big[b] += 1;
        }
    }
    per_bank
        .iter()
        .chain(big.iter())
        .copied()
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_stride_words_make_one_line() {
        let mut out = Vec::new();
        coalesce(
            u64::from(u32::MAX),
            4,
            128,
            |l| 0x1000 + 4 * l as u64,
            &mut out,
        );
        assert_eq!(
            out,
            vec![LineRequest {
                line: 0x1000 / 128,
                bytes: 128
            }]
        );
        // Stride 128: one line per lane.
        coalesce(0xff, 4, 128, |l| 128 * l as u64, &mut out);
        assert_eq!(out.len(), 8);
        assert!(out.iter().all(|r| r.bytes == 4));
        // Straddling access.
        coalesce(1, 8, 128, |_| 124, &mut out);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn bank_conflict_fast_path_agrees_with_the_general_count() {
        // Conflict-free patterns (the fast path) and conflicting ones (the
        // general count), both against distinct words per bank counted
        // by brute force.
        let full = u64::from(u32::MAX);
        type Lanes = fn(usize) -> u64;
        let patterns: [(u32, Lanes); 6] = [
            (4, |l| 4 * l as u64),
            (4, |_| 64),
            (8, |l| 8 * l as u64),
            (4, |l| 4 * (l as u64 ^ 5)),
            (4, |l| 128 * (l as u64 % 3) + 4 * l as u64),
            (16, |l| 16 * (l as u64 % 8)),
        ];
        for (size, f) in patterns {
            for mask in [full, 0x5555_5555, 1, 0x8000_0001, 0] {
                let d = bank_conflict_degree(mask, size, 32, 4, f);
                // Recount by brute force: distinct words per bank.
                let mut per_bank = std::collections::BTreeMap::<u64, Vec<u64>>::new();
                for l in 0..32 {
                    if mask >> l & 1 == 1 {
                        let a = f(l);
                        for w in a / 4..=(a + u64::from(size) - 1) / 4 {
                            let words = per_bank.entry(w % 32).or_default();
                            if !words.contains(&w) {
                                words.push(w);
                            }
                        }
                    }
                }
                let want = per_bank.values().map(|s| s.len() as u32).max().unwrap_or(0);
                assert_eq!(d, want, "size {size} mask {mask:#x}");
            }
        }
    }

    #[test]
    fn bank_conflicts() {
        let full = u64::from(u32::MAX);
        assert_eq!(bank_conflict_degree(full, 4, 32, 4, |l| 4 * l as u64), 1);
        assert_eq!(bank_conflict_degree(full, 4, 32, 4, |_| 0), 1); // broadcast
        assert_eq!(bank_conflict_degree(full, 4, 32, 4, |l| 8 * l as u64), 2);
        assert_eq!(bank_conflict_degree(full, 4, 32, 4, |l| 128 * l as u64), 32);
        assert_eq!(bank_conflict_degree(full, 8, 32, 4, |l| 8 * l as u64), 2);
        assert_eq!(bank_conflict_degree(0, 4, 32, 4, |l| l as u64), 0);
    }
}
