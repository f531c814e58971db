//! `jit`: trace a function over pytrees of arrays into an IR module once per abstract
//! signature (tree structure, shapes, dtypes, weak types, device), compile it through the
//! runtime, and run the cached executable on later calls.

use crate::array::{describe, Array, Repr};
use crate::device::{client, default_device};
use crate::error::{Error, Result};
use crate::staging::stage_with;
use crate::trace;
use crate::tree::Tree;
use std::cell::RefCell;
use std::collections::HashMap;
use std::marker::PhantomData;
use systolic_ir::{Module, TensorType};
use systolic_runtime::{CompileOptions, Device, Executable};

/// A traced function: the IR module and what the outputs look like.
pub struct Lowered<R> {
    /// The traced program, entry `@main`.
    pub module: Module,
    template: R,
    out_weak: Vec<bool>,
}

impl<R> Lowered<R> {
    /// The module as StableHLO text (the form `systolic run` reads), like JAX's
    /// `jit(f).lower(x).as_text()`.
    pub fn as_text(&self) -> String {
        systolic_ir::text::print_module(&self.module)
    }
}

struct Entry<R> {
    lowered: Lowered<R>,
    exe: Executable,
    /// Arrays the function read from outside (passed after the arguments).
    captures: Vec<Array>,
}

/// A function compiled per abstract signature. Made by [`jit`].
pub struct Jit<A, R, F> {
    f: F,
    name: String,
    explain: bool,
    cache: RefCell<HashMap<String, Entry<R>>>,
    traces: RefCell<usize>,
    last_miss: RefCell<Option<String>>,
    _args: PhantomData<fn(&A)>,
}

/// Wraps `f` so that calls trace it once per abstract signature and run compiled code.
///
/// ```
/// use systolic::{jit, Array};
/// let f = jit(|(x, y): &(Array, Array)| &(x * y) + 1.0);
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// let y = Array::from_vec(vec![3.0f32, 4.0], &[2]);
/// assert_eq!(f.call(&(x.clone(), y.clone())).unwrap().to_vec::<f32>().unwrap(), vec![4.0, 9.0]);
/// f.call(&(y, x)).unwrap();
/// assert_eq!(f.trace_count(), 1); // same signature: no re-trace
/// let text = f.lower(&(Array::scalar(1.0f32), Array::scalar(2.0f32))).unwrap().as_text();
/// assert!(text.contains("stablehlo.multiply"), "{text}");
/// ```
pub fn jit<A: Tree, R: Tree, F: Fn(&A) -> R>(f: F) -> Jit<A, R, F> {
    Jit {
        f,
        name: "main".into(),
        explain: false,
        cache: RefCell::new(HashMap::new()),
        traces: RefCell::new(0),
        last_miss: RefCell::new(None),
        _args: PhantomData,
    }
}

fn signature(structure: &str, leaves: &[Array], device: Device) -> String {
    let parts: Vec<String> = leaves
        .iter()
        .map(|a| {
            format!(
                "{}{}",
                describe(a.ty()),
                if a.weak_type() { "~" } else { "" }
            )
        })
        .collect();
    format!("{structure} | {} | {device}", parts.join(" "))
}

impl<A: Tree, R: Tree, F: Fn(&A) -> R> Jit<A, R, F> {
    /// Prints (to stderr) and records why each call that re-traces missed the cache.
    pub fn explain_cache_misses(mut self, on: bool) -> Self {
        self.explain = on;
        self
    }

    /// How many times the function was traced.
    pub fn trace_count(&self) -> usize {
        *self.traces.borrow()
    }

    /// Why the last re-trace happened (with [`Jit::explain_cache_misses`]).
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let f = jit(|x: &Array| x * 2.0).explain_cache_misses(true);
    /// f.call(&Array::from_vec(vec![1.0f32], &[1])).unwrap();
    /// f.call(&Array::from_vec(vec![1.0f32, 2.0], &[2])).unwrap();
    /// assert!(f.last_cache_miss().unwrap().contains("float32[2]"));
    /// ```
    pub fn last_cache_miss(&self) -> Option<String> {
        self.last_miss.borrow().clone()
    }

    /// Traces `f` on the abstract values of `args` (data is not read).
    pub fn lower(&self, args: &A) -> Result<Lowered<R>> {
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        for l in &leaves {
            l.check()?;
        }
        Ok(self.trace(args, &leaves, false)?.0)
    }

    fn trace(
        &self,
        args: &A,
        leaves: &[Array],
        capture_concrete: bool,
    ) -> Result<(Lowered<R>, Vec<Array>)> {
        let mut template = None;
        let staged = stage_with(&self.name, leaves, capture_concrete, |tracers| {
            let traced_args = match args.rebuild(&mut tracers.iter().cloned()) {
                Ok(a) => a,
                Err(e) => return vec![Array::failed(e)],
            };
            let out = (self.f)(&traced_args);
            let mut outs = vec![];
            out.leaves(&mut outs);
            template = Some(out);
            outs
        })?;
        let template =
            template.ok_or_else(|| Error::Trace("the traced function returned nothing".into()))?;
        *self.traces.borrow_mut() += 1;
        let lowered = Lowered {
            module: Module {
                name: Some(format!("jit_{}", self.name)),
                funcs: vec![staged.func],
                ..Module::default()
            },
            template,
            out_weak: staged.out_weak,
        };
        Ok((lowered, staged.captures))
    }

    /// Calls the function: from the cache when the abstract signature was seen, else traced
    /// and compiled first. Under another trace it is inlined (traced into the outer function).
    pub fn call(&self, args: &A) -> Result<R> {
        if trace::current().is_some() {
            return Ok((self.f)(args));
        }
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        for l in &leaves {
            l.check()?;
        }
        let device = leaves.first().map_or_else(default_device, |a| a.device());
        let key = signature(&args.structure(), &leaves, device);
        if !self.cache.borrow().contains_key(&key) {
            if self.explain && !self.cache.borrow().is_empty() {
                let seen: Vec<String> = self.cache.borrow().keys().cloned().collect();
                let why = format!(
                    "jit cache miss: signature [{key}] differs from the {} seen: [{}]",
                    seen.len(),
                    seen.join("], [")
                );
                eprintln!("{why}");
                *self.last_miss.borrow_mut() = Some(why);
            }
            let (lowered, captures) = self.trace(args, &leaves, true)?;
            let options = CompileOptions {
                device: Some(device),
                ..CompileOptions::no_disk_cache()
            };
            let exe = client().compile(&lowered.module, &options)?;
            self.cache.borrow_mut().insert(
                key.clone(),
                Entry {
                    lowered,
                    exe,
                    captures,
                },
            );
        }
        let cache = self.cache.borrow();
        let entry = cache
            .get(&key)
            .ok_or_else(|| Error::Trace("jit cache entry vanished".into()))?;
        let buffers = leaves
            .iter()
            .chain(&entry.captures)
            .map(|a| a.buffer())
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&systolic_runtime::Buffer> = buffers.iter().collect();
        let outs = entry.exe.execute(&refs)?;
        let arrays = outs
            .into_iter()
            .zip(&entry.lowered.out_weak)
            .map(|(b, &weak)| {
                let ty: TensorType = b.ty().clone();
                Array::make(ty, weak, device, Repr::Concrete(b))
            });
        entry.lowered.template.rebuild(&mut arrays.into_iter())
    }
}
