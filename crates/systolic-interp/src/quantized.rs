//! Quantized values (`systolic_ir::quant`): the two conversion ops, bit casts to and from the
//! storage type, and every other op by the spec's rule — dequantize the operands, compute in
//! the expressed type, quantize the results (`dequantize_op_quantize`), in this one place.

use crate::error::{InterpError, Result};
use crate::ops;
use crate::regions::Regions;
use crate::value::Value;
use systolic_ir::quant::{dequantize, expressed_value_type, is_quantized, quantize, storage_type};
use systolic_ir::{OpKind, Tensor, TensorType, Type};

fn err(m: String) -> InterpError {
    InterpError::new(m)
}

fn is_quantized_value(v: &Value) -> bool {
    matches!(v, Value::Tensor(t) if t.ty().quant.is_some())
}

/// Whether `kind` must go through this module: the conversions always, any other op when an
/// operand or a result is quantized — but plumbing and constants, which pass values on as
/// they are (`systolic_ir::verify::computes_on_values`).
pub fn applies(kind: &OpKind, args: &[Value], result_types: &[Type]) -> bool {
    let touched = || args.iter().any(is_quantized_value) || result_types.iter().any(is_quantized);
    match kind {
        OpKind::UniformQuantize | OpKind::UniformDequantize => true,
        // Bit casts keep the stored integers (handled in `eval`).
        OpKind::BitcastConvert => touched(),
        _ => systolic_ir::verify::computes_on_values(kind) && touched(),
    }
}

fn one_tensor(args: &[Value]) -> Result<&Tensor> {
    match args {
        [Value::Tensor(t)] => Ok(t),
        _ => crate::bail!("takes one tensor operand, got {}", args.len()),
    }
}

fn result(result_types: &[Type]) -> Result<&TensorType> {
    match result_types {
        [Type::Tensor(t)] => Ok(t),
        _ => crate::bail!("has one tensor result"),
    }
}

/// Evaluates an op of [`applies`].
pub fn eval(
    kind: &OpKind,
    args: Vec<Value>,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Value>> {
    match kind {
        OpKind::UniformQuantize => {
            let x = one_tensor(&args)?;
            let to = result(result_types)?;
            let values = if x.ty().quant.is_some() {
                dequantize(x).map_err(err)?
            } else {
                x.clone()
            };
            Ok(vec![quantize(&values, to).map_err(err)?.into()])
        }
        OpKind::UniformDequantize => Ok(vec![dequantize(one_tensor(&args)?).map_err(err)?.into()]),
        OpKind::BitcastConvert => {
            // The stored integers are the bits: cast them as plain storage values.
            let x = one_tensor(&args)?;
            let to = result(result_types)?;
            let plain = Tensor::new(storage_type(x.ty()), x.data().clone())
                .map_err(|e| err(e.to_string()))?;
            let out = ops::eval_plain(
                kind,
                vec![plain.into()],
                &[Type::Tensor(storage_type(to))],
                regions,
            )?;
            let [Value::Tensor(t)] = &out[..] else {
                crate::bail!("bitcast_convert returned no tensor");
            };
            let typed =
                Tensor::new(to.clone(), t.data().clone()).map_err(|e| err(e.to_string()))?;
            Ok(vec![typed.into()])
        }
        _ => {
            let args = args
                .into_iter()
                .map(|v| match v {
                    Value::Tensor(t) if t.ty().quant.is_some() => {
                        dequantize(&t).map(Value::Tensor).map_err(err)
                    }
                    other => Ok(other),
                })
                .collect::<Result<Vec<_>>>()?;
            let expressed: Vec<Type> = result_types.iter().map(expressed_value_type).collect();
            let out = ops::eval_plain(kind, args, &expressed, regions)?;
            out.into_iter()
                .zip(result_types)
                .map(|(v, ty)| match (v, ty) {
                    (Value::Tensor(t), Type::Tensor(want)) if want.quant.is_some() => {
                        quantize(&t, want).map(Value::Tensor).map_err(err)
                    }
                    (v, _) => Ok(v),
                })
                .collect()
        }
    }
}
