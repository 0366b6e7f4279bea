//! The SIMT reconvergence stack with immediate-post-dominator (PDOM)
//! reconvergence (Fung et al., "Dynamic Warp Formation", MICRO 2007; the
//! scheme GPGPU-Sim models).
//!
//! Each entry is (PC, reconvergence PC, mask). The top entry is what the warp
//! executes. A divergent branch turns the top entry into the reconvergence
//! entry (its PC becomes the branch's ipdom) and pushes the not-taken path,
//! then the taken path (which therefore runs first). An entry pops when its
//! PC reaches its reconvergence PC. Exited lanes leave every entry.
//!
//! A device-function call moves the top entry to the return PC and pushes
//! a frame entry (reconvergence PC [`RET_RPC`], never reached) per callee;
//! returning lanes leave the frame entry and everything above it, so the
//! caller resumes once every calling lane has returned
//! ([`crate::func::call`]).

/// No reconvergence before the kernel exits.
pub const NO_RPC: u32 = u32::MAX;

/// Reconvergence PC of a call's frame entry: never reached by a PC, the
/// entry pops when its lanes have all returned (or exited).
pub const RET_RPC: u32 = u32::MAX - 1;

/// One stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Next instruction for these lanes.
    pub pc: u32,
    /// Where these lanes rejoin the entry below ([`NO_RPC`]: at exit).
    pub rpc: u32,
    /// Lanes of this path (bit *i* = lane *i*).
    pub mask: u64,
}

/// A warp's reconvergence stack.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimtStack {
    entries: Vec<Entry>,
}

impl SimtStack {
    /// A stack for a warp whose `mask` lanes start at instruction 0.
    pub fn new(mask: u64) -> SimtStack {
        let mut entries = Vec::with_capacity(8);
        if mask != 0 {
            entries.push(Entry {
                pc: 0,
                rpc: NO_RPC,
                mask,
            });
        }
        SimtStack { entries }
    }

    /// Makes this stack [`SimtStack::new`]`(mask)`, keeping its buffer.
    pub fn restart(&mut self, mask: u64) {
        self.entries.clear();
        if mask != 0 {
            self.entries.push(Entry {
                pc: 0,
                rpc: NO_RPC,
                mask,
            });
        }
    }

    /// The executing entry, `None` when every lane has exited.
    #[inline]
    pub fn top(&self) -> Option<&Entry> {
        self.entries.last()
    }

    /// Current PC (instruction id).
    #[inline]
    pub fn pc(&self) -> Option<u32> {
        self.entries.last().map(|e| e.pc)
    }

    /// Current active mask (0 when done).
    #[inline]
    pub fn active(&self) -> u64 {
        self.entries.last().map_or(0, |e| e.mask)
    }

    /// Depth (for statistics and tests).
    pub fn depth(&self) -> usize {
        self.entries.len()
    }

    /// The entries, bottom first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Moves the top entry to `pc` and pops entries that reached their
    /// reconvergence point.
    #[inline]
    pub fn goto(&mut self, pc: u32) {
        // The top entry's mask is never empty (every operation ends with
        // `reconverge`), so only reaching its reconvergence PC can pop.
        if let Some(top) = self.entries.last_mut() {
            top.pc = pc;
            if pc == top.rpc {
                self.reconverge();
            }
        }
    }

    /// A branch executed by the top entry: `taken` lanes go to `target`, the
    /// rest to `fallthrough`; `rpc` is the branch's reconvergence PC.
    pub fn branch(&mut self, taken: u64, target: u32, fallthrough: u32, rpc: u32) {
        let Some(top) = self.entries.last_mut() else {
            return;
        };
        let mask = top.mask;
        let taken = taken & mask;
        if taken == mask {
            self.goto(target);
        } else if taken == 0 {
            self.goto(fallthrough);
        } else {
            // The top becomes the reconvergence entry. When the paths only
            // meet at exit (rpc = NO_RPC) it waits there and pops once its
            // lanes have all exited. Two reductions keep the stack bounded
            // (GPGPU-Sim's `simt_stack::update` does the same): when the
            // branch reconverges where the top entry already does, the top
            // would be an entry with pc = rpc that pops as soon as it is
            // exposed, so it is dropped instead (a loop whose back edge
            // diverges every iteration keeps a constant depth); and a path
            // that starts at the reconvergence PC is not pushed (it would
            // pop at once).
            let top_rpc = top.rpc;
            if rpc == top_rpc {
                self.entries.pop();
            } else {
                top.pc = rpc;
            }
            if fallthrough != rpc {
                self.entries.push(Entry {
                    pc: fallthrough,
                    rpc,
                    mask: mask & !taken,
                });
            }
            if target != rpc {
                self.entries.push(Entry {
                    pc: target,
                    rpc,
                    mask: taken,
                });
            }
            self.reconverge();
        }
    }

    /// A call by the top entry's `lanes`: the top entry continues at
    /// `return_pc` once every frame pushed above it has returned. Push the
    /// frames with [`SimtStack::push_frame`]; returns the top's index.
    pub fn call(&mut self, return_pc: u32) -> usize {
        if let Some(top) = self.entries.last_mut() {
            top.pc = return_pc;
        }
        self.entries.len().saturating_sub(1)
    }

    /// Pushes a call frame entry: `lanes` start at `entry`; returns its index.
    pub fn push_frame(&mut self, entry: u32, lanes: u64) -> usize {
        self.entries.push(Entry {
            pc: entry,
            rpc: RET_RPC,
            mask: lanes,
        });
        self.entries.len() - 1
    }

    /// Lanes in `lanes` return from the frame whose entry is at `frame`:
    /// they leave it and every entry above it; empty entries pop (and then
    /// a caller entry that reached its reconvergence PC).
    pub fn leave_frame(&mut self, frame: usize, lanes: u64) {
        for e in self.entries.iter_mut().skip(frame) {
            e.mask &= !lanes;
        }
        self.reconverge();
    }

    /// Lanes in `lanes` exit: they leave every entry; empty entries pop.
    pub fn exit(&mut self, lanes: u64) {
        for e in &mut self.entries {
            e.mask &= !lanes;
        }
        self.reconverge();
    }

    fn reconverge(&mut self) {
        while let Some(top) = self.entries.last() {
            if top.mask == 0 || top.pc == top.rpc {
                self.entries.pop();
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divergence_runs_taken_first_then_reconverges() {
        let mut s = SimtStack::new(0b1111);
        s.branch(0b0011, 10, 1, 20);
        assert_eq!((s.pc(), s.active()), (Some(10), 0b0011));
        s.goto(20); // taken path reaches the reconvergence point
        assert_eq!((s.pc(), s.active()), (Some(1), 0b1100));
        s.goto(20);
        assert_eq!((s.pc(), s.active(), s.depth()), (Some(20), 0b1111, 1));
    }

    #[test]
    fn uniform_branches_do_not_push() {
        let mut s = SimtStack::new(0b11);
        s.branch(0b11, 7, 1, 9);
        assert_eq!((s.pc(), s.depth()), (Some(7), 1));
        s.branch(0, 7, 8, 9);
        assert_eq!((s.pc(), s.depth()), (Some(8), 1));
    }

    #[test]
    fn exits_leave_every_entry() {
        let mut s = SimtStack::new(0b111);
        s.branch(0b001, 10, 1, NO_RPC);
        s.exit(0b001); // the taken lane returns
        assert_eq!((s.pc(), s.active()), (Some(1), 0b110));
        s.exit(0b110);
        assert_eq!(s.top(), None);
    }

    #[test]
    fn a_loop_diverging_every_iteration_keeps_its_depth() {
        // Loop body at 5..=7, back edge at 7 to 5, exit (the ipdom) at 8,
        // reached inside a divergent region that reconverges at 8 too.
        let mut s = SimtStack::new(0b1111);
        s.branch(0b0111, 5, 9, 8);
        let depth = s.depth();
        for live in [0b0011, 0b0001] {
            s.goto(7);
            s.branch(live, 5, 8, 8);
            assert_eq!((s.pc(), s.active(), s.depth()), (Some(5), live, depth));
        }
        s.goto(7);
        s.branch(0, 5, 8, 8);
        // The loop's lanes are done; the other path (lane 3) runs, then all
        // reconverge at 8.
        assert_eq!((s.pc(), s.active()), (Some(9), 0b1000));
        s.goto(8);
        assert_eq!((s.pc(), s.active(), s.depth()), (Some(8), 0b1111, 1));
    }

    #[test]
    fn call_frames_wait_for_every_lane_to_return() {
        // Lanes 0b0110 call at 5 (entry 40); inside, lane 1 returns early
        // (a guarded ret), lane 2 diverges to a path that returns later.
        let mut s = SimtStack::new(0b1111);
        s.branch(0b0110, 3, 1, 9); // the call sits in a divergent path
        assert_eq!((s.pc(), s.active()), (Some(3), 0b0110));
        let caller = s.call(6);
        let frame = s.push_frame(40, 0b0110);
        assert_eq!(frame, caller + 1);
        assert_eq!((s.pc(), s.active()), (Some(40), 0b0110));
        s.branch(0b0100, 50, 41, NO_RPC); // paths meet only at the return
        assert_eq!((s.pc(), s.active()), (Some(50), 0b0100));
        s.leave_frame(frame, 0b0100); // lane 2 returns
        assert_eq!((s.pc(), s.active()), (Some(41), 0b0010));
        s.leave_frame(frame, 0b0010); // lane 1 returns: the frame pops
        assert_eq!(
            (s.pc(), s.active(), s.depth()),
            (Some(6), 0b0110, caller + 1)
        );
        s.goto(9); // the caller's path reaches its reconvergence point
        assert_eq!((s.pc(), s.active()), (Some(1), 0b1001));
    }

    #[test]
    fn a_return_at_the_callers_reconvergence_point_pops_both() {
        let mut s = SimtStack::new(0b11);
        s.branch(0b01, 3, 1, 4); // lane 0 runs 3, then reaches 4
        let caller = s.call(4); // the call is the path's last instruction
        let frame = s.push_frame(20, 0b01);
        assert_eq!(frame, caller + 1);
        s.leave_frame(frame, 0b01);
        // Lane 0 is back at 4 = its rpc: the path pops, lane 1 runs.
        assert_eq!((s.pc(), s.active()), (Some(1), 0b10));
    }

    #[test]
    fn nested_divergence() {
        let mut s = SimtStack::new(0b1111);
        s.branch(0b0101, 10, 1, 30);
        s.branch(0b0001, 15, 11, 20);
        assert_eq!((s.pc(), s.active()), (Some(15), 0b0001));
        s.goto(20);
        assert_eq!((s.pc(), s.active()), (Some(11), 0b0100));
        s.goto(20);
        assert_eq!((s.pc(), s.active()), (Some(20), 0b0101));
        s.goto(30);
        assert_eq!((s.pc(), s.active()), (Some(1), 0b1010));
    }
}
