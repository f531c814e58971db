//! Algebraic simplification and canonicalisation (XLA's `AlgebraicSimplifier`): identity and
//! absorbing elements, involutions, redundant data movement, exact conversion chains, selects
//! and comparisons whose answer is known, dots with nothing to contract, reductions over
//! nothing. Rules are grouped by family: [`algebra`] for elementwise ops (tables of identities
//! and the element types they are exact for), [`shape`] for data movement; [`splat`]
//! recognises the constants they match.
//!
//! The pass runs the forward rewrite driver until nothing changes (at most
//! [`MAX_ROUNDS`] rounds); ops left without uses are for `dce` to remove.

pub mod algebra;
pub mod shape;
pub mod splat;

use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action, Rewriter};
use systolic_ir::{Diagnostic, Module, Op, OpKind, ValueId};

/// Rounds of rewriting before the pass stops even if rules still fire.
pub const MAX_ROUNDS: usize = 16;

/// The algebraic simplification pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Simplify;

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            for _ in 0..MAX_ROUNDS {
                if !rewrite_func(func, &mut |rw, op| Ok(simplify_op(rw, op)))? {
                    break;
                }
                changed = true;
            }
        }
        Ok(changed)
    }
}

/// Applies the first rule that fires for `op`.
fn simplify_op(rw: &mut Rewriter<'_, '_>, op: &mut Op) -> Action {
    if algebra::canonicalise(rw, op) {
        rw.mark_changed();
    }
    match rule(rw, op) {
        Some(values) => Action::Replace(values),
        None => Action::Keep,
    }
}

fn rule(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    use OpKind::*;
    if let Constant(t) = &op.kind {
        return splat::constant_as_broadcast(rw, t);
    }
    if op.operands.is_empty() || op.results.is_empty() {
        return None;
    }
    if matches!(
        op.kind,
        Reshape
            | Transpose { .. }
            | Reverse { .. }
            | Slice { .. }
            | BroadcastInDim { .. }
            | Broadcast { .. }
    ) {
        if let Some(values) = shape::splat_through_data_movement(rw, op) {
            return Some(values);
        }
    }
    match &op.kind {
        Binary(b) => algebra::binary(rw, op, *b),
        Unary(u) => algebra::unary(rw, op, *u),
        Select => algebra::select(rw, op),
        Compare { direction, .. } => algebra::compare(rw, op, *direction),
        Convert => algebra::convert(rw, op),
        Transpose { permutation } => shape::transpose(rw, op, permutation),
        Reshape => shape::reshape(rw, op),
        BroadcastInDim {
            broadcast_dimensions,
        } => shape::broadcast_in_dim(rw, op, broadcast_dimensions),
        Broadcast { broadcast_sizes } => shape::broadcast(op, broadcast_sizes),
        Slice {
            start_indices,
            limit_indices,
            strides,
        } => shape::slice(rw, op, start_indices, limit_indices, strides),
        Pad {
            edge_padding_low,
            edge_padding_high,
            interior_padding,
        } => shape::pad(op, edge_padding_low, edge_padding_high, interior_padding),
        Reverse { dimensions } => shape::reverse(rw, op, dimensions),
        Concatenate { dimension } => shape::concatenate(rw, op, *dimension),
        DynamicSlice { slice_sizes } => shape::dynamic_slice(rw, op, slice_sizes),
        DynamicUpdateSlice => shape::dynamic_update_slice(rw, op),
        GetDimensionSize { dimension } => shape::get_dimension_size(rw, op, *dimension),
        DotGeneral { .. } | Dot { .. } => shape::dot_with_empty_dimension(rw, op),
        Reduce { dimensions } => shape::reduce_over_nothing(rw, op, dimensions),
        _ => None,
    }
}
