//! The planner: a block of ops with arguments and returned values (a fusion's region, or one
//! standalone op) → a [`LoopProgram`].
//!
//! Values are either views (strided windows of an operand, a constant, an iota or a
//! temporary; see [`View`]) or registers computed in a stage. An elementwise op goes into the
//! stage of its result's shape at the level of its operands; a view op applied to a computed
//! value stores that value into a temporary (the next level reads it), which keeps every stage
//! a plain loop over one shape.

use super::elementwise::{self, Body};
use super::program::{Access, Dest, Instr, LoopProgram, RegId, Source, Stage};
use super::reduce::plan::RowFoldFn;
use super::reduce::reducer::{recognise, row_fold};
use super::reg::Lane;
use super::view::View;
use crate::buffer::CpuBuffer;
use std::collections::HashMap;
use systolic_ir::{BinaryOp, Block, DType, ElementCost, Op, OpKind, Tensor, TensorType, ValueId};

/// A block of ops to compile: its arguments (the kernel's operands, in order), its ops in
/// order (a trailing `return` is ignored) and the values it returns (the kernel's results).
pub struct BlockSpec<'a> {
    /// Block arguments.
    pub args: &'a [ValueId],
    /// The ops.
    pub ops: &'a [Op],
    /// Values returned.
    pub results: &'a [ValueId],
}

impl<'a> BlockSpec<'a> {
    /// A region's block as compiled: its arguments, its ops and the operands of its trailing
    /// `return` as results; `None` when it does not end in a `return`.
    pub fn of_block(block: &'a Block) -> Option<BlockSpec<'a>> {
        let ret = block.ops.last()?;
        matches!(ret.kind, OpKind::Return(_)).then_some(BlockSpec {
            args: &block.args,
            ops: &block.ops,
            results: &ret.operands,
        })
    }

    /// One op alone: its operands, itself and its results.
    pub fn of_op(op: &'a Op) -> BlockSpec<'a> {
        BlockSpec {
            args: &op.operands,
            ops: std::slice::from_ref(op),
            results: &op.results,
        }
    }
}

/// Why a block cannot become a loop program (the op is then left to another kernel or the
/// interpreter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

type Plan<T> = Result<T, Unsupported>;

macro_rules! unsupported {
    ($($arg:tt)*) => { return Err(Unsupported(format!($($arg)*))) };
}

/// A value of the block while planning.
#[derive(Clone, Debug)]
enum Val {
    View(View),
    Reg {
        stage: usize,
        reg: RegId,
        dtype: DType,
    },
}

/// A stage being built.
struct StageBuilder {
    level: usize,
    shape: Vec<i64>,
    body: Vec<Instr>,
    regs: Vec<Lane>,
    loads: HashMap<Access, RegId>,
    /// Temporaries already stored from a register of this stage.
    stored: HashMap<RegId, usize>,
}

impl StageBuilder {
    fn new_reg(&mut self, lane: Lane) -> RegId {
        self.regs.push(lane);
        self.regs.len() - 1
    }
}

/// The rows of a row program (see [`super::rows`]): reduces over the innermost `dims` of
/// `input_shape` fold in the stage computing their input, one accumulator per row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSpace {
    /// The shape every reduce of the block reads.
    pub input_shape: Vec<i64>,
    /// The reduced dimensions: the innermost ones, in order.
    pub dims: Vec<i64>,
}

/// A reduce of a row program: its accumulators (one per row, starting from `init`) become
/// temporary `temp` (of the reduce's result type) once the stage folding them has run.
#[derive(Clone, Debug)]
pub struct FoldSpec {
    /// The temporary holding the reduce's result.
    pub temp: usize,
    /// A uniform access to the init value (an operand or a constant).
    pub init: Access,
    /// The accumulator dtype.
    pub dtype: DType,
}

/// Plans `block`; `type_of` gives the tensor type of a value.
pub fn plan(
    block: &BlockSpec,
    type_of: &dyn Fn(ValueId) -> Option<TensorType>,
) -> Plan<LoopProgram> {
    plan_ordered(block, type_of, None)
}

/// Plans `block` with the loop dimensions of the stages that store results visited in the
/// order `order` (a permutation of their shape's dimensions, outermost first) instead of
/// row-major. The reduction kernels use it to put reduced dimensions outside kept ones; the
/// flat position of an element is then its index in that order.
pub fn plan_ordered(
    block: &BlockSpec,
    type_of: &dyn Fn(ValueId) -> Option<TensorType>,
    order: Option<&[usize]>,
) -> Plan<LoopProgram> {
    Ok(plan_with(block, type_of, order, None)?.0)
}

/// Plans a block whose reduces all read `space.input_shape` over its innermost dimensions:
/// each reduce becomes an [`Instr::Fold`] in the stage of its input and a temporary read by
/// later stages (see [`super::rows`] for how such a program runs).
pub fn plan_rows(
    block: &BlockSpec,
    type_of: &dyn Fn(ValueId) -> Option<TensorType>,
    space: RowSpace,
) -> Plan<(LoopProgram, Vec<FoldSpec>)> {
    plan_with(block, type_of, None, Some(space))
}

fn plan_with(
    block: &BlockSpec,
    type_of: &dyn Fn(ValueId) -> Option<TensorType>,
    order: Option<&[usize]>,
    rows: Option<RowSpace>,
) -> Plan<(LoopProgram, Vec<FoldSpec>)> {
    let mut p = Planner {
        type_of,
        vals: HashMap::new(),
        constants: vec![],
        temp_types: vec![],
        stages: vec![],
        by_key: HashMap::new(),
        rows,
        folds: vec![],
        recipes: HashMap::new(),
        sunk: HashMap::new(),
    };
    let mut arg_types = Vec::with_capacity(block.args.len());
    for (i, &a) in block.args.iter().enumerate() {
        let ty = p.ty(a)?;
        p.vals.insert(
            a,
            Val::View(View::dense(Source::Arg(i), ty.dtype, &ty.shape, 0)),
        );
        arg_types.push(ty);
    }
    for op in block.ops {
        if matches!(op.kind, OpKind::Return(_)) {
            continue;
        }
        p.op(op)?;
    }
    let mut result_types = Vec::with_capacity(block.results.len());
    for (i, &r) in block.results.iter().enumerate() {
        let ty = p.ty(r)?;
        p.store_result(r, &ty, Dest::Output(i))?;
        result_types.push(ty);
    }
    let folds = std::mem::take(&mut p.folds);
    Ok((p.finish(arg_types, result_types, order), folds))
}

struct Planner<'a> {
    type_of: &'a dyn Fn(ValueId) -> Option<TensorType>,
    vals: HashMap<ValueId, Val>,
    constants: Vec<crate::buffer::Storage>,
    temp_types: Vec<TensorType>,
    stages: Vec<StageBuilder>,
    by_key: HashMap<(usize, Vec<i64>), usize>,
    /// Set for row programs (reduces allowed).
    rows: Option<RowSpace>,
    folds: Vec<FoldSpec>,
    /// Cheap elementwise ops computable from views alone (directly or through other such
    /// ops), by result: a row program recomputes them where they are needed instead of
    /// carrying them to a later stage through a full-row temporary (see [`Planner::sink`]).
    recipes: HashMap<ValueId, Op>,
    /// Values recomputed in a stage: (stage, value) → register.
    sunk: HashMap<(usize, ValueId), RegId>,
}

impl Planner<'_> {
    fn ty(&self, v: ValueId) -> Plan<TensorType> {
        match (self.type_of)(v) {
            Some(t) => Ok(t),
            None => unsupported!("value #{} is not a tensor", v.0),
        }
    }

    fn val(&self, v: ValueId) -> Plan<Val> {
        match self.vals.get(&v) {
            Some(x) => Ok(x.clone()),
            None => unsupported!("value #{} is defined outside the block", v.0),
        }
    }

    fn stage(&mut self, level: usize, shape: &[i64]) -> usize {
        let key = (level, shape.to_vec());
        if let Some(&s) = self.by_key.get(&key) {
            return s;
        }
        self.stages.push(StageBuilder {
            level,
            shape: shape.to_vec(),
            body: vec![],
            regs: vec![],
            loads: HashMap::new(),
            stored: HashMap::new(),
        });
        self.by_key.insert(key, self.stages.len() - 1);
        self.stages.len() - 1
    }

    fn level(&self, v: &Val) -> usize {
        match v {
            Val::View(view) => view.level,
            Val::Reg { stage, .. } => self.stages[*stage].level,
        }
    }

    /// A view of `v`: itself, or its register stored into a temporary.
    fn as_view(&mut self, v: &Val) -> View {
        match v {
            Val::View(view) => view.clone(),
            Val::Reg { stage, reg, dtype } => {
                let (stage, reg, dtype) = (*stage, *reg, *dtype);
                let level = self.stages[stage].level;
                let shape = self.stages[stage].shape.clone();
                let temp = match self.stages[stage].stored.get(&reg) {
                    Some(&t) => t,
                    None => {
                        self.temp_types.push(TensorType::new(shape.clone(), dtype));
                        let t = self.temp_types.len() - 1;
                        let s = &mut self.stages[stage];
                        s.body.push(Instr::Store {
                            src: reg,
                            dtype,
                            dest: Dest::Temp(t),
                        });
                        s.stored.insert(reg, t);
                        t
                    }
                };
                View::dense(Source::Temp(temp), dtype, &shape, level + 1)
            }
        }
    }

    /// A view copied into a temporary (for reshapes no stride pattern expresses).
    fn copy_view(&mut self, view: &View) -> View {
        let s = self.stage(view.level, &view.shape);
        let reg = self.load(s, view);
        self.as_view(&Val::Reg {
            stage: s,
            reg,
            dtype: view.access.dtype,
        })
    }

    fn load(&mut self, stage: usize, view: &View) -> RegId {
        let s = &mut self.stages[stage];
        if let Some(&r) = s.loads.get(&view.access) {
            return r;
        }
        let reg = s.new_reg(Lane::of(view.access.dtype));
        s.body.push(Instr::Load {
            access: view.access.clone(),
            dst: reg,
        });
        s.loads.insert(view.access.clone(), reg);
        reg
    }

    /// The register holding operand `v` in stage `stage` (scalars broadcast when allowed).
    fn operand(&mut self, stage: usize, v: ValueId, scalar_ok: bool) -> Plan<RegId> {
        let val = self.val(v)?;
        let shape = self.stages[stage].shape.clone();
        if let Val::Reg { stage: s, reg, .. } = val {
            if s == stage {
                return Ok(reg);
            }
            let unread = !self.stages[s].body.iter().any(|i| reads(i).contains(&reg));
            if self.rows.is_some() && (unread || self.one_op_from_views(v)) {
                if let Some(reg) = self.sink(stage, v)? {
                    return Ok(reg);
                }
            }
        }
        let view = self.as_view(&val);
        let view = if view.shape == shape {
            view
        } else if scalar_ok && view.shape.is_empty() {
            match view.broadcast_in_dim(&shape, &[]) {
                Some(b) => b,
                None => unsupported!("cannot broadcast a scalar to {shape:?}"),
            }
        } else {
            unsupported!("operand of shape {:?} in a loop over {shape:?}", view.shape)
        };
        Ok(self.load(stage, &view))
    }

    /// Whether `v`'s recipe is one cheap op of views only (`x − max` of a softmax: an operand
    /// and a per-row temporary): recomputing it in a later stage costs one pass over registers
    /// that are read in place, where carrying it costs a store into a chunk-sized temporary
    /// (a `memmove` per block, 9% of a softmax cross-entropy in `perf`) — so such a value is
    /// recomputed even when the stage computing it reads it too.
    fn one_op_from_views(&self, v: ValueId) -> bool {
        self.recipes.get(&v).is_some_and(|op| {
            op.operands
                .iter()
                .all(|o| matches!(self.vals.get(o), Some(Val::View(_))))
        })
    }

    /// Recomputes value `v` in `stage` from its recipe (see [`Planner::recipes`]), when it
    /// has one and is computed over the stage's shape; None otherwise. A value nothing reads
    /// in the stage that computed it (a one-hot of labels, needed only by the last stage of a
    /// cross-entropy) then never goes through a temporary: no store there, no load here, and
    /// its first computation is dead (removed when the stage is finished).
    fn sink(&mut self, stage: usize, v: ValueId) -> Plan<Option<RegId>> {
        if let Some(&r) = self.sunk.get(&(stage, v)) {
            return Ok(Some(r));
        }
        let Some(op) = self.recipes.get(&v).cloned() else {
            return Ok(None);
        };
        let rty = self.ty(v)?;
        if rty.shape != self.stages[stage].shape {
            return Ok(None);
        }
        let mut dtypes = Vec::with_capacity(op.operands.len());
        for &o in &op.operands {
            dtypes.push(self.ty(o)?.dtype);
        }
        let Some(body) = elementwise::resolve(&op.kind, &dtypes, rty.dtype) else {
            return Ok(None);
        };
        if arity(&body) != op.operands.len() {
            return Ok(None);
        }
        let mut inputs = Vec::with_capacity(op.operands.len());
        for (i, &o) in op.operands.iter().enumerate() {
            let reg = match self.val(o)? {
                Val::Reg { stage: s, reg, .. } if s == stage => reg,
                Val::Reg { .. } => match self.sink(stage, o)? {
                    Some(r) => r,
                    None => return Ok(None),
                },
                Val::View(_) => self.operand(stage, o, op.kind == OpKind::Select && i == 0)?,
            };
            inputs.push(reg);
        }
        let dst = self.apply(stage, body, inputs, rty.dtype);
        self.sunk.insert((stage, v), dst);
        Ok(Some(dst))
    }

    fn op(&mut self, op: &Op) -> Plan<()> {
        if let OpKind::Reduce { dimensions } = &op.kind {
            return self.reduce(op, dimensions);
        }
        let [result] = op.results.as_slice() else {
            unsupported!("{} with {} results", op.kind.name(), op.results.len());
        };
        let rty = self.ty(*result)?;
        let view_of = |p: &mut Self, i: usize| -> Plan<View> {
            let Some(&v) = op.operands.get(i) else {
                unsupported!("{} is missing operand {i}", op.kind.name());
            };
            let val = p.val(v)?;
            Ok(p.as_view(&val))
        };
        let new_view = match &op.kind {
            OpKind::Constant(t) => Some(Some(self.constant(t))),
            OpKind::Iota { dimension } => {
                let d = usize::try_from(*dimension).unwrap_or(usize::MAX);
                if d >= rty.shape.len() {
                    unsupported!("iota dimension {dimension} of {rty}");
                }
                Some(Some(View::iota(rty.dtype, &rty.shape, d)))
            }
            OpKind::BroadcastInDim {
                broadcast_dimensions,
            } => Some(view_of(self, 0)?.broadcast_in_dim(&rty.shape, broadcast_dimensions)),
            OpKind::Broadcast { broadcast_sizes } => {
                let v = view_of(self, 0)?;
                let k = broadcast_sizes.len();
                let dims: Vec<i64> = (k..k + v.shape.len()).map(|d| d as i64).collect();
                Some(v.broadcast_in_dim(&rty.shape, &dims))
            }
            OpKind::Transpose { permutation } => Some(view_of(self, 0)?.transpose(permutation)),
            OpKind::Slice {
                start_indices,
                limit_indices,
                strides,
            } => Some(view_of(self, 0)?.slice(start_indices, limit_indices, strides)),
            OpKind::Reshape => {
                let v = view_of(self, 0)?;
                match v.reshape(&rty.shape) {
                    Some(r) => Some(Some(r)),
                    None => Some(self.copy_view(&v).reshape(&rty.shape)),
                }
            }
            _ => None,
        };
        if let Some(view) = new_view {
            let Some(view) = view else {
                unsupported!("{} to {rty} does not fit its operand", op.kind.name());
            };
            if view.shape != rty.shape || view.access.dtype != rty.dtype {
                unsupported!(
                    "{} yields {rty}, the view is {:?}",
                    op.kind.name(),
                    view.shape
                );
            }
            self.vals.insert(*result, Val::View(view));
            return Ok(());
        }
        self.elementwise(op, *result, &rty)
    }

    /// A one-input reduce over the row space's innermost dimensions with a simple reducer:
    /// a fold in the stage of its input, its result a temporary of the next level.
    fn reduce(&mut self, op: &Op, dimensions: &[i64]) -> Plan<()> {
        let Some(space) = &self.rows else {
            unsupported!("a reduce outside a row program");
        };
        let (input_shape, dims) = (space.input_shape.clone(), space.dims.clone());
        let ([x, init], [result], [region]) = (
            op.operands.as_slice(),
            op.results.as_slice(),
            op.regions.as_slice(),
        ) else {
            unsupported!("a reduce that is not one input, one init, one result");
        };
        let (xty, rty) = (self.ty(*x)?, self.ty(*result)?);
        let mut sorted = dimensions.to_vec();
        sorted.sort_unstable();
        if xty.shape != input_shape || sorted != dims || xty.dtype != rty.dtype {
            unsupported!("a reduce of {xty} over {dimensions:?} in rows of {input_shape:?}");
        }
        let Some(fold) = recognise(region).and_then(|s| row_fold(s, rty.dtype)) else {
            unsupported!("a reducer with no row fold on {}", rty.dtype);
        };
        let init = match self.val(*init)? {
            Val::View(v)
                if v.shape.is_empty()
                    && matches!(v.access.source, Source::Arg(_) | Source::Const(_)) =>
            {
                v.access
            }
            _ => unsupported!("a reduce init value that is not an operand or a constant"),
        };
        let (stage, reg) = match self.val(*x)? {
            Val::Reg { stage, reg, .. } => (stage, reg),
            Val::View(view) => {
                let s = self.stage(view.level, &view.shape);
                (s, self.load(s, &view))
            }
        };
        if self.stages[stage].shape != input_shape {
            unsupported!(
                "a reduce input computed over {:?}",
                self.stages[stage].shape
            );
        }
        self.temp_types.push(rty.clone());
        let temp = self.temp_types.len() - 1;
        let acc = self.folds.len();
        self.folds.push(FoldSpec {
            temp,
            init,
            dtype: rty.dtype,
        });
        let s = &mut self.stages[stage];
        s.body.push(Instr::Fold {
            src: reg,
            acc,
            fold: RowFoldFn(fold),
        });
        let view = View::dense(Source::Temp(temp), rty.dtype, &rty.shape, s.level + 1);
        self.vals.insert(*result, Val::View(view));
        Ok(())
    }

    fn constant(&mut self, t: &Tensor) -> View {
        let buffer = CpuBuffer::from_tensor(t);
        // Whole bit patterns (`bits_wide`: both parts of a complex<f64>).
        let splat =
            t.num_elements() > 0 && (1..t.num_elements()).all(|i| t.bits_wide(i) == t.bits_wide(0));
        if splat {
            let (_, mut storage) = buffer.into_parts();
            crate::with_storage!(&mut storage, v => v.truncate(1));
            self.constants.push(storage);
            View::splat(
                Source::Const(self.constants.len() - 1),
                t.dtype(),
                t.shape(),
            )
        } else {
            let (_, storage) = buffer.into_parts();
            self.constants.push(storage);
            View::dense(
                Source::Const(self.constants.len() - 1),
                t.dtype(),
                t.shape(),
                0,
            )
        }
    }

    fn elementwise(&mut self, op: &Op, result: ValueId, rty: &TensorType) -> Plan<()> {
        let mut operand_dtypes = Vec::with_capacity(op.operands.len());
        let mut level = 0;
        for &v in &op.operands {
            operand_dtypes.push(self.ty(v)?.dtype);
            let val = self.val(v)?;
            level = level.max(self.level(&val));
        }
        let stage = self.stage(level, &rty.shape);
        if op.kind == OpKind::Clamp {
            return self.clamp(op, stage, result, rty, &operand_dtypes);
        }
        if let (OpKind::Convert, [from]) = (&op.kind, operand_dtypes.as_slice()) {
            if let Some(steps) = elementwise::complex::convert_steps(*from, rty.dtype) {
                // Between complex and real: through the parts' dtype, two instructions.
                let mut reg = self.operand(stage, op.operands[0], false)?;
                for (body, dtype) in steps {
                    reg = self.apply(stage, body, vec![reg], dtype);
                }
                self.vals.insert(
                    result,
                    Val::Reg {
                        stage,
                        reg,
                        dtype: rty.dtype,
                    },
                );
                return Ok(());
            }
        }
        let Some(body) = elementwise::resolve(&op.kind, &operand_dtypes, rty.dtype) else {
            unsupported!(
                "{} on {:?} -> {} has no loop kernel",
                op.kind.name(),
                operand_dtypes,
                rty.dtype
            );
        };
        let scalar_ok = op.kind == OpKind::Select;
        let mut inputs = Vec::with_capacity(op.operands.len());
        for (i, &v) in op.operands.iter().enumerate() {
            inputs.push(self.operand(stage, v, scalar_ok && i == 0)?);
        }
        if inputs.len() != arity(&body) {
            unsupported!("{} with {} operands", op.kind.name(), inputs.len());
        }
        let from_views = op.operands.iter().all(|o| {
            matches!(self.vals.get(o), Some(Val::View(_))) || self.recipes.contains_key(o)
        });
        if cheap(&op.kind) && from_views {
            self.recipes.insert(result, op.clone());
        }
        let dst = self.apply(stage, body, inputs, rty.dtype);
        self.vals.insert(
            result,
            Val::Reg {
                stage,
                reg: dst,
                dtype: rty.dtype,
            },
        );
        Ok(())
    }

    fn apply(&mut self, stage: usize, body: Body, inputs: Vec<RegId>, dtype: DType) -> RegId {
        let s = &mut self.stages[stage];
        let dst = s.new_reg(Lane::of(dtype));
        s.body.push(Instr::Apply { body, inputs, dst });
        dst
    }

    /// `clamp(lo, x, hi)` as `minimum(maximum(x, lo), hi)` (the bounds may be scalars).
    fn clamp(
        &mut self,
        op: &Op,
        stage: usize,
        result: ValueId,
        rty: &TensorType,
        dtypes: &[DType],
    ) -> Plan<()> {
        let [lo, x, hi] = op.operands.as_slice() else {
            unsupported!("clamp with {} operands", op.operands.len());
        };
        let dtype = rty.dtype;
        let max = OpKind::Binary(BinaryOp::Maximum);
        let min = OpKind::Binary(BinaryOp::Minimum);
        let (
            Some(Body::Two(fmax) | Body::TwoSplat(fmax)),
            Some(Body::Two(fmin) | Body::TwoSplat(fmin)),
        ) = (
            elementwise::resolve(&max, &[dtype, dtype], dtype),
            elementwise::resolve(&min, &[dtype, dtype], dtype),
        )
        else {
            unsupported!("clamp on {dtypes:?}");
        };
        let (rx, rlo, rhi) = (
            self.operand(stage, *x, false)?,
            self.operand(stage, *lo, true)?,
            self.operand(stage, *hi, true)?,
        );
        let lower = self.apply(stage, Body::Two(fmax), vec![rx, rlo], dtype);
        let dst = self.apply(stage, Body::Two(fmin), vec![lower, rhi], dtype);
        self.vals.insert(
            result,
            Val::Reg {
                stage,
                reg: dst,
                dtype,
            },
        );
        Ok(())
    }

    fn store_result(&mut self, v: ValueId, ty: &TensorType, dest: Dest) -> Plan<()> {
        let val = self.val(v)?;
        let (stage, reg) = match val {
            Val::Reg { stage, reg, .. } => (stage, reg),
            Val::View(view) => {
                let s = self.stage(view.level, &view.shape);
                (s, self.load(s, &view))
            }
        };
        if self.stages[stage].shape != ty.shape {
            unsupported!("result {ty} computed over {:?}", self.stages[stage].shape);
        }
        self.stages[stage].body.push(Instr::Store {
            src: reg,
            dtype: ty.dtype,
            dest,
        });
        Ok(())
    }

    fn finish(
        self,
        arg_types: Vec<TensorType>,
        result_types: Vec<TensorType>,
        order: Option<&[usize]>,
    ) -> LoopProgram {
        let mut sequence: Vec<usize> = (0..self.stages.len()).collect();
        sequence.sort_by_key(|&s| self.stages[s].level);
        let mut built: Vec<Option<StageBuilder>> = self.stages.into_iter().map(Some).collect();
        let stages = sequence
            .into_iter()
            .filter_map(|s| built[s].take())
            .map(|s| {
                let stores_results = s.body.iter().any(|i| {
                    matches!(
                        i,
                        Instr::Store {
                            dest: Dest::Output(_),
                            ..
                        }
                    )
                });
                let order = order.filter(|o| stores_results && o.len() == s.shape.len());
                finish_stage(s, order)
            })
            .collect();
        LoopProgram {
            arg_types,
            result_types,
            constants: self.constants,
            temp_types: self.temp_types,
            stages,
        }
    }
}

/// The number of inputs a body takes.
fn arity(body: &Body) -> usize {
    match body {
        Body::One(_) | Body::Bitcast { .. } | Body::ReducePrecision(_) => 1,
        Body::Two(_) | Body::TwoSplat(_) => 2,
        Body::Three(_) => 3,
    }
}

/// Ops cheap enough to compute again in a later stage rather than store and reload: the IR's
/// cheap elementwise ops (arithmetic, comparisons, selects, converts, bit operations, rounding;
/// no transcendental, see [`systolic_ir::ElementCost`]).
fn cheap(kind: &OpKind) -> bool {
    kind.element_cost() == Some(ElementCost::Cheap)
}

/// Drops the instructions whose results nothing reads (values recomputed in a later stage
/// instead of stored, see [`Planner::sink`]). Registers are still single-assignment here.
fn eliminate_dead(prologue: &mut Vec<Instr>, body: &mut Vec<Instr>) {
    let mut live: std::collections::HashSet<RegId> = std::collections::HashSet::new();
    let mut kept: Vec<Instr> = Vec::with_capacity(body.len());
    for instr in body.drain(..).rev() {
        let needed = match &instr {
            Instr::Store { .. } | Instr::Fold { .. } => true,
            Instr::Load { dst, .. } | Instr::Apply { dst, .. } => live.contains(dst),
        };
        if needed {
            live.extend(reads(&instr));
            kept.push(instr);
        }
    }
    kept.reverse();
    *body = kept;
    prologue.retain(|i| match i {
        Instr::Load { dst, .. } | Instr::Apply { dst, .. } => live.contains(dst),
        Instr::Store { .. } | Instr::Fold { .. } => true,
    });
}

/// Reorders (when asked) and merges loop dimensions, moves uniform loads to the prologue and
/// reuses registers.
fn finish_stage(s: StageBuilder, order: Option<&[usize]>) -> Stage {
    let mut shape: Vec<usize> = s.shape.iter().map(|&d| d.max(0) as usize).collect();
    let len = shape.iter().product();
    let mut body = s.body;
    if let Some(order) = order {
        shape = order.iter().map(|&d| shape[d]).collect();
        for instr in body.iter_mut() {
            if let Instr::Load { access, .. } = instr {
                access.strides = order.iter().map(|&d| access.strides[d]).collect();
            }
        }
    }
    let dims = merge_dims(&shape, &mut body);
    let (prologue, body): (Vec<Instr>, Vec<Instr>) = body.into_iter().partition(|i| {
        // Temporaries stay in the body: a row program fills them chunk by chunk.
        matches!(i, Instr::Load { access, .. }
                if access.is_uniform() && !matches!(access.source, Source::Temp(_)))
    });
    let (mut prologue, mut body) = (prologue, body);
    eliminate_dead(&mut prologue, &mut body);
    let (prologue, body, regs) = allocate_registers(prologue, body, &s.regs);
    Stage {
        dims,
        len,
        prologue,
        body,
        regs,
    }
}

/// Drops size-1 dimensions and merges neighbours that every load walks contiguously
/// (stride[d] = stride[d+1]·size[d+1]); rewrites the loads' strides to the merged dimensions.
fn merge_dims(shape: &[usize], body: &mut [Instr]) -> Vec<usize> {
    let kept: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
    let mut groups: Vec<Vec<usize>> = vec![];
    for &d in &kept {
        let mergeable = groups.last().is_some_and(|g: &Vec<usize>| {
            let prev = *g.last().expect("groups are never empty");
            body.iter().all(|i| match i {
                Instr::Load { access, .. } => access.strides[prev] == access.strides[d] * shape[d],
                _ => true,
            })
        });
        if mergeable {
            groups.last_mut().expect("checked above").push(d);
        } else {
            groups.push(vec![d]);
        }
    }
    for instr in body.iter_mut() {
        if let Instr::Load { access, .. } = instr {
            access.strides = groups
                .iter()
                .map(|g| access.strides[*g.last().expect("groups are never empty")])
                .collect();
        }
    }
    groups
        .iter()
        .map(|g| g.iter().map(|&d| shape[d]).product())
        .collect()
}

/// Renumbers registers so that a register is reused once its value is dead (values of the
/// prologue live throughout). Keeps L1 use to a few registers per live value.
fn allocate_registers(
    prologue: Vec<Instr>,
    body: Vec<Instr>,
    lanes: &[Lane],
) -> (Vec<Instr>, Vec<Instr>, Vec<Lane>) {
    let mut map: HashMap<RegId, RegId> = HashMap::new();
    let mut regs: Vec<Lane> = vec![];
    let mut prologue = prologue;
    for instr in prologue.iter_mut() {
        if let Instr::Load { dst, .. } = instr {
            regs.push(lanes[*dst]);
            map.insert(*dst, regs.len() - 1);
            *dst = regs.len() - 1;
        }
    }
    let pinned = regs.len();
    let mut last_use: HashMap<RegId, usize> = HashMap::new();
    for (k, instr) in body.iter().enumerate() {
        for r in reads(instr) {
            last_use.insert(r, k);
        }
    }
    let mut free: Vec<RegId> = vec![];
    let mut body = body;
    for (k, instr) in body.iter_mut().enumerate() {
        let inputs = reads(instr);
        let renamed: Vec<RegId> = inputs.iter().map(|r| map[r]).collect();
        match instr {
            Instr::Load { dst, .. } | Instr::Apply { dst, .. } => {
                let lane = lanes[*dst];
                let slot = free.iter().position(|&r| regs[r] == lane);
                let new = match slot {
                    Some(i) => free.swap_remove(i),
                    None => {
                        regs.push(lane);
                        regs.len() - 1
                    }
                };
                map.insert(*dst, new);
                *dst = new;
            }
            Instr::Store { .. } | Instr::Fold { .. } => {}
        }
        match instr {
            Instr::Apply { inputs, .. } => *inputs = renamed.clone(),
            Instr::Store { src, .. } | Instr::Fold { src, .. } => *src = renamed[0],
            Instr::Load { .. } => {}
        }
        for (old, new) in inputs.iter().zip(&renamed) {
            if last_use.get(old) == Some(&k) && *new >= pinned && !free.contains(new) {
                free.push(*new);
            }
        }
    }
    (prologue, body, regs)
}

/// Registers an instruction reads.
fn reads(instr: &Instr) -> Vec<RegId> {
    match instr {
        Instr::Load { .. } => vec![],
        Instr::Apply { inputs, .. } => inputs.clone(),
        Instr::Store { src, .. } | Instr::Fold { src, .. } => vec![*src],
    }
}
