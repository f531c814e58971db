//! The differentiation rules of the decompositions in `np_decomp`, one function per
//! decomposition, each with the formula JAX uses (jax/_src/lax/linalg.py and
//! jax/_src/numpy/linalg.py) in its doc comment.
//!
//! The decompositions are LAPACK custom calls, which the autodiff crate cannot differentiate,
//! so each is wrapped in a [`custom_jvp`]: its primal (the `*_raw` function of `np_decomp`) is
//! staged between the rule's barriers and the rule replaces it when a transformation
//! differentiates. Every rule is linear in the tangents and applies inverses to them only
//! through ops the autodiff crate can transpose (products, the IR's `triangular_solve`), so
//! reverse mode (`grad`, `vjp`) transposes it as JAX does. The rules' primal parts (the
//! factorisations, and solves that involve primal values only) are LAPACK calls, which `vmap`
//! batches, so `vmap(grad(f))` works too.
//!
//! Notation: `ȧ` is the tangent of `a`, `ᵀ` swaps the last two dimensions, `∘` is the
//! elementwise product, and every formula applies to each matrix of a batch.
//!
//! As in JAX, derivatives at degenerate points (repeated eigenvalues or singular values, a
//! rank-deficient matrix for `qr`, `det`, `solve`, `inv`) are not defined and come out as
//! infinities or NaN. `det`'s rule uses a QR solve where JAX's `_cofactor_solve` also handles
//! matrices of rank n−1 through the LU factors; a singular matrix gives NaN here.

use crate::array::Array;
use crate::error::Result;
use crate::numpy as np;
use crate::ops::creation::{eye, full, iota, zeros_like};
use crate::ops::np_decomp::{self as d, block, mt, symmetrize};
use crate::ops::np_linalg::{cholesky_of, triangular_solve};
use crate::transforms::custom::custom_jvp;
use crate::transforms::function::fallible;
use crate::tree::Tree;
use systolic_ir::DType;

/// `primal(args)`, differentiated by `rule(primals, tangents) -> (outputs, output tangents)`.
fn with_jvp<A: Tree, R: Tree>(
    args: &A,
    primal: impl Fn(&A) -> Result<R>,
    rule: impl Fn(&A, &A) -> (R, R),
) -> Result<R> {
    custom_jvp(fallible(primal), rule).call(args)
}

fn mm(a: &Array, b: &Array) -> Array {
    np::matmul(a, b)
}

/// The diagonals of a batch of matrices.
fn diag_of(x: &Array) -> Array {
    np::diagonal(x, 0, -2, -1)
}

/// The traces of a batch of matrices.
fn trace_of(x: &Array) -> Array {
    np::sum(&diag_of(x), Some(&[-1]), false)
}

fn dims(a: &Array) -> (i64, i64) {
    let n = a.rank();
    (a.dims()[n - 2], a.dims()[n - 1])
}

fn identity(n: i64, dtype: DType) -> Array {
    eye(n, None, 0, dtype)
}

/// `1 / (x + I) − I`: the reciprocals of a matrix's off-diagonal entries, zeros on its
/// diagonal (whose entries must be zero), without dividing by zero.
fn off_diagonal_reciprocal(x: &Array) -> Array {
    let n = x.dims()[x.rank() - 1];
    let i = identity(n, x.element_type());
    np::subtract(&np::reciprocal(&np::add(x, &i)), &i)
}

/// Two results of a fallible primal, or its error as failed arrays (a rule cannot fail; the
/// error surfaces where the rule's outputs are used).
fn two(r: Result<(Array, Array)>) -> (Array, Array) {
    d::pair(r)
}

fn one(r: Result<Array>) -> Array {
    d::or_fail(r)
}

/// The reduced QR factors of `a` (`q` m×k, `r` k×n).
fn thin_qr(a: &Array) -> (Array, Array) {
    two(d::qr_raw(a, "reduced").map(|(q, r)| (q.expect("reduced mode has Q"), r)))
}

/// `R⁻¹·Qᵀ·t`: `a⁻¹·t` for a square `a = Q·R`, through the IR's triangular solve (linear in
/// `t` and transposable).
fn qr_apply_inverse(q: &Array, r: &Array, t: &Array) -> Array {
    triangular_solve(r, &mm(&mt(q), t), true, false, false, false)
}

/// The thin SVD `(u, s, vh)` of `a`.
fn thin_svd(a: &Array) -> (Array, Array, Array) {
    match d::svd_raw(a, false, true) {
        Ok((u, s, vh)) => (u.expect("u"), s, vh.expect("vh")),
        Err(e) => (
            Array::failed(e.clone()),
            Array::failed(e.clone()),
            Array::failed(e),
        ),
    }
}

/// `jnp.linalg.eigh` (`symmetrize`: on `(a + aᵀ)/2`; else `jax.scipy.linalg.eigh`, on the
/// lower triangle). Nondegenerate perturbation theory, as JAX's `_eigh_jvp_rule`: with
/// `M = vᵀ·ȧ·v` (`ȧ` symmetrised with `a`),
/// `ẇ = diag(M)` and `v̇ = v·(F ∘ M)`, `F[i, j] = 1/(w[j] − w[i])` off the diagonal, 0 on it.
pub(crate) fn eigh(a: &Array, symmetrize: bool) -> Result<(Array, Array)> {
    with_jvp(
        a,
        move |a: &Array| d::eigh_raw(a, true, symmetrize),
        move |a: &Array, da: &Array| {
            let (w, v) = two(d::eigh_raw(a, true, symmetrize));
            let m = tangent_in_eigenbasis(&v, da, symmetrize);
            let gaps = np::subtract(&np::expand_dims(&w, -2), &np::expand_dims(&w, -1));
            let dv = mm(&v, &np::multiply(&off_diagonal_reciprocal(&gaps), &m));
            ((w, v), (diag_of(&m), dv))
        },
    )
}

/// `M = vᵀ·ȧ·v`, the tangent in the eigenbasis `v` (`ȧ` symmetrised first when the primal
/// symmetrises its input): shared by eigh's and eigvalsh's rules.
fn tangent_in_eigenbasis(v: &Array, da: &Array, symmetrize: bool) -> Array {
    let da = if symmetrize {
        self::symmetrize(da)
    } else {
        da.clone()
    };
    mm(&mm(&mt(v), &da), v)
}

/// `jnp.linalg.eigvalsh`: `ẇ = diag(vᵀ·ȧ·v)` (the eigenvectors computed by the rule).
pub(crate) fn eigvalsh(a: &Array, symmetrize: bool) -> Result<Array> {
    with_jvp(
        a,
        move |a: &Array| d::eigh_raw(a, false, symmetrize).map(|(w, _)| w),
        move |a: &Array, da: &Array| {
            let (w, v) = two(d::eigh_raw(a, true, symmetrize));
            (w, diag_of(&tangent_in_eigenbasis(&v, da, symmetrize)))
        },
    )
}

/// `jnp.linalg.svd`, JAX's `_svd_jvp_rule` on the thin factors: with `dS = uᵀ·ȧ·v`,
/// `ṡ = diag(dS)`; with `F[i, j] = 1/(s[j]² − s[i]²)` off the diagonal (0 on it),
/// `u̇ = u·(F ∘ (dS·S + S·dSᵀ))` and `v̇ = v·(F ∘ (S·dS + dSᵀ·S))`, plus the parts outside
/// the thin factors' span: `(ȧ·v − u·uᵀ·ȧ·v)·S⁻¹` for `u` of a tall matrix,
/// `(ȧᵀ·u − v·vᵀ·ȧᵀ·u)·S⁻¹` for `v` of a wide one. Without vectors only `ṡ`. The full
/// vectors of a non-square matrix have no rule (as in JAX): differentiating them is an
/// error naming the custom call.
pub(crate) fn svd(
    a: &Array,
    full_matrices: bool,
    compute_uv: bool,
) -> Result<(Option<Array>, Array, Option<Array>)> {
    let (m, n) = dims(a);
    if !compute_uv {
        let s = with_jvp(
            a,
            |a: &Array| d::svd_raw(a, false, false).map(|r| r.1),
            |a: &Array, da: &Array| {
                let (u, s, vh) = thin_svd(a);
                (s, diag_of(&mm(&mm(&mt(&u), da), &mt(&vh))))
            },
        )?;
        return Ok((None, s, None));
    }
    if full_matrices && m != n {
        return d::svd_raw(a, true, true);
    }
    let (s, u, vh) = with_jvp(
        a,
        move |a: &Array| {
            let (u, s, vh) = d::svd_raw(a, full_matrices, true)?;
            Ok((s, u.expect("u"), vh.expect("vh")))
        },
        |a: &Array, da: &Array| {
            let (u, s, vh) = thin_svd(a);
            let v = mt(&vh);
            let s_row = np::expand_dims(&s, -2);
            let s_col = mt(&s_row);
            let ds_mat = mm(&mm(&mt(&u), da), &v);
            let f = off_diagonal_reciprocal(&np::multiply(
                &np::add(&s_row, &s_col),
                &np::subtract(&s_row, &s_col),
            ));
            let dss = np::multiply(&s_row, &ds_mat);
            let sds = np::multiply(&s_col, &ds_mat);
            let mut du = mm(&u, &np::multiply(&f, &np::add(&dss, &mt(&dss))));
            let mut dv = mm(&v, &np::multiply(&f, &np::add(&sds, &mt(&sds))));
            if m > n {
                let dav = mm(da, &v);
                let outside = np::subtract(&dav, &mm(&u, &mm(&mt(&u), &dav)));
                du = np::add(&du, &np::divide(&outside, &s_row));
            }
            if n > m {
                let dahu = mm(&mt(da), &u);
                let outside = np::subtract(&dahu, &mm(&v, &mm(&vh, &dahu)));
                dv = np::add(&dv, &np::divide(&outside, &s_row));
            }
            let ds = diag_of(&ds_mat);
            ((s, u, vh), (ds, du, mt(&dv)))
        },
    )?;
    Ok((Some(u), s, Some(vh)))
}

/// The thin QR rule for `x = q·r` with `q` m×n, `r` n×n (m ≥ n): with `B = qᵀ·ẋ·r⁻¹` and
/// `Ω = tril(B, −1) − tril(B, −1)ᵀ`, `q̇ = q·(Ω − B) + ẋ·r⁻¹` and `ṙ = (B − Ω)·r`.
fn thin_qr_tangents(q: &Array, r: &Array, dx: &Array) -> (Array, Array) {
    let dx_rinv = triangular_solve(r, dx, false, false, false, false);
    let b = mm(&mt(q), &dx_rinv);
    let lower = np::tril(&b, -1);
    let omega = np::subtract(&lower, &mt(&lower));
    let dq = np::add(&mm(q, &np::subtract(&omega, &b)), &dx_rinv);
    let dr = mm(&np::subtract(&b, &omega), r);
    (dq, dr)
}

/// The QR rule of JAX's `qr_jvp_rule`. Tall or square (m ≥ n): the thin rule on the first n
/// columns of `q` and rows of `r`; for the complete `q` of a tall matrix the other m−n
/// columns follow arXiv:2409.13374 (eqs. 32–33): with `Z = q_pn·(q_nn − I)⁻¹`,
/// `q̇_mp = q̇_mn·Zᵀ − (q_mn + q_mp·Z)·(q̇_pn − Z·q̇_nn)ᵀ`, and `ṙ`'s extra rows are zero.
/// Wide (m < n): `x = [x₁ x₂]`, the square rule on `x₁ = q·r₁`, and `ṙ₂ = q̇ᵀ·x₂ + qᵀ·ẋ₂`.
fn qr_tangents(a: &Array, q: &Array, r: &Array, da: &Array, complete: bool) -> (Array, Array) {
    let (m, n) = dims(a);
    if m < n {
        let x2 = block(a, (0, m), (m, n));
        let (dx1, dx2) = (block(da, (0, m), (0, m)), block(da, (0, m), (m, n)));
        let (dq, dr1) = thin_qr_tangents(q, &block(r, (0, m), (0, m)), &dx1);
        let dr2 = np::add(&mm(&mt(&dq), &x2), &mm(&mt(q), &dx2));
        return (dq, np::concatenate(&[&dr1, &dr2], -1));
    }
    let (q_mn, r_nn) = if complete {
        (block(q, (0, m), (0, n)), block(r, (0, n), (0, n)))
    } else {
        (q.clone(), r.clone())
    };
    let (dq_mn, dr_nn) = thin_qr_tangents(&q_mn, &r_nn, da);
    if !complete || m == n {
        return (dq_mn, dr_nn);
    }
    let q_nn = block(&q_mn, (0, n), (0, n));
    let q_pn = block(&q_mn, (n, m), (0, n));
    let q_mp = block(q, (0, m), (n, m));
    let dq_nn = block(&dq_mn, (0, n), (0, n));
    let dq_pn = block(&dq_mn, (n, m), (0, n));
    let shifted = np::subtract(&q_nn, &identity(n, a.element_type()));
    let z_t = one(d::solve_raw(&mt(&shifted), &mt(&q_pn)));
    let z = mt(&z_t);
    let dq_mp = np::subtract(
        &mm(&dq_mn, &z_t),
        &mm(
            &np::add(&q_mn, &mm(&q_mp, &z)),
            &mt(&np::subtract(&dq_pn, &mm(&z, &dq_nn))),
        ),
    );
    let mut zeros_shape = a.dims().to_vec();
    let rank = zeros_shape.len();
    zeros_shape[rank - 2] = m - n;
    let zeros = full(&zeros_shape, 0.0, a.element_type());
    (
        np::concatenate(&[&dq_mn, &dq_mp], -1),
        np::concatenate(&[&dr_nn, &zeros], -2),
    )
}

/// `jnp.linalg.qr` in `mode` `"reduced"`, `"complete"` or `"r"` ([`qr_tangents`]; `"r"`
/// differentiates the reduced factorisation and returns `ṙ`).
pub(crate) fn qr(a: &Array, mode: &str) -> Result<(Option<Array>, Array)> {
    let complete = mode == "complete";
    if mode == "r" {
        let r = with_jvp(
            a,
            |a: &Array| d::qr_raw(a, "r").map(|(_, r)| r),
            |a: &Array, da: &Array| {
                let (q, r) = thin_qr(a);
                let (_, dr) = qr_tangents(a, &q, &r, da, false);
                (r, dr)
            },
        )?;
        return Ok((None, r));
    }
    let mode = mode.to_string();
    let (q, r) = with_jvp(
        a,
        move |a: &Array| d::qr_raw(a, &mode).map(|(q, r)| (q.expect("Q"), r)),
        move |a: &Array, da: &Array| {
            let (q, r) = two(d::qr_raw(a, if complete { "complete" } else { "reduced" })
                .map(|(q, r)| (q.expect("Q"), r)));
            let (dq, dr) = qr_tangents(a, &q, &r, da, complete);
            ((q, r), (dq, dr))
        },
    )?;
    Ok((Some(q), r))
}

/// `jnp.linalg.det`, JAX's `custom_jvp` of `det`: `ḋ = det(a)·tr(a⁻¹·ȧ)` (the solve through
/// `a`'s QR factors).
pub(crate) fn det(a: &Array) -> Result<Array> {
    with_jvp(
        a,
        |a: &Array| Ok(d::det_raw(a)),
        |a: &Array, da: &Array| {
            let y = d::det_raw(a);
            let (q, r) = thin_qr(a);
            let dy = np::multiply(&y, &trace_of(&qr_apply_inverse(&q, &r, da)));
            (y, dy)
        },
    )
}

/// `jnp.linalg.slogdet`, JAX's `_slogdet_jvp`: the sign's tangent is zero and
/// `(log|det|)˙ = tr(a⁻¹·ȧ)`.
pub(crate) fn slogdet(a: &Array) -> Result<(Array, Array)> {
    with_jvp(
        a,
        |a: &Array| Ok(d::slogdet_raw(a)),
        |a: &Array, da: &Array| {
            let (sign, logdet) = d::slogdet_raw(a);
            let (q, r) = thin_qr(a);
            let dlogdet = trace_of(&qr_apply_inverse(&q, &r, da));
            let dsign = zeros_like(&sign);
            ((sign, logdet), (dsign, dlogdet))
        },
    )
}

/// `jnp.linalg.solve` for matrices `b`: `x = a⁻¹·b`, `ẋ = a⁻¹·(ḃ − ȧ·x)` (linear in both
/// tangents; JAX gets the same from `custom_linear_solve`).
pub(crate) fn solve(a: &Array, b: &Array) -> Result<Array> {
    with_jvp(
        &(a.clone(), b.clone()),
        |(a, b): &(Array, Array)| d::solve_raw(a, b),
        |(a, b): &(Array, Array), (da, db): &(Array, Array)| {
            let (q, r) = thin_qr(a);
            let x = qr_apply_inverse(&q, &r, b);
            let dx = qr_apply_inverse(&q, &r, &np::subtract(db, &mm(da, &x)));
            (x, dx)
        },
    )
}

/// `jnp.linalg.inv`: `ẏ = −y·ȧ·y` with `y = a⁻¹`.
pub(crate) fn inv(a: &Array) -> Result<Array> {
    with_jvp(
        a,
        |a: &Array| d::inv_raw(a),
        |a: &Array, da: &Array| {
            let y = one(d::inv_raw(a));
            let dy = np::negative(&mm(&mm(&y, da), &y));
            (y, dy)
        },
    )
}

/// `jnp.linalg.pinv`, JAX's `_pinv_jvp` (Golub and Pereyra 1973): with `p = a⁺`,
/// `ṗ = −p·ȧ·p + p·pᵀ·ȧᵀ·(I − a·p) + (I − p·a)·ȧᵀ·pᵀ·p`, associated as JAX does for tall
/// and wide matrices.
pub(crate) fn pinv(a: &Array) -> Result<Array> {
    let (m, n) = dims(a);
    with_jvp(
        a,
        |a: &Array| Ok(d::pinv_raw(a)),
        move |a: &Array, da: &Array| {
            let p = d::pinv_raw(a);
            let (pt, dat) = (mt(&p), mt(da));
            let dp = if m >= n {
                let s = mm(&mm(&p, &pt), &dat);
                let t = mm(&mm(&dat, &pt), &p);
                let first = np::negative(&mm(&mm(&p, da), &p));
                let second = np::subtract(&s, &mm(&mm(&s, a), &p));
                let third = np::subtract(&t, &mm(&mm(&p, a), &t));
                np::add(&np::add(&first, &second), &third)
            } else {
                let s = mm(&p, &mm(&pt, &dat));
                let t = mm(&dat, &mm(&pt, &p));
                let first = np::negative(&mm(&p, &mm(da, &p)));
                let second = np::subtract(&s, &mm(&s, &mm(a, &p)));
                let third = np::subtract(&t, &mm(&p, &mm(a, &t)));
                np::add(&np::add(&first, &second), &third)
            };
            (p, dp)
        },
    )
}

/// LAPACK's 1-based row interchanges `ipiv[..., k]` as the permutation `perm[..., m]` of the
/// rows (`a[perm] = l·u`): the interchanges applied in order to `0..m`, one step of a loop
/// per interchange, each a select over the row positions (so every matrix of a batch takes
/// its own swaps).
pub(crate) fn pivots_to_permutation(ipiv: &Array, m: i64) -> Result<Array> {
    let r = ipiv.rank();
    let k = ipiv.dims()[r - 1];
    let mut shape = ipiv.dims()[..r - 1].to_vec();
    shape.push(m);
    let start = np::broadcast_to(&iota(DType::I32, &[m], 0), &shape);
    let zero = full(&[], 0.0, DType::I32);
    let one_i = full(&[], 1.0, DType::I32);
    let (perm, _) = crate::ops::control::fori_loop(
        0,
        k,
        |i: &Array, (perm, ipiv): &(Array, Array)| {
            let at_step = np::equal(&iota(DType::I32, &[k], 0), i);
            let j = np::subtract(
                &np::sum(&np::where_(&at_step, ipiv, &zero), Some(&[-1]), true),
                &one_i,
            );
            let rows = iota(DType::I32, &[m], 0);
            let at_i = np::equal(&rows, i);
            let at_j = np::equal(&rows, &j);
            let perm_i = np::sum(&np::where_(&at_i, perm, &zero), Some(&[-1]), true);
            let perm_j = np::sum(&np::where_(&at_j, perm, &zero), Some(&[-1]), true);
            let swapped = np::where_(&at_i, &perm_j, &np::where_(&at_j, &perm_i, perm));
            (swapped, ipiv.clone())
        },
        &(start, ipiv.clone()),
    )?;
    Ok(perm)
}

/// The unit lower factor `l` (m×m) and upper factor `u` (n×n, with ones on the diagonal
/// below row k = min(m, n)) of a packed `lu` (m×n), as JAX pads them for its LU rule.
fn square_factors(lu: &Array) -> (Array, Array) {
    let (m, n) = dims(lu);
    let k = m.min(n);
    let dtype = lu.element_type();
    let rank = lu.rank();
    let pad = |x: Array, axis: usize, extra: i64| {
        if extra == 0 {
            return x;
        }
        let mut shape = x.dims().to_vec();
        shape[axis] = extra;
        np::concatenate(&[&x, &full(&shape, 0.0, dtype)], axis as i64)
    };
    let l = pad(np::tril(&block(lu, (0, m), (0, k)), -1), rank - 1, m - k);
    let l = np::add(&l, &identity(m, dtype));
    let u = pad(np::triu(&block(lu, (0, k), (0, n)), 0), rank - 2, n - k);
    let below_k = np::greater_equal(
        &iota(DType::I32, &[n, n], 0),
        &full(&[], k as f64, DType::I32),
    );
    let u_eye = np::where_(&below_k, &identity(n, dtype), &full(&[], 0.0, dtype));
    (l, np::add(&u, &u_eye))
}

/// `lax.linalg.lu`: `(lu, pivots, permutation)` (0-based pivots, `a[perm] = l·u`). JAX's
/// `_lu_jvp_rule` (de Hoog, Anderssen and Lukas): with `X = l⁻¹·ȧ[perm]·u⁻¹`,
/// `l̇ = l·tril(X, −1)` and `u̇ = triu(X)·u`, so `lu̇ = l̇ + u̇`; the integer outputs have no
/// tangent.
pub(crate) fn lu(a: &Array) -> Result<(Array, Array, Array)> {
    let (m, _) = dims(a);
    let factor = move |a: &Array| -> Result<(Array, Array, Array)> {
        let (lu, ipiv, _) = d::getrf("lu", a)?;
        let perm = pivots_to_permutation(&ipiv, m)?;
        let pivots = np::subtract(&ipiv, &full(&[], 1.0, DType::I32));
        Ok((lu, pivots, perm))
    };
    with_jvp(a, factor, move |a: &Array, da: &Array| {
        let (lu, pivots, perm) = match factor(a) {
            Ok(f) => f,
            Err(e) => {
                return (
                    (
                        Array::failed(e.clone()),
                        Array::failed(e.clone()),
                        Array::failed(e.clone()),
                    ),
                    (
                        Array::failed(e.clone()),
                        Array::failed(e.clone()),
                        Array::failed(e),
                    ),
                )
            }
        };
        let (l, u) = square_factors(&lu);
        let rows = np::broadcast_to(&np::expand_dims(&perm, -1), da.dims());
        let da_perm = np::take_along_axis(da, &rows, -2);
        let la = triangular_solve(&l, &da_perm, true, true, false, true);
        let x = triangular_solve(&u, &la, false, false, false, false);
        let dl = mm(&l, &np::tril(&x, -1));
        let du = mm(&np::triu(&x, 0), &u);
        let tangents = (np::add(&dl, &du), zeros_like(&pivots), zeros_like(&perm));
        ((lu, pivots, perm), tangents)
    })
}

/// The Cholesky factor `l` of `a` read from its lower triangle only
/// (`lax.linalg.cholesky(symmetrize_input=False)`, behind `jax.scipy.linalg.cho_factor`),
/// differentiated by JAX's `_cholesky_jvp_rule` (Murray 2016, arXiv:1602.07527) with the whole
/// tangent `ȧ`, not its symmetric part: `l̇ = l·Φ(l⁻¹·ȧ·l⁻ᵀ)`, `Φ` taking the lower triangle
/// with the diagonal halved. (The IR `cholesky` op's own rule symmetrises `ȧ`; the two agree
/// on symmetric tangents.)
pub(crate) fn cholesky_lower_triangle(a: &Array) -> Result<Array> {
    with_jvp(
        a,
        |a: &Array| Ok(cholesky_of(a, false)),
        |a: &Array, da: &Array| {
            let l = cholesky_of(a, false);
            let tmp = triangular_solve(&l, da, false, true, true, false);
            let x = np::tril(&triangular_solve(&l, &tmp, true, true, false, false), 0);
            let n = a.dims()[a.rank() - 1];
            let halve = np::add(
                &full(&[], 1.0, a.element_type()),
                &identity(n, a.element_type()),
            );
            let dl = mm(&l, &np::divide(&x, &halve));
            (l, dl)
        },
    )
}
