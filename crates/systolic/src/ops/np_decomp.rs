//! `jnp.linalg`'s decompositions, staged as the LAPACK custom calls JAX emits on CPU
//! (`custom_call @lapack_{s,d,c,z}{getrf,geqrf,orgqr,syevd,gesdd,trsm,geev}_ffi`, with
//! `ungqr`/`heevd` for complex matrices; see `systolic_ir::lapack`), so a program traced here is the program JAX would export and runs
//! eagerly, under `jit` and on both backends (the interpreter and the CPU compiler share one
//! implementation of the calls).
//!
//! `float32`, `float64`, `complex64` and `complex128` (integers are promoted to `float32`
//! first, as JAX does; LAPACK has no half-precision routines). Complex matrices take LAPACK's
//! complex routines (`cgetrf`, `cheevd`, `cungqr`, …) and JAX's conventions: wherever a real
//! formula transposes an orthogonal factor or a symmetric part, the complex one takes the
//! conjugate transpose ([`mh`]); the eigenvalues of Hermitian matrices, singular values,
//! `log|det|`, norms and residuals are real (of the parts' type), and `slogdet`'s sign is a
//! unit complex number. A matrix and a right-hand side of different dtypes are promoted
//! together (JAX's `promote_dtypes_inexact`: real `a` with complex `b` solves in complex). A
//! factorisation that fails (`info ≠ 0`) gives NaN, as in JAX.
//!
//! This module holds the primal computations (`*_raw`: the calls and the arithmetic around
//! them). The public functions hand them to `np_decomp_rules`, which attaches JAX's
//! differentiation rule to each as a `custom_jvp`, so `jvp`, `grad`, `vjp` and `vmap` work
//! through them (the autodiff crate has no rules for the LAPACK custom calls themselves).
//!
//! `solve` and `inv` factor with LU as JAX does (`getrf`; the pivots made a permutation by a
//! loop, the right-hand side's rows permuted, two `trsm`), half the flops of QR; their
//! differentiation rules reuse the same factors, as JAX's `custom_linear_solve` does.

use crate::array::{describe, Array};
use crate::core::bind::bind;
use crate::error::Error;
use crate::numpy as np;
use crate::ops::creation::{eye, full, iota};
use crate::ops::elementwise::to_inexact;
use crate::ops::np_decomp_rules as rules;
use crate::ops::shape::slice;
use systolic_ir::lapack::{LapackCall, Routine, SvdVectors};
use systolic_ir::{DType, Type};

pub(crate) fn or_fail(r: Result<Array, Error>) -> Array {
    r.unwrap_or_else(Array::failed)
}

/// `a` as a batch of float32, float64, complex64 or complex128 matrices (integers become
/// float32 first, as JAX promotes them).
pub(crate) fn matrices(op: &str, a: &Array) -> Result<Array, Error> {
    a.check()?;
    let a = to_inexact(op, a);
    let fits = matches!(
        a.element_type(),
        DType::F32 | DType::F64 | DType::C64 | DType::C128
    );
    if a.rank() < 2 || !fits {
        return Err(Error::op(
            op,
            format!(
                "expected float32 or float64 matrices (or complex64, complex128) \
                 [..., m, n], got {}",
                describe(a.aval())
            ),
        ));
    }
    Ok(a)
}

/// [`matrices`], square.
pub(crate) fn square(op: &str, a: &Array) -> Result<Array, Error> {
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

/// `a` and `b` promoted to one dtype as JAX's `promote_dtypes_inexact` does (a real matrix
/// and a complex right-hand side both become complex; a narrower `b` takes `a`'s type), and `b`
/// as matrices `[..., n, k]` for square `a` `[..., n, n]` (a vector per matrix when `b` has one
/// dimension fewer than `a`, or is 1-D): `(a, b, b as matrices, whether it was vectors)`.
pub(crate) fn rhs_as_matrices(
    op: &str,
    a: &Array,
    b: &Array,
) -> Result<(Array, Array, Array, bool), Error> {
    b.check()?;
    let (a, b) = promote_pair(op, a, b)?;
    let vector = b.rank() + 1 == a.rank() || b.rank() == 1;
    let b2 = if vector {
        np::expand_dims(&b, -1)
    } else {
        b.clone()
    };
    Ok((a, b, b2, vector))
}

/// `a` (already [`matrices`], so f32 or wider) and `b` promoted together (JAX's
/// `promote_dtypes_inexact`: a complex `b` makes a real `a` complex, an f64 one makes an f32
/// `a` f64), neither weakly typed. The result is one of LAPACK's four types because `a` is;
/// the check says so with both dtypes should promotion ever disagree.
pub(crate) fn promote_pair(op: &str, a: &Array, b: &Array) -> Result<(Array, Array), Error> {
    let (a2, b2) = crate::ops::ufuncs::promote_inexact_same_shape(op, a, b)?;
    if !matches!(
        a2.element_type(),
        DType::F32 | DType::F64 | DType::C64 | DType::C128
    ) {
        return Err(Error::op(
            op,
            format!(
                "a {} and b {} promote to {}, which LAPACK has no routines for",
                describe(a.aval()),
                describe(b.aval()),
                a2.element_type()
            ),
        ));
    }
    // A weakly typed b (a Python scalar's type) does not make the results weak.
    let strong = |x: Array| {
        if x.weak_type() {
            crate::ops::elementwise::convert(op, &x, x.element_type(), false)
        } else {
            x
        }
    };
    Ok((strong(a2), strong(b2)))
}

/// Checks that the right-hand sides `b2` (`b` as matrices `[..., n, k]`) fit the square
/// matrices `a` `[..., n, n]`: the same batch dimensions and `n` rows.
pub(crate) fn check_rhs(op: &str, a: &Array, b: &Array, b2: &Array) -> Result<(), Error> {
    let n = a.rank();
    let fits = b2.rank() == n
        && b2.dims()[..n - 2] == a.dims()[..n - 2]
        && b2.dims()[n - 2] == a.dims()[n - 1];
    if fits {
        return Ok(());
    }
    Err(Error::op(
        op,
        format!(
            "b {} does not fit a {}: expected [..., n] or [..., n, k] with a's batch dimensions",
            describe(b.aval()),
            describe(a.aval())
        ),
    ))
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
pub(crate) fn mt(a: &Array) -> Array {
    np::swapaxes(a, -1, -2)
}

/// The conjugate transpose (Hermitian adjoint, JAX's `_H`) of every matrix: [`mt`] for real
/// ones. Wherever a real formula transposes an orthogonal factor or a symmetric part, the
/// complex one takes this.
pub(crate) fn mh(a: &Array) -> Array {
    np::conj(&mt(a))
}

/// The real dtype of `dtype`'s parts (f32 for complex64): eigenvalues of Hermitian matrices,
/// singular values, norms and `log|det|` have it.
pub(crate) fn parts(dtype: DType) -> DType {
    dtype.component().unwrap_or(dtype)
}

/// Machine epsilon of `dtype`'s parts (`jnp.finfo(dtype).eps`: complex64's is float32's).
pub(crate) fn eps_of(dtype: DType) -> f64 {
    if parts(dtype) == DType::F32 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    }
}

/// Rows `r0..r1` and columns `c0..c1` of every matrix.
pub(crate) fn block(a: &Array, rows: (i64, i64), cols: (i64, i64)) -> Array {
    let n = a.rank();
    let mut start = vec![0; n];
    let mut limit = a.dims().to_vec();
    (start[n - 2], limit[n - 2]) = rows;
    (start[n - 1], limit[n - 1]) = cols;
    slice(a, &start, &limit, None)
}

/// `jnp.linalg.eigh(a)` (lower triangle, symmetrised input `(a + aᴴ)/2`): eigenvalues
/// ascending (real, also for complex Hermitian `a`) and the eigenvectors as columns, `(w, v)`
/// with `a·v = v·diag(w)`.
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
    pair(square("eigh", a).and_then(|a| rules::eigh(&a, true)))
}

/// Both results of a function returning two, or its error twice.
pub(crate) fn pair(r: Result<(Array, Array), Error>) -> (Array, Array) {
    match r {
        Ok(p) => p,
        Err(e) => (Array::failed(e.clone()), Array::failed(e)),
    }
}

/// `jnp.linalg.eigvalsh(a)`: the eigenvalues of symmetric (Hermitian) matrices, ascending and
/// real.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::eigvalsh;
/// let a = Array::from_vec(vec![2.0f32, 0.0, 0.0, -1.0], &[2, 2]);
/// let w = eigvalsh(&a).to_vec::<f32>().unwrap();
/// assert!((w[0] + 1.0).abs() < 1e-6 && (w[1] - 2.0).abs() < 1e-6);
/// ```
pub fn eigvalsh(a: &Array) -> Array {
    or_fail(square("eigvalsh", a).and_then(|a| rules::eigvalsh(&a, true)))
}

/// `(a + aᴴ) / 2`: the symmetric (Hermitian) part.
pub(crate) fn symmetrize(a: &Array) -> Array {
    np::divide(&np::add(a, &mh(a)), &full(&[], 2.0, a.element_type()))
}

/// `syevd` (`heevd` for complex) on square matrices `a`: `(w, v)`, `w` real (`v` is zeros
/// without `vectors`).
/// With `symmetrize`, on `(a + aᵀ)/2` (numpy's `eigh`); else on `a`'s lower triangle (scipy's).
pub(crate) fn eigh_raw(
    a: &Array,
    vectors: bool,
    symmetrize: bool,
) -> Result<(Array, Array), Error> {
    let op = "eigh";
    let sym = if symmetrize {
        self::symmetrize(a)
    } else {
        a.clone()
    };
    let out = call(op, Routine::Syevd, &[&sym], |c| c.eigenvectors = vectors)?;
    let batch = a.rank() - 2;
    let w = nan_where_failed(&out[1], &out[2], batch);
    let v = nan_where_failed(&out[0], &out[2], batch);
    Ok((w, v))
}

/// `jnp.linalg.svd(a, full_matrices, compute_uv)`: `(u, s, vh)` with `a = u·diag(s)·vh` and
/// `s` descending (real; `u` and `vh` complex for complex `a`) (`u` is m×m and `vh` n×n with `full_matrices`, else m×k and k×n); with
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
    match matrices("svd", a).and_then(|a| rules::svd(&a, full_matrices, compute_uv)) {
        Ok(r) => r,
        Err(e) => (None, Array::failed(e), None),
    }
}

/// `gesdd` on matrices `a`: `(u, s, vh)` as [`svd`] returns them (`s` real).
pub(crate) fn svd_raw(
    a: &Array,
    full_matrices: bool,
    compute_uv: bool,
) -> Result<(Option<Array>, Array, Option<Array>), Error> {
    let run = || -> Result<Vec<Array>, Error> {
        let mode = match (compute_uv, full_matrices) {
            (false, _) => SvdVectors::None,
            (true, true) => SvdVectors::Full,
            (true, false) => SvdVectors::Thin,
        };
        let out = call("svd", Routine::Gesdd, &[a], |c| c.svd_vectors = mode)?;
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
            Ok(if compute_uv {
                (u, s, vh)
            } else {
                (None, s, None)
            })
        }
        Err(e) => Err(e),
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
    let run = || {
        let op = "qr";
        if !matches!(mode, "reduced" | "complete" | "r") {
            return Err(Error::op(
                op,
                format!("mode must be \"reduced\", \"complete\" or \"r\", got \"{mode}\""),
            ));
        }
        rules::qr(&matrices(op, a)?, mode)
    };
    match run() {
        Ok((q, r)) => (q, r),
        Err(e) => (None, Array::failed(e)),
    }
}

/// `geqrf` (and `orgqr`/`ungqr` unless `mode` is `"r"`) on matrices `a`: `(q, r)` as [`qr`]
/// returns them.
pub(crate) fn qr_raw(a: &Array, mode: &str) -> Result<(Option<Array>, Array), Error> {
    let op = "qr";
    let n = a.rank();
    let (m, cols) = (a.dims()[n - 2], a.dims()[n - 1]);
    let k = m.min(cols);
    let out = call(op, Routine::Geqrf, &[a], |_| {})?;
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

/// The LU factorisation's `(lu, ipiv, info)` of matrices (`getrf`; `ipiv` 1-based).
pub(crate) fn getrf(op: &str, a: &Array) -> Result<(Array, Array, Array), Error> {
    let mut out = call(op, Routine::Getrf, &[a], |_| {})?;
    let info = out.pop().expect("info");
    let ipiv = out.pop().expect("ipiv");
    Ok((out.pop().expect("lu"), ipiv, info))
}

/// The LU factorisation's `(lu, ipiv)` of square matrices (`getrf`).
fn lu(op: &str, a: &Array) -> Result<(Array, Array), Error> {
    let (lu, ipiv, _) = getrf(op, a)?;
    Ok((lu, ipiv))
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
    or_fail(square("det", a).and_then(|a| rules::det(&a)))
}

/// The determinants of square matrices, from `getrf`.
pub(crate) fn det_raw(a: &Array) -> Array {
    or_fail(lu("det", a).map(|(lu, ipiv)| det_of_lu(&lu, &ipiv)))
}

/// The determinants from `getrf`'s factors: `U`'s diagonal product times the pivots' sign.
pub(crate) fn det_of_lu(lu: &Array, ipiv: &Array) -> Array {
    let d = np::prod(&np::diagonal(lu, 0, -2, -1), Some(&[-1]), false);
    np::multiply(&d, &permutation_sign(ipiv, lu.element_type()))
}

/// `jnp.linalg.slogdet(a)`: `(sign, logabsdet)` with `det = sign·exp(logabsdet)`; a singular
/// matrix gives sign 0 and `-inf`. For complex `a` the sign is a unit complex number and
/// `logabsdet` is real.
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
    pair(square("slogdet", a).and_then(|a| rules::slogdet(&a)))
}

/// `(sign, logabsdet)` of square matrices, from `getrf` as JAX's `_slogdet_lu`: the sign is
/// the product of `U`'s diagonal entries' signs (their phases `d/|d|` for complex matrices, a
/// unit complex number) times the row interchanges' parity; `logabsdet` (real) sums
/// `log|d|`. A zero on the diagonal gives sign 0 and `-inf`.
pub(crate) fn slogdet_raw(a: &Array) -> (Array, Array) {
    match lu("slogdet", a) {
        Ok((lu, ipiv)) => slogdet_of_lu(&lu, &ipiv),
        Err(e) => (Array::failed(e.clone()), Array::failed(e)),
    }
}

/// [`slogdet_raw`] from `getrf`'s factors.
pub(crate) fn slogdet_of_lu(lu: &Array, ipiv: &Array) -> (Array, Array) {
    let dtype = lu.element_type();
    let diag = np::diagonal(lu, 0, -2, -1);
    let abs = np::abs(&diag);
    let unit = if dtype.is_complex() {
        np::divide(&diag, &np::astype(&abs, dtype))
    } else {
        np::sign(&diag)
    };
    let sign = np::multiply(
        &np::prod(&unit, Some(&[-1]), false),
        &permutation_sign(ipiv, dtype),
    );
    let is_zero = np::any(
        &np::equal(&diag, &full(&[], 0.0, dtype)),
        Some(&[-1]),
        false,
    );
    let sign = np::where_(&is_zero, &full(&[], 0.0, dtype), &sign);
    let logdet = np::where_(
        &is_zero,
        &full(&[], f64::NEG_INFINITY, parts(dtype)),
        &np::sum(&np::log(&abs), Some(&[-1]), false),
    );
    (sign, logdet)
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
        let (a, b, b2, vector) = rhs_as_matrices(op, &a, b)?;
        check_rhs(op, &a, &b, &b2)?;
        let x = rules::solve(&a, &b2)?;
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
    or_fail(square("inv", a).and_then(|a| rules::inv(&a)))
}

/// `(lu, ipiv, perm)`: `getrf`'s packed factors of square `a`, its pivots, and the row
/// permutation they make (`a[perm] = l·u`), as JAX's `lu` returns them.
pub(crate) fn lu_permuted(op: &str, a: &Array) -> Result<(Array, Array, Array), Error> {
    let (lu, ipiv, _) = getrf(op, a)?;
    let m = a.dims()[a.rank() - 1];
    let perm = rules::pivots_to_permutation(&ipiv, m)?;
    Ok((lu, ipiv, perm))
}

/// `x` with `a·x = b` for square matrices `a` and matrices `b` of the same batch and dtype, as
/// JAX's CPU lowering solves: LU (`getrf`), `b`'s rows permuted, then `trsm` with the unit
/// lower and the upper triangle.
pub(crate) fn solve_raw(a: &Array, b: &Array) -> Result<Array, Error> {
    let (lu, _, perm) = lu_permuted("solve", a)?;
    let rows = np::broadcast_to(&np::expand_dims(&perm, -1), b.dims());
    let pb = np::take_along_axis(b, &rows, -2);
    let y = call("solve", Routine::Trsm, &[&lu, &pb], |c| {
        c.lower = true;
        c.unit_diagonal = true;
    })?
    .remove(0);
    Ok(call("solve", Routine::Trsm, &[&lu, &y], |c| c.lower = false)?.remove(0))
}

/// The inverses of square matrices ([`solve_raw`] with the identity).
pub(crate) fn inv_raw(a: &Array) -> Result<Array, Error> {
    let n = a.dims()[a.rank() - 1];
    let identity = np::broadcast_to(&eye(n, None, 0, a.element_type()), a.dims());
    solve_raw(a, &identity)
}

/// `jnp.linalg.pinv(a)` with JAX's default cutoff: singular values at most
/// `10·max(m, n)·eps·max(s)` are treated as zero.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::pinv;
/// let a = Array::from_vec(vec![2.0f64, 0.0, 0.0, 0.0], &[2, 2]);
/// let p = pinv(&a).to_vec::<f64>().unwrap();
/// assert!((p[0] - 0.5).abs() < 1e-12 && p[1..].iter().all(|x| x.abs() < 1e-12));
/// ```
pub fn pinv(a: &Array) -> Array {
    or_fail(matrices("pinv", a).and_then(|a| rules::pinv(&a)))
}

/// The pseudo-inverses of matrices, from `gesdd`: `V·diag(1/s)·Uᴴ` over the kept singular
/// values (real, in `a`'s parts type).
pub(crate) fn pinv_raw(a: &Array) -> Array {
    or_fail((|| {
        let n = a.rank();
        let (m, c) = (a.dims()[n - 2], a.dims()[n - 1]);
        let (u, s, vh) = svd_raw(a, false, true)?;
        let (u, vh) = (u.expect("u"), vh.expect("vh"));
        let real = s.element_type();
        let cutoff = np::multiply(
            &np::max(&s, Some(&[-1]), true),
            &full(&[], 10.0 * m.max(c) as f64 * eps_of(real), real),
        );
        let keep = np::greater(&s, &cutoff);
        let one = full(&[], 1.0, real);
        let inv_s = np::where_(&keep, &np::divide(&one, &s), &full(&[], 0.0, real));
        let inv_s = np::astype(&np::expand_dims(&inv_s, -2), a.element_type());
        let v_scaled = np::multiply(&mh(&vh), &inv_s);
        Ok(np::matmul(&v_scaled, &mh(&u)))
    })())
}

/// `jnp.linalg.lstsq(a, b, rcond)` for a matrix `a` (m×n) and `b` of `[m]` or `[m, k]`:
/// `(x, residuals, rank, s)` minimising `|a·x − b|`, through the SVD as JAX: singular values
/// below `rcond·max(s)` (default `eps·max(m, n)`; negative means `eps`) are dropped. The
/// residuals are `|b − a·x|²` per column, always (numpy leaves them empty for rank-deficient
/// or wide `a`), and `rank` is int32. Differentiable through the SVD's rule.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::lstsq;
/// // The line through (0, 1), (1, 3), (2, 5): y = 1 + 2t.
/// let a = Array::from_vec(vec![1.0f64, 0.0, 1.0, 1.0, 1.0, 2.0], &[3, 2]);
/// let b = Array::from_vec(vec![1.0f64, 3.0, 5.0], &[3]);
/// let (x, resid, rank, _) = lstsq(&a, &b, None);
/// let x = x.to_vec::<f64>().unwrap();
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// assert!(resid.to_vec::<f64>().unwrap()[0].abs() < 1e-20);
/// assert_eq!(rank.to_vec::<i32>().unwrap(), vec![2]);
/// ```
pub fn lstsq(a: &Array, b: &Array, rcond: Option<f64>) -> (Array, Array, Array, Array) {
    let run = || -> Result<(Array, Array, Array, Array), Error> {
        let op = "lstsq";
        let a = matrices(op, a)?;
        b.check()?;
        let (a, b) = promote_pair(op, &a, b)?;
        let vector = b.rank() == 1;
        let b2 = if vector {
            np::expand_dims(&b, -1)
        } else {
            b.clone()
        };
        if a.rank() != 2 || b2.rank() != 2 || a.dims()[0] != b2.dims()[0] {
            return Err(Error::op(
                op,
                format!(
                    "expected a matrix a [m, n] and b [m] or [m, k], got a {} and b {}",
                    describe(a.aval()),
                    describe(b.aval())
                ),
            ));
        }
        let (m, n) = (a.dims()[0], a.dims()[1]);
        let dtype = a.element_type();
        let real = parts(dtype);
        let eps = eps_of(dtype);
        let rcond = match rcond {
            None => eps * m.max(n) as f64,
            Some(r) if r < 0.0 => eps,
            Some(r) => r,
        };
        let (u, s, vt) = rules::svd(&a, false, true)?;
        let (u, vt) = (u.expect("u"), vt.expect("vt"));
        let zero = full(&[], 0.0, real);
        let one = full(&[], 1.0, real);
        let s0 = slice(&s, &[0], &[1], None);
        let mask = np::logical_and(
            &np::greater(&s, &zero),
            &np::greater_equal(&s, &np::multiply(&full(&[], rcond, real), &s0)),
        );
        let rank = np::sum(&np::astype(&mask, DType::I32), None, false);
        let safe = np::where_(&mask, &s, &one);
        let s_inv = np::where_(&mask, &np::divide(&one, &safe), &zero);
        let s_inv = np::astype(&np::expand_dims(&s_inv, -1), dtype);
        let utb = np::matmul(&mh(&u), &b2);
        let x = np::matmul(&mh(&vt), &np::multiply(&s_inv, &utb));
        let r = np::subtract(&b2, &np::matmul(&a, &x));
        let resid = np::sum(
            &np::real(&np::multiply(&r, &np::conj(&r))),
            Some(&[0]),
            false,
        );
        let x = if vector { np::ravel(&x) } else { x };
        Ok((x, resid, rank, s))
    };
    match run() {
        Ok(r) => r,
        Err(e) => (
            Array::failed(e.clone()),
            Array::failed(e.clone()),
            Array::failed(e.clone()),
            Array::failed(e),
        ),
    }
}

/// `jnp.linalg.matrix_power(a, n)`: `a` multiplied by itself `n` times (by repeated
/// squaring, as JAX), the identity for `n = 0`, powers of the inverse for `n < 0`.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::matrix_power;
/// let a = Array::from_vec(vec![1.0f64, 1.0, 0.0, 1.0], &[2, 2]);
/// assert_eq!(matrix_power(&a, 5).to_vec::<f64>().unwrap(), vec![1.0, 5.0, 0.0, 1.0]);
/// let back = matrix_power(&a, -2).to_vec::<f64>().unwrap();
/// assert!(back.iter().zip([1.0, -2.0, 0.0, 1.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn matrix_power(a: &Array, n: i64) -> Array {
    or_fail((|| {
        let a = square("matrix_power", a)?;
        if n == 0 {
            let k = a.dims()[a.rank() - 1];
            return Ok(np::broadcast_to(
                &eye(k, None, 0, a.element_type()),
                a.dims(),
            ));
        }
        let base = if n < 0 { inv(&a) } else { a };
        let mut e = n.unsigned_abs();
        let (mut z, mut result): (Option<Array>, Option<Array>) = (None, None);
        while e > 0 {
            let next = match &z {
                None => base.clone(),
                Some(z) => np::matmul(z, z),
            };
            if e % 2 == 1 {
                result = Some(match result {
                    None => next.clone(),
                    Some(r) => np::matmul(&r, &next),
                });
            }
            z = Some(next);
            e /= 2;
        }
        Ok(result.expect("n != 0"))
    })())
}

/// `jnp.linalg.matrix_rank(m, rtol)`: the number of singular values above a tolerance,
/// int32: `max(m, n)·eps·max(s)` by default; a given `rtol` is compared with the singular
/// values as it is (as JAX's code does, although its docs say relative). For a vector or
/// scalar, whether any element is non-zero.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::matrix_rank;
/// let a = Array::from_vec(vec![1.0f32, 2.0, 2.0, 4.0], &[2, 2]);
/// assert_eq!(matrix_rank(&a, None).to_vec::<i32>().unwrap(), vec![1]);
/// ```
pub fn matrix_rank(m: &Array, rtol: Option<f64>) -> Array {
    or_fail((|| {
        m.check()?;
        let m = to_inexact("matrix_rank", m);
        if m.rank() < 2 {
            let nz = np::not_equal(&m, &full(&[], 0.0, m.element_type()));
            return Ok(np::astype(&np::any(&nz, None, false), DType::I32));
        }
        let m = matrices("matrix_rank", &m)?;
        let (_, s, _) = svd(&m, false, false);
        let dtype = s.element_type();
        let n = m.rank();
        let size = m.dims()[n - 2].max(m.dims()[n - 1]) as f64;
        let eps = eps_of(dtype);
        let smax = np::max(&s, Some(&[-1]), true);
        let tol = match rtol {
            None => np::multiply(&smax, &full(&[], size * eps, dtype)),
            Some(r) => full(&[], r, dtype),
        };
        Ok(np::sum(
            &np::astype(&np::greater(&s, &tol), DType::I32),
            Some(&[-1]),
            false,
        ))
    })())
}

/// The general eigendecomposition through LAPACK's `geev`: complex eigenvalues and, when
/// `vectors`, the right eigenvectors (columns, unit norm, largest component real).
pub(crate) fn eig_raw(op: &str, a: &Array, vectors: bool) -> Result<(Array, Array), Error> {
    let a = square(op, a)?;
    let batch = a.rank() - 2;
    let mut out = call(op, Routine::Geev, &[&a], |c| {
        c.left_vectors = false;
        c.right_vectors = vectors;
    })?;
    let info = out
        .pop()
        .ok_or_else(|| Error::op(op, "geev returned nothing"))?;
    // Real matrices: [wr, wi, vl, vr]; complex ones: [w, vl, vr].
    let (w, v) = if a.element_type().is_complex() {
        (out[0].clone(), out[2].clone())
    } else {
        (
            crate::ops::complex::complex(&out[0], &out[1]),
            out[3].clone(),
        )
    };
    Ok((
        nan_where_failed(&w, &info, batch),
        nan_where_failed(&v, &info, batch),
    ))
}

/// `jnp.linalg.eig(a)`: the eigenvalues `w` and right eigenvectors `v` (as columns, each of
/// unit norm with its largest component real, as LAPACK normalises them) of general square
/// matrices, `a·v = v·diag(w)`; complex for real input too. The order of the eigenvalues is the
/// solver's, as in JAX (neither sorts them). Not differentiable yet (JAX's `eig` has a JVP
/// rule for the eigenvalues only on CPU).
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::eig;
/// // A rotation by 90°: eigenvalues ±i.
/// let a = Array::from_vec(vec![0.0f32, -1.0, 1.0, 0.0], &[2, 2]);
/// let (w, v) = eig(&a);
/// let mut im: Vec<f32> = w.to_vec::<systolic::Complex32>().unwrap().iter().map(|z| z.im).collect();
/// im.sort_by(|x, y| x.total_cmp(y));
/// assert!((im[0] + 1.0).abs() < 1e-6 && (im[1] - 1.0).abs() < 1e-6);
/// assert_eq!(v.shape(), &[2, 2]);
/// ```
pub fn eig(a: &Array) -> (Array, Array) {
    // No differentiation rule, as in JAX (eigenvectors have none): differentiating through it
    // is the autodiff's error naming the geev call.
    pair(eig_raw("eig", a, true))
}

/// `jnp.linalg.eigvals(a)`: the (complex) eigenvalues of general square matrices.
///
/// ```
/// use systolic::Array;
/// use systolic::numpy::linalg::eigvals;
/// let a = Array::from_vec(vec![2.0f64, 1.0, 0.0, 3.0], &[2, 2]);
/// let mut re: Vec<f64> = eigvals(&a).to_vec::<systolic::Complex64>().unwrap().iter().map(|z| z.re).collect();
/// re.sort_by(|x, y| x.total_cmp(y));
/// assert!((re[0] - 2.0).abs() < 1e-12 && (re[1] - 3.0).abs() < 1e-12);
/// ```
pub fn eigvals(a: &Array) -> Array {
    or_fail(square("eigvals", a).and_then(|a| rules::eigvals(&a)))
}
