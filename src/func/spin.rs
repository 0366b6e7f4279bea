//! The functional no-progress detector: finds launches whose whole state
//! repeats, i.e. that loop forever.
//!
//! The functional interpreter is deterministic and, between two visits of
//! its round-robin loop's top, a function of its state alone: the resident
//! CTAs, each warp's registers, predicates, reconvergence stack, local
//! memory and barrier wait, each CTA's shared memory and global memory (the
//! clock a kernel may read is the instruction count, so a kernel that reads
//! `%clock` never repeats and is left to the instruction limit). If that
//! state at one visit equals the state at an earlier visit, the launch
//! repeats the same stretch forever: the classic case is an intra-warp spin
//! lock under SIMT, where lane 0 holds the lock at the reconvergence point
//! and its warp's other lanes spin on it first, forever; every write they do
//! (a failed `atom.cas`) leaves memory as it was.
//!
//! Hashing the state costs about as much as executing a few instructions
//! per warp, so the detector only looks once nothing has happened for
//! [`QUIET_INSTS`] warp instructions (no warp exited or reached a barrier,
//! no barrier released, no CTA retired), and then only every
//! [`SAMPLE_EVERY`]-th visit. It finds the cycle with Brent's algorithm on
//! the sampled states (an eventually periodic sequence sampled at a fixed
//! stride is eventually periodic too): warps' state is hashed at every
//! sample, memory only when the warps' hash matches the saved one and at
//! the (logarithmically many) saves. Two states are taken as equal when
//! their 64-bit hashes of warps and of memory both are.

use std::hash::Hasher;

use rustc_hash::FxHasher;

use crate::func::warp::Warp;

/// Warp instructions without any progress event before the detector starts
/// sampling.
pub const QUIET_INSTS: u64 = 1 << 20;

/// Visits of the round-robin loop between two samples.
pub const SAMPLE_EVERY: u64 = 8;

/// A sampled state the later ones are compared with.
#[derive(Clone, Copy, Debug)]
struct Saved {
    warps: u64,
    memory: u64,
    insts: u64,
}

/// Brent's cycle finder over the launch's sampled states.
#[derive(Clone, Debug, Default)]
pub struct SpinDetector {
    /// Warp instructions at the last progress event.
    quiet_since: u64,
    /// Visits since sampling started.
    visits: u64,
    saved: Option<Saved>,
    /// Samples since the last save, and the distance at which to save next.
    lam: u64,
    power: u64,
}

/// A repeating state: the launch loops forever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeat {
    /// Warp instructions in one repetition (between the two equal states).
    pub period: u64,
    /// Warp instructions since the last progress event.
    pub quiet: u64,
}

impl SpinDetector {
    /// A detector for a launch that has executed no instruction yet.
    pub fn new() -> SpinDetector {
        SpinDetector::default()
    }

    /// Something happened that a loop forever cannot do (a warp exited or
    /// reached a barrier, a barrier released, a CTA retired): start over.
    pub fn progress(&mut self, insts: u64) {
        self.quiet_since = insts;
        self.visits = 0;
        self.saved = None;
    }

    /// One visit of the round-robin loop's top after `insts` warp
    /// instructions; `warps` feeds the warps' state (and the resident CTAs'
    /// ids) to a hasher, `memory` the global and shared memory. Returns the
    /// repetition when this state equals an earlier one.
    pub fn visit(
        &mut self,
        insts: u64,
        warps: impl FnOnce(&mut FxHasher),
        memory: impl FnOnce(&mut FxHasher),
    ) -> Option<Repeat> {
        if insts - self.quiet_since < QUIET_INSTS {
            return None;
        }
        self.visits += 1;
        if !self.visits.is_multiple_of(SAMPLE_EVERY) {
            return None;
        }
        let mut h = FxHasher::default();
        warps(&mut h);
        let warps_hash = h.finish();
        let mut memory = Some(memory);
        let mut memory_hash = || {
            let mut h = FxHasher::default();
            if let Some(f) = memory.take() {
                f(&mut h);
            }
            h.finish()
        };
        match self.saved {
            Some(s) if s.warps == warps_hash => {
                let m = memory_hash();
                if m == s.memory && insts > s.insts {
                    return Some(Repeat {
                        period: insts - s.insts,
                        quiet: insts - self.quiet_since,
                    });
                }
                // Same registers, different memory: not a repetition; start
                // the search again from here.
                self.saved = Some(Saved {
                    warps: warps_hash,
                    memory: m,
                    insts,
                });
                self.lam = 0;
                self.power = 1;
            }
            None => {
                self.saved = Some(Saved {
                    warps: warps_hash,
                    memory: memory_hash(),
                    insts,
                });
                self.lam = 0;
                self.power = 1;
            }
            Some(_) => {
                self.lam += 1;
                if self.lam == self.power {
                    self.saved = Some(Saved {
                        warps: warps_hash,
                        memory: memory_hash(),
                        insts,
                    });
                    self.lam = 0;
                    self.power *= 2;
                }
            }
        }
        None
    }
}

/// Feeds a warp's architectural state to `h`: what decides its future
/// (registers, predicates, reconvergence stack, local memory, barrier wait),
/// not counters or scratch buffers.
pub fn hash_warp(w: &Warp, h: &mut FxHasher) {
    h.write_u32(w.warp_id);
    for &r in &w.regs {
        h.write_u64(r);
    }
    for &p in &w.preds {
        h.write_u64(p);
    }
    h.write_usize(w.stack.depth());
    for e in w.stack.entries() {
        h.write_u32(e.pc);
        h.write_u32(e.rpc);
        h.write_u64(e.mask);
    }
    h.write(&w.local);
    match w.barrier {
        Some(b) => {
            h.write_u32(1 + b.id);
            h.write_u32(b.count.unwrap_or(u32::MAX));
            h.write_u32(b.inst);
            h.write_u32(b.threads);
        }
        None => h.write_u32(0),
    }
    h.write_u32(w.bar_red);
    h.write_usize(w.pending_atomics.len());
}
