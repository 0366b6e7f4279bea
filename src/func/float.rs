//! IEEE details PTX specifies and Rust does not give directly: directed
//! rounding of f32/f64 results, flush-to-zero, PTX `min`/`max`, saturation,
//! and float↔integer conversions.
//!
//! Directed rounding uses error-free transformations: the exact result is
//! `hi + lo` (TwoSum for sums, an fma residual for products and quotients),
//! `hi` is rounded to nearest, and it is nudged one ulp when the exact value
//! lies on the other side of the mode's direction.

use crate::ir::Round;

/// Flushes an f32 subnormal to a zero of the same sign.
#[inline]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// Clamps to [0, 1]; NaN becomes 0 (PTX `.sat`).
#[inline]
pub fn sat32(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// Clamps to [0, 1]; NaN becomes 0 (PTX `.sat`).
#[inline]
pub fn sat64(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// PTX `min` on f32 (through [`min64`]: f32→f64 is exact and keeps the
/// sign of zero, so the result converts back exactly).
#[inline]
pub fn min32(a: f32, b: f32) -> f32 {
    min64(f64::from(a), f64::from(b)) as f32
}

/// PTX `max` on f32 (through [`max64`]).
#[inline]
pub fn max32(a: f32, b: f32) -> f32 {
    max64(f64::from(a), f64::from(b)) as f32
}

/// PTX `min`: the non-NaN operand if one is NaN; `-0 < +0`.
#[inline]
pub fn min64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else if a == b {
        if a.is_sign_negative() { a } else { b }
    } else if a < b {
        a
    } else {
        b
    }
}

/// PTX `max`: the non-NaN operand if one is NaN; `+0 > -0`.
#[inline]
pub fn max64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else if a == b {
        if a.is_sign_positive() { a } else { b }
    } else if a > b {
        a
    } else {
        b
    }
}

/// Rounds the exact value `hi + lo` (two f64s, `|lo|` tiny against `hi`) to
/// f32 in `mode`.
pub fn round_to_f32(hi: f64, lo: f64, mode: Round) -> f32 {
    let r = hi as f32; // nearest of hi
    if !r.is_finite() && hi.is_finite() {
        // Overflow: directed modes may stop at MAX instead of infinity.
        return match mode {
            Round::Rz => f32::MAX.copysign(r),
            Round::Rm if r > 0.0 => f32::MAX,
            Round::Rp if r < 0.0 => -f32::MAX,
            _ => r,
        };
    }
    if !r.is_finite() {
        return r;
    }
    // Sign of exact − r.
    let d = (hi - f64::from(r)) + lo;
    match mode {
        Round::Rz => {
            if r > 0.0 && d < 0.0 {
                r.next_down()
            } else if r < 0.0 && d > 0.0 {
                r.next_up()
            } else if r == 0.0 {
                0.0f32.copysign(if hi != 0.0 { hi as f32 } else { r })
            } else {
                r
            }
        }
        Round::Rm if d < 0.0 => r.next_down(),
        Round::Rp if d > 0.0 => r.next_up(),
        Round::Rn | Round::None => {
            // hi may sit exactly halfway between two f32s while lo breaks the tie.
            if d != 0.0 && lo != 0.0 {
                let other = if d > 0.0 { r.next_up() } else { r.next_down() };
                let exact_mid = (f64::from(r) + f64::from(other)) / 2.0;
                if hi == exact_mid {
                    return other;
                }
            }
            r
        }
        _ => r,
    }
}

/// Rounds the exact value `hi + lo` (f64 pair) to f64 in `mode`, where
/// `hi` is already the nearest f64.
pub fn nudge_f64(hi: f64, lo: f64, mode: Round) -> f64 {
    if !hi.is_finite() {
        return hi;
    }
    match mode {
        Round::Rz => {
            if hi > 0.0 && lo < 0.0 {
                hi.next_down()
            } else if hi < 0.0 && lo > 0.0 {
                hi.next_up()
            } else {
                hi
            }
        }
        Round::Rm if lo < 0.0 => hi.next_down(),
        Round::Rp if lo > 0.0 => hi.next_up(),
        _ => hi,
    }
}

/// Error-free sum: `a + b = s + e` exactly (Dekker's Fast2Sum on the
/// operands ordered by magnitude, which, unlike Knuth's branch-free
/// TwoSum, cannot overflow in an intermediate when `s` is finite).
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let (x, y) = if a.abs() >= b.abs() { (a, b) } else { (b, a) };
    let s = x + y;
    (s, y - (s - x))
}

/// f32 add in `mode`.
pub fn add32(a: f32, b: f32, mode: Round) -> f32 {
    match mode {
        Round::None | Round::Rn => a + b,
        _ => {
            let (s, e) = two_sum(f64::from(a), f64::from(b));
            if (a + b).is_nan() {
                a + b
            } else if s == 0.0 && e == 0.0 {
                zero_sum(a.is_sign_negative(), b.is_sign_negative(), mode) as f32
            } else {
                round_to_f32(s, e, mode)
            }
        }
    }
}

/// f32 multiply in `mode` (the product of two f32s is exact in f64).
pub fn mul32(a: f32, b: f32, mode: Round) -> f32 {
    match mode {
        Round::None | Round::Rn => a * b,
        _ => {
            let p = f64::from(a) * f64::from(b);
            if p.is_nan() {
                a * b
            } else {
                round_to_f32(p, 0.0, mode)
            }
        }
    }
}

/// f32 fused multiply-add, rounded once in `mode`.
pub fn fma32(a: f32, b: f32, c: f32, mode: Round) -> f32 {
    match mode {
        Round::None | Round::Rn => a.mul_add(b, c),
        _ => {
            let p = f64::from(a) * f64::from(b); // exact
            let (s, e) = two_sum(p, f64::from(c));
            if s.is_nan() {
                a.mul_add(b, c)
            } else if s == 0.0 && e == 0.0 {
                let p_neg = a.is_sign_negative() != b.is_sign_negative();
                zero_sum(p_neg, c.is_sign_negative(), mode) as f32
            } else {
                round_to_f32(s, e, mode)
            }
        }
    }
}

/// f32 divide in `mode`.
pub fn div32(a: f32, b: f32, mode: Round) -> f32 {
    match mode {
        Round::None | Round::Rn => a / b,
        _ => {
            let q = f64::from(a) / f64::from(b);
            if !q.is_finite() || q == 0.0 {
                return round_to_f32(q, 0.0, mode);
            }
            // Residual a − q·b is exact with fma; its sign (÷ sign of b) tells
            // whether the true quotient is above or below q.
            let r = (-q).mul_add(f64::from(b), f64::from(a));
            let lo = if b > 0.0 { r } else { -r };
            round_to_f32(q, lo * f64::MIN_POSITIVE, mode)
        }
    }
}

/// f32 square root in `mode`.
pub fn sqrt32(a: f32, mode: Round) -> f32 {
    match mode {
        Round::None | Round::Rn => a.sqrt(),
        _ => {
            let s = f64::from(a).sqrt();
            if !s.is_finite() || s == 0.0 {
                return a.sqrt();
            }
            let r = (-s).mul_add(s, f64::from(a));
            round_to_f32(s, r * f64::MIN_POSITIVE, mode)
        }
    }
}

/// Sign of an exactly-zero sum `x + y` (IEEE 754 §6.3): the common sign
/// when both addends are zeros of the same sign, else `-0` only when
/// rounding toward −∞.
#[inline]
fn zero_sum(x_neg: bool, y_neg: bool, mode: Round) -> f64 {
    if (x_neg && y_neg) || (x_neg != y_neg && mode == Round::Rm) {
        -0.0
    } else {
        0.0
    }
}

/// A directed-mode result that rounded to nearest as ±∞ from finite
/// operands: toward zero (or away from that infinity) it stops at ±MAX.
#[inline]
fn overflow64(r: f64, mode: Round) -> f64 {
    match mode {
        Round::Rz => f64::MAX.copysign(r),
        Round::Rm if r > 0.0 => f64::MAX,
        Round::Rp if r < 0.0 => -f64::MAX,
        _ => r,
    }
}

/// 2^600 and 2^300: scaling tiny operands keeps fma residuals out of the
/// subnormal range, where they would round (and could lose their sign).
const SCALE: f64 = f64::from_bits((1023 + 600) << 52);
const HALF_SCALE: f64 = f64::from_bits((1023 + 300) << 52);
/// Below this magnitude residuals are computed scaled.
const TINY: f64 = 1e-250;

/// Nudges a nearest-rounded result whose exact value is `r + (sign of
/// lo)`; a result that underflowed to zero takes the sign of the residual
/// so the nudge moves it off zero in the right direction.
#[inline]
fn directed(r: f64, lo: f64, mode: Round) -> f64 {
    if r == 0.0 && lo != 0.0 {
        return nudge_f64(0.0f64.copysign(lo), lo, mode);
    }
    nudge_f64(r, lo, mode)
}

/// f64 add in `mode`.
pub fn add64(a: f64, b: f64, mode: Round) -> f64 {
    let (s, e) = two_sum(a, b);
    if matches!(mode, Round::None | Round::Rn) || s.is_nan() {
        return s;
    }
    if s == 0.0 && e == 0.0 {
        return zero_sum(a.is_sign_negative(), b.is_sign_negative(), mode);
    }
    if s.is_infinite() {
        return if a.is_finite() && b.is_finite() {
            overflow64(s, mode)
        } else {
            s
        };
    }
    nudge_f64(s, e, mode)
}

/// f64 multiply in `mode`.
pub fn mul64(a: f64, b: f64, mode: Round) -> f64 {
    let p = a * b;
    if matches!(mode, Round::None | Round::Rn) || p.is_nan() || a == 0.0 || b == 0.0 {
        return p;
    }
    if p.is_infinite() {
        return if a.is_finite() && b.is_finite() {
            overflow64(p, mode)
        } else {
            p
        };
    }
    if p == 0.0 {
        // Underflowed to zero: the exact product is a nonzero of known sign.
        let neg = a.is_sign_negative() != b.is_sign_negative();
        return directed(p, if neg { -1.0 } else { 1.0 }, mode);
    }
    // |a·b| is at least the smallest subnormal, so scaling a by 2^600 keeps
    // a finite and the residual normal.
    let e = if p.abs() < TINY {
        (a * SCALE).mul_add(b, -(p * SCALE))
    } else {
        a.mul_add(b, -p)
    };
    directed(p, e, mode)
}

/// Sign (as a nonzero f64, or 0) of the exact `a·b + c − r`, from
/// error-free transformations: `a·b = p + pe` (TwoProd by fma), `p + c =
/// s + e1` (TwoSum), so `a·b + c − r = (s − r) + e1 + pe`, summed with
/// TwoSum so the sign is exact. Valid while nothing overflows and `pe`
/// does not underflow; when the product underflows to zero and everything
/// else cancels, the product's sign decides.
fn fma_residual(a: f64, b: f64, c: f64, r: f64) -> f64 {
    let p = a * b;
    let pe = a.mul_add(b, -p);
    let (s, e1) = two_sum(p, c);
    let (u, v) = two_sum(s - r, e1);
    let (w, z) = two_sum(u, pe);
    let lo = if w != 0.0 { w } else { v + z };
    if lo == 0.0 && p == 0.0 && a != 0.0 && b != 0.0 {
        return if a.is_sign_negative() != b.is_sign_negative() {
            -1.0
        } else {
            1.0
        };
    }
    lo
}

/// f64 fused multiply-add in `mode`: `r = fma(a, b, c)` (correctly rounded
/// to nearest) nudged by the sign of the exact residual. Operands are
/// scaled by 2^±600 first when the product or the addend is near the
/// subnormal range or near overflow, so the residual computation neither
/// underflows nor overflows (the scaling is exact and keeps the sign).
pub fn fma64(a: f64, b: f64, c: f64, mode: Round) -> f64 {
    let r = a.mul_add(b, c);
    if matches!(mode, Round::None | Round::Rn) || r.is_nan() {
        return r;
    }
    let p_neg = a.is_sign_negative() != b.is_sign_negative();
    let p = a * b;
    if r == 0.0 && (a == 0.0 || b == 0.0) {
        return zero_sum(p_neg, c.is_sign_negative(), mode);
    }
    if r.is_infinite() {
        return if a.is_finite() && b.is_finite() && c.is_finite() {
            overflow64(r, mode)
        } else {
            r
        };
    }
    if a == 0.0 || b == 0.0 || c.is_infinite() {
        return r;
    }
    const HUGE: f64 = 1e290;
    // 2^-110: a product below this fraction of c is far under half an ulp
    // of c, so r == c and the product alone decides the side.
    const NEGLIGIBLE: f64 = 7.703719777548943e-34;
    let down = 1.0 / SCALE;
    let scale_down = |a: f64, b: f64| {
        if a.abs() >= b.abs() {
            (a * down, b)
        } else {
            (a, b * down)
        }
    };
    let scale_up = |a: f64, b: f64| {
        if a.abs() <= b.abs() {
            (a * SCALE, b)
        } else {
            (a, b * SCALE)
        }
    };
    let lo = if p.is_infinite() {
        // The rounded product overflowed but the sum did not: c nearly
        // cancels it, so scaling everything down keeps every term normal.
        let (a2, b2) = scale_down(a, b);
        fma_residual(a2, b2, c * down, r * down)
    } else if p.abs() < c.abs() * NEGLIGIBLE {
        if p_neg { -1.0 } else { 1.0 }
    } else if c.abs() < p.abs() * NEGLIGIBLE {
        // c only matters for the sign: keep it unscaled.
        if p.abs() < TINY {
            let (a2, b2) = scale_up(a, b);
            fma_residual(a2, b2, c * SCALE, r * SCALE)
        } else {
            fma_residual(a, b, c, r)
        }
    } else if p.abs() > HUGE || c.abs() > HUGE {
        let (a2, b2) = scale_down(a, b);
        fma_residual(a2, b2, c * down, r * down)
    } else if p.abs() < TINY {
        let (a2, b2) = scale_up(a, b);
        fma_residual(a2, b2, c * SCALE, r * SCALE)
    } else {
        fma_residual(a, b, c, r)
    };
    if r == 0.0 && lo == 0.0 {
        // An exact zero: a·b = −c.
        return zero_sum(p_neg, c.is_sign_negative(), mode);
    }
    directed(r, lo, mode)
}

/// f64 divide in `mode`.
pub fn div64(a: f64, b: f64, mode: Round) -> f64 {
    let q = a / b;
    if matches!(mode, Round::None | Round::Rn) || q.is_nan() || a == 0.0 || b.is_infinite() {
        return q;
    }
    if q.is_infinite() {
        return if a.is_finite() && b != 0.0 {
            overflow64(q, mode)
        } else {
            q
        };
    }
    // Residual a − q·b (its sign, divided by b's, says where a/b lies).
    let r = if a.abs() < TINY || q.abs() < TINY {
        (-(q * SCALE)).mul_add(b, a * SCALE)
    } else {
        (-q).mul_add(b, a)
    };
    directed(q, if b > 0.0 { r } else { -r }, mode)
}

/// f64 square root in `mode`.
pub fn sqrt64(a: f64, mode: Round) -> f64 {
    let s = a.sqrt();
    if matches!(mode, Round::None | Round::Rn) || !s.is_finite() || s == 0.0 {
        return s;
    }
    let e = if a < TINY {
        (-(s * HALF_SCALE)).mul_add(s * HALF_SCALE, a * SCALE)
    } else {
        (-s).mul_add(s, a)
    };
    nudge_f64(s, e, mode)
}

/// Rounds to an integral value (`cvt.rni/rzi/rmi/rpi` float→float and the
/// integer modes of float→int).
#[inline]
pub fn round_integral(x: f64, mode: Round) -> f64 {
    match mode {
        Round::Rzi | Round::Rz => x.trunc(),
        Round::Rmi | Round::Rm => x.floor(),
        Round::Rpi | Round::Rp => x.ceil(),
        _ => x.round_ties_even(),
    }
}

/// Converts an exact integer (as i128) to f32 in `mode`.
#[inline]
pub fn int_to_f32(v: i128, mode: Round) -> f32 {
    // Fast paths without the software 128-bit conversions: a value of at
    // most 24 bits is exact in every mode, and a 64-bit value rounded to
    // nearest converts as `i64`/`u64` (also round to nearest, ties even).
    if (-(1i128 << 24)..=1i128 << 24).contains(&v) {
        return v as i32 as f32;
    }
    if !matches!(mode, Round::Rz | Round::Rm | Round::Rp) {
        if let Ok(s) = i64::try_from(v) {
            return s as f32;
        }
        if let Ok(u) = u64::try_from(v) {
            return u as f32;
        }
    }
    let r = v as f32; // nearest
    let rv = r as i128;
    match mode {
        Round::Rz if r > 0.0 && rv > v => r.next_down(),
        Round::Rz if r < 0.0 && rv < v => r.next_up(),
        Round::Rm if rv > v => r.next_down(),
        Round::Rp if rv < v => r.next_up(),
        _ => r,
    }
}

/// Converts an exact integer (as i128) to f64 in `mode`.
#[inline]
pub fn int_to_f64(v: i128, mode: Round) -> f64 {
    // Fast paths as in `int_to_f32` (53 bits are exact in f64).
    if (-(1i128 << 53)..=1i128 << 53).contains(&v) {
        return v as i64 as f64;
    }
    if !matches!(mode, Round::Rz | Round::Rm | Round::Rp) {
        if let Ok(s) = i64::try_from(v) {
            return s as f64;
        }
        if let Ok(u) = u64::try_from(v) {
            return u as f64;
        }
    }
    let r = v as f64;
    let rv = r as i128;
    match mode {
        Round::Rz if r > 0.0 && rv > v => r.next_down(),
        Round::Rz if r < 0.0 && rv < v => r.next_up(),
        Round::Rm if rv > v => r.next_down(),
        Round::Rp if rv < v => r.next_up(),
        _ => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_add_and_mul() {
        let a = 1.0f32;
        let b = f32::EPSILON / 4.0; // below half an ulp of 1.0
        assert_eq!(add32(a, b, Round::Rn), 1.0);
        assert_eq!(add32(a, b, Round::Rz), 1.0);
        assert_eq!(add32(a, b, Round::Rm), 1.0);
        assert_eq!(add32(a, b, Round::Rp), 1.0f32.next_up());
        assert_eq!(add32(-a, -b, Round::Rm), (-1.0f32).next_down());
        assert_eq!(add32(-a, -b, Round::Rz), -1.0);
        let x = 1.0f32.next_up();
        // x*x = 1 + 2^-22 + 2^-46: rounds up only toward +inf.
        assert_eq!(mul32(x, x, Round::Rz), 1.0f32.next_up().next_up());
        assert_eq!(mul32(x, x, Round::Rp), 1.0f32.next_up().next_up().next_up());
    }

    #[test]
    fn fma_rounds_once() {
        let a = 1.0f32 + f32::EPSILON;
        let b = 1.0f32 - f32::EPSILON;
        // a*b = 1 - eps^2 exactly; + (-1) = -eps^2, representable.
        assert_eq!(fma32(a, b, -1.0, Round::Rn), -(f32::EPSILON * f32::EPSILON));
        assert_eq!(fma32(a, b, -1.0, Round::Rz), -(f32::EPSILON * f32::EPSILON));
        // Double rounding (mul then add) would give 0.
        assert_eq!(a * b - 1.0, 0.0);
    }

    #[test]
    fn division_directions() {
        let up = div32(1.0, 3.0, Round::Rp);
        let down = div32(1.0, 3.0, Round::Rm);
        assert_eq!(up, down.next_up());
        assert!(f64::from(down) < 1.0 / 3.0 && f64::from(up) > 1.0 / 3.0);
        assert_eq!(div32(1.0, 3.0, Round::Rz), down);
        assert_eq!(div32(1.0, 4.0, Round::Rp), 0.25);
        assert_eq!(div32(-1.0, 3.0, Round::Rz), -div32(1.0, 3.0, Round::Rz));
    }

    #[test]
    fn min_max_nan_and_zero() {
        assert_eq!(min32(f32::NAN, 2.0), 2.0);
        assert_eq!(max32(3.0, f32::NAN), 3.0);
        assert!(min32(f32::NAN, f32::NAN).is_nan());
        assert!(min32(0.0, -0.0).is_sign_negative());
        assert!(max32(-0.0, 0.0).is_sign_positive());
    }

    #[test]
    fn integer_to_float_directed() {
        let v: i128 = (1 << 24) + 1; // not representable in f32
        assert_eq!(int_to_f32(v, Round::Rn), 16777216.0);
        assert_eq!(int_to_f32(v, Round::Rz), 16777216.0);
        assert_eq!(int_to_f32(v, Round::Rp), 16777218.0);
        assert_eq!(int_to_f32(-v, Round::Rm), -16777218.0);
        assert_eq!(int_to_f32(-v, Round::Rz), -16777216.0);
        assert_eq!(int_to_f64((1i128 << 53) + 1, Round::Rp), 9007199254740994.0);
    }

    #[test]
    fn integer_to_float_fast_paths_match_i128_conversion() {
        // The 128-bit formula the fast paths stand in for.
        fn slow32(v: i128, mode: Round) -> f32 {
            let r = v as f32;
            let rv = r as i128;
            match mode {
                Round::Rz if r > 0.0 && rv > v => r.next_down(),
                Round::Rz if r < 0.0 && rv < v => r.next_up(),
                Round::Rm if rv > v => r.next_down(),
                Round::Rp if rv < v => r.next_up(),
                _ => r,
            }
        }
        fn slow64(v: i128, mode: Round) -> f64 {
            let r = v as f64;
            let rv = r as i128;
            match mode {
                Round::Rz if r > 0.0 && rv > v => r.next_down(),
                Round::Rz if r < 0.0 && rv < v => r.next_up(),
                Round::Rm if rv > v => r.next_down(),
                Round::Rp if rv < v => r.next_up(),
                _ => r,
            }
        }
        let mut vals: Vec<i128> = vec![0, 1, -1, i128::from(i64::MIN), i128::from(u64::MAX)];
        for b in 0..64 {
            for d in -3i128..=3 {
                vals.push((1i128 << b) + d);
                vals.push(-(1i128 << b) + d);
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(i128::from(x));
            vals.push(i128::from(x as i64));
            vals.push(i128::from(x >> (x % 64)));
        }
        for &v in &vals {
            if v < i128::from(i64::MIN) || v > i128::from(u64::MAX) {
                continue;
            }
            for mode in [Round::None, Round::Rn, Round::Rz, Round::Rm, Round::Rp] {
                assert_eq!(
                    int_to_f32(v, mode).to_bits(),
                    slow32(v, mode).to_bits(),
                    "{v} {mode:?}"
                );
                assert_eq!(
                    int_to_f64(v, mode).to_bits(),
                    slow64(v, mode).to_bits(),
                    "{v} {mode:?}"
                );
            }
        }
    }
}
