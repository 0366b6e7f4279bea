//! `chase`: the pointer-chasing microbenchmarks `chase_8` / `chase_16` of
//! `kernels/micro/micro.ptx`: one thread follows a chain of absolute
//! pointers, `loads` per loop iteration, for `n + 1` iterations.
//!
//! The chain is `links` 8-byte pointers `stride` bytes apart, each holding
//! the address of the next; the last points to itself. With `stride` ≥
//! the L1D line and the chain longer than the loads, every load misses
//! (a new line each time); with `stride = 0` the single link points to
//! itself and every load after the first hits. Check: `out` holds exactly
//! the address the CPU reaches after the same number of steps.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// The `chase` workload.
pub struct Chase {
    n: u32,
    loads: u32,
    stride: u64,
    launch: Launch,
}

impl Chase {
    /// Reads `n` (loop count − 1, default 16), `loads` (loads per iteration,
    /// the kernel's K: 8 for `chase_8`), `stride` (bytes, default 128;
    /// 0 = self loop, else a multiple of 8).
    pub fn new(args: &mut Args, launch: Launch) -> Result<Chase, WorkloadError> {
        let n = args.u32("n", 16)?;
        let loads = args.count("loads", 8)?;
        let stride = args.u64("stride", 128)?;
        if stride % 8 != 0 || stride > 1 << 20 {
            return Err(WorkloadError::Args(format!(
                "`stride` = {stride} must be a multiple of 8 up to 1 MiB"
            )));
        }
        let steps = (u64::from(n) + 1) * u64::from(loads);
        if stride * steps > 1 << 30 {
            return Err(WorkloadError::Args(format!(
                "the chain would need {} bytes; use a smaller `n`, `loads` or `stride`",
                stride * steps
            )));
        }
        Ok(Chase {
            n,
            loads,
            stride,
            launch,
        })
    }
}

impl Workload for Chase {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let steps = (u64::from(self.n) + 1) * u64::from(self.loads);
        let links = if self.stride == 0 { 1 } else { steps + 1 };
        let words = (links * self.stride.max(8) / 8) as usize;
        let base = host.alloc("chain", (words * 8) as u64);
        let mut chain = vec![0u64; words];
        let per = (self.stride / 8) as usize;
        for i in 0..links as usize {
            let next = if self.stride == 0 || i + 1 == links as usize {
                i
            } else {
                i + 1
            };
            chain[i * per.max(1)] = base + (next * per) as u64 * 8;
        }
        crate::workload::host::overwrite(host, base, &chain)?;
        let out = upload(host, "out", &[0u64])?;
        let block = self.launch.block_or([1, 1, 1]);
        let grid = self.launch.grid_or([1, 1, 1]);
        host.launch(
            None,
            grid,
            block,
            &[
                ArgValue::U64(out),
                ArgValue::U64(base),
                ArgValue::U32(self.n),
            ],
        )?;
        let got: Vec<u64> = download(host, out, 1)?;
        let expect = base + steps.min(links - 1) * self.stride;
        Ok(check::exact("out", &[expect], &got))
    }
}
