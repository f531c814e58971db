//! Constant folding (XLA's `HloConstantFolding`): an op whose operands are all constants is
//! evaluated by the reference interpreter and replaced by constants of its results, so the
//! compiled code computes exactly what the interpreter would.
//!
//! Not folded: ops with effects, random numbers, calls and loops (they may be long or
//! endless), results larger than [`MAX_FOLDED_ELEMENTS`] (a folded constant must not bloat the
//! module), and `iota`/broadcasts, which only expand data and are cheaper to keep as they are
//! (fusion generates them in registers). An evaluation error (say, an out-of-range operation
//! that fails at run time) leaves the op alone, so the error still happens at run time.

use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action, Rewriter};
use systolic_interp::{Interpreter, Regions, Value};
use systolic_ir::walk::{clone_op_from_arena, ValueMap};
use systolic_ir::{Block, Diagnostic, Func, Module, Op, OpKind, Region, ReturnKind, Tensor, Type};

/// Results with more elements than this are not folded.
pub const MAX_FOLDED_ELEMENTS: usize = 1 << 16;

/// Operands with more elements than this in total are not read by the folder (it would be
/// slow in the interpreter).
pub const MAX_OPERAND_ELEMENTS: usize = 1 << 20;

/// The constant folding pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstFold;

impl Pass for ConstFold {
    fn name(&self) -> &'static str {
        "const_fold"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= rewrite_func(func, &mut |rw, op| Ok(fold(rw, op)))?;
        }
        Ok(changed)
    }
}

/// True for the kinds the folder may evaluate.
fn foldable(kind: &OpKind) -> bool {
    use OpKind::*;
    !kind.must_keep()
        && !matches!(
            kind,
            Constant(_)
                | Iota { .. }
                | BroadcastInDim { .. }
                | Broadcast { .. }
                | Call { .. }
                | Composite { .. }
                | CustomCall { .. }
                | While
                | Rng { .. }
                | RngBitGenerator { .. }
                | ReplicaId
                | PartitionId
                | OptimizationBarrier
                | Tuple
                | GetTupleElement { .. }
                | AfterAll
                | CreateToken
                | Return(_)
        )
}

fn fold(rw: &mut Rewriter<'_, '_>, op: &mut Op) -> Action {
    match try_fold(rw, op) {
        Some(tensors) => {
            let values = tensors.into_iter().map(|t| rw.emit_constant(t)).collect();
            Action::Replace(values)
        }
        None => Action::Keep,
    }
}

/// The folded results of `op`, or `None` when it is not folded.
fn try_fold(rw: &Rewriter<'_, '_>, op: &Op) -> Option<Vec<Tensor>> {
    if !foldable(&op.kind) || op.results.is_empty() {
        return None;
    }
    let mut operands = Vec::with_capacity(op.operands.len());
    let mut operand_elements = 0;
    for &v in &op.operands {
        let t = rw.constant(v)?;
        operand_elements += t.num_elements();
        operands.push(t.clone());
    }
    if operand_elements > MAX_OPERAND_ELEMENTS {
        return None;
    }
    let mut result_types = Vec::with_capacity(op.results.len());
    for &r in &op.results {
        let tt = rw.tensor_ty(r)?;
        if tt.num_elements() > MAX_FOLDED_ELEMENTS {
            return None;
        }
        result_types.push(Type::Tensor(tt.clone()));
    }
    let values = if op.regions.is_empty() {
        let args = operands.into_iter().map(Value::Tensor).collect();
        systolic_interp::ops::eval(&op.kind, args, &result_types, &mut NoRegions).ok()?
    } else {
        eval_with_regions(rw, op, operands, &result_types)?
    };
    if values.len() != result_types.len() {
        return None;
    }
    values
        .into_iter()
        .zip(&result_types)
        .map(|(v, ty)| match v {
            Value::Tensor(t) if Type::Tensor(t.ty().clone()) == *ty => Some(t),
            _ => None,
        })
        .collect()
}

/// Evaluates an op with regions by running a function made of it: constants for its operands,
/// a copy of the op, a return. Regions that read values from outside the op cannot be copied
/// alone and are not folded.
fn eval_with_regions(
    rw: &Rewriter<'_, '_>,
    op: &Op,
    operands: Vec<Tensor>,
    result_types: &[Type],
) -> Option<Vec<Value>> {
    let mut func = Func::new("fold");
    func.result_types = result_types.to_vec();
    let mut ops = vec![];
    let mut map = ValueMap::new();
    for (&old, t) in op.operands.iter().zip(operands) {
        let v = func.new_value(Type::Tensor(t.ty().clone()), None);
        ops.push(Op::new(OpKind::Constant(t), vec![], vec![v]));
        map.insert(old, v);
    }
    let copy = clone_op_from_arena(rw.values(), op, &mut func, &mut map).ok()?;
    let results = copy.results.clone();
    ops.push(copy);
    ops.push(Op::new(OpKind::Return(ReturnKind::Func), results, vec![]));
    func.body = Region::single(Block { args: vec![], ops });
    let module = Module {
        funcs: vec![func],
        ..Module::default()
    };
    Interpreter::new(&module).call("fold", vec![]).ok()
}

/// The regions of an op without regions.
struct NoRegions;

impl Regions for NoRegions {
    fn count(&self) -> usize {
        0
    }

    fn run(&mut self, index: usize, _args: Vec<Value>) -> systolic_interp::Result<Vec<Value>> {
        Err(systolic_interp::InterpError::new(format!(
            "the folder has no region {index}"
        )))
    }

    fn call(&mut self, func: &str, _args: Vec<Value>) -> systolic_interp::Result<Vec<Value>> {
        Err(systolic_interp::InterpError::new(format!(
            "the folder does not call @{func}"
        )))
    }
}
