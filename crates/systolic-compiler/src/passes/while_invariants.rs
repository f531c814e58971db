//! Loop-invariant carried values of `while` become captures (the part of XLA's
//! `WhileLoopSimplifier` that drops loop-invariant tuple elements).
//!
//! JAX lowers `scan` and `fori_loop` with their constants (weights, the scanned-over inputs)
//! in the carried tuple, and the body returns them unchanged. A carried value is a value the
//! loop owns and may update in place, so the CPU backend's loop takes a copy of every carried
//! operand it does not own — a parameter, say — once per run: `rnn_scan_256`'s 5.3 MiB of
//! weights and inputs, copied into fresh pages on every call. Read as a capture instead (a
//! value of the enclosing scope the regions use directly, as StableHLO allows), it is
//! borrowed for the whole loop and never copied.
//!
//! A carried value `i` is invariant when the body returns its own argument `i` in position
//! `i`. Its uses in both regions are renamed to the loop's operand `i`, the argument and the
//! returned value are dropped, and the loop's result `i` becomes that operand. A loop whose
//! every carried value is invariant (one that never ends or never runs) is left alone, and so
//! is one with attributes (a sharding lists every result). A backend pass: the CPU pipeline
//! runs it after the standard passes, on the program it lowers.

use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action, Rewriter};
use std::collections::HashMap;
use systolic_ir::walk::replace_uses;
use systolic_ir::{Diagnostic, Module, Op, OpKind, ValueId};

/// The loop-invariant capture pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct WhileInvariants;

impl Pass for WhileInvariants {
    fn name(&self) -> &'static str {
        "while-invariants"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= rewrite_func(func, &mut |rw, op| Ok(capture_invariants(rw, op)))?;
        }
        Ok(changed)
    }
}

/// Which carried values of a well-formed `while` the body returns unchanged; `None` for other
/// ops and for loops of another form.
fn invariant_positions(op: &Op) -> Option<Vec<bool>> {
    if op.kind != OpKind::While || op.regions.len() != 2 || op.results.len() != op.operands.len() {
        return None;
    }
    let n = op.operands.len();
    let [cond, body] = [&op.regions[0], &op.regions[1]];
    if cond.blocks.len() != 1 || body.blocks.len() != 1 {
        return None;
    }
    let (cond, body) = (&cond.blocks[0], &body.blocks[0]);
    if cond.args.len() != n || body.args.len() != n {
        return None;
    }
    let ret = body.ops.last().filter(|t| t.kind.is_terminator())?;
    if ret.operands.len() != n {
        return None;
    }
    Some((0..n).map(|i| ret.operands[i] == body.args[i]).collect())
}

fn capture_invariants(rw: &mut Rewriter<'_, '_>, op: &mut Op) -> Action {
    let Some(invariant) = invariant_positions(op) else {
        return Action::Keep;
    };
    // Attributes of a loop (shardings) may list its results: such a loop stays as it is.
    if !invariant.contains(&true) || !invariant.contains(&false) || !op.attrs.is_empty() {
        return Action::Keep;
    }
    let keep = |i: &usize| !invariant[*i];
    let n = invariant.len();
    for (index, region) in op.regions.iter_mut().enumerate() {
        let block = &mut region.blocks[0];
        let renames: HashMap<ValueId, ValueId> = (0..n)
            .filter(|i| invariant[*i])
            .map(|i| (block.args[i], op.operands[i]))
            .collect();
        block.args = (0..n).filter(keep).map(|i| block.args[i]).collect();
        // The body's terminator loses the invariant values (checked by `invariant_positions`
        // to return all `n`); the condition's returns its flag as before.
        if index == 1 {
            let ret = block.ops.last_mut().expect("the body ends in its return");
            ret.operands = (0..n).filter(keep).map(|i| ret.operands[i]).collect();
        }
        replace_uses(region, &renames);
    }
    let mut results = Vec::with_capacity(n);
    let mut values = Vec::with_capacity(n);
    for (i, &unchanged) in invariant.iter().enumerate() {
        if unchanged {
            values.push(op.operands[i]);
        } else {
            let ty = rw
                .ty(op.results[i])
                .cloned()
                .expect("a while result has a type");
            let fresh = rw.fresh(ty);
            results.push(fresh);
            values.push(fresh);
        }
    }
    rw.emit_op(Op {
        kind: OpKind::While,
        operands: (0..n).filter(keep).map(|i| op.operands[i]).collect(),
        results,
        regions: std::mem::take(&mut op.regions),
        attrs: op.attrs.clone(),
        loc: op.loc.clone(),
        span: op.span,
    });
    Action::Replace(values)
}
