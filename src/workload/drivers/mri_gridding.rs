//! `mri_gridding`: Cartesian gridding of non-uniform samples
//! (`kernels/baws/mri_gridding.ptx`, `gridding`; BAWS Table 2 "MG", after
//! Parboil's mri-gridding, in 2-D). The host bins the samples by grid cell
//! (a stable counting sort, as Parboil's binning does) and builds the bins'
//! start offsets; one 32 x 16 CTA (16 warps) per tile of grid points walks
//! the rows of the tile widened by `radius`, staging each row's samples in
//! shared memory between two `bar.sync`.
//!
//! Input ([`input`]): `samples` samples at uniform positions in the
//! `size` x `size` grid with values (re, im) uniform in [-1, 1). Check: the
//! grid (`d_Grid`, (re, im) pairs) exactly against [`reference`], which
//! visits the same samples in the same order and does the kernel's f32
//! operations (`fma` where the PTX has it).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Tile width (threads in x).
pub const TILE_X: u32 = 32;
/// Tile height (threads in y).
pub const TILE_Y: u32 = 16;

/// The `mri_gridding` workload.
pub struct MriGridding {
    size: u32,
    samples: u32,
    radius: u32,
    seed: u64,
}

impl MriGridding {
    /// Reads `size` (default 160; a multiple of 32, at most 4096),
    /// `samples` (6400; at most 2^24), `radius` (2; 1..=16 cells) and
    /// `seed` (1). The launch shape is the kernel's ((size/32) x (size/16)
    /// CTAs of 32 x 16 threads); the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<MriGridding, WorkloadError> {
        let w = MriGridding {
            size: args.count("size", 160)?,
            samples: args.count("samples", 6400)?,
            radius: args.count("radius", 2)?,
            seed: args.u64("seed", 1)?,
        };
        if !w.size.is_multiple_of(TILE_X) || w.size > 4096 {
            return Err(WorkloadError::Args(format!(
                "`size` = {} must be a multiple of {TILE_X} and at most 4096",
                w.size
            )));
        }
        if w.samples > 1 << 24 || w.radius > 16 {
            return Err(WorkloadError::Args(format!(
                "`samples` = {} must be at most 2^24 and `radius` = {} at most 16",
                w.samples, w.radius
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "mri_gridding uses the kernel's launch shape (32 x 16 CTAs, one per tile): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// One sample: position (x, y) in grid cells and complex value (re, im),
/// the kernel's `float4`.
pub type Sample = [f32; 4];

/// `n` samples binned by cell: the samples sorted by `floor(y) * size +
/// floor(x)` (stably) and the bins' start offsets (`size * size + 1`).
pub fn input(n: usize, size: u32, seed: u64) -> (Vec<Sample>, Vec<i32>) {
    let mut rng = Rng::new(stream_seed(seed, 0));
    let g = size as f32;
    let raw: Vec<Sample> = (0..n)
        .map(|_| {
            let x = (rng.unit_f32() * g).min(g - 0.5);
            let y = (rng.unit_f32() * g).min(g - 0.5);
            [x, y, rng.range_f32(-1.0, 1.0), rng.range_f32(-1.0, 1.0)]
        })
        .collect();
    let cells = (size * size) as usize;
    let bin = |s: &Sample| s[1] as usize * size as usize + s[0] as usize;
    let mut start = vec![0i32; cells + 1];
    for s in &raw {
        start[bin(s) + 1] += 1;
    }
    for c in 0..cells {
        start[c + 1] += start[c];
    }
    let mut next: Vec<i32> = start[..cells].to_vec();
    let mut sorted = vec![[0.0f32; 4]; n];
    for s in &raw {
        let b = bin(s);
        sorted[next[b] as usize] = *s;
        next[b] += 1;
    }
    (sorted, start)
}

/// The grid as the kernel computes it: `size * size` (re, im) pairs,
/// flattened.
pub fn reference(samples: &[Sample], start: &[i32], size: u32, radius: u32) -> Vec<f32> {
    let (g, r) = (size as i32, radius as i32);
    let r2 = (radius * radius) as f32;
    let inv_r2 = 1.0 / r2;
    let mut out = Vec::with_capacity((size * size * 2) as usize);
    for gy in 0..g {
        for gx in 0..g {
            let (bx, by) = (gx / TILE_X as i32, gy / TILE_Y as i32);
            let c0 = (bx * TILE_X as i32 - r).max(0);
            let c1 = ((bx + 1) * TILE_X as i32 + r).min(g);
            let r0 = (by * TILE_Y as i32 - r).max(0);
            let r1 = ((by + 1) * TILE_Y as i32 + r).min(g);
            let (px, py) = (gx as f32 + 0.5, gy as f32 + 0.5);
            let (mut re, mut im) = (0.0f32, 0.0f32);
            for row in r0..r1 {
                let begin = start[(row * g + c0) as usize] as usize;
                let end = start[(row * g + c1) as usize] as usize;
                for s in &samples[begin..end] {
                    let dx = s[0] - px;
                    let dy = s[1] - py;
                    let d2 = dx.mul_add(dx, dy * dy);
                    if d2 < r2 {
                        let w = 1.0 - d2 * inv_r2;
                        let w = w * w;
                        re = s[2].mul_add(w, re);
                        im = s[3].mul_add(w, im);
                    }
                }
            }
            out.push(re);
            out.push(im);
        }
    }
    out
}

impl Workload for MriGridding {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let cells = (self.size * self.size) as usize;
        let (samples, start) = input(self.samples as usize, self.size, self.seed);
        let flat: Vec<f32> = samples.iter().flatten().copied().collect();
        let dgrid = upload(host, "d_Grid", &vec![f32::NAN; 2 * cells])?;
        let dsamples = upload(host, "d_Samples", &flat)?;
        let dstart = upload(host, "d_BinStart", &start)?;
        let r2 = (self.radius * self.radius) as f32;
        host.launch(
            None,
            [self.size / TILE_X, self.size / TILE_Y, 1],
            [TILE_X, TILE_Y, 1],
            &[
                ArgValue::U64(dgrid),
                ArgValue::U64(dsamples),
                ArgValue::U64(dstart),
                ArgValue::S32(self.size as i32),
                ArgValue::S32(self.radius as i32),
                ArgValue::F32(r2),
                ArgValue::F32(1.0 / r2),
            ],
        )?;
        let got: Vec<f32> = download(host, dgrid, 2 * cells)?;
        Ok(check::exact(
            "d_Grid",
            &reference(&samples, &start, self.size, self.radius),
            &got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binning_sorts_by_cell_and_a_lone_sample_spreads_by_the_window() {
        let (s, start) = input(500, 32, 2);
        assert_eq!(start[32 * 32], 500);
        for c in 0..32 * 32 {
            for smp in &s[start[c] as usize..start[c + 1] as usize] {
                assert_eq!(smp[1] as usize * 32 + smp[0] as usize, c);
            }
        }
        // One sample at the centre of cell (5, 7) with value (1, -2):
        // weight 1 there, (1 - 1/4)^2 one cell away, 0 at two cells.
        let mut start = vec![0i32; 32 * 32 + 1];
        for v in &mut start[7 * 32 + 5 + 1..] {
            *v = 1;
        }
        let grid = reference(&[[5.5, 7.5, 1.0, -2.0]], &start, 32, 2);
        let at = |x: usize, y: usize| (grid[2 * (y * 32 + x)], grid[2 * (y * 32 + x) + 1]);
        assert_eq!(at(5, 7), (1.0, -2.0));
        assert_eq!(at(6, 7), (0.5625, -1.125));
        assert_eq!(at(5, 9), (0.0, 0.0));
    }
}
