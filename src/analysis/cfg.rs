//! Basic blocks and the control-flow graph of a kernel.

use crate::ir::{InstId, Kernel};

/// A basic block, dense per kernel (block 0 is the entry block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

impl BlockId {
    /// As a vector index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A maximal straight-line run of instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// First instruction.
    pub start: InstId,
    /// One past the last instruction.
    pub end: InstId,
    /// Successor when control falls through (or a guarded branch is not taken).
    pub fallthrough: Option<BlockId>,
    /// Successor when the final `bra` is taken.
    pub taken: Option<BlockId>,
    /// True if the block can leave the kernel (`ret`/`exit`, guarded or not).
    pub exits: bool,
    /// Successors, deduplicated: fall-through first, then taken.
    pub succs: Vec<BlockId>,
    /// Predecessors in ascending order.
    pub preds: Vec<BlockId>,
}

impl Block {
    /// The last instruction.
    pub fn last(&self) -> InstId {
        InstId(self.end.0 - 1)
    }
}

/// The CFG: blocks in program order, plus the block of every instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    /// Blocks in program order.
    pub blocks: Vec<Block>,
    block_of: Vec<BlockId>,
}

impl Cfg {
    /// Splits the kernel into basic blocks. Leaders are the first
    /// instruction, every branch target, and every instruction after a
    /// `bra`/`ret`/`exit` (guarded or not).
    pub fn new(kernel: &Kernel) -> Cfg {
        let n = kernel.insts.len();
        let mut leader = vec![false; n + 1];
        if n > 0 {
            leader[0] = true;
        }
        for (i, inst) in kernel.insts.iter().enumerate() {
            if let Some(t) = inst.target() {
                leader[t.0 as usize] = true;
            }
            if inst.ends_block() {
                leader[i + 1] = true;
            }
        }
        let mut block_of = vec![BlockId(0); n];
        let mut blocks: Vec<Block> = Vec::new();
        for i in 0..n {
            if leader[i] {
                blocks.push(Block {
                    start: InstId(i as u32),
                    end: InstId(i as u32),
                    fallthrough: None,
                    taken: None,
                    exits: false,
                    succs: Vec::new(),
                    preds: Vec::new(),
                });
            }
            let b = blocks.len() - 1;
            blocks[b].end = InstId(i as u32 + 1);
            block_of[i] = BlockId(b as u32);
        }
        let nb = blocks.len();
        for (b, blk) in blocks.iter_mut().enumerate() {
            let last = &kernel.insts[blk.last().0 as usize];
            let guarded = last.guard.is_some();
            let next = (b + 1 < nb).then(|| BlockId(b as u32 + 1));
            let (ft, taken, exits) = if let Some(t) = last.target() {
                (
                    if guarded { next } else { None },
                    Some(block_of[t.0 as usize]),
                    false,
                )
            } else if last.is_exit() {
                (if guarded { next } else { None }, None, true)
            } else {
                (next, None, false)
            };
            // A guarded exit or branch at the very end has nowhere to fall:
            // it leaves the kernel (lowering always ends a kernel with an
            // unguarded terminator, so this is only for hand-built IR).
            let exits = exits || (ft.is_none() && taken.is_none());
            let mut succs = Vec::new();
            for s in [ft, taken].into_iter().flatten() {
                if !succs.contains(&s) {
                    succs.push(s);
                }
            }
            blk.fallthrough = ft;
            blk.taken = taken;
            blk.exits = exits;
            blk.succs = succs;
        }
        let edges: Vec<(usize, BlockId)> = blocks
            .iter()
            .enumerate()
            .flat_map(|(b, blk)| blk.succs.iter().map(move |&s| (b, s)))
            .collect();
        for (b, s) in edges {
            blocks[s.index()].preds.push(BlockId(b as u32));
        }
        Cfg { blocks, block_of }
    }

    /// The block containing `inst`.
    pub fn block_of(&self, inst: InstId) -> BlockId {
        self.block_of[inst.0 as usize]
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// True for a kernel without instructions.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Successor lists as plain indices (for the graph algorithms).
    pub fn succ_lists(&self) -> Vec<Vec<usize>> {
        self.blocks
            .iter()
            .map(|b| b.succs.iter().map(|s| s.index()).collect())
            .collect()
    }
}
