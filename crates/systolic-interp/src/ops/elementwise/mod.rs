//! Family: elementwise ops (unary and binary math, compare, select, clamp, conversions).
//!
//! Floats follow XLA:CPU: every float dtype is computed in f64 and rounded to its dtype after
//! each op (bf16 and f16 through f32, as XLA computes them in f32), and f32/f64/bf16 arithmetic
//! runs with denormals flushed to zero on input and output (f16 subnormals are normal f32
//! numbers, so they survive). Sign-bit ops (abs, negate), tanh (which returns tiny inputs as
//! they are) and moves do not flush, as observed on XLA:CPU.
//!
//! Transcendental functions are (nearly) correctly rounded here; XLA:CPU's own f32
//! approximations differ from that by up to 5 ulp (erf), 4 (expm1, sinh), 3 (tanh, asinh) or
//! 2 (logistic, log1p) — measured with jax 0.10.2 — so backends compare with a tolerance.
//!
//! Complex numbers (`complex.rs`) follow the same scheme part by part: computed in f64,
//! each part rounded to the parts' dtype.

mod binary;
mod compare;
pub mod complex;
mod convert;
mod select;
mod unary;

pub use binary::binary;
pub use compare::compare;
pub use convert::{bitcast_convert, convert, reduce_precision};
pub use select::{clamp, select};
pub use unary::unary;

use crate::error::Result;
use crate::operands::{expect_count, result_tensor, tensor};
use crate::value::Value;
use systolic_ir::{numerics, DType, OpKind, Type};

/// Evaluates an op of this family.
pub fn eval(kind: &OpKind, args: Vec<Value>, result_types: &[Type]) -> Result<Vec<Value>> {
    let out = result_tensor(result_types, 0)?;
    let result = match kind {
        OpKind::Unary(op) => {
            expect_count(&args, 1)?;
            unary(*op, tensor(&args, 0)?, out)?
        }
        OpKind::Binary(op) => {
            expect_count(&args, 2)?;
            binary(*op, tensor(&args, 0)?, tensor(&args, 1)?, out)?
        }
        OpKind::Compare {
            direction,
            compare_type,
        } => {
            expect_count(&args, 2)?;
            compare(
                *direction,
                *compare_type,
                tensor(&args, 0)?,
                tensor(&args, 1)?,
                out,
            )?
        }
        OpKind::Select => {
            expect_count(&args, 3)?;
            select(tensor(&args, 0)?, tensor(&args, 1)?, tensor(&args, 2)?, out)?
        }
        OpKind::Clamp => {
            expect_count(&args, 3)?;
            clamp(tensor(&args, 0)?, tensor(&args, 1)?, tensor(&args, 2)?, out)?
        }
        OpKind::Convert => {
            expect_count(&args, 1)?;
            convert(tensor(&args, 0)?, out)?
        }
        OpKind::BitcastConvert => {
            expect_count(&args, 1)?;
            bitcast_convert(tensor(&args, 0)?, out)?
        }
        OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => {
            expect_count(&args, 1)?;
            reduce_precision(tensor(&args, 0)?, *exponent_bits, *mantissa_bits, out)?
        }
        other => crate::bail!("{} is not an elementwise op", other.name()),
    };
    Ok(vec![Value::Tensor(result)])
}

/// A float operand as XLA:CPU's arithmetic sees it: subnormals of f32, bf16 and f64 read as
/// zero (DAZ); f16 is computed in f32, where its subnormals are normal.
pub fn daz(dtype: DType, x: f64) -> f64 {
    numerics::flush_denormal(dtype, x)
}

/// The result of float arithmetic of `dtype` computed in f64: rounded and flushed.
pub fn rounded(dtype: DType, x: f64) -> f64 {
    numerics::arith_result(dtype, x)
}
