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
//! Higher derivatives (`hessian`, `grad` of `grad`, `jvp` of `grad`): a rule takes its
//! primal quantities (eigenvectors, singular vectors, factors, the solution) from the ruled
//! functions of this module, never from the `*_raw` ones, as JAX's rules bind differentiable
//! primitives. Differentiating once inlines the rule, whose ruled calls stay in the program
//! between their own barriers (one factorisation each, as before: the rule replaced the
//! primal); differentiating that program again applies their rules. The nesting stops at
//! [`MAX_ORDER`]. `eigvals` has no second derivative, as in JAX.
//!
//! Notation: `ȧ` is the tangent of `a`, `ᵀ` swaps the last two dimensions, `ᴴ` is the
//! conjugate transpose (JAX's `_H`; the same as `ᵀ` for real matrices), `∘` is the elementwise
//! product, and every formula applies to each matrix of a batch.
//!
//! The rules are JAX's for complex matrices too: where JAX's take `_H` (eigh, svd, qr, pinv,
//! the Cholesky factor) these take `ᴴ`, real quantities (eigenvalues, singular values,
//! `log|det|`) get the real part of their tangent, and the complex-only terms of JAX's rules
//! (svd's phase term, qr's diagonal correction, slogdet's sign tangent) are added for complex
//! matrices only, so real matrices run exactly the real formulas.
//!
//! As in JAX, derivatives at degenerate points (repeated eigenvalues or singular values, a
//! rank-deficient matrix for `qr`, `det`, `solve`, `inv`) are not defined and come out as
//! infinities or NaN. `det`'s rule solves with the LU factors where JAX's `_cofactor_solve`
//! also handles matrices of rank n−1; a singular matrix gives NaN here.

use crate::array::Array;
use crate::error::Result;
use crate::numpy as np;
use crate::ops::creation::{eye, full, iota, zeros_like};
use crate::ops::np_decomp::{self as d, block, mh, mt, symmetrize};
use crate::ops::np_linalg::{cholesky_of, triangular_solve, triangular_solve_as};
use crate::transforms::custom::custom_jvp;
use crate::transforms::function::fallible;
use crate::tree::Tree;
use systolic_ir::{DType, TransposeKind};

/// The highest order of derivatives the rules carry: a rule's primal quantities come from the
/// ruled functions, whose own rules are staged when the rule is (a [`custom_jvp`] stages its
/// rule when it is called, not when a transformation reaches it as JAX's does), so the rules
/// nest one level per order and must stop somewhere. At this depth the functions are staged
/// without a rule: differentiating that many times plus once is the autodiff's error naming
/// the LAPACK call (the Cholesky factor, an IR op, falls back to that op's own rule, which
/// takes the symmetric part of the tangent). Three orders cover `hessian` and one more; each order stages one more
/// copy of a rule (no cost at run time: a program holds only the rules it differentiates).
const MAX_ORDER: usize = 3;

thread_local! {
    /// How many rules are being staged on this thread, one inside the other.
    static RULE_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Marks a rule being staged for as long as it lives (released on panic too).
struct StagingRule;

impl StagingRule {
    fn enter() -> Self {
        RULE_DEPTH.with(|d| d.set(d.get() + 1));
        StagingRule
    }
}

impl Drop for StagingRule {
    fn drop(&mut self) {
        RULE_DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// `primal(args)`, differentiated by `rule(primals, tangents) -> (outputs, output tangents)`.
///
/// Rules compute their primal quantities (factors, eigenvectors, solutions) with the ruled
/// functions of this module, never the `*_raw` ones, so that the rule's output can be
/// differentiated again through their rules (`hessian`, `grad` of `grad`), as JAX's rules
/// bind differentiable primitives; their tangent parts apply only ops the autodiff crate can
/// transpose. Differentiating once inlines the rule in place of the primal, so the
/// factorisation a rule calls for is the only one in the program.
fn with_jvp<A: Tree, R: Tree>(
    args: &A,
    primal: impl Fn(&A) -> Result<R>,
    rule: impl Fn(&A, &A) -> (R, R),
) -> Result<R> {
    #[cfg(test)]
    if let Some(tangents) = tests::take_probe() {
        let t = args.rebuild(&mut tangents.into_iter())?;
        let (out, dout) = rule(args, &t);
        tests::answer_probe(&dout);
        return Ok(out);
    }
    if RULE_DEPTH.with(|d| d.get()) >= MAX_ORDER {
        return primal(args);
    }
    custom_jvp(fallible(primal), move |p: &A, t: &A| {
        let _staging = StagingRule::enter();
        rule(p, t)
    })
    .call(args)
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

/// The real array `x` in `like`'s dtype (complex for complex matrices; unchanged for real
/// ones), as JAX's rules `astype(a.dtype)` their real eigenvalue and singular value terms.
fn as_type_of(x: &Array, like: &Array) -> Array {
    if x.element_type() == like.element_type() {
        x.clone()
    } else {
        np::astype(x, like.element_type())
    }
}

/// The real part of a tangent (what a real output's tangent is; the identity on real arrays).
fn re(x: &Array) -> Array {
    np::real(x)
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

/// The reduced QR factors of `a` (`q` m×k, `r` k×n), differentiable ([`qr`]).
fn thin_qr(a: &Array) -> (Array, Array) {
    two(qr(a, "reduced").map(|(q, r)| (q.expect("reduced mode has Q"), r)))
}

/// The LU factors of square `a`, LAPACK's 1-based pivots and their row permutation, through
/// [`lu`] (so differentiable: the rules of det, slogdet and solve take them from here).
fn lu_factors(a: &Array) -> (Array, Array, Array) {
    match lu(a) {
        Ok((lu, pivots, perm)) => (lu, np::add(&pivots, &full(&[], 1.0, DType::I32)), perm),
        Err(e) => (
            Array::failed(e.clone()),
            Array::failed(e.clone()),
            Array::failed(e),
        ),
    }
}

/// [`lu_factors`] without a rule ([`d::lu_permuted`]), for eigvals' rule, whose result has no
/// derivative anyway.
fn raw_lu_factors(op: &str, a: &Array) -> (Array, Array, Array) {
    match d::lu_permuted(op, a) {
        Ok(f) => f,
        Err(e) => (
            Array::failed(e.clone()),
            Array::failed(e.clone()),
            Array::failed(e),
        ),
    }
}

/// `a⁻¹·t` from `a`'s LU factors, as JAX's `lu_solve`: `t`'s rows permuted, then the unit
/// lower and the upper triangular solves (the IR's gather and triangular solve, linear in `t`
/// and transposable).
fn lu_apply_inverse(lu: &Array, perm: &Array, t: &Array) -> Array {
    let rows = np::broadcast_to(&np::expand_dims(perm, -1), t.dims());
    let pt = np::take_along_axis(t, &rows, -2);
    let y = triangular_solve(lu, &pt, true, true, false, true);
    triangular_solve(lu, &y, true, false, false, false)
}

/// The thin SVD `(u, s, vh)` of `a`, differentiable ([`svd`]).
fn thin_svd(a: &Array) -> (Array, Array, Array) {
    match svd(a, false, true) {
        Ok((u, s, vh)) => (u.expect("u"), s, vh.expect("vh")),
        Err(e) => (
            Array::failed(e.clone()),
            Array::failed(e.clone()),
            Array::failed(e),
        ),
    }
}

/// `jnp.linalg.eigh` (`symmetrize`: on `(a + aᴴ)/2`; else `jax.scipy.linalg.eigh`, on the
/// lower triangle). Nondegenerate perturbation theory, as JAX's `_eigh_jvp_rule`: with
/// `M = vᴴ·ȧ·v` (`ȧ` symmetrised with `a`), `ẇ = re(diag(M))` and `v̇ = v·(F ∘ M)`,
/// `F[i, j] = 1/(w[j] − w[i])` off the diagonal, 0 on it.
pub(crate) fn eigh(a: &Array, symmetrize: bool) -> Result<(Array, Array)> {
    with_jvp(
        a,
        move |a: &Array| d::eigh_raw(a, true, symmetrize),
        move |a: &Array, da: &Array| {
            let (w, v) = two(eigh(a, symmetrize));
            let m = tangent_in_eigenbasis(&v, da, symmetrize);
            let gaps = np::subtract(&np::expand_dims(&w, -2), &np::expand_dims(&w, -1));
            let f = as_type_of(&off_diagonal_reciprocal(&gaps), &v);
            let dv = mm(&v, &np::multiply(&f, &m));
            ((w, v), (re(&diag_of(&m)), dv))
        },
    )
}

/// `M = vᴴ·ȧ·v`, the tangent in the eigenbasis `v` (`ȧ` symmetrised first when the primal
/// symmetrises its input): shared by eigh's and eigvalsh's rules.
fn tangent_in_eigenbasis(v: &Array, da: &Array, symmetrize: bool) -> Array {
    let da = if symmetrize {
        self::symmetrize(da)
    } else {
        da.clone()
    };
    mm(&mm(&mh(v), &da), v)
}

/// `jnp.linalg.eigvalsh`: `ẇ = re(diag(vᴴ·ȧ·v))` (the eigenvectors computed by the rule,
/// through [`eigh`], so the second derivative takes eigh's rule, as JAX's does).
pub(crate) fn eigvalsh(a: &Array, symmetrize: bool) -> Result<Array> {
    with_jvp(
        a,
        move |a: &Array| d::eigh_raw(a, false, symmetrize).map(|(w, _)| w),
        move |a: &Array, da: &Array| {
            let (w, v) = two(eigh(a, symmetrize));
            (w, re(&diag_of(&tangent_in_eigenbasis(&v, da, symmetrize))))
        },
    )
}

/// `jnp.linalg.svd`, JAX's `_svd_jvp_rule` on the thin factors: with `dS = uᴴ·ȧ·v`,
/// `ṡ = re(diag(dS))`; with `F[i, j] = 1/(s[j]² − s[i]²)` off the diagonal (0 on it),
/// `u̇ = u·(F ∘ (dS·S + S·dSᴴ))` and `v̇ = v·(F ∘ (S·dS + dSᴴ·S))`, plus for complex matrices
/// the phase term `u·((dS − dSᴴ)/2 ∘ diag(1/s))` in `u̇` (zero for real ones), plus the parts
/// outside the thin factors' span: `(ȧ·v − u·uᴴ·ȧ·v)·S⁻¹` for `u` of a tall matrix,
/// `(ȧᴴ·u − v·vᴴ·ȧᴴ·u)·S⁻¹` for `v` of a wide one. Without vectors only `ṡ`. The full
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
                (s, re(&diag_of(&mm(&mm(&mh(&u), da), &mh(&vh)))))
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
            let v = mh(&vh);
            let s_row_real = np::expand_dims(&s, -2);
            let s_col_real = mt(&s_row_real);
            let ds_mat = mm(&mm(&mh(&u), da), &v);
            let f = as_type_of(
                &off_diagonal_reciprocal(&np::multiply(
                    &np::add(&s_row_real, &s_col_real),
                    &np::subtract(&s_row_real, &s_col_real),
                )),
                &u,
            );
            let (s_row, s_col) = (as_type_of(&s_row_real, &u), as_type_of(&s_col_real, &u));
            let dss = np::multiply(&s_row, &ds_mat);
            let sds = np::multiply(&s_col, &ds_mat);
            let mut du_inner = np::multiply(&f, &np::add(&dss, &mh(&dss)));
            if u.element_type().is_complex() {
                du_inner = np::add(&du_inner, &svd_phase_term(&s, &ds_mat));
            }
            let mut du = mm(&u, &du_inner);
            let mut dv = mm(&v, &np::multiply(&f, &np::add(&sds, &mh(&sds))));
            if m > n {
                let dav = mm(da, &v);
                let outside = np::subtract(&dav, &mm(&u, &mm(&mh(&u), &dav)));
                du = np::add(&du, &np::divide(&outside, &s_row));
            }
            if n > m {
                let dahu = mm(&mh(da), &u);
                let outside = np::subtract(&dahu, &mm(&v, &mm(&vh, &dahu)));
                dv = np::add(&dv, &np::divide(&outside, &s_row));
            }
            let ds = re(&diag_of(&ds_mat));
            ((s, u, vh), (ds, du, mh(&dv)))
        },
    )?;
    Ok((Some(u), s, Some(vh)))
}

/// The phase term of complex singular vectors' tangents (JAX's `dUdV_diag`):
/// `(dS − dSᴴ)/2 ∘ diag(1/s)` (with `1/0` taken as 0). `dS − dSᴴ` has a zero diagonal for
/// real matrices, so only complex ones add it.
fn svd_phase_term(s: &Array, ds_mat: &Array) -> Array {
    let k = s.dims()[s.rank() - 1];
    let real = s.element_type();
    let zeros = np::astype(&np::equal(s, &full(&[], 0.0, real)), real);
    let s_inv = np::subtract(&np::reciprocal(&np::add(s, &zeros)), &zeros);
    let s_inv_mat = np::multiply(&identity(k, real), &np::expand_dims(&s_inv, -2));
    let half = full(&[], 0.5, ds_mat.element_type());
    np::multiply(
        &np::multiply(&half, &np::subtract(ds_mat, &mh(ds_mat))),
        &as_type_of(&s_inv_mat, ds_mat),
    )
}

/// The thin QR rule for `x = q·r` with `q` m×n, `r` n×n (m ≥ n): with `B = qᴴ·ẋ·r⁻¹` and
/// `Ω = tril(B, −1) − tril(B, −1)ᴴ` (plus, for complex matrices, `i·im(diag(B))` on the
/// diagonal, JAX's correction keeping `R`'s diagonal real), `q̇ = q·(Ω − B) + ẋ·r⁻¹` and
/// `ṙ = (B − Ω)·r`.
fn thin_qr_tangents(q: &Array, r: &Array, dx: &Array) -> (Array, Array) {
    let dx_rinv = triangular_solve(r, dx, false, false, false, false);
    let b = mm(&mh(q), &dx_rinv);
    let lower = np::tril(&b, -1);
    let mut omega = np::subtract(&lower, &mh(&lower));
    if b.element_type().is_complex() {
        let n = r.dims()[r.rank() - 1];
        let imaginary = np::subtract(&b, &np::astype(&np::real(&b), b.element_type()));
        omega = np::add(
            &omega,
            &np::multiply(&identity(n, b.element_type()), &imaginary),
        );
    }
    let dq = np::add(&mm(q, &np::subtract(&omega, &b)), &dx_rinv);
    let dr = mm(&np::subtract(&b, &omega), r);
    (dq, dr)
}

/// The QR rule of JAX's `qr_jvp_rule`. Tall or square (m ≥ n): the thin rule on the first n
/// columns of `q` and rows of `r`; for the complete `q` of a tall matrix the other m−n
/// columns follow arXiv:2409.13374 (eqs. 32–33): with `Z = q_pn·(q_nn − I)⁻¹`,
/// `q̇_mp = q̇_mn·Zᴴ − (q_mn + q_mp·Z)·(q̇_pn − Z·q̇_nn)ᴴ`, and `ṙ`'s extra rows are zero.
/// Wide (m < n): `x = [x₁ x₂]`, the square rule on `x₁ = q·r₁`, and `ṙ₂ = q̇ᴴ·x₂ + qᴴ·ẋ₂`.
fn qr_tangents(a: &Array, q: &Array, r: &Array, da: &Array, complete: bool) -> (Array, Array) {
    let (m, n) = dims(a);
    if m < n {
        let x2 = block(a, (0, m), (m, n));
        let (dx1, dx2) = (block(da, (0, m), (0, m)), block(da, (0, m), (m, n)));
        let (dq, dr1) = thin_qr_tangents(q, &block(r, (0, m), (0, m)), &dx1);
        let dr2 = np::add(&mm(&mh(&dq), &x2), &mm(&mh(q), &dx2));
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
    // Zᴴ solves (q_nn − I)ᴴ·Zᴴ = q_pnᴴ.
    let z_h = one(solve(&mh(&shifted), &mh(&q_pn)));
    let z = mh(&z_h);
    let dq_mp = np::subtract(
        &mm(&dq_mn, &z_h),
        &mm(
            &np::add(&q_mn, &mm(&q_mp, &z)),
            &mh(&np::subtract(&dq_pn, &mm(&z, &dq_nn))),
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
            let (q, r) = two(qr(a, if complete { "complete" } else { "reduced" })
                .map(|(q, r)| (q.expect("Q"), r)));
            let (dq, dr) = qr_tangents(a, &q, &r, da, complete);
            ((q, r), (dq, dr))
        },
    )?;
    Ok((Some(q), r))
}

/// `jnp.linalg.det`, JAX's `custom_jvp` of `det`: `ḋ = det(a)·tr(a⁻¹·ȧ)`, the value and the
/// solve from one LU ([`lu_factors`], differentiable, so `hessian` works as in JAX).
pub(crate) fn det(a: &Array) -> Result<Array> {
    with_jvp(
        a,
        |a: &Array| Ok(d::det_raw(a)),
        |a: &Array, da: &Array| {
            // One factorisation for the value and its tangent.
            let (lu, ipiv, perm) = lu_factors(a);
            let y = d::det_of_lu(&lu, &ipiv);
            let dy = np::multiply(&y, &trace_of(&lu_apply_inverse(&lu, &perm, da)));
            (y, dy)
        },
    )
}

/// `jnp.linalg.slogdet`, JAX's `_slogdet_jvp`: with `t = tr(a⁻¹·ȧ)`, `(log|det|)˙ = re(t)`;
/// the sign's tangent is zero for real matrices and `i·im(t)·sign` for complex ones (the
/// phase turns with the imaginary part).
pub(crate) fn slogdet(a: &Array) -> Result<(Array, Array)> {
    with_jvp(
        a,
        |a: &Array| Ok(d::slogdet_raw(a)),
        |a: &Array, da: &Array| {
            let (lu, ipiv, perm) = lu_factors(a);
            let (sign, logdet) = d::slogdet_of_lu(&lu, &ipiv);
            let t = trace_of(&lu_apply_inverse(&lu, &perm, da));
            if !sign.element_type().is_complex() {
                let dsign = zeros_like(&sign);
                return ((sign, logdet), (dsign, t));
            }
            let dlogdet = np::real(&t);
            let turn = np::subtract(&t, &np::astype(&dlogdet, t.element_type()));
            let dsign = np::multiply(&turn, &sign);
            ((sign, logdet), (dsign, dlogdet))
        },
    )
}

/// `jnp.linalg.solve` for matrices `b`: `x = a⁻¹·b`, `ẋ = a⁻¹·(ḃ − ȧ·x)` (linear in both
/// tangents; JAX gets the same from `custom_linear_solve`), both from the LU of [`lu`], so
/// the second derivative takes LU's rule.
pub(crate) fn solve(a: &Array, b: &Array) -> Result<Array> {
    with_jvp(
        &(a.clone(), b.clone()),
        |(a, b): &(Array, Array)| d::solve_raw(a, b),
        |(a, b): &(Array, Array), (da, db): &(Array, Array)| {
            let (lu, _, perm) = lu_factors(a);
            let x = lu_apply_inverse(&lu, &perm, b);
            let dx = lu_apply_inverse(&lu, &perm, &np::subtract(db, &mm(da, &x)));
            (x, dx)
        },
    )
}

/// `jnp.linalg.eigvals`, JAX's rule: `λ̇ = diag(V⁻¹·ȧ·V)` with `V` the right eigenvectors
/// (first-order perturbation of simple eigenvalues; `ȧ` made complex). As in JAX, there is
/// no second derivative: the rule needs the eigenvectors, which have no rule (JAX raises
/// `NotImplementedError`; here differentiating the rule is the autodiff's error naming the
/// `geev` call), so the rule's LU is the raw one.
pub(crate) fn eigvals(a: &Array) -> Result<Array> {
    with_jvp(
        a,
        |a: &Array| d::eig_raw("eigvals", a, false).map(|(w, _)| w),
        |a: &Array, da: &Array| {
            let (w, v) = two(d::eig_raw("eigvals", a, true));
            let (lu, _, perm) = raw_lu_factors("eigvals", &v);
            let da = np::astype(da, v.element_type());
            let dw = diag_of(&mm(&lu_apply_inverse(&lu, &perm, &da), &v));
            (w, dw)
        },
    )
}

/// `jnp.linalg.inv`: `ẏ = −y·ȧ·y` with `y = a⁻¹` (from [`solve`] with the identity, whose
/// primal is [`d::inv_raw`]'s calls and whose rule differentiates `y` again).
pub(crate) fn inv(a: &Array) -> Result<Array> {
    with_jvp(
        a,
        |a: &Array| d::inv_raw(a),
        |a: &Array, da: &Array| {
            let n = a.dims()[a.rank() - 1];
            let eye_n = np::broadcast_to(&identity(n, a.element_type()), a.dims());
            let y = one(solve(a, &eye_n));
            let dy = np::negative(&mm(&mm(&y, da), &y));
            (y, dy)
        },
    )
}

/// `jnp.linalg.pinv`, JAX's `_pinv_jvp` (Golub and Pereyra 1973): with `p = a⁺`,
/// `ṗ = −p·ȧ·p + p·pᴴ·ȧᴴ·(I − a·p) + (I − p·a)·ȧᴴ·pᴴ·p`, associated as JAX does for tall
/// and wide matrices. `p` comes from `pinv` itself, as in JAX.
pub(crate) fn pinv(a: &Array) -> Result<Array> {
    let (m, n) = dims(a);
    with_jvp(
        a,
        |a: &Array| Ok(d::pinv_raw(a)),
        move |a: &Array, da: &Array| {
            let p = one(pinv(a));
            let (pt, dat) = (mh(&p), mh(da));
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
        let (lu, pivots, perm) = match self::lu(a) {
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
/// tangent `ȧ`, not its symmetric part: `l̇ = l·Φ(l⁻¹·ȧ·l⁻ᴴ)`, `Φ` taking the lower triangle
/// with the diagonal halved; `l` comes from this function itself (JAX's rule binds
/// `cholesky_p`), so its second derivative takes the same rule. (The IR `cholesky` op's own
/// rule symmetrises `ȧ`; the two agree on symmetric tangents.)
pub(crate) fn cholesky_lower_triangle(a: &Array) -> Result<Array> {
    with_jvp(
        a,
        |a: &Array| Ok(cholesky_of(a, false)),
        |a: &Array, da: &Array| {
            let l = one(cholesky_lower_triangle(a));
            let tmp = triangular_solve_as(&l, da, false, true, TransposeKind::Adjoint, false);
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

/// The rules evaluated on complex128 matrices against central differences of the primal,
/// independently of the autodiff crate: a probe hands [`with_jvp`] the tangents of its
/// arguments, and it returns the rule's output tangents instead of staging a `custom_jvp`.
/// Eigenvectors and singular vectors, unique up to a phase per column, are checked through
/// `|v|²` and reconstructions.
#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    thread_local! {
        static PROBE: RefCell<(Option<Vec<Array>>, Vec<Array>)> =
            const { RefCell::new((None, Vec::new())) };
    }

    pub(super) fn take_probe() -> Option<Vec<Array>> {
        PROBE.with(|p| p.borrow_mut().0.take())
    }

    pub(super) fn answer_probe<R: Tree>(dout: &R) {
        let mut leaves = vec![];
        dout.leaves(&mut leaves);
        PROBE.with(|p| p.borrow_mut().1 = leaves);
    }

    /// `f`'s outputs and the tangents its rule gives for the argument tangents `t`.
    fn rule_of<R: Tree>(f: impl Fn() -> Result<R>, t: Vec<Array>) -> (Vec<Array>, Vec<Array>) {
        PROBE.with(|p| *p.borrow_mut() = (Some(t), vec![]));
        let out = f().unwrap();
        let mut leaves = vec![];
        out.leaves(&mut leaves);
        let dout = PROBE.with(|p| std::mem::take(&mut p.borrow_mut().1));
        assert_eq!(leaves.len(), dout.len(), "the rule ran");
        (leaves, dout)
    }

    fn flat(a: &Array) -> Vec<f64> {
        a.to_tensor().unwrap().to_f64_vec()
    }

    /// A deterministic complex128 array of `shape` with parts in [−1, 1].
    fn noise(shape: &[i64], seed: u64) -> Array {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let n: i64 = shape.iter().product();
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let re: Vec<f64> = (0..n).map(|_| next()).collect();
        let im: Vec<f64> = (0..n).map(|_| next()).collect();
        crate::ops::complex::complex(&Array::from_vec(re, shape), &Array::from_vec(im, shape))
    }

    fn general(m: i64, n: i64, seed: u64) -> Array {
        let e = np::astype(&eye(m, Some(n), 0, DType::F64), DType::C128);
        np::add(
            &noise(&[m, n], seed),
            &np::multiply(&e, &Array::scalar(2.0)),
        )
    }

    fn hermitian_pd(n: i64, seed: u64) -> Array {
        let g = noise(&[n, n], seed);
        let e = np::astype(&eye(n, None, 0, DType::F64), DType::C128);
        np::add(
            &mm(&g, &mh(&g)),
            &np::multiply(&e, &Array::scalar(n as f64)),
        )
    }

    fn abs2(x: &Array) -> Array {
        let a = np::abs(x);
        np::multiply(&a, &a)
    }

    /// `|x|²`'s tangent `2·re(x̄·ẋ)`.
    fn abs2_dot(x: &Array, dx: &Array) -> Array {
        np::multiply(
            &np::real(&np::multiply(&np::conj(x), dx)),
            &Array::scalar(2.0),
        )
    }

    /// `x·diag(d)·y` and its tangent (`d` real).
    fn scaled_product(xs: [&Array; 3], dxs: [&Array; 3]) -> (Array, Array) {
        let c = |d: &Array| np::expand_dims(&np::astype(d, DType::C128), -2);
        let [x, d, y] = xs;
        let [dx, dd, dy] = dxs;
        let p = mm(&np::multiply(x, &c(d)), y);
        let dp = np::add(
            &np::add(
                &mm(&np::multiply(dx, &c(d)), y),
                &mm(&np::multiply(x, &c(dd)), y),
            ),
            &mm(&np::multiply(x, &c(d)), dy),
        );
        (p, dp)
    }

    /// Invariants of a function's outputs (what differences are taken of) and their tangents.
    type Invariants = fn(&[Array], &[Array]) -> (Vec<Array>, Vec<Array>);

    fn as_is(out: &[Array], dout: &[Array]) -> (Vec<Array>, Vec<Array>) {
        (out.to_vec(), dout.to_vec())
    }

    /// `[w, v]` → `[w, |v|², v·diag(w)·vᴴ]`.
    fn eigh_invariants(out: &[Array], dout: &[Array]) -> (Vec<Array>, Vec<Array>) {
        let (w, v, dw, dv) = (&out[0], &out[1], &dout[0], &dout[1]);
        let (p, dp) = scaled_product([v, w, &mh(v)], [dv, dw, &mh(dv)]);
        (
            vec![w.clone(), abs2(v), p],
            vec![dw.clone(), abs2_dot(v, dv), dp],
        )
    }

    /// `[s, u, vh]` → `[s, |u|², |vh|², u·diag(s)·vh]`.
    fn svd_invariants(out: &[Array], dout: &[Array]) -> (Vec<Array>, Vec<Array>) {
        let (s, u, vh, ds, du, dvh) = (&out[0], &out[1], &out[2], &dout[0], &dout[1], &dout[2]);
        let (p, dp) = scaled_product([u, s, vh], [du, ds, dvh]);
        (
            vec![s.clone(), abs2(u), abs2(vh), p],
            vec![ds.clone(), abs2_dot(u, du), abs2_dot(vh, dvh), dp],
        )
    }

    /// Checks the rule of `f` (a function of `args` through one `with_jvp`) along the
    /// directions `dirs` against central differences of `f`, on `invariants`.
    fn check<R: Tree>(
        name: &str,
        args: Vec<Array>,
        dirs: Vec<Array>,
        f: impl Fn(&[Array]) -> Result<R>,
        invariants: Invariants,
    ) -> Vec<String> {
        let (out, dout) = rule_of(|| f(&args), dirs.clone());
        let (_, predicted) = invariants(&out, &dout);
        let h = 1e-6;
        let at = |sign: f64| {
            let moved: Vec<Array> = args
                .iter()
                .zip(&dirs)
                .map(|(a, d)| np::add(a, &np::multiply(d, &Array::scalar(sign * h))))
                .collect();
            let mut leaves = vec![];
            f(&moved).unwrap().leaves(&mut leaves);
            invariants(&leaves, &leaves).0
        };
        let (plus, minus) = (at(1.0), at(-1.0));
        let mut failures = vec![];
        for (k, p) in predicted.iter().enumerate() {
            let (pv, hi, lo) = (flat(p), flat(&plus[k]), flat(&minus[k]));
            let scale = hi.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            let err = pv
                .iter()
                .zip(hi.iter().zip(&lo))
                .map(|(t, (x, y))| (t - (x - y) / (2.0 * h)).abs() / scale)
                .fold(0.0, f64::max);
            if err.is_nan() || err > 1e-6 {
                failures.push(format!(
                    "{name} output {k}: rule differs from differences by {err:e}"
                ));
            }
        }
        failures
    }

    #[test]
    fn complex_rules_match_finite_differences() {
        let sq = general(4, 4, 1);
        let tall = general(5, 3, 2);
        let wide = general(3, 5, 3);
        let herm = hermitian_pd(4, 4);
        let dsq = noise(&[4, 4], 5);
        let dherm = d::symmetrize(&dsq);
        let b = noise(&[4, 2], 6);
        let db = noise(&[4, 2], 7);
        let mut failures = vec![];
        let one = |x: Array| vec![x];
        failures.extend(check(
            "eigh",
            vec![herm.clone()],
            vec![dsq.clone()],
            |x| eigh(&x[0], true).map(|(w, v)| vec![w, v]),
            eigh_invariants,
        ));
        failures.extend(check(
            "eigh_lower",
            vec![herm.clone()],
            vec![dherm.clone()],
            |x| eigh(&x[0], false).map(|(w, v)| vec![w, v]),
            eigh_invariants,
        ));
        failures.extend(check(
            "eigvalsh",
            vec![herm.clone()],
            vec![dsq.clone()],
            |x| eigvalsh(&x[0], true).map(one),
            as_is,
        ));
        for (tag, a) in [("square", &sq), ("tall", &tall), ("wide", &wide)] {
            let da = noise(a.dims(), 8);
            let svd3 = |x: &[Array]| {
                svd(&x[0], false, true).map(|(u, s, vh)| vec![s, u.unwrap(), vh.unwrap()])
            };
            failures.extend(check(
                &format!("svd_{tag}"),
                vec![a.clone()],
                vec![da.clone()],
                svd3,
                svd_invariants,
            ));
            failures.extend(check(
                &format!("svdvals_{tag}"),
                vec![a.clone()],
                vec![da.clone()],
                |x| svd(&x[0], false, false).map(|r| vec![r.1]),
                as_is,
            ));
            failures.extend(check(
                &format!("pinv_{tag}"),
                vec![a.clone()],
                vec![da.clone()],
                |x| pinv(&x[0]).map(one),
                as_is,
            ));
            for mode in ["reduced", "complete", "r"] {
                let qr2 = move |x: &[Array]| {
                    qr(&x[0], mode).map(|(q, r)| q.into_iter().chain([r]).collect::<Vec<_>>())
                };
                failures.extend(check(
                    &format!("qr_{mode}_{tag}"),
                    vec![a.clone()],
                    vec![da.clone()],
                    qr2,
                    as_is,
                ));
            }
            failures.extend(check(
                &format!("lu_{tag}"),
                vec![a.clone()],
                vec![da.clone()],
                |x| lu(&x[0]).map(|(lu, p, perm)| vec![lu, p, perm]),
                as_is,
            ));
        }
        failures.extend(check(
            "det",
            vec![sq.clone()],
            vec![dsq.clone()],
            |x| det(&x[0]).map(one),
            as_is,
        ));
        failures.extend(check(
            "slogdet",
            vec![sq.clone()],
            vec![dsq.clone()],
            |x| slogdet(&x[0]).map(|(s, l)| vec![s, l]),
            as_is,
        ));
        failures.extend(check(
            "inv",
            vec![sq.clone()],
            vec![dsq.clone()],
            |x| inv(&x[0]).map(one),
            as_is,
        ));
        failures.extend(check(
            "solve",
            vec![sq.clone(), b.clone()],
            vec![dsq.clone(), db.clone()],
            |x| solve(&x[0], &x[1]).map(one),
            as_is,
        ));
        failures.extend(check(
            "cholesky",
            vec![herm.clone()],
            vec![dherm.clone()],
            |x| cholesky_lower_triangle(&x[0]).map(one),
            as_is,
        ));
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
