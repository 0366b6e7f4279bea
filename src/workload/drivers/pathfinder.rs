//! `pathfinder`: Rodinia's dynamic-programming path finder
//! (`kernels/rodinia/pathfinder.ptx`, `dynproc_kernel`), with Rodinia's
//! host loop `calc_path`: the `rows - 1` row steps in launches of
//! `pyramid_height` rows each, ping-ponging two result rows.
//!
//! Input: a `rows x cols` grid of weights `0..=9` (Rodinia: `rand() % 10`),
//! from [`generate::Rng`] on stream 0 of `seed`; row 0 is the initial cost,
//! rows `1..` the wall. Check: the final cost row exactly against
//! [`reference`] (integer minimum and addition: exact).

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate};

const KERNEL: &str = "dynproc_kernel";
/// The kernel's compiled tile width (`BLOCK_SIZE`).
const BLOCK: u32 = 256;

/// The `pathfinder` workload.
pub struct Pathfinder {
    cols: u32,
    rows: u32,
    pyramid_height: u32,
    seed: u64,
    launch: Launch,
}

impl Pathfinder {
    /// Reads `cols` (default 4096), `rows` (100), `pyramid_height` (20;
    /// 1..=127, so a CTA still owns a column) and `seed` (1). Block: must be
    /// `[256, 1, 1]`; grid: the manifest's, at least Rodinia's
    /// `ceil(cols / (256 - 2 * pyramid_height))` CTAs, or exactly that.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Pathfinder, WorkloadError> {
        let w = Pathfinder {
            cols: args.count("cols", 4096)?,
            rows: args.count("rows", 100)?,
            pyramid_height: args.count("pyramid_height", 20)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("rows * cols", u64::from(w.rows) * u64::from(w.cols))?;
        if w.pyramid_height > (BLOCK - 1) / 2 {
            return Err(WorkloadError::Args(format!(
                "`pyramid_height` = {} must be at most {} (a {BLOCK}-wide tile loses 2 columns per row)",
                w.pyramid_height,
                (BLOCK - 1) / 2
            )));
        }
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = super::block_fixed(KERNEL, &self.launch, [BLOCK, 1, 1])?;
        let own = BLOCK - 2 * self.pyramid_height;
        let need = self.cols.div_ceil(own);
        let grid = self.launch.grid_or([need, 1, 1]);
        if grid[0] < need || grid[1] != 1 || grid[2] != 1 {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} on {} columns with pyramid height {} needs grid [{need}, 1, 1] (one CTA per {own} columns), got [{}, {}, {}]",
                self.cols, self.pyramid_height, grid[0], grid[1], grid[2]
            )));
        }
        Ok((grid, block))
    }
}

/// The weight grid, row-major `rows x cols`, values `0..=9`.
pub fn input(rows: usize, cols: usize, seed: u64) -> Vec<i32> {
    let mut rng = generate::Rng::new(generate::stream_seed(seed, 0));
    (0..rows * cols).map(|_| rng.below(10) as i32).collect()
}

/// The cheapest cost of reaching each column of the last row: row 0 as
/// given, then `cost[x] = min(prev[x-1], prev[x], prev[x+1]) + wall[x]`
/// with the neighbours clamped at the edges (the kernel clamps its west/east
/// indices to the grid). Exact.
pub fn reference(data: &[i32], rows: usize, cols: usize) -> Vec<i32> {
    let mut prev = data[..cols].to_vec();
    for r in 1..rows {
        let wall = &data[r * cols..(r + 1) * cols];
        prev = (0..cols)
            .map(|x| {
                let l = prev[x.saturating_sub(1)];
                let r = prev[(x + 1).min(cols - 1)];
                l.min(prev[x]).min(r) + wall[x]
            })
            .collect();
    }
    prev
}

impl Workload for Pathfinder {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        let data = input(rows, cols, self.seed);
        let wall = upload(host, "gpuWall", &data[cols..])?;
        // Every launch writes every column of its destination row: a
        // sentinel shows a miss.
        let results = [
            upload(host, "gpuResult0", &data[..cols])?,
            upload(host, "gpuResult1", &vec![i32::MIN; cols])?,
        ];
        let ph = self.pyramid_height;
        let border = ArgValue::S32(ph as i32);
        let (mut src, mut dst) = (1usize, 0usize);
        let mut t = 0u32;
        while t + 1 < self.rows {
            std::mem::swap(&mut src, &mut dst);
            host.launch(
                None,
                grid,
                block,
                &[
                    ArgValue::S32(ph.min(self.rows - t - 1) as i32),
                    ArgValue::U64(wall),
                    ArgValue::U64(results[src]),
                    ArgValue::U64(results[dst]),
                    ArgValue::S32(self.cols as i32),
                    ArgValue::S32(self.rows as i32),
                    ArgValue::S32(t as i32),
                    border,
                ],
            )?;
            t += ph;
        }
        let got: Vec<i32> = download(host, results[dst], cols)?;
        Ok(check::exact(
            &format!("gpuResult{dst}"),
            &reference(&data, rows, cols),
            &got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_by_hand() {
        // 3 x 3: row 0 = 1 5 2; row 1 = 3 0 4; row 2 = 1 1 1.
        let d = [1, 5, 2, 3, 0, 4, 1, 1, 1];
        // row 1: min(1,1,5)+3=4, min(1,5,2)+0=1, min(5,2,2)+4=6
        // row 2: min(4,4,1)+1=2, min(4,1,6)+1=2, min(1,6,6)+1=2
        assert_eq!(reference(&d, 3, 3), vec![2, 2, 2]);
        assert_eq!(reference(&d, 1, 3), vec![1, 5, 2]);
    }
}
