//! Elementwise ops: the unary and binary arithmetic ops, compare, select, clamp, the
//! conversions, reduce_precision and map. Operands keep their shape; the spec's rule is "same
//! type" (static shapes only, so no broadcasting). Complex operands are accepted where the
//! spec lists them; `abs`, `real` and `imag` of a complex tensor give its parts' float type,
//! and `complex` builds one from two floats.

use super::common::*;
use super::RegionSignature;
use crate::attrs::ComparisonType;
use crate::dtype::DType;
use crate::ops::{BinaryOp, UnaryOp};
use crate::types::Type;

/// The element types a unary op accepts, and how the message words them.
fn unary_domain(op: UnaryOp) -> (fn(DType) -> bool, &'static str) {
    use UnaryOp::*;
    match op {
        Abs | Sign => (
            is_signed_float_or_complex,
            "signed integer, floating-point or complex type",
        ),
        CountLeadingZeros | Popcnt => (is_integer, "integer type"),
        Negate => (
            is_numeric_or_complex,
            "integer, floating-point or complex type",
        ),
        Not => (is_bool_or_integer, "boolean or integer type"),
        Ceil | Floor | IsFinite | RoundNearestAfz | RoundNearestEven => {
            (is_float, "floating-point type")
        }
        Cbrt | Cosine | Exponential | ExponentialMinusOne | Imag | Log | LogPlusOne | Logistic
        | Real | Rsqrt | Sine | Sqrt | Tan | Tanh => {
            (is_float_or_complex, "floating-point or complex type")
        }
    }
}

/// `stablehlo.abs`, `exponential`, … : the operand's type, except `is_finite` which gives `i1`.
pub(crate) fn unary(op: UnaryOp, operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let t = tensor_at(operands, 0, "operand")?;
    let (ok, class) = unary_domain(op);
    expect_dtype(t, ok, class, "operand")?;
    Ok(vec![match op {
        UnaryOp::IsFinite => tensor(t.shape.clone(), DType::Bool),
        // The modulus and the parts of a complex number are of its parts' type.
        UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => {
            tensor(t.shape.clone(), t.dtype.component().unwrap_or(t.dtype))
        }
        _ => Type::Tensor(t.clone()),
    }])
}

/// The element types a binary op accepts.
fn binary_domain(op: BinaryOp) -> (fn(DType) -> bool, &'static str) {
    use BinaryOp::*;
    match op {
        Add | Maximum | Minimum | Multiply => (is_any, "any element type"),
        And | Or | Xor => (is_bool_or_integer, "boolean or integer type"),
        Atan2 => (is_float_or_complex, "floating-point or complex type"),
        // Only f32 and f64 pairs make a complex type (`complex_of`).
        Complex => (
            |d| d.complex_of().is_some(),
            "f32 or f64 type (the parts of a complex number)",
        ),
        Divide | Power | Subtract => (
            is_numeric_or_complex,
            "integer, floating-point or complex type",
        ),
        Remainder => (is_numeric, "integer or floating-point type"),
        ShiftLeft | ShiftRightArithmetic | ShiftRightLogical => (is_integer, "integer type"),
    }
}

/// `stablehlo.add`, `and`, … : both operands and the result have one type.
pub(crate) fn binary(op: BinaryOp, operands: &[Type]) -> Inferred {
    expect_operands(operands, 2, "lhs, rhs")?;
    let lhs = tensor_at(operands, 0, "lhs")?;
    let rhs = tensor_at(operands, 1, "rhs")?;
    if lhs != rhs {
        return Err(format!(
            "operands have types {lhs} and {rhs}; they must be equal"
        ));
    }
    let (ok, class) = binary_domain(op);
    expect_dtype(lhs, ok, class, "lhs")?;
    if op == BinaryOp::Complex {
        let dtype = lhs.dtype.complex_of().unwrap_or(lhs.dtype);
        return Ok(vec![tensor(lhs.shape.clone(), dtype)]);
    }
    Ok(vec![Type::Tensor(lhs.clone())])
}

/// `stablehlo.compare`: `i1` of the operands' shape; the comparison type must suit the
/// element type (SIGNED for signed integers, UNSIGNED for unsigned and `i1`, FLOAT or
/// TOTALORDER for floats and complex numbers, which compare lexicographically).
pub(crate) fn compare(compare_type: Option<ComparisonType>, operands: &[Type]) -> Inferred {
    expect_operands(operands, 2, "lhs, rhs")?;
    let lhs = tensor_at(operands, 0, "lhs")?;
    let rhs = tensor_at(operands, 1, "rhs")?;
    if lhs != rhs {
        return Err(format!(
            "operands have types {lhs} and {rhs}; they must be equal"
        ));
    }
    if let Some(ct) = compare_type {
        let ok = match ct {
            ComparisonType::NoType => true,
            ComparisonType::Signed => lhs.dtype.is_signed_integer(),
            ComparisonType::Unsigned => lhs.dtype.is_unsigned_integer() || lhs.dtype.is_bool(),
            ComparisonType::Float | ComparisonType::TotalOrder => lhs.dtype.is_float_or_complex(),
        };
        if !ok {
            return Err(format!(
                "compare type {} does not apply to element type {}",
                ct.keyword(),
                lhs.dtype
            ));
        }
    }
    Ok(vec![tensor(lhs.shape.clone(), DType::Bool)])
}

/// `stablehlo.select(pred, on_true, on_false)`: `pred` is `i1`, a scalar or of the branches'
/// shape; the branches have one type, the result's.
pub(crate) fn select(operands: &[Type]) -> Inferred {
    expect_operands(operands, 3, "pred, on_true, on_false")?;
    let pred = tensor_at(operands, 0, "pred")?;
    let on_true = tensor_at(operands, 1, "on_true")?;
    let on_false = tensor_at(operands, 2, "on_false")?;
    if pred.dtype != DType::Bool {
        return Err(format!("pred has type {pred}; expected a tensor of i1"));
    }
    if on_true != on_false {
        return Err(format!(
            "on_true has type {on_true} and on_false {on_false}; they must be equal"
        ));
    }
    if pred.rank() != 0 && pred.shape != on_true.shape {
        return Err(format!(
            "pred has type {pred}; it must be a scalar or have the shape of {on_true}"
        ));
    }
    Ok(vec![Type::Tensor(on_true.clone())])
}

/// `stablehlo.clamp(min, operand, max)`: bounds are scalars or of the operand's shape, all of
/// one element type; the result has the operand's type.
pub(crate) fn clamp(operands: &[Type]) -> Inferred {
    expect_operands(operands, 3, "min, operand, max")?;
    let min = tensor_at(operands, 0, "min")?;
    let operand = tensor_at(operands, 1, "operand")?;
    let max = tensor_at(operands, 2, "max")?;
    for (bound, role) in [(min, "min"), (max, "max")] {
        if bound.dtype != operand.dtype {
            return Err(format!(
                "{role} has type {bound} and operand {operand}; their element types must be equal"
            ));
        }
        if bound.rank() != 0 && bound.shape != operand.shape {
            return Err(format!(
                "{role} has type {bound}; it must be a scalar or have the shape of {operand}"
            ));
        }
    }
    Ok(vec![Type::Tensor(operand.clone())])
}

/// `stablehlo.convert`: any element type to any other, shape kept. The target element type
/// comes from the declared result.
pub(crate) fn convert(operands: &[Type], declared: Option<&[Type]>) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let result = need_declared_tensor(declared, "it names the target element type")?;
    if result.shape != operand.shape {
        return Err(format!(
            "operand has type {operand} and result {result}; their shapes must be equal"
        ));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

/// `stablehlo.bitcast_convert`: reinterprets bits. Equal widths keep the shape; a narrower
/// result adds a minor dimension of `wide/narrow` elements; a wider one removes it.
pub(crate) fn bitcast_convert(operands: &[Type], declared: Option<&[Type]>) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let result = need_declared_tensor(declared, "it names the target element type")?;
    let (from, to) = (operand.dtype.bit_width(), result.dtype.bit_width());
    let expected_shape = if from == to {
        operand.shape.clone()
    } else if to < from {
        if from % to != 0 {
            return Err(format!(
                "cannot reinterpret {operand} as {result}: {from} bits do not split into {to}-bit elements"
            ));
        }
        let mut s = operand.shape.clone();
        s.push(i64::from(from / to));
        s
    } else {
        let ratio = i64::from(to / from);
        let last = operand.shape.last().copied();
        if to % from != 0 || last != Some(ratio) {
            return Err(format!(
                "cannot reinterpret {operand} as {result}: the operand's last dimension must hold {} elements of {from} bits",
                to / from
            ));
        }
        operand.shape[..operand.rank() - 1].to_vec()
    };
    if result.shape != expected_shape {
        return Err(format!(
            "cannot reinterpret {operand} as {result}: the result shape must be {}",
            list(&expected_shape)
        ));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

/// `stablehlo.reduce_precision`: a float operand, at least one exponent bit, no negative
/// mantissa bits; the type is kept.
pub(crate) fn reduce_precision(
    exponent_bits: i32,
    mantissa_bits: i32,
    operands: &[Type],
) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let t = tensor_at(operands, 0, "operand")?;
    expect_dtype(t, is_float, "floating-point type", "operand")?;
    if exponent_bits < 1 {
        return Err(format!(
            "exponent_bits is {exponent_bits}; it must be at least 1"
        ));
    }
    if mantissa_bits < 0 {
        return Err(format!(
            "mantissa_bits is {mantissa_bits}; it must not be negative"
        ));
    }
    Ok(vec![Type::Tensor(t.clone())])
}

/// `stablehlo.map`: inputs of one shape, `dimensions = [0, …, R-1]`, a computation from one
/// scalar per input to one scalar; the result has the inputs' shape and the scalar's type.
pub(crate) fn map(dimensions: &[i64], operands: &[Type], regions: &[RegionSignature]) -> Inferred {
    expect_regions(regions, 1, "computation")?;
    if operands.is_empty() {
        return Err("expects at least one input".to_string());
    }
    let inputs = tensors(operands, "input")?;
    let first = inputs[0];
    if let Some(other) = inputs.iter().find(|t| t.shape != first.shape) {
        return Err(format!(
            "inputs have types {first} and {other}; their shapes must be equal"
        ));
    }
    let all: Vec<i64> = (0..first.rank() as i64).collect();
    if dimensions != all.as_slice() {
        return Err(format!(
            "`dimensions` is {} but must be {} (all dimensions, in order)",
            list(dimensions),
            list(&all)
        ));
    }
    let region = &regions[0];
    let args: Vec<Type> = inputs.iter().map(|t| scalar(t.dtype)).collect();
    if region.arg_types != args {
        return Err(format!(
            "computation takes {} but must take {}",
            type_list(&region.arg_types),
            type_list(&args)
        ));
    }
    match region.result_types.as_slice() {
        [Type::Tensor(r)] if r.rank() == 0 => Ok(vec![tensor(first.shape.clone(), r.dtype)]),
        other => Err(format!(
            "computation returns {} but must return one 0-dimensional tensor",
            type_list(other)
        )),
    }
}
