//! Data-flow edges: values an op passes along unchanged, which must be held alike. Each edge
//! is an identity rule between its sources (operand side) and targets (result side):
//!
//! - `while`: operand `i`, the body's returned value `i` → result `i` and the condition's and
//!   body's argument `i` (propagation goes through the loop: the body's ops are visited);
//! - `if`/`case`: each branch's returned value `i` → result `i` (through the branches);
//! - `optimization_barrier` and `sdy.sharding_constraint`: operand `i` → result `i` (a
//!   constraint's result starts with the constraint's sharding, see
//!   [`super::super::propagate`]);
//! - the entry's `func.return`: returned value `i` → the entry's result `i` as annotated;
//! - `sdy.manual_computation`: operand `i` → its `in_shardings[i]`, fixed. Its results start
//!   as its `out_shardings` say; its body is manual code, not propagated into.

use super::build::shape_of;
use super::{Factor, FactorKind, OpClass, OpRule, Site, Step, TensorRef};
use systolic_ir::{Func, ManualComputationAttrs, Op, ValueId};

/// The identity rule over tensors of `shape`: one shared pass factor per dimension.
fn identity(
    shape: &[i64],
    operands: Vec<(TensorRef, Site)>,
    results: Vec<(TensorRef, Site)>,
) -> Step {
    let factors: Vec<Factor> = shape
        .iter()
        .map(|&n| Factor {
            size: n,
            kind: FactorKind::Pass,
        })
        .collect();
    let dims: Vec<Vec<usize>> = (0..shape.len()).map(|d| vec![d]).collect();
    let (operands, operand_sites): (Vec<_>, Vec<_>) = operands.into_iter().unzip();
    let (results, result_sites): (Vec<_>, Vec<_>) = results.into_iter().unzip();
    Step {
        rule: OpRule {
            factors,
            operands: vec![dims.clone(); operands.len()],
            results: vec![dims; results.len()],
            class: OpClass::PassThrough,
        },
        operands,
        results,
        operand_sites,
        result_sites,
    }
}

/// The values the terminator of `op`'s region `r` returns.
fn region_returns(op: &Op, r: usize) -> Vec<ValueId> {
    op.regions
        .get(r)
        .and_then(|region| region.blocks.first())
        .and_then(|block| block.ops.last())
        .map(|ret| ret.operands.clone())
        .unwrap_or_default()
}

/// The arguments of `op`'s region `r`.
fn region_args(op: &Op, r: usize) -> Vec<ValueId> {
    op.regions
        .get(r)
        .and_then(|region| region.blocks.first())
        .map(|block| block.args.clone())
        .unwrap_or_default()
}

/// The entry's `func.return`: returned value `i` ↔ the entry's result `i`.
pub(crate) fn func_return(op: &Op, func: &Func) -> Vec<Step> {
    op.operands
        .iter()
        .enumerate()
        .filter_map(|(i, &v)| {
            let shape = shape_of(func, v)?;
            Some(identity(
                &shape,
                vec![(TensorRef::Value(v), Site::Operand(i))],
                vec![(TensorRef::FuncResult(i), Site::None)],
            ))
        })
        .collect()
}

/// `stablehlo.while` (region 0 the condition, region 1 the body).
pub(crate) fn while_loop(op: &Op, func: &Func) -> Vec<Step> {
    let (cond_args, body_args, body_returns) = (
        region_args(op, 0),
        region_args(op, 1),
        region_returns(op, 1),
    );
    (0..op.results.len())
        .filter_map(|i| {
            let shape = shape_of(func, op.results[i])?;
            let mut sources = vec![];
            if let Some(&v) = op.operands.get(i) {
                sources.push((TensorRef::Value(v), Site::Operand(i)));
            }
            if let Some(&v) = body_returns.get(i) {
                sources.push((TensorRef::Value(v), Site::RegionReturn(1, i)));
            }
            let mut targets = vec![(TensorRef::Value(op.results[i]), Site::None)];
            for args in [&cond_args, &body_args] {
                if let Some(&v) = args.get(i) {
                    targets.push((TensorRef::Value(v), Site::None));
                }
            }
            Some(identity(&shape, sources, targets))
        })
        .collect()
}

/// `stablehlo.if` / `stablehlo.case`: each branch's returned value `i` ↔ result `i`.
pub(crate) fn branches(op: &Op, func: &Func) -> Vec<Step> {
    (0..op.results.len())
        .filter_map(|i| {
            let shape = shape_of(func, op.results[i])?;
            let sources = (0..op.regions.len())
                .filter_map(|r| {
                    let v = *region_returns(op, r).get(i)?;
                    Some((TensorRef::Value(v), Site::RegionReturn(r, i)))
                })
                .collect();
            Some(identity(
                &shape,
                sources,
                vec![(TensorRef::Value(op.results[i]), Site::None)],
            ))
        })
        .collect()
}

/// Operand `i` ↔ result `i` (optimization_barrier, sharding_constraint).
pub(crate) fn identity_pairs(op: &Op, func: &Func) -> Vec<Step> {
    op.operands
        .iter()
        .zip(&op.results)
        .enumerate()
        .filter_map(|(i, (&a, &r))| {
            let shape = shape_of(func, r)?;
            Some(identity(
                &shape,
                vec![(TensorRef::Value(a), Site::Operand(i))],
                vec![(TensorRef::Value(r), Site::Result(i))],
            ))
        })
        .collect()
}

/// `sdy.manual_computation`: operand `i` ↔ its fixed `in_shardings[i]`.
pub(crate) fn manual_computation(
    op: &Op,
    func: &Func,
    attrs: &ManualComputationAttrs,
) -> Vec<Step> {
    op.operands
        .iter()
        .zip(&attrs.in_shardings)
        .enumerate()
        .filter_map(|(i, (&v, s))| {
            let shape = shape_of(func, v)?;
            Some(identity(
                &shape,
                vec![(TensorRef::Value(v), Site::Operand(i))],
                vec![(TensorRef::Fixed(s.clone()), Site::None)],
            ))
        })
        .collect()
}
