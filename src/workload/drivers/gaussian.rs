//! `gaussian`: Rodinia's Gaussian elimination
//! (`kernels/rodinia/gaussian.ptx`), with Rodinia's host loop
//! `ForwardSub`: for each pivot `t = 0 .. n-2`, `Fan1` (multipliers of
//! column `t`, 512-thread CTAs) then `Fan2` (update of the trailing rows and
//! of `b`, 4 x 4 CTAs on a `ceil(n/4) x ceil(n/4)` grid); the host then
//! back-substitutes.
//!
//! Input ([`input`]): a random diagonally dominant `n x n` matrix (entries
//! in [-1, 1], `n` added to the diagonal, so no pivoting is needed; Rodinia
//! generates a Toeplitz matrix with `exp`) and a random right-hand side.
//! Check: `a` (upper triangle plus eliminated entries), `b` and the
//! multipliers `m` exactly against [`reference`], which does the kernels'
//! f32 operations in their order (`m = a[i][t] / a[t][t]`, then
//! `a[i][j] - m * a[t][j]` with the product rounded first: nvcc does not
//! fuse it here, see the `mul.f32` / `sub.f32` pair in the PTX); and the
//! back-substituted solution, which comes from host code on those exact
//! values, against the reference's, exactly as well.

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate};

/// Rodinia's `MAXBLOCKSIZE` (Fan1's CTA).
const FAN1_BLOCK: u32 = 512;
/// Rodinia's `BLOCK_SIZE_XY` (Fan2's CTA is 4 x 4).
const FAN2_BLOCK: u32 = 4;

/// The `gaussian` workload.
pub struct Gaussian {
    size: u32,
    seed: u64,
}

impl Gaussian {
    /// Reads `size` (the matrix order, default 64) and `seed` (1). The
    /// launch shapes are Rodinia's, derived from `size`; the manifest gives
    /// none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Gaussian, WorkloadError> {
        let w = Gaussian {
            size: args.count("size", 64)?,
            seed: args.u64("seed", 1)?,
        };
        int_arg("size * size", u64::from(w.size).pow(2))?;
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "gaussian uses Rodinia's launch shapes (Fan1: 512-thread CTAs, Fan2: 4 x 4): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// The system `(a, b)`: `a` row-major, entries uniform in [-1, 1] (stream
/// 0) plus `n` on the diagonal; `b` uniform in [-1, 1] (stream 1).
pub fn input(n: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut a = generate::uniform_f32(n * n, -1.0, 1.0, generate::stream_seed(seed, 0));
    for i in 0..n {
        a[i * n + i] += n as f32;
    }
    let b = generate::uniform_f32(n, -1.0, 1.0, generate::stream_seed(seed, 1));
    (a, b)
}

/// Forward elimination as the kernels do it; returns `(m, a, b)`. Exact.
pub fn reference(a: &[f32], b: &[f32], n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    let mut m = vec![0.0f32; n * n];
    for t in 0..n.saturating_sub(1) {
        for i in t + 1..n {
            m[i * n + t] = a[i * n + t] / a[t * n + t];
        }
        for i in t + 1..n {
            let mi = m[i * n + t];
            for j in t..n {
                let p = mi * a[t * n + j];
                a[i * n + j] -= p;
            }
            let p = mi * b[t];
            b[i] -= p;
        }
    }
    (m, a, b)
}

/// Rodinia's host `BackSub`: `x[i] = (b[i] - sum_{j>i} a[i][j] x[j]) /
/// a[i][i]`, from the last row up, the sum accumulated left to right.
pub fn back_substitute(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut x = vec![0.0f32; n];
    for i in (0..n).rev() {
        let mut s = b[i];
        for j in i + 1..n {
            s -= a[i * n + j] * x[j];
        }
        x[i] = s / a[i * n + i];
    }
    x
}

impl Workload for Gaussian {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.size as usize;
        let (a, b) = input(n, self.seed);
        let dm = upload(host, "m_cuda", &vec![0.0f32; n * n])?;
        let da = upload(host, "a_cuda", &a)?;
        let db = upload(host, "b_cuda", &b)?;
        let fan1_grid = [self.size.div_ceil(FAN1_BLOCK), 1, 1];
        let g2 = self.size.div_ceil(FAN2_BLOCK);
        let size = ArgValue::S32(self.size as i32);
        for t in 0..self.size.saturating_sub(1) {
            host.launch(
                Some("Fan1"),
                fan1_grid,
                [FAN1_BLOCK, 1, 1],
                &[
                    ArgValue::U64(dm),
                    ArgValue::U64(da),
                    size,
                    ArgValue::S32(t as i32),
                ],
            )?;
            host.launch(
                Some("Fan2"),
                [g2, g2, 1],
                [FAN2_BLOCK, FAN2_BLOCK, 1],
                &[
                    ArgValue::U64(dm),
                    ArgValue::U64(da),
                    ArgValue::U64(db),
                    size,
                    ArgValue::S32((self.size - t) as i32),
                    ArgValue::S32(t as i32),
                ],
            )?;
        }
        let got_m: Vec<f32> = download(host, dm, n * n)?;
        let got_a: Vec<f32> = download(host, da, n * n)?;
        let got_b: Vec<f32> = download(host, db, n)?;
        let (wm, wa, wb) = reference(&a, &b, n);
        Ok(Check::all([
            check::exact("m_cuda", &wm, &got_m),
            check::exact("a_cuda", &wa, &got_a),
            check::exact("b_cuda", &wb, &got_b),
            check::exact(
                "x (host back-substitution)",
                &back_substitute(&wa, &wb, n),
                &back_substitute(&got_a, &got_b, n),
            ),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elimination_solves_the_system() {
        // 2x + y = 5, x + 3y = 10  ->  x = 1, y = 3 (exact in f32).
        let (m, a, b) = reference(&[2.0, 1.0, 1.0, 3.0], &[5.0, 10.0], 2);
        assert_eq!(m, vec![0.0, 0.0, 0.5, 0.0]);
        assert_eq!(a, vec![2.0, 1.0, 0.0, 2.5]);
        assert_eq!(b, vec![5.0, 7.5]);
        assert_eq!(back_substitute(&a, &b, 2), vec![1.0, 3.0]);
    }
}
