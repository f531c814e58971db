//! Products: `lax.dot_general` and numpy's `matmul`/`dot`.

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::Error;
use crate::ops::shape::{broadcast_to, reshape};
use systolic_ir::{DType, DotDimensionNumbers, OpKind, TensorType};

/// `lax.dot_general(lhs, rhs, dimension_numbers, preferred_element_type)`; operands are
/// promoted to a common dtype first (as `jnp` does), the result has `preferred` or that dtype.
pub fn dot_general(
    lhs: &Array,
    rhs: &Array,
    dims: DotDimensionNumbers,
    preferred: Option<DType>,
) -> Array {
    let (dtype, weak) = crate::core::promote::result_type(&[
        (lhs.dtype(), lhs.weak_type()),
        (rhs.dtype(), rhs.weak_type()),
    ]);
    if let Err(e) = lhs.check().and(rhs.check()) {
        return Array::failed(e);
    }
    let l = crate::ops::elementwise::convert("dot_general", lhs, dtype, weak);
    let r = crate::ops::elementwise::convert("dot_general", rhs, dtype, weak);
    let out_dtype = preferred.unwrap_or(dtype);
    // The result shape: batch, lhs free, rhs free.
    let free = |a: &Array, batch: &[i64], contract: &[i64]| -> Vec<i64> {
        (0..a.ndim() as i64)
            .filter(|d| !batch.contains(d) && !contract.contains(d))
            .map(|d| a.shape()[d as usize])
            .collect()
    };
    let mut shape: Vec<i64> = dims
        .lhs_batching_dimensions
        .iter()
        .filter_map(|&d| l.shape().get(d as usize).copied())
        .collect();
    shape.extend(free(
        &l,
        &dims.lhs_batching_dimensions,
        &dims.lhs_contracting_dimensions,
    ));
    shape.extend(free(
        &r,
        &dims.rhs_batching_dimensions,
        &dims.rhs_contracting_dimensions,
    ));
    bind1(
        "dot_general",
        OpKind::DotGeneral {
            dimension_numbers: dims,
            precision_config: vec![],
            algorithm: None,
        },
        &[&l, &r],
        Some(TensorType::new(shape, out_dtype)),
        weak,
    )
}

/// `jnp.matmul(a, b)`: 1-D operands are vectors; N-D operands are stacks of matrices whose
/// leading (batch) dimensions broadcast as numpy's do.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let b = Array::from_vec(vec![1.0f32, 1.0], &[2]);
/// assert_eq!(np::matmul(&a, &b).to_vec::<f32>().unwrap(), vec![3.0, 7.0]);
/// // A stack of matrices times one matrix, and batch dimensions that broadcast.
/// let stack = Array::from_vec(vec![1.0f32; 12], &[3, 2, 2]);
/// assert_eq!(np::matmul(&stack, &a).shape(), &[3, 2, 2]);
/// let ones = Array::from_vec(vec![1.0f32; 8], &[2, 1, 2, 2]);
/// assert_eq!(np::matmul(&ones, &stack).shape(), &[2, 3, 2, 2]);
/// let err = np::matmul(&a, &Array::from_vec(vec![1.0f32; 3], &[3])).check().unwrap_err();
/// assert!(err.to_string().contains("matmul"), "{err}");
/// ```
pub fn matmul(a: &Array, b: &Array) -> Array {
    if let Err(e) = a.check().and(b.check()) {
        return Array::failed(e);
    }
    if a.ndim() == 0 || b.ndim() == 0 {
        return Array::failed(Error::op(
            "matmul",
            format!(
                "needs arrays of rank >= 1, got {} and {}",
                describe(a.ty()),
                describe(b.ty())
            ),
        ));
    }
    let a2 = if a.ndim() == 1 {
        reshape(a, &[1, a.shape()[0]])
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        reshape(b, &[b.shape()[0], 1])
    } else {
        b.clone()
    };
    let (ra, rb) = (a2.ndim(), b2.ndim());
    let (m, k_a) = (a2.shape()[ra - 2], a2.shape()[ra - 1]);
    let (k_b, n) = (b2.shape()[rb - 2], b2.shape()[rb - 1]);
    let (batch_a, batch_b) = (&a2.shape()[..ra - 2], &b2.shape()[..rb - 2]);
    let differ = || {
        Array::failed(Error::op(
            "matmul",
            format!(
                "contracting dimensions or batch dimensions differ: {} @ {}",
                describe(a.ty()),
                describe(b.ty())
            ),
        ))
    };
    if k_a != k_b {
        return differ();
    }
    let (r, batch) = if batch_b.is_empty() {
        // A stack of matrices times one matrix: one contraction, `b` not broadcast (as JAX).
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: vec![],
            rhs_batching_dimensions: vec![],
            lhs_contracting_dimensions: vec![ra as i64 - 1],
            rhs_contracting_dimensions: vec![0],
        };
        (dot_general(&a2, &b2, dims, None), batch_a.to_vec())
    } else {
        // Batch dimensions broadcast against each other as numpy's do.
        let Some(batch) = broadcast_batch(batch_a, batch_b) else {
            return differ();
        };
        let with = |tail: [i64; 2]| -> Vec<i64> { batch.iter().copied().chain(tail).collect() };
        let a3 = broadcast_to(&a2, &with([m, k_a]));
        let b3 = broadcast_to(&b2, &with([k_b, n]));
        let nb = batch.len() as i64;
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: (0..nb).collect(),
            rhs_batching_dimensions: (0..nb).collect(),
            lhs_contracting_dimensions: vec![nb + 1],
            rhs_contracting_dimensions: vec![nb],
        };
        (dot_general(&a3, &b3, dims, None), batch)
    };
    let mut shape = batch;
    if a.ndim() > 1 {
        shape.push(m);
    }
    if b.ndim() > 1 {
        shape.push(n);
    }
    reshape(&r, &shape)
}

/// numpy's broadcast of two batch shapes (right-aligned; equal sizes or 1), if they meet.
fn broadcast_batch(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let rank = a.len().max(b.len());
    let at = |s: &[i64], d: usize| (d + s.len()).checked_sub(rank).map_or(1, |i| s[i]);
    (0..rank)
        .map(|d| match (at(a, d), at(b, d)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// `jnp.dot(a, b)` for operands of rank 1 or 2 (where it equals `matmul`).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let v = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// assert_eq!(np::dot(&v, &v).to_vec::<f32>().unwrap(), vec![5.0]);
/// ```
pub fn dot(a: &Array, b: &Array) -> Array {
    if a.ndim() > 2 || b.ndim() > 2 {
        return Array::failed(Error::op(
            "dot",
            format!(
                "operands of rank > 2 are not supported yet ({} . {}); use matmul or einsum",
                describe(a.ty()),
                describe(b.ty())
            ),
        ));
    }
    matmul(a, b)
}
