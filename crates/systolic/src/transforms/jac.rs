//! Jacobians and linearisation: [`jacfwd`], [`jacrev`], [`hessian`] and [`linearize`], built
//! as JAX builds them.
//!
//! - `jacfwd`: the function's JVP (`systolic_autodiff::jvp`) batched by `systolic_vmap` over
//!   the standard basis of the input space: one program computing every column at once.
//! - `jacrev`: the function's VJP batched over the standard basis of the output space: every
//!   row at once.
//! - `hessian`: `jacfwd` of `jacrev`, forward over reverse.
//! - `linearize`: the primal outputs and the JVP with the primals fixed.
//!
//! Shapes follow JAX: the Jacobian of an output leaf of shape `S_out` with respect to an
//! input leaf of shape `S_in` has shape `S_out ++ S_in`. A function returning one array gets
//! its Jacobian structured as its input ([`Jacobian::call`]); one returning a tree gets one
//! such tree per output leaf ([`Jacobian::call_leaves`]).

use crate::array::Array;
use crate::core::staging::call_func;
use crate::error::{Error, Result};
use crate::numpy as np;
use crate::transforms::function::{stage_function, Function};
use crate::transforms::grad::{ad_err, filled, leaves_of, stage_tree, Wrt};
use crate::tree::Tree;
use std::marker::PhantomData;

/// A leaf function of a tree argument: what the engines below differentiate.
type LeafFn<'a, A> = dyn Fn(&A) -> Result<Vec<Array>> + 'a;

fn size_of(a: &Array) -> i64 {
    a.num_elements() as i64
}

/// Columns `off..off+n` of the `total`-square identity, as a batch of `total` arrays shaped
/// like `like`: the part of the standard basis that falls on one leaf.
fn basis(total: i64, off: i64, like: &Array) -> Array {
    let e = np::eye(total, Some(size_of(like)), -off, like.element_type());
    let mut shape = vec![total];
    shape.extend_from_slice(like.dims());
    np::reshape(&e, &shape)
}

/// `x` (`[n] ++ S_j`, the batch of `n` derivatives of output `j` along input leaf `i`'s
/// elements) as `S_j ++ S_i`.
fn columns_to_jacobian(x: &Array, out_shape: &[i64], in_shape: &[i64]) -> Array {
    let n: i64 = in_shape.iter().product();
    let m: i64 = out_shape.iter().product();
    let t = np::transpose(&np::reshape(x, &[n, m]), None);
    let mut shape = out_shape.to_vec();
    shape.extend_from_slice(in_shape);
    np::reshape(&t, &shape)
}

/// Forward mode: `f`'s outputs at `args` and `jac[j][i]`, the Jacobian of output leaf `j`
/// with respect to input leaf `i`.
fn jacfwd_leaves<A: Tree>(
    what: &str,
    args: &A,
    f: &LeafFn<'_, A>,
) -> Result<(Vec<Array>, Vec<Vec<Array>>)> {
    let (staged, leaves) = stage_tree(what, args, f)?;
    Wrt::real_only().resolve(what, args, &leaves)?;
    let total: i64 = leaves.iter().map(size_of).sum();
    let mut call_args = leaves.clone();
    call_args.extend(staged.captures.iter().cloned());
    if total == 0 {
        let outs = call_func(&staged.func, &call_args, &staged.out_weak)?;
        let jac = zero_jacobian(&outs, &leaves);
        return Ok((outs, jac));
    }
    let jf = systolic_autodiff::jvp(&staged.func).map_err(|e| ad_err(what, e))?;
    let (np_, nc, nout) = (leaves.len(), staged.captures.len(), staged.out_weak.len());
    let mut off = 0;
    for l in &leaves {
        call_args.push(basis(total, off, l));
        off += size_of(l);
    }
    for c in &staged.captures {
        call_args.push(filled(c.aval(), 0.0)?);
    }
    let mut in_axes = vec![None; np_ + nc];
    in_axes.extend(std::iter::repeat_n(Some(0), np_));
    in_axes.extend(std::iter::repeat_n(None, nc));
    let mut out_axes = vec![None; nout];
    out_axes.extend(std::iter::repeat_n(Some(0), nout));
    let batched = systolic_vmap::vmap_named(&jf, &in_axes, total as usize, &out_axes, None)
        .map_err(|e| Error::op(what, e.to_string()))?;
    let mut weak = staged.out_weak.clone();
    weak.extend(staged.out_weak.iter().copied());
    let mut outs = call_func(&batched, &call_args, &weak)?;
    let tangents = outs.split_off(nout);
    let mut jac = Vec::with_capacity(nout);
    for (t, y) in tangents.iter().zip(&outs) {
        let mut row = Vec::with_capacity(np_);
        let mut off = 0;
        for l in &leaves {
            let n = size_of(l);
            let mut start = vec![0; t.rank()];
            let mut limit = t.dims().to_vec();
            start[0] = off;
            limit[0] = off + n;
            let cols = crate::lax::slice(t, &start, &limit, None);
            row.push(columns_to_jacobian(&cols, y.dims(), l.dims()));
            off += n;
        }
        jac.push(row);
    }
    Ok((outs, jac))
}

/// Reverse mode: `f`'s outputs at `args` and `jac[j][i]` as [`jacfwd_leaves`].
fn jacrev_leaves<A: Tree>(
    what: &str,
    args: &A,
    f: &LeafFn<'_, A>,
) -> Result<(Vec<Array>, Vec<Vec<Array>>)> {
    let (staged, leaves) = stage_tree(what, args, f)?;
    let wrt = Wrt::real_only().resolve(what, args, &leaves)?;
    let out_types: Vec<_> = staged
        .func
        .result_types
        .iter()
        .map(|t| {
            t.as_tensor()
                .cloned()
                .ok_or_else(|| Error::op(what, "a non-tensor output"))
        })
        .collect::<Result<_>>()?;
    // JAX's check: the rows of a reverse-mode Jacobian are cotangents of real outputs.
    if let Some(t) = out_types.iter().find(|t| t.dtype.is_complex()) {
        return Err(Error::op(
            what,
            format!(
                "{what} requires real-valued outputs (a floating dtype), but got {}; for \
                 complex outputs use vjp directly",
                crate::array::describe(t)
            ),
        ));
    }
    let outs_like: Vec<Array> = out_types
        .iter()
        .map(|t| filled(t, 0.0))
        .collect::<Result<_>>()?;
    let total: i64 = outs_like.iter().map(size_of).sum();
    let mut call_args = leaves.clone();
    call_args.extend(staged.captures.iter().cloned());
    if total == 0 {
        let outs = call_func(&staged.func, &call_args, &staged.out_weak)?;
        let jac = zero_jacobian(&outs, &leaves);
        return Ok((outs, jac));
    }
    let df = systolic_autodiff::vjp(&staged.func, &wrt).map_err(|e| ad_err(what, e))?;
    let (np_, nc, nout) = (leaves.len(), staged.captures.len(), out_types.len());
    let mut off = 0;
    for y in &outs_like {
        call_args.push(basis(total, off, y));
        off += size_of(y);
    }
    let mut in_axes = vec![None; np_ + nc];
    in_axes.extend(std::iter::repeat_n(Some(0), nout));
    let mut out_axes = vec![None; nout];
    out_axes.extend(std::iter::repeat_n(Some(0), np_));
    let batched = systolic_vmap::vmap_named(&df, &in_axes, total as usize, &out_axes, None)
        .map_err(|e| Error::op(what, e.to_string()))?;
    let mut weak = staged.out_weak.clone();
    weak.extend(leaves.iter().map(Array::weak_type));
    let mut outs = call_func(&batched, &call_args, &weak)?;
    let cotangents = outs.split_off(nout);
    let mut jac = Vec::with_capacity(nout);
    let mut off = 0;
    for y in &outs {
        let m = size_of(y);
        let row = cotangents
            .iter()
            .zip(&leaves)
            .map(|(ct, l)| {
                let mut start = vec![0; ct.rank()];
                let mut limit = ct.dims().to_vec();
                start[0] = off;
                limit[0] = off + m;
                let rows = crate::lax::slice(ct, &start, &limit, None);
                let mut shape = y.dims().to_vec();
                shape.extend_from_slice(l.dims());
                np::reshape(&rows, &shape)
            })
            .collect();
        jac.push(row);
        off += m;
    }
    Ok((outs, jac))
}

/// Zero Jacobians when there is nothing to differentiate along (empty inputs or outputs).
fn zero_jacobian(outs: &[Array], leaves: &[Array]) -> Vec<Vec<Array>> {
    outs.iter()
        .map(|y| {
            leaves
                .iter()
                .map(|l| {
                    let mut shape = y.dims().to_vec();
                    shape.extend_from_slice(l.dims());
                    np::zeros(&shape, y.element_type())
                })
                .collect()
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Mode {
    Forward,
    Reverse,
}

/// The Jacobian of a function. Made by [`jacfwd`] and [`jacrev`].
pub struct Jacobian<A, R, F> {
    f: F,
    mode: Mode,
    _t: PhantomData<fn(&A) -> R>,
}

/// `jax.jacfwd`: the Jacobian by forward mode, one JVP per input element, batched into one
/// program by `vmap` (cheaper than [`jacrev`] when there are fewer inputs than outputs).
///
/// ```
/// use systolic::{jacfwd, numpy as np, numpy::Idx, Array};
/// // f(x) = [x0·x1, sin(x0)]: J = [[x1, x0], [cos x0, 0]].
/// let f = |x: &Array| {
///     let (a, b) = (np::index(x, &[Idx::from(0)]), np::index(x, &[Idx::from(1)]));
///     np::stack(&[&(&a * &b), &np::sin(&a)], 0)
/// };
/// let j = jacfwd(f).call(&Array::from_vec(vec![0.0f32, 2.0], &[2])).unwrap();
/// assert_eq!(j.shape(), &[2, 2]); // out shape ++ in shape
/// assert_eq!(j.to_vec::<f32>().unwrap(), vec![2.0, 0.0, 1.0, 0.0]);
/// ```
pub fn jacfwd<A: Tree, F: Function<A>>(f: F) -> Jacobian<A, F::Output, F> {
    Jacobian {
        f,
        mode: Mode::Forward,
        _t: PhantomData,
    }
}

/// `jax.jacrev`: the Jacobian by reverse mode, one VJP per output element, batched into one
/// program by `vmap` (cheaper than [`jacfwd`] when there are fewer outputs than inputs).
///
/// ```
/// use systolic::{jacrev, numpy as np, Array, Tree};
/// #[derive(Tree, Clone)]
/// struct P { w: Array, b: Array }
/// // y = w·x + b for a fixed x: dy/dw = x (shape [2] ++ [2, 3]... here out [2], w [2, 3]).
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let f = move |p: &P| &np::matmul(&p.w, &x) + &p.b;
/// let p = P { w: Array::from_vec(vec![0.0f32; 6], &[2, 3]), b: Array::from_vec(vec![0.0f32; 2], &[2]) };
/// let j = jacrev(f).call(&p).unwrap();
/// assert_eq!(j.w.shape(), &[2, 2, 3]);
/// assert_eq!(j.b.shape(), &[2, 2]);
/// assert_eq!(j.b.to_vec::<f32>().unwrap(), vec![1.0, 0.0, 0.0, 1.0]);
/// assert_eq!(j.w.to_vec::<f32>().unwrap()[..6], [1.0, 2.0, 3.0, 0.0, 0.0, 0.0]);
/// ```
pub fn jacrev<A: Tree, F: Function<A>>(f: F) -> Jacobian<A, F::Output, F> {
    Jacobian {
        f,
        mode: Mode::Reverse,
        _t: PhantomData,
    }
}

impl<A: Tree, F: Function<A>> Jacobian<A, F::Output, F> {
    fn name(&self) -> &'static str {
        match self.mode {
            Mode::Forward => "jacfwd",
            Mode::Reverse => "jacrev",
        }
    }

    fn leaves(&self, args: &A) -> Result<(Vec<Array>, Vec<Vec<Array>>)> {
        let f = |a: &A| Ok(leaves_of(&self.f.call(a)?));
        match self.mode {
            Mode::Forward => jacfwd_leaves(self.name(), args, &f),
            Mode::Reverse => jacrev_leaves(self.name(), args, &f),
        }
    }

    /// One Jacobian per output leaf (in [`Tree::leaves`] order), each structured as the
    /// input: for an output tree, JAX's nested result flattened at its outer level.
    ///
    /// ```
    /// use systolic::{jacfwd, Array};
    /// let f = |x: &Array| (x * 2.0, x * x);
    /// let js = jacfwd(f).call_leaves(&Array::from_vec(vec![1.0f32, 3.0], &[2])).unwrap();
    /// assert_eq!(js[0].to_vec::<f32>().unwrap(), vec![2.0, 0.0, 0.0, 2.0]);
    /// assert_eq!(js[1].to_vec::<f32>().unwrap(), vec![2.0, 0.0, 0.0, 6.0]);
    /// ```
    pub fn call_leaves(&self, args: &A) -> Result<Vec<A>> {
        let (_, jac) = self.leaves(args)?;
        jac.into_iter()
            .map(|row| args.rebuild(&mut row.into_iter()))
            .collect()
    }
}

impl<A: Tree, F: Function<A, Output = Array>> Jacobian<A, Array, F> {
    /// The Jacobian of a function returning one array, structured as the input: each leaf's
    /// shape is the output's shape followed by that input leaf's. Runs eagerly or staged into
    /// an enclosing trace (`jit`, `vmap`, another derivative).
    pub fn call(&self, args: &A) -> Result<A> {
        let mut js = self.call_leaves(args)?;
        js.pop()
            .ok_or_else(|| Error::op(self.name(), "the function returned nothing"))
    }
}

/// The Hessian of a scalar function. Made by [`hessian`].
pub struct Hessian<A, F> {
    f: F,
    _a: PhantomData<fn(&A)>,
}

/// `jax.hessian`: second derivatives of a scalar function, as `jacfwd(jacrev(f))` (forward
/// over reverse). [`Hessian::call`] returns one tree per input leaf `i` whose leaf `j` is
/// `∂²f/∂xᵢ∂xⱼ` of shape `shape(xᵢ) ++ shape(xⱼ)`, JAX's nested structure.
///
/// ```
/// use systolic::{hessian, numpy as np, numpy::Idx, Array};
/// // f(x) = x0² x1 + x1³: H = [[2 x1, 2 x0], [2 x0, 6 x1]].
/// let f = |x: &Array| {
///     let (a, b) = (np::index(x, &[Idx::from(0)]), np::index(x, &[Idx::from(1)]));
///     &(&(&a * &a) * &b) + &(&(&b * &b) * &b)
/// };
/// let h = hessian(f).call(&Array::from_vec(vec![1.0f32, 2.0], &[2])).unwrap();
/// assert_eq!(h[0].shape(), &[2, 2]);
/// assert_eq!(h[0].to_vec::<f32>().unwrap(), vec![4.0, 2.0, 2.0, 12.0]);
/// ```
pub fn hessian<A: Tree, F: Function<A, Output = Array>>(f: F) -> Hessian<A, F> {
    Hessian { f, _a: PhantomData }
}

impl<A: Tree, F: Function<A, Output = Array>> Hessian<A, F> {
    /// `H[i]`, structured as the input, for each input leaf `i`.
    pub fn call(&self, args: &A) -> Result<Vec<A>> {
        let gradient = |a: &A| -> Result<Vec<Array>> {
            let f = |x: &A| Ok(vec![self.f.call(x)?]);
            let (outs, mut jac) = jacrev_leaves("hessian", a, &f)?;
            if outs.len() != 1 || !outs[0].dims().is_empty() {
                return Err(Error::op(
                    "hessian",
                    "the function must return one scalar".to_string(),
                ));
            }
            Ok(jac.remove(0))
        };
        let (_, jac) = jacfwd_leaves("hessian", args, &gradient)?;
        jac.into_iter()
            .map(|row| args.rebuild(&mut row.into_iter()))
            .collect()
    }
}

/// A function's JVP at fixed primals. Made by [`linearize`].
pub struct Linearized<A, R> {
    func: systolic_ir::Func,
    /// The primal leaves and the captured arrays.
    args: Vec<Array>,
    /// Zero tangents of the captured arrays.
    capture_tangents: Vec<Array>,
    out_weak: Vec<bool>,
    primals: Vec<Array>,
    template: R,
    _a: PhantomData<fn(&A)>,
}

/// `jax.linearize`: `f(primals)` and the linear map `t ↦ ∂f(primals)·t` (structured as the
/// output, taking tangents structured as `primals`).
///
/// The map is the function's JVP with the primals bound, so each call evaluates the primal
/// computation again next to the tangent one (compiled together; JAX instead keeps the
/// residuals of one forward pass).
///
/// ```
/// use systolic::{linearize, numpy as np, Array};
/// let (y, f_jvp) = linearize(|x: &Array| np::sin(x), &Array::from_vec(vec![0.0f32, 1.0], &[2])).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap()[0], 0.0);
/// let t = f_jvp.call(&Array::from_vec(vec![2.0f32, 1.0], &[2])).unwrap();
/// let want = [2.0, 1.0f32.cos()];
/// assert!((t.to_vec::<f32>().unwrap()[0] - want[0]).abs() < 1e-6);
/// assert!((t.to_vec::<f32>().unwrap()[1] - want[1]).abs() < 1e-6);
/// ```
pub fn linearize<A: Tree, R: Tree, F: Function<A, Output = R>>(
    f: F,
    primals: &A,
) -> Result<(R, Linearized<A, R>)> {
    let leaves = leaves_of(primals);
    let (staged, template) = stage_function("linearize", primals, &leaves, true, &f)?;
    Wrt::default().resolve("linearize", primals, &leaves)?;
    let mut args = leaves.clone();
    args.extend(staged.captures.iter().cloned());
    let outs = call_func(&staged.func, &args, &staged.out_weak)?;
    let out = template.rebuild(&mut outs.into_iter())?;
    let func = systolic_autodiff::jvp(&staged.func).map_err(|e| ad_err("linearize", e))?;
    let capture_tangents = staged
        .captures
        .iter()
        .map(|c| filled(c.aval(), 0.0))
        .collect::<Result<_>>()?;
    Ok((
        out,
        Linearized {
            func,
            args,
            capture_tangents,
            out_weak: staged.out_weak,
            primals: leaves,
            template,
            _a: PhantomData,
        },
    ))
}

impl<A: Tree, R: Tree> Linearized<A, R> {
    /// `∂f(primals)·tangents`; the tangents must have the primals' structure and types.
    pub fn call(&self, tangents: &A) -> Result<R> {
        let ts = leaves_of(tangents);
        if ts.len() != self.primals.len() {
            return Err(Error::op(
                "linearize",
                format!("{} tangents for {} primals", ts.len(), self.primals.len()),
            ));
        }
        for (p, t) in self.primals.iter().zip(&ts) {
            if p.aval() != t.aval() {
                return Err(Error::op(
                    "linearize",
                    format!(
                        "a tangent {} for a primal {}",
                        crate::array::describe(t.aval()),
                        crate::array::describe(p.aval())
                    ),
                ));
            }
        }
        let mut args = self.args.clone();
        args.extend(ts);
        args.extend(self.capture_tangents.iter().cloned());
        let mut weak = self.out_weak.clone();
        weak.extend(self.out_weak.iter().copied());
        let mut outs = call_func(&self.func, &args, &weak)?;
        let touts = outs.split_off(self.out_weak.len());
        self.template.rebuild(&mut touts.into_iter())
    }
}

/// The Jacobian of a function returning one array is a function of the same arguments.
impl<A: Tree, F: Function<A, Output = Array>> Function<A> for Jacobian<A, Array, F> {
    type Output = A;

    fn call(&self, args: &A) -> Result<A> {
        Jacobian::call(self, args)
    }
}

impl<A: Tree, F: Function<A, Output = Array>> Function<A> for Hessian<A, F> {
    type Output = Vec<A>;

    fn call(&self, args: &A) -> Result<Vec<A>> {
        Hessian::call(self, args)
    }
}

impl<A: Tree, R: Tree> Function<A> for Linearized<A, R> {
    type Output = R;

    fn call(&self, tangents: &A) -> Result<R> {
        Linearized::call(self, tangents)
    }
}
