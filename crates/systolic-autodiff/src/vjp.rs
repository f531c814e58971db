//! Reverse mode: linearize (the JVP driver with fresh tangent seeds), split the emitted ops
//! into the forward sweep (primal) and the linear ops (those reading a tangent), then walk the
//! linear ops backwards applying transpose rules, summing cotangents of values used several
//! times. Rematerialised groups are recomputed here; control flow has its own backward rules,
//! with its forward ones, in `rules/control/`.

use crate::ad::{assemble, captured, carries_tangent, Ad, Mode};
use crate::builder::{AdBuilder, Res};
use crate::rules;
use crate::rules::control::reverse::{custom_backward, custom_index};
use crate::Error;
use std::collections::{HashMap, HashSet};
use systolic_ir::walk::{clone_op_from_arena, ValueMap};
use systolic_ir::{Func, Op, OpKind, Type, ValueId};

/// [`vjp_block`] for a backward rule that recomputes the forward values of `ops` (a branch,
/// a loop body, a manual computation's body) inside its backward program: the recomputation
/// leaves out host callbacks (`debug::print`), which the forward program already ran.
pub(crate) fn vjp_block_recomputing(
    ad: &mut Ad,
    ops: &[Op],
    seeds: &[ValueId],
    outs: &[ValueId],
    cts: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    let saved = std::mem::replace(&mut ad.recomputing, true);
    let result = vjp_block(ad, ops, seeds, outs, cts);
    ad.recomputing = saved;
    result
}

/// Reverse mode over a list of source ops: returns the cotangents of `seeds` given the
/// cotangents `cts` of `outs`. The forward sweep and the backward sweep are emitted into
/// `ad.b.ops`.
pub(crate) fn vjp_block(
    ad: &mut Ad,
    ops: &[Op],
    seeds: &[ValueId],
    outs: &[ValueId],
    cts: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    let saved_tangent = std::mem::take(&mut ad.tangent);
    let saved_mode = ad.mode;
    ad.mode = Mode::Linearize;
    let result = vjp_block_inner(ad, ops, seeds, outs, cts);
    ad.tangent = saved_tangent;
    ad.mode = saved_mode;
    result
}

fn vjp_block_inner(
    ad: &mut Ad,
    ops: &[Op],
    seeds: &[ValueId],
    outs: &[ValueId],
    cts: &[Option<ValueId>],
) -> Res<Vec<Option<ValueId>>> {
    let mut lin_seeds = vec![];
    for &s in seeds {
        let ty = ad.b.func.value_type(ad.p(s)?).clone();
        let v = ad.b.param(ty);
        ad.tangent.insert(s, v);
        lin_seeds.push(v);
    }
    let start = ad.b.ops.len();
    let top = ad.top_level;
    if top {
        ad.remat_tags.clear();
        ad.remat_tags.resize(start, None);
    }
    ad.run_ops(ops)?;
    let emitted = ad.b.ops.split_off(start);
    let tags: Vec<Option<i64>> = if top {
        let mut t = ad.remat_tags.split_off(start.min(ad.remat_tags.len()));
        t.resize(emitted.len(), None);
        t
    } else {
        vec![None; emitted.len()]
    };
    // Split into the forward sweep and the linear program.
    let mut linear: HashSet<ValueId> = lin_seeds.iter().copied().collect();
    let mut fwd: Vec<(Op, Option<i64>)> = vec![];
    let mut lin_ops: Vec<(Op, Option<i64>)> = vec![];
    for (op, tag) in emitted.into_iter().zip(tags) {
        if custom_index(&op).is_some() || op.operands.iter().any(|v| linear.contains(v)) {
            linear.extend(op.results.iter().copied());
            lin_ops.push((op, tag));
        } else {
            fwd.push((op, tag));
        }
    }
    if ad.recomputing {
        drop_host_callbacks(&mut fwd);
    }
    ad.b.ops.extend(fwd.iter().map(|(o, _)| o.clone()));
    // Seed the output cotangents.
    let mut ct: HashMap<ValueId, ValueId> = HashMap::new();
    for (o, c) in outs.iter().zip(cts) {
        if let (Some(&tv), Some(c)) = (ad.tangent.get(o), c) {
            if linear.contains(&tv) {
                accumulate(ad, &mut ct, tv, *c)?;
            }
        }
    }
    // Backward sweep.
    let mut remat: HashMap<i64, HashMap<ValueId, ValueId>> = HashMap::new();
    for (op, tag) in lin_ops.iter().rev() {
        let cts_out: Vec<Option<ValueId>> = op.results.iter().map(|r| ct.remove(r)).collect();
        if cts_out.iter().all(Option::is_none) {
            continue;
        }
        let cts_in = if let Some(k) = custom_index(op) {
            custom_backward(ad, k, &cts_out)?
        } else {
            let mut op = op.clone();
            if let Some(g) = tag {
                if !remat.contains_key(g) {
                    let subst = recompute_group(ad, &fwd, *g)?;
                    remat.insert(*g, subst);
                }
                let subst = &remat[g];
                for v in &mut op.operands {
                    if let Some(n) = subst.get(v) {
                        *v = *n;
                    }
                }
            }
            let lin: Vec<bool> = op.operands.iter().map(|v| linear.contains(v)).collect();
            rules::transpose(&mut ad.b, &op, &cts_out, &lin)?
        };
        for (i, c) in cts_in.into_iter().enumerate() {
            if let Some(c) = c {
                let v = op.operands[i];
                if linear.contains(&v) {
                    accumulate(ad, &mut ct, v, c)?;
                }
            }
        }
    }
    Ok(lin_seeds.iter().map(|v| ct.remove(v)).collect())
}

fn accumulate(ad: &mut Ad, ct: &mut HashMap<ValueId, ValueId>, v: ValueId, c: ValueId) -> Res<()> {
    let want = ad.b.tt(v);
    let mut c = c;
    if ad.b.tt(c) != want {
        if ad.b.shape(c) == want.shape {
            c = ad.b.convert(c, want.dtype)?;
        } else {
            return Err(Error::new(format!(
                "internal: cotangent of type {} for a value of type {want}",
                ad.b.tt(c)
            )));
        }
    }
    let new = match ct.get(&v) {
        Some(&old) => ad.b.add(old, c)?,
        None => c,
    };
    ct.insert(v, new);
    Ok(())
}

/// Emits the recomputation of remat group `g`'s forward ops from their inputs, passed
/// through an `optimization_barrier`; returns forward value → recomputed value.
fn recompute_group(
    ad: &mut Ad,
    fwd: &[(Op, Option<i64>)],
    g: i64,
) -> Res<HashMap<ValueId, ValueId>> {
    let group: Vec<&Op> = fwd
        .iter()
        .filter(|(_, t)| *t == Some(g))
        .map(|(o, _)| o)
        .collect();
    let mut defined: HashSet<ValueId> = HashSet::new();
    let mut inputs: Vec<ValueId> = vec![];
    for op in &group {
        let mut uses: Vec<ValueId> = op.operands.clone();
        uses.extend(captured(op));
        for v in uses {
            if !defined.contains(&v) && !inputs.contains(&v) {
                inputs.push(v);
            }
        }
        defined.extend(op.results.iter().copied());
    }
    let mut subst: HashMap<ValueId, ValueId> = HashMap::new();
    let mut map = ValueMap::new();
    let tensor_inputs: Vec<ValueId> = inputs
        .iter()
        .copied()
        .filter(|&v| matches!(ad.b.func.value_type(v), Type::Tensor(_)))
        .collect();
    if !tensor_inputs.is_empty() {
        let outs = ad.b.emit_full(
            OpKind::OptimizationBarrier,
            tensor_inputs.clone(),
            vec![],
            None,
        )?;
        for (v, o) in tensor_inputs.iter().zip(outs) {
            subst.insert(*v, o);
        }
    }
    for &v in &inputs {
        map.insert(v, subst.get(&v).copied().unwrap_or(v));
    }
    let arena = ad.b.func.values.clone();
    for op in group {
        let c = clone_op_from_arena(&arena, op, &mut ad.b.func, &mut map)
            .map_err(|e| Error::new(format!("internal: remat: {}", e.message)))?;
        for (r, n) in op.results.iter().zip(&c.results) {
            subst.insert(*r, *n);
        }
        ad.b.ops.push(c);
    }
    Ok(subst)
}

/// Reverse mode over a whole function.
pub(crate) fn vjp_func(src: &Func, wrt: &[usize]) -> Res<Func> {
    let body = src
        .body
        .entry()
        .ok_or_else(|| Error::new(format!("@{} has no body", src.name)))?;
    for &i in wrt {
        if i >= body.args.len() {
            return Err(Error::new(format!(
                "wrt position {i} is out of range: @{} has {} parameters",
                src.name,
                body.args.len()
            )));
        }
    }
    let ret = body
        .ops
        .last()
        .filter(|o| o.kind.is_terminator())
        .ok_or_else(|| Error::new("the function has no return"))?;
    let mut ad = Ad::new(src, Mode::Linearize);
    let mut params = vec![];
    for &p in &body.args {
        let v = ad.b.param(src.value_type(p).clone());
        ad.primal.insert(p, v);
        params.push(v);
    }
    let mut cts = vec![];
    for &o in &ret.operands {
        let ty = src.value_type(o).clone();
        let v = ad.b.param(ty.clone());
        params.push(v);
        cts.push(if carries_tangent(&ty) { Some(v) } else { None });
    }
    let seeds: Vec<ValueId> = wrt
        .iter()
        .map(|&i| body.args[i])
        .filter(|&a| carries_tangent(src.value_type(a)))
        .collect();
    let res = vjp_block(&mut ad, &body.ops, &seeds, &ret.operands, &cts)?;
    let mut returns = vec![];
    for &o in &ret.operands {
        returns.push(ad.p(o)?);
    }
    for &i in wrt {
        let a = body.args[i];
        let got = seeds.iter().position(|&s| s == a).and_then(|k| res[k]);
        returns.push(match got {
            Some(v) => v,
            None => {
                let ty = ad.b.tt(ad.p(a)?);
                ad.b.zeros(&ty)?
            }
        });
    }
    assemble(src, ad.b, params, returns)
}

/// Removes host callbacks (they have no results) from `ops` and their regions.
fn drop_host_callbacks(ops: &mut Vec<(Op, Option<i64>)>) {
    let is_callback = |op: &Op| systolic_ir::host_callback::is_host_callback(&op.kind);
    ops.retain(|(op, _)| !is_callback(op));
    for (op, _) in ops.iter_mut() {
        for r in &mut op.regions {
            systolic_ir::walk::erase_ops(r, &mut |o| is_callback(o));
        }
    }
}
