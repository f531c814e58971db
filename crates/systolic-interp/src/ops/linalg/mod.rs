//! Family: linear algebra — `dot_general`, `dot`, `convolution`, `triangular_solve`,
//! `cholesky`, the batch norm ops, `fft`, and `chlo.ragged_dot`.

mod accumulate;
pub mod batch_norm;
pub mod cholesky;
pub mod convolution;
pub mod dot;
pub mod fft;
mod matrices;
pub mod ragged_dot;
pub mod triangular_solve;

use crate::bail;
use crate::error::Result;
use crate::ops::reduce::operands::{result_tensor_type, tensor_args};
use crate::value::Value;
use std::borrow::Cow;
use systolic_ir::{round_to_tf32, OpKind, PrecisionType, Tensor, TensorType, Type};

/// A float operand rounded to tf32 when the dot algorithm's precision type for it is tf32
/// (the spec's "inputs are cast to tf32, then accumulated in f32"); other precision types do
/// not change the oracle's numbers (XLA:CPU computes them at the operands' own precision),
/// and integer operands are exact already.
fn tf32_inputs<'t>(t: &'t Tensor, precision: &PrecisionType) -> Result<Cow<'t, Tensor>> {
    if *precision != PrecisionType::Tf32 || !t.dtype().is_float() {
        return Ok(Cow::Borrowed(t));
    }
    let values = t.to_f64_vec().into_iter().map(round_to_tf32).collect();
    Tensor::from_f64(t.ty().shape.clone(), t.dtype(), values)
        .map(Cow::Owned)
        .map_err(|e| crate::error::InterpError::new(format!("tf32 rounding: {e}")))
}

/// Evaluates an op of this family.
pub fn eval(kind: &OpKind, args: Vec<Value>, result_types: &[Type]) -> Result<Vec<Value>> {
    let tensors = tensor_args(&args)?;
    let result0 = || result_tensor_type(result_types, 0);
    let out = match kind {
        OpKind::DotGeneral {
            dimension_numbers,
            algorithm,
            ..
        } => {
            let [lhs, rhs] = tensors[..] else {
                bail!("takes lhs and rhs, got {} operands", tensors.len());
            };
            let (lhs, rhs) = match algorithm {
                Some(a) => (
                    tf32_inputs(lhs, &a.lhs_precision_type)?,
                    tf32_inputs(rhs, &a.rhs_precision_type)?,
                ),
                None => (Cow::Borrowed(lhs), Cow::Borrowed(rhs)),
            };
            vec![dot::dot_general(&lhs, &rhs, dimension_numbers, result0()?)?]
        }
        OpKind::RaggedDot {
            dimension_numbers, ..
        } => {
            let [lhs, rhs, group_sizes] = tensors[..] else {
                bail!(
                    "takes lhs, rhs and group_sizes, got {} operands",
                    tensors.len()
                );
            };
            vec![ragged_dot::ragged_dot(
                lhs,
                rhs,
                group_sizes,
                dimension_numbers,
                result0()?,
            )?]
        }
        OpKind::Dot { .. } => {
            let [lhs, rhs] = tensors[..] else {
                bail!("takes lhs and rhs, got {} operands", tensors.len());
            };
            vec![dot::dot(lhs, rhs, result0()?)?]
        }
        OpKind::Convolution(attrs) => {
            let [lhs, rhs] = tensors[..] else {
                bail!("takes lhs and rhs, got {} operands", tensors.len());
            };
            vec![convolution::convolution(lhs, rhs, attrs, result0()?)?]
        }
        OpKind::TriangularSolve {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        } => {
            let [a, b] = tensors[..] else {
                bail!("takes a and b, got {} operands", tensors.len());
            };
            let opts = triangular_solve::Options {
                left_side: *left_side,
                lower: *lower,
                unit_diagonal: *unit_diagonal,
                transpose_a: *transpose_a,
            };
            vec![triangular_solve::triangular_solve(a, b, opts, result0()?)?]
        }
        OpKind::Cholesky { lower } => {
            let [a] = tensors[..] else {
                bail!("takes one operand, got {}", tensors.len());
            };
            vec![cholesky::cholesky(a, *lower, result0()?)?]
        }
        OpKind::BatchNormInference {
            epsilon,
            feature_index,
        } => {
            let [x, scale, offset, mean, variance] = tensors[..] else {
                bail!(
                    "takes operand, scale, offset, mean and variance, got {} operands",
                    tensors.len()
                );
            };
            let args = [x, scale, offset, mean, variance];
            vec![batch_norm::inference(
                args,
                *epsilon,
                *feature_index,
                result0()?,
            )?]
        }
        OpKind::BatchNormTraining {
            epsilon,
            feature_index,
        } => {
            let [x, scale, offset] = tensors[..] else {
                bail!(
                    "takes operand, scale and offset, got {} operands",
                    tensors.len()
                );
            };
            let tys = three_results(result_types)?;
            batch_norm::training([x, scale, offset], *epsilon, *feature_index, tys)?.into()
        }
        OpKind::BatchNormGrad {
            epsilon,
            feature_index,
        } => {
            let [x, scale, mean, variance, grad_out] = tensors[..] else {
                bail!(
                    "takes operand, scale, mean, variance and grad_output, got {} operands",
                    tensors.len()
                );
            };
            let tys = three_results(result_types)?;
            let args = [x, scale, mean, variance, grad_out];
            batch_norm::grad(args, *epsilon, *feature_index, tys)?.into()
        }
        OpKind::Fft {
            fft_type,
            fft_length,
        } => {
            let [x] = tensors[..] else {
                bail!("takes one operand, got {}", tensors.len());
            };
            vec![fft::fft(x, *fft_type, fft_length, result0()?)?]
        }
        _ => bail!("{} is not a linear algebra op", kind.name()),
    };
    Ok(out.into_iter().map(Value::from).collect())
}

/// The three declared tensor result types of a batch norm op.
fn three_results(result_types: &[Type]) -> Result<[&TensorType; 3]> {
    if result_types.len() != 3 {
        bail!("declares {} results, expected 3", result_types.len());
    }
    Ok([
        result_tensor_type(result_types, 0)?,
        result_tensor_type(result_types, 1)?,
        result_tensor_type(result_types, 2)?,
    ])
}
