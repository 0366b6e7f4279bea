//! `asian_option`: Monte Carlo pricing of an arithmetic-average Asian call
//! after the CUDA SDK's MC_SingleAsianOptionP
//! (`kernels/lfws/asian_option.ptx`; LFWS Table 2 "SAOP"). Three launches
//! on `blocks` CTAs of 128 threads: `initRNG` (per-thread subsequences of
//! the xorshift128 generator by skip-ahead, [`super::xorshift_jump`]);
//! `generatePaths`, where each thread walks its simulations over a
//! grid-stride loop, steps the normalised price `s *= exp(drift +
//! diffusion * z)` for `steps` steps with Box–Muller normals `z` and
//! stores every step to `d_paths` (step-major); and `computeValue`, which
//! reads each path back, averages it, takes the payoff `max(avg * spot /
//! steps - strike, 0)` and sums each CTA's payoffs in shared memory. The
//! host prices the option from the partials (discounted mean).
//!
//! The option is the sample's: spot 40, strike 35, r 0.03, sigma 0.2,
//! dt 1/261 (a day; 87 steps are the sample's third of a year).
//! The kernels use `__logf`, `__sinf`, `__cosf`, `__expf` (`lg2.approx`,
//! `sin.approx`, `cos.approx`, `ex2.approx`, no `.ftz`); gpusim evaluates
//! these as Rust's f32 `log2`, `sin`, `cos`, `exp2`, and [`reference`]
//! calls the same functions on the same operands in the PTX's order, so
//! the check is exact: the thread states (`d_states`), every path value
//! (`d_paths`) and the per-CTA payoff sums (`d_values`).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::drivers::block_fixed;
use crate::workload::drivers::estimate_pi::default_blocks;
use crate::workload::drivers::xorshift_jump::{self, State};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Threads per CTA (the sample's block size; the kernel's shared array).
pub const BLOCK: u32 = 128;
/// Most CTAs (2^21 threads: 32 MB of generator states).
const MAX_BLOCKS: u32 = 1 << 14;
/// Most path values (`sims * steps`: 64 MB).
const MAX_PATH_VALUES: u64 = 1 << 24;

/// The option: `spot`, `strike`, `r`, `sigma`, `dt`, in the kernel's
/// `AsianOption` layout.
pub const OPTION: [f32; 5] = [40.0, 35.0, 0.03, 0.2, 1.0 / 261.0];

/// The `asian_option` workload.
pub struct AsianOption {
    sims: u32,
    steps: u32,
    blocks: u32,
    seed: u64,
}

impl AsianOption {
    /// Reads `sims` (default 100000, the paper's input), `steps` (87,
    /// the sample's), `blocks` (default: the sample's rule,
    /// [`default_blocks`]; at most 2^14) and `seed` (1); `sims * steps` is
    /// at most 2^24. The block is [128, 1, 1] and the grid `[blocks, 1,
    /// 1]`: the manifest gives no grid.
    pub fn new(args: &mut Args, launch: Launch) -> Result<AsianOption, WorkloadError> {
        let sims = args.count("sims", 100_000)?;
        let steps = args.count("steps", 87)?;
        let blocks = args.count("blocks", default_blocks(sims))?;
        let seed = args.u64("seed", 1)?;
        if blocks > MAX_BLOCKS {
            return Err(WorkloadError::Args(format!(
                "`blocks` = {blocks} must be at most {MAX_BLOCKS}"
            )));
        }
        if u64::from(sims) * u64::from(steps) > MAX_PATH_VALUES {
            return Err(WorkloadError::Args(format!(
                "`sims` x `steps` = {} path values: at most 2^24",
                u64::from(sims) * u64::from(steps)
            )));
        }
        if launch.grid.is_some() {
            return Err(WorkloadError::Args(
                "asian_option takes its grid from `blocks`: remove `grid`".into(),
            ));
        }
        block_fixed("generatePaths", &launch, [BLOCK, 1, 1])?;
        Ok(AsianOption {
            sims,
            steps,
            blocks,
            seed,
        })
    }
}

/// The Box–Muller normals of one thread, a pair at a time, the second
/// kept for the next call (the kernel's `next_normal`).
struct Normal {
    s: State,
    cached: Option<f32>,
}

impl Normal {
    fn next(&mut self) -> f32 {
        if let Some(z) = self.cached.take() {
            return z;
        }
        let u1 = xorshift_jump::uniform(&mut self.s);
        let u2 = xorshift_jump::uniform(&mut self.s);
        // __logf: lg2.approx, times ln 2 as f32; then * -2, sqrt.rn.
        let rad = (u1.log2() * f32::from_bits(0x3F31_7218) * -2.0).sqrt();
        let theta = u2 * f32::from_bits(0x40C9_0FDB); // 2 pi as f32
        self.cached = Some(rad * theta.sin());
        rad * theta.cos()
    }
}

/// The paths `generatePaths` writes (`steps` rows of `sims` values).
pub fn paths(states: &[State], sims: u32, steps: u32) -> Vec<f32> {
    let [_, _, r, sigma, dt] = OPTION;
    // mul sigma * -0.5; fma(sigma, that, r); dt * that.
    let drift = dt * sigma.mul_add(sigma * -0.5, r);
    let diffusion = sigma * dt.sqrt();
    let (sims, steps) = (sims as usize, steps as usize);
    let mut out = vec![0.0f32; sims * steps];
    for (tid, s) in states.iter().enumerate() {
        let mut n = Normal {
            s: *s,
            cached: None,
        };
        for i in (tid..sims).step_by(states.len()) {
            let mut price = 1.0f32;
            for t in 0..steps {
                let x = diffusion.mul_add(n.next(), drift);
                // __expf: ex2.approx of x * log2(e) as f32.
                price *= (x * f32::from_bits(0x3FB8_AA3B)).exp2();
                out[i + t * sims] = price;
            }
        }
    }
    out
}

/// Each CTA's sum of payoffs for the paths `paths` of `sims` simulations
/// computed by `threads` threads (`computeValue`: per thread, the
/// grid-stride sum of `max(spot * avg / steps - strike, 0)`, then the
/// CTA's shared-memory tree).
pub fn reference(paths: &[f32], sims: u32, steps: u32, threads: u32) -> Vec<f32> {
    let [spot, strike, ..] = OPTION;
    let (sims_n, steps_n) = (sims as usize, steps as usize);
    let per_thread: Vec<f32> = (0..threads as usize)
        .map(|tid| {
            let mut sum = 0.0f32;
            for i in (tid..sims_n).step_by(threads as usize) {
                let mut avg = 0.0f32;
                for t in 0..steps_n {
                    avg += paths[i + t * sims_n];
                }
                let payoff = spot * avg / steps as f32 - strike;
                sum += payoff.max(0.0);
            }
            sum
        })
        .collect();
    per_thread
        .chunks(BLOCK as usize)
        .map(|c| {
            let mut p = c.to_vec();
            let mut half = BLOCK as usize / 2;
            while half > 0 {
                for t in 0..half {
                    p[t] += p[t + half];
                }
                half /= 2;
            }
            p[0]
        })
        .collect()
}

impl Workload for AsianOption {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (dstates, states) = xorshift_jump::init_rng(host, self.blocks, BLOCK, self.seed)?;
        let values = self.sims as usize * self.steps as usize;
        let doption = upload(host, "d_option", &OPTION)?;
        let dpaths = upload(host, "d_paths", &vec![f32::NAN; values])?;
        let dvalues = upload(host, "d_values", &vec![f32::NAN; self.blocks as usize])?;
        let common = [
            ArgValue::U64(doption),
            ArgValue::U32(self.sims),
            ArgValue::U32(self.steps),
        ];
        let grid = [self.blocks, 1, 1];
        let args = [
            &[ArgValue::U64(dpaths), ArgValue::U64(dstates)],
            &common[..],
        ]
        .concat();
        host.launch(Some("generatePaths"), grid, [BLOCK, 1, 1], &args)?;
        let args = [
            &[ArgValue::U64(dvalues), ArgValue::U64(dpaths)],
            &common[..],
        ]
        .concat();
        host.launch(Some("computeValue"), grid, [BLOCK, 1, 1], &args)?;
        let want_paths = paths(&states, self.sims, self.steps);
        let want = reference(&want_paths, self.sims, self.steps, self.blocks * BLOCK);
        let want_states: Vec<u32> = states.iter().flatten().copied().collect();
        let got_states: Vec<u32> = download(host, dstates, want_states.len())?;
        let got_paths: Vec<f32> = download(host, dpaths, values)?;
        let got: Vec<f32> = download(host, dvalues, self.blocks as usize)?;
        Ok(Check::all([
            check::exact("d_states", &want_states, &got_states),
            check::exact("d_paths", &want_paths, &got_paths),
            check::exact("d_values", &want, &got),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_near_the_analytic_range() {
        // 20000 simulations of 87 steps from 128 threads. The discounted
        // mean payoff of this deep in-the-money Asian call lies between
        // the intrinsic value of the expected average, about
        // 40 * (1 + 0.03 * 87/261 / 2) - 35 = 5.2, discounted, and that
        // plus a volatility premium well under 1.
        let (sims, steps, threads) = (20_000u32, 87u32, 128u32);
        let states = xorshift_jump::thread_states(
            xorshift_jump::seed_state(5),
            &xorshift_jump::jump_matrices(7),
            threads,
        );
        let p = paths(&states, sims, steps);
        assert!(p.iter().all(|v| v.is_finite() && *v > 0.0));
        let sums = reference(&p, sims, steps, threads);
        let tenor = OPTION[4] * steps as f32;
        let price = (-OPTION[2] * tenor).exp() * sums.iter().sum::<f32>() / sims as f32;
        assert!((5.0..6.2).contains(&price), "{price}");
    }
}
