//! `monte_carlo`: the CUDA SDK MonteCarlo sample's European call option
//! pricing (`kernels/blws/monte_carlo.ptx`, `MonteCarloOneBlockPerOption`;
//! BLWS Table 3 "Monte-Carlo"). A CTA of 256 threads (8 warps) prices the
//! options `blockIdx.x`, `blockIdx.x + ctas`, …: thread `t` turns the
//! samples `t`, `t + 256`, … of a shared table of `paths` standard-normal
//! samples into payoffs `max(S·exp(MuByT + VBySqrtT·r) − X, 0)` and sums
//! them and their squares; a shared-memory tree (8 `bar.sync`) reduces the
//! 256 partial sums and thread 0 writes the option's (sum, sum of squares).
//!
//! Input ([`input`]): `options` options as the sample draws them (S in
//! [5, 30], X in [1, 100], T in [0.25, 10], R = 0.06, V = 0.10) and the
//! sample table (Irwin–Hall approximate normals, bit-identical everywhere;
//! the sample uses cuRAND's host generator). Check: `d_CallValue` exactly
//! against [`reference`], which repeats the kernel's `f32` operations in
//! nvcc's order: `fma(VBySqrtT, r, MuByT)`, `× log2 e`, `ex2.approx` (as
//! gpusim computes it: `f32::exp2`, the interpreter's semantics for
//! `ex2.approx.f32`, not the hardware's 2-ulp approximation), `× S`, `− X`,
//! `max 0`, then `sum += v` and `sum2 = fma(v, v, sum2)` and the tree.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Threads per CTA (the sample's `THREAD_N`).
pub const THREAD_N: u32 = 256;
/// log2(e) as the kernel's `__expf` multiplies by it (`0f3FB8AA3B`).
const LOG2E: f32 = f32::from_bits(0x3FB8_AA3B);

/// One option as the kernel reads it (`OptionData`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptionData {
    /// Stock price.
    pub s: f32,
    /// Strike price.
    pub x: f32,
    /// `(R - V²/2)·T`.
    pub mu_by_t: f32,
    /// `V·sqrt(T)`.
    pub v_by_sqrt_t: f32,
}

/// The `monte_carlo` workload.
pub struct MonteCarlo {
    options: u32,
    paths: u32,
    ctas: u32,
    seed: u64,
}

impl MonteCarlo {
    /// Reads `options` (default 193), `paths` (32768; at most 2^31 - 1),
    /// `ctas` (default `options`: one option per CTA; fewer CTAs price
    /// several options each; at most 65535) and `seed` (1). The launch
    /// shape is the sample's: the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<MonteCarlo, WorkloadError> {
        let options = args.count("options", 193)?;
        let w = MonteCarlo {
            options,
            paths: args.count("paths", 32768)?,
            ctas: args.count("ctas", options.min(65535))?,
            seed: args.u64("seed", 1)?,
        };
        if w.paths > i32::MAX as u32 || w.options > i32::MAX as u32 {
            return Err(WorkloadError::Args(format!(
                "`paths` = {} and `options` = {} must be at most {} (the kernel's `int`s)",
                w.paths,
                w.options,
                i32::MAX
            )));
        }
        if w.ctas > 65535 {
            return Err(WorkloadError::Args(format!(
                "`ctas` = {} must be at most 65535",
                w.ctas
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "monte_carlo uses the sample's launch shape (`ctas` CTAs of 256 threads): remove `grid`/`block` (set `ctas`)".into(),
            ));
        }
        Ok(w)
    }
}

/// `options` options and `paths` samples (see the module comment).
pub fn input(options: usize, paths: usize, seed: u64) -> (Vec<OptionData>, Vec<f32>) {
    const R: f64 = 0.06;
    const V: f64 = 0.10;
    let mut rng = Rng::new(stream_seed(seed, 0));
    let opts = (0..options)
        .map(|_| {
            let s = rng.range_f32(5.0, 30.0);
            let x = rng.range_f32(1.0, 100.0);
            let t = f64::from(rng.range_f32(0.25, 10.0));
            OptionData {
                s,
                x,
                mu_by_t: ((R - 0.5 * V * V) * t) as f32,
                v_by_sqrt_t: (V * t.sqrt()) as f32,
            }
        })
        .collect();
    let mut rng = Rng::new(stream_seed(seed, 1));
    let samples = (0..paths).map(|_| rng.std_normal() as f32).collect();
    (opts, samples)
}

/// Each option's (sum of payoffs, sum of squared payoffs), interleaved
/// as the kernel writes `OptionValue`s.
pub fn reference(opts: &[OptionData], samples: &[f32]) -> Vec<f32> {
    let n = THREAD_N as usize;
    let mut out = Vec::with_capacity(2 * opts.len());
    for o in opts {
        let mut sum = vec![0.0f32; n];
        let mut sum2 = vec![0.0f32; n];
        for t in 0..n {
            let (mut a, mut b) = (0.0f32, 0.0f32);
            for &r in samples.iter().skip(t).step_by(n) {
                let e = (o.v_by_sqrt_t.mul_add(r, o.mu_by_t) * LOG2E).exp2();
                let v = (o.s * e - o.x).max(0.0);
                a += v;
                b = v.mul_add(v, b);
            }
            sum[t] = a;
            sum2[t] = b;
        }
        let mut stride = n / 2;
        while stride > 0 {
            for t in 0..stride {
                sum[t] += sum[t + stride];
                sum2[t] += sum2[t + stride];
            }
            stride /= 2;
        }
        out.push(sum[0]);
        out.push(sum2[0]);
    }
    out
}

impl Workload for MonteCarlo {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (opts, samples) = input(self.options as usize, self.paths as usize, self.seed);
        let flat: Vec<f32> = opts
            .iter()
            .flat_map(|o| [o.s, o.x, o.mu_by_t, o.v_by_sqrt_t])
            .collect();
        let dopts = upload(host, "d_OptionData", &flat)?;
        let dsamples = upload(host, "d_Samples", &samples)?;
        let n = 2 * self.options as usize;
        let dvalue = upload(host, "d_CallValue", &vec![f32::NAN; n])?;
        host.launch(
            None,
            [self.ctas, 1, 1],
            [THREAD_N, 1, 1],
            &[
                ArgValue::U64(dvalue),
                ArgValue::U64(dopts),
                ArgValue::U64(dsamples),
                ArgValue::S32(self.paths as i32),
                ArgValue::S32(self.options as i32),
            ],
        )?;
        let got: Vec<f32> = download(host, dvalue, n)?;
        Ok(check::exact(
            "d_CallValue",
            &reference(&opts, &samples),
            &got,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_in_the_money_payoffs_are_counted_out_of_the_money_ones_are_not() {
        // exp(0 + 0·r) = 1 exactly (ex2 of 0): payoff S - X for every path.
        let itm = OptionData {
            s: 10.0,
            x: 4.0,
            mu_by_t: 0.0,
            v_by_sqrt_t: 0.0,
        };
        let otm = OptionData { x: 12.0, ..itm };
        let samples = vec![0.5f32; 600];
        let r = reference(&[itm, otm], &samples);
        assert_eq!(r, [3600.0, 21600.0, 0.0, 0.0]);
    }
}
