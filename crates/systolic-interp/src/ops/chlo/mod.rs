//! Family: CHLO elementwise ops (`chlo.erf`, `chlo.lgamma`, …). Each is computed in f64 and
//! rounded to the operand's dtype (within an ulp of XLA), except `erf_inv`, which follows XLA's
//! single-precision algorithm for f32, bf16 and f16 so that random normals match JAX.

mod erf_inv;
pub mod special;

pub use erf_inv::{erf_inv_f32, erf_inv_f64, ERF_INV_F32_CENTRAL, ERF_INV_F32_TAIL};

use super::elementwise::{daz, rounded};
use crate::error::{InterpError, Result};
use crate::operands::{check_result, expect_count, make, result_tensor, tensor};
use crate::value::Value;
use systolic_ir::{
    numerics, ChloBinaryOp, ChloUnaryOp, Complex64, DType, Data, OpKind, Tensor, TensorType, Type,
};

/// Evaluates an op of this family.
pub fn eval(kind: &OpKind, args: Vec<Value>, result_types: &[Type]) -> Result<Vec<Value>> {
    let out = result_tensor(result_types, 0)?;
    let result = match kind {
        OpKind::ChloUnary(op) => {
            expect_count(&args, 1)?;
            unary(*op, tensor(&args, 0)?, out)?
        }
        OpKind::ChloBinary(op) => {
            expect_count(&args, 2)?;
            binary(*op, tensor(&args, 0)?, tensor(&args, 1)?, out)?
        }
        other => crate::bail!("{} is not a CHLO elementwise op", other.name()),
    };
    Ok(vec![Value::Tensor(result)])
}

/// Applies a CHLO unary op elementwise.
pub fn unary(op: ChloUnaryOp, x: &Tensor, out: &TensorType) -> Result<Tensor> {
    use ChloUnaryOp::*;
    let dtype = x.dtype();
    let predicate: Option<fn(f64) -> bool> = match op {
        IsInf => Some(|a| a.is_infinite()),
        IsNegInf => Some(|a| a == f64::NEG_INFINITY),
        IsPosInf => Some(|a| a == f64::INFINITY),
        _ => None,
    };
    let unsupported = || InterpError::new(format!("not defined for element type {dtype}"));
    if let Some(test) = predicate {
        check_result(out, x.shape(), DType::Bool)?;
        let Data::Float(v) = x.data() else {
            return Err(unsupported());
        };
        return make(
            out.clone(),
            Data::Bool(v.iter().map(|&a| test(a)).collect()),
        );
    }
    check_result(out, x.shape(), dtype)?;
    let data = match (op, x.data()) {
        // JAX emits conj (and the holomorphic functions below) on complex values.
        (Conj, Data::Complex(v)) => Data::Complex(v.iter().map(|z| z.conj()).collect()),
        (Conj, d) => d.clone(),
        (Square, Data::Int(v)) => Data::Int(v.iter().map(|&a| a.wrapping_mul(a)).collect()),
        (Square, Data::UInt(v)) => Data::UInt(v.iter().map(|&a| a.wrapping_mul(a)).collect()),
        (_, Data::Complex(v)) => {
            let f = complex_fn(op).ok_or_else(unsupported)?;
            Data::Complex(
                v.iter()
                    .map(|&z| super::elementwise::complex::rounded(dtype, f(z)))
                    .collect(),
            )
        }
        (ErfInv, Data::Float(v)) => Data::Float(
            v.iter()
                .map(|&a| {
                    let a = daz(dtype, a);
                    let r = match dtype {
                        DType::F64 => erf_inv_f64(a),
                        _ => erf_inv_f32(a as f32) as f64,
                    };
                    rounded(dtype, r)
                })
                .collect(),
        ),
        (_, Data::Float(v)) => {
            let f = float_fn(op).ok_or_else(unsupported)?;
            Data::Float(
                v.iter()
                    .map(|&a| rounded(dtype, f(daz(dtype, a))))
                    .collect(),
            )
        }
        _ => return Err(unsupported()),
    };
    make(out.clone(), data)
}

/// The f64 function of a float CHLO unary op.
fn float_fn(op: ChloUnaryOp) -> Option<fn(f64) -> f64> {
    use ChloUnaryOp::*;
    Some(match op {
        Acos => f64::acos,
        Acosh => special::acosh,
        Asin => f64::asin,
        Asinh => special::asinh,
        Atan => f64::atan,
        Atanh => special::atanh,
        BesselI1e => special::bessel_i1e,
        Cosh => f64::cosh,
        Digamma => special::digamma,
        Erf => special::erf,
        Erfc => special::erfc,
        Lgamma => special::lgamma,
        Sinh => f64::sinh,
        Square => |a| a * a,
        Tan => f64::tan,
        Conj | ErfInv | IsInf | IsNegInf | IsPosInf => return None,
    })
}

/// The complex function of a CHLO unary op JAX emits on complex values (`jnp.square`,
/// `jnp.sinh`, `jnp.arcsin`, …): the principal branches, as numpy's. Rounded to the dtype's
/// parts by the caller. (The CPU backend's loop kernels call the same functions.)
pub fn complex_fn(op: ChloUnaryOp) -> Option<fn(Complex64) -> Complex64> {
    use ChloUnaryOp::*;
    Some(match op {
        Square => |z| z * z,
        Sinh => Complex64::sinh,
        Cosh => Complex64::cosh,
        Tan => Complex64::tan,
        Asin => Complex64::asin,
        Acos => Complex64::acos,
        Atan => Complex64::atan,
        Asinh => Complex64::asinh,
        Acosh => Complex64::acosh,
        Atanh => Complex64::atanh,
        Conj | BesselI1e | Digamma | Erf | Erfc | ErfInv | Lgamma | IsInf | IsNegInf | IsPosInf => {
            return None
        }
    })
}

/// Applies a CHLO binary op elementwise to two tensors of the same type (floats; integers for
/// `mulhi`).
pub fn binary(op: ChloBinaryOp, a: &Tensor, b: &Tensor, out: &TensorType) -> Result<Tensor> {
    if a.ty() != b.ty() {
        crate::bail!("operand types {} and {} differ", a.ty(), b.ty());
    }
    let dtype = a.dtype();
    check_result(out, a.shape(), dtype)?;
    if op == ChloBinaryOp::Mulhi {
        return mulhi(a, b, out);
    }
    let (Data::Float(x), Data::Float(y)) = (a.data(), b.data()) else {
        crate::bail!("not defined for element type {dtype}");
    };
    let data = x
        .iter()
        .zip(y)
        .map(|(&p, &q)| match op {
            ChloBinaryOp::NextAfter => next_after(dtype, p, q),
            ChloBinaryOp::Polygamma => {
                rounded(dtype, special::polygamma(daz(dtype, p), daz(dtype, q)))
            }
            ChloBinaryOp::Zeta => rounded(dtype, special::zeta(daz(dtype, p), daz(dtype, q))),
            ChloBinaryOp::Mulhi => unreachable!("integer op, handled above"),
        })
        .collect();
    make(out.clone(), Data::Float(data))
}

/// `chlo.mulhi`: the high half of the double-width product of two integers of `w` bits
/// (signed: arithmetic, so `-64 · 4` in i8 is `-256 >> 8 = -1`; unsigned: logical).
fn mulhi(a: &Tensor, b: &Tensor, out: &TensorType) -> Result<Tensor> {
    let bits = a.dtype().bit_width();
    let data = match (a.data(), b.data()) {
        (Data::Int(x), Data::Int(y)) => Data::Int(
            x.iter()
                .zip(y)
                .map(|(&p, &q)| {
                    let high = ((p as i128 * q as i128) >> bits) as i64;
                    numerics::wrap_signed(bits, high)
                })
                .collect(),
        ),
        (Data::UInt(x), Data::UInt(y)) => Data::UInt(
            x.iter()
                .zip(y)
                .map(|(&p, &q)| {
                    let high = ((p as u128 * q as u128) >> bits) as u64;
                    numerics::wrap_unsigned(bits, high)
                })
                .collect(),
        ),
        _ => crate::bail!("not defined for element type {}", a.dtype()),
    };
    make(out.clone(), data)
}

/// The next value of `dtype` after `x` in the direction of `y`, on the bit pattern (so the
/// step from zero gives the smallest subnormal, unflushed, as XLA does).
pub fn next_after(dtype: DType, x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    let sign = 1u64 << (dtype.bit_width() - 1);
    let bits = if x == 0.0 {
        1 | if y < 0.0 { sign } else { 0 }
    } else {
        let bits = numerics::float_to_bits(dtype, x);
        // Moving away from zero increases the magnitude bits.
        if (y > x) == (x > 0.0) {
            bits + 1
        } else {
            bits - 1
        }
    };
    numerics::float_from_bits(dtype, bits)
}
