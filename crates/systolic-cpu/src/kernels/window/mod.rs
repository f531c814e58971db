//! Windowed kernels: reduce_window (pooling) and select_and_scatter (the pooling gradient),
//! over windows planned at compile time ([`geometry`]): strides, base and window dilations and
//! padding (negative too) are all tables, so the run-time loops only add offsets.
//!
//! reduce_window is native for one input with a simple reducer ([`reduce_window`]) and, through
//! a vector program of its body ([`reduce_window_region`]), for any body the loop compiler
//! covers, several inputs and the sub-byte integers. select_and_scatter is native for a
//! comparison `select` and a simple `scatter`; other regions and the sub-byte integers run on
//! the interpreter fallback.

pub mod geometry;
pub mod reduce_window;
pub mod reduce_window_region;
pub mod select_and_scatter;

use crate::error::Result;
use crate::kernel::Kernel;
use crate::kernels::indexing::combine;
use crate::kernels::region::RegionProgram;
use crate::lower_ctx::LowerCtx;
use geometry::Windows;
use reduce_window_region::RegionReduceWindowKernel;
use systolic_ir::{Op, OpKind};

/// A windowed kernel for `op`, or `None` to let the interpreter run it.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let operands = ctx.operand_types(op)?;
    let results = ctx.result_types(op)?;
    match &op.kind {
        OpKind::ReduceWindow { window } => {
            let n = results.len();
            if n == 0 || operands.len() != 2 * n {
                return Ok(None);
            }
            let Ok(window) = window.resolve(operands[0].rank()) else {
                return Ok(None);
            };
            let Some(windows) = Windows::new(&operands[0].shape, &window) else {
                return Ok(None);
            };
            let out_shape: Vec<i64> = windows.out_shape.iter().map(|&s| s as i64).collect();
            if results.iter().any(|r| r.shape != out_shape) {
                return Ok(None);
            }
            let simple = match (operands.as_slice(), results.as_slice()) {
                ([input, init], [result]) => op
                    .regions
                    .first()
                    .and_then(combine::recognise)
                    .filter(|&c| {
                        matches!(c, combine::Combiner::Simple(_))
                            && combine::valid_for(c, input.dtype)
                            && init.dtype == input.dtype
                            && result.dtype == input.dtype
                            && init.rank() == 0
                    })
                    .map(|c| (c, *input, *result)),
                _ => None,
            };
            let Some((combiner, input, result)) = simple else {
                let Some(region) = op
                    .regions
                    .first()
                    .and_then(|r| RegionProgram::compile(r, ctx.func()))
                else {
                    return Ok(None);
                };
                let (inputs, inits) = operands.split_at(n);
                if !RegionReduceWindowKernel::fits(&region, inputs, inits, &results) {
                    return Ok(None);
                }
                return Ok(Some(Box::new(RegionReduceWindowKernel {
                    windows,
                    region,
                    inputs: inputs.iter().map(|&t| t.clone()).collect(),
                    results: results.iter().map(|&t| t.clone()).collect(),
                })));
            };
            Ok(Some(Box::new(reduce_window::ReduceWindowKernel {
                prefix: reduce_window::Prefix::detect(&input.shape, &window),
                combiner,
                windows,
                input: (*input).clone(),
                result: (*result).clone(),
            })))
        }
        OpKind::SelectAndScatter { window } => {
            let ([operand, source, init], [result]) = (operands.as_slice(), results.as_slice())
            else {
                return Ok(None);
            };
            let dtype = operand.dtype;
            let (Some(select), Some(scatter)) = (
                op.regions
                    .first()
                    .and_then(|r| select_and_scatter::recognise_select(r, dtype)),
                op.regions.get(1).and_then(combine::recognise),
            ) else {
                return Ok(None);
            };
            if !combine::valid_for(scatter, dtype)
                || source.dtype != dtype
                || init.dtype != dtype
                || init.rank() != 0
                || result != operand
            {
                return Ok(None);
            }
            if window.has_dilations() {
                return Ok(None);
            }
            let Ok(window) = window.resolve(operand.rank()) else {
                return Ok(None);
            };
            let Some(windows) = Windows::new(&operand.shape, &window) else {
                return Ok(None);
            };
            if windows
                .out_shape
                .iter()
                .map(|&s| s as i64)
                .ne(source.shape.iter().copied())
            {
                return Ok(None);
            }
            Ok(Some(Box::new(select_and_scatter::SelectAndScatterKernel {
                select,
                scatter,
                windows,
                operand: (*operand).clone(),
            })))
        }
        _ => Ok(None),
    }
}
