//! An SM's side of work-group synchronization (the controller is
//! `wg_sync.rs`): the outcome of waiting instructions, holding a CTA's
//! warps while its work-group waits or sleeps (they are charged
//! `sync_wait`), and releasing them.

use crate::func::GlobalMemory;
use crate::func::exec::perform_atomic;
use crate::ir::{Opcode, Operand, flag};
use crate::timing::sm::{LaunchCtx, Sm};

/// One executed waiting instruction (`atom.global.cas.wait`,
/// `ld.global.wait`, `wait.global`) and what its first active lane saw.
/// The kernels run them on one lane (the master thread, as HeteroSync
/// does); the condition of a multi-lane one is its first lane's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitSeen {
    /// SM.
    pub sm: u32,
    /// CTA slot on the SM.
    pub cta_slot: u32,
    /// The work-group: the CTA's linear index in the grid.
    pub wg: u32,
    /// Instruction id.
    pub pc: u32,
    /// Word address the lane waits on.
    pub addr: u64,
    /// The value it waits for.
    pub expected: u32,
    /// The value it found.
    pub observed: u32,
    /// The separate `wait.global` instruction (arms a monitor without
    /// comparing; MonR/MonRS's form).
    pub explicit: bool,
}

impl WaitSeen {
    /// The comparison held: the WG got what it waited for.
    pub fn succeeded(&self) -> bool {
        self.observed == self.expected && !self.explicit
    }
}

/// What a global atomic performed at the L2 tells the synchronization
/// controller.
#[derive(Clone, Debug, Default)]
pub struct AtomicSeen {
    /// The waiting instruction's outcome, if it was one.
    pub wait: Option<WaitSeen>,
    /// Word addresses the atomic accessed (not for waiting loads, which
    /// only read).
    pub accessed: Vec<u64>,
}

impl Sm {
    /// Performs the pending global atomic of the instruction tracked by
    /// in-flight record `id` (its first packet reached L2) and reports it
    /// in `seen` (emptied first).
    pub fn perform_global_atomic(
        &mut self,
        id: u32,
        global: &mut GlobalMemory,
        ctx: &LaunchCtx<'_>,
        seen: &mut AtomicSeen,
    ) {
        seen.wait = None;
        seen.accessed.clear();
        let slot = self.inflight[id as usize].slot as usize;
        let (c, index) = (
            self.warps[slot].cta as usize,
            self.warps[slot].index as usize,
        );
        let cta = self.ctas[c].as_mut().expect("an atomic's CTA is resident");
        let w = &mut cta.warps[index];
        if let Some(p) = w.pending_atomics.front() {
            let inst = &ctx.kernel.insts[p.inst.0 as usize];
            let waiting = inst.op == Opcode::Wait || inst.mods.has(flag::WAIT);
            let load = inst.op != Opcode::Atom;
            if p.mask != 0 {
                let l = p.mask.trailing_zeros() as usize;
                if waiting {
                    seen.wait = Some(WaitSeen {
                        sm: self.id,
                        cta_slot: c as u32,
                        wg: cta.linear,
                        pc: p.inst.0,
                        addr: p.addr[l],
                        expected: p.a[l] as u32,
                        observed: global.read_uint(p.addr[l], 4).unwrap_or(0) as u32,
                        explicit: inst.op == Opcode::Wait,
                    });
                }
                if !(waiting && load) {
                    let mut m = p.mask;
                    while m != 0 {
                        let k = m.trailing_zeros() as usize;
                        m &= m - 1;
                        seen.accessed.push(p.addr[k] & !3);
                    }
                }
            }
        }
        perform_atomic(w, global, &mut cta.shared);
    }

    /// Records the outcome of a waiting load executed at issue (under
    /// `--sync busy` it is the plain load it extends; the controller only
    /// counts it).
    pub(crate) fn note_waiting_load(&mut self, slot: u32, pc: u32, ctx: &LaunchCtx<'_>) {
        let inst = &ctx.kernel.insts[pc as usize];
        if inst.op != Opcode::Ld || !inst.mods.has(flag::WAIT) || self.dyn_buf.exec == 0 {
            return;
        }
        let w = &self.warps[slot as usize];
        let c = w.cta as usize;
        let cta = self.ctas[c].as_ref().expect("live CTA");
        let fw = &cta.warps[w.index as usize];
        let lane = self.dyn_buf.exec.trailing_zeros();
        let value = |o: Operand| match o {
            Operand::Imm(v) => v,
            Operand::Reg(r) => fw.reg(r.0, lane),
            _ => 0,
        };
        self.wait_events.push(WaitSeen {
            sm: self.id,
            cta_slot: c as u32,
            wg: cta.linear,
            pc,
            addr: fw.addrs[lane as usize] & !3,
            expected: value(inst.src[1]) as u32,
            observed: value(inst.dst) as u32,
            explicit: false,
        });
    }

    /// Stops the warps of CTA slot `c` from issuing until cycle `until`
    /// (`u64::MAX`: until released); their cycles are charged `sync_wait`.
    pub fn hold_cta(&mut self, c: u32, until: u64) {
        let n = self.ctas[c as usize].as_ref().map_or(0, |x| x.slots.len());
        for i in 0..n {
            let s = self.ctas[c as usize].as_ref().expect("checked").slots[i];
            self.warps[s as usize].sleep_until = until;
            self.mark_dirty(s);
        }
        self.issue_dirty = true;
    }

    /// Lets the warps of CTA slot `c` issue again from cycle `at`.
    pub fn release_cta(&mut self, c: u32, at: u64) {
        self.hold_cta(c, at);
    }

    /// True if no warp of CTA slot `c` has an instruction in flight or a
    /// store unacknowledged (its context can be saved).
    pub fn cta_drained(&self, c: u32) -> bool {
        self.ctas[c as usize].as_ref().is_some_and(|cta| {
            cta.slots
                .iter()
                .all(|&s| self.warps[s as usize].outstanding == 0)
        })
    }
}
