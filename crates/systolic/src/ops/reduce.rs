//! Reductions with numpy's `axis`/`keepdims`, and JAX's accumulation dtypes: small ints sum
//! in i32 (unsigned in u32), bf16/f16 accumulate in f32 and round once, means of ints are f32.

use crate::array::{describe, Array};
use crate::core::bind::{bind, bind_with, constant};
use crate::core::body::Body;
use crate::error::Error;
use crate::ops::elementwise::convert;
use crate::ops::shape::reshape;
use systolic_ir::{BinaryOp, Complex64, DType, OpKind, Scalar, Tensor, TensorType};

/// Normalises `axes` (negative counts from the end; `None` = all) to sorted unique dims.
pub(crate) fn norm_axes(op: &str, x: &Array, axes: Option<&[i64]>) -> Result<Vec<i64>, Error> {
    x.check()?; // a failed x has no axes: its own error first
    let n = x.rank() as i64;
    let mut out: Vec<i64> = match axes {
        None => (0..n).collect(),
        Some(a) => a
            .iter()
            .map(|&d| {
                let d2 = if d < 0 { d + n } else { d };
                if (0..n).contains(&d2) {
                    Ok(d2)
                } else {
                    Err(Error::op(
                        op,
                        format!("axis {d} is out of range for {}", describe(x.aval())),
                    ))
                }
            })
            .collect::<Result<_, _>>()?,
    };
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

pub(crate) fn init_value(op: BinaryOp, dtype: DType) -> Scalar {
    use BinaryOp::*;
    match (op, dtype.kind()) {
        (Add, systolic_ir::DTypeKind::Float) => Scalar::Float(0.0),
        (Add, systolic_ir::DTypeKind::Complex) => Scalar::Complex(Complex64::new(0.0, 0.0)),
        (Multiply, systolic_ir::DTypeKind::Complex) => Scalar::Complex(Complex64::new(1.0, 0.0)),
        (Multiply, systolic_ir::DTypeKind::Float) => Scalar::Float(1.0),
        (Maximum, systolic_ir::DTypeKind::Float) => Scalar::Float(f64::NEG_INFINITY),
        (Minimum, systolic_ir::DTypeKind::Float) => Scalar::Float(f64::INFINITY),
        (Add, systolic_ir::DTypeKind::Signed) => Scalar::Int(0),
        (Multiply, systolic_ir::DTypeKind::Signed) => Scalar::Int(1),
        (Maximum, systolic_ir::DTypeKind::Signed) => {
            Scalar::Int(dtype.signed_range().map_or(0, |r| r.0))
        }
        (Minimum, systolic_ir::DTypeKind::Signed) => {
            Scalar::Int(dtype.signed_range().map_or(0, |r| r.1))
        }
        (Add, systolic_ir::DTypeKind::Unsigned) => Scalar::UInt(0),
        (Multiply, systolic_ir::DTypeKind::Unsigned) => Scalar::UInt(1),
        (Maximum, systolic_ir::DTypeKind::Unsigned) => Scalar::UInt(0),
        (Minimum, systolic_ir::DTypeKind::Unsigned) => {
            Scalar::UInt(dtype.unsigned_max().unwrap_or(0))
        }
        (Maximum | Or, systolic_ir::DTypeKind::Bool) => Scalar::Bool(false),
        (Add, systolic_ir::DTypeKind::Bool) => Scalar::Bool(false),
        _ => Scalar::Bool(true),
    }
}

/// `lax.reduce` with a binary monoid over `axes` (no dtype change).
pub(crate) fn reduce(op: &str, kind: BinaryOp, x: &Array, axes: &[i64]) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    let init = match Tensor::splat(
        TensorType::scalar(x.element_type()),
        init_value(kind, x.element_type()),
    ) {
        Ok(t) => constant(t, x.weak_type()),
        Err(e) => return Array::failed(Error::op(op, e.to_string())),
    };
    bind_with(
        op,
        OpKind::Reduce {
            dimensions: axes.to_vec(),
        },
        &[x, &init],
        vec![Body::Reducer(kind, x.element_type())],
        None,
        x.weak_type(),
    )
}

fn keep(x: &Array, r: Array, axes: &[i64], keepdims: bool) -> Array {
    if !keepdims {
        return r;
    }
    let shape: Vec<i64> = (0..x.rank() as i64)
        .map(|d| {
            if axes.contains(&d) {
                1
            } else {
                x.dims()[d as usize]
            }
        })
        .collect();
    reshape(&r, &shape)
}

/// The dtype JAX accumulates a sum of `dtype` in, and the dtype of the result.
fn sum_dtypes(dtype: DType) -> (DType, DType) {
    use DType::*;
    match dtype {
        Bool | I8 | I16 | I2 | I4 => (I32, I32),
        U8 | U16 | U2 | U4 => (U32, U32),
        BF16 | F16 => (F32, dtype),
        d => (d, d),
    }
}

/// `jnp.sum(x, axis, keepdims)`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
/// assert_eq!(np::sum(&x, Some(&[1]), false).to_vec::<f32>().unwrap(), vec![6.0, 15.0]);
/// assert_eq!(np::sum(&x, None, true).shape(), &[1, 1]);
/// let b = Array::from_vec(vec![true, true, false], &[3]);
/// assert_eq!(np::sum(&b, None, false).to_vec::<i32>().unwrap(), vec![2]);
/// ```
pub fn sum(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    let axes = match norm_axes("sum", x, axis) {
        Ok(a) => a,
        Err(e) => return Array::failed(e),
    };
    let (acc, out) = sum_dtypes(x.element_type());
    let xa = convert("sum", x, acc, x.weak_type());
    let r = convert(
        "sum",
        &reduce("sum", BinaryOp::Add, &xa, &axes),
        out,
        x.weak_type(),
    );
    keep(x, r, &axes, keepdims)
}

/// `jnp.max(x, axis, keepdims)` (NaN propagates).
pub fn max(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    minmax("max", BinaryOp::Maximum, x, axis, keepdims)
}

/// `jnp.min(x, axis, keepdims)` (NaN propagates).
pub fn min(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    minmax("min", BinaryOp::Minimum, x, axis, keepdims)
}

fn minmax(op: &str, kind: BinaryOp, x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    match norm_axes(op, x, axis) {
        Ok(axes) => keep(x, reduce(op, kind, x, &axes), &axes, keepdims),
        Err(e) => Array::failed(e),
    }
}

/// `jnp.mean(x, axis, keepdims)`: ints and bools give f32; bf16/f16 accumulate in f32;
/// complex values stay complex.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2], &[2]);
/// let m = np::mean(&x, None, false);
/// assert_eq!(m.dtype(), systolic_ir::DType::F32);
/// assert_eq!(m.to_vec::<f32>().unwrap(), vec![1.5]);
/// ```
pub fn mean(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    let axes = match norm_axes("mean", x, axis) {
        Ok(a) => a,
        Err(e) => return Array::failed(e),
    };
    let out = if x.element_type().is_float_or_complex() {
        x.element_type()
    } else {
        DType::F32
    };
    let count: i64 = axes.iter().map(|&d| x.dims()[d as usize]).product();
    let acc = match out {
        DType::F64 | DType::C64 | DType::C128 => out,
        _ => DType::F32,
    };
    let xf = convert("mean", x, acc, x.weak_type());
    let s = reduce("mean", BinaryOp::Add, &xf, &axes);
    let m = crate::ops::elementwise::binary(
        "mean",
        BinaryOp::Divide,
        &s,
        &crate::ops::elementwise::weak_float(count as f64),
    );
    keep(x, convert("mean", &m, out, x.weak_type()), &axes, keepdims)
}

/// `jnp.argmax(x, axis, keepdims)`: int32 indices of the largest values; ties give the first
/// index and NaN counts as the largest (as in JAX).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, 3.0, 3.0, f32::NAN, 0.0, 2.0], &[2, 3]);
/// assert_eq!(np::argmax(&x, 1, false).to_vec::<i32>().unwrap(), vec![1, 0]);
/// assert_eq!(np::argmin(&x, 1, false).to_vec::<i32>().unwrap(), vec![0, 0]);
/// ```
pub fn argmax(x: &Array, axis: i64, keepdims: bool) -> Array {
    arg_best("argmax", x, axis, keepdims, true)
}

/// `jnp.argmin(x, axis, keepdims)`: like [`argmax`] for the smallest values.
pub fn argmin(x: &Array, axis: i64, keepdims: bool) -> Array {
    arg_best("argmin", x, axis, keepdims, false)
}

fn arg_best(op: &str, x: &Array, axis: i64, keepdims: bool, max: bool) -> Array {
    let axes = match norm_axes(op, x, Some(&[axis])) {
        Ok(a) => a,
        Err(e) => return Array::failed(e),
    };
    let dtype = x.element_type();
    let kind = if max {
        BinaryOp::Maximum
    } else {
        BinaryOp::Minimum
    };
    let init_v = match Tensor::splat(TensorType::scalar(dtype), init_value(kind, dtype)) {
        Ok(t) => constant(t, false),
        Err(e) => return Array::failed(Error::op(op, e.to_string())),
    };
    let init_i = match Tensor::from_i64(vec![], DType::I32, vec![0]) {
        Ok(t) => constant(t, false),
        Err(e) => return Array::failed(Error::op(op, e.to_string())),
    };
    let idx = crate::ops::creation::iota(DType::I32, x.dims(), axes[0]);
    let r = bind(
        op,
        OpKind::Reduce {
            dimensions: axes.clone(),
        },
        &[x, &idx, &init_v, &init_i],
        vec![Body::ArgBest {
            dtype,
            index: DType::I32,
            max,
        }],
        None,
        false,
    );
    match r {
        Ok(mut v) if v.len() == 2 => keep(x, v.remove(1), &axes, keepdims),
        Ok(v) => Array::failed(Error::op(
            op,
            format!("expected 2 results, got {}", v.len()),
        )),
        Err(e) => Array::failed(e),
    }
}

/// `jnp.prod(x, axis, keepdims)`: the dtypes of [`sum`] (small ints multiply in i32, bools
/// give i32, bf16/f16 multiply in f32 and round once); integers wrap.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i8, 2, 3, 4, 5, 6], &[2, 3]);
/// let p = np::prod(&x, Some(&[-1]), false);
/// assert_eq!(p.dtype(), systolic_ir::DType::I32);
/// assert_eq!(p.to_vec::<i32>().unwrap(), vec![6, 120]);
/// ```
pub fn prod(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    let axes = match norm_axes("prod", x, axis) {
        Ok(a) => a,
        Err(e) => return Array::failed(e),
    };
    let (acc, out) = sum_dtypes(x.element_type());
    let xa = convert("prod", x, acc, x.weak_type());
    let r = convert(
        "prod",
        &reduce("prod", BinaryOp::Multiply, &xa, &axes),
        out,
        x.weak_type(),
    );
    keep(x, r, &axes, keepdims)
}

/// `x != 0` (bools as they are): the truth values `all`, `any` and `count_nonzero` reduce.
fn truth(op: &str, x: &Array) -> Array {
    if x.error().is_some() || x.element_type() == DType::Bool {
        return x.clone();
    }
    let zero = convert(
        op,
        &crate::ops::elementwise::weak_int(0),
        x.element_type(),
        false,
    );
    crate::numpy::not_equal(x, &zero)
}

fn bool_reduce(op: &str, kind: BinaryOp, x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    match norm_axes(op, x, axis) {
        Ok(axes) => keep(x, reduce(op, kind, &truth(op, x), &axes), &axes, keepdims),
        Err(e) => Array::failed(e),
    }
}

/// `jnp.all(x, axis, keepdims)`: true where every element is non-zero (NaN counts as
/// non-zero); an empty reduction is true.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, f32::NAN, 0.0, 2.0], &[2, 2]);
/// assert_eq!(np::all(&x, Some(&[1]), false).to_vec::<bool>().unwrap(), vec![true, false]);
/// ```
pub fn all(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    bool_reduce("all", BinaryOp::And, x, axis, keepdims)
}

/// `jnp.any(x, axis, keepdims)`: true where some element is non-zero; an empty reduction is
/// false.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![0i32, 0, 0, 3], &[2, 2]);
/// assert_eq!(np::any(&x, Some(&[1]), true).to_vec::<bool>().unwrap(), vec![false, true]);
/// ```
pub fn any(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    bool_reduce("any", BinaryOp::Or, x, axis, keepdims)
}

/// `jnp.count_nonzero(x, axis, keepdims)`: the number of non-zero elements, as i32.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![0.0f32, 1.5, -2.0, 0.0], &[4]);
/// assert_eq!(np::count_nonzero(&x, None, false).to_vec::<i32>().unwrap(), vec![2]);
/// ```
pub fn count_nonzero(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    if let Err(e) = norm_axes("count_nonzero", x, axis) {
        return Array::failed(e);
    }
    sum(&truth("count_nonzero", x), axis, keepdims)
}

/// `jnp.ptp(x, axis, keepdims)`: `max − min` (peak to peak), in `x`'s dtype.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![3i32, -1, 7, 2], &[2, 2]);
/// assert_eq!(np::ptp(&x, Some(&[0]), false).to_vec::<i32>().unwrap(), vec![4, 3]);
/// ```
pub fn ptp(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    if let Err(e) = norm_axes("ptp", x, axis) {
        return Array::failed(e);
    }
    crate::numpy::subtract(&max(x, axis, keepdims), &min(x, axis, keepdims))
}

/// `x` with NaNs replaced by `value` (for float dtypes; other dtypes have no NaN).
fn replace_nan(x: &Array, value: f64) -> Array {
    if x.error().is_some() || !x.element_type().is_float() {
        return x.clone();
    }
    let v = crate::ops::creation::full(&[], value, x.element_type());
    crate::numpy::where_(&crate::numpy::isnan(x), &v, x)
}

/// `jnp.nansum(x, axis, keepdims)`: [`sum`] with NaNs counted as zero.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, f32::NAN, 2.0], &[3]);
/// assert_eq!(np::nansum(&x, None, false).to_vec::<f32>().unwrap(), vec![3.0]);
/// ```
pub fn nansum(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    sum(&replace_nan(x, 0.0), axis, keepdims)
}

/// The NaN-ignoring max/min: NaNs become the reduction's identity, and a slice that is all
/// NaN gives NaN.
fn nan_minmax(op: &str, kind: BinaryOp, x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    if let Err(e) = norm_axes(op, x, axis) {
        return Array::failed(e);
    }
    if !x.element_type().is_float() {
        return minmax(op, kind, x, axis, keepdims);
    }
    let fill = if kind == BinaryOp::Maximum {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let r = minmax(op, kind, &replace_nan(x, fill), axis, keepdims);
    let all_nan = all(&crate::numpy::isnan(x), axis, keepdims);
    crate::numpy::where_(
        &all_nan,
        &crate::ops::creation::full(&[], f64::NAN, x.element_type()),
        &r,
    )
}

/// `jnp.nanmax(x, axis, keepdims)`: the max ignoring NaNs (NaN where a slice is all NaN).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, f32::NAN, f32::NAN, f32::NAN], &[2, 2]);
/// let m = np::nanmax(&x, Some(&[1]), false).to_vec::<f32>().unwrap();
/// assert_eq!(m[0], 1.0);
/// assert!(m[1].is_nan());
/// ```
pub fn nanmax(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    nan_minmax("nanmax", BinaryOp::Maximum, x, axis, keepdims)
}

/// `jnp.nanmin(x, axis, keepdims)`: the min ignoring NaNs (NaN where a slice is all NaN).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![3.0f32, f32::NAN, -1.0], &[3]);
/// assert_eq!(np::nanmin(&x, None, false).to_vec::<f32>().unwrap(), vec![-1.0]);
/// ```
pub fn nanmin(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    nan_minmax("nanmin", BinaryOp::Minimum, x, axis, keepdims)
}

/// `jnp.nanmean(x, axis, keepdims)`: the sum of the non-NaN elements over their count, both
/// in `x`'s dtype as JAX computes them (integers: [`mean`]); an all-NaN slice gives NaN.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, f32::NAN, 2.0], &[3]);
/// assert_eq!(np::nanmean(&x, None, false).to_vec::<f32>().unwrap(), vec![1.5]);
/// ```
pub fn nanmean(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    if let Err(e) = norm_axes("nanmean", x, axis) {
        return Array::failed(e);
    }
    if !x.element_type().is_float() {
        return mean(x, axis, keepdims);
    }
    let count = sum(
        &crate::numpy::logical_not(&crate::numpy::isnan(x)),
        axis,
        keepdims,
    );
    let count = convert("nanmean", &count, x.element_type(), false);
    crate::numpy::divide(&nansum(x, axis, keepdims), &count)
}
