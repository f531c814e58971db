//! Quantized types (`crate::quant`): the two conversion ops, and every other op on quantized
//! values checked as the spec defines it, on the expressed types (`dequantize_op_quantize`).

use super::common::*;
use crate::ops::OpKind;
use crate::quant::{expressed_type, expressed_value_type as expressed, is_quantized as quantized};
use crate::types::Type;

/// `stablehlo.uniform_quantize`: a float tensor, or a quantized one, to a quantized type of
/// the same shape; a float operand must be the result's expressed type.
pub(crate) fn uniform_quantize(operands: &[Type], declared: Option<&[Type]>) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let result = need_declared_tensor(declared, "it names the quantized type")?;
    let Some(q) = &result.quant else {
        return Err(format!("result {result} must be a quantized type"));
    };
    if operand.shape != result.shape {
        return Err(format!(
            "operand {operand} and result {result} must have the same shape"
        ));
    }
    // C2: the expressed types agree, whether the operand is float or re-quantized.
    let operand_expressed = operand
        .quant
        .as_ref()
        .map_or(operand.dtype, |o| o.expressed);
    if operand_expressed != q.expressed {
        return Err(format!(
            "operand {operand} must be expressed in the result's expressed type {}",
            q.expressed
        ));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

/// `stablehlo.uniform_dequantize`: a quantized tensor to its expressed type.
pub(crate) fn uniform_dequantize(operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    if operand.quant.is_none() {
        return Err(format!("operand {operand} must be a quantized type"));
    }
    Ok(vec![Type::Tensor(expressed_type(operand))])
}

/// The ops the spec defines on quantized values by dequantizing, computing and quantizing.
pub fn computes_on_values(kind: &OpKind) -> bool {
    use crate::op_properties::OpFamily as F;
    !matches!(
        kind,
        OpKind::UniformQuantize
            | OpKind::UniformDequantize
            | OpKind::BitcastConvert
            | OpKind::Constant(_)
    ) && !matches!(kind.family(), F::Control | F::Fusion | F::Check | F::Custom)
}

/// Whether a computing op other than the conversions touches quantized values. Plumbing
/// (calls, control flow, tuples, returns, fusions, custom calls and the test harness) passes
/// values on as they are, and a constant's type is its value's (constant folding makes
/// quantized constants): their own rules see the quantized types.
pub(crate) fn applies(kind: &OpKind, operands: &[Type], declared: Option<&[Type]>) -> bool {
    computes_on_values(kind)
        && (operands.iter().any(quantized) || declared.unwrap_or(&[]).iter().any(quantized))
}

/// Checks an op on quantized values on their expressed types: the op must be valid there and
/// its declared results must express as what it infers. The results are the declared
/// (quantized) types, which only the declaration can give.
pub(crate) fn through_expressed_types(
    operands: &[Type],
    declared: Option<&[Type]>,
    infer: impl FnOnce(&[Type], Option<&[Type]>) -> Inferred,
) -> Inferred {
    let Some(declared) = declared else {
        return Err("an op on quantized values needs its declared result types".to_string());
    };
    let operands: Vec<Type> = operands.iter().map(expressed).collect();
    let want: Vec<Type> = declared.iter().map(expressed).collect();
    let got = infer(&operands, Some(&want))?;
    if got != want {
        return Err(format!(
            "on the expressed types the results are {} but the op declares {}",
            type_list(&got),
            type_list(declared)
        ));
    }
    Ok(declared.to_vec())
}

/// The spec's extra constraints on `dot_general` and `convolution` with quantized values
/// (dot_general C14–C20, convolution C28–C34): the rhs is quantized and the lhs is exactly
/// when the result is; both quantized: one storage type, one expressed type for all three,
/// and a per-tensor rhs makes a per-tensor result; a float lhs (weight-only, "hybrid"): the
/// lhs, the rhs's expressed type and the result are one float type. A dot's rhs has zero
/// points 0 and is not quantized along a contracting dimension; a convolution's per-axis
/// rhs and result are quantized along their output feature dimensions.
pub(crate) fn product_constraints(
    kind: &OpKind,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> Result<(), String> {
    let tensor = |t: Option<&Type>| match t {
        Some(Type::Tensor(t)) => Some(t.clone()),
        _ => None,
    };
    let (Some(lhs), Some(rhs), Some(result)) = (
        tensor(operands.first()),
        tensor(operands.get(1)),
        tensor(declared.and_then(|d| d.first())),
    ) else {
        // The op's own rule names missing operands or results.
        return Ok(());
    };
    match kind {
        OpKind::DotGeneral {
            dimension_numbers, ..
        } => {
            if let Some(q) = &rhs.quant {
                if q.zero_points.iter().any(|&z| z != 0) {
                    return Err(format!("rhs {rhs} must have zero points 0"));
                }
                if let Some(axis) = q.axis {
                    if dimension_numbers.rhs_contracting_dimensions.contains(&axis) {
                        return Err(format!(
                            "rhs {rhs} must not be quantized along its contracting dimension {axis}"
                        ));
                    }
                }
            }
        }
        OpKind::Convolution(attrs) => {
            let dn = &attrs.dimension_numbers;
            for (name, t, dim) in [
                ("rhs", &rhs, dn.kernel_output_feature_dimension),
                ("result", &result, dn.output_feature_dimension),
            ] {
                if let Some(axis) = t.quant.as_ref().and_then(|q| q.axis) {
                    if axis != dim {
                        return Err(format!(
                            "{name} {t} must be quantized along its output feature dimension {dim}"
                        ));
                    }
                }
            }
        }
        _ => return Ok(()),
    }
    let Some(rq) = &rhs.quant else {
        return Err(format!(
            "rhs {rhs} must be quantized when lhs {lhs} or result {result} is"
        ));
    };
    match (&lhs.quant, &result.quant) {
        (Some(lq), Some(oq)) => {
            if lhs.dtype != rhs.dtype {
                return Err(format!(
                    "lhs {lhs} and rhs {rhs} must have the same storage type"
                ));
            }
            if lq.expressed != rq.expressed || lq.expressed != oq.expressed {
                return Err(format!(
                    "lhs {lhs}, rhs {rhs} and result {result} must have the same expressed type"
                ));
            }
            if rq.axis.is_none() && oq.axis.is_some() {
                return Err(format!(
                    "result {result} must be quantized per tensor as rhs {rhs} is"
                ));
            }
            Ok(())
        }
        (None, None) => {
            if lhs.dtype != rq.expressed || result.dtype != rq.expressed {
                return Err(format!(
                    "lhs {lhs} and result {result} must be of rhs {rhs}'s expressed type {}",
                    rq.expressed
                ));
            }
            Ok(())
        }
        _ => Err(format!(
            "lhs {lhs} must be quantized exactly when result {result} is"
        )),
    }
}
