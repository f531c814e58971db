//! `reduce_window`: add (linear; transposed as a strided, padded window sum) and max/min
//! (the tangent of the first element of each window equal to the result, picked window
//! offset by window offset with strided slices of the padded operand).

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::window::dilated_size;
use systolic_ir::ComparisonDirection as Dir;
use systolic_ir::{BinaryOp, DType, Op, OpKind, ResolvedWindow, ValueId, Window};

/// The window of a (verified) reduce_window or select_and_scatter, defaults filled in.
fn win(op: &Op) -> Res<ResolvedWindow> {
    let window = match &op.kind {
        OpKind::ReduceWindow { window } | OpKind::SelectAndScatter { window } => window,
        _ => unreachable!(),
    };
    window
        .resolve(window.window_dimensions.len())
        .map_err(|e| Error::new(format!("{}: {e}", op.kind.name())))
}

pub(crate) fn reduce_window_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: &mut [ValueId],
) -> Res<Vec<Option<ValueId>>> {
    if op.results.len() != 1 {
        return Err(Error::new(
            "cannot differentiate a stablehlo.reduce_window of several operands",
        ));
    }
    let Some(tv) = t[0] else {
        return Ok(vec![None]);
    };
    if !b.dtype(y[0]).is_float_or_complex() {
        return Ok(vec![None]);
    }
    let rop = op
        .regions
        .first()
        .and_then(super::reduce::reducer_op)
        .ok_or_else(|| Error::new("cannot differentiate stablehlo.reduce_window with this body"))?;
    match rop {
        BinaryOp::Add => {
            let zero = b.scalar(b.dtype(tv), 0.0)?;
            let region = b.reducer(BinaryOp::Add, b.dtype(tv))?;
            Ok(vec![Some(
                b.emit_full(op.kind.clone(), vec![tv, zero], vec![region], None)?[0],
            )])
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            {
            let w = win(op)?;
            Ok(vec![Some(chooser(b, &w, x[0], x[1], tv, y[0])?)])
        }
        }
        BinaryOp::Multiply => {
            let w = win(op)?;
            Ok(vec![Some(product(b, &w, x[0], x[1], tv, y[0])?)])
        }
        o => Err(Error::new(format!(
            "cannot differentiate stablehlo.reduce_window with a `{}` body (add, multiply, max and min are supported)",
            o.name()
        ))),
    }
}

/// For each window of `x` (padded with `init`), the element of `t` where the first element
/// equal to the window's result `y` is.
fn chooser(
    b: &mut Builder,
    w: &ResolvedWindow,
    x: ValueId,
    init: ValueId,
    t: ValueId,
    y: ValueId,
) -> Res<ValueId> {
    let slices = window_slices(b, w, x, init, t, y)?;
    let ys = b.shape(y);
    let zeros = b.full_like(y, 0.0)?;
    let mut found = b.full(&systolic_ir::TensorType::new(ys, DType::Bool), 0.0)?;
    let mut acc: Option<ValueId> = None;
    for (xk, tk) in slices {
        let eq = b.compare(Dir::Eq, xk, y)?;
        let not_found = b.unary(systolic_ir::UnaryOp::Not, found)?;
        let pick = b.binary(BinaryOp::And, eq, not_found)?;
        found = b.binary(BinaryOp::Or, found, eq)?;
        let s = b.select(pick, tk, zeros)?;
        acc = b.add_opt(acc, Some(s))?;
    }
    acc.ok_or_else(|| Error::new("reduce_window with an empty window"))
}

/// The windows of `x` (padded with `init`) and of `t` (padded with 0), one strided slice per
/// window offset, each shaped like the result `y`.
fn window_slices(
    b: &mut Builder,
    w: &ResolvedWindow,
    x: ValueId,
    init: ValueId,
    t: ValueId,
    y: ValueId,
) -> Res<Vec<(ValueId, ValueId)>> {
    let n = w.rank();
    let (sizes, strides, wdil) = (w.sizes(), w.strides(), w.window_dilations());
    let lo: Vec<i64> = w.dims().iter().map(|d| d.padding.0).collect();
    let hi: Vec<i64> = w.dims().iter().map(|d| d.padding.1).collect();
    let interior: Vec<i64> = w.dims().iter().map(|d| d.base_dilation - 1).collect();
    let xp = b.pad(x, init, lo.clone(), hi.clone(), interior.clone())?;
    let zero = b.scalar(b.dtype(t), 0.0)?;
    let tp = b.pad(t, zero, lo, hi, interior)?;
    let ys = b.shape(y);
    let total: i64 = sizes.iter().product();
    let mut out = vec![];
    for k in 0..total {
        let mut rem = k;
        let mut off = vec![0i64; n];
        for d in (0..n).rev() {
            off[d] = rem % sizes[d];
            rem /= sizes[d];
        }
        let start: Vec<i64> = (0..n).map(|d| off[d] * wdil[d]).collect();
        let limit: Vec<i64> = (0..n)
            .map(|d| {
                if ys[d] == 0 {
                    start[d]
                } else {
                    start[d] + (ys[d] - 1) * strides[d] + 1
                }
            })
            .collect();
        let xk = b.slice(xp, start.clone(), limit.clone(), strides.clone())?;
        let tk = b.slice(tp, start, limit, strides.clone())?;
        out.push((xk, tk));
    }
    Ok(out)
}

/// A windowed product's tangent: the sum over the window of each element's tangent times the
/// product of the others (and the init value), from running products before and after each
/// offset (no division, so zeros are fine).
fn product(
    b: &mut Builder,
    w: &ResolvedWindow,
    x: ValueId,
    init: ValueId,
    t: ValueId,
    y: ValueId,
) -> Res<ValueId> {
    let slices = window_slices(b, w, x, init, t, y)?;
    let ys = b.shape(y);
    let iy = b.broadcast_in_dim(init, &ys, &[])?;
    let mut before = vec![iy];
    for (xk, _) in &slices[..slices.len().saturating_sub(1)] {
        let last = *before.last().unwrap_or(&iy);
        before.push(b.mul(last, *xk)?);
    }
    let mut after = vec![None; slices.len()];
    let mut acc: Option<ValueId> = None;
    for k in (0..slices.len()).rev() {
        after[k] = acc;
        acc = Some(match acc {
            Some(a) => b.mul(a, slices[k].0)?,
            None => slices[k].0,
        });
    }
    let mut out: Option<ValueId> = None;
    for (k, (_, tk)) in slices.iter().enumerate() {
        let coef = match after[k] {
            Some(a) => b.mul(before[k], a)?,
            None => before[k],
        };
        let term = b.mul(*tk, coef)?;
        out = b.add_opt(out, Some(term))?;
    }
    out.ok_or_else(|| Error::new("reduce_window with an empty window"))
}

/// Whether a select_and_scatter picks maxima (true) or minima.
fn picks_max(op: &Op) -> Option<bool> {
    let blk = op.regions.first()?.entry()?;
    blk.ops.iter().find_map(|o| match o.kind {
        OpKind::Compare { direction, .. } => match direction {
            Dir::Ge | Dir::Gt => Some(true),
            Dir::Le | Dir::Lt => Some(false),
            _ => None,
        },
        _ => None,
    })
}

fn scatter_adds(op: &Op) -> bool {
    op.regions.get(1).and_then(super::reduce::reducer_op) == Some(BinaryOp::Add)
}

/// `select_and_scatter` (the transpose of max pooling) is linear in its source: its tangent
/// scatters the source's tangent to the same places.
pub(crate) fn select_and_scatter_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: &mut [ValueId],
) -> Res<Vec<Option<ValueId>>> {
    if t[1].is_none() && t[2].is_none() {
        return Ok(vec![None]);
    }
    if picks_max(op).is_none() || !scatter_adds(op) {
        return Err(Error::new(
            "cannot differentiate stablehlo.select_and_scatter other than a max/min selection with an add scatter",
        ));
    }
    let mut out = None;
    if let Some(ts) = t[1] {
        let cloned = b
            .ops
            .iter()
            .rev()
            .find(|o| o.results.as_slice() == &*y)
            .cloned()
            .ok_or_else(|| Error::new("internal: select_and_scatter clone not found"))?;
        let r0 = b.copy_region(&cloned.regions[0])?;
        let r1 = b.copy_region(&cloned.regions[1])?;
        let zero = b.scalar(b.dtype(ts), 0.0)?;
        out = Some(b.emit_full(op.kind.clone(), vec![x[0], ts, zero], vec![r0, r1], None)?[0]);
    }
    if let Some(ti) = t[2] {
        let ys = b.shape(y[0]);
        let bt = b.broadcast_in_dim(ti, &ys, &[])?;
        out = b.add_opt(out, Some(bt))?;
    }
    Ok(vec![out])
}

fn select_and_scatter_transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let max = picks_max(op).ok_or_else(|| super::unsupported(op, "transpose"))?;
    if lin[0] || !scatter_adds(op) {
        return Err(super::unsupported(op, "transpose"));
    }
    let w = win(op)?;
    let x = op.operands[0];
    let dt = b.dtype(x);
    let mut out = vec![None, None, None];
    if lin[1] {
        // The window results, then the cotangent at each window's chosen element.
        let fill = b.scalar(
            dt,
            if max {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            },
        )?;
        let region = b.reducer(
            if max {
                BinaryOp::Maximum
            } else {
                BinaryOp::Minimum
            },
            dt,
        )?;
        let kind = OpKind::ReduceWindow {
            window: Window::new(w.sizes())
                .with_strides(w.strides())
                .with_padding(w.padding()),
        };
        let y = b.emit_full(kind, vec![x, fill], vec![region], None)?[0];
        out[1] = Some(chooser(b, &w, x, fill, c, y)?);
    }
    if lin[2] {
        let all: Vec<i64> = (0..b.shape(c).len() as i64).collect();
        out[2] = Some(b.reduce_sum(c, &all)?);
    }
    Ok(out)
}

pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    if matches!(op.kind, OpKind::SelectAndScatter { .. }) {
        return select_and_scatter_transpose(b, op, c, lin);
    }
    if op.operands.len() != 2
        || lin[1]
        || op.regions.first().and_then(super::reduce::reducer_op) != Some(BinaryOp::Add)
    {
        return Err(super::unsupported(op, "transpose"));
    }
    let w = win(op)?;
    let xs = b.shape(op.operands[0]);
    let cs = b.shape(c);
    let mut lo = vec![];
    let mut hi = vec![];
    for (d, wd) in w.dims().iter().enumerate() {
        // The cotangent dilated by the strides, padded so that a window over it visits, for
        // each input element, the outputs whose windows held it.
        let ld = wd.dilated_base(xs[d]) as i64;
        let rd = wd.dilated_window() as i64;
        let od = dilated_size(cs[d], wd.stride) as i64;
        let before = rd - wd.padding.0 - 1;
        lo.push(before);
        hi.push(ld + rd - 1 - od - before);
    }
    let zero = b.scalar(b.dtype(c), 0.0)?;
    let interior = w.dims().iter().map(|d| d.stride - 1).collect();
    let pc = b.pad(c, zero, lo, hi, interior)?;
    let region = b.reducer(BinaryOp::Add, b.dtype(c))?;
    let kind = OpKind::ReduceWindow {
        window: Window::new(w.sizes())
            .with_strides(w.base_dilations())
            .with_window_dilations(w.window_dilations()),
    };
    let r = b.emit_full(kind, vec![pc, zero], vec![region], None)?[0];
    Ok(vec![Some(r), None])
}
