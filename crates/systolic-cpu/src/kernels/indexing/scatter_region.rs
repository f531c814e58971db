//! `stablehlo.scatter` with any update computation the loop compiler covers, and with several
//! inputs (variadic scatter): the region runs as a vector program ([`RegionProgram`]) over
//! batches of updates.
//!
//! The interpreter applies updates one at a time in row-major order of the updates. A batch
//! here is a maximal run of consecutive updates (at most [`WIDTH`]) whose targets are distinct:
//! no update of the batch reads a value another one writes, so running them together gives
//! the sequential result, duplicate indices included (a repeated target starts a new batch).
//! Windows that do not fit are skipped whole, as in [`super::scatter`].

use super::indices::as_i64;
use super::scatter::ScatterGeometry;
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::region::{gather_into, scatter_from, RegionProgram, WIDTH};
use systolic_ir::TensorType;

/// The compiled scatter of `inputs.len()` inputs through a general region.
#[derive(Debug)]
pub struct RegionScatterKernel {
    /// Where updates go (planned on input 0 and updates 0; the others share their shapes).
    pub geometry: ScatterGeometry,
    /// The update computation: `(current..., update...) -> new...`.
    pub region: RegionProgram,
    /// The input (and result) types.
    pub inputs: Vec<TensorType>,
}

impl RegionScatterKernel {
    /// Checks that `region` fits inputs of `inputs` (args: the inputs' dtypes twice; results:
    /// the inputs' dtypes).
    pub fn fits(region: &RegionProgram, inputs: &[&TensorType]) -> bool {
        let dtypes: Vec<_> = inputs.iter().map(|t| t.dtype).collect();
        region.arg_dtypes.len() == 2 * dtypes.len()
            && region.arg_dtypes[..dtypes.len()] == dtypes[..]
            && region.arg_dtypes[dtypes.len()..] == dtypes[..]
            && region.result_dtypes == dtypes
    }
}

impl Kernel for RegionScatterKernel {
    fn name(&self) -> String {
        format!(
            "scatter (region) {} inputs {} <- {}",
            self.inputs.len(),
            self.geometry.input(),
            self.geometry.updates()
        )
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let n = self.inputs.len();
        if args.len() != 2 * n + 1 {
            return Err(CpuError::new(format!(
                "scatter expects {n} inputs, scatter indices and {n} updates, got {} operands",
                args.len()
            )));
        }
        let mut args = args.into_iter();
        let mut results: Vec<CpuBuffer> = (&mut args).take(n).map(Arg::into_owned).collect();
        let indices = args.next().expect("counted above");
        let updates: Vec<Arg<'_>> = args.collect();
        for (k, (r, u)) in results.iter().zip(&updates).enumerate() {
            let u = u.buffer().ty();
            if r.ty() != &self.inputs[k]
                || u.shape != self.geometry.updates().shape
                || u.dtype != self.inputs[k].dtype
            {
                return Err(CpuError::new(format!(
                    "scatter: input {k} {} or update {k} {} does not have the compiled type",
                    r.ty(),
                    u
                )));
            }
        }
        let starts = self
            .geometry
            .window_starts(&as_i64(indices.buffer(), "scatter_indices")?);
        let mut pairs: Vec<(usize, usize)> = vec![];
        self.geometry
            .for_each_target(&starts, |u, t| pairs.push((u, t)));
        if pairs.is_empty() {
            return Ok(results);
        }
        let mut scratch = self.region.scratch();
        // `seen[t]` is the number of the last batch that targets `t`.
        let mut seen = vec![0u32; self.geometry.input().num_elements()];
        let mut batch_id = 1u32;
        let mut begin = 0;
        let flush = |batch: &[(usize, usize)],
                     scratch: &mut crate::kernels::region::Scratch,
                     results: &mut [CpuBuffer]| {
            let len = batch.len();
            for k in 0..n {
                let (cur, upd) = scratch.args.split_at_mut(n);
                gather_into(cur[k].storage_mut(), results[k].storage(), None, len, |i| {
                    Some(batch[i].1)
                });
                gather_into(
                    upd[k].storage_mut(),
                    updates[k].buffer().storage(),
                    None,
                    len,
                    |i| Some(batch[i].0),
                );
            }
            self.region.run(scratch, len);
            for (k, r) in results.iter_mut().enumerate() {
                scatter_from(r.storage_mut(), &scratch.outs[k], len, |i| batch[i].1);
            }
        };
        for i in 0..pairs.len() {
            let t = pairs[i].1;
            if seen[t] == batch_id || i - begin == WIDTH {
                flush(&pairs[begin..i], &mut scratch, &mut results);
                begin = i;
                batch_id += 1;
            }
            seen[t] = batch_id;
        }
        flush(&pairs[begin..], &mut scratch, &mut results);
        Ok(results)
    }
}
