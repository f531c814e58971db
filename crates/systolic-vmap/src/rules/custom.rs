//! custom_call: the annotation targets (shardings, memory placement, layout constraints) are
//! identities on a value; batched, they are dropped (their attributes describe the per-example
//! value's rank) and the value passes through. Other targets are opaque kernels with no rule.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::{Op, OpKind};

/// Targets that only annotate their operands (as the interpreter treats them).
const ANNOTATIONS: [&str; 8] = [
    "Sharding",
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "xla.sdy.FuncResultSharding",
    "annotate_device_placement",
    "MoveToHost",
    "MoveToDevice",
    "LayoutConstraint",
];

pub(crate) fn custom_call(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let OpKind::CustomCall {
        call_target_name, ..
    } = &op.kind
    else {
        unreachable!()
    };
    let same_types = op.operands.len() == op.results.len()
        && op
            .operands
            .iter()
            .zip(&op.results)
            .all(|(&a, &r)| cx.src.value_type(a) == cx.src.value_type(r));
    if ANNOTATIONS.contains(&call_target_name.as_str()) && same_types {
        return Ok(args.to_vec());
    }
    Err(cx.err(format!(
        "target @{call_target_name} has no batching rule (an opaque kernel; only its unbatched \
         use is supported)"
    )))
}
