//! `srad`: Rodinia's SRAD v2 speckle-reducing anisotropic diffusion
//! (`kernels/rodinia/srad.ptx`), with Rodinia's host loop: per iteration
//! the host reduces the region of interest of `J` to `q0sqr` (float sums,
//! as Rodinia's `srad.cu` does on its copy of `J`), then launches
//! `srad_cuda_1` (derivatives and diffusion coefficient) and `srad_cuda_2`
//! (divergence and image update).
//!
//! Input ([`input`]): `J` uniform in [1, e] (Rodinia: `exp` of a uniform
//! [0, 1] image; the range is the same, without a libm call). The kernels
//! load the neighbour rows of edge tiles unconditionally (one row before
//! and after the image; Rodinia relies on neighbouring allocations), so
//! `J` and `C` are allocated with one padding row on each side.
//! Check: the final `J` and the last iteration's `C` exactly against
//! [`reference`], which does the kernels' f32/f64 operations in the order
//! nvcc emitted them (fused where the PTX has `fma`).

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate};

/// The kernels' compiled tile (`BLOCK_SIZE` x `BLOCK_SIZE`).
const BLOCK: u32 = 16;

/// The `srad` workload.
pub struct Srad {
    rows: u32,
    cols: u32,
    roi: [u32; 4],
    lambda: f32,
    niter: u32,
    seed: u64,
}

impl Srad {
    /// Reads `rows`, `cols` (default 128 each; multiples of 16, at least
    /// 32: the kernels' edge handling needs two tiles per side), the region
    /// of interest `r1`, `r2`, `c1`, `c2` (0, 31, 0, 31; inclusive, inside
    /// the image), `lambda` (0.5) and `niter` (2), `seed` (1). The launch
    /// shape is Rodinia's (16 x 16 CTAs, one per tile); the manifest gives
    /// none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Srad, WorkloadError> {
        let w = Srad {
            rows: args.count("rows", 128)?,
            cols: args.count("cols", 128)?,
            roi: [
                args.u32("r1", 0)?,
                args.u32("r2", 31)?,
                args.u32("c1", 0)?,
                args.u32("c2", 31)?,
            ],
            lambda: super::nonneg_f64(args, "lambda", 0.5)? as f32,
            niter: args.u32("niter", 2)?,
            seed: args.u64("seed", 1)?,
        };
        for (what, v) in [("rows", w.rows), ("cols", w.cols)] {
            if !v.is_multiple_of(BLOCK) || v < 2 * BLOCK {
                return Err(WorkloadError::Args(format!(
                    "`{what}` = {v} must be a multiple of {BLOCK} and at least {}",
                    2 * BLOCK
                )));
            }
        }
        int_arg(
            "(rows + 2) * cols",
            (u64::from(w.rows) + 2) * u64::from(w.cols),
        )?;
        let [r1, r2, c1, c2] = w.roi;
        if r1 > r2 || r2 >= w.rows || c1 > c2 || c2 >= w.cols {
            return Err(WorkloadError::Args(format!(
                "the region of interest rows {r1}..={r2}, columns {c1}..={c2} must be non-empty and inside the {} x {} image",
                w.rows, w.cols
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "srad uses Rodinia's launch shape (16 x 16 CTAs, one per tile): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// The image `J`, row-major, uniform in [1, 2.718282] (stream 0).
pub fn input(rows: usize, cols: usize, seed: u64) -> Vec<f32> {
    generate::uniform_f32(
        rows * cols,
        1.0,
        std::f32::consts::E,
        generate::stream_seed(seed, 0),
    )
}

/// Rodinia's host statistics of the region of interest: float `sum` and
/// `sum2` accumulated row by row, then `q0sqr = var / mean^2`.
pub fn q0sqr(j: &[f32], cols: usize, roi: [u32; 4]) -> f32 {
    let [r1, r2, c1, c2] = roi.map(|v| v as usize);
    let (mut sum, mut sum2) = (0.0f32, 0.0f32);
    for i in r1..=r2 {
        for jj in c1..=c2 {
            let t = j[i * cols + jj];
            sum += t;
            sum2 += t * t;
        }
    }
    let size_r = ((r2 - r1 + 1) * (c2 - c1 + 1)) as f32;
    let mean = sum / size_r;
    let var = (sum2 / size_r) - mean * mean;
    var / (mean * mean)
}

/// One iteration's `srad_cuda_1` + `srad_cuda_2` on the whole image:
/// returns `(J', C)`. Neighbours are clamped at the image edge (what the
/// kernels' edge-tile branches load). Exact.
pub fn iteration(
    j: &[f32],
    rows: usize,
    cols: usize,
    q0sqr: f32,
    lambda: f32,
) -> (Vec<f32>, Vec<f32>) {
    let at = |i: usize, k: usize| j[i * cols + k];
    let n_px = rows * cols;
    let (mut dn, mut ds, mut dw, mut de) = (
        vec![0.0f32; n_px],
        vec![0.0; n_px],
        vec![0.0; n_px],
        vec![0.0; n_px],
    );
    let mut c = vec![0.0f32; n_px];
    for i in 0..rows {
        for k in 0..cols {
            let jc = at(i, k);
            let n = at(i.saturating_sub(1), k) - jc;
            let s = at((i + 1).min(rows - 1), k) - jc;
            let w = at(i, k.saturating_sub(1)) - jc;
            let e = at(i, (k + 1).min(cols - 1)) - jc;
            // g2 = (n*n + s*s + w*w + e*e) / (jc*jc), fused as in the PTX.
            let g2 = e.mul_add(e, w.mul_add(w, n.mul_add(n, s * s))) / (jc * jc);
            let l = (n + s + w + e) / jc;
            let num = f64::from(g2).mul_add(0.5, f64::from(l * l) * -0.0625) as f32;
            let den = f64::from(l).mul_add(0.25, 1.0) as f32;
            let qsqr = num / (den * den);
            let den = (qsqr - q0sqr) / ((q0sqr + 1.0) * q0sqr);
            let cv = (1.0 / (f64::from(den) + 1.0)) as f32;
            let idx = i * cols + k;
            // The kernel's `c < 0 -> 0, c > 1 -> 1` (a NaN stays NaN).
            c[idx] = cv.clamp(0.0, 1.0);
            (dn[idx], ds[idx], dw[idx], de[idx]) = (n, s, w, e);
        }
    }
    let mut out = j.to_vec();
    for i in 0..rows {
        for k in 0..cols {
            let idx = i * cols + k;
            let cc = c[idx];
            let cs = c[(i + 1).min(rows - 1) * cols + k];
            let ce = c[i * cols + (k + 1).min(cols - 1)];
            // d = cn*N + cs*S + cw*W + ce*E, fused as in the PTX.
            let d = ce.mul_add(
                de[idx],
                cc.mul_add(dw[idx], cc.mul_add(dn[idx], cs * ds[idx])),
            );
            out[idx] = (f64::from(lambda) * 0.25).mul_add(f64::from(d), f64::from(j[idx])) as f32;
        }
    }
    (out, c)
}

/// `niter` iterations of the host loop; returns `(J, C)` (`C` of the last
/// iteration, all NaN if `niter` is 0).
pub fn reference(
    j: &[f32],
    rows: usize,
    cols: usize,
    roi: [u32; 4],
    lambda: f32,
    niter: u32,
) -> (Vec<f32>, Vec<f32>) {
    let mut j = j.to_vec();
    let mut c = vec![f32::NAN; rows * cols];
    for _ in 0..niter {
        let q = q0sqr(&j, cols, roi);
        (j, c) = iteration(&j, rows, cols, q, lambda);
    }
    (j, c)
}

impl Workload for Srad {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (rows, cols) = (self.rows as usize, self.cols as usize);
        let j0 = input(rows, cols, self.seed);
        let row_bytes = cols as u64 * 4;
        // One padding row before and after J and C.
        let mut padded = vec![0.0f32; (rows + 2) * cols];
        padded[cols..(rows + 1) * cols].copy_from_slice(&j0);
        let dj_base = upload(host, "J_cuda", &padded)?;
        let dc_base = upload(host, "C_cuda", &vec![f32::NAN; (rows + 2) * cols])?;
        let (dj, dc) = (dj_base + row_bytes, dc_base + row_bytes);
        let derivs: Vec<u64> = ["E_C", "W_C", "N_C", "S_C"]
            .iter()
            .map(|name| upload(host, name, &vec![f32::NAN; rows * cols]))
            .collect::<Result<_, _>>()?;
        let grid = [self.cols / BLOCK, self.rows / BLOCK, 1];
        let block = [BLOCK, BLOCK, 1];
        let [r1, r2, _, _] = self.roi;
        for _ in 0..self.niter {
            // The host's reduction over the region of interest, on the
            // rows of J it covers (Rodinia copies all of J back).
            let roi_rows: Vec<f32> = download(
                host,
                dj + u64::from(r1) * row_bytes,
                (r2 - r1 + 1) as usize * cols,
            )?;
            let roi = [0, r2 - r1, self.roi[2], self.roi[3]];
            let q = q0sqr(&roi_rows, cols, roi);
            let common = |extra: &[ArgValue]| {
                let mut a: Vec<ArgValue> = derivs.iter().map(|&d| ArgValue::U64(d)).collect();
                a.extend([
                    ArgValue::U64(dj),
                    ArgValue::U64(dc),
                    ArgValue::S32(self.cols as i32),
                    ArgValue::S32(self.rows as i32),
                ]);
                a.extend_from_slice(extra);
                a
            };
            host.launch(
                Some("srad_cuda_1"),
                grid,
                block,
                &common(&[ArgValue::F32(q)]),
            )?;
            host.launch(
                Some("srad_cuda_2"),
                grid,
                block,
                &common(&[ArgValue::F32(self.lambda), ArgValue::F32(q)]),
            )?;
        }
        let inner = cols..(rows + 1) * cols;
        let got_j: Vec<f32> = download(host, dj_base, (rows + 2) * cols)?;
        let got_c: Vec<f32> = download(host, dc_base, (rows + 2) * cols)?;
        let (want_j, want_c) = reference(&j0, rows, cols, self.roi, self.lambda, self.niter);
        Ok(Check::all([
            check::exact("J_cuda", &want_j, &got_j[inner.clone()]),
            check::close_f32("C_cuda", &want_c, &got_c[inner], 0.0, 0.0),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_image_does_not_change() {
        // All derivatives are 0, so qsqr = 0, D = 0 and J stays; c = 1 / (1
        // + den) with den = -q0 / ((1 + q0) q0) = -0.8 is 5, saturated to 1.
        let j = vec![2.0f32; 32 * 32];
        let (out, c) = iteration(&j, 32, 32, 0.25, 0.5);
        assert_eq!(out, j);
        let den = (0.0f32 - 0.25) / ((0.25f32 + 1.0) * 0.25);
        assert!((1.0 / (f64::from(den) + 1.0)) as f32 > 4.9);
        assert!(c.iter().all(|&v| v == 1.0));
        assert_eq!(q0sqr(&j, 32, [0, 3, 0, 3]), 0.0);
    }
}
