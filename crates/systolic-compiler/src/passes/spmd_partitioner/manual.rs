//! `sdy.manual_computation` inside an automatically partitioned program: JAX's `shard_map`
//! with `axis_names` a subset of the mesh (partly manual), or any shard_map under `jit` with
//! shardings around it.
//!
//! The body is written for pieces along its manual axes and for whole arrays along the
//! others (the free axes); its collectives already name global device ids (JAX writes the
//! replica groups over the whole mesh), and their groups differ only in manual coordinates.
//!
//! When the mesh has free axes, the body is partitioned over them as Shardy does: it becomes
//! a program of its own (arguments of the manual pieces' shapes, sharded over free axes as
//! the `in_shardings` say, or — where they leave a dimension open — as the operand is held
//! outside; results as the value is held after the op), propagated and partitioned by the
//! same machinery, its collectives running on the free-axis pieces (every member of a group
//! holds the same piece index, so an all-reduce or permute of pieces is the piece of the
//! whole; gathered, scattered and exchanged dimensions stay whole). Each operand is converted
//! to its manual axes followed by its free ones per dimension (Shardy's order), and each
//! result leaves held the same way, then is converted to how the plan holds it. A body the
//! partitioner cannot split (an op it does not handle on pieces) runs whole along the free
//! axes instead, with a warning: the operands converted to their manual pieces, the body's
//! ops copied in, every device of a free-axis group computing the same values.
//!
//! Sharding constraints inside regions of the body's ops (JAX writes open ones, even inside
//! a reducer) only guide propagation: they are dropped; those at the body's top level guide
//! the body's own propagation.

use super::super::sharding_propagation::propagate_shardings;
use super::{located, set_count, Held, Local, MeshGrid, Partitioner};
use std::collections::HashMap;
use systolic_ir::walk::{clone_op, clone_region, erase_ops, replace_uses, walk_ops, ValueMap};
use systolic_ir::{
    Attribute, AxisRef, Block, DimSharding, Func, ManualComputationAttrs, Module, NamedAttr, Op,
    OpKind, Region, ReturnKind, SdySharding, TensorType,
};

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
        if let Some(axis) = attrs
            .manual_axes
            .iter()
            .find(|a| self.manual_axes.contains(a))
        {
            return Err(located(
                op,
                &format!(
                    "manual over \"{axis}\", which an enclosing manual computation already \
                     made manual (a nested shard_map takes axes its parent leaves free)"
                ),
            ));
        }
        let manual: Vec<String> = self
            .manual_axes
            .iter()
            .chain(&attrs.manual_axes)
            .cloned()
            .collect();
        let free = self
            .mesh
            .axes
            .iter()
            .any(|(name, size)| *size > 1 && !manual.contains(name));
        if free {
            match self.split_body(op, attrs, body, manual) {
                Ok(()) => return Ok(()),
                // A body with manual computations inside cannot run whole: its error is the
                // answer.
                Err(why) if has_nested_manual(body) => return Err(why),
                Err(why) => self.warnings.push(format!(
                    "{}: the body runs whole along the mesh axes it leaves free ({why})",
                    located(op, "sdy.manual_computation")
                )),
            }
        }
        self.whole_body(op, attrs, body)
    }

    /// The body partitioned over the free axes; see the module docs.
    fn split_body(
        &mut self,
        op: &'a Op,
        attrs: &ManualComputationAttrs,
        body: &'a Block,
        manual_axes: Vec<String>,
    ) -> Result<(), String> {
        let Some(ret) = body.ops.last() else {
            return Err(located(op, "sdy.manual_computation has an empty body"));
        };
        // Per operand: the piece with manual then free axes, and its free axes alone.
        let mut args = vec![];
        let mut arg_free = vec![];
        for (i, (&x, s)) in op.operands.iter().zip(&attrs.in_shardings).enumerate() {
            let what = located(op, &format!("operand {i}"));
            let global = self.global_type(x, &what)?;
            let manual = self.held_of(Some(&manual_part(s, attrs, &what)?), &global, &what)?;
            let outside = self.locals.get(&x).map(|l| l.held.clone());
            let free = self.free_part(s, attrs, outside.as_ref(), &manual, &global)?;
            let piece = self.convert(x, &joined(&manual, &free))?;
            args.push(Local {
                value: piece,
                held: free.clone(),
            });
            arg_free.push(free);
        }
        let mut result_parts = vec![];
        for (j, (&r, s)) in op.results.iter().zip(&attrs.out_shardings).enumerate() {
            let what = located(op, &format!("result {j}"));
            let global = self.global_type(r, &what)?;
            let manual = self.held_of(Some(&manual_part(s, attrs, &what)?), &global, &what)?;
            let planned = self.planned(r, &global)?;
            let free = self.free_part(s, attrs, Some(&planned), &manual, &global)?;
            result_parts.push((manual, free, planned, global));
        }
        let name = format!("{}_manual_body", self.src.name);
        let frees: Vec<&Held> = result_parts.iter().map(|(_, f, _, _)| f).collect();
        let func = self.body_function(&name, op, ret, &arg_free, &frees)?;
        let mut sub = Module {
            name: None,
            attrs: vec![],
            meshes: vec![self.mesh.clone()],
            funcs: vec![func],
            loc_aliases: vec![],
            source_name: None,
        };
        set_count(&mut sub, "mhlo.num_partitions", self.grid.len() as i64);
        let plan = propagate_shardings(&sub, &name)?;
        let func = &sub.funcs[0];
        let mut nested = Partitioner {
            src: func,
            plan: &plan,
            mesh: self.mesh.clone(),
            grid: MeshGrid::new(&self.mesh)?,
            dst: std::mem::replace(&mut self.dst, Func::new("")),
            ops: vec![],
            locals: HashMap::new(),
            defs: HashMap::new(),
            converted: HashMap::new(),
            partition: self.partition,
            next_channel: self.next_channel,
            at: String::new(),
            warnings: vec![],
            manual_axes,
        };
        for (&p, local) in func.params().iter().zip(args) {
            nested.locals.insert(p, local);
        }
        let outcome = nested.body_results(func);
        self.dst = std::mem::replace(&mut nested.dst, Func::new(""));
        let results = outcome?;
        self.ops.append(&mut nested.ops);
        self.next_channel = nested.next_channel;
        self.partition = nested.partition;
        self.warnings.append(&mut nested.warnings);
        for (&r, (local, (manual, _, planned, global))) in
            op.results.iter().zip(results.into_iter().zip(result_parts))
        {
            let whole = Local {
                value: local.value,
                held: joined(&manual, &local.held),
            };
            let v = self.convert_local(&whole, &planned, &global)?;
            self.locals.insert(
                r,
                Local {
                    value: v,
                    held: planned,
                },
            );
        }
        Ok(())
    }

    /// The body's ops partitioned (its parameters already bound), and its results held as
    /// its plan says.
    fn body_results(&mut self, func: &'a Func) -> Result<Vec<Local>, String> {
        let block = func
            .body
            .blocks
            .first()
            .ok_or_else(|| "internal: a manual body without a block".to_string())?;
        let ret = self
            .block_ops(block)?
            .ok_or_else(|| "internal: a manual body without a return".to_string())?;
        let mut out = vec![];
        for (j, &x) in ret.operands.iter().enumerate() {
            let what = format!("result {j} of the body");
            let global = self.global_type(x, &what)?;
            let sharding = self.plan.results.get(j).cloned().flatten();
            let held = self.held_of(sharding.as_ref(), &global, &what)?;
            let value = self.convert(x, &held)?;
            out.push(Local { value, held });
        }
        Ok(out)
    }

    /// The body of `op` as a function of its own: parameters and results of the manual
    /// pieces' shapes, sharded over free axes as `args` and `results` say.
    fn body_function(
        &self,
        name: &str,
        op: &Op,
        ret: &Op,
        args: &[Held],
        results: &[&Held],
    ) -> Result<Func, String> {
        let mut func = Func::new(name);
        let mut map = ValueMap::new();
        let mut region = clone_region(self.src, &op.regions[0], &mut func, &mut map)
            .map_err(|e| located(op, &e.message))?;
        let block = region
            .blocks
            .first_mut()
            .ok_or_else(|| located(op, "sdy.manual_computation has no body"))?;
        for inner in &mut block.ops {
            for r in &mut inner.regions {
                drop_constraints(r);
            }
        }
        if let Some(last) = block.ops.last_mut() {
            last.kind = OpKind::Return(ReturnKind::Func);
        }
        func.result_types = ret
            .operands
            .iter()
            .map(|&v| self.src.value_type(v).clone())
            .collect();
        func.body = region;
        let attr = |held: &Held| {
            vec![NamedAttr {
                name: "sdy.sharding".into(),
                value: Attribute::SdySharding(SdySharding {
                    mesh: self.mesh.name.clone(),
                    dims: held
                        .iter()
                        .map(|axes| DimSharding {
                            axes: axes.clone(),
                            closed: true,
                            priority: None,
                        })
                        .collect(),
                    replicated: vec![],
                    unreduced: vec![],
                }),
            }]
        };
        func.arg_attrs = args.iter().map(attr).collect();
        func.result_attrs = results.iter().map(|h| attr(h)).collect();
        Ok(func)
    }

    /// The free axes of a boundary value per dimension: those `s` lists after the manual
    /// ones, or — where `s` leaves the dimension open — those that follow the manual ones in
    /// how the value is held outside (`outside`). A dimension whose manual piece the free
    /// tiles do not divide stays whole along them (padded tiles of the piece would not be
    /// tiles of the whole).
    fn free_part(
        &self,
        s: &SdySharding,
        attrs: &ManualComputationAttrs,
        outside: Option<&Held>,
        manual: &Held,
        global: &TensorType,
    ) -> Result<Held, String> {
        let is_free = |a: &AxisRef| {
            !attrs.manual_axes.contains(&a.name) && !self.manual_axes.contains(&a.name)
        };
        let mut out = vec![];
        for (d, m) in manual.iter().enumerate() {
            let listed: Vec<AxisRef> = s
                .dims
                .get(d)
                .map(|dim| dim.axes.iter().filter(|a| is_free(a)).cloned().collect())
                .unwrap_or_default();
            let open = s.dims.get(d).is_some_and(|dim| !dim.closed);
            let mut free = listed;
            if free.is_empty() && open {
                if let Some(held) = outside.and_then(|h| h.get(d)) {
                    if held.starts_with(m) && held[m.len()..].iter().all(is_free) {
                        free = held[m.len()..].to_vec();
                    }
                }
            }
            let piece = global.shape[d] / self.grid.tiles(m)?.max(1);
            if !free.is_empty() && piece % self.grid.tiles(&free)? != 0 {
                free.clear();
            }
            out.push(free);
        }
        Ok(out)
    }

    /// The body copied in whole along the free axes; see the module docs.
    fn whole_body(
        &mut self,
        op: &'a Op,
        attrs: &ManualComputationAttrs,
        body: &'a Block,
    ) -> Result<(), String> {
        if has_nested_manual(body) {
            return Err(located(
                op,
                "a manual computation inside a manual computation whose body runs whole is \
                 not supported",
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

/// Whether a manual computation's body holds another one, at any depth.
fn has_nested_manual(body: &Block) -> bool {
    let mut nested = false;
    for inner in &body.ops {
        for r in &inner.regions {
            walk_ops(r, &mut |o, _| {
                nested |= matches!(o.kind, OpKind::ManualComputation(_))
            });
        }
        nested |= matches!(inner.kind, OpKind::ManualComputation(_));
    }
    nested
}

/// Per dimension, the axes of `major` then those of `minor`.
fn joined(major: &Held, minor: &Held) -> Held {
    major
        .iter()
        .zip(minor)
        .map(|(a, b)| a.iter().chain(b).cloned().collect())
        .collect()
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
