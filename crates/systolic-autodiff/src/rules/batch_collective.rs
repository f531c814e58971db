//! Collectives over a named vmap axis (`systolic_ir::batch_collective` markers: `lax::psum(x,
//! "b")` inside `vmap(f).axis_name("b")`), differentiated before `vmap` lowers them — JAX's
//! `vmap(grad(f), axis_name="b")`.
//!
//! A vmap axis has no `check_vma` variance: every value may differ between examples, and the
//! cotangent of a marker's result is itself per-example. JAX's rules for that case are the
//! plain linear-algebra transposes, which are what JAX 0.10.2 computes (checked in its venv,
//! `scripts/vmap_collective_goldens.py`):
//!
//! - `psum`: tangent the psum of the tangents; transpose `psum` (each example's cotangent is
//!   the sum of all examples' — so `vmap(grad(f))` of `sum(psum(x) * g(x))` is the gradient of
//!   the batch total, the same as `grad` of the vmapped function summed). `pmean` is a psum
//!   divided by the batch size in the front end.
//! - `all_gather` ↔ `psum_scatter` at the same axis (the markers are JAX's untiled primitives;
//!   the front end reshapes around them for `tiled`).
//! - `ppermute` ↔ `ppermute` by the inverse pairs (an example no pair targets got zeros, so an
//!   example that sent nothing gets a zero cotangent).
//! - `all_to_all` ↔ `all_to_all` with the split and concat axes swapped.
//! - `axis_index` carries no tangent (an integer).
//! - `pmax`/`pmin`: no rule, as JAX ("Differentiation rule for 'pmax' not implemented", in
//!   either order of vmap and grad). Here `grad` of an already vmapped function differentiates
//!   the batch reduction `vmap` lowered the marker to (ties split, as `jnp.max`), since the
//!   marker is gone by then.
//!
//! Each rule emits one marker over the same axis name; `vmap` lowers it with the rest.

use crate::builder::{Builder, Res};
use crate::Error;
use systolic_ir::batch_collective::{kind, Collective, Marker};
use systolic_ir::{Op, Type, ValueId};

/// The marker of `op`, which the router checked.
fn marker(op: &Op) -> Res<Marker> {
    systolic_ir::batch_collective::read(&op.kind).ok_or_else(|| {
        Error::new(format!(
            "internal: {} is not a batch_collective marker",
            op.kind.name()
        ))
    })
}

/// Tangent of a marker's result: the same collective of the operand's tangent.
pub(crate) fn jvp(
    b: &mut Builder,
    op: &Op,
    t: &[Option<ValueId>],
    y: &[ValueId],
) -> Res<Vec<Option<ValueId>>> {
    let m = marker(op)?;
    match m.collective {
        Collective::AxisIndex => return Ok(vec![None; y.len()]),
        Collective::Max | Collective::Min => {
            return Err(Error::new(format!(
                "cannot differentiate {} over vmap axis '{}': like JAX's, it has no \
                 differentiation rule",
                m.collective.name(),
                m.axis_name
            )))
        }
        Collective::Sum
        | Collective::AllGather(_)
        | Collective::ReduceScatter(_)
        | Collective::Permute(_)
        | Collective::AllToAll { .. } => {}
    }
    let Some(ti) = t.first().copied().flatten() else {
        return Ok(vec![None; y.len()]);
    };
    let ty = b.func.value_type(y[0]).clone();
    Ok(vec![Some(
        b.emit_full(op.kind.clone(), vec![ti], vec![], Some(vec![ty]))?[0],
    )])
}

/// Cotangent of the operand of a marker [`jvp`] emitted, as one marker over the same axis.
pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let m = marker(op)?;
    if !lin.first().copied().unwrap_or(false) || op.results.len() != 1 {
        return Err(super::unsupported(op, "transpose"));
    }
    let collective = match m.collective {
        Collective::Sum => Collective::Sum,
        Collective::AllGather(a) => Collective::ReduceScatter(a),
        Collective::ReduceScatter(a) => Collective::AllGather(a),
        Collective::Permute(pairs) => {
            Collective::Permute(pairs.iter().map(|&(s, t)| (t, s)).collect())
        }
        Collective::AllToAll { split, concat } => Collective::AllToAll {
            split: concat,
            concat: split,
        },
        // Never emitted on tangents by `jvp`.
        Collective::Max | Collective::Min | Collective::AxisIndex => {
            return Err(super::unsupported(op, "transpose"))
        }
    };
    let ty: Type = b.func.value_type(op.operands[0]).clone();
    let k = kind(&Marker {
        collective,
        axis_name: m.axis_name,
    });
    Ok(vec![Some(
        b.emit_full(k, vec![c], vec![], Some(vec![ty]))?[0],
    )])
}
