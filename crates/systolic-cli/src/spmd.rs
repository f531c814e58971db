//! `systolic run` on several host devices: a module whose `mhlo.num_partitions` (or
//! `mhlo.num_replicas`) is above 1 runs as one process per device, compiled with
//! [`systolic_cpu::compile_spmd`] or interpreted with [`systolic_interp::run_programs`] (the
//! oracle).
//!
//! Inputs are global arrays: each is split into per-device pieces by its entry argument's
//! sharding (`mhlo.sharding`, or `sdy.sharding` on the module's mesh; replicated without one),
//! and each output is assembled from the devices' results by the result's sharding
//! ([`systolic_ir::ShardLayout`]; of copies, the lowest device's, with a note when copies that
//! should agree do not).
//!
//! Which device a sharding's ids name: the partition when `num_partitions > 1` (XLA's SPMD
//! partitions; every replica then gets the same pieces, and results are taken from replica 0),
//! else the replica.
//!
//! Four program forms run:
//! - **per-device** programs, whose entry already takes and returns each device's piece: the
//!   sharding says how the pieces make the global array (its shape: the input's; for results,
//!   the piece's times the tiles). A program with `mhlo.sharding`s is read so when it holds a
//!   collective, `partition_id` or `replica_id` (a global program never does);
//! - **JAX's shard_map** exported without Shardy (`jax_use_shardy_partitioner=False`): the entry
//!   takes global arrays and crosses into the manual body through `custom_call @Sharding` +
//!   `@SPMDFullToShardShape`, and back through `@Sharding {manual}` + `@SPMDShardToFullShape`.
//!   When those calls sit directly on the entry's arguments and results, the entry is the
//!   per-device program with its boundary calls removed ([`localize`]), and the types they had
//!   are the global shapes. Anything else global in this form is an error saying so (the SPMD
//!   partitioner reads the Shardy form);
//! - **Shardy programs** (JAX's default export; an `sdy.mesh` in the module): the compiler's
//!   [`per_device_program`] makes the per-device program — shard_map's
//!   `sdy.manual_computation`s lowered by `lower_manual_computations`, automatic shardings
//!   (`jax.jit(f, in_shardings=…, out_shardings=…)`, `with_sharding_constraint`) propagated and
//!   partitioned by the SPMD partitioner — on as many devices as the mesh has, and says which
//!   piece of each global argument and result every device holds ([`Sharding::Layout`]). With
//!   `--dump-dir` the global program annotated with its propagated shardings and the
//!   per-device program are written next to the compiler's pass dumps ([`dump_partitioning`]);
//! - **global GSPMD programs** (`jax.jit` with shardings exported with
//!   `jax_use_shardy_partitioner=False`: `mhlo.sharding`s, `custom_call @Sharding`
//!   constraints, no shard_map markers, no collectives): [`per_device_program`] imports the
//!   shardings as Shardy's and partitions them as above.

use crate::backend::{
    located_error, no_compiler_options_for_interpreter, Backend, Executable, PrepareOptions,
};
use crate::error::CliError;
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;
use systolic_compiler::passes::import_gspmd::{has_gspmd_shardings, import_gspmd_shardings};
use systolic_compiler::passes::{per_device_program, propagate_shardings, Inline};
use systolic_compiler::Pass;
use systolic_cpu::shards::{copy_block, element_bytes};
use systolic_cpu::CpuBuffer;
use systolic_interp::Value;
use systolic_ir::{
    Attribute, HloSharding, Module, OpFamily, OpKind, ProcessGrid, Region, SdySharding,
    ShardLayout, TensorType, Type, ValueId,
};

/// How one argument or result is laid out over the devices.
#[derive(Clone, Debug)]
pub struct Slot {
    /// Each device's piece (the entry's type after [`localize`]).
    pub local: TensorType,
    /// The global type, when the program states it (the shard_map form).
    pub global: Option<TensorType>,
    /// The sharding (replicated without one).
    pub sharding: Sharding,
}

/// A sharding as the program wrote it.
#[derive(Clone, Debug)]
pub enum Sharding {
    /// `mhlo.sharding`, or none (replicated).
    Hlo(HloSharding),
    /// `sdy.sharding` on one of the module's meshes.
    Sdy(SdySharding),
    /// The pieces the compiler chose (for a Shardy program, whose per-device form
    /// [`per_device_program`] made), of the global shape.
    Layout(ShardLayout),
}

/// A module ready to run on several devices, and how its arguments and results are split.
#[derive(Debug)]
pub struct SpmdPlan {
    /// Replicas × partitions.
    pub grid: ProcessGrid,
    /// The module, its entry per device.
    pub module: Module,
    /// The entry function.
    pub entry: String,
    /// The entry's parameters.
    pub params: Vec<Slot>,
    /// The entry's results.
    pub results: Vec<Slot>,
    /// The global program the compiler partitioned (what `--dump-dir` shows propagated).
    pub global: Option<Module>,
    /// What the partitioner warns of (arrays gathered whole onto every device, with the op
    /// and where it is); `systolic run` prints them.
    pub warnings: Vec<String>,
}

/// The grid a module asks for: `mhlo.num_replicas` × `mhlo.num_partitions` (1 when absent).
pub fn module_grid(module: &Module) -> Result<ProcessGrid, CliError> {
    let count = |name: &str| -> Result<u32, CliError> {
        match module.attrs.iter().find(|a| a.name == name) {
            None => Ok(1),
            Some(a) => match a.value {
                Attribute::Int(n, _) if (1..=4096).contains(&n) => Ok(n as u32),
                ref other => Err(CliError::msg(format!(
                    "the module's {name} is {other:?}; expected a count from 1 to 4096"
                ))),
            },
        }
    };
    Ok(ProcessGrid::new(
        count("mhlo.num_replicas")?,
        count("mhlo.num_partitions")?,
    ))
}

impl SpmdPlan {
    /// The plan for `entry` of `module`, or `None` for a single-device module.
    pub fn new(module: &Module, entry: &str, file: &str) -> Result<Option<SpmdPlan>, CliError> {
        let located = |m: String| CliError::msg(format!("{file}: @{entry}: {m}"));
        if !module.meshes.is_empty() || is_global_gspmd(module, entry) {
            return Self::compiled(module, entry, file);
        }
        let grid = module_grid(module)?;
        if grid.len() <= 1 {
            return Ok(None);
        }
        let mut module = module.clone();
        let (param_globals, result_globals) = localize(&mut module, entry).map_err(located)?;
        if let Err(diags) = systolic_ir::verify::verify_module(&module) {
            let first = diags.first().map(|d| d.to_string()).unwrap_or_default();
            return Err(CliError::msg(format!(
                "{file}: the per-device form of @{entry} does not verify: {first}"
            )));
        }
        let func = module.func(entry).expect("localize found it");
        let tensor = |what: &str, i: usize, ty: &Type| match ty {
            Type::Tensor(t) => Ok(t.clone()),
            other => Err(CliError::msg(format!(
                "{file}: {what} {i} of @{entry} has type {other}; only tensors run on several \
                 devices"
            ))),
        };
        let sharding_of = |attrs: &[systolic_ir::NamedAttr]| {
            attrs
                .iter()
                .find_map(|a| match &a.value {
                    Attribute::HloSharding(s) => Some(Sharding::Hlo(s.clone())),
                    Attribute::SdySharding(s) => Some(Sharding::Sdy(s.clone())),
                    _ => None,
                })
                .unwrap_or(Sharding::Hlo(HloSharding::Replicated))
        };
        let params = func
            .param_types()
            .iter()
            .enumerate()
            .map(|(i, ty)| {
                Ok(Slot {
                    local: tensor("parameter", i, ty)?,
                    global: param_globals[i].clone(),
                    sharding: sharding_of(func.arg_attrs.get(i).map_or(&[], |a| a)),
                })
            })
            .collect::<Result<Vec<_>, CliError>>()?;
        let results = func
            .result_types
            .iter()
            .enumerate()
            .map(|(i, ty)| {
                Ok(Slot {
                    local: tensor("result", i, ty)?,
                    global: result_globals[i].clone(),
                    sharding: sharding_of(func.result_attrs.get(i).map_or(&[], |a| a)),
                })
            })
            .collect::<Result<Vec<_>, CliError>>()?;
        Ok(Some(SpmdPlan {
            grid,
            entry: entry.to_string(),
            module,
            params,
            results,
            global: None,
            warnings: vec![],
        }))
    }

    /// The plan of a global program (Shardy, or GSPMD without shard_map markers): the
    /// compiler's per-device form and its layouts.
    fn compiled(module: &Module, entry: &str, file: &str) -> Result<Option<SpmdPlan>, CliError> {
        let located = |m: String| CliError::msg(format!("{file}: @{entry}: {m}"));
        let Some(spmd) = per_device_program(module, entry).map_err(located)? else {
            return Ok(None);
        };
        if let Err(diags) = systolic_ir::verify::verify_module(&spmd.module) {
            let first = diags.first().map(|d| d.to_string()).unwrap_or_default();
            return Err(located(format!(
                "internal: the per-device form does not verify: {first}"
            )));
        }
        let devices = u32::try_from(spmd.num_devices)
            .map_err(|_| located(format!("{} devices", spmd.num_devices)))?;
        let global = module.func(entry).expect("per_device_program found it");
        let func = spmd
            .module
            .func(entry)
            .ok_or_else(|| located("the per-device program has no entry".into()))?;
        let slots = |what: &str,
                     globals: &[Type],
                     locals: &[Type],
                     layouts: &[ShardLayout]|
         -> Result<Vec<Slot>, CliError> {
            if globals.len() != layouts.len() || locals.len() != layouts.len() {
                return Err(located(format!(
                    "internal: {} {what}s, {} per device, {} layouts",
                    globals.len(),
                    locals.len(),
                    layouts.len()
                )));
            }
            globals
                .iter()
                .zip(locals)
                .zip(layouts)
                .enumerate()
                .map(|(i, ((g, l), layout))| match (g, l) {
                    (Type::Tensor(g), Type::Tensor(l)) => Ok(Slot {
                        local: l.clone(),
                        global: Some(g.clone()),
                        sharding: Sharding::Layout(layout.clone()),
                    }),
                    _ => Err(located(format!(
                        "{what} {i} has type {g}; only tensors run on several devices"
                    ))),
                })
                .collect()
        };
        let params = slots(
            "parameter",
            &global.param_types(),
            &func.param_types(),
            &spmd.params,
        )?;
        let results = slots(
            "result",
            &global.result_types,
            &func.result_types,
            &spmd.results,
        )?;
        Ok(Some(SpmdPlan {
            grid: ProcessGrid::new(1, devices),
            entry: entry.to_string(),
            module: spmd.module,
            params,
            results,
            global: Some(module.clone()),
            warnings: spmd.warnings,
        }))
    }

    /// The number of devices (processes).
    pub fn devices(&self) -> usize {
        self.grid.len()
    }

    /// How many devices the shardings' ids count: the partitions, or the replicas when there is
    /// one partition.
    fn logical_devices(&self) -> usize {
        if self.grid.partitions > 1 {
            self.grid.partitions as usize
        } else {
            self.grid.replicas as usize
        }
    }

    /// The logical device (sharding id) of process `p` (flat, replica-major).
    fn logical_device(&self, p: usize) -> usize {
        if self.grid.partitions > 1 {
            p % self.grid.partitions as usize
        } else {
            p
        }
    }

    /// The processes results are taken from (replica 0 when there are partitions), per
    /// logical device.
    fn source_process(&self, device: usize) -> usize {
        device
    }

    fn layout(&self, sharding: &Sharding, shape: &[i64]) -> Result<ShardLayout, String> {
        let result = match sharding {
            Sharding::Layout(layout) if layout.shape() == shape => Ok(layout.clone()),
            Sharding::Layout(layout) => {
                return Err(format!(
                    "the program lays out arrays of shape {:?}, not {shape:?}",
                    layout.shape()
                ))
            }
            Sharding::Hlo(s) => ShardLayout::from_hlo(s, shape, self.logical_devices()),
            Sharding::Sdy(s) => {
                let mesh = self
                    .module
                    .meshes
                    .iter()
                    .find(|m| m.name == s.mesh)
                    .ok_or_else(|| format!("no sdy.mesh @{} in the module", s.mesh))?;
                let layout = ShardLayout::from_sdy(s, mesh, shape);
                if let Ok(l) = &layout {
                    if l.num_devices() != self.logical_devices() {
                        return Err(format!(
                            "mesh @{} has {} devices, the module runs on {}",
                            mesh.name,
                            l.num_devices(),
                            self.logical_devices()
                        ));
                    }
                }
                layout
            }
        };
        result.map_err(|e| e.to_string())
    }

    /// The type each input file must have: the global type when known, else the piece's
    /// dtype with the shape the file gives.
    pub fn check_input(&self, i: usize, file: &str, ty: &TensorType) -> Result<(), CliError> {
        let slot = &self.params[i];
        let entry = &self.entry;
        if let Some(global) = &slot.global {
            return crate::inputs::check_input(i, file, ty, global, entry);
        }
        if ty.dtype != slot.local.dtype {
            return Err(CliError::msg(format!(
                "input {i} ({file}): @{entry} takes pieces of {} on each device, got {ty} \
                 (dtype differs)",
                slot.local
            )));
        }
        Ok(())
    }

    /// Splits global inputs into each process's arguments (replica-major process order).
    pub fn split(&self, inputs: &[CpuBuffer]) -> Result<Vec<Vec<CpuBuffer>>, CliError> {
        let mut per_process = vec![Vec::with_capacity(inputs.len()); self.devices()];
        for (i, (input, slot)) in inputs.iter().zip(&self.params).enumerate() {
            let layout = self
                .layout(&slot.sharding, input.shape())
                .map_err(|m| CliError::msg(format!("input {i} ({}): {m}", input.ty())))?;
            if layout.shard_shape() != slot.local.shape {
                return Err(CliError::msg(format!(
                    "input {i}: its pieces under {} are {:?}, but @{} takes {} on each device{}",
                    sharding_text(&slot.sharding),
                    layout.shard_shape(),
                    self.entry,
                    slot.local,
                    if slot.local.shape == input.shape() && layout.tiles().iter().any(|&t| t > 1) {
                        " (the program looks unpartitioned: it takes the global array; running \
                         it needs the SPMD partitioner, which reads the Shardy form, JAX's \
                         default export, not this one)"
                    } else {
                        ""
                    }
                )));
            }
            let bytes = input.to_le_bytes();
            let esize = element_bytes(input, &bytes);
            let mut pieces = Vec::with_capacity(self.logical_devices());
            for d in 0..self.logical_devices() {
                let mut out = vec![0u8; slot.local.num_elements() * esize];
                if let Some(ranges) = layout.piece(d) {
                    let origin: Vec<i64> = ranges.iter().map(|r| r.start).collect();
                    let extent: Vec<i64> = ranges.iter().map(|r| r.end - r.start).collect();
                    copy_block(
                        (&bytes, input.shape(), &origin),
                        (&mut out, &slot.local.shape, &vec![0; extent.len()]),
                        &extent,
                        esize,
                    );
                }
                pieces.push(
                    CpuBuffer::from_le_bytes(slot.local.clone(), &out)
                        .map_err(|e| CliError::msg(format!("input {i}: {e}")))?,
                );
            }
            for (p, args) in per_process.iter_mut().enumerate() {
                args.push(pieces[self.logical_device(p)].clone());
            }
        }
        Ok(per_process)
    }

    /// Assembles each global result from the processes' results; the notes say where copies
    /// that should agree differ.
    pub fn assemble(
        &self,
        results: &[Vec<CpuBuffer>],
    ) -> Result<(Vec<CpuBuffer>, Vec<String>), CliError> {
        let mut notes = vec![];
        let mut out = vec![];
        for (i, slot) in self.results.iter().enumerate() {
            let global = match &slot.global {
                Some(g) => g.shape.clone(),
                None => {
                    let tiles = self
                        .layout(&slot.sharding, &slot.local.shape)
                        .map_err(|m| CliError::msg(format!("result {i}: {m}")))?;
                    slot.local
                        .shape
                        .iter()
                        .zip(tiles.tiles())
                        .map(|(n, t)| n * t)
                        .collect()
                }
            };
            let layout = self
                .layout(&slot.sharding, &global)
                .map_err(|m| CliError::msg(format!("result {i}: {m}")))?;
            if layout.shard_shape() != slot.local.shape {
                return Err(CliError::msg(format!(
                    "result {i}: pieces of {:?} under {} are {:?}, but each device returns {}",
                    global,
                    sharding_text(&slot.sharding),
                    layout.shard_shape(),
                    slot.local
                )));
            }
            let device_bytes: Vec<Vec<u8>> = (0..self.devices())
                .map(|p| results[p][i].to_le_bytes())
                .collect();
            let esize = element_bytes(&results[0][i], &device_bytes[0]);
            let ty = TensorType::new(global.clone(), slot.local.dtype);
            let mut bytes = vec![0u8; ty.num_elements() * esize];
            for group in layout.copies() {
                let ranges = layout.piece(group[0]).expect("a group holds a piece");
                let origin: Vec<i64> = ranges.iter().map(|r| r.start).collect();
                let extent: Vec<i64> = ranges.iter().map(|r| r.end - r.start).collect();
                let zero = vec![0; extent.len()];
                let piece_of = |p: usize| {
                    let mut piece = vec![0u8; extent.iter().product::<i64>() as usize * esize];
                    copy_block(
                        (&device_bytes[p], &slot.local.shape, &zero),
                        (&mut piece, &extent, &zero),
                        &extent,
                        esize,
                    );
                    piece
                };
                // Copies across replicas, and across the devices of a replicated piece, should
                // hold the same values: compare them with the one taken.
                let source = self.source_process(group[0]);
                let taken = piece_of(source);
                let differing = (0..self.devices()).find(|&p| {
                    let d = self.logical_device(p);
                    p != source
                        && group.contains(&d)
                        && (layout.copies_agree() || d == group[0])
                        && piece_of(p) != taken
                });
                if let Some(p) = differing {
                    notes.push(format!(
                        "note: result {i}: processes {source} and {p} hold different values \
                         for the piece {ranges:?} that should be copies; taking process \
                         {source}'s"
                    ));
                }
                copy_block(
                    (&taken, &extent, &zero),
                    (&mut bytes, &global, &origin),
                    &extent,
                    esize,
                );
            }
            out.push(
                CpuBuffer::from_le_bytes(ty, &bytes)
                    .map_err(|e| CliError::msg(format!("result {i}: {e}")))?,
            );
        }
        Ok((out, notes))
    }

    /// Bytes of one process's arguments (its pieces).
    pub fn argument_bytes(&self) -> u64 {
        self.params
            .iter()
            .map(|s| s.local.num_elements() as u64 * s.local.dtype.byte_size() as u64)
            .sum()
    }
}

fn sharding_text(s: &Sharding) -> String {
    match s {
        Sharding::Hlo(HloSharding::Replicated) => "{replicated}".to_string(),
        Sharding::Hlo(h) => format!("{h:?}"),
        Sharding::Sdy(s) => format!("the sdy.sharding on @{}", s.mesh),
        Sharding::Layout(l) => format!("tiles {:?}", l.tiles()),
    }
}

fn is_call(kind: &OpKind, target: &str) -> bool {
    matches!(kind, OpKind::CustomCall { call_target_name, .. } if call_target_name == target)
}

/// The global types of the entry's parameters and results in JAX's non-Shardy shard_map form
/// (`None` for those already per device), after rewriting the entry to take and return each
/// device's piece: `@Sharding` + `@SPMDFullToShardShape` on a parameter and `@Sharding
/// {manual}` + `@SPMDShardToFullShape` before a result are removed.
type Globals = (Vec<Option<TensorType>>, Vec<Option<TensorType>>);

/// True when `entry` of `module` is a global program in the GSPMD form, as JAX exports
/// `jax.jit(f, in_shardings=…)` with `jax_use_shardy_partitioner=False`: `mhlo.sharding`s
/// (or `custom_call @Sharding` constraints) without shard_map markers, and no collective,
/// `partition_id` or `replica_id` anywhere — a program with those is already each device's
/// (the per-device form above), as global programs never hold them.
fn is_global_gspmd(module: &Module, entry: &str) -> bool {
    if !has_gspmd_shardings(module, entry) {
        return false;
    }
    let mut per_device = false;
    for f in &module.funcs {
        systolic_ir::walk::walk_ops(&f.body, &mut |op, _| {
            per_device |= op.kind.family() == OpFamily::Collective;
        });
    }
    !per_device
}

/// Rewrites `entry` of `module` to its per-device form; see [`Globals`].
pub fn localize(module: &mut Module, entry: &str) -> Result<Globals, String> {
    let func = module
        .func_mut(entry)
        .ok_or_else(|| format!("no function @{entry}"))?;
    let params = func.params().to_vec();
    let n_results = func.result_types.len();
    let mut globals = (vec![None; params.len()], vec![None; n_results]);
    let Some(block) = func.body.blocks.first() else {
        return Ok(globals);
    };
    let mut uses: HashMap<ValueId, usize> = HashMap::new();
    count_uses(&func.body, &mut uses);
    let def: HashMap<ValueId, usize> = block
        .ops
        .iter()
        .enumerate()
        .flat_map(|(i, op)| op.results.iter().map(move |&v| (v, i)))
        .collect();
    let tensor = |ty: &Type| match ty {
        Type::Tensor(t) => Some(t.clone()),
        _ => None,
    };
    let mut remove = vec![false; block.ops.len()];
    let mut substitute: HashMap<ValueId, ValueId> = HashMap::new();
    let mut new_types: Vec<(ValueId, Type)> = vec![];
    for (k, op) in block.ops.iter().enumerate() {
        if !is_call(&op.kind, "SPMDFullToShardShape") {
            continue;
        }
        let x = op.operands[0];
        // The chain back to a parameter: FullToShard(Sharding(p)) or FullToShard(p).
        let (p, chain) = match def.get(&x) {
            Some(&s) if is_call(&block.ops[s].kind, "Sharding") && uses[&x] == 1 => {
                (block.ops[s].operands[0], Some(s))
            }
            _ => (x, None),
        };
        let Some(i) = params.iter().position(|&q| q == p) else {
            return Err(format!(
                "custom_call @SPMDFullToShardShape of a computed value (a shard_map not \
                 directly on the entry's arguments) needs the SPMD partitioner, which reads the \
                 Shardy form (JAX's default export), not this one{}",
                op.span.map(|s| format!(" (at {s})")).unwrap_or_default()
            ));
        };
        if uses[&p] != 1 {
            return Err(format!(
                "parameter {i} is used both by a shard_map and as a global array; running that \
                 needs the SPMD partitioner, which reads the Shardy form (JAX's default \
                 export), not this one"
            ));
        }
        globals.0[i] = tensor(func.value_type(p));
        let local = op.results[0];
        new_types.push((p, func.value_type(local).clone()));
        substitute.insert(local, p);
        remove[k] = true;
        if let Some(s) = chain {
            remove[s] = true;
        }
    }
    // The return: ShardToFull(Sharding{manual}(y)) or ShardToFull(y) → y.
    let ret = block.ops.len().checked_sub(1);
    let mut new_results = vec![];
    if let Some(r) = ret {
        for (j, &v) in block.ops[r].operands.iter().enumerate() {
            let Some(&k) = def.get(&v) else { continue };
            if !is_call(&block.ops[k].kind, "SPMDShardToFullShape") || uses[&v] != 1 {
                continue;
            }
            let mut y = block.ops[k].operands[0];
            remove[k] = true;
            if let Some(&s) = def.get(&y) {
                if is_call(&block.ops[s].kind, "Sharding") && uses[&y] == 1 {
                    remove[s] = true;
                    y = block.ops[s].operands[0];
                }
            }
            globals.1[j] = tensor(&func.result_types[j]);
            new_results.push((j, y));
        }
    }
    for (p, ty) in new_types {
        func.values[p.index()].ty = ty;
    }
    for (j, y) in &new_results {
        func.result_types[*j] = func.value_type(*y).clone();
    }
    let block = &mut func.body.blocks[0];
    if let Some(r) = ret {
        for (j, y) in new_results {
            block.ops[r].operands[j] = y;
        }
    }
    let mut k = 0;
    block.ops.retain(|_| {
        k += 1;
        !remove[k - 1]
    });
    substitute_uses(&mut func.body, &substitute);
    for f in &module.funcs {
        if let Some(span) = find_call(&f.body, &["SPMDFullToShardShape", "SPMDShardToFullShape"]) {
            return Err(format!(
                "@{}: a shard_map boundary (custom_call @SPMDFullToShardShape or \
                 @SPMDShardToFullShape) that is not on the entry's arguments or results needs \
                 the SPMD partitioner, which reads the Shardy form (JAX's default export), not \
                 this one{span}",
                f.name
            ));
        }
    }
    Ok(globals)
}

fn count_uses(region: &Region, uses: &mut HashMap<ValueId, usize>) {
    for block in &region.blocks {
        for op in &block.ops {
            for &v in &op.operands {
                *uses.entry(v).or_default() += 1;
            }
            for r in &op.regions {
                count_uses(r, uses);
            }
        }
    }
}

fn substitute_uses(region: &mut Region, map: &HashMap<ValueId, ValueId>) {
    if map.is_empty() {
        return;
    }
    for block in &mut region.blocks {
        for op in &mut block.ops {
            for v in &mut op.operands {
                if let Some(&w) = map.get(v) {
                    *v = w;
                }
            }
            for r in &mut op.regions {
                substitute_uses(r, map);
            }
        }
    }
}

/// Where (as ` (at line:col)`, or empty) the first custom call to one of `targets` is.
fn find_call(region: &Region, targets: &[&str]) -> Option<String> {
    for block in &region.blocks {
        for op in &block.ops {
            if targets.iter().any(|t| is_call(&op.kind, t)) {
                return Some(op.span.map(|s| format!(" (at {s})")).unwrap_or_default());
            }
            for r in &op.regions {
                if let Some(found) = find_call(r, targets) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// File names [`dump_partitioning`] writes.
pub const DUMP_PROPAGATED: &str = "spmd-propagated.mlir";
/// See [`DUMP_PROPAGATED`].
pub const DUMP_PER_DEVICE: &str = "spmd-per-device.mlir";

/// Writes what the compiler made of a Shardy program into `dir`, next to the pass dumps (whose
/// `00-input.mlir` is the per-device program too, as the pipeline starts from it):
/// [`DUMP_PROPAGATED`], the global program (calls inlined; GSPMD shardings imported as
/// Shardy's) with every value's propagated
/// sharding written as Shardy writes them (`sdy.sharding_per_value` on ops), and
/// [`DUMP_PER_DEVICE`], the program each device runs. Propagation is run again here only for
/// the dump; should it fail where partitioning succeeded, the file says why instead.
pub fn dump_partitioning(plan: &SpmdPlan, dir: &Path) -> Result<(), CliError> {
    let Some(global) = &plan.global else {
        return Ok(());
    };
    let write = |name: &str, text: String| {
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(dir.join(name), text))
            .map_err(|e| CliError::msg(format!("cannot write {}: {e}", dir.join(name).display())))
    };
    let mut inlined = if has_gspmd_shardings(global, &plan.entry) {
        match import_gspmd_shardings(global, &plan.entry) {
            Ok(m) => m,
            Err(e) => {
                let text = format!(
                    "// importing the GSPMD shardings of @{} failed: {e}\n",
                    plan.entry
                );
                write(DUMP_PROPAGATED, text)?;
                return write(
                    DUMP_PER_DEVICE,
                    systolic_ir::text::print_module(&plan.module),
                );
            }
        }
    } else {
        global.clone()
    };
    let propagated = Inline
        .run(&mut inlined)
        .map_err(|d| d.to_string())
        .and_then(|_| propagate_shardings(&inlined, &plan.entry))
        .and_then(|p| p.annotate(&inlined));
    write(
        DUMP_PROPAGATED,
        match propagated {
            Ok(m) => systolic_ir::text::print_module(&m),
            Err(e) => format!("// sharding propagation of @{} failed: {e}\n", plan.entry),
        },
    )?;
    write(
        DUMP_PER_DEVICE,
        systolic_ir::text::print_module(&plan.module),
    )
}

/// The SPMD counterpart of [`Backend::prepare`].
pub fn prepare(
    backend: Backend,
    plan: SpmdPlan,
    file: &str,
    options: &PrepareOptions,
) -> Result<Box<dyn Executable>, CliError> {
    match backend {
        Backend::Cpu => {
            if let Some(dir) = &options.dump_dir {
                dump_partitioning(&plan, dir)?;
            }
            let compile_options = systolic_cpu::CompileOptions {
                entry: plan.entry.clone(),
                dump_dir: options.dump_dir.clone(),
                ..Default::default()
            };
            // The backend's own SPMD compile (not the runtime's cache): its trace span here.
            let span = systolic_trace::Span::lazy(systolic_trace::cat::COMPILE, || {
                format!("compile @{} for {} devices", plan.entry, plan.grid.len())
            })
            .with("cache", "miss");
            let exe = systolic_cpu::compile_spmd(&plan.module, plan.grid, &compile_options)
                .map_err(|e| located_error(file, &e.to_string()))?;
            drop(span);
            Ok(Box::new(SpmdCpu {
                plan,
                exe,
                file: file.to_string(),
                inputs: vec![],
                outputs: vec![],
            }))
        }
        Backend::Interp => {
            no_compiler_options_for_interpreter(options)?;
            Ok(Box::new(SpmdInterp {
                plan,
                file: file.to_string(),
                inputs: vec![],
                outputs: vec![],
            }))
        }
    }
}

/// Compiled: one CPU program per process, run together.
struct SpmdCpu {
    plan: SpmdPlan,
    exe: systolic_cpu::SpmdExecutable,
    file: String,
    inputs: Vec<Vec<CpuBuffer>>,
    outputs: Vec<Vec<CpuBuffer>>,
}

impl Executable for SpmdCpu {
    fn put_inputs(&mut self, inputs: Vec<CpuBuffer>) -> Result<(), CliError> {
        self.inputs = self.plan.split(&inputs)?;
        Ok(())
    }

    fn execute(&mut self) -> Result<(), CliError> {
        self.outputs.clear();
        let _span = systolic_trace::Span::lazy(systolic_trace::cat::EXECUTE, || {
            format!(
                "execute @{} on {} devices",
                self.plan.entry,
                self.plan.grid.len()
            )
        });
        // Each process runs on host device cpu:k, whose memory is a track of its own.
        let _memory = systolic_trace::MemoryProcess::enter(if systolic_trace::enabled() {
            (0..self.plan.grid.len())
                .map(systolic_trace::cpu_memory_pid)
                .collect()
        } else {
            vec![]
        });
        self.outputs = self
            .exe
            .execute_borrowed(&self.inputs)
            .map_err(|e| located_error(&self.file, &e.to_string()))?;
        Ok(())
    }

    fn outputs(&mut self) -> Result<Vec<CpuBuffer>, CliError> {
        let (out, notes) = self.plan.assemble(&self.outputs)?;
        for note in notes {
            outln!("{note}");
        }
        Ok(out)
    }

    fn compile_source(&self) -> Option<&'static str> {
        Some("compiled")
    }

    fn peak_memory_bytes(&self) -> Option<u64> {
        self.exe
            .processes()
            .iter()
            .map(|p| p.peak_memory_bytes())
            .max()
    }

    fn devices(&self) -> usize {
        self.plan.devices()
    }

    fn device_memory_bytes(&self) -> Option<u64> {
        let args = self.plan.argument_bytes();
        self.exe
            .processes()
            .iter()
            .map(|p| args + p.peak_memory_bytes())
            .max()
    }

    fn notes(&self) -> Vec<String> {
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        if let Some(first) = self.exe.processes().first() {
            for op in first.fallback_ops() {
                *counts.entry(op.op.as_str()).or_default() += 1;
            }
        }
        let mut notes = vec![format!(
            "running on {} host CPU devices ({} replicas × {} partitions)",
            self.plan.devices(),
            self.plan.grid.replicas,
            self.plan.grid.partitions
        )];
        if !counts.is_empty() {
            let ops: Vec<String> = counts.iter().map(|(op, n)| format!("{op} ×{n}")).collect();
            notes.push(format!(
                "note: on the interpreter fallback (slow): {}",
                ops.join(", ")
            ));
        }
        notes
    }
}

/// The oracle: one interpreter per process.
struct SpmdInterp {
    plan: SpmdPlan,
    file: String,
    inputs: Vec<Vec<CpuBuffer>>,
    outputs: Vec<Vec<CpuBuffer>>,
}

impl Executable for SpmdInterp {
    fn put_inputs(&mut self, inputs: Vec<CpuBuffer>) -> Result<(), CliError> {
        self.inputs = self.plan.split(&inputs)?;
        Ok(())
    }

    fn execute(&mut self) -> Result<(), CliError> {
        let grid = self.plan.grid;
        let programs =
            vec![vec![self.plan.entry.clone(); grid.partitions as usize]; grid.replicas as usize];
        let args = self
            .inputs
            .iter()
            .map(|a| a.iter().map(|b| Value::Tensor(b.to_tensor())).collect())
            .collect();
        let results = systolic_interp::run_programs(&self.plan.module, &programs, args)
            .map_err(|e| CliError::located(format!("{}:{e}", self.file)))?;
        self.outputs = results
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .map(|v| match v.into_tensor() {
                        Some(t) => Ok(CpuBuffer::from_tensor(&t)),
                        None => Err(CliError::msg(format!(
                            "{}: a result of @{} is not a tensor",
                            self.file, self.plan.entry
                        ))),
                    })
                    .collect()
            })
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    fn outputs(&mut self) -> Result<Vec<CpuBuffer>, CliError> {
        let (out, notes) = self.plan.assemble(&self.outputs)?;
        for note in notes {
            outln!("{note}");
        }
        Ok(out)
    }

    fn devices(&self) -> usize {
        self.plan.devices()
    }

    fn notes(&self) -> Vec<String> {
        vec![format!(
            "running on {} interpreter processes ({} replicas × {} partitions)",
            self.plan.devices(),
            self.plan.grid.replicas,
            self.plan.grid.partitions
        )]
    }
}

/// Reads the global input files of an SPMD run.
pub fn load_inputs(plan: &SpmdPlan, files: &[PathBuf]) -> Result<Vec<CpuBuffer>, CliError> {
    if files.len() != plan.params.len() {
        let expected: Vec<String> = plan
            .params
            .iter()
            .map(|s| match &s.global {
                Some(g) => g.to_string(),
                None => format!("global array of pieces {}", s.local),
            })
            .collect();
        return Err(CliError::msg(format!(
            "@{} takes {} inputs ({}), got {}",
            plan.entry,
            plan.params.len(),
            if expected.is_empty() {
                "none".to_string()
            } else {
                expected.join(", ")
            },
            files.len()
        )));
    }
    files
        .iter()
        .zip(&plan.params)
        .enumerate()
        .map(|(i, (file, slot))| {
            crate::inputs::read_input(i, file, slot.local.dtype, |ty| {
                plan.check_input(i, &file.display().to_string(), ty)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_map_entry_is_localized_split_and_assembled() {
        let text = r#"module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<4x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x2xf32>) -> tensor<1x2xf32>
    %2 = call @body(%1) : (tensor<1x2xf32>) -> tensor<1x2xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x2xf32>) -> tensor<1x2xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<1x2xf32>) -> tensor<4x2xf32>
    return %4 : tensor<4x2xf32>
  }
  func.func private @body(%a: tensor<1x2xf32>) -> tensor<1x2xf32> {
    %0 = stablehlo.add %a, %a : tensor<1x2xf32>
    return %0 : tensor<1x2xf32>
  }
}"#;
        let module = systolic_ir::text::parse_module(text, "t.mlir").unwrap();
        let plan = SpmdPlan::new(&module, "main", "t.mlir").unwrap().unwrap();
        assert_eq!(plan.devices(), 4);
        assert_eq!(plan.params[0].local.shape, vec![1, 2]);
        assert_eq!(plan.params[0].global.as_ref().unwrap().shape, vec![4, 2]);
        let input = CpuBuffer::from_f32(vec![4, 2], (0..8).map(|x| x as f32).collect());
        let split = plan.split(std::slice::from_ref(&input)).unwrap();
        assert_eq!(split[2][0].as_f32().unwrap(), &[4.0, 5.0]);
        let (out, notes) = plan.assemble(&split).unwrap();
        assert!(notes.is_empty());
        assert_eq!(out[0], input);
    }
}
