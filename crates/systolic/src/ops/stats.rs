//! Statistics over axes: `var`/`std` (with `ddof`), weighted `average`, and the sort-based
//! `quantile`/`median` with JAX's default linear interpolation.

use crate::array::{describe, Array};
use crate::error::Error;
use crate::numpy as np;
use crate::ops::elementwise::convert;
use crate::ops::reduce::norm_axes;
use systolic_ir::DType;

/// The dtype results are reported in (ints and bools: f32) and the one the arithmetic runs
/// in (bf16/f16 upcast to f32), as JAX's `_var_promote_types`.
fn var_dtypes(d: DType) -> (DType, DType) {
    match d {
        DType::F64 => (DType::F64, DType::F64),
        DType::F32 | DType::BF16 | DType::F16 => (DType::F32, d),
        _ => (DType::F32, DType::F32),
    }
}

/// `jnp.var(x, axis, ddof=ddof, keepdims)`: `sum((x − mean)²) / (n − ddof)` in f32 for
/// bf16/f16 (rounded once), f32 for ints; NaN where `n − ddof <= 0`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]);
/// assert_eq!(np::var(&x, None, 0, false).to_vec::<f32>().unwrap(), vec![1.25]);
/// let s = np::std(&x, None, 1, false).to_vec::<f32>().unwrap()[0];
/// assert!((s - (5.0f32 / 3.0).sqrt()).abs() < 1e-6);
/// ```
pub fn var(x: &Array, axis: Option<&[i64]>, ddof: i64, keepdims: bool) -> Array {
    let axes = match norm_axes("var", x, axis) {
        Ok(a) => a,
        Err(e) => return Array::failed(e),
    };
    let (comp, out) = var_dtypes(x.element_type());
    let xc = convert("var", x, comp, false);
    let centred = &xc - &np::mean(&xc, Some(&axes), true);
    let count: i64 = axes.iter().map(|&d| x.dims()[d as usize]).product();
    let normalizer = np::full(&[], (count - ddof) as f64, comp);
    let r = np::divide(
        &np::sum(&np::square(&centred), Some(&axes), keepdims),
        &normalizer,
    );
    let r = convert("var", &r, out, false);
    if count - ddof > 0 {
        r
    } else {
        np::full(r.dims(), f64::NAN, out)
    }
}

/// `jnp.std(x, axis, ddof=ddof, keepdims)` = `sqrt(var(x, axis, ddof, keepdims))`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 3], &[2]);
/// assert_eq!(np::std(&x, None, 0, false).to_vec::<f32>().unwrap(), vec![1.0]);
/// ```
pub fn std(x: &Array, axis: Option<&[i64]>, ddof: i64, keepdims: bool) -> Array {
    np::sqrt(&var(x, axis, ddof, keepdims))
}

/// `jnp.average(x, axis, weights, keepdims)`: [`mean`](crate::numpy::mean) without weights;
/// with weights, `sum(x · w) / sum(w)` in the promoted inexact dtype. `weights` has `x`'s
/// shape, or is 1-D along a single `axis`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let w = Array::from_vec(vec![3.0f32, 1.0], &[2]);
/// let a = np::average(&x, Some(&[1]), Some(&w), false);
/// assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.25, 3.25]);
/// ```
pub fn average(x: &Array, axis: Option<&[i64]>, weights: Option<&Array>, keepdims: bool) -> Array {
    let Some(w) = weights else {
        return np::mean(x, axis, keepdims);
    };
    match weighted(x, axis, w, keepdims) {
        Ok(a) => a,
        Err(e) => Array::failed(e),
    }
}

fn weighted(x: &Array, axis: Option<&[i64]>, w: &Array, keepdims: bool) -> Result<Array, Error> {
    x.check()?;
    w.check()?;
    let axes = norm_axes("average", x, axis)?;
    let (x, w) = crate::ops::ufuncs::promote_inexact_same_shape("average", x, w)?;
    let w = if w.dims() == x.dims() {
        w
    } else if w.rank() == 1 && axes.len() == 1 && w.dims()[0] == x.dims()[axes[0] as usize] {
        let mut s = vec![1; x.rank()];
        s[axes[0] as usize] = w.dims()[0];
        np::broadcast_to(&np::reshape(&w, &s), x.dims())
    } else {
        return Err(Error::op(
            "average",
            format!(
                "weights {} must have the shape of {} or be 1-D along one axis (axis {:?})",
                describe(w.aval()),
                describe(x.aval()),
                axis
            ),
        ));
    };
    let wsum = np::sum(&w, Some(&axes), keepdims);
    Ok(np::divide(
        &np::sum(&(&x * &w), Some(&axes), keepdims),
        &wsum,
    ))
}

/// Rounds `v` to `dtype` as an op of that dtype would (bf16/f16 through f32).
fn round_to(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::BF16 => f64::from(half::bf16::from_f32(v as f32)),
        DType::F16 => f64::from(half::f16::from_f32(v as f32)),
        DType::F32 => f64::from(v as f32),
        _ => v,
    }
}

/// `jnp.quantile(x, q, axis, keepdims)` with the default `method="linear"`: along the
/// (flattened) reduced axes the data is sorted and `q·(n−1)` interpolated between its two
/// neighbours; a slice containing NaN gives NaN. `q` (in `[0, 1]`) is a static number here,
/// so the two positions and their f32 weights are computed while tracing; the interpolation
/// runs in f32 and is cast back to `x`'s dtype, as JAX's; ints give f32.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![4.0f32, 1.0, 3.0, 2.0], &[4]);
/// assert_eq!(np::quantile(&x, 0.25, None, false).to_vec::<f32>().unwrap(), vec![1.75]);
/// assert!(np::quantile(&x, 1.5, None, false).check().unwrap_err().to_string().contains("quantile"));
/// ```
pub fn quantile(x: &Array, q: f64, axis: Option<&[i64]>, keepdims: bool) -> Array {
    sorted_pick("quantile", x, q, axis, keepdims, false).unwrap_or_else(Array::failed)
}

/// `jnp.median(x, axis, keepdims)`: the 0.5 quantile with JAX's `method="midpoint"` (the mean
/// of the two middle elements of an even-length slice).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![4i32, 1, 3, 2, 9, 9], &[2, 3]);
/// assert_eq!(np::median(&x, Some(&[1]), false).to_vec::<f32>().unwrap(), vec![3.0, 9.0]);
/// ```
pub fn median(x: &Array, axis: Option<&[i64]>, keepdims: bool) -> Array {
    sorted_pick("median", x, 0.5, axis, keepdims, true).unwrap_or_else(Array::failed)
}

fn sorted_pick(
    op: &str,
    x: &Array,
    q: f64,
    axis: Option<&[i64]>,
    keepdims: bool,
    midpoint: bool,
) -> Result<Array, Error> {
    x.check()?;
    if !(0.0..=1.0).contains(&q) {
        return Err(Error::op(op, format!("q = {q} must be in [0, 1]")));
    }
    let axes = norm_axes(op, x, axis)?;
    let x = crate::ops::elementwise::to_inexact(op, x);
    let dtype = x.element_type();
    let kept: Vec<i64> = (0..x.rank() as i64).filter(|d| !axes.contains(d)).collect();
    let kept_shape: Vec<i64> = kept.iter().map(|&d| x.dims()[d as usize]).collect();
    let n: i64 = axes.iter().map(|&d| x.dims()[d as usize]).product();
    if n == 0 {
        return Err(Error::op(
            op,
            format!(
                "cannot take a quantile over an empty axis of {}",
                describe(x.aval())
            ),
        ));
    }
    let mut perm = kept.clone();
    perm.extend(&axes);
    let mut flat_shape = kept_shape.clone();
    flat_shape.push(n);
    let flat = np::reshape(&np::transpose(&x, Some(&perm)), &flat_shape);
    let sorted = np::sort(&flat, -1, false);
    let pick = |i: i64| {
        let mut start = vec![0; kept.len()];
        start.push(i);
        let mut limit = kept_shape.clone();
        limit.push(i + 1);
        np::reshape(
            &crate::ops::shape::slice(&sorted, &start, &limit, None),
            &kept_shape,
        )
    };
    // q is an f32 array in JAX (a Python float), so the position and the weights are f32 and
    // the linear interpolation runs in f32 before the result is cast back to x's dtype.
    let pos = round_to(round_to(q, DType::F32) * (n - 1) as f64, DType::F32);
    let (low, high) = (pos.floor(), pos.ceil());
    let (lo_v, hi_v) = (pick(low as i64), pick(high as i64));
    let r = if midpoint {
        &(&lo_v + &hi_v) * &np::full(&[], 0.5, dtype)
    } else {
        let hw = round_to(pos - low, DType::F32);
        let lw = round_to(1.0 - hw, DType::F32);
        let term =
            |v: &Array, w: f64| &convert(op, v, DType::F32, false) * &np::full(&[], w, DType::F32);
        convert(op, &(&term(&lo_v, lw) + &term(&hi_v, hw)), dtype, false)
    };
    let has_nan = np::any(&np::isnan(&flat), Some(&[-1]), false);
    let r = np::where_(&has_nan, &np::full(&[], f64::NAN, dtype), &r);
    if keepdims {
        let s: Vec<i64> = (0..x.rank() as i64)
            .map(|d| {
                if axes.contains(&d) {
                    1
                } else {
                    x.dims()[d as usize]
                }
            })
            .collect();
        Ok(np::reshape(&r, &s))
    } else {
        Ok(r)
    }
}
