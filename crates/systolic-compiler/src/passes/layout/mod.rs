//! Layout choice for the CPU: every array is dense row-major, and the matrix kernels read
//! their operands through strides, so data movement that only renames dimensions is folded
//! away instead of being copied.
//!
//! What the pass does, in each block:
//!
//! 1. **Transposed operands**: `dot_general(transpose(x), y)` reads `x` directly with its
//!    batch and contracting dimensions renamed through the permutation, when the permutation
//!    keeps the operand's free dimensions in order (otherwise the result itself would come out
//!    transposed). The gemm takes any strides, so the copy is saved. A `convolution` names
//!    every dimension's role in its dimension numbers, so any transpose of its input or kernel
//!    is read through.
//! 2. **Transposed results**: `transpose(dot_general(a, b))` that puts the right operand's
//!    free dimensions before the left's (`(a·b)ᵀ`) becomes `dot_general(b, a)` when the dot has no
//!    other reader. Products commute and the accumulation order is unchanged: bit for bit the
//!    same result. A transposed convolution with no other reader writes its output in the
//!    transposed order (its output dimension numbers are permuted).
//! 3. **Bitcast transposes**: a transpose that only moves dimensions of size 1 moves no element
//!    in the row-major layout; it becomes a `reshape`. Reshapes are bitcasts here: buffer
//!    assignment gives a reshape its operand's buffer, no copy.
//!
//! Transposes left without readers by rules 1 and 2 are removed. Nothing else changes.

pub mod dims;

use crate::pass::Pass;
use std::collections::HashMap;
use systolic_ir::walk::{walk_blocks_mut, walk_ops};
use systolic_ir::{Block, Diagnostic, Func, Module, Op, OpKind, ValueId};

/// The layout pass (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct Layout;

/// What the pass did to one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutStats {
    /// Transposes read through by a dot's dimension numbers (rule 1).
    pub dot_operands: usize,
    /// Transposed dots turned into operand-swapped dots (rule 2).
    pub swapped_dots: usize,
    /// Transposes that became reshapes (rule 3).
    pub bitcasts: usize,
    /// Transposes read through by a convolution's dimension numbers (rule 1).
    pub conv_operands: usize,
    /// Transposed convolutions writing their output transposed (rule 2).
    pub conv_results: usize,
}

impl LayoutStats {
    fn any(&self) -> bool {
        self.dot_operands
            + self.swapped_dots
            + self.bitcasts
            + self.conv_operands
            + self.conv_results
            > 0
    }
}

impl Pass for Layout {
    fn name(&self) -> &'static str {
        "layout"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= layout_func(func).any();
        }
        Ok(changed)
    }
}

/// Applies the layout rules to every block of `func`.
pub fn layout_func(func: &mut Func) -> LayoutStats {
    let mut body = std::mem::take(&mut func.body);
    let mut uses: HashMap<ValueId, usize> = HashMap::new();
    walk_ops(&body, &mut |op, _| {
        for &v in &op.operands {
            *uses.entry(v).or_default() += 1;
        }
    });
    let mut stats = LayoutStats::default();
    walk_blocks_mut(&mut body, &mut |block| {
        layout_block(func, block, &mut uses, &mut stats)
    });
    func.body = body;
    stats
}

/// `kind` (a dot_general or convolution) reading its operand `side` as `transpose(x, perm)`
/// directly from `x`, if that gives the same result.
fn read_through(kind: &OpKind, side: usize, perm: &[i64]) -> Option<OpKind> {
    let mut kind = kind.clone();
    match &mut kind {
        OpKind::DotGeneral {
            dimension_numbers: dn,
            ..
        } => {
            let (batch, contracting) = if side == 0 {
                (
                    &mut dn.lhs_batching_dimensions,
                    &mut dn.lhs_contracting_dimensions,
                )
            } else {
                (
                    &mut dn.rhs_batching_dimensions,
                    &mut dn.rhs_contracting_dimensions,
                )
            };
            (*batch, *contracting) = dims::absorb_operand_transpose(perm, batch, contracting)?;
        }
        OpKind::Convolution(attrs) => {
            let dn = &mut attrs.dimension_numbers;
            let ok = if side == 0 {
                dims::permute_conv_input(dn, perm)
            } else {
                dims::permute_conv_kernel(dn, perm)
            };
            if !ok {
                return None;
            }
        }
        _ => return None,
    }
    Some(kind)
}

/// True when `op` has the operand and result counts the rules index by (a verified module
/// always does; anything else is left alone rather than indexed out of bounds).
fn well_formed(op: &Op) -> bool {
    let operands = match op.kind {
        OpKind::Transpose { .. } => 1,
        OpKind::DotGeneral { .. } | OpKind::Convolution(_) => 2,
        _ => return false,
    };
    op.operands.len() == operands && op.results.len() == 1
}

fn shape(func: &Func, v: ValueId) -> Option<&[i64]> {
    func.value_type(v).as_tensor().map(|t| t.shape.as_slice())
}

fn layout_block(
    func: &Func,
    block: &mut Block,
    uses: &mut HashMap<ValueId, usize>,
    stats: &mut LayoutStats,
) {
    let def: HashMap<ValueId, usize> = block
        .ops
        .iter()
        .enumerate()
        .flat_map(|(i, op)| op.results.iter().map(move |&r| (r, i)))
        .collect();
    let mut dead = vec![false; block.ops.len()];

    // Rule 1: read transposed operands directly.
    for i in 0..block.ops.len() {
        for side in 0..2 {
            let op = &block.ops[i];
            if !matches!(op.kind, OpKind::DotGeneral { .. } | OpKind::Convolution(_))
                || !well_formed(op)
            {
                break;
            }
            let Some(&t) = op.operands.get(side).and_then(|v| def.get(v)) else {
                continue;
            };
            let OpKind::Transpose { permutation } = &block.ops[t].kind else {
                continue;
            };
            if !well_formed(&block.ops[t]) {
                continue;
            }
            let Some(kind) = read_through(&op.kind, side, permutation) else {
                continue;
            };
            let source = block.ops[t].operands[0];
            let op = &mut block.ops[i];
            let old = std::mem::replace(&mut op.operands[side], source);
            if matches!(kind, OpKind::Convolution(_)) {
                stats.conv_operands += 1;
            } else {
                stats.dot_operands += 1;
            }
            op.kind = kind;
            *uses.entry(source).or_default() += 1;
            let left = uses.entry(old).or_default();
            *left = left.saturating_sub(1);
            if *left == 0 {
                dead[t] = true;
            }
        }
    }

    // Rule 2b: a transposed convolution writes its output in the transposed order.
    for t in 0..block.ops.len() {
        let OpKind::Transpose { permutation } = &block.ops[t].kind else {
            continue;
        };
        let Some(&c) = block.ops[t].operands.first().and_then(|v| def.get(v)) else {
            continue;
        };
        let conv = &block.ops[c];
        let OpKind::Convolution(attrs) = &conv.kind else {
            continue;
        };
        if !well_formed(conv) || !well_formed(&block.ops[t]) {
            continue;
        }
        let only_reader = uses.get(&conv.results[0]).copied() == Some(1);
        if dead[t] || dead[c] || !only_reader {
            continue;
        }
        let mut attrs = attrs.clone();
        if !dims::permute_conv_output(&mut attrs.dimension_numbers, permutation) {
            continue;
        }
        let new_result = block.ops[t].results[0];
        let conv = &mut block.ops[c];
        conv.kind = OpKind::Convolution(attrs);
        conv.results[0] = new_result;
        dead[t] = true;
        stats.conv_results += 1;
    }

    // Rule 2: (a·b)ᵀ = b·a when the dot has no other reader.
    for t in 0..block.ops.len() {
        let OpKind::Transpose { permutation } = &block.ops[t].kind else {
            continue;
        };
        let Some(&d) = block.ops[t].operands.first().and_then(|v| def.get(v)) else {
            continue;
        };
        let dot = &block.ops[d];
        let OpKind::DotGeneral {
            dimension_numbers: dn,
            ..
        } = &dot.kind
        else {
            continue;
        };
        if !well_formed(dot) || !well_formed(&block.ops[t]) {
            continue;
        }
        let ranks = match (shape(func, dot.operands[0]), shape(func, dot.operands[1])) {
            (Some(l), Some(r)) => (l.len(), r.len()),
            _ => continue,
        };
        let only_reader = uses.get(&dot.results[0]).copied() == Some(1);
        if dead[t] || dead[d] || !only_reader || !dims::is_operand_swap(permutation, dn, ranks) {
            continue;
        }
        let new_result = block.ops[t].results[0];
        let dot = &mut block.ops[d];
        dot.operands.swap(0, 1);
        if let OpKind::DotGeneral {
            dimension_numbers,
            precision_config,
            algorithm,
        } = &mut dot.kind
        {
            *dimension_numbers = dims::swapped(dimension_numbers);
            precision_config.reverse();
            if let Some(a) = algorithm {
                std::mem::swap(&mut a.lhs_precision_type, &mut a.rhs_precision_type);
                std::mem::swap(&mut a.lhs_component_count, &mut a.rhs_component_count);
            }
        }
        dot.results[0] = new_result;
        dead[t] = true;
        stats.swapped_dots += 1;
    }

    // Rule 3: transposes of unit dimensions are reshapes.
    for (t, op) in block.ops.iter_mut().enumerate() {
        let OpKind::Transpose { permutation } = &op.kind else {
            continue;
        };
        let bitcast = well_formed(op)
            && shape(func, op.operands[0])
                .is_some_and(|s| dims::transpose_is_bitcast(s, permutation));
        if bitcast && !dead[t] {
            op.kind = OpKind::Reshape;
            stats.bitcasts += 1;
        }
    }

    let mut index = 0;
    block.ops.retain(|_| {
        index += 1;
        !dead[index - 1]
    });
}
