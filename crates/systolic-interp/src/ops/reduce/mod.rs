//! Family: reductions and ops with a scalar region applied over windows or slices: `reduce`,
//! `reduce_window`, `select_and_scatter`, `sort`, `map`, `chlo.top_k`, and `chlo.scan` (a
//! region threaded along one dimension).

pub mod map;
pub(crate) mod operands;
// The family and its namesake op share a name.
#[allow(clippy::module_inception)]
pub mod reduce;
pub mod reduce_window;
pub mod scan;
pub mod select_and_scatter;
pub mod sort;
pub mod top_k;

use crate::bail;
use crate::error::Result;
use crate::regions::Regions;
use crate::value::Value;
use operands::{result_tensor_type, tensor_args};
use systolic_ir::{OpKind, Type};

/// Evaluates an op of this family.
pub fn eval(
    kind: &OpKind,
    args: Vec<Value>,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Value>> {
    let tensors = tensor_args(&args)?;
    let values = |ts: Vec<systolic_ir::Tensor>| ts.into_iter().map(Value::from).collect();
    match kind {
        OpKind::Reduce { dimensions } => {
            let (inputs, inits) = split_inputs_and_inits(&tensors)?;
            let out = reduce::reduce(inputs, inits, dimensions, result_types, regions)?;
            Ok(values(out))
        }
        OpKind::ReduceWindow { window } => {
            let (inputs, inits) = split_inputs_and_inits(&tensors)?;
            let window = window.resolve(inputs[0].shape().len())?;
            let out = reduce_window::reduce_window(inputs, inits, &window, result_types, regions)?;
            Ok(values(out))
        }
        OpKind::SelectAndScatter { window } => {
            let [operand, source, init] = tensors[..] else {
                bail!(
                    "takes operand, source and init_value, got {} operands",
                    tensors.len()
                );
            };
            if window.has_dilations() {
                bail!("select_and_scatter has no base_dilations or window_dilations");
            }
            let window = window.resolve(operand.shape().len())?;
            let result_ty = result_tensor_type(result_types, 0)?;
            let out = select_and_scatter::select_and_scatter(
                operand, source, init, &window, result_ty, regions,
            )?;
            Ok(vec![out.into()])
        }
        OpKind::Sort { dimension, .. } => Ok(values(sort::sort(
            &tensors,
            *dimension,
            result_types,
            regions,
        )?)),
        OpKind::Map { dimensions } => {
            Ok(vec![
                map::map(&tensors, dimensions, result_types, regions)?.into()
            ])
        }
        OpKind::TopK { k, largest } => {
            let [operand] = tensors[..] else {
                bail!("takes one operand, got {}", tensors.len());
            };
            Ok(values(
                top_k::top_k(operand, *k, *largest, result_types)?.into(),
            ))
        }
        OpKind::Scan {
            operand_segment_sizes,
            dimension,
            is_reverse,
            ..
        } => {
            let n_in = operand_segment_sizes.first().copied().unwrap_or(0);
            let n_in = usize::try_from(n_in).unwrap_or(usize::MAX);
            if n_in > tensors.len() {
                bail!("{n_in} inputs but {} operands", tensors.len());
            }
            let (inputs, inits) = tensors.split_at(n_in);
            Ok(values(scan::scan(
                inputs,
                inits,
                *dimension,
                *is_reverse,
                result_types,
                regions,
            )?))
        }
        _ => bail!("{} is not a reduction op", kind.name()),
    }
}

/// Splits `inputs..., init_values...` into its two halves.
fn split_inputs_and_inits<'a>(
    tensors: &'a [&'a systolic_ir::Tensor],
) -> Result<(&'a [&'a systolic_ir::Tensor], &'a [&'a systolic_ir::Tensor])> {
    if tensors.is_empty() || tensors.len() % 2 == 1 {
        bail!(
            "takes N inputs and N init values (an even count ≥ 2), got {} operands",
            tensors.len()
        );
    }
    Ok(tensors.split_at(tensors.len() / 2))
}
