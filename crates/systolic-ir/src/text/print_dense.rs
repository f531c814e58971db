//! `dense<…>` element literals as MLIR prints them.
//!
//! - Every element equal (bitwise, so `0.0` and `-0.0` differ): the splat form `dense<1.5>`.
//! - No elements: `dense<>`.
//! - More than [`HEX_ELEMENT_LIMIT`] elements: the raw little-endian bytes as one hex string
//!   `dense<"0x0000803F…">` (one byte per `i1`), which is what MLIR does above this count and
//!   keeps large constants fast to print and to parse.
//! - Otherwise nested lists following the shape: `dense<[[1, 2], [3, 4]]>`; a complex element
//!   as `(1.000000e+00,-2.000000e+00)` (no space after the comma, as MLIR prints it).

use super::print_float::format_float;
use crate::tensor::{Data, Tensor};
use std::fmt::Write;

/// MLIR prints elements attributes with more elements than this as hex.
pub(crate) const HEX_ELEMENT_LIMIT: usize = 100;

/// Writes `dense<…>` (without the ` : type` that follows it).
pub(crate) fn write_dense(out: &mut String, t: &Tensor) {
    out.push_str("dense<");
    let n = t.num_elements();
    if n == 0 {
        // Nothing between the brackets.
    } else if is_splat(t) {
        write_element(out, t, 0);
    } else if n > HEX_ELEMENT_LIMIT {
        write_hex_bytes(out, &t.to_le_bytes());
    } else {
        write_nested(out, t, 0, 0);
    }
    out.push('>');
}

/// True when every element has the bits of the first.
fn is_splat(t: &Tensor) -> bool {
    match t.data() {
        Data::Bool(v) => v.iter().all(|&x| x == v[0]),
        Data::Int(v) => v.iter().all(|&x| x == v[0]),
        Data::UInt(v) => v.iter().all(|&x| x == v[0]),
        Data::Float(v) => {
            let first = t.bits(0);
            // Comparing f64 bits first is fast and exact for the stored (already rounded)
            // values; NaNs fall back to the dtype's bits.
            v.iter()
                .enumerate()
                .all(|(i, x)| x.to_bits() == v[0].to_bits() || t.bits(i) == first)
        }
        Data::Complex(_) => {
            let first = t.bits_wide(0);
            (1..t.num_elements()).all(|i| t.bits_wide(i) == first)
        }
    }
}

/// `"0x…"`: upper-case hex of the bytes.
fn write_hex_bytes(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.reserve(bytes.len() * 2 + 4);
    out.push_str("\"0x");
    // Digits into a byte buffer, then one copy: pushing chars one at a time cost 2 ns each, and
    // weights embedded in a module are tens of millions of digits.
    let mut digits = vec![0u8; bytes.len() * 2];
    for (pair, &b) in digits.chunks_exact_mut(2).zip(bytes) {
        pair[0] = HEX[(b >> 4) as usize];
        pair[1] = HEX[(b & 15) as usize];
    }
    out.push_str(std::str::from_utf8(&digits).expect("hex digits are ASCII"));
    out.push('"');
}

/// The elements of dimension `dim` starting at flat index `start`, as nested lists.
fn write_nested(out: &mut String, t: &Tensor, dim: usize, start: usize) {
    let shape = t.shape();
    if dim == shape.len() {
        write_element(out, t, start);
        return;
    }
    let stride: usize = shape[dim + 1..]
        .iter()
        .map(|&d| d.max(0) as usize)
        .product();
    out.push('[');
    for i in 0..shape[dim].max(0) as usize {
        if i > 0 {
            out.push_str(", ");
        }
        write_nested(out, t, dim + 1, start + i * stride);
    }
    out.push(']');
}

/// One element: `true`, `-3`, `255`, `1.500000e+00`, `0x7FC00000`.
pub(crate) fn write_element(out: &mut String, t: &Tensor, i: usize) {
    match t.data() {
        Data::Bool(v) => out.push_str(if v[i] { "true" } else { "false" }),
        Data::Int(v) => {
            let _ = write!(out, "{}", v[i]);
        }
        Data::UInt(v) => {
            let _ = write!(out, "{}", v[i]);
        }
        Data::Float(v) => out.push_str(&format_float(t.dtype(), v[i])),
        Data::Complex(v) => {
            let part = t.dtype().component().unwrap_or(t.dtype());
            out.push('(');
            out.push_str(&format_float(part, v[i].re));
            out.push(',');
            out.push_str(&format_float(part, v[i].im));
            out.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::types::TensorType;

    fn dense(t: &Tensor) -> String {
        let mut out = String::new();
        write_dense(&mut out, t);
        out
    }

    /// Expected texts are what MLIR (jaxlib 0.10.2) printed for the same constants.
    #[test]
    fn forms() {
        let t = Tensor::from_f32(
            vec![2, 3],
            vec![1.5, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 1e-30],
        );
        assert_eq!(
            dense(&t),
            "dense<[[1.500000e+00, 0x7FC00000, 0x7F800000], [0xFF800000, -0.000000e+00, 1.000000e-30]]>"
        );
        assert_eq!(
            dense(&Tensor::from_f32(vec![1, 2], vec![1.0, 1.0])),
            "dense<1.000000e+00>"
        );
        assert_eq!(
            dense(&Tensor::from_f32(vec![2], vec![0.0, -0.0])),
            "dense<[0.000000e+00, -0.000000e+00]>"
        );
        assert_eq!(
            dense(&Tensor::zeros(TensorType::new(vec![0, 3], DType::F32))),
            "dense<>"
        );
        let b = Tensor::from_bool(vec![2], vec![true, false]).unwrap();
        assert_eq!(dense(&b), "dense<[true, false]>");
        let i = Tensor::from_i64(vec![2], DType::I8, vec![-128, 127]).unwrap();
        assert_eq!(dense(&i), "dense<[-128, 127]>");
        let u = Tensor::from_u64(vec![], DType::U64, vec![u64::MAX]).unwrap();
        assert_eq!(dense(&u), "dense<18446744073709551615>");
        use num_complex::Complex64;
        let z = vec![Complex64::new(1.0, 2.0), Complex64::new(3.0, -4.0)];
        let c = Tensor::from_complex(vec![2], DType::C64, z).unwrap();
        assert_eq!(
            dense(&c),
            "dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.000000e+00)]>"
        );
        let one = vec![Complex64::new(2.0, 0.5)];
        let c = Tensor::from_complex(vec![], DType::C128, one).unwrap();
        assert_eq!(dense(&c), "dense<(2.000000e+00,5.000000e-01)>");
        let nested = Tensor::from_f32(vec![2, 1, 1], vec![1.0, 2.0]);
        assert_eq!(
            dense(&nested),
            "dense<[[[1.000000e+00]], [[2.000000e+00]]]>"
        );
    }

    #[test]
    fn large_tensors_are_hex() {
        let values: Vec<f32> = (0..101).map(|i| i as f32).collect();
        let text = dense(&Tensor::from_f32(vec![101], values));
        assert!(
            text.starts_with("dense<\"0x000000000000803F00000040"),
            "{text}"
        );
        assert_eq!(text.len(), "dense<\"0x\">".len() + 101 * 8);
        let bools: Vec<bool> = (0..200).map(|i| i % 3 == 0).collect();
        let text = dense(&Tensor::from_bool(vec![200], bools).unwrap());
        assert!(text.starts_with("dense<\"0x010000010000"), "{text}");
        // Splats stay splats however large.
        let ones = Tensor::from_f32(vec![200], vec![1.5; 200]);
        assert_eq!(dense(&ones), "dense<1.500000e+00>");
    }
}
