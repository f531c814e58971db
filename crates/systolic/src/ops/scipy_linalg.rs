//! `jax.scipy.linalg`: scipy's names and conventions over the decompositions of `np_decomp`
//! (LU with its permutation, Cholesky factors as `(c, lower)` pairs, QR modes `"full"` and
//! `"economic"`, `eigh` on one triangle) and the matrix exponential with JAX's Padé
//! approximant and scaling and squaring. Everything is differentiable: the factorisations
//! through `np_decomp_rules`, the rest through ordinary ops (triangular solves, products).

use crate::array::Array;
use crate::error::{Error, Result};
use crate::numpy as np;
use crate::ops::creation::{eye, full, iota};
use crate::ops::np_decomp::{block, mh, or_fail, pair, parts, square};
use crate::ops::np_decomp_rules::{self as rules, pivots_to_permutation};
use crate::ops::np_linalg::{cholesky_of, triangular_solve, triangular_solve_as};
use crate::transforms::custom::custom_jvp;
use crate::transforms::function::fallible;
use systolic_ir::{DType, TransposeKind};

/// `a` and `b` promoted together (JAX's `promote_dtypes_inexact`), and `b` as matrices
/// `[..., n, k]` for square `a` `[..., n, n]` (a vector per matrix when `b` has one dimension
/// fewer than `a`, or is 1-D; a 2-D `b` broadcast over `a`'s batch): `a`, the matrices, and
/// whether to squeeze back.
fn rhs(op: &str, a: &Array, b: &Array) -> Result<(Array, Array, bool)> {
    let (a, b, b2, vector) = crate::ops::np_decomp::rhs_as_matrices(op, a, b)?;
    let n = a.rank();
    let b2 = if b2.rank() == 2 && n > 2 {
        let mut shape = a.dims()[..n - 2].to_vec();
        shape.extend_from_slice(b2.dims());
        np::broadcast_to(&b2, &shape)
    } else {
        b2
    };
    crate::ops::np_decomp::check_rhs(op, &a, &b, &b2)?;
    Ok((a, b2, vector))
}

fn unmatrix(x: Array, vector: bool) -> Array {
    if vector {
        np::squeeze_axes(&x, Some(&[-1]))
    } else {
        x
    }
}

/// `jax.scipy.linalg.lu(a)`: `(p, l, u)` with `a = p·l·u`, `p` a permutation matrix (real,
/// also for complex `a`, as JAX's), `l` m×k unit lower triangular and `u` k×n upper triangular
/// (k = min(m, n)).
///
/// ```
/// use systolic::{numpy as np, Array};
/// use systolic::scipy::linalg::lu;
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2]);
/// let (p, l, u) = lu(&a);
/// let back = np::matmul(&p, &np::matmul(&l, &u)).to_vec::<f64>().unwrap();
/// assert!(back.iter().zip([1.0, 2.0, 3.0, 4.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// assert_eq!(p.to_vec::<f64>().unwrap(), vec![0.0, 1.0, 1.0, 0.0]);
/// ```
pub fn lu(a: &Array) -> (Array, Array, Array) {
    let run = || -> Result<(Array, Array, Array)> {
        let a = crate::ops::np_decomp::matrices("lu", a)?;
        let dtype = a.element_type();
        let n = a.rank();
        let (m, c) = (a.dims()[n - 2], a.dims()[n - 1]);
        let k = m.min(c);
        let (packed, _, perm) = rules::lu(&a)?;
        // p[i, j] = (perm[j] == i): the rows of a·… that l·u's rows come from.
        let rows = np::expand_dims(&iota(DType::I32, &[m], 0), -1);
        // Real for complex `a` too, as JAX's (`real` of the permutation matrix).
        let p = np::astype(&np::equal(&np::expand_dims(&perm, -2), &rows), parts(dtype));
        let l = np::add(
            &np::tril(&block(&packed, (0, m), (0, k)), -1),
            &eye(m, Some(k), 0, dtype),
        );
        let u = np::triu(&block(&packed, (0, k), (0, c)), 0);
        Ok((p, l, u))
    };
    match run() {
        Ok(r) => r,
        Err(e) => (
            Array::failed(e.clone()),
            Array::failed(e.clone()),
            Array::failed(e),
        ),
    }
}

/// `jax.scipy.linalg.lu_factor(a)`: `(lu, piv)`, the packed factors (`l`'s unit diagonal
/// implied) and LAPACK's row interchanges, 0-based (row `i` was swapped with `piv[i]`).
///
/// ```
/// use systolic::Array;
/// use systolic::scipy::linalg::{lu_factor, lu_solve};
/// let a = Array::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2]);
/// let (lu, piv) = lu_factor(&a);
/// assert_eq!(piv.to_vec::<i32>().unwrap(), vec![1, 1]);
/// let b = Array::from_vec(vec![5.0f64, 11.0], &[2]);
/// let x = lu_solve((&lu, &piv), &b, 0).to_vec::<f64>().unwrap();
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// ```
pub fn lu_factor(a: &Array) -> (Array, Array) {
    pair(
        crate::ops::np_decomp::matrices("lu_factor", a)
            .and_then(|a| rules::lu(&a))
            .map(|(lu, piv, _)| (lu, piv)),
    )
}

/// `jax.scipy.linalg.lu_solve((lu, piv), b, trans)`: solves `a·x = b` (`trans = 0`),
/// `aᵀ·x = b` (`trans = 1`) or `aᴴ·x = b` (`trans = 2`, the same as 1 for real matrices)
/// from [`lu_factor`]'s factors; `b` is `[..., n]` or `[..., n, k]`.
pub fn lu_solve(lu_and_piv: (&Array, &Array), b: &Array, trans: i32) -> Array {
    or_fail((|| {
        let (lu, piv) = lu_and_piv;
        let lu = square("lu_solve", lu)?;
        piv.check()?;
        if !matches!(trans, 0..=2) {
            return Err(Error::op(
                "lu_solve",
                format!("trans must be 0, 1 or 2, got {trans}"),
            ));
        }
        let (lu, b2, vector) = rhs("lu_solve", &lu, b)?;
        let m = lu.dims()[lu.rank() - 1];
        let ipiv = np::add(&np::astype(piv, DType::I32), &full(&[], 1.0, DType::I32));
        let perm = pivots_to_permutation(&ipiv, m)?;
        let rows = np::broadcast_to(&np::expand_dims(&perm, -1), b2.dims());
        let x = if trans == 0 {
            // a = pᵀ·l·u with b[perm] = l·u·x.
            let pb = np::take_along_axis(&b2, &rows, -2);
            let y = triangular_solve(&lu, &pb, true, true, false, true);
            triangular_solve(&lu, &y, true, false, false, false)
        } else {
            // aᵀ·x = uᵀ·lᵀ·(x[perm]) = b (aᴴ and the conjugate transposes for trans = 2).
            let t = if trans == 1 {
                TransposeKind::Transpose
            } else {
                TransposeKind::Adjoint
            };
            let y = triangular_solve_as(&lu, &b2, true, false, t, false);
            let z = triangular_solve_as(&lu, &y, true, true, t, true);
            let inverse = np::argsort(&perm, -1, false);
            let rows = np::broadcast_to(&np::expand_dims(&inverse, -1), b2.dims());
            np::take_along_axis(&z, &rows, -2)
        };
        Ok(unmatrix(x, vector))
    })())
}

/// `jax.scipy.linalg.cho_factor(a, lower)`: `(c, lower)`, the Cholesky factor of symmetric
/// (Hermitian) positive-definite `a` (`c·cᴴ = a` when `lower`, else `cᴴ·c = a`; the other
/// triangle is zero). Only `a`'s `lower` (or upper) triangle is read, and differentiated as JAX does:
/// the rule takes the whole tangent, not its symmetric part.
///
/// ```
/// use systolic::Array;
/// use systolic::scipy::linalg::{cho_factor, cho_solve};
/// let a = Array::from_vec(vec![4.0f64, 2.0, 2.0, 5.0], &[2, 2]);
/// let (c, lower) = cho_factor(&a, false);
/// assert_eq!(c.to_vec::<f64>().unwrap(), vec![2.0, 1.0, 0.0, 2.0]);
/// let b = Array::from_vec(vec![8.0f64, 12.0], &[2]);
/// let x = cho_solve((&c, lower), &b).to_vec::<f64>().unwrap();
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// ```
pub fn cho_factor(a: &Array, lower: bool) -> (Array, bool) {
    let run = || -> Result<Array> {
        let a = square("cho_factor", a)?;
        Ok(if lower {
            rules::cholesky_lower_triangle(&a)?
        } else {
            mh(&rules::cholesky_lower_triangle(&mh(&a))?)
        })
    };
    (or_fail(run()), lower)
}

/// `jax.scipy.linalg.cho_solve((c, lower), b)`: solves `a·x = b` from [`cho_factor`]'s
/// factor; `b` is `[..., n]` or `[..., n, k]`.
pub fn cho_solve(c_and_lower: (&Array, bool), b: &Array) -> Array {
    or_fail((|| {
        let (c, lower) = c_and_lower;
        let c = square("cho_solve", c)?;
        let (c, b2, vector) = rhs("cho_solve", &c, b)?;
        // lower: a = c·cᴴ; else a = cᴴ·c.
        let (first, second) = if lower {
            (TransposeKind::NoTranspose, TransposeKind::Adjoint)
        } else {
            (TransposeKind::Adjoint, TransposeKind::NoTranspose)
        };
        let y = triangular_solve_as(&c, &b2, true, lower, first, false);
        let x = triangular_solve_as(&c, &y, true, lower, second, false);
        Ok(unmatrix(x, vector))
    })())
}

pub use crate::ops::np_decomp::{det, inv, svd};
pub use crate::ops::np_linalg::solve_triangular;

/// `jax.scipy.linalg.solve(a, b, assume_a, lower)`: `assume_a` `"gen"`, `"sym"` or `"her"`
/// solve as `numpy.linalg.solve` (as JAX does); `"pos"` factors `a` with Cholesky (reading the
/// `lower` triangle, or the upper one) and differentiates as JAX's `custom_linear_solve`:
/// `ẋ = a⁻¹·(ḃ − ȧ·x)` with the full `ȧ`.
///
/// Second derivatives differentiate the rule, whose `a⁻¹` is triangular solves with the
/// Cholesky factor; the factor's derivative (the IR op's rule) sees the symmetric part of the
/// second direction. JAX's `custom_linear_solve` sees it whole, so the two agree when the
/// second differentiation is along symmetric directions (`jvp` of `grad` with a symmetric
/// tangent) and not otherwise (a triangular factor's tangent cannot represent a non-symmetric
/// change of `a`). Differentiate `numpy::linalg::solve` for JAX's whole Hessian.
///
/// ```
/// use systolic::Array;
/// use systolic::scipy::linalg::solve;
/// let a = Array::from_vec(vec![4.0f64, 2.0, 2.0, 5.0], &[2, 2]);
/// let b = Array::from_vec(vec![8.0f64, 12.0], &[2]);
/// let x = solve(&a, &b, "pos", false).to_vec::<f64>().unwrap();
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// ```
pub fn solve(a: &Array, b: &Array, assume_a: &str, lower: bool) -> Array {
    or_fail((|| {
        let op = "solve";
        match assume_a {
            "gen" | "sym" | "her" => return Ok(np::linalg::solve(a, b)),
            "pos" => {}
            other => {
                return Err(Error::op(
                    op,
                    format!(
                        "assume_a must be \"gen\", \"sym\", \"her\" or \"pos\", got \"{other}\""
                    ),
                ))
            }
        }
        let a = square(op, a)?;
        let (a, b2, vector) = rhs(op, &a, b)?;
        // Only one triangle is read, as LAPACK's potrf does.
        let factor = move |a: &Array| {
            if lower {
                cholesky_of(a, false)
            } else {
                cholesky_of(&mh(a), false)
            }
        };
        // a = l·lᴴ.
        let apply = |l: &Array, t: &Array| {
            let y = triangular_solve(l, t, true, true, false, false);
            triangular_solve_as(l, &y, true, true, TransposeKind::Adjoint, false)
        };
        let f = custom_jvp(
            fallible(move |(a, b): &(Array, Array)| {
                let l = factor(a);
                Ok(apply(&l, b))
            }),
            move |(a, b): &(Array, Array), (da, db): &(Array, Array)| {
                let l = factor(a);
                let x = apply(&l, b);
                let dx = apply(&l, &np::subtract(db, &np::matmul(da, &x)));
                (x, dx)
            },
        );
        Ok(unmatrix(f.call(&(a, b2))?, vector))
    })())
}

/// `jax.scipy.linalg.qr(a, mode)` for `mode` `"full"` (Q m×m, R m×n), `"economic"` (Q m×k,
/// R k×n) or `"r"` (R only, m×n; Q is `None`).
///
/// ```
/// use systolic::Array;
/// use systolic::scipy::linalg::qr;
/// let a = Array::from_vec(vec![3.0f64, 4.0], &[2, 1]);
/// let (q, r) = qr(&a, "full");
/// assert_eq!((q.unwrap().shape().to_vec(), r.shape().to_vec()), (vec![2, 2], vec![2, 1]));
/// ```
pub fn qr(a: &Array, mode: &str) -> (Option<Array>, Array) {
    match mode {
        "full" => np::linalg::qr(a, "complete"),
        "economic" => np::linalg::qr(a, "reduced"),
        "r" => {
            let (_, r) = np::linalg::qr(a, "complete");
            (None, r)
        }
        other => (
            None,
            Array::failed(Error::op(
                "qr",
                format!("mode must be \"full\", \"economic\" or \"r\", got \"{other}\""),
            )),
        ),
    }
}

/// `jax.scipy.linalg.eigh(a, lower, eigvals_only)`: the eigenvalues (ascending, real) and,
/// unless `eigvals_only`, the eigenvectors of symmetric (Hermitian) `a`. As JAX's (and unlike
/// scipy's), `a` is symmetrised first (`(a + aᴴ)/2`), so `lower` changes nothing: it names the
/// triangle the LAPACK call reads after that.
///
/// ```
/// use systolic::Array;
/// use systolic::scipy::linalg::eigh;
/// let a = Array::from_vec(vec![2.0f64, 1.0, 1.0, 2.0], &[2, 2]);
/// let (w, v) = eigh(&a, true, false);
/// let w = w.to_vec::<f64>().unwrap();
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12 && v.is_some());
/// ```
pub fn eigh(a: &Array, lower: bool, eigvals_only: bool) -> (Array, Option<Array>) {
    let run = || -> Result<(Array, Option<Array>)> {
        let a = square("eigh", a)?;
        let _ = lower;
        if eigvals_only {
            return Ok((rules::eigvalsh(&a, true)?, None));
        }
        let (w, v) = rules::eigh(&a, true)?;
        Ok((w, Some(v)))
    };
    match run() {
        Ok(r) => r,
        Err(e) => (Array::failed(e), None),
    }
}

/// The Padé approximant `(u, v)` of degree `m` of `exp(a)` (`p = v + u`, `q = v − u`), with
/// JAX's coefficients (Higham 2005).
fn pade(a: &Array, m: usize) -> (Array, Array) {
    let dtype = a.element_type();
    let n = a.dims()[a.rank() - 1];
    let c = |v: f64| full(&[], v, dtype);
    let ident = eye(n, None, 0, dtype);
    let mm = |x: &Array, y: &Array| np::matmul(x, y);
    // Σ b[k]·x_k over (coefficient, power) pairs.
    let comb = |terms: &[(f64, &Array)]| {
        terms
            .iter()
            .map(|(b, x)| np::multiply(&c(*b), x))
            .reduce(|s, t| np::add(&s, &t))
            .expect("terms")
    };
    let a2 = mm(a, a);
    match m {
        3 => {
            let b = [120., 60., 12., 1.];
            let u = mm(a, &comb(&[(b[3], &a2), (b[1], &ident)]));
            let v = comb(&[(b[2], &a2), (b[0], &ident)]);
            (u, v)
        }
        5 => {
            let b = [30240., 15120., 3360., 420., 30., 1.];
            let a4 = mm(&a2, &a2);
            let u = mm(a, &comb(&[(b[5], &a4), (b[3], &a2), (b[1], &ident)]));
            let v = comb(&[(b[4], &a4), (b[2], &a2), (b[0], &ident)]);
            (u, v)
        }
        7 => {
            let b = [
                17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.,
            ];
            let a4 = mm(&a2, &a2);
            let a6 = mm(&a4, &a2);
            let u = mm(
                a,
                &comb(&[(b[7], &a6), (b[5], &a4), (b[3], &a2), (b[1], &ident)]),
            );
            let v = comb(&[(b[6], &a6), (b[4], &a4), (b[2], &a2), (b[0], &ident)]);
            (u, v)
        }
        9 => {
            let b = [
                17643225600.,
                8821612800.,
                2075673600.,
                302702400.,
                30270240.,
                2162160.,
                110880.,
                3960.,
                90.,
                1.,
            ];
            let a4 = mm(&a2, &a2);
            let a6 = mm(&a4, &a2);
            let a8 = mm(&a6, &a2);
            let u = mm(
                a,
                &comb(&[
                    (b[9], &a8),
                    (b[7], &a6),
                    (b[5], &a4),
                    (b[3], &a2),
                    (b[1], &ident),
                ]),
            );
            let v = comb(&[
                (b[8], &a8),
                (b[6], &a6),
                (b[4], &a4),
                (b[2], &a2),
                (b[0], &ident),
            ]);
            (u, v)
        }
        _ => {
            let b = [
                64764752532480000.,
                32382376266240000.,
                7771770303897600.,
                1187353796428800.,
                129060195264000.,
                10559470521600.,
                670442572800.,
                33522128640.,
                1323241920.,
                40840800.,
                960960.,
                16380.,
                182.,
                1.,
            ];
            let a4 = mm(&a2, &a2);
            let a6 = mm(&a4, &a2);
            let inner_u = mm(&a6, &comb(&[(b[13], &a6), (b[11], &a4), (b[9], &a2)]));
            let u = mm(
                a,
                &np::add(
                    &inner_u,
                    &comb(&[(b[7], &a6), (b[5], &a4), (b[3], &a2), (b[1], &ident)]),
                ),
            );
            let inner_v = mm(&a6, &comb(&[(b[12], &a6), (b[10], &a4), (b[8], &a2)]));
            let v = np::add(
                &inner_v,
                &comb(&[(b[6], &a6), (b[4], &a4), (b[2], &a2), (b[0], &ident)]),
            );
            (u, v)
        }
    }
}

/// The most squarings [`expm`] does (JAX's default `max_squarings`); a matrix that needs more
/// gives NaN.
const MAX_SQUARINGS: i64 = 16;

/// `jax.scipy.linalg.expm(a)`: the matrix exponential by JAX's scaling and squaring (Higham
/// 2005): `a` is scaled by `2^-s` so that its 1-norm is at most 5.37 (f64) or 3.93 (f32), the
/// Padé approximant `q⁻¹·p` of the degree the unscaled norm calls for (3, 5, 7, 9 or 13 in
/// f64; 3, 5 or 7 in f32) is solved for, then squared `s` times (NaN beyond 16 squarings).
/// JAX picks one degree per matrix with `lax.switch`; here every degree is computed and each
/// matrix of a batch selects its own, so batches need no loop (more work, same values).
///
/// ```
/// use systolic::Array;
/// use systolic::scipy::linalg::expm;
/// let a = Array::from_vec(vec![0.0f64, 1.0, -1.0, 0.0], &[2, 2]);
/// let e = expm(&a).to_vec::<f64>().unwrap();
/// let (c, s) = (1f64.cos(), 1f64.sin());
/// assert!(e.iter().zip([c, s, -s, c]).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn expm(a: &Array) -> Array {
    or_fail((|| {
        let a = square("expm", a)?;
        let dtype = a.element_type();
        // The norm, the number of squarings and the thresholds are real (complex matrices'
        // too, in their parts' type); the Padé terms are in a's type.
        let real = parts(dtype);
        let c = |v: f64| full(&[], v, dtype);
        let re = |v: f64| full(&[], v, real);
        let (max_norm, conds, degrees): (f64, &[f64], &[usize]) = if real == DType::F64 {
            (
                5.371920351148152,
                &[
                    1.495585217958292e-2,
                    2.53939833006323e-1,
                    9.504178996162932e-1,
                    2.097847961257068e+0,
                ],
                &[3, 5, 7, 9, 13],
            )
        } else {
            (
                3.92572478313866,
                &[4.258730016922831e-1, 1.880152677804762e+0],
                &[3, 5, 7],
            )
        };
        // The 1-norm: the largest column sum of |a|.
        let norm1 = np::max(
            &np::sum(&np::abs(&a), Some(&[-2]), false),
            Some(&[-1]),
            false,
        );
        let squarings = np::maximum(
            &re(0.0),
            &np::floor(&np::log2(&np::divide(&norm1, &re(max_norm)))),
        );
        let per_matrix = |x: &Array| np::expand_dims(&np::expand_dims(x, -1), -1);
        let scale = np::astype(&np::power(&re(2.0), &squarings), dtype);
        let scaled = np::divide(&a, &per_matrix(&scale));
        // np.digitize: how many thresholds the norm has reached.
        let idx = conds
            .iter()
            .map(|&t| np::astype(&np::greater_equal(&norm1, &re(t)), DType::I32))
            .reduce(|s, t| np::add(&s, &t))
            .expect("thresholds");
        let mut p = None;
        let mut q = None;
        for (i, &m) in degrees.iter().enumerate() {
            let (u, v) = pade(&scaled, m);
            let (pi, qi) = (np::add(&v, &u), np::subtract(&v, &u));
            let pick = per_matrix(&np::equal(&idx, &full(&[], i as f64, DType::I32)));
            p = Some(match p {
                None => pi,
                Some(prev) => np::where_(&pick, &pi, &prev),
            });
            q = Some(match q {
                None => qi,
                Some(prev) => np::where_(&pick, &qi, &prev),
            });
        }
        let (p, q) = (p.expect("degrees"), q.expect("degrees"));
        let mut r = np::linalg::solve(&q, &p);
        for i in 0..MAX_SQUARINGS {
            let more = per_matrix(&np::less(&re(i as f64), &squarings));
            r = np::where_(&more, &np::matmul(&r, &r), &r);
        }
        let too_many = per_matrix(&np::greater(&squarings, &re(MAX_SQUARINGS as f64)));
        Ok(np::where_(&too_many, &c(f64::NAN), &r))
    })())
}
