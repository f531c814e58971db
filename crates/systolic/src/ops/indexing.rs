//! Indexing: `lax.gather`/`lax.scatter` with explicit dimension numbers and JAX's modes,
//! numpy's `take`/`take_along_axis`, basic and advanced indexing ([`index`]) and functional
//! updates ([`at`], JAX's `x.at[...]`), all lowered to slices, gathers and scatters as JAX
//! lowers them.
//!
//! Out-of-bounds behaviour follows JAX: reads by indexing clamp; `take`/`take_along_axis`
//! default to filling (NaN for floats, the minimum for signed ints, the maximum for unsigned,
//! `true` for bools); `.at[]` updates drop out-of-bounds entries. Negative indices count from
//! the end (except in `clip` mode, where they clamp to 0, as in JAX).

use crate::array::{describe, Array};
use crate::core::bind::{bind1, bind_with};
use crate::core::body::Body;
use crate::error::{Error, Result};
use crate::ops::creation::{full, iota};
use crate::ops::elementwise::{
    binary, broadcast_shapes, broadcast_to_shape, compare, convert, select,
};
use crate::ops::reduce::reduce;
use crate::ops::region::{self, RegionBuilder, Var};
use crate::ops::shape::{concatenate, norm_axis, reshape, rev, slice};
use systolic_ir::{
    BinaryOp, ComparisonDirection, DType, DTypeKind, GatherDimensionNumbers, OpKind,
    ScatterDimensionNumbers, TensorType,
};

/// What a gather or scatter does with out-of-bounds indices (JAX's `GatherScatterMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatherScatterMode {
    /// Indices are clamped so the whole slice is in bounds.
    Clip,
    /// Gathers of out-of-bounds slices give the fill value; scatters drop them.
    FillOrDrop,
    /// The caller promises indices are in bounds (the backend clamps gathers, drops
    /// scatters).
    PromiseInBounds,
}

/// How `take` treats out-of-bounds indices (numpy's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TakeMode {
    /// Negative indices count from the end; out-of-bounds ones give the fill value (JAX's
    /// default).
    Fill,
    /// Indices are clamped to `[0, n-1]` (negative ones to 0).
    Clip,
    /// Indices wrap around (modulo the axis length).
    Wrap,
}

fn or_fail(r: Result<Array>) -> Array {
    r.unwrap_or_else(Array::failed)
}

/// The fill value JAX uses for out-of-bounds gathers of `dtype`.
fn fill_value(dtype: DType) -> Array {
    match dtype.kind() {
        DTypeKind::Float | DTypeKind::Complex => full(&[], f64::NAN, dtype),
        DTypeKind::Signed => full(&[], dtype.signed_range().map_or(0, |r| r.0) as f64, dtype),
        DTypeKind::Unsigned => {
            let t = systolic_ir::Tensor::splat(
                TensorType::scalar(dtype),
                systolic_ir::Scalar::UInt(dtype.unsigned_max().unwrap_or(0)),
            );
            match t {
                Ok(t) => crate::core::bind::constant(t, false),
                Err(e) => Array::failed(Error::op("gather", e.to_string())),
            }
        }
        DTypeKind::Bool => full(&[], 1.0, dtype),
    }
}

fn check_int_indices(op: &str, indices: &Array) -> Result<Array> {
    indices.check()?;
    if !indices.element_type().is_integer() {
        return Err(Error::op(
            op,
            format!("indices must be integers, got {}", describe(indices.aval())),
        ));
    }
    Ok(if indices.element_type() == DType::I32 {
        indices.clone()
    } else {
        convert(op, indices, DType::I32, false)
    })
}

fn i32_scalar(v: i64) -> Array {
    full(&[], v as f64, DType::I32)
}

/// `indices` (i32) with negative entries moved up by `n`: `where(i < 0, i + n, i)`.
fn normalize(op: &str, indices: &Array, n: i64) -> Array {
    let neg = compare(op, ComparisonDirection::Lt, indices, &i32_scalar(0));
    let up = binary(op, BinaryOp::Add, indices, &i32_scalar(n));
    select(op, &neg, &up, indices)
}

/// `lax.gather(operand, indices, dimension_numbers, slice_sizes, mode)`.
///
/// ```
/// use systolic::{lax, lax::GatherScatterMode, Array};
/// use systolic_ir::GatherDimensionNumbers;
/// let x = Array::from_vec(vec![10.0f32, 11.0, 12.0, 13.0], &[4]);
/// let i = Array::from_vec(vec![3i32, 0, 7], &[3, 1]);
/// let dn = GatherDimensionNumbers { collapsed_slice_dims: vec![0], start_index_map: vec![0],
///     index_vector_dim: 1, ..Default::default() };
/// let g = lax::gather(&x, &i, dn.clone(), &[1], GatherScatterMode::Clip);
/// assert_eq!(g.to_vec::<f32>().unwrap(), vec![13.0, 10.0, 13.0]);
/// let f = lax::gather(&x, &i, dn, &[1], GatherScatterMode::FillOrDrop).to_vec::<f32>().unwrap();
/// assert!(f[2].is_nan());
/// ```
pub fn gather(
    operand: &Array,
    indices: &Array,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: &[i64],
    mode: GatherScatterMode,
) -> Array {
    or_fail((|| {
        operand.check()?;
        let idx = check_int_indices("gather", indices)?;
        let g = gather_raw(operand, &idx, &dimension_numbers, slice_sizes);
        if mode != GatherScatterMode::FillOrDrop {
            return Ok(g);
        }
        g.check()?;
        fill_out_of_bounds(operand, &idx, &dimension_numbers, slice_sizes, &g)
    })())
}

fn gather_raw(
    operand: &Array,
    indices: &Array,
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Array {
    bind1(
        "gather",
        OpKind::Gather {
            dimension_numbers: dn.clone(),
            slice_sizes: slice_sizes.to_vec(),
            indices_are_sorted: false,
        },
        &[operand, indices],
        None,
        operand.weak_type(),
    )
}

/// JAX's `_gather_fill`: where any index component puts the slice out of bounds, the fill
/// value replaces the gathered slice.
fn fill_out_of_bounds(
    operand: &Array,
    idx: &Array,
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
    gathered: &Array,
) -> Result<Array> {
    // Index vectors along the last dimension.
    let ivd = dn.index_vector_dim as usize;
    let idx = if ivd == idx.rank() {
        let mut s = idx.dims().to_vec();
        s.push(1);
        reshape(idx, &s)
    } else {
        crate::ops::shape::moveaxis(idx, ivd as i64, -1)
    };
    let k = idx.dims()[idx.rank() - 1];
    let bounds: Vec<i32> = dn
        .start_index_map
        .iter()
        .map(|&d| (operand.dims()[d as usize] - slice_sizes[d as usize]) as i32)
        .collect();
    let bounds = broadcast_to_shape("gather", &Array::from_vec(bounds, &[k]), idx.dims());
    let lo = compare("gather", ComparisonDirection::Ge, &idx, &i32_scalar(0));
    let hi = compare("gather", ComparisonDirection::Le, &idx, &bounds);
    let ok = binary("gather", BinaryOp::And, &lo, &hi);
    let mask = reduce("gather", BinaryOp::And, &ok, &[idx.rank() as i64 - 1]);
    let out = gathered.dims().to_vec();
    let batch_pos: Vec<i64> = (0..out.len() as i64)
        .filter(|d| !dn.offset_dims.contains(d))
        .collect();
    let mask = bind1(
        "gather",
        OpKind::BroadcastInDim {
            broadcast_dimensions: batch_pos,
        },
        &[&mask],
        Some(TensorType::new(out.clone(), DType::Bool)),
        false,
    );
    let fill = broadcast_to_shape("gather", &fill_value(operand.element_type()), &out);
    let r = bind1(
        "gather",
        OpKind::Select,
        &[&mask, gathered, &fill],
        None,
        operand.weak_type(),
    );
    r.check()?;
    Ok(r)
}

/// What a scatter does where updates land.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterOp {
    /// Replace (`lax.scatter`, `.at[].set`); with duplicate indices one update wins.
    Set,
    /// Add (`lax.scatter_add`, `.at[].add`).
    Add,
    /// Multiply.
    Mul,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

fn scatter_body(op: ScatterOp, dtype: DType) -> Result<Body> {
    let kind = match op {
        ScatterOp::Set => return Ok(region::take_second(dtype)),
        ScatterOp::Add | ScatterOp::Mul if dtype == DType::Bool => {
            return Err(Error::op(
                if op == ScatterOp::Add {
                    "scatter_add"
                } else {
                    "scatter_mul"
                },
                "does not accept dtype bool (accepted: integers and floats)",
            ));
        }
        ScatterOp::Add => BinaryOp::Add,
        ScatterOp::Mul => BinaryOp::Multiply,
        ScatterOp::Min => BinaryOp::Minimum,
        ScatterOp::Max => BinaryOp::Maximum,
    };
    Ok(region::binary_body(kind, dtype))
}

/// `lax.scatter` / `scatter_add` / `scatter_mul` / `scatter_min` / `scatter_max` with
/// explicit dimension numbers; `updates` are converted to the operand's dtype. In `Clip` mode
/// indices are clamped so whole windows fit; otherwise out-of-bounds windows are dropped.
///
/// ```
/// use systolic::{lax, lax::{GatherScatterMode, ScatterOp}, Array};
/// use systolic_ir::ScatterDimensionNumbers;
/// let x = Array::from_vec(vec![0i32; 4], &[4]);
/// let i = Array::from_vec(vec![1i32, 1, 9], &[3, 1]);
/// let u = Array::from_vec(vec![5i32, 6, 7], &[3]);
/// let dn = ScatterDimensionNumbers { inserted_window_dims: vec![0],
///     scatter_dims_to_operand_dims: vec![0], index_vector_dim: 1, ..Default::default() };
/// let s = lax::scatter(&x, &i, &u, dn, ScatterOp::Add, GatherScatterMode::FillOrDrop);
/// assert_eq!(s.to_vec::<i32>().unwrap(), vec![0, 11, 0, 0]);
/// ```
pub fn scatter(
    operand: &Array,
    indices: &Array,
    updates: &Array,
    dimension_numbers: ScatterDimensionNumbers,
    op: ScatterOp,
    mode: GatherScatterMode,
) -> Array {
    or_fail((|| {
        operand.check()?;
        updates.check()?;
        let mut idx = check_int_indices("scatter", indices)?;
        if mode == GatherScatterMode::Clip {
            idx = clamp_scatter_indices(operand, &idx, updates, &dimension_numbers)?;
        }
        let u = convert(
            "scatter",
            updates,
            operand.element_type(),
            operand.weak_type(),
        );
        Ok(scatter_raw(
            operand,
            &idx,
            &u,
            &dimension_numbers,
            scatter_body(op, operand.element_type())?,
        ))
    })())
}

/// `lax.scatter_apply`-style scatter with a combiner written in Rust: the closure gets the
/// current and the update value and returns the new one.
///
/// ```
/// use systolic::{lax, Array};
/// use systolic_ir::ScatterDimensionNumbers;
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let i = Array::from_vec(vec![2i32], &[1, 1]);
/// let u = Array::from_vec(vec![10.0f32], &[1]);
/// let dn = ScatterDimensionNumbers { inserted_window_dims: vec![0],
///     scatter_dims_to_operand_dims: vec![0], index_vector_dim: 1, ..Default::default() };
/// let s = lax::scatter_with(&x, &i, &u, dn, |b, a| { let d = b.sub(a[1], a[0]); vec![d] });
/// assert_eq!(s.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 7.0]);
/// ```
pub fn scatter_with(
    operand: &Array,
    indices: &Array,
    updates: &Array,
    dimension_numbers: ScatterDimensionNumbers,
    body: impl FnOnce(&mut RegionBuilder, &[Var]) -> Vec<Var>,
) -> Array {
    or_fail((|| {
        operand.check()?;
        let idx = check_int_indices("scatter", indices)?;
        let u = convert(
            "scatter",
            updates,
            operand.element_type(),
            operand.weak_type(),
        );
        let d = operand.element_type();
        let body = region::build(&[d, d], body).map_err(|m| Error::op("scatter", m))?;
        Ok(scatter_raw(operand, &idx, &u, &dimension_numbers, body))
    })())
}

fn scatter_raw(
    operand: &Array,
    indices: &Array,
    updates: &Array,
    dn: &ScatterDimensionNumbers,
    body: Body,
) -> Array {
    bind_with(
        "scatter",
        OpKind::Scatter {
            dimension_numbers: dn.clone(),
            indices_are_sorted: false,
            unique_indices: false,
        },
        &[operand, indices, updates],
        vec![body],
        None,
        operand.weak_type(),
    )
}

/// JAX's `_clamp_scatter_indices`: each index component clamped to `[0, dim - window]`.
fn clamp_scatter_indices(
    operand: &Array,
    idx: &Array,
    updates: &Array,
    dn: &ScatterDimensionNumbers,
) -> Result<Array> {
    // The window size of each operand dimension: 1 where inserted or batching, else the
    // matching update window dimension.
    let mut window = vec![1i64; operand.rank()];
    let mut w = dn.update_window_dims.iter();
    for (d, size) in window.iter_mut().enumerate() {
        let d = d as i64;
        if dn.inserted_window_dims.contains(&d) || dn.input_batching_dims.contains(&d) {
            continue;
        }
        if let Some(&u) = w.next() {
            *size = updates.dims().get(u as usize).copied().unwrap_or(1);
        }
    }
    let upper: Vec<i32> = dn
        .scatter_dims_to_operand_dims
        .iter()
        .map(|&d| (operand.dims()[d as usize] - window[d as usize]).max(0) as i32)
        .collect();
    let ivd = dn.index_vector_dim as usize;
    let k = upper.len() as i64;
    let mut bshape = vec![1i64; idx.rank()];
    let upper = if ivd < idx.rank() {
        bshape[ivd] = k;
        reshape(&Array::from_vec(upper, &[k]), &bshape)
    } else {
        reshape(&Array::from_vec(upper, &[k]), &[])
    };
    let upper = broadcast_to_shape("scatter", &upper, idx.dims());
    let lo = broadcast_to_shape("scatter", &i32_scalar(0), idx.dims());
    let c = bind1("scatter", OpKind::Clamp, &[&lo, idx, &upper], None, false);
    c.check()?;
    Ok(c)
}

/// `jnp.take(a, indices, axis, mode)`: elements of `a` at `indices` along `axis` (the
/// flattened array when `None`).
///
/// ```
/// use systolic::{numpy as np, numpy::TakeMode, Array};
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let i = Array::from_vec(vec![2i32, -1, 7], &[3]);
/// let t = np::take(&a, &i, None, TakeMode::Fill).to_vec::<f32>().unwrap();
/// assert_eq!(&t[..2], &[3.0, 3.0]);
/// assert!(t[2].is_nan());
/// let c = np::take(&a, &i, Some(0), TakeMode::Clip).to_vec::<f32>().unwrap();
/// assert_eq!(c, vec![3.0, 1.0, 3.0]);
/// ```
pub fn take(a: &Array, indices: &Array, axis: Option<i64>, mode: TakeMode) -> Array {
    or_fail((|| {
        a.check()?;
        let idx = check_int_indices("take", indices)?;
        let (a, axis) = match axis {
            None => (reshape(a, &[a.num_elements() as i64]), 0usize),
            Some(ax) => (a.clone(), norm_axis("take", a, ax, a.rank())?),
        };
        let n = a.dims()[axis];
        let (idx, gmode) = match mode {
            TakeMode::Fill => (normalize("take", &idx, n), GatherScatterMode::FillOrDrop),
            TakeMode::Clip => (idx, GatherScatterMode::Clip),
            TakeMode::Wrap => {
                if n == 0 {
                    return Err(Error::op(
                        "take",
                        format!(
                            "cannot wrap indices on an empty axis of {}",
                            describe(a.aval())
                        ),
                    ));
                }
                let r = binary("take", BinaryOp::Remainder, &idx, &i32_scalar(n));
                (normalize("take", &r, n), GatherScatterMode::Clip)
            }
        };
        let r = idx.rank() as i64;
        let rank = a.rank() as i64;
        let ax = axis as i64;
        let offset_dims: Vec<i64> = (0..ax).chain(ax + r..rank + r - 1).collect();
        let mut slice_sizes = a.dims().to_vec();
        slice_sizes[axis] = 1.min(n);
        let mut s = idx.dims().to_vec();
        s.push(1);
        let idx = reshape(&idx, &s);
        let dn = GatherDimensionNumbers {
            offset_dims,
            collapsed_slice_dims: vec![ax],
            start_index_map: vec![ax],
            index_vector_dim: r,
            ..Default::default()
        };
        if n == 0 {
            return Err(Error::op(
                "take",
                format!(
                    "cannot take from an empty axis {axis} of {}",
                    describe(a.aval())
                ),
            ));
        }
        Ok(gather(&a, &idx, dn, &slice_sizes, gmode))
    })())
}

/// `jnp.take_along_axis(arr, indices, axis)`: `indices` has `arr`'s rank and picks along
/// `axis` (other dimensions broadcast); negative indices count from the end and
/// out-of-bounds ones give the fill value.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![10i32, 30, 20, 5, 4, 6], &[2, 3]);
/// let i = np::argsort(&a, 1, false);
/// let s = np::take_along_axis(&a, &i, 1);
/// assert_eq!(s.to_vec::<i32>().unwrap(), vec![10, 20, 30, 4, 5, 6]);
/// ```
pub fn take_along_axis(arr: &Array, indices: &Array, axis: i64) -> Array {
    or_fail((|| {
        arr.check()?;
        let idx = check_int_indices("take_along_axis", indices)?;
        if idx.rank() != arr.rank() {
            return Err(Error::op(
                "take_along_axis",
                format!(
                    "indices {} and array {} must have the same rank",
                    describe(indices.aval()),
                    describe(arr.aval())
                ),
            ));
        }
        let ax = norm_axis("take_along_axis", arr, axis, arr.rank())?;
        let mut a_other = arr.dims().to_vec();
        a_other[ax] = 1;
        let mut i_other = idx.dims().to_vec();
        i_other[ax] = 1;
        let mut out = broadcast_shapes(&a_other, &i_other).ok_or_else(|| {
            Error::op(
                "take_along_axis",
                format!(
                    "indices {} do not broadcast with {} off axis {axis}",
                    describe(indices.aval()),
                    describe(arr.aval())
                ),
            )
        })?;
        out[ax] = idx.dims()[ax];
        let n = arr.dims()[ax];
        let idx = broadcast_to_shape(
            "take_along_axis",
            &normalize("take_along_axis", &idx, n),
            &{
                let mut s = out.clone();
                s[ax] = idx.dims()[ax];
                s
            },
        );
        let mut comps = vec![];
        for d in 0..arr.rank() {
            let c = if d == ax {
                idx.clone()
            } else if arr.dims()[d] == 1 {
                full(&out, 0.0, DType::I32)
            } else {
                iota(DType::I32, &out, d as i64)
            };
            let mut s = out.clone();
            s.push(1);
            comps.push(reshape(&c, &s));
        }
        let refs: Vec<&Array> = comps.iter().collect();
        let all = concatenate(&refs, out.len() as i64);
        let rank = arr.rank() as i64;
        let dn = GatherDimensionNumbers {
            offset_dims: vec![],
            collapsed_slice_dims: (0..rank).collect(),
            start_index_map: (0..rank).collect(),
            index_vector_dim: out.len() as i64,
            ..Default::default()
        };
        if arr.num_elements() == 0 {
            return Ok(full(&out, f64::NAN, arr.element_type()));
        }
        Ok(gather(
            arr,
            &all,
            dn,
            &vec![1; arr.rank()],
            GatherScatterMode::FillOrDrop,
        ))
    })())
}

/// One entry of an index expression (numpy's `x[...]`): an integer, a slice, a new axis, an
/// ellipsis, or an integer array (advanced indexing).
///
/// ```
/// use systolic::numpy::Idx;
/// let _ = [Idx::from(1), Idx::from(1..3), Idx::full(), Idx::NewAxis, Idx::Ellipsis,
///          Idx::slice(None, None, Some(-1))];
/// ```
#[derive(Clone, Debug)]
pub enum Idx {
    /// One position (negative counts from the end); the dimension is dropped.
    Int(i64),
    /// `start:stop:step` with Python's defaults and negative-index rules.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `None` / `np.newaxis`: a new dimension of size 1.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
    /// An integer array (advanced indexing; may be traced).
    Array(Array),
}

impl Idx {
    /// `:`.
    pub fn full() -> Idx {
        Idx::Slice(None, None, None)
    }
    /// `start:stop:step`.
    pub fn slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Idx {
        Idx::Slice(start, stop, step)
    }
}

impl From<i64> for Idx {
    fn from(i: i64) -> Idx {
        Idx::Int(i)
    }
}
impl From<i32> for Idx {
    fn from(i: i32) -> Idx {
        Idx::Int(i as i64)
    }
}
impl From<std::ops::Range<i64>> for Idx {
    fn from(r: std::ops::Range<i64>) -> Idx {
        Idx::Slice(Some(r.start), Some(r.end), None)
    }
}
impl From<std::ops::RangeFrom<i64>> for Idx {
    fn from(r: std::ops::RangeFrom<i64>) -> Idx {
        Idx::Slice(Some(r.start), None, None)
    }
}
impl From<std::ops::RangeTo<i64>> for Idx {
    fn from(r: std::ops::RangeTo<i64>) -> Idx {
        Idx::Slice(None, Some(r.end), None)
    }
}
impl From<std::ops::RangeFull> for Idx {
    fn from(_: std::ops::RangeFull) -> Idx {
        Idx::full()
    }
}
impl From<&Array> for Idx {
    fn from(a: &Array) -> Idx {
        Idx::Array(a.clone())
    }
}
impl From<Array> for Idx {
    fn from(a: Array) -> Idx {
        Idx::Array(a)
    }
}

/// Python's `slice.indices(n)` then the element count.
fn slice_bounds(start: Option<i64>, stop: Option<i64>, step: i64, n: i64) -> (i64, i64) {
    let clampi = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
    let norm = |v: i64, lo: i64, hi: i64| {
        if v < 0 {
            clampi(v + n, lo, hi)
        } else {
            clampi(v, lo, hi)
        }
    };
    let (s, e) = if step > 0 {
        (
            start.map_or(0, |v| norm(v, 0, n)),
            stop.map_or(n, |v| norm(v, 0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |v| norm(v, -1, n - 1)),
            stop.map_or(-1, |v| norm(v, -1, n - 1)),
        )
    };
    let count = if step > 0 {
        ((e - s + step - 1) / step).max(0)
    } else {
        ((s - e + (-step) - 1) / (-step)).max(0)
    };
    (s, count)
}

/// The index expression resolved against `x`: `x` with new axes inserted, then one entry per
/// dimension (no `NewAxis`/`Ellipsis` left).
fn expand(op: &str, x: &Array, idx: &[Idx]) -> Result<(Array, Vec<Idx>)> {
    let ellipses = idx.iter().filter(|i| matches!(i, Idx::Ellipsis)).count();
    if ellipses > 1 {
        return Err(Error::op(
            op,
            "an index can only have a single ellipsis ('...')",
        ));
    }
    let used = idx
        .iter()
        .filter(|i| !matches!(i, Idx::Ellipsis | Idx::NewAxis))
        .count();
    if used > x.rank() {
        return Err(Error::op(
            op,
            format!(
                "too many indices for array: {} {} {used} were indexed",
                describe(x.aval()),
                if x.rank() == 1 {
                    "is 1-dimensional, but"
                } else {
                    "has that rank, but"
                }
            ),
        ));
    }
    let mut full_idx: Vec<Idx> = vec![];
    for i in idx {
        if matches!(i, Idx::Ellipsis) {
            full_idx.extend((0..x.rank() - used).map(|_| Idx::full()));
        } else {
            full_idx.push(i.clone());
        }
    }
    if ellipses == 0 {
        full_idx.extend((0..x.rank() - used).map(|_| Idx::full()));
    }
    let mut shape = vec![];
    let mut dims = x.dims().iter();
    let mut out = vec![];
    for i in full_idx {
        match i {
            Idx::NewAxis => {
                shape.push(1);
                out.push(Idx::full());
            }
            other => {
                shape.push(*dims.next().unwrap_or(&1));
                out.push(other);
            }
        }
    }
    Ok((reshape(x, &shape), out))
}

/// Reads `x[idx]`: static slices (with steps) and ints become slices and reverses; integer
/// arrays become one gather (negative indices count from the end; out-of-bounds ones clamp
/// for reads, or give the fill value with `fill = true`).
fn index_impl(op: &str, x: &Array, idx: &[Idx], fill: bool) -> Result<Array> {
    x.check()?;
    let (x, idx) = expand(op, x, idx)?;
    let has_arrays = idx.iter().any(|i| matches!(i, Idx::Array(_)));
    let rank = x.rank();
    let mut start = vec![0i64; rank];
    let mut limit = x.dims().to_vec();
    let mut strides = vec![1i64; rank];
    let mut reversed = vec![];
    let mut drop = vec![];
    let mut arrays: Vec<(usize, Array)> = vec![];
    for (d, i) in idx.iter().enumerate() {
        let n = x.dims()[d];
        match i {
            Idx::Int(k) => {
                let kk = if *k < 0 { k + n } else { *k };
                if !(0..n).contains(&kk) {
                    return Err(Error::op(
                        op,
                        format!("index {k} is out of bounds for axis {d} with size {n}"),
                    ));
                }
                if has_arrays {
                    arrays.push((d, i32_scalar(kk)));
                } else {
                    start[d] = kk;
                    limit[d] = kk + 1;
                    drop.push(d);
                }
            }
            Idx::Slice(s, e, step) => {
                let step = step.unwrap_or(1);
                if step == 0 {
                    return Err(Error::op(op, "slice step cannot be zero"));
                }
                let (first, count) = slice_bounds(*s, *e, step, n);
                if count == 0 {
                    start[d] = 0;
                    limit[d] = 0;
                } else if step > 0 {
                    start[d] = first;
                    limit[d] = first + (count - 1) * step + 1;
                    strides[d] = step;
                } else {
                    reversed.push(d as i64);
                    let f = n - 1 - first;
                    start[d] = f;
                    limit[d] = f + (count - 1) * (-step) + 1;
                    strides[d] = -step;
                }
            }
            Idx::Array(a) => {
                let a = check_int_indices(op, a)?;
                arrays.push((d, a));
            }
            Idx::NewAxis | Idx::Ellipsis => unreachable!("expanded above"),
        }
    }
    let mut y = if reversed.is_empty() {
        x.clone()
    } else {
        rev(&x, &reversed)
    };
    if start.iter().any(|&s| s != 0)
        || limit.as_slice() != y.dims()
        || strides.iter().any(|&s| s != 1)
    {
        y = slice(&y, &start, &limit, Some(&strides));
    }
    if !has_arrays {
        if drop.is_empty() {
            return Ok(y);
        }
        let s: Vec<i64> = (0..rank)
            .filter(|d| !drop.contains(d))
            .map(|d| y.dims()[d])
            .collect();
        return Ok(reshape(&y, &s));
    }
    // Advanced indexing: broadcast the index arrays together, one gather.
    let mut b: Vec<i64> = vec![];
    for (_, a) in &arrays {
        b = broadcast_shapes(&b, a.dims()).ok_or_else(|| {
            Error::op(
                op,
                format!(
                    "index arrays of shapes {} cannot broadcast together",
                    arrays
                        .iter()
                        .map(|(_, a)| describe(a.aval()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
    }
    let mut comps = vec![];
    for (d, a) in &arrays {
        let a = normalize(op, a, y.dims()[*d]);
        let a = broadcast_to_shape(op, &a, &b);
        let mut s = b.clone();
        s.push(1);
        comps.push(reshape(&a, &s));
    }
    let refs: Vec<&Array> = comps.iter().collect();
    let indices = concatenate(&refs, b.len() as i64);
    let adv: Vec<i64> = arrays.iter().map(|(d, _)| *d as i64).collect();
    let contiguous = adv.windows(2).all(|w| w[1] == w[0] + 1);
    let nb = b.len() as i64;
    let rest = rank as i64 - adv.len() as i64;
    let offset_dims: Vec<i64> = if contiguous {
        let p = adv[0];
        (0..p).chain(p + nb..rest + nb).collect()
    } else {
        (nb..nb + rest).collect()
    };
    let slice_sizes: Vec<i64> = (0..rank)
        .map(|d| {
            if adv.contains(&(d as i64)) {
                1.min(y.dims()[d])
            } else {
                y.dims()[d]
            }
        })
        .collect();
    if let Some(&d) = adv.iter().find(|&&d| y.dims()[d as usize] == 0) {
        return Err(Error::op(
            op,
            format!(
                "cannot index an empty axis {d} of {} with an array",
                describe(y.aval())
            ),
        ));
    }
    let dn = GatherDimensionNumbers {
        offset_dims,
        collapsed_slice_dims: adv.clone(),
        start_index_map: adv,
        index_vector_dim: nb,
        ..Default::default()
    };
    let mode = if fill {
        GatherScatterMode::FillOrDrop
    } else {
        GatherScatterMode::Clip
    };
    let r = gather(&y, &indices, dn, &slice_sizes, mode);
    r.check()?;
    Ok(r)
}

/// `x[idx]`: numpy indexing with ints, slices (any step), new axes, an ellipsis and integer
/// arrays (advanced indexing; out-of-bounds array indices clamp, as JAX's reads do).
///
/// ```
/// use systolic::{numpy as np, numpy::Idx, Array};
/// let x = np::reshape(&np::arange(12), &[3, 4]);
/// let r = np::index(&x, &[Idx::from(-1), Idx::slice(None, None, Some(-2))]);
/// assert_eq!(r.to_vec::<i32>().unwrap(), vec![11, 9]);
/// let c = np::index(&x, &[Idx::Ellipsis, Idx::from(Array::from_vec(vec![0i32, 3], &[2]))]);
/// assert_eq!(c.to_vec::<i32>().unwrap(), vec![0, 3, 4, 7, 8, 11]);
/// assert_eq!(np::index(&x, &[Idx::NewAxis, Idx::from(1..3)]).shape(), &[1, 2, 4]);
/// ```
pub fn index(x: &Array, idx: &[Idx]) -> Array {
    or_fail(index_impl("index", x, idx, false))
}

/// A functional update of `x` at an index expression: JAX's `x.at[idx]`.
///
/// ```
/// use systolic::{numpy as np, numpy::Idx, Array};
/// let x = np::zeros(&[5], systolic_ir::DType::F32);
/// let i = Array::from_vec(vec![1i32, 1, -1, 9], &[4]);
/// let y = np::at(&x, &[Idx::from(&i)]).add(&Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]));
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0, 3.0, 0.0, 0.0, 3.0]); // 9 is dropped
/// let z = np::at(&x, &[Idx::from(1..4)]).set(&systolic::weak_float(7.0));
/// assert_eq!(z.to_vec::<f32>().unwrap(), vec![0.0, 7.0, 7.0, 7.0, 0.0]);
/// ```
#[derive(Clone, Debug)]
pub struct At {
    x: Array,
    idx: Vec<Idx>,
}

/// `x.at[idx]`: see [`At`].
pub fn at(x: &Array, idx: &[Idx]) -> At {
    At {
        x: x.clone(),
        idx: idx.to_vec(),
    }
}

impl At {
    /// `x[idx]`.
    pub fn get(&self) -> Array {
        index(&self.x, &self.idx)
    }
    /// `x.at[idx].set(v)`: duplicates keep one of the updates; out-of-bounds ones are
    /// dropped.
    pub fn set(&self, values: &Array) -> Array {
        self.apply("at.set", ScatterOp::Set, values)
    }
    /// `x.at[idx].add(v)`: duplicates accumulate.
    pub fn add(&self, values: &Array) -> Array {
        self.apply("at.add", ScatterOp::Add, values)
    }
    /// `x.at[idx].mul(v)`.
    pub fn mul(&self, values: &Array) -> Array {
        self.apply("at.mul", ScatterOp::Mul, values)
    }
    /// `x.at[idx].min(v)`.
    pub fn min(&self, values: &Array) -> Array {
        self.apply("at.min", ScatterOp::Min, values)
    }
    /// `x.at[idx].max(v)`.
    pub fn max(&self, values: &Array) -> Array {
        self.apply("at.max", ScatterOp::Max, values)
    }

    fn apply(&self, op: &str, kind: ScatterOp, values: &Array) -> Array {
        or_fail((|| {
            self.x.check()?;
            values.check()?;
            match windowed_update(op, &self.x, &self.idx, kind, values)? {
                Some(r) => Ok(r),
                None => self.apply_by_positions(op, kind, values),
            }
        })())
    }

    /// The update as one scatter of single elements into the flattened array: the positions
    /// `x[idx]` selects are read from an iota of `x`'s shape (out-of-bounds ones become negative
    /// and are dropped). Costs a pass over all of `x`; only strided slices come here.
    fn apply_by_positions(&self, op: &str, kind: ScatterOp, values: &Array) -> Result<Array> {
        {
            let x = &self.x;
            let n = x.num_elements() as i64;
            let pos = reshape(&iota(DType::I32, &[n], 0), x.dims());
            let sel = index_impl(op, &pos, &self.idx, true)?;
            let v = convert(op, values, x.element_type(), x.weak_type());
            let v = broadcast_to_shape(op, &v, sel.dims());
            v.check().map_err(|_| {
                Error::op(
                    op,
                    format!(
                        "values {} cannot broadcast to the indexed shape {:?} of {}",
                        describe(values.aval()),
                        sel.dims(),
                        describe(x.aval())
                    ),
                )
            })?;
            let m = sel.num_elements() as i64;
            let flat_idx = reshape(&sel, &[m, 1]);
            let flat_v = reshape(&v, &[m]);
            let flat_x = reshape(x, &[n]);
            let dn = ScatterDimensionNumbers {
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                index_vector_dim: 1,
                ..Default::default()
            };
            let r = scatter_raw(
                &flat_x,
                &flat_idx,
                &flat_v,
                &dn,
                scatter_body(kind, x.element_type())?,
            );
            Ok(reshape(&r, x.dims()))
        }
    }
}

/// `x.at[idx]` updated as JAX lowers it: one scatter whose windows are the sliced dimensions,
/// indexed by the ints and integer arrays (broadcast together, numpy's advanced indexing) and
/// by the slices' starts. Costs what the update touches, not a pass over `x` (the difference
/// for a KV-cache update `cache.at[:, pos].set(new)`). Out-of-bounds indices, static or not,
/// drop their update, as JAX's. `None` when a slice has a step other than 1 and selects more
/// than one element (its elements are not one window).
fn windowed_update(
    op: &str,
    x: &Array,
    idx: &[Idx],
    kind: ScatterOp,
    values: &Array,
) -> Result<Option<Array>> {
    let (xe, idx) = expand(op, x, idx)?;
    // Windows: (dim, start, count). Points: (dim, int32 index array, normalised).
    let mut windows: Vec<(usize, i64, i64)> = vec![];
    let mut points: Vec<(usize, Array)> = vec![];
    for (d, i) in idx.iter().enumerate() {
        let n = xe.dims()[d];
        match i {
            Idx::Int(k) => {
                let k = if *k < 0 { k + n } else { *k };
                // Out of bounds either way: -1 is dropped like any other.
                points.push((d, i32_scalar(if (0..n).contains(&k) { k } else { -1 })));
            }
            Idx::Slice(start, stop, step) => {
                let step = step.unwrap_or(1);
                if step == 0 {
                    return Err(Error::op(op, "slice step cannot be zero"));
                }
                let (first, count) = slice_bounds(*start, *stop, step, n);
                if step != 1 && count > 1 {
                    return Ok(None);
                }
                windows.push((d, if count == 0 { 0 } else { first }, count));
            }
            Idx::Array(a) => {
                let a = check_int_indices(op, a)?;
                points.push((d, normalize(op, &a, n)));
            }
            Idx::NewAxis | Idx::Ellipsis => unreachable!("expanded above"),
        }
    }
    let mut b: Vec<i64> = vec![];
    for (_, a) in &points {
        b = broadcast_shapes(&b, a.dims()).ok_or_else(|| {
            Error::op(
                op,
                format!(
                    "index arrays of shapes {} cannot broadcast together",
                    points
                        .iter()
                        .map(|(_, a)| describe(a.aval()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
    }
    // numpy's rule: advanced indices next to each other put their broadcast dims where they
    // stand; apart, in front.
    let adv: Vec<usize> = points.iter().map(|(d, _)| *d).collect();
    let together = adv.windows(2).all(|w| w[1] == w[0] + 1);
    let split = if together {
        adv.first()
            .map_or(0, |&p| windows.iter().filter(|w| w.0 < p).count())
    } else {
        0
    };
    let counts: Vec<i64> = windows.iter().map(|w| w.2).collect();
    let nb = b.len() as i64;
    let mut update_shape = counts[..split].to_vec();
    update_shape.extend_from_slice(&b);
    update_shape.extend_from_slice(&counts[split..]);
    let update_window_dims: Vec<i64> = (0..split as i64)
        .chain(split as i64 + nb..update_shape.len() as i64)
        .collect();
    let v = convert(op, values, x.element_type(), x.weak_type());
    let v = broadcast_to_shape(op, &v, &update_shape);
    v.check().map_err(|_| {
        Error::op(
            op,
            format!(
                "values {} cannot broadcast to the indexed shape {update_shape:?} of {}",
                describe(values.aval()),
                describe(x.aval())
            ),
        )
    })?;
    if update_shape.contains(&0) {
        return Ok(Some(x.clone()));
    }
    // One index component per point and per window that does not start at 0, in dim order.
    let mut comps: Vec<(usize, Array)> = points
        .iter()
        .map(|(d, a)| (*d, broadcast_to_shape(op, a, &b)))
        .collect();
    for &(d, start, _) in &windows {
        if start != 0 {
            comps.push((d, broadcast_to_shape(op, &i32_scalar(start), &b)));
        }
    }
    comps.sort_by_key(|(d, _)| *d);
    let mut col = b.clone();
    col.push(1);
    let cols: Vec<Array> = comps.iter().map(|(_, a)| reshape(a, &col)).collect();
    let indices = if cols.is_empty() {
        let mut empty = b.clone();
        empty.push(0);
        full(&empty, 0.0, DType::I32)
    } else {
        concatenate(&cols.iter().collect::<Vec<_>>(), nb)
    };
    let dn = ScatterDimensionNumbers {
        update_window_dims,
        inserted_window_dims: adv.iter().map(|&d| d as i64).collect(),
        scatter_dims_to_operand_dims: comps.iter().map(|(d, _)| *d as i64).collect(),
        index_vector_dim: nb,
        ..Default::default()
    };
    let r = scatter_raw(
        &xe,
        &indices,
        &v,
        &dn,
        scatter_body(kind, x.element_type())?,
    );
    r.check()?;
    Ok(Some(reshape(&r, x.dims())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::creation::zeros;

    fn arange_f32(shape: &[i64]) -> Array {
        let n: i64 = shape.iter().product();
        Array::from_vec((0..n).map(|v| v as f32).collect(), shape)
    }

    fn ints(v: &[i32]) -> Array {
        Array::from_vec(v.to_vec(), &[v.len() as i64])
    }

    /// The windowed scatter and the element-by-element one are two constructions of the same
    /// update: they agree on every index form both take, for every update kind.
    #[test]
    fn windowed_updates_equal_element_updates() {
        let x = arange_f32(&[4, 3, 5]);
        let exprs: Vec<Vec<Idx>> = vec![
            vec![Idx::from(1)],
            vec![Idx::from(-1), Idx::from(1..3)],
            vec![Idx::full(), Idx::from(2)],
            vec![Idx::Ellipsis, Idx::from(ints(&[4, 0, 4]))],
            vec![
                Idx::from(ints(&[0, 3, 0])),
                Idx::full(),
                Idx::from(ints(&[1, 1, 2])),
            ],
            vec![Idx::from(1..3), Idx::from(ints(&[2, 0]))],
            vec![Idx::NewAxis, Idx::from(2), Idx::Ellipsis, Idx::from(3)],
            vec![Idx::from(ints(&[-1, 7, 2])), Idx::from(0..2)],
            vec![Idx::slice(Some(2), Some(3), Some(-1))],
            vec![Idx::slice(Some(3), Some(1), None)],
        ];
        for (e, idx) in exprs.iter().enumerate() {
            let at = at(&x, idx);
            let shape = at.get().shape().to_vec();
            let n: i64 = shape.iter().product();
            let v = Array::from_vec((0..n).map(|k| 100.0 + k as f32).collect(), &shape);
            for kind in [
                ScatterOp::Set,
                ScatterOp::Add,
                ScatterOp::Mul,
                ScatterOp::Min,
                ScatterOp::Max,
            ] {
                let windowed = windowed_update("t", &x, idx, kind, &v)
                    .unwrap()
                    .expect("no strided slice");
                let by_positions = at.apply_by_positions("t", kind, &v).unwrap();
                assert_eq!(
                    windowed.to_vec::<f32>().unwrap(),
                    by_positions.to_vec::<f32>().unwrap(),
                    "expression {e} ({idx:?}), {kind:?}"
                );
            }
        }
    }

    #[test]
    fn static_out_of_bounds_ints_drop_the_update_as_jax() {
        // JAX 0.10.2: jnp.zeros((3, 4)).at[5].set(1.0) is all zeros; .at[-1, 1:3].add(2.0)
        // adds to row 2.
        let x = zeros(&[3, 4], DType::F32);
        let y = at(&x, &[Idx::from(5)]).set(&crate::weak_float(1.0));
        assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0; 12]);
        let y = at(&x, &[Idx::from(-4)]).set(&crate::weak_float(1.0));
        assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0; 12]);
        let y = at(&x, &[Idx::from(-1), Idx::from(1..3)]).add(&crate::weak_float(2.0));
        let mut want = vec![0.0; 12];
        want[9] = 2.0;
        want[10] = 2.0;
        assert_eq!(y.to_vec::<f32>().unwrap(), want);
    }

    #[test]
    fn a_cache_update_lowers_to_one_windowed_scatter_without_an_iota() {
        // cache[:, pos] = new, pos traced: JAX emits one scatter with the batch and feature
        // dims as windows.
        let f = crate::jit(|(cache, pos, new): &(Array, Array, Array)| {
            at(cache, &[Idx::full(), Idx::from(pos)]).set(new)
        });
        let cache = zeros(&[2, 16, 8], DType::F32);
        let new = arange_f32(&[2, 8]);
        let args = (cache, Array::scalar(3i32), new);
        let text = f.lower(&args).unwrap().as_text();
        assert!(text.contains("stablehlo.scatter"), "{text}");
        assert!(!text.contains("iota"), "{text}");
        assert!(text.contains("update_window_dims = [0, 1]"), "{text}");
        let out = f.call(&args).unwrap().to_vec::<f32>().unwrap();
        for b in 0..2 {
            for t in 0..16 {
                for k in 0..8 {
                    let want = if t == 3 { (b * 8 + k) as f32 } else { 0.0 };
                    assert_eq!(out[(b * 16 + t) * 8 + k], want, "[{b}, {t}, {k}]");
                }
            }
        }
        // Out of bounds: the update is dropped, as JAX's.
        let args = (args.0, Array::scalar(16i32), args.2);
        assert!(f
            .call(&args)
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .all(|&v| v == 0.0));
    }
    /// Windowed updates under the transformations: grad of `set`/`add` with respect to the
    /// array and the values (analytic), and vmap equal to a loop over the batch.
    #[test]
    fn windowed_updates_differentiate_and_batch() {
        let x = arange_f32(&[3, 4]);
        let v = Array::from_vec(vec![10.0f32, 20.0, 30.0], &[3]);
        // f = sum(x.at[:, 1].set(v)^2): df/dx = 2x off column 1, 0 on it; df/dv = 2v.
        let g = crate::grad(|(x, v): &(Array, Array)| {
            let y = at(x, &[Idx::full(), Idx::from(1)]).set(v);
            crate::numpy::sum(&(&y * &y), None, false)
        });
        let (gx, gv) = g.call(&(x.clone(), v.clone())).unwrap();
        let want_x: Vec<f32> = (0..12)
            .map(|k| if k % 4 == 1 { 0.0 } else { 2.0 * k as f32 })
            .collect();
        assert_eq!(gx.to_vec::<f32>().unwrap(), want_x);
        assert_eq!(gv.to_vec::<f32>().unwrap(), vec![20.0, 40.0, 60.0]);
        // f = sum(x.at[1:3, 2].add(v[:2]) * w): df/dx = w, df/dv = w[1:3, 2] then 0.
        let w = arange_f32(&[3, 4]);
        let g = crate::grad(|(x, v): &(Array, Array)| {
            let y = at(x, &[Idx::from(1..3), Idx::from(2)]).add(&index(v, &[Idx::from(0..2)]));
            crate::numpy::sum(&(&y * &w), None, false)
        });
        let (gx, gv) = g.call(&(x.clone(), v.clone())).unwrap();
        assert_eq!(gx.to_vec::<f32>().unwrap(), w.to_vec::<f32>().unwrap());
        assert_eq!(gv.to_vec::<f32>().unwrap(), vec![6.0, 10.0, 0.0]);
        // vmap over a batch of rows and positions.
        let xs = arange_f32(&[2, 3, 4]);
        let pos = Array::from_vec(vec![3i32, 0], &[2]);
        let f = |(x, p): &(Array, Array)| {
            at(x, &[Idx::full(), Idx::from(p)]).set(&crate::weak_float(-1.0))
        };
        let batched = crate::vmap(f).call(&(xs.clone(), pos.clone())).unwrap();
        let mut want = vec![];
        for b in 0..2 {
            let xb = index(&xs, &[Idx::from(b)]);
            let pb = index(&pos, &[Idx::from(b)]);
            want.extend(f(&(xb, pb)).to_vec::<f32>().unwrap());
        }
        assert_eq!(batched.to_vec::<f32>().unwrap(), want);
    }
    /// Duplicate indices: the update that wins a location in the forward pass gets its
    /// gradient, the overwritten operand element and the losing updates get none.
    #[test]
    fn grad_of_a_set_with_duplicate_indices_follows_the_winner() {
        let x = arange_f32(&[5]);
        let v = Array::from_vec(vec![10.0f32, 20.0, 30.0], &[3]);
        let w = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0], &[5]);
        let i = ints(&[1, 1, 3]);
        let f = |(x, v): &(Array, Array)| {
            let y = at(x, &[Idx::from(&i)]).set(v);
            crate::numpy::sum(&(&y * &w), None, false)
        };
        let y = at(&x, &[Idx::from(&i)]).set(&v).to_vec::<f32>().unwrap();
        let winner_at_1 = if y[1] == 20.0 { 1 } else { 0 };
        let (gx, gv) = crate::grad(f).call(&(x, v)).unwrap();
        assert_eq!(gx.to_vec::<f32>().unwrap(), vec![1.0, 0.0, 3.0, 0.0, 5.0]);
        let mut want_v = vec![0.0, 0.0, 4.0];
        want_v[winner_at_1] = 2.0;
        assert_eq!(gv.to_vec::<f32>().unwrap(), want_v);
    }
}
