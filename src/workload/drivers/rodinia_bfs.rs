//! `rodinia_bfs`: Rodinia's BFS compiled by nvcc
//! (`kernels/rodinia/bfs.ptx`, `Kernel` and `Kernel2`), with Rodinia's host
//! loop `do { over = false; Kernel; Kernel2; read over } while (over)`.
//! Unlike the hand-written `bfs` workload, the graph is Rodinia's
//! `Node {starting, no_of_edges}` array.
//!
//! Input: [`generate::bfs_input`] (the same random graph as `bfs`);
//! checks: `g_cost` exactly against [`crate::workload::reference::bfs`] and the number of
//! rounds exactly against [`crate::workload::reference::bfs_rounds`].

use super::bfs::{Port, run_levels};
use super::{block_1d, grid_1d, int_arg, nonneg_f64};
use crate::workload::args::Args;
use crate::workload::check::Check;
use crate::workload::host::{Host, WorkloadError, upload};
use crate::workload::{Launch, Workload, generate};

/// The `rodinia_bfs` workload.
pub struct RodiniaBfs {
    nodes: u32,
    mean_degree: f64,
    source: u32,
    seed: u64,
    launch: Launch,
}

impl RodiniaBfs {
    /// Reads `nodes` (default 4096), `mean_degree` (6), `source` (0) and
    /// `seed` (1). Block: the manifest's (1-D) or Rodinia's
    /// `min(nodes, 512)`; grid: the manifest's, covering `nodes` threads, or
    /// `ceil(nodes / block)`; both kernels use the same shape.
    pub fn new(args: &mut Args, launch: Launch) -> Result<RodiniaBfs, WorkloadError> {
        let w = RodiniaBfs {
            nodes: args.count("nodes", 4096)?,
            mean_degree: nonneg_f64(args, "mean_degree", 6.0)?,
            source: args.u32("source", 0)?,
            seed: args.u64("seed", 1)?,
            launch,
        };
        int_arg("nodes", u64::from(w.nodes))?;
        if w.source >= w.nodes {
            return Err(WorkloadError::Args(format!(
                "`source` = {} must be a node (below `nodes` = {})",
                w.source, w.nodes
            )));
        }
        int_arg(
            "nodes * mean_degree",
            (f64::from(w.nodes) * w.mean_degree).ceil() as u64,
        )?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d("Kernel", &self.launch, self.nodes.min(512))?;
        let grid = grid_1d(
            "Kernel",
            &self.launch,
            block[0],
            Some(("one per node", u64::from(self.nodes))),
        )?;
        Ok((grid, block))
    }
}

impl Workload for RodiniaBfs {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.nodes as usize;
        let g = generate::bfs_input(n, self.mean_degree, self.seed);
        // Node v = {starting, no_of_edges}, two ints.
        let nodes: Vec<i32> = (0..n)
            .flat_map(|v| [g.row_ptr[v], g.row_ptr[v + 1] - g.row_ptr[v]])
            .collect();
        let dnodes = upload(host, "g_graph_nodes", &nodes)?;
        let dedges = upload(host, "g_graph_edges", &g.adj)?;
        let port = Port {
            kernels: ["Kernel", "Kernel2"],
            graph: [dnodes, dedges],
            names: [
                "g_graph_mask",
                "g_updating_graph_mask",
                "g_graph_visited",
                "g_cost",
                "g_over",
            ],
        };
        run_levels(host, &g, self.source as usize, grid, block, &port)
    }
}
