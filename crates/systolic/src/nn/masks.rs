//! flax's attention masks: `make_attention_mask`, `make_causal_mask` and `combine_masks`,
//! shaped `[..., 1, T, S]` to broadcast over the heads of
//! [`MultiHeadDotProductAttention`](super::MultiHeadDotProductAttention).

use crate::array::{describe, Array};
use crate::core::bind::describe_all;
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::elementwise::convert;
use systolic_ir::DType;

/// `flax.linen.make_attention_mask(query_input, key_input, pairwise_fn, extra_batch_dims,
/// dtype)`: `pairwise(query_input[..., :, None], key_input[..., None, :])` with a head axis of
/// size 1 inserted before the last two and `extra_batch_dims` leading size-1 axes, cast to
/// `dtype`. flax's default `pairwise_fn` is `jnp.multiply` (a padding mask from two
/// `tokens > 0` arrays is their logical and, as [`np::logical_and`] computes).
///
/// ```
/// use systolic::{nn, numpy as np, Array};
/// let tokens = Array::from_vec(vec![5i32, 7, 0], &[1, 3]);
/// let valid = np::greater(&tokens, &systolic::weak_int(0));
/// let m = nn::make_attention_mask(&valid, &valid, np::logical_and, 0, systolic_ir::DType::F32);
/// assert_eq!(m.shape(), &[1, 1, 3, 3]);
/// assert_eq!(m.to_vec::<f32>().unwrap(), vec![1., 1., 0., 1., 1., 0., 0., 0., 0.]);
/// ```
pub fn make_attention_mask(
    query_input: &Array,
    key_input: &Array,
    pairwise: impl Fn(&Array, &Array) -> Array,
    extra_batch_dims: usize,
    dtype: DType,
) -> Array {
    const OP: &str = "nn.make_attention_mask";
    if let Err(e) = query_input.check().and(key_input.check()) {
        return Array::failed(e);
    }
    if query_input.rank() == 0 || key_input.rank() == 0 {
        return Array::failed(Error::op(
            OP,
            format!(
                "the inputs must have a length axis, got {}",
                describe_all(&[query_input, key_input])
            ),
        ));
    }
    let m = pairwise(
        &np::expand_dims(query_input, -1),
        &np::expand_dims(key_input, -2),
    );
    if let Err(e) = m.check() {
        return Array::failed(e);
    }
    let m = np::expand_dims(&m, -3);
    let mut s = vec![1; extra_batch_dims];
    s.extend_from_slice(m.dims());
    convert(OP, &np::reshape(&m, &s), dtype, false)
}

/// `flax.linen.make_causal_mask(x, extra_batch_dims, dtype)`: for `x` of shape `[..., T]`
/// (only its shape is used), `mask[..., 0, i, j] = (i >= j)` of shape `[..., 1, T, T]`.
///
/// ```
/// use systolic::{nn, Array};
/// let m = nn::make_causal_mask(&Array::from_vec(vec![0i32; 3], &[3]), 0, systolic_ir::DType::F32);
/// assert_eq!(m.shape(), &[1, 3, 3]);
/// assert_eq!(m.to_vec::<f32>().unwrap(), vec![1., 0., 0., 1., 1., 0., 1., 1., 1.]);
/// ```
pub fn make_causal_mask(x: &Array, extra_batch_dims: usize, dtype: DType) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    if x.rank() == 0 {
        return Array::failed(Error::op(
            "nn.make_causal_mask",
            format!(
                "the input must have a length axis, got {}",
                describe(x.aval())
            ),
        ));
    }
    let t = x.dims()[x.rank() - 1];
    let idx = np::broadcast_to(&lax::iota(DType::I32, &[t], 0), x.dims());
    make_attention_mask(&idx, &idx, np::greater_equal, extra_batch_dims, dtype)
}

/// `flax.linen.combine_masks(*masks, dtype)`: the logical and of the masks given (all of one
/// rank), cast to `dtype`; `None` when none is given.
///
/// ```
/// use systolic::{nn, Array};
/// let a = Array::from_vec(vec![1.0f32, 0.0], &[2]);
/// let b = Array::from_vec(vec![1.0f32, 1.0], &[2]);
/// let m = nn::combine_masks(&[Some(&a), None, Some(&b)], systolic_ir::DType::F32).unwrap();
/// assert_eq!(m.to_vec::<f32>().unwrap(), vec![1.0, 0.0]);
/// assert!(nn::combine_masks(&[None], systolic_ir::DType::F32).is_none());
/// ```
pub fn combine_masks(masks: &[Option<&Array>], dtype: DType) -> Option<Array> {
    const OP: &str = "nn.combine_masks";
    let given: Vec<&Array> = masks.iter().flatten().copied().collect();
    let first = given.first()?;
    if given.iter().any(|m| m.rank() != first.rank()) {
        return Some(Array::failed(Error::op(
            OP,
            format!("masks must have one rank, got {}", describe_all(&given)),
        )));
    }
    let mut m = (*first).clone();
    for other in &given[1..] {
        m = np::logical_and(&m, other);
    }
    Some(convert(OP, &m, dtype, false))
}
