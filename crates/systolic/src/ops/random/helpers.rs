//! Ops the samplers need that the namespaces do not offer (yet): `take` along an axis, top-k,
//! a sequential cumulative sum, `nextafter`, typed constants. All are built from bind-level
//! primitives (gather, chlo.top_k, reduce_window, chlo.next_after), so they trace.

use crate::array::{describe, Array};
use crate::core::bind::{bind, bind1, bind_with};
use crate::core::body::Body;
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::broadcast_shapes;
use systolic_ir::{BinaryOp, ChloBinaryOp, DType, GatherDimensionNumbers, OpKind};

/// Checks that parameters broadcast to `shape` without growing it (JAX's `_check_shape`).
pub(crate) fn check_param_shapes(op: &str, shape: &[i64], params: &[&Array]) -> Result<(), Error> {
    for p in params {
        p.check()?;
        if broadcast_shapes(shape, p.dims()).as_deref() != Some(shape) {
            return Err(Error::op(
                op,
                format!(
                    "parameter {} does not broadcast to the shape {:?}",
                    describe(p.aval()),
                    shape
                ),
            ));
        }
    }
    Ok(())
}

/// The broadcast shape of parameters (the default draw shape), or an error.
pub(crate) fn params_shape(op: &str, params: &[&Array]) -> Result<Vec<i64>, Error> {
    let mut shape: Vec<i64> = vec![];
    for p in params {
        p.check()?;
        shape = broadcast_shapes(&shape, p.dims()).ok_or_else(|| {
            Error::op(
                op,
                format!(
                    "parameter {} does not broadcast with shape {:?}",
                    describe(p.aval()),
                    shape
                ),
            )
        })?;
    }
    Ok(shape)
}

/// A rank-0 constant of `dtype` holding `value` (rounded once to `dtype`, as `np.array(v,
/// dtype)`).
pub(crate) fn cst(value: f64, dtype: DType) -> Array {
    np::full(&[], value, dtype)
}

/// `dtype`'s `finfo`: (tiny, eps, epsneg).
pub(crate) fn finfo(dtype: DType) -> (f64, f64, f64) {
    let nmant = dtype.mantissa_bits().unwrap_or(23) as i32;
    let tiny = match dtype {
        DType::F16 => 2f64.powi(-14),
        DType::F64 => f64::MIN_POSITIVE,
        _ => f64::from(f32::MIN_POSITIVE),
    };
    (tiny, 2f64.powi(-nmant), 2f64.powi(-nmant - 1))
}

/// Normalises `axis` against rank `n`.
pub(crate) fn norm_axis(op: &str, axis: i64, n: usize) -> Result<usize, Error> {
    let a = if axis < 0 { axis + n as i64 } else { axis };
    if (0..n as i64).contains(&a) {
        Ok(a as usize)
    } else {
        Err(Error::op(
            op,
            format!("axis {axis} is out of range for rank {n}"),
        ))
    }
}

/// `jnp.take(x, idx, axis)` for int32 indices of rank 1 (in bounds): the result has `x`'s
/// shape with `idx.len()` at `axis`.
pub(crate) fn take(op: &str, x: &Array, idx: &Array, axis: usize) -> Array {
    let r = x.rank();
    if axis >= r || idx.rank() != 1 {
        return Array::failed(Error::op(
            op,
            format!(
                "take of {} by {} along axis {axis}",
                describe(x.aval()),
                describe(idx.aval())
            ),
        ));
    }
    let m = idx.dims()[0];
    let idx2 = lax::reshape(idx, &[m, 1]);
    let mut slice_sizes = x.dims().to_vec();
    slice_sizes[axis] = 1;
    let dims = GatherDimensionNumbers {
        offset_dims: (0..r).filter(|&d| d != axis).map(|d| d as i64).collect(),
        collapsed_slice_dims: vec![axis as i64],
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
        start_index_map: vec![axis as i64],
        index_vector_dim: 1,
    };
    bind1(
        op,
        OpKind::Gather {
            dimension_numbers: dims,
            slice_sizes,
            indices_are_sorted: false,
        },
        &[x, &idx2],
        None,
        x.weak_type(),
    )
}

/// `jnp.take_along_axis(x, idx, -1)` for int32 `idx` of `x`'s shape (in bounds).
pub(crate) fn take_along_last(op: &str, x: &Array, idx: &Array) -> Array {
    let shape = x.dims().to_vec();
    let n = *shape.last().unwrap_or(&1);
    let size = x.num_elements() as i64;
    let rows = if n == 0 { 0 } else { size / n };
    let base = np::multiply(
        &lax::iota(DType::I32, &[rows, n], 0),
        &crate::ops::elementwise::weak_int(n),
    );
    let flat_idx = np::reshape(&np::add(&base, &np::reshape(idx, &[rows, n])), &[size]);
    let flat = np::reshape(x, &[size]);
    np::reshape(&take(op, &flat, &flat_idx, 0), &shape)
}

/// `lax.top_k` along the last dimension: (values, int32 indices) of the `k` largest (or
/// smallest), equal elements lower index first, as XLA:CPU orders them.
pub(crate) fn top_k(op: &str, x: &Array, k: i64, largest: bool) -> (Array, Array) {
    match bind(op, OpKind::TopK { k, largest }, &[x], vec![], None, false) {
        Ok(mut v) if v.len() == 2 => {
            let i = v
                .pop()
                .unwrap_or_else(|| Array::failed(Error::op(op, "top_k")));
            let vals = v
                .pop()
                .unwrap_or_else(|| Array::failed(Error::op(op, "top_k")));
            (vals, i)
        }
        Ok(_) => {
            let e = Array::failed(Error::op(op, "top_k: expected two results"));
            (e.clone(), e)
        }
        Err(e) => (Array::failed(e.clone()), Array::failed(e)),
    }
}

/// `jnp.cumsum` of a rank-1 array as JAX lowers it on CPU: a `reduce_window` whose window
/// ends at each element, summed in order from zero.
pub(crate) fn cumsum(op: &str, x: &Array) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    let n = x.dims().first().copied().unwrap_or(0);
    let init = np::zeros(&[], x.element_type());
    bind_with(
        op,
        OpKind::ReduceWindow {
            window: systolic_ir::Window::new(vec![n]).with_padding(vec![(n - 1, 0)]),
        },
        &[x, &init],
        vec![Body::Reducer(BinaryOp::Add, x.element_type())],
        None,
        false,
    )
}

/// `lax.nextafter(x, ±inf)`: the next float of `x`'s dtype up (`up = true`) or down.
pub(crate) fn nextafter(op: &str, x: &Array, up: bool) -> Array {
    let inf = if up { f64::INFINITY } else { f64::NEG_INFINITY };
    let y = np::broadcast_to(&cst(inf, x.element_type()), x.dims());
    bind1(
        op,
        OpKind::ChloBinary(ChloBinaryOp::NextAfter),
        &[x, &y],
        None,
        false,
    )
}

/// `x` with `axis` moved to the end, and the permutation that moves it back.
pub(crate) fn axis_to_last(x: &Array, axis: usize) -> (Array, Vec<i64>) {
    let r = x.rank();
    let mut perm: Vec<i64> = (0..r as i64).filter(|&d| d != axis as i64).collect();
    perm.push(axis as i64);
    let mut inv = vec![0i64; r];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    let t = if axis + 1 == r {
        x.clone()
    } else {
        np::transpose(x, Some(&perm))
    };
    (t, inv)
}

/// Undoes [`axis_to_last`].
pub(crate) fn last_to_axis(x: &Array, inv: &[i64]) -> Array {
    if inv.iter().enumerate().all(|(i, &p)| p == i as i64) {
        x.clone()
    } else {
        np::transpose(x, Some(inv))
    }
}

/// `jnp.any(x)` of a boolean array: one `reduce` with `or` over every axis, a rank-0 bool
/// (what a batched `while` condition asks).
pub(crate) fn any(op: &str, x: &Array) -> Array {
    let dims = (0..x.rank() as i64).collect();
    let init = np::zeros(&[], DType::Bool);
    bind_with(
        op,
        OpKind::Reduce { dimensions: dims },
        &[x, &init],
        vec![Body::Reducer(BinaryOp::Or, DType::Bool)],
        None,
        false,
    )
}

/// `a & b` for booleans (broadcasting).
pub(crate) fn and(op: &str, a: &Array, b: &Array) -> Array {
    crate::ops::elementwise::binary(op, BinaryOp::And, a, b)
}

/// `a | b` for booleans (broadcasting).
pub(crate) fn or(op: &str, a: &Array, b: &Array) -> Array {
    crate::ops::elementwise::binary(op, BinaryOp::Or, a, b)
}

/// `~a` for booleans.
pub(crate) fn not(op: &str, a: &Array) -> Array {
    crate::ops::elementwise::unary(op, systolic_ir::UnaryOp::Not, a)
}

/// `x != x`: JAX's `_isnan`.
pub(crate) fn isnan(x: &Array) -> Array {
    np::not_equal(x, x)
}
