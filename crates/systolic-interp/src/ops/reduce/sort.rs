//! `stablehlo.sort`: sorts N inputs together along one dimension with a comparator region.
//!
//! The comparator receives `(lhs_0, rhs_0, lhs_1, rhs_1, …)` and answers "lhs before rhs". Both
//! `is_stable` settings sort stably here (an unstable sort may return any order of equal
//! elements, so the stable order is one valid answer, and a reproducible one). A merge sort is
//! used because the comparator is a region that can fail, which `slice::sort_by` cannot express.

use crate::bail;
use crate::error::Result;
use crate::index::{linearize, MultiIndex};
use crate::ops::reduce::operands::{
    expect_result_type, result_tensor_type, scalars, tensor_from_scalars, ScalarFn,
};
use crate::regions::Regions;
use systolic_ir::{Tensor, Type};

/// Evaluates a sort of `inputs` along `dimension` (negative counts from the end).
pub fn sort(
    inputs: &[&Tensor],
    dimension: i64,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Tensor>> {
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
    let rank = shape.len() as i64;
    let dim = if dimension < 0 {
        dimension + rank
    } else {
        dimension
    };
    if dim < 0 || dim >= rank {
        bail!("dimension {dimension} is out of range for {}", first.ty());
    }
    let dim = dim as usize;
    for (i, t) in inputs.iter().enumerate() {
        expect_result_type(result_tensor_type(result_types, i)?, t.ty())?;
    }

    let values: Vec<Vec<_>> = inputs.iter().map(|t| scalars(t)).collect();
    let dtypes: Vec<_> = inputs.iter().map(|t| t.dtype()).collect();
    let mut results = values.clone();
    let mut comparator = ScalarFn::new(regions, 0, "comparator")?;
    // Every slice along `dim`: iterate the other dimensions with `dim` fixed to 0.
    let mut outer = shape.to_vec();
    outer[dim] = 1;
    let len = shape[dim] as usize;
    for start in MultiIndex::new(&outer) {
        let positions: Vec<usize> = (0..len)
            .map(|k| {
                let mut index = start.clone();
                index[dim] = k as i64;
                linearize(&index, shape)
            })
            .collect();
        let mut less = |a: usize, b: usize| -> Result<bool> {
            let mut args = Vec::with_capacity(2 * values.len());
            for (v, &d) in values.iter().zip(&dtypes) {
                args.push((d, v[a]));
                args.push((d, v[b]));
            }
            comparator.predicate(&args)
        };
        let order = stable_sort(positions.clone(), &mut less)?;
        for (r, v) in results.iter_mut().zip(&values) {
            for (&dst, &src) in positions.iter().zip(&order) {
                r[dst] = v[src];
            }
        }
    }
    inputs
        .iter()
        .zip(results)
        .map(|(t, values)| tensor_from_scalars(t.ty().clone(), values))
        .collect()
}

/// Sorts `items` stably by a fallible "a before b" predicate (top-down merge sort).
pub(crate) fn stable_sort(
    items: Vec<usize>,
    less: &mut dyn FnMut(usize, usize) -> Result<bool>,
) -> Result<Vec<usize>> {
    if items.len() <= 1 {
        return Ok(items);
    }
    let mut left = items;
    let right = left.split_off(left.len() / 2);
    let left = stable_sort(left, less)?;
    let right = stable_sort(right, less)?;
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        // Take from the right only when it is strictly before the left: equal elements keep
        // their original order.
        if less(right[j], left[i])? {
            merged.push(right[j]);
            j += 1;
        } else {
            merged.push(left[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&left[i..]);
    merged.extend_from_slice(&right[j..]);
    Ok(merged)
}
