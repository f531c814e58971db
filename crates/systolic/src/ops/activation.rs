//! `jax.nn`'s activation functions, built from the numpy ops (so they trace and run eagerly
//! alike) with JAX's formulas: `relu` and its variants, `sigmoid`/`silu`/`gelu`, `softplus`
//! and `log_sigmoid`, the ELU family, the hard (piecewise-linear) ones and `glu`.

use crate::array::Array;
use crate::numpy as np;
use crate::ops::elementwise::{convert, weak_float, weak_int};

/// `max(x, 0)`; the zero takes `x`'s dtype.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-1.0f32, 0.5], &[2]);
/// assert_eq!(systolic::nn::relu(&x).to_vec::<f32>().unwrap(), vec![0.0, 0.5]);
/// ```
pub fn relu(x: &Array) -> Array {
    let zero = convert("relu", &crate::weak_float(0.0), x.element_type(), true);
    np::maximum(x, &zero)
}

/// The logistic sigmoid `1 / (1 + e^-x)`.
pub fn sigmoid(x: &Array) -> Array {
    np::sigmoid(x)
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
        let a = crate::ops::shape::norm_axis("glu", x, axis, x.rank())?;
        if x.dims()[a] % 2 != 0 {
            return Err(crate::Error::op(
                "glu",
                format!(
                    "axis {axis} of {} must have an even length",
                    crate::array::describe(x.aval())
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
