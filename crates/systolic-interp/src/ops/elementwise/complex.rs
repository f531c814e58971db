//! Complex elements (`complex<f32>`, `complex<f64>`): the spec's definitions of every
//! elementwise op that takes them, computed in f64 (`num_complex`'s `Complex64`) and rounded
//! part by part to the parts' dtype, as floats are (`numerics::complex_result`).
//!
//! Where the spec leaves the formula to the implementation, the choice is the one that keeps
//! precision near zero and away from overflow: `log_plus_one` and `exponential_minus_one` use
//! `ln_1p`/`exp_m1` on the parts, division is Smith's algorithm (no overflow of `c² + d²` for
//! large divisors), `abs` is `hypot`. Orderings (`maximum`, `minimum`, `compare`) are
//! lexicographic on (real, imaginary), as the spec says.
//!
//! The CPU backend's loop kernels call these same functions (`systolic-cpu`'s
//! `fusion/elementwise/complex.rs`), so that they compute what the oracle computes bit for bit.

use std::cmp::Ordering;
use systolic_ir::{numerics, BinaryOp, ComparisonDirection, Complex64, DType, UnaryOp};

/// The part dtype of a complex dtype (f64 for anything else, which callers never pass).
pub fn part(dtype: DType) -> DType {
    dtype.component().unwrap_or(DType::F64)
}

/// What a unary op gives for one complex element: another complex number, or a real
/// (`abs`, `real`, `imag`).
pub enum UnaryValue {
    /// `exp`, `sqrt`, …
    Complex(fn(Complex64) -> Complex64),
    /// `abs`, `real`, `imag`: of the parts' dtype.
    Real(fn(Complex64) -> f64),
}

/// The function of a unary op on complex numbers, or `None` where the spec does not define
/// the op for them (`floor`, `is_finite`, `popcnt`, …).
pub fn unary_fn(op: UnaryOp) -> Option<UnaryValue> {
    use UnaryOp::*;
    use UnaryValue::{Complex as C, Real as R};
    Some(match op {
        Abs => R(|z| z.re.hypot(z.im)),
        Real => R(|z| z.re),
        Imag => R(|z| z.im),
        Negate => C(|z| -z),
        Sign => C(sign),
        Exponential => C(Complex64::exp),
        ExponentialMinusOne => C(exp_m1),
        Log => C(Complex64::ln),
        LogPlusOne => C(ln_1p),
        Logistic => C(logistic),
        Sqrt => C(Complex64::sqrt),
        Rsqrt => C(rsqrt),
        Cbrt => C(cbrt),
        Sine => C(Complex64::sin),
        Cosine => C(Complex64::cos),
        Tan => C(Complex64::tan),
        Tanh => C(Complex64::tanh),
        Ceil | CountLeadingZeros | Floor | IsFinite | Not | Popcnt | RoundNearestAfz
        | RoundNearestEven => return None,
    })
}

/// The function of a binary op on complex numbers, or `None` where the spec does not define
/// it (`remainder`, bitwise ops, `complex` itself, which takes floats).
pub fn binary_fn(op: BinaryOp) -> Option<fn(Complex64, Complex64) -> Complex64> {
    use BinaryOp::*;
    Some(match op {
        Add => |a, b| a + b,
        Subtract => |a, b| a - b,
        Multiply => |a, b| a * b,
        Divide => divide,
        Power => power,
        Atan2 => atan2,
        Maximum => |a, b| extremum(a, b, Ordering::Greater),
        Minimum => |a, b| extremum(a, b, Ordering::Less),
        And | Or | Xor | Remainder | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical
        | Complex => return None,
    })
}

/// Rounds a complex result to the dtype's parts and flushes subnormal parts as XLA:CPU does.
pub fn rounded(dtype: DType, z: Complex64) -> Complex64 {
    numerics::complex_result(part(dtype), z)
}

/// `logistic`: `1 / (1 + e^-z)` (num_complex's division: no divisor here overflows on its own).
pub fn logistic(z: Complex64) -> Complex64 {
    Complex64::new(1.0, 0.0) / (Complex64::new(1.0, 0.0) + (-z).exp())
}

/// `rsqrt`: `1 / sqrt(z)` by [`divide`].
pub fn rsqrt(z: Complex64) -> Complex64 {
    divide(Complex64::new(1.0, 0.0), z.sqrt())
}

/// `sign`: `z / |z|`; zero stays zero, and a NaN in either part makes both parts NaN.
pub fn sign(z: Complex64) -> Complex64 {
    if z.re.is_nan() || z.im.is_nan() {
        Complex64::new(f64::NAN, f64::NAN)
    } else if z.re == 0.0 && z.im == 0.0 {
        z
    } else {
        let r = z.re.hypot(z.im);
        Complex64::new(z.re / r, z.im / r)
    }
}

/// `exp(z) - 1` without cancellation for small `z`: the real part is
/// `expm1(x)·cos(y) - 2·sin²(y/2)` (since `cos y - 1 = -2 sin²(y/2)`).
pub fn exp_m1(z: Complex64) -> Complex64 {
    let half = (z.im / 2.0).sin();
    Complex64::new(
        z.re.exp_m1() * z.im.cos() - 2.0 * half * half,
        z.re.exp() * z.im.sin(),
    )
}

/// `log(1 + z)` without cancellation for small `z`: `|1 + z|² - 1 = x(2 + x) + y²`.
pub fn ln_1p(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    let m = x * (2.0 + x) + y * y;
    // Near zero the series form; elsewhere `ln|1 + z|` directly (no overflow of `m`).
    let re = if m.abs() < 0.5 {
        0.5 * m.ln_1p()
    } else {
        (1.0 + x).hypot(y).ln()
    };
    Complex64::new(re, y.atan2(1.0 + x))
}

/// The principal cube root: `|z|^(1/3) · e^(i·arg(z)/3)`.
pub fn cbrt(z: Complex64) -> Complex64 {
    if z.re == 0.0 && z.im == 0.0 {
        return z;
    }
    Complex64::from_polar(z.re.hypot(z.im).cbrt(), z.im.atan2(z.re) / 3.0)
}

/// Division by Smith's algorithm: scales by the larger part of the divisor, so `c² + d²` never
/// overflows or underflows on its own.
#[inline]
pub fn divide(a: Complex64, b: Complex64) -> Complex64 {
    let (c, d) = (b.re, b.im);
    if c == 0.0 && d == 0.0 {
        // As IEEE does for reals: the parts divided by a signed zero (inf or NaN).
        return Complex64::new(a.re / c, a.im / c);
    }
    if c.abs() >= d.abs() {
        let r = d / c;
        let den = c + d * r;
        Complex64::new((a.re + a.im * r) / den, (a.im - a.re * r) / den)
    } else {
        let r = c / d;
        let den = c * r + d;
        Complex64::new((a.re * r + a.im) / den, (a.im * r - a.re) / den)
    }
}

/// `power`: `exp(b · log(a))`, with `0^b = 0` for `b` of positive real part and `x^0 = 1`.
pub fn power(a: Complex64, b: Complex64) -> Complex64 {
    if b.re == 0.0 && b.im == 0.0 {
        return Complex64::new(1.0, 0.0);
    }
    if a.re == 0.0 && a.im == 0.0 && b.im == 0.0 && b.re > 0.0 {
        return Complex64::new(0.0, 0.0);
    }
    (b * a.ln()).exp()
}

/// `atan2(y, x)` of complex numbers: `-i · log((x + i·y) / sqrt(x² + y²))`, the spec's
/// definition.
pub fn atan2(y: Complex64, x: Complex64) -> Complex64 {
    let i = Complex64::new(0.0, 1.0);
    let q = divide(x + i * y, (x * x + y * y).sqrt());
    -i * q.ln()
}

/// `maximum`/`minimum`: the operand that is `want` in the lexicographic order (the first when
/// they are equal); when a NaN decides, the operand holding it (so `maximum(x, x) = x` always).
pub fn extremum(a: Complex64, b: Complex64, want: Ordering) -> Complex64 {
    match lexicographic(a, b) {
        None if a.re.is_nan() || a.im.is_nan() => a,
        None => b,
        Some(o) if o == want => a,
        Some(Ordering::Equal) => a,
        Some(_) => b,
    }
}

/// The lexicographic order on (real, imaginary) with IEEE comparisons: `None` when a NaN
/// decides. `-0` and `+0` are equal.
pub fn lexicographic(a: Complex64, b: Complex64) -> Option<Ordering> {
    match a.re.partial_cmp(&b.re)? {
        Ordering::Equal => a.im.partial_cmp(&b.im),
        o => Some(o),
    }
}

/// `compare` of two complex numbers: lexicographic; with `total` the parts compare in IEEE
/// total order (so NaNs are ordered), otherwise an unordered pair satisfies only `NE`.
pub fn compare(direction: ComparisonDirection, a: Complex64, b: Complex64, total: bool) -> bool {
    use ComparisonDirection::*;
    let ord = if total {
        Some(a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)))
    } else {
        lexicographic(a, b)
    };
    match ord {
        None => direction == Ne,
        Some(o) => match direction {
            Eq => o == Ordering::Equal,
            Ne => o != Ordering::Equal,
            Lt => o == Ordering::Less,
            Le => o != Ordering::Greater,
            Gt => o == Ordering::Greater,
            Ge => o != Ordering::Less,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> Complex64 {
        Complex64::new(re, im)
    }

    fn close(a: Complex64, b: Complex64) -> bool {
        (a - b).norm() <= 1e-12 * (1.0 + b.norm())
    }

    #[test]
    fn small_argument_forms_match_the_naive_ones() {
        for z in [c(1.0, 2.0), c(2.0, 1.0), c(-0.3, 0.7), c(5.0, -4.0)] {
            assert!(close(exp_m1(z), z.exp() - 1.0), "{z}");
            assert!(close(ln_1p(z), (z + 1.0).ln()), "{z}");
        }
        // Where the naive forms lose every digit.
        let tiny = c(1e-20, 1e-20);
        assert!(close(exp_m1(tiny), tiny));
        assert!(close(ln_1p(tiny), tiny));
    }

    #[test]
    fn smith_division() {
        assert!(close(
            divide(c(1.5, 2.5), c(2.5, 1.5)),
            c(1.5, 2.5) / c(2.5, 1.5)
        ));
        // c² + d² would overflow: the naive formula gives NaN.
        let big = divide(c(1e300, 1e300), c(1e300, 1e300));
        assert!(close(big, c(1.0, 0.0)), "{big}");
    }

    #[test]
    fn lexicographic_orders() {
        let nan = c(f64::NAN, 0.0);
        assert!(compare(
            ComparisonDirection::Eq,
            c(-0.0, 0.0),
            c(0.0, 0.0),
            false
        ));
        assert!(!compare(ComparisonDirection::Eq, nan, nan, false));
        assert!(compare(ComparisonDirection::Ne, nan, nan, false));
        assert!(compare(
            ComparisonDirection::Lt,
            c(1.0, 5.0),
            c(2.0, 0.0),
            false
        ));
        assert!(compare(
            ComparisonDirection::Lt,
            c(1.0, 1.0),
            c(1.0, 2.0),
            false
        ));
        assert_eq!(
            extremum(c(0.0, 1.5), c(-0.0, 2.5), Ordering::Greater),
            c(-0.0, 2.5)
        );
        assert!(extremum(nan, c(1.0, 1.0), Ordering::Less).re.is_nan());
        assert!(extremum(c(1.0, 1.0), nan, Ordering::Greater).re.is_nan());
    }
}
