//! Products: `lax.dot_general` and numpy's `matmul`/`dot`.

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::Error;
use crate::ops::shape::reshape;
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

/// `jnp.matmul(a, b)`: 1-D operands are vectors; N-D operands are stacks of matrices with
/// equal leading (batch) dimensions.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let b = Array::from_vec(vec![1.0f32, 1.0], &[2]);
/// assert_eq!(np::matmul(&a, &b).to_vec::<f32>().unwrap(), vec![3.0, 7.0]);
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
    let k_a = a2.shape()[ra - 1];
    let k_b = b2.shape()[rb - 2];
    let batch_a = &a2.shape()[..ra - 2];
    let batch_b = &b2.shape()[..rb - 2];
    if k_a != k_b || batch_a != batch_b {
        return Array::failed(Error::op(
            "matmul",
            format!(
                "contracting dimensions or batch dimensions differ: {} @ {}",
                describe(a.ty()),
                describe(b.ty())
            ),
        ));
    }
    let nb = batch_a.len() as i64;
    let batch: Vec<i64> = (0..nb).collect();
    let dims = DotDimensionNumbers {
        lhs_batching_dimensions: batch.clone(),
        rhs_batching_dimensions: batch,
        lhs_contracting_dimensions: vec![ra as i64 - 1],
        rhs_contracting_dimensions: vec![rb as i64 - 2],
    };
    let r = dot_general(&a2, &b2, dims, None);
    let mut shape: Vec<i64> = batch_a.to_vec();
    if a.ndim() > 1 {
        shape.push(a2.shape()[ra - 2]);
    }
    if b.ndim() > 1 {
        shape.push(b2.shape()[rb - 1]);
    }
    reshape(&r, &shape)
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
