//! HeteroSync locks (`kernels/sync/`): spin mutex, spin mutex with
//! exponential backoff, fetch-and-add ticket lock, decentralized ticket lock
//! (sleep mutex), each in global scope (one lock for the grid) and local
//! scope (one lock per "SM", TB `b` on SM `b % num_sm`).
//!
//! Every thread of a TB increments its own word of the protected data with
//! a plain load and store inside the critical section, `iters` times per
//! TB, so a lock that fails to exclude loses increments. The check covers
//! the data and the final state of the lock words (formulas in each
//! manifest's header).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::Rng;
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Which lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// `spinMutex`: CAS 0→1 retry loop, unlock by exchange.
    Spin,
    /// `spinMutexEBO`: the same with exponential backoff.
    SpinEbo,
    /// `faMutex`: ticket (`atomicInc`) and turn counters.
    FetchAdd,
    /// `sleepMutex`: ring of per-waiter slots.
    Sleep,
}

/// The workload.
pub struct Lock {
    kind: LockKind,
    local: bool,
    mutex: u32,
    iters: u32,
    num_sm: u32,
    seed: u64,
    max_ring: u32,
    stride: u32,
    grid: u32,
}

impl Lock {
    /// Reads `mutex`, `iters`, `num_sm`, `seed` (and for the sleep mutex
    /// `max_ring_buffer_size`, `array_stride`); the scope comes from the
    /// manifest's entry (`…_local`).
    pub fn new(kind: LockKind, args: &mut Args, launch: Launch) -> Result<Lock, WorkloadError> {
        let mutex = args.u32("mutex", 0)?;
        let iters = args.u32("iters", 8)?;
        let num_sm = args.count("num_sm", 4)?;
        let seed = args.u64("seed", 1)?;
        let (max_ring, stride) = if kind == LockKind::Sleep {
            (
                args.count("max_ring_buffer_size", 16)?,
                args.count("array_stride", 32)?,
            )
        } else {
            (0, 0)
        };
        let local = launch
            .entry
            .as_deref()
            .is_some_and(|e| e.ends_with("_local"));
        if launch.block.is_some_and(|b| b != [32, 1, 1]) {
            return Err(WorkloadError::Args(
                "HeteroSync kernels run one warp per TB: block must be [32, 1, 1]".into(),
            ));
        }
        let grid = launch.grid.unwrap_or([16, 1, 1]);
        if grid[1] != 1 || grid[2] != 1 || grid[0] == 0 {
            return Err(WorkloadError::Args(format!(
                "grid {grid:?}: the locks use a 1-D grid"
            )));
        }
        let g = grid[0];
        if kind == LockKind::Sleep {
            let per_ring = if local { g.div_ceil(num_sm) } else { g };
            if stride < max_ring + 1 || per_ring > max_ring + 1 {
                return Err(WorkloadError::Args(format!(
                    "sleep mutex: array_stride ({stride}) must be at least max_ring_buffer_size + 1 ({}), \
                     and at most that many TBs may share a ring ({per_ring} do)",
                    max_ring + 1
                )));
            }
        }
        Ok(Lock {
            kind,
            local,
            mutex,
            iters,
            num_sm,
            seed,
            max_ring,
            stride,
            grid: g,
        })
    }

    /// TBs mapped to SM `s`.
    fn tbs_on(&self, s: u32) -> u32 {
        (self.grid + self.num_sm - 1 - s) / self.num_sm
    }
}

impl Workload for Lock {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let words_per_lock = ((self.mutex + 1) * self.num_sm) as usize;
        let data_words = if self.local {
            self.num_sm as usize * 32
        } else {
            32
        };
        let mut rng = Rng::new(self.seed);
        let init: Vec<u32> = (0..data_words).map(|_| rng.next_u32()).collect();
        let data = upload(host, "data", &init)?;
        let mut expected_data = init.clone();
        for (w, v) in expected_data.iter_mut().enumerate() {
            let tbs = if self.local {
                self.tbs_on((w / 32) as u32)
            } else {
                self.grid
            };
            *v = v.wrapping_add(tbs.wrapping_mul(self.iters));
        }
        // Lock words used: mutex*num_sm (+ s in local scope).
        let used: Vec<(usize, u32)> = if self.local {
            (0..self.num_sm)
                .map(|s| {
                    (
                        (self.mutex * self.num_sm + s) as usize,
                        self.tbs_on(s) * self.iters,
                    )
                })
                .collect()
        } else {
            vec![((self.mutex * self.num_sm) as usize, self.grid * self.iters)]
        };
        let g = [self.grid, 1, 1];
        let b = [32, 1, 1];
        let scalars = [
            ArgValue::U32(self.mutex),
            ArgValue::U32(self.iters),
            ArgValue::U32(self.num_sm),
        ];
        let mut checks = Vec::new();
        match self.kind {
            LockKind::Spin | LockKind::SpinEbo => {
                let heads = upload(host, "heads", &vec![0u32; words_per_lock])?;
                let mut args = vec![ArgValue::U64(heads), ArgValue::U64(data)];
                args.extend(scalars);
                host.launch(None, g, b, &args)?;
                checks.push(check::exact(
                    "heads",
                    &vec![0u32; words_per_lock],
                    &download::<u32>(host, heads, words_per_lock)?,
                ));
            }
            LockKind::FetchAdd => {
                let heads = upload(host, "heads", &vec![0u32; words_per_lock])?;
                let tails = upload(host, "tails", &vec![0u32; words_per_lock])?;
                let mut args = vec![
                    ArgValue::U64(heads),
                    ArgValue::U64(tails),
                    ArgValue::U64(data),
                ];
                args.extend(scalars);
                host.launch(None, g, b, &args)?;
                let mut want = vec![0u32; words_per_lock];
                for &(w, n) in &used {
                    want[w] = n;
                }
                checks.push(check::exact(
                    "heads",
                    &want,
                    &download::<u32>(host, heads, words_per_lock)?,
                ));
                checks.push(check::exact(
                    "tails",
                    &want,
                    &download::<u32>(host, tails, words_per_lock)?,
                ));
            }
            LockKind::Sleep => {
                let stride = self.stride as usize;
                let ring_words = words_per_lock * stride;
                let rings0: Vec<u32> = (0..ring_words)
                    .map(|w| if w % stride == 0 { 1 } else { u32::MAX })
                    .collect();
                let rings = upload(host, "rings", &rings0)?;
                let tails = upload(host, "tails", &vec![0u32; words_per_lock])?;
                let mut args = vec![
                    ArgValue::U64(rings),
                    ArgValue::U64(tails),
                    ArgValue::U64(data),
                ];
                args.extend(scalars);
                args.push(ArgValue::U32(self.max_ring));
                args.push(ArgValue::U32(self.stride));
                host.launch(None, g, b, &args)?;
                let r = self.max_ring + 1;
                let mut want_rings = rings0;
                let mut want_tails = vec![0u32; words_per_lock];
                for &(k, t) in &used {
                    want_tails[k] = t % r;
                    for slot in 0..stride {
                        want_rings[k * stride + slot] =
                            if slot as u32 == t % r { 1 } else { u32::MAX };
                    }
                }
                checks.push(check::exact(
                    "rings",
                    &want_rings,
                    &download::<u32>(host, rings, ring_words)?,
                ));
                checks.push(check::exact(
                    "tails",
                    &want_tails,
                    &download::<u32>(host, tails, words_per_lock)?,
                ));
            }
        }
        checks.insert(
            0,
            check::exact(
                "data",
                &expected_data,
                &download::<u32>(host, data, data_words)?,
            ),
        );
        Ok(Check::all(checks))
    }
}
