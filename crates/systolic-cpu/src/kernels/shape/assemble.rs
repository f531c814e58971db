//! Kernels that write dense operands into strided places of a new result: concatenate and pad.

use super::elem::{elems, Elem};
use super::movement::{dims, new_buffer, strides};
use super::strided::{copy, View};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use systolic_ir::TensorType;

/// `stablehlo.concatenate`: each operand copied to its offset along the dimension.
#[derive(Debug)]
pub struct ConcatKernel {
    dimension: usize,
    result: TensorType,
}

impl ConcatKernel {
    /// Concatenation along `dimension` into `result`.
    pub fn new(dimension: usize, result: TensorType) -> ConcatKernel {
        ConcatKernel { dimension, result }
    }

    fn run_typed<T: Elem>(&self, args: &[Arg<'_>]) -> Result<CpuBuffer> {
        let out_strides = strides(&self.result.shape);
        let mut out = vec![T::default(); self.result.num_elements()];
        let mut at = 0isize;
        for a in args {
            let b = a.buffer();
            let shape = dims(b.shape());
            let dst = View {
                offset: at * out_strides[self.dimension],
                strides: out_strides.clone(),
            };
            copy(
                elems::<T>(b, "concatenate")?,
                &View::dense(&shape, 0),
                &mut out,
                &dst,
                &shape,
            );
            at += shape[self.dimension] as isize;
        }
        new_buffer(&self.result, T::wrap(out))
    }
}

impl Kernel for ConcatKernel {
    fn name(&self) -> String {
        format!("concatenate dim {} -> {}", self.dimension, self.result)
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let out = crate::dispatch_movable!(self.result.dtype, T => self.run_typed::<T>(&args))?;
        Ok(vec![out])
    }
}

/// `stablehlo.pad`: the result filled with the padding value, then the part of the operand that
/// lands inside it (negative padding crops) copied with interior gaps.
#[derive(Debug)]
pub struct PadKernel {
    result: TensorType,
    /// The operand box that lands in the result, as (source view, destination view, shape);
    /// `None` when nothing does.
    placed: Option<(View, View, Vec<usize>)>,
}

impl PadKernel {
    /// A pad of an operand of `operand` shape into `result`.
    pub fn new(
        operand: &[i64],
        result: TensorType,
        low: &[i64],
        interior: &[i64],
    ) -> Result<PadKernel> {
        let (in_strides, out_strides) = (strides(operand), strides(&result.shape));
        let mut src = View {
            offset: 0,
            strides: in_strides.clone(),
        };
        let mut dst = View {
            offset: 0,
            strides: vec![0; operand.len()],
        };
        let mut shape = vec![];
        let mut empty = false;
        for d in 0..operand.len() {
            let step = interior[d] + 1;
            if step < 1 {
                return Err(CpuError::new(format!(
                    "pad: negative interior padding {}",
                    interior[d]
                )));
            }
            let (n, out, lo) = (operand[d], result.shape[d], low[d]);
            // Operand indices i with 0 <= lo + i·step < out.
            let first = if lo < 0 { (-lo + step - 1) / step } else { 0 };
            let end = if out - lo > 0 {
                ((out - lo + step - 1) / step).min(n)
            } else {
                0
            };
            if end <= first {
                empty = true;
                shape.push(0);
                continue;
            }
            shape.push((end - first) as usize);
            src.offset += first as isize * in_strides[d];
            dst.offset += (lo + first * step) as isize * out_strides[d];
            dst.strides[d] = step as isize * out_strides[d];
        }
        Ok(PadKernel {
            result,
            placed: (!empty).then_some((src, dst, shape)),
        })
    }

    fn run_typed<T: Elem>(&self, operand: &CpuBuffer, value: &CpuBuffer) -> Result<CpuBuffer> {
        let pad = *elems::<T>(value, "pad")?
            .first()
            .ok_or_else(|| CpuError::new("pad: the padding value is empty"))?;
        let mut out = vec![pad; self.result.num_elements()];
        if let Some((src, dst, shape)) = &self.placed {
            copy(elems::<T>(operand, "pad")?, src, &mut out, dst, shape);
        }
        new_buffer(&self.result, T::wrap(out))
    }
}

impl Kernel for PadKernel {
    fn name(&self) -> String {
        format!("pad -> {}", self.result)
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let [operand, value] = args.as_slice() else {
            return Err(CpuError::new("pad: expects operand and padding value"));
        };
        let (operand, value) = (operand.buffer(), value.buffer());
        let out =
            crate::dispatch_movable!(self.result.dtype, T => self.run_typed::<T>(operand, value))?;
        Ok(vec![out])
    }
}
