//! `stablehlo.reduce_window` with one input and a simple reducer (add, multiply, maximum,
//! minimum, and, or): max- and average-pooling (before the division) and their relatives.
//!
//! Each window folds left to right over its positions in row-major order from the init value,
//! holes contributing the init value — the interpreter's exact sequence of operations, so float
//! sums round the same way. Windows are split across threads.

use super::geometry::{next_index, unravel, Windows};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::indexing::combine::{Arith, Combine, Combiner};
use crate::kernels::shape::elem::elems;
use crate::{dispatch_dtype, with_combiner};
use rayon::prelude::*;
use systolic_ir::{ResolvedWindow, TensorType};

/// Windows per task when splitting across threads.
const TASK_WINDOWS: usize = 2048;

/// The shortest contiguous run worth [`ReduceWindowKernel::fold_runs`]'s loop.
const MIN_RUN: usize = 8;

/// A reduce_window whose windows are the prefixes along one dimension (JAX's cumulative
/// reductions: window = the whole dimension, padded low by its size − 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix {
    /// Elements before the dimension.
    pub outer: usize,
    /// Its size.
    pub len: usize,
    /// Elements after it.
    pub inner: usize,
}

impl Prefix {
    /// The prefix form of `window` over `shape`, if it is one.
    pub fn detect(shape: &[i64], window: &ResolvedWindow) -> Option<Prefix> {
        let dims = window.dims();
        if dims.len() != shape.len()
            || dims
                .iter()
                .any(|w| w.stride != 1 || w.base_dilation != 1 || w.window_dilation != 1)
        {
            return None;
        }
        let mut found = None;
        for (d, (&n, w)) in shape.iter().zip(dims).enumerate() {
            if w.size == 1 && w.padding == (0, 0) {
                continue;
            }
            if found.is_some() || n < 2 || w.size != n || w.padding != (n - 1, 0) {
                return None;
            }
            found = Some(d);
        }
        let d = found?;
        let size = |s: &[i64]| s.iter().map(|&x| x as usize).product::<usize>();
        Some(Prefix {
            outer: size(&shape[..d]),
            len: shape[d] as usize,
            inner: size(&shape[d + 1..]),
        })
    }
}

/// The compiled reduce_window.
#[derive(Debug)]
pub struct ReduceWindowKernel {
    /// The prefix form, when the windows are prefixes along one dimension.
    pub prefix: Option<Prefix>,
    /// The reducer.
    pub combiner: Combiner,
    /// The planned windows.
    pub windows: Windows,
    /// The input type.
    pub input: TensorType,
    /// The result type.
    pub result: TensorType,
}

impl ReduceWindowKernel {
    fn run_typed<T: Arith, C: Combine<T>>(
        &self,
        input: &CpuBuffer,
        init: &CpuBuffer,
    ) -> Result<CpuBuffer> {
        let x = elems::<T>(input, "reduce_window")?;
        let init = *elems::<T>(init, "reduce_window")?
            .first()
            .ok_or_else(|| CpuError::new("reduce_window: the init value is empty"))?;
        if let Some(p) = self.prefix {
            // Folding the window's leading padding leaves the init value unchanged when
            // init ⊕ init is init, bit for bit; then every window extends the previous one.
            let twice = T::wrap(vec![C::apply(init, init)]);
            if twice == T::wrap(vec![init]) && bits_equal(&twice, &T::wrap(vec![init])) {
                return self.prefix_fold::<T, C>(p, x, init);
            }
        }
        let n = self.windows.count();
        if self.windows.inner >= MIN_RUN {
            return self.fold_runs::<T, C>(x, init);
        }
        let mut out = vec![init; n];
        let rank = self.windows.size.len();
        let task = |(t, chunk): (usize, &mut [T])| {
            let mut index = unravel(t * TASK_WINDOWS, &self.windows.out_shape);
            let mut pos = vec![0; rank];
            for o in chunk.iter_mut() {
                let mut acc = init;
                self.windows.for_each_position(&index, &mut pos, |p| {
                    let v = match p {
                        Some(p) => x[p],
                        None => init,
                    };
                    acc = C::apply(acc, v);
                });
                *o = acc;
                next_index(&mut index, &self.windows.out_shape);
            }
        };
        if n > TASK_WINDOWS {
            out.par_chunks_mut(TASK_WINDOWS).enumerate().for_each(task);
        } else if n > 0 {
            task((0, &mut out));
        }
        CpuBuffer::new(self.result.clone(), T::wrap(out)).map_err(|e| CpuError::new(e.to_string()))
    }
}

impl ReduceWindowKernel {
    /// The windows' fold when trailing dimensions are untouched by the window (NHWC pooling):
    /// each window position reads a contiguous run of [`Windows::inner`] elements, folded
    /// into as many outputs at once in a loop the compiler vectorises. The order of the
    /// operations per output is the general path's.
    fn fold_runs<T: Arith, C: Combine<T>>(&self, x: &[T], init: T) -> Result<CpuBuffer> {
        let inner = self.windows.inner;
        let mut out = vec![init; self.windows.count()];
        let rank = self.windows.size.len();
        let per_task = TASK_WINDOWS.div_ceil(inner) * inner;
        let task = |(t, chunk): (usize, &mut [T])| {
            let mut pos = vec![0; rank];
            for (r, acc) in chunk.chunks_mut(inner).enumerate() {
                let index = unravel(t * per_task + r * inner, &self.windows.out_shape);
                self.windows
                    .for_each_position(&index, &mut pos, |p| match p {
                        Some(p) => {
                            for (a, &v) in acc.iter_mut().zip(&x[p..p + inner]) {
                                *a = C::apply(*a, v);
                            }
                        }
                        None => acc.iter_mut().for_each(|a| *a = C::apply(*a, init)),
                    });
            }
        };
        if out.len() > per_task {
            out.par_chunks_mut(per_task).enumerate().for_each(task);
        } else if !out.is_empty() {
            task((0, &mut out));
        }
        CpuBuffer::new(self.result.clone(), T::wrap(out)).map_err(|e| CpuError::new(e.to_string()))
    }

    /// Running folds along the prefix dimension: window `k` is window `k − 1` and one more
    /// element, folded in the interpreter's order.
    fn prefix_fold<T: Arith, C: Combine<T>>(
        &self,
        p: Prefix,
        x: &[T],
        init: T,
    ) -> Result<CpuBuffer> {
        let mut out = vec![init; x.len()];
        let line = p.len * p.inner;
        let fold = |(o, dst): (usize, &mut [T])| {
            let src = &x[o * line..(o + 1) * line];
            let mut acc = vec![init; p.inner];
            for k in 0..p.len {
                let row = k * p.inner..(k + 1) * p.inner;
                for ((a, &v), d) in acc.iter_mut().zip(&src[row.clone()]).zip(&mut dst[row]) {
                    *a = C::apply(*a, v);
                    *d = *a;
                }
            }
        };
        if line > 0 {
            if x.len() >= 1 << 15 {
                out.par_chunks_mut(line).enumerate().for_each(fold);
            } else {
                out.chunks_mut(line).enumerate().for_each(fold);
            }
        }
        CpuBuffer::new(self.result.clone(), T::wrap(out)).map_err(|e| CpuError::new(e.to_string()))
    }
}

/// True when two one-element storages hold the same bits (`==` would equate −0 and +0).
fn bits_equal(a: &crate::buffer::Storage, b: &crate::buffer::Storage) -> bool {
    let ty = |s: &crate::buffer::Storage| {
        systolic_ir::DType::ALL
            .into_iter()
            .find(|&d| s.holds(d))
            .map(|d| TensorType::new(vec![1], d))
    };
    match (ty(a), ty(b)) {
        (Some(ta), Some(tb)) => {
            match (CpuBuffer::new(ta, a.clone()), CpuBuffer::new(tb, b.clone())) {
                (Ok(x), Ok(y)) => x.to_le_bytes() == y.to_le_bytes(),
                _ => false,
            }
        }
        _ => false,
    }
}

impl Kernel for ReduceWindowKernel {
    fn name(&self) -> String {
        format!(
            "reduce_window ({:?}) {} -> {}",
            self.combiner, self.input, self.result
        )
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let [input, init] = args.as_slice() else {
            return Err(CpuError::new(format!(
                "reduce_window expects an input and an init value, got {} operands",
                args.len()
            )));
        };
        let (input, init) = (input.buffer(), init.buffer());
        let out = dispatch_dtype!(self.input.dtype, T => with_combiner!(self.combiner, C =>
            self.run_typed::<T, C>(input, init)))?;
        Ok(vec![out])
    }
}
