//! The LAPACK custom calls (`lapack_*_ffi`, `systolic_ir::lapack`): every operand and result
//! is a batch of matrices (or vectors, or scalars) over leading dimensions, so the batch
//! dimension becomes one more leading dimension, as for `cholesky`. An unbatched operand (the
//! triangle of a `trsm` shared by every example) is broadcast, because the call needs equal
//! leading dimensions.
//!
//! The call is re-emitted from its parsed form ([`LapackCall::op_kind`], flags in the op's own
//! `backend_config`): a call imported from JAX keeps its flags in a `mhlo.backend_config`
//! attribute and its column-major layouts in `operand_layouts`/`result_layouts`, whose
//! per-rank entries no longer fit the batched operands; the layouts are JAX's defaults, which
//! a front-end call implies.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::lapack::LapackCall;
use systolic_ir::{Op, Type};

/// Whether `op` is a LAPACK custom call (supported or not: an unsupported one fails in
/// [`lapack`] with the reader's message).
pub(crate) fn is_lapack(op: &Op) -> bool {
    LapackCall::from_op(op).is_some()
}

pub(crate) fn lapack(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let call = match LapackCall::from_op(op) {
        Some(Ok(call)) => call,
        Some(Err(e)) => return Err(cx.err(e)),
        None => return Err(cx.err("internal: not a LAPACK call")),
    };
    let operands = args
        .iter()
        .map(|&a| cx.materialize(a, 0))
        .collect::<Result<Vec<_>>>()?;
    let declared = op
        .results
        .iter()
        .map(|&r| Ok(Type::Tensor(cx.batched_type(&cx.src_ty(r)?, 0))))
        .collect::<Result<Vec<_>>>()?;
    let rs = cx.emit_full(call.op_kind(), operands, vec![], Some(declared))?;
    Ok(rs.into_iter().map(|v| BVal::at(v, 0)).collect())
}
