//! `jax.nn`'s softmax family: `softmax`, `log_softmax` and `logsumexp`, over one axis or
//! several, each shifted by the maximum (as JAX computes them) so that large logits do not
//! overflow. As in JAX, the shift is held fixed under differentiation (`stop_gradient`): the
//! results do not depend on it, so its derivative (a mask of where each maximum is) would be
//! zero after a whole backward pass of work.

use crate::array::Array;
use crate::numpy as np;
use crate::transforms::stop_gradient::stop_gradient;

/// `softmax(x, axis)` = `exp(x - max) / sum(exp(x - max))` along `axis`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let s = systolic::nn::softmax(&x, -1).to_vec::<f32>().unwrap();
/// assert!((s[2] - 0.66524094).abs() < 1e-6);
/// ```
pub fn softmax(x: &Array, axis: i64) -> Array {
    softmax_axes(x, Some(&[axis]))
}

/// `jax.nn.softmax(x, axis)` over several axes (`None`: all of them); the outputs over those
/// axes sum to 1.
///
/// ```
/// let x = systolic::Array::from_vec(vec![0.0f32, 0.0, 0.0, 0.0], &[2, 2]);
/// let s = systolic::nn::softmax_axes(&x, Some(&[0, -1])).to_vec::<f32>().unwrap();
/// assert_eq!(s, vec![0.25; 4]);
/// ```
pub fn softmax_axes(x: &Array, axes: Option<&[i64]>) -> Array {
    let m = stop_gradient(&np::max(x, axes, true));
    let e = np::exp(&(x - &m));
    let s = np::sum(&e, axes, true);
    &e / &s
}

/// `log_softmax(x, axis)` = `x - max - log(sum(exp(x - max)))` along `axis`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let s = systolic::nn::log_softmax(&x, 0).to_vec::<f32>().unwrap();
/// assert!((s[0] + 2.4076059).abs() < 1e-6);
/// ```
pub fn log_softmax(x: &Array, axis: i64) -> Array {
    log_softmax_axes(x, Some(&[axis]))
}

/// `jax.nn.log_softmax(x, axis)` over several axes (`None`: all of them).
///
/// ```
/// let x = systolic::Array::from_vec(vec![0.0f32; 4], &[2, 2]);
/// let s = systolic::nn::log_softmax_axes(&x, None).to_vec::<f32>().unwrap();
/// assert!(s.iter().all(|v| (v + 4f32.ln()).abs() < 1e-6));
/// ```
pub fn log_softmax_axes(x: &Array, axes: Option<&[i64]>) -> Array {
    let shifted = x - &stop_gradient(&np::max(x, axes, true));
    let lse = np::log(&np::sum(&np::exp(&shifted), axes, true));
    &shifted - &lse
}

/// `logsumexp(x, axis)` = `max + log(sum(exp(x - max)))`, the max taken finite so that an
/// all `-inf` row gives `-inf` rather than NaN.
///
/// ```
/// let x = systolic::Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let l = systolic::nn::logsumexp(&x, 0).to_vec::<f32>().unwrap();
/// assert!((l[0] - 3.4076059).abs() < 1e-6);
/// ```
pub fn logsumexp(x: &Array, axis: i64) -> Array {
    logsumexp_axes(x, Some(&[axis]), false)
}

/// `jax.nn.logsumexp(x, axis, keepdims)` over several axes (`None`: all of them); integer
/// inputs become f32 as in JAX.
///
/// ```
/// let x = systolic::Array::from_vec(vec![0.0f32; 4], &[2, 2]);
/// let l = systolic::nn::logsumexp_axes(&x, Some(&[0, 1]), true);
/// assert_eq!(l.shape(), &[1, 1]);
/// assert!((l.to_vec::<f32>().unwrap()[0] - 4f32.ln()).abs() < 1e-6);
/// ```
pub fn logsumexp_axes(x: &Array, axes: Option<&[i64]>, keepdims: bool) -> Array {
    let x = &crate::ops::elementwise::to_inexact("logsumexp", x);
    let m = np::max(x, axes, true);
    let finite = stop_gradient(&np::where_(&np::is_finite(&m), &m, &np::zeros_like(&m)));
    let s = np::sum(&np::exp(&(x - &finite)), axes, true);
    let r = &np::log(&s) + &finite;
    if keepdims {
        return r;
    }
    match crate::ops::reduce::norm_axes("logsumexp", x, axes) {
        Ok(ax) => np::reshape(&r, &reduced_shape(x.dims(), &ax)),
        Err(e) => Array::failed(e),
    }
}

/// `shape` without the (normalised) dimensions `axes`.
fn reduced_shape(shape: &[i64], axes: &[i64]) -> Vec<i64> {
    (0..shape.len())
        .filter(|d| !axes.contains(&(*d as i64)))
        .map(|d| shape[d])
        .collect()
}
