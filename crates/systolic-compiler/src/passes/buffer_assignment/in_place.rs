//! Which ops may write a result over one of their operands, and over which.
//!
//! An op may write result element `i` where it read operand element `i` when it reads each
//! operand element only to compute the same-index result element: elementwise ops and loop
//! fusions whose region reads that operand only through elementwise ops. The buffer-reuse
//! decision (the operand's buffer must die at this op, sizes and dtypes equal) is made by the
//! caller.

use systolic_ir::walk::walk_ops;
use systolic_ir::{Func, FusionKind, Op, OpKind, ValueId};

/// The operand positions of `op` whose buffer result `result` may take over: same shape and
/// element type as the result, and read elementwise only.
pub fn candidate_operands(func: &Func, op: &Op, result: ValueId) -> Vec<usize> {
    let Some(rt) = func.value_type(result).as_tensor() else {
        return vec![];
    };
    let same_type = |v: ValueId| func.value_type(v).as_tensor() == Some(rt);
    match &op.kind {
        k if k.is_elementwise() => (0..op.operands.len())
            .filter(|&i| same_type(op.operands[i]))
            .collect(),
        OpKind::Fusion {
            kind: FusionKind::Loop,
            ..
        } => {
            let Some(block) = op.regions.first().and_then(|r| r.entry()) else {
                return vec![];
            };
            (0..op.operands.len())
                .filter(|&i| same_type(op.operands[i]))
                .filter(|&i| {
                    block
                        .args
                        .get(i)
                        .is_some_and(|&a| read_only_elementwise(func, op, a))
                })
                .collect()
        }
        _ => vec![],
    }
}

/// True when every op of the fusion's region that reads `arg` is elementwise and produces a
/// value of `arg`'s shape (so no element is read after its index was written), and the region
/// does not return `arg` itself.
fn read_only_elementwise(func: &Func, fusion: &Op, arg: ValueId) -> bool {
    let shape = func.value_type(arg).as_tensor().map(|t| &t.shape);
    let mut ok = true;
    walk_ops(&fusion.regions[0], &mut |inner, depth| {
        if !inner.operands.contains(&arg) {
            return;
        }
        let same_shape = inner
            .results
            .iter()
            .all(|&r| func.value_type(r).as_tensor().map(|t| &t.shape) == shape);
        if depth > 0 || !inner.kind.is_elementwise() || !same_shape {
            ok = false;
        }
    });
    ok
}
