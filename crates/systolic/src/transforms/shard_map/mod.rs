//! `shard_map` and `pmap`: a function written for one device's piece of its inputs, run on
//! every device of a mesh at once, talking to the others through collectives (`lax::psum`,
//! `lax::all_gather`, …) over the mesh's named axes.
//!
//! The body is traced once on local shapes (each argument's piece under its in-spec) with the
//! mesh's axes bound ([`axis_env`]), and staged into the enclosing function as one
//! `sdy.manual_computation` over the mesh — the op JAX's `shard_map` exports. A program holding
//! one is run by [`spmd`]: `lower_manual_computations` (systolic-compiler) makes the
//! per-device program, the runtime compiles it for the mesh's devices and runs every device's
//! partition at once; the results are sharded arrays laid out by the out-specs. Called outside
//! `jit`, a shard_map is staged into a small global function of its own and run the same way.
//!
//! Where JAX users put one, so can ours: in `lax::fori_loop`, `scan`, `cond` and `switch`
//! bodies (the manual computation is staged into the loop body or branch, and the compiler
//! keeps the loop with the pieces as its carries), and nested: with
//! [`ShardMap::axis_names`] a shard_map is manual over some mesh axes only, and one over the
//! remaining axes may run inside its body (the same mesh; [`axis_env`] keeps a frame per
//! level, so the inner body's collectives may name both levels' axes).

pub(crate) mod axis_env;
mod cache;
mod pmap;
pub(crate) mod spmd;

pub use pmap::{pmap, Pmap};

use crate::array::{describe, Array, Repr};
use crate::core::staging::stage_with;
use crate::core::trace;
use crate::error::{Error, Result};
use crate::sharding::{Mesh, NamedSharding, PartitionSpec};
use crate::transforms::function::{fallible, stage_function, Function};
use crate::tree::Tree;
use std::cell::RefCell;
use std::marker::PhantomData;
use systolic_ir::walk::{clone_op, ValueMap};
use systolic_ir::{
    Block, Func, ManualComputationAttrs, Op, OpKind, Region, ReturnKind, TensorType, Type,
};

/// The partition specs of a function's inputs or outputs: one for every leaf, or one per leaf
/// in the order [`Tree::leaves`] lists them (JAX's tree prefix at its two ends).
///
/// ```
/// use systolic::{Specs, P};
/// assert_eq!(Specs::from(P!("data")), Specs::All(P!("data")));
/// assert_eq!(Specs::from([P!("data"), P!()]), Specs::Leaves(vec![P!("data"), P!()]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Specs {
    /// The same spec for every leaf.
    All(PartitionSpec),
    /// One spec per leaf.
    Leaves(Vec<PartitionSpec>),
}

impl From<PartitionSpec> for Specs {
    fn from(p: PartitionSpec) -> Self {
        Specs::All(p)
    }
}

impl From<Vec<PartitionSpec>> for Specs {
    fn from(v: Vec<PartitionSpec>) -> Self {
        Specs::Leaves(v)
    }
}

impl<const N: usize> From<[PartitionSpec; N]> for Specs {
    fn from(v: [PartitionSpec; N]) -> Self {
        Specs::Leaves(v.to_vec())
    }
}

impl Specs {
    fn per_leaf(&self, n: usize, what: &str) -> Result<Vec<PartitionSpec>> {
        match self {
            Specs::All(p) => Ok(vec![p.clone(); n]),
            Specs::Leaves(v) if v.len() == n => Ok(v.clone()),
            Specs::Leaves(v) => Err(Error::op(
                "shard_map",
                format!("{what} has {} specs but there are {n} leaves", v.len()),
            )),
        }
    }
}

/// A [`shard_map`] (or [`pmap`], or a [`jit`](crate::jit) with shardings) compiled for its
/// mesh. Made by [`ShardMap::compile`], [`Pmap::compile`] and [`Jit::compile`](crate::Jit::compile).
pub struct CompiledSpmd {
    program: spmd::SpmdProgram,
}

impl CompiledSpmd {
    pub(crate) fn new(program: spmd::SpmdProgram) -> CompiledSpmd {
        CompiledSpmd { program }
    }

    /// The most memory one device holds at once while running it (its argument pieces,
    /// temporaries and results), as the backend plans it.
    pub fn peak_memory_bytes(&self) -> u64 {
        self.program.peak_memory_bytes()
    }

    /// On simulated TPUs, the modelled time of one run: the slowest chip's, collectives
    /// included. `None` on the CPU, whose time is measured.
    pub fn modelled_step_s(&self) -> Option<f64> {
        self.program.modelled_step_s()
    }

    /// The devices it runs on, in mesh order.
    pub fn devices(&self) -> &[systolic_runtime::Device] {
        self.program.devices()
    }

    /// The program each device runs (pieces in, pieces out, collectives in place) as
    /// StableHLO text, like JAX's `jit(f).lower(x).compile().as_text()`.
    ///
    /// ```
    /// # systolic::set_cpu_devices(8).unwrap();
    /// use systolic::{jit, make_mesh, numpy as np, Array, NamedSharding, P};
    /// let mesh = make_mesh(&[8], &["i"]).unwrap();
    /// let f = jit(|x: &Array| np::sum(x, None, false))
    ///     .in_shardings(NamedSharding::new(&mesh, P!("i")).unwrap());
    /// let text = f.compile(&Array::from_vec(vec![1.0f32; 64], &[64])).unwrap().as_text();
    /// // Each device sums its 8 elements, then the partial sums are added up.
    /// assert!(text.contains("tensor<8xf32>") && text.contains("stablehlo.all_reduce"), "{text}");
    /// ```
    pub fn as_text(&self) -> String {
        self.program.per_device_text()
    }

    /// What the partitioner noticed but did not refuse: each large array it had to gather
    /// whole onto every device (XLA's "involuntary full rematerialization"), with the op that
    /// needed it and where it is. Also printed to stderr when compiled.
    pub fn warnings(&self) -> &[String] {
        self.program.warnings()
    }
}

/// A function mapped over the devices of a mesh. Made by [`shard_map`].
pub struct ShardMap<A, R, F> {
    f: F,
    mesh: Mesh,
    in_specs: Specs,
    out_specs: Specs,
    check_vma: bool,
    /// The mesh axes the body is manual over (`None`: all of them).
    axis_names: Option<Vec<String>>,
    cache: cache::Cache<R>,
    _t: PhantomData<fn(&A) -> R>,
}

/// `jax.shard_map`: `f` runs on every device of `mesh` on its piece of each input (split by
/// `in_specs`) and returns its piece of each output (joined by `out_specs`). Inside `f`,
/// `lax` collectives talk between devices over the mesh's named axes. An output whose spec
/// leaves out an axis must be the same on every device along it (a `psum`/`pmean` over it,
/// or computed from inputs replicated over it); the call fails naming the axis otherwise, as
/// JAX's `check_vma` does.
///
/// ```
/// use systolic::{lax, make_mesh, numpy as np, shard_map, Array, P};
/// let mesh = make_mesh(&[1], &["data"]).unwrap();
/// // A global sum: each device sums its rows, then the partial sums are added up.
/// let total = shard_map(
///     |x: &Array| lax::psum(&np::sum(x, None, false), "data"),
///     &mesh,
///     P!("data"),
///     P!(),
/// );
/// let x = Array::from_vec((0..8).map(|i| i as f32).collect(), &[4, 2]);
/// assert_eq!(total.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![28.0]);
/// ```
pub fn shard_map<A: Tree, F: Function<A>>(
    f: F,
    mesh: &Mesh,
    in_specs: impl Into<Specs>,
    out_specs: impl Into<Specs>,
) -> ShardMap<A, F::Output, F> {
    ShardMap {
        f,
        mesh: mesh.clone(),
        in_specs: in_specs.into(),
        out_specs: out_specs.into(),
        check_vma: true,
        axis_names: None,
        cache: cache::Cache::default(),
        _t: PhantomData,
    }
}

impl<A: Tree, F: Function<A>> ShardMap<A, F::Output, F> {
    /// The mesh.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// JAX's `check_vma` (default true): track which values vary between devices, insert the
    /// `pvary`s that make gradients of values shared by several devices their sums, and check
    /// the out-specs. With `false` every input counts as varying over every axis (each
    /// device's gradients stay its own, as under `pmap`) and the out-specs are trusted.
    pub fn check_vma(mut self, check: bool) -> Self {
        self.check_vma = check;
        self
    }

    /// JAX's `axis_names`: the body is manual over these mesh axes only (the specs may name
    /// only them, and collectives run over them); the other axes stay automatic, the body
    /// written for whole arrays along them. Inside another shard_map's body (the same mesh),
    /// a shard_map over the axes the outer one left automatic nests: its collectives may name
    /// the outer axes too, and JAX's export of the same program is what is staged.
    ///
    /// ```
    /// # systolic::set_cpu_devices(8).unwrap();
    /// use systolic::{jit, lax, make_mesh, shard_map, Array, P};
    /// let mesh = make_mesh(&[2, 4], &["x", "y"]).unwrap();
    /// // Over "x": rows split in two; inside, over "y": columns split in four.
    /// let inner = shard_map(|b: &Array| lax::psum(b, "y"), &mesh, P!(None, "y"), P!(None, "y"))
    ///     .axis_names(&["y"]);
    /// let outer = shard_map(move |r: &Array| inner.call(r).unwrap() + 1.0, &mesh, P!("x"), P!("x"))
    ///     .axis_names(&["x"]);
    /// let x = Array::from_vec(vec![1.0f32; 64], &[8, 8]);
    /// let y = jit(|x: &Array| outer.call(x).unwrap()).call(&x).unwrap();
    /// assert_eq!(y.to_vec::<f32>().unwrap(), vec![5.0; 64]);
    /// ```
    pub fn axis_names(mut self, names: &[&str]) -> Self {
        self.axis_names = Some(names.iter().map(|n| n.to_string()).collect());
        self
    }

    /// The mask of the axes the body is manual over, and their names in mesh order; an error
    /// names an unknown axis, and a spec naming an axis outside them.
    fn own_axes(&self, in_specs: &[PartitionSpec]) -> Result<(axis_env::AxisMask, Vec<String>)> {
        let mask = match &self.axis_names {
            None => axis_env::mask_of("shard_map", &self.mesh, self.mesh.axis_names())?,
            Some(names) => axis_env::mask_of("shard_map", &self.mesh, names)?,
        };
        let names: Vec<String> = axis_env::axes_of(mask, &self.mesh)
            .into_iter()
            .map(|i| self.mesh.axis_names()[i].clone())
            .collect();
        let out_specs = match &self.out_specs {
            Specs::All(p) => vec![p.clone()],
            Specs::Leaves(v) => v.clone(),
        };
        for (what, spec) in in_specs
            .iter()
            .map(|p| ("in_specs", p))
            .chain(out_specs.iter().map(|p| ("out_specs", p)))
        {
            if let Some(a) = spec.axes().find(|a| !names.contains(a)) {
                return Err(Error::op(
                    "shard_map",
                    format!(
                        "{what} {spec} names axis '{a}', which is not among the axis_names the \
                         body is manual over ({})",
                        axis_env::quoted(&names)
                    ),
                ));
            }
        }
        Ok((mask, names))
    }

    /// Runs the function on every device of the mesh: staged into the active trace under
    /// `jit` (or `grad`, `vmap`), else compiled for the mesh and run at once (asynchronously,
    /// like a `jit` call); the outputs are sharded arrays laid out by the out-specs.
    pub fn call(&self, args: &A) -> Result<F::Output> {
        if trace::current().is_some() {
            return self.stage_into_trace(args);
        }
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        let key = cache::signature(args, &leaves, "")?;
        let entry = self.cache.get_or_make(key, || self.make_entry(args))?;
        entry.run("shard_map", leaves)
    }

    /// How many times the function was traced and compiled (once per abstract signature).
    ///
    /// ```
    /// use systolic::{make_mesh, shard_map, Array, P};
    /// let f = shard_map(|x: &Array| x * 2.0, &make_mesh(&[1], &["i"]).unwrap(), P!("i"), P!("i"));
    /// for _ in 0..3 {
    ///     f.call(&Array::from_vec(vec![1.0f32, 2.0], &[2])).unwrap();
    /// }
    /// assert_eq!(f.compiles(), 1);
    /// ```
    pub fn compiles(&self) -> usize {
        self.cache.len()
    }

    /// Traces and compiles a call on `args`.
    pub(crate) fn make_entry(&self, args: &A) -> Result<cache::Entry<F::Output>> {
        let (staged, template, inputs) = self.stage_global(args)?;
        Ok(cache::Entry {
            program: spmd::SpmdProgram::compile(&staged.func, &inputs)?,
            template,
            captures: staged.captures,
            out_weak: staged.out_weak,
        })
    }

    /// Compiles the function for the mesh's devices without running it (JAX's
    /// `jit(shard_map(f)).lower(args).compile()`): what it would need per device, and on
    /// simulated TPUs the modelled step. A program that does not fit a device's memory fails
    /// here, with the device, the bytes and the capacity.
    pub fn compile(&self, args: &A) -> Result<CompiledSpmd> {
        let (staged, _, inputs) = self.stage_global(args)?;
        Ok(CompiledSpmd {
            program: spmd::SpmdProgram::compile(&staged.func, &inputs)?,
        })
    }

    /// The global function around the manual computation, staged on `args`, with the output
    /// template and the arrays to pass (the arguments' leaves, then the captures).
    fn stage_global(
        &self,
        args: &A,
    ) -> Result<(crate::core::staging::Staged, F::Output, Vec<Array>)> {
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        let body = fallible(|a: &A| self.stage_into_trace(a));
        let (staged, template) = stage_function("shard_map", args, &leaves, true, &body)?;
        let mut inputs = leaves;
        inputs.extend(staged.captures.iter().cloned());
        Ok((staged, template, inputs))
    }

    /// Traces the body on local shapes and stages one `sdy.manual_computation` into the active
    /// trace; returns its (global) results.
    fn stage_into_trace(&self, args: &A) -> Result<F::Output> {
        let mut leaves = vec![];
        args.leaves(&mut leaves);
        let paths = args.def().paths();
        let in_specs = self.in_specs.per_leaf(leaves.len(), "in_specs")?;
        let (own, own_names) = self.own_axes(&in_specs)?;
        // In a nested shard_map, what each operand varies over in the enclosing body (its
        // manual axes), which its piece keeps varying over here.
        let outer_vma: Vec<axis_env::AxisMask> = leaves.iter().map(axis_env::vma_of).collect();
        let mut shardings = Vec::with_capacity(leaves.len());
        let mut locals = Vec::with_capacity(leaves.len());
        for (i, (leaf, spec)) in leaves.iter().zip(&in_specs).enumerate() {
            leaf.check()?;
            let s = NamedSharding::new(&self.mesh, spec.clone())?;
            let what = format!(
                "shard_map argument `args{}` ({})",
                paths.get(i).map_or("", String::as_str),
                describe(leaf.aval())
            );
            s.check_shape(leaf.dims(), &what)?;
            let local = TensorType::new(s.shard_shape(leaf.dims())?, leaf.element_type());
            // An abstract stand-in of the local type: staging reads only its type.
            locals.push(Array::make(
                local,
                leaf.weak_type(),
                leaf.device(),
                Repr::Traced {
                    trace: 0,
                    value: systolic_ir::ValueId(0),
                },
            ));
            shardings.push(s);
        }
        let template = RefCell::new(None);
        let out_vma = RefCell::new(vec![]);
        let failure = RefCell::new(None);
        let staged = {
            let _frame = axis_env::enter(&self.mesh, own)?;
            stage_with("shard_map_body", &locals, true, |tracers| {
                let run = || -> Result<Vec<Array>> {
                    for (k, (t, s)) in tracers.iter().zip(&shardings).enumerate() {
                        let mask = if self.check_vma {
                            axis_env::mask_of(
                                "shard_map",
                                &self.mesh,
                                &s.spec().axes().cloned().collect::<Vec<_>>(),
                            )?
                        } else {
                            own
                        } | outer_vma.get(k).copied().unwrap_or(0);
                        if let Repr::Traced { trace, value } = &t.inner.repr {
                            axis_env::set_vma(*trace, *value, mask);
                        }
                    }
                    let a = args.rebuild(&mut tracers.iter().cloned())?;
                    let r = self.f.call(&a)?;
                    let mut outs = vec![];
                    r.leaves(&mut outs);
                    for o in &outs {
                        o.check()?;
                    }
                    *out_vma.borrow_mut() = outs.iter().map(axis_env::vma_of).collect();
                    *template.borrow_mut() = Some(r);
                    Ok(outs)
                };
                run().unwrap_or_else(|e| {
                    *failure.borrow_mut() = Some(e);
                    vec![]
                })
            })?
        };
        if let Some(e) = failure.into_inner() {
            return Err(e);
        }
        let template = template
            .into_inner()
            .ok_or_else(|| Error::Trace("the shard_map body returned nothing".into()))?;
        let out_types: Vec<TensorType> = staged
            .func
            .result_types
            .iter()
            .filter_map(|t| t.as_tensor().cloned())
            .collect();
        let out_specs = self.out_specs.per_leaf(out_types.len(), "out_specs")?;
        let mut out_shardings = vec![];
        let mut global_types = vec![];
        for (k, ((ty, spec), vma)) in out_types
            .iter()
            .zip(&out_specs)
            .zip(out_vma.into_inner())
            .enumerate()
        {
            let s = NamedSharding::new(&self.mesh, spec.clone())?;
            let named = axis_env::mask_of(
                "shard_map",
                &self.mesh,
                &spec.axes().cloned().collect::<Vec<_>>(),
            )?;
            // Only this shard_map's axes are its out-specs' business (a nested one's results
            // may vary over the enclosing one's axes).
            let unchecked = if self.check_vma {
                vma & own & !named
            } else {
                0
            };
            if let Some(&axis) = axis_env::axes_of(unchecked, &self.mesh).first() {
                let name = &self.mesh.axis_names()[axis];
                return Err(Error::op(
                    "shard_map",
                    format!(
                        "output {k} ({}) varies over mesh axis '{name}', but its out_spec {spec} \
                         says it is the same on every device along '{name}': psum or pmean it \
                         over '{name}', or name '{name}' in the out_spec",
                        describe(ty)
                    ),
                ));
            }
            if spec.len() > ty.shape.len() {
                return Err(Error::op(
                    "shard_map",
                    format!(
                        "output {k} ({}) has rank {}, but its out_spec {spec} names {} \
                         dimensions",
                        describe(ty),
                        ty.shape.len(),
                        spec.len()
                    ),
                ));
            }
            let global: Vec<i64> = ty
                .shape
                .iter()
                .enumerate()
                .map(|(d, &n)| n * s.tiles(d) as i64)
                .collect();
            global_types.push(TensorType::new(global, ty.dtype));
            out_shardings.push(s);
        }
        // Captured arrays enter the body whole on every device (replicated).
        let mut operands = leaves;
        let mut in_all = shardings;
        for c in &staged.captures {
            operands.push(c.clone());
            in_all.push(NamedSharding::replicated(&self.mesh));
        }
        // In an enclosing body, the results vary over what the operands varied over there.
        let results_vma = outer_vma.iter().fold(0, |m, v| m | v);
        let outs = stage_manual_computation(
            &self.mesh,
            &own_names,
            &staged.func,
            &operands,
            &in_all,
            &out_shardings,
            &global_types,
            &staged.out_weak,
        )?;
        for o in &outs {
            if let Repr::Traced { trace, value } = &o.inner.repr {
                axis_env::set_vma(*trace, *value, results_vma);
            }
        }
        template.rebuild(&mut outs.into_iter())
    }
}

impl<A: Tree, F: Function<A>> Function<A> for ShardMap<A, F::Output, F> {
    type Output = F::Output;

    fn call(&self, args: &A) -> Result<F::Output> {
        ShardMap::call(self, args)
    }
}

/// Stages `sdy.manual_computation` over the axes `manual` of `mesh` into the active trace: the
/// operands, the body copied from `body` (its parameters become the region's arguments, its
/// return an `sdy.return`), results of `global_types`.
#[allow(clippy::too_many_arguments)]
fn stage_manual_computation(
    mesh: &Mesh,
    manual: &[String],
    body: &Func,
    operands: &[Array],
    in_shardings: &[NamedSharding],
    out_shardings: &[NamedSharding],
    global_types: &[TensorType],
    out_weak: &[bool],
) -> Result<Vec<Array>> {
    let (id, device) =
        trace::current().ok_or_else(|| Error::Trace("shard_map outside a trace".into()))?;
    let symbol = spmd::mesh_symbol(mesh);
    // Shardings of a shard_map that leaves mesh axes to the compiler (partly manual, or a
    // level of a nest) are open, as JAX writes them (`[{?}, {"y", ?}]`): the partitioner may
    // then split the body over the other axes too. Over every axis they are closed.
    let open = mesh.axis_names().iter().any(|a| !manual.contains(a));
    let annotate = |s: &NamedSharding, rank: usize| {
        let mut sdy = s.to_sdy_on(&symbol, rank);
        if open {
            sdy.dims.iter_mut().for_each(|d| d.closed = false);
        }
        sdy
    };
    let attrs = ManualComputationAttrs {
        in_shardings: operands
            .iter()
            .zip(in_shardings)
            .map(|(a, s)| annotate(s, a.rank()))
            .collect(),
        out_shardings: global_types
            .iter()
            .zip(out_shardings)
            .map(|(t, s)| annotate(s, t.shape.len()))
            .collect(),
        manual_axes: manual.to_vec(),
    };
    let [Block { args: params, ops }] = body.body.blocks.as_slice() else {
        return Err(Error::Trace(
            "the shard_map body has no single block".into(),
        ));
    };
    let values = trace::with_trace(id, |t| {
        let ins = operands
            .iter()
            .map(|a| crate::core::bind::lift(t, a))
            .collect::<Result<Vec<_>>>()?;
        let mut map = ValueMap::new();
        let mut block_args = vec![];
        for &p in params {
            let v = t.func.new_value(body.value_type(p).clone(), None);
            map.insert(p, v);
            block_args.push(v);
        }
        let mut region_ops = vec![];
        for op in ops {
            let mut copy = clone_op(body, op, &mut t.func, &mut map)
                .map_err(|e| Error::Trace(format!("staging the shard_map body: {}", e.message)))?;
            if let OpKind::Return(ReturnKind::Func) = copy.kind {
                copy.kind = OpKind::Return(ReturnKind::Sdy);
            }
            region_ops.push(copy);
        }
        let outs: Vec<_> = global_types
            .iter()
            .map(|ty| t.func.new_value(Type::Tensor(ty.clone()), None))
            .collect();
        let mut op = Op::new(
            OpKind::ManualComputation(Box::new(attrs)),
            ins,
            outs.clone(),
        );
        op.regions = vec![Region::single(Block {
            args: block_args,
            ops: region_ops,
        })];
        t.ops.push(op);
        Ok(outs)
    })?;
    Ok(values
        .into_iter()
        .zip(global_types)
        .enumerate()
        .map(|(i, (v, ty))| {
            Array::make(
                ty.clone(),
                out_weak.get(i).copied().unwrap_or(false),
                device,
                Repr::Traced {
                    trace: id,
                    value: v,
                },
            )
        })
        .collect())
}
