//! Shape movement: reshape by compound factors, transpose, broadcasts, bitcast_convert.
//!
//! A reshape's factors come from walking both shapes major to minor and taking, at each
//! step, the largest common part of the two current dimensions' remaining sizes
//! (`gcd`): the major `g` of what is left of an input dimension is the major `g` of what is
//! left of the output dimension, because everything consumed before was consumed on both
//! sides. `8x4 -> 2x16` gives `((i,j),k) -> (i,(j,k))` with `i=2, j=4, k=4`. When the
//! remaining sizes share nothing (`2x3 -> 3x2`), the dimensions up to where both sides
//! have consumed the same number of elements have no common structure: their factors are
//! blocked on the operand and free on the result, so a sharding cannot pass through there.

use super::build::{op_step, operand_shapes, result_shapes, RuleBuilder};
use super::{FactorKind, OpClass, Step};
use systolic_ir::{Func, Op};

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Operand and result dimensions of `input -> output` as factor lists.
pub(crate) fn reshape_factors(
    b: &mut RuleBuilder,
    input: &[i64],
    output: &[i64],
) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let mut ins: Vec<Vec<usize>> = vec![vec![]; input.len()];
    let mut outs: Vec<Vec<usize>> = vec![vec![]; output.len()];
    let (mut i, mut j) = (0usize, 0usize);
    let mut in_rem = input.first().copied().unwrap_or(1);
    let mut out_rem = output.first().copied().unwrap_or(1);
    loop {
        // Skip finished dimensions (and dimensions of size 1, which have no factor).
        while i < input.len() && in_rem == 1 {
            i += 1;
            in_rem = input.get(i).copied().unwrap_or(1);
        }
        while j < output.len() && out_rem == 1 {
            j += 1;
            out_rem = output.get(j).copied().unwrap_or(1);
        }
        if i >= input.len() || j >= output.len() {
            break;
        }
        let g = gcd(in_rem, out_rem);
        if g > 1 {
            let f = b.factor(g, FactorKind::Pass);
            ins[i].push(f);
            outs[j].push(f);
            in_rem /= g;
            out_rem /= g;
            continue;
        }
        // No common structure: consume whole dimensions on either side until both sides
        // have consumed the same number of elements.
        let (mut in_acc, mut out_acc) = (in_rem, out_rem);
        ins[i].push(b.factor(in_rem, FactorKind::Blocked));
        outs[j].push(b.factor(out_rem, FactorKind::Pass));
        while in_acc != out_acc {
            if in_acc < out_acc {
                i += 1;
                let n = input.get(i).copied().unwrap_or(1);
                if i < input.len() {
                    ins[i].push(b.factor(n, FactorKind::Blocked));
                }
                in_acc = in_acc.saturating_mul(n.max(1));
                if i >= input.len() {
                    break;
                }
            } else {
                j += 1;
                let n = output.get(j).copied().unwrap_or(1);
                if j < output.len() {
                    outs[j].push(b.factor(n, FactorKind::Pass));
                }
                out_acc = out_acc.saturating_mul(n.max(1));
                if j >= output.len() {
                    break;
                }
            }
        }
        in_rem = 1;
        out_rem = 1;
    }
    (ins, outs)
}

/// `stablehlo.reshape`.
pub(crate) fn reshape(op: &Op, func: &Func) -> Step {
    let input = operand_shapes(op, func).swap_remove(0);
    let output = result_shapes(op, func).swap_remove(0);
    let mut b = RuleBuilder::new();
    let (ins, outs) = reshape_factors(&mut b, &input, &output);
    op_step(op, b.rule(vec![ins], vec![outs], OpClass::PassThrough))
}

/// `stablehlo.bitcast_convert`: the same shape, or a minor dimension added (to a wider
/// element type's operand) or removed; that dimension is needed whole.
pub(crate) fn bitcast_convert(op: &Op, func: &Func) -> Step {
    let input = operand_shapes(op, func).swap_remove(0);
    let output = result_shapes(op, func).swap_remove(0);
    let mut b = RuleBuilder::new();
    let common = input.len().min(output.len());
    let shared = b.own(&input[..common], FactorKind::Pass);
    let mut ins = shared.clone();
    ins.extend(b.own(&input[common..], FactorKind::Blocked));
    let mut outs = shared;
    outs.extend(b.own(&output[common..], FactorKind::Pass));
    op_step(op, b.rule(vec![ins], vec![outs], OpClass::PassThrough))
}

/// `stablehlo.transpose`: result dimension `d` is operand dimension `permutation[d]`.
pub(crate) fn transpose(op: &Op, func: &Func, permutation: &[i64]) -> Result<Step, String> {
    let input = operand_shapes(op, func).swap_remove(0);
    let mut b = RuleBuilder::new();
    let ins = b.own(&input, FactorKind::Pass);
    let outs = permutation
        .iter()
        .map(|&p| {
            ins.get(p as usize)
                .cloned()
                .ok_or_else(|| format!("transpose: permutation entry {p} out of range"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(op_step(
        op,
        b.rule(vec![ins], vec![outs], OpClass::PassThrough),
    ))
}

/// `stablehlo.broadcast_in_dim` (and `broadcast`, whose operand dimensions are the minor
/// ones): operand dimension `d` is result dimension `dims[d]` when their sizes agree; a
/// dimension of size 1 broadcast to more has no factor; new result dimensions are free.
pub(crate) fn broadcast_in_dim(op: &Op, func: &Func, dims: &[i64]) -> Result<Step, String> {
    let input = operand_shapes(op, func).swap_remove(0);
    let output = result_shapes(op, func).swap_remove(0);
    let mut b = RuleBuilder::new();
    let mut outs: Vec<Option<Vec<usize>>> = vec![None; output.len()];
    let mut ins = Vec::with_capacity(input.len());
    for (d, &n) in input.iter().enumerate() {
        let r = dims
            .get(d)
            .map(|&r| r as usize)
            .filter(|&r| r < output.len())
            .ok_or_else(|| format!("broadcast_in_dim: operand dimension {d} has no place"))?;
        if output[r] == n {
            let f = b.factor(n, FactorKind::Pass);
            ins.push(vec![f]);
            outs[r] = Some(vec![f]);
        } else {
            ins.push(vec![]);
        }
    }
    let outs = outs
        .into_iter()
        .zip(&output)
        .map(|(f, &n)| f.unwrap_or_else(|| vec![b.factor(n, FactorKind::Pass)]))
        .collect();
    Ok(op_step(
        op,
        b.rule(vec![ins], vec![outs], OpClass::Broadcast),
    ))
}
