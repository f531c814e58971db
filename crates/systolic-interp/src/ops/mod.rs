//! Op implementations, one module per family. [`eval`] routes an op to its family; each family's
//! `eval` matches the kinds it owns.

pub mod check;
pub mod chlo;
pub mod collective;
pub mod control;
pub mod elementwise;
pub mod indexing;
pub mod lapack;
pub mod linalg;
pub mod reduce;
pub mod rng;
pub mod shape;

use crate::error::Result;
use crate::regions::Regions;
use crate::value::Value;
use systolic_ir::{OpKind, Type};

/// Evaluates one op given its operand values and declared result types. Ops on quantized
/// values go through [`crate::quantized`] (dequantize, compute, quantize), so every caller —
/// the evaluator, constant folding, the CPU fallback — computes them the spec's way.
pub fn eval(
    kind: &OpKind,
    args: Vec<Value>,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Value>> {
    if crate::quantized::applies(kind, &args, result_types) {
        return crate::quantized::eval(kind, args, result_types, regions);
    }
    eval_plain(kind, args, result_types, regions)
}

/// The family router, on values that are not quantized.
pub(crate) fn eval_plain(
    kind: &OpKind,
    args: Vec<Value>,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Value>> {
    use OpKind::*;
    match kind {
        Unary(_)
        | Binary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | BitcastConvert
        | ReducePrecision { .. } => elementwise::eval(kind, args, result_types),
        ChloUnary(_) | ChloBinary(_) => chlo::eval(kind, args, result_types),
        UniformQuantize | UniformDequantize => {
            crate::quantized::eval(kind, args, result_types, regions)
        }
        Constant(_)
        | Iota { .. }
        | BroadcastInDim { .. }
        | Broadcast { .. }
        | Reshape
        | Transpose { .. }
        | Slice { .. }
        | DynamicSlice { .. }
        | DynamicUpdateSlice
        | Concatenate { .. }
        | Pad { .. }
        | Reverse { .. }
        | GetDimensionSize { .. } => shape::eval(kind, args, result_types),
        Gather { .. } | Scatter { .. } => indexing::eval(kind, args, result_types, regions),
        Reduce { .. }
        | ReduceWindow { .. }
        | SelectAndScatter { .. }
        | Sort { .. }
        | Map { .. }
        | TopK { .. }
        | Scan { .. } => reduce::eval(kind, args, result_types, regions),
        DotGeneral { .. }
        | Dot { .. }
        | Convolution(_)
        | TriangularSolve { .. }
        | Cholesky { .. }
        | Fft { .. }
        | RaggedDot { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. } => linalg::eval(kind, args, result_types),
        While
        | If
        | Case
        | OptimizationBarrier
        | Tuple
        | GetTupleElement { .. }
        | AfterAll
        | CreateToken
        | Call { .. }
        | Composite { .. }
        | CustomCall { .. }
        | Fusion { .. }
        | ManualComputation(_)
        | ShardingConstraint(_) => control::eval(kind, args, result_types, regions),
        RngBitGenerator { .. } | Rng { .. } => rng::eval(kind, args, result_types),
        AllGather { .. }
        | AllReduce { .. }
        | ReduceScatter { .. }
        | AllToAll { .. }
        | CollectivePermute { .. }
        | CollectiveBroadcast { .. }
        | CollectiveReduce { .. }
        | ReplicaId
        | PartitionId
        | Send { .. }
        | Recv { .. }
        | Infeed { .. }
        | Outfeed { .. } => collective::eval(kind, args, result_types, regions),
        Return(_) | Check(_) | RunParallel { .. } | InterpreterProbe { .. } | InterpreterPrint => {
            crate::bail!("{} is handled by the evaluator", kind.name())
        }
    }
}
