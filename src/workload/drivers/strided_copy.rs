//! `strided_copy`: `out[i] = in[i * stride]` for `n` floats
//! (`kernels/holdout/strided_copy.ptx`, a held-out correlation kernel),
//! one element per thread: with `stride` > 1 the loads of a warp spread
//! over `stride` times as many lines as its (coalesced) stores.
//!
//! Parameters (kernel order): `out, in, stride, n`. Input `in`: `n *
//! stride` floats uniform in `[-1, 1]` (stream 0 of `seed`); `out` is
//! pre-filled with NaN. Check: `out` exactly against [`reference`] (a
//! copy: bit-exact).

use super::{block_1d, int_arg, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{stream_seed, uniform_f32};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "strided_copy";

/// The `strided_copy` workload.
pub struct StridedCopy {
    n: u32,
    stride: u32,
    seed: u64,
    launch: Launch,
}

impl StridedCopy {
    /// Reads `n` (default 2^18), `stride` (4; `n * stride` at most
    /// 2^31 - 1, the kernel's `int` index) and `seed` (1). Block: the
    /// manifest's (1-D) or 256 threads; grid: the manifest's, which must
    /// cover `n` threads, or `ceil(n / block)`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<StridedCopy, WorkloadError> {
        let w = StridedCopy {
            n: args.count("n", 1 << 18)?,
            stride: args.count("stride", 4)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("n * stride", u64::from(w.n) * u64::from(w.stride))?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 256)?;
        one_thread_per(KERNEL, &self.launch, block, "element", u64::from(self.n))
    }
}

/// Every `stride`-th element of `input`, `n` of them.
pub fn reference(input: &[f32], stride: usize, n: usize) -> Vec<f32> {
    input.iter().step_by(stride).take(n).copied().collect()
}

impl Workload for StridedCopy {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.n as usize;
        let stride = self.stride as usize;
        let input = uniform_f32(n * stride, -1.0, 1.0, stream_seed(self.seed, 0));
        let dout = upload(host, "out", &vec![f32::NAN; n])?;
        let din = upload(host, "in", &input)?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dout),
                ArgValue::U64(din),
                ArgValue::S32(self.stride as i32),
                ArgValue::S32(self.n as i32),
            ],
        )?;
        let out: Vec<f32> = download(host, dout, n)?;
        Ok(check::exact("out", &reference(&input, stride, n), &out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_takes_every_stride_th_element() {
        let input: Vec<f32> = (0..12).map(|i| i as f32).collect();
        assert_eq!(reference(&input, 4, 3), vec![0.0, 4.0, 8.0]);
        assert_eq!(reference(&input, 1, 2), vec![0.0, 1.0]);
    }
}
