//! One JVP rule and (for the ops JVP rules emit on tangents) one transpose rule per op, by
//! family. A JVP rule sees the source op, the primal operands and results in the function
//! being built, and the operands' tangents (`None` = zero); it emits primal coefficient ops
//! and ops *linear* in the tangents, and returns the results' tangents. A transpose rule sees a
//! linear op of the built function and its results' cotangents, and returns the cotangents of
//! its linear operands (`lin[i]`).

pub(crate) mod batch_collective;
pub(crate) mod collective;
pub(crate) mod control;
pub(crate) mod conv;
pub(crate) mod dot;
pub(crate) mod elementwise;
pub(crate) mod fft;
pub(crate) mod indexing;
pub(crate) mod linalg;
pub(crate) mod manual_computation;
pub(crate) mod ragged_dot;
pub(crate) mod reduce;
pub(crate) mod shape;
pub(crate) mod window;

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::{Op, OpKind, ValueId};

/// Tangents of `op`'s results.
pub(crate) fn jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: &mut [ValueId],
) -> Res<Vec<Option<ValueId>>> {
    use OpKind::*;
    let one = |v: Option<ValueId>| Ok(vec![v]);
    match &op.kind {
        Unary(u) => one(elementwise::unary_jvp(b, *u, x[0], t[0], y[0])?),
        Binary(o) => one(elementwise::binary_jvp(b, *o, x, t, y[0])?),
        ChloUnary(u) => one(elementwise::chlo_unary_jvp(b, *u, x[0], t[0], y[0])?),
        Compare { .. }
        | Iota { .. }
        | Constant(_)
        | RngBitGenerator { .. }
        | Rng { .. }
        | BitcastConvert
        | GetDimensionSize { .. }
        | ReplicaId
        | PartitionId => Ok(vec![None; op.results.len()]),
        Select => one(elementwise::select_jvp(b, x, t)?),
        Clamp => one(elementwise::clamp_jvp(b, x, t)?),
        Convert => one(elementwise::convert_jvp(b, x[0], t[0], y[0])?),
        ReducePrecision { .. } => one(elementwise::linear_same(b, op, t[0])?),
        OptimizationBarrier => Ok(t.to_vec()),
        BroadcastInDim { .. }
        | Broadcast { .. }
        | Reshape
        | Transpose { .. }
        | Slice { .. }
        | Reverse { .. } => one(shape::unary_linear_jvp(b, op, t[0], y[0])?),
        // An identity: the tangent is asked for the same layout.
        ShardingConstraint(_) => one(shape::unary_linear_jvp(b, op, t[0], y[0])?),
        Pad { .. } => one(shape::pad_jvp(b, op, x, t)?),
        Concatenate { dimension } => one(shape::concat_jvp(b, *dimension, x, t)?),
        DynamicSlice { .. } => one(indexing::dynamic_slice_jvp(b, op, x, t)?),
        DynamicUpdateSlice => one(indexing::dynamic_update_slice_jvp(b, x, t)?),
        Gather { .. } => one(indexing::gather_jvp(b, op, x, t)?),
        Scatter { .. } => indexing::scatter_jvp(b, op, x, t, y),
        Sort { .. } => indexing::sort_jvp(b, op, x, t, y),
        TopK { .. } => indexing::top_k_jvp(b, op, x, t, y),
        Reduce { .. } => reduce::reduce_jvp(b, op, x, t, y),
        ReduceWindow { .. } => window::reduce_window_jvp(b, op, x, t, y),
        SelectAndScatter { .. } => window::select_and_scatter_jvp(b, op, x, t, y),
        DotGeneral { .. } | Dot { .. } => one(dot::dot_jvp(b, op, x, t, y[0])?),
        // Bilinear in their first two operands (a ragged dot's group sizes carry no tangent).
        RaggedDot { .. } | Convolution(_) => one(product_rule(b, op, x, t, y[0])?),
        TriangularSolve { .. } => one(linalg::triangular_solve_jvp(b, op, x, t, y[0])?),
        Cholesky { .. } => one(linalg::cholesky_jvp(b, op, t, y[0])?),
        AllReduce { .. }
        | AllGather { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. } => collective::jvp(b, op, x, t, y),
        CustomCall { .. } if systolic_ir::pvary::is_pvary(&op.kind) => {
            collective::jvp(b, op, x, t, y)
        }
        CustomCall { .. } if systolic_ir::batch_collective::read(&op.kind).is_some() => {
            batch_collective::jvp(b, op, t, y)
        }
        // A host callback (`debug::print`): the walker has already emitted it on the primal
        // values, which is all JAX's debug_callback JVP rule does; it carries no tangent (and,
        // never emitted on tangents, has no transpose).
        CustomCall { .. } if systolic_ir::host_callback::is_host_callback(&op.kind) => {
            Ok(vec![None; op.results.len()])
        }
        Fft { .. } => one(fft::jvp(b, op, t[0])?),
        // No rule yet: the error names the op.
        ChloBinary(_)
        | Map { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. }
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | CustomCall { .. }
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
        | Scan { .. }
        | Fusion { .. } => Err(unsupported(op, "differentiate")),
        // Handled before this table: control flow by `control` and manual computations by
        // `manual_computation` (both modes; they run the regions' rules), calls and composites
        // by inlining, returns by the walker.
        While | If | Case | ManualComputation(_) | Call { .. } | Composite { .. } | Return(_) => {
            Err(Error::new(format!(
                "internal: {} reached the per-op JVP table",
                op.kind.name()
            )))
        }
    }
}

/// Cotangents of the linear operands of the linear op `op`.
pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    ct: &[Option<ValueId>],
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    use OpKind::*;
    let Some(c) = ct.first().copied().flatten() else {
        return Ok(vec![None; op.operands.len()]);
    };
    match &op.kind {
        Unary(_) | Binary(_) | Convert | Select | ReducePrecision { .. } => {
            elementwise::transpose(b, op, c, lin)
        }
        BroadcastInDim { .. }
        | Reshape
        | Transpose { .. }
        | Slice { .. }
        | Reverse { .. }
        | Pad { .. }
        | Concatenate { .. } => shape::transpose(b, op, c, lin),
        DynamicSlice { .. } | DynamicUpdateSlice | Gather { .. } | Scatter { .. } => {
            indexing::transpose(b, op, c, lin)
        }
        Reduce { .. } => reduce::transpose(b, op, c, lin),
        ReduceWindow { .. } | SelectAndScatter { .. } => window::transpose(b, op, c, lin),
        DotGeneral { .. } => dot::transpose(b, op, c, lin),
        RaggedDot { .. } => ragged_dot::transpose(b, op, c, lin),
        Fft { .. } => fft::transpose(b, op, c),
        Convolution(_) => conv::transpose(b, op, c, lin),
        TriangularSolve { .. } => linalg::transpose(b, op, c, lin),
        AllReduce { .. }
        | AllGather { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. } => collective::transpose(b, op, c, lin),
        CustomCall { .. } if systolic_ir::pvary::is_pvary(&op.kind) => {
            collective::transpose(b, op, c, lin)
        }
        CustomCall { .. } if systolic_ir::batch_collective::read(&op.kind).is_some() => {
            batch_collective::transpose(b, op, c, lin)
        }
        // An identity: the cotangent is asked for the same layout.
        ShardingConstraint(_) => Ok(vec![Some(b.emit(op.kind.clone(), vec![c])?)]),
        // Never a linear op: reverse mode keeps a manual computation in the forward sweep
        // and transposes it through control flow's placeholder, whose backward rule is
        // `manual_computation::backward`.
        ManualComputation(_) => Err(Error::new(
            "internal: sdy.manual_computation reached the transpose table (its backward rule \
             runs from its placeholder)",
        )),
        // Not linear in any operand, or never emitted on tangents by a JVP rule above (those
        // rules emit the linear ops listed in the arms before this one).
        Return(_)
        | Call { .. }
        | ChloUnary(_)
        | ChloBinary(_)
        | Compare { .. }
        | Clamp
        | BitcastConvert
        | Constant(_)
        | Iota { .. }
        | Broadcast { .. }
        | GetDimensionSize { .. }
        | Sort { .. }
        | Map { .. }
        | Dot { .. }
        | Cholesky { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. }
        | While
        | If
        | Case
        | OptimizationBarrier
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | RngBitGenerator { .. }
        | Rng { .. }
        | Composite { .. }
        | CustomCall { .. }
        | ReplicaId
        | PartitionId
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. }
        | TopK { .. }
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        | CollectiveReduce { .. }
        | UniformQuantize
        | UniformDequantize
        | Scan { .. }
        | Fusion { .. } => Err(unsupported(op, "transpose")),
    }
}

/// The JVP of an op bilinear in its first two operands, as the op itself: `op(ȧ, b, …) +
/// op(a, ḃ, …)`, with the op's own attributes and result type (the other operands, integers
/// such as a ragged dot's group sizes, stay primal).
fn product_rule(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: ValueId,
) -> Res<Option<ValueId>> {
    let ty = b.tt(y);
    if !ty.dtype.is_float_or_complex() {
        return Ok(None);
    }
    let mut terms = [None, None];
    for (i, term) in terms.iter_mut().enumerate() {
        if let Some(ti) = t.get(i).copied().flatten() {
            let mut operands = x.to_vec();
            operands[i] = ti;
            *term = Some(b.emit_as(op.kind.clone(), operands, ty.clone())?);
        }
    }
    b.add_opt(terms[0], terms[1])
}

pub(crate) fn unsupported(op: &Op, what: &str) -> Error {
    let name = match &op.kind {
        OpKind::CustomCall {
            call_target_name, ..
        } => format!("{} @{call_target_name}", op.kind.name()),
        kind => kind.name().to_string(),
    };
    Error::new(format!("cannot {what} {name}: no rule for this op"))
}
