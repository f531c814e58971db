//! Elementwise ops on complex lanes (`complex<f32>` in [`Complex32`], `complex<f64>` in
//! [`Complex64`]) as instruction bodies, computing what the reference interpreter computes bit
//! for bit: every op widens its operands to `Complex64`, calls the interpreter's own function
//! for it (`systolic_interp::ops::elementwise::complex`, the CHLO ops' `complex_fn`, or the
//! same `num_complex` method the interpreter's table names), and rounds each part of the
//! result to the lane's parts with XLA:CPU's flush of subnormals, as
//! `numerics::complex_result` does. The functions are plain Rust (libm and `num_complex`), so
//! the same inputs give the same bits here and there; `tests` below checks every op of the
//! interpreter's tables against these bodies.
//!
//! The bodies run with the thread's FTZ/DAZ bits cleared ([`DenormalMode::ieee`], once per
//! block): the interpreter computes complex ops in IEEE arithmetic and flushes only the
//! rounded parts, and Smith's division or `hypot` of a `complex<f64>` pass through subnormal
//! intermediates that the hardware flush would zero.
//!
//! Conversions between complex and real dtypes are two instructions (the planner's
//! [`convert_steps`]): complex → x takes the real part and converts it as a float of the
//! parts' dtype; x → complex converts to the parts' dtype and pairs it with a zero.

use super::Body;
use crate::kernels::fusion::reg::{lanes, lanes_mut, Fn1, Fn2, LaneType, Reg};
use crate::kernels::math::simd::{any, map1, map2};
use crate::kernels::math::wide;
use crate::threads::DenormalMode;
use num_complex::{Complex32, Complex64};
use std::cmp::Ordering;
use systolic_interp::ops::elementwise::complex as reference;
use systolic_ir::{BinaryOp, ChloUnaryOp, ComparisonDirection, DType, UnaryOp};

/// A complex lane: the conversions between its values and the interpreter's `Complex64`.
pub trait ComplexLane: LaneType {
    /// The lane of its parts (`f32`, `f64`).
    type Part: LaneType;
    /// The value, exactly.
    fn widen(self) -> Complex64;
    /// The value with subnormal parts read as zeros (XLA:CPU's DAZ, as the interpreter reads
    /// a product's operands).
    fn widen_flushed(self) -> Complex64;
    /// True when both parts are finite.
    fn is_finite(self) -> bool;
    /// `z` with each part rounded to the parts' dtype and flushed (XLA:CPU's FTZ), as
    /// `numerics::complex_result` rounds an op's result.
    fn rounded(z: Complex64) -> Self;
    /// The real part, as it is (`real`, a move).
    fn re(self) -> Self::Part;
    /// The imaginary part, as it is.
    fn im(self) -> Self::Part;
    /// The number with these parts (`complex`, a move).
    fn from_parts(re: Self::Part, im: Self::Part) -> Self;
    /// The conjugate (a move: not rounded nor flushed, as the interpreter's `conj`).
    fn conj(self) -> Self;
    /// `out[i] = |a[i]|`: the interpreter's `hypot` rounded to the parts' dtype and flushed.
    fn abs_block(a: &[Self], out: &mut [Self::Part]);
    /// `out[i] = op(a[i])`: the interpreter's function for `op` rounded and flushed.
    fn wide_block(op: WideOp, a: &[Self], out: &mut [Self]);
}

/// The ops whose `complex<f32>` values come from [`wide`]'s polynomials (see
/// [`ComplexLane::wide_block`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideOp {
    /// `exponential`.
    Exp,
    /// `sine`.
    Sin,
    /// `cosine`.
    Cos,
}

impl WideOp {
    /// The interpreter's function (its `complex::unary_fn` table's).
    fn reference(self) -> fn(Complex64) -> Complex64 {
        match self {
            WideOp::Exp => Complex64::exp,
            WideOp::Sin => Complex64::sin,
            WideOp::Cos => Complex64::cos,
        }
    }
}

/// The f64 value of `exp(z)` for a `complex<f32>` by [`wide`]'s polynomials, `e^re·cos im` and
/// `e^re·sin im` as `Complex64::exp` forms them (`from_polar`), each within a few f64 ulps of
/// the library's; NaN parts where the polynomials do not apply (see [`settled`]).
#[inline(always)]
pub fn exp_wide(z: Complex32) -> Complex64 {
    let (x, y) = (z.re as f64, z.im as f64);
    let e = wide::exp(x);
    let (s, c, usable) = wide::sin_cos(y);
    let ok = usable && (wide::EXP_MIN..=wide::EXP_MAX).contains(&x) && wide::in_trig_range(y);
    if ok {
        Complex64::new(e * c, e * s)
    } else {
        Complex64::new(f64::NAN, f64::NAN)
    }
}

/// The f64 value of `sin(z)` for a `complex<f32>` as `Complex64::sin` forms it,
/// `sin re·cosh im` and `cos re·sinh im`, by [`wide`]'s polynomials; NaN parts where they do
/// not apply.
#[inline(always)]
pub fn sin_wide(z: Complex32) -> Complex64 {
    trig_wide(z, |(s, c), (sh, ch)| Complex64::new(s * ch, c * sh))
}

/// The f64 value of `cos(z)` for a `complex<f32>` as `Complex64::cos` forms it,
/// `cos re·cosh im` and `−sin re·sinh im`; NaN parts where the polynomials do not apply.
#[inline(always)]
pub fn cos_wide(z: Complex32) -> Complex64 {
    trig_wide(z, |(s, c), (sh, ch)| Complex64::new(c * ch, -s * sh))
}

/// `combine((sin re, cos re), (sinh im, cosh im))` from [`wide`]'s polynomials where they
/// apply to `z`, NaN parts elsewhere: what [`sin_wide`] and [`cos_wide`] share.
#[inline(always)]
fn trig_wide(z: Complex32, combine: impl Fn((f64, f64), (f64, f64)) -> Complex64) -> Complex64 {
    let (x, y) = (z.re as f64, z.im as f64);
    let (s, c, usable) = wide::sin_cos(x);
    let hyperbolic = wide::sinh_cosh(y);
    if usable && wide::in_trig_range(x) && y.abs() <= wide::HYPERBOLIC_MAX {
        combine((s, c), hyperbolic)
    } else {
        Complex64::new(f64::NAN, f64::NAN)
    }
}

/// The f32 part `v` (a part of [`exp_wide`], [`sin_wide`] or [`cos_wide`]) rounds to,
/// flushed, when the library's value (within [`wide::ERROR_ULPS`] of `v`) must round the same
/// way: `v` lies more than [`MARGIN`] f64 ulps from an f32 rounding midpoint (f32's overflow
/// threshold is one) and is normal in f32 with room to spare, or so small that both flush to
/// the zero of its sign. `None` otherwise (and for NaN `v`).
#[inline(always)]
fn settled_part(v: f64) -> Option<f32> {
    (!unsettled_part(v)).then(|| rounded_part(v))
}

/// True when [`settled_part`] declines `v` (branch-free, vectorisable).
#[inline(always)]
fn unsettled_part(v: f64) -> bool {
    const MIDPOINT: u64 = 1 << 28;
    let small = f32::MIN_POSITIVE as f64;
    let a = v.abs();
    // The 29 mantissa bits f32 drops: an f32 midpoint has exactly the top one.
    let dropped = v.to_bits() & ((1 << 29) - 1);
    let clear = a >= 2.0 * small && dropped.abs_diff(MIDPOINT) > MARGIN;
    // NaN fails both comparisons.
    !(clear || a <= 0.25 * small)
}

/// What [`settled_part`] gives where it settles `v`: `v` rounded to f32, a tiny value as the
/// zero of its sign (branch-free, vectorisable).
#[inline(always)]
fn rounded_part(v: f64) -> f32 {
    let r = v as f32;
    if v.abs() <= 0.25 * f32::MIN_POSITIVE as f64 {
        0.0f32.copysign(r)
    } else {
        r
    }
}

/// How far (in f64 ulps of the value) a polynomial part must be from an f32 midpoint to be
/// rounded as it is: eight times [`wide::ERROR_ULPS`] (one in 2^21 parts is recomputed).
pub const MARGIN: u64 = 8 * wide::ERROR_ULPS;

/// The op's value as the interpreter gives it (rounded, flushed) from its polynomial value
/// `v` (`exp_wide(z)`, …), when `v` settles both parts (see [`settled_part`]); `None` sends
/// `z` to the library.
#[inline(always)]
pub fn settled(v: Complex64) -> Option<Complex32> {
    Some(Complex32::new(settled_part(v.re)?, settled_part(v.im)?))
}

/// A subnormal f32 as the zero of its sign (the integer test is right in any MXCSR mode).
#[inline(always)]
fn flush32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// A subnormal f64 as the zero of its sign.
#[inline(always)]
fn flush64(x: f64) -> f64 {
    if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

impl ComplexLane for Complex32 {
    type Part = f32;
    #[inline(always)]
    fn widen(self) -> Complex64 {
        Complex64::new(self.re as f64, self.im as f64)
    }
    #[inline(always)]
    fn widen_flushed(self) -> Complex64 {
        Complex64::new(flush32(self.re) as f64, flush32(self.im) as f64)
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }
    #[inline(always)]
    fn rounded(z: Complex64) -> Self {
        Complex32::new(flush32(z.re as f32), flush32(z.im as f32))
    }
    #[inline(always)]
    fn re(self) -> f32 {
        self.re
    }
    #[inline(always)]
    fn im(self) -> f32 {
        self.im
    }
    #[inline(always)]
    fn from_parts(re: f32, im: f32) -> Self {
        Complex32::new(re, im)
    }
    #[inline(always)]
    fn conj(self) -> Self {
        Complex32::new(self.re, -self.im)
    }
    /// See [`super::complex_abs`]: correctly rounded in vector code, `hypot` for a few lanes
    /// in a million.
    fn abs_block(a: &[Self], out: &mut [f32]) {
        super::complex_abs::abs_block(a, out);
    }
    /// The op's polynomial value ([`exp_wide`], [`sin_wide`], [`cos_wide`]) on a block,
    /// vectorised, then each element settled by [`settled`] or (infinite or NaN parts, parts
    /// out of the polynomials' ranges, near an f32 midpoint or the subnormal range) recomputed
    /// with the interpreter's function. libm's `exp`, `sin` and `cos` on every element took
    /// 11 ms for 1M elements of `exp`.
    ///
    /// The polynomials are passed as `#[inline(always)]` closures calling them: passed as
    /// function items, one build left their `Fn::call` shims out of line, so the vector loop
    /// called them per element and their `mul_add`s became calls of libm's software `fma`
    /// (53 ms for 1M elements of `exp` instead of 2). So the closures are not redundant.
    #[allow(clippy::redundant_closure)]
    fn wide_block(op: WideOp, a: &[Self], out: &mut [Self]) {
        let reference = op.reference();
        match op {
            WideOp::Exp => settle_block(
                a,
                out,
                #[inline(always)]
                |z| exp_wide(z),
                reference,
            ),
            WideOp::Sin => settle_block(
                a,
                out,
                #[inline(always)]
                |z| sin_wide(z),
                reference,
            ),
            WideOp::Cos => settle_block(
                a,
                out,
                #[inline(always)]
                |z| cos_wide(z),
                reference,
            ),
        }
    }
}

/// See [`ComplexLane::wide_block`] of `complex<f32>`: `polynomial` vectorised over a block,
/// `reference` where [`settled`] declines. `polynomial` is wrapped in an `#[inline(always)]`
/// closure for the vector loop (see `wide_block`).
#[inline(always)]
#[allow(clippy::redundant_closure)]
fn settle_block(
    a: &[Complex32],
    out: &mut [Complex32],
    polynomial: impl Fn(Complex32) -> Complex64 + Copy,
    reference: fn(Complex64) -> Complex64,
) {
    const BLOCK: usize = crate::kernels::fusion::exec::BLOCK;
    let mut wide = [Complex64::new(0.0, 0.0); BLOCK];
    for (a, out) in a.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
        let wide = &mut wide[..a.len()];
        map1(
            a,
            wide,
            #[inline(always)]
            |z| polynomial(z),
        );
        // Every lane rounded as if settled, then the rare others patched: both passes
        // vectorise (a branch per element in one loop did not).
        map1(
            wide,
            out,
            #[inline(always)]
            |v: Complex64| Complex32::new(rounded_part(v.re), rounded_part(v.im)),
        );
        patch_unsettled(a, wide, out, |z| Complex32::rounded(reference(z.widen())));
    }
}

/// Lanes per test in [`patch_unsettled`].
const PATCH: usize = 64;

/// `out[i] = fix(a[i])` wherever a part of `wide[i]` is unsettled ([`unsettled_part`]): each
/// run of [`PATCH`] lanes is tested first (vector code), and patched lane by lane only when it
/// holds one.
#[inline(always)]
fn patch_unsettled(
    a: &[Complex32],
    wide: &[Complex64],
    out: &mut [Complex32],
    fix: impl Fn(Complex32) -> Complex32,
) {
    let unsettled = |v: Complex64| unsettled_part(v.re) | unsettled_part(v.im);
    for ((a, wide), out) in a
        .chunks(PATCH)
        .zip(wide.chunks(PATCH))
        .zip(out.chunks_mut(PATCH))
    {
        if any(wide, unsettled) {
            for ((o, &v), &z) in out.iter_mut().zip(wide).zip(a) {
                if unsettled(v) {
                    *o = fix(z);
                }
            }
        }
    }
}

impl ComplexLane for Complex64 {
    type Part = f64;
    #[inline(always)]
    fn widen(self) -> Complex64 {
        self
    }
    #[inline(always)]
    fn widen_flushed(self) -> Complex64 {
        Complex64::new(flush64(self.re), flush64(self.im))
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }
    #[inline(always)]
    fn rounded(z: Complex64) -> Self {
        Complex64::new(flush64(z.re), flush64(z.im))
    }
    #[inline(always)]
    fn re(self) -> f64 {
        self.re
    }
    #[inline(always)]
    fn im(self) -> f64 {
        self.im
    }
    #[inline(always)]
    fn from_parts(re: f64, im: f64) -> Self {
        Complex64::new(re, im)
    }
    #[inline(always)]
    fn conj(self) -> Self {
        Complex64::new(self.re, -self.im)
    }
    fn abs_block(a: &[Self], out: &mut [f64]) {
        map1(
            a,
            out,
            #[inline(always)]
            |z: Complex64| flush64(z.re.hypot(z.im)),
        );
    }
    fn wide_block(op: WideOp, a: &[Self], out: &mut [Self]) {
        let f = op.reference();
        map1(
            a,
            out,
            #[inline(always)]
            |z: Complex64| Self::rounded(f(z)),
        );
    }
}

/// `with_complex!(dtype, C => body)`: `body` with `C` the lane of a complex dtype; `None` for
/// other dtypes.
macro_rules! with_complex {
    ($dtype:expr, $C:ident => $body:expr) => {
        match $dtype {
            DType::C64 => {
                type $C = Complex32;
                Some($body)
            }
            DType::C128 => {
                type $C = Complex64;
                Some($body)
            }
            _ => None,
        }
    };
}

/// `out = round(f(widen(a)))` on complex lanes `C`, in IEEE mode.
macro_rules! c1 {
    ($C:ty, $f:expr) => {
        (|a: &Reg, o: &mut Reg, n: usize| {
            let _ieee = DenormalMode::ieee();
            map1(
                lanes::<$C>(a, n),
                lanes_mut::<$C>(o, n),
                #[inline(always)]
                |z: $C| <$C>::rounded($f(z.widen())),
            )
        }) as Fn1
    };
}

/// [`ComplexLane::wide_block`] of `op` on complex lanes `C`, in IEEE mode.
macro_rules! wide_op {
    ($C:ty, $op:expr) => {
        (|a: &Reg, o: &mut Reg, n: usize| {
            let _ieee = DenormalMode::ieee();
            <$C>::wide_block($op, lanes::<$C>(a, n), lanes_mut::<$C>(o, n))
        }) as Fn1
    };
}

/// `out = round(f(widen(a), widen(b)))` on complex lanes `C`, in IEEE mode.
macro_rules! c2 {
    ($C:ty, $f:expr) => {
        (|a: &Reg, b: &Reg, o: &mut Reg, n: usize| {
            let _ieee = DenormalMode::ieee();
            map2(
                lanes::<$C>(a, n),
                lanes::<$C>(b, n),
                lanes_mut::<$C>(o, n),
                #[inline(always)]
                |x: $C, y: $C| <$C>::rounded($f(x.widen(), y.widen())),
            )
        }) as Fn2
    };
}

/// A move on lanes: `out = f(a)` from lanes `S` to lanes `D`, nothing rounded.
macro_rules! moved {
    ($S:ty, $D:ty, $f:expr) => {
        (|a: &Reg, o: &mut Reg, n: usize| {
            map1(
                lanes::<$S>(a, n),
                lanes_mut::<$D>(o, n),
                #[inline(always)]
                |z: $S| -> $D { $f(z) },
            )
        }) as Fn1
    };
}

/// The body of a unary op on complex dtype `dtype` (`abs`, `real` and `imag` give the parts'
/// lane), or `None` where the spec does not define it (`floor`, `is_finite`, …). The functions
/// are the interpreter's `complex::unary_fn` table's.
pub fn unary(op: UnaryOp, dtype: DType) -> Option<Body> {
    with_complex!(dtype, C => unary_of::<C>(op))
        .flatten()
        .map(Body::One)
}

fn unary_of<C: ComplexLane>(op: UnaryOp) -> Option<Fn1> {
    use UnaryOp::*;
    Some(match op {
        Abs => {
            (|a: &Reg, o: &mut Reg, n: usize| {
                let _ieee = DenormalMode::ieee();
                C::abs_block(lanes::<C>(a, n), lanes_mut::<C::Part>(o, n))
            }) as Fn1
        }
        Real => moved!(C, C::Part, |z: C| z.re()),
        Imag => moved!(C, C::Part, |z: C| z.im()),
        Negate => c1!(C, |z: Complex64| -z),
        Sign => c1!(C, reference::sign),
        Exponential => wide_op!(C, WideOp::Exp),
        ExponentialMinusOne => c1!(C, reference::exp_m1),
        Log => c1!(C, Complex64::ln),
        LogPlusOne => c1!(C, reference::ln_1p),
        Logistic => c1!(C, reference::logistic),
        Sqrt => c1!(C, Complex64::sqrt),
        Rsqrt => c1!(C, reference::rsqrt),
        Cbrt => c1!(C, reference::cbrt),
        Sine => wide_op!(C, WideOp::Sin),
        Cosine => wide_op!(C, WideOp::Cos),
        Tan => c1!(C, Complex64::tan),
        Tanh => c1!(C, Complex64::tanh),
        Ceil | CountLeadingZeros | Floor | IsFinite | Not | Popcnt | RoundNearestAfz
        | RoundNearestEven => return None,
    })
}

/// The body of a binary op on complex dtype `dtype` (`None` where the spec does not define
/// it: `remainder`, bitwise ops). The functions are the interpreter's `complex::binary_fn`
/// table's.
pub fn binary(op: BinaryOp, dtype: DType) -> Option<Body> {
    with_complex!(dtype, C => binary_of::<C>(op))
        .flatten()
        .map(Body::Two)
}

fn binary_of<C: ComplexLane>(op: BinaryOp) -> Option<Fn2> {
    use BinaryOp::*;
    Some(match op {
        Add => c2!(C, |a: Complex64, b: Complex64| a + b),
        Subtract => c2!(C, |a: Complex64, b: Complex64| a - b),
        Multiply => c2!(C, |a: Complex64, b: Complex64| a * b),
        Divide => c2!(C, reference::divide),
        Power => c2!(C, reference::power),
        Atan2 => c2!(C, reference::atan2),
        Maximum => c2!(C, |a, b| reference::extremum(a, b, Ordering::Greater)),
        Minimum => c2!(C, |a, b| reference::extremum(a, b, Ordering::Less)),
        And | Or | Xor | Remainder | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical
        | Complex => return None,
    })
}

/// `complex(re, im)` of two real operands of dtype `part` (f32 or f64): a move, nothing
/// rounded, as the interpreter's `make_complex`.
pub fn make_complex(part: DType) -> Option<Body> {
    let f: Fn2 = match part {
        DType::F32 => make_complex_of::<Complex32>(),
        DType::F64 => make_complex_of::<Complex64>(),
        _ => return None,
    };
    Some(Body::Two(f))
}

fn make_complex_of<C: ComplexLane>() -> Fn2 {
    |a, b, o, n| {
        map2(
            lanes::<C::Part>(a, n),
            lanes::<C::Part>(b, n),
            lanes_mut::<C>(o, n),
            #[inline(always)]
            |re, im| C::from_parts(re, im),
        )
    }
}

/// The body of a CHLO unary op on complex dtype `dtype`: `conj` (a move), and the holomorphic
/// functions JAX emits (`square`, `sinh`, `asin`, …), the interpreter's CHLO `complex_fn`
/// table's.
pub fn chlo_unary(op: ChloUnaryOp, dtype: DType) -> Option<Body> {
    with_complex!(dtype, C => chlo_unary_of::<C>(op))
        .flatten()
        .map(Body::One)
}

fn chlo_unary_of<C: ComplexLane>(op: ChloUnaryOp) -> Option<Fn1> {
    use ChloUnaryOp::*;
    Some(match op {
        Conj => moved!(C, C, |z: C| z.conj()),
        Square => c1!(C, |z: Complex64| z * z),
        Sinh => c1!(C, Complex64::sinh),
        Cosh => c1!(C, Complex64::cosh),
        Tan => c1!(C, Complex64::tan),
        Asin => c1!(C, Complex64::asin),
        Acos => c1!(C, Complex64::acos),
        Atan => c1!(C, Complex64::atan),
        Asinh => c1!(C, Complex64::asinh),
        Acosh => c1!(C, Complex64::acosh),
        Atanh => c1!(C, Complex64::atanh),
        BesselI1e | Digamma | Erf | Erfc | ErfInv | Lgamma | IsInf | IsNegInf | IsPosInf => {
            return None
        }
    })
}

/// `compare` on complex dtype `dtype`: the interpreter's lexicographic order, with the parts
/// in IEEE total order when `total`.
pub fn compare(direction: ComparisonDirection, total: bool, dtype: DType) -> Option<Body> {
    with_complex!(dtype, C => compare_of::<C>(direction, total)).map(Body::Two)
}

fn compare_of<C: ComplexLane>(direction: ComparisonDirection, total: bool) -> Fn2 {
    use ComparisonDirection::*;
    macro_rules! cmp {
        ($dir:expr, $total:expr) => {
            (|a: &Reg, b: &Reg, o: &mut Reg, n: usize| {
                let _ieee = DenormalMode::ieee();
                map2(
                    lanes::<C>(a, n),
                    lanes::<C>(b, n),
                    lanes_mut::<bool>(o, n),
                    #[inline(always)]
                    |x: C, y: C| reference::compare($dir, x.widen(), y.widen(), $total),
                )
            }) as Fn2
        };
    }
    match (direction, total) {
        (Eq, false) => cmp!(Eq, false),
        (Ne, false) => cmp!(Ne, false),
        (Lt, false) => cmp!(Lt, false),
        (Le, false) => cmp!(Le, false),
        (Gt, false) => cmp!(Gt, false),
        (Ge, false) => cmp!(Ge, false),
        (Eq, true) => cmp!(Eq, true),
        (Ne, true) => cmp!(Ne, true),
        (Lt, true) => cmp!(Lt, true),
        (Le, true) => cmp!(Le, true),
        (Gt, true) => cmp!(Gt, true),
        (Ge, true) => cmp!(Ge, true),
    }
}

/// `convert` between the complex dtypes, part by part as the interpreter's `float_to_float`:
/// f32 → f64 reads subnormals as zero; f64 → f32 flushes, rounds and flushes again.
pub fn convert(from: DType, to: DType) -> Option<Body> {
    let f: Fn1 = match (from, to) {
        (DType::C64, DType::C64) => moved!(Complex32, Complex32, |z: Complex32| z),
        (DType::C128, DType::C128) => moved!(Complex64, Complex64, |z: Complex64| z),
        (DType::C64, DType::C128) => moved!(Complex32, Complex64, |z: Complex32| {
            Complex64::new(flush32(z.re) as f64, flush32(z.im) as f64)
        }),
        (DType::C128, DType::C64) => moved!(Complex64, Complex32, |z: Complex64| {
            Complex32::new(flush32(flush64(z.re) as f32), flush32(flush64(z.im) as f32))
        }),
        _ => return None,
    };
    Some(Body::One(f))
}

/// A real value of the parts' dtype as a complex number with imaginary part 0 (the second
/// step of a real → complex `convert`).
pub fn from_real(to: DType) -> Option<Body> {
    let f: Fn1 = match to {
        DType::C64 => moved!(f32, Complex32, |x: f32| Complex32::new(x, 0.0)),
        DType::C128 => moved!(f64, Complex64, |x: f64| Complex64::new(x, 0.0)),
        _ => return None,
    };
    Some(Body::One(f))
}

/// A `convert` that involves a complex dtype and a real one as two instructions, each with
/// the dtype it yields: complex → x is `real` then the real conversion from the parts' dtype;
/// x → complex is the real conversion to the parts' dtype then [`from_real`]. `None` for
/// other pairs (and for conversions the loop kernels lack).
pub fn convert_steps(from: DType, to: DType) -> Option<[(Body, DType); 2]> {
    match (from.is_complex(), to.is_complex()) {
        (true, false) => {
            let part = from.component()?;
            let real = unary(UnaryOp::Real, from)?;
            let rest = super::resolve(&systolic_ir::OpKind::Convert, &[part], to)?;
            Some([(real, part), (rest, to)])
        }
        (false, true) => {
            let part = to.component()?;
            let first = super::resolve(&systolic_ir::OpKind::Convert, &[from], part)?;
            Some([(first, part), (from_real(to)?, to)])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::fusion::reg::Lane;
    use systolic_interp::ops::chlo::complex_fn;

    /// Parts that exercise every branch of the reference functions: zeros of both signs,
    /// subnormals of f32 and f64, tiny and huge values (Smith's division, `hypot`, overflow in
    /// `exp`), infinities and NaN, ordinary numbers.
    const PARTS: [f64; 16] = [
        0.0,
        -0.0,
        1e-40,
        -3e-310,
        1e-20,
        0.5,
        -1.25,
        2.0,
        3.5,
        -80.0,
        1e30,
        3.0e38,
        -1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];

    /// Every pair of [`PARTS`] as a complex value of `dtype` (parts rounded to it).
    fn values(dtype: DType) -> Vec<Complex64> {
        let round = |x: f64| {
            if dtype == DType::C64 {
                x as f32 as f64
            } else {
                x
            }
        };
        PARTS
            .iter()
            .flat_map(|&re| {
                PARTS
                    .iter()
                    .map(move |&im| Complex64::new(round(re), round(im)))
            })
            .collect()
    }

    fn reg_of(dtype: DType, zs: &[Complex64]) -> Reg {
        match dtype {
            DType::C64 => Reg::C64(
                zs.iter()
                    .map(|z| Complex32::new(z.re as f32, z.im as f32))
                    .collect::<Vec<_>>()
                    .into(),
            ),
            _ => Reg::C128(zs.to_vec().into()),
        }
    }

    /// Lane `i` of a complex or real result as the bits of its parts (NaNs as one pattern).
    fn bits(reg: &Reg, i: usize) -> (u64, u64) {
        let b = |x: f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
        match reg {
            Reg::C64(v) => (b(v[i].re as f64), b(v[i].im as f64)),
            Reg::C128(v) => (b(v[i].re), b(v[i].im)),
            Reg::F32(v) => (b(v[i] as f64), 0),
            Reg::F64(v) => (b(v[i]), 0),
            Reg::Bool(v) => (v[i] as u64, 0),
            _ => unreachable!("no complex, float or bool result"),
        }
    }

    /// `f` in IEEE mode, as the interpreter runs (the fallback's threads).
    fn ieee<R>(f: impl FnOnce() -> R) -> R {
        let _ieee = DenormalMode::ieee();
        f()
    }

    /// The interpreter's result as the same bits.
    fn want(dtype: DType, z: Complex64) -> (u64, u64) {
        let z = ieee(|| reference::rounded(dtype, z));
        let b = |x: f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
        (b(z.re), b(z.im))
    }

    /// Runs the checks on this thread and on the backend's pool (FTZ/DAZ set there): the
    /// bodies must not depend on the mode they are called in.
    fn both_modes(check: fn()) {
        check();
        crate::threads::run(check);
    }

    /// Every unary op the interpreter defines on complex values has a body here (and no
    /// other), and gives the interpreter's bits on every pair of edge values.
    #[test]
    fn unary_bodies_are_the_interpreters() {
        both_modes(|| {
            for dtype in [DType::C64, DType::C128] {
                let zs = values(dtype);
                let n = zs.len();
                let a = reg_of(dtype, &zs);
                for op in UnaryOp::ALL {
                    let reference = reference::unary_fn(op);
                    let Some(Body::One(f)) = unary(op, dtype) else {
                        assert!(reference.is_none(), "{op:?} on {dtype} has no body");
                        continue;
                    };
                    let part = dtype.component().unwrap();
                    let real = matches!(op, UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag);
                    let mut out = Reg::new(Lane::of(if real { part } else { dtype }), n);
                    f(&a, &mut out, n);
                    for (i, &z) in zs.iter().enumerate() {
                        let expect = match reference.as_ref().expect("a body the interpreter lacks")
                        {
                            reference::UnaryValue::Complex(g) => want(dtype, ieee(|| g(z))),
                            reference::UnaryValue::Real(g) => {
                                let x = if op == UnaryOp::Abs {
                                    ieee(|| systolic_ir::numerics::arith_result(part, g(z)))
                                } else {
                                    g(z)
                                };
                                (if x.is_nan() { u64::MAX } else { x.to_bits() }, 0)
                            }
                        };
                        assert_eq!(bits(&out, i), expect, "{op:?} {dtype} of {z}");
                    }
                }
            }
        });
    }

    /// `abs` of `complex<f32>` (the vector pass of `complex_abs`, `hypot` near f32 rounding
    /// midpoints) gives the interpreter's rounded `hypot` through the op's body, on one
    /// thread and on the pool: on moduli that are exactly midpoints, random values of every
    /// magnitude and the edge values.
    #[test]
    fn complex64_abs_is_the_rounded_hypot() {
        let mut zs = crate::kernels::fusion::elementwise::complex_abs::tests::cases();
        zs.extend(
            values(DType::C64)
                .iter()
                .map(|z| Complex32::new(z.re as f32, z.im as f32)),
        );
        both_modes_with(zs, |zs| {
            let n = zs.len();
            let Some(Body::One(f)) = unary(UnaryOp::Abs, DType::C64) else {
                panic!("no abs body")
            };
            let mut out = Reg::new(Lane::F32, n);
            f(&Reg::C64(zs.to_vec().into()), &mut out, n);
            for (i, z) in zs.iter().enumerate() {
                let want = ieee(|| flush32((z.re as f64).hypot(z.im as f64) as f32));
                let got = lanes::<f32>(&out, n)[i];
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "abs of {z}: got {got:e}, want {want:e}"
                );
            }
        });
    }

    /// [`both_modes`] for a check of owned data.
    fn both_modes_with(data: Vec<Complex32>, check: fn(&[Complex32])) {
        check(&data);
        crate::threads::run(|| check(&data));
    }

    /// The same for the binary ops and for comparisons (both orders, total or not).
    #[test]
    fn binary_bodies_and_comparisons_are_the_interpreters() {
        both_modes(|| {
            for dtype in [DType::C64, DType::C128] {
                let zs = values(dtype);
                let (xs, ys): (Vec<Complex64>, Vec<Complex64>) = zs
                    .iter()
                    .flat_map(|&x| zs.iter().step_by(7).map(move |&y| (x, y)))
                    .unzip();
                let n = xs.len();
                let (a, b) = (reg_of(dtype, &xs), reg_of(dtype, &ys));
                for op in BinaryOp::ALL {
                    let reference = reference::binary_fn(op);
                    let Some(Body::Two(f)) = binary(op, dtype) else {
                        assert!(reference.is_none(), "{op:?} on {dtype} has no body");
                        continue;
                    };
                    let g = reference.expect("a body the interpreter lacks");
                    let mut out = Reg::new(Lane::of(dtype), n);
                    f(&a, &b, &mut out, n);
                    for i in 0..n {
                        let expect = want(dtype, ieee(|| g(xs[i], ys[i])));
                        assert_eq!(
                            bits(&out, i),
                            expect,
                            "{op:?} {dtype} of {} {}",
                            xs[i],
                            ys[i]
                        );
                    }
                }
                use ComparisonDirection::*;
                for dir in [Eq, Ne, Lt, Le, Gt, Ge] {
                    for total in [false, true] {
                        let Some(Body::Two(f)) = compare(dir, total, dtype) else {
                            panic!("no compare {dir:?}");
                        };
                        let mut out = Reg::new(Lane::Bool, n);
                        f(&a, &b, &mut out, n);
                        for i in 0..n {
                            let expect = ieee(|| reference::compare(dir, xs[i], ys[i], total));
                            assert_eq!(bits(&out, i).0, expect as u64, "{dir:?} {total}");
                        }
                    }
                }
            }
        });
    }

    /// The CHLO ops JAX emits on complex values: the interpreter's `complex_fn` (and `conj`,
    /// which moves the parts unrounded).
    #[test]
    fn chlo_bodies_are_the_interpreters() {
        both_modes(|| {
            for dtype in [DType::C64, DType::C128] {
                let zs = values(dtype);
                let n = zs.len();
                let a = reg_of(dtype, &zs);
                for op in ChloUnaryOp::ALL {
                    let Some(Body::One(f)) = chlo_unary(op, dtype) else {
                        assert!(complex_fn(op).is_none(), "{op:?} on {dtype} has no body");
                        continue;
                    };
                    let mut out = Reg::new(Lane::of(dtype), n);
                    f(&a, &mut out, n);
                    for (i, &z) in zs.iter().enumerate() {
                        let expect = match complex_fn(op) {
                            Some(g) => want(dtype, ieee(|| g(z))),
                            None => {
                                assert_eq!(op, ChloUnaryOp::Conj, "{op:?} has a body");
                                let b = |x: f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
                                (b(z.re), b(-z.im))
                            }
                        };
                        assert_eq!(bits(&out, i), expect, "{op:?} {dtype} of {z}");
                    }
                }
            }
        });
    }

    /// An op with polynomials, its interpreter op and its polynomial value.
    type WideCase = (WideOp, UnaryOp, fn(Complex32) -> Complex64);

    /// Every op with polynomials.
    const WIDE_OPS: [WideCase; 3] = [
        (WideOp::Exp, UnaryOp::Exponential, exp_wide),
        (WideOp::Sin, UnaryOp::Sine, sin_wide),
        (WideOp::Cos, UnaryOp::Cosine, cos_wide),
    ];

    /// The interpreter's `op` of a `complex<f32>`, rounded and flushed, as bits.
    fn wide_want(op: UnaryOp, z: Complex32) -> (u64, u64) {
        let Some(reference::UnaryValue::Complex(g)) = reference::unary_fn(op) else {
            panic!("the interpreter has no complex {op:?}");
        };
        want(DType::C64, ieee(|| g(z.widen())))
    }

    /// [`ComplexLane::wide_block`] of `complex<f32>` on `zs` against the interpreter, bit for
    /// bit; returns how many elements the polynomials settled (no library call).
    fn check_wide(which: usize, zs: &[Complex32]) -> usize {
        let (op, unary, polynomial) = WIDE_OPS[which];
        let mut out = vec![Complex32::new(0.0, 0.0); zs.len()];
        ieee(|| Complex32::wide_block(op, zs, &mut out));
        let mut fast = 0;
        for (&z, o) in zs.iter().zip(&out) {
            let got = bits(&Reg::C64(vec![*o].into()), 0);
            assert_eq!(got, wide_want(unary, z), "{op:?} of {z}: got {o}");
            fast += usize::from(settled(polynomial(z)).is_some());
        }
        fast
    }

    /// A small generator of f32 parts: uniform in [lo, hi).
    fn uniform(next: &mut impl FnMut() -> u64, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((next() >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// `exp`, `sin` and `cos` of `complex<f32>` are the interpreter's bit for bit on random
    /// values over wide ranges (the exponential part up to overflow and down to underflow, the
    /// trigonometric part up to 1e5), and the polynomials settle nearly all of them (the
    /// library runs on about one in 2^20).
    #[test]
    fn complex64_exp_sin_cos_are_the_interpreters_and_mostly_fast() {
        let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15);
        // (exponential part, trigonometric part): re and im for exp, im and re for sin, cos.
        let ranges: [((f32, f32), (f32, f32)); 6] = [
            ((-1.0, 1.0), (-4.0, 4.0)),
            ((-10.0, 10.0), (-100.0, 100.0)),
            ((80.0, 89.0), (-3.2, 3.2)),
            ((-110.0, -80.0), (-3.2, 3.2)),
            ((-20.0, 20.0), (-1.0e5, 1.0e5)),
            ((-1.0e-3, 1.0e-3), (-1.0e-3, 1.0e-3)),
        ];
        for (which, &(op, _, _)) in WIDE_OPS.iter().enumerate() {
            for ((elo, ehi), (tlo, thi)) in ranges {
                let zs: Vec<Complex32> = (0..100_000)
                    .map(|_| {
                        let (e, t) = (uniform(&mut next, elo, ehi), uniform(&mut next, tlo, thi));
                        if which == 0 {
                            Complex32::new(e, t)
                        } else {
                            Complex32::new(t, e)
                        }
                    })
                    .collect();
                let fast = check_wide(which, &zs);
                // exp: results in f32's subnormal range (e^re near 2^-126) go to the library.
                let needed = if elo < -80.0 {
                    zs.len() * 8 / 10
                } else {
                    zs.len() - 4
                };
                assert!(
                    fast >= needed,
                    "{op:?}: only {fast} of {} settled in {elo}..{ehi}",
                    zs.len()
                );
            }
        }
    }

    /// The edges: zeros of both signs in either part (the sign of a zero part survives),
    /// subnormal parts, infinities and NaN in either part, exponential parts at f32's overflow
    /// (e^88.72…) and underflow and at the polynomials' limits (±700), huge trigonometric parts
    /// (1e30: the library's own reduction), multiples of π/2 and just off them.
    #[test]
    fn complex64_exp_sin_cos_edges_are_the_interpreters() {
        let sub = f32::from_bits(3);
        let parts = [
            0.0f32,
            -0.0,
            sub,
            -sub,
            f32::MIN_POSITIVE,
            1.0,
            -1.0,
            88.72,
            88.7228,
            88.73,
            89.0,
            -87.3,
            -103.97,
            -104.0,
            -150.0,
            -700.0,
            700.0,
            700.0001,
            1e5,
            -1e6,
            1e30,
            -1e30,
            f32::MAX,
            std::f32::consts::FRAC_PI_2,
            std::f32::consts::PI,
            -std::f32::consts::PI,
            3.0 * std::f32::consts::FRAC_PI_2,
            f32::from_bits(std::f32::consts::PI.to_bits() + 1),
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let zs: Vec<Complex32> = parts
            .iter()
            .flat_map(|&re| parts.iter().map(move |&im| Complex32::new(re, im)))
            .collect();
        for which in 0..WIDE_OPS.len() {
            check_wide(which, &zs);
        }
        both_modes(|| {
            let zs = [
                Complex32::new(1.0, -0.0),
                Complex32::new(-0.0, 0.0),
                Complex32::new(-0.0, -0.0),
                Complex32::new(0.5, f32::from_bits(1)),
            ];
            for which in 0..WIDE_OPS.len() {
                check_wide(which, &zs);
            }
        });
    }

    /// Inputs whose polynomial value lies within the margin of an f32 rounding midpoint (found
    /// by a sweep of consecutive f32 values x from 1 in z = x + 0i: e^x, sin x or cos x alone,
    /// the other part a settled zero) take the library path and still give the interpreter's
    /// bits; the sweep must find some for every op.
    #[test]
    fn complex64_exp_sin_cos_near_midpoints_take_the_library() {
        for (which, (op, _, polynomial)) in WIDE_OPS.into_iter().enumerate() {
            let mut near = vec![];
            let mut bits = 1.0f32.to_bits();
            while near.len() < 8 && bits < 1.0e5f32.to_bits() {
                let z = Complex32::new(f32::from_bits(bits), 0.0);
                if settled(polynomial(z)).is_none() {
                    near.push(z);
                }
                bits += 1;
            }
            assert!(
                near.len() >= 2,
                "{op:?}: no input near a midpoint: {near:?}"
            );
            assert_eq!(check_wide(which, &near), 0);
        }
    }

    /// The settling rules on hand-made values: a value exactly at an f32 midpoint, or
    /// [`MARGIN`] ulps from it, is not settled; one ulp further is; tiny values flush to
    /// the zero of their sign; values between are not settled; NaN is not.
    #[test]
    fn settling_rules() {
        let mid = f64::from_bits(1.0f64.to_bits() + (1 << 28));
        assert_eq!(settled_part(mid), None);
        assert_eq!(settled_part(f64::from_bits(mid.to_bits() + MARGIN)), None);
        assert_eq!(
            settled_part(f64::from_bits(mid.to_bits() + MARGIN + 1)),
            Some(f32::from_bits(1.0f32.to_bits() + 1))
        );
        assert_eq!(
            settled_part(f64::from_bits(mid.to_bits() - MARGIN - 1)),
            Some(1.0)
        );
        let small = f32::MIN_POSITIVE as f64;
        assert!(settled_part(-0.2 * small).unwrap().is_sign_negative());
        assert_eq!(settled_part(0.2 * small).map(f32::to_bits), Some(0));
        assert_eq!(settled_part(small), None);
        assert_eq!(settled_part(f64::NAN), None);
        // f32's overflow threshold (the midpoint between MAX and 2^128) is a midpoint.
        let threshold = f32::MAX as f64
            + (f32::MAX as f64 - f32::from_bits(f32::MAX.to_bits() - 1) as f64) / 2.0;
        assert_eq!(settled_part(threshold), None);
        assert_eq!(settled_part(threshold * 1.001), Some(f32::INFINITY));
    }
}
