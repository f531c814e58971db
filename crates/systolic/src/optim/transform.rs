//! The building blocks optax composes its optimizers from: scaling (by a constant, a schedule,
//! Adam's moments, RMS, Lion's sign), momentum (`trace`, `ema`), weight decay and clipping.
//!
//! Each is a [`GradientTransformation`] whose state mirrors optax's named tuple (same name, same
//! fields, same order), and whose arithmetic follows optax's op for op (the same operand order
//! and the same weakly typed Python constants), so that results agree to rounding.

use super::state::{
    empty, like_params, named, per_param, safe_increment, scalar, zero_count, zeros_like,
};
use super::{combine, Flat, GradientTransformation, Mask, Schedule};
use crate::array::Array;
use crate::numpy as np;
use crate::ops::elementwise::weak_float;
use crate::tree::{tree_leaves, DynTree, Tree};
use systolic_ir::DType;

/// Passes updates through unchanged (`optax.identity`); state `EmptyState`.
pub fn identity() -> GradientTransformation {
    GradientTransformation::new(|_| Ok(empty()), |u, s, _| Ok((u, s.clone())))
}

/// Multiplies every update by `step_size` (`optax.scale`).
///
/// ```
/// use systolic::{optim, Array};
/// let t = optim::scale(-2.0);
/// let p = vec![Array::scalar(1.5f32)];
/// let (u, _) = t.update(&p, &t.init(&p).unwrap(), &p).unwrap();
/// assert_eq!(u[0].to_vec::<f32>().unwrap(), vec![-3.0]);
/// ```
pub fn scale(step_size: f64) -> GradientTransformation {
    GradientTransformation::new(
        |_| Ok(empty()),
        move |u, s, _| Ok((u.iter().map(|g| g * step_size).collect(), s.clone())),
    )
}

/// Multiplies the updates by `schedule(count)` and counts the step
/// (`optax.scale_by_schedule`); state `ScaleByScheduleState{count}`.
pub fn scale_by_schedule(schedule: Schedule) -> GradientTransformation {
    GradientTransformation::new(
        |_| Ok(named("ScaleByScheduleState", vec![("count", zero_count())])),
        move |u, s, _| {
            let count = scalar("scale_by_schedule", s, "count")?;
            let step = schedule.at(&count);
            let out = u
                .iter()
                .map(|g| &np::astype(&step, g.element_type()) * g)
                .collect();
            let state = named(
                "ScaleByScheduleState",
                vec![("count", DynTree::Leaf(safe_increment(&count)))],
            );
            Ok((out, state))
        },
    )
}

/// Multiplies the updates by `-learning_rate` (`learning_rate` when `flip_sign` is false)
/// (`optax.scale_by_learning_rate`): a plain number needs no state, a schedule keeps a count.
pub fn scale_by_learning_rate(
    learning_rate: impl Into<Schedule>,
    flip_sign: bool,
) -> GradientTransformation {
    let lr = learning_rate.into();
    let m = if flip_sign { -1 } else { 1 };
    match lr.scalar() {
        Some(v) => scale(f64::from(m) * v),
        None => scale_by_schedule(Schedule::new(move |count| &lr.at(count) * m)),
    }
}

/// Momentum (`optax.trace`): `trace = g + decay * trace`; the update is the trace, or
/// `g + decay * trace` with `nesterov`. State `TraceState{trace}`.
pub fn trace(decay: f64, nesterov: bool) -> GradientTransformation {
    GradientTransformation::new(
        |p| {
            Ok(named(
                "TraceState",
                vec![("trace", like_params(p, zeros_like(p.leaves))?)],
            ))
        },
        move |u, s, p| {
            let t = per_param("trace", s, "trace", p)?;
            let new: Vec<Array> = u.iter().zip(&t).map(|(g, t)| g + &(t * decay)).collect();
            let out = if nesterov {
                u.iter().zip(&new).map(|(g, t)| g + &(t * decay)).collect()
            } else {
                new.clone()
            };
            Ok((
                out,
                named("TraceState", vec![("trace", like_params(p, new)?)]),
            ))
        },
    )
}

/// `(1 - decay) * g^order + decay * moment`, optax's `update_moment` (order 1 or 2).
fn moment(g: &Array, m: &Array, decay: f64, order: u32) -> Array {
    let g = if order == 2 { g * g } else { g.clone() };
    &(&g * (1.0 - decay)) + &(m * decay)
}

/// `moment / (1 - decay^count)` in the moment's dtype (optax's `bias_correction`).
fn bias_correction(moment: &Array, decay: f64, count: &Array) -> Array {
    let pow = np::power(&weak_float(decay), &np::astype(count, DType::F32));
    let correction = 1.0 - pow;
    moment / &np::astype(&correction, moment.element_type())
}

/// Adam's scaling (`optax.scale_by_adam`): bias-corrected first and second moments,
/// `mu_hat / (sqrt(nu_hat + eps_root) + eps)`; Nesterov's variant (NAdam) with `nesterov`.
/// State `ScaleByAdamState{count,mu,nu}`.
pub fn scale_by_adam(
    b1: f64,
    b2: f64,
    eps: f64,
    eps_root: f64,
    nesterov: bool,
) -> GradientTransformation {
    GradientTransformation::new(
        |p| {
            Ok(named(
                "ScaleByAdamState",
                vec![
                    ("count", zero_count()),
                    ("mu", like_params(p, zeros_like(p.leaves))?),
                    ("nu", like_params(p, zeros_like(p.leaves))?),
                ],
            ))
        },
        move |u, s, p| {
            let op = "scale_by_adam";
            let (mu, nu) = (per_param(op, s, "mu", p)?, per_param(op, s, "nu", p)?);
            let count = scalar(op, s, "count")?;
            let mu: Vec<Array> = u
                .iter()
                .zip(&mu)
                .map(|(g, m)| moment(g, m, b1, 1))
                .collect();
            let nu: Vec<Array> = u
                .iter()
                .zip(&nu)
                .map(|(g, v)| moment(g, v, b2, 2))
                .collect();
            let count_inc = safe_increment(&count);
            let out = u
                .iter()
                .zip(mu.iter().zip(&nu))
                .map(|(g, (m, v))| {
                    let m_hat = if nesterov {
                        let next = bias_correction(m, b1, &safe_increment(&count_inc));
                        &(&next * b1) + &(&bias_correction(g, b1, &count_inc) * (1.0 - b1))
                    } else {
                        bias_correction(m, b1, &count_inc)
                    };
                    let v_hat = bias_correction(v, b2, &count_inc);
                    &m_hat / &(np::sqrt(&(&v_hat + eps_root)) + eps)
                })
                .collect();
            let state = named(
                "ScaleByAdamState",
                vec![
                    ("count", DynTree::Leaf(count_inc)),
                    ("mu", like_params(p, mu)?),
                    ("nu", like_params(p, nu)?),
                ],
            );
            Ok((out, state))
        },
    )
}

/// The RMSProp scaling (`optax.scale_by_rms`): `g / sqrt(nu + eps)` with `nu` the moving average
/// of `g^2` (started at `initial_scale`), or `g / (sqrt(nu) + eps)` when not `eps_in_sqrt`;
/// optionally bias-corrected. State `ScaleByRmsState{nu}` (`ScaleByRmsWithCountState{count,nu}`
/// with `bias_correction`).
pub fn scale_by_rms(
    decay: f64,
    eps: f64,
    initial_scale: f64,
    eps_in_sqrt: bool,
    bias_correction_: bool,
) -> GradientTransformation {
    let state = move |count: Option<DynTree>, nu: DynTree| match count {
        Some(c) if bias_correction_ => {
            named("ScaleByRmsWithCountState", vec![("count", c), ("nu", nu)])
        }
        _ => named("ScaleByRmsState", vec![("nu", nu)]),
    };
    GradientTransformation::new(
        move |p| {
            let nu = p
                .leaves
                .iter()
                .map(|x| np::full(x.dims(), initial_scale, x.element_type()))
                .collect();
            Ok(state(Some(zero_count()), like_params(p, nu)?))
        },
        move |u, s, p| {
            let op = "scale_by_rms";
            let nu = per_param(op, s, "nu", p)?;
            let nu: Vec<Array> = u
                .iter()
                .zip(&nu)
                .map(|(g, v)| moment(g, v, decay, 2))
                .collect();
            let count = if bias_correction_ {
                Some(safe_increment(&scalar(op, s, "count")?))
            } else {
                None
            };
            let out = u
                .iter()
                .zip(&nu)
                .map(|(g, v)| {
                    let v_hat = match &count {
                        Some(c) => bias_correction(v, decay, c),
                        None => v.clone(),
                    };
                    let scaling = if eps_in_sqrt {
                        np::rsqrt(&(&v_hat + eps))
                    } else {
                        1.0 / (np::sqrt(&v_hat) + eps)
                    };
                    &scaling * g
                })
                .collect();
            Ok((out, state(count.map(DynTree::Leaf), like_params(p, nu)?)))
        },
    )
}

/// The centred RMSProp scaling (`optax.scale_by_stddev`): like [`scale_by_rms`] with the
/// variance `nu - mu^2` in place of `nu`. State `ScaleByRStdDevState{mu,nu}`
/// (`ScaleByRStdDevWithCountState{count,mu,nu}` with `bias_correction`).
pub fn scale_by_stddev(
    decay: f64,
    eps: f64,
    initial_scale: f64,
    eps_in_sqrt: bool,
    bias_correction_: bool,
) -> GradientTransformation {
    let state = move |count: Option<DynTree>, mu: DynTree, nu: DynTree| match count {
        Some(c) if bias_correction_ => named(
            "ScaleByRStdDevWithCountState",
            vec![("count", c), ("mu", mu), ("nu", nu)],
        ),
        _ => named("ScaleByRStdDevState", vec![("mu", mu), ("nu", nu)]),
    };
    GradientTransformation::new(
        move |p| {
            let nu = p
                .leaves
                .iter()
                .map(|x| np::full(x.dims(), initial_scale, x.element_type()))
                .collect();
            Ok(state(
                Some(zero_count()),
                like_params(p, zeros_like(p.leaves))?,
                like_params(p, nu)?,
            ))
        },
        move |u, s, p| {
            let op = "scale_by_stddev";
            let (mu, nu) = (per_param(op, s, "mu", p)?, per_param(op, s, "nu", p)?);
            let mu: Vec<Array> = u
                .iter()
                .zip(&mu)
                .map(|(g, m)| moment(g, m, decay, 1))
                .collect();
            let nu: Vec<Array> = u
                .iter()
                .zip(&nu)
                .map(|(g, v)| moment(g, v, decay, 2))
                .collect();
            let count = if bias_correction_ {
                Some(safe_increment(&scalar(op, s, "count")?))
            } else {
                None
            };
            let out = u
                .iter()
                .zip(mu.iter().zip(&nu))
                .map(|(g, (m, v))| {
                    let (m_hat, v_hat) = match &count {
                        Some(c) => (bias_correction(m, decay, c), bias_correction(v, decay, c)),
                        None => (m.clone(), v.clone()),
                    };
                    let var = &v_hat - &(&m_hat * &m_hat);
                    let scaling = if eps_in_sqrt {
                        np::rsqrt(&(&var + eps))
                    } else {
                        1.0 / (np::sqrt(&var) + eps)
                    };
                    &scaling * g
                })
                .collect();
            let new = state(
                count.map(DynTree::Leaf),
                like_params(p, mu)?,
                like_params(p, nu)?,
            );
            Ok((out, new))
        },
    )
}

/// Lion's scaling (`optax.scale_by_lion`): `sign((1 - b1) * g + b1 * mu)`, then
/// `mu = (1 - b2) * g + b2 * mu`. State `ScaleByLionState{count,mu}`.
pub fn scale_by_lion(b1: f64, b2: f64) -> GradientTransformation {
    GradientTransformation::new(
        |p| {
            Ok(named(
                "ScaleByLionState",
                vec![
                    ("count", zero_count()),
                    ("mu", like_params(p, zeros_like(p.leaves))?),
                ],
            ))
        },
        move |u, s, p| {
            let op = "scale_by_lion";
            let mu = per_param(op, s, "mu", p)?;
            let count = scalar(op, s, "count")?;
            let out = u
                .iter()
                .zip(&mu)
                .map(|(g, m)| np::sign(&(&(g * (1.0 - b1)) + &(m * b1))))
                .collect();
            let mu = u
                .iter()
                .zip(&mu)
                .map(|(g, m)| moment(g, m, b2, 1))
                .collect();
            let state = named(
                "ScaleByLionState",
                vec![
                    ("count", DynTree::Leaf(safe_increment(&count))),
                    ("mu", like_params(p, mu)?),
                ],
            );
            Ok((out, state))
        },
    )
}

/// An exponential moving average of the updates (`optax.ema`), bias-corrected with `debias`.
/// State `EmaState{count,ema}`.
pub fn ema(decay: f64, debias: bool) -> GradientTransformation {
    GradientTransformation::new(
        |p| {
            Ok(named(
                "EmaState",
                vec![
                    ("count", zero_count()),
                    ("ema", like_params(p, zeros_like(p.leaves))?),
                ],
            ))
        },
        move |u, s, p| {
            let op = "ema";
            let e = per_param(op, s, "ema", p)?;
            let count = safe_increment(&scalar(op, s, "count")?);
            let new: Vec<Array> = u
                .iter()
                .zip(&e)
                .map(|(g, t)| moment(g, t, decay, 1))
                .collect();
            let out = if debias {
                new.iter()
                    .map(|t| bias_correction(t, decay, &count))
                    .collect()
            } else {
                new.clone()
            };
            let state = named(
                "EmaState",
                vec![
                    ("count", DynTree::Leaf(count)),
                    ("ema", like_params(p, new)?),
                ],
            );
            Ok((out, state))
        },
    )
}

/// Adds `weight_decay * param` to each update (`optax.add_decayed_weights`), on the leaves
/// `mask` selects (all without one). A schedule is evaluated at a count the state keeps
/// (`WeightDecaySchedule{count}`); a plain number needs no state (`EmptyState`).
///
/// ```
/// use systolic::{optim::{self, Mask}, Array};
/// let p = vec![Array::scalar(2.0f32), Array::from_vec(vec![2.0f32, 2.0], &[2])];
/// let g = vec![Array::scalar(1.0f32), Array::from_vec(vec![1.0f32, 1.0], &[2])];
/// // Decay only the leaves of rank 1 or more, as for weight matrices but not scalars.
/// let t = optim::add_decayed_weights(0.5, Some(Mask::new(|_, p| p.ndim() >= 1)));
/// let (u, _) = t.update(&g, &t.init(&p).unwrap(), &p).unwrap();
/// assert_eq!(u[0].to_vec::<f32>().unwrap(), vec![1.0]);
/// assert_eq!(u[1].to_vec::<f32>().unwrap(), vec![2.0, 2.0]);
/// ```
pub fn add_decayed_weights(
    weight_decay: impl Into<Schedule>,
    mask: Option<Mask>,
) -> GradientTransformation {
    let wd = weight_decay.into();
    let inner = match wd.scalar() {
        Some(v) => GradientTransformation::new(
            |_| Ok(empty()),
            move |u, s, p| {
                if v == 0.0 {
                    return Ok((u, s.clone()));
                }
                let out = u.iter().zip(p.leaves).map(|(g, x)| g + &(x * v)).collect();
                Ok((out, s.clone()))
            },
        ),
        None => GradientTransformation::new(
            |_| Ok(named("WeightDecaySchedule", vec![("count", zero_count())])),
            move |u, s, p| {
                let count = scalar("add_decayed_weights", s, "count")?;
                let rate = wd.at(&count);
                let out = u
                    .iter()
                    .zip(p.leaves)
                    .map(|(g, x)| g + &(&rate * x))
                    .collect();
                let state = named(
                    "WeightDecaySchedule",
                    vec![("count", DynTree::Leaf(safe_increment(&count)))],
                );
                Ok((out, state))
            },
        ),
    };
    match mask {
        Some(m) => combine::masked(inner, m),
        None => inner,
    }
}

/// The global norm of a tree: `sqrt` of the sum of all its squared elements
/// (`optax.global_norm`), summed leaf by leaf in order as optax does.
///
/// ```
/// use systolic::{optim, Array};
/// let t = (Array::from_vec(vec![3.0f32], &[1]), Array::scalar(4.0f32));
/// assert_eq!(optim::global_norm(&t).to_vec::<f32>().unwrap(), vec![5.0]);
/// ```
pub fn global_norm<T: Tree>(tree: &T) -> Array {
    norm_of(&tree_leaves(tree))
}

fn norm_of(leaves: &[Array]) -> Array {
    let mut sums = leaves.iter().map(|x| np::sum(&(x * x), None, false));
    let Some(first) = sums.next() else {
        return np::sqrt(&weak_float(0.0));
    };
    np::sqrt(&sums.fold(first, |acc, s| &acc + &s))
}

/// Scales all updates down together so that their global norm is at most `max_norm`
/// (`optax.clip_by_global_norm`); state `EmptyState`.
///
/// ```
/// use systolic::{optim, Array};
/// let g = vec![Array::from_vec(vec![3.0f32, 4.0], &[2])];
/// let t = optim::clip_by_global_norm(1.0);
/// let (u, _) = t.update(&g, &t.init(&g).unwrap(), &g).unwrap();
/// assert_eq!(u[0].to_vec::<f32>().unwrap(), vec![0.6, 0.8]);
/// ```
pub fn clip_by_global_norm(max_norm: f64) -> GradientTransformation {
    GradientTransformation::new(
        |_| Ok(empty()),
        move |u, s, _| {
            let norm = norm_of(&u);
            let keep = np::less(&norm, &weak_float(max_norm));
            let out = u
                .iter()
                .map(|t| {
                    let clipped = &(t / &np::astype(&norm, t.element_type())) * max_norm;
                    np::where_(&keep, t, &clipped)
                })
                .collect();
            Ok((out, s.clone()))
        },
    )
}

/// Divides each update by `max(1, rms(update) / threshold)` (`optax.clip_by_block_rms`).
pub fn clip_by_block_rms(threshold: f64) -> GradientTransformation {
    GradientTransformation::new(
        |_| Ok(empty()),
        move |u, s, _| {
            let out = u
                .iter()
                .map(|x| {
                    let rms = np::sqrt(&np::mean(&(x * x), None, false));
                    x / &np::maximum(&weak_float(1.0), &(&rms / threshold))
                })
                .collect();
            Ok((out, s.clone()))
        },
    )
}

/// Multiplies each update by its param's root mean square, at least `min_scale`
/// (`optax.scale_by_param_block_rms`): Adafactor's step relative to the param's scale.
pub fn scale_by_param_block_rms(min_scale: f64) -> GradientTransformation {
    GradientTransformation::new(
        |_| Ok(empty()),
        move |u, s, p: &Flat| {
            let out = u
                .iter()
                .zip(p.leaves)
                .map(|(g, x)| {
                    let rms = np::sqrt(&np::mean(&(x * x), None, false));
                    let small = np::less_equal(&rms, &weak_float(min_scale));
                    g * &np::where_(&small, &weak_float(min_scale), &rms)
                })
                .collect();
            Ok((out, s.clone()))
        },
    )
}
