//! The op set: every StableHLO op with static shapes, the CHLO ops JAX emits, the `func` ops and
//! the `check` dialect of the interpreter tests. One enum, so that every pass and interpreter
//! `match` is checked for completeness by the compiler.
//!
//! An op's operands, results and regions live on [`crate::Op`]; the variant carries only the
//! op's attributes. Semantics are StableHLO's (openxla/stablehlo `docs/spec.md`).

use crate::attrs::*;
use crate::sharding::{ManualComputationAttrs, SdySharding};
use crate::tensor::Tensor;
use crate::window::Window;

/// Defines an enum of unit variants together with `ALL` (every variant, in declaration order),
/// so no list of variants is ever kept by hand beside the enum. Variant docs are written as
/// usual. Used for the op enums below and for other closed sets that need enumerating (the CPU
/// backend's vectorised math functions, …).
///
/// ```
/// systolic_ir::enum_with_all! {
///     /// Colours.
///     #[derive(Clone, Copy, Debug, PartialEq)]
///     pub enum Colour {
///         /// Red.
///         Red,
///         /// Green.
///         Green,
///     }
/// }
/// assert_eq!(Colour::ALL, [Colour::Red, Colour::Green]);
/// ```
#[macro_export]
macro_rules! enum_with_all {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Every variant, in declaration order (derived from the enum by `enum_with_all!`).
            pub const ALL: [$name; [$(stringify!($variant)),*].len()] = [$($name::$variant),*];
        }
    };
}

/// Defines an op enum whose variants are spelled `Variant = "name"`: the enum (each variant
/// documented with its full op name), `ALL`, `name()` and `from_name()`, all from one list.
macro_rules! op_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident in $dialect:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),* $(,)?
        }
    ) => {
        $crate::enum_with_all! {
            $(#[$meta])*
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum $name {
                $( #[doc = concat!("`", $dialect, ".", $text, "`")] $(#[$vmeta])* $variant ),*
            }
        }

        impl $name {
            /// The op name without dialect (`abs`, `exponential`, …).
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )*
                }
            }

            /// The op called `name` (without dialect), if there is one.
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $( $text => Some($name::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

op_enum! {
    /// Elementwise ops with one operand.
    pub enum UnaryOp in "stablehlo" {
        Abs = "abs",
        Cbrt = "cbrt",
        Ceil = "ceil",
        Cosine = "cosine",
        CountLeadingZeros = "count_leading_zeros",
        Exponential = "exponential",
        ExponentialMinusOne = "exponential_minus_one",
        Floor = "floor",
        Imag = "imag",
        /// (result i1)
        IsFinite = "is_finite",
        Log = "log",
        LogPlusOne = "log_plus_one",
        Logistic = "logistic",
        Negate = "negate",
        Not = "not",
        Popcnt = "popcnt",
        Real = "real",
        RoundNearestAfz = "round_nearest_afz",
        RoundNearestEven = "round_nearest_even",
        Rsqrt = "rsqrt",
        Sign = "sign",
        Sine = "sine",
        Sqrt = "sqrt",
        Tan = "tan",
        Tanh = "tanh",
    }
}

op_enum! {
    /// Elementwise ops with two operands of the same type.
    pub enum BinaryOp in "stablehlo" {
        Add = "add",
        And = "and",
        Atan2 = "atan2",
        Complex = "complex",
        Divide = "divide",
        Maximum = "maximum",
        Minimum = "minimum",
        Multiply = "multiply",
        Or = "or",
        Power = "power",
        Remainder = "remainder",
        ShiftLeft = "shift_left",
        ShiftRightArithmetic = "shift_right_arithmetic",
        ShiftRightLogical = "shift_right_logical",
        Subtract = "subtract",
        Xor = "xor",
    }
}

op_enum! {
    /// Elementwise CHLO ops with one operand (`chlo.erf`, …). They are not StableHLO; backends
    /// lower them by decomposition into StableHLO ops.
    pub enum ChloUnaryOp in "chlo" {
        Acos = "acos",
        Acosh = "acosh",
        Asin = "asin",
        Asinh = "asinh",
        Atan = "atan",
        Atanh = "atanh",
        BesselI1e = "bessel_i1e",
        Conj = "conj",
        Cosh = "cosh",
        Digamma = "digamma",
        Erf = "erf",
        ErfInv = "erf_inv",
        Erfc = "erfc",
        /// (result i1)
        IsInf = "is_inf",
        /// (result i1)
        IsNegInf = "is_neg_inf",
        /// (result i1)
        IsPosInf = "is_pos_inf",
        Lgamma = "lgamma",
        Sinh = "sinh",
        Square = "square",
        Tan = "tan",
    }
}

op_enum! {
    /// Elementwise CHLO ops with two operands.
    pub enum ChloBinaryOp in "chlo" {
        /// (integers: the high half of the double-width product)
        Mulhi = "mulhi",
        NextAfter = "next_after",
        Polygamma = "polygamma",
        Zeta = "zeta",
    }
}

/// Which dialect a return belongs to: `func.return` ends a function, `stablehlo.return` ends a
/// region of a StableHLO op, `sdy.return` the body of `sdy.manual_computation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnKind {
    /// `func.return`
    Func,
    /// `stablehlo.return`
    Stablehlo,
    /// `sdy.return`
    Sdy,
}

/// The `check` dialect of the StableHLO interpreter tests.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckOp {
    /// `check.expect_eq %a, %b`: bitwise equal (NaNs equal).
    ExpectEq,
    /// `check.expect_eq_const %a, dense<…>`.
    ExpectEqConst(Tensor),
    /// `check.expect_almost_eq %a, %b [, tolerance = …]`.
    ExpectAlmostEq {
        /// Absolute/relative tolerance; the interpreter's default when absent.
        tolerance: Option<f64>,
    },
    /// `check.expect_almost_eq_const %a, dense<…> [, tolerance = …]`.
    ExpectAlmostEqConst {
        /// The expected value.
        expected: Tensor,
        /// Tolerance, if given.
        tolerance: Option<f64>,
    },
    /// `check.expect_close %a, %b, max_ulp_difference = N [, min_ulp_difference = M]`.
    ExpectClose {
        /// Largest allowed distance in units in the last place.
        max_ulp_difference: u64,
        /// Smallest required distance (for negative tests).
        min_ulp_difference: u64,
    },
    /// `check.expect_serialized_eq %a, probe_id = "…" [, iter = N]`.
    ExpectSerializedEq {
        /// Probe name.
        probe_id: String,
        /// Iteration number.
        iteration: u64,
    },
}

/// What a `systolic.fusion` op computes, which decides how a backend lowers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FusionKind {
    /// Elementwise work (with broadcasts, converts, iotas, constants, reshapes/transposes/slices
    /// of operands): one loop over the output elements; possibly several outputs of one shape.
    Loop,
    /// A reduce (or sibling reduces over the same dimensions) with elementwise producers fused
    /// into its inputs and possibly elementwise consumers of its result.
    Reduction,
    /// A dot_general or convolution whose result feeds an elementwise epilogue (bias, activation).
    Product,
}

impl FusionKind {
    /// The keyword used in the text (`loop`, `reduction`, `product`).
    pub fn keyword(self) -> &'static str {
        match self {
            FusionKind::Loop => "loop",
            FusionKind::Reduction => "reduction",
            FusionKind::Product => "product",
        }
    }

    /// Parses the keyword.
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "loop" => FusionKind::Loop,
            "reduction" => FusionKind::Reduction,
            "product" => FusionKind::Product,
            _ => return None,
        })
    }
}

/// What an op does, with its attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum OpKind {
    // ---- func dialect and terminators
    /// `func.return` / `stablehlo.return`: operands are the values returned.
    Return(ReturnKind),
    /// `func.call @callee(args)`.
    Call {
        /// The callee's symbol name without `@`.
        callee: String,
    },

    // ---- elementwise
    /// A unary elementwise op.
    Unary(UnaryOp),
    /// A binary elementwise op.
    Binary(BinaryOp),
    /// `stablehlo.compare`: result i1.
    Compare {
        /// The relation.
        direction: ComparisonDirection,
        /// How to compare (absent = the element type's default).
        compare_type: Option<ComparisonType>,
    },
    /// `stablehlo.select(pred, on_true, on_false)`; `pred` may be a scalar.
    Select,
    /// `stablehlo.clamp(min, operand, max)`; min/max may be scalars.
    Clamp,
    /// `stablehlo.convert`: element type conversion.
    Convert,
    /// `stablehlo.bitcast_convert`: reinterpret bits (may change the last dimension).
    BitcastConvert,
    /// `stablehlo.uniform_quantize`: float values to a quantized type, or one quantized type
    /// to another (`crate::quant`).
    UniformQuantize,
    /// `stablehlo.uniform_dequantize`: a quantized type's values in its expressed type.
    UniformDequantize,
    /// `stablehlo.reduce_precision`.
    ReducePrecision {
        /// Exponent bits to keep.
        exponent_bits: i32,
        /// Mantissa bits to keep.
        mantissa_bits: i32,
    },
    /// A CHLO unary op.
    ChloUnary(ChloUnaryOp),
    /// A CHLO binary op.
    ChloBinary(ChloBinaryOp),

    // ---- constants and shapes
    /// `stablehlo.constant dense<…>`.
    Constant(Tensor),
    /// `stablehlo.iota dim = d`.
    Iota {
        /// The dimension that counts up.
        dimension: i64,
    },
    /// `stablehlo.broadcast_in_dim %x, dims = [...]`.
    BroadcastInDim {
        /// For each operand dimension, the result dimension it maps to.
        broadcast_dimensions: Vec<i64>,
    },
    /// `stablehlo.broadcast` (deprecated): prepends dimensions.
    Broadcast {
        /// Sizes of the new leading dimensions.
        broadcast_sizes: Vec<i64>,
    },
    /// `stablehlo.reshape`.
    Reshape,
    /// `stablehlo.transpose %x, dims = [...]`.
    Transpose {
        /// Result dimension i is operand dimension `permutation[i]`.
        permutation: Vec<i64>,
    },
    /// `stablehlo.slice`.
    Slice {
        /// Start per dimension.
        start_indices: Vec<i64>,
        /// Exclusive end per dimension.
        limit_indices: Vec<i64>,
        /// Step per dimension.
        strides: Vec<i64>,
    },
    /// `stablehlo.dynamic_slice %x, %i0, %i1, sizes = [...]`.
    DynamicSlice {
        /// Size of the slice per dimension.
        slice_sizes: Vec<i64>,
    },
    /// `stablehlo.dynamic_update_slice %x, %update, %i0, …`.
    DynamicUpdateSlice,
    /// `stablehlo.concatenate %a, %b, dim = d`.
    Concatenate {
        /// The dimension joined along.
        dimension: i64,
    },
    /// `stablehlo.pad %x, %pad_value, low = …, high = …, interior = …` (negative = crop).
    Pad {
        /// Padding before each dimension.
        edge_padding_low: Vec<i64>,
        /// Padding after each dimension.
        edge_padding_high: Vec<i64>,
        /// Padding between elements.
        interior_padding: Vec<i64>,
    },
    /// `stablehlo.reverse %x, dims = [...]`.
    Reverse {
        /// Dimensions to reverse.
        dimensions: Vec<i64>,
    },
    /// `stablehlo.get_dimension_size %x, dim = d` (result `tensor<i32>`).
    GetDimensionSize {
        /// The dimension.
        dimension: i64,
    },

    // ---- indexing
    /// `stablehlo.gather`.
    Gather {
        /// Dimension numbers.
        dimension_numbers: GatherDimensionNumbers,
        /// Slice size per operand dimension.
        slice_sizes: Vec<i64>,
        /// A promise the indices are sorted.
        indices_are_sorted: bool,
    },
    /// `stablehlo.scatter`: one region (the update computation).
    Scatter {
        /// Dimension numbers.
        dimension_numbers: ScatterDimensionNumbers,
        /// A promise the indices are sorted.
        indices_are_sorted: bool,
        /// A promise the indices are unique.
        unique_indices: bool,
    },

    // ---- reductions and regions
    /// `stablehlo.reduce`: N inputs, N init values, one region.
    Reduce {
        /// Dimensions reduced away.
        dimensions: Vec<i64>,
    },
    /// `stablehlo.reduce_window`: N inputs, N init values, one region.
    ReduceWindow {
        /// The window (sizes, strides, dilations, padding).
        window: Window,
    },
    /// `stablehlo.select_and_scatter`: two regions (select, scatter).
    SelectAndScatter {
        /// The window (sizes, strides, padding; StableHLO gives this op no dilations, so they
        /// stay `None`).
        window: Window,
    },
    /// `stablehlo.sort`: N inputs, one comparator region.
    Sort {
        /// The dimension sorted along.
        dimension: i64,
        /// Keep equal elements in their order.
        is_stable: bool,
    },
    /// `stablehlo.map`: one region applied elementwise.
    Map {
        /// Dimensions mapped over (must be all of them).
        dimensions: Vec<i64>,
    },

    // ---- linear algebra
    /// `stablehlo.dot_general`.
    DotGeneral {
        /// Batch and contracting dimensions.
        dimension_numbers: DotDimensionNumbers,
        /// Precision per operand (may be empty).
        precision_config: Vec<Precision>,
        /// Requested algorithm, if any.
        algorithm: Option<DotAlgorithm>,
    },
    /// `stablehlo.dot` (deprecated): vector/matrix products.
    Dot {
        /// Precision per operand (may be empty).
        precision_config: Vec<Precision>,
    },
    /// `stablehlo.convolution`.
    Convolution(ConvAttrs),
    /// `stablehlo.triangular_solve`.
    TriangularSolve {
        /// Solve `op(a) x = b` (true) or `x op(a) = b` (false).
        left_side: bool,
        /// Use the lower triangle of `a`.
        lower: bool,
        /// Assume ones on the diagonal.
        unit_diagonal: bool,
        /// How `a` is used.
        transpose_a: TransposeKind,
    },
    /// `stablehlo.cholesky`.
    Cholesky {
        /// Compute the lower factor.
        lower: bool,
    },
    /// `stablehlo.fft`.
    Fft {
        /// Transform kind.
        fft_type: FftType,
        /// Transform lengths of the trailing dimensions.
        fft_length: Vec<i64>,
    },
    /// `stablehlo.batch_norm_inference` (operand, scale, offset, mean, variance).
    BatchNormInference {
        /// Epsilon added to the variance.
        epsilon: f64,
        /// The feature dimension.
        feature_index: i64,
    },
    /// `stablehlo.batch_norm_training` (operand, scale, offset) → (output, mean, variance).
    BatchNormTraining {
        /// Epsilon added to the variance.
        epsilon: f64,
        /// The feature dimension.
        feature_index: i64,
    },
    /// `stablehlo.batch_norm_grad`.
    BatchNormGrad {
        /// Epsilon added to the variance.
        epsilon: f64,
        /// The feature dimension.
        feature_index: i64,
    },

    // ---- control flow
    /// `stablehlo.while`: regions (cond, body).
    While,
    /// `stablehlo.if`: regions (true branch, false branch).
    If,
    /// `stablehlo.case`: one region per branch.
    Case,
    /// `stablehlo.optimization_barrier`.
    OptimizationBarrier,

    // ---- tuples and tokens
    /// `stablehlo.tuple`.
    Tuple,
    /// `stablehlo.get_tuple_element %t[index]`.
    GetTupleElement {
        /// Element index.
        index: i64,
    },
    /// `stablehlo.after_all`: joins tokens.
    AfterAll,
    /// `stablehlo.create_token` (legacy spelling of `after_all` with no operands).
    CreateToken,

    // ---- random numbers
    /// `stablehlo.rng_bit_generator`: (state) → (new state, bits).
    RngBitGenerator {
        /// The generator.
        algorithm: RngAlgorithm,
    },
    /// `stablehlo.rng` (deprecated): (a, b, shape).
    Rng {
        /// The distribution.
        distribution: RngDistribution,
    },

    // ---- extension points
    /// `stablehlo.composite "name" %args {decomposition = @f, …}`.
    Composite {
        /// Composite name, e.g. `my.gelu`.
        name: String,
        /// The function that defines its meaning.
        decomposition: String,
        /// `composite_attributes`.
        composite_attributes: Vec<NamedAttr>,
        /// Version number.
        version: i64,
    },
    /// `stablehlo.custom_call @target(args)`.
    CustomCall {
        /// Call target name.
        call_target_name: String,
        /// Has side effects (must not be removed or reordered).
        has_side_effect: bool,
        /// `backend_config` (a string, or a dictionary for api_version 4).
        backend_config: Option<Attribute>,
        /// API version.
        api_version: i64,
        /// Functions called, if any.
        called_computations: Vec<String>,
    },

    // ---- collectives (executed by the multi-device runtime)
    /// `stablehlo.all_gather`.
    AllGather {
        /// Dimension concatenated along.
        all_gather_dim: i64,
        /// Groups and channel.
        collective: CollectiveAttrs,
    },
    /// `stablehlo.all_reduce`: one region.
    AllReduce {
        /// Groups and channel.
        collective: CollectiveAttrs,
    },
    /// `stablehlo.reduce_scatter`: one region.
    ReduceScatter {
        /// Dimension scattered along.
        scatter_dimension: i64,
        /// Groups and channel.
        collective: CollectiveAttrs,
    },
    /// `stablehlo.all_to_all`.
    AllToAll {
        /// Dimension split.
        split_dimension: i64,
        /// Dimension concatenated.
        concat_dimension: i64,
        /// Number of pieces.
        split_count: i64,
        /// Groups and channel.
        collective: CollectiveAttrs,
    },
    /// `stablehlo.collective_permute`.
    CollectivePermute {
        /// (source, target) process pairs.
        source_target_pairs: Vec<(i64, i64)>,
        /// Channel, if any.
        channel_handle: Option<ChannelHandle>,
    },
    /// `stablehlo.collective_broadcast`.
    CollectiveBroadcast {
        /// Groups and channel.
        collective: CollectiveAttrs,
    },
    /// `stablehlo.collective_reduce`: one region. Each group's first process (or, with
    /// `has_dynamic_root`, the process the last operand names per result) gets the group's
    /// reduction; every other process gets zeros.
    CollectiveReduce {
        /// Groups, channel and `has_dynamic_root`.
        collective: CollectiveAttrs,
    },
    /// `stablehlo.replica_id` (result `tensor<ui32>`).
    ReplicaId,
    /// `stablehlo.partition_id` (result `tensor<ui32>`).
    PartitionId,
    /// `stablehlo.send`.
    Send {
        /// Channel.
        channel_handle: ChannelHandle,
        /// Sends to the host.
        is_host_transfer: bool,
    },
    /// `stablehlo.recv`.
    Recv {
        /// Channel.
        channel_handle: ChannelHandle,
        /// Receives from the host.
        is_host_transfer: bool,
    },
    /// `stablehlo.infeed`.
    Infeed {
        /// Configuration string.
        infeed_config: String,
    },
    /// `stablehlo.outfeed`.
    Outfeed {
        /// Configuration string.
        outfeed_config: String,
    },

    // ---- CHLO ops with structure
    /// `chlo.top_k(%x, k = K)`: (values, indices) of the K largest along the last dimension.
    TopK {
        /// How many.
        k: i64,
        /// Largest (true) or smallest.
        largest: bool,
    },
    /// `chlo.ragged_dot(%lhs, %rhs, %group_sizes)`: a `dot_general` whose left operand is cut
    /// into consecutive groups along one ragged dimension (sizes from `group_sizes`, the
    /// rest of the dimension in no group). Ragged along a free dimension: each group's rows
    /// multiply their own slice of the right operand's group dimension. Along a contracting
    /// dimension: one product per group, stacked in front. Along a batch dimension: the plain
    /// product (as JAX computes it).
    RaggedDot {
        /// The dimensions.
        dimension_numbers: RaggedDotDimensionNumbers,
        /// Precisions of the two operands.
        precision_config: Vec<Precision>,
    },
    /// `chlo.scan(%inputs…) inits(%inits…) dimension = D { body }`: XLA's scan. Step by step
    /// along `dimension` of the inputs (backwards when `is_reverse`), the body takes one
    /// slice of each input and the carries, and returns one slice of each output and the new
    /// carries. Results: the outputs (slices stacked along `dimension`), then the last
    /// carries.
    Scan {
        /// The scanned dimension of every input and output.
        dimension: i64,
        /// How many operands are inputs and how many are initial carries (MLIR's
        /// `operandSegmentSizes`).
        operand_segment_sizes: Vec<i64>,
        /// How many results are outputs and how many are carries (`resultSegmentSizes`).
        result_segment_sizes: Vec<i64>,
        /// Scan from the last slice to the first.
        is_reverse: bool,
        /// Whether the body is associative (a hint that allows a parallel scan).
        is_associative: Option<bool>,
        /// The size of the scanned dimension, when stated.
        scan_dim_size: Option<i64>,
    },

    // ---- check dialect (interpreter tests)
    /// A `check.*` op.
    Check(CheckOp),

    // ---- the interpreter-test harness
    /// `"interpreter.run_parallel"(%inputs…) {programs = [[@f00, @f01], [@f10, @f11]]}`: runs
    /// one program per process of a grid of replicas (outer list) by partitions (inner list),
    /// as the upstream interpreter tests do. Operands are consumed in process order, each
    /// program taking as many as its function has parameters; results are concatenated in the
    /// same order.
    RunParallel {
        /// `programs[replica][partition]`: the function each process runs.
        programs: Vec<Vec<String>>,
        /// `infeed`: functions whose results feed successive `stablehlo.infeed` ops, in order.
        infeed: Vec<String>,
    },
    /// `interpreter.probe %x, probe_id = "name" : T`: returns `%x` and records its value under
    /// the name (each execution of the op records one more iteration), for a later
    /// `check.expect_serialized_eq %y, probe_id = "name"[, iter = N]` to compare with.
    InterpreterProbe {
        /// The name the value is recorded under.
        probe_id: String,
    },
    /// `interpreter.print %x : T`: writes `%x = ` and the value, in the upstream interpreter's
    /// nested-list format (or as a `dense<…>` attribute), to the interpreter's print sink.
    InterpreterPrint,

    // ---- Shardy (JAX's default export of sharded programs)
    /// `sdy.manual_computation(%x) in_shardings=[…] out_shardings=[…] manual_axes={…}
    /// (%local: T) {… sdy.return …} : (G) -> R`: JAX's `shard_map`. One region whose block
    /// arguments are the per-device pieces of the operands and which ends in `sdy.return` of
    /// the per-device results; the op's operands and results are global values. Runs after
    /// `lower_manual_computations` (systolic-compiler) has made the per-device program.
    ManualComputation(Box<ManualComputationAttrs>),
    /// `sdy.sharding_constraint %x <@mesh, [{"x"}, {}]> : T`: an identity that asks the
    /// partitioner to lay out its value by the sharding.
    ShardingConstraint(Box<SdySharding>),

    // ---- Systolic's own ops, made by the compiler
    /// `systolic.fusion`: ops the fusion pass grouped into one kernel. One region: its block
    /// arguments are the op's operands (in order); its `stablehlo.return` gives the results.
    Fusion {
        /// What the fused computation is.
        kind: FusionKind,
        /// A name unique in the function (`fusion.3`), for dumps and profiles.
        name: String,
    },
}

impl OpKind {
    /// The full op name as it is printed, e.g. `stablehlo.add`, `func.return`, `chlo.erf`.
    pub fn name(&self) -> String {
        use OpKind::*;
        let s: &str = match self {
            Return(ReturnKind::Func) => "func.return",
            Return(ReturnKind::Stablehlo) => "stablehlo.return",
            Return(ReturnKind::Sdy) => "sdy.return",
            Call { .. } => "func.call",
            Unary(u) => return format!("stablehlo.{}", u.name()),
            Binary(b) => return format!("stablehlo.{}", b.name()),
            ChloUnary(u) => return format!("chlo.{}", u.name()),
            ChloBinary(b) => return format!("chlo.{}", b.name()),
            Compare { .. } => "stablehlo.compare",
            Select => "stablehlo.select",
            Clamp => "stablehlo.clamp",
            Convert => "stablehlo.convert",
            BitcastConvert => "stablehlo.bitcast_convert",
            UniformQuantize => "stablehlo.uniform_quantize",
            UniformDequantize => "stablehlo.uniform_dequantize",
            ReducePrecision { .. } => "stablehlo.reduce_precision",
            Constant(_) => "stablehlo.constant",
            Iota { .. } => "stablehlo.iota",
            BroadcastInDim { .. } => "stablehlo.broadcast_in_dim",
            Broadcast { .. } => "stablehlo.broadcast",
            Reshape => "stablehlo.reshape",
            Transpose { .. } => "stablehlo.transpose",
            Slice { .. } => "stablehlo.slice",
            DynamicSlice { .. } => "stablehlo.dynamic_slice",
            DynamicUpdateSlice => "stablehlo.dynamic_update_slice",
            Concatenate { .. } => "stablehlo.concatenate",
            Pad { .. } => "stablehlo.pad",
            Reverse { .. } => "stablehlo.reverse",
            GetDimensionSize { .. } => "stablehlo.get_dimension_size",
            Gather { .. } => "stablehlo.gather",
            Scatter { .. } => "stablehlo.scatter",
            Reduce { .. } => "stablehlo.reduce",
            ReduceWindow { .. } => "stablehlo.reduce_window",
            SelectAndScatter { .. } => "stablehlo.select_and_scatter",
            Sort { .. } => "stablehlo.sort",
            Map { .. } => "stablehlo.map",
            DotGeneral { .. } => "stablehlo.dot_general",
            Dot { .. } => "stablehlo.dot",
            Convolution(_) => "stablehlo.convolution",
            TriangularSolve { .. } => "stablehlo.triangular_solve",
            Cholesky { .. } => "stablehlo.cholesky",
            Fft { .. } => "stablehlo.fft",
            BatchNormInference { .. } => "stablehlo.batch_norm_inference",
            BatchNormTraining { .. } => "stablehlo.batch_norm_training",
            BatchNormGrad { .. } => "stablehlo.batch_norm_grad",
            While => "stablehlo.while",
            If => "stablehlo.if",
            Case => "stablehlo.case",
            OptimizationBarrier => "stablehlo.optimization_barrier",
            Tuple => "stablehlo.tuple",
            GetTupleElement { .. } => "stablehlo.get_tuple_element",
            AfterAll => "stablehlo.after_all",
            CreateToken => "stablehlo.create_token",
            RngBitGenerator { .. } => "stablehlo.rng_bit_generator",
            Rng { .. } => "stablehlo.rng",
            Composite { .. } => "stablehlo.composite",
            CustomCall { .. } => "stablehlo.custom_call",
            AllGather { .. } => "stablehlo.all_gather",
            AllReduce { .. } => "stablehlo.all_reduce",
            ReduceScatter { .. } => "stablehlo.reduce_scatter",
            AllToAll { .. } => "stablehlo.all_to_all",
            CollectivePermute { .. } => "stablehlo.collective_permute",
            CollectiveBroadcast { .. } => "stablehlo.collective_broadcast",
            CollectiveReduce { .. } => "stablehlo.collective_reduce",
            ReplicaId => "stablehlo.replica_id",
            PartitionId => "stablehlo.partition_id",
            Send { .. } => "stablehlo.send",
            Recv { .. } => "stablehlo.recv",
            Infeed { .. } => "stablehlo.infeed",
            Outfeed { .. } => "stablehlo.outfeed",
            TopK { .. } => "chlo.top_k",
            RaggedDot { .. } => "chlo.ragged_dot",
            Scan { .. } => "chlo.scan",
            Fusion { .. } => "systolic.fusion",
            ManualComputation(_) => "sdy.manual_computation",
            ShardingConstraint(_) => "sdy.sharding_constraint",
            RunParallel { .. } => "interpreter.run_parallel",
            InterpreterProbe { .. } => "interpreter.probe",
            InterpreterPrint => "interpreter.print",
            Check(c) => match c {
                CheckOp::ExpectEq => "check.expect_eq",
                CheckOp::ExpectEqConst(_) => "check.expect_eq_const",
                CheckOp::ExpectAlmostEq { .. } => "check.expect_almost_eq",
                CheckOp::ExpectAlmostEqConst { .. } => "check.expect_almost_eq_const",
                CheckOp::ExpectClose { .. } => "check.expect_close",
                CheckOp::ExpectSerializedEq { .. } => "check.expect_serialized_eq",
            },
        };
        s.to_string()
    }
}
