//! Float elementwise ops as instruction bodies, one monomorphic loop per op and format, with
//! the reference interpreter's semantics: inputs read with subnormals as zero, the result
//! computed in the lane, rounded to the dtype and flushed; except abs, negate, real and tanh,
//! which neither flush their input nor their result, and remainder (C's fmod on the raw values,
//! NaN when the divisor reads as zero).

use super::lanes::{FloatLane, Format};
use crate::kernels::fusion::reg::{lanes, lanes_mut, Fn1, Fn2, Reg};
use crate::kernels::math::exp::exp_slice;
use crate::kernels::math::simd::{map1, map2, patch_rare, patch_rare2};
use systolic_interp::ops::chlo::special;
use systolic_ir::{BinaryOp, ChloBinaryOp, ChloUnaryOp, DType, UnaryOp};

/// Declares an [`Fn1`] over format `$F` computing `$body` from the lane value `$x`.
macro_rules! body1 {
    ($F:ident, |$x:ident| $body:expr) => {
        (|a: &Reg, o: &mut Reg, n: usize| {
            map1(
                lanes::<$F::L>(a, n),
                lanes_mut::<$F::L>(o, n),
                #[inline(always)]
                |$x: $F::L| $body,
            )
        }) as Fn1
    };
}

/// Declares an [`Fn2`] over format `$F` computing `$body` from lane values `$x`, `$y`; either
/// input may be a splat register (see [`super::zip2`]).
macro_rules! body2 {
    ($F:ident, |$x:ident, $y:ident| $body:expr) => {
        (|a: &Reg, b: &Reg, o: &mut Reg, n: usize| {
            super::zip2(
                a,
                b,
                o,
                n,
                #[inline(always)]
                |$x: $F::L, $y: $F::L| $body,
            )
        }) as Fn2
    };
}

/// A trig op: the vectorised function everywhere, then the f64 library where it does not
/// reach (huge arguments, inf, NaN).
#[inline(always)]
fn trig<F: Format>(
    a: &Reg,
    o: &mut Reg,
    n: usize,
    fast: impl Fn(F::L) -> F::L + Copy,
    library: fn(f64) -> f64,
) {
    let (x, out) = (lanes::<F::L>(a, n), lanes_mut::<F::L>(o, n));
    map1(x, out, |v| F::finish(fast(v.ftz())));
    patch_rare(
        x,
        out,
        |v: F::L| v.trig_needs_library(),
        |v| F::finish(v.ftz().via_f64(library)),
    );
}

/// `sign`: NaN and ±0 stay, everything else is ±1.
#[inline(always)]
fn sign<L: FloatLane>(x: L) -> L {
    if x.is_nan() || x == L::ZERO {
        x
    } else {
        L::ONE.copysign(x)
    }
}

/// `maximum`: NaN wins; maximum(−0, +0) = +0.
#[inline(always)]
pub fn max<L: FloatLane>(a: L, b: L) -> L {
    let larger = if a > b { a } else { b };
    let tie = if a.is_sign_negative() { b } else { a };
    let v = if a == b { tie } else { larger };
    if a.is_nan() || b.is_nan() {
        L::NAN
    } else {
        v
    }
}

/// `minimum`: NaN wins; minimum(−0, +0) = −0.
#[inline(always)]
pub fn min<L: FloatLane>(a: L, b: L) -> L {
    let smaller = if a < b { a } else { b };
    let tie = if a.is_sign_negative() { a } else { b };
    let v = if a == b { tie } else { smaller };
    if a.is_nan() || b.is_nan() {
        L::NAN
    } else {
        v
    }
}

/// The body of a float unary op of format `F` (None: not a float op). `is_finite` is not here:
/// it yields booleans (see [`is_finite`]).
pub fn unary<F: Format>(op: UnaryOp) -> Option<Fn1> {
    use UnaryOp::*;
    Some(match op {
        Abs => body1!(F, |x| F::round(x.abs())),
        Negate => body1!(F, |x| F::round(-x)),
        Real => body1!(F, |x| F::round(x)),
        Tanh => body1!(F, |x| F::round(x.tanh())),
        Imag => body1!(F, |_x| F::L::ZERO),
        Cbrt => body1!(F, |x| F::finish(x.ftz().cbrt())),
        Ceil => body1!(F, |x| F::finish(x.ftz().ceil())),
        Floor => body1!(F, |x| F::finish(x.ftz().floor())),
        RoundNearestAfz => body1!(F, |x| F::finish(x.ftz().round_afz())),
        RoundNearestEven => body1!(F, |x| F::finish(x.ftz().round_even())),
        // Arithmetic all the way (the clamp reads a subnormal as zero, the final product by 2^n
        // flushes), so the hardware flushes as the software did.
        // f32 in whole vectors (`exp_slice`, the same bits as the lane function).
        Exponential if F::DTYPE == DType::F32 && crate::threads::hardware_flush() => {
            |a, o, n| exp_slice(lanes::<f32>(a, n), lanes_mut::<f32>(o, n))
        }
        Exponential => body1!(F, |x| F::finish_arith(x.daz().exp())),
        ExponentialMinusOne => body1!(F, |x| F::finish(x.ftz().expm1())),
        Log => body1!(F, |x| F::finish(x.ftz().ln())),
        LogPlusOne => body1!(F, |x| F::finish(x.ftz().ln1p())),
        Logistic => body1!(F, |x| F::finish(x.ftz().logistic())),
        Rsqrt => body1!(F, |x| F::finish(x.ftz().rsqrt())),
        Sqrt => body1!(F, |x| F::finish(x.ftz().sqrt())),
        Sign => body1!(F, |x| F::finish(sign(x.ftz()))),
        Sine => |a, o, n| trig::<F>(a, o, n, F::L::sin_fast, f64::sin),
        Cosine => |a, o, n| trig::<F>(a, o, n, F::L::cos_fast, f64::cos),
        Tan => |a, o, n| trig::<F>(a, o, n, F::L::tan_fast, f64::tan),
        CountLeadingZeros | IsFinite | Not | Popcnt => return None,
    })
}

/// `is_finite` of format `F`: a boolean result.
pub fn is_finite<F: Format>() -> Fn1 {
    |a, o, n| {
        map1(
            lanes::<F::L>(a, n),
            lanes_mut::<bool>(o, n),
            #[inline(always)]
            |x: F::L| x.is_finite(),
        )
    }
}

/// The body of a float binary op of format `F` (None: not a float op).
pub fn binary<F: Format>(op: BinaryOp) -> Option<Fn2> {
    use BinaryOp::*;
    Some(match op {
        Add => body2!(F, |x, y| F::finish_arith(x.daz() + y.daz())),
        Subtract => body2!(F, |x, y| F::finish_arith(x.daz() - y.daz())),
        Multiply => body2!(F, |x, y| F::finish_arith(x.daz() * y.daz())),
        Divide => body2!(F, |x, y| F::finish_arith(x.daz() / y.daz())),
        Maximum => body2!(F, |x, y| F::finish(max(x.ftz(), y.ftz()))),
        Minimum => body2!(F, |x, y| F::finish(min(x.ftz(), y.ftz()))),
        Remainder => body2!(F, |x, y| if y.ftz() == F::L::ZERO {
            F::L::NAN
        } else {
            F::round(x % y)
        }),
        Atan2 => body2!(F, |x, y| F::finish(x.ftz().via_f64_2(y.ftz(), f64::atan2))),
        Power => |a, b, o, n| {
            let (x, y) = (lanes::<F::L>(a, n), lanes::<F::L>(b, n));
            let out = lanes_mut::<F::L>(o, n);
            map2(x, y, out, |p, q| F::finish(p.ftz().pow_fast(q.ftz())));
            patch_rare2(
                x,
                y,
                out,
                |p: F::L, q: F::L| p.ftz().pow_needs_library(q.ftz()),
                |p, q| F::finish(p.ftz().via_f64_2(q.ftz(), f64::powf)),
            );
        },
        And | Or | Xor | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | Complex => {
            return None
        }
    })
}

/// The body of a CHLO unary op of format `F` with a float result (None: the `is_*` tests,
/// which yield booleans, see [`chlo_test`]).
pub fn chlo_unary<F: Format>(op: ChloUnaryOp) -> Option<Fn1> {
    use ChloUnaryOp::*;
    Some(match op {
        Conj => body1!(F, |x| x),
        Square => body1!(F, |x| F::finish_arith(x.daz() * x.daz())),
        Erf => body1!(F, |x| F::finish(x.ftz().erf())),
        ErfInv => body1!(F, |x| F::finish(x.ftz().erf_inv())),
        Acos => body1!(F, |x| F::finish(x.ftz().via_f64(f64::acos))),
        Acosh => body1!(F, |x| F::finish(x.ftz().via_f64(special::acosh))),
        Asin => body1!(F, |x| F::finish(x.ftz().via_f64(f64::asin))),
        Asinh => body1!(F, |x| F::finish(x.ftz().via_f64(special::asinh))),
        Atan => body1!(F, |x| F::finish(x.ftz().via_f64(f64::atan))),
        Atanh => body1!(F, |x| F::finish(x.ftz().via_f64(special::atanh))),
        BesselI1e => body1!(F, |x| F::finish(x.ftz().via_f64(special::bessel_i1e))),
        Cosh => body1!(F, |x| F::finish(x.ftz().via_f64(f64::cosh))),
        Digamma => body1!(F, |x| F::finish(x.ftz().via_f64(special::digamma))),
        Erfc => body1!(F, |x| F::finish(x.ftz().via_f64(special::erfc))),
        Lgamma => body1!(F, |x| F::finish(x.ftz().via_f64(special::lgamma))),
        Sinh => body1!(F, |x| F::finish(x.ftz().via_f64(f64::sinh))),
        Tan => |a, o, n| trig::<F>(a, o, n, F::L::tan_fast, f64::tan),
        IsInf | IsNegInf | IsPosInf => return None,
    })
}

/// `chlo.is_inf`, `is_neg_inf`, `is_pos_inf` of format `F` (None for other ops).
pub fn chlo_test<F: Format>(op: ChloUnaryOp) -> Option<Fn1> {
    macro_rules! test {
        (|$x:ident| $body:expr) => {
            (|a: &Reg, o: &mut Reg, n: usize| {
                map1(
                    lanes::<F::L>(a, n),
                    lanes_mut::<bool>(o, n),
                    #[inline(always)]
                    |$x: F::L| $body,
                )
            }) as Fn1
        };
    }
    Some(match op {
        ChloUnaryOp::IsInf => test!(|x| !x.is_finite() && !x.is_nan()),
        ChloUnaryOp::IsNegInf => test!(|x| !x.is_finite() && !x.is_nan() && x < F::L::ZERO),
        ChloUnaryOp::IsPosInf => test!(|x| !x.is_finite() && !x.is_nan() && x > F::L::ZERO),
        _ => return None,
    })
}

/// The body of a CHLO binary op of format `F`; `None` for `mulhi` (integers only, rewritten
/// into StableHLO integer ops by the compiler's `chlo_legalize`).
pub fn chlo_binary<F: Format>(op: ChloBinaryOp) -> Option<Fn2> {
    Some(match op {
        ChloBinaryOp::Mulhi => return None,
        ChloBinaryOp::NextAfter => body2!(F, |x, y| next_after::<F>(x, y)),
        ChloBinaryOp::Polygamma => {
            body2!(F, |x, y| F::finish(
                x.ftz().via_f64_2(y.ftz(), special::polygamma)
            ))
        }
        ChloBinaryOp::Zeta => body2!(F, |x, y| F::finish(
            x.ftz().via_f64_2(y.ftz(), special::zeta)
        )),
    })
}

/// `chlo.next_after` on the dtype's bit pattern (the step from zero is the smallest
/// subnormal of the dtype, unflushed), by the interpreter's definition.
#[inline(always)]
fn next_after<F: Format>(x: F::L, y: F::L) -> F::L {
    // The interpreter's rule, decided on bits (compares and conversions would read
    // subnormals as zero under DAZ): the total-order keys order non-NaN values as numbers
    // do, apart from −0 < +0, which count as equal here.
    if x.is_nan() || y.is_nan() {
        return F::L::NAN;
    }
    let (kx, ky) = (x.total_key(), y.total_key());
    if kx == ky || (!x.nonzero_bits() && !y.nonzero_bits()) {
        return y;
    }
    let sign = 1u64 << (F::DTYPE.bit_width() - 1);
    let bits = if !x.nonzero_bits() {
        1 | if y.is_sign_negative() { sign } else { 0 }
    } else if (ky > kx) != x.is_sign_negative() {
        x.dtype_bits(F::DTYPE) + 1
    } else {
        x.dtype_bits(F::DTYPE) - 1
    };
    F::L::from_dtype_bits(F::DTYPE, bits)
}
