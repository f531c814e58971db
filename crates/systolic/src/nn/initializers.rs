//! `jax.nn.initializers`: functions of `(key, shape, dtype)` that make a parameter, as data.
//!
//! An [`Initializer`] is a value (JAX's are closures) so that a layer's configuration can hold
//! one, print it and compare it. Each variant draws exactly what JAX's initializer of the same
//! name draws from the same key: the samplers are [`crate::random`]'s, which are JAX's bit for
//! bit (uniform draws) or within an ulp or two (normal draws go through `erf_inv`), and the
//! scalars are computed in JAX's order and precision. In `variance_scaling` the variance
//! `scale / fan` is computed in f64 (Python floats) and rounded to `dtype` once; its square root
//! and the truncated-normal correction are computed in `dtype`, as `jnp` does.
//!
//! `orthogonal` draws with [`random::orthogonal`] (a QR decomposition, LAPACK's as JAX's on
//! CPU), so it equals JAX's up to the rounding of the decomposition. `delta_orthogonal` is not
//! here yet.

use std::fmt;
use std::sync::Arc;

use crate::array::Array;
use crate::error::Error;
use crate::numpy as np;
use crate::random;
use systolic_ir::DType;

/// The standard deviation of a unit normal truncated to `(-2, 2)`: dividing by it makes a
/// truncated draw's standard deviation the one asked for (JAX's `variance_scaling` constant).
pub const TRUNCATED_NORMAL_STDDEV: f64 = 0.879_625_661_034_239_8;

/// A user-supplied initializer: `(key, shape, dtype) -> Array`.
pub type InitFn = dyn Fn(&Array, &[i64], DType) -> Array + Send + Sync;

/// How [`Initializer::VarianceScaling`] counts the fan (JAX's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FanMode {
    /// The number of inputs (`fan_in`).
    FanIn,
    /// The number of outputs (`fan_out`).
    FanOut,
    /// Their arithmetic mean (`fan_avg`).
    FanAvg,
    /// Their geometric mean (`fan_geo_avg`).
    FanGeoAvg,
}

/// What [`Initializer::VarianceScaling`] draws from (JAX's `distribution`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// A normal truncated to two standard deviations, rescaled so that the truncated
    /// distribution has the asked variance.
    TruncatedNormal,
    /// A normal.
    Normal,
    /// A uniform on `[-√(3v), √(3v))`.
    Uniform,
}

/// `jax.nn.initializers.variance_scaling`'s configuration: draws with variance `scale / n`,
/// `n` the fan the mode names, computed from the shape with `in_axis`, `out_axis` and
/// `batch_axis` (every other axis is a receptive-field axis and multiplies both fans).
#[derive(Clone, Debug, PartialEq)]
pub struct VarianceScaling {
    /// The variance's numerator.
    pub scale: f64,
    /// Which fan divides it.
    pub mode: FanMode,
    /// The distribution drawn from.
    pub distribution: Distribution,
    /// The input axes (JAX's default `-2`).
    pub in_axis: Vec<i64>,
    /// The output axes (JAX's default `-1`).
    pub out_axis: Vec<i64>,
    /// Axes ignored by both fans (JAX's default: none).
    pub batch_axis: Vec<i64>,
}

/// A parameter initializer, as `jax.nn.initializers` builds them.
///
/// ```
/// use systolic::nn::initializers;
/// use systolic::random;
/// use systolic_ir::DType;
/// let key = random::key(0);
/// let w = initializers::lecun_normal().init(&key, &[3, 4], DType::F32);
/// assert_eq!(w.shape(), &[3, 4]);
/// // Values lie within two (corrected) standard deviations: |w| < 2·√(1/3)/0.8796.
/// assert!(w.to_vec::<f32>().unwrap().iter().all(|v| v.abs() < 1.32));
/// let b = initializers::zeros().init(&key, &[4], DType::F32);
/// assert_eq!(b.to_vec::<f32>().unwrap(), vec![0.0; 4]);
/// // A bad shape is an error naming the initializer.
/// let e = initializers::glorot_uniform().init(&key, &[5], DType::F32).check().unwrap_err();
/// assert!(e.to_string().contains("variance_scaling"), "{e}");
/// ```
#[derive(Clone)]
pub enum Initializer {
    /// `zeros`.
    Zeros,
    /// `ones`.
    Ones,
    /// `constant(value)`.
    Constant(f64),
    /// `uniform(scale)`: `[0, scale)`.
    Uniform {
        /// The upper bound.
        scale: f64,
    },
    /// `normal(stddev)`.
    Normal {
        /// The standard deviation.
        stddev: f64,
    },
    /// `truncated_normal(stddev, lower, upper)`: a unit normal truncated to `(lower, upper)`,
    /// times `stddev` (no variance correction, as in JAX).
    TruncatedNormal {
        /// The multiplier.
        stddev: f64,
        /// The lower bound before scaling.
        lower: f64,
        /// The upper bound before scaling.
        upper: f64,
    },
    /// `variance_scaling(...)` and its named cases (lecun, glorot, he).
    VarianceScaling(VarianceScaling),
    /// `orthogonal(scale, column_axis)`: `scale` times a uniformly distributed matrix with
    /// orthonormal columns (or rows, whichever are fewer), the columns along `column_axis` and
    /// every other axis flattened into the rows.
    Orthogonal {
        /// The multiplier.
        scale: f64,
        /// The axis of the columns (negative counts from the end).
        column_axis: i64,
    },
    /// Any function of `(key, shape, dtype)`.
    Custom(Arc<InitFn>),
}

impl fmt::Debug for Initializer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Initializer::Zeros => write!(f, "zeros"),
            Initializer::Ones => write!(f, "ones"),
            Initializer::Constant(v) => write!(f, "constant({v})"),
            Initializer::Uniform { scale } => write!(f, "uniform({scale})"),
            Initializer::Normal { stddev } => write!(f, "normal({stddev})"),
            Initializer::TruncatedNormal {
                stddev,
                lower,
                upper,
            } => write!(f, "truncated_normal({stddev}, {lower}, {upper})"),
            Initializer::VarianceScaling(v) => write!(f, "{v:?}"),
            Initializer::Orthogonal { scale, column_axis } => {
                write!(f, "orthogonal({scale}, column_axis={column_axis})")
            }
            Initializer::Custom(_) => write!(f, "custom"),
        }
    }
}

/// `zeros`: the key is ignored.
pub fn zeros() -> Initializer {
    Initializer::Zeros
}

/// `ones`: the key is ignored.
pub fn ones() -> Initializer {
    Initializer::Ones
}

/// `constant(value)`: `value` converted to the dtype.
pub fn constant(value: f64) -> Initializer {
    Initializer::Constant(value)
}

/// `uniform(scale)`: uniform on `[0, scale)` (JAX's default scale is `1e-2`).
pub fn uniform(scale: f64) -> Initializer {
    Initializer::Uniform { scale }
}

/// `normal(stddev)`: normal with mean 0 (JAX's default stddev is `1e-2`).
pub fn normal(stddev: f64) -> Initializer {
    Initializer::Normal { stddev }
}

/// `truncated_normal(stddev, lower=-2, upper=2)`; see [`Initializer::TruncatedNormal`].
pub fn truncated_normal(stddev: f64) -> Initializer {
    Initializer::TruncatedNormal {
        stddev,
        lower: -2.0,
        upper: 2.0,
    }
}

/// `variance_scaling(scale, mode, distribution)` with JAX's default axes (`in_axis=-2`,
/// `out_axis=-1`, no batch axis); change them with [`Initializer::with_axes`].
///
/// ```
/// use systolic::nn::initializers::{variance_scaling, Distribution, FanMode};
/// use systolic_ir::DType;
/// // flax's Embed: fan_in over axis -2 with the output axis first.
/// let init = variance_scaling(1.0, FanMode::FanIn, Distribution::Normal).with_axes(&[-2], &[0], &[]);
/// let e = init.init(&systolic::random::key(1), &[10, 4], DType::F32);
/// assert_eq!(e.shape(), &[10, 4]);
/// ```
pub fn variance_scaling(scale: f64, mode: FanMode, distribution: Distribution) -> Initializer {
    Initializer::VarianceScaling(VarianceScaling {
        scale,
        mode,
        distribution,
        in_axis: vec![-2],
        out_axis: vec![-1],
        batch_axis: vec![],
    })
}

/// `lecun_normal()`: `variance_scaling(1, fan_in, truncated_normal)` (flax's default kernel
/// initializer).
pub fn lecun_normal() -> Initializer {
    variance_scaling(1.0, FanMode::FanIn, Distribution::TruncatedNormal)
}

/// `lecun_uniform()`: `variance_scaling(1, fan_in, uniform)`.
pub fn lecun_uniform() -> Initializer {
    variance_scaling(1.0, FanMode::FanIn, Distribution::Uniform)
}

/// `glorot_normal()` (`xavier_normal`): `variance_scaling(1, fan_avg, truncated_normal)`.
pub fn glorot_normal() -> Initializer {
    variance_scaling(1.0, FanMode::FanAvg, Distribution::TruncatedNormal)
}

/// `glorot_uniform()` (`xavier_uniform`): `variance_scaling(1, fan_avg, uniform)`.
pub fn glorot_uniform() -> Initializer {
    variance_scaling(1.0, FanMode::FanAvg, Distribution::Uniform)
}

/// `he_normal()` (`kaiming_normal`): `variance_scaling(2, fan_in, truncated_normal)`.
pub fn he_normal() -> Initializer {
    variance_scaling(2.0, FanMode::FanIn, Distribution::TruncatedNormal)
}

/// `he_uniform()` (`kaiming_uniform`): `variance_scaling(2, fan_in, uniform)`.
pub fn he_uniform() -> Initializer {
    variance_scaling(2.0, FanMode::FanIn, Distribution::Uniform)
}

/// `orthogonal(scale, column_axis)` (JAX's defaults: 1 and -1): a kernel whose columns (the
/// `column_axis` slices, every other axis flattened into rows) are orthonormal, times `scale`;
/// when there are more columns than rows, the rows are orthonormal instead. float32 (the QR
/// decomposition's type); at least two dimensions.
///
/// ```
/// use systolic::{nn::initializers::orthogonal, numpy as np, random};
/// use systolic_ir::DType;
/// let w = orthogonal(1.0, -1).init(&random::key(0), &[6, 4], DType::F32);
/// assert_eq!(w.shape(), &[6, 4]);
/// let wtw = np::matmul(&np::transpose(&w, None), &w).to_vec::<f32>().unwrap();
/// assert!((wtw[0] - 1.0).abs() < 1e-5 && wtw[1].abs() < 1e-5);
/// // A vector has no columns to make orthogonal.
/// let err = orthogonal(1.0, -1).init(&random::key(0), &[4], DType::F32);
/// assert!(err.check().unwrap_err().to_string().contains("at least 2 dimensions"));
/// ```
pub fn orthogonal(scale: f64, column_axis: i64) -> Initializer {
    Initializer::Orthogonal { scale, column_axis }
}

pub use glorot_normal as xavier_normal;
pub use glorot_uniform as xavier_uniform;
pub use he_normal as kaiming_normal;
pub use he_uniform as kaiming_uniform;

impl Initializer {
    /// A [`Initializer::Custom`] from a function of `(key, shape, dtype)`.
    pub fn custom(f: impl Fn(&Array, &[i64], DType) -> Array + Send + Sync + 'static) -> Self {
        Initializer::Custom(Arc::new(f))
    }

    /// The same variance-scaling initializer with other `in_axis`, `out_axis` and
    /// `batch_axis` (negative axes count from the end, as in JAX); other initializers are
    /// returned unchanged, as they do not look at axes.
    pub fn with_axes(self, in_axis: &[i64], out_axis: &[i64], batch_axis: &[i64]) -> Self {
        match self {
            Initializer::VarianceScaling(v) => Initializer::VarianceScaling(VarianceScaling {
                in_axis: in_axis.to_vec(),
                out_axis: out_axis.to_vec(),
                batch_axis: batch_axis.to_vec(),
                ..v
            }),
            other => other,
        }
    }

    /// A layer's parameter, drawn when the layer has it (`use_bias`, `use_scale`): `None` when
    /// `on` is false, else [`init`](Self::init)'s draw with its failure as an error.
    pub(crate) fn init_param(
        &self,
        on: bool,
        key: &Array,
        shape: &[i64],
        dtype: DType,
    ) -> Result<Option<Array>, Error> {
        if !on {
            return Ok(None);
        }
        let p = self.init(key, shape, dtype);
        p.check()?;
        Ok(Some(p))
    }

    /// Draws a parameter of `shape` and `dtype` from `key` (a failed array on bad input,
    /// naming the initializer).
    pub fn init(&self, key: &Array, shape: &[i64], dtype: DType) -> Array {
        let random_float = |op: &str| -> Result<(), Error> {
            if matches!(dtype, DType::F32 | DType::BF16 | DType::F16) {
                Ok(())
            } else {
                Err(Error::op(
                    op,
                    format!(
                        "dtype must be float32, bfloat16 or float16, got {}",
                        dtype.numpy_name()
                    ),
                ))
            }
        };
        let cst = |v: f64| np::full(&[], v, dtype);
        match self {
            Initializer::Zeros => np::zeros(shape, dtype),
            Initializer::Ones => np::ones(shape, dtype),
            Initializer::Constant(v) => np::full(shape, *v, dtype),
            Initializer::Uniform { scale } => match random_float("nn.initializers.uniform") {
                Ok(()) => &random::uniform(key, shape, dtype, 0.0, 1.0) * &cst(*scale),
                Err(e) => Array::failed(e),
            },
            Initializer::Normal { stddev } => match random_float("nn.initializers.normal") {
                Ok(()) => &random::normal(key, shape, dtype) * &cst(*stddev),
                Err(e) => Array::failed(e),
            },
            Initializer::TruncatedNormal {
                stddev,
                lower,
                upper,
            } => match random_float("nn.initializers.truncated_normal") {
                Ok(()) => {
                    let t = random::truncated_normal(key, *lower, *upper, Some(shape), dtype);
                    &t * &cst(*stddev)
                }
                Err(e) => Array::failed(e),
            },
            Initializer::VarianceScaling(v) => {
                match random_float("nn.initializers.variance_scaling")
                    .and_then(|_| v.variance("nn.initializers.variance_scaling", shape))
                {
                    Ok(variance) => v.draw(key, shape, dtype, &cst(variance)),
                    Err(e) => Array::failed(e),
                }
            }
            Initializer::Orthogonal { scale, column_axis } => {
                orthogonal_init(key, shape, dtype, *scale, *column_axis)
            }
            Initializer::Custom(f) => f(key, shape, dtype),
        }
    }
}

/// Resolves `axes` against a rank-`ndim` shape (negative from the end), naming `op` on error.
fn resolve(op: &str, what: &str, axes: &[i64], shape: &[i64]) -> Result<Vec<usize>, Error> {
    let n = shape.len() as i64;
    axes.iter()
        .map(|&a| {
            let r = if a < 0 { a + n } else { a };
            if (0..n).contains(&r) {
                Ok(r as usize)
            } else {
                Err(Error::op(
                    op,
                    format!("{what} {a} is out of range for a weights shape {shape:?}"),
                ))
            }
        })
        .collect()
}

impl VarianceScaling {
    /// JAX's `_compute_fans`: `(fan_in, fan_out)` in f64, computed in JAX's order
    /// (`prod(shape) / in / out / batch` is the receptive field).
    pub fn fans(&self, op: &str, shape: &[i64]) -> Result<(f64, f64), Error> {
        if self.in_axis == [-2] && shape.len() <= 1 {
            return Err(Error::op(
                op,
                format!(
                    "cannot compute the input and output sizes of a {}-dimensional weights \
                     shape {shape:?} with the default in_axis: it must be at least 2-D or \
                     name in_axis",
                    shape.len()
                ),
            ));
        }
        let size = |what: &str, axes: &[i64]| -> Result<f64, Error> {
            let r = resolve(op, what, axes, shape)?;
            Ok(r.iter().map(|&i| shape[i]).product::<i64>() as f64)
        };
        let in_size = size("in_axis", &self.in_axis)?;
        let out_size = size("out_axis", &self.out_axis)?;
        let batch_size = size("batch_axis", &self.batch_axis)?;
        let total = shape.iter().product::<i64>() as f64;
        let receptive = total / in_size / out_size / batch_size;
        Ok((in_size * receptive, out_size * receptive))
    }

    /// `scale / n` in f64, `n` the mode's fan.
    fn variance(&self, op: &str, shape: &[i64]) -> Result<f64, Error> {
        let (fan_in, fan_out) = self.fans(op, shape)?;
        let n = match self.mode {
            FanMode::FanIn => fan_in,
            FanMode::FanOut => fan_out,
            FanMode::FanAvg => (fan_in + fan_out) / 2.0,
            FanMode::FanGeoAvg => (fan_in * fan_out).powf(0.5),
        };
        if n <= 0.0 {
            return Err(Error::op(
                op,
                format!("weights shape {shape:?} has an empty fan: nothing to scale by"),
            ));
        }
        Ok(self.scale / n)
    }

    /// The draw, `variance` already a rank-0 array of `dtype`.
    fn draw(&self, key: &Array, shape: &[i64], dtype: DType, variance: &Array) -> Array {
        match self.distribution {
            Distribution::TruncatedNormal => {
                let stddev = &np::sqrt(variance) / &np::full(&[], TRUNCATED_NORMAL_STDDEV, dtype);
                &random::truncated_normal(key, -2i32, 2i32, Some(shape), dtype) * &stddev
            }
            Distribution::Normal => &random::normal(key, shape, dtype) * &np::sqrt(variance),
            Distribution::Uniform => {
                let three_v = &crate::ops::elementwise::weak_int(3) * variance;
                &random::uniform(key, shape, dtype, -1i32, 1.0) * &np::sqrt(&three_v)
            }
        }
    }
}

/// JAX's `orthogonal` initializer: `random::orthogonal(key, rows, [], dtype, cols)` with the
/// columns along `column_axis` and the other axes flattened into the rows (in order), reshaped
/// to the shape with the column axis last and moved into place, times `scale`.
fn orthogonal_init(
    key: &Array,
    shape: &[i64],
    dtype: DType,
    scale: f64,
    column_axis: i64,
) -> Array {
    const OP: &str = "nn.initializers.orthogonal";
    let rank = shape.len() as i64;
    if rank < 2 {
        return Array::failed(Error::op(
            OP,
            format!("the shape must have at least 2 dimensions, got {shape:?}"),
        ));
    }
    let axis = if column_axis < 0 {
        column_axis + rank
    } else {
        column_axis
    };
    if !(0..rank).contains(&axis) {
        return Array::failed(Error::op(
            OP,
            format!("column_axis {column_axis} is out of range for shape {shape:?}"),
        ));
    }
    if shape.contains(&0) {
        return np::zeros(shape, dtype);
    }
    let cols = shape[axis as usize];
    let rows = shape.iter().product::<i64>() / cols;
    let q = random::orthogonal(key, rows, &[], dtype, Some(cols));
    let mut last: Vec<i64> = shape.to_vec();
    last.remove(axis as usize);
    last.push(cols);
    let q = np::moveaxis(&np::reshape(&q, &last), -1, axis);
    &np::full(&[], scale, dtype) * &q
}
