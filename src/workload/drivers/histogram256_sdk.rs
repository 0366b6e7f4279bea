//! `histogram256_sdk`: the CUDA SDK histogram256 sample compiled by nvcc
//! (`kernels/sdk/histogram256.ptx`), with the sample's host code: one
//! `histogram256Kernel` launch (240 CTAs of 6 warps, per-warp shared
//! sub-histograms, shared atomics) writing 240 partial histograms, then one
//! `mergeHistogram256Kernel` launch (256 CTAs of 256 threads, one per bin).
//!
//! Input: [`generate::histogram256_input`] (uniform random bytes, read as
//! 32-bit words). Checks: every partial histogram exactly against
//! [`partial_histograms`] (CTA `b` counts the bytes of words `b * 192 + t +
//! k * 192 * 240`), and the merged histogram exactly against
//! [`reference::histogram256`].

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate, reference};

/// The sample's `PARTIAL_HISTOGRAM256_COUNT`.
const PARTIALS: u32 = 240;
/// `HISTOGRAM256_THREADBLOCK_SIZE`: 6 warps.
const BLOCK: u32 = 192;
/// `MERGE_THREADBLOCK_SIZE`.
const MERGE_BLOCK: u32 = 256;
/// Bins.
const BINS: usize = 256;

/// The `histogram256_sdk` workload.
pub struct Histogram256Sdk {
    bytes: u32,
    seed: u64,
}

impl Histogram256Sdk {
    /// Reads `bytes` (default 1 MiB, a multiple of 4 and below 2^31) and
    /// `seed` (1). The launch shapes are the sample's, compiled into the
    /// kernels; the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Histogram256Sdk, WorkloadError> {
        let w = Histogram256Sdk {
            bytes: args.count("bytes", 1 << 20)?,
            seed: args.u64("seed", 1)?,
        };
        if !w.bytes.is_multiple_of(4) || w.bytes > i32::MAX as u32 {
            return Err(WorkloadError::Args(format!(
                "`bytes` = {} must be a multiple of 4 (the kernel reads 32-bit words) below 2^31",
                w.bytes
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "histogram256_sdk uses the sample's launch shapes (240 x 192, then 256 x 256): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// The 240 partial histograms (row `b` = CTA `b`), as the grid-stride loop
/// distributes the words.
pub fn partial_histograms(data: &[u8]) -> Vec<u32> {
    let mut h = vec![0u32; PARTIALS as usize * BINS];
    let threads = (PARTIALS * BLOCK) as usize;
    for (w, word) in data.chunks_exact(4).enumerate() {
        let cta = (w % threads) / BLOCK as usize;
        for &b in word {
            h[cta * BINS + b as usize] += 1;
        }
    }
    h
}

impl Workload for Histogram256Sdk {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let data = generate::histogram256_input(self.bytes as usize, self.seed);
        let ddata = upload(host, "d_Data", &data)?;
        let n_partial = PARTIALS as usize * BINS;
        let dpartial = upload(host, "d_PartialHistograms", &vec![u32::MAX; n_partial])?;
        let dhist = upload(host, "d_Histogram", &vec![u32::MAX; BINS])?;
        host.launch(
            Some("histogram256Kernel"),
            [PARTIALS, 1, 1],
            [BLOCK, 1, 1],
            &[
                ArgValue::U64(dpartial),
                ArgValue::U64(ddata),
                ArgValue::U32(self.bytes / 4),
            ],
        )?;
        host.launch(
            Some("mergeHistogram256Kernel"),
            [BINS as u32, 1, 1],
            [MERGE_BLOCK, 1, 1],
            &[
                ArgValue::U64(dhist),
                ArgValue::U64(dpartial),
                ArgValue::U32(PARTIALS),
            ],
        )?;
        let got_partial: Vec<u32> = download(host, dpartial, n_partial)?;
        let got: Vec<u32> = download(host, dhist, BINS)?;
        Ok(Check::all([
            check::exact(
                "d_PartialHistograms",
                &partial_histograms(&data),
                &got_partial,
            ),
            check::exact("d_Histogram", &reference::histogram256(&data), &got),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partials_sum_to_the_histogram() {
        let data = generate::histogram256_input(4 * 50_000, 3);
        let p = partial_histograms(&data);
        let mut sum = vec![0u32; BINS];
        for row in p.chunks_exact(BINS) {
            for (s, v) in sum.iter_mut().zip(row) {
                *s += v;
            }
        }
        assert_eq!(sum, reference::histogram256(&data));
        // Word 192 * 240 wraps around to CTA 0 again.
        let mut d = vec![0u8; 4 * (192 * 240 + 1)];
        d[4 * 192 * 240] = 7;
        assert_eq!(partial_histograms(&d)[7], 1);
    }
}
