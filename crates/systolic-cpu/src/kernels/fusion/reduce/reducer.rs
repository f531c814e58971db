//! Recognising the common reducers (add, multiply, maximum, minimum, and, or) from a reduce's
//! region, and folding a block of a row into an accumulator with them.
//!
//! Float sums and products fold a block (≤ 512 elements of a row) with 64 independent partial
//! accumulators (four vectors) combined pairwise at the end, and the blocks of a row in order;
//! this reassociates the interpreter's left fold, so results agree within about
//! (n/64 + 6)·eps relative to the sum of magnitudes. Rows longer than
//! [`super::exec::SEGMENT`] fold each segment so (from its first element) and the segments'
//! partials with the same fold, which only tightens that bound.
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
                    fold_monotone::<$t>(x, lo, n, acc, k, (max, true), <$t>::NEG_INFINITY)
                },
                Min => |x, lo, n, acc, k| {
                    fold_monotone::<$t>(x, lo, n, acc, k, (min, false), <$t>::INFINITY)
                },
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
        // Complex sums and products fold in the slots mode: the reducer region on complex
        // lanes in the interpreter's tree order, bit for bit (no reassociated vector fold).
        DType::C64 | DType::C128 => None,
        // So do reductions of narrow floats.
        DType::F8E4M3FN
        | DType::F8E5M2
        | DType::F8E4M3FNUZ
        | DType::F8E5M2FNUZ
        | DType::F8E4M3B11FNUZ
        | DType::F8E3M4
        | DType::F8E4M3
        | DType::F8E8M0FNU
        | DType::F6E2M3FN
        | DType::F6E3M2FN
        | DType::F4E2M1FN => None,
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

/// [`fold_float`] for maximum (`is_max`) and minimum, flushing once at the end instead of
/// every element: flushing is monotone (subnormals go to the zero of their sign, and these ops
/// order −0 below +0), so the extreme of the flushed values is the flushed extreme.
///
/// The block folds with a plain compare-and-keep (one vector instruction per 16 f32), which
/// ignores NaN and the sign of zero; the two rules are then settled from the block itself:
/// any NaN makes the result NaN (a vectorised scan), and a zero extreme takes the sign the
/// full op gives — maximum(−0, +0) = +0, minimum = −0 — from a scan that runs only then. The
/// full op with its NaN and zero rules took 6–7 vector instructions per 16 elements (the
/// max fold of softmax's first stage, 11% of that program's time).
fn fold_monotone<T: FloatLane>(
    x: &Reg,
    lo: usize,
    n: usize,
    acc: &mut Reg,
    slot: usize,
    (op, is_max): (impl Fn(T, T) -> T + Copy, bool),
    identity: T,
) {
    let xs = &lanes::<T>(x, lo + n)[lo..];
    // One pass: a NaN wins every comparison it takes part in (`b` replaces the partial when
    // it is NaN, and a NaN partial is never replaced), so any NaN makes the fold NaN; it is
    // then returned as the canonical NaN, as the op gives.
    let extreme = if is_max {
        fold64(xs, |a, b| if b > a || b.is_nan() { b } else { a }, identity)
    } else {
        fold64(xs, |a, b| if b < a || b.is_nan() { b } else { a }, identity)
    };
    let folded = if extreme.is_nan() {
        T::NAN
    } else {
        let extreme = extreme.ftz();
        if extreme == T::ZERO {
            // The zero the op prefers (+0 for maximum, −0 for minimum), if any element
            // flushes to it; else the other one.
            let preferred_negative = !is_max;
            let seen = xs.iter().any(|&v| {
                let f = v.ftz();
                f == T::ZERO && f.is_sign_negative() == preferred_negative
            });
            let negative = if seen {
                preferred_negative
            } else {
                !preferred_negative
            };
            if negative {
                -T::ZERO
            } else {
                T::ZERO
            }
        } else {
            extreme
        }
    };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::fusion::elementwise::lanes::FloatLane;

    /// The row folds of maximum and minimum against the full op applied element by element:
    /// NaN anywhere, zeros of both signs, subnormals (which flush to the zero of their sign),
    /// infinities; over blocks longer than a vector chunk so both the fold and its tail run.
    /// On this thread (IEEE mode) and on the backend's pool (FTZ/DAZ, where compares read
    /// subnormals as zero).
    #[test]
    fn max_and_min_row_folds_keep_the_nan_and_signed_zero_rules() {
        check_max_and_min_folds();
        crate::threads::run(check_max_and_min_folds);
    }

    fn check_max_and_min_folds() {
        let sub = f32::from_bits(5);
        let specials = [
            0.0f32,
            -0.0,
            sub,
            -sub,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -1.5,
            2.5,
        ];
        let mut next = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1du64);
        for case in 0..400 {
            let len = (next() % 150) as usize + 1;
            let mut row: Vec<f32> = (0..len)
                .map(|_| {
                    let v = specials[(next() % specials.len() as u64) as usize];
                    // Mostly zeros and subnormals, so zero extremes are common.
                    if case % 2 == 0 && v.abs() > 1.0 {
                        -0.0
                    } else {
                        v
                    }
                })
                .collect();
            if case % 7 == 0 {
                let at = (next() % len as u64) as usize;
                row[at] = f32::NAN;
            }
            for (simple, op, identity) in [
                (Simple::Max, max as fn(f32, f32) -> f32, f32::NEG_INFINITY),
                (Simple::Min, min as fn(f32, f32) -> f32, f32::INFINITY),
            ] {
                let want = row
                    .iter()
                    .fold(identity, |a, &b| op(a.ftz(), b.ftz()).ftz());
                let fold = row_fold(simple, DType::F32).unwrap();
                let x = Reg::F32(row.clone().into());
                let mut acc = Reg::F32(vec![identity].into());
                fold(&x, 0, len, &mut acc, 0);
                let got = lanes::<f32>(&acc, 1)[0];
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{simple:?} of {row:?}: got {got:?}, want {want:?}"
                );
            }
        }
    }
}
