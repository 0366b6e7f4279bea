//! A queue of items due at cycles, popped in (cycle, insertion) order —
//! the order of a binary heap keyed by (cycle, sequence number) — at O(1)
//! per item: a ring of one FIFO per cycle covering the next
//! 64 × `WORDS` cycles (one occupancy bit each), a heap for items due later (moved into the ring as
//! the window reaches them), and a list for items pushed already due
//! (at or before the last cycle drained). The ring's FIFOs are linked
//! lists through one arena whose free entries are reused first, so the
//! queue's memory stays small and warm.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// No arena entry.
const NIL: u32 = u32::MAX;

/// A FIFO of arena entries: first and last (`NIL` when empty).
#[derive(Clone, Copy, Debug)]
struct Fifo {
    first: u32,
    last: u32,
}

/// Items of type `T` due at cycles; the ring covers the next 64 × `WORDS`
/// cycles (`WORDS` a power of two) (queues whose items are mostly due further ahead take more
/// words, so that few go through the heap).
#[derive(Clone, Debug)]
pub struct EventQueue<T: Ord + Copy, const WORDS: usize = 1> {
    /// `ring[c % window]`: the items due at cycle `c`, for `c` in
    /// `cursor .. cursor + window`, in insertion order.
    ring: Vec<Fifo>,
    /// Ring entries: an item and the next entry of its FIFO (or of the
    /// free list).
    arena: Vec<(T, u32)>,
    /// Free arena entries, most recently freed first.
    free: u32,
    /// Bit `i % 64` of word `i / 64` set when `ring[i]` is not empty.
    occupied: [u64; WORDS],
    /// Every cycle before this one has been drained.
    cursor: u64,
    /// Items due past the ring's window: (cycle, sequence, item).
    far: BinaryHeap<Reverse<(u64, u64, T)>>,
    /// Sequence numbers of `far` (insertion order among equal cycles).
    far_seq: u64,
    /// Items pushed due before `cursor`, ordered by cycle then insertion.
    late: VecDeque<(u64, T)>,
    /// Items queued.
    len: usize,
}

impl<T: Ord + Copy, const WORDS: usize> Default for EventQueue<T, WORDS> {
    fn default() -> Self {
        // Slots are cycles masked by the window: a power of two.
        const {
            assert!(
                WORDS.is_power_of_two(),
                "EventQueue's WORDS must be a power of two"
            )
        };
        EventQueue {
            ring: vec![
                Fifo {
                    first: NIL,
                    last: NIL,
                };
                64 * WORDS
            ],
            arena: Vec::new(),
            free: NIL,
            occupied: [0; WORDS],
            cursor: 0,
            far: BinaryHeap::new(),
            far_seq: 0,
            late: VecDeque::new(),
            len: 0,
        }
    }
}

impl<T: Ord + Copy, const WORDS: usize> EventQueue<T, WORDS> {
    /// Cycles the ring covers.
    const WINDOW: u64 = 64 * WORDS as u64;
    const MASK: u64 = Self::WINDOW - 1;

    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Items queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Queues `item`, due at cycle `at`.
    #[inline]
    pub fn push(&mut self, at: u64, item: T) {
        self.len += 1;
        if at < self.cursor {
            // After every queued late item due at or before `at`.
            let p = self.late.partition_point(|&(c, _)| c <= at);
            self.late.insert(p, (at, item));
        } else if at - self.cursor < Self::WINDOW {
            self.ring_push((at & Self::MASK) as usize, item);
        } else {
            self.far_seq += 1;
            self.far.push(Reverse((at, self.far_seq, item)));
        }
    }

    /// The earliest cycle an item is due at.
    #[inline]
    pub fn next_due(&self) -> Option<u64> {
        if let Some(&(c, _)) = self.late.front() {
            return Some(c);
        }
        self.first_in_ring()
            .or_else(|| self.far.peek().map(|Reverse((c, _, _))| *c))
    }

    /// Removes and returns the next item due at or before `now`, with its
    /// cycle.
    #[inline]
    pub fn pop_due(&mut self, now: u64) -> Option<(u64, T)> {
        if self.len == 0 {
            return None;
        }
        if let Some(e) = self.late.pop_front() {
            self.len -= 1;
            return Some(e);
        }
        loop {
            if self.cursor > now {
                return None;
            }
            let i = (self.cursor & Self::MASK) as usize;
            if let Some(item) = self.ring_pop(i) {
                self.len -= 1;
                return Some((self.cursor, item));
            }
            // Nothing due at `cursor`: move to the next occupied cycle (or
            // the next far item), not past `now + 1`.
            let next = self
                .first_in_ring()
                .or_else(|| self.far.peek().map(|Reverse((c, _, _))| *c))
                .unwrap_or(u64::MAX);
            self.advance(next.min(now + 1));
        }
    }

    /// The earliest cycle with items in the ring.
    #[inline]
    fn first_in_ring(&self) -> Option<u64> {
        let start = (self.cursor & Self::MASK) as usize;
        if WORDS == 1 {
            // Slot `start` rotated to bit 0: the lowest set bit is the
            // distance to the first occupied cycle.
            let bits = self.occupied[0].rotate_right(start as u32);
            return (bits != 0).then(|| self.cursor + u64::from(bits.trailing_zeros()));
        }
        // The first occupied slot at or after `start`, wrapping around.
        let (w0, b0) = (start / 64, start % 64);
        for n in 0..=WORDS {
            let w = (w0 + n) % WORDS;
            let mut bits = self.occupied[w];
            if n == 0 {
                bits &= u64::MAX << b0;
            } else if n == WORDS {
                bits &= (1u64 << b0).wrapping_sub(1);
            }
            if bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                let dist = (slot + 64 * WORDS - start) % (64 * WORDS);
                return Some(self.cursor + dist as u64);
            }
        }
        None
    }

    /// Moves the cursor to `to` (no ring item is due before it) and moves
    /// far items the window now covers into the ring, in order.
    fn advance(&mut self, to: u64) {
        debug_assert!(to > self.cursor);
        self.cursor = to;
        while let Some(&Reverse((c, _, item))) = self.far.peek() {
            if c - self.cursor >= Self::WINDOW {
                break;
            }
            self.far.pop();
            self.ring_push((c & Self::MASK) as usize, item);
        }
    }

    /// Appends `item` to the FIFO of ring slot `i`.
    #[inline]
    fn ring_push(&mut self, i: usize, item: T) {
        let e = if self.free != NIL {
            let e = self.free;
            self.free = self.arena[e as usize].1;
            self.arena[e as usize] = (item, NIL);
            e
        } else {
            self.arena.push((item, NIL));
            (self.arena.len() - 1) as u32
        };
        let f = &mut self.ring[i];
        if f.last == NIL {
            f.first = e;
            self.occupied[i / 64] |= 1 << (i % 64);
        } else {
            self.arena[f.last as usize].1 = e;
        }
        f.last = e;
    }

    /// Removes the oldest item of ring slot `i`.
    #[inline]
    fn ring_pop(&mut self, i: usize) -> Option<T> {
        let f = &mut self.ring[i];
        if f.first == NIL {
            return None;
        }
        let e = f.first;
        let (item, next) = self.arena[e as usize];
        f.first = next;
        if next == NIL {
            f.last = NIL;
            self.occupied[i / 64] &= !(1 << (i % 64));
        }
        self.arena[e as usize].1 = self.free;
        self.free = e;
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops in the order of a (cycle, sequence) heap, over random pushes
    /// near, far and late, interleaved with draining.
    #[test]
    fn pops_in_heap_order() {
        pops_in_heap_order_with::<1>();
        pops_in_heap_order_with::<4>();
        pops_in_heap_order_with::<8>();
    }

    fn pops_in_heap_order_with<const W: usize>() {
        let window = 64 * W as u64;
        let mut q: EventQueue<u32, W> = EventQueue::new();
        let mut heap: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut now = 0u64;
        for step in 0..20_000u32 {
            for _ in 0..rnd(4) {
                let at = match rnd(10) {
                    0 => now.saturating_sub(rnd(3)),
                    1 => now + window + rnd(3 * window),
                    2 => now + rnd(window + 2),
                    _ => now + rnd(40),
                };
                seq += 1;
                q.push(at, step);
                heap.push(Reverse((at, seq, step)));
            }
            assert_eq!(q.len(), heap.len());
            let due = heap.peek().map(|Reverse((c, _, _))| *c);
            assert_eq!(q.next_due(), due);
            now += match rnd(8) {
                0 => rnd(3000),
                _ => rnd(3),
            };
            while heap.peek().is_some_and(|Reverse((c, _, _))| *c <= now) {
                let Reverse((c, _, v)) = heap.pop().expect("peeked");
                assert_eq!(q.pop_due(now), Some((c, v)));
            }
            assert_eq!(q.pop_due(now), None);
        }
    }
}
