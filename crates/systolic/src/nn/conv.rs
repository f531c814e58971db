//! `flax.linen.Conv`: a convolution over the spatial axes of a channels-last input
//! (`[N, *spatial, C]`, e.g. NHWC), with an `[*kernel_size, C / groups, features]` kernel,
//! strides, padding, input and kernel dilation and feature groups, plus a bias.

use super::dtypes::{check_param, or_failed, promote};
use super::initializers::{self, Initializer};
use crate::array::{describe, Array};
use crate::error::{Error, Result};
use crate::lax;
use crate::lax::{ConvDimensions, Padding};
use crate::numpy as np;
use crate::numpy::PadMode;
use crate::random;
use crate::Tree;
use systolic_ir::DType;

/// [`Conv`]'s parameters, as flax names them.
#[derive(Tree, Clone, Debug)]
pub struct ConvParams {
    /// `[*kernel_size, in_features / feature_group_count, features]`.
    pub kernel: Array,
    /// `[features]`, absent with `use_bias = false`.
    pub bias: Option<Array>,
}

/// How [`Conv`] pads its input (flax's `padding`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvPadding {
    /// Output size `ceil(input / stride)`.
    Same,
    /// No padding.
    Valid,
    /// `(low, high)` per spatial axis.
    Explicit(Vec<(i64, i64)>),
    /// 1-D only: `(kernel − 1) · dilation` zeros on the left, so an output sees no later input.
    Causal,
    /// Wrap-around padding by half the dilated kernel on each side, then `Valid`.
    Circular,
    /// Mirror padding by half the dilated kernel on each side, then `Valid`.
    Reflect,
}

/// `flax.linen.Conv(features, kernel_size)`.
///
/// Inputs are channels-last with one batch axis (`[N, *spatial, C]`), none (`[*spatial, C]`)
/// or several (flattened for the convolution and restored after), as in flax. `strides`,
/// `input_dilation` and `kernel_dilation` hold one value per spatial axis (or one for all).
/// `init` draws the kernel and the bias from `random::split(key, 2)`'s first and second keys.
///
/// ```
/// use systolic::{nn::{Conv, ConvPadding}, random, Array};
/// let conv = Conv { padding: ConvPadding::Valid, ..Conv::new(4, &[3, 3]) };
/// let p = conv.init(&random::key(0), &[1, 5, 5, 2]).unwrap();
/// assert_eq!(p.kernel.shape(), &[3, 3, 2, 4]);
/// let x = Array::from_vec(vec![1.0f32; 50], &[1, 5, 5, 2]);
/// assert_eq!(conv.apply(&p, &x).shape(), &[1, 3, 3, 4]);
/// // SAME padding with stride 2 keeps ceil(5 / 2) = 3 positions per axis.
/// let strided = Conv { strides: vec![2], ..Conv::new(4, &[3, 3]) };
/// assert_eq!(strided.apply(&p, &x).shape(), &[1, 3, 3, 4]);
/// ```
#[derive(Clone, Debug)]
pub struct Conv {
    /// The number of output channels.
    pub features: i64,
    /// The window size per spatial axis.
    pub kernel_size: Vec<i64>,
    /// Window strides (one per spatial axis, or one for all; flax's default 1).
    pub strides: Vec<i64>,
    /// The padding (flax's default `SAME`).
    pub padding: ConvPadding,
    /// Input (lhs) dilation, as `strides`.
    pub input_dilation: Vec<i64>,
    /// Kernel (rhs) dilation, as `strides`.
    pub kernel_dilation: Vec<i64>,
    /// Feature groups: input and output channels split into this many independent groups.
    pub feature_group_count: i64,
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

impl Conv {
    /// A convolution with flax's defaults (stride 1, `SAME`, no dilation, one group, bias).
    pub fn new(features: i64, kernel_size: &[i64]) -> Conv {
        Conv {
            features,
            kernel_size: kernel_size.to_vec(),
            strides: vec![1],
            padding: ConvPadding::Same,
            input_dilation: vec![1],
            kernel_dilation: vec![1],
            feature_group_count: 1,
            use_bias: true,
            dtype: None,
            param_dtype: DType::F32,
            kernel_init: initializers::lecun_normal(),
            bias_init: initializers::zeros(),
        }
    }

    fn spatial(&self) -> usize {
        self.kernel_size.len()
    }

    /// One value per spatial axis from a per-axis or single setting.
    fn per_axis(&self, what: &str, v: &[i64]) -> Result<Vec<i64>> {
        let n = self.spatial();
        match v.len() {
            0 => Ok(vec![1; n]),
            1 => Ok(vec![v[0]; n]),
            k if k == n => Ok(v.to_vec()),
            _ => Err(Error::op(
                "nn.Conv",
                format!("{what} {v:?} must have one value or one per spatial axis ({n})"),
            )),
        }
    }

    fn kernel_shape(&self, in_features: i64) -> Result<Vec<i64>> {
        let g = self.feature_group_count;
        if g < 1 || in_features % g != 0 || self.features % g != 0 {
            return Err(Error::op(
                "nn.Conv",
                format!(
                    "feature_group_count {g} must divide the input channels ({in_features}) and \
                     the features ({})",
                    self.features
                ),
            ));
        }
        let mut s = self.kernel_size.clone();
        s.extend([in_features / g, self.features]);
        Ok(s)
    }

    /// Parameters for inputs of `input_shape` (its last axis is the channels).
    pub fn init(&self, key: &Array, input_shape: &[i64]) -> Result<ConvParams> {
        let Some(&c) = input_shape.last() else {
            return Err(Error::op(
                "nn.Conv",
                "the input has no channel axis".to_string(),
            ));
        };
        let keys = random::split(key, 2);
        let kernel = self
            .kernel_init
            .init(&keys[0], &self.kernel_shape(c)?, self.param_dtype);
        kernel.check()?;
        let bias = self.bias_init.init_param(
            self.use_bias,
            &keys[1],
            &[self.features],
            self.param_dtype,
        )?;
        Ok(ConvParams { kernel, bias })
    }

    /// The convolution of `x` with the kernel, plus the bias.
    pub fn apply(&self, params: &ConvParams, x: &Array) -> Array {
        or_failed(self.forward(params, x))
    }

    fn forward(&self, p: &ConvParams, x: &Array) -> Result<Array> {
        const OP: &str = "nn.Conv";
        x.check()?;
        let ns = self.spatial();
        if x.rank() < ns + 1 {
            return Err(Error::op(
                OP,
                format!(
                    "a {ns}-D convolution needs an input of rank at least {} ([*spatial, C]), \
                     got {}",
                    ns + 1,
                    describe(x.aval())
                ),
            ));
        }
        // One batch axis for the convolution: none gets one, several are flattened.
        let n_batch = x.rank() - (ns + 1);
        let batch_shape = &x.dims()[..n_batch];
        let mut inputs = if n_batch == 1 {
            x.clone()
        } else {
            let mut s = vec![batch_shape.iter().product::<i64>()];
            s.extend_from_slice(&x.dims()[n_batch..]);
            np::reshape(x, &s)
        };
        let strides = self.per_axis("strides", &self.strides)?;
        let in_dil = self.per_axis("input_dilation", &self.input_dilation)?;
        let k_dil = self.per_axis("kernel_dilation", &self.kernel_dilation)?;
        let dilated: Vec<i64> = self
            .kernel_size
            .iter()
            .zip(&k_dil)
            .map(|(k, d)| (k - 1) * d + 1)
            .collect();
        let pad_all = |pads: Vec<(i64, i64)>| {
            let mut all = vec![(0, 0)];
            all.extend(pads);
            all.push((0, 0));
            all
        };
        let padding = match &self.padding {
            ConvPadding::Same => Padding::Same,
            ConvPadding::Valid => Padding::Valid,
            ConvPadding::Explicit(p) => {
                if p.len() != ns {
                    return Err(Error::op(
                        OP,
                        format!(
                            "explicit padding {p:?} must have one pair per spatial axis ({ns})"
                        ),
                    ));
                }
                Padding::Explicit(p.clone())
            }
            ConvPadding::Causal => {
                if ns != 1 {
                    return Err(Error::op(
                        OP,
                        "causal padding is only implemented for 1-D convolutions".to_string(),
                    ));
                }
                let left = k_dil[0] * (self.kernel_size[0] - 1);
                inputs = np::pad(&inputs, &pad_all(vec![(left, 0)]), PadMode::Constant(0.0));
                Padding::Valid
            }
            ConvPadding::Circular | ConvPadding::Reflect => {
                let pads = dilated.iter().map(|k| ((k - 1) / 2, k / 2)).collect();
                let mode = if self.padding == ConvPadding::Circular {
                    PadMode::Wrap
                } else {
                    PadMode::Reflect
                };
                inputs = np::pad(&inputs, &pad_all(pads), mode);
                Padding::Valid
            }
        };
        let c = inputs.dims()[inputs.rank() - 1];
        check_param(OP, "kernel", &p.kernel, &self.kernel_shape(c)?)?;
        let mut args = vec![&inputs, &p.kernel];
        if let Some(b) = &p.bias {
            check_param(OP, "bias", b, &[self.features])?;
            args.push(b);
        }
        let v = promote(OP, &args, self.dtype)?;
        let letters: String = "HWDUVXYZ".chars().take(ns).collect();
        if letters.len() < ns {
            return Err(Error::op(
                OP,
                format!("{ns} spatial axes: at most 8 are supported"),
            ));
        }
        let dn = ConvDimensions::new(
            &format!("N{letters}C"),
            &format!("{letters}IO"),
            &format!("N{letters}C"),
        );
        let y = lax::conv_general_dilated(
            &v[0],
            &v[1],
            &strides,
            &padding,
            Some(&in_dil),
            Some(&k_dil),
            Some(&dn),
            self.feature_group_count,
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

/// A convolution's output `[n, ..., features]` with the bias (if any) added over its last axis
/// and the input's batch axes (`batch_shape`, `n_batch` of them, flattened into one before the
/// convolution) put back (shared by [`Conv`] and [`ConvTranspose`](super::ConvTranspose)).
pub(super) fn bias_and_batch(
    y: Array,
    bias: Option<&Array>,
    features: i64,
    batch_shape: &[i64],
    n_batch: usize,
) -> Array {
    let y = match bias {
        Some(b) => {
            let mut s = vec![1; y.rank() - 1];
            s.push(features);
            &y + &np::reshape(b, &s)
        }
        None => y,
    };
    if n_batch == 1 {
        return y;
    }
    let mut s = batch_shape.to_vec();
    s.extend_from_slice(&y.dims()[1..]);
    np::reshape(&y, &s)
}
