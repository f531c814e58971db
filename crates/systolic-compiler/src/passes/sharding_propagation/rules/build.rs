//! Building rules: the factor table, shapes of values, and the shapes of rule that many ops
//! share (elementwise, a barrier, dimensions that pass or are touched).

use super::{Factor, FactorKind, OpClass, OpRule, Site, Step, TensorRef};
use systolic_ir::{Func, Op, Type, ValueId};

/// A rule under construction: factors are added as dimensions are mapped.
pub(crate) struct RuleBuilder {
    pub(crate) factors: Vec<Factor>,
}

impl RuleBuilder {
    pub(crate) fn new() -> RuleBuilder {
        RuleBuilder { factors: vec![] }
    }

    /// A new factor; its index.
    pub(crate) fn factor(&mut self, size: i64, kind: FactorKind) -> usize {
        self.factors.push(Factor { size, kind });
        self.factors.len() - 1
    }

    /// One fresh factor of `kind` per dimension of `shape`.
    pub(crate) fn own(&mut self, shape: &[i64], kind: FactorKind) -> Vec<Vec<usize>> {
        shape.iter().map(|&n| vec![self.factor(n, kind)]).collect()
    }

    pub(crate) fn rule(
        self,
        operands: Vec<Vec<Vec<usize>>>,
        results: Vec<Vec<Vec<usize>>>,
        class: OpClass,
    ) -> OpRule {
        OpRule {
            factors: self.factors,
            operands,
            results,
            class,
        }
    }
}

/// The shape of `v` if it is a tensor (tokens and tuples have none: nothing to shard).
pub(crate) fn shape_of(func: &Func, v: ValueId) -> Option<Vec<i64>> {
    match &func.values.get(v.index())?.ty {
        Type::Tensor(t) => Some(t.shape.clone()),
        _ => None,
    }
}

/// Shapes of the op's operands (empty for non-tensors).
pub(crate) fn operand_shapes(op: &Op, func: &Func) -> Vec<Vec<i64>> {
    op.operands
        .iter()
        .map(|&v| shape_of(func, v).unwrap_or_default())
        .collect()
}

/// Shapes of the op's results (empty for non-tensors).
pub(crate) fn result_shapes(op: &Op, func: &Func) -> Vec<Vec<i64>> {
    op.results
        .iter()
        .map(|&v| shape_of(func, v).unwrap_or_default())
        .collect()
}

/// The step of an ordinary op: its operands and results as the rule's tensors.
pub(crate) fn op_step(op: &Op, rule: OpRule) -> Step {
    Step {
        rule,
        operands: op.operands.iter().map(|&v| TensorRef::Value(v)).collect(),
        results: op.results.iter().map(|&v| TensorRef::Value(v)).collect(),
        operand_sites: (0..op.operands.len()).map(Site::Operand).collect(),
        result_sites: (0..op.results.len()).map(Site::Result).collect(),
    }
}

/// Elementwise ops (and `map`): every dimension one pass factor shared by all operands and
/// results. Scalar operands (clamp's bounds, select's predicate) have no dimensions;
/// operands of lower rank (CHLO's broadcasting forms) align with the trailing dimensions,
/// where equal sizes share the factor.
pub(crate) fn elementwise(op: &Op, func: &Func, class: OpClass) -> Step {
    let results = result_shapes(op, func);
    let shape = results.first().cloned().unwrap_or_default();
    let mut b = RuleBuilder::new();
    let shared = b.own(&shape, FactorKind::Pass);
    let map = |t: &[i64], b: &mut RuleBuilder| -> Vec<Vec<usize>> {
        if t == shape.as_slice() {
            return shared.clone();
        }
        let offset = shape.len().saturating_sub(t.len());
        t.iter()
            .enumerate()
            .map(|(d, &n)| match shape.get(d + offset) {
                Some(&m) if m == n && t.len() <= shape.len() => shared[d + offset].clone(),
                _ => vec![b.factor(n, FactorKind::Blocked)],
            })
            .collect()
    };
    let operands: Vec<_> = operand_shapes(op, func)
        .iter()
        .map(|t| map(t, &mut b))
        .collect();
    let results: Vec<_> = results.iter().map(|t| map(t, &mut b)).collect();
    op_step(op, b.rule(operands, results, class))
}

/// An op propagation does not see through: every operand dimension must be whole (a
/// blocked factor: a sharded operand is resharded to replicated), every result dimension is
/// free (its own factor: users may shard it; the partitioner slices the replicated result).
pub(crate) fn barrier(op: &Op, func: &Func) -> Step {
    let mut b = RuleBuilder::new();
    let operands = operand_shapes(op, func)
        .iter()
        .map(|s| b.own(s, FactorKind::Blocked))
        .collect();
    let results = result_shapes(op, func)
        .iter()
        .map(|s| b.own(s, FactorKind::Pass))
        .collect();
    op_step(op, b.rule(operands, results, OpClass::Other))
}

/// An op whose operands' and results' shardings do not depend on each other (a constant, an
/// iota, a dimension size, tuple plumbing): every dimension its own free factor.
pub(crate) fn independent(op: &Op, func: &Func) -> Step {
    let mut b = RuleBuilder::new();
    let operands = operand_shapes(op, func)
        .iter()
        .map(|s| b.own(s, FactorKind::Pass))
        .collect();
    let results = result_shapes(op, func)
        .iter()
        .map(|s| b.own(s, FactorKind::Pass))
        .collect();
    op_step(op, b.rule(operands, results, OpClass::Other))
}

/// Ops whose `data` operands (indices into `op.operands`) and results have one shape, where
/// `passes[d]` says whether dimension `d` passes (one shared factor) or is touched by the op
/// (a slice, pad, reverse, sort or window along it): touched dimensions are blocked in the
/// operands and free in the results. Other operands (scalars, start indices) are free.
pub(crate) fn pass_or_touched(
    op: &Op,
    func: &Func,
    data: &[usize],
    passes: &[bool],
    class: OpClass,
) -> Step {
    let operand_shapes = operand_shapes(op, func);
    let result_shapes = result_shapes(op, func);
    let mut b = RuleBuilder::new();
    let size_of = |d: usize| {
        result_shapes
            .first()
            .and_then(|s| s.get(d))
            .copied()
            .unwrap_or(1)
    };
    let shared: Vec<Option<usize>> = passes
        .iter()
        .enumerate()
        .map(|(d, &p)| p.then(|| b.factor(size_of(d), FactorKind::Pass)))
        .collect();
    let dims_of = |shape: &[i64], touched: FactorKind, b: &mut RuleBuilder| -> Vec<Vec<usize>> {
        shape
            .iter()
            .enumerate()
            .map(|(d, &n)| match shared.get(d) {
                Some(Some(f)) if shape.len() == passes.len() => vec![*f],
                _ => vec![b.factor(n, touched)],
            })
            .collect()
    };
    let operands = operand_shapes
        .iter()
        .enumerate()
        .map(|(k, s)| {
            if data.contains(&k) {
                dims_of(s, FactorKind::Blocked, &mut b)
            } else {
                b.own(s, FactorKind::Pass)
            }
        })
        .collect();
    let results = result_shapes
        .iter()
        .map(|s| dims_of(s, FactorKind::Pass, &mut b))
        .collect();
    op_step(op, b.rule(operands, results, class))
}
