//! `stablehlo.select_and_scatter` with a comparison as `select` and a simple `scatter` region:
//! the gradient of max pooling (`GE` + `add`) and of min pooling (`LE` + `add`).
//!
//! The interpreter's semantics exactly: in each window the choice starts at the first
//! non-padding position and moves to a later candidate whenever `select(current, candidate)`
//! is false; source values are then combined into the init-filled result in row-major order of
//! the source. Selection runs across threads; the scatter is one ordered pass.

use super::geometry::{next_index, unravel, Windows};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::indexing::combine::{Arith, Combine, Combiner};
use crate::kernels::shape::elem::elems;
use crate::kernels::sort::order::{Ordered, Relation};
use crate::{dispatch_dtype, with_combiner};
use rayon::prelude::*;
use systolic_ir::{OpKind, Region, TensorType};

/// Windows per task when selecting across threads.
const TASK_WINDOWS: usize = 2048;

/// The shortest contiguous run worth [`SelectAndScatterKernel::selected_runs`]'s loop.
const MIN_RUN: usize = 8;

/// The relation a `select` region computes, if it is one comparison of its arguments in order.
pub fn recognise_select(region: &Region, dtype: systolic_ir::DType) -> Option<Relation> {
    let block = region.entry()?;
    let [a, b] = block.args.as_slice() else {
        return None;
    };
    let [cmp, ret] = block.ops.as_slice() else {
        return None;
    };
    let OpKind::Compare {
        direction,
        compare_type,
    } = cmp.kind
    else {
        return None;
    };
    let ok = cmp.operands == [*a, *b]
        && matches!(ret.kind, OpKind::Return(_))
        && ret.operands == cmp.results;
    if !ok {
        return None;
    }
    Relation::new(direction, compare_type, dtype)
}

/// The compiled select_and_scatter.
#[derive(Debug)]
pub struct SelectAndScatterKernel {
    /// The select comparison.
    pub select: Relation,
    /// The scatter combiner.
    pub scatter: Combiner,
    /// The planned windows.
    pub windows: Windows,
    /// The operand (and result) type.
    pub operand: TensorType,
}

impl SelectAndScatterKernel {
    fn selected<T: Ordered>(&self, x: &[T]) -> Vec<Option<usize>> {
        if self.windows.inner >= MIN_RUN {
            return self.selected_runs(x);
        }
        let n = self.windows.count();
        let rank = self.windows.size.len();
        let mut selected = vec![None; n];
        let task = |(t, chunk): (usize, &mut [Option<usize>])| {
            let mut index = unravel(t * TASK_WINDOWS, &self.windows.out_shape);
            let mut pos = vec![0; rank];
            for s in chunk.iter_mut() {
                let mut current: Option<usize> = None;
                self.windows.for_each_position(&index, &mut pos, |p| {
                    if let Some(p) = p {
                        current = match current {
                            Some(c) if self.select.holds(x[c], x[p]) => Some(c),
                            _ => Some(p),
                        };
                    }
                });
                *s = current;
                next_index(&mut index, &self.windows.out_shape);
            }
        };
        if n > TASK_WINDOWS {
            selected
                .par_chunks_mut(TASK_WINDOWS)
                .enumerate()
                .for_each(task);
        } else if n > 0 {
            task((0, &mut selected));
        }
        selected
    }

    /// [`Self::selected`] when trailing dimensions are untouched by the window (NHWC pooling):
    /// each window position is a contiguous run of [`Windows::inner`] candidates, one per
    /// window, compared against the current choices' values kept beside them. Same choices
    /// as the general path.
    fn selected_runs<T: Ordered>(&self, x: &[T]) -> Vec<Option<usize>> {
        // The relation resolved once, not per element: each arm is its own loop, a plain
        // comparison instead of a match on the direction per candidate.
        use std::cmp::Ordering::{Equal, Greater, Less};
        use systolic_ir::ComparisonDirection as D;
        let relation = self.select;
        match (relation.direction, relation.total) {
            (D::Ge, false) => {
                self.selected_runs_with(x, |a, b| matches!(T::ieee(a, b), Some(Greater | Equal)))
            }
            (D::Gt, false) => self.selected_runs_with(x, |a, b| T::ieee(a, b) == Some(Greater)),
            (D::Le, false) => {
                self.selected_runs_with(x, |a, b| matches!(T::ieee(a, b), Some(Less | Equal)))
            }
            (D::Lt, false) => self.selected_runs_with(x, |a, b| T::ieee(a, b) == Some(Less)),
            _ => self.selected_runs_with(x, |a, b| relation.holds(a, b)),
        }
    }

    /// [`Self::selected_runs`] with the select relation `holds`.
    fn selected_runs_with<T: Ordered>(
        &self,
        x: &[T],
        holds: impl Fn(T, T) -> bool + Sync,
    ) -> Vec<Option<usize>> {
        let inner = self.windows.inner;
        let rank = self.windows.size.len();
        let mut selected = vec![None; self.windows.count()];
        let per_task = TASK_WINDOWS.div_ceil(inner) * inner;
        let task = |(t, chunk): (usize, &mut [Option<usize>])| {
            let mut pos = vec![0; rank];
            let mut best: Vec<T> = Vec::with_capacity(inner);
            for (r, choice) in chunk.chunks_mut(inner).enumerate() {
                let index = unravel(t * per_task + r * inner, &self.windows.out_shape);
                best.clear();
                self.windows.for_each_position(&index, &mut pos, |p| {
                    let Some(p) = p else { return };
                    let run = &x[p..p + inner];
                    if best.is_empty() {
                        best.extend_from_slice(run);
                        for (j, c) in choice.iter_mut().enumerate() {
                            *c = Some(p + j);
                        }
                        return;
                    }
                    // Selects rather than branches: which candidate wins is data, and a
                    // mispredicted branch per element cost more than both stores.
                    for (j, ((c, b), &v)) in choice.iter_mut().zip(&mut best).zip(run).enumerate() {
                        let take = !holds(*b, v);
                        *c = if take { Some(p + j) } else { *c };
                        *b = if take { v } else { *b };
                    }
                });
            }
        };
        if selected.len() > per_task {
            selected.par_chunks_mut(per_task).enumerate().for_each(task);
        } else if !selected.is_empty() {
            task((0, &mut selected));
        }
        selected
    }

    fn run_typed<T: Arith + Ordered, C: Combine<T>>(
        &self,
        operand: &CpuBuffer,
        source: &CpuBuffer,
        init: &CpuBuffer,
    ) -> Result<CpuBuffer> {
        let x = elems::<T>(operand, "select_and_scatter")?;
        let src = elems::<T>(source, "select_and_scatter")?;
        let init = *elems::<T>(init, "select_and_scatter")?
            .first()
            .ok_or_else(|| CpuError::new("select_and_scatter: the init value is empty"))?;
        if src.len() != self.windows.count() {
            return Err(CpuError::new(format!(
                "select_and_scatter: source {} must have one element per window ({:?})",
                source.ty(),
                self.windows.out_shape
            )));
        }
        let selected = self.selected(x);
        // A pooled vector filled with `init`, not a fresh one (whose pages fault in anew on
        // every run).
        let mut storage = crate::pool::take(self.operand.dtype, x.len());
        let out = T::slice_mut(&mut storage)
            .ok_or_else(|| CpuError::new("select_and_scatter: result storage type"))?;
        out.fill(init);
        for (s, target) in selected.into_iter().enumerate() {
            if let Some(t) = target {
                out[t] = C::apply(out[t], src[s]);
            }
        }
        CpuBuffer::new(self.operand.clone(), storage).map_err(|e| CpuError::new(e.to_string()))
    }
}

impl Kernel for SelectAndScatterKernel {
    fn name(&self) -> String {
        format!(
            "select_and_scatter ({:?}, {:?}) {}",
            self.select.direction, self.scatter, self.operand
        )
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let [operand, source, init] = args.as_slice() else {
            return Err(CpuError::new(format!(
                "select_and_scatter expects operand, source and init value, got {} operands",
                args.len()
            )));
        };
        let (operand, source, init) = (operand.buffer(), source.buffer(), init.buffer());
        let out = dispatch_dtype!(self.operand.dtype, T => with_combiner!(self.scatter, C =>
            self.run_typed::<T, C>(operand, source, init)))?;
        Ok(vec![out])
    }
}
