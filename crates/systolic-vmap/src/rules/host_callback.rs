//! `systolic.host_callback` (`systolic_ir::host_callback`: `debug::print`, `debug::callback`):
//! unrolled over the batch, as JAX's debug-callback batching rule does — one call per example,
//! in example order, each on that example's slice of the batched operands (unbatched operands
//! passed whole to every call). A batch where no operand is batched makes one call, as the
//! unbatched function would.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::Op;

pub(crate) fn host_callback(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    if !op.results.is_empty() {
        return Err(cx.err(
            "a host callback with results has no batching rule (debug callbacks return nothing)",
        ));
    }
    let examples = if args.iter().any(BVal::batched) {
        cx.size
    } else {
        1
    };
    for i in 0..examples {
        let mut operands = Vec::with_capacity(args.len());
        for a in args {
            let Some(d) = a.bdim else {
                operands.push(a.v);
                continue;
            };
            let t = cx.ty(a.v)?;
            let mut start = vec![0; t.rank()];
            let mut limit = t.shape.clone();
            start[d] = i;
            limit[d] = i + 1;
            let one = cx.slice(a.v, start, limit, vec![1; t.rank()])?;
            let mut shape = t.shape.clone();
            shape.remove(d);
            operands.push(cx.reshape(one, &shape)?);
        }
        cx.emit_full(op.kind.clone(), operands, vec![], Some(vec![]))?;
    }
    Ok(vec![])
}
