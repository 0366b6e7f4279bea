//! A set-associative tag array with true LRU replacement, used for the
//! I-cache, the L1D and the L2 slices. Lines are identified by their line
//! address (byte address / line size); each line remembers the warp that
//! brought it (to tell intra-warp from inter-warp hits) and a dirty bit.

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
/// set index = line address mod sets. Stored as parallel arrays (line
/// addresses apart from the LRU stamps, owners and dirty bits), so a
/// lookup scans only the set's line addresses.
#[derive(Clone, Debug)]
pub struct TagArray {
    sets: u64,
    ways: usize,
    /// Line address of each way, or `INVALID`.
    lines: Vec<u64>,
    /// Last access stamp of each way (larger = more recent; 0 = never).
    stamps: Vec<u64>,
    /// Dynamic warp id of the warp whose miss filled each way.
    owners: Vec<u32>,
    /// Each way written since filled (write-back caches only).
    dirty: Vec<bool>,
    clock: u64,
}

impl TagArray {
    /// An empty (all invalid) array.
    pub fn new(sets: u32, ways: u32) -> TagArray {
        let sets = u64::from(sets.max(1));
        let ways = ways.max(1) as usize;
        let n = sets as usize * ways;
        TagArray {
            sets,
            ways,
            lines: vec![INVALID; n],
            stamps: vec![0; n],
            owners: vec![0; n],
            dirty: vec![false; n],
            clock: 0,
        }
    }

    /// The first way of `line`'s set.
    #[inline]
    fn set(&self, line: u64) -> usize {
        // A mask when the set count is a power of two (no division).
        let set = if self.sets.is_power_of_two() {
            line & (self.sets - 1)
        } else {
            line % self.sets
        };
        set as usize * self.ways
    }

    /// The way holding `line`, if present.
    #[inline]
    fn find(&self, line: u64) -> Option<usize> {
        let s = self.set(line);
        self.lines[s..s + self.ways]
            .iter()
            .position(|&l| l == line)
            .map(|i| s + i)
    }

    /// Looks `line` up; on a hit makes it most recently used and returns
    /// its owner.
    pub fn access(&mut self, line: u64) -> Option<u32> {
        self.clock += 1;
        let w = self.find(line)?;
        self.stamps[w] = self.clock;
        Some(self.owners[w])
    }

    /// True if `line` is present (no LRU update).
    pub fn contains(&self, line: u64) -> bool {
        self.find(line).is_some()
    }

    /// Marks a present line dirty; false if absent.
    pub fn mark_dirty(&mut self, line: u64) -> bool {
        match self.find(line) {
            Some(w) => {
                self.dirty[w] = true;
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
        let s = self.set(line);
        let lines = &self.lines[s..s + self.ways];
        if let Some(i) = lines.iter().position(|&l| l == line) {
            self.stamps[s + i] = clock;
            self.dirty[s + i] |= dirty;
            return None;
        }
        // The first invalid way, else the least recently used (first on
        // ties: deterministic).
        let victim = s + match lines.iter().position(|&l| l == INVALID) {
            Some(i) => i,
            None => {
                let stamps = &self.stamps[s..s + self.ways];
                let (mut best, mut oldest) = (0, stamps[0]);
                for (i, &t) in stamps.iter().enumerate().skip(1) {
                    if t < oldest {
                        (best, oldest) = (i, t);
                    }
                }
                best
            }
        };
        let old = Evicted {
            line: self.lines[victim],
            owner: self.owners[victim],
            dirty: self.dirty[victim],
        };
        self.lines[victim] = line;
        self.stamps[victim] = clock;
        self.owners[victim] = owner;
        self.dirty[victim] = dirty;
        (old.line != INVALID).then_some(old)
    }

    /// Removes `line`; returns true if it was present.
    pub fn invalidate(&mut self, line: u64) -> bool {
        match self.find(line) {
            Some(w) => {
                self.lines[w] = INVALID;
                self.dirty[w] = false;
                true
            }
            None => false,
        }
    }

    /// Invalidates every line (kernel boundary for L1 caches).
    pub fn clear(&mut self) {
        self.lines.fill(INVALID);
        self.dirty.fill(false);
    }

    /// Lines in total.
    pub fn lines(&self) -> usize {
        self.lines.len()
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
