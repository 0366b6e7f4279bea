//! The loop facts DAWS needs, per kernel: for every PC its innermost
//! natural loop, for every loop its begin/end markers (first and last
//! instruction, from `analysis::loops`), parent, and the static global or
//! local loads whose innermost loop it is [DAWS 5.1, 5.1.3].

use crate::analysis::KernelAnalysis;
use crate::ir::{Kernel, Opcode, Space};

/// The instruction at `pc` is a plain global/local (or generic) load, or,
/// when `tex_via_l1d` (a machine without a texture cache, `l1t.sets` = 0),
/// a texture fetch: the loads DAWS classifies and throttles, the same rule
/// as `TimingInst::l1d_load`.
pub fn is_l1d_load(kernel: &Kernel, pc: u32, tex_via_l1d: bool) -> bool {
    kernel.insts.get(pc as usize).is_some_and(|i| {
        (i.op == Opcode::Ld || (i.op == Opcode::Tex && tex_via_l1d))
            && matches!(i.mods.space, Space::Global | Space::Local | Space::Generic)
    })
}

/// One loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopFacts {
    /// PC of its first instruction (the loop-begin marker).
    pub begin: u32,
    /// PC of its last instruction (the loop-end marker).
    pub end: u32,
    /// The innermost enclosing loop (index into [`LoopTable::loops`]).
    pub parent: Option<u32>,
    /// Its loads (PCs, ascending): global/local `ld`s whose innermost loop
    /// is this one.
    pub loads: Vec<u32>,
}

/// Loops of one kernel, indexed like `analysis.loops.loops`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopTable {
    /// The loops.
    pub loops: Vec<LoopFacts>,
    /// Innermost loop of each PC.
    innermost: Vec<Option<u32>>,
    /// Loop ids by begin PC, ascending (for "the next loop in program
    /// order").
    by_begin: Vec<(u32, u32)>,
}

impl LoopTable {
    /// The loop table of `kernel`; `tex_via_l1d` as in [`is_l1d_load`].
    pub fn new(kernel: &Kernel, a: &KernelAnalysis, tex_via_l1d: bool) -> LoopTable {
        let n = kernel.insts.len();
        let innermost: Vec<Option<u32>> = (0..n)
            .map(|pc| {
                a.loops
                    .innermost(a.cfg.block_of(crate::ir::InstId(pc as u32)))
                    .map(|l| l.0)
            })
            .collect();
        let mut loops: Vec<LoopFacts> = a
            .loops
            .loops
            .iter()
            .map(|l| LoopFacts {
                begin: l.begin.0,
                end: l.end.0,
                parent: l.parent.map(|p| p.0),
                loads: Vec::new(),
            })
            .collect();
        for (pc, l) in innermost.iter().enumerate() {
            if let Some(l) = l
                && is_l1d_load(kernel, pc as u32, tex_via_l1d)
            {
                loops[*l as usize].loads.push(pc as u32);
            }
        }
        Self::from_parts(loops, innermost)
    }

    /// A table from its loops and each PC's innermost loop (tests build
    /// small ones by hand).
    pub fn from_parts(loops: Vec<LoopFacts>, innermost: Vec<Option<u32>>) -> LoopTable {
        let mut by_begin: Vec<(u32, u32)> = loops
            .iter()
            .enumerate()
            .map(|(i, l)| (l.begin, i as u32))
            .collect();
        by_begin.sort();
        LoopTable {
            loops,
            innermost,
            by_begin,
        }
    }

    /// The innermost loop containing `pc`.
    pub fn innermost(&self, pc: u32) -> Option<u32> {
        self.innermost.get(pc as usize).copied().flatten()
    }

    /// The loop whose first instruction is `pc`.
    pub fn begins_at(&self, pc: u32) -> Option<u32> {
        self.by_begin
            .binary_search_by_key(&pc, |&(b, _)| b)
            .ok()
            .map(|i| self.by_begin[i].1)
    }

    /// `pc` lies in loop `l` (directly or in one of its inner loops).
    pub fn contains(&self, l: u32, pc: u32) -> bool {
        let mut cur = self.innermost(pc);
        while let Some(c) = cur {
            if c == l {
                return true;
            }
            cur = self.loops[c as usize].parent;
        }
        false
    }

    /// `inner` is `outer` or nested in it.
    pub fn nested_in(&self, inner: u32, outer: u32) -> bool {
        let mut cur = Some(inner);
        while let Some(c) = cur {
            if c == outer {
                return true;
            }
            cur = self.loops[c as usize].parent;
        }
        false
    }

    /// The outermost loop enclosing `l` (or `l`).
    pub fn outermost(&self, l: u32) -> u32 {
        let mut cur = l;
        while let Some(p) = self.loops[cur as usize].parent {
            cur = p;
        }
        cur
    }

    /// The first loop after `pc` in program order (DAWS 5.1.2's "closest
    /// loop" of a warp outside loops).
    pub fn next_after(&self, pc: u32) -> Option<u32> {
        let i = self.by_begin.partition_point(|&(b, _)| b <= pc);
        self.by_begin.get(i).map(|&(_, l)| l)
    }
}
