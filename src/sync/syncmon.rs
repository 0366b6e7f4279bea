//! The synchronization monitor at the L2 (AWG paper, Section V.A "Hardware
//! Components", V.B "Detailed Mechanism", V.C "Hardware Overhead").
//!
//! Structures, as the paper describes them:
//! * **Condition cache**: `sets × ways` entries (paper: 256 × 4 = 1024), each a
//!   waiting condition `(address, waiting value)` with head and tail pointers
//!   into the waiting-WG list. The set is a universal hash of
//!   `(addr << (log2(sets·ways) − log2(line_bytes))) | value` (V.C; see
//!   [`SyncMon::set_index`]).
//! * **Waiting-WG list**: `wg_entries` slots (paper: 512) shared by all
//!   conditions; each condition's waiters form a FIFO (oldest first). Here
//!   the FIFO is a doubly linked list so that a timed-out or context-switched
//!   WG can be unlinked from the middle in O(1).
//! * **Monitor Log**: the in-memory circular buffer of `(address, waiting
//!   value, WG id)` that takes waiters the cache cannot hold (no free way in
//!   the set, or the WG list is full). When it is full too, the waiting atomic
//!   fails without waiting ([`Armed::Full`]). The log is checked only by the
//!   command processor's periodic scan ([`SyncMon::scan_log`]).
//! * **Counting Bloom filters**: a pool of `bloom_filters` (paper: 512 of 24
//!   bits, 6 hashes); one is given to an address when it becomes monitored
//!   and records the values written to it; it is reset and returned when the
//!   address is no longer monitored (V.A).
//! * **Monitored bit**: [`SyncMon::watches`] stands for the L2 tag bit (V.B):
//!   true while any waiter, in the cache or the log, watches the word.
//!
//! Addresses are byte addresses of 32-bit words; every method aligns them
//! down to 4 bytes, so a write reported at `addr + 1` concerns the word at
//! `addr`. This is a pure data structure: it does not model time; the caller
//! (the timing model) decides when writes reach it and what resumed WGs do.
//!
//! Determinism: only `Vec`, `VecDeque` and `BTreeMap`; free lists are stacks
//! with a fixed initial order. No method panics on any call sequence (a WG
//! armed twice is reported by `debug_assert!` in debug builds and handled by
//! re-arming in release builds).

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use super::bloom::{CountingBloom, hash_params, universal_hash};

/// Sizes of the SyncMon's structures (AWG paper, Section V.C).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    /// Condition-cache sets (paper: 256).
    pub sets: u32,
    /// Condition-cache ways per set (paper: 4).
    pub ways: u32,
    /// Slots of the waiting-WG list shared by all conditions (paper: 512).
    pub wg_entries: u32,
    /// Entries of the in-memory Monitor Log (the paper gives no size).
    pub log_entries: u32,
    /// Counting Bloom filters in the pool, one per monitored address (paper: 512).
    pub bloom_filters: u32,
    /// Counters per Bloom filter (paper: 24).
    pub bloom_bits: u32,
    /// Hash functions per Bloom filter (paper: 6).
    pub bloom_hashes: u32,
    /// Cache-line size used by the set hash (the address's line number is
    /// hashed, V.C); the L2 line size.
    pub line_bytes: u32,
}

impl Geometry {
    /// The paper's SyncMon (Section V.C): 256 sets × 4 ways, 512 WG-list
    /// entries, 512 Bloom filters of 24 bits with 6 hashes. Not from the
    /// paper: `line_bytes` = 128 (the L2 line of the simulated GPUs) and
    /// `log_entries` = 4096 (the paper sizes the log only in Figure 13, per
    /// benchmark).
    pub const PAPER: Geometry = Geometry {
        sets: 256,
        ways: 4,
        wg_entries: 512,
        log_entries: 4096,
        bloom_filters: 512,
        bloom_bits: 24,
        bloom_hashes: 6,
        line_bytes: 128,
    };

    /// Largest value accepted by [`Geometry::check`] for any size (and for
    /// `sets × ways`), keeping [`SyncMon::new`]'s allocations bounded.
    pub const MAX_ENTRIES: u64 = 1 << 20;

    /// Checks that the geometry is sensible for [`SyncMon::new`]: every size
    /// (and `sets × ways`, `bloom_filters × bloom_bits`) at most
    /// [`Geometry::MAX_ENTRIES`], `line_bytes` a power of two. Zero sizes are
    /// allowed (a zero-way cache sends every waiter to the log; a zero-entry
    /// log makes overflowing waits fail). The error names the field.
    pub fn check(&self) -> Result<(), String> {
        let sizes = [
            ("sets", self.sets as u64),
            ("ways", self.ways as u64),
            ("wg_entries", self.wg_entries as u64),
            ("log_entries", self.log_entries as u64),
            ("bloom_filters", self.bloom_filters as u64),
            ("bloom_bits", self.bloom_bits as u64),
            ("bloom_hashes", self.bloom_hashes as u64),
            ("sets × ways", self.sets as u64 * self.ways as u64),
            (
                "bloom_filters × bloom_bits",
                self.bloom_filters as u64 * self.bloom_bits as u64,
            ),
        ];
        for (name, v) in sizes {
            if v > Self::MAX_ENTRIES {
                return Err(format!(
                    "syncmon {name} = {v} exceeds {}",
                    Self::MAX_ENTRIES
                ));
            }
        }
        if !self.line_bytes.is_power_of_two() {
            return Err(format!(
                "syncmon line_bytes = {} is not a power of two",
                self.line_bytes
            ));
        }
        Ok(())
    }
}

impl Default for Geometry {
    /// [`Geometry::PAPER`].
    fn default() -> Self {
        Self::PAPER
    }
}

/// What a waiter waits for on a 32-bit word: `Some(v)` until the word holds
/// `v` (MonR/MonNR/AWG, Section IV.C.iv–IV.E), `None` any write (MonRS,
/// sporadic notifications, Section IV.C.iii).
pub type Cond = Option<u32>;

/// Where [`SyncMon::arm`] put a waiter (Section V.A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Armed {
    /// In the condition cache: a write meeting the condition is reported by
    /// [`SyncMon::on_write`].
    Cache,
    /// Spilled to the Monitor Log: found only by [`SyncMon::scan_log`].
    Log,
    /// The Log is full too: the waiting atomic fails without waiting; the WG
    /// keeps running and retries (Mesa semantics). Nothing was registered.
    Full,
}

/// Event counts of a [`SyncMon`] (Section V).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SyncMonStats {
    /// Waiters placed in the condition cache.
    pub armed_cache: u64,
    /// Waiters spilled to the Monitor Log (no free way, or WG list full).
    pub spilled: u64,
    /// Waits that failed because the Monitor Log was full ([`Armed::Full`]).
    pub log_full: u64,
    /// `(address, condition)` pairs reported met by [`SyncMon::on_write`].
    pub conditions_met: u64,
    /// WGs returned by [`SyncMon::resume_one`], [`SyncMon::resume_all`] and
    /// [`SyncMon::scan_log`] (not [`SyncMon::remove`]).
    pub resumed: u64,
    /// Calls of [`SyncMon::scan_log`].
    pub log_scans: u64,
    /// Addresses that became monitored while every Bloom filter was in use
    /// (they have no filter: [`SyncMon::unique_updates`] is `None`).
    pub bloom_filters_unavailable: u64,
    /// Most condition-cache entries in use at once.
    pub peak_conditions: u32,
    /// Most waiters (cache and log) at once.
    pub peak_waiters: u32,
}

/// End of a waiting-WG list chain.
const NIL: u32 = u32::MAX;

/// Index of the universal hash (in [`hash_params`]) for value conditions'
/// set index; the next index is used for sporadic (`None`) conditions. Far
/// from the Bloom filters' indices `0..k`.
const SET_HASH: u32 = 1 << 16;

/// One condition-cache entry: a condition and its FIFO of waiting WGs
/// (Section V.C: "two 9-bit pointers (head and tail)").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CondEntry {
    /// Watched word (aligned).
    addr: u64,
    /// Condition.
    cond: Cond,
    /// Oldest waiter's WG-list slot.
    head: u32,
    /// Youngest waiter's WG-list slot.
    tail: u32,
    /// Number of waiters.
    len: u32,
}

/// One slot of the waiting-WG list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WgSlot {
    /// The waiting WG.
    wg: u32,
    /// Older waiter of the same condition, or [`NIL`].
    prev: u32,
    /// Younger waiter of the same condition, or [`NIL`].
    next: u32,
}

/// Where a waiting WG is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Condition-cache entry and WG-list slot.
    Cache { entry: u32, slot: u32 },
    /// The Monitor Log.
    Log,
}

/// One Monitor Log entry: (address, waiting value, WG id) (Section V.A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LogEntry {
    addr: u64,
    cond: Cond,
    wg: u32,
}

/// A monitored word: how many waiters watch it and its Bloom filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Watch {
    /// Waiters (cache and log) on any condition of this word.
    waiters: u32,
    /// Index of its Bloom filter in the pool, if one was free.
    filter: Option<u32>,
}

/// The SyncMon: condition cache, waiting-WG list, Monitor Log and Bloom
/// filters (AWG paper, Section V.A–V.C). See the module documentation.
#[derive(Clone, Debug)]
pub struct SyncMon {
    /// Sizes.
    geometry: Geometry,
    /// `log2` of the number of cache entries rounded up to a power of two:
    /// the shift of the line number in the set-hash key (V.C).
    key_shift: u32,
    /// Universal-hash parameters of the set index for value conditions and
    /// for sporadic ones ([`hash_params`] of `SET_HASH` and `SET_HASH + 1`).
    set_hash: [(u64, u64); 2],
    /// `sets × ways` entries, set-major (entry `set·ways + way`).
    entries: Vec<Option<CondEntry>>,
    /// Entries in use.
    conditions: u32,
    /// The waiting-WG list.
    slots: Vec<WgSlot>,
    /// Free WG-list slots (a stack; lowest index popped first initially).
    free_slots: Vec<u32>,
    /// The Monitor Log, oldest first.
    log: VecDeque<LogEntry>,
    /// Every waiting WG and where it waits.
    places: BTreeMap<u32, Place>,
    /// Monitored words (the L2 tags' monitored bits).
    watched: BTreeMap<u64, Watch>,
    /// The Bloom filter pool.
    filters: Vec<CountingBloom>,
    /// Free filters (a stack; lowest index popped first initially).
    free_filters: Vec<u32>,
    /// Counters.
    stats: SyncMonStats,
}

/// The 32-bit word containing byte address `addr`.
fn word(addr: u64) -> u64 {
    addr & !3
}

impl SyncMon {
    /// An empty SyncMon of geometry `g` (Section V.C). It allocates
    /// `sets × ways` entries, `wg_entries` slots and `bloom_filters ×
    /// bloom_bits` counters: validate untrusted geometries with
    /// [`Geometry::check`] first. `line_bytes` = 0 is treated as 1.
    pub fn new(g: &Geometry) -> SyncMon {
        let n_entries = (g.sets as usize).saturating_mul(g.ways as usize);
        let key_shift = (n_entries.max(1) as u64)
            .next_power_of_two()
            .trailing_zeros();
        SyncMon {
            geometry: *g,
            key_shift,
            set_hash: [hash_params(SET_HASH), hash_params(SET_HASH + 1)],
            entries: vec![None; n_entries],
            conditions: 0,
            slots: vec![
                WgSlot {
                    wg: 0,
                    prev: NIL,
                    next: NIL
                };
                g.wg_entries as usize
            ],
            free_slots: (0..g.wg_entries).rev().collect(),
            log: VecDeque::new(),
            places: BTreeMap::new(),
            watched: BTreeMap::new(),
            filters: (0..g.bloom_filters)
                .map(|_| CountingBloom::new(g.bloom_bits, g.bloom_hashes))
                .collect(),
            free_filters: (0..g.bloom_filters).rev().collect(),
            stats: SyncMonStats::default(),
        }
    }

    /// The geometry this SyncMon was built with.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// Condition-cache set of `(addr, cond)` (Section V.C): "the address is
    /// shifted left with log of number of cache entries, after subtracting
    /// log of cacheline size, and bitwise ORed with the waiting value", read
    /// as `(addr << (log2(sets·ways) − log2(line_bytes))) | value` (a right
    /// shift when the line is larger than the cache has entries), then a
    /// universal hash modulo `sets`. Every word keeps its own key, so the
    /// words of one line waiting for one value spread over the sets.
    /// Sporadic conditions (`None`) use a second, independent hash of the
    /// shifted address alone. 0 when there are no sets.
    pub fn set_index(&self, addr: u64, cond: Cond) -> u32 {
        if self.geometry.sets == 0 {
            return 0;
        }
        let line_log = u64::from(self.geometry.line_bytes.max(1))
            .next_power_of_two()
            .trailing_zeros();
        let w = word(addr) as u128;
        let shifted = if self.key_shift >= line_log {
            w << (self.key_shift - line_log)
        } else {
            w >> (line_log - self.key_shift)
        };
        let (key, (a, b)) = match cond {
            Some(v) => (shifted | v as u128, self.set_hash[0]),
            None => (shifted, self.set_hash[1]),
        };
        universal_hash(a, b, key, self.geometry.sets as u64) as u32
    }

    /// Cache entry holding `(addr, cond)`, if any (`addr` aligned).
    fn find(&self, addr: u64, cond: Cond) -> Option<usize> {
        let ways = self.geometry.ways as usize;
        let base = self.set_index(addr, cond) as usize * ways;
        (base..base + ways).find(
            |&i| matches!(self.entries.get(i), Some(Some(e)) if e.addr == addr && e.cond == cond),
        )
    }

    /// Cache entry for `(addr, cond)`: the existing one, else a newly
    /// allocated free way of its set, else `None` (`addr` aligned).
    fn find_or_allocate(&mut self, addr: u64, cond: Cond) -> Option<usize> {
        if let Some(i) = self.find(addr, cond) {
            return Some(i);
        }
        let ways = self.geometry.ways as usize;
        let base = self.set_index(addr, cond) as usize * ways;
        let i = (base..base + ways).find(|&i| matches!(self.entries.get(i), Some(None)))?;
        self.entries[i] = Some(CondEntry {
            addr,
            cond,
            head: NIL,
            tail: NIL,
            len: 0,
        });
        self.conditions += 1;
        self.stats.peak_conditions = self.stats.peak_conditions.max(self.conditions);
        Some(i)
    }

    /// Registers work-group `wg` waiting on the word at `addr` for `cond`
    /// (Section V.B steps 3–4). It joins the condition-cache entry of
    /// `(addr, cond)` (the existing one, else a free way of its set) at the
    /// tail of that entry's FIFO in the WG list; if the set has no free way or
    /// the WG list is full, it goes to the tail of the Monitor Log; if that is
    /// full too, nothing is registered and [`Armed::Full`] is returned (the
    /// wait fails, V.A). A `wg` already waiting is a caller bug
    /// (`debug_assert!`); release builds first remove the old registration.
    pub fn arm(&mut self, addr: u64, cond: Cond, wg: u32) -> Armed {
        let addr = word(addr);
        if self.places.contains_key(&wg) {
            debug_assert!(false, "work-group {wg} armed while already waiting");
            self.remove(wg);
        }
        let entry = if self.free_slots.is_empty() {
            None
        } else {
            self.find_or_allocate(addr, cond)
        };
        let cached = entry.and_then(|i| self.free_slots.pop().map(|slot| (i, slot)));
        let armed = if let Some((i, slot)) = cached {
            self.push_waiter(i, slot, wg);
            self.places.insert(
                wg,
                Place::Cache {
                    entry: i as u32,
                    slot,
                },
            );
            self.stats.armed_cache += 1;
            Armed::Cache
        } else if self.log.len() < self.geometry.log_entries as usize {
            self.log.push_back(LogEntry { addr, cond, wg });
            self.places.insert(wg, Place::Log);
            self.stats.spilled += 1;
            Armed::Log
        } else {
            self.stats.log_full += 1;
            return Armed::Full;
        };
        self.watch(addr);
        self.stats.peak_waiters = self.stats.peak_waiters.max(self.places.len() as u32);
        armed
    }

    /// Appends `wg` in `slot` at the tail of entry `i`'s FIFO.
    fn push_waiter(&mut self, i: usize, slot: u32, wg: u32) {
        let Some(Some(e)) = self.entries.get_mut(i) else {
            return;
        };
        let old_tail = e.tail;
        e.tail = slot;
        if old_tail == NIL {
            e.head = slot;
        }
        e.len += 1;
        self.slots[slot as usize] = WgSlot {
            wg,
            prev: old_tail,
            next: NIL,
        };
        if old_tail != NIL {
            self.slots[old_tail as usize].next = slot;
        }
    }

    /// Unlinks `slot` from entry `i`'s FIFO, frees the slot and, when the
    /// FIFO empties, the entry.
    fn unlink(&mut self, i: usize, slot: u32) {
        let WgSlot { prev, next, .. } = self.slots[slot as usize];
        if prev != NIL {
            self.slots[prev as usize].next = next;
        }
        if next != NIL {
            self.slots[next as usize].prev = prev;
        }
        self.free_slots.push(slot);
        if let Some(Some(e)) = self.entries.get_mut(i) {
            if e.head == slot {
                e.head = next;
            }
            if e.tail == slot {
                e.tail = prev;
            }
            e.len = e.len.saturating_sub(1);
            if e.len == 0 {
                self.entries[i] = None;
                self.conditions = self.conditions.saturating_sub(1);
            }
        }
    }

    /// One more waiter watches `addr`: sets the monitored bit and, on the
    /// first waiter, gives the address a Bloom filter if one is free.
    fn watch(&mut self, addr: u64) {
        if let Some(w) = self.watched.get_mut(&addr) {
            w.waiters += 1;
            return;
        }
        let filter = self.free_filters.pop();
        if filter.is_none() {
            self.stats.bloom_filters_unavailable += 1;
        }
        self.watched.insert(addr, Watch { waiters: 1, filter });
    }

    /// One waiter of `addr` left: when none is left, clears the monitored bit
    /// and resets and frees its Bloom filter (Section V.A).
    fn unwatch(&mut self, addr: u64) {
        let Some(w) = self.watched.get_mut(&addr) else {
            return;
        };
        w.waiters = w.waiters.saturating_sub(1);
        if w.waiters > 0 {
            return;
        }
        let filter = w.filter;
        self.watched.remove(&addr);
        if let Some(f) = filter {
            self.filters[f as usize].reset();
            self.free_filters.push(f);
        }
    }

    /// True if any waiter, in the cache or the log, watches the word at
    /// `addr`: the L2 tag's monitored bit (Section V.B). O(log n) in the
    /// number of monitored words; O(1) when nothing is monitored.
    pub fn watches(&self, addr: u64) -> bool {
        !self.watched.is_empty() && self.watched.contains_key(&word(addr))
    }

    /// A write made the word at `addr` hold `value` (Section V.B step 3: the
    /// L2 passes updates of monitored lines to the SyncMon). Records `value`
    /// in the address's Bloom filter, then appends to `out` every cache
    /// condition on the word that the write meets: `Some(value)` first, then
    /// `None` (any write). Nothing is removed: the caller resumes waiters with
    /// [`Self::resume_one`] / [`Self::resume_all`]. Log entries are not
    /// checked (the command processor does, [`Self::scan_log`]). Does nothing
    /// if the word is not watched.
    pub fn on_write(&mut self, addr: u64, value: u32, out: &mut Vec<(u64, Cond)>) {
        let addr = word(addr);
        let Some(w) = self.watched.get(&addr) else {
            return;
        };
        if let Some(f) = w.filter {
            self.filters[f as usize].insert(value as u64);
        }
        for cond in [Some(value), None] {
            if self.find(addr, cond).is_some() {
                out.push((addr, cond));
                self.stats.conditions_met += 1;
            }
        }
    }

    /// Number of WGs waiting on the cache condition `(addr, cond)` (log
    /// entries not counted); 0 if the cache does not hold it (Section V.A:
    /// AWG's prediction counts waiting WGs per condition).
    pub fn waiters(&self, addr: u64, cond: Cond) -> usize {
        match self.find(word(addr), cond) {
            Some(i) => self.entries[i].map_or(0, |e| e.len as usize),
            None => 0,
        }
    }

    /// Removes and returns the oldest waiter of the cache condition `(addr,
    /// cond)` (MonNR-One / AWG resume-one, Section IV.E); `None` if there is
    /// none. The entry is freed when it empties, the address unmonitored (and
    /// its filter reset) when no waiter is left.
    pub fn resume_one(&mut self, addr: u64, cond: Cond) -> Option<u32> {
        let addr = word(addr);
        let i = self.find(addr, cond)?;
        let slot = self.entries[i]?.head;
        if slot == NIL {
            return None;
        }
        let wg = self.slots[slot as usize].wg;
        self.unlink(i, slot);
        self.places.remove(&wg);
        self.unwatch(addr);
        self.stats.resumed += 1;
        Some(wg)
    }

    /// Removes every waiter of the cache condition `(addr, cond)`, oldest
    /// first, into `out` (MonR-All / MonNR-All / AWG resume-all, Section
    /// IV.C–IV.E); the entry is freed.
    pub fn resume_all(&mut self, addr: u64, cond: Cond, out: &mut Vec<u32>) {
        while let Some(wg) = self.resume_one(addr, cond) {
            out.push(wg);
        }
    }

    /// Removes `wg` wherever it waits (cache or log), e.g. because a timeout
    /// or a context switch resumed it by other means (Section V.A: "eventually
    /// the stalled WGs will time out"). True if it was waiting. Not counted as
    /// resumed.
    pub fn remove(&mut self, wg: u32) -> bool {
        let Some(place) = self.places.remove(&wg) else {
            return false;
        };
        let addr = match place {
            Place::Cache { entry, slot } => {
                let addr = self.entries[entry as usize].map(|e| e.addr);
                self.unlink(entry as usize, slot);
                addr
            }
            Place::Log => {
                let pos = self.log.iter().position(|e| e.wg == wg);
                pos.and_then(|p| self.log.remove(p)).map(|e| e.addr)
            }
        };
        if let Some(addr) = addr {
            self.unwatch(addr);
        }
        true
    }

    /// Unique values written to the word at `addr` since it became monitored
    /// (its filter was allocated), as estimated by its counting Bloom filter
    /// (Section V.A; never above the true count). `None` if the word is not
    /// monitored or got no filter.
    pub fn unique_updates(&self, addr: u64) -> Option<u32> {
        let f = self.watched.get(&word(addr))?.filter?;
        Some(self.filters[f as usize].unique())
    }

    /// The command processor's periodic scan of the Monitor Log (Section V.B
    /// step 9): every log entry whose condition holds according to
    /// `read(addr)` (current memory; `addr` the aligned word) is removed and
    /// its WG appended to `out`, in log order; sporadic (`None`) entries are
    /// resumed by any scan. The others stay, in order.
    pub fn scan_log(&mut self, read: impl Fn(u64) -> u32, out: &mut Vec<u32>) {
        self.stats.log_scans += 1;
        let log = std::mem::take(&mut self.log);
        let mut kept = VecDeque::with_capacity(log.len());
        for e in log {
            let met = match e.cond {
                Some(v) => read(e.addr) == v,
                None => true,
            };
            if met {
                out.push(e.wg);
                self.places.remove(&e.wg);
                self.unwatch(e.addr);
                self.stats.resumed += 1;
            } else {
                kept.push_back(e);
            }
        }
        self.log = kept;
    }

    /// Every waiter as `(wg, addr, cond)`: cache entries in entry order (set,
    /// then way), each FIFO oldest first, then the Monitor Log oldest first.
    /// For deadlock reports.
    pub fn all_waiters(&self) -> Vec<(u32, u64, Cond)> {
        let mut out = Vec::with_capacity(self.places.len());
        for e in self.entries.iter().flatten() {
            let mut s = e.head;
            while s != NIL {
                let slot = self.slots[s as usize];
                out.push((slot.wg, e.addr, e.cond));
                s = slot.next;
            }
        }
        out.extend(self.log.iter().map(|e| (e.wg, e.addr, e.cond)));
        out
    }

    /// Where `wg` waits: `Some(Armed::Cache)`, `Some(Armed::Log)`, or `None`
    /// if it is not waiting.
    pub fn place_of(&self, wg: u32) -> Option<Armed> {
        self.places.get(&wg).map(|p| match p {
            Place::Cache { .. } => Armed::Cache,
            Place::Log => Armed::Log,
        })
    }

    /// Waiters registered (cache and log).
    pub fn waiting(&self) -> usize {
        self.places.len()
    }

    /// Condition-cache entries in use.
    pub fn conditions(&self) -> u32 {
        self.conditions
    }

    /// Entries in the Monitor Log.
    pub fn log_len(&self) -> usize {
        self.log.len()
    }

    /// Event counts since construction.
    pub fn stats(&self) -> &SyncMonStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small geometry for hand-checked tests.
    fn small(sets: u32, ways: u32, wg_entries: u32, log_entries: u32) -> Geometry {
        Geometry {
            sets,
            ways,
            wg_entries,
            log_entries,
            bloom_filters: 4,
            bloom_bits: 24,
            bloom_hashes: 6,
            line_bytes: 128,
        }
    }

    /// Seeded xorshift64* generator (no crate).
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Checks the internal structures against each other: FIFO links, the
    /// WG → place map, entry and slot counts, watch counts and filters.
    fn check_invariants(m: &SyncMon) {
        let mut used_slots = 0usize;
        let mut in_cache = BTreeMap::new();
        for (i, e) in m.entries.iter().enumerate() {
            let Some(e) = e else { continue };
            assert_eq!(m.find(e.addr, e.cond), Some(i), "entry in the wrong set");
            let (mut s, mut prev, mut n) = (e.head, NIL, 0);
            while s != NIL {
                let slot = m.slots[s as usize];
                assert_eq!(slot.prev, prev);
                assert_eq!(
                    m.places.get(&slot.wg),
                    Some(&Place::Cache {
                        entry: i as u32,
                        slot: s
                    })
                );
                *in_cache.entry(e.addr).or_insert(0u32) += 1;
                prev = s;
                s = slot.next;
                n += 1;
            }
            assert_eq!(e.tail, prev);
            assert!(n > 0 && n == e.len, "entry length");
            used_slots += n as usize;
        }
        assert_eq!(m.conditions as usize, m.entries.iter().flatten().count());
        assert_eq!(used_slots + m.free_slots.len(), m.slots.len());
        let mut per_addr = in_cache;
        for e in &m.log {
            assert_eq!(m.places.get(&e.wg), Some(&Place::Log));
            *per_addr.entry(e.addr).or_insert(0) += 1;
        }
        assert_eq!(used_slots + m.log.len(), m.places.len());
        let watched: BTreeMap<u64, u32> = m.watched.iter().map(|(&a, w)| (a, w.waiters)).collect();
        assert_eq!(watched, per_addr);
        let mut filters: Vec<u32> = m.watched.values().filter_map(|w| w.filter).collect();
        filters.extend(&m.free_filters);
        filters.sort_unstable();
        assert_eq!(filters, (0..m.filters.len() as u32).collect::<Vec<_>>());
        for &f in &m.free_filters {
            assert_eq!(m.filters[f as usize].unique(), 0, "free filter not reset");
        }
    }

    /// `count` distinct value conditions (on distinct lines) that hash to one set.
    fn colliding(m: &SyncMon, count: usize) -> Vec<(u64, Cond)> {
        let target = m.set_index(0x1000, Some(1));
        let mut out = vec![(0x1000, Some(1))];
        let mut line = 0x1000u64;
        while out.len() < count {
            line += 128;
            if m.set_index(line, Some(1)) == target {
                out.push((line, Some(1)));
            }
        }
        out
    }

    #[test]
    fn set_index_keeps_every_word_and_spreads_lines() {
        let m = SyncMon::new(&Geometry::PAPER);
        // 1024 entries and 128-byte lines: the key is addr << 3 | value, so
        // the 32 words of one line waiting for one value are 32 keys.
        assert_eq!(m.key_shift, 10);
        let sets: std::collections::BTreeSet<u32> = (0..128)
            .step_by(4)
            .map(|off| m.set_index(0x4000 + off, Some(1)))
            .collect();
        assert!(sets.len() >= 24, "32 words in {} sets", sets.len());
        let mut hits = vec![0u32; 256];
        for line in 0..25_600u64 {
            let s = m.set_index(line * 128, Some(0));
            assert!(s < 256);
            hits[s as usize] += 1;
        }
        let (lo, hi) = (hits.iter().min().unwrap(), hits.iter().max().unwrap());
        assert!(*lo >= 50 && *hi <= 160, "set load {lo}..{hi}");
    }

    #[test]
    fn fifth_condition_in_a_four_way_set_spills_to_the_log() {
        let mut m = SyncMon::new(&Geometry::PAPER);
        let keys = colliding(&m, 5);
        for (wg, &(addr, cond)) in keys.iter().take(4).enumerate() {
            assert_eq!(m.arm(addr, cond, wg as u32), Armed::Cache);
        }
        assert_eq!(m.arm(keys[4].0, keys[4].1, 4), Armed::Log);
        assert_eq!(m.conditions(), 4);
        assert_eq!(m.log_len(), 1);
        // A waiter of a condition already cached joins its entry.
        assert_eq!(m.arm(keys[0].0, keys[0].1, 5), Armed::Cache);
        assert_eq!(m.waiters(keys[0].0, keys[0].1), 2);
        // A condition of another set still finds a way.
        let other = (1u64..)
            .map(|l| l * 128)
            .find(|&a| m.set_index(a, Some(1)) != m.set_index(keys[0].0, Some(1)))
            .unwrap();
        assert_eq!(m.arm(other, Some(1), 6), Armed::Cache);
        assert_eq!(m.conditions(), 5);
        // Freeing one way of the full set lets the next new condition in.
        let mut out = vec![];
        m.resume_all(keys[1].0, keys[1].1, &mut out);
        assert_eq!(out, vec![1]);
        let sixth = colliding(&m, 6)[5];
        assert_eq!(m.arm(sixth.0, sixth.1, 7), Armed::Cache);
        let s = m.stats();
        assert_eq!((s.armed_cache, s.spilled, s.peak_conditions), (7, 1, 5));
        check_invariants(&m);
    }

    #[test]
    fn waiter_513_spills_when_the_wg_list_is_full() {
        let mut m = SyncMon::new(&Geometry::PAPER);
        for wg in 0..512 {
            assert_eq!(m.arm(0x2000, Some(0), wg), Armed::Cache);
        }
        assert_eq!(m.waiters(0x2000, Some(0)), 512);
        assert_eq!(m.arm(0x2000, Some(0), 512), Armed::Log);
        // A new condition does not take a way when no WG slot is free.
        assert_eq!(m.arm(0x3000, Some(5), 513), Armed::Log);
        assert_eq!(m.conditions(), 1);
        assert_eq!(m.waiters(0x3000, Some(5)), 0);
        assert!(m.watches(0x3000));
        // One slot freed: the next waiter is cached again.
        assert_eq!(m.resume_one(0x2000, Some(0)), Some(0));
        assert_eq!(m.arm(0x3000, Some(5), 514), Armed::Cache);
        assert_eq!(m.stats().peak_waiters, 514);
        check_invariants(&m);
    }

    #[test]
    fn full_log_makes_the_wait_fail() {
        let mut m = SyncMon::new(&small(1, 1, 1, 2));
        assert_eq!(m.arm(0x100, Some(1), 0), Armed::Cache);
        assert_eq!(m.arm(0x100, Some(1), 1), Armed::Log);
        assert_eq!(m.arm(0x200, Some(1), 2), Armed::Log);
        assert_eq!(m.arm(0x300, Some(1), 3), Armed::Full);
        assert!(!m.watches(0x300), "a failed wait registers nothing");
        assert_eq!(m.place_of(3), None);
        assert!(!m.remove(3));
        assert_eq!(m.waiting(), 3);
        assert_eq!(m.stats().log_full, 1);
        // The CP frees a log entry: the next wait is accepted again.
        let mut out = vec![];
        m.scan_log(|a| if a == 0x200 { 1 } else { 0 }, &mut out);
        assert_eq!(out, vec![2]);
        assert_eq!(m.arm(0x300, Some(1), 3), Armed::Log);
        check_invariants(&m);
    }

    #[test]
    fn resume_one_is_fifo_and_frees_the_entry() {
        let mut m = SyncMon::new(&Geometry::PAPER);
        for wg in [7, 3, 9] {
            assert_eq!(m.arm(0x40, Some(0), wg), Armed::Cache);
        }
        assert_eq!(m.resume_one(0x40, Some(0)), Some(7));
        assert_eq!(m.waiters(0x40, Some(0)), 2);
        assert_eq!(m.resume_one(0x40, Some(0)), Some(3));
        assert_eq!(m.resume_one(0x40, Some(0)), Some(9));
        assert_eq!(m.resume_one(0x40, Some(0)), None);
        assert_eq!(m.conditions(), 0);
        assert!(!m.watches(0x40));
        assert_eq!(m.stats().resumed, 3);
        check_invariants(&m);
    }

    #[test]
    fn resume_all_frees_entries_and_clears_the_monitored_bit_last() {
        let mut m = SyncMon::new(&Geometry::PAPER);
        m.arm(0x80, Some(1), 0);
        m.arm(0x80, Some(1), 1);
        m.arm(0x80, Some(2), 2);
        m.arm(0x84, Some(1), 3);
        let mut out = vec![];
        m.resume_all(0x80, Some(1), &mut out);
        assert_eq!(out, vec![0, 1]);
        assert_eq!(m.waiters(0x80, Some(1)), 0);
        assert!(m.watches(0x80), "condition Some(2) still watches the word");
        assert!(m.watches(0x84));
        m.resume_all(0x80, Some(2), &mut out);
        assert_eq!(out, vec![0, 1, 2]);
        assert!(!m.watches(0x80));
        assert!(
            m.watches(0x84),
            "another word of the same line stays watched"
        );
        assert_eq!(m.conditions(), 1);
        assert_eq!(m.stats().resumed, 3);
        check_invariants(&m);
    }

    #[test]
    fn bloom_filter_counts_unique_updates_and_resets_when_unwatched() {
        let mut m = SyncMon::new(&small(256, 4, 512, 16));
        assert_eq!(m.unique_updates(0x100), None);
        m.arm(0x100, Some(9), 0);
        m.arm(0x100, Some(9), 1);
        assert_eq!(m.unique_updates(0x100), Some(0));
        let mut met = vec![];
        let mut reference = CountingBloom::new(24, 6);
        for v in [1, 2, 2, 3, 1, 3] {
            m.on_write(0x100, v, &mut met);
            reference.insert(v as u64);
        }
        assert!(met.is_empty());
        // Three distinct values; a false positive could only lower the count.
        let unique = m.unique_updates(0x100).unwrap();
        assert_eq!(unique, reference.unique());
        assert!((2..=3).contains(&unique));
        // Resuming one waiter keeps the address monitored and the count.
        assert_eq!(m.resume_one(0x100, Some(9)), Some(0));
        assert_eq!(m.unique_updates(0x100), Some(unique));
        // The last waiter leaves: the filter is reset and returned.
        assert!(m.remove(1));
        assert_eq!(m.unique_updates(0x100), None);
        m.arm(0x100, Some(9), 2);
        assert_eq!(m.unique_updates(0x100), Some(0));
        check_invariants(&m);
    }

    #[test]
    fn addresses_beyond_the_filter_pool_have_no_filter() {
        let mut g = small(256, 4, 512, 16);
        g.bloom_filters = 1;
        let mut m = SyncMon::new(&g);
        m.arm(0x100, Some(1), 0);
        m.arm(0x200, Some(1), 1);
        assert_eq!(m.unique_updates(0x100), Some(0));
        assert_eq!(m.unique_updates(0x200), None);
        assert_eq!(m.stats().bloom_filters_unavailable, 1);
        let mut met = vec![];
        m.on_write(0x200, 1, &mut met);
        assert_eq!(met, vec![(0x200, Some(1))], "no filter, still monitored");
        m.resume_one(0x100, Some(1));
        m.arm(0x300, Some(1), 2);
        assert_eq!(
            m.unique_updates(0x300),
            Some(0),
            "the freed filter is reused"
        );
        check_invariants(&m);
    }

    #[test]
    fn on_write_meets_only_matching_conditions() {
        let mut m = SyncMon::new(&Geometry::PAPER);
        m.arm(0xA0, Some(1), 0);
        m.arm(0xA0, Some(2), 1);
        m.arm(0xB0, Some(1), 2);
        let mut met = vec![];
        m.on_write(0xA0, 3, &mut met);
        assert!(met.is_empty());
        m.on_write(0xA0, 1, &mut met);
        assert_eq!(met, vec![(0xA0, Some(1))]);
        met.clear();
        m.on_write(0xB0, 2, &mut met);
        assert!(met.is_empty());
        m.on_write(0xC0, 1, &mut met); // unwatched word
        assert!(met.is_empty());
        // Reporting does not resume: the condition is met again by the next write.
        m.on_write(0xA1, 1, &mut met); // byte address inside the word 0xA0
        assert_eq!(met, vec![(0xA0, Some(1))]);
        assert_eq!(m.waiters(0xA0, Some(1)), 1);
        assert_eq!(m.stats().conditions_met, 2);
        assert_eq!(m.stats().resumed, 0);
    }

    #[test]
    fn sporadic_conditions_are_met_by_any_write() {
        let mut m = SyncMon::new(&Geometry::PAPER);
        m.arm(0x10, None, 0);
        let mut met = vec![];
        m.on_write(0x10, 12345, &mut met);
        assert_eq!(met, vec![(0x10, None)]);
        m.arm(0x10, Some(4), 1);
        met.clear();
        m.on_write(0x10, 4, &mut met);
        assert_eq!(met, vec![(0x10, Some(4)), (0x10, None)]);
        met.clear();
        m.on_write(0x10, 0, &mut met);
        assert_eq!(met, vec![(0x10, None)]);
        let mut out = vec![];
        m.resume_all(0x10, None, &mut out);
        assert_eq!(out, vec![0]);
        assert!(m.watches(0x10));
    }

    #[test]
    fn scan_log_resumes_exactly_the_satisfied_entries() {
        // No ways: every waiter goes to the log.
        let mut m = SyncMon::new(&small(4, 0, 8, 8));
        assert_eq!(m.arm(0xA0, Some(1), 10), Armed::Log);
        assert_eq!(m.arm(0xB0, Some(2), 11), Armed::Log);
        assert_eq!(m.arm(0xA0, None, 12), Armed::Log);
        assert_eq!(m.arm(0xC0, Some(0), 13), Armed::Log);
        assert_eq!(m.arm(0xA0, Some(2), 14), Armed::Log);
        // Log entries are not reported by on_write.
        let mut met = vec![];
        m.on_write(0xA0, 1, &mut met);
        assert!(met.is_empty());
        let mem = |a: u64| match a {
            0xA0 => 1,
            0xB0 => 5,
            _ => 0,
        };
        let mut out = vec![];
        m.scan_log(mem, &mut out);
        assert_eq!(out, vec![10, 12, 13]);
        assert_eq!(
            m.all_waiters(),
            vec![(11, 0xB0, Some(2)), (14, 0xA0, Some(2))]
        );
        assert!(!m.watches(0xC0));
        assert!(m.watches(0xA0));
        out.clear();
        m.scan_log(|_| 2, &mut out);
        assert_eq!(out, vec![11, 14]);
        assert_eq!(m.waiting(), 0);
        assert_eq!(m.stats().log_scans, 2);
        assert_eq!(m.stats().resumed, 5);
        check_invariants(&m);
    }

    #[test]
    fn remove_from_cache_middle_and_from_log() {
        let mut m = SyncMon::new(&small(1, 1, 3, 4));
        for wg in 1..=3 {
            assert_eq!(m.arm(0x20, Some(0), wg), Armed::Cache);
        }
        assert_eq!(m.arm(0x20, Some(0), 4), Armed::Log);
        assert_eq!(m.arm(0x60, Some(0), 5), Armed::Log);
        assert!(m.remove(2));
        assert!(!m.remove(2));
        assert!(m.remove(5));
        assert!(!m.watches(0x60));
        assert_eq!(
            m.all_waiters(),
            vec![(1, 0x20, Some(0)), (3, 0x20, Some(0)), (4, 0x20, Some(0))]
        );
        let mut out = vec![];
        m.resume_all(0x20, Some(0), &mut out);
        assert_eq!(out, vec![1, 3]);
        assert!(m.watches(0x20), "wg 4 still waits in the log");
        assert!(m.remove(4));
        assert!(!m.watches(0x20));
        assert_eq!(m.stats().resumed, 2);
        check_invariants(&m);
    }

    #[test]
    fn zero_geometry_never_panics() {
        let zero = Geometry {
            sets: 0,
            ways: 0,
            wg_entries: 0,
            log_entries: 0,
            bloom_filters: 0,
            bloom_bits: 0,
            bloom_hashes: 0,
            line_bytes: 0,
        };
        assert!(zero.check().is_err(), "line_bytes 0 is not a power of two");
        let mut m = SyncMon::new(&zero);
        assert_eq!(m.arm(0, Some(0), 0), Armed::Full);
        let mut met = vec![];
        m.on_write(0, 0, &mut met);
        assert!(met.is_empty() && !m.watches(0));
        assert_eq!(m.resume_one(0, Some(0)), None);
        let mut out = vec![];
        m.scan_log(|_| 0, &mut out);
        assert!(out.is_empty());
        // Log only, no filters.
        let mut m = SyncMon::new(&Geometry {
            log_entries: 1,
            ..zero
        });
        assert_eq!(m.arm(0, None, 0), Armed::Log);
        assert_eq!(m.unique_updates(0), None);
        assert_eq!(m.stats().bloom_filters_unavailable, 1);
        check_invariants(&m);
    }

    #[test]
    fn geometry_check_rejects_huge_sizes() {
        assert_eq!(Geometry::PAPER.check(), Ok(()));
        let g = Geometry {
            sets: 1 << 16,
            ways: 1 << 8,
            ..Geometry::PAPER
        };
        assert!(g.check().unwrap_err().contains("sets × ways"));
        let g = Geometry {
            line_bytes: 96,
            ..Geometry::PAPER
        };
        assert!(g.check().unwrap_err().contains("line_bytes"));
    }

    #[cfg(not(debug_assertions))]
    #[test]
    fn arming_a_waiting_wg_again_moves_it_in_release_builds() {
        let mut m = SyncMon::new(&Geometry::PAPER);
        m.arm(0x10, Some(1), 0);
        m.arm(0x20, Some(2), 0);
        assert_eq!(m.all_waiters(), vec![(0, 0x20, Some(2))]);
        assert!(!m.watches(0x10));
        check_invariants(&m);
    }

    /// Independent reference model: waiters in arrival order with their place.
    struct Model {
        g: Geometry,
        waiters: Vec<(u32, u64, Cond, Armed)>,
    }

    impl Model {
        fn cached_conds(&self) -> Vec<(u64, Cond)> {
            let mut c: Vec<(u64, Cond)> = self
                .waiters
                .iter()
                .filter(|w| w.3 == Armed::Cache)
                .map(|w| (w.1, w.2))
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        }

        /// Place of a new waiter: capacity rules of Section V.A, with the set
        /// of each condition from `m.set_index`.
        fn arm(&mut self, m: &SyncMon, addr: u64, cond: Cond, wg: u32) -> Armed {
            let addr = addr & !3;
            let slots_used = self.waiters.iter().filter(|w| w.3 == Armed::Cache).count();
            let logged = self.waiters.len() - slots_used;
            let conds = self.cached_conds();
            let set = m.set_index(addr, cond);
            let in_set = conds
                .iter()
                .filter(|c| m.set_index(c.0, c.1) == set)
                .count();
            let place = if slots_used < self.g.wg_entries as usize
                && (conds.contains(&(addr, cond)) || in_set < self.g.ways as usize)
            {
                Armed::Cache
            } else if logged < self.g.log_entries as usize {
                Armed::Log
            } else {
                return Armed::Full;
            };
            self.waiters.push((wg, addr, cond, place));
            place
        }

        fn resume_one(&mut self, addr: u64, cond: Cond) -> Option<u32> {
            let i = self
                .waiters
                .iter()
                .position(|w| w.3 == Armed::Cache && (w.1, w.2) == (addr, cond))?;
            Some(self.waiters.remove(i).0)
        }

        fn on_write(&self, addr: u64, value: u32) -> Vec<(u64, Cond)> {
            let conds = self.cached_conds();
            [Some(value), None]
                .into_iter()
                .filter(|&c| conds.contains(&(addr, c)))
                .map(|c| (addr, c))
                .collect()
        }

        fn scan_log(&mut self, mem: &BTreeMap<u64, u32>) -> Vec<u32> {
            let met = |w: &(u32, u64, Cond, Armed)| {
                w.3 == Armed::Log && w.2.is_none_or(|v| mem.get(&w.1).copied().unwrap_or(0) == v)
            };
            let out = self
                .waiters
                .iter()
                .filter(|w| met(w))
                .map(|w| w.0)
                .collect();
            self.waiters.retain(|w| !met(w));
            out
        }
    }

    /// One random operation applied to both, compared.
    fn step(
        r: &mut XorShift,
        m: &mut SyncMon,
        model: &mut Model,
        mem: &mut BTreeMap<u64, u32>,
        written: &mut BTreeMap<u64, std::collections::BTreeSet<u32>>,
    ) {
        let addrs = [0x100u64, 0x104, 0x180, 0x200, 0x1000, 0x1084];
        let addr = addrs[r.below(addrs.len() as u64) as usize] + r.below(4) * (r.below(8) / 7);
        let cond = match r.below(5) {
            0 => None,
            v => Some(v as u32 - 1),
        };
        let waddr = addr & !3;
        match r.below(10) {
            0..=3 => {
                let wg = r.below(40) as u32;
                if model.waiters.iter().any(|w| w.0 == wg) {
                    return;
                }
                let expected = model.arm(m, addr, cond, wg);
                assert_eq!(m.arm(addr, cond, wg), expected);
            }
            4..=5 => {
                let value = r.below(4) as u32;
                mem.insert(waddr, value);
                let watched = m.watches(addr);
                assert_eq!(watched, model.waiters.iter().any(|w| w.1 == waddr));
                if watched {
                    written.entry(waddr).or_default().insert(value);
                }
                let mut met = vec![];
                m.on_write(addr, value, &mut met);
                assert_eq!(met, model.on_write(waddr, value));
                // Resume the met conditions as a policy would: one or all.
                for (a, c) in met {
                    if r.below(2) == 0 {
                        assert_eq!(m.resume_one(a, c), model.resume_one(a, c));
                    } else {
                        let mut out = vec![];
                        m.resume_all(a, c, &mut out);
                        let mut exp = vec![];
                        while let Some(wg) = model.resume_one(a, c) {
                            exp.push(wg);
                        }
                        assert_eq!(out, exp);
                    }
                }
            }
            6 => {
                assert_eq!(m.resume_one(addr, cond), model.resume_one(waddr, cond));
            }
            7 => {
                let wg = r.below(40) as u32;
                let i = model.waiters.iter().position(|w| w.0 == wg);
                assert_eq!(m.remove(wg), i.is_some());
                if let Some(i) = i {
                    model.waiters.remove(i);
                }
            }
            8 => {
                let mut out = vec![];
                m.scan_log(|a| mem.get(&a).copied().unwrap_or(0), &mut out);
                assert_eq!(out, model.scan_log(mem));
            }
            _ => {
                let n = m.waiters(addr, cond);
                let exp = model
                    .waiters
                    .iter()
                    .filter(|w| w.3 == Armed::Cache && (w.1, w.2) == (waddr, cond))
                    .count();
                assert_eq!(n, exp);
            }
        }
        // Same waiters, same places.
        let mut got = m.all_waiters();
        got.sort_unstable();
        let mut exp: Vec<(u32, u64, Cond)> =
            model.waiters.iter().map(|w| (w.0, w.1, w.2)).collect();
        exp.sort_unstable();
        assert_eq!(got, exp);
        for w in &model.waiters {
            assert_eq!(m.place_of(w.0), Some(w.3));
        }
        // Bloom counts never exceed the true unique writes since monitoring began.
        written.retain(|a, _| model.waiters.iter().any(|w| w.1 == *a));
        for a in addrs {
            if let Some(u) = m.unique_updates(a) {
                assert!(m.watches(a));
                assert!(u as usize <= written.get(&a).map_or(0, |s| s.len()));
            }
        }
        check_invariants(m);
    }

    fn run_random(seed: u64, steps: usize, g: Geometry) {
        let mut r = XorShift(seed);
        let mut m = SyncMon::new(&g);
        let mut model = Model { g, waiters: vec![] };
        let mut mem = BTreeMap::new();
        let mut written = BTreeMap::new();
        for _ in 0..steps {
            step(&mut r, &mut m, &mut model, &mut mem, &mut written);
        }
    }

    #[test]
    fn randomized_operations_match_the_reference_model() {
        for seed in 1..=20u64 {
            let g = Geometry {
                sets: 1 + (seed % 3) as u32,
                ways: (seed % 3) as u32,
                wg_entries: 2 + (seed % 7) as u32,
                log_entries: (seed % 5) as u32 + 1,
                bloom_filters: (seed % 4) as u32,
                bloom_bits: 24,
                bloom_hashes: 6,
                line_bytes: 128,
            };
            run_random(seed * 0x9E37_79B9, 3000, g);
        }
        run_random(0xDEAD_BEEF, 5000, Geometry::PAPER);
    }

    proptest::proptest! {
        #[test]
        fn proptest_operations_match_the_reference_model(
            seed in 1u64..u64::MAX,
            sets in 1u32..4,
            ways in 0u32..4,
            wg_entries in 0u32..12,
            log_entries in 0u32..6,
            bloom_filters in 0u32..4,
        ) {
            let g = Geometry { sets, ways, wg_entries, log_entries, bloom_filters, bloom_bits: 24, bloom_hashes: 6, line_bytes: 128 };
            run_random(seed, 400, g);
        }
    }
}
