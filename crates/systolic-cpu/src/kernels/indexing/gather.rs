//! `stablehlo.gather` as a planned copy: at compile time every index vector gets its place in
//! the index tensor and the offset its batching dimensions add; at run time each index vector
//! becomes one operand offset (starts clamped so the slice fits, as the interpreter does), and
//! the result is filled by a [`Walk`] — whole contiguous slices (a row gather) are `memcpy`s.

use super::indices::as_i64;
use super::walk::{strides, Walk, WalkDim};
use crate::buffer::CpuBuffer;
use crate::dispatch_movable;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::shape::elem::{elems, Elem};
use rayon::prelude::*;
use systolic_ir::{GatherDimensionNumbers, TensorType};

/// Results at least this large are filled by several threads.
const PARALLEL_ELEMENTS: usize = 1 << 15;

/// One component of the index vectors.
#[derive(Clone, Copy, Debug)]
struct Component {
    /// Operand stride of the dimension it addresses.
    stride: usize,
    /// Largest start that keeps the slice inside the operand.
    max_start: i64,
}

/// The compiled gather.
#[derive(Debug)]
pub struct GatherKernel {
    /// For each index vector, the position of its first component in the index tensor.
    index_pos: Vec<usize>,
    /// Distance between components of one index vector in the index tensor.
    component_step: usize,
    components: Vec<Component>,
    /// For each index vector, the operand offset its batching dimensions contribute.
    batch_base: Vec<usize>,
    walk: Walk,
    result: TensorType,
    operand: TensorType,
}

/// Plans a gather from the verified types, or `None` when the attributes do not fit them (the
/// interpreter then reports the problem with its own words).
pub fn plan(
    operand: &TensorType,
    indices: &TensorType,
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
    result: &TensorType,
) -> Option<GatherKernel> {
    let rank = operand.rank();
    let ishape = &indices.shape;
    let ivd = usize::try_from(dn.index_vector_dim).ok()?;
    let as_dims = |v: &[i64], bound: usize| -> Option<Vec<usize>> {
        v.iter()
            .map(|&d| usize::try_from(d).ok().filter(|&d| d < bound))
            .collect()
    };
    let start_map = as_dims(&dn.start_index_map, rank)?;
    let collapsed = as_dims(&dn.collapsed_slice_dims, rank)?;
    let op_batching = as_dims(&dn.operand_batching_dims, rank)?;
    let idx_batching = as_dims(&dn.start_indices_batching_dims, ishape.len())?;
    let offset_dims = as_dims(&dn.offset_dims, result.rank())?;
    if ivd > ishape.len()
        || slice_sizes.len() != rank
        || op_batching.len() != idx_batching.len()
        || start_map.len() as i64 != if ivd < ishape.len() { ishape[ivd] } else { 1 }
        || slice_sizes
            .iter()
            .zip(&operand.shape)
            .any(|(&s, &d)| s < 0 || s > d)
        || op_batching
            .iter()
            .zip(&idx_batching)
            .any(|(&o, &i)| operand.shape[o] != ishape[i])
        || (operand.num_elements() == 0 && result.num_elements() > 0)
    {
        return None;
    }
    let op_strides = strides(&operand.shape);
    let idx_strides = strides(ishape);
    let batch_dims: Vec<usize> = (0..ishape.len()).filter(|&d| d != ivd).collect();
    let batch_shape: Vec<i64> = batch_dims.iter().map(|&d| ishape[d]).collect();
    let operand_offset_dims: Vec<usize> = (0..rank)
        .filter(|d| !collapsed.contains(d) && !op_batching.contains(d))
        .collect();
    if operand_offset_dims.len() != offset_dims.len()
        || result.rank() != batch_dims.len() + offset_dims.len()
    {
        return None;
    }

    // Every index vector, in row-major order of the batch dimensions.
    let count: usize = batch_shape.iter().map(|&s| s.max(0) as usize).product();
    let mut index_pos = Vec::with_capacity(count);
    let mut batch_base = Vec::with_capacity(count);
    let mut coord = vec![0usize; batch_dims.len()];
    for _ in 0..count {
        let mut pos = 0;
        for (k, &d) in batch_dims.iter().enumerate() {
            pos += coord[k] * idx_strides[d];
        }
        let mut base = 0;
        for (&o, &i) in op_batching.iter().zip(&idx_batching) {
            let k = batch_dims.iter().position(|&d| d == i)?;
            base += coord[k] * op_strides[o];
        }
        index_pos.push(pos);
        batch_base.push(base);
        for k in (0..coord.len()).rev() {
            coord[k] += 1;
            if (coord[k] as i64) < batch_shape[k] {
                break;
            }
            coord[k] = 0;
        }
    }
    let components = start_map
        .iter()
        .map(|&d| Component {
            stride: op_strides[d],
            max_start: (operand.shape[d] - slice_sizes[d]).max(0),
        })
        .collect();
    let component_step = if ivd < ishape.len() {
        idx_strides[ivd]
    } else {
        0
    };

    // The result walk: batch dimensions step the index vector, offset dimensions the slice.
    let batch_strides = strides(&batch_shape);
    let (mut next_batch, mut next_offset) = (0, 0);
    let mut dims = Vec::with_capacity(result.rank());
    for (d, &size) in result.shape.iter().enumerate() {
        let size = usize::try_from(size).ok()?;
        if offset_dims.contains(&d) {
            let od = operand_offset_dims[next_offset];
            if slice_sizes[od] as usize != size {
                return None;
            }
            dims.push(WalkDim {
                size,
                batch: 0,
                offset: op_strides[od],
            });
            next_offset += 1;
        } else {
            dims.push(WalkDim {
                size,
                batch: batch_strides[next_batch],
                offset: 0,
            });
            next_batch += 1;
        }
    }
    Some(GatherKernel {
        index_pos,
        component_step,
        components,
        batch_base,
        walk: Walk::new(&dims),
        result: result.clone(),
        operand: operand.clone(),
    })
}

impl GatherKernel {
    /// The operand offset of every index vector's (clamped) slice start.
    fn slice_starts(&self, indices: &[i64]) -> Vec<usize> {
        self.index_pos
            .iter()
            .zip(&self.batch_base)
            .map(|(&pos, &base)| {
                let mut offset = base;
                for (k, c) in self.components.iter().enumerate() {
                    let start = indices[pos + k * self.component_step].clamp(0, c.max_start);
                    offset += start as usize * c.stride;
                }
                offset
            })
            .collect()
    }

    fn run_typed<T: Elem>(&self, operand: &CpuBuffer, starts: &[usize]) -> Result<CpuBuffer> {
        let src = elems::<T>(operand, "gather")?;
        let n = self.result.num_elements();
        let mut out = vec![T::default(); n];
        let inner = self.walk.inner();
        let fill = |chunk: &mut [T], first_outer: usize, outer_count: usize| {
            self.walk.for_each_run(
                first_outer..first_outer + outer_count,
                |pos, b, off, len| {
                    let dst = &mut chunk[pos..pos + len];
                    if inner.batch == 0 && inner.offset == 1 {
                        let s = starts[b] + off;
                        dst.copy_from_slice(&src[s..s + len]);
                    } else {
                        for (i, d) in dst.iter_mut().enumerate() {
                            *d = src[starts[b + i * inner.batch] + off + i * inner.offset];
                        }
                    }
                },
            );
        };
        let outer = self.walk.outer().size;
        let block = self.walk.outer_block();
        if n >= PARALLEL_ELEMENTS && outer > 1 {
            let per_task = outer.div_ceil(4 * rayon::current_num_threads()).max(1);
            out.par_chunks_mut(per_task * block)
                .enumerate()
                .for_each(|(t, chunk)| fill(chunk, t * per_task, chunk.len() / block));
        } else if n > 0 {
            fill(&mut out, 0, outer);
        }
        CpuBuffer::new(self.result.clone(), T::wrap(out)).map_err(|e| CpuError::new(e.to_string()))
    }
}

impl Kernel for GatherKernel {
    fn name(&self) -> String {
        format!("gather {} -> {}", self.operand, self.result)
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let [operand, indices] = args.as_slice() else {
            return Err(CpuError::new(format!(
                "gather expects an operand and start indices, got {} arguments",
                args.len()
            )));
        };
        let indices = as_i64(indices.buffer(), "gather start_indices")?;
        let starts = self.slice_starts(&indices);
        let operand = operand.buffer();
        let out = dispatch_movable!(self.result.dtype, T => self.run_typed::<T>(operand, &starts))?;
        Ok(vec![out])
    }
}
