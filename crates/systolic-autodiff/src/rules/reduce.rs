//! `reduce` with add, max or min bodies.

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::ComparisonDirection as Dir;
use systolic_ir::{BinaryOp, Op, OpKind, Region, ValueId, Window};

/// The binary op a reducer region applies to its two arguments, if it is that simple.
pub(crate) fn reducer_op(r: &Region) -> Option<BinaryOp> {
    let blk = r.entry()?;
    if blk.args.len() != 2 || blk.ops.len() != 2 {
        return None;
    }
    let op = &blk.ops[0];
    let ret = &blk.ops[1];
    match &op.kind {
        OpKind::Binary(o)
            if ret.operands == op.results
                && (op.operands == blk.args || op.operands == [blk.args[1], blk.args[0]]) =>
        {
            Some(*o)
        }
        _ => None,
    }
}

/// The dimensions a reduction over `dims` keeps, in order.
pub(crate) fn kept_dims(rank: usize, dims: &[i64]) -> Vec<i64> {
    (0..rank as i64).filter(|d| !dims.contains(d)).collect()
}

pub(crate) fn reduce_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: &mut [ValueId],
) -> Res<Vec<Option<ValueId>>> {
    let OpKind::Reduce { dimensions } = &op.kind else {
        unreachable!()
    };
    let n = op.results.len();
    if n != 1 {
        // Variadic reductions (argmax/argmin) are treated as index computations.
        return Ok(vec![None; n]);
    }
    if !b.dtype(y[0]).is_float_or_complex() || (t[0].is_none() && t[1].is_none()) {
        return Ok(vec![None]);
    }
    let rop = op.regions.first().and_then(reducer_op).ok_or_else(|| {
        Error::new("cannot differentiate stablehlo.reduce with a body other than add, max or min")
    })?;
    let xs = b.shape(x[0]);
    let kept = kept_dims(xs.len(), dimensions);
    let ys = b.shape(y[0]);
    let tang = match rop {
        BinaryOp::Add => {
            let s = match t[0] {
                Some(tv) => Some(b.reduce_sum(tv, dimensions)?),
                None => None,
            };
            let ti = match t[1] {
                Some(ti) => Some(b.broadcast_in_dim(ti, &ys, &[])?),
                None => None,
            };
            b.add_opt(s, ti)?
        }
        BinaryOp::Maximum | BinaryOp::Minimum => match t[0] {
            Some(tv) => {
                let yb = b.broadcast_in_dim(y[0], &xs, &kept)?;
                let eq = b.compare(Dir::Eq, x[0], yb)?;
                let ind = b.convert(eq, b.dtype(x[0]))?;
                let counts = b.reduce_sum(ind, dimensions)?;
                let m = b.mul(tv, ind)?;
                let s = b.reduce_sum(m, dimensions)?;
                Some(b.div(s, counts)?)
            }
            None => None,
        },
        BinaryOp::Multiply => match t[0] {
            Some(tv) => Some(prod_jvp(b, x[0], x[1], tv, dimensions, &kept, &ys)?),
            None => None,
        },
        o => {
            return Err(Error::new(format!(
                "cannot differentiate stablehlo.reduce with a `{}` body (add, multiply, max and min are supported)",
                o.name()
            )))
        }
    };
    Ok(vec![tang])
}

/// Exclusive running products along axis 1 of a `[b, n]` array (1 first).
fn exclusive_cumprod(b: &mut Builder, x: ValueId) -> Res<ValueId> {
    let s = b.shape(x);
    let n = s[1];
    let dt = b.dtype(x);
    let one = b.scalar(dt, 1.0)?;
    let shifted = b.pad(x, one, vec![0, 1], vec![0, -1], vec![0, 0])?;
    let region = b.reducer(BinaryOp::Multiply, dt)?;
    Ok(b.emit_full(
        OpKind::ReduceWindow {
            window: Window::new(vec![1, n]).with_padding(vec![(0, 0), (n - 1, 0)]),
        },
        vec![shifted, one],
        vec![region],
        None,
    )?[0])
}

/// The tangent of a product: Σᵢ ṫᵢ·Πⱼ≠ᵢ xⱼ, with the products of the other elements formed
/// from running products before and after each element (no division, so zeros are fine).
fn prod_jvp(
    b: &mut Builder,
    x: ValueId,
    init: ValueId,
    t: ValueId,
    dims: &[i64],
    kept: &[i64],
    ys: &[i64],
) -> Res<ValueId> {
    let xs = b.shape(x);
    let perm: Vec<i64> = kept.iter().chain(dims).copied().collect();
    let rows: i64 = kept.iter().map(|&d| xs[d as usize]).product();
    let n: i64 = dims.iter().map(|&d| xs[d as usize]).product();
    let xt = b.transpose(x, &perm)?;
    let xr = b.reshape(xt, &[rows, n])?;
    let tt = b.transpose(t, &perm)?;
    let tr = b.reshape(tt, &[rows, n])?;
    let pre = exclusive_cumprod(b, xr)?;
    let rev = b.emit(
        OpKind::Reverse {
            dimensions: vec![1],
        },
        vec![xr],
    )?;
    let suf_r = exclusive_cumprod(b, rev)?;
    let suf = b.emit(
        OpKind::Reverse {
            dimensions: vec![1],
        },
        vec![suf_r],
    )?;
    let others = b.mul(pre, suf)?;
    let ib = b.broadcast_in_dim(init, &[rows, n], &[])?;
    let coef = b.mul(others, ib)?;
    let m = b.mul(tr, coef)?;
    let s = b.reduce_sum(m, &[1])?;
    b.reshape(s, ys)
}

pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let OpKind::Reduce { dimensions } = &op.kind else {
        unreachable!()
    };
    if op.operands.len() != 2
        || lin[1]
        || op.regions.first().and_then(reducer_op) != Some(BinaryOp::Add)
    {
        return Err(super::unsupported(op, "transpose"));
    }
    let xs = b.shape(op.operands[0]);
    let kept = kept_dims(xs.len(), dimensions);
    Ok(vec![Some(b.broadcast_in_dim(c, &xs, &kept)?), None])
}
