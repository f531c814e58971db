//! Ops that make or move data without arithmetic: constant, iota, broadcasts, reshape,
//! transpose, slices, concatenate, pad, reverse, get_dimension_size.

use super::common::*;
use crate::dtype::DType;
use crate::tensor::Tensor;
use crate::types::Type;

/// `stablehlo.constant`: the value's type.
pub(crate) fn constant(value: &Tensor, operands: &[Type]) -> Inferred {
    expect_operands(operands, 0, "none")?;
    let ty = Type::Tensor(value.ty().clone());
    check_type(&ty)?;
    Ok(vec![ty])
}

/// `stablehlo.iota`: the declared numeric tensor, counting along `dimension` (complex counts
/// have imaginary part 0).
pub(crate) fn iota(dimension: i64, operands: &[Type], declared: Option<&[Type]>) -> Inferred {
    expect_operands(operands, 0, "none")?;
    let result = need_declared_tensor(declared, "iota has no operands")?;
    expect_dtype(
        result,
        is_numeric_or_complex,
        "integer, floating-point or complex type",
        "result",
    )?;
    axis(dimension, result.rank(), "iota_dimension")?;
    Ok(vec![Type::Tensor(result.clone())])
}

/// `stablehlo.broadcast_in_dim`: operand dimension `j` maps to result dimension
/// `broadcast_dimensions[j]`, which it must equal unless it is 1.
pub(crate) fn broadcast_in_dim(
    broadcast_dimensions: &[i64],
    operands: &[Type],
    declared: Option<&[Type]>,
) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let result = need_declared_tensor(declared, "it names the result shape")?;
    if result.dtype != operand.dtype {
        return Err(format!(
            "operand has type {operand} and result {result}; their element types must be equal"
        ));
    }
    expect_len(
        broadcast_dimensions.len(),
        operand.rank(),
        "broadcast_dimensions",
        "the operand's rank is",
    )?;
    let dims = axes(broadcast_dimensions, result.rank(), "broadcast_dimensions")?;
    expect_unique(broadcast_dimensions, "broadcast_dimensions")?;
    for (j, &i) in dims.iter().enumerate() {
        let (from, to) = (operand.shape[j], result.shape[i]);
        if from != 1 && from != to {
            return Err(format!(
                "cannot broadcast {operand} to {result}: operand dimension {j} (size {from}) maps to result dimension {i} (size {to})"
            ));
        }
    }
    Ok(vec![Type::Tensor(result.clone())])
}

/// `stablehlo.broadcast` (deprecated): `broadcast_sizes` prepended to the operand's shape.
pub(crate) fn broadcast(broadcast_sizes: &[i64], operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    if let Some(d) = broadcast_sizes.iter().find(|&&d| d < 0) {
        return Err(format!(
            "`broadcast_sizes` {} has the negative size {d}",
            list(broadcast_sizes)
        ));
    }
    let mut shape = broadcast_sizes.to_vec();
    shape.extend_from_slice(&operand.shape);
    Ok(vec![tensor(shape, operand.dtype)])
}

/// `stablehlo.reshape`: the declared shape, holding as many elements as the operand.
pub(crate) fn reshape(operands: &[Type], declared: Option<&[Type]>) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let result = need_declared_tensor(declared, "it names the result shape")?;
    if result.dtype != operand.dtype {
        return Err(format!(
            "operand has type {operand} and result {result}; their element types must be equal"
        ));
    }
    let (from, to) = (element_count(&operand.shape), element_count(&result.shape));
    if from.is_none() || to.is_none() {
        return Err(format!(
            "cannot reshape {operand} to {result}: the element count overflows"
        ));
    }
    if from != to {
        return Err(format!(
            "cannot reshape {operand} to {result}: the element counts differ"
        ));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

/// `stablehlo.transpose`: result dimension `i` is operand dimension `permutation[i]`.
pub(crate) fn transpose(permutation: &[i64], operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    expect_len(
        permutation.len(),
        operand.rank(),
        "permutation",
        "the operand's rank is",
    )?;
    let perm = axes(permutation, operand.rank(), "permutation")?;
    expect_unique(permutation, "permutation")?;
    let shape = perm.iter().map(|&p| operand.shape[p]).collect();
    Ok(vec![tensor(shape, operand.dtype)])
}

/// `stablehlo.slice`: `0 <= start <= limit <= dim`, positive strides; each result dimension
/// holds `ceil((limit - start) / stride)` elements.
pub(crate) fn slice(
    start_indices: &[i64],
    limit_indices: &[i64],
    strides: &[i64],
    operands: &[Type],
) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let rank = operand.rank();
    expect_len(
        start_indices.len(),
        rank,
        "start_indices",
        "the operand's rank is",
    )?;
    expect_len(
        limit_indices.len(),
        rank,
        "limit_indices",
        "the operand's rank is",
    )?;
    expect_len(strides.len(), rank, "strides", "the operand's rank is")?;
    let mut shape = Vec::with_capacity(rank);
    for d in 0..rank {
        let (start, limit, stride) = (start_indices[d], limit_indices[d], strides[d]);
        if !(0 <= start && start <= limit && limit <= operand.shape[d]) {
            return Err(format!(
                "dimension {d} of {operand}: start {start} and limit {limit} must satisfy 0 <= start <= limit <= {}",
                operand.shape[d]
            ));
        }
        if stride <= 0 {
            return Err(format!("dimension {d}: stride {stride} must be positive"));
        }
        // Both are non-negative here, so the unsigned ceiling division cannot overflow.
        shape.push(((limit - start) as u64).div_ceil(stride as u64) as i64);
    }
    Ok(vec![tensor(shape, operand.dtype)])
}

/// Checks `dynamic_slice`/`dynamic_update_slice` start indices: one scalar integer per
/// dimension, all of one type.
fn check_start_indices(operands: &[Type], first: usize, rank: usize) -> Result<(), String> {
    let given = operands.len().saturating_sub(first);
    if given != rank {
        return Err(format!(
            "has {} but the operand has rank {rank}",
            count(given, "start index", "start indices")
        ));
    }
    let mut seen: Option<&crate::types::TensorType> = None;
    for i in first..operands.len() {
        let role = format!("start index #{}", i - first);
        let t = tensor_at(operands, i, &role)?;
        expect_scalar(t, &role)?;
        expect_dtype(t, is_integer, "integer type", &role)?;
        if let Some(s) = seen {
            if s != t {
                return Err(format!(
                    "start indices have types {s} and {t}; they must be equal"
                ));
            }
        }
        seen = Some(t);
    }
    Ok(())
}

/// `stablehlo.dynamic_slice`: a slice of `slice_sizes` at run-time start indices.
pub(crate) fn dynamic_slice(slice_sizes: &[i64], operands: &[Type]) -> Inferred {
    let operand = tensor_at(operands, 0, "operand")?;
    check_start_indices(operands, 1, operand.rank())?;
    expect_len(
        slice_sizes.len(),
        operand.rank(),
        "slice_sizes",
        "the operand's rank is",
    )?;
    for (d, (&size, &dim)) in slice_sizes.iter().zip(&operand.shape).enumerate() {
        if !(0..=dim).contains(&size) {
            return Err(format!(
                "`slice_sizes` entry {size} for dimension {d} of {operand} must be in [0, {dim}]"
            ));
        }
    }
    Ok(vec![tensor(slice_sizes.to_vec(), operand.dtype)])
}

/// `stablehlo.dynamic_update_slice`: an update no larger than the operand, of its element type
/// and rank, at run-time start indices; the result has the operand's type.
pub(crate) fn dynamic_update_slice(operands: &[Type]) -> Inferred {
    let operand = tensor_at(operands, 0, "operand")?;
    let update = tensor_at(operands, 1, "update")?;
    if update.dtype != operand.dtype || update.rank() != operand.rank() {
        return Err(format!(
            "update has type {update} and operand {operand}; their element types and ranks must be equal"
        ));
    }
    if let Some(d) = (0..operand.rank()).find(|&d| update.shape[d] > operand.shape[d]) {
        return Err(format!(
            "update {update} does not fit in operand {operand} along dimension {d}"
        ));
    }
    check_start_indices(operands, 2, operand.rank())?;
    Ok(vec![Type::Tensor(operand.clone())])
}

/// `stablehlo.concatenate`: inputs equal except along `dimension`, whose sizes add up.
pub(crate) fn concatenate(dimension: i64, operands: &[Type]) -> Inferred {
    if operands.is_empty() {
        return Err("expects at least one input".to_string());
    }
    let inputs = tensors(operands, "input")?;
    let first = inputs[0];
    let d = axis(dimension, first.rank(), "dimension")?;
    let mut total: i128 = 0;
    for t in &inputs {
        let same_rest = t.rank() == first.rank()
            && (0..first.rank()).all(|i| i == d || t.shape[i] == first.shape[i]);
        if t.dtype != first.dtype || !same_rest {
            return Err(format!(
                "inputs have types {first} and {t}; they must be equal except along dimension {d}"
            ));
        }
        total += i128::from(t.shape[d]);
    }
    let mut shape = first.shape.clone();
    shape[d] = to_dim(total, "the concatenated dimension")?;
    Ok(vec![tensor(shape, first.dtype)])
}

/// `stablehlo.pad`: each dimension becomes `lo + d + max(d - 1, 0) * interior + hi`; edge
/// padding may be negative (it crops), interior padding may not, and no size may end negative.
pub(crate) fn pad(low: &[i64], high: &[i64], interior: &[i64], operands: &[Type]) -> Inferred {
    expect_operands(operands, 2, "operand, padding_value")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let value = tensor_at(operands, 1, "padding_value")?;
    expect_scalar(value, "padding_value")?;
    if value.dtype != operand.dtype {
        return Err(format!(
            "padding_value has type {value} and operand {operand}; their element types must be equal"
        ));
    }
    let rank = operand.rank();
    expect_len(low.len(), rank, "edge_padding_low", "the operand's rank is")?;
    expect_len(
        high.len(),
        rank,
        "edge_padding_high",
        "the operand's rank is",
    )?;
    expect_len(
        interior.len(),
        rank,
        "interior_padding",
        "the operand's rank is",
    )?;
    let mut shape = Vec::with_capacity(rank);
    for d in 0..rank {
        if interior[d] < 0 {
            return Err(format!(
                "`interior_padding` entry {} for dimension {d} must not be negative",
                interior[d]
            ));
        }
        let size = i128::from(operand.shape[d]);
        let padded = size
            + (size - 1).max(0) * i128::from(interior[d])
            + i128::from(low[d])
            + i128::from(high[d]);
        shape.push(to_dim(
            padded,
            &format!("dimension {d} of the padded {operand}"),
        )?);
    }
    Ok(vec![tensor(shape, operand.dtype)])
}

/// `stablehlo.reverse`: distinct, in-range dimensions; the type is kept.
pub(crate) fn reverse(dimensions: &[i64], operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    axes(dimensions, operand.rank(), "dimensions")?;
    expect_unique(dimensions, "dimensions")?;
    Ok(vec![Type::Tensor(operand.clone())])
}

/// `stablehlo.get_dimension_size`: `tensor<i32>`.
pub(crate) fn get_dimension_size(dimension: i64, operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let operand = tensor_at(operands, 0, "operand")?;
    axis(dimension, operand.rank(), "dimension")?;
    Ok(vec![scalar(DType::I32)])
}
