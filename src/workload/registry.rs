//! Workload names → constructors.

use crate::workload::args::Args;
use crate::workload::drivers;
use crate::workload::host::WorkloadError;
use crate::workload::{Launch, Workload};

/// A constructor: reads its arguments, returns the workload.
pub type Constructor = fn(&mut Args, Launch) -> Result<Box<dyn Workload>, WorkloadError>;

/// Every workload, by manifest name (the `workload = "…"` of
/// `kernels/*.toml`); see [`drivers`] for what each checks.
pub const WORKLOADS: &[(&str, Constructor)] = &[
    ("atomic_tree_barrier", |a, l| {
        Ok(Box::new(drivers::sync_barrier::GridBarrier::new(
            drivers::sync_barrier::BarrierKind::Atomic,
            a,
            l,
        )?))
    }),
    ("backprop", |a, l| {
        Ok(Box::new(drivers::backprop::Backprop::new(a, l)?))
    }),
    ("bfs", |a, l| {
        Ok(Box::new(drivers::bfs::Bfs::new(
            a,
            l,
            drivers::bfs::Layout::Csr,
        )?))
    }),
    ("btree", |a, l| {
        Ok(Box::new(drivers::btree::Btree::new(a, l)?))
    }),
    ("chase", |a, l| {
        Ok(Box::new(drivers::chase::Chase::new(a, l)?))
    }),
    ("buffers", |a, l| {
        Ok(Box::new(drivers::buffers::Buffers::new(a, l)?))
    }),
    ("fa_mutex", |a, l| {
        Ok(Box::new(drivers::sync_lock::Lock::new(
            drivers::sync_lock::LockKind::FetchAdd,
            a,
            l,
        )?))
    }),
    ("fwt", |a, l| Ok(Box::new(drivers::fwt::Fwt::new(a, l)?))),
    ("lf_tree_barrier", |a, l| {
        Ok(Box::new(drivers::sync_barrier::GridBarrier::new(
            drivers::sync_barrier::BarrierKind::LockFree,
            a,
            l,
        )?))
    }),
    ("sleep_mutex", |a, l| {
        Ok(Box::new(drivers::sync_lock::Lock::new(
            drivers::sync_lock::LockKind::Sleep,
            a,
            l,
        )?))
    }),
    ("spin_mutex", |a, l| {
        Ok(Box::new(drivers::sync_lock::Lock::new(
            drivers::sync_lock::LockKind::Spin,
            a,
            l,
        )?))
    }),
    ("spin_mutex_ebo", |a, l| {
        Ok(Box::new(drivers::sync_lock::Lock::new(
            drivers::sync_lock::LockKind::SpinEbo,
            a,
            l,
        )?))
    }),
    ("ticket_lock", |a, l| {
        Ok(Box::new(drivers::sync_ticket::TicketLock::new(a, l)?))
    }),
    ("hash_table", |a, l| {
        Ok(Box::new(drivers::sync_hash_table::HashTable::new(a, l)?))
    }),
    ("bank_account", |a, l| {
        Ok(Box::new(drivers::sync_bank_account::BankAccount::new(
            a, l,
        )?))
    }),
    ("gather", |a, l| {
        Ok(Box::new(drivers::gather::Gather::new(a, l)?))
    }),
    ("gaussian", |a, l| {
        Ok(Box::new(drivers::gaussian::Gaussian::new(a, l)?))
    }),
    ("histogram256", |a, l| {
        Ok(Box::new(drivers::histogram256::Histogram256::new(a, l)?))
    }),
    ("histogram256_sdk", |a, l| {
        Ok(Box::new(drivers::histogram256_sdk::Histogram256Sdk::new(
            a, l,
        )?))
    }),
    ("hotspot", |a, l| {
        Ok(Box::new(drivers::hotspot::Hotspot::new(a, l)?))
    }),
    ("kmeans", |a, l| {
        Ok(Box::new(drivers::kmeans::Kmeans::new(a, l)?))
    }),
    ("matmul", |a, l| {
        Ok(Box::new(drivers::matmul::Matmul::new(a, l)?))
    }),
    ("merge_sort", |a, l| {
        Ok(Box::new(drivers::merge_sort::MergeSort::new(a, l)?))
    }),
    ("mri_gridding", |a, l| {
        Ok(Box::new(drivers::mri_gridding::MriGridding::new(a, l)?))
    }),
    ("needle", |a, l| {
        Ok(Box::new(drivers::needle::Needle::new(a, l)?))
    }),
    ("octree_partition", |a, l| {
        Ok(Box::new(drivers::octree_partition::OctreePartition::new(
            a, l,
        )?))
    }),
    ("page_view_count", |a, l| {
        Ok(Box::new(drivers::page_view_count::PageViewCount::new(
            a, l,
        )?))
    }),
    ("page_view_rank", |a, l| {
        Ok(Box::new(drivers::page_view_rank::PageViewRank::new(a, l)?))
    }),
    ("pathfinder", |a, l| {
        Ok(Box::new(drivers::pathfinder::Pathfinder::new(a, l)?))
    }),
    ("rodinia_bfs", |a, l| {
        Ok(Box::new(drivers::bfs::Bfs::new(
            a,
            l,
            drivers::bfs::Layout::Nodes,
        )?))
    }),
    ("scalar_product", |a, l| {
        Ok(Box::new(drivers::scalar_product::ScalarProduct::new(a, l)?))
    }),
    ("similarity_score", |a, l| {
        Ok(Box::new(drivers::similarity_score::SimilarityScore::new(
            a, l,
        )?))
    }),
    ("spmv_scalar", |a, l| {
        Ok(Box::new(drivers::spmv_scalar::SpmvScalar::new(a, l)?))
    }),
    ("spmv_vector", |a, l| {
        Ok(Box::new(drivers::spmv_vector::SpmvVector::new(a, l)?))
    }),
    ("srad", |a, l| Ok(Box::new(drivers::srad::Srad::new(a, l)?))),
    ("stencil2d", |a, l| {
        Ok(Box::new(drivers::stencil2d::Stencil2d::new(a, l)?))
    }),
    ("vector_add", |a, l| {
        Ok(Box::new(drivers::vector_add::VectorAdd::new(a, l)?))
    }),
    ("stream_triad", |a, l| {
        Ok(Box::new(drivers::correlation::Correlation::new(
            "stream_triad",
            a,
            l,
        )?))
    }),
    ("compute_fma", |a, l| {
        Ok(Box::new(drivers::correlation::Correlation::new(
            "compute_fma",
            a,
            l,
        )?))
    }),
    ("sfu_mix", |a, l| {
        Ok(Box::new(drivers::correlation::Correlation::new(
            "sfu_mix", a, l,
        )?))
    }),
    ("divergent_loop", |a, l| {
        Ok(Box::new(drivers::correlation::Correlation::new(
            "divergent_loop",
            a,
            l,
        )?))
    }),
    ("reduce_tree", |a, l| {
        Ok(Box::new(drivers::correlation::Correlation::new(
            "reduce_tree",
            a,
            l,
        )?))
    }),
    ("transpose", |a, l| {
        Ok(Box::new(drivers::correlation::Correlation::new(
            "transpose",
            a,
            l,
        )?))
    }),
    ("atomic_hist", |a, l| {
        Ok(Box::new(drivers::correlation::Correlation::new(
            "atomic_hist",
            a,
            l,
        )?))
    }),
    ("gather_random", |a, l| {
        Ok(Box::new(drivers::correlation::Correlation::new(
            "gather_random",
            a,
            l,
        )?))
    }),
    ("nearest_neighbor", |a, l| {
        Ok(Box::new(drivers::nearest_neighbor::NearestNeighbor::new(
            a, l,
        )?))
    }),
    ("laplace3d", |a, l| {
        Ok(Box::new(drivers::laplace3d::Laplace3d::new(a, l)?))
    }),
    ("estimate_pi", |a, l| {
        Ok(Box::new(drivers::estimate_pi::EstimatePi::new(a, l)?))
    }),
    ("asian_option", |a, l| {
        Ok(Box::new(drivers::asian_option::AsianOption::new(a, l)?))
    }),
    ("mummer", |a, l| {
        Ok(Box::new(drivers::mummer::Mummer::new(a, l)?))
    }),
    ("storegpu", |a, l| {
        Ok(Box::new(drivers::storegpu::StoreGpu::new(a, l)?))
    }),
    ("simple_multigpu", |a, l| {
        Ok(Box::new(drivers::simple_multigpu::SimpleMultiGpu::new(
            a, l,
        )?))
    }),
    ("monte_carlo", |a, l| {
        Ok(Box::new(drivers::monte_carlo::MonteCarlo::new(a, l)?))
    }),
    ("libor", |a, l| {
        Ok(Box::new(drivers::libor::Libor::new(a, l)?))
    }),
    ("neural_network", |a, l| {
        Ok(Box::new(drivers::neural_network::NeuralNetwork::new(a, l)?))
    }),
    ("ray_tracing", |a, l| {
        Ok(Box::new(drivers::ray_tracing::RayTracing::new(a, l)?))
    }),
    ("stencil2d_shared", |a, l| {
        Ok(Box::new(drivers::stencil2d_shared::Stencil2dShared::new(
            a, l,
        )?))
    }),
    ("strided_copy", |a, l| {
        Ok(Box::new(drivers::strided_copy::StridedCopy::new(a, l)?))
    }),
    ("gemv_rowmajor", |a, l| {
        Ok(Box::new(drivers::gemv_rowmajor::GemvRowMajor::new(a, l)?))
    }),
    ("block_scan", |a, l| {
        Ok(Box::new(drivers::block_scan::BlockScan::new(a, l)?))
    }),
    ("warp_shared_reduce", |a, l| {
        Ok(Box::new(
            drivers::warp_shared_reduce::WarpSharedReduce::new(a, l)?,
        ))
    }),
    ("bitonic_sort_shared", |a, l| {
        Ok(Box::new(
            drivers::bitonic_sort_shared::BitonicSortShared::new(a, l)?,
        ))
    }),
    ("dp_axpby", |a, l| {
        Ok(Box::new(drivers::dp_axpby::DpAxpby::new(a, l)?))
    }),
    ("nbody_tiled", |a, l| {
        Ok(Box::new(drivers::nbody_tiled::NbodyTiled::new(a, l)?))
    }),
    ("kmeans_assign", |a, l| {
        Ok(Box::new(drivers::kmeans_assign::KmeansAssign::new(a, l)?))
    }),
    ("blackscholes", |a, l| {
        Ok(Box::new(drivers::blackscholes::Blackscholes::new(a, l)?))
    }),
];

/// Builds workload `name` from its arguments; unknown names and unknown
/// arguments are errors.
pub fn create(
    name: &str,
    args: &mut Args,
    launch: Launch,
) -> Result<Box<dyn Workload>, WorkloadError> {
    let Some((_, ctor)) = WORKLOADS.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = WORKLOADS.iter().map(|(n, _)| *n).collect();
        let hint = crate::ptx::suggest::closest(name, names.iter().copied())
            .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
        return Err(WorkloadError::Args(format!(
            "unknown workload `{name}`{hint}; known: {}",
            names.join(", ")
        )));
    };
    let w = ctor(args, launch)?;
    args.finish()?;
    Ok(w)
}
