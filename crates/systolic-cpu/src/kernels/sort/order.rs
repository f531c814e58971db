//! Orderings of element types as the interpreter's `compare` sees them: IEEE (`FLOAT`, with
//! subnormals read as zero except on f16; NaN unordered), total order (`TOTALORDER`:
//! −NaN < −inf < … < −0 < +0 < … < inf < NaN), and the natural order of integers (signed or
//! unsigned as their type) and booleans (false < true).

use crate::kernels::fusion::elementwise::lanes::FloatLane;
use crate::kernels::shape::elem::Elem;
use half::{bf16, f16};
use std::cmp::Ordering;
use systolic_ir::{ComparisonDirection, ComparisonType, DType};

/// An element type with the comparisons of `stablehlo.compare`.
pub trait Ordered: Elem {
    /// IEEE comparison (`None`: unordered, a NaN); integers and booleans always compare.
    fn ieee(a: Self, b: Self) -> Option<Ordering>;
    /// Total order (floats by their total-order key; integers and booleans as `ieee`).
    fn total(a: Self, b: Self) -> Ordering;
    /// A rank preserving the total order: `total(a, b) == rank(a).cmp(&rank(b))`. It fits in
    /// as many bits as the type has (for bf16 and f16: 32), so types of at most 32 bits can sort
    /// by a `u32` key.
    fn rank(self) -> u64;
    /// JAX's canonical form before a sort comparison: −0 becomes +0 and every NaN the positive
    /// quiet NaN (integers and booleans unchanged).
    #[inline(always)]
    fn canonical(self) -> Self {
        self
    }
}

macro_rules! int_ordered {
    ($($t:ty),*) => {$(
        impl Ordered for $t {
            #[inline(always)]
            fn ieee(a: Self, b: Self) -> Option<Ordering> {
                Some(a.cmp(&b))
            }
            #[inline(always)]
            fn total(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
            #[inline(always)]
            fn rank(self) -> u64 {
                // Shifted by the type's minimum: unsigned, in the type's width, same order.
                (self as i128 - <$t>::MIN as i128) as u64
            }
        }
    )*};
}
int_ordered!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Ordered for bool {
    #[inline(always)]
    fn ieee(a: Self, b: Self) -> Option<Ordering> {
        Some(a.cmp(&b))
    }
    #[inline(always)]
    fn total(a: Self, b: Self) -> Ordering {
        a.cmp(&b)
    }
    #[inline(always)]
    fn rank(self) -> u64 {
        self as u64
    }
}

/// Total-order key of an f64: flips the magnitude bits of negatives, so integer order is
/// `f64::total_cmp` order.
#[inline(always)]
fn key64(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ ((((b >> 63) as u64) >> 1) as i64)
}

#[inline(always)]
fn key32(x: f32) -> i32 {
    let b = x.to_bits() as i32;
    b ^ ((((b >> 31) as u32) >> 1) as i32)
}

/// `Ordered` for a native float: `$key` is its sign-folded bit key, `$wide` a signed type wide
/// enough to bias that key to an unsigned rank by `$bias`.
macro_rules! native_float_ordered {
    ($t:ty, $key:ident, $wide:ty, $bias:expr) => {
        impl Ordered for $t {
            #[inline(always)]
            fn rank(self) -> u64 {
                ($key(self) as $wide + $bias) as u64
            }
            #[inline(always)]
            fn canonical(self) -> Self {
                if self.is_nan() {
                    <$t>::NAN
                } else if self == 0.0 {
                    0.0
                } else {
                    self
                }
            }
            #[inline(always)]
            fn ieee(a: Self, b: Self) -> Option<Ordering> {
                a.ftz().partial_cmp(&b.ftz())
            }
            #[inline(always)]
            fn total(a: Self, b: Self) -> Ordering {
                $key(a).cmp(&$key(b))
            }
        }
    };
}

native_float_ordered!(f32, key32, i64, 1 << 31);
native_float_ordered!(f64, key64, i128, 1 << 63);

impl Ordered for bf16 {
    #[inline(always)]
    fn rank(self) -> u64 {
        (key32(self.to_f32()) as i64 + (1 << 31)) as u64
    }
    #[inline(always)]
    fn canonical(self) -> Self {
        if self.is_nan() {
            bf16::NAN
        } else if self == bf16::ZERO {
            bf16::ZERO
        } else {
            self
        }
    }
    #[inline(always)]
    fn ieee(a: Self, b: Self) -> Option<Ordering> {
        a.to_f32().ftz().partial_cmp(&b.to_f32().ftz())
    }
    #[inline(always)]
    fn total(a: Self, b: Self) -> Ordering {
        key32(a.to_f32()).cmp(&key32(b.to_f32()))
    }
}

impl Ordered for f16 {
    #[inline(always)]
    fn rank(self) -> u64 {
        (key32(self.to_f32()) as i64 + (1 << 31)) as u64
    }
    #[inline(always)]
    fn canonical(self) -> Self {
        if self.is_nan() {
            f16::NAN
        } else if self == f16::ZERO {
            f16::ZERO
        } else {
            self
        }
    }
    #[inline(always)]
    fn ieee(a: Self, b: Self) -> Option<Ordering> {
        // f16 subnormals are normal in the f32 lane: not flushed.
        a.to_f32().partial_cmp(&b.to_f32())
    }
    #[inline(always)]
    fn total(a: Self, b: Self) -> Ordering {
        key32(a.to_f32()).cmp(&key32(b.to_f32()))
    }
}

/// A comparison fixed at compile time: a direction and whether it is total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relation {
    /// The direction.
    pub direction: ComparisonDirection,
    /// `TOTALORDER` (floats only; integers compare the same either way).
    pub total: bool,
}

impl Relation {
    /// The relation `compare direction, type` on `dtype`, or `None` when the comparison type
    /// does not match how the element type compares by default (then the op stays on the
    /// interpreter).
    pub fn new(
        direction: ComparisonDirection,
        compare_type: Option<ComparisonType>,
        dtype: DType,
    ) -> Option<Relation> {
        use ComparisonType as C;
        let total = match (compare_type, dtype.kind()) {
            (None | Some(C::NoType), _) => false,
            (Some(C::Float), systolic_ir::DTypeKind::Float) => false,
            (Some(C::TotalOrder), systolic_ir::DTypeKind::Float) => true,
            (Some(C::Signed), systolic_ir::DTypeKind::Signed) => false,
            (
                Some(C::Unsigned),
                systolic_ir::DTypeKind::Unsigned | systolic_ir::DTypeKind::Bool,
            ) => false,
            _ => return None,
        };
        Some(Relation { direction, total })
    }

    /// Whether `a direction b` holds.
    #[inline(always)]
    pub fn holds<T: Ordered>(self, a: T, b: T) -> bool {
        use ComparisonDirection as D;
        let ord = if self.total {
            Some(T::total(a, b))
        } else {
            T::ieee(a, b)
        };
        match (self.direction, ord) {
            (D::Ne, None) => true,
            (_, None) => false,
            (D::Eq, Some(o)) => o == Ordering::Equal,
            (D::Ne, Some(o)) => o != Ordering::Equal,
            (D::Lt, Some(o)) => o == Ordering::Less,
            (D::Le, Some(o)) => o != Ordering::Greater,
            (D::Gt, Some(o)) => o == Ordering::Greater,
            (D::Ge, Some(o)) => o != Ordering::Less,
        }
    }
}
