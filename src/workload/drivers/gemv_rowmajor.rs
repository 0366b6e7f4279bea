//! `gemv_rowmajor`: `y = A * x` for a `rows` x `cols` row-major float
//! matrix (`kernels/holdout/gemv_rowmajor.ptx`, a held-out correlation
//! kernel), one thread per row walking its own row: uncoalesced loads of
//! `A` (a warp touches one line per row) that the L1 can serve for the
//! next columns, and a broadcast load of `x`.
//!
//! Parameters (kernel order): `y, A, x, rows, cols`. Inputs (streams 0
//! and 1 of `seed`): every element of `A` and `x` is `k / 8` with `k`
//! uniform in `-8 ..= 8`. Every product is then a multiple of 1/64 of
//! magnitude at most 1, and every partial sum a multiple of 1/64 of
//! magnitude at most `cols`, exactly representable in `f32` while `cols *
//! 64 <= 2^24`: the result is exact whatever the order of the additions
//! and whether nvcc's `fma.rn.f32` is fused or rounds its product first
//! (as GPGPU-Sim does). Check: `y` (pre-filled with NaN) exactly against
//! [`reference`], which sums in `f64`.

use super::{block_1d, int_arg, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "gemv_rowmajor";
/// Most columns for which every partial sum is exact in `f32` (`cols *
/// 64 <= 2^24`).
const MAX_EXACT_COLS: u32 = 1 << 18;

/// The `gemv_rowmajor` workload.
pub struct GemvRowMajor {
    rows: u32,
    cols: u32,
    seed: u64,
    launch: Launch,
}

impl GemvRowMajor {
    /// Reads `rows` (default 2048), `cols` (64; at most 2^18 so the
    /// sums stay exact; `rows * cols` at most 2^31 - 1, the kernel's
    /// `int` index) and `seed` (1). Block: the manifest's (1-D) or 128
    /// threads; grid: the manifest's, which must cover `rows` threads, or
    /// `ceil(rows / block)`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<GemvRowMajor, WorkloadError> {
        let w = GemvRowMajor {
            rows: args.count("rows", 2048)?,
            cols: args.count("cols", 64)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        if w.cols > MAX_EXACT_COLS {
            return Err(WorkloadError::Args(format!(
                "`cols` = {} must be at most {MAX_EXACT_COLS} (beyond, the sums are not exact in f32)",
                w.cols
            )));
        }
        int_arg("rows * cols", u64::from(w.rows) * u64::from(w.cols))?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 128)?;
        one_thread_per(KERNEL, &self.launch, block, "row", u64::from(self.rows))
    }
}

/// `n` values `k / 8`, `k` uniform in `-8 ..= 8`.
pub fn eighths(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| (rng.below(17) as i32 - 8) as f32 / 8.0)
        .collect()
}

/// `A * x` for the row-major `rows` x `cols` matrix `a`, summed in `f64`.
pub fn reference(a: &[f32], x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    (0..rows)
        .map(|r| {
            let row = &a[r * cols..(r + 1) * cols];
            row.iter()
                .zip(x)
                .map(|(&m, &v)| f64::from(m) * f64::from(v))
                .sum::<f64>() as f32
        })
        .collect()
}

impl Workload for GemvRowMajor {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        let a = eighths(rows * cols, stream_seed(self.seed, 0));
        let x = eighths(cols, stream_seed(self.seed, 1));
        let dy = upload(host, "y", &vec![f32::NAN; rows])?;
        let da = upload(host, "A", &a)?;
        let dx = upload(host, "x", &x)?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dy),
                ArgValue::U64(da),
                ArgValue::U64(dx),
                ArgValue::S32(self.rows as i32),
                ArgValue::S32(self.cols as i32),
            ],
        )?;
        let y: Vec<f32> = download(host, dy, rows)?;
        Ok(check::exact("y", &reference(&a, &x, rows, cols), &y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eighths_are_multiples_of_one_eighth_in_range() {
        let v = eighths(10_000, 3);
        assert!(
            v.iter()
                .all(|&e| (-1.0..=1.0).contains(&e) && (e * 8.0).fract() == 0.0)
        );
        assert!(v.contains(&-1.0) && v.contains(&1.0) && v.contains(&0.0));
    }

    #[test]
    fn reference_is_the_matrix_vector_product() {
        // [[1, 2], [3, 4], [0.5, -1]] * [2, -0.25]
        let a = [1.0, 2.0, 3.0, 4.0, 0.5, -1.0];
        assert_eq!(reference(&a, &[2.0, -0.25], 3, 2), vec![1.5, 5.0, 1.25]);
    }
}
