//! Per-lane semantics of the integer and bit intrinsics compilers emit
//! (`mul24`, `prmt`, `bfind`, `shf`, `dp4a`/`dp2a`, `fns`, `lop3`, `sad`,
//! `testp`, `copysign`), each a plain function of its operands written from
//! the PTX ISA text. The interpreter ([`crate::func::exec`]) maps them over
//! lanes; the unit tests compare them with independent models.

use crate::ir::{PrmtMode, TestpOp};

/// Sign- or zero-extends the low `bits` bits of `v`.
fn extend(v: u64, bits: u32, signed: bool) -> i128 {
    let m = (1u128 << bits) - 1;
    let x = u128::from(v) & m;
    if signed && x >> (bits - 1) & 1 == 1 {
        x as i128 - (1i128 << bits)
    } else {
        x as i128
    }
}

/// `mul24.lo/.hi`: the low 24 bits of `a` and `b`, sign- (`.s32`) or zero-
/// (`.u32`) extended, multiplied into a 48-bit product; `.lo` is bits 0..31
/// of it, `.hi` bits 16..47.
pub fn mul24(a: u64, b: u64, signed: bool, hi: bool) -> u32 {
    let p = extend(a, 24, signed) * extend(b, 24, signed);
    if hi { (p >> 16) as u32 } else { p as u32 }
}

/// `sad`: `c + |a - b|` on `bits`-bit operands (wrapping).
pub fn sad(a: u64, b: u64, c: u64, bits: u32, signed: bool) -> u64 {
    let d = (extend(a, bits, signed) - extend(b, bits, signed)).unsigned_abs() as u64;
    c.wrapping_add(d)
}

/// `prmt.b32 d, a, b, c`: picks bytes of the 8-byte value `{b, a}` (`a` is
/// bytes 0..3) by the selector `c` in the given mode.
pub fn prmt(a: u32, b: u32, c: u32, mode: PrmtMode) -> u32 {
    let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
    let byte = |i: u32| u32::from(bytes[(i & 7) as usize]);
    let sel: [u32; 4] = match mode {
        PrmtMode::Generic => {
            let mut out = 0u32;
            for k in 0..4 {
                let s = (c >> (4 * k)) & 0xf;
                let v = byte(s & 7);
                // Bit 3 of a selector replicates the byte's sign bit.
                let v = if s & 8 != 0 {
                    if v & 0x80 != 0 { 0xff } else { 0 }
                } else {
                    v
                };
                out |= v << (8 * k);
            }
            return out;
        }
        _ => {
            let s = c & 3;
            match mode {
                PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
                PrmtMode::B4e => [
                    s,
                    (s + 7) & 7, // s - 1 modulo 8
                    (s + 6) & 7,
                    (s + 5) & 7,
                ],
                PrmtMode::Rc8 => [s, s, s, s],
                PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
                PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
                PrmtMode::Rc16 => {
                    let lo = (s & 1) * 2;
                    [lo, lo + 1, lo, lo + 1]
                }
                PrmtMode::Generic => [0, 1, 2, 3],
            }
        }
    };
    sel.iter()
        .enumerate()
        .fold(0u32, |acc, (k, &s)| acc | byte(s) << (8 * k))
}

/// `bfind`: the bit position of the most significant non-sign bit of the
/// `bits`-bit `a` (for signed types, of `!a` when `a` is negative);
/// `0xffffffff` when there is none. `.shiftamt` returns `bits - 1 - pos`.
pub fn bfind(a: u64, bits: u32, signed: bool, shiftamt: bool) -> u32 {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut x = a & mask;
    if signed && x >> (bits - 1) & 1 == 1 {
        x = !x & mask;
    }
    if x == 0 {
        return u32::MAX;
    }
    let pos = 63 - x.leading_zeros();
    if shiftamt { bits - 1 - pos } else { pos }
}

/// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`: shifts the 64-bit `{b, a}`
/// (`a` low) by `c` (mod 32 for `.wrap`, at most 32 for `.clamp`) and
/// returns the high word (`.l`) or the low word (`.r`).
pub fn shf(a: u32, b: u32, c: u32, right: bool, clamp: bool) -> u32 {
    let n = if clamp { c.min(32) } else { c & 31 };
    let v = u64::from(b) << 32 | u64::from(a);
    if right {
        (v >> n) as u32
    } else {
        ((v << n) >> 32) as u32
    }
}

/// `dp4a.atype.btype d, a, b, c`: `c` plus the sum of the products of the
/// four byte pairs of `a` and `b` (each byte signed by its operand's type).
pub fn dp4a(a: u32, b: u32, c: u32, a_signed: bool, b_signed: bool) -> u32 {
    let mut acc = c as i64;
    for k in 0..4 {
        let x = extend(u64::from(a >> (8 * k)), 8, a_signed) as i64;
        let y = extend(u64::from(b >> (8 * k)), 8, b_signed) as i64;
        acc += x * y;
    }
    acc as u32
}

/// `dp2a.{lo,hi}.atype.btype d, a, b, c`: `c` plus the products of the two
/// 16-bit halves of `a` with two bytes of `b` (bytes 0 and 1 for `.lo`,
/// 2 and 3 for `.hi`).
pub fn dp2a(a: u32, b: u32, c: u32, a_signed: bool, b_signed: bool, hi: bool) -> u32 {
    let base = if hi { 2 } else { 0 };
    let mut acc = c as i64;
    for k in 0..2 {
        let x = extend(u64::from(a >> (16 * k)), 16, a_signed) as i64;
        let y = extend(u64::from(b >> (8 * (base + k))), 8, b_signed) as i64;
        acc += x * y;
    }
    acc as u32
}

/// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set bit
/// of `mask` counting from `base` (upwards for a positive offset, downwards
/// for a negative one; offset 0 asks whether bit `base` itself is set);
/// `0xffffffff` when there is no such bit.
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    if base > 31 {
        return u32::MAX;
    }
    if offset == 0 {
        return if mask >> base & 1 == 1 {
            base
        } else {
            u32::MAX
        };
    }
    let mut left = offset.unsigned_abs();
    let mut pos = base as i64;
    let step = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&pos) {
        if mask >> pos & 1 == 1 {
            left -= 1;
            if left == 0 {
                return pos as u32;
            }
        }
        pos += step;
    }
    u32::MAX
}

/// `lop3.b32 d, a, b, c, lut`: bit `i` of the result is bit
/// `4·a[i] + 2·b[i] + c[i]` of `lut` (so `lut = F(0xF0, 0xCC, 0xAA)`).
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut r = 0u32;
    for k in 0..8u32 {
        if lut >> k & 1 == 1 {
            let pa = if k & 4 != 0 { a } else { !a };
            let pb = if k & 2 != 0 { b } else { !b };
            let pc = if k & 1 != 0 { c } else { !c };
            r |= pa & pb & pc;
        }
    }
    r
}

/// `testp.op` of a float given as its exponent and mantissa fields.
fn testp_fields(exp: u64, man: u64, exp_max: u64, op: TestpOp) -> bool {
    let nan = exp == exp_max && man != 0;
    let inf = exp == exp_max && man == 0;
    match op {
        TestpOp::Finite => exp != exp_max,
        TestpOp::Infinite => inf,
        TestpOp::Number => !nan,
        TestpOp::NotANumber => nan,
        TestpOp::Normal => exp != 0 && exp != exp_max,
        TestpOp::Subnormal => exp == 0 && man != 0,
    }
}

/// `testp.op.f32` of the bits `x`.
pub fn testp32(x: u32, op: TestpOp) -> bool {
    testp_fields(
        u64::from(x >> 23 & 0xff),
        u64::from(x & 0x7f_ffff),
        0xff,
        op,
    )
}

/// `testp.op.f64` of the bits `x`.
pub fn testp64(x: u64, op: TestpOp) -> bool {
    testp_fields(x >> 52 & 0x7ff, x & ((1 << 52) - 1), 0x7ff, op)
}

/// `copysign d, a, b` on `bits`-bit floats: `b` with the sign of `a`.
pub fn copysign(a: u64, b: u64, bits: u32) -> u64 {
    let s = 1u64 << (bits - 1);
    (b & !s) | (a & s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::generate::Rng as SplitMix64;

    fn rng() -> SplitMix64 {
        SplitMix64::new(0x5eed_1234)
    }

    /// Interesting 32-bit values: edges of the 24-bit range and random ones.
    fn values(r: &mut SplitMix64, n: usize) -> Vec<u32> {
        let mut v = vec![
            0,
            1,
            2,
            0x7f_ffff,
            0x80_0000,
            0xff_ffff,
            0x100_0000,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0xff80_0000,
            0x1234_5678,
        ];
        for _ in 0..n {
            v.push(r.next_u64() as u32);
        }
        v
    }

    #[test]
    fn mul24_matches_the_isa_text() {
        // Independent model: the 24-bit operand as a value (bit 23 as sign
        // for .s32) by integer arithmetic on i64, the 48-bit product's bits.
        let mut r = rng();
        let vs = values(&mut r, 300);
        for &a in &vs {
            for &b in &vs {
                let sa = ((a & 0xff_ffff) as i64) - if a & 0x80_0000 != 0 { 1 << 24 } else { 0 };
                let sb = ((b & 0xff_ffff) as i64) - if b & 0x80_0000 != 0 { 1 << 24 } else { 0 };
                let ps = sa * sb;
                let pu = ((a & 0xff_ffff) as u64) * ((b & 0xff_ffff) as u64);
                assert_eq!(mul24(a.into(), b.into(), true, false), ps as u32);
                assert_eq!(mul24(a.into(), b.into(), true, true), (ps >> 16) as u32);
                assert_eq!(mul24(a.into(), b.into(), false, false), pu as u32);
                assert_eq!(mul24(a.into(), b.into(), false, true), (pu >> 16) as u32);
            }
        }
        // Hand-checked: 0xffffff (-1 as s24) × 2 = -2; as u24: 0x1fffffe.
        assert_eq!(mul24(0xffff_ffff, 2, true, false), 0xffff_fffe);
        assert_eq!(mul24(0xffff_ffff, 2, false, false), 0x1ff_fffe);
        assert_eq!(mul24(0xffff_ffff, 2, false, true), 0x1ff);
        // The high byte of a 32-bit operand is ignored.
        assert_eq!(mul24(0xab00_0003, 5, false, false), 15);
    }

    #[test]
    fn prmt_generic_mode_selects_bytes_and_replicates_signs() {
        let a = 0x8382_8180u32; // bytes 0..3 = 80 81 82 83
        let b = 0x0706_0504u32; // bytes 4..7 = 04 05 06 07
        assert_eq!(prmt(a, b, 0x3210, PrmtMode::Generic), a);
        assert_eq!(prmt(a, b, 0x7654, PrmtMode::Generic), b);
        assert_eq!(prmt(a, b, 0x0123, PrmtMode::Generic), 0x8081_8283);
        // Selector 8 = byte 0 with sign replication (0x80 negative → ff),
        // selector 0xc = byte 4 (0x04 positive → 00).
        assert_eq!(prmt(a, b, 0x0c48, PrmtMode::Generic), 0x8000_04ff);
        // Random: against a byte-array model.
        let mut r = rng();
        for _ in 0..2000 {
            let (a, b, c) = (
                r.next_u64() as u32,
                r.next_u64() as u32,
                r.next_u64() as u32,
            );
            let src: Vec<u8> = a.to_le_bytes().into_iter().chain(b.to_le_bytes()).collect();
            let mut want = [0u8; 4];
            for (k, w) in want.iter_mut().enumerate() {
                let s = (c >> (4 * k)) & 15;
                let byte = src[(s % 8) as usize];
                *w = if s >= 8 {
                    ((byte as i8) >> 7) as u8
                } else {
                    byte
                };
            }
            assert_eq!(prmt(a, b, c, PrmtMode::Generic), u32::from_le_bytes(want));
        }
    }

    #[test]
    fn prmt_modes_follow_the_isa_tables() {
        // Bytes 0..7 are 0x10..0x17 so each result names its source bytes.
        let a = 0x1312_1110u32;
        let b = 0x1716_1514u32;
        let bytes = |s: [u32; 4]| s.iter().rev().fold(0u32, |acc, &x| acc << 8 | (0x10 + x));
        // The ISA's tables, row by row (selector c[1:0] = 0, 1, 2, 3), written
        // as the byte numbers d.b3 d.b2 d.b1 d.b0 reversed into [b0,b1,b2,b3].
        let table = [
            (
                PrmtMode::F4e,
                [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
            ),
            (
                PrmtMode::B4e,
                [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
            ),
            (
                PrmtMode::Rc8,
                [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
            ),
            (
                PrmtMode::Ecl,
                [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
            ),
            (
                PrmtMode::Ecr,
                [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
            ),
            (
                PrmtMode::Rc16,
                [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
            ),
        ];
        for (mode, rows) in table {
            for (s, row) in rows.iter().enumerate() {
                // Upper selector bits are ignored in these modes.
                let c = s as u32 | 0xabcd_ef00;
                assert_eq!(prmt(a, b, c, mode), bytes(*row), "{mode:?} c={s}");
            }
        }
    }

    #[test]
    fn bfind_and_shiftamt() {
        assert_eq!(bfind(0, 32, false, false), u32::MAX);
        assert_eq!(bfind(1, 32, false, false), 0);
        assert_eq!(bfind(0x8000_0000, 32, false, false), 31);
        assert_eq!(bfind(0x8000_0000, 32, false, true), 0);
        assert_eq!(bfind(0x10, 32, false, true), 27); // 31 - 4
        // Signed: -1 has no non-sign bit; -2 (…110) → !x = 1 → 0.
        assert_eq!(bfind(0xffff_ffff, 32, true, false), u32::MAX);
        assert_eq!(bfind(0xffff_fffe, 32, true, false), 0);
        assert_eq!(bfind(0x8000_0000, 32, true, false), 30);
        assert_eq!(bfind(1 << 40, 64, false, false), 40);
        assert_eq!(bfind(1 << 40, 64, false, true), 23);
        let mut r = rng();
        for _ in 0..2000 {
            let x = r.next_u64() >> (r.next_u64() % 64);
            // Model: scan bits from the top.
            let want = (0..64u32)
                .rev()
                .find(|&i| x >> i & 1 == 1)
                .unwrap_or(u32::MAX);
            assert_eq!(bfind(x, 64, false, false), want);
        }
    }

    #[test]
    fn funnel_shifts() {
        let mut r = rng();
        for _ in 0..3000 {
            let (a, b) = (r.next_u64() as u32, r.next_u64() as u32);
            let c = (r.next_u64() % 80) as u32;
            // Model: the ISA's pseudo-code with u128 arithmetic.
            let wrap = c % 32;
            let clamp = c.min(32);
            let v = (u128::from(b) << 32) | u128::from(a);
            assert_eq!(shf(a, b, c, false, false), ((v << wrap) >> 32) as u32);
            assert_eq!(shf(a, b, c, false, true), ((v << clamp) >> 32) as u32);
            assert_eq!(shf(a, b, c, true, false), (v >> wrap) as u32);
            assert_eq!(shf(a, b, c, true, true), (v >> clamp) as u32);
        }
        // Rotates: shf.l.wrap(x, x, n) = rotl(x, n).
        assert_eq!(shf(0x8000_0001, 0x8000_0001, 1, false, false), 0x0000_0003);
        assert_eq!(shf(0x1234_5678, 0x1234_5678, 8, true, false), 0x7812_3456);
        assert_eq!(shf(0, 5, 32, true, true), 5);
    }

    #[test]
    fn dot_products() {
        // Hand-checked: bytes (1, -1, 2, -2) · (3, 4, 5, 6) signed = 3-4+10-12 = -3.
        let a = u32::from_le_bytes([1, 0xff, 2, 0xfe]);
        let b = u32::from_le_bytes([3, 4, 5, 6]);
        assert_eq!(dp4a(a, b, 10, true, false), 7);
        // Unsigned a: 1*3 + 255*4 + 2*5 + 254*6 = 2557.
        assert_eq!(dp4a(a, b, 0, false, false), 2557);
        // dp2a: halves of a (1 + 0xff00 → -256 signed? a.h0 = 0xff01 = -255, a.h1 = 0xfe02 = -510).
        assert_eq!(
            dp2a(a, b, 0, true, false, false),
            (-255i32 * 3 + -510 * 4) as u32
        );
        assert_eq!(
            dp2a(a, b, 1, true, false, true),
            (-255i32 * 5 + -510 * 6 + 1) as u32
        );
        assert_eq!(dp2a(a, b, 0, false, false, false), 0xff01 * 3 + 0xfe02 * 4);
    }

    #[test]
    fn fns_lop3_sad_testp_copysign() {
        assert_eq!(fns(0b1011_0100, 0, 1), 2);
        assert_eq!(fns(0b1011_0100, 0, 3), 5);
        assert_eq!(fns(0b1011_0100, 0, 5), u32::MAX);
        assert_eq!(fns(0b1011_0100, 7, -2), 5);
        assert_eq!(fns(0b1011_0100, 2, 0), 2);
        assert_eq!(fns(0b1011_0100, 3, 0), u32::MAX);
        let mut r = rng();
        for _ in 0..1000 {
            let (a, b, c) = (
                r.next_u64() as u32,
                r.next_u64() as u32,
                r.next_u64() as u32,
            );
            assert_eq!(lop3(a, b, c, 0xf0), a);
            assert_eq!(lop3(a, b, c, 0xcc), b);
            assert_eq!(lop3(a, b, c, 0xaa), c);
            assert_eq!(lop3(a, b, c, 0xf0 & 0xcc | 0xaa), (a & b) | c);
            assert_eq!(lop3(a, b, c, 0x96), a ^ b ^ c);
            assert_eq!(lop3(a, b, c, !(0xf0 & 0xcc) & 0xaa), !(a & b) & c);
        }
        assert_eq!(sad(3, 10, 100, 32, false), 107);
        assert_eq!(sad(0xffff_fffd, 2, 0, 32, true), 5); // |-3 - 2|
        assert_eq!(sad(0xffff_fffd, 2, 0, 32, false), 0xffff_fffb);
        for (x, fin, inf, nan, normal, sub) in [
            (1.0f32, true, false, false, true, false),
            (f32::INFINITY, false, true, false, false, false),
            (f32::NAN, false, false, true, false, false),
            (0.0, true, false, false, false, false),
            (1e-40, true, false, false, false, true),
        ] {
            let b = x.to_bits();
            assert_eq!(testp32(b, TestpOp::Finite), fin);
            assert_eq!(testp32(b, TestpOp::Infinite), inf);
            assert_eq!(testp32(b, TestpOp::NotANumber), nan);
            assert_eq!(testp32(b, TestpOp::Number), !nan);
            assert_eq!(testp32(b, TestpOp::Normal), normal);
            assert_eq!(testp32(b, TestpOp::Subnormal), sub);
            let d = f64::from(x).to_bits();
            assert_eq!(testp64(d, TestpOp::Finite), x.is_finite());
            assert_eq!(testp64(d, TestpOp::NotANumber), x.is_nan());
        }
        assert!(testp64(1e-310f64.to_bits(), TestpOp::Subnormal));
        assert_eq!(
            copysign((-1.0f32).to_bits().into(), 2.5f32.to_bits().into(), 32),
            u64::from((-2.5f32).to_bits())
        );
        assert_eq!(
            copysign(1.0f64.to_bits(), (-0.0f64).to_bits(), 64),
            0.0f64.to_bits()
        );
    }
}
