//! `stablehlo.reduce`: folds N inputs along some dimensions with a region.
//!
//! The spec lets an implementation combine the reduced elements in any tree order; the oracle
//! fixes one: a left fold over the reduced elements in row-major order, starting from the init
//! values, `acc = body(acc..., x...)`. A backend whose float sums differ by reassociation is then
//! compared against this with a tolerance.

use crate::bail;
use crate::error::Result;
use crate::index::{linearize, MultiIndex};
use crate::ops::reduce::operands::{
    check_dims, check_inputs_and_inits, expect_result_type, result_tensor_type, scalars,
    tensor_from_scalars, ScalarFn,
};
use crate::regions::Regions;
use systolic_ir::{Tensor, TensorType, Type};

/// Evaluates a reduce of `inputs` with `inits` (one rank-0 tensor per input).
pub fn reduce(
    inputs: &[&Tensor],
    inits: &[&Tensor],
    dimensions: &[i64],
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Tensor>> {
    let shape = check_inputs_and_inits(inputs, inits)?;
    let reduced = check_dims(dimensions, shape.len(), "dimensions")?;
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !reduced.contains(d)).collect();
    let result_shape: Vec<i64> = kept.iter().map(|&d| shape[d]).collect();
    let mut result_tys = Vec::with_capacity(inputs.len());
    for (i, init) in inits.iter().enumerate() {
        let declared = result_tensor_type(result_types, i)?;
        expect_result_type(
            declared,
            &TensorType::new(result_shape.clone(), declared.dtype),
        )?;
        if declared.dtype != init.dtype() {
            bail!(
                "result {i} is declared {declared} but its init value is {}",
                init.ty()
            );
        }
        result_tys.push(declared.clone());
    }

    let n = inputs.len();
    let count = result_tys[0].num_elements();
    let mut acc: Vec<Vec<_>> = inits.iter().map(|t| vec![t.get(0); count]).collect();
    let acc_dtypes: Vec<_> = inits.iter().map(|t| t.dtype()).collect();
    let input_values: Vec<Vec<_>> = inputs.iter().map(|t| scalars(t)).collect();
    let mut body = ScalarFn::new(regions, 0, "body")?;
    let mut kept_index = vec![0i64; kept.len()];
    for (pos, index) in MultiIndex::new(shape).enumerate() {
        for (k, &d) in kept.iter().enumerate() {
            kept_index[k] = index[d];
        }
        let target = linearize(&kept_index, &result_shape);
        let mut args = Vec::with_capacity(2 * n);
        for (a, &d) in acc.iter().zip(&acc_dtypes) {
            args.push((d, a[target]));
        }
        for (v, t) in input_values.iter().zip(inputs) {
            args.push((t.dtype(), v[pos]));
        }
        let out = body.call(&args, n)?;
        for (a, (_, v)) in acc.iter_mut().zip(out) {
            a[target] = v;
        }
    }
    result_tys
        .into_iter()
        .zip(acc)
        .map(|(ty, values)| tensor_from_scalars(ty, values))
        .collect()
}
