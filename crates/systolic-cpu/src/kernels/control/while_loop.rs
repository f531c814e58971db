//! `stablehlo.while`: runs the body while the condition holds; carried values move from one
//! iteration to the next without copies.

use crate::error::{CpuError, Result};
use crate::program::{Program, RtValue, ValueArg, ValueKernel};

/// A while loop. Operands: the initial carried values, then the values the regions capture.
#[derive(Debug)]
pub struct WhileKernel {
    cond: Program,
    body: Program,
    num_carried: usize,
}

impl WhileKernel {
    /// A loop from its lowered regions; both take the carried values then the captures.
    pub fn new(cond: Program, body: Program, num_carried: usize) -> WhileKernel {
        WhileKernel {
            cond,
            body,
            num_carried,
        }
    }
}

impl ValueKernel for WhileKernel {
    fn name(&self) -> String {
        format!("while ({} carried values)", self.num_carried)
    }

    fn run(&self, mut args: Vec<ValueArg<'_>>) -> Result<Vec<RtValue>> {
        if args.len() < self.num_carried {
            return Err(CpuError::new(format!(
                "while expects at least {} operands, got {}",
                self.num_carried,
                args.len()
            )));
        }
        let captures = args.split_off(self.num_carried);
        let mut carried: Vec<RtValue> = args.into_iter().map(ValueArg::into_owned).collect();
        // Iterations finished, for the message of a run stopped by its time limit.
        let mut iterations = 0u64;
        let stopped = |e: CpuError, iterations: u64| {
            if systolic_ir::deadline::check().is_err() {
                CpuError::new(format!(
                    "{}; a while loop had run {iterations} iterations",
                    e.message
                ))
            } else {
                e
            }
        };
        loop {
            // Checked here too: a body with no kernels never reaches a program's own check.
            if let Err(e) = systolic_ir::deadline::check() {
                return Err(stopped(CpuError::new(e.to_string()), iterations));
            }
            let inputs = carried
                .iter()
                .map(ValueArg::Value)
                .chain(captures.iter().map(ValueArg::reborrow))
                .collect();
            let cond = self.cond.run(inputs).map_err(|e| stopped(e, iterations))?;
            if !predicate(&cond, "while condition")? {
                return Ok(carried);
            }
            let inputs = carried
                .into_iter()
                .map(ValueArg::Owned)
                .chain(captures.iter().map(ValueArg::reborrow))
                .collect();
            carried = self.body.run(inputs).map_err(|e| stopped(e, iterations))?;
            iterations += 1;
        }
    }
}

/// The boolean a condition region returns (`tensor<i1>`).
pub(super) fn predicate(values: &[RtValue], what: &str) -> Result<bool> {
    match values {
        [RtValue::Buffer(b)] => match b.storage() {
            crate::buffer::Storage::Bool(v) if v.len() == 1 => Ok(v[0]),
            _ => Err(CpuError::new(format!(
                "{what} returned {}, tensor<i1> was expected",
                b.ty()
            ))),
        },
        _ => Err(CpuError::new(format!(
            "{what} returned {} values, one tensor<i1> was expected",
            values.len()
        ))),
    }
}
