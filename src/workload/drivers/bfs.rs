//! `bfs` and `rodinia_bfs`: Rodinia BFS, level by level on a random
//! undirected graph, with Rodinia's host loop `do { over = 0; kernel 1;
//! kernel 2; } while (over)`. `bfs` runs the hand-written `kernels/bfs.ptx`
//! (`bfs_kernel`, `bfs_kernel2`) over a CSR graph (`rowPtr`, `cols`);
//! `rodinia_bfs` runs nvcc's `kernels/rodinia/bfs.ptx` (`Kernel`,
//! `Kernel2`) over Rodinia's `Node {starting, no_of_edges}` array and edge
//! list, with Rodinia's buffer names (`g_graph_mask`, …, `g_cost`).
//!
//! Input: [`generate::bfs_input`]; checks: `cost` exactly against
//! [`reference::bfs`] (hop distances, -1 if unreachable) and the number of
//! rounds (`rounds`) exactly against [`reference::bfs_rounds`].

use super::{block_1d, int_arg, nonneg_f64, one_thread_per};
use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, overwrite, upload};
use crate::workload::{Launch, Workload, generate, reference};

/// How a BFS port lays out the graph and names its kernels and buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `bfs`: CSR row pointers and columns; `bfs_kernel`, `bfs_kernel2`.
    Csr,
    /// `rodinia_bfs`: Rodinia's `Node {starting, no_of_edges}` array and
    /// edge list; `Kernel`, `Kernel2`.
    Nodes,
}

impl Layout {
    /// The two kernels: the expanding one and the frontier update.
    fn kernels(self) -> [&'static str; 2] {
        match self {
            Layout::Csr => ["bfs_kernel", "bfs_kernel2"],
            Layout::Nodes => ["Kernel", "Kernel2"],
        }
    }
}

/// The `bfs` and `rodinia_bfs` workloads.
pub struct Bfs {
    layout: Layout,
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
    pub fn new(args: &mut Args, launch: Launch, layout: Layout) -> Result<Bfs, WorkloadError> {
        let w = Bfs {
            layout,
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
        let kernel = self.layout.kernels()[0];
        let block = block_1d(kernel, &self.launch, self.nodes.min(512))?;
        one_thread_per(kernel, &self.launch, block, "node", u64::from(self.nodes))
    }
}

impl Workload for Bfs {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let (grid, block) = self.shape()?;
        let n = self.nodes as usize;
        let g = generate::bfs_input(n, self.mean_degree, self.seed);
        let port = match self.layout {
            Layout::Csr => Port {
                kernels: self.layout.kernels(),
                graph: [
                    upload(host, "rowPtr", &g.row_ptr)?,
                    upload(host, "cols", &g.adj)?,
                ],
                names: ["mask", "updating", "visited", "cost", "over"],
            },
            Layout::Nodes => {
                // Node v = {starting, no_of_edges}, two ints.
                let nodes: Vec<i32> = (0..n)
                    .flat_map(|v| [g.row_ptr[v], g.row_ptr[v + 1] - g.row_ptr[v]])
                    .collect();
                Port {
                    kernels: self.layout.kernels(),
                    graph: [
                        upload(host, "g_graph_nodes", &nodes)?,
                        upload(host, "g_graph_edges", &g.adj)?,
                    ],
                    names: [
                        "g_graph_mask",
                        "g_updating_graph_mask",
                        "g_graph_visited",
                        "g_cost",
                        "g_over",
                    ],
                }
            }
        };
        run_levels(host, &g, self.source as usize, grid, block, &port)
    }
}

/// What differs between the BFS ports: the two
/// kernels' names, the graph buffers passed first to the first kernel, and
/// the names of the state buffers.
struct Port<'a> {
    /// The expanding kernel and the frontier-update kernel.
    kernels: [&'a str; 2],
    /// The graph's two device buffers, the first kernel's first parameters.
    graph: [u64; 2],
    /// Names of the `mask`, `updating`, `visited`, `cost` and `over` buffers.
    names: [&'a str; 5],
}

/// Rodinia's host program around the two BFS kernels: the initial state
/// (only `source` in the frontier and visited, with cost 0; every other
/// cost -1), then `do { over = 0; kernel 1; kernel 2; } while (over)`, and
/// the check of the costs and the number of rounds against
/// [`reference::bfs`] / [`reference::bfs_rounds`].
fn run_levels(
    host: &mut dyn Host,
    g: &generate::Graph,
    src: usize,
    grid: [u32; 3],
    block: [u32; 3],
    port: &Port<'_>,
) -> Result<Check, WorkloadError> {
    let n = g.row_ptr.len() - 1;
    let [mask_name, updating_name, visited_name, cost_name, over_name] = port.names;
    let mut mask = vec![0u8; n];
    mask[src] = 1;
    let mut cost = vec![-1i32; n];
    cost[src] = 0;
    let dmask = upload(host, mask_name, &mask)?;
    let dupdating = upload(host, updating_name, &vec![0u8; n])?;
    let dvisited = upload(host, visited_name, &mask)?;
    let dcost = upload(host, cost_name, &cost)?;
    let dover = upload(host, over_name, &[0u8])?;
    let nn = ArgValue::S32(n as i32);
    // Every round but the last reaches at least one new node, so a
    // correct run takes at most `nodes` rounds; stop a wrong one there.
    let mut rounds = 0usize;
    loop {
        overwrite(host, dover, &[0u8])?;
        host.launch(
            Some(port.kernels[0]),
            grid,
            block,
            &[
                ArgValue::U64(port.graph[0]),
                ArgValue::U64(port.graph[1]),
                ArgValue::U64(dmask),
                ArgValue::U64(dupdating),
                ArgValue::U64(dvisited),
                ArgValue::U64(dcost),
                nn,
            ],
        )?;
        host.launch(
            Some(port.kernels[1]),
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
    let want = reference::bfs(g, src);
    Ok(Check::all([
        check::exact(cost_name, &want, &got),
        check::exact("rounds", &[reference::bfs_rounds(&want)], &[rounds]),
    ]))
}
