//! e^x, sin x, cos x, sinh x and cosh x in f64 to a few f64 ulps, branch-free and vectorisable, for f32
//! results that must be the f64 library's bits after rounding (`exp` of a `complex<f32>`, see
//! `fusion::elementwise::complex`): the library (libm, what the interpreter calls) and these
//! polynomials differ by a few f64 ulps, so wherever a value lies further than that from an
//! f32 rounding midpoint both round to the same f32; the caller recomputes the rare others with
//! the library. This is not a replacement for libm: its values are not the library's bits.
//!
//! Methods, each with its truncation error far below an f64 ulp:
//! - e^x for x in [[`EXP_MIN`], [`EXP_MAX`]]: x = k·ln2 + r with k = round(x/ln2) (|k| ≤ 1010)
//!   and |r| ≤ ln2/2, ln2 split in a 29-bit head (k·head and x − k·head are exact) and a tail;
//!   e^r by its Taylor polynomial of degree 13 (the next term is below 5e-18 relative); 2^k into
//!   the exponent bits.
//! - sin and cos for |x| < [`trig::REDUCTION_LIMIT`]: x = k·π/2 + r as `trig` reduces
//!   (Cody–Waite, three parts of π/2, the first two products exact; absolute error below 1e-24),
//!   sin r and cos r by Taylor polynomials of degree 17 and 18 on |r| ≤ π/4 (next terms below
//!   2e-19 relative), the quadrant choosing and signing them. Near a multiple of π/2 (k ≠ 0,
//!   |r| < [`TINY_REDUCED`]) the reduction's absolute error would grow relative to r: such
//!   inputs are reported, not computed.
//! - sinh and cosh for |x| ≤ [`HYPERBOLIC_MAX`], from e^|x| (see [`sinh_cosh`]).
//!
//! Measured against the library over tens of millions of f32 inputs (`tests/math_accuracy.rs`,
//! `wide_exp_sin_cos_within_their_bound_of_libm`): e^x, sin x, cos x, sinh x, cosh x and the
//! products `Complex64`'s exp, sin and cos form within [`ERROR_ULPS`] f64 ulps of the library's.

use super::exp::{inverse_factorials, pow2, round_to_int};
use super::trig::REDUCTION_LIMIT;
use std::f64::consts::{FRAC_2_PI, LOG2_E};

/// The most f64 ulps (of the value) by which [`exp`], [`sin_cos`], [`sinh_cosh`] and the
/// products `Complex64`'s exp, sin and cos form from them (`exp(x)·cos(y)`,
/// `sin(x)·cosh(y)`, …) differ from libm's; the test asserts it, so callers can rely on it
/// (with their own margin on top).
pub const ERROR_ULPS: u64 = 8;

/// The range of [`exp`]: e^x and its products with sin and cos stay normal f64 numbers.
pub const EXP_MIN: f64 = -600.0;
/// See [`EXP_MIN`].
pub const EXP_MAX: f64 = 700.0;

/// Below this |r| (with k ≠ 0), x is too close to a multiple of π/2 for [`sin_cos`]'s bound.
pub const TINY_REDUCED: f64 = 1.0 / (1u64 << 30) as f64;

/// ln2 = LN2_HI + LN2_LO, the head with 29 significant bits.
const LN2_HI: f64 = 0.693_147_180_601_954_5;
const LN2_LO: f64 = -4.200_915_072_681_084_6e-11;

/// π/2 in three parts, the first two with 33 significant bits (as `trig`).
const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_3: f64 = 2.022_266_248_795_950_6e-21;

/// e^x for x in [[`EXP_MIN`], [`EXP_MAX`]] (other inputs give garbage: the caller checks).
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    const C: [f64; 14] = inverse_factorials::<14>(0);
    let (k, n) = round_to_int(x * LOG2_E);
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = C[13];
    for &c in C[..13].iter().rev() {
        p = p.mul_add(r, c);
    }
    p * pow2(n)
}

/// (sin x, cos x, usable) for finite |x| < [`REDUCTION_LIMIT`]; `usable` is false where x is
/// within [`TINY_REDUCED`] of a nonzero multiple of π/2 (the values are then less accurate).
#[inline(always)]
pub fn sin_cos(x: f64) -> (f64, f64, bool) {
    let (k, q) = round_to_int(x * FRAC_2_PI);
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    // k = 0 keeps x itself (exact, and the sign of zero survives).
    let r = if k == 0.0 { x } else { r };
    let usable = k == 0.0 || r.abs() >= TINY_REDUCED;
    let (s, c) = (sin_poly(r), cos_poly(r));
    let (s, c) = if q & 1 == 0 { (s, c) } else { (c, -s) };
    let s = if q & 2 == 0 { s } else { -s };
    let c = if q & 2 == 0 { c } else { -c };
    (s, c, usable)
}

/// The range of [`sinh_cosh`]: e^|x| and e^−|x| stay normal f64 numbers.
pub const HYPERBOLIC_MAX: f64 = 700.0;

/// (sinh x, cosh x) for |x| ≤ [`HYPERBOLIC_MAX`] (other inputs give garbage: the caller
/// checks). cosh x = (e^|x| + e^−|x|)/2, a sum of positive terms; sinh x the same difference
/// for |x| ≥ 1 (e^−|x| is at most e^−2 of e^|x| there, so the cancellation costs little) and
/// its Taylor polynomial of degree 17 below 1 (the next term is below 1e-17 relative).
#[inline(always)]
pub fn sinh_cosh(x: f64) -> (f64, f64) {
    const C: [f64; 8] = {
        let mut c = [0.0; 8];
        let mut i = 0;
        while i < 8 {
            c[i] = inverse_factorials::<18>(0)[2 * i + 3];
            i += 1;
        }
        c
    };
    let a = x.abs();
    let e = exp(a);
    let inv = 1.0 / e;
    let cosh = 0.5 * (e + inv);
    let z = x * x;
    let mut p = C[7];
    for &c in C[..7].iter().rev() {
        p = p.mul_add(z, c);
    }
    let small = (x * z).mul_add(p, x);
    let large = (0.5 * (e - inv)).copysign(x);
    // x³·p keeps the sign of zero here (p > 0), so sinh(±0) = ±0.
    let sinh = if a < 1.0 { small } else { large };
    (sinh, cosh)
}

/// True when `x` is a finite input [`sin_cos`] reduces (|x| < [`REDUCTION_LIMIT`]).
#[inline(always)]
pub fn in_trig_range(x: f64) -> bool {
    x.abs() < REDUCTION_LIMIT as f64
}

/// sin r for |r| ≤ π/4: r − r³/3! + … + r¹⁷/17!.
#[inline(always)]
fn sin_poly(r: f64) -> f64 {
    // 1/(2i+1)! with alternating signs, i = 1..=8, from the table of 1/n!.
    const C: [f64; 8] = {
        let mut c = [0.0; 8];
        let mut i = 0;
        while i < 8 {
            let n = 2 * i + 3;
            c[i] = if i % 2 == 0 { -1.0 } else { 1.0 } * inverse_factorials::<18>(0)[n];
            i += 1;
        }
        c
    };
    let z = r * r;
    let mut p = C[7];
    for &c in C[..7].iter().rev() {
        p = p.mul_add(z, c);
    }
    let s = (r * z).mul_add(p, r);
    // r³·p is +0 for r = −0 (p < 0), which would lose the sign of zero: sin(±0) = ±0.
    if r == 0.0 {
        r
    } else {
        s
    }
}

/// cos r for |r| ≤ π/4: 1 − r²/2! + … + r¹⁸/18!.
#[inline(always)]
fn cos_poly(r: f64) -> f64 {
    const C: [f64; 9] = {
        let mut c = [0.0; 9];
        let mut i = 0;
        while i < 9 {
            let n = 2 * i + 2;
            c[i] = if i % 2 == 0 { -1.0 } else { 1.0 } * inverse_factorials::<19>(0)[n];
            i += 1;
        }
        c
    };
    let z = r * r;
    let mut p = C[8];
    for &c in C[..8].iter().rev() {
        p = p.mul_add(z, c);
    }
    p.mul_add(z, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Taylor coefficients are the signed reciprocal factorials they claim to be.
    #[test]
    fn coefficients() {
        assert_eq!(sinh_cosh(0.0), (0.0, 1.0));
        assert!(sinh_cosh(-0.0).0.is_sign_negative());
        assert!((sinh_cosh(0.5).0 - 0.5f64.sinh()).abs() < 1e-16);
        assert!((sinh_cosh(-3.0).0 - (-3.0f64).sinh()).abs() < 1e-14);
        assert_eq!(sin_poly(0.0), 0.0);
        assert!(sin_poly(-0.0).is_sign_negative());
        assert_eq!(cos_poly(0.0), 1.0);
        assert_eq!(exp(0.0), 1.0);
        assert!((sin_poly(0.5) - 0.5f64.sin()).abs() < 1e-16);
        assert!((cos_poly(0.5) - 0.5f64.cos()).abs() < 1e-16);
        assert!((exp(1.0) - std::f64::consts::E).abs() < 1e-15);
    }
}
