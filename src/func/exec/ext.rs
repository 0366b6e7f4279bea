//! Semantics of the instructions added for compiler-shaped and old PTX:
//! 24-bit multiplies, carry chains, byte permutes, funnel shifts, dot
//! products, float class tests, old `set`, `isspacep`, and `mov` packing
//! and unpacking registers. The per-lane arithmetic is in
//! [`crate::func::intops`]; this file maps it over lanes.

use super::{Exec, get, lanes, mask_bits, put, set_pred, sext};
use crate::func::dyninst::MemAccess;
use crate::func::error::{SimError, SimErrorKind};
use crate::func::intops;
use crate::func::memory::{LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::func::texture as intex;
use crate::ir::*;

impl Exec<'_, '_, '_> {
    /// Executes the instruction if it is one of this file's; `false` leaves
    /// it to the general ALU path.
    pub(super) fn alu_ext(&mut self, m: u64) -> bool {
        let inst = self.inst();
        let t = inst.ty;
        let tb = t.bits();
        let signed = t.is_signed();
        let mods = inst.mods;
        let src = |k: usize| inst.src[k];
        match inst.op {
            Opcode::Mov => return self.mov_vector(m),
            Opcode::Add | Opcode::Sub | Opcode::Mad if mods.has(flag::CC) => {}
            Opcode::Mul24
            | Opcode::Mad24
            | Opcode::Sad
            | Opcode::Prmt
            | Opcode::Bfind
            | Opcode::Shf
            | Opcode::Dp4a
            | Opcode::Dp2a
            | Opcode::Copysign
            | Opcode::Testp
            | Opcode::Cnot
            | Opcode::Fns
            | Opcode::Lop3
            | Opcode::Addc
            | Opcode::Subc
            | Opcode::Madc
            | Opcode::Tanh
            | Opcode::Isspacep
            | Opcode::Set => {}
            _ => return false,
        }
        let a = self.val(src(0));
        let b = self.val(src(1));
        let c = if inst.nsrc > 2 {
            self.val(src(2))
        } else {
            super::Val::Imm(0)
        };
        let e = if inst.nsrc > 3 {
            self.val(src(3))
        } else {
            super::Val::Imm(0)
        };
        if matches!(inst.op, Opcode::Testp | Opcode::Isspacep) {
            let Some(p) = Self::pred_dst(inst.dst) else {
                return true;
            };
            for l in lanes(m) {
                let x = get(self.w, a, l);
                let v = match inst.op {
                    Opcode::Testp if tb == 32 => intops::testp32(x as u32, mods.testp),
                    Opcode::Testp => intops::testp64(x, mods.testp),
                    _ => {
                        let shared = (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&x);
                        let local = (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&x);
                        match mods.space {
                            Space::Shared => shared,
                            Space::Local => local,
                            // `.const` data lives in global memory here.
                            Space::Global | Space::Const => !shared && !local,
                            _ => false,
                        }
                    }
                };
                set_pred(self.w, p, l, v);
            }
            return true;
        }
        let dst = self.dst(inst.dst);
        let w = &mut *self.w;
        let mk = mask_bits(tb);
        let cc = mods.has(flag::CC);
        for l in lanes(m) {
            let x = get(w, a, l);
            let y = get(w, b, l);
            let z = get(w, c, l);
            let carry_in = w.carry >> l & 1;
            let mut carry_out = None;
            let v = match inst.op {
                Opcode::Mul24 => u64::from(intops::mul24(x, y, signed, mods.mul == MulMode::Hi)),
                Opcode::Mad24 => {
                    let p = intops::mul24(x, y, signed, mods.mul == MulMode::Hi);
                    if mods.has(flag::SAT) {
                        // mad24.hi.sat.s32: the sum saturates to s32.
                        (i64::from(p as i32) + sext(z, 32))
                            .clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                            as u64
                    } else {
                        u64::from(p).wrapping_add(z)
                    }
                }
                Opcode::Sad => intops::sad(x, y, z, tb, signed),
                Opcode::Prmt => u64::from(intops::prmt(x as u32, y as u32, z as u32, mods.prmt)),
                Opcode::Bfind => u64::from(intops::bfind(x, tb, signed, mods.has(flag::SHIFTAMT))),
                Opcode::Shf => u64::from(intops::shf(
                    x as u32,
                    y as u32,
                    z as u32,
                    mods.has(flag::SHF_RIGHT),
                    mods.has(flag::SHF_CLAMP),
                )),
                Opcode::Dp4a => u64::from(intops::dp4a(
                    x as u32,
                    y as u32,
                    z as u32,
                    signed,
                    inst.ty2.is_signed(),
                )),
                Opcode::Dp2a => u64::from(intops::dp2a(
                    x as u32,
                    y as u32,
                    z as u32,
                    signed,
                    inst.ty2.is_signed(),
                    mods.mul == MulMode::Hi,
                )),
                Opcode::Copysign => intops::copysign(x, y, tb),
                Opcode::Cnot => u64::from(x & mk == 0),
                Opcode::Fns => u64::from(intops::fns(x as u32, y as u32, z as u32 as i32)),
                Opcode::Lop3 => {
                    let lut = get(w, e, l) as u8;
                    u64::from(intops::lop3(x as u32, y as u32, z as u32, lut))
                }
                Opcode::Tanh => u64::from(f32::from_bits(x as u32).tanh().to_bits()),
                Opcode::Add | Opcode::Addc => {
                    let cin = if inst.op == Opcode::Addc { carry_in } else { 0 };
                    let s = u128::from(x & mk) + u128::from(y & mk) + u128::from(cin);
                    carry_out = Some((s >> tb) as u64 & 1);
                    s as u64
                }
                Opcode::Sub | Opcode::Subc => {
                    let bin = if inst.op == Opcode::Subc { carry_in } else { 0 };
                    let sub = u128::from(y & mk) + u128::from(bin);
                    carry_out = Some(u64::from(sub > u128::from(x & mk)));
                    (x & mk).wrapping_sub(sub as u64)
                }
                Opcode::Mad | Opcode::Madc => {
                    let cin = if inst.op == Opcode::Madc { carry_in } else { 0 };
                    let p = if tb == 64 {
                        let p = if signed {
                            (i128::from(x as i64) * i128::from(y as i64)) as u128
                        } else {
                            u128::from(x) * u128::from(y)
                        };
                        if mods.mul == MulMode::Hi { p >> 64 } else { p }
                    } else {
                        let p = if signed {
                            (sext(x, 32) * sext(y, 32)) as u64
                        } else {
                            (x & mk) * (y & mk)
                        };
                        u128::from(if mods.mul == MulMode::Hi { p >> 32 } else { p })
                    } as u64
                        & mk;
                    let s = u128::from(p) + u128::from(z & mk) + u128::from(cin);
                    carry_out = Some((s >> tb) as u64 & 1);
                    s as u64
                }
                Opcode::Set => {
                    let r =
                        super::setp_mask(inst.ty2, mods.cmp, mods.has(flag::FTZ), 1, |_| x, |_| y)
                            & 1
                            == 1;
                    let r = match mods.bool_op {
                        None => r,
                        Some(op) => {
                            let q = z & 1 == 1;
                            match op {
                                BoolOp::And => r & q,
                                BoolOp::Or => r | q,
                                BoolOp::Xor => r ^ q,
                            }
                        }
                    };
                    match (r, t) {
                        (false, _) => 0,
                        (true, Type::F32) => u64::from(1.0f32.to_bits()),
                        (true, _) => 0xffff_ffff,
                    }
                }
                _ => 0,
            };
            if cc && let Some(co) = carry_out {
                w.carry = (w.carry & !(1 << l)) | co << l;
            }
            put(w, dst, l, v, t);
        }
        true
    }

    /// `mov.b64 d, {lo, hi}` / `mov.b32 d, {h0, h1}` (pack) and
    /// `mov.b64 {lo, hi}, a` (unpack): element 0 is the least significant.
    fn mov_vector(&mut self, m: u64) -> bool {
        let inst = self.inst();
        let t = inst.ty;
        match (inst.dst, inst.src[0]) {
            (Operand::Reg(_), Operand::Vector { regs, len }) => {
                let ebits = t.bits() / u32::from(len.max(1));
                let dst = self.dst(inst.dst);
                let n = self.n;
                for l in lanes(m) {
                    let mut v = 0u64;
                    for (k, r) in regs[..len as usize].iter().enumerate() {
                        if let Some(r) = r {
                            let x = self.w.regs[r.0 as usize * n + l] & mask_bits(ebits);
                            v |= x << (ebits * k as u32);
                        }
                    }
                    put(self.w, dst, l, v, t);
                }
                true
            }
            (Operand::Vector { regs, len }, _) => {
                let ebits = t.bits() / u32::from(len.max(1));
                let a = self.val(inst.src[0]);
                let n = self.n;
                let bits = self.cx.info.reg_bits.clone();
                for l in lanes(m) {
                    let x = get(self.w, a, l);
                    for (k, r) in regs[..len as usize].iter().enumerate() {
                        if let Some(r) = r {
                            let part = (x >> (ebits * k as u32)) & mask_bits(ebits);
                            let rb = u32::from(bits[r.0 as usize]);
                            self.w.regs[r.0 as usize * n + l] = part & mask_bits(rb);
                        }
                    }
                }
                true
            }
            _ => false,
        }
    }
}

impl Exec<'_, '_, '_> {
    /// `tex.{1d,2d}.v4.dtype.ctype d, [texref, {coords}]`: per lane, the
    /// texel at the clamped, floored coordinates of the bound texture
    /// ([`crate::func::texture`]); the access is reported as a global load
    /// of one texel per lane (the timing model sends it down the L1D path).
    pub(super) fn tex(&mut self, m: u64) -> Result<MemAccess, SimError> {
        let inst = self.inst();
        let Operand::TexRef(id) = inst.src[0] else {
            return Err(self.err(
                SimErrorKind::TextureUnbound {
                    name: String::from("?"),
                },
                None,
                None,
            ));
        };
        let name = self
            .kernel
            .textures
            .get(id as usize)
            .map_or("?", String::as_str);
        let Some(desc) = self.cx.global.texture(name).copied() else {
            return Err(self.err(
                SimErrorKind::TextureUnbound {
                    name: name.to_string(),
                },
                None,
                None,
            ));
        };
        let coord_float = inst.ty2 == Type::F32;
        let float_result = inst.ty == Type::F32;
        let (xs, ys) = match inst.src[1] {
            Operand::Vector { regs, len } => (regs[0], if len > 1 { regs[1] } else { None }),
            _ => (None, None),
        };
        let n = self.n;
        let size = desc.texel_bytes() as usize;
        let mut buf = [0u8; 16];
        for l in lanes(m) {
            let at = |r: Option<RegId>| r.map_or(0, |r| self.w.regs[r.0 as usize * n + l] as u32);
            let addr = desc.texel_addr(at(xs), at(ys), coord_float);
            self.w.addrs[l] = addr;
            if !self.cx.global.read(addr, &mut buf[..size]) {
                return Err(self.oob(Space::Global, addr, size, false, l));
            }
            let texel = intex::fetch_texel(&desc, &buf[..size], float_result);
            if let Operand::Vector { regs, len } = inst.dst {
                for (k, r) in regs[..len as usize].iter().enumerate() {
                    if let Some(r) = r {
                        let rb = u32::from(self.cx.info.reg_bits[r.0 as usize]);
                        self.w.regs[r.0 as usize * n + l] = u64::from(texel[k]) & mask_bits(rb);
                    }
                }
            }
        }
        Ok(MemAccess {
            space: Space::Global,
            size: size as u32,
            write: false,
            atomic: None,
        })
    }
}
