//! `flax.linen.ConvTranspose`: the fractionally strided convolution (`lax.conv_transpose`) of
//! a channels-last input, as decoders and up-sampling layers use it, plus a bias.

use super::conv::{bias_and_batch, ConvPadding, ConvParams};
use super::dtypes::{check_param, or_failed, promote};
use super::initializers::{self, Initializer};
use crate::array::{describe, Array};
use crate::error::{Error, Result};
use crate::lax;
use crate::lax::Padding;
use crate::numpy as np;
use crate::random;
use systolic_ir::DType;

/// `flax.linen.ConvTranspose(features, kernel_size)`.
///
/// The kernel is `[*kernel_size, in_features, features]` (`[*kernel_size, features,
/// in_features]` with `transpose_kernel`, which makes the layer the gradient of a [`Conv`]
/// with that kernel). Padding is `Same` (output `input · stride`), `Valid` or `Explicit`
/// (flax's `CIRCULAR` is not supported). Batch axes are handled as in [`Conv`]. `init` draws
/// the kernel and the bias from `random::split(key, 2)`'s first and second keys.
///
/// [`Conv`]: super::Conv
///
/// ```
/// use systolic::{nn::ConvTranspose, random, Array};
/// let up = ConvTranspose { strides: vec![2], ..ConvTranspose::new(3, &[3, 3]) };
/// let p = up.init(&random::key(0), &[1, 4, 4, 2]).unwrap();
/// assert_eq!(p.kernel.shape(), &[3, 3, 2, 3]);
/// let x = Array::from_vec(vec![1.0f32; 32], &[1, 4, 4, 2]);
/// assert_eq!(up.apply(&p, &x).shape(), &[1, 8, 8, 3]);
/// ```
#[derive(Clone, Debug)]
pub struct ConvTranspose {
    /// The number of output channels.
    pub features: i64,
    /// The window size per spatial axis.
    pub kernel_size: Vec<i64>,
    /// The input dilation (one per spatial axis, or one for all; default 1).
    pub strides: Vec<i64>,
    /// `Same`, `Valid` or `Explicit` (flax's default `SAME`).
    pub padding: ConvPadding,
    /// Kernel dilation, as `strides`.
    pub kernel_dilation: Vec<i64>,
    /// Whether to add a bias.
    pub use_bias: bool,
    /// Flip the kernel spatially and swap its feature axes (the gradient of a convolution).
    pub transpose_kernel: bool,
    /// The computation dtype (`None`: promoted).
    pub dtype: Option<DType>,
    /// The parameters' dtype.
    pub param_dtype: DType,
    /// The kernel's initializer (`lecun_normal`).
    pub kernel_init: Initializer,
    /// The bias's initializer (`zeros`).
    pub bias_init: Initializer,
}

const OP: &str = "nn.ConvTranspose";

impl ConvTranspose {
    /// A transposed convolution with flax's defaults.
    pub fn new(features: i64, kernel_size: &[i64]) -> ConvTranspose {
        ConvTranspose {
            features,
            kernel_size: kernel_size.to_vec(),
            strides: vec![1],
            padding: ConvPadding::Same,
            kernel_dilation: vec![1],
            use_bias: true,
            transpose_kernel: false,
            dtype: None,
            param_dtype: DType::F32,
            kernel_init: initializers::lecun_normal(),
            bias_init: initializers::zeros(),
        }
    }

    fn per_axis(&self, what: &str, v: &[i64]) -> Result<Vec<i64>> {
        let n = self.kernel_size.len();
        match v.len() {
            0 => Ok(vec![1; n]),
            1 => Ok(vec![v[0]; n]),
            k if k == n => Ok(v.to_vec()),
            _ => Err(Error::op(
                OP,
                format!("{what} {v:?} must have one value or one per spatial axis ({n})"),
            )),
        }
    }

    fn kernel_shape(&self, in_features: i64) -> Vec<i64> {
        let mut s = self.kernel_size.clone();
        if self.transpose_kernel {
            s.extend([self.features, in_features]);
        } else {
            s.extend([in_features, self.features]);
        }
        s
    }

    /// Parameters for inputs of `input_shape` (its last axis is the channels).
    pub fn init(&self, key: &Array, input_shape: &[i64]) -> Result<ConvParams> {
        let Some(&c) = input_shape.last() else {
            return Err(Error::op(OP, "the input has no channel axis".to_string()));
        };
        let keys = random::split(key, 2);
        let kernel = self
            .kernel_init
            .init(&keys[0], &self.kernel_shape(c), self.param_dtype);
        kernel.check()?;
        let bias = self.bias_init.init_param(
            self.use_bias,
            &keys[1],
            &[self.features],
            self.param_dtype,
        )?;
        Ok(ConvParams { kernel, bias })
    }

    /// The transposed convolution of `x`, plus the bias.
    pub fn apply(&self, params: &ConvParams, x: &Array) -> Array {
        or_failed(self.forward(params, x))
    }

    fn forward(&self, p: &ConvParams, x: &Array) -> Result<Array> {
        x.check()?;
        let ns = self.kernel_size.len();
        if x.rank() < ns + 1 {
            return Err(Error::op(
                OP,
                format!(
                    "a {ns}-D transposed convolution needs an input of rank at least {} \
                     ([*spatial, C]), got {}",
                    ns + 1,
                    describe(x.aval())
                ),
            ));
        }
        let n_batch = x.rank() - (ns + 1);
        let batch_shape = &x.dims()[..n_batch];
        let inputs = if n_batch == 1 {
            x.clone()
        } else {
            let mut s = vec![batch_shape.iter().product::<i64>()];
            s.extend_from_slice(&x.dims()[n_batch..]);
            np::reshape(x, &s)
        };
        let strides = self.per_axis("strides", &self.strides)?;
        let k_dil = self.per_axis("kernel_dilation", &self.kernel_dilation)?;
        let padding = match &self.padding {
            ConvPadding::Same => Padding::Same,
            ConvPadding::Valid => Padding::Valid,
            ConvPadding::Explicit(p) if p.len() == ns => Padding::Explicit(p.clone()),
            other => {
                return Err(Error::op(
                    OP,
                    format!(
                        "padding {other:?} is not supported (Same, Valid, or one explicit pair \
                         per spatial axis)"
                    ),
                ));
            }
        };
        let c = inputs.dims()[inputs.rank() - 1];
        check_param(OP, "kernel", &p.kernel, &self.kernel_shape(c))?;
        let mut args = vec![&inputs, &p.kernel];
        if let Some(b) = &p.bias {
            check_param(OP, "bias", b, &[self.features])?;
            args.push(b);
        }
        let v = promote(OP, &args, self.dtype)?;
        let y = lax::conv_transpose(
            &v[0],
            &v[1],
            &strides,
            &padding,
            Some(&k_dil),
            None,
            self.transpose_kernel,
        );
        y.check()?;
        Ok(bias_and_batch(
            y,
            v.get(2),
            self.features,
            batch_shape,
            n_batch,
        ))
    }
}
