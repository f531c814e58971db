//! Quantized types (`crate::quant`): the two conversion ops, and every other op on quantized
//! values checked as the spec defines it, on the expressed types (`dequantize_op_quantize`).

use super::common::*;
use crate::ops::OpKind;
use crate::quant::expressed_type;
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
    if operand.quant.is_none() && operand.dtype != q.expressed {
        return Err(format!(
            "operand {operand} must be of the result's expressed type {} or quantized",
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

fn quantized(t: &Type) -> bool {
    matches!(t, Type::Tensor(t) if t.quant.is_some())
}

fn expressed(t: &Type) -> Type {
    match t {
        Type::Tensor(t) => Type::Tensor(expressed_type(t)),
        other => other.clone(),
    }
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
