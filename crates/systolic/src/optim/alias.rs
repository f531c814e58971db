//! The optimizers (optax's `alias.py`): each a [`chain`] of building blocks, with optax's
//! defaults.
//!
//! Each has a function taking the learning rate with every other option at optax's default
//! (`optim::adam(1e-3)`), and an options struct for the rest, built with the learning rate:
//! `optim::Adam { b2: 0.95, ..Default::default() }.build(1e-3)`. A learning rate is a number or
//! a [`Schedule`].

use super::combine::chain;
use super::factored::scale_by_factored_rms;
use super::transform::{
    add_decayed_weights, clip_by_block_rms, ema, identity, scale, scale_by_adam,
    scale_by_learning_rate, scale_by_lion, scale_by_param_block_rms, scale_by_rms, scale_by_stddev,
    trace,
};
use super::{GradientTransformation, Mask, Schedule};

/// Stochastic gradient descent, with momentum and Nesterov's variant (`optax.sgd`).
#[derive(Clone, Debug, Default)]
pub struct Sgd {
    /// The momentum decay (`trace`), none by default.
    pub momentum: Option<f64>,
    /// Nesterov momentum.
    pub nesterov: bool,
}

impl Sgd {
    /// The optimizer: `chain(trace(momentum) or identity, scale_by_learning_rate(lr))`.
    ///
    /// ```
    /// use systolic::{optim, Array};
    /// let opt = optim::Sgd { momentum: Some(0.9), nesterov: true }.build(0.1);
    /// let p = vec![Array::scalar(1.0f32)];
    /// let (u, _) = opt.update(&p, &opt.init(&p).unwrap(), &p).unwrap();
    /// assert_eq!(u[0].to_vec::<f32>().unwrap(), vec![-0.19]); // -(g + 0.9 * g) * 0.1
    /// ```
    pub fn build(self, learning_rate: impl Into<Schedule>) -> GradientTransformation {
        let first = match self.momentum {
            Some(m) => trace(m, self.nesterov),
            None => identity(),
        };
        chain(vec![first, scale_by_learning_rate(learning_rate, true)])
    }
}

/// `optax.sgd(learning_rate)`: plain gradient descent.
///
/// ```
/// use systolic::{optim, Array};
/// let opt = optim::sgd(0.5);
/// let p = vec![Array::scalar(2.0f32)];
/// let (u, _) = opt.update(&p, &opt.init(&p).unwrap(), &p).unwrap();
/// assert_eq!(optim::apply_updates(&p, &u).unwrap()[0].to_vec::<f32>().unwrap(), vec![1.0]);
/// ```
pub fn sgd(learning_rate: impl Into<Schedule>) -> GradientTransformation {
    Sgd::default().build(learning_rate)
}

/// Adam's options (`optax.adam`).
#[derive(Clone, Debug)]
pub struct Adam {
    /// Decay of the first moment, 0.9.
    pub b1: f64,
    /// Decay of the second moment, 0.999.
    pub b2: f64,
    /// Added to the denominator, 1e-8.
    pub eps: f64,
    /// Added inside the square root, 0.
    pub eps_root: f64,
    /// Nesterov's variant (NAdam).
    pub nesterov: bool,
}

impl Default for Adam {
    fn default() -> Adam {
        Adam {
            b1: 0.9,
            b2: 0.999,
            eps: 1e-8,
            eps_root: 0.0,
            nesterov: false,
        }
    }
}

impl Adam {
    fn scaling(&self) -> GradientTransformation {
        scale_by_adam(self.b1, self.b2, self.eps, self.eps_root, self.nesterov)
    }

    /// `chain(scale_by_adam(…), scale_by_learning_rate(lr))`.
    pub fn build(self, learning_rate: impl Into<Schedule>) -> GradientTransformation {
        chain(vec![
            self.scaling(),
            scale_by_learning_rate(learning_rate, true),
        ])
    }
}

/// `optax.adam(learning_rate)` with optax's defaults.
///
/// ```
/// use systolic::{optim, Array, Tree};
/// let opt = optim::adam(1e-3);
/// let p = vec![Array::from_vec(vec![1.0f32, -2.0], &[2])];
/// let state = opt.init(&p).unwrap();
/// assert_eq!(state.structure(), "(ScaleByAdamState{count:*,mu:[*],nu:[*]},EmptyState)");
/// let (u, _) = opt.update(&p, &state, &p).unwrap();
/// // The first Adam step is -lr * sign(g), up to eps and the rounding of the f32 corrections.
/// let u = u[0].to_vec::<f32>().unwrap();
/// assert!((u[0] + 1e-3).abs() < 1e-7 && (u[1] - 1e-3).abs() < 1e-7);
/// ```
pub fn adam(learning_rate: impl Into<Schedule>) -> GradientTransformation {
    Adam::default().build(learning_rate)
}

/// AdamW's options (`optax.adamw`): Adam with decoupled weight decay.
#[derive(Clone, Debug)]
pub struct Adamw {
    /// Adam's options.
    pub adam: Adam,
    /// The weight decay rate, 1e-4.
    pub weight_decay: f64,
    /// Which params are decayed (all when `None`).
    pub mask: Option<Mask>,
}

impl Default for Adamw {
    fn default() -> Adamw {
        Adamw {
            adam: Adam::default(),
            weight_decay: 1e-4,
            mask: None,
        }
    }
}

impl Adamw {
    /// `chain(scale_by_adam(…), add_decayed_weights(weight_decay, mask),
    /// scale_by_learning_rate(lr))`.
    pub fn build(self, learning_rate: impl Into<Schedule>) -> GradientTransformation {
        chain(vec![
            self.adam.scaling(),
            add_decayed_weights(self.weight_decay, self.mask),
            scale_by_learning_rate(learning_rate, true),
        ])
    }
}

/// `optax.adamw(learning_rate)` with optax's defaults (weight decay 1e-4 on every param).
///
/// ```
/// use systolic::{optim::{self, Mask}, Array};
/// // Weight decay 0.1 on matrices only, with warmup and cosine decay.
/// let lr = optim::warmup_cosine_decay_schedule(0.0, 3e-4, 100, 10_000, 3e-5, 1.0);
/// let opt = optim::Adamw {
///     weight_decay: 0.1,
///     mask: Some(Mask::new(|_, p| p.ndim() >= 2)),
///     ..Default::default()
/// }
/// .build(lr);
/// # let _ = (opt, optim::adamw(1e-3));
/// ```
pub fn adamw(learning_rate: impl Into<Schedule>) -> GradientTransformation {
    Adamw::default().build(learning_rate)
}

/// Lion's options (`optax.lion`).
#[derive(Clone, Debug)]
pub struct Lion {
    /// Interpolation between the gradient and the momentum for the sign, 0.9.
    pub b1: f64,
    /// Decay of the momentum, 0.99.
    pub b2: f64,
    /// The weight decay rate, 1e-3.
    pub weight_decay: f64,
    /// Which params are decayed (all when `None`).
    pub mask: Option<Mask>,
}

impl Default for Lion {
    fn default() -> Lion {
        Lion {
            b1: 0.9,
            b2: 0.99,
            weight_decay: 1e-3,
            mask: None,
        }
    }
}

impl Lion {
    /// `chain(scale_by_lion(b1, b2), add_decayed_weights(…), scale_by_learning_rate(lr))`.
    pub fn build(self, learning_rate: impl Into<Schedule>) -> GradientTransformation {
        chain(vec![
            scale_by_lion(self.b1, self.b2),
            add_decayed_weights(self.weight_decay, self.mask),
            scale_by_learning_rate(learning_rate, true),
        ])
    }
}

/// `optax.lion(learning_rate)` with optax's defaults.
pub fn lion(learning_rate: impl Into<Schedule>) -> GradientTransformation {
    Lion::default().build(learning_rate)
}

/// RMSProp's options (`optax.rmsprop`).
#[derive(Clone, Debug)]
pub struct Rmsprop {
    /// Decay of the moving averages, 0.9.
    pub decay: f64,
    /// Stability term, 1e-8.
    pub eps: f64,
    /// The second moment's initial value, 0.
    pub initial_scale: f64,
    /// `eps` inside the square root (true) or added to it.
    pub eps_in_sqrt: bool,
    /// Divide by the standard deviation instead of the RMS (centred RMSProp).
    pub centered: bool,
    /// Momentum applied after the scaling, none by default.
    pub momentum: Option<f64>,
    /// Nesterov momentum.
    pub nesterov: bool,
    /// Bias-correct the moving averages.
    pub bias_correction: bool,
}

impl Default for Rmsprop {
    fn default() -> Rmsprop {
        Rmsprop {
            decay: 0.9,
            eps: 1e-8,
            initial_scale: 0.0,
            eps_in_sqrt: true,
            centered: false,
            momentum: None,
            nesterov: false,
            bias_correction: false,
        }
    }
}

impl Rmsprop {
    /// `chain(scale_by_rms or scale_by_stddev, scale_by_learning_rate(lr), trace or
    /// identity)`.
    pub fn build(self, learning_rate: impl Into<Schedule>) -> GradientTransformation {
        let scaling = if self.centered {
            scale_by_stddev
        } else {
            scale_by_rms
        };
        chain(vec![
            scaling(
                self.decay,
                self.eps,
                self.initial_scale,
                self.eps_in_sqrt,
                self.bias_correction,
            ),
            scale_by_learning_rate(learning_rate, true),
            match self.momentum {
                Some(m) => trace(m, self.nesterov),
                None => identity(),
            },
        ])
    }
}

/// `optax.rmsprop(learning_rate)` with optax's defaults.
pub fn rmsprop(learning_rate: impl Into<Schedule>) -> GradientTransformation {
    Rmsprop::default().build(learning_rate)
}

/// Adafactor's options (`optax.adafactor`).
#[derive(Clone, Debug)]
pub struct Adafactor {
    /// Factor the second moment of params whose two largest dimensions are at least this, 128.
    pub min_dim_size_to_factor: i64,
    /// The second moment's decay exponent: decay `1 - (t + 1)^-decay_rate`, 0.8.
    pub decay_rate: f64,
    /// Step offset of the decay schedule (for fine-tuning), 0.
    pub decay_offset: i64,
    /// Scale the step by each param's RMS (a step relative to the param's size), true.
    pub multiply_by_parameter_scale: bool,
    /// Clip each update's RMS to this, 1.0 (`None`: no clipping).
    pub clipping_threshold: Option<f64>,
    /// Momentum (an EMA of the updates), none by default.
    pub momentum: Option<f64>,
    /// Decoupled weight decay, none by default.
    pub weight_decay_rate: Option<f64>,
    /// Which params are decayed (all when `None`).
    pub weight_decay_mask: Option<Mask>,
    /// Added to the squared gradients, 1e-30.
    pub eps: f64,
    /// Use factored second moments at all, true.
    pub factored: bool,
}

impl Default for Adafactor {
    fn default() -> Adafactor {
        Adafactor {
            min_dim_size_to_factor: 128,
            decay_rate: 0.8,
            decay_offset: 0,
            multiply_by_parameter_scale: true,
            clipping_threshold: Some(1.0),
            momentum: None,
            weight_decay_rate: None,
            weight_decay_mask: None,
            eps: 1e-30,
            factored: true,
        }
    }
}

impl Adafactor {
    /// `chain(scale_by_factored_rms, clip_by_block_rms, scale_by_learning_rate(lr, no flip),
    /// scale_by_param_block_rms, ema, add_decayed_weights, scale(-1))`, each only when its
    /// option asks for it, as optax builds it.
    pub fn build(self, learning_rate: impl Into<Schedule>) -> GradientTransformation {
        let mut ts = vec![scale_by_factored_rms(
            self.factored,
            self.decay_rate,
            self.decay_offset,
            self.min_dim_size_to_factor,
            self.eps,
        )];
        if let Some(t) = self.clipping_threshold {
            ts.push(clip_by_block_rms(t));
        }
        ts.push(scale_by_learning_rate(learning_rate, false));
        if self.multiply_by_parameter_scale {
            ts.push(scale_by_param_block_rms(1e-3));
        }
        if let Some(m) = self.momentum {
            ts.push(ema(m, false));
        }
        if let Some(wd) = self.weight_decay_rate {
            ts.push(add_decayed_weights(wd, self.weight_decay_mask));
        }
        ts.push(scale(-1.0));
        chain(ts)
    }
}

/// `optax.adafactor(learning_rate)` with optax's defaults.
///
/// ```
/// use systolic::{optim, numpy as np, Array, Tree};
/// let p = vec![np::ones(&[128, 256], systolic_ir::DType::F32), np::ones(&[3], systolic_ir::DType::F32)];
/// let opt = optim::adafactor(1e-2);
/// let state = opt.init(&p).unwrap();
/// // The matrix keeps a row and a column; the vector the full second moment.
/// let v_row = state.get("[0].v_row[0]").and_then(|n| n.as_leaf()).unwrap();
/// assert_eq!(v_row.shape(), &[128]);
/// ```
pub fn adafactor(learning_rate: impl Into<Schedule>) -> GradientTransformation {
    Adafactor::default().build(learning_rate)
}
