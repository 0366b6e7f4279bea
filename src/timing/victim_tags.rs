//! Per-warp victim tag arrays [CCWS MICRO'12 §4.1; DAWS 3.3, Table 3]:
//! when the L1D evicts a line, its tag goes into the victim tags of the
//! warp that brought it in; when that warp later misses on the line, the
//! hit in its victim tags means intra-warp locality was lost to another
//! warp's accesses. Each warp slot has `sched.vta_entries` tags in sets of
//! `sched.vta_ways`, LRU; a hit removes the tag (the line is coming back);
//! a new warp in the slot starts empty. Always present: CCWS and
//! Detected-DAWS use the hits, and every run reports them.

/// One tag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tag {
    valid: bool,
    line: u64,
    stamp: u64,
}

/// The victim tag arrays of one SM's warp slots.
#[derive(Clone, Debug)]
pub struct VictimTags {
    sets: usize,
    ways: usize,
    per_warp: usize,
    tags: Vec<Tag>,
    clock: u64,
}

impl VictimTags {
    /// Arrays of `entries` tags in sets of `ways` for `slots` warp slots.
    pub fn new(slots: usize, entries: u32, ways: u32) -> VictimTags {
        let ways = ways.clamp(1, entries.max(1)) as usize;
        let sets = (entries as usize / ways).max(1);
        VictimTags {
            sets,
            ways,
            per_warp: sets * ways,
            tags: vec![Tag::default(); slots * sets * ways],
            clock: 0,
        }
    }

    fn set(&mut self, slot: u32, line: u64) -> &mut [Tag] {
        let s = slot as usize * self.per_warp + (line % self.sets as u64) as usize * self.ways;
        &mut self.tags[s..s + self.ways]
    }

    /// Records that `slot`'s line `line` was evicted.
    pub fn insert(&mut self, slot: u32, line: u64) {
        self.clock += 1;
        let clock = self.clock;
        let set = self.set(slot, line);
        if let Some(t) = set.iter_mut().find(|t| t.valid && t.line == line) {
            t.stamp = clock;
            return;
        }
        let v = set
            .iter_mut()
            .min_by_key(|t| (t.valid, t.stamp))
            .expect("ways ≥ 1");
        *v = Tag {
            valid: true,
            line,
            stamp: clock,
        };
    }

    /// `slot` missed on `line`: true (and the tag removed) if `line` is in
    /// its victim tags.
    pub fn probe(&mut self, slot: u32, line: u64) -> bool {
        let set = self.set(slot, line);
        match set.iter_mut().find(|t| t.valid && t.line == line) {
            Some(t) => {
                t.valid = false;
                true
            }
            None => false,
        }
    }

    /// A new warp takes `slot`.
    pub fn clear(&mut self, slot: u32) {
        let s = slot as usize * self.per_warp;
        for t in &mut self.tags[s..s + self.per_warp] {
            t.valid = false;
        }
    }

    /// Forgets every tag (a new launch).
    pub fn clear_all(&mut self) {
        for t in &mut self.tags {
            t.valid = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicted_lines_hit_once_per_warp_and_lru_within_a_set() {
        // 4 tags, 2-way: 2 sets. Lines 0, 2, 4 map to set 0.
        let mut v = VictimTags::new(2, 4, 2);
        v.insert(0, 0);
        v.insert(0, 2);
        assert!(!v.probe(1, 0), "another warp's tags");
        v.insert(0, 4); // evicts line 0 (LRU of set 0)
        assert!(!v.probe(0, 0));
        assert!(v.probe(0, 2));
        assert!(!v.probe(0, 2), "a hit removes the tag");
        assert!(v.probe(0, 4));
        v.insert(0, 1);
        v.clear(0);
        assert!(!v.probe(0, 1));
    }
}
