//! Functions with a custom differentiation rule (JAX's `custom_jvp`/`custom_vjp`, staged by the
//! front end as primal ops between two `optimization_barrier`s tagged with the id of a rule
//! registered in `systolic_autodiff`).
//!
//! The barriers and the primal ops between them are batched as any others, but the rule is IR
//! held outside the function, traced for per-example types, so it is batched too: this
//! function's batching of the opening barrier's operands decides the rule's `in_axes`, the
//! rule's functions go through [`vmap_named`](crate::vmap_named), and the batched rule is
//! registered under a new id that tags the batched barriers. `grad(vmap(f))` then applies the
//! rule, as JAX's batched `custom_jvp_call`/`custom_vjp_call` do.
//!
//! So that the rule's results line up with the batched function's, every value crossing the
//! barriers has its batch dimension at 0: the function's arguments and outputs are batched
//! (broadcast when they do not depend on the batch: their tangents and cotangents then have the
//! batched shape, and the broadcast's own transpose sums a cotangent over the examples); the
//! arrays the primal and the rules read from outside stay unbatched when they are (they get no
//! derivative, and broadcasting a captured weight matrix per example would cost memory).

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_autodiff::custom_rule_tag as tag;
use systolic_autodiff::{CustomRule, CUSTOM_RULE_ATTR, CUSTOM_RULE_END_ATTR};
use systolic_ir::{Attribute, Func, NamedAttr, Op, OpKind};

/// True for a closing barrier whose opening barrier was batched (and so must be batched too,
/// retagged, even when none of its operands depends on the batch).
pub(crate) fn closes_batched(cx: &Cx, op: &Op) -> bool {
    tag(op, CUSTOM_RULE_END_ATTR).is_some_and(|id| cx.custom_rules.contains_key(&id))
}

/// Batches a barrier that opens or closes a function with a custom rule; `None` for any
/// other barrier.
pub(crate) fn barrier(cx: &mut Cx, op: &Op, args: &[BVal]) -> Option<Result<Vec<BVal>>> {
    if let Some(id) = tag(op, CUSTOM_RULE_ATTR) {
        return Some(open(cx, op, args, id));
    }
    tag(op, CUSTOM_RULE_END_ATTR).map(|id| close(cx, op, args, id))
}

fn open(cx: &mut Cx, op: &Op, args: &[BVal], id: i64) -> Result<Vec<BVal>> {
    let rule = systolic_autodiff::custom_rule(id)
        .ok_or_else(|| cx.err(format!("custom rule {id} is not registered")))?;
    let nargs = rule.nargs();
    if nargs > args.len() {
        return Err(cx.err(format!(
            "custom rule {id} takes {nargs} arguments but its barrier has {} operands",
            args.len()
        )));
    }
    let mut values = vec![];
    for (i, &a) in args.iter().enumerate() {
        values.push(if i < nargs || a.batched() {
            BVal::at(cx.materialize(a, 0)?, 0)
        } else {
            a
        });
    }
    let axes: Vec<Option<usize>> = values.iter().map(|b| b.bdim).collect();
    let batched = batch_rule(cx, &rule, &axes)?;
    let new_id = systolic_autodiff::register_custom_rule(batched);
    cx.custom_rules.insert(id, new_id);
    emit_tagged(cx, op, values, CUSTOM_RULE_ATTR, new_id)
}

fn close(cx: &mut Cx, op: &Op, args: &[BVal], id: i64) -> Result<Vec<BVal>> {
    let new_id = cx.custom_rules.get(&id).copied().ok_or_else(|| {
        cx.err(format!(
            "the outputs of the function with custom rule {id} depend on the batch but its \
             inputs do not (a collective over the vmap axis inside it?); its rule cannot be \
             batched"
        ))
    })?;
    let values = args
        .iter()
        .map(|&a| Ok(BVal::at(cx.materialize(a, 0)?, 0)))
        .collect::<Result<Vec<_>>>()?;
    emit_tagged(cx, op, values, CUSTOM_RULE_END_ATTR, new_id)
}

/// The barrier on `values` (its results batched as its operands), with `op`'s attributes and
/// `attr` set to `id`.
fn emit_tagged(cx: &mut Cx, op: &Op, values: Vec<BVal>, attr: &str, id: i64) -> Result<Vec<BVal>> {
    let ids = values.iter().map(|b| b.v).collect();
    let rs = cx.emit_full(OpKind::OptimizationBarrier, ids, vec![], None)?;
    let emitted = cx
        .ops
        .last_mut()
        .ok_or_else(|| crate::VmapError::new("stablehlo.optimization_barrier", "not emitted"))?;
    emitted.attrs = op
        .attrs
        .iter()
        .filter(|a| a.name != attr)
        .cloned()
        .chain([NamedAttr::new(attr, Attribute::Int(id, None))])
        .collect();
    Ok(rs
        .into_iter()
        .zip(values)
        .map(|(v, b)| BVal { v, bdim: b.bdim })
        .collect())
}

/// The rule batched for a barrier whose operands have batch dimensions `axes` (0 or none; the
/// function's arguments always 0); every result of the batched rule is batched at 0.
fn batch_rule(cx: &Cx, rule: &CustomRule, axes: &[Option<usize>]) -> Result<CustomRule> {
    let size = cx.size as usize;
    let name = cx.axis_name.clone();
    let batch = |f: &Func, in_axes: Vec<Option<usize>>| -> Result<Box<Func>> {
        if in_axes.len() != f.params().len() {
            return Err(cx.err(format!(
                "custom rule: @{} takes {} values but the barrier gives it {}",
                f.name,
                f.params().len(),
                in_axes.len()
            )));
        }
        crate::vmap_named(f, &in_axes, size, &[Some(0)], name.as_deref()).map(Box::new)
    };
    let nargs = rule.nargs();
    let captures = &axes[rule.first_rule_capture().min(axes.len())..];
    Ok(match rule {
        CustomRule::Jvp {
            nargs,
            primal_captures,
            jvp,
        } => {
            // jvp(primals, tangents, captures): a tangent is batched as its primal.
            let mut in_axes = vec![Some(0); 2 * nargs];
            in_axes.extend_from_slice(captures);
            CustomRule::Jvp {
                nargs: *nargs,
                primal_captures: *primal_captures,
                jvp: batch(jvp, in_axes)?,
            }
        }
        CustomRule::Vjp {
            nargs: _,
            primal_captures,
            fwd_captures,
            nout,
            fwd,
            bwd,
        } => {
            let fwd_captures_n = (*fwd_captures).min(captures.len());
            // fwd(primals, fwd captures) -> (outputs, residuals), all batched at 0.
            let mut fwd_axes = vec![Some(0); nargs];
            fwd_axes.extend_from_slice(&captures[..fwd_captures_n]);
            // bwd(residuals, output cotangents, bwd captures) -> argument cotangents.
            let k = fwd.result_types.len().saturating_sub(*nout);
            let mut bwd_axes = vec![Some(0); k + nout];
            bwd_axes.extend_from_slice(&captures[fwd_captures_n..]);
            CustomRule::Vjp {
                nargs,
                primal_captures: *primal_captures,
                fwd_captures: *fwd_captures,
                nout: *nout,
                fwd: batch(fwd, fwd_axes)?,
                bwd: batch(bwd, bwd_axes)?,
            }
        }
    })
}
