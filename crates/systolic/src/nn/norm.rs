//! `flax.linen.LayerNorm` and `RMSNorm` as layers: the parameters (`scale`, `bias`) over the
//! feature axes, and the computation of [`crate::nn::layer_norm`]/[`crate::nn::rms_norm`]
//! (flax's one-pass `mean(x²) − mean²` variance in at least f32).

use super::dtypes::{check_param, or_failed};
use super::initializers::{self, Initializer};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::numpy as np;
use crate::ops::elementwise::convert;
use crate::ops::norm::{layer_norm, rms_norm};
use crate::random;
use crate::Tree;
use systolic_ir::DType;

/// [`LayerNorm`]'s parameters (absent when the layer does not use them).
#[derive(Tree, Clone, Debug)]
pub struct LayerNormParams {
    /// The multiplier over the feature axes.
    pub scale: Option<Array>,
    /// The offset over the feature axes.
    pub bias: Option<Array>,
}

/// [`RMSNorm`]'s parameter.
#[derive(Tree, Clone, Debug)]
pub struct RMSNormParams {
    /// The multiplier over the feature axes.
    pub scale: Option<Array>,
}

/// The axes both norms share: sorted, resolved, and the parameter shapes they give.
struct Axes {
    reduction: Vec<i64>,
    /// `[x.shape[a] for a in feature axes]`: the parameters' shape.
    param_shape: Vec<i64>,
    /// The same with 1 elsewhere: what they are reshaped to before broadcasting.
    broadcast_shape: Vec<i64>,
}

fn resolve(op: &str, shape: &[i64], reduction: &[i64], features: &[i64]) -> Result<Axes> {
    let n = shape.len() as i64;
    let norm = |axes: &[i64]| -> Result<Vec<i64>> {
        let mut out: Vec<i64> = Vec::new();
        for &a in axes {
            let r = if a < 0 { a + n } else { a };
            if !(0..n).contains(&r) {
                return Err(Error::op(
                    op,
                    format!("axis {a} is out of range for an input of shape {shape:?}"),
                ));
            }
            if !out.contains(&r) {
                out.push(r);
            }
        }
        out.sort_unstable();
        Ok(out)
    };
    let reduction = norm(reduction)?;
    let feats = norm(features)?;
    let mut broadcast_shape = vec![1; shape.len()];
    let mut param_shape = Vec::new();
    for &a in &feats {
        broadcast_shape[a as usize] = shape[a as usize];
        param_shape.push(shape[a as usize]);
    }
    Ok(Axes {
        reduction,
        param_shape,
        broadcast_shape,
    })
}

/// `flax.linen.LayerNorm()`: `(x − mean) · rsqrt(var + ε) · scale + bias` with statistics
/// over `reduction_axes` and parameters over `feature_axes` (both the last axis by default),
/// ε = 1e-6. `init` draws `scale` and `bias` from `random::split(key, 2)` (their default
/// initializers, ones and zeros, ignore it).
///
/// ```
/// use systolic::{nn::LayerNorm, random, Array};
/// let ln = LayerNorm::new();
/// let p = ln.init(&random::key(0), &[2, 3]).unwrap();
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, -1.0, 0.0, 1.0], &[2, 3]);
/// let y = ln.apply(&p, &x).to_vec::<f32>().unwrap();
/// let s = (2.0f32 / 3.0 + 1e-6).sqrt();
/// assert!((y[0] + 1.0 / s).abs() < 1e-5 && y[1].abs() < 1e-6 && (y[5] - 1.0 / s).abs() < 1e-5);
/// ```
#[derive(Clone, Debug)]
pub struct LayerNorm {
    /// Added to the variance (flax's default 1e-6).
    pub epsilon: f64,
    /// Whether to add `bias`.
    pub use_bias: bool,
    /// Whether to multiply by `scale`.
    pub use_scale: bool,
    /// The axes the statistics are computed over.
    pub reduction_axes: Vec<i64>,
    /// The axes the parameters span.
    pub feature_axes: Vec<i64>,
    /// The output dtype (`None`: the input's promoted with the parameters').
    pub dtype: Option<DType>,
    /// The parameters' dtype.
    pub param_dtype: DType,
    /// `scale`'s initializer (ones).
    pub scale_init: Initializer,
    /// `bias`'s initializer (zeros).
    pub bias_init: Initializer,
}

impl Default for LayerNorm {
    fn default() -> Self {
        LayerNorm::new()
    }
}

impl LayerNorm {
    /// A LayerNorm with flax's defaults.
    pub fn new() -> LayerNorm {
        LayerNorm {
            epsilon: 1e-6,
            use_bias: true,
            use_scale: true,
            reduction_axes: vec![-1],
            feature_axes: vec![-1],
            dtype: None,
            param_dtype: DType::F32,
            scale_init: initializers::ones(),
            bias_init: initializers::zeros(),
        }
    }

    /// Parameters for inputs of `input_shape`.
    pub fn init(&self, key: &Array, input_shape: &[i64]) -> Result<LayerNormParams> {
        let axes = resolve(
            "nn.LayerNorm",
            input_shape,
            &self.reduction_axes,
            &self.feature_axes,
        )?;
        let keys = random::split(key, 2);
        let draw = |on: bool, init: &Initializer, k: &Array| {
            init.init_param(on, k, &axes.param_shape, self.param_dtype)
        };
        Ok(LayerNormParams {
            scale: draw(self.use_scale, &self.scale_init, &keys[0])?,
            bias: draw(self.use_bias, &self.bias_init, &keys[1])?,
        })
    }

    /// The normalised input.
    pub fn apply(&self, params: &LayerNormParams, x: &Array) -> Array {
        or_failed(self.forward(params, x))
    }

    fn forward(&self, p: &LayerNormParams, x: &Array) -> Result<Array> {
        const OP: &str = "nn.LayerNorm";
        x.check()?;
        let axes = resolve(OP, x.dims(), &self.reduction_axes, &self.feature_axes)?;
        let scale = param(OP, "scale", self.use_scale, p.scale.as_ref(), &axes)?;
        let bias = param(OP, "bias", self.use_bias, p.bias.as_ref(), &axes)?;
        let y = layer_norm(
            x,
            scale.as_ref(),
            bias.as_ref(),
            Some(&axes.reduction),
            self.epsilon,
        );
        Ok(cast(OP, y, self.dtype))
    }
}

/// A parameter checked against the layer's flags and shapes, reshaped to broadcast.
fn param(
    op: &str,
    name: &str,
    used: bool,
    p: Option<&Array>,
    axes: &Axes,
) -> Result<Option<Array>> {
    match (used, p) {
        (false, _) => Ok(None),
        (true, None) => Err(Error::op(
            op,
            format!("the layer uses `{name}` but the parameters have none"),
        )),
        (true, Some(p)) => {
            check_param(op, name, p, &axes.param_shape)?;
            Ok(Some(np::reshape(p, &axes.broadcast_shape)))
        }
    }
}

fn cast(op: &str, y: Array, dtype: Option<DType>) -> Array {
    match dtype {
        Some(d) => convert(op, &y, d, false),
        None => y,
    }
}

/// `flax.linen.RMSNorm()`: `x · rsqrt(mean(x²) + ε) · scale`, ε = 1e-6, over the last axis
/// by default. `init` draws `scale` from `key` itself (ones by default).
///
/// ```
/// use systolic::{nn::RMSNorm, random, Array};
/// let norm = RMSNorm::new();
/// let p = norm.init(&random::key(0), &[2]).unwrap();
/// let y = norm.apply(&p, &Array::from_vec(vec![3.0f32, 4.0], &[2])).to_vec::<f32>().unwrap();
/// let r = (12.5f32 + 1e-6).sqrt();
/// assert!((y[0] - 3.0 / r).abs() < 1e-6 && (y[1] - 4.0 / r).abs() < 1e-6);
/// ```
#[derive(Clone, Debug)]
pub struct RMSNorm {
    /// Added to the mean of squares (flax's default 1e-6).
    pub epsilon: f64,
    /// Whether to multiply by `scale`.
    pub use_scale: bool,
    /// The axes the mean of squares is computed over.
    pub reduction_axes: Vec<i64>,
    /// The axes `scale` spans.
    pub feature_axes: Vec<i64>,
    /// The output dtype (`None`: promoted).
    pub dtype: Option<DType>,
    /// The parameter's dtype.
    pub param_dtype: DType,
    /// `scale`'s initializer (ones).
    pub scale_init: Initializer,
}

impl Default for RMSNorm {
    fn default() -> Self {
        RMSNorm::new()
    }
}

impl RMSNorm {
    /// An RMSNorm with flax's defaults.
    pub fn new() -> RMSNorm {
        RMSNorm {
            epsilon: 1e-6,
            use_scale: true,
            reduction_axes: vec![-1],
            feature_axes: vec![-1],
            dtype: None,
            param_dtype: DType::F32,
            scale_init: initializers::ones(),
        }
    }

    /// Parameters for inputs of `input_shape`.
    pub fn init(&self, key: &Array, input_shape: &[i64]) -> Result<RMSNormParams> {
        let axes = resolve(
            "nn.RMSNorm",
            input_shape,
            &self.reduction_axes,
            &self.feature_axes,
        )?;
        if !self.use_scale {
            return Ok(RMSNormParams { scale: None });
        }
        let s = self
            .scale_init
            .init(key, &axes.param_shape, self.param_dtype);
        s.check()?;
        Ok(RMSNormParams { scale: Some(s) })
    }

    /// The normalised input.
    pub fn apply(&self, params: &RMSNormParams, x: &Array) -> Array {
        or_failed(self.forward(params, x))
    }

    fn forward(&self, p: &RMSNormParams, x: &Array) -> Result<Array> {
        const OP: &str = "nn.RMSNorm";
        x.check()?;
        let axes = resolve(OP, x.dims(), &self.reduction_axes, &self.feature_axes)?;
        let scale = param(OP, "scale", self.use_scale, p.scale.as_ref(), &axes)?;
        let y = rms_norm(x, scale.as_ref(), Some(&axes.reduction), self.epsilon);
        Ok(cast(OP, y, self.dtype))
    }
}
