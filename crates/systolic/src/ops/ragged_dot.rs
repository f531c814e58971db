//! `lax.ragged_dot`: a grouped matrix product (a mixture of experts' dispatch), staged as the
//! IR's `chlo.ragged_dot` with JAX's basic dimension numbers. The autodiff crate
//! differentiates it (the product rule; transposes as ragged dots); `vmap` refuses it, as it
//! has no batching rule yet.

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::Error;
use systolic_ir::{DType, DotDimensionNumbers, OpKind, RaggedDotDimensionNumbers, TensorType};

/// `jax.lax.ragged_dot(lhs, rhs, group_sizes)`: `lhs [m, k]`'s rows are cut into `g`
/// consecutive groups of `group_sizes [g]` rows, and each group multiplies its own matrix of
/// `rhs [g, k, n]`: row `i` of group `j` of the result `[m, n]` is `lhs[i] · rhs[j]`. Rows
/// past `sum(group_sizes)` belong to no group and are zero. `lhs` and `rhs` are promoted
/// together as `dot_general`'s operands; `group_sizes` is an integer array (made int32, as
/// JAX's). A shape that does not fit is an error naming the three shapes.
///
/// ```
/// use systolic::{lax, Array};
/// // Rows 0–1 use the first matrix (doubling), row 2 the second (negating), row 3 none.
/// let lhs = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], &[4, 2]);
/// let rhs = Array::from_vec(vec![2.0f32, 0.0, 0.0, 2.0, -1.0, 0.0, 0.0, -1.0], &[2, 2, 2]);
/// let sizes = Array::from_vec(vec![2i32, 1], &[2]);
/// let out = lax::ragged_dot(&lhs, &rhs, &sizes);
/// assert_eq!(out.shape(), &[4, 2]);
/// assert_eq!(out.to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0, 8.0, -5.0, -6.0, 0.0, 0.0]);
/// ```
pub fn ragged_dot(lhs: &Array, rhs: &Array, group_sizes: &Array) -> Array {
    let op = "ragged_dot";
    if let Err(e) = lhs.check().and(rhs.check()).and(group_sizes.check()) {
        return Array::failed(e);
    }
    let shapes = || {
        format!(
            "lhs {}, rhs {} and group_sizes {}",
            describe(lhs.aval()),
            describe(rhs.aval()),
            describe(group_sizes.aval())
        )
    };
    let (l, r, s) = (lhs.dims(), rhs.dims(), group_sizes.dims());
    if l.len() != 2 || r.len() != 3 || s.len() != 1 {
        return Array::failed(Error::op(
            op,
            format!(
                "expected lhs [m, k], rhs [g, k, n] and group_sizes [g], got {}",
                shapes()
            ),
        ));
    }
    if l[1] != r[1] {
        return Array::failed(Error::op(
            op,
            format!(
                "the contracting dimensions differ: lhs [m, k] and rhs [g, k, n] must share k, got {}",
                shapes()
            ),
        ));
    }
    if s[0] != r[0] {
        return Array::failed(Error::op(
            op,
            format!(
                "group_sizes must hold one size per group of rhs [g, k, n], got {}",
                shapes()
            ),
        ));
    }
    if !group_sizes.element_type().is_integer() {
        return Array::failed(Error::op(
            op,
            format!("group_sizes must be integers, got {}", shapes()),
        ));
    }
    let pairs = [
        (lhs.element_type(), lhs.weak_type()),
        (rhs.element_type(), rhs.weak_type()),
    ];
    if let Some(why) = crate::core::promote::implicit_promotion_error(&pairs) {
        return Array::failed(Error::op(op, why));
    }
    let (dtype, weak) = crate::core::promote::result_type(&pairs);
    let lc = crate::ops::elementwise::convert(op, lhs, dtype, weak);
    let rc = crate::ops::elementwise::convert(op, rhs, dtype, weak);
    let sizes = crate::ops::elementwise::convert(op, group_sizes, DType::I32, false);
    let kind = OpKind::RaggedDot {
        dimension_numbers: RaggedDotDimensionNumbers {
            dot: DotDimensionNumbers {
                lhs_contracting_dimensions: vec![1],
                rhs_contracting_dimensions: vec![1],
                ..Default::default()
            },
            lhs_ragged_dimensions: vec![0],
            rhs_group_dimensions: vec![0],
        },
        precision_config: vec![],
    };
    bind1(
        op,
        kind,
        &[&lc, &rc, &sizes],
        Some(TensorType::new(vec![l[0], r[2]], dtype)),
        weak,
    )
}
