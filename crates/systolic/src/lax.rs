//! lax-style ops (`jax.lax`): thin, explicit, close to StableHLO.

use crate::array::Array;
use crate::core::bind::bind1;
use crate::ops::elementwise::convert;
use systolic_ir::{DType, OpKind};

pub use crate::ops::control::{cond, fori_loop, scan, switch, while_loop};
pub use crate::ops::conv::{conv_general_dilated, conv_transpose, ConvDimensions};
pub use crate::ops::creation::iota;
pub use crate::ops::indexing::{gather, scatter, scatter_with, GatherScatterMode, ScatterOp};
pub use crate::ops::linalg::dot_general;
pub use crate::ops::region::{RegionBuilder, Var};
pub use crate::ops::shape::{reshape, rev, slice, transpose};
pub use crate::ops::sort::{sort, sort_key_val, top_k};
pub use crate::ops::window::{
    cummax, cummin, lax_cumprod as cumprod, lax_cumsum as cumsum, reduce, reduce_window,
    reduce_window_with, Padding, Window,
};
pub use systolic_ir::DotDimensionNumbers;
pub use systolic_ir::{GatherDimensionNumbers, ScatterDimensionNumbers};

/// `lax.convert_element_type(x, dtype)`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![300i32, -129], &[2]);
/// let y = systolic::lax::convert_element_type(&x, systolic_ir::DType::I8);
/// assert_eq!(y.to_vec::<i8>().unwrap(), vec![44, 127]);
/// ```
pub fn convert_element_type(x: &Array, dtype: DType) -> Array {
    convert("convert_element_type", x, dtype, false)
}

/// `lax.bitcast_convert_type(x, dtype)` for a dtype of the same width.
///
/// ```
/// let x = systolic::Array::from_vec(vec![1.0f32], &[1]);
/// let y = systolic::lax::bitcast_convert_type(&x, systolic_ir::DType::U32);
/// assert_eq!(y.to_vec::<u32>().unwrap(), vec![0x3F80_0000]);
/// ```
pub fn bitcast_convert_type(x: &Array, dtype: DType) -> Array {
    bind1(
        "bitcast_convert_type",
        OpKind::BitcastConvert,
        &[x],
        Some(x.ty().with_dtype(dtype)),
        false,
    )
}

/// `lax.select(pred, on_true, on_false)`: same shapes and dtypes, no promotion.
pub fn select(pred: &Array, on_true: &Array, on_false: &Array) -> Array {
    bind1(
        "select",
        OpKind::Select,
        &[pred, on_true, on_false],
        None,
        on_true.weak_type() && on_false.weak_type(),
    )
}

/// `lax.add` etc. without promotion: both operands must have one dtype and shape.
macro_rules! strict_binary {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        pub fn $name(a: &Array, b: &Array) -> Array {
            bind1(
                stringify!($name),
                OpKind::Binary(systolic_ir::BinaryOp::$op),
                &[a, b],
                None,
                a.weak_type() && b.weak_type(),
            )
        }
    };
}

strict_binary!(
    /// `lax.add`.
    add, Add);
strict_binary!(
    /// `lax.mul`.
    mul, Multiply);
strict_binary!(
    /// `lax.div` (integers truncate).
    div, Divide);
strict_binary!(
    /// `lax.rem` (C's fmod / truncated remainder).
    rem, Remainder);
strict_binary!(
    /// `lax.bitwise_xor`.
    bitwise_xor, Xor);
strict_binary!(
    /// `lax.bitwise_or`.
    bitwise_or, Or);
strict_binary!(
    /// `lax.bitwise_and`.
    bitwise_and, And);
strict_binary!(
    /// `lax.shift_left`.
    shift_left, ShiftLeft);
strict_binary!(
    /// `lax.shift_right_logical`.
    shift_right_logical, ShiftRightLogical);
strict_binary!(
    /// `lax.max`.
    max, Maximum);

/// `lax.pad(x, padding_value, [(low, high, interior), …])` (negative low/high crop).
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![1i32, 2], &[2]);
/// let p = lax::pad(&x, &Array::scalar(0i32), &[(1, 2, 1)]);
/// assert_eq!(p.to_vec::<i32>().unwrap(), vec![0, 1, 0, 2, 0, 0]);
/// ```
pub fn pad(x: &Array, padding_value: &Array, config: &[(i64, i64, i64)]) -> Array {
    bind1(
        "pad",
        OpKind::Pad {
            edge_padding_low: config.iter().map(|c| c.0).collect(),
            edge_padding_high: config.iter().map(|c| c.1).collect(),
            interior_padding: config.iter().map(|c| c.2).collect(),
        },
        &[x, padding_value],
        None,
        x.weak_type(),
    )
}

/// JAX's `_dynamic_slice_indices`: a negative start counts from the end of its dimension.
fn normalize_starts(x: &Array, starts: &[Array]) -> Vec<Array> {
    starts
        .iter()
        .enumerate()
        .map(|(d, s)| {
            let n = x.shape().get(d).copied().unwrap_or(0);
            if s.error().is_some() || s.dtype().kind() != systolic_ir::DTypeKind::Signed {
                return s.clone();
            }
            let zero = convert("dynamic_slice", &crate::weak_int(0), s.dtype(), false);
            let dim = convert("dynamic_slice", &crate::weak_int(n), s.dtype(), false);
            let neg = crate::numpy::less(s, &zero);
            crate::numpy::where_(&neg, &crate::numpy::add(s, &dim), s)
        })
        .collect()
}

/// `lax.dynamic_slice(x, starts, sizes)`: starts are rank-0 integer arrays (traced or not);
/// a negative start counts from the end, then starts are clamped so the slice stays in
/// bounds.
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4, 5], &[5]);
/// let s = lax::dynamic_slice(&x, &[Array::scalar(4i32)], &[2]);
/// assert_eq!(s.to_vec::<i32>().unwrap(), vec![4, 5]); // start clamped to 3
/// let e = lax::dynamic_slice(&x, &[Array::scalar(-2i32)], &[2]);
/// assert_eq!(e.to_vec::<i32>().unwrap(), vec![4, 5]); // -2 counts from the end
/// ```
pub fn dynamic_slice(x: &Array, starts: &[Array], sizes: &[i64]) -> Array {
    let starts = &normalize_starts(x, starts);
    let mut operands = vec![x];
    operands.extend(starts.iter());
    bind1(
        "dynamic_slice",
        OpKind::DynamicSlice {
            slice_sizes: sizes.to_vec(),
        },
        &operands,
        None,
        x.weak_type(),
    )
}

/// `lax.dynamic_update_slice(x, update, starts)`: `x` with `update` written at `starts`
/// (negative starts count from the end; then clamped in bounds).
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![0i32; 4], &[4]);
/// let u = Array::from_vec(vec![7i32, 8], &[2]);
/// let y = lax::dynamic_update_slice(&x, &u, &[Array::scalar(1i32)]);
/// assert_eq!(y.to_vec::<i32>().unwrap(), vec![0, 7, 8, 0]);
/// ```
pub fn dynamic_update_slice(x: &Array, update: &Array, starts: &[Array]) -> Array {
    let starts = &normalize_starts(x, starts);
    let mut operands = vec![x, update];
    operands.extend(starts.iter());
    bind1(
        "dynamic_update_slice",
        OpKind::DynamicUpdateSlice,
        &operands,
        None,
        x.weak_type(),
    )
}

/// `lax.clamp(lo, x, hi)`; `lo`/`hi` may be rank 0.
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![-2.0f32, 0.5, 9.0], &[3]);
/// let y = lax::clamp(&Array::scalar(0.0f32), &x, &Array::scalar(1.0f32));
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0, 0.5, 1.0]);
/// ```
pub fn clamp(lo: &Array, x: &Array, hi: &Array) -> Array {
    bind1("clamp", OpKind::Clamp, &[lo, x, hi], None, x.weak_type())
}
