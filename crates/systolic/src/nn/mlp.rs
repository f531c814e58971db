//! An MLP block as transformers use it: `Dense(hidden) → activation → Dropout →
//! Dense(out)`. flax has no such module; this is what a flax user writes with two `nn.Dense`
//! and `nn.Dropout`, with the submodules named `hidden` and `output`.

use super::dense::{Dense, DenseParams};
use super::dropout::Dropout;
use super::dtypes::or_failed;
use super::initializers::{self, Initializer};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::random;
use crate::Tree;
use systolic_ir::DType;

/// The MLP's nonlinearity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `jax.nn.relu`.
    Relu,
    /// `jax.nn.gelu(x, approximate)` (flax's and JAX's default is the tanh approximation).
    Gelu {
        /// The tanh approximation (true) or the exact erf form.
        approximate: bool,
    },
    /// `jax.nn.silu` (swish).
    Silu,
    /// `jnp.tanh`.
    Tanh,
}

impl Activation {
    /// The activation of `x`.
    pub fn apply(self, x: &Array) -> Array {
        match self {
            Activation::Relu => crate::nn::relu(x),
            Activation::Gelu { approximate } => crate::nn::gelu(x, approximate),
            Activation::Silu => crate::nn::silu(x),
            Activation::Tanh => crate::numpy::tanh(x),
        }
    }
}

/// [`Mlp`]'s parameters.
#[derive(Tree, Clone, Debug)]
pub struct MlpParams {
    /// The first projection, `[in, hidden_features]`.
    pub hidden: DenseParams,
    /// The second projection, `[hidden_features, out_features]`.
    pub output: DenseParams,
}

/// `Dense(hidden_features) → activation → Dropout(dropout_rate) → Dense(out_features)` over
/// the last axis. `init` draws `hidden` and `output` from `random::split(key, 2)`.
///
/// ```
/// use systolic::{nn::{Activation, Mlp}, random, Array};
/// let mlp = Mlp::new(16, Some(4));
/// assert_eq!(mlp.activation, Activation::Gelu { approximate: true });
/// let p = mlp.init(&random::key(0), &[3, 8]).unwrap();
/// assert_eq!(p.hidden.kernel.shape(), &[8, 16]);
/// let x = Array::from_vec(vec![0.1f32; 24], &[3, 8]);
/// assert_eq!(mlp.apply(&p, &x, None).shape(), &[3, 4]);
/// ```
#[derive(Clone, Debug)]
pub struct Mlp {
    /// The hidden width.
    pub hidden_features: i64,
    /// The output width (`None`: the input's).
    pub out_features: Option<i64>,
    /// The nonlinearity after the first projection.
    pub activation: Activation,
    /// Dropout after the activation (applied only when `apply` gets a key).
    pub dropout_rate: f64,
    /// Whether the projections have biases.
    pub use_bias: bool,
    /// The computation dtype (`None`: promoted).
    pub dtype: Option<DType>,
    /// The parameters' dtype.
    pub param_dtype: DType,
    /// The kernels' initializer (`lecun_normal`).
    pub kernel_init: Initializer,
    /// The biases' initializer (`zeros`).
    pub bias_init: Initializer,
}

impl Mlp {
    /// A GELU (tanh approximation) MLP without dropout.
    pub fn new(hidden_features: i64, out_features: Option<i64>) -> Mlp {
        Mlp {
            hidden_features,
            out_features,
            activation: Activation::Gelu { approximate: true },
            dropout_rate: 0.0,
            use_bias: true,
            dtype: None,
            param_dtype: DType::F32,
            kernel_init: initializers::lecun_normal(),
            bias_init: initializers::zeros(),
        }
    }

    fn dense(&self, features: i64) -> Dense {
        Dense {
            features,
            use_bias: self.use_bias,
            dtype: self.dtype,
            param_dtype: self.param_dtype,
            kernel_init: self.kernel_init.clone(),
            bias_init: self.bias_init.clone(),
        }
    }

    fn out_features(&self, input_shape: &[i64]) -> Result<i64> {
        match (self.out_features, input_shape.last()) {
            (Some(f), _) => Ok(f),
            (None, Some(&f)) => Ok(f),
            (None, None) => Err(Error::op(
                "nn.Mlp",
                "the input must have at least one axis".to_string(),
            )),
        }
    }

    /// Parameters for inputs of `input_shape`.
    pub fn init(&self, key: &Array, input_shape: &[i64]) -> Result<MlpParams> {
        let keys = random::split(key, 2);
        let out = self.out_features(input_shape)?;
        let hidden = self
            .dense(self.hidden_features)
            .init(&keys[0], input_shape)?;
        let mut mid = input_shape.to_vec();
        if let Some(last) = mid.last_mut() {
            *last = self.hidden_features;
        }
        let output = self.dense(out).init(&keys[1], &mid)?;
        Ok(MlpParams { hidden, output })
    }

    /// The block on `x`; `dropout_rng` `None` is deterministic.
    pub fn apply(&self, params: &MlpParams, x: &Array, dropout_rng: Option<&Array>) -> Array {
        or_failed((|| {
            let out = self.out_features(x.dims())?;
            let h = self.dense(self.hidden_features).apply(&params.hidden, x);
            let h = self.activation.apply(&h);
            let h = Dropout::new(self.dropout_rate).apply(&h, dropout_rng.is_none(), dropout_rng);
            Ok(self.dense(out).apply(&params.output, &h))
        })())
    }
}
