//! Indexing: dynamic_slice, dynamic_update_slice, gather, scatter.
//!
//! With batched start indices, dynamic_slice becomes a gather and dynamic_update_slice a
//! scatter, as in JAX; gather and scatter use StableHLO's batching dimensions to pair the batch
//! dimension of the operand with that of the indices.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::builder::return_region;
use systolic_ir::{
    DType, GatherDimensionNumbers, Op, OpKind, ScatterDimensionNumbers, TensorType, Type,
};

fn plus1(v: &[i64]) -> Vec<i64> {
    v.iter().map(|d| d + 1).collect()
}

fn zero_then(v: &[i64]) -> Vec<i64> {
    let mut out = vec![0];
    out.extend(plus1(v));
    out
}

/// The start indices as a `[B, r]` i64 matrix, each clamped to `[0, max_i]` (dynamic_slice's
/// and dynamic_update_slice's clamping, which gather does too but scatter does not).
fn index_matrix(cx: &mut Cx, idx: &[BVal], maxes: &[i64]) -> Result<systolic_ir::ValueId> {
    let mut cols = vec![];
    for (&i, &m) in idx.iter().zip(maxes) {
        let v = cx.convert(i.v, DType::I64)?;
        let lo = cx.scalar(DType::I64, 0.0)?;
        let hi = cx.scalar(DType::I64, m.max(0) as f64)?;
        let v = cx.emit(OpKind::Clamp, vec![lo, v, hi])?;
        let v = cx.materialize(BVal { v, bdim: i.bdim }, 0)?;
        let size = cx.size;
        cols.push(cx.reshape(v, &[size, 1])?);
    }
    cx.concatenate(cols, 1)
}

pub(crate) fn dynamic_slice(
    cx: &mut Cx,
    op: &Op,
    args: &[BVal],
    sizes: &[i64],
) -> Result<Vec<BVal>> {
    if cx.size == 0 {
        return cx.empty_results(op);
    }
    let (x, idx) = (args[0], &args[1..]);
    let xt = cx.ty(x.v)?;
    if idx.iter().all(|i| !i.batched()) {
        let d = x.bdim.expect("batched");
        let ity = idx
            .first()
            .map(|i| cx.ty(i.v).map(|t| t.dtype))
            .transpose()?
            .unwrap_or(DType::I64);
        let zero = cx.scalar(ity, 0.0)?;
        let mut ops: Vec<_> = idx.iter().map(|i| i.v).collect();
        ops.insert(d, zero);
        let mut s = sizes.to_vec();
        s.insert(d, cx.size);
        let r = cx.emit(
            OpKind::DynamicSlice { slice_sizes: s },
            std::iter::once(x.v).chain(ops).collect(),
        )?;
        return Ok(vec![BVal::at(r, d)]);
    }
    let mut per_example = xt.shape.clone();
    if let Some(d) = x.bdim {
        per_example.remove(d);
    }
    let r = sizes.len();
    let maxes: Vec<i64> = per_example.iter().zip(sizes).map(|(d, s)| d - s).collect();
    let indices = index_matrix(cx, idx, &maxes)?;
    let dims: Vec<i64> = (1..=r as i64).collect();
    let (operand, dn, slice_sizes) = if x.batched() {
        let xv = cx.move_to(x, 0)?;
        let mut s = vec![1];
        s.extend(sizes);
        let dn = GatherDimensionNumbers {
            offset_dims: dims.clone(),
            collapsed_slice_dims: vec![],
            operand_batching_dims: vec![0],
            start_indices_batching_dims: vec![0],
            start_index_map: dims.clone(),
            index_vector_dim: 1,
        };
        (xv, dn, s)
    } else {
        let dn = GatherDimensionNumbers {
            offset_dims: dims.clone(),
            collapsed_slice_dims: vec![],
            operand_batching_dims: vec![],
            start_indices_batching_dims: vec![],
            start_index_map: (0..r as i64).collect(),
            index_vector_dim: 1,
        };
        (x.v, dn, sizes.to_vec())
    };
    let g = cx.emit(
        OpKind::Gather {
            dimension_numbers: dn,
            slice_sizes,
            indices_are_sorted: false,
        },
        vec![operand, indices],
    )?;
    Ok(vec![BVal::at(g, 0)])
}

pub(crate) fn dynamic_update_slice(cx: &mut Cx, args: &[BVal]) -> Result<Vec<BVal>> {
    let (x, upd, idx) = (args[0], args[1], &args[2..]);
    let xv = cx.materialize(x, 0)?;
    let uv = cx.materialize(upd, 0)?;
    if idx.iter().all(|i| !i.batched()) {
        let ity = idx
            .first()
            .map(|i| cx.ty(i.v).map(|t| t.dtype))
            .transpose()?
            .unwrap_or(DType::I64);
        let zero = cx.scalar(ity, 0.0)?;
        let mut operands = vec![xv, uv, zero];
        operands.extend(idx.iter().map(|i| i.v));
        let r = cx.emit(OpKind::DynamicUpdateSlice, operands)?;
        return Ok(vec![BVal::at(r, 0)]);
    }
    let xt = cx.ty(xv)?;
    let ut = cx.ty(uv)?;
    let maxes: Vec<i64> = xt.shape[1..]
        .iter()
        .zip(&ut.shape[1..])
        .map(|(d, s)| d - s)
        .collect();
    let indices = index_matrix(cx, idx, &maxes)?;
    let r = idx.len() as i64;
    let dims: Vec<i64> = (1..=r).collect();
    let dn = ScatterDimensionNumbers {
        update_window_dims: dims.clone(),
        inserted_window_dims: vec![],
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![0],
        scatter_dims_to_operand_dims: dims,
        index_vector_dim: 1,
    };
    let st = Type::Tensor(TensorType::scalar(xt.dtype));
    let a = cx.param(st.clone());
    let b = cx.param(st);
    let body = return_region(vec![a, b], vec![], vec![b]);
    let rs = cx.emit_full(
        OpKind::Scatter {
            dimension_numbers: dn,
            indices_are_sorted: false,
            unique_indices: true,
        },
        vec![xv, indices, uv],
        vec![body],
        None,
    )?;
    Ok(vec![BVal::at(rs[0], 0)])
}

pub(crate) fn gather(
    cx: &mut Cx,
    op: &Op,
    args: &[BVal],
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
    sorted: bool,
) -> Result<Vec<BVal>> {
    if cx.size == 0 {
        return cx.empty_results(op);
    }
    let (x, ix) = (args[0], args[1]);
    let mut dn2 = dn.clone();
    let mut sizes = slice_sizes.to_vec();
    let operand = if x.batched() { cx.move_to(x, 0)? } else { x.v };
    let indices = if ix.batched() {
        cx.move_to(ix, 0)?
    } else {
        ix.v
    };
    match (x.batched(), ix.batched()) {
        (true, false) => {
            dn2.offset_dims = zero_then(&dn.offset_dims);
            dn2.collapsed_slice_dims = plus1(&dn.collapsed_slice_dims);
            dn2.operand_batching_dims = plus1(&dn.operand_batching_dims);
            dn2.start_index_map = plus1(&dn.start_index_map);
            sizes.insert(0, cx.size);
        }
        (false, true) => {
            dn2.offset_dims = plus1(&dn.offset_dims);
            dn2.start_indices_batching_dims = plus1(&dn.start_indices_batching_dims);
            dn2.index_vector_dim += 1;
        }
        _ => {
            dn2.offset_dims = plus1(&dn.offset_dims);
            dn2.collapsed_slice_dims = plus1(&dn.collapsed_slice_dims);
            dn2.operand_batching_dims = zero_then(&dn.operand_batching_dims);
            dn2.start_indices_batching_dims = zero_then(&dn.start_indices_batching_dims);
            dn2.start_index_map = plus1(&dn.start_index_map);
            dn2.index_vector_dim += 1;
            sizes.insert(0, 1);
        }
    }
    let r = cx.emit(
        OpKind::Gather {
            dimension_numbers: dn2,
            slice_sizes: sizes,
            indices_are_sorted: sorted && !ix.batched(),
        },
        vec![operand, indices],
    )?;
    Ok(vec![BVal::at(r, 0)])
}

pub(crate) fn scatter(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let OpKind::Scatter {
        dimension_numbers: dn,
        indices_are_sorted,
        unique_indices,
    } = &op.kind
    else {
        unreachable!()
    };
    let n = (args.len() - 1) / 2;
    let (inputs, ix, updates) = (&args[..n], args[n], &args[n + 1..]);
    let mut operands = vec![];
    for &a in inputs {
        operands.push(cx.materialize(a, 0)?);
    }
    let mut dn2 = dn.clone();
    if ix.batched() {
        operands.push(cx.move_to(ix, 0)?);
        dn2.update_window_dims = plus1(&dn.update_window_dims);
        dn2.inserted_window_dims = plus1(&dn.inserted_window_dims);
        dn2.input_batching_dims = zero_then(&dn.input_batching_dims);
        dn2.scatter_indices_batching_dims = zero_then(&dn.scatter_indices_batching_dims);
        dn2.scatter_dims_to_operand_dims = plus1(&dn.scatter_dims_to_operand_dims);
        dn2.index_vector_dim += 1;
    } else {
        operands.push(ix.v);
        dn2.update_window_dims = zero_then(&dn.update_window_dims);
        dn2.inserted_window_dims = plus1(&dn.inserted_window_dims);
        dn2.input_batching_dims = plus1(&dn.input_batching_dims);
        dn2.scatter_dims_to_operand_dims = plus1(&dn.scatter_dims_to_operand_dims);
    }
    for &u in updates {
        operands.push(cx.materialize(u, 0)?);
    }
    let regions = op
        .regions
        .iter()
        .map(|r| cx.copy_unbatched_region(r))
        .collect::<Result<Vec<_>>>()?;
    let rs = cx.emit_full(
        OpKind::Scatter {
            dimension_numbers: dn2,
            indices_are_sorted: *indices_are_sorted && !ix.batched(),
            unique_indices: *unique_indices,
        },
        operands,
        regions,
        None,
    )?;
    Ok(rs.into_iter().map(|v| BVal::at(v, 0)).collect())
}
