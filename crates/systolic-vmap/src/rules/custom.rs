//! custom_call: the annotation targets (shardings, memory placement, layout constraints) are
//! identities on a value; batched, they are dropped (their attributes describe the per-example
//! value's rank) and the value passes through. Other targets are opaque kernels with no rule.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::batch_collective::{self, Collective, Marker};
use systolic_ir::{BinaryOp, DType, GatherDimensionNumbers, Op, OpKind, Tensor, TensorType};

/// Targets that only annotate their operands (as the interpreter treats them).
const ANNOTATIONS: [&str; 8] = [
    "Sharding",
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "xla.sdy.FuncResultSharding",
    "annotate_device_placement",
    "MoveToHost",
    "MoveToDevice",
    "LayoutConstraint",
];

pub(crate) fn custom_call(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let OpKind::CustomCall {
        call_target_name, ..
    } = &op.kind
    else {
        unreachable!()
    };
    let same_types = op.operands.len() == op.results.len()
        && op
            .operands
            .iter()
            .zip(&op.results)
            .all(|(&a, &r)| cx.src.value_type(a) == cx.src.value_type(r));
    if let Some(marker) = batch_collective::read(&op.kind) {
        return named_collective(cx, op, args, marker);
    }
    if ANNOTATIONS.contains(&call_target_name.as_str()) && same_types {
        return Ok(args.to_vec());
    }
    Err(cx.err(format!(
        "target @{call_target_name} has no batching rule (an opaque kernel; only its unbatched \
         use is supported)"
    )))
}

/// A collective over the named axis being batched: the same thing across the batch dimension.
/// `psum`/`pmax`/`pmin` reduce over it (every example gets the result: unbatched), an unbatched
/// operand is the same in every example (`psum` multiplies it by the batch size);
/// `all_gather` hands every example the whole batch stacked at its axis; `psum_scatter` sums
/// over the batch and leaves the scattered axis as the new batch dimension; `ppermute` gathers
/// the examples along the batch dimension; `all_to_all` exchanges the batch dimension with
/// the pieces of its split axis; `axis_index` is each example's position. A marker over
/// another axis (an enclosing `vmap`'s) is batched here as a per-example op and left for that
/// `vmap`, as JAX's batching rules pass a collective over another frame's axis through.
fn named_collective(cx: &mut Cx, op: &Op, args: &[BVal], marker: Marker) -> Result<Vec<BVal>> {
    if cx.axis_name.as_deref() != Some(marker.axis_name.as_str()) {
        return other_axis(cx, op, args, marker);
    }
    let what = marker.collective.name();
    let n = cx.size;
    let operand = |cx: &Cx| {
        args.first()
            .copied()
            .ok_or_else(|| cx.err(format!("{what} has no operand")))
    };
    // A per-example dimension of the operand, checked against its rank.
    let dim = |cx: &Cx, d: i64, role: &str| -> Result<usize> {
        let rank = cx.src_ty(op.operands[0])?.rank() as i64;
        if d < 0 || d >= rank {
            return Err(cx.err(format!("{what} {role} {d} is out of range for rank {rank}")));
        }
        Ok(d as usize)
    };
    let out = match marker.collective {
        Collective::AxisIndex => {
            let ty = TensorType::new(vec![n], DType::I32);
            let v = cx.emit_as(OpKind::Iota { dimension: 0 }, vec![], ty)?;
            BVal::at(v, 0)
        }
        Collective::Sum | Collective::Max | Collective::Min => {
            let b = operand(cx)?;
            if !b.batched() {
                match marker.collective {
                    Collective::Sum => BVal::un(cx.mul_const(b.v, n as f64)?),
                    _ => b,
                }
            } else {
                BVal::un(reduce_batch(cx, b, &marker.collective)?)
            }
        }
        Collective::AllGather(axis) => {
            let b = operand(cx)?;
            let rank = cx.src_ty(op.operands[0])?.rank() as i64;
            if axis < 0 || axis > rank {
                return Err(cx.err(format!(
                    "all_gather axis {axis} is out of range for rank {rank}"
                )));
            }
            BVal::un(cx.materialize(b, axis as usize)?)
        }
        Collective::ReduceScatter(axis) => {
            let b = operand(cx)?;
            let axis = dim(cx, axis, "scatter_dimension")?;
            let t = cx.src_ty(op.operands[0])?;
            if t.shape[axis] != n {
                return Err(cx.err(format!(
                    "psum_scatter: dimension {axis} of {t} must have the batch size {n} of \
                     axis '{}'",
                    marker.axis_name
                )));
            }
            let summed = if b.batched() {
                reduce_batch(cx, b, &Collective::Sum)?
            } else {
                cx.mul_const(b.v, n as f64)?
            };
            BVal::at(summed, axis)
        }
        Collective::Permute(pairs) => {
            let b = operand(cx)?;
            permute(cx, b, &pairs, &marker.axis_name)?
        }
        Collective::AllToAll { split, concat } => {
            let b = operand(cx)?;
            let split = dim(cx, split, "split_axis")?;
            let concat = dim(cx, concat, "concat_axis")?;
            all_to_all(cx, op, b, split, concat, &marker.axis_name)?
        }
    };
    Ok(vec![out])
}

/// The sum (max, min) of a batched value over its batch dimension.
fn reduce_batch(cx: &mut Cx, b: BVal, collective: &Collective) -> Result<systolic_ir::ValueId> {
    let v = cx.move_to(b, 0)?;
    let dtype = cx.ty(v)?.dtype;
    let reducer = match collective {
        Collective::Max => BinaryOp::Maximum,
        Collective::Min => BinaryOp::Minimum,
        _ => BinaryOp::Add,
    };
    let init = reduce_init(cx, dtype, reducer)?;
    let region = cx.reducer(reducer, dtype)?;
    let kind = OpKind::Reduce {
        dimensions: vec![0],
    };
    Ok(cx.emit_full(kind, vec![v, init], vec![region], None)?[0])
}

/// The identity of `reducer` on `dtype`: zero for a sum; for a maximum (minimum) the lowest
/// (highest) value — infinities for floats, the integer range's ends exactly, false (true) for
/// booleans.
fn reduce_init(cx: &mut Cx, dtype: DType, reducer: BinaryOp) -> Result<systolic_ir::ValueId> {
    let max = reducer == BinaryOp::Maximum;
    if reducer == BinaryOp::Add || dtype.is_float() {
        let x = match reducer {
            BinaryOp::Add => 0.0,
            _ if max => f64::NEG_INFINITY,
            _ => f64::INFINITY,
        };
        return cx.scalar(dtype, x);
    }
    let tensor = if let Some((lo, hi)) = dtype.signed_range() {
        Tensor::from_i64(vec![], dtype, vec![if max { lo } else { hi }])
    } else if let Some(hi) = dtype.unsigned_max() {
        Tensor::from_u64(vec![], dtype, vec![if max { 0 } else { hi }])
    } else if dtype.is_bool() {
        Tensor::from_bool(vec![], vec![!max])
    } else {
        return Err(cx.err(format!(
            "pmax/pmin over a vmap axis of {} values",
            dtype.numpy_name()
        )));
    };
    let tensor = tensor.map_err(|e| cx.err(format!("internal: {e}")))?;
    cx.constant(tensor)
}

/// `ppermute` across the batch: example `t` of the result is example `s` of the operand for
/// each pair `(s, t)`, zeros where no pair targets (an unbatched operand under a full
/// permutation is unchanged). One gather of whole examples by a constant index per target
/// (JAX's `take` along the batch dimension), then the untargeted examples selected to zero.
fn permute(cx: &mut Cx, b: BVal, pairs: &[(i64, i64)], axis_name: &str) -> Result<BVal> {
    let n = cx.size;
    let mut source = vec![None; n as usize];
    for (i, &(s, t)) in pairs.iter().enumerate() {
        if !(0..n).contains(&s) || !(0..n).contains(&t) {
            return Err(cx.err(format!(
                "ppermute pair {i} ({s}, {t}) is out of range for the {n} examples of vmap \
                 axis '{axis_name}'"
            )));
        }
        if source[t as usize].is_some() || pairs[..i].iter().any(|p| p.0 == s) {
            return Err(cx.err(format!(
                "ppermute perm {pairs:?} sends from or to an example twice (it must be a \
                 partial permutation)"
            )));
        }
        source[t as usize] = Some(s);
    }
    let full = source.iter().all(Option::is_some);
    if !b.batched() && full {
        return Ok(b);
    }
    let v = cx.materialize(b, 0)?;
    if n == 0 {
        // No example to move (and no slice of one to gather).
        return Ok(BVal::at(v, 0));
    }
    let t = cx.ty(v)?;
    let rank = t.rank() as i64;
    let index: Vec<i64> = source.iter().map(|s| s.unwrap_or(0)).collect();
    let index = Tensor::from_i64(vec![n, 1], DType::I32, index)
        .map_err(|e| cx.err(format!("internal: {e}")))?;
    let index = cx.constant(index)?;
    let mut slice_sizes = t.shape.clone();
    slice_sizes[0] = 1;
    let kind = OpKind::Gather {
        dimension_numbers: GatherDimensionNumbers {
            offset_dims: (1..rank).collect(),
            collapsed_slice_dims: vec![0],
            operand_batching_dims: vec![],
            start_indices_batching_dims: vec![],
            start_index_map: vec![0],
            index_vector_dim: 1,
        },
        slice_sizes,
        indices_are_sorted: false,
    };
    let mut out = cx.emit_as(kind, vec![v, index], t.clone())?;
    if !full {
        let targeted: Vec<bool> = source.iter().map(Option::is_some).collect();
        let mask =
            Tensor::from_bool(vec![n], targeted).map_err(|e| cx.err(format!("internal: {e}")))?;
        let mask = cx.constant(mask)?;
        let zeros = cx.zeros(&t)?;
        out = cx.select_batched(mask, out, zeros)?;
    }
    Ok(BVal::at(out, 0))
}

/// `all_to_all` across the batch (JAX's primitive): example `k` gets piece `k` of every
/// example's `split` dimension, concatenated along `concat` in example order. With the batch
/// dimension `j` first and `split` cut into (piece index `k`, piece), `k` becomes the batch
/// dimension and `j` is merged into `concat` as its major part.
fn all_to_all(
    cx: &mut Cx,
    op: &Op,
    b: BVal,
    split: usize,
    concat: usize,
    axis_name: &str,
) -> Result<BVal> {
    let n = cx.size;
    let t = cx.src_ty(op.operands[0])?;
    if n == 0 || t.shape[split] % n != 0 {
        return Err(cx.err(format!(
            "all_to_all: split_axis {split} of {t} is not divisible by the {n} examples of vmap \
             axis '{axis_name}'"
        )));
    }
    let v = cx.materialize(b, 0)?;
    // [j, d0 … (k, piece) … d_{r-1}]: dimension e of the example sits at 1 + e before the
    // split and at 2 + e after it; the piece at 2 + split.
    let mut cut = vec![n];
    for (e, &d) in t.shape.iter().enumerate() {
        if e == split {
            cut.extend([n, d / n]);
        } else {
            cut.push(d);
        }
    }
    let v = cx.reshape(v, &cut)?;
    let at = |e: usize| if e < split { 1 + e } else { 2 + e };
    let concat_at = if concat == split {
        2 + split
    } else {
        at(concat)
    };
    let mut perm = vec![1 + split as i64];
    for p in 1..cut.len() {
        if p == 1 + split {
            continue;
        }
        if p == concat_at {
            perm.push(0);
        }
        perm.push(p as i64);
    }
    let v = cx.transpose(v, &perm)?;
    let mut shape = vec![n];
    for (e, &d) in t.shape.iter().enumerate() {
        let d = if e == split { d / n } else { d };
        shape.push(if e == concat { d * n } else { d });
    }
    Ok(BVal::at(cx.reshape(v, &shape)?, 0))
}

/// A marker over an axis this `vmap` does not bind: the per-example collective on each
/// example, with the batch dimension first (the collective's dimensions shifted past it) and
/// the marker kept for the `vmap` that binds its axis.
fn other_axis(cx: &mut Cx, op: &Op, args: &[BVal], marker: Marker) -> Result<Vec<BVal>> {
    let Some(&b) = args.first() else {
        // `axis_index` of the outer axis: the same for every example here.
        let ty = cx.src_ty(op.results[0])?;
        return Ok(vec![BVal::un(cx.emit_as(op.kind.clone(), vec![], ty)?)]);
    };
    let result = cx.src_ty(op.results[0])?;
    if !b.batched() {
        return Ok(vec![BVal::un(cx.emit_as(
            op.kind.clone(),
            vec![b.v],
            result,
        )?)]);
    }
    let shift = |d: i64| d + 1;
    let collective = match marker.collective {
        c @ (Collective::Sum | Collective::Max | Collective::Min | Collective::AxisIndex) => c,
        Collective::AllGather(a) => Collective::AllGather(shift(a)),
        Collective::ReduceScatter(a) => Collective::ReduceScatter(shift(a)),
        Collective::Permute(p) => Collective::Permute(p),
        Collective::AllToAll { split, concat } => Collective::AllToAll {
            split: shift(split),
            concat: shift(concat),
        },
    };
    let v = cx.move_to(b, 0)?;
    let kind = batch_collective::kind(&Marker {
        collective,
        axis_name: marker.axis_name,
    });
    let ty = cx.batched_type(&result, 0);
    Ok(vec![BVal::at(cx.emit_as(kind, vec![v], ty)?, 0)])
}
