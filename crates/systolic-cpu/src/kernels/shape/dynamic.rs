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

/// Clamped start offset (in elements) of a box of `sizes` in `shape`, from the index operands.
fn start_offset(idx: &[Arg<'_>], shape: &[i64], sizes: &[i64]) -> Result<isize> {
    if idx.len() != shape.len() {
        return Err(CpuError::new(format!(
            "{} start indices for an operand of rank {}",
            idx.len(),
            shape.len()
        )));
    }
    let st = strides(shape);
    let mut offset = 0isize;
    for d in 0..shape.len() {
        let start = index_scalar(idx[d].buffer())?.clamp(0, (shape[d] - sizes[d]).max(0));
        offset += start as isize * st[d];
    }
    Ok(offset)
}

/// `stablehlo.dynamic_slice`.
#[derive(Debug)]
pub struct DynamicSliceKernel {
    operand: Vec<i64>,
    result: TensorType,
}

impl DynamicSliceKernel {
    /// A slice of `result`'s shape from an operand of shape `operand`.
    pub fn new(operand: Vec<i64>, result: TensorType) -> DynamicSliceKernel {
        DynamicSliceKernel { operand, result }
    }

    fn run_typed<T: Elem>(&self, args: &[Arg<'_>]) -> Result<CpuBuffer> {
        let offset = start_offset(&args[1..], &self.operand, &self.result.shape)?;
        let shape = dims(&self.result.shape);
        let src = View {
            offset,
            strides: strides(&self.operand),
        };
        let mut out = vec![T::default(); self.result.num_elements()];
        copy(
            elems::<T>(args[0].buffer(), "dynamic_slice")?,
            &src,
            &mut out,
            &View::dense(&shape, 0),
            &shape,
        );
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
}

impl DynamicUpdateSliceKernel {
    /// An update of an operand of type `result`.
    pub fn new(result: TensorType) -> DynamicUpdateSliceKernel {
        DynamicUpdateSliceKernel { result }
    }

    fn update<T: Elem>(
        &self,
        out: &mut CpuBuffer,
        update: &CpuBuffer,
        offset: isize,
    ) -> Result<()> {
        let shape = dims(update.shape());
        let dst = View {
            offset,
            strides: strides(&self.result.shape),
        };
        let upd = elems::<T>(update, "dynamic_update_slice")?;
        let out = T::slice_mut(out.storage_mut())
            .ok_or_else(|| CpuError::new("dynamic_update_slice: operand element type"))?;
        copy(upd, &View::dense(&shape, 0), out, &dst, &shape);
        Ok(())
    }
}

impl Kernel for DynamicUpdateSliceKernel {
    fn name(&self) -> String {
        format!("dynamic_update_slice {}", self.result)
    }

    fn run(&self, mut args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        if args.len() < 2 {
            return Err(CpuError::new(
                "dynamic_update_slice: expects operand and update",
            ));
        }
        let rest = args.split_off(1);
        let update = rest[0].buffer();
        let offset = start_offset(&rest[1..], &self.result.shape, update.shape())?;
        let mut out = args.pop().expect("one operand left").into_owned();
        crate::dispatch_movable!(self.result.dtype, T => self.update::<T>(&mut out, update, offset))?;
        if out.ty() != &self.result {
            return Err(CpuError::new(format!(
                "dynamic_update_slice: operand {} is not of the result type {}",
                out.ty(),
                self.result
            )));
        }
        Ok(vec![out])
    }
}
