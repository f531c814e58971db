//! Unary elementwise ops: math on floats and complex numbers, bit ops on integers, `not` on
//! booleans.

use super::{complex, daz, rounded};
use crate::error::Result;
use crate::operands::{check_result, make};
use systolic_ir::{numerics, DType, Data, Tensor, TensorType, UnaryOp};

/// Applies a unary op elementwise. `is_finite` yields `i1`; `abs`, `real` and `imag` of
/// complex numbers give their parts' float dtype; every other op keeps the dtype.
pub fn unary(op: UnaryOp, x: &Tensor, out: &TensorType) -> Result<Tensor> {
    let dtype = x.dtype();
    let out_dtype = match op {
        UnaryOp::IsFinite => DType::Bool,
        UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => dtype.component().unwrap_or(dtype),
        _ => dtype,
    };
    check_result(out, x.shape(), out_dtype)?;
    let unsupported =
        || crate::error::InterpError::new(format!("not defined for element type {dtype}"));
    let bits = dtype.bit_width();
    let data = match x.data() {
        Data::Float(v) if op == UnaryOp::IsFinite => {
            Data::Bool(v.iter().map(|a| a.is_finite()).collect())
        }
        Data::Float(v) => {
            let f = float_fn(op).ok_or_else(unsupported)?;
            if keeps_denormals(op) {
                Data::Float(v.iter().map(|&a| numerics::round_to(dtype, f(a))).collect())
            } else {
                Data::Float(
                    v.iter()
                        .map(|&a| rounded(dtype, f(daz(dtype, a))))
                        .collect(),
                )
            }
        }
        Data::Int(v) => {
            let f = signed_fn(op).ok_or_else(unsupported)?;
            Data::Int(v.iter().map(|&a| f(a, bits)).collect())
        }
        Data::UInt(v) => {
            let f = unsigned_fn(op).ok_or_else(unsupported)?;
            Data::UInt(v.iter().map(|&a| f(a, bits)).collect())
        }
        Data::Bool(v) => match op {
            UnaryOp::Not => Data::Bool(v.iter().map(|&a| !a).collect()),
            _ => return Err(unsupported()),
        },
        Data::Complex(v) => match complex::unary_fn(op).ok_or_else(unsupported)? {
            complex::UnaryValue::Complex(f) => {
                Data::Complex(v.iter().map(|&z| complex::rounded(dtype, f(z))).collect())
            }
            complex::UnaryValue::Real(f) => {
                // `abs` rounds like arithmetic; `real`/`imag` only move a part.
                let part = complex::part(dtype);
                Data::Float(
                    v.iter()
                        .map(|&z| match op {
                            UnaryOp::Abs => rounded(part, f(z)),
                            _ => f(z),
                        })
                        .collect(),
                )
            }
        },
    };
    make(out.clone(), data)
}

/// Ops whose subnormal inputs XLA:CPU passes through unflushed: abs and negate only touch the
/// sign bit, and tanh returns tiny inputs unchanged (observed: tanh(1e-40) = 1e-40 in f32).
fn keeps_denormals(op: UnaryOp) -> bool {
    matches!(
        op,
        UnaryOp::Abs | UnaryOp::Negate | UnaryOp::Real | UnaryOp::Tanh
    )
}

/// The f64 function of a float op (the caller rounds the result to the dtype).
fn float_fn(op: UnaryOp) -> Option<fn(f64) -> f64> {
    use UnaryOp::*;
    Some(match op {
        Abs => f64::abs,
        Cbrt => f64::cbrt,
        Ceil => f64::ceil,
        Cosine => f64::cos,
        Exponential => f64::exp,
        ExponentialMinusOne => f64::exp_m1,
        Floor => f64::floor,
        Imag => |_| 0.0,
        Log => f64::ln,
        LogPlusOne => f64::ln_1p,
        Logistic => |a| 1.0 / (1.0 + (-a).exp()),
        Negate => |a| -a,
        Real => |a| a,
        RoundNearestAfz => f64::round,
        RoundNearestEven => f64::round_ties_even,
        Rsqrt => |a| 1.0 / a.sqrt(),
        Sign => float_sign,
        Sine => f64::sin,
        Sqrt => f64::sqrt,
        Tan => f64::tan,
        Tanh => f64::tanh,
        CountLeadingZeros | IsFinite | Not | Popcnt => return None,
    })
}

/// `sign`: NaN stays NaN, ±0 stays ±0, everything else is ±1.
fn float_sign(a: f64) -> f64 {
    if a.is_nan() || a == 0.0 {
        a
    } else {
        1.0f64.copysign(a)
    }
}

/// The function of an op on signed integers of `bits` bits (results are wrapped to the width
/// when the tensor is built, so `abs(INT_MIN) = INT_MIN` as in XLA).
fn signed_fn(op: UnaryOp) -> Option<fn(i64, u32) -> i64> {
    use UnaryOp::*;
    Some(match op {
        Abs => |a, _| a.wrapping_abs(),
        Negate => |a, _| a.wrapping_neg(),
        Not => |a, _| !a,
        Sign => |a, _| a.signum(),
        Popcnt => |a, bits| numerics::wrap_unsigned(bits, a as u64).count_ones() as i64,
        CountLeadingZeros => |a, bits| leading_zeros(numerics::wrap_unsigned(bits, a as u64), bits),
        _ => return None,
    })
}

/// The function of an op on unsigned integers of `bits` bits.
fn unsigned_fn(op: UnaryOp) -> Option<fn(u64, u32) -> u64> {
    use UnaryOp::*;
    Some(match op {
        Abs => |a, _| a,
        Negate => |a, _| a.wrapping_neg(),
        Not => |a, _| !a,
        Sign => |a, _| (a > 0) as u64,
        Popcnt => |a, _| a.count_ones() as u64,
        CountLeadingZeros => |a, bits| leading_zeros(a, bits) as u64,
        _ => return None,
    })
}

/// Leading zero bits of a `bits`-bit pattern held in a u64.
fn leading_zeros(pattern: u64, bits: u32) -> i64 {
    (pattern.leading_zeros() - (64 - bits)) as i64
}
