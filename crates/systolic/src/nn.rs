//! `jax.nn`-style functions built from the numpy ops (so they trace and run eagerly alike).
//!
//! This module only re-exports: the implementations are in `ops/` (activations in
//! `activation.rs`, the softmax family in `softmax.rs`, normalisations in `norm.rs`,
//! attention in `attention.rs`, `one_hot` in `creation.rs`).

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
