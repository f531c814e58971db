//! Scalar combiners (add, multiply, maximum, minimum, and, or, replace) with the reference
//! interpreter's per-dtype semantics, monomorphised per element type and per combiner so that
//! the loops of scatter and reduce_window make no per-element dispatch.
//!
//! Floats read their inputs with subnormals as zero, compute in their lane (f16 and bf16 in
//! f32: one rounding is exact for these ops), round back and flush, exactly as the interpreter's
//! binary ops do. Integers wrap; booleans add as OR and multiply as AND. The sub-byte integers
//! (i2, i4, u2, u4) would need wrapping to their width and are left to the interpreter.

use crate::kernels::fusion::elementwise::float::{max as fmax, min as fmin};
use crate::kernels::fusion::elementwise::lanes::{
    bf16_bits, Bf16Format, F16Format, F32Format, F64Format, FloatLane, Format,
};
use crate::kernels::fusion::reduce::reducer::Simple;
use crate::kernels::shape::elem::Elem;
use half::{bf16, f16};
use systolic_ir::{DType, OpKind, Region};

/// An element type with the arithmetic of the simple combiners.
pub trait Arith: Elem + PartialOrd {
    /// `add` (OR on booleans).
    fn add(a: Self, b: Self) -> Self;
    /// `multiply` (AND on booleans).
    fn mul(a: Self, b: Self) -> Self;
    /// `maximum` (NaN wins, maximum(−0, +0) = +0).
    fn max(a: Self, b: Self) -> Self;
    /// `minimum` (NaN wins, minimum(−0, +0) = −0).
    fn min(a: Self, b: Self) -> Self;
    /// Bitwise `and`, or `None` for floats.
    fn and(a: Self, b: Self) -> Option<Self>;
    /// Bitwise `or`, or `None` for floats.
    fn or(a: Self, b: Self) -> Option<Self>;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            #[inline(always)]
            fn max(a: Self, b: Self) -> Self { Ord::max(a, b) }
            #[inline(always)]
            fn min(a: Self, b: Self) -> Self { Ord::min(a, b) }
            #[inline(always)]
            fn and(a: Self, b: Self) -> Option<Self> { Some(a & b) }
            #[inline(always)]
            fn or(a: Self, b: Self) -> Option<Self> { Some(a | b) }
        }
    )*};
}
int_arith!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Arith for bool {
    fn add(a: Self, b: Self) -> Self {
        a | b
    }
    fn mul(a: Self, b: Self) -> Self {
        a & b
    }
    fn max(a: Self, b: Self) -> Self {
        a | b
    }
    fn min(a: Self, b: Self) -> Self {
        a & b
    }
    fn and(a: Self, b: Self) -> Option<Self> {
        Some(a & b)
    }
    fn or(a: Self, b: Self) -> Option<Self> {
        Some(a | b)
    }
}

/// Float arithmetic: `$to` reads a value into the lane of format `$F`, `$from` stores a lane
/// value (already rounded to the format) back.
macro_rules! float_arith {
    ($t:ty, $F:ty, |$v:ident| $to:expr, |$l:ident| $from:expr) => {
        impl Arith for $t {
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                let f = |$v: $t| $to;
                let g = |$l: <$F as Format>::L| $from;
                g(<$F>::finish(f(a).ftz() + f(b).ftz()))
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                let f = |$v: $t| $to;
                let g = |$l: <$F as Format>::L| $from;
                g(<$F>::finish(f(a).ftz() * f(b).ftz()))
            }
            #[inline(always)]
            fn max(a: Self, b: Self) -> Self {
                let f = |$v: $t| $to;
                let g = |$l: <$F as Format>::L| $from;
                g(<$F>::finish(fmax(f(a).ftz(), f(b).ftz())))
            }
            #[inline(always)]
            fn min(a: Self, b: Self) -> Self {
                let f = |$v: $t| $to;
                let g = |$l: <$F as Format>::L| $from;
                g(<$F>::finish(fmin(f(a).ftz(), f(b).ftz())))
            }
            fn and(_: Self, _: Self) -> Option<Self> {
                None
            }
            fn or(_: Self, _: Self) -> Option<Self> {
                None
            }
        }
    };
}

float_arith!(f32, F32Format, |v| v, |l| l);
float_arith!(f64, F64Format, |v| v, |l| l);
float_arith!(f16, F16Format, |v| v.to_f32(), |l| f16::from_f32(l));
float_arith!(bf16, Bf16Format, |v| v.to_f32(), |l| bf16::from_bits(
    bf16_bits(l)
));

/// How a region combines the current value with a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combiner {
    /// One of the simple binary reducers.
    Simple(Simple),
    /// The new value replaces the current one (`return %update`).
    Replace,
}

/// The combiner of a two-argument region `(current, new)`, if it is a simple one.
pub fn recognise(region: &Region) -> Option<Combiner> {
    let block = region.entry()?;
    if let ([_, new], [ret]) = (block.args.as_slice(), block.ops.as_slice()) {
        if matches!(ret.kind, OpKind::Return(_)) && ret.operands == [*new] {
            return Some(Combiner::Replace);
        }
    }
    crate::kernels::fusion::reduce::reducer::recognise(region).map(Combiner::Simple)
}

/// True when the native combiners cover `dtype` (everything but the sub-byte integers).
pub fn supports(dtype: DType) -> bool {
    !crate::kernels::shape::elem::is_sub_byte(dtype)
}

/// A combiner fixed at compile time: the loops are generic over it.
pub trait Combine<T>: Copy + Send + Sync + 'static {
    /// The combined value.
    fn apply(current: T, new: T) -> T;
}

/// `add`.
#[derive(Clone, Copy, Debug)]
pub struct AddOp;
/// `multiply`.
#[derive(Clone, Copy, Debug)]
pub struct MulOp;
/// `maximum`.
#[derive(Clone, Copy, Debug)]
pub struct MaxOp;
/// `minimum`.
#[derive(Clone, Copy, Debug)]
pub struct MinOp;
/// `and` (integers and booleans only: see [`valid_for`]).
#[derive(Clone, Copy, Debug)]
pub struct AndOp;
/// `or` (integers and booleans only: see [`valid_for`]).
#[derive(Clone, Copy, Debug)]
pub struct OrOp;
/// The new value.
#[derive(Clone, Copy, Debug)]
pub struct ReplaceOp;

impl<T: Arith> Combine<T> for AddOp {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        T::add(a, b)
    }
}
impl<T: Arith> Combine<T> for MulOp {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        T::mul(a, b)
    }
}
impl<T: Arith> Combine<T> for MaxOp {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        T::max(a, b)
    }
}
impl<T: Arith> Combine<T> for MinOp {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        T::min(a, b)
    }
}
impl<T: Arith> Combine<T> for AndOp {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        T::and(a, b).unwrap_or(b)
    }
}
impl<T: Arith> Combine<T> for OrOp {
    #[inline(always)]
    fn apply(a: T, b: T) -> T {
        T::or(a, b).unwrap_or(b)
    }
}
impl<T: Arith> Combine<T> for ReplaceOp {
    #[inline(always)]
    fn apply(_: T, b: T) -> T {
        b
    }
}

/// True when `combiner` is defined on `dtype` (and/or are not defined on floats).
pub fn valid_for(combiner: Combiner, dtype: DType) -> bool {
    supports(dtype)
        && !(dtype.is_float() && matches!(combiner, Combiner::Simple(Simple::And | Simple::Or)))
}

/// Runs `$body` with the type alias `$c` set to the combiner type of `$combiner`.
#[macro_export]
macro_rules! with_combiner {
    ($combiner:expr, $c:ident => $body:expr) => {{
        use $crate::kernels::fusion::reduce::reducer::Simple as S;
        use $crate::kernels::indexing::combine::{self as cb, Combiner as K};
        match $combiner {
            K::Simple(S::Add) => {
                type $c = cb::AddOp;
                $body
            }
            K::Simple(S::Mul) => {
                type $c = cb::MulOp;
                $body
            }
            K::Simple(S::Max) => {
                type $c = cb::MaxOp;
                $body
            }
            K::Simple(S::Min) => {
                type $c = cb::MinOp;
                $body
            }
            K::Simple(S::And) => {
                type $c = cb::AndOp;
                $body
            }
            K::Simple(S::Or) => {
                type $c = cb::OrOp;
                $body
            }
            K::Replace => {
                type $c = cb::ReplaceOp;
                $body
            }
        }
    }};
}
