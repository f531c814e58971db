//! Kernel families and the router that picks one for each op.
//!
//! Each family exposes `pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>>`
//! (see [`crate::lower_ctx::LowerCtx`]). [`lower_native`] offers the op to the family that owns its
//! kind; `Ok(None)` from the family (or a family not written yet) means the op runs on the
//! interpreter fallback ([`fallback`]). Control flow and value plumbing ([`control`]) are lowered
//! by [`crate::lower`] itself, as they hold nested programs.

use crate::error::Result;
use crate::kernel::Kernel;
use crate::lower_ctx::LowerCtx;
use systolic_ir::{FusionKind, Op, OpKind, TensorType, Type, ValueId};

pub mod collective;
pub mod control;
pub mod conv;
pub mod dot;
pub mod fallback;
pub mod fft;
pub mod fusion;
pub mod host_callback;
pub mod indexing;
pub mod lapack;
pub mod linalg;
pub mod math;
pub mod region;
pub mod rng;
pub mod shape;
pub mod sort;
pub mod window;

/// A native kernel for `op` from the family that owns its kind, or `None` when no family has
/// one (the caller then uses the interpreter fallback).
///
/// Ops that read or make complex values (`complex<f32>`, `complex<f64>`), themselves or in
/// their regions, reach only the families that compute on them: `fft` ([`fft`]), the LAPACK
/// calls ([`lapack`]), data movement ([`shape`], gathers), the loop and reduction kernels
/// ([`fusion`]: complex lanes computing the interpreter's functions bit for bit, reductions in
/// its tree order) and products ([`dot`]). Everything else that touches them (sorts, windows,
/// scatters, convolutions, collectives, …) runs on the fallback, which computes it exactly
/// as the interpreter does, so the other families only see real types; a family given a
/// complex op it cannot compute (an op the loops lack, such as `bitcast_convert` of a
/// `complex<f64>`) declines it and the fallback runs it too.
pub fn lower_native(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    use OpKind::*;
    let complex_native = match &op.kind {
        Fft { .. } => true,
        // Complex lanes in the loop and reduction kernels (`fusion::elementwise::complex`).
        Unary(_)
        | Binary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | BitcastConvert
        | ChloUnary(_)
        | Iota { .. }
        | Reduce { .. }
        | Fusion {
            kind: FusionKind::Loop | FusionKind::Reduction,
            ..
        } => true,
        // `gemm`'s complex kernels ([`dot`]); a product fusion whose product is a
        // convolution declines complex values in `conv` (below).
        DotGeneral { .. } | Dot { .. } => true,
        Fusion {
            kind: FusionKind::Product,
            ..
        } => true,
        // Data movement is the same for every element type (`dispatch_movable!`).
        Reshape
        | Transpose { .. }
        | BroadcastInDim { .. }
        | Broadcast { .. }
        | Slice { .. }
        | Reverse { .. }
        | Concatenate { .. }
        | Pad { .. }
        | DynamicSlice { .. }
        | DynamicUpdateSlice
        | Gather { .. } => true,
        CustomCall {
            call_target_name, ..
        } => systolic_ir::lapack::LapackCall::is_lapack_target(call_target_name),
        // Complex values go to the fallback (listed one by one, so a new op is decided here).
        Convolution(_)
        | ReducePrecision { .. }
        | ChloBinary(_)
        | Composite { .. }
        | Scatter { .. }
        | Sort { .. }
        | TopK { .. }
        | ReduceWindow { .. }
        | SelectAndScatter { .. }
        | RngBitGenerator { .. }
        | Rng { .. }
        | Cholesky { .. }
        | TriangularSolve { .. }
        | Return(_)
        | Call { .. }
        | Constant(_)
        | While
        | If
        | Case
        | OptimizationBarrier
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | Map { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. }
        | ReplicaId
        | PartitionId
        | ShardingConstraint(_)
        | ManualComputation(_)
        | AllGather { .. }
        | AllReduce { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. }
        | CollectiveReduce { .. }
        | GetDimensionSize { .. }
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. }
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        | RaggedDot { .. }
        | Scan { .. }
        | UniformQuantize
        | UniformDequantize => false,
    };
    if !complex_native && touches_complex(op, ctx)
        || touches_narrow_float(op, ctx)
        || touches_quantized(op, ctx)
    {
        return Ok(None);
    }
    let kernel = match &op.kind {
        DotGeneral { .. } | Dot { .. } => dot::lower(op, ctx),
        Convolution(_) => conv::lower(op, ctx),
        Unary(_)
        | Binary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | BitcastConvert
        | ReducePrecision { .. }
        | ChloUnary(_)
        | ChloBinary(_)
        | Reduce { .. }
        | Composite { .. } => fusion::lower(op, ctx),
        CustomCall {
            call_target_name, ..
        } if systolic_ir::lapack::LapackCall::is_lapack_target(call_target_name) => {
            lapack::lower(op, ctx)
        }
        CustomCall { .. } if systolic_ir::host_callback::is_host_callback(&op.kind) => {
            host_callback::lower(op, ctx)
        }
        CustomCall { .. } => fusion::lower(op, ctx),
        Fusion {
            kind: FusionKind::Product,
            ..
        } => match dot::lower(op, ctx) {
            Ok(None) if touches_complex(op, ctx) => Ok(None),
            Ok(None) => conv::lower(op, ctx),
            other => other,
        },
        Fusion { .. } => fusion::lower(op, ctx),
        Iota { .. }
        | Reshape
        | Transpose { .. }
        | BroadcastInDim { .. }
        | Broadcast { .. }
        | Slice { .. }
        | Reverse { .. }
        | Concatenate { .. }
        | Pad { .. }
        | DynamicSlice { .. }
        | DynamicUpdateSlice => match shape::lower(op, ctx) {
            Ok(None) => fusion::lower(op, ctx),
            other => other,
        },
        Gather { .. } | Scatter { .. } => indexing::lower(op, ctx),
        Sort { .. } | TopK { .. } => sort::lower(op, ctx),
        ReduceWindow { .. } | SelectAndScatter { .. } => window::lower(op, ctx),
        RngBitGenerator { .. } | Rng { .. } => rng::lower(op, ctx),
        Cholesky { .. } | TriangularSolve { .. } => linalg::lower(op, ctx),
        Fft { .. } => fft::lower(op, ctx),
        // Lowered by `crate::lower` itself (constants, control flow, value plumbing), or
        // expanded by the CPU pipeline before lowering (`map`, batch norms, the collectives and
        // ids of a single-device program); what reaches here runs on the fallback.
        Return(_)
        | Call { .. }
        | Constant(_)
        | While
        | If
        | Case
        | OptimizationBarrier
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | Map { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. }
        | ReplicaId
        | PartitionId
        | ShardingConstraint(_)
        | ManualComputation(_) => Ok(None),
        // Collectives of one process of an SPMD set meet the other processes; in a program
        // for one device the pipeline made them identities, and what is left falls back.
        AllGather { .. }
        | AllReduce { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. }
        | CollectiveReduce { .. } => match ctx.process() {
            Some(p) => collective::lower(op, ctx, p),
            None => Ok(None),
        },
        // No native kernel: the interpreter fallback runs them (and is reported).
        GetDimensionSize { .. }
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. }
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        // No native kernels yet: the fallback runs them exactly as the interpreter does.
        | RaggedDot { .. }
        | Scan { .. }
        | UniformQuantize
        | UniformDequantize => Ok(None),
    };
    kernel.map_err(|e| e.at_op(op))
}

/// True when `op` or an op of its regions has a complex operand, result or block argument.
pub fn touches_complex(op: &Op, ctx: &LowerCtx) -> bool {
    touches_type(op, ctx, |t| t.dtype.is_complex())
}

/// True when `op` or an op of its regions has a narrow float (f8/f6/f4) operand, result or
/// block argument: such ops run on the interpreter fallback, which computes them exactly and
/// rounds once as the spec says (the CPU buffers only hold their one-byte codes).
pub fn touches_narrow_float(op: &Op, ctx: &LowerCtx) -> bool {
    touches_type(op, ctx, |t| t.dtype.is_narrow_float())
}

/// True when `op` or an op of its regions has a quantized (`!quant.uniform`) operand, result
/// or block argument: the fallback computes them as the spec defines (dequantize, compute,
/// quantize), since no kernel knows the scales.
pub fn touches_quantized(op: &Op, ctx: &LowerCtx) -> bool {
    touches_type(op, ctx, |t| t.quant.is_some())
}

/// True when a value `op` or an op of its regions uses or defines has a tensor type with
/// `pred`.
fn touches_type(op: &Op, ctx: &LowerCtx, pred: fn(&TensorType) -> bool) -> bool {
    fn has(t: &Type, pred: fn(&TensorType) -> bool) -> bool {
        match t {
            Type::Tensor(t) => pred(t),
            Type::Tuple(ts) => ts.iter().any(|t| has(t, pred)),
            Type::Token => false,
        }
    }
    let uses = |v: &ValueId| has(ctx.value_type(*v), pred);
    op.operands.iter().any(uses)
        || op.results.iter().any(uses)
        || op.regions.iter().any(|r| {
            r.blocks.iter().any(|b| {
                b.args.iter().any(uses) || b.ops.iter().any(|o| touches_type(o, ctx, pred))
            })
        })
}
