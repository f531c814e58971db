//! Batches of matrices in the trailing two dimensions, for the factorisations and solves.

use crate::bail;
use crate::error::Result;
use std::ops::{Div, Mul, Sub};
use systolic_ir::{numerics, Complex64, DType, Data, Tensor};

/// Checks that `t` is a float or complex tensor of rank ≥ 2 and returns (batch count, rows,
/// columns).
pub(crate) fn matrix_dims(t: &Tensor, what: &str) -> Result<(usize, usize, usize)> {
    let shape = t.shape();
    if shape.len() < 2 {
        bail!("{what} must have rank ≥ 2, got {}", t.ty());
    }
    if !t.dtype().is_float_or_complex() {
        bail!(
            "{what} must have a floating-point or complex element type, got {}",
            t.ty()
        );
    }
    let rows = shape[shape.len() - 2] as usize;
    let cols = shape[shape.len() - 1] as usize;
    let batch = shape[..shape.len() - 2].iter().product::<i64>() as usize;
    Ok((batch, rows, cols))
}

/// The numbers the solvers compute with: f64 for float tensors, `Complex64` for complex ones,
/// so that one substitution or factorisation serves both (`conj` is the identity on reals).
pub(crate) trait Field:
    Copy + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// The complex conjugate.
    fn conj(self) -> Self;
    /// The elements of a tensor of this kind (`None` for another kind).
    fn elements(t: &Tensor) -> Option<Vec<Self>>;
    /// Elements rounded to `dtype` (and flushed as XLA:CPU does) as tensor data.
    fn data(values: Vec<Self>, dtype: DType) -> Data;
}

impl Field for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn conj(self) -> Self {
        self
    }
    fn elements(t: &Tensor) -> Option<Vec<Self>> {
        match t.data() {
            Data::Float(v) => Some(v.clone()),
            _ => None,
        }
    }
    fn data(values: Vec<Self>, dtype: DType) -> Data {
        Data::Float(
            values
                .into_iter()
                .map(|x| numerics::arith_result(dtype, x))
                .collect(),
        )
    }
}

impl Field for Complex64 {
    const ZERO: Self = Complex64::new(0.0, 0.0);
    const ONE: Self = Complex64::new(1.0, 0.0);
    fn conj(self) -> Self {
        Complex64::conj(&self)
    }
    fn elements(t: &Tensor) -> Option<Vec<Self>> {
        match t.data() {
            Data::Complex(v) => Some(v.clone()),
            _ => None,
        }
    }
    fn data(values: Vec<Self>, dtype: DType) -> Data {
        Data::Complex(
            values
                .into_iter()
                .map(|z| numerics::complex_result(dtype, z))
                .collect(),
        )
    }
}
