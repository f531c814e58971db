//! `chlo.top_k`: the `k` largest (or smallest) elements along the last dimension, with their
//! positions as `i32`.
//!
//! Order as JAX on CPU shows it (`lax.top_k`): floats compare by IEEE total order, so +NaN is
//! above +inf, -NaN below -inf, and +0 above -0; equal elements come lower index first.

use crate::bail;
use crate::error::Result;
use crate::ops::reduce::operands::{expect_result_type, new_tensor, result_tensor_type};
use std::cmp::Ordering;
use systolic_ir::{DType, Data, Scalar, Tensor, TensorType, Type};

/// Evaluates top_k of `operand`.
pub fn top_k(
    operand: &Tensor,
    k: i64,
    largest: bool,
    result_types: &[Type],
) -> Result<[Tensor; 2]> {
    let shape = operand.shape();
    let Some(&last) = shape.last() else {
        bail!("the operand must have rank ≥ 1, got {}", operand.ty());
    };
    if k < 0 || k > last {
        bail!("k = {k} must be in 0..={last} for {}", operand.ty());
    }
    let mut out_shape = shape.to_vec();
    if let Some(l) = out_shape.last_mut() {
        *l = k;
    }
    let values_ty = result_tensor_type(result_types, 0)?;
    let indices_ty = result_tensor_type(result_types, 1)?;
    expect_result_type(
        values_ty,
        &TensorType::new(out_shape.clone(), operand.dtype()),
    )?;
    expect_result_type(indices_ty, &TensorType::new(out_shape.clone(), DType::I32))?;

    let (last, k) = (last as usize, k as usize);
    let rows = operand.num_elements().checked_div(last).unwrap_or(0);
    let mut picked = Vec::with_capacity(rows * k);
    let mut picked_index = Vec::with_capacity(rows * k);
    for row in 0..rows {
        let mut order: Vec<usize> = (0..last).collect();
        order.sort_by(|&a, &b| {
            let o = compare(operand.get(row * last + a), operand.get(row * last + b));
            if largest {
                o.reverse()
            } else {
                o
            }
        });
        for &i in &order[..k] {
            picked.push(row * last + i);
            picked_index.push(i as i64);
        }
    }
    let values = new_tensor(values_ty.clone(), operand.data().gather(&picked))?;
    let indices = new_tensor(indices_ty.clone(), Data::Int(picked_index))?;
    Ok([values, indices])
}

/// Total order of two elements of one tensor.
fn compare(a: Scalar, b: Scalar) -> Ordering {
    match (a, b) {
        (Scalar::Float(x), Scalar::Float(y)) => x.total_cmp(&y),
        (Scalar::Int(x), Scalar::Int(y)) => x.cmp(&y),
        (Scalar::UInt(x), Scalar::UInt(y)) => x.cmp(&y),
        (Scalar::Bool(x), Scalar::Bool(y)) => x.cmp(&y),
        // Lexicographic on (real, imaginary), each in total order.
        (Scalar::Complex(x), Scalar::Complex(y)) => {
            x.re.total_cmp(&y.re).then(x.im.total_cmp(&y.im))
        }
        _ => Ordering::Equal,
    }
}
