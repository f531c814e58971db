//! Family: shape ops — constants, iota, and ops that move elements without computing on them
//! (broadcast, reshape, transpose, slices, concatenate, pad, reverse).
//!
//! Every op here is "for each result index, which operand element (if any) goes there", so
//! they share two helpers: [`gather_affine`] for ops that read one operand element per result
//! element, and [`scatter_affine`] for ops that write operand elements into a prepared result.

mod create;
mod layout;
mod slicing;

pub use create::{constant, get_dimension_size, iota};
pub use layout::{broadcast, broadcast_in_dim, reshape, reverse, transpose};
pub use slicing::{concatenate, dynamic_slice, dynamic_update_slice, pad, slice, Padding};

use crate::error::Result;
use crate::operands::{expect_count, into_tensors, make, result_tensor, tensor};
use crate::value::Value;
use systolic_ir::{Data, OpKind, Tensor, TensorType, Type};

/// Evaluates an op of this family.
pub fn eval(kind: &OpKind, args: Vec<Value>, result_types: &[Type]) -> Result<Vec<Value>> {
    use OpKind::*;
    let out = result_tensor(result_types, 0)?;
    let result = match kind {
        Constant(value) => {
            expect_count(&args, 0)?;
            constant(value, out)?
        }
        Iota { dimension } => {
            expect_count(&args, 0)?;
            iota(*dimension, out)?
        }
        BroadcastInDim {
            broadcast_dimensions,
        } => {
            expect_count(&args, 1)?;
            broadcast_in_dim(tensor(&args, 0)?, broadcast_dimensions, out)?
        }
        Broadcast { broadcast_sizes } => {
            expect_count(&args, 1)?;
            broadcast(tensor(&args, 0)?, broadcast_sizes, out)?
        }
        Reshape => {
            expect_count(&args, 1)?;
            reshape(tensor(&args, 0)?, out)?
        }
        Transpose { permutation } => {
            expect_count(&args, 1)?;
            transpose(tensor(&args, 0)?, permutation, out)?
        }
        Slice {
            start_indices,
            limit_indices,
            strides,
        } => {
            expect_count(&args, 1)?;
            slice(
                tensor(&args, 0)?,
                start_indices,
                limit_indices,
                strides,
                out,
            )?
        }
        DynamicSlice { slice_sizes } => {
            let tensors = into_tensors(args)?;
            let Some((operand, starts)) = tensors.split_first() else {
                crate::bail!("expects an operand and start indices, got no operands");
            };
            dynamic_slice(operand, starts, slice_sizes, out)?
        }
        DynamicUpdateSlice => {
            let tensors = into_tensors(args)?;
            if tensors.len() < 2 {
                crate::bail!(
                    "expects an operand, an update and start indices, got {} operands",
                    tensors.len()
                );
            }
            dynamic_update_slice(&tensors[0], &tensors[1], &tensors[2..], out)?
        }
        Concatenate { dimension } => concatenate(&into_tensors(args)?, *dimension, out)?,
        Pad {
            edge_padding_low,
            edge_padding_high,
            interior_padding,
        } => {
            expect_count(&args, 2)?;
            let padding = Padding {
                low: edge_padding_low,
                high: edge_padding_high,
                interior: interior_padding,
            };
            pad(tensor(&args, 0)?, tensor(&args, 1)?, &padding, out)?
        }
        Reverse { dimensions } => {
            expect_count(&args, 1)?;
            reverse(tensor(&args, 0)?, dimensions, out)?
        }
        GetDimensionSize { dimension } => {
            expect_count(&args, 1)?;
            get_dimension_size(tensor(&args, 0)?, *dimension, out)?
        }
        other => crate::bail!("{} is not a shape op", other.name()),
    };
    Ok(vec![Value::Tensor(result)])
}

/// Builds a result of type `out` whose element at result index `r` is the operand element at
/// row-major position `base + Σ r[d] · steps[d]`: every op here that reads one operand element
/// per result element (broadcasts, transpose, slices, reverse) is such an affine map, and
/// walking it with a running position avoids building an index per element.
pub fn gather_affine(
    operand: &Tensor,
    out: &TensorType,
    base: i64,
    steps: &[i64],
) -> Result<Tensor> {
    let shape = &out.shape;
    let n = out.num_elements();
    let mut positions = Vec::with_capacity(n);
    if n > 0 {
        let mut index = vec![0i64; shape.len()];
        let mut position = base;
        for _ in 0..n {
            positions.push(position as usize);
            // Advance the last dimension, carrying into earlier ones.
            for d in (0..shape.len()).rev() {
                index[d] += 1;
                position += steps[d];
                if index[d] < shape[d] {
                    break;
                }
                position -= steps[d] * shape[d];
                index[d] = 0;
            }
        }
    }
    make(out.clone(), operand.data().gather(&positions))
}

/// Writes every element of `src` (of shape `src_shape`) into `dst` (of shape `dst_shape`):
/// source index `i` goes to target coordinates `origin + i · step` (per dimension), and is
/// dropped when those fall outside `dst_shape` (as `pad` crops). A running position and
/// coordinates replace an index allocation per element.
pub fn scatter_affine(
    dst: &mut Data,
    dst_shape: &[i64],
    src: &Data,
    src_shape: &[i64],
    origin: &[i64],
    step: &[i64],
) {
    let rank = src_shape.len();
    let n: i64 = src_shape.iter().product();
    if n <= 0 {
        return;
    }
    let strides: Vec<i64> = systolic_ir::row_major_strides(dst_shape)
        .iter()
        .map(|&s| s as i64)
        .collect();
    let mut index = vec![0i64; rank];
    let mut coords = origin.to_vec();
    let mut position: i64 = coords.iter().zip(&strides).map(|(c, s)| c * s).sum();
    for from in 0..n as usize {
        if coords
            .iter()
            .zip(dst_shape)
            .all(|(&c, &size)| c >= 0 && c < size)
        {
            copy_element(dst, position as usize, src, from);
        }
        for d in (0..rank).rev() {
            index[d] += 1;
            coords[d] += step[d];
            position += step[d] * strides[d];
            if index[d] < src_shape[d] {
                break;
            }
            coords[d] -= step[d] * src_shape[d];
            position -= step[d] * src_shape[d] * strides[d];
            index[d] = 0;
        }
    }
}

/// Copies element `from` of `src` into element `to` of `dst` (both of the same kind).
pub(crate) fn copy_element(dst: &mut Data, to: usize, src: &Data, from: usize) {
    match (dst, src) {
        (Data::Bool(d), Data::Bool(s)) => d[to] = s[from],
        (Data::Int(d), Data::Int(s)) => d[to] = s[from],
        (Data::UInt(d), Data::UInt(s)) => d[to] = s[from],
        (Data::Float(d), Data::Float(s)) => d[to] = s[from],
        (Data::Complex(d), Data::Complex(s)) => d[to] = s[from],
        // Callers check that the dtypes agree, so the kinds always match.
        _ => {}
    }
}

/// Checks that `dim` names a dimension of a tensor of rank `rank`.
pub fn check_dim(dim: i64, rank: usize, what: &str) -> Result<usize> {
    if dim < 0 || dim as usize >= rank {
        crate::bail!("{what} {dim} is out of range for rank {rank}");
    }
    Ok(dim as usize)
}
