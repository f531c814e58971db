//! `stablehlo.scatter`: combines `updates` into copies of `inputs` at windows whose start
//! positions are read from `scatter_indices`, through the update computation region.
//!
//! Updates are applied one element at a time in row-major order of `updates[0]` (the spec leaves
//! the order to the implementation; a fixed order makes non-commutative computations
//! reproducible). The region receives `(current values..., update values...)` as rank-0 tensors.
//!
//! Out of bounds: a window whose start position puts any part of it outside the operand is
//! skipped entirely. This is what XLA does and what JAX users see (`.at[].add` with
//! `mode="drop"`, and `lax.scatter` in general); the spec's text skips out-of-bounds elements one
//! by one, which differs only for windows that straddle the edge.

use crate::bail;
use crate::error::Result;
use crate::index::{linearize, MultiIndex};
use crate::ops::reduce::operands::{
    check_dims, expect_result_type, index_at, scalars, tensor_from_scalars, ScalarFn,
};
use crate::regions::Regions;
use systolic_ir::{ScatterDimensionNumbers, Tensor, Type};

/// The checked, `usize` form of scatter's attributes.
struct Plan {
    update_window_dims: Vec<usize>,
    input_batching: Vec<usize>,
    indices_batching: Vec<usize>,
    scatter_dims_to_operand_dims: Vec<usize>,
    index_vector_dim: usize,
    /// Input dimension each update window dimension runs along.
    input_window_dims: Vec<usize>,
}

/// Evaluates a scatter of `inputs` with `updates` (one per input) at `indices`.
pub fn scatter(
    inputs: &[&Tensor],
    indices: &Tensor,
    updates: &[&Tensor],
    dn: &ScatterDimensionNumbers,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Tensor>> {
    if inputs.is_empty() || inputs.len() != updates.len() {
        bail!(
            "needs N inputs, the indices and N updates with N ≥ 1; got {} inputs and {} updates",
            inputs.len(),
            updates.len()
        );
    }
    let shape = inputs[0].shape();
    let update_shape = updates[0].shape();
    for (i, (input, update)) in inputs.iter().zip(updates).enumerate() {
        if input.shape() != shape || update.shape() != update_shape {
            bail!(
                "inputs and updates must share their shapes: input {i} is {} and update {i} is {}, input 0 is {} and update 0 is {}",
                input.ty(), update.ty(), inputs[0].ty(), updates[0].ty()
            );
        }
        if input.dtype() != update.dtype() {
            bail!(
                "input {i} {} and update {i} {} differ in element type",
                input.ty(),
                update.ty()
            );
        }
    }
    let plan = plan(shape, indices, update_shape, dn)?;
    for (i, input) in inputs.iter().enumerate() {
        let declared = crate::ops::reduce::operands::result_tensor_type(result_types, i)?;
        expect_result_type(declared, input.ty())?;
    }

    let indices_shape = indices.shape();
    let index_batch_dims: Vec<usize> = (0..indices_shape.len())
        .filter(|&d| d != plan.index_vector_dim)
        .collect();
    let update_scatter_dims: Vec<usize> = (0..update_shape.len())
        .filter(|d| !plan.update_window_dims.contains(d))
        .collect();
    // Size of the window along each input dimension (1 for inserted and batching dimensions).
    let mut window_size = vec![1i64; shape.len()];
    for (&du, &di) in plan.update_window_dims.iter().zip(&plan.input_window_dims) {
        window_size[di] = update_shape[du];
    }

    let mut results: Vec<Vec<_>> = inputs.iter().map(|t| scalars(t)).collect();
    let update_values: Vec<Vec<_>> = updates.iter().map(|t| scalars(t)).collect();
    let dtypes: Vec<_> = inputs.iter().map(|t| t.dtype()).collect();
    let mut body = ScalarFn::new(regions, 0, "update computation")?;
    let mut index_pos = vec![0i64; indices_shape.len()];
    for (update_pos, update_index) in MultiIndex::new(update_shape).enumerate() {
        for (&du, &di) in update_scatter_dims.iter().zip(&index_batch_dims) {
            index_pos[di] = update_index[du];
        }
        // Window start: the index vector, plus the batch coordinate on batching dimensions.
        let mut start = vec![0i64; shape.len()];
        for (k, &d_input) in plan.scatter_dims_to_operand_dims.iter().enumerate() {
            if plan.index_vector_dim < indices_shape.len() {
                index_pos[plan.index_vector_dim] = k as i64;
            }
            start[d_input] = index_at(indices, linearize(&index_pos, indices_shape))?;
        }
        for (&d_input, &d_indices) in plan.input_batching.iter().zip(&plan.indices_batching) {
            start[d_input] = index_pos[d_indices];
        }
        let window_fits = (0..shape.len())
            .all(|d| start[d] >= 0 && start[d].saturating_add(window_size[d]) <= shape[d]);
        if !window_fits {
            continue;
        }
        let mut result_index = start;
        for (&du, &di) in plan.update_window_dims.iter().zip(&plan.input_window_dims) {
            result_index[di] += update_index[du];
        }
        let target = linearize(&result_index, shape);
        let mut args = Vec::with_capacity(2 * inputs.len());
        for (r, &d) in results.iter().zip(&dtypes) {
            args.push((d, r[target]));
        }
        for (u, &d) in update_values.iter().zip(&dtypes) {
            args.push((d, u[update_pos]));
        }
        let new_values = body.call(&args, inputs.len())?;
        for (r, (_, v)) in results.iter_mut().zip(new_values) {
            r[target] = v;
        }
    }
    inputs
        .iter()
        .zip(results)
        .map(|(input, values)| tensor_from_scalars(input.ty().clone(), values))
        .collect()
}

/// Checks the attributes against the shapes.
fn plan(
    shape: &[i64],
    indices: &Tensor,
    update_shape: &[i64],
    dn: &ScatterDimensionNumbers,
) -> Result<Plan> {
    let rank = shape.len();
    let indices_shape = indices.shape();
    if !indices.dtype().is_integer() {
        bail!(
            "scatter_indices must have an integer element type, got {}",
            indices.ty()
        );
    }
    let ivd = dn.index_vector_dim;
    if ivd < 0 || ivd as usize > indices_shape.len() {
        bail!(
            "index_vector_dim {ivd} is out of range for scatter_indices {}",
            indices.ty()
        );
    }
    let ivd = ivd as usize;
    let index_vector_len = if ivd < indices_shape.len() {
        indices_shape[ivd]
    } else {
        1
    };
    let to_operand = check_dims(
        &dn.scatter_dims_to_operand_dims,
        rank,
        "scatter_dims_to_operand_dims",
    )?;
    if to_operand.len() as i64 != index_vector_len {
        bail!(
            "scatter_dims_to_operand_dims {:?} has {} entries but the index vectors of {} (dimension {ivd}) have {index_vector_len}",
            dn.scatter_dims_to_operand_dims, to_operand.len(), indices.ty()
        );
    }
    let update_window_dims = check_dims(
        &dn.update_window_dims,
        update_shape.len(),
        "update_window_dims",
    )?;
    let inserted = check_dims(&dn.inserted_window_dims, rank, "inserted_window_dims")?;
    let input_batching = check_dims(&dn.input_batching_dims, rank, "input_batching_dims")?;
    let indices_batching = check_dims(
        &dn.scatter_indices_batching_dims,
        indices_shape.len(),
        "scatter_indices_batching_dims",
    )?;
    if input_batching.len() != indices_batching.len() {
        bail!(
            "input_batching_dims {:?} and scatter_indices_batching_dims {:?} differ in length",
            dn.input_batching_dims,
            dn.scatter_indices_batching_dims
        );
    }
    if let Some(d) = inserted.iter().find(|d| input_batching.contains(d)) {
        bail!("dimension {d} is both an inserted_window_dim and an input_batching_dim");
    }
    for (&o, &i) in input_batching.iter().zip(&indices_batching) {
        if i == ivd {
            bail!(
                "scatter_indices_batching_dims {:?} contains index_vector_dim {ivd}",
                dn.scatter_indices_batching_dims
            );
        }
        if shape[o] != indices_shape[i] {
            bail!(
                "input batching dimension {o} (size {}) and scatter_indices batching dimension {i} (size {}) differ",
                shape[o], indices_shape[i]
            );
        }
    }
    let input_window_dims: Vec<usize> = (0..rank)
        .filter(|d| !inserted.contains(d) && !input_batching.contains(d))
        .collect();
    if input_window_dims.len() != update_window_dims.len() {
        bail!(
            "update_window_dims {:?} must have {} entries: one per input dimension that is neither inserted nor batching",
            dn.update_window_dims, input_window_dims.len()
        );
    }
    for (&du, &di) in update_window_dims.iter().zip(&input_window_dims) {
        if update_shape[du] > shape[di] {
            bail!(
                "update window dimension {du} (size {}) is larger than input dimension {di} (size {})",
                update_shape[du], shape[di]
            );
        }
    }
    let scatter_sizes: Vec<i64> = (0..indices_shape.len())
        .filter(|&d| d != ivd)
        .map(|d| indices_shape[d])
        .collect();
    let update_scatter_sizes: Vec<i64> = (0..update_shape.len())
        .filter(|d| !update_window_dims.contains(d))
        .map(|d| update_shape[d])
        .collect();
    if scatter_sizes != update_scatter_sizes {
        bail!(
            "the update scatter dimensions have sizes {update_scatter_sizes:?} but the scatter_indices batch dimensions have {scatter_sizes:?}"
        );
    }
    Ok(Plan {
        update_window_dims,
        input_batching,
        indices_batching,
        scatter_dims_to_operand_dims: to_operand,
        index_vector_dim: ivd,
        input_window_dims,
    })
}
