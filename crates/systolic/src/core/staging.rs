//! Staging user functions into IR functions and calling IR functions on arrays: the plumbing
//! that `jit`, `grad` and `vmap` share.
//!
//! A transformation stages the user's function into a [`Func`] ([`stage`]), rewrites that
//! function (differentiates it, batches it, …) and calls the result ([`call_func`]). Calling
//! compiles and runs it when the arguments are concrete, and inlines it into the enclosing
//! function when a trace is active, which is what makes `jit(grad(f))`, `grad(grad(f))` and
//! `vmap(grad(f))` compose.

use crate::array::{describe, Array, Repr};
use crate::core::bind::lift;
use crate::core::dispatch;
use crate::core::trace;
use crate::device::{client, default_device};
use crate::error::{Error, Result};
use crate::transforms::shard_map::axis_env as vma;
use systolic_ir::walk::{clone_op, ValueMap};
use systolic_ir::{Block, Func, Module, Op, OpKind, Region, ReturnKind, TensorType, Type};
use systolic_runtime::CompileOptions;

/// A user function staged into IR.
pub(crate) struct Staged {
    /// The function: parameters are the inputs, then one per captured array.
    pub(crate) func: Func,
    /// The arrays from outside the function that it reads (values of enclosing traces, or large
    /// concrete arrays), in the order of their parameters. A caller passes them after the
    /// inputs.
    pub(crate) captures: Vec<Array>,
    /// Whether each output is weakly typed.
    pub(crate) out_weak: Vec<bool>,
}

/// Pops the trace even if the user function panics.
struct TraceGuard(u64);

impl Drop for TraceGuard {
    fn drop(&mut self) {
        trace::pop(self.0);
    }
}

/// Traces `f` on abstract arrays shaped like `inputs` (their data is never read) into a function
/// named `name`. Arrays from enclosing traces that `f` reads become captured parameters; so do
/// large concrete arrays. Errors of the traced ops (a failed output) are returned, and so is an
/// error raised while `f` runs (`core::raise`).
#[allow(dead_code)] // grad and vmap call it; they land in the next commits
pub(crate) fn stage(
    name: &str,
    inputs: &[Array],
    f: impl FnOnce(&[Array]) -> Vec<Array>,
) -> Result<Staged> {
    stage_with(name, inputs, true, f)
}

/// [`stage`], choosing whether large concrete arrays become parameters (`capture_concrete`) or
/// constants (what `lower` wants: text that runs on its own).
pub(crate) fn stage_with(
    name: &str,
    inputs: &[Array],
    capture_concrete: bool,
    f: impl FnOnce(&[Array]) -> Vec<Array>,
) -> Result<Staged> {
    for a in inputs {
        a.check()?;
    }
    let device = match trace::current() {
        Some((_, device)) => device,
        None => inputs.first().map_or_else(default_device, Array::device),
    };
    let id = trace::push(name, device);
    let guard = TraceGuard(id);
    let tracers = trace::with_trace(id, |t| {
        t.capture_concrete = capture_concrete;
        Ok(inputs
            .iter()
            .map(|a| {
                let v = t.param(a.aval());
                vma::inherit(id, v, a);
                Array::make(
                    a.aval().clone(),
                    a.weak_type(),
                    device,
                    Repr::Traced {
                        trace: id,
                        value: v,
                    },
                )
            })
            .collect::<Vec<_>>())
    })?;
    // An error raised inside `f` (a failed array's shape read by the user's code) is this
    // staging's error; the guard pops the trace.
    let outs = crate::core::raise::catch(|| f(&tracers))?;
    let values = trace::with_trace(id, |t| {
        outs.iter().map(|a| lift(t, a)).collect::<Result<Vec<_>>>()
    })?;
    let t = trace::pop(id).ok_or_else(|| Error::Trace("the trace was lost".into()))?;
    std::mem::forget(guard);
    let mut func = t.func;
    func.result_types = outs
        .iter()
        .map(|a| Type::Tensor(a.aval().clone()))
        .collect();
    let mut ops = t.ops;
    ops.push(Op::new(OpKind::Return(ReturnKind::Func), values, vec![]));
    let mut args = t.params;
    let mut captures = Vec::with_capacity(t.captures.len());
    for (v, a) in t.captures {
        args.push(v);
        captures.push(a);
    }
    func.body = Region::single(Block { args, ops });
    Ok(Staged {
        func,
        captures,
        out_weak: outs.iter().map(Array::weak_type).collect(),
    })
}

fn tensor_types(types: &[Type]) -> Vec<TensorType> {
    types
        .iter()
        .filter_map(|t| match t {
            Type::Tensor(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// Calls `func` on `args`: inlined into the active trace if there is one, else compiled (the
/// runtime caches executables by the module's fingerprint) and run on the arguments' device.
/// `out_weak` gives the weak-type flag of each result.
///
/// The run is asynchronous, like a `jit` call: it is queued on the dispatch thread and the
/// results are pending arrays; a failure of the run shows when they are read.
#[allow(dead_code)] // grad and vmap call it; they land in the next commits
pub(crate) fn call_func(func: &Func, args: &[Array], out_weak: &[bool]) -> Result<Vec<Array>> {
    for a in args {
        a.check()?;
    }
    let params = func.params();
    let out_types = tensor_types(&func.result_types);
    if params.len() != args.len() || out_types.len() != func.result_types.len() {
        return Err(Error::Trace(format!(
            "@{} takes {} arguments, {} were given",
            func.name,
            params.len(),
            args.len()
        )));
    }
    for (i, (&p, a)) in params.iter().zip(args).enumerate() {
        if func.value_type(p) != &Type::Tensor(a.aval().clone()) {
            return Err(Error::Trace(format!(
                "@{}: argument {i} is {}, the function takes {}",
                func.name,
                describe(a.aval()),
                func.value_type(p)
            )));
        }
    }
    let weak = |i: usize| out_weak.get(i).copied().unwrap_or(false);
    if let Some((id, device)) = trace::current() {
        let values = trace::with_trace(id, |t| inline(t, func, args))?;
        return Ok(values
            .into_iter()
            .zip(out_types)
            .enumerate()
            .map(|(i, (v, ty))| {
                Array::make(
                    ty,
                    weak(i),
                    device,
                    Repr::Traced {
                        trace: id,
                        value: v,
                    },
                )
            })
            .collect());
    }
    if crate::transforms::shard_map::spmd::program_mesh(func)?.is_some() {
        let program = crate::transforms::shard_map::spmd::SpmdProgram::compile(func, args)?;
        let weak: Vec<bool> = (0..out_types.len()).map(weak).collect();
        return Ok(program.execute(&format!("jit({})", func.name), args.to_vec(), &weak));
    }
    let device = args.first().map_or_else(default_device, Array::device);
    let mut entry = func.clone();
    entry.name = "main".into();
    let module = Module {
        name: Some(format!("jit_{}", func.name)),
        funcs: vec![entry],
        ..Module::default()
    };
    let options = CompileOptions {
        device: Some(device),
        ..CompileOptions::no_disk_cache()
    };
    let exe = client().compile(&module, &options)?;
    let weak: Vec<bool> = (0..out_types.len()).map(weak).collect();
    Ok(dispatch::execute(
        &format!("jit({})", func.name),
        exe,
        args.to_vec(),
        &out_types,
        &weak,
        device,
    ))
}

/// Copies `func`'s body into trace `t` with its parameters bound to `args`; returns the values
/// it returns.
fn inline(t: &mut trace::Trace, func: &Func, args: &[Array]) -> Result<Vec<systolic_ir::ValueId>> {
    let [Block { args: params, ops }] = func.body.blocks.as_slice() else {
        return Err(Error::Trace(format!(
            "@{} does not have exactly one block",
            func.name
        )));
    };
    let mut map = ValueMap::new();
    for (&p, a) in params.iter().zip(args) {
        let v = lift(t, a)?;
        map.insert(p, v);
    }
    let Some((ret, body)) = ops.split_last() else {
        return Err(Error::Trace(format!("@{} has an empty body", func.name)));
    };
    for op in body {
        let copy = clone_op(func, op, &mut t.func, &mut map)
            .map_err(|e| Error::Trace(format!("inlining @{}: {}", func.name, e.message)))?;
        vma::after_stage(t.id, &copy.kind, &copy.operands, &copy.results);
        t.ops.push(copy);
    }
    ret.operands
        .iter()
        .map(|&v| {
            map.get(v).ok_or_else(|| {
                Error::Trace(format!("@{} returns a value it does not define", func.name))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jit;

    fn square_plus(x: &Array, c: &Array) -> Array {
        &(x * x) + c
    }

    #[test]
    fn staged_function_runs_eagerly_and_captures_large_concrete_arrays() {
        let big = Array::from_vec((0..32).map(|i| i as f32).collect(), &[32]);
        let x = Array::from_vec(vec![2.0f32; 32], &[32]);
        let staged = stage("f", std::slice::from_ref(&x), |a| {
            vec![square_plus(&a[0], &big)]
        })
        .unwrap();
        assert_eq!(
            staged.captures.len(),
            1,
            "the 32-element array is a parameter"
        );
        assert_eq!(staged.func.params().len(), 2);
        let out = call_func(&staged.func, &[x, big.clone()], &staged.out_weak).unwrap();
        let got = out[0].to_vec::<f32>().unwrap();
        assert_eq!(got[0], 4.0);
        assert_eq!(got[31], 35.0);
    }

    #[test]
    fn small_concrete_arrays_stay_constants() {
        let c = Array::from_vec(vec![1.0f32, 2.0], &[2]);
        let x = Array::from_vec(vec![3.0f32, 4.0], &[2]);
        let staged = stage("f", std::slice::from_ref(&x), |a| vec![&a[0] + &c]).unwrap();
        assert!(staged.captures.is_empty());
    }

    #[test]
    fn staged_function_inlines_under_jit_and_captures_outer_tracers() {
        let f = jit(|(x, y): &(Array, Array)| {
            // `y` is a tracer of the jit trace: the inner function captures it.
            let staged = stage("inner", std::slice::from_ref(x), |a| {
                vec![square_plus(&a[0], y)]
            })
            .unwrap();
            assert_eq!(staged.captures.len(), 1);
            let mut args = vec![x.clone()];
            args.extend(staged.captures.iter().cloned());
            call_func(&staged.func, &args, &staged.out_weak)
                .unwrap()
                .remove(0)
        });
        let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
        let y = Array::from_vec(vec![10.0f32, 20.0, 30.0], &[3]);
        let out = f.call(&(x, y)).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![11.0, 24.0, 39.0]);
    }

    #[test]
    fn wrong_arguments_are_errors() {
        let x = Array::from_vec(vec![1.0f32], &[1]);
        let staged = stage("f", std::slice::from_ref(&x), |a| vec![&a[0] * 2.0]).unwrap();
        let bad = Array::from_vec(vec![1i32], &[1]);
        let e = call_func(&staged.func, &[bad], &staged.out_weak).unwrap_err();
        assert!(e.to_string().contains("argument 0"), "{e}");
        assert!(call_func(&staged.func, &[], &staged.out_weak).is_err());
    }
}
