//! The scoreboard: per warp, one bit per register and predicate with a
//! pending write. An instruction may issue only when none of the registers
//! it reads or writes is pending (RAW and WAW hazards).

/// Pending-write bits of one warp.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    bits: Vec<u64>,
}

impl Scoreboard {
    /// No pending writes, room for `words × 64` ids.
    pub fn new(words: usize) -> Scoreboard {
        Scoreboard {
            bits: vec![0; words],
        }
    }

    /// True if any id in `hazards` (`(word, mask)` pairs) is pending.
    #[inline]
    pub fn blocks(&self, hazards: &[(u32, u64)]) -> bool {
        hazards.iter().any(|&(w, m)| self.bits[w as usize] & m != 0)
    }

    /// Marks `ids` pending.
    pub fn reserve(&mut self, ids: &[u32]) {
        for &i in ids {
            self.bits[(i / 64) as usize] |= 1 << (i % 64);
        }
    }

    /// Clears `ids`.
    pub fn release(&mut self, ids: &[u32]) {
        for &i in ids {
            self.bits[(i / 64) as usize] &= !(1 << (i % 64));
        }
    }

    /// Clears everything (slot reuse).
    pub fn clear(&mut self, words: usize) {
        self.bits.clear();
        self.bits.resize(words, 0);
    }
}
