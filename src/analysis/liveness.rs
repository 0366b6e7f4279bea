//! Backward liveness of data registers over a kernel's CFG (iterative
//! dataflow to a fixed point), shared by the register estimate
//! ([`crate::analysis::regs`]) and the registers a reused warp must zero
//! ([`crate::analysis::live_in`]).
//!
//! Per basic block, `use(b)` = data registers read before any unguarded
//! write in the block, `def(b)` = registers an unguarded instruction of the
//! block writes (a guarded write may not happen, so it does not kill);
//! `live_in(b) = use(b) ∪ (live_out(b) − def(b))` with `live_out(b) = ∪
//! live_in(s)` over successors `s`, iterated in reverse block order.
//! Predicates are not tracked. Sets are dense bit vectors indexed by
//! register id.

use crate::analysis::Cfg;
use crate::ir::{Kernel, RegRef};

/// A set of register ids, one bit each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegSet(Vec<u64>);

impl RegSet {
    /// An empty set for ids below `n`.
    pub fn new(n: usize) -> RegSet {
        RegSet(vec![0; n.div_ceil(64)])
    }

    /// Adds `r`; true if it was not in the set.
    pub fn insert(&mut self, r: u32) -> bool {
        let w = &mut self.0[(r / 64) as usize];
        let bit = 1u64 << (r % 64);
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    /// Removes `r`; true if it was in the set.
    pub fn remove(&mut self, r: u32) -> bool {
        let w = &mut self.0[(r / 64) as usize];
        let bit = 1u64 << (r % 64);
        let had = *w & bit != 0;
        *w &= !bit;
        had
    }

    /// Whether `r` is in the set.
    pub fn contains(&self, r: u32) -> bool {
        self.0[(r / 64) as usize] >> (r % 64) & 1 == 1
    }

    /// `self |= other`; true if `self` grew.
    pub fn union(&mut self, other: &RegSet) -> bool {
        let mut grew = false;
        for (a, &b) in self.0.iter_mut().zip(&other.0) {
            grew |= b & !*a != 0;
            *a |= b;
        }
        grew
    }

    /// The ids in the set, ascending.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            (0..64u32)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| i as u32 * 64 + b)
        })
    }
}

/// Data registers of a list of references (predicates dropped).
pub fn data_regs(refs: Vec<RegRef>) -> impl Iterator<Item = u32> {
    refs.into_iter().filter_map(|r| match r {
        RegRef::Reg(r) => Some(r.0),
        RegRef::Pred(_) => None,
    })
}

/// `live_in(b)` for every block of `cfg`, indexed by block.
pub fn block_live_in(kernel: &Kernel, cfg: &Cfg) -> Vec<RegSet> {
    let n = kernel.regs.len();
    let mut used = Vec::with_capacity(cfg.len());
    let mut defined = Vec::with_capacity(cfg.len());
    for b in &cfg.blocks {
        let (mut u, mut d) = (RegSet::new(n), RegSet::new(n));
        for inst in &kernel.insts[b.start.0 as usize..b.end.0 as usize] {
            for r in data_regs(inst.reads()) {
                if !d.contains(r) {
                    u.insert(r);
                }
            }
            if inst.guard.is_none() {
                for r in data_regs(inst.writes()) {
                    d.insert(r);
                }
            }
        }
        used.push(u);
        defined.push(d);
    }
    let mut live_in: Vec<RegSet> = used;
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..cfg.len()).rev() {
            let mut out = RegSet::new(n);
            for s in &cfg.blocks[b].succs {
                out.union(&live_in[s.index()]);
            }
            for (o, &d) in out.0.iter_mut().zip(&defined[b].0) {
                *o &= !d;
            }
            changed |= live_in[b].union(&out);
        }
    }
    live_in
}
