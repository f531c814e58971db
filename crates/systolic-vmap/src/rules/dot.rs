//! dot_general (and the deprecated dot, rewritten as dot_general).
//!
//! Batched on both sides, the batch dimension becomes a new leading batch dimension of the
//! product. Batched on one side, it is a free (non-contracting) dimension of that side, which
//! the product keeps, as JAX does; no operand is broadcast.

use crate::builder::{shift, BVal, Cx};
use crate::Result;
use systolic_ir::{DotDimensionNumbers, Op, OpKind};

pub(crate) fn dot(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let lt = cx.src_ty(op.operands[0])?;
    let rt = cx.src_ty(op.operands[1])?;
    let (dn, precision_config, algorithm) = match &op.kind {
        OpKind::DotGeneral {
            dimension_numbers,
            precision_config,
            algorithm,
        } => (
            dimension_numbers.clone(),
            precision_config.clone(),
            algorithm.clone(),
        ),
        OpKind::Dot { precision_config } => (
            DotDimensionNumbers {
                lhs_batching_dimensions: vec![],
                rhs_batching_dimensions: vec![],
                lhs_contracting_dimensions: vec![lt.rank() as i64 - 1],
                rhs_contracting_dimensions: vec![0],
            },
            precision_config.clone(),
            None,
        ),
        _ => unreachable!(),
    };
    let (l, r) = (args[0], args[1]);
    let nb = dn.lhs_batching_dimensions.len();
    let free = |rank: usize, b: &[i64], c: &[i64]| -> Vec<i64> {
        (0..rank as i64)
            .filter(|d| !b.contains(d) && !c.contains(d))
            .collect()
    };
    let lfree = free(
        lt.rank(),
        &dn.lhs_batching_dimensions,
        &dn.lhs_contracting_dimensions,
    );
    let rfree = free(
        rt.rank(),
        &dn.rhs_batching_dimensions,
        &dn.rhs_contracting_dimensions,
    );
    let sh = |v: &[i64], d: usize| v.iter().map(|&x| shift(x, d)).collect::<Vec<_>>();
    let zf = |v: &[i64]| {
        let mut o = vec![0];
        o.extend(v.iter().map(|x| x + 1));
        o
    };
    let (lv, rv, dn2, out) = match (l.bdim, r.bdim) {
        (Some(_), Some(_)) => {
            let lv = cx.move_to(l, 0)?;
            let rv = cx.move_to(r, 0)?;
            let dn2 = DotDimensionNumbers {
                lhs_batching_dimensions: zf(&dn.lhs_batching_dimensions),
                rhs_batching_dimensions: zf(&dn.rhs_batching_dimensions),
                lhs_contracting_dimensions: sh(&dn.lhs_contracting_dimensions, 0),
                rhs_contracting_dimensions: sh(&dn.rhs_contracting_dimensions, 0),
            };
            (lv, rv, dn2, 0)
        }
        (Some(d), None) => {
            let dn2 = DotDimensionNumbers {
                lhs_batching_dimensions: sh(&dn.lhs_batching_dimensions, d),
                rhs_batching_dimensions: dn.rhs_batching_dimensions.clone(),
                lhs_contracting_dimensions: sh(&dn.lhs_contracting_dimensions, d),
                rhs_contracting_dimensions: dn.rhs_contracting_dimensions.clone(),
            };
            let out = nb + lfree.iter().filter(|&&f| f < d as i64).count();
            (l.v, r.v, dn2, out)
        }
        (None, Some(d)) => {
            let dn2 = DotDimensionNumbers {
                lhs_batching_dimensions: dn.lhs_batching_dimensions.clone(),
                rhs_batching_dimensions: sh(&dn.rhs_batching_dimensions, d),
                lhs_contracting_dimensions: dn.lhs_contracting_dimensions.clone(),
                rhs_contracting_dimensions: sh(&dn.rhs_contracting_dimensions, d),
            };
            let out = nb + lfree.len() + rfree.iter().filter(|&&f| f < d as i64).count();
            (l.v, r.v, dn2, out)
        }
        (None, None) => unreachable!("a rule runs only on batched operands"),
    };
    let declared = cx.src_ty(op.results[0])?;
    let res = cx.emit_as(
        OpKind::DotGeneral {
            dimension_numbers: dn2,
            precision_config,
            algorithm,
        },
        vec![lv, rv],
        declared,
    )?;
    Ok(vec![BVal::at(res, out)])
}
