//! Fusion: groups ops into `systolic.fusion` ops, each of which a backend runs as one kernel,
//! so intermediate values stay in registers instead of going through memory (XLA's
//! instruction fusion and multi-output fusion, simplified).
//!
//! # Policy
//!
//! Each block is fused on its own; nothing crosses control flow (the blocks of `while`, `if`
//! and `case` bodies are fused inside, separately; reduce and sort bodies are left alone).
//! Ops are visited last to first (consumers before producers, see [`plan`]):
//!
//! - **Loop** fusions: chains of elementwise ops (unary, binary, CHLO, compare, select, clamp,
//!   convert, same-shape bitcast_convert, reduce_precision) over one shape, with the
//!   `broadcast_in_dim`s, `iota`s, scalar constants and `reshape`/`transpose`/`slice`s they
//!   read fused in as index mappings, never materialised. An elementwise producer joins only
//!   an elementwise consumer of its own shape (no computed value flows through a broadcast or a
//!   transpose inside a fusion).
//! - **Reduction** fusions: a `reduce` with the elementwise producers of its inputs (over the
//!   input shape) and its scalar-constant init values, plus elementwise consumers of its
//!   results (over the result shape) when the reduce feeds nothing else.
//! - **Row** fusions ([`rows`], kind `reduction`): a reduce over the innermost dimensions
//!   whose per-row results are broadcast back into work over the same rows (softmax, layer
//!   norm) grows, after the steps above, into one fusion with its neighbouring fusions and ops
//!   while every value stays row-local (over the rows, or one per row) and no cycle appears;
//!   the backend runs it row block by row block in cache.
//! - **Product** fusions: a `dot_general` or `convolution` with an elementwise epilogue over its
//!   result shape (bias add through a broadcast, activation). Its operands stay materialised
//!   (the gemm reads them with strides; see the `layout` pass).
//! - **Several readers**: a producer all of whose readers are in one fusion joins it. Otherwise
//!   it is *duplicated* into each reading fusion only when cheap: views (broadcast, iota, scalar
//!   constant, reshape, transpose, slice) into every reader, elementwise ops that are not
//!   transcendental or divisions (see [`classify`]) into at most [`plan::MAX_COPIES`] — but
//!   not when the op is written out anyway (some reader cannot fuse it) and a copy would read
//!   two or more arrays of its size: then its readers read the one written array back (a relu
//!   mask feeding a product and a bias-gradient sum); an
//!   expensive op, a reduce or a product is computed once and its result written out. An
//!   expensive elementwise op that a loop fusion reads over the loop's shape becomes an extra
//!   output of that loop (producer-consumer multi-output fusion) unless one of its other
//!   readers leads back into the loop.
//! - **Siblings** ([`siblings`]): two loop fusions of one shape, or two reductions over the same
//!   dimensions of one input shape, that read the same non-scalar value and are independent
//!   become one multi-output fusion (the shared input is read once).
//! - **Alone**: calls, control flow, side effects, custom calls, sort, gather/scatter, rng,
//!   collectives, non-scalar constants, `dot`, ops on tuples and tokens, and existing fusions.
//!   A group with fewer than two ops doing work (scalar constants do not count) is not made a
//!   fusion.
//!
//! A fusion's region takes every value its members read from outside as a block argument, in
//! order of first use, and returns the values read outside it; those keep their SSA names, so
//! nothing else changes. Results and semantics are unchanged bit for bit (the interpreter runs
//! the region op by op).

pub mod classify;
pub mod emit;
pub mod graph;
pub mod plan;
pub mod rows;
pub mod siblings;

use crate::pass::Pass;
use emit::{emit_block, Namer};
use graph::BlockGraph;
use systolic_ir::{Block, Diagnostic, Func, Module, OpKind, Region};

/// The fusion pass (see the module documentation for the policy).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fusion;

impl Pass for Fusion {
    fn name(&self) -> &'static str {
        "fusion"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= fuse_func(func)?;
        }
        Ok(changed)
    }
}

/// Fuses every block of `func`; returns whether any fusion was made.
pub fn fuse_func(func: &mut Func) -> Result<bool, Diagnostic> {
    let mut namer = Namer::for_func(func);
    let mut body = std::mem::take(&mut func.body);
    let result = fuse_region(func, &mut body, &mut namer);
    func.body = body;
    result
}

/// True for the ops whose regions are blocks of the program (fused separately), as opposed to
/// scalar computations (reduce, sort, scatter bodies) or fusions.
fn is_control_flow(kind: &OpKind) -> bool {
    matches!(kind, OpKind::While | OpKind::If | OpKind::Case)
}

fn fuse_region(
    func: &mut Func,
    region: &mut Region,
    namer: &mut Namer,
) -> Result<bool, Diagnostic> {
    let mut changed = false;
    for block in &mut region.blocks {
        for op in &mut block.ops {
            if is_control_flow(&op.kind) {
                for r in &mut op.regions {
                    changed |= fuse_region(func, r, namer)?;
                }
            }
        }
        changed |= fuse_block(func, block, namer)?;
    }
    Ok(changed)
}

fn fuse_block(func: &mut Func, block: &mut Block, namer: &mut Namer) -> Result<bool, Diagnostic> {
    let graph = BlockGraph::new(func, &block.ops);
    let mut plan = plan::plan_block(func, &block.ops, &graph);
    siblings::merge_siblings(func, &graph, &mut plan);
    rows::merge_rows(func, &block.ops, &graph, &mut plan);
    plan::restore_needed_ops(&graph, &mut plan);
    if !plan.groups.iter().any(|g| g.alive) {
        return Ok(false);
    }
    let ops = std::mem::take(&mut block.ops);
    block.ops = emit_block(func, ops, &graph, &plan, namer)?;
    Ok(true)
}
