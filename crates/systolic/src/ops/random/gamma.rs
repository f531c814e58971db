//! The gamma family: `gamma`, `loggamma`, and what JAX builds on them (`beta`, `dirichlet`,
//! `chisquare`, `student_t`, `f`, `generalized_normal`).
//!
//! JAX samples each element with Marsaglia and Tsang's rejection method from its own key
//! (`split(key, n)`): an outer `while` loop draws `(X, V, U)` until the squeeze or the log
//! test accepts, and each round's inner `while` redraws a normal until `v = 1 + c·x > 0`.
//! Under `jit` JAX runs them vmapped, which batches each loop into one that runs while any
//! element still loops and updates only those elements. Systolic emits exactly those batched
//! loops with [`lax::while_loop`], so every element's draw equals JAX's however many rounds
//! it takes.

use super::continuous::{draw_shape, float_dtype, try_array};
use super::helpers::{and, any, cst, or};
use super::keys::Keys;
use super::{normal, normal_from, split, uniform_from, Param};
use crate::array::{describe, Array};
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::convert;
use systolic_ir::DType;

const OP: &str = "random.gamma";

/// Marsaglia–Tsang's test on `(X, V, U) = (x², v³, u)`: true while the element must draw
/// again (neither the squeeze `U < 1 - 0.0331·X²` nor `log U < X/2 + d·(1 - V + log V)`
/// accepts). The initial `(0, 1, 2)` fails both, so every element draws at least once.
fn draws_again(d: &Array, xx: &Array, vv: &Array, uu: &Array) -> Array {
    let dt = d.element_type();
    let one = cst(1.0, dt);
    let squeeze = np::subtract(&one, &np::multiply(&cst(0.0331, dt), &np::multiply(xx, xx)));
    let lhs = np::log(uu);
    let rhs = np::add(
        &np::multiply(xx, &cst(0.5, dt)),
        &np::multiply(d, &np::add(&np::subtract(&one, vv), &np::log(vv))),
    );
    and(
        OP,
        &np::greater_equal(uu, &squeeze),
        &np::greater_equal(&lhs, &rhs),
    )
}

/// The inner loop of one round, for the elements where `active` holds: from each element's
/// key, split off a subkey and draw `x ~ N(0, 1)` until `v = 1 + x·c > 0`. Returns `(x, v)`
/// (`(0, -1)` where not active; the caller discards those).
fn positive_v(keys: &Keys, active: &Array, c: &Array) -> Result<(Array, Array), Error> {
    let dt = c.element_type();
    let n = c.dims().to_vec();
    let zero = cst(0.0, dt);
    let redo = |v: &Array| and(OP, active, &np::less_equal(v, &zero));
    let init = (
        keys.k0.clone(),
        keys.k1.clone(),
        np::zeros(&n, dt),
        np::full(&n, -1.0, dt),
    );
    let (_, _, x, v) = lax::while_loop(
        |(_, _, _, v): &(Array, Array, Array, Array)| any(OP, &redo(v)),
        |(k0, k1, x, v)| {
            let again = redo(v);
            let key = Keys {
                k0: k0.clone(),
                k1: k1.clone(),
            };
            let ks = key.split(2);
            let xn = normal_from(&ks[1].words(), &n, dt);
            let vn = np::add(&cst(1.0, dt), &np::multiply(&xn, c));
            let key = ks[0].select(&again, &key);
            (
                key.k0,
                key.k1,
                np::where_(&again, &xn, x),
                np::where_(&again, &vn, v),
            )
        },
        &init,
    )?;
    Ok((x, v))
}

/// JAX's `_gamma_one` for every element of `alpha` (rank 1) with its own key.
fn gamma_one(keys: &Keys, alpha: &Array, log_space: bool) -> Result<Array, Error> {
    let dt = alpha.element_type();
    let n = alpha.dims().to_vec();
    let c_ = |v: f64| cst(v, dt);
    let (zero, one) = (c_(0.0), c_(1.0));
    // alpha < 1 samples Gamma(alpha + 1) and boosts it by U^(1/alpha) at the end.
    let boost_mask = np::greater_equal(alpha, &one);
    let alpha_b = np::where_(&boost_mask, alpha, &np::add(alpha, &one));
    let d = np::subtract(&alpha_b, &c_(1.0 / 3.0));
    let c = np::divide(&c_(1.0 / 3.0), &np::sqrt(&d));
    let ks = keys.split(2);
    let subkey = &ks[1];
    let full = |v: f64| np::broadcast_to(&c_(v), &n);
    type Carry = (Array, Array, Array, Array, Array);
    let init: Carry = (
        ks[0].k0.clone(),
        ks[0].k1.clone(),
        full(0.0),
        full(1.0),
        full(2.0),
    );
    let (_, _, _, vv, _) = lax::while_loop(
        |(_, _, xx, vv, uu): &Carry| any(OP, &draws_again(&d, xx, vv, uu)),
        |(k0, k1, xx, vv, uu)| {
            let active = draws_again(&d, xx, vv, uu);
            let key = Keys {
                k0: k0.clone(),
                k1: k1.clone(),
            };
            let k3 = key.split(3);
            let (x, v) = positive_v(&k3[1], &active, &c)
                .unwrap_or_else(|e| (Array::failed(e.clone()), Array::failed(e)));
            let xn = np::multiply(&x, &x);
            let vn = np::multiply(&np::multiply(&v, &v), &v);
            let un = uniform_from(&k3[2].words(), &n, dt, 0.0, 1.0);
            let key = k3[0].select(&active, &key);
            (
                key.k0,
                key.k1,
                np::where_(&active, &xn, xx),
                np::where_(&active, &vn, vv),
                np::where_(&active, &un, uu),
            )
        },
        &init,
    )?;
    let inv_alpha = np::divide(&one, alpha);
    Ok(if log_space {
        // log U = -Exponential, from log1p(-u) as JAX's `exponential` draws it.
        let u = uniform_from(&subkey.words(), &n, dt, 0.0, 1.0);
        let log_samples = np::negative(&np::negative(&np::log1p(&np::negative(&u))));
        let keep = or(OP, &boost_mask, &np::equal(&log_samples, &zero));
        let log_boost = np::where_(&keep, &zero, &np::multiply(&log_samples, &inv_alpha));
        np::add(&np::add(&np::log(&d), &np::log(&vv)), &log_boost)
    } else {
        let samples = np::subtract(&one, &uniform_from(&subkey.words(), &n, dt, 0.0, 1.0));
        let boost = np::where_(&boost_mask, &one, &np::power(&samples, &inv_alpha));
        np::multiply(&np::multiply(&d, &vv), &boost)
    })
}

/// JAX's `_gamma`: `a` converted and broadcast to the draw shape, one key per element.
fn gamma_impl(
    op: &str,
    key: &Array,
    a: impl Param,
    shape: Option<&[i64]>,
    dtype: DType,
    log_space: bool,
) -> Array {
    try_array!(float_dtype(op, dtype));
    let a = a.to_param();
    try_array!(a.check());
    let shape = try_array!(draw_shape(op, shape, &[&a]));
    let a = np::broadcast_to(&convert(op, &a, dtype, false), &shape);
    let n: i64 = shape.iter().product();
    if n == 0 {
        return np::zeros(&shape, dtype);
    }
    let keys = Keys::from_split(key, n);
    let g = try_array!(gamma_one(&keys, &np::reshape(&a, &[n]), log_space));
    np::reshape(&g, &shape)
}

/// `jax.random.gamma(key, a, shape, dtype)`: Gamma(`a`, 1) draws by Marsaglia–Tsang
/// rejection (`a < 1` boosted through `Gamma(a+1)·U^(1/a)`), one key per element, as JAX
/// samples them. `shape = None` takes `a`'s shape.
///
/// ```
/// use systolic::random;
/// let g = random::gamma(&random::key(0), 2.5, Some(&[3]), systolic_ir::DType::F32);
/// assert!(g.to_vec::<f32>().unwrap().iter().all(|x| *x > 0.0));
/// ```
pub fn gamma(key: &Array, a: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    gamma_impl("random.gamma", key, a, shape, dtype, false)
}

/// `jax.random.loggamma(key, a, shape, dtype)`: the log of a Gamma(`a`, 1) draw, computed in
/// log space (accurate for small `a`).
///
/// ```
/// use systolic::random;
/// let g = random::loggamma(&random::key(0), 0.1, Some(&[3]), systolic_ir::DType::F32);
/// assert!(g.to_vec::<f32>().unwrap().iter().all(|x| x.is_finite()));
/// ```
pub fn loggamma(key: &Array, a: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    gamma_impl("random.loggamma", key, a, shape, dtype, true)
}

/// `jax.random.beta(key, a, b, shape, dtype)`: `Ga / (Ga + Gb)` from two log-gamma draws
/// (keys split from `key`), scaled by their maximum to avoid underflow. `shape = None`
/// broadcasts `a` and `b`.
///
/// ```
/// use systolic::random;
/// let b = random::beta(&random::key(0), 2.0, 3.0, Some(&[3]), systolic_ir::DType::F32);
/// assert!(b.to_vec::<f32>().unwrap().iter().all(|x| (0.0..=1.0).contains(x)));
/// ```
pub fn beta(
    key: &Array,
    a: impl Param,
    b: impl Param,
    shape: Option<&[i64]>,
    dtype: DType,
) -> Array {
    const OP: &str = "random.beta";
    try_array!(float_dtype(OP, dtype));
    let (a, b) = (a.to_param(), b.to_param());
    let shape = try_array!(draw_shape(OP, shape, &[&a, &b]));
    let a = np::broadcast_to(&convert(OP, &a, dtype, false), &shape);
    let b = np::broadcast_to(&convert(OP, &b, dtype, false), &shape);
    let ks = split(key, 2);
    let lga = loggamma(&ks[0], &a, Some(&shape), dtype);
    let lgb = loggamma(&ks[1], &b, Some(&shape), dtype);
    let log_max = np::maximum(&lga, &lgb);
    let ga = np::exp(&np::subtract(&lga, &log_max));
    let gb = np::exp(&np::subtract(&lgb, &log_max));
    np::divide(&ga, &np::add(&ga, &gb))
}

/// `jax.random.dirichlet(key, alpha, shape, dtype)`: `softmax` of log-gamma draws over the
/// last axis of `alpha` (rank ≥ 1). `shape` is the batch shape (default `alpha`'s without
/// its last axis); the result appends `alpha`'s last dimension.
///
/// ```
/// use systolic::{random, Array};
/// let alpha = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let d = random::dirichlet(&random::key(0), &alpha, Some(&[2]), systolic_ir::DType::F32);
/// let v = d.to_vec::<f32>().unwrap();
/// assert!(v.chunks(3).all(|r| (r.iter().sum::<f32>() - 1.0).abs() < 1e-5));
/// ```
pub fn dirichlet(key: &Array, alpha: &Array, shape: Option<&[i64]>, dtype: DType) -> Array {
    const OP: &str = "random.dirichlet";
    try_array!(float_dtype(OP, dtype));
    try_array!(alpha.check());
    let Some((&k, batch)) = alpha.dims().split_last() else {
        return Array::failed(Error::op(
            OP,
            format!("alpha must have rank >= 1, got {}", describe(alpha.aval())),
        ));
    };
    let probe = np::zeros(batch, dtype);
    let mut shape = try_array!(draw_shape(OP, shape, &[&probe]));
    shape.push(k);
    let lg = loggamma(key, convert(OP, alpha, dtype, false), Some(&shape), dtype);
    crate::nn::softmax(&lg, -1)
}

/// `jax.random.chisquare(key, df, shape, dtype)`: `2·exp(loggamma(df/2))`. `shape = None`
/// takes `df`'s shape.
///
/// ```
/// use systolic::random;
/// let c = random::chisquare(&random::key(0), 3.0, Some(&[3]), systolic_ir::DType::F32);
/// assert!(c.to_vec::<f32>().unwrap().iter().all(|x| *x > 0.0));
/// ```
pub fn chisquare(key: &Array, df: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    const OP: &str = "random.chisquare";
    try_array!(float_dtype(OP, dtype));
    let df = df.to_param();
    let shape = try_array!(draw_shape(OP, shape, &[&df]));
    let df = convert(OP, &df, dtype, false);
    let half_df = np::divide(&df, &cst(2.0, dtype));
    let log_g = loggamma(key, &half_df, Some(&shape), dtype);
    np::multiply(&np::exp(&log_g), &cst(2.0, dtype))
}

/// `jax.random.t(key, df, shape, dtype)` (Student's t): `normal · sqrt((df/2) / gamma(df/2))`
/// with the normal and gamma draws on keys split from `key`. `shape = None` takes `df`'s
/// shape.
///
/// ```
/// use systolic::random;
/// let t = random::student_t(&random::key(0), 5.0, Some(&[3]), systolic_ir::DType::F32);
/// assert!(t.to_vec::<f32>().unwrap().iter().all(|x| x.is_finite()));
/// ```
pub fn student_t(key: &Array, df: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    const OP: &str = "random.t";
    try_array!(float_dtype(OP, dtype));
    let df = df.to_param();
    let shape = try_array!(draw_shape(OP, shape, &[&df]));
    let df = convert(OP, &df, dtype, false);
    let ks = split(key, 2);
    let n = normal(&ks[0], &shape, dtype);
    let half_df = np::divide(&df, &cst(2.0, dtype));
    let g = gamma(&ks[1], &half_df, Some(&shape), dtype);
    np::multiply(&n, &np::sqrt(&np::divide(&half_df, &g)))
}

/// `jax.random.f(key, dfnum, dfden, shape, dtype)` (Fisher's F): the ratio of two chi-square
/// draws scaled by their degrees of freedom, `(χ²(dfnum)/dfnum) / (χ²(dfden)/dfden)` (the
/// denominator's key first in the split, as JAX). `shape = None` broadcasts the parameters.
///
/// ```
/// use systolic::random;
/// let f = random::f(&random::key(0), 3.0, 7.0, Some(&[3]), systolic_ir::DType::F32);
/// assert!(f.to_vec::<f32>().unwrap().iter().all(|x| *x > 0.0));
/// ```
pub fn f(
    key: &Array,
    dfnum: impl Param,
    dfden: impl Param,
    shape: Option<&[i64]>,
    dtype: DType,
) -> Array {
    const OP: &str = "random.f";
    try_array!(float_dtype(OP, dtype));
    let (dfnum, dfden) = (dfnum.to_param(), dfden.to_param());
    let shape = try_array!(draw_shape(OP, shape, &[&dfnum, &dfden]));
    let dfden = convert(OP, &dfden, dtype, false);
    let dfnum = convert(OP, &dfnum, dtype, false);
    let ks = split(key, 2);
    let chi2_dfn = chisquare(&ks[1], &dfnum, Some(&shape), dtype);
    let chi2_dfd = chisquare(&ks[0], &dfden, Some(&shape), dtype);
    np::divide(
        &np::divide(&chi2_dfn, &dfnum),
        &np::divide(&chi2_dfd, &dfden),
    )
}

/// `jax.random.generalized_normal(key, p, shape, dtype)`: `sign · G^(1/p)` with
/// `G ~ Gamma(1/p)` and a Rademacher sign (keys split from `key`).
///
/// ```
/// use systolic::random;
/// let g = random::generalized_normal(&random::key(0), 2.0, &[3], systolic_ir::DType::F32);
/// assert!(g.to_vec::<f32>().unwrap().iter().all(|x| x.is_finite()));
/// ```
pub fn generalized_normal(key: &Array, p: f64, shape: &[i64], dtype: DType) -> Array {
    try_array!(float_dtype("random.generalized_normal", dtype));
    let ks = split(key, 2);
    let g = gamma(&ks[0], 1.0 / p, Some(shape), dtype);
    let r = super::rademacher(&ks[1], shape, dtype);
    np::multiply(
        &r,
        &np::power(&g, &crate::ops::elementwise::weak_float(1.0 / p)),
    )
}
