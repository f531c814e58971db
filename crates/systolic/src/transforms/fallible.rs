//! [`jit_fallible`]: `jit` of a function that may fail while it is traced, returning
//! `Result<R>`; the error reaches the caller of `call` with its message.
//!
//! It is `jit(fallible(f))`: [`fallible`] makes the closure a [`Function`] whose `call`
//! returns its `Result`, and `jit` (like every transformation) stages a `Function` through
//! `stage_function`, which hands the function's error back as the error of the trace; every
//! trace on the way is popped, so the jitted function (and any enclosing trace) stays usable.

use crate::error::Result;
use crate::transforms::function::{fallible, Fallible, Function};
use crate::transforms::jit::{jit, Jit};
use crate::tree::Tree;

/// A jitted function that may fail: a [`Jit`] of a [`Fallible`] closure. Made by
/// [`jit_fallible`].
pub type JitFallible<A, R, F> = Jit<A, R, Fallible<F>>;

/// `jit` of `f: Fn(&A) -> Result<R>`: the first error `f` returns while it is traced (a
/// failed op found by `check()?`, a shape the function refuses, …) is the error of
/// [`Jit::call`], with its message. The same as `jit(fallible(f))`.
///
/// ```
/// use systolic::{jit_fallible, numpy as np, Array, Error};
/// let f = jit_fallible(|x: &Array| {
///     let y = np::reshape(x, &[2, 2]);
///     y.check()?; // the reshape's own error, not a later one
///     if x.dtype() != systolic_ir::DType::F32 {
///         return Err(Error::Host(format!("expected float32, got {}", x.dtype().numpy_name())));
///     }
///     Ok(&y * 2.0)
/// });
/// let err = f.call(&Array::from_vec(vec![1.0f32; 6], &[6])).unwrap_err().to_string();
/// assert!(err.contains("reshape") && err.contains("[2, 2]"), "{err}");
/// let err = f.call(&Array::from_vec(vec![1i32; 4], &[4])).unwrap_err().to_string();
/// assert!(err.contains("expected float32, got int32"), "{err}");
/// // It still runs what does not fail; failed traces are not counted.
/// let y = f.call(&Array::from_vec(vec![1.0f32; 4], &[4])).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.0; 4]);
/// assert_eq!(f.trace_count(), 1);
/// ```
pub fn jit_fallible<A: Tree, R: Tree, F: Fn(&A) -> Result<R>>(f: F) -> JitFallible<A, R, F>
where
    Fallible<F>: Function<A, Output = R>,
{
    jit(fallible(f))
}
