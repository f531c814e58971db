//! `jnp.linalg` on what the IR has natively: `norm` (vector and matrix orders that need no
//! decomposition), `cholesky` (StableHLO `cholesky`) and triangular solves (StableHLO
//! `triangular_solve`). LU (`solve`, `inv`, `det`), QR, SVD and `eigh` are LAPACK custom
//! calls, in `np_decomp` (their derivatives in `np_decomp_rules`).
//!
//! Everything here takes complex matrices too, with JAX's conventions: norms are real
//! (`|x|`, and `real(x·x̄)` for the 2- and Frobenius norms), `cholesky` factors Hermitian
//! matrices (`a = L·Lᴴ`, symmetrised with the conjugate transpose), and triangular solves
//! can solve with the conjugate transpose (scipy's `trans = 'C'`).

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::Error;
use crate::numpy as np;
use crate::ops::creation::full;
use crate::ops::elementwise::to_inexact;
use crate::ops::reduce::norm_axes;
use systolic_ir::{DType, OpKind, TransposeKind};

fn or_fail(r: Result<Array, Error>) -> Array {
    r.unwrap_or_else(Array::failed)
}

/// The order of a [`norm`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    /// The Frobenius norm of matrices (`'fro'`).
    Fro,
    /// The nuclear norm of matrices (`'nuc'`): the sum of the singular values.
    Nuc,
    /// A numeric order: for vectors `sum(|x|^p)^(1/p)` with the special cases 0 (count of
    /// non-zeros), ±inf (max/min of `|x|`), 1 and 2; for matrices ±1 (max/min column sum) and
    /// ±inf (max/min row sum).
    P(f64),
}

/// Rounds `v` to a float dtype as its arithmetic would.
fn round_to(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::BF16 => f64::from(half::bf16::from_f32(v as f32)),
        DType::F16 => f64::from(half::f16::from_f32(v as f32)),
        DType::F32 => f64::from(v as f32),
        _ => v,
    }
}

/// `sum(real(x·x̄))` over `axes`: the squared 2-norm (`x·x` for real `x`).
fn sum_squares(x: &Array, axes: &[i64], keepdims: bool) -> Array {
    let sq = if x.element_type().is_complex() {
        np::real(&np::multiply(x, &np::conj(x)))
    } else {
        np::multiply(x, x)
    };
    np::sum(&sq, Some(axes), keepdims)
}

fn vector_norm(x: &Array, p: f64, axes: &[i64], keepdims: bool) -> Array {
    let ax = Some(axes);
    // The norms of complex vectors are real, of the parts' type.
    let d = crate::ops::np_decomp::parts(x.element_type());
    if p == 2.0 {
        np::sqrt(&sum_squares(x, axes, keepdims))
    } else if p == f64::INFINITY {
        np::maximum(&np::max(&np::abs(x), ax, keepdims), &full(&[], 0.0, d))
    } else if p == f64::NEG_INFINITY {
        np::min(&np::abs(x), ax, keepdims)
    } else if p == 0.0 {
        let nz = np::not_equal(x, &full(&[], 0.0, d));
        crate::ops::elementwise::convert("norm", &np::sum(&nz, ax, keepdims), d, false)
    } else if p == 1.0 {
        np::sum(&np::abs(x), ax, keepdims)
    } else {
        let pd = round_to(p, d);
        let inv = round_to(1.0 / pd, d);
        let s = np::sum(&np::power(&np::abs(x), &full(&[], pd, d)), ax, keepdims);
        np::power(&s, &full(&[], inv, d))
    }
}

/// `jnp.linalg.norm(x, ord, axis, keepdims)`. With one axis (or a 1-D `x` and `axis = None`)
/// a vector norm (`ord` default 2); with two axes (or a 2-D `x`) a matrix norm (`ord` default
/// Frobenius; ±1 and ±inf; ±2 and the nuclear norm from the singular values, differentiable
/// through the SVD's rule). `axis = None` with `ord = None` is the 2-norm of the flattened `x`. Integers
/// become f32.
///
/// ```
/// use systolic::{numpy as np, Array};
/// use systolic::numpy::linalg::{norm, NormOrd};
/// let x = Array::from_vec(vec![3.0f32, -4.0], &[2]);
/// assert_eq!(norm(&x, None, None, false).to_vec::<f32>().unwrap(), vec![5.0]);
/// assert_eq!(norm(&x, Some(NormOrd::P(1.0)), None, false).to_vec::<f32>().unwrap(), vec![7.0]);
/// let m = Array::from_vec(vec![1.0f32, -2.0, 3.0, 4.0], &[2, 2]);
/// assert_eq!(norm(&m, Some(NormOrd::P(f64::INFINITY)), None, false).to_vec::<f32>().unwrap(), vec![7.0]);
/// let two = norm(&m, Some(NormOrd::P(2.0)), None, false).to_vec::<f32>().unwrap()[0];
/// assert!((two - 5.116673).abs() < 1e-5);
/// assert!(norm(&m, Some(NormOrd::P(3.0)), None, false).check().unwrap_err().to_string().contains("order 3"));
/// ```
pub fn norm(x: &Array, ord: Option<NormOrd>, axis: Option<&[i64]>, keepdims: bool) -> Array {
    or_fail(norm_impl(x, ord, axis, keepdims))
}

fn norm_impl(
    x: &Array,
    ord: Option<NormOrd>,
    axis: Option<&[i64]>,
    keepdims: bool,
) -> Result<Array, Error> {
    let op = "norm";
    x.check()?;
    let x = to_inexact(op, x);
    if axis.is_none() && ord.is_none() {
        return Ok(vector_norm(&x, 2.0, &norm_axes(op, &x, None)?, keepdims));
    }
    let axes: Vec<i64> = match axis {
        None => (0..x.rank() as i64).collect(),
        Some(a) => {
            let n = x.rank() as i64;
            a.iter()
                .map(|&d| crate::ops::shape::norm_axis(op, &x, d, n as usize).map(|v| v as i64))
                .collect::<Result<_, _>>()?
        }
    };
    let bad = |what: String| Error::op(op, format!("{what} for {}", describe(x.aval())));
    match axes.as_slice() {
        [_] => match ord {
            None => Ok(vector_norm(&x, 2.0, &axes, keepdims)),
            Some(NormOrd::P(p)) => Ok(vector_norm(&x, p, &axes, keepdims)),
            Some(NormOrd::Fro) => Err(bad("the Frobenius norm needs two axes".into())),
            Some(NormOrd::Nuc) => Err(bad("the nuclear norm needs two axes".into())),
        },
        [r, c] if r != c => {
            let (r, c) = (*r, *c);
            let abs = np::abs(&x);
            let col_sums = |keep: bool| np::sum(&abs, Some(&[r]), keep);
            let row_sums = |keep: bool| np::sum(&abs, Some(&[c]), keep);
            // The axis left after the first sum, renumbered when that sum dropped a lower one.
            let after = |first: i64, second: i64| {
                if !keepdims && second > first {
                    second - 1
                } else {
                    second
                }
            };
            let zero = full(&[], 0.0, abs.element_type());
            match ord {
                None | Some(NormOrd::Fro) => Ok(np::sqrt(&sum_squares(&x, &axes, keepdims))),
                Some(NormOrd::P(1.0)) => Ok(np::maximum(
                    &np::max(&col_sums(keepdims), Some(&[after(r, c)]), keepdims),
                    &zero,
                )),
                Some(NormOrd::P(-1.0)) => {
                    Ok(np::min(&col_sums(keepdims), Some(&[after(r, c)]), keepdims))
                }
                Some(NormOrd::P(p)) if p == f64::INFINITY => Ok(np::maximum(
                    &np::max(&row_sums(keepdims), Some(&[after(c, r)]), keepdims),
                    &zero,
                )),
                Some(NormOrd::P(p)) if p == f64::NEG_INFINITY => {
                    Ok(np::min(&row_sums(keepdims), Some(&[after(c, r)]), keepdims))
                }
                Some(NormOrd::Nuc) => Ok(singular_value_norm(&x, r, c, keepdims, |s| {
                    np::sum(s, Some(&[-1]), false)
                })),
                Some(NormOrd::P(2.0)) => Ok(singular_value_norm(&x, r, c, keepdims, |s| {
                    np::max(s, Some(&[-1]), false)
                })),
                Some(NormOrd::P(-2.0)) => Ok(singular_value_norm(&x, r, c, keepdims, |s| {
                    np::min(s, Some(&[-1]), false)
                })),
                Some(NormOrd::P(p)) => Err(bad(format!(
                    "matrix norm of order {p} is not defined (1, -1, 2, -2, inf, -inf, 'fro' \
                     and 'nuc' are)"
                ))),
            }
        }
        _ => Err(bad(format!(
            "norm takes one or two distinct axes, got {axes:?}"
        ))),
    }
}

/// `reduce` of the singular values of the matrices over axes `r` (rows) and `c` (columns).
fn singular_value_norm(
    x: &Array,
    r: i64,
    c: i64,
    keepdims: bool,
    reduce: impl Fn(&Array) -> Array,
) -> Array {
    // The two axes last, rows before columns; what is left keeps its order.
    let rest: Vec<i64> = (0..x.rank() as i64).filter(|&d| d != r && d != c).collect();
    let mut perm = rest.clone();
    perm.extend([r, c]);
    let m = np::transpose(x, Some(&perm));
    let (_, s, _) = crate::ops::np_decomp::svd(&m, false, false);
    let out = reduce(&s);
    if keepdims {
        let (lo, hi) = (r.min(c), r.max(c));
        np::expand_dims(&np::expand_dims(&out, lo), hi)
    } else {
        out
    }
}

/// Checks a batch of square float or complex matrices `[..., n, n]`.
fn check_square(op: &str, a: &Array) -> Result<(), Error> {
    a.check()?;
    let n = a.rank();
    if n < 2 || a.dims()[n - 1] != a.dims()[n - 2] || !a.element_type().is_float_or_complex() {
        return Err(Error::op(
            op,
            format!(
                "expected floating-point or complex square matrices [..., n, n], got {}",
                describe(a.aval())
            ),
        ));
    }
    Ok(())
}

/// Whether every element is finite (both parts of a complex one).
fn finite(x: &Array) -> Array {
    if x.element_type().is_complex() {
        np::logical_and(&np::is_finite(&np::real(x)), &np::is_finite(&np::imag(x)))
    } else {
        np::is_finite(x)
    }
}

/// `jnp.linalg.cholesky(a)`: the lower factor `L` with `a = L·Lᴴ` of each symmetric
/// (Hermitian) positive-definite matrix of the batch. As JAX does, `a` is symmetrised
/// (`(a + aᴴ)/2`) first, the upper triangle of the result is zero, and a matrix that is not
/// positive definite gives NaN (its lower triangle). Ints are an error.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::cholesky;
/// let a = Array::from_vec(vec![4.0f32, 2.0, 2.0, 5.0], &[2, 2]);
/// assert_eq!(cholesky(&a).to_vec::<f32>().unwrap(), vec![2.0, 0.0, 1.0, 2.0]);
/// let bad = Array::from_vec(vec![1.0f32, 2.0, 2.0, 1.0], &[2, 2]);
/// assert!(cholesky(&bad).to_vec::<f32>().unwrap()[0].is_nan());
/// ```
pub fn cholesky(a: &Array) -> Array {
    cholesky_of(a, true)
}

/// The lower Cholesky factors of `a` (symmetrised first with `symmetrize`; else only its lower
/// triangle is read, as `lax.linalg.cholesky(symmetrize_input=False)`, whose derivative
/// takes the whole tangent, as JAX's).
pub(crate) fn cholesky_of(a: &Array, symmetrize: bool) -> Array {
    or_fail((|| {
        check_square("cholesky", a)?;
        let sym = if symmetrize {
            np::divide(
                &np::add(a, &crate::ops::np_decomp::mh(a)),
                &crate::weak_int(2),
            )
        } else {
            a.clone()
        };
        let l = bind1(
            "cholesky",
            OpKind::Cholesky { lower: true },
            &[&sym],
            None,
            false,
        );
        let l = np::tril(&l, 0);
        let ok = np::all(&finite(&l), Some(&[-2, -1]), true);
        let nan = full(&[], f64::NAN, a.element_type());
        Ok(np::tril(&np::where_(&ok, &l, &nan), 0))
    })())
}

/// `lax.linalg.triangular_solve(a, b, left_side, lower, transpose_a, unit_diagonal)`: solves
/// `op(a)·x = b` (`left_side`) or `x·op(a) = b` for `x`, where `a` is `[..., m, m]`
/// triangular (only its `lower` or upper triangle is read; its diagonal taken as ones with
/// `unit_diagonal`) and `op` transposes when `transpose_a`. `b` is `[..., m, k]` (left) or
/// `[..., k, m]` with the same batch dimensions and dtype.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::triangular_solve;
/// let a = Array::from_vec(vec![2.0f32, 0.0, 1.0, 4.0], &[2, 2]);
/// let b = Array::from_vec(vec![2.0f32, 9.0], &[2, 1]);
/// let x = triangular_solve(&a, &b, true, true, false, false);
/// assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
/// ```
pub fn triangular_solve(
    a: &Array,
    b: &Array,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    unit_diagonal: bool,
) -> Array {
    let transpose = if transpose_a {
        TransposeKind::Transpose
    } else {
        TransposeKind::NoTranspose
    };
    triangular_solve_as(a, b, left_side, lower, transpose, unit_diagonal)
}

/// [`triangular_solve`] with `op(a)` any of `a`, `aᵀ` and `aᴴ` (`TransposeKind::Adjoint`, the
/// conjugate transpose: `lax.linalg.triangular_solve`'s `transpose_a` and `conjugate_a`).
pub(crate) fn triangular_solve_as(
    a: &Array,
    b: &Array,
    left_side: bool,
    lower: bool,
    transpose: TransposeKind,
    unit_diagonal: bool,
) -> Array {
    or_fail((|| {
        let op = "triangular_solve";
        check_square(op, a)?;
        b.check()?;
        let (na, nb) = (a.rank(), b.rank());
        let m = a.dims()[na - 1];
        let ok = nb == na
            && b.element_type() == a.element_type()
            && a.dims()[..na - 2] == b.dims()[..nb - 2]
            && if left_side {
                b.dims()[nb - 2] == m
            } else {
                b.dims()[nb - 1] == m
            };
        if !ok {
            return Err(Error::op(
                op,
                format!(
                    "b {} does not match a {} (left_side = {left_side}: b must be [..., {}] with \
                     a's batch dimensions and dtype)",
                    describe(b.aval()),
                    describe(a.aval()),
                    if left_side { "m, k" } else { "k, m" }
                ),
            ));
        }
        Ok(bind1(
            op,
            OpKind::TriangularSolve {
                left_side,
                lower,
                unit_diagonal,
                transpose_a: transpose,
            },
            &[a, b],
            None,
            false,
        ))
    })())
}

/// Which system [`solve_triangular`] solves (scipy's `trans`): `a·x = b` (`N`, 0), `aᵀ·x = b`
/// (`T`, 1) or `aᴴ·x = b` (`C`, 2; the same as `T` for real `a`). A `bool` converts as scipy
/// reads `trans=False`/`True`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trans {
    /// `a·x = b`.
    N,
    /// `aᵀ·x = b`.
    T,
    /// `aᴴ·x = b`, the conjugate transpose.
    C,
}

impl From<bool> for Trans {
    fn from(transpose: bool) -> Trans {
        if transpose {
            Trans::T
        } else {
            Trans::N
        }
    }
}

impl Trans {
    fn kind(self) -> TransposeKind {
        match self {
            Trans::N => TransposeKind::NoTranspose,
            Trans::T => TransposeKind::Transpose,
            Trans::C => TransposeKind::Adjoint,
        }
    }
}

/// `jax.scipy.linalg.solve_triangular(a, b, trans, lower, unit_diagonal)`: solves `a·x = b`,
/// `aᵀ·x = b` or `aᴴ·x = b` ([`Trans`]; `false`/`true` are `N`/`T`); `b` is `[..., m]` or
/// `[..., m, k]`. `a` and `b` are promoted together first (a real `a` and a complex `b` give
/// a complex `x`), as JAX's `promote_dtypes_inexact`.
///
/// ```
/// use systolic::{Array, Complex64};
/// use systolic::numpy::linalg::{solve_triangular, Trans};
/// let a = Array::from_vec(vec![2.0f32, 1.0, 0.0, 4.0], &[2, 2]);
/// let b = Array::from_vec(vec![4.0f32, 8.0], &[2]);
/// assert_eq!(solve_triangular(&a, &b, false, false, false).to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
/// // aᴴ·x = b for a = [[i, 0], [0, 2]]: x = [b0 / -i, b1 / 2].
/// let z = |re, im| Complex64::new(re, im);
/// let a = Array::from_vec(vec![z(0.0, 1.0), z(0.0, 0.0), z(0.0, 0.0), z(2.0, 0.0)], &[2, 2]);
/// let b = Array::from_vec(vec![z(1.0, 0.0), z(4.0, 0.0)], &[2]);
/// let x = solve_triangular(&a, &b, Trans::C, true, false).to_vec::<Complex64>().unwrap();
/// assert_eq!(x, vec![z(0.0, 1.0), z(2.0, 0.0)]);
/// ```
pub fn solve_triangular(
    a: &Array,
    b: &Array,
    trans: impl Into<Trans>,
    lower: bool,
    unit_diagonal: bool,
) -> Array {
    let kind = trans.into().kind();
    or_fail((|| {
        let op = "solve_triangular";
        a.check()?;
        b.check()?;
        let (a, b) = crate::ops::ufuncs::promote_inexact_same_shape(op, a, b)?;
        if b.rank() + 1 == a.rank() || b.rank() == 1 {
            let x = triangular_solve_as(
                &a,
                &np::expand_dims(&b, -1),
                true,
                lower,
                kind,
                unit_diagonal,
            );
            x.check()?;
            return Ok(np::squeeze(&x, -1));
        }
        Ok(triangular_solve_as(
            &a,
            &b,
            true,
            lower,
            kind,
            unit_diagonal,
        ))
    })())
}
