//! Control-flow simplification (XLA's `ConditionalSimplifier` and the trivial cases of
//! `WhileLoopSimplifier`):
//!
//! - `if` with a constant predicate, `case` with a constant index or a single branch: the
//!   branch that runs is inlined into the enclosing block and the op's results become the
//!   values the branch returns. A `case` index out of range runs the last branch, as the
//!   StableHLO spec says.
//! - `while` whose condition is the constant `false`: the body never runs, so the results are
//!   the operands (the condition itself has no effect, or the loop is left alone).
//!
//! Loops that do run, and their loop-invariant values, are left alone.

use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action, Rewriter};
use systolic_ir::walk::walk_ops;
use systolic_ir::{Data, Diagnostic, Module, Op, OpKind, Region};

/// The control-flow simplification pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct CfSimplify;

impl Pass for CfSimplify {
    fn name(&self) -> &'static str {
        "cf_simplify"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= rewrite_func(func, &mut |rw, op| Ok(simplify(rw, op)))?;
        }
        Ok(changed)
    }
}

fn simplify(rw: &mut Rewriter<'_, '_>, op: &mut Op) -> Action {
    let taken = match op.kind {
        OpKind::If => op
            .operands
            .first()
            .and_then(|&p| scalar_constant(rw, p))
            .map(|p| if p != 0 { 0 } else { 1 }),
        OpKind::Case if op.regions.len() == 1 => Some(0),
        OpKind::Case => op
            .operands
            .first()
            .and_then(|&i| scalar_constant(rw, i))
            .map(|i| {
                let n = op.regions.len() as i64;
                if (0..n).contains(&i) {
                    i as usize
                } else {
                    op.regions.len() - 1
                }
            }),
        OpKind::While => {
            return if condition_is_false(op) {
                Action::Replace(op.operands.clone())
            } else {
                Action::Keep
            };
        }
        _ => None,
    };
    let Some(taken) = taken else {
        return Action::Keep;
    };
    if taken >= op.regions.len() {
        return Action::Keep;
    }
    let region = std::mem::take(&mut op.regions[taken]);
    match inline_branch(rw, region, op.results.len()) {
        Ok(values) => Action::Replace(values),
        Err(region) => {
            op.regions[taken] = region;
            Action::Keep
        }
    }
}

/// A rank-0 integer or boolean constant, as an integer.
fn scalar_constant(rw: &Rewriter<'_, '_>, v: systolic_ir::ValueId) -> Option<i64> {
    let t = rw.constant(v)?;
    if t.num_elements() != 1 {
        return None;
    }
    match t.data() {
        Data::Bool(b) => Some(b[0] as i64),
        Data::Int(i) => Some(i[0]),
        Data::UInt(u) => i64::try_from(u[0]).ok(),
        Data::Float(_) | Data::Complex(_) => None,
    }
}

/// Emits the ops of a branch (one block without arguments, ending in a return of `n` values)
/// before the op; returns the returned values, or gives the region back when it has another
/// form.
fn inline_branch(
    rw: &mut Rewriter<'_, '_>,
    mut region: Region,
    n: usize,
) -> Result<Vec<systolic_ir::ValueId>, Region> {
    let well_formed = region.blocks.len() == 1
        && region.blocks[0].args.is_empty()
        && region.blocks[0]
            .ops
            .last()
            .is_some_and(|t| t.kind.is_terminator() && t.operands.len() == n);
    if !well_formed {
        return Err(region);
    }
    let mut ops = std::mem::take(&mut region.blocks[0].ops);
    let ret = ops.pop().map(|t| t.operands).unwrap_or_default();
    for op in ops {
        rw.emit_op(op);
    }
    Ok(ret)
}

/// True when a `while`'s condition region returns a constant `false` and has no effect.
fn condition_is_false(op: &Op) -> bool {
    let Some(cond) = op.regions.first() else {
        return false;
    };
    let Some(block) = cond.blocks.first() else {
        return false;
    };
    let mut effect = false;
    walk_ops(cond, &mut |o, _| {
        if o.kind.must_keep() && !o.kind.is_terminator() {
            effect = true;
        }
    });
    if effect {
        return false;
    }
    let Some(ret) = block.ops.last() else {
        return false;
    };
    let [flag] = ret.operands.as_slice() else {
        return false;
    };
    block.ops.iter().any(|o| {
        o.results.first() == Some(flag)
            && matches!(&o.kind, OpKind::Constant(t) if t.data() == &Data::Bool(vec![false]))
    })
}
