//! Running a global program that holds `sdy.manual_computation`s (staged by
//! [`shard_map`](crate::shard_map)) on the devices of its mesh.
//!
//! The program's mesh is found from the manual computations' shardings (each mesh the front end
//! stages gets a symbol of its own, [`mesh_symbol`]); the entry's arguments are annotated with
//! the shardings of the sharded arrays passed to it (so their pieces go straight to their
//! devices) and its results with the out-shardings of the manual computations that make them
//! (so they stay sharded). `lower_manual_computations` turns that into the per-device program,
//! and the runtime compiles it for the mesh's devices (cached like any executable).

use crate::array::{Array, Repr};
use crate::core::dispatch;
use crate::device::client;
use crate::error::{Error, Result};
use crate::sharding::{from_pieces, Mesh, NamedSharding, PartitionSpec};
use std::collections::HashMap;
use std::sync::Mutex;
use systolic_compiler::passes::lower_manual_computations::lower_manual_computations;
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

/// The mesh of the manual computations in `func`, if it has any; an error when they use
/// different meshes.
pub(crate) fn program_mesh(func: &Func) -> Result<Option<Mesh>> {
    let mut symbols: Vec<String> = vec![];
    for b in &func.body.blocks {
        walk(&b.ops, &mut |op| {
            if let OpKind::ManualComputation(m) = &op.kind {
                for s in m.in_shardings.iter().chain(&m.out_shardings) {
                    if !symbols.contains(&s.mesh) {
                        symbols.push(s.mesh.clone());
                    }
                }
            }
        });
    }
    match symbols.as_slice() {
        [] => Ok(None),
        [one] => mesh_of_symbol(one)
            .map(Some)
            .ok_or_else(|| Error::Trace(format!("unknown mesh @{one}"))),
        many => Err(Error::op(
            "shard_map",
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

/// A global program compiled for the devices of its mesh.
pub(crate) struct SpmdProgram {
    mesh: Mesh,
    exe: SpmdExecutable,
    /// How each argument is split over the devices, and its sharding when a sharded array
    /// laid out so can hand over its pieces as they are.
    params: Vec<(ShardLayout, NamedSharding)>,
    /// Each result's global type and sharding.
    results: Vec<(TensorType, NamedSharding)>,
}

impl SpmdProgram {
    /// Compiles `func` (a global program with manual computations) for `args`: arguments that
    /// are sharded over the program's mesh keep their layout.
    pub(crate) fn compile(func: &Func, args: &[Array]) -> Result<SpmdProgram> {
        let mesh = program_mesh(func)?
            .ok_or_else(|| Error::Trace("the program has no shard_map".into()))?;
        let symbol = mesh_symbol(&mesh);
        let mut entry = func.clone();
        entry.name = "main".into();
        let params = entry.params();
        entry.arg_attrs = vec![vec![]; params.len()];
        let mut param_shardings = vec![];
        for (i, a) in args.iter().enumerate() {
            let s = match a.sharding() {
                Some(s) if s.mesh() == &mesh => s,
                _ => NamedSharding::replicated(&mesh),
            };
            if !s.is_fully_replicated() {
                entry.arg_attrs[i].push(NamedAttr {
                    name: "sdy.sharding".into(),
                    value: Attribute::SdySharding(s.to_sdy_on(&symbol, a.ndim())),
                });
            }
            param_shardings.push(s);
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
        let mut results = vec![];
        for (k, v) in returned.iter().enumerate() {
            let ty = match entry.value_type(*v) {
                Type::Tensor(t) => t.clone(),
                other => return Err(Error::Trace(format!("a result of type {other}"))),
            };
            let s = match made_by.get(v) {
                Some(sdy) => {
                    entry.result_attrs[k].push(NamedAttr {
                        name: "sdy.sharding".into(),
                        value: Attribute::SdySharding(sdy.clone()),
                    });
                    NamedSharding::new(&mesh, spec_of(sdy))?
                }
                None => NamedSharding::replicated(&mesh),
            };
            results.push((ty, s));
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
            meshes: vec![NamedSharding::sdy_mesh(&mesh, &symbol)],
            funcs: vec![entry],
            ..Module::default()
        };
        let lowered = lower_manual_computations(&module, "main")
            .map_err(|e| Error::op("shard_map", e.to_string()))?;
        let exe = client().compile_spmd(
            &lowered.module,
            mesh.devices(),
            &CompileOptions::no_disk_cache(),
        )?;
        let params = lowered.params.into_iter().zip(param_shardings).collect();
        Ok(SpmdProgram {
            mesh,
            exe,
            params,
            results,
        })
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
            for (a, (layout, sharding)) in args.iter().zip(&params) {
                let pieces = device_pieces(a, layout, sharding, &devices)?;
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
    sharding: &NamedSharding,
    devices: &[systolic_runtime::Device],
) -> Result<Vec<Buffer>> {
    if let Repr::Sharded(s) = &a.inner.repr
        && &s.sharding == sharding
    {
        return s.pieces.iter().map(Array::buffer).collect();
    }
    let host = a.buffer()?.to_cpu_buffer()?;
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
