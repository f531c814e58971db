//! Indexing ops: dynamic_slice, dynamic_update_slice, gather, scatter (add and set), and the
//! permutation ops sort and top_k (tangents gathered through the permutation).

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::{
    BinaryOp, ComparisonDirection, DType, Data, GatherDimensionNumbers, Op, OpKind, Region,
    ScatterDimensionNumbers, Tensor, TensorType, Type, ValueId,
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
    /// maximum or minimum.
    Extremal,
    Mul,
}

fn combine_of(r: &Region) -> Option<Combine> {
    match super::reduce::reducer_op(r) {
        Some(BinaryOp::Add) => return Some(Combine::Add),
        Some(BinaryOp::Maximum | BinaryOp::Minimum) => return Some(Combine::Extremal),
        Some(BinaryOp::Multiply) => return Some(Combine::Mul),
        _ => {}
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
        Combine::Mul => b.reducer(BinaryOp::Multiply, dtype),
        Combine::Extremal => Err(Error::new(
            "internal: an extremal scatter's tangent is an additive scatter",
        )),
    }
}

pub(crate) fn scatter_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: &[ValueId],
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
        Error::new(
            "cannot differentiate stablehlo.scatter with an update other than add, replace, \
             multiply, maximum or minimum",
        )
    })?;
    if let OpKind::Scatter {
        dimension_numbers: sd,
        unique_indices,
        ..
    } = &op.kind
    {
        if how == Combine::Set && !unique_indices {
            return Ok(vec![Some(scatter_set_jvp(b, op, sd, x, t)?)]);
        }
        if how == Combine::Extremal {
            return Ok(vec![Some(scatter_extremal_jvp(b, sd, x, t, y[0])?)]);
        }
        if how == Combine::Mul {
            return Ok(vec![scatter_mul_jvp(b, op, sd, *unique_indices, x, t)?]);
        }
    }
    let to = or_zero(b, t[0], x[0])?;
    let tu = or_zero(b, t[2], x[2])?;
    let region = combine_region(b, how, b.dtype(x[0]))?;
    Ok(vec![Some(
        b.emit_full(op.kind.clone(), vec![to, x[1], tu], vec![region], None)?[0],
    )])
}

/// The tangent of a replacing scatter whose indices may repeat, as JAX's `_scatter_jvp`.
///
/// With duplicate indices one update wins each location; the tangent there must be the
/// winner's alone, and an overwritten operand element gets none. A tangent that is itself a
/// replacing scatter would be right in forward mode, but its transpose (a gather) would hand
/// every duplicate the whole cotangent. So the winners are made explicit: the same scatter
/// (same indices and dimension numbers, hence the same winner on any backend that picks it
/// from the indices alone, as ours do: the last in row-major order) writes `1 + ` the number
/// of each update into zeros; a location still 0 kept its operand element, and an update won
/// wherever gathering those numbers back gives its own. The tangent is then an additive
/// scatter of the masked tangents, linear with the ordinary transposes (an update that
/// lands out of bounds is dropped by the scatter, so its number is never read back and its
/// mask is false). The primal is the original scatter, so values are unchanged.
fn scatter_set_jvp(
    b: &mut Builder,
    op: &Op,
    sd: &ScatterDimensionNumbers,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<ValueId> {
    let (operand, idx, upd) = (x[0], x[1], x[2]);
    let us = b.shape(upd);
    let scatter_dims: Vec<i64> = (0..us.len() as i64)
        .filter(|d| !sd.update_window_dims.contains(d))
        .collect();
    let sizes: Vec<i64> = scatter_dims.iter().map(|&d| us[d as usize]).collect();
    let count: i64 = sizes.iter().product();
    let id_type = if count < i64::from(i32::MAX) {
        DType::I32
    } else {
        DType::I64
    };
    // The number of each update (1-based), the same over its window.
    let iota = b.emit_as(
        OpKind::Iota { dimension: 0 },
        vec![],
        TensorType::new(vec![count], id_type),
    )?;
    let ids = b.add_const(iota, 1.0)?;
    let ids = b.reshape(ids, &sizes)?;
    let ids = b.broadcast_in_dim(ids, &us, &scatter_dims)?;
    let none = b.zeros(&TensorType::new(b.shape(operand), id_type))?;
    let region = set_region(b, id_type)?;
    let winners = b.emit_full(op.kind.clone(), vec![none, idx, ids], vec![region], None)?[0];
    let to = match t[0] {
        Some(to) => {
            let kept = b.compare(ComparisonDirection::Eq, winners, none)?;
            let zero = b.full_like(to, 0.0)?;
            Some(b.select(kept, to, zero)?)
        }
        None => None,
    };
    let Some(tu) = t[2] else {
        return to.ok_or_else(|| Error::new("internal: scatter tangent of nothing"));
    };
    let back = gather_back(b, sd, winners, idx, &us)?;
    let won = b.compare(ComparisonDirection::Eq, back, ids)?;
    let zero = b.full_like(tu, 0.0)?;
    let tu = b.select(won, tu, zero)?;
    let to = or_zero(b, to, operand)?;
    scatter_add(b, to, idx, tu, sd.clone())
}

/// The tangent of a scatter with maximum or minimum, as JAX's `_scatter_extremal_jvp`: each
/// location's tangent is the average of the tangents of the values that tie for its result
/// (the updates equal to it, and the operand element if it equals it too), like the tangent
/// of `max` over ties. Written as an additive scatter of `g_updates * updates_coef +
/// gather(g_operand) * operand_coef` into `g_operand`, with primal coefficients counted by
/// additive scatters of ones; linear in the tangents, so reverse mode transposes it.
fn scatter_extremal_jvp(
    b: &mut Builder,
    sd: &ScatterDimensionNumbers,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: ValueId,
) -> Res<ValueId> {
    let (operand, idx, upd) = (x[0], x[1], x[2]);
    let us = b.shape(upd);
    let go = or_zero(b, t[0], operand)?;
    let gu = or_zero(b, t[2], upd)?;
    let initial = gather_back(b, sd, operand, idx, &us)?;
    let target = gather_back(b, sd, y, idx, &us)?;
    let won = b.compare(ComparisonDirection::Eq, upd, target)?;
    let kept = b.compare(ComparisonDirection::Eq, initial, target)?;
    let ones = b.full_like(upd, 1.0)?;
    let zeros = b.full_like(upd, 0.0)?;
    let none = b.full_like(operand, 0.0)?;
    let won_ones = b.select(won, ones, zeros)?;
    let count = scatter_add(b, none, idx, won_ones, sd.clone())?;
    let n_won = gather_back(b, sd, count, idx, &us)?;
    let refs = scatter_add(b, none, idx, ones, sd.clone())?;
    let n_refs = gather_back(b, sd, refs, idx, &us)?;
    let n_won1 = b.add_const(n_won, 1.0)?;
    let inv_won1 = b.div(ones, n_won1)?;
    let inv_won = b.div(ones, n_won)?;
    let upd_norm = b.select(kept, inv_won1, inv_won)?;
    let upd_coef = b.select(won, upd_norm, zeros)?;
    let op_norm = b.select(kept, inv_won1, zeros)?;
    let op_coef = b.add_const(op_norm, -1.0)?;
    let op_coef = b.div(op_coef, n_refs)?;
    let g_target = gather_back(b, sd, go, idx, &us)?;
    let a = b.mul(g_target, op_coef)?;
    let c = b.mul(gu, upd_coef)?;
    let tu = b.add(a, c)?;
    scatter_add(b, go, idx, tu, sd.clone())
}

/// The tangent of a multiplying scatter, as JAX's: the operand's tangent is scaled by the
/// same product of updates (a multiplying scatter of the tangent, linear in it); the
/// updates' tangent `x · scatter_add(0, i, u̇)` is right only when no index repeats (with
/// duplicates it would need the product of the other updates), so, as JAX, it requires
/// `unique_indices`.
fn scatter_mul_jvp(
    b: &mut Builder,
    op: &Op,
    sd: &ScatterDimensionNumbers,
    unique: bool,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Option<ValueId>> {
    let (operand, idx, upd) = (x[0], x[1], x[2]);
    let mut out = None;
    if let Some(go) = t[0] {
        let region = b.reducer(BinaryOp::Multiply, b.dtype(go))?;
        out = Some(b.emit_full(op.kind.clone(), vec![go, idx, upd], vec![region], None)?[0]);
    }
    if let Some(gu) = t[2] {
        if !unique {
            return Err(Error::new(format!(
                "cannot differentiate stablehlo.scatter with multiply ({} operand, {} \
                 updates) with respect to its updates unless unique_indices is set (as JAX)",
                b.tt(operand),
                b.tt(upd)
            )));
        }
        let none = b.full_like(operand, 0.0)?;
        let s = scatter_add(b, none, idx, gu, sd.clone())?;
        let d = b.mul(operand, s)?;
        out = b.add_opt(out, Some(d))?;
    }
    Ok(out)
}

/// The window a scatter writes along each operand dimension (of rank `rank`), for updates of
/// shape `us`: 1 along inserted and batching dimensions.
fn window_sizes(sd: &ScatterDimensionNumbers, rank: usize, us: &[i64]) -> Vec<i64> {
    let mut win = sd.update_window_dims.iter();
    (0..rank as i64)
        .map(|d| {
            if sd.inserted_window_dims.contains(&d) || sd.input_batching_dims.contains(&d) {
                1
            } else {
                win.next().map(|&w| us[w as usize]).unwrap_or(1)
            }
        })
        .collect()
}

/// Which elements of a scatter's updates (shape `us`) land in the operand (shape `xs`): the
/// scatter skips a window whose start does not leave room for it, while a gather clamps the
/// start, so reading cotangents back with a gather must zero the skipped windows (JAX's
/// transpose reads them with a gather in `FILL_OR_DROP` mode, which is this mask).
fn in_bounds(
    b: &mut Builder,
    sd: &ScatterDimensionNumbers,
    xs: &[i64],
    idx: ValueId,
    us: &[i64],
) -> Res<ValueId> {
    let mut is = b.shape(idx);
    let ivd = sd.index_vector_dim as usize;
    let mut idx = b.convert(idx, DType::I64)?;
    if ivd == is.len() {
        is.push(1);
        idx = b.reshape(idx, &is)?;
    }
    let sizes = window_sizes(sd, xs.len(), us);
    let upper: Vec<i64> = sd
        .scatter_dims_to_operand_dims
        .iter()
        .map(|&d| xs[d as usize] - sizes[d as usize])
        .collect();
    let upper = Tensor::new(
        TensorType::new(vec![upper.len() as i64], DType::I64),
        Data::Int(upper),
    )
    .map_err(|e| Error::new(format!("internal: scatter bounds: {e}")))?;
    let upper = b.constant(upper)?;
    let upper = b.broadcast_in_dim(upper, &is, &[ivd as i64])?;
    let zero = b.full_like(idx, 0.0)?;
    let ge = b.compare(ComparisonDirection::Ge, idx, zero)?;
    let le = b.compare(ComparisonDirection::Le, idx, upper)?;
    let ok = b.binary(BinaryOp::And, ge, le)?;
    let yes = b.scalar(DType::Bool, 1.0)?;
    let region = b.reducer(BinaryOp::And, DType::Bool)?;
    let ok = b.emit_full(
        OpKind::Reduce {
            dimensions: vec![ivd as i64],
        },
        vec![ok, yes],
        vec![region],
        None,
    )?[0];
    let scatter_dims: Vec<i64> = (0..us.len() as i64)
        .filter(|d| !sd.update_window_dims.contains(d))
        .collect();
    b.broadcast_in_dim(ok, us, &scatter_dims)
}

/// The gather that reads, for each element of a scatter's updates (shape `us`), the element
/// of `from` (shaped like the scatter's operand) it was scattered to (clamped into bounds
/// where the scatter skipped the window: see [`in_bounds`]).
fn gather_back(
    b: &mut Builder,
    sd: &ScatterDimensionNumbers,
    from: ValueId,
    idx: ValueId,
    us: &[i64],
) -> Res<ValueId> {
    let xs = b.shape(from);
    let slice_sizes = window_sizes(sd, xs.len(), us);
    b.emit(
        OpKind::Gather {
            dimension_numbers: gather_of_scatter(sd),
            slice_sizes,
            indices_are_sorted: false,
        },
        vec![from, idx],
    )
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
                    Combine::Extremal => return Err(super::unsupported(op, "transpose")),
                    // Linear in the operand with the updates (primal) as factors.
                    Combine::Mul => {
                        let region = b.reducer(BinaryOp::Multiply, b.dtype(c))?;
                        b.emit_full(op.kind.clone(), vec![c, idx, upd], vec![region], None)?[0]
                    }
                    Combine::Set => {
                        let z = b.full_like(upd, 0.0)?;
                        let region = set_region(b, b.dtype(c))?;
                        b.emit_full(op.kind.clone(), vec![c, idx, z], vec![region], None)?[0]
                    }
                });
            }
            if lin[2] && how == Combine::Mul {
                return Err(Error::new(
                    "internal: a multiplying scatter is not linear in its updates",
                ));
            }
            if lin[2] {
                // (A replacing scatter is linear here only with unique indices: the JVP
                // rule masks duplicates into an additive one.)
                let us = b.shape(upd);
                let g = gather_back(b, sd, c, idx, &us)?;
                let xs = b.shape(x);
                let landed = in_bounds(b, sd, &xs, idx, &us)?;
                let zero = b.full_like(g, 0.0)?;
                out[2] = Some(b.select(landed, g, zero)?);
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
