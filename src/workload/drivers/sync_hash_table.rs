//! The AWG paper's hash-table benchmark (Table 2, `kernels/sync/hash_table.ptx`):
//! every TB inserts `per_tb` keys into a bucketed hash table, each bucket
//! behind its own spin lock taken with the waiting CAS.
//!
//! The keys are generated on the host from `seed`; the CPU places them in
//! their buckets (`key % buckets`). The insert inside the lock is a plain
//! read of the bucket's count, a store of the key at that index and a store
//! of count + 1, so a lock that fails to exclude loses inserts. The check:
//! every bucket's count, every bucket's keys as a multiset (the order
//! depends on the interleaving), the untouched slots, and the lock words.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::Rng;
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// What an unused slot holds before and after the run.
const EMPTY_SLOT: u32 = u32::MAX;

/// Most keys a run may insert (`grid * per_tb`).
const MAX_KEYS: u64 = 1 << 20;

/// Most slots the table may have (`buckets * capacity`, 16 MiB).
const MAX_SLOTS: u64 = 1 << 22;

/// The workload.
pub struct HashTable {
    per_tb: u32,
    buckets: u32,
    capacity: u32,
    seed: u64,
    grid: u32,
}

impl HashTable {
    /// Reads `per_tb` (inserts per TB, default 8), `buckets` (default 8),
    /// `capacity` (slots per bucket, default 32) and `seed` (the keys,
    /// default 1); the grid is 1-D, one warp per TB.
    pub fn new(args: &mut Args, launch: Launch) -> Result<HashTable, WorkloadError> {
        let per_tb = args.u32("per_tb", 8)?;
        let buckets = args.count("buckets", 8)?;
        let capacity = args.count("capacity", 32)?;
        let seed = args.u64("seed", 1)?;
        let grid = super::one_warp_tbs("hash_table", &launch)?;
        let keys = u64::from(grid) * u64::from(per_tb);
        if keys > MAX_KEYS {
            return Err(WorkloadError::Args(format!(
                "hash_table: grid {grid} x per_tb {per_tb} = {keys} keys, at most {MAX_KEYS}"
            )));
        }
        if u64::from(buckets) * u64::from(capacity) > MAX_SLOTS {
            return Err(WorkloadError::Args(format!(
                "hash_table: {buckets} buckets x {capacity} slots is more than {MAX_SLOTS} slots"
            )));
        }
        Ok(HashTable {
            per_tb,
            buckets,
            capacity,
            seed,
            grid,
        })
    }
}

/// The keys of `n` inserts, from `seed`.
fn keys(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u32()).collect()
}

/// The CPU's table: bucket `k` holds the keys with `key % buckets == k`,
/// sorted.
fn buckets_of(keys: &[u32], buckets: u32) -> Vec<Vec<u32>> {
    let mut table = vec![Vec::new(); buckets as usize];
    for &k in keys {
        table[(k % buckets) as usize].push(k);
    }
    for b in &mut table {
        b.sort_unstable();
    }
    table
}

/// The slots with each bucket's first `counts[k]` keys sorted (clamped to
/// the bucket), the rest as they are: order-independent, so it can be
/// compared with the CPU's sorted buckets.
fn sorted_per_bucket(slots: &[u32], counts: &[u32], capacity: usize) -> Vec<u32> {
    let mut out = slots.to_vec();
    for (k, &n) in counts.iter().enumerate() {
        let used = (n as usize).min(capacity);
        out[k * capacity..k * capacity + used].sort_unstable();
    }
    out
}

impl Workload for HashTable {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.grid as usize * self.per_tb as usize;
        let buckets = self.buckets as usize;
        let capacity = self.capacity as usize;
        let keys = keys(n, self.seed);
        let table = buckets_of(&keys, self.buckets);
        if let Some((k, b)) = table.iter().enumerate().find(|(_, b)| b.len() > capacity) {
            return Err(WorkloadError::Args(format!(
                "hash_table: bucket {k} receives {} keys but holds {capacity}: raise `capacity`",
                b.len()
            )));
        }
        let keys_d = upload(host, "keys", &keys)?;
        let locks = upload(host, "locks", &vec![0u32; buckets])?;
        let counts = upload(host, "counts", &vec![0u32; buckets])?;
        let slots = upload(host, "slots", &vec![EMPTY_SLOT; buckets * capacity])?;
        host.launch(
            None,
            [self.grid, 1, 1],
            [32, 1, 1],
            &[
                ArgValue::U64(keys_d),
                ArgValue::U64(locks),
                ArgValue::U64(counts),
                ArgValue::U64(slots),
                ArgValue::U32(self.per_tb),
                ArgValue::U32(self.buckets),
                ArgValue::U32(self.capacity),
            ],
        )?;
        let want_counts: Vec<u32> = table.iter().map(|b| b.len() as u32).collect();
        let mut want_slots = vec![EMPTY_SLOT; buckets * capacity];
        for (k, b) in table.iter().enumerate() {
            want_slots[k * capacity..k * capacity + b.len()].copy_from_slice(b);
        }
        let got_counts = download::<u32>(host, counts, buckets)?;
        let got_slots = download::<u32>(host, slots, buckets * capacity)?;
        Ok(Check::all([
            check::exact("counts", &want_counts, &got_counts),
            check::exact(
                "slots (each bucket's keys sorted)",
                &want_slots,
                &sorted_per_bucket(&got_slots, &got_counts, capacity),
            ),
            check::exact(
                "locks",
                &vec![0u32; buckets],
                &download::<u32>(host, locks, buckets)?,
            ),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_lands_in_its_bucket_once() {
        let k = keys(100, 7);
        let t = buckets_of(&k, 5);
        assert_eq!(t.iter().map(Vec::len).sum::<usize>(), 100);
        for (b, ks) in t.iter().enumerate() {
            assert!(ks.iter().all(|&x| x % 5 == b as u32));
            assert!(ks.windows(2).all(|w| w[0] <= w[1]));
        }
    }

    #[test]
    fn sorting_ignores_the_insert_order_and_keeps_the_empty_slots() {
        let slots = [9, 3, EMPTY_SLOT, 4, EMPTY_SLOT, EMPTY_SLOT];
        assert_eq!(
            sorted_per_bucket(&slots, &[2, 1], 3),
            [3, 9, EMPTY_SLOT, 4, EMPTY_SLOT, EMPTY_SLOT]
        );
        // A count past the bucket is clamped, not an out-of-range slice.
        assert_eq!(sorted_per_bucket(&[2, 1], &[7], 2), [1, 2]);
    }
}
