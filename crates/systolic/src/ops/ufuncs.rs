//! numpy ufuncs built from StableHLO/CHLO ops with JAX's definitions: the inputs are promoted
//! as `jnp` promotes them (ints become f32 for the inexact ones) and the formulas are the ones
//! `jax.numpy` lowers to, so results match JAX's to the rounding of each op.

use crate::array::Array;
use crate::numpy as np;
use crate::ops::elementwise::{promote_args, to_inexact};

/// Promotes `a` and `b` to one dtype and shape, then to an inexact dtype (ints and bools
/// become f32, keeping the weak flag): JAX's `promote_args_inexact`.
pub(crate) fn promote_inexact(
    op: &str,
    a: &Array,
    b: &Array,
) -> Result<(Array, Array), crate::Error> {
    let v = promote_args(op, &[a, b])?;
    Ok((to_inexact(op, &v[0]), to_inexact(op, &v[1])))
}

/// `jnp.logaddexp(a, b)` = `log(e^a + e^b)` without overflow: `max + log1p(e^-|a-b|)`, and
/// `a + b` where `a - b` is NaN (a NaN operand, or two infinities of one sign).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![0.0f32, 1000.0, f32::NEG_INFINITY], &[3]);
/// let b = Array::from_vec(vec![0.0f32, 1000.0, f32::NEG_INFINITY], &[3]);
/// let r = np::logaddexp(&a, &b).to_vec::<f32>().unwrap();
/// assert!((r[0] - std::f32::consts::LN_2).abs() < 1e-7);
/// assert!((r[1] - 1000.6931).abs() < 1e-3);
/// assert_eq!(r[2], f32::NEG_INFINITY);
/// ```
pub fn logaddexp(a: &Array, b: &Array) -> Array {
    let (a, b) = match promote_inexact("logaddexp", a, b) {
        Ok(v) => v,
        Err(e) => return Array::failed(e),
    };
    let amax = np::maximum(&a, &b);
    let delta = np::subtract(&a, &b);
    let soft = np::add(&amax, &np::log1p(&np::exp(&np::negative(&np::abs(&delta)))));
    np::where_(&np::isnan(&delta), &np::add(&a, &b), &soft)
}

/// True where `x` is NaN (always false for integers and bools).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, f32::NAN, f32::INFINITY], &[3]);
/// assert_eq!(np::isnan(&x).to_vec::<bool>().unwrap(), vec![false, true, false]);
/// ```
pub fn isnan(x: &Array) -> Array {
    if x.error().is_none() && !x.element_type().is_float() {
        return crate::ops::creation::full(x.dims(), 0.0, systolic_ir::DType::Bool);
    }
    np::not_equal(x, x)
}

/// `x != 0` for numbers, `x` for bools: the truth value numpy's logical ops take.
fn truth(op: &str, x: &Array) -> Array {
    if x.error().is_some() || x.element_type() == systolic_ir::DType::Bool {
        return x.clone();
    }
    let zero = crate::ops::elementwise::convert(op, &crate::weak_int(0), x.element_type(), false);
    np::not_equal(x, &zero)
}

macro_rules! logical_fn {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        pub fn $name(a: &Array, b: &Array) -> Array {
            crate::ops::elementwise::binary(
                stringify!($name),
                systolic_ir::BinaryOp::$op,
                &truth(stringify!($name), a),
                &truth(stringify!($name), b),
            )
        }
    };
}

logical_fn!(
    /// `jnp.logical_and(a, b)`: both truthy (non-zero numbers count as true); the result is
    /// bool.
    ///
    /// ```
    /// use systolic::{numpy as np, Array};
    /// let a = Array::from_vec(vec![0.0f32, 2.0, 3.0], &[3]);
    /// let b = Array::from_vec(vec![true, false, true], &[3]);
    /// assert_eq!(np::logical_and(&a, &b).to_vec::<bool>().unwrap(), vec![false, false, true]);
    /// ```
    logical_and, And);
logical_fn!(
    /// `jnp.logical_or(a, b)`: either truthy; the result is bool.
    ///
    /// ```
    /// use systolic::{numpy as np, Array};
    /// let a = Array::from_vec(vec![0i32, 0, 5], &[3]);
    /// let b = Array::from_vec(vec![0i32, 1, 0], &[3]);
    /// assert_eq!(np::logical_or(&a, &b).to_vec::<bool>().unwrap(), vec![false, true, true]);
    /// ```
    logical_or, Or);
logical_fn!(
    /// `jnp.logical_xor(a, b)`: exactly one truthy; the result is bool.
    ///
    /// ```
    /// use systolic::{numpy as np, Array};
    /// let a = Array::from_vec(vec![true, true, false], &[3]);
    /// let b = Array::from_vec(vec![true, false, false], &[3]);
    /// assert_eq!(np::logical_xor(&a, &b).to_vec::<bool>().unwrap(), vec![false, true, false]);
    /// ```
    logical_xor, Xor);

/// `jnp.logical_not(x)`: true where `x` is false or zero.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![0.0f32, -1.0, f32::NAN], &[3]);
/// assert_eq!(np::logical_not(&x).to_vec::<bool>().unwrap(), vec![true, false, false]);
/// ```
pub fn logical_not(x: &Array) -> Array {
    crate::ops::elementwise::unary(
        "logical_not",
        systolic_ir::UnaryOp::Not,
        &truth("logical_not", x),
    )
}

/// [`promote_inexact`] without broadcasting: both keep their shapes, for ops that align
/// operands themselves (`average`'s 1-D weights).
pub(crate) fn promote_inexact_same_shape(
    op: &str,
    a: &Array,
    b: &Array,
) -> Result<(Array, Array), crate::Error> {
    a.check()?;
    b.check()?;
    let pairs = [
        (a.element_type(), a.weak_type()),
        (b.element_type(), b.weak_type()),
    ];
    if let Some(why) = crate::core::promote::implicit_promotion_error(&pairs) {
        return Err(crate::Error::op(op, why));
    }
    let (d, weak) = crate::core::promote::result_type(&pairs);
    let a = to_inexact(op, &crate::ops::elementwise::convert(op, a, d, weak));
    let b = to_inexact(op, &crate::ops::elementwise::convert(op, b, d, weak));
    Ok((a, b))
}

use crate::array::describe;
use crate::error::Error;
use crate::ops::creation::full;
use crate::ops::elementwise::{binary, chlo_unary, convert, unary};
use systolic_ir::{BinaryOp, ChloUnaryOp, DType, DTypeKind, UnaryOp};

/// A rank-0 strongly typed constant of `like`'s dtype.
fn constant_like(like: &Array, v: f64) -> Array {
    full(&[], v, like.element_type())
}

macro_rules! chlo_fn {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        pub fn $name(x: &Array) -> Array {
            chlo_unary(stringify!($name), ChloUnaryOp::$op, &to_inexact(stringify!($name), x))
        }
    };
}

chlo_fn!(
    /// `jnp.arcsin(x)` (ints become f32; NaN outside `[-1, 1]`).
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![1.0f32], &[1]);
    /// let y = systolic::numpy::arcsin(&x).to_vec::<f32>().unwrap()[0];
    /// assert!((y - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
    /// ```
    arcsin, Asin);
chlo_fn!(
    /// `jnp.arccos(x)` (ints become f32).
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![-1.0f32], &[1]);
    /// let y = systolic::numpy::arccos(&x).to_vec::<f32>().unwrap()[0];
    /// assert!((y - std::f32::consts::PI).abs() < 1e-6);
    /// ```
    arccos, Acos);
chlo_fn!(
    /// `jnp.arctan(x)` (ints become f32).
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![1i32], &[1]);
    /// let y = systolic::numpy::arctan(&x).to_vec::<f32>().unwrap()[0];
    /// assert!((y - std::f32::consts::FRAC_PI_4).abs() < 1e-6);
    /// ```
    arctan, Atan);
chlo_fn!(
    /// `jnp.sinh(x)`.
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![0.0f32], &[1]);
    /// assert_eq!(systolic::numpy::sinh(&x).to_vec::<f32>().unwrap(), vec![0.0]);
    /// ```
    sinh, Sinh);
chlo_fn!(
    /// `jnp.cosh(x)`.
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![0.0f32], &[1]);
    /// assert_eq!(systolic::numpy::cosh(&x).to_vec::<f32>().unwrap(), vec![1.0]);
    /// ```
    cosh, Cosh);
chlo_fn!(
    /// `jnp.arcsinh(x)`.
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![0.0f32], &[1]);
    /// assert_eq!(systolic::numpy::arcsinh(&x).to_vec::<f32>().unwrap(), vec![0.0]);
    /// ```
    arcsinh, Asinh);
chlo_fn!(
    /// `jnp.arccosh(x)` (NaN below 1).
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![1.0f32], &[1]);
    /// assert_eq!(systolic::numpy::arccosh(&x).to_vec::<f32>().unwrap(), vec![0.0]);
    /// ```
    arccosh, Acosh);
chlo_fn!(
    /// `jnp.arctanh(x)` (±inf at ±1, NaN beyond).
    ///
    /// ```
    /// let x = systolic::Array::from_vec(vec![1.0f32], &[1]);
    /// assert_eq!(systolic::numpy::arctanh(&x).to_vec::<f32>().unwrap(), vec![f32::INFINITY]);
    /// ```
    arctanh, Atanh);

/// `jnp.tan(x)` (StableHLO `tan`; ints become f32).
///
/// ```
/// let x = systolic::Array::from_vec(vec![0.0f32, 1.0], &[2]);
/// let y = systolic::numpy::tan(&x).to_vec::<f32>().unwrap();
/// assert!(y[0] == 0.0 && (y[1] - 1.5574077).abs() < 1e-6);
/// ```
pub fn tan(x: &Array) -> Array {
    unary("tan", UnaryOp::Tan, &to_inexact("tan", x))
}

/// `jnp.cbrt(x)`: the real cube root (negative for negative `x`).
///
/// ```
/// let x = systolic::Array::from_vec(vec![-8.0f32, 27.0], &[2]);
/// assert_eq!(systolic::numpy::cbrt(&x).to_vec::<f32>().unwrap(), vec![-2.0, 3.0]);
/// ```
pub fn cbrt(x: &Array) -> Array {
    unary("cbrt", UnaryOp::Cbrt, &to_inexact("cbrt", x))
}

/// `jnp.arctan2(y, x)`: the angle of `(x, y)` in `(-π, π]`, signed zeros respected.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let y = Array::from_vec(vec![1.0f32, -0.0], &[2]);
/// let x = Array::from_vec(vec![-1.0f32, -1.0], &[2]);
/// let a = np::arctan2(&y, &x).to_vec::<f32>().unwrap();
/// assert!((a[0] - 3.0 * std::f32::consts::FRAC_PI_4).abs() < 1e-6);
/// assert_eq!(a[1], -std::f32::consts::PI);
/// ```
pub fn arctan2(y: &Array, x: &Array) -> Array {
    match promote_inexact("arctan2", y, x) {
        Ok((y, x)) => binary("arctan2", BinaryOp::Atan2, &y, &x),
        Err(e) => Array::failed(e),
    }
}

/// `log(x) / log(base)` with the divisor computed by the same `log` op, as JAX's log2/log10.
fn log_base(op: &str, x: &Array, base: f64) -> Array {
    let x = to_inexact(op, x);
    np::divide(&np::log(&x), &np::log(&constant_like(&x, base)))
}

/// `jnp.log2(x)` = `log(x) / log(2)`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![8.0f32, 0.5], &[2]);
/// assert_eq!(systolic::numpy::log2(&x).to_vec::<f32>().unwrap(), vec![3.0, -1.0]);
/// ```
pub fn log2(x: &Array) -> Array {
    log_base("log2", x, 2.0)
}

/// `jnp.log10(x)` = `log(x) / log(10)`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![1000.0f32], &[1]);
/// assert!((systolic::numpy::log10(&x).to_vec::<f32>().unwrap()[0] - 3.0).abs() < 1e-6);
/// ```
pub fn log10(x: &Array) -> Array {
    log_base("log10", x, 10.0)
}

/// `jnp.exp2(x)` = `exp(ln2 · x)` (how XLA lowers `exp2`).
///
/// ```
/// let x = systolic::Array::from_vec(vec![3.0f32, -1.0], &[2]);
/// let y = systolic::numpy::exp2(&x).to_vec::<f32>().unwrap();
/// assert!((y[0] - 8.0).abs() < 1e-5 && (y[1] - 0.5).abs() < 1e-7);
/// ```
pub fn exp2(x: &Array) -> Array {
    let x = to_inexact("exp2", x);
    np::exp(&np::multiply(
        &constant_like(&x, std::f64::consts::LN_2),
        &x,
    ))
}

/// `jnp.reciprocal(x)` = `1 / x` (integers become f32, unlike numpy).
///
/// ```
/// let x = systolic::Array::from_vec(vec![4.0f32, -0.5], &[2]);
/// assert_eq!(systolic::numpy::reciprocal(&x).to_vec::<f32>().unwrap(), vec![0.25, -2.0]);
/// ```
pub fn reciprocal(x: &Array) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    let x = to_inexact("reciprocal", x);
    let one = convert(
        "reciprocal",
        &full(&[], 1.0, x.element_type()),
        x.element_type(),
        x.weak_type(),
    );
    binary("reciprocal", BinaryOp::Divide, &one, &x)
}

/// `jnp.true_divide(a, b)`: the same as [`divide`](crate::numpy::divide).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![3i32], &[1]);
/// assert_eq!(np::true_divide(&a, &Array::from_vec(vec![2i32], &[1])).to_vec::<f32>().unwrap(), vec![1.5]);
/// ```
pub fn true_divide(a: &Array, b: &Array) -> Array {
    np::divide(a, b)
}

/// Rejects bool operands of the arithmetic ops (`remainder`, `floor_divide`, …), which JAX
/// does not define for booleans either.
fn numeric(op: &str, a: &Array, b: &Array) -> Result<(Array, Array), Error> {
    let v = promote_args(op, &[a, b])?;
    if v[0].element_type() == DType::Bool {
        return Err(Error::op(
            op,
            format!(
                "expected numeric operands, got {} and {}",
                describe(a.aval()),
                describe(b.aval())
            ),
        ));
    }
    Ok((v[0].clone(), v[1].clone()))
}

/// `jnp.fmod(a, b)`: the C remainder, with the sign of the dividend (`lax.rem`).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![-7i32, 7], &[2]);
/// let b = Array::from_vec(vec![3i32, -3], &[2]);
/// assert_eq!(np::fmod(&a, &b).to_vec::<i32>().unwrap(), vec![-1, 1]);
/// ```
pub fn fmod(a: &Array, b: &Array) -> Array {
    match numeric("fmod", a, b) {
        Ok((a, b)) => binary("fmod", BinaryOp::Remainder, &a, &b),
        Err(e) => Array::failed(e),
    }
}

/// `jnp.remainder(a, b)` (= `jnp.mod`): the remainder with the sign of the divisor, as
/// Python's `%`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![-7.0f32, 7.0, 6.0], &[3]);
/// let b = Array::from_vec(vec![3.0f32, -3.0, 3.0], &[3]);
/// assert_eq!(np::remainder(&a, &b).to_vec::<f32>().unwrap(), vec![2.0, -2.0, 0.0]);
/// ```
pub fn remainder(a: &Array, b: &Array) -> Array {
    let (a, b) = match numeric("remainder", a, b) {
        Ok(v) => v,
        Err(e) => return Array::failed(e),
    };
    let rem = binary("remainder", BinaryOp::Remainder, &a, &b);
    if a.element_type().kind() == DTypeKind::Unsigned {
        return rem;
    }
    let zero = constant_like(&a, 0.0);
    let fix = np::logical_and(
        &np::not_equal(&np::less(&rem, &zero), &np::less(&b, &zero)),
        &np::not_equal(&rem, &zero),
    );
    np::where_(&fix, &np::add(&rem, &b), &rem)
}

/// `jnp.mod`: the same as [`remainder`].
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![-1i32], &[1]);
/// assert_eq!(np::mod_(&a, &Array::from_vec(vec![4i32], &[1])).to_vec::<i32>().unwrap(), vec![3]);
/// ```
pub fn mod_(a: &Array, b: &Array) -> Array {
    remainder(a, b)
}

/// `jnp.floor_divide(a, b)`: integers round the quotient toward −∞ (`lax.div` truncates, so
/// a non-zero remainder of the other sign steps down by one); floats as `(a − fmod(a, b)) / b`
/// (`a / b` for a zero divisor) corrected the same way and rounded, as JAX's `_float_divmod`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![-7i32, 7, 6], &[3]);
/// let b = Array::from_vec(vec![2i32, -2, 3], &[3]);
/// assert_eq!(np::floor_divide(&a, &b).to_vec::<i32>().unwrap(), vec![-4, -4, 2]);
/// let f = np::floor_divide(&Array::from_vec(vec![-7.5f32], &[1]), &Array::from_vec(vec![2.0f32], &[1]));
/// assert_eq!(f.to_vec::<f32>().unwrap(), vec![-4.0]);
/// ```
pub fn floor_divide(a: &Array, b: &Array) -> Array {
    let (a, b) = match numeric("floor_divide", a, b) {
        Ok(v) => v,
        Err(e) => return Array::failed(e),
    };
    let op = "floor_divide";
    match a.element_type().kind() {
        DTypeKind::Unsigned => binary(op, BinaryOp::Divide, &a, &b),
        DTypeKind::Signed => {
            let q = binary(op, BinaryOp::Divide, &a, &b);
            let rem = binary(op, BinaryOp::Remainder, &a, &b);
            let step = np::logical_and(
                &np::not_equal(&np::sign(&a), &np::sign(&b)),
                &np::not_equal(&rem, &constant_like(&rem, 0.0)),
            );
            np::where_(&step, &np::subtract(&q, &constant_like(&q, 1.0)), &q)
        }
        _ => {
            let m = binary(op, BinaryOp::Remainder, &a, &b);
            // A zero divisor divides `a` itself, so ±inf / 0 stays infinite.
            let zero_div = np::equal(&b, &constant_like(&b, 0.0));
            let d = np::divide(&np::where_(&zero_div, &a, &np::subtract(&a, &m)), &b);
            let fix = np::logical_and(
                &np::not_equal(&m, &constant_like(&m, 0.0)),
                &np::not_equal(&np::sign(&b), &np::sign(&m)),
            );
            let d = np::where_(&fix, &np::subtract(&d, &constant_like(&d, 1.0)), &d);
            unary(op, UnaryOp::RoundNearestAfz, &d)
        }
    }
}

/// `jnp.hypot(a, b)` = `sqrt(a² + b²)` without overflow: `max · sqrt(1 + (min/max)²)`, inf if
/// either is infinite.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![3.0f32, 3e30], &[2]);
/// let b = Array::from_vec(vec![4.0f32, 4e30], &[2]);
/// let h = np::hypot(&a, &b).to_vec::<f32>().unwrap();
/// assert!((h[0] - 5.0).abs() < 1e-6 && (h[1] / 5e30 - 1.0).abs() < 1e-6);
/// ```
pub fn hypot(a: &Array, b: &Array) -> Array {
    let (a, b) = match promote_inexact("hypot", a, b) {
        Ok(v) => v,
        Err(e) => return Array::failed(e),
    };
    let (a, b) = (np::abs(&a), np::abs(&b));
    let inf = constant_like(&a, f64::INFINITY);
    let any_inf = np::logical_or(&np::equal(&a, &inf), &np::equal(&b, &inf));
    let (hi, lo) = (np::maximum(&a, &b), np::minimum(&a, &b));
    let zero = constant_like(&hi, 0.0);
    let one = constant_like(&hi, 1.0);
    let hi_is_zero = np::equal(&hi, &zero);
    let safe = np::where_(&hi_is_zero, &one, &hi);
    let r = np::multiply(
        &hi,
        &np::sqrt(&np::add(&one, &np::square(&np::divide(&lo, &safe)))),
    );
    let r = np::where_(&hi_is_zero, &hi, &r);
    np::where_(&any_inf, &inf, &r)
}

/// `jnp.isinf(x)`: true at ±inf (always false for integers and bools).
///
/// ```
/// let x = systolic::Array::from_vec(vec![f32::NEG_INFINITY, 1.0, f32::NAN], &[3]);
/// assert_eq!(systolic::numpy::isinf(&x).to_vec::<bool>().unwrap(), vec![true, false, false]);
/// ```
pub fn isinf(x: &Array) -> Array {
    if x.error().is_none() && !x.element_type().is_float() {
        return full(x.dims(), 0.0, DType::Bool);
    }
    chlo_unary("isinf", ChloUnaryOp::IsInf, x)
}

/// `jnp.signbit(x)`: true where the sign bit is set (−0.0 and negative NaNs included; `x < 0`
/// for integers, false for bools).
///
/// ```
/// let x = systolic::Array::from_vec(vec![-0.0f32, 0.0, -2.0], &[3]);
/// assert_eq!(systolic::numpy::signbit(&x).to_vec::<bool>().unwrap(), vec![true, false, true]);
/// ```
pub fn signbit(x: &Array) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    let bits = match x.element_type() {
        DType::F64 => DType::I64,
        DType::F32 => DType::I32,
        DType::BF16 | DType::F16 => DType::I16,
        DType::Bool => return full(x.dims(), 0.0, DType::Bool),
        _ if x.element_type().kind() == DTypeKind::Unsigned => {
            return full(x.dims(), 0.0, DType::Bool)
        }
        _ => return np::less(x, &constant_like(x, 0.0)),
    };
    let i = crate::lax::bitcast_convert_type(x, bits);
    np::less(&i, &full(&[], 0.0, bits))
}

/// `jnp.copysign(a, b)`: `|a|` with the sign bit of `b`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![2.0f32, -3.0], &[2]);
/// let b = Array::from_vec(vec![-0.0f32, 1.0], &[2]);
/// assert_eq!(np::copysign(&a, &b).to_vec::<f32>().unwrap(), vec![-2.0, 3.0]);
/// ```
pub fn copysign(a: &Array, b: &Array) -> Array {
    match promote_inexact("copysign", a, b) {
        Ok((a, b)) => {
            let m = np::abs(&a);
            np::where_(&signbit(&b), &np::negative(&m), &m)
        }
        Err(e) => Array::failed(e),
    }
}

/// `jnp.trunc(x)`: rounds toward zero (`ceil` below zero, `floor` above); integers are
/// returned as they are.
///
/// ```
/// let x = systolic::Array::from_vec(vec![-1.7f32, 1.7], &[2]);
/// assert_eq!(systolic::numpy::trunc(&x).to_vec::<f32>().unwrap(), vec![-1.0, 1.0]);
/// ```
pub fn trunc(x: &Array) -> Array {
    if x.error().is_some() || !x.element_type().is_float() {
        return x.clone();
    }
    np::where_(
        &np::less(x, &constant_like(x, 0.0)),
        &np::ceil(x),
        &np::floor(x),
    )
}

/// `jnp.rint(x)`: rounds half to even; integers and bools become f32.
///
/// ```
/// let x = systolic::Array::from_vec(vec![0.5f32, 1.5, -2.5], &[3]);
/// assert_eq!(systolic::numpy::rint(&x).to_vec::<f32>().unwrap(), vec![0.0, 2.0, -2.0]);
/// ```
pub fn rint(x: &Array) -> Array {
    unary("rint", UnaryOp::RoundNearestEven, &to_inexact("rint", x))
}

/// `x` must be an integer or bool for the bitwise ops.
fn integral(op: &str, xs: &[&Array]) -> Result<Vec<Array>, Error> {
    let v = promote_args(op, xs)?;
    if v[0].element_type().is_float() {
        return Err(Error::op(
            op,
            format!(
                "expected integer or bool operands, got {}",
                xs.iter()
                    .map(|x| describe(x.aval()))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        ));
    }
    Ok(v)
}

macro_rules! bitwise_fn {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        pub fn $name(a: &Array, b: &Array) -> Array {
            match integral(stringify!($name), &[a, b]) {
                Ok(v) => binary(stringify!($name), BinaryOp::$op, &v[0], &v[1]),
                Err(e) => Array::failed(e),
            }
        }
    };
}

bitwise_fn!(
    /// `jnp.bitwise_and(a, b)` on integers and bools (floats are an error).
    ///
    /// ```
    /// use systolic::{numpy as np, Array};
    /// let a = Array::from_vec(vec![12i32], &[1]);
    /// assert_eq!(np::bitwise_and(&a, &Array::from_vec(vec![10i32], &[1])).to_vec::<i32>().unwrap(), vec![8]);
    /// ```
    bitwise_and, And);
bitwise_fn!(
    /// `jnp.bitwise_or(a, b)` on integers and bools.
    ///
    /// ```
    /// use systolic::{numpy as np, Array};
    /// let a = Array::from_vec(vec![12u8], &[1]);
    /// assert_eq!(np::bitwise_or(&a, &Array::from_vec(vec![3u8], &[1])).to_vec::<u8>().unwrap(), vec![15]);
    /// ```
    bitwise_or, Or);
bitwise_fn!(
    /// `jnp.bitwise_xor(a, b)` on integers and bools.
    ///
    /// ```
    /// use systolic::{numpy as np, Array};
    /// let a = Array::from_vec(vec![true, false], &[2]);
    /// let b = Array::from_vec(vec![true, true], &[2]);
    /// assert_eq!(np::bitwise_xor(&a, &b).to_vec::<bool>().unwrap(), vec![false, true]);
    /// ```
    bitwise_xor, Xor);
bitwise_fn!(
    /// `jnp.left_shift(a, b)`: shifts by the bit width or more give 0.
    ///
    /// ```
    /// use systolic::{numpy as np, Array};
    /// let a = Array::from_vec(vec![1i32, 1], &[2]);
    /// let s = Array::from_vec(vec![4i32, 40], &[2]);
    /// assert_eq!(np::left_shift(&a, &s).to_vec::<i32>().unwrap(), vec![16, 0]);
    /// ```
    left_shift, ShiftLeft);

/// `jnp.right_shift(a, b)`: arithmetic (sign-filling) for signed integers, logical for
/// unsigned ones.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![-16i32], &[1]);
/// assert_eq!(np::right_shift(&a, &Array::from_vec(vec![2i32], &[1])).to_vec::<i32>().unwrap(), vec![-4]);
/// ```
pub fn right_shift(a: &Array, b: &Array) -> Array {
    match integral("right_shift", &[a, b]) {
        Ok(v) => {
            let kind = if v[0].element_type().kind() == DTypeKind::Signed {
                BinaryOp::ShiftRightArithmetic
            } else {
                BinaryOp::ShiftRightLogical
            };
            binary("right_shift", kind, &v[0], &v[1])
        }
        Err(e) => Array::failed(e),
    }
}

/// `jnp.bitwise_not(x)` (= `jnp.invert`): flips every bit (`!x` for bools).
///
/// ```
/// let x = systolic::Array::from_vec(vec![0i8, 5], &[2]);
/// assert_eq!(systolic::numpy::bitwise_not(&x).to_vec::<i8>().unwrap(), vec![-1, -6]);
/// ```
pub fn bitwise_not(x: &Array) -> Array {
    match integral("bitwise_not", &[x]) {
        Ok(v) => unary("bitwise_not", UnaryOp::Not, &v[0]),
        Err(e) => Array::failed(e),
    }
}

/// `jnp.invert(x)`: the same as [`bitwise_not`].
///
/// ```
/// let x = systolic::Array::from_vec(vec![0u8], &[1]);
/// assert_eq!(systolic::numpy::invert(&x).to_vec::<u8>().unwrap(), vec![255]);
/// ```
pub fn invert(x: &Array) -> Array {
    bitwise_not(x)
}

/// The largest finite value of a float dtype.
fn finite_max(d: DType) -> f64 {
    match d {
        DType::BF16 => f64::from(half::bf16::MAX),
        DType::F16 => f64::from(half::f16::MAX),
        DType::F32 => f64::from(f32::MAX),
        _ => f64::MAX,
    }
}

/// `jnp.nan_to_num(x, nan, posinf, neginf)`: NaN → `nan`, +inf → `posinf` (default: the
/// dtype's largest finite value), −inf → `neginf` (default: its most negative); integers and
/// bools are returned as they are.
///
/// ```
/// let x = systolic::Array::from_vec(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0], &[4]);
/// let y = systolic::numpy::nan_to_num(&x, 0.0, None, Some(-1.0)).to_vec::<f32>().unwrap();
/// assert_eq!(y, vec![0.0, f32::MAX, -1.0, 1.0]);
/// ```
pub fn nan_to_num(x: &Array, nan: f64, posinf: Option<f64>, neginf: Option<f64>) -> Array {
    if x.error().is_some() || !x.element_type().is_float() {
        return x.clone();
    }
    let d = x.element_type();
    let big = finite_max(d);
    let y = np::where_(&isnan(x), &full(&[], nan, d), x);
    let y = np::where_(
        &np::equal(&y, &full(&[], f64::INFINITY, d)),
        &full(&[], posinf.unwrap_or(big), d),
        &y,
    );
    np::where_(
        &np::equal(&y, &full(&[], f64::NEG_INFINITY, d)),
        &full(&[], neginf.unwrap_or(-big), d),
        &y,
    )
}

/// `jnp.deg2rad(x)` = `x · π/180` (ints become f32).
///
/// ```
/// let x = systolic::Array::from_vec(vec![180.0f32], &[1]);
/// assert!((systolic::numpy::deg2rad(&x).to_vec::<f32>().unwrap()[0] - std::f32::consts::PI).abs() < 1e-6);
/// ```
pub fn deg2rad(x: &Array) -> Array {
    np::multiply(
        &to_inexact("deg2rad", x),
        &crate::weak_float(std::f64::consts::PI / 180.0),
    )
}

/// `jnp.rad2deg(x)` = `x · 180/π` (ints become f32).
///
/// ```
/// let x = systolic::Array::from_vec(vec![std::f32::consts::PI], &[1]);
/// assert!((systolic::numpy::rad2deg(&x).to_vec::<f32>().unwrap()[0] - 180.0).abs() < 1e-4);
/// ```
pub fn rad2deg(x: &Array) -> Array {
    np::multiply(
        &to_inexact("rad2deg", x),
        &crate::weak_float(180.0 / std::f64::consts::PI),
    )
}

/// `jnp.isclose(a, b, rtol, atol, equal_nan)`: `|a − b| <= atol + rtol·|b|` in the promoted
/// float dtype (the tolerances rounded to it); infinities are close only to the same
/// infinity, NaN to nothing unless `equal_nan`. Integers and bools compare exactly.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1.0f32, f32::INFINITY, f32::NAN], &[3]);
/// let b = Array::from_vec(vec![1.000001f32, f32::INFINITY, f32::NAN], &[3]);
/// assert_eq!(np::isclose(&a, &b, 1e-5, 1e-8, false).to_vec::<bool>().unwrap(), vec![true, true, false]);
/// assert_eq!(np::isclose(&a, &b, 1e-5, 1e-8, true).to_vec::<bool>().unwrap(), vec![true, true, true]);
/// ```
pub fn isclose(a: &Array, b: &Array, rtol: f64, atol: f64, equal_nan: bool) -> Array {
    let v = match promote_args("isclose", &[a, b]) {
        Ok(v) => v,
        Err(e) => return Array::failed(e),
    };
    let (a, b) = (&v[0], &v[1]);
    if !a.element_type().is_float() {
        return np::equal(a, b);
    }
    let d = a.element_type();
    let close = np::less_equal(
        &np::abs(&np::subtract(a, b)),
        &np::add(
            &full(&[], atol, d),
            &np::multiply(&full(&[], rtol, d), &np::abs(b)),
        ),
    );
    let (a_inf, b_inf) = (isinf(a), isinf(b));
    let close = np::logical_and(&close, &np::logical_not(&np::logical_or(&a_inf, &b_inf)));
    let same_inf = np::logical_and(&np::logical_and(&a_inf, &b_inf), &np::equal(a, b));
    let close = np::logical_or(&close, &same_inf);
    let (a_nan, b_nan) = (isnan(a), isnan(b));
    let close = np::logical_and(&close, &np::logical_not(&np::logical_or(&a_nan, &b_nan)));
    if equal_nan {
        np::logical_or(&close, &np::logical_and(&a_nan, &b_nan))
    } else {
        close
    }
}

/// `jnp.allclose(a, b, rtol, atol, equal_nan)`: [`isclose`] everywhere, a rank-0 bool.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// let b = Array::from_vec(vec![1.0f32, 2.1], &[2]);
/// assert_eq!(np::allclose(&a, &b, 1e-5, 1e-8, false).to_vec::<bool>().unwrap(), vec![false]);
/// ```
pub fn allclose(a: &Array, b: &Array, rtol: f64, atol: f64, equal_nan: bool) -> Array {
    np::all(&isclose(a, b, rtol, atol, equal_nan), None, false)
}
