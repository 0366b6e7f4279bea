//! Instruction semantics: executes the next instruction of a warp for its
//! active lanes (guard applied) and returns the [`DynInst`].
//!
//! Conventions: a register slot holds its value zero-extended from the
//! register's declared width; an operation of type `T` reads the low
//! `T.bits()` of its operands and writes a result that is sign- or
//! zero-extended (by `T`'s signedness) to the destination register's width.
//! Integer division by zero gives all ones (quotient) and the dividend
//! (remainder), as NVIDIA GPUs do; `MIN / -1` wraps.

use crate::func::decode::{Fast, FastOp, FastSrc, MemForm, NO_GUARD};
use crate::func::dyninst::{DynInst, MemAccess};
use crate::func::error::{SimError, SimErrorData, SimErrorKind};
use crate::func::float::*;
use crate::func::layout::KernelInfo;
use crate::func::memory::{
    GlobalMemory, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE, slice_read, slice_read_n, slice_write,
    slice_write_n,
};
use crate::func::simt_stack::{Entry, NO_RPC};
use crate::func::warp::{BarrierWait, PendingAtomic, Warp};
use crate::ir::*;

mod ext;

/// Launch-wide values the special registers read.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaunchEnv {
    /// `%ctaid`
    pub ctaid: [u32; 3],
    /// `%ntid`
    pub ntid: [u32; 3],
    /// `%nctaid`
    pub nctaid: [u32; 3],
    /// `%smid`
    pub smid: u32,
    /// `%nsmid`
    pub nsmid: u32,
    /// `%nwarpid`
    pub nwarpid: u32,
    /// `%clock64` (the timing model's cycle; functional mode: instructions executed).
    pub clock: u64,
    /// `%gridid`: the launch's sequence number within its run.
    pub gridid: u64,
    /// `%dynamic_smem_size`: dynamic shared memory bytes of the launch.
    pub dynamic_smem: u32,
    /// `%total_smem_size`: shared memory bytes of a CTA (static + dynamic).
    pub total_smem: u32,
}

/// Everything an instruction may touch besides its warp.
pub struct ExecCtx<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Its precomputed layout.
    pub info: &'a KernelInfo,
    /// Global memory.
    pub global: &'a mut GlobalMemory,
    /// The CTA's shared memory.
    pub shared: &'a mut [u8],
    /// The parameter buffer.
    pub params: &'a [u8],
    /// Special-register values.
    pub env: LaunchEnv,
    /// Waiting loads (`ld.global.wait`, `wait.global`) become
    /// compare-and-wait atomics performed where atomics are (the L2 in the
    /// timing model): a `cas` of the expected value with itself, which
    /// returns the word and never changes it. `false` (functional runs and
    /// `--sync busy`): they are the plain loads they extend.
    pub waits_at_l2: bool,
}

/// The low `n` bits set (`1 <= n <= 64`; 0 gives 0).
#[inline(always)]
fn mask_bits(n: u32) -> u64 {
    if n == 0 {
        0
    } else {
        u64::MAX >> (64 - n.min(64))
    }
}

/// Sign-extends the low `n` bits (`1 <= n <= 64`).
#[inline(always)]
fn sext(v: u64, n: u32) -> i64 {
    let s = 64 - n.clamp(1, 64);
    ((v << s) as i64) >> s
}

/// An operand resolved once per instruction, read per lane.
#[derive(Clone, Copy, Debug)]
enum Val {
    Reg(usize),
    Imm(u64),
    Tid(usize),
    Lane,
    Pred(usize, bool),
    /// `%lanemask_*`: depends on the reading lane.
    LaneMask(LaneMaskKind),
}

#[inline(always)]
fn get(w: &Warp, v: Val, lane: usize) -> u64 {
    match v {
        Val::Reg(o) => w.regs[o + lane],
        Val::Imm(x) => x,
        Val::Tid(d) => u64::from(w.tid[d][lane]),
        Val::Lane => lane as u64,
        Val::Pred(p, neg) => (w.preds[p] >> lane & 1) ^ u64::from(neg),
        Val::LaneMask(k) => u64::from(k.mask(lane as u32)),
    }
}

/// The value of special register `s` for warp `warp_id`.
#[inline]
fn special(e: &LaunchEnv, warp_id: u32, s: SpecialReg) -> Val {
    match s {
        SpecialReg::Tid(d) => Val::Tid(d as usize),
        SpecialReg::LaneId => Val::Lane,
        SpecialReg::Ntid(d) => Val::Imm(u64::from(e.ntid[d as usize])),
        SpecialReg::Ctaid(d) => Val::Imm(u64::from(e.ctaid[d as usize])),
        SpecialReg::Nctaid(d) => Val::Imm(u64::from(e.nctaid[d as usize])),
        SpecialReg::WarpId => Val::Imm(u64::from(warp_id)),
        SpecialReg::NWarpId => Val::Imm(u64::from(e.nwarpid)),
        SpecialReg::SmId => Val::Imm(u64::from(e.smid)),
        SpecialReg::NSmId => Val::Imm(u64::from(e.nsmid)),
        SpecialReg::Clock => Val::Imm(e.clock & 0xffff_ffff),
        SpecialReg::Clock64 | SpecialReg::GlobalTimer => Val::Imm(e.clock),
        SpecialReg::LaneMask(k) => Val::LaneMask(k),
        SpecialReg::GridId => Val::Imm(e.gridid),
        SpecialReg::DynamicSmemSize => Val::Imm(u64::from(e.dynamic_smem)),
        SpecialReg::TotalSmemSize => Val::Imm(u64::from(e.total_smem)),
    }
}

/// A destination register: offset in the register file and width.
#[derive(Clone, Copy, Debug)]
struct Dst {
    off: usize,
    bits: u32,
}

#[inline(always)]
fn put(w: &mut Warp, d: Dst, lane: usize, v: u64, t: Type) {
    let tb = t.bits();
    let v = if tb < d.bits && t.is_signed() {
        sext(v, tb) as u64
    } else {
        v & mask_bits(tb)
    };
    w.regs[d.off + lane] = v & mask_bits(d.bits);
}

#[inline(always)]
fn lanes(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// Stores `N` bytes of `value` for every lane of `m` at `w.addrs` through
/// `write`; returns the first lane whose access is misaligned or out of
/// bounds.
#[inline(always)]
fn store_lanes<const N: usize>(
    w: &Warp,
    m: u64,
    value: Val,
    mut write: impl FnMut(u64, u64) -> bool,
) -> Option<usize> {
    for l in lanes(m) {
        let a = w.addrs[l];
        if a & (N as u64 - 1) != 0 || !write(a, get(w, value, l)) {
            return Some(l);
        }
    }
    None
}

/// Loads `size` bytes for every lane of `m` from `w.addrs` through `read`
/// into `d`; returns the first lane whose access is misaligned or out of
/// bounds. Inlined with a constant `size` and a constant-size `read`, this
/// is the specialised per-lane loop.
#[inline(always)]
fn load_lanes(
    w: &mut Warp,
    m: u64,
    d: Dst,
    t: Type,
    size: usize,
    mut read: impl FnMut(u64) -> Option<u64>,
) -> Option<usize> {
    for l in lanes(m) {
        let a = w.addrs[l];
        let v = if a & (size as u64 - 1) != 0 {
            None
        } else {
            read(a)
        };
        match v {
            Some(v) => put(w, d, l, v, t),
            None => return Some(l),
        }
    }
    None
}

/// Reads operand `v` for all `n` lanes into `out` (inactive lanes too: ALU
/// operations have no side effects, and whole-warp loops vectorize).
#[inline(always)]
fn fetch(w: &Warp, v: Val, n: usize, out: &mut [u64; 64]) {
    match v {
        Val::Reg(o) => out[..n].copy_from_slice(&w.regs[o..o + n]),
        Val::Imm(x) => out[..n].fill(x),
        Val::Tid(d) => {
            for (o, &t) in out[..n].iter_mut().zip(&w.tid[d][..n]) {
                *o = u64::from(t);
            }
        }
        Val::Lane => {
            for (l, o) in out[..n].iter_mut().enumerate() {
                *o = l as u64;
            }
        }
        Val::Pred(p, neg) => {
            let bits = w.preds[p] ^ if neg { u64::MAX } else { 0 };
            for (l, o) in out[..n].iter_mut().enumerate() {
                *o = bits >> l & 1;
            }
        }
        Val::LaneMask(k) => {
            for (l, o) in out[..n].iter_mut().enumerate() {
                *o = u64::from(k.mask(l as u32));
            }
        }
    }
}

/// Writes `vals` (results of type `t`) to the active lanes `m` of `d`.
#[inline(always)]
fn store(w: &mut Warp, d: Dst, m: u64, n: usize, t: Type, vals: &[u64; 64]) {
    let tb = t.bits();
    let dm = mask_bits(d.bits);
    let ds = &mut w.regs[d.off..d.off + n];
    if tb < d.bits && t.is_signed() {
        for l in lanes(m) {
            ds[l] = sext(vals[l], tb) as u64 & dm;
        }
        return;
    }
    let mk = mask_bits(tb) & dm;
    if m == mask_bits(n as u32) {
        for (o, &v) in ds.iter_mut().zip(&vals[..n]) {
            *o = v & mk;
        }
    } else {
        for l in lanes(m) {
            ds[l] = vals[l] & mk;
        }
    }
}

/// The lane count the interpreter specialises for (NVIDIA warps): whole-warp
/// loops over fixed-size arrays, no `memcpy` calls, branch-free masking.
const W32: usize = 32;

/// Runs `$body` for every lane `$l` of `$m` in lane order (a counted loop
/// for a full 32-lane mask); the body may `return` from the caller.
macro_rules! for_lanes32 {
    ($m:expr, |$l:ident| $body:block) => {
        if $m == mask_bits(W32 as u32) {
            #[allow(clippy::needless_range_loop)] // lane-indexed like the partial form
            for $l in 0..W32 $body
        } else {
            let mut bits = $m;
            while bits != 0 {
                let $l = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                $body
            }
        }
    };
}

/// The warp's operand buffers (allocated on first use: 32-lane warps
/// never need them).
#[inline(always)]
fn take_scratch(w: &mut Warp) -> Vec<u64> {
    let mut s = std::mem::take(&mut w.scratch);
    if s.len() < 3 * 64 {
        s.resize(3 * 64, 0);
    }
    s
}

/// [`fetch`] for exactly `N` lanes, by value (no scratch buffer needed).
#[inline(always)]
fn fetch_n<const N: usize>(w: &Warp, v: Val) -> [u64; N] {
    match v {
        Val::Reg(o) => w.regs[o..o + N].try_into().expect("register row"),
        Val::Imm(x) => [x; N],
        Val::Tid(d) => {
            let t: &[u32; N] = w.tid[d][..N].try_into().expect("tid row");
            let mut r = [0u64; N];
            for l in 0..N {
                r[l] = u64::from(t[l]);
            }
            r
        }
        Val::Lane => {
            let mut r = [0u64; N];
            for (l, v) in r.iter_mut().enumerate() {
                *v = l as u64;
            }
            r
        }
        Val::Pred(p, neg) => {
            let bits = w.preds[p] ^ if neg { u64::MAX } else { 0 };
            let mut r = [0u64; N];
            for (l, v) in r.iter_mut().enumerate() {
                *v = bits >> l & 1;
            }
            r
        }
        Val::LaneMask(k) => {
            let mut r = [0u64; N];
            for (l, v) in r.iter_mut().enumerate() {
                *v = u64::from(k.mask(l as u32));
            }
            r
        }
    }
}

/// [`store`] for exactly `N` lanes: inactive lanes keep their value (a
/// whole-row loop for a full mask, else a loop over the set bits).
#[inline(always)]
fn store_n<const N: usize>(w: &mut Warp, d: Dst, m: u64, t: Type, vals: &[u64; N]) {
    let tb = t.bits();
    let dm = mask_bits(d.bits);
    let ds: &mut [u64; N] = (&mut w.regs[d.off..d.off + N])
        .try_into()
        .expect("register row");
    if tb < d.bits && t.is_signed() {
        for l in lanes(m) {
            ds[l] = sext(vals[l], tb) as u64 & dm;
        }
        return;
    }
    let mk = mask_bits(tb) & dm;
    if m == mask_bits(N as u32) {
        for l in 0..N {
            ds[l] = vals[l] & mk;
        }
    } else {
        for l in lanes(m & mask_bits(N as u32)) {
            ds[l] = vals[l] & mk;
        }
    }
}

#[inline(always)]
fn map1(w: &mut Warp, m: u64, a: Val, d: Dst, t: Type, f: impl Fn(u64) -> u64) {
    let n = w.lanes as usize;
    if n == W32 {
        let x = fetch_n::<W32>(w, a);
        let mut r = [0u64; W32];
        for l in 0..W32 {
            r[l] = f(x[l]);
        }
        store_n(w, d, m, t, &r);
        return;
    }
    let mut s = take_scratch(w);
    let x: &mut [u64; 64] = (&mut s[..64]).try_into().expect("scratch");
    fetch(w, a, n, x);
    for v in &mut x[..n] {
        *v = f(*v);
    }
    store(w, d, m, n, t, x);
    w.scratch = s;
}

#[inline(always)]
fn map2(w: &mut Warp, m: u64, a: Val, b: Val, d: Dst, t: Type, f: impl Fn(u64, u64) -> u64) {
    let n = w.lanes as usize;
    if n == W32 {
        let x = fetch_n::<W32>(w, a);
        let y = fetch_n::<W32>(w, b);
        let mut r = [0u64; W32];
        for l in 0..W32 {
            r[l] = f(x[l], y[l]);
        }
        store_n(w, d, m, t, &r);
        return;
    }
    let mut s = take_scratch(w);
    let (x, rest) = s.split_at_mut(64);
    let x: &mut [u64; 64] = x.try_into().expect("scratch");
    let y: &mut [u64; 64] = (&mut rest[..64]).try_into().expect("scratch");
    fetch(w, a, n, x);
    fetch(w, b, n, y);
    for (v, &y) in x[..n].iter_mut().zip(&y[..n]) {
        *v = f(*v, y);
    }
    store(w, d, m, n, t, x);
    w.scratch = s;
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn map3(
    w: &mut Warp,
    m: u64,
    a: Val,
    b: Val,
    c: Val,
    d: Dst,
    t: Type,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let n = w.lanes as usize;
    if n == W32 {
        let x = fetch_n::<W32>(w, a);
        let y = fetch_n::<W32>(w, b);
        let z = fetch_n::<W32>(w, c);
        let mut r = [0u64; W32];
        for l in 0..W32 {
            r[l] = f(x[l], y[l], z[l]);
        }
        store_n(w, d, m, t, &r);
        return;
    }
    let mut s = take_scratch(w);
    let (x, rest) = s.split_at_mut(64);
    let (y, z) = rest.split_at_mut(64);
    let x: &mut [u64; 64] = x.try_into().expect("scratch");
    let y: &mut [u64; 64] = y.try_into().expect("scratch");
    let z: &mut [u64; 64] = (&mut z[..64]).try_into().expect("scratch");
    fetch(w, a, n, x);
    fetch(w, b, n, y);
    fetch(w, c, n, z);
    for l in 0..n {
        x[l] = f(x[l], y[l], z[l]);
    }
    store(w, d, m, n, t, x);
    w.scratch = s;
}

#[inline(always)]
fn set_pred(w: &mut Warp, p: usize, lane: usize, v: bool) {
    let bit = 1u64 << lane;
    if v {
        w.preds[p] |= bit
    } else {
        w.preds[p] &= !bit
    }
}

struct Exec<'w, 'c, 'a> {
    w: &'w mut Warp,
    cx: &'c mut ExecCtx<'a>,
    /// The kernel (also in `cx`; held apart so instructions can be borrowed
    /// while the context is mutated).
    kernel: &'a Kernel,
    pc: u32,
    n: usize,
}

impl<'a> Exec<'_, '_, 'a> {
    #[cold]
    #[inline(never)]
    fn err(&self, kind: SimErrorKind, lane: Option<usize>, addr: Option<u64>) -> SimError {
        let inst = &self.cx.kernel.insts[self.pc as usize];
        SimError::from(SimErrorData {
            kind,
            kernel: self.cx.kernel.name.clone(),
            inst: Some(self.pc),
            line: inst.line,
            text: String::new(),
            cta: self.cx.env.ctaid,
            warp: self.w.warp_id,
            lane: lane.map(|l| l as u32),
            addr,
        })
    }

    #[inline]
    fn val(&self, o: Operand) -> Val {
        match o {
            Operand::Reg(r) => Val::Reg(r.0 as usize * self.n),
            Operand::Imm(x) => Val::Imm(x),
            Operand::Pred { id, negate } => Val::Pred(id.0 as usize, negate),
            Operand::VarAddr(v) => Val::Imm(self.cx.info.var_addr[v.0 as usize]),
            Operand::Special(s) => special(&self.cx.env, self.w.warp_id, s),
            _ => Val::Imm(0),
        }
    }

    #[inline]
    fn dst(&self, o: Operand) -> Dst {
        match o {
            Operand::Reg(r) => Dst {
                off: r.0 as usize * self.n,
                bits: u32::from(self.cx.info.reg_bits[r.0 as usize]),
            },
            _ => Dst {
                off: usize::MAX,
                bits: 0,
            },
        }
    }

    fn pred_dst(o: Operand) -> Option<usize> {
        match o {
            Operand::Pred { id, .. } => Some(id.0 as usize),
            _ => None,
        }
    }
}

/// A fast instruction's operand for all 32 lanes: a register row read in
/// place, or one value for every lane.
#[derive(Clone, Copy)]
enum Row<'r> {
    R(&'r [u64; W32]),
    K(u64),
}

impl Row<'_> {
    #[inline(always)]
    fn at(self, l: usize) -> u64 {
        match self {
            Row::R(r) => r[l],
            Row::K(k) => k,
        }
    }
}

/// A fast source operand: a register id or one value for every lane;
/// `None` for the per-lane special registers (`%tid`, `%laneid`), which
/// the general interpreter handles.
#[derive(Clone, Copy)]
enum Src {
    R(usize),
    K(u64),
}

#[inline(always)]
fn fast_src(w: &Warp, env: &LaunchEnv, s: FastSrc) -> Option<Src> {
    match s {
        FastSrc::Reg(r) => Some(Src::R(r as usize)),
        FastSrc::Imm(x) => Some(Src::K(x)),
        FastSrc::Special(sr) => match special(env, w.warp_id, sr) {
            Val::Imm(x) => Some(Src::K(x)),
            _ => None,
        },
    }
}

/// The register file of a 32-lane warp split around destination row `d`:
/// the rows below it, the row itself, the rows above it (so sources are
/// read in place while the destination is written).
#[inline(always)]
fn split_rows(regs: &mut [u64], d: usize) -> (&[u64], &mut [u64; W32], &[u64]) {
    let (lo, rest) = regs.split_at_mut(d * W32);
    let (dst, hi) = rest.split_at_mut(W32);
    (lo, dst.try_into().expect("register row"), hi)
}

/// Source row `r` (not the destination `d`) of a file split by [`split_rows`].
#[inline(always)]
fn other_row<'r>(lo: &'r [u64], hi: &'r [u64], d: usize, r: usize) -> &'r [u64; W32] {
    let s = if r < d {
        &lo[r * W32..r * W32 + W32]
    } else {
        let o = (r - d - 1) * W32;
        &hi[o..o + W32]
    };
    s.try_into().expect("register row")
}

/// Writes `v(l) & mask` to the lanes `m` of `dst`.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // lane-indexed like the other forms
fn out32(dst: &mut [u64; W32], m: u64, mask: u64, v: impl Fn(usize) -> u64) {
    if m == mask_bits(W32 as u32) {
        for l in 0..W32 {
            dst[l] = v(l) & mask;
        }
    } else {
        // Only the active lanes, found by bit scanning (no per-lane
        // branch on the mask; inactive lanes keep their value).
        for l in lanes(m) {
            dst[l] = v(l) & mask;
        }
    }
}

/// Like [`out32`] for an instruction that reads its own destination:
/// `v(l, old)` gets lane `l`'s current value (elementwise, so updating in
/// place is exact, and no 256-byte copy of the row is needed).
#[inline(always)]
#[allow(clippy::needless_range_loop)] // lane-indexed like the other forms
fn inplace32(dst: &mut [u64; W32], m: u64, mask: u64, v: impl Fn(usize, u64) -> u64) {
    if m == mask_bits(W32 as u32) {
        for l in 0..W32 {
            dst[l] = v(l, dst[l]) & mask;
        }
    } else {
        for l in lanes(m) {
            dst[l] = v(l, dst[l]) & mask;
        }
    }
}

/// Operand `s` of a file split around `d` as a [`Row`]; a source that is
/// the destination itself is copied into `copy` first.
macro_rules! src_row {
    ($s:expr, $lo:expr, $hi:expr, $dst:expr, $d:expr, $copy:ident) => {
        match $s {
            Src::K(k) => Row::K(k),
            Src::R(r) if r == $d => {
                $copy = *$dst;
                Row::R(&$copy)
            }
            Src::R(r) => Row::R(other_row($lo, $hi, $d, r)),
        }
    };
}

/// A two-operand fast instruction written straight into the destination
/// row: one loop per operand form (register or constant), so constants
/// stay in registers and loops vectorize. `false` (nothing done) for a
/// per-lane special-register operand.
#[inline(always)]
fn bin32(w: &mut Warp, env: &LaunchEnv, f: &Fast, m: u64, op: impl Fn(u64, u64) -> u64) -> bool {
    let (Some(a), Some(b)) = (fast_src(w, env, f.a), fast_src(w, env, f.b)) else {
        return false;
    };
    let d = f.dst as usize;
    let mask = f.mask;
    let (lo, dst, hi) = split_rows(&mut w.regs, d);
    // The common `add r, r, x` / `add r, x, r` forms update in place.
    let other = |s: Src| match s {
        Src::R(r) if r != d => Some(Row::R(other_row(lo, hi, d, r))),
        Src::K(k) => Some(Row::K(k)),
        Src::R(_) => None,
    };
    match (a, b) {
        (Src::R(ra), b) if ra == d => match other(b) {
            Some(Row::R(y)) => {
                inplace32(dst, m, mask, |l, x| op(x, y[l]));
                return true;
            }
            Some(Row::K(k)) => {
                inplace32(dst, m, mask, |_, x| op(x, k));
                return true;
            }
            None => {}
        },
        (a, Src::R(rb)) if rb == d => match other(a) {
            Some(Row::R(x)) => {
                inplace32(dst, m, mask, |l, y| op(x[l], y));
                return true;
            }
            Some(Row::K(k)) => {
                inplace32(dst, m, mask, |_, y| op(k, y));
                return true;
            }
            None => {}
        },
        _ => {}
    }
    let (ca, cb): ([u64; W32], [u64; W32]);
    let x = src_row!(a, lo, hi, dst, d, ca);
    let y = src_row!(b, lo, hi, dst, d, cb);
    match (x, y) {
        (Row::R(x), Row::R(y)) => out32(dst, m, mask, |l| op(x[l], y[l])),
        (Row::R(x), Row::K(k)) => out32(dst, m, mask, |l| op(x[l], k)),
        (Row::K(k), Row::R(y)) => out32(dst, m, mask, |l| op(k, y[l])),
        (Row::K(j), Row::K(k)) => {
            let v = op(j, k);
            out32(dst, m, mask, |_| v)
        }
    }
    true
}

/// A three-operand fast instruction, like [`bin32`] (the common forms get
/// their own loops).
#[inline(always)]
fn tern32(
    w: &mut Warp,
    env: &LaunchEnv,
    f: &Fast,
    m: u64,
    op: impl Fn(u64, u64, u64) -> u64,
) -> bool {
    let (Some(a), Some(b), Some(c)) = (
        fast_src(w, env, f.a),
        fast_src(w, env, f.b),
        fast_src(w, env, f.c),
    ) else {
        return false;
    };
    let d = f.dst as usize;
    let mask = f.mask;
    let (lo, dst, hi) = split_rows(&mut w.regs, d);
    // Exactly one source is the destination (`mad r, a, b, r`): in place.
    let is_d = |s: Src| matches!(s, Src::R(r) if r == d);
    let other = |s: Src| match s {
        Src::R(r) => Row::R(other_row(lo, hi, d, r)),
        Src::K(k) => Row::K(k),
    };
    match (is_d(a), is_d(b), is_d(c)) {
        (false, false, true) => {
            let (x, y) = (other(a), other(b));
            inplace32(dst, m, mask, |l, z| op(x.at(l), y.at(l), z));
            return true;
        }
        (true, false, false) => {
            let (y, z) = (other(b), other(c));
            inplace32(dst, m, mask, |l, x| op(x, y.at(l), z.at(l)));
            return true;
        }
        (false, true, false) => {
            let (x, z) = (other(a), other(c));
            inplace32(dst, m, mask, |l, y| op(x.at(l), y, z.at(l)));
            return true;
        }
        _ => {}
    }
    let (ca, cb, cc): ([u64; W32], [u64; W32], [u64; W32]);
    let x = src_row!(a, lo, hi, dst, d, ca);
    let y = src_row!(b, lo, hi, dst, d, cb);
    let z = src_row!(c, lo, hi, dst, d, cc);
    match (x, y, z) {
        (Row::R(x), Row::R(y), Row::R(z)) => out32(dst, m, mask, |l| op(x[l], y[l], z[l])),
        (Row::R(x), Row::K(k), Row::R(z)) => out32(dst, m, mask, |l| op(x[l], k, z[l])),
        (Row::R(x), Row::K(k), Row::K(c)) => out32(dst, m, mask, |l| op(x[l], k, c)),
        (Row::R(x), Row::R(y), Row::K(c)) => out32(dst, m, mask, |l| op(x[l], y[l], c)),
        (x, y, z) => out32(dst, m, mask, |l| op(x.at(l), y.at(l), z.at(l))),
    }
    true
}

/// `x.mul_add(y, z)` (fused, rounded once to nearest) without the software
/// `fmaf` call on targets without an FMA instruction. The product of two
/// f32 is exact in f64, so `r = RN64(x*y + z)` is rounded once; rounding
/// `r` to f32 gives the correctly rounded result unless `r` is exactly
/// halfway between two f32 (the only case where rounding twice can differ:
/// RN64 is monotonic and every f32 midpoint is an f64). Halfway cases,
/// results below the f32 normal range (other midpoints), infinities and
/// NaNs (payloads) take `mul_add` itself.
#[inline(always)]
fn fma32_rn(x: f32, y: f32, z: f32) -> f32 {
    let r = f64::from(x) * f64::from(y) + f64::from(z);
    let b = r.to_bits();
    let e = (b >> 52) & 0x7ff;
    if e >= 1023 - 126 && e != 0x7ff && b & 0x1fff_ffff != 0x1000_0000 {
        r as f32
    } else {
        x.mul_add(y, z)
    }
}

/// Executes a pre-decoded ALU instruction of a 32-lane warp for the lanes
/// `m`; `false` (nothing done) if it has no fast form. Each arm is the
/// general interpreter's formula for that form (see [`crate::func::decode`]).
#[inline(never)]
fn alu_fast32(w: &mut Warp, env: &LaunchEnv, f: &Fast, m: u64) -> bool {
    alu_one32(w, env, f, m)
}

/// What [`alu_run32`] did.
struct AluRun {
    /// Instructions executed.
    executed: u32,
    /// The PC after the last one executed.
    pc: u32,
    /// Lanes executed, summed over the instructions.
    threads: u64,
}

/// Runs a 32-lane warp's consecutive fast ALU instructions from `pc`
/// (its top SIMT entry: lanes `active`, reconvergence PC `rpc`): at most
/// `max` of them, stopping before an instruction [`alu_fast32`] does not
/// do and after one whose next PC is `rpc`. Instruction `i` of the run sees
/// `%clock` = `clock + i`. The caller moves the top entry to the returned
/// PC (no instruction here changes the SIMT stack), so this is exactly
/// [`alu_fast32`] and `goto(pc + 1)` per instruction, without the driver's
/// per-instruction bookkeeping.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn alu_run32(
    w: &mut Warp,
    env: &mut LaunchEnv,
    fast: &[Fast],
    mut pc: u32,
    active: u64,
    rpc: u32,
    max: u32,
    clock: u64,
) -> AluRun {
    let mut executed = 0u32;
    let mut threads = 0u64;
    while let Some(f) = fast.get(pc as usize) {
        if !f.op.is_alu() {
            break;
        }
        let m = if f.guard == NO_GUARD {
            active
        } else {
            active & (w.preds[f.guard as usize] ^ f.guard_neg)
        };
        env.clock = clock + u64::from(executed);
        if !alu_one32(w, env, f, m) {
            break;
        }
        executed += 1;
        threads += lane_count(m);
        pc += 1;
        if pc == rpc || executed == max {
            break;
        }
    }
    AluRun {
        executed,
        pc,
        threads,
    }
}

/// [`alu_fast32`], inlined.
#[inline(always)]
fn alu_one32(w: &mut Warp, env: &LaunchEnv, f: &Fast, m: u64) -> bool {
    let tb = f.bits;
    let fl = |x: u64| f32::from_bits(x as u32);
    let u = |v: f32| u64::from(v.to_bits());
    match f.op {
        FastOp::General | FastOp::Bra | FastOp::MemScalarReg | FastOp::LdParam => false,
        FastOp::IAdd => bin32(w, env, f, m, |x, y| x.wrapping_add(y)),
        FastOp::ISub => bin32(w, env, f, m, |x, y| x.wrapping_sub(y)),
        FastOp::IMulLo => bin32(w, env, f, m, |x, y| x.wrapping_mul(y)),
        FastOp::IMadLo => tern32(w, env, f, m, |x, y, z| x.wrapping_mul(y).wrapping_add(z)),
        // `mul_part(.., Wide)` keeps the low 64 bits of the (sign- or
        // zero-extended) product, which a wrapping 64-bit multiply gives.
        FastOp::IMulWideS => bin32(w, env, f, m, |x, y| {
            (sext(x, tb) as u64).wrapping_mul(sext(y, tb) as u64)
        }),
        FastOp::IMulWideU => bin32(w, env, f, m, |x, y| x.wrapping_mul(y)),
        FastOp::IAnd => bin32(w, env, f, m, |x, y| x & y),
        FastOp::IOr => bin32(w, env, f, m, |x, y| x | y),
        FastOp::IXor => bin32(w, env, f, m, |x, y| x ^ y),
        FastOp::IShl => bin32(w, env, f, m, |x, y| {
            let s = y & 0xffff_ffff;
            if s >= u64::from(tb) { 0 } else { x << s }
        }),
        FastOp::IShrU => bin32(w, env, f, m, |x, y| {
            let s = y & 0xffff_ffff;
            if s >= u64::from(tb) { 0 } else { x >> s }
        }),
        FastOp::IShrS => bin32(w, env, f, m, |x, y| {
            (sext(x, tb) >> (y & 0xffff_ffff).min(63)) as u64
        }),
        FastOp::Mov => match f.a {
            // Per-lane special registers (the general path's `get`/`put`
            // with the same plain masking).
            FastSrc::Special(SpecialReg::Tid(d)) => {
                let tid: &[u32; W32] = w.tid[d as usize][..W32].try_into().expect("tid row");
                let (_, dst, _) = split_rows(&mut w.regs, f.dst as usize);
                out32(dst, m, f.mask, |l| u64::from(tid[l]));
                true
            }
            FastSrc::Special(SpecialReg::LaneId) => {
                let (_, dst, _) = split_rows(&mut w.regs, f.dst as usize);
                out32(dst, m, f.mask, |l| l as u64);
                true
            }
            _ => bin32(w, env, f, m, |x, _| x),
        },
        FastOp::FAdd32 => bin32(w, env, f, m, |x, y| u(fl(x) + fl(y))),
        FastOp::FSub32 => bin32(w, env, f, m, |x, y| u(fl(x) - fl(y))),
        FastOp::FMul32 => bin32(w, env, f, m, |x, y| u(fl(x) * fl(y))),
        FastOp::FFma32 => tern32(w, env, f, m, |x, y, z| u(fma32_rn(fl(x), fl(y), fl(z)))),
        FastOp::FDiv32 => bin32(w, env, f, m, |x, y| u(fl(x) / fl(y))),
        // `cvt`'s formulas: the source's `bits` sign- or zero-extended,
        // converted to f32 to nearest where asked, masked by `out32`.
        FastOp::CvtSext => bin32(w, env, f, m, |x, _| sext(x, tb) as u64),
        FastOp::CvtZext => bin32(w, env, f, m, |x, _| x & mask_bits(tb)),
        FastOp::CvtF32S => bin32(w, env, f, m, |x, _| {
            u(int_to_f32(i128::from(sext(x, tb)), Round::Rn))
        }),
        FastOp::CvtF32U => bin32(w, env, f, m, |x, _| {
            u(int_to_f32(i128::from(x & mask_bits(tb)), Round::Rn))
        }),
        FastOp::SetpInt => {
            let (Some(a), Some(b)) = (fast_src(w, env, f.a), fast_src(w, env, f.b)) else {
                return false;
            };
            let row = |s: Src| match s {
                Src::R(r) => Row::R(w.regs[r * W32..r * W32 + W32].try_into().expect("row")),
                Src::K(k) => Row::K(k),
            };
            let r = match (row(a), row(b)) {
                (Row::R(x), Row::R(y)) => setp_mask(f.ty, f.cmp, false, W32, |l| x[l], |l| y[l]),
                (Row::R(x), Row::K(k)) => setp_mask(f.ty, f.cmp, false, W32, |l| x[l], |_| k),
                (x, y) => setp_mask(f.ty, f.cmp, false, W32, |l| x.at(l), |l| y.at(l)),
            };
            let p = f.dst as usize;
            w.preds[p] = (w.preds[p] & !m) | (r & m);
            if f.dst2 != NO_GUARD {
                let q = f.dst2 as usize;
                w.preds[q] = (w.preds[q] & !m) | (!r & m);
            }
            true
        }
    }
}

/// What [`run_warp`] did.
pub(crate) struct Ran {
    /// Instructions executed.
    pub executed: u32,
    /// The last one executed (meaningful when `executed > 0`).
    pub last_pc: u32,
    /// It was a barrier or an exit (the CTA's barriers may release).
    pub released: bool,
}

/// Lanes in `m` (a full 32-lane mask without the software popcount of the
/// baseline x86-64 target).
#[inline(always)]
fn lane_count(m: u64) -> u64 {
    if m == mask_bits(W32 as u32) {
        W32 as u64
    } else {
        partial_lane_count(m)
    }
}

/// [`lane_count`] of a partial mask: out of line, so the compiler does not
/// compute the software popcount for every instruction and select.
#[cold]
#[inline(never)]
fn partial_lane_count(m: u64) -> u64 {
    u64::from(m.count_ones())
}

/// The functional driver's turn of one warp (no trace): the same as up to
/// `budget` rounds of "stop if the warp finished or waits at a barrier;
/// set `%clock` to `clock0 + i`; [`exec_into`]; perform its atomics; stop
/// after a barrier or exit", adding executed lanes to `threads`. Fast ALU
/// instructions and branches of 32-lane warps skip the [`DynInst`] record
/// (nothing reads it); `d` holds the last record written.
pub(crate) fn run_warp(
    w: &mut Warp,
    cx: &mut ExecCtx<'_>,
    budget: u32,
    clock0: u64,
    d: &mut DynInst,
    threads: &mut u64,
) -> Result<Ran, SimError> {
    let mut ran = Ran {
        executed: 0,
        last_pc: 0,
        released: false,
    };
    let w32 = w.lanes as usize == W32;
    // The decoded kernel, held apart from `cx` (which the instructions
    // mutate) so it is not reloaded every instruction.
    let info: &KernelInfo = cx.info;
    let fast: &[Fast] = &info.fast;
    while ran.executed < budget {
        let Some(&Entry {
            pc,
            mask: active,
            rpc,
        }) = w.stack.top()
        else {
            break;
        };
        if w.barrier.is_some() {
            break;
        }
        cx.env.clock = clock0 + u64::from(ran.executed);
        ran.last_pc = pc;
        ran.executed += 1;
        let f = &fast[pc as usize];
        if w32 && f.op != FastOp::General {
            let m = if f.guard == NO_GUARD {
                active
            } else {
                active & (w.preds[f.guard as usize] ^ f.guard_neg)
            };
            if f.op == FastOp::LdParam && m != 0 {
                let kernel = cx.kernel;
                let mut e = Exec {
                    w,
                    cx,
                    kernel,
                    pc,
                    n: W32,
                };
                // `None`: nothing done, the general path reports the fault.
                if e.ld_param32(m, f.b).is_some() {
                    e.w.executed += 1;
                    e.w.stack.goto(pc + 1);
                    *threads += lane_count(m);
                    continue;
                }
            }
            if let (FastOp::MemScalarReg, FastSrc::Reg(r), FastSrc::Imm(offset)) = (f.op, f.a, f.b)
            {
                // The fused whole-warp access straight from the decoded
                // form; if it declines, the general path redoes it.
                if m != 0 && mem_fused32(w, cx, f, m, r, offset) {
                    w.executed += 1;
                    w.stack.goto(pc + 1);
                    *threads += lane_count(m);
                    continue;
                }
                w.executed += 1;
                let kernel = cx.kernel;
                let mut e = Exec {
                    w,
                    cx,
                    kernel,
                    pc,
                    n: W32,
                };
                e.memory_scalar_reg(m, RegId(r), offset as i64)?;
                e.w.stack.goto(pc + 1);
                *threads += lane_count(m);
                continue;
            }
            if f.op == FastOp::Bra {
                w.executed += 1;
                w.stack.branch(m, f.dst, pc + 1, info.rpc[pc as usize]);
                *threads += lane_count(m);
                continue;
            }
            // A run of ALU instructions (the first one counted above).
            let run = alu_run32(
                w,
                &mut cx.env,
                fast,
                pc,
                active,
                rpc,
                budget - (ran.executed - 1),
                clock0 + u64::from(ran.executed - 1),
            );
            if run.executed > 0 {
                ran.executed += run.executed - 1;
                ran.last_pc = run.pc - 1;
                w.executed += u64::from(run.executed);
                w.stack.goto(run.pc);
                *threads += run.threads;
                continue;
            }
        }
        exec_into(w, cx, d)?;
        while !w.pending_atomics.is_empty() {
            perform_atomic(w, cx.global, cx.shared);
        }
        *threads += lane_count(d.exec);
        if d.barrier || d.exit {
            ran.released = true;
            break;
        }
    }
    Ok(ran)
}

/// Executes the warp's next instruction. The warp must not be finished.
pub fn exec(w: &mut Warp, cx: &mut ExecCtx<'_>) -> Result<DynInst, SimError> {
    let mut d = DynInst::blank();
    exec_into(w, cx, &mut d)?;
    Ok(d)
}

/// [`exec`] writing into a caller-owned record (the functional driver reuses
/// one, so the hot loop does not copy a fresh record out of every call).
pub fn exec_into(w: &mut Warp, cx: &mut ExecCtx<'_>, out: &mut DynInst) -> Result<(), SimError> {
    let (pc, active) = match w.stack.top() {
        Some(e) => (e.pc, e.mask),
        None => panic!("exec on a finished warp"),
    };
    let n = w.lanes as usize;
    let f = &cx.info.fast[pc as usize];
    let exec_mask = if f.guard == NO_GUARD {
        active
    } else {
        active & (w.preds[f.guard as usize] ^ f.guard_neg)
    };
    w.executed += 1;
    *out = DynInst {
        inst: InstId(pc),
        class: cx.info.class[pc as usize],
        active,
        exec: exec_mask,
        taken: 0,
        next_pc: None,
        mem: None,
        barrier: false,
        exit: false,
        waiting: f.waiting,
    };
    match f.op {
        FastOp::General | FastOp::LdParam => {}
        FastOp::Bra => {
            out.taken = exec_mask;
            w.stack
                .branch(exec_mask, f.dst, pc + 1, cx.info.rpc[pc as usize]);
            out.next_pc = w.stack.pc();
            return Ok(());
        }
        FastOp::MemScalarReg => {
            if let (FastSrc::Reg(r), FastSrc::Imm(offset)) = (f.a, f.b) {
                let kernel = cx.kernel;
                let mut e = Exec {
                    w,
                    cx,
                    kernel,
                    pc,
                    n,
                };
                out.mem = Some(e.memory_scalar_reg(exec_mask, RegId(r), offset as i64)?);
                e.w.stack.goto(pc + 1);
                out.next_pc = e.w.stack.pc();
                return Ok(());
            }
        }
        _ => {
            if n == W32 && alu_fast32(w, &cx.env, f, exec_mask) {
                w.stack.goto(pc + 1);
                out.next_pc = w.stack.pc();
                return Ok(());
            }
        }
    }
    let inst = &cx.kernel.insts[pc as usize];
    let d = out;
    let op = inst.op;
    let kernel = cx.kernel;
    let mut e = Exec {
        w,
        cx,
        kernel,
        pc,
        n,
    };
    match op {
        Opcode::Bra => {
            let target = inst.target().map_or(pc + 1, |t| t.0);
            d.taken = exec_mask;
            let rpc = e.cx.info.rpc[pc as usize];
            e.w.stack.branch(
                exec_mask,
                target,
                pc + 1,
                if rpc == NO_RPC { NO_RPC } else { rpc },
            );
        }
        Opcode::Call => {
            let (kernel, info) = (e.kernel, e.cx.info);
            if let Err((kind, lane, addr)) =
                crate::func::call::call(e.w, kernel, info, pc, exec_mask)
            {
                return Err(e.err(kind, lane, addr));
            }
            d.taken = exec_mask;
        }
        Opcode::Ret if !e.w.frames.is_empty() => {
            let (kernel, info) = (e.kernel, e.cx.info);
            crate::func::call::ret(e.w, kernel, info, pc, active, exec_mask);
            d.taken = exec_mask;
        }
        Opcode::Ret | Opcode::Exit => {
            d.exit = exec_mask != 0;
            e.w.stack.exit(exec_mask);
            if !e.w.frames.is_empty() {
                crate::func::call::drop_finished_frames(e.w);
            }
            if active & !exec_mask != 0 {
                e.w.stack.goto(pc + 1);
            }
        }
        Opcode::Bar => {
            let inst = &e.cx.kernel.insts[pc as usize];
            let id = get(e.w, e.val(inst.src[0]), 0) as u32;
            let count = match inst.mods.bar {
                BarKind::Sync | BarKind::Arrive if inst.nsrc == 2 => {
                    Some(get(e.w, e.val(inst.src[1]), 0) as u32)
                }
                BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr if inst.nsrc == 3 => {
                    Some(get(e.w, e.val(inst.src[1]), 0) as u32)
                }
                _ => None,
            };
            if inst.mods.bar != BarKind::Sync && inst.mods.bar != BarKind::Arrive {
                let pv = e.val(inst.src[inst.nsrc as usize - 1]);
                let mut ones = 0u32;
                for l in lanes(exec_mask) {
                    ones += get(e.w, pv, l) as u32;
                }
                e.w.bar_red = ones;
            }
            if inst.mods.bar != BarKind::Arrive && exec_mask != 0 {
                e.w.barrier = Some(BarrierWait {
                    id: id & 15,
                    count,
                    inst: pc,
                    threads: exec_mask.count_ones(),
                });
                d.barrier = true;
            }
            e.w.stack.goto(pc + 1);
        }
        Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red | Opcode::Wait => {
            let f = &e.cx.info.fast[pc as usize];
            d.mem = Some(match (f.op, inst.src[0]) {
                (
                    FastOp::MemScalarReg,
                    Operand::Addr(Address {
                        base: AddrBase::Reg(r),
                        offset,
                    }),
                ) => e.memory_scalar_reg(exec_mask, r, offset)?,
                (FastOp::LdParam, _) if n == W32 && exec_mask != 0 => {
                    match e.ld_param32(exec_mask, f.b) {
                        Some(acc) => acc,
                        None => e.memory(exec_mask)?,
                    }
                }
                _ => e.memory(exec_mask)?,
            });
            e.w.stack.goto(pc + 1);
        }
        Opcode::Tex => {
            d.mem = Some(e.tex(exec_mask)?);
            e.w.stack.goto(pc + 1);
        }
        Opcode::Shfl => {
            e.shfl(exec_mask);
            e.w.stack.goto(pc + 1);
        }
        Opcode::Vote | Opcode::Activemask => {
            e.vote(exec_mask, active);
            e.w.stack.goto(pc + 1);
        }
        Opcode::Membar | Opcode::Fence | Opcode::Nanosleep => e.w.stack.goto(pc + 1),
        _ => {
            e.alu(exec_mask);
            e.w.stack.goto(pc + 1);
        }
    }
    d.next_pc = e.w.stack.pc();
    Ok(())
}

impl<'a> Exec<'_, '_, 'a> {
    fn inst(&self) -> &'a Inst {
        &self.kernel.insts[self.pc as usize]
    }

    /// Arithmetic, logic, moves, conversions, comparisons, selects.
    fn alu(&mut self, m: u64) {
        if self.alu_ext(m) {
            return;
        }
        let inst = self.inst();
        let t = inst.ty;
        let tb = t.bits();
        let a = self.val(inst.src[0]);
        let b = self.val(inst.src[1]);
        let c = if inst.nsrc > 2 {
            self.val(inst.src[2])
        } else {
            Val::Imm(0)
        };
        let dd = if inst.nsrc > 3 {
            self.val(inst.src[3])
        } else {
            Val::Imm(0)
        };
        let mods = inst.mods;
        let ftz = mods.has(flag::FTZ);
        let sat = mods.has(flag::SAT);
        if inst.op == Opcode::Setp {
            self.setp(inst, m, a, b, c);
            return;
        }
        if t == Type::Pred {
            // Predicate logic and moves.
            let Some(p) = Self::pred_dst(inst.dst) else {
                return;
            };
            for l in lanes(m) {
                let x = get(self.w, a, l) & 1 == 1;
                let y = get(self.w, b, l) & 1 == 1;
                let v = match inst.op {
                    Opcode::And => x & y,
                    Opcode::Or => x | y,
                    Opcode::Xor => x ^ y,
                    Opcode::Not => !x,
                    _ => x, // mov
                };
                set_pred(self.w, p, l, v);
            }
            return;
        }
        let dst = self.dst(inst.dst);
        let w = &mut *self.w;
        match (inst.op, t.kind()) {
            (Opcode::Mov, _) => {
                for l in lanes(m) {
                    let v = get(w, a, l);
                    put(w, dst, l, v, t);
                }
            }
            (Opcode::Selp, _) => {
                for l in lanes(m) {
                    let v = if get(w, c, l) & 1 == 1 {
                        get(w, a, l)
                    } else {
                        get(w, b, l)
                    };
                    put(w, dst, l, v, t);
                }
            }
            (Opcode::Slct, _) => {
                let t2 = inst.ty2;
                for l in lanes(m) {
                    let cv = get(w, c, l);
                    let pos = if t2 == Type::F32 {
                        let f = f32::from_bits(cv as u32);
                        let f = if ftz { ftz32(f) } else { f };
                        f >= 0.0 || (f == 0.0)
                    } else {
                        sext(cv, 32) >= 0
                    };
                    let v = if pos { get(w, a, l) } else { get(w, b, l) };
                    put(w, dst, l, v, t);
                }
            }
            (Opcode::Cvt, _) => {
                for l in lanes(m) {
                    let v = cvt(get(w, a, l), inst.ty, inst.ty2, &mods);
                    put(w, dst, l, v, t);
                }
            }
            (Opcode::Cvta, _) => {
                let to = mods.has(flag::TO);
                let base = match mods.space {
                    Space::Shared => SHARED_WINDOW,
                    Space::Local => LOCAL_WINDOW,
                    _ => 0,
                };
                for l in lanes(m) {
                    let x = get(w, a, l);
                    let v = if to {
                        x.wrapping_sub(base)
                    } else {
                        x.wrapping_add(base)
                    };
                    put(w, dst, l, v & mask_bits(tb), t);
                }
            }
            (_, TypeKind::Float) if tb == 32 => {
                let r = if mods.round == Round::None {
                    Round::Rn
                } else {
                    mods.round
                };
                let approx = mods.has(flag::APPROX);
                let inp = move |x: u64| {
                    let v = f32::from_bits(x as u32);
                    if ftz { ftz32(v) } else { v }
                };
                let out = move |v: f32| {
                    let v = if sat { sat32(v) } else { v };
                    u64::from(if ftz { ftz32(v) } else { v }.to_bits())
                };
                let plain = r == Round::Rn && !ftz && !sat;
                let f = |x: u64| f32::from_bits(x as u32);
                let u = |v: f32| u64::from(v.to_bits());
                match inst.op {
                    // Fast paths: round-to-nearest without ftz/sat, branch-free lanes.
                    Opcode::Add if plain => map2(w, m, a, b, dst, t, |x, y| u(f(x) + f(y))),
                    Opcode::Sub if plain => map2(w, m, a, b, dst, t, |x, y| u(f(x) - f(y))),
                    Opcode::Mul if plain => map2(w, m, a, b, dst, t, |x, y| u(f(x) * f(y))),
                    Opcode::Mad | Opcode::Fma if plain => {
                        map3(w, m, a, b, c, dst, t, |x, y, z| u(f(x).mul_add(f(y), f(z))))
                    }
                    Opcode::Add => map2(w, m, a, b, dst, t, |x, y| out(add32(inp(x), inp(y), r))),
                    Opcode::Sub => map2(w, m, a, b, dst, t, |x, y| out(add32(inp(x), -inp(y), r))),
                    Opcode::Mul => map2(w, m, a, b, dst, t, |x, y| out(mul32(inp(x), inp(y), r))),
                    Opcode::Mad | Opcode::Fma => map3(w, m, a, b, c, dst, t, |x, y, z| {
                        out(fma32(inp(x), inp(y), inp(z), r))
                    }),
                    Opcode::Div if approx => {
                        map2(w, m, a, b, dst, t, |x, y| out(inp(x) * (1.0 / inp(y))))
                    }
                    Opcode::Div => map2(w, m, a, b, dst, t, |x, y| out(div32(inp(x), inp(y), r))),
                    Opcode::Abs => map1(w, m, a, dst, t, |x| {
                        out(f32::from_bits(inp(x).to_bits() & 0x7fff_ffff))
                    }),
                    Opcode::Neg => map1(w, m, a, dst, t, |x| {
                        out(f32::from_bits(inp(x).to_bits() ^ 0x8000_0000))
                    }),
                    Opcode::Min => map2(w, m, a, b, dst, t, |x, y| out(min32(inp(x), inp(y)))),
                    Opcode::Max => map2(w, m, a, b, dst, t, |x, y| out(max32(inp(x), inp(y)))),
                    Opcode::Sqrt if approx => map1(w, m, a, dst, t, |x| out(inp(x).sqrt())),
                    Opcode::Sqrt => map1(w, m, a, dst, t, |x| out(sqrt32(inp(x), r))),
                    Opcode::Rsqrt => map1(w, m, a, dst, t, |x| out(1.0 / inp(x).sqrt())),
                    Opcode::Rcp if approx => map1(w, m, a, dst, t, |x| out(1.0 / inp(x))),
                    Opcode::Rcp => map1(w, m, a, dst, t, |x| out(div32(1.0, inp(x), r))),
                    Opcode::Ex2 => map1(w, m, a, dst, t, |x| out(inp(x).exp2())),
                    Opcode::Lg2 => map1(w, m, a, dst, t, |x| out(inp(x).log2())),
                    Opcode::Sin => map1(w, m, a, dst, t, |x| out(inp(x).sin())),
                    Opcode::Cos => map1(w, m, a, dst, t, |x| out(inp(x).cos())),
                    _ => {}
                }
            }
            (_, TypeKind::Float) => {
                let r = if mods.round == Round::None {
                    Round::Rn
                } else {
                    mods.round
                };
                let f = f64::from_bits;
                let out = move |v: f64| if sat { sat64(v) } else { v }.to_bits();
                match inst.op {
                    Opcode::Add => map2(w, m, a, b, dst, t, |x, y| out(add64(f(x), f(y), r))),
                    Opcode::Sub => map2(w, m, a, b, dst, t, |x, y| out(add64(f(x), -f(y), r))),
                    Opcode::Mul => map2(w, m, a, b, dst, t, |x, y| out(mul64(f(x), f(y), r))),
                    Opcode::Mad | Opcode::Fma => map3(w, m, a, b, c, dst, t, |x, y, z| {
                        out(fma64(f(x), f(y), f(z), r))
                    }),
                    Opcode::Div => map2(w, m, a, b, dst, t, |x, y| out(div64(f(x), f(y), r))),
                    Opcode::Abs => map1(w, m, a, dst, t, |x| out(f64::from_bits(x & !(1 << 63)))),
                    Opcode::Neg => map1(w, m, a, dst, t, |x| out(f64::from_bits(x ^ (1 << 63)))),
                    Opcode::Min => map2(w, m, a, b, dst, t, |x, y| out(min64(f(x), f(y)))),
                    Opcode::Max => map2(w, m, a, b, dst, t, |x, y| out(max64(f(x), f(y)))),
                    Opcode::Sqrt => map1(w, m, a, dst, t, |x| out(sqrt64(f(x), r))),
                    Opcode::Rsqrt => map1(w, m, a, dst, t, |x| out(1.0 / f(x).sqrt())),
                    Opcode::Rcp => map1(w, m, a, dst, t, |x| out(div64(1.0, f(x), r))),
                    _ => {}
                }
            }
            _ => {
                // Operands of integer ALU instructions are registers of the
                // instruction's width, immediates or special registers:
                // already zero-extended to `tb` bits.
                let signed = t.is_signed();
                let mk = mask_bits(tb);
                let sx = move |v: u64| sext(v, tb);
                let wide = t.widened().unwrap_or(t);
                match inst.op {
                    Opcode::Add if sat && signed => map2(w, m, a, b, dst, t, |x, y| {
                        sat_or_wrap(x, y, tb, true, true, true)
                    }),
                    Opcode::Add => map2(w, m, a, b, dst, t, |x, y| x.wrapping_add(y)),
                    Opcode::Sub if sat && signed => map2(w, m, a, b, dst, t, |x, y| {
                        sat_or_wrap(x, y, tb, true, true, false)
                    }),
                    Opcode::Sub => map2(w, m, a, b, dst, t, |x, y| x.wrapping_sub(y)),
                    Opcode::Mul if mods.mul == MulMode::Lo => {
                        map2(w, m, a, b, dst, t, |x, y| x.wrapping_mul(y))
                    }
                    Opcode::Mul => {
                        let wt = if mods.mul == MulMode::Wide { wide } else { t };
                        map2(w, m, a, b, dst, wt, |x, y| {
                            mul_part(x, y, tb, signed, mods.mul)
                        })
                    }
                    Opcode::Mad if mods.mul == MulMode::Lo => {
                        map3(w, m, a, b, c, dst, t, |x, y, z| {
                            x.wrapping_mul(y).wrapping_add(z)
                        })
                    }
                    Opcode::Mad if mods.mul == MulMode::Hi && sat && signed && tb == 32 => {
                        map3(w, m, a, b, c, dst, t, |x, y, z| {
                            let p = mul_part(x, y, tb, true, MulMode::Hi);
                            (sext(p, 32) + sext(z, 32)).clamp(i32::MIN as i64, i32::MAX as i64)
                                as u64
                        })
                    }
                    Opcode::Mad => {
                        let wt = if mods.mul == MulMode::Wide { wide } else { t };
                        map3(w, m, a, b, c, dst, wt, |x, y, z| {
                            mul_part(x, y, tb, signed, mods.mul).wrapping_add(z)
                        })
                    }
                    Opcode::Div if signed => map2(w, m, a, b, dst, t, |x, y| {
                        if y == 0 {
                            mk
                        } else {
                            sx(x).wrapping_div(sx(y)) as u64
                        }
                    }),
                    Opcode::Div => map2(w, m, a, b, dst, t, |x, y| x.checked_div(y).unwrap_or(mk)),
                    Opcode::Rem if signed => map2(w, m, a, b, dst, t, |x, y| {
                        if y == 0 {
                            x
                        } else {
                            sx(x).wrapping_rem(sx(y)) as u64
                        }
                    }),
                    Opcode::Rem => map2(w, m, a, b, dst, t, |x, y| if y == 0 { x } else { x % y }),
                    Opcode::Abs => map1(w, m, a, dst, t, |x| sx(x).wrapping_abs() as u64),
                    Opcode::Neg => map1(w, m, a, dst, t, |x| sx(x).wrapping_neg() as u64),
                    Opcode::Min if signed => {
                        map2(w, m, a, b, dst, t, |x, y| sx(x).min(sx(y)) as u64)
                    }
                    Opcode::Min => map2(w, m, a, b, dst, t, |x, y| x.min(y)),
                    Opcode::Max if signed => {
                        map2(w, m, a, b, dst, t, |x, y| sx(x).max(sx(y)) as u64)
                    }
                    Opcode::Max => map2(w, m, a, b, dst, t, |x, y| x.max(y)),
                    Opcode::And => map2(w, m, a, b, dst, t, |x, y| x & y),
                    Opcode::Or => map2(w, m, a, b, dst, t, |x, y| x | y),
                    Opcode::Xor => map2(w, m, a, b, dst, t, |x, y| x ^ y),
                    Opcode::Not => map1(w, m, a, dst, t, |x| !x),
                    Opcode::Shl => map2(w, m, a, b, dst, t, |x, y| {
                        let s = y & 0xffff_ffff;
                        if s >= u64::from(tb) { 0 } else { x << s }
                    }),
                    Opcode::Shr if signed => map2(w, m, a, b, dst, t, |x, y| {
                        (sx(x) >> (y & 0xffff_ffff).min(63)) as u64
                    }),
                    Opcode::Shr => map2(w, m, a, b, dst, t, |x, y| {
                        let s = y & 0xffff_ffff;
                        if s >= u64::from(tb) { 0 } else { x >> s }
                    }),
                    Opcode::Popc => map1(w, m, a, dst, Type::U32, |x| u64::from(x.count_ones())),
                    Opcode::Clz => map1(w, m, a, dst, Type::U32, |x| {
                        u64::from(x.leading_zeros() - (64 - tb))
                    }),
                    Opcode::Brev => map1(w, m, a, dst, t, |x| x.reverse_bits() >> (64 - tb)),
                    Opcode::Bfe => map3(w, m, a, b, c, dst, t, |x, y, z| {
                        bfe(x, y as u32, z as u32, tb, signed)
                    }),
                    Opcode::Bfi => {
                        for l in lanes(m) {
                            let v = bfi(
                                get(w, a, l),
                                get(w, b, l),
                                get(w, c, l) as u32,
                                get(w, dd, l) as u32,
                                tb,
                            );
                            put(w, dst, l, v, t);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    fn setp(&mut self, inst: &Inst, m: u64, a: Val, b: Val, c: Val) {
        let t = inst.ty;
        let ftz = inst.mods.has(flag::FTZ);
        let cmp = inst.mods.cmp;
        let w = &mut *self.w;
        let n = w.lanes as usize;
        // Comparison results of every lane as a mask (inactive lanes are
        // computed too and masked off below).
        let r = if n == W32 {
            let x = fetch_n::<W32>(w, a);
            let y = fetch_n::<W32>(w, b);
            setp_mask(t, cmp, ftz, W32, |l| x[l], |l| y[l])
        } else {
            let mut s = take_scratch(w);
            let (x, y) = s.split_at_mut(64);
            let x: &mut [u64; 64] = x.try_into().expect("scratch");
            let y: &mut [u64; 64] = (&mut y[..64]).try_into().expect("scratch");
            fetch(w, a, n, x);
            fetch(w, b, n, y);
            let r = setp_mask(t, cmp, ftz, n, |l| x[l], |l| y[l]);
            w.scratch = s;
            r
        };
        let (pv, qv) = match inst.mods.bool_op {
            None => (r, !r),
            Some(op) => {
                let mut cv = 0u64;
                for l in lanes(m) {
                    cv |= (get(w, c, l) & 1) << l;
                }
                let f = |v: u64| match op {
                    BoolOp::And => v & cv,
                    BoolOp::Or => v | cv,
                    BoolOp::Xor => v ^ cv,
                };
                (f(r), f(!r))
            }
        };
        if let Some(p) = Self::pred_dst(inst.dst) {
            w.preds[p] = (w.preds[p] & !m) | (pv & m);
        }
        if let Some(q) = Self::pred_dst(inst.dst2) {
            w.preds[q] = (w.preds[q] & !m) | (qv & m);
        }
    }

    /// `shfl.sync` (PTX ISA semantics, 32-lane segments).
    fn shfl(&mut self, m: u64) {
        let inst = self.inst();
        let a = self.val(inst.src[0]);
        let b = self.val(inst.src[1]);
        let c = self.val(inst.src[2]);
        let dst = self.dst(inst.dst);
        let pdst = Self::pred_dst(inst.dst2);
        let w = &mut *self.w;
        // Read all sources first: lanes exchange values.
        let src_vals: Vec<u64> = (0..w.lanes as usize).map(|l| get(w, a, l)).collect();
        for l in lanes(m) {
            let lane = (l & 31) as i64;
            let base = l & !31;
            let bval = (get(w, b, l) & 31) as i64;
            let cv = get(w, c, l);
            let cval = (cv & 31) as i64;
            let segmask = ((cv >> 8) & 31) as i64;
            let max_lane = (lane & segmask) | (cval & !segmask);
            let min_lane = lane & segmask;
            let (j, pval) = match inst.mods.shfl {
                ShflMode::Up => (lane - bval, lane - bval >= max_lane),
                ShflMode::Down => (lane + bval, lane + bval <= max_lane),
                ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
                ShflMode::Idx => {
                    let j = min_lane | (bval & !segmask);
                    (j, j <= max_lane)
                }
            };
            let j = if pval { j } else { lane };
            let v = src_vals[base + (j as usize & 31)];
            put(w, dst, l, v, Type::B32);
            if let Some(p) = pdst {
                set_pred(w, p, l, pval);
            }
        }
    }

    /// `vote.sync` and `activemask`.
    fn vote(&mut self, m: u64, active: u64) {
        let inst = self.inst();
        if inst.op == Opcode::Activemask {
            let dst = self.dst(inst.dst);
            for l in lanes(m) {
                put(self.w, dst, l, active, Type::B32);
            }
            return;
        }
        let a = self.val(inst.src[0]);
        let member = self.val(inst.src[1]);
        let w = &mut *self.w;
        let _ = member; // lanes outside the member mask are undefined in PTX; all executing lanes vote
        let mut ballot = 0u64;
        let considered = m;
        for l in lanes(m) {
            if get(w, a, l) & 1 == 1 {
                ballot |= 1 << l;
            }
        }
        match inst.mods.vote {
            VoteMode::Ballot => {
                let dst = self.dst(inst.dst);
                for l in lanes(m) {
                    put(self.w, dst, l, ballot >> (l & !31), Type::B32);
                }
            }
            mode => {
                let r = match mode {
                    VoteMode::All => ballot == considered,
                    VoteMode::Any => ballot != 0,
                    _ => ballot == 0 || ballot == considered,
                };
                if let Some(p) = Self::pred_dst(inst.dst) {
                    for l in lanes(m) {
                        set_pred(self.w, p, l, r);
                    }
                }
            }
        }
    }

    /// Address of lane `l` for the address operand `o`, with its resolved space.
    fn address(&self, o: Operand, space: Space, l: usize) -> (Space, u64) {
        let Operand::Addr(a) = o else {
            return (space, 0);
        };
        let (base, var_space) = match a.base {
            AddrBase::Reg(r) => (self.w.regs[r.0 as usize * self.n + l], None),
            AddrBase::Var(v) => (
                self.cx.info.var_addr[v.0 as usize],
                Some(self.cx.kernel.vars[v.0 as usize].space),
            ),
            AddrBase::Param(p) => (
                u64::from(self.cx.kernel.params[p.0 as usize].offset),
                Some(Space::Param),
            ),
            AddrBase::Absolute => (0, None),
        };
        let addr = base.wrapping_add(a.offset as u64);
        match space {
            Space::Generic => match var_space {
                Some(Space::Const) | Some(Space::Global) => (Space::Global, addr),
                Some(s) => (s, addr),
                None if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) => {
                    (Space::Shared, addr - SHARED_WINDOW)
                }
                None if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) => {
                    (Space::Local, addr - LOCAL_WINDOW)
                }
                None => (Space::Global, addr),
            },
            Space::Const => (Space::Global, addr),
            s => (s, window_addr(s, addr)),
        }
    }

    fn load(&mut self, space: Space, addr: u64, size: usize, lane: usize) -> Result<u64, SimError> {
        if addr & (size as u64 - 1) != 0 {
            return Err(self.err(
                SimErrorKind::Misaligned {
                    space,
                    size: size as u32,
                },
                Some(lane),
                Some(addr),
            ));
        }
        let v = match space {
            Space::Global | Space::Const | Space::Generic => self.cx.global.read_uint(addr, size),
            Space::Shared => slice_read(self.cx.shared, addr, size),
            Space::Param => slice_read(self.cx.params, addr, size),
            Space::Local => {
                let ls = self.w.local_size as usize;
                let base = lane * ls;
                slice_read(&self.w.local[base..base + ls], addr, size)
            }
        };
        v.ok_or_else(|| self.oob(space, addr, size, false, lane))
    }

    fn store(
        &mut self,
        space: Space,
        addr: u64,
        size: usize,
        lane: usize,
        v: u64,
    ) -> Result<(), SimError> {
        if addr & (size as u64 - 1) != 0 {
            return Err(self.err(
                SimErrorKind::Misaligned {
                    space,
                    size: size as u32,
                },
                Some(lane),
                Some(addr),
            ));
        }
        let ok = match space {
            Space::Global | Space::Generic => self.cx.global.write_uint(addr, size, v),
            Space::Shared => slice_write(self.cx.shared, addr, size, v),
            Space::Local => {
                let ls = self.w.local_size as usize;
                let base = lane * ls;
                slice_write(&mut self.w.local[base..base + ls], addr, size, v)
            }
            Space::Param | Space::Const => {
                return Err(self.err(SimErrorKind::ReadOnly { space }, Some(lane), Some(addr)));
            }
        };
        if ok {
            Ok(())
        } else {
            Err(self.oob(space, addr, size, true, lane))
        }
    }

    #[cold]
    #[inline(never)]
    /// The error of lane `l`'s access (its address in `addrs`): misaligned
    /// when it breaks `align`, else out of bounds.
    fn lane_fault(
        &self,
        space: Space,
        esize: usize,
        align: u64,
        write: bool,
        l: usize,
    ) -> SimError {
        let a = self.w.addrs[l];
        if a & align != 0 {
            self.err(
                SimErrorKind::Misaligned {
                    space,
                    size: esize as u32,
                },
                Some(l),
                Some(a),
            )
        } else {
            self.oob(space, a, esize, write, l)
        }
    }

    fn oob(&self, space: Space, addr: u64, size: usize, write: bool, lane: usize) -> SimError {
        let detail = match space {
            Space::Global | Space::Const | Space::Generic => self.cx.global.describe(addr),
            Space::Shared => format!(
                "the CTA has {} bytes of shared memory",
                self.cx.shared.len()
            ),
            Space::Local => format!(
                "each thread has {} bytes of local memory",
                self.w.local_size
            ),
            Space::Param => format!("the parameter buffer has {} bytes", self.cx.params.len()),
        };
        self.err(
            SimErrorKind::OutOfBounds {
                space,
                size: size as u32,
                write,
                detail,
            },
            Some(lane),
            Some(addr),
        )
    }

    /// `ld.param` of one value of a 32-lane warp (every lane reads the same
    /// parameter bytes at `addr`): read once, written to the lanes `m`.
    /// `None` (nothing done) if the access is misaligned or out of bounds,
    /// so that the general path reports it.
    fn ld_param32(&mut self, m: u64, addr: FastSrc) -> Option<MemAccess> {
        let FastSrc::Imm(a) = addr else {
            return None;
        };
        let inst = self.inst();
        let t = inst.ty;
        let esize = t.bytes() as usize;
        if a & (esize as u64 - 1) != 0 {
            return None;
        }
        let v = slice_read(self.cx.params, a, esize)?;
        let addrs: &mut [u64; W32] = (&mut self.w.addrs[..W32]).try_into().expect("addrs");
        for_lanes32!(m, |l| {
            addrs[l] = a;
        });
        let d = self.dst(inst.dst);
        // `store_n` of `v` in every lane: the stored value is the same.
        let tb = t.bits();
        let x = if tb < d.bits && t.is_signed() {
            sext(v, tb) as u64 & mask_bits(d.bits)
        } else {
            v & mask_bits(tb) & mask_bits(d.bits)
        };
        let ds: &mut [u64; W32] = (&mut self.w.regs[d.off..d.off + W32])
            .try_into()
            .expect("register row");
        for_lanes32!(m, |l| {
            ds[l] = x;
        });
        Some(MemAccess {
            space: Space::Param,
            size: esize as u32,
            write: false,
            atomic: None,
        })
    }

    /// Loads, stores, atomics, waits.
    /// The common case of `memory`: a scalar `ld`/`st` in an explicit
    /// space through `[reg+offset]` — one tight loop per lane, no generic
    /// address classification.
    fn memory_scalar_reg(
        &mut self,
        m: u64,
        reg: RegId,
        offset: i64,
    ) -> Result<MemAccess, SimError> {
        let inst = self.inst();
        let t = inst.ty;
        let esize = t.bytes() as usize;
        let align = esize as u64 - 1;
        let space = crate::func::decode::scalar_access_space(inst.mods.space);
        let base = reg.0 as usize * self.n;
        let write = inst.op == Opcode::St;
        let access = MemAccess {
            // `.const` data lives in global memory but its loads are timed
            // as constant-cache reads, not L1D ones.
            space: if inst.mods.space == Space::Const {
                Space::Const
            } else {
                space
            },
            size: esize as u32,
            write,
            atomic: None,
        };
        // Fast path (32-lane warps): one pass computes the addresses and
        // accesses the memory that holds the first active lane's address
        // (one allocation for global memory), each lane bounds-checked
        // against it. If any lane is misaligned or outside it, nothing is
        // kept and the per-lane loops below redo the access, reporting the
        // first failing lane.
        if self.n == W32 && m != 0 {
            let done = if write {
                let value = self.val(inst.src[1]);
                store_fused32(self.w, self.cx, space, esize, m, base, offset as u64, value)
            } else {
                let d = self.dst(inst.dst);
                load_fused32(self.w, self.cx, space, esize, m, base, offset as u64, d, t)
            };
            if done {
                return Ok(access);
            }
        }
        for l in lanes(m) {
            self.w.addrs[l] = window_addr(space, self.w.regs[base + l].wrapping_add(offset as u64));
        }
        if write {
            let value = self.val(inst.src[1]);
            // Shared and global stores of 4 and 8 bytes: specialised loops.
            let failed = match (space, esize) {
                (Space::Shared, 4) => store_lanes::<4>(self.w, m, value, |a, v| {
                    slice_write_n::<4>(self.cx.shared, a, v)
                }),
                (Space::Shared, 8) => store_lanes::<8>(self.w, m, value, |a, v| {
                    slice_write_n::<8>(self.cx.shared, a, v)
                }),
                (Space::Global, 4) => {
                    let g = &mut *self.cx.global;
                    store_lanes::<4>(self.w, m, value, |a, v| g.write_uint(a, 4, v))
                }
                (Space::Global, 8) => {
                    let g = &mut *self.cx.global;
                    store_lanes::<8>(self.w, m, value, |a, v| g.write_uint(a, 8, v))
                }
                _ => {
                    for l in lanes(m) {
                        let a = self.w.addrs[l];
                        let v = get(self.w, value, l);
                        self.store(space, a, esize, l, v)?;
                    }
                    None
                }
            };
            if let Some(l) = failed {
                return Err(self.lane_fault(space, esize, align, true, l));
            }
        } else {
            let d = self.dst(inst.dst);
            // One specialised loop per (space, size): the size is a constant
            // and the space is not re-examined per lane.
            let failed = match (space, esize) {
                (Space::Shared, 4) => {
                    load_lanes(self.w, m, d, t, 4, |a| slice_read_n::<4>(self.cx.shared, a))
                }
                (Space::Shared, 8) => {
                    load_lanes(self.w, m, d, t, 8, |a| slice_read_n::<8>(self.cx.shared, a))
                }
                (Space::Global, 4) => {
                    let g = &mut *self.cx.global;
                    load_lanes(self.w, m, d, t, 4, |a| g.read_n::<4>(a))
                }
                (Space::Global, 8) => {
                    let g = &mut *self.cx.global;
                    load_lanes(self.w, m, d, t, 8, |a| g.read_n::<8>(a))
                }
                (Space::Param, _) => {
                    let params = self.cx.params;
                    load_lanes(self.w, m, d, t, esize, |a| slice_read(params, a, esize))
                }
                (Space::Shared, _) => {
                    let shared = &*self.cx.shared;
                    load_lanes(self.w, m, d, t, esize, |a| slice_read(shared, a, esize))
                }
                (Space::Local, _) => {
                    let mut failed = None;
                    for l in lanes(m) {
                        let a = self.w.addrs[l];
                        let ls = self.w.local_size as usize;
                        let v = if a & align != 0 {
                            None
                        } else {
                            slice_read(&self.w.local[l * ls..(l + 1) * ls], a, esize)
                        };
                        match v {
                            Some(v) => put(self.w, d, l, v, t),
                            None => {
                                failed = Some(l);
                                break;
                            }
                        }
                    }
                    failed
                }
                _ => {
                    let g = &mut *self.cx.global;
                    load_lanes(self.w, m, d, t, esize, |a| g.read_uint(a, esize))
                }
            };
            if let Some(l) = failed {
                return Err(self.lane_fault(space, esize, align, false, l));
            }
        }
        Ok(MemAccess {
            space,
            size: esize as u32,
            write,
            atomic: None,
        })
    }

    fn memory(&mut self, m: u64) -> Result<MemAccess, SimError> {
        let inst = self.inst();
        if inst.mods.vec <= 1
            && matches!(inst.op, Opcode::Ld | Opcode::St)
            && !inst.mods.has(flag::WAIT)
            && inst.mods.space != Space::Generic
            && let Operand::Addr(Address {
                base: AddrBase::Reg(r),
                offset,
            }) = inst.src[0]
        {
            return self.memory_scalar_reg(m, r, offset);
        }
        let t = inst.ty;
        let esize = t.bytes() as usize;
        let vec = usize::from(inst.mods.vec.max(1));
        let addr_op = inst.src[0];
        // Resolve every lane's address (and, for generic addressing, its
        // space) once.
        let mut spaces = [Space::Global; 64];
        let mut resolved = if inst.mods.space == Space::Generic {
            Space::Global
        } else {
            inst.mods.space
        };
        for l in lanes(m) {
            let (s, a) = self.address(addr_op, inst.mods.space, l);
            spaces[l] = s;
            resolved = s;
            self.w.addrs[l] = a;
        }
        // `.const` data lives in global memory (`address`) but its loads
        // are timed as constant-cache reads, not L1D ones.
        if inst.mods.space == Space::Const {
            resolved = Space::Const;
        }
        let access = |write, atomic| MemAccess {
            space: resolved,
            size: (esize * vec) as u32,
            write,
            atomic,
        };
        // Waiting loads at the L2 take the atomic path below.
        let at_l2 = self.cx.waits_at_l2
            && (inst.op == Opcode::Wait || (inst.op == Opcode::Ld && inst.mods.has(flag::WAIT)));
        match if at_l2 { Opcode::Atom } else { inst.op } {
            Opcode::Ld => {
                let d = self.dst(inst.dst);
                for l in lanes(m) {
                    let (s, a) = (spaces[l], self.w.addrs[l]);
                    if vec == 1 {
                        let v = self.load(s, a, esize, l)?;
                        put(self.w, d, l, v, t);
                    } else {
                        if a & ((esize * vec) as u64 - 1) != 0 {
                            return Err(self.err(
                                SimErrorKind::Misaligned {
                                    space: s,
                                    size: (esize * vec) as u32,
                                },
                                Some(l),
                                Some(a),
                            ));
                        }
                        let Operand::Vector { regs, len } = inst.dst else {
                            continue;
                        };
                        for (k, reg) in regs.iter().enumerate().take(len as usize) {
                            let v = self.load(s, a + (k * esize) as u64, esize, l)?;
                            if let Some(r) = *reg {
                                let d = self.dst(Operand::Reg(r));
                                put(self.w, d, l, v, t);
                            }
                        }
                    }
                }
                Ok(access(false, None))
            }
            Opcode::Wait => {
                for l in lanes(m) {
                    self.load(spaces[l], self.w.addrs[l], esize, l)?;
                }
                Ok(access(false, None))
            }
            Opcode::St => {
                let value = self.val(inst.src[1]);
                for l in lanes(m) {
                    let (s, a) = (spaces[l], self.w.addrs[l]);
                    match inst.src[1] {
                        Operand::Vector { regs, len } => {
                            if a & ((esize * vec) as u64 - 1) != 0 {
                                return Err(self.err(
                                    SimErrorKind::Misaligned {
                                        space: s,
                                        size: (esize * vec) as u32,
                                    },
                                    Some(l),
                                    Some(a),
                                ));
                            }
                            for (k, reg) in regs.iter().enumerate().take(len as usize) {
                                let v = reg.map_or(0, |r| self.w.regs[r.0 as usize * self.n + l]);
                                self.store(s, a + (k * esize) as u64, esize, l, v)?;
                            }
                        }
                        _ => {
                            let v = get(self.w, value, l);
                            self.store(s, a, esize, l, v)?;
                        }
                    }
                }
                Ok(access(true, None))
            }
            _ => {
                // atom / red: read operands now, perform later. A waiting
                // load at the L2 is `cas [a], expected, expected`.
                let waiting_load = inst.op != Opcode::Atom && inst.op != Opcode::Red;
                let (aop, bop, dst) = if waiting_load {
                    let dst = (inst.op == Opcode::Ld).then(|| self.dst(inst.dst).off);
                    (inst.src[1], inst.src[1], dst)
                } else if inst.op == Opcode::Atom {
                    (inst.src[1], inst.src[2], Some(self.dst(inst.dst).off))
                } else {
                    (inst.src[1], Operand::None, None)
                };
                let aop_kind = if waiting_load {
                    AtomOp::Cas
                } else {
                    inst.mods.atom
                };
                let av = self.val(aop);
                let bv = self.val(bop);
                let n = self.n;
                // Reuse a performed atomic's buffers when there is one.
                let mut p = match self.w.atomic_pool.pop() {
                    Some(mut p) => {
                        p.inst = InstId(self.pc);
                        p.op = aop_kind;
                        p.ty = t;
                        p.space = resolved;
                        p.mask = m;
                        p.dst = dst;
                        p
                    }
                    None => PendingAtomic {
                        inst: InstId(self.pc),
                        op: aop_kind,
                        ty: t,
                        space: resolved,
                        mask: m,
                        dst,
                        addr: vec![0; n],
                        a: vec![0; n],
                        b: vec![0; n],
                    },
                };
                for l in lanes(m) {
                    let (s, a) = (spaces[l], self.w.addrs[l]);
                    if a & (esize as u64 - 1) != 0 {
                        return Err(self.err(
                            SimErrorKind::Misaligned {
                                space: s,
                                size: esize as u32,
                            },
                            Some(l),
                            Some(a),
                        ));
                    }
                    // Bounds are checked now so the error names this instruction.
                    self.load(s, a, esize, l)?;
                    p.space = s;
                    p.addr[l] = a;
                    p.a[l] = get(self.w, av, l);
                    p.b[l] = get(self.w, bv, l);
                }
                self.w.pending_atomics.push_back(p);
                Ok(access(true, Some(aop_kind)))
            }
        }
    }
}

/// Lane mask of `x[l] cmp y[l]` over the lanes of `x` (setp of type `t`).
#[inline(always)]
fn setp_mask(
    t: Type,
    cmp: CmpOp,
    ftz: bool,
    n: usize,
    x: impl Fn(usize) -> u64,
    y: impl Fn(usize) -> u64,
) -> u64 {
    let tb = t.bits();
    #[inline(always)]
    fn mask_of(
        n: usize,
        x: &impl Fn(usize) -> u64,
        y: &impl Fn(usize) -> u64,
        f: impl Fn(u64, u64) -> bool,
    ) -> u64 {
        let mut r = 0u64;
        for l in 0..n {
            r |= u64::from(f(x(l), y(l))) << l;
        }
        r
    }
    let (x, y) = (&x, &y);
    // Integer comparisons: one loop per ordering test (the unsigned and
    // unordered spellings test the same ordering of integers).
    macro_rules! by_order {
        ($k:expr) => {{
            let k = $k;
            match cmp {
                CmpOp::Eq | CmpOp::Equ => mask_of(n, x, y, |a, b| k(a) == k(b)),
                CmpOp::Ne | CmpOp::Neu => mask_of(n, x, y, |a, b| k(a) != k(b)),
                CmpOp::Lt | CmpOp::Lo | CmpOp::Ltu => mask_of(n, x, y, |a, b| k(a) < k(b)),
                CmpOp::Le | CmpOp::Ls | CmpOp::Leu => mask_of(n, x, y, |a, b| k(a) <= k(b)),
                CmpOp::Gt | CmpOp::Hi | CmpOp::Gtu => mask_of(n, x, y, |a, b| k(a) > k(b)),
                CmpOp::Ge | CmpOp::Hs | CmpOp::Geu => mask_of(n, x, y, |a, b| k(a) >= k(b)),
                CmpOp::Num => mask_of(n, x, y, |_, _| true),
                CmpOp::Nan => 0,
            }
        }};
    }
    match t.kind() {
        TypeKind::Float => mask_of(n, x, y, |a, b| {
            let (fx, fy) = if tb == 32 {
                let f = |v: u64| {
                    let f = f32::from_bits(v as u32);
                    f64::from(if ftz { ftz32(f) } else { f })
                };
                (f(a), f(b))
            } else {
                (f64::from_bits(a), f64::from_bits(b))
            };
            cmp_float(cmp, fx, fy)
        }),
        // `sext(v, 32)` as one sign-extending move.
        TypeKind::Signed if tb == 32 => by_order!(|v: u64| i64::from(v as u32 as i32)),
        TypeKind::Signed => by_order!(|v: u64| sext(v, tb)),
        _ => by_order!(|v: u64| v),
    }
}

/// The memory of `space` holding `[a, a + size)`: its base address and
/// bytes (the whole allocation for global memory).
#[inline(always)]
fn memory_at<'m>(
    global: &'m mut GlobalMemory,
    shared: &'m mut [u8],
    space: Space,
    a: u64,
    size: usize,
) -> Option<(u64, &'m mut [u8])> {
    match space {
        Space::Global => global.range_mut(a, a.checked_add(size as u64)?),
        Space::Shared => Some((0, shared)),
        _ => None,
    }
}

/// A `.shared` or `.local` address is 32 bits wide: `[reg+offset]` wraps
/// modulo 2^32 (nvcc forms `[%r4+68]` with `%r4` = the variable's address
/// minus 64, which is negative for a variable at offset 0). Other spaces
/// keep the 64-bit sum.
#[inline]
fn window_addr(space: Space, addr: u64) -> u64 {
    match space {
        Space::Shared | Space::Local => addr & 0xFFFF_FFFF,
        _ => addr,
    }
}

/// The `N` bytes at offset `o` of `mem`, if they lie inside it (`lim` is
/// `mem.len() - N`: one comparison per lane).
#[inline(always)]
fn chunk_at<const N: usize>(mem: &[u8], lim: u64, o: u64) -> Option<&[u8; N]> {
    if o > lim {
        return None;
    }
    mem[o as usize..].first_chunk::<N>()
}

/// [`chunk_at`] for writing.
#[inline(always)]
fn chunk_at_mut<const N: usize>(mem: &mut [u8], lim: u64, o: u64) -> Option<&mut [u8; N]> {
    if o > lim {
        return None;
    }
    mem[o as usize..].first_chunk_mut::<N>()
}

/// `Exec::memory_scalar_reg`'s fused fast path for an access of a 32-lane
/// warp pre-decoded as [`Fast::mem`] (`m` not empty, base register `r`):
/// `false` (nothing kept but addresses and already-redone store bytes, see
/// [`store_fused32`]) when it declines.
#[inline(always)]
fn mem_fused32(w: &mut Warp, cx: &mut ExecCtx<'_>, f: &Fast, m: u64, r: u32, offset: u64) -> bool {
    let base = r as usize * W32;
    let size = f.ty.bytes() as usize;
    match f.mem {
        MemForm::Load => {
            let d = Dst {
                off: f.dst as usize * W32,
                bits: f.bits,
            };
            load_fused32(w, cx, f.space, size, m, base, offset, d, f.ty)
        }
        MemForm::Store => {
            let value = match f.c {
                FastSrc::Reg(v) => Val::Reg(v as usize * W32),
                FastSrc::Imm(x) => Val::Imm(x),
                FastSrc::Special(s) => special(&cx.env, w.warp_id, s),
            };
            store_fused32(w, cx, f.space, size, m, base, offset, value)
        }
        MemForm::None => false,
    }
}

/// The per-lane loop of [`load_fused32`] for `N`-byte values: addresses
/// into `addrs`, values into `vals`; `false` at the first lane outside
/// `mem` (nothing else is kept then). Alignment is left to the caller
/// (`any` accumulates every address).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn gather32<const N: usize>(
    regs: &[u64; W32],
    offset: u64,
    m: u64,
    mbase: u64,
    mem: &[u8],
    addrs: &mut [u64; W32],
    vals: &mut [u64; W32],
    any: &mut u64,
) -> bool {
    let Some(lim) = (mem.len() as u64).checked_sub(N as u64) else {
        return false;
    };
    let mut acc = 0u64;
    for_lanes32!(m, |l| {
        let a = regs[l].wrapping_add(offset);
        addrs[l] = a;
        acc |= a;
        let Some(b) = chunk_at::<N>(mem, lim, a.wrapping_sub(mbase)) else {
            return false;
        };
        let mut x = [0u8; 8];
        x[..N].copy_from_slice(b);
        vals[l] = u64::from_le_bytes(x);
    });
    *any = acc;
    true
}

/// The per-lane loop of [`load_fused32`] for `N`-byte values written
/// straight into the destination row `dst` (masked by `mask`), in lane
/// order: `false` at the first misaligned lane or lane outside `mem`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn load_into32<const N: usize>(
    regs: &[u64; W32],
    offset: u64,
    m: u64,
    mbase: u64,
    mem: &[u8],
    addrs: &mut [u64; W32],
    dst: &mut [u64; W32],
    mask: u64,
) -> bool {
    let Some(lim) = (mem.len() as u64).checked_sub(N as u64) else {
        return false;
    };
    for_lanes32!(m, |l| {
        let a = regs[l].wrapping_add(offset);
        addrs[l] = a;
        if a & (N as u64 - 1) != 0 {
            return false;
        }
        let Some(b) = chunk_at::<N>(mem, lim, a.wrapping_sub(mbase)) else {
            return false;
        };
        let mut x = [0u8; 8];
        x[..N].copy_from_slice(b);
        dst[l] = u64::from_le_bytes(x) & mask;
    });
    true
}

/// The fast path of a scalar `ld [reg+offset]` of a 32-lane warp (`m` not
/// empty): addresses into `w.addrs`, values read from the memory holding
/// the first active lane's address, then written to `d`. `false` if a lane
/// is misaligned or outside that memory: then no register was written, or
/// (destination row apart from the address row, see [`load_into32`]) only
/// the lanes before it, with the values the general path writes there.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn load_fused32(
    w: &mut Warp,
    cx: &mut ExecCtx<'_>,
    space: Space,
    size: usize,
    m: u64,
    base: usize,
    offset: u64,
    d: Dst,
    t: Type,
) -> bool {
    let regs: &[u64; W32] = w.regs[base..base + W32].try_into().expect("register row");
    let a0 = regs[m.trailing_zeros() as usize].wrapping_add(offset);
    let (mbase, mem): (u64, &[u8]) = match space {
        Space::Param => (0, cx.params),
        _ => match memory_at(cx.global, cx.shared, space, a0, size) {
            Some((b, mem)) => (b, mem),
            None => return false,
        },
    };
    let tb = t.bits();
    let row = d.off / W32;
    if d.off != base && d.off.is_multiple_of(W32) && !(tb < d.bits && t.is_signed()) {
        // The destination is another row and takes plain masking: values
        // go straight into it, lane by lane in lane order, stopping at the
        // first misaligned or outside lane (the general path then rewrites
        // those lanes with the same values and goes on from there).
        let mask = mask_bits(tb) & mask_bits(d.bits);
        let (lo, dst, hi) = split_rows(&mut w.regs, row);
        let regs = other_row(lo, hi, row, base / W32);
        let addrs: &mut [u64; W32] = (&mut w.addrs[..W32]).try_into().expect("addrs");
        return match size {
            4 => load_into32::<4>(regs, offset, m, mbase, mem, addrs, dst, mask),
            8 => load_into32::<8>(regs, offset, m, mbase, mem, addrs, dst, mask),
            2 => load_into32::<2>(regs, offset, m, mbase, mem, addrs, dst, mask),
            1 => load_into32::<1>(regs, offset, m, mbase, mem, addrs, dst, mask),
            _ => false,
        };
    }
    let addrs: &mut [u64; W32] = (&mut w.addrs[..W32]).try_into().expect("addrs");
    let mut vals = [0u64; W32];
    let mut any = 0u64;
    let ok = match size {
        4 => gather32::<4>(regs, offset, m, mbase, mem, addrs, &mut vals, &mut any),
        8 => gather32::<8>(regs, offset, m, mbase, mem, addrs, &mut vals, &mut any),
        2 => gather32::<2>(regs, offset, m, mbase, mem, addrs, &mut vals, &mut any),
        1 => gather32::<1>(regs, offset, m, mbase, mem, addrs, &mut vals, &mut any),
        _ => false,
    };
    if !ok || any & (size as u64 - 1) != 0 {
        return false;
    }
    store_n(w, d, m, t, &vals);
    true
}

/// The per-lane loop of [`store_fused32`] for `N`-byte values, in lane
/// order; `false` at the first misaligned lane or lane outside `mem`
/// (the lanes before it have written: the general path, redoing the
/// store, writes the same values to the same bytes again and stops there).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn scatter32<const N: usize>(
    regs: &[u64; W32],
    offset: u64,
    m: u64,
    mbase: u64,
    mem: &mut [u8],
    addrs: &mut [u64; W32],
    value: impl Fn(usize) -> u64,
) -> bool {
    let Some(lim) = (mem.len() as u64).checked_sub(N as u64) else {
        return false;
    };
    for_lanes32!(m, |l| {
        let a = regs[l].wrapping_add(offset);
        addrs[l] = a;
        if a & (N as u64 - 1) != 0 {
            return false;
        }
        let Some(dst) = chunk_at_mut::<N>(mem, lim, a.wrapping_sub(mbase)) else {
            return false;
        };
        dst.copy_from_slice(&value(l).to_le_bytes()[..N]);
    });
    true
}

/// [`scatter32`] for a `size` known at run time and a value row or
/// constant (one loop per combination).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn scatter_sized(
    regs: &[u64; W32],
    offset: u64,
    m: u64,
    mbase: u64,
    mem: &mut [u8],
    addrs: &mut [u64; W32],
    size: usize,
    value: Row<'_>,
) -> bool {
    macro_rules! by_size {
        ($v:expr) => {
            match size {
                4 => scatter32::<4>(regs, offset, m, mbase, mem, addrs, $v),
                8 => scatter32::<8>(regs, offset, m, mbase, mem, addrs, $v),
                2 => scatter32::<2>(regs, offset, m, mbase, mem, addrs, $v),
                1 => scatter32::<1>(regs, offset, m, mbase, mem, addrs, $v),
                _ => false,
            }
        };
    }
    match value {
        Row::R(r) => by_size!(|l| r[l]),
        Row::K(k) => by_size!(|_| k),
    }
}

/// The fast path of a scalar `st [reg+offset]` of a 32-lane warp, like
/// [`load_fused32`]: lanes write in lane order into the memory holding the
/// first active lane's address; `false` at the first lane that is
/// misaligned or outside it (see [`scatter32`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn store_fused32(
    w: &mut Warp,
    cx: &mut ExecCtx<'_>,
    space: Space,
    size: usize,
    m: u64,
    base: usize,
    offset: u64,
    value: Val,
) -> bool {
    // The value as a row read in place (or one constant); the per-lane
    // special registers are copied out first.
    let copy: [u64; W32];
    let (regs_all, addrs_all) = (&w.regs, &mut w.addrs);
    let value = match value {
        Val::Reg(o) => Row::R(regs_all[o..o + W32].try_into().expect("register row")),
        Val::Imm(x) => Row::K(x),
        _ => {
            copy = fetch_n::<W32>(w, value);
            return store_fused32_copied(w, cx, space, size, m, base, offset, &copy);
        }
    };
    let regs: &[u64; W32] = regs_all[base..base + W32].try_into().expect("register row");
    let a0 = regs[m.trailing_zeros() as usize].wrapping_add(offset);
    let Some((mbase, mem)) = memory_at(cx.global, cx.shared, space, a0, size) else {
        return false;
    };
    let addrs: &mut [u64; W32] = (&mut addrs_all[..W32]).try_into().expect("addrs");
    scatter_sized(regs, offset, m, mbase, mem, addrs, size, value)
}

/// [`store_fused32`] of values already read into `vals`.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn store_fused32_copied(
    w: &mut Warp,
    cx: &mut ExecCtx<'_>,
    space: Space,
    size: usize,
    m: u64,
    base: usize,
    offset: u64,
    vals: &[u64; W32],
) -> bool {
    let regs: &[u64; W32] = w.regs[base..base + W32].try_into().expect("register row");
    let a0 = regs[m.trailing_zeros() as usize].wrapping_add(offset);
    let Some((mbase, mem)) = memory_at(cx.global, cx.shared, space, a0, size) else {
        return false;
    };
    let addrs: &mut [u64; W32] = (&mut w.addrs[..W32]).try_into().expect("addrs");
    let value = Row::R(vals);
    scatter_sized(regs, offset, m, mbase, mem, addrs, size, value)
}

fn sat_or_wrap(x: u64, y: u64, bits: u32, signed: bool, sat: bool, add: bool) -> u64 {
    if sat && signed && bits == 32 {
        let (a, b) = (sext(x, 32), sext(y, 32));
        let r = if add { a + b } else { a - b };
        return r.clamp(i32::MIN as i64, i32::MAX as i64) as u64;
    }
    if add {
        x.wrapping_add(y)
    } else {
        x.wrapping_sub(y)
    }
}

fn mul_part(x: u64, y: u64, bits: u32, signed: bool, mode: MulMode) -> u64 {
    if signed {
        let p = i128::from(sext(x, bits)) * i128::from(sext(y, bits));
        match mode {
            MulMode::Lo => p as u64,
            MulMode::Wide => p as u64,
            MulMode::Hi => (p >> bits) as u64,
        }
    } else {
        let p = u128::from(x) * u128::from(y);
        match mode {
            MulMode::Lo | MulMode::Wide => p as u64,
            MulMode::Hi => (p >> bits) as u64,
        }
    }
}

/// PTX `bfe`: extract `len` bits at `pos`, sign-extending for signed types.
fn bfe(a: u64, pos: u32, len: u32, bits: u32, signed: bool) -> u64 {
    let pos = pos & 0xff;
    let len = len & 0xff;
    let msb = bits - 1;
    let sbit = if signed && len > 0 {
        a >> (pos + len - 1).min(msb) & 1
    } else {
        0
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            a >> (pos + i) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// PTX `bfi`: insert the low `len` bits of `f` into `b` at `pos`.
fn bfi(f: u64, b: u64, pos: u32, len: u32, bits: u32) -> u64 {
    let pos = pos & 0xff;
    let len = len & 0xff;
    let mut d = b;
    let mut i = 0;
    while i < len && pos + i < bits {
        let bit = f >> i & 1;
        d = (d & !(1 << (pos + i))) | (bit << (pos + i));
        i += 1;
    }
    d
}

fn cmp_float(op: CmpOp, a: f64, b: f64) -> bool {
    let nan = a.is_nan() || b.is_nan();
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => !nan && a != b,
        CmpOp::Lt | CmpOp::Lo => a < b,
        CmpOp::Le | CmpOp::Ls => a <= b,
        CmpOp::Gt | CmpOp::Hi => a > b,
        CmpOp::Ge | CmpOp::Hs => a >= b,
        CmpOp::Equ => nan || a == b,
        CmpOp::Neu => nan || a != b,
        CmpOp::Ltu => nan || a < b,
        CmpOp::Leu => nan || a <= b,
        CmpOp::Gtu => nan || a > b,
        CmpOp::Geu => nan || a >= b,
        CmpOp::Num => !nan,
        CmpOp::Nan => nan,
    }
}

/// `cvt.dty.sty` of one value (the source's bits in the low `sty` bits).
pub fn cvt(v: u64, dty: Type, sty: Type, mods: &Mods) -> u64 {
    let ftz = mods.has(flag::FTZ);
    let sat = mods.has(flag::SAT);
    let sb = sty.bits();
    let db = dty.bits();
    match (sty.is_float(), dty.is_float()) {
        (false, false) => {
            let x: i128 = if sty.is_signed() {
                i128::from(sext(v, sb))
            } else {
                i128::from(v & mask_bits(sb))
            };
            let x = if sat { clamp_int(x, dty) } else { x };
            (x as u64) & mask_bits(db)
        }
        (false, true) => {
            let x: i128 = if sty.is_signed() {
                i128::from(sext(v, sb))
            } else {
                i128::from(v & mask_bits(sb))
            };
            let r = if mods.round == Round::None {
                Round::Rn
            } else {
                mods.round
            };
            if db == 32 {
                let f = int_to_f32(x, r);
                let f = if sat { sat32(f) } else { f };
                u64::from(f.to_bits())
            } else {
                let f = int_to_f64(x, r);
                (if sat { sat64(f) } else { f }).to_bits()
            }
        }
        (true, false) => {
            let x = if sb == 32 {
                let f = f32::from_bits(v as u32);
                f64::from(if ftz { ftz32(f) } else { f })
            } else {
                f64::from_bits(v)
            };
            if x.is_nan() {
                return 0;
            }
            let mode = if mods.round == Round::None {
                Round::Rzi
            } else {
                mods.round
            };
            let r = round_integral(x, mode);
            let (lo, hi) = int_range(dty);
            let i = if r <= lo as f64 {
                lo
            } else if r >= hi as f64 {
                hi
            } else {
                r as i128
            };
            (i as u64) & mask_bits(db)
        }
        (true, true) => {
            let r = mods.round;
            let integral = matches!(r, Round::Rni | Round::Rzi | Round::Rmi | Round::Rpi);
            if db == 32 {
                let f = if sb == 32 {
                    let f = f32::from_bits(v as u32);
                    let f = if ftz { ftz32(f) } else { f };
                    if integral {
                        round_integral(f64::from(f), r) as f32
                    } else {
                        f
                    }
                } else {
                    let x = f64::from_bits(v);
                    if integral {
                        round_integral(x, r) as f32
                    } else if x.is_nan() {
                        f32::NAN
                    } else {
                        round_to_f32(x, 0.0, if r == Round::None { Round::Rn } else { r })
                    }
                };
                let f = if sat { sat32(f) } else { f };
                let f = if ftz { ftz32(f) } else { f };
                u64::from(f.to_bits())
            } else {
                let x = if sb == 32 {
                    let f = f32::from_bits(v as u32);
                    f64::from(if ftz { ftz32(f) } else { f })
                } else {
                    f64::from_bits(v)
                };
                let x = if integral { round_integral(x, r) } else { x };
                (if sat { sat64(x) } else { x }).to_bits()
            }
        }
    }
}

fn int_range(t: Type) -> (i128, i128) {
    let b = t.bits();
    if t.is_signed() {
        (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
    } else {
        (0, (1i128 << b) - 1)
    }
}

fn clamp_int(x: i128, t: Type) -> i128 {
    let (lo, hi) = int_range(t);
    x.clamp(lo, hi)
}

/// Performs the oldest pending atomic of `w`: the read-modify-write in lane
/// order, old values to the destination register.
pub fn perform_atomic(w: &mut Warp, global: &mut GlobalMemory, shared: &mut [u8]) {
    let Some(p) = w.pending_atomics.pop_front() else {
        return;
    };
    let size = p.ty.bytes() as usize;
    let bits = p.ty.bits();
    for l in lanes(p.mask) {
        let addr = p.addr[l];
        // Bounds were checked at issue.
        let old = match p.space {
            Space::Shared => slice_read(shared, addr, size),
            _ => global.read_uint(addr, size),
        }
        .unwrap_or(0);
        let (a, b) = (p.a[l] & mask_bits(bits), p.b[l] & mask_bits(bits));
        let signed = p.ty.is_signed();
        let new = match p.op {
            AtomOp::Add if p.ty == Type::F32 => {
                u64::from((f32::from_bits(old as u32) + f32::from_bits(a as u32)).to_bits())
            }
            AtomOp::Add => old.wrapping_add(a),
            AtomOp::Inc => {
                if old >= a {
                    0
                } else {
                    old + 1
                }
            }
            AtomOp::Dec => {
                if old == 0 || old > a {
                    a
                } else {
                    old - 1
                }
            }
            AtomOp::Min => {
                if signed {
                    sext(old, bits).min(sext(a, bits)) as u64
                } else {
                    old.min(a)
                }
            }
            AtomOp::Max => {
                if signed {
                    sext(old, bits).max(sext(a, bits)) as u64
                } else {
                    old.max(a)
                }
            }
            AtomOp::Exch => a,
            AtomOp::Cas => {
                if old == a {
                    b
                } else {
                    old
                }
            }
            AtomOp::And => old & a,
            AtomOp::Or => old | a,
            AtomOp::Xor => old ^ a,
        } & mask_bits(bits);
        match p.space {
            Space::Shared => {
                slice_write(shared, addr, size, new);
            }
            _ => {
                global.write_uint(addr, size, new);
            }
        }
        if let Some(off) = p.dst
            && off != usize::MAX
        {
            w.regs[off + l] = old;
        }
    }
    w.atomic_pool.push(p);
}

#[cfg(test)]
mod tests {
    use super::fma32_rn;

    fn same(x: f32, y: f32, z: f32) {
        let (a, b) = (fma32_rn(x, y, z), x.mul_add(y, z));
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan() && a.to_bits() == b.to_bits()),
            "fma({x:e}, {y:e}, {z:e}) = {a:e} ({:#x}), mul_add gives {b:e} ({:#x})",
            a.to_bits(),
            b.to_bits()
        );
    }

    #[test]
    fn fma32_matches_mul_add() {
        // Random bit patterns (every class: subnormals, infinities, NaNs),
        // random values of nearby magnitudes (cancellation), and halfway
        // cases built on purpose: x*y exact, z = half an ulp of it.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..2_000_000 {
            let r = next();
            let (x, y, z) = (
                f32::from_bits(r as u32),
                f32::from_bits((r >> 32) as u32),
                f32::from_bits(next() as u32),
            );
            same(x, y, z);
            let e = |v: u64| {
                f32::from_bits((v as u32 & 0x807f_ffff) | (127 + (v >> 40) as u32 % 8) << 23)
            };
            let (x, y, z) = (e(r), e(r >> 7), e(next()));
            same(x, y, z);
            same(x, y, -(x * y));
            same(x, -y, x * y);
            let p = x * y;
            let half = f32::from_bits(p.to_bits() & 0xff80_0000) * f32::EPSILON * 0.5;
            same(x, y, half);
            same(x, y, -half);
            same(x, y, half * (1.0 + f32::EPSILON));
            same(x * 1e-30, y * 1e-8, half * 1e-38);
        }
        for (x, y, z) in [
            (0.0, -1.0, 0.0),
            (-0.0, 0.0, -0.0),
            (f32::MAX, 2.0, -f32::MAX),
            (f32::MAX, 1.0, f32::MAX),
            (f32::MIN_POSITIVE, 0.5, f32::from_bits(1)),
            (1e-20, 1e-20, 1e-45),
            (f32::INFINITY, 0.0, 1.0),
            (f32::NAN, 1.0, 2.0),
            (1.0, 1.0 + f32::EPSILON, f32::EPSILON * f32::EPSILON / 2.0),
        ] {
            same(x, y, z);
        }
    }
}
