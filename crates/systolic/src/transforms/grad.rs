//! Automatic differentiation: [`grad`], [`value_and_grad`] (and their `_with_aux` forms),
//! [`jvp`], [`vjp`] and [`checkpoint`], over pytrees ([`Tree`]).
//!
//! The user's function is staged into IR on its input leaves, transformed by
//! `systolic_autodiff` (reverse mode: a forward sweep keeping residuals and a backward sweep of
//! transposed ops; forward mode: tangents next to primals) and called on the inputs: compiled
//! and run when they are concrete, inlined into the enclosing trace under [`jit`](crate::jit),
//! another `grad` or `vmap`. So `jit(grad(f))` and `grad(grad(f))` work as in JAX.
//!
//! Arguments are differentiated as one pytree (JAX's `argnums=0` over a tuple); to hold some
//! inputs fixed, close over them: `grad(|p: &Params| loss(p, &batch))`.

use crate::array::Array;
use crate::core::staging::{call_func, stage};
use crate::error::{Error, Result};
use crate::transforms::function::{stage_function, Function};
use crate::tree::Tree;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicI64, Ordering};
use systolic_ir::{Scalar, Tensor, TensorType};

pub(crate) fn ad_err(what: &str, e: systolic_autodiff::Error) -> Error {
    Error::op(what, e.message)
}

pub(crate) fn leaves_of<T: Tree>(t: &T) -> Vec<Array> {
    let mut v = vec![];
    t.leaves(&mut v);
    v
}

/// A constant `x` of `ty` (staged under a trace, else on the default device; `x + 0i` for a
/// complex `ty`).
pub(crate) fn filled(ty: &TensorType, x: f64) -> Result<Array> {
    let s = if ty.dtype.is_complex() {
        Scalar::Complex(systolic_ir::Complex64::new(x, 0.0))
    } else if ty.dtype.is_float() {
        Scalar::Float(x)
    } else if ty.dtype.is_bool() {
        Scalar::Bool(x != 0.0)
    } else if ty.dtype.is_unsigned_integer() {
        Scalar::UInt(x as u64)
    } else {
        Scalar::Int(x as i64)
    };
    let scalar =
        Tensor::splat(TensorType::scalar(ty.dtype), s).map_err(|e| Error::Host(format!("{e}")))?;
    let c = crate::core::bind::constant(scalar, false);
    if ty.shape.is_empty() {
        return Ok(c);
    }
    Ok(crate::numpy::broadcast_to(&c, &ty.shape))
}

/// Stages `f` on the leaves of `args`; the closure's own errors are returned.
pub(crate) fn stage_tree<A: Tree>(
    name: &str,
    args: &A,
    f: impl FnOnce(&A) -> Result<Vec<Array>>,
) -> Result<(crate::core::staging::Staged, Vec<Array>)> {
    let leaves = leaves_of(args);
    let failure = RefCell::new(None);
    let staged = stage(name, &leaves, |tracers| {
        let run = || -> Result<Vec<Array>> {
            let a = args.rebuild(&mut tracers.iter().cloned())?;
            f(&a)
        };
        match run() {
            Ok(v) => v,
            Err(e) => {
                *failure.borrow_mut() = Some(e);
                vec![]
            }
        }
    })?;
    if let Some(e) = failure.into_inner() {
        return Err(e);
    }
    Ok((staged, leaves))
}

/// Which input leaves a reverse-mode transformation differentiates, whether integer and
/// boolean ones may be among them, and whether the function is holomorphic.
#[derive(Clone, Debug, Default)]
pub(crate) struct Wrt {
    /// Leaf positions (in [`Tree::leaves`] order); `None`: every leaf.
    pub(crate) leaves: Option<Vec<usize>>,
    /// JAX's `allow_int`: integer leaves get a zero gradient instead of an error.
    pub(crate) allow_int: bool,
    /// JAX's `holomorphic=True`: complex inputs and a complex output, whose cotangent is 1.
    pub(crate) holomorphic: bool,
    /// Complex inputs are refused too (jacfwd/jacrev, whose Jacobians are of real maps).
    pub(crate) real_only: bool,
}

impl Wrt {
    /// Every leaf, real inputs only (jacfwd/jacrev).
    pub(crate) fn real_only() -> Wrt {
        Wrt {
            real_only: true,
            ..Wrt::default()
        }
    }

    /// The leaf positions to differentiate among `leaves`, after checking their dtypes: an
    /// integer or boolean one is an error naming its path (JAX's TypeError) unless
    /// `allow_int`.
    pub(crate) fn resolve<A: Tree>(
        &self,
        what: &str,
        args: &A,
        leaves: &[Array],
    ) -> Result<Vec<usize>> {
        let wrt = match &self.leaves {
            Some(w) => w.clone(),
            None => (0..leaves.len()).collect(),
        };
        if let Some(&bad) = wrt.iter().find(|&&i| i >= leaves.len()) {
            return Err(Error::op(
                what,
                format!(
                    "leaf {bad} is selected but there are {} leaves",
                    leaves.len()
                ),
            ));
        }
        let path_of = |i: usize| args.def().paths().get(i).cloned().unwrap_or_default();
        if self.holomorphic
            && let Some(&i) = wrt
                .iter()
                .find(|&&i| !leaves[i].element_type().is_complex())
        {
            return Err(Error::op(
                what,
                format!(
                    "{what} with holomorphic(true) requires inputs with complex dtype, but got \
                     {} at `args{}`",
                    leaves[i].element_type().numpy_name(),
                    path_of(i)
                ),
            ));
        }
        if self.real_only
            && let Some(&i) = wrt.iter().find(|&&i| leaves[i].element_type().is_complex())
        {
            return Err(Error::op(
                what,
                format!(
                    "{what} requires real-valued inputs (a floating dtype), but got {} at \
                     `args{}`; for complex inputs use jvp or vjp directly",
                    leaves[i].element_type().numpy_name(),
                    path_of(i)
                ),
            ));
        }
        if !self.allow_int
            && let Some(&i) = wrt
                .iter()
                .find(|&&i| !leaves[i].element_type().is_float_or_complex())
        {
            let wanted = if self.real_only {
                "real-valued inputs (a floating dtype)"
            } else {
                "real- or complex-valued inputs (a floating or complex dtype, JAX's np.inexact)"
            };
            return Err(Error::op(
                what,
                format!(
                    "{what} requires {wanted}, but got {} at `args{}`; to differentiate with \
                     respect to integer or boolean inputs use vjp or set allow_int(true)",
                    leaves[i].element_type().numpy_name(),
                    path_of(i)
                ),
            ));
        }
        Ok(wrt)
    }
}

/// Reverse mode of `f` (a scalar first output, then auxiliary outputs with zero cotangent) at
/// `args`: the outputs and the gradients of the leaves `wrt` selects, in its order.
fn value_and_grad_leaves<A: Tree>(
    what: &str,
    args: &A,
    wrt: &Wrt,
    f: impl FnOnce(&A) -> Result<Vec<Array>>,
) -> Result<(Vec<Array>, Vec<Array>)> {
    let (staged, leaves) = stage_tree(what, args, f)?;
    let positions = wrt.resolve(what, args, &leaves)?;
    let out_ty = staged
        .func
        .result_types
        .first()
        .and_then(|t| t.as_tensor())
        .cloned()
        .ok_or_else(|| Error::op(what, "the function returned nothing"))?;
    if !out_ty.shape.is_empty() {
        return Err(Error::op(
            what,
            format!(
                "the function must return a scalar to be differentiated, got {}",
                crate::array::describe(&out_ty)
            ),
        ));
    }
    // JAX's checks and messages: a real output, or a complex one under holomorphic(true).
    if wrt.holomorphic && !out_ty.dtype.is_complex() {
        return Err(Error::op(
            what,
            format!(
                "{what} with holomorphic(true) requires outputs with complex dtype, but got {}",
                crate::array::describe(&out_ty)
            ),
        ));
    }
    if !wrt.holomorphic && !out_ty.dtype.is_float() {
        return Err(Error::op(
            what,
            format!(
                "{what} requires real-valued outputs (a floating dtype), but got {}. For \
                 holomorphic differentiation, set holomorphic(true); for non-holomorphic \
                 functions with complex outputs, use vjp directly",
                crate::array::describe(&out_ty)
            ),
        ));
    }
    let df = systolic_autodiff::vjp(&staged.func, &positions).map_err(|e| ad_err(what, e))?;
    let mut call_args = leaves.clone();
    call_args.extend(staged.captures.iter().cloned());
    call_args.push(filled(&out_ty, 1.0)?);
    for t in &staged.func.result_types[1..] {
        let t = t
            .as_tensor()
            .ok_or_else(|| Error::op(what, "a non-tensor output"))?;
        call_args.push(filled(t, 0.0)?);
    }
    let nout = staged.func.result_types.len();
    let mut weak = staged.out_weak.clone();
    weak.extend(positions.iter().map(|&i| leaves[i].weak_type()));
    let mut outs = call_func(&df, &call_args, &weak)?;
    let grads = outs.split_off(nout);
    Ok((outs, grads))
}

/// The gradient of a scalar function. Made by [`grad`].
pub struct Grad<A, F> {
    f: F,
    wrt: Wrt,
    _a: PhantomData<fn(&A)>,
}

/// `jax.grad`: the gradient of `f` (which returns a float scalar) with respect to every leaf
/// of its argument, in the argument's structure.
///
/// ```
/// use systolic::{grad, numpy as np, Array};
/// // d/dx sum(x²) = 2x
/// let g = grad(|x: &Array| np::sum(&(x * x), None, false));
/// let x = Array::from_vec(vec![1.0f32, -2.0, 3.0], &[3]);
/// assert_eq!(g.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![2.0, -4.0, 6.0]);
/// // Second derivative of x³ at 2: 6x = 12 (grad of grad).
/// let d2 = grad(|x: &Array| grad(|y: &Array| &(y * y) * y).call(x).unwrap());
/// assert_eq!(d2.call(&Array::scalar(2.0f32)).unwrap().to_vec::<f32>().unwrap(), vec![12.0]);
/// ```
pub fn grad<A: Tree, F: Function<A, Output = Array>>(f: F) -> Grad<A, F> {
    Grad {
        f,
        wrt: Wrt::default(),
        _a: PhantomData,
    }
}

impl<A: Tree, F: Function<A, Output = Array>> Grad<A, F> {
    /// The gradient at `args` (eagerly, or staged into the active trace).
    ///
    /// An integer or boolean leaf is an error (JAX's TypeError), unless
    /// [`allow_int`](Grad::allow_int):
    ///
    /// ```
    /// use systolic::{grad, Array};
    /// let g = grad(|(x, n): &(Array, Array)| x * &systolic::numpy::astype(n, systolic_ir::DType::F32));
    /// let args = (Array::scalar(2.0f32), Array::scalar(3i32));
    /// let err = g.call(&args).unwrap_err().to_string();
    /// assert!(err.contains("requires real- or complex-valued inputs") && err.contains("int32"), "{err}");
    /// assert!(err.contains("`args[1]`"), "{err}");
    /// ```
    pub fn call(&self, args: &A) -> Result<A> {
        let (_, grads) =
            value_and_grad_leaves("grad", args, &self.wrt, |a| Ok(vec![self.f.call(a)?]))?;
        args.rebuild(&mut grads.into_iter())
    }

    /// JAX's `allow_int=True`: integer and boolean leaves are accepted and get a zero gradient
    /// (of their own dtype; JAX's is `float0`).
    ///
    /// ```
    /// use systolic::{grad, Array};
    /// let g = grad(|(x, n): &(Array, Array)| x * &systolic::numpy::astype(n, systolic_ir::DType::F32)).allow_int(true);
    /// let (dx, dn) = g.call(&(Array::scalar(2.0f32), Array::scalar(3i32))).unwrap();
    /// assert_eq!(dx.to_vec::<f32>().unwrap(), vec![3.0]);
    /// assert_eq!(dn.to_vec::<i32>().unwrap(), vec![0]);
    /// ```
    pub fn allow_int(mut self, allow: bool) -> Self {
        self.wrt.allow_int = allow;
        self
    }

    /// JAX's `holomorphic=True`: `f` maps complex inputs to a complex scalar and is
    /// holomorphic; the result is its complex derivative (the cotangent seeded with `1 + 0i`).
    /// Without it, complex inputs are allowed but the output must be real, and the gradient
    /// is the conjugate of the steepest-ascent direction, as JAX returns it.
    ///
    /// ```
    /// use systolic::{grad, numpy as np, Array};
    /// use systolic::Complex64;
    /// let z = Array::from_vec(vec![Complex64::new(1.0, 2.0)], &[]);
    /// // d/dz z² = 2z
    /// let d = grad(|z: &Array| z * z).holomorphic(true).call(&z).unwrap();
    /// assert_eq!(d.to_vec::<Complex64>().unwrap(), vec![Complex64::new(2.0, 4.0)]);
    /// // A real loss of a complex input: |z|² gives 2·conj(z).
    /// let g = grad(|z: &Array| np::real(&(z * &np::conj(z)))).call(&z).unwrap();
    /// assert_eq!(g.to_vec::<Complex64>().unwrap(), vec![Complex64::new(2.0, -4.0)]);
    /// ```
    pub fn holomorphic(mut self, holomorphic: bool) -> Self {
        self.wrt.holomorphic = holomorphic;
        self
    }

    /// JAX's `argnums`: differentiate only the selected elements of a tuple argument, and
    /// return only their gradients. `Arg::<1>` selects one (the result is that element's
    /// type); a tuple of them, `(Arg::<0>, Arg::<2>)`, several (the result is the tuple of
    /// their types). The other elements are held fixed and may be integers.
    ///
    /// ```
    /// use systolic::{grad, numpy as np, Arg, Array};
    /// // loss(w, b, x) = sum((x·w + b)²), differentiated in w and b only: JAX's argnums=(0, 1).
    /// let loss = |(w, b, x): &(Array, Array, Array)| {
    ///     let r = &(x * w) + b;
    ///     np::sum(&(&r * &r), None, false)
    /// };
    /// let args = (Array::scalar(2.0f32), Array::scalar(1.0f32), Array::from_vec(vec![1.0f32, -1.0], &[2]));
    /// let (dw, db) = grad(loss).argnums((Arg::<0>, Arg::<1>)).call(&args).unwrap();
    /// // r = [3, -1]: d/dw = 2 Σ r x = 8, d/db = 2 Σ r = 4
    /// assert_eq!(dw.to_vec::<f32>().unwrap(), vec![8.0]);
    /// assert_eq!(db.to_vec::<f32>().unwrap(), vec![4.0]);
    /// let dx = grad(loss).argnums(Arg::<2>).call(&args).unwrap();
    /// assert_eq!(dx.to_vec::<f32>().unwrap(), vec![12.0, -4.0]);
    /// ```
    pub fn argnums<S: ArgNums<A>>(self, select: S) -> GradArgnums<A, S, F> {
        GradArgnums {
            f: self.f,
            wrt: self.wrt,
            select,
            _a: PhantomData,
        }
    }
}

/// The gradient with respect to selected elements of a tuple argument. Made by
/// [`Grad::argnums`] and [`ValueAndGrad::argnums`].
pub struct GradArgnums<A, S, F> {
    f: F,
    /// `allow_int` and `holomorphic` (the leaves come from the selection).
    wrt: Wrt,
    select: S,
    _a: PhantomData<fn(&A)>,
}

impl<A: Tree, S: ArgNums<A>, F: Function<A, Output = Array>> GradArgnums<A, S, F> {
    /// The selected gradients at `args`.
    pub fn call(&self, args: &A) -> Result<S::Out> {
        Ok(self.value_and_grad(args)?.1)
    }

    /// `(f(args), the selected gradients)`, from one forward and one backward sweep.
    ///
    /// ```
    /// use systolic::{grad, Arg, Array};
    /// let f = grad(|(x, y): &(Array, Array)| x * y).argnums(Arg::<1>);
    /// let (v, dy) = f.value_and_grad(&(Array::scalar(3.0f32), Array::scalar(4.0f32))).unwrap();
    /// assert_eq!((v.to_vec::<f32>().unwrap(), dy.to_vec::<f32>().unwrap()), (vec![12.0], vec![3.0]));
    /// ```
    pub fn value_and_grad(&self, args: &A) -> Result<(Array, S::Out)> {
        let wrt = Wrt {
            leaves: Some(self.select.positions(args)),
            ..self.wrt.clone()
        };
        let (mut outs, grads) =
            value_and_grad_leaves("grad", args, &wrt, |a| Ok(vec![self.f.call(a)?]))?;
        let picked = self.select.pick(args, &mut grads.into_iter())?;
        Ok((outs.remove(0), picked))
    }
}

/// Selects elements of a tuple argument for [`Grad::argnums`]: [`Arg<N>`] for one, a tuple of
/// `Arg`s for several.
pub trait ArgNums<A> {
    /// The gradients' type: the selected element's, or a tuple of them.
    type Out: Tree;
    /// The positions of the selected leaves among all of `args`' leaves, in selection order.
    fn positions(&self, args: &A) -> Vec<usize>;
    /// The gradients, structured as the selection, from `grads` (in [`positions`] order).
    ///
    /// [`positions`]: ArgNums::positions
    fn pick(&self, args: &A, grads: &mut dyn Iterator<Item = Array>) -> Result<Self::Out>;
}

/// Element `N` of a tuple argument, for [`Grad::argnums`] (JAX's `argnums=N`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Arg<const N: usize>;

macro_rules! arg_of_tuple {
    ($k:tt, $out:ident; $($name:ident $idx:tt),+) => {
        impl<$($name: Tree),+> ArgNums<($($name,)+)> for Arg<$k> {
            type Out = $out;
            fn positions(&self, args: &($($name,)+)) -> Vec<usize> {
                let mut start = 0;
                let mut picked = vec![];
                $(
                    let n = leaves_of(&args.$idx).len();
                    if $idx == $k {
                        picked.extend(start..start + n);
                    }
                    start += n;
                )+
                let _ = start;
                picked
            }
            fn pick(
                &self,
                args: &($($name,)+),
                grads: &mut dyn Iterator<Item = Array>,
            ) -> Result<$out> {
                args.$k.rebuild(grads)
            }
        }
    };
}

arg_of_tuple!(0, A0; A0 0);
arg_of_tuple!(0, A0; A0 0, A1 1);
arg_of_tuple!(1, A1; A0 0, A1 1);
arg_of_tuple!(0, A0; A0 0, A1 1, A2 2);
arg_of_tuple!(1, A1; A0 0, A1 1, A2 2);
arg_of_tuple!(2, A2; A0 0, A1 1, A2 2);
arg_of_tuple!(0, A0; A0 0, A1 1, A2 2, A3 3);
arg_of_tuple!(1, A1; A0 0, A1 1, A2 2, A3 3);
arg_of_tuple!(2, A2; A0 0, A1 1, A2 2, A3 3);
arg_of_tuple!(3, A3; A0 0, A1 1, A2 2, A3 3);
arg_of_tuple!(0, A0; A0 0, A1 1, A2 2, A3 3, A4 4);
arg_of_tuple!(1, A1; A0 0, A1 1, A2 2, A3 3, A4 4);
arg_of_tuple!(2, A2; A0 0, A1 1, A2 2, A3 3, A4 4);
arg_of_tuple!(3, A3; A0 0, A1 1, A2 2, A3 3, A4 4);
arg_of_tuple!(4, A4; A0 0, A1 1, A2 2, A3 3, A4 4);

macro_rules! args_tuple {
    ($($s:ident $i:tt),+) => {
        impl<A, $($s: ArgNums<A>),+> ArgNums<A> for ($($s,)+) {
            type Out = ($($s::Out,)+);
            fn positions(&self, args: &A) -> Vec<usize> {
                let mut v = vec![];
                $(v.extend(self.$i.positions(args));)+
                v
            }
            fn pick(&self, args: &A, grads: &mut dyn Iterator<Item = Array>) -> Result<Self::Out> {
                Ok(($(self.$i.pick(args, grads)?,)+))
            }
        }
    };
}

args_tuple!(S0 0, S1 1);
args_tuple!(S0 0, S1 1, S2 2);
args_tuple!(S0 0, S1 1, S2 2, S3 3);

/// The value and gradient of a scalar function. Made by [`value_and_grad`].
pub struct ValueAndGrad<A, F> {
    f: F,
    wrt: Wrt,
    _a: PhantomData<fn(&A)>,
}

/// `jax.value_and_grad`: `f`'s value and its gradient, from one forward and one backward
/// sweep.
///
/// ```
/// use systolic::{jit, numpy as np, value_and_grad, Array};
/// // One SGD step on a least-squares loss, eagerly and under jit.
/// let loss = |(w, x, y): &(Array, Array, Array)| {
///     let r = &np::matmul(x, w) - y;
///     np::sum(&(&r * &r), None, false)
/// };
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let y = Array::from_vec(vec![1.0f32, 1.0], &[2]);
/// let w = Array::from_vec(vec![0.5f32, -0.5], &[2]);
/// let (l, g) = value_and_grad(loss).call(&(w.clone(), x.clone(), y.clone())).unwrap();
/// assert_eq!(l.to_vec::<f32>().unwrap(), vec![4.5]); // r = [-1.5, -1.5]
/// assert_eq!(g.0.to_vec::<f32>().unwrap(), vec![-12.0, -18.0]); // 2 xᵀ r
/// let step = jit(move |(w, x, y): &(Array, Array, Array)| {
///     let (_, g) = value_and_grad(loss).call(&(w.clone(), x.clone(), y.clone())).unwrap();
///     w - &(&g.0 * 0.01)
/// });
/// let w2 = step.call(&(w, x, y)).unwrap();
/// let w2 = w2.to_vec::<f32>().unwrap();
/// assert!((w2[0] - 0.62).abs() < 1e-6 && (w2[1] + 0.32).abs() < 1e-6, "{w2:?}");
/// ```
pub fn value_and_grad<A: Tree, F: Function<A, Output = Array>>(f: F) -> ValueAndGrad<A, F> {
    ValueAndGrad {
        f,
        wrt: Wrt::default(),
        _a: PhantomData,
    }
}

impl<A: Tree, F: Function<A, Output = Array>> ValueAndGrad<A, F> {
    /// `(f(args), ∇f(args))`.
    pub fn call(&self, args: &A) -> Result<(Array, A)> {
        let (mut outs, grads) = value_and_grad_leaves("value_and_grad", args, &self.wrt, |a| {
            Ok(vec![self.f.call(a)?])
        })?;
        Ok((outs.remove(0), args.rebuild(&mut grads.into_iter())?))
    }

    /// As [`Grad::allow_int`].
    pub fn allow_int(mut self, allow: bool) -> Self {
        self.wrt.allow_int = allow;
        self
    }

    /// As [`Grad::holomorphic`].
    pub fn holomorphic(mut self, holomorphic: bool) -> Self {
        self.wrt.holomorphic = holomorphic;
        self
    }

    /// As [`Grad::argnums`]; call [`GradArgnums::value_and_grad`] for the value too.
    ///
    /// ```
    /// use systolic::{value_and_grad, Arg, Array};
    /// let f = value_and_grad(|(x, y): &(Array, Array)| x * y).argnums(Arg::<0>);
    /// let (v, dx) = f.value_and_grad(&(Array::scalar(3.0f32), Array::scalar(4.0f32))).unwrap();
    /// assert_eq!((v.to_vec::<f32>().unwrap(), dx.to_vec::<f32>().unwrap()), (vec![12.0], vec![4.0]));
    /// ```
    pub fn argnums<S: ArgNums<A>>(self, select: S) -> GradArgnums<A, S, F> {
        GradArgnums {
            f: self.f,
            wrt: self.wrt,
            select,
            _a: PhantomData,
        }
    }
}

/// [`value_and_grad`] of a function returning `(scalar, aux)` (JAX's `has_aux=True`): the
/// auxiliary outputs are returned, not differentiated. Made by [`value_and_grad_with_aux`].
pub struct ValueAndGradAux<A, X, F> {
    f: F,
    _a: PhantomData<fn(&A) -> X>,
}

/// `jax.value_and_grad(f, has_aux=True)`.
///
/// ```
/// use systolic::{numpy as np, value_and_grad_with_aux, Array};
/// let f = |x: &Array| {
///     let y = x * x;
///     (np::sum(&y, None, false), y) // the squares ride along as aux
/// };
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// let ((v, aux), g) = value_and_grad_with_aux(f).call(&x).unwrap();
/// assert_eq!(v.to_vec::<f32>().unwrap(), vec![5.0]);
/// assert_eq!(aux.to_vec::<f32>().unwrap(), vec![1.0, 4.0]);
/// assert_eq!(g.to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
/// ```
pub fn value_and_grad_with_aux<A: Tree, X: Tree, F: Function<A, Output = (Array, X)>>(
    f: F,
) -> ValueAndGradAux<A, X, F> {
    ValueAndGradAux { f, _a: PhantomData }
}

impl<A: Tree, X: Tree, F: Function<A, Output = (Array, X)>> ValueAndGradAux<A, X, F> {
    /// `((f(args).0, aux), ∇f(args).0)`.
    pub fn call(&self, args: &A) -> Result<((Array, X), A)> {
        let template: RefCell<Option<X>> = RefCell::new(None);
        let (mut outs, grads) =
            value_and_grad_leaves("value_and_grad", args, &Wrt::default(), |a| {
                let (v, aux) = self.f.call(a)?;
                let mut out = vec![v];
                aux.leaves(&mut out);
                *template.borrow_mut() = Some(aux);
                Ok(out)
            })?;
        let value = outs.remove(0);
        let aux = template
            .into_inner()
            .ok_or_else(|| Error::op("value_and_grad", "no aux output"))?
            .rebuild(&mut outs.into_iter())?;
        Ok(((value, aux), args.rebuild(&mut grads.into_iter())?))
    }
}

/// `jax.jvp`: `(f(primals), ∂f(primals)·tangents)` by forward mode; `tangents` has the
/// structure of `primals`.
///
/// ```
/// use systolic::{jvp, Array};
/// let f = |x: &Array| x.clone() * x.clone();
/// let x = Array::from_vec(vec![3.0f32], &[1]);
/// let t = Array::from_vec(vec![1.0f32], &[1]);
/// let (y, dy) = jvp(f, &x, &t).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![9.0]);
/// assert_eq!(dy.to_vec::<f32>().unwrap(), vec![6.0]);
/// ```
pub fn jvp<A: Tree, R: Tree, F: Function<A, Output = R>>(
    f: F,
    primals: &A,
    tangents: &A,
) -> Result<(R, R)> {
    let leaves = leaves_of(primals);
    let (staged, template) = stage_function("jvp", primals, &leaves, true, &f)?;
    let tleaves = leaves_of(tangents);
    if tleaves.len() != leaves.len() {
        return Err(Error::op(
            "jvp",
            format!("{} tangents for {} primals", tleaves.len(), leaves.len()),
        ));
    }
    for (p, t) in leaves.iter().zip(&tleaves) {
        if p.aval() != t.aval() {
            return Err(Error::op(
                "jvp",
                format!(
                    "a tangent {} for a primal {}",
                    crate::array::describe(t.aval()),
                    crate::array::describe(p.aval())
                ),
            ));
        }
    }
    let jf = systolic_autodiff::jvp(&staged.func).map_err(|e| ad_err("jvp", e))?;
    let mut args = leaves.clone();
    args.extend(staged.captures.iter().cloned());
    args.extend(tleaves);
    for c in &staged.captures {
        args.push(filled(c.aval(), 0.0)?);
    }
    let mut weak = staged.out_weak.clone();
    weak.extend(staged.out_weak.iter().copied());
    let mut outs = call_func(&jf, &args, &weak)?;
    let touts = outs.split_off(staged.out_weak.len());
    Ok((
        template.rebuild(&mut outs.into_iter())?,
        template.rebuild(&mut touts.into_iter())?,
    ))
}

/// The pullback of a function at a point. Made by [`vjp`].
pub struct Vjp<A, R> {
    func: systolic_ir::Func,
    args: Vec<Array>,
    nout: usize,
    in_weak: Vec<bool>,
    primals: A,
    _r: PhantomData<fn(&R)>,
}

/// `jax.vjp`: `f(primals)` and its pullback, which maps output cotangents (structured as the
/// output) to input cotangents (structured as `primals`).
///
/// ```
/// use systolic::{vjp, Array};
/// let f = |(x, y): &(Array, Array)| x * y;
/// let x = Array::from_vec(vec![2.0f32, 3.0], &[2]);
/// let y = Array::from_vec(vec![5.0f32, 7.0], &[2]);
/// let (out, pullback) = vjp(f, &(x, y)).unwrap();
/// assert_eq!(out.to_vec::<f32>().unwrap(), vec![10.0, 21.0]);
/// let (dx, dy) = pullback.call(&Array::from_vec(vec![1.0f32, 10.0], &[2])).unwrap();
/// assert_eq!(dx.to_vec::<f32>().unwrap(), vec![5.0, 70.0]);
/// assert_eq!(dy.to_vec::<f32>().unwrap(), vec![2.0, 30.0]);
/// ```
pub fn vjp<A: Tree + Clone, R: Tree, F: Function<A, Output = R>>(
    f: F,
    primals: &A,
) -> Result<(R, Vjp<A, R>)> {
    let leaves = leaves_of(primals);
    let (staged, template) = stage_function("vjp", primals, &leaves, true, &f)?;
    let mut args = leaves.clone();
    args.extend(staged.captures.iter().cloned());
    let outs = call_func(&staged.func, &args, &staged.out_weak)?;
    let nout = outs.len();
    let wrt: Vec<usize> = (0..leaves.len()).collect();
    let df = systolic_autodiff::vjp(&staged.func, &wrt).map_err(|e| ad_err("vjp", e))?;
    let out = template.rebuild(&mut outs.into_iter())?;
    Ok((
        out,
        Vjp {
            func: df,
            args,
            nout,
            in_weak: leaves.iter().map(Array::weak_type).collect(),
            primals: primals.clone(),
            _r: PhantomData,
        },
    ))
}

impl<A: Tree, R: Tree> Vjp<A, R> {
    /// The input cotangents for output cotangents `ct` (structured as the output). The forward
    /// sweep runs again with the backward one.
    pub fn call(&self, ct: &R) -> Result<A> {
        let cts = leaves_of(ct);
        if cts.len() != self.nout {
            return Err(Error::op(
                "vjp",
                format!("{} cotangents for {} outputs", cts.len(), self.nout),
            ));
        }
        let mut args = self.args.clone();
        args.extend(cts);
        let mut weak = vec![false; self.nout];
        weak.extend(self.in_weak.iter().copied());
        let mut outs = call_func(&self.func, &args, &weak)?;
        let grads = outs.split_off(self.nout);
        self.primals.rebuild(&mut grads.into_iter())
    }
}

/// A function whose intermediate values are recomputed in the backward sweep instead of being
/// kept. Made by [`checkpoint`].
pub struct Checkpoint<A, R, F> {
    f: F,
    policy: crate::transforms::remat::RematPolicy,
    _t: PhantomData<fn(&A) -> R>,
}

static REMAT_GROUP: AtomicI64 = AtomicI64::new(1);

/// `jax.checkpoint` (remat): `f` computes the same values, but when it is differentiated its
/// intermediates are recomputed from its inputs in the backward sweep (behind an
/// `optimization_barrier`, so the compiler does not merge the recomputation back) instead of
/// being saved, trading compute for memory.
///
/// ```
/// use systolic::{checkpoint, grad, numpy as np, Array};
/// let block = checkpoint(|x: &Array| np::sin(&np::sin(x)));
/// let g = grad(|x: &Array| np::sum(&block.call(x).unwrap(), None, false));
/// let x = Array::from_vec(vec![0.5f32], &[1]);
/// let want = (0.5f32.sin().cos() * 0.5f32.cos()) as f32;
/// let got = g.call(&x).unwrap().to_vec::<f32>().unwrap()[0];
/// assert!((got - want).abs() < 1e-6, "{got} {want}");
/// ```
pub fn checkpoint<A: Tree, F: Function<A>>(f: F) -> Checkpoint<A, F::Output, F> {
    Checkpoint {
        f,
        policy: Default::default(),
        _t: PhantomData,
    }
}

impl<A: Tree, F: Function<A>> Checkpoint<A, F::Output, F> {
    /// What the backward pass may read saved instead of recomputing (JAX's `policy=`;
    /// default [`RematPolicy::NothingSaveable`](crate::RematPolicy::NothingSaveable)).
    ///
    /// ```
    /// use systolic::{checkpoint, grad, jit, numpy as np, Array, RematPolicy};
    /// let mlp = |(w, x): &(Array, Array)| np::tanh(&np::matmul(&np::tanh(&np::matmul(x, w)), w));
    /// let dots_in_backward = |policy: RematPolicy| {
    ///     let block = checkpoint(mlp).policy(policy);
    ///     let g = move |a: &(Array, Array)| {
    ///         grad(|a: &(Array, Array)| np::sum(&block.call(a).unwrap(), None, false)).call(a).unwrap()
    ///     };
    ///     let a = (Array::from_vec(vec![0.1f32; 4], &[2, 2]), Array::from_vec(vec![1.0f32; 4], &[2, 2]));
    ///     jit(g).lower(&a).unwrap().as_text().matches("stablehlo.dot_general").count()
    /// };
    /// // Saving the products spares recomputing them in the backward pass.
    /// assert!(dots_in_backward(RematPolicy::NothingSaveable) > dots_in_backward(RematPolicy::DotsSaveable));
    /// ```
    pub fn policy(mut self, policy: crate::transforms::remat::RematPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// `f(args)`, marked for rematerialisation.
    pub fn call(&self, args: &A) -> Result<F::Output> {
        let leaves = leaves_of(args);
        let (staged, template) = stage_function("checkpoint", args, &leaves, true, &self.f)?;
        let mut func = staged.func;
        self.policy
            .mark(&mut func, REMAT_GROUP.fetch_add(1, Ordering::Relaxed));
        let mut call_args = leaves;
        call_args.extend(staged.captures.iter().cloned());
        let outs = call_func(&func, &call_args, &staged.out_weak)?;
        template.rebuild(&mut outs.into_iter())
    }
}

impl<A: Tree, F: Function<A, Output = Array>> Function<A> for Grad<A, F> {
    type Output = A;

    fn call(&self, args: &A) -> Result<A> {
        Grad::call(self, args)
    }
}

impl<A: Tree, S: ArgNums<A>, F: Function<A, Output = Array>> Function<A> for GradArgnums<A, S, F> {
    type Output = S::Out;

    fn call(&self, args: &A) -> Result<S::Out> {
        GradArgnums::call(self, args)
    }
}

impl<A: Tree, F: Function<A, Output = Array>> Function<A> for ValueAndGrad<A, F> {
    type Output = (Array, A);

    fn call(&self, args: &A) -> Result<(Array, A)> {
        ValueAndGrad::call(self, args)
    }
}

impl<A: Tree, X: Tree, F: Function<A, Output = (Array, X)>> Function<A>
    for ValueAndGradAux<A, X, F>
{
    type Output = ((Array, X), A);

    fn call(&self, args: &A) -> Result<((Array, X), A)> {
        ValueAndGradAux::call(self, args)
    }
}

/// A pullback is a function of the output cotangents: `jit(pullback)` compiles it (the
/// primals it closes over become captured inputs).
impl<A: Tree, R: Tree> Function<R> for Vjp<A, R> {
    type Output = A;

    fn call(&self, ct: &R) -> Result<A> {
        Vjp::call(self, ct)
    }
}

impl<A: Tree, F: Function<A>> Function<A> for Checkpoint<A, F::Output, F> {
    type Output = F::Output;

    fn call(&self, args: &A) -> Result<F::Output> {
        Checkpoint::call(self, args)
    }
}
