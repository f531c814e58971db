//! A tensor's value as the StableHLO reference interpreter prints it (`interpreter.print`, and
//! the results of a function it runs): the type, then the elements as nested lists, one
//! dimension per level of indentation:
//!
//! ```text
//! tensor<2x2xi8> {
//!   [
//!     [1, 2],
//!     [3, 4]
//!   ]
//! }
//! ```
//!
//! A scalar is `tensor<ui8> {1}`; a complex element is `[re, im]`; floats are MLIR's
//! (`1.000000e+00`). Or, with `dense`, the value as an attribute: `dense<[1, 2]> : tensor<2xi8>`.

use super::print_dense::{write_dense, write_element};
use super::print_float::format_float;
use crate::tensor::{Data, Tensor};
use std::fmt::Write;

/// The value in the reference interpreter's nested-list form (see the module docs).
///
/// ```
/// use systolic_ir::{DType, Tensor};
/// use systolic_ir::text::format_value;
/// let t = Tensor::from_i64(vec![2, 2], DType::I8, vec![1, 2, 3, 4]).unwrap();
/// assert_eq!(format_value(&t), "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}");
/// ```
pub fn format_value(t: &Tensor) -> String {
    let mut out = format!("{} {{", t.ty());
    let mut index = Vec::with_capacity(t.shape().len());
    let mut flat = 0;
    nested(&mut out, t, &mut index, &mut flat);
    out.push('}');
    out
}

/// The value as a `dense<…> : type` attribute, as MLIR prints it.
///
/// ```
/// use systolic_ir::{DType, Tensor};
/// use systolic_ir::text::format_value_dense;
/// let t = Tensor::from_i64(vec![2], DType::I8, vec![1, -2]).unwrap();
/// assert_eq!(format_value_dense(&t), "dense<[1, -2]> : tensor<2xi8>");
/// ```
pub fn format_value_dense(t: &Tensor) -> String {
    let mut out = String::new();
    write_dense(&mut out, t);
    let _ = write!(out, " : {}", t.ty());
    out
}

/// Is `index` the last position of its innermost dimension (or empty)?
fn is_last(index: &[i64], shape: &[i64]) -> bool {
    match index.last() {
        None => true,
        Some(&i) => i == shape[index.len() - 1] - 1,
    }
}

fn newline_indent(out: &mut String, levels: usize) {
    out.push('\n');
    for _ in 0..levels {
        out.push_str("  ");
    }
}

/// Writes the elements under `index` (a prefix of a full index); `flat` is the row-major
/// position of the next element.
fn nested(out: &mut String, t: &Tensor, index: &mut Vec<i64>, flat: &mut usize) {
    let shape = t.shape();
    if index.len() == shape.len() {
        element(out, t, *flat);
        *flat += 1;
        if !is_last(index, shape) {
            out.push_str(", ");
        }
        return;
    }
    let level = index.len() + 1;
    newline_indent(out, level);
    out.push('[');
    for i in 0..shape[index.len()] {
        index.push(i);
        nested(out, t, index, flat);
        index.pop();
    }
    out.push(']');
    if !is_last(index, shape) {
        out.push(',');
    } else {
        newline_indent(out, level - 1);
    }
}

/// An element as `dense<…>` writes it, but a complex one as the pair `[re, im]`.
fn element(out: &mut String, t: &Tensor, i: usize) {
    match t.data() {
        Data::Complex(v) => {
            let part = t.dtype().component().unwrap_or(t.dtype());
            let _ = write!(
                out,
                "[{}, {}]",
                format_float(part, v[i].re),
                format_float(part, v[i].im)
            );
        }
        _ => write_element(out, t, i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::types::TensorType;

    fn ints(shape: Vec<i64>, dtype: DType, v: Vec<i64>) -> Tensor {
        Tensor::from_i64(shape, dtype, v).unwrap()
    }

    #[test]
    fn scalars_sit_inside_the_braces() {
        let t = Tensor::from_u64(vec![], DType::U8, vec![1]).unwrap();
        assert_eq!(format_value(&t), "tensor<ui8> {1}");
    }

    #[test]
    fn vectors_take_one_line() {
        let t = ints(vec![4], DType::I8, vec![1, 2, -3, -4]);
        assert_eq!(format_value(&t), "tensor<4xi8> {\n  [1, 2, -3, -4]\n}");
        let f = Tensor::from_f64(vec![2], DType::F16, vec![1.0, -3.0]).unwrap();
        assert_eq!(
            format_value(&f),
            "tensor<2xf16> {\n  [1.000000e+00, -3.000000e+00]\n}"
        );
        let b = Tensor::from_bool(vec![2], vec![true, false]).unwrap();
        assert_eq!(format_value(&b), "tensor<2xi1> {\n  [true, false]\n}");
    }

    #[test]
    fn each_dimension_indents_one_level() {
        let t = ints(vec![2, 2, 2], DType::I64, vec![0, 1, 2, 3, 4, 0, 1, 2]);
        assert_eq!(
            format_value(&t),
            "tensor<2x2x2xi64> {\n  [\n    [\n      [0, 1],\n      [2, 3]\n    ],\n    [\n      \
             [4, 0],\n      [1, 2]\n    ]\n  ]\n}"
        );
    }

    #[test]
    fn empty_dimensions_print_empty_lists() {
        let zero = Tensor::zeros(TensorType::new(vec![0, 2], DType::I8));
        assert_eq!(format_value(&zero), "tensor<0x2xi8> {\n  []\n}");
        let cols = Tensor::zeros(TensorType::new(vec![2, 0], DType::I8));
        assert_eq!(
            format_value(&cols),
            "tensor<2x0xi8> {\n  [\n    [],\n    []\n  ]\n}"
        );
    }

    #[test]
    fn complex_elements_are_pairs() {
        let t = Tensor::from_complex(
            vec![1],
            DType::C64,
            vec![num_complex::Complex64::new(3.140000104904175, 1.0)],
        )
        .unwrap();
        assert_eq!(
            format_value(&t),
            "tensor<1xcomplex<f32>> {\n  [[3.140000e+00, 1.000000e+00]]\n}"
        );
        assert_eq!(
            format_value_dense(&t),
            "dense<(3.140000e+00,1.000000e+00)> : tensor<1xcomplex<f32>>"
        );
    }
}
