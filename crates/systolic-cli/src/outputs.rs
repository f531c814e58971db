//! Program outputs: a short human summary of each and writing them as `.npy` files.

use crate::error::CliError;
use serde::Serialize;
use std::path::Path;
use systolic_cpu::{CpuBuffer, Storage};
use systolic_ir::Tensor;

/// How many leading values a summary shows.
const FIRST_VALUES: usize = 4;

/// A one-line summary: type, first values and sum (for booleans, the count of `true`).
/// Floats are summed in f64 from the first element on, integers exactly.
///
/// ```text
/// out0: tensor<8x10xf32> first [0.1234, -1.5, 0, 2] sum -3.25
/// ```
pub fn summary(name: &str, b: &CpuBuffer) -> String {
    let (first, total) = match b.storage() {
        Storage::Bool(v) => (
            v.iter().take(FIRST_VALUES).map(|x| x.to_string()).collect(),
            format!("true {}", v.iter().filter(|&&x| x).count()),
        ),
        Storage::I8(v) => integers(v),
        Storage::I16(v) => integers(v),
        Storage::I32(v) => integers(v),
        Storage::I64(v) => integers(v),
        Storage::U8(v) => integers(v),
        Storage::U16(v) => integers(v),
        Storage::U32(v) => integers(v),
        Storage::U64(v) => integers(v),
        Storage::F16(v) => floats(v),
        Storage::BF16(v) => floats(v),
        Storage::F32(v) => floats(v),
        Storage::F64(v) => floats(v),
        Storage::C64(v) => complexes(v.iter().map(|z| (z.re as f64, z.im as f64))),
        Storage::C128(v) => complexes(v.iter().map(|z| (z.re, z.im))),
    };
    let more = if b.num_elements() > FIRST_VALUES {
        ", …"
    } else {
        ""
    };
    format!(
        "{name}: {} first [{}{more}] {total}",
        b.ty(),
        first.join(", ")
    )
}

/// [`summary`] of an exact tensor.
pub fn tensor_summary(name: &str, t: &Tensor) -> String {
    summary(name, &CpuBuffer::from_tensor(t))
}

/// The first values and the exact sum of integers.
fn integers<T: Copy + Into<i128> + std::fmt::Display>(v: &[T]) -> (Vec<String>, String) {
    let first = v.iter().take(FIRST_VALUES).map(|x| x.to_string()).collect();
    (
        first,
        format!("sum {}", v.iter().map(|&x| x.into()).sum::<i128>()),
    )
}

/// The first values and the f64 sum of floats.
fn floats<T: Copy + Into<f64>>(v: &[T]) -> (Vec<String>, String) {
    let first = v
        .iter()
        .take(FIRST_VALUES)
        .map(|&x| float_text(x.into()))
        .collect();
    let sum: f64 = v.iter().map(|&x| x.into()).sum();
    (first, format!("sum {}", float_text(sum)))
}

/// The first values (`re+imj`) and the f64 sum of complex numbers.
fn complexes(v: impl Iterator<Item = (f64, f64)> + Clone) -> (Vec<String>, String) {
    let text = |(re, im): (f64, f64)| {
        let sign = if im.is_sign_negative() { "-" } else { "+" };
        format!("{}{sign}{}j", float_text(re), float_text(im.abs()))
    };
    let first = v.clone().take(FIRST_VALUES).map(text).collect();
    let sum = v.fold((0.0, 0.0), |(a, b), (re, im)| (a + re, b + im));
    (first, format!("sum {}", text(sum)))
}

/// Six significant digits, switching to exponent form for very large or small magnitudes.
pub fn float_text(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs();
    if (1e-4..1e6).contains(&magnitude) {
        let decimals = (5 - magnitude.log10().floor() as i32).max(0) as usize;
        let s = format!("{x:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        format!("{x:.5e}")
    }
}

/// Shape and dtype of an output, for the JSON report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutputInfo {
    /// Dimension sizes.
    pub shape: Vec<i64>,
    /// MLIR element type name (`f32`, `i32`, `i1`, `bf16`).
    pub dtype: String,
}

impl OutputInfo {
    /// The shape and dtype of `b`.
    pub fn of(b: &CpuBuffer) -> OutputInfo {
        OutputInfo {
            shape: b.shape().to_vec(),
            dtype: b.dtype().mlir_name().to_string(),
        }
    }
}

/// Checks before a run that its outputs can be written to `dir` (created if needed): an
/// unwritable directory is found before the work, not after it.
pub fn check_out_dir(dir: &Path) -> Result<(), CliError> {
    let cannot = |e: std::io::Error| {
        CliError::msg(format!("cannot write outputs to {}: {e}", dir.display()))
    };
    std::fs::create_dir_all(dir).map_err(cannot)?;
    tempfile::Builder::new()
        .prefix(".systolic-")
        .tempfile_in(dir)
        .map_err(cannot)?;
    Ok(())
}

/// Writes `outputs` as `dir/out0.npy`, `dir/out1.npy`, …, creating `dir` if needed —
/// all or nothing: every file is written beside its place first, then renamed into place
/// (a symlink there is replaced, not followed), so a failure leaves the previous outputs
/// as they were. `outN.npy` files of an earlier run with more outputs are removed, so the
/// directory holds this run's outputs alone.
pub fn write_outputs(dir: &Path, outputs: &[CpuBuffer]) -> Result<Vec<String>, CliError> {
    // The directory was checked before the run (`check_out_dir`); it is made again in case it
    // went away since, and a write that fails names its file.
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::msg(format!("cannot write outputs to {}: {e}", dir.display())))?;
    let mut staged = vec![];
    for (i, b) in outputs.iter().enumerate() {
        let path = dir.join(format!("out{i}.npy"));
        let file = systolic_npy::stage_raw(&path, b.ty(), &b.to_le_bytes())?;
        staged.push((path, file));
    }
    let mut written = vec![];
    for (path, file) in staged {
        file.persist(&path)
            .map_err(|e| CliError::msg(format!("cannot write {}: {}", path.display(), e.error)))?;
        written.push(path.display().to_string());
    }
    for i in outputs.len().. {
        let stale = dir.join(format!("out{i}.npy"));
        match std::fs::symlink_metadata(&stale) {
            Ok(_) => std::fs::remove_file(&stale).map_err(|e| {
                CliError::msg(format!(
                    "cannot remove {} of an earlier run: {e}",
                    stale.display()
                ))
            })?,
            Err(_) => break,
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::DType;

    #[test]
    fn float_text_is_short() {
        assert_eq!(float_text(1.5), "1.5");
        assert_eq!(float_text(-0.123456789), "-0.123457");
        assert_eq!(float_text(123456.7), "123457");
        assert_eq!(float_text(1e-7), "1.00000e-7");
        assert_eq!(float_text(0.0), "0");
        assert_eq!(float_text(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn summaries_per_kind() {
        let t = Tensor::from_f32(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, -0.5]);
        assert_eq!(
            tensor_summary("out0", &t),
            "out0: tensor<2x3xf32> first [1, 2, 3, 4, …] sum 14.5"
        );
        let t = Tensor::from_i64(vec![3], DType::I8, vec![-1, 2, 100]).unwrap();
        assert_eq!(
            tensor_summary("x", &t),
            "x: tensor<3xi8> first [-1, 2, 100] sum 101"
        );
        let t = Tensor::from_bool(vec![3], vec![true, false, true]).unwrap();
        assert_eq!(
            tensor_summary("b", &t),
            "b: tensor<3xi1> first [true, false, true] true 2"
        );
    }
}
