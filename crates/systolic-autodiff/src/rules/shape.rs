//! Shape ops: broadcast, reshape, transpose, slice, reverse, pad, concatenate.

use crate::builder::{AdBuilder, Builder, Res};
use systolic_ir::{Op, OpKind, ValueId};

/// Ops linear in their one operand: the same op on the tangent.
pub(crate) fn unary_linear_jvp(
    b: &mut Builder,
    op: &Op,
    t: Option<ValueId>,
    y: ValueId,
) -> Res<Option<ValueId>> {
    let Some(t) = t else { return Ok(None) };
    let ty = b.tt(y);
    let kind = match &op.kind {
        // The deprecated `broadcast` prepends dimensions: a broadcast_in_dim (one transpose rule).
        OpKind::Broadcast { broadcast_sizes } => {
            let n = broadcast_sizes.len() as i64;
            let r = b.shape(t).len() as i64;
            OpKind::BroadcastInDim {
                broadcast_dimensions: (n..n + r).collect(),
            }
        }
        k => k.clone(),
    };
    Ok(Some(b.emit_as(kind, vec![t], ty)?))
}

pub(crate) fn pad_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Option<ValueId>> {
    if t[0].is_none() && t[1].is_none() {
        return Ok(None);
    }
    let ta = match t[0] {
        Some(v) => v,
        None => b.full_like(x[0], 0.0)?,
    };
    let tp = match t[1] {
        Some(v) => v,
        None => b.full_like(x[1], 0.0)?,
    };
    Ok(Some(b.emit(op.kind.clone(), vec![ta, tp])?))
}

pub(crate) fn concat_jvp(
    b: &mut Builder,
    dimension: i64,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Option<ValueId>> {
    if t.iter().all(Option::is_none) {
        return Ok(None);
    }
    let mut ts = vec![];
    for (i, tv) in t.iter().enumerate() {
        ts.push(match tv {
            Some(v) => *v,
            None => b.full_like(x[i], 0.0)?,
        });
    }
    Ok(Some(b.emit(OpKind::Concatenate { dimension }, ts)?))
}

pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let x = op.operands[0];
    let xs = b.shape(x);
    let mut out = vec![None; op.operands.len()];
    match &op.kind {
        OpKind::BroadcastInDim {
            broadcast_dimensions: dims,
        } => {
            let cs = b.shape(c);
            // Sum the new dimensions and the size-1 dimensions that were stretched.
            let mut sum_dims = vec![];
            for d in 0..cs.len() as i64 {
                match dims.iter().position(|&e| e == d) {
                    None => sum_dims.push(d),
                    Some(i) if xs[i] == 1 && cs[d as usize] != 1 => sum_dims.push(d),
                    _ => {}
                }
            }
            let s = b.reduce_sum(c, &sum_dims)?;
            // The kept dimensions are in increasing result order; operand order may differ.
            let kept: Vec<i64> = (0..cs.len() as i64)
                .filter(|d| !sum_dims.contains(d))
                .collect();
            let mut dims_kept: Vec<(i64, usize)> = dims
                .iter()
                .enumerate()
                .filter(|(_, d)| kept.contains(d))
                .map(|(i, &d)| (d, i))
                .collect();
            dims_kept.sort();
            // s has dims in increasing result order, i.e. operand dims in order `dims_kept`.
            let order: Vec<usize> = dims_kept.iter().map(|&(_, i)| i).collect();
            let mut sorted = order.clone();
            sorted.sort();
            let r = if order != sorted {
                // permutation: result dim j (operand order among kept) = s dim position.
                let perm: Vec<i64> = sorted
                    .iter()
                    .map(|i| order.iter().position(|o| o == i).unwrap_or(0) as i64)
                    .collect();
                b.transpose(s, &perm)?
            } else {
                s
            };
            out[0] = Some(b.reshape(r, &xs)?);
        }
        OpKind::Reshape => out[0] = Some(b.reshape(c, &xs)?),
        OpKind::Transpose { permutation } => {
            let mut inv = vec![0i64; permutation.len()];
            for (i, &p) in permutation.iter().enumerate() {
                inv[p as usize] = i as i64;
            }
            out[0] = Some(b.transpose(c, &inv)?);
        }
        OpKind::Reverse { .. } => out[0] = Some(b.emit(op.kind.clone(), vec![c])?),
        OpKind::Slice {
            start_indices,
            limit_indices: _,
            strides,
        } => {
            let cs = b.shape(c);
            let mut hi = vec![];
            for d in 0..xs.len() {
                let used = if cs[d] == 0 {
                    start_indices[d]
                } else {
                    start_indices[d] + (cs[d] - 1) * strides[d] + 1
                };
                hi.push(xs[d] - used);
            }
            let zero = b.scalar(b.dtype(c), 0.0)?;
            let interior = strides.iter().map(|s| s - 1).collect();
            out[0] = Some(b.pad(c, zero, start_indices.clone(), hi, interior)?);
        }
        OpKind::Pad {
            edge_padding_low: lo,
            edge_padding_high: hi,
            interior_padding: interior,
        } => {
            let zero = b.scalar(b.dtype(c), 0.0)?;
            let neg = |v: &Vec<i64>| v.iter().map(|x| -x).collect::<Vec<_>>();
            let unpadded = b.pad(c, zero, neg(lo), neg(hi), vec![0; lo.len()])?;
            let us = b.shape(unpadded);
            let strides = interior.iter().map(|i| i + 1).collect();
            let ct_x = b.slice(unpadded, vec![0; us.len()], us, strides)?;
            if lin[0] {
                out[0] = Some(ct_x);
            }
            if lin[1] {
                let all: Vec<i64> = (0..xs.len() as i64).collect();
                let total = b.reduce_sum(c, &all)?;
                let inner = b.reduce_sum(ct_x, &all)?;
                out[1] = Some(b.sub(total, inner)?);
            }
        }
        OpKind::Concatenate { dimension } => {
            let d = *dimension as usize;
            let cs = b.shape(c);
            let mut at = 0;
            for (i, &v) in op.operands.iter().enumerate() {
                let vs = b.shape(v);
                if lin[i] {
                    let mut start = vec![0; cs.len()];
                    let mut limit = cs.clone();
                    start[d] = at;
                    limit[d] = at + vs[d];
                    out[i] = Some(b.slice(c, start, limit, vec![1; cs.len()])?);
                }
                at += vs[d];
            }
        }
        _ => return Err(super::unsupported(op, "transpose")),
    }
    Ok(out)
}
