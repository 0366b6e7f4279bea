//! `hotspot`: Rodinia's HotSpot thermal simulation
//! (`kernels/rodinia/hotspot.ptx`, `calculate_temp`), with Rodinia's host
//! loop `compute_tran_temp`: `sim_time` steps in launches of
//! `pyramid_height` steps each, ping-ponging two temperature buffers.
//!
//! Input ([`input`]): a `size x size` chip, temperatures uniform in
//! [320, 345] K and power densities uniform in [0, 0.01] (Rodinia reads
//! them from files); the chip constants (`Cap`, `Rx`, `Ry`, `Rz`, `step`)
//! are computed on the host exactly as Rodinia's `compute_tran_temp` does
//! (double constants, float variables). Check: the final temperatures
//! exactly against [`reference`], which does one plain (non-pyramid) step
//! at a time with the kernel's floating-point operations in the order
//! nvcc emitted them (see [`step_cell`]).

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, generate};

const KERNEL: &str = "calculate_temp";
/// The kernel's compiled tile (`BLOCK_SIZE` x `BLOCK_SIZE`).
const BLOCK: u32 = 16;

/// The `hotspot` workload.
pub struct Hotspot {
    size: u32,
    pyramid_height: u32,
    sim_time: u32,
    seed: u64,
    launch: Launch,
}

impl Hotspot {
    /// Reads `size` (rows = columns, default 64), `pyramid_height` (2,
    /// 1..=7 so a CTA still owns a cell), `sim_time` (8 steps) and `seed`
    /// (1). Block: must be `[16, 16, 1]`; grid: the manifest's, at least
    /// Rodinia's `ceil(size / (16 - 2 * pyramid_height))` per side, or that.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Hotspot, WorkloadError> {
        let w = Hotspot {
            size: args.count("size", 64)?,
            pyramid_height: args.count("pyramid_height", 2)?,
            sim_time: args.count("sim_time", 8)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("size * size", u64::from(w.size).pow(2))?;
        if w.pyramid_height > (BLOCK - 1) / 2 {
            return Err(WorkloadError::Args(format!(
                "`pyramid_height` = {} must be at most {} (a {BLOCK}-wide tile loses 2 cells per step)",
                w.pyramid_height,
                (BLOCK - 1) / 2
            )));
        }
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = super::block_fixed(KERNEL, &self.launch, [BLOCK, BLOCK, 1])?;
        let own = BLOCK - 2 * self.pyramid_height;
        let need = self.size.div_ceil(own);
        let grid = self.launch.grid_or([need, need, 1]);
        if grid[0] < need || grid[1] < need || grid[2] != 1 {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} on a {0} x {0} chip with pyramid height {1} needs grid [{need}, {need}, 1] (one CTA per {own} x {own} cells), got [{2}, {3}, {4}]",
                self.size, self.pyramid_height, grid[0], grid[1], grid[2]
            )));
        }
        Ok((grid, block))
    }
}

/// `(temperature, power)`, row-major: stream 0 and 1 of `seed`.
pub fn input(n: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    (
        generate::uniform_f32(n * n, 320.0, 345.0, generate::stream_seed(seed, 0)),
        generate::uniform_f32(n * n, 0.0, 0.01, generate::stream_seed(seed, 1)),
    )
}

/// The chip constants Rodinia's host computes for a `rows x cols` grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chip {
    /// Thermal capacitance of a cell.
    pub cap: f32,
    /// Lateral resistance along x.
    pub rx: f32,
    /// Lateral resistance along y.
    pub ry: f32,
    /// Vertical resistance.
    pub rz: f32,
    /// Time step.
    pub step: f32,
}

impl Chip {
    /// Rodinia's `compute_tran_temp` prologue, with its C types: the chip
    /// dimensions are `float` globals, `FACTOR_CHIP`, `SPEC_HEAT_SI`,
    /// `MAX_PD`, `PRECISION` and the `2.0` are `double`, `K_SI` is an int.
    pub fn new(rows: usize, cols: usize) -> Chip {
        let (t_chip, chip_height, chip_width) = (0.0005f32, 0.016f32, 0.016f32);
        let grid_height = chip_height / rows as f32;
        let grid_width = chip_width / cols as f32;
        let (factor_chip, spec_heat_si, k_si) = (0.5f64, 1.75e6f64, 100i32);
        let cap = (factor_chip
            * spec_heat_si
            * f64::from(t_chip)
            * f64::from(grid_width)
            * f64::from(grid_height)) as f32;
        let rx = (f64::from(grid_width)
            / (2.0 * f64::from(k_si) * f64::from(t_chip) * f64::from(grid_height)))
            as f32;
        let ry = (f64::from(grid_height)
            / (2.0 * f64::from(k_si) * f64::from(t_chip) * f64::from(grid_width)))
            as f32;
        let rz = t_chip / (k_si as f32 * grid_height * grid_width);
        let max_slope = (3.0e6 / (factor_chip * f64::from(t_chip) * spec_heat_si)) as f32;
        let step = (0.001 / f64::from(max_slope)) as f32;
        Chip {
            cap,
            rx,
            ry,
            rz,
            step,
        }
    }
}

/// One cell's new temperature, as `calculate_temp`'s PTX computes it:
/// `t + step/Cap * (p + (s + n - 2t) * Ry_1 + (e + w - 2t) * Rx_1 +
/// (80 - t) * Rz_1)`, where `s + n`, `e + w`, `80 - t`, its product with
/// `Rz_1`, the reciprocals and `step/Cap` are f32 and the rest f64, with
/// the two `* R_1 +` and the final `* step/Cap + t` fused (`fma.rn.f64`).
#[allow(clippy::too_many_arguments)]
pub fn step_cell(t: f32, p: f32, n: f32, s: f32, e: f32, w: f32, chip: &Chip) -> f32 {
    let sdc = f64::from(chip.step / chip.cap);
    let (rx1, ry1, rz1) = (1.0 / chip.rx, 1.0 / chip.ry, 1.0 / chip.rz);
    let t64 = f64::from(t);
    let two_t = t64 + t64;
    let v = (f64::from(s + n) - two_t).mul_add(f64::from(ry1), f64::from(p));
    let v = (f64::from(e + w) - two_t).mul_add(f64::from(rx1), v);
    let v = v + f64::from(rz1 * (80.0f32 - t));
    v.mul_add(sdc, t64) as f32
}

/// `steps` plain steps over the whole chip (neighbours clamped at its edge,
/// as the kernel's clamped N/S/W/E indices do). Exact.
pub fn reference(temp: &[f32], power: &[f32], n: usize, steps: usize, chip: &Chip) -> Vec<f32> {
    let mut cur = temp.to_vec();
    for _ in 0..steps {
        let prev = cur.clone();
        for y in 0..n {
            for x in 0..n {
                let at = |yy: usize, xx: usize| prev[yy * n + xx];
                cur[y * n + x] = step_cell(
                    at(y, x),
                    power[y * n + x],
                    at(y.saturating_sub(1), x),
                    at((y + 1).min(n - 1), x),
                    at(y, (x + 1).min(n - 1)),
                    at(y, x.saturating_sub(1)),
                    chip,
                );
            }
        }
    }
    cur
}

impl Workload for Hotspot {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.size as usize;
        let (temp, power) = input(n, self.seed);
        let chip = Chip::new(n, n);
        let dpower = upload(host, "MatrixPower", &power)?;
        // Every launch writes every cell of its destination: NaN shows a miss.
        let dtemp = [
            upload(host, "MatrixTemp0", &temp)?,
            upload(host, "MatrixTemp1", &vec![f32::NAN; n * n])?,
        ];
        let ph = self.pyramid_height;
        let (mut src, mut dst) = (1usize, 0usize);
        let mut t = 0u32;
        while t < self.sim_time {
            std::mem::swap(&mut src, &mut dst);
            host.launch(
                None,
                grid,
                block,
                &[
                    ArgValue::S32(ph.min(self.sim_time - t) as i32),
                    ArgValue::U64(dpower),
                    ArgValue::U64(dtemp[src]),
                    ArgValue::U64(dtemp[dst]),
                    ArgValue::S32(self.size as i32),
                    ArgValue::S32(self.size as i32),
                    ArgValue::S32(ph as i32),
                    ArgValue::S32(ph as i32),
                    ArgValue::F32(chip.cap),
                    ArgValue::F32(chip.rx),
                    ArgValue::F32(chip.ry),
                    ArgValue::F32(chip.rz),
                    ArgValue::F32(chip.step),
                    ArgValue::F32(0.001),
                ],
            )?;
            t += ph;
        }
        let got: Vec<f32> = download(host, dtemp[dst], n * n)?;
        let want = reference(&temp, &power, n, self.sim_time as usize, &chip);
        Ok(check::exact(&format!("MatrixTemp{dst}"), &want, &got))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_chip_at_ambient_without_power_stays_put() {
        let chip = Chip::new(4, 4);
        assert_eq!(step_cell(80.0, 0.0, 80.0, 80.0, 80.0, 80.0, &chip), 80.0);
        // Power heats: the rise is step/Cap * p (all other terms are 0).
        let p = 1.0f32;
        let want = (f64::from(chip.step / chip.cap) * 1.0 + 80.0) as f32;
        assert_eq!(step_cell(80.0, p, 80.0, 80.0, 80.0, 80.0, &chip), want);
        assert!(want > 80.0);
    }
}
