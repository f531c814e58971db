//! Map inlining (XLA's `MapInliner`): a `stablehlo.map` whose computation is elementwise
//! arithmetic on scalars becomes that arithmetic on whole tensors. No backend kernel family
//! takes `map` (it would run on the CPU backend's interpreter fallback, one region call per
//! element); the inlined ops are ones the CPU backend fuses and compiles.
//!
//! The rule, kept together in [`inline_map`]: each op of the region is emitted again with the
//! map's shape — block arguments become the map's operands, scalar constants and scalar values
//! the region reads from outside it are broadcast to the shape, and the value the region
//! returns is the map's result. A map is left alone when its `dimensions` are not every
//! dimension in order (the only form the spec allows), when its region has more than one
//! block, or when an op of the region is not elementwise on rank-0 tensors (one with a region
//! of its own, a reduction, a call, …).

use super::simplify::splat::emit_splat_tensor;
use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action, Rewriter};
use std::collections::HashMap;
use systolic_ir::{Diagnostic, Module, Op, OpKind, ReturnKind, TensorType, Type, ValueId};

/// The map inlining pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct MapInliner;

impl Pass for MapInliner {
    fn name(&self) -> &'static str {
        "map_inliner"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= rewrite_func(func, &mut |rw, op| {
                Ok(match inline_map(rw, op) {
                    Some(values) => Action::Replace(values),
                    None => Action::Keep,
                })
            })?;
        }
        Ok(changed)
    }
}

/// Elementwise op kinds whose scalar form can be applied to whole tensors unchanged (the
/// operands and results of the region's ops are checked to be rank-0 tensors as well).
fn is_elementwise(kind: &OpKind) -> bool {
    // On scalars a bitcast_convert keeps the element count, so it maps elementwise too.
    kind.is_elementwise() || matches!(kind, OpKind::BitcastConvert)
}

/// The map's result computed by its region's ops on whole tensors, or `None` when the map is
/// not of the form the pass inlines (then nothing has been emitted).
fn inline_map(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    let OpKind::Map { dimensions } = &op.kind else {
        return None;
    };
    let [result] = op.results[..] else {
        return None;
    };
    let shape = rw.tensor_ty(result)?.shape.clone();
    let all: Vec<i64> = (0..shape.len() as i64).collect();
    if *dimensions != all || op.operands.is_empty() {
        return None;
    }
    let [region] = &op.regions[..] else {
        return None;
    };
    let [block] = &region.blocks[..] else {
        return None;
    };
    let (terminator, body) = block.ops.split_last()?;
    let [returned] = terminator.operands[..] else {
        return None;
    };
    if terminator.kind != OpKind::Return(ReturnKind::Stablehlo)
        || block.args.len() != op.operands.len()
    {
        return None;
    }
    // Check everything before emitting anything.
    let is_scalar = |v: ValueId| rw.tensor_ty(v).is_some_and(|t| t.rank() == 0);
    for (&arg, &operand) in block.args.iter().zip(&op.operands) {
        let (a, o) = (rw.tensor_ty(arg)?, rw.tensor_ty(operand)?);
        if a.rank() != 0 || o.shape != shape || a.dtype != o.dtype {
            return None;
        }
    }
    for inner in body {
        let fits = match &inner.kind {
            OpKind::Constant(t) => t.shape().is_empty(),
            kind => is_elementwise(kind) && inner.operands.iter().all(|&v| is_scalar(v)),
        };
        if !fits || !inner.regions.is_empty() || !inner.results.iter().all(|&v| is_scalar(v)) {
            return None;
        }
    }
    if !is_scalar(returned) || rw.tensor_ty(returned)?.dtype != rw.tensor_ty(result)?.dtype {
        return None;
    }
    // Values read from outside the region (scalars, as checked above) are broadcast once.
    let mut env: HashMap<ValueId, ValueId> = block
        .args
        .iter()
        .copied()
        .zip(op.operands.iter().copied())
        .collect();
    let lookup = |rw: &mut Rewriter<'_, '_>, env: &mut HashMap<ValueId, ValueId>, v| {
        if let Some(&w) = env.get(&v) {
            return w;
        }
        let w = broadcast(rw, v, &shape);
        env.insert(v, w);
        w
    };
    for inner in body {
        if let OpKind::Constant(t) = &inner.kind {
            let ty = TensorType::new(shape.clone(), t.dtype());
            let v = emit_splat_tensor(rw, &ty, t.clone());
            env.insert(inner.results[0], v);
            continue;
        }
        let operands = inner
            .operands
            .iter()
            .map(|&v| lookup(rw, &mut env, v))
            .collect();
        let results: Vec<ValueId> = inner
            .results
            .iter()
            .map(|&r| {
                let dtype = rw.tensor_ty(r).expect("checked scalar").dtype;
                rw.fresh(Type::Tensor(TensorType::new(shape.clone(), dtype)))
            })
            .collect();
        env.extend(inner.results.iter().copied().zip(results.iter().copied()));
        let mut new = Op::new(inner.kind.clone(), operands, results);
        new.attrs = inner.attrs.clone();
        new.loc = inner.loc.clone();
        rw.emit_op(new);
    }
    Some(vec![lookup(rw, &mut env, returned)])
}

/// A rank-0 value broadcast to `shape` (itself for rank 0).
fn broadcast(rw: &mut Rewriter<'_, '_>, v: ValueId, shape: &[i64]) -> ValueId {
    if shape.is_empty() {
        return v;
    }
    let dtype = rw.tensor_ty(v).expect("checked scalar").dtype;
    rw.emit1(
        OpKind::BroadcastInDim {
            broadcast_dimensions: vec![],
        },
        vec![v],
        Type::Tensor(TensorType::new(shape.to_vec(), dtype)),
    )
}
