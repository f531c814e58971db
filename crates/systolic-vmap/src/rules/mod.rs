//! The batching rules, one per op, in one file per op family. A rule sees the op, the batched
//! values of its operands (at least one batched, or a region capturing a batched value) and
//! returns the batched values of its results.

mod collective;
mod control;
mod conv;
mod custom;
mod custom_rule;
mod dot;
mod elementwise;
mod host_callback;
mod indexing;
mod lapack;
mod linalg;
mod reduce;
mod rng;
mod shape;
mod shardy;

use crate::builder::{BVal, Cx};
use crate::Result;
pub(crate) use custom_rule::closes_batched;
use systolic_ir::{Op, OpKind};

/// Routes an op to its rule.
pub(crate) fn batch(cx: &mut Cx, op: &Op, args: &[BVal], captures: bool) -> Result<Vec<BVal>> {
    use OpKind::*;
    let needs_plain_regions = !matches!(op.kind, While | If | Case);
    if captures && needs_plain_regions {
        return Err(cx.err(
            "its region uses a batched value defined outside it; only while, if and case \
             support that",
        ));
    }
    match &op.kind {
        Unary(_)
        | Binary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | ReducePrecision { .. }
        | ChloUnary(_)
        | ChloBinary(_)
        | Map { .. } => elementwise::elementwise(cx, op, args),
        BitcastConvert => elementwise::bitcast_convert(cx, op, args),
        BroadcastInDim {
            broadcast_dimensions,
        } => shape::broadcast_in_dim(cx, op, args, broadcast_dimensions),
        Broadcast { .. } => shape::broadcast(cx, op, args),
        Reshape => shape::reshape(cx, op, args),
        Transpose { permutation } => shape::transpose(cx, args, permutation),
        Slice {
            start_indices,
            limit_indices,
            strides,
        } => shape::slice(cx, args, start_indices, limit_indices, strides),
        Concatenate { dimension } => shape::concatenate(cx, args, *dimension),
        Pad {
            edge_padding_low,
            edge_padding_high,
            interior_padding,
        } => shape::pad(
            cx,
            args,
            edge_padding_low,
            edge_padding_high,
            interior_padding,
        ),
        Reverse { dimensions } => shape::reverse(cx, args, dimensions),
        GetDimensionSize { dimension } => shape::get_dimension_size(cx, args, *dimension),
        DynamicSlice { slice_sizes } => indexing::dynamic_slice(cx, op, args, slice_sizes),
        DynamicUpdateSlice => indexing::dynamic_update_slice(cx, args),
        Gather {
            dimension_numbers,
            slice_sizes,
            indices_are_sorted,
        } => indexing::gather(
            cx,
            op,
            args,
            dimension_numbers,
            slice_sizes,
            *indices_are_sorted,
        ),
        Scatter { .. } => indexing::scatter(cx, op, args),
        Reduce { dimensions } => reduce::reduce(cx, op, args, dimensions),
        ReduceWindow { .. } => reduce::reduce_window(cx, op, args),
        SelectAndScatter { .. } => reduce::select_and_scatter(cx, op, args),
        Sort { .. } => reduce::sort(cx, op, args),
        TopK { .. } => reduce::top_k(cx, op, args),
        DotGeneral { .. } | Dot { .. } => dot::dot(cx, op, args),
        Convolution(attrs) => conv::convolution(cx, op, args, attrs),
        Cholesky { .. } | TriangularSolve { .. } | Fft { .. } => {
            linalg::leading_batch(cx, op, args)
        }
        While => control::while_loop(cx, op, args),
        If | Case => control::branch(cx, op, args),
        OptimizationBarrier => {
            custom_rule::barrier(cx, op, args).unwrap_or_else(|| control::barrier(cx, args))
        }
        RngBitGenerator { .. } => rng::rng_bit_generator(cx, op, args),
        CustomCall { .. } if systolic_ir::pvary::is_pvary(&op.kind) => {
            collective::collective(cx, op, args)
        }
        CustomCall { .. } if systolic_ir::host_callback::is_host_callback(&op.kind) => {
            host_callback::host_callback(cx, op, args)
        }
        CustomCall { .. } if lapack::is_lapack(op) => lapack::lapack(cx, op, args),
        CustomCall { .. } => custom::custom_call(cx, op, args),
        AllGather { .. }
        | AllReduce { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. } => collective::collective(cx, op, args),
        ShardingConstraint(sharding) => shardy::sharding_constraint(cx, args, sharding),
        ManualComputation(attrs) => shardy::manual_computation(cx, op, args, attrs),
        Call { callee } => Err(cx.err(format!(
            "calls @{callee}: inline calls first (vmap_module does)"
        ))),
        // No batching rule: these ops run unbatched (copied when no operand is batched) and
        // are an error naming the op otherwise. Ops without operands (constant, iota, ids,
        // create_token, infeed) never reach this table; composites are
        // inlined first by `vmap_module`.
        Return(_)
        | Constant(_)
        | Iota { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. }
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | Rng { .. }
        | Composite { .. }
        | ReplicaId
        | PartitionId
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. }
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        | CollectiveReduce { .. }
        | UniformQuantize
        | UniformDequantize
        | RaggedDot { .. }
        | Scan { .. }
        | Fusion { .. } => Err(cx.err(
            "has no batching rule (it cannot take batched operands; only its unbatched use \
             is supported)",
        )),
    }
}
