//! `jit`: trace a function over pytrees of arrays into an IR module once per abstract
//! signature (tree structure with its static values, shapes, dtypes, weak types, device),
//! compile it through the runtime, and run the cached executable on later calls.
//!
//! Calls are asynchronous, as JAX dispatches: tracing and compiling happen in the caller, the
//! execution is queued on the dispatch thread (`core/dispatch.rs`, shared with eager ops, so the
//! order of all calls and ops is kept) and the call returns at once with arrays still being
//! computed. Arguments that are still being computed are waited for by the worker, not the
//! caller; a failure shows when a result is read.
//!
//! With shardings — [`Jit::in_shardings`], [`Jit::out_shardings`], sharded arguments, or
//! [`with_sharding_constraint`](crate::lax::with_sharding_constraint)s in the function — the
//! traced program is global and runs on every device of its mesh: annotated with `sdy.mesh`
//! and `sdy.sharding`s, split into the per-device program by the compiler's partitioner and
//! compiled for the mesh (`shard_map/spmd.rs`); the results are sharded arrays.

use crate::array::{abstract_value, describe, Array, Repr};
use crate::core::dispatch;
use crate::core::trace;
use crate::device::{client, default_device};
use crate::error::{Error, Result};
use crate::sharding::{with_sharding_constraint, Shardings};
use crate::transforms::aot::{Compiled as AotCompiled, LoweredArgs};
use crate::transforms::function::{stage_function, Function};
use crate::transforms::shard_map::spmd::{
    annotate, check_committed, program_mesh, Boundary, SpmdProgram,
};
use crate::transforms::shard_map::CompiledSpmd;
use crate::tree::{Tree, TreeDef};
use std::cell::RefCell;
use std::collections::HashMap;
use std::marker::PhantomData;
use systolic_ir::{Module, TensorType, Type};
use systolic_runtime::{CompileOptions, Device, Executable};

/// A traced function: the IR module and what the outputs look like. Made by [`Jit::lower`].
///
/// ```
/// use systolic::{jit, Array};
/// let lowered = jit(|x: &Array| x * x).lower(&Array::from_vec(vec![1.0f32, 2.0], &[2])).unwrap();
/// assert_eq!(lowered.module.funcs[0].name, "main");
/// assert!(lowered.as_text().contains("tensor<2xf32>"));
/// ```
pub struct Lowered<R> {
    /// The traced program, entry `@main`.
    pub module: Module,
    template: R,
    out_weak: Vec<bool>,
    /// What it was traced for, for [`Lowered::compile`].
    args: LoweredArgs,
}

impl<R> Lowered<R> {
    /// The module as StableHLO text (the form `systolic run` reads), like JAX's
    /// `jit(f).lower(x).as_text()`.
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let text = jit(|x: &Array| x + 1.0).lower(&Array::scalar(1.0f32)).unwrap().as_text();
    /// assert!(text.contains("func.func") && text.contains("stablehlo.add"), "{text}");
    /// ```
    pub fn as_text(&self) -> String {
        systolic_ir::text::print_module(&self.module)
    }
}

impl<R: Tree> Lowered<R> {
    /// Compiles the lowered program for the device its arguments were on, ahead of time (JAX's
    /// `jit(f).lower(x).compile()`): a [`Compiled`](crate::Compiled) function for this one
    /// signature, which runs without tracing and can be serialised and loaded by another
    /// process of the same build. Programs with shardings are not supported yet ([`Jit::compile`] plans them).
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    /// let compiled = jit(|x: &Array| x * x).lower(&x).unwrap().compile().unwrap();
    /// assert_eq!(compiled.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 4.0]);
    /// let bytes = compiled.serialize(); // for `Compiled::deserialize` in another process
    /// assert!(bytes.starts_with(b"systolic-executable"));
    /// ```
    pub fn compile(&self) -> Result<AotCompiled<R>> {
        AotCompiled::compile(&self.module, &self.args, &self.template, &self.out_weak)
    }
}

/// What a cache entry was traced for, kept to explain later misses.
struct Signature {
    def: TreeDef,
    /// Per leaf: `float32[2]`, with `~` when weakly typed.
    avals: Vec<String>,
    device: Device,
}

impl Signature {
    /// The signature of `leaves`; those whose sharding is asked for (`asked[i]`) are keyed by
    /// their type alone, their own sharding being checked equal to the one asked for.
    fn new(def: TreeDef, leaves: &[Array], asked: &[bool], device: Device) -> Signature {
        let avals = leaves
            .iter()
            .enumerate()
            .map(|(i, a)| match asked.get(i) {
                Some(true) => {
                    format!(
                        "{}{}",
                        describe(a.aval()),
                        if a.weak_type() { "~" } else { "" }
                    )
                }
                _ => abstract_value(a),
            })
            .collect();
        Signature { def, avals, device }
    }

    /// The cache key: the structure's text (static values included), the leaves' abstract
    /// values, the device and the settings that change a trace (`config`).
    fn key(&self) -> String {
        format!(
            "{} | {} | {}{}",
            self.def,
            self.avals.join(" "),
            self.device,
            crate::config::trace_context()
        )
    }

    /// How `now` differs from `self`: the total size of the differences (a static value or a
    /// leaf type 1, the device 5, a structure 10) and one line per difference (at most
    /// `limit`).
    fn differences(&self, now: &Signature, limit: usize) -> (u32, Vec<String>) {
        let mut out = self.def.diff(&now.def, "args", limit);
        if out.is_empty() {
            // Same structure: the leaves correspond one to one.
            for ((path, old), new) in now.def.paths().iter().zip(&self.avals).zip(&now.avals) {
                if old != new && out.len() < limit {
                    out.push((1, format!("`args{path}` changed from {old} to {new}")));
                }
            }
        }
        if self.device != now.device && out.len() < limit {
            out.push((
                5,
                format!("the device changed from {} to {}", self.device, now.device),
            ));
        }
        let size = out.iter().map(|d| d.0).sum();
        (size, out.into_iter().map(|d| d.1).collect())
    }
}

/// A compiled entry: for one device, or (a program with `shard_map`s) for a mesh.
enum Compiled {
    Single(Executable),
    Spmd(SpmdProgram),
}

struct Entry<R> {
    lowered: Lowered<R>,
    exe: Compiled,
    /// Arrays the function read from outside (passed after the arguments).
    captures: Vec<Array>,
    out_types: Vec<TensorType>,
    signature: Signature,
}

/// A function compiled per abstract signature. Made by [`jit`].
///
/// Static arguments are part of the argument tree: wrap them in [`Static`](crate::Static) (or
/// mark struct fields `#[tree(static)]`), and their values join the cache key.
///
/// ```
/// use systolic::{jit, Array, Static};
/// let scale = jit(|(x, k): &(Array, Static<f64>)| x * k.0);
/// let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// assert_eq!(scale.call(&(x.clone(), Static(3.0))).unwrap().to_vec::<f32>().unwrap(), vec![3.0, 6.0]);
/// assert_eq!(scale.call(&(x, Static(0.5))).unwrap().to_vec::<f32>().unwrap(), vec![0.5, 1.0]);
/// assert_eq!(scale.trace_count(), 2);
/// ```
pub struct Jit<A, R, F> {
    f: F,
    name: String,
    explain: bool,
    in_shardings: Shardings,
    out_shardings: Shardings,
    cache: RefCell<HashMap<String, Entry<R>>>,
    traces: RefCell<usize>,
    last_miss: RefCell<Option<String>>,
    /// The leaf positions [`Jit::donate_argnums`] selects, given the arguments.
    donate: Option<Donate<A>>,
    _args: PhantomData<fn(&A)>,
}

/// The leaves a donation selects among the arguments' leaves.
type Donate<A> = Box<dyn Fn(&A) -> Vec<usize>>;

/// `i32`, the type of `tf.aliasing_output`'s value.
fn i32_type() -> Type {
    Type::Tensor(TensorType::scalar(systolic_ir::DType::I32))
}

/// Whether `a` and `b` hold the same data (clones of one array, or arrays over one buffer or
/// one pending result).
fn same_data(a: &Array, b: &Array) -> bool {
    if std::sync::Arc::ptr_eq(&a.inner, &b.inner) {
        return true;
    }
    match (&a.inner.repr, &b.inner.repr) {
        (Repr::Concrete(x), Repr::Concrete(y)) => x.same_buffer(y),
        (Repr::Pending(x), Repr::Pending(y)) => std::sync::Arc::ptr_eq(x, y),
        _ => false,
    }
}

/// For each leaf, the output whose memory it gives when donated (`donated[i]`): the first
/// output of its type not given to an earlier leaf, as JAX pairs donated arguments with
/// results. A donated leaf no output matches keeps its data (JAX's "donated buffers were not
/// usable").
fn aliases(donated: &[bool], leaves: &[Array], out_types: &[TensorType]) -> Vec<Option<usize>> {
    let mut taken = vec![false; out_types.len()];
    leaves
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if !donated.get(i).copied().unwrap_or(false) {
                return None;
            }
            let j = (0..out_types.len()).find(|&j| !taken[j] && &out_types[j] == l.ty())?;
            taken[j] = true;
            Some(j)
        })
        .collect()
}

/// Wraps `f` so that calls trace it once per abstract signature and run compiled code.
///
/// The argument is one [`Tree`] (use a tuple for several arguments); so is the result.
/// [`Static`](crate::Static) parts of the argument are static arguments (JAX's
/// `static_argnums`): the function sees their values, and a new value re-traces.
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
pub fn jit<A: Tree, F: Function<A>>(f: F) -> Jit<A, F::Output, F> {
    Jit {
        f,
        name: "main".into(),
        explain: false,
        in_shardings: Shardings::default(),
        out_shardings: Shardings::default(),
        cache: RefCell::new(HashMap::new()),
        traces: RefCell::new(0),
        last_miss: RefCell::new(None),
        donate: None,
        _args: PhantomData,
    }
}

impl<A: Tree, F: Function<A>> Jit<A, F::Output, F> {
    /// Names the function: the lowered module is `@jit_<name>` and errors of its executions
    /// name `jit(<name>)` (the entry function stays `@main`, as in JAX).
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let f = jit(|x: &Array| x * 2.0).named("double");
    /// assert_eq!(f.name(), "double");
    /// let lowered = f.lower(&Array::scalar(1.0f32)).unwrap();
    /// assert_eq!(lowered.module.name.as_deref(), Some("jit_double"));
    /// ```
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// JAX's `donate_argnums`: the selected elements of a tuple argument ([`Arg<N>`](crate::Arg)
    /// or a tuple of them, as [`Grad::argnums`](crate::Grad::argnums)) are donated to each
    /// call. A donated leaf whose type equals a result's (the first such result not taken by
    /// an earlier leaf, as JAX pairs them) gives its buffer to the execution, which may hold
    /// that result in it (an optimizer step updating parameters in place); the array is deleted
    /// at once ([`Array::is_deleted`]), and any later use is an error saying so (JAX's "Array
    /// has been deleted"). A donated leaf no result matches keeps its data, as JAX's "donated
    /// buffers were not usable". [`Jit::lower`] marks the pairs `tf.aliasing_output` as JAX
    /// prints them.
    ///
    /// As in JAX: the same array given twice where one is donated is an error (nothing is
    /// donated); under another trace (a nested `jit`) donation is ignored; sharded arguments,
    /// and programs that run on a mesh, are not donated here (they keep their data).
    ///
    /// ```
    /// use systolic::{jit, Arg, Array};
    /// let sgd = jit(|(w, g): &(Array, Array)| w - &(g * 0.1)).donate_argnums(Arg::<0>);
    /// let w = Array::from_vec(vec![1.0f32, 2.0], &[2]);
    /// let g = Array::from_vec(vec![10.0f32, 10.0], &[2]);
    /// let w = sgd.call(&(w, g.clone())).unwrap(); // the old w is gone; rebind the name
    /// assert_eq!(w.to_vec::<f32>().unwrap(), vec![0.0, 1.0]);
    /// assert!(!g.is_deleted());
    /// let text = sgd.lower(&(w, g)).unwrap().as_text();
    /// assert!(text.contains("%arg0: tensor<2xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<2xf32>)"), "{text}");
    /// ```
    pub fn donate_argnums<S: crate::ArgNums<A> + 'static>(mut self, select: S) -> Self {
        self.donate = Some(Box::new(move |a: &A| select.positions(a)));
        self
    }

    /// Which leaves of `args` are selected for donation.
    fn donated(&self, args: &A, n: usize) -> Vec<bool> {
        let mut out = vec![false; n];
        if let Some(select) = &self.donate {
            for i in select(args) {
                if let Some(d) = out.get_mut(i) {
                    *d = true;
                }
            }
        }
        out
    }

    /// The sharding each argument leaf must take (JAX's `in_shardings`): one
    /// [`NamedSharding`](crate::NamedSharding) for every leaf, or one per leaf in
    /// [`Tree::leaves`] order, `None` where the argument's own sharding (if it is a sharded
    /// array) or the partitioner's choice will do. An argument that is already sharded
    /// otherwise is an error naming it, as in JAX (`device_put` it first); one on a single
    /// device is split over the mesh on the way in.
    ///
    /// With any sharding the function runs on every device of the mesh: the program is
    /// global, the partitioner splits it, and the results are sharded arrays.
    ///
    /// ```
    /// # systolic::set_cpu_devices(8).unwrap();
    /// use systolic::{jit, make_mesh, numpy as np, Array, NamedSharding, P};
    /// let mesh = make_mesh(&[4, 2], &["data", "model"]).unwrap();
    /// let rows = NamedSharding::new(&mesh, P!("data", None)).unwrap();
    /// let cols = NamedSharding::new(&mesh, P!(None, "model")).unwrap();
    /// let f = jit(|(x, w): &(Array, Array)| np::matmul(x, w)).in_shardings([rows, cols]);
    /// let x = Array::from_vec((0..32).map(|i| i as f32).collect(), &[8, 4]);
    /// let w = Array::from_vec(vec![1.0f32; 8], &[4, 2]);
    /// let y = f.call(&(x, w)).unwrap();
    /// // The partitioner kept the rows of x and the columns of w where they were.
    /// assert_eq!(y.sharding().unwrap().spec(), &P!("data", "model"));
    /// assert_eq!(y.addressable_shards()[0].data.shape(), &[2, 1]);
    /// assert_eq!(y.to_vec::<f32>().unwrap()[..2], [6.0, 6.0]);
    /// ```
    pub fn in_shardings(mut self, shardings: impl Into<Shardings>) -> Self {
        self.in_shardings = shardings.into();
        self
    }

    /// The sharding each result leaf comes out with (JAX's `out_shardings`): one for every
    /// leaf or one per leaf, `None` where the propagated sharding will do. The partitioner
    /// moves the data there inside the program.
    ///
    /// ```
    /// # systolic::set_cpu_devices(8).unwrap();
    /// use systolic::{jit, make_mesh, Array, NamedSharding, P};
    /// let mesh = make_mesh(&[4, 2], &["data", "model"]).unwrap();
    /// let f = jit(|x: &Array| x * 2.0)
    ///     .out_shardings(NamedSharding::new(&mesh, P!("data", "model")).unwrap());
    /// let y = f.call(&Array::from_vec(vec![1.0f32; 32], &[8, 4])).unwrap();
    /// assert_eq!(y.addressable_shards().len(), 8);
    /// assert_eq!(y.addressable_shards()[3].index, vec![2..4, 2..4]);
    /// let text = f.lower(&Array::from_vec(vec![1.0f32; 32], &[8, 4])).unwrap().as_text();
    /// assert!(text.contains(r#"sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {"model"}]>"#), "{text}");
    /// ```
    pub fn out_shardings(mut self, shardings: impl Into<Shardings>) -> Self {
        self.out_shardings = shardings.into();
        self
    }

    /// The function's name (`main` unless [`Jit::named`]).
    ///
    /// ```
    /// assert_eq!(systolic::jit(|x: &systolic::Array| x.clone()).name(), "main");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Prints (to stderr) and records why each call that re-traces missed the cache: which
    /// static value, argument type, tree structure or device differs from the closest
    /// signature seen before (JAX's `jax_explain_cache_misses`).
    ///
    /// ```
    /// use systolic::{jit, Array, Static};
    /// let f = jit(|(x, n): &(Array, Static<u32>)| x * f64::from(n.0)).explain_cache_misses(true);
    /// let x = Array::scalar(1.0f32);
    /// f.call(&(x.clone(), Static(2))).unwrap();
    /// f.call(&(x, Static(3))).unwrap();
    /// let why = f.last_cache_miss().unwrap();
    /// assert!(why.contains("static value `args[1]` changed from 2 to 3"), "{why}");
    /// ```
    pub fn explain_cache_misses(mut self, on: bool) -> Self {
        self.explain = on;
        self
    }

    /// How many times the function was traced (for [`Jit::call`], once per new signature).
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let f = jit(|x: &Array| x + 1.0);
    /// f.call(&Array::scalar(1.0f32)).unwrap();
    /// f.call(&Array::scalar(5.0f32)).unwrap();
    /// assert_eq!(f.trace_count(), 1);
    /// ```
    pub fn trace_count(&self) -> usize {
        *self.traces.borrow()
    }

    /// How many signatures are compiled and cached.
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let f = jit(|x: &Array| x + 1.0);
    /// f.call(&Array::scalar(1.0f32)).unwrap();
    /// f.call(&Array::scalar(1i32)).unwrap();
    /// assert_eq!(f.cache_len(), 2);
    /// ```
    pub fn cache_len(&self) -> usize {
        self.cache.borrow().len()
    }

    /// Why the last re-trace happened (with [`Jit::explain_cache_misses`]).
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let f = jit(|x: &Array| x * 2.0).explain_cache_misses(true);
    /// f.call(&Array::from_vec(vec![1.0f32], &[1])).unwrap();
    /// f.call(&Array::from_vec(vec![1.0f32, 2.0], &[2])).unwrap();
    /// let why = f.last_cache_miss().unwrap();
    /// assert!(why.contains("`args` changed from float32[1] to float32[2]"), "{why}");
    /// ```
    pub fn last_cache_miss(&self) -> Option<String> {
        self.last_miss.borrow().clone()
    }

    /// Traces `f` on the abstract values of `args` (data is not read) into a module that runs
    /// on its own: arrays the function reads from outside are embedded as constants.
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let lowered = jit(|x: &Array| x.clone()).lower(&Array::from_vec(vec![1i32, 2], &[2])).unwrap();
    /// assert!(lowered.as_text().contains("tensor<2xi32>"));
    /// ```
    pub fn lower(&self, args: &A) -> Result<Lowered<F::Output>> {
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        for l in &leaves {
            l.check()?;
        }
        let (mut lowered, _) = self.trace(args, &leaves, false)?;
        let boundary = self.boundary(args, leaves.len(), &lowered.template)?;
        if let Some(func) = lowered.module.funcs.first()
            && let Some(annotated) = annotate(func, &leaves, &boundary)?
        {
            lowered.module.attrs = annotated.module.attrs;
            lowered.module.meshes = annotated.module.meshes;
            lowered.module.funcs = annotated.module.funcs;
        }
        let donated = self.donated(args, leaves.len());
        if let Some(func) = lowered.module.funcs.first_mut()
            && donated.iter().any(|&d| d)
        {
            let out_types: Vec<TensorType> = func
                .result_types
                .iter()
                .filter_map(|t| t.as_tensor().cloned())
                .collect();
            let params = func.params().len();
            func.arg_attrs.resize(params, vec![]);
            for (i, j) in aliases(&donated, &leaves, &out_types)
                .into_iter()
                .enumerate()
            {
                if let (Some(j), Some(attrs)) = (j, func.arg_attrs.get_mut(i)) {
                    attrs.push(systolic_ir::NamedAttr::new(
                        "tf.aliasing_output",
                        systolic_ir::Attribute::Int(j as i64, Some(i32_type())),
                    ));
                }
            }
        }
        Ok(lowered)
    }

    /// Compiles the function for the devices of its mesh without running it (JAX's
    /// `jit(f).lower(args).compile()`), for a program with shardings (asked for, of sharded
    /// arguments, or constraints): what one device needs ([`CompiledSpmd::peak_memory_bytes`],
    /// which sharding brings down) and on simulated TPUs the modelled step. A program with no
    /// sharding is an error: it runs on one device.
    ///
    /// ```
    /// # systolic::set_cpu_devices(8).unwrap();
    /// use systolic::{jit, make_mesh, numpy as np, Array, NamedSharding, P};
    /// let mesh = make_mesh(&[8], &["batch"]).unwrap();
    /// let x = Array::from_vec(vec![1.0f32; 1024 * 64], &[1024, 64]);
    /// let f = |x: &Array| np::tanh(&(x * 2.0));
    /// let split = jit(f).in_shardings(NamedSharding::new(&mesh, P!("batch")).unwrap());
    /// let whole = jit(f).in_shardings(NamedSharding::new(&mesh, P!()).unwrap());
    /// let (a, b) = (split.compile(&x).unwrap(), whole.compile(&x).unwrap());
    /// assert!(a.peak_memory_bytes() * 4 <= b.peak_memory_bytes(), "{} vs {}",
    ///     a.peak_memory_bytes(), b.peak_memory_bytes());
    /// assert!(jit(f).compile(&x).is_err()); // no sharding: one device
    /// ```
    pub fn compile(&self, args: &A) -> Result<CompiledSpmd> {
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        for l in &leaves {
            l.check()?;
        }
        let (lowered, captures) = self.trace(args, &leaves, true)?;
        let boundary = self.boundary(args, captures.len(), &lowered.template)?;
        let func = lowered
            .module
            .funcs
            .first()
            .ok_or_else(|| Error::Trace("the traced module has no function".into()))?;
        let mut inputs = leaves;
        inputs.extend(captures);
        if annotate(func, &inputs, &boundary)?.is_none() {
            return Err(Error::op(
                &boundary.label,
                "the program has no sharding (no in/out shardings, sharded arguments or \
                 constraints): it runs on one device; use call",
            ));
        }
        Ok(CompiledSpmd::new(SpmdProgram::compile_with(
            func, &inputs, &boundary,
        )?))
    }

    /// The shardings asked of a call on `args` (then `captures` more parameters) whose
    /// results are laid out like `template`, with the names errors give them.
    fn boundary(&self, args: &A, captures: usize, template: &F::Output) -> Result<Boundary> {
        let label = format!("jit({})", self.name);
        let in_names: Vec<String> = args
            .def()
            .paths()
            .iter()
            .map(|p| format!("`args{p}`"))
            .collect();
        let out_names: Vec<String> = template
            .def()
            .paths()
            .iter()
            .map(|p| format!("`result{p}`"))
            .collect();
        let mut ins = self
            .in_shardings
            .per_leaf(in_names.len(), &format!("{label} in_shardings"))?;
        ins.resize(in_names.len() + captures, None);
        let outs = self
            .out_shardings
            .per_leaf(out_names.len(), &format!("{label} out_shardings"))?;
        Ok(Boundary {
            ins,
            outs,
            in_names,
            out_names,
            label,
        })
    }

    /// Under an enclosing trace: the function inlined, its in- and out-shardings staged as
    /// sharding constraints on the argument and result leaves (as JAX's nested `jit`).
    fn call_traced(&self, args: &A) -> Result<F::Output> {
        if self.in_shardings.is_unspecified() && self.out_shardings.is_unspecified() {
            return self.f.call(args);
        }
        let label = format!("jit({})", self.name);
        let constrain = |leaves: Vec<Array>, shardings: Vec<Option<crate::NamedSharding>>| {
            leaves
                .into_iter()
                .zip(shardings)
                .map(|(l, s)| match s {
                    Some(s) => with_sharding_constraint(&l, &s),
                    None => l,
                })
                .collect::<Vec<_>>()
        };
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        let ins = self
            .in_shardings
            .per_leaf(leaves.len(), &format!("{label} in_shardings"))?;
        let args = args.rebuild(&mut constrain(leaves, ins).into_iter())?;
        let out = self.f.call(&args)?;
        let mut outs = vec![];
        out.leaves(&mut outs);
        let shardings = self
            .out_shardings
            .per_leaf(outs.len(), &format!("{label} out_shardings"))?;
        out.rebuild(&mut constrain(outs, shardings).into_iter())
    }

    fn trace(
        &self,
        args: &A,
        leaves: &[Array],
        capture_concrete: bool,
    ) -> Result<(Lowered<F::Output>, Vec<Array>)> {
        let span = systolic_trace::Span::lazy(systolic_trace::cat::TRACE, || {
            format!("trace jit({})", self.name)
        });
        let (staged, template) = stage_function("main", args, leaves, capture_concrete, &self.f)?;
        drop(span);
        *self.traces.borrow_mut() += 1;
        let lowered = Lowered {
            module: Module {
                name: Some(format!("jit_{}", self.name)),
                funcs: vec![staged.func],
                ..Module::default()
            },
            template,
            out_weak: staged.out_weak,
            args: LoweredArgs::new(&self.name, args, leaves),
        };
        Ok((lowered, staged.captures))
    }

    /// Which leaves this call donates (those selected that a result of their type takes, and
    /// that are not sharded), marked deleted now; an error, donating nothing, when a donated
    /// leaf's data is also given as another leaf.
    fn donation(
        &self,
        args: &A,
        leaves: &[Array],
        out_types: &[TensorType],
        label: &str,
    ) -> Result<Vec<bool>> {
        let mut donated = self.donated(args, leaves.len());
        if !donated.iter().any(|&d| d) {
            return Ok(vec![]);
        }
        for (d, l) in donated.iter_mut().zip(leaves) {
            *d &= l.sharding().is_none();
        }
        let paths = args.def().paths();
        let name = |i: usize| format!("`args{}`", paths.get(i).map_or("", String::as_str));
        for (i, a) in leaves.iter().enumerate() {
            if let Some(j) =
                (0..i).find(|&j| (donated[i] || donated[j]) && same_data(a, &leaves[j]))
            {
                let what = if donated[i] && donated[j] {
                    "donated twice"
                } else {
                    "donated and also passed undonated"
                };
                return Err(Error::op(
                    label,
                    format!(
                        "arguments {} and {} are the same array, which cannot be {what} \
                         (JAX: \"Attempt to donate the same buffer twice\"); pass a copy",
                        name(j),
                        name(i)
                    ),
                ));
            }
        }
        let give: Vec<bool> = aliases(&donated, leaves, out_types)
            .iter()
            .map(Option::is_some)
            .collect();
        for (l, &g) in leaves.iter().zip(&give) {
            if g {
                l.mark_donated(label);
            }
        }
        Ok(give)
    }

    /// Records (and prints) why `now` missed the cache.
    fn explain_miss(&self, now: &Signature) {
        let cache = self.cache.borrow();
        let closest = cache
            .values()
            .map(|e| e.signature.differences(now, 4))
            .min();
        let Some((_, diffs)) = closest else {
            return;
        };
        let why = format!(
            "jit({}) cache miss (closest of {} cached signatures): {}",
            self.name,
            cache.len(),
            diffs.join("; ")
        );
        eprintln!("{why}");
        *self.last_miss.borrow_mut() = Some(why);
    }

    /// The function run directly under [`config::disable_jit`](crate::config::disable_jit):
    /// its ops run eagerly (or join an enclosing trace), and an error any result leaf carries
    /// is returned as the call's, as a compiled call would return it.
    fn call_eagerly(&self, args: &A) -> Result<F::Output> {
        let out = self.f.call(args)?;
        let mut leaves = vec![];
        out.leaves(&mut leaves);
        for leaf in &leaves {
            leaf.check()?;
        }
        Ok(out)
    }

    /// Calls the function: from the cache when the abstract signature was seen, else traced
    /// and compiled first. Under another trace it is inlined (traced into the outer function).
    ///
    /// The call is asynchronous: it returns once the execution is queued, with arrays that are
    /// still being computed (arguments still being computed are waited for on the dispatch
    /// thread). Reading a result (`to_vec`, [`Array::block_until_ready`]) waits for it and
    /// reports a failure of the execution as an error of `jit(<name>)`. Errors found before
    /// running (bad arguments, tracing, compilation) are returned at once.
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let step = jit(|x: &Array| &(x * 0.5) + 1.0);
    /// let mut x = Array::from_vec(vec![0.0f32; 4], &[4]);
    /// for _ in 0..20 {
    ///     x = step.call(&x).unwrap(); // returns before the step has run
    /// }
    /// x.block_until_ready().unwrap();
    /// assert!((x.to_vec::<f32>().unwrap()[0] - 2.0).abs() < 1e-5);
    /// ```
    pub fn call(&self, args: &A) -> Result<F::Output> {
        if crate::config::jit_disabled() {
            return self.call_eagerly(args);
        }
        if trace::current().is_some() {
            return self.call_traced(args);
        }
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        for l in &leaves {
            l.check()?;
        }
        let device = leaves.first().map_or_else(default_device, |a| a.device());
        let paths = || args.def().paths();
        if let Some((i, other)) = leaves
            .iter()
            .enumerate()
            .find(|(_, a)| a.device() != device)
        {
            return Err(Error::op(
                &format!("jit({})", self.name),
                format!(
                    "argument `args{}` is on {} and `args{}` on {device}; device_put one of them",
                    paths().get(i).map_or("", String::as_str),
                    other.device(),
                    paths().first().map_or("", String::as_str),
                ),
            ));
        }
        let label = format!("jit({})", self.name);
        let asked = self
            .in_shardings
            .per_leaf(leaves.len(), &format!("{label} in_shardings"))?;
        for (i, (a, s)) in leaves.iter().zip(&asked).enumerate() {
            if let Some(s) = s {
                let name = format!("`args{}`", paths().get(i).map_or("", String::as_str));
                check_committed(&label, &name, a, s)?;
            }
        }
        let asked: Vec<bool> = asked.iter().map(Option::is_some).collect();
        let signature = Signature::new(args.def(), &leaves, &asked, device);
        let key = signature.key();
        let hit = self.cache.borrow().contains_key(&key);
        let _span = systolic_trace::Span::lazy(systolic_trace::cat::CALL, || label.clone())
            .with("cache", if hit { "hit" } else { "miss" });
        if !hit {
            if self.explain {
                self.explain_miss(&signature);
            }
            let (lowered, captures) = self.trace(args, &leaves, true)?;
            let options = CompileOptions {
                device: Some(device),
                ..CompileOptions::no_disk_cache()
            };
            let entry_func = lowered
                .module
                .funcs
                .first()
                .ok_or_else(|| Error::Trace("the traced module has no function".into()))?;
            let boundary = self.boundary(args, captures.len(), &lowered.template)?;
            let mut inputs = leaves.clone();
            inputs.extend(captures.iter().cloned());
            let exe = if boundary.asks() || program_mesh(entry_func)?.is_some() {
                Compiled::Spmd(SpmdProgram::compile_with(entry_func, &inputs, &boundary)?)
            } else if leaves.iter().any(|a| a.sharding().is_some()) {
                // Sharded arguments alone: the program runs on their mesh when the
                // partitioner can split it, else on one device, the pieces assembled (the
                // partitioner does not handle every op yet).
                match SpmdProgram::compile_with(entry_func, &inputs, &boundary) {
                    Ok(p) => Compiled::Spmd(p),
                    Err(_) => Compiled::Single(client().compile(&lowered.module, &options)?),
                }
            } else {
                Compiled::Single(client().compile(&lowered.module, &options)?)
            };
            let out_types = lowered
                .module
                .funcs
                .first()
                .map(|f| {
                    f.result_types
                        .iter()
                        .filter_map(|t| match t {
                            Type::Tensor(t) => Some(t.clone()),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            self.cache.borrow_mut().insert(
                key.clone(),
                Entry {
                    lowered,
                    exe,
                    captures,
                    out_types,
                    signature,
                },
            );
        }
        let cache = self.cache.borrow();
        let entry = cache
            .get(&key)
            .ok_or_else(|| Error::Trace("jit cache entry vanished".into()))?;
        let donate = match &entry.exe {
            Compiled::Single(_) => self.donation(args, &leaves, &entry.out_types, &label)?,
            Compiled::Spmd(_) => vec![],
        };
        let mut inputs = leaves;
        inputs.extend(entry.captures.iter().cloned());
        let outs = match &entry.exe {
            Compiled::Single(exe) => dispatch::execute_donating(
                &label,
                exe.clone(),
                inputs,
                &donate,
                &entry.out_types,
                &entry.lowered.out_weak,
                device,
            ),
            Compiled::Spmd(program) => program.execute(&label, inputs, &entry.lowered.out_weak),
        };
        entry.lowered.template.rebuild(&mut outs.into_iter())
    }
}

impl<A: Tree, F: Function<A>> Function<A> for Jit<A, F::Output, F> {
    type Output = F::Output;

    fn call(&self, args: &A) -> Result<F::Output> {
        Jit::call(self, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dispatch::tests::hold_queue;
    use std::time::Instant;

    #[test]
    fn calls_return_before_the_queue_runs_them_and_keep_their_order() {
        let f = jit(|x: &Array| &(x * 2.0) + 1.0);
        let x0 = Array::from_vec(vec![0.0f32, 1.0], &[2]);
        f.call(&x0).unwrap().block_until_ready().unwrap(); // trace and compile now
        let hold = hold_queue();
        let start = Instant::now();
        let mut x = x0;
        for _ in 0..100 {
            x = f.call(&x).unwrap();
        }
        let elapsed = start.elapsed();
        // Nothing ran yet: the worker is held, and the caller did not wait for it.
        assert!(!x.is_ready());
        drop(hold);
        let got = x.to_vec::<f32>().unwrap();
        // x -> 2x + 1, 100 times: x_100 = 2^100 (x_0 + 1) - 1.
        assert_eq!(got, vec![2f32.powi(100) - 1.0, 2f32.powi(101) - 1.0]);
        assert!(x.is_ready());
        assert!(
            elapsed.as_secs_f64() < 5.0,
            "100 queued calls took {elapsed:?}"
        );
    }

    #[test]
    fn eager_ops_and_jit_calls_interleave_in_order() {
        let f = jit(|x: &Array| x * 3.0);
        let mut x = Array::from_vec(vec![1.0f32], &[1]);
        let hold = hold_queue();
        for _ in 0..5 {
            x = &f.call(&x).unwrap() - 1.0; // the eager op reads the pending jit result
        }
        drop(hold);
        // 1 -> 2 -> 5 -> 14 -> 41 -> 122
        assert_eq!(x.to_vec::<f32>().unwrap(), vec![122.0]);
    }
}
