//! The texture cache of an SM (`l1t`), as GPGPU-Sim's `tex_cache`
//! (`gpu-cache.h`/`gpu-cache.cc`, the L1T of `ldst_unit`).
//!
//! A read-only cache that `tex` fetches go through instead of the L1D. Its
//! tags are looked up when the LD/ST unit processes a fetch's line request
//! (`tex_cache::access`): a miss allocates the line at once — the least
//! recently used way of its set is evicted and the line counts as present
//! from then on, so later fetches of it hit — and sends a read of the line
//! to L2. Every looked-up request then waits in one in-order FIFO
//! (GPGPU-Sim's fragment FIFO with its reorder buffer): requests leave it
//! in lookup order, at most one per cycle (`tex_cache::cycle` moves one
//! fragment to the result FIFO per cycle), a hit no earlier than
//! `l1t.hit_latency` cycles after its lookup, a miss not before its data
//! is back — so a hit behind a miss waits for that miss. The FIFO holds
//! `l1t.fifo` requests; when it is full the LD/ST unit waits (GPGPU-Sim:
//! `RESERVATION_FAIL` from a full fragment FIFO or ROB).
//!
//! This file keeps the cache's state and decides when requests leave; the
//! SM sends the reads and completes the requests ([`crate::timing::ldst`]).

use std::collections::VecDeque;

use crate::config::TexCacheConfig;
use crate::timing::cache::TagArray;

/// Bit set in the `tag` of a read packet the texture cache sent (the
/// rest is the miss's id); L1D reads carry an MSHR index, far below it.
pub const TEX_TAG: u32 = 1 << 30;

/// One looked-up line request waiting in the FIFO.
#[derive(Clone, Copy, Debug)]
struct Fragment {
    /// The in-flight memory instruction it belongs to.
    inflight: u32,
    /// The earliest cycle it may leave (lookup + hit latency).
    earliest: u64,
    /// The miss whose data it waits for, if it missed.
    miss: Option<u32>,
}

/// What [`TexCache::lookup`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexLookup {
    /// The line is present (or its miss was already sent).
    Hit,
    /// The line was allocated; the read with this id (`TEX_TAG | id`) must
    /// be sent to L2.
    Miss(u32),
}

/// One SM's texture cache.
#[derive(Clone, Debug)]
pub struct TexCache {
    tags: TagArray,
    hit_latency: u64,
    cap: usize,
    fifo: VecDeque<Fragment>,
    /// For each miss id: its data is back. Ids in use are those not in
    /// `free`.
    arrived: Vec<bool>,
    free: Vec<u32>,
    /// The cycle the last request left the FIFO.
    last_out: u64,
    /// Leave cycles, still in the future, of requests already handed back
    /// (they hold their FIFO place until then).
    leaving: VecDeque<u64>,
}

impl TexCache {
    /// An empty cache of geometry `cfg` (`cfg.sets` > 0).
    pub fn new(cfg: &TexCacheConfig) -> TexCache {
        TexCache {
            tags: TagArray::new(cfg.sets.max(1), cfg.ways.max(1)),
            hit_latency: u64::from(cfg.hit_latency),
            cap: cfg.fifo.max(1) as usize,
            fifo: VecDeque::new(),
            arrived: Vec::new(),
            free: Vec::new(),
            last_out: 0,
            leaving: VecDeque::new(),
        }
    }

    /// True if the FIFO has room for one more request at `now`.
    pub fn has_room(&mut self, now: u64) -> bool {
        while self.leaving.front().is_some_and(|&t| t <= now) {
            self.leaving.pop_front();
        }
        self.fifo.len() + self.leaving.len() < self.cap
    }

    /// True if `line` (in `l1t.line` units) is present or being fetched.
    pub fn present(&self, line: u64) -> bool {
        self.tags.contains(line)
    }

    /// Looks `line` up at `now` for in-flight instruction `inflight` and
    /// queues the request ([`TexCache::has_room`] must hold). A miss
    /// allocates the line now; its read must be sent.
    pub fn lookup(&mut self, line: u64, inflight: u32, now: u64) -> TexLookup {
        let found = if self.tags.access(line).is_some() {
            TexLookup::Hit
        } else {
            self.tags.fill(line, 0, false);
            let id = self.free.pop().unwrap_or_else(|| {
                self.arrived.push(false);
                (self.arrived.len() - 1) as u32
            });
            self.arrived[id as usize] = false;
            TexLookup::Miss(id)
        };
        self.fifo.push_back(Fragment {
            inflight,
            earliest: now + self.hit_latency,
            miss: match found {
                TexLookup::Hit => None,
                TexLookup::Miss(id) => Some(id),
            },
        });
        found
    }

    /// The data of miss `id` is back at `now`.
    pub fn arrived(&mut self, id: u32) {
        self.arrived[id as usize] = true;
    }

    /// Hands back, in order, the requests that may leave as of `now`:
    /// pushes `(inflight, cycle it leaves)` onto `out` for each.
    pub fn drain(&mut self, now: u64, out: &mut Vec<(u32, u64)>) {
        while let Some(f) = self.fifo.front().copied() {
            if let Some(id) = f.miss {
                if !self.arrived[id as usize] {
                    break;
                }
                self.free.push(id);
            }
            self.fifo.pop_front();
            let at = f.earliest.max(self.last_out + 1).max(now);
            self.last_out = at;
            if at > now {
                self.leaving.push_back(at);
            }
            out.push((f.inflight, at));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(fifo: u32) -> TexCache {
        TexCache::new(&TexCacheConfig {
            sets: 1,
            ways: 2,
            line: 128,
            hit_latency: 2,
            fifo,
        })
    }

    #[test]
    fn hits_leave_in_order_one_per_cycle_behind_a_miss() {
        let mut c = cache(8);
        let mut out = Vec::new();
        // Line 1 misses at 10; a hit on line 1 (allocated at the miss)
        // and the miss's data at 50.
        let TexLookup::Miss(id) = c.lookup(1, 100, 10) else {
            panic!("cold miss")
        };
        assert_eq!(c.lookup(1, 101, 11), TexLookup::Hit);
        c.drain(11, &mut out);
        assert!(out.is_empty(), "the hit waits behind the miss");
        c.arrived(id);
        c.drain(50, &mut out);
        assert_eq!(out, vec![(100, 50), (101, 51)]);
        // A lone hit leaves hit_latency after its lookup.
        out.clear();
        assert_eq!(c.lookup(1, 102, 60), TexLookup::Hit);
        c.drain(60, &mut out);
        assert_eq!(out, vec![(102, 62)]);
    }

    #[test]
    fn lru_eviction_and_fifo_room() {
        let mut c = cache(2);
        let mut out = Vec::new();
        for (line, at) in [(1, 0), (2, 1)] {
            let TexLookup::Miss(id) = c.lookup(line, 0, at) else {
                panic!("cold")
            };
            assert!(!c.has_room(at) || line == 1);
            c.arrived(id);
        }
        c.drain(5, &mut out);
        assert_eq!(out, vec![(0, 5), (0, 6)]);
        // The second leaves at 6: it holds its place until then.
        assert!(c.has_room(5));
        // Line 3 evicts line 1, the least recently used.
        assert!(matches!(c.lookup(3, 0, 7), TexLookup::Miss(_)));
        assert!(c.present(2) && c.present(3) && !c.present(1));
    }
}
