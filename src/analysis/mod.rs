//! Static analyses of a kernel: basic blocks and CFG, (post-)dominators,
//! immediate post-dominators for SIMT reconvergence, natural loops,
//! registers read before written, a registers-per-thread estimate.

pub mod cfg;
pub mod dom;
pub mod live_in;
pub mod liveness;
pub mod loops;
pub mod postdom;
pub mod regs;

use crate::ir::{InstId, Kernel};

pub use cfg::{BlockId, Cfg};
pub use loops::{Loop, LoopId, LoopInfo};
pub use postdom::PostDominators;

/// Everything the simulator needs to know about a kernel's control flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelAnalysis {
    /// Basic blocks and edges.
    pub cfg: Cfg,
    /// Immediate post-dominators (reconvergence points).
    pub postdom: PostDominators,
    /// Natural loops with nesting and begin/end markers.
    pub loops: LoopInfo,
}

impl KernelAnalysis {
    /// Runs every analysis on `kernel`.
    pub fn new(kernel: &Kernel) -> KernelAnalysis {
        let cfg = Cfg::new(kernel);
        let postdom = PostDominators::new(&cfg);
        let entries: Vec<usize> = kernel
            .funcs
            .iter()
            .map(|f| cfg.block_of(f.entry).index())
            .collect();
        let loops = LoopInfo::with_entries(&cfg, &entries);
        KernelAnalysis {
            cfg,
            postdom,
            loops,
        }
    }

    /// Where a warp that diverges at the branch `inst` reconverges: the first
    /// instruction of the immediate post-dominator of the branch's block, or
    /// `None` when the paths only meet at kernel exit.
    pub fn reconvergence_pc(&self, inst: InstId) -> Option<InstId> {
        let b = self.cfg.block_of(inst);
        self.postdom
            .ipdom(b)
            .map(|p| self.cfg.blocks[p.index()].start)
    }
}
