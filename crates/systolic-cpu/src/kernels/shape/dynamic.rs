//! `dynamic_slice` and `dynamic_update_slice`: start indices known only at run time, clamped so
//! the slice stays inside the operand (as the spec says). The update is done in place when the
//! operand dies at this op.

use super::elem::{elems, index_scalar, Elem};
use super::movement::{dims, new_buffer, strides};
use super::strided::{copy, View};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use systolic_ir::TensorType;

/// Clamped start offset (in elements) of a box of `sizes` in `shape` (whose row-major strides
/// are `st`), from the index operands.
fn start_offset(idx: &[Arg<'_>], shape: &[i64], st: &[isize], sizes: &[i64]) -> Result<isize> {
    if idx.len() != shape.len() {
        return Err(CpuError::new(format!(
            "{} start indices for an operand of rank {}",
            idx.len(),
            shape.len()
        )));
    }
    let mut offset = 0isize;
    for d in 0..shape.len() {
        let start = index_scalar(idx[d].buffer())?.clamp(0, (shape[d] - sizes[d]).max(0));
        offset += start as isize * st[d];
    }
    Ok(offset)
}

/// True when a box of `sizes` inside `shape` is one contiguous run of the row-major layout
/// wherever it starts: every dimension after the first one it does not cut to a single index
/// is whole (a slice of a vector, a block of whole rows). Such a box is copied as one slice,
/// without the strided copier's per-call index vectors: in a loop body of tiny kernels
/// (`x[i]`, `x.at[i].set(v)`) those were most of the kernel's time.
fn contiguous_box(shape: &[i64], sizes: &[i64]) -> bool {
    if sizes.len() != shape.len() {
        return false;
    }
    match sizes.iter().position(|&s| s != 1) {
        Some(k) => (k + 1..shape.len()).all(|d| sizes[d] == shape[d]),
        None => true,
    }
}

/// `stablehlo.dynamic_slice`.
#[derive(Debug)]
pub struct DynamicSliceKernel {
    operand: Vec<i64>,
    result: TensorType,
    /// The operand's row-major strides.
    operand_strides: Vec<isize>,
    /// The result's dimensions and dense layout.
    result_dims: Vec<usize>,
    result_view: View,
    /// Every slice is one contiguous run of the operand ([`contiguous_box`]).
    contiguous: bool,
}

impl DynamicSliceKernel {
    /// A slice of `result`'s shape from an operand of shape `operand`.
    pub fn new(operand: Vec<i64>, result: TensorType) -> DynamicSliceKernel {
        let result_dims = dims(&result.shape);
        DynamicSliceKernel {
            operand_strides: strides(&operand),
            result_view: View::dense(&result_dims, 0),
            result_dims,
            contiguous: contiguous_box(&operand, &result.shape),
            operand,
            result,
        }
    }

    fn run_typed<T: Elem>(&self, args: &[Arg<'_>]) -> Result<CpuBuffer> {
        let offset = start_offset(
            &args[1..],
            &self.operand,
            &self.operand_strides,
            &self.result.shape,
        )?;
        let src = elems::<T>(args[0].buffer(), "dynamic_slice")?;
        let n = self.result.num_elements();
        if self.contiguous {
            let run = offset as usize..offset as usize + n;
            let run = src.get(run).ok_or_else(|| {
                CpuError::new("dynamic_slice: the operand is smaller than its type")
            })?;
            return new_buffer(&self.result, T::wrap(run.to_vec()));
        }
        let view = View {
            offset,
            strides: self.operand_strides.clone(),
        };
        let mut out = vec![T::default(); n];
        copy(src, &view, &mut out, &self.result_view, &self.result_dims);
        new_buffer(&self.result, T::wrap(out))
    }
}

impl Kernel for DynamicSliceKernel {
    fn name(&self) -> String {
        format!("dynamic_slice -> {}", self.result)
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        if args.is_empty() {
            return Err(CpuError::new("dynamic_slice: no operand"));
        }
        let out = crate::dispatch_movable!(self.result.dtype, T => self.run_typed::<T>(&args))?;
        Ok(vec![out])
    }
}

/// `stablehlo.dynamic_update_slice`.
#[derive(Debug)]
pub struct DynamicUpdateSliceKernel {
    result: TensorType,
    /// The result's row-major strides.
    result_strides: Vec<isize>,
}

impl DynamicUpdateSliceKernel {
    /// An update of an operand of type `result`.
    pub fn new(result: TensorType) -> DynamicUpdateSliceKernel {
        DynamicUpdateSliceKernel {
            result_strides: strides(&result.shape),
            result,
        }
    }

    fn update<T: Elem>(
        &self,
        out: &mut CpuBuffer,
        update: &CpuBuffer,
        offset: isize,
    ) -> Result<()> {
        let upd = elems::<T>(update, "dynamic_update_slice")?;
        let out = T::slice_mut(out.storage_mut())
            .ok_or_else(|| CpuError::new("dynamic_update_slice: operand element type"))?;
        if contiguous_box(&self.result.shape, update.shape()) {
            let run = offset as usize..offset as usize + upd.len();
            let run = out.get_mut(run).ok_or_else(|| {
                CpuError::new("dynamic_update_slice: the operand is smaller than its type")
            })?;
            run.copy_from_slice(upd);
            return Ok(());
        }
        let shape = dims(update.shape());
        let dst = View {
            offset,
            strides: self.result_strides.clone(),
        };
        copy(upd, &View::dense(&shape, 0), out, &dst, &shape);
        Ok(())
    }
}

impl Kernel for DynamicUpdateSliceKernel {
    fn name(&self) -> String {
        format!("dynamic_update_slice {}", self.result)
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let mut args = args.into_iter();
        let (Some(operand), Some(update)) = (args.next(), args.next()) else {
            return Err(CpuError::new(
                "dynamic_update_slice: expects operand and update",
            ));
        };
        let update = update.buffer();
        let offset = start_offset(
            args.as_slice(),
            &self.result.shape,
            &self.result_strides,
            update.shape(),
        )?;
        let mut out = operand.into_owned();
        crate::dispatch_movable!(self.result.dtype, T => self.update::<T>(&mut out, update, offset))?;
        if !out.has_type(&self.result) {
            return Err(CpuError::new(format!(
                "dynamic_update_slice: operand {} is not of the result type {}",
                out.ty(),
                self.result
            )));
        }
        Ok(vec![out])
    }
}
