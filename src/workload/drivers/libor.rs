//! `libor`: LIBOR market model Monte Carlo (`kernels/ispass/libor.ptx`,
//! `pathcalcPortfolio` then `pathcalcPortfolioGreeks`; ISPASS-2009 "LIB",
//! LFWS Table 2 "LIB", after Mike Giles' swaption portfolio). Each thread
//! simulates paths (grid-stride) of `steps + 40` forward rates (at most
//! [`N`]) over `steps` time steps (at most [`NMAT`]) in per-thread local
//! arrays and prices [`NOPT`] swaptions; the second kernel also keeps the
//! whole path (`L2`, up to 3280 floats of local memory per thread) for a
//! reverse sweep giving the sensitivity dv/dL[N-1].
//!
//! Input ([`normals`]): `paths` x `steps` increments, approximately
//! standard normal (seeded), `d_z[n * paths + path]`; the model's constants
//! are the original's ([`Model::original`]: delta 0.25, lambda 0.2,
//! initial rates 0.05, maturities 4..40, swap rates 4.5..5.5 %), written to
//! the module's `__constant__` variables; `steps` (Nmat, default the
//! original's 40) shortens the simulated time, the path keeping
//! `steps + 40` rates so the swaptions are the original's. Check: `d_v` (first kernel),
//! `d_vGreeks` and `d_Lb` (second) against [`reference`], which repeats the
//! kernels' f32 operations with nvcc's contractions into `fma` and the
//! fast intrinsics as the simulator executes them (`__fdividef` =
//! `div.approx`: `a * (1 / b)`; `__expf` = `ex2.approx` of `x * log2 e`),
//! within a relative error of [`REL_TOL`] (absolute [`ABS_TOL`]): the
//! compiler's choice of which products to fuse is not pinned down
//! everywhere (measured: about one value in ten differs, by 1-2 ulp).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, overwrite, upload};
use crate::workload::{Launch, Workload};

/// Most forward rates per path (the kernel's `NN`; the original's N).
pub const N: usize = 80;
/// Most time steps (the kernel's `NMAT`; the original's Nmat).
pub const NMAT: usize = 40;
/// Rates after the last step: the swaptions' horizon (`N - Nmat`, 40 in
/// the original; the largest maturity).
pub const HORIZON: usize = N - NMAT;
/// Swaptions in the portfolio.
pub const NOPT: usize = 15;
/// Relative tolerance of the check.
pub const REL_TOL: f32 = 1e-5;
/// Absolute tolerance of the check (for sensitivities near 0).
pub const ABS_TOL: f32 = 1e-6;

/// The model's constants (the kernel's `__constant__` variables).
#[derive(Clone, Debug)]
pub struct Model {
    /// Time step.
    pub delta: f32,
    /// Volatilities by distance from the step.
    pub lambda: [f32; N],
    /// Time steps simulated (`Nmat`, at most [`NMAT`]); the path has
    /// `steps + HORIZON` rates (`N`).
    pub steps: usize,
    /// Swaption maturities (1-based step after `NMAT`).
    pub maturities: [i32; NOPT],
    /// Swap rates.
    pub swaprates: [f32; NOPT],
    /// Initial forward rate of every maturity.
    pub l0: f32,
}

impl Model {
    /// The original benchmark's constants, simulating `steps` time steps
    /// (the original: 40).
    pub fn original(steps: usize) -> Model {
        Model {
            delta: 0.25,
            lambda: [0.2; N],
            steps,
            maturities: [4, 4, 4, 8, 8, 8, 20, 20, 20, 28, 28, 28, 40, 40, 40],
            swaprates: [
                0.045, 0.05, 0.055, 0.045, 0.05, 0.055, 0.045, 0.05, 0.055, 0.045, 0.05, 0.055,
                0.045, 0.05, 0.055,
            ],
            l0: 0.05,
        }
    }
}

/// The `libor` workload.
pub struct Libor {
    paths: u32,
    steps: u32,
    seed: u64,
    grid: [u32; 3],
    block: [u32; 3],
}

impl Libor {
    /// Reads `paths` (default 4096, the paper's input; at most 2^24),
    /// `steps` (40, the original's Nmat; 1..=40: the path has `steps + 40`
    /// rates, the swaptions' horizon staying the original's 40) and `seed`
    /// (1). The manifest's grid and block (1-D; default 64 CTAs of
    /// 64 threads, the original's) may run fewer threads than paths: the
    /// kernels loop over paths with the grid's stride.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Libor, WorkloadError> {
        let paths = args.count("paths", 4096)?;
        let steps = args.count("steps", NMAT as u32)?;
        if steps as usize > NMAT {
            return Err(WorkloadError::Args(format!(
                "`steps` = {steps} must be at most {NMAT} (the kernel's arrays hold {N} rates)"
            )));
        }
        let seed = args.u64("seed", 1)?;
        if paths > 1 << 24 {
            return Err(WorkloadError::Args(format!(
                "`paths` = {paths} must be at most 2^24"
            )));
        }
        let block = super::block_1d("libor", &launch, 64)?;
        let grid = launch.grid_or([64, 1, 1]);
        if grid[1] != 1 || grid[2] != 1 || grid[0] == 0 {
            return Err(WorkloadError::Args(format!(
                "libor needs a 1-D grid [x, 1, 1] with x >= 1, got {}",
                super::shape(grid)
            )));
        }
        super::int_arg(
            "grid x block threads",
            u64::from(grid[0]) * u64::from(block[0]),
        )?;
        Ok(Libor {
            paths,
            steps,
            seed,
            grid,
            block,
        })
    }
}

/// `paths` x `steps` increments, step-major (`z[n * paths + path]`).
pub fn normals(paths: usize, steps: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(stream_seed(seed, 0));
    (0..paths * steps)
        .map(|_| rng.std_normal() as f32)
        .collect()
}

/// `__fdividef` as the simulator runs `div.approx.f32`.
fn fdiv(a: f32, b: f32) -> f32 {
    a * (1.0 / b)
}

/// `__expf`: `ex2.approx.f32` of `x * log2 e`.
fn expf(x: f32) -> f32 {
    (x * f32::from_bits(0x3FB8_AA3B)).exp2()
}

/// One step-major path's increments.
fn path_z(z: &[f32], steps: usize, paths: usize, path: usize) -> Vec<f32> {
    (0..steps).map(|n| z[n * paths + path]).collect()
}

/// The kernels' `path_calc` (with `keep`: `path_calc_b1`, storing every
/// step's rates, `n_rates` per step).
fn path_calc(m: &Model, l: &mut [f32], z: &[f32], mut keep: Option<&mut Vec<f32>>) {
    let nr = l.len();
    if let Some(l2) = keep.as_deref_mut() {
        l2[..nr].copy_from_slice(l);
    }
    let sq = m.delta.sqrt();
    for n in 0..m.steps {
        let sqez = sq * z[n];
        let mut v = 0.0f32;
        for i in n + 1..nr {
            let lam = m.lambda[i - n - 1];
            let con1 = m.delta * lam;
            v += fdiv(con1 * l[i], m.delta.mul_add(l[i], 1.0));
            let vrat = expf(con1.mul_add(v, lam * (sqez - con1 * 0.5)));
            l[i] *= vrat;
            if let Some(l2) = keep.as_deref_mut() {
                l2[i + (n + 1) * nr] = l[i];
            }
        }
    }
}

/// The kernels' `portfolio`: the discounted payoff.
fn portfolio(m: &Model, l: &[f32]) -> f32 {
    let (mut bb, mut ss) = ([0.0f32; HORIZON], [0.0f32; HORIZON]);
    let (mut b, mut s) = (1.0f32, 0.0f32);
    for n in m.steps..l.len() {
        b /= m.delta.mul_add(l[n], 1.0);
        s = m.delta.mul_add(b, s);
        bb[n - m.steps] = b;
        ss[n - m.steps] = s;
    }
    let mut v = 0.0f32;
    for i in 0..NOPT {
        let k = (m.maturities[i] - 1) as usize;
        let swapval = m.swaprates[i].mul_add(ss[k], bb[k]) - 1.0;
        if swapval < 0.0 {
            v = swapval.mul_add(-100.0, v);
        }
    }
    let mut b = 1.0f32;
    for &ln in &l[..m.steps] {
        b /= m.delta.mul_add(ln, 1.0);
    }
    b * v
}

/// The kernels' `portfolio_b`: the payoff and its sensitivities into `lb`.
fn portfolio_b(m: &Model, l: &[f32], lb: &mut [f32]) -> f32 {
    let (mut bb, mut ss) = ([0.0f32; HORIZON], [0.0f32; HORIZON]);
    let (mut b, mut s) = (1.0f32, 0.0f32);
    for j in 0..HORIZON {
        b = fdiv(b, m.delta.mul_add(l[j + m.steps], 1.0));
        s = m.delta.mul_add(b, s);
        bb[j] = b;
        ss[j] = s;
    }
    let mut v = 0.0f32;
    let (mut bb_b, mut ss_b) = ([0.0f32; HORIZON], [0.0f32; HORIZON]);
    for i in 0..NOPT {
        let j = (m.maturities[i] - 1) as usize;
        let swapval = m.swaprates[i].mul_add(ss[j], bb[j]) - 1.0;
        if swapval < 0.0 {
            v = swapval.mul_add(-100.0, v);
            ss_b[j] = m.swaprates[i].mul_add(-100.0, ss_b[j]);
            bb_b[j] += -100.0;
        }
    }
    for j in (0..HORIZON).rev() {
        let n = j + m.steps;
        bb_b[j] = m.delta.mul_add(ss_b[j], bb_b[j]);
        let d = m.delta.mul_add(l[n], 1.0);
        lb[n] = -bb_b[j] * bb[j] * fdiv(m.delta, d);
        if j > 0 {
            ss_b[j - 1] += ss_b[j];
            bb_b[j - 1] += fdiv(bb_b[j], d);
        }
    }
    let mut b = 1.0f32;
    for &ln in &l[..m.steps] {
        b /= m.delta.mul_add(ln, 1.0);
    }
    let v = b * v;
    for n in 0..m.steps {
        lb[n] = -v * m.delta / m.delta.mul_add(l[n], 1.0);
    }
    for x in &mut lb[m.steps..] {
        *x *= b;
    }
    v
}

/// The kernels' `path_calc_b2`: the reverse sweep over the stored path.
fn path_calc_b2(m: &Model, lb: &mut [f32], l2: &[f32]) {
    let nr = lb.len();
    for n in (0..m.steps).rev() {
        let mut v1 = 0.0f32;
        for i in (n + 1..nr).rev() {
            let lam = m.lambda[i - n - 1];
            let next = l2[i + (n + 1) * nr];
            let prev = l2[i + n * nr];
            v1 = (lam * next).mul_add(lb[i], v1);
            let faci = fdiv(m.delta, m.delta.mul_add(prev, 1.0));
            lb[i] = lb[i].mul_add(fdiv(next, prev), v1 * lam * faci * faci);
        }
    }
}

/// Per path: (portfolio value, value again from the sensitivity kernel,
/// dv/dL[N-1]).
pub fn reference(m: &Model, z: &[f32], paths: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let nr = m.steps + HORIZON;
    let (mut v, mut vg, mut lb) = (Vec::new(), Vec::new(), Vec::new());
    let mut l2 = vec![0.0f32; nr * (m.steps + 1)];
    for p in 0..paths {
        let zp = path_z(z, m.steps, paths, p);
        let mut l = vec![m.l0; nr];
        path_calc(m, &mut l, &zp, None);
        v.push(portfolio(m, &l));
        let mut l = vec![m.l0; nr];
        path_calc(m, &mut l, &zp, Some(&mut l2));
        let mut b = vec![0.0f32; nr];
        vg.push(portfolio_b(m, &l, &mut b));
        path_calc_b2(m, &mut b, &l2);
        lb.push(b[nr - 1]);
    }
    (v, vg, lb)
}

/// Writes `data` to the module's `__constant__` variable `name`.
fn write_constant<T: crate::workload::host::Elem>(
    host: &mut dyn Host,
    name: &str,
    data: &[T],
) -> Result<(), WorkloadError> {
    let Some((addr, size)) = host.symbol(name) else {
        return Err(WorkloadError::Host(format!(
            "libor: the module declares no `{name}` (expected kernels/ispass/libor.ptx)"
        )));
    };
    if size < (data.len() * T::SIZE) as u64 {
        return Err(WorkloadError::Host(format!(
            "libor: `{name}` holds {size} bytes, {} needed",
            data.len() * T::SIZE
        )));
    }
    overwrite(host, addr, data)
}

impl Workload for Libor {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let paths = self.paths as usize;
        let m = Model::original(self.steps as usize);
        write_constant(host, "N", &[(m.steps + HORIZON) as i32])?;
        write_constant(host, "Nmat", &[m.steps as i32])?;
        write_constant(host, "Nopt", &[NOPT as i32])?;
        write_constant(host, "maturities", &m.maturities)?;
        write_constant(host, "delta", &[m.delta])?;
        write_constant(host, "swaprates", &m.swaprates)?;
        write_constant(host, "lambda", &m.lambda)?;
        let z = normals(paths, m.steps, self.seed);
        let dz = upload(host, "d_z", &z)?;
        let dv = upload(host, "d_v", &vec![f32::NAN; paths])?;
        let dvg = upload(host, "d_vGreeks", &vec![f32::NAN; paths])?;
        let dlb = upload(host, "d_Lb", &vec![f32::NAN; paths])?;
        let np = ArgValue::S32(self.paths as i32);
        host.launch(
            Some("pathcalcPortfolio"),
            self.grid,
            self.block,
            &[
                ArgValue::U64(dv),
                ArgValue::U64(dz),
                np,
                ArgValue::F32(m.l0),
            ],
        )?;
        host.launch(
            Some("pathcalcPortfolioGreeks"),
            self.grid,
            self.block,
            &[
                ArgValue::U64(dvg),
                ArgValue::U64(dlb),
                ArgValue::U64(dz),
                np,
                ArgValue::F32(m.l0),
            ],
        )?;
        let got_v: Vec<f32> = download(host, dv, paths)?;
        let got_vg: Vec<f32> = download(host, dvg, paths)?;
        let got_lb: Vec<f32> = download(host, dlb, paths)?;
        let (v, vg, lb) = reference(&m, &z, paths);
        Ok(Check::all([
            check::close_f32("d_v", &v, &got_v, REL_TOL, ABS_TOL),
            check::close_f32("d_vGreeks", &vg, &got_vg, REL_TOL, ABS_TOL),
            check::close_f32("d_Lb", &lb, &got_lb, REL_TOL, ABS_TOL),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_volatility_keeps_the_rates_and_the_sensitivity_matches_a_difference() {
        // With lambda = 0 the rates never move, so the value is the
        // closed-form portfolio of flat rates.
        let mut m = Model::original(NMAT);
        m.lambda = [0.0; N];
        let z = normals(1, NMAT, 5);
        let mut l = vec![m.l0; N];
        path_calc(&m, &mut l, &path_z(&z, NMAT, 1, 0), None);
        assert_eq!(l, vec![m.l0; N]);
        let d = 1.0f64 + 0.25 * 0.05;
        let disc = d.powi(-(NMAT as i32));
        let mut want = 0.0f64;
        for i in 0..NOPT {
            let k = m.maturities[i];
            let b = d.powi(-k);
            let s: f64 = (1..=k).map(|j| 0.25 * d.powi(-j)).sum();
            let sv = b + f64::from(m.swaprates[i]) * s - 1.0;
            if sv < 0.0 {
                want -= 100.0 * sv;
            }
        }
        let got = f64::from(portfolio(&m, &l));
        assert!(
            (got - want * disc).abs() < 1e-4 * want,
            "{got} vs {}",
            want * disc
        );
        // dv/dL[N-1] of the real model against a central difference of the
        // last initial rate (the sweep's derivative through the whole path),
        // for the original's 40 steps and for 8.
        for steps in [NMAT, 8] {
            let m = Model::original(steps);
            let nr = steps + HORIZON;
            let z = normals(1, steps, 2);
            let value = |bump: f32| {
                let mut l = vec![m.l0; nr];
                l[nr - 1] += bump;
                path_calc(&m, &mut l, &path_z(&z, steps, 1, 0), None);
                f64::from(portfolio(&m, &l))
            };
            let (v, vg, lb) = reference(&m, &z, 1);
            assert!((v[0] - vg[0]).abs() <= 1e-5 * v[0], "{v:?} {vg:?}");
            let h = 1e-3;
            let fd = (value(h) - value(-h)) / (2.0 * f64::from(h));
            assert!(
                (f64::from(lb[0]) - fd).abs() < 0.05 * fd.abs().max(1e-3),
                "steps {steps}: {} vs {fd}",
                lb[0]
            );
        }
    }
}
