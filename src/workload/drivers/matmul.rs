//! `matmul`: tiled `C = A * B` for `n x n` row-major floats
//! (`matmul.ptx`), 16 x 16 shared-memory tiles, two `bar.sync` per tile.
//!
//! Inputs: [`generate::matmul_input`]; check: `C` exactly against
//! [`reference::matmul`] (the fma chain in increasing `k`; the kernel's
//! zero padding can only turn `-0.0` into `+0.0`, which compare equal).

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate, reference};

const KERNEL: &str = "matmul_tiled";
/// The kernel's fixed tile edge.
const TILE: u32 = 16;

/// The `matmul` workload.
pub struct Matmul {
    n: u32,
    seed: u64,
    launch: Launch,
}

impl Matmul {
    /// Reads `n` (default 64; `n * n` must fit an `int`) and `seed` (1).
    /// Block: must be `[16, 16, 1]` (the tile); grid: the manifest's, which
    /// must cover the matrix, or `[ceil(n / 16), ceil(n / 16), 1]`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Matmul, WorkloadError> {
        let w = Matmul {
            n: args.count("n", 64)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("n * n", u64::from(w.n) * u64::from(w.n))?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = super::block_fixed(KERNEL, &self.launch, [TILE, TILE, 1])?;
        let tiles = self.n.div_ceil(TILE);
        let grid = self.launch.grid_or([tiles, tiles, 1]);
        if grid[0] < tiles || grid[1] < tiles || grid[2] != 1 {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} on a {n} x {n} matrix needs grid [{tiles}, {tiles}, 1] (one CTA per 16 x 16 tile of C), got [{}, {}, {}]",
                grid[0],
                grid[1],
                grid[2],
                n = self.n
            )));
        }
        Ok((grid, block))
    }
}

impl Workload for Matmul {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.n as usize;
        let (a, b) = generate::matmul_input(n, self.seed);
        let da = upload(host, "A", &a)?;
        let db = upload(host, "B", &b)?;
        let dc = upload(host, "C", &vec![f32::NAN; n * n])?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(da),
                ArgValue::U64(db),
                ArgValue::U64(dc),
                ArgValue::S32(self.n as i32),
            ],
        )?;
        let c: Vec<f32> = download(host, dc, n * n)?;
        Ok(check::exact("C", &reference::matmul(&a, &b, n), &c))
    }
}
