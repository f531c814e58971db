//! Indexing kernels: gather and scatter, planned at compile time from the dimension numbers.
//!
//! Gather handles every dimension-number form natively. Scatter with one input and a
//! recognised update computation ([`combine::recognise`]) combines natively element by
//! element; any other update computation the loop compiler covers, several inputs, and the
//! sub-byte integers run the region as a vector program ([`scatter_region`]). Regions the loop
//! compiler does not cover (nested regions, outer values) run on the interpreter fallback.

pub mod combine;
pub mod gather;
pub mod indices;
pub mod scatter;
pub mod scatter_region;
pub mod walk;

use crate::error::Result;
use crate::kernel::Kernel;
use crate::kernels::region::RegionProgram;
use crate::lower_ctx::LowerCtx;
use systolic_ir::{Op, OpKind, ScatterDimensionNumbers, TensorType};

/// An indexing kernel for `op`, or `None` to let the interpreter run it.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let operands = ctx.operand_types(op)?;
    let results = ctx.result_types(op)?;
    match &op.kind {
        OpKind::Gather {
            dimension_numbers,
            slice_sizes,
            ..
        } => {
            let ([operand, indices], [result]) = (operands.as_slice(), results.as_slice()) else {
                return Ok(None);
            };
            Ok(
                gather::plan(operand, indices, dimension_numbers, slice_sizes, result)
                    .map(|k| Box::new(k) as Box<dyn Kernel>),
            )
        }
        OpKind::Scatter {
            dimension_numbers, ..
        } => {
            if let ([input, indices, updates], [result]) = (operands.as_slice(), results.as_slice())
            {
                let combiner = op.regions.first().and_then(combine::recognise);
                if let Some(combiner) = combiner {
                    if combine::valid_for(combiner, input.dtype) && result == input {
                        return Ok(scatter::plan(
                            input,
                            indices,
                            updates,
                            dimension_numbers,
                            combiner,
                        )
                        .map(|k| Box::new(k) as Box<dyn Kernel>));
                    }
                }
            }
            Ok(lower_region_scatter(
                op,
                &operands,
                &results,
                dimension_numbers,
                ctx,
            ))
        }
        _ => Ok(None),
    }
}

/// A scatter of N inputs through its region as a vector program, or `None`.
fn lower_region_scatter(
    op: &Op,
    operands: &[&TensorType],
    results: &[&TensorType],
    dn: &ScatterDimensionNumbers,
    ctx: &LowerCtx,
) -> Option<Box<dyn Kernel>> {
    let n = results.len();
    if n == 0 || operands.len() != 2 * n + 1 {
        return None;
    }
    let (inputs, rest) = operands.split_at(n);
    let (indices, updates) = (rest[0], &rest[1..]);
    let same_shapes = inputs.iter().zip(updates).all(|(i, u)| {
        i.shape == inputs[0].shape && u.shape == updates[0].shape && i.dtype == u.dtype
    });
    if !same_shapes || inputs != results {
        return None;
    }
    let region = RegionProgram::compile(op.regions.first()?, ctx.func())?;
    if !scatter_region::RegionScatterKernel::fits(&region, inputs) {
        return None;
    }
    let geometry = scatter::plan_geometry(inputs[0], indices, updates[0], dn)?;
    Some(Box::new(scatter_region::RegionScatterKernel {
        geometry,
        region,
        inputs: inputs.iter().map(|&t| t.clone()).collect(),
    }))
}
