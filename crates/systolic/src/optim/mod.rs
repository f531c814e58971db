//! Optimizers in the style of optax: a [`GradientTransformation`] is a pair of functions,
//! `init(params) -> state` and `update(grads, state, params) -> (updates, state)`, and
//! [`apply_updates`] adds the updates to the params.
//!
//! The state is an [`OptState`] ([`DynTree`]): one type for every optimizer, a pytree, so
//! it passes through `jit` (a training step takes and returns it), `grad` and checkpoints
//! (its leaves have key paths such as `[0].mu['w']`). Its structure follows optax's state
//! named tuples: `adam`'s is `(ScaleByAdamState{count:*,mu:…,nu:…},EmptyState)`. The step
//! count is an int32 scalar in the state, as in optax, so schedules are functions of a traced
//! count and a jitted step compiles once.
//!
//! Everything is built from ops, so the same code runs eagerly and under `jit`; the formulas
//! are optax's, op for op, and `tests/optim_golden.rs` checks the params after several steps
//! against optax's.
//!
//! ```
//! use systolic::{grad, jit, numpy as np, optim, Array};
//! let loss = |p: &Vec<Array>| np::sum(&np::square(&(&p[0] - 3.0)), None, false);
//! let opt = optim::adam(0.1);
//! let mut params = vec![Array::from_vec(vec![0.0f32, 1.0], &[2])];
//! let mut state = opt.init(&params).unwrap();
//! let step = jit(|(params, state): &(Vec<Array>, optim::OptState)| {
//!     let grads = grad(loss).call(params).unwrap();
//!     let (updates, state) = opt.update(&grads, state, params).unwrap();
//!     (optim::apply_updates(params, &updates).unwrap(), state)
//! });
//! for _ in 0..100 {
//!     (params, state) = step.call(&(params, state)).unwrap();
//! }
//! assert!(loss(&params).to_vec::<f32>().unwrap()[0] < 1e-2);
//! assert_eq!(step.trace_count(), 1);
//! ```

mod alias;
mod combine;
mod factored;
mod multi_steps;
mod schedule;
mod state;
mod transform;

pub use alias::{
    adafactor, adam, adamw, lion, rmsprop, sgd, Adafactor, Adam, Adamw, Lion, Rmsprop, Sgd,
};
pub use combine::{chain, masked, Mask};
pub use factored::scale_by_factored_rms;
pub use multi_steps::MultiSteps;
pub use schedule::{
    constant_schedule, cosine_decay_schedule, exponential_decay, join_schedules, linear_schedule,
    piecewise_constant_schedule, polynomial_schedule, warmup_cosine_decay_schedule, Schedule,
};
pub use transform::{
    add_decayed_weights, clip_by_block_rms, clip_by_global_norm, ema, global_norm, identity, scale,
    scale_by_adam, scale_by_learning_rate, scale_by_lion, scale_by_param_block_rms, scale_by_rms,
    scale_by_schedule, scale_by_stddev, trace,
};

use crate::array::Array;
use crate::error::{Error, Result};
use crate::tree::{check_same_as, tree_leaves, tree_map2, DynTree, Tree, TreeDef};
use std::sync::Arc;

/// An optimizer's state: a pytree whose structure the optimizer's `init` chose.
pub type OptState = DynTree;

/// What a transformation sees of a params (or updates) tree: its structure and its leaves in
/// order. Transformations work leaf by leaf, so they do not need the params' Rust type.
#[derive(Clone, Copy, Debug)]
pub struct Flat<'a> {
    /// The structure of the params.
    pub def: &'a TreeDef,
    /// The leaves of the params, in order.
    pub leaves: &'a [Array],
}

impl Flat<'_> {
    /// A tree of the params' structure holding `leaves` (for a state that mirrors the params,
    /// such as Adam's moments).
    pub fn tree_like(&self, leaves: Vec<Array>) -> Result<DynTree> {
        DynTree::from_def(self.def, leaves)
    }
}

type InitFn = dyn Fn(&Flat) -> Result<OptState> + Send + Sync;
type UpdateFn =
    dyn Fn(Vec<Array>, &OptState, &Flat) -> Result<(Vec<Array>, OptState)> + Send + Sync;

/// An optimizer or one of its building blocks (`optax.GradientTransformation`): `init` makes
/// the state from the params, `update` turns gradients (or the updates of the previous
/// transformation of a [`chain`]) into updates and a new state.
///
/// Cloning is cheap (the functions are shared). Write your own with
/// [`GradientTransformation::new`].
#[derive(Clone)]
pub struct GradientTransformation {
    init: Arc<InitFn>,
    update: Arc<UpdateFn>,
}

impl std::fmt::Debug for GradientTransformation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GradientTransformation")
    }
}

impl GradientTransformation {
    /// A transformation from its two functions over flat leaves: `init(params)` returns the
    /// state; `update(updates, state, params)` returns one update per leaf and the new state.
    ///
    /// ```
    /// use systolic::{optim::{self, GradientTransformation, OptState}, Array, Tree};
    /// // Flip the sign of every update; no state.
    /// let negate = GradientTransformation::new(
    ///     |_| Ok(OptState::Tuple(String::new(), vec![])),
    ///     |updates, state, _| Ok((updates.iter().map(|u| -u).collect(), state.clone())),
    /// );
    /// let p = vec![Array::scalar(1.0f32)];
    /// let s = negate.init(&p).unwrap();
    /// let (u, _) = negate.update(&p, &s, &p).unwrap();
    /// assert_eq!(u[0].to_vec::<f32>().unwrap(), vec![-1.0]);
    /// ```
    pub fn new(
        init: impl Fn(&Flat) -> Result<OptState> + Send + Sync + 'static,
        update: impl Fn(Vec<Array>, &OptState, &Flat) -> Result<(Vec<Array>, OptState)>
            + Send
            + Sync
            + 'static,
    ) -> GradientTransformation {
        GradientTransformation {
            init: Arc::new(init),
            update: Arc::new(update),
        }
    }

    /// The initial state for `params`.
    pub fn init<P: Tree>(&self, params: &P) -> Result<OptState> {
        let (def, leaves) = (params.def(), tree_leaves(params));
        self.init_flat(&Flat {
            def: &def,
            leaves: &leaves,
        })
    }

    /// The updates for `grads` and the new state. `grads` and `params` must have one
    /// structure; `state` must be what this transformation's `init` (or a previous `update`)
    /// returned.
    pub fn update<P: Tree>(
        &self,
        grads: &P,
        state: &OptState,
        params: &P,
    ) -> Result<(P, OptState)> {
        let def = params.def();
        check_same_as("optim.update", ("params", &def), ("grads", &grads.def()))?;
        let leaves = tree_leaves(params);
        let flat = Flat {
            def: &def,
            leaves: &leaves,
        };
        let (updates, state) = self.update_flat(tree_leaves(grads), state, &flat)?;
        let n = updates.len();
        let mut it = updates.into_iter();
        let out = grads.rebuild(&mut it)?;
        if it.next().is_some() || n != leaves.len() {
            return Err(Error::op(
                "optim.update",
                format!(
                    "the transformation returned {n} updates for {} params",
                    leaves.len()
                ),
            ));
        }
        Ok((out, state))
    }

    /// [`init`](Self::init) on flat leaves (what a [`chain`] calls).
    pub fn init_flat(&self, params: &Flat) -> Result<OptState> {
        (self.init)(params)
    }

    /// [`update`](Self::update) on flat leaves (what a [`chain`] calls).
    pub fn update_flat(
        &self,
        updates: Vec<Array>,
        state: &OptState,
        params: &Flat,
    ) -> Result<(Vec<Array>, OptState)> {
        if updates.len() != params.leaves.len() {
            return Err(Error::op(
                "optim.update",
                format!(
                    "{} updates for {} params ({})",
                    updates.len(),
                    params.leaves.len(),
                    params.def
                ),
            ));
        }
        (self.update)(updates, state, params)
    }
}

/// `params + updates` leaf by leaf, each result in its param's dtype (`optax.apply_updates`).
///
/// ```
/// use systolic::{optim, Array};
/// let p = vec![Array::scalar(1.0f32)];
/// let u = vec![Array::scalar(-0.25f32)];
/// assert_eq!(optim::apply_updates(&p, &u).unwrap()[0].to_vec::<f32>().unwrap(), vec![0.75]);
/// ```
pub fn apply_updates<P: Tree>(params: &P, updates: &P) -> Result<P> {
    tree_map2(params, updates, |p, u| {
        crate::numpy::astype(&(p + u), p.element_type())
    })
}
