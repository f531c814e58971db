//! [`Function`]: what every transformation takes and what every transformation is, so that
//! they compose without wrapper closures (`jit(grad(f))`, `vmap(jit(f))`, `grad(grad(f))`), as
//! JAX's transformations take and return Python callables.
//!
//! A closure `Fn(&A) -> R` (with `R` a [`Tree`]) is a `Function<A>` through a blanket impl;
//! each transformation's struct ([`Jit`](crate::Jit), [`Grad`](crate::Grad),
//! [`Vmap`](crate::Vmap), …) implements it with its own `call`. Rust's `Fn` traits are
//! `#[fundamental]`, so the two kinds of impl cannot overlap: a struct of this crate is known
//! not to be a closure.
//!
//! Calls return `Result`, so a failure of an inner transformation (grad's error for an integer
//! leaf, a shape error while tracing) is returned by the outer one's `call` with its message:
//! each transformation stages the function it wraps through [`stage_function`], which hands
//! the function's error back instead of a trace.

use crate::array::Array;
use crate::core::staging::{stage_with, Staged};
use crate::error::{Error, Result};
use crate::tree::Tree;
use std::cell::RefCell;

/// A function of a pytree `A` that may fail: a closure `Fn(&A) -> R` (never failing), or a
/// transformation ([`jit`](crate::jit), [`grad`](crate::grad), [`vmap`](crate::vmap),
/// [`value_and_grad`](crate::value_and_grad), [`jacfwd`](crate::jacfwd),
/// [`jacrev`](crate::jacrev), [`hessian`](crate::hessian), [`checkpoint`](crate::checkpoint),
/// [`custom_jvp`](crate::custom_jvp), [`custom_vjp`](crate::custom_vjp),
/// [`shard_map`](crate::shard_map), [`pmap`](crate::pmap), [`fallible`], …). Every
/// transformation takes any `Function`, so they compose directly:
///
/// ```
/// use systolic::{grad, jit, numpy as np, vmap, Array};
/// let f = |x: &Array| np::sum(&np::sin(x), None, false);
/// // JAX's jax.jit(jax.vmap(jax.grad(f))): per-example gradients, compiled.
/// let per_example = jit(vmap(grad(f)));
/// let xs = Array::from_vec(vec![0.0f32, 1.0, 2.0, 3.0], &[2, 2]);
/// let g = per_example.call(&xs).unwrap().to_vec::<f32>().unwrap();
/// let want: Vec<f32> = [0.0f32, 1.0, 2.0, 3.0].iter().map(|x| x.cos()).collect();
/// assert!(g.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-6), "{g:?}");
/// assert_eq!(per_example.trace_count(), 1);
/// ```
///
/// A reference to a transformation is a function too, so one can serve several others:
///
/// ```
/// use systolic::{grad, jit, vmap, Array};
/// let g = jit(grad(|x: &Array| &(x * x) * x)); // 3x²
/// let per_element = vmap(&g); // inlines g: no trace of g's own
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// assert_eq!(per_element.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![3.0, 12.0]);
/// assert_eq!(g.call(&Array::scalar(2.0f32)).unwrap().to_vec::<f32>().unwrap(), vec![12.0]);
/// assert_eq!(g.trace_count(), 1);
/// ```
///
/// A transformation's error inside another reaches the outer `call`:
///
/// ```
/// use systolic::{grad, jit, Array};
/// let f = jit(grad(|x: &Array| x * 2.0)); // grad of a non-scalar function
/// let err = f.call(&Array::from_vec(vec![1.0f32, 2.0], &[2])).unwrap_err().to_string();
/// assert!(err.contains("grad") && err.contains("scalar"), "{err}");
/// ```
///
/// Generic code takes any function (write `f(&x)` for a closure you hold; `call` is for
/// code that does not know which it has):
///
/// ```
/// use systolic::{grad, Array, Function};
/// fn twice<F: Function<Array, Output = Array>>(f: &F, x: &Array) -> systolic::Result<Array> {
///     f.call(&f.call(x)?)
/// }
/// let d = grad(|x: &Array| x * x); // 2x
/// assert_eq!(twice(&d, &Array::scalar(3.0f32)).unwrap().to_vec::<f32>().unwrap(), vec![12.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a systolic::Function of `{A}`",
    label = "expected a closure `Fn(&{A}) -> R` with `R: Tree`, or a transformation",
    note = "annotate the closure's argument (`|x: &Array| ...`); a closure returning \
            `Result` is wrapped with `systolic::fallible`"
)]
pub trait Function<A> {
    /// What the function returns (a pytree of arrays).
    type Output: Tree;

    /// The function at `args`: run (compiled or eagerly) when they are concrete, staged into
    /// the enclosing trace when called inside another transformation.
    fn call(&self, args: &A) -> Result<Self::Output>;
}

impl<A, R: Tree, F: Fn(&A) -> R> Function<A> for F {
    type Output = R;

    fn call(&self, args: &A) -> Result<R> {
        Ok(self(args))
    }
}

/// A closure that returns `Result`, as a [`Function`]. Made by [`fallible`].
#[derive(Clone, Copy)]
pub struct Fallible<F>(F);

/// Makes a closure `Fn(&A) -> Result<R>` a [`Function`], so that any transformation can take
/// it: its first error is the error of the transformation's `call`, with its message
/// ([`jit_fallible`](crate::jit_fallible) is `jit(fallible(f))`).
///
/// ```
/// use systolic::{fallible, grad, numpy as np, vmap, Array, Error};
/// let norm2 = fallible(|x: &Array| {
///     if x.ndim() != 1 {
///         return Err(Error::Host(format!("expected a vector, got shape {:?}", x.shape())));
///     }
///     Ok(np::sum(&(x * x), None, false))
/// });
/// let per_row = vmap(grad(norm2));
/// let g = per_row.call(&Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2])).unwrap();
/// assert_eq!(g.to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0, 8.0]);
/// let err = per_row.call(&Array::from_vec(vec![1.0f32; 8], &[2, 2, 2])).unwrap_err();
/// assert!(err.to_string().contains("expected a vector, got shape [2, 2]"), "{err}");
/// ```
pub fn fallible<A, R: Tree, F: Fn(&A) -> Result<R>>(f: F) -> Fallible<F> {
    Fallible(f)
}

impl<A, R: Tree, F: Fn(&A) -> Result<R>> Function<A> for Fallible<F> {
    type Output = R;

    fn call(&self, args: &A) -> Result<R> {
        (self.0)(args)
    }
}

/// `&T` is a function wherever the transformation `T` is, so one transformation can be used
/// by several others (`let g = jit(grad(f)); vmap(&g)`) and called directly too. (A blanket
/// `impl for &T` would overlap the closures' one: `&F` is a closure when `F` is.)
macro_rules! by_reference {
    ($([$($g:ident),*] $t:ty, $a:ty;)*) => {$(
        impl<'r, $($g),*> Function<$a> for &'r $t
        where
            $t: Function<$a>,
        {
            type Output = <$t as Function<$a>>::Output;

            fn call(&self, args: &$a) -> Result<Self::Output> {
                <$t as Function<$a>>::call(*self, args)
            }
        }
    )*};
}

use crate::transforms::custom::{CustomJvp, CustomVjp};
use crate::transforms::grad::{Checkpoint, Grad, GradArgnums, ValueAndGrad, ValueAndGradAux, Vjp};
use crate::transforms::jac::{Hessian, Jacobian, Linearized};
use crate::transforms::jit::Jit;
use crate::transforms::shard_map::{Pmap, ShardMap};
use crate::transforms::vmap::Vmap;

by_reference! {
    [A, R, F] Jit<A, R, F>, A;
    [A, F] Grad<A, F>, A;
    [A, S, F] GradArgnums<A, S, F>, A;
    [A, F] ValueAndGrad<A, F>, A;
    [A, X, F] ValueAndGradAux<A, X, F>, A;
    [A, R] Vjp<A, R>, R;
    [A, R, F] Checkpoint<A, R, F>, A;
    [A, R, F] Vmap<A, R, F>, A;
    [A, R, F] Jacobian<A, R, F>, A;
    [A, F] Hessian<A, F>, A;
    [A, R] Linearized<A, R>, A;
    [A, R, F, J] CustomJvp<A, R, F, J>, A;
    [A, R, X, F, Fw, Bw] CustomVjp<A, R, X, F, Fw, Bw>, A;
    [A, R, F] ShardMap<A, R, F>, A;
    [A, R, F] Pmap<A, R, F>, A;
    [A, F] Fallible<F>, A;
}

/// Stages `f` on `inputs` (abstract arrays standing for the leaves of `args`, which they
/// replace one for one): the staged function and the output tree, whose leaves are values of
/// the finished trace (a template to rebuild results into). An error of `f`, or of a leaf it
/// returns, is returned.
pub(crate) fn stage_function<A: Tree, F: Function<A> + ?Sized>(
    name: &str,
    args: &A,
    inputs: &[Array],
    capture_concrete: bool,
    f: &F,
) -> Result<(Staged, F::Output)> {
    let template = RefCell::new(None);
    let failure = RefCell::new(None);
    let staged = stage_with(name, inputs, capture_concrete, |tracers| {
        let run = || -> Result<Vec<Array>> {
            let a = args.rebuild(&mut tracers.iter().cloned())?;
            let r = f.call(&a)?;
            let mut outs = vec![];
            r.leaves(&mut outs);
            *template.borrow_mut() = Some(r);
            Ok(outs)
        };
        run().unwrap_or_else(|e| {
            *failure.borrow_mut() = Some(e);
            vec![]
        })
    })?;
    if let Some(e) = failure.into_inner() {
        return Err(e);
    }
    let template = template
        .into_inner()
        .ok_or_else(|| Error::Trace(format!("{name}: the function was not traced")))?;
    Ok((staged, template))
}
