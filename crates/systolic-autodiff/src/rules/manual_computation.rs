//! `sdy.manual_computation` (JAX's `shard_map`), both modes. Like control flow, its rules run
//! the rules of the ops in its region, and the results are manual computations again, so the
//! differentiated program still runs as one per-device body on each device of the mesh.
//!
//! - Forward mode ([`jvp`]): a manual computation over the primal operands and the tangents of
//!   the active ones, whose body is the JVP of the body. A tangent enters with its primal's
//!   in-sharding and leaves with its primal result's out-sharding (a tangent varies over the
//!   devices exactly as its primal does).
//! - Reverse mode ([`backward`]): while linearizing, the manual computation is kept as it is in
//!   the forward sweep and stands in the linear program as control flow's placeholder
//!   (`rules/control/reverse.rs`); at transposition its backward rule emits a second manual
//!   computation over the primal operands (with their in-shardings) and the results'
//!   cotangents (with the results' out-shardings) whose body is the reverse mode of the body:
//!   it recomputes the body's forward values and transposes its linear part, returning each
//!   active operand's cotangent piece with that operand's in-sharding.
//!
//! Why recompute rather than pass residuals: a residual is a per-device value, and crossing
//! the manual computation's boundary it needs a global type (each device's piece stacked
//! along a new leading dimension sharded over every manual axis, `[N, …]`). `N`, the product of
//! the manual axes' sizes, is a property of the module's `sdy.mesh`, which these
//! transformations (on a `Func`, without its module) do not see; the operands' shapes do not
//! determine it either (an axis may only appear in the body's collectives). Recomputing is
//! what the backward rule of `if`/`case` does too (and `jax.checkpoint` of a shard_map body):
//! one more forward pass of the body, collectives included, and no memory held between the
//! two manual computations beyond the operands themselves.
//!
//! Cotangents follow JAX's `check_vma` convention: the cotangent of a result whose
//! out-sharding leaves out an axis (a value the same on every device along it) is given to
//! every device along it as it is, and the body's own rules for `psum` (identity) and `pvary`
//! (`psum`) make the operands' cotangents right; the boundary inserts no collective.

use crate::ad::{carries_tangent, Ad};
use crate::builder::{AdBuilder, Res};
use crate::rules::control::forward::jvp_block;
use crate::rules::control::reverse::{in_region, result_cts, Custom};
use crate::vjp::vjp_block_recomputing;
use crate::Error;
use systolic_ir::{
    Block, Func, ManualComputationAttrs, Op, OpKind, Region, ReturnKind, Type, ValueId,
};

/// The attributes and the body of a manual computation of the source function.
fn parts(op: &Op) -> Res<(&ManualComputationAttrs, &Block)> {
    let OpKind::ManualComputation(attrs) = &op.kind else {
        return Err(Error::new(format!(
            "internal: {} reached the manual_computation rules",
            op.kind.name()
        )));
    };
    let body = op
        .regions
        .first()
        .and_then(Region::entry)
        .ok_or_else(|| Error::new("sdy.manual_computation has no body"))?;
    if body.args.len() != op.operands.len()
        || attrs.in_shardings.len() != op.operands.len()
        || attrs.out_shardings.len() != op.results.len()
    {
        return Err(Error::new(format!(
            "sdy.manual_computation has {} operands, {} body arguments, {} in_shardings, {} \
             results and {} out_shardings",
            op.operands.len(),
            body.args.len(),
            attrs.in_shardings.len(),
            op.results.len(),
            attrs.out_shardings.len()
        )));
    }
    Ok((attrs, body))
}

/// Positions of the float results of `op` (those that carry tangents).
fn float_results(src: &Func, op: &Op) -> Vec<usize> {
    op.results
        .iter()
        .enumerate()
        .filter(|(_, &r)| carries_tangent(src.value_type(r)))
        .map(|(i, _)| i)
        .collect()
}

/// Forward mode: see the module docs.
pub(crate) fn jvp(ad: &mut Ad, op: &Op) -> Res<()> {
    let (attrs, body) = parts(op)?;
    let active: Vec<usize> = (0..op.operands.len())
        .filter(|&i| ad.tangent.contains_key(&op.operands[i]))
        .collect();
    let float_pos = float_results(ad.src, op);
    let mut operands = op
        .operands
        .iter()
        .map(|&v| ad.p(v))
        .collect::<Res<Vec<_>>>()?;
    for &i in &active {
        operands.push(ad.tangent[&op.operands[i]]);
    }
    let mut args = vec![];
    for &a in &body.args {
        let v = ad.b.param(ad.src.value_type(a).clone());
        ad.primal.insert(a, v);
        args.push(v);
    }
    for &i in &active {
        let a = body.args[i];
        let v = ad.b.param(ad.src.value_type(a).clone());
        ad.tangent.insert(a, v);
        args.push(v);
    }
    let mut ops = jvp_block(ad, body, &float_pos, true)?;
    if let Some(ret) = ops.last_mut() {
        ret.kind = OpKind::Return(ReturnKind::Sdy);
    }
    let mut in_shardings = attrs.in_shardings.clone();
    in_shardings.extend(active.iter().map(|&i| attrs.in_shardings[i].clone()));
    let mut out_shardings = attrs.out_shardings.clone();
    out_shardings.extend(float_pos.iter().map(|&i| attrs.out_shardings[i].clone()));
    let mut declared: Vec<Type> = op
        .results
        .iter()
        .map(|&r| ad.src.value_type(r).clone())
        .collect();
    declared.extend(
        float_pos
            .iter()
            .map(|&i| ad.src.value_type(op.results[i]).clone()),
    );
    let kind = OpKind::ManualComputation(Box::new(ManualComputationAttrs {
        in_shardings,
        out_shardings,
        manual_axes: attrs.manual_axes.clone(),
    }));
    let outs = ad.b.emit_full(
        kind,
        operands,
        vec![Region::single(Block { args, ops })],
        Some(declared),
    )?;
    let n = op.results.len();
    for (i, &r) in op.results.iter().enumerate() {
        ad.primal.insert(r, outs[i]);
    }
    for (k, &i) in float_pos.iter().enumerate() {
        ad.tangent.insert(op.results[i], outs[n + k]);
    }
    Ok(())
}

/// Reverse mode's backward rule for the placeholder `c` of a manual computation: the
/// cotangents of its active operands (`c.inputs`, in order). See the module docs.
pub(crate) fn backward(
    ad: &mut Ad,
    c: &Custom,
    cts_out: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    let op = &c.op;
    let (attrs, body) = parts(op)?;
    let active = c
        .in_pos
        .iter()
        .map(|p| p.ok_or_else(|| Error::new("internal: a manual computation captured a value")))
        .collect::<Res<Vec<usize>>>()?;
    let ret = body
        .ops
        .last()
        .filter(|o| o.kind.is_terminator())
        .ok_or_else(|| Error::new("sdy.manual_computation's body has no sdy.return"))?;
    let (pos, cts) = result_cts(ad, op, cts_out)?;
    let mut operands = op
        .operands
        .iter()
        .map(|&v| ad.p(v))
        .collect::<Res<Vec<_>>>()?;
    operands.extend(cts.iter().copied());
    // The body's arguments: the operands' pieces (its forward values are recomputed from
    // them), then the cotangents' pieces.
    let mut args = vec![];
    for &a in &body.args {
        let v = ad.b.param(ad.src.value_type(a).clone());
        ad.primal.insert(a, v);
        args.push(v);
    }
    let mut ct_args = vec![];
    for &i in &pos {
        let v = ad.b.param(ad.src.value_type(ret.operands[i]).clone());
        ct_args.push(Some(v));
        args.push(v);
    }
    let seeds: Vec<ValueId> = active.iter().map(|&j| body.args[j]).collect();
    let outs: Vec<ValueId> = pos.iter().map(|&i| ret.operands[i]).collect();
    let (mut ops, rets) = in_region(ad, |ad| {
        let res = vjp_block_recomputing(ad, &body.ops, &seeds, &outs, &ct_args)?;
        let mut rets = vec![];
        for (k, r) in res.into_iter().enumerate() {
            rets.push(match r {
                Some(v) => v,
                None => {
                    let ty = ad.b.tt(ad.p(seeds[k])?);
                    ad.b.zeros(&ty)?
                }
            });
        }
        Ok(rets)
    })?;
    ops.push(Op::new(OpKind::Return(ReturnKind::Sdy), rets, vec![]));
    let mut in_shardings = attrs.in_shardings.clone();
    in_shardings.extend(pos.iter().map(|&i| attrs.out_shardings[i].clone()));
    let out_shardings = active
        .iter()
        .map(|&j| attrs.in_shardings[j].clone())
        .collect();
    let declared = active
        .iter()
        .map(|&j| ad.src.value_type(op.operands[j]).clone())
        .collect();
    let kind = OpKind::ManualComputation(Box::new(ManualComputationAttrs {
        in_shardings,
        out_shardings,
        manual_axes: attrs.manual_axes.clone(),
    }));
    let results = ad.b.emit_full(
        kind,
        operands,
        vec![Region::single(Block { args, ops })],
        Some(declared),
    )?;
    Ok(results.into_iter().map(Some).collect())
}
