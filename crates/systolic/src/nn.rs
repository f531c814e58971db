//! `jax.nn`-style functions built from the numpy ops (so they trace and run eagerly alike).

use crate::array::Array;
use crate::numpy as np;
use crate::ops::elementwise::{convert, weak_float, weak_int};

pub use crate::ops::attention::dot_product_attention;
pub use crate::ops::norm::{layer_norm, rms_norm, standardize};

/// `max(x, 0)`; the zero takes `x`'s dtype.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-1.0f32, 0.5], &[2]);
/// assert_eq!(systolic::nn::relu(&x).to_vec::<f32>().unwrap(), vec![0.0, 0.5]);
/// ```
pub fn relu(x: &Array) -> Array {
    let zero = convert("relu", &crate::weak_float(0.0), x.dtype(), true);
    np::maximum(x, &zero)
}

/// The logistic sigmoid `1 / (1 + e^-x)`.
pub fn sigmoid(x: &Array) -> Array {
    np::sigmoid(x)
}

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
    let m = np::max(x, axes, true);
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
    let shifted = x - &np::max(x, axes, true);
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
    let finite = np::where_(&np::is_finite(&m), &m, &np::zeros_like(&m));
    let s = np::sum(&np::exp(&(x - &finite)), axes, true);
    let r = &np::log(&s) + &finite;
    if keepdims {
        return r;
    }
    match crate::ops::reduce::norm_axes("logsumexp", x, axes) {
        Ok(ax) => np::reshape(&r, &reduced_shape(x.shape(), &ax)),
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

/// `x · sigmoid(x)`.
pub fn silu(x: &Array) -> Array {
    x * &np::sigmoid(x)
}

/// GELU: the tanh approximation (JAX's default, `approximate = true`) or the exact
/// `x/2 · (1 + erf(x/√2))`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![1.0f32], &[1]);
/// let a = systolic::nn::gelu(&x, true).to_vec::<f32>().unwrap()[0];
/// let e = systolic::nn::gelu(&x, false).to_vec::<f32>().unwrap()[0];
/// assert!((a - 0.841192).abs() < 1e-6 && (e - 0.8413447).abs() < 1e-6);
/// ```
pub fn gelu(x: &Array, approximate: bool) -> Array {
    if approximate {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        let cube = &(x * x) * x;
        let inner = &(x + &(&cube * 0.044715)) * c;
        &(x * 0.5) * &(&np::tanh(&inner) + 1.0)
    } else {
        let e = np::erf(&(x * std::f64::consts::FRAC_1_SQRT_2));
        &(x * 0.5) * &(&e + 1.0)
    }
}

/// `one_hot(indices, num_classes, dtype)`: `indices[..., None] == iota(num_classes)`;
/// out-of-range and negative indices give all-zero rows, as in JAX.
///
/// ```
/// let i = systolic::Array::from_vec(vec![0i32, 2, -1, 3], &[4]);
/// let h = systolic::nn::one_hot(&i, 3, systolic_ir::DType::F32);
/// assert_eq!(h.shape(), &[4, 3]);
/// assert_eq!(
///     h.to_vec::<f32>().unwrap(),
///     vec![1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
/// );
/// ```
pub fn one_hot(indices: &Array, num_classes: i64, dtype: systolic_ir::DType) -> Array {
    let mut shape = indices.shape().to_vec();
    shape.push(num_classes);
    let classes = crate::lax::iota(indices.dtype(), &shape, shape.len() as i64 - 1);
    let expanded = np::expand_dims(indices, -1);
    convert("one_hot", &np::equal(&expanded, &classes), dtype, false)
}

/// `jax.nn.softplus(x)` = `log(1 + e^x)`, computed as `logaddexp(x, 0)` so that large `x`
/// gives `x` instead of overflowing (ints become f32).
///
/// ```
/// let x = systolic::Array::from_vec(vec![0.0f32, 100.0, -100.0], &[3]);
/// let y = systolic::nn::softplus(&x).to_vec::<f32>().unwrap();
/// assert!((y[0] - std::f32::consts::LN_2).abs() < 1e-7 && y[1] == 100.0 && y[2] < 1e-40);
/// ```
pub fn softplus(x: &Array) -> Array {
    np::logaddexp(x, &weak_int(0))
}

/// `jax.nn.log_sigmoid(x)` = `-softplus(-x)`: `log(sigmoid(x))` without underflow for very
/// negative `x`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-100.0f32, 0.0], &[2]);
/// let y = systolic::nn::log_sigmoid(&x).to_vec::<f32>().unwrap();
/// assert_eq!(y[0], -100.0);
/// assert!((y[1] + std::f32::consts::LN_2).abs() < 1e-7);
/// ```
pub fn log_sigmoid(x: &Array) -> Array {
    -softplus(&-x)
}

/// `jax.nn.elu(x, alpha)`: `x` where `x > 0`, else `alpha · (e^x − 1)`; the exponential is
/// taken of `min(x, 0)` only, so large `x` never overflows it.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-1.0f32, 2.0], &[2]);
/// let y = systolic::nn::elu(&x, 1.0).to_vec::<f32>().unwrap();
/// assert!((y[0] + 0.63212055).abs() < 1e-7 && y[1] == 2.0);
/// ```
pub fn elu(x: &Array, alpha: f64) -> Array {
    let pos = np::greater(x, &weak_int(0));
    let neg_part = np::expm1(&np::where_(&pos, &weak_float(0.0), x));
    np::where_(&pos, x, &(&neg_part * alpha))
}

/// `jax.nn.selu(x)`: `λ · elu(x, α)` with the self-normalising constants λ ≈ 1.0507 and
/// α ≈ 1.6733.
///
/// ```
/// let x = systolic::Array::from_vec(vec![1.0f32], &[1]);
/// assert!((systolic::nn::selu(&x).to_vec::<f32>().unwrap()[0] - 1.050701).abs() < 1e-6);
/// ```
pub fn selu(x: &Array) -> Array {
    const ALPHA: f64 = 1.673_263_242_354_377_3;
    const SCALE: f64 = 1.050_700_987_355_480_5;
    &elu(x, ALPHA) * SCALE
}

/// `jax.nn.celu(x, alpha)` = `max(x, 0) + alpha · (e^(min(x, 0)/alpha) − 1)`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-2.0f32, 3.0], &[2]);
/// let y = systolic::nn::celu(&x, 2.0).to_vec::<f32>().unwrap();
/// assert!((y[0] + 1.2642411).abs() < 1e-6 && y[1] == 3.0);
/// ```
pub fn celu(x: &Array, alpha: f64) -> Array {
    let pos = np::maximum(x, &weak_float(0.0));
    let neg = &np::minimum(x, &weak_float(0.0)) / alpha;
    &pos + &(&np::expm1(&neg) * alpha)
}

/// `jax.nn.leaky_relu(x, negative_slope)`: `x` where `x >= 0`, else `negative_slope · x`
/// (JAX's default slope is 0.01).
///
/// ```
/// let x = systolic::Array::from_vec(vec![-2.0f32, 3.0], &[2]);
/// assert_eq!(systolic::nn::leaky_relu(&x, 0.5).to_vec::<f32>().unwrap(), vec![-1.0, 3.0]);
/// ```
pub fn leaky_relu(x: &Array, negative_slope: f64) -> Array {
    np::where_(
        &np::greater_equal(x, &weak_int(0)),
        x,
        &(x * negative_slope),
    )
}

/// `jax.nn.relu6(x)` = `min(max(x, 0), 6)`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-1.0f32, 3.0, 7.0], &[3]);
/// assert_eq!(systolic::nn::relu6(&x).to_vec::<f32>().unwrap(), vec![0.0, 3.0, 6.0]);
/// ```
pub fn relu6(x: &Array) -> Array {
    np::minimum(&np::maximum(x, &weak_int(0)), &weak_float(6.0))
}

/// `jax.nn.hard_tanh(x)`: `x` clipped to `[-1, 1]` (NaN stays NaN).
///
/// ```
/// let x = systolic::Array::from_vec(vec![-3.0f32, 0.5, 2.0], &[3]);
/// assert_eq!(systolic::nn::hard_tanh(&x).to_vec::<f32>().unwrap(), vec![-1.0, 0.5, 1.0]);
/// ```
pub fn hard_tanh(x: &Array) -> Array {
    let lower = np::where_(&np::less(x, &weak_int(-1)), &weak_int(-1), x);
    np::where_(&np::greater(x, &weak_int(1)), &weak_int(1), &lower)
}

/// `jax.nn.hard_sigmoid(x)` = `relu6(x + 3) / 6`, a piecewise-linear sigmoid.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-4.0f32, 0.0, 4.0], &[3]);
/// assert_eq!(systolic::nn::hard_sigmoid(&x).to_vec::<f32>().unwrap(), vec![0.0, 0.5, 1.0]);
/// ```
pub fn hard_sigmoid(x: &Array) -> Array {
    &relu6(&(x + 3.0)) / 6.0
}

/// `jax.nn.hard_silu(x)` (= `hard_swish`) = `x · hard_sigmoid(x)`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-4.0f32, 1.0, 4.0], &[3]);
/// let y = systolic::nn::hard_silu(&x).to_vec::<f32>().unwrap();
/// assert_eq!(y[0], 0.0);
/// assert!((y[1] - 2.0 / 3.0).abs() < 1e-7 && y[2] == 4.0);
/// ```
pub fn hard_silu(x: &Array) -> Array {
    x * &hard_sigmoid(x)
}

/// `jax.nn.glu(x, axis)`: the first half of `x` along `axis` gated by the sigmoid of the
/// second half; the axis length must be even.
///
/// ```
/// let x = systolic::Array::from_vec(vec![2.0f32, 0.0], &[2]);
/// assert_eq!(systolic::nn::glu(&x, -1).to_vec::<f32>().unwrap(), vec![1.0]);
/// let odd = systolic::Array::from_vec(vec![1.0f32; 3], &[3]);
/// assert!(systolic::nn::glu(&odd, 0).check().unwrap_err().to_string().contains("glu"));
/// ```
pub fn glu(x: &Array, axis: i64) -> Array {
    let halves = x.check().and_then(|_| {
        let a = crate::ops::shape::norm_axis("glu", x, axis, x.ndim())?;
        if x.shape()[a] % 2 != 0 {
            return Err(crate::Error::op(
                "glu",
                format!(
                    "axis {axis} of {} must have an even length",
                    crate::array::describe(x.ty())
                ),
            ));
        }
        np::split(x, np::Split::Sections(2), axis)
    });
    match halves {
        Ok(h) => &h[0] * &np::sigmoid(&h[1]),
        Err(e) => Array::failed(e),
    }
}
