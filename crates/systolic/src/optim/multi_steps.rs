//! Gradient accumulation over `k` steps (`optax.MultiSteps`).

use super::state::{field, named, per_param, safe_increment, scalar};
use super::{Flat, GradientTransformation, OptState};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::numpy as np;
use crate::ops::elementwise::weak_int;
use crate::tree::{tree_leaves, DynTree, Tree};
use systolic_ir::DType;

/// Accumulates gradients over `every_k` calls and runs the inner optimizer on their mean (or
/// sum) every `every_k`-th call, returning zero updates in between (`optax.MultiSteps`): a
/// batch `k` times larger than what fits at once.
///
/// Like optax it computes the inner update at every call and keeps it only on the emitting
/// call (a select, so the step is one program under `jit`). State
/// `MultiStepsState{mini_step,gradient_step,inner_opt_state,acc_grads,skip_state}`.
///
/// ```
/// use systolic::{optim, Array};
/// let opt = optim::MultiSteps::new(optim::sgd(1.0), 2).build();
/// let p = vec![Array::scalar(0.0f32)];
/// let mut s = opt.init(&p).unwrap();
/// let mut seen = vec![];
/// for g in [1.0f32, 3.0, 5.0, 7.0] {
///     let (u, next) = opt.update(&vec![Array::scalar(g)], &s, &p).unwrap();
///     seen.push(u[0].to_vec::<f32>().unwrap()[0]);
///     s = next;
/// }
/// assert_eq!(seen, [0.0, -2.0, 0.0, -6.0]); // the mean of each pair, every second call
/// assert!(optim::MultiSteps::has_updated(&s).unwrap().to_vec::<bool>().unwrap()[0]);
/// ```
#[derive(Clone, Debug)]
pub struct MultiSteps {
    opt: GradientTransformation,
    every_k: i64,
    use_grad_mean: bool,
}

impl MultiSteps {
    /// `opt` applied once every `every_k` calls to the mean of the gradients in between.
    pub fn new(opt: GradientTransformation, every_k: i64) -> MultiSteps {
        MultiSteps {
            opt,
            every_k,
            use_grad_mean: true,
        }
    }

    /// Sum the gradients instead of averaging them (optax's `use_grad_mean=False`).
    pub fn use_grad_mean(mut self, mean: bool) -> MultiSteps {
        self.use_grad_mean = mean;
        self
    }

    /// True (a bool scalar) when the last update applied the inner optimizer
    /// (`MultiSteps.has_updated`).
    pub fn has_updated(state: &OptState) -> Result<Array> {
        let mini = scalar("MultiSteps", state, "mini_step")?;
        let step = scalar("MultiSteps", state, "gradient_step")?;
        Ok(np::logical_and(
            &np::equal(&mini, &weak_int(0)),
            &np::greater(&step, &weak_int(0)),
        ))
    }

    /// The transformation.
    pub fn build(self) -> GradientTransformation {
        let MultiSteps {
            opt,
            every_k,
            use_grad_mean,
        } = self;
        let init_opt = opt.clone();
        if every_k < 1 {
            let e = move || {
                Error::op(
                    "optim.MultiSteps",
                    format!("every_k must be at least 1, got {every_k}"),
                )
            };
            return GradientTransformation::new(move |_| Err(e()), move |_, _, _| Err(e()));
        }
        GradientTransformation::new(
            move |p: &Flat| {
                let acc = p
                    .leaves
                    .iter()
                    .map(|x| np::zeros(x.dims(), DType::F32))
                    .collect();
                Ok(state(
                    Array::scalar(0i32),
                    Array::scalar(0i32),
                    init_opt.init_flat(p)?,
                    p.tree_like(acc)?,
                ))
            },
            move |u, s, p| {
                let op = "MultiSteps";
                let mini = scalar(op, s, "mini_step")?;
                let step = scalar(op, s, "gradient_step")?;
                let inner = field(op, s, "inner_opt_state")?;
                let acc = per_param(op, s, "acc_grads", p)?;
                let acc: Vec<Array> = u
                    .iter()
                    .zip(&acc)
                    .map(|(g, a)| {
                        if use_grad_mean {
                            a + &(&(g - a) / &(&mini + 1))
                        } else {
                            g + a
                        }
                    })
                    .collect();
                let cast = acc
                    .iter()
                    .zip(&u)
                    .map(|(a, g)| np::astype(a, g.element_type()))
                    .collect();
                let (updates, new_inner) = opt.update_flat(cast, inner, p)?;
                let k = weak_int(every_k);
                let emit = np::equal(&mini, &(&k - 1));
                let emit_i = np::astype(&emit, DType::I32);
                let keep_i = 1 - &emit_i;
                let mini = np::remainder(&safe_increment(&mini), &k);
                let step = &(&emit_i * &safe_increment(&step)) + &(&keep_i * &step);
                let (old, new) = (tree_leaves(inner), tree_leaves(&new_inner));
                if old.len() != new.len() {
                    return Err(Error::op(
                        "optim.MultiSteps",
                        "the inner optimizer changed the number of its state leaves",
                    ));
                }
                let merged = old
                    .iter()
                    .zip(&new)
                    .map(|(o, n)| np::astype(&np::where_(&emit, n, o), o.element_type()))
                    .collect();
                let inner_state = inner.rebuild(&mut Vec::into_iter(merged))?;
                let acc = acc
                    .iter()
                    .map(|a| np::astype(&(&keep_i * a), DType::F32))
                    .collect();
                let out = updates.iter().map(|x| &emit_i * x).collect();
                Ok((out, state(mini, step, inner_state, p.tree_like(acc)?)))
            },
        )
    }
}

fn state(mini: Array, step: Array, inner: OptState, acc: DynTree) -> OptState {
    named(
        "MultiStepsState",
        vec![
            ("mini_step", DynTree::Leaf(mini)),
            ("gradient_step", DynTree::Leaf(step)),
            ("inner_opt_state", inner),
            ("acc_grads", acc),
            ("skip_state", DynTree::Tuple(String::new(), vec![])),
        ],
    )
}
