//! Which of the compiler's buffers a TPU program keeps in one HBM buffer because of loops and
//! in-place updates.
//!
//! The compiler's buffer assignment (`systolic_compiler::passes::buffer_assignment`, shared
//! with the CPU backend) gives a `while`'s operands, its regions' arguments and its results
//! buffers of their own, and writes a `dynamic_update_slice` into a new buffer. XLA does not:
//! a loop's state lives in one buffer per carried value for the whole loop (operand, condition
//! and body arguments, body result, loop result), and an update of a value nobody reads
//! afterwards is made in place. A `scan` that stacks per-layer activations into an
//! `[L, …]` array therefore holds that array once, not four or five times — the difference
//! between a LLaMA training step fitting in HBM or not.
//!
//! The rules, each only where it cannot make two live values share bytes:
//!
//! - a `dynamic_update_slice` whose operand is read by nothing else writes into the
//!   operand's buffer;
//! - a `while`'s carried value `k` has one buffer for its condition and body arguments and its
//!   result; the operand joins it when the loop is the operand's only reader;
//! - when the body returns argument `k` unchanged (a value the loop only reads, such as stacked
//!   weights), that buffer is the operand's own, whatever it is (a parameter or constant
//!   included): the loop adds no bytes for it.

use std::collections::HashMap;
use systolic_compiler::passes::buffer_assignment::{BufferAssignment, Placement};
use systolic_ir::walk::walk_ops;
use systolic_ir::{Func, Op, OpKind, ValueId};

/// Slots of a [`BufferAssignment`] joined into HBM buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct JoinedSlots {
    /// For each slot, the slot that stands for its buffer (itself when not joined).
    pub root: Vec<usize>,
    /// Slots that live in a parameter's or constant's buffer (no bytes of their own).
    pub resident: Vec<bool>,
}

/// Joins the slots of `assignment` (of `func`) that XLA keeps in one buffer.
pub fn join_loop_buffers(func: &Func, assignment: &BufferAssignment) -> JoinedSlots {
    let slots = assignment.slots.len();
    let mut j = Joiner {
        parent: (0..slots).collect(),
        resident: vec![false; slots],
        placements: &assignment.placements,
        uses: use_counts(func),
    };
    walk_ops(&func.body, &mut |op, _| match op.kind {
        OpKind::DynamicUpdateSlice => j.update_in_place(op),
        OpKind::While => j.loop_state(op),
        _ => {}
    });
    let root: Vec<usize> = (0..slots).map(|s| j.find(s)).collect();
    let resident = (0..slots).map(|s| j.resident[root[s]]).collect();
    JoinedSlots { root, resident }
}

/// How many times each value is read, anywhere in the function (fusion and reducer regions
/// included: a value read there is read by their op).
fn use_counts(func: &Func) -> HashMap<ValueId, usize> {
    let mut uses = HashMap::new();
    walk_ops(&func.body, &mut |op, _| {
        for &v in &op.operands {
            *uses.entry(v).or_insert(0) += 1;
        }
    });
    uses
}

struct Joiner<'a> {
    parent: Vec<usize>,
    resident: Vec<bool>,
    placements: &'a [Placement],
    uses: HashMap<ValueId, usize>,
}

impl Joiner<'_> {
    fn find(&mut self, mut s: usize) -> usize {
        while self.parent[s] != s {
            self.parent[s] = self.parent[self.parent[s]];
            s = self.parent[s];
        }
        s
    }

    fn slot(&self, v: ValueId) -> Option<usize> {
        match self.placements.get(v.index()) {
            Some(Placement::Slot(s)) => Some(*s),
            _ => None,
        }
    }

    fn in_parameter_or_constant(&self, v: ValueId) -> bool {
        matches!(
            self.placements.get(v.index()),
            Some(Placement::Parameter(_) | Placement::Constant)
        )
    }

    fn only_reader(&self, v: ValueId) -> bool {
        self.uses.get(&v).copied().unwrap_or(0) == 1
    }

    /// Joins the buffers of `values` (those that have slots).
    fn join(&mut self, values: &[ValueId]) {
        let slots: Vec<usize> = values.iter().filter_map(|&v| self.slot(v)).collect();
        let Some(&first) = slots.first() else {
            return;
        };
        let a = self.find(first);
        for &s in &slots[1..] {
            let b = self.find(s);
            if a != b {
                self.parent[b] = a;
                self.resident[a] |= self.resident[b];
            }
        }
    }

    fn update_in_place(&mut self, op: &Op) {
        let (Some(&target), Some(&result)) = (op.operands.first(), op.results.first()) else {
            return;
        };
        if self.only_reader(target) && self.slot(target).is_some() {
            self.join(&[target, result]);
        }
    }

    fn loop_state(&mut self, op: &Op) {
        let arg = |region: usize, k: usize| {
            op.regions
                .get(region)
                .and_then(|r| r.entry())
                .and_then(|b| b.args.get(k).copied())
        };
        let body_return = op
            .regions
            .get(1)
            .and_then(|r| r.entry())
            .and_then(|b| b.ops.last());
        for (k, &result) in op.results.iter().enumerate() {
            let mut state = vec![result];
            state.extend(arg(0, k));
            state.extend(arg(1, k));
            let operand = op.operands.get(k).copied();
            let passed_through =
                arg(1, k).is_some_and(|a| body_return.and_then(|r| r.operands.get(k)) == Some(&a));
            if let Some(x) = operand {
                if self.only_reader(x) || passed_through {
                    state.push(x);
                }
            }
            self.join(&state);
            if passed_through && operand.is_some_and(|x| self.in_parameter_or_constant(x)) {
                if let Some(s) = self.slot(result) {
                    let r = self.find(s);
                    self.resident[r] = true;
                }
            }
        }
    }
}
