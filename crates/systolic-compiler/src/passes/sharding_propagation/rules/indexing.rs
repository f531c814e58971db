//! gather and scatter: which dimensions pass through the indexing.
//!
//! Gather: an operand dimension taken whole (slice size = its size, not indexed, not
//! collapsed) passes to its offset dimension of the result; the start indices' batch
//! dimensions pass to the result's batch dimensions; explicit batching dimensions are shared
//! by operand, indices and result. An indexed operand dimension sliced one row at a time (an
//! embedding's vocabulary) is a reduction factor: sharded, each device gathers the rows it
//! holds (indices shifted by its offset, other rows zeroed) and a sum completes the result,
//! as XLA's SPMD gather does for a sharded indexed dimension. Other indexed dimensions and
//! the index vector dimension are needed whole. Scatter mirrors it: inputs and results share
//! every dimension that passes — an indexed dimension whose windows are one row wide too
//! (each device applies the updates that land in its rows, indices shifted by its offset;
//! scatter drops updates out of bounds); updates' window dimensions pass with the input's,
//! their scatter dimensions with the indices' batch dimensions (a reduction factor unless it
//! is a batching dimension: each device would apply part of the updates).

use super::build::{op_step, operand_shapes, result_shapes, RuleBuilder};
use super::{FactorKind, OpClass, Step};
use systolic_ir::{Func, GatherDimensionNumbers, Op, ScatterDimensionNumbers};

fn has(list: &[i64], d: usize) -> bool {
    list.contains(&(d as i64))
}

/// The indices' dimensions other than the index vector dimension, in order.
fn index_batch_dims(rank: usize, index_vector_dim: i64) -> Vec<usize> {
    (0..rank)
        .filter(|&d| d as i64 != index_vector_dim)
        .collect()
}

/// `stablehlo.gather`.
pub(crate) fn gather(
    op: &Op,
    func: &Func,
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Step {
    let shapes = operand_shapes(op, func);
    let (operand, indices) = (
        shapes[0].clone(),
        shapes.get(1).cloned().unwrap_or_default(),
    );
    let output = result_shapes(op, func).swap_remove(0);
    let mut b = RuleBuilder::new();
    let mut op_dims = b.own(&operand, FactorKind::Blocked);
    let mut idx_dims = b.own(&indices, FactorKind::Blocked);
    let mut out_dims = b.own(&output, FactorKind::Pass);
    // Offset dimensions of the result ↔ operand dimensions neither collapsed nor batching.
    let window: Vec<usize> = (0..operand.len())
        .filter(|&d| !has(&dn.collapsed_slice_dims, d) && !has(&dn.operand_batching_dims, d))
        .collect();
    for (&od, &rd) in window.iter().zip(&dn.offset_dims) {
        let rd = rd as usize;
        if slice_sizes.get(od) == Some(&operand[od])
            && !has(&dn.start_index_map, od)
            && output.get(rd) == Some(&operand[od])
        {
            let f = b.factor(operand[od], FactorKind::Pass);
            op_dims[od] = vec![f];
            out_dims[rd] = vec![f];
        }
    }
    // An indexed dimension taken one row at a time: partial results (rows held elsewhere
    // read as zero) when it is sharded.
    for &d in &dn.start_index_map {
        let d = d as usize;
        if slice_sizes.get(d) == Some(&1) && !has(&dn.operand_batching_dims, d) {
            if let Some(&n) = operand.get(d) {
                op_dims[d] = vec![b.factor(n, FactorKind::Reduction)];
            }
        }
    }
    // Batch dimensions of the result ↔ the indices' dimensions but the index vector's.
    let result_batch: Vec<usize> = (0..output.len())
        .filter(|&d| !has(&dn.offset_dims, d))
        .collect();
    for (&id, &rd) in index_batch_dims(indices.len(), dn.index_vector_dim)
        .iter()
        .zip(&result_batch)
    {
        if output.get(rd) != Some(&indices[id]) {
            continue;
        }
        let f = b.factor(indices[id], FactorKind::Pass);
        idx_dims[id] = vec![f];
        out_dims[rd] = vec![f];
        if let Some(k) = dn
            .start_indices_batching_dims
            .iter()
            .position(|&x| x as usize == id)
        {
            if let Some(&od) = dn.operand_batching_dims.get(k) {
                if operand.get(od as usize) == Some(&indices[id]) {
                    op_dims[od as usize] = vec![f];
                }
            }
        }
    }
    op_step(
        op,
        b.rule(vec![op_dims, idx_dims], vec![out_dims], OpClass::Other),
    )
}

/// `stablehlo.scatter` (`n` inputs, the indices, `n` updates → `n` results).
pub(crate) fn scatter(op: &Op, func: &Func, dn: &ScatterDimensionNumbers) -> Step {
    let shapes = operand_shapes(op, func);
    let n = op.results.len().max(1);
    let input = shapes[0].clone();
    let indices = shapes.get(n).cloned().unwrap_or_default();
    let update = shapes.get(n + 1).cloned().unwrap_or_default();
    let mut b = RuleBuilder::new();
    let mut in_dims = b.own(&input, FactorKind::Blocked);
    let mut res_dims = b.own(&input, FactorKind::Pass);
    let mut idx_dims = b.own(&indices, FactorKind::Blocked);
    let mut upd_dims = b.own(&update, FactorKind::Blocked);
    let window: Vec<usize> = (0..input.len())
        .filter(|&d| !has(&dn.inserted_window_dims, d) && !has(&dn.input_batching_dims, d))
        .collect();
    for (&d, &ud) in window.iter().zip(&dn.update_window_dims) {
        let ud = ud as usize;
        if update.get(ud) == Some(&input[d]) && !has(&dn.scatter_dims_to_operand_dims, d) {
            let f = b.factor(input[d], FactorKind::Pass);
            in_dims[d] = vec![f];
            res_dims[d] = vec![f];
            upd_dims[ud] = vec![f];
        }
    }
    // An indexed dimension whose windows are one row wide: each device applies the updates
    // that land in its rows.
    for &d in &dn.scatter_dims_to_operand_dims {
        let d = d as usize;
        if has(&dn.inserted_window_dims, d) && !has(&dn.input_batching_dims, d) {
            if let Some(&n) = input.get(d) {
                let f = b.factor(n, FactorKind::Pass);
                in_dims[d] = vec![f];
                res_dims[d] = vec![f];
            }
        }
    }
    let update_scatter: Vec<usize> = (0..update.len())
        .filter(|&d| !has(&dn.update_window_dims, d))
        .collect();
    for (&id, &ud) in index_batch_dims(indices.len(), dn.index_vector_dim)
        .iter()
        .zip(&update_scatter)
    {
        if update.get(ud) != Some(&indices[id]) {
            continue;
        }
        // A batching dimension passes to the input and results; otherwise the updates
        // along it land anywhere in the result, so splitting them gives each device part of
        // the updates: partial results, a reduction factor.
        let batching = dn
            .scatter_indices_batching_dims
            .iter()
            .position(|&x| x as usize == id)
            .and_then(|k| dn.input_batching_dims.get(k))
            .map(|&d| d as usize)
            .filter(|&d| input.get(d) == Some(&indices[id]));
        let kind = if batching.is_some() {
            FactorKind::Pass
        } else {
            FactorKind::Reduction
        };
        let f = b.factor(indices[id], kind);
        idx_dims[id] = vec![f];
        upd_dims[ud] = vec![f];
        if let Some(d) = batching {
            in_dims[d] = vec![f];
            res_dims[d] = vec![f];
        }
    }
    let mut operands = vec![in_dims; n];
    operands.push(idx_dims);
    operands.extend(vec![upd_dims; n]);
    op_step(op, b.rule(operands, vec![res_dims; n], OpClass::Other))
}
