//! cholesky, triangular_solve and fft: ops that already map over leading dimensions, so the
//! batch dimension becomes one more leading dimension. triangular_solve needs equal leading
//! dimensions on both operands, so an unbatched one is broadcast.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::Op;

pub(crate) fn leading_batch(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let operands = args
        .iter()
        .map(|&a| cx.materialize(a, 0))
        .collect::<Result<Vec<_>>>()?;
    let rs = cx.emit_full(op.kind.clone(), operands, vec![], None)?;
    Ok(rs.into_iter().map(|v| BVal::at(v, 0)).collect())
}
