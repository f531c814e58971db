//! Reductions and window ops: reduce, reduce_window, select_and_scatter, sort, top_k.
//!
//! Bodies are scalar computations and are copied unchanged; the batch dimension is kept out of
//! the reduced dimensions and windows. Batched init values are not supported (as in JAX).

use crate::builder::{shift, BVal, Cx};
use crate::Result;
use systolic_ir::{Op, OpKind, Region};

fn copy_regions(cx: &mut Cx, op: &Op) -> Result<Vec<Region>> {
    op.regions
        .iter()
        .map(|r| cx.copy_unbatched_region(r))
        .collect()
}

fn no_batched_inits(cx: &Cx, inits: &[BVal]) -> Result<()> {
    if inits.iter().any(BVal::batched) {
        return Err(cx.err(
            "batched init values are not supported (the init value must not depend on a mapped \
             input)",
        ));
    }
    Ok(())
}

pub(crate) fn reduce(cx: &mut Cx, op: &Op, args: &[BVal], dims: &[i64]) -> Result<Vec<BVal>> {
    let n = args.len() / 2;
    no_batched_inits(cx, &args[n..])?;
    let p = args[..n].iter().find_map(|a| a.bdim).unwrap_or(0);
    let mut operands = vec![];
    for &a in &args[..n] {
        operands.push(cx.materialize(a, p)?);
    }
    operands.extend(args[n..].iter().map(|a| a.v));
    let regions = copy_regions(cx, op)?;
    let dimensions: Vec<i64> = dims.iter().map(|&d| shift(d, p)).collect();
    let out = p - dims.iter().filter(|&&d| d < p as i64).count();
    let rs = cx.emit_full(OpKind::Reduce { dimensions }, operands, regions, None)?;
    Ok(rs.into_iter().map(|v| BVal::at(v, out)).collect())
}

pub(crate) fn reduce_window(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let OpKind::ReduceWindow { window } = &op.kind else {
        unreachable!()
    };
    let n = args.len() / 2;
    no_batched_inits(cx, &args[n..])?;
    let mut operands = vec![];
    for &a in &args[..n] {
        operands.push(cx.materialize(a, 0)?);
    }
    operands.extend(args[n..].iter().map(|a| a.v));
    let kind = OpKind::ReduceWindow {
        window: window.with_leading_unit_dimension(),
    };
    let regions = copy_regions(cx, op)?;
    let rs = cx.emit_full(kind, operands, regions, None)?;
    Ok(rs.into_iter().map(|v| BVal::at(v, 0)).collect())
}

pub(crate) fn select_and_scatter(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let OpKind::SelectAndScatter { window } = &op.kind else {
        unreachable!()
    };
    no_batched_inits(cx, &args[2..])?;
    let x = cx.materialize(args[0], 0)?;
    let s = cx.materialize(args[1], 0)?;
    let kind = OpKind::SelectAndScatter {
        window: window.with_leading_unit_dimension(),
    };
    let regions = copy_regions(cx, op)?;
    let rs = cx.emit_full(kind, vec![x, s, args[2].v], regions, None)?;
    Ok(vec![BVal::at(rs[0], 0)])
}

pub(crate) fn sort(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let OpKind::Sort {
        dimension,
        is_stable,
    } = &op.kind
    else {
        unreachable!()
    };
    let p = args.iter().find_map(|a| a.bdim).unwrap_or(0);
    let operands = args
        .iter()
        .map(|&a| cx.materialize(a, p))
        .collect::<Result<Vec<_>>>()?;
    let regions = copy_regions(cx, op)?;
    let rank = cx.src_ty(op.operands[0])?.rank() as i64;
    let dim = if *dimension < 0 {
        dimension + rank
    } else {
        *dimension
    };
    let kind = OpKind::Sort {
        dimension: shift(dim, p),
        is_stable: *is_stable,
    };
    let rs = cx.emit_full(kind, operands, regions, None)?;
    Ok(rs.into_iter().map(|v| BVal::at(v, p)).collect())
}

pub(crate) fn top_k(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let x = cx.move_to(args[0], 0)?;
    let rs = cx.emit_full(op.kind.clone(), vec![x], vec![], None)?;
    Ok(rs.into_iter().map(|v| BVal::at(v, 0)).collect())
}
