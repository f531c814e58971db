//! Sorting: `lax.sort` (several operands, `num_keys` lexicographic keys, stable), numpy's
//! `sort`/`argsort` (with `descending`), and `lax.top_k`. The comparator is JAX's: floats in
//! their total order (NaN last), keys compared lexicographically.

use crate::array::{describe, Array};
use crate::core::bind::bind;
use crate::error::{Error, Result};
use crate::ops::creation::iota;
use crate::ops::region::{self, RegionBuilder, Var};
use crate::ops::shape::rev;
use systolic_ir::{ComparisonDirection, DType, OpKind};

/// JAX's `_sort_lt_comparator`: `x < y` lexicographically over the first `num_keys` operands.
fn lt_comparator(b: &mut RegionBuilder, args: &[Var], num_keys: usize) -> Vec<Var> {
    let mut p: Option<Var> = None;
    for k in (0..num_keys).rev() {
        let (x, y) = (args[2 * k], args[2 * k + 1]);
        let lt = b.compare_total(ComparisonDirection::Lt, x, y);
        p = Some(match p {
            None => lt,
            Some(p) => {
                let eq = b.compare_total(ComparisonDirection::Eq, x, y);
                let both = b.and(eq, p);
                b.or(lt, both)
            }
        });
    }
    p.into_iter().collect()
}

fn norm_axis(op: &str, x: &Array, axis: i64) -> Result<i64> {
    x.check()?; // a failed x has no axes: its own error first
    let n = x.rank() as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if (0..n).contains(&a) {
        Ok(a)
    } else {
        Err(Error::op(
            op,
            format!("axis {axis} is out of range for {}", describe(x.aval())),
        ))
    }
}

/// `lax.sort(operands, dimension, is_stable, num_keys)`: sorts all operands (of one shape)
/// along `dimension` by the first `num_keys` of them, lexicographically, ascending; floats
/// sort in their total order (`-NaN < -inf < … < -0 < +0 < … < inf < NaN`).
///
/// ```
/// use systolic::{lax, Array};
/// let k = Array::from_vec(vec![2i32, 1, 2, 1], &[4]);
/// let v = Array::from_vec(vec![10.0f32, 20.0, 30.0, 40.0], &[4]);
/// let s = lax::sort(&[&k, &v], -1, true, 1).unwrap();
/// assert_eq!(s[0].to_vec::<i32>().unwrap(), vec![1, 1, 2, 2]);
/// assert_eq!(s[1].to_vec::<f32>().unwrap(), vec![20.0, 40.0, 10.0, 30.0]);
/// ```
pub fn sort(
    operands: &[&Array],
    dimension: i64,
    is_stable: bool,
    num_keys: usize,
) -> Result<Vec<Array>> {
    for o in operands {
        o.check()?;
    }
    let Some(first) = operands.first() else {
        return Err(Error::op("sort", "needs at least one operand"));
    };
    if num_keys == 0 || num_keys > operands.len() {
        return Err(Error::op(
            "sort",
            format!(
                "num_keys = {num_keys} must be in [1, {}] (the number of operands)",
                operands.len()
            ),
        ));
    }
    let dim = norm_axis("sort", first, dimension)?;
    let args: Vec<DType> = operands
        .iter()
        .flat_map(|o| [o.element_type(), o.element_type()])
        .collect();
    let body = region::build(&args, |b, a| lt_comparator(b, a, num_keys))
        .map_err(|m| Error::op("sort", m))?;
    let weak = first.weak_type();
    let mut out = bind(
        "sort",
        OpKind::Sort {
            dimension: dim,
            is_stable,
        },
        operands,
        vec![body],
        None,
        weak,
    )?;
    // Each result keeps its operand's weak flag.
    for (r, o) in out.iter_mut().zip(operands) {
        if r.weak_type() != o.weak_type() {
            *r = Array::make(
                r.aval().clone(),
                o.weak_type(),
                r.device(),
                r.inner.repr.clone(),
            );
        }
    }
    Ok(out)
}

/// `lax.sort_key_val(keys, values, dimension)`: `values` reordered as `keys` sort (stable).
///
/// ```
/// use systolic::{lax, Array};
/// let k = Array::from_vec(vec![3.0f32, 1.0, 2.0], &[3]);
/// let v = Array::from_vec(vec![0i32, 1, 2], &[3]);
/// let (sk, sv) = lax::sort_key_val(&k, &v, 0).unwrap();
/// assert_eq!(sk.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
/// assert_eq!(sv.to_vec::<i32>().unwrap(), vec![1, 2, 0]);
/// ```
pub fn sort_key_val(keys: &Array, values: &Array, dimension: i64) -> Result<(Array, Array)> {
    let mut r = sort(&[keys, values], dimension, true, 1)?;
    let v = r.pop();
    let k = r.pop();
    match (k, v) {
        (Some(k), Some(v)) => Ok((k, v)),
        _ => Err(Error::op("sort_key_val", "expected two results")),
    }
}

/// `jnp.sort(x, axis, descending)`: a stable sort along `axis` (NaN last; descending
/// reverses the ascending result, as JAX does).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![3.0f32, f32::NAN, -1.0, 2.0], &[4]);
/// let s = np::sort(&x, -1, false).to_vec::<f32>().unwrap();
/// assert_eq!(&s[..3], &[-1.0, 2.0, 3.0]);
/// assert!(s[3].is_nan());
/// let d = np::sort(&Array::from_vec(vec![1i32, 3, 2], &[3]), 0, true);
/// assert_eq!(d.to_vec::<i32>().unwrap(), vec![3, 2, 1]);
/// ```
pub fn sort_np(x: &Array, axis: i64, descending: bool) -> Array {
    let run = || -> Result<Array> {
        x.check()?;
        if x.rank() == 0 {
            return Ok(x.clone());
        }
        let dim = norm_axis("sort", x, axis)?;
        let s = sort(&[x], dim, true, 1)?.remove(0);
        Ok(if descending { rev(&s, &[dim]) } else { s })
    };
    run().unwrap_or_else(Array::failed)
}

/// `jnp.argsort(x, axis, descending)`: int32 indices that sort `x` stably along `axis`
/// (equal elements keep their order, also when descending).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![2i32, 1, 2, 0], &[4]);
/// assert_eq!(np::argsort(&x, 0, false).to_vec::<i32>().unwrap(), vec![3, 1, 0, 2]);
/// assert_eq!(np::argsort(&x, 0, true).to_vec::<i32>().unwrap(), vec![0, 2, 1, 3]);
/// ```
pub fn argsort(x: &Array, axis: i64, descending: bool) -> Array {
    let run = || -> Result<Array> {
        x.check()?;
        if x.rank() == 0 {
            return Ok(crate::ops::creation::zeros(&[], DType::I32));
        }
        let dim = norm_axis("argsort", x, axis)?;
        let mut arr = x.clone();
        let mut idx = iota(DType::I32, x.dims(), dim);
        if descending {
            arr = rev(&arr, &[dim]);
            idx = rev(&idx, &[dim]);
        }
        let (_, i) = sort_key_val(&arr, &idx, dim).map_err(|e| rename(e, "argsort"))?;
        Ok(if descending { rev(&i, &[dim]) } else { i })
    };
    run().unwrap_or_else(Array::failed)
}

fn rename(e: Error, op: &str) -> Error {
    match e {
        Error::Op { message, .. } => Error::op(op, message),
        other => other,
    }
}

/// `lax.top_k(x, k)`: the `k` largest values along the last axis and their int32 indices
/// (ties keep the lower index first).
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![1.0f32, 5.0, 3.0, 5.0], &[4]);
/// let (v, i) = lax::top_k(&x, 2).unwrap();
/// assert_eq!(v.to_vec::<f32>().unwrap(), vec![5.0, 5.0]);
/// assert_eq!(i.to_vec::<i32>().unwrap(), vec![1, 3]);
/// ```
pub fn top_k(x: &Array, k: i64) -> Result<(Array, Array)> {
    x.check()?;
    if x.rank() == 0 {
        return Err(Error::op(
            "top_k",
            format!("needs an operand of rank >= 1, got {}", describe(x.aval())),
        ));
    }
    let last = x.dims()[x.rank() - 1];
    if k < 0 || k > last {
        return Err(Error::op(
            "top_k",
            format!(
                "k = {k} must be in [0, {last}] for operand {}",
                describe(x.aval())
            ),
        ));
    }
    let mut r = bind(
        "top_k",
        OpKind::TopK { k, largest: true },
        &[x],
        vec![],
        None,
        false,
    )?;
    let i = r.pop();
    let v = r.pop();
    match (v, i) {
        (Some(v), Some(i)) => {
            let v = Array::make(
                v.aval().clone(),
                x.weak_type(),
                v.device(),
                v.inner.repr.clone(),
            );
            Ok((v, i))
        }
        _ => Err(Error::op("top_k", "expected two results")),
    }
}
