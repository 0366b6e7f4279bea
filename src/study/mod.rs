//! Studies over many runs: `gpusim sweep` (the cross product of kernels,
//! machines, config overrides, workload arguments and policies, run in
//! parallel, one CSV row per run) and `gpusim merge` (joining the CSVs of
//! a sharded sweep).

pub mod merge;
pub mod sweep;
