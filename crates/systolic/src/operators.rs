//! Rust operators on arrays: `&a + &b`, `&x * 0.5f32`, `-a`, `&m & &n`, … with numpy
//! broadcasting and JAX's promotion.
//!
//! Rust scalars of every numeric type are weakly typed, as JAX's Python scalars are: a float
//! scalar (`f32` or `f64`) is a weak float and an integer scalar (`i8` … `u64`, `usize`) a weak
//! int, so `bf16_array * 0.5f32` stays bfloat16 and `int8_array + 1u64` stays int8. An
//! integer scalar that does not fit int64 is an error, as Python's ints beyond int64 are in JAX.
//! On the left of an operator a scalar is `f64` or `i32` (`1.0 - &x`, `2 * &x`): more types
//! there would make a bare literal ambiguous.
//!
//! The operators are JAX's `Array` dunder methods: `+ - * / %` (`%` is `jnp.remainder`, the
//! sign of the divisor, as Python's), `& | ^` (bitwise on integers, logical on booleans), `!`
//! (`jnp.invert`, JAX's `~`), `<< >>` (`jnp.left_shift`/`right_shift`).
//!
//! ```
//! use systolic::{Array, DType};
//! let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
//! let y = &x * 0.5f32 + 1u8;
//! assert_eq!(y.dtype(), DType::F32);
//! assert_eq!(y.to_vec::<f32>().unwrap(), vec![1.5, 2.0, 2.5]);
//! let n = Array::from_vec(vec![-7i32, 7], &[2]);
//! assert_eq!((&n % 3i64).to_vec::<i32>().unwrap(), vec![2, 1]);
//! assert_eq!((!&n).to_vec::<i32>().unwrap(), vec![6, -8]);
//! assert_eq!((&n << 1usize).to_vec::<i32>().unwrap(), vec![-14, 14]);
//! let too_big = &n + u64::MAX;
//! assert!(too_big.check().unwrap_err().to_string().contains("int64"));
//! ```

use crate::array::Array;
use crate::error::Error;
use crate::numpy as np;
use crate::ops::elementwise::{weak_float, weak_int};
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Shl, Shr, Sub};

/// A Rust scalar as the weakly typed array a Python scalar becomes in JAX: `f32`, `f64` and
/// every integer type, on the right of an operator (`&x * 0.5f32`, `&n + 1u64`).
pub trait WeakScalar: Copy {
    /// The weakly typed 0-d array (a failed array when the value does not fit int64).
    fn to_weak(self) -> Array;
}

macro_rules! weak_floats {
    ($($t:ty),*) => {$(
        impl WeakScalar for $t {
            fn to_weak(self) -> Array {
                weak_float(self as f64)
            }
        }
    )*};
}

/// Complex scalars are weak as Python's complex numbers are in JAX: `c64_array * 1j` stays
/// `complex<f32>`, `f32_array * 1j` becomes `complex<f32>`.
macro_rules! weak_complexes {
    ($($t:ty),*) => {$(
        impl WeakScalar for $t {
            fn to_weak(self) -> Array {
                crate::ops::elementwise::weak_complex(self.re as f64, self.im as f64)
            }
        }
    )*};
}

weak_complexes!(num_complex::Complex32, num_complex::Complex64);

macro_rules! weak_ints {
    ($($t:ty),*) => {$(
        impl WeakScalar for $t {
            fn to_weak(self) -> Array {
                match i64::try_from(self) {
                    Ok(v) => weak_int(v),
                    Err(_) => Array::failed(Error::op(
                        "operator",
                        format!(
                            "the integer scalar {self} does not fit int64 (JAX raises \
                             OverflowError for Python ints beyond int64)"
                        ),
                    )),
                }
            }
        }
    )*};
}

weak_floats!(f32, f64);
weak_ints!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);

/// An operator between two arrays (owned or borrowed in either position).
macro_rules! array_operator {
    ($trait:ident, $method:ident, $f:path) => {
        impl $trait<&Array> for &Array {
            type Output = Array;
            fn $method(self, rhs: &Array) -> Array {
                $f(self, rhs)
            }
        }
        impl $trait<Array> for Array {
            type Output = Array;
            fn $method(self, rhs: Array) -> Array {
                $f(&self, &rhs)
            }
        }
        impl $trait<&Array> for Array {
            type Output = Array;
            fn $method(self, rhs: &Array) -> Array {
                $f(&self, rhs)
            }
        }
        impl $trait<Array> for &Array {
            type Output = Array;
            fn $method(self, rhs: Array) -> Array {
                $f(self, &rhs)
            }
        }
    };
}

/// An operator between an array and a Rust scalar: any [`WeakScalar`] on the right (one
/// generic impl, so the result type is known before a literal's type is chosen and
/// `(&x * 2.0).sum()` infers); `f64` and `i32` on the left (one float and one integer type,
/// or a literal on the left would be ambiguous).
macro_rules! scalar_operator {
    ($trait:ident, $method:ident, $f:path, $($left:ty),*) => {
        impl<S: WeakScalar> $trait<S> for &Array {
            type Output = Array;
            fn $method(self, rhs: S) -> Array {
                $f(self, &rhs.to_weak())
            }
        }
        impl<S: WeakScalar> $trait<S> for Array {
            type Output = Array;
            fn $method(self, rhs: S) -> Array {
                $f(&self, &rhs.to_weak())
            }
        }
        $(
        impl $trait<&Array> for $left {
            type Output = Array;
            fn $method(self, rhs: &Array) -> Array {
                $f(&self.to_weak(), rhs)
            }
        }
        impl $trait<Array> for $left {
            type Output = Array;
            fn $method(self, rhs: Array) -> Array {
                $f(&self.to_weak(), &rhs)
            }
        }
        )*
    };
}

macro_rules! operator {
    ($trait:ident, $method:ident, $f:path) => {
        array_operator!($trait, $method, $f);
        scalar_operator!($trait, $method, $f, f64, i32);
    };
}

/// Bitwise operators: an integer scalar on the left is `i32` (a float scalar there would be
/// JAX's TypeError; on the right it is the op's dtype error).
macro_rules! int_operator {
    ($trait:ident, $method:ident, $f:path) => {
        array_operator!($trait, $method, $f);
        scalar_operator!($trait, $method, $f, i32);
    };
}

operator!(Add, add, np::add);
operator!(Sub, sub, np::subtract);
operator!(Mul, mul, np::multiply);
operator!(Div, div, np::divide);
operator!(Rem, rem, np::remainder);
int_operator!(BitAnd, bitand, np::bitwise_and);
int_operator!(BitOr, bitor, np::bitwise_or);
int_operator!(BitXor, bitxor, np::bitwise_xor);
int_operator!(Shl, shl, np::left_shift);
int_operator!(Shr, shr, np::right_shift);

impl Neg for &Array {
    type Output = Array;
    fn neg(self) -> Array {
        np::negative(self)
    }
}

impl Neg for Array {
    type Output = Array;
    fn neg(self) -> Array {
        np::negative(&self)
    }
}

/// JAX's `~x`: bitwise NOT of integers, logical NOT of booleans.
impl Not for &Array {
    type Output = Array;
    fn not(self) -> Array {
        np::invert(self)
    }
}

impl Not for Array {
    type Output = Array;
    fn not(self) -> Array {
        np::invert(&self)
    }
}
