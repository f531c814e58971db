//! Elementwise ops (StableHLO and CHLO unary/binary, compare, select, clamp, convert,
//! reduce_precision, map) and bitcast_convert.
//!
//! The batch dimension goes where the first batched full-rank operand has it; the other
//! batched operands are moved there and unbatched full-rank ones are broadcast (StableHLO's
//! elementwise ops take equal shapes). The scalar predicate of `select` and the scalar bounds of
//! `clamp` stay scalars when unbatched.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::{Op, OpKind, Type};

pub(crate) fn elementwise(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let out = cx.src_ty(op.results[0])?;
    let rank = out.rank();
    let ranks: Vec<usize> = op
        .operands
        .iter()
        .map(|&v| cx.src_ty(v).map(|t| t.rank()))
        .collect::<Result<_>>()?;
    let p = args
        .iter()
        .zip(&ranks)
        .find(|(a, &r)| a.batched() && r == rank)
        .and_then(|(a, _)| a.bdim)
        .unwrap_or(0);
    let mut operands = vec![];
    for (a, &r) in args.iter().zip(&ranks) {
        if r == rank {
            operands.push(cx.materialize(*a, p)?);
        } else if a.batched() {
            // A scalar operand of select/clamp that is batched: broadcast it to the full shape.
            let shape = cx.batched_type(&out, p).shape;
            operands.push(cx.broadcast_in_dim(a.v, &shape, &[p as i64])?);
        } else {
            operands.push(a.v);
        }
    }
    let mut regions = vec![];
    let mut kind = op.kind.clone();
    if let OpKind::Map { dimensions } = &mut kind {
        *dimensions = (0..=rank as i64).collect();
        for r in &op.regions {
            regions.push(cx.copy_unbatched_region(r)?);
        }
    }
    let declared = op
        .results
        .iter()
        .map(|&r| Ok(Type::Tensor(cx.batched_type(&cx.src_ty(r)?, p))))
        .collect::<Result<Vec<_>>>()?;
    let rs = cx.emit_full(kind, operands, regions, Some(declared))?;
    Ok(rs.into_iter().map(|v| BVal::at(v, p)).collect())
}

/// `bitcast_convert` may add or drop a trailing dimension: the batch dimension goes first.
pub(crate) fn bitcast_convert(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let x = cx.move_to(args[0], 0)?;
    let out = cx.batched_type(&cx.src_ty(op.results[0])?, 0);
    let r = cx.emit_as(OpKind::BitcastConvert, vec![x], out)?;
    Ok(vec![BVal::at(r, 0)])
}
