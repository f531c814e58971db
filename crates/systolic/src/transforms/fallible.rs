//! [`jit_fallible`]: `jit` of a function that may fail while it is traced, returning
//! `Result<R>`; the error reaches the caller of `call` with its message.
//!
//! The traced function's result type is the tree it returns, and a failure has no tree to
//! return, so the error leaves the trace by unwinding (`core::raise`, the mechanism that also
//! carries the error of a failed array whose shape the function reads), caught by staging
//! and returned by [`JitFallible::call`]. Every trace on the way is popped by its guard as the
//! stack unwinds, so the `jit` (and any enclosing trace) stays usable. Other panics pass
//! through unchanged.

use crate::core::raise::{catch, raise};
use crate::error::Result;
use crate::transforms::jit::{jit, Jit, Lowered};
use crate::tree::Tree;

/// The boxed function a [`JitFallible`] traces.
type Raising<'f, A, R> = Box<dyn Fn(&A) -> R + 'f>;

/// A jitted function that may fail. Made by [`jit_fallible`].
pub struct JitFallible<'f, A, R> {
    jit: Jit<A, R, Raising<'f, A, R>>,
}

/// `jit` of `f: Fn(&A) -> Result<R>`: the first error `f` returns while it is traced (a
/// failed op found by `check()?`, a shape the function refuses, …) is the error of
/// [`JitFallible::call`], with its message.
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
/// // It still runs what does not fail.
/// let y = f.call(&Array::from_vec(vec![1.0f32; 4], &[4])).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.0; 4]);
/// ```
pub fn jit_fallible<'f, A: Tree, R: Tree, F: Fn(&A) -> Result<R> + 'f>(
    f: F,
) -> JitFallible<'f, A, R> {
    let raising: Raising<'f, A, R> = Box::new(move |a: &A| match f(a) {
        Ok(r) => r,
        Err(e) => raise(e),
    });
    JitFallible { jit: jit(raising) }
}

impl<A: Tree, R: Tree> JitFallible<'_, A, R> {
    /// Names the function, as [`Jit::named`].
    pub fn named(self, name: &str) -> Self {
        JitFallible {
            jit: self.jit.named(name),
        }
    }

    /// The result, or the error the function (or the tracing, compiling or running of it)
    /// returned.
    pub fn call(&self, args: &A) -> Result<R> {
        // Staging catches the error; this catches one raised outside it.
        catch(|| self.jit.call(args))?
    }

    /// The function traced and lowered for `args` (as [`Jit::lower`]), or the error the
    /// function returned while it was traced.
    ///
    /// ```
    /// use systolic::{jit_fallible, Array};
    /// let f = jit_fallible(|x: &Array| Ok(x * 2.0));
    /// let text = f.lower(&Array::scalar(1.0f32)).unwrap().as_text();
    /// assert!(text.contains("stablehlo.multiply"), "{text}");
    /// ```
    pub fn lower(&self, args: &A) -> Result<Lowered<R>> {
        catch(|| self.jit.lower(args))?
    }

    /// How many times the function was traced to the end (as [`Jit::trace_count`]; a trace
    /// that failed is not counted, and the next call traces again).
    pub fn trace_count(&self) -> usize {
        self.jit.trace_count()
    }
}
