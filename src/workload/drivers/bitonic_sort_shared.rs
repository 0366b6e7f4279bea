//! `bitonic_sort_shared` (`kernels/holdout/bitonic_sort_shared.cu`, a
//! held-out correlation kernel): every 512-thread CTA sorts its 512
//! unsigned keys ascending in shared memory with a bitonic network (45
//! compare-exchange stages, divergent on the partner's side and on the
//! run's direction, `bar.sync` between stages) and writes them back in
//! place.
//!
//! Parameters: `keys`. Input: `keys`, `ctas * 512` uniform 32-bit words
//! (stream 0 of `seed`). Check: `keys` exactly against [`sort_chunks`]
//! (the standard library's sort of each 512-key chunk, not a network).

use super::block_fixed;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{stream_seed, uniform_u32};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "bitonic_sort_shared";

/// Keys per CTA (the kernel's compiled-in CTA size).
pub const SORT_BLOCK: usize = 512;

/// The `bitonic_sort_shared` workload.
pub struct BitonicSortShared {
    keys: u32,
    seed: u64,
    launch: Launch,
}

impl BitonicSortShared {
    /// Reads `keys` (default 2^17, a multiple of 512: the kernel has no
    /// bounds check) and `seed` (1). Block: `[512, 1, 1]`; grid: exactly
    /// one CTA per 512 keys.
    pub fn new(args: &mut Args, launch: Launch) -> Result<BitonicSortShared, WorkloadError> {
        let w = BitonicSortShared {
            keys: args.count("keys", 1 << 17)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        if !(w.keys as usize).is_multiple_of(SORT_BLOCK) {
            return Err(WorkloadError::Args(format!(
                "`keys` = {} must be a multiple of {SORT_BLOCK} (each CTA sorts {SORT_BLOCK} keys)",
                w.keys
            )));
        }
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_fixed(KERNEL, &self.launch, [SORT_BLOCK as u32, 1, 1])?;
        let want = [self.keys / SORT_BLOCK as u32, 1, 1];
        let grid = self.launch.grid_or(want);
        if grid != want {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} of {} keys needs grid [{}, 1, 1] (one CTA per {SORT_BLOCK} keys), got [{}, {}, {}]",
                self.keys, want[0], grid[0], grid[1], grid[2]
            )));
        }
        Ok((grid, block))
    }
}

/// `keys` with each consecutive `chunk`-key run sorted ascending.
pub fn sort_chunks(keys: &[u32], chunk: usize) -> Vec<u32> {
    let mut out = keys.to_vec();
    for run in out.chunks_mut(chunk.max(1)) {
        run.sort_unstable();
    }
    out
}

impl Workload for BitonicSortShared {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let input = uniform_u32(self.keys as usize, stream_seed(self.seed, 0));
        let dkeys = upload(host, "keys", &input)?;
        host.launch(None, grid, block, &[ArgValue::U64(dkeys)])?;
        let keys: Vec<u32> = download(host, dkeys, input.len())?;
        Ok(check::exact(
            "keys",
            &sort_chunks(&input, SORT_BLOCK),
            &keys,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_chunk_is_sorted_on_its_own() {
        assert_eq!(
            sort_chunks(&[3, 1, 2, 9, 0, 5, 4], 3),
            vec![1, 2, 3, 0, 5, 9, 4]
        );
    }
}
