//! numpy-style ops (`jax.numpy`): operands are promoted (JAX's lattice, weak scalars) and
//! broadcast numpy-style; reductions take `axis` and `keepdims`.
//!
//! ```
//! use systolic::{numpy as np, Array};
//! let x = Array::from_vec(vec![-1.0f32, 0.0, 2.0], &[3]);
//! let y = np::where_(&np::greater(&x, &np::zeros(&[], systolic_ir::DType::F32)), &x, &(&x * 0.5));
//! assert_eq!(y.to_vec::<f32>().unwrap(), vec![-0.5, 0.0, 2.0]);
//! ```

use crate::array::Array;
use crate::ops::elementwise::{binary, chlo_unary, compare, convert, select, to_inexact, unary};
use systolic_ir::{BinaryOp, ChloUnaryOp, ComparisonDirection, DType, UnaryOp};

pub use crate::ops::creation::{arange, arange_f, eye, full, linspace, ones, zeros};
pub use crate::ops::einsum::einsum;
pub use crate::ops::indexing::{at, index, take, take_along_axis, At, Idx, TakeMode};
pub use crate::ops::linalg::{dot, matmul};
pub use crate::ops::matrix::{
    diag, diagonal, inner, kron, outer, ravel, tensordot, trace, tril, triu, TensorAxes,
};
pub use crate::ops::pad::{pad, PadMode};
pub use crate::ops::reduce::{
    all, any, argmax, argmin, count_nonzero, max, max as amax, mean, min, min as amin, nanmax,
    nanmean, nanmin, nansum, prod, ptp, sum,
};
pub use crate::ops::search::{
    argwhere, bincount, diff, flatnonzero, meshgrid, nonzero, searchsorted,
};
pub use crate::ops::shape::{
    broadcast_to, concatenate, expand_dims, flip, moveaxis, repeat, reshape, roll, split,
    squeeze_axes, stack, swapaxes, tile, transpose, Split,
};
pub use crate::ops::sort::{argsort, sort_np as sort};
pub use crate::ops::stats::{average, median, quantile, std, var};
pub use crate::ops::ufuncs::{
    allclose, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, bitwise_and, bitwise_not,
    bitwise_or, bitwise_xor, cbrt, copysign, cosh, deg2rad, exp2, floor_divide, fmod, hypot,
    invert, isclose, isinf, isnan, left_shift, log10, log2, logaddexp, logical_and, logical_not,
    logical_or, logical_xor, mod_, nan_to_num, rad2deg, reciprocal, remainder, right_shift, rint,
    signbit, sinh, tan, true_divide, trunc,
};
pub use crate::ops::window::{cumprod, cumsum};

/// `jnp.linalg`: norms, Cholesky factorisation and triangular solves (what the IR has
/// natively; LU, QR, SVD and eigendecompositions are not available yet).
pub mod linalg {
    pub use crate::ops::np_linalg::{cholesky, norm, solve_triangular, triangular_solve, NormOrd};
}

macro_rules! binary_fn {
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        pub fn $name(a: &Array, b: &Array) -> Array {
            binary(stringify!($name), BinaryOp::$op, a, b)
        }
    };
}

binary_fn!(
    /// `a + b`.
    add, Add);
binary_fn!(
    /// `a - b`.
    subtract, Subtract);
binary_fn!(
    /// `a * b`.
    multiply, Multiply);
binary_fn!(
    /// Elementwise maximum (NaN propagates).
    maximum, Maximum);
binary_fn!(
    /// Elementwise minimum (NaN propagates).
    minimum, Minimum);
binary_fn!(
    /// `a ** b` for float operands.
    power, Power);

/// `a / b`, true division: integer operands give f32.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1i32, 2], &[2]);
/// let b = Array::from_vec(vec![2i32, 2], &[2]);
/// assert_eq!(np::divide(&a, &b).to_vec::<f32>().unwrap(), vec![0.5, 1.0]);
/// ```
pub fn divide(a: &Array, b: &Array) -> Array {
    let (d, _) = crate::core::promote::result_type(&[
        (a.dtype(), a.weak_type()),
        (b.dtype(), b.weak_type()),
    ]);
    if d.is_float() {
        binary("divide", BinaryOp::Divide, a, b)
    } else {
        binary(
            "divide",
            BinaryOp::Divide,
            &to_inexact("divide", a),
            &to_inexact("divide", b),
        )
    }
}

macro_rules! unary_fn {
    ($(#[$doc:meta])* $name:ident, $op:ident, inexact) => {
        $(#[$doc])*
        pub fn $name(x: &Array) -> Array {
            unary(stringify!($name), UnaryOp::$op, &to_inexact(stringify!($name), x))
        }
    };
    ($(#[$doc:meta])* $name:ident, $op:ident) => {
        $(#[$doc])*
        pub fn $name(x: &Array) -> Array {
            unary(stringify!($name), UnaryOp::$op, x)
        }
    };
}

unary_fn!(
    /// `e^x` (ints become f32).
    exp, Exponential, inexact);
unary_fn!(
    /// Natural log.
    log, Log, inexact);
unary_fn!(
    /// `log(1 + x)`.
    log1p, LogPlusOne, inexact);
unary_fn!(
    /// `e^x - 1`.
    expm1, ExponentialMinusOne, inexact);
unary_fn!(
    /// Square root.
    sqrt, Sqrt, inexact);
unary_fn!(
    /// `1 / sqrt(x)`.
    rsqrt, Rsqrt, inexact);
unary_fn!(
    /// Hyperbolic tangent.
    tanh, Tanh, inexact);
unary_fn!(
    /// Sine.
    sin, Sine, inexact);
unary_fn!(
    /// Cosine.
    cos, Cosine, inexact);
unary_fn!(
    /// `1 / (1 + e^-x)`.
    sigmoid, Logistic, inexact);
unary_fn!(
    /// Round down.
    floor, Floor, inexact);
unary_fn!(
    /// Round up.
    ceil, Ceil, inexact);
unary_fn!(
    /// Round half to even (`jnp.round`).
    round, RoundNearestEven, inexact);
unary_fn!(
    /// `-x` (integers wrap).
    negative, Negate);
unary_fn!(
    /// `|x|` (integers wrap: `abs(INT_MIN) = INT_MIN`).
    abs, Abs);
unary_fn!(
    /// The sign: -1, 0 or 1 (NaN stays NaN, ±0 stays).
    sign, Sign);

/// True where `x` is neither infinite nor NaN.
pub fn is_finite(x: &Array) -> Array {
    crate::core::bind::bind1(
        "isfinite",
        systolic_ir::OpKind::Unary(UnaryOp::IsFinite),
        &[&to_inexact("isfinite", x)],
        None,
        false,
    )
}

/// `x * x`.
pub fn square(x: &Array) -> Array {
    multiply(x, x)
}

/// Zeros with `x`'s shape and dtype.
pub fn zeros_like(x: &Array) -> Array {
    crate::ops::creation::zeros(x.shape(), x.dtype())
}

/// `x` without its size-1 dimension `axis`.
///
/// ```
/// let x = systolic::numpy::zeros(&[2, 1], systolic_ir::DType::F32);
/// assert_eq!(systolic::numpy::squeeze(&x, 1).shape(), &[2]);
/// assert!(systolic::numpy::squeeze(&x, 0).check().is_err());
/// ```
pub fn squeeze(x: &Array, axis: i64) -> Array {
    let n = x.ndim() as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if !(0..n).contains(&a) || x.shape()[a as usize] != 1 {
        return Array::failed(crate::Error::Op {
            op: "squeeze".into(),
            message: format!(
                "axis {axis} of {} is not a dimension of size 1",
                crate::array::describe(x.ty())
            ),
        });
    }
    let mut s = x.shape().to_vec();
    s.remove(a as usize);
    reshape(x, &s)
}

/// The error function (CHLO `erf`).
pub fn erf(x: &Array) -> Array {
    chlo_unary("erf", ChloUnaryOp::Erf, &to_inexact("erf", x))
}

macro_rules! compare_fn {
    ($(#[$doc:meta])* $name:ident, $dir:ident) => {
        $(#[$doc])*
        pub fn $name(a: &Array, b: &Array) -> Array {
            compare(stringify!($name), ComparisonDirection::$dir, a, b)
        }
    };
}

compare_fn!(
    /// `a == b`.
    equal, Eq);
compare_fn!(
    /// `a != b`.
    not_equal, Ne);
compare_fn!(
    /// `a < b`.
    less, Lt);
compare_fn!(
    /// `a <= b`.
    less_equal, Le);
compare_fn!(
    /// `a > b`.
    greater, Gt);
compare_fn!(
    /// `a >= b`.
    greater_equal, Ge);

/// `jnp.where(cond, x, y)`.
pub fn where_(cond: &Array, x: &Array, y: &Array) -> Array {
    select("where", cond, x, y)
}

/// `x.astype(dtype)`: a strongly typed copy converted to `dtype`.
///
/// ```
/// let x = systolic::Array::from_vec(vec![2.7f32, -2.7], &[2]);
/// let i = systolic::numpy::astype(&x, systolic_ir::DType::I32);
/// assert_eq!(i.to_vec::<i32>().unwrap(), vec![2, -2]);
/// ```
pub fn astype(x: &Array, dtype: DType) -> Array {
    convert("astype", x, dtype, false)
}

/// `jnp.clip(x, lo, hi)` = `minimum(maximum(x, lo), hi)`.
pub fn clip(x: &Array, lo: &Array, hi: &Array) -> Array {
    minimum(&maximum(x, lo), hi)
}
