//! `scalar_product`: the CUDA SDK `scalarProd` (`scalar_product.ptx`), the
//! dot products of `vectors` pairs of `elements`-float vectors; each CTA
//! handles pairs `blockIdx.x, blockIdx.x + gridDim.x, …` with 1024 shared
//! accumulators and a `bar.sync` reduction tree.
//!
//! Inputs: [`generate::scalar_product_input`]; check: `d_C` exactly against
//! [`reference::scalar_product`] (the kernel's accumulator fma chains and
//! tree, bit for bit).

use super::{block_1d, grid_1d, int_arg};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::reference::ACCUM_N;
use crate::workload::{Launch, Workload, generate, reference};

const KERNEL: &str = "scalarProdGPU";

/// The `scalar_product` workload.
pub struct ScalarProduct {
    vectors: u32,
    elements: u32,
    seed: u64,
    launch: Launch,
}

impl ScalarProduct {
    /// Reads `vectors` (default 16), `elements` (4096) and `seed` (1);
    /// `vectors * elements + 1024` must fit an `int` (the kernel's indices).
    /// Block: the manifest's (1-D) or the sample's 256; grid: the manifest's
    /// (any: CTAs loop over the pairs) or one CTA per pair.
    pub fn new(args: &mut Args, launch: Launch) -> Result<ScalarProduct, WorkloadError> {
        let w = ScalarProduct {
            vectors: args.count("vectors", 16)?,
            elements: args.count("elements", 4096)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg(
            "vectors * elements + 1024",
            u64::from(w.vectors) * u64::from(w.elements) + ACCUM_N as u64,
        )?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 256)?;
        let grid = match self.launch.grid {
            Some(_) => grid_1d(KERNEL, &self.launch, block[0], None)?,
            None => [self.vectors, 1, 1],
        };
        Ok((grid, block))
    }
}

impl Workload for ScalarProduct {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let (v, e) = (self.vectors as usize, self.elements as usize);
        let (a, b) = generate::scalar_product_input(v, e, self.seed);
        let dc = upload(host, "d_C", &vec![f32::NAN; v])?;
        let da = upload(host, "d_A", &a)?;
        let db = upload(host, "d_B", &b)?;
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(dc),
                ArgValue::U64(da),
                ArgValue::U64(db),
                ArgValue::S32(self.vectors as i32),
                ArgValue::S32(self.elements as i32),
            ],
        )?;
        let c: Vec<f32> = download(host, dc, v)?;
        Ok(check::exact(
            "d_C",
            &reference::scalar_product(&a, &b, v, e),
            &c,
        ))
    }
}
