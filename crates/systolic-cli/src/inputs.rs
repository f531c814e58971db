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

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::DType;

    /// Every numpy-written fixture (`tests/data/npy`, each layout and kind of dtype) read as
    /// `systolic run` reads an input: straight into the buffer when the file holds the bytes
    /// as they are, converted otherwise — both give what numpy saved.
    #[test]
    fn inputs_read_in_place_or_converted_equal_the_exact_tensors() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/npy");
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        let mut in_place = Vec::new();
        for (name, want) in expected.as_object().unwrap() {
            let numpy = want["dtype"].as_str().unwrap();
            let dtype = DType::ALL
                .into_iter()
                .find(|d| d.numpy_name() == numpy)
                .unwrap();
            let path = dir.join(format!("{name}.npy"));
            let exact = systolic_npy::read(&path, Some(dtype)).unwrap();
            let mut checked = None;
            let buffer = read_input(0, &path, dtype, |ty| {
                checked = Some(ty.clone());
                Ok(())
            })
            .unwrap();
            assert_eq!(checked.as_ref(), Some(exact.ty()), "{name}");
            assert_eq!(buffer.to_tensor(), exact, "{name}");
            let file = systolic_npy::open(&path, Some(dtype)).unwrap();
            if file.is_dense_le() && CpuBuffer::reads_le_in_place(dtype) {
                in_place.push(name.as_str());
            }
        }
        in_place.sort();
        assert_eq!(
            in_place,
            [
                "bf16",
                "c64",
                "c_f32",
                "empty_f32",
                "f16",
                "scalar_i64",
                "uint64",
                "v2_i16",
                "v3_u8"
            ]
        );
    }
}
