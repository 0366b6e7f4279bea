//! The single-kernel workloads of the correlation set
//! (`kernels/correlation/*.cu`, compiled by nvcc 13.5; see
//! `docs/kernels.md`): one launch each over seeded random inputs, checked
//! against [`reference::correlation`].
//!
//! Each kind names its inputs (so `--dump NAME=FILE` reads them back, e.g.
//! to feed another simulator the same data) and its parameters in kernel
//! order:
//!
//! | workload | kernel | parameters | inputs (streams of `seed`) |
//! |---|---|---|---|
//! | `stream_triad` | `stream_triad` | `a, b, c, s, n` | `b`, `c`: f32 in [-1, 1] (0, 1) |
//! | `compute_fma` | `compute_fma` | `out, in, a, b, iters, n` | `in`: f32 in [-1, 1] (0) |
//! | `sfu_mix` | `sfu_mix` | `out, in, iters, n` | `in`: f32 in [0, 1] (0) |
//! | `divergent_loop` | `divergent_loop` | `steps, start, max_steps, n` | `start`: u32 in [1, max_start) (0) |
//! | `reduce_tree` | `reduce_tree` | `partial, in, n` | `in`: f32 in [-1, 1] (0) |
//! | `transpose` | `transpose_naive`, `transpose_padded` | `out, in, cols, rows` | `in`: f32 in [-1, 1] (0) |
//! | `atomic_hist` | `atomic_hist` | `bins, data, n` | `data`: u32 (0) |
//! | `gather_random` | `gather_random` | `out, src, idx, n` | `src`: f32 in [-1, 1] (0), `idx`: i32 in [0, src_len) (1) |
//!
//! (`matmul_tiled` and `spmv_csr` keep the parameter lists of
//! `kernels/matmul.ptx` and SHOC's SPMV-scalar and run under the
//! `matmul` and `spmv_scalar` workloads.)

use super::{block_1d, block_fixed, grid_stride, int_arg, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed, uniform_f32, uniform_u32};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::reference::correlation as reference;
use crate::workload::{Launch, Workload};

/// Which kernel of the set, with its arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// `a[i] = b[i] + s * c[i]` over `n` floats.
    StreamTriad {
        /// Elements.
        n: u32,
        /// The scale `s`.
        s: f32,
    },
    /// `iters` rounds of five FMAs per thread, `n` threads.
    ComputeFma {
        /// Threads (one input each).
        n: u32,
        /// Rounds.
        iters: u32,
        /// Multiplier of every chain.
        a: f32,
        /// Addend of the x chains.
        b: f32,
    },
    /// `iters` steps of `__sinf`, `__expf`, `rsqrtf` per thread.
    SfuMix {
        /// Threads.
        n: u32,
        /// Steps.
        iters: u32,
    },
    /// Collatz steps of `n` start values.
    DivergentLoop {
        /// Threads.
        n: u32,
        /// Bound on the steps counted.
        max_steps: u32,
        /// Start values are below this.
        max_start: u32,
    },
    /// One 256-element tree sum per CTA over `n` floats.
    ReduceTree {
        /// Elements.
        n: u32,
    },
    /// Transpose of a `rows x cols` matrix in 32x32 tiles.
    Transpose {
        /// Rows of the input (a multiple of 32).
        rows: u32,
        /// Columns of the input (a multiple of 32).
        cols: u32,
    },
    /// 64-bin global-atomic histogram of `n` words.
    AtomicHist {
        /// Words.
        n: u32,
    },
    /// `out[i] = src[idx[i]]`, `n` threads, `src_len` sources.
    GatherRandom {
        /// Threads.
        n: u32,
        /// Elements of `src`.
        src_len: u32,
    },
}

/// `reduce_tree`'s compiled-in CTA size.
const REDUCE_BLOCK: u32 = 256;
/// The transpose kernels' tile edge and rows per pass.
const TILE: u32 = 32;
/// Threads per CTA along y of the transpose kernels (each copies
/// `TILE / TILE_ROWS` rows of the tile).
const TILE_ROWS: u32 = 8;
/// `atomic_hist`'s bins.
const BINS: usize = 64;

/// One workload of the set.
pub struct Correlation {
    kind: Kind,
    seed: u64,
    launch: Launch,
}

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

impl Correlation {
    /// The workload `name` (one of the table's), reading its arguments:
    /// `n` and `seed` (default 1) for all but `transpose` (`rows`,
    /// `cols`); `s` (3.0) for `stream_triad`; `iters`, `a` (0.75), `b`
    /// (0.25) for `compute_fma`; `iters` for `sfu_mix`; `max_steps`
    /// (1000), `max_start` (10000) for `divergent_loop`; `src_len` for
    /// `gather_random`.
    pub fn new(name: &str, args: &mut Args, launch: Launch) -> Result<Correlation, WorkloadError> {
        let kind = match name {
            "stream_triad" => Kind::StreamTriad {
                n: args.count("n", 1 << 18)?,
                s: f32_arg(args, "s", 3.0)?,
            },
            "compute_fma" => Kind::ComputeFma {
                n: args.count("n", 1 << 14)?,
                iters: args.u32("iters", 128)?,
                a: f32_arg(args, "a", 0.75)?,
                b: f32_arg(args, "b", 0.25)?,
            },
            "sfu_mix" => Kind::SfuMix {
                n: args.count("n", 1 << 14)?,
                iters: args.u32("iters", 64)?,
            },
            "divergent_loop" => {
                let n = args.count("n", 1 << 14)?;
                let max_steps = args.u32("max_steps", 1000)?;
                let max_start = args.count("max_start", 10000)?;
                int_arg("max_steps", u64::from(max_steps))?;
                if max_start < 2 {
                    return Err(WorkloadError::Args(
                        "`max_start` must be at least 2 (start values are 1 ..= max_start - 1)"
                            .into(),
                    ));
                }
                Kind::DivergentLoop {
                    n,
                    max_steps,
                    max_start,
                }
            }
            "reduce_tree" => Kind::ReduceTree {
                n: args.count("n", 1 << 18)?,
            },
            "transpose" => {
                let rows = args.count("rows", 512)?;
                let cols = args.count("cols", 512)?;
                if rows % TILE != 0 || cols % TILE != 0 {
                    return Err(WorkloadError::Args(format!(
                        "transpose needs rows and cols that are multiples of {TILE} (the tile), got {rows} x {cols}"
                    )));
                }
                int_arg("rows * cols", u64::from(rows) * u64::from(cols))?;
                Kind::Transpose { rows, cols }
            }
            "atomic_hist" => Kind::AtomicHist {
                n: args.count("n", 1 << 18)?,
            },
            "gather_random" => {
                let n = args.count("n", 1 << 16)?;
                let src_len = args.count("src_len", 1 << 20)?;
                int_arg("src_len", u64::from(src_len))?;
                Kind::GatherRandom { n, src_len }
            }
            other => {
                return Err(WorkloadError::Args(format!(
                    "`{other}` is not a correlation workload"
                )));
            }
        };
        let n = match kind {
            Kind::StreamTriad { n, .. }
            | Kind::ComputeFma { n, .. }
            | Kind::SfuMix { n, .. }
            | Kind::DivergentLoop { n, .. }
            | Kind::ReduceTree { n }
            | Kind::AtomicHist { n }
            | Kind::GatherRandom { n, .. } => n,
            Kind::Transpose { .. } => 1,
        };
        int_arg("n", u64::from(n))?;
        let w = Correlation {
            kind,
            seed: args.u64("seed", 1)?,
            launch,
        };
        w.shape()?;
        Ok(w)
    }

    /// The kernel's name (for messages).
    fn kernel(&self) -> &'static str {
        match self.kind {
            Kind::StreamTriad { .. } => "stream_triad",
            Kind::ComputeFma { .. } => "compute_fma",
            Kind::SfuMix { .. } => "sfu_mix",
            Kind::DivergentLoop { .. } => "divergent_loop",
            Kind::ReduceTree { .. } => "reduce_tree",
            Kind::Transpose { .. } => "transpose",
            Kind::AtomicHist { .. } => "atomic_hist",
            Kind::GatherRandom { .. } => "gather_random",
        }
    }

    /// Grid and block: one thread per element (1-D, default 256 threads
    /// per CTA) for the elementwise kinds; `reduce_tree` needs 256-thread
    /// CTAs, one per 256 elements; `transpose` needs `[32, 8, 1]` CTAs,
    /// one per 32x32 tile; `atomic_hist` takes any 1-D grid (grid-stride
    /// loop; default one thread per word).
    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let k = self.kernel();
        match self.kind {
            Kind::ReduceTree { n } => {
                let block = block_fixed(k, &self.launch, [REDUCE_BLOCK, 1, 1])?;
                one_thread_per(k, &self.launch, block, "element", u64::from(n))
            }
            Kind::Transpose { rows, cols } => {
                let block = block_fixed(k, &self.launch, [TILE, TILE_ROWS, 1])?;
                let want = [cols / TILE, rows / TILE, 1];
                let grid = self.launch.grid_or(want);
                if grid != want {
                    return Err(WorkloadError::Args(format!(
                        "transpose of {rows} x {cols} needs grid [{}, {}, 1] (one CTA per 32 x 32 tile), got [{}, {}, {}]",
                        want[0], want[1], grid[0], grid[1], grid[2]
                    )));
                }
                Ok((grid, block))
            }
            Kind::AtomicHist { n } => {
                let block = block_1d(k, &self.launch, 256)?;
                // Any grid covers the words (grid-stride loop).
                grid_stride(k, &self.launch, block, "word", u64::from(n))
            }
            Kind::StreamTriad { n, .. }
            | Kind::ComputeFma { n, .. }
            | Kind::SfuMix { n, .. }
            | Kind::DivergentLoop { n, .. }
            | Kind::GatherRandom { n, .. } => {
                let block = block_1d(k, &self.launch, 256)?;
                one_thread_per(k, &self.launch, block, "element", u64::from(n))
            }
        }
    }
}

impl Workload for Correlation {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let seed = |s| stream_seed(self.seed, s);
        let f32s = |n: u32, s| uniform_f32(n as usize, -1.0, 1.0, seed(s));
        let launch = |host: &mut dyn Host, args: &[ArgValue]| host.launch(None, grid, block, args);
        Ok(match self.kind {
            Kind::StreamTriad { n, s } => {
                let (b, c) = (f32s(n, 0), f32s(n, 1));
                let da = upload(host, "a", &vec![f32::NAN; n as usize])?;
                let db = upload(host, "b", &b)?;
                let dc = upload(host, "c", &c)?;
                launch(
                    host,
                    &[
                        ArgValue::U64(da),
                        ArgValue::U64(db),
                        ArgValue::U64(dc),
                        ArgValue::F32(s),
                        ArgValue::S32(n as i32),
                    ],
                )?;
                let a: Vec<f32> = download(host, da, n as usize)?;
                check::exact("a", &reference::stream_triad(&b, &c, s), &a)
            }
            Kind::ComputeFma { n, iters, a, b } => {
                let input = f32s(n, 0);
                let dout = upload(host, "out", &vec![f32::NAN; n as usize])?;
                let din = upload(host, "in", &input)?;
                launch(
                    host,
                    &[
                        ArgValue::U64(dout),
                        ArgValue::U64(din),
                        ArgValue::F32(a),
                        ArgValue::F32(b),
                        ArgValue::S32(int_arg("iters", u64::from(iters))?),
                        ArgValue::S32(n as i32),
                    ],
                )?;
                let out: Vec<f32> = download(host, dout, n as usize)?;
                check::exact("out", &reference::compute_fma(&input, a, b, iters), &out)
            }
            Kind::SfuMix { n, iters } => {
                let input = uniform_f32(n as usize, 0.0, 1.0, seed(0));
                let dout = upload(host, "out", &vec![f32::NAN; n as usize])?;
                let din = upload(host, "in", &input)?;
                launch(
                    host,
                    &[
                        ArgValue::U64(dout),
                        ArgValue::U64(din),
                        ArgValue::S32(int_arg("iters", u64::from(iters))?),
                        ArgValue::S32(n as i32),
                    ],
                )?;
                let out: Vec<f32> = download(host, dout, n as usize)?;
                check::close_f32("out", &reference::sfu_mix(&input, iters), &out, 1e-3, 1e-3)
            }
            Kind::DivergentLoop {
                n,
                max_steps,
                max_start,
            } => {
                let mut rng = Rng::new(seed(0));
                let start: Vec<u32> = (0..n)
                    .map(|_| 1 + rng.below(u64::from(max_start - 1)) as u32)
                    .collect();
                let dsteps = upload(host, "steps", &vec![i32::MIN; n as usize])?;
                let dstart = upload(host, "start", &start)?;
                let max_steps = max_steps as i32;
                launch(
                    host,
                    &[
                        ArgValue::U64(dsteps),
                        ArgValue::U64(dstart),
                        ArgValue::S32(max_steps),
                        ArgValue::S32(n as i32),
                    ],
                )?;
                let steps: Vec<i32> = download(host, dsteps, n as usize)?;
                check::exact(
                    "steps",
                    &reference::divergent_loop(&start, max_steps),
                    &steps,
                )
            }
            Kind::ReduceTree { n } => {
                let input = f32s(n, 0);
                let ctas = grid[0] as usize;
                let dpartial = upload(host, "partial", &vec![f32::NAN; ctas])?;
                let din = upload(host, "in", &input)?;
                launch(
                    host,
                    &[
                        ArgValue::U64(dpartial),
                        ArgValue::U64(din),
                        ArgValue::S32(n as i32),
                    ],
                )?;
                let partial: Vec<f32> = download(host, dpartial, ctas)?;
                let want = reference::reduce_tree(&input, REDUCE_BLOCK as usize, ctas);
                check::exact("partial", &want, &partial)
            }
            Kind::Transpose { rows, cols } => {
                let len = rows * cols;
                let input = f32s(len, 0);
                let dout = upload(host, "out", &vec![f32::NAN; len as usize])?;
                let din = upload(host, "in", &input)?;
                launch(
                    host,
                    &[
                        ArgValue::U64(dout),
                        ArgValue::U64(din),
                        ArgValue::S32(cols as i32),
                        ArgValue::S32(rows as i32),
                    ],
                )?;
                let out: Vec<f32> = download(host, dout, len as usize)?;
                let want = reference::transpose(&input, rows as usize, cols as usize);
                check::exact("out", &want, &out)
            }
            Kind::AtomicHist { n } => {
                let data = uniform_u32(n as usize, seed(0));
                let dbins = upload(host, "bins", &[0u32; BINS])?;
                let ddata = upload(host, "data", &data)?;
                launch(
                    host,
                    &[
                        ArgValue::U64(dbins),
                        ArgValue::U64(ddata),
                        ArgValue::S32(n as i32),
                    ],
                )?;
                let bins: Vec<u32> = download(host, dbins, BINS)?;
                check::exact("bins", &reference::histogram_low_bits(&data, BINS), &bins)
            }
            Kind::GatherRandom { n, src_len } => {
                let src = f32s(src_len, 0);
                let mut rng = Rng::new(seed(1));
                let idx: Vec<i32> = (0..n)
                    .map(|_| rng.below(u64::from(src_len)) as i32)
                    .collect();
                let dout = upload(host, "out", &vec![f32::NAN; n as usize])?;
                let dsrc = upload(host, "src", &src)?;
                let didx = upload(host, "idx", &idx)?;
                launch(
                    host,
                    &[
                        ArgValue::U64(dout),
                        ArgValue::U64(dsrc),
                        ArgValue::U64(didx),
                        ArgValue::S32(n as i32),
                    ],
                )?;
                let out: Vec<f32> = download(host, dout, n as usize)?;
                check::exact("out", &reference::gather_indexed(&src, &idx), &out)
            }
        })
    }
}
