//! Schedules: step sizes as functions of the step count, as optax's `schedules`.
//!
//! A [`Schedule`] maps the int32 count an optimizer keeps in its state to a scalar, with ops,
//! so it traces: under `jit` the count is a traced value and the step size is computed in the
//! compiled step, never re-traced per step. The formulas are optax's, op for op, so the values
//! agree with optax's to the last bit or two.

use crate::array::Array;
use crate::error::{Error, Result};
use crate::numpy as np;
use crate::ops::elementwise::{weak_float, weak_int};
use std::f64::consts::PI;
use std::fmt;
use std::sync::Arc;

type ScheduleFn = dyn Fn(&Array) -> Array + Send + Sync;

/// A step size as a function of the step count (`optax.Schedule`), or a plain number.
///
/// A number (`Schedule::from(1e-3)`, or `1e-3` wherever an `impl Into<Schedule>` is asked) is
/// optax's scalar learning rate: the optimizer keeps no count for it. Every other schedule is
/// a function of the count, which the optimizer keeps in its state as optax does.
///
/// ```
/// use systolic::optim;
/// let s = optim::warmup_cosine_decay_schedule(0.0, 1.0, 10, 110, 0.0, 1.0);
/// assert_eq!(s.value(0).unwrap(), 0.0);
/// assert_eq!(s.value(5).unwrap(), 0.5);
/// assert_eq!(s.value(10).unwrap(), 1.0);
/// assert!((s.value(60).unwrap() - 0.5).abs() < 1e-6);
/// ```
#[derive(Clone)]
pub struct Schedule {
    f: Arc<ScheduleFn>,
    /// `Some(v)` for a plain number (optax's scalar learning rate).
    scalar: Option<f64>,
}

impl fmt::Debug for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.scalar {
            Some(v) => write!(f, "Schedule({v})"),
            None => f.write_str("Schedule(fn)"),
        }
    }
}

impl From<f64> for Schedule {
    fn from(v: f64) -> Schedule {
        Schedule {
            f: Arc::new(move |_| weak_float(v)),
            scalar: Some(v),
        }
    }
}

impl Schedule {
    /// A schedule from a function of the int32 count (a scalar array, traced under `jit`) to
    /// a scalar array. Build it from ops so that it traces.
    ///
    /// ```
    /// use systolic::optim::Schedule;
    /// let inverse = Schedule::new(|count| 1.0 / (count + 1));
    /// assert_eq!(inverse.value(3).unwrap(), 0.25);
    /// ```
    pub fn new(f: impl Fn(&Array) -> Array + Send + Sync + 'static) -> Schedule {
        Schedule {
            f: Arc::new(f),
            scalar: None,
        }
    }

    /// The value at `count` (an int32 scalar array, concrete or traced).
    pub fn at(&self, count: &Array) -> Array {
        (self.f)(count)
    }

    /// The value at step `step`, computed now.
    pub fn value(&self, step: i32) -> Result<f32> {
        let v = np::astype(&self.at(&Array::scalar(step)), systolic_ir::DType::F32);
        v.to_vec::<f32>()?
            .first()
            .copied()
            .ok_or_else(|| Error::op("schedule", "the schedule returned an empty array"))
    }

    /// `Some(v)` when this is a plain number rather than a function of the count.
    pub fn scalar(&self) -> Option<f64> {
        self.scalar
    }
}

/// A schedule returning `value` at every step (`optax.constant_schedule`). Unlike a plain
/// number it is a function of the count, so the optimizer keeps a count.
pub fn constant_schedule(value: f64) -> Schedule {
    Schedule::new(move |_| weak_float(value))
}

/// From `init_value` to `end_value` along `(1 - t)^power` over `transition_steps` steps
/// starting at `transition_begin` (`optax.polynomial_schedule`); constant `init_value` when
/// `transition_steps <= 0`.
///
/// ```
/// use systolic::optim;
/// let s = optim::polynomial_schedule(1.0, 0.0, 2.0, 4, 0);
/// assert_eq!(s.value(2).unwrap(), 0.25);
/// ```
pub fn polynomial_schedule(
    init_value: f64,
    end_value: f64,
    power: f64,
    transition_steps: i64,
    transition_begin: i64,
) -> Schedule {
    if transition_steps <= 0 {
        return constant_schedule(init_value);
    }
    let begin = transition_begin.max(0);
    Schedule::new(move |count| {
        let c = np::clip(
            &(count - &weak_int(begin)),
            &weak_int(0),
            &weak_int(transition_steps),
        );
        let frac = 1.0 - np::divide(&c, &weak_int(transition_steps));
        let frac = integer_or_float_pow(&frac, power);
        (init_value - end_value) * frac + end_value
    })
}

/// `x ** p` as JAX computes it: a Python integer exponent is `integer_pow` (repeated
/// multiplication), a float one `pow`.
fn integer_or_float_pow(x: &Array, p: f64) -> Array {
    if p.fract() == 0.0 && (1.0..=8.0).contains(&p) {
        // integer_pow by squaring, as XLA expands it.
        let (mut acc, mut base, mut n) = (None::<Array>, x.clone(), p as u32);
        while n > 0 {
            if n & 1 == 1 {
                acc = Some(match acc {
                    None => base.clone(),
                    Some(a) => &a * &base,
                });
            }
            n >>= 1;
            if n > 0 {
                base = &base * &base;
            }
        }
        acc.unwrap_or_else(|| x.clone())
    } else {
        np::power(x, &weak_float(p))
    }
}

/// Linear from `init_value` to `end_value` over `transition_steps` steps starting at
/// `transition_begin` (`optax.linear_schedule`).
///
/// ```
/// use systolic::optim;
/// let warmup = optim::linear_schedule(0.0, 1e-3, 100, 0);
/// assert_eq!(warmup.value(50).unwrap(), 5e-4);
/// assert_eq!(warmup.value(1000).unwrap(), 1e-3);
/// ```
pub fn linear_schedule(
    init_value: f64,
    end_value: f64,
    transition_steps: i64,
    transition_begin: i64,
) -> Schedule {
    polynomial_schedule(
        init_value,
        end_value,
        1.0,
        transition_steps,
        transition_begin,
    )
}

/// `init_value * ((1 - alpha) * (0.5 * (1 + cos(pi * t / decay_steps)))^exponent + alpha)` with
/// `t` the count capped at `decay_steps` (`optax.cosine_decay_schedule`).
///
/// Returns an error schedule (its values carry the error) when `decay_steps <= 0`, as optax
/// raises.
///
/// ```
/// use systolic::optim;
/// let s = optim::cosine_decay_schedule(1.0, 100, 0.0, 1.0);
/// assert_eq!(s.value(0).unwrap(), 1.0);
/// assert!(s.value(100).unwrap().abs() < 1e-7);
/// assert!(optim::cosine_decay_schedule(1.0, 0, 0.0, 1.0).value(0).is_err());
/// ```
pub fn cosine_decay_schedule(
    init_value: f64,
    decay_steps: i64,
    alpha: f64,
    exponent: f64,
) -> Schedule {
    if decay_steps <= 0 {
        return failed(format!(
            "cosine_decay_schedule needs positive decay_steps, got {decay_steps}"
        ));
    }
    let steps = decay_steps as f64;
    Schedule::new(move |count| {
        let c = np::minimum(count, &weak_float(steps));
        let cosine = 0.5 * (1.0 + np::cos(&(PI * c / steps)));
        let decayed = (1.0 - alpha) * np::power(&cosine, &weak_float(exponent)) + alpha;
        init_value * decayed
    })
}

/// A schedule whose every value is an error (for invalid arguments: the first `Result` that
/// reads it reports `message`).
fn failed(message: String) -> Schedule {
    Schedule::new(move |_| Array::failed(Error::op("optim", message.clone())))
}

/// Linear warmup from `init_value` to `peak_value` over `warmup_steps`, then cosine decay to
/// `end_value` until `decay_steps` (counted from 0, warmup included)
/// (`optax.warmup_cosine_decay_schedule`).
///
/// ```
/// use systolic::optim;
/// let s = optim::warmup_cosine_decay_schedule(0.0, 1e-3, 100, 1000, 1e-5, 1.0);
/// assert_eq!(s.value(100).unwrap(), 1e-3);
/// assert!((s.value(1000).unwrap() - 1e-5).abs() < 1e-9);
/// ```
pub fn warmup_cosine_decay_schedule(
    init_value: f64,
    peak_value: f64,
    warmup_steps: i64,
    decay_steps: i64,
    end_value: f64,
    exponent: f64,
) -> Schedule {
    let alpha = if peak_value == 0.0 {
        0.0
    } else {
        end_value / peak_value
    };
    join_schedules(
        vec![
            linear_schedule(init_value, peak_value, warmup_steps, 0),
            cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent),
        ],
        &[warmup_steps],
    )
}

/// `init_value` scaled by `scale` once the count reaches each boundary, for `(boundary,
/// scale)` pairs in increasing boundary order (`optax.piecewise_constant_schedule`); the
/// scales must not be negative.
///
/// ```
/// use systolic::optim;
/// let s = optim::piecewise_constant_schedule(1.0, &[(10, 0.5), (20, 0.1)]);
/// assert_eq!([s.value(9).unwrap(), s.value(10).unwrap(), s.value(25).unwrap()], [1.0, 0.5, 0.05]);
/// ```
pub fn piecewise_constant_schedule(
    init_value: f64,
    boundaries_and_scales: &[(i64, f64)],
) -> Schedule {
    if let Some((b, s)) = boundaries_and_scales.iter().find(|(_, s)| *s < 0.0) {
        return failed(format!(
            "piecewise_constant_schedule expects non-negative scales, got {s} at {b}"
        ));
    }
    let mut pieces = boundaries_and_scales.to_vec();
    pieces.sort_by_key(|(b, _)| *b);
    Schedule::new(move |count| {
        let mut v = weak_float(init_value);
        for &(threshold, scale) in &pieces {
            let indicator =
                np::maximum(&weak_float(0.0), &np::sign(&(&weak_int(threshold) - count)));
            v = &v * &indicator + (1.0 - &indicator) * scale * &v;
        }
        v
    })
}

/// `schedules[0]` before `boundaries[0]`, then `schedules[1]` counted from that boundary, and
/// so on (`optax.join_schedules`).
///
/// ```
/// use systolic::optim;
/// let s = optim::join_schedules(
///     vec![optim::constant_schedule(1.0), optim::linear_schedule(1.0, 0.0, 10, 0)],
///     &[5],
/// );
/// assert_eq!([s.value(4).unwrap(), s.value(10).unwrap()], [1.0, 0.5]);
/// ```
pub fn join_schedules(schedules: Vec<Schedule>, boundaries: &[i64]) -> Schedule {
    let boundaries = boundaries.to_vec();
    Schedule::new(move |step| {
        let Some(first) = schedules.first() else {
            return Array::failed(Error::op("join_schedules", "no schedules were given"));
        };
        let mut out = first.at(step);
        for (&boundary, s) in boundaries.iter().zip(&schedules[1..]) {
            let b = weak_int(boundary);
            let later = s.at(&(step - &b));
            out = np::where_(&np::less(step, &b), &out, &later);
        }
        out
    })
}

/// `init_value * decay_rate^((count - transition_begin) / transition_steps)` after
/// `transition_begin` (floored exponent with `staircase`), bounded by `end_value` if given
/// (`optax.exponential_decay`).
///
/// ```
/// use systolic::optim;
/// let s = optim::exponential_decay(1.0, 10, 0.5, 0, false, None);
/// assert_eq!(s.value(20).unwrap(), 0.25);
/// ```
pub fn exponential_decay(
    init_value: f64,
    transition_steps: i64,
    decay_rate: f64,
    transition_begin: i64,
    staircase: bool,
    end_value: Option<f64>,
) -> Schedule {
    if transition_steps <= 0 || decay_rate == 0.0 {
        return constant_schedule(init_value);
    }
    let begin = transition_begin.max(0);
    Schedule::new(move |count| {
        let decreased = count - &weak_int(begin);
        let mut p = np::divide(&decreased, &weak_int(transition_steps));
        if staircase {
            p = np::floor(&p);
        }
        let decayed = np::where_(
            &np::less_equal(&decreased, &weak_int(0)),
            &weak_float(init_value),
            &(init_value * np::power(&weak_float(decay_rate), &p)),
        );
        match end_value {
            Some(e) if decay_rate < 1.0 => np::maximum(&decayed, &weak_float(e)),
            Some(e) => np::minimum(&decayed, &weak_float(e)),
            None => decayed,
        }
    })
}
