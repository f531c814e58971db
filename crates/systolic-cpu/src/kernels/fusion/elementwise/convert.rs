//! `convert`, `bitcast_convert` (equal widths) and `reduce_precision` as instruction bodies,
//! with the reference interpreter's rules:
//!
//! - to `i1`: nonzero is true (f32/f64 read subnormals as zero; bf16/f16 test their bits);
//! - float → integer: truncate, saturate at the dtype's range, NaN → 0;
//! - integer → integer: keep the low bits; integer → float: round to nearest even (bf16/f16
//!   through f32);
//! - float → float: f64↔f32 and bf16 → f64 flush subnormals, f64 → bf16 goes through f32,
//!   f64 → f16 rounds once, f32 → bf16/f16 rounds keeping subnormals.

use super::dispatch::{with_float, with_int};
use super::lanes::{mask, round_to_bf16, sign_extend, wrap, FloatLane, Format, IntLane};
use crate::kernels::fusion::reg::{lanes, lanes_mut, Fn1, Reg};
use crate::kernels::math::simd::map1;
use systolic_ir::{DType, DTypeKind};

/// `out = f(a)` from lanes `S` to lanes `D`.
macro_rules! conv {
    ($S:ty, $D:ty, |$x:ident| $body:expr) => {
        (|a: &Reg, o: &mut Reg, n: usize| {
            map1(
                lanes::<$S>(a, n),
                lanes_mut::<$D>(o, n),
                #[inline(always)]
                |$x: $S| $body,
            )
        }) as Fn1
    };
}

/// The body converting `from` to `to` (None for a pair the IR does not allow).
pub fn convert(from: DType, to: DType) -> Option<Fn1> {
    use DTypeKind as K;
    match (from.kind(), to.kind()) {
        (K::Bool, K::Bool) => Some(conv!(bool, bool, |x| x)),
        (K::Bool, K::Signed | K::Unsigned) => with_int!(to, T, B => from_bool_int::<T>()),
        (K::Bool, K::Float) => with_float!(to, F => bool_to_float::<F>()),
        (K::Signed | K::Unsigned, K::Bool) => with_int!(from, S, SB => int_to_bool::<S>()),
        (K::Signed | K::Unsigned, K::Signed | K::Unsigned) => {
            with_int!(from, S, SB => with_int!(to, T, B => int_to_int::<S, T, B>())).flatten()
        }
        (K::Signed | K::Unsigned, K::Float) => {
            with_int!(from, S, SB => with_float!(to, F => int_to_float::<S, F>())).flatten()
        }
        (K::Float, K::Bool) => with_float!(from, F => float_to_bool::<F>()),
        (K::Float, K::Signed | K::Unsigned) => {
            with_float!(from, F => with_int!(to, T, B => float_to_int::<F, T, B>())).flatten()
        }
        (K::Float, K::Float) => Some(float_to_float(from, to)),
        // Complex values have their own conversions (`super::complex`: between the complex
        // dtypes, and through the parts' dtype to and from real ones).
        (K::Complex, _) | (_, K::Complex) => None,
    }
}

fn bool_to_float<F: Format>() -> Fn1 {
    conv!(bool, F::L, |x| if x { F::L::ONE } else { F::L::ZERO })
}

fn from_bool_int<T: IntLane>() -> Fn1 {
    conv!(bool, T, |x| T::from_u64(x as u64))
}

fn int_to_bool<S: IntLane>() -> Fn1 {
    conv!(S, bool, |x| x != S::from_u64(0))
}

fn int_to_int<S: IntLane, T: IntLane, const B: u32>() -> Fn1 {
    conv!(S, T, |x| wrap::<T, B>(T::from_u64(x.to_i64() as u64)))
}

fn int_to_float<S: IntLane, F: Format>() -> Fn1 {
    if F::DTYPE == DType::F64 {
        conv!(S, F::L, |x| F::L::from_f64(x.to_f64()))
    } else {
        conv!(S, F::L, |x| F::round(F::L::from_f64(x.to_f32() as f64)))
    }
}

fn float_to_bool<F: Format>() -> Fn1 {
    if matches!(F::DTYPE, DType::F32 | DType::F64) {
        conv!(F::L, bool, |x| x.ftz() != F::L::ZERO)
    } else {
        conv!(F::L, bool, |x| x.nonzero_bits())
    }
}

fn float_to_int<F: Format, T: IntLane, const B: u32>() -> Fn1 {
    if T::SIGNED {
        conv!(F::L, T, |x| {
            let lo = if B == 64 {
                i64::MIN
            } else {
                -(1i64 << (B - 1))
            };
            let hi = if B == 64 {
                i64::MAX
            } else {
                (1i64 << (B - 1)) - 1
            };
            T::from_u64(x.to_i64_sat().clamp(lo, hi) as u64)
        })
    } else {
        conv!(F::L, T, |x| T::from_u64(x.to_u64_sat().min(mask(B))))
    }
}

/// The float → float conversions, pair by pair.
fn float_to_float(from: DType, to: DType) -> Fn1 {
    use DType::*;
    match (from, to) {
        (F64, F32) => conv!(f64, f32, |x| (x.ftz() as f32).ftz()),
        (F64, BF16) => conv!(f64, f32, |x| round_to_bf16((x.ftz() as f32).ftz())),
        (F64, F16) => conv!(f64, f32, |x| half::f16::from_f64(x).to_f32()),
        (F32 | BF16, F64) => conv!(f32, f64, |x| x.ftz() as f64),
        (F16, F64) => conv!(f32, f64, |x| x as f64),
        (F64, F64) => conv!(f64, f64, |x| x),
        (_, BF16) => conv!(f32, f32, |x| round_to_bf16(x)),
        (_, F16) => conv!(f32, f32, |x| half::f16::from_f32(x).to_f32()),
        // f32 lanes to f32: bf16 and f16 widen exactly.
        _ => conv!(f32, f32, |x| x),
    }
}

/// The bit pattern of lane `i` of a register holding dtype `dtype`.
fn bits_of(dtype: DType, reg: &Reg, i: usize) -> u64 {
    match reg {
        Reg::Bool(v) => v[i] as u64,
        Reg::I8(v) => v[i] as u8 as u64 & mask(dtype.bit_width()),
        Reg::I16(v) => v[i] as u16 as u64,
        Reg::I32(v) => v[i] as u32 as u64,
        Reg::I64(v) => v[i] as u64,
        Reg::U8(v) => v[i] as u64,
        Reg::U16(v) => v[i] as u64,
        Reg::U32(v) => v[i] as u64,
        Reg::U64(v) => v[i],
        Reg::F32(v) => v[i].dtype_bits(dtype),
        Reg::F64(v) => v[i].dtype_bits(dtype),
        // The real part in the low half, as the bytes lie in memory.
        Reg::C64(v) => v[i].re.to_bits() as u64 | (v[i].im.to_bits() as u64) << 32,
        Reg::C128(_) => unreachable!("no 64-bit pattern holds a complex<f64> (not planned)"),
    }
}

/// Sets lane `i` of a register holding dtype `dtype` from a bit pattern.
fn set_bits(dtype: DType, reg: &mut Reg, i: usize, bits: u64) {
    let width = dtype.bit_width();
    match reg {
        Reg::Bool(v) => v[i] = bits & 1 != 0,
        Reg::I8(v) => v[i] = sign_extend(bits, width) as i8,
        Reg::I16(v) => v[i] = bits as i16,
        Reg::I32(v) => v[i] = bits as i32,
        Reg::I64(v) => v[i] = bits as i64,
        Reg::U8(v) => v[i] = (bits & mask(width)) as u8,
        Reg::U16(v) => v[i] = bits as u16,
        Reg::U32(v) => v[i] = bits as u32,
        Reg::U64(v) => v[i] = bits,
        Reg::F32(v) => v[i] = f32::from_dtype_bits(dtype, bits),
        Reg::F64(v) => v[i] = f64::from_dtype_bits(dtype, bits),
        Reg::C64(v) => {
            v[i] = num_complex::Complex32::new(
                f32::from_bits(bits as u32),
                f32::from_bits((bits >> 32) as u32),
            )
        }
        Reg::C128(_) => unreachable!("no 64-bit pattern holds a complex<f64> (not planned)"),
    }
}

/// `bitcast_convert` between dtypes of equal width, lane by lane on the bit patterns.
pub fn bitcast(from: DType, to: DType, a: &Reg, o: &mut Reg, n: usize) {
    for i in 0..n {
        let bits = bits_of(from, a, i);
        set_bits(to, o, i, bits);
    }
}

/// The source and target formats of a `reduce_precision`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReducedFormat {
    /// The dtype rounded (its own format is the source).
    pub dtype: DType,
    /// Exponent bits kept.
    pub exponent_bits: u32,
    /// Mantissa bits kept.
    pub mantissa_bits: u32,
}

impl ReducedFormat {
    /// Rounds one bit pattern of the dtype (nearest even; overflow to ±inf; below the reduced
    /// format's smallest normal to ±0), as the interpreter does.
    fn apply(&self, mut bits: u64) -> u64 {
        let src_mantissa = self.dtype.mantissa_bits().unwrap_or(0);
        let src_exponent = self.dtype.exponent_bits().unwrap_or(1);
        let width = self.dtype.bit_width();
        if self.mantissa_bits < src_mantissa {
            let dropped = src_mantissa - self.mantissa_bits;
            let last_kept = 1u64 << dropped;
            let bias = (last_kept >> 1) - 1 + ((bits & last_kept) >> dropped);
            bits = (bits + bias) & !(last_kept - 1);
        }
        if self.exponent_bits < src_exponent {
            let sign = bits & (1u64 << (width - 1));
            let exponent_mask = ((1u64 << src_exponent) - 1) << src_mantissa;
            let bias = (1u64 << (src_exponent - 1)) - 1;
            let reduced_bias = (1u64 << (self.exponent_bits - 1)) - 1;
            let max_exponent = (bias + reduced_bias) << src_mantissa;
            let min_exponent = (bias - reduced_bias) << src_mantissa;
            let exponent = bits & exponent_mask;
            if exponent > max_exponent {
                bits = sign | exponent_mask;
            } else if exponent <= min_exponent {
                bits = sign;
            }
        }
        bits & mask(width)
    }

    /// Applies the rounding to `n` lanes (NaNs pass through unchanged).
    pub fn run(&self, a: &Reg, o: &mut Reg, n: usize) {
        for i in 0..n {
            let bits = bits_of(self.dtype, a, i);
            let nan = match a {
                Reg::F32(v) => v[i].is_nan(),
                Reg::F64(v) => v[i].is_nan(),
                _ => false,
            };
            set_bits(self.dtype, o, i, if nan { bits } else { self.apply(bits) });
        }
    }
}
