//! `debug::callback` and the staging both it and `print!` share.

use crate::array::{Array, Repr};
use crate::core::bind::bind;
use crate::core::trace;
use crate::device::client;
use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::Arc;
use systolic_ir::host_callback::{self, CallbackId};
use systolic_ir::Tensor;
use systolic_runtime::DeviceKind;

thread_local! {
    /// Set while a host callback runs on this thread.
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// True while a host callback runs on this thread: a print made from inside one must not wait
/// for the dispatch queue, which is waiting for the program that called it.
pub(crate) fn in_callback() -> bool {
    IN_CALLBACK.with(Cell::get)
}

/// Arrays on the host CPU device holding `tensors`, ready at once. Made without the dispatch
/// or transfer threads, which may be waiting for the very program that runs the callback.
pub(crate) fn host_arrays(tensors: &[Tensor]) -> std::result::Result<Vec<Array>, String> {
    let c = client();
    let cpu = c
        .devices()
        .iter()
        .copied()
        .find(|d| d.kind() == DeviceKind::Cpu)
        .ok_or_else(|| "the process has no CPU device to hold a callback's values".to_string())?;
    tensors
        .iter()
        .map(|t| {
            let data = systolic_cpu::CpuBuffer::from_tensor(t);
            let b = c.buffer_from_host(data, cpu).map_err(|e| e.to_string())?;
            Ok(Array::make(t.ty().clone(), false, cpu, Repr::Concrete(b)))
        })
        .collect()
}

/// Stages the host callback `id` on `args` into the active trace; `name` (`print`) names it
/// `debug.print` in errors and profiles.
pub(crate) fn stage(id: CallbackId, name: &str, args: &[Array]) -> Result<()> {
    let refs: Vec<&Array> = args.iter().collect();
    let name = format!("debug.{name}");
    let kind = host_callback::host_callback_kind(id, &name);
    bind(&name, kind, &refs, vec![], Some(vec![]), false).map(|_| ())
}

/// `jax.debug.callback`: calls `f` with the values of `args` — at once outside a trace,
/// when the compiled program reaches it inside `jit`, `grad` (primal values only), `vmap` (once
/// per example, in order) or a loop body (once per iteration).
///
/// `f` gets host arrays on the CPU device and may read them (`to_vec`, `Display`) but should
/// not run array ops: inside a program it runs while the program runs, and an op would wait
/// for the dispatch queue that waits for the program. Its error ends the program: the `jit`
/// call's results carry it, naming the callback. The returned `Err` is for errors found now:
/// a failed argument, or `f`'s own error when it ran at once.
///
/// Each call under a trace registers `f` for the life of the process (the program refers to
/// it by number), so trace it once — `jit` does, per signature — rather than in a loop.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use systolic::{debug, jit, Array};
/// let seen = Arc::new(Mutex::new(vec![]));
/// let log = seen.clone();
/// let f = jit(move |x: &Array| {
///     let log = log.clone();
///     let y = x * x;
///     debug::callback(
///         move |v: &[Array]| {
///             log.lock().unwrap().push(v[0].to_vec::<f32>()?);
///             Ok(())
///         },
///         &[y.clone()],
///     )
///     .unwrap();
///     y
/// });
/// f.call(&Array::from_vec(vec![3.0f32], &[1])).unwrap().block_until_ready().unwrap();
/// assert_eq!(*seen.lock().unwrap(), vec![vec![9.0f32]]);
/// ```
pub fn callback<F>(f: F, args: &[Array]) -> Result<()>
where
    F: Fn(&[Array]) -> Result<()> + Send + Sync + 'static,
{
    if trace::current().is_none() {
        for a in args {
            a.check()?;
        }
        if !in_callback() {
            crate::core::dispatch::drain();
        }
        return f(args);
    }
    let id = host_callback::register(Arc::new(move |tensors: &[Tensor]| {
        let arrays = host_arrays(tensors)?;
        let was = IN_CALLBACK.with(|c| c.replace(true));
        let r = f(&arrays);
        IN_CALLBACK.with(|c| c.set(was));
        r.map(|()| vec![]).map_err(|e: Error| e.to_string())
    }));
    stage(id, "callback", args)
}
