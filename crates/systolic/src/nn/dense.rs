//! `flax.linen.Dense` and `DenseGeneral`: a product with a kernel over the input's last axis
//! (Dense) or any of its axes into any output shape (DenseGeneral), plus a bias.
//!
//! The computation is flax's: the input, kernel and bias are promoted to one dtype (the layer's
//! `dtype` if set), then one `dot_general` and one broadcast add. `init` draws the kernel and
//! the bias from `random::split(key, 2)`'s first and second keys.

use super::dtypes::{check_param, or_failed, promote};
use super::initializers::{self, Initializer};
use crate::array::{describe, Array};
use crate::error::{Error, Result};
use crate::lax;
use crate::numpy as np;
use crate::random;
use crate::Tree;
use systolic_ir::{DType, DotDimensionNumbers};

/// The parameters of [`Dense`] and [`DenseGeneral`], named as flax names them.
#[derive(Tree, Clone, Debug)]
pub struct DenseParams {
    /// `[in, features]` for Dense; the contracted input sizes then the features for
    /// DenseGeneral.
    pub kernel: Array,
    /// `[features]` (the feature shape for DenseGeneral), absent with `use_bias = false`.
    pub bias: Option<Array>,
}

/// `flax.linen.Dense(features)`: `x @ kernel + bias` over the last axis of `x`.
///
/// ```
/// use systolic::{nn::Dense, random, Array};
/// let layer = Dense::new(3);
/// let params = layer.init(&random::key(0), &[2, 4]).unwrap();
/// assert_eq!(params.kernel.shape(), &[4, 3]);
/// let x = Array::from_vec(vec![1.0f32; 8], &[2, 4]);
/// let y = layer.apply(&params, &x);
/// assert_eq!(y.shape(), &[2, 3]);
/// // The bias starts at zero, so each output is a column sum of the kernel.
/// let k = params.kernel.to_vec::<f32>().unwrap();
/// let col0 = k[0] + k[3] + k[6] + k[9];
/// assert!((y.to_vec::<f32>().unwrap()[0] - col0).abs() < 1e-6);
/// // A kernel that does not fit the input is an error naming the layer.
/// let bad = Array::from_vec(vec![1.0f32; 5], &[1, 5]);
/// assert!(layer.apply(&params, &bad).check().unwrap_err().to_string().contains("Dense"));
/// ```
#[derive(Clone, Debug)]
pub struct Dense {
    /// The number of output features.
    pub features: i64,
    /// Whether to add a bias (flax's default: true).
    pub use_bias: bool,
    /// The computation dtype (`None`: promoted from the input and parameters).
    pub dtype: Option<DType>,
    /// The parameters' dtype (flax's default: f32).
    pub param_dtype: DType,
    /// The kernel's initializer (flax's default: `lecun_normal`).
    pub kernel_init: Initializer,
    /// The bias's initializer (flax's default: `zeros`).
    pub bias_init: Initializer,
}

impl Dense {
    /// A Dense layer with flax's defaults.
    pub fn new(features: i64) -> Dense {
        Dense {
            features,
            use_bias: true,
            dtype: None,
            param_dtype: DType::F32,
            kernel_init: initializers::lecun_normal(),
            bias_init: initializers::zeros(),
        }
    }

    /// Parameters for inputs of `input_shape` (its last axis is the input size).
    pub fn init(&self, key: &Array, input_shape: &[i64]) -> Result<DenseParams> {
        let Some(&n_in) = input_shape.last() else {
            return Err(Error::op(
                "nn.Dense",
                "the input must have at least one axis".to_string(),
            ));
        };
        let keys = random::split(key, 2);
        let kernel = self
            .kernel_init
            .init(&keys[0], &[n_in, self.features], self.param_dtype);
        kernel.check()?;
        let bias = self.bias_init.init_param(
            self.use_bias,
            &keys[1],
            &[self.features],
            self.param_dtype,
        )?;
        Ok(DenseParams { kernel, bias })
    }

    /// `x @ kernel + bias` over the last axis of `x`.
    pub fn apply(&self, params: &DenseParams, x: &Array) -> Array {
        or_failed(self.forward(params, x))
    }

    fn forward(&self, p: &DenseParams, x: &Array) -> Result<Array> {
        const OP: &str = "nn.Dense";
        x.check()?;
        if x.rank() == 0 {
            return Err(Error::op(
                OP,
                format!(
                    "the input must have at least one axis, got {}",
                    describe(x.aval())
                ),
            ));
        }
        let n_in = x.dims()[x.rank() - 1];
        check_param(OP, "kernel", &p.kernel, &[n_in, self.features])?;
        let mut args = vec![x, &p.kernel];
        if let Some(b) = &p.bias {
            check_param(OP, "bias", b, &[self.features])?;
            args.push(b);
        }
        let v = promote(OP, &args, self.dtype)?;
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: vec![],
            rhs_batching_dimensions: vec![],
            lhs_contracting_dimensions: vec![x.rank() as i64 - 1],
            rhs_contracting_dimensions: vec![0],
        };
        let y = lax::dot_general(&v[0], &v[1], dims, None);
        Ok(match v.get(2) {
            Some(b) => {
                let mut s = vec![1; x.rank() - 1];
                s.push(self.features);
                &y + &np::reshape(b, &s)
            }
            None => y,
        })
    }
}

/// `flax.linen.DenseGeneral(features, axis)`: contracts the input `axis` (sorted, negative
/// from the end) with the kernel's leading axes into output `features` (a shape). The kernel
/// is `[in sizes..., features...]`, initialised as the 2-D `[prod(in), prod(features)]`
/// matrix and reshaped (so fan-based initializers see flax's fans); the bias is `features`.
/// flax's `batch_dims` is not supported.
///
/// ```
/// use systolic::{nn::DenseGeneral, random, Array};
/// // Project [B, T, D] to heads: features (2, 3) over the last axis.
/// let heads = DenseGeneral::new(&[2, 3], &[-1]);
/// let p = heads.init(&random::key(0), &[1, 5, 4]).unwrap();
/// assert_eq!(p.kernel.shape(), &[4, 2, 3]);
/// let x = Array::from_vec(vec![0.5f32; 20], &[1, 5, 4]);
/// let h = heads.apply(&p, &x);
/// assert_eq!(h.shape(), &[1, 5, 2, 3]);
/// // And back: contract the last two axes.
/// let out = DenseGeneral::new(&[4], &[-2, -1]);
/// let q = out.init(&random::key(1), h.shape()).unwrap();
/// assert_eq!(out.apply(&q, &h).shape(), &[1, 5, 4]);
/// ```
#[derive(Clone, Debug)]
pub struct DenseGeneral {
    /// The output feature shape.
    pub features: Vec<i64>,
    /// The contracted input axes.
    pub axis: Vec<i64>,
    /// Whether to add a bias.
    pub use_bias: bool,
    /// The computation dtype (`None`: promoted).
    pub dtype: Option<DType>,
    /// The parameters' dtype.
    pub param_dtype: DType,
    /// The kernel's initializer (`lecun_normal`).
    pub kernel_init: Initializer,
    /// The bias's initializer (`zeros`).
    pub bias_init: Initializer,
}

impl DenseGeneral {
    /// A DenseGeneral layer with flax's defaults.
    pub fn new(features: &[i64], axis: &[i64]) -> DenseGeneral {
        DenseGeneral {
            features: features.to_vec(),
            axis: axis.to_vec(),
            use_bias: true,
            dtype: None,
            param_dtype: DType::F32,
            kernel_init: initializers::lecun_normal(),
            bias_init: initializers::zeros(),
        }
    }

    /// The contracted axes, resolved and sorted, for an input of `shape`.
    fn axes(&self, shape: &[i64]) -> Result<Vec<usize>> {
        const OP: &str = "nn.DenseGeneral";
        let n = shape.len() as i64;
        let mut out = Vec::new();
        for &a in &self.axis {
            let r = if a < 0 { a + n } else { a };
            if !(0..n).contains(&r) || out.contains(&(r as usize)) {
                return Err(Error::op(
                    OP,
                    format!(
                        "axis {:?} does not name distinct axes of an input of shape {shape:?}",
                        self.axis
                    ),
                ));
            }
            out.push(r as usize);
        }
        out.sort_unstable();
        Ok(out)
    }

    fn kernel_shape(&self, shape: &[i64]) -> Result<Vec<i64>> {
        let mut k: Vec<i64> = self.axes(shape)?.iter().map(|&a| shape[a]).collect();
        k.extend_from_slice(&self.features);
        Ok(k)
    }

    /// Parameters for inputs of `input_shape`.
    pub fn init(&self, key: &Array, input_shape: &[i64]) -> Result<DenseGeneralParams> {
        let kshape = self.kernel_shape(input_shape)?;
        let n_axis = self.axis.len();
        let fan_in: i64 = kshape[..n_axis].iter().product();
        let fan_out: i64 = self.features.iter().product();
        let keys = random::split(key, 2);
        let kernel = self
            .kernel_init
            .init(&keys[0], &[fan_in, fan_out], self.param_dtype);
        let kernel = np::reshape(&kernel, &kshape);
        kernel.check()?;
        let bias = if self.use_bias {
            let b = self.bias_init.init(&keys[1], &[fan_out], self.param_dtype);
            let b = np::reshape(&b, &self.features);
            b.check()?;
            Some(b)
        } else {
            None
        };
        Ok(DenseParams { kernel, bias })
    }

    /// The contraction of `x`'s axes with the kernel, plus the bias.
    pub fn apply(&self, params: &DenseGeneralParams, x: &Array) -> Array {
        or_failed(self.forward(params, x))
    }

    fn forward(&self, p: &DenseParams, x: &Array) -> Result<Array> {
        const OP: &str = "nn.DenseGeneral";
        x.check()?;
        let axes = self.axes(x.dims())?;
        check_param(OP, "kernel", &p.kernel, &self.kernel_shape(x.dims())?)?;
        let mut args = vec![x, &p.kernel];
        if let Some(b) = &p.bias {
            check_param(OP, "bias", b, &self.features)?;
            args.push(b);
        }
        let v = promote(OP, &args, self.dtype)?;
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: vec![],
            rhs_batching_dimensions: vec![],
            lhs_contracting_dimensions: axes.iter().map(|&a| a as i64).collect(),
            rhs_contracting_dimensions: (0..axes.len() as i64).collect(),
        };
        let y = lax::dot_general(&v[0], &v[1], dims, None);
        Ok(match v.get(2) {
            Some(b) => {
                let mut s = vec![1; x.rank() - axes.len()];
                s.extend_from_slice(&self.features);
                &y + &np::reshape(b, &s)
            }
            None => y,
        })
    }
}

/// [`DenseGeneral`]'s parameters: the same leaves as [`Dense`]'s.
pub type DenseGeneralParams = DenseParams;
