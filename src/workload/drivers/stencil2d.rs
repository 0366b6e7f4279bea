//! `stencil2d`: `iterations` Jacobi steps of the 2-D 5-point stencil on a
//! `width x height` grid (`stencil2d.ptx`, shared tile with a halo and
//! `bar.sync`). Launch `k` reads `buf[k % 2]` and writes `buf[(k + 1) % 2]`;
//! the result is in `buf[iterations % 2]`.
//!
//! Input: [`generate::stencil2d_input`] in `buf0`; check: the result buffer
//! (`buf0` or `buf1`) exactly against [`reference::stencil2d`] (same
//! additions in the same order, then `* 0.25`).

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate, reference};

const KERNEL: &str = "stencil2d";
/// The kernel's fixed tile.
const BLOCK: [u32; 3] = [32, 16, 1];

/// The `stencil2d` workload.
pub struct Stencil2d {
    width: u32,
    height: u32,
    iterations: u32,
    seed: u64,
    launch: Launch,
}

impl Stencil2d {
    /// Reads `width`, `height` (default 128 each; `width * height` must fit
    /// an `int`), `iterations` (4; 0 checks the untouched input) and `seed`
    /// (1). Block: must be `[32, 16, 1]` (the tile); grid: the manifest's,
    /// which must cover the grid of cells, or `[ceil(width / 32),
    /// ceil(height / 16), 1]`, for every launch.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Stencil2d, WorkloadError> {
        let w = Stencil2d {
            width: args.count("width", 128)?,
            height: args.count("height", 128)?,
            iterations: args.u32("iterations", 4)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("width * height", u64::from(w.width) * u64::from(w.height))?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = super::block_fixed(KERNEL, &self.launch, BLOCK)?;
        let need = [
            self.width.div_ceil(BLOCK[0]),
            self.height.div_ceil(BLOCK[1]),
            1,
        ];
        let grid = self.launch.grid_or(need);
        if grid[0] < need[0] || grid[1] < need[1] || grid[2] != 1 {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} on {} x {} cells needs grid [{}, {}, 1] (one CTA per 32 x 16 tile), got [{}, {}, {}]",
                self.width, self.height, need[0], need[1], grid[0], grid[1], grid[2]
            )));
        }
        Ok((grid, block))
    }
}

impl Workload for Stencil2d {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let (w, h) = (self.width as usize, self.height as usize);
        let input = generate::stencil2d_input(w, h, self.seed);
        // Every launch writes every cell of its output: NaN shows a miss.
        let bufs = [
            upload(host, "buf0", &input)?,
            upload(host, "buf1", &vec![f32::NAN; w * h])?,
        ];
        let it = self.iterations as usize;
        for k in 0..it {
            host.launch(
                None,
                grid,
                block,
                &[
                    ArgValue::U64(bufs[k % 2]),
                    ArgValue::U64(bufs[(k + 1) % 2]),
                    ArgValue::S32(self.width as i32),
                    ArgValue::S32(self.height as i32),
                ],
            )?;
        }
        let got: Vec<f32> = download(host, bufs[it % 2], w * h)?;
        let name = format!("buf{}", it % 2);
        Ok(check::exact(
            &name,
            &reference::stencil2d(&input, w, h, it),
            &got,
        ))
    }
}
