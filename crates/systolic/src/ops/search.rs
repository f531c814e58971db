//! Grids, differences and searches: `meshgrid`, `diff`, `searchsorted`, `bincount` and the
//! `nonzero` family. Data-dependent output sizes are static here as under `jit` in JAX: a
//! `size` (with `fill_value` padding) is required on traced arrays, and only a concrete array's
//! count can be read to pick it.

use crate::array::{describe, Array};
use crate::error::Error;
use crate::lax;
use crate::numpy as np;
use crate::ops::creation::full;
use systolic_ir::{DType, DTypeKind};

fn or_fail(r: Result<Array, Error>) -> Array {
    r.unwrap_or_else(Array::failed)
}

/// `jnp.meshgrid(*xs, indexing=…)` of 1-D arrays: with `ij` indexing output `i` varies along
/// axis `i`; with `xy` (numpy's default) the first two axes are swapped.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3], &[3]);
/// let y = Array::from_vec(vec![10i32, 20], &[2]);
/// let g = np::meshgrid(&[&x, &y], true).unwrap();
/// assert_eq!(g[0].shape(), &[2, 3]);
/// assert_eq!(g[0].to_vec::<i32>().unwrap(), vec![1, 2, 3, 1, 2, 3]);
/// assert_eq!(g[1].to_vec::<i32>().unwrap(), vec![10, 10, 10, 20, 20, 20]);
/// ```
pub fn meshgrid(xs: &[&Array], xy: bool) -> Result<Vec<Array>, Error> {
    for x in xs {
        x.check()?;
        if x.rank() != 1 {
            return Err(Error::op(
                "meshgrid",
                format!("expected 1-D arrays, got {}", describe(x.aval())),
            ));
        }
    }
    let n = xs.len();
    let mut shape: Vec<i64> = xs.iter().map(|x| x.dims()[0]).collect();
    let mut axis_of: Vec<usize> = (0..n).collect();
    if xy && n >= 2 {
        shape.swap(0, 1);
        axis_of.swap(0, 1);
    }
    Ok(xs
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let mut s = vec![1; n];
            s[axis_of[i]] = x.dims()[0];
            np::broadcast_to(&np::reshape(x, &s), &shape)
        })
        .collect())
}

/// `jnp.diff(x, n, axis)`: the `n`-th forward difference `x[1:] − x[:-1]` along `axis`
/// (bools: `!=`, as numpy).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 4, 9, 16], &[4]);
/// assert_eq!(np::diff(&x, 1, -1).to_vec::<i32>().unwrap(), vec![3, 5, 7]);
/// assert_eq!(np::diff(&x, 2, 0).to_vec::<i32>().unwrap(), vec![2, 2]);
/// ```
pub fn diff(x: &Array, n: usize, axis: i64) -> Array {
    or_fail((|| {
        x.check()?;
        let a = crate::ops::shape::norm_axis("diff", x, axis, x.rank())?;
        let mut y = x.clone();
        for _ in 0..n {
            let len = y.dims()[a];
            if len == 0 {
                break;
            }
            let start = vec![0; y.rank()];
            let limit = y.dims().to_vec();
            let (mut s1, mut l0) = (start.clone(), limit.clone());
            s1[a] = 1;
            l0[a] = len - 1;
            let hi = crate::ops::shape::slice(&y, &s1, &limit, None);
            let lo = crate::ops::shape::slice(&y, &start, &l0, None);
            y = if y.element_type() == DType::Bool {
                np::not_equal(&hi, &lo)
            } else {
                np::subtract(&hi, &lo)
            };
        }
        Ok(y)
    })())
}

/// `a < b` in the order sorting uses: NaN after every number.
fn sort_lt(a: &Array, b: &Array) -> Array {
    if !a.element_type().is_float() {
        return np::less(a, b);
    }
    np::logical_or(
        &np::less(a, b),
        &np::logical_and(&np::isnan(b), &np::logical_not(&np::isnan(a))),
    )
}

/// `jnp.searchsorted(a, v, side)`: for each element of `v`, the index at which it would be
/// inserted into the sorted 1-D `a` to keep it sorted — before equal elements (`right =
/// false`, numpy's "left") or after them. NaN sorts last. The result is i32 with `v`'s shape.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1.0f32, 2.0, 2.0, 3.0], &[4]);
/// let v = Array::from_vec(vec![2.0f32, 0.0, 9.0], &[3]);
/// assert_eq!(np::searchsorted(&a, &v, false).to_vec::<i32>().unwrap(), vec![1, 0, 4]);
/// assert_eq!(np::searchsorted(&a, &v, true).to_vec::<i32>().unwrap(), vec![3, 0, 4]);
/// ```
pub fn searchsorted(a: &Array, v: &Array, right: bool) -> Array {
    or_fail((|| {
        a.check()?;
        v.check()?;
        if a.rank() != 1 {
            return Err(Error::op(
                "searchsorted",
                format!("the sorted array must be 1-D, got {}", describe(a.aval())),
            ));
        }
        // One dtype for both, each keeping its shape.
        let (d, _) = crate::core::promote::result_type(&[
            (a.element_type(), false),
            (v.element_type(), false),
        ]);
        let conv = |x: &Array| crate::ops::elementwise::convert("searchsorted", x, d, false);
        let p = [conv(a), conv(v)];
        let mut vs = p[1].dims().to_vec();
        vs.push(1);
        let q = np::reshape(&p[1], &vs);
        // left: how many a_i < v; right: how many a_i <= v, i.e. not v < a_i.
        let hits = if right {
            np::logical_not(&sort_lt(&q, &p[0]))
        } else {
            sort_lt(&p[0], &q)
        };
        let count = np::sum(&hits, Some(&[-1]), false);
        Ok(crate::ops::elementwise::convert(
            "searchsorted",
            &count,
            DType::I32,
            false,
        ))
    })())
}

/// `jnp.bincount(x, weights, length=length)`: how often each value `0..length` occurs in the
/// 1-D integer `x` (summing `weights` instead of ones when given); negative values count as 0
/// and values `>= length` are dropped, as JAX does. `length` is static, as JAX requires under
/// `jit`. Counts are i32; weighted sums have the weights' dtype.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![0i32, 1, 1, 3, 7, -2], &[6]);
/// assert_eq!(np::bincount(&x, None, 4).to_vec::<i32>().unwrap(), vec![2, 2, 0, 1]);
/// ```
pub fn bincount(x: &Array, weights: Option<&Array>, length: i64) -> Array {
    or_fail((|| {
        let op = "bincount";
        x.check()?;
        if x.rank() != 1
            || !matches!(
                x.element_type().kind(),
                DTypeKind::Signed | DTypeKind::Unsigned
            )
        {
            return Err(Error::op(
                op,
                format!("expected a 1-D integer array, got {}", describe(x.aval())),
            ));
        }
        if length < 0 {
            return Err(Error::op(op, format!("length must be >= 0, got {length}")));
        }
        if let Some(w) = weights {
            w.check()?;
            if w.dims() != x.dims() {
                return Err(Error::op(
                    op,
                    format!(
                        "weights {} must have the shape of {}",
                        describe(w.aval()),
                        describe(x.aval())
                    ),
                ));
            }
        }
        let n = x.dims()[0];
        let xi = np::maximum(x, &full(&[], 0.0, x.element_type()));
        let bins = lax::iota(x.element_type(), &[n, length], 1);
        let hit = np::equal(&np::reshape(&xi, &[n, 1]), &bins);
        match weights {
            None => Ok(np::sum(
                &crate::ops::elementwise::convert(op, &hit, DType::I32, false),
                Some(&[0]),
                false,
            )),
            Some(w) => {
                let wz = np::where_(
                    &hit,
                    &np::reshape(w, &[n, 1]),
                    &full(&[], 0.0, w.element_type()),
                );
                Ok(crate::ops::elementwise::convert(
                    op,
                    &np::sum(&wz, Some(&[0]), false),
                    w.element_type(),
                    false,
                ))
            }
        }
    })())
}

/// The number of non-zero elements of a concrete array (what JAX reads when no `size` is
/// given), or the tracing error JAX raises for a traced one.
fn concrete_count(op: &str, x: &Array) -> Result<i64, Error> {
    if x.is_traced() {
        return Err(Error::Trace(format!(
            "{op}: the size of the result depends on the values of the traced {}; pass a static \
             `size` (and `fill_value`) to use {op} under jit",
            describe(x.aval())
        )));
    }
    let c = np::count_nonzero(x, None, false).to_vec::<i32>()?;
    Ok(i64::from(c[0]))
}

/// `jnp.nonzero(x, size=size, fill_value=fill_value)`: one i32 index array per dimension,
/// listing the non-zero elements in row-major order. With `size`, the result has exactly that
/// length (extra entries are `fill_value`, surplus non-zeros are dropped), which works under
/// `jit`; without it the array must be concrete (under `jit` this is an error, as JAX's
/// concretization error).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![0i32, 5, 0, 7], &[2, 2]);
/// let nz = np::nonzero(&x, None, 0).unwrap();
/// assert_eq!(nz[0].to_vec::<i32>().unwrap(), vec![0, 1]);
/// assert_eq!(nz[1].to_vec::<i32>().unwrap(), vec![1, 1]);
/// let padded = np::nonzero(&x, Some(3), -1).unwrap();
/// assert_eq!(padded[1].to_vec::<i32>().unwrap(), vec![1, 1, -1]);
/// // Under jit the count is not known while tracing: the error asks for `size`.
/// let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
/// let s = seen.clone();
/// let f = systolic::jit(move |x: &Array| {
///     if let Err(e) = np::nonzero(x, None, 0) {
///         *s.lock().unwrap() = e.to_string();
///     }
///     x.clone()
/// });
/// f.call(&x).unwrap();
/// assert!(seen.lock().unwrap().contains("size"));
/// ```
pub fn nonzero(x: &Array, size: Option<i64>, fill_value: i64) -> Result<Vec<Array>, Error> {
    let op = "nonzero";
    x.check()?;
    if x.rank() == 0 {
        return Err(Error::op(
            op,
            format!("expected an array of rank >= 1, got {}", describe(x.aval())),
        ));
    }
    let size = match size {
        Some(s) if s < 0 => return Err(Error::op(op, format!("size must be >= 0, got {s}"))),
        Some(s) => s,
        None => concrete_count(op, x)?,
    };
    let total = x.num_elements() as i64;
    let flat = np::reshape(x, &[total]);
    let pos = lax::iota(DType::I32, &[total], 0);
    let nz = np::not_equal(&flat, &full(&[], 0.0, x.element_type()));
    let nz = if x.element_type() == DType::Bool {
        flat.clone()
    } else {
        nz
    };
    // Non-zero positions sort first, in order; the rest become `total`.
    let keys = np::where_(&nz, &pos, &full(&[], total as f64, DType::I32));
    let sorted = np::sort(&keys, 0, false);
    let take = size.min(total);
    let mut idx = crate::ops::shape::slice(&sorted, &[0], &[take], None);
    if size > take {
        idx = np::pad(
            &idx,
            &[(0, size - take)],
            np::PadMode::Constant(total as f64),
        );
    }
    let valid = np::less(&idx, &full(&[], total as f64, DType::I32));
    let fill = full(&[], fill_value as f64, DType::I32);
    let mut out = Vec::with_capacity(x.rank());
    let mut stride = total;
    for &d in x.dims() {
        stride = if d == 0 { 0 } else { stride / d };
        let coord = if stride == 0 {
            full(&[size], 0.0, DType::I32)
        } else {
            let q = np::floor_divide(&idx, &full(&[], stride as f64, DType::I32));
            np::remainder(&q, &full(&[], d as f64, DType::I32))
        };
        out.push(np::where_(&valid, &coord, &fill));
    }
    Ok(out)
}

/// `jnp.argwhere(x, size=size, fill_value=fill_value)`: the non-zero coordinates as rows of
/// an i32 `[count, ndim]` array (see [`nonzero`] for `size`).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![0i32, 5, 0, 7], &[2, 2]);
/// assert_eq!(np::argwhere(&x, None, 0).unwrap().to_vec::<i32>().unwrap(), vec![0, 1, 1, 1]);
/// ```
pub fn argwhere(x: &Array, size: Option<i64>, fill_value: i64) -> Result<Array, Error> {
    let parts = nonzero(x, size, fill_value)?;
    let refs: Vec<&Array> = parts.iter().collect();
    Ok(np::stack(&refs, -1))
}

/// `jnp.flatnonzero(x, size=size, fill_value=fill_value)`: the non-zero positions of the
/// flattened `x` (see [`nonzero`] for `size`).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![0.0f32, 1.0, 0.0, 2.0], &[2, 2]);
/// assert_eq!(np::flatnonzero(&x, None, 0).unwrap().to_vec::<i32>().unwrap(), vec![1, 3]);
/// ```
pub fn flatnonzero(x: &Array, size: Option<i64>, fill_value: i64) -> Result<Array, Error> {
    x.check()?;
    let flat = crate::ops::matrix::ravel(x);
    Ok(nonzero(&flat, size, fill_value)?.remove(0))
}
