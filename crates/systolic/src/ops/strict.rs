//! lax's elementwise ops as StableHLO has them: no promotion and no broadcasting, so the
//! operands must already agree in dtype and shape (`lo`/`hi` of `clamp` may be rank 0); the
//! numpy-style ops that promote and broadcast are in [`elementwise`](super::elementwise).

use crate::array::Array;
use crate::core::bind::bind1;
use crate::ops::elementwise::convert;
use systolic_ir::{DType, OpKind};

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
        Some(x.aval().with_dtype(dtype)),
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
