//! Each op's attributes, written once. A table row names the op, its `OpKind` variant and, per
//! field, how the field is stored in the attribute dictionary: the attribute's name, its
//! encoding (a [`Codec`]: `i64` ints, `array<i64: …>`, dense tensors, `#stablehlo.…`
//! attributes, …) and what an absent attribute means. From the rows `op_table!` derives both
//! directions: [`read_op`] (name + dictionary → `OpKind`, for the generic-form parser and the
//! pretty-form parsers, which put what they read under the same names) and [`op_props`]
//! (`OpKind` → the dictionary the generic form prints; the pretty forms take the entries they
//! print in their `{…}` from it). Field modes:
//!
//! - `req(C, "name")`: required; absent is "missing attribute 'name'"; always written.
//! - `or(C, "name", d)`: absent reads as `d`; always written.
//! - `elide(C, "name", d)`: absent reads as `d`; left out when the value is `d`.
//! - `opt(C, "name")`: an `Option` field; absent is `None`, which is left out.
//! - `group(G)`: several attributes read into one struct field (a [`Group`], itself a table).
//! - `fixed(v)`: not an attribute; always `v`.
//!
//! Written by hand (both directions next to each other): `return` (no attributes), the
//! elementwise enums (by name), and `slice` (whose `strides` default depends on
//! `start_indices`).

use super::parse_attrs::{attr_int_list, parse_sharding_list};
use super::parse_build::{describe_attr, Bag};
use super::parse_sharding::parse_axis_names;
use super::parse_stablehlo_attrs::*;
use super::print_op_attrs::*;
use super::print_sharding::{write_axis_names, write_sharding_list};
use crate::attrs::*;
use crate::dtype::DType;
use crate::ops::*;
use crate::sharding::{ManualComputationAttrs, SdySharding};
use crate::tensor::Tensor;
use crate::types::{TensorType, Type};
use crate::window::Window;
use std::marker::PhantomData;

/// One attribute's encoding: its value from the attribute, and the attribute for a value.
pub(crate) trait Codec {
    type Value;
    /// The value of attribute `name` (`name` is for error messages).
    fn decode(name: &str, a: Attribute) -> Result<Self::Value, String>;
    /// The attribute; `None` when the value is written by leaving the attribute out.
    fn encode(v: &Self::Value) -> Option<Attribute>;
}

/// Several attributes that make up one field (a window, a collective's groups and channel).
pub(crate) trait Group {
    type Value;
    fn read(b: &mut Bag) -> Result<Self::Value, String>;
    fn write(v: &Self::Value, props: &mut Props);
}

fn req<C: Codec>(b: &mut Bag, name: &str) -> Result<C::Value, String> {
    match b.take(name) {
        None => Err(format!("missing attribute '{name}'")),
        Some(a) => C::decode(name, a),
    }
}

fn or<C: Codec>(
    b: &mut Bag,
    name: &str,
    default: impl FnOnce() -> C::Value,
) -> Result<C::Value, String> {
    match b.take(name) {
        None => Ok(default()),
        Some(a) => C::decode(name, a),
    }
}

fn opt<C: Codec>(b: &mut Bag, name: &str) -> Result<Option<C::Value>, String> {
    b.take(name).map(|a| C::decode(name, a)).transpose()
}

fn put<C: Codec>(props: &mut Props, name: &str, v: &C::Value) {
    if let Some(a) = C::encode(v) {
        prop(props, name, a);
    }
}

/// Reads one field as its mode says.
macro_rules! read_field {
    ($b:ident, req($c:ty, $a:literal)) => {
        req::<$c>($b, $a)?
    };
    ($b:ident, or($c:ty, $a:literal, $d:expr)) => {
        or::<$c>($b, $a, || $d)?
    };
    ($b:ident, elide($c:ty, $a:literal, $d:expr)) => {
        or::<$c>($b, $a, || $d)?
    };
    ($b:ident, opt($c:ty, $a:literal)) => {
        opt::<$c>($b, $a)?
    };
    ($b:ident, group($g:ty)) => {
        <$g as Group>::read($b)?
    };
    ($b:ident, fixed($e:expr)) => {
        $e
    };
}

/// Writes one field (`$v` is a reference to its value) as its mode says.
macro_rules! write_field {
    ($p:ident, $v:expr, req($c:ty, $a:literal)) => {
        put::<$c>($p, $a, $v)
    };
    ($p:ident, $v:expr, or($c:ty, $a:literal, $d:expr)) => {
        put::<$c>($p, $a, $v)
    };
    ($p:ident, $v:expr, elide($c:ty, $a:literal, $d:expr)) => {{
        let default: <$c as Codec>::Value = $d;
        if *$v != default {
            put::<$c>($p, $a, $v)
        }
    }};
    ($p:ident, $v:expr, opt($c:ty, $a:literal)) => {
        if let Some(v) = $v {
            put::<$c>($p, $a, v)
        }
    };
    ($p:ident, $v:expr, group($g:ty)) => {
        <$g as Group>::write($v, $p)
    };
    ($p:ident, $v:expr, fixed($e:expr)) => {{
        let _ = $v;
    }};
}

/// `fn $read(name, bag) -> Result<Option<Enum>>` and `fn $write(&Enum, &mut Props) -> bool`
/// (false: the variant has no row) from one table of `"op.name" => Variant { fields };` rows
/// (also `Variant(binding: mode(…));` and unit `Variant;`).
macro_rules! op_table {
    (
        fn $read:ident / $write:ident for $enum:ident {
            $(
                $name:literal => $variant:ident
                $( { $( $f:ident : $mode:ident ( $($arg:tt)* ) ),* $(,)? } )?
                $( ( $tf:ident : $tmode:ident ( $($targ:tt)* ) ) )? ;
            )*
        }
    ) => {
        fn $read(name: &str, b: &mut Bag) -> Result<Option<$enum>, String> {
            let _ = &b;
            Ok(Some(match name {
                $(
                    $name => $enum::$variant
                        $( { $( $f: read_field!(b, $mode($($arg)*)) ),* } )?
                        $( ( read_field!(b, $tmode($($targ)*)) ) )?,
                )*
                _ => return Ok(None),
            }))
        }

        fn $write(kind: &$enum, props: &mut Props) -> bool {
            let _ = &props;
            #[allow(unreachable_patterns)]
            match kind {
                $(
                    $enum::$variant $( { $( $f ),* } )? $( ( $tf ) )? => {
                        $( $( write_field!(props, $f, $mode($($arg)*)); )* )?
                        $( write_field!(props, $tf, $tmode($($targ)*)); )?
                    }
                )*
                _ => return false,
            }
            true
        }
    };
}

/// A [`Group`] named `$marker` for struct `$ty` from a list of fields as in `op_table!`.
macro_rules! group_table {
    ($marker:ident => $ty:ident { $( $f:ident : $mode:ident ( $($arg:tt)* ) ),* $(,)? }) => {
        pub(crate) struct $marker;

        impl Group for $marker {
            type Value = $ty;

            fn read(b: &mut Bag) -> Result<$ty, String> {
                Ok($ty { $( $f: read_field!(b, $mode($($arg)*)) ),* })
            }

            fn write(v: &$ty, props: &mut Props) {
                $( write_field!(props, &v.$f, $mode($($arg)*)); )*
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// The tables.

op_table! {
    fn read_table / write_table for OpKind {
        "func.call" => Call { callee: req(Symbol, "callee") };
        "stablehlo.compare" => Compare {
            direction: req(Kw<ComparisonDirection>, "comparison_direction"),
            compare_type: opt(Kw<ComparisonType>, "compare_type"),
        };
        "stablehlo.select" => Select;
        "stablehlo.clamp" => Clamp;
        "stablehlo.convert" => Convert;
        "stablehlo.bitcast_convert" => BitcastConvert;
        "stablehlo.uniform_quantize" => UniformQuantize;
        "stablehlo.uniform_dequantize" => UniformDequantize;
        "stablehlo.reduce_precision" => ReducePrecision {
            exponent_bits: req(I32, "exponent_bits"),
            mantissa_bits: req(I32, "mantissa_bits"),
        };
        "stablehlo.constant" => Constant(value: req(Dense, "value"));
        "stablehlo.iota" => Iota { dimension: req(I64, "iota_dimension") };
        "stablehlo.broadcast_in_dim" => BroadcastInDim {
            broadcast_dimensions: req(I64s, "broadcast_dimensions"),
        };
        "stablehlo.broadcast" => Broadcast { broadcast_sizes: req(I64s, "broadcast_sizes") };
        "stablehlo.reshape" => Reshape;
        "stablehlo.transpose" => Transpose { permutation: req(I64s, "permutation") };
        "stablehlo.dynamic_slice" => DynamicSlice { slice_sizes: req(I64s, "slice_sizes") };
        "stablehlo.dynamic_update_slice" => DynamicUpdateSlice;
        "stablehlo.concatenate" => Concatenate { dimension: req(I64, "dimension") };
        "stablehlo.pad" => Pad {
            edge_padding_low: req(I64s, "edge_padding_low"),
            edge_padding_high: req(I64s, "edge_padding_high"),
            interior_padding: req(I64s, "interior_padding"),
        };
        "stablehlo.reverse" => Reverse { dimensions: req(I64s, "dimensions") };
        "stablehlo.get_dimension_size" => GetDimensionSize { dimension: req(I64, "dimension") };
        "stablehlo.gather" => Gather {
            dimension_numbers: req(GatherDims, "dimension_numbers"),
            slice_sizes: req(I64s, "slice_sizes"),
            indices_are_sorted: or(Flag, "indices_are_sorted", false),
        };
        "stablehlo.scatter" => Scatter {
            dimension_numbers: req(ScatterDims, "scatter_dimension_numbers"),
            indices_are_sorted: or(Flag, "indices_are_sorted", false),
            unique_indices: or(Flag, "unique_indices", false),
        };
        "stablehlo.reduce" => Reduce { dimensions: req(I64s, "dimensions") };
        "stablehlo.reduce_window" => ReduceWindow { window: group(WindowAttrs) };
        // No dilations in StableHLO: attributes of those names stay unknown attributes.
        "stablehlo.select_and_scatter" => SelectAndScatter { window: group(SelectWindowAttrs) };
        "stablehlo.sort" => Sort {
            dimension: or(I64, "dimension", -1),
            is_stable: or(Flag, "is_stable", false),
        };
        "stablehlo.map" => Map { dimensions: req(I64s, "dimensions") };
        "stablehlo.dot_general" => DotGeneral {
            dimension_numbers: req(DotDims, "dot_dimension_numbers"),
            precision_config: elide(Precisions, "precision_config", vec![]),
            algorithm: opt(DotAlgo, "algorithm"),
        };
        "stablehlo.dot" => Dot { precision_config: elide(Precisions, "precision_config", vec![]) };
        "stablehlo.convolution" => Convolution(c: group(ConvAttrsGroup));
        "stablehlo.triangular_solve" => TriangularSolve {
            left_side: or(Flag, "left_side", false),
            lower: or(Flag, "lower", false),
            unit_diagonal: or(Flag, "unit_diagonal", false),
            transpose_a: or(Kw<TransposeKind>, "transpose_a", TransposeKind::NoTranspose),
        };
        "stablehlo.cholesky" => Cholesky { lower: elide(Flag, "lower", false) };
        "stablehlo.fft" => Fft {
            fft_type: req(Kw<FftType>, "fft_type"),
            fft_length: req(I64s, "fft_length"),
        };
        "stablehlo.batch_norm_inference" => BatchNormInference {
            epsilon: req(F32, "epsilon"),
            feature_index: req(I64, "feature_index"),
        };
        "stablehlo.batch_norm_training" => BatchNormTraining {
            epsilon: req(F32, "epsilon"),
            feature_index: req(I64, "feature_index"),
        };
        "stablehlo.batch_norm_grad" => BatchNormGrad {
            epsilon: req(F32, "epsilon"),
            feature_index: req(I64, "feature_index"),
        };
        "stablehlo.while" => While;
        "stablehlo.if" => If;
        "stablehlo.case" => Case;
        "stablehlo.optimization_barrier" => OptimizationBarrier;
        "stablehlo.tuple" => Tuple;
        "stablehlo.get_tuple_element" => GetTupleElement { index: req(I64AsI32, "index") };
        "stablehlo.after_all" => AfterAll;
        "stablehlo.create_token" => CreateToken;
        "stablehlo.rng_bit_generator" => RngBitGenerator {
            algorithm: or(Kw<RngAlgorithm>, "rng_algorithm", RngAlgorithm::Default),
        };
        "stablehlo.rng" => Rng { distribution: req(Kw<RngDistribution>, "rng_distribution") };
        "stablehlo.composite" => Composite {
            name: req(Str, "name"),
            decomposition: req(Symbol, "decomposition"),
            composite_attributes: elide(Dict, "composite_attributes", vec![]),
            version: elide(I64AsI32, "version", 0),
        };
        "stablehlo.custom_call" => CustomCall {
            call_target_name: req(StrOrSymbol, "call_target_name"),
            has_side_effect: elide(Flag, "has_side_effect", false),
            backend_config: opt(Raw, "backend_config"),
            api_version: or(ApiVersion, "api_version", 0),
            called_computations: elide(SymbolList, "called_computations", vec![]),
        };
        "stablehlo.all_gather" => AllGather {
            all_gather_dim: req(I64, "all_gather_dim"),
            collective: group(Collective),
        };
        "stablehlo.all_reduce" => AllReduce { collective: group(Collective) };
        "stablehlo.reduce_scatter" => ReduceScatter {
            scatter_dimension: req(I64, "scatter_dimension"),
            collective: group(Collective),
        };
        "stablehlo.all_to_all" => AllToAll {
            split_dimension: req(I64, "split_dimension"),
            concat_dimension: req(I64, "concat_dimension"),
            split_count: req(I64, "split_count"),
            collective: group(Collective),
        };
        "stablehlo.collective_permute" => CollectivePermute {
            source_target_pairs: req(PairsTensor, "source_target_pairs"),
            channel_handle: opt(Channel, "channel_handle"),
        };
        "stablehlo.collective_broadcast" => CollectiveBroadcast { collective: group(Collective) };
        "stablehlo.collective_reduce" => CollectiveReduce { collective: group(Collective) };
        "stablehlo.replica_id" => ReplicaId;
        "stablehlo.partition_id" => PartitionId;
        "stablehlo.send" => Send {
            channel_handle: or(Channel, "channel_handle", ChannelHandle::default()),
            is_host_transfer: or(Flag, "is_host_transfer", false),
        };
        "stablehlo.recv" => Recv {
            channel_handle: or(Channel, "channel_handle", ChannelHandle::default()),
            is_host_transfer: or(Flag, "is_host_transfer", false),
        };
        "stablehlo.infeed" => Infeed { infeed_config: or(Str, "infeed_config", String::new()) };
        "stablehlo.outfeed" => Outfeed {
            outfeed_config: or(Str, "outfeed_config", String::new()),
        };
        "chlo.top_k" => TopK { k: req(I64, "k"), largest: elide(Flag, "largest", true) };
        "systolic.fusion" => Fusion {
            kind: or(FusionKindAttr, "kind", FusionKind::Loop),
            name: or(Str, "name", "fusion".to_string()),
        };
        "sdy.manual_computation" => ManualComputation(attrs: group(ManualComputationGroup));
        "sdy.sharding_constraint" => ShardingConstraint(sharding: req(SdyShardingAttr, "sharding"));
        "chlo.ragged_dot" => RaggedDot {
            dimension_numbers: req(RaggedDotDims, "ragged_dot_dimension_numbers"),
            precision_config: elide(ChloPrecisions, "precision_config", vec![]),
        };
        "chlo.scan" => Scan {
            dimension: req(I64, "dimension"),
            operand_segment_sizes: req(I32s, "operandSegmentSizes"),
            result_segment_sizes: req(I32s, "resultSegmentSizes"),
            is_reverse: elide(Flag, "is_reverse", false),
            is_associative: opt(Flag, "is_associative"),
            scan_dim_size: opt(I64, "scan_dim_size"),
        };
        "interpreter.probe" => InterpreterProbe { probe_id: req(Str, "probe_id") };
        "interpreter.print" => InterpreterPrint;
        "interpreter.run_parallel" => RunParallel {
            programs: req(SymbolRows, "programs"),
            infeed: elide(SymbolList, "infeed", vec![]),
        };
    }
}

op_table! {
    fn read_check / write_check for CheckOp {
        "check.expect_eq" => ExpectEq;
        "check.expect_eq_const" => ExpectEqConst(expected: req(Dense, "value"));
        "check.expect_almost_eq" => ExpectAlmostEq { tolerance: opt(F64, "tolerance") };
        "check.expect_almost_eq_const" => ExpectAlmostEqConst {
            expected: req(Dense, "value"),
            tolerance: opt(F64, "tolerance"),
        };
        "check.expect_close" => ExpectClose {
            max_ulp_difference: or(U64, "max_ulp_difference", 0),
            min_ulp_difference: or(U64, "min_ulp_difference", 0),
        };
        "check.expect_serialized_eq" => ExpectSerializedEq {
            probe_id: or(Str, "probe_id", String::new()),
            iteration: or(U64, "iter", 0),
        };
    }
}

group_table!(WindowAttrs => Window {
    window_dimensions: req(I64s, "window_dimensions"),
    window_strides: opt(I64s, "window_strides"),
    base_dilations: opt(I64s, "base_dilations"),
    window_dilations: opt(I64s, "window_dilations"),
    padding: opt(Pairs, "padding"),
});

group_table!(SelectWindowAttrs => Window {
    window_dimensions: req(I64s, "window_dimensions"),
    window_strides: opt(I64s, "window_strides"),
    base_dilations: fixed(None),
    window_dilations: fixed(None),
    padding: opt(Pairs, "padding"),
});

group_table!(Collective => CollectiveAttrs {
    replica_groups: or(ReplicaGroups, "replica_groups", vec![]),
    channel_handle: opt(Channel, "channel_handle"),
    use_global_device_ids: or(UnitFlag, "use_global_device_ids", false),
    has_dynamic_root: or(UnitFlag, "has_dynamic_root", false),
});

group_table!(ConvAttrsGroup => ConvAttrs {
    dimension_numbers: req(ConvDims, "dimension_numbers"),
    window_strides: opt(I64s, "window_strides"),
    padding: opt(Pairs, "padding"),
    lhs_dilation: opt(I64s, "lhs_dilation"),
    rhs_dilation: opt(I64s, "rhs_dilation"),
    window_reversal: opt(Bools, "window_reversal"),
    feature_group_count: or(I64, "feature_group_count", 1),
    batch_group_count: or(I64, "batch_group_count", 1),
    precision_config: elide(Precisions, "precision_config", vec![]),
});

/// `sdy.manual_computation`'s three attributes, boxed as the op kind holds them.
pub(crate) struct ManualComputationGroup;
impl Group for ManualComputationGroup {
    type Value = Box<ManualComputationAttrs>;
    fn read(b: &mut Bag) -> Result<Self::Value, String> {
        Ok(Box::new(ManualComputationAttrs {
            in_shardings: req::<ShardingPerValue>(b, "in_shardings")?,
            out_shardings: req::<ShardingPerValue>(b, "out_shardings")?,
            manual_axes: req::<ManualAxes>(b, "manual_axes")?,
        }))
    }
    fn write(v: &Self::Value, props: &mut Props) {
        put::<ShardingPerValue>(props, "in_shardings", &v.in_shardings);
        put::<ShardingPerValue>(props, "out_shardings", &v.out_shardings);
        put::<ManualAxes>(props, "manual_axes", &v.manual_axes);
    }
}

/// The attributes of the convolution's pretty form that it writes in its own syntax
/// (`dim_numbers = …, window = {…}`) rather than in its attribute dictionary.
pub(crate) const CONV_PRETTY_SYNTAX: &[&str] = &[
    "dimension_numbers",
    "window_strides",
    "padding",
    "lhs_dilation",
    "rhs_dilation",
    "window_reversal",
];

// ---------------------------------------------------------------------------------------------
// The two directions.

/// Builds the op kind for a full op name (`mhlo.` read as `stablehlo.`), taking the attributes
/// it models out of the bag. `Ok(None)` means the name is not a known op.
pub(crate) fn read_op(name: &str, b: &mut Bag) -> Result<Option<OpKind>, String> {
    let stablehlo;
    let name = match name.strip_prefix("mhlo.") {
        Some(short) => {
            stablehlo = format!("stablehlo.{short}");
            stablehlo.as_str()
        }
        None => name,
    };
    let (dialect, short) = name.split_once('.').unwrap_or(("", name));
    match dialect {
        "stablehlo" => {
            if let Some(u) = UnaryOp::from_name(short) {
                return Ok(Some(OpKind::Unary(u)));
            }
            if let Some(op) = BinaryOp::from_name(short) {
                return Ok(Some(OpKind::Binary(op)));
            }
        }
        "chlo" => {
            if let Some(u) = ChloUnaryOp::from_name(short) {
                return Ok(Some(OpKind::ChloUnary(u)));
            }
            if let Some(op) = ChloBinaryOp::from_name(short) {
                return Ok(Some(OpKind::ChloBinary(op)));
            }
        }
        "check" => return Ok(read_check(name, b)?.map(OpKind::Check)),
        _ => {}
    }
    match name {
        "stablehlo.return" => Ok(Some(OpKind::Return(ReturnKind::Stablehlo))),
        "sdy.return" => Ok(Some(OpKind::Return(ReturnKind::Sdy))),
        "func.return" => Ok(Some(OpKind::Return(ReturnKind::Func))),
        "stablehlo.slice" => {
            let start_indices = req::<I64s>(b, "start_indices")?;
            let limit_indices = req::<I64s>(b, "limit_indices")?;
            let strides =
                opt::<I64s>(b, "strides")?.unwrap_or_else(|| vec![1; start_indices.len()]);
            Ok(Some(OpKind::Slice {
                start_indices,
                limit_indices,
                strides,
            }))
        }
        _ => read_table(name, b),
    }
}

/// The attribute dictionary `kind` prints in the generic form (unsorted; the printer sorts).
pub(crate) fn op_props(kind: &OpKind) -> Props {
    let mut props = Props::new();
    match kind {
        OpKind::Return(_)
        | OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::ChloUnary(_)
        | OpKind::ChloBinary(_) => {}
        OpKind::Slice {
            start_indices,
            limit_indices,
            strides,
        } => {
            put::<I64s>(&mut props, "start_indices", start_indices);
            put::<I64s>(&mut props, "limit_indices", limit_indices);
            put::<I64s>(&mut props, "strides", strides);
        }
        OpKind::Check(c) => {
            write_check(c, &mut props);
        }
        other => {
            let known = write_table(other, &mut props);
            debug_assert!(known, "no attribute schema for {}", other.name());
        }
    }
    props
}

/// [`op_props`] without the attributes a pretty form writes in its own syntax.
pub(crate) fn op_props_except(kind: &OpKind, own_syntax: &[&str]) -> Props {
    let mut props = op_props(kind);
    props.retain(|p| !own_syntax.contains(&p.name.as_str()));
    props
}

// ---------------------------------------------------------------------------------------------
// The codecs.

/// `42 : i64`.
pub(crate) struct I64;
impl Codec for I64 {
    type Value = i64;
    fn decode(name: &str, a: Attribute) -> Result<i64, String> {
        match a {
            Attribute::Int(v, _) => Ok(v),
            _ => Err(format!("'{name}' must be an integer")),
        }
    }
    fn encode(v: &i64) -> Option<Attribute> {
        Some(i64_attr(*v))
    }
}

/// `42 : i32` held as an `i64`.
pub(crate) struct I64AsI32;
impl Codec for I64AsI32 {
    type Value = i64;
    fn decode(name: &str, a: Attribute) -> Result<i64, String> {
        I64::decode(name, a)
    }
    fn encode(v: &i64) -> Option<Attribute> {
        Some(i32_attr(*v))
    }
}

/// `5 : i32` held as an `i32`.
pub(crate) struct I32;
impl Codec for I32 {
    type Value = i32;
    fn decode(name: &str, a: Attribute) -> Result<i32, String> {
        let v = I64::decode(name, a)?;
        i32::try_from(v).map_err(|_| format!("'{name}' = {v} does not fit i32"))
    }
    fn encode(v: &i32) -> Option<Attribute> {
        Some(i32_attr(i64::from(*v)))
    }
}

/// A non-negative integer, `3 : i64`.
pub(crate) struct U64;
impl Codec for U64 {
    type Value = u64;
    fn decode(name: &str, a: Attribute) -> Result<u64, String> {
        let v = I64::decode(name, a)?;
        u64::try_from(v).map_err(|_| format!("'{name}' must not be negative"))
    }
    fn encode(v: &u64) -> Option<Attribute> {
        Some(i64_attr(*v as i64))
    }
}

/// `array<i64: 1, 2>` (read from any integer list).
pub(crate) struct I64s;
impl Codec for I64s {
    type Value = Vec<i64>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<i64>, String> {
        attr_int_list(&a).ok_or_else(|| format!("'{name}' must be a list of integers"))
    }
    fn encode(v: &Vec<i64>) -> Option<Attribute> {
        Some(i64_array(v))
    }
}

/// `array<i32: 1, 2>` held as `i64`s (MLIR's segment sizes).
pub(crate) struct I32s;
impl Codec for I32s {
    type Value = Vec<i64>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<i64>, String> {
        I64s::decode(name, a)
    }
    fn encode(v: &Vec<i64>) -> Option<Attribute> {
        Some(Attribute::DenseArray("i32".to_string(), v.clone()))
    }
}

/// `true` / `false` (a unit attribute reads as true).
pub(crate) struct Flag;
impl Codec for Flag {
    type Value = bool;
    fn decode(name: &str, a: Attribute) -> Result<bool, String> {
        match a {
            Attribute::Bool(b) => Ok(b),
            Attribute::Unit => Ok(true),
            _ => Err(format!("'{name}' must be true or false")),
        }
    }
    fn encode(v: &bool) -> Option<Attribute> {
        Some(Attribute::Bool(*v))
    }
}

/// A unit attribute: present when true.
pub(crate) struct UnitFlag;
impl Codec for UnitFlag {
    type Value = bool;
    fn decode(name: &str, a: Attribute) -> Result<bool, String> {
        Flag::decode(name, a)
    }
    fn encode(v: &bool) -> Option<Attribute> {
        v.then_some(Attribute::Unit)
    }
}

/// `1.000000e-03 : f32` (read from any number).
pub(crate) struct F32;
impl Codec for F32 {
    type Value = f64;
    fn decode(name: &str, a: Attribute) -> Result<f64, String> {
        match a {
            Attribute::Float(v, _) => Ok(v),
            Attribute::Int(v, _) => Ok(v as f64),
            _ => Err(format!("'{name}' must be a number")),
        }
    }
    fn encode(v: &f64) -> Option<Attribute> {
        Some(f32_attr(*v))
    }
}

/// `1.000000e-03 : f64` (read from any number).
pub(crate) struct F64;
impl Codec for F64 {
    type Value = f64;
    fn decode(name: &str, a: Attribute) -> Result<f64, String> {
        F32::decode(name, a)
    }
    fn encode(v: &f64) -> Option<Attribute> {
        let f64_type = Type::Tensor(TensorType::scalar(DType::F64));
        Some(Attribute::Float(*v, Some(f64_type)))
    }
}

/// `"text"`.
pub(crate) struct Str;
impl Codec for Str {
    type Value = String;
    fn decode(name: &str, a: Attribute) -> Result<String, String> {
        match a {
            Attribute::String(s) => Ok(s),
            _ => Err(format!("'{name}' must be a string")),
        }
    }
    fn encode(v: &String) -> Option<Attribute> {
        Some(Attribute::String(v.clone()))
    }
}

/// `"text"`, also read from `@text`.
pub(crate) struct StrOrSymbol;
impl Codec for StrOrSymbol {
    type Value = String;
    fn decode(name: &str, a: Attribute) -> Result<String, String> {
        match a {
            Attribute::String(s) | Attribute::SymbolRef(s) => Ok(s),
            _ => Err(format!("'{name}' must be a string")),
        }
    }
    fn encode(v: &String) -> Option<Attribute> {
        Some(Attribute::String(v.clone()))
    }
}

/// `@name`, also read from `"name"`.
pub(crate) struct Symbol;
impl Codec for Symbol {
    type Value = String;
    fn decode(name: &str, a: Attribute) -> Result<String, String> {
        match a {
            Attribute::SymbolRef(s) | Attribute::String(s) => Ok(s),
            _ => Err(format!("'{name}' must be a symbol '@name'")),
        }
    }
    fn encode(v: &String) -> Option<Attribute> {
        Some(Attribute::SymbolRef(v.clone()))
    }
}

/// `[@f, @g]`.
pub(crate) struct SymbolList;
impl Codec for SymbolList {
    type Value = Vec<String>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<String>, String> {
        let err = || format!("'{name}' must be a list of symbols [@f, …]");
        let Attribute::Array(items) = a else {
            return Err(err());
        };
        items
            .into_iter()
            .map(|i| match i {
                Attribute::SymbolRef(s) => Ok(s),
                _ => Err(err()),
            })
            .collect()
    }
    fn encode(v: &Vec<String>) -> Option<Attribute> {
        Some(Attribute::Array(
            v.iter().cloned().map(Attribute::SymbolRef).collect(),
        ))
    }
}

/// `[[@f, @g], [@h, @i]]`.
pub(crate) struct SymbolRows;
impl Codec for SymbolRows {
    type Value = Vec<Vec<String>>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<Vec<String>>, String> {
        let err = || format!("'{name}' must be a list of lists of symbols");
        let Attribute::Array(rows) = a else {
            return Err(err());
        };
        rows.into_iter()
            .map(|r| SymbolList::decode(name, r).map_err(|_| err()))
            .collect()
    }
    fn encode(v: &Vec<Vec<String>>) -> Option<Attribute> {
        Some(Attribute::Array(
            v.iter().filter_map(SymbolList::encode).collect(),
        ))
    }
}

/// `{name = value, …}`.
pub(crate) struct Dict;
impl Codec for Dict {
    type Value = Vec<NamedAttr>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<NamedAttr>, String> {
        match a {
            Attribute::Dict(d) => Ok(d),
            _ => Err(format!("'{name}' must be a dictionary")),
        }
    }
    fn encode(v: &Vec<NamedAttr>) -> Option<Attribute> {
        Some(Attribute::Dict(v.clone()))
    }
}

/// Any attribute, kept as it is.
pub(crate) struct Raw;
impl Codec for Raw {
    type Value = Attribute;
    fn decode(_: &str, a: Attribute) -> Result<Attribute, String> {
        Ok(a)
    }
    fn encode(v: &Attribute) -> Option<Attribute> {
        Some(v.clone())
    }
}

/// `dense<…> : tensor<…>`.
pub(crate) struct Dense;
impl Codec for Dense {
    type Value = Tensor;
    fn decode(name: &str, a: Attribute) -> Result<Tensor, String> {
        match a {
            Attribute::Dense(t) => Ok(t),
            _ => Err(format!("'{name}' must be a dense<…> constant")),
        }
    }
    fn encode(v: &Tensor) -> Option<Attribute> {
        Some(Attribute::Dense(v.clone()))
    }
}

/// `array<i1: true, false>` (also read from `[true, false]` and dense tensors).
pub(crate) struct Bools;
impl Codec for Bools {
    type Value = Vec<bool>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<bool>, String> {
        match a {
            Attribute::DenseArray(_, v) => Ok(v.iter().map(|&x| x != 0).collect()),
            Attribute::Array(items) => items
                .iter()
                .map(|i| match i {
                    Attribute::Bool(b) => Ok(*b),
                    _ => Err(format!("'{name}' must be a list of booleans")),
                })
                .collect(),
            Attribute::Dense(t) => Ok(t.to_f64_vec().iter().map(|&x| x != 0.0).collect()),
            _ => Err(format!("'{name}' must be a list of booleans")),
        }
    }
    fn encode(v: &Vec<bool>) -> Option<Attribute> {
        let v = v.iter().map(|&b| b as i64).collect();
        Some(Attribute::DenseArray("i1".into(), v))
    }
}

/// (low, high) pairs as `dense<[[a, b], …]> : tensor<Nx2xi64>`.
pub(crate) struct Pairs;
impl Codec for Pairs {
    type Value = Vec<(i64, i64)>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<(i64, i64)>, String> {
        padding_pairs(&a)
            .ok_or_else(|| format!("'{name}' must be an Nx2 list of (low, high) pairs"))
    }
    fn encode(v: &Vec<(i64, i64)>) -> Option<Attribute> {
        Some(pairs_attr(v))
    }
}

/// Source/target pairs, as [`Pairs`].
pub(crate) struct PairsTensor;
impl Codec for PairsTensor {
    type Value = Vec<(i64, i64)>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<(i64, i64)>, String> {
        padding_pairs(&a).ok_or_else(|| format!("'{name}' must be an Nx2 tensor"))
    }
    fn encode(v: &Vec<(i64, i64)>) -> Option<Attribute> {
        Some(pairs_attr(v))
    }
}

/// Replica groups: `dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>` (rows padded with -1).
pub(crate) struct ReplicaGroups;
impl Codec for ReplicaGroups {
    type Value = Vec<Vec<i64>>;
    fn decode(_: &str, a: Attribute) -> Result<Vec<Vec<i64>>, String> {
        match a {
            Attribute::Dense(t) => {
                let flat = attr_int_list(&Attribute::Dense(t.clone()))
                    .ok_or("'replica_groups' must hold integers")?;
                match t.shape() {
                    [_, w] if *w > 0 => Ok(flat.chunks(*w as usize).map(<[i64]>::to_vec).collect()),
                    [_, _] => Ok(vec![]),
                    _ => Err("'replica_groups' must be a 2-d tensor".to_string()),
                }
            }
            Attribute::Array(rows) => rows
                .iter()
                .map(|r| {
                    attr_int_list(r)
                        .ok_or_else(|| "'replica_groups' rows must be integer lists".to_string())
                })
                .collect(),
            _ => Err("'replica_groups' must be a dense<…> tensor".to_string()),
        }
    }
    fn encode(v: &Vec<Vec<i64>>) -> Option<Attribute> {
        Some(replica_groups_attr(v))
    }
}

/// `#stablehlo.channel_handle<handle = 1, type = 1>`.
pub(crate) struct Channel;
impl Codec for Channel {
    type Value = ChannelHandle;
    fn decode(_: &str, a: Attribute) -> Result<ChannelHandle, String> {
        channel_handle(&a)
    }
    fn encode(v: &ChannelHandle) -> Option<Attribute> {
        Some(channel_handle_attr(v))
    }
}

/// `[#stablehlo<precision DEFAULT>, …]`.
pub(crate) struct Precisions;
impl Codec for Precisions {
    type Value = Vec<Precision>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<Precision>, String> {
        match a {
            Attribute::Array(items) => items
                .iter()
                .map(|a| {
                    let kw = enum_keyword(a, "precision").unwrap_or("");
                    Precision::from_keyword(kw).ok_or_else(|| {
                        format!(
                            "unknown precision {} (expected DEFAULT, HIGH or HIGHEST)",
                            describe_attr(a)
                        )
                    })
                })
                .collect(),
            _ => Err(format!("'{name}' must be a list of precisions")),
        }
    }
    fn encode(v: &Vec<Precision>) -> Option<Attribute> {
        Some(precision_config_attr(v))
    }
}

/// A custom call's API version: `4 : i32` (also read from `#stablehlo<custom_call_api_version
/// API_VERSION_TYPED_FFI>`); versions 0 and 1 (MLIR's default) are left out.
pub(crate) struct ApiVersion;
impl Codec for ApiVersion {
    type Value = i64;
    fn decode(_: &str, a: Attribute) -> Result<i64, String> {
        match a {
            Attribute::Int(v, _) => Ok(v),
            a => match enum_keyword(&a, "custom_call_api_version") {
                Some(kw) => api_version_number(kw),
                None => Err("'api_version' must be an integer".into()),
            },
        }
    }
    fn encode(v: &i64) -> Option<Attribute> {
        (!matches!(*v, 0 | 1)).then(|| i32_attr(*v))
    }
}

/// `API_VERSION_TYPED_FFI` and friends as numbers.
fn api_version_number(kw: &str) -> Result<i64, String> {
    Ok(match kw {
        "API_VERSION_UNSPECIFIED" => 0,
        "API_VERSION_ORIGINAL" => 1,
        "API_VERSION_STATUS_RETURNING" => 2,
        "API_VERSION_STATUS_RETURNING_UNIFIED" => 3,
        "API_VERSION_TYPED_FFI" => 4,
        _ => return Err(format!("unknown custom call API version '{kw}'")),
    })
}

/// A fusion's kind as a string, `"loop"`.
pub(crate) struct FusionKindAttr;
impl Codec for FusionKindAttr {
    type Value = FusionKind;
    fn decode(name: &str, a: Attribute) -> Result<FusionKind, String> {
        let kind = Str::decode(name, a)?;
        FusionKind::from_keyword(&kind).ok_or_else(|| {
            format!("unknown fusion kind \"{kind}\" (expected loop, reduction or product)")
        })
    }
    fn encode(v: &FusionKind) -> Option<Attribute> {
        Some(Attribute::String(v.keyword().to_string()))
    }
}

/// `#sdy.sharding<@mesh, […]>`, boxed.
pub(crate) struct SdyShardingAttr;
impl Codec for SdyShardingAttr {
    type Value = Box<SdySharding>;
    fn decode(name: &str, a: Attribute) -> Result<Self::Value, String> {
        match a {
            Attribute::SdySharding(s) => Ok(Box::new(s)),
            other => Err(format!(
                "'{name}' must be a #sdy.sharding<…>, not {}",
                describe_attr(&other)
            )),
        }
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        Some(Attribute::SdySharding((**v).clone()))
    }
}

/// `#sdy.sharding_per_value<[<@mesh, […]>, …]>` (kept as text by the attribute parser, which
/// checked each sharding).
pub(crate) struct ShardingPerValue;
impl Codec for ShardingPerValue {
    type Value = Vec<SdySharding>;
    fn decode(name: &str, a: Attribute) -> Result<Self::Value, String> {
        let body = match &a {
            Attribute::Opaque(text) => text
                .strip_prefix("#sdy.sharding_per_value<")
                .and_then(|t| t.strip_suffix('>')),
            _ => None,
        };
        let body = body.ok_or_else(|| {
            format!(
                "'{name}' must be a #sdy.sharding_per_value<[…]>, not {}",
                describe_attr(&a)
            )
        })?;
        parse_sharding_list(body).map_err(|m| format!("'{name}': {m}"))
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        let mut text = String::from("#sdy.sharding_per_value<");
        write_sharding_list(&mut text, v);
        text.push('>');
        Some(Attribute::Opaque(text))
    }
}

/// `#sdy<manual_axes{"x", "y"}>`: mesh axis names.
pub(crate) struct ManualAxes;
impl Codec for ManualAxes {
    type Value = Vec<String>;
    fn decode(name: &str, a: Attribute) -> Result<Self::Value, String> {
        let body = match &a {
            Attribute::Opaque(text) => text
                .strip_prefix("#sdy<")
                .and_then(|t| t.strip_suffix('>'))
                .map(str::trim)
                .and_then(|t| t.strip_prefix("manual_axes")),
            _ => None,
        };
        let body = body.ok_or_else(|| {
            format!(
                "'{name}' must be #sdy<manual_axes{{\"x\", …}}>, not {}",
                describe_attr(&a)
            )
        })?;
        parse_axis_names(body).map_err(|m| format!("'{name}': {m}"))
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        let mut text = String::from("#sdy<manual_axes");
        write_axis_names(&mut text, v);
        text.push('>');
        Some(Attribute::Opaque(text))
    }
}

/// `#stablehlo.gather<…>`.
pub(crate) struct GatherDims;
impl Codec for GatherDims {
    type Value = GatherDimensionNumbers;
    fn decode(_: &str, a: Attribute) -> Result<Self::Value, String> {
        gather_dims(&a)
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        Some(gather_dims_attr(v))
    }
}

/// `#stablehlo.scatter<…>`.
pub(crate) struct ScatterDims;
impl Codec for ScatterDims {
    type Value = ScatterDimensionNumbers;
    fn decode(_: &str, a: Attribute) -> Result<Self::Value, String> {
        scatter_dims(&a)
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        Some(scatter_dims_attr(v))
    }
}

/// `#stablehlo.dot<…>`.
pub(crate) struct DotDims;
impl Codec for DotDims {
    type Value = DotDimensionNumbers;
    fn decode(_: &str, a: Attribute) -> Result<Self::Value, String> {
        dot_dims(&a)
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        Some(dot_dims_attr(v))
    }
}

/// `#chlo.ragged_dot<…>`.
pub(crate) struct RaggedDotDims;
impl Codec for RaggedDotDims {
    type Value = RaggedDotDimensionNumbers;
    fn decode(_: &str, a: Attribute) -> Result<Self::Value, String> {
        ragged_dot_dims(&a)
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        Some(ragged_dot_dims_attr(v))
    }
}

/// `[#chlo<precision DEFAULT>, …]`: CHLO ops spell their precisions in their own dialect.
pub(crate) struct ChloPrecisions;
impl Codec for ChloPrecisions {
    type Value = Vec<Precision>;
    fn decode(name: &str, a: Attribute) -> Result<Vec<Precision>, String> {
        Precisions::decode(name, a)
    }
    fn encode(v: &Vec<Precision>) -> Option<Attribute> {
        Some(Attribute::Array(
            v.iter()
                .map(|p| Attribute::Opaque(format!("#chlo<precision {}>", p.keyword())))
                .collect(),
        ))
    }
}

/// `#stablehlo.dot_algorithm<…>`.
pub(crate) struct DotAlgo;
impl Codec for DotAlgo {
    type Value = DotAlgorithm;
    fn decode(_: &str, a: Attribute) -> Result<Self::Value, String> {
        dot_algorithm(&a)
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        let mut text = String::from("#stablehlo.dot_algorithm");
        write_dot_algorithm(&mut text, v);
        Some(Attribute::Opaque(text))
    }
}

/// `#stablehlo.conv<[b, 0, 1, f]x[…]->[…]>`, or the raw form when that is not a layout.
pub(crate) struct ConvDims;
impl Codec for ConvDims {
    type Value = ConvDimensionNumbers;
    fn decode(_: &str, a: Attribute) -> Result<Self::Value, String> {
        conv_dims(&a)
    }
    fn encode(v: &Self::Value) -> Option<Attribute> {
        Some(Attribute::Opaque(match conv_dims_text(v) {
            Some(text) => format!("#stablehlo.conv<{text}>"),
            None => conv_dims_raw(v),
        }))
    }
}

/// The StableHLO enums written `#stablehlo<KIND KEYWORD>`.
pub(crate) trait Keyword: Sized {
    /// The `KIND` of `#stablehlo<KIND KEYWORD>`.
    const KIND: &'static str;
    fn to_keyword(&self) -> &'static str;
    fn parse_keyword(kw: &str) -> Option<Self>;
}

macro_rules! keyword_enums {
    ($($ty:ty => $kind:literal),* $(,)?) => {$(
        impl Keyword for $ty {
            const KIND: &'static str = $kind;
            fn to_keyword(&self) -> &'static str {
                self.keyword()
            }
            fn parse_keyword(kw: &str) -> Option<Self> {
                <$ty>::from_keyword(kw)
            }
        }
    )*};
}

keyword_enums! {
    ComparisonDirection => "comparison_direction",
    ComparisonType => "comparison_type",
    TransposeKind => "transpose",
    FftType => "fft_type",
    RngAlgorithm => "rng_algorithm",
    RngDistribution => "rng_distribution",
}

/// `#stablehlo<KIND KEYWORD>` of a [`Keyword`] enum.
pub(crate) struct Kw<E>(PhantomData<E>);
impl<E: Keyword> Codec for Kw<E> {
    type Value = E;
    fn decode(name: &str, a: Attribute) -> Result<E, String> {
        let kind = E::KIND;
        match enum_keyword(&a, kind) {
            Some(kw) => {
                E::parse_keyword(kw).ok_or_else(|| format!("unknown {kind} '{kw}' in '{name}'"))
            }
            None => Err(format!(
                "'{name}' must be #stablehlo<{kind} …>, found {}",
                describe_attr(&a)
            )),
        }
    }
    fn encode(v: &E) -> Option<Attribute> {
        Some(enum_attr(E::KIND, v.to_keyword()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_build::build_kind;
    use super::super::parser::Parser;
    use super::super::print_attrs::write_attr_dict;
    use super::*;
    use crate::sharding::AxisRef;

    /// The index of `k`'s variant among the arms and the number of arms. The `match` is
    /// exhaustive, so a new `OpKind` variant needs a new arm here, and then an example.
    macro_rules! variant_index {
        ($k:expr; $($p:pat),* $(,)?) => {{
            match $k {
                $($p => {})*
            }
            let arms: &[bool] = &[$(matches!($k, $p)),*];
            (arms.iter().position(|&m| m).unwrap(), arms.len())
        }};
    }

    fn variant(k: &OpKind) -> (usize, usize) {
        use OpKind::*;
        variant_index!(k;
            Return(_), Call { .. }, Unary(_), Binary(_), Compare { .. }, Select, Clamp, Convert,
            BitcastConvert, UniformQuantize, UniformDequantize, ReducePrecision { .. }, ChloUnary(_), ChloBinary(_), Constant(_),
            Iota { .. }, BroadcastInDim { .. }, Broadcast { .. }, Reshape, Transpose { .. },
            Slice { .. }, DynamicSlice { .. }, DynamicUpdateSlice, Concatenate { .. },
            Pad { .. }, Reverse { .. }, GetDimensionSize { .. }, Gather { .. },
            Scatter { .. }, Reduce { .. }, ReduceWindow { .. }, SelectAndScatter { .. },
            Sort { .. }, Map { .. }, DotGeneral { .. }, Dot { .. }, Convolution(_),
            TriangularSolve { .. }, Cholesky { .. }, Fft { .. }, BatchNormInference { .. },
            BatchNormTraining { .. }, BatchNormGrad { .. }, While, If, Case,
            OptimizationBarrier, Tuple, GetTupleElement { .. }, AfterAll, CreateToken,
            RngBitGenerator { .. }, Rng { .. }, Composite { .. }, CustomCall { .. },
            AllGather { .. }, AllReduce { .. }, ReduceScatter { .. }, AllToAll { .. },
            CollectivePermute { .. }, CollectiveBroadcast { .. }, CollectiveReduce { .. }, ReplicaId, PartitionId,
            Send { .. }, Recv { .. }, Infeed { .. }, Outfeed { .. }, TopK { .. }, Check(_),
            RunParallel { .. }, InterpreterProbe { .. }, InterpreterPrint, RaggedDot { .. }, Scan { .. }, Fusion { .. }, ManualComputation(_), ShardingConstraint(_),
        )
    }

    fn conv_dims(input_feature: i64) -> ConvDimensionNumbers {
        ConvDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: input_feature,
            input_spatial_dimensions: vec![2, 3],
            kernel_input_feature_dimension: 1,
            kernel_output_feature_dimension: 0,
            kernel_spatial_dimensions: vec![2, 3],
            output_batch_dimension: 0,
            output_feature_dimension: 1,
            output_spatial_dimensions: vec![2, 3],
        }
    }

    fn collective() -> CollectiveAttrs {
        CollectiveAttrs {
            replica_groups: vec![vec![0, 1], vec![2, 3]],
            channel_handle: Some(ChannelHandle { handle: 3, kind: 1 }),
            use_global_device_ids: true,
            has_dynamic_root: false,
        }
    }

    /// A Shardy sharding on `@mesh` with these axes per dimension.
    fn sdy(dims: &[&[&str]]) -> SdySharding {
        SdySharding {
            mesh: "mesh".into(),
            dims: dims
                .iter()
                .map(|axes| crate::sharding::DimSharding {
                    axes: axes
                        .iter()
                        .map(|a| AxisRef {
                            name: a.to_string(),
                            sub_axis: None,
                        })
                        .collect(),
                    closed: true,
                    priority: None,
                })
                .collect(),
            replicated: vec![],
            unreduced: vec![],
        }
    }

    /// Every op kind, with attributes away from their defaults (and some at them).
    fn examples() -> Vec<OpKind> {
        use OpKind::*;
        let f32 = || Type::Tensor(TensorType::scalar(DType::F32));
        let window = Window {
            window_dimensions: vec![1, 2],
            window_strides: Some(vec![1, 2]),
            base_dilations: Some(vec![1, 1]),
            window_dilations: Some(vec![2, 1]),
            padding: Some(vec![(0, 0), (1, 0)]),
        };
        let tensor = Tensor::from_i64(vec![2], DType::I32, vec![1, -2]).unwrap();
        let mut all = vec![
            Return(ReturnKind::Func),
            Return(ReturnKind::Stablehlo),
            Call { callee: "f".into() },
            Compare {
                direction: ComparisonDirection::Ge,
                compare_type: Some(ComparisonType::TotalOrder),
            },
            Compare {
                direction: ComparisonDirection::Eq,
                compare_type: None,
            },
            Select,
            Clamp,
            Convert,
            BitcastConvert,
            ReducePrecision {
                exponent_bits: 5,
                mantissa_bits: 10,
            },
            Constant(Tensor::from_f32(vec![2], vec![1.5, -2.0])),
            Iota { dimension: 1 },
            BroadcastInDim {
                broadcast_dimensions: vec![0, 2],
            },
            Broadcast {
                broadcast_sizes: vec![3],
            },
            Reshape,
            Transpose {
                permutation: vec![1, 0],
            },
            Slice {
                start_indices: vec![0, 1],
                limit_indices: vec![2, 3],
                strides: vec![1, 2],
            },
            DynamicSlice {
                slice_sizes: vec![1, 2],
            },
            DynamicUpdateSlice,
            Concatenate { dimension: 1 },
            Pad {
                edge_padding_low: vec![0, 1],
                edge_padding_high: vec![2, -1],
                interior_padding: vec![0, 1],
            },
            Reverse {
                dimensions: vec![0],
            },
            GetDimensionSize { dimension: 1 },
            Gather {
                dimension_numbers: GatherDimensionNumbers {
                    offset_dims: vec![1],
                    collapsed_slice_dims: vec![0],
                    operand_batching_dims: vec![2],
                    start_indices_batching_dims: vec![0],
                    start_index_map: vec![0],
                    index_vector_dim: 1,
                },
                slice_sizes: vec![1, 3, 1],
                indices_are_sorted: true,
            },
            Scatter {
                dimension_numbers: ScatterDimensionNumbers {
                    update_window_dims: vec![1],
                    inserted_window_dims: vec![0],
                    input_batching_dims: vec![2],
                    scatter_indices_batching_dims: vec![0],
                    scatter_dims_to_operand_dims: vec![0],
                    index_vector_dim: 1,
                },
                indices_are_sorted: false,
                unique_indices: true,
            },
            Reduce {
                dimensions: vec![1],
            },
            ReduceWindow {
                window: window.clone(),
            },
            ReduceWindow {
                window: Window {
                    window_dimensions: vec![2],
                    ..Window::default()
                },
            },
            SelectAndScatter {
                window: Window {
                    base_dilations: None,
                    window_dilations: None,
                    ..window
                },
            },
            Sort {
                dimension: 0,
                is_stable: true,
            },
            Map {
                dimensions: vec![0, 1],
            },
            DotGeneral {
                dimension_numbers: DotDimensionNumbers {
                    lhs_batching_dimensions: vec![0],
                    rhs_batching_dimensions: vec![0],
                    lhs_contracting_dimensions: vec![2],
                    rhs_contracting_dimensions: vec![1],
                },
                precision_config: vec![Precision::Default, Precision::Highest],
                algorithm: Some(DotAlgorithm {
                    lhs_precision_type: PrecisionType::Type(f32()),
                    rhs_precision_type: PrecisionType::Type(f32()),
                    accumulation_type: f32(),
                    lhs_component_count: 1,
                    rhs_component_count: 1,
                    num_primitive_operations: 3,
                    allow_imprecise_accumulation: true,
                }),
            },
            DotGeneral {
                dimension_numbers: DotDimensionNumbers {
                    lhs_contracting_dimensions: vec![1],
                    rhs_contracting_dimensions: vec![0],
                    ..Default::default()
                },
                precision_config: vec![],
                algorithm: None,
            },
            Dot {
                precision_config: vec![Precision::High, Precision::High],
            },
            Convolution(ConvAttrs {
                dimension_numbers: conv_dims(1),
                window_strides: Some(vec![1, 2]),
                padding: Some(vec![(0, 0), (1, 1)]),
                lhs_dilation: Some(vec![1, 1]),
                rhs_dilation: Some(vec![2, 2]),
                window_reversal: Some(vec![false, true]),
                feature_group_count: 1,
                batch_group_count: 2,
                precision_config: vec![Precision::Default, Precision::Default],
            }),
            Convolution(ConvAttrs {
                dimension_numbers: conv_dims(0),
                window_strides: None,
                padding: None,
                lhs_dilation: None,
                rhs_dilation: None,
                window_reversal: None,
                feature_group_count: 3,
                batch_group_count: 1,
                precision_config: vec![],
            }),
            TriangularSolve {
                left_side: true,
                lower: false,
                unit_diagonal: true,
                transpose_a: TransposeKind::Adjoint,
            },
            Cholesky { lower: true },
            Cholesky { lower: false },
            Fft {
                fft_type: FftType::Irfft,
                fft_length: vec![4, 8],
            },
            BatchNormInference {
                epsilon: 0.5,
                feature_index: 1,
            },
            BatchNormTraining {
                epsilon: 0.25,
                feature_index: 3,
            },
            BatchNormGrad {
                epsilon: 0.125,
                feature_index: 0,
            },
            While,
            If,
            Case,
            OptimizationBarrier,
            Tuple,
            GetTupleElement { index: 1 },
            AfterAll,
            CreateToken,
            RngBitGenerator {
                algorithm: RngAlgorithm::ThreeFry,
            },
            Rng {
                distribution: RngDistribution::Normal,
            },
            Composite {
                name: "my.op".into(),
                decomposition: "my_op_impl".into(),
                composite_attributes: vec![NamedAttr::new("n", i64_attr(3))],
                version: 2,
            },
            Composite {
                name: "my.op".into(),
                decomposition: "my_op_impl".into(),
                composite_attributes: vec![],
                version: 0,
            },
            CustomCall {
                call_target_name: "target".into(),
                has_side_effect: true,
                backend_config: Some(Attribute::String("cfg".into())),
                api_version: 4,
                called_computations: vec!["f".into(), "g".into()],
            },
            CustomCall {
                call_target_name: "target".into(),
                has_side_effect: false,
                backend_config: None,
                api_version: 0,
                called_computations: vec![],
            },
            AllGather {
                all_gather_dim: 1,
                collective: collective(),
            },
            AllReduce {
                collective: CollectiveAttrs::default(),
            },
            ReduceScatter {
                scatter_dimension: 0,
                collective: collective(),
            },
            AllToAll {
                split_dimension: 0,
                concat_dimension: 1,
                split_count: 2,
                collective: collective(),
            },
            CollectivePermute {
                source_target_pairs: vec![(0, 1), (1, 0)],
                channel_handle: Some(ChannelHandle { handle: 2, kind: 1 }),
            },
            CollectiveBroadcast {
                collective: CollectiveAttrs {
                    has_dynamic_root: true,
                    ..collective()
                },
            },
            CollectiveReduce {
                collective: collective(),
            },
            ReplicaId,
            PartitionId,
            Send {
                channel_handle: ChannelHandle { handle: 5, kind: 2 },
                is_host_transfer: true,
            },
            Recv {
                channel_handle: ChannelHandle::default(),
                is_host_transfer: false,
            },
            Infeed {
                infeed_config: "cfg".into(),
            },
            Outfeed {
                outfeed_config: String::new(),
            },
            TopK {
                k: 3,
                largest: false,
            },
            TopK {
                k: 1,
                largest: true,
            },
            Check(CheckOp::ExpectEq),
            Check(CheckOp::ExpectEqConst(tensor.clone())),
            Check(CheckOp::ExpectAlmostEq {
                tolerance: Some(0.25),
            }),
            Check(CheckOp::ExpectAlmostEq { tolerance: None }),
            Check(CheckOp::ExpectAlmostEqConst {
                expected: tensor,
                tolerance: Some(0.5),
            }),
            Check(CheckOp::ExpectClose {
                max_ulp_difference: 3,
                min_ulp_difference: 1,
            }),
            Check(CheckOp::ExpectSerializedEq {
                probe_id: "probe1".into(),
                iteration: 2,
            }),
            RunParallel {
                programs: vec![vec!["a".into(), "b".into()], vec!["c".into(), "d".into()]],
                infeed: vec!["q".into()],
            },
            RunParallel {
                programs: vec![vec!["a".into()]],
                infeed: vec![],
            },
            InterpreterProbe {
                probe_id: "probe_1".into(),
            },
            InterpreterPrint,
            UniformQuantize,
            UniformDequantize,
            RaggedDot {
                dimension_numbers: RaggedDotDimensionNumbers {
                    dot: DotDimensionNumbers {
                        lhs_batching_dimensions: vec![],
                        rhs_batching_dimensions: vec![],
                        lhs_contracting_dimensions: vec![1],
                        rhs_contracting_dimensions: vec![1],
                    },
                    lhs_ragged_dimensions: vec![0],
                    rhs_group_dimensions: vec![0],
                },
                precision_config: vec![Precision::Default, Precision::Highest],
            },
            Scan {
                dimension: 1,
                operand_segment_sizes: vec![2, 1],
                result_segment_sizes: vec![1, 1],
                is_reverse: true,
                is_associative: Some(false),
                scan_dim_size: Some(4),
            },
            Fusion {
                kind: FusionKind::Reduction,
                name: "fusion_3".into(),
            },
            Return(ReturnKind::Sdy),
            ManualComputation(Box::new(ManualComputationAttrs {
                in_shardings: vec![sdy(&[&["x", "y"], &[]]), sdy(&[])],
                out_shardings: vec![sdy(&[&[], &["y"]])],
                manual_axes: vec!["x".into(), "y".into()],
            })),
            ManualComputation(Box::new(ManualComputationAttrs {
                in_shardings: vec![],
                out_shardings: vec![],
                manual_axes: vec![],
            })),
            ShardingConstraint(Box::new(SdySharding {
                replicated: vec![AxisRef {
                    name: "y".into(),
                    sub_axis: None,
                }],
                ..sdy(&[&["x"], &[]])
            })),
        ];
        all.extend(UnaryOp::ALL.iter().map(|&u| Unary(u)));
        all.extend(BinaryOp::ALL.iter().map(|&b| Binary(b)));
        all.extend(ChloUnaryOp::ALL.iter().map(|&u| ChloUnary(u)));
        all.extend(ChloBinaryOp::ALL.iter().map(|&b| ChloBinary(b)));
        all
    }

    fn dict_text(props: &Props) -> String {
        let mut out = String::new();
        write_attr_dict(&mut out, &props.iter().collect::<Vec<_>>());
        out
    }

    /// For every op kind: its generic-form attribute dictionary, printed and parsed back,
    /// builds the same kind (taking every attribute) and prints the same text.
    #[test]
    fn every_op_kind_round_trips_through_its_attribute_dictionary() {
        let mut covered = std::collections::BTreeSet::new();
        let mut arms = 0;
        for kind in examples() {
            let (index, n) = variant(&kind);
            covered.insert(index);
            arms = n;
            let name = kind.name();
            let text = dict_text(&op_props(&kind));
            let mut attrs = if text.is_empty() {
                vec![]
            } else {
                match Parser::new(&text).parse_attr() {
                    Ok(Attribute::Dict(d)) => d,
                    other => panic!("{name}: {text} parses as {other:?}"),
                }
            };
            let back = build_kind(&name, &mut attrs)
                .unwrap_or_else(|e| panic!("{name}: {text}: {e}"))
                .unwrap_or_else(|| panic!("{name}: not a known op name"));
            assert_eq!(back, kind, "{name}: {text}");
            assert!(attrs.is_empty(), "{name}: {text} leaves {attrs:?}");
            assert_eq!(dict_text(&op_props(&back)), text, "{name}");
        }
        let missing: Vec<usize> = (0..arms).filter(|i| !covered.contains(i)).collect();
        assert!(missing.is_empty(), "no example for arms {missing:?}");
    }

    /// The texts MLIR prints for some of the encodings.
    #[test]
    fn encodings_match_mlir() {
        let kind = OpKind::DotGeneral {
            dimension_numbers: DotDimensionNumbers {
                lhs_batching_dimensions: vec![0],
                rhs_batching_dimensions: vec![0],
                lhs_contracting_dimensions: vec![2],
                rhs_contracting_dimensions: vec![1],
            },
            precision_config: vec![Precision::Default, Precision::Default],
            algorithm: None,
        };
        assert_eq!(
            dict_text(&op_props(&kind)),
            "{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], \
             rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], \
             rhs_contracting_dimensions = [1]>, precision_config = \
             [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}"
        );
        let kind = OpKind::Compare {
            direction: ComparisonDirection::Lt,
            compare_type: Some(ComparisonType::Float),
        };
        assert_eq!(
            dict_text(&op_props(&kind)),
            "{compare_type = #stablehlo<comparison_type FLOAT>, \
             comparison_direction = #stablehlo<comparison_direction LT>}"
        );
        let kind = OpKind::Convolution(ConvAttrs {
            dimension_numbers: conv_dims(1),
            window_strides: Some(vec![1, 1]),
            padding: None,
            lhs_dilation: None,
            rhs_dilation: None,
            window_reversal: None,
            feature_group_count: 1,
            batch_group_count: 1,
            precision_config: vec![],
        });
        assert_eq!(
            dict_text(&op_props(&kind)),
            "{batch_group_count = 1 : i64, dimension_numbers = \
             #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, \
             feature_group_count = 1 : i64, window_strides = array<i64: 1, 1>}"
        );
    }
}
