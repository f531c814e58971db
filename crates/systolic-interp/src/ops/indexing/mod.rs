//! Family: indexing — `gather` and `scatter`.

pub mod gather;
pub mod scatter;

use crate::error::Result;
use crate::ops::reduce::operands::{result_tensor_type, tensor_arg, tensor_args};
use crate::regions::Regions;
use crate::value::Value;
use systolic_ir::{OpKind, Type};

/// Evaluates an op of this family.
pub fn eval(
    kind: &OpKind,
    args: Vec<Value>,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Value>> {
    match kind {
        OpKind::Gather {
            dimension_numbers,
            slice_sizes,
            ..
        } => {
            if args.len() != 2 {
                crate::bail!(
                    "takes an operand and start_indices, got {} operands",
                    args.len()
                );
            }
            let operand = tensor_arg(&args, 0, "operand")?;
            let indices = tensor_arg(&args, 1, "start_indices")?;
            let result_ty = result_tensor_type(result_types, 0)?;
            let out = gather::gather(operand, indices, dimension_numbers, slice_sizes, result_ty)?;
            Ok(vec![out.into()])
        }
        OpKind::Scatter {
            dimension_numbers, ..
        } => {
            if args.len() < 3 || args.len() % 2 != 1 {
                crate::bail!(
                    "takes N inputs, scatter_indices and N updates (an odd count ≥ 3), got {} operands",
                    args.len()
                );
            }
            let n = (args.len() - 1) / 2;
            let tensors = tensor_args(&args)?;
            let out = scatter::scatter(
                &tensors[..n],
                tensors[n],
                &tensors[n + 1..],
                dimension_numbers,
                result_types,
                regions,
            )?;
            Ok(out.into_iter().map(Value::from).collect())
        }
        _ => crate::bail!("{} is not an indexing op", kind.name()),
    }
}
