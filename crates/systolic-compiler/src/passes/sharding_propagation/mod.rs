//! Sharding propagation in the manner of Shardy (openxla/shardy, its docs on the sharding
//! representation and on propagation): from the shardings a program is given — `sdy.sharding`
//! on the entry's arguments and results, `sdy.sharding_constraint`s, manual computations'
//! boundaries — to a sharding for every value, and per op what computing it sharded takes.
//! The partitioner (the global program rewritten into each device's) reads the
//! [`ShardingPlan`]; `--dump-dir` and tests read the annotated module
//! ([`ShardingPlan::annotate`]).
//!
//! - [`rules`]: per op, how its dimensions map to factors (an exhaustive match over
//!   `OpKind`);
//! - [`project`]: dimension shardings ↔ factor shardings (sub-axes where a reshape needs
//!   part of an axis); [`axes`]: axis arithmetic;
//! - [`propagate`]: the fixed point, in Shardy's priority order (user priorities, then
//!   op-based stages, then sweeps);
//! - [`plan`]: the plan: shardings, factor shardings, reduction axes, reshards.
//!
//! Where shardings start:
//!
//! - arguments and results: as annotated (closed dimensions stay as written, open `?` ones
//!   may grow); without an annotation, fully open;
//! - a constraint's result: the constraint's sharding. As Shardy's import does, a constraint
//!   whose operand is an op's result used only by it gives that operand its sharding too
//!   (so the constraint holds where the value is made, not after a reshard);
//! - a manual computation: its results as its `out_shardings`; its operands meet its
//!   `in_shardings` (fixed); its body is not propagated into;
//! - every other tensor: fully open.
//!
//! The entry's parameters and results get no sub-axes from propagation (a caller could not
//! express them; Shardy under JAX does the same).
//!
//! Calls are barriers (run the `inline` pass first, as Shardy's import inlines); control flow
//! is propagated through (`while`, `if`, `case` as data-flow edges).

pub mod axes;
pub mod plan;
pub mod project;
pub mod propagate;
pub mod rules;

pub use plan::{OpPlan, Reshard, ReshardSite, ShardingPlan};
pub use rules::{op_steps, Factor, FactorKind, OpClass, OpRule, Site, Step, TensorRef};

use super::lower_manual_computations::grid::MeshGrid;
use super::lower_manual_computations::{sharding_attr, the_mesh};
use plan::{closed, plan_step};
use propagate::{State, STAGES};
use systolic_ir::verify::verify_module;
use systolic_ir::walk::use_counts;
use systolic_ir::{DimSharding, Func, Module, Op, OpKind, Region, SdyMesh, SdySharding, Type};

/// The most sweeps one stage may take (each sweep that changes something adds an axis
/// somewhere, so real programs stop far below; this bounds a bug, not a program).
const MAX_SWEEPS: usize = 10_000;

/// Propagates the shardings of `entry` to a fixed point; see the module docs.
pub fn propagate_shardings(module: &Module, entry: &str) -> Result<ShardingPlan, String> {
    if let Err(diags) = verify_module(module) {
        return Err(diags[0].to_string());
    }
    let func = module
        .func(entry)
        .ok_or_else(|| format!("no function @{entry}"))?;
    let mesh = the_mesh(module, func)?;
    let grid = MeshGrid::new(&mesh)?;
    let ops = entry_ops(&func.body);
    let mut state = initial_state(func, &mesh, &ops)?;
    let check = |what: &str, s: &SdySharding, shape: Option<Vec<i64>>| {
        check_sharding(what, s, shape, &mesh, &grid)
    };
    for (i, s) in func.arg_attrs.iter().enumerate() {
        if let Some(s) = sharding_attr(Some(s)) {
            check(
                &format!("argument {i}"),
                &s,
                func.params().get(i).and_then(|&v| rules::shape_of(func, v)),
            )?;
        }
    }
    for (i, s) in state.results.iter().enumerate() {
        if let Some(s) = s {
            let shape = match func.result_types.get(i) {
                Some(Type::Tensor(t)) => Some(t.shape.clone()),
                _ => None,
            };
            check(&format!("result {i}"), s, shape)?;
        }
    }
    // The rules of every op outside manual bodies.
    let mut steps: Vec<(usize, Step, bool)> = vec![];
    let uses = use_counts(func);
    for &(index, op, depth, manual) in &ops {
        if manual {
            continue;
        }
        let op_steps = op_steps(op, func, depth == 0).map_err(|m| located(op, &m))?;
        for step in op_steps {
            for t in step.operands.iter().chain(&step.results) {
                if let Some(s) = state.get(t) {
                    check(&located(op, "sharding"), s, None)?;
                }
            }
            let single_use = step.operands.iter().all(|t| match t {
                TensorRef::Value(v) => {
                    uses.get(v.index()).is_none_or(|&n| n <= 1)
                        || rules::shape_of(func, *v).is_some_and(|s| s.is_empty())
                }
                TensorRef::FuncResult(_) | TensorRef::Fixed(_) => true,
            });
            steps.push((index, step, single_use));
        }
    }
    // User-priority rounds, op-based stages, sweeps.
    let mut rounds: Vec<i64> = vec![];
    let mut note = |s: &SdySharding| {
        rounds.extend(s.dims.iter().filter_map(|d| d.priority));
    };
    state
        .values
        .iter()
        .chain(&state.results)
        .flatten()
        .for_each(&mut note);
    for (_, step, _) in &steps {
        for t in step.operands.iter().chain(&step.results) {
            if let TensorRef::Fixed(s) = t {
                note(s);
            }
        }
    }
    rounds.sort_unstable();
    rounds.dedup();
    if rounds.is_empty() {
        rounds.push(i64::MAX);
    }
    for &threshold in &rounds {
        for stage in 0..STAGES {
            let mut sweeps = 0;
            loop {
                let mut changed = false;
                for (_, step, single) in steps.iter() {
                    changed |= state.apply(step, *single, stage, threshold);
                }
                for (_, step, single) in steps.iter().rev() {
                    changed |= state.apply(step, *single, stage, threshold);
                }
                if !changed {
                    break;
                }
                sweeps += 1;
                if sweeps > MAX_SWEEPS {
                    return Err(format!(
                        "@{entry}: sharding propagation did not reach a fixed point"
                    ));
                }
            }
        }
    }
    Ok(build_plan(func, &mesh, &state, &ops, &steps))
}

/// Every op of the entry in pre-order: (index, op, region depth, inside a manual body).
fn entry_ops(body: &Region) -> Vec<(usize, &Op, usize, bool)> {
    fn walk<'a>(
        region: &'a Region,
        depth: usize,
        manual: bool,
        out: &mut Vec<(usize, &'a Op, usize, bool)>,
    ) {
        for block in &region.blocks {
            for op in &block.ops {
                out.push((out.len(), op, depth, manual));
                let inner = manual || matches!(op.kind, OpKind::ManualComputation(_));
                for r in &op.regions {
                    walk(r, depth + 1, inner, out);
                }
            }
        }
    }
    let mut out = vec![];
    walk(body, 0, false, &mut out);
    out
}

/// A fully open sharding of rank `rank`.
fn open(mesh: &SdyMesh, rank: usize) -> SdySharding {
    SdySharding {
        mesh: mesh.name.clone(),
        dims: vec![
            DimSharding {
                axes: vec![],
                closed: false,
                priority: None,
            };
            rank
        ],
        replicated: vec![],
        unreduced: vec![],
    }
}

/// Where propagation starts; see the module docs.
fn initial_state<'a>(
    func: &'a Func,
    mesh: &'a SdyMesh,
    ops: &[(usize, &Op, usize, bool)],
) -> Result<State<'a>, String> {
    let mut values: Vec<Option<SdySharding>> = func
        .values
        .iter()
        .map(|v| match &v.ty {
            Type::Tensor(t) => Some(open(mesh, t.shape.len())),
            _ => None,
        })
        .collect();
    for &(_, op, _, manual) in ops {
        if manual {
            for &v in op.results.iter().chain(
                op.regions
                    .iter()
                    .flat_map(|r| r.blocks.iter().flat_map(|b| b.args.iter())),
            ) {
                values[v.index()] = None;
            }
        }
        if let OpKind::ManualComputation(a) = &op.kind {
            for r in &op.regions {
                for b in &r.blocks {
                    for &v in &b.args {
                        values[v.index()] = None;
                    }
                }
            }
            for (&v, s) in op.results.iter().zip(&a.out_shardings) {
                values[v.index()] = Some(s.clone());
            }
        }
    }
    for (i, &p) in func.params().iter().enumerate() {
        if let Some(s) = sharding_attr(func.arg_attrs.get(i)) {
            values[p.index()] = Some(s);
        }
    }
    // Constraints, and their single-use operands made by ops.
    let uses = use_counts(func);
    let block_args: Vec<bool> = {
        let mut is_arg = vec![false; func.values.len()];
        for &p in func.params() {
            is_arg[p.index()] = true;
        }
        for &(_, op, _, _) in ops {
            for r in &op.regions {
                for b in &r.blocks {
                    for &v in &b.args {
                        is_arg[v.index()] = true;
                    }
                }
            }
        }
        is_arg
    };
    for &(_, op, _, manual) in ops {
        let (OpKind::ShardingConstraint(s), false) = (&op.kind, manual) else {
            continue;
        };
        if let Some(&r) = op.results.first() {
            values[r.index()] = Some((**s).clone());
        }
        if let Some(&x) = op.operands.first() {
            let untouched = values[x.index()]
                .as_ref()
                .is_some_and(|cur| *cur == open(mesh, cur.dims.len()));
            if !block_args[x.index()] && uses[x.index()] == 1 && untouched {
                values[x.index()] = Some((**s).clone());
            }
        }
    }
    let results = func
        .result_types
        .iter()
        .enumerate()
        .map(|(i, ty)| match ty {
            Type::Tensor(t) => Some(
                sharding_attr(func.result_attrs.get(i))
                    .unwrap_or_else(|| open(mesh, t.shape.len())),
            ),
            _ => None,
        })
        .collect();
    let mut boundary = vec![false; func.values.len()];
    for &p in func.params() {
        boundary[p.index()] = true;
    }
    Ok(State {
        mesh,
        boundary,
        values,
        results,
    })
}

/// A sharding names the mesh, has the tensor's rank, names existing axes (sub-axes that
/// divide them) and uses no axis twice.
fn check_sharding(
    what: &str,
    s: &SdySharding,
    shape: Option<Vec<i64>>,
    mesh: &SdyMesh,
    grid: &MeshGrid,
) -> Result<(), String> {
    if s.mesh != mesh.name {
        return Err(format!(
            "{what}: {s} names mesh @{}, the program runs on @{}",
            s.mesh, mesh.name
        ));
    }
    if let Some(shape) = shape {
        if shape.len() != s.dims.len() {
            return Err(format!(
                "{what}: {s} has {} dimensions, the tensor has rank {} ({shape:?})",
                s.dims.len(),
                shape.len()
            ));
        }
    }
    let all: Vec<_> = s
        .dims
        .iter()
        .flat_map(|d| d.axes.iter())
        .chain(&s.replicated)
        .chain(&s.unreduced)
        .cloned()
        .collect();
    grid.tiles(&all).map_err(|m| format!("{what}: {s}: {m}"))?;
    for (i, a) in all.iter().enumerate() {
        if axes::overlaps_any(a, &all[i + 1..], mesh) {
            return Err(format!(
                "{what}: {s} uses axis \"{}\" more than once",
                a.name
            ));
        }
    }
    Ok(())
}

/// `op name (at line:col): message`.
fn located(op: &Op, message: &str) -> String {
    let at = op.span.map(|s| format!(" (at {s})")).unwrap_or_default();
    format!("{}{at}: {message}", op.kind.name())
}

/// The plan from the final state.
fn build_plan(
    func: &Func,
    mesh: &SdyMesh,
    state: &State,
    ops: &[(usize, &Op, usize, bool)],
    steps: &[(usize, Step, bool)],
) -> ShardingPlan {
    let mut plans: Vec<OpPlan> = ops
        .iter()
        .map(|&(index, op, _, manual)| OpPlan {
            index,
            name: op.kind.name(),
            results: op.results.clone(),
            manual,
            rule: None,
            factor_axes: vec![],
            reduction_axes: vec![],
            reshards: vec![],
            notes: vec![],
        })
        .collect();
    // Where each op's region terminators are.
    let index_of = |target: &Op| {
        ops.iter()
            .find(|(_, o, _, _)| std::ptr::eq(*o, target))
            .map(|e| e.0)
    };
    for (index, step, _) in steps {
        let op = ops[*index].1;
        let sp = plan_step(state, step, plan::moves_split_aside(&op.kind));
        let computes = step
            .operand_sites
            .iter()
            .enumerate()
            .all(|(k, s)| *s == Site::Operand(k))
            && step
                .result_sites
                .iter()
                .enumerate()
                .all(|(k, s)| *s == Site::Result(k))
            && step.operands.len() == op.operands.len()
            && step.results.len() == op.results.len();
        let plan = &mut plans[*index];
        if computes {
            plan.rule = Some(step.rule.clone());
            plan.factor_axes = sp.factor_axes;
            plan.reduction_axes = sp.reduction_axes;
        }
        plan.notes.extend(sp.notes);
        for (site, reshard) in sp.reshards {
            let target = match site {
                Site::RegionReturn(r, _) => op
                    .regions
                    .get(r)
                    .and_then(|r| r.blocks.first())
                    .and_then(|b| b.ops.last())
                    .and_then(index_of),
                Site::Operand(_) | Site::Result(_) | Site::None => Some(*index),
            };
            if let Some(t) = target {
                plans[t].reshards.push(reshard);
            }
        }
    }
    let final_of = |s: &Option<SdySharding>| s.as_ref().map(closed);
    ShardingPlan {
        entry: func.name.clone(),
        mesh: mesh.clone(),
        values: state.values.iter().map(final_of).collect(),
        params: func
            .params()
            .iter()
            .map(|&p| final_of(&state.values[p.index()]))
            .collect(),
        results: state.results.iter().map(final_of).collect(),
        ops: plans,
    }
}

#[cfg(test)]
mod tests;
