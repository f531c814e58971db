//! Attributes: the typed ones that StableHLO ops carry (dimension numbers, comparison
//! directions, precisions, …) and a generic [`Attribute`] for everything else (discardable
//! attributes such as `jax.result_info`, `mhlo.frontend_attributes`, custom-call configs), kept so
//! that printing a parsed module loses nothing.

use crate::dtype::DType;
use crate::sharding::{HloSharding, SdySharding};
use crate::tensor::Tensor;
use crate::types::Type;

/// `#stablehlo<comparison_direction EQ>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComparisonDirection {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>=`
    Ge,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `<`
    Lt,
}

impl ComparisonDirection {
    /// The keyword used in the text (`EQ`, `NE`, …).
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Eq => "EQ",
            Self::Ne => "NE",
            Self::Ge => "GE",
            Self::Gt => "GT",
            Self::Le => "LE",
            Self::Lt => "LT",
        }
    }

    /// Parses the keyword.
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "EQ" => Self::Eq,
            "NE" => Self::Ne,
            "GE" => Self::Ge,
            "GT" => Self::Gt,
            "LE" => Self::Le,
            "LT" => Self::Lt,
            _ => return None,
        })
    }
}

/// `#stablehlo<comparison_type TOTALORDER>`: how floats are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComparisonType {
    /// `NOTYPE`: the default for the element type.
    NoType,
    /// `FLOAT`: IEEE comparison (NaN unordered).
    Float,
    /// `TOTALORDER`: -NaN < -inf < … < -0 < +0 < … < inf < NaN.
    TotalOrder,
    /// `SIGNED`.
    Signed,
    /// `UNSIGNED`.
    Unsigned,
}

impl ComparisonType {
    /// The keyword used in the text.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::NoType => "NOTYPE",
            Self::Float => "FLOAT",
            Self::TotalOrder => "TOTALORDER",
            Self::Signed => "SIGNED",
            Self::Unsigned => "UNSIGNED",
        }
    }

    /// Parses the keyword.
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "NOTYPE" => Self::NoType,
            "FLOAT" => Self::Float,
            "TOTALORDER" => Self::TotalOrder,
            "SIGNED" => Self::Signed,
            "UNSIGNED" => Self::Unsigned,
            _ => return None,
        })
    }
}

/// `#stablehlo<precision DEFAULT>`: how many bf16 passes a TPU spends on an f32 product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// One bf16 pass on TPU.
    Default,
    /// Three bf16 passes (bf16_3x).
    High,
    /// Full f32 (six passes on TPU).
    Highest,
}

impl Precision {
    /// The keyword used in the text.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Default => "DEFAULT",
            Self::High => "HIGH",
            Self::Highest => "HIGHEST",
        }
    }

    /// Parses the keyword.
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "DEFAULT" => Self::Default,
            "HIGH" => Self::High,
            "HIGHEST" => Self::Highest,
            _ => return None,
        })
    }
}

/// `#stablehlo.dot<…>`: which dimensions of a `dot_general` are batch and contracting.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDimensionNumbers {
    /// Batch dimensions of the left operand.
    pub lhs_batching_dimensions: Vec<i64>,
    /// Batch dimensions of the right operand.
    pub rhs_batching_dimensions: Vec<i64>,
    /// Contracting dimensions of the left operand.
    pub lhs_contracting_dimensions: Vec<i64>,
    /// Contracting dimensions of the right operand.
    pub rhs_contracting_dimensions: Vec<i64>,
}

/// `#chlo.ragged_dot<…>`: a `dot_general`'s dimensions plus the one ragged dimension of the
/// left operand and the group dimension of the right operand, if it has one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct RaggedDotDimensionNumbers {
    /// Batch and contracting dimensions, as for `dot_general`.
    pub dot: DotDimensionNumbers,
    /// The ragged dimension of the left operand (exactly one).
    pub lhs_ragged_dimensions: Vec<i64>,
    /// The group dimension of the right operand (at most one; one exactly when the ragged
    /// dimension is a free dimension of the left operand).
    pub rhs_group_dimensions: Vec<i64>,
}

/// A precision type of a dot algorithm: an element type, or `tf32`, which StableHLO has only
/// here (TensorFloat-32: f32's exponent with 10 mantissa bits; never a tensor element type).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PrecisionType {
    /// An element type, as a scalar tensor type (`bf16`, `f32`, …).
    Type(Type),
    /// `tf32`.
    Tf32,
}

impl PrecisionType {
    /// The element type, or `None` for tf32.
    pub fn dtype(&self) -> Option<DType> {
        match self {
            PrecisionType::Type(t) => t.as_tensor().map(|t| t.dtype),
            PrecisionType::Tf32 => None,
        }
    }

    /// `x` rounded to this precision (ties to even): tf32 keeps 10 of f32's 23 mantissa bits;
    /// an element type rounds as its arithmetic does. Complex types are left alone.
    pub fn round(&self, x: f64) -> f64 {
        match self {
            PrecisionType::Tf32 => round_to_tf32(x),
            PrecisionType::Type(_) => match self.dtype() {
                Some(d) if d.is_float() => crate::numerics::round_to(d, x),
                _ => x,
            },
        }
    }
}

impl From<Type> for PrecisionType {
    fn from(t: Type) -> Self {
        PrecisionType::Type(t)
    }
}

/// `x` rounded to tf32 (f32's range and 10 explicit mantissa bits, ties to even), through f32
/// as the hardware converts an f32 input; NaN and ±∞ stay.
pub fn round_to_tf32(x: f64) -> f64 {
    let f = x as f32;
    if !f.is_finite() {
        return f as f64;
    }
    let bits = f.to_bits();
    // Round the 13 dropped bits to nearest, ties to even; a carry may reach the exponent
    // (and overflow to ∞, as rounding f32::MAX to tf32 does).
    let lsb = (bits >> 13) & 1;
    let rounded = (bits + 0xfff + lsb) & !0x1fff;
    f32::from_bits(rounded) as f64
}

/// `#stablehlo.dot_algorithm<…>`: the numeric algorithm a `dot_general` asks for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DotAlgorithm {
    /// Precision the left operand is rounded to.
    pub lhs_precision_type: PrecisionType,
    /// Precision the right operand is rounded to.
    pub rhs_precision_type: PrecisionType,
    /// Accumulation type.
    pub accumulation_type: Type,
    /// Components of the left operand (1 unless split, e.g. bf16_3x).
    pub lhs_component_count: i64,
    /// Components of the right operand.
    pub rhs_component_count: i64,
    /// Primitive products per output.
    pub num_primitive_operations: i64,
    /// Whether the accumulation may be imprecise.
    pub allow_imprecise_accumulation: bool,
}

/// `#stablehlo.gather<…>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDimensionNumbers {
    /// Output dimensions that index into a slice.
    pub offset_dims: Vec<i64>,
    /// Operand dimensions of slice size 1 that are dropped from the output.
    pub collapsed_slice_dims: Vec<i64>,
    /// Operand dimensions that are batch dimensions.
    pub operand_batching_dims: Vec<i64>,
    /// Index dimensions that are batch dimensions.
    pub start_indices_batching_dims: Vec<i64>,
    /// Which operand dimension each index component addresses.
    pub start_index_map: Vec<i64>,
    /// The dimension of the indices that holds index vectors.
    pub index_vector_dim: i64,
}

/// `#stablehlo.scatter<…>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDimensionNumbers {
    /// Update dimensions that index into a window.
    pub update_window_dims: Vec<i64>,
    /// Operand dimensions of window size 1 absent from the updates.
    pub inserted_window_dims: Vec<i64>,
    /// Operand dimensions that are batch dimensions.
    pub input_batching_dims: Vec<i64>,
    /// Index dimensions that are batch dimensions.
    pub scatter_indices_batching_dims: Vec<i64>,
    /// Which operand dimension each index component addresses.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// The dimension of the indices that holds index vectors.
    pub index_vector_dim: i64,
}

/// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConvDimensionNumbers {
    /// Batch dimension of the input.
    pub input_batch_dimension: i64,
    /// Feature dimension of the input.
    pub input_feature_dimension: i64,
    /// Spatial dimensions of the input, in spatial order.
    pub input_spatial_dimensions: Vec<i64>,
    /// Input-feature dimension of the kernel.
    pub kernel_input_feature_dimension: i64,
    /// Output-feature dimension of the kernel.
    pub kernel_output_feature_dimension: i64,
    /// Spatial dimensions of the kernel.
    pub kernel_spatial_dimensions: Vec<i64>,
    /// Batch dimension of the output.
    pub output_batch_dimension: i64,
    /// Feature dimension of the output.
    pub output_feature_dimension: i64,
    /// Spatial dimensions of the output.
    pub output_spatial_dimensions: Vec<i64>,
}

/// Everything a `convolution` carries besides its dimension numbers. Absent attributes take
/// their defaults (strides and dilations 1, padding 0, no reversal, group counts 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConvAttrs {
    /// Dimension numbers.
    pub dimension_numbers: ConvDimensionNumbers,
    /// `window_strides`, one per spatial dimension, if given.
    pub window_strides: Option<Vec<i64>>,
    /// `padding` as (low, high) per spatial dimension, if given.
    pub padding: Option<Vec<(i64, i64)>>,
    /// `lhs_dilation` (input/base dilation), if given.
    pub lhs_dilation: Option<Vec<i64>>,
    /// `rhs_dilation` (kernel/window dilation), if given.
    pub rhs_dilation: Option<Vec<i64>>,
    /// `window_reversal`, if given.
    pub window_reversal: Option<Vec<bool>>,
    /// `feature_group_count`.
    pub feature_group_count: i64,
    /// `batch_group_count`.
    pub batch_group_count: i64,
    /// `precision_config`, one per operand (may be empty).
    pub precision_config: Vec<Precision>,
}

/// `#stablehlo<rng_algorithm THREE_FRY>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RngAlgorithm {
    /// Implementation-defined: Philox on XLA:CPU (observed with jax 0.10.2), and so in the
    /// interpreter.
    Default,
    /// Threefry-2x32-20.
    ThreeFry,
    /// Philox-4x32-10.
    Philox,
}

impl RngAlgorithm {
    /// The keyword used in the text.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Default => "DEFAULT",
            Self::ThreeFry => "THREE_FRY",
            Self::Philox => "PHILOX",
        }
    }

    /// Parses the keyword.
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "DEFAULT" => Self::Default,
            "THREE_FRY" => Self::ThreeFry,
            "PHILOX" => Self::Philox,
            _ => return None,
        })
    }
}

/// `#stablehlo<rng_distribution UNIFORM>` (the deprecated `stablehlo.rng`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RngDistribution {
    /// Uniform in [a, b).
    Uniform,
    /// Normal with mean a and standard deviation b.
    Normal,
}

impl RngDistribution {
    /// The keyword used in the text.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Uniform => "UNIFORM",
            Self::Normal => "NORMAL",
        }
    }

    /// Parses the keyword.
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "UNIFORM" => Self::Uniform,
            "NORMAL" => Self::Normal,
            _ => return None,
        })
    }
}

/// `#stablehlo<fft_type FFT>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FftType {
    /// Complex → complex forward.
    Fft,
    /// Complex → complex inverse.
    Ifft,
    /// Real → complex forward.
    Rfft,
    /// Complex → real inverse.
    Irfft,
}

impl FftType {
    /// The keyword used in the text.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Fft => "FFT",
            Self::Ifft => "IFFT",
            Self::Rfft => "RFFT",
            Self::Irfft => "IRFFT",
        }
    }

    /// Parses the keyword.
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "FFT" => Self::Fft,
            "IFFT" => Self::Ifft,
            "RFFT" => Self::Rfft,
            "IRFFT" => Self::Irfft,
            _ => return None,
        })
    }
}

/// `#stablehlo<transpose NO_TRANSPOSE>` for `triangular_solve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransposeKind {
    /// Use `a` as is.
    NoTranspose,
    /// Use `a`ᵀ.
    Transpose,
    /// Use the conjugate transpose (= transpose for real types).
    Adjoint,
}

impl TransposeKind {
    /// The keyword used in the text.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::NoTranspose => "NO_TRANSPOSE",
            Self::Transpose => "TRANSPOSE",
            Self::Adjoint => "ADJOINT",
        }
    }

    /// Parses the keyword.
    pub fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "NO_TRANSPOSE" => Self::NoTranspose,
            "TRANSPOSE" => Self::Transpose,
            "ADJOINT" => Self::Adjoint,
            _ => return None,
        })
    }
}

/// `#stablehlo.channel_handle<handle = 1, type = 1>` of a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ChannelHandle {
    /// Channel id.
    pub handle: i64,
    /// Channel type (0 invalid, 1 device-to-device, 2 device-to-host, 3 host-to-device).
    pub kind: i64,
}

/// Attributes shared by the collectives that talk within replica groups.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CollectiveAttrs {
    /// `replica_groups`: each row a group of process ids (-1 pads short rows).
    pub replica_groups: Vec<Vec<i64>>,
    /// `channel_handle`, if present.
    pub channel_handle: Option<ChannelHandle>,
    /// `use_global_device_ids`.
    pub use_global_device_ids: bool,
    /// `has_dynamic_root` (collective_broadcast only): the last operand holds, per result, the
    /// index within its group of the process that sends it.
    pub has_dynamic_root: bool,
}

/// An MLIR source location, as `loc(...)` prints it. Kept for round-tripping and for naming
/// where in the user's Python program an op came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    /// `loc(unknown)`.
    Unknown,
    /// `loc("file.py":3:7)`.
    FileLineCol {
        /// File name.
        file: String,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
    },
    /// `loc("name"(child))` or `loc("name")`.
    Name {
        /// The name (often the JAX op path, `jit(f)/jit(main)/add`).
        name: String,
        /// The nested location, if any.
        child: Option<Box<Location>>,
    },
    /// `loc(callsite(callee at caller))`.
    CallSite {
        /// Where the callee is.
        callee: Box<Location>,
        /// Where it was called from.
        caller: Box<Location>,
    },
    /// `loc(fused[a, b])` (optionally with metadata, kept as text).
    Fused {
        /// Metadata printed as `fused<...>`, if any.
        metadata: Option<String>,
        /// The fused locations.
        locations: Vec<Location>,
    },
    /// `loc(#loc3)`: a reference to an alias defined at module level.
    Alias(String),
}

/// A generic MLIR attribute value, for attributes the IR does not model with a type of its own.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// `unit` (an attribute present without a value).
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// `42 : i64` (type defaults to i64 when absent).
    Int(i64, Option<Type>),
    /// `1.0 : f32`.
    Float(f64, Option<Type>),
    /// `"text"`.
    String(String),
    /// `@symbol` (nested references are joined with `::`).
    SymbolRef(String),
    /// `[a, b, …]`.
    Array(Vec<Attribute>),
    /// `array<i64: 1, 2>` (also `array<i32: …>`, `array<i1: …>` normalised to i64 values with
    /// the element type kept).
    DenseArray(String, Vec<i64>),
    /// `dense<…> : tensor<…>` (and `dense_resource` is not supported).
    Dense(Tensor),
    /// `{name = value, …}`.
    Dict(Vec<NamedAttr>),
    /// A type used as an attribute value, e.g. `f32`.
    Type(Type),
    /// `#sdy.sharding<…>`.
    SdySharding(SdySharding),
    /// The string of an `mhlo.sharding` attribute, parsed.
    HloSharding(HloSharding),
    /// Anything else, as its exact text (e.g. `#stablehlo.result_accuracy<…>`,
    /// `#sdy.sharding_per_value<…>`); printed back verbatim.
    Opaque(String),
}

/// A named attribute: `name = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedAttr {
    /// The name, e.g. `jax.result_info`.
    pub name: String,
    /// The value.
    pub value: Attribute,
}

impl NamedAttr {
    /// A named attribute.
    pub fn new(name: impl Into<String>, value: Attribute) -> Self {
        NamedAttr {
            name: name.into(),
            value,
        }
    }
}

/// Looks up an attribute by name in a list.
pub fn find_attr<'a>(attrs: &'a [NamedAttr], name: &str) -> Option<&'a Attribute> {
    attrs.iter().find(|a| a.name == name).map(|a| &a.value)
}
