//! Dead code elimination (XLA's `HloDCE`): removes ops none of whose results are used and
//! that have no effect, drops unused results of `if`/`case` (the branches stop returning
//! them) and dead loop-carried values of `while` ([`loops`]), and removes private functions
//! no public function reaches.
//!
//! An op is removable when the IR does not require keeping it ([`OpKind::must_keep`]: side
//! effects, the stateful `stablehlo.rng`, and the collectives, which other devices wait for),
//! nothing in its regions does, and, for calls and composites, nothing in the functions they
//! reach does.

pub mod loops;

use crate::pass::Pass;
use std::collections::{HashMap, HashSet};
use systolic_ir::walk::walk_ops;
use systolic_ir::{Diagnostic, Func, Module, Op, OpKind, Region, ReturnKind, ValueId, Visibility};

/// The dead code elimination pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let effectful = effectful_functions(module);
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= dce_func(func, &effectful);
        }
        changed |= remove_unreachable_private_functions(module);
        Ok(changed)
    }
}

/// The functions called by an op (calls, composite decompositions, custom-call computations).
pub fn callees(kind: &OpKind) -> Vec<&str> {
    match kind {
        OpKind::Call { callee } => vec![callee.as_str()],
        OpKind::Composite { decomposition, .. } => vec![decomposition.as_str()],
        OpKind::CustomCall {
            called_computations,
            ..
        } => called_computations.iter().map(String::as_str).collect(),
        OpKind::RunParallel { programs, infeed } => programs
            .iter()
            .flatten()
            .chain(infeed)
            .map(String::as_str)
            .collect(),
        _ => vec![],
    }
}

/// The names of functions that have an effect when run: they contain an effectful op (other
/// than their own `func.return`) or call a function that does. Unknown callees count as
/// effectful.
pub fn effectful_functions(module: &Module) -> HashSet<String> {
    let known: HashSet<&str> = module.funcs.iter().map(|f| f.name.as_str()).collect();
    let mut calls: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut effectful: HashSet<String> = HashSet::new();
    for f in &module.funcs {
        let mut own = false;
        let mut out = vec![];
        walk_ops(&f.body, &mut |op, _| {
            if op.kind.must_keep() && !matches!(op.kind, OpKind::Return(_)) {
                own = true;
            }
            for c in callees(&op.kind) {
                if !known.contains(c) {
                    own = true;
                }
                out.push(c);
            }
        });
        if own {
            effectful.insert(f.name.clone());
        }
        calls.insert(f.name.as_str(), out);
    }
    // Propagate to callers until stable (call graphs are small).
    loop {
        let mut grew = false;
        for (caller, cs) in &calls {
            if !effectful.contains(*caller) && cs.iter().any(|c| effectful.contains(*c)) {
                effectful.insert(caller.to_string());
                grew = true;
            }
        }
        if !grew {
            return effectful;
        }
    }
}

/// True when `op` (with its regions and callees) may be removed if its results are unused.
fn removable(op: &Op, effectful: &HashSet<String>) -> bool {
    if op.kind.is_terminator() || op.kind.must_keep() {
        return false;
    }
    if callees(&op.kind).iter().any(|c| effectful.contains(*c)) {
        return false;
    }
    let mut inner_effect = false;
    for r in &op.regions {
        walk_ops(r, &mut |inner, _| {
            let is_region_return = matches!(inner.kind, OpKind::Return(ReturnKind::Stablehlo));
            if (inner.kind.must_keep() && !is_region_return)
                || callees(&inner.kind).iter().any(|c| effectful.contains(*c))
            {
                inner_effect = true;
            }
        });
    }
    !inner_effect
}

/// Removes dead ops of one function; returns whether anything changed.
/// Rounds of (drop unused region results, sweep) per function: sweeping can leave more
/// results unused, which the next round drops.
const MAX_ROUNDS: usize = 4;

fn dce_func(func: &mut Func, effectful: &HashSet<String>) -> bool {
    let mut changed = false;
    for _ in 0..MAX_ROUNDS {
        let mut counts = systolic_ir::walk::use_counts(func);
        // Unused results of if/case/while first: fewer returned values make more of the
        // regions dead.
        let mut dropped = drop_unused_branch_results(&mut func.body, &counts);
        dropped |= loops::drop_dead_loop_values(&mut func.body, &counts, effectful);
        if dropped {
            counts = systolic_ir::walk::use_counts(func);
        }
        let swept = sweep_region(&mut func.body, &mut counts, effectful);
        changed |= dropped | swept;
        if !(dropped || swept) {
            break;
        }
    }
    changed
}

/// Walks the blocks of `region` from the last op to the first, removing dead ops and
/// decrementing the use counts of what they used, so whole dead chains go in one sweep.
fn sweep_region(region: &mut Region, counts: &mut [u32], effectful: &HashSet<String>) -> bool {
    let mut changed = false;
    for block in &mut region.blocks {
        let mut dead = vec![false; block.ops.len()];
        for i in (0..block.ops.len()).rev() {
            let op = &block.ops[i];
            let unused = op
                .results
                .iter()
                .all(|r| counts.get(r.index()).copied().unwrap_or(0) == 0);
            if unused && removable(op, effectful) {
                release_uses(op, counts);
                dead[i] = true;
            } else {
                for r in block.ops[i].regions.iter_mut().rev() {
                    changed |= sweep_region(r, counts, effectful);
                }
            }
        }
        if dead.contains(&true) {
            let mut index = 0;
            block.ops.retain(|_| {
                index += 1;
                !dead[index - 1]
            });
            changed = true;
        }
    }
    changed
}

/// Decrements the use counts of every operand of `op` and of the ops in its regions.
fn release_uses(op: &Op, counts: &mut [u32]) {
    let mut release = |o: &Op| {
        for v in &o.operands {
            if let Some(c) = counts.get_mut(v.index()) {
                *c = c.saturating_sub(1);
            }
        }
    };
    release(op);
    for r in &op.regions {
        walk_ops(r, &mut |inner, _| release(inner));
    }
}

/// For every `if`/`case` with unused results, removes those results and the values the
/// branches return for them.
fn drop_unused_branch_results(region: &mut Region, counts: &[u32]) -> bool {
    let mut changed = false;
    for block in &mut region.blocks {
        for op in &mut block.ops {
            for r in &mut op.regions {
                changed |= drop_unused_branch_results(r, counts);
            }
            if !matches!(op.kind, OpKind::If | OpKind::Case) {
                continue;
            }
            let keep: Vec<bool> = op
                .results
                .iter()
                .map(|r| counts.get(r.index()).copied().unwrap_or(1) > 0)
                .collect();
            if keep.iter().all(|&k| k) || !branches_end_in_returns(op, keep.len()) {
                continue;
            }
            op.results = filter(&op.results, &keep);
            for r in &mut op.regions {
                if let Some(ret) = r.blocks.first_mut().and_then(|b| b.ops.last_mut()) {
                    ret.operands = filter(&ret.operands, &keep);
                }
            }
            changed = true;
        }
    }
    changed
}

fn branches_end_in_returns(op: &Op, n: usize) -> bool {
    op.regions.iter().all(|r| {
        r.blocks.len() == 1
            && r.blocks[0]
                .ops
                .last()
                .is_some_and(|t| t.kind.is_terminator() && t.operands.len() == n)
    })
}

fn filter(values: &[ValueId], keep: &[bool]) -> Vec<ValueId> {
    values
        .iter()
        .zip(keep)
        .filter(|(_, &k)| k)
        .map(|(&v, _)| v)
        .collect()
}

/// Removes private functions that no public function reaches through calls, composites or
/// custom-call computations; returns whether any was removed.
///
/// A module without public functions (a library of helpers) is left alone.
pub fn remove_unreachable_private_functions(module: &mut Module) -> bool {
    if module
        .funcs
        .iter()
        .all(|f| f.visibility != Visibility::Public)
    {
        return false;
    }
    let mut reached: HashSet<String> = HashSet::new();
    let mut stack: Vec<String> = module
        .funcs
        .iter()
        .filter(|f| f.visibility == Visibility::Public)
        .map(|f| f.name.clone())
        .collect();
    while let Some(name) = stack.pop() {
        if !reached.insert(name.clone()) {
            continue;
        }
        if let Some(f) = module.func(&name) {
            walk_ops(&f.body, &mut |op, _| {
                for c in callees(&op.kind) {
                    if !reached.contains(c) {
                        stack.push(c.to_string());
                    }
                }
            });
        }
    }
    let before = module.funcs.len();
    module.funcs.retain(|f| reached.contains(&f.name));
    module.funcs.len() != before
}
