//! Array creation: `zeros`, `ones`, `full`, `zeros_like`, `arange`, `linspace`, `eye`, `iota`,
//! and `jax.nn.one_hot` (an iota compared with the indices). They are ops (a scalar constant
//! broadcast, an iota), so under `jit` they are staged, not baked in.

use crate::array::Array;
use crate::core::bind::{bind1, constant};
use crate::error::Error;
use crate::ops::elementwise::{binary, broadcast_to_shape, compare, convert, weak_float};
use systolic_ir::{
    BinaryOp, ComparisonDirection, DType, DTypeKind, OpKind, Scalar, Tensor, TensorType,
};

pub(crate) fn scalar_of(dtype: DType, value: f64) -> Scalar {
    match dtype.kind() {
        DTypeKind::Bool => Scalar::Bool(value != 0.0),
        DTypeKind::Signed => Scalar::Int(value as i64),
        DTypeKind::Unsigned => Scalar::UInt(value as u64),
        DTypeKind::Float => Scalar::Float(value),
        DTypeKind::Complex => Scalar::Complex(systolic_ir::Complex64::new(value, 0.0)),
    }
}

/// An array of `shape` filled with `value` converted to `dtype`.
///
/// ```
/// use systolic::numpy as np;
/// use systolic_ir::DType;
/// let a = np::full(&[2, 2], 7.0, DType::I32);
/// assert_eq!(a.to_vec::<i32>().unwrap(), vec![7; 4]);
/// ```
pub fn full(shape: &[i64], value: f64, dtype: DType) -> Array {
    match Tensor::splat(TensorType::scalar(dtype), scalar_of(dtype, value)) {
        Ok(t) => broadcast_to_shape("full", &constant(t, false), shape),
        Err(e) => Array::failed(Error::op("full", e.to_string())),
    }
}

/// Zeros of `shape` and `dtype`.
///
/// ```
/// let z = systolic::numpy::zeros(&[3], systolic_ir::DType::F32);
/// assert_eq!(z.to_vec::<f32>().unwrap(), vec![0.0; 3]);
/// ```
pub fn zeros(shape: &[i64], dtype: DType) -> Array {
    full(shape, 0.0, dtype)
}

/// Ones of `shape` and `dtype`.
///
/// ```
/// let o = systolic::numpy::ones(&[2], systolic_ir::DType::BF16);
/// assert_eq!(o.to_vec::<half::bf16>().unwrap(), vec![half::bf16::ONE; 2]);
/// ```
pub fn ones(shape: &[i64], dtype: DType) -> Array {
    full(shape, 1.0, dtype)
}

/// `lax.iota(dtype, shape, dimension)`: counts along `dimension`.
///
/// ```
/// let i = systolic::lax::iota(systolic_ir::DType::I32, &[2, 3], 1);
/// assert_eq!(i.to_vec::<i32>().unwrap(), vec![0, 1, 2, 0, 1, 2]);
/// ```
pub fn iota(dtype: DType, shape: &[i64], dimension: i64) -> Array {
    bind1(
        "iota",
        OpKind::Iota { dimension },
        &[],
        Some(TensorType::new(shape.to_vec(), dtype)),
        false,
    )
}

/// `jnp.arange(n)`: `0, 1, …, n-1` as int32.
///
/// ```
/// assert_eq!(systolic::numpy::arange(3).to_vec::<i32>().unwrap(), vec![0, 1, 2]);
/// ```
pub fn arange(n: i64) -> Array {
    iota(DType::I32, &[n.max(0)], 0)
}

/// `jnp.arange(start, stop, step)` with float bounds: f32 values `start + i·step`.
///
/// ```
/// let a = systolic::numpy::arange_f(0.0, 1.0, 0.25);
/// assert_eq!(a.to_vec::<f32>().unwrap(), vec![0.0, 0.25, 0.5, 0.75]);
/// ```
pub fn arange_f(start: f64, stop: f64, step: f64) -> Array {
    if step == 0.0 || !step.is_finite() {
        return Array::failed(Error::op(
            "arange",
            format!("step must be finite and non-zero, got {step}"),
        ));
    }
    let n = ((stop - start) / step).ceil().max(0.0) as i64;
    let i = iota(DType::F32, &[n], 0);
    let scaled = binary("arange", BinaryOp::Multiply, &i, &weak_float(step));
    binary("arange", BinaryOp::Add, &scaled, &weak_float(start))
}

/// `jnp.linspace(start, stop, num)` (endpoint included) in f32, computed as JAX does:
/// `start·(1 − t) + stop·t` with `t = i / (num − 1)` for the first `num − 1` values, then
/// `stop` itself.
///
/// ```
/// let l = systolic::numpy::linspace(0.0, 1.0, 5);
/// assert_eq!(l.to_vec::<f32>().unwrap(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
/// ```
pub fn linspace(start: f64, stop: f64, num: i64) -> Array {
    if num < 0 {
        return Array::failed(Error::op(
            "linspace",
            format!("num must be >= 0, got {num}"),
        ));
    }
    let start_a = convert("linspace", &weak_float(start), DType::F32, false);
    let stop_a = convert("linspace", &weak_float(stop), DType::F32, false);
    if num <= 1 {
        return broadcast_to_shape("linspace", &start_a, &[num]);
    }
    let div = (num - 1) as f64;
    let t = binary(
        "linspace",
        BinaryOp::Divide,
        &iota(DType::F32, &[num - 1], 0),
        &weak_float(div),
    );
    let one_minus = binary("linspace", BinaryOp::Subtract, &weak_float(1.0), &t);
    let a = binary("linspace", BinaryOp::Multiply, &start_a, &one_minus);
    let b = binary("linspace", BinaryOp::Multiply, &stop_a, &t);
    let head = binary("linspace", BinaryOp::Add, &a, &b);
    let last = broadcast_to_shape("linspace", &stop_a, &[1]);
    crate::ops::shape::concatenate(&[&head, &last], 0)
}

/// `jnp.eye(n, m, k)`: ones on the `k`-th diagonal.
///
/// ```
/// let e = systolic::numpy::eye(2, None, 0, systolic_ir::DType::F32);
/// assert_eq!(e.to_vec::<f32>().unwrap(), vec![1.0, 0.0, 0.0, 1.0]);
/// ```
pub fn eye(n: i64, m: Option<i64>, k: i64, dtype: DType) -> Array {
    let m = m.unwrap_or(n);
    let rows = iota(DType::I32, &[n, m], 0);
    let cols = iota(DType::I32, &[n, m], 1);
    let shifted = binary(
        "eye",
        BinaryOp::Add,
        &rows,
        &crate::ops::elementwise::weak_int(k),
    );
    let on = compare("eye", ComparisonDirection::Eq, &shifted, &cols);
    convert("eye", &on, dtype, false)
}

/// Zeros with `x`'s shape and dtype.
pub fn zeros_like(x: &Array) -> Array {
    zeros(x.dims(), x.element_type())
}

/// `one_hot(indices, num_classes, dtype)`: `indices[..., None] == iota(num_classes)`;
/// out-of-range and negative indices give all-zero rows, as in JAX.
///
/// ```
/// let i = systolic::Array::from_vec(vec![0i32, 2, -1, 3], &[4]);
/// let h = systolic::nn::one_hot(&i, 3, systolic_ir::DType::F32);
/// assert_eq!(h.shape(), &[4, 3]);
/// assert_eq!(
///     h.to_vec::<f32>().unwrap(),
///     vec![1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
/// );
/// ```
pub fn one_hot(indices: &Array, num_classes: i64, dtype: systolic_ir::DType) -> Array {
    let mut shape = indices.dims().to_vec();
    shape.push(num_classes);
    let classes = iota(indices.element_type(), &shape, shape.len() as i64 - 1);
    let expanded = crate::numpy::expand_dims(indices, -1);
    convert(
        "one_hot",
        &crate::numpy::equal(&expanded, &classes),
        dtype,
        false,
    )
}
