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
    if x.error().is_none() && !x.dtype().is_float() {
        return crate::ops::creation::full(x.shape(), 0.0, systolic_ir::DType::Bool);
    }
    np::not_equal(x, x)
}

/// `x != 0` for numbers, `x` for bools: the truth value numpy's logical ops take.
fn truth(op: &str, x: &Array) -> Array {
    if x.error().is_some() || x.dtype() == systolic_ir::DType::Bool {
        return x.clone();
    }
    let zero = crate::ops::elementwise::convert(op, &crate::weak_int(0), x.dtype(), false);
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
    let (d, weak) =
        crate::promote::result_type(&[(a.dtype(), a.weak_type()), (b.dtype(), b.weak_type())]);
    let a = to_inexact(op, &crate::ops::elementwise::convert(op, a, d, weak));
    let b = to_inexact(op, &crate::ops::elementwise::convert(op, b, d, weak));
    Ok((a, b))
}
