//! [`Param`]: what a distribution parameter may be, as in JAX: a number or an array.

use crate::array::Array;
use crate::error::Error;
use crate::ops::elementwise::{weak_float, weak_int};

/// A distribution parameter (`minval`, `p`, `lower`, …): a Rust number, weakly typed as a
/// Python scalar is (floats become weak `float32`, integers weak `int32`), or an array of any
/// shape that broadcasts against the draw's shape.
///
/// ```
/// use systolic::random::Param;
/// assert!(2.5f64.to_param().weak_type());
/// assert_eq!(7i32.to_param().dtype(), systolic_ir::DType::I32);
/// // Like JAX without x64, an integer must fit in int32.
/// assert!((1i64 << 40).to_param().check().is_err());
/// ```
pub trait Param {
    /// The parameter as an array.
    fn to_param(&self) -> Array;

    /// The value of a Rust number (where JAX would compute with the Python scalar in f64).
    fn as_f64(&self) -> Option<f64> {
        None
    }
}

impl Param for f64 {
    fn to_param(&self) -> Array {
        weak_float(*self)
    }

    fn as_f64(&self) -> Option<f64> {
        Some(*self)
    }
}

impl Param for f32 {
    fn to_param(&self) -> Array {
        weak_float(f64::from(*self))
    }

    fn as_f64(&self) -> Option<f64> {
        Some(f64::from(*self))
    }
}

impl Param for i32 {
    fn to_param(&self) -> Array {
        weak_int(i64::from(*self))
    }

    fn as_f64(&self) -> Option<f64> {
        Some(f64::from(*self))
    }
}

impl Param for i64 {
    fn to_param(&self) -> Array {
        if i32::try_from(*self).is_err() {
            return Array::failed(Error::op(
                "random",
                format!("the integer {self} does not fit in int32 (x64 is off)"),
            ));
        }
        weak_int(*self)
    }

    fn as_f64(&self) -> Option<f64> {
        Some(*self as f64)
    }
}

impl Param for Array {
    fn to_param(&self) -> Array {
        self.clone()
    }
}

impl Param for &Array {
    fn to_param(&self) -> Array {
        (*self).clone()
    }
}
