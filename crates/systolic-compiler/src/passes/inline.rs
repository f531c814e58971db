//! Inlining (XLA's `CallInliner`): every `func.call` is replaced by a copy of the callee's body,
//! its parameters bound to the call's operands and its results to the values the callee
//! returns. Only the functions that stay (public ones, ones named by a composite or a custom
//! call, ones nothing calls) are inlined into, each expanded from the module's bodies with
//! every op copied once, so the time is linear in the inlined size (a 5000-deep call chain
//! included); the private functions no longer reached are then removed. A module
//! whose kept functions would exceed [`MAX_INLINED_OPS`] once inlined (calls repeating their
//! callees multiply them: a DAG where each function calls the next twice doubles per level)
//! is refused before anything is copied.
//!
//! Recursion (a cycle of calls) cannot be inlined; it is reported naming the cycle.
//! `stablehlo.composite` decompositions and custom-call computations stay as they are.
//!
//! The copying is `systolic_ir::inline::Inliner`'s (the transformations inline with it too);
//! this pass adds the checks (cycles, unknown callees, the budget), the choice of the functions
//! inlined into and the clean-up.

use crate::pass::Pass;
use crate::passes::dce::remove_unreachable_private_functions;
use std::collections::{HashMap, HashSet};
use systolic_ir::inline::Inliner;
use systolic_ir::walk::walk_ops;
use systolic_ir::{Diagnostic, Func, Module, OpKind, Visibility};

/// The inlining pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Inline;

impl Pass for Inline {
    fn name(&self) -> &'static str {
        "inline"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let order = callees_first(module)?;
        let kept = kept_functions(module);
        check_inlined_size(module, &order, &kept)?;
        // Only the kept functions are inlined into, each expanded straight from the module's
        // bodies: the private callees are removed afterwards, so inlining into them as well
        // would copy a chain's tail once per level (quadratic in its depth).
        let mut inliner = Inliner::new(module);
        let mut rewritten = vec![];
        for index in order {
            if !kept[index] || !has_calls(&module.funcs[index]) {
                continue;
            }
            let mut func = module.funcs[index].clone();
            let inlined = inliner
                .inline_into(&mut func)
                .map_err(|d| d.in_source(module.source_name.as_deref()))?;
            if inlined > 0 {
                rewritten.push((index, func));
            }
        }
        let changed = !rewritten.is_empty();
        for (index, func) in rewritten {
            module.funcs[index] = func;
        }
        if changed {
            remove_unreachable_private_functions(module);
        }
        Ok(changed)
    }
}

/// Whether `func` holds a `func.call` anywhere (nested regions included).
fn has_calls(func: &Func) -> bool {
    let mut found = false;
    walk_ops(&func.body, &mut |op, _| {
        found |= matches!(op.kind, OpKind::Call { .. });
    });
    found
}

/// The most ops inlining may make, over every function it rewrites: calls that repeat
/// callees multiply their bodies (a DAG where each function calls the next twice doubles at
/// every level), and past this the program would not fit in memory anyway.
pub const MAX_INLINED_OPS: u64 = 1 << 24;

/// Refuses, before copying anything, a module whose inlined functions would hold more than
/// [`MAX_INLINED_OPS`] ops: each function's size once inlined is its own ops plus its
/// callees' inlined sizes per call (`order` lists callees first), counted saturating.
fn check_inlined_size(module: &Module, order: &[usize], kept: &[bool]) -> Result<(), Diagnostic> {
    let index = function_index(module);
    let mut size = vec![0u64; module.funcs.len()];
    let mut total = 0u64;
    for &f in order {
        let mut n = 0u64;
        walk_ops(&module.funcs[f].body, &mut |op, _| {
            n = n.saturating_add(match &op.kind {
                OpKind::Call { callee } => index.get(callee.as_str()).map_or(1, |&c| size[c]),
                _ => 1,
            });
        });
        size[f] = n;
        if kept[f] {
            total = total.saturating_add(n);
        }
        if total > MAX_INLINED_OPS || n > MAX_INLINED_OPS {
            let name = &module.funcs[f].name;
            return Err(Diagnostic::new(format!(
                "inlining the calls would make more than {MAX_INLINED_OPS} ops (@{name} alone \
                 {}): its calls repeat their callees' bodies",
                if n == u64::MAX {
                    "overflows a 64-bit count".to_string()
                } else {
                    format!("would be {n} ops")
                }
            ))
            .in_op("func.call")
            .at(module.funcs[f].span));
        }
    }
    Ok(())
}

/// Per function, whether it stays after inlining: public, or named by something other than
/// a `func.call` (a composite's decomposition, a custom call's computation), or called by
/// nothing.
fn kept_functions(module: &Module) -> Vec<bool> {
    let mut called = HashSet::new();
    let mut named = HashSet::new();
    for f in &module.funcs {
        walk_ops(&f.body, &mut |op, _| match &op.kind {
            OpKind::Call { callee } => {
                called.insert(callee.clone());
            }
            OpKind::Composite { decomposition, .. } => {
                named.insert(decomposition.clone());
            }
            OpKind::CustomCall {
                called_computations,
                ..
            } => named.extend(called_computations.iter().cloned()),
            _ => {}
        });
    }
    module
        .funcs
        .iter()
        .map(|f| {
            f.visibility == Visibility::Public
                || named.contains(&f.name)
                || !called.contains(&f.name)
        })
        .collect()
}

/// Each function's position in the module, by name.
fn function_index(module: &Module) -> HashMap<&str, usize> {
    module
        .funcs
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect()
}

/// The direct callees (by `func.call`) of a function.
fn direct_callees(func: &Func) -> Vec<String> {
    let mut out = vec![];
    walk_ops(&func.body, &mut |op, _| {
        if let OpKind::Call { callee } = &op.kind {
            out.push(callee.clone());
        }
    });
    out
}

/// Function indices ordered so that callees come before their callers; an error names a call
/// cycle or an unknown callee.
fn callees_first(module: &Module) -> Result<Vec<usize>, Diagnostic> {
    let index = function_index(module);
    let edges: Vec<Vec<String>> = module.funcs.iter().map(direct_callees).collect();
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let mut marks = vec![Mark::New; module.funcs.len()];
    let mut order = vec![];
    // Iterative depth-first search with an explicit path, so deep call chains cannot overflow.
    for root in 0..module.funcs.len() {
        if marks[root] != Mark::New {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        marks[root] = Mark::Active;
        while let Some(&mut (f, ref mut next)) = path.last_mut() {
            if let Some(callee) = edges[f].get(*next) {
                *next += 1;
                let Some(&c) = index.get(callee.as_str()) else {
                    return Err(Diagnostic::new(format!(
                        "@{} calls @{callee}, which the module does not define",
                        module.funcs[f].name
                    ))
                    .in_op("func.call"));
                };
                match marks[c] {
                    Mark::Done => {}
                    Mark::New => {
                        marks[c] = Mark::Active;
                        path.push((c, 0));
                    }
                    Mark::Active => {
                        let start = path.iter().position(|&(g, _)| g == c).unwrap_or(0);
                        let mut names: Vec<String> = path[start..]
                            .iter()
                            .map(|&(g, _)| format!("@{}", module.funcs[g].name))
                            .collect();
                        names.push(format!("@{}", module.funcs[c].name));
                        return Err(Diagnostic::new(format!(
                            "recursive calls cannot be inlined: {}",
                            names.join(" -> ")
                        ))
                        .in_op("func.call")
                        .at(module.funcs[c].span));
                    }
                }
            } else {
                marks[f] = Mark::Done;
                order.push(f);
                path.pop();
            }
        }
    }
    Ok(order)
}
