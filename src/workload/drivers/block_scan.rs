//! `block_scan` (`kernels/holdout/block_scan.cu`, a held-out correlation
//! kernel): the inclusive prefix sum of every 512-element block of `n`
//! unsigned words, one 512-thread CTA per block (Hillis–Steele in
//! double-buffered shared memory, `bar.sync` after each of 9 steps). Sums
//! wrap modulo 2^32.
//!
//! Parameters in kernel order: `out, in, n`. Inputs: `in`, `n` uniform
//! 32-bit words (stream 0 of `seed`). Check: `out` (pre-filled with a
//! sentinel) exactly against [`block_prefix_sums`].

use super::{block_fixed, int_arg, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{stream_seed, uniform_u32};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "block_scan";

/// Elements per scanned block (the kernel's compiled-in CTA size).
pub const SCAN_BLOCK: usize = 512;

/// The `block_scan` workload.
pub struct BlockScan {
    n: u32,
    seed: u64,
    launch: Launch,
}

impl BlockScan {
    /// Reads `n` (default 2^20; any count: the last block may be partial)
    /// and `seed` (1). Block: `[512, 1, 1]` (fixed by the kernel); grid:
    /// the manifest's, which must cover the `n` elements, or one CTA per
    /// 512 elements.
    pub fn new(args: &mut Args, launch: Launch) -> Result<BlockScan, WorkloadError> {
        let w = BlockScan {
            n: args.count("n", 1 << 20)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("n", u64::from(w.n))?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_fixed(KERNEL, &self.launch, [SCAN_BLOCK as u32, 1, 1])?;
        one_thread_per(KERNEL, &self.launch, block, "element", u64::from(self.n))
    }
}

/// The inclusive prefix sums (modulo 2^32) of each consecutive
/// `block`-element chunk of `input`, restarting at every chunk; the last
/// chunk may be shorter.
pub fn block_prefix_sums(input: &[u32], block: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(input.len());
    for chunk in input.chunks(block.max(1)) {
        let mut acc = 0u32;
        for &v in chunk {
            acc = acc.wrapping_add(v);
            out.push(acc);
        }
    }
    out
}

impl Workload for BlockScan {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.n as usize;
        let input = uniform_u32(n, stream_seed(self.seed, 0));
        let dout = upload(host, "out", &vec![0xDEAD_BEEFu32; n])?;
        let din = upload(host, "in", &input)?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dout),
                ArgValue::U64(din),
                ArgValue::S32(self.n as i32),
            ],
        )?;
        let out: Vec<u32> = download(host, dout, n)?;
        Ok(check::exact(
            "out",
            &block_prefix_sums(&input, SCAN_BLOCK),
            &out,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sums_restart_at_every_block_and_wrap() {
        let input = [1, 2, 3, u32::MAX, 5, 6, 7];
        // Blocks of 3: [1, 2, 3], [MAX, 5, 6], [7].
        assert_eq!(
            block_prefix_sums(&input, 3),
            vec![1, 3, 6, u32::MAX, 4, 10, 7]
        );
    }
}
