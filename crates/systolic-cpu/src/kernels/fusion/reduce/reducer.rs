//! Recognising the common reducers (add, multiply, maximum, minimum, and, or) from a reduce's
//! region, and folding a block of a row into an accumulator with them.
//!
//! Float sums and products fold a block (≤ 512 elements of a row) with 64 independent partial
//! accumulators (four vectors) combined pairwise at the end, and the blocks of a row in order;
//! this reassociates the interpreter's left fold, so results agree within about
//! (n/64 + 6)·eps relative to the sum of magnitudes.
//! Integer, boolean, maximum and minimum folds are exact (associative), as are maximum and
//! minimum on floats (NaN wins, maximum(−0, +0) = +0 in any order).

use crate::kernels::fusion::elementwise::float::{max, min};
use crate::kernels::fusion::elementwise::lanes::{wrap, FloatLane, IntLane};
use crate::kernels::fusion::reg::{lanes, lanes_mut, Reg};
use crate::kernels::math::simd::fold64;
use systolic_ir::{BinaryOp, DType, OpKind, Region};

/// A reducer with a vectorised fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simple {
    /// `add` (OR on booleans).
    Add,
    /// `multiply` (AND on booleans).
    Mul,
    /// `maximum`.
    Max,
    /// `minimum`.
    Min,
    /// `and`.
    And,
    /// `or`.
    Or,
}

/// The simple reducer a one-input reduce's region computes, if it is one binary op on its two
/// arguments.
pub fn recognise(region: &Region) -> Option<Simple> {
    let block = region.entry()?;
    let [acc, x] = block.args.as_slice() else {
        return None;
    };
    let [op, ret] = block.ops.as_slice() else {
        return None;
    };
    let OpKind::Binary(kind) = op.kind else {
        return None;
    };
    let operands_ok = op.operands == [*acc, *x] || op.operands == [*x, *acc];
    let returns_it = matches!(ret.kind, OpKind::Return(_)) && ret.operands == op.results;
    if !operands_ok || !returns_it {
        return None;
    }
    Some(match kind {
        BinaryOp::Add => Simple::Add,
        BinaryOp::Multiply => Simple::Mul,
        BinaryOp::Maximum => Simple::Max,
        BinaryOp::Minimum => Simple::Min,
        BinaryOp::And => Simple::And,
        BinaryOp::Or => Simple::Or,
        _ => return None,
    })
}

/// Folds lanes `[lo, lo + n)` of `x` into lane `slot` of `acc`.
pub type RowFold = fn(x: &Reg, lo: usize, n: usize, acc: &mut Reg, slot: usize);

/// The row fold of `simple` on `dtype`, when it has one (f32, f64, integers, booleans; bf16
/// and f16 sums round after every step in the interpreter and use the general path).
pub fn row_fold(simple: Simple, dtype: DType) -> Option<RowFold> {
    use Simple::*;
    macro_rules! float {
        ($t:ty) => {
            Some(match simple {
                Add => |x, lo, n, acc, k| fold_float::<$t>(x, lo, n, acc, k, |a, b| (a + b), 0.0),
                Mul => |x, lo, n, acc, k| fold_float::<$t>(x, lo, n, acc, k, |a, b| (a * b), 1.0),
                Max => |x, lo, n, acc, k| {
                    fold_monotone::<$t>(x, lo, n, acc, k, max, <$t>::NEG_INFINITY)
                },
                Min => {
                    |x, lo, n, acc, k| fold_monotone::<$t>(x, lo, n, acc, k, min, <$t>::INFINITY)
                }
                And | Or => return None,
            })
        };
    }
    macro_rules! int {
        ($t:ty, $bits:expr) => {
            Some(match simple {
                Add => |x, lo, n, acc, k| {
                    fold_int::<$t, { $bits }>(x, lo, n, acc, k, |a, b| a.wadd(b), 0)
                },
                Mul => |x, lo, n, acc, k| {
                    fold_int::<$t, { $bits }>(x, lo, n, acc, k, |a, b| a.wmul(b), 1)
                },
                Max => |x, lo, n, acc, k| {
                    fold_int::<$t, { $bits }>(x, lo, n, acc, k, |a, b| a.max(b), <$t>::MIN)
                },
                Min => |x, lo, n, acc, k| {
                    fold_int::<$t, { $bits }>(x, lo, n, acc, k, |a, b| a.min(b), <$t>::MAX)
                },
                And => {
                    |x, lo, n, acc, k| fold_int::<$t, { $bits }>(x, lo, n, acc, k, |a, b| a & b, !0)
                }
                Or => {
                    |x, lo, n, acc, k| fold_int::<$t, { $bits }>(x, lo, n, acc, k, |a, b| a | b, 0)
                }
            })
        };
    }
    match dtype {
        DType::F32 => float!(f32),
        DType::F64 => float!(f64),
        DType::I2 => int!(i8, 2),
        DType::I4 => int!(i8, 4),
        DType::I8 => int!(i8, 8),
        DType::I16 => int!(i16, 16),
        DType::I32 => int!(i32, 32),
        DType::I64 => int!(i64, 64),
        DType::U2 => int!(u8, 2),
        DType::U4 => int!(u8, 4),
        DType::U8 => int!(u8, 8),
        DType::U16 => int!(u16, 16),
        DType::U32 => int!(u32, 32),
        DType::U64 => int!(u64, 64),
        DType::Bool => Some(match simple {
            Add | Max | Or => |x, lo, n, acc, k| fold_bool(x, lo, n, acc, k, false),
            Mul | Min | And => |x, lo, n, acc, k| fold_bool(x, lo, n, acc, k, true),
        }),
        DType::BF16 | DType::F16 => None,
    }
}

fn fold_float<T: FloatLane>(
    x: &Reg,
    lo: usize,
    n: usize,
    acc: &mut Reg,
    slot: usize,
    op: impl Fn(T, T) -> T + Copy,
    identity: T,
) {
    let folded = fold64(
        &lanes::<T>(x, lo + n)[lo..],
        move |a, b| op(a.daz(), b.daz()),
        identity,
    );
    let a = &mut T::of_mut(acc)[slot];
    *a = op(a.daz(), folded).daz();
}

/// [`fold_float`] for maximum and minimum, flushing once at the end instead of every
/// element: flushing is monotone (subnormals go to the zero of their sign, and these ops order
/// −0 below +0), so the extreme of the flushed values is the flushed extreme, NaN included.
fn fold_monotone<T: FloatLane>(
    x: &Reg,
    lo: usize,
    n: usize,
    acc: &mut Reg,
    slot: usize,
    op: impl Fn(T, T) -> T + Copy,
    identity: T,
) {
    let folded = fold64(&lanes::<T>(x, lo + n)[lo..], op, identity);
    let a = &mut T::of_mut(acc)[slot];
    *a = op(a.ftz(), folded.ftz()).ftz();
}

fn fold_int<T: IntLane, const BITS: u32>(
    x: &Reg,
    lo: usize,
    n: usize,
    acc: &mut Reg,
    slot: usize,
    op: impl Fn(T, T) -> T + Copy,
    identity: T,
) {
    let folded = fold64(&lanes::<T>(x, lo + n)[lo..], op, identity);
    let a = &mut T::of_mut(acc)[slot];
    *a = wrap::<T, BITS>(op(*a, folded));
}

fn fold_bool(x: &Reg, lo: usize, n: usize, acc: &mut Reg, slot: usize, and: bool) {
    let x = &lanes::<bool>(x, lo + n)[lo..];
    let a = &mut lanes_mut::<bool>(acc, slot + 1)[slot];
    *a = if and {
        *a && x.iter().all(|&b| b)
    } else {
        *a || x.iter().any(|&b| b)
    };
}
