//! Ops with a reducer or comparator region: reduce, reduce_window, select_and_scatter, sort.
//! Their operands come in groups (N inputs, then N init values) and their regions take and
//! return scalars of the inputs' element types.

use super::common::*;
use super::RegionSignature;
use crate::dtype::DType;
use crate::types::{TensorType, Type};
use crate::window::Window;

/// Splits `2N` operands into N inputs of one shape and N scalar init values of matching
/// element types.
fn inputs_and_inits(operands: &[Type]) -> Result<(Vec<&TensorType>, Vec<&TensorType>), String> {
    if operands.is_empty() || !operands.len().is_multiple_of(2) {
        return Err(format!(
            "expects N inputs followed by N init values (N >= 1), got {} operands",
            operands.len()
        ));
    }
    let n = operands.len() / 2;
    let inputs = tensors(&operands[..n], "input")?;
    let inits: Vec<&TensorType> = (n..2 * n)
        .map(|i| tensor_at(operands, i, &format!("init value #{}", i - n)))
        .collect::<Result<_, _>>()?;
    for (k, (input, init)) in inputs.iter().zip(&inits).enumerate() {
        if input.shape != inputs[0].shape {
            return Err(format!(
                "inputs have types {} and {input}; their shapes must be equal",
                inputs[0]
            ));
        }
        expect_scalar(init, &format!("init value #{k}"))?;
        if init.dtype != input.dtype {
            return Err(format!(
                "input #{k} has type {input} and its init value {init}; their element types must be equal"
            ));
        }
    }
    Ok((inputs, inits))
}

/// The reducer type `(E0, …, EN-1, E0, …, EN-1) -> (E0, …, EN-1)` over scalars.
fn reducer_signature(dtypes: &[DType]) -> (Vec<Type>, Vec<Type>) {
    let scalars: Vec<Type> = dtypes.iter().map(|&d| scalar(d)).collect();
    let mut args = scalars.clone();
    args.extend(scalars.iter().cloned());
    (args, scalars)
}

/// `stablehlo.reduce`: the inputs' shape without `dimensions`, one result per input.
pub(crate) fn reduce(
    dimensions: &[i64],
    operands: &[Type],
    regions: &[RegionSignature],
) -> Inferred {
    expect_regions(regions, 1, "body")?;
    let (inputs, _) = inputs_and_inits(operands)?;
    let rank = inputs[0].rank();
    let dims = axes(dimensions, rank, "dimensions")?;
    expect_unique(dimensions, "dimensions")?;
    let dtypes: Vec<DType> = inputs.iter().map(|t| t.dtype).collect();
    let (args, results) = reducer_signature(&dtypes);
    expect_region(&regions[0], "body", &args, &results)?;
    let shape: Vec<i64> = (0..rank)
        .filter(|d| !dims.contains(d))
        .map(|d| inputs[0].shape[d])
        .collect();
    Ok(dtypes.iter().map(|&d| tensor(shape.clone(), d)).collect())
}

/// `stablehlo.reduce_window`: one result per input, with as many elements per dimension as
/// windows fit.
pub(crate) fn reduce_window(
    window: &Window,
    operands: &[Type],
    regions: &[RegionSignature],
) -> Inferred {
    expect_regions(regions, 1, "body")?;
    let (inputs, _) = inputs_and_inits(operands)?;
    let window = window
        .resolve(inputs[0].rank())
        .map_err(|e| e.to_string())?;
    let dtypes: Vec<DType> = inputs.iter().map(|t| t.dtype).collect();
    let (args, results) = reducer_signature(&dtypes);
    expect_region(&regions[0], "body", &args, &results)?;
    let shape = window
        .output_shape(&inputs[0].shape)
        .map_err(|e| e.to_string())?;
    Ok(dtypes.iter().map(|&d| tensor(shape.clone(), d)).collect())
}

/// `stablehlo.select_and_scatter(operand, source, init_value)`: `source` has one element per
/// window of the padded operand; `select` is `(E, E) -> i1`, `scatter` is `(E, E) -> E`; the
/// result has the operand's type.
pub(crate) fn select_and_scatter(
    window: &Window,
    operands: &[Type],
    regions: &[RegionSignature],
) -> Inferred {
    expect_operands(operands, 3, "operand, source, init_value")?;
    expect_regions(regions, 2, "select, scatter")?;
    let operand = tensor_at(operands, 0, "operand")?;
    let source = tensor_at(operands, 1, "source")?;
    let init = tensor_at(operands, 2, "init_value")?;
    expect_scalar(init, "init_value")?;
    if source.dtype != operand.dtype || init.dtype != operand.dtype {
        return Err(format!(
            "operand {operand}, source {source} and init_value {init} must have one element type"
        ));
    }
    if window.has_dilations() {
        return Err("select_and_scatter has no `base_dilations` or `window_dilations`".to_string());
    }
    let windows = window
        .resolve(operand.rank())
        .and_then(|w| w.output_shape(&operand.shape))
        .map_err(|e| e.to_string())?;
    if source.shape != windows {
        return Err(format!(
            "source has type {source} but the windows over {operand} form the shape {}",
            list(&windows)
        ));
    }
    let e = scalar(operand.dtype);
    expect_region(
        &regions[0],
        "select",
        &[e.clone(), e.clone()],
        &[scalar(DType::Bool)],
    )?;
    expect_region(&regions[1], "scatter", &[e.clone(), e.clone()], &[e])?;
    Ok(vec![Type::Tensor(operand.clone())])
}

/// `stablehlo.sort`: inputs of one shape, `-R <= dimension < R`, a comparator
/// `(E0, E0, E1, E1, …) -> i1`; the results have the inputs' types.
pub(crate) fn sort(dimension: i64, operands: &[Type], regions: &[RegionSignature]) -> Inferred {
    expect_regions(regions, 1, "comparator")?;
    if operands.is_empty() {
        return Err("expects at least one input".to_string());
    }
    let inputs = tensors(operands, "input")?;
    let first = inputs[0];
    if let Some(t) = inputs.iter().find(|t| t.shape != first.shape) {
        return Err(format!(
            "inputs have types {first} and {t}; their shapes must be equal"
        ));
    }
    let rank = first.rank() as i64;
    if !(-rank..rank).contains(&dimension) {
        return Err(format!(
            "dimension {dimension} is out of range for rank {rank} (must be in [-{rank}, {rank}))"
        ));
    }
    let args: Vec<Type> = inputs
        .iter()
        .flat_map(|t| [scalar(t.dtype), scalar(t.dtype)])
        .collect();
    expect_region(&regions[0], "comparator", &args, &[scalar(DType::Bool)])?;
    Ok(operands.to_vec())
}
