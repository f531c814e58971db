//! The numeric traits of the lane types: [`FloatLane`] (f32, f64) with XLA:CPU's
//! flush-to-zero and the math functions, [`Format`] (how a float dtype rounds inside its lane),
//! and [`IntLane`] (the integer lanes, with wrapping to a dtype's bit width).

use super::super::reg::LaneType;
use crate::kernels::math;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};
use systolic_ir::DType;

/// f32 or f64 lanes.
pub trait FloatLane:
    LaneType
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
{
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// A quiet NaN.
    const NAN: Self;
    /// Subnormals become zeros of the same sign (XLA:CPU's DAZ on inputs and FTZ on results).
    fn ftz(self) -> Self;
    /// An operand or the result of one arithmetic instruction (add, subtract, multiply,
    /// divide, fused multiply-add), flushed: by the hardware where kernels run with FTZ/DAZ
    /// set ([`crate::threads::hardware_flush`]), so nothing to do here; [`FloatLane::ftz`]
    /// elsewhere. Not for values made by moving bits (selects, sign tricks, bit-built
    /// results), which the hardware does not flush.
    #[inline(always)]
    fn daz(self) -> Self {
        if crate::threads::hardware_flush() {
            self
        } else {
            self.ftz()
        }
    }
    /// |x|.
    fn abs(self) -> Self;
    /// NaN test.
    fn is_nan(self) -> bool;
    /// Finite test.
    fn is_finite(self) -> bool;
    /// Sign bit set.
    fn is_sign_negative(self) -> bool;
    /// The magnitude of `self` with the sign of `sign`.
    fn copysign(self, sign: Self) -> Self;
    /// Rounds down.
    fn floor(self) -> Self;
    /// Rounds up.
    fn ceil(self) -> Self;
    /// Rounds half away from zero.
    fn round_afz(self) -> Self;
    /// Rounds half to even.
    fn round_even(self) -> Self;
    /// IEEE square root.
    fn sqrt(self) -> Self;
    /// e^x.
    fn exp(self) -> Self;
    /// e^x − 1.
    fn expm1(self) -> Self;
    /// ln x.
    fn ln(self) -> Self;
    /// ln(1 + x).
    fn ln1p(self) -> Self;
    /// 1/(1 + e^−x).
    fn logistic(self) -> Self;
    /// tanh x.
    fn tanh(self) -> Self;
    /// ∛x.
    fn cbrt(self) -> Self;
    /// 1/√x.
    fn rsqrt(self) -> Self;
    /// erf x.
    fn erf(self) -> Self;
    /// erf⁻¹ x.
    fn erf_inv(self) -> Self;
    /// sin x where [`FloatLane::trig_needs_library`] is false.
    fn sin_fast(self) -> Self;
    /// cos x, likewise.
    fn cos_fast(self) -> Self;
    /// tan x, likewise.
    fn tan_fast(self) -> Self;
    /// True when the fast trig functions do not cover `x`.
    fn trig_needs_library(self) -> bool;
    /// x^y where [`FloatLane::pow_needs_library`] is false.
    fn pow_fast(self, y: Self) -> Self;
    /// True when the fast pow does not cover (x, y).
    fn pow_needs_library(self, y: Self) -> bool;
    /// `f` evaluated in f64 and rounded to this lane.
    fn via_f64(self, f: fn(f64) -> f64) -> Self;
    /// `f` of two arguments evaluated in f64 and rounded to this lane.
    fn via_f64_2(self, y: Self, f: fn(f64, f64) -> f64) -> Self;
    /// The value as f64 (exact).
    fn to_f64(self) -> f64;
    /// An f64 rounded to this lane.
    fn from_f64(v: f64) -> Self;
    /// True unless ±0, read from the bits (a compare reads a subnormal as zero under DAZ;
    /// slow, for ops on bit patterns).
    fn nonzero_bits(self) -> bool;
    /// The lane's bit pattern.
    fn lane_bits(self) -> u64;
    /// A lane from its bit pattern.
    fn from_lane_bits(bits: u64) -> Self;
    /// The bit pattern of this lane's value as `dtype` (the lane's format: f32 lanes hold
    /// f32, bf16, f16 and the 8-bit floats; f64 lanes f64). f32 and bf16 come from the lane's
    /// own bits: through f64, the conversion instruction would read a subnormal as zero under
    /// DAZ; the narrower formats' values are normal f32s.
    #[inline]
    fn dtype_bits(self, dtype: DType) -> u64 {
        match dtype {
            DType::BF16 => self.lane_bits() >> 16,
            DType::F32 | DType::F64 => self.lane_bits(),
            other => systolic_ir::numerics::float_to_bits(other, self.to_f64()),
        }
    }
    /// The lane holding the `dtype` value with bit pattern `bits` (see
    /// [`FloatLane::dtype_bits`]).
    #[inline]
    fn from_dtype_bits(dtype: DType, bits: u64) -> Self {
        match dtype {
            DType::BF16 => Self::from_lane_bits(bits << 16),
            DType::F32 | DType::F64 => Self::from_lane_bits(bits),
            other => Self::from_f64(systolic_ir::numerics::float_from_bits(other, bits)),
        }
    }
    /// Truncation to i64, saturating, NaN → 0.
    fn to_i64_sat(self) -> i64;
    /// Truncation to u64, saturating, NaN → 0.
    fn to_u64_sat(self) -> u64;
    /// An i64 rounded to this lane (nearest even).
    fn from_i64(x: i64) -> Self;
    /// A u64 rounded to this lane (nearest even).
    fn from_u64(x: u64) -> Self;
    /// Integer key in the total order −NaN < −inf < … < −0 < +0 < … < inf < NaN.
    fn total_key(self) -> i64;
}

macro_rules! float_lane_common {
    ($t:ty, $bits:ty, $sbits:ty) => {
        const ZERO: Self = 0.0;
        const ONE: Self = 1.0;
        const NAN: Self = <$t>::NAN;
        #[inline(always)]
        fn ftz(self) -> Self {
            // On the bits: a zero exponent field (zero or subnormal) keeps only the sign. Two
            // vector instructions (test, masked and) where the float compare takes three, and
            // every float op flushes its inputs and result.
            let bits = self.to_bits();
            if bits & <$t>::INFINITY.to_bits() == 0 {
                <$t>::from_bits(bits & (-0.0 as $t).to_bits())
            } else {
                self
            }
        }
        #[inline(always)]
        fn abs(self) -> Self {
            <$t>::abs(self)
        }
        #[inline(always)]
        fn is_nan(self) -> bool {
            <$t>::is_nan(self)
        }
        #[inline(always)]
        fn is_finite(self) -> bool {
            <$t>::is_finite(self)
        }
        #[inline(always)]
        fn is_sign_negative(self) -> bool {
            <$t>::is_sign_negative(self)
        }
        #[inline(always)]
        fn copysign(self, sign: Self) -> Self {
            <$t>::copysign(self, sign)
        }
        #[inline(always)]
        fn floor(self) -> Self {
            <$t>::floor(self)
        }
        #[inline(always)]
        fn ceil(self) -> Self {
            <$t>::ceil(self)
        }
        #[inline(always)]
        fn round_afz(self) -> Self {
            <$t>::round(self)
        }
        #[inline(always)]
        fn round_even(self) -> Self {
            <$t>::round_ties_even(self)
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            <$t>::sqrt(self)
        }
        #[inline(always)]
        fn to_f64(self) -> f64 {
            self as f64
        }
        #[inline(always)]
        fn from_f64(v: f64) -> Self {
            v as $t
        }
        #[inline(always)]
        fn nonzero_bits(self) -> bool {
            // Behind `black_box`: LLVM rewrites this bit test into a float compare with zero
            // (equal under its default IEEE mode), which reads subnormals as zero under DAZ.
            std::hint::black_box(self.to_bits()) & !(-0.0 as $t).to_bits() != 0
        }
        #[inline(always)]
        fn lane_bits(self) -> u64 {
            self.to_bits() as u64
        }
        #[inline(always)]
        fn from_lane_bits(bits: u64) -> Self {
            <$t>::from_bits(bits as $bits)
        }
        #[inline(always)]
        fn to_i64_sat(self) -> i64 {
            self as i64
        }
        #[inline(always)]
        fn to_u64_sat(self) -> u64 {
            self as u64
        }
        #[inline(always)]
        fn from_i64(x: i64) -> Self {
            x as $t
        }
        #[inline(always)]
        fn from_u64(x: u64) -> Self {
            x as $t
        }
        #[inline(always)]
        fn total_key(self) -> i64 {
            let bits = self.to_bits() as $sbits;
            let key = bits ^ ((((bits >> (<$sbits>::BITS - 1)) as $bits) >> 1) as $sbits);
            key as i64
        }
    };
}

impl FloatLane for f32 {
    float_lane_common!(f32, u32, i32);
    #[inline(always)]
    fn exp(self) -> Self {
        math::exp(self)
    }
    #[inline(always)]
    fn expm1(self) -> Self {
        math::expm1(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        math::log(self)
    }
    #[inline(always)]
    fn ln1p(self) -> Self {
        math::log1p(self)
    }
    #[inline(always)]
    fn logistic(self) -> Self {
        math::logistic(self)
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        math::tanh(self)
    }
    #[inline(always)]
    fn cbrt(self) -> Self {
        math::cbrt(self)
    }
    #[inline(always)]
    fn rsqrt(self) -> Self {
        math::rsqrt(self)
    }
    #[inline(always)]
    fn erf(self) -> Self {
        math::erf(self)
    }
    #[inline(always)]
    fn erf_inv(self) -> Self {
        math::erf_inv(self)
    }
    #[inline(always)]
    fn sin_fast(self) -> Self {
        math::trig::sin_reduced(self)
    }
    #[inline(always)]
    fn cos_fast(self) -> Self {
        math::trig::cos_reduced(self)
    }
    #[inline(always)]
    fn tan_fast(self) -> Self {
        math::trig::tan_reduced(self)
    }
    #[inline(always)]
    fn trig_needs_library(self) -> bool {
        math::trig::needs_library(self)
    }
    #[inline(always)]
    fn pow_fast(self, y: Self) -> Self {
        math::special::pow_positive(self, y)
    }
    #[inline(always)]
    fn pow_needs_library(self, y: Self) -> bool {
        math::special::pow_needs_library(self, y)
    }
    #[inline(always)]
    fn via_f64(self, f: fn(f64) -> f64) -> Self {
        f(self as f64) as f32
    }
    #[inline(always)]
    fn via_f64_2(self, y: Self, f: fn(f64, f64) -> f64) -> Self {
        f(self as f64, y as f64) as f32
    }
}

impl FloatLane for f64 {
    float_lane_common!(f64, u64, i64);
    #[inline(always)]
    fn exp(self) -> Self {
        f64::exp(self)
    }
    #[inline(always)]
    fn expm1(self) -> Self {
        f64::exp_m1(self)
    }
    #[inline(always)]
    fn ln(self) -> Self {
        f64::ln(self)
    }
    #[inline(always)]
    fn ln1p(self) -> Self {
        f64::ln_1p(self)
    }
    #[inline(always)]
    fn logistic(self) -> Self {
        1.0 / (1.0 + (-self).exp())
    }
    #[inline(always)]
    fn tanh(self) -> Self {
        // Below 2^-28 tanh(x) rounds to x: pass the bits through (a subnormal would read as
        // zero in the library's arithmetic under DAZ).
        if self.abs() < 1.0 / 268_435_456.0 {
            self
        } else {
            f64::tanh(self)
        }
    }
    #[inline(always)]
    fn cbrt(self) -> Self {
        f64::cbrt(self)
    }
    #[inline(always)]
    fn rsqrt(self) -> Self {
        1.0 / self.sqrt()
    }
    #[inline(always)]
    fn erf(self) -> Self {
        systolic_interp::ops::chlo::special::erf(self)
    }
    #[inline(always)]
    fn erf_inv(self) -> Self {
        systolic_interp::ops::chlo::erf_inv_f64(self)
    }
    #[inline(always)]
    fn sin_fast(self) -> Self {
        f64::sin(self)
    }
    #[inline(always)]
    fn cos_fast(self) -> Self {
        f64::cos(self)
    }
    #[inline(always)]
    fn tan_fast(self) -> Self {
        f64::tan(self)
    }
    #[inline(always)]
    fn trig_needs_library(self) -> bool {
        false
    }
    #[inline(always)]
    fn pow_fast(self, y: Self) -> Self {
        f64::powf(self, y)
    }
    #[inline(always)]
    fn pow_needs_library(self, _y: Self) -> bool {
        false
    }
    #[inline(always)]
    fn via_f64(self, f: fn(f64) -> f64) -> Self {
        f(self)
    }
    #[inline(always)]
    fn via_f64_2(self, y: Self, f: fn(f64, f64) -> f64) -> Self {
        f(self, y)
    }
}

/// A float dtype as its lane sees it: how a result is rounded back to the dtype.
pub trait Format: 'static {
    /// The lane the dtype computes in.
    type L: FloatLane;
    /// The dtype.
    const DTYPE: DType;
    /// Rounds a lane value to the dtype (nearest even; no flushing).
    fn round(x: Self::L) -> Self::L;
    /// The result of an arithmetic op: rounded to the dtype, then flushed (XLA:CPU's FTZ).
    #[inline(always)]
    fn finish(x: Self::L) -> Self::L {
        Self::round(x).ftz()
    }
    /// [`Format::finish`] for a result made by one arithmetic instruction, or by a function
    /// whose last step is one (see [`FloatLane::daz`]): the hardware flushed it already.
    /// Rounding to bf16 cannot make a flushed f32 subnormal (same exponent range); to f16 it
    /// can, and `finish` keeps those too (it flushes f32 subnormals only).
    #[inline(always)]
    fn finish_arith(x: Self::L) -> Self::L {
        Self::round(x).daz()
    }
}

/// f32 values in f32 lanes.
pub struct F32Format;
/// f64 values in f64 lanes.
pub struct F64Format;
/// bf16 values in f32 lanes.
pub struct Bf16Format;
/// f16 values in f32 lanes.
pub struct F16Format;

impl Format for F32Format {
    type L = f32;
    const DTYPE: DType = DType::F32;
    #[inline(always)]
    fn round(x: f32) -> f32 {
        x
    }
}

impl Format for F64Format {
    type L = f64;
    const DTYPE: DType = DType::F64;
    #[inline(always)]
    fn round(x: f64) -> f64 {
        x
    }
}

impl Format for Bf16Format {
    type L = f32;
    const DTYPE: DType = DType::BF16;
    #[inline(always)]
    fn round(x: f32) -> f32 {
        round_to_bf16(x)
    }
}

impl Format for F16Format {
    type L = f32;
    const DTYPE: DType = DType::F16;
    #[inline(always)]
    fn round(x: f32) -> f32 {
        half::f16::from_f32(x).to_f32()
    }
}

/// f32 → bf16 → f32 on the bits, nearest even, as `half::bf16::from_f32` (NaN stays a quiet
/// NaN with its sign); branch-free so loops vectorise.
#[inline(always)]
pub fn round_to_bf16(x: f32) -> f32 {
    let b = x.to_bits();
    let rounded = b.wrapping_add(0x7fff + ((b >> 16) & 1)) & 0xffff_0000;
    let nan = (b | 0x0040_0000) & 0xffff_0000;
    f32::from_bits(if x.is_nan() { nan } else { rounded })
}

/// The bf16 nearest (ties to even) to `x`, as its bits: [`round_to_bf16`]'s upper half.
#[inline(always)]
pub fn bf16_bits(x: f32) -> u16 {
    (round_to_bf16(x).to_bits() >> 16) as u16
}

/// Integer lanes. Values of a narrower dtype (i2, i4, u2, u4) are kept sign- or zero-extended
/// from their width; [`wrap`] restores that after an op.
pub trait IntLane: LaneType + Ord + Eq {
    /// Signed type.
    const SIGNED: bool;
    /// Width of the lane in bits.
    const WIDTH: u32;
    /// The two's complement bit pattern, zero-extended to 64 bits.
    fn to_u64(self) -> u64;
    /// The low bits of a pattern.
    fn from_u64(bits: u64) -> Self;
    /// The value as i64 (unsigned 64-bit values above i64::MAX wrap).
    fn to_i64(self) -> i64;
    /// The value rounded to f32.
    fn to_f32(self) -> f32;
    /// The value rounded to f64.
    fn to_f64(self) -> f64;
    /// Wrapping +.
    fn wadd(self, b: Self) -> Self;
    /// Wrapping −.
    fn wsub(self, b: Self) -> Self;
    /// Wrapping ×.
    fn wmul(self, b: Self) -> Self;
    /// Wrapping negation.
    fn wneg(self) -> Self;
    /// Wrapping |x|.
    fn wabs(self) -> Self;
    /// Division truncating toward zero (`b` is neither 0 nor −1 with the minimum).
    fn div(self, b: Self) -> Self;
    /// Remainder with the dividend's sign (same precondition).
    fn rem(self, b: Self) -> Self;
    /// Bitwise and.
    fn band(self, b: Self) -> Self;
    /// Bitwise or.
    fn bor(self, b: Self) -> Self;
    /// Bitwise xor.
    fn bxor(self, b: Self) -> Self;
    /// Bitwise not.
    fn bnot(self) -> Self;
    /// −1, 0 or 1 (0 or 1 for unsigned).
    fn sign(self) -> Self;
}

macro_rules! int_lane {
    ($t:ty, $unsigned:ty, $signed:tt) => {
        impl IntLane for $t {
            const SIGNED: bool = $signed;
            const WIDTH: u32 = <$t>::BITS;
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as $unsigned as u64
            }
            #[inline(always)]
            fn from_u64(bits: u64) -> Self {
                bits as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn to_f32(self) -> f32 {
                self as f32
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn wadd(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            #[inline(always)]
            fn wsub(self, b: Self) -> Self {
                self.wrapping_sub(b)
            }
            #[inline(always)]
            fn wmul(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            #[inline(always)]
            fn wneg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline(always)]
            fn wabs(self) -> Self {
                int_lane!(@abs $signed, self)
            }
            #[inline(always)]
            fn div(self, b: Self) -> Self {
                self.wrapping_div(b)
            }
            #[inline(always)]
            fn rem(self, b: Self) -> Self {
                self.wrapping_rem(b)
            }
            #[inline(always)]
            fn band(self, b: Self) -> Self {
                self & b
            }
            #[inline(always)]
            fn bor(self, b: Self) -> Self {
                self | b
            }
            #[inline(always)]
            fn bxor(self, b: Self) -> Self {
                self ^ b
            }
            #[inline(always)]
            fn bnot(self) -> Self {
                !self
            }
            #[inline(always)]
            fn sign(self) -> Self {
                int_lane!(@sign $signed, self)
            }
        }
    };
    (@abs true, $x:expr) => { $x.wrapping_abs() };
    (@abs false, $x:expr) => { $x };
    (@sign true, $x:expr) => { $x.signum() };
    (@sign false, $x:expr) => { ($x > 0) as Self };
}

int_lane!(i8, u8, true);
int_lane!(i16, u16, true);
int_lane!(i32, u32, true);
int_lane!(i64, u64, true);
int_lane!(u8, u8, false);
int_lane!(u16, u16, false);
int_lane!(u32, u32, false);
int_lane!(u64, u64, false);

/// All ones in the low `bits` bits.
#[inline(always)]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A `bits`-bit pattern sign-extended to 64 bits.
#[inline(always)]
pub fn sign_extend(pattern: u64, bits: u32) -> i64 {
    if bits >= 64 {
        pattern as i64
    } else {
        ((pattern << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// Restores the invariant of a `BITS`-bit dtype held in a wider lane after an op.
#[inline(always)]
pub fn wrap<T: IntLane, const BITS: u32>(x: T) -> T {
    if BITS >= T::WIDTH {
        x
    } else if T::SIGNED {
        T::from_u64(sign_extend(x.to_u64() & mask(BITS), BITS) as u64)
    } else {
        T::from_u64(x.to_u64() & mask(BITS))
    }
}
