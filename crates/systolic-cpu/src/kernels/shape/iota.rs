//! `stablehlo.iota`: counts along one dimension.

use super::elem::Elem;
use super::movement::{dims, new_buffer};
use crate::buffer::CpuBuffer;
use crate::error::Result;
use crate::kernel::{Arg, Kernel};
use systolic_ir::TensorType;

/// Fills the result with the index along `dimension`.
#[derive(Debug)]
pub struct IotaKernel {
    dimension: usize,
    result: TensorType,
}

impl IotaKernel {
    /// An iota of type `result` counting along `dimension`.
    pub fn new(dimension: usize, result: TensorType) -> IotaKernel {
        IotaKernel { dimension, result }
    }

    fn run_typed<T: Elem>(&self) -> Result<CpuBuffer> {
        let shape = dims(&self.result.shape);
        if self.result.num_elements() == 0 {
            // No elements: the counted dimension may still be huge (`0x2^62x4`), and
            // counting it would allocate for nothing.
            return new_buffer(&self.result, T::wrap(vec![]));
        }
        let n = shape[self.dimension];
        let inner: usize = shape[self.dimension + 1..].iter().product();
        let values: Vec<T> = (0..n as u64).map(T::from_count).collect();
        let mut out = Vec::with_capacity(self.result.num_elements());
        let outer: usize = shape[..self.dimension].iter().product();
        for _ in 0..outer {
            for &v in &values {
                out.extend(std::iter::repeat_n(v, inner));
            }
        }
        new_buffer(&self.result, T::wrap(out))
    }
}

impl Kernel for IotaKernel {
    fn name(&self) -> String {
        format!("iota dim {} -> {}", self.dimension, self.result)
    }

    fn run(&self, _args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let out = crate::dispatch_dtype!(self.result.dtype, T => self.run_typed::<T>())?;
        Ok(vec![out])
    }
}
