//! Reductions, products and convolutions: where partial results come from.

use super::build::{op_step, operand_shapes, result_shapes, RuleBuilder};
use super::{FactorKind, OpClass, Step};
use systolic_ir::{ConvAttrs, DotDimensionNumbers, Func, Op, Window, WindowDim};

/// `stablehlo.reduce` over `dimensions` (inputs, then as many scalar init values): kept
/// dimensions pass to the results, reduced ones are reduction factors shared by the inputs.
pub(crate) fn reduce(op: &Op, func: &Func, dimensions: &[i64]) -> Step {
    let shapes = operand_shapes(op, func);
    let inputs = op.operands.len() / 2;
    let shape = shapes.first().cloned().unwrap_or_default();
    let mut b = RuleBuilder::new();
    let factors: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(d, &n)| {
            let kind = if dimensions.contains(&(d as i64)) {
                FactorKind::Reduction
            } else {
                FactorKind::Pass
            };
            b.factor(n, kind)
        })
        .collect();
    let input_dims: Vec<Vec<usize>> = factors.iter().map(|&f| vec![f]).collect();
    let kept: Vec<Vec<usize>> = factors
        .iter()
        .enumerate()
        .filter(|(d, _)| !dimensions.contains(&(*d as i64)))
        .map(|(_, &f)| vec![f])
        .collect();
    let mut operands = vec![input_dims; inputs];
    operands.extend(shapes[inputs..].iter().map(|s| b.own(s, FactorKind::Pass)));
    let results = vec![kept; op.results.len()];
    op_step(op, b.rule(operands, results, OpClass::Other))
}

/// `stablehlo.dot_general`: batch factors shared by both operands and the result, each
/// side's free dimensions shared with the result (result order: batch, lhs free, rhs free),
/// contracting dimensions reduction factors shared by the operands.
pub(crate) fn dot_general(op: &Op, func: &Func, dn: &DotDimensionNumbers) -> Result<Step, String> {
    let shapes = operand_shapes(op, func);
    let (lhs, rhs) = match shapes.as_slice() {
        [l, r] => (l.clone(), r.clone()),
        _ => return Err("dot_general: expects two operands".into()),
    };
    let mut b = RuleBuilder::new();
    let mut l: Vec<Option<usize>> = vec![None; lhs.len()];
    let mut r: Vec<Option<usize>> = vec![None; rhs.len()];
    let mut out = vec![];
    let dim = |d: i64, n: usize, side: &str| {
        usize::try_from(d)
            .ok()
            .filter(|&d| d < n)
            .ok_or_else(|| format!("dot_general: {side} dimension {d} out of range"))
    };
    for (&ld, &rd) in dn
        .lhs_batching_dimensions
        .iter()
        .zip(&dn.rhs_batching_dimensions)
    {
        let (ld, rd) = (dim(ld, lhs.len(), "lhs")?, dim(rd, rhs.len(), "rhs")?);
        let f = b.factor(lhs[ld], FactorKind::Pass);
        l[ld] = Some(f);
        r[rd] = Some(f);
        out.push(vec![f]);
    }
    for (&ld, &rd) in dn
        .lhs_contracting_dimensions
        .iter()
        .zip(&dn.rhs_contracting_dimensions)
    {
        let (ld, rd) = (dim(ld, lhs.len(), "lhs")?, dim(rd, rhs.len(), "rhs")?);
        let f = b.factor(lhs[ld], FactorKind::Reduction);
        l[ld] = Some(f);
        r[rd] = Some(f);
    }
    for (d, slot) in l.iter_mut().enumerate() {
        if slot.is_none() {
            let f = b.factor(lhs[d], FactorKind::Pass);
            *slot = Some(f);
            out.push(vec![f]);
        }
    }
    for (d, slot) in r.iter_mut().enumerate() {
        if slot.is_none() {
            let f = b.factor(rhs[d], FactorKind::Pass);
            *slot = Some(f);
            out.push(vec![f]);
        }
    }
    let as_dims = |v: Vec<Option<usize>>| v.into_iter().flatten().map(|f| vec![f]).collect();
    Ok(op_step(
        op,
        b.rule(vec![as_dims(l), as_dims(r)], vec![out], OpClass::Other),
    ))
}

/// `stablehlo.dot`: `dot_general` contracting the last lhs dimension with the first rhs one.
pub(crate) fn dot(op: &Op, func: &Func) -> Result<Step, String> {
    let shapes = operand_shapes(op, func);
    let (lr, rr) = match shapes.as_slice() {
        [l, r] => (l.len() as i64, r.len()),
        _ => return Err("dot: expects two operands".into()),
    };
    let _ = rr;
    let dn = DotDimensionNumbers {
        lhs_batching_dimensions: vec![],
        rhs_batching_dimensions: vec![],
        lhs_contracting_dimensions: vec![lr - 1],
        rhs_contracting_dimensions: vec![0],
    };
    dot_general(op, func, &dn)
}

/// `stablehlo.convolution`: the batch passes (input batch ↔ output batch), the input
/// feature is a reduction shared with the kernel's input feature, the kernel's output
/// feature passes to the output feature; an input spatial dimension whose windows tile it
/// ([`window_kind`]) is a windowed factor shared with the output's (the partitioner
/// exchanges halos); one the kernel spans whole ([`sums_over`]: a weight gradient) is a
/// reduction factor shared with the kernel's; other spatial dimensions and the kernel's are
/// needed whole. Grouped
/// convolutions block the features too.
pub(crate) fn convolution(op: &Op, func: &Func, attrs: &ConvAttrs) -> Result<Step, String> {
    let shapes = operand_shapes(op, func);
    let output = result_shapes(op, func).swap_remove(0);
    let (input, kernel) = match shapes.as_slice() {
        [i, k] => (i.clone(), k.clone()),
        _ => return Err("convolution: expects two operands".into()),
    };
    let dn = &attrs.dimension_numbers;
    let at = |shape: &[i64], d: i64, what: &str| {
        usize::try_from(d)
            .ok()
            .filter(|&d| d < shape.len())
            .ok_or_else(|| format!("convolution: {what} dimension {d} out of range"))
    };
    let mut b = RuleBuilder::new();
    let mut ins = b.own(&input, FactorKind::Blocked);
    let mut ker = b.own(&kernel, FactorKind::Blocked);
    let mut outs = b.own(&output, FactorKind::Pass);
    let grouped = attrs.feature_group_count != 1 || attrs.batch_group_count != 1;
    let (ib, ob) = (
        at(&input, dn.input_batch_dimension, "input batch")?,
        at(&output, dn.output_batch_dimension, "output batch")?,
    );
    if attrs.batch_group_count == 1 && input[ib] == output[ob] {
        let f = b.factor(input[ib], FactorKind::Pass);
        ins[ib] = vec![f];
        outs[ob] = vec![f];
    }
    let kernel_spatial: Vec<i64> = dn
        .kernel_spatial_dimensions
        .iter()
        .map(|&d| at(&kernel, d, "kernel spatial").map(|d| kernel[d]))
        .collect::<Result<_, _>>()?;
    let window = attrs
        .resolve_window(&kernel_spatial)
        .map_err(|e| format!("convolution: {e}"))?;
    for (i, w) in window.dims().iter().enumerate() {
        let (Some(&id), Some(&od)) = (
            dn.input_spatial_dimensions.get(i),
            dn.output_spatial_dimensions.get(i),
        ) else {
            return Err("convolution: spatial dimensions do not match its window".into());
        };
        let (id, od) = (
            at(&input, id, "input spatial")?,
            at(&output, od, "output spatial")?,
        );
        let kd = at(&kernel, dn.kernel_spatial_dimensions[i], "kernel spatial")?;
        let reversed = attrs
            .window_reversal
            .as_ref()
            .is_some_and(|r| r.get(i) == Some(&true));
        if let Some(kind) = window_kind(w, input[id], output[od]) {
            let f = b.factor(output[od], kind);
            ins[id] = vec![f];
            outs[od] = vec![f];
        } else if sums_over(w, input[id], reversed) {
            let f = b.factor(input[id], FactorKind::Reduction);
            ins[id] = vec![f];
            ker[kd] = vec![f];
        }
    }
    if !grouped {
        let (i_f, k_if) = (
            at(&input, dn.input_feature_dimension, "input feature")?,
            at(
                &kernel,
                dn.kernel_input_feature_dimension,
                "kernel input feature",
            )?,
        );
        let f = b.factor(input[i_f], FactorKind::Reduction);
        ins[i_f] = vec![f];
        ker[k_if] = vec![f];
        let (k_of, o_f) = (
            at(
                &kernel,
                dn.kernel_output_feature_dimension,
                "kernel output feature",
            )?,
            at(&output, dn.output_feature_dimension, "output feature")?,
        );
        let f = b.factor(kernel[k_of], FactorKind::Pass);
        ker[k_of] = vec![f];
        outs[o_f] = vec![f];
    }
    Ok(op_step(
        op,
        b.rule(vec![ins, ker], vec![outs], OpClass::Other),
    ))
}

/// How a window along one dimension (input size `n`, output size `m`) lets a split pass:
/// `Pass` for a window of one element stepping by one (each output reads its own input);
/// `Windowed` where the outputs tile the input (`m · stride = n`, no base dilation, no
/// cropping: pieces of `m / t` outputs read pieces of `n / t` inputs plus halos, or a
/// cumulative window as long as the dimension); `None` (needed whole) otherwise — a VALID
/// window whose output is shorter, a base-dilated (transposed) window.
pub(crate) fn window_kind(w: &WindowDim, n: i64, m: i64) -> Option<FactorKind> {
    let (lo, hi) = w.padding;
    if w.size == 1 && w.stride == 1 && w.base_dilation == 1 && lo == 0 && hi == 0 {
        return Some(FactorKind::Pass);
    }
    let tiles =
        w.base_dilation == 1 && lo >= 0 && hi >= 0 && m > 0 && m.checked_mul(w.stride) == Some(n);
    tiles.then_some(FactorKind::Windowed)
}

/// Whether a convolution's window along an input dimension of size `n` is the whole
/// dimension, stepping by one (a weight gradient: the kernel is the output gradient, and
/// each output sums over every position): the input and kernel dimensions then share a
/// reduction factor (partial sums over pieces, the input's with halos of the padding).
fn sums_over(w: &WindowDim, n: i64, reversed: bool) -> bool {
    let (lo, hi) = w.padding;
    w.size == n
        && n > 1
        && w.stride == 1
        && w.base_dilation == 1
        && w.window_dilation == 1
        && lo >= 0
        && hi >= 0
        && !reversed
}

/// `stablehlo.reduce_window` (inputs, then as many scalar init values): per dimension, the
/// inputs and results share a factor of the kind [`window_kind`] gives, or the dimension is
/// needed whole in the inputs (free in the results).
pub(crate) fn reduce_window(op: &Op, func: &Func, window: &Window) -> Result<Step, String> {
    let shapes = operand_shapes(op, func);
    let outputs = result_shapes(op, func);
    let inputs = op.operands.len() / 2;
    let (shape, out) = (
        shapes.first().cloned().unwrap_or_default(),
        outputs.first().cloned().unwrap_or_default(),
    );
    let resolved = window
        .resolve(shape.len())
        .map_err(|e| format!("reduce_window: {e}"))?;
    let mut b = RuleBuilder::new();
    let mut ins = vec![];
    let mut outs = vec![];
    for (d, w) in resolved.dims().iter().enumerate() {
        let m = out.get(d).copied().unwrap_or(1);
        match window_kind(w, shape[d], m) {
            Some(kind) => {
                let f = b.factor(m, kind);
                ins.push(vec![f]);
                outs.push(vec![f]);
            }
            None => {
                ins.push(vec![b.factor(shape[d], FactorKind::Blocked)]);
                outs.push(vec![b.factor(m, FactorKind::Pass)]);
            }
        }
    }
    let mut operands = vec![ins; inputs];
    operands.extend(shapes[inputs..].iter().map(|s| b.own(s, FactorKind::Pass)));
    let results = outputs
        .iter()
        .map(|s| {
            if s.len() == outs.len() {
                outs.clone()
            } else {
                b.own(s, FactorKind::Pass)
            }
        })
        .collect();
    Ok(op_step(op, b.rule(operands, results, OpClass::Other)))
}

/// `stablehlo.select_and_scatter` (operand, source, init; the result the operand's shape):
/// a dimension whose windows tile the operand without overlapping (window = stride, no
/// padding: 2x2 max pooling's gradient) shares one windowed factor between operand, source
/// and result, which the partitioner runs on pieces where they line up; a window of one
/// element passes; other windowed dimensions are needed whole (overlapping windows would
/// scatter into the neighbours' rows).
pub(crate) fn select_and_scatter(op: &Op, func: &Func, window: &Window) -> Result<Step, String> {
    let shapes = operand_shapes(op, func);
    let (operand, source) = match shapes.as_slice() {
        [o, s, _] => (o.clone(), s.clone()),
        _ => return Err("select_and_scatter: expects three operands".into()),
    };
    let resolved = window
        .resolve(operand.len())
        .map_err(|e| format!("select_and_scatter: {e}"))?;
    let mut b = RuleBuilder::new();
    let (mut ops, mut srcs, mut outs) = (vec![], vec![], vec![]);
    for (d, w) in resolved.dims().iter().enumerate() {
        let m = source.get(d).copied().unwrap_or(1);
        let tiles = w.size == w.stride && w.padding == (0, 0);
        let kind = window_kind(w, operand[d], m).filter(|&k| k != FactorKind::Windowed || tiles);
        if let Some(kind) = kind {
            let f = b.factor(m, kind);
            ops.push(vec![f]);
            srcs.push(vec![f]);
            outs.push(vec![f]);
        } else {
            ops.push(vec![b.factor(operand[d], FactorKind::Blocked)]);
            srcs.push(vec![b.factor(m, FactorKind::Blocked)]);
            outs.push(vec![b.factor(operand[d], FactorKind::Pass)]);
        }
    }
    let init = b.own(&shapes[2], FactorKind::Pass);
    Ok(op_step(
        op,
        b.rule(vec![ops, srcs, init], vec![outs], OpClass::Other),
    ))
}

/// `stablehlo.batch_norm_inference`: operand and result elementwise; scale, offset, mean and
/// variance share the feature dimension.
pub(crate) fn batch_norm_inference(op: &Op, func: &Func, feature: i64) -> Step {
    let shapes = operand_shapes(op, func);
    let shape = shapes.first().cloned().unwrap_or_default();
    let mut b = RuleBuilder::new();
    let dims = b.own(&shape, FactorKind::Pass);
    let feature_dims = dims
        .get(feature as usize)
        .cloned()
        .map(|f| vec![f])
        .unwrap_or_default();
    let mut operands = vec![dims.clone()];
    operands.extend(shapes[1..].iter().map(|_| feature_dims.clone()));
    op_step(op, b.rule(operands, vec![dims], OpClass::Other))
}

/// `stablehlo.batch_norm_training` / `batch_norm_grad`: the feature dimension passes
/// between every operand and result; the other dimensions of the full-size tensors, which
/// the statistics reduce over, are needed whole (blocked in operands, free in results).
pub(crate) fn batch_norm_feature_only(op: &Op, func: &Func, feature: i64) -> Step {
    let shapes = operand_shapes(op, func);
    let results = result_shapes(op, func);
    let full = shapes.first().cloned().unwrap_or_default();
    let mut b = RuleBuilder::new();
    let f = full
        .get(feature as usize)
        .map(|&n| b.factor(n, FactorKind::Pass));
    let map = |s: &[i64], other: FactorKind, b: &mut RuleBuilder| -> Vec<Vec<usize>> {
        if s.len() == 1 {
            return vec![f.into_iter().collect()];
        }
        s.iter()
            .enumerate()
            .map(|(d, &n)| match f {
                Some(f) if d as i64 == feature => vec![f],
                _ => vec![b.factor(n, other)],
            })
            .collect()
    };
    let operands = shapes
        .iter()
        .map(|s| map(s, FactorKind::Blocked, &mut b))
        .collect();
    let results = results
        .iter()
        .map(|s| map(s, FactorKind::Pass, &mut b))
        .collect();
    op_step(op, b.rule(operands, results, OpClass::Other))
}
