//! Product fusions (`systolic.fusion` of kind `product`): a `dot_general` or `convolution`
//! with the elementwise ops the fusion pass grouped around it (operand converts, bias,
//! activation).
//!
//! The region's ops are lowered one by one through the kernel router and run in order over a
//! small value table, so the product runs on its fast kernel and each epilogue op on its own
//! native kernel; a value produced inside the fusion is handed to its last reader by value, so
//! elementwise kernels can update it in place. If any inner op has no native kernel the whole
//! fusion is declined (`Ok(None)`) and runs on the interpreter fallback.

use crate::buffer::CpuBuffer;
use crate::cpu_bail;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::lower_ctx::LowerCtx;
use std::collections::HashMap;
use systolic_ir::{Op, ValueId};

/// One inner op: its kernel and where its operands come from.
#[derive(Debug)]
struct Step {
    kernel: Box<dyn Kernel>,
    operands: Vec<ValueId>,
    /// For each operand: true when this step is its last reader and the value was made
    /// inside the fusion (so it may be moved into the kernel).
    moves: Vec<bool>,
    results: Vec<ValueId>,
}

/// A product fusion as a sequence of native kernels.
#[derive(Debug)]
pub struct ProductFusionKernel {
    name: String,
    inputs: Vec<ValueId>,
    steps: Vec<Step>,
    outputs: Vec<ValueId>,
}

/// Lowers a product fusion; `Ok(None)` for other ops or when an inner op has no native kernel.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let Some(super::ProductFusion {
        name,
        block,
        body,
        ret,
    }) = super::product_fusion(op)
    else {
        return Ok(None);
    };
    let mut steps = Vec::with_capacity(body.len());
    for inner in body {
        match crate::kernels::lower_native(inner, ctx)? {
            Some(kernel) => steps.push(Step {
                kernel,
                operands: inner.operands.clone(),
                moves: vec![false; inner.operands.len()],
                results: inner.results.clone(),
            }),
            None => return Ok(None),
        }
    }
    mark_moves(&mut steps, &ret.operands);
    Ok(Some(Box::new(ProductFusionKernel {
        name: format!("{name} (product)"),
        inputs: block.args.clone(),
        steps,
        outputs: ret.operands.clone(),
    })))
}

/// Marks, for each value made inside the fusion, the operand slot of its last reader when that
/// reader uses it once and it is not a result of the fusion.
fn mark_moves(steps: &mut [Step], outputs: &[ValueId]) {
    let made: Vec<ValueId> = steps.iter().flat_map(|s| s.results.clone()).collect();
    let mut last: HashMap<ValueId, (usize, usize)> = HashMap::new();
    for (i, step) in steps.iter().enumerate() {
        for (j, v) in step.operands.iter().enumerate() {
            last.insert(*v, (i, j));
        }
    }
    for (v, (i, j)) in last {
        let uses_in_step = steps[i].operands.iter().filter(|&&o| o == v).count();
        if made.contains(&v) && !outputs.contains(&v) && uses_in_step == 1 {
            steps[i].moves[j] = true;
        }
    }
}

/// A value of the fusion's table: an argument (as given) or a buffer made inside.
enum Slot<'a> {
    Input(Arg<'a>),
    Made(CpuBuffer),
}

impl Slot<'_> {
    fn buffer(&self) -> &CpuBuffer {
        match self {
            Slot::Input(a) => a.buffer(),
            Slot::Made(b) => b,
        }
    }
}

impl Kernel for ProductFusionKernel {
    fn name(&self) -> String {
        let inner: Vec<String> = self.steps.iter().map(|s| s.kernel.name()).collect();
        format!("{}: {}", self.name, inner.join("; "))
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        if args.len() != self.inputs.len() {
            cpu_bail!(
                "{} takes {} operands, got {}",
                self.name,
                self.inputs.len(),
                args.len()
            );
        }
        let mut table: HashMap<ValueId, Slot> = self
            .inputs
            .iter()
            .copied()
            .zip(args.into_iter().map(Slot::Input))
            .collect();
        let missing =
            |v: &ValueId| CpuError::new(format!("{}: value {v:?} is not defined", self.name));
        for step in &self.steps {
            let mut moved: Vec<Option<CpuBuffer>> = Vec::with_capacity(step.operands.len());
            for (v, &mv) in step.operands.iter().zip(&step.moves) {
                moved.push(match mv {
                    true => match table.remove(v) {
                        Some(Slot::Made(b)) => Some(b),
                        Some(other) => {
                            table.insert(*v, other);
                            None
                        }
                        None => return Err(missing(v)),
                    },
                    false => None,
                });
            }
            let mut kernel_args = Vec::with_capacity(step.operands.len());
            for (v, m) in step.operands.iter().zip(moved) {
                kernel_args.push(match m {
                    Some(b) => Arg::Owned(b),
                    None => Arg::Borrowed(table.get(v).ok_or_else(|| missing(v))?.buffer()),
                });
            }
            let results = step.kernel.run(kernel_args)?;
            if results.len() != step.results.len() {
                cpu_bail!(
                    "{}: {} gave {} results, expected {}",
                    self.name,
                    step.kernel.name(),
                    results.len(),
                    step.results.len()
                );
            }
            for (v, b) in step.results.iter().zip(results) {
                table.insert(*v, Slot::Made(b));
            }
        }
        let mut out = Vec::with_capacity(self.outputs.len());
        for (i, v) in self.outputs.iter().enumerate() {
            let again = self.outputs[i + 1..].contains(v);
            out.push(match table.remove(v) {
                Some(Slot::Made(b)) if !again => b,
                Some(slot) => {
                    let b = slot.buffer().clone();
                    table.insert(*v, slot);
                    b
                }
                None => return Err(missing(v)),
            });
        }
        Ok(out)
    }
}
