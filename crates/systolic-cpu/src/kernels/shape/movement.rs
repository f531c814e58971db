//! Kernels that read a strided view of one operand into a dense result (transpose, broadcasts,
//! slice, reverse) and reshape, which moves no data at all.

use super::elem::{elems, Elem};
use super::strided::{copy, View};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use systolic_ir::TensorType;

/// `result[idx] = operand[view(idx)]` for a view computed at compile time.
#[derive(Debug)]
pub struct ViewKernel {
    op: &'static str,
    view: View,
    /// The box copied: the result's shape, or the same elements in fewer dimensions.
    shape: Vec<usize>,
    result: TensorType,
    /// The name in profiles, when not `op -> result`.
    label: Option<String>,
}

impl ViewKernel {
    /// A kernel reading `view` of the operand into a dense `result`.
    pub fn new(op: &'static str, view: View, result: TensorType) -> ViewKernel {
        ViewKernel {
            op,
            view,
            shape: dims(&result.shape),
            result,
            label: None,
        }
    }

    /// A kernel reading `view` over the box `shape` (row-major, as many elements as `result`)
    /// into a dense `result`, named `label`: a loop fusion that only moves data (a transpose
    /// and a reshape of one operand), which this kernel copies in tiles or whole rows instead
    /// of through the loop executor's registers.
    pub fn copying(label: String, view: View, shape: Vec<usize>, result: TensorType) -> ViewKernel {
        debug_assert_eq!(shape.iter().product::<usize>(), result.num_elements());
        ViewKernel {
            op: "fusion copy",
            view,
            shape,
            result,
            label: Some(label),
        }
    }

    fn run_typed<T: Elem>(&self, src: &CpuBuffer) -> Result<CpuBuffer> {
        let src = elems::<T>(src, self.op)?;
        let shape = &self.shape;
        // Every element is written by the copy: a pooled vector needs no zero fill.
        let mut out = crate::pool::take(self.result.dtype, self.result.num_elements());
        let dst = T::slice_mut(&mut out).ok_or_else(|| {
            CpuError::new(format!(
                "{}: result storage is not {}",
                self.op, self.result
            ))
        })?;
        copy(src, &self.view, dst, &View::dense(shape, 0), shape);
        new_buffer(&self.result, out)
    }
}

impl Kernel for ViewKernel {
    fn name(&self) -> String {
        match &self.label {
            Some(label) => label.clone(),
            None => format!("{} -> {}", self.op, self.result),
        }
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let src = one_arg(&args, self.op)?;
        let out = crate::dispatch_movable!(self.result.dtype, T => self.run_typed::<T>(src))?;
        Ok(vec![out])
    }
}

/// `stablehlo.reshape`: the same elements with a new shape; no copy when the operand dies here.
#[derive(Debug)]
pub struct ReshapeKernel {
    result: TensorType,
}

impl ReshapeKernel {
    /// A reshape to `result`.
    pub fn new(result: TensorType) -> ReshapeKernel {
        ReshapeKernel { result }
    }
}

impl Kernel for ReshapeKernel {
    fn name(&self) -> String {
        format!("reshape -> {}", self.result)
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let Some(arg) = args.into_iter().next() else {
            return Err(CpuError::new("reshape: no operand"));
        };
        let out = arg
            .into_owned()
            .reshaped(self.result.shape.clone())
            .map_err(|e| CpuError::new(format!("reshape: {e}")))?;
        Ok(vec![out])
    }
}

/// Dimension sizes as `usize` (verified shapes are non-negative).
pub fn dims(shape: &[i64]) -> Vec<usize> {
    shape.iter().map(|&d| d.max(0) as usize).collect()
}

/// Row-major strides as `isize`.
pub fn strides(shape: &[i64]) -> Vec<isize> {
    View::dense(&dims(shape), 0).strides
}

/// The single operand of a one-operand kernel.
pub fn one_arg<'b>(args: &'b [Arg<'_>], op: &str) -> Result<&'b CpuBuffer> {
    match args {
        [a, ..] => Ok(a.buffer()),
        [] => Err(CpuError::new(format!("{op}: no operand"))),
    }
}

/// A buffer of `ty` from storage built for it.
pub fn new_buffer(ty: &TensorType, storage: crate::buffer::Storage) -> Result<CpuBuffer> {
    CpuBuffer::new(ty.clone(), storage).map_err(|e| CpuError::new(format!("internal: {e}")))
}
