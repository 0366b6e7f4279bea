//! An estimate of a kernel's registers per thread, for occupancy when
//! neither the manifest (`regs_per_thread`) nor a `.maxnreg` directive gives
//! it: the **maximum register pressure** under classic backward liveness
//! analysis, plus a small fixed overhead.
//!
//! Algorithm (iterative dataflow liveness in [`crate::analysis::liveness`],
//! then a backward sweep):
//!
//! 1. Per basic block, `use(b)` = data registers read before any unguarded
//!    write in the block, `def(b)` = registers an unguarded instruction of
//!    the block writes (a guarded write may not happen, so it does not
//!    kill).
//! 2. `live_in(b) = use(b) ∪ (live_out(b) − def(b))`, `live_out(b) = ∪
//!    live_in(s)` over successors `s`, iterated in reverse block order to a
//!    fixed point.
//! 3. Each block is swept backward from `live_out(b)`. At each instruction
//!    the pressure is the weight of `live_after ∪ writes` (a value the
//!    instruction defines occupies a register even when nothing reads it),
//!    then `live_before = (live_after − unguarded writes) ∪ reads`.
//!
//! The weight of a register is its width in 32-bit registers (a `.b64` or
//! `.f64` counts 2, anything of 32 bits or less counts 1); predicates live
//! in their own file and are not counted. The estimate is the largest
//! pressure anywhere plus [`FIXED_OVERHEAD`]. Sets are dense bit vectors
//! indexed by register id.
//!
//! It approximates what `ptxas` would allocate: PTX registers are virtual,
//! and the real allocator also rematerialises, spills and keeps a few
//! registers for itself, so the manifest's `regs_per_thread` (from
//! `nvcc --resource-usage` or `cuobjdump --dump-resource-usage`) is the
//! number to use when it is known.

use crate::analysis::Cfg;
use crate::analysis::liveness::{RegSet, block_live_in, data_regs};
use crate::ir::Kernel;

/// Registers added to the maximum pressure: what `ptxas` typically keeps
/// beyond the live values (gpusim's choice, not a measured constant).
pub const FIXED_OVERHEAD: u32 = 2;

/// The largest number of 32-bit registers live at any instruction of
/// `kernel` (see the module documentation), without the overhead.
pub fn max_live_registers(kernel: &Kernel, cfg: &Cfg) -> u32 {
    let n = kernel.regs.len();
    let weight: Vec<u32> = kernel
        .regs
        .iter()
        .map(|r| r.ty.bits().div_ceil(32).max(1))
        .collect();
    let live_in = block_live_in(kernel, cfg);
    let mut max = 0u32;
    for (bi, b) in cfg.blocks.iter().enumerate() {
        let mut live = RegSet::new(n);
        for s in &b.succs {
            live.union(&live_in[s.index()]);
        }
        let mut w: u32 = live.ids().map(|r| weight[r as usize]).sum();
        max = max.max(w);
        for inst in kernel.insts[b.start.0 as usize..b.end.0 as usize]
            .iter()
            .rev()
        {
            let writes: Vec<u32> = data_regs(inst.writes()).collect();
            // Pressure at the instruction: live after it plus what it defines.
            let extra: u32 = writes
                .iter()
                .filter(|&&r| !live.contains(r))
                .map(|&r| weight[r as usize])
                .sum();
            max = max.max(w + extra);
            if inst.guard.is_none() {
                for &r in &writes {
                    if live.remove(r) {
                        w -= weight[r as usize];
                    }
                }
            }
            for r in data_regs(inst.reads()) {
                if live.insert(r) {
                    w += weight[r as usize];
                }
            }
            max = max.max(w);
        }
        debug_assert!(live_in[bi].ids().all(|r| live.contains(r)));
    }
    max
}

/// The registers-per-thread estimate: [`max_live_registers`] plus
/// [`FIXED_OVERHEAD`].
pub fn estimate_registers(kernel: &Kernel, cfg: &Cfg) -> u32 {
    max_live_registers(kernel, cfg) + FIXED_OVERHEAD
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel_max_live(body: &str) -> u32 {
        let src = format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n\
             .visible .entry k(.param .u64 out)\n{{\n\
             .reg .pred %p<3>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<6>;\n{body}\nret;\n}}\n"
        );
        let p = crate::compile(crate::SourceFile::new("t.ptx", src)).expect("valid");
        let k = &p.module.kernels[0];
        max_live_registers(k, &Cfg::new(k))
    }

    #[test]
    fn straight_line_chain_counts_widths() {
        // Hand count: %rd1 (2) dies at the `cvta` that defines %rd2 (2), so
        // the register is reused: 2. Then %rd2 with %r1 = 3, %rd2 with %r2
        // = 3 (the add's source %r1 dies there): at most 3.
        let n = kernel_max_live(
            "ld.param.u64 %rd1, [out];\n\
             cvta.to.global.u64 %rd2, %rd1;\n\
             mov.u32 %r1, 7;\n\
             add.u32 %r2, %r1, 1;\n\
             st.global.u32 [%rd2], %r2;",
        );
        assert_eq!(n, 3);
    }

    #[test]
    fn many_values_live_at_once() {
        // Just before the first add, %r1..%r6 (6) and %rd2 (2) are live: 8.
        // Each add then retires one source: 7, 6, …
        let n = kernel_max_live(
            "ld.param.u64 %rd1, [out];\n\
             cvta.to.global.u64 %rd2, %rd1;\n\
             mov.u32 %r1, 1;\nmov.u32 %r2, 2;\nmov.u32 %r3, 3;\n\
             mov.u32 %r4, 4;\nmov.u32 %r5, 5;\nmov.u32 %r6, 6;\n\
             add.u32 %r7, %r1, %r2;\n\
             add.u32 %r7, %r7, %r3;\n\
             add.u32 %r7, %r7, %r4;\n\
             add.u32 %r7, %r7, %r5;\n\
             add.u32 %r7, %r7, %r6;\n\
             st.global.u32 [%rd2], %r7;",
        );
        assert_eq!(n, 8);
    }

    #[test]
    fn loop_carried_values_stay_live_across_the_back_edge() {
        // In the loop: %r1 (counter), %r2 (sum), %rd2 (address, 2) are all
        // live around the back edge = 4, and `add %r3` defines one more
        // while they are live = 5.
        let n = kernel_max_live(
            "ld.param.u64 %rd1, [out];\n\
             cvta.to.global.u64 %rd2, %rd1;\n\
             mov.u32 %r1, 0;\nmov.u32 %r2, 0;\n\
             L: add.u32 %r3, %r1, 3;\n\
             add.u32 %r2, %r2, %r3;\n\
             add.u32 %r1, %r1, 1;\n\
             setp.lt.u32 %p1, %r1, 10;\n\
             @%p1 bra L;\n\
             st.global.u32 [%rd2], %r2;",
        );
        assert_eq!(n, 5);
    }

    #[test]
    fn estimate_adds_the_overhead() {
        let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
                   .visible .entry k()\n{\nret;\n}\n";
        let p = crate::compile(crate::SourceFile::new("t.ptx", src)).expect("valid");
        let k = &p.module.kernels[0];
        assert_eq!(estimate_registers(k, &Cfg::new(k)), FIXED_OVERHEAD);
    }
}
