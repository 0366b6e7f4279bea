//! Per-warp victim tag arrays [CCWS MICRO'12 §4.1; DAWS 3.3, Table 3]:
//! when the L1D evicts a line, its tag goes into the victim tags of the
//! warp that brought it in; when that warp later misses on the line, the
//! hit in its victim tags means intra-warp locality was lost to another
//! warp's accesses. Each warp slot has `sched.vta_entries` tags in sets of
//! `sched.vta_ways`, LRU; a hit removes the tag (the line is coming back);
//! a new warp in the slot starts empty. Always present: CCWS and
//! Detected-DAWS use the hits, and every run reports them.

/// An empty tag (no line address is this large: lines are byte addresses
/// divided by the line size).
const EMPTY: u64 = u64::MAX;

/// The victim tag arrays of one SM's warp slots. Each set keeps its lines
/// most recently inserted first, empty tags last, so LRU needs no stamps
/// and a set of 8 tags is one 64-byte host cache line.
#[derive(Clone, Debug)]
pub struct VictimTags {
    sets: usize,
    ways: usize,
    per_warp: usize,
    tags: Vec<u64>,
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
            tags: vec![EMPTY; slots * sets * ways],
        }
    }

    fn set(&mut self, slot: u32, line: u64) -> &mut [u64] {
        let set = if self.sets.is_power_of_two() {
            (line & (self.sets as u64 - 1)) as usize
        } else {
            (line % self.sets as u64) as usize
        };
        let s = slot as usize * self.per_warp + set * self.ways;
        &mut self.tags[s..s + self.ways]
    }

    /// Records that `slot`'s line `line` was evicted (it becomes the most
    /// recent tag of its set; a full set forgets its least recent one).
    pub fn insert(&mut self, slot: u32, line: u64) {
        let set = self.set(slot, line);
        // Each tag moves down one place, up to the line's own tag if
        // present, else up to the first empty tag, else over the whole
        // set (dropping the last); the line goes to the front.
        let mut carry = line;
        for t in set.iter_mut() {
            let old = std::mem::replace(t, carry);
            if old == line || old == EMPTY {
                return;
            }
            carry = old;
        }
    }

    /// `slot` missed on `line`: true (and the tag removed) if `line` is in
    /// its victim tags.
    pub fn probe(&mut self, slot: u32, line: u64) -> bool {
        let set = self.set(slot, line);
        match set.iter().position(|&t| t == line) {
            Some(i) => {
                set.copy_within(i + 1.., i);
                *set.last_mut().expect("ways ≥ 1") = EMPTY;
                true
            }
            None => false,
        }
    }

    /// A new warp takes `slot`.
    pub fn clear(&mut self, slot: u32) {
        let s = slot as usize * self.per_warp;
        self.tags[s..s + self.per_warp].fill(EMPTY);
    }

    /// Forgets every tag (a new launch).
    pub fn clear_all(&mut self) {
        self.tags.fill(EMPTY);
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

    /// Against a stamp-LRU model (the definition: a hit refreshes, a miss
    /// fills an empty way or replaces the least recently inserted line),
    /// over random inserts and probes of a few lines.
    #[test]
    fn agrees_with_stamped_lru() {
        let (slots, entries, ways) = (3usize, 12u32, 4u32);
        let sets = (entries / ways) as u64;
        let mut v = VictimTags::new(slots, entries, ways);
        // (slot, set) -> [(line, stamp)]
        let mut model = vec![Vec::<(u64, u64)>::new(); slots * sets as usize];
        let mut rng = crate::workload::generate::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut rnd = |n: u64| rng.below(n);
        for clock in 0..20_000u64 {
            let slot = rnd(slots as u64) as usize;
            let line = rnd(40);
            let m = &mut model[slot * sets as usize + (line % sets) as usize];
            if rnd(2) == 0 {
                v.insert(slot as u32, line);
                if let Some(t) = m.iter_mut().find(|t| t.0 == line) {
                    t.1 = clock;
                } else if m.len() < ways as usize {
                    m.push((line, clock));
                } else {
                    let lru = (0..m.len()).min_by_key(|&i| m[i].1).expect("full");
                    m[lru] = (line, clock);
                }
            } else {
                let want = match m.iter().position(|t| t.0 == line) {
                    Some(i) => {
                        m.remove(i);
                        true
                    }
                    None => false,
                };
                assert_eq!(v.probe(slot as u32, line), want, "step {clock}");
            }
        }
    }
}
