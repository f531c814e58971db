//! What the golden and numeric tests share about real and complex test values: the pairing
//! JAX's transposes are adjoint under, and shifting an input along a tangent.

use systolic_ir::{Complex64, Data, Tensor};

/// Re Σ a·b (no conjugation: the pairing under which JAX's transposes are adjoint).
pub fn dot(a: &Tensor, b: &Tensor) -> f64 {
    let (x, y) = (a.to_f64_vec(), b.to_f64_vec());
    if a.dtype().is_complex() {
        // Interleaved (re, im) pairs: Re(a·b) = a.re·b.re − a.im·b.im.
        return x
            .chunks(2)
            .zip(y.chunks(2))
            .map(|(p, q)| p[0] * q[0] - p[1] * q[1])
            .sum();
    }
    x.iter().zip(y).map(|(x, y)| x * y).sum()
}

/// A tensor of `like`'s type from numbers as `to_f64_vec` gives them (complex: interleaved
/// parts).
pub fn from_f64s(like: &Tensor, v: Vec<f64>) -> Tensor {
    let data = if like.dtype().is_complex() {
        Data::Complex(v.chunks(2).map(|p| Complex64::new(p[0], p[1])).collect())
    } else {
        Data::Float(v)
    };
    Tensor::new(like.ty().clone(), data).unwrap()
}

/// `x + e·t`, element by element (part by part for complex values).
pub fn shifted(x: &Tensor, t: &Tensor, e: f64) -> Tensor {
    let v: Vec<f64> = x
        .to_f64_vec()
        .iter()
        .zip(t.to_f64_vec())
        .map(|(a, b)| a + e * b)
        .collect();
    from_f64s(x, v)
}
