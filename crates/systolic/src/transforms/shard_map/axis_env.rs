//! The axis environment of a [`shard_map`](crate::shard_map) body: which mesh is manual while
//! the body is traced (so `lax::psum(x, "data")` knows the devices `"data"` groups), and which
//! mesh axes each traced value *varies* over (JAX's `vma`).
//!
//! Variance is what makes gradients inside a body right. A value is *invariant* over an axis
//! when every device along it holds the same value (an argument whose spec does not name the
//! axis, a `psum` over it, a constant), *varying* otherwise. When an op mixes the two, the
//! invariant operand is first marked varying by a `pvary` (`systolic_ir::pvary`, no data
//! change); under `grad` its transpose sums the cotangents of the devices that shared the
//! value, which is exactly the gradient of the one invariant value. The rules, one per op kind,
//! are in [`propagate`]; the staging code calls [`before_stage`] and [`after_stage`] for every
//! op, and [`inherit`] for every parameter a nested trace makes for a value of this one.

use crate::array::{Array, Repr};
use crate::core::trace::Trace;
use crate::error::{Error, Result};
use crate::sharding::Mesh;
use std::cell::RefCell;
use std::collections::HashMap;
use systolic_ir::{pvary, OpKind, Type, ValueId};

/// A set of mesh axes, bit `i` for axis `i` of the mesh.
pub(crate) type AxisMask = u32;

struct Frame {
    mesh: Mesh,
    /// The axes manual in the body: this shard_map's and the enclosing ones'.
    manual: AxisMask,
    /// The axes each value of a trace inside the body varies over (absent: invariant).
    vma: HashMap<(u64, ValueId), AxisMask>,
}

thread_local! {
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
    /// The named vmap axes being traced (JAX's `vmap(axis_name=…)`), innermost last.
    static BATCH_AXES: RefCell<Vec<(String, usize)>> = const { RefCell::new(Vec::new()) };
}

/// Binds a vmap axis `name` of `size` examples until the guard is dropped.
pub(crate) fn bind_batch_axis(name: &str, size: usize) -> BatchAxisGuard {
    BATCH_AXES.with(|b| b.borrow_mut().push((name.to_string(), size)));
    BatchAxisGuard
}

/// Unbinds the innermost vmap axis when dropped.
pub(crate) struct BatchAxisGuard;

impl Drop for BatchAxisGuard {
    fn drop(&mut self) {
        BATCH_AXES.with(|b| b.borrow_mut().pop());
    }
}

/// The size of the vmap axis `name`, when one is bound (the innermost of that name).
pub(crate) fn batch_axis(name: &str) -> Option<usize> {
    BATCH_AXES.with(|b| {
        b.borrow()
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    })
}

/// Makes the axes `own` of `mesh` manual until the guard is dropped. Inside another
/// shard_map's body (a nested shard_map) the mesh must be the same and `own` must leave out
/// the axes already manual, as JAX requires; collectives may then name either's axes.
pub(crate) fn enter(mesh: &Mesh, own: AxisMask) -> Result<FrameGuard> {
    FRAMES.with(|f| {
        let mut f = f.borrow_mut();
        let outer = match f.last() {
            None => 0,
            Some(fr) if fr.mesh != *mesh => {
                return Err(Error::op(
                    "shard_map",
                    format!(
                        "a shard_map nested in another's body must use the same mesh (the \
                         enclosing one's axes: {}; this one's: {})",
                        fr.mesh.axis_list(),
                        mesh.axis_list()
                    ),
                ));
            }
            Some(fr) => fr.manual,
        };
        if let Some(&i) = axes_of(outer & own, mesh).first() {
            return Err(Error::op(
                "shard_map",
                format!(
                    "axis '{}' is already manual in the enclosing shard_map; a nested shard_map \
                     must use other axes (axis_names)",
                    mesh.axis_names()[i]
                ),
            ));
        }
        f.push(Frame {
            mesh: mesh.clone(),
            manual: outer | own,
            vma: HashMap::new(),
        });
        Ok(FrameGuard)
    })
}

/// Leaves the innermost frame when dropped (also when the body panics).
pub(crate) struct FrameGuard;

impl Drop for FrameGuard {
    fn drop(&mut self) {
        FRAMES.with(|f| f.borrow_mut().pop());
    }
}

fn active() -> bool {
    FRAMES.with(|f| !f.borrow().is_empty())
}

/// The mesh of the body being traced, or an error naming `op` and the axes it asked for.
/// An axis the mesh has but the body leaves automatic (a shard_map with `axis_names`) is an
/// error too: collectives run over manual axes only.
pub(crate) fn mesh_for(op: &str, axes: &[String]) -> Result<Mesh> {
    let (mesh, manual) = FRAMES.with(|f| {
        f.borrow()
            .last()
            .map(|fr| (fr.mesh.clone(), fr.manual))
            .ok_or_else(|| {
                Error::op(
                    op,
                    format!(
                        "unbound axis name{} {}: collectives run inside the body of a shard_map \
                         or pmap, whose mesh names the axes",
                        if axes.len() > 1 { "s" } else { "" },
                        quoted(axes)
                    ),
                )
            })
    })?;
    for a in axes {
        if let Ok(i) = mesh.axis_index(a)
            && manual & (1 << i) == 0
        {
            return Err(Error::op(
                op,
                format!(
                    "axis '{a}' is not manual here: the shard_map's axis_names leave it \
                     automatic (manual: {})",
                    quoted(
                        &axes_of(manual, &mesh)
                            .into_iter()
                            .map(|i| mesh.axis_names()[i].clone())
                            .collect::<Vec<_>>()
                    )
                ),
            ));
        }
    }
    Ok(mesh)
}

pub(crate) fn quoted(axes: &[String]) -> String {
    axes.iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The mask of `axes` on `mesh`; an error names unknown and repeated axes.
pub(crate) fn mask_of(op: &str, mesh: &Mesh, axes: &[String]) -> Result<AxisMask> {
    let mut mask = 0;
    for a in axes {
        let i = mesh.axis_index(a).map_err(|_| {
            Error::op(
                op,
                format!(
                    "axis '{a}' is not an axis of the shard_map's mesh (its axes: {})",
                    mesh.axis_list()
                ),
            )
        })?;
        if mask & (1 << i) != 0 {
            return Err(Error::op(op, format!("axis '{a}' is named twice")));
        }
        mask |= 1 << i;
    }
    Ok(mask)
}

/// The mesh axes of `mask`, in mesh order.
pub(crate) fn axes_of(mask: AxisMask, mesh: &Mesh) -> Vec<usize> {
    (0..mesh.axis_names().len())
        .filter(|i| mask & (1 << i) != 0)
        .collect()
}

/// The partition groups of a collective over `axes` (mesh positions, in the order given).
pub(crate) fn groups(mesh: &Mesh, axes: &[usize]) -> Vec<Vec<i64>> {
    mesh.groups(axes)
        .into_iter()
        .map(|g| g.into_iter().map(|d| d as i64).collect())
        .collect()
}

/// The axes a collective's `groups` span: those along which members of a group differ.
fn mask_of_groups(mesh: &Mesh, groups: &[Vec<i64>]) -> AxisMask {
    let mut mask = 0;
    for g in groups {
        let Some(&first) = g.first() else { continue };
        let c0 = mesh.coords(first as usize);
        for &d in &g[1..] {
            for (i, (a, b)) in mesh.coords(d as usize).iter().zip(&c0).enumerate() {
                if a != b {
                    mask |= 1 << i;
                }
            }
        }
    }
    mask
}

fn all_axes(mesh: &Mesh) -> AxisMask {
    (1u32 << mesh.axis_names().len()) - 1
}

/// What the results of an op of `kind` vary over, given its operands' masks: one rule per
/// kind of op that changes variance, the union for everything else.
fn propagate(mesh: &Mesh, kind: &OpKind, operands: &[AxisMask]) -> AxisMask {
    let union = operands.iter().fold(0, |m, o| m | o);
    match kind {
        OpKind::AllReduce { collective } => {
            union & !mask_of_groups(mesh, &collective.replica_groups)
        }
        OpKind::PartitionId | OpKind::ReplicaId => all_axes(mesh),
        k if pvary::is_pvary(k) => {
            let groups = pvary::pvary_groups(k)
                .map(|c| c.replica_groups)
                .unwrap_or_default();
            union | mask_of_groups(mesh, &groups)
        }
        _ => union,
    }
}

/// True for ops whose operands may differ in variance without a pvary: the collectives (each
/// operand its own), pvary itself, and ops whose operands are independent values carried
/// through (a loop's carries, a call's arguments, a barrier's values, a custom call's
/// operands) — making one of those varying because another is would sum its gradient over
/// devices that never differed.
fn mixes_freely(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::AllReduce { .. }
            | OpKind::AllGather { .. }
            | OpKind::ReduceScatter { .. }
            | OpKind::AllToAll { .. }
            | OpKind::CollectivePermute { .. }
            | OpKind::CollectiveBroadcast { .. }
            | OpKind::CollectiveReduce { .. }
            | OpKind::While
            | OpKind::If
            | OpKind::Case
            | OpKind::Call { .. }
            | OpKind::OptimizationBarrier
            | OpKind::Tuple
            | OpKind::CustomCall { .. }
    )
}

fn lookup(trace: u64, v: ValueId) -> AxisMask {
    FRAMES.with(|f| {
        f.borrow()
            .last()
            .and_then(|fr| fr.vma.get(&(trace, v)).copied())
            .unwrap_or(0)
    })
}

/// Records what `v` varies over. Axes of size 1 are left out: along them there is one device,
/// so nothing can differ (and a collective over them cannot be told from none).
fn record(trace: u64, v: ValueId, mask: AxisMask) {
    FRAMES.with(|f| {
        if let Some(fr) = f.borrow_mut().last_mut() {
            let sizes = fr.mesh.axis_sizes();
            let mask = (0..sizes.len())
                .filter(|&i| mask & (1 << i) != 0 && sizes[i] > 1)
                .fold(0, |m, i| m | (1 << i));
            if mask != 0 {
                fr.vma.insert((trace, v), mask);
            }
        }
    })
}

/// The axes `a` varies over (concrete arrays are invariant).
pub(crate) fn vma_of(a: &Array) -> AxisMask {
    match &a.inner.repr {
        Repr::Traced { trace, value } if active() => lookup(*trace, *value),
        _ => 0,
    }
}

/// Marks `v` of trace `trace` as varying over `mask` (a body's arguments).
pub(crate) fn set_vma(trace: u64, v: ValueId, mask: AxisMask) {
    record(trace, v, mask);
}

/// A parameter `v` of trace `trace` standing for `outer` (a nested trace's input or capture)
/// varies as `outer` does.
pub(crate) fn inherit(trace: u64, v: ValueId, outer: &Array) {
    if active() {
        record(trace, v, vma_of(outer));
    }
}

/// Before `kind` is staged into `t` on `operands`: when operands differ in variance, each
/// less varying one is replaced by a `pvary` of it to the union (the pvary ops are staged
/// first).
pub(crate) fn before_stage(t: &mut Trace, kind: &OpKind, operands: &mut [ValueId]) {
    if !active() || operands.len() < 2 || mixes_freely(kind) {
        return;
    }
    let masks: Vec<AxisMask> = operands.iter().map(|&v| lookup(t.id, v)).collect();
    let union = masks.iter().fold(0, |m, o| m | o);
    if masks.iter().all(|&m| m == union) {
        return;
    }
    let Some(mesh) = FRAMES.with(|f| f.borrow().last().map(|fr| fr.mesh.clone())) else {
        return;
    };
    for (v, &m) in operands.iter_mut().zip(&masks) {
        if m == union {
            continue;
        }
        let axes = axes_of(union & !m, &mesh);
        let kind = pvary::pvary_kind(&groups(&mesh, &axes), true);
        let ty = match t.func.value_type(*v) {
            Type::Tensor(ty) => Type::Tensor(ty.clone()),
            other => other.clone(),
        };
        let out = t.func.new_value(ty, None);
        t.ops.push(systolic_ir::Op::new(kind, vec![*v], vec![out]));
        record(t.id, out, union);
        *v = out;
    }
}

/// After an op of `kind` on `operands` made `results` in trace `trace`: records what they
/// vary over.
pub(crate) fn after_stage(trace: u64, kind: &OpKind, operands: &[ValueId], results: &[ValueId]) {
    if !active() {
        return;
    }
    let Some(mesh) = FRAMES.with(|f| f.borrow().last().map(|fr| fr.mesh.clone())) else {
        return;
    };
    let masks: Vec<AxisMask> = operands.iter().map(|&v| lookup(trace, v)).collect();
    // Values carried through one for one keep their own variance (a loop's carries: JAX
    // requires a carry's variance not to change over an iteration).
    if matches!(kind, OpKind::While | OpKind::OptimizationBarrier) && masks.len() == results.len() {
        for (&r, &m) in results.iter().zip(&masks) {
            record(trace, r, m);
        }
        return;
    }
    let mask = propagate(&mesh, kind, &masks);
    for &r in results {
        record(trace, r, mask);
    }
}

/// The loops' rule (JAX's carry variance): a carry the body makes vary over more axes than its
/// initial value must start that varying, so the loop is traced again from carries `pvary`ed
/// to what the body returned. `outs` are the body's carry outputs, in the carries' order.
/// `None` when every carry already varies as much as its output (or outside a shard_map).
pub(crate) fn promote_carries(carries: &[Array], outs: &[AxisMask]) -> Result<Option<Vec<Array>>> {
    if !active() || carries.len() != outs.len() {
        return Ok(None);
    }
    let Some(mesh) = FRAMES.with(|f| f.borrow().last().map(|fr| fr.mesh.clone())) else {
        return Ok(None);
    };
    let mut changed = false;
    let mut promoted = Vec::with_capacity(carries.len());
    for (c, &out) in carries.iter().zip(outs) {
        let have = vma_of(c);
        if out & !have == 0 {
            promoted.push(c.clone());
            continue;
        }
        changed = true;
        let axes = axes_of(out & !have, &mesh);
        let kind = pvary::pvary_kind(&groups(&mesh, &axes), true);
        let mut r = crate::core::bind::bind(
            "pvary",
            kind,
            &[c],
            vec![],
            Some(vec![c.aval().clone()]),
            c.weak_type(),
        )?;
        promoted.push(r.pop().ok_or_else(|| Error::op("pvary", "no result"))?);
    }
    Ok(changed.then_some(promoted))
}
