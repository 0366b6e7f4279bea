//! `estimate_pi`: Monte Carlo estimation of pi after the CUDA SDK's
//! MC_EstimatePiInlineP (`kernels/lfws/estimate_pi.ptx`; LFWS Table 2
//! "EPP"). Two launches on `blocks` CTAs of 128 threads: `initRNG` gives
//! every thread its subsequence of the xorshift128 generator by
//! skip-ahead ([`super::xorshift_jump`]: jump matrices read from global
//! memory, the bulk of the long operations, as `curand_init`'s are), then
//! `computeValue` draws `sims` points (x, y) uniform in (0, 1]² over a
//! grid-stride loop, counts those with `x*x + y*y < 1` (`fma(x, x, y*y)`
//! in f32) and sums each CTA's counts in shared memory.
//!
//! Check, exactly: the thread states (`d_states`) and the per-CTA counts
//! (`d_results`) against the same generator and arithmetic on the CPU
//! ([`reference`]).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::drivers::block_fixed;
use crate::workload::drivers::xorshift_jump::{self, State};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Threads per CTA (the sample's block size; the kernel's shared array).
pub const BLOCK: u32 = 128;
/// Most CTAs (2^21 threads: 32 MB of generator states).
const MAX_BLOCKS: u32 = 1 << 14;

/// The sample's grid: `sims / 128` CTAs, halved while more than twice the
/// block size, at least one.
pub fn default_blocks(sims: u32) -> u32 {
    let mut g = (sims / BLOCK).max(1);
    while g > 2 * BLOCK {
        g >>= 1;
    }
    g
}

/// The `estimate_pi` workload.
pub struct EstimatePi {
    sims: u32,
    blocks: u32,
    seed: u64,
}

impl EstimatePi {
    /// Reads `sims` (default 100000, the paper's input), `blocks`
    /// (default: the sample's rule, [`default_blocks`]; at most 2^14) and
    /// `seed` (1). The block is [128, 1, 1] and the grid `[blocks, 1, 1]`:
    /// the manifest gives no grid.
    pub fn new(args: &mut Args, launch: Launch) -> Result<EstimatePi, WorkloadError> {
        let sims = args.count("sims", 100_000)?;
        let blocks = args.count("blocks", default_blocks(sims))?;
        let seed = args.u64("seed", 1)?;
        if blocks > MAX_BLOCKS {
            return Err(WorkloadError::Args(format!(
                "`blocks` = {blocks} must be at most {MAX_BLOCKS}"
            )));
        }
        if launch.grid.is_some() {
            return Err(WorkloadError::Args(
                "estimate_pi takes its grid from `blocks`: remove `grid`".into(),
            ));
        }
        block_fixed("computeValue", &launch, [BLOCK, 1, 1])?;
        Ok(EstimatePi { sims, blocks, seed })
    }
}

/// Each CTA's count of points inside the unit circle, for the thread
/// states `states` (`blocks * 128` of them) and `sims` points.
pub fn reference(states: &[State], sims: u32) -> Vec<u32> {
    let step = states.len();
    let inside: Vec<u32> = states
        .iter()
        .enumerate()
        .map(|(tid, s)| {
            let mut s = *s;
            let mut n = 0;
            for _ in (tid..sims as usize).step_by(step) {
                let x = xorshift_jump::uniform(&mut s);
                let y = xorshift_jump::uniform(&mut s);
                if x.mul_add(x, y * y) < 1.0 {
                    n += 1;
                }
            }
            n
        })
        .collect();
    inside
        .chunks(BLOCK as usize)
        .map(|c| c.iter().sum())
        .collect()
}

impl Workload for EstimatePi {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (dstates, states) = xorshift_jump::init_rng(host, self.blocks, BLOCK, self.seed)?;
        let dresults = upload(host, "d_results", &vec![u32::MAX; self.blocks as usize])?;
        host.launch(
            Some("computeValue"),
            [self.blocks, 1, 1],
            [BLOCK, 1, 1],
            &[
                ArgValue::U64(dresults),
                ArgValue::U64(dstates),
                ArgValue::U32(self.sims),
            ],
        )?;
        let want = reference(&states, self.sims);
        let got_states: Vec<u32> = download(host, dstates, 4 * states.len())?;
        let got: Vec<u32> = download(host, dresults, self.blocks as usize)?;
        let want_states: Vec<u32> = states.iter().flatten().copied().collect();
        Ok(Check::all([
            check::exact("d_states", &want_states, &got_states),
            check::exact("d_results", &want, &got),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_samples_grid_and_a_plausible_pi() {
        assert_eq!(default_blocks(100_000), 195);
        assert_eq!(default_blocks(100), 1);
        assert_eq!(default_blocks(256 * 128), 256);
        // 2^16 points from 256 threads: pi within 0.05.
        let states = xorshift_jump::thread_states(
            xorshift_jump::seed_state(3),
            &xorshift_jump::jump_matrices(8),
            256,
        );
        let counts = reference(&states, 1 << 16);
        let pi = 4.0 * f64::from(counts.iter().sum::<u32>()) / f64::from(1u32 << 16);
        assert!((pi - std::f64::consts::PI).abs() < 0.05, "{pi}");
    }
}
