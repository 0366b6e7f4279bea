//! Host programs of the shipped kernels, one file each.
//!
//! | manifest `workload` | driver | kernel(s) | checks |
//! |---|---|---|---|
//! | `buffers` | [`buffers::Buffers`] | any | the manifest's `expect` / `expect_file` |
//! | `spin_mutex`, `spin_mutex_ebo`, `fa_mutex`, `sleep_mutex` | [`sync_lock::Lock`] | `kernels/sync/*` (global and local scope) | protected data and lock words exact |
//! | `atomic_tree_barrier`, `lf_tree_barrier` | [`sync_barrier::GridBarrier`] | `kernels/sync/*` (plain and local exchange) | episode data, progress, barrier words exact |
//! | `ticket_lock` | [`sync_ticket::TicketLock`] | `ticket_lock_cmpwait`, `ticket_lock_wait` (`kernels/sync/`, AWG Fig. 10) | protected data, queue entries and tail exact |
//! | `hash_table` | [`sync_hash_table::HashTable`] | `hash_table` (`kernels/sync/`) | per-bucket counts exact, per-bucket key multisets exact, locks 0 |
//! | `bank_account` | [`sync_bank_account::BankAccount`] | `bank_account` (`kernels/sync/`) | every balance exact (CPU replay), total conserved, locks 0 |
//! | `vector_add` | [`vector_add::VectorAdd`] | `vector_add` | `c` exact |
//! | `spmv_scalar` | [`spmv_scalar::SpmvScalar`] | `spmv_csr_scalar_kernel` | `out` exact |
//! | `spmv_vector` | [`spmv_vector::SpmvVector`] | `spmv_csr_vector_kernel` | `out` exact (and rel 1e-5 of the sequential sum) |
//! | `fwt` | [`fwt::Fwt`] | `fwtBatch2Kernel`, `fwtBatch1Kernel` | `d_Kernel`, `d_Data` exact |
//! | `scalar_product` | [`scalar_product::ScalarProduct`] | `scalarProdGPU` | `d_C` exact |
//! | `matmul` | [`matmul::Matmul`] | `matmul_tiled` | `C` exact |
//! | `histogram256` | [`histogram256::Histogram256`] | `histogram256` | `d_Histogram` exact |
//! | `stencil2d` | [`stencil2d::Stencil2d`] | `stencil2d` | the result buffer exact |
//! | `bfs` | [`bfs::Bfs`] | `bfs_kernel`, `bfs_kernel2` | `cost` exact, `rounds` exact |
//! | `kmeans` | [`kmeans::Kmeans`] | `kmeansPoint` | `membership` exact |
//! | `gather` | [`gather::Gather`] | `pointer_chase` | `out` exact |
//! | `chase` | [`chase::Chase`] | `chase_8`, `chase_16` (micro) | `out` exact |
//! | `rodinia_bfs` | [`bfs::Bfs`] | `Kernel`, `Kernel2` (nvcc) | `g_cost`, `rounds` exact |
//! | `pathfinder` | [`pathfinder::Pathfinder`] | `dynproc_kernel` | final cost row exact |
//! | `hotspot` | [`hotspot::Hotspot`] | `calculate_temp` | temperatures exact |
//! | `gaussian` | [`gaussian::Gaussian`] | `Fan1`, `Fan2` | `m`, `a`, `b`, host `x` exact |
//! | `needle` | [`needle::Needle`] | `needle_cuda_shared_1`, `_2` | score matrix exact |
//! | `srad` | [`srad::Srad`] | `srad_cuda_1`, `srad_cuda_2` | `J`, `C` exact |
//! | `backprop` | [`backprop::Backprop`] | `bpnn_layerforward_CUDA`, `bpnn_adjust_weights_cuda` | partial sums, weights, changes exact |
//! | `histogram256_sdk` | [`histogram256_sdk::Histogram256Sdk`] | `histogram256Kernel`, `mergeHistogram256Kernel` | partial and merged histograms exact |
//! | `merge_sort` | [`merge_sort::MergeSort`] | `mergeSortSharedKernel` (`kernels/baws/`) | `d_DstKey`, `d_DstVal` exact |
//! | `btree` | [`btree::Btree`] | `findK`, `findRangeK` (`kernels/baws/`) | `ansD`, `RecstartD`, `ReclenD` exact |
//! | `page_view_count` | [`page_view_count::PageViewCount`] | `pageViewCount` (`kernels/baws/`) | per-chunk URLs, views, URL counts and per-URL totals exact |
//! | `mri_gridding` | [`mri_gridding::MriGridding`] | `gridding` (`kernels/baws/`) | `d_Grid` exact |
//! | `page_view_rank` | [`page_view_rank::PageViewRank`] | `pageViewRank` (`kernels/baws/`) | per-chunk ranked URLs, views and ranks exact |
//! | `octree_partition` | [`octree_partition::OctreePartition`] | `octreePartition` (`kernels/baws/`) | octant counts per level, final particle order exact |
//! | `similarity_score` | [`similarity_score::SimilarityScore`] | `similarityScore` (`kernels/baws/`) | `sim` exact |
//! | `nearest_neighbor` | [`nearest_neighbor::NearestNeighbor`] | `euclid` (`kernels/lfws/`) | `d_distances` exact, the `k` nearest records exact |
//! | `laplace3d` | [`laplace3d::Laplace3d`] | `laplace3d` (`kernels/lfws/`) | the last two Jacobi iterates (`d_u1`, `d_u2`) exact |
//! | `estimate_pi` | [`estimate_pi::EstimatePi`] | `initRNG`, `computeValue` (`kernels/lfws/`) | thread states and per-CTA hit counts exact |
//! | `asian_option` | [`asian_option::AsianOption`] | `initRNG`, `generatePaths`, `computeValue` (`kernels/lfws/`) | thread states, paths and per-CTA payoff sums exact |
//! | `mummer` | [`mummer::Mummer`] | `mummergpuKernel` (`kernels/blws/`) | `d_MatchCoords` exact (suffix-array reference) |
//! | `storegpu` | [`storegpu::StoreGpu`] | `md5Chunks` (`kernels/blws/`) | `d_Hashes` exact (MD5 per chunk) |
//! | `simple_multigpu` | [`simple_multigpu::SimpleMultiGpu`] | `reduceKernel` (`kernels/blws/`) | `d_Result` exact |
//! | `monte_carlo` | [`monte_carlo::MonteCarlo`] | `MonteCarloOneBlockPerOption` (`kernels/blws/`) | `d_CallValue` exact |
//! | `libor` | [`libor::Libor`] | `pathcalcPortfolio`, `pathcalcPortfolioGreeks` (`kernels/ispass/`) | `d_v`, `d_vGreeks`, `d_Lb` within rel 1e-5 |
//! | `neural_network` | [`neural_network::NeuralNetwork`] | `executeFirstLayer`, `executeSecondLayer` (`kernels/ispass/`) | `Layer2_Neurons`, `Layer3_Neurons` exact |
//! | `ray_tracing` | [`ray_tracing::RayTracing`] | `render` (`kernels/ispass/`) | `result` exact |
//! | `stencil2d_shared` | [`stencil2d_shared::Stencil2dShared`] | `stencil2d_shared` (`kernels/holdout/`, held-out correlation) | `out` exact |
//! | `strided_copy` | [`strided_copy::StridedCopy`] | `strided_copy` (`kernels/holdout/`, held-out correlation) | `out` exact |
//! | `gemv_rowmajor` | [`gemv_rowmajor::GemvRowMajor`] | `gemv_rowmajor` (`kernels/holdout/`, held-out correlation) | `y` exact (inputs in eighths: every partial sum exact) |
//!
//! | `stream_triad`, `compute_fma`, `sfu_mix`, `divergent_loop`, `reduce_tree`, `transpose`, `atomic_hist`, `gather_random` | [`correlation::Correlation`] | `kernels/correlation/*` (nvcc) | the output buffer exact (`sfu_mix`: rel 1e-3) |
//!
//! Held-out correlation kernels (`kernels/holdout/`, never used to calibrate):
//!
//! | manifest `workload` | driver | kernel(s) | checks |
//! |---|---|---|---|
//! | `block_scan` | [`block_scan::BlockScan`] | `block_scan` (`kernels/holdout/`) | `out` exact (per-block prefix sums) |
//! | `warp_shared_reduce` | [`warp_shared_reduce::WarpSharedReduce`] | `warp_shared_reduce` (`kernels/holdout/`) | `result` exact (wrapping sum) |
//! | `bitonic_sort_shared` | [`bitonic_sort_shared::BitonicSortShared`] | `bitonic_sort_shared` (`kernels/holdout/`) | `keys` exact (each 512-key block sorted) |
//! | `dp_axpby` | [`dp_axpby::DpAxpby`] | `dp_axpby` (`kernels/holdout/`) | `y` exact (inputs in 1/1024, coefficients in eighths: every fp64 step exact) |
//! | `nbody_tiled` | [`nbody_tiled::NbodyTiled`] | `nbody_tiled` (`kernels/holdout/`) | `acc` within `(m + 32) 2^-24` times the sum of the terms' magnitudes of an `f64` reference (`m` terms per sum) |
//! | `kmeans_assign` | [`kmeans_assign::KmeansAssign`] | `kmeans_assign` (`kernels/holdout/`) | `assign` exact (features in eighths: distances exact, ties to the lower index) |
//! | `blackscholes` | [`blackscholes::Blackscholes`] | `blackscholes` (`kernels/holdout/`) | `call`, `put` within `2^-18 (S + X)` of an `f64` reference |
//!
//! The nvcc-compiled benchmarks (`kernels/rodinia/`, `kernels/sdk/`, `kernels/baws/`, `kernels/blws/`) keep
//! their input builders and references in their driver files.
//!
//! Inputs come from [`crate::workload::generate`]'s `*_input` builders and
//! expected outputs from [`crate::workload::reference`], whose functions
//! reproduce each kernel's floating-point operations in the kernel's order,
//! so float outputs are compared exactly too. Output buffers the kernel
//! must overwrite completely are pre-filled with a sentinel (NaN for
//! floats, `i32::MIN` for integers), so an element the kernel fails to
//! write is a mismatch rather than a lucky zero.

pub mod backprop;
pub mod bfs;
pub mod btree;
pub mod buffers;
pub mod chase;
pub mod correlation;
pub mod fwt;
pub mod gather;
pub mod gaussian;
pub mod histogram256;
pub mod histogram256_sdk;
pub mod hotspot;
pub mod kmeans;
pub mod libor;
pub mod matmul;
pub mod merge_sort;
pub mod monte_carlo;
pub mod mri_gridding;
pub mod mummer;
pub mod needle;
pub mod neural_network;
pub mod octree_partition;
pub mod page_view_count;
pub mod page_view_rank;
pub mod pathfinder;
pub mod ray_tracing;
pub mod scalar_product;
pub mod similarity_score;
pub mod simple_multigpu;
pub mod spmv_scalar;
pub mod spmv_vector;
pub mod srad;
pub mod stencil2d;
pub mod storegpu;
pub mod sync_bank_account;
pub mod sync_barrier;
pub mod sync_hash_table;
pub mod sync_lock;
pub mod sync_ticket;
pub mod vector_add;

pub mod asian_option;
pub mod estimate_pi;
pub mod laplace3d;
pub mod nearest_neighbor;
pub mod xorshift_jump;

pub mod bitonic_sort_shared;
pub mod blackscholes;
pub mod block_scan;
pub mod dp_axpby;
pub mod gemv_rowmajor;
pub mod kmeans_assign;
pub mod nbody_tiled;
pub mod stencil2d_shared;
pub mod strided_copy;
pub mod warp_shared_reduce;

use crate::workload::Launch;
use crate::workload::args::Args;
use crate::workload::host::WorkloadError;

/// Most threads a CTA may have (CUDA's limit).
const MAX_BLOCK_THREADS: u64 = 1024;

/// `v` as a kernel `int`, or an argument error naming `what`.
fn int_arg(what: &str, v: u64) -> Result<i32, WorkloadError> {
    i32::try_from(v).map_err(|_| {
        WorkloadError::Args(format!(
            "{what} = {v} does not fit the kernel's `int` (at most {})",
            i32::MAX
        ))
    })
}

/// A finite, non-negative float argument.
fn nonneg_f64(args: &mut Args, key: &str, default: f64) -> Result<f64, WorkloadError> {
    let v = args.f64(key, default)?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(WorkloadError::Args(format!(
            "`{key}` = {v} must be a finite number >= 0"
        )))
    }
}

/// The TB count of a HeteroSync-shaped kernel (`kernels/sync/`): one warp
/// per TB (block `[32, 1, 1]`, the default) and a 1-D grid (default 16 TBs).
fn one_warp_tbs(kernel: &str, launch: &Launch) -> Result<u32, WorkloadError> {
    let b = launch.block_or([32, 1, 1]);
    if b != [32, 1, 1] {
        return Err(WorkloadError::Args(format!(
            "{kernel} runs one warp per TB: block must be [32, 1, 1], got {}",
            shape(b)
        )));
    }
    let g = launch.grid_or([16, 1, 1]);
    if g[1] != 1 || g[2] != 1 || g[0] == 0 {
        return Err(WorkloadError::Args(format!(
            "{kernel} needs a 1-D grid [x, 1, 1] with x >= 1, got {}",
            shape(g)
        )));
    }
    Ok(g[0])
}

fn shape(v: [u32; 3]) -> String {
    format!("[{}, {}, {}]", v[0], v[1], v[2])
}

/// The manifest's block, or `[default, 1, 1]`; must be 1-D with at most
/// 1024 threads.
fn block_1d(kernel: &str, launch: &Launch, default: u32) -> Result<[u32; 3], WorkloadError> {
    let b = launch.block_or([default, 1, 1]);
    if b[1] != 1 || b[2] != 1 || b[0] == 0 || u64::from(b[0]) > MAX_BLOCK_THREADS {
        return Err(WorkloadError::Args(format!(
            "{kernel} needs a 1-D block [x, 1, 1] with 1 <= x <= {MAX_BLOCK_THREADS}, got {}",
            shape(b)
        )));
    }
    Ok(b)
}

/// A fixed 2-D block (the kernel's tile size).
fn block_fixed(
    kernel: &str,
    launch: &Launch,
    required: [u32; 3],
) -> Result<[u32; 3], WorkloadError> {
    let b = launch.block_or(required);
    if b != required {
        return Err(WorkloadError::Args(format!(
            "{kernel} needs block {} (its tile size is fixed), got {}",
            shape(required),
            shape(b)
        )));
    }
    Ok(b)
}

/// `block` and a 1-D grid of one thread per `item` (`"element"`, `"row"`,
/// ...), `n` of them: the manifest's grid, which must cover them, or
/// `ceil(n / block_x)` CTAs.
fn one_thread_per(
    kernel: &str,
    launch: &Launch,
    block: [u32; 3],
    item: &str,
    n: u64,
) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
    let why = format!("one per {item}");
    let grid = grid_1d(kernel, launch, block[0], Some((&why, n)))?;
    Ok((grid, block))
}

/// `block` and a 1-D grid for a grid-stride kernel over `n` items
/// (`"element"`, `"option"`, ...): the manifest's grid, of any size, or
/// one thread per item.
fn grid_stride(
    kernel: &str,
    launch: &Launch,
    block: [u32; 3],
    item: &str,
    n: u64,
) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
    if launch.grid.is_some() {
        return Ok((grid_1d(kernel, launch, block[0], None)?, block));
    }
    one_thread_per(kernel, launch, block, item, n)
}

/// The manifest's grid, or `[ceil(threads / block_x), 1, 1]`; must be 1-D
/// and, when `threads` is `Some((why, t))`, run at least `t` threads.
fn grid_1d(
    kernel: &str,
    launch: &Launch,
    block_x: u32,
    threads: Option<(&str, u64)>,
) -> Result<[u32; 3], WorkloadError> {
    let need = threads.map_or(1, |(_, t)| t.div_ceil(u64::from(block_x)).max(1));
    let default = u32::try_from(need).map_err(|_| {
        WorkloadError::Args(format!("{kernel}: {need} CTAs are more than a grid holds"))
    })?;
    let g = launch.grid_or([default, 1, 1]);
    if g[1] != 1 || g[2] != 1 || g[0] == 0 {
        return Err(WorkloadError::Args(format!(
            "{kernel} needs a 1-D grid [x, 1, 1] with x >= 1, got {}",
            shape(g)
        )));
    }
    if let Some((what, t)) = threads
        && u64::from(g[0]) * u64::from(block_x) < t
    {
        return Err(WorkloadError::Args(format!(
            "grid {} x block [{block_x}, 1, 1] runs {} threads, but {kernel} needs {t} ({what}): use grid [{need}, 1, 1]",
            shape(g),
            u64::from(g[0]) * u64::from(block_x)
        )));
    }
    Ok(g)
}
