//! Natural loops (DAWS needs their first and last instructions).
//!
//! Classic construction (Aho, Sethi, Ullman, *Compilers*, §9.6): an edge
//! `u → h` whose head `h` dominates its tail `u` is a back edge; the natural
//! loop of `h` is `h` plus every block that reaches a back-edge tail without
//! passing through `h`. Loops sharing a header are merged. Nesting follows
//! block-set inclusion. Retreating edges to non-dominating targets
//! (irreducible control flow) form no loop.

use crate::analysis::cfg::{BlockId, Cfg};
use crate::analysis::dom::DomTree;
use crate::ir::InstId;

/// A loop, dense per kernel, ordered by header block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub u32);

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The header block (dominates every block of the loop).
    pub header: BlockId,
    /// Blocks with a back edge to the header, ascending.
    pub latches: Vec<BlockId>,
    /// Every block of the loop, ascending.
    pub blocks: Vec<BlockId>,
    /// The innermost enclosing loop.
    pub parent: Option<LoopId>,
    /// 1 for an outermost loop, 2 inside one loop, …
    pub depth: u32,
    /// The loop's first instruction (first of the header): DAWS's loop-begin marker.
    pub begin: InstId,
    /// The loop's last instruction in program order (normally the backward
    /// branch): DAWS's loop-end marker.
    pub end: InstId,
}

/// All loops of a kernel with per-block and per-instruction lookups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopInfo {
    /// Loops ordered by header block.
    pub loops: Vec<Loop>,
    /// Innermost loop of each block.
    block_loop: Vec<Option<LoopId>>,
}

impl LoopInfo {
    /// Finds the natural loops of `cfg`.
    pub fn new(cfg: &Cfg) -> LoopInfo {
        LoopInfo::with_entries(cfg, &[])
    }

    /// [`LoopInfo::new`] for a CFG with more entry blocks than block 0
    /// (each linked device function's first block): dominance is computed
    /// from a virtual root with an edge to block 0 and to each of them, so
    /// every function's loops are found.
    pub fn with_entries(cfg: &Cfg, extra_entries: &[usize]) -> LoopInfo {
        let n = cfg.len();
        if n == 0 {
            return LoopInfo {
                loops: Vec::new(),
                block_loop: Vec::new(),
            };
        }
        let mut succs = cfg.succ_lists();
        let root = if extra_entries.is_empty() {
            0
        } else {
            succs.push(
                std::iter::once(0)
                    .chain(extra_entries.iter().copied())
                    .collect(),
            );
            n
        };
        let dom = DomTree::new(&succs, root);
        let idom = &dom.idom;
        // Back edges grouped by header (ascending header, ascending tail).
        let mut latches: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (u, b) in cfg.blocks.iter().enumerate() {
            if idom[u].is_none() {
                continue;
            }
            for s in &b.succs {
                if dom.dominates(s.index(), u) {
                    latches[s.index()].push(u);
                }
            }
        }
        let mut loops = Vec::new();
        for h in 0..n {
            if latches[h].is_empty() {
                continue;
            }
            let mut in_loop = vec![false; n];
            in_loop[h] = true;
            let mut work: Vec<usize> = Vec::new();
            for &l in &latches[h] {
                if !in_loop[l] {
                    in_loop[l] = true;
                    work.push(l);
                }
            }
            while let Some(b) = work.pop() {
                for p in &cfg.blocks[b].preds {
                    let p = p.index();
                    if !in_loop[p] && idom[p].is_some() {
                        in_loop[p] = true;
                        work.push(p);
                    }
                }
            }
            let blocks: Vec<BlockId> = (0..n)
                .filter(|&b| in_loop[b])
                .map(|b| BlockId(b as u32))
                .collect();
            let end = blocks
                .iter()
                .map(|b| cfg.blocks[b.index()].last())
                .max()
                .expect("loop has its header");
            loops.push(Loop {
                header: BlockId(h as u32),
                latches: latches[h].iter().map(|&l| BlockId(l as u32)).collect(),
                blocks,
                parent: None,
                depth: 1,
                begin: cfg.blocks[h].start,
                end,
            });
        }
        // Nesting: the parent is the smallest other loop containing the header.
        for i in 0..loops.len() {
            let h = loops[i].header;
            let parent = (0..loops.len())
                .filter(|&j| {
                    j != i
                        && loops[j].blocks.binary_search(&h).is_ok()
                        && loops[j].blocks.len() > loops[i].blocks.len()
                })
                .min_by_key(|&j| (loops[j].blocks.len(), j));
            loops[i].parent = parent.map(|j| LoopId(j as u32));
        }
        for i in 0..loops.len() {
            let mut d = 1;
            let mut p = loops[i].parent;
            while let Some(q) = p {
                d += 1;
                p = loops[q.0 as usize].parent;
            }
            loops[i].depth = d;
        }
        let mut block_loop: Vec<Option<LoopId>> = vec![None; n];
        for (i, l) in loops.iter().enumerate() {
            for b in &l.blocks {
                let cur = block_loop[b.index()];
                if cur.is_none_or(|c| loops[c.0 as usize].depth < l.depth) {
                    block_loop[b.index()] = Some(LoopId(i as u32));
                }
            }
        }
        LoopInfo { loops, block_loop }
    }

    /// The innermost loop containing block `b`.
    pub fn innermost(&self, b: BlockId) -> Option<LoopId> {
        self.block_loop.get(b.index()).copied().flatten()
    }

    /// Loop nesting depth of block `b` (0 outside loops).
    pub fn depth(&self, b: BlockId) -> u32 {
        self.innermost(b)
            .map_or(0, |l| self.loops[l.0 as usize].depth)
    }

    /// The loop whose first instruction is `inst`, if any.
    pub fn begins_at(&self, inst: InstId) -> Option<LoopId> {
        self.loops
            .iter()
            .position(|l| l.begin == inst)
            .map(|i| LoopId(i as u32))
    }

    /// The loops whose last instruction is `inst` (innermost first).
    pub fn ends_at(&self, inst: InstId) -> Vec<LoopId> {
        let mut v: Vec<LoopId> = (0..self.loops.len())
            .filter(|&i| self.loops[i].end == inst)
            .map(|i| LoopId(i as u32))
            .collect();
        v.sort_by_key(|l| std::cmp::Reverse(self.loops[l.0 as usize].depth));
        v
    }

    /// The loop with id `l`.
    pub fn get(&self, l: LoopId) -> &Loop {
        &self.loops[l.0 as usize]
    }
}
