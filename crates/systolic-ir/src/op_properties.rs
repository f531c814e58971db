//! What every op *is*, in one place: its family, whether it is elementwise, how costly one
//! element is, its algebraic laws, its effects and its regions. XLA keeps such facts as opcode
//! traits (`HloOpcode` and `IsExpensive`), tinygrad as op groups; passes and backends read them
//! here instead of keeping their own lists (the fusion classifier, CSE, DCE, the verifier, the
//! TPU cost model and the CPU backend all do).
//!
//! Every function below is a `match` without a catch-all arm, so a new op (or a new variant of
//! one of the op enums) does not compile until each property has been decided for it.

use crate::ops::{BinaryOp, ChloBinaryOp, ChloUnaryOp, OpKind, UnaryOp};

/// The family an op belongs to: the coarse grouping that transformation rules, kernels and
/// cost models are organised by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpFamily {
    /// One operand, one result element per operand element: `Unary`, `ChloUnary`, `convert`,
    /// `reduce_precision`.
    ElementwiseUnary,
    /// Two operands of one shape: `Binary`, `ChloBinary`.
    ElementwiseBinary,
    /// `compare`: two operands, an `i1` result.
    ElementwiseCompare,
    /// `select` and `clamp`: three operands, some of which may be scalars.
    ElementwiseTernary,
    /// Values made from attributes alone: `constant`, `iota`.
    Generator,
    /// Moves or reinterprets elements without computing: broadcasts, reshape, transpose,
    /// slice, concatenate, pad, reverse, `bitcast_convert`, `get_dimension_size`.
    ShapeMovement,
    /// Reads or writes at computed positions: dynamic slices and updates, gather, scatter.
    Indexing,
    /// Combines elements with a reducer region: reduce, reduce_window, select_and_scatter,
    /// and `map` (a region applied elementwise).
    Reduction,
    /// Orders elements: sort, `chlo.top_k`.
    Sorting,
    /// Products, convolutions, factorisations, transforms and normalisations.
    Linalg,
    /// Control flow and value plumbing: return, call, while, if, case, `chlo.scan`,
    /// optimization_barrier, tuples and tokens.
    Control,
    /// Communication between devices (and the host): the collectives, the process ids,
    /// send/recv, infeed/outfeed.
    Collective,
    /// Random numbers.
    Rng,
    /// Extension points whose meaning is elsewhere: custom_call, composite.
    Custom,
    /// The interpreter tests' harness: the `check` dialect and `interpreter.run_parallel`.
    Check,
    /// Made by the compiler: `systolic.fusion`.
    Fusion,
}

/// How costly one element of an elementwise op is to compute — XLA's `IsExpensive`, and the
/// VPU cost class of the TPU model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementCost {
    /// A few instructions (arithmetic, comparisons, bit operations, rounding).
    Cheap,
    /// A transcendental function or a long-latency operation (exp, log, tanh, sqrt, divide,
    /// power, …): never computed twice to save a memory round trip.
    Transcendental,
    /// A special function that expands into a long polynomial evaluation (erf, lgamma,
    /// digamma, bessel, zeta, …).
    Special,
}

/// How many regions an op carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegionArity {
    /// None.
    None,
    /// Exactly this many.
    Exactly(usize),
    /// One or more (one per branch of `case`).
    OneOrMore,
}

impl UnaryOp {
    /// The cost of one element.
    pub fn cost(self) -> ElementCost {
        use UnaryOp::*;
        match self {
            Cbrt | Cosine | Exponential | ExponentialMinusOne | Log | LogPlusOne | Logistic
            | Rsqrt | Sine | Sqrt | Tan | Tanh => ElementCost::Transcendental,
            Abs | Ceil | CountLeadingZeros | Floor | Imag | IsFinite | Negate | Not | Popcnt
            | Real | RoundNearestAfz | RoundNearestEven | Sign => ElementCost::Cheap,
        }
    }
}

impl BinaryOp {
    /// The cost of one element.
    pub fn cost(self) -> ElementCost {
        use BinaryOp::*;
        match self {
            Atan2 | Divide | Power | Remainder => ElementCost::Transcendental,
            Add | And | Complex | Maximum | Minimum | Multiply | Or | ShiftLeft
            | ShiftRightArithmetic | ShiftRightLogical | Subtract | Xor => ElementCost::Cheap,
        }
    }

    /// `a op b == b op a` for every pair of operands (NaN payloads aside).
    pub fn is_commutative(self) -> bool {
        use BinaryOp::*;
        match self {
            Add | And | Maximum | Minimum | Multiply | Or | Xor => true,
            Atan2 | Complex | Divide | Power | Remainder | ShiftLeft | ShiftRightArithmetic
            | ShiftRightLogical | Subtract => false,
        }
    }

    /// `(a op b) op c == a op (b op c)` in exact arithmetic (floating-point `add` and
    /// `multiply` round differently in different orders; a reduction may still be
    /// reassociated, as XLA does).
    pub fn is_associative(self) -> bool {
        use BinaryOp::*;
        match self {
            Add | And | Maximum | Minimum | Multiply | Or | Xor => true,
            Atan2 | Complex | Divide | Power | Remainder | ShiftLeft | ShiftRightArithmetic
            | ShiftRightLogical | Subtract => false,
        }
    }
}

impl ChloUnaryOp {
    /// The cost of one element.
    pub fn cost(self) -> ElementCost {
        use ChloUnaryOp::*;
        match self {
            Conj | IsInf | IsNegInf | IsPosInf | Square => ElementCost::Cheap,
            Acos | Acosh | Asin | Asinh | Atan | Atanh | Cosh | Sinh | Tan => {
                ElementCost::Transcendental
            }
            BesselI1e | Digamma | Erf | ErfInv | Erfc | Lgamma => ElementCost::Special,
        }
    }
}

impl ChloBinaryOp {
    /// The cost of one element.
    pub fn cost(self) -> ElementCost {
        use ChloBinaryOp::*;
        match self {
            Mulhi => ElementCost::Cheap,
            NextAfter | Polygamma | Zeta => ElementCost::Special,
        }
    }
}

/// The facts about one op kind, as [`OpKind::traits`] lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpTraits {
    /// Its family.
    pub family: OpFamily,
    /// The cost of one element, for the elementwise families; `None` for the others.
    pub element_cost: Option<ElementCost>,
    /// Effects on the host or another device, or a check: kept even when unused.
    pub side_effect: bool,
    /// The regions it carries.
    pub regions: RegionArity,
}

impl OpTraits {
    /// An op of `family` with no effects and no regions (elementwise ops get a cost with
    /// [`OpTraits::cost`]).
    const fn of(family: OpFamily) -> Self {
        OpTraits {
            family,
            element_cost: None,
            side_effect: false,
            regions: RegionArity::None,
        }
    }

    const fn cost(self, cost: ElementCost) -> Self {
        OpTraits {
            element_cost: Some(cost),
            ..self
        }
    }

    const fn effect(self, side_effect: bool) -> Self {
        OpTraits {
            side_effect,
            ..self
        }
    }

    const fn regions(self, regions: RegionArity) -> Self {
        OpTraits { regions, ..self }
    }
}

impl OpKind {
    /// Every fact about this op kind: the one table the properties below read. Each op is
    /// listed once, without a catch-all arm, so a new op must be decided here.
    pub fn traits(&self) -> OpTraits {
        use ElementCost::Cheap;
        use OpFamily as F;
        use OpKind::*;
        use RegionArity::{Exactly, OneOrMore};
        let t = OpTraits::of;
        match self {
            Unary(u) => t(F::ElementwiseUnary).cost(u.cost()),
            ChloUnary(u) => t(F::ElementwiseUnary).cost(u.cost()),
            Convert | ReducePrecision { .. } | UniformQuantize | UniformDequantize => {
                t(F::ElementwiseUnary).cost(Cheap)
            }
            Binary(b) => t(F::ElementwiseBinary).cost(b.cost()),
            ChloBinary(b) => t(F::ElementwiseBinary).cost(b.cost()),
            Compare { .. } => t(F::ElementwiseCompare).cost(Cheap),
            Select | Clamp => t(F::ElementwiseTernary).cost(Cheap),
            Constant(_) | Iota { .. } => t(F::Generator),
            BitcastConvert
            | BroadcastInDim { .. }
            | Broadcast { .. }
            | Reshape
            | Transpose { .. }
            | Slice { .. }
            | Concatenate { .. }
            | Pad { .. }
            | Reverse { .. }
            | GetDimensionSize { .. } => t(F::ShapeMovement),
            DynamicSlice { .. } | DynamicUpdateSlice | Gather { .. } => t(F::Indexing),
            Scatter { .. } => t(F::Indexing).regions(Exactly(1)),
            Reduce { .. } | ReduceWindow { .. } | Map { .. } => t(F::Reduction).regions(Exactly(1)),
            SelectAndScatter { .. } => t(F::Reduction).regions(Exactly(2)),
            Sort { .. } => t(F::Sorting).regions(Exactly(1)),
            TopK { .. } => t(F::Sorting),
            Scan { .. } => t(F::Control).regions(Exactly(1)),
            DotGeneral { .. }
            | Dot { .. }
            | Convolution(_)
            | TriangularSolve { .. }
            | Cholesky { .. }
            | Fft { .. }
            | RaggedDot { .. }
            | BatchNormInference { .. }
            | BatchNormTraining { .. }
            | BatchNormGrad { .. } => t(F::Linalg),
            Return(_) => t(F::Control).effect(true),
            Call { .. }
            | OptimizationBarrier
            | Tuple
            | GetTupleElement { .. }
            | AfterAll
            | CreateToken => t(F::Control),
            While | If => t(F::Control).regions(Exactly(2)),
            Case => t(F::Control).regions(OneOrMore),
            AllReduce { .. } | ReduceScatter { .. } | CollectiveReduce { .. } => {
                t(F::Collective).regions(Exactly(1))
            }
            AllGather { .. }
            | AllToAll { .. }
            | CollectivePermute { .. }
            | CollectiveBroadcast { .. }
            | ReplicaId
            | PartitionId => t(F::Collective),
            Send { .. } | Recv { .. } | Infeed { .. } | Outfeed { .. } => {
                t(F::Collective).effect(true)
            }
            RngBitGenerator { .. } | Rng { .. } => t(F::Rng),
            Composite { .. } => t(F::Custom),
            CustomCall {
                has_side_effect, ..
            } => t(F::Custom).effect(*has_side_effect),
            // A test harness running whole programs: kept, as the checks inside them are.
            Check(_) | RunParallel { .. } | InterpreterProbe { .. } | InterpreterPrint => {
                t(F::Check).effect(true)
            }
            Fusion { .. } => t(F::Fusion).regions(Exactly(1)),
            // A region run once per device over its pieces: plumbing, like a call.
            ManualComputation(_) => t(F::Control).regions(Exactly(1)),
            // An identity carrying a layout request.
            ShardingConstraint(_) => t(F::ShapeMovement),
        }
    }

    /// The op's family.
    pub fn family(&self) -> OpFamily {
        self.traits().family
    }

    /// True for the elementwise ops: each result element is computed from the operand elements
    /// at the same index alone (`bitcast_convert` is not among them: between element types
    /// of different widths it changes the element count; `map` is not either: its region is
    /// arbitrary).
    pub fn is_elementwise(&self) -> bool {
        self.traits().element_cost.is_some()
    }

    /// The cost of one element of an elementwise op (`None` for the others).
    pub fn element_cost(&self) -> Option<ElementCost> {
        self.traits().element_cost
    }

    /// True when an op's first two operands may be swapped without changing its results.
    pub fn is_commutative(&self) -> bool {
        match self {
            OpKind::Binary(b) => b.is_commutative(),
            OpKind::Compare { direction, .. } => matches!(
                direction,
                crate::ComparisonDirection::Eq | crate::ComparisonDirection::Ne
            ),
            _ => false,
        }
    }

    /// True for ops whose effects must be kept even when their results are unused, as the
    /// program's author sees them: effects on the host or another device, and checks.
    pub fn has_side_effect(&self) -> bool {
        self.traits().side_effect
    }

    /// True for ops a dead-code pass must keep even when their results are unused: those with
    /// side effects, the deprecated stateful `rng`, and the collectives (every participant
    /// must reach a collective, so one device may not drop it alone).
    pub fn must_keep(&self) -> bool {
        use OpKind::*;
        self.has_side_effect()
            || matches!(self, Rng { .. })
            || self.family() == OpFamily::Collective && !matches!(self, ReplicaId | PartitionId)
    }

    /// True for ops that two equal copies of may be merged into one (common-subexpression
    /// elimination): the result is a function of the operands and attributes alone, and
    /// nothing else observes the op. False for effects, random numbers, tokens and barriers,
    /// calls and custom calls (which may hide either) except the LAPACK and XLA linear algebra
    /// targets without side effects (pure functions of their operands: two equal
    /// factorisations of one matrix, from `solve` and `det` of it, run once), collectives and
    /// the process ids (whose places in the program an SPMD partitioner may still rewrite),
    /// and ops with regions.
    pub fn is_mergeable(&self) -> bool {
        let traits = self.traits();
        if traits.side_effect || self.must_keep() || traits.regions != RegionArity::None {
            return false;
        }
        match traits.family {
            OpFamily::ElementwiseUnary
            | OpFamily::ElementwiseBinary
            | OpFamily::ElementwiseCompare
            | OpFamily::ElementwiseTernary
            | OpFamily::Generator
            | OpFamily::ShapeMovement
            | OpFamily::Indexing
            | OpFamily::Reduction
            | OpFamily::Sorting
            | OpFamily::Linalg => true,
            OpFamily::Control => matches!(self, OpKind::Tuple | OpKind::GetTupleElement { .. }),
            OpFamily::Custom => matches!(
                self,
                OpKind::CustomCall {
                    call_target_name,
                    has_side_effect: false,
                    called_computations,
                    ..
                } if called_computations.is_empty()
                    && crate::lapack::LapackCall::is_lapack_target(call_target_name)
            ),
            OpFamily::Collective | OpFamily::Rng | OpFamily::Check | OpFamily::Fusion => false,
        }
    }

    /// How many regions the op carries.
    pub fn region_arity(&self) -> RegionArity {
        self.traits().regions
    }

    /// True for the ops that end a block.
    pub fn is_terminator(&self) -> bool {
        matches!(self, OpKind::Return(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_the_derived_lists() {
        for u in UnaryOp::ALL {
            assert_eq!(UnaryOp::from_name(u.name()), Some(u));
        }
        for b in BinaryOp::ALL {
            assert_eq!(BinaryOp::from_name(b.name()), Some(b));
        }
        for u in ChloUnaryOp::ALL {
            assert_eq!(ChloUnaryOp::from_name(u.name()), Some(u));
        }
        for b in ChloBinaryOp::ALL {
            assert_eq!(ChloBinaryOp::from_name(b.name()), Some(b));
        }
        assert_eq!(UnaryOp::ALL.len(), 25);
        assert_eq!(
            UnaryOp::from_name("exponential"),
            Some(UnaryOp::Exponential)
        );
        assert_eq!(UnaryOp::from_name("nope"), None);
    }

    #[test]
    fn elementwise_ops_have_a_cost_and_others_do_not() {
        for u in UnaryOp::ALL {
            assert!(OpKind::Unary(u).is_elementwise());
            assert_eq!(OpKind::Unary(u).element_cost(), Some(u.cost()));
        }
        assert_eq!(OpKind::Reshape.element_cost(), None);
        assert!(!OpKind::BitcastConvert.is_elementwise());
        assert_eq!(
            OpKind::Unary(UnaryOp::Exponential).element_cost(),
            Some(ElementCost::Transcendental)
        );
        assert_eq!(ChloUnaryOp::Erf.cost(), ElementCost::Special);
        assert_eq!(BinaryOp::Add.cost(), ElementCost::Cheap);
    }

    #[test]
    fn commutative_binary_ops_are_exactly_the_associative_ones() {
        for b in BinaryOp::ALL {
            assert_eq!(b.is_commutative(), b.is_associative(), "{}", b.name());
        }
        assert!(OpKind::Binary(BinaryOp::Maximum).is_commutative());
        assert!(!OpKind::Binary(BinaryOp::Subtract).is_commutative());
    }

    #[test]
    fn effects_keep_ops_and_block_merging() {
        let all_reduce = OpKind::AllReduce {
            collective: Default::default(),
        };
        assert!(all_reduce.must_keep());
        assert!(!all_reduce.has_side_effect());
        assert!(!all_reduce.is_mergeable());
        assert!(!OpKind::PartitionId.must_keep());
        assert!(!OpKind::PartitionId.is_mergeable());
        assert!(OpKind::Binary(BinaryOp::Add).is_mergeable());
        assert!(!OpKind::Reduce {
            dimensions: vec![0]
        }
        .is_mergeable());
        assert!(OpKind::Tuple.is_mergeable());
        assert_eq!(OpKind::Case.region_arity(), RegionArity::OneOrMore);
        assert_eq!(OpKind::While.region_arity(), RegionArity::Exactly(2));
    }
}
