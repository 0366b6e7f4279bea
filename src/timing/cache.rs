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
    /// Its sectors holding data not yet written below (bit per sector;
    /// all set for a dirty line of an unsectored cache).
    pub dirty_sectors: u32,
}

/// A reservation failure: every way of the line's set is reserved, or the
/// line already is (the miss must wait for a fill).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReservationFail;

/// One way of a set.
#[derive(Clone, Copy, Debug)]
struct Way {
    /// Line address, or `INVALID`.
    line: u64,
    /// Last access stamp (larger = more recent; 0 = never).
    stamp: u64,
    /// Dynamic warp id of the warp whose miss filled it.
    owner: u32,
    /// Sectors holding data (sectored caches: the L2).
    valid_sectors: u32,
    /// Sectors written since filled.
    dirty_sectors: u32,
    /// Written since filled (write-back caches only).
    dirty: bool,
    /// Which 32nds of the line stores have written since it was
    /// allocated ([`TagArray::note_write`]; GPGPU-Sim's per-line
    /// `m_dirty_byte_mask`, in 32 granules).
    written: u32,
    /// Sectors holding written data but not readable: written in part
    /// while not valid, and not completed or fetched since (GPGPU-Sim's
    /// `m_readable` false).
    unreadable: u32,
    /// Reserved for a line whose fill is outstanding
    /// ([`TagArray::reserve`]): not a hit, never a victim.
    reserved: bool,
}

const EMPTY_WAY: Way = Way {
    line: INVALID,
    stamp: 0,
    owner: 0,
    valid_sectors: 0,
    dirty_sectors: 0,
    dirty: false,
    written: 0,
    unreadable: 0,
    reserved: false,
};

/// Tags of a set-associative cache: `sets × ways` lines, LRU within a set,
/// set index = line address mod sets, or the Fermi L1 hash
/// ([`TagArray::with_fermi_hash`]). A set's ways are one contiguous run of
/// small records, so a lookup reads one or two host cache lines.
#[derive(Clone, Debug)]
pub struct TagArray {
    sets: u64,
    ways: usize,
    /// Every way, set by set.
    way: Vec<Way>,
    clock: u64,
    /// log2 of the line size in bytes when the Fermi hash indexes sets.
    hash_line_log2: Option<u32>,
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
            way: vec![EMPTY_WAY; n],
            clock: 0,
            hash_line_log2: None,
        }
    }

    /// An empty array of 32 or 64 sets of `line_bytes`-byte lines indexed
    /// by the Fermi L1 set hash GPGPU-Sim uses for the GTX480 L1D (`H` in
    /// `-gpgpu_cache:dl1`; Nugteren et al., "A Detailed GPU Cache Model
    /// Based on Reuse Distance Theory", HPCA 2014): byte-address bits 7–11
    /// XOR bits 13, 14, 15, 17, 19, and bit 12 on top for 64 sets. Other
    /// set counts fall back to line mod sets.
    pub fn with_fermi_hash(sets: u32, ways: u32, line_bytes: u32) -> TagArray {
        let mut t = TagArray::new(sets, ways);
        if (sets == 32 || sets == 64) && line_bytes.is_power_of_two() {
            t.hash_line_log2 = Some(line_bytes.trailing_zeros());
        }
        t
    }

    /// The Fermi hash set of byte address `addr` (see
    /// [`TagArray::with_fermi_hash`]).
    pub fn fermi_hash_set(addr: u64, line_log2: u32, sets: u64) -> u64 {
        let lower = (addr >> line_log2) & 0x1f;
        let mut upper = (addr & 0xe000) >> 13;
        upper |= (addr & 0x2_0000) >> 14;
        upper |= (addr & 0x8_0000) >> 15;
        let mut set = lower ^ upper;
        if sets == 64 {
            set |= (addr & 0x1000) >> 7;
        }
        set
    }

    /// The first way of `line`'s set.
    #[inline]
    fn set(&self, line: u64) -> usize {
        // A mask when the set count is a power of two (no division).
        let set = if let Some(l2) = self.hash_line_log2 {
            TagArray::fermi_hash_set(line << l2, l2, self.sets)
        } else if self.sets.is_power_of_two() {
            line & (self.sets - 1)
        } else {
            line % self.sets
        };
        set as usize * self.ways
    }

    /// True when lines `a` and `b` map to the same set.
    pub fn same_set(&self, a: u64, b: u64) -> bool {
        self.set(a) == self.set(b)
    }

    /// The way holding `line`, if present.
    #[inline]
    fn find(&self, line: u64) -> Option<usize> {
        let s = self.set(line);
        self.way[s..s + self.ways]
            .iter()
            .position(|w| w.line == line)
            .map(|i| s + i)
    }

    /// Looks `line` up; on a hit makes it most recently used and returns
    /// its owner.
    pub fn access(&mut self, line: u64) -> Option<u32> {
        self.clock += 1;
        let i = self.find(line)?;
        let w = &mut self.way[i];
        if w.reserved {
            return None;
        }
        w.stamp = self.clock;
        Some(w.owner)
    }

    /// Allocates a way for missing `line` now, before its data arrives
    /// (GPGPU-Sim's allocate-on-miss, `m` in `-gpgpu_cache:dl1`): the first
    /// invalid way of its set, else the least recently used way not
    /// reserved itself. The way stays reserved — no hit, no victim — until
    /// [`TagArray::fill`] brings the line. `Err` when every way of the set
    /// is reserved or the line already is (the miss must wait: a
    /// reservation failure). Returns the valid line evicted, if any.
    pub fn reserve(&mut self, line: u64, owner: u32) -> Result<Option<Evicted>, ReservationFail> {
        self.reserve_way(line, owner).map(|(_, evicted)| evicted)
    }

    /// [`TagArray::reserve`], also giving the way reserved (for
    /// [`TagArray::fill_reserved`]).
    pub fn reserve_way(
        &mut self,
        line: u64,
        owner: u32,
    ) -> Result<(usize, Option<Evicted>), ReservationFail> {
        self.clock += 1;
        let clock = self.clock;
        let w = self.allocation_victim(line)?;
        Ok((w, self.install(w, line, owner, clock, 0, 0, true)))
    }

    /// The way an allocation of absent `line` takes: the first invalid way
    /// of its set, else the least recently used way not reserved (first
    /// on ties). `Err` when the line is present or every way is reserved.
    fn allocation_victim(&self, line: u64) -> Result<usize, ReservationFail> {
        let s = self.set(line);
        let mut invalid = None;
        let (mut lru, mut oldest) = (None, u64::MAX);
        for (i, w) in self.way[s..s + self.ways].iter().enumerate() {
            if w.line == line {
                return Err(ReservationFail);
            }
            if w.reserved {
                continue;
            }
            if w.line == INVALID {
                invalid.get_or_insert(i);
            } else if w.stamp < oldest {
                (lru, oldest) = (Some(i), w.stamp);
            }
        }
        invalid.or(lru).map(|w| s + w).ok_or(ReservationFail)
    }

    /// [`TagArray::fill`] (clean) of `line`, which [`TagArray::reserve_way`]
    /// reserved in way `way`: the same effect without looking for it.
    /// `touch` false keeps the line's LRU stamp (its last access; GPGPU-
    /// Sim's `tag_array::fill` under ON_MISS).
    pub fn fill_reserved(&mut self, way: usize, line: u64, touch: bool) {
        self.clock += 1;
        let w = &mut self.way[way];
        debug_assert!(w.line == line && w.reserved);
        if touch {
            w.stamp = self.clock;
        }
        w.reserved = false;
        w.valid_sectors = u32::MAX;
    }

    /// Puts `line` into way `victim` with its owner, stamp, sectors and
    /// reservation; returns the valid line it evicts, if any.
    #[allow(clippy::too_many_arguments)]
    fn install(
        &mut self,
        victim: usize,
        line: u64,
        owner: u32,
        clock: u64,
        valid: u32,
        dirty: u32,
        reserved: bool,
    ) -> Option<Evicted> {
        let w = &mut self.way[victim];
        let old = Evicted {
            line: w.line,
            owner: w.owner,
            dirty: w.dirty,
            dirty_sectors: w.dirty_sectors,
        };
        *w = Way {
            line,
            stamp: clock,
            owner,
            valid_sectors: valid | dirty,
            dirty_sectors: dirty,
            dirty: dirty != 0,
            written: 0,
            unreadable: 0,
            reserved,
        };
        (old.line != INVALID).then_some(old)
    }

    /// True if `line` is present (no LRU update).
    pub fn contains(&self, line: u64) -> bool {
        self.find(line).is_some()
    }

    /// Marks a present line dirty; false if absent.
    pub fn mark_dirty(&mut self, line: u64) -> bool {
        match self.find(line) {
            Some(i) => {
                let w = &mut self.way[i];
                w.dirty = true;
                w.dirty_sectors = w.valid_sectors;
                true
            }
            None => false,
        }
    }

    /// Inserts `line` (most recently used), evicting the LRU way of its set
    /// if no way is free. Returns the evicted line, if any. Filling a line
    /// already present only refreshes it.
    pub fn fill(&mut self, line: u64, owner: u32, dirty: bool) -> Option<Evicted> {
        let d = if dirty { u32::MAX } else { 0 };
        self.fill_sectors(line, owner, u32::MAX, d, true)
    }

    /// The way holding `line`, if present (no LRU update).
    pub fn way_of(&self, line: u64) -> Option<usize> {
        self.find(line)
    }

    /// The valid sectors of way `way`.
    pub fn valid_at(&self, way: usize) -> u32 {
        self.way[way].valid_sectors
    }

    /// The valid sectors of way `way` a read may hit: those not written
    /// in part only ([`TagArray::note_write`]).
    pub fn readable_at(&self, way: usize) -> u32 {
        let w = &self.way[way];
        w.valid_sectors & !w.unreadable
    }

    /// Records a store into present `line` (just written by
    /// [`TagArray::fill_sectors`]): `granules` are the 32nds of the line
    /// it wrote, `fresh` the sectors it wrote that were not valid before
    /// it, `per_sector` granules per sector. A fresh sector becomes
    /// unreadable; any written sector whose granules have all been
    /// written since the line was allocated becomes readable (GPGPU-Sim's
    /// `wr_miss_wa_lazy_fetch_on_read` setting `m_readable` false for a
    /// sector not wholly written, and `update_m_readable` over the
    /// line's byte mask). Absent `line`: nothing.
    pub fn note_write(&mut self, line: u64, granules: u32, fresh: u32, per_sector: u32) {
        let Some(i) = self.find(line) else {
            return;
        };
        let w = &mut self.way[i];
        w.written |= granules;
        w.unreadable |= fresh;
        if w.unreadable == 0 {
            return;
        }
        let per = per_sector.clamp(1, 32);
        let full = if per >= 32 {
            u32::MAX
        } else {
            (1u32 << per) - 1
        };
        let mut u = w.unreadable;
        while u != 0 {
            let s = u.trailing_zeros();
            u &= u - 1;
            let shift = s * per;
            if shift < 32 && (w.written >> shift) & full == full {
                w.unreadable &= !(1 << s);
            }
        }
    }

    /// Makes the line in way `way` (found by [`TagArray::way_of`] with no
    /// change since, or reserved by [`TagArray::reserve_way`]) most
    /// recently used: a hit, or an access to a line whose fill is pending
    /// (GPGPU-Sim's `tag_array::access` on HIT_RESERVED or SECTOR_MISS).
    pub fn touch(&mut self, way: usize) {
        self.clock += 1;
        self.way[way].stamp = self.clock;
    }

    /// [`TagArray::fill`] for a sectored cache: inserts or refreshes `line`
    /// with the sectors `valid` (added to those present) of which `dirty`
    /// were written.
    ///
    /// `touch` false keeps a present line's LRU stamp (a fill from below
    /// under `lru_at_access`); an inserted line is always most recently
    /// used.
    pub fn fill_sectors(
        &mut self,
        line: u64,
        owner: u32,
        valid: u32,
        dirty: u32,
        touch: bool,
    ) -> Option<Evicted> {
        self.clock += 1;
        let clock = self.clock;
        let s = self.set(line);
        // One pass: the line itself (a refresh), else the first invalid
        // way, else the least recently used (first on ties: deterministic).
        let mut invalid = None;
        let (mut lru, mut oldest) = (0, u64::MAX);
        for (i, w) in self.way[s..s + self.ways].iter_mut().enumerate() {
            if w.line == line {
                if touch {
                    w.stamp = clock;
                }
                w.reserved = false;
                w.dirty |= dirty != 0;
                w.valid_sectors |= valid | dirty;
                w.dirty_sectors |= dirty;
                // Fetched (or copied) data makes its sectors readable.
                w.unreadable &= !valid;
                return None;
            }
            if w.reserved {
                continue;
            }
            if w.line == INVALID {
                invalid.get_or_insert(i);
            } else if w.stamp < oldest {
                (lru, oldest) = (i, w.stamp);
            }
        }
        let victim = s + invalid.unwrap_or(lru);
        self.install(victim, line, owner, clock, valid, dirty, false)
    }

    /// True when allocating absent `line` now would evict a line with
    /// dirty sectors (the victim [`TagArray::reserve_way`] and
    /// [`TagArray::fill_sectors`] choose). False when `line` is present or
    /// no way can be had.
    pub fn victim_is_dirty(&self, line: u64) -> bool {
        self.allocation_victim(line).is_ok_and(|i| {
            let w = &self.way[i];
            w.line != INVALID && w.dirty_sectors != 0
        })
    }

    /// Removes `line`; returns true if it was present.
    pub fn invalidate(&mut self, line: u64) -> bool {
        match self.find(line) {
            // A reserved way waits for its fill.
            Some(i) if self.way[i].reserved => false,
            Some(i) => {
                let w = &mut self.way[i];
                w.line = INVALID;
                w.dirty = false;
                true
            }
            None => false,
        }
    }

    /// Invalidates every line (kernel boundary for L1 caches).
    pub fn clear(&mut self) {
        for w in &mut self.way {
            w.line = INVALID;
            w.dirty = false;
            w.reserved = false;
        }
    }

    /// Lines in total.
    pub fn lines(&self) -> usize {
        self.way.len()
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

    /// Against a plain model of LRU sets (a hit refreshes; a fill takes
    /// the first free way, else evicts the least recently used) over
    /// random fills, accesses and invalidations.
    #[test]
    fn agrees_with_an_lru_model() {
        let (sets, ways) = (4u32, 3u32);
        let mut c = TagArray::new(sets, ways);
        // Per set: ways as (line, last use, owner, dirty), `None` if free.
        let mut model = vec![vec![None::<(u64, u64, u32, bool)>; ways as usize]; sets as usize];
        let mut rng = crate::workload::generate::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut rnd = |n: u64| rng.below(n);
        for t in 1..30_000u64 {
            let line = rnd(24);
            let set = &mut model[(line % u64::from(sets)) as usize];
            let at = set.iter().position(|w| w.is_some_and(|w| w.0 == line));
            match rnd(3) {
                0 => {
                    let want = at.map(|i| {
                        let w = set[i].as_mut().expect("present");
                        w.1 = t;
                        w.2
                    });
                    assert_eq!(c.access(line), want);
                }
                1 => {
                    let (owner, dirty) = (rnd(5) as u32, rnd(2) == 1);
                    let want = match at {
                        Some(i) => {
                            let w = set[i].as_mut().expect("present");
                            w.1 = t;
                            w.3 |= dirty;
                            None
                        }
                        None => {
                            let v = set.iter().position(Option::is_none).unwrap_or_else(|| {
                                (0..set.len())
                                    .min_by_key(|&i| set[i].expect("full").1)
                                    .expect("ways")
                            });
                            let old = set[v].map(|w| Evicted {
                                line: w.0,
                                owner: w.2,
                                dirty: w.3,
                                dirty_sectors: if w.3 { u32::MAX } else { 0 },
                            });
                            set[v] = Some((line, t, owner, dirty));
                            old
                        }
                    };
                    assert_eq!(c.fill(line, owner, dirty), want, "fill {line} at {t}");
                }
                _ => {
                    if let Some(i) = at {
                        set[i] = None;
                    }
                    assert_eq!(c.invalidate(line), at.is_some());
                }
            }
        }
    }

    #[test]
    fn fermi_hash_matches_hand_computed_sets() {
        // 0x0000_2080: bits 7-11 = 0b00001, bit 13 set -> upper 0b00001:
        // 1 ^ 1 = 0.
        assert_eq!(TagArray::fermi_hash_set(0x2080, 7, 32), 0);
        // 0x0002_0000 (bit 17) -> upper bit 3: set 8; line bits 0.
        assert_eq!(TagArray::fermi_hash_set(0x2_0000, 7, 32), 8);
        // 0x0008_0f80: lower 0b11111 (bits 7-11), bit 19 -> upper 0b10000:
        // 0b01111 = 15.
        assert_eq!(TagArray::fermi_hash_set(0x8_0f80, 7, 32), 15);
        // 64 sets: bit 12 becomes bit 5 of the set.
        assert_eq!(TagArray::fermi_hash_set(0x1000, 7, 64), 32);
        assert_eq!(TagArray::fermi_hash_set(0x1000, 7, 32), 0);
        // Lines 32 apart (4 KB) map to one set without the hash, to
        // different sets with it once bit 13 and up change.
        let mut c = TagArray::with_fermi_hash(32, 1, 128);
        c.fill(0, 0, false);
        c.fill(64, 0, false); // byte 0x2000: set 1
        assert!(c.contains(0) && c.contains(64));
        let mut plain = TagArray::new(32, 1);
        plain.fill(0, 0, false);
        plain.fill(64, 0, false); // 64 mod 32 = 0: evicts line 0
        assert!(!plain.contains(0) && plain.contains(64));
    }

    /// `lru_at_access`: a reserved line's place in the LRU order is its
    /// reservation (or a later touch), not its fill. Line 10 is reserved
    /// before 11, 11 fills first: the next miss evicts 10 when fills keep
    /// the stamps, 11 when they refresh them. A touch of the pending line
    /// (a merged miss) moves it behind 11 again.
    #[test]
    fn a_fill_that_keeps_the_stamp_leaves_the_line_where_its_miss_put_it() {
        for (touch_fill, touch_pending, victim) in
            [(false, false, 10), (true, false, 11), (false, true, 11)]
        {
            let mut c = TagArray::new(1, 2);
            let (w10, _) = c.reserve_way(10, 1).unwrap();
            let (w11, _) = c.reserve_way(11, 2).unwrap();
            if touch_pending {
                c.touch(w10);
            }
            c.fill_reserved(w11, 11, touch_fill);
            c.fill_reserved(w10, 10, touch_fill);
            let e = c.reserve(12, 3).unwrap().expect("a victim");
            assert_eq!(
                e.line, victim,
                "fill touches {touch_fill}, pending touched {touch_pending}"
            );
        }
        // The same with fill_sectors (the L2's fills).
        for (touch, victim) in [(false, 10), (true, 11)] {
            let mut c = TagArray::new(1, 2);
            c.reserve(10, 0).unwrap();
            c.reserve(11, 0).unwrap();
            c.fill_sectors(11, 0, 0xf, 0, touch);
            c.fill_sectors(10, 0, 0xf, 0, touch);
            let e = c.fill_sectors(12, 0, 0xf, 0, true).expect("a victim");
            assert_eq!(e.line, victim, "fill touches {touch}");
        }
    }

    #[test]
    fn reserved_ways_are_neither_hits_nor_victims() {
        // One set of two ways.
        let mut c = TagArray::new(1, 2);
        assert_eq!(c.reserve(10, 1), Ok(None));
        assert_eq!(c.access(10), None, "pending, not a hit");
        assert_eq!(c.reserve(10, 1), Err(ReservationFail), "already reserved");
        assert_eq!(c.reserve(11, 2), Ok(None));
        assert_eq!(c.reserve(12, 3), Err(ReservationFail), "every way reserved");
        // A fill of an unreserved line cannot take a reserved way... it
        // falls back to a way anyway only when all are reserved; fill 10.
        assert_eq!(c.fill(10, 1, false), None);
        assert_eq!(c.access(10), Some(1));
        // Now 12 may evict 10 (the only unreserved way).
        let e = c
            .reserve(12, 3)
            .expect("way 10 is free")
            .expect("evicts 10");
        assert_eq!(e.line, 10);
        assert!(!c.invalidate(12), "a pending line is not invalidated");
    }

    /// `victim_is_dirty` names the victim an allocation would take: an
    /// invalid way first (clean), else the least recently used way not
    /// reserved, dirty if any of its sectors is.
    #[test]
    fn victim_is_dirty_looks_at_the_way_an_allocation_would_take() {
        // One set of two ways.
        let mut c = TagArray::new(1, 2);
        assert!(!c.victim_is_dirty(7), "an invalid way is free");
        c.fill_sectors(10, 0, 0b1, 0b1, true); // dirty, least recent
        assert!(!c.victim_is_dirty(7), "the other way is still invalid");
        c.fill_sectors(11, 0, 0b1, 0, true); // clean
        assert!(c.victim_is_dirty(7), "10 is the LRU way and dirty");
        assert!(!c.victim_is_dirty(10), "a present line evicts nothing");
        c.touch(c.way_of(10).unwrap());
        assert!(!c.victim_is_dirty(7), "11, clean, is the LRU way now");
        c.reserve(7, 0).unwrap(); // evicts 11 and reserves its way
        assert!(c.victim_is_dirty(8), "the reserved way is skipped: 10");
    }
}
