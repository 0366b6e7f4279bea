//! `warp_shared_reduce` (`kernels/holdout/warp_shared_reduce.cu`, a
//! held-out correlation kernel): the sum modulo 2^32 of `n` unsigned words.
//! Every thread adds its elements in a grid-stride loop, every warp folds
//! its 32 partial sums in volatile shared memory in five divergent steps
//! (the lower half of the remaining lanes adds the upper half; no barrier,
//! the Fermi-era warp-synchronous idiom), and lane 0 of each warp adds the
//! warp's sum into one word with `atom.global.add.u32`. (It stands in for
//! a `__shfl_down_sync` reduction, which GPGPU-Sim's GTX480 configuration
//! cannot run; see `docs/correlation.md`.)
//!
//! Parameters in kernel order: `result, in, n`. Inputs: `in`, `n` uniform
//! 32-bit words (stream 0 of `seed`); `result` starts at 0. Check:
//! `result` exactly against [`wrapping_sum`].

use super::{block_fixed, grid_stride, int_arg};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{stream_seed, uniform_u32};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "warp_shared_reduce";

/// Threads per CTA (the kernel's compiled-in shared array and stride).
const REDUCE_BLOCK: u32 = 256;

/// The `warp_shared_reduce` workload.
pub struct WarpSharedReduce {
    n: u32,
    seed: u64,
    launch: Launch,
}

impl WarpSharedReduce {
    /// Reads `n` (default 2^21) and `seed` (1). Block: `[256, 1, 1]`
    /// (fixed by the kernel); grid: the manifest's (any: a grid-stride
    /// loop) or one thread per element. `n + threads` must fit an `int`
    /// (the loop's index).
    pub fn new(args: &mut Args, launch: Launch) -> Result<WarpSharedReduce, WorkloadError> {
        let w = WarpSharedReduce {
            n: args.count("n", 1 << 21)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        let (grid, block) = w.shape()?;
        int_arg(
            "n + grid * block",
            u64::from(w.n) + u64::from(grid[0]) * u64::from(block[0]),
        )?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_fixed(KERNEL, &self.launch, [REDUCE_BLOCK, 1, 1])?;
        grid_stride(KERNEL, &self.launch, block, "element", u64::from(self.n))
    }
}

/// The sum of `values` modulo 2^32.
pub fn wrapping_sum(values: &[u32]) -> u32 {
    values.iter().fold(0u32, |acc, &v| acc.wrapping_add(v))
}

impl Workload for WarpSharedReduce {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let input = uniform_u32(self.n as usize, stream_seed(self.seed, 0));
        // The warps accumulate into the result: it must start at zero.
        let dresult = upload(host, "result", &[0u32])?;
        let din = upload(host, "in", &input)?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dresult),
                ArgValue::U64(din),
                ArgValue::S32(self.n as i32),
            ],
        )?;
        let result: Vec<u32> = download(host, dresult, 1)?;
        Ok(check::exact("result", &[wrapping_sum(&input)], &result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sum_wraps_modulo_two_to_the_32() {
        assert_eq!(wrapping_sum(&[]), 0);
        assert_eq!(wrapping_sum(&[7, 8]), 15);
        assert_eq!(wrapping_sum(&[u32::MAX, 2, 0x8000_0000]), 0x8000_0001);
    }
}
