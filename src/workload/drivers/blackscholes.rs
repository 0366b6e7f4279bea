//! `blackscholes`: the CUDA SDK's Black-Scholes pricing of European call
//! and put options (`kernels/holdout/blackscholes.ptx`, a held-out
//! correlation kernel), with the full-precision `expf`, `logf`, `sqrtf`
//! and true divisions (long ALU sequences around `ex2.approx`,
//! `div.rn`/`rcp.rn` and `sqrt.rn`) instead of the SDK's intrinsics; a
//! grid-stride loop over `n` options, three streaming loads and two
//! stores each.
//!
//! For option `i` with price `S`, strike `X` and years `T`, riskless rate
//! `r` and volatility `v`: `d1 = (ln(S / X) + (r + v² / 2) T) / (v √T)`,
//! `d2 = d1 - v √T`, `call = S N(d1) - X e^(-r T) N(d2)`, `put = X
//! e^(-r T) (1 - N(d2)) - S (1 - N(d1))`, where `N` is the kernel's
//! [`cnd`]: the SDK's polynomial approximation of the normal distribution
//! function (Abramowitz & Stegun 26.2.17) with its five coefficients
//! applied in reverse order (`K (A5 + K (A4 + ...))` where the SDK has `K
//! (A1 + K (A2 + ...))`), a slip made when the kernel was written as a
//! probe and kept so that it stays the kernel GPGPU-Sim measured. It
//! changes no instruction, only the values: `N` is still smooth and
//! increasing from 0 to 1 (`N(0) = 0.5`, `N(-d) = 1 - N(d)`), but up to
//! 0.033 away from the normal distribution function.
//!
//! Parameters (kernel order): `call, put, price, strike, years, r, v, n`.
//! Inputs (streams 0, 1, 2 of `seed`; the SDK's ranges): `price` uniform
//! in `[5, 30]`, `strike` in `[1, 100]`, `years` in `[0.25, 10]`; `r` and
//! `v` are arguments (0.02 and 0.30). Check: `call` and `put` (pre-filled
//! with NaN) against [`reference()`], the same formulas (with the same
//! polynomial `N`) in `f64`, within `2^-18 * (S + X)` per option: a bound
//! on the scale of the option rather than relative to its price, because
//! an out-of-the-money price is a small difference of terms up to `S` and
//! `X`. The kernel's `logf` and `expf` are within 2 ulps and its `sqrtf`
//! and divisions correctly rounded, so `d1` and `d2` are within about
//! `(1 + |ln(S / X)| + 2 (r + v² / 2) T) / (v √T)` units of 2^-24 plus 3 ulps
//! of their exact values; `N` moves by at most its derivative (at most
//! 0.33) times that, and the derivative times `|d|` stays below 0.27 (a
//! large `|ln(S / X)|` means a large `|d|`), so each `N` is within about
//! 10 units of 2^-24 (20 at `v = 0.15`), and each of the two
//! terms adds a few roundings of its size, at most `S` or `X`: about 15
//! (25) units of 2^-24 of `S + X` in all, a quarter or less of the bound's
//! 64. The largest error on the default inputs is 2.9 units.

use super::{block_1d, grid_stride, int_arg};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{stream_seed, uniform_f32};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "blackscholes";

/// The bound of the comparison with [`reference()`], relative to `S + X`
/// (2^-18).
pub const REL_BOUND: f64 = 1.0 / 262_144.0;

/// The `blackscholes` workload.
pub struct Blackscholes {
    n: u32,
    r: f32,
    v: f32,
    seed: u64,
    launch: Launch,
}

/// An `f32` argument in `lo ..= hi`.
fn f32_in(
    args: &mut Args,
    key: &str,
    default: f64,
    lo: f64,
    hi: f64,
) -> Result<f32, WorkloadError> {
    let v = args.f64(key, default)?;
    if (lo..=hi).contains(&v) {
        Ok(v as f32)
    } else {
        Err(WorkloadError::Args(format!(
            "`{key}` = {v} must be in [{lo}, {hi}] (the range the check's error bound covers)"
        )))
    }
}

impl Blackscholes {
    /// Reads `n` (options, default 307200), `r` (0.02, in `[0, 0.1]`),
    /// `v` (0.30, in `[0.15, 1]`; with `T >= 0.25`, `v √T >= 0.075`) and
    /// `seed` (1). Block: the manifest's (1-D) or 128 threads; grid: the
    /// manifest's (any: a grid-stride loop) or one thread per option.
    /// `n + grid * block` must fit an `int` (the loop's index).
    pub fn new(args: &mut Args, launch: Launch) -> Result<Blackscholes, WorkloadError> {
        let w = Blackscholes {
            n: args.count("n", 307_200)?,
            r: f32_in(args, "r", 0.02, 0.0, 0.1)?,
            v: f32_in(args, "v", 0.30, 0.15, 1.0)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        let (grid, block) = w.shape()?;
        int_arg(
            "n + grid * block",
            u64::from(w.n) + u64::from(grid[0]) * u64::from(block[0]),
        )?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 128)?;
        grid_stride(KERNEL, &self.launch, block, "option", u64::from(self.n))
    }
}

/// The kernel's `cnd` in `f64`: the SDK's cumulative normal distribution
/// function (the polynomial of Abramowitz & Stegun 26.2.17) with the
/// polynomial's coefficients in reverse order, as the kernel has them
/// (see the module documentation).
pub fn cnd(d: f64) -> f64 {
    const A1: f64 = 0.31938153;
    const A2: f64 = -0.356563782;
    const A3: f64 = 1.781477937;
    const A4: f64 = -1.821255978;
    const A5: f64 = 1.330274429;
    const RSQRT2PI: f64 = 0.398_942_280_401_432_7;
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    // The kernel's order (the SDK's is A1 + k * (A2 + ... + k * A5)).
    let c = RSQRT2PI * (-0.5 * d * d).exp() * (k * (A5 + k * (A4 + k * (A3 + k * (A2 + k * A1)))));
    if d > 0.0 { 1.0 - c } else { c }
}

/// `(call, put)` of every option (`price`, `strike`, `years`) at rate `r`
/// and volatility `v`, in `f64` (the constants as the kernel's `f32`
/// values).
pub fn reference(
    price: &[f32],
    strike: &[f32],
    years: &[f32],
    r: f32,
    v: f32,
) -> (Vec<f64>, Vec<f64>) {
    let (r, v) = (f64::from(r), f64::from(v));
    price
        .iter()
        .zip(strike)
        .zip(years)
        .map(|((&s, &x), &t)| {
            let (s, x, t) = (f64::from(s), f64::from(x), f64::from(t));
            let vsqrt_t = v * t.sqrt();
            let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / vsqrt_t;
            let d2 = d1 - vsqrt_t;
            let (c1, c2) = (cnd(d1), cnd(d2));
            let exp_rt = (-r * t).exp();
            (
                s * c1 - x * exp_rt * c2,
                x * exp_rt * (1.0 - c2) - s * (1.0 - c1),
            )
        })
        .unzip()
}

impl Workload for Blackscholes {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.n as usize;
        let price = uniform_f32(n, 5.0, 30.0, stream_seed(self.seed, 0));
        let strike = uniform_f32(n, 1.0, 100.0, stream_seed(self.seed, 1));
        let years = uniform_f32(n, 0.25, 10.0, stream_seed(self.seed, 2));
        let dcall = upload(host, "call", &vec![f32::NAN; n])?;
        let dput = upload(host, "put", &vec![f32::NAN; n])?;
        let dprice = upload(host, "price", &price)?;
        let dstrike = upload(host, "strike", &strike)?;
        let dyears = upload(host, "years", &years)?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dcall),
                ArgValue::U64(dput),
                ArgValue::U64(dprice),
                ArgValue::U64(dstrike),
                ArgValue::U64(dyears),
                ArgValue::F32(self.r),
                ArgValue::F32(self.v),
                ArgValue::S32(self.n as i32),
            ],
        )?;
        let call: Vec<f32> = download(host, dcall, n)?;
        let put: Vec<f32> = download(host, dput, n)?;
        let (ecall, eput) = reference(&price, &strike, &years, self.r, self.v);
        let bound: Vec<f64> = price
            .iter()
            .zip(&strike)
            .map(|(&s, &x)| REL_BOUND * (f64::from(s) + f64::from(x)))
            .collect();
        Ok(Check::all([
            check::within_bounds("call", &ecall, &bound, &call),
            check::within_bounds("put", &eput, &bound, &put),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cnd_is_the_kernels_reversed_polynomial() {
        // The coefficients sum to the same at k = 1 (d = 0).
        assert!((cnd(0.0) - 0.5).abs() < 1e-8);
        // Not the normal distribution's 0.841345 (nor the SDK's).
        assert!((cnd(1.0) - 0.808_668_040_285).abs() < 1e-11);
        assert!((cnd(2.5) + cnd(-2.5) - 1.0).abs() < 1e-12);
        // Increasing from 0 to 1.
        let v: Vec<f64> = (-400..=400).map(|i| cnd(f64::from(i) / 50.0)).collect();
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
        assert!(v[0] < 1e-7 && v[800] > 1.0 - 1e-7);
    }

    #[test]
    fn reference_satisfies_put_call_parity() {
        // call - put = S - X e^(-rT) whatever N is (N(d) + (1 - N(d)) = 1).
        let (s, x, t) = (
            [20.0f32, 5.0, 29.5],
            [30.0f32, 90.0, 1.5],
            [1.0f32, 9.5, 0.25],
        );
        let (c, p) = reference(&s, &x, &t, 0.02, 0.3);
        for i in 0..3 {
            let (s, x, t) = (f64::from(s[i]), f64::from(x[i]), f64::from(t[i]));
            let parity = s - x * (-f64::from(0.02f32) * t).exp();
            assert!((c[i] - p[i] - parity).abs() < 1e-12, "{i}");
            assert!(c[i] >= -1e-6 && p[i] >= -1e-6, "{i}");
        }
        // Deep in the money: the call is about S - X e^(-rT).
        assert!((c[2] - (29.5 - 1.5 * (-0.02f64 * 0.25).exp())).abs() < 1e-3);
    }
}
