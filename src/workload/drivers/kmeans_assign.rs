//! `kmeans_assign`: the assignment step of k-means
//! (`kernels/holdout/kmeans_assign.ptx`, a held-out correlation kernel),
//! one thread per point: 16 features stored point-major (a point's
//! features are 64 contiguous bytes, so a warp's load of one feature
//! touches 16 lines), 8 centroids read from global memory by every thread
//! of a warp at once (broadcast loads), and the index of the nearest
//! centroid (squared Euclidean distance, the first on a tie: the kernel
//! keeps a centroid only if it is strictly nearer) written out. The
//! kernel selects with `selp`: every warp runs the same path whatever the
//! data.
//!
//! Parameters (kernel order): `assign, pts, cent, n`. Inputs (streams 0
//! and 1 of `seed`): every feature of the `n` points and of the 8
//! centroids is `k / 8` with `k` uniform in `-8 ..= 8`. Every difference
//! is then a multiple of 1/8 of magnitude at most 2, every square a
//! multiple of 1/64, and every distance a multiple of 1/64 of magnitude
//! at most 64, exactly representable in `f32` whatever the order of the
//! additions and whether nvcc's `fma.rn.f32` is fused: the kernel's
//! distances are exact, ties (which these inputs do produce) are exact
//! ties, and [`reference()`] resolves them as the kernel does, computing the
//! distances in integers. Check: `assign` (pre-filled with `i32::MIN`)
//! exactly against [`reference()`].

use super::{block_1d, int_arg, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "kmeans_assign";

/// Features per point (the kernel's compiled-in `NF`).
pub const FEATURES: usize = 16;
/// Centroids (the kernel's compiled-in `NC`).
pub const CENTROIDS: usize = 8;

/// The `kmeans_assign` workload.
pub struct KmeansAssign {
    n: u32,
    seed: u64,
    launch: Launch,
}

impl KmeansAssign {
    /// Reads `n` (points, default 65536; `n * 16` at most 2^31 - 1, the
    /// kernel's `int` index) and `seed` (1). Block: the manifest's (1-D)
    /// or 256 threads; grid: the manifest's, which must cover `n`
    /// threads, or `ceil(n / block)`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<KmeansAssign, WorkloadError> {
        let w = KmeansAssign {
            n: args.count("n", 65_536)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("n * 16", u64::from(w.n) * FEATURES as u64)?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 256)?;
        one_thread_per(KERNEL, &self.launch, block, "point", u64::from(self.n))
    }
}

/// `n` integers `k` uniform in `-8 ..= 8` (the feature values are `k / 8`).
pub fn eighths(n: usize, seed: u64) -> Vec<i32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.below(17) as i32 - 8).collect()
}

/// The index of the nearest of the [`CENTROIDS`] centroids `cent` (row
/// `c` = centroid `c`) for every point of `pts` (row `i` = point `i`),
/// both in eighths as [`eighths`] gives them: the squared distance in
/// units of 1/64, exactly, and the lowest index among equally near
/// centroids.
pub fn reference(pts: &[i32], cent: &[i32]) -> Vec<i32> {
    pts.chunks_exact(FEATURES)
        .map(|p| {
            let dist = |c: &[i32]| -> i32 { p.iter().zip(c).map(|(a, b)| (a - b) * (a - b)).sum() };
            let mut best = (i32::MAX, 0);
            for (c, row) in cent.chunks_exact(FEATURES).enumerate() {
                let d = dist(row);
                if d < best.0 {
                    best = (d, c as i32);
                }
            }
            best.1
        })
        .collect()
}

fn values(k: &[i32]) -> Vec<f32> {
    k.iter().map(|&k| k as f32 / 8.0).collect()
}

impl Workload for KmeansAssign {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.n as usize;
        let pts = eighths(n * FEATURES, stream_seed(self.seed, 0));
        let cent = eighths(CENTROIDS * FEATURES, stream_seed(self.seed, 1));
        let dassign = upload(host, "assign", &vec![i32::MIN; n])?;
        let dpts = upload(host, "pts", &values(&pts))?;
        let dcent = upload(host, "cent", &values(&cent))?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dassign),
                ArgValue::U64(dpts),
                ArgValue::U64(dcent),
                ArgValue::S32(self.n as i32),
            ],
        )?;
        let assign: Vec<i32> = download(host, dassign, n)?;
        Ok(check::exact("assign", &reference(&pts, &cent), &assign))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn centroid(v: i32) -> Vec<i32> {
        vec![v; FEATURES]
    }

    #[test]
    fn nearest_centroid_with_ties_to_the_lowest_index() {
        // Centroids 0..8 at (c - 4) * (1, ..., 1).
        let cent: Vec<i32> = (0..CENTROIDS as i32)
            .flat_map(|c| centroid(c - 4))
            .collect();
        let mut pts = centroid(2); // exactly centroid 6
        pts.extend(centroid(-8)); // beyond centroid 0
        // Halfway between centroids 3 (-1) and 4 (0): a tie, the lower wins.
        pts.extend((0..FEATURES as i32).map(|f| -(f % 2)));
        assert_eq!(reference(&pts, &cent), vec![6, 0, 3]);
    }

    #[test]
    fn default_inputs_use_every_centroid_and_have_ties() {
        let pts = eighths(4096 * FEATURES, stream_seed(1, 0));
        let cent = eighths(CENTROIDS * FEATURES, stream_seed(1, 1));
        let a = reference(&pts, &cent);
        assert!((0..CENTROIDS as i32).all(|c| a.contains(&c)));
        // Some point has two equally near centroids.
        let ties = pts
            .chunks_exact(FEATURES)
            .filter(|p| {
                let mut d: Vec<i32> = cent
                    .chunks_exact(FEATURES)
                    .map(|c| p.iter().zip(c).map(|(a, b)| (a - b) * (a - b)).sum())
                    .collect();
                d.sort();
                d[0] == d[1]
            })
            .count();
        assert!(ties > 0, "no ties");
    }
}
