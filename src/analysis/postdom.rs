//! Immediate post-dominators: where divergent SIMT paths reconverge.
//!
//! Computed as the dominator tree of the *reversed* CFG rooted at a virtual
//! exit node that every `ret`/`exit` block feeds (Cooper–Harvey–Kennedy,
//! see [`crate::analysis::dom`]). Blocks that cannot reach an exit (infinite
//! loops) would otherwise have no post-dominator; as LLVM's post-dominator
//! tree does, each terminal strongly connected component that cannot reach
//! the exit gets a virtual edge from its highest-numbered block (normally
//! the loop's latch) to the virtual exit, so every block has an ipdom.

use crate::analysis::cfg::{BlockId, Cfg};
use crate::analysis::dom::immediate_dominators;

/// The post-dominator tree of a kernel's CFG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostDominators {
    /// `ipdom[b]`: the immediate post-dominator, `None` = the virtual exit.
    ipdom: Vec<Option<BlockId>>,
    /// Blocks given a virtual edge to the exit because they sit in an
    /// infinite loop, in ascending order.
    pub virtual_exits: Vec<BlockId>,
}

impl PostDominators {
    /// Computes the tree.
    pub fn new(cfg: &Cfg) -> PostDominators {
        let n = cfg.len();
        let exit = n;
        let mut exits: Vec<bool> = cfg.blocks.iter().map(|b| b.exits).collect();
        let mut virtual_exits = Vec::new();
        // Terminal SCCs that cannot reach an exit get a virtual exit edge.
        let reach = reaches_exit(cfg, &exits);
        if reach.iter().any(|r| !r) {
            let comp = scc(&cfg.succ_lists());
            let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
            let mut is_sink = vec![true; ncomp];
            for (b, block) in cfg.blocks.iter().enumerate() {
                for s in &block.succs {
                    if comp[s.index()] != comp[b] {
                        is_sink[comp[b]] = false;
                    }
                }
            }
            let mut chosen = vec![None; ncomp];
            for b in 0..n {
                if !reach[b] && is_sink[comp[b]] {
                    chosen[comp[b]] = Some(b); // highest id wins (ascending scan)
                }
            }
            for b in chosen.into_iter().flatten() {
                exits[b] = true;
            }
            virtual_exits = (0..n)
                .filter(|&b| exits[b] && !cfg.blocks[b].exits)
                .map(|b| BlockId(b as u32))
                .collect();
        }
        // Reversed graph: exit -> exiting blocks; block -> its predecessors.
        let mut rsuccs: Vec<Vec<usize>> = cfg
            .blocks
            .iter()
            .map(|b| b.preds.iter().map(|p| p.index()).collect())
            .collect();
        rsuccs.push((0..n).filter(|&b| exits[b]).collect());
        let idom = immediate_dominators(&rsuccs, exit);
        let ipdom = (0..n)
            .map(|b| match idom[b] {
                Some(d) if d != exit => Some(BlockId(d as u32)),
                _ => None,
            })
            .collect();
        PostDominators {
            ipdom,
            virtual_exits,
        }
    }

    /// The immediate post-dominator of `b`; `None` means the virtual exit.
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        self.ipdom[b.index()]
    }

    /// All immediate post-dominators, indexed by block.
    pub fn all(&self) -> &[Option<BlockId>] {
        &self.ipdom
    }
}

/// Which blocks can reach a block marked in `exits`.
fn reaches_exit(cfg: &Cfg, exits: &[bool]) -> Vec<bool> {
    let mut seen = exits.to_vec();
    let mut work: Vec<usize> = (0..cfg.len()).filter(|&b| exits[b]).collect();
    while let Some(b) = work.pop() {
        for p in &cfg.blocks[b].preds {
            if !seen[p.index()] {
                seen[p.index()] = true;
                work.push(p.index());
            }
        }
    }
    seen
}

/// Strongly connected components (Tarjan 1972, iterative): a component
/// number per node.
fn scc(succs: &[Vec<usize>]) -> Vec<usize> {
    let n = succs.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut ncomp = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if let Some(&w) = succs[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = ncomp;
                        if w == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
    }
    comp
}
