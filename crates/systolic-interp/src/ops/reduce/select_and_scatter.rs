//! `stablehlo.select_and_scatter`: for every window of `operand`, picks one element with the
//! `select` region, then combines the window's `source` value into the result at that element
//! with the `scatter` region (the gradient of max pooling).
//!
//! Selection runs over the window's positions in row-major order, keeping the current choice
//! while `select(current, candidate)` is true. Padding positions take no part (as in XLA); a
//! window made only of padding selects nothing and its source value is dropped. Source values
//! are scattered in row-major order of `source`, starting from `init_value` everywhere.

use crate::bail;
use crate::error::Result;
use crate::index::{linearize, MultiIndex};
use crate::ops::reduce::operands::{expect_result_type, scalars, tensor_from_scalars, ScalarFn};
use crate::regions::Regions;
use systolic_ir::{ResolvedWindow, Tensor, TensorType};

/// Evaluates a select_and_scatter.
pub(crate) fn select_and_scatter(
    operand: &Tensor,
    source: &Tensor,
    init: &Tensor,
    window: &ResolvedWindow,
    result_ty: &TensorType,
    regions: &mut dyn Regions,
) -> Result<Tensor> {
    let shape = operand.shape();
    let windows = window.output_shape(shape)?;
    if source.shape() != windows.as_slice() {
        bail!(
            "source {} must have one element per window: shape {windows:?}",
            source.ty()
        );
    }
    if source.dtype() != operand.dtype() || init.dtype() != operand.dtype() {
        bail!(
            "operand {}, source {} and init value {} must share their element type",
            operand.ty(),
            source.ty(),
            init.ty()
        );
    }
    if !init.shape().is_empty() {
        bail!("init value must be rank 0, got {}", init.ty());
    }
    expect_result_type(result_ty, operand.ty())?;
    let dtype = operand.dtype();
    let values = scalars(operand);
    let sources = scalars(source);
    let selected = select_positions(&values, shape, &windows, window, dtype, regions)?;

    let mut result = vec![init.get(0); operand.num_elements()];
    let mut scatter = ScalarFn::new(regions, 1, "scatter")?;
    for (s, target) in selected.into_iter().enumerate() {
        if let Some(t) = target {
            result[t] = scatter.call(&[(dtype, result[t]), (dtype, sources[s])], 1)?[0].1;
        }
    }
    tensor_from_scalars(result_ty.clone(), result)
}

/// For each window (row-major), the linear position of the operand element `select` picks.
fn select_positions(
    values: &[systolic_ir::Scalar],
    shape: &[i64],
    windows: &[i64],
    window: &ResolvedWindow,
    dtype: systolic_ir::DType,
    regions: &mut dyn Regions,
) -> Result<Vec<Option<usize>>> {
    let mut select = ScalarFn::new(regions, 0, "select")?;
    let mut selected = Vec::new();
    let sizes = window.sizes();
    for out_index in MultiIndex::new(windows) {
        let mut current: Option<usize> = None;
        for within in MultiIndex::new(&sizes) {
            let Some(index) = window.input_index(shape, &out_index, &within) else {
                continue;
            };
            let candidate = linearize(&index, shape);
            current = match current {
                None => Some(candidate),
                Some(c) => {
                    let keep =
                        select.predicate(&[(dtype, values[c]), (dtype, values[candidate])])?;
                    Some(if keep { c } else { candidate })
                }
            };
        }
        selected.push(current);
    }
    Ok(selected)
}
