//! `dp_axpby`: double-precision `y = a * x + b * y` followed by four
//! dependent fp64 FMAs per element (`kernels/holdout/dp_axpby.ptx`, a
//! held-out correlation kernel), one element per thread: two streaming
//! `f64` loads and one store around a chain of six fp64 operations (the
//! GTX480's DP path).
//!
//! The kernel computes `t = a * x + b * y`, then `t = t * c + x`,
//! `t = t * c + x / 2`, `t = t * c - x`, `t = t * c + 1 / 4`, and stores
//! `t` over `y`.
//!
//! Parameters (kernel order): `y, x, a, b, c, n`. Inputs (streams 0 and 1
//! of `seed`): every element of `x` and `y` is `k / 1024` with `k`
//! uniform in `-1024 ..= 1024`, and `a`, `b`, `c` are multiples of 1/8 in
//! `[-2, 2]`. Every intermediate `t` is then a multiple of 2^-25 of
//! magnitude below 2^7, exactly representable in `f64` (at most 32
//! significant bits): the result is exact whether an `fma.rn.f64` is fused
//! or rounds its product first, and [`reference()`] computes it in integers.
//! A pair `(x, y)` whose result would equal its `y` is redrawn (at most 16
//! times), so an element the kernel leaves unwritten is a mismatch. Check:
//! `y` exactly against [`reference()`].

use super::{block_1d, int_arg, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

const KERNEL: &str = "dp_axpby";

/// Denominator of the inputs `x` and `y` (`k / 1024`).
const INPUT_SCALE: i64 = 1024;
/// Denominator of the coefficients `a`, `b`, `c` (`k / 8`).
const COEF_SCALE: f64 = 8.0;
/// Largest coefficient magnitude for which the results stay exact.
const MAX_COEF: f64 = 2.0;
/// Redraws of a pair whose result equals its `y` before keeping it.
const REDRAWS: usize = 16;

/// The coefficients `a`, `b`, `c` as integers `k` (the value is `k / 8`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefs {
    /// `8 * a`.
    pub a: i64,
    /// `8 * b`.
    pub b: i64,
    /// `8 * c`.
    pub c: i64,
}

impl Coefs {
    fn value(k: i64) -> f64 {
        k as f64 / COEF_SCALE
    }
}

/// The `dp_axpby` workload.
pub struct DpAxpby {
    n: u32,
    coefs: Coefs,
    seed: u64,
    launch: Launch,
}

/// A coefficient argument: a multiple of 1/8 in `[-2, 2]`, as `8 * v`.
fn coef_arg(args: &mut Args, key: &str, default: f64) -> Result<i64, WorkloadError> {
    let v = args.f64(key, default)?;
    let k = v * COEF_SCALE;
    if v.abs() <= MAX_COEF && k.fract() == 0.0 {
        Ok(k as i64)
    } else {
        Err(WorkloadError::Args(format!(
            "`{key}` = {v} must be a multiple of 1/8 in [-{MAX_COEF}, {MAX_COEF}] (so every result is exact in f64)"
        )))
    }
}

impl DpAxpby {
    /// Reads `n` (default 786432), `a` (1.5), `b` (-0.75), `c` (0.875) —
    /// each a multiple of 1/8 in `[-2, 2]` — and `seed` (1). Block: the
    /// manifest's (1-D) or 256 threads; grid: the manifest's, which must
    /// cover `n` threads, or `ceil(n / block)`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<DpAxpby, WorkloadError> {
        let w = DpAxpby {
            n: args.count("n", 786_432)?,
            coefs: Coefs {
                a: coef_arg(args, "a", 1.5)?,
                b: coef_arg(args, "b", -0.75)?,
                c: coef_arg(args, "c", 0.875)?,
            },
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("n", u64::from(w.n))?;
        let (grid, block) = w.shape()?;
        // The kernel's global index `blockIdx.x * blockDim.x + threadIdx.x`.
        int_arg("grid * block", u64::from(grid[0]) * u64::from(block[0]))?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 256)?;
        one_thread_per(KERNEL, &self.launch, block, "element", u64::from(self.n))
    }
}

/// The kernel's result for `x = kx / 1024`, `y = ky / 1024`, computed
/// exactly in integers (every step is a multiple of a power of two):
/// `t0 = a x + b y` in units of 2^-13, then each `t * c + ...` adds three
/// bits.
pub fn reference_one(coefs: Coefs, kx: i64, ky: i64) -> f64 {
    let Coefs { a, b, c } = coefs;
    let t0 = a * kx + b * ky; // 2^-13 (1/8 * 1/1024)
    let t1 = t0 * c + kx * (1 << 6); // 2^-16: + x
    let t2 = t1 * c + kx * (1 << 8); // 2^-19: + x / 2
    let t3 = t2 * c - kx * (1 << 12); // 2^-22: - x
    let t4 = t3 * c + (1 << 23); // 2^-25: + 1/4
    t4 as f64 / (1u64 << 25) as f64
}

/// The inputs `x` and `y` as integers `k` (the value is `k / 1024`), `n`
/// pairs drawn from streams 0 and 1 of `seed`; a pair whose result equals
/// its `y` is redrawn (at most 16 times).
pub fn inputs(n: usize, coefs: Coefs, seed: u64) -> (Vec<i64>, Vec<i64>) {
    let mut rx = Rng::new(stream_seed(seed, 0));
    let mut ry = Rng::new(stream_seed(seed, 1));
    let draw = |r: &mut Rng| r.below(2 * INPUT_SCALE as u64 + 1) as i64 - INPUT_SCALE;
    let (mut xs, mut ys) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let (mut kx, mut ky) = (draw(&mut rx), draw(&mut ry));
        for _ in 0..REDRAWS {
            if reference_one(coefs, kx, ky) != ky as f64 / INPUT_SCALE as f64 {
                break;
            }
            (kx, ky) = (draw(&mut rx), draw(&mut ry));
        }
        xs.push(kx);
        ys.push(ky);
    }
    (xs, ys)
}

/// The kernel's `y` for inputs `kx`, `ky` (see [`reference_one`]).
pub fn reference(coefs: Coefs, kx: &[i64], ky: &[i64]) -> Vec<f64> {
    kx.iter()
        .zip(ky)
        .map(|(&x, &y)| reference_one(coefs, x, y))
        .collect()
}

fn values(k: &[i64]) -> Vec<f64> {
    k.iter().map(|&k| k as f64 / INPUT_SCALE as f64).collect()
}

impl Workload for DpAxpby {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.n as usize;
        let (kx, ky) = inputs(n, self.coefs, self.seed);
        let dy = upload(host, "y", &values(&ky))?;
        let dx = upload(host, "x", &values(&kx))?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dy),
                ArgValue::U64(dx),
                ArgValue::F64(Coefs::value(self.coefs.a)),
                ArgValue::F64(Coefs::value(self.coefs.b)),
                ArgValue::F64(Coefs::value(self.coefs.c)),
                ArgValue::S32(self.n as i32),
            ],
        )?;
        let y: Vec<f64> = download(host, dy, n)?;
        Ok(check::exact("y", &reference(self.coefs, &kx, &ky), &y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: Coefs = Coefs { a: 12, b: -6, c: 7 };

    /// The kernel's operations in `f64`, fused and unfused.
    fn float_chain(co: Coefs, x: f64, y: f64, fused: bool) -> f64 {
        let (a, b, c) = (Coefs::value(co.a), Coefs::value(co.b), Coefs::value(co.c));
        let fma = |p: f64, q: f64, r: f64| if fused { p.mul_add(q, r) } else { p * q + r };
        let t = fma(x, a, b * y);
        let t = fma(t, c, x);
        let t = fma(t, c, 0.5 * x);
        let t = fma(t, c, -x);
        fma(t, c, 0.25)
    }

    #[test]
    fn reference_equals_the_float_chain_fused_or_not_at_the_extremes() {
        for co in [
            DEFAULT,
            Coefs {
                a: 16,
                b: 16,
                c: 16,
            },
            Coefs {
                a: -16,
                b: 16,
                c: -16,
            },
            Coefs { a: 1, b: -1, c: 1 },
        ] {
            for (kx, ky) in [(1024, 1024), (-1024, 1024), (1, -1), (0, 0), (-1023, 517)] {
                let (x, y) = (kx as f64 / 1024.0, ky as f64 / 1024.0);
                let r = reference_one(co, kx, ky);
                assert_eq!(r, float_chain(co, x, y, true), "{co:?} {kx} {ky}");
                assert_eq!(r, float_chain(co, x, y, false), "{co:?} {kx} {ky}");
            }
        }
        // 1.5 * 1 - 0.75 * 1 = 0.75; * 0.875 + 1 = 1.65625; ...
        assert_eq!(
            reference_one(DEFAULT, 1024, 1024),
            ((((0.75 * 0.875 + 1.0) * 0.875 + 0.5) * 0.875 - 1.0) * 0.875 + 0.25)
        );
    }

    #[test]
    fn inputs_are_in_range_and_no_result_equals_its_y() {
        let (kx, ky) = inputs(20_000, DEFAULT, 3);
        assert!(kx.iter().chain(&ky).all(|k| (-1024..=1024).contains(k)));
        let r = reference(DEFAULT, &kx, &ky);
        assert!(r.iter().zip(values(&ky)).all(|(&r, y)| r != y));
    }
}
