//! `spmv_scalar`: SHOC SPMV-scalar (`spmv_scalar.ptx`, DAWS Example 1),
//! `out = A * vec` for a random square CSR matrix, one thread per row.
//!
//! Inputs: [`generate::spmv_input`]; check: `out` exactly against
//! [`reference::spmv_csr`] (the kernel's sequential fma chain per row).

use super::{block_1d, int_arg, nonneg_f64, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{self, SpmvInput};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload, reference};

const KERNEL: &str = "spmv_csr_scalar_kernel";

/// The matrix arguments both SPMV workloads take: `rows` (default 2048;
/// the matrix is `rows x rows`), `avg_nnz_per_row` (16),
/// `stddev_nnz_per_row` (4) and `seed` (1); and `vec_texture` (0): 1
/// binds texture reference `vecTex` to `vec`, for the kernels that read
/// `vec` through it as SHOC does (`spmv_scalar.ptx`,
/// `spmv_vector.ptx`; the `_global` variants read it from memory).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpmvMatrix {
    /// Rows (and columns).
    pub rows: u32,
    /// Mean non-zeros per row.
    pub avg_nnz_per_row: f64,
    /// Spread of the row lengths.
    pub stddev_nnz_per_row: f64,
    /// Generator seed.
    pub seed: u64,
    /// Bind `vecTex` to `vec` before the launch.
    pub vec_texture: bool,
}

impl SpmvMatrix {
    /// Reads the arguments.
    pub fn read(args: &mut Args) -> Result<SpmvMatrix, WorkloadError> {
        let m = SpmvMatrix {
            rows: args.count("rows", 2048)?,
            avg_nnz_per_row: nonneg_f64(args, "avg_nnz_per_row", 16.0)?,
            stddev_nnz_per_row: nonneg_f64(args, "stddev_nnz_per_row", 4.0)?,
            seed: args.u64("seed", 1)?,
            vec_texture: match args.u32("vec_texture", 0)? {
                0 => false,
                1 => true,
                v => {
                    return Err(WorkloadError::Args(format!(
                        "vec_texture = {v}: 0 (vec read as a global array) or 1 (through texture vecTex)"
                    )));
                }
            },
        };
        int_arg("rows", u64::from(m.rows))?;
        Ok(m)
    }

    /// The generated matrix and vector.
    pub fn input(&self) -> SpmvInput {
        generate::spmv_input(
            self.rows as usize,
            self.avg_nnz_per_row,
            self.stddev_nnz_per_row,
            self.seed,
        )
    }
}

/// The `spmv_scalar` workload.
pub struct SpmvScalar {
    matrix: SpmvMatrix,
    launch: Launch,
}

impl SpmvScalar {
    /// Reads `rows` (default 2048; the matrix is `rows x rows`),
    /// `avg_nnz_per_row` (16), `stddev_nnz_per_row` (4) and `seed` (1).
    /// Block: the manifest's (1-D) or SHOC's 128; grid: the manifest's,
    /// which must cover `rows` threads, or `ceil(rows / block)`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<SpmvScalar, WorkloadError> {
        let w = SpmvScalar {
            matrix: SpmvMatrix::read(args)?,
            launch,
        };
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d(KERNEL, &self.launch, 128)?;
        one_thread_per(
            KERNEL,
            &self.launch,
            block,
            "row",
            u64::from(self.matrix.rows),
        )
    }
}

/// Uploads an SPMV problem and launches the manifest's entry once with
/// the SHOC parameter list, `vec` bound to texture `vecTex` as well if
/// `vec_texture`; returns the device address of `out` (pre-filled with
/// NaN). Shared with [`super::spmv_vector`].
pub(super) fn launch_spmv(
    host: &mut dyn Host,
    inp: &SpmvInput,
    grid: [u32; 3],
    block: [u32; 3],
    vec_texture: bool,
) -> Result<u64, WorkloadError> {
    let rows = inp.matrix.num_rows;
    let dim = int_arg("rows", rows as u64)?;
    let dval = upload(host, "val", &inp.matrix.vals)?;
    let dcols = upload(host, "cols", &inp.matrix.cols)?;
    let drows = upload(host, "rowDelimiters", &inp.matrix.row_ptr)?;
    let dvec = upload(host, "vec", &inp.vec)?;
    let dout = upload(host, "out", &vec![f32::NAN; rows])?;
    if vec_texture {
        let width = u32::try_from(inp.vec.len())
            .map_err(|_| WorkloadError::Args("vec is too long for a 1-D texture".into()))?;
        host.bind_texture(
            "vecTex",
            crate::func::texture::TextureDesc::packed(
                dvec,
                width,
                1,
                1,
                crate::func::texture::TexelType::F32,
            ),
        )?;
    }
    host.launch(
        None,
        grid,
        block,
        &[
            ArgValue::U64(dval),
            ArgValue::U64(dcols),
            ArgValue::U64(drows),
            ArgValue::U64(dvec),
            ArgValue::S32(dim),
            ArgValue::U64(dout),
        ],
    )?;
    Ok(dout)
}

impl Workload for SpmvScalar {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let inp = self.matrix.input();
        let dout = launch_spmv(host, &inp, grid, block, self.matrix.vec_texture)?;
        let out: Vec<f32> = download(host, dout, inp.matrix.num_rows)?;
        Ok(check::exact(
            "out",
            &reference::spmv_csr(&inp.matrix, &inp.vec),
            &out,
        ))
    }
}
