//! `vector_add`: `c[i] = a[i] + b[i]` over `n` floats (`vector_add.ptx`).
//!
//! Inputs: [`generate::vector_add_input`]; check: `c` exactly against
//! [`reference::vector_add`] (one IEEE addition per element).

use super::{block_1d, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate, reference};

const KERNEL: &str = "vector_add";

/// The `vector_add` workload.
pub struct VectorAdd {
    n: u32,
    seed: u64,
    launch: Launch,
}

impl VectorAdd {
    /// Reads `n` (default 65536) and `seed` (default 1). Block: the
    /// manifest's (1-D) or 256 threads; grid: the manifest's, which must
    /// cover `n` threads, or `ceil(n / block)`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<VectorAdd, WorkloadError> {
        let w = VectorAdd {
            n: args.count("n", 65536)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 256)?;
        one_thread_per(KERNEL, &self.launch, block, "element", u64::from(self.n))
    }
}

impl Workload for VectorAdd {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.n as usize;
        let (grid, block) = self.shape()?;
        let (a, b) = generate::vector_add_input(n, self.seed);
        let da = upload(host, "a", &a)?;
        let db = upload(host, "b", &b)?;
        let dc = upload(host, "c", &vec![f32::NAN; n])?;
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
        Ok(check::exact("c", &reference::vector_add(&a, &b), &c))
    }
}
