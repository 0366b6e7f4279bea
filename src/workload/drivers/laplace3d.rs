//! `laplace3d`: Jacobi iterations of the 3-D Laplace equation
//! (`kernels/lfws/laplace3d.ptx`, `laplace3d`; LFWS Table 2 "LPS", the
//! ISPASS-2009 laplace3d). A 2-D grid of 32 × 4 CTAs covers the x-y
//! plane and marches through z with three planes of its tile and halo in
//! shared memory; each launch is one Jacobi step: interior cells become
//! the mean of their six neighbours, boundary cells are copied.
//!
//! Input ([`input`]): `nx` × `ny` × `nz` values uniform in [0, 1)
//! (x fastest). The host runs `iterations` launches ping-ponging `d_u1`
//! and `d_u2` (launch `t` reads `d_u1` when `t` is even). Check, exactly
//! against [`reference`] (the kernel's adds in its order, then the
//! multiply by the f32 `1/6`): the last iterate, in `d_u2` after an odd
//! number of launches and in `d_u1` after an even one, and the iterate
//! before it in the other buffer (the input after one launch).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::drivers::block_fixed;
use crate::workload::generate::uniform_f32;
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// CTA width (x).
pub const BLOCK_X: u32 = 32;
/// CTA height (y).
pub const BLOCK_Y: u32 = 4;
/// Most cells of the volume.
const MAX_CELLS: u64 = 1 << 24;
/// Most Jacobi iterations.
const MAX_ITERATIONS: u32 = 1000;

/// The `laplace3d` workload.
pub struct Laplace3d {
    nx: u32,
    ny: u32,
    nz: u32,
    iterations: u32,
    seed: u64,
}

impl Laplace3d {
    /// Reads `nx`, `ny`, `nz` (default 100 each, the paper's input; at
    /// most 2^24 cells, `ny` at most 262140: 65535 CTA rows), `iterations` (4; at most 1000) and `seed` (1).
    /// The block is the kernel's [32, 4, 1]; the grid follows from `nx`
    /// and `ny`: the manifest gives neither.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Laplace3d, WorkloadError> {
        let w = Laplace3d {
            nx: args.count("nx", 100)?,
            ny: args.count("ny", 100)?,
            nz: args.count("nz", 100)?,
            iterations: args.count("iterations", 4)?,
            seed: args.u64("seed", 1)?,
        };
        let cells = u64::from(w.nx) * u64::from(w.ny) * u64::from(w.nz);
        if cells > MAX_CELLS {
            return Err(WorkloadError::Args(format!(
                "`nx` x `ny` x `nz` = {cells} cells: at most 2^24"
            )));
        }
        if w.iterations > MAX_ITERATIONS {
            return Err(WorkloadError::Args(format!(
                "`iterations` = {} must be at most {MAX_ITERATIONS}",
                w.iterations
            )));
        }
        if w.ny.div_ceil(BLOCK_Y) > 65535 {
            return Err(WorkloadError::Args(format!(
                "`ny` = {} needs {} CTA rows: a grid has at most 65535 (ny <= 262140)",
                w.ny,
                w.ny.div_ceil(BLOCK_Y)
            )));
        }
        if launch.grid.is_some() {
            return Err(WorkloadError::Args(
                "laplace3d derives its grid from `nx` and `ny` (one 32 x 4 CTA per tile): remove `grid`".into(),
            ));
        }
        block_fixed("laplace3d", &launch, [BLOCK_X, BLOCK_Y, 1])?;
        Ok(w)
    }
}

/// The input volume (see the module comment).
pub fn input(nx: usize, ny: usize, nz: usize, seed: u64) -> Vec<f32> {
    uniform_f32(nx * ny * nz, 0.0, 1.0, seed)
}

/// One Jacobi step as the kernel computes it: interior cells
/// `(((((W + E) + S) + N) + D) + U) * (1/6 as f32)`, boundary cells copied.
pub fn step(u: &[f32], nx: usize, ny: usize, nz: usize) -> Vec<f32> {
    let sixth = 1.0f32 / 6.0;
    let (jo, ko) = (nx, nx * ny);
    let mut out = u.to_vec();
    for k in 1..nz.saturating_sub(1) {
        for j in 1..ny.saturating_sub(1) {
            for i in 1..nx.saturating_sub(1) {
                let c = i + j * jo + k * ko;
                out[c] =
                    (u[c - 1] + u[c + 1] + u[c - jo] + u[c + jo] + u[c - ko] + u[c + ko]) * sixth;
            }
        }
    }
    out
}

/// The iterates after `iterations - 1` and `iterations` steps.
pub fn reference(
    u: &[f32],
    nx: usize,
    ny: usize,
    nz: usize,
    iterations: u32,
) -> (Vec<f32>, Vec<f32>) {
    let mut prev = u.to_vec();
    let mut cur = step(u, nx, ny, nz);
    for _ in 1..iterations {
        let next = step(&cur, nx, ny, nz);
        prev = std::mem::replace(&mut cur, next);
    }
    (prev, cur)
}

impl Workload for Laplace3d {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (nx, ny, nz) = (self.nx as usize, self.ny as usize, self.nz as usize);
        let u = input(nx, ny, nz, self.seed);
        let bufs = [
            upload(host, "d_u1", &u)?,
            upload(host, "d_u2", &vec![f32::NAN; u.len()])?,
        ];
        let grid = [self.nx.div_ceil(BLOCK_X), self.ny.div_ceil(BLOCK_Y), 1];
        for t in 0..self.iterations as usize {
            host.launch(
                None,
                grid,
                [BLOCK_X, BLOCK_Y, 1],
                &[
                    ArgValue::S32(self.nx as i32),
                    ArgValue::S32(self.ny as i32),
                    ArgValue::S32(self.nz as i32),
                    ArgValue::U64(bufs[t % 2]),
                    ArgValue::U64(bufs[(t + 1) % 2]),
                ],
            )?;
        }
        let (prev, last) = reference(&u, nx, ny, nz, self.iterations);
        // Launch t writes buffer (t + 1) % 2: the last one writes
        // iterations % 2, the one before it the other.
        let last_buf = self.iterations as usize % 2;
        let names = ["d_u1", "d_u2"];
        let got_last: Vec<f32> = download(host, bufs[last_buf], u.len())?;
        let got_prev: Vec<f32> = download(host, bufs[1 - last_buf], u.len())?;
        Ok(Check::all([
            check::exact(names[last_buf], &last, &got_last),
            check::exact(names[1 - last_buf], &prev, &got_prev),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_step_averages_the_interior_and_copies_the_boundary() {
        // 3 x 3 x 3: only the centre is interior; its neighbours are
        // 1..=6, so it becomes 21 * (1/6).
        let mut u = vec![9.0f32; 27];
        for (n, c) in [12, 14, 10, 16, 4, 22].into_iter().enumerate() {
            u[c] = (n + 1) as f32;
        }
        let v = step(&u, 3, 3, 3);
        assert_eq!(v[13], 21.0 * (1.0f32 / 6.0));
        for c in (0..27).filter(|&c| c != 13) {
            assert_eq!(v[c], u[c]);
        }
        let (prev, last) = reference(&u, 3, 3, 3, 2);
        assert_eq!(prev, v);
        assert_eq!(last[13], 21.0 * (1.0f32 / 6.0));
    }
}
