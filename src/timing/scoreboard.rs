//! The scoreboard: per warp, one bit per register and predicate with a
//! pending write. An instruction may issue only when none of the registers
//! it reads or writes is pending (RAW and WAW hazards).
//!
//! Ids below 128 (most kernels have fewer registers and predicates) live
//! in two words inside the scoreboard and the instruction's masks, so a
//! check touches no heap memory; higher ids in a vector beside them.

/// Ids held inline: `INLINE_WORDS × 64`.
const INLINE_WORDS: usize = 2;

/// A set of scoreboard ids (an instruction's reads and writes, or its
/// writes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegMask {
    /// Bits of ids below 128.
    low: [u64; INLINE_WORDS],
    /// `(word, bits)` of higher ids, one pair per word.
    high: Vec<(u32, u64)>,
}

impl RegMask {
    /// The set of `ids`.
    pub fn of(ids: impl IntoIterator<Item = u32>) -> RegMask {
        let mut m = RegMask::default();
        for i in ids {
            let (w, b) = ((i / 64) as usize, 1u64 << (i % 64));
            if w < INLINE_WORDS {
                m.low[w] |= b;
            } else {
                match m.high.iter_mut().find(|h| h.0 as usize == w) {
                    Some(h) => h.1 |= b,
                    None => m.high.push((w as u32, b)),
                }
            }
        }
        m
    }

    /// True for the empty set.
    pub fn is_empty(&self) -> bool {
        self.low == [0; INLINE_WORDS] && self.high.is_empty()
    }
}

/// Pending-write bits of one warp.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Ids below 128.
    low: [u64; INLINE_WORDS],
    /// Words from `INLINE_WORDS` on.
    high: Vec<u64>,
}

impl Scoreboard {
    /// No pending writes, room for `words × 64` ids.
    pub fn new(words: usize) -> Scoreboard {
        let mut sb = Scoreboard::default();
        sb.clear(words);
        sb
    }

    /// True if any id of `m` is pending.
    #[inline]
    pub fn blocks(&self, m: &RegMask) -> bool {
        (self.low[0] & m.low[0]) | (self.low[1] & m.low[1]) != 0
            || m.high
                .iter()
                .any(|&(w, b)| self.high[w as usize - INLINE_WORDS] & b != 0)
    }

    /// Marks the ids of `m` pending.
    pub fn reserve(&mut self, m: &RegMask) {
        for (s, b) in self.low.iter_mut().zip(m.low) {
            *s |= b;
        }
        for &(w, b) in &m.high {
            self.high[w as usize - INLINE_WORDS] |= b;
        }
    }

    /// Clears the ids of `m`.
    pub fn release(&mut self, m: &RegMask) {
        for (s, b) in self.low.iter_mut().zip(m.low) {
            *s &= !b;
        }
        for &(w, b) in &m.high {
            self.high[w as usize - INLINE_WORDS] &= !b;
        }
    }

    /// Clears everything (slot reuse), room for `words × 64` ids.
    pub fn clear(&mut self, words: usize) {
        self.low = [0; INLINE_WORDS];
        self.high.clear();
        self.high.resize(words.saturating_sub(INLINE_WORDS), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_and_high_ids() {
        let mut sb = Scoreboard::new(4);
        let w = RegMask::of([3, 64, 130, 200]);
        let other = RegMask::of([4, 131]);
        assert!(!sb.blocks(&w));
        sb.reserve(&w);
        assert!(sb.blocks(&RegMask::of([200])) && sb.blocks(&RegMask::of([64])));
        assert!(!sb.blocks(&other));
        sb.release(&RegMask::of([3, 64, 130]));
        assert!(sb.blocks(&RegMask::of([200])) && !sb.blocks(&RegMask::of([3])));
        assert!(RegMask::of([]).is_empty() && !w.is_empty());
    }
}
