//! Per-kernel facts the interpreter precomputes once per launch: variable
//! addresses, shared/local sizes, register widths, reconvergence PCs, op
//! classes and the pre-decoded instructions.

use crate::analysis::KernelAnalysis;
use crate::analysis::live_in::registers_read_before_written;
use crate::func::decode::{Fast, decode};
use crate::func::dyninst::OpClass;
use crate::func::simt_stack::NO_RPC;
use crate::ir::{InstId, Kernel, RegRef, Space};

/// Precomputed per-kernel data for execution.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// Reconvergence PC of each instruction (meaningful for branches).
    pub rpc: Vec<u32>,
    /// Op class of each instruction.
    pub class: Vec<OpClass>,
    /// Declared width in bits of each register.
    pub reg_bits: Vec<u8>,
    /// Address of each variable in its own space (global address for
    /// module-scope `.global`/`.const`, offset for `.shared`/`.local`).
    pub var_addr: Vec<u64>,
    /// Bytes of static shared memory per CTA.
    pub shared_static: u64,
    /// Offset of `.extern .shared` (dynamic) arrays.
    pub shared_dynamic_base: u64,
    /// Bytes of local memory per thread.
    pub local_size: u32,
    /// Registers each instruction reads (for the timing model's scoreboard).
    pub reads: Vec<Vec<RegRef>>,
    /// Registers each instruction writes.
    pub writes: Vec<Vec<RegRef>>,
    /// Each instruction pre-decoded for the interpreter's fast paths.
    pub fast: Vec<Fast>,
    /// Registers a thread may read before writing them (ascending): the
    /// only ones a reused warp must zero
    /// ([`crate::analysis::live_in`]).
    pub zeroed_regs: Vec<u32>,
}

impl KernelInfo {
    /// Lays out `kernel`'s variables; `global_addr` gives the device address
    /// of each module-scope `.global`/`.const` variable by name.
    pub fn new(
        kernel: &Kernel,
        analysis: &KernelAnalysis,
        global_addr: &dyn Fn(&str) -> Option<u64>,
    ) -> KernelInfo {
        let rpc = (0..kernel.insts.len())
            .map(|i| {
                analysis
                    .reconvergence_pc(InstId(i as u32))
                    .map_or(NO_RPC, |p| p.0)
            })
            .collect();
        let class = kernel.insts.iter().map(OpClass::of).collect();
        let reg_bits: Vec<u8> = kernel.regs.iter().map(|r| r.ty.bits() as u8).collect();
        let mut var_addr = vec![0u64; kernel.vars.len()];
        let mut shared = 0u64;
        let mut local = 0u64;
        for (i, v) in kernel.vars.iter().enumerate() {
            let align = u64::from(v.align.max(1));
            match v.space {
                Space::Shared if !v.is_extern => {
                    shared = shared.next_multiple_of(align);
                    var_addr[i] = shared;
                    shared += v.size;
                }
                Space::Local => {
                    local = local.next_multiple_of(align);
                    var_addr[i] = local;
                    local += v.size;
                }
                Space::Global | Space::Const => var_addr[i] = global_addr(&v.name).unwrap_or(0),
                _ => {}
            }
        }
        let dyn_base = shared.next_multiple_of(16);
        for (i, v) in kernel.vars.iter().enumerate() {
            if v.space == Space::Shared && v.is_extern {
                var_addr[i] = dyn_base;
            }
        }
        let fast = decode(kernel, &reg_bits, &var_addr);
        let mut reads: Vec<Vec<RegRef>> = kernel.insts.iter().map(|i| i.reads()).collect();
        let mut writes: Vec<Vec<RegRef>> = kernel.insts.iter().map(|i| i.writes()).collect();
        call_registers(kernel, &mut reads, &mut writes);
        let mut zeroed_regs = registers_read_before_written(kernel, &analysis.cfg);
        if !kernel.funcs.is_empty() {
            // Device functions are not reached from the entry block in the
            // CFG (calls are not edges), so their registers are zeroed
            // conservatively.
            zeroed_regs.extend(kernel.funcs.iter().flat_map(|f| f.regs.0..f.regs.1));
            zeroed_regs.sort_unstable();
            zeroed_regs.dedup();
        }
        KernelInfo {
            zeroed_regs,
            fast,
            rpc,
            class,
            reg_bits,
            var_addr,
            shared_static: shared,
            shared_dynamic_base: dyn_base,
            local_size: local.next_multiple_of(8) as u32,
            reads,
            writes,
        }
    }
}

/// Register arguments and return values of calls (old-style `.reg`
/// parameters) for the scoreboard: a `call` reads its register arguments
/// and writes its register return slots; a function's `ret` reads its
/// register return values.
fn call_registers(kernel: &Kernel, reads: &mut [Vec<RegRef>], writes: &mut [Vec<RegRef>]) {
    use crate::ir::Opcode;
    use crate::ir::call::ArgSlot;
    if kernel.calls.is_empty() {
        return;
    }
    let reg = |a: &crate::ir::call::ArgInfo| match a.slot {
        ArgSlot::Reg(r) => Some(RegRef::Reg(r)),
        ArgSlot::Var(_) => None,
    };
    for site in &kernel.calls {
        let i = site.inst.0 as usize;
        reads[i].extend(site.args.iter().filter_map(reg));
        writes[i].extend(site.rets.iter().filter_map(reg));
    }
    for f in &kernel.funcs {
        let range = f.entry.0 as usize..f.end.0 as usize;
        for (inst, r) in kernel.insts[range.clone()].iter().zip(&mut reads[range]) {
            if inst.op == Opcode::Ret {
                r.extend(f.rets.iter().filter_map(reg));
            }
        }
    }
    for v in reads.iter_mut().chain(writes.iter_mut()) {
        v.sort();
        v.dedup();
    }
}
