//! Indexing ops: dynamic_slice, dynamic_update_slice, gather, scatter (add and set), and the
//! permutation ops sort and top_k (tangents gathered through the permutation).

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::{
    BinaryOp, DType, GatherDimensionNumbers, Op, OpKind, Region, ScatterDimensionNumbers, Type,
    ValueId,
};

fn or_zero(b: &mut Builder, t: Option<ValueId>, like: ValueId) -> Res<ValueId> {
    match t {
        Some(v) => Ok(v),
        None => b.full_like(like, 0.0),
    }
}

pub(crate) fn dynamic_slice_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Option<ValueId>> {
    let Some(tv) = t[0] else { return Ok(None) };
    let mut ops = vec![tv];
    ops.extend_from_slice(&x[1..]);
    Ok(Some(b.emit(op.kind.clone(), ops)?))
}

pub(crate) fn dynamic_update_slice_jvp(
    b: &mut Builder,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Option<ValueId>> {
    if t[0].is_none() && t[1].is_none() {
        return Ok(None);
    }
    let to = or_zero(b, t[0], x[0])?;
    let tu = or_zero(b, t[1], x[1])?;
    let mut ops = vec![to, tu];
    ops.extend_from_slice(&x[2..]);
    Ok(Some(b.emit(OpKind::DynamicUpdateSlice, ops)?))
}

pub(crate) fn gather_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Option<ValueId>> {
    let Some(tv) = t[0] else { return Ok(None) };
    Ok(Some(b.emit(op.kind.clone(), vec![tv, x[1]])?))
}

/// What a scatter's update region does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Combine {
    Add,
    Set,
}

fn combine_of(r: &Region) -> Option<Combine> {
    if super::reduce::reducer_op(r) == Some(BinaryOp::Add) {
        return Some(Combine::Add);
    }
    let blk = r.entry()?;
    if blk.args.len() == 2 && blk.ops.len() == 1 && blk.ops[0].operands == [blk.args[1]] {
        return Some(Combine::Set);
    }
    None
}

fn set_region(b: &mut Builder, dtype: DType) -> Res<Region> {
    let s = Type::tensor(vec![], dtype);
    let a = b.param(s.clone());
    let c = b.param(s);
    b.region(vec![a, c], |_| Ok(vec![c]))
}

fn combine_region(b: &mut Builder, how: Combine, dtype: DType) -> Res<Region> {
    match how {
        Combine::Add => b.reducer(BinaryOp::Add, dtype),
        Combine::Set => set_region(b, dtype),
    }
}

pub(crate) fn scatter_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    if x.len() != 3 {
        return Err(Error::new(
            "cannot differentiate a stablehlo.scatter of several operands",
        ));
    }
    if t[0].is_none() && t[2].is_none() {
        return Ok(vec![None]);
    }
    let how = op.regions.first().and_then(combine_of).ok_or_else(|| {
        Error::new("cannot differentiate stablehlo.scatter with an update other than add or set")
    })?;
    let to = or_zero(b, t[0], x[0])?;
    let tu = or_zero(b, t[2], x[2])?;
    let region = combine_region(b, how, b.dtype(x[0]))?;
    Ok(vec![Some(
        b.emit_full(op.kind.clone(), vec![to, x[1], tu], vec![region], None)?[0],
    )])
}

/// Gather dimension numbers that read back what a scatter with `sd` wrote.
fn gather_of_scatter(sd: &ScatterDimensionNumbers) -> GatherDimensionNumbers {
    GatherDimensionNumbers {
        offset_dims: sd.update_window_dims.clone(),
        collapsed_slice_dims: sd.inserted_window_dims.clone(),
        operand_batching_dims: sd.input_batching_dims.clone(),
        start_indices_batching_dims: sd.scatter_indices_batching_dims.clone(),
        start_index_map: sd.scatter_dims_to_operand_dims.clone(),
        index_vector_dim: sd.index_vector_dim,
    }
}

fn scatter_of_gather(gd: &GatherDimensionNumbers) -> ScatterDimensionNumbers {
    ScatterDimensionNumbers {
        update_window_dims: gd.offset_dims.clone(),
        inserted_window_dims: gd.collapsed_slice_dims.clone(),
        input_batching_dims: gd.operand_batching_dims.clone(),
        scatter_indices_batching_dims: gd.start_indices_batching_dims.clone(),
        scatter_dims_to_operand_dims: gd.start_index_map.clone(),
        index_vector_dim: gd.index_vector_dim,
    }
}

fn scatter_add(
    b: &mut Builder,
    operand: ValueId,
    idx: ValueId,
    updates: ValueId,
    sd: ScatterDimensionNumbers,
) -> Res<ValueId> {
    let region = b.reducer(BinaryOp::Add, b.dtype(operand))?;
    Ok(b.emit_full(
        OpKind::Scatter {
            dimension_numbers: sd,
            indices_are_sorted: false,
            unique_indices: false,
        },
        vec![operand, idx, updates],
        vec![region],
        None,
    )?[0])
}

pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let n = op.operands.len();
    let mut out = vec![None; n];
    let x = op.operands[0];
    match &op.kind {
        OpKind::DynamicSlice { .. } => {
            let z = b.full_like(x, 0.0)?;
            let mut ops = vec![z, c];
            ops.extend_from_slice(&op.operands[1..]);
            out[0] = Some(b.emit(OpKind::DynamicUpdateSlice, ops)?);
        }
        OpKind::DynamicUpdateSlice => {
            let upd = op.operands[1];
            let idx = &op.operands[2..];
            if lin[0] {
                let z = b.full_like(upd, 0.0)?;
                let mut ops = vec![c, z];
                ops.extend_from_slice(idx);
                out[0] = Some(b.emit(OpKind::DynamicUpdateSlice, ops)?);
            }
            if lin[1] {
                let mut ops = vec![c];
                ops.extend_from_slice(idx);
                out[1] = Some(b.emit(
                    OpKind::DynamicSlice {
                        slice_sizes: b.shape(upd),
                    },
                    ops,
                )?);
            }
        }
        OpKind::Gather {
            dimension_numbers: gd,
            ..
        } => {
            // Out-of-range windows are dropped, as JAX's transpose (a scatter) drops them.
            let idx = op.operands[1];
            let z = b.full_like(x, 0.0)?;
            out[0] = Some(scatter_add(b, z, idx, c, scatter_of_gather(gd))?);
        }
        OpKind::Scatter {
            dimension_numbers: sd,
            ..
        } => {
            let how = op
                .regions
                .first()
                .and_then(combine_of)
                .ok_or_else(|| super::unsupported(op, "transpose"))?;
            let (idx, upd) = (op.operands[1], op.operands[2]);
            if lin[0] {
                out[0] = Some(match how {
                    Combine::Add => c,
                    Combine::Set => {
                        let z = b.full_like(upd, 0.0)?;
                        let region = set_region(b, b.dtype(c))?;
                        b.emit_full(op.kind.clone(), vec![c, idx, z], vec![region], None)?[0]
                    }
                });
            }
            if lin[2] {
                let xs = b.shape(x);
                let us = b.shape(upd);
                let mut win = sd.update_window_dims.iter();
                let slice_sizes: Vec<i64> = (0..xs.len() as i64)
                    .map(|d| {
                        if sd.inserted_window_dims.contains(&d)
                            || sd.input_batching_dims.contains(&d)
                        {
                            1
                        } else {
                            win.next().map(|&w| us[w as usize]).unwrap_or(1)
                        }
                    })
                    .collect();
                out[2] = Some(b.emit(
                    OpKind::Gather {
                        dimension_numbers: gather_of_scatter(sd),
                        slice_sizes,
                        indices_are_sorted: false,
                    },
                    vec![c, idx],
                )?);
            }
        }
        _ => return Err(super::unsupported(op, "transpose")),
    }
    Ok(out)
}

/// `take_along_axis(t, perm, dim)`: `perm` has `t`'s shape except (possibly) along `dim`.
pub(crate) fn take_along(b: &mut Builder, t: ValueId, perm: ValueId, dim: i64) -> Res<ValueId> {
    let ps = b.shape(perm);
    let r = ps.len() as i64;
    let mut is = ps.clone();
    is.push(1);
    let idx = b.reshape(perm, &is)?;
    let others: Vec<i64> = (0..r).filter(|&d| d != dim).collect();
    b.emit(
        OpKind::Gather {
            dimension_numbers: GatherDimensionNumbers {
                offset_dims: vec![],
                collapsed_slice_dims: vec![dim],
                operand_batching_dims: others.clone(),
                start_indices_batching_dims: others,
                start_index_map: vec![dim],
                index_vector_dim: r,
            },
            slice_sizes: vec![1; r as usize],
            indices_are_sorted: false,
        },
        vec![t, idx],
    )
}

pub(crate) fn sort_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: &mut [ValueId],
) -> Res<Vec<Option<ValueId>>> {
    let OpKind::Sort { dimension, .. } = &op.kind else {
        unreachable!()
    };
    let dim = if *dimension < 0 {
        *dimension + b.shape(x[0]).len() as i64
    } else {
        *dimension
    };
    // Sort an iota along with the operands to get the permutation.
    let cloned = b
        .ops
        .iter()
        .rev()
        .find(|o| o.results.as_slice() == &*y)
        .cloned()
        .ok_or_else(|| Error::new("internal: sort clone not found"))?;
    let mut region = b.copy_region(&cloned.regions[0])?;
    let s = Type::tensor(vec![], DType::I32);
    let pa = b.param(s.clone());
    let pb = b.param(s);
    if let Some(blk) = region.blocks.first_mut() {
        blk.args.push(pa);
        blk.args.push(pb);
    }
    let shape = b.shape(x[0]);
    let iota = b.emit_as(
        OpKind::Iota { dimension: dim },
        vec![],
        systolic_ir::TensorType::new(shape, DType::I32),
    )?;
    let mut operands = x.to_vec();
    operands.push(iota);
    let outs = b.emit_full(op.kind.clone(), operands, vec![region], None)?;
    let perm = outs[x.len()];
    y.copy_from_slice(&outs[..x.len()]);
    let mut ts = vec![];
    for tv in t {
        ts.push(match tv {
            Some(tv) => Some(take_along(b, *tv, perm, dim)?),
            None => None,
        });
    }
    Ok(ts)
}

pub(crate) fn top_k_jvp(
    b: &mut Builder,
    _op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: &mut [ValueId],
) -> Res<Vec<Option<ValueId>>> {
    let Some(tv) = t[0] else {
        return Ok(vec![None, None]);
    };
    let r = b.shape(x[0]).len() as i64;
    let idx = b.convert(y[1], DType::I32)?;
    Ok(vec![Some(take_along(b, tv, idx, r - 1)?), None])
}
