//! `dot_general` (and the deprecated `dot`): the product rule, and transposes that contract
//! the cotangent with the other operand and put the dimensions back in order.

use crate::builder::{AdBuilder, Builder, Res};
use systolic_ir::{DotDimensionNumbers, Op, OpKind, Precision, ValueId};

/// The dimension numbers and precision of a `dot_general` or `dot`.
fn dims_of(b: &Builder, op: &Op) -> (DotDimensionNumbers, Vec<Precision>) {
    match &op.kind {
        OpKind::DotGeneral {
            dimension_numbers,
            precision_config,
            ..
        } => (dimension_numbers.clone(), precision_config.clone()),
        OpKind::Dot { precision_config } => {
            let lr = b.shape(op.operands[0]).len() as i64;
            (
                DotDimensionNumbers {
                    lhs_contracting_dimensions: vec![lr - 1],
                    rhs_contracting_dimensions: vec![0],
                    ..Default::default()
                },
                precision_config.clone(),
            )
        }
        _ => (DotDimensionNumbers::default(), vec![]),
    }
}

pub(crate) fn dot_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: ValueId,
) -> Res<Option<ValueId>> {
    let dt = b.dtype(y);
    if !dt.is_float_or_complex() {
        return Ok(None);
    }
    // Dims computed on the primal operands of the built function.
    let probe = Op::new(op.kind.clone(), x.to_vec(), vec![]);
    let (dn, prec) = dims_of(b, &probe);
    let l = match t[0] {
        Some(ta) => Some(b.dot_general(ta, x[1], dn.clone(), prec.clone(), dt)?),
        None => None,
    };
    let r = match t[1] {
        Some(tb) => Some(b.dot_general(x[0], tb, dn, prec, dt)?),
        None => None,
    };
    b.add_opt(l, r)
}

/// Position of each element of `xs` in `sorted(xs)`.
fn ranks(xs: &[i64]) -> Vec<usize> {
    let mut s = xs.to_vec();
    s.sort();
    xs.iter()
        .map(|x| s.iter().position(|y| y == x).unwrap_or(0))
        .collect()
}

/// The cotangent of one side (`this`) of a product, given the other side `other`.
/// `this_b/this_c` are this side's batch/contracting dims, `other_b/other_c` the other's.
#[allow(clippy::too_many_arguments)]
fn side(
    b: &mut Builder,
    c: ValueId,
    other: ValueId,
    this_rank: usize,
    this_b: &[i64],
    this_c: &[i64],
    other_b: &[i64],
    other_c: &[i64],
    this_first: bool,
    prec: Vec<Precision>,
    dtype: systolic_ir::DType,
) -> Res<ValueId> {
    let other_rank = b.shape(other).len();
    let nb = this_b.len();
    let this_free: Vec<i64> = (0..this_rank as i64)
        .filter(|d| !this_b.contains(d) && !this_c.contains(d))
        .collect();
    let other_free: Vec<i64> = (0..other_rank as i64)
        .filter(|d| !other_b.contains(d) && !other_c.contains(d))
        .collect();
    // Cotangent dims: batch, lhs free, rhs free.
    let other_free_start = if this_first { nb + this_free.len() } else { nb };
    let ct_other_free: Vec<i64> = (0..other_free.len())
        .map(|i| (other_free_start + i) as i64)
        .collect();
    let dn = DotDimensionNumbers {
        lhs_batching_dimensions: (0..nb as i64).collect(),
        rhs_batching_dimensions: other_b.to_vec(),
        lhs_contracting_dimensions: ct_other_free,
        rhs_contracting_dimensions: other_free.clone(),
    };
    // Mixed precision (e.g. a bf16 product accumulated in f32): the f32 cotangent meets the
    // bf16 operand and the result is rounded once to this side's type, as JAX does.
    let cc = c;
    let prec = if prec.len() == 2 && !this_first {
        vec![prec[1], prec[0]]
    } else {
        prec
    };
    let r = b.dot_general(cc, other, dn, prec, dtype)?;
    // r dims: batch (nb), this free (in ct order), other's remaining dims = other_c sorted.
    let rk = ranks(other_c);
    let mut pos = vec![0i64; this_rank];
    for (i, &d) in this_b.iter().enumerate() {
        pos[d as usize] = i as i64;
    }
    for (j, &d) in this_free.iter().enumerate() {
        pos[d as usize] = (nb + j) as i64;
    }
    for (k, &d) in this_c.iter().enumerate() {
        pos[d as usize] = (nb + this_free.len() + rk[k]) as i64;
    }
    b.transpose(r, &pos)
}

pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let (dn, prec) = dims_of(b, op);
    let (lhs, rhs) = (op.operands[0], op.operands[1]);
    let mut out = vec![None, None];
    if lin[0] {
        let r = b.shape(lhs).len();
        let dt = b.dtype(lhs);
        out[0] = Some(side(
            b,
            c,
            rhs,
            r,
            &dn.lhs_batching_dimensions,
            &dn.lhs_contracting_dimensions,
            &dn.rhs_batching_dimensions,
            &dn.rhs_contracting_dimensions,
            true,
            prec.clone(),
            dt,
        )?);
    }
    if lin[1] {
        let r = b.shape(rhs).len();
        let dt = b.dtype(rhs);
        out[1] = Some(side(
            b,
            c,
            lhs,
            r,
            &dn.rhs_batching_dimensions,
            &dn.rhs_contracting_dimensions,
            &dn.lhs_batching_dimensions,
            &dn.lhs_contracting_dimensions,
            false,
            prec,
            dt,
        )?);
    }
    Ok(out)
}
