//! `jax.nn`-style functions built from the numpy ops (so they trace and run eagerly alike),
//! and flax.linen-style layers over explicit parameters.
//!
//! The functions only re-export: their implementations are in `ops/` (activations in
//! `activation.rs`, the softmax family in `softmax.rs`, normalisations in `norm.rs`,
//! attention in `attention.rs`, `one_hot` in `creation.rs`).
//!
//! The layers are functional: a layer is a configuration struct (flax's module attributes,
//! with flax's defaults from `new`), `init(key, input shape)` returns its parameters as a
//! `#[derive(Tree)]` struct whose leaves carry flax's names (`kernel`, `bias`, `scale`,
//! `embedding`, …), and `apply(&params, x, …)` computes what the flax module computes with
//! those parameters. Parameters are ordinary pytrees: `grad`, `jit` and `vmap` take them, and
//! a model is a struct of them. Initializers are [`initializers`], JAX's.
//!
//! ```
//! use systolic::{grad, nn, numpy as np, random, Array, Tree};
//! #[derive(Tree, Clone)]
//! struct Model { embed: nn::EmbedParams, norm: nn::LayerNormParams, head: nn::DenseParams }
//! let (embed, norm, head) = (nn::Embed::new(16, 8), nn::LayerNorm::new(), nn::Dense::new(16));
//! let k = random::split(&random::key(0), 3);
//! let m = Model {
//!     embed: embed.init(&k[0]).unwrap(),
//!     norm: norm.init(&k[1], &[4, 8]).unwrap(),
//!     head: head.init(&k[2], &[4, 8]).unwrap(),
//! };
//! let ids = Array::from_vec(vec![1i32, 5, 9, 2], &[4]);
//! let loss = |m: &Model| {
//!     let h = norm.apply(&m.norm, &embed.apply(&m.embed, &ids));
//!     np::mean(&np::square(&head.apply(&m.head, &h)), None, false)
//! };
//! let g = grad(loss).call(&m).unwrap();
//! assert_eq!(g.head.kernel.shape(), &[8, 16]);
//! assert_eq!(g.embed.embedding.shape(), &[16, 8]);
//! ```

mod attention;
mod conv;
mod conv_transpose;
mod dense;
mod dropout;
mod dtypes;
mod embed;
pub mod initializers;
mod masks;
mod mlp;
mod norm;

pub use crate::ops::activation::{
    celu, elu, gelu, glu, hard_sigmoid, hard_silu, hard_tanh, leaky_relu, log_sigmoid, relu, relu6,
    selu, sigmoid, silu, softplus,
};
pub use crate::ops::attention::dot_product_attention;
pub use crate::ops::creation::one_hot;
pub use crate::ops::norm::{layer_norm, rms_norm, standardize};
pub use crate::ops::softmax::{
    log_softmax, log_softmax_axes, logsumexp, logsumexp_axes, softmax, softmax_axes,
};
pub use attention::{AttentionParams, MultiHeadDotProductAttention};
pub use conv::{Conv, ConvPadding, ConvParams};
pub use conv_transpose::ConvTranspose;
pub use dense::{Dense, DenseGeneral, DenseGeneralParams, DenseParams};
pub use dropout::Dropout;
pub use embed::{Embed, EmbedParams};
pub use initializers::Initializer;
pub use masks::{combine_masks, make_attention_mask, make_causal_mask};
pub use mlp::{Activation, Mlp, MlpParams};
pub use norm::{LayerNorm, LayerNormParams, RMSNorm, RMSNormParams};
