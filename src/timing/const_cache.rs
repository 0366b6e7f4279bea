//! The constant cache of an SM (`l1c`), as GPGPU-Sim 4.2's L1C
//! (`read_only_cache` in `gpu-cache.cc`, read by `ldst_unit::constant_cycle`
//! in `shader.cc`), which `.const` and `.param` loads go through.
//!
//! A load's lanes make one request per distinct `l1c.line`-byte line; the
//! LD/ST unit looks one up per cycle and holds the load (and so the whole
//! unit) until every line has been looked up. A lookup:
//!
//! * **hits** a present line: that request is served
//!   `latency.const_load` cycles later (LRU updated);
//! * **merges** into the MSHR already fetching the line, if it holds
//!   fewer than `l1c.mshr_merge` requests: drained once the line arrives;
//! * **misses** into a free MSHR (one of `l1c.mshrs`): a read of the
//!   line goes to L2 (leaving the cycle after the lookup, GPGPU-Sim's miss
//!   queue), and its requests are drained once it arrives;
//! * **fails** when neither is possible (every MSHR in use, or the line's
//!   MSHR full): the unit retries every cycle (counted in `l1c_stall`).
//!
//! Lines are allocated when their data arrives (GPGPU-Sim's `ON_FILL`),
//! into an invalid way else the least recently used one (read-only: no
//! write-back), so a miss never waits for a way.
//!
//! A filled MSHR joins a queue of ready entries (GPGPU-Sim's
//! `m_current_response`) whose requests the LD/ST unit's writeback stage
//! drains one per cycle, the oldest entry first ([`ConstCache::next_ready`],
//! `mshr_table::next_access`). The MSHR stays in use until its last request
//! has been drained: a filled entry with 32 merged requests holds its MSHR
//! 32 more cycles, and a lookup of its line that misses meanwhile (the line
//! evicted again) joins it and is drained with it, without a new read.
//!
//! The cache is not flushed between launches (GPGPU-Sim never invalidates
//! its L1C): a kernel parameter line a launch brought in is still there
//! for the next.
//!
//! With `l1c.mshrs` MSHRs, GPGPU-Sim's miss queue (4 entries) never holds
//! more than `l1c.mshrs` reads, so with GTX480's 2 it never fills and is
//! not modelled beyond the one-cycle delay; a read that finds the SM's
//! interconnect input full waits in the unit instead (a stall).
//!
//! This file keeps the tags and MSHRs; the SM sends the reads and serves
//! the requests ([`crate::timing::ldst`]).

use std::collections::VecDeque;

use crate::config::ConstCacheConfig;
use crate::timing::cache::TagArray;

/// Bit set in the `tag` of a read packet the constant cache sent (the
/// rest is the MSHR's index); L1D reads carry an MSHR index far below it,
/// texture reads [`crate::timing::tex_cache::TEX_TAG`].
pub const CONST_TAG: u32 = 1 << 29;

/// What [`ConstCache::lookup`] did with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstLookup {
    /// The line is present: the request is served after the hit latency.
    Hit,
    /// The request joined the MSHR already fetching its line.
    Merged,
    /// The request took MSHR `id`: a read of its line (tagged
    /// `CONST_TAG | id`) must go to L2.
    Miss(u32),
    /// No MSHR could take it: the unit retries.
    Fail,
}

/// A miss in flight, or filled and being drained: its line and the
/// requests (in-flight instruction ids) waiting for it, oldest first.
#[derive(Clone, Debug, Default)]
struct ConstMshr {
    line: u64,
    used: bool,
    waiters: VecDeque<u32>,
}

/// One SM's constant cache.
#[derive(Clone, Debug)]
pub struct ConstCache {
    tags: TagArray,
    mshrs: Vec<ConstMshr>,
    merge: usize,
    /// Filled MSHRs whose requests are being drained, oldest first.
    ready: VecDeque<u32>,
}

impl ConstCache {
    /// An empty cache of geometry `cfg` (`cfg.sets` > 0).
    pub fn new(cfg: &ConstCacheConfig) -> ConstCache {
        ConstCache {
            tags: TagArray::new(cfg.sets.max(1), cfg.ways.max(1)),
            mshrs: vec![ConstMshr::default(); cfg.mshrs.max(1) as usize],
            merge: cfg.mshr_merge.max(1) as usize,
            ready: VecDeque::new(),
        }
    }

    /// True if `line` is present (no state changes).
    pub fn present(&self, line: u64) -> bool {
        self.tags.contains(line)
    }

    /// True if a miss for `line` is in flight.
    pub fn pending(&self, line: u64) -> bool {
        self.mshrs.iter().any(|m| m.used && m.line == line)
    }

    /// Looks `line` up for request `inflight` (see [`ConstLookup`]);
    /// `can_send` says whether a new miss could enter the interconnect
    /// now (if not, a miss fails and nothing changes).
    pub fn lookup(&mut self, line: u64, inflight: u32, can_send: bool) -> ConstLookup {
        if self.tags.access(line).is_some() {
            return ConstLookup::Hit;
        }
        if let Some(m) = self.mshrs.iter_mut().find(|m| m.used && m.line == line) {
            if m.waiters.len() >= self.merge {
                return ConstLookup::Fail;
            }
            m.waiters.push_back(inflight);
            return ConstLookup::Merged;
        }
        if !can_send {
            return ConstLookup::Fail;
        }
        let Some(i) = self.mshrs.iter().position(|m| !m.used) else {
            return ConstLookup::Fail;
        };
        let m = &mut self.mshrs[i];
        m.used = true;
        m.line = line;
        m.waiters.clear();
        m.waiters.push_back(inflight);
        ConstLookup::Miss(i as u32)
    }

    /// The read of MSHR `id` arrived: its line is allocated (LRU, no
    /// write-back) and the MSHR joins the ready queue; it stays in use
    /// until [`ConstCache::next_ready`] has drained its requests.
    pub fn fill(&mut self, id: u32) {
        let m = &self.mshrs[id as usize];
        debug_assert!(m.used, "a constant-cache reply has its MSHR");
        let _ = self.tags.fill(m.line, 0, false);
        self.ready.push_back(id);
    }

    /// True while a filled MSHR has requests to drain.
    pub fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// The oldest request of the oldest filled MSHR (one per call; the
    /// caller drains one per cycle), freeing the MSHR with its last.
    pub fn next_ready(&mut self) -> Option<u32> {
        let &id = self.ready.front()?;
        let m = &mut self.mshrs[id as usize];
        let r = m.waiters.pop_front();
        if m.waiters.is_empty() {
            m.used = false;
            self.ready.pop_front();
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(mshrs: u32, merge: u32) -> ConstCache {
        ConstCache::new(&ConstCacheConfig {
            line: 64,
            sets: 2,
            ways: 2,
            mshrs,
            mshr_merge: merge,
        })
    }

    #[test]
    fn miss_merge_fill_hit() {
        let mut c = cache(2, 2);
        assert_eq!(c.lookup(5, 0, true), ConstLookup::Miss(0));
        assert_eq!(c.lookup(5, 1, true), ConstLookup::Merged);
        // The MSHR holds its limit of 2 requests.
        assert_eq!(c.lookup(5, 2, true), ConstLookup::Fail);
        assert!(!c.present(5));
        c.fill(0);
        assert!(c.present(5));
        assert_eq!(c.lookup(5, 3, true), ConstLookup::Hit);
        assert_eq!(drain(&mut c), vec![0, 1]);
    }

    /// Drains every ready request, one call each.
    fn drain(c: &mut ConstCache) -> Vec<u32> {
        std::iter::from_fn(|| c.next_ready()).collect()
    }

    /// GPGPU-Sim's `mshr_table::next_access`: a filled MSHR stays in use
    /// until its last request is drained; ready entries drain oldest
    /// first; a miss on a draining entry's line (evicted meanwhile) joins
    /// it without a new read.
    #[test]
    fn a_filled_mshr_is_held_until_drained() {
        let mut c = cache(1, 4);
        assert_eq!(c.lookup(0, 10, true), ConstLookup::Miss(0));
        assert_eq!(c.lookup(0, 11, true), ConstLookup::Merged);
        assert_eq!(c.lookup(0, 12, true), ConstLookup::Merged);
        c.fill(0);
        assert!(c.has_ready());
        // Held: another line finds no MSHR.
        assert_eq!(c.lookup(1, 20, true), ConstLookup::Fail);
        assert_eq!(c.next_ready(), Some(10));
        assert_eq!(c.next_ready(), Some(11));
        assert_eq!(c.lookup(1, 20, true), ConstLookup::Fail);
        // Lines 2 and 4 fill set 0's two ways, evicting line 0 while its
        // MSHR drains.
        c.tags.fill(2, 0, false);
        c.tags.fill(4, 0, false);
        assert!(!c.present(0));
        assert_eq!(c.lookup(0, 13, true), ConstLookup::Merged);
        assert_eq!(c.next_ready(), Some(12));
        assert_eq!(c.next_ready(), Some(13));
        assert!(!c.has_ready());
        assert_eq!(c.next_ready(), None);
        // Released with its last request.
        assert_eq!(c.lookup(1, 20, true), ConstLookup::Miss(0));
        // Two filled entries drain in fill order.
        let mut c = cache(2, 4);
        assert_eq!(c.lookup(7, 1, true), ConstLookup::Miss(0));
        assert_eq!(c.lookup(9, 2, true), ConstLookup::Miss(1));
        assert_eq!(c.lookup(9, 3, true), ConstLookup::Merged);
        c.fill(1);
        c.fill(0);
        assert_eq!(drain(&mut c), vec![2, 3, 1]);
    }

    #[test]
    fn mshrs_and_interconnect_limit_misses() {
        let mut c = cache(2, 32);
        assert_eq!(c.lookup(1, 0, false), ConstLookup::Fail);
        assert_eq!(c.lookup(1, 0, true), ConstLookup::Miss(0));
        assert_eq!(c.lookup(2, 1, true), ConstLookup::Miss(1));
        assert_eq!(c.lookup(3, 2, true), ConstLookup::Fail);
        c.fill(1);
        assert_eq!(
            c.lookup(3, 2, true),
            ConstLookup::Fail,
            "held until drained"
        );
        assert_eq!(c.next_ready(), Some(1));
        assert_eq!(c.lookup(3, 2, true), ConstLookup::Miss(1));
    }

    #[test]
    fn allocation_at_fill_is_lru() {
        // Lines 0, 2, 4 share set 0 of a 2-set, 2-way cache.
        let mut c = cache(4, 32);
        for (id, line) in [0u64, 2].iter().enumerate() {
            assert_eq!(c.lookup(*line, 0, true), ConstLookup::Miss(id as u32));
        }
        c.fill(0);
        c.fill(1);
        assert_eq!(drain(&mut c), vec![0, 0]);
        // Touch 0: 2 is now the least recently used.
        assert_eq!(c.lookup(0, 0, true), ConstLookup::Hit);
        assert_eq!(c.lookup(4, 0, true), ConstLookup::Miss(0));
        c.fill(0);
        assert!(c.present(0) && c.present(4) && !c.present(2));
    }
}
