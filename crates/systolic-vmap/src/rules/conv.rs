//! convolution, as JAX batches it: a batched input folds the batch into the input's batch
//! dimension; a batched kernel folds it into the output features (next to each output feature,
//! so feature groups stay contiguous); both batched use feature groups: the batch goes in front
//! of the input features and of the output features and the group count is multiplied by it.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::{ConvAttrs, Op, OpKind, ValueId};

/// Moves the batch dimension of `b` next to dimension `dim` of the per-example value (before it
/// when `before`, else after) and merges the two.
fn fold(cx: &mut Cx, b: BVal, dim: usize, before: bool) -> Result<ValueId> {
    let v = cx.move_to(b, 0)?;
    let t = cx.ty(v)?;
    let n = t.rank() - 1;
    let mut perm = vec![];
    for k in 0..n {
        if k == dim && before {
            perm.push(0);
        }
        perm.push(k as i64 + 1);
        if k == dim && !before {
            perm.push(0);
        }
    }
    let v = cx.transpose(v, &perm)?;
    let mut shape: Vec<i64> = t.shape[1..].to_vec();
    shape[dim] *= cx.size;
    cx.reshape(v, &shape)
}

/// For an input with `batch_group_count = g`: folds the batch into the input's batch dimension
/// `dim` inside each group (`[g, B, n/g]`), so every group keeps its examples together.
fn fold_grouped(cx: &mut Cx, b: BVal, dim: usize, g: i64) -> Result<ValueId> {
    let v = cx.move_to(b, 0)?;
    let t = cx.ty(v)?;
    let mut shape = t.shape.clone();
    let n = shape[dim + 1];
    shape[dim + 1] = n / g;
    shape.insert(dim + 1, g);
    let v = cx.reshape(v, &shape)?;
    // [B, pre.., g, n/g, post..] -> [pre.., g, B, n/g, post..]
    let rank = t.rank() as i64 + 1;
    let mut perm: Vec<i64> = (1..=dim as i64 + 1).collect();
    perm.push(0);
    perm.extend(dim as i64 + 2..rank);
    let v = cx.transpose(v, &perm)?;
    let mut out: Vec<i64> = t.shape[1..].to_vec();
    out[dim] *= cx.size;
    cx.reshape(v, &out)
}

/// Splits dimension `dim` of `v` into `[B, n]` (`b_outer`) or `[n, B]`.
fn split(cx: &mut Cx, v: ValueId, dim: usize, b_outer: bool) -> Result<BVal> {
    let t = cx.ty(v)?;
    let mut shape = t.shape.clone();
    let whole = shape[dim];
    let inner = if cx.size == 0 { 0 } else { whole / cx.size };
    shape[dim] = inner;
    let at = if b_outer { dim } else { dim + 1 };
    shape.insert(at, cx.size);
    Ok(BVal::at(cx.reshape(v, &shape)?, at))
}

pub(crate) fn convolution(
    cx: &mut Cx,
    op: &Op,
    args: &[BVal],
    attrs: &ConvAttrs,
) -> Result<Vec<BVal>> {
    let (l, r) = (args[0], args[1]);
    let dn = &attrs.dimension_numbers;
    let declared = cx.src_ty(op.results[0])?;
    if cx.size == 0 {
        return cx.empty_results(op);
    }
    let mut a = attrs.clone();
    let (lv, rv, how) = match (l.batched(), r.batched()) {
        (true, false) => {
            let g = attrs.batch_group_count;
            let lv = if g == 1 {
                fold(cx, l, dn.input_batch_dimension as usize, true)?
            } else {
                fold_grouped(cx, l, dn.input_batch_dimension as usize, g)?
            };
            (lv, r.v, 0)
        }
        (false, true) => {
            let rv = fold(cx, r, dn.kernel_output_feature_dimension as usize, false)?;
            (l.v, rv, 1)
        }
        _ if attrs.batch_group_count == 1 => {
            let lv = fold(cx, l, dn.input_feature_dimension as usize, true)?;
            let rv = fold(cx, r, dn.kernel_output_feature_dimension as usize, true)?;
            a.feature_group_count *= cx.size;
            (lv, rv, 2)
        }
        _ => {
            // Batch groups already (so one feature group): one batch group per example and
            // group, the batch outermost on the input's batch and the output features.
            let lv = fold(cx, l, dn.input_batch_dimension as usize, true)?;
            let rv = fold(cx, r, dn.kernel_output_feature_dimension as usize, true)?;
            a.batch_group_count *= cx.size;
            (lv, rv, 2)
        }
    };
    let res = cx.emit_as(OpKind::Convolution(a), vec![lv, rv], declared)?;
    let out = match how {
        0 => split(cx, res, dn.output_batch_dimension as usize, true)?,
        1 => split(cx, res, dn.output_feature_dimension as usize, false)?,
        _ => split(cx, res, dn.output_feature_dimension as usize, true)?,
    };
    Ok(vec![out])
}
