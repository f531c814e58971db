//! `stablehlo.map`: applies a region to the elements at each index of N inputs.

use crate::bail;
use crate::error::Result;
use crate::ops::reduce::operands::{
    expect_result_type, result_tensor_type, scalars, tensor_from_scalars, ScalarFn,
};
use crate::regions::Regions;
use systolic_ir::{Tensor, TensorType, Type};

/// Evaluates a map over `inputs`; `dimensions` must be `0..rank` in order (the spec's only
/// allowed form).
pub fn map(
    inputs: &[&Tensor],
    dimensions: &[i64],
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Tensor> {
    let Some(first) = inputs.first() else {
        bail!("needs at least one input");
    };
    let shape = first.shape();
    if let Some((i, t)) = inputs.iter().enumerate().find(|(_, t)| t.shape() != shape) {
        bail!(
            "input {i} {} and input 0 {} differ in shape",
            t.ty(),
            first.ty()
        );
    }
    let all: Vec<i64> = (0..shape.len() as i64).collect();
    if dimensions != all {
        bail!("dimensions {dimensions:?} must be {all:?} (every dimension, in order)");
    }
    let declared = result_tensor_type(result_types, 0)?;
    expect_result_type(declared, &TensorType::new(shape.to_vec(), declared.dtype))?;
    let values: Vec<Vec<_>> = inputs.iter().map(|t| scalars(t)).collect();
    let mut body = ScalarFn::new(regions, 0, "computation")?;
    let mut out = Vec::with_capacity(first.num_elements());
    for pos in 0..first.num_elements() {
        let args: Vec<_> = inputs
            .iter()
            .zip(&values)
            .map(|(t, v)| (t.dtype(), v[pos]))
            .collect();
        let (dtype, value) = body.call(&args, 1)?[0];
        if dtype != declared.dtype {
            bail!("the computation returned tensor<{dtype}> but the result is declared {declared}");
        }
        out.push(value);
    }
    tensor_from_scalars(declared.clone(), out)
}
