//! Program inputs: reading `.npy` files and checking them against the entry's parameters
//! before anything runs, so a mismatch is reported by argument index with both types.
//!
//! Files become host arrays in their native element types ([`CpuBuffer`]) straight from their
//! bytes: one read and one copy per input, which for 64 MiB inputs is the difference between
//! tens of milliseconds and a second (an exact [`systolic_ir::Tensor`] holds 8 bytes per
//! element).

use crate::error::CliError;
use std::path::PathBuf;
use systolic_cpu::CpuBuffer;
use systolic_ir::{Func, TensorType, Type};

/// The tensor types of `func`'s parameters, or an error for a parameter that cannot be fed
/// from a file (a token or a tuple).
pub fn param_tensor_types(func: &Func) -> Result<Vec<TensorType>, CliError> {
    func.param_types()
        .into_iter()
        .enumerate()
        .map(|(i, ty)| match ty {
            Type::Tensor(t) => Ok(t),
            other => Err(CliError::msg(format!(
                "parameter {i} of @{} has type {other}, which cannot be given as a .npy input",
                func.name
            ))),
        })
        .collect()
}

/// Reads the input files and checks their count, shapes and dtypes against `params`.
pub fn load_inputs(
    files: &[PathBuf],
    params: &[TensorType],
    entry: &str,
) -> Result<Vec<CpuBuffer>, CliError> {
    if files.len() != params.len() {
        let expected: Vec<String> = params.iter().map(|t| t.to_string()).collect();
        let hint = if files.is_empty() {
            "; give them with --input FILE.npy, once per parameter"
        } else {
            ""
        };
        return Err(CliError::msg(format!(
            "@{entry} takes {} inputs ({}), got {}{hint}",
            params.len(),
            if expected.is_empty() {
                "none".to_string()
            } else {
                expected.join(", ")
            },
            files.len(),
        )));
    }
    files
        .iter()
        .zip(params)
        .enumerate()
        .map(|(i, (file, param))| {
            read_input(i, file, param.dtype, |ty| {
                check_input(i, &file.display().to_string(), ty, param, entry)
            })
        })
        .collect()
}

/// Input `i` from the `.npy` file `file` (raw void elements read as `dtype`), its type
/// passed to `check` before the data is read. Straight into the buffer when the file holds the
/// bytes as they are (one copy of the input in memory, not two), else read and converted.
pub fn read_input(
    i: usize,
    file: &std::path::Path,
    dtype: systolic_ir::DType,
    check: impl FnOnce(&TensorType) -> Result<(), CliError>,
) -> Result<CpuBuffer, CliError> {
    let npy_error = |e: systolic_npy::NpyError| CliError::msg(format!("input {i}: {e}"));
    let mut npy = systolic_npy::open(file, Some(dtype)).map_err(npy_error)?;
    check(npy.ty())?;
    if npy.is_dense_le() {
        let ty = npy.ty().clone();
        if let Some(read) = CpuBuffer::from_le_fill(ty, |bytes| npy.read_dense_le_into(bytes)) {
            return read.map_err(npy_error);
        }
    }
    let array = npy.read_raw().map_err(npy_error)?;
    CpuBuffer::from_le_bytes(array.ty, &array.bytes)
        .map_err(|e| CliError::msg(format!("input {i} ({}): {e}", file.display())))
}

/// Checks one input's type against its parameter type.
pub fn check_input(
    index: usize,
    file: &str,
    ty: &TensorType,
    param: &TensorType,
    entry: &str,
) -> Result<(), CliError> {
    if ty != param {
        return Err(CliError::msg(format!(
            "input {index} ({file}): @{entry} expects {param}, got {ty} (shape or dtype differs)"
        )));
    }
    Ok(())
}
