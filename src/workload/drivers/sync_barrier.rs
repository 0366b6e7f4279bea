//! HeteroSync grid barriers (`kernels/sync/`): the two-level atomic tree
//! barrier and the lock-free tree barrier, each plain (`…_uniq`) and with a
//! local data exchange between the two levels (`…_uniq_local_exch`).
//!
//! Each of `iters` episodes updates the data region a TB owns with a
//! non-commutative step (`x = x·33 + (b+1) + i`), then regions rotate, so
//! a barrier that lets a TB through early corrupts the data; every TB also
//! stamps its progress. The CPU reference replays the episodes in order.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::Rng;
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Which barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierKind {
    /// `atomicTreeBarrUniq`: atomic counters at both levels.
    Atomic,
    /// `lfTreeBarrUniq`: per-TB in/out flags.
    LockFree,
}

/// The workload.
pub struct GridBarrier {
    kind: BarrierKind,
    local_exch: bool,
    iters: u32,
    num_sm: u32,
    max_blocks: u32,
    stride: u32,
    seed: u64,
    grid: u32,
}

impl GridBarrier {
    /// Reads `iters`, `num_sm`, `max_blocks`, `seed` (and `array_stride` for
    /// the lock-free barrier); the variant comes from the entry
    /// (`…_local_exch`).
    pub fn new(
        kind: BarrierKind,
        args: &mut Args,
        launch: Launch,
    ) -> Result<GridBarrier, WorkloadError> {
        let iters = args.u32("iters", 8)?;
        let num_sm = args.count("num_sm", 4)?;
        let max_blocks = args.count("max_blocks", 16)?;
        let stride = if kind == BarrierKind::LockFree {
            args.count("array_stride", 32)?
        } else {
            0
        };
        let seed = args.u64("seed", 1)?;
        let local_exch = launch
            .entry
            .as_deref()
            .is_some_and(|e| e.ends_with("_local_exch"));
        if launch.block.is_some_and(|b| b != [32, 1, 1]) {
            return Err(WorkloadError::Args(
                "HeteroSync kernels run one warp per TB: block must be [32, 1, 1]".into(),
            ));
        }
        let grid = launch.grid.unwrap_or([16, 1, 1]);
        let g = grid[0];
        if grid[1] != 1 || grid[2] != 1 || g == 0 {
            return Err(WorkloadError::Args(format!(
                "grid {grid:?}: the barriers use a 1-D grid"
            )));
        }
        if g > num_sm && !g.is_multiple_of(num_sm) {
            return Err(WorkloadError::Args(format!(
                "grid {g} with num_sm {num_sm}: HeteroSync's barriers need G <= num_sm or G % num_sm == 0"
            )));
        }
        let n = g.min(num_sm);
        let p = g.div_ceil(n);
        let need_blocks = if kind == BarrierKind::Atomic { 2 } else { p };
        if p > 1 && max_blocks < need_blocks {
            return Err(WorkloadError::Args(format!(
                "max_blocks = {max_blocks} must be at least {need_blocks}"
            )));
        }
        if kind == BarrierKind::LockFree && stride < n {
            return Err(WorkloadError::Args(format!(
                "array_stride = {stride} must be at least {n}"
            )));
        }
        Ok(GridBarrier {
            kind,
            local_exch,
            iters,
            num_sm,
            max_blocks,
            stride,
            seed,
            grid: g,
        })
    }

    /// The data after the episodes, from `init` (the manifests' formula).
    fn reference(&self, init: &[u32]) -> Vec<u32> {
        let g = self.grid as usize;
        let n = self.grid.min(self.num_sm) as usize;
        let p = g.div_ceil(n);
        let exchange = p > 1 && self.local_exch;
        let mut data = init.to_vec();
        let mut c: Vec<usize> = (0..g).collect();
        for i in 0..self.iters {
            for b in 0..g {
                for t in 0..32 {
                    let x = &mut data[c[b] * 32 + t];
                    *x = x
                        .wrapping_mul(33)
                        .wrapping_add(b as u32 + 1)
                        .wrapping_add(i);
                }
            }
            if exchange {
                for cb in c.iter_mut() {
                    *cb = (*cb + n) % g;
                }
                for b in 0..g {
                    for t in 0..32 {
                        let x = &mut data[c[b] * 32 + t];
                        *x = x.wrapping_mul(33).wrapping_add(b as u32 + 1);
                    }
                }
            }
            for cb in c.iter_mut() {
                *cb = (*cb + 1) % g;
            }
        }
        data
    }
}

impl Workload for GridBarrier {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let g = self.grid as usize;
        let mut rng = Rng::new(self.seed);
        let init: Vec<u32> = (0..g * 32).map(|_| rng.next_u32()).collect();
        let data = upload(host, "data", &init)?;
        let progress = upload(host, "progress", &vec![0u32; g])?;
        let barrier_words = if self.kind == BarrierKind::LockFree {
            2 * self.stride as usize
        } else {
            2
        };
        let barrier = upload(host, "barrier", &vec![0u32; barrier_words])?;
        let per_sm_words = 2 * (self.num_sm * self.max_blocks) as usize;
        let per_sm = upload(host, "per_sm_barrier", &vec![0u32; per_sm_words])?;
        let mut args = vec![
            ArgValue::U64(data),
            ArgValue::U64(progress),
            ArgValue::U64(barrier),
            ArgValue::U64(per_sm),
            ArgValue::U32(self.iters),
            ArgValue::U32(self.num_sm),
            ArgValue::U32(self.max_blocks),
        ];
        if self.kind == BarrierKind::LockFree {
            args.push(ArgValue::U32(self.stride));
        }
        host.launch(None, [self.grid, 1, 1], [32, 1, 1], &args)?;
        Ok(Check::all([
            check::exact(
                "data",
                &self.reference(&init),
                &download::<u32>(host, data, g * 32)?,
            ),
            check::exact(
                "progress",
                &vec![self.iters; g],
                &download::<u32>(host, progress, g)?,
            ),
            check::exact(
                "barrier",
                &vec![0u32; barrier_words],
                &download::<u32>(host, barrier, barrier_words)?,
            ),
            check::exact(
                "per_sm_barrier",
                &vec![0u32; per_sm_words],
                &download::<u32>(host, per_sm, per_sm_words)?,
            ),
        ]))
    }
}
