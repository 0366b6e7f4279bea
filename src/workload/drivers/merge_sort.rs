//! `merge_sort`: the shared-memory stage of the CUDA SDK mergeSort sample
//! (`kernels/baws/merge_sort.ptx`, `mergeSortSharedKernel`; BAWS Table 2
//! "MS"). Each CTA of 256 threads (8 warps) loads a chunk of 512 key/value
//! pairs into shared memory and sorts every run of `length` pairs in it by
//! log2(`length`) merge steps, each a pair of `bar.sync`-separated phases
//! (read both elements and rank them by binary search in the other run;
//! scatter them).
//!
//! Input ([`input`]): `keys` keys uniform in `0..key_range` (duplicates
//! likely: the merge is stable, equal keys keep their order), values the
//! keys' positions. Check: `d_DstKey` and `d_DstVal` exactly against
//! [`reference`], a stable sort of every run.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// The kernel's compiled `SHARED_SIZE_LIMIT`: keys per CTA.
pub const CHUNK: u32 = 512;
/// Threads per CTA: two keys each (8 warps).
const BLOCK: u32 = CHUNK / 2;

/// The `merge_sort` workload.
pub struct MergeSort {
    keys: u32,
    length: u32,
    key_range: u32,
    seed: u64,
}

impl MergeSort {
    /// Reads `keys` (default 92160 = 180 chunks; a multiple of 512),
    /// `length` (512; a power of two up to 512: the sorted run length),
    /// `key_range` (65536, the sample's) and `seed` (1). The launch shape is
    /// the sample's (one 256-thread CTA per 512 keys); the manifest gives
    /// none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<MergeSort, WorkloadError> {
        let w = MergeSort {
            keys: args.count("keys", 180 * CHUNK)?,
            length: args.count("length", CHUNK)?,
            key_range: args.count("key_range", 65536)?,
            seed: args.u64("seed", 1)?,
        };
        if !w.keys.is_multiple_of(CHUNK) {
            return Err(WorkloadError::Args(format!(
                "`keys` = {} must be a multiple of {CHUNK} (one CTA sorts {CHUNK} keys)",
                w.keys
            )));
        }
        if !w.length.is_power_of_two() || w.length > CHUNK {
            return Err(WorkloadError::Args(format!(
                "`length` = {} must be a power of two at most {CHUNK}",
                w.length
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "merge_sort uses the sample's launch shape (keys / 512 CTAs of 256 threads): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// `n` keys uniform in `0..key_range` and their positions as values.
pub fn input(n: usize, key_range: u32, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut rng = Rng::new(stream_seed(seed, 0));
    let keys = (0..n)
        .map(|_| rng.below(u64::from(key_range)) as u32)
        .collect();
    (keys, (0..n as u32).collect())
}

/// Every run of `length` pairs sorted by key, stably (equal keys keep
/// their input order, as the kernel's exclusive/inclusive ranks do).
pub fn reference(keys: &[u32], vals: &[u32], length: usize) -> (Vec<u32>, Vec<u32>) {
    let mut out_k = Vec::with_capacity(keys.len());
    let mut out_v = Vec::with_capacity(vals.len());
    for (k, v) in keys.chunks(length).zip(vals.chunks(length)) {
        let mut pairs: Vec<(u32, u32)> = k.iter().copied().zip(v.iter().copied()).collect();
        pairs.sort_by_key(|&(key, _)| key); // stable
        out_k.extend(pairs.iter().map(|p| p.0));
        out_v.extend(pairs.iter().map(|p| p.1));
    }
    (out_k, out_v)
}

impl Workload for MergeSort {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.keys as usize;
        let (keys, vals) = input(n, self.key_range, self.seed);
        let dst_key = upload(host, "d_DstKey", &vec![u32::MAX; n])?;
        let dst_val = upload(host, "d_DstVal", &vec![u32::MAX; n])?;
        let src_key = upload(host, "d_SrcKey", &keys)?;
        let src_val = upload(host, "d_SrcVal", &vals)?;
        host.launch(
            None,
            [self.keys / CHUNK, 1, 1],
            [BLOCK, 1, 1],
            &[
                ArgValue::U64(dst_key),
                ArgValue::U64(dst_val),
                ArgValue::U64(src_key),
                ArgValue::U64(src_val),
                ArgValue::U32(self.length),
            ],
        )?;
        let got_k: Vec<u32> = download(host, dst_key, n)?;
        let got_v: Vec<u32> = download(host, dst_val, n)?;
        let (want_k, want_v) = reference(&keys, &vals, self.length as usize);
        Ok(Check::all([
            check::exact("d_DstKey", &want_k, &got_k),
            check::exact("d_DstVal", &want_v, &got_v),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_sorts_each_run_stably() {
        let keys = [5, 1, 5, 0, 2, 2, 9, 1];
        let vals = [0, 1, 2, 3, 4, 5, 6, 7];
        let (k, v) = reference(&keys, &vals, 4);
        assert_eq!(k, [0, 1, 5, 5, 1, 2, 2, 9]);
        assert_eq!(v, [3, 1, 0, 2, 7, 4, 5, 6]);
    }

    #[test]
    fn input_has_duplicate_keys_below_the_range() {
        let (k, v) = input(1024, 100, 3);
        assert!(k.iter().all(|&x| x < 100));
        let mut s = k.clone();
        s.sort_unstable();
        s.dedup();
        assert!(s.len() < 1024);
        assert_eq!(v[1023], 1023);
    }
}
