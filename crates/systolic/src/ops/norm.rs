//! Normalisation: `jax.nn.standardize` and the layer/RMS norm computations of flax's
//! `LayerNorm`/`RMSNorm` modules, as functions of explicit `scale`/`bias` arrays.
//!
//! Statistics follow flax's `_compute_stats` with its default `use_fast_variance=True`:
//! the input is promoted to at least f32 (bf16/f16 inputs are reduced in f32), then
//! `mean = mean(x)` and `var = max(0, mean(x²) − mean²)` — one pass, clipped because the
//! difference can round below zero. RMS norm uses `var = mean(x²)` and no centring. The output
//! follows flax's `_normalize`: `(x − mean) · (rsqrt(var + eps) · scale) + bias`, converted to
//! the promoted dtype of `x`, `scale` and `bias` (so a bf16 input with f32 parameters gives
//! f32, as a flax module with f32 parameters and `dtype=None` does).

use crate::array::{describe, Array};
use crate::error::Error;
use crate::numpy as np;
use crate::ops::elementwise::{convert, promote_args, weak_int};
use crate::ops::reduce::norm_axes;
use systolic_ir::DType;

/// `jax.nn.standardize(x, axis, epsilon=eps)` with JAX's default ("fast") variance:
/// `(x − mean) · rsqrt(max(mean(x²) − mean², 0) + eps)` over `axis` (`None`: all axes). The
/// statistics keep `x`'s dtype (a bf16 mean is accumulated in f32 and rounded, as `jnp.mean`
/// does); ints become f32.
///
/// ```
/// use systolic::{nn, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let y = nn::standardize(&x, Some(&[-1]), 1e-5).to_vec::<f32>().unwrap();
/// assert!((y[0] + 0.99998).abs() < 1e-5 && (y[1] - 0.99998).abs() < 1e-5);
/// assert!(nn::standardize(&x, Some(&[2]), 1e-5).check().unwrap_err().to_string().contains("standardize"));
/// ```
pub fn standardize(x: &Array, axis: Option<&[i64]>, epsilon: f64) -> Array {
    if let Err(e) = norm_axes("standardize", x, axis) {
        return Array::failed(e);
    }
    let mean = np::mean(x, axis, true);
    let var = &np::mean(&np::square(x), axis, true) - &np::square(&mean);
    let var = np::maximum(&var, &weak_int(0));
    &(x - &mean) * &np::rsqrt(&(&var + epsilon))
}

/// Checks the reduction axes and that `x` is floating point (or an int, promoted to f32), and
/// returns `x` in the statistics dtype (at least f32).
fn stats_input(op: &str, x: &Array, axis: Option<&[i64]>) -> Result<(Array, Vec<i64>), Error> {
    x.check()?;
    if x.element_type() == DType::Bool {
        return Err(Error::op(
            op,
            format!("expected a numeric input, got {}", describe(x.aval())),
        ));
    }
    let axes = norm_axes(op, x, axis)?;
    let dtype = match x.element_type() {
        DType::F64 => DType::F64,
        _ => DType::F32,
    };
    Ok((convert(op, x, dtype, false), axes))
}

/// Checks that `p` (scale or bias) broadcasts against `x`.
fn check_param(op: &str, name: &str, x: &Array, p: Option<&Array>) -> Result<(), Error> {
    if let Some(p) = p {
        p.check()?;
        if crate::ops::elementwise::broadcast_shapes(x.dims(), p.dims()).as_deref()
            != Some(x.dims())
        {
            return Err(Error::op(
                op,
                format!(
                    "{name} {} does not broadcast to the input {}",
                    describe(p.aval()),
                    describe(x.aval())
                ),
            ));
        }
    }
    Ok(())
}

/// The output dtype: `x`, `scale` and `bias` promoted together.
fn out_dtype(
    op: &str,
    x: &Array,
    scale: Option<&Array>,
    bias: Option<&Array>,
) -> Result<DType, Error> {
    let mut all = vec![x];
    all.extend(scale);
    all.extend(bias);
    let v = promote_args(op, &all)?;
    Ok(v[0].element_type())
}

fn normalize(
    op: &str,
    x: &Array,
    scale: Option<&Array>,
    bias: Option<&Array>,
    axis: Option<&[i64]>,
    eps: f64,
    centre: bool,
) -> Result<Array, Error> {
    let (xs, _) = stats_input(op, x, axis)?;
    check_param(op, "scale", x, scale)?;
    check_param(op, "bias", x, bias)?;
    let out = out_dtype(op, x, scale, bias)?;
    let mean_sq = np::mean(&np::square(&xs), axis, true);
    let (centred, var) = if centre {
        let mean = np::mean(&xs, axis, true);
        let var = np::maximum(&weak_int(0), &(&mean_sq - &np::square(&mean)));
        (&xs - &mean, var)
    } else {
        (xs, mean_sq)
    };
    let mut mul = np::rsqrt(&(&var + eps));
    if let Some(s) = scale {
        mul = &mul * s;
    }
    let mut y = &centred * &mul;
    if let Some(b) = bias {
        y = &y + b;
    }
    Ok(convert(op, &y, out, false))
}

/// Layer normalisation as flax's `LayerNorm` computes it (see the module doc): statistics over
/// `axis` (`None`: all axes; flax's default is the last axis) in at least f32, then
/// `(x − mean) · rsqrt(var + eps) · scale + bias`. `scale` and `bias` broadcast against `x`
/// numpy-style (a `[features]` vector for the last axis).
///
/// ```
/// use systolic::{nn, Array};
/// let x = Array::from_vec(vec![1.0f32, 3.0], &[1, 2]);
/// let scale = Array::from_vec(vec![2.0f32, 2.0], &[2]);
/// let bias = Array::from_vec(vec![0.5f32, 0.5], &[2]);
/// let y = nn::layer_norm(&x, Some(&scale), Some(&bias), Some(&[-1]), 1e-6);
/// let v = y.to_vec::<f32>().unwrap();
/// assert!((v[0] + 1.5).abs() < 1e-5 && (v[1] - 2.5).abs() < 1e-5);
/// let bad = Array::from_vec(vec![1.0f32; 3], &[3]);
/// assert!(nn::layer_norm(&x, Some(&bad), None, Some(&[-1]), 1e-6).check().is_err());
/// ```
pub fn layer_norm(
    x: &Array,
    scale: Option<&Array>,
    bias: Option<&Array>,
    axis: Option<&[i64]>,
    eps: f64,
) -> Array {
    normalize("layer_norm", x, scale, bias, axis, eps, true).unwrap_or_else(Array::failed)
}

/// RMS normalisation as flax's `RMSNorm` computes it: `x · rsqrt(mean(x²) + eps) · scale`
/// over `axis` (`None`: all axes), the mean of squares in at least f32, no centring and no
/// bias.
///
/// ```
/// use systolic::{nn, Array};
/// let x = Array::from_vec(vec![3.0f32, 4.0], &[2]);
/// let y = nn::rms_norm(&x, None, Some(&[0]), 0.0).to_vec::<f32>().unwrap();
/// let r = (12.5f32).sqrt();
/// assert!((y[0] - 3.0 / r).abs() < 1e-6 && (y[1] - 4.0 / r).abs() < 1e-6);
/// ```
pub fn rms_norm(x: &Array, scale: Option<&Array>, axis: Option<&[i64]>, eps: f64) -> Array {
    normalize("rms_norm", x, scale, None, axis, eps, false).unwrap_or_else(Array::failed)
}
