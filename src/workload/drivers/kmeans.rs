//! `kmeans`: Rodinia's k-means assignment step (`kmeans.ptx`,
//! `kmeansPoint`): the nearest of `clusters` centres for each of `points`
//! points with `features` features, feature-major.
//!
//! Input: [`generate::kmeans_input`]; check: `membership` exactly against
//! [`reference::kmeans_assign`] (same fma chain per distance, same strict
//! `<`).

use super::{block_1d, int_arg};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate, reference};

const KERNEL: &str = "kmeansPoint";

/// The `kmeans` workload.
pub struct Kmeans {
    points: u32,
    features: u32,
    clusters: u32,
    seed: u64,
    launch: Launch,
}

impl Kmeans {
    /// Reads `points` (default 4096), `features` (8), `clusters` (5, at
    /// most `points`) and `seed` (1). Block: the manifest's (1-D) or
    /// Rodinia's 256; grid: the manifest's (`[x, y, 1]`: the kernel numbers
    /// CTAs `gridDim.x * blockIdx.y + blockIdx.x`), which must cover
    /// `points` threads, or `[ceil(points / block), 1, 1]`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Kmeans, WorkloadError> {
        let w = Kmeans {
            points: args.count("points", 4096)?,
            features: args.count("features", 8)?,
            clusters: args.count("clusters", 5)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg(
            "points * features",
            u64::from(w.points) * u64::from(w.features),
        )?;
        int_arg(
            "clusters * features",
            u64::from(w.clusters) * u64::from(w.features),
        )?;
        if w.clusters > w.points {
            return Err(WorkloadError::Args(format!(
                "`clusters` = {} must be at most `points` = {} (the centres are input points)",
                w.clusters, w.points
            )));
        }
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 256)?;
        let need = self.points.div_ceil(block[0]);
        let grid = self.launch.grid_or([need, 1, 1]);
        let ctas = u64::from(grid[0]) * u64::from(grid[1]);
        if grid[2] != 1 || ctas < u64::from(need) {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} needs one thread per point ({}): a grid [x, y, 1] with x * y >= {need}, got [{}, {}, {}]",
                self.points, grid[0], grid[1], grid[2]
            )));
        }
        Ok((grid, block))
    }
}

impl Workload for Kmeans {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let (np, nf, nc) = (
            self.points as usize,
            self.features as usize,
            self.clusters as usize,
        );
        let inp = generate::kmeans_input(np, nf, nc, self.seed);
        let dfeatures = upload(host, "features", &inp.features)?;
        let dclusters = upload(host, "clusters", &inp.clusters)?;
        // -1 is a valid answer; i32::MIN shows a point never written.
        let dmembership = upload(host, "membership", &vec![i32::MIN; np])?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dfeatures),
                ArgValue::S32(self.features as i32),
                ArgValue::S32(self.points as i32),
                ArgValue::S32(self.clusters as i32),
                ArgValue::U64(dmembership),
                ArgValue::U64(dclusters),
            ],
        )?;
        let got: Vec<i32> = download(host, dmembership, np)?;
        let want = reference::kmeans_assign(&inp.features, nf, np, &inp.clusters, nc);
        Ok(check::exact("membership", &want, &got))
    }
}
