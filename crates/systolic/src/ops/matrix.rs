//! Matrix-shaped constructs: `tril`/`triu`, `diag`/`diagonal`/`trace`, and the products
//! `outer`/`inner`/`tensordot`/`kron`. Triangles are iota masks and diagonals strided slices of
//! the flattened last two dimensions, so everything is static-shaped and traces.

use crate::array::{describe, Array};
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::creation::full;
use systolic_ir::{DType, DotDimensionNumbers};

fn or_fail(r: Result<Array, Error>) -> Array {
    r.unwrap_or_else(Array::failed)
}

/// True at `(i, j)` of the last two dimensions where `j - i >= k` (`upper`) or `j - i <= k`.
fn triangle(op: &str, x: &Array, k: i64, upper: bool) -> Result<Array, Error> {
    x.check()?;
    if x.rank() < 2 {
        return Err(Error::op(
            op,
            format!("expected an array of rank >= 2, got {}", describe(x.aval())),
        ));
    }
    let (n, m) = (x.dims()[x.rank() - 2], x.dims()[x.rank() - 1]);
    let rows = lax::iota(DType::I32, &[n, m], 0);
    let cols = lax::iota(DType::I32, &[n, m], 1);
    let diff = np::subtract(&cols, &rows);
    let kk = full(&[], k as f64, DType::I32);
    let mask = if upper {
        np::greater_equal(&diff, &kk)
    } else {
        np::less_equal(&diff, &kk)
    };
    Ok(np::where_(&mask, x, &full(&[], 0.0, x.element_type())))
}

/// `jnp.tril(x, k)`: zeros above the `k`-th diagonal of the last two dimensions.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4, 5, 6, 7, 8, 9], &[3, 3]);
/// assert_eq!(np::tril(&x, 0).to_vec::<i32>().unwrap(), vec![1, 0, 0, 4, 5, 0, 7, 8, 9]);
/// assert!(np::tril(&Array::from_vec(vec![1i32], &[1]), 0).check().unwrap_err().to_string().contains("tril"));
/// ```
pub fn tril(x: &Array, k: i64) -> Array {
    or_fail(triangle("tril", x, k, false))
}

/// `jnp.triu(x, k)`: zeros below the `k`-th diagonal of the last two dimensions.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// assert_eq!(np::triu(&x, 1).to_vec::<f32>().unwrap(), vec![0.0, 2.0, 0.0, 0.0]);
/// ```
pub fn triu(x: &Array, k: i64) -> Array {
    or_fail(triangle("triu", x, k, true))
}

/// `jnp.diagonal(x, offset, axis1, axis2)`: the diagonal of the `(axis1, axis2)` planes as the
/// last dimension (offset > 0: above the main diagonal).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]);
/// assert_eq!(np::diagonal(&x, 0, 0, 1).to_vec::<i32>().unwrap(), vec![0, 4]);
/// assert_eq!(np::diagonal(&x, 1, 0, 1).to_vec::<i32>().unwrap(), vec![1, 5]);
/// assert_eq!(np::diagonal(&x, -1, 0, 1).to_vec::<i32>().unwrap(), vec![3]);
/// ```
pub fn diagonal(x: &Array, offset: i64, axis1: i64, axis2: i64) -> Array {
    or_fail(diagonal_impl(x, offset, axis1, axis2))
}

fn diagonal_impl(x: &Array, k: i64, axis1: i64, axis2: i64) -> Result<Array, Error> {
    let op = "diagonal";
    x.check()?;
    let a1 = crate::ops::shape::norm_axis(op, x, axis1, x.rank())?;
    let a2 = crate::ops::shape::norm_axis(op, x, axis2, x.rank())?;
    if a1 == a2 {
        return Err(Error::op(
            op,
            format!(
                "axis1 and axis2 must differ, got {axis1} and {axis2} for {}",
                describe(x.aval())
            ),
        ));
    }
    let mut perm: Vec<i64> = (0..x.rank() as i64)
        .filter(|&d| d != a1 as i64 && d != a2 as i64)
        .collect();
    let batch: Vec<i64> = perm.iter().map(|&d| x.dims()[d as usize]).collect();
    perm.extend([a1 as i64, a2 as i64]);
    let (n, m) = (x.dims()[a1], x.dims()[a2]);
    let len = if k >= 0 { n.min(m - k) } else { (n + k).min(m) }.max(0);
    let mut out_shape = batch.clone();
    out_shape.push(len);
    if len == 0 {
        return Ok(full(&out_shape, 0.0, x.element_type()));
    }
    let moved = np::transpose(x, Some(&perm));
    let mut flat_shape = batch.clone();
    flat_shape.push(n * m);
    let flat = np::reshape(&moved, &flat_shape);
    let start = if k >= 0 { k } else { -k * m };
    let limit = start + (len - 1) * (m + 1) + 1;
    let nb = batch.len();
    let mut s = vec![0; nb];
    s.push(start);
    let mut l = batch.clone();
    l.push(limit);
    let mut st = vec![1; nb];
    st.push(m + 1);
    Ok(crate::ops::shape::slice(&flat, &s, &l, Some(&st)))
}

/// `jnp.diag(v, k)`: a 1-D `v` becomes the square matrix with `v` on diagonal `k`; a 2-D `v`
/// gives its `k`-th diagonal.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let v = Array::from_vec(vec![1i32, 2], &[2]);
/// assert_eq!(np::diag(&v, 1).to_vec::<i32>().unwrap(), vec![0, 1, 0, 0, 0, 2, 0, 0, 0]);
/// let m = Array::from_vec(vec![1i32, 2, 3, 4], &[2, 2]);
/// assert_eq!(np::diag(&m, 0).to_vec::<i32>().unwrap(), vec![1, 4]);
/// ```
pub fn diag(v: &Array, k: i64) -> Array {
    or_fail((|| {
        v.check()?;
        match v.rank() {
            2 => diagonal_impl(v, k, 0, 1),
            1 => {
                let len = v.dims()[0];
                let n = len + k.abs();
                let rows = lax::iota(DType::I32, &[n, n], 0);
                let cols = lax::iota(DType::I32, &[n, n], 1);
                let on = np::equal(
                    &np::subtract(&cols, &rows),
                    &full(&[], k as f64, DType::I32),
                );
                let padded = np::pad(v, &[(0, k.abs())], np::PadMode::Constant(0.0));
                let spread = if k >= 0 {
                    np::reshape(&padded, &[n, 1])
                } else {
                    np::reshape(&padded, &[1, n])
                };
                Ok(np::where_(&on, &spread, &full(&[], 0.0, v.element_type())))
            }
            _ => Err(Error::op(
                "diag",
                format!("expected a 1-D or 2-D array, got {}", describe(v.aval())),
            )),
        }
    })())
}

/// `jnp.trace(x, offset)`: the sum of the `offset` diagonal of the first two axes, with
/// [`sum`](crate::numpy::sum)'s dtypes (small ints sum in i32).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i8, 2, 3, 4], &[2, 2]);
/// assert_eq!(np::trace(&x, 0).to_vec::<i32>().unwrap(), vec![5]);
/// ```
pub fn trace(x: &Array, offset: i64) -> Array {
    if x.error().is_none() && x.rank() < 2 {
        return Array::failed(Error::op(
            "trace",
            format!("expected an array of rank >= 2, got {}", describe(x.aval())),
        ));
    }
    np::sum(&diagonal(x, offset, 0, 1), Some(&[-1]), false)
}

/// `x` flattened to one dimension (`jnp.ravel`, row-major).
///
/// ```
/// let x = systolic::numpy::zeros(&[2, 3], systolic_ir::DType::F32);
/// assert_eq!(systolic::numpy::ravel(&x).shape(), &[6]);
/// ```
pub fn ravel(x: &Array) -> Array {
    if x.error().is_some() {
        return x.clone();
    }
    np::reshape(x, &[x.num_elements() as i64])
}

/// `jnp.outer(a, b)`: `ravel(a)[:, None] * ravel(b)[None, :]`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1i32, 2], &[2]);
/// let b = Array::from_vec(vec![1i32, 10, 100], &[3]);
/// assert_eq!(np::outer(&a, &b).to_vec::<i32>().unwrap(), vec![1, 10, 100, 2, 20, 200]);
/// ```
pub fn outer(a: &Array, b: &Array) -> Array {
    if let Err(e) = a.check().and(b.check()) {
        return Array::failed(e);
    }
    np::multiply(
        &np::reshape(a, &[a.num_elements() as i64, 1]),
        &np::reshape(b, &[1, b.num_elements() as i64]),
    )
}

/// Which axes [`tensordot`] contracts.
#[derive(Clone, Debug)]
pub enum TensorAxes {
    /// The last `n` axes of `a` with the first `n` of `b`.
    Count(usize),
    /// `a`'s listed axes with `b`'s, pairwise (negative counts from the end).
    Pairs(Vec<i64>, Vec<i64>),
}

/// `jnp.tensordot(a, b, axes)`: contracts the paired axes; the result has `a`'s free axes then
/// `b`'s, in order.
///
/// ```
/// use systolic::{numpy as np, Array};
/// use systolic::numpy::TensorAxes;
/// let a = Array::from_vec(vec![1.0f32; 6], &[2, 3]);
/// let b = Array::from_vec(vec![1.0f32; 12], &[3, 4]);
/// assert_eq!(np::tensordot(&a, &b, TensorAxes::Count(1)).shape(), &[2, 4]);
/// let c = np::tensordot(&a, &a, TensorAxes::Pairs(vec![0, 1], vec![0, 1]));
/// assert_eq!(c.to_vec::<f32>().unwrap(), vec![6.0]);
/// ```
pub fn tensordot(a: &Array, b: &Array, axes: TensorAxes) -> Array {
    tensordot_with(a, b, axes, crate::ops::linalg::DotOptions::new())
}

/// `jnp.tensordot(a, b, axes, precision=, preferred_element_type=)`.
pub fn tensordot_with(
    a: &Array,
    b: &Array,
    axes: TensorAxes,
    opts: crate::ops::linalg::DotOptions,
) -> Array {
    or_fail((|| {
        a.check()?;
        b.check()?;
        let op = "tensordot";
        let (la, lb): (Vec<i64>, Vec<i64>) = match axes {
            TensorAxes::Count(n) => {
                if n > a.rank() || n > b.rank() {
                    return Err(Error::op(
                        op,
                        format!(
                            "cannot contract {n} axes of {} and {}",
                            describe(a.aval()),
                            describe(b.aval())
                        ),
                    ));
                }
                (
                    (a.rank() - n..a.rank()).map(|d| d as i64).collect(),
                    (0..n).map(|d| d as i64).collect(),
                )
            }
            TensorAxes::Pairs(x, y) => {
                if x.len() != y.len() {
                    return Err(Error::op(
                        op,
                        format!("axes lists differ in length: {x:?} and {y:?}"),
                    ));
                }
                let na = x
                    .iter()
                    .map(|&d| crate::ops::shape::norm_axis(op, a, d, a.rank()).map(|v| v as i64))
                    .collect::<Result<_, _>>()?;
                let nb = y
                    .iter()
                    .map(|&d| crate::ops::shape::norm_axis(op, b, d, b.rank()).map(|v| v as i64))
                    .collect::<Result<_, _>>()?;
                (na, nb)
            }
        };
        for (&x, &y) in la.iter().zip(&lb) {
            if a.dims()[x as usize] != b.dims()[y as usize] {
                return Err(Error::op(
                    op,
                    format!(
                        "axis {x} of {} and axis {y} of {} differ in length",
                        describe(a.aval()),
                        describe(b.aval())
                    ),
                ));
            }
        }
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: vec![],
            rhs_batching_dimensions: vec![],
            lhs_contracting_dimensions: la,
            rhs_contracting_dimensions: lb,
        };
        Ok(crate::ops::linalg::dot_general_with(a, b, dims, opts))
    })())
}

/// `jnp.inner(a, b)`: contracts the last axis of both (a product when either is rank 0).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1i32, 2, 3], &[3]);
/// assert_eq!(np::inner(&a, &a).to_vec::<i32>().unwrap(), vec![14]);
/// ```
pub fn inner(a: &Array, b: &Array) -> Array {
    if let Err(e) = a.check().and(b.check()) {
        return Array::failed(e);
    }
    if a.rank() == 0 || b.rank() == 0 {
        return np::multiply(a, b);
    }
    tensordot(a, b, TensorAxes::Pairs(vec![-1], vec![-1]))
}

/// `jnp.kron(a, b)`: the Kronecker product (the lower-rank operand gets leading 1s).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1i32, 2], &[2]);
/// let b = Array::from_vec(vec![1i32, 10], &[2]);
/// assert_eq!(np::kron(&a, &b).to_vec::<i32>().unwrap(), vec![1, 10, 2, 20]);
/// ```
pub fn kron(a: &Array, b: &Array) -> Array {
    if let Err(e) = a.check().and(b.check()) {
        return Array::failed(e);
    }
    let nd = a.rank().max(b.rank());
    let lead = |x: &Array| {
        let mut s = vec![1; nd - x.rank()];
        s.extend_from_slice(x.dims());
        s
    };
    let (sa, sb) = (lead(a), lead(b));
    let ea: Vec<i64> = sa.iter().flat_map(|&d| [d, 1]).collect();
    let eb: Vec<i64> = sb.iter().flat_map(|&d| [1, d]).collect();
    let out: Vec<i64> = sa.iter().zip(&sb).map(|(x, y)| x * y).collect();
    np::reshape(
        &np::multiply(&np::reshape(a, &ea), &np::reshape(b, &eb)),
        &out,
    )
}
