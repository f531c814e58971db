//! Collectives and JAX's `pvary` marker (`systolic_ir::pvary`), under the convention of JAX's
//! `shard_map` with `check_vma`: in a per-device program a value is *varying* over a group of
//! devices (it may differ between them) or *invariant* (the same on each), and the cotangent
//! of a value has the value's variance. So:
//!
//! - `all_reduce` (sum; JAX's `psum`: varying → invariant) is linear; its tangent is the sum of
//!   the tangents, and its transpose is the identity (the invariant cotangent becomes every
//!   device's cotangent: JAX's psum ↔ pvary). Max, min and product reductions have no rule, as
//!   in JAX (`pmax`/`pmin` are not differentiable).
//! - `pvary` (invariant → varying, no data change): tangent `pvary` of the tangent; transpose the
//!   `all_reduce` sum over its groups.
//! - `all_gather` ↔ `reduce_scatter` (sum) over the same groups and dimension; `all_to_all` ↔
//!   `all_to_all` with the split and concat dimensions swapped; `collective_permute` ↔ the
//!   inverse permutation (a process no pair targets receives zeros, so one that sent nothing
//!   gets a zero cotangent); `collective_broadcast`: the cotangents of a group summed on its
//!   root, zeros elsewhere, by one `all_to_all` over the same groups (see [`transpose`]).
//! - `replica_id`/`partition_id` carry no tangent (the router's integer arm).
//!
//! Every collective a rule emits moves one tangent or cotangent (a variadic op becomes one op
//! per differentiated operand) and copies the source op's groups and channel mode; channel
//! handles are made unique afterwards by [`unique_channels`], over the whole function.

use super::reduce::reducer_op;
use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use std::collections::HashSet;
use systolic_ir::pvary::pvary_groups;
use systolic_ir::walk::walk_ops_mut;
use systolic_ir::{
    BinaryOp, CollectiveAttrs, ComparisonDirection, DType, Func, Op, OpKind, TensorType, Type,
    ValueId,
};

/// Tangents of a collective's (or a pvary's) results: the same op on each operand's tangent.
pub(crate) fn jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: &[ValueId],
) -> Res<Vec<Option<ValueId>>> {
    use OpKind::*;
    let sums = matches!(op.kind, AllReduce { .. } | ReduceScatter { .. });
    if sums {
        summing(op)?;
    }
    // With a dynamic root, the last operand holds each result's root (an index, no tangent).
    let roots = match &op.kind {
        CollectiveBroadcast { collective } if collective.has_dynamic_root => x.last().copied(),
        _ => None,
    };
    let mut out = vec![None; y.len()];
    for (i, &yi) in y.iter().enumerate() {
        let Some(ti) = t.get(i).copied().flatten() else {
            continue;
        };
        let ty = b.func.value_type(yi).clone();
        let ty = match ty {
            Type::Tensor(_) => ty,
            other => {
                return Err(Error::new(format!(
                    "cannot differentiate {} with a result of type {other}",
                    op.kind.name()
                )))
            }
        };
        let mut operands = vec![ti];
        if let Some(r) = roots {
            // One result: its root only.
            operands.push(b.slice(r, vec![i as i64], vec![i as i64 + 1], vec![1])?);
        }
        let regions = if sums {
            vec![b.reducer(BinaryOp::Add, b.dtype(ti))?]
        } else {
            vec![]
        };
        let kind = op.kind.clone();
        out[i] = Some(b.emit_full(kind, operands, regions, Some(vec![ty]))?[0]);
    }
    Ok(out)
}

/// Checks that an all_reduce or reduce_scatter sums.
fn summing(op: &Op) -> Res<()> {
    match op.regions.first().and_then(reducer_op) {
        Some(BinaryOp::Add) => Ok(()),
        other => {
            let what = other.map_or_else(
                || "a non-elementary".to_string(),
                |o| format!("a `{}`", o.name()),
            );
            Err(Error::new(format!(
                "cannot differentiate {} with {what} region: only sums (JAX's psum) are \
                 differentiable; like JAX's pmax and pmin, other reductions have no rule",
                op.kind.name()
            )))
        }
    }
}

/// Cotangent of the linear operand of a collective (or pvary) emitted by [`jvp`].
pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    use OpKind::*;
    let mut out = vec![None; op.operands.len()];
    if !lin.first().copied().unwrap_or(false) || op.results.len() != 1 {
        return Err(super::unsupported(op, "transpose"));
    }
    let x = op.operands[0];
    let ty = b.func.value_type(x).clone();
    let declared = Some(vec![ty.clone()]);
    let ct = match &op.kind {
        AllReduce { .. } => {
            summing(op)?;
            c
        }
        CustomCall { .. } => {
            let groups =
                pvary_groups(&op.kind).ok_or_else(|| super::unsupported(op, "transpose"))?;
            let region = b.reducer(BinaryOp::Add, b.dtype(c))?;
            let kind = AllReduce { collective: groups };
            b.emit_full(kind, vec![c], vec![region], declared)?[0]
        }
        AllGather {
            all_gather_dim,
            collective,
        } => {
            let region = b.reducer(BinaryOp::Add, b.dtype(c))?;
            let kind = ReduceScatter {
                scatter_dimension: *all_gather_dim,
                collective: collective.clone(),
            };
            b.emit_full(kind, vec![c], vec![region], declared)?[0]
        }
        ReduceScatter {
            scatter_dimension,
            collective,
        } => {
            summing(op)?;
            let kind = AllGather {
                all_gather_dim: *scatter_dimension,
                collective: collective.clone(),
            };
            b.emit_full(kind, vec![c], vec![], declared)?[0]
        }
        AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
            collective,
        } => {
            let kind = AllToAll {
                split_dimension: *concat_dimension,
                concat_dimension: *split_dimension,
                split_count: *split_count,
                collective: collective.clone(),
            };
            b.emit_full(kind, vec![c], vec![], declared)?[0]
        }
        CollectivePermute {
            source_target_pairs,
            channel_handle,
        } => {
            let kind = CollectivePermute {
                source_target_pairs: source_target_pairs.iter().map(|&(s, t)| (t, s)).collect(),
                channel_handle: *channel_handle,
            };
            b.emit_full(kind, vec![c], vec![], declared)?[0]
        }
        CollectiveBroadcast { collective } => {
            let root = match collective.has_dynamic_root {
                true => op.operands.get(1).copied(),
                false => None,
            };
            broadcast_transpose(b, op, collective, root, c)?
        }
        // The router sends only the ops above here.
        _ => return Err(super::unsupported(op, "transpose")),
    };
    out[0] = Some(ct);
    Ok(out)
}

/// The transpose of a `collective_broadcast` (every member of a group receives the root's
/// value): the root's cotangent is the sum of its group's cotangents, the others' zero. Each
/// member sends its cotangent to the root and zeros to the rest through one `all_to_all` over
/// the broadcast's own groups (the same op family, so the same groups on every grid: an
/// `all_reduce` would form other groups from the same attributes when the ids name
/// partitions); the root then sums what it received, in group order, and the others sum zeros.
/// The group size is the `all_to_all`'s split count, so the groups must be listed.
fn broadcast_transpose(
    b: &mut Builder,
    op: &Op,
    collective: &CollectiveAttrs,
    root: Option<ValueId>,
    c: ValueId,
) -> Res<ValueId> {
    let sizes: HashSet<usize> = collective
        .replica_groups
        .iter()
        .map(|g| g.iter().filter(|&&id| id != -1).count())
        .collect();
    let n = match sizes.into_iter().collect::<Vec<_>>()[..] {
        [n] if n > 0 => n as i64,
        [] => {
            return Err(Error::new(format!(
                "cannot transpose {} without replica_groups: its group size is only known on \
                 the grid it runs on",
                op.kind.name()
            )))
        }
        _ => {
            return Err(Error::new(format!(
                "cannot transpose {} whose replica_groups {:?} have different sizes",
                op.kind.name(),
                collective.replica_groups
            )))
        }
    };
    let tt = b.tt(c);
    let rank = tt.shape.len() as i64;
    let mut shape = vec![n];
    shape.extend_from_slice(&tt.shape);
    let dims: Vec<i64> = (1..=rank).collect();
    let spread = b.broadcast_in_dim(c, &shape, &dims)?;
    let slot = b.emit_as(
        OpKind::Iota { dimension: 0 },
        vec![],
        TensorType::new(shape.clone(), DType::I32),
    )?;
    let root = match root {
        Some(r) => b.reshape(r, &[])?,
        None => b.scalar(DType::I32, 0.0)?,
    };
    let root = b.broadcast_in_dim(root, &shape, &[])?;
    let to_root = b.compare(ComparisonDirection::Eq, slot, root)?;
    let zeros = b.zeros(&TensorType::new(shape.clone(), tt.dtype))?;
    let sent = b.select(to_root, spread, zeros)?;
    let kind = OpKind::AllToAll {
        split_dimension: 0,
        concat_dimension: 0,
        split_count: n,
        collective: CollectiveAttrs {
            has_dynamic_root: false,
            ..collective.clone()
        },
    };
    let got = b.emit_as(kind, vec![sent], TensorType::new(shape, tt.dtype))?;
    b.reduce_sum(got, &[0])
}

/// Gives every collective of `func` whose channel handle is already taken (by an earlier op,
/// or by a send/recv pair) a fresh one, larger than every handle in the function. The rules
/// copy the source op's channel (which decides how its groups are formed), so a transformed
/// function has several collectives on one channel until this runs; send/recv keep theirs,
/// since a pair is matched by it.
pub(crate) fn unique_channels(func: &mut Func) {
    let mut used: HashSet<i64> = HashSet::new();
    let mut max = 0;
    walk_ops_mut(&mut func.body, &mut |op, _| {
        if let Some(h) = channel_mut(&mut op.kind) {
            max = max.max(h.handle);
        }
        if let OpKind::Send { channel_handle, .. } | OpKind::Recv { channel_handle, .. } = &op.kind
        {
            max = max.max(channel_handle.handle);
            used.insert(channel_handle.handle);
        }
    });
    walk_ops_mut(&mut func.body, &mut |op, _| {
        if let Some(h) = channel_mut(&mut op.kind) {
            if h.handle > 0 && !used.insert(h.handle) {
                max += 1;
                h.handle = max;
                used.insert(max);
            }
        }
    });
}

/// The channel handle of a collective, if it has one.
fn channel_mut(kind: &mut OpKind) -> Option<&mut systolic_ir::ChannelHandle> {
    use OpKind::*;
    match kind {
        AllGather { collective, .. }
        | AllReduce { collective }
        | ReduceScatter { collective, .. }
        | AllToAll { collective, .. }
        | CollectiveBroadcast { collective } => collective.channel_handle.as_mut(),
        CollectivePermute { channel_handle, .. } => channel_handle.as_mut(),
        _ => None,
    }
}
