//! `stablehlo.reduce_window` with any body the loop compiler covers and any number of inputs
//! (argmax-style windows of (value, index) pairs), and the sub-byte integers: the body runs as
//! a vector program ([`RegionProgram`]) over batches of windows.
//!
//! Windows are independent, so a batch holds up to [`WIDTH`] of them: for each window position
//! in row-major order, lane `i` folds the element at that position of window `i` (the init
//! values on holes) into its accumulators — the interpreter's sequence of calls for every
//! window. Batches are split across threads.

use super::geometry::{next_index, unravel, Windows};
use crate::buffer::{CpuBuffer, Storage};
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::region::{gather_into, RegionProgram, WIDTH};
use rayon::prelude::*;
use systolic_ir::TensorType;

/// Batches per thread task.
const TASK_BATCHES: usize = 4;

/// Largest table of window offsets a batch builds.
const OFFSETS_PER_BATCH: usize = 1 << 16;

/// The compiled reduce_window of `inputs.len()` inputs through a general body.
#[derive(Debug)]
pub struct RegionReduceWindowKernel {
    /// The planned windows.
    pub windows: Windows,
    /// The body: `(accumulators..., elements...) -> accumulators...`.
    pub region: RegionProgram,
    /// The input types.
    pub inputs: Vec<TensorType>,
    /// The result types.
    pub results: Vec<TensorType>,
}

impl RegionReduceWindowKernel {
    /// True when `region` fits the inputs (its arguments: the dtypes twice; its results and the
    /// op's: the dtypes; init values of the inputs' dtypes).
    pub fn fits(
        region: &RegionProgram,
        inputs: &[&TensorType],
        inits: &[&TensorType],
        results: &[&TensorType],
    ) -> bool {
        let dtypes: Vec<_> = inputs.iter().map(|t| t.dtype).collect();
        let n = dtypes.len();
        let same = |ts: &[&TensorType]| ts.iter().map(|t| t.dtype).eq(dtypes.iter().copied());
        region.arg_dtypes.len() == 2 * n
            && region.arg_dtypes[..n] == dtypes[..]
            && region.arg_dtypes[n..] == dtypes[..]
            && region.result_dtypes == dtypes
            && same(inits)
            && same(results)
            && inits.iter().all(|t| t.rank() == 0)
            && inputs.iter().all(|t| t.shape == inputs[0].shape)
    }

    /// Results of windows `first..first + count` (one storage per result).
    fn batch(
        &self,
        xs: &[&Storage],
        inits: &[&Storage],
        first: usize,
        count: usize,
    ) -> Vec<Storage> {
        let n = self.inputs.len();
        let rank = self.windows.size.len();
        let per_window: usize = self.windows.size.iter().product();
        let mut out: Vec<Storage> = self
            .results
            .iter()
            .map(|t| Storage::zeros(t.dtype, count))
            .collect();
        let mut scratch = self.region.scratch();
        // Windows per batch: at most WIDTH, fewer for large windows (bounded offset tables).
        let width = (OFFSETS_PER_BATCH / per_window.max(1)).clamp(1, WIDTH);
        let mut offsets: Vec<Option<usize>> = vec![None; width * per_window];
        let mut index = unravel(first, &self.windows.out_shape);
        let mut pos = vec![0; rank];
        let mut done = 0;
        while done < count {
            let len = width.min(count - done);
            for w in 0..len {
                let mut p = 0;
                let row = &mut offsets[w * per_window..(w + 1) * per_window];
                self.windows.for_each_position(&index, &mut pos, |o| {
                    row[p] = o;
                    p += 1;
                });
                next_index(&mut index, &self.windows.out_shape);
            }
            for (k, init) in inits.iter().enumerate() {
                gather_into(scratch.args[k].storage_mut(), init, Some(init), len, |_| {
                    None
                });
            }
            for p in 0..per_window {
                for (k, (x, init)) in xs.iter().zip(inits).enumerate() {
                    gather_into(scratch.args[n + k].storage_mut(), x, Some(init), len, |w| {
                        offsets[w * per_window + p]
                    });
                }
                self.region.run(&mut scratch, len);
                for k in 0..n {
                    std::mem::swap(scratch.args[k].storage_mut(), &mut scratch.outs[k]);
                }
            }
            for (k, o) in out.iter_mut().enumerate() {
                crate::kernels::region::scatter_from(o, scratch.args[k].storage(), len, |w| {
                    done + w
                });
            }
            done += len;
        }
        out
    }
}

impl Kernel for RegionReduceWindowKernel {
    fn name(&self) -> String {
        format!(
            "reduce_window (region) {} inputs {} -> {}",
            self.inputs.len(),
            self.inputs[0],
            self.results[0]
        )
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let n = self.inputs.len();
        if args.len() != 2 * n {
            return Err(CpuError::new(format!(
                "reduce_window expects {n} inputs and {n} init values, got {} operands",
                args.len()
            )));
        }
        let xs: Vec<&Storage> = args[..n].iter().map(|a| a.buffer().storage()).collect();
        let inits: Vec<&Storage> = args[n..].iter().map(|a| a.buffer().storage()).collect();
        for (k, a) in args[..n].iter().enumerate() {
            if a.buffer().ty() != &self.inputs[k] || inits[k].len() != 1 {
                return Err(CpuError::new(format!(
                    "reduce_window: input {k} {} or its init value does not have the compiled type",
                    a.buffer().ty()
                )));
            }
        }
        let count = self.windows.count();
        let task = WIDTH * TASK_BATCHES;
        let parts: Vec<Vec<Storage>> = if count > task {
            // On the backend's pool even from a program small enough to run on the caller's
            // thread: the region's arithmetic relies on the pool threads' FTZ/DAZ mode.
            crate::threads::run(|| {
                (0..count.div_ceil(task))
                    .into_par_iter()
                    .map(|t| self.batch(&xs, &inits, t * task, task.min(count - t * task)))
                    .collect()
            })
        } else {
            vec![self.batch(&xs, &inits, 0, count)]
        };
        let mut results: Vec<Storage> = self
            .results
            .iter()
            .map(|t| Storage::zeros(t.dtype, count))
            .collect();
        let mut at = 0;
        for part in &parts {
            let len = part[0].len();
            for (r, p) in results.iter_mut().zip(part) {
                crate::kernels::region::scatter_from(r, p, len, |i| at + i);
            }
            at += len;
        }
        results
            .into_iter()
            .zip(&self.results)
            .map(|(s, t)| {
                CpuBuffer::new(t.clone(), s)
                    .map_err(|e| CpuError::new(format!("reduce_window: {e}")))
            })
            .collect()
    }
}
