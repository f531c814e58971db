//! Every elementwise op of the IR as an instruction body for the loop programs, chosen at
//! compile time for the op and its dtypes, with the reference interpreter's per-dtype
//! semantics (see the submodules).

pub mod compare;
pub mod complex;
pub mod complex_abs;
pub mod convert;
mod dispatch;
pub mod float;
pub mod int;
pub mod lanes;

use super::reg::{lanes, lanes_mut, splat, Fn1, Fn2, Fn3, Lane, LaneType, Reg};
use crate::kernels::math::simd::{map1, map2};
use convert::ReducedFormat;
use dispatch::{with_float, with_int, with_lane};
use systolic_ir::{BinaryOp, ComparisonType, DType, OpKind, UnaryOp};

/// What one elementwise instruction runs.
#[derive(Clone, Copy)]
pub enum Body {
    /// One input.
    One(Fn1),
    /// Two inputs.
    Two(Fn2),
    /// Two inputs read through [`zip2`]: either may be a splat register (one value for the
    /// block, see [`Reg::splat`]), which row programs load for values uniform over a row.
    TwoSplat(Fn2),
    /// Three inputs.
    Three(Fn3),
    /// `bitcast_convert` between equal widths (lane by lane on the bits).
    Bitcast {
        /// Operand dtype.
        from: DType,
        /// Result dtype.
        to: DType,
    },
    /// `reduce_precision`.
    ReducePrecision(ReducedFormat),
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Body::One(_) => f.write_str("One"),
            Body::Two(_) => f.write_str("Two"),
            Body::TwoSplat(_) => f.write_str("TwoSplat"),
            Body::Three(_) => f.write_str("Three"),
            Body::Bitcast { from, to } => write!(f, "Bitcast({from}->{to})"),
            Body::ReducePrecision(r) => write!(f, "{r:?}"),
        }
    }
}

/// The body of a one-step elementwise op with these operand dtypes and result dtype, or
/// `None` when the op is not elementwise or not defined for the dtypes (`clamp` is planned as
/// maximum then minimum and is not here).
pub fn resolve(kind: &OpKind, operands: &[DType], result: DType) -> Option<Body> {
    let first = *operands.first()?;
    if first.is_complex() || result.is_complex() {
        return resolve_complex(kind, operands, result);
    }
    match kind {
        OpKind::Unary(UnaryOp::IsFinite) => {
            with_float!(first, F => Body::One(float::is_finite::<F>()))
        }
        OpKind::Unary(op) => match first {
            DType::Bool => compare::bool_unary(*op).map(Body::One),
            d if d.is_float() => with_float!(d, F => float::unary::<F>(*op))
                .flatten()
                .map(Body::One),
            d => with_int!(d, T, B => int::unary::<T, B>(*op))
                .flatten()
                .map(Body::One),
        },
        OpKind::Binary(op) => match first {
            DType::Bool => compare::bool_binary(*op).map(Body::Two),
            d if d.is_float() => with_float!(d, F => float::binary::<F>(*op)).flatten().map(
                if *op == BinaryOp::Power {
                    Body::Two
                } else {
                    Body::TwoSplat
                },
            ),
            d => with_int!(d, T, B => int::binary::<T, B>(*op))
                .flatten()
                .map(Body::Two),
        },
        OpKind::ChloUnary(op) => match first {
            d if d.is_float() => {
                let body = with_float!(d, F => float::chlo_unary::<F>(*op).or_else(|| float::chlo_test::<F>(*op)));
                body.flatten().map(Body::One)
            }
            d if d.is_integer() => match op {
                systolic_ir::ChloUnaryOp::Square => {
                    with_int!(d, T, B => Body::One(int::square::<T, B>()))
                }
                _ => None,
            },
            _ => None,
        },
        OpKind::ChloBinary(op) => {
            with_float!(first, F => Body::TwoSplat(float::chlo_binary::<F>(*op)?))
        }
        OpKind::Compare {
            direction,
            compare_type,
        } => {
            let ty = compare_type.unwrap_or(ComparisonType::NoType);
            let dir = *direction;
            Some(Body::TwoSplat(match first {
                DType::Bool => compare::boolean(dir),
                d if d.is_float() => {
                    if ty == ComparisonType::TotalOrder {
                        with_float!(d, F => compare::float_total::<F>(dir))?
                    } else {
                        with_float!(d, F => compare::float_ieee::<F>(dir))?
                    }
                }
                d if d.is_signed_integer() && ty == ComparisonType::Unsigned => {
                    with_int!(d, T, B => compare::int_as_unsigned::<T, B>(dir))?
                }
                d if d.is_unsigned_integer() && ty == ComparisonType::Signed => {
                    with_int!(d, T, B => compare::int_as_signed::<T, B>(dir))?
                }
                d => with_int!(d, T, B => compare::int_native::<T>(dir))?,
            }))
        }
        OpKind::Select => {
            let on_true = *operands.get(1)?;
            Some(Body::Three(
                with_lane!(Lane::of(on_true), T => compare::select::<T>()),
            ))
        }
        OpKind::Convert => convert::convert(first, result).map(Body::One),
        OpKind::BitcastConvert if first.bit_width() == result.bit_width() => Some(Body::Bitcast {
            from: first,
            to: result,
        }),
        OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } if first.is_float() && *exponent_bits >= 1 && *mantissa_bits >= 0 => {
            Some(Body::ReducePrecision(ReducedFormat {
                dtype: first,
                exponent_bits: *exponent_bits as u32,
                mantissa_bits: *mantissa_bits as u32,
            }))
        }
        _ => None,
    }
}

/// [`resolve`] for ops with a complex operand or result ([`complex`]); conversions between
/// complex and real dtypes take two instructions ([`complex::convert_steps`]) and are not here.
fn resolve_complex(kind: &OpKind, operands: &[DType], result: DType) -> Option<Body> {
    let first = *operands.first()?;
    match kind {
        OpKind::Unary(op) => complex::unary(*op, first),
        OpKind::Binary(BinaryOp::Complex) => complex::make_complex(first),
        OpKind::Binary(op) => complex::binary(*op, first),
        OpKind::ChloUnary(op) => complex::chlo_unary(*op, first),
        OpKind::Compare {
            direction,
            compare_type,
        } => {
            let total = *compare_type == Some(ComparisonType::TotalOrder);
            complex::compare(*direction, total, first)
        }
        OpKind::Select => {
            let on_true = *operands.get(1)?;
            Some(Body::Three(
                with_lane!(Lane::of(on_true), T => compare::select::<T>()),
            ))
        }
        OpKind::Convert if first.is_complex() && result.is_complex() => {
            complex::convert(first, result)
        }
        // Lane by lane on 64-bit patterns: complex<f32> with i64/u64/f64 (or itself); a
        // complex<f64> (128 bits) is left to the interpreter.
        OpKind::BitcastConvert
            if first.bit_width() == result.bit_width() && first.bit_width() <= 64 =>
        {
            Some(Body::Bitcast {
                from: first,
                to: result,
            })
        }
        _ => None,
    }
}

/// `out[i] = f(a[i], b[i])` over the block's `n` lanes, where either input may be a splat
/// register (see [`Reg::splat`]): its one value is passed to every lane, so the loop reads a
/// single stream. The same `f` runs on the same values either way, so the results are those
/// of the lane-by-lane loop bit for bit.
#[inline(always)]
pub(crate) fn zip2<A: LaneType, B: LaneType, C: LaneType>(
    a: &Reg,
    b: &Reg,
    o: &mut Reg,
    n: usize,
    f: impl Fn(A, B) -> C + Copy,
) {
    let out = lanes_mut::<C>(o, n);
    match (splat::<A>(a), splat::<B>(b)) {
        (None, None) => map2(lanes::<A>(a, n), lanes::<B>(b, n), out, f),
        (None, Some(y)) => map1(
            lanes::<A>(a, n),
            out,
            #[inline(always)]
            move |x| f(x, y),
        ),
        (Some(x), None) => map1(
            lanes::<B>(b, n),
            out,
            #[inline(always)]
            move |y| f(x, y),
        ),
        (Some(x), Some(y)) => out.fill(f(x, y)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::ComparisonDirection;

    /// Values that exercise rounding and flushing: signed zeros, subnormals of f32 and of the
    /// 16-bit formats, infinities, NaN, and ordinary numbers.
    const SPECIAL: [f64; 14] = [
        0.0,
        -0.0,
        1e-40,
        -1e-40,
        1e-6,
        1.5,
        -2.75,
        3.0e38,
        65519.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
        7.0,
    ];

    /// A register of `n` lanes of `lane` cycling through `values` from `from`.
    fn lanes_of(lane: Lane, values: &[f64], from: usize, n: usize) -> Reg {
        let mut reg = Reg::new(lane, n);
        let value = |i: usize| values[(from + i) % values.len()];
        match lane {
            Lane::F32 => (0..n).for_each(|i| lanes_mut::<f32>(&mut reg, n)[i] = value(i) as f32),
            Lane::F64 => (0..n).for_each(|i| lanes_mut::<f64>(&mut reg, n)[i] = value(i)),
            Lane::I32 => (0..n).for_each(|i| lanes_mut::<i32>(&mut reg, n)[i] = value(i) as i32),
            Lane::I8 => (0..n).for_each(|i| lanes_mut::<i8>(&mut reg, n)[i] = value(i) as i8),
            Lane::U32 => (0..n).for_each(|i| lanes_mut::<u32>(&mut reg, n)[i] = value(i) as u32),
            other => unreachable!("no test values for {other:?}"),
        }
        reg
    }

    /// A splat register of `width` lanes holding `value`.
    fn splat_of(lane: Lane, value: f64, width: usize) -> Reg {
        let one = lanes_of(lane, &[value], 0, 1);
        let mut reg = Reg::new(lane, width);
        with_lanes_copy(&one, &mut reg);
        reg.splat();
        reg
    }

    fn with_lanes_copy(from: &Reg, to: &mut Reg) {
        match (from, to) {
            (Reg::F32(a), Reg::F32(b)) => b[0] = a[0],
            (Reg::F64(a), Reg::F64(b)) => b[0] = a[0],
            (Reg::I32(a), Reg::I32(b)) => b[0] = a[0],
            (Reg::I8(a), Reg::I8(b)) => b[0] = a[0],
            (Reg::U32(a), Reg::U32(b)) => b[0] = a[0],
            _ => unreachable!("mismatched test registers"),
        }
    }

    /// The bits of a result register (floats by their bit patterns, so NaNs and signed
    /// zeros must match exactly too).
    fn bits(reg: &Reg, n: usize) -> Vec<u64> {
        match reg {
            Reg::Bool(_) => lanes::<bool>(reg, n).iter().map(|&b| b as u64).collect(),
            Reg::F32(_) => lanes::<f32>(reg, n)
                .iter()
                .map(|x| x.to_bits() as u64)
                .collect(),
            Reg::F64(_) => lanes::<f64>(reg, n).iter().map(|x| x.to_bits()).collect(),
            _ => unreachable!("no float or bool result"),
        }
    }

    /// Runs `f` with a splat of every special value as first, second and both inputs, and
    /// checks each result against the same value filled into every lane.
    fn check_splats(f: Fn2, lane: Lane, out: Lane, what: &str) {
        for n in [1, 7, 64, 65, 2049] {
            let x = lanes_of(lane, &SPECIAL, 3, n);
            for (k, &v) in SPECIAL.iter().enumerate() {
                let filled = lanes_of(lane, &[v], 0, n);
                let splat = splat_of(lane, v, n);
                let other = splat_of(lane, SPECIAL[(k + 5) % SPECIAL.len()], n);
                let other_filled = lanes_of(lane, &[SPECIAL[(k + 5) % SPECIAL.len()]], 0, n);
                for (a, b, fa, fb) in [
                    (&x, &splat, &x, &filled),
                    (&splat, &x, &filled, &x),
                    (&splat, &other, &filled, &other_filled),
                ] {
                    let (mut got, mut want) = (Reg::new(out, n), Reg::new(out, n));
                    f(a, b, &mut got, n);
                    f(fa, fb, &mut want, n);
                    assert_eq!(bits(&got, n), bits(&want, n), "{what}, n {n}, value {v}");
                }
            }
        }
    }

    /// Every body that takes splats gives, with a splat operand on either side, bit for bit
    /// what it gives with that value in every lane: float binary ops and comparisons in
    /// every float format (bf16 and f16 round and flush in f32 lanes), integer comparisons.
    #[test]
    fn splat_operands_give_the_lane_by_lane_results() {
        use BinaryOp::*;
        let floats = [DType::F32, DType::F64, DType::BF16, DType::F16];
        let ops = [
            Add, Subtract, Multiply, Divide, Maximum, Minimum, Remainder, Atan2, Power,
        ];
        let dirs = [
            ComparisonDirection::Eq,
            ComparisonDirection::Ne,
            ComparisonDirection::Lt,
            ComparisonDirection::Le,
            ComparisonDirection::Gt,
            ComparisonDirection::Ge,
        ];
        let mut checked = 0;
        for dtype in floats {
            let lane = Lane::of(dtype);
            for op in ops {
                match resolve(&OpKind::Binary(op), &[dtype, dtype], dtype) {
                    Some(Body::TwoSplat(f)) => {
                        check_splats(f, lane, lane, &format!("{op:?} {dtype}"));
                        checked += 1;
                    }
                    Some(Body::Two(_)) => assert_eq!(op, Power, "{op:?} takes no splats"),
                    other => panic!("{op:?} {dtype}: {other:?}"),
                }
            }
        }
        for dtype in floats
            .into_iter()
            .chain([DType::I32, DType::I8, DType::U32])
        {
            let types = [
                ComparisonType::Float,
                ComparisonType::TotalOrder,
                ComparisonType::Unsigned,
            ];
            for (dir, compare_type) in dirs.iter().flat_map(|d| types.map(|t| (*d, t))) {
                let kind = OpKind::Compare {
                    direction: dir,
                    compare_type: Some(compare_type),
                };
                let Some(Body::TwoSplat(f)) = resolve(&kind, &[dtype, dtype], DType::Bool) else {
                    panic!("compare {dir:?} {compare_type:?} {dtype} takes no splats");
                };
                let what = format!("compare {dir:?} {compare_type:?} {dtype}");
                check_splats(f, Lane::of(dtype), Lane::Bool, &what);
                checked += 1;
            }
        }
        assert_eq!(checked, 4 * 8 + 7 * 18);
    }
}
