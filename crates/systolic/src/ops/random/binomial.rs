//! `binomial` and `multinomial`, as JAX 0.10 samples them.
//!
//! Binomial draws reduce `p` to `q = min(p, 1 - p)` and use, per element, inversion (counting
//! geometric gaps until they pass `n`) where `n·q <= 10`, else Hörmann's BTRS rejection. As
//! in `poisson`, each method is one batched `while` loop over the whole shape with one key
//! split per round (the other method's elements get stand-in parameters), and BTRS lets an
//! accepted element take later accepted draws too, so the loops are mirrored exactly.
//! Multinomial is a `scan` over the categories of binomial draws of what is left.

use super::continuous::{draw_shape, float_dtype, try_array};
use super::helpers::{and, any, cst, isnan, not, or, take};
use super::poisson::{below_max_iters, counter, int_dtype, transformed_rejection};
use super::{split, split_array, uniform, Param};
use crate::array::{describe, Array};
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::{convert, to_inexact, weak_float, weak_int};
use systolic_ir::DType;

const OP: &str = "random.binomial";

/// `log(k!) - (k + 1/2)·log(k + 1) + (k + 1) - log(2π)/2` for k = 0..9, the tail of
/// Stirling's approximation BTRS corrects by (TensorFlow's table, which JAX uses).
const STIRLING_TAIL: [f64; 10] = [
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
];

/// JAX's `_stirling_approx_tail(k)`: the table for `k <= 9`, else the series
/// `(1/12 - (1/360 - 1/1260/(k+1)²)/(k+1)²)/(k+1)` — which JAX evaluates at `k` clamped to
/// `[0, 9]`, so every `k > 9` gets the value at 9; reproduced as is.
fn stirling_tail(k: &Array) -> Array {
    let dt = k.element_type();
    let use_table = np::less_equal(k, &weak_float(9.0));
    let kc = lax::clamp(&cst(0.0, dt), k, &cst(9.0, dt));
    let kp1 = np::add(&kc, &weak_int(1));
    let kp1sq = np::multiply(&kp1, &kp1);
    let w = weak_float;
    let inner = np::divide(
        &np::subtract(&w(1.0 / 360.0), &np::divide(&w(1.0 / 1260.0), &kp1sq)),
        &kp1sq,
    );
    let approx = np::divide(&np::subtract(&w(1.0 / 12.0), &inner), &kp1);
    let table = convert(
        OP,
        &Array::from_vec(STIRLING_TAIL.to_vec(), &[10]),
        dt,
        false,
    );
    let idx = convert(OP, &np::floor(&kc), DType::I32, false);
    let size = idx.num_elements() as i64;
    let looked_up = np::reshape(&take(OP, &table, &np::reshape(&idx, &[size]), 0), k.dims());
    np::where_(&use_table, &looked_up, &approx)
}

/// Inversion: the number of geometric(`q`) gaps that fit in `count`, counted per element in
/// one loop (a fresh uniform per round from `split(key)[0]`).
fn inversion(
    key: &Array,
    count: &Array,
    q: &Array,
    shape: &[i64],
    dtype: DType,
) -> Result<Array, Error> {
    let pdt = q.element_type();
    let log1minusprob = np::log1p(&np::negative(q));
    let init = (
        counter(),
        np::zeros(shape, pdt),
        np::zeros(shape, pdt),
        key.clone(),
    );
    let (_, num_geom, _, _) = lax::while_loop(
        |(i, _, geom_sum, _): &(Array, Array, Array, Array)| {
            and(
                OP,
                &any(OP, &np::less_equal(geom_sum, count)),
                &below_max_iters(OP, i, dtype),
            )
        },
        |(i, num_geom, geom_sum, key)| {
            let ks = split(key, 2);
            let going = np::less_equal(geom_sum, count);
            let num_geom = np::where_(&going, &np::add(num_geom, &weak_int(1)), num_geom);
            let u = uniform(&ks[0], shape, pdt, 0.0, 1.0);
            let geom = np::ceil(&np::divide(&np::log(&u), &log1minusprob));
            (
                np::add(i, &weak_int(1)),
                num_geom,
                np::add(geom_sum, &geom),
                ks[1].clone(),
            )
        },
        &init,
    )?;
    Ok(convert(
        OP,
        &np::subtract(&num_geom, &weak_int(1)),
        dtype,
        false,
    ))
}

/// Hörmann's BTRS (transformed rejection with squeeze) for `count·prob > 10`.
fn btrs(
    key: &Array,
    count: &Array,
    prob: &Array,
    shape: &[i64],
    dtype: DType,
) -> Result<Array, Error> {
    let pdt = prob.element_type();
    let w = weak_float;
    let one_minus = np::subtract(&w(1.0), prob);
    let stddev = np::sqrt(&np::multiply(&np::multiply(count, prob), &one_minus));
    let b = np::add(&w(1.15), &np::multiply(&w(2.53), &stddev));
    let a = np::add(
        &np::add(&w(-0.0873), &np::multiply(&w(0.0248), &b)),
        &np::multiply(&w(0.01), prob),
    );
    let c = np::add(&np::multiply(count, prob), &w(0.5));
    let v_r = np::subtract(&w(0.92), &np::divide(&w(4.2), &b));
    let r = np::divide(prob, &one_minus);
    let alpha = np::multiply(&np::add(&w(2.83), &np::divide(&w(5.1), &b)), &stddev);
    let m = np::floor(&np::multiply(&np::add(count, &w(1.0)), prob));
    let k_out = transformed_rejection(OP, key, shape, pdt, dtype, |u, v| {
        let us = np::subtract(&w(0.5), &np::abs(u));
        let accept1 = and(
            OP,
            &np::greater_equal(&us, &w(0.07)),
            &np::less_equal(v, &v_r),
        );
        let hat = np::add(&np::divide(&np::multiply(&w(2.0), &a), &us), &b);
        let k = np::floor(&np::add(&np::multiply(&hat, u), &c));
        let reject = or(OP, &np::less(&k, &w(0.0)), &np::greater(&k, count));
        let v = np::log(&np::divide(
            &np::multiply(v, &alpha),
            &np::add(&np::divide(&a, &np::multiply(&us, &us)), &b),
        ));
        let n_m1 = np::add(&np::subtract(count, &m), &w(1.0));
        let n_k1 = np::add(&np::subtract(count, &k), &w(1.0));
        let k1 = np::add(&k, &w(1.0));
        let t1 = np::multiply(
            &np::add(&m, &w(0.5)),
            &np::log(&np::divide(&np::add(&m, &w(1.0)), &np::multiply(&r, &n_m1))),
        );
        let t2 = np::multiply(
            &np::add(count, &w(1.0)),
            &np::log(&np::divide(&n_m1, &n_k1)),
        );
        let t3 = np::multiply(
            &np::add(&k, &w(0.5)),
            &np::log(&np::divide(&np::multiply(&r, &n_k1), &k1)),
        );
        let ub = np::subtract(
            &np::subtract(
                &np::add(
                    &np::add(&np::add(&np::add(&t1, &t2), &t3), &stirling_tail(&m)),
                    &stirling_tail(&np::subtract(count, &m)),
                ),
                &stirling_tail(&k),
            ),
            &stirling_tail(&np::subtract(count, &k)),
        );
        let accept2 = np::less_equal(&v, &ub);
        let accept = or(OP, &accept1, &and(OP, &not(OP, &reject), &accept2));
        (k, accept)
    })?;
    Ok(convert(OP, &k_out, dtype, false))
}

/// `p` as JAX's `promote_dtypes_inexact` leaves it, checked to be a float the samplers draw.
fn inexact_prob(op: &str, p: &Array) -> Result<Array, Error> {
    p.check()?;
    let p = to_inexact(op, p);
    float_dtype(op, p.element_type()).map_err(|_| {
        Error::op(
            op,
            format!(
                "p must be float32, bfloat16 or float16 (or an integer), got {}",
                describe(p.aval())
            ),
        )
    })?;
    Ok(p)
}

/// `jax.random.binomial(key, n, p, shape, dtype)`: the number of successes in `n` trials of
/// probability `p`, as floats of `dtype`. `n` and `p` broadcast against `shape` (default:
/// their broadcast shape); the draw is computed in `p`'s float dtype (`float32` for a
/// number). `n` is floored; a NaN or negative `n`, or `p` outside `[0, 1]` or NaN, gives
/// NaN; an infinite `n` gives `inf`.
///
/// ```
/// use systolic::{random, Array};
/// use systolic_ir::DType;
/// let n = Array::from_vec(vec![5.0f32, 100.0, 1000.0], &[3]);
/// let b = random::binomial(&random::key(0), &n, 0.3, None, DType::F32);
/// let v = b.to_vec::<f32>().unwrap();
/// assert!(v.iter().zip([5.0, 100.0, 1000.0]).all(|(k, n)| *k >= 0.0 && *k <= n && k.fract() == 0.0));
/// ```
pub fn binomial(
    key: &Array,
    n: impl Param,
    p: impl Param,
    shape: Option<&[i64]>,
    dtype: DType,
) -> Array {
    try_array!(float_dtype(OP, dtype));
    let (n, p) = (n.to_param(), p.to_param());
    try_array!(n.check());
    let shape = try_array!(draw_shape(OP, shape, &[&n, &p]));
    let prob = try_array!(inexact_prob(OP, &p));
    let pdt = prob.element_type();
    let count = np::broadcast_to(&convert(OP, &n, pdt, false), &shape);
    let prob = np::broadcast_to(&prob, &shape);
    if shape.iter().product::<i64>() == 0 {
        return np::zeros(&shape, dtype);
    }
    let w = weak_float;
    let p_lt_half = np::less(&prob, &w(0.5));
    let q = np::where_(&p_lt_half, &prob, &np::subtract(&w(1.0), &prob));
    let count_nan_or_neg = or(OP, &isnan(&count), &np::less(&count, &w(0.0)));
    let count_inf = np::equal(&np::abs(&count), &cst(f64::INFINITY, pdt));
    let q_is_nan = isnan(&q);
    let q_l_0 = np::less(&q, &w(0.0));
    let q = np::where_(&or(OP, &q_is_nan, &q_l_0), &cst(0.01, pdt), &q);
    let use_inversion = or(
        OP,
        &count_nan_or_neg,
        &np::less_equal(&np::multiply(&count, &q), &w(10.0)),
    );
    let count = np::floor(&count);
    // Each method runs on the whole shape; the other's elements get stand-in parameters.
    let count_inv = np::where_(&use_inversion, &count, &cst(0.0, pdt));
    let count_btrs = np::where_(&use_inversion, &cst(1e4, pdt), &count);
    let q_btrs = np::where_(&use_inversion, &cst(0.5, pdt), &q);
    let by_inversion = try_array!(inversion(key, &count_inv, &q, &shape, dtype));
    let by_btrs = try_array!(btrs(key, &count_btrs, &q_btrs, &shape, dtype));
    let samples = np::where_(&use_inversion, &by_inversion, &by_btrs);
    let invalid = or(OP, &or(OP, &q_l_0, &q_is_nan), &count_nan_or_neg);
    let samples = np::where_(&invalid, &cst(f64::NAN, dtype), &samples);
    let samples = np::where_(
        &and(OP, &count_inf, &not(OP, &invalid)),
        &cst(f64::INFINITY, dtype),
        &samples,
    );
    // Successes of `q = 1 - p` were drawn where p >= 1/2: count the failures instead.
    let keep = or(
        OP,
        &or(OP, &or(OP, &p_lt_half, &count_nan_or_neg), &q_is_nan),
        &count_inf,
    );
    let flipped = np::subtract(&convert(OP, &count, dtype, false), &samples);
    np::where_(&keep, &samples, &flipped)
}

/// `jax.random.multinomial(key, n, p, shape, dtype)`: counts of `n` trials over the
/// outcomes along `p`'s last axis. `shape` is the full result shape (default `p`'s shape;
/// its last dimension is the outcomes'); `n` broadcasts to `shape[:-1]`, `p` to `shape`.
/// Category `j` draws `binomial(n - counts so far, p[j] / sum(p[j..]))` with the `j`-th key
/// of `split(key, k)`, in a `scan` as JAX does, computed in the promoted float dtype of `n`
/// and `p`; `dtype` (float, or an integer dtype of 8–32 bits) is the result's.
///
/// ```
/// use systolic::{random, Array};
/// use systolic_ir::DType;
/// let p = Array::from_vec(vec![0.2f32, 0.3, 0.5], &[3]);
/// let c = random::multinomial(&random::key(0), 20, &p, Some(&[4, 3]), DType::I32);
/// let v = c.to_vec::<i32>().unwrap();
/// assert!(v.chunks(3).all(|row| row.iter().sum::<i32>() == 20));
/// ```
pub fn multinomial(
    key: &Array,
    n: impl Param,
    p: &Array,
    shape: Option<&[i64]>,
    dtype: DType,
) -> Array {
    const OP: &str = "random.multinomial";
    if float_dtype(OP, dtype).is_err() && int_dtype(OP, dtype).is_err() {
        return Array::failed(Error::op(
            OP,
            format!(
                "dtype must be float32, bfloat16, float16 or an integer dtype of 8, 16 or 32 \
                 bits, got {}",
                dtype.numpy_name()
            ),
        ));
    }
    let n = n.to_param();
    try_array!(n.check());
    try_array!(p.check());
    if p.rank() == 0 {
        return Array::failed(Error::op(
            OP,
            format!(
                "p must have rank >= 1 (outcomes along its last axis), got {}",
                describe(p.aval())
            ),
        ));
    }
    let shape = shape.map_or_else(|| p.dims().to_vec(), <[i64]>::to_vec);
    let Some((&k, batch)) = shape.split_last() else {
        return Array::failed(Error::op(
            OP,
            "shape must have rank >= 1 (its last dimension is the outcomes'), got []",
        ));
    };
    try_array!(super::helpers::check_param_shapes(OP, &shape, &[p]));
    try_array!(super::helpers::check_param_shapes(OP, batch, &[&n]));
    let (common, weak) = crate::core::promote::result_type(&[
        (n.element_type(), n.weak_type()),
        (p.element_type(), p.weak_type()),
    ]);
    let fdt = if common.is_float() {
        common
    } else {
        DType::F32
    };
    if float_dtype(OP, fdt).is_err() {
        return Array::failed(Error::op(
            OP,
            format!(
                "n and p must promote to float32, bfloat16 or float16, got {} and {}",
                describe(n.aval()),
                describe(p.aval())
            ),
        ));
    }
    if shape.iter().product::<i64>() == 0 {
        return np::zeros(&shape, dtype);
    }
    let n = np::broadcast_to(&convert(OP, &n, fdt, weak), batch);
    let p = np::broadcast_to(&convert(OP, p, fdt, weak), &shape);
    let p = np::moveaxis(&p, -1, 0);
    let remaining = lax::cumsum(&p, 0, true);
    let zero_left = np::equal(&remaining, &weak_float(0.0));
    let ratios = np::divide(&p, &np::where_(&zero_left, &weak_int(1), &remaining));
    let keys = split_array(key, k);
    let scanned = lax::scan(
        |rem: &Array, (ratio, key): &(Array, Array)| {
            let prob = np::clip(ratio, &weak_int(0), &weak_int(1));
            let count = binomial(key, rem, &prob, None, rem.element_type());
            (np::subtract(rem, &count), count)
        },
        &n,
        &(ratios, keys),
        None,
        false,
    );
    let (_, counts) = try_array!(scanned);
    convert(OP, &np::moveaxis(&counts, 0, -1), dtype, false)
}
