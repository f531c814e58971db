//! `jnp.einsum`: subscripts parsed (explicit `->` output or numpy's implicit one, `...`
//! ellipses broadcasting from the right), then lowered as JAX does: repeated labels in one
//! operand take a diagonal, labels used by one operand only are summed away first, operands
//! are contracted pairwise with `dot_general` in the cheapest order (as JAX's opt_einsum path:
//! [`contraction_path`]; batch = labels shared and still needed, contracting = labels shared and
//! no longer needed), and the result is transposed to the output order.

use crate::array::{describe, Array};
use crate::error::{Error, Result};
use crate::ops::creation::iota;
use crate::ops::elementwise::{broadcast_to_shape, compare, select};
use crate::ops::linalg::{dot_general_with, DotOptions};
use crate::ops::reduce::reduce;
use crate::ops::shape::transpose;
use std::collections::BTreeMap;
use systolic_ir::{BinaryOp, ComparisonDirection, DType, DotDimensionNumbers};

/// A label: a letter, or one dimension of the ellipsis (numbered from the right).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Label {
    Ellipsis(usize),
    Letter(char),
}

fn err(msg: impl Into<String>) -> Error {
    Error::op("einsum", msg)
}

/// One side's labels; `...` expands to `rank - letters` ellipsis labels.
fn parse_term(term: &str, rank: Option<usize>, max_ell: &mut usize) -> Result<Vec<Label>> {
    let mut labels = vec![];
    let mut rest = term;
    let mut seen_ellipsis = false;
    let letters = term.chars().filter(|c| c.is_ascii_alphabetic()).count();
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("...") {
            if seen_ellipsis {
                return Err(err(format!("more than one ellipsis in '{term}'")));
            }
            seen_ellipsis = true;
            let e = match rank {
                Some(r) => {
                    if r < letters {
                        return Err(err(format!(
                            "subscripts '{term}' name {letters} dimensions of a rank-{r} operand"
                        )));
                    }
                    r - letters
                }
                None => *max_ell,
            };
            *max_ell = (*max_ell).max(e);
            labels.extend((0..e).rev().map(Label::Ellipsis));
            rest = &rest[3..];
        } else if c.is_ascii_alphabetic() {
            labels.push(Label::Letter(c));
            rest = &rest[1..];
        } else {
            return Err(err(format!(
                "invalid character '{c}' in subscripts '{term}'"
            )));
        }
    }
    if let Some(r) = rank
        && labels.len() != r
    {
        return Err(err(format!(
            "subscripts '{term}' have {} labels for an operand of rank {r}",
            labels.len()
        )));
    }
    Ok(labels)
}

/// `jnp.einsum(subscripts, operands)`: Einstein summation with numpy's subscripts
/// (`"ij,jk->ik"`, implicit output `"ij,jk"`, ellipses `"...ij,...jk->...ik"`, traces
/// `"ii"`, diagonals `"ii->i"`); operands are promoted to a common dtype.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let b = Array::from_vec(vec![1.0f32, 0.0, 0.0, 1.0], &[2, 2]);
/// assert_eq!(np::einsum("ij,jk->ik", &[&a, &b]).to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(np::einsum("ii", &[&a]).to_vec::<f32>().unwrap(), vec![5.0]);
/// assert_eq!(np::einsum("...j->...", &[&a]).to_vec::<f32>().unwrap(), vec![3.0, 7.0]);
/// assert!(np::einsum("ij,jk->iq", &[&a, &b]).check().unwrap_err().to_string().contains("einsum"));
/// ```
pub fn einsum(subscripts: &str, operands: &[&Array]) -> Array {
    einsum_with(subscripts, operands, DotOptions::new())
}

/// `jnp.einsum(subscripts, *operands, precision=, preferred_element_type=)`: every pairwise
/// product takes the options; the result has the preferred dtype also when no product runs.
///
/// ```
/// use systolic::{numpy as np, Array, DType, DotOptions};
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let opts = DotOptions::new().preferred_element_type(DType::F64);
/// assert_eq!(np::einsum_with("ij,jk->ik", &[&a, &a], opts).dtype(), DType::F64);
/// assert_eq!(np::einsum_with("ij->j", &[&a], opts).dtype(), DType::F64);
/// ```
pub fn einsum_with(subscripts: &str, operands: &[&Array], opts: DotOptions) -> Array {
    einsum_impl(subscripts, operands, opts).unwrap_or_else(Array::failed)
}

fn einsum_impl(subscripts: &str, operands: &[&Array], opts: DotOptions) -> Result<Array> {
    for o in operands {
        o.check()?;
    }
    let s: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, out) = match s.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (s.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != operands.len() {
        return Err(err(format!(
            "subscripts '{subscripts}' name {} operands but {} were given",
            terms.len(),
            operands.len()
        )));
    }
    let mut max_ell = 0;
    let mut inputs: Vec<(Array, Vec<Label>)> = vec![];
    for (t, o) in terms.iter().zip(operands) {
        inputs.push(((*o).clone(), parse_term(t, Some(o.rank()), &mut max_ell)?));
    }
    let out_labels: Vec<Label> = match out {
        Some(o) => {
            let mut m = max_ell;
            let l = parse_term(&o, None, &mut m)?;
            for (i, x) in l.iter().enumerate() {
                if l[..i].contains(x) {
                    return Err(err(format!(
                        "output subscript {x:?} appears more than once in '{subscripts}'"
                    )));
                }
                if !inputs.iter().any(|(_, ls)| ls.contains(x)) {
                    return Err(err(format!(
                        "output subscript {x:?} of '{subscripts}' does not appear in an input"
                    )));
                }
            }
            l
        }
        None => {
            let mut counts: std::collections::BTreeMap<Label, usize> = Default::default();
            for (_, ls) in &inputs {
                for l in ls {
                    *counts.entry(*l).or_default() += 1;
                }
            }
            let mut o: Vec<Label> = (0..max_ell).rev().map(Label::Ellipsis).collect();
            o.extend(
                counts
                    .iter()
                    .filter(|&(l, &c)| c == 1 && matches!(l, Label::Letter(_)))
                    .map(|(l, _)| *l),
            );
            o
        }
    };
    // Sizes per label (size-1 ellipsis dims broadcast).
    let mut sizes: std::collections::BTreeMap<Label, i64> = Default::default();
    for (a, ls) in &inputs {
        for (d, l) in ls.iter().enumerate() {
            let n = a.dims()[d];
            match sizes.get(l) {
                Some(&m) if m != n && m != 1 && n != 1 => {
                    return Err(err(format!(
                        "dimension {l:?} has sizes {m} and {n} ('{subscripts}', operands {})",
                        crate::core::bind::describe_all(operands)
                    )));
                }
                Some(&m) if m != 1 => {}
                _ => {
                    sizes.insert(*l, n);
                }
            }
        }
    }
    // Diagonals and early sums.
    let n_in = inputs.len();
    let mut ops: Vec<(Array, Vec<Label>)> = vec![];
    for i in 0..n_in {
        let (mut a, mut ls) = inputs[i].clone();
        (a, ls) = take_diagonals(a, ls)?;
        let elsewhere = |l: &Label| {
            out_labels.contains(l)
                || inputs
                    .iter()
                    .enumerate()
                    .any(|(j, (_, o))| j != i && o.contains(l))
        };
        let lonely: Vec<i64> = (0..ls.len())
            .filter(|&d| !elsewhere(&ls[d]))
            .map(|d| d as i64)
            .collect();
        if !lonely.is_empty() {
            a = reduce("einsum", BinaryOp::Add, &a, &lonely);
            ls = ls
                .into_iter()
                .enumerate()
                .filter(|(d, _)| !lonely.contains(&(*d as i64)))
                .map(|(_, l)| l)
                .collect();
        }
        ops.push((a, ls));
    }
    if ops.is_empty() {
        return Err(err("needs at least one operand"));
    }
    let labels: Vec<Vec<Label>> = ops.iter().map(|(_, l)| l.clone()).collect();
    for (i, j) in contraction_path(&labels, &out_labels, &sizes) {
        // `j > i`: take the later one out first so `i` still names its operand.
        let (b, b_l) = ops.remove(j);
        let (acc, acc_l) = ops.remove(i);
        let keep = |l: &Label| out_labels.contains(l) || ops.iter().any(|(_, o)| o.contains(l));
        // Broadcast size-1 dims that meet a larger one.
        let acc2 = stretch(&acc, &acc_l, &b_l, &b, &sizes)?;
        let b2 = stretch(&b, &b_l, &acc_l, &acc, &sizes)?;
        let shared: Vec<Label> = acc_l.iter().filter(|l| b_l.contains(l)).copied().collect();
        let batch: Vec<Label> = shared.iter().filter(|l| keep(l)).copied().collect();
        let contract: Vec<Label> = shared.iter().filter(|l| !keep(l)).copied().collect();
        let pos = |ls: &[Label], l: &Label| ls.iter().position(|x| x == l).unwrap_or(0) as i64;
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: batch.iter().map(|l| pos(&acc_l, l)).collect(),
            rhs_batching_dimensions: batch.iter().map(|l| pos(&b_l, l)).collect(),
            lhs_contracting_dimensions: contract.iter().map(|l| pos(&acc_l, l)).collect(),
            rhs_contracting_dimensions: contract.iter().map(|l| pos(&b_l, l)).collect(),
        };
        let r = dot_general_with(&acc2, &b2, dims, opts);
        r.check()?;
        let mut r_l = batch.clone();
        r_l.extend(acc_l.iter().filter(|l| !shared.contains(l)));
        r_l.extend(b_l.iter().filter(|l| !shared.contains(l)));
        ops.push((r, r_l));
    }
    let (mut acc, mut acc_l) = ops.pop().ok_or_else(|| err("internal: no operand left"))?;
    // Sum what the output drops, then order as the output.
    let drop: Vec<i64> = (0..acc_l.len())
        .filter(|&d| !out_labels.contains(&acc_l[d]))
        .map(|d| d as i64)
        .collect();
    if !drop.is_empty() {
        acc = reduce("einsum", BinaryOp::Add, &acc, &drop);
        acc_l = acc_l
            .into_iter()
            .enumerate()
            .filter(|(d, _)| !drop.contains(&(*d as i64)))
            .map(|(_, l)| l)
            .collect();
    }
    let perm: Vec<i64> = out_labels
        .iter()
        .map(|l| acc_l.iter().position(|x| x == l).map(|p| p as i64))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| {
            err(format!(
                "internal: labels {acc_l:?} vs output {out_labels:?}"
            ))
        })?;
    let r = if perm.iter().enumerate().all(|(i, &p)| i as i64 == p) {
        acc
    } else {
        transpose(&acc, Some(&perm))
    };
    // A size-1 ellipsis dim that met a larger one only in the output.
    let shape: Vec<i64> = out_labels.iter().map(|l| sizes[l]).collect();
    let r = broadcast_to_shape("einsum", &r, &shape);
    let r = match opts.preferred_element_type {
        Some(dt) if dt != r.element_type() => {
            crate::ops::elementwise::convert("einsum", &r, dt, false)
        }
        _ => r,
    };
    r.check()?;
    Ok(r)
}

/// The order of pairwise contractions, as JAX gets it from opt_einsum: each step names two
/// positions `(i, j)`, `i < j`, of the current operand list; both leave the list and their
/// product is appended. Up to [`OPTIMAL_UP_TO`] operands every order is tried and the one with
/// the fewest multiply-adds kept (opt_einsum's `optimal`); beyond, the cheapest pair is taken
/// at each step (its `greedy`). Left-to-right order can cost orders of magnitude more: in
/// `ij,jk,kl` with small `i`, `l` and large `j`, `k`, contracting `jk,kl` first never forms the
/// large `ik` intermediate.
fn contraction_path(
    labels: &[Vec<Label>],
    out: &[Label],
    sizes: &BTreeMap<Label, i64>,
) -> Vec<(usize, usize)> {
    if labels.len() <= OPTIMAL_UP_TO {
        let mut best = (f64::INFINITY, vec![]);
        search_paths(labels.to_vec(), out, sizes, 0.0, &mut vec![], &mut best);
        return best.1;
    }
    let mut ops = labels.to_vec();
    let mut path = vec![];
    while ops.len() > 1 {
        let mut choice = (f64::INFINITY, 0, 1);
        for j in 1..ops.len() {
            for i in 0..j {
                let (cost, _) = pair_cost(&ops, i, j, out, sizes);
                if cost < choice.0 {
                    choice = (cost, i, j);
                }
            }
        }
        let (_, i, j) = choice;
        let (_, kept) = pair_cost(&ops, i, j, out, sizes);
        ops.remove(j);
        ops.remove(i);
        ops.push(kept);
        path.push((i, j));
    }
    path
}

/// Operand counts up to which [`contraction_path`] searches every order (5 operands: 180
/// orders).
const OPTIMAL_UP_TO: usize = 5;

/// Depth-first search over contraction orders, pruned by the best total cost found so far.
fn search_paths(
    ops: Vec<Vec<Label>>,
    out: &[Label],
    sizes: &BTreeMap<Label, i64>,
    cost: f64,
    path: &mut Vec<(usize, usize)>,
    best: &mut (f64, Vec<(usize, usize)>),
) {
    if ops.len() <= 1 {
        if cost < best.0 {
            *best = (cost, path.clone());
        }
        return;
    }
    for j in 1..ops.len() {
        for i in 0..j {
            let (step, kept) = pair_cost(&ops, i, j, out, sizes);
            if cost + step >= best.0 {
                continue;
            }
            let mut rest = ops.clone();
            rest.remove(j);
            rest.remove(i);
            rest.push(kept);
            path.push((i, j));
            search_paths(rest, out, sizes, cost + step, path, best);
            path.pop();
        }
    }
}

/// Multiply-adds of contracting operands `i` and `j` of `ops` (the product of the sizes of all
/// their labels) and the labels their product keeps (those the output or another operand
/// still needs).
fn pair_cost(
    ops: &[Vec<Label>],
    i: usize,
    j: usize,
    out: &[Label],
    sizes: &BTreeMap<Label, i64>,
) -> (f64, Vec<Label>) {
    let mut union: Vec<Label> = ops[i].clone();
    union.extend(ops[j].iter().filter(|l| !ops[i].contains(l)));
    let cost = union
        .iter()
        .map(|l| sizes.get(l).copied().unwrap_or(1) as f64)
        .product();
    let needed = |l: &Label| {
        out.contains(l)
            || ops
                .iter()
                .enumerate()
                .any(|(k, o)| k != i && k != j && o.contains(l))
    };
    (cost, union.into_iter().filter(needed).collect())
}

/// `x` with size-1 dims broadcast where `other` has the same label larger.
fn stretch(
    x: &Array,
    x_l: &[Label],
    o_l: &[Label],
    _o: &Array,
    sizes: &std::collections::BTreeMap<Label, i64>,
) -> Result<Array> {
    let target: Vec<i64> = x_l
        .iter()
        .enumerate()
        .map(|(d, l)| {
            if x.dims()[d] == 1 && o_l.contains(l) {
                sizes[l]
            } else {
                x.dims()[d]
            }
        })
        .collect();
    Ok(broadcast_to_shape("einsum", x, &target))
}

/// Removes repeated labels of one operand by taking diagonals (mask with `iota == iota`, sum
/// the second occurrence away), as JAX's einsum does.
fn take_diagonals(mut a: Array, mut ls: Vec<Label>) -> Result<(Array, Vec<Label>)> {
    loop {
        let dup =
            (0..ls.len()).find_map(|j| ls[..j].iter().position(|x| *x == ls[j]).map(|i| (i, j)));
        let Some((i, j)) = dup else {
            return Ok((a, ls));
        };
        if a.dims()[i] != a.dims()[j] {
            return Err(err(format!(
                "repeated subscript {:?} has sizes {} and {} in {}",
                ls[i],
                a.dims()[i],
                a.dims()[j],
                describe(a.aval())
            )));
        }
        let ii = iota(DType::I32, a.dims(), i as i64);
        let jj = iota(DType::I32, a.dims(), j as i64);
        let eq = compare("einsum", ComparisonDirection::Eq, &ii, &jj);
        let zero = crate::ops::creation::zeros(&[], a.element_type());
        let zero =
            crate::ops::elementwise::convert("einsum", &zero, a.element_type(), a.weak_type());
        let masked = select("einsum", &eq, &a, &zero);
        a = reduce("einsum", BinaryOp::Add, &masked, &[j as i64]);
        ls.remove(j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letters(s: &str) -> Vec<Label> {
        s.chars().map(Label::Letter).collect()
    }

    fn sizes(pairs: &[(char, i64)]) -> BTreeMap<Label, i64> {
        pairs.iter().map(|&(c, n)| (Label::Letter(c), n)).collect()
    }

    #[test]
    fn a_chain_contracts_its_small_end_first() {
        // i=1000, j=2, k=1000, l=2: (ij·jk)·kl costs 4e6, ij·(jk·kl) 8e3.
        let ops = [letters("ij"), letters("jk"), letters("kl")];
        let s = sizes(&[('i', 1000), ('j', 2), ('k', 1000), ('l', 2)]);
        assert_eq!(contraction_path(&ops, &letters("il"), &s), [(1, 2), (0, 1)]);
        // With the sizes the other way round, left to right is the cheap order.
        let s = sizes(&[('i', 2), ('j', 1000), ('k', 2), ('l', 1000)]);
        assert_eq!(contraction_path(&ops, &letters("il"), &s), [(0, 1), (0, 1)]);
    }

    /// Total multiply-adds of contracting `ops` along `path`.
    fn total_cost(
        ops: &[Vec<Label>],
        path: &[(usize, usize)],
        out: &[Label],
        s: &BTreeMap<Label, i64>,
    ) -> f64 {
        let mut live = ops.to_vec();
        let mut total = 0.0;
        for &(i, j) in path {
            let (cost, kept) = pair_cost(&live, i, j, out, s);
            total += cost;
            live.remove(j);
            live.remove(i);
            live.push(kept);
        }
        assert_eq!(live.len(), 1, "the path contracts everything");
        total
    }

    #[test]
    fn greedy_beyond_the_exhaustive_limit_avoids_the_large_products() {
        // Seven matrices in a chain, all links 1000 but `d` = 2: left to right costs four
        // 1000^3 products; contracting outwards from `d` costs a few 2·1000^2 ones.
        let ops: Vec<Vec<Label>> = ["ab", "bc", "cd", "de", "ef", "fg", "gh"]
            .iter()
            .map(|s| letters(s))
            .collect();
        let s: BTreeMap<Label, i64> = "abcdefgh"
            .chars()
            .map(|c| (Label::Letter(c), if c == 'd' { 2 } else { 1000 }))
            .collect();
        let out = letters("ah");
        let path = contraction_path(&ops, &out, &s);
        assert!(ops.len() > OPTIMAL_UP_TO);
        let left_to_right: Vec<(usize, usize)> = (0..6).map(|_| (0, 1)).collect();
        let greedy = total_cost(&ops, &path, &out, &s);
        let naive = total_cost(&ops, &left_to_right, &out, &s);
        assert!(naive > 4e9, "{naive}");
        assert!(greedy < 2e7, "greedy path {path:?} costs {greedy}");
    }
}
