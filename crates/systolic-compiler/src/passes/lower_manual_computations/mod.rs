//! `sdy.manual_computation` (JAX's `shard_map` exported with Shardy) lowered to the program
//! each device runs: the per-device SPMD module that `systolic_cpu::compile_spmd` and
//! `systolic_interp::run_programs` execute on `N` devices.
//!
//! The entry is a global program over one mesh (`sdy.mesh`; its `device_ids` order is
//! honoured). Every global value is held on each device either as its piece under a Shardy
//! sharding or whole (replicated):
//!
//! - entry parameters arrive as their `sdy.sharding` says (replicated without one), so the
//!   per-device entry takes pieces;
//! - a manual computation's body is inlined in place, its block arguments bound to the
//!   operands' pieces under its `in_shardings` and its `sdy.return` values held under its
//!   `out_shardings` (axes an out sharding does not name are ones the value is the same over:
//!   nothing to do);
//! - ops outside manual computations run on whole values, the same on every device;
//! - entry results leave as their `sdy.sharding` says.
//!
//! Where a value is held one way and needed another it is converted: a piece becomes the
//! whole value by one `all_gather` per sharded dimension (over the devices holding that
//! dimension's tiles, in tile order, `use_global_device_ids`, a fresh channel each), and a
//! whole value becomes a piece by a `dynamic_slice` at the device's offsets (looked up from
//! `partition_id` in a table built from the mesh). Sharding constraints outside manual
//! computations are identities and are dropped.
//!
//! Not handled (each an error saying so): automatic (non-manual) axes, which need the SPMD
//! partitioner; manual computations nested in other ops or in functions other than the
//! entry; shardings over more than one mesh; dimensions that do not divide evenly.

pub(crate) mod grid;

use grid::{held_of, Held, MeshGrid};
use std::collections::{HashMap, HashSet};
use systolic_ir::verify::verify_module;
use systolic_ir::walk::{replace_uses, walk_ops};
use systolic_ir::{
    Attribute, AxisRef, Block, ChannelHandle, CollectiveAttrs, DType, Func, ManualComputationAttrs,
    Module, NamedAttr, Op, OpKind, Region, SdyMesh, SdySharding, ShardLayout, Tensor, TensorType,
    Type, ValueId,
};

/// A module lowered to one program per device, with how its entry's arguments and results are
/// laid out over the devices.
#[derive(Debug)]
pub struct SpmdModule {
    /// The module; its entry is each device's program (pieces in, pieces out), and its
    /// `mhlo.num_partitions` is [`SpmdModule::num_devices`] (one replica).
    pub module: Module,
    /// The devices (the mesh's size); partition `p` is device `p`.
    pub num_devices: usize,
    /// Per entry parameter: which piece of the global argument each device takes.
    pub params: Vec<ShardLayout>,
    /// Per entry result: which piece of the global result each device returns.
    pub results: Vec<ShardLayout>,
    /// What the lowering noticed but did not refuse (the partitioner's involuntary full
    /// rematerializations: a large array gathered whole on every device, by op and where).
    pub warnings: Vec<String>,
}

/// The per-device program of `entry`; see the module docs.
pub fn lower_manual_computations(module: &Module, entry: &str) -> Result<SpmdModule, String> {
    if let Err(diags) = verify_module(module) {
        return Err(diags[0].to_string());
    }
    let mut module = module.clone();
    let index = module
        .funcs
        .iter()
        .position(|f| f.name == entry)
        .ok_or_else(|| format!("no function @{entry}"))?;
    check_placement(&module, entry)?;
    let mesh = the_mesh(&module, &module.funcs[index])?;
    let grid = MeshGrid::new(&mesh)?;
    let num_devices = grid.len();
    let func = std::mem::replace(&mut module.funcs[index], Func::new(entry));
    let mut lw = Lowering {
        next_channel: max_channel(&module).max(max_channel_in(&func)) + 1,
        func,
        mesh,
        grid,
        locals: HashMap::new(),
        whole: HashMap::new(),
        param_types: HashMap::new(),
        ops: Vec::new(),
        partition: None,
    };
    let (params, results) = lw.run()?;
    module.funcs[index] = lw.func;
    set_count(&mut module, "mhlo.num_partitions", num_devices as i64);
    set_count(&mut module, "mhlo.num_replicas", 1);
    if let Err(diags) = verify_module(&module) {
        return Err(format!(
            "internal: the per-device form of @{entry} does not verify: {}",
            diags[0]
        ));
    }
    Ok(SpmdModule {
        module,
        num_devices,
        params,
        results,
        warnings: vec![],
    })
}

/// A global value as one device holds it.
#[derive(Clone)]
struct Local {
    value: ValueId,
    held: Held,
}

struct Lowering {
    func: Func,
    mesh: SdyMesh,
    grid: MeshGrid,
    /// Global values held other than as themselves whole: parameters, manual computations'
    /// results, sharding constraints' results.
    locals: HashMap<ValueId, Local>,
    /// The whole value of a global value held in pieces, once gathered.
    whole: HashMap<ValueId, ValueId>,
    /// The global types of the parameters (whose values now have the pieces' types).
    param_types: HashMap<ValueId, TensorType>,
    /// The entry's new top-level ops.
    ops: Vec<Op>,
    /// `partition_id` as `tensor<i32>`, once emitted.
    partition: Option<ValueId>,
    next_channel: i64,
}

impl Lowering {
    fn run(&mut self) -> Result<(Vec<ShardLayout>, Vec<ShardLayout>), String> {
        let name = self.func.name.clone();
        let mut param_layouts = vec![];
        for (i, p) in self.func.params().to_vec().into_iter().enumerate() {
            let global = self.tensor_type(p, &format!("parameter {i}"))?;
            let sharding = sharding_attr(self.func.arg_attrs.get(i));
            let held = self.held_of(sharding.as_ref(), &global, &format!("parameter {i}"))?;
            let local = self.local_shape(&global.shape, &held, &format!("parameter {i}"))?;
            param_layouts.push(self.layout(sharding.as_ref(), &global)?);
            self.func.values[p.index()].ty = Type::Tensor(TensorType::new(local, global.dtype));
            self.param_types.insert(p, global);
            self.locals.insert(p, Local { value: p, held });
        }
        let Some(block) = self.func.body.blocks.first_mut() else {
            return Err(format!("@{name} has no body"));
        };
        let ops = std::mem::take(&mut block.ops);
        let mut result_layouts = vec![];
        for op in ops {
            match &op.kind {
                OpKind::ShardingConstraint(_) => {
                    let source = self.get(op.operands[0]);
                    self.locals.insert(op.results[0], source);
                }
                OpKind::ManualComputation(attrs) => {
                    let attrs = (**attrs).clone();
                    self.manual_computation(op, &attrs)?;
                }
                OpKind::Return(_) => {
                    result_layouts = self.entry_return(op)?;
                }
                _ => self.global_op(op)?,
            }
        }
        let block = &mut self.func.body.blocks[0];
        block.ops = std::mem::take(&mut self.ops);
        Ok((param_layouts, result_layouts))
    }

    /// How a global value is held (itself, whole, unless recorded otherwise).
    fn get(&self, v: ValueId) -> Local {
        self.locals.get(&v).cloned().unwrap_or_else(|| Local {
            value: v,
            held: vec![],
        })
    }

    /// The global type of a global value.
    fn tensor_type(&self, v: ValueId, what: &str) -> Result<TensorType, String> {
        if let Some(t) = self.param_types.get(&v) {
            return Ok(t.clone());
        }
        match self.func.value_type(v) {
            Type::Tensor(t) => Ok(t.clone()),
            other => Err(format!(
                "{what} of @{} has type {other}; only tensors are laid out over devices",
                self.func.name
            )),
        }
    }
    /// The held form of a value of `global` type under `sharding` (whole without one).
    fn held_of(
        &self,
        sharding: Option<&SdySharding>,
        global: &TensorType,
        what: &str,
    ) -> Result<Held, String> {
        held_of(&self.mesh, sharding, global, what)
    }
    /// The piece of a value of `shape` held as `held`.
    fn local_shape(&self, shape: &[i64], held: &Held, what: &str) -> Result<Vec<i64>, String> {
        self.grid.local_shape(shape, held, what)
    }

    fn layout(
        &self,
        sharding: Option<&SdySharding>,
        global: &TensorType,
    ) -> Result<ShardLayout, String> {
        match sharding {
            None => Ok(ShardLayout::replicated(&global.shape, self.grid.len())),
            Some(s) => ShardLayout::from_sdy(s, &self.mesh, &global.shape).map_err(|e| e.message),
        }
    }

    /// An op outside manual computations: the same on every device, on whole values. Every
    /// global value it reads (as an operand or from inside its regions) is made whole first.
    fn global_op(&mut self, mut op: Op) -> Result<(), String> {
        let mut used = op.operands.clone();
        for r in &op.regions {
            walk_ops(r, &mut |inner, _| {
                used.extend(inner.operands.iter().copied())
            });
        }
        let mut map = HashMap::new();
        for v in used {
            if self.locals.contains_key(&v) && !map.contains_key(&v) {
                let w = self.whole_value(v)?;
                if w != v {
                    map.insert(v, w);
                }
            }
        }
        for o in &mut op.operands {
            if let Some(&w) = map.get(o) {
                *o = w;
            }
        }
        for r in &mut op.regions {
            replace_uses(r, &map);
        }
        self.ops.push(op);
        Ok(())
    }

    /// `v` whole on every device (gathered once, then reused).
    fn whole_value(&mut self, v: ValueId) -> Result<ValueId, String> {
        let local = self.get(v);
        if local.held.iter().all(Vec::is_empty) {
            return Ok(local.value);
        }
        if let Some(&w) = self.whole.get(&v) {
            return Ok(w);
        }
        let mut x = local.value;
        for (d, axes) in local.held.iter().enumerate() {
            if !axes.is_empty() {
                x = self.all_gather(x, d, axes)?;
            }
        }
        self.whole.insert(v, x);
        Ok(x)
    }

    /// `v` held as `target` (its global type is `global`).
    fn convert(
        &mut self,
        v: ValueId,
        target: &Held,
        global: &TensorType,
    ) -> Result<ValueId, String> {
        let local = self.get(v);
        if same_held(&local.held, target) {
            return Ok(local.value);
        }
        let whole = self.whole_value(v)?;
        if target.iter().all(Vec::is_empty) {
            return Ok(whole);
        }
        self.slice_piece(whole, target, global)
    }

    /// `all_gather` of dimension `d` split over `axes`: the devices holding its tiles, in tile
    /// order.
    fn all_gather(&mut self, x: ValueId, d: usize, axes: &[AxisRef]) -> Result<ValueId, String> {
        let groups = self.grid.groups(axes)?;
        let mut t = self
            .func
            .value_type(x)
            .as_tensor()
            .cloned()
            .expect("a tensor");
        t.shape[d] *= groups[0].len() as i64;
        let handle = self.next_channel;
        self.next_channel += 1;
        let kind = OpKind::AllGather {
            all_gather_dim: d as i64,
            collective: CollectiveAttrs {
                replica_groups: groups,
                channel_handle: Some(ChannelHandle { handle, kind: 1 }),
                use_global_device_ids: true,
                has_dynamic_root: false,
            },
        };
        Ok(self.emit(kind, vec![x], Type::Tensor(t)))
    }

    /// This device's piece of the whole value `x` under `target`.
    fn slice_piece(
        &mut self,
        x: ValueId,
        target: &Held,
        global: &TensorType,
    ) -> Result<ValueId, String> {
        let local = self.local_shape(&global.shape, target, "a value")?;
        let mut offsets = vec![];
        for (d, axes) in target.iter().enumerate() {
            let offset = if axes.is_empty() {
                self.constant(Tensor::from_i64(vec![], DType::I32, vec![0]))
            } else {
                let table: Vec<i64> = self
                    .grid
                    .tile_index(axes)?
                    .into_iter()
                    .map(|t| t * local[d])
                    .collect();
                self.device_entry(table)?
            };
            offsets.push(offset);
        }
        let mut operands = vec![x];
        operands.extend(offsets);
        let kind = OpKind::DynamicSlice {
            slice_sizes: local.clone(),
        };
        Ok(self.emit(
            kind,
            operands,
            Type::Tensor(TensorType::new(local, global.dtype)),
        ))
    }

    /// `table[partition_id]` as `tensor<i32>`.
    fn device_entry(&mut self, table: Vec<i64>) -> Result<ValueId, String> {
        let n = table.len() as i64;
        let table = self.constant(Tensor::from_i64(vec![n], DType::I32, table));
        let pid = self.partition_id();
        let scalar = |d| Type::Tensor(TensorType::new(vec![], d));
        let one = self.emit(
            OpKind::DynamicSlice {
                slice_sizes: vec![1],
            },
            vec![table, pid],
            Type::Tensor(TensorType::new(vec![1], DType::I32)),
        );
        Ok(self.emit(OpKind::Reshape, vec![one], scalar(DType::I32)))
    }

    /// This device's id as `tensor<i32>` (emitted once).
    fn partition_id(&mut self) -> ValueId {
        if let Some(p) = self.partition {
            return p;
        }
        let scalar = |d| Type::Tensor(TensorType::new(vec![], d));
        let p = self.emit(OpKind::PartitionId, vec![], scalar(DType::U32));
        let p = self.emit(OpKind::Convert, vec![p], scalar(DType::I32));
        self.partition = Some(p);
        p
    }

    fn constant(&mut self, t: Result<Tensor, systolic_ir::TensorError>) -> ValueId {
        let t = t.expect("an i32 table of device offsets");
        let ty = Type::Tensor(t.ty().clone());
        self.emit(OpKind::Constant(t), vec![], ty)
    }

    fn emit(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: Type) -> ValueId {
        let r = self.func.new_value(ty, None);
        self.ops.push(Op::new(kind, operands, vec![r]));
        r
    }

    /// Inlines a manual computation's body, its arguments bound to the operands' pieces.
    fn manual_computation(&mut self, op: Op, attrs: &ManualComputationAttrs) -> Result<(), String> {
        let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
        let free: Vec<&String> = self
            .mesh
            .axes
            .iter()
            .map(|(n, _)| n)
            .filter(|n| !attrs.manual_axes.contains(n))
            .collect();
        if !free.is_empty() {
            let free: Vec<String> = free.iter().map(|n| format!("\"{n}\"")).collect();
            return Err(format!(
                "sdy.manual_computation{at} leaves mesh axes {} automatic; automatic axes need \
                 the SPMD partitioner, which Systolic does not have yet",
                free.join(", ")
            ));
        }
        let Some(Region { blocks }) = op.regions.into_iter().next() else {
            return Err(format!("sdy.manual_computation{at} has no body"));
        };
        let Some(mut body) = blocks.into_iter().next() else {
            return Err(format!("sdy.manual_computation{at} has an empty body"));
        };
        let mut bind = HashMap::new();
        for (i, (&x, s)) in op.operands.iter().zip(&attrs.in_shardings).enumerate() {
            let what = format!("sdy.manual_computation{at}: operand {i}");
            let global = self.tensor_type(x, &what)?;
            let target = self.held_of(Some(s), &global, &what)?;
            let piece = self.convert(x, &target, &global)?;
            if let Some(&arg) = body.args.get(i) {
                bind.insert(arg, piece);
            }
        }
        let Some(ret) = body.ops.pop() else {
            return Err(format!("sdy.manual_computation{at} has an empty body"));
        };
        let mut region = Region::single(Block {
            args: vec![],
            ops: body.ops,
        });
        replace_uses(&mut region, &bind);
        let returned: Vec<ValueId> = ret
            .operands
            .iter()
            .map(|v| bind.get(v).copied().unwrap_or(*v))
            .collect();
        self.ops.extend(region.blocks.remove(0).ops);
        for (j, ((&r, &y), s)) in op
            .results
            .iter()
            .zip(&returned)
            .zip(&attrs.out_shardings)
            .enumerate()
        {
            let what = format!("sdy.manual_computation{at}: result {j}");
            let global = self.tensor_type(r, &what)?;
            let held = self.held_of(Some(s), &global, &what)?;
            self.locals.insert(r, Local { value: y, held });
        }
        Ok(())
    }

    /// The entry's results leave as their `sdy.sharding` says; the result types become the
    /// pieces'.
    fn entry_return(&mut self, mut op: Op) -> Result<Vec<ShardLayout>, String> {
        let mut layouts = vec![];
        for j in 0..op.operands.len() {
            let what = format!("result {j}");
            let v = op.operands[j];
            let global = self.tensor_type(v, &what)?;
            let sharding = sharding_attr(self.func.result_attrs.get(j));
            let target = self.held_of(sharding.as_ref(), &global, &what)?;
            layouts.push(self.layout(sharding.as_ref(), &global)?);
            let piece = self.convert(v, &target, &global)?;
            op.operands[j] = piece;
            let local = self.local_shape(&global.shape, &target, &what)?;
            if let Some(ty) = self.func.result_types.get_mut(j) {
                *ty = Type::Tensor(TensorType::new(local, global.dtype));
            }
        }
        self.ops.push(op);
        Ok(layouts)
    }
}

/// Two held forms alike: the same axes per dimension.
fn same_held(a: &Held, b: &Held) -> bool {
    a == b
}

pub(crate) fn sharding_attr(attrs: Option<&Vec<NamedAttr>>) -> Option<SdySharding> {
    attrs?.iter().find_map(|a| match &a.value {
        Attribute::SdySharding(s) if a.name == "sdy.sharding" => Some(s.clone()),
        _ => None,
    })
}

/// The one mesh the entry's shardings and manual computations name (the module's only mesh
/// when none is named).
pub(crate) fn the_mesh(module: &Module, entry: &Func) -> Result<SdyMesh, String> {
    let mut named: Vec<String> = vec![];
    let mut note = |s: &SdySharding| {
        if !named.contains(&s.mesh) {
            named.push(s.mesh.clone());
        }
    };
    for attrs in entry.arg_attrs.iter().chain(&entry.result_attrs) {
        if let Some(s) = sharding_attr(Some(attrs)) {
            note(&s);
        }
    }
    walk_ops(&entry.body, &mut |op, _| match &op.kind {
        OpKind::ManualComputation(a) => a
            .in_shardings
            .iter()
            .chain(&a.out_shardings)
            .for_each(&mut note),
        OpKind::ShardingConstraint(s) => note(s),
        _ => {}
    });
    let name = match named.as_slice() {
        [one] => one.clone(),
        [] => match module.meshes.as_slice() {
            [one] => one.name.clone(),
            _ => {
                return Err(format!(
                    "@{}: no sharding names a mesh, and the module declares {} meshes",
                    entry.name,
                    module.meshes.len()
                ))
            }
        },
        many => {
            return Err(format!(
                "@{}: shardings name {} meshes (@{}); one program runs on one mesh",
                entry.name,
                many.len(),
                many.join(", @")
            ))
        }
    };
    module
        .meshes
        .iter()
        .find(|m| m.name == name)
        .cloned()
        .ok_or_else(|| {
            format!("no sdy.mesh @{name} in the module (an inline mesh is not supported)")
        })
}

/// Manual computations only at the top level of the entry.
fn check_placement(module: &Module, entry: &str) -> Result<(), String> {
    let mut problem = None;
    for f in &module.funcs {
        let top: HashSet<*const Op> = if f.name == entry {
            f.body
                .blocks
                .iter()
                .flat_map(|b| b.ops.iter().map(|o| o as *const Op))
                .collect()
        } else {
            HashSet::new()
        };
        walk_ops(&f.body, &mut |op, _| {
            if problem.is_none()
                && matches!(op.kind, OpKind::ManualComputation(_))
                && !top.contains(&(op as *const Op))
            {
                let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
                problem = Some(if f.name == entry {
                    format!(
                        "@{entry}: sdy.manual_computation{at} inside another op (a nested \
                         manual computation, or one under control flow) is not supported"
                    )
                } else {
                    format!(
                        "@{}: sdy.manual_computation{at} outside the entry @{entry} is not \
                         supported (inline calls first)",
                        f.name
                    )
                });
            }
        });
    }
    problem.map_or(Ok(()), Err)
}

/// The largest channel handle in the module.
pub(crate) fn max_channel(module: &Module) -> i64 {
    module.funcs.iter().map(max_channel_in).max().unwrap_or(0)
}

fn max_channel_in(f: &Func) -> i64 {
    let mut max = 0;
    walk_ops(&f.body, &mut |op, _| {
        let handle = match &op.kind {
            OpKind::AllGather { collective, .. }
            | OpKind::AllReduce { collective }
            | OpKind::ReduceScatter { collective, .. }
            | OpKind::AllToAll { collective, .. }
            | OpKind::CollectiveBroadcast { collective } => {
                collective.channel_handle.map(|c| c.handle)
            }
            OpKind::CollectivePermute { channel_handle, .. } => channel_handle.map(|c| c.handle),
            OpKind::Send { channel_handle, .. } | OpKind::Recv { channel_handle, .. } => {
                Some(channel_handle.handle)
            }
            _ => None,
        };
        max = max.max(handle.unwrap_or(0));
    });
    max
}

pub(crate) fn set_count(module: &mut Module, name: &str, n: i64) {
    let value = Attribute::Int(n, Some(Type::Tensor(TensorType::scalar(DType::I32))));
    match module.attrs.iter_mut().find(|a| a.name == name) {
        Some(a) => a.value = value,
        None => module.attrs.push(NamedAttr::new(name, value)),
    }
}
