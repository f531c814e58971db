//! `stablehlo.cholesky`: the Cholesky factor of each matrix of a batch.
//!
//! With `lower`, reads the lower triangle of `a` (taken as symmetric) and returns `L` with
//! `a = L·Lᵀ`; otherwise reads the upper triangle and returns `U` with `a = Uᵀ·U`. The other
//! triangle of the result is zero. Complex matrices are Hermitian: `a = L·Lᴴ`, `a = Uᴴ·U`,
//! the unread triangle being the conjugate of the read one (only the real part of the diagonal
//! is read). Computed in f64 (complex numbers of f64 parts) and rounded once per element.
//!
//! A matrix that is not positive definite (a pivot ≤ 0 or NaN) is not an error: its whole
//! result matrix is NaN, as a failed factorisation reads in XLA and JAX (`jnp.linalg.cholesky`
//! of `[[4, 2], [2, -3]]` is NaN where its factor would be).

use super::matrices::{matrix_dims, Field};
use crate::bail;
use crate::error::Result;
use crate::ops::reduce::operands::{expect_result_type, new_tensor};
use systolic_ir::{Complex64, Data, Tensor, TensorType};

/// Evaluates a cholesky.
pub fn cholesky(a: &Tensor, lower: bool, result_ty: &TensorType) -> Result<Tensor> {
    let (batch, n, n2) = matrix_dims(a, "a")?;
    if n != n2 {
        bail!(
            "a must be square in its last two dimensions, got {}",
            a.ty()
        );
    }
    expect_result_type(result_ty, a.ty())?;
    let data = if a.dtype().is_complex() {
        factor_all::<Complex64>(a, lower, batch, n)?
    } else {
        factor_all::<f64>(a, lower, batch, n)?
    };
    new_tensor(result_ty.clone(), data)
}

/// A number a Cholesky factorisation takes: the real part (a pivot is real) and the square
/// root of a positive real.
trait Pivot: Field {
    /// The real part.
    fn re(self) -> f64;
    /// A real number.
    fn real(x: f64) -> Self;
}

impl Pivot for f64 {
    fn re(self) -> f64 {
        self
    }
    fn real(x: f64) -> Self {
        x
    }
}

impl Pivot for Complex64 {
    fn re(self) -> f64 {
        self.re
    }
    fn real(x: f64) -> Self {
        Complex64::new(x, 0.0)
    }
}

/// Factors every matrix of the batch in the numbers `T`.
fn factor_all<T: Pivot>(a: &Tensor, lower: bool, batch: usize, n: usize) -> Result<Data> {
    let Some(values) = T::elements(a) else {
        bail!("a {} holds elements of another kind", a.ty());
    };
    let mut out = vec![T::ZERO; values.len()];
    for k in 0..batch {
        let a_k = &values[k * n * n..(k + 1) * n * n];
        // The Hermitian (symmetric) matrix the chosen triangle describes, in its lower form:
        // the upper triangle read as `U = Lᴴ` gives `L[i][j] = conj(U[j][i])`.
        let sym = |i: usize, j: usize| {
            if lower {
                a_k[i * n + j]
            } else {
                a_k[j * n + i].conj()
            }
        };
        let factor = lower_factor(n, sym);
        let o = &mut out[k * n * n..(k + 1) * n * n];
        match factor {
            Some(l) => {
                for i in 0..n {
                    for j in 0..=i {
                        let v = l[i * n + j];
                        if lower {
                            o[i * n + j] = v;
                        } else {
                            o[j * n + i] = v.conj();
                        }
                    }
                }
            }
            None => o.iter_mut().for_each(|x| *x = T::real(f64::NAN)),
        }
    }
    Ok(T::data(out, a.dtype()))
}

/// The lower Cholesky factor of the Hermitian matrix `sym` (its lower triangle is read;
/// row-major, n×n), or `None` when a pivot is not positive.
fn lower_factor<T: Pivot>(n: usize, sym: impl Fn(usize, usize) -> T) -> Option<Vec<T>> {
    let mut l = vec![T::ZERO; n * n];
    for j in 0..n {
        let mut d = sym(j, j).re();
        for k in 0..j {
            d -= (l[j * n + k] * l[j * n + k].conj()).re();
        }
        if d.is_nan() || d <= 0.0 {
            return None;
        }
        let d = T::real(d.sqrt());
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = sym(i, j);
            for k in 0..j {
                s = s - l[i * n + k] * l[j * n + k].conj();
            }
            l[i * n + j] = s / d;
        }
    }
    Some(l)
}
