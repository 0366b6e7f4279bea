//! `simple_multigpu`: the CUDA SDK simpleMultiGPU sample's reduction
//! (`kernels/blws/simple_multigpu.ptx`, `reduceKernel`; BLWS Table 3
//! "SimpleMultiGPU"), one GPU's share. `ctas` CTAs of 256 threads (8 warps;
//! the sample's `BLOCK_N` = 32 and `THREAD_N` = 256): thread `tid` of the
//! `threadN` = `ctas` × 256 sums the elements `tid`, `tid + threadN`, … of
//! the input and writes its partial sum; the host adds the partials.
//!
//! Input ([`input`]): `elements` floats uniform in `[0, 1)` (the sample's
//! `rand() / RAND_MAX`). Check: `d_Result` (one partial per thread)
//! exactly against [`reference`], which adds in the kernel's order.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Threads per CTA (the sample's `THREAD_N`).
pub const THREAD_N: u32 = 256;

/// The `simple_multigpu` workload.
pub struct SimpleMultiGpu {
    elements: u32,
    ctas: u32,
    seed: u64,
}

impl SimpleMultiGpu {
    /// Reads `elements` (default 2^21; at most 2^31 - 1, the kernel's
    /// `int N`), `ctas` (32, the sample's `BLOCK_N`; at most 65535) and
    /// `seed` (1). The launch shape is the sample's: the manifest gives
    /// none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<SimpleMultiGpu, WorkloadError> {
        let w = SimpleMultiGpu {
            elements: args.count("elements", 1 << 21)?,
            ctas: args.count("ctas", 32)?,
            seed: args.u64("seed", 1)?,
        };
        if w.elements > i32::MAX as u32 {
            return Err(WorkloadError::Args(format!(
                "`elements` = {} must be at most {} (the kernel's `int N`)",
                w.elements,
                i32::MAX
            )));
        }
        if w.ctas > 65535 {
            return Err(WorkloadError::Args(format!(
                "`ctas` = {} must be at most 65535",
                w.ctas
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "simple_multigpu uses the sample's launch shape (`ctas` CTAs of 256 threads): remove `grid`/`block` (set `ctas`)".into(),
            ));
        }
        Ok(w)
    }
}

/// `n` floats uniform in `[0, 1)`.
pub fn input(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(stream_seed(seed, 0));
    (0..n).map(|_| rng.unit_f32()).collect()
}

/// The partial sum of each of `threads` threads: `sum += data[pos]` for
/// `pos = tid, tid + threads, …`, in `f32`, starting from 0.
pub fn reference(data: &[f32], threads: usize) -> Vec<f32> {
    (0..threads)
        .map(|tid| {
            data.iter()
                .skip(tid)
                .step_by(threads)
                .fold(0.0f32, |s, &x| s + x)
        })
        .collect()
}

impl Workload for SimpleMultiGpu {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let threads = (self.ctas * THREAD_N) as usize;
        let data = input(self.elements as usize, self.seed);
        let dinput = upload(host, "d_Input", &data)?;
        let dresult = upload(host, "d_Result", &vec![f32::NAN; threads])?;
        host.launch(
            None,
            [self.ctas, 1, 1],
            [THREAD_N, 1, 1],
            &[
                ArgValue::U64(dresult),
                ArgValue::U64(dinput),
                ArgValue::S32(self.elements as i32),
            ],
        )?;
        let got: Vec<f32> = download(host, dresult, threads)?;
        Ok(check::exact("d_Result", &reference(&data, threads), &got))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partials_add_every_threads_stride() {
        // 3 threads over 7 elements: thread 0 takes 0, 3, 6; thread 2 takes 2, 5.
        let data = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
        assert_eq!(reference(&data, 3), [73.0, 18.0, 36.0]);
        // More threads than elements: the extra threads write 0.
        assert_eq!(reference(&data[..2], 4), [1.0, 2.0, 0.0, 0.0]);
    }
}
