//! `nearest_neighbor`: Rodinia's nn (`kernels/lfws/nearest_neighbor.ptx`,
//! `euclid`; LFWS Table 2 "NNEI"). One thread per (lat, lng) record
//! writes the record's Euclidean distance to a target point (two global
//! loads, one store); the host then picks the `k` nearest records.
//!
//! Input ([`input`]): `records` hurricane positions as Rodinia's generator
//! makes them (latitude 7 + an integer below 63 + a fraction, longitude
//! 224 + an integer below 106 + a fraction). Launch: `block` threads
//! (256, as Rodinia), `ceil(records / block)` CTAs on a 1-D grid, or on
//! a 2-D grid when that exceeds 65535 CTAs (Rodinia's split). Check,
//! exactly against [`reference`] (the kernel's `sub`, `mul`, `fma`,
//! `sqrt.rn` in its order): `d_distances`, and the `k` nearest record
//! numbers (`nearest`, selected on the host from the downloaded distances
//! as Rodinia does; ties go to the lower record number).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::drivers::block_1d;
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Most CTAs along one grid dimension (Rodinia's split).
const MAX_GRID_X: u64 = 65535;

/// The `nearest_neighbor` workload.
pub struct NearestNeighbor {
    records: u32,
    k: u32,
    lat: f32,
    lng: f32,
    block: u32,
    seed: u64,
}

/// A finite float argument that an f32 holds.
fn f32_arg(args: &mut Args, key: &str, default: f32) -> Result<f32, WorkloadError> {
    let v = args.f64(key, f64::from(default))?;
    let f = v as f32;
    if f.is_finite() {
        Ok(f)
    } else {
        Err(WorkloadError::Args(format!(
            "`{key}` = {v} is not a finite f32"
        )))
    }
}

impl NearestNeighbor {
    /// Reads `records` (default 10691, the paper's input; at most 2^26),
    /// `k` (10; at most `records`), the target `lat` (30) and `lng` (90),
    /// and `seed` (1). The manifest may give a 1-D `block` (default
    /// [256, 1, 1]); the grid follows from it.
    pub fn new(args: &mut Args, launch: Launch) -> Result<NearestNeighbor, WorkloadError> {
        let records = args.count("records", 10691)?;
        let k = args.count("k", 10)?;
        let lat = f32_arg(args, "lat", 30.0)?;
        let lng = f32_arg(args, "lng", 90.0)?;
        let seed = args.u64("seed", 1)?;
        if records > 1 << 26 {
            return Err(WorkloadError::Args(format!(
                "`records` = {records} must be at most 2^26"
            )));
        }
        if k > records {
            return Err(WorkloadError::Args(format!(
                "`k` = {k} must be at most `records` = {records}"
            )));
        }
        if launch.grid.is_some() {
            return Err(WorkloadError::Args(
                "nearest_neighbor derives its grid from `records` and the block (one thread per record): remove `grid`".into(),
            ));
        }
        let block = block_1d("euclid", &launch, 256)?[0];
        Ok(NearestNeighbor {
            records,
            k,
            lat,
            lng,
            block,
            seed,
        })
    }
}

/// Rodinia's grid for `records` threads in CTAs of `block`: 1-D up to
/// 65535 CTAs, else as many rows as needed of equal width.
pub fn grid(records: u32, block: u32) -> [u32; 3] {
    let blocks = u64::from(records).div_ceil(u64::from(block)).max(1);
    let y = blocks.div_ceil(MAX_GRID_X);
    let x = blocks.div_ceil(y);
    [x as u32, y as u32, 1]
}

/// `n` records as interleaved `(lat, lng)` pairs (see the module comment).
pub fn input(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(stream_seed(seed, 0));
    let mut v = Vec::with_capacity(2 * n);
    for _ in 0..n {
        let lat = 7.0 + rng.below(63) as f32 + rng.unit_f32();
        let lng = 224.0 + rng.below(106) as f32 + rng.unit_f32();
        v.push(lat);
        v.push(lng);
    }
    v
}

/// Every record's distance to `(lat, lng)`, as the kernel computes it:
/// `sqrt.rn(fma(dlat, dlat, dlng * dlng))`.
pub fn reference(locations: &[f32], lat: f32, lng: f32) -> Vec<f32> {
    locations
        .chunks_exact(2)
        .map(|r| {
            let dlat = lat - r[0];
            let dlng = lng - r[1];
            dlat.mul_add(dlat, dlng * dlng).sqrt()
        })
        .collect()
}

/// The numbers of the `k` records with the smallest distances, nearest
/// first (ties: the lower number first).
pub fn nearest(distances: &[f32], k: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..distances.len() as u32).collect();
    order.sort_by(|&a, &b| {
        distances[a as usize]
            .total_cmp(&distances[b as usize])
            .then(a.cmp(&b))
    });
    order.truncate(k);
    order
}

impl Workload for NearestNeighbor {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.records as usize;
        let locations = input(n, self.seed);
        let dloc = upload(host, "d_locations", &locations)?;
        let ddist = upload(host, "d_distances", &vec![f32::NAN; n])?;
        host.launch(
            None,
            grid(self.records, self.block),
            [self.block, 1, 1],
            &[
                ArgValue::U64(dloc),
                ArgValue::U64(ddist),
                ArgValue::S32(self.records as i32),
                ArgValue::F32(self.lat),
                ArgValue::F32(self.lng),
            ],
        )?;
        let want = reference(&locations, self.lat, self.lng);
        let got: Vec<f32> = download(host, ddist, n)?;
        let k = self.k as usize;
        Ok(Check::all([
            check::exact("d_distances", &want, &got),
            check::exact("nearest", &nearest(&want, k), &nearest(&got, k)),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_selection() {
        // (3, 4) from (0, 0) is 5; (1, 1) is sqrt(2); (0, 0) is 0.
        let locs = [3.0, 4.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0];
        let d = reference(&locs, 0.0, 0.0);
        assert_eq!(d, [5.0, 2f32.sqrt(), 0.0, 2f32.sqrt()]);
        assert_eq!(nearest(&d, 3), [2, 1, 3]);
    }

    #[test]
    fn rodinia_grid_split() {
        assert_eq!(grid(10691, 256), [42, 1, 1]);
        assert_eq!(grid(256 * 65535, 256), [65535, 1, 1]);
        assert_eq!(grid(256 * 65535 + 1, 256), [32768, 2, 1]);
    }
}
