//! Collectives over the named axes of a [`shard_map`](crate::shard_map) body, as `jax.lax`'s:
//! [`psum`], [`pmean`], [`pmax`], [`pmin`], [`all_gather`], [`psum_scatter`], [`ppermute`],
//! [`all_to_all`], [`axis_index`] and [`axis_size`]. Each stages the StableHLO collective
//! over the devices the axes group (partition ids, `use_global_device_ids`, one channel per
//! op), as JAX's shard_map lowers them; outside a body they fail naming the unbound axis.
//!
//! Over the named axis of an enclosing `vmap(f).axis_name("b")` the same functions run across
//! the *examples* instead, as JAX's `vmap(f, axis_name="b")`: each stages a `systolic.batch_collective` marker that `vmap` lowers once the
//! batch dimension is known (a reduction, the whole batch, a gather of examples, an iota) and
//! that `grad` differentiates by JAX's transposes for vmap axes — `psum` ↔ `psum` (each
//! example's cotangent is the sum of all of theirs), `all_gather` ↔ `psum_scatter`, `ppermute`
//! ↔ the inverse pairs, `all_to_all` ↔ the split and concat axes swapped — so `vmap(grad(f))`
//! and `grad` of the vmapped function summed agree (`pmax`/`pmin`: no rule, as JAX). A
//! collective over an outer vmap's axis inside an inner vmap is left for the outer one.
//! `psum`/`pmean`/`pmax`/`pmin`, `axis_index`, `axis_size` and `all_gather` also take several
//! vmap axes at once (row-major over them as listed), and the reductions, `axis_index` and
//! `axis_size` a mix of vmap axes and the shard_map's mesh axes (a vmap inside the body);
//! `psum_scatter`, `ppermute` and `all_to_all` run over one vmap axis at a time.
//!
//! ```
//! use systolic::{grad, lax, numpy as np, vmap, Array};
//! // Each example's share of the batch total, and its gradient per example.
//! let share = |x: &Array| np::sum(&(x / &lax::psum(x, "b")), None, false);
//! let x = Array::from_vec(vec![1.0f32, 3.0], &[2]);
//! let s = vmap(share).axis_name("b").call(&x).unwrap();
//! assert_eq!(s.to_vec::<f32>().unwrap(), vec![0.25, 0.75]);
//! // d/dx_i Σ_j x_j / Σ_k x_k = 0: the shares always sum to 1, and the psum's transpose (a
//! // psum of the cotangents) makes vmap(grad) the gradient of that total.
//! let g = vmap(|x: &Array| grad(share).call(x).unwrap()).axis_name("b").call(&x).unwrap();
//! assert!(g.to_vec::<f32>().unwrap().iter().all(|v| v.abs() < 1e-6));
//! ```

use crate::array::Array;
use crate::core::bind::{bind, bind1};
use crate::error::{Error, Result};
use crate::ops::region::binary_body;
use crate::sharding::Mesh;
use crate::transforms::shard_map::axis_env::{self, groups, mask_of, mesh_for};
use std::sync::atomic::{AtomicI64, Ordering};
use systolic_ir::{
    batch_collective, BinaryOp, ChannelHandle, CollectiveAttrs, DType, OpKind, TensorType,
};

/// The mesh axes a collective runs over: one name (`"data"`) or several (`["x", "y"]`, the
/// devices that differ in any of them, ordered major first as listed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisNames(pub Vec<String>);

impl From<&str> for AxisNames {
    fn from(a: &str) -> Self {
        AxisNames(vec![a.to_string()])
    }
}

impl From<String> for AxisNames {
    fn from(a: String) -> Self {
        AxisNames(vec![a])
    }
}

impl<const N: usize> From<[&str; N]> for AxisNames {
    fn from(a: [&str; N]) -> Self {
        AxisNames(a.iter().map(|s| s.to_string()).collect())
    }
}

impl From<&[&str]> for AxisNames {
    fn from(a: &[&str]) -> Self {
        AxisNames(a.iter().map(|s| s.to_string()).collect())
    }
}

impl From<(&str, &str)> for AxisNames {
    fn from((a, b): (&str, &str)) -> Self {
        AxisNames(vec![a.to_string(), b.to_string()])
    }
}

/// The vmap axis `axes` names, when it is one name bound by `vmap(…).axis_name(…)`: the
/// collective then runs across the examples (staged as a `systolic.batch_collective` marker
/// that `vmap` rewrites) — `Some((name, size))`.
fn vmap_axis(axes: &AxisNames) -> Option<(String, usize)> {
    match axes.0.as_slice() {
        [one] => axis_env::batch_axis(one).map(|n| (one.clone(), n)),
        _ => None,
    }
}

/// `axes` split into the vmap axes among them (with their sizes, in the order listed) and the
/// rest (the shard_map's mesh axes); an axis named twice is an error of `op`.
fn split_axes(op: &str, axes: &AxisNames) -> Result<(Vec<(String, usize)>, AxisNames)> {
    let (mut batch, mut mesh) = (vec![], vec![]);
    for (i, a) in axes.0.iter().enumerate() {
        if axes.0[..i].contains(a) {
            return Err(Error::op(op, format!("axis '{a}' is named twice")));
        }
        match axis_env::batch_axis(a) {
            Some(n) => batch.push((a.clone(), n)),
            None => mesh.push(a.clone()),
        }
    }
    Ok((batch, AxisNames(mesh)))
}

/// For the collectives whose vmap form is not composed with the mesh's: an error of `op` when
/// `axes` mixes vmap axes (`batch`) and mesh axes.
fn one_vmap_kind(op: &str, axes: &AxisNames, batch: &[(String, usize)]) -> Result<()> {
    match batch.first() {
        Some((name, _)) if batch.len() < axes.0.len() => Err(Error::op(
            op,
            format!(
                "over axes {} of which '{name}' is a vmap axis and others are not: {op} runs \
                 over vmap axes or mesh axes, not both at once",
                axis_env::quoted(&axes.0)
            ),
        )),
        _ => Ok(()),
    }
}

/// For the collectives over one vmap axis at a time: an error of `op` when `axes` lists
/// several names, a vmap axis among them.
fn one_vmap_axis(op: &str, axes: &AxisNames) -> Result<()> {
    let (batch, _) = split_axes(op, axes)?;
    match batch.first() {
        Some((name, _)) if axes.0.len() > 1 => Err(Error::op(
            op,
            format!(
                "over several axes ({}) of which '{name}' is a vmap axis: {op} runs over one \
                 vmap axis at a time",
                axis_env::quoted(&axes.0)
            ),
        )),
        _ => Ok(()),
    }
}

/// Stages the marker of `collective` over vmap axis `name` on `operands`, of result type `ty`.
fn batch_marker(
    op: &str,
    collective: batch_collective::Collective,
    name: &str,
    operands: &[&Array],
    ty: TensorType,
    weak: bool,
) -> Array {
    let marker = batch_collective::Marker {
        collective,
        axis_name: name.to_string(),
    };
    bind1(
        op,
        batch_collective::kind(&marker),
        operands,
        Some(ty),
        weak,
    )
}

/// A fresh channel id per collective (device to device), as JAX numbers them.
fn channel() -> Option<ChannelHandle> {
    static NEXT: AtomicI64 = AtomicI64::new(1);
    Some(ChannelHandle {
        handle: NEXT.fetch_add(1, Ordering::Relaxed),
        kind: 1,
    })
}

/// The mesh, the axes' positions in the order given, and the devices of a group.
fn resolve(op: &str, axes: &AxisNames) -> Result<(Mesh, Vec<usize>, usize)> {
    if axes.0.is_empty() {
        return Err(Error::op(op, "no axis name was given"));
    }
    let mesh = mesh_for(op, &axes.0)?;
    mask_of(op, &mesh, &axes.0)?;
    let positions: Vec<usize> = axes
        .0
        .iter()
        .map(|a| mesh.axis_index(a))
        .collect::<Result<_>>()?;
    let size = positions.iter().map(|&p| mesh.axis_sizes()[p]).product();
    Ok((mesh, positions, size))
}

fn attrs(mesh: &Mesh, positions: &[usize]) -> CollectiveAttrs {
    CollectiveAttrs {
        replica_groups: groups(mesh, positions),
        channel_handle: channel(),
        use_global_device_ids: true,
        has_dynamic_root: false,
    }
}

fn all_reduce(op: &str, x: &Array, axes: AxisNames, reducer: BinaryOp) -> Array {
    let (batch, mesh) = match split_axes(op, &axes) {
        Ok(split) => split,
        Err(e) => return Array::failed(e),
    };
    if !batch.is_empty() {
        // A reduction over several axes is the reductions over each, in any order: the mesh
        // axes' all_reduce, then one marker per vmap axis.
        let collective = match reducer {
            BinaryOp::Maximum => batch_collective::Collective::Max,
            BinaryOp::Minimum => batch_collective::Collective::Min,
            _ => batch_collective::Collective::Sum,
        };
        let mut y = match mesh.0.is_empty() {
            true => x.clone(),
            false => all_reduce(op, x, mesh, reducer),
        };
        for (name, _) in batch {
            y = batch_marker(
                op,
                collective.clone(),
                &name,
                &[&y],
                y.aval().clone(),
                y.weak_type(),
            );
        }
        return y;
    }
    let run = || -> Result<Array> {
        x.check()?;
        let (mesh, positions, _) = resolve(op, &axes)?;
        let kind = OpKind::AllReduce {
            collective: attrs(&mesh, &positions),
        };
        let body = binary_body(reducer, x.element_type());
        let mut out = bind(
            op,
            kind,
            &[x],
            vec![body],
            Some(vec![x.aval().clone()]),
            x.weak_type(),
        )?;
        out.pop().ok_or_else(|| Error::op(op, "no result"))
    };
    run().unwrap_or_else(Array::failed)
}

/// Checks that dimension `dim` of `x` splits into the `n` devices of `axes`: divisible when
/// `tiled`, equal to `n` otherwise (one element per device).
fn check_pieces(
    op: &str,
    x: &Array,
    dim: usize,
    n: usize,
    tiled: bool,
    axes: &AxisNames,
) -> Result<()> {
    let size = x.dims()[dim];
    let ok = if tiled {
        size % n as i64 == 0
    } else {
        size == n as i64
    };
    if ok {
        return Ok(());
    }
    Err(Error::op(
        op,
        format!(
            "dimension {dim} of {} has size {size}, which {} the {n} {} {}",
            crate::array::describe(x.aval()),
            if tiled {
                "is not divisible by"
            } else {
                "must equal (tiled = false)"
            },
            match vmap_axis(axes) {
                Some(_) => "examples of vmap axis",
                None => "devices of axis",
            },
            axis_env::quoted(&axes.0)
        ),
    ))
}

/// `lax.psum`: the sum of `x` over the devices of `axes` (every device gets it). The result
/// is invariant over `axes`; under `grad` its transpose hands each device the cotangent, as
/// JAX's shard_map does.
///
/// ```
/// use systolic::{lax, make_mesh, shard_map, Array, P};
/// let mesh = make_mesh(&[1], &["i"]).unwrap();
/// let f = shard_map(|x: &Array| lax::psum(x, "i"), &mesh, P!("i"), P!());
/// let y = f.call(&Array::from_vec(vec![1.0f32, 2.0], &[2])).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
/// let outside = lax::psum(&Array::scalar(1.0f32), "i").check().unwrap_err().to_string();
/// assert!(outside.contains("unbound axis name 'i'"), "{outside}");
/// ```
pub fn psum(x: &Array, axes: impl Into<AxisNames>) -> Array {
    let reducer = if x.element_type() == DType::Bool {
        BinaryOp::Or
    } else {
        BinaryOp::Add
    };
    all_reduce("psum", x, axes.into(), reducer)
}

/// `lax.pmax`: the maximum over the devices of `axes`. Not differentiable over a vmap axis,
/// as JAX's (a real all_reduce max has no rule either).
pub fn pmax(x: &Array, axes: impl Into<AxisNames>) -> Array {
    all_reduce("pmax", x, axes.into(), BinaryOp::Maximum)
}

/// `lax.pmin`: the minimum over the devices of `axes` (no rule under `grad`, as [`pmax`]).
pub fn pmin(x: &Array, axes: impl Into<AxisNames>) -> Array {
    all_reduce("pmin", x, axes.into(), BinaryOp::Minimum)
}

/// `lax.pmean`: the mean over the devices of `axes` (a `psum` divided by their number).
pub fn pmean(x: &Array, axes: impl Into<AxisNames>) -> Array {
    let axes = axes.into();
    match axis_size(axes.clone()) {
        Ok(n) => &psum(x, axes) / n as f64,
        Err(e) => Array::failed(e),
    }
}

/// `lax.axis_size`: the number of devices along `axes` in the enclosing shard_map (of
/// examples, for a vmap axis).
pub fn axis_size(axes: impl Into<AxisNames>) -> Result<usize> {
    let axes = axes.into();
    let (batch, mesh) = split_axes("axis_size", &axes)?;
    let examples: usize = batch.iter().map(|(_, n)| n).product();
    if mesh.0.is_empty() && !batch.is_empty() {
        return Ok(examples);
    }
    Ok(examples * resolve("axis_size", &mesh)?.2)
}

/// `lax.axis_index`: this device's position along `axes` (int32; for several axes, the
/// position in their row-major product).
///
/// ```
/// use systolic::{lax, make_mesh, shard_map, Array, P};
/// let mesh = make_mesh(&[1], &["i"]).unwrap();
/// let f = shard_map(|x: &Array| x + &lax::axis_index("i"), &mesh, P!("i"), P!("i"));
/// let y = f.call(&Array::from_vec(vec![10i32], &[1])).unwrap();
/// assert_eq!(y.to_vec::<i32>().unwrap(), vec![10]);
/// ```
pub fn axis_index(axes: impl Into<AxisNames>) -> Array {
    let axes = axes.into();
    let run = || -> Result<Array> {
        let (batch, mesh_axes) = split_axes("axis_index", &axes)?;
        let mesh = match mesh_axes.0.is_empty() && !batch.is_empty() {
            true => None,
            false => Some(resolve("axis_index", &mesh_axes)?.0),
        };
        let int = |v: usize| crate::numpy::full(&[], v as f64, DType::I32);
        // Position along the listed axes: row-major over them; a vmap axis's coordinate is
        // its marker, a mesh axis's comes from the partition id (mesh position) by its stride.
        let mut pid = None;
        let mut index = int(0);
        for a in &axes.0 {
            let (coord, size) = match (batch.iter().find(|(n, _)| n == a), &mesh) {
                (Some((name, n)), _) => (batch_index(name), *n),
                (None, Some(mesh)) => {
                    let pid = pid.get_or_insert_with(partition_id).clone();
                    let sizes = mesh.axis_sizes();
                    let p = mesh.axis_index(a)?;
                    let stride: usize = sizes[p + 1..].iter().product();
                    let coord = crate::ops::strict::rem(
                        &crate::ops::strict::div(&pid, &int(stride)),
                        &int(sizes[p]),
                    );
                    (coord, sizes[p])
                }
                (None, None) => unreachable!("a mesh axis without a mesh"),
            };
            index = crate::ops::strict::add(&crate::ops::strict::mul(&index, &int(size)), &coord);
        }
        index.check()?;
        Ok(index)
    };
    run().unwrap_or_else(Array::failed)
}

/// Each example's position along vmap axis `name` (its marker).
fn batch_index(name: &str) -> Array {
    batch_marker(
        "axis_index",
        batch_collective::Collective::AxisIndex,
        name,
        &[],
        TensorType::scalar(DType::I32),
        false,
    )
}

/// This device's partition id, as int32.
fn partition_id() -> Array {
    let pid = bind1(
        "axis_index",
        OpKind::PartitionId,
        &[],
        Some(TensorType::scalar(DType::U32)),
        false,
    );
    crate::numpy::astype(&pid, DType::I32)
}

/// `lax.all_gather`: every device's `x` along `axes`, stacked on a new dimension `axis`
/// (`tiled = false`) or concatenated along `axis` (`tiled = true`), in device order. Over a
/// vmap axis every example gets the whole batch; its transpose is a `psum_scatter`.
pub fn all_gather(x: &Array, axes: impl Into<AxisNames>, axis: usize, tiled: bool) -> Array {
    let axes = axes.into();
    match split_axes("all_gather", &axes) {
        Ok((batch, _)) if !batch.is_empty() => {
            return gather_examples(x, &axes, batch, axis, tiled)
        }
        Ok(_) => {}
        Err(e) => return Array::failed(e),
    }
    let run = || -> Result<Array> {
        x.check()?;
        let (mesh, positions, n) = resolve("all_gather", &axes)?;
        let limit = if tiled { x.rank() } else { x.rank() + 1 };
        if axis >= limit.max(1) || (tiled && x.rank() == 0) {
            return Err(Error::op(
                "all_gather",
                format!(
                    "axis {axis} is out of range for {} (tiled = {tiled})",
                    crate::array::describe(x.aval())
                ),
            ));
        }
        let operand = if tiled {
            x.clone()
        } else {
            let mut shape = x.dims().to_vec();
            shape.insert(axis, 1);
            crate::numpy::reshape(x, &shape)
        };
        let mut out_shape = operand.dims().to_vec();
        out_shape[axis] *= n as i64;
        let kind = OpKind::AllGather {
            all_gather_dim: axis as i64,
            collective: attrs(&mesh, &positions),
        };
        let declared = TensorType::new(out_shape, x.element_type());
        let out = bind1(
            "all_gather",
            kind,
            &[&operand],
            Some(declared),
            x.weak_type(),
        );
        out.check()?;
        Ok(out)
    };
    run().unwrap_or_else(Array::failed)
}

/// [`all_gather`] over vmap axes `batch` (all of `axes`): one marker per axis, the last
/// listed first, so the examples stack row-major over the axes as listed.
fn gather_examples(
    x: &Array,
    axes: &AxisNames,
    batch: Vec<(String, usize)>,
    axis: usize,
    tiled: bool,
) -> Array {
    if let Err(e) = x.check() {
        return Array::failed(e);
    }
    if let Err(e) = one_vmap_kind("all_gather", axes, &batch) {
        return Array::failed(e);
    }
    if axis > x.rank() || (tiled && axis >= x.rank()) {
        return Array::failed(Error::op(
            "all_gather",
            format!(
                "axis {axis} is out of range for {}",
                crate::array::describe(x.aval())
            ),
        ));
    }
    let mut stacked = x.clone();
    for (name, n) in batch.iter().rev() {
        let mut shape = stacked.dims().to_vec();
        shape.insert(axis, *n as i64);
        stacked = batch_marker(
            "all_gather",
            batch_collective::Collective::AllGather(axis as i64),
            name,
            &[&stacked],
            TensorType::new(shape, x.element_type()),
            x.weak_type(),
        );
    }
    let n: usize = batch.iter().map(|(_, n)| n).product();
    let mut merged = x.dims().to_vec();
    match tiled {
        true => merged[axis] *= n as i64,
        false => merged.insert(axis, n as i64),
    }
    match stacked.dims() == merged.as_slice() {
        true => stacked,
        false => crate::numpy::reshape(&stacked, &merged),
    }
}

/// `lax.psum_scatter`: the sum over the devices of `axes`, of which each device keeps its
/// piece along `scatter_dimension` (`tiled = true`: the dimension is divided by the number
/// of devices; `tiled = false`: it must equal that number and is removed). Over a vmap axis,
/// example `i` keeps piece `i`; its transpose under `grad` is an `all_gather`.
///
/// ```
/// use systolic::{lax, vmap, Array};
/// // 2 examples of 4: the sum [6, 8, 10, 12], of which each example keeps a half.
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], &[2, 4]);
/// let f = vmap(|x: &Array| lax::psum_scatter(x, "b", 0, true)).axis_name("b");
/// assert_eq!(f.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![6.0, 8.0, 10.0, 12.0]);
/// ```
pub fn psum_scatter(
    x: &Array,
    axes: impl Into<AxisNames>,
    scatter_dimension: usize,
    tiled: bool,
) -> Array {
    let axes = axes.into();
    let run = || -> Result<Array> {
        x.check()?;
        one_vmap_axis("psum_scatter", &axes)?;
        let vmap = vmap_axis(&axes);
        let n = match &vmap {
            Some((_, n)) => *n,
            None => resolve("psum_scatter", &axes)?.2,
        };
        if scatter_dimension >= x.rank() {
            return Err(Error::op(
                "psum_scatter",
                format!(
                    "scatter_dimension {scatter_dimension} is out of range for {}",
                    crate::array::describe(x.aval())
                ),
            ));
        }
        check_pieces("psum_scatter", x, scatter_dimension, n, tiled, &axes)?;
        if let Some((name, n)) = vmap {
            // The marker scatters one index per example: a tiled dimension is first cut
            // into (examples, piece).
            let mut operand = x.clone();
            if tiled {
                let mut shape = x.dims().to_vec();
                shape[scatter_dimension] /= n as i64;
                shape.insert(scatter_dimension, n as i64);
                operand = crate::numpy::reshape(x, &shape);
            }
            let mut out = operand.dims().to_vec();
            out.remove(scatter_dimension);
            let collective = batch_collective::Collective::ReduceScatter(scatter_dimension as i64);
            let ty = TensorType::new(out, x.element_type());
            let y = batch_marker(
                "psum_scatter",
                collective,
                &name,
                &[&operand],
                ty,
                x.weak_type(),
            );
            y.check()?;
            return Ok(y);
        }
        let (mesh, positions, _) = resolve("psum_scatter", &axes)?;
        let mut out_shape = x.dims().to_vec();
        out_shape[scatter_dimension] /= n as i64;
        let kind = OpKind::ReduceScatter {
            scatter_dimension: scatter_dimension as i64,
            collective: attrs(&mesh, &positions),
        };
        let body = binary_body(BinaryOp::Add, x.element_type());
        let declared = TensorType::new(out_shape.clone(), x.element_type());
        let mut out = bind(
            "psum_scatter",
            kind,
            &[x],
            vec![body],
            Some(vec![declared]),
            x.weak_type(),
        )?;
        let out = out
            .pop()
            .ok_or_else(|| Error::op("psum_scatter", "no result"))?;
        if tiled {
            return Ok(out);
        }
        out_shape.remove(scatter_dimension);
        Ok(crate::numpy::reshape(&out, &out_shape))
    };
    run().unwrap_or_else(Array::failed)
}

/// `lax.ppermute`: sends `x` along `axis` by `perm`, pairs `(source, target)` of positions
/// along the axis (the same for every group of the other axes). A device no pair sends to
/// gets zeros. Over a vmap axis the pairs are positions of examples (JAX's vmap takes only
/// full permutations; a partial one here gives zeros as in a shard_map); under `grad` the
/// cotangents go back by the inverse pairs.
///
/// ```
/// use systolic::{lax, vmap, Array};
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0], &[3]);
/// let shift = vmap(|x: &Array| lax::ppermute(x, "b", &[(0, 1), (1, 2), (2, 0)])).axis_name("b");
/// assert_eq!(shift.call(&x).unwrap().to_vec::<f32>().unwrap(), vec![3.0, 1.0, 2.0]);
/// let bad = vmap(|x: &Array| lax::ppermute(x, "b", &[(0, 3)])).axis_name("b").call(&x);
/// let err = bad.unwrap_err().to_string();
/// assert!(err.contains("out of range for the 3 examples of vmap axis 'b'"), "{err}");
/// ```
pub fn ppermute(x: &Array, axis: impl Into<AxisNames>, perm: &[(usize, usize)]) -> Array {
    let run = || -> Result<Array> {
        x.check()?;
        let axes = axis.into();
        one_vmap_axis("ppermute", &axes)?;
        let vmap = vmap_axis(&axes);
        let (n, what) = match &vmap {
            Some((_, n)) => (*n, "examples of vmap axis"),
            None => (resolve("ppermute", &axes)?.2, "devices of axis"),
        };
        for (i, &(s, t)) in perm.iter().enumerate() {
            if s >= n || t >= n {
                return Err(Error::op(
                    "ppermute",
                    format!(
                        "pair {i} ({s}, {t}) is out of range for the {n} {what} {}",
                        axis_env::quoted(&axes.0)
                    ),
                ));
            }
            if perm[..i].iter().any(|p| p.0 == s) || perm[..i].iter().any(|p| p.1 == t) {
                return Err(Error::op(
                    "ppermute",
                    format!("perm {perm:?} sends from or to a position twice (it must be a partial permutation)"),
                ));
            }
        }
        if let Some((name, _)) = vmap {
            let pairs = perm.iter().map(|&(s, t)| (s as i64, t as i64)).collect();
            let collective = batch_collective::Collective::Permute(pairs);
            let y = batch_marker(
                "ppermute",
                collective,
                &name,
                &[x],
                x.aval().clone(),
                x.weak_type(),
            );
            y.check()?;
            return Ok(y);
        }
        let (mesh, positions, _) = resolve("ppermute", &axes)?;
        let mut pairs = vec![];
        for group in groups(&mesh, &positions) {
            for &(s, t) in perm {
                pairs.push((group[s], group[t]));
            }
        }
        let kind = OpKind::CollectivePermute {
            source_target_pairs: pairs,
            channel_handle: channel(),
        };
        let out = bind1(
            "ppermute",
            kind,
            &[x],
            Some(x.aval().clone()),
            x.weak_type(),
        );
        out.check()?;
        Ok(out)
    };
    run().unwrap_or_else(Array::failed)
}

/// `lax.all_to_all`: splits `x` along `split_axis` into one piece per device of `axis`,
/// sends piece `j` to device `j`, and concatenates what it receives along `concat_axis`
/// (`tiled = true`; `tiled = false`: `split_axis` must have one element per device and is
/// removed, and the received pieces are stacked on a new `concat_axis`). Over a vmap axis the
/// examples exchange pieces the same way (example `i` gets piece `i` of every example); under
/// `grad` its transpose is the `all_to_all` with the two axes swapped.
pub fn all_to_all(
    x: &Array,
    axis: impl Into<AxisNames>,
    split_axis: usize,
    concat_axis: usize,
    tiled: bool,
) -> Array {
    let run = || -> Result<Array> {
        x.check()?;
        let axes = axis.into();
        one_vmap_axis("all_to_all", &axes)?;
        let vmap = vmap_axis(&axes);
        let n = match &vmap {
            Some((_, n)) => *n,
            None => resolve("all_to_all", &axes)?.2,
        };
        let rank = x.rank();
        if split_axis >= rank || concat_axis >= rank {
            return Err(Error::op(
                "all_to_all",
                format!(
                    "split_axis {split_axis} or concat_axis {concat_axis} is out of range for {}",
                    crate::array::describe(x.aval())
                ),
            ));
        }
        check_pieces("all_to_all", x, split_axis, n, tiled, &axes)?;
        // Untiled, as JAX: `concat_axis` names a position once `split_axis` is gone; a new
        // axis of size 1 is inserted there to receive the pieces, and the split axis (of size
        // 1 afterwards) is squeezed out.
        let (mut split, mut concat, mut operand) = (split_axis, concat_axis, x.clone());
        if !tiled && split != concat {
            if split < concat {
                concat += 1;
            } else {
                split += 1;
            }
            let mut shape = x.dims().to_vec();
            shape.insert(concat, 1);
            operand = crate::numpy::reshape(x, &shape);
        }
        let mut out_shape = operand.dims().to_vec();
        out_shape[split] /= n as i64;
        out_shape[concat] *= n as i64;
        let declared = TensorType::new(out_shape.clone(), x.element_type());
        let out = match vmap {
            Some((name, _)) => {
                let collective = batch_collective::Collective::AllToAll {
                    split: split as i64,
                    concat: concat as i64,
                };
                batch_marker(
                    "all_to_all",
                    collective,
                    &name,
                    &[&operand],
                    declared,
                    x.weak_type(),
                )
            }
            None => {
                let (mesh, positions, _) = resolve("all_to_all", &axes)?;
                let kind = OpKind::AllToAll {
                    split_dimension: split as i64,
                    concat_dimension: concat as i64,
                    split_count: n as i64,
                    collective: attrs(&mesh, &positions),
                };
                bind1(
                    "all_to_all",
                    kind,
                    &[&operand],
                    Some(declared),
                    x.weak_type(),
                )
            }
        };
        out.check()?;
        if tiled || split == concat {
            return Ok(out);
        }
        out_shape.remove(split);
        Ok(crate::numpy::reshape(&out, &out_shape))
    };
    run().unwrap_or_else(Array::failed)
}
