//! `sdy.manual_computation` (JAX's `shard_map` exported with Shardy) lowered to the program
//! each device runs: the per-device SPMD module that `systolic_cpu::compile_spmd` and
//! `systolic_interp::run_programs` execute on `N` devices.
//!
//! The entry is a global program over one mesh (`sdy.mesh`; its `device_ids` order is
//! honoured). Calls are inlined first (JAX stages a `fori_loop` or `scan` body, and so the
//! manual computation in it, as a private function). Every global value is held on each device
//! either as its piece under a Shardy sharding or whole (replicated):
//!
//! - entry parameters arrive as their `sdy.sharding` says (replicated without one, or with one
//!   on an axis-less mesh, as JAX writes for a `cond` predicate), so the per-device entry takes
//!   pieces;
//! - a manual computation's body is lowered in place, its block arguments bound to the
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
//! **Nesting.** A manual computation inside another (JAX's shard_map over `"y"` inside one
//! over `"x"`) is lowered the same way one level down: in the outer body every value is
//! already the outer axes' piece, "whole" means whole over the axes not yet manual, and the
//! inner computation's shardings name only its own axes. An outer body that leaves axes free
//! computes its own ops whole over them (the same on each device of a free-axis group) as long
//! as the manual computations inside it make every axis manual; an inner computation over an
//! axis an outer one already made manual is an error, as in JAX.
//!
//! **Control flow** ([`control_flow`]): a `while`, `if` or `case` whose regions hold manual
//! computations keeps its regions, lowered in place; each carried value (and each result) is
//! held one way for the whole loop, the way the body returns it when the loop starts from it
//! (found by lowering the body again from the form it returned, at most twice), so a
//! `fori_loop` over a shard_map step carries the pieces and communicates nothing between
//! iterations. Branch results take the first split form a branch returns; the other branches
//! convert to it.
//!
//! Not handled (each an error saying so): automatic (non-manual) axes with no manual
//! computation inside, which need the SPMD partitioner; manual computations in the regions of
//! other ops (reducers, sorts); shardings over more than one mesh; dimensions that do not
//! divide evenly.

pub(crate) mod control_flow;
pub(crate) mod grid;

use crate::pass::Pass;
use crate::passes::inline::Inline;
use grid::{held_of, Held, MeshGrid};
use std::collections::HashMap;
use systolic_ir::verify::verify_module;
use systolic_ir::walk::{replace_uses, walk_ops};
use systolic_ir::{
    Attribute, AxisRef, ChannelHandle, CollectiveAttrs, DType, Func, ManualComputationAttrs,
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
    let mut module = inline_manual_callees(module)?.unwrap_or_else(|| module.clone());
    let index = module
        .funcs
        .iter()
        .position(|f| f.name == entry)
        .ok_or_else(|| format!("no function @{entry}"))?;
    check_placement(&module, entry)?;
    let mesh = the_mesh(&module, &module.funcs[index])?;
    let grid = MeshGrid::new(&mesh)?;
    let num_devices = grid.len();
    let axisless = module
        .meshes
        .iter()
        .filter(|m| m.axes.is_empty())
        .map(|m| m.name.clone())
        .collect();
    let func = std::mem::replace(&mut module.funcs[index], Func::new(entry));
    let mut lw = Lowering {
        next_channel: max_channel(&module).max(max_channel_in(&func)) + 1,
        func,
        mesh,
        grid,
        axisless,
        locals: HashMap::new(),
        global_types: HashMap::new(),
        scopes: vec![Scope::default()],
        manual: vec![],
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
pub(crate) struct Local {
    pub(crate) value: ValueId,
    pub(crate) held: Held,
}

/// The ops being built for one block (the entry's, or a region's), and the whole values
/// gathered in it (usable there and in the regions nested in it, not after it).
#[derive(Default)]
pub(crate) struct Scope {
    pub(crate) ops: Vec<Op>,
    pub(crate) whole: HashMap<ValueId, ValueId>,
}

pub(crate) struct Lowering {
    pub(crate) func: Func,
    mesh: SdyMesh,
    grid: MeshGrid,
    /// Meshes without axes (a sharding on one is no sharding).
    axisless: Vec<String>,
    /// Global values held other than as themselves whole: parameters, manual computations'
    /// results, sharding constraints' results, loop carries, and (bound to pieces, held
    /// whole one level down) manual computations' block arguments.
    pub(crate) locals: HashMap<ValueId, Local>,
    /// The global types of values whose own type became a piece's (parameters, carries,
    /// results of control flow).
    pub(crate) global_types: HashMap<ValueId, TensorType>,
    /// The blocks being built, innermost last; `scopes[0]` is the entry's.
    pub(crate) scopes: Vec<Scope>,
    /// The mesh axes the enclosing manual computations made manual.
    manual: Vec<String>,
    /// `partition_id` as `tensor<i32>`, once emitted (at the top of the entry).
    partition: Option<ValueId>,
    next_channel: i64,
}

impl Lowering {
    fn run(&mut self) -> Result<(Vec<ShardLayout>, Vec<ShardLayout>), String> {
        let name = self.func.name.clone();
        let mut param_layouts = vec![];
        for (i, p) in self.func.params().to_vec().into_iter().enumerate() {
            let what = format!("parameter {i}");
            let global = self.tensor_type(p, &what)?;
            let sharding = self.sharding_attr(self.func.arg_attrs.get(i));
            let held = self.held_of(sharding.as_ref(), &global, &what)?;
            param_layouts.push(self.layout(sharding.as_ref(), &global)?);
            self.hold_as_piece(p, held, &what)?;
        }
        let Some(block) = self.func.body.blocks.first_mut() else {
            return Err(format!("@{name} has no body"));
        };
        let ops = std::mem::take(&mut block.ops);
        let ret = self.lower_ops(ops)?;
        let result_layouts = match ret {
            Some(op) => self.entry_return(op)?,
            None => return Err(format!("@{name} has no return")),
        };
        let block = &mut self.func.body.blocks[0];
        block.ops = std::mem::take(&mut self.scopes[0].ops);
        Ok((param_layouts, result_layouts))
    }

    /// Lowers `ops` into the current scope; returns the terminator (a `return`), untouched.
    pub(crate) fn lower_ops(&mut self, ops: Vec<Op>) -> Result<Option<Op>, String> {
        for op in ops {
            match &op.kind {
                OpKind::Return(_) => return Ok(Some(op)),
                OpKind::ShardingConstraint(_) => {
                    let source = self.get(op.operands[0]);
                    self.locals.insert(op.results[0], source);
                }
                OpKind::ManualComputation(attrs) => {
                    let attrs = (**attrs).clone();
                    self.manual_computation(op, &attrs)?;
                }
                OpKind::While if holds_manual(&op) => self.while_loop(op)?,
                OpKind::If | OpKind::Case if holds_manual(&op) => self.branches(op)?,
                _ if holds_manual(&op) => {
                    let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
                    return Err(format!(
                        "{}{at} holds an sdy.manual_computation or sdy.sharding_constraint in \
                         its regions; only while, if and case regions may",
                        op.kind.name()
                    ));
                }
                _ => self.global_op(op)?,
            }
        }
        Ok(None)
    }

    /// How a global value is held (itself, whole, unless recorded otherwise).
    pub(crate) fn get(&self, v: ValueId) -> Local {
        self.locals.get(&v).cloned().unwrap_or_else(|| Local {
            value: v,
            held: vec![vec![]; self.func.value_type(v).as_tensor().map_or(0, |t| t.rank())],
        })
    }

    /// `v` (whose own type is global) held as `held`: its type becomes the piece's.
    pub(crate) fn hold_as_piece(
        &mut self,
        v: ValueId,
        held: Held,
        what: &str,
    ) -> Result<(), String> {
        let mut held = held;
        if let Type::Tensor(global) = self.func.value_type(v).clone() {
            let global = self.global_types.get(&v).cloned().unwrap_or(global);
            if held.iter().all(Vec::is_empty) {
                held = vec![vec![]; global.rank()];
            }
            let local = self.local_shape(&global.shape, &held, what)?;
            self.func.values[v.index()].ty = Type::Tensor(TensorType::new(local, global.dtype));
            self.global_types.insert(v, global);
        }
        self.locals.insert(v, Local { value: v, held });
        Ok(())
    }

    /// The held form of each value, as much as `get` knows (whole for non-tensors).
    pub(crate) fn helds(&self, values: &[ValueId]) -> Vec<Held> {
        values.iter().map(|&v| self.get(v).held).collect()
    }

    /// The global type of a global value.
    pub(crate) fn tensor_type(&self, v: ValueId, what: &str) -> Result<TensorType, String> {
        if let Some(t) = self.global_types.get(&v) {
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

    /// A `sdy.sharding` among `attrs`, unless it is on an axis-less mesh.
    fn sharding_attr(&self, attrs: Option<&Vec<NamedAttr>>) -> Option<SdySharding> {
        sharding_attr(attrs).filter(|s| !self.axisless.contains(&s.mesh))
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
        self.push(op);
        Ok(())
    }

    pub(crate) fn push(&mut self, op: Op) {
        self.scopes.last_mut().expect("a scope").ops.push(op);
    }

    /// `v` whole on every device (gathered once per scope, then reused).
    pub(crate) fn whole_value(&mut self, v: ValueId) -> Result<ValueId, String> {
        let local = self.get(v);
        if local.held.iter().all(Vec::is_empty) {
            return Ok(local.value);
        }
        if let Some(&w) = self.scopes.iter().rev().find_map(|s| s.whole.get(&v)) {
            return Ok(w);
        }
        let mut x = local.value;
        for (d, axes) in local.held.iter().enumerate() {
            if !axes.is_empty() {
                x = self.all_gather(x, d, axes)?;
            }
        }
        self.scopes.last_mut().expect("a scope").whole.insert(v, x);
        Ok(x)
    }

    /// `v` held as `target` (its global type is `global`).
    pub(crate) fn convert(
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

    /// `v` held as `target`, for a value that may not be a tensor (which is only ever whole).
    pub(crate) fn convert_any(&mut self, v: ValueId, target: &Held) -> Result<ValueId, String> {
        match self.func.value_type(v) {
            Type::Tensor(_) => {
                let global = self.tensor_type(v, "a value")?;
                self.convert(v, target, &global)
            }
            _ => Ok(self.get(v).value),
        }
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

    /// This device's piece of the whole value `x` under `target` (`x`'s type is `global`
    /// at the current level of nesting).
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

    /// This device's id as `tensor<i32>` (emitted once, first in the entry, so that every
    /// region may use it).
    fn partition_id(&mut self) -> ValueId {
        if let Some(p) = self.partition {
            return p;
        }
        let scalar = |d| Type::Tensor(TensorType::new(vec![], d));
        let id = self.func.new_value(scalar(DType::U32), None);
        let p = self.func.new_value(scalar(DType::I32), None);
        let top = &mut self.scopes[0].ops;
        top.insert(0, Op::new(OpKind::PartitionId, vec![], vec![id]));
        top.insert(1, Op::new(OpKind::Convert, vec![id], vec![p]));
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
        self.push(Op::new(kind, operands, vec![r]));
        r
    }

    /// Lowers a manual computation's body in place, one level of nesting down: its arguments
    /// bound to the operands' pieces (held whole there), its returned values made whole there
    /// and held as its results' pieces here.
    fn manual_computation(&mut self, op: Op, attrs: &ManualComputationAttrs) -> Result<(), String> {
        let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
        let own = &attrs.manual_axes;
        if let Some(again) = own.iter().find(|a| self.manual.contains(a)) {
            return Err(format!(
                "sdy.manual_computation{at} is manual over mesh axis \"{again}\", which an \
                 enclosing manual computation already made manual (a nested shard_map must use \
                 other axes)"
            ));
        }
        let free: Vec<String> = self
            .mesh
            .axes
            .iter()
            .map(|(n, _)| n)
            .filter(|n| !own.contains(n) && !self.manual.contains(n))
            .map(|n| format!("\"{n}\""))
            .collect();
        let nests = op.regions.iter().any(|r| {
            let mut found = false;
            walk_ops(r, &mut |o, _| {
                found |= matches!(o.kind, OpKind::ManualComputation(_))
            });
            found
        });
        if !free.is_empty() && !nests {
            return Err(format!(
                "sdy.manual_computation{at} leaves mesh axes {} automatic: this lowering takes \
                 programs manual over every axis (per_device_program sends the others to the \
                 SPMD partitioner)",
                free.join(", ")
            ));
        }
        let Some(Region { blocks }) = op.regions.into_iter().next() else {
            return Err(format!("sdy.manual_computation{at} has no body"));
        };
        let Some(body) = blocks.into_iter().next() else {
            return Err(format!("sdy.manual_computation{at} has an empty body"));
        };
        // Only the computation's own axes split its operands and results here; others a
        // sharding names are automatic hints.
        let own_part = |s: &SdySharding| {
            let mut s = s.clone();
            for d in &mut s.dims {
                d.axes.retain(|a| own.contains(&a.name));
            }
            s
        };
        for (i, (&x, s)) in op.operands.iter().zip(&attrs.in_shardings).enumerate() {
            let what = format!("sdy.manual_computation{at}: operand {i}");
            let global = self.tensor_type(x, &what)?;
            let target = self.held_of(Some(&own_part(s)), &global, &what)?;
            let piece = self.convert(x, &target, &global)?;
            if let Some(&arg) = body.args.get(i) {
                let rank = global.rank();
                self.locals.insert(
                    arg,
                    Local {
                        value: piece,
                        held: vec![vec![]; rank],
                    },
                );
            }
        }
        let depth = self.manual.len();
        self.manual.extend(own.iter().cloned());
        let lowered = self.lower_ops(body.ops);
        let ret = match lowered {
            Ok(Some(ret)) => ret,
            Ok(None) => {
                self.manual.truncate(depth);
                return Err(format!("sdy.manual_computation{at} has no sdy.return"));
            }
            Err(e) => {
                self.manual.truncate(depth);
                return Err(e);
            }
        };
        let returned: Result<Vec<ValueId>, String> =
            ret.operands.iter().map(|&v| self.whole_value(v)).collect();
        self.manual.truncate(depth);
        let returned = returned?;
        for (j, ((&r, &y), s)) in op
            .results
            .iter()
            .zip(&returned)
            .zip(&attrs.out_shardings)
            .enumerate()
        {
            let what = format!("sdy.manual_computation{at}: result {j}");
            let global = self.tensor_type(r, &what)?;
            let held = self.held_of(Some(&own_part(s)), &global, &what)?;
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
            let sharding = self.sharding_attr(self.func.result_attrs.get(j));
            let target = self.held_of(sharding.as_ref(), &global, &what)?;
            layouts.push(self.layout(sharding.as_ref(), &global)?);
            let piece = self.convert(v, &target, &global)?;
            op.operands[j] = piece;
            let local = self.local_shape(&global.shape, &target, &what)?;
            if let Some(ty) = self.func.result_types.get_mut(j) {
                *ty = Type::Tensor(TensorType::new(local, global.dtype));
            }
        }
        self.push(op);
        Ok(layouts)
    }
}

/// Two held forms alike: the same axes per dimension (whole is whole, however written).
pub(crate) fn same_held(a: &Held, b: &Held) -> bool {
    a == b || a.iter().chain(b).all(Vec::is_empty)
}

/// Whether an op's regions hold a manual computation or a sharding constraint (which only
/// this lowering removes).
pub(crate) fn holds_manual(op: &Op) -> bool {
    let mut found = false;
    for r in &op.regions {
        walk_ops(r, &mut |o, _| {
            found |= matches!(
                o.kind,
                OpKind::ManualComputation(_) | OpKind::ShardingConstraint(_)
            )
        });
    }
    found
}

pub(crate) fn sharding_attr(attrs: Option<&Vec<NamedAttr>>) -> Option<SdySharding> {
    attrs?.iter().find_map(|a| match &a.value {
        Attribute::SdySharding(s) if a.name == "sdy.sharding" => Some(s.clone()),
        _ => None,
    })
}

/// The one mesh the entry's shardings and manual computations name (the module's only mesh
/// with axes when none is named); shardings on an axis-less mesh (JAX's `@empty_mesh`, on a
/// `cond` predicate) name none.
pub(crate) fn the_mesh(module: &Module, entry: &Func) -> Result<SdyMesh, String> {
    let axisless = |name: &str| {
        module
            .meshes
            .iter()
            .any(|m| m.name == name && m.axes.is_empty())
    };
    let mut named: Vec<String> = vec![];
    let mut note = |s: &SdySharding| {
        if !named.contains(&s.mesh) && !axisless(&s.mesh) {
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
        [] => {
            let with_axes: Vec<&SdyMesh> = module
                .meshes
                .iter()
                .filter(|m| !m.axes.is_empty())
                .collect();
            match (with_axes.as_slice(), module.meshes.as_slice()) {
                ([one], _) => one.name.clone(),
                ([], [one]) => one.name.clone(),
                _ => {
                    return Err(format!(
                        "@{}: no sharding names a mesh, and the module declares {} meshes",
                        entry.name,
                        module.meshes.len()
                    ))
                }
            }
        }
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

/// The module with its calls inlined when a manual computation sits in a function other than
/// the entry (JAX stages `fori_loop` and `scan` bodies as private functions); `None` when
/// every manual computation is in the entry already.
pub(crate) fn inline_manual_callees(module: &Module) -> Result<Option<Module>, String> {
    let in_callee = module.funcs.iter().any(|f| {
        f.visibility == systolic_ir::Visibility::Private && {
            let mut found = false;
            walk_ops(&f.body, &mut |o, _| {
                found |= matches!(o.kind, OpKind::ManualComputation(_))
            });
            found
        }
    });
    if !in_callee {
        return Ok(None);
    }
    let mut inlined = module.clone();
    Inline.run(&mut inlined).map_err(|d| d.to_string())?;
    Ok(Some(inlined))
}

/// How the entry's manual computations cover the mesh, which decides who lowers them
/// ([`per_device_program`](super::per_device_program)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// Every outermost manual computation is manual over every mesh axis: this lowering.
    Full,
    /// Some outermost one leaves axes free, but the manual computations nested in it make
    /// every axis manual: this lowering can run it (computing the outer body's own ops whole
    /// along the free axes), the partitioner can split those ops too.
    Nested,
    /// Some manual computation leaves axes free with nothing nested to cover them: the
    /// partitioner.
    Partial,
}

/// How the entry's manual computations cover the mesh (no manual computation: `Full`).
pub(crate) fn coverage(func: &Func, mesh: &SdyMesh) -> Coverage {
    fn visit(region: &Region, outer: &[String], mesh: &SdyMesh, top: &mut bool, inner: &mut bool) {
        for block in &region.blocks {
            for op in &block.ops {
                let mut axes = outer.to_vec();
                if let OpKind::ManualComputation(a) = &op.kind {
                    axes.extend(a.manual_axes.iter().cloned());
                    let covers = mesh.axes.iter().all(|(n, _)| axes.contains(n));
                    if outer.is_empty() && !covers {
                        *top = false;
                    }
                    let mut nests = false;
                    for r in &op.regions {
                        walk_ops(r, &mut |o, _| {
                            nests |= matches!(o.kind, OpKind::ManualComputation(_))
                        });
                    }
                    if !nests && !covers {
                        *inner = false;
                    }
                }
                for r in &op.regions {
                    visit(r, &axes, mesh, top, inner);
                }
            }
        }
    }
    let (mut top, mut inner) = (true, true);
    visit(&func.body, &[], mesh, &mut top, &mut inner);
    match (top, inner) {
        (true, _) => Coverage::Full,
        (false, true) => Coverage::Nested,
        (false, false) => Coverage::Partial,
    }
}

/// Manual computations only in the entry (calls already inlined).
fn check_placement(module: &Module, entry: &str) -> Result<(), String> {
    let mut problem = None;
    for f in module.funcs.iter().filter(|f| f.name != entry) {
        walk_ops(&f.body, &mut |op, _| {
            if problem.is_none() && matches!(op.kind, OpKind::ManualComputation(_)) {
                let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
                problem = Some(format!(
                    "@{}: sdy.manual_computation{at} outside the entry @{entry}, in a function \
                     the entry does not call, is not supported",
                    f.name
                ));
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
            | OpKind::CollectiveBroadcast { collective }
            | OpKind::CollectiveReduce { collective } => {
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
