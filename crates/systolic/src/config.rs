//! Settings that change what a trace stages, as `jax.config` and its context managers do.
//!
//! Two: the default precision of products (`jax_default_matmul_precision`), and
//! [`disable_jit`] (`jax_disable_jit`), below. The precision: A product
//! staged without an explicit `precision` takes it, so a whole model can run its products at
//! `Highest` (full f32, six bf16 passes on a TPU) or `Default` (one bf16 pass) without touching
//! its code. The setting is part of `jit`'s cache key: a function traced under one setting is
//! traced again under another, as in JAX.
//!
//! The process-wide value ([`set_default_matmul_precision`], JAX's `jax.config.update`) can be
//! overridden on the current thread for the duration of a closure
//! ([`with_default_matmul_precision`], JAX's `with jax.default_matmul_precision(...)`).
//!
//! ```
//! use systolic::{config, numpy as np, jit, Array, Precision};
//! let a = Array::from_vec(vec![1.0f32; 4], &[2, 2]);
//! let f = jit(|a: &Array| np::matmul(a, a));
//! let text = config::with_default_matmul_precision(Precision::Highest, || {
//!     f.lower(&a).unwrap().as_text()
//! });
//! assert!(text.contains("HIGHEST"), "{text}");
//! assert!(!f.lower(&a).unwrap().as_text().contains("HIGHEST"));
//! ```

use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use systolic_ir::Precision;

/// The process-wide default: 0 = unset, else 1 + the precision's index.
static GLOBAL_MATMUL_PRECISION: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// The current thread's override, set while a `with_default_matmul_precision` runs.
    static THREAD_MATMUL_PRECISION: Cell<Option<Option<Precision>>> = const { Cell::new(None) };
}

fn encode(p: Option<Precision>) -> u8 {
    match p {
        None => 0,
        Some(Precision::Default) => 1,
        Some(Precision::High) => 2,
        Some(Precision::Highest) => 3,
    }
}

fn decode(v: u8) -> Option<Precision> {
    match v {
        1 => Some(Precision::Default),
        2 => Some(Precision::High),
        3 => Some(Precision::Highest),
        _ => None,
    }
}

/// The precision a product staged without one gets: the thread's override, else the
/// process-wide setting, else none (the backend's default).
pub fn default_matmul_precision() -> Option<Precision> {
    THREAD_MATMUL_PRECISION
        .with(Cell::get)
        .unwrap_or_else(|| decode(GLOBAL_MATMUL_PRECISION.load(Ordering::Relaxed)))
}

/// Sets the process-wide default precision of products (`None` clears it), as
/// `jax.config.update("jax_default_matmul_precision", ...)`.
pub fn set_default_matmul_precision(precision: Option<Precision>) {
    GLOBAL_MATMUL_PRECISION.store(encode(precision), Ordering::Relaxed);
}

/// Runs `f` with products defaulting to `precision` on this thread (JAX's
/// `with jax.default_matmul_precision(...)`); the previous setting is restored after, also
/// when `f` panics.
pub fn with_default_matmul_precision<R>(precision: Precision, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Option<Precision>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_MATMUL_PRECISION.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(THREAD_MATMUL_PRECISION.with(|c| c.replace(Some(Some(precision)))));
    f()
}

/// JAX's names for precisions: `"default"`/`"bfloat16"`, `"high"`/`"tensorfloat32"`/
/// `"bfloat16_3x"`, `"highest"`/`"float32"`.
///
/// ```
/// use systolic::{config, Precision};
/// assert_eq!(config::precision_from_name("float32").unwrap(), Precision::Highest);
/// assert!(config::precision_from_name("fp7").is_err());
/// ```
pub fn precision_from_name(name: &str) -> Result<Precision> {
    match name.to_ascii_lowercase().as_str() {
        "default" | "bfloat16" | "fastest" => Ok(Precision::Default),
        "high" | "tensorfloat32" | "bfloat16_3x" => Ok(Precision::High),
        "highest" | "float32" => Ok(Precision::Highest),
        _ => Err(Error::op(
            "default_matmul_precision",
            format!(
                "unknown precision {name:?}; expected one of default, bfloat16, high, \
                 tensorfloat32, bfloat16_3x, highest, float32"
            ),
        )),
    }
}

/// The settings that change a trace, as text for `jit`'s cache key (empty when all unset).
pub(crate) fn trace_context() -> String {
    match default_matmul_precision() {
        None => String::new(),
        Some(p) => format!(" | matmul_precision={}", p.keyword()),
    }
}

/// The process-wide `jax_disable_jit`.
static GLOBAL_DISABLE_JIT: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// The current thread's override, set while a [`disable_jit`] closure runs.
    static THREAD_DISABLE_JIT: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Whether `jit` is switched off on this thread: the thread's override, else the
/// process-wide setting.
pub fn jit_disabled() -> bool {
    THREAD_DISABLE_JIT
        .with(Cell::get)
        .unwrap_or_else(|| GLOBAL_DISABLE_JIT.load(Ordering::Relaxed))
}

/// Switches `jit` off (or on again) for the whole process, as
/// `jax.config.update("jax_disable_jit", True)`: see [`disable_jit`].
pub fn set_disable_jit(disabled: bool) {
    GLOBAL_DISABLE_JIT.store(disabled, Ordering::Relaxed);
}

/// Runs `f` with `jit` switched off on this thread (JAX's `with jax.disable_jit():`): a jitted
/// function called inside runs its Rust code directly, op by op and eagerly (inside `grad` or
/// `vmap`, under their traces), so its intermediate values can be printed and read, and an op
/// that fails is reported by that op rather than by the compiled call. Nothing is traced or
/// compiled, nothing enters `jit`'s cache and donation is ignored. The previous setting is
/// restored after, also when `f` panics.
///
/// ```
/// use systolic::{config, jit, Array};
/// let f = jit(|x: &Array| {
///     // Concrete inside disable_jit: the values can be read as the function runs.
///     if !x.is_traced() {
///         assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
///     }
///     x * 2.0
/// });
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// let y = config::disable_jit(|| f.call(&x)).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
/// assert_eq!(f.trace_count(), 0); // never traced
/// f.call(&x).unwrap();
/// assert_eq!(f.trace_count(), 1);
/// ```
pub fn disable_jit<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(Option<bool>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_DISABLE_JIT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(THREAD_DISABLE_JIT.with(|c| c.replace(Some(true))));
    f()
}
