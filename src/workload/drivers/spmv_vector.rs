//! `spmv_vector`: SHOC SPMV-vector (`spmv_vector.ptx`, DAWS Example 2),
//! `out = A * vec` on the same matrix as `spmv_scalar`, one warp per row
//! with a `shfl.sync.down` tree reduction.
//!
//! Inputs: [`generate::spmv_input`]; checks: `out` exactly against
//! [`reference::spmv_csr_vector`] (the kernel's per-lane fma chains and
//! warp tree), and, as a guard on that reference, within relative 1e-5
//! (absolute 1e-30) of the sequential [`reference::spmv_csr`].

use super::spmv_scalar::{SpmvMatrix, launch_spmv};
use super::{block_1d, grid_1d};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{Host, WorkloadError, download};
use crate::workload::reference::WARP_SIZE;
use crate::workload::{Launch, Workload, reference};

const KERNEL: &str = "spmv_csr_vector_kernel";

/// The `spmv_vector` workload.
pub struct SpmvVector {
    matrix: SpmvMatrix,
    launch: Launch,
}

impl SpmvVector {
    /// Reads `rows` (default 2048), `avg_nnz_per_row` (16),
    /// `stddev_nnz_per_row` (4) and `seed` (1). Block: the manifest's (1-D,
    /// a multiple of 32) or 128; grid: the manifest's, which must give every
    /// row a warp, or `ceil(rows / (block / 32))`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<SpmvVector, WorkloadError> {
        let w = SpmvVector {
            matrix: SpmvMatrix::read(args)?,
            launch,
        };
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 128)?;
        let warp = WARP_SIZE as u32;
        if !block[0].is_multiple_of(warp) {
            return Err(WorkloadError::Args(format!(
                "{KERNEL} runs one warp per row: block [{}, 1, 1] is not a multiple of {warp}",
                block[0]
            )));
        }
        // One warp per row: `rows` warps = rows * 32 threads.
        let threads = u64::from(self.matrix.rows) * u64::from(warp);
        let grid = grid_1d(
            KERNEL,
            &self.launch,
            block[0],
            Some(("a warp per row", threads)),
        )?;
        Ok((grid, block))
    }
}

impl Workload for SpmvVector {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let inp = self.matrix.input();
        let dout = launch_spmv(host, &inp, grid, block, self.matrix.vec_texture)?;
        let out: Vec<f32> = download(host, dout, inp.matrix.num_rows)?;
        Ok(Check::all([
            check::exact(
                "out",
                &reference::spmv_csr_vector(&inp.matrix, &inp.vec),
                &out,
            ),
            check::close_f32(
                "out (vs sequential spmv_csr, rel 1e-5)",
                &reference::spmv_csr(&inp.matrix, &inp.vec),
                &out,
                1e-5,
                1e-30,
            ),
        ]))
    }
}
