//! Per-warp architectural state: registers (structure of arrays), predicate
//! masks, the SIMT stack, per-thread local memory, and what the warp is
//! waiting for.

use std::collections::VecDeque;

use crate::func::simt_stack::SimtStack;
use crate::ir::{AtomOp, InstId, Space, Type};

/// A lane mask with the low `n` bits set.
#[inline]
pub fn lanes_mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// An atomic whose operands were read at issue and whose read-modify-write
/// is performed later (when the request reaches L2 or the shared memory).
#[derive(Clone, Debug)]
pub struct PendingAtomic {
    /// The instruction.
    pub inst: InstId,
    /// Operation.
    pub op: AtomOp,
    /// Operand type.
    pub ty: Type,
    /// Global or shared (generic addresses already resolved).
    pub space: Space,
    /// Lanes that take part.
    pub mask: u64,
    /// Destination register offset in the register file (`None` for `red`).
    pub dst: Option<usize>,
    /// Per-lane address.
    pub addr: Vec<u64>,
    /// Per-lane first operand (`b` of `atom d, [a], b`; compare value of cas).
    pub a: Vec<u64>,
    /// Per-lane second operand (new value of cas).
    pub b: Vec<u64>,
}

/// Barrier state of a warp that executed `bar.sync`/`bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierWait {
    /// Barrier id (0..16).
    pub id: u32,
    /// Number of threads expected (`bar.sync a, b`), if given.
    pub count: Option<u32>,
    /// The barrier instruction (its destination receives `bar.red` results).
    pub inst: u32,
    /// Threads of this warp that arrived.
    pub threads: u32,
}

/// One warp.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Threads per warp (32, or 64 on AMD-like configs).
    pub lanes: u32,
    /// Warp index within its CTA.
    pub warp_id: u32,
    /// Registers: `regs[reg * lanes + lane]`, zero-extended from the
    /// register's declared width.
    pub regs: Vec<u64>,
    /// Predicates: one lane mask per predicate register.
    pub preds: Vec<u64>,
    /// Reconvergence stack (current PC and active mask on top).
    pub stack: SimtStack,
    /// Device-function calls in progress, outermost first.
    pub frames: Vec<crate::func::call::CallFrame>,
    /// Per-lane addresses of the last memory instruction executed.
    pub addrs: Vec<u64>,
    /// Per-thread local memory: `local[lane * local_size ..]`.
    pub local: Vec<u8>,
    /// Bytes of local memory per thread.
    pub local_size: u32,
    /// `%tid.{x,y,z}` of each lane.
    pub tid: [Vec<u32>; 3],
    /// Lanes that hold a thread (the last warp of a CTA may be partial).
    pub valid: u64,
    /// Set while the warp waits at a CTA barrier.
    pub barrier: Option<BarrierWait>,
    /// Contribution of this warp to a `bar.red` (popc count or and/or value).
    pub bar_red: u32,
    /// Atomics issued but not yet performed, oldest first.
    pub pending_atomics: VecDeque<PendingAtomic>,
    /// Performed atomics, kept so their lane buffers are reused.
    pub atomic_pool: Vec<PendingAtomic>,
    /// Warp instructions executed.
    pub executed: u64,
    /// Operand buffers of the interpreter (3 × 64 lanes, allocated on first
    /// use), kept to avoid zeroing stack arrays on every instruction.
    pub scratch: Vec<u64>,
    /// The carry flag (`CC.CF`) of each lane, written by `.cc` instructions
    /// and read by `addc`/`subc`/`madc`.
    pub carry: u64,
}

impl Warp {
    /// A warp of `lanes` lanes, `threads` of which hold threads starting at
    /// linear thread index `first_thread` of a CTA shaped `block`.
    #[allow(clippy::too_many_arguments)] // one per dimension of a warp's shape
    pub fn new(
        warp_id: u32,
        lanes: u32,
        first_thread: u32,
        threads: u32,
        block: [u32; 3],
        nregs: usize,
        npreds: usize,
        local_size: u32,
    ) -> Warp {
        let valid = lanes_mask(threads.min(lanes));
        let mut tid = [
            vec![0u32; lanes as usize],
            vec![0u32; lanes as usize],
            vec![0u32; lanes as usize],
        ];
        for l in 0..lanes {
            let t = first_thread + l;
            tid[0][l as usize] = t % block[0].max(1);
            tid[1][l as usize] = (t / block[0].max(1)) % block[1].max(1);
            tid[2][l as usize] = t / (block[0].max(1) * block[1].max(1));
        }
        Warp {
            lanes,
            warp_id,
            regs: vec![0; nregs * lanes as usize],
            preds: vec![0; npreds],
            stack: SimtStack::new(valid),
            frames: Vec::new(),
            addrs: vec![0; lanes as usize],
            local: vec![0; local_size as usize * lanes as usize],
            local_size,
            tid,
            valid,
            barrier: None,
            bar_red: 0,
            pending_atomics: VecDeque::new(),
            atomic_pool: Vec::new(),
            executed: 0,
            scratch: Vec::new(),
            carry: 0,
        }
    }

    /// Makes this (finished) warp a fresh warp of another CTA with the same
    /// shape, reusing its buffers: predicates and local memory are zeroed
    /// as in a new warp, and so are the registers `zeroed_regs` (the
    /// kernel's registers a thread may read before writing,
    /// [`crate::func::layout::KernelInfo::zeroed_regs`]); every other
    /// register is written by each thread before it reads it, so its stale
    /// value is never seen and a reused warp behaves identically.
    pub fn reset(&mut self, first_thread: u32, threads: u32, block: [u32; 3], zeroed_regs: &[u32]) {
        self.zero_registers(zeroed_regs);
        self.preds.fill(0);
        self.local.fill(0);
        self.addrs.fill(0);
        self.start(first_thread, threads, block);
    }

    /// Zeroes the registers `regs` in every lane.
    fn zero_registers(&mut self, regs: &[u32]) {
        let n = self.lanes as usize;
        for &r in regs {
            self.regs[r as usize * n..][..n].fill(0);
        }
    }

    /// The thread-dependent and control state of a fresh warp (buffers
    /// already zeroed and sized).
    fn start(&mut self, first_thread: u32, threads: u32, block: [u32; 3]) {
        let lanes = self.lanes;
        self.valid = lanes_mask(threads.min(lanes));
        // Thread ids of consecutive lanes: divide once, then count up
        // (x wraps into y, y into z), as `t % bx`, `(t / bx) % by`,
        // `t / (bx · by)` would give.
        let (bx, by) = (block[0].max(1), block[1].max(1));
        let (mut x, mut y, mut z) = (
            first_thread % bx,
            (first_thread / bx) % by,
            first_thread / (bx * by),
        );
        for l in 0..lanes as usize {
            self.tid[0][l] = x;
            self.tid[1][l] = y;
            self.tid[2][l] = z;
            x += 1;
            if x == bx {
                x = 0;
                y += 1;
                if y == by {
                    y = 0;
                    z += 1;
                }
            }
        }
        self.stack.restart(self.valid);
        self.frames.clear();
        self.barrier = None;
        self.bar_red = 0;
        self.pending_atomics.clear();
        self.executed = 0;
    }

    /// Makes this warp (of any shape, e.g. left over from another launch)
    /// the warp [`Warp::new`] would create with these arguments, reusing
    /// its buffers: every field is set or zeroed as `new` does, except the
    /// registers outside `zeroed_regs`, which keep stale values no thread
    /// reads (see [`Warp::reset`]; the interpreter's internal buffer pools
    /// keep their capacity only).
    #[allow(clippy::too_many_arguments)]
    pub fn reinit(
        &mut self,
        warp_id: u32,
        lanes: u32,
        first_thread: u32,
        threads: u32,
        block: [u32; 3],
        nregs: usize,
        npreds: usize,
        local_size: u32,
        zeroed_regs: &[u32],
    ) {
        let n = lanes as usize;
        self.lanes = lanes;
        self.warp_id = warp_id;
        self.regs.resize(nregs * n, 0);
        self.zero_registers(zeroed_regs);
        for (v, len) in [(&mut self.preds, npreds), (&mut self.addrs, n)] {
            v.clear();
            v.resize(len, 0);
        }
        self.local.clear();
        self.local.resize(local_size as usize * n, 0);
        self.local_size = local_size;
        for t in &mut self.tid {
            t.clear();
            t.resize(n, 0);
        }
        self.scratch.clear();
        self.start(first_thread, threads, block);
    }

    /// Bytes of the warp's per-thread buffers (registers, local memory).
    pub fn buffer_bytes(&self) -> usize {
        self.regs.capacity() * 8 + self.local.capacity()
    }

    /// True when every lane has exited.
    pub fn done(&self) -> bool {
        self.stack.top().is_none()
    }

    /// The next instruction, if the warp has not finished.
    pub fn pc(&self) -> Option<u32> {
        self.stack.pc()
    }

    /// Reads register `reg` (dense id) of `lane`.
    pub fn reg(&self, reg: u32, lane: u32) -> u64 {
        self.regs[reg as usize * self.lanes as usize + lane as usize]
    }

    /// Predicate `pred` of `lane`.
    pub fn pred(&self, pred: u32, lane: u32) -> bool {
        self.preds[pred as usize] >> lane & 1 == 1
    }
}
