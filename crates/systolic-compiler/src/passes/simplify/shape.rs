//! Rules for data-movement ops: identities (a transpose by the identity permutation, a reshape,
//! broadcast, slice, pad or reverse that changes nothing, a concatenate of one operand, a
//! dynamic slice of everything) and compositions (transpose∘transpose, reshape∘reshape,
//! broadcast∘broadcast, reverse∘reverse, slice∘slice, concatenate∘concatenate). Also `get_dimension_size` (a constant), `dot` with
//! nothing to contract (zeros) and `reduce` over no dimensions (one application of its body).

use super::splat::{emit_splat, emit_splat_tensor};
use crate::rewrite::Rewriter;
use systolic_ir::{DTypeKind, Op, OpKind, ReturnKind, Scalar, Tensor, TensorType, Type, ValueId};

/// A data-movement op (reshape, transpose, reverse, slice, broadcast) of a splat is a splat of
/// its result type, written in the canonical form (a broadcast of a scalar constant) that
/// fusion generates in registers and the other rules recognise.
pub fn splat_through_data_movement(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    let (operand, _) = rw.producer(x)?;
    let canonical = matches!(op.kind, OpKind::BroadcastInDim { .. })
        && matches!(&operand.kind, OpKind::Constant(t) if t.shape().is_empty());
    if canonical {
        return None;
    }
    let (dtype, bits) = super::splat::splat_of(rw, x)?;
    let out = tensor_type(rw, op.results[0])?;
    let scalar = super::splat::scalar_from_bits(dtype, bits)?;
    Some(vec![emit_splat_tensor(rw, &out, scalar)])
}

fn tensor_type(rw: &Rewriter<'_, '_>, v: ValueId) -> Option<TensorType> {
    rw.tensor_ty(v).cloned()
}

fn is_identity_permutation(p: &[i64]) -> bool {
    p.iter().enumerate().all(|(i, &d)| d == i as i64)
}

/// `transpose(x, identity) = x`; `transpose(transpose(x, p), q) = transpose(x, p∘q)`.
pub fn transpose(rw: &mut Rewriter<'_, '_>, op: &Op, q: &[i64]) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    if is_identity_permutation(q) {
        return Some(vec![x]);
    }
    let (inner, _) = rw.producer(x)?;
    let OpKind::Transpose { permutation: p } = &inner.kind else {
        return None;
    };
    // Result dim i is inner's dim q[i], which is source dim p[q[i]].
    let composed: Vec<i64> = q
        .iter()
        .map(|&d| p.get(usize::try_from(d).ok()?).copied())
        .collect::<Option<_>>()?;
    let source = *inner.operands.first()?;
    if is_identity_permutation(&composed) {
        return Some(vec![source]);
    }
    let ty = rw.ty(op.results[0])?.clone();
    Some(vec![rw.emit1(
        OpKind::Transpose {
            permutation: composed,
        },
        vec![source],
        ty,
    )])
}

/// `reshape` to the operand's own type is the operand; `reshape(reshape(x))` is one reshape.
pub fn reshape(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    let out = rw.ty(op.results[0])?.clone();
    if rw.ty(x)? == &out {
        return Some(vec![x]);
    }
    let (inner, _) = rw.producer(x)?;
    if inner.kind != OpKind::Reshape {
        return None;
    }
    let source = *inner.operands.first()?;
    if rw.ty(source)? == &out {
        return Some(vec![source]);
    }
    Some(vec![rw.emit1(OpKind::Reshape, vec![source], out)])
}

/// An identity `broadcast_in_dim` is its operand; two in a row are one.
pub fn broadcast_in_dim(rw: &mut Rewriter<'_, '_>, op: &Op, dims: &[i64]) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    let out = rw.ty(op.results[0])?.clone();
    if rw.ty(x)? == &out && is_identity_permutation(dims) {
        return Some(vec![x]);
    }
    let (inner, _) = rw.producer(x)?;
    let OpKind::BroadcastInDim {
        broadcast_dimensions: inner_dims,
    } = &inner.kind
    else {
        return None;
    };
    // Source dim i goes to x's dim inner_dims[i], which goes to result dim dims[inner_dims[i]].
    let composed: Vec<i64> = inner_dims
        .iter()
        .map(|&d| dims.get(usize::try_from(d).ok()?).copied())
        .collect::<Option<_>>()?;
    let source = *inner.operands.first()?;
    Some(vec![rw.emit1(
        OpKind::BroadcastInDim {
            broadcast_dimensions: composed,
        },
        vec![source],
        out,
    )])
}

/// `broadcast` with no new dimensions is its operand.
pub fn broadcast(op: &Op, sizes: &[i64]) -> Option<Vec<ValueId>> {
    sizes.is_empty().then(|| vec![op.operands[0]])
}

/// A slice of everything with unit strides is its operand; a slice of a slice is one slice
/// (start s1 + s2·t1, stride t1·t2).
pub fn slice(
    rw: &mut Rewriter<'_, '_>,
    op: &Op,
    start: &[i64],
    limit: &[i64],
    strides: &[i64],
) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    let ty = tensor_type(rw, x)?;
    let whole = start.iter().all(|&s| s == 0)
        && strides.iter().all(|&s| s == 1)
        && limit == ty.shape.as_slice();
    if whole {
        return Some(vec![x]);
    }
    let (inner, _) = rw.producer(x)?;
    let OpKind::Slice {
        start_indices: s1,
        strides: t1,
        ..
    } = &inner.kind
    else {
        return None;
    };
    let out = tensor_type(rw, op.results[0])?;
    let rank = out.rank();
    if [s1.len(), t1.len(), start.len(), strides.len()] != [rank; 4] {
        return None;
    }
    let mut new_start = Vec::with_capacity(rank);
    let mut new_limit = Vec::with_capacity(rank);
    let mut new_strides = Vec::with_capacity(rank);
    for d in 0..rank {
        let first = s1[d].checked_add(start[d].checked_mul(t1[d])?)?;
        let stride = t1[d].checked_mul(strides[d])?;
        let count = out.shape[d];
        let last = if count == 0 {
            first
        } else {
            first
                .checked_add((count - 1).checked_mul(stride)?)?
                .checked_add(1)?
        };
        new_start.push(first);
        new_limit.push(last);
        new_strides.push(stride);
    }
    let source = *inner.operands.first()?;
    Some(vec![rw.emit1(
        OpKind::Slice {
            start_indices: new_start,
            limit_indices: new_limit,
            strides: new_strides,
        },
        vec![source],
        Type::Tensor(out),
    )])
}

/// A pad by nothing is its operand.
pub fn pad(op: &Op, low: &[i64], high: &[i64], interior: &[i64]) -> Option<Vec<ValueId>> {
    let none = low.iter().chain(high).chain(interior).all(|&p| p == 0);
    none.then(|| vec![op.operands[0]])
}

/// A reverse of no dimension (or only of dimensions of size ≤ 1) is its operand; reversing
/// the same dimensions twice is the identity.
pub fn reverse(rw: &Rewriter<'_, '_>, op: &Op, dims: &[i64]) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    let ty = tensor_type(rw, x)?;
    let trivial = dims.iter().all(|&d| {
        usize::try_from(d)
            .ok()
            .and_then(|d| ty.shape.get(d))
            .is_some_and(|&n| n <= 1)
    });
    if trivial {
        return Some(vec![x]);
    }
    let (inner, _) = rw.producer(x)?;
    let OpKind::Reverse {
        dimensions: inner_dims,
    } = &inner.kind
    else {
        return None;
    };
    let mut a = dims.to_vec();
    let mut b = inner_dims.clone();
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    (a == b).then(|| vec![inner.operands[0]])
}

/// A concatenate of one operand is that operand; operands that are themselves concatenates
/// along the same dimension are spliced in.
pub fn concatenate(rw: &mut Rewriter<'_, '_>, op: &Op, dim: i64) -> Option<Vec<ValueId>> {
    if op.operands.len() == 1 {
        return Some(vec![op.operands[0]]);
    }
    let mut flat = Vec::with_capacity(op.operands.len());
    let mut spliced = false;
    for &v in &op.operands {
        match rw.producer(v) {
            Some((inner, _)) if inner.kind == (OpKind::Concatenate { dimension: dim }) => {
                flat.extend_from_slice(&inner.operands);
                spliced = true;
            }
            _ => flat.push(v),
        }
    }
    if !spliced {
        return None;
    }
    let ty = rw.ty(op.results[0])?.clone();
    Some(vec![rw.emit1(
        OpKind::Concatenate { dimension: dim },
        flat,
        ty,
    )])
}

/// A dynamic slice as large as its operand starts at 0 (indices are clamped): the operand.
pub fn dynamic_slice(rw: &Rewriter<'_, '_>, op: &Op, sizes: &[i64]) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    (tensor_type(rw, x)?.shape == sizes).then(|| vec![x])
}

/// A dynamic update slice whose update is as large as the operand replaces all of it.
pub fn dynamic_update_slice(rw: &Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    let [x, update, ..] = op.operands[..] else {
        return None;
    };
    (rw.ty(x)? == rw.ty(update)?).then(|| vec![update])
}

/// `get_dimension_size` of a static shape is a constant.
pub fn get_dimension_size(rw: &mut Rewriter<'_, '_>, op: &Op, dim: i64) -> Option<Vec<ValueId>> {
    let ty = tensor_type(rw, *op.operands.first()?)?;
    let size = *ty.shape.get(usize::try_from(dim).ok()?)?;
    let out = tensor_type(rw, op.results[0])?;
    let t = Tensor::from_i64(vec![], out.dtype, vec![size]).ok()?;
    Some(vec![rw.emit_constant(t)])
}

/// A dot product that contracts a dimension of size 0 sums nothing: zeros of the result type
/// (any size-0 dimension means an empty result, which is a zero splat as well).
pub fn dot_with_empty_dimension(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    let [a, b] = op.operands[..] else {
        return None;
    };
    let has_zero = |v: ValueId| tensor_type(rw, v).is_some_and(|t| t.shape.contains(&0));
    if !has_zero(a) && !has_zero(b) {
        return None;
    }
    let out = tensor_type(rw, op.results[0])?;
    let zero = match out.dtype.kind() {
        DTypeKind::Bool => Scalar::Bool(false),
        DTypeKind::Signed => Scalar::Int(0),
        DTypeKind::Unsigned => Scalar::UInt(0),
        DTypeKind::Float => Scalar::Float(0.0),
        DTypeKind::Complex => Scalar::Complex(systolic_ir::Complex64::new(0.0, 0.0)),
    };
    Some(vec![emit_splat(rw, &out, zero)?])
}

/// A reduce over no dimensions applies its body once per element: `body(init, x)`; so does a
/// reduce over dimensions of size 1 only, on `x` reshaped to the result (the bias gradients of
/// an MLP step reduce a `1×1024` reshape over its first dimension). Done for one input whose
/// body is a single binary elementwise op of the two block arguments.
pub fn reduce_over_nothing(
    rw: &mut Rewriter<'_, '_>,
    op: &Op,
    dims: &[i64],
) -> Option<Vec<ValueId>> {
    let [x, init] = op.operands[..] else {
        return None;
    };
    let input = tensor_type(rw, x)?;
    let unit = |d: &i64| usize::try_from(*d).ok().and_then(|d| input.shape.get(d)) == Some(&1);
    if !dims.iter().all(unit) {
        return None;
    }
    let block = op.regions.first()?.blocks.first()?;
    let [acc, elem] = block.args[..] else {
        return None;
    };
    let [body, ret] = block.ops.as_slice() else {
        return None;
    };
    let OpKind::Binary(b) = body.kind else {
        return None;
    };
    if ret.kind != OpKind::Return(ReturnKind::Stablehlo) || ret.operands != body.results {
        return None;
    }
    let out = tensor_type(rw, op.results[0])?;
    let same_elements = input.dtype == out.dtype && input.num_elements() == out.num_elements();
    if !same_elements || rw.tensor_ty(acc)? != &TensorType::scalar(out.dtype) {
        return None;
    }
    let init_first = match body.operands[..] {
        [p, q] if (p, q) == (acc, elem) => true,
        [p, q] if (p, q) == (elem, acc) => false,
        _ => return None,
    };
    let x = if input == out {
        x
    } else {
        rw.emit1(OpKind::Reshape, vec![x], Type::Tensor(out.clone()))
    };
    let init_value = rw.constant(init).cloned();
    let splat_init = match init_value {
        Some(t) if out.rank() > 0 => emit_splat_tensor(rw, &out, t),
        _ if out.rank() == 0 => init,
        _ => rw.emit1(
            OpKind::BroadcastInDim {
                broadcast_dimensions: vec![],
            },
            vec![init],
            Type::Tensor(out.clone()),
        ),
    };
    let operands = if init_first {
        vec![splat_init, x]
    } else {
        vec![x, splat_init]
    };
    Some(vec![rw.emit1(
        OpKind::Binary(b),
        operands,
        Type::Tensor(out),
    )])
}
