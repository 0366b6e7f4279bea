//! `vector_add`: `c[i] = a[i] + b[i]` over `n` floats.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::rng::Rng;
use crate::workload::{Launch, Workload};

/// The workload.
pub struct VectorAdd {
    n: u32,
    seed: u64,
    launch: Launch,
}

impl VectorAdd {
    /// Reads `n` (default 65536) and `seed`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<VectorAdd, WorkloadError> {
        Ok(VectorAdd {
            n: args.count("n", 65536)?,
            seed: args.u64("seed", 1)?,
            launch,
        })
    }
}

impl Workload for VectorAdd {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.n as usize;
        let mut rng = Rng::new(self.seed);
        let a: Vec<f32> = (0..n).map(|_| rng.f32_range(-1.0, 1.0)).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.f32_range(-1.0, 1.0)).collect();
        let da = upload(host, "a", &a)?;
        let db = upload(host, "b", &b)?;
        let dc = host.alloc("c", 4 * n as u64);
        let block = self.launch.block_or([256, 1, 1]);
        let grid = self.launch.grid_or([self.n.div_ceil(block[0]), 1, 1]);
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(da),
                ArgValue::U64(db),
                ArgValue::U64(dc),
                ArgValue::U32(self.n),
            ],
        )?;
        let c: Vec<f32> = download(host, dc, n)?;
        let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        Ok(check::exact("c", &expected, &c))
    }
}
