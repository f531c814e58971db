//! Common subexpression elimination (XLA's `HloCSE`): of two pure ops with the same kind,
//! attributes, operands and result types, the later one is removed and its uses read the
//! earlier one. Operands of commutative ops are compared as unordered pairs (`a+b` = `b+a`).
//! An op in a nested region of control flow (`while`, `if`, `case`, `manual_computation`) may
//! reuse an equal op of an enclosing block (which dominates it), never the other way round. The
//! regions of other ops (a sort's comparator, a reduction's body, a scatter's update) are
//! XLA's called computations, which read nothing from outside: they start a fresh scope, so a
//! constant in a comparator is not replaced by an equal one outside (which would make it a
//! captured value, and the op would lose its native kernel).
//!
//! Constants are compared bit for bit, so `0.0` and `-0.0` stay apart. Ops with regions,
//! calls, custom calls, random numbers and anything with an effect are left alone.

use crate::pass::Pass;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use systolic_ir::walk::{erase_ops, replace_uses};
use systolic_ir::{Data, Diagnostic, Func, Module, Op, OpKind, Region, Tensor, ValueId};

/// The common subexpression elimination pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= cse_func(func);
        }
        Ok(changed)
    }
}

fn cse_func(func: &mut Func) -> bool {
    let mut subst: HashMap<ValueId, ValueId> = HashMap::new();
    {
        let mut scopes: Vec<HashMap<u64, Vec<&Op>>> = vec![];
        find_duplicates(&func.body, func, &mut scopes, &mut subst);
    }
    if subst.is_empty() {
        return false;
    }
    erase_ops(&mut func.body, &mut |op| {
        !op.results.is_empty() && op.results.iter().all(|r| subst.contains_key(r))
    });
    replace_uses(&mut func.body, &subst);
    true
}

/// True for ops that may be merged with an equal one ([`OpKind::is_mergeable`]; an op of any
/// kind without results has nothing to merge).
fn mergeable(op: &Op) -> bool {
    !op.results.is_empty() && op.regions.is_empty() && op.kind.is_mergeable()
}

/// The operands of `op` renamed by `subst`, in canonical order for commutative ops.
fn key_operands(op: &Op, subst: &HashMap<ValueId, ValueId>) -> Vec<ValueId> {
    let mut v: Vec<ValueId> = op
        .operands
        .iter()
        .map(|x| subst.get(x).copied().unwrap_or(*x))
        .collect();
    if op.kind.is_commutative() {
        v.sort();
    }
    v
}

/// A `fmt::Write` that feeds a hasher, so hashing an op's `Debug` form allocates nothing.
struct HashWriter<'h>(&'h mut DefaultHasher);

impl std::fmt::Write for HashWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        s.hash(self.0);
        Ok(())
    }
}

/// Hashes a constant's type and up to [`HASHED_ELEMENTS`] of its elements, spread over it:
/// equal constants hash alike, and [`same_tensor`] decides between the rare different ones that
/// collide. (Hashing every element made CSE 50 ms a run on a module with 32 MiB of weights.)
fn hash_tensor(t: &Tensor, h: &mut DefaultHasher) {
    t.ty().hash(h);
    let n = t.num_elements();
    let step = n.div_ceil(HASHED_ELEMENTS).max(1);
    for i in (0..n).step_by(step) {
        t.bits(i).hash(h);
    }
}

/// Elements of a constant [`hash_tensor`] reads at most.
const HASHED_ELEMENTS: usize = 256;

fn op_hash(op: &Op, func: &Func, subst: &HashMap<ValueId, ValueId>) -> u64 {
    let mut h = DefaultHasher::new();
    match &op.kind {
        OpKind::Constant(t) => hash_tensor(t, &mut h),
        kind => {
            let _ = write!(HashWriter(&mut h), "{kind:?}");
        }
    }
    key_operands(op, subst).hash(&mut h);
    for r in &op.results {
        func.values.get(r.index()).map(|d| &d.ty).hash(&mut h);
    }
    let _ = write!(HashWriter(&mut h), "{:?}", op.attrs);
    h.finish()
}

/// Constants equal bit for bit (NaN payloads and signed zeros included). Stored floats are the
/// exact f64 widenings of their elements, so equal f64 bits mean equal elements' bits and the
/// stored values can be compared as they are.
fn same_tensor(a: &Tensor, b: &Tensor) -> bool {
    if a.ty() != b.ty() {
        return false;
    }
    match (a.data(), b.data()) {
        (Data::Float(x), Data::Float(y)) => {
            x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        // Part by part, so that (-0, 0) and (0, 0) stay two constants.
        (Data::Complex(x), Data::Complex(y)) => x
            .iter()
            .zip(y)
            .all(|(p, q)| p.re.to_bits() == q.re.to_bits() && p.im.to_bits() == q.im.to_bits()),
        (x, y) => x == y,
    }
}

fn same_op(a: &Op, b: &Op, func: &Func, subst: &HashMap<ValueId, ValueId>) -> bool {
    let kinds_equal = match (&a.kind, &b.kind) {
        (OpKind::Constant(x), OpKind::Constant(y)) => same_tensor(x, y),
        (x, y) => x == y,
    };
    let types = |op: &Op| -> Vec<Option<_>> {
        op.results
            .iter()
            .map(|r| func.values.get(r.index()).map(|d| &d.ty))
            .collect()
    };
    kinds_equal
        && key_operands(a, subst) == key_operands(b, subst)
        && types(a) == types(b)
        && a.attrs == b.attrs
}

fn find_duplicates<'a>(
    region: &'a Region,
    func: &Func,
    scopes: &mut Vec<HashMap<u64, Vec<&'a Op>>>,
    subst: &mut HashMap<ValueId, ValueId>,
) {
    for block in &region.blocks {
        scopes.push(HashMap::new());
        for op in &block.ops {
            if mergeable(op) {
                let h = op_hash(op, func, subst);
                let earlier = scopes
                    .iter()
                    .rev()
                    .filter_map(|s| s.get(&h))
                    .flatten()
                    .find(|e| same_op(e, op, func, subst))
                    .copied();
                match earlier {
                    Some(e) => {
                        for (&r, &orig) in op.results.iter().zip(&e.results) {
                            subst.insert(r, orig);
                        }
                    }
                    None => {
                        if let Some(top) = scopes.last_mut() {
                            top.entry(h).or_default().push(op);
                        }
                    }
                }
            }
            if sees_enclosing_scopes(&op.kind) {
                for r in &op.regions {
                    find_duplicates(r, func, scopes, subst);
                }
            } else {
                for r in &op.regions {
                    find_duplicates(r, func, &mut Vec::new(), subst);
                }
            }
        }
        scopes.pop();
    }
}

/// Whether the regions of an op of `kind` may reuse values of the blocks around it: control
/// flow's do; other ops' regions are called computations, closed over nothing.
fn sees_enclosing_scopes(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::While | OpKind::If | OpKind::Case | OpKind::ManualComputation(_)
    )
}
