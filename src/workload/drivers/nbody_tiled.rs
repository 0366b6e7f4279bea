//! `nbody_tiled`: one all-pairs n-body acceleration step
//! (`kernels/holdout/nbody_tiled.ptx`, a held-out correlation kernel).
//! CTA `(bx, by)` computes, for its `block` bodies, the partial
//! acceleration from the `n / slices` bodies of slice `by`, staged tile by
//! tile (`block` float4 positions + masses) in dynamic shared memory:
//! float4 global loads, broadcast shared reads, `bar.sync` around each
//! tile and one `rsqrt.approx.f32` per interaction (compute bound).
//!
//! The kernel computes, for body `i` and slice `s`, `acc[s * n + i] =
//! (Σ_j dx_j w_j r_j^-3, Σ_j dy_j w_j r_j^-3, Σ_j dz_j w_j r_j^-3, 0)` over
//! the bodies `j` of slice `s`, where `(dx, dy, dz) = pos[j] - pos[i]`,
//! `w_j = pos[j].w` and `r_j^2 = dx² + dy² + dz² + eps2` (the `j = i` term
//! is 0).
//!
//! Parameters (kernel order): `acc, pos, n, eps2`; dynamic shared memory
//! `16 * block` bytes. Inputs (stream 0 of `seed`): every component of
//! `pos` (positions and masses) uniform in `[0.5, 2]`. Check: `acc`
//! (pre-filled with NaN) against [`reference()`], computed in `f64` from the
//! same inputs, within a bound per component of `(m + 32) * 2^-24 * Σ_j
//! |term_j|` (`m = n / slices` terms; the `w` component exactly 0). Each
//! `f32` term is within about 21 units of 2^-24 of its exact value (the
//! subtraction, `d2`'s three products and sums of positive terms,
//! `rsqrt.approx.f32`'s relative error of at most 2^-22.9 — PTX ISA — on
//! top of `d2`'s, cubed, and the products by `w` and `dx`), and summing
//! `m` terms in `f32` adds at most `(m - 1) * 2^-24 * Σ |term|` (the
//! standard bound of recursive summation, whatever the order); the bound
//! is relative to `Σ |term|` and not to the sum because the
//! contributions of bodies on either side cancel. The largest error on
//! the default inputs is 18 units of 2^-24 of `Σ |term|` (416 allowed),
//! up to 4.8e-4 of the sum itself.

use super::{block_1d, int_arg, shape};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{stream_seed, uniform_f32};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "nbody_tiled";

/// Bytes of one body (`float4`: x, y, z, mass), the shared tile's element.
const BODY_BYTES: u32 = 16;

/// The `nbody_tiled` workload.
pub struct NbodyTiled {
    n: u32,
    slices: u32,
    eps2: f32,
    seed: u64,
    launch: Launch,
}

impl NbodyTiled {
    /// Reads `n` (bodies, default 1536), `slices` (4), `eps2` (the
    /// softening, 0.01; finite and positive) and `seed` (1). Block: the
    /// manifest's (1-D) or 64 threads; `n` must be a multiple of
    /// `slices * block` (the kernel has no bounds checks: every CTA loads
    /// whole tiles of its slice). Grid: `[n / block, slices, 1]` (the
    /// manifest's, if given, must be that).
    pub fn new(args: &mut Args, launch: Launch) -> Result<NbodyTiled, WorkloadError> {
        let w = NbodyTiled {
            n: args.count("n", 1536)?,
            slices: args.count("slices", 4)?,
            eps2: {
                let v = args.f64("eps2", 0.01)?;
                let f = v as f32;
                if !(f.is_finite() && f > 0.0) {
                    return Err(WorkloadError::Args(format!(
                        "`eps2` = {v} must be a finite f32 > 0"
                    )));
                }
                f
            },
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("n * slices", u64::from(w.n) * u64::from(w.slices))?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 64)?;
        let per = u64::from(block[0]) * u64::from(self.slices);
        if u64::from(self.n) % per != 0 {
            return Err(WorkloadError::Args(format!(
                "{KERNEL}: `n` = {} must be a multiple of slices * block = {per} (whole tiles in every slice)",
                self.n
            )));
        }
        let want = [self.n / block[0], self.slices, 1];
        let grid = self.launch.grid_or(want);
        if grid != want {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} with n = {} and {} slices needs grid {} (n / block CTAs x slices), got {}",
                self.n,
                self.slices,
                shape(want),
                shape(grid)
            )));
        }
        Ok((grid, block))
    }
}

/// The kernel's `acc` (`slices` float4 rows of `n` bodies, flattened) for
/// the bodies `pos` (float4 each) and softening `eps2`, computed in
/// `f64`, and the bound of each component (see the module documentation):
/// `(expected, bound)`.
pub fn reference(pos: &[f32], slices: usize, eps2: f32) -> (Vec<f64>, Vec<f64>) {
    let n = pos.len() / 4;
    let m = n / slices;
    let rel = (m as f64 + 32.0) * f64::from(f32::EPSILON) / 2.0;
    let body = |j: usize| -> [f64; 4] { std::array::from_fn(|k| f64::from(pos[4 * j + k])) };
    let (mut expected, mut bound) = (Vec::with_capacity(4 * n * slices), Vec::new());
    for s in 0..slices {
        for i in 0..n {
            let pi = body(i);
            let (mut acc, mut abs) = ([0.0f64; 3], [0.0f64; 3]);
            for j in s * m..(s + 1) * m {
                let pj = body(j);
                let d: [f64; 3] = std::array::from_fn(|k| pj[k] - pi[k]);
                let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + f64::from(eps2);
                let sc = pj[3] / (d2 * d2.sqrt());
                for k in 0..3 {
                    acc[k] += d[k] * sc;
                    abs[k] += (d[k] * sc).abs();
                }
            }
            expected.extend([acc[0], acc[1], acc[2], 0.0]);
            bound.extend([rel * abs[0], rel * abs[1], rel * abs[2], 0.0]);
        }
    }
    (expected, bound)
}

impl Workload for NbodyTiled {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let (n, slices) = (self.n as usize, self.slices as usize);
        let pos = uniform_f32(4 * n, 0.5, 2.0, stream_seed(self.seed, 0));
        let dacc = upload(host, "acc", &vec![f32::NAN; 4 * n * slices])?;
        let dpos = upload(host, "pos", &pos)?;
        host.launch_shared(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dacc),
                ArgValue::U64(dpos),
                ArgValue::S32(self.n as i32),
                ArgValue::F32(self.eps2),
            ],
            block[0] * BODY_BYTES,
        )?;
        let acc: Vec<f32> = download(host, dacc, 4 * n * slices)?;
        let (expected, bound) = reference(&pos, slices, self.eps2);
        Ok(check::within_bounds("acc", &expected, &bound, &acc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_bodies_attract_each_other_and_a_body_not_itself() {
        // Body 0 at the origin (mass 2), body 1 at (3, 4, 0) (mass 1);
        // a negligible softening (it only keeps the self term finite).
        let pos = [0.0, 0.0, 0.0, 2.0, 3.0, 4.0, 0.0, 1.0];
        let eps2 = f32::MIN_POSITIVE;
        let (e, b) = reference(&pos, 1, eps2);
        // Body 0 feels body 1: (3, 4, 0) * 1 / 125; body 1 feels body 0:
        // (-3, -4, 0) * 2 / 125.
        let want = [
            3.0 / 125.0,
            4.0 / 125.0,
            0.0,
            0.0,
            -6.0 / 125.0,
            -8.0 / 125.0,
            0.0,
            0.0,
        ];
        for (g, w) in e.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{e:?}");
        }
        assert_eq!(b[3], 0.0);
        assert!(b[0] > 0.0 && b[0] < 1e-6);
        // Two slices: body 0's slice-0 sum is its own term (0).
        let (e, _) = reference(&pos, 2, eps2);
        assert_eq!(&e[..4], &[0.0, 0.0, 0.0, 0.0]);
    }
}
