//! Shape ops: broadcast_in_dim, broadcast, reshape, transpose, slice, concatenate, pad, reverse,
//! get_dimension_size.

use crate::builder::{shift, BVal, Cx};
use crate::Result;
use systolic_ir::{DType, Op, OpKind, Tensor, TensorType};

pub(crate) fn broadcast_in_dim(
    cx: &mut Cx,
    op: &Op,
    args: &[BVal],
    dims: &[i64],
) -> Result<Vec<BVal>> {
    let x = cx.move_to(args[0], 0)?;
    let out = cx.batched_type(&cx.src_ty(op.results[0])?, 0);
    let mut new_dims = vec![0];
    new_dims.extend(dims.iter().map(|d| d + 1));
    let r = cx.broadcast_in_dim(x, &out.shape, &new_dims)?;
    Ok(vec![BVal::at(r, 0)])
}

pub(crate) fn broadcast(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let OpKind::Broadcast { broadcast_sizes } = &op.kind else {
        unreachable!()
    };
    let d = args[0].bdim.expect("batched");
    let r = cx.emit(op.kind.clone(), vec![args[0].v])?;
    Ok(vec![BVal::at(r, broadcast_sizes.len() + d)])
}

pub(crate) fn reshape(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let x = cx.move_to(args[0], 0)?;
    let out = cx.batched_type(&cx.src_ty(op.results[0])?, 0);
    let r = cx.emit_as(OpKind::Reshape, vec![x], out)?;
    Ok(vec![BVal::at(r, 0)])
}

pub(crate) fn transpose(cx: &mut Cx, args: &[BVal], perm: &[i64]) -> Result<Vec<BVal>> {
    let d = args[0].bdim.expect("batched");
    let mut p = vec![d as i64];
    p.extend(perm.iter().map(|&q| shift(q, d)));
    let r = cx.emit(OpKind::Transpose { permutation: p }, vec![args[0].v])?;
    Ok(vec![BVal::at(r, 0)])
}

pub(crate) fn slice(
    cx: &mut Cx,
    args: &[BVal],
    start: &[i64],
    limit: &[i64],
    strides: &[i64],
) -> Result<Vec<BVal>> {
    let d = args[0].bdim.expect("batched");
    let (mut s, mut l, mut st) = (start.to_vec(), limit.to_vec(), strides.to_vec());
    s.insert(d, 0);
    l.insert(d, cx.size);
    st.insert(d, 1);
    let kind = OpKind::Slice {
        start_indices: s,
        limit_indices: l,
        strides: st,
    };
    let r = cx.emit(kind, vec![args[0].v])?;
    Ok(vec![BVal::at(r, d)])
}

pub(crate) fn concatenate(cx: &mut Cx, args: &[BVal], dim: i64) -> Result<Vec<BVal>> {
    let p = args.iter().find_map(|a| a.bdim).unwrap_or(0);
    let vs = args
        .iter()
        .map(|a| cx.materialize(*a, p))
        .collect::<Result<Vec<_>>>()?;
    let r = cx.emit(
        OpKind::Concatenate {
            dimension: shift(dim, p),
        },
        vs,
    )?;
    Ok(vec![BVal::at(r, p)])
}

/// With an unbatched padding value the batch dimension gets no padding. A batched padding value
/// pads with zero and then selects, per example, the padding value where a padded mask is false.
pub(crate) fn pad(
    cx: &mut Cx,
    args: &[BVal],
    low: &[i64],
    high: &[i64],
    interior: &[i64],
) -> Result<Vec<BVal>> {
    let (x, pv) = (args[0], args[1]);
    let p = x.bdim.unwrap_or(0);
    let xv = cx.materialize(x, p)?;
    let with = |v: &[i64], fill: i64| {
        let mut v = v.to_vec();
        v.insert(p, fill);
        v
    };
    let kind = OpKind::Pad {
        edge_padding_low: with(low, 0),
        edge_padding_high: with(high, 0),
        interior_padding: with(interior, 0),
    };
    if !pv.batched() {
        let r = cx.emit(kind, vec![xv, pv.v])?;
        return Ok(vec![BVal::at(r, p)]);
    }
    let xt = cx.ty(xv)?;
    let zero = cx.scalar(xt.dtype, 0.0)?;
    let padded = cx.emit(kind.clone(), vec![xv, zero])?;
    // The mask: true where the padded value comes from x.
    let mut one_shape = xt.shape.clone();
    one_shape.remove(p);
    let ones = Tensor::splat(
        TensorType::new(one_shape, DType::Bool),
        systolic_ir::Scalar::Bool(true),
    )
    .map_err(|e| cx.err(e.to_string()))?;
    let ones = cx.constant(ones)?;
    let f = cx.scalar(DType::Bool, 0.0)?;
    let mask = cx.emit(
        OpKind::Pad {
            edge_padding_low: low.to_vec(),
            edge_padding_high: high.to_vec(),
            interior_padding: interior.to_vec(),
        },
        vec![ones, f],
    )?;
    let out_shape = cx.ty(padded)?.shape;
    let mask_dims: Vec<i64> = (0..out_shape.len() as i64)
        .filter(|&d| d != p as i64)
        .collect();
    let mask = cx.broadcast_in_dim(mask, &out_shape.clone(), &mask_dims)?;
    let pvb = cx.broadcast_in_dim(pv.v, &out_shape, &[p as i64])?;
    let r = cx.select(mask, padded, pvb)?;
    Ok(vec![BVal::at(r, p)])
}

pub(crate) fn reverse(cx: &mut Cx, args: &[BVal], dims: &[i64]) -> Result<Vec<BVal>> {
    let d = args[0].bdim.expect("batched");
    let dimensions = dims.iter().map(|&q| shift(q, d)).collect();
    let r = cx.emit(OpKind::Reverse { dimensions }, vec![args[0].v])?;
    Ok(vec![BVal::at(r, d)])
}

pub(crate) fn get_dimension_size(cx: &mut Cx, args: &[BVal], dim: i64) -> Result<Vec<BVal>> {
    let d = args[0].bdim.expect("batched");
    let r = cx.emit(
        OpKind::GetDimensionSize {
            dimension: shift(dim, d),
        },
        vec![args[0].v],
    )?;
    Ok(vec![BVal::un(r)])
}
