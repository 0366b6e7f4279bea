//! `gather`: pointer chasing (`gather.ptx`, `pointer_chase`): thread `i`
//! follows a random single-cycle permutation `steps` times from `i`, a chain
//! of dependent, uncoalesced global loads.
//!
//! Input: [`generate::gather_input`]; check: `out` exactly against
//! [`reference::gather`] (`out[i] = next^steps(i)`).

use super::{block_1d, int_arg, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate, reference};

const KERNEL: &str = "pointer_chase";

/// The `gather` workload.
pub struct Gather {
    n: u32,
    steps: u32,
    seed: u64,
    launch: Launch,
}

impl Gather {
    /// Reads `n` (default 16384: elements and threads), `steps` (8
    /// dependent loads per thread) and `seed` (1). Block: the manifest's
    /// (1-D) or 256; grid: the manifest's, which must cover `n` threads, or
    /// `ceil(n / block)`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Gather, WorkloadError> {
        let w = Gather {
            n: args.count("n", 16384)?,
            steps: args.u32("steps", 8)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("n", u64::from(w.n))?;
        int_arg("steps", u64::from(w.steps))?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 256)?;
        one_thread_per(KERNEL, &self.launch, block, "element", u64::from(self.n))
    }
}

impl Workload for Gather {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.n as usize;
        let next = generate::gather_input(n, self.seed);
        let dnext = upload(host, "next", &next)?;
        // Results are indices 0..n: i32::MIN shows an element never written.
        let dout = upload(host, "out", &vec![i32::MIN; n])?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dnext),
                ArgValue::U64(dout),
                ArgValue::S32(self.n as i32),
                ArgValue::S32(self.steps as i32),
            ],
        )?;
        let got: Vec<i32> = download(host, dout, n)?;
        Ok(check::exact(
            "out",
            &reference::gather(&next, self.steps as usize),
            &got,
        ))
    }
}
