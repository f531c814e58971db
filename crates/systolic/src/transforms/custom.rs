//! [`custom_jvp`] and [`custom_vjp`]: functions that carry their own differentiation rule,
//! for numerical stability (a derivative that the chain rule would compute as `inf/inf`),
//! for speed (a cheaper backward pass) or to change the gradient on purpose (clipping).
//!
//! Called under a trace (inside `jit`, `grad`, `vmap`, …), the function's primal ops are
//! staged between two tagged `optimization_barrier`s and its rule is staged into IR and
//! registered with `systolic_autodiff` (see `systolic_autodiff::CustomRule`), which applies it
//! when it differentiates through the barriers. Called eagerly, nothing can be
//! differentiated (differentiation stages the function it differentiates), so the primal
//! function runs as is.
//!
//! Arrays the rules read from outside (by closure) are held fixed: they get no tangent and no
//! cotangent, as JAX's `nondiff_argnums`. Pass what must be differentiated as arguments.
//!
//! Under `vmap` the rule is batched with the function: `systolic_vmap` batches the rule's IR
//! functions as it batches the barriers and registers the batched rule under a new id, so
//! `grad(vmap(f))` applies the rule as `vmap(grad(f))` does (the function's arguments and
//! outputs cross the batched barriers with a batch dimension, broadcast if they had none;
//! an unmapped argument's cotangent is summed over the examples).

use crate::array::{Array, Repr};
use crate::core::bind::bind;
use crate::core::staging::{call_func, stage, Staged};
use crate::core::trace;
use crate::error::{Error, Result};
use crate::transforms::function::{stage_function, Function};
use crate::transforms::grad::{leaves_of, stage_tree};
use crate::tree::Tree;
use std::cell::RefCell;
use std::marker::PhantomData;
use systolic_autodiff::{CustomRule, CUSTOM_RULE_ATTR, CUSTOM_RULE_END_ATTR};
use systolic_ir::{Attribute, NamedAttr, OpKind, TensorType, ValueId};

/// An array standing for an abstract value while a rule is staged: staging reads only its
/// type, weak-type flag and device.
fn aval(ty: &TensorType) -> Array {
    Array::make(
        ty.clone(),
        false,
        crate::device::default_device(),
        Repr::Traced {
            trace: 0,
            value: ValueId(0),
        },
    )
}

/// Stages the function itself on `args`: the staged primal, the argument leaves, and the output
/// tree (traced leaves) whose structure the rule's results are rebuilt into.
fn stage_primal<A: Tree, F: Function<A>>(
    op: &str,
    args: &A,
    f: &F,
) -> Result<(Staged, Vec<Array>, F::Output)> {
    let leaves = leaves_of(args);
    let (primal, template) = stage_function(op, args, &leaves, true, f)?;
    Ok((primal, leaves, template))
}

fn types(staged: &Staged) -> Result<Vec<TensorType>> {
    staged
        .func
        .result_types
        .iter()
        .map(|t| {
            t.as_tensor()
                .cloned()
                .ok_or_else(|| Error::Trace("a rule returned a non-tensor".into()))
        })
        .collect()
}

fn describe_all(tys: &[TensorType]) -> String {
    let parts: Vec<String> = tys.iter().map(crate::array::describe).collect();
    format!("({})", parts.join(", "))
}

/// An `optimization_barrier` over `xs` tagged `attr = id` (the values pass through unchanged,
/// weak types kept).
fn tagged_barrier(what: &str, xs: &[Array], attr: &str, id: i64) -> Result<Vec<Array>> {
    let refs: Vec<&Array> = xs.iter().collect();
    let outs = bind(
        what,
        OpKind::OptimizationBarrier,
        &refs,
        vec![],
        None,
        false,
    )?;
    let (tid, device) =
        trace::current().ok_or_else(|| Error::Trace(format!("{what}: no active trace")))?;
    let first = match outs.first().map(|a| &a.inner.repr) {
        Some(Repr::Traced { value, .. }) => *value,
        _ => return Err(Error::Trace(format!("{what}: the barrier was not staged"))),
    };
    trace::with_trace(tid, |t| {
        let op = t
            .ops
            .iter_mut()
            .rev()
            .find(|o| o.results.first() == Some(&first))
            .ok_or_else(|| Error::Trace(format!("{what}: the barrier was not staged")))?;
        op.attrs
            .push(NamedAttr::new(attr, Attribute::Int(id, None)));
        Ok(())
    })?;
    Ok(outs
        .into_iter()
        .zip(xs)
        .map(|(o, x)| {
            Array::make(
                o.aval().clone(),
                x.weak_type(),
                device,
                o.inner.repr.clone(),
            )
        })
        .collect())
}

/// Stages the primal between the barriers of rule `id`: the function's outputs.
fn call_primal(
    what: &str,
    primal: &Staged,
    leaves: &[Array],
    rule_captures: &[Array],
    id: i64,
) -> Result<Vec<Array>> {
    let mut ins = leaves.to_vec();
    ins.extend(primal.captures.iter().cloned());
    let n = ins.len();
    ins.extend(rule_captures.iter().cloned());
    if ins.is_empty() {
        return Err(Error::op(what, "the function takes no arrays"));
    }
    let passed = tagged_barrier(what, &ins, CUSTOM_RULE_ATTR, id)?;
    let outs = call_func(&primal.func, &passed[..n], &primal.out_weak)?;
    if outs.is_empty() {
        return Err(Error::op(what, "the function returns no arrays"));
    }
    tagged_barrier(what, &outs, CUSTOM_RULE_END_ATTR, id)
}

/// A function with a custom JVP rule. Made by [`custom_jvp`].
pub struct CustomJvp<A, R, F, J> {
    f: F,
    jvp: J,
    _t: PhantomData<fn(&A) -> R>,
}

/// `jax.custom_jvp`: `f` whose forward-mode derivative is `jvp(primals, tangents) ->
/// (outputs, output tangents)` (which must be linear in the tangents). Reverse mode
/// transposes the rule, so `grad`, `jacrev` and `hessian` use it too; higher derivatives
/// differentiate the rule.
///
/// The classic example: `log(1 + eˣ)` whose chain-rule derivative is `eˣ / (1 + eˣ)`, `inf/inf
/// = nan` for large `x` in f32; the rule writes it stably.
///
/// ```
/// use systolic::{custom_jvp, grad, jit, numpy as np, Array};
/// let log1pexp = custom_jvp(
///     |x: &Array| np::log1p(&np::exp(x)),
///     |x: &Array, t: &Array| {
///         let y = np::log1p(&np::exp(x));
///         (y, t * &(&np::ones(&[], systolic_ir::DType::F32) - &np::reciprocal(&(&np::exp(x) + 1.0))))
///     },
/// );
/// let x = Array::from_vec(vec![0.0f32, 10.0, 100.0], &[3]);
/// let g = grad(|x: &Array| np::sum(&log1pexp.call(x).unwrap(), None, false));
/// let got = g.call(&x).unwrap().to_vec::<f32>().unwrap();
/// assert_eq!(got[0], 0.5);
/// assert_eq!(got[2], 1.0); // the chain rule through log1p(exp(x)) gives nan here
/// // Under jit the primal is ordinary code.
/// let y = jit(|x: &Array| log1pexp.call(x).unwrap()).call(&x).unwrap();
/// assert!((y.to_vec::<f32>().unwrap()[1] - 10.000045).abs() < 1e-4);
/// ```
pub fn custom_jvp<A, R, F, J>(f: F, jvp: J) -> CustomJvp<A, R, F, J>
where
    A: Tree,
    R: Tree,
    F: Function<A, Output = R>,
    J: Fn(&A, &A) -> (R, R),
{
    CustomJvp {
        f,
        jvp,
        _t: PhantomData,
    }
}

impl<A: Tree, R: Tree, F: Function<A, Output = R>, J: Fn(&A, &A) -> (R, R)> CustomJvp<A, R, F, J> {
    /// `f(args)`; differentiated by the rule.
    pub fn call(&self, args: &A) -> Result<R> {
        if trace::current().is_none() {
            return self.f.call(args);
        }
        let (primal, leaves, template) = stage_primal("custom_jvp", args, &self.f)?;
        let out_types = types(&primal)?;
        let n = leaves.len();
        let mut avals = leaves.clone();
        avals.extend(leaves.iter().cloned());
        let failure = RefCell::new(None);
        let rule = stage("custom_jvp", &avals, |xs| {
            let run = || -> Result<Vec<Array>> {
                let p = args.rebuild(&mut xs[..n].iter().cloned())?;
                let t = args.rebuild(&mut xs[n..].iter().cloned())?;
                let (y, ty) = (self.jvp)(&p, &t);
                let mut out = leaves_of(&y);
                out.extend(leaves_of(&ty));
                Ok(out)
            };
            run().unwrap_or_else(|e| {
                *failure.borrow_mut() = Some(e);
                vec![]
            })
        })?;
        if let Some(e) = failure.into_inner() {
            return Err(e);
        }
        let rule_types = types(&rule)?;
        let mut want = out_types.clone();
        want.extend(out_types.iter().cloned());
        if rule_types != want {
            return Err(Error::op(
                "custom_jvp",
                format!(
                    "the rule must return the primal outputs and tangents of the same types \
                     {}, got {}",
                    describe_all(&want),
                    describe_all(&rule_types)
                ),
            ));
        }
        let id = systolic_autodiff::register_custom_rule(CustomRule::Jvp {
            nargs: n,
            primal_captures: primal.captures.len(),
            jvp: Box::new(rule.func),
        });
        let outs = call_primal("custom_jvp", &primal, &leaves, &rule.captures, id)?;
        template.rebuild(&mut outs.into_iter())
    }
}

/// A function with a custom VJP rule. Made by [`custom_vjp`].
pub struct CustomVjp<A, R, X, F, Fw, Bw> {
    f: F,
    fwd: Fw,
    bwd: Bw,
    _t: PhantomData<Signature<A, R, X>>,
}

/// The types a [`CustomVjp`] maps between: arguments to outputs and residuals.
type Signature<A, R, X> = fn(&A) -> (R, X);

/// `jax.custom_vjp`: `f` whose reverse-mode derivative is given by `fwd(args) -> (outputs,
/// residuals)` and `bwd(residuals, output cotangents) -> argument cotangents` (structured as
/// the arguments). Forward mode (`jvp`, `jacfwd`) of such a function is an error, as in JAX.
///
/// The classic example: clipping the gradient that flows back through a value.
///
/// ```
/// use systolic::{custom_vjp, grad, numpy as np, Array};
/// let clip_gradient = custom_vjp(
///     |x: &Array| x.clone(),
///     |x: &Array| (x.clone(), ()),
///     |_: &(), g: &Array| np::clip(g, &Array::scalar(-1.0f32), &Array::scalar(1.0f32)),
/// );
/// // d/dx (3x)·clip = clip(3) = 1 instead of 3; the value is untouched.
/// let g = grad(|x: &Array| np::sum(&(&clip_gradient.call(x).unwrap() * 3.0), None, false));
/// let x = Array::from_vec(vec![2.0f32, -5.0], &[2]);
/// assert_eq!(g.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 1.0]);
/// ```
pub fn custom_vjp<A, R, X, F, Fw, Bw>(f: F, fwd: Fw, bwd: Bw) -> CustomVjp<A, R, X, F, Fw, Bw>
where
    A: Tree,
    R: Tree,
    X: Tree,
    F: Function<A, Output = R>,
    Fw: Fn(&A) -> (R, X),
    Bw: Fn(&X, &R) -> A,
{
    CustomVjp {
        f,
        fwd,
        bwd,
        _t: PhantomData,
    }
}

impl<A, R, X, F, Fw, Bw> CustomVjp<A, R, X, F, Fw, Bw>
where
    A: Tree,
    R: Tree,
    X: Tree,
    F: Function<A, Output = R>,
    Fw: Fn(&A) -> (R, X),
    Bw: Fn(&X, &R) -> A,
{
    /// `f(args)`; differentiated in reverse mode by the rule.
    pub fn call(&self, args: &A) -> Result<R> {
        if trace::current().is_none() {
            return self.f.call(args);
        }
        let (primal, leaves, template) = stage_primal("custom_vjp", args, &self.f)?;
        let out_types = types(&primal)?;
        let templates: RefCell<Option<(R, X)>> = RefCell::new(None);
        let (fwd, _) = stage_tree("custom_vjp", args, |a| {
            let (r, x) = (self.fwd)(a);
            let mut out = leaves_of(&r);
            out.extend(leaves_of(&x));
            *templates.borrow_mut() = Some((r, x));
            Ok(out)
        })?;
        let fwd_types = types(&fwd)?;
        let m = out_types.len();
        if fwd_types.len() < m || fwd_types[..m] != out_types[..] {
            return Err(Error::op(
                "custom_vjp",
                format!(
                    "the forward rule must return the function's outputs {} first, got {}",
                    describe_all(&out_types),
                    describe_all(&fwd_types)
                ),
            ));
        }
        let (r_t, x_t) = templates
            .into_inner()
            .ok_or_else(|| Error::op("custom_vjp", "the forward rule was not traced"))?;
        let k = fwd_types.len() - m;
        let mut avals: Vec<Array> = fwd_types[m..].iter().map(aval).collect();
        avals.extend(out_types.iter().map(aval));
        let failure = RefCell::new(None);
        let bwd = stage("custom_vjp", &avals, |xs| {
            let run = || -> Result<Vec<Array>> {
                let res = x_t.rebuild(&mut xs[..k].iter().cloned())?;
                let ct = r_t.rebuild(&mut xs[k..].iter().cloned())?;
                Ok(leaves_of(&(self.bwd)(&res, &ct)))
            };
            run().unwrap_or_else(|e| {
                *failure.borrow_mut() = Some(e);
                vec![]
            })
        })?;
        if let Some(e) = failure.into_inner() {
            return Err(e);
        }
        let in_types: Vec<TensorType> = leaves.iter().map(|l| l.aval().clone()).collect();
        let bwd_types = types(&bwd)?;
        if bwd_types != in_types {
            return Err(Error::op(
                "custom_vjp",
                format!(
                    "the backward rule must return cotangents of the arguments' types {}, got {}",
                    describe_all(&in_types),
                    describe_all(&bwd_types)
                ),
            ));
        }
        let id = systolic_autodiff::register_custom_rule(CustomRule::Vjp {
            nargs: leaves.len(),
            primal_captures: primal.captures.len(),
            fwd_captures: fwd.captures.len(),
            nout: m,
            fwd: Box::new(fwd.func),
            bwd: Box::new(bwd.func),
        });
        let mut rule_captures = fwd.captures.clone();
        rule_captures.extend(bwd.captures.iter().cloned());
        let outs = call_primal("custom_vjp", &primal, &leaves, &rule_captures, id)?;
        template.rebuild(&mut outs.into_iter())
    }
}

impl<A: Tree, R: Tree, F: Function<A, Output = R>, J: Fn(&A, &A) -> (R, R)> Function<A>
    for CustomJvp<A, R, F, J>
{
    type Output = R;

    fn call(&self, args: &A) -> Result<R> {
        CustomJvp::call(self, args)
    }
}

impl<A, R, X, F, Fw, Bw> Function<A> for CustomVjp<A, R, X, F, Fw, Bw>
where
    A: Tree,
    R: Tree,
    X: Tree,
    F: Function<A, Output = R>,
    Fw: Fn(&A) -> (R, X),
    Bw: Fn(&X, &R) -> A,
{
    type Output = R;

    fn call(&self, args: &A) -> Result<R> {
        CustomVjp::call(self, args)
    }
}
