//! Reductions with fused producers: `stablehlo.reduce` (or several sibling reduces over the
//! same dimensions) whose inputs are computed on the fly by a loop program (no intermediate
//! buffer), followed by optional elementwise ops on the reduced values. See [`plan`] for the
//! two loop modes and [`reducer`] for the summation order.

pub mod exec;
pub mod plan;
pub mod reducer;

use crate::buffer::CpuBuffer;
use crate::error::Result;
use crate::kernel::{Arg, Kernel};
use crate::kernels::fusion::plan::BlockSpec;
use crate::lower_ctx::LowerCtx;
use plan::{plan_reduction, scalar_constant, ReducePlan};
use systolic_ir::{Op, OpKind};

/// A compiled reduction block.
#[derive(Debug)]
pub struct ReduceKernel {
    name: String,
    plan: ReducePlan,
}

impl ReduceKernel {
    /// The plan it runs.
    pub fn plan(&self) -> &ReducePlan {
        &self.plan
    }
}

impl Kernel for ReduceKernel {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let buffers: Vec<&CpuBuffer> = args.iter().map(|a| a.buffer()).collect();
        exec::run(&self.plan, &buffers)
    }
}

/// A reduction kernel for a block containing reduces, or `None` when it has no native form.
pub fn lower_reduction_block(
    name: String,
    block: &BlockSpec,
    ctx: &LowerCtx,
) -> Option<Box<dyn Kernel>> {
    let type_of = |v| ctx.tensor_type(v).ok().cloned();
    let plan = plan_reduction(block, &type_of, &|v| {
        ctx.constant(v).and_then(scalar_constant)
    })
    .ok();
    // A row program when the plain reduction cannot take the block (reduces feeding later
    // work over the rows: softmax, layer norm) or would make a second pass over the rows for
    // its epilogue.
    let full_epilogue = plan.as_ref().is_some_and(|p| {
        let full = p.kept * p.reduced;
        p.reduced > 1
            && p.epilogue
                .as_ref()
                .is_some_and(|e| e.stages.iter().any(|s| s.len == full))
    });
    if plan.is_none() || full_epilogue {
        if let Ok(rows) = super::rows::plan_row_block(block, &type_of) {
            return Some(Box::new(super::rows::RowKernel::new(name, rows)));
        }
    }
    Some(Box::new(ReduceKernel { name, plan: plan? }))
}

/// A reduction kernel for a standalone `stablehlo.reduce` (`Ok(None)` when it has no native
/// form: the interpreter fallback runs it).
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    if !matches!(op.kind, OpKind::Reduce { .. }) {
        return Ok(None);
    }
    let block = BlockSpec::of_op(op);
    let name = match ctx.operand_types(op) {
        Ok(types) if !types.is_empty() => format!("reduce {}", types[0]),
        _ => "reduce".to_string(),
    };
    Ok(lower_reduction_block(name, &block, ctx))
}
