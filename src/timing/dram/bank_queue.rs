//! A DRAM bank's request queue under FR-FCFS (GPGPU-Sim's
//! `frfcfs_scheduler`, `dram_sched.cc`): requests grouped by row, each
//! row's in arrival order, so that the scheduler's questions ("the oldest
//! request for this row", "is any left for it", "the oldest request") are
//! answered from the rows' heads instead of by a scan of the whole queue.
//!
//! The choice is GPGPU-Sim's: keep serving the row last chosen (its
//! `m_last_row`), oldest first, while requests for it remain; when none is
//! chosen, choose the bank's open row if a request wants it, else the row
//! of the bank's oldest request. A bank holds few distinct rows at once,
//! so the rows are a short list searched linearly; emptied rows' buffers
//! are kept for reuse.

use std::collections::VecDeque;

/// The requests of one row, oldest first, each with its arrival number.
#[derive(Clone, Debug)]
struct RowFifo<T> {
    row: u64,
    items: VecDeque<(u64, T)>,
}

/// A bank's queued requests of type `T`, grouped by row.
#[derive(Clone, Debug)]
pub(super) struct BankQueue<T> {
    /// The rows with queued requests (in no particular order: the oldest
    /// request is found by arrival number).
    rows: Vec<RowFifo<T>>,
    /// Emptied rows' buffers, reused by new rows.
    spare: Vec<VecDeque<(u64, T)>>,
    /// The next request's arrival number.
    next_seq: u64,
    /// Requests queued.
    len: usize,
    /// The row being served (GPGPU-Sim's `m_last_row`): `Some` while
    /// requests for it remain.
    open_bin: Option<u64>,
}

impl<T> Default for BankQueue<T> {
    fn default() -> Self {
        BankQueue {
            rows: Vec::new(),
            spare: Vec::new(),
            next_seq: 0,
            len: 0,
            open_bin: None,
        }
    }
}

impl<T: Copy> BankQueue<T> {
    /// True when no request is queued.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Queues `item`, a request for `row`, after every queued one.
    pub(super) fn push(&mut self, row: u64, item: T) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.len += 1;
        match self.find(row) {
            Some(i) => self.rows[i].items.push_back((seq, item)),
            None => {
                let mut items = self.spare.pop().unwrap_or_default();
                items.push_back((seq, item));
                self.rows.push(RowFifo { row, items });
            }
        }
    }

    /// The index in `rows` of `row`'s requests, if any are queued.
    fn find(&self, row: u64) -> Option<usize> {
        self.rows.iter().position(|r| r.row == row)
    }

    /// FR-FCFS: removes and returns the request the bank serves next,
    /// `open_row` being the row the bank has open (or had last); `None`
    /// when nothing is queued.
    pub(super) fn schedule(&mut self, open_row: u64) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let i = match self.open_bin {
            Some(row) => self.find(row)?,
            None => match self.find(open_row) {
                Some(i) => i,
                None => {
                    // The row of the oldest request: the smallest head.
                    let mut best = 0;
                    for (i, r) in self.rows.iter().enumerate().skip(1) {
                        if r.items[0].0 < self.rows[best].items[0].0 {
                            best = i;
                        }
                    }
                    best
                }
            },
        };
        let r = &mut self.rows[i];
        let (_, item) = r.items.pop_front()?;
        self.len -= 1;
        self.open_bin = Some(r.row);
        if r.items.is_empty() {
            // None left for the row: the next choice is a fresh one.
            self.open_bin = None;
            let r = self.rows.swap_remove(i);
            self.spare.push(r.items);
        }
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reference FR-FCFS over one arrival-ordered list (the form GPGPU-
    /// Sim's scheduler and gpusim's earlier queue had): the same choices
    /// over random pushes and schedules.
    #[test]
    fn matches_a_scan_of_the_arrival_order() {
        let mut q: BankQueue<u32> = BankQueue::default();
        let mut list: VecDeque<(u64, u32)> = VecDeque::new();
        let mut open_bin: Option<u64> = None;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut open_row = 0;
        for id in 0..50_000u32 {
            if rnd(3) != 0 {
                let row = rnd(5);
                q.push(row, id);
                list.push_back((row, id));
            }
            if rnd(2) == 0 {
                // Reference: GPGPU-Sim's choice by scans of `list`.
                let want = match open_bin {
                    Some(row) => list.iter().position(|e| e.0 == row),
                    None => list
                        .iter()
                        .position(|e| e.0 == open_row)
                        .or((!list.is_empty()).then_some(0)),
                };
                let expect = want.map(|pos| {
                    let (row, v) = list.remove(pos).expect("in the list");
                    open_bin = list.iter().any(|e| e.0 == row).then_some(row);
                    (row, v)
                });
                assert_eq!(q.schedule(open_row), expect.map(|e| e.1));
                assert_eq!(q.open_bin, open_bin);
                assert_eq!(q.is_empty(), list.is_empty());
                if let Some((row, _)) = expect
                    && rnd(4) == 0
                {
                    open_row = row;
                }
            }
        }
    }

    /// The open row is served first; then the row chosen keeps being
    /// served while it has requests, even past older ones.
    #[test]
    fn serves_the_open_row_then_keeps_the_chosen_row() {
        let mut q: BankQueue<u32> = BankQueue::default();
        q.push(1, 10);
        q.push(2, 20);
        q.push(1, 11);
        q.push(2, 21);
        // Row 2 is open: its oldest first, then row 2 again.
        assert_eq!(q.schedule(2), Some(20));
        q.push(2, 22);
        assert_eq!(q.schedule(1), Some(21));
        assert_eq!(q.schedule(1), Some(22));
        // Row 2 is exhausted: a fresh choice takes the open row (1).
        assert_eq!(q.schedule(1), Some(10));
        assert_eq!(q.schedule(3), Some(11));
        assert_eq!(q.schedule(3), None);
    }
}
