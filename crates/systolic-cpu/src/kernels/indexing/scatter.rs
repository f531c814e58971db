//! `stablehlo.scatter` with one input and a recognised update computation (add, multiply,
//! maximum, minimum, and, or, or replace): each update is combined natively into the result.
//!
//! Exactly the interpreter's semantics: updates are applied one at a time in row-major order of
//! the updates (so duplicate indices combine in that order, and the last replace wins), and a
//! window that does not fit inside the input at its start position is skipped whole. The result
//! reuses the input's storage when the input dies here.

use super::combine::{Arith, Combine, Combiner};
use super::indices::as_i64;
use super::walk::{strides, Walk, WalkDim};
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::shape::elem::elems;
use crate::{dispatch_dtype, with_combiner};
use systolic_ir::{ScatterDimensionNumbers, TensorType};

/// One component of the index vectors.
#[derive(Clone, Copy, Debug)]
struct Component {
    /// The input dimension it addresses.
    dim: usize,
}

/// The compiled scatter.
#[derive(Debug)]
pub struct ScatterKernel {
    combiner: Combiner,
    geometry: ScatterGeometry,
}

/// Where each update goes, planned from the types and dimension numbers.
#[derive(Debug)]
pub struct ScatterGeometry {
    /// For each index vector, the position of its first component in the index tensor.
    index_pos: Vec<usize>,
    component_step: usize,
    components: Vec<Component>,
    /// For each index vector, its coordinate on each input batching dimension.
    batch_coords: Vec<Vec<(usize, i64)>>,
    /// Window size along each input dimension (1 for inserted and batching dimensions).
    window: Vec<i64>,
    input_strides: Vec<usize>,
    walk: Walk,
    input: TensorType,
    updates: TensorType,
}

/// Plans a scatter from the verified types, or `None` when the attributes do not fit them.
pub fn plan(
    input: &TensorType,
    indices: &TensorType,
    updates: &TensorType,
    dn: &ScatterDimensionNumbers,
    combiner: Combiner,
) -> Option<ScatterKernel> {
    Some(ScatterKernel {
        combiner,
        geometry: plan_geometry(input, indices, updates, dn)?,
    })
}

/// Plans where the updates of a scatter go, or `None` when the attributes do not fit the
/// types.
pub fn plan_geometry(
    input: &TensorType,
    indices: &TensorType,
    updates: &TensorType,
    dn: &ScatterDimensionNumbers,
) -> Option<ScatterGeometry> {
    let rank = input.rank();
    let ishape = &indices.shape;
    let ushape = &updates.shape;
    let ivd = usize::try_from(dn.index_vector_dim).ok()?;
    let as_dims = |v: &[i64], bound: usize| -> Option<Vec<usize>> {
        v.iter()
            .map(|&d| usize::try_from(d).ok().filter(|&d| d < bound))
            .collect()
    };
    let to_input = as_dims(&dn.scatter_dims_to_operand_dims, rank)?;
    let window_dims = as_dims(&dn.update_window_dims, ushape.len())?;
    let inserted = as_dims(&dn.inserted_window_dims, rank)?;
    let in_batching = as_dims(&dn.input_batching_dims, rank)?;
    let idx_batching = as_dims(&dn.scatter_indices_batching_dims, ishape.len())?;
    let input_window_dims: Vec<usize> = (0..rank)
        .filter(|d| !inserted.contains(d) && !in_batching.contains(d))
        .collect();
    let batch_dims: Vec<usize> = (0..ishape.len()).filter(|&d| d != ivd).collect();
    let batch_shape: Vec<i64> = batch_dims.iter().map(|&d| ishape[d]).collect();
    let update_scatter_dims: Vec<usize> = (0..ushape.len())
        .filter(|d| !window_dims.contains(d))
        .collect();
    let update_scatter_sizes: Vec<i64> = update_scatter_dims.iter().map(|&d| ushape[d]).collect();
    if ivd > ishape.len()
        || in_batching.len() != idx_batching.len()
        || to_input.len() as i64 != if ivd < ishape.len() { ishape[ivd] } else { 1 }
        || input_window_dims.len() != window_dims.len()
        || update_scatter_sizes != batch_shape
        || input.dtype != updates.dtype
    {
        return None;
    }
    let idx_strides = strides(ishape);
    let input_strides = strides(&input.shape);
    let count: usize = batch_shape.iter().map(|&s| s.max(0) as usize).product();
    let mut index_pos = Vec::with_capacity(count);
    let mut batch_coords = Vec::with_capacity(count);
    let mut coord = vec![0usize; batch_dims.len()];
    for _ in 0..count {
        let pos = batch_dims
            .iter()
            .enumerate()
            .map(|(k, &d)| coord[k] * idx_strides[d])
            .sum();
        let mut pairs = Vec::with_capacity(in_batching.len());
        for (&o, &i) in in_batching.iter().zip(&idx_batching) {
            let k = batch_dims.iter().position(|&d| d == i)?;
            pairs.push((o, coord[k] as i64));
        }
        index_pos.push(pos);
        batch_coords.push(pairs);
        for k in (0..coord.len()).rev() {
            coord[k] += 1;
            if (coord[k] as i64) < batch_shape[k] {
                break;
            }
            coord[k] = 0;
        }
    }
    let mut window = vec![1i64; rank];
    for (&du, &di) in window_dims.iter().zip(&input_window_dims) {
        window[di] = ushape[du];
    }
    // The update walk: scatter dimensions step the index vector, window dimensions the window.
    let batch_strides = strides(&batch_shape);
    let (mut next_batch, mut next_window) = (0, 0);
    let mut dims = Vec::with_capacity(ushape.len());
    for (d, &size) in ushape.iter().enumerate() {
        let size = usize::try_from(size).ok()?;
        if window_dims.contains(&d) {
            dims.push(WalkDim {
                size,
                batch: 0,
                offset: input_strides[input_window_dims[next_window]],
            });
            next_window += 1;
        } else {
            dims.push(WalkDim {
                size,
                batch: batch_strides[next_batch],
                offset: 0,
            });
            next_batch += 1;
        }
    }
    let component_step = if ivd < ishape.len() {
        idx_strides[ivd]
    } else {
        0
    };
    Some(ScatterGeometry {
        index_pos,
        component_step,
        components: to_input.iter().map(|&dim| Component { dim }).collect(),
        batch_coords,
        window,
        input_strides,
        walk: Walk::new(&dims),
        input: input.clone(),
        updates: updates.clone(),
    })
}

impl ScatterGeometry {
    /// The input offset of every index vector's window, or `None` when the window does not fit.
    pub fn window_starts(&self, indices: &[i64]) -> Vec<Option<usize>> {
        let shape = &self.input.shape;
        let mut start = vec![0i64; shape.len()];
        self.index_pos
            .iter()
            .zip(&self.batch_coords)
            .map(|(&pos, batch)| {
                start.iter_mut().for_each(|s| *s = 0);
                for (k, c) in self.components.iter().enumerate() {
                    start[c.dim] = indices[pos + k * self.component_step];
                }
                for &(d, coord) in batch {
                    start[d] = coord;
                }
                let fits = (0..shape.len())
                    .all(|d| start[d] >= 0 && start[d].saturating_add(self.window[d]) <= shape[d]);
                fits.then(|| {
                    start
                        .iter()
                        .zip(&self.input_strides)
                        .map(|(&s, &st)| s as usize * st)
                        .sum()
                })
            })
            .collect()
    }

    /// Calls `visit(update position, input offset)` for every update element whose window
    /// fits, in row-major order of the updates.
    pub fn for_each_target(&self, starts: &[Option<usize>], mut visit: impl FnMut(usize, usize)) {
        if self.updates.num_elements() == 0 {
            return;
        }
        let inner = self.walk.inner();
        self.walk
            .for_each_run(0..self.walk.outer().size, |pos, b, off, len| {
                for i in 0..len {
                    if let Some(start) = starts[b + i * inner.batch] {
                        visit(pos + i, start + off + i * inner.offset);
                    }
                }
            });
    }

    /// The input type.
    pub fn input(&self) -> &TensorType {
        &self.input
    }

    /// The updates type.
    pub fn updates(&self) -> &TensorType {
        &self.updates
    }
}

impl ScatterKernel {
    fn run_typed<T: Arith, C: Combine<T>>(
        &self,
        mut result: CpuBuffer,
        updates: &CpuBuffer,
        starts: &[Option<usize>],
    ) -> Result<CpuBuffer> {
        let upd = elems::<T>(updates, "scatter")?;
        let out = T::slice_mut(result.storage_mut()).ok_or_else(|| {
            CpuError::new(format!(
                "scatter: the input does not hold {} elements",
                self.geometry.input.dtype
            ))
        })?;
        if upd.is_empty() {
            return Ok(result);
        }
        let inner = self.geometry.walk.inner();
        if inner.batch == 0 && inner.offset == 1 {
            // Each run of the updates' innermost dimension is one window row: contiguous in
            // the updates and in the result, under one index vector. Its elements go to
            // distinct places, so combining the run as slices keeps the interpreter's order
            // (updates in row-major order) for every target, and the loop vectorises — the
            // element-by-element visit took 12 ms for a bf16 embedding gradient of 1M
            // updates on a Xeon.
            self.geometry.walk.for_each_run(
                0..self.geometry.walk.outer().size,
                |pos, b, off, len| {
                    if let Some(start) = starts[b] {
                        let t = start + off;
                        for (o, &u) in out[t..t + len].iter_mut().zip(&upd[pos..pos + len]) {
                            *o = C::apply(*o, u);
                        }
                    }
                },
            );
            return Ok(result);
        }
        self.geometry
            .for_each_target(starts, |u, t| out[t] = C::apply(out[t], upd[u]));
        Ok(result)
    }
}

impl Kernel for ScatterKernel {
    fn name(&self) -> String {
        format!(
            "scatter ({:?}) {} <- {}",
            self.combiner, self.geometry.input, self.geometry.updates
        )
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let mut args = args.into_iter();
        let (Some(input), Some(indices), Some(updates), None) =
            (args.next(), args.next(), args.next(), args.next())
        else {
            return Err(CpuError::new(
                "scatter expects an input, scatter indices and updates",
            ));
        };
        let starts = self
            .geometry
            .window_starts(&as_i64(indices.buffer(), "scatter_indices")?);
        let result = input.into_owned();
        let out = dispatch_dtype!(self.geometry.input.dtype, T => with_combiner!(self.combiner, C =>
            self.run_typed::<T, C>(result, updates.buffer(), &starts)))?;
        Ok(vec![out])
    }
}
