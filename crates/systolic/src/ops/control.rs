//! Traced control flow, as in `jax.lax`: [`while_loop`], [`fori_loop`], [`scan`], [`cond`]
//! and [`switch`]. Bodies are Rust closures traced once on the abstract values of the carry
//! (or operands) into regions of `stablehlo.while`, `stablehlo.if` and `stablehlo.case`.
//!
//! Arrays a loop body reads from outside (outer tracers, large concrete arrays) become extra
//! loop-invariant carries, as in JAX; branches of `if`/`case` read them directly (regions may
//! use values of enclosing regions). Outside any trace, the op is staged into a small function
//! that is compiled and run, so everything works eagerly, under `jit`, `grad` and `vmap`.
//! `fori_loop` with static bounds and `scan` emit the counted form (`i < n`, `i + 1`, `i`
//! starting at a constant) that reverse-mode autodiff recognises as a static trip count.

use crate::array::{describe, Array, Repr};
use crate::core::bind::{bind1, lift};
use crate::core::staging::{call_func, stage, Staged};
use crate::core::trace;
use crate::error::{Error, Result};
use crate::transforms::shard_map::axis_env;
use crate::tree::Tree;
use systolic_ir::walk::{clone_op, ValueMap};
use systolic_ir::{
    Block, ComparisonDirection, DType, Func, Op, OpKind, Region, ReturnKind, Tensor, Type, ValueId,
};

fn flatten<T: Tree>(t: &T) -> Vec<Array> {
    let mut v = vec![];
    t.leaves(&mut v);
    v
}

/// Runs `f` on `inputs` under a trace: directly if one is active, else staged into a function
/// named `name` that is compiled and run.
fn in_trace(
    name: &str,
    inputs: &[Array],
    f: impl FnOnce(&[Array]) -> Result<Vec<Array>>,
) -> Result<Vec<Array>> {
    if trace::current().is_some() {
        return f(inputs);
    }
    let staged = stage_checked(name, inputs, f)?;
    let mut args = inputs.to_vec();
    args.extend(staged.captures.iter().cloned());
    call_func(&staged.func, &args, &staged.out_weak)
}

/// [`stage`] for a fallible `f`: its error is returned.
fn stage_checked(
    name: &str,
    inputs: &[Array],
    f: impl FnOnce(&[Array]) -> Result<Vec<Array>>,
) -> Result<Staged> {
    let mut err = None;
    let staged = stage(name, inputs, |xs| match f(xs) {
        Ok(v) => v,
        Err(e) => {
            err = Some(e);
            vec![]
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    staged
}

/// Copies `src`'s body into a region of `dst`: its parameters map to `params`, the block
/// takes `block_args`, and it returns what `src` returns followed by `extra_returns`.
fn func_region(
    dst: &mut Func,
    src: &Func,
    params: &[ValueId],
    block_args: Vec<ValueId>,
    extra_returns: &[ValueId],
) -> Result<Region> {
    let [Block {
        args: src_params,
        ops,
    }] = src.body.blocks.as_slice()
    else {
        return Err(Error::Trace(format!("@{} has not one block", src.name)));
    };
    let mut map = ValueMap::new();
    for (&p, &v) in src_params.iter().zip(params) {
        map.insert(p, v);
    }
    let Some((ret, body)) = ops.split_last() else {
        return Err(Error::Trace(format!("@{} has an empty body", src.name)));
    };
    let mut out = Vec::with_capacity(ops.len());
    for op in body {
        out.push(
            clone_op(src, op, dst, &mut map)
                .map_err(|e| Error::Trace(format!("region of @{}: {}", src.name, e.message)))?,
        );
    }
    let mut rets = ret
        .operands
        .iter()
        .map(|&v| {
            map.get(v)
                .ok_or_else(|| Error::Trace(format!("@{} returns an unknown value", src.name)))
        })
        .collect::<Result<Vec<_>>>()?;
    rets.extend_from_slice(extra_returns);
    out.push(Op::new(OpKind::Return(ReturnKind::Stablehlo), rets, vec![]));
    Ok(Region::single(Block {
        args: block_args,
        ops: out,
    }))
}

/// A type as the front end prints it (`float32[2,3]`).
fn show(t: &Type) -> String {
    match t {
        Type::Tensor(t) => describe(t),
        other => other.to_string(),
    }
}

fn traced(ty: systolic_ir::TensorType, weak: bool, id: u64, v: ValueId) -> Array {
    let device = trace::current().map_or_else(crate::default_device, |c| c.1);
    Array::make(
        ty,
        weak,
        device,
        Repr::Traced {
            trace: id,
            value: v,
        },
    )
}

/// Checks that `out` (what a body returned) has the structure and leaf types of `like`.
fn check_like(
    what: &str,
    like: &[Array],
    like_def: &crate::TreeDef,
    out_types: &[Type],
    out_def: &crate::TreeDef,
) -> Result<()> {
    if like_def != out_def {
        return Err(Error::Trace(format!(
            "{what} must have the same structure as the input: got {out_def}, expected {like_def}"
        )));
    }
    let paths = like_def.paths();
    for (i, (a, t)) in like.iter().zip(out_types).enumerate() {
        if &Type::Tensor(a.aval().clone()) != t {
            return Err(Error::Trace(format!(
                "{what} at {} has type {} but the input has type {}; they must match",
                paths.get(i).map_or("", String::as_str),
                show(t),
                describe(a.aval())
            )));
        }
    }
    Ok(())
}

/// JAX's rule for loop carries: an initial value that is weakly typed while the body returns a
/// strongly typed value (or another dtype) there is converted to the two's promoted dtype, and
/// the loop traced again; so `fori_loop(0, n, |_, x| x + half, &0.0)` carries f16 as in JAX.
/// `None` when no carry changes (the usual case: the first trace stands).
fn promote_weak_carries(
    carries: &[Array],
    out_types: &[Type],
    out_weak: &[bool],
) -> Option<Vec<Array>> {
    let mut changed = false;
    let promoted = carries
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (Some(Type::Tensor(out)), Some(&weak)) = (out_types.get(i), out_weak.get(i)) else {
                return a.clone();
            };
            if !a.weak_type() || out.shape != a.dims() || (weak && out.dtype == a.element_type()) {
                return a.clone();
            }
            let (dtype, _) =
                crate::core::promote::result_type(&[(a.element_type(), true), (out.dtype, weak)]);
            changed = true;
            crate::ops::elementwise::convert("loop carry", a, dtype, false)
        })
        .collect();
    changed.then_some(promoted)
}

/// Emits `stablehlo.while` in the active trace: carries `init`, `cond` and `body` staged on
/// the carries (their captures follow the carries as loop invariants). Returns the final
/// carries (without the invariants).
fn emit_while(init: &[Array], cond: &Staged, body: &Staged) -> Result<Vec<Array>> {
    let (id, _) = trace::current().ok_or_else(|| Error::Trace("no active trace".into()))?;
    let n = init.len();
    let (cc, bc) = (cond.captures.len(), body.captures.len());
    let outs = trace::with_trace(id, |t| {
        let mut operands = vec![];
        for a in init.iter().chain(&cond.captures).chain(&body.captures) {
            operands.push(lift(t, a)?);
        }
        let types: Vec<Type> = operands
            .iter()
            .map(|&v| t.func.value_type(v).clone())
            .collect();
        let new_args = |f: &mut Func| -> Vec<ValueId> {
            types
                .iter()
                .map(|ty| f.new_value(ty.clone(), None))
                .collect()
        };
        let cargs = new_args(&mut t.func);
        let cparams: Vec<ValueId> = cargs[..n]
            .iter()
            .chain(&cargs[n..n + cc])
            .copied()
            .collect();
        let cond_region = func_region(&mut t.func, &cond.func, &cparams, cargs.clone(), &[])?;
        let bargs = new_args(&mut t.func);
        let bparams: Vec<ValueId> = bargs[..n]
            .iter()
            .chain(&bargs[n + cc..n + cc + bc])
            .copied()
            .collect();
        let body_region = func_region(
            &mut t.func,
            &body.func,
            &bparams,
            bargs.clone(),
            &bargs[n..],
        )?;
        let results: Vec<ValueId> = types
            .iter()
            .map(|ty| t.func.new_value(ty.clone(), None))
            .collect();
        // Inside a shard_map body: each carry keeps its variance (see axis_env).
        axis_env::after_stage(t.id, &OpKind::While, &operands, &results);
        let mut op = Op::new(OpKind::While, operands, results.clone());
        op.regions = vec![cond_region, body_region];
        t.ops.push(op);
        Ok(results)
    })?;
    Ok(init
        .iter()
        .zip(outs)
        .map(|(a, v)| traced(a.aval().clone(), a.weak_type(), id, v))
        .collect())
}

/// Stages a loop condition and checks it returns a scalar bool.
fn stage_cond(carries: &[Array], f: impl FnOnce(&[Array]) -> Result<Array>) -> Result<Staged> {
    let cond = stage_checked("cond_fun", carries, |xs| Ok(vec![f(xs)?]))?;
    let want = Type::tensor(vec![], DType::Bool);
    if cond.func.result_types != [want] {
        return Err(Error::Trace(format!(
            "cond_fun must return a boolean scalar, but got output type(s) {}",
            cond.func
                .result_types
                .iter()
                .map(show)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(cond)
}

/// `lax.while_loop(cond_fun, body_fun, init_val)`: repeats `body_fun` while `cond_fun` holds.
/// The carry is any [`Tree`]; `body_fun` must return the structure, shapes and dtypes of
/// `init_val`. Reverse-mode differentiation needs a static trip count (use [`fori_loop`]).
///
/// ```
/// use systolic::{lax, numpy as np, Array};
/// // Newton's iteration for sqrt(2), until converged.
/// let x = lax::while_loop(
///     |(x, _): &(Array, Array)| np::greater(&np::abs(&(&(x * x) - 2.0)), &Array::scalar(1e-6f32)),
///     |(x, n): &(Array, Array)| (&(x + &(2.0 / x)) * 0.5, n + 1),
///     &(Array::scalar(1.0f32), Array::scalar(0i32)),
/// )
/// .unwrap();
/// assert!((x.0.to_vec::<f32>().unwrap()[0] - 2f32.sqrt()).abs() < 1e-6);
/// assert_eq!(x.1.to_vec::<i32>().unwrap(), vec![4]);
/// ```
pub fn while_loop<T: Tree>(
    cond_fun: impl Fn(&T) -> Array,
    body_fun: impl Fn(&T) -> T,
    init_val: &T,
) -> Result<T> {
    let leaves = flatten(init_val);
    let def = init_val.def();
    let outs = in_trace("while_loop", &leaves, |ins| {
        let mut carries = ins.to_vec();
        loop {
            let cond = stage_cond(&carries, |xs| {
                let t = init_val.rebuild(&mut xs.iter().cloned())?;
                Ok(cond_fun(&t))
            })?;
            let mut out_def = None;
            let mut out_vma = vec![];
            let body = stage_checked("body_fun", &carries, |xs| {
                let t = init_val.rebuild(&mut xs.iter().cloned())?;
                let o = body_fun(&t);
                out_def = Some(o.def());
                let outs = flatten(&o);
                out_vma = outs.iter().map(axis_env::vma_of).collect();
                Ok(outs)
            })?;
            if let Some(p) = axis_env::promote_carries(&carries, &out_vma)? {
                carries = p;
                continue;
            }
            let out_def = out_def.unwrap_or_else(|| def.clone());
            if out_def == def {
                let promoted =
                    promote_weak_carries(&carries, &body.func.result_types, &body.out_weak);
                if let Some(p) = promoted {
                    carries = p;
                    continue;
                }
            }
            check_like(
                "body_fun output",
                &carries,
                &def,
                &body.func.result_types,
                &out_def,
            )?;
            return emit_while(&carries, &cond, &body);
        }
    })?;
    init_val.rebuild(&mut outs.into_iter())
}

/// A concrete int32 scalar (weakly typed if `weak`), used as a constant or a staging input.
fn int32(v: i64, weak: bool) -> Result<Array> {
    let t =
        Tensor::from_i64(vec![], DType::I32, vec![v]).map_err(|e| Error::Host(e.to_string()))?;
    Ok(Array::from_tensor_weak(t, weak))
}

/// The cond of a counted loop: `carries[0] < upper`.
fn counted_cond(carries: &[Array], upper: i64) -> Result<Staged> {
    stage_cond(carries, |xs| {
        Ok(bind1(
            "fori_loop",
            OpKind::Compare {
                direction: ComparisonDirection::Lt,
                compare_type: None,
            },
            &[&xs[0], &int32(upper, false)?],
            None,
            false,
        ))
    })
}

/// `i + 1` with the constant inside the region (what autodiff's trip-count matcher wants).
fn increment(i: &Array) -> Result<Array> {
    let one = int32(1, i.weak_type())?;
    Ok(crate::lax::add(i, &one))
}

/// `lax.fori_loop(lower, upper, body_fun, init_val)` with static bounds: `body_fun(i, carry)`
/// for `i` in `lower..upper` (an int32 scalar). Emitted as a while loop with a counter that
/// reverse-mode autodiff sees as a static trip count, as JAX's scan lowering.
///
/// ```
/// use systolic::{grad, lax, Array};
/// let sum = lax::fori_loop(0, 5, |i, acc: &Array| acc + i, &Array::scalar(0i32)).unwrap();
/// assert_eq!(sum.to_vec::<i32>().unwrap(), vec![10]);
/// // d/dx of x^(2^3) by repeated squaring.
/// let g = grad(|x: &Array| lax::fori_loop(0, 3, |_, y: &Array| y * y, x).unwrap());
/// assert_eq!(g.call(&Array::scalar(1.5f32)).unwrap().to_vec::<f32>().unwrap(), vec![8.0 * 1.5f32.powi(7)]);
/// ```
pub fn fori_loop<T: Tree>(
    lower: i64,
    upper: i64,
    body_fun: impl Fn(&Array, &T) -> T,
    init_val: &T,
) -> Result<T> {
    let leaves = flatten(init_val);
    let def = init_val.def();
    let outs = in_trace("fori_loop", &leaves, |ins| {
        let mut carries = vec![int32(lower, true)?];
        carries.extend(ins.iter().cloned());
        loop {
            let cond = counted_cond(&carries, upper)?;
            let mut out_def = None;
            let mut out_vma = vec![];
            let body = stage_checked("body_fun", &carries, |xs| {
                let t = init_val.rebuild(&mut xs[1..].iter().cloned())?;
                let o = body_fun(&xs[0], &t);
                out_def = Some(o.def());
                let mut r = vec![increment(&xs[0])?];
                r.extend(flatten(&o));
                out_vma = r.iter().map(axis_env::vma_of).collect();
                Ok(r)
            })?;
            if let Some(p) = axis_env::promote_carries(&carries, &out_vma)? {
                carries = p;
                continue;
            }
            let out_def = out_def.unwrap_or_else(|| def.clone());
            if out_def == def {
                let promoted = promote_weak_carries(
                    &carries[1..],
                    &body.func.result_types[1..],
                    &body.out_weak[1..],
                );
                if let Some(p) = promoted {
                    carries.truncate(1);
                    carries.extend(p);
                    continue;
                }
            }
            check_like(
                "body_fun output",
                &carries[1..],
                &def,
                &body.func.result_types[1..],
                &out_def,
            )?;
            let mut outs = emit_while(&carries, &cond, &body)?;
            outs.remove(0);
            return Ok(outs);
        }
    })?;
    init_val.rebuild(&mut outs.into_iter())
}

/// `a - b` without promotion.
fn sub(a: &Array, b: &Array) -> Array {
    bind1(
        "scan",
        OpKind::Binary(systolic_ir::BinaryOp::Subtract),
        &[a, b],
        None,
        false,
    )
}

/// `x[i]` along the leading axis for a traced int32 scalar `i`.
fn index_leading(x: &Array, i: &Array) -> Array {
    let zero = Array::scalar(0i32);
    let mut starts = vec![i.clone()];
    starts.extend((1..x.rank()).map(|_| zero.clone()));
    let mut sizes = x.dims().to_vec();
    sizes[0] = 1;
    let s = crate::lax::dynamic_slice(x, &starts, &sizes);
    crate::lax::reshape(&s, &x.dims()[1..])
}

/// `lax.scan(f, init, xs, length, reverse)`: `f(carry, x) -> (carry, y)` over the leading axis
/// of every leaf of `xs`; returns the final carry and the `y`s stacked along a new leading
/// axis. `length` is required when `xs` has no leaves. With `reverse`, iterates from the end
/// (the stacked outputs keep the order of `xs`).
///
/// ```
/// use systolic::{lax, Array};
/// let xs = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]);
/// let (total, cums) =
///     lax::scan(|c: &Array, x: &Array| (c + x, c + x), &Array::scalar(0.0f32), &xs, None, false)
///         .unwrap();
/// assert_eq!(total.to_vec::<f32>().unwrap(), vec![10.0]);
/// assert_eq!(cums.to_vec::<f32>().unwrap(), vec![1.0, 3.0, 6.0, 10.0]);
/// ```
pub fn scan<C: Tree, X: Tree, Y: Tree>(
    f: impl Fn(&C, &X) -> (C, Y),
    init: &C,
    xs: &X,
    length: Option<i64>,
    reverse: bool,
) -> Result<(C, Y)> {
    let c_leaves = flatten(init);
    let x_leaves = flatten(xs);
    let c_def = init.def();
    let (nc, nx) = (c_leaves.len(), x_leaves.len());
    let mut lens: Vec<i64> = vec![];
    for (a, p) in x_leaves.iter().zip(xs.def().paths()) {
        a.check()?;
        match a.dims().first() {
            Some(&l) => lens.push(l),
            None => {
                return Err(Error::Trace(format!(
                    "scan got a rank-0 xs leaf at {p}; xs leaves need a leading axis"
                )))
            }
        }
    }
    let n = match (length, lens.first()) {
        (Some(l), _) if lens.iter().any(|&m| m != l) => {
            return Err(Error::Trace(format!(
                "scan got length argument {l} but xs have leading axis sizes {lens:?}"
            )))
        }
        (Some(l), _) => l,
        (None, Some(&l)) if lens.iter().all(|&m| m == l) => l,
        (None, Some(_)) => {
            return Err(Error::Trace(format!(
                "scan got values with different leading axis sizes: {lens:?}"
            )))
        }
        (None, None) => {
            return Err(Error::Trace(
                "scan got no values to scan over and `length` not provided".into(),
            ))
        }
    };
    let mut inputs = c_leaves.clone();
    inputs.extend(x_leaves.iter().cloned());
    let mut y_tree: Option<Y> = None;
    let outs = in_trace("scan", &inputs, |ins| {
        let counter = int32(0, true)?;
        let (cs, xv) = ins.split_at(nc);
        let mut cs = cs.to_vec();
        let (step, y) = loop {
            // One step: (i, carry, xs) -> (carry', y); staged again only if a weak carry is promoted.
            let mut c_out_def = None;
            let mut c_vma = vec![];
            let mut y_def: Option<Y> = None;
            let step = stage_checked(
                "scan_body",
                &[std::slice::from_ref(&counter), &cs, xv].concat(),
                |a| {
                    let i = &a[0];
                    let idx = if reverse {
                        sub(&int32(n - 1, false)?, i)
                    } else {
                        i.clone()
                    };
                    let c = init.rebuild(&mut a[1..=nc].iter().cloned())?;
                    let x_t: Vec<Array> =
                        a[1 + nc..].iter().map(|x| index_leading(x, &idx)).collect();
                    let x = xs.rebuild(&mut x_t.into_iter())?;
                    let (c2, y) = f(&c, &x);
                    c_out_def = Some(c2.def());
                    let mut r = flatten(&c2);
                    c_vma = r.iter().map(axis_env::vma_of).collect();
                    r.extend(flatten(&y));
                    y_def = Some(y);
                    Ok(r)
                },
            )?;
            if let Some(p) = axis_env::promote_carries(&cs, &c_vma)? {
                cs = p;
                continue;
            }
            let c_out_def = c_out_def.unwrap_or_else(|| c_def.clone());
            let carry_types = &step.func.result_types[..nc.min(step.func.result_types.len())];
            if c_out_def == c_def {
                let weak = &step.out_weak[..carry_types.len()];
                if let Some(p) = promote_weak_carries(&cs, carry_types, weak) {
                    cs = p;
                    continue;
                }
            }
            check_like("scan carry output", &cs, &c_def, carry_types, &c_out_def)?;
            let y = y_def.ok_or_else(|| Error::Trace("scan body did not run".into()))?;
            break (step, y);
        };
        let y_leaves = flatten(&y);
        // Stacked outputs start as zeros.
        let ys0: Vec<Array> = y_leaves
            .iter()
            .map(|l| {
                let mut s = vec![n];
                s.extend_from_slice(l.dims());
                crate::numpy::zeros(&s, l.element_type())
            })
            .collect();
        let mut carries = vec![counter.clone()];
        carries.extend(cs.iter().cloned());
        carries.extend(xv.iter().cloned());
        carries.extend(ys0.iter().cloned());
        let cond = counted_cond(&carries, n)?;
        let body = stage_checked("scan_loop", &carries, |a| {
            let i = &a[0];
            let mut args = vec![i.clone()];
            args.extend(a[1..1 + nc + nx].iter().cloned());
            args.extend(step.captures.iter().cloned());
            let o = call_func(&step.func, &args, &step.out_weak)?;
            let idx = if reverse {
                sub(&int32(n - 1, false)?, i)
            } else {
                i.clone()
            };
            let mut r = vec![increment(i)?];
            r.extend(o[..nc].iter().cloned());
            r.extend(a[1 + nc..1 + nc + nx].iter().cloned());
            for (buf, yv) in a[1 + nc + nx..].iter().zip(&o[nc..]) {
                let mut s = vec![1];
                s.extend_from_slice(yv.dims());
                let upd = crate::lax::reshape(yv, &s);
                let mut starts = vec![idx.clone()];
                starts.extend((1..s.len()).map(|_| Array::scalar(0i32)));
                r.push(crate::lax::dynamic_update_slice(buf, &upd, &starts));
            }
            Ok(r)
        })?;
        let outs = emit_while(&carries, &cond, &body)?;
        let mut res: Vec<Array> = outs[1..=nc].to_vec();
        res.extend(outs[1 + nc + nx..].iter().cloned());
        y_tree = Some(y);
        Ok(res)
    })?;
    let y = y_tree.ok_or_else(|| Error::Trace("scan body did not run".into()))?;
    let mut it = outs.into_iter();
    let c = init.rebuild(&mut it)?;
    let ys = y.rebuild(&mut it)?;
    Ok((c, ys))
}

/// A branch staged on the operand leaves.
type Branch<'a, R> = Box<dyn FnOnce(&[Array]) -> Result<R> + 'a>;

/// Emits `stablehlo.if` (`index` a bool) or `stablehlo.case` (`index` int32) over `branches`,
/// each staged on `operands`; checks every branch returns what the first does.
fn emit_branches<R: Tree>(
    kind: OpKind,
    index: &Array,
    operands: &[Array],
    branches: Vec<Branch<'_, R>>,
) -> Result<R> {
    let mut inputs = vec![index.clone()];
    inputs.extend(operands.iter().cloned());
    let mut first: Option<R> = None;
    let outs = in_trace(
        if kind == OpKind::If { "cond" } else { "switch" },
        &inputs,
        |ins| {
            let (idx, ops) = ins.split_first().expect("index");
            let mut staged = vec![];
            let mut defs = vec![];
            for (k, b) in branches.into_iter().enumerate() {
                let mut tree = None;
                let s = stage_checked(&format!("branch_{k}"), ops, |xs| {
                    let r = b(xs)?;
                    let l = flatten(&r);
                    tree = Some(r);
                    Ok(l)
                })?;
                let r = tree.ok_or_else(|| Error::Trace("branch did not run".into()))?;
                defs.push(r.def());
                if k == 0 {
                    first = Some(r);
                }
                staged.push(s);
            }
            let out_weak: Vec<bool> = (0..staged[0].out_weak.len())
                .map(|i| {
                    staged
                        .iter()
                        .all(|s| s.out_weak.get(i).copied().unwrap_or(false))
                })
                .collect();
            let names: Vec<String> = if kind == OpKind::If {
                vec!["true_fun".into(), "false_fun".into()]
            } else {
                (0..staged.len()).map(|k| format!("branch {k}")).collect()
            };
            let paths = defs[0].paths();
            for k in 1..staged.len() {
                if defs[k] != defs[0] {
                    return Err(Error::Trace(format!(
                        "{} and {} outputs must have the same structure: {} vs {}",
                        names[0], names[k], defs[0], defs[k]
                    )));
                }
                for (i, (a, b)) in staged[0]
                    .func
                    .result_types
                    .iter()
                    .zip(&staged[k].func.result_types)
                    .enumerate()
                {
                    if a != b {
                        return Err(Error::Trace(format!(
                            "{} and {} outputs must have identical types; at output{} {} \
                         returns {} but {} returns {}",
                            names[0],
                            names[k],
                            paths.get(i).map_or("", String::as_str),
                            names[0],
                            show(a),
                            names[k],
                            show(b)
                        )));
                    }
                }
            }
            let (id, _) = trace::current().ok_or_else(|| Error::Trace("no active trace".into()))?;
            let results = trace::with_trace(id, |t| {
                let pred = lift(t, idx)?;
                let mut op_vals = vec![];
                for a in ops {
                    op_vals.push(lift(t, a)?);
                }
                let mut regions = vec![];
                // What the branches read, for the results' variance (inside a shard_map body
                // they vary as the predicate and everything the branches read together).
                let mut read = vec![pred];
                for s in &staged {
                    let mut params = op_vals.clone();
                    for c in &s.captures {
                        params.push(lift(t, c)?);
                    }
                    read.extend(params.iter().copied());
                    regions.push(func_region(&mut t.func, &s.func, &params, vec![], &[])?);
                }
                let results: Vec<ValueId> = staged[0]
                    .func
                    .result_types
                    .iter()
                    .map(|ty| t.func.new_value(ty.clone(), None))
                    .collect();
                axis_env::after_stage(t.id, &kind, &read, &results);
                let mut op = Op::new(kind.clone(), vec![pred], results.clone());
                op.regions = regions;
                t.ops.push(op);
                Ok(results)
            })?;
            Ok(results
                .into_iter()
                .zip(&staged[0].func.result_types)
                .zip(out_weak)
                .map(|((v, ty), w)| match ty {
                    Type::Tensor(tt) => traced(tt.clone(), w, id, v),
                    _ => Array::failed(Error::Trace("non-tensor branch output".into())),
                })
                .collect())
        },
    )?;
    let first = first.ok_or_else(|| Error::Trace("no branch ran".into()))?;
    first.rebuild(&mut outs.into_iter())
}

/// `lax.cond(pred, true_fun, false_fun, operands)`: `pred` is a scalar bool (a scalar integer
/// counts as `pred != 0`, as in JAX); both branches must return the same structure and types.
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::scalar(3.0f32);
/// let f = |p: bool| {
///     lax::cond(&Array::scalar(p), |x: &Array| x * 2.0, |x: &Array| -x, &x).unwrap()
/// };
/// assert_eq!(f(true).to_vec::<f32>().unwrap(), vec![6.0]);
/// assert_eq!(f(false).to_vec::<f32>().unwrap(), vec![-3.0]);
/// ```
pub fn cond<T: Tree, R: Tree>(
    pred: &Array,
    true_fun: impl FnOnce(&T) -> R,
    false_fun: impl FnOnce(&T) -> R,
    operands: &T,
) -> Result<R> {
    pred.check()?;
    if pred.rank() != 0 {
        return Err(Error::Trace(format!(
            "cond: pred must be a scalar, got {}",
            describe(pred.aval())
        )));
    }
    let pred = match pred.element_type() {
        DType::Bool => pred.clone(),
        d if d.is_float()
            || !matches!(
                d.kind(),
                systolic_ir::DTypeKind::Signed | systolic_ir::DTypeKind::Unsigned
            ) =>
        {
            return Err(Error::Trace(format!(
                "cond: pred must be a boolean (or integer) scalar, got {}",
                describe(pred.aval())
            )))
        }
        _ => crate::numpy::not_equal(pred, &crate::weak_int(0)),
    };
    let leaves = flatten(operands);
    let t_b: Branch<'_, R> =
        Box::new(|xs: &[Array]| Ok(true_fun(&operands.rebuild(&mut xs.iter().cloned())?)));
    let f_b: Branch<'_, R> =
        Box::new(|xs: &[Array]| Ok(false_fun(&operands.rebuild(&mut xs.iter().cloned())?)));
    emit_branches(OpKind::If, &pred, &leaves, vec![t_b, f_b])
}

/// `lax.switch(index, branches, operands)`: runs `branches[clamp(index, 0, n - 1)]` (the index
/// is clamped, as in JAX); all branches must return the same structure and types.
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::scalar(2.0f32);
/// let b0 = |x: &Array| x + 1.0;
/// let b1 = |x: &Array| x * 10.0;
/// let branches: [&dyn Fn(&Array) -> Array; 2] = [&b0, &b1];
/// let at = |i: i32| lax::switch(&Array::scalar(i), &branches, &x).unwrap().to_vec::<f32>().unwrap();
/// assert_eq!(at(0), vec![3.0]);
/// assert_eq!(at(1), vec![20.0]);
/// assert_eq!(at(7), vec![20.0]); // clamped
/// assert_eq!(at(-3), vec![3.0]);
/// ```
pub fn switch<T: Tree, R: Tree>(
    index: &Array,
    branches: &[&dyn Fn(&T) -> R],
    operands: &T,
) -> Result<R> {
    index.check()?;
    if branches.is_empty() {
        return Err(Error::Trace("switch: empty branch list".into()));
    }
    if index.rank() != 0
        || !matches!(
            index.element_type().kind(),
            systolic_ir::DTypeKind::Signed | systolic_ir::DTypeKind::Unsigned
        )
    {
        return Err(Error::Trace(format!(
            "switch: index must be a scalar integer, got {}",
            describe(index.aval())
        )));
    }
    let idx = crate::lax::convert_element_type(index, DType::I32);
    let idx = crate::lax::clamp(
        &int32(0, false)?,
        &idx,
        &int32(branches.len() as i64 - 1, false)?,
    );
    let leaves = flatten(operands);
    let bs: Vec<Branch<'_, R>> = branches
        .iter()
        .map(|b| {
            let b = *b;
            Box::new(move |xs: &[Array]| Ok(b(&operands.rebuild(&mut xs.iter().cloned())?)))
                as Branch<'_, R>
        })
        .collect();
    emit_branches(OpKind::Case, &idx, &leaves, bs)
}
