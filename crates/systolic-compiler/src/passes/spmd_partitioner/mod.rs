//! The SPMD partitioner: a global program whose entry carries automatic `sdy.sharding`s
//! rewritten into the program each device runs (pieces in, pieces out, collectives in
//! place), the same [`SpmdModule`] that `lower_manual_computations` makes for shard_map
//! programs.
//!
//! It reads the [`ShardingPlan`] of `propagate_shardings` and follows it op by op over the
//! entry's top level:
//!
//! - every value is held as its planned sharding: each device keeps its piece, whose shape is
//!   the global one divided by the tiles of each dimension (rounded up: a dimension its tiles
//!   do not divide is held in padded pieces, masked where padding would count, [`uneven`]);
//! - an op's operands are first converted to the shardings the op needs (the plan's operand
//!   reshards), then the op runs on the pieces — elementwise ops, `broadcast_in_dim`,
//!   `transpose`, `reshape`, `dot_general`/`dot` and `reduce` keep their attributes, only the
//!   shapes become local; `slice`, `pad`, `concatenate`, `reverse`, `sort`, `map`,
//!   `dynamic_slice` and `dynamic_update_slice` too, the plan keeping the dimensions they work
//!   along whole (a slice's limits and a dynamic slice's sizes on split dimensions become the
//!   pieces');
//! - `while`, `if` and `case` keep their structure, their regions partitioned op by op like
//!   the entry, every carried value in one layout ([`control_flow`]);
//! - `gather` and `scatter` pass their batch and whole dimensions through, and read or write
//!   a sharded indexed dimension on each device's rows (shifted indices, masked rows, a sum)
//!   ([`indexing`]);
//! - `convolution`, `reduce_window` and `select_and_scatter` along a split dimension their
//!   windows tile exchange halos with the neighbouring devices (`collective_permute`), run a
//!   cumulative window (cumsum & co.) as a local one plus the earlier pieces' totals, sum a
//!   weight gradient's rows per device, or gather the dimension where the pieces do not line
//!   up ([`windows`]);
//! - where the plan has reduction axes (a contracting or reduced dimension split over
//!   devices), each device holds a partial result, completed by an `all_reduce` over those
//!   axes (a sum for dots, the reducer itself for `reduce` — whose init value must then be
//!   the reducer's identity unless the reducer is idempotent, or the init would count once
//!   per device) — or by a `reduce_scatter` along a dimension the result is held split over
//!   those same axes ([`reduce_scatter`]);
//! - results the op computes otherwise than they are held (the plan's result reshards) are
//!   converted after it;
//! - splat constants and iotas are made at the piece's shape (an iota counting from the
//!   device's offset); other constants are made whole and sliced per device; any other op runs whole on every device when the plan
//!   shards none of its operands and results.
//!
//! Conversions move axes that only change dimension by `all_to_all`, slice the axes a
//! dimension gains (`dynamic_slice` at `partition_id` offsets), move pieces between devices
//! where the layouts differ only in who holds which tile (`collective_permute`, [`permute`];
//! also a `reverse` along a split dimension) and gather the axes a dimension drops
//! (`all_gather` in tile order, after a permute puts them at the minor end; uneven
//! dimensions whole): correct for every pair of layouts. A conversion that gathers a large
//! array whole is recorded as a warning ([`warnings`]).
//!
//! Anything else is an error naming the op and where it is ("the partitioner does not handle
//! stablehlo.X yet"), never a wrong answer: ops whose sharded form needs more than local
//! shapes on sharded operands, calls (inline first), custom calls, collectives, unreduced
//! axes, reductions over uneven pieces other than `reduce` and dots, scatters with uneven
//! index pieces.

mod control_flow;
mod indexing;
mod manual;
mod permute;
mod reduce_scatter;
mod reshard;
mod uneven;
mod variadic_reduce;
mod warnings;
mod windows;

use super::lower_manual_computations::grid::{held_of, Held, MeshGrid};
use super::lower_manual_computations::{max_channel, set_count, SpmdModule};
use super::sharding_propagation::{propagate_shardings, OpPlan, ReshardSite, ShardingPlan};
use std::collections::HashMap;
use systolic_ir::verify::verify_module;
use systolic_ir::walk::{clone_region, walk_ops, ValueMap};
use systolic_ir::{
    BinaryOp, Block, DType, DTypeKind, Func, Module, Op, OpKind, Region, ReturnKind, SdyMesh,
    SdySharding, ShardLayout, Tensor, TensorType, Type, ValueId,
};

/// A global value as one device holds it.
#[derive(Clone)]
struct Local {
    value: ValueId,
    held: Held,
}

/// The per-device program of `entry` under its propagated shardings; see the module docs.
pub fn partition(module: &Module, entry: &str) -> Result<SpmdModule, String> {
    let plan = propagate_shardings(module, entry)?;
    let index = module
        .funcs
        .iter()
        .position(|f| f.name == entry)
        .ok_or_else(|| format!("no function @{entry}"))?;
    let src = &module.funcs[index];
    let grid = MeshGrid::new(&plan.mesh)?;
    let num_devices = grid.len();
    let mut dst = Func::new(entry);
    dst.visibility = src.visibility;
    dst.attrs = src.attrs.clone();
    dst.arg_attrs = src.arg_attrs.clone();
    dst.result_attrs = src.result_attrs.clone();
    dst.result_types = src.result_types.clone();
    dst.loc = src.loc.clone();
    dst.arg_locs = src.arg_locs.clone();
    dst.span = src.span;
    let mut p = Partitioner {
        src,
        plan: &plan,
        mesh: plan.mesh.clone(),
        grid,
        dst,
        ops: vec![],
        locals: HashMap::new(),
        defs: HashMap::new(),
        converted: HashMap::new(),
        partition: None,
        next_channel: max_channel(module) + 1,
        at: String::new(),
        warnings: vec![],
        manual_axes: vec![],
    };
    let (params, results) = p.run()?;
    let mut out = module.clone();
    out.funcs[index] = p.dst;
    set_count(&mut out, "mhlo.num_partitions", num_devices as i64);
    set_count(&mut out, "mhlo.num_replicas", 1);
    if let Err(diags) = verify_module(&out) {
        return Err(format!(
            "internal: the partitioned form of @{entry} does not verify: {}",
            diags[0]
        ));
    }
    Ok(SpmdModule {
        module: out,
        num_devices,
        params,
        results,
        warnings: p.warnings,
    })
}

struct Partitioner<'a> {
    /// The global entry.
    src: &'a Func,
    plan: &'a ShardingPlan,
    mesh: SdyMesh,
    grid: MeshGrid,
    /// The per-device entry being built.
    dst: Func,
    /// Its top-level ops so far.
    ops: Vec<Op>,
    /// Global value → this device's piece of it.
    locals: HashMap<ValueId, Local>,
    /// Global value → the top-level op of the entry that defines it.
    defs: HashMap<ValueId, &'a Op>,
    /// Global value and layout → its piece under that layout, once converted (a value
    /// several ops need gathered is gathered once).
    converted: HashMap<(ValueId, Held), ValueId>,
    /// `partition_id` as `tensor<i32>`, once emitted.
    partition: Option<ValueId>,
    next_channel: i64,
    /// The op being partitioned, as warnings name it.
    at: String,
    /// Warnings so far ([`warnings`]).
    warnings: Vec<String>,
    /// The mesh axes enclosing manual computations made manual, when `src` is the body of
    /// one split over the axes it leaves free ([`manual`]): its collectives (over manual
    /// axes) then run on the pieces. Empty for the entry.
    manual_axes: Vec<String>,
}

type Layouts = (Vec<ShardLayout>, Vec<ShardLayout>);

impl<'a> Partitioner<'a> {
    fn run(&mut self) -> Result<Layouts, String> {
        let src = self.src;
        let block = src
            .body
            .blocks
            .first()
            .ok_or_else(|| format!("@{} has no body", src.name))?;
        let mut params = vec![];
        let mut layouts = vec![];
        for (i, &p) in block.args.iter().enumerate() {
            let what = format!("@{} argument {i}", src.name);
            let global = self.global_type(p, &what)?;
            let sharding = self.plan.params.get(i).cloned().flatten();
            let held = self.held_of(sharding.as_ref(), &global, &what)?;
            let shape = self.local_shape(&global.shape, &held, &what)?;
            let v = self
                .dst
                .new_value(Type::Tensor(TensorType::new(shape, global.dtype)), None);
            layouts.push(self.layout(sharding.as_ref(), &global)?);
            params.push(v);
            self.locals.insert(p, Local { value: v, held });
        }
        let result_layouts = match self.block_ops(block)? {
            Some(ret) => self.entry_return(ret)?,
            None => vec![],
        };
        self.dst.body = Region::single(Block {
            args: params,
            ops: std::mem::take(&mut self.ops),
        });
        Ok((layouts, result_layouts))
    }

    /// The ops of the entry's block in order, each partitioned by its plan; the function's
    /// return is left to the caller (the entry's results leave as the plan holds them, a
    /// manual computation's body hands them on, [`manual`]).
    fn block_ops(&mut self, block: &'a Block) -> Result<Option<&'a Op>, String> {
        for op in &block.ops {
            for &r in &op.results {
                self.defs.insert(r, op);
            }
        }
        let mut index = 0;
        let mut ret = None;
        for op in &block.ops {
            let plan = self
                .plan
                .ops
                .get(index)
                .filter(|p| p.name == op.kind.name())
                .ok_or_else(|| {
                    format!(
                        "internal: the sharding plan does not follow @{}",
                        self.src.name
                    )
                })?;
            // The plan lists nested ops after their op, in pre-order.
            let mut nested = 0;
            for r in &op.regions {
                walk_ops(r, &mut |_, _| nested += 1);
            }
            index += 1 + nested;
            if let OpKind::Return(ReturnKind::Func) = op.kind {
                ret = Some(op);
            } else {
                self.op(op, plan)?;
            }
        }
        Ok(ret)
    }

    /// One top-level op of the entry, by what its sharded form needs.
    fn op(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        use OpKind::*;
        self.at = warnings::site(op);
        match &op.kind {
            ShardingConstraint(_) => {
                let r = op.results[0];
                let global = self.global_type(r, "a sharding constraint")?;
                let held = self.planned(r, &global)?;
                let x = self.convert(op.operands[0], &held)?;
                self.locals.insert(r, Local { value: x, held });
                Ok(())
            }
            Constant(_) | Iota { .. } => self.whole_then_slice(op),
            Unary(_)
            | Binary(_)
            | Compare { .. }
            | Select
            | Clamp
            | Convert
            | ReducePrecision { .. }
            | ChloUnary(_)
            | ChloBinary(_)
            | BroadcastInDim { .. }
            | Transpose { .. }
            | Reshape
            | DotGeneral { .. }
            | Dot { .. } => self.local_op(op, plan),
            Reverse { .. } => self.reverse_op(op, plan),
            Reduce { .. } if Self::is_split_variadic_reduce(op, plan) => {
                self.variadic_reduce(op, plan)
            }
            Reduce { .. }
            | Slice { .. }
            | Pad { .. }
            | Concatenate { .. }
            | Sort { .. }
            | Map { .. }
            | DynamicSlice { .. }
            | DynamicUpdateSlice => self.local_op(op, plan),
            // Windows along split dimensions: halos, cumulative windows ([`windows`]).
            Convolution(_) | ReduceWindow { .. } | SelectAndScatter { .. } => {
                self.windowed_op(op, plan)
            }
            // Their rules pass batch and feature dimensions and keep matrix, transformed and
            // statistics dimensions whole, so the attributes stay true of the pieces (a
            // bitcast's element-splitting dimension stays whole).
            TriangularSolve { .. }
            | Cholesky { .. }
            | Fft { .. }
            | BatchNormInference { .. }
            | BatchNormTraining { .. }
            | BatchNormGrad { .. }
            | TopK { .. }
            | BitcastConvert
            | OptimizationBarrier => self.local_op(op, plan),
            While => self.while_op(op, plan),
            Gather { .. } => self.gather_op(op, plan),
            Scatter { .. } => self.scatter_op(op, plan),
            If | Case => self.branches_op(op, plan),
            ManualComputation(attrs) => self.manual_op(op, attrs),
            // A manual body's own collectives, over its manual axes: their groups meet
            // devices that hold the same free-axis pieces ([`manual`]).
            AllGather { .. }
            | AllReduce { .. }
            | ReduceScatter { .. }
            | AllToAll { .. }
            | CollectivePermute { .. }
            | CollectiveBroadcast { .. }
            | CollectiveReduce { .. }
                if !self.manual_axes.is_empty() =>
            {
                self.local_op(op, plan)
            }
            ReplicaId | PartitionId if !self.manual_axes.is_empty() => self.whole_op(op),
            Return(_)
            | Call { .. }
            | Broadcast { .. }
            | GetDimensionSize { .. }
            | Tuple
            | GetTupleElement { .. }
            | AfterAll
            | CreateToken
            | RngBitGenerator { .. }
            | Rng { .. }
            | Check(_) => self.whole_if_unsharded(op, plan),
            Composite { .. }
            | CustomCall { .. }
            | AllGather { .. }
            | AllReduce { .. }
            | ReduceScatter { .. }
            | AllToAll { .. }
            | CollectivePermute { .. }
            | CollectiveBroadcast { .. }
            | CollectiveReduce { .. }
            | ReplicaId
            | PartitionId
            | Send { .. }
            | Recv { .. }
            | Infeed { .. }
            | Outfeed { .. }
            | RunParallel { .. }
            | InterpreterProbe { .. }
            | InterpreterPrint
            | UniformQuantize
            | UniformDequantize
            | RaggedDot { .. }
            | Scan { .. }
            | Fusion { .. } => Err(unhandled(op, "")),
        }
    }

    /// The op on the pieces: operands converted to what the plan needs, results of the
    /// pieces' shapes, partial results completed over the reduction axes, then results
    /// converted to how they are held.
    fn local_op(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        if !plan.notes.is_empty() && plan.reduction_axes.is_empty() {
            // A sharding the plan could not pass through (a reshape's minor factor split
            // while its major one is whole): the operands do not carry every split the
            // results are computed with, so the op runs whole.
            return self.whole_op(op);
        }
        if matches!(op.kind, OpKind::Reshape) && self.touches_uneven(op, plan)? {
            // Padded pieces do not reshape into pieces ([`uneven`]).
            return self.whole_op(op);
        }
        let mut operands = vec![];
        let mut needs = vec![];
        for (k, &x) in op.operands.iter().enumerate() {
            let global = self.global_type(x, &located(op, &format!("operand {k}")))?;
            let needed = self.needed(plan, k, x, &global)?;
            operands.push(self.convert(x, &needed)?);
            needs.push(needed);
        }
        let operands = self.mask_reduced_padding(op, plan, &needs, operands)?;
        let kind = local_kind(
            op,
            &needs,
            &self.src_shapes(op)?,
            |x| self.local_type(x),
            &operands,
        )?;
        let mut computed = vec![];
        let mut results = vec![];
        for (j, &r) in op.results.iter().enumerate() {
            let global = self.global_type(r, &located(op, &format!("result {j}")))?;
            let held = self.computed(plan, j, r, &global)?;
            let shape = self.local_shape(&global.shape, &held, &located(op, "a result"))?;
            let ty = Type::Tensor(TensorType::new(shape, global.dtype));
            results.push(self.dst.new_value(ty, None));
            computed.push((held, global));
        }
        if let OpKind::Reshape = op.kind {
            let a = self.local_type(operands[0])?.num_elements();
            let b = self.local_type(results[0])?.num_elements();
            if a != b {
                return Err(format!(
                    "internal: {}: the planned pieces of its operand and result differ in size",
                    located(op, "reshape")
                ));
            }
        }
        let regions = self.copy_regions(op)?;
        let mut new = op.clone();
        new.kind = kind;
        new.operands = operands;
        new.results = results.clone();
        new.regions = regions;
        new.attrs.retain(|a| a.name != "sdy.sharding");
        self.ops.push(new);
        for (j, (&r, (held, global))) in op.results.iter().zip(computed).enumerate() {
            let target = self.planned(r, &global)?;
            let reduction = &plan.reduction_axes;
            let v = self.complete(op, results[j], held, &target, reduction, &global)?;
            self.locals.insert(
                r,
                Local {
                    value: v,
                    held: target,
                },
            );
        }
        Ok(())
    }

    /// `op`'s regions copied unchanged into the per-device program (reducers, comparators,
    /// bodies of ops that run on pieces as they are).
    fn copy_regions(&mut self, op: &Op) -> Result<Vec<Region>, String> {
        let mut regions = vec![];
        for r in &op.regions {
            let mut map = ValueMap::new();
            let region = clone_region(self.src, r, &mut self.dst, &mut map)
                .map_err(|e| located(op, &e.message))?;
            regions.push(region);
        }
        Ok(regions)
    }

    /// How partial results of `op` combine across devices: a sum for dots; for `reduce`, its
    /// own reducer, when folding the init value in once per device gives the same answer.
    fn reducer(&mut self, op: &'a Op, dtype: systolic_ir::DType) -> Result<Region, String> {
        match &op.kind {
            OpKind::DotGeneral { .. } | OpKind::Dot { .. } | OpKind::Convolution(_) => {
                Ok(self.sum_region(dtype))
            }
            OpKind::Reduce { .. } => {
                if op.operands.len() != 2 {
                    return Err(unhandled(
                        op,
                        " with several inputs over a sharded dimension",
                    ));
                }
                let body = &op.regions[0];
                let Some(combine) = reducer_op(body) else {
                    return Err(unhandled(
                        op,
                        " over a sharded dimension with a reducer other than one add, \
                         multiply, maximum, minimum, and or or",
                    ));
                };
                let identity = match combine {
                    BinaryOp::Add => Some(0.0),
                    BinaryOp::Multiply => Some(1.0),
                    _ => None, // idempotent: any init value is fine
                };
                if let Some(want) = identity {
                    let init = self.defs.get(&op.operands[1]).map(|d| &d.kind);
                    let ok = matches!(init, Some(OpKind::Constant(t))
                        if t.to_f64_vec().iter().all(|&x| x == want));
                    if !ok {
                        return Err(unhandled(
                            op,
                            &format!(
                                " over a sharded dimension with an init value that is not the \
                                 constant {want} (each device's partial result would fold it \
                                 in once more)"
                            ),
                        ));
                    }
                }
                let mut map = ValueMap::new();
                clone_region(self.src, body, &mut self.dst, &mut map)
                    .map_err(|e| located(op, &e.message))
            }
            // A scatter's update computation, checked by the scatter's handler to be one
            // commutative combine (the parts it completes were scattered into its identity).
            OpKind::Scatter { .. } if reducer_op(&op.regions[0]).is_some() => {
                let mut map = ValueMap::new();
                clone_region(self.src, &op.regions[0], &mut self.dst, &mut map)
                    .map_err(|e| located(op, &e.message))
            }
            _ => Err(unhandled(op, " with sharded reduction factors")),
        }
    }

    /// Constants and iotas: made whole on every device, then sliced to their planned pieces.
    fn whole_then_slice(&mut self, op: &'a Op) -> Result<(), String> {
        if let OpKind::Constant(t) = &op.kind {
            let n = t.num_elements();
            if n > 1 && (1..n).all(|k| t.bits(k) == t.bits(0)) {
                return self.splat(op, t);
            }
        }
        if let OpKind::Iota { dimension } = op.kind {
            let global = self.global_type(op.results[0], &located(op, "its result"))?;
            if global.dtype.kind() != DTypeKind::Bool {
                return self.local_iota(op, dimension, &global);
            }
        }
        // Anything else has no operands: made whole, then sliced, as any whole op.
        self.whole_op(op)
    }

    /// A constant of one repeated element: made at the piece's shape on each device.
    fn splat(&mut self, op: &'a Op, t: &Tensor) -> Result<(), String> {
        let r = op.results[0];
        let global = self.global_type(r, &located(op, "its result"))?;
        let held = self.planned(r, &global)?;
        let shape = self.local_shape(&global.shape, &held, &located(op, "its result"))?;
        let ty = TensorType::new(shape, global.dtype);
        let data = t.data().gather(&vec![0; ty.num_elements()]);
        let local = Tensor::new(ty.clone(), data).map_err(|e| located(op, &e.to_string()))?;
        let mut new = op.clone();
        new.attrs.retain(|a| a.name != "sdy.sharding");
        new.kind = OpKind::Constant(local);
        let v = self.dst.new_value(Type::Tensor(ty), None);
        new.results = vec![v];
        self.ops.push(new);
        self.locals.insert(r, Local { value: v, held });
        Ok(())
    }

    /// An iota made at the piece's shape: counted in `i32` from this device's offset along
    /// the counting dimension, then converted (so each element is what the global iota
    /// holds there, whatever the rounding of its type).
    fn local_iota(
        &mut self,
        op: &'a Op,
        dimension: i64,
        global: &TensorType,
    ) -> Result<(), String> {
        let r = op.results[0];
        let held = self.planned(r, global)?;
        let shape = self.local_shape(&global.shape, &held, &located(op, "its result"))?;
        let d = dimension as usize;
        if global.shape.get(d).is_none_or(|&n| n > i64::from(i32::MAX)) {
            return Err(unhandled(op, " of this size"));
        }
        let counts = TensorType::new(shape.clone(), DType::I32);
        let mut v = self.emit(
            OpKind::Iota { dimension },
            vec![],
            Type::Tensor(counts.clone()),
            vec![],
        );
        if !held[d].is_empty() {
            let offset = self.offset(&held[d], shape[d])?;
            let offsets = self.emit(
                OpKind::BroadcastInDim {
                    broadcast_dimensions: vec![],
                },
                vec![offset],
                Type::Tensor(counts.clone()),
                vec![],
            );
            v = self.emit(
                OpKind::Binary(BinaryOp::Add),
                vec![v, offsets],
                Type::Tensor(counts),
                vec![],
            );
        }
        if global.dtype != DType::I32 {
            let ty = Type::Tensor(TensorType::new(shape, global.dtype));
            v = self.emit(OpKind::Convert, vec![v], ty, vec![]);
        }
        self.locals.insert(r, Local { value: v, held });
        Ok(())
    }

    /// The global shapes of `op`'s operands.
    fn src_shapes(&self, op: &Op) -> Result<Vec<Vec<i64>>, String> {
        op.operands
            .iter()
            .map(|&x| Ok(self.global_type(x, &located(op, "an operand"))?.shape))
            .collect()
    }

    /// An op whose sharded form is not written yet: exact when the plan shards none of its
    /// operands and results (it runs whole on every device), an error otherwise.
    fn whole_if_unsharded(&mut self, op: &'a Op, plan: &OpPlan) -> Result<(), String> {
        if !op.regions.is_empty() {
            return Err(unhandled(op, ""));
        }
        for (k, &x) in op.operands.iter().enumerate() {
            let global = self.global_type(x, &located(op, &format!("operand {k}")))?;
            if self
                .needed(plan, k, x, &global)?
                .iter()
                .any(|a| !a.is_empty())
            {
                return Err(unhandled(op, " on sharded operands"));
            }
        }
        for (j, &r) in op.results.iter().enumerate() {
            let global = self.global_type(r, &located(op, &format!("result {j}")))?;
            if self
                .computed(plan, j, r, &global)?
                .iter()
                .any(|a| !a.is_empty())
            {
                return Err(unhandled(op, " with sharded results"));
            }
        }
        self.whole_op(op)
    }

    /// `op` on whole values on every device (its operands gathered), its results then sliced
    /// to how they are held.
    fn whole_op(&mut self, op: &'a Op) -> Result<(), String> {
        if !op.regions.is_empty() {
            return Err(unhandled(op, " where its sharding cannot pass through"));
        }
        let mut new = op.clone();
        new.attrs.retain(|a| a.name != "sdy.sharding");
        for (k, &x) in op.operands.iter().enumerate() {
            let global = self.global_type(x, &located(op, &format!("operand {k}")))?;
            new.operands[k] = self.convert(x, &vec![vec![]; global.rank()])?;
        }
        new.results = vec![];
        let mut wholes = vec![];
        for &r in &op.results {
            let v = self.dst.new_value(self.src.value_type(r).clone(), None);
            new.results.push(v);
            wholes.push(v);
        }
        self.ops.push(new);
        for (&r, w) in op.results.iter().zip(wholes) {
            let global = self.global_type(r, &located(op, "its result"))?;
            let target = self.planned(r, &global)?;
            let whole = Local {
                value: w,
                held: vec![vec![]; global.rank()],
            };
            let v = self.convert_local(&whole, &target, &global)?;
            self.locals.insert(
                r,
                Local {
                    value: v,
                    held: target,
                },
            );
        }
        Ok(())
    }

    /// The entry's results leave as the plan holds them; the result types become the pieces'.
    fn entry_return(&mut self, op: &'a Op) -> Result<Vec<ShardLayout>, String> {
        self.at = format!("the return of @{}", self.src.name);
        let mut layouts = vec![];
        let mut operands = vec![];
        for (j, &v) in op.operands.iter().enumerate() {
            let what = format!("@{} result {j}", self.src.name);
            let global = self.global_type(v, &what)?;
            let sharding = self.plan.results.get(j).cloned().flatten();
            let target = self.held_of(sharding.as_ref(), &global, &what)?;
            layouts.push(self.layout(sharding.as_ref(), &global)?);
            operands.push(self.convert(v, &target)?);
            let shape = self.local_shape(&global.shape, &target, &what)?;
            if let Some(ty) = self.dst.result_types.get_mut(j) {
                *ty = Type::Tensor(TensorType::new(shape, global.dtype));
            }
        }
        let mut new = op.clone();
        new.operands = operands;
        self.ops.push(new);
        Ok(layouts)
    }

    /// The piece of global value `x` re-laid out as `to`.
    fn convert(&mut self, x: ValueId, to: &Held) -> Result<ValueId, String> {
        let local = self
            .locals
            .get(&x)
            .cloned()
            .ok_or_else(|| format!("internal: no per-device value for {x:?}"))?;
        if let Some(&v) = self.converted.get(&(x, to.clone())) {
            return Ok(v);
        }
        let global = self.global_type(x, "a value")?;
        let v = self.convert_local(&local, to, &global)?;
        self.converted.insert((x, to.clone()), v);
        Ok(v)
    }

    /// How operand `k` (global value `x`) must be held for the op: the plan's operand reshard
    /// if it has one, else as the value is held.
    fn needed(
        &self,
        plan: &OpPlan,
        k: usize,
        x: ValueId,
        global: &TensorType,
    ) -> Result<Held, String> {
        let reshard = plan
            .reshards
            .iter()
            .find(|r| r.at == ReshardSite::Operand(k));
        match reshard {
            Some(r) => self.held_of(Some(&r.to), global, "an operand reshard"),
            None => self.planned(x, global),
        }
    }

    /// How the op computes result `j` (global value `r`): the plan's result reshard's source
    /// if it has one, else as the value is held.
    fn computed(
        &self,
        plan: &OpPlan,
        j: usize,
        r: ValueId,
        global: &TensorType,
    ) -> Result<Held, String> {
        let reshard = plan
            .reshards
            .iter()
            .find(|s| s.at == ReshardSite::Result(j));
        match reshard {
            Some(s) => self.held_of(Some(&s.from), global, "a result reshard"),
            None => self.planned(r, global),
        }
    }

    /// How the plan holds global value `v`.
    fn planned(&self, v: ValueId, global: &TensorType) -> Result<Held, String> {
        self.held_of(self.plan.sharding(v), global, "a value")
    }
    /// The held form of a value of `global` type under `sharding` (whole without one).
    fn held_of(
        &self,
        sharding: Option<&SdySharding>,
        global: &TensorType,
        what: &str,
    ) -> Result<Held, String> {
        if let Some(s) = sharding.filter(|s| !s.unreduced.is_empty()) {
            return Err(format!(
                "{what}: sharding {s} has unreduced axes, which the partitioner does not \
                 handle yet"
            ));
        }
        held_of(&self.mesh, sharding, global, what)
    }
    /// The piece of a value of `shape` held as `held` (padded where uneven, [`uneven`]).
    fn local_shape(&self, shape: &[i64], held: &Held, what: &str) -> Result<Vec<i64>, String> {
        uneven::padded_shape(&self.grid, shape, held, what)
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

    /// The global type of a global value.
    fn global_type(&self, v: ValueId, what: &str) -> Result<TensorType, String> {
        match self.src.value_type(v) {
            Type::Tensor(t) => Ok(t.clone()),
            other => Err(format!(
                "{what} has type {other}; the partitioner lays out only tensors"
            )),
        }
    }
}

/// `op`'s kind for the pieces its operands arrive as (`needs`, per operand the axes of each
/// dimension; `locals` the pieces): shape attributes of sharded dimensions made local, and a
/// check that no dimension the op reads across (sorted, reversed, joined, padded, sliced) is
/// split — the plan blocks those, so this guards a wrong answer, not a normal path.
fn local_kind(
    op: &Op,
    needs: &[Held],
    global: &[Vec<i64>],
    local_type: impl Fn(ValueId) -> Result<TensorType, String>,
    locals: &[ValueId],
) -> Result<OpKind, String> {
    let split = |d: i64| {
        needs
            .iter()
            .any(|h| h.get(d as usize).is_some_and(|a| !a.is_empty()))
    };
    let across = |dims: &[i64]| -> Result<(), String> {
        match dims.iter().find(|&&d| split(d)) {
            Some(d) => Err(unhandled(op, &format!(" along its sharded dimension {d}"))),
            None => Ok(()),
        }
    };
    let mut kind = op.kind.clone();
    match &mut kind {
        OpKind::Sort { dimension, .. } | OpKind::Concatenate { dimension } => {
            across(&[*dimension])?
        }
        OpKind::Reverse { dimensions } => across(dimensions)?,
        OpKind::AllGather { all_gather_dim, .. } => across(&[*all_gather_dim])?,
        OpKind::ReduceScatter {
            scatter_dimension, ..
        } => across(&[*scatter_dimension])?,
        OpKind::AllToAll {
            split_dimension,
            concat_dimension,
            ..
        } => across(&[*split_dimension, *concat_dimension])?,
        // Dimensions sliced whole (the start clamps to 0) take the piece whole; any other
        // dimension must be whole.
        OpKind::DynamicSlice { slice_sizes } => {
            let piece = local_type(locals[0])?;
            for d in 0..slice_sizes.len() {
                if split(d as i64) {
                    if slice_sizes[d] != global[0][d] {
                        across(&[d as i64])?;
                    }
                    slice_sizes[d] = piece.shape[d];
                }
            }
        }
        // Operand dimensions taken whole keep the piece whole (indexed ones are the gather
        // handler's).
        OpKind::Gather {
            dimension_numbers,
            slice_sizes,
            ..
        } => {
            let piece = local_type(locals[0])?;
            for (d, axes) in needs[0].iter().enumerate() {
                if axes.is_empty() {
                    continue;
                }
                if dimension_numbers.start_index_map.contains(&(d as i64))
                    || slice_sizes[d] != global[0][d]
                {
                    return Err(unhandled(op, &format!(" along its sharded dimension {d}")));
                }
                slice_sizes[d] = piece.shape[d];
            }
        }
        OpKind::DynamicUpdateSlice => {
            for d in 0..global[0].len() {
                if split(d as i64) && global.get(1).and_then(|u| u.get(d)) != Some(&global[0][d]) {
                    across(&[d as i64])?;
                }
            }
        }
        OpKind::Slice {
            start_indices,
            limit_indices,
            strides,
        } => {
            let piece = local_type(locals[0])?;
            for d in 0..limit_indices.len() {
                if !split(d as i64) {
                    continue;
                }
                let whole =
                    start_indices[d] == 0 && strides[d] == 1 && limit_indices[d] == global[0][d];
                if !whole {
                    across(&[d as i64])?;
                }
                limit_indices[d] = piece.shape[d];
            }
        }
        OpKind::Pad {
            edge_padding_low,
            edge_padding_high,
            interior_padding,
        } => {
            for d in 0..edge_padding_low.len() {
                let padded = edge_padding_low[d] != 0
                    || edge_padding_high[d] != 0
                    || interior_padding[d] != 0;
                if padded {
                    across(&[d as i64])?;
                }
            }
        }
        // The other ops `local_op` takes have no attribute that names a size.
        _ => {}
    }
    Ok(kind)
}

/// The one binary op a reducer body applies to its two arguments, if that is all it does.
fn reducer_op(body: &Region) -> Option<BinaryOp> {
    let block = body.blocks.first()?;
    let [a, b] = block.args.as_slice() else {
        return None;
    };
    let [combine, ret] = block.ops.as_slice() else {
        return None;
    };
    let OpKind::Binary(op) = combine.kind else {
        return None;
    };
    let args_ok = combine.operands == [*a, *b] || combine.operands == [*b, *a];
    let ret_ok = matches!(ret.kind, OpKind::Return(_)) && ret.operands == combine.results;
    let known = matches!(
        op,
        BinaryOp::Add
            | BinaryOp::Multiply
            | BinaryOp::Maximum
            | BinaryOp::Minimum
            | BinaryOp::And
            | BinaryOp::Or
    );
    (args_ok && ret_ok && known).then_some(op)
}

/// `what` about `op`, with where it is.
fn located(op: &Op, what: &str) -> String {
    let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
    format!("{}{at}: {what}", op.kind.name())
}

/// The error for an op the partitioner cannot rewrite (`detail` says in which form).
fn unhandled(op: &Op, detail: &str) -> String {
    let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
    format!(
        "the partitioner does not handle {}{detail} yet{at}",
        op.kind.name()
    )
}
