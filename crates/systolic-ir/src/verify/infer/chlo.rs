//! CHLO ops JAX emits: elementwise special functions and `top_k`.

use super::common::*;
use crate::dtype::DType;
use crate::ops::{ChloBinaryOp, ChloUnaryOp};
use crate::types::Type;

/// `chlo.erf`, `chlo.is_inf`, … : float operands (integers too for `square`); the
/// `is_*inf` tests give `i1`, the others keep the type.
pub(crate) fn unary(op: ChloUnaryOp, operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let t = tensor_at(operands, 0, "operand")?;
    use ChloUnaryOp::*;
    match op {
        Square => expect_dtype(t, is_numeric, "integer or floating-point type", "operand")?,
        _ => expect_dtype(t, is_float, "floating-point type", "operand")?,
    }
    Ok(vec![match op {
        IsInf | IsNegInf | IsPosInf => tensor(t.shape.clone(), DType::Bool),
        _ => Type::Tensor(t.clone()),
    }])
}

/// `chlo.next_after`, `polygamma`, `zeta`: two float operands of one type; `chlo.mulhi`: two
/// integer operands of one type.
pub(crate) fn binary(op: ChloBinaryOp, operands: &[Type]) -> Inferred {
    expect_operands(operands, 2, "lhs, rhs")?;
    let lhs = tensor_at(operands, 0, "lhs")?;
    let rhs = tensor_at(operands, 1, "rhs")?;
    if lhs != rhs {
        return Err(format!(
            "operands have types {lhs} and {rhs}; they must be equal"
        ));
    }
    match op {
        ChloBinaryOp::Mulhi => expect_dtype(lhs, is_integer, "integer type", "lhs")?,
        ChloBinaryOp::NextAfter | ChloBinaryOp::Polygamma | ChloBinaryOp::Zeta => {
            expect_dtype(lhs, is_float, "floating-point type", "lhs")?
        }
    }
    Ok(vec![Type::Tensor(lhs.clone())])
}

/// `chlo.top_k(operand, k)` → (values, indices): the last dimension becomes `k`
/// (`0 <= k <= size`); indices are `i32`.
pub(crate) fn top_k(k: i64, operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let t = tensor_at(operands, 0, "operand")?;
    let Some(&last) = t.shape.last() else {
        return Err(format!("operand {t} must have at least one dimension"));
    };
    if !(0..=last).contains(&k) {
        return Err(format!("k = {k} must be in [0, {last}] for operand {t}"));
    }
    let mut shape = t.shape.clone();
    *shape.last_mut().expect("rank checked above") = k;
    Ok(vec![
        tensor(shape.clone(), t.dtype),
        tensor(shape, DType::I32),
    ])
}
