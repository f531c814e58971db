//! `select` and `clamp`: both accept scalars in place of full tensors for the predicate and
//! the bounds.

use super::binary::binary;
use crate::error::Result;
use crate::operands::{check_result, make};
use systolic_ir::{BinaryOp, Data, Tensor, TensorType};

/// `select(pred, on_true, on_false)`; `pred` is `i1`, either a scalar or of the operands' shape.
pub fn select(
    pred: &Tensor,
    on_true: &Tensor,
    on_false: &Tensor,
    out: &TensorType,
) -> Result<Tensor> {
    if on_true.ty() != on_false.ty() {
        crate::bail!(
            "on_true {} and on_false {} must have the same type",
            on_true.ty(),
            on_false.ty()
        );
    }
    let Data::Bool(p) = pred.data() else {
        crate::bail!("pred must be of element type i1, got {}", pred.ty());
    };
    if !pred.shape().is_empty() && pred.shape() != on_true.shape() {
        crate::bail!(
            "pred {} must be a scalar or have the shape of the operands {}",
            pred.ty(),
            on_true.ty()
        );
    }
    check_result(out, on_true.shape(), on_true.dtype())?;
    let scalar_pred = pred.shape().is_empty();
    let take_true = |i: usize| if scalar_pred { p[0] } else { p[i] };
    let data = pick(on_true.data(), on_false.data(), take_true);
    make(out.clone(), data)
}

/// Elementwise choice between two same-kind element lists.
fn pick(a: &Data, b: &Data, take_a: impl Fn(usize) -> bool) -> Data {
    fn choose<T: Copy>(x: &[T], y: &[T], take: impl Fn(usize) -> bool) -> Vec<T> {
        (0..x.len())
            .map(|i| if take(i) { x[i] } else { y[i] })
            .collect()
    }
    match (a, b) {
        (Data::Bool(x), Data::Bool(y)) => Data::Bool(choose(x, y, take_a)),
        (Data::Int(x), Data::Int(y)) => Data::Int(choose(x, y, take_a)),
        (Data::UInt(x), Data::UInt(y)) => Data::UInt(choose(x, y, take_a)),
        (Data::Float(x), Data::Float(y)) => Data::Float(choose(x, y, take_a)),
        (Data::Complex(x), Data::Complex(y)) => Data::Complex(choose(x, y, take_a)),
        // Same type was checked by the caller, so the kinds agree.
        _ => a.clone(),
    }
}

/// `clamp(min, operand, max) = minimum(maximum(operand, min), max)`, with NaN propagating as
/// in `maximum`/`minimum`; `min` and `max` may be scalars.
pub fn clamp(min: &Tensor, operand: &Tensor, max: &Tensor, out: &TensorType) -> Result<Tensor> {
    let min = broadcast_bound(min, operand, "min")?;
    let max = broadcast_bound(max, operand, "max")?;
    let lower = binary(BinaryOp::Maximum, operand, &min, operand.ty())?;
    check_result(out, operand.shape(), operand.dtype())?;
    binary(BinaryOp::Minimum, &lower, &max, out)
}

/// A clamp bound at the operand's shape (a scalar is repeated).
fn broadcast_bound(bound: &Tensor, operand: &Tensor, what: &str) -> Result<Tensor> {
    if bound.dtype() != operand.dtype() {
        crate::bail!(
            "{what} {} and operand {} element types differ",
            bound.ty(),
            operand.ty()
        );
    }
    if bound.shape() == operand.shape() {
        return Ok(bound.clone());
    }
    if bound.shape().is_empty() {
        let n = operand.num_elements();
        let data = bound.data().gather(&vec![0; n]);
        return make(operand.ty().clone(), data);
    }
    crate::bail!(
        "{what} {} must be a scalar or have the operand's shape {}",
        bound.ty(),
        operand.ty()
    )
}
