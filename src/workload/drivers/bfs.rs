//! `bfs`: Rodinia BFS (`bfs.ptx`), level by level on a random undirected
//! graph: Rodinia's host loop `do { over = 0; bfs_kernel; bfs_kernel2; }
//! while (over)`.
//!
//! Input: [`generate::bfs_input`]; checks: `cost` exactly against
//! [`reference::bfs`] (hop distances, -1 if unreachable) and the number of
//! rounds (`rounds`) exactly against [`reference::bfs_rounds`].

use super::{block_1d, grid_1d, int_arg, nonneg_f64};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, overwrite, upload};
use crate::workload::{Launch, Workload, generate, reference};

/// The `bfs` workload.
pub struct Bfs {
    nodes: u32,
    mean_degree: f64,
    source: u32,
    seed: u64,
    launch: Launch,
}

impl Bfs {
    /// Reads `nodes` (default 4096), `mean_degree` (6), `source` (0, below
    /// `nodes`) and `seed` (1). Block: the manifest's (1-D) or Rodinia's
    /// `min(nodes, 512)`; grid: the manifest's, which must cover `nodes`
    /// threads, or `ceil(nodes / block)`; both kernels use the same shape.
    pub fn new(args: &mut Args, launch: Launch) -> Result<Bfs, WorkloadError> {
        let w = Bfs {
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
        // Edges are stored twice, with int offsets.
        int_arg(
            "nodes * mean_degree",
            (f64::from(w.nodes) * w.mean_degree).ceil() as u64,
        )?;
        w.shape()?;
        Ok(w)
    }

    fn shape(&self) -> Result<([u32; 3], [u32; 3]), WorkloadError> {
        let block = block_1d("bfs_kernel", &self.launch, self.nodes.min(512))?;
        let grid = grid_1d(
            "bfs_kernel",
            &self.launch,
            block[0],
            Some(("one per node", u64::from(self.nodes))),
        )?;
        Ok((grid, block))
    }
}

impl Workload for Bfs {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.nodes as usize;
        let src = self.source as usize;
        let g = generate::bfs_input(n, self.mean_degree, self.seed);
        let drow = upload(host, "rowPtr", &g.row_ptr)?;
        let dcols = upload(host, "cols", &g.adj)?;
        // Rodinia's initial state: only the source is in the frontier and
        // visited, with cost 0; every other cost is -1.
        let mut mask = vec![0u8; n];
        mask[src] = 1;
        let mut cost = vec![-1i32; n];
        cost[src] = 0;
        let dmask = upload(host, "mask", &mask)?;
        let dupdating = upload(host, "updating", &vec![0u8; n])?;
        let dvisited = upload(host, "visited", &mask)?;
        let dcost = upload(host, "cost", &cost)?;
        let dover = upload(host, "over", &[0u8])?;
        let nn = ArgValue::S32(self.nodes as i32);
        // Every round but the last reaches at least one new node, so a
        // correct run takes at most `nodes` rounds; stop a wrong one there.
        let mut rounds = 0usize;
        loop {
            overwrite(host, dover, &[0u8])?;
            host.launch(
                Some("bfs_kernel"),
                grid,
                block,
                &[
                    ArgValue::U64(drow),
                    ArgValue::U64(dcols),
                    ArgValue::U64(dmask),
                    ArgValue::U64(dupdating),
                    ArgValue::U64(dvisited),
                    ArgValue::U64(dcost),
                    nn,
                ],
            )?;
            host.launch(
                Some("bfs_kernel2"),
                grid,
                block,
                &[
                    ArgValue::U64(dmask),
                    ArgValue::U64(dupdating),
                    ArgValue::U64(dvisited),
                    ArgValue::U64(dover),
                    nn,
                ],
            )?;
            rounds += 1;
            let over: Vec<u8> = download(host, dover, 1)?;
            if over[0] == 0 || rounds > n {
                break;
            }
        }
        let got: Vec<i32> = download(host, dcost, n)?;
        let want = reference::bfs(&g, src);
        Ok(Check::all([
            check::exact("cost", &want, &got),
            check::exact("rounds", &[reference::bfs_rounds(&want)], &[rounds]),
        ]))
    }
}
