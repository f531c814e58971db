//! Shape ops: reshape, transpose, broadcast, concatenate, slice and lax's dynamic slices
//! (`dynamic_slice`, `dynamic_update_slice`), squeeze/expand, and numpy's rearrangements
//! (flip, roll, tile, repeat, split, …).

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::Error;
use crate::ops::elementwise::{broadcast_to_shape, convert, promote_args};
use systolic_ir::{OpKind, TensorType};

/// Resolves one `-1` in a requested shape against `size` elements.
fn resolve_shape(op: &str, x: &Array, shape: &[i64]) -> Result<Vec<i64>, Error> {
    let unknown = shape.iter().filter(|&&d| d == -1).count();
    let known: i64 = shape.iter().filter(|&&d| d != -1).product();
    let bad = || {
        Error::op(
            op,
            format!("cannot reshape {} to {:?}", describe(x.aval()), shape),
        )
    };
    if unknown > 1 || shape.iter().any(|&d| d < -1) {
        return Err(bad());
    }
    let size = x.num_elements() as i64;
    let mut out = shape.to_vec();
    if unknown == 1 {
        if known == 0 || size % known != 0 {
            return Err(bad());
        }
        for d in out.iter_mut().filter(|d| **d == -1) {
            *d = size / known;
        }
    } else if known != size {
        return Err(bad());
    }
    Ok(out)
}

/// `x` with a new shape of the same size (one dimension may be `-1`).
pub fn reshape(x: &Array, shape: &[i64]) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    match resolve_shape("reshape", x, shape) {
        Ok(s) if s == x.dims() => x.clone(),
        Ok(s) => bind1(
            "reshape",
            OpKind::Reshape,
            &[x],
            Some(TensorType::new(s, x.element_type())),
            x.weak_type(),
        ),
        Err(e) => Array::failed(e),
    }
}

/// `x` with dimensions permuted: result dim `i` is `x`'s dim `perm[i]`; `None` reverses them.
pub fn transpose(x: &Array, perm: Option<&[i64]>) -> Array {
    let perm: Vec<i64> = match perm {
        Some(p) => p.to_vec(),
        None => (0..x.rank() as i64).rev().collect(),
    };
    bind1(
        "transpose",
        OpKind::Transpose { permutation: perm },
        &[x],
        None,
        x.weak_type(),
    )
}

/// `x` broadcast to `shape` with numpy's rules.
pub fn broadcast_to(x: &Array, shape: &[i64]) -> Array {
    broadcast_to_shape("broadcast_to", x, shape)
}

/// Arrays joined along `axis` (negative counts from the end), after promotion.
pub fn concatenate(xs: &[&Array], axis: i64) -> Array {
    let Some(first) = xs.first() else {
        return Array::failed(Error::op("concatenate", "needs at least one array"));
    };
    let axis = if axis < 0 {
        axis + first.rank() as i64
    } else {
        axis
    };
    // Promote dtypes only; shapes must already agree off the axis.
    let pairs: Vec<_> = xs
        .iter()
        .map(|x| (x.element_type(), x.weak_type()))
        .collect();
    if let Some(why) = crate::core::promote::implicit_promotion_error(&pairs) {
        return Array::failed(Error::op("concatenate", why));
    }
    let (dtype, weak) = crate::core::promote::result_type(&pairs);
    let converted: Vec<Array> = xs
        .iter()
        .map(|x| crate::ops::elementwise::convert("concatenate", x, dtype, weak))
        .collect();
    let refs: Vec<&Array> = converted.iter().collect();
    bind1(
        "concatenate",
        OpKind::Concatenate { dimension: axis },
        &refs,
        None,
        weak,
    )
}

/// `x[start:limit:stride]` per dimension (static bounds).
pub fn slice(x: &Array, start: &[i64], limit: &[i64], strides: Option<&[i64]>) -> Array {
    let strides = strides.map_or_else(|| vec![1; start.len()], |s| s.to_vec());
    bind1(
        "slice",
        OpKind::Slice {
            start_indices: start.to_vec(),
            limit_indices: limit.to_vec(),
            strides,
        },
        &[x],
        None,
        x.weak_type(),
    )
}

/// `x` with a size-1 dimension inserted at `axis`.
pub fn expand_dims(x: &Array, axis: i64) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    let n = x.rank() as i64 + 1;
    let axis = if axis < 0 { axis + n } else { axis };
    if !(0..n).contains(&axis) {
        return Array::failed(Error::op(
            "expand_dims",
            format!("axis {axis} out of range for {}", describe(x.aval())),
        ));
    }
    let mut s = x.dims().to_vec();
    s.insert(axis as usize, 1);
    reshape(x, &s)
}

/// Promotes `xs` and stacks them along a new leading `axis`.
pub fn stack(xs: &[&Array], axis: i64) -> Array {
    match promote_args("stack", xs) {
        Ok(v) => {
            let e: Vec<Array> = v.iter().map(|x| expand_dims(x, axis)).collect();
            let r: Vec<&Array> = e.iter().collect();
            concatenate(&r, axis)
        }
        Err(e) => Array::failed(e),
    }
}

/// `lax.rev(x, dimensions)`: reverses the listed dimensions.
///
/// ```
/// let x = systolic::Array::from_vec(vec![1i32, 2, 3], &[3]);
/// assert_eq!(systolic::lax::rev(&x, &[0]).to_vec::<i32>().unwrap(), vec![3, 2, 1]);
/// ```
pub fn rev(x: &Array, dimensions: &[i64]) -> Array {
    bind1(
        "rev",
        OpKind::Reverse {
            dimensions: dimensions.to_vec(),
        },
        &[x],
        None,
        x.weak_type(),
    )
}

/// `axis` normalised against rank `n` (negative counts from the end), or an error naming
/// `op` and `x`.
pub(crate) fn norm_axis(op: &str, x: &Array, axis: i64, n: usize) -> Result<usize, Error> {
    x.check()?; // a failed x has no axes: its own error first
    let n = n as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if (0..n).contains(&a) {
        Ok(a as usize)
    } else {
        Err(Error::op(
            op,
            format!(
                "axis {axis} is out of range for {} (rank {n})",
                describe(x.aval())
            ),
        ))
    }
}

fn or_fail(r: Result<Array, Error>) -> Array {
    r.unwrap_or_else(Array::failed)
}

/// `jnp.flip(x, axis)`: reverses `axis` (all axes when `None`).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4], &[2, 2]);
/// assert_eq!(np::flip(&x, Some(&[-1])).to_vec::<i32>().unwrap(), vec![2, 1, 4, 3]);
/// assert_eq!(np::flip(&x, None).to_vec::<i32>().unwrap(), vec![4, 3, 2, 1]);
/// ```
pub fn flip(x: &Array, axis: Option<&[i64]>) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    match crate::ops::reduce::norm_axes("flip", x, axis) {
        Ok(a) => rev(x, &a),
        Err(e) => Array::failed(e),
    }
}

/// `jnp.moveaxis(x, source, destination)`.
///
/// ```
/// let x = systolic::numpy::zeros(&[2, 3, 4], systolic_ir::DType::F32);
/// assert_eq!(systolic::numpy::moveaxis(&x, 0, -1).shape(), &[3, 4, 2]);
/// ```
pub fn moveaxis(x: &Array, source: i64, destination: i64) -> Array {
    or_fail((|| {
        x.check()?;
        let s = norm_axis("moveaxis", x, source, x.rank())?;
        let d = norm_axis("moveaxis", x, destination, x.rank())?;
        let mut perm: Vec<i64> = (0..x.rank() as i64).filter(|&i| i != s as i64).collect();
        perm.insert(d, s as i64);
        Ok(transpose(x, Some(&perm)))
    })())
}

/// `jnp.swapaxes(x, a, b)`.
///
/// ```
/// let x = systolic::numpy::zeros(&[2, 3, 4], systolic_ir::DType::F32);
/// assert_eq!(systolic::numpy::swapaxes(&x, 0, -1).shape(), &[4, 3, 2]);
/// ```
pub fn swapaxes(x: &Array, a: i64, b: i64) -> Array {
    or_fail((|| {
        x.check()?;
        let a = norm_axis("swapaxes", x, a, x.rank())?;
        let b = norm_axis("swapaxes", x, b, x.rank())?;
        let mut perm: Vec<i64> = (0..x.rank() as i64).collect();
        perm.swap(a, b);
        Ok(transpose(x, Some(&perm)))
    })())
}

/// `jnp.roll(x, shift, axis)`: elements shifted cyclically along `axis` (the flattened
/// array when `None`).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4, 5], &[5]);
/// assert_eq!(np::roll(&x, 2, Some(0)).to_vec::<i32>().unwrap(), vec![4, 5, 1, 2, 3]);
/// assert_eq!(np::roll(&x, -1, None).to_vec::<i32>().unwrap(), vec![2, 3, 4, 5, 1]);
/// ```
pub fn roll(x: &Array, shift: i64, axis: Option<i64>) -> Array {
    or_fail((|| {
        x.check()?;
        let Some(axis) = axis else {
            let flat = reshape(x, &[x.num_elements() as i64]);
            return Ok(reshape(&roll(&flat, shift, Some(0)), x.dims()));
        };
        let a = norm_axis("roll", x, axis, x.rank())?;
        let n = x.dims()[a];
        if n == 0 {
            return Ok(x.clone());
        }
        let s = shift.rem_euclid(n);
        if s == 0 {
            return Ok(x.clone());
        }
        let both = concatenate(&[x, x], a as i64);
        let mut start = vec![0; x.rank()];
        let mut limit = both.dims().to_vec();
        start[a] = n - s;
        limit[a] = 2 * n - s;
        Ok(slice(&both, &start, &limit, None))
    })())
}

/// `jnp.tile(x, reps)`.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2], &[2]);
/// let t = np::tile(&x, &[2, 2]);
/// assert_eq!(t.shape(), &[2, 4]);
/// assert_eq!(t.to_vec::<i32>().unwrap(), vec![1, 2, 1, 2, 1, 2, 1, 2]);
/// ```
pub fn tile(x: &Array, reps: &[i64]) -> Array {
    or_fail((|| {
        x.check()?;
        if reps.iter().any(|&r| r < 0) {
            return Err(Error::op(
                "tile",
                format!("reps {reps:?} must be non-negative"),
            ));
        }
        let n = x.rank().max(reps.len());
        let mut shape = vec![1i64; n - x.rank()];
        shape.extend_from_slice(x.dims());
        let mut r = vec![1i64; n - reps.len()];
        r.extend_from_slice(reps);
        // Broadcast to (r0, s0, r1, s1, ...) then merge pairs.
        let x1 = reshape(x, &shape);
        let mut big = vec![];
        let mut dims = vec![];
        for i in 0..n {
            big.push(r[i]);
            big.push(shape[i]);
            dims.push(2 * i as i64 + 1);
        }
        let b = bind1(
            "tile",
            OpKind::BroadcastInDim {
                broadcast_dimensions: dims,
            },
            &[&x1],
            Some(TensorType::new(big, x.element_type())),
            x.weak_type(),
        );
        let out: Vec<i64> = (0..n).map(|i| r[i] * shape[i]).collect();
        Ok(reshape(&b, &out))
    })())
}

/// `jnp.repeat(x, repeats, axis)` with one repeat count for every element (the flattened
/// array when `axis` is `None`).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4], &[2, 2]);
/// assert_eq!(np::repeat(&x, 2, Some(1)).to_vec::<i32>().unwrap(), vec![1, 1, 2, 2, 3, 3, 4, 4]);
/// assert_eq!(np::repeat(&x, 2, None).shape(), &[8]);
/// ```
pub fn repeat(x: &Array, repeats: i64, axis: Option<i64>) -> Array {
    or_fail((|| {
        x.check()?;
        if repeats < 0 {
            return Err(Error::op(
                "repeat",
                format!("repeats must be non-negative, got {repeats}"),
            ));
        }
        let Some(axis) = axis else {
            let flat = reshape(x, &[x.num_elements() as i64]);
            return Ok(repeat(&flat, repeats, Some(0)));
        };
        let a = norm_axis("repeat", x, axis, x.rank())?;
        let mut big = x.dims().to_vec();
        big.insert(a + 1, repeats);
        let dims: Vec<i64> = (0..x.rank())
            .map(|i| if i <= a { i as i64 } else { i as i64 + 1 })
            .collect();
        let b = bind1(
            "repeat",
            OpKind::BroadcastInDim {
                broadcast_dimensions: dims,
            },
            &[x],
            Some(TensorType::new(big, x.element_type())),
            x.weak_type(),
        );
        let mut out = x.dims().to_vec();
        out[a] *= repeats;
        Ok(reshape(&b, &out))
    })())
}

/// `jnp.split(x, sections, axis)`: `Sections(n)` equal parts, or `Indices([i, j, …])` cut
/// points (as in JAX, not clipped: every part must have a non-negative size).
///
/// ```
/// use systolic::{numpy as np, numpy::Split, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[6]);
/// let p = np::split(&x, Split::Sections(3), 0).unwrap();
/// assert_eq!(p[1].to_vec::<i32>().unwrap(), vec![3, 4]);
/// let q = np::split(&x, Split::Indices(vec![1, 4]), -1).unwrap();
/// assert_eq!(q.iter().map(|a| a.shape()[0]).collect::<Vec<_>>(), vec![1, 3, 2]);
/// assert!(np::split(&x, Split::Sections(4), 0).unwrap_err().to_string().contains("split"));
/// assert!(np::split(&x, Split::Indices(vec![4, 2]), 0).is_err());
/// ```
pub fn split(x: &Array, sections: Split, axis: i64) -> Result<Vec<Array>, Error> {
    x.check()?;
    let a = norm_axis("split", x, axis, x.rank())?;
    let n = x.dims()[a];
    let cuts: Vec<i64> = match sections {
        Split::Sections(k) => {
            if k <= 0 || n % k != 0 {
                return Err(Error::op(
                    "split",
                    format!(
                        "array split does not result in an equal division: axis {axis} of {} \
                         into {k} sections",
                        describe(x.aval())
                    ),
                ));
            }
            (1..k).map(|i| i * n / k).collect()
        }
        Split::Indices(v) => v,
    };
    let mut bounds = vec![0];
    bounds.extend(cuts);
    bounds.push(n);
    // As JAX (unlike numpy): cut points are not clipped or wrapped; every part must have a
    // non-negative size.
    let sizes: Vec<i64> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
    if sizes.iter().any(|&s| s < 0) {
        return Err(Error::op(
            "split",
            format!(
                "sizes passed to split must be nonnegative, got {sizes:?} (axis {axis} of {})",
                describe(x.aval())
            ),
        ));
    }
    Ok(bounds
        .windows(2)
        .map(|w| {
            let mut start = vec![0; x.rank()];
            let mut limit = x.dims().to_vec();
            start[a] = w[0];
            limit[a] = w[1].max(w[0]);
            slice(x, &start, &limit, None)
        })
        .collect())
}

/// How [`split`] cuts: into equal sections, or at indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// `n` equal sections (the axis length must divide).
    Sections(i64),
    /// Cut points along the axis.
    Indices(Vec<i64>),
}

/// `jnp.squeeze(x, axis)`: removes the listed size-1 dimensions (every size-1 dimension when
/// `None`).
///
/// ```
/// let x = systolic::numpy::zeros(&[1, 2, 1], systolic_ir::DType::F32);
/// assert_eq!(systolic::numpy::squeeze_axes(&x, None).shape(), &[2]);
/// assert_eq!(systolic::numpy::squeeze_axes(&x, Some(&[-1])).shape(), &[1, 2]);
/// assert!(systolic::numpy::squeeze_axes(&x, Some(&[1])).check().is_err());
/// ```
pub fn squeeze_axes(x: &Array, axis: Option<&[i64]>) -> Array {
    or_fail((|| {
        x.check()?;
        let axes: Vec<usize> = match axis {
            None => (0..x.rank()).filter(|&i| x.dims()[i] == 1).collect(),
            Some(a) => a
                .iter()
                .map(|&d| norm_axis("squeeze", x, d, x.rank()))
                .collect::<Result<_, _>>()?,
        };
        if let Some(&bad) = axes.iter().find(|&&i| x.dims()[i] != 1) {
            return Err(Error::op(
                "squeeze",
                format!(
                    "cannot select an axis to squeeze out which has size not equal to one: \
                     axis {bad} of {}",
                    describe(x.aval())
                ),
            ));
        }
        let s: Vec<i64> = (0..x.rank())
            .filter(|i| !axes.contains(i))
            .map(|i| x.dims()[i])
            .collect();
        Ok(reshape(x, &s))
    })())
}

/// `x` without its size-1 dimension `axis`.
///
/// ```
/// let x = systolic::numpy::zeros(&[2, 1], systolic_ir::DType::F32);
/// assert_eq!(systolic::numpy::squeeze(&x, 1).shape(), &[2]);
/// assert!(systolic::numpy::squeeze(&x, 0).check().is_err());
/// ```
pub fn squeeze(x: &Array, axis: i64) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    let n = x.rank() as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if !(0..n).contains(&a) || x.dims()[a as usize] != 1 {
        return Array::failed(Error::Op {
            op: "squeeze".into(),
            message: format!(
                "axis {axis} of {} is not a dimension of size 1",
                describe(x.aval())
            ),
        });
    }
    let mut s = x.dims().to_vec();
    s.remove(a as usize);
    reshape(x, &s)
}

/// JAX's `_dynamic_slice_indices`: a negative start counts from the end of its dimension.
fn normalize_starts(x: &Array, starts: &[Array]) -> Vec<Array> {
    starts
        .iter()
        .enumerate()
        .map(|(d, s)| {
            let n = x.dims().get(d).copied().unwrap_or(0);
            if s.error().is_some() || s.element_type().kind() != systolic_ir::DTypeKind::Signed {
                return s.clone();
            }
            let zero = convert(
                "dynamic_slice",
                &crate::weak_int(0),
                s.element_type(),
                false,
            );
            let dim = convert(
                "dynamic_slice",
                &crate::weak_int(n),
                s.element_type(),
                false,
            );
            let neg = crate::numpy::less(s, &zero);
            crate::numpy::where_(&neg, &crate::numpy::add(s, &dim), s)
        })
        .collect()
}

/// `lax.dynamic_slice(x, starts, sizes)`: starts are rank-0 integer arrays (traced or not);
/// a negative start counts from the end, then starts are clamped so the slice stays in
/// bounds.
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![1i32, 2, 3, 4, 5], &[5]);
/// let s = lax::dynamic_slice(&x, &[Array::scalar(4i32)], &[2]);
/// assert_eq!(s.to_vec::<i32>().unwrap(), vec![4, 5]); // start clamped to 3
/// let e = lax::dynamic_slice(&x, &[Array::scalar(-2i32)], &[2]);
/// assert_eq!(e.to_vec::<i32>().unwrap(), vec![4, 5]); // -2 counts from the end
/// ```
pub fn dynamic_slice(x: &Array, starts: &[Array], sizes: &[i64]) -> Array {
    let starts = &normalize_starts(x, starts);
    let mut operands = vec![x];
    operands.extend(starts.iter());
    bind1(
        "dynamic_slice",
        OpKind::DynamicSlice {
            slice_sizes: sizes.to_vec(),
        },
        &operands,
        None,
        x.weak_type(),
    )
}

/// `lax.dynamic_update_slice(x, update, starts)`: `x` with `update` written at `starts`
/// (negative starts count from the end; then clamped in bounds).
///
/// ```
/// use systolic::{lax, Array};
/// let x = Array::from_vec(vec![0i32; 4], &[4]);
/// let u = Array::from_vec(vec![7i32, 8], &[2]);
/// let y = lax::dynamic_update_slice(&x, &u, &[Array::scalar(1i32)]);
/// assert_eq!(y.to_vec::<i32>().unwrap(), vec![0, 7, 8, 0]);
/// ```
pub fn dynamic_update_slice(x: &Array, update: &Array, starts: &[Array]) -> Array {
    let starts = &normalize_starts(x, starts);
    let mut operands = vec![x, update];
    operands.extend(starts.iter());
    bind1(
        "dynamic_update_slice",
        OpKind::DynamicUpdateSlice,
        &operands,
        None,
        x.weak_type(),
    )
}
