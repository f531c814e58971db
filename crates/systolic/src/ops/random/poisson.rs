//! `poisson`, as JAX 0.10 samples it: Knuth's product of uniforms where `lam < 10` (or NaN),
//! Hörmann's transformed rejection (PTRS) elsewhere.
//!
//! Unlike the gamma sampler, neither method uses per-element keys: each is one batched
//! `while` loop over the whole draw that splits one key per round and draws a full-shape
//! uniform from it, running while any element is unfinished. Both loops always run over the
//! whole shape (the other method's elements get a harmless stand-in `lam`), and in the
//! rejection loop an element that has already accepted takes every later accepted draw too.
//! So a rejection element's value depends on how many rounds the whole draw takes; mirroring
//! the loops exactly (stand-ins included) is what makes every element equal JAX's.

use super::continuous::{draw_shape, try_array};
use super::helpers::{and, any, cst, isnan, not, or};
use super::{split, uniform, Param};
use crate::array::Array;
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::{chlo_unary, convert, weak_float, weak_int};
use systolic_ir::{ChloUnaryOp, DType};

const OP: &str = "random.poisson";

/// Fails unless `dtype` is an integer dtype of 8, 16 or 32 bits.
pub(crate) fn int_dtype(op: &str, dtype: DType) -> Result<(), Error> {
    if dtype.is_integer() && matches!(dtype.bit_width(), 8 | 16 | 32) {
        Ok(())
    } else {
        Err(Error::op(
            op,
            format!(
                "dtype must be an integer dtype of 8, 16 or 32 bits, got {}",
                dtype.numpy_name()
            ),
        ))
    }
}

/// JAX's `i < max_iters` with `max_iters` the largest value of `dtype` (`iinfo` or `finfo`:
/// a guard no draw reaches): the round counter `i` (weak int32) is compared in `dtype`, as JAX promotes it.
pub(crate) fn below_max_iters(op: &str, i: &Array, dtype: DType) -> Array {
    let max = match (dtype.signed_range(), dtype.unsigned_max()) {
        (Some((_, hi)), _) => hi as f64,
        (None, Some(m)) => m as f64,
        _ => match dtype {
            DType::F16 => f64::from(half::f16::MAX),
            DType::BF16 => f64::from(half::bf16::MAX),
            _ => f64::from(f32::MAX),
        },
    };
    np::less(&convert(op, i, dtype, false), &cst(max, dtype))
}

/// The round counter's start (weak int32 0, as JAX's Python `0` in the carry).
pub(crate) fn counter() -> Array {
    weak_int(0)
}

/// The loop of a transformed-rejection sampler as JAX writes it (poisson's PTRS, binomial's
/// BTRS), over the whole `shape`: while some element has not accepted (and the round count is
/// below `dtype`'s cap), split the key in three, draw `u − 0.5` and `v` uniform in `fdtype`
/// from the second and third keys, and let `round(u, v)` propose `k` and say where it is
/// accepted. An accepted proposal overwrites the element's result even if an earlier round
/// accepted it already, as in JAX, so every element depends on how many rounds the draw takes.
pub(crate) fn transformed_rejection(
    op: &str,
    key: &Array,
    shape: &[i64],
    fdtype: DType,
    dtype: DType,
    round: impl Fn(&Array, &Array) -> (Array, Array),
) -> Result<Array, Error> {
    let init = (
        counter(),
        np::full(shape, -1.0, fdtype),
        np::zeros(shape, DType::Bool),
        key.clone(),
    );
    let (_, k_out, _, _) = lax::while_loop(
        |(i, _, accepted, _): &(Array, Array, Array, Array)| {
            and(
                op,
                &any(op, &not(op, accepted)),
                &below_max_iters(op, i, dtype),
            )
        },
        |(i, k_out, accepted, key)| {
            let ks = split(key, 3);
            let u = np::subtract(&uniform(&ks[1], shape, fdtype, 0.0, 1.0), &weak_float(0.5));
            let v = uniform(&ks[2], shape, fdtype, 0.0, 1.0);
            let (k, accept) = round(&u, &v);
            (
                np::add(i, &weak_int(1)),
                np::where_(&accept, &k, k_out),
                or(op, accepted, &accept),
                ks[0].clone(),
            )
        },
        &init,
    )?;
    Ok(k_out)
}

/// Knuth: count the uniforms whose running product stays above `exp(-lam)`, in log space.
fn knuth(key: &Array, lam: &Array, shape: &[i64], dtype: DType) -> Result<Array, Error> {
    let neg_lam = np::negative(lam);
    let init = (
        counter(),
        np::zeros(shape, dtype),
        key.clone(),
        np::zeros(shape, DType::F32),
    );
    let (_, k, _, _) = lax::while_loop(
        |(i, _, _, log_prod): &(Array, Array, Array, Array)| {
            and(
                OP,
                &any(OP, &np::greater(log_prod, &neg_lam)),
                &below_max_iters(OP, i, dtype),
            )
        },
        |(i, k, rng, log_prod)| {
            let ks = split(rng, 2);
            let going = np::greater(log_prod, &neg_lam);
            let k = np::where_(&going, &np::add(k, &weak_int(1)), k);
            let u = uniform(&ks[1], shape, DType::F32, 0.0, 1.0);
            (
                np::add(i, &weak_int(1)),
                k,
                ks[0].clone(),
                np::add(log_prod, &np::log(&u)),
            )
        },
        &init,
    )?;
    Ok(np::subtract(&k, &weak_int(1)))
}

/// Hörmann's PTRS for `lam >= 10`: a rounds of a hat-function proposal `k` from two
/// uniforms, accepted by a quick box test or by `log(v·α/(a/us² + b)) <= -lam + k·log(lam)
/// - lgamma(k + 1)`.
fn rejection(key: &Array, lam: &Array, shape: &[i64], dtype: DType) -> Result<Array, Error> {
    let w = weak_float;
    let log_lam = np::log(lam);
    let b = np::add(&w(0.931), &np::multiply(&w(2.53), &np::sqrt(lam)));
    let a = np::add(&w(-0.059), &np::multiply(&w(0.02483), &b));
    let inv_alpha = np::add(
        &w(1.1239),
        &np::divide(&w(1.1328), &np::subtract(&b, &w(3.4))),
    );
    let v_r = np::subtract(
        &w(0.9277),
        &np::divide(&w(3.6224), &np::subtract(&b, &w(2.0))),
    );
    let k_out = transformed_rejection(OP, key, shape, lam.element_type(), dtype, |u, v| {
        let us = np::subtract(&w(0.5), &np::abs(u));
        let hat = np::add(&np::divide(&np::multiply(&w(2.0), &a), &us), &b);
        let k = np::floor(&np::add(&np::add(&np::multiply(&hat, u), lam), &w(0.43)));
        let s = np::log(&np::divide(
            &np::multiply(v, &inv_alpha),
            &np::add(&np::divide(&a, &np::multiply(&us, &us)), &b),
        ));
        let lgamma = chlo_unary(OP, ChloUnaryOp::Lgamma, &np::add(&k, &w(1.0)));
        let t = np::subtract(
            &np::add(&np::negative(lam), &np::multiply(&k, &log_lam)),
            &lgamma,
        );
        let accept1 = and(
            OP,
            &np::greater_equal(&us, &w(0.07)),
            &np::less_equal(v, &v_r),
        );
        let reject = or(
            OP,
            &np::less(&k, &w(0.0)),
            &and(OP, &np::less(&us, &w(0.013)), &np::greater(v, &us)),
        );
        let accept2 = np::less_equal(&s, &t);
        let accept = or(OP, &accept1, &and(OP, &not(OP, &reject), &accept2));
        (k, accept)
    })?;
    Ok(convert(OP, &k_out, dtype, false))
}

/// `jax.random.poisson(key, lam, shape, dtype)`: Poisson(`lam`) counts in an integer
/// `dtype` of 8, 16 or 32 bits. `lam` is converted to float32 and broadcast to `shape`
/// (default: `lam`'s shape); `lam = 0` gives 0, a NaN `lam` gives -1 (as JAX).
///
/// ```
/// use systolic::{random, Array};
/// use systolic_ir::DType;
/// let lam = Array::from_vec(vec![0.0f32, 2.5, 40.0], &[3]);
/// let k = random::poisson(&random::key(0), &lam, Some(&[2, 3]), DType::I32);
/// let v = k.to_vec::<i32>().unwrap();
/// assert!(v[0] == 0 && v[3] == 0 && v.iter().all(|x| *x >= 0));
/// ```
pub fn poisson(key: &Array, lam: impl Param, shape: Option<&[i64]>, dtype: DType) -> Array {
    try_array!(int_dtype(OP, dtype));
    let lam = lam.to_param();
    let shape = try_array!(draw_shape(OP, shape, &[&lam]));
    let lam = convert(OP, &np::broadcast_to(&lam, &shape), DType::F32, false);
    if shape.iter().product::<i64>() == 0 {
        return np::zeros(&shape, dtype);
    }
    let use_knuth = or(OP, &isnan(&lam), &np::less(&lam, &weak_float(10.0)));
    // Each method runs on the whole shape; the other's elements get a stand-in rate.
    let lam_knuth = np::where_(&use_knuth, &lam, &cst(0.0, DType::F32));
    let lam_rejection = np::where_(&use_knuth, &cst(1e5, DType::F32), &lam);
    let small = try_array!(knuth(key, &lam_knuth, &shape, dtype));
    let large = try_array!(rejection(key, &lam_rejection, &shape, dtype));
    let k = np::where_(&use_knuth, &small, &large);
    np::where_(
        &np::equal(&lam, &cst(0.0, DType::F32)),
        &np::zeros(&[], dtype),
        &k,
    )
}
