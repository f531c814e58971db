//! What the fusion pass may do with each op: its [`Category`] (how it can join a fused kernel)
//! and whether it is cheap enough to be computed again in every kernel that needs it.

use systolic_ir::{ElementCost, Func, Op, OpKind};

/// How an op can take part in a fusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// One result element from the same-index elements of same-shaped operands (scalars allowed
    /// for a `select` predicate and `clamp` bounds). `expensive` marks transcendental or
    /// long-latency ops (exp, log, divide, power, …) that are never duplicated.
    Elementwise {
        /// Costly enough that computing it twice would lose what fusion saves.
        expensive: bool,
    },
    /// Makes values from nothing: `iota`, scalar constants. Always fused, never materialised.
    Generator,
    /// `broadcast_in_dim` / `broadcast`: an index mapping of its operand.
    Broadcast,
    /// `reshape`, `transpose`, `slice`: index mappings of their operand (views).
    Movement,
    /// `stablehlo.reduce`: the anchor of a reduction fusion.
    Reduce,
    /// `dot_general` / `convolution`: the anchor of a product fusion.
    Product,
    /// Everything else stays alone: control flow, calls, side effects, custom calls, sort,
    /// gather/scatter, rng, collectives, large constants, ops on tuples and tokens, fusions.
    Opaque,
}

impl Category {
    /// Pure index mappings or generators: free to recompute wherever they are needed.
    pub fn is_view(self) -> bool {
        matches!(
            self,
            Category::Generator | Category::Broadcast | Category::Movement
        )
    }

    /// True for elementwise ops.
    pub fn is_elementwise(self) -> bool {
        matches!(self, Category::Elementwise { .. })
    }

    /// May the op be computed again inside every fusion that reads it (instead of its result
    /// being written to memory once and read back)? Views and cheap elementwise ops may; an
    /// expensive elementwise op, a reduction or a product may not.
    pub fn duplicable(self) -> bool {
        self.is_view() || self == Category::Elementwise { expensive: false }
    }
}

/// The category of `op` in `func`.
pub fn categorize(func: &Func, op: &Op) -> Category {
    use OpKind::*;
    let all_tensors = op
        .results
        .iter()
        .chain(&op.operands)
        .all(|&v| func.value_type(v).as_tensor().is_some());
    if !all_tensors || op.results.is_empty() || !op.regions.is_empty() && !is_reduce(op) {
        return Category::Opaque;
    }
    match &op.kind {
        Unary(_)
        | Binary(_)
        | ChloUnary(_)
        | ChloBinary(_)
        | Compare { .. }
        | Select
        | Clamp
        | Convert
        | ReducePrecision { .. } => Category::Elementwise {
            expensive: op.kind.element_cost() != Some(ElementCost::Cheap),
        },
        BitcastConvert if same_shape_as_operand(func, op) => {
            Category::Elementwise { expensive: false }
        }
        Constant(t) if t.num_elements() <= 1 => Category::Generator,
        Iota { .. } => Category::Generator,
        BroadcastInDim { .. } | Broadcast { .. } => Category::Broadcast,
        Reshape | Transpose { .. } | Slice { .. } => Category::Movement,
        Reduce { .. } => Category::Reduce,
        DotGeneral { .. } | Convolution(_) => Category::Product,
        // Large constants and width-changing bitcasts are materialised once.
        BitcastConvert | Constant(_) => Category::Opaque,
        // Shape movement that is not a plain index mapping of one operand (yet): its own kernel.
        Concatenate { .. }
        | Pad { .. }
        | Reverse { .. }
        | GetDimensionSize { .. }
        | DynamicSlice { .. }
        | DynamicUpdateSlice
        | Gather { .. }
        | Scatter { .. } => Category::Opaque,
        // Ops with regions other than reduce, and ops that are kernels of their own.
        ReduceWindow { .. }
        | SelectAndScatter { .. }
        | Sort { .. }
        | Map { .. }
        | TopK { .. }
        | Dot { .. }
        | TriangularSolve { .. }
        | Cholesky { .. }
        | Fft { .. }
        | BatchNormInference { .. }
        | BatchNormTraining { .. }
        | BatchNormGrad { .. } => Category::Opaque,
        // Control flow, effects, communication, randomness, extension points, fusions.
        Return(_)
        | Call { .. }
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
        | AllGather { .. }
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
        | Outfeed { .. }
        | Check(_)
        | RunParallel { .. }
        | InterpreterProbe { .. }
        | InterpreterPrint
        | UniformQuantize
        | UniformDequantize
        | RaggedDot { .. }
        | Scan { .. }
        | Fusion { .. }
        | ManualComputation(_) => Category::Opaque,
        // An identity the simplifier removes; left alone if it is still here.
        ShardingConstraint(_) => Category::Opaque,
    }
}

fn is_reduce(op: &Op) -> bool {
    matches!(op.kind, OpKind::Reduce { .. })
}

fn same_shape_as_operand(func: &Func, op: &Op) -> bool {
    let shape = |v| func.value_type(v).as_tensor().map(|t| t.shape.clone());
    match (op.operands.first(), op.results.first()) {
        (Some(&a), Some(&r)) => shape(a) == shape(r),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplication_is_for_cheap_ops_only() {
        assert!(Category::Generator.duplicable());
        assert!(Category::Movement.duplicable());
        assert!(Category::Elementwise { expensive: false }.duplicable());
        assert!(!Category::Elementwise { expensive: true }.duplicable());
        assert!(!Category::Reduce.duplicable());
        assert!(!Category::Product.duplicable());
    }
}
