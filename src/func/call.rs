//! Device-function calls and returns in the functional core.
//!
//! A `call` by the executing lanes `M` moves the caller's top SIMT entry to
//! the instruction after the call and pushes a frame entry for `M` at the
//! callee's first instruction (one per distinct target of an indirect call,
//! so the targets run one after another, like the paths of a divergent
//! branch). Divergence inside the callee reconverges at the callee's own
//! ipdoms; paths that only meet at the function's end wait in the frame
//! entry. A `ret` by lanes `R` copies their return values to the call
//! site's slots and removes `R` from the frame entry and everything above
//! it; when the frame entry is empty it pops, and the caller resumes after
//! the call with every lane that waited there. Arguments and return values
//! are copied per lane at the call and at each return (call-site `.param`
//! variables and a function's parameters are per-thread local storage).
//! A recursive function's registers, predicates and local variables are
//! saved at each call and restored for the returning lanes.

use crate::func::error::SimErrorKind;
use crate::func::layout::KernelInfo;
use crate::func::warp::Warp;
use crate::ir::call::{ArgInfo, ArgSlot, Callee, FuncInfo};
use crate::ir::{Kernel, Operand};

/// The deepest call nesting a warp may reach (a call beyond it is a
/// [`SimErrorKind::CallStackOverflow`]).
pub const MAX_CALL_DEPTH: usize = 1024;

/// One call in progress.
#[derive(Clone, Debug)]
pub struct CallFrame {
    /// Index of the frame's entry in the SIMT stack.
    pub stack_index: u32,
    /// The call site ([`Kernel::calls`]).
    pub site: u32,
    /// The callee ([`Kernel::funcs`]).
    pub func: u32,
    /// The callee's state before the call (recursive callees only).
    pub saved: Option<Box<SavedState>>,
}

/// A recursive callee's registers, predicates and locals at the call.
#[derive(Clone, Debug)]
pub struct SavedState {
    regs: Vec<u64>,
    preds: Vec<u64>,
    /// Each local variable's bytes for every lane, variable-major.
    local: Vec<u8>,
}

/// Reads an argument slot of `lane` into `out` (`bytes` long).
fn read_slot(w: &Warp, info: &KernelInfo, a: ArgInfo, lane: usize, out: &mut [u8]) {
    match a.slot {
        ArgSlot::Var(v) => {
            let at = lane * w.local_size as usize + info.var_addr[v.0 as usize] as usize;
            if let Some(src) = w.local.get(at..at + out.len()) {
                out.copy_from_slice(src);
            }
        }
        ArgSlot::Reg(r) => {
            let v = w.regs[r.0 as usize * w.lanes as usize + lane].to_le_bytes();
            let n = out.len().min(8);
            out[..n].copy_from_slice(&v[..n]);
        }
    }
}

/// Writes `data` to an argument slot of `lane`.
fn write_slot(
    w: &mut Warp,
    info: &KernelInfo,
    kernel: &Kernel,
    a: ArgInfo,
    lane: usize,
    data: &[u8],
) {
    match a.slot {
        ArgSlot::Var(v) => {
            let at = lane * w.local_size as usize + info.var_addr[v.0 as usize] as usize;
            if let Some(dst) = w.local.get_mut(at..at + data.len()) {
                dst.copy_from_slice(data);
            }
        }
        ArgSlot::Reg(r) => {
            let mut b = [0u8; 8];
            let n = data.len().min(8);
            b[..n].copy_from_slice(&data[..n]);
            let bits = kernel.regs[r.0 as usize].ty.bits().min(64);
            let mut v = u64::from_le_bytes(b);
            if bits < 64 {
                v &= (1u64 << bits) - 1;
            }
            w.regs[r.0 as usize * w.lanes as usize + lane] = v;
        }
    }
}

/// Copies `from[i]` to `to[i]` for every lane of `mask` (values are read
/// for all lanes before any is written, so overlapping slots are safe).
fn copy_args(
    w: &mut Warp,
    info: &KernelInfo,
    kernel: &Kernel,
    from: &[ArgInfo],
    to: &[ArgInfo],
    mask: u64,
    restore: Option<(&FuncInfo, &SavedState)>,
) {
    let mut buf: Vec<u8> = Vec::new();
    let sizes: Vec<usize> = from
        .iter()
        .zip(to)
        .map(|(a, b)| a.bytes.min(b.bytes) as usize)
        .collect();
    let per_lane: usize = sizes.iter().sum();
    let lanes: Vec<usize> = (0..w.lanes as usize)
        .filter(|l| mask >> l & 1 == 1)
        .collect();
    buf.resize(per_lane * lanes.len(), 0);
    let mut at = 0;
    for &l in &lanes {
        for (a, &n) in from.iter().zip(&sizes) {
            read_slot(w, info, *a, l, &mut buf[at..at + n]);
            at += n;
        }
    }
    if let Some((f, saved)) = restore {
        restore_state(w, info, kernel, f, saved, mask);
    }
    let mut at = 0;
    for &l in &lanes {
        for (b, &n) in to.iter().zip(&sizes) {
            write_slot(w, info, kernel, *b, l, &buf[at..at + n]);
            at += n;
        }
    }
}

fn save_state(w: &Warp, info: &KernelInfo, kernel: &Kernel, f: &FuncInfo) -> SavedState {
    let n = w.lanes as usize;
    let regs = w.regs[f.regs.0 as usize * n..f.regs.1 as usize * n].to_vec();
    let preds = w.preds[f.preds.0 as usize..f.preds.1 as usize].to_vec();
    let mut local = Vec::new();
    for v in &f.locals {
        let (addr, size) = (
            info.var_addr[v.0 as usize] as usize,
            kernel.vars[v.0 as usize].size as usize,
        );
        for l in 0..n {
            let at = l * w.local_size as usize + addr;
            local.extend_from_slice(&w.local[at..at + size]);
        }
    }
    SavedState { regs, preds, local }
}

fn restore_state(
    w: &mut Warp,
    info: &KernelInfo,
    kernel: &Kernel,
    f: &FuncInfo,
    s: &SavedState,
    mask: u64,
) {
    let n = w.lanes as usize;
    for (k, r) in (f.regs.0 as usize..f.regs.1 as usize).enumerate() {
        for l in (0..n).filter(|l| mask >> l & 1 == 1) {
            w.regs[r * n + l] = s.regs[k * n + l];
        }
    }
    for (k, p) in (f.preds.0 as usize..f.preds.1 as usize).enumerate() {
        w.preds[p] = (w.preds[p] & !mask) | (s.preds[k] & mask);
    }
    let mut at = 0;
    for v in &f.locals {
        let (addr, size) = (
            info.var_addr[v.0 as usize] as usize,
            kernel.vars[v.0 as usize].size as usize,
        );
        for l in 0..n {
            if mask >> l & 1 == 1 {
                let to = l * w.local_size as usize + addr;
                w.local[to..to + size].copy_from_slice(&s.local[at..at + size]);
            }
            at += size;
        }
    }
}

/// Executes `call` at `pc` for the lanes `exec`. On error returns the kind
/// and, for a bad indirect target, the lane and the value.
pub fn call(
    w: &mut Warp,
    kernel: &Kernel,
    info: &KernelInfo,
    pc: u32,
    exec: u64,
) -> Result<(), (SimErrorKind, Option<usize>, Option<u64>)> {
    let inst = &kernel.insts[pc as usize];
    let Operand::Imm(site_id) = inst.src[0] else {
        w.stack.goto(pc + 1);
        return Ok(());
    };
    let site = &kernel.calls[site_id as usize];
    if exec == 0 {
        w.stack.goto(pc + 1);
        return Ok(());
    }
    // Lanes grouped by target, in ascending function order.
    let mut groups: Vec<(u32, u64)> = Vec::new();
    match site.callee {
        Callee::Direct(f) => groups.push((f, exec)),
        Callee::Indirect(r) => {
            let n = w.lanes as usize;
            for l in (0..n).filter(|l| exec >> l & 1 == 1) {
                let addr = w.regs[r.0 as usize * n + l];
                let Some(f) = kernel.func_at_address(addr) else {
                    return Err((SimErrorKind::BadCallTarget, Some(l), Some(addr)));
                };
                let f = f as u32;
                match groups.iter_mut().find(|g| g.0 == f) {
                    Some(g) => g.1 |= 1 << l,
                    None => groups.push((f, 1 << l)),
                }
            }
            groups.sort_unstable();
        }
    }
    for &(f, _) in &groups {
        let func = &kernel.funcs[f as usize];
        let fits = |formal: &[ArgInfo], actual: &[ArgInfo]| {
            formal.len() == actual.len()
                && formal.iter().zip(actual).all(|(a, b)| a.bytes == b.bytes)
        };
        if !fits(&func.params, &site.args) || !fits(&func.rets, &site.rets) {
            return Err((
                SimErrorKind::CallSignature {
                    func: func.name.clone(),
                },
                None,
                None,
            ));
        }
    }
    if w.frames.len() + groups.len() > MAX_CALL_DEPTH {
        let func = kernel.funcs[groups[0].0 as usize].name.clone();
        return Err((
            SimErrorKind::CallStackOverflow {
                func,
                limit: MAX_CALL_DEPTH,
            },
            None,
            None,
        ));
    }
    w.stack.call(pc + 1);
    // Push so that the lowest function runs first.
    for &(f, lanes) in groups.iter().rev() {
        let func = &kernel.funcs[f as usize];
        let saved = func
            .recursive
            .then(|| Box::new(save_state(w, info, kernel, func)));
        copy_args(w, info, kernel, &site.args, &func.params, lanes, None);
        let index = w.stack.push_frame(func.entry.0, lanes);
        w.frames.push(CallFrame {
            stack_index: index as u32,
            site: site_id as u32,
            func: f,
            saved,
        });
    }
    Ok(())
}

/// Executes `ret` inside a function for the lanes `exec` (the warp's top
/// entry is `active`, executing at `pc`).
pub fn ret(w: &mut Warp, kernel: &Kernel, info: &KernelInfo, pc: u32, active: u64, exec: u64) {
    let Some(frame) = w.frames.last_mut() else {
        return;
    };
    if exec != 0 {
        let func = &kernel.funcs[frame.func as usize];
        let site = &kernel.calls[frame.site as usize];
        let index = frame.stack_index as usize;
        let saved = frame.saved.take();
        copy_args(
            w,
            info,
            kernel,
            &func.rets,
            &site.rets,
            exec,
            saved.as_deref().map(|s| (func, s)),
        );
        if let Some(f) = w.frames.last_mut() {
            f.saved = saved;
        }
        w.stack.leave_frame(index, exec);
        drop_finished_frames(w);
    }
    if active & !exec != 0 {
        w.stack.goto(pc + 1);
    }
}

/// Pops the frames whose entries have left the SIMT stack (every lane
/// returned or exited).
pub fn drop_finished_frames(w: &mut Warp) {
    while w
        .frames
        .last()
        .is_some_and(|f| f.stack_index as usize >= w.stack.depth())
    {
        w.frames.pop();
    }
}
