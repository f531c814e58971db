//! `sdy.manual_computation` inside an automatically partitioned program: JAX's `shard_map`
//! with `axis_names` a subset of the mesh (partly manual), or any shard_map under `jit` with
//! shardings around it.
//!
//! The body is written for pieces along its manual axes and for whole arrays along the
//! others (the free axes); its collectives already name global device ids (JAX writes the
//! replica groups over the whole mesh). The partitioner runs it as written on every device:
//! each operand is converted to its `in_sharding` restricted to the manual axes (whole along
//! the free ones), the body's ops are copied in with those pieces bound to its arguments, and
//! each result, held as its `out_sharding` restricted to the manual axes, is converted to the
//! sharding the plan holds it in. Along the free axes the body is thus computed whole on every
//! device of a free-axis group (the same values, so its manual-axis collectives meet pieces
//! that agree), where Shardy would partition the body over them too: correct, and the cost of
//! a body's free-axis work is the replication — partitioning inside the body is a later step.
//!
//! Sharding constraints inside the body (JAX writes open ones, even inside a reducer) only
//! guide propagation, which does not enter the body: they are dropped.

use super::{located, Local, Partitioner};
use std::collections::HashMap;
use systolic_ir::walk::{clone_op, erase_ops, replace_uses, walk_ops, ValueMap};
use systolic_ir::{AxisRef, DimSharding, ManualComputationAttrs, Op, OpKind, Region, SdySharding};

impl<'a> Partitioner<'a> {
    /// A manual computation; see the module docs.
    pub(super) fn manual_op(
        &mut self,
        op: &'a Op,
        attrs: &ManualComputationAttrs,
    ) -> Result<(), String> {
        let body = op
            .regions
            .first()
            .and_then(|r| r.blocks.first())
            .ok_or_else(|| located(op, "sdy.manual_computation has no body"))?;
        let mut nested = false;
        for inner in &body.ops {
            for r in &inner.regions {
                walk_ops(r, &mut |o, _| {
                    nested |= matches!(o.kind, OpKind::ManualComputation(_))
                });
            }
            nested |= matches!(inner.kind, OpKind::ManualComputation(_));
        }
        if nested {
            return Err(located(
                op,
                "a manual computation inside a manual computation is not supported",
            ));
        }
        let mut map = ValueMap::new();
        for (i, (&x, s)) in op.operands.iter().zip(&attrs.in_shardings).enumerate() {
            let what = located(op, &format!("operand {i}"));
            let global = self.global_type(x, &what)?;
            let target = self.held_of(Some(&manual_part(s, attrs, &what)?), &global, &what)?;
            let piece = self.convert(x, &target)?;
            let arg = body
                .args
                .get(i)
                .ok_or_else(|| located(op, &format!("the body has no argument {i}")))?;
            map.insert(*arg, piece);
        }
        let Some((ret, ops)) = body.ops.split_last() else {
            return Err(located(op, "sdy.manual_computation has an empty body"));
        };
        for inner in ops {
            if let OpKind::ShardingConstraint(_) = inner.kind {
                let x = map.get(inner.operands[0]).unwrap_or(inner.operands[0]);
                map.insert(inner.results[0], x);
                continue;
            }
            let mut new = clone_op(self.src, inner, &mut self.dst, &mut map)
                .map_err(|e| located(inner, &e.message))?;
            for region in &mut new.regions {
                drop_constraints(region);
            }
            self.ops.push(new);
        }
        for (j, ((&r, &y), s)) in op
            .results
            .iter()
            .zip(&ret.operands)
            .zip(&attrs.out_shardings)
            .enumerate()
        {
            let what = located(op, &format!("result {j}"));
            let global = self.global_type(r, &what)?;
            let held = self.held_of(Some(&manual_part(s, attrs, &what)?), &global, &what)?;
            let value = map
                .get(y)
                .ok_or_else(|| format!("internal: {what}: the body returns an unknown value"))?;
            let target = self.planned(r, &global)?;
            let v = self.convert_local(&Local { value, held }, &target, &global)?;
            self.locals.insert(
                r,
                Local {
                    value: v,
                    held: target,
                },
            );
        }
        Ok(())
    }
}

/// `s` with only the manual axes: how the body's pieces make the global value when the free
/// axes are whole. Shardy puts a dimension's manual axes before its free ones; a free axis
/// more major than a manual one in the same dimension has no such reading.
fn manual_part(
    s: &SdySharding,
    attrs: &ManualComputationAttrs,
    what: &str,
) -> Result<SdySharding, String> {
    let manual = |a: &AxisRef| attrs.manual_axes.contains(&a.name);
    let mut dims = vec![];
    for (d, dim) in s.dims.iter().enumerate() {
        let kept: Vec<AxisRef> = dim.axes.iter().filter(|a| manual(a)).cloned().collect();
        if dim.axes[..kept.len()].iter().any(|a| !manual(a)) {
            return Err(format!(
                "{what}: dimension {d} is split over a free axis before a manual one"
            ));
        }
        dims.push(DimSharding {
            axes: kept,
            closed: true,
            priority: None,
        });
    }
    Ok(SdySharding {
        mesh: s.mesh.clone(),
        dims,
        replicated: vec![],
        unreduced: vec![],
    })
}

/// Removes the sharding constraints of a copied region, their uses reading their operands.
fn drop_constraints(region: &mut Region) {
    let mut map = HashMap::new();
    walk_ops(region, &mut |o, _| {
        if let OpKind::ShardingConstraint(_) = o.kind {
            // Constraints of constraints read the first operand of the chain.
            let x = map.get(&o.operands[0]).copied().unwrap_or(o.operands[0]);
            map.insert(o.results[0], x);
        }
    });
    replace_uses(region, &map);
    erase_ops(region, &mut |o| {
        matches!(o.kind, OpKind::ShardingConstraint(_))
    });
}
