//! A set-associative tag array with true LRU replacement, used for the
//! I-cache, the L1D and the L2 slices. Lines are identified by their line
//! address (byte address / line size); each line remembers the warp that
//! brought it (to tell intra-warp from inter-warp hits) and a dirty bit.

/// One way of a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Way {
    /// Line address, or `u64::MAX` when invalid.
    line: u64,
    /// Last access stamp (larger = more recent).
    stamp: u64,
    /// Dynamic warp id of the warp whose miss filled the line.
    owner: u32,
    /// Written since filled (write-back caches only).
    dirty: bool,
}

const INVALID: u64 = u64::MAX;

/// A line pushed out by a fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evicted {
    /// Its line address.
    pub line: u64,
    /// The warp that had brought it.
    pub owner: u32,
    /// It held data not yet written below.
    pub dirty: bool,
}

/// Tags of a set-associative cache: `sets × ways` lines, LRU within a set,
/// set index = line address mod sets.
#[derive(Clone, Debug)]
pub struct TagArray {
    sets: u64,
    ways: usize,
    tags: Vec<Way>,
    clock: u64,
}

impl TagArray {
    /// An empty (all invalid) array.
    pub fn new(sets: u32, ways: u32) -> TagArray {
        let sets = u64::from(sets.max(1));
        let ways = ways.max(1) as usize;
        TagArray {
            sets,
            ways,
            tags: vec![
                Way {
                    line: INVALID,
                    stamp: 0,
                    owner: 0,
                    dirty: false
                };
                sets as usize * ways
            ],
            clock: 0,
        }
    }

    fn set(&self, line: u64) -> std::ops::Range<usize> {
        // A mask when the set count is a power of two (no division).
        let set = if self.sets.is_power_of_two() {
            line & (self.sets - 1)
        } else {
            line % self.sets
        };
        let s = set as usize * self.ways;
        s..s + self.ways
    }

    /// Looks `line` up; on a hit makes it most recently used and returns
    /// its owner.
    pub fn access(&mut self, line: u64) -> Option<u32> {
        self.clock += 1;
        let clock = self.clock;
        let r = self.set(line);
        self.tags[r].iter_mut().find(|w| w.line == line).map(|w| {
            w.stamp = clock;
            w.owner
        })
    }

    /// True if `line` is present (no LRU update).
    pub fn contains(&self, line: u64) -> bool {
        self.tags[self.set(line)].iter().any(|w| w.line == line)
    }

    /// Marks a present line dirty; false if absent.
    pub fn mark_dirty(&mut self, line: u64) -> bool {
        let r = self.set(line);
        match self.tags[r].iter_mut().find(|w| w.line == line) {
            Some(w) => {
                w.dirty = true;
                true
            }
            None => false,
        }
    }

    /// Inserts `line` (most recently used), evicting the LRU way of its set
    /// if no way is free. Returns the evicted line, if any. Filling a line
    /// already present only refreshes it.
    pub fn fill(&mut self, line: u64, owner: u32, dirty: bool) -> Option<Evicted> {
        self.clock += 1;
        let clock = self.clock;
        let r = self.set(line);
        let set = &mut self.tags[r];
        if let Some(w) = set.iter_mut().find(|w| w.line == line) {
            w.stamp = clock;
            w.dirty |= dirty;
            return None;
        }
        // Invalid ways have stamp 0 and line INVALID; pick the first invalid,
        // else the least recently used (first on ties: deterministic).
        let victim = match set.iter().position(|w| w.line == INVALID) {
            Some(i) => i,
            None => {
                let (mut best, mut oldest) = (0, set[0].stamp);
                for (i, w) in set.iter().enumerate().skip(1) {
                    if w.stamp < oldest {
                        (best, oldest) = (i, w.stamp);
                    }
                }
                best
            }
        };
        let old = set[victim];
        set[victim] = Way {
            line,
            stamp: clock,
            owner,
            dirty,
        };
        (old.line != INVALID).then_some(Evicted {
            line: old.line,
            owner: old.owner,
            dirty: old.dirty,
        })
    }

    /// Removes `line`; returns true if it was present.
    pub fn invalidate(&mut self, line: u64) -> bool {
        let r = self.set(line);
        match self.tags[r].iter_mut().find(|w| w.line == line) {
            Some(w) => {
                w.line = INVALID;
                w.dirty = false;
                true
            }
            None => false,
        }
    }

    /// Invalidates every line (kernel boundary for L1 caches).
    pub fn clear(&mut self) {
        for w in &mut self.tags {
            w.line = INVALID;
            w.dirty = false;
        }
    }

    /// Lines in total.
    pub fn lines(&self) -> usize {
        self.tags.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recent_in_set() {
        let mut c = TagArray::new(2, 2);
        // Lines 0, 2, 4 map to set 0.
        assert_eq!(c.fill(0, 1, false), None);
        assert_eq!(c.fill(2, 2, false), None);
        assert_eq!(c.access(0), Some(1)); // 0 now MRU
        let e = c.fill(4, 3, false).expect("set full");
        assert_eq!((e.line, e.owner), (2, 2));
        assert!(c.contains(0) && c.contains(4) && !c.contains(2));
        // Set 1 untouched.
        assert_eq!(c.fill(1, 9, true), None);
        assert!(c.invalidate(1));
        assert!(!c.contains(1));
    }
}
