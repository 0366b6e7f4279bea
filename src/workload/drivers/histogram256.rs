//! `histogram256`: 256-bin histogram of random bytes (`histogram256.ptx`),
//! read as 32-bit words; a per-CTA shared sub-histogram
//! (`atom.shared.add`) merged into the global one (`atom.global.add`).
//!
//! Input: [`generate::histogram256_input`]; check: `d_Histogram` (zeroed
//! before the launch) exactly against [`reference::histogram256`].

use super::{block_1d, grid_1d};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate, reference};

const KERNEL: &str = "histogram256";

/// The `histogram256` workload.
pub struct Histogram256 {
    bytes: u32,
    seed: u64,
    launch: Launch,
}

impl Histogram256 {
    /// Reads `bytes` (default 65536, a multiple of 4: the kernel reads
    /// words) and `seed` (1). Block: the manifest's (1-D) or 256; grid: the
    /// manifest's (any: a grid-stride loop) or one thread per word.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Histogram256, WorkloadError> {
        let w = Histogram256 {
            bytes: args.count("bytes", 65536)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        if !w.bytes.is_multiple_of(4) {
            return Err(WorkloadError::Args(format!(
                "`bytes` = {} must be a multiple of 4 (the kernel reads 32-bit words)",
                w.bytes
            )));
        }
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 256)?;
        let words = u64::from(self.bytes / 4);
        let grid = match self.launch.grid {
            Some(_) => grid_1d(KERNEL, &self.launch, block[0], None)?,
            None => grid_1d(
                KERNEL,
                &self.launch,
                block[0],
                Some(("one per word", words)),
            )?,
        };
        Ok((grid, block))
    }
}

impl Workload for Histogram256 {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let data = generate::histogram256_input(self.bytes as usize, self.seed);
        let ddata = upload(host, "d_Data", &data)?;
        // The kernel accumulates into the histogram: it must start at zero.
        let dhist = upload(host, "d_Histogram", &[0u32; 256])?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(ddata),
                ArgValue::U32(self.bytes / 4),
                ArgValue::U64(dhist),
            ],
        )?;
        let hist: Vec<u32> = download(host, dhist, 256)?;
        Ok(check::exact(
            "d_Histogram",
            &reference::histogram256(&data),
            &hist,
        ))
    }
}
