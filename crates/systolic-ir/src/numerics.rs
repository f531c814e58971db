//! Per-dtype numeric rules, kept in one place so the interpreter, the constant folder and the
//! backends agree: rounding a real number to a float dtype, wrapping integers to their width,
//! float→int saturation, and denormal flushing as XLA:CPU does it.
//!
//! Floats of every width are held as `f64` in [`crate::Tensor`]; an `f64` holds every f16, bf16
//! and f32 value exactly, and rounding an exactly computed f64 result of `+ - * / sqrt` to f32 gives
//! the same answer as computing in f32 (f64 has more than 2·24+2 significand bits). bf16 and f16
//! arithmetic on XLA:CPU is done in f32 and rounded after each op, which [`round_to`] reproduces by
//! rounding through f32. The narrow floats (f8/f6/f4) round once from the exact f64 value
//! through their table entry ([`crate::minifloat`]); XLA:CPU computes them in f32 and rounds
//! after each op, which for `+ - * / sqrt` gives the same result (f32 holds far more than
//! twice their significand plus two bits).
//!
//! Two [`Mode`]s: XLA:CPU's (the default: flush-to-zero and denormals-are-zero, what JAX
//! computes on a CPU and what the compiled backend does) and the StableHLO spec's (subnormals
//! are ordinary numbers), which the upstream interpreter tests assume. The mode is per thread
//! ([`with_mode`]), so a test or a `systolic check --numerics spec` run changes nothing for
//! the rest of the process.

use crate::dtype::DType;
use half::{bf16, f16};
use num_complex::Complex64;
use std::cell::Cell;

/// Which float arithmetic the interpreter reproduces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// XLA:CPU's: f32, bf16 and f64 subnormals read and written as zeros of their sign;
    /// `reduce_precision` keeps NaNs. What JAX computes on a CPU.
    #[default]
    XlaCpu,
    /// The StableHLO spec's: subnormals are numbers like any other; `reduce_precision` to zero
    /// mantissa bits turns a NaN into an infinity (it has no NaN left), as the spec's
    /// interpreter does.
    Spec,
}

impl Mode {
    /// The mode named `xla` or `spec` (what `systolic check --numerics` takes).
    pub fn parse(name: &str) -> Option<Mode> {
        match name {
            "xla" | "xla-cpu" => Some(Mode::XlaCpu),
            "spec" => Some(Mode::Spec),
            _ => None,
        }
    }
}

thread_local! {
    static MODE: Cell<Mode> = const { Cell::new(Mode::XlaCpu) };
}

/// This thread's numerics mode.
pub fn mode() -> Mode {
    MODE.with(Cell::get)
}

/// Runs `f` with this thread's numerics mode set to `mode` (restored afterwards, also when `f`
/// panics). Threads an interpreter starts for itself (the processes of a parallel run) take
/// the mode of the thread starting them.
///
/// ```
/// use systolic_ir::{numerics, DType};
/// assert_eq!(numerics::flush_denormal(DType::F32, 1e-40), 0.0);
/// let kept = numerics::with_mode(numerics::Mode::Spec, || numerics::flush_denormal(DType::F32, 1e-40));
/// assert_eq!(kept, 1e-40);
/// assert_eq!(numerics::mode(), numerics::Mode::XlaCpu);
/// ```
pub fn with_mode<R>(mode: Mode, f: impl FnOnce() -> R) -> R {
    struct Restore(Mode);
    impl Drop for Restore {
        fn drop(&mut self) {
            MODE.with(|m| m.set(self.0));
        }
    }
    let _restore = Restore(MODE.with(|m| m.replace(mode)));
    f()
}

/// Rounds `x` to the nearest value of the float dtype `dtype` (round to nearest, ties to even;
/// overflow to ±inf; NaN stays NaN). A complex dtype rounds to its parts' float dtype (`x` is
/// one part). Integer dtypes are returned unchanged.
pub fn round_to(dtype: DType, x: f64) -> f64 {
    match dtype {
        DType::F64 | DType::C128 => x,
        DType::F32 | DType::C64 => x as f32 as f64,
        DType::BF16 => bf16::from_f32(x as f32).to_f64(),
        DType::F16 => f16::from_f32(x as f32).to_f64(),
        d => match d.narrow_format() {
            Some(f) => f.round(x),
            None => x,
        },
    }
}

/// True when the finite `x` is too large for the float dtype `dtype`: it rounds to an infinity,
/// or (in a narrow float without infinities) to the NaN that overflow gives. The finite-only
/// formats (f4/f6) saturate and never overflow. What the text parser refuses in a literal.
pub fn overflows(dtype: DType, x: f64) -> bool {
    let r = round_to(dtype, x);
    r.is_infinite()
        || (r.is_nan()
            && x.is_finite()
            && dtype
                .narrow_format()
                .is_some_and(|f| x.abs() > f.max_finite()))
}

/// True when `x` is a nonzero subnormal of the float dtype `dtype` (of a complex dtype's parts).
pub fn is_subnormal(dtype: DType, x: f64) -> bool {
    let min_normal = match dtype {
        DType::F64 | DType::C128 => f64::MIN_POSITIVE,
        DType::F32 | DType::BF16 | DType::C64 => f32::MIN_POSITIVE as f64,
        DType::F16 => 6.103_515_625e-5,
        d => match d.narrow_format() {
            Some(f) if f.has_zero() => f.min_normal(),
            _ => return false,
        },
    };
    x != 0.0 && x.abs() < min_normal
}

/// XLA:CPU runs with flush-to-zero and denormals-are-zero: arithmetic on f32, bf16 and f64 sees
/// and produces no subnormals (a subnormal becomes a zero of the same sign). f16 and the narrow
/// floats (f8/f6/f4) are computed in f32 where their subnormals are normal numbers, so they
/// survive. Under [`Mode::Spec`] nothing is flushed.
pub fn flush_denormal(dtype: DType, x: f64) -> f64 {
    if dtype != DType::F16
        && !dtype.is_narrow_float()
        && is_subnormal(dtype, x)
        && mode() == Mode::XlaCpu
    {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// The result of an arithmetic op of dtype `dtype` computed exactly (or in f64) as `x`:
/// rounded to the dtype and flushed as XLA:CPU would.
pub fn arith_result(dtype: DType, x: f64) -> f64 {
    flush_denormal(dtype, round_to(dtype, x))
}

/// [`arith_result`] for a complex value of the complex dtype `dtype`: each part rounded to the
/// parts' float dtype and flushed.
pub fn complex_result(dtype: DType, z: Complex64) -> Complex64 {
    Complex64::new(arith_result(dtype, z.re), arith_result(dtype, z.im))
}

/// Wraps an integer to a signed dtype of `bits` bits (two's complement), e.g. 128 → -128 for i8.
pub fn wrap_signed(bits: u32, x: i64) -> i64 {
    if bits >= 64 {
        x
    } else {
        let shift = 64 - bits;
        (x << shift) >> shift
    }
}

/// Wraps an integer to an unsigned dtype of `bits` bits.
pub fn wrap_unsigned(bits: u32, x: u64) -> u64 {
    if bits >= 64 {
        x
    } else {
        x & ((1u64 << bits) - 1)
    }
}

/// Float → signed integer conversion as XLA does it: truncate toward zero, saturate at the
/// dtype's range, NaN → 0.
pub fn float_to_signed(dtype: DType, x: f64) -> i64 {
    let (lo, hi) = dtype.signed_range().expect("signed integer dtype");
    if x.is_nan() {
        0
    } else if x <= lo as f64 {
        lo
    } else if x >= hi as f64 {
        hi
    } else {
        x.trunc() as i64
    }
}

/// Float → unsigned integer conversion: truncate toward zero, saturate at 0 and the maximum,
/// NaN → 0.
pub fn float_to_unsigned(dtype: DType, x: f64) -> u64 {
    let hi = dtype.unsigned_max().expect("unsigned integer dtype");
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= hi as f64 {
        hi
    } else {
        x.trunc() as u64
    }
}

/// The raw bits of a float value stored in dtype `dtype` (for bitcast_convert and hex constants).
pub fn float_to_bits(dtype: DType, x: f64) -> u64 {
    match dtype {
        DType::F64 => x.to_bits(),
        DType::F32 => (x as f32).to_bits() as u64,
        DType::BF16 => bf16::from_f64(x).to_bits() as u64,
        DType::F16 => f16::from_f64(x).to_bits() as u64,
        d if d.is_narrow_float() => d.narrow_format().expect("narrow").encode(x) as u64,
        _ => panic!("float_to_bits on non-float dtype {dtype}"),
    }
}

/// The float value of raw bits in dtype `dtype`.
pub fn float_from_bits(dtype: DType, bits: u64) -> f64 {
    match dtype {
        DType::F64 => f64::from_bits(bits),
        DType::F32 => f32::from_bits(bits as u32) as f64,
        DType::BF16 => bf16::from_bits(bits as u16).to_f64(),
        DType::F16 => f16::from_bits(bits as u16).to_f64(),
        d if d.is_narrow_float() => d.narrow_format().expect("narrow").decode(bits as u8),
        _ => panic!("float_from_bits on non-float dtype {dtype}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounds_to_nearest_even() {
        // 1 + 2^-8 (exactly halfway) rounds to 1.0; f32::MAX overflows to inf.
        assert_eq!(round_to(DType::BF16, 1.00390625), 1.0);
        assert_eq!(round_to(DType::BF16, 1.01171875), 1.015625);
        assert_eq!(round_to(DType::BF16, f32::MAX as f64), f64::INFINITY);
        assert!(round_to(DType::BF16, f64::NAN).is_nan());
    }

    #[test]
    fn f16_overflow() {
        assert_eq!(round_to(DType::F16, 1e5), f64::INFINITY);
        assert_eq!(round_to(DType::F16, 65504.0), 65504.0);
    }

    #[test]
    fn wraps() {
        assert_eq!(wrap_signed(8, 128), -128);
        assert_eq!(wrap_signed(8, 300), 44);
        assert_eq!(wrap_signed(4, 8), -8);
        assert_eq!(wrap_unsigned(8, 256), 0);
        assert_eq!(wrap_unsigned(2, 7), 3);
    }

    #[test]
    fn saturating_conversions() {
        // Observed in JAX: f32 -> int32 of (nan, inf, -inf, 3e9, -3e9, 2.7, -2.7).
        let got: Vec<i64> = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            3e9,
            -3e9,
            2.7,
            -2.7,
        ]
        .iter()
        .map(|&x| float_to_signed(DType::I32, x))
        .collect();
        assert_eq!(
            got,
            vec![0, 2147483647, -2147483648, 2147483647, -2147483648, 2, -2]
        );
        let got: Vec<u64> = [300.0, -1.0, 255.9]
            .iter()
            .map(|&x| float_to_unsigned(DType::U8, x))
            .collect();
        assert_eq!(got, vec![255, 0, 255]);
    }

    #[test]
    fn the_spec_mode_keeps_subnormals_on_this_thread_only() {
        let kept = with_mode(Mode::Spec, || {
            let other = std::thread::spawn(|| flush_denormal(DType::F32, 1e-40))
                .join()
                .unwrap();
            (
                flush_denormal(DType::F32, -1e-40),
                arith_result(DType::F64, 1e-310),
                other,
            )
        });
        assert_eq!(kept, (-1e-40, 1e-310, 0.0));
        assert_eq!(flush_denormal(DType::F32, 1e-40), 0.0);
        let r = std::panic::catch_unwind(|| with_mode(Mode::Spec, || panic!("inside")));
        assert!(r.is_err());
        assert_eq!(mode(), Mode::XlaCpu, "restored after a panic");
        assert_eq!(Mode::parse("spec"), Some(Mode::Spec));
        assert_eq!(Mode::parse("xla"), Some(Mode::XlaCpu));
        assert_eq!(Mode::parse("ieee"), None);
    }

    #[test]
    fn flushes_denormals_but_not_f16() {
        assert_eq!(flush_denormal(DType::F32, 1e-40), 0.0);
        assert!(flush_denormal(DType::F32, -1e-40).is_sign_negative());
        assert_eq!(flush_denormal(DType::F16, 1e-7), 1e-7);
        assert_eq!(flush_denormal(DType::F32, 1e-30), 1e-30);
    }

    #[test]
    fn bits_round_trip() {
        for d in [DType::F16, DType::BF16, DType::F32, DType::F64] {
            assert_eq!(float_from_bits(d, float_to_bits(d, -1.5)), -1.5);
        }
        assert_eq!(float_to_bits(DType::F32, 1.0), 0x3f80_0000);
    }
}
