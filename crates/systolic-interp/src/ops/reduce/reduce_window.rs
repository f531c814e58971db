//! `stablehlo.reduce_window`: reduces every window of N inputs with a region.
//!
//! Each window is folded left to right in row-major order of the window positions, starting from
//! the init values; positions that fall on padding or base-dilation holes contribute the init
//! values, as the spec's definition (pad with the init value, then reduce) implies.

use crate::error::Result;
use crate::index::{linearize, MultiIndex};
use crate::ops::reduce::operands::{
    check_inputs_and_inits, expect_result_type, result_tensor_type, scalars, tensor_from_scalars,
    ScalarFn,
};
use crate::regions::Regions;
use systolic_ir::{ResolvedWindow, Tensor, TensorType, Type};

/// Evaluates a reduce_window of `inputs` with `inits` over `window`.
pub(crate) fn reduce_window(
    inputs: &[&Tensor],
    inits: &[&Tensor],
    window: &ResolvedWindow,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Tensor>> {
    let shape = check_inputs_and_inits(inputs, inits)?;
    let out_shape = window.output_shape(shape)?;
    let mut result_tys = Vec::with_capacity(inputs.len());
    for (i, init) in inits.iter().enumerate() {
        let declared = result_tensor_type(result_types, i)?;
        expect_result_type(declared, &TensorType::new(out_shape.clone(), init.dtype()))?;
        result_tys.push(declared.clone());
    }

    let n = inputs.len();
    let values: Vec<Vec<_>> = inputs.iter().map(|t| scalars(t)).collect();
    let mut body = ScalarFn::new(regions, 0, "body")?;
    let mut results: Vec<Vec<_>> = vec![Vec::with_capacity(result_tys[0].num_elements()); n];
    let sizes = window.sizes();
    for out_index in MultiIndex::new(&out_shape) {
        let mut acc: Vec<_> = inits.iter().map(|t| (t.dtype(), t.get(0))).collect();
        for within in MultiIndex::new(&sizes) {
            let mut args = acc.clone();
            match window.input_index(shape, &out_index, &within) {
                Some(index) => {
                    let pos = linearize(&index, shape);
                    args.extend(inputs.iter().zip(&values).map(|(t, v)| (t.dtype(), v[pos])));
                }
                None => args.extend(inits.iter().map(|t| (t.dtype(), t.get(0)))),
            }
            acc = body.call(&args, n)?;
        }
        for (r, (_, v)) in results.iter_mut().zip(acc) {
            r.push(v);
        }
    }
    result_tys
        .into_iter()
        .zip(results)
        .map(|(ty, values)| tensor_from_scalars(ty, values))
        .collect()
}
