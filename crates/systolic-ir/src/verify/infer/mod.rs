//! Shape and type inference, one rule per op, following the constraints of the StableHLO spec
//! (openxla/stablehlo `docs/spec.md`, the (C1)…(Cn) list of each op).
//!
//! The rules live in one file per op family under `infer/`; this file only dispatches. A rule
//! sees the operand types, what the op's regions look like from outside
//! ([`RegionSignature`]) and, when known, the result types the op declares. It returns the
//! result types the op must have. For ops whose results do not follow from the operands
//! (`reshape`, `convert`, `iota`, `custom_call`, the element type of `dot_general`, …) the
//! declared types are needed: the rule checks what can be checked and returns them.

mod chlo;
mod collective;
mod common;
mod control;
mod elementwise;
mod indexing;
mod linalg;
mod quantized;
mod reduction;
mod shape;
mod shardy;

pub use chlo::{ragged_dot_shape, RaggedDotShape, RaggedMode};
pub(crate) use common::type_list;
pub use quantized::computes_on_values;

use crate::ops::OpKind;
use crate::types::Type;

/// Checks that a value type is well formed (no negative dimension sizes), for the verifier's
/// checks of block arguments.
pub(crate) fn check_value_type(ty: &Type) -> Result<(), String> {
    common::check_type(ty)
}

/// A region seen from outside: the types of its block arguments and of the values its
/// terminator returns. Front ends that build ops one at a time know both without a module.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RegionSignature {
    /// Types of the entry block's arguments.
    pub arg_types: Vec<Type>,
    /// Types of the terminator's operands.
    pub result_types: Vec<Type>,
}

impl RegionSignature {
    /// A signature from argument and result types.
    pub fn new(arg_types: Vec<Type>, result_types: Vec<Type>) -> Self {
        RegionSignature {
            arg_types,
            result_types,
        }
    }
}

/// The result types an op with these operand types, regions and attributes must have, or why
/// the op is invalid (the message names the offending types and attributes, not the op: the
/// caller prefixes the op name and place).
///
/// `declared` is the result types the op states, if known. Ops whose results do not follow
/// from their operands need it and fail without it; for the others it is ignored, and the
/// caller compares it with what is returned.
///
/// ```
/// use systolic_ir::verify::infer_result_types;
/// use systolic_ir::{BinaryOp, DType, OpKind, Type};
/// let t = Type::tensor(vec![2], DType::F32);
/// let add = OpKind::Binary(BinaryOp::Add);
/// assert_eq!(infer_result_types(&add, &[t.clone(), t.clone()], &[], None), Ok(vec![t.clone()]));
/// let u = Type::tensor(vec![3], DType::F32);
/// assert!(infer_result_types(&add, &[t, u], &[], None).is_err());
/// ```
pub fn infer_result_types(
    kind: &OpKind,
    operands: &[Type],
    regions: &[RegionSignature],
    declared: Option<&[Type]>,
) -> Result<Vec<Type>, String> {
    for (i, ty) in operands.iter().enumerate() {
        common::check_type(ty).map_err(|e| format!("operand #{i}: {e}"))?;
    }
    for (i, ty) in declared.unwrap_or(&[]).iter().enumerate() {
        common::check_type(ty).map_err(|e| format!("result #{i}: {e}"))?;
    }
    // Ops that carry regions check their own region count.
    if kind.region_arity() == crate::RegionArity::None {
        common::expect_regions(regions, 0, "")?;
    }
    if quantized::applies(kind, operands, declared) {
        quantized::product_constraints(kind, operands, declared)?;
        return quantized::through_expressed_types(operands, declared, |operands, declared| {
            infer_kind(kind, operands, regions, declared)
        });
    }
    infer_kind(kind, operands, regions, declared)
}

fn infer_kind(
    kind: &OpKind,
    operands: &[Type],
    regions: &[RegionSignature],
    declared: Option<&[Type]>,
) -> Result<Vec<Type>, String> {
    use OpKind::*;
    match kind {
        Return(_) => Ok(vec![]),
        Call { .. } => control::call(declared),
        Unary(op) => elementwise::unary(*op, operands),
        Binary(op) => elementwise::binary(*op, operands),
        Compare {
            direction: _,
            compare_type,
        } => elementwise::compare(*compare_type, operands),
        Select => elementwise::select(operands),
        Clamp => elementwise::clamp(operands),
        Convert => elementwise::convert(operands, declared),
        BitcastConvert => elementwise::bitcast_convert(operands, declared),
        UniformQuantize => quantized::uniform_quantize(operands, declared),
        UniformDequantize => quantized::uniform_dequantize(operands),
        ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => elementwise::reduce_precision(*exponent_bits, *mantissa_bits, operands),
        ChloUnary(op) => chlo::unary(*op, operands),
        ChloBinary(op) => chlo::binary(*op, operands),
        Constant(value) => shape::constant(value, operands),
        Iota { dimension } => shape::iota(*dimension, operands, declared),
        BroadcastInDim {
            broadcast_dimensions,
        } => shape::broadcast_in_dim(broadcast_dimensions, operands, declared),
        Broadcast { broadcast_sizes } => shape::broadcast(broadcast_sizes, operands),
        Reshape => shape::reshape(operands, declared),
        Transpose { permutation } => shape::transpose(permutation, operands),
        Slice {
            start_indices,
            limit_indices,
            strides,
        } => shape::slice(start_indices, limit_indices, strides, operands),
        DynamicSlice { slice_sizes } => shape::dynamic_slice(slice_sizes, operands),
        DynamicUpdateSlice => shape::dynamic_update_slice(operands),
        Concatenate { dimension } => shape::concatenate(*dimension, operands),
        Pad {
            edge_padding_low,
            edge_padding_high,
            interior_padding,
        } => shape::pad(
            edge_padding_low,
            edge_padding_high,
            interior_padding,
            operands,
        ),
        Reverse { dimensions } => shape::reverse(dimensions, operands),
        GetDimensionSize { dimension } => shape::get_dimension_size(*dimension, operands),
        Gather {
            dimension_numbers,
            slice_sizes,
            indices_are_sorted: _,
        } => indexing::gather(dimension_numbers, slice_sizes, operands),
        Scatter {
            dimension_numbers, ..
        } => indexing::scatter(dimension_numbers, operands, regions),
        Reduce { dimensions } => reduction::reduce(dimensions, operands, regions),
        ReduceWindow { window } => reduction::reduce_window(window, operands, regions),
        SelectAndScatter { window } => reduction::select_and_scatter(window, operands, regions),
        Sort { dimension, .. } => reduction::sort(*dimension, operands, regions),
        Map { dimensions } => elementwise::map(dimensions, operands, regions),
        DotGeneral {
            dimension_numbers,
            precision_config,
            algorithm,
        } => linalg::dot_general(
            dimension_numbers,
            precision_config,
            algorithm.as_ref(),
            operands,
            declared,
        ),
        Dot { precision_config } => linalg::dot(precision_config, operands, declared),
        Convolution(attrs) => linalg::convolution(attrs, operands, declared),
        TriangularSolve { left_side, .. } => linalg::triangular_solve(*left_side, operands),
        Cholesky { .. } => linalg::cholesky(operands),
        Fft {
            fft_type,
            fft_length,
        } => linalg::fft(*fft_type, fft_length, operands),
        BatchNormInference { feature_index, .. } => {
            linalg::batch_norm_inference(*feature_index, operands)
        }
        BatchNormTraining { feature_index, .. } => {
            linalg::batch_norm_training(*feature_index, operands)
        }
        BatchNormGrad { feature_index, .. } => linalg::batch_norm_grad(*feature_index, operands),
        While => control::while_loop(operands, regions),
        If => control::if_op(operands, regions),
        Case => control::case(operands, regions),
        OptimizationBarrier => Ok(operands.to_vec()),
        Tuple => Ok(vec![Type::Tuple(operands.to_vec())]),
        GetTupleElement { index } => control::get_tuple_element(*index, operands),
        AfterAll => control::after_all(operands),
        CreateToken => control::create_token(operands),
        RngBitGenerator { algorithm } => control::rng_bit_generator(*algorithm, operands, declared),
        Rng { distribution } => control::rng(*distribution, operands, declared),
        Composite { name, .. } => control::composite(name, declared),
        CustomCall { .. } => control::as_declared(declared, "a custom call's results are opaque"),
        AllGather {
            all_gather_dim,
            collective,
        } => collective::all_gather(*all_gather_dim, collective, operands, declared),
        AllReduce { collective } => collective::all_reduce(collective, operands, regions),
        ReduceScatter {
            scatter_dimension,
            collective,
        } => {
            collective::reduce_scatter(*scatter_dimension, collective, operands, regions, declared)
        }
        AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
            collective,
        } => collective::all_to_all(
            *split_dimension,
            *concat_dimension,
            *split_count,
            collective,
            operands,
        ),
        CollectivePermute {
            source_target_pairs,
            ..
        } => collective::collective_permute(source_target_pairs, operands),
        CollectiveBroadcast { collective } => {
            collective::collective_broadcast(collective, operands)
        }
        CollectiveReduce { collective } => {
            collective::collective_reduce(collective, operands, regions)
        }
        ReplicaId | PartitionId => collective::process_id(operands),
        Send {
            channel_handle,
            is_host_transfer,
        } => collective::send(channel_handle, *is_host_transfer, operands),
        Recv {
            channel_handle,
            is_host_transfer,
        } => collective::recv(channel_handle, *is_host_transfer, operands, declared),
        Infeed { .. } => collective::infeed(operands, declared),
        Outfeed { .. } => collective::outfeed(operands),
        TopK { k, .. } => chlo::top_k(*k, operands),
        Check(check) => control::check(check, operands),
        RunParallel { .. } => control::as_declared(
            declared,
            "run_parallel's results are its programs', which the verifier checks against the module",
        ),
        InterpreterProbe { .. } => {
            common::expect_operands(operands, 1, "operand")?;
            common::tensor_at(operands, 0, "operand")?;
            Ok(operands.to_vec())
        }
        RaggedDot {
            dimension_numbers,
            precision_config,
        } => chlo::ragged_dot(dimension_numbers, precision_config, operands, declared),
        Scan {
            dimension,
            operand_segment_sizes,
            result_segment_sizes,
            scan_dim_size,
            ..
        } => chlo::scan(
            *dimension,
            operand_segment_sizes,
            result_segment_sizes,
            *scan_dim_size,
            operands,
            regions,
        ),
        InterpreterPrint => {
            common::expect_operands(operands, 1, "operand")?;
            common::tensor_at(operands, 0, "operand")?;
            Ok(vec![])
        }
        Fusion { .. } => control::fusion(operands, regions),
        ManualComputation(attrs) => shardy::manual_computation(attrs, operands, regions, declared),
        ShardingConstraint(sharding) => shardy::sharding_constraint(sharding, operands),
    }
}
