//! Registers a thread may read before it has written them: the data
//! registers live at kernel entry (backward liveness over the CFG, where
//! only an unguarded write kills), plus every register `shfl` reads (a
//! lane reads another lane's register, which that lane may never have
//! written: it diverged, exited, or holds no thread). Only these registers
//! can show a fresh warp's zero initial value; the others are always
//! written by the reading thread first, so a reused warp need not zero
//! them.

use crate::analysis::Cfg;
use crate::analysis::liveness::{RegSet, block_live_in, data_regs};
use crate::ir::{Kernel, Opcode};

/// The data registers of `kernel` (ascending ids) that some thread may
/// read before writing them.
pub fn registers_read_before_written(kernel: &Kernel, cfg: &Cfg) -> Vec<u32> {
    let n = kernel.regs.len();
    let mut always = RegSet::new(n);
    for inst in kernel.insts.iter().filter(|i| i.op == Opcode::Shfl) {
        for r in data_regs(inst.reads()) {
            always.insert(r);
        }
    }
    if let Some(entry) = block_live_in(kernel, cfg).first() {
        always.union(entry);
    }
    (0..n as u32).filter(|&r| always.contains(r)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the registers read before written in `body`.
    fn live_in(body: &str) -> Vec<String> {
        let src = format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n\
             .visible .entry k(.param .u64 out)\n{{\n\
             .reg .pred %p<3>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n{body}\nret;\n}}\n"
        );
        let p = crate::compile(crate::SourceFile::new("t.ptx", src)).expect("valid");
        let k = &p.module.kernels[0];
        registers_read_before_written(k, &Cfg::new(k))
            .into_iter()
            .map(|r| k.regs[r as usize].name.clone())
            .collect()
    }

    #[test]
    fn written_first_is_not_live_guarded_writes_do_not_kill() {
        // %r1 written then read; %r2 read first; %r3 only written under a
        // guard before its read; %r4 written on one path only.
        let mut regs = live_in(
            "mov.u32 %r1, %tid.x;\nadd.u32 %r5, %r1, %r2;\n\
             setp.eq.u32 %p1, %r1, 0;\n@%p1 mov.u32 %r3, 1;\nadd.u32 %r6, %r3, 1;\n\
             @%p1 bra L;\nmov.u32 %r4, 2;\nL:\nadd.u32 %r7, %r4, 1;",
        );
        regs.sort();
        assert_eq!(regs, ["%r2", "%r3", "%r4"]);
    }

    #[test]
    fn shfl_sources_are_always_zeroed() {
        let regs = live_in("mov.u32 %r1, %tid.x;\nshfl.sync.down.b32 %r2, %r1, 1, 31, -1;");
        assert_eq!(regs, ["%r1"]);
    }
}
