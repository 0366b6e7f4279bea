//! `stencil2d_shared`: one 5-point Jacobi step on an `nx` x `ny` float grid
//! (`kernels/holdout/stencil2d_shared.ptx`, a held-out correlation kernel):
//! 16x16 threads per CTA load an 18x18 shared tile with a one-point halo,
//! `bar.sync`, then every interior point becomes
//! `0.2 * (c + up + down + left + right)` and boundary points are copied.
//!
//! Parameters (kernel order): `out, in, nx, ny`. Input `in`: `nx * ny`
//! floats uniform in `[-1, 1]` (stream 0 of `seed`); `out` is pre-filled
//! with NaN. Check: `out` exactly against [`reference`], which adds in
//! the kernel's order (nvcc emits four `add.f32` and one `mul.f32`; there
//! is nothing to contract into an FMA), so the comparison is bit-exact.

use super::{block_fixed, int_arg};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{stream_seed, uniform_f32};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "stencil2d_shared";
/// The kernel's compiled-in CTA edge (threads along x and y).
const TILE: u32 = 16;

/// The `stencil2d_shared` workload.
pub struct Stencil2dShared {
    nx: u32,
    ny: u32,
    seed: u64,
    launch: Launch,
}

impl Stencil2dShared {
    /// Reads `nx`, `ny` (default 1024 each; `nx * ny` at most 2^31 - 1,
    /// the kernel's `int` index) and `seed` (1). Block: `[16, 16, 1]`
    /// (fixed); grid: `[ceil(nx / 16), ceil(ny / 16), 1]` (the manifest
    /// may only repeat it).
    pub fn new(args: &mut Args, launch: Launch) -> Result<Stencil2dShared, WorkloadError> {
        let w = Stencil2dShared {
            nx: args.count("nx", 1024)?,
            ny: args.count("ny", 1024)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("nx * ny", u64::from(w.nx) * u64::from(w.ny))?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_fixed(KERNEL, &self.launch, [TILE, TILE, 1])?;
        let want = [self.nx.div_ceil(TILE), self.ny.div_ceil(TILE), 1];
        let grid = self.launch.grid_or(want);
        if grid != want {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} on {} x {} needs grid [{}, {}, 1] (one CTA per 16 x 16 points), got [{}, {}, {}]",
                self.nx, self.ny, want[0], want[1], grid[0], grid[1], grid[2]
            )));
        }
        Ok((grid, block))
    }
}

/// One Jacobi step of the row-major `nx` x `ny` grid `input`: boundary
/// points copied, interior points `0.2 * ((((c + up) + down) + left) +
/// right)` in `f32`.
pub fn reference(input: &[f32], nx: usize, ny: usize) -> Vec<f32> {
    let at = |x: usize, y: usize| input[y * nx + x];
    let mut out = Vec::with_capacity(nx * ny);
    for y in 0..ny {
        for x in 0..nx {
            let c = at(x, y);
            if x == 0 || y == 0 || x == nx - 1 || y == ny - 1 {
                out.push(c);
            } else {
                let sum = c + at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y);
                out.push(0.2f32 * sum);
            }
        }
    }
    out
}

impl Workload for Stencil2dShared {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let len = self.nx as usize * self.ny as usize;
        let input = uniform_f32(len, -1.0, 1.0, stream_seed(self.seed, 0));
        let dout = upload(host, "out", &vec![f32::NAN; len])?;
        let din = upload(host, "in", &input)?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dout),
                ArgValue::U64(din),
                ArgValue::S32(self.nx as i32),
                ArgValue::S32(self.ny as i32),
            ],
        )?;
        let out: Vec<f32> = download(host, dout, len)?;
        let want = reference(&input, self.nx as usize, self.ny as usize);
        Ok(check::exact("out", &want, &out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_averages_interior_points_and_copies_the_boundary() {
        // 3 x 3: only the centre is interior.
        let input = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
        let out = reference(&input, 3, 3);
        // 0.2 * (5 + 2 + 8 + 4 + 6) = 0.2 * 25
        let mut want = input.to_vec();
        want[4] = 0.2f32 * 25.0;
        assert_eq!(out, want);
        assert_eq!(reference(&[7.0], 1, 1), vec![7.0]);
    }
}
