//! Elementwise ops: operands are promoted to a common dtype (JAX's lattice, weak scalars
//! included) and broadcast numpy-style before the StableHLO op is bound.
//!
//! The promoting and broadcasting helpers the other families build on come first, then
//! numpy's elementwise ops that are one StableHLO/CHLO op each (`add`, `exp`, `less`, `where_`,
//! `astype`, …). numpy's composite ufuncs are in [`ufuncs`](super::ufuncs); lax's ops without
//! promotion in [`strict`](super::strict).

use crate::array::{describe, Array};
use crate::core::bind::{bind1, constant};
use crate::core::promote::result_type;
use crate::error::Error;
use systolic_ir::{
    BinaryOp, ChloUnaryOp, ComparisonDirection, DType, OpKind, Scalar, Tensor, TensorType, UnaryOp,
};

/// The numpy broadcast shape of two shapes, or `None` when they are incompatible.
pub(crate) fn broadcast_shapes(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// `x` broadcast to `shape` (numpy rules: leading dims added, size-1 dims stretched).
pub(crate) fn broadcast_to_shape(op: &str, x: &Array, shape: &[i64]) -> Array {
    if x.error().is_some() || x.dims() == shape {
        return x.clone();
    }
    let offset = shape.len().saturating_sub(x.rank());
    let ok = x.rank() <= shape.len()
        && x.dims()
            .iter()
            .enumerate()
            .all(|(i, &d)| d == 1 || d == shape[i + offset]);
    if !ok {
        return Array::failed(Error::op(
            op,
            format!(
                "cannot broadcast {} to shape {:?}",
                describe(x.aval()),
                shape
            ),
        ));
    }
    // Stretched size-1 dims are dropped by a reshape first, so broadcast_in_dim only maps.
    let keep: Vec<usize> = (0..x.rank())
        .filter(|&i| x.dims()[i] == shape[i + offset])
        .collect();
    let squeezed = if keep.len() == x.rank() {
        x.clone()
    } else {
        let s: Vec<i64> = keep.iter().map(|&i| x.dims()[i]).collect();
        bind1(
            op,
            OpKind::Reshape,
            &[x],
            Some(TensorType::new(s, x.element_type())),
            x.weak_type(),
        )
    };
    let dims: Vec<i64> = keep.iter().map(|&i| (i + offset) as i64).collect();
    bind1(
        op,
        OpKind::BroadcastInDim {
            broadcast_dimensions: dims,
        },
        &[&squeezed],
        Some(TensorType::new(shape.to_vec(), x.element_type())),
        x.weak_type(),
    )
}

/// `x` converted to `dtype`, keeping (or setting) the weak flag.
pub(crate) fn convert(op: &str, x: &Array, dtype: DType, weak: bool) -> Array {
    if x.error().is_some() || (x.element_type() == dtype && x.weak_type() == weak) {
        return x.clone();
    }
    if x.element_type() == dtype {
        return crate::array::Array::make(x.aval().clone(), weak, x.device(), x.inner.repr.clone());
    }
    bind1(
        op,
        OpKind::Convert,
        &[x],
        Some(x.aval().with_dtype(dtype)),
        weak,
    )
}

/// Promotes and broadcasts operands to one dtype and shape.
pub(crate) fn promote_args(op: &str, xs: &[&Array]) -> Result<Vec<Array>, Error> {
    for x in xs {
        x.check()?;
    }
    let pairs: Vec<(DType, bool)> = xs
        .iter()
        .map(|x| (x.element_type(), x.weak_type()))
        .collect();
    if let Some(why) = crate::core::promote::implicit_promotion_error(&pairs) {
        return Err(Error::op(op, why));
    }
    let (dtype, weak) = result_type(&pairs);
    let mut shape: Vec<i64> = vec![];
    for x in xs {
        shape = broadcast_shapes(&shape, x.dims()).ok_or_else(|| {
            Error::op(
                op,
                format!(
                    "shapes cannot broadcast together: {}",
                    xs.iter()
                        .map(|x| describe(x.aval()))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            )
        })?;
    }
    Ok(xs
        .iter()
        .map(|x| broadcast_to_shape(op, &convert(op, x, dtype, weak), &shape))
        .collect())
}

/// A binary op after promotion and broadcasting.
pub(crate) fn binary(op: &str, kind: BinaryOp, a: &Array, b: &Array) -> Array {
    match promote_args(op, &[a, b]) {
        Ok(v) => {
            let weak = v[0].weak_type();
            bind1(op, OpKind::Binary(kind), &[&v[0], &v[1]], None, weak)
        }
        Err(e) => Array::failed(e),
    }
}

/// A unary op on `x` as it is.
pub(crate) fn unary(op: &str, kind: UnaryOp, x: &Array) -> Array {
    bind1(op, OpKind::Unary(kind), &[x], None, x.weak_type())
}

/// A CHLO unary op on `x` as it is.
pub(crate) fn chlo_unary(op: &str, kind: ChloUnaryOp, x: &Array) -> Array {
    bind1(op, OpKind::ChloUnary(kind), &[x], None, x.weak_type())
}

/// Floats and complex numbers stay, everything else becomes f32 (what `jnp.exp` of an int
/// does).
pub(crate) fn to_inexact(op: &str, x: &Array) -> Array {
    if x.element_type().is_float_or_complex() {
        x.clone()
    } else {
        convert(op, x, DType::F32, x.weak_type())
    }
}

/// A comparison after promotion and broadcasting; the result is bool.
pub(crate) fn compare(op: &str, direction: ComparisonDirection, a: &Array, b: &Array) -> Array {
    match promote_args(op, &[a, b]) {
        Ok(v) => bind1(
            op,
            OpKind::Compare {
                direction,
                compare_type: None,
            },
            &[&v[0], &v[1]],
            None,
            false,
        ),
        Err(e) => Array::failed(e),
    }
}

/// `where(cond, x, y)`: promotes x and y, broadcasts all three.
pub(crate) fn select(op: &str, cond: &Array, x: &Array, y: &Array) -> Array {
    if let Err(e) = cond.check() {
        return Array::failed(e);
    }
    if cond.element_type() != DType::Bool {
        return Array::failed(Error::op(
            op,
            format!("the condition must be bool, got {}", describe(cond.aval())),
        ));
    }
    let v = match promote_args(op, &[x, y]) {
        Ok(v) => v,
        Err(e) => return Array::failed(e),
    };
    let Some(shape) = broadcast_shapes(cond.dims(), v[0].dims()) else {
        return Array::failed(Error::op(
            op,
            format!(
                "condition {} does not broadcast with {}",
                describe(cond.aval()),
                describe(v[0].aval())
            ),
        ));
    };
    let c = broadcast_to_shape(op, cond, &shape);
    let a = broadcast_to_shape(op, &v[0], &shape);
    let b = broadcast_to_shape(op, &v[1], &shape);
    let weak = a.weak_type();
    bind1(op, OpKind::Select, &[&c, &a, &b], None, weak)
}

/// A weakly typed rank-0 constant from a Rust float (`f32`, weak).
pub fn weak_float(x: f64) -> Array {
    constant(
        Tensor::splat(
            TensorType::scalar(DType::F32),
            Scalar::Float(x as f32 as f64),
        )
        .unwrap_or_else(|_| Tensor::scalar_f32(x as f32)),
        true,
    )
}

/// A weakly typed rank-0 complex constant `re + i·im` (`complex<f32>`, weak, as a Python
/// complex scalar is in JAX).
///
/// ```
/// use systolic::{Array, Complex32};
/// let x = Array::from_vec(vec![2.0f32], &[1]);
/// let y = &x * Complex32::new(0.0, 1.0);
/// assert_eq!(y.dtype(), systolic_ir::DType::C64);
/// assert_eq!(y.to_vec::<Complex32>().unwrap(), vec![Complex32::new(0.0, 2.0)]);
/// ```
pub fn weak_complex(re: f64, im: f64) -> Array {
    match Tensor::from_complex(
        vec![],
        DType::C64,
        vec![systolic_ir::Complex64::new(
            re as f32 as f64,
            im as f32 as f64,
        )],
    ) {
        Ok(t) => constant(t, true),
        Err(e) => Array::failed(Error::Host(e.to_string())),
    }
}

/// A weakly typed rank-0 constant from a Rust integer (`i32`, weak).
pub fn weak_int(x: i64) -> Array {
    match Tensor::from_i64(vec![], DType::I32, vec![x as i32 as i64]) {
        Ok(t) => constant(t, true),
        Err(e) => Array::failed(Error::Host(e.to_string())),
    }
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
    let (d, _) = result_type(&[
        (a.element_type(), a.weak_type()),
        (b.element_type(), b.weak_type()),
    ]);
    if d.is_float_or_complex() {
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
    bind1(
        "isfinite",
        OpKind::Unary(UnaryOp::IsFinite),
        &[&to_inexact("isfinite", x)],
        None,
        false,
    )
}

/// `x * x`.
pub fn square(x: &Array) -> Array {
    multiply(x, x)
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
///
/// A complex array cast to a real dtype keeps its real part, as numpy and JAX do (StableHLO's
/// convert has no complex-to-real form, so the real part is taken first).
pub fn astype(x: &Array, dtype: DType) -> Array {
    if x.error().is_none() && x.element_type().is_complex() && !dtype.is_complex() {
        return convert("astype", &crate::ops::complex::lax_real(x), dtype, false);
    }
    convert("astype", x, dtype, false)
}

/// `jnp.clip(x, lo, hi)` = `minimum(maximum(x, lo), hi)`.
pub fn clip(x: &Array, lo: &Array, hi: &Array) -> Array {
    minimum(&maximum(x, lo), hi)
}
