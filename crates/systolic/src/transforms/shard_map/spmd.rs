//! Running a global program on the devices of a mesh: a program holding
//! `sdy.manual_computation`s (staged by [`shard_map`](crate::shard_map)), or one the
//! partitioner splits by shardings (`jit` with in/out shardings, sharded arguments or
//! [`with_sharding_constraint`](crate::lax::with_sharding_constraint)s).
//!
//! The program's mesh is found from the shardings it meets (each mesh the front end stages
//! gets a symbol of its own while staged, [`mesh_symbol`]; the annotated module calls it
//! `@mesh`, as JAX does): its manual computations and constraints, the
//! shardings the caller asks for and those of the sharded arrays passed to it. The entry's
//! arguments are annotated with the shardings asked for, else with those of the sharded
//! arrays passed (so their pieces go straight to their devices; other arguments are left to
//! the partitioner, or replicated under `shard_map`), and its results with the shardings
//! asked for or the out-shardings of the manual computations that make them (so they stay
//! sharded). The compiler's `per_device_program` turns that into the per-device program
//! (`lower_manual_computations`, or inlining and the SPMD partitioner); the runtime compiles it
//! for the mesh's devices. Results carry the sharding asked for, or the one the partitioner
//! chose, read back from its layout.

use crate::array::{describe, Array, Repr};
use crate::core::dispatch;
use crate::device::client;
use crate::error::{Error, Result};
use crate::sharding::{from_pieces, Mesh, NamedSharding, PartitionSpec};
use std::collections::HashMap;
use std::sync::Mutex;
use systolic_compiler::passes::{per_device_program, SpmdModule};
use systolic_ir::{
    Attribute, Func, Module, NamedAttr, Op, OpKind, SdySharding, ShardLayout, TensorType, Type,
    ValueId,
};
use systolic_runtime::{Buffer, CompileOptions, SpmdExecutable};

/// The meshes staged so far, by symbol: `mesh`, `mesh_1`, … in the order first seen.
fn registry() -> &'static Mutex<Vec<Mesh>> {
    static MESHES: Mutex<Vec<Mesh>> = Mutex::new(Vec::new());
    &MESHES
}

/// The symbol `@…` programs use for `mesh`.
pub(crate) fn mesh_symbol(mesh: &Mesh) -> String {
    let mut meshes = registry().lock().unwrap_or_else(|p| p.into_inner());
    let i = match meshes.iter().position(|m| m == mesh) {
        Some(i) => i,
        None => {
            meshes.push(mesh.clone());
            meshes.len() - 1
        }
    };
    if i == 0 {
        "mesh".to_string()
    } else {
        format!("mesh_{i}")
    }
}

fn mesh_of_symbol(symbol: &str) -> Option<Mesh> {
    let meshes = registry().lock().unwrap_or_else(|p| p.into_inner());
    let i = match symbol {
        "mesh" => 0,
        s => s.strip_prefix("mesh_")?.parse().ok()?,
    };
    meshes.get(i).cloned()
}

/// Every op of `ops`, nested regions included.
fn walk<'a>(ops: &'a [Op], visit: &mut dyn FnMut(&'a Op)) {
    for op in ops {
        visit(op);
        for r in &op.regions {
            for b in &r.blocks {
                walk(&b.ops, visit);
            }
        }
    }
}

/// The symbol of the one mesh of an annotated module, whatever the registry calls it (JAX's
/// modules name their mesh `@mesh` too).
const MODULE_MESH: &str = "mesh";

/// Every Shardy sharding of `ops` (nested regions included) named on mesh `to`.
fn rename_mesh(ops: &mut [Op], to: &str) {
    for op in ops {
        match &mut op.kind {
            OpKind::ShardingConstraint(s) => s.mesh = to.to_string(),
            OpKind::ManualComputation(m) => {
                for s in m.in_shardings.iter_mut().chain(m.out_shardings.iter_mut()) {
                    s.mesh = to.to_string();
                }
            }
            _ => {}
        }
        for r in &mut op.regions {
            for b in &mut r.blocks {
                rename_mesh(&mut b.ops, to);
            }
        }
    }
}

/// The mesh of the manual computations and sharding constraints in `func`, if it has any;
/// an error when they use different meshes.
pub(crate) fn program_mesh(func: &Func) -> Result<Option<Mesh>> {
    let mut symbols: Vec<String> = vec![];
    let mut note = |s: &SdySharding| {
        if !symbols.contains(&s.mesh) {
            symbols.push(s.mesh.clone());
        }
    };
    for b in &func.body.blocks {
        walk(&b.ops, &mut |op| match &op.kind {
            OpKind::ManualComputation(m) => {
                m.in_shardings
                    .iter()
                    .chain(&m.out_shardings)
                    .for_each(&mut note);
            }
            OpKind::ShardingConstraint(s) => note(s),
            _ => {}
        });
    }
    match symbols.as_slice() {
        [] => Ok(None),
        [one] => mesh_of_symbol(one)
            .map(Some)
            .ok_or_else(|| Error::Trace(format!("unknown mesh @{one}"))),
        many => Err(Error::op(
            "jit",
            format!(
                "one program uses {} different meshes ({}); use one mesh per jitted function",
                many.len(),
                many.join(", ")
            ),
        )),
    }
}

fn spec_of(s: &SdySharding) -> PartitionSpec {
    PartitionSpec::new(
        s.dims
            .iter()
            .map(|d| d.axes.iter().map(|a| a.name.clone()).collect())
            .collect(),
    )
}

/// What a caller asks of a program's signature. Empty lists ask nothing.
#[derive(Default)]
pub(crate) struct Boundary {
    /// Per parameter (arguments, then captures): the sharding it must take.
    pub(crate) ins: Vec<Option<NamedSharding>>,
    /// Per result: the sharding it must come out with.
    pub(crate) outs: Vec<Option<NamedSharding>>,
    /// Per parameter, how errors name it (`` `args[0]` ``).
    pub(crate) in_names: Vec<String>,
    /// Per result, how errors name it.
    pub(crate) out_names: Vec<String>,
    /// Who asks (`jit(f)`), for errors.
    pub(crate) label: String,
}

impl Boundary {
    fn label(&self) -> &str {
        if self.label.is_empty() {
            "jit"
        } else {
            &self.label
        }
    }

    fn in_name(&self, i: usize) -> String {
        self.in_names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("argument {i}"))
    }

    fn out_name(&self, k: usize) -> String {
        self.out_names
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("result {k}"))
    }

    /// True when the caller asks for some sharding.
    pub(crate) fn asks(&self) -> bool {
        self.ins.iter().chain(&self.outs).any(Option::is_some)
    }
}

/// A global program annotated for its mesh.
pub(crate) struct Annotated {
    /// The module: `sdy.mesh`, `mhlo.num_partitions`, the entry `@main` with its shardings.
    pub(crate) module: Module,
    pub(crate) mesh: Mesh,
    /// Per result, the sharding settled before partitioning (asked for, or a manual
    /// computation's out-sharding).
    outs: Vec<Option<NamedSharding>>,
}

/// The mesh `func` runs on, from its ops, then the shardings asked for, then the sharded
/// arguments (the first one's mesh); `None` when nothing shards it. Meshes of the ops and of
/// the shardings asked for must agree.
fn the_mesh(func: &Func, args: &[Array], boundary: &Boundary) -> Result<Option<Mesh>> {
    let mut mesh = program_mesh(func)?;
    for s in boundary.ins.iter().chain(&boundary.outs).flatten() {
        match &mesh {
            None => mesh = Some(s.mesh().clone()),
            Some(m) if m != s.mesh() => {
                return Err(Error::op(
                    boundary.label(),
                    format!(
                        "the shardings name two meshes, {m} and {}; use one mesh per jitted \
                         function",
                        s.mesh()
                    ),
                ));
            }
            Some(_) => {}
        }
    }
    if mesh.is_none() {
        mesh = args
            .iter()
            .find_map(|a| a.sharding())
            .map(|s| s.mesh().clone());
    }
    Ok(mesh)
}

/// JAX's rule for an argument `a` (named `name`) that is already sharded: it must be laid out
/// as `asked`, or the caller `device_put`s it first.
pub(crate) fn check_committed(
    label: &str,
    name: &str,
    a: &Array,
    asked: &NamedSharding,
) -> Result<()> {
    match a.sharding() {
        Some(own) if !own.same_layout(asked, a.dims()) => Err(Error::op(
            label,
            format!(
                "the sharding passed to jit does not match the sharding of argument {name} \
                 ({}): jit sharding {asked}, argument sharding {own}; device_put the argument \
                 to the jit sharding first",
                describe(a.aval())
            ),
        )),
        _ => Ok(()),
    }
}

/// `func` (a global program) annotated for its mesh as the module docs say, or `None` when
/// nothing shards it. Errors name the argument or result whose sharding does not fit: a rank
/// the spec does not have, a dimension its axes do not divide, a committed sharded argument
/// laid out otherwise than asked (JAX's rule: `device_put` it first).
pub(crate) fn annotate(
    func: &Func,
    args: &[Array],
    boundary: &Boundary,
) -> Result<Option<Annotated>> {
    let Some(mesh) = the_mesh(func, args, boundary)? else {
        return Ok(None);
    };
    let label = boundary.label();
    let symbol = MODULE_MESH;
    let mut entry = func.clone();
    entry.name = "main".into();
    for b in &mut entry.body.blocks {
        rename_mesh(&mut b.ops, symbol);
    }
    let params = entry.params();
    entry.arg_attrs = vec![vec![]; params.len()];
    for (i, a) in args.iter().enumerate() {
        let own = a.sharding().filter(|s| s.mesh() == &mesh);
        let asked = boundary.ins.get(i).cloned().flatten();
        let what = || {
            format!(
                "{label} argument {} ({})",
                boundary.in_name(i),
                describe(a.aval())
            )
        };
        let s = match (asked, own) {
            (Some(s), _) => {
                s.check_shape(a.dims(), &what())?;
                check_committed(label, &boundary.in_name(i), a, &s)?;
                s
            }
            (None, Some(o)) => o,
            (None, None) => continue,
        };
        if let Some(attrs) = entry.arg_attrs.get_mut(i) {
            attrs.push(NamedAttr {
                name: "sdy.sharding".into(),
                value: Attribute::SdySharding(s.to_sdy_on(symbol, a.rank())),
            });
        }
    }
    // Results made by a manual computation keep its out-sharding.
    let mut made_by: HashMap<ValueId, SdySharding> = HashMap::new();
    if let Some(b) = entry.body.blocks.first() {
        for op in &b.ops {
            if let OpKind::ManualComputation(m) = &op.kind {
                for (r, s) in op.results.iter().zip(&m.out_shardings) {
                    made_by.insert(*r, s.clone());
                }
            }
        }
    }
    let returned: Vec<ValueId> = entry
        .body
        .blocks
        .first()
        .and_then(|b| b.ops.last())
        .map(|r| r.operands.clone())
        .unwrap_or_default();
    entry.result_attrs = vec![vec![]; returned.len()];
    let mut outs = vec![];
    for (k, v) in returned.iter().enumerate() {
        let ty = match entry.value_type(*v) {
            Type::Tensor(t) => t.clone(),
            other => return Err(Error::Trace(format!("a result of type {other}"))),
        };
        let asked = boundary.outs.get(k).cloned().flatten();
        let s = match (asked, made_by.get(v)) {
            (Some(s), _) => {
                let what = format!(
                    "{label} result {} ({})",
                    boundary.out_name(k),
                    describe(&ty)
                );
                s.check_shape(&ty.shape, &what)?;
                Some(s)
            }
            (None, Some(sdy)) => Some(NamedSharding::new(&mesh, spec_of(sdy))?),
            (None, None) => None,
        };
        if let Some(s) = &s {
            entry.result_attrs[k].push(NamedAttr {
                name: "sdy.sharding".into(),
                value: Attribute::SdySharding(s.to_sdy_on(symbol, ty.shape.len())),
            });
        }
        outs.push(s);
    }
    let module = Module {
        name: Some(format!("jit_{}", func.name)),
        attrs: vec![
            NamedAttr {
                name: "mhlo.num_partitions".into(),
                value: Attribute::Int(mesh.size() as i64, Some(i32_type())),
            },
            NamedAttr {
                name: "mhlo.num_replicas".into(),
                value: Attribute::Int(1, Some(i32_type())),
            },
        ],
        meshes: vec![NamedSharding::sdy_mesh(&mesh, symbol)],
        funcs: vec![entry],
        ..Module::default()
    };
    Ok(Some(Annotated { module, mesh, outs }))
}

/// The per-device program of an annotated module: manual computations lowered, or the
/// program partitioned; on a mesh of one device, the program itself.
fn per_device(a: &Annotated, label: &str) -> Result<SpmdModule> {
    let fail = |e: String| Error::op(label, e);
    // `per_device_program` chooses: all-manual shard_maps are lowered, partly manual ones
    // (`axis_names`) and jit shardings partitioned.
    let spmd = per_device_program(&a.module, "main").map_err(fail)?;
    if let Some(spmd) = spmd {
        return Ok(spmd);
    }
    let entry = a
        .module
        .funcs
        .first()
        .ok_or_else(|| Error::Trace("the program has no function".into()))?;
    let layout = |t: &Type| ShardLayout::replicated(t.as_tensor().map_or(&[], |t| &t.shape), 1);
    Ok(SpmdModule {
        params: entry
            .params()
            .iter()
            .map(|&p| layout(entry.value_type(p)))
            .collect(),
        results: entry.result_types.iter().map(layout).collect(),
        module: a.module.clone(),
        num_devices: 1,
        warnings: vec![],
    })
}

/// A global program compiled for the devices of its mesh.
pub(crate) struct SpmdProgram {
    mesh: Mesh,
    exe: SpmdExecutable,
    /// How each argument is split over the devices.
    params: Vec<ShardLayout>,
    /// Each result's global type and sharding.
    results: Vec<(TensorType, NamedSharding)>,
    /// The per-device program, kept to be shown.
    per_device: Box<Module>,
    /// What the partitioner noticed (involuntary full rematerializations).
    warnings: Vec<String>,
}

impl SpmdProgram {
    /// Compiles `func` (a global program with manual computations) for `args`: arguments that
    /// are sharded over the program's mesh keep their layout.
    pub(crate) fn compile(func: &Func, args: &[Array]) -> Result<SpmdProgram> {
        SpmdProgram::compile_with(func, args, &Boundary::default())
    }

    /// Compiles `func` for `args` with the shardings `boundary` asks for; see the module docs.
    pub(crate) fn compile_with(
        func: &Func,
        args: &[Array],
        boundary: &Boundary,
    ) -> Result<SpmdProgram> {
        let mut annotated = annotate(func, args, boundary)?
            .ok_or_else(|| Error::Trace("the program is not sharded over a mesh".into()))?;
        let label = boundary.label();
        // At most one retry: results whose layout no PartitionSpec says (or whose pieces are
        // uneven) come out replicated.
        let (spmd, results) = loop {
            let spmd = per_device(&annotated, label)?;
            let entry = annotated
                .module
                .funcs
                .first_mut()
                .ok_or_else(|| Error::Trace("the program has no function".into()))?;
            let mut results = vec![];
            let mut unsayable = vec![];
            for (k, t) in entry.result_types.iter().enumerate() {
                let ty = match t {
                    Type::Tensor(t) => t.clone(),
                    other => return Err(Error::Trace(format!("a result of type {other}"))),
                };
                let settled = annotated.outs.get(k).cloned().flatten();
                let s = settled.or_else(|| {
                    spmd.results
                        .get(k)
                        .and_then(|l| NamedSharding::from_layout(&annotated.mesh, l))
                        // Uneven pieces come out replicated, as in JAX.
                        .filter(|s| s.check_shape(&ty.shape, "a result").is_ok())
                });
                match s {
                    Some(s) => results.push((ty, s)),
                    None => unsayable.push((k, ty.shape.len())),
                }
            }
            if unsayable.is_empty() {
                // XLA's "involuntary full rematerialization" warnings, with the op and place.
                for w in &spmd.warnings {
                    eprintln!("{label}: warning: {w}");
                }
                break (spmd, results);
            }
            let symbol = MODULE_MESH;
            let replicated = NamedSharding::replicated(&annotated.mesh);
            for (k, rank) in unsayable {
                if annotated.outs.get(k).is_some_and(Option::is_some) {
                    return Err(Error::Trace(format!(
                        "{label}: result {k} was laid out twice"
                    )));
                }
                entry.result_attrs[k].push(NamedAttr {
                    name: "sdy.sharding".into(),
                    value: Attribute::SdySharding(replicated.to_sdy_on(symbol, rank)),
                });
                annotated.outs[k] = Some(replicated.clone());
            }
        };
        let exe = client().compile_spmd(
            &spmd.module,
            annotated.mesh.devices(),
            &CompileOptions::no_disk_cache(),
        )?;
        Ok(SpmdProgram {
            mesh: annotated.mesh,
            exe,
            params: spmd.params,
            results,
            per_device: Box::new(spmd.module),
            warnings: spmd.warnings,
        })
    }

    /// See [`super::CompiledSpmd::as_text`].
    pub(crate) fn per_device_text(&self) -> String {
        systolic_ir::text::print_module(&self.per_device)
    }

    /// See [`super::CompiledSpmd::warnings`].
    pub(crate) fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// See [`super::CompiledSpmd::peak_memory_bytes`].
    pub(crate) fn peak_memory_bytes(&self) -> u64 {
        self.exe.peak_memory_bytes()
    }

    /// See [`super::CompiledSpmd::modelled_step_s`].
    pub(crate) fn modelled_step_s(&self) -> Option<f64> {
        self.exe.tpu_cost().map(|c| c.step_time_s())
    }

    /// The mesh's devices.
    pub(crate) fn devices(&self) -> &[systolic_runtime::Device] {
        self.mesh.devices()
    }

    /// Runs the program on `args` (asynchronously: the results are sharded arrays whose pieces
    /// are still being computed).
    pub(crate) fn execute(&self, label: &str, args: Vec<Array>, out_weak: &[bool]) -> Vec<Array> {
        let n = self.mesh.size();
        let nout = self.results.len();
        let exe = self.exe.clone();
        let params = self.params.clone();
        let devices = self.mesh.devices().to_vec();
        let slots = dispatch::submit_named(label, n * nout, move || {
            // per_device[d][i]: argument i's piece on device d.
            let mut per_device: Vec<Vec<Buffer>> = vec![Vec::with_capacity(args.len()); n];
            for (a, layout) in args.iter().zip(&params) {
                let pieces = device_pieces(a, layout, &devices)?;
                for (d, p) in pieces.into_iter().enumerate() {
                    per_device[d].push(p);
                }
            }
            let refs: Vec<Vec<&Buffer>> = per_device.iter().map(|v| v.iter().collect()).collect();
            let outs = exe.execute(&refs)?;
            // Result k of device d goes to slot k * n + d.
            let mut flat = Vec::with_capacity(n * nout);
            for k in 0..nout {
                for d in outs.iter() {
                    flat.push(
                        d.get(k).cloned().ok_or_else(|| {
                            Error::Runtime("a device made too few results".into())
                        })?,
                    );
                }
            }
            Ok(flat)
        });
        let local_types = self.exe.result_types().to_vec();
        let mut slots = slots.into_iter();
        self.results
            .iter()
            .enumerate()
            .map(|(k, (ty, sharding))| {
                let local = local_types
                    .get(k)
                    .and_then(|t| t.as_tensor().cloned())
                    .unwrap_or_else(|| ty.clone());
                let weak = out_weak.get(k).copied().unwrap_or(false);
                let pieces: Vec<Array> = self
                    .mesh
                    .devices()
                    .iter()
                    .map(|&d| {
                        let p = slots.next().expect("one slot per device and result");
                        Array::make(local.clone(), weak, d, Repr::Pending(p))
                    })
                    .collect();
                from_pieces(ty.clone(), weak, sharding.clone(), pieces)
            })
            .collect()
    }
}

/// Argument `a`'s piece for every device: a sharded array laid out as the program wants hands
/// over its pieces; anything else is split on the host.
fn device_pieces(
    a: &Array,
    layout: &ShardLayout,
    devices: &[systolic_runtime::Device],
) -> Result<Vec<Buffer>> {
    if let Repr::Sharded(s) = &a.inner.repr
        && s.sharding.mesh().devices() == devices
        && s.sharding.matches(layout)
    {
        return s.pieces.iter().map(Array::buffer_of_call).collect();
    }
    let host = a.buffer_of_call()?.to_cpu_buffer()?;
    let pieces = systolic_cpu::shards::split(&host, layout).map_err(Error::Host)?;
    pieces
        .into_iter()
        .zip(devices)
        .map(|(p, &d)| Ok(client().buffer_from_host(p, d)?))
        .collect()
}

/// The type of `: i32` module attributes.
fn i32_type() -> Type {
    Type::tensor(vec![], systolic_ir::DType::I32)
}
