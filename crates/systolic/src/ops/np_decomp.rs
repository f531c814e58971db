//! `jnp.linalg`'s decompositions, staged as the LAPACK custom calls JAX emits on CPU
//! (`custom_call @lapack_{s,d}{getrf,geqrf,orgqr,syevd,gesdd,trsm}_ffi`, see
//! `systolic_ir::lapack`), so a program traced here is the program JAX would export and runs
//! eagerly, under `jit` and on both backends (the interpreter and the CPU compiler share one
//! implementation of the calls).
//!
//! `float32` and `float64` only (integers are promoted to `float32` first, as JAX does; LAPACK
//! has no half-precision routines). A factorisation that fails (`info ≠ 0`) gives NaN, as in
//! JAX. Differentiation rules for these calls are not written yet: `grad` through them is an
//! error naming the custom call.
//!
//! `solve` and `inv` factor with QR (`geqrf`/`orgqr`, then a triangular solve) where JAX uses LU
//! with row pivoting: applying LU's row interchanges to the right-hand side needs a sequential
//! loop over the pivots, which QR avoids; both are backward stable, so results agree to
//! rounding.

use crate::array::{describe, Array};
use crate::core::bind::bind;
use crate::error::Error;
use crate::numpy as np;
use crate::ops::creation::{eye, full, iota};
use crate::ops::elementwise::to_inexact;
use crate::ops::shape::slice;
use systolic_ir::lapack::{LapackCall, Routine, SvdVectors};
use systolic_ir::{DType, Type};

fn or_fail(r: Result<Array, Error>) -> Array {
    r.unwrap_or_else(Array::failed)
}

/// `a` as a batch of float32/float64 matrices.
fn matrices(op: &str, a: &Array) -> Result<Array, Error> {
    a.check()?;
    let a = to_inexact(op, a);
    if a.rank() < 2 || !matches!(a.element_type(), DType::F32 | DType::F64) {
        return Err(Error::op(
            op,
            format!(
                "expected float32 or float64 matrices [..., m, n], got {}",
                describe(a.aval())
            ),
        ));
    }
    Ok(a)
}

fn square(op: &str, a: &Array) -> Result<Array, Error> {
    let a = matrices(op, a)?;
    let n = a.rank();
    if a.dims()[n - 1] != a.dims()[n - 2] {
        return Err(Error::op(
            op,
            format!(
                "expected square matrices [..., n, n], got {}",
                describe(a.aval())
            ),
        ));
    }
    Ok(a)
}

/// Stages (or runs) one LAPACK call on `operands`.
fn call(
    op: &str,
    routine: Routine,
    operands: &[&Array],
    configure: impl FnOnce(&mut LapackCall),
) -> Result<Vec<Array>, Error> {
    let dtype = operands[0].element_type();
    let mut c = LapackCall::new(routine, dtype)
        .ok_or_else(|| Error::op(op, format!("LAPACK has no {dtype} routines")))?;
    configure(&mut c);
    let types: Vec<Type> = operands
        .iter()
        .map(|a| Type::Tensor(a.aval().clone()))
        .collect();
    let results = c.result_types(&types).map_err(|e| Error::op(op, e))?;
    bind(op, c.op_kind(), operands, vec![], Some(results), false)
}

/// NaN where `info` (one per matrix) is non-zero: JAX's treatment of a failed factorisation.
fn nan_where_failed(x: &Array, info: &Array, batch_rank: usize) -> Array {
    let ok = np::equal(info, &full(&[], 0.0, DType::I32));
    let extra = x.rank() - batch_rank;
    let axes: Vec<i64> = (0..extra as i64).map(|i| batch_rank as i64 + i).collect();
    let ok = if axes.is_empty() {
        ok
    } else {
        let mut shape = ok.dims().to_vec();
        shape.extend(std::iter::repeat_n(1, axes.len()));
        np::reshape(&ok, &shape)
    };
    np::where_(&ok, x, &full(&[], f64::NAN, x.element_type()))
}

/// The last two dimensions swapped.
fn mt(a: &Array) -> Array {
    np::swapaxes(a, -1, -2)
}

/// Rows `r0..r1` and columns `c0..c1` of every matrix.
fn block(a: &Array, rows: (i64, i64), cols: (i64, i64)) -> Array {
    let n = a.rank();
    let mut start = vec![0; n];
    let mut limit = a.dims().to_vec();
    (start[n - 2], limit[n - 2]) = rows;
    (start[n - 1], limit[n - 1]) = cols;
    slice(a, &start, &limit, None)
}

/// `jnp.linalg.eigh(a)` (lower triangle, symmetrised input): eigenvalues ascending and the
/// eigenvectors as columns, `(w, v)` with `a·v = v·diag(w)`.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::eigh;
/// let a = Array::from_vec(vec![2.0f64, 1.0, 1.0, 2.0], &[2, 2]);
/// let (w, v) = eigh(&a);
/// let w = w.to_vec::<f64>().unwrap();
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
/// assert_eq!(v.shape(), &[2, 2]);
/// ```
pub fn eigh(a: &Array) -> (Array, Array) {
    match eigh_impl("eigh", a, true) {
        Ok((w, v)) => (w, v),
        Err(e) => (Array::failed(e.clone()), Array::failed(e)),
    }
}

/// `jnp.linalg.eigvalsh(a)`: the eigenvalues of symmetric matrices, ascending.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::eigvalsh;
/// let a = Array::from_vec(vec![2.0f32, 0.0, 0.0, -1.0], &[2, 2]);
/// let w = eigvalsh(&a).to_vec::<f32>().unwrap();
/// assert!((w[0] + 1.0).abs() < 1e-6 && (w[1] - 2.0).abs() < 1e-6);
/// ```
pub fn eigvalsh(a: &Array) -> Array {
    or_fail(eigh_impl("eigvalsh", a, false).map(|(w, _)| w))
}

fn eigh_impl(op: &str, a: &Array, vectors: bool) -> Result<(Array, Array), Error> {
    let a = square(op, a)?;
    let sym = np::divide(&np::add(&a, &mt(&a)), &full(&[], 2.0, a.element_type()));
    let out = call(op, Routine::Syevd, &[&sym], |c| c.eigenvectors = vectors)?;
    let batch = a.rank() - 2;
    let w = nan_where_failed(&out[1], &out[2], batch);
    let v = nan_where_failed(&out[0], &out[2], batch);
    Ok((w, v))
}

/// `jnp.linalg.svd(a, full_matrices, compute_uv)`: `(u, s, vh)` with `a = u·diag(s)·vh` and
/// `s` descending (`u` is m×m and `vh` n×n with `full_matrices`, else m×k and k×n); with
/// `compute_uv = false` only `s`, and `u`/`vh` are `None`.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::svd;
/// let a = Array::from_vec(vec![3.0f64, 0.0, 0.0, -2.0, 0.0, 0.0], &[3, 2]);
/// let (u, s, vh) = svd(&a, false, true);
/// let s = s.to_vec::<f64>().unwrap();
/// assert!((s[0] - 3.0).abs() < 1e-12 && (s[1] - 2.0).abs() < 1e-12);
/// assert_eq!((u.unwrap().shape().to_vec(), vh.unwrap().shape().to_vec()), (vec![3, 2], vec![2, 2]));
/// ```
pub fn svd(
    a: &Array,
    full_matrices: bool,
    compute_uv: bool,
) -> (Option<Array>, Array, Option<Array>) {
    let run = || -> Result<Vec<Array>, Error> {
        let a = matrices("svd", a)?;
        let mode = match (compute_uv, full_matrices) {
            (false, _) => SvdVectors::None,
            (true, true) => SvdVectors::Full,
            (true, false) => SvdVectors::Thin,
        };
        let out = call("svd", Routine::Gesdd, &[&a], |c| c.svd_vectors = mode)?;
        let batch = a.rank() - 2;
        Ok(vec![
            nan_where_failed(&out[2], &out[4], batch),
            nan_where_failed(&out[1], &out[4], batch),
            nan_where_failed(&out[3], &out[4], batch),
        ])
    };
    match run() {
        Ok(mut v) => {
            let vh = v.pop();
            let s = v.pop().expect("three results");
            let u = v.pop();
            if compute_uv {
                (u, s, vh)
            } else {
                (None, s, None)
            }
        }
        Err(e) => (None, Array::failed(e), None),
    }
}

/// `jnp.linalg.qr(a, mode)` for `mode` `"reduced"` (Q m×k, R k×n), `"complete"` (Q m×m,
/// R m×n) or `"r"` (R only; Q is `None`), with LAPACK's sign conventions (Householder
/// reflectors, `R`'s diagonal of either sign), as JAX on CPU.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::qr;
/// let a = Array::from_vec(vec![3.0f64, 4.0], &[2, 1]);
/// let (q, r) = qr(&a, "reduced");
/// assert!((r.to_vec::<f64>().unwrap()[0] + 5.0).abs() < 1e-12);
/// let q = q.unwrap().to_vec::<f64>().unwrap();
/// assert!((q[0] + 0.6).abs() < 1e-12 && (q[1] + 0.8).abs() < 1e-12);
/// ```
pub fn qr(a: &Array, mode: &str) -> (Option<Array>, Array) {
    match qr_impl(a, mode) {
        Ok((q, r)) => (q, r),
        Err(e) => (None, Array::failed(e)),
    }
}

fn qr_impl(a: &Array, mode: &str) -> Result<(Option<Array>, Array), Error> {
    let op = "qr";
    if !matches!(mode, "reduced" | "complete" | "r") {
        return Err(Error::op(
            op,
            format!("mode must be \"reduced\", \"complete\" or \"r\", got \"{mode}\""),
        ));
    }
    let a = matrices(op, a)?;
    let n = a.rank();
    let (m, cols) = (a.dims()[n - 2], a.dims()[n - 1]);
    let k = m.min(cols);
    let out = call(op, Routine::Geqrf, &[&a], |_| {})?;
    let (packed, tau) = (&out[0], &out[1]);
    let r_rows = if mode == "complete" { m } else { k };
    let r = np::triu(&block(packed, (0, r_rows), (0, cols)), 0);
    if mode == "r" {
        return Ok((None, r));
    }
    let q_cols = if mode == "complete" { m } else { k };
    // orgqr forms `q_cols` columns from the first k reflectors: `packed`'s first k columns,
    // padded with zero columns when Q has more.
    let reflectors = block(packed, (0, m), (0, k));
    let reflectors = if q_cols > k {
        let mut pad = a.dims().to_vec();
        pad[n - 1] = q_cols - k;
        np::concatenate(&[&reflectors, &full(&pad, 0.0, a.element_type())], -1)
    } else {
        reflectors
    };
    let q = call(op, Routine::Orgqr, &[&reflectors, tau], |_| {})?.remove(0);
    Ok((Some(q), r))
}

/// The LU factorisation's `(lu, ipiv)` of square matrices (`getrf`).
fn lu(op: &str, a: &Array) -> Result<(Array, Array), Error> {
    let a = square(op, a)?;
    let mut out = call(op, Routine::Getrf, &[&a], |_| {})?;
    out.truncate(2);
    let ipiv = out.pop().expect("ipiv");
    Ok((out.pop().expect("lu"), ipiv))
}

/// `(-1)^(number of row interchanges)` per matrix, from LAPACK's 1-based `ipiv`.
fn permutation_sign(ipiv: &Array, dtype: DType) -> Array {
    let k = ipiv.dims()[ipiv.rank() - 1];
    let rows = np::add(&iota(DType::I32, &[k], 0), &full(&[], 1.0, DType::I32));
    let swapped = np::not_equal(ipiv, &rows);
    let count = np::sum(&np::astype(&swapped, DType::I32), Some(&[-1]), false);
    let odd = np::equal(
        &np::remainder(&count, &full(&[], 2.0, DType::I32)),
        &full(&[], 1.0, DType::I32),
    );
    np::where_(&odd, &full(&[], -1.0, dtype), &full(&[], 1.0, dtype))
}

/// `jnp.linalg.det(a)` of square matrices (LU: the product of `U`'s diagonal, signed by the
/// row interchanges).
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::det;
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2]);
/// assert!((det(&a).to_vec::<f64>().unwrap()[0] + 2.0).abs() < 1e-12);
/// ```
pub fn det(a: &Array) -> Array {
    or_fail((|| {
        let (lu, ipiv) = lu("det", a)?;
        let d = np::prod(&np::diagonal(&lu, 0, -2, -1), Some(&[-1]), false);
        Ok(np::multiply(
            &d,
            &permutation_sign(&ipiv, lu.element_type()),
        ))
    })())
}

/// `jnp.linalg.slogdet(a)`: `(sign, logabsdet)` with `det = sign·exp(logabsdet)`; a singular
/// matrix gives sign 0 and `-inf`.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::slogdet;
/// let a = Array::from_vec(vec![0.0f64, 2.0, 3.0, 0.0], &[2, 2]);
/// let (sign, logdet) = slogdet(&a);
/// assert_eq!(sign.to_vec::<f64>().unwrap(), vec![-1.0]);
/// assert!((logdet.to_vec::<f64>().unwrap()[0] - 6f64.ln()).abs() < 1e-12);
/// ```
pub fn slogdet(a: &Array) -> (Array, Array) {
    match lu("slogdet", a) {
        Ok((lu, ipiv)) => {
            let diag = np::diagonal(&lu, 0, -2, -1);
            let sign = np::multiply(
                &np::prod(&np::sign(&diag), Some(&[-1]), false),
                &permutation_sign(&ipiv, lu.element_type()),
            );
            let logdet = np::sum(&np::log(&np::abs(&diag)), Some(&[-1]), false);
            (sign, logdet)
        }
        Err(e) => (Array::failed(e.clone()), Array::failed(e)),
    }
}

/// `jnp.linalg.solve(a, b)`: `x` with `a·x = b`, for `b` of `[..., n]` (one vector per
/// matrix, when `b` has one dimension fewer than `a`) or `[..., n, k]`.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::solve;
/// let a = Array::from_vec(vec![2.0f64, 1.0, 1.0, 3.0], &[2, 2]);
/// let b = Array::from_vec(vec![3.0f64, 5.0], &[2]);
/// let x = solve(&a, &b).to_vec::<f64>().unwrap();
/// assert!((x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12);
/// ```
pub fn solve(a: &Array, b: &Array) -> Array {
    or_fail((|| {
        let op = "solve";
        let a = square(op, a)?;
        b.check()?;
        let b = np::astype(b, a.element_type());
        let vector = b.rank() + 1 == a.rank() || b.rank() == 1;
        let b2 = if vector {
            np::expand_dims(&b, -1)
        } else {
            b.clone()
        };
        let n = a.rank();
        let fits = b2.rank() == n
            && b2.dims()[..n - 2] == a.dims()[..n - 2]
            && b2.dims()[n - 2] == a.dims()[n - 1];
        if !fits {
            return Err(Error::op(
                op,
                format!(
                    "b {} does not fit a {}: expected [..., n] or [..., n, k] with a's batch \
                     dimensions",
                    describe(b.aval()),
                    describe(a.aval())
                ),
            ));
        }
        let (q, r) = qr_impl(&a, "reduced")?;
        let qtb = np::matmul(&mt(&q.expect("reduced mode has Q")), &b2);
        let x = call(op, Routine::Trsm, &[&r, &qtb], |c| c.lower = false)?.remove(0);
        Ok(if vector {
            np::squeeze_axes(&x, Some(&[-1]))
        } else {
            x
        })
    })())
}

/// `jnp.linalg.inv(a)`: the inverse of each square matrix.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::inv;
/// let a = Array::from_vec(vec![4.0f64, 0.0, 0.0, 2.0], &[2, 2]);
/// let x = inv(&a).to_vec::<f64>().unwrap();
/// assert!((x[0] - 0.25).abs() < 1e-12 && (x[3] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12);
/// ```
pub fn inv(a: &Array) -> Array {
    or_fail((|| {
        let a = square("inv", a)?;
        let n = a.dims()[a.rank() - 1];
        let identity = np::broadcast_to(&eye(n, None, 0, a.element_type()), a.dims());
        Ok(solve(&a, &identity))
    })())
}

/// `jnp.linalg.pinv(a)` with JAX's default cutoff: singular values at most
/// `max(m, n)·eps·max(s)` are treated as zero.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::pinv;
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 0.0], &[2, 2]);
/// let p = pinv(&a).to_vec::<f64>().unwrap();
/// assert!((p[0] - 0.5).abs() < 1e-12 && p[1..].iter().all(|x| x.abs() < 1e-12));
/// ```
pub fn pinv(a: &Array) -> Array {
    or_fail((|| {
        let a = matrices("pinv", a)?;
        let n = a.rank();
        let (m, c) = (a.dims()[n - 2], a.dims()[n - 1]);
        let (u, s, vh) = svd(&a, false, true);
        let (u, vh) = (u.expect("u"), vh.expect("vh"));
        let eps = if a.element_type() == DType::F32 {
            f64::from(f32::EPSILON)
        } else {
            f64::EPSILON
        };
        let cutoff = np::multiply(
            &np::max(&s, Some(&[-1]), true),
            &full(&[], m.max(c) as f64 * eps, a.element_type()),
        );
        let keep = np::greater(&s, &cutoff);
        let one = full(&[], 1.0, a.element_type());
        let inv_s = np::where_(
            &keep,
            &np::divide(&one, &s),
            &full(&[], 0.0, a.element_type()),
        );
        // pinv = V·diag(1/s)·Uᵀ.
        let v_scaled = np::multiply(&mt(&vh), &np::expand_dims(&inv_s, -2));
        Ok(np::matmul(&v_scaled, &mt(&u)))
    })())
}
