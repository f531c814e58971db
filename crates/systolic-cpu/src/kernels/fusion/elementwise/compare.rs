//! `compare`, `select` and the boolean ops as instruction bodies. Floats compare as IEEE
//! (`FLOAT`, with subnormals read as zero) or in total order; integers as their own signedness
//! unless the comparison type says otherwise (the bit pattern is then reread); booleans with
//! false < true.

use super::lanes::{mask, sign_extend, FloatLane, Format, IntLane};
use crate::kernels::fusion::reg::{lanes, lanes_mut, Fn2, Fn3, LaneType, Reg};
use crate::kernels::math::simd::{map2, map3};
use systolic_ir::{BinaryOp, ComparisonDirection, UnaryOp};

/// A comparison of lane values `T` as keys `K` (the key function makes the relation); either
/// input may be a splat register (see [`super::zip2`]).
macro_rules! relation {
    ($dir:expr, $T:ty, |$x:ident| $key:expr) => {{
        use ComparisonDirection::*;
        macro_rules! rel {
            ($op:tt) => {
                (|a: &Reg, b: &Reg, o: &mut Reg, n: usize| {
                    super::zip2(
                        a,
                        b,
                        o,
                        n,
                        #[inline(always)]
                        |p: $T, q: $T| {
                            let key = |$x: $T| $key;
                            key(p) $op key(q)
                        },
                    )
                }) as Fn2
            };
        }
        match $dir {
            Eq => rel!(==),
            Ne => rel!(!=),
            Lt => rel!(<),
            Le => rel!(<=),
            Gt => rel!(>),
            Ge => rel!(>=),
        }
    }};
}

/// IEEE comparison of format `F` (NaN unordered: only `NE` holds), subnormals read as zero.
pub fn float_ieee<F: Format>(dir: ComparisonDirection) -> Fn2 {
    relation!(dir, F::L, |x| x.ftz())
}

/// Total-order comparison of format `F`.
pub fn float_total<F: Format>(dir: ComparisonDirection) -> Fn2 {
    relation!(dir, F::L, |x| x.total_key())
}

/// Integers compared as their lane type says.
pub fn int_native<T: IntLane>(dir: ComparisonDirection) -> Fn2 {
    relation!(dir, T, |x| x)
}

/// `BITS`-bit integers compared as unsigned numbers (the `UNSIGNED` type on a signed dtype).
pub fn int_as_unsigned<T: IntLane, const BITS: u32>(dir: ComparisonDirection) -> Fn2 {
    relation!(dir, T, |x| x.to_u64() & mask(BITS))
}

/// `BITS`-bit integers compared as signed numbers (the `SIGNED` type on an unsigned dtype).
pub fn int_as_signed<T: IntLane, const BITS: u32>(dir: ComparisonDirection) -> Fn2 {
    relation!(dir, T, |x| sign_extend(x.to_u64() & mask(BITS), BITS))
}

/// Booleans compared with false < true.
pub fn boolean(dir: ComparisonDirection) -> Fn2 {
    relation!(dir, bool, |x| x)
}

/// `select(pred, on_true, on_false)` on lanes `T`.
pub fn select<T: LaneType>() -> Fn3 {
    |p, t, f, o, n| {
        map3(
            lanes::<bool>(p, n),
            lanes::<T>(t, n),
            lanes::<T>(f, n),
            lanes_mut::<T>(o, n),
            #[inline(always)]
            |p: bool, t: T, f: T| if p { t } else { f },
        )
    }
}

/// Boolean binary ops: add/or/maximum are OR, multiply/and/minimum AND, xor.
pub fn bool_binary(op: BinaryOp) -> Option<Fn2> {
    macro_rules! b {
        ($op:tt) => {
            (|a: &Reg, b: &Reg, o: &mut Reg, n: usize| {
                map2(
                    lanes::<bool>(a, n),
                    lanes::<bool>(b, n),
                    lanes_mut::<bool>(o, n),
                    #[inline(always)]
                    |x: bool, y: bool| x $op y,
                )
            }) as Fn2
        };
    }
    use BinaryOp::*;
    Some(match op {
        Add | Or | Maximum => b!(|),
        Multiply | And | Minimum => b!(&),
        Xor => b!(^),
        _ => return None,
    })
}

/// Boolean unary ops: `not`.
pub fn bool_unary(op: UnaryOp) -> Option<super::super::reg::Fn1> {
    match op {
        UnaryOp::Not => Some(|a, o, n| {
            crate::kernels::math::simd::map1(
                lanes::<bool>(a, n),
                lanes_mut::<bool>(o, n),
                #[inline(always)]
                |x: bool| !x,
            )
        }),
        _ => None,
    }
}
