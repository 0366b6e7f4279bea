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
//!   fewer than `l1c.mshr_merge` requests: served when the line arrives;
//! * **misses** into a free MSHR (one of `l1c.mshrs`): a read of the
//!   line goes to L2 (leaving the cycle after the lookup, GPGPU-Sim's miss
//!   queue), and its requests are served when it arrives;
//! * **fails** when neither is possible (every MSHR in use, or the line's
//!   MSHR full): the unit retries every cycle (counted in `l1c_stall`).
//!
//! Lines are allocated when their data arrives (GPGPU-Sim's `ON_FILL`),
//! into an invalid way else the least recently used one (read-only: no
//! write-back), so a miss never waits for a way. The cache is not flushed
//! between launches (GPGPU-Sim never invalidates its L1C): a kernel
//! parameter line a launch brought in is still there for the next.
//!
//! With `l1c.mshrs` MSHRs, GPGPU-Sim's miss queue (4 entries) never holds
//! more than `l1c.mshrs` reads, so with GTX480's 2 it never fills and is
//! not modelled beyond the one-cycle delay; a read that finds the SM's
//! interconnect input full waits in the unit instead (a stall).
//!
//! This file keeps the tags and MSHRs; the SM sends the reads and serves
//! the requests ([`crate::timing::ldst`]).

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

/// A miss in flight: its line and the requests (in-flight instruction
/// ids) waiting for it.
#[derive(Clone, Debug, Default)]
struct ConstMshr {
    line: u64,
    used: bool,
    waiters: Vec<u32>,
}

/// One SM's constant cache.
#[derive(Clone, Debug)]
pub struct ConstCache {
    tags: TagArray,
    mshrs: Vec<ConstMshr>,
    merge: usize,
}

impl ConstCache {
    /// An empty cache of geometry `cfg` (`cfg.sets` > 0).
    pub fn new(cfg: &ConstCacheConfig) -> ConstCache {
        ConstCache {
            tags: TagArray::new(cfg.sets.max(1), cfg.ways.max(1)),
            mshrs: vec![ConstMshr::default(); cfg.mshrs.max(1) as usize],
            merge: cfg.mshr_merge.max(1) as usize,
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
            m.waiters.push(inflight);
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
        m.waiters.push(inflight);
        ConstLookup::Miss(i as u32)
    }

    /// The read of MSHR `id` arrived: its line is allocated (LRU, no
    /// write-back) and its waiting requests are appended to `served`.
    pub fn fill(&mut self, id: u32, served: &mut Vec<u32>) {
        let m = &mut self.mshrs[id as usize];
        debug_assert!(m.used, "a constant-cache reply has its MSHR");
        m.used = false;
        let _ = self.tags.fill(m.line, 0, false);
        served.append(&mut m.waiters);
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
        let mut served = Vec::new();
        c.fill(0, &mut served);
        assert_eq!(served, vec![0, 1]);
        assert!(c.present(5));
        assert_eq!(c.lookup(5, 3, true), ConstLookup::Hit);
    }

    #[test]
    fn mshrs_and_interconnect_limit_misses() {
        let mut c = cache(2, 32);
        assert_eq!(c.lookup(1, 0, false), ConstLookup::Fail);
        assert_eq!(c.lookup(1, 0, true), ConstLookup::Miss(0));
        assert_eq!(c.lookup(2, 1, true), ConstLookup::Miss(1));
        assert_eq!(c.lookup(3, 2, true), ConstLookup::Fail);
        let mut served = Vec::new();
        c.fill(1, &mut served);
        assert_eq!(c.lookup(3, 2, true), ConstLookup::Miss(1));
    }

    #[test]
    fn allocation_at_fill_is_lru() {
        // Lines 0, 2, 4 share set 0 of a 2-set, 2-way cache.
        let mut c = cache(4, 32);
        let mut served = Vec::new();
        for (id, line) in [0u64, 2].iter().enumerate() {
            assert_eq!(c.lookup(*line, 0, true), ConstLookup::Miss(id as u32));
        }
        c.fill(0, &mut served);
        c.fill(1, &mut served);
        // Touch 0: 2 is now the least recently used.
        assert_eq!(c.lookup(0, 0, true), ConstLookup::Hit);
        assert_eq!(c.lookup(4, 0, true), ConstLookup::Miss(0));
        c.fill(0, &mut served);
        assert!(c.present(0) && c.present(4) && !c.present(2));
    }
}
