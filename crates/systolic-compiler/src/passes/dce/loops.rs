//! Dead loop-carried values: a `while` result nobody uses can go when the loop does not need
//! it either, that is when the condition never reads it and, in the body, it flows only into
//! its own next value (not into another carried value, not into an effect). The operand, the
//! result, both block arguments and the body's returned value for it are removed; the body ops
//! that computed it are then dead and swept.

use super::callees;
use std::collections::HashSet;
use systolic_ir::walk::walk_ops;
use systolic_ir::{Block, Op, OpKind, Region, ValueId};

/// Removes dead carried values from every `while` in `region` (nested ones included); returns
/// whether any was removed.
pub fn drop_dead_loop_values(
    region: &mut Region,
    counts: &[u32],
    effectful: &HashSet<String>,
) -> bool {
    let mut changed = false;
    for block in &mut region.blocks {
        for op in &mut block.ops {
            for r in &mut op.regions {
                changed |= drop_dead_loop_values(r, counts, effectful);
            }
            if op.kind == OpKind::While {
                changed |= drop_from_while(op, counts, effectful);
            }
        }
    }
    changed
}

fn unused(counts: &[u32], v: ValueId) -> bool {
    counts.get(v.index()).copied().unwrap_or(1) == 0
}

/// The (cond, body) blocks of a well-formed `while` with `n` carried values.
fn blocks(op: &Op, n: usize) -> Option<(&Block, &Block)> {
    let [cond, body] = op.regions.as_slice() else {
        return None;
    };
    let (c, b) = (cond.blocks.first()?, body.blocks.first()?);
    let body_returns_n = b
        .ops
        .last()
        .is_some_and(|t| t.kind.is_terminator() && t.operands.len() == n);
    (cond.blocks.len() == 1
        && body.blocks.len() == 1
        && c.args.len() == n
        && b.args.len() == n
        && body_returns_n)
        .then_some((c, b))
}

/// True when carried value `j` may be dropped.
fn removable(op: &Op, j: usize, effectful: &HashSet<String>) -> bool {
    let n = op.operands.len();
    let Some((cond, body)) = blocks(op, n) else {
        return false;
    };
    // The condition must not read it, at any depth.
    let cond_arg = cond.args[j];
    let mut read = false;
    for o in &cond.ops {
        walk_op(o, &mut |inner| read |= inner.operands.contains(&cond_arg));
    }
    if read {
        return false;
    }
    // In the body: values derived from it reach only return slot j and no effect.
    let mut tainted: HashSet<ValueId> = HashSet::from([body.args[j]]);
    let Some((ret, ops)) = body.ops.split_last() else {
        return false;
    };
    for o in ops {
        let mut uses = false;
        let mut effect = false;
        walk_op(o, &mut |inner| {
            uses |= inner.operands.iter().any(|v| tainted.contains(v));
            effect |= (inner.kind.must_keep() && !inner.kind.is_terminator())
                || callees(&inner.kind).iter().any(|c| effectful.contains(*c));
        });
        if uses {
            if effect {
                return false;
            }
            tainted.extend(o.results.iter().copied());
        }
    }
    ret.operands
        .iter()
        .enumerate()
        .all(|(k, v)| k == j || !tainted.contains(v))
}

/// Calls `f` on `op` and every op nested in its regions.
fn walk_op<'a>(op: &'a Op, f: &mut impl FnMut(&'a Op)) {
    f(op);
    for r in &op.regions {
        walk_ops(r, &mut |inner, _| f(inner));
    }
}

fn drop_from_while(op: &mut Op, counts: &[u32], effectful: &HashSet<String>) -> bool {
    let mut changed = false;
    let mut j = op.results.len();
    while j > 0 {
        j -= 1;
        if unused(counts, op.results[j]) && removable(op, j, effectful) {
            op.operands.remove(j);
            op.results.remove(j);
            let [cond, body] = op.regions.as_mut_slice() else {
                return changed;
            };
            cond.blocks[0].args.remove(j);
            let b = &mut body.blocks[0];
            b.args.remove(j);
            if let Some(ret) = b.ops.last_mut() {
                ret.operands.remove(j);
            }
            changed = true;
        }
    }
    changed
}
