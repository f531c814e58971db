//! tanh for f32 in f32 arithmetic (≤ 1 ulp, checked on every f32), and the logistic function,
//! evaluated in f64 from the accurate e^x kernel (≤ 1 ulp); measured bounds in
//! `tests/math_accuracy.rs`.

use super::exp::{exp_kernel, inverse_factorials_f32, pow2_f32, reduce_f32};

/// Below this |x|, tanh is the odd polynomial; from it on, 1 − 2/(e^{2|x|} + 1).
const TANH_POLY_END: f32 = 0.875;

/// tanh a ≈ a + a·z·P(z) with z = a² on [0, [`TANH_POLY_END`]]: P is a near-minimax fit
/// (Lawson's weighted least squares on the result's relative error, 7.4e-10 before the
/// coefficients are rounded to f32, 6.6e-9 after; `fit_tanh.py` next to this file).
const TANH_POLY: [f32; 7] = [
    f32::from_bits(0xbeaa_aaa8), // −0.333333254
    f32::from_bits(0x3e08_87d5), //  0.133330658
    f32::from_bits(0xbd5c_ed38), // −0.0539371669
    f32::from_bits(0x3cb1_bbe4), //  0.0216960385
    f32::from_bits(0xbc08_82a8), // −0.00833193213
    f32::from_bits(0x3b2d_bc66), //  0.00265099993
    f32::from_bits(0xb9fc_ec7e), // −0.000482413860
];

/// e^r − 1 for |r| ≤ ln2/2: Taylor coefficients 1/2! … 1/8! of r + r²·Q(r) (truncation below
/// 6e-10 relative).
const EXPM1_Q: [f32; 7] = inverse_factorials_f32(2);

/// Below this |x|, tanh(x) rounds to x in f32 (the cubic term is under 2^-27 relative).
const TANH_TINY: f32 = 1.0 / 8192.0;

/// tanh x for f32 in f32 arithmetic (vectorises at 16 lanes with AVX-512): within 1 ulp of the
/// correctly rounded value for every f32 input (checked exhaustively; 99.8% of them exact).
///
/// For |x| < 0.875 the polynomial [`TANH_POLY`]; above, 1 − 2/d with d = e^{2|x|} + 1 formed
/// as (1 + 2^n) + 2^n·(e^r − 1) after 2|x| = n·ln2 + r: 1 + 2^n is exact and e^r − 1 is small,
/// so d carries about one rounding; 2/d is below 0.3 there, so its relative error reaches the
/// result (above 0.7) scaled down. |x| is clamped to 10, past where tanh rounds to 1. Tiny inputs, subnormals
/// included, come back unchanged (as XLA:CPU's tanh does); ±inf give ±1, NaN stays NaN.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let z = a * a;
    let mut p = TANH_POLY[6];
    for &c in TANH_POLY[..6].iter().rev() {
        p = p.mul_add(z, c);
    }
    let near = (a * z).mul_add(p, a);
    // NaN fails the comparison and stays NaN through every step below.
    let y = 2.0 * if a > 10.0 { 10.0 } else { a };
    let (r, n) = reduce_f32(y);
    let mut q = EXPM1_Q[6];
    for &c in EXPM1_Q[..6].iter().rev() {
        q = q.mul_add(r, c);
    }
    let em1 = (r * r).mul_add(q, r);
    let scale = pow2_f32(n);
    let d = (1.0 + scale) + scale * em1;
    let far = 1.0 - 2.0 / d;
    // Below 2^-13, tanh(x) rounds to x: pass x's bits through, so that a subnormal comes
    // back unchanged where the polynomial's arithmetic would read it as zero (DAZ).
    let t = if a < TANH_TINY {
        a
    } else if a < TANH_POLY_END {
        near
    } else {
        far
    };
    t.copysign(x)
}

/// 1 / (1 + e^{−x}) for f32 (≤ 1 ulp).
#[inline(always)]
pub fn logistic(x: f32) -> f32 {
    let e = exp_kernel(-(x as f64));
    (1.0 / (1.0 + e)) as f32
}
