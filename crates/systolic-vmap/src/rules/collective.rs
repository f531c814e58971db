//! Collectives and JAX's `pvary` marker (`systolic_ir::pvary`). The batch is a dimension of
//! every device's value, independent of the devices: a collective over batched operands is the
//! same collective (same groups, channel and reduction) on the batched arrays, with the batch
//! dimension moved to the front and the dimension attributes (`all_gather_dim`,
//! `scatter_dimension`, `all_to_all`'s split and concat dimensions) shifted past it. An
//! unbatched operand of a variadic collective is broadcast along the batch, so that one op
//! still moves every operand. `replica_id`/`partition_id` have no operands and stay unbatched.
//! A `collective_broadcast` with `has_dynamic_root` keeps its roots operand unbatched (batched
//! roots would send each example from another device: no rule).

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::{Op, OpKind, Type};

/// The batching rule of every collective and of pvary.
pub(crate) fn collective(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    use OpKind::*;
    let dynamic_root =
        matches!(&op.kind, CollectiveBroadcast { collective } if collective.has_dynamic_root);
    let data = if dynamic_root {
        args.len().saturating_sub(1)
    } else {
        args.len()
    };
    if args[data..].iter().any(BVal::batched) {
        return Err(cx.err(
            "its roots operand is batched (each example would be sent from another device); \
             only data operands may be batched",
        ));
    }
    let mut operands = vec![];
    for &a in &args[..data] {
        operands.push(cx.materialize(a, 0)?);
    }
    operands.extend(args[data..].iter().map(|a| a.v));
    let kind = match &op.kind {
        AllGather {
            all_gather_dim,
            collective,
        } => AllGather {
            all_gather_dim: all_gather_dim + 1,
            collective: collective.clone(),
        },
        ReduceScatter {
            scatter_dimension,
            collective,
        } => ReduceScatter {
            scatter_dimension: scatter_dimension + 1,
            collective: collective.clone(),
        },
        AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
            collective,
        } => AllToAll {
            split_dimension: split_dimension + 1,
            concat_dimension: concat_dimension + 1,
            split_count: *split_count,
            collective: collective.clone(),
        },
        // The reduction, the pairs and a pvary's groups do not refer to dimensions.
        other => other.clone(),
    };
    let regions = op
        .regions
        .iter()
        .map(|r| cx.copy_unbatched_region(r))
        .collect::<Result<Vec<_>>>()?;
    let mut declared = vec![];
    for &r in &op.results {
        let t = cx.src_ty(r)?;
        declared.push(Type::Tensor(cx.batched_type(&t, 0)));
    }
    let results = cx.emit_full(kind, operands, regions, Some(declared))?;
    Ok(results.into_iter().map(|v| BVal::at(v, 0)).collect())
}
