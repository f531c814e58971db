//! Per-op sharding rules: how each dimension of an op's operands and results maps to
//! *factors*, einsum-like (`dot_general`: `(b,i,k),(b,k,j)->(b,i,j)`). Propagation moves mesh
//! axes along factors, never along dimensions directly, so one algorithm serves every op.
//!
//! A dimension maps to a list of factors, major to minor: one for most ops, several where a
//! reshape merges or splits dimensions (compound factors, [`reshape`]). A factor is
//!
//! - **pass**: sharding it splits operands and results alike (batch and free dimensions of a
//!   dot, kept dimensions of a reduce, every dimension of an elementwise op);
//! - **reduction**: present in operands only and summed over (a dot's contracting dimensions,
//!   a reduce's reduced dimensions): sharded, each device computes a partial result and the
//!   partitioner adds an all-reduce or reduce-scatter over its axes;
//! - **windowed**: split alike in operands and results, but the op's window reads across
//!   pieces (a convolution's spatial dimensions, a pooling or cumulative window): the
//!   partitioner exchanges halos (`spmd_partitioner::windows`);
//! - **blocked**: the op needs the whole extent of this operand dimension (the dimension a
//!   slice, pad, concatenate, sort or window touches; every operand dimension of a barrier):
//!   never propagated, and a sharded operand is resharded to replicated along it.
//!
//! A factor present in one tensor only (a result dimension a slice creates, a constant's
//! dimensions) is free: users may shard it, nothing flows through the op.
//!
//! Ops that only pass values around (while, if/case, optimization_barrier, the entry's
//! return, sdy.sharding_constraint, sdy.manual_computation's boundary) are data-flow edges:
//! identity rules between the values that must be held alike ([`dataflow`]).
//!
//! The match in [`op_steps`] lists every [`OpKind`] without a catch-all arm, so a new op
//! does not compile until it is taught here.

mod build;
mod dataflow;
mod indexing;
mod linalg;
mod reshape;

pub(crate) use build::shape_of;
use build::{barrier, elementwise, independent, pass_or_touched};
use systolic_ir::{Func, Op, OpKind, ReturnKind, SdySharding, ValueId};

/// What sharding a factor means for the op; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactorKind {
    /// Split alike in every tensor that has it.
    Pass,
    /// Summed over: absent from the results; sharded means partial results.
    Reduction,
    /// Needed whole by the op in this operand: not propagated.
    Blocked,
    /// Split alike in operands and results, but the op reads across the pieces (a window
    /// sliding along the dimension): the partitioner exchanges halos with neighbours, runs
    /// a cumulative window as a local one plus the earlier pieces' totals, or gathers the
    /// dimension where pieces do not line up. Propagates from the stage reductions do.
    Windowed,
}

/// One factor of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Factor {
    /// Its size (a dimension size, or a part of one for a reshape).
    pub size: i64,
    /// What sharding it means.
    pub kind: FactorKind,
}

/// What an op is for propagation's op-based priorities: ops that pass values through
/// unchanged in shape propagate first, dots and reductions last (Shardy's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    /// Elementwise ops, reshape, transpose, data-flow edges.
    PassThrough,
    /// dynamic_slice and dynamic_update_slice: pass-through forward only.
    ForwardPassThrough,
    /// broadcast_in_dim and broadcast: only backward (a user's sharding into the operand)
    /// until the last stage, so a small operand does not impose its sharding on a large
    /// result first.
    Broadcast,
    /// Everything else (dots, reductions, gathers, barriers).
    Other,
}

/// An op's sharding rule: its factors and, per operand and result, per dimension, the
/// factors it is made of (major to minor; a non-tensor has no dimensions).
#[derive(Clone, Debug, PartialEq)]
pub struct OpRule {
    /// The factors.
    pub factors: Vec<Factor>,
    /// Per operand, per dimension: factor indices.
    pub operands: Vec<Vec<Vec<usize>>>,
    /// Per result, per dimension: factor indices.
    pub results: Vec<Vec<Vec<usize>>>,
    /// Its op-based priority class.
    pub class: OpClass,
}

/// A tensor a rule relates.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorRef {
    /// A value of the entry.
    Value(ValueId),
    /// The entry's `i`-th result as its signature annotates it.
    FuncResult(usize),
    /// A sharding an op fixes (a manual computation's `in_shardings`).
    Fixed(SdySharding),
}

/// Where a value must be converted when it is held otherwise than a rule needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// Operand `k` of the op.
    Operand(usize),
    /// Result `k` of the op: computed under the op's factor shardings, held as propagated.
    Result(usize),
    /// Operand `k` of the terminator of the op's region `r` (a while body's or a branch's
    /// return).
    RegionReturn(usize, usize),
    /// Nowhere: the tensor is defined by the op (a region argument) or fixed.
    None,
}

/// One application of a rule: the tensors on its operand side (sources when propagating
/// forward) and result side, with where each is converted if it must be.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The rule.
    pub rule: OpRule,
    /// Operand-side tensors, one per `rule.operands` entry.
    pub operands: Vec<TensorRef>,
    /// Result-side tensors, one per `rule.results` entry.
    pub results: Vec<TensorRef>,
    /// Per operand-side tensor: where a reshard goes.
    pub operand_sites: Vec<Site>,
    /// Per result-side tensor: where a reshard goes.
    pub result_sites: Vec<Site>,
}

/// The rule applications of `op` (one for most ops; one per data-flow edge for control
/// flow; none for a region's own terminator, which its parent's edges cover). `top_level`
/// is whether the op is in the entry's body block (where `func.return` meets the entry's
/// result shardings).
pub fn op_steps(op: &Op, func: &Func, top_level: bool) -> Result<Vec<Step>, String> {
    use OpKind::*;
    let touched = |passes: Vec<bool>, class: OpClass| -> Result<Vec<Step>, String> {
        let data: Vec<usize> = (0..op.operands.len()).collect();
        Ok(vec![pass_or_touched(op, func, &data, &passes, class)])
    };
    let operand_shape = |k: usize| {
        op.operands
            .get(k)
            .and_then(|&v| shape_of(func, v))
            .unwrap_or_default()
    };
    match &op.kind {
        Return(ReturnKind::Func) if top_level => Ok(dataflow::func_return(op, func)),
        // A region's terminator: its parent's data-flow edges (while, if, case) relate its
        // operands; in reduce-like bodies they are scalars.
        Return(_) => Ok(vec![]),
        Unary(_)
        | Binary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | ReducePrecision { .. }
        | ChloUnary(_)
        | ChloBinary(_)
        | Map { .. } => Ok(vec![elementwise(op, func, OpClass::PassThrough)]),
        BitcastConvert => Ok(vec![reshape::bitcast_convert(op, func)]),
        Constant(_)
        | Iota { .. }
        | GetDimensionSize { .. }
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | ReplicaId
        | PartitionId
        | Rng { .. } => Ok(vec![independent(op, func)]),
        BroadcastInDim {
            broadcast_dimensions,
        } => reshape::broadcast_in_dim(op, func, broadcast_dimensions).map(|s| vec![s]),
        Broadcast { broadcast_sizes } => {
            let dims: Vec<i64> = (0..operand_shape(0).len() as i64)
                .map(|d| d + broadcast_sizes.len() as i64)
                .collect();
            reshape::broadcast_in_dim(op, func, &dims).map(|s| vec![s])
        }
        Reshape => Ok(vec![reshape::reshape(op, func)]),
        Transpose { permutation } => reshape::transpose(op, func, permutation).map(|s| vec![s]),
        Slice {
            start_indices,
            limit_indices,
            strides,
        } => {
            let shape = operand_shape(0);
            let passes: Vec<bool> = (0..shape.len())
                .map(|d| {
                    start_indices.get(d) == Some(&0)
                        && limit_indices.get(d) == Some(&shape[d])
                        && strides.get(d).is_none_or(|&s| s == 1)
                })
                .collect();
            touched(passes, OpClass::Other)
        }
        DynamicSlice { slice_sizes } => {
            let shape = operand_shape(0);
            let passes: Vec<bool> = (0..shape.len())
                .map(|d| slice_sizes.get(d) == Some(&shape[d]))
                .collect();
            Ok(vec![pass_or_touched(
                op,
                func,
                &[0],
                &passes,
                OpClass::ForwardPassThrough,
            )])
        }
        DynamicUpdateSlice => {
            let (shape, update) = (operand_shape(0), operand_shape(1));
            let passes: Vec<bool> = (0..shape.len())
                .map(|d| update.get(d) == Some(&shape[d]))
                .collect();
            Ok(vec![pass_or_touched(
                op,
                func,
                &[0, 1],
                &passes,
                OpClass::ForwardPassThrough,
            )])
        }
        Concatenate { dimension } => {
            let rank = operand_shape(0).len();
            touched(
                (0..rank).map(|d| d as i64 != *dimension).collect(),
                OpClass::Other,
            )
        }
        Pad {
            edge_padding_low,
            edge_padding_high,
            interior_padding,
        } => {
            let rank = operand_shape(0).len();
            let passes: Vec<bool> = (0..rank)
                .map(|d| {
                    [edge_padding_low, edge_padding_high, interior_padding]
                        .iter()
                        .all(|p| p.get(d).is_none_or(|&x| x == 0))
                })
                .collect();
            Ok(vec![pass_or_touched(
                op,
                func,
                &[0],
                &passes,
                OpClass::Other,
            )])
        }
        Reverse { dimensions } => {
            let rank = operand_shape(0).len();
            touched(
                (0..rank)
                    .map(|d| !dimensions.contains(&(d as i64)))
                    .collect(),
                OpClass::Other,
            )
        }
        Sort { dimension, .. } => {
            let rank = operand_shape(0).len() as i64;
            let dim = if *dimension < 0 {
                dimension + rank
            } else {
                *dimension
            };
            touched((0..rank).map(|d| d != dim).collect(), OpClass::Other)
        }
        // Windows that tile a dimension let its split pass (halos, cumulative windows: the
        // partitioner's `windows`); others need it whole.
        ReduceWindow { window } => linalg::reduce_window(op, func, window).map(|s| vec![s]),
        // Non-overlapping windows (max pooling's gradient) let their split pass.
        SelectAndScatter { window } => {
            linalg::select_and_scatter(op, func, window).map(|s| vec![s])
        }
        Reduce { dimensions } => Ok(vec![linalg::reduce(op, func, dimensions)]),
        DotGeneral {
            dimension_numbers, ..
        } => linalg::dot_general(op, func, dimension_numbers).map(|s| vec![s]),
        Dot { .. } => linalg::dot(op, func).map(|s| vec![s]),
        Convolution(attrs) => linalg::convolution(op, func, attrs).map(|s| vec![s]),
        TriangularSolve { .. } | Cholesky { .. } => {
            // Batch dimensions pass; the matrices are needed whole.
            let rank = operand_shape(0).len();
            touched((0..rank).map(|d| d + 2 < rank).collect(), OpClass::Other)
        }
        Fft { fft_length, .. } => {
            let rank = operand_shape(0).len();
            touched(
                (0..rank).map(|d| d + fft_length.len() < rank).collect(),
                OpClass::Other,
            )
        }
        TopK { .. } => {
            let rank = operand_shape(0).len();
            touched((0..rank).map(|d| d + 1 < rank).collect(), OpClass::Other)
        }
        BatchNormInference { feature_index, .. } => {
            Ok(vec![linalg::batch_norm_inference(op, func, *feature_index)])
        }
        // The statistics reduce over every dimension but the feature: conservatively, those
        // dimensions are needed whole (and the feature dimension passes).
        BatchNormTraining { feature_index, .. } | BatchNormGrad { feature_index, .. } => {
            Ok(vec![linalg::batch_norm_feature_only(
                op,
                func,
                *feature_index,
            )])
        }
        Gather {
            dimension_numbers,
            slice_sizes,
            ..
        } => Ok(vec![indexing::gather(
            op,
            func,
            dimension_numbers,
            slice_sizes,
        )]),
        Scatter {
            dimension_numbers, ..
        } => Ok(vec![indexing::scatter(op, func, dimension_numbers)]),
        While => Ok(dataflow::while_loop(op, func)),
        If | Case => Ok(dataflow::branches(op, func)),
        OptimizationBarrier => Ok(dataflow::identity_pairs(op, func)),
        ShardingConstraint(_) => Ok(dataflow::identity_pairs(op, func)),
        ManualComputation(attrs) => Ok(dataflow::manual_computation(op, func, attrs)),
        // Collectives are manual code: they appear in a manual computation's body, which
        // the partitioner splits over the mesh axes the body leaves free. Their groups
        // differ in manual axes only, so along the free axes each is elementwise, but for
        // the dimensions it gathers, scatters or exchanges, which stay whole.
        AllReduce { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. }
        | CollectiveReduce { .. } => {
            let rank = operand_shape(0).len();
            touched(vec![true; rank], OpClass::Other)
        }
        AllGather { all_gather_dim, .. } => {
            let rank = operand_shape(0).len() as i64;
            touched(
                (0..rank).map(|d| d != *all_gather_dim).collect(),
                OpClass::Other,
            )
        }
        ReduceScatter {
            scatter_dimension, ..
        } => {
            let rank = operand_shape(0).len() as i64;
            touched(
                (0..rank).map(|d| d != *scatter_dimension).collect(),
                OpClass::Other,
            )
        }
        AllToAll {
            split_dimension,
            concat_dimension,
            ..
        } => {
            let rank = operand_shape(0).len() as i64;
            touched(
                (0..rank)
                    .map(|d| d != *split_dimension && d != *concat_dimension)
                    .collect(),
                OpClass::Other,
            )
        }
        // Barriers: propagation does not look inside. A call's callee is another function
        // (inline first: the `inline` pass); a custom call or composite is opaque; RNG state,
        // host transfers and the compiler's own fusions have no sharding rule.
        Call { .. }
        | Composite { .. }
        | CustomCall { .. }
        | RngBitGenerator { .. }
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. }
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        | UniformQuantize
        | UniformDequantize
        | RaggedDot { .. }
        | Scan { .. }
        | Fusion { .. } => Ok(vec![barrier(op, func)]),
    }
}

#[cfg(test)]
mod tests;
