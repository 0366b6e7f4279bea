//! `fwt`: the CUDA SDK fast Walsh transform (`fwt.ptx`): the sample's whole
//! dyadic convolution, in place: `fwtBatchGPU(d_Data)`,
//! `fwtBatchGPU(d_Kernel)`, `modulateGPU(d_Data, d_Kernel, N)`
//! (`modulateKernel<<<128, 256>>>`: `d_Data[i] *= d_Kernel[i] * (1/N)`) and
//! the inverse transform `fwtBatchGPU(d_Data)`. Each `fwtBatchGPU` is the
//! launch sequence of [`reference::fwt_launches`] (`fwtBatch2Kernel`
//! radix-4 passes in global memory, then one `fwtBatch1Kernel` launch in
//! shared memory).
//!
//! Inputs: [`generate::fwt_input`]; checks: `d_Kernel` (its transform) and
//! `d_Data` (the convolution) exactly against [`reference::fwt`] and the
//! same pointwise product in f32 (the launch sequence performs the
//! reference's butterflies in the same order, bit for bit).

use super::int_arg;
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::reference::FwtLaunch;
use crate::workload::{Launch, Workload, generate, reference};

/// Largest `elementary_log2`: `fwt.ptx`'s shared array holds 2^11 floats.
const MAX_ELEMENTARY_LOG2: u32 = 11;

/// The `fwt` workload.
pub struct Fwt {
    log2_data: u32,
    log2_kernel: u32,
    batch: u32,
    thread_n: u32,
    elementary_log2: u32,
    seed: u64,
    launch: Launch,
}

impl Fwt {
    /// Reads `log2_data` (default 15: `2^15` floats per vector),
    /// `log2_kernel` (7, at most `log2_data`), `batch` (1 vector per
    /// buffer), `thread_n` (256: block of `fwtBatch2Kernel`, a power of two
    /// with `4 * thread_n <= 2^log2_data` when a global pass runs),
    /// `elementary_log2` (11, in `2..=11`: the size `fwtBatch1Kernel`
    /// handles) and `seed` (1). Every launch's shape comes from these, so
    /// the manifest must not give `grid` or `block`.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Fwt, WorkloadError> {
        let w = Fwt {
            log2_data: args.u32("log2_data", 15)?,
            log2_kernel: args.u32("log2_kernel", 7)?,
            batch: args.count("batch", 1)?,
            thread_n: args.count("thread_n", 256)?,
            elementary_log2: args.u32("elementary_log2", MAX_ELEMENTARY_LOG2)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        w.launches()?;
        Ok(w)
    }

    /// The launches of one `fwtBatchGPU`, after checking every argument
    /// [`reference::fwt_launches`] and the kernels assume.
    fn launches(&self) -> Result<Vec<FwtLaunch>, WorkloadError> {
        let bad = |m: String| Err(WorkloadError::Args(m));
        if self.launch.grid.is_some() || self.launch.block.is_some() {
            return bad(
                "fwt derives every launch's grid and block from `log2_data`, `batch`, \
                 `thread_n` and `elementary_log2`; remove `grid`/`block` from the manifest"
                    .into(),
            );
        }
        let (l2, e) = (self.log2_data, self.elementary_log2);
        if !(2..=30).contains(&l2) {
            return bad(format!("`log2_data` = {l2} must be in 2..=30"));
        }
        if self.log2_kernel > l2 {
            return bad(format!(
                "`log2_kernel` = {} must be at most `log2_data` = {l2}",
                self.log2_kernel
            ));
        }
        if !(2..=MAX_ELEMENTARY_LOG2).contains(&e) {
            return bad(format!(
                "`elementary_log2` = {e} must be in 2..={MAX_ELEMENTARY_LOG2} (fwt.ptx's shared array holds 2^{MAX_ELEMENTARY_LOG2} floats)"
            ));
        }
        int_arg("batch << log2_data", u64::from(self.batch) << l2)?;
        if l2 > e {
            let t = self.thread_n;
            if !t.is_power_of_two() || t > 1024 || 4 * u64::from(t) > 1u64 << l2 {
                return bad(format!(
                    "`thread_n` = {t} must be a power of two, at most 1024 and at most 2^log2_data / 4 = {}",
                    (1u64 << l2) / 4
                ));
            }
            // The radix-4 passes step log2N down by 2 until it is at most
            // elementary_log2; fwtBatch1Kernel needs log2N >= 2.
            let last = l2 - 2 * (l2 - e).div_ceil(2);
            if last < 2 {
                return bad(format!(
                    "`log2_data` = {l2} with `elementary_log2` = {e} leaves fwtBatch1Kernel a 2^{last}-point transform; it needs at least 4 points (raise `elementary_log2`)"
                ));
            }
            let m = u64::from(self.batch) << (l2 - last);
            if m > u64::from(u32::MAX) || self.batch > 65535 {
                return bad(format!(
                    "`batch` = {} is too large for the grid",
                    self.batch
                ));
            }
        }
        Ok(reference::fwt_launches(l2, self.batch, e, self.thread_n))
    }
}

impl Workload for Fwt {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let launches = self.launches()?;
        let inp = generate::fwt_input(
            self.log2_data,
            self.log2_kernel,
            self.batch as usize,
            self.seed,
        );
        let dkernel = upload(host, "d_Kernel", &inp.kernel)?;
        let ddata = upload(host, "d_Data", &inp.data)?;
        let fwt_batch = |host: &mut dyn Host, d: u64| -> Result<(), WorkloadError> {
            for l in &launches {
                host.launch(
                    Some(l.entry),
                    l.grid,
                    l.block,
                    &[ArgValue::U64(d), ArgValue::U64(d), ArgValue::S32(l.arg)],
                )?;
            }
            Ok(())
        };
        // The sample's dyadic convolution.
        fwt_batch(host, ddata)?;
        fwt_batch(host, dkernel)?;
        let n = inp.data.len();
        host.launch(
            Some("modulateKernel"),
            [128, 1, 1],
            [256, 1, 1],
            &[
                ArgValue::U64(ddata),
                ArgValue::U64(dkernel),
                ArgValue::S32(int_arg("N", n as u64)?),
            ],
        )?;
        fwt_batch(host, ddata)?;
        let kernel: Vec<f32> = download(host, dkernel, inp.kernel.len())?;
        let data: Vec<f32> = download(host, ddata, n)?;
        let ref_kernel = reference::fwt(&inp.kernel, self.log2_data);
        let rcp = 1.0f32 / n as f32;
        let modulated: Vec<f32> = reference::fwt(&inp.data, self.log2_data)
            .iter()
            .zip(&ref_kernel)
            .map(|(&a, &b)| a * (b * rcp))
            .collect();
        Ok(Check::all([
            check::exact("d_Kernel", &ref_kernel, &kernel),
            check::exact("d_Data", &reference::fwt(&modulated, self.log2_data), &data),
        ]))
    }
}
