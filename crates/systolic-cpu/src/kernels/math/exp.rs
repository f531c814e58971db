//! e^x and e^x − 1 for f32, evaluated in f64 so that the one rounding to f32 at the end is the
//! only sizeable error (≤ 1 ulp; measured bounds in `tests/math_accuracy.rs`).
//!
//! Method: x = n·ln2 + r with n = round(x/ln2) and |r| ≤ ln2/2, e^r by its Taylor polynomial
//! (degree 10: truncation below 1e-12 relative), and 2^n put into the exponent bits. In f64,
//! n·ln2 needs no hi/lo split: |n| ≤ 1010 keeps the reduction error below 1e-13.

use std::f64::consts::{LN_2, LOG2_E};

/// Adding this to an f64 below 2^51 in magnitude rounds it to an integer (nearest even) that
/// then sits in the low mantissa bits: the vectorisable way to round and convert (a float →
/// int `as` cast saturates, which LLVM does lane by lane).
pub(crate) const ROUND_F64: f64 = 6_755_399_441_055_744.0;

/// Adding this to an f32 below 2^22 in magnitude rounds it the same way.
const ROUND_F32: f32 = 12_582_912.0;

/// k! as an f64: exact up to 18! (its trailing zero bits leave the rest within 53 bits).
const fn factorial(k: usize) -> f64 {
    let (mut f, mut i) = (1.0, 2);
    while i <= k {
        f *= i as f64;
        i += 1;
    }
    f
}

/// `[1/first!, 1/(first+1)!, …]`, N of them: Taylor coefficients of e^x and its relatives, each
/// the correctly rounded reciprocal of an exact factorial, bit for bit what a literal
/// `1.0 / 5040.0` is.
pub(crate) const fn inverse_factorials<const N: usize>(first: usize) -> [f64; N] {
    let mut out = [0.0; N];
    let mut i = 0;
    while i < N {
        out[i] = 1.0 / factorial(first + i);
        i += 1;
    }
    out
}

/// [`inverse_factorials`] in f32: factorials up to 13! convert to f32 exactly, so each is again
/// the correctly rounded f32 reciprocal.
pub(crate) const fn inverse_factorials_f32<const N: usize>(first: usize) -> [f32; N] {
    let mut out = [0.0; N];
    let mut i = 0;
    while i < N {
        out[i] = 1.0 / factorial(first + i) as f32;
        i += 1;
    }
    out
}

/// (round(v), round(v) as an integer) for |v| < 2^51, nearest even, vectorisable.
#[inline(always)]
pub(crate) fn round_to_int(v: f64) -> (f64, i64) {
    let t = v + ROUND_F64;
    (
        t - ROUND_F64,
        (t.to_bits() as i64).wrapping_sub(ROUND_F64.to_bits() as i64),
    )
}

/// 2^n for an integer `n` in [-1022, 1023], from the exponent bits.
#[inline(always)]
pub(crate) fn pow2(n: i64) -> f64 {
    f64::from_bits((n.wrapping_add(1023) << 52) as u64)
}

/// e^r for |r| ≤ ln2/2: Taylor polynomial of degree 10 (Horner).
#[inline(always)]
fn exp_reduced(r: f64) -> f64 {
    const C: [f64; 11] = inverse_factorials(0);
    let mut p = C[10];
    for &c in C[..10].iter().rev() {
        p = p.mul_add(r, c);
    }
    p
}

/// e^x in f64 with a relative error below 1e-12 for every x (the inputs of the f32
/// functions): x is clamped to ±700, far outside f32's range, so 2^n never leaves f64's.
#[inline(always)]
pub(crate) fn exp_kernel(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    let (n, k) = round_to_int(x * LOG2_E);
    let r = n.mul_add(-LN_2, x);
    exp_reduced(r) * pow2(k)
}

/// e^x − 1 in f64, accurate relative to the result also near 0: the Taylor series of e^x − 1
/// below |x| = 0.35 (degree 11), `exp_kernel(x) − 1` above (where the subtraction loses at most
/// a factor 3.4 of relative accuracy).
#[inline(always)]
pub(crate) fn expm1_kernel(x: f64) -> f64 {
    const C: [f64; 11] = inverse_factorials(1);
    let mut p = C[10];
    for &c in C[..10].iter().rev() {
        p = p.mul_add(x, c);
    }
    let small = p * x;
    let large = exp_kernel(x) - 1.0;
    if x.abs() < 0.35 {
        small
    } else {
        large
    }
}

/// ln 2 in two parts for the f32 reduction: 0.693145751953125 (15 significant bits, so that
/// n·LN2_HI is exact for |n| ≤ 150) and ln 2 − LN2_HI rounded to f32.
const LN2_HI: f32 = f32::from_bits(0x3f31_7200);
const LN2_LO: f32 = f32::from_bits(0x35bf_be8e);

/// e^r's Taylor coefficients 1/0! … 1/7! (truncation 1e-8 relative for |r| ≤ ln2/2).
const EXP_TAYLOR: [f32; 8] = inverse_factorials_f32(0);

/// x = n·ln2 + r in f32 for |x| ≤ 104: (r, n) with |r| ≤ ln2/2 (plus rounding). ln2 is split
/// so that n·LN2_HI is exact (15 significant bits, |n| ≤ 150) and the reduction adds no error
/// beyond the final rounding of r.
#[inline(always)]
pub(crate) fn reduce_f32(x: f32) -> (f32, i32) {
    let t = x * std::f32::consts::LOG2_E + ROUND_F32;
    let n = t - ROUND_F32;
    let k = (t.to_bits() as i32).wrapping_sub(ROUND_F32.to_bits() as i32);
    (n.mul_add(-LN2_LO, n.mul_add(-LN2_HI, x)), k)
}

/// 2^k as an f32 for an integer `k` in [-126, 127], from the exponent bits.
#[inline(always)]
pub(crate) fn pow2_f32(k: i32) -> f32 {
    f32::from_bits((k.wrapping_add(127) << 23) as u32)
}

/// e^x for f32 (≤ 2 ulp) in f32 arithmetic, twice the vector width of the f64 kernels: the
/// hottest transcendental (softmax, attention). x = n·ln2 + r ([`reduce_f32`]), e^r by its
/// Taylor polynomial of degree 7 (truncation 1e-8 relative), and 2^n applied in two halves so
/// that every n from −150 to 128 stays a normal power of two. Overflow gives +inf, underflow 0
/// or a subnormal.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const C: [f32; 8] = EXP_TAYLOR;
    let x = x.clamp(-104.0, 89.0);
    let (r, k) = reduce_f32(x);
    let mut p = C[7];
    for &c in C[..7].iter().rev() {
        p = p.mul_add(r, c);
    }
    let half = k >> 1;
    p * pow2_f32(half) * pow2_f32(k.wrapping_sub(half))
}

/// `out[i] = exp(x[i])` over the common length, bit for bit [`exp`]; with AVX-512, 16 lanes
/// at a time with `vscalefps` applying 2^n in one instruction (the portable version builds two
/// powers of two from exponent bits and multiplies twice: 8 of its 22 vector instructions).
/// The results are the same: p·2^(n/2)·2^(n − n/2) rounds once, at the second product, as
/// p·2^n does in `vscalefps`; both honour MXCSR's flush-to-zero for results below f32's
/// smallest normal.
pub fn exp_slice(x: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if super::simd::has_avx512() {
        // SAFETY: the CPU has AVX-512F (checked above).
        return unsafe { exp_slice_v4(x, out) };
    }
    super::simd::map1(x, out, exp);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn exp_slice_v4(x: &[f32], out: &mut [f32]) {
    use std::arch::x86_64::*;
    const C: [f32; 8] = EXP_TAYLOR;
    let n = x.len().min(out.len());
    let lanes = |v: __m512| -> __m512 {
        // The steps of `exp` in its order: clamp (NaN kept: the operand after the bound is
        // returned when either is NaN), x·log2e then + 1.5·2^23 (two roundings, as written
        // there), the split reduction, Horner from the top coefficient.
        let v = _mm512_min_ps(
            _mm512_set1_ps(89.0),
            _mm512_max_ps(_mm512_set1_ps(-104.0), v),
        );
        let round = _mm512_set1_ps(12_582_912.0);
        let t = _mm512_add_ps(
            _mm512_mul_ps(v, _mm512_set1_ps(std::f32::consts::LOG2_E)),
            round,
        );
        let nf = _mm512_sub_ps(t, round);
        let r = _mm512_fmadd_ps(nf, _mm512_set1_ps(-LN2_HI), v);
        let r = _mm512_fmadd_ps(nf, _mm512_set1_ps(-LN2_LO), r);
        let mut p = _mm512_set1_ps(C[7]);
        for &c in C[..7].iter().rev() {
            p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
        }
        _mm512_scalef_ps(p, nf)
    };
    let mut i = 0;
    while i + 16 <= n {
        let v = _mm512_loadu_ps(x.as_ptr().add(i));
        _mm512_storeu_ps(out.as_mut_ptr().add(i), lanes(v));
        i += 16;
    }
    if i < n {
        let mask: __mmask16 = (1u16 << (n - i)) - 1;
        let v = _mm512_maskz_loadu_ps(mask, x.as_ptr().add(i));
        _mm512_mask_storeu_ps(out.as_mut_ptr().add(i), mask, lanes(v));
    }
}

/// e^x − 1 for f32 (≤ 1 ulp), exact for tiny x (returns x).
#[inline(always)]
pub fn expm1(x: f32) -> f32 {
    expm1_kernel(x as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_factorials_are_the_reciprocals_of_exact_factorials() {
        // An independent route: the factorial in u64, then one division in each type.
        let mut f: u64 = 1;
        let (wide, narrow) = (inverse_factorials::<19>(0), inverse_factorials_f32::<14>(0));
        for k in 0..19u64 {
            f *= k.max(1);
            assert_eq!(
                wide[k as usize].to_bits(),
                (1.0 / f as f64).to_bits(),
                "1/{k}!"
            );
            if k < 14 {
                assert_eq!(
                    narrow[k as usize].to_bits(),
                    (1.0 / f as f32).to_bits(),
                    "1/{k}!"
                );
            }
        }
        assert_eq!(inverse_factorials::<2>(3), [1.0 / 6.0, 1.0 / 24.0]);
        assert_eq!(
            inverse_factorials_f32::<2>(7),
            [1.0 / 5040.0, 1.0 / 40320.0]
        );
    }

    /// Every 251st f32 bit pattern (all signs, NaNs, infinities and subnormals among them)
    /// and the edges of the clamp, in slices of every tail length.
    fn inputs() -> Vec<f32> {
        let mut v: Vec<f32> = (0..u32::MAX / 251)
            .map(|i| f32::from_bits(i * 251))
            .collect();
        v.extend([
            -104.0,
            -103.99,
            -87.34,
            -87.33,
            -0.0,
            0.0,
            88.72,
            88.73,
            89.0,
            89.01,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            1e-45,
        ]);
        v
    }

    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn the_slice_version_is_exp_bit_for_bit_in_both_float_modes() {
        let x = inputs();
        for flush in [false, true] {
            let _mode = if flush {
                crate::threads::DenormalMode::flush()
            } else {
                crate::threads::DenormalMode::ieee()
            };
            let mut got = vec![0.0f32; x.len()];
            exp_slice(&x, &mut got);
            let want: Vec<f32> = x.iter().map(|&v| std::hint::black_box(exp(v))).collect();
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    same(g, w),
                    "flush {flush}: exp({:e}) = {g:e}, want {w:e}",
                    x[i]
                );
            }
            for tail in 0..17 {
                let mut short = vec![7.0f32; tail + 1];
                exp_slice(&x[..tail], &mut short[..tail]);
                assert!(short[..tail].iter().zip(&want).all(|(&g, &w)| same(g, w)));
                assert_eq!(short[tail], 7.0, "wrote past a tail of {tail}");
            }
        }
    }
}
