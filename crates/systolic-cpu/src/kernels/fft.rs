//! `stablehlo.fft` as a native kernel: `rustfft` in the element precision (f32 for
//! `complex<f32>`/f32, f64 for the others), as XLA:CPU's ducc computes; the batch (the dimensions
//! before the transformed ones) split over the pool's threads.
//!
//! The transforms are the interpreter's (`systolic_interp::ops::linalg::fft`): FFT/IFFT along
//! each of the last 1–3 dimensions (IFFT scaled by 1/N), RFFT as a full transform of the real
//! signal keeping the first `n/2 + 1` frequencies of the last dimension, IRFFT as the inverse
//! transforms of the leading dimensions, then the last dimension extended by conjugate symmetry
//! and its real part kept. The interpreter computes in f64, so f32 results differ from it by
//! f32 rounding (about log2(n) roundings of the largest magnitudes).

use crate::buffer::{CpuBuffer, Storage};
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::lower_ctx::LowerCtx;
use num_complex::Complex;
use rayon::prelude::*;
use rustfft::{FftDirection, FftNum, FftPlanner};
use std::sync::Arc;
use systolic_ir::{DType, FftType, Op, OpKind, TensorType};

/// The FFT kernel for `op`, or `None` for a form the interpreter should run (shapes or types
/// the verifier would refuse, or empty tensors).
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let OpKind::Fft {
        fft_type,
        fft_length,
    } = &op.kind
    else {
        return Ok(None);
    };
    let (operands, results) = (ctx.operand_types(op)?, ctx.result_types(op)?);
    let ([operand], [result]) = (operands.as_slice(), results.as_slice()) else {
        return Ok(None);
    };
    let k = fft_length.len();
    let rank = operand.rank();
    if !(1..=3).contains(&k)
        || k > rank
        || operand.num_elements() == 0
        || result.num_elements() == 0
        || fft_length.iter().any(|&n| n <= 0)
    {
        return Ok(None);
    }
    let lengths: Vec<usize> = fft_length.iter().map(|&n| n as usize).collect();
    let last = lengths[k - 1];
    let mut operand_tail = lengths.clone();
    let mut result_shape = operand.shape.clone();
    let expected = match fft_type {
        FftType::Fft | FftType::Ifft => Some(operand.dtype).filter(|d| d.is_complex()),
        FftType::Rfft => {
            result_shape[rank - 1] = (last / 2 + 1) as i64;
            operand.dtype.complex_of()
        }
        FftType::Irfft => {
            operand_tail[k - 1] = last / 2 + 1;
            result_shape[rank - 1] = last as i64;
            operand
                .dtype
                .component()
                .filter(|_| operand.dtype.is_complex())
        }
    };
    let tail: Vec<usize> = operand.shape[rank - k..]
        .iter()
        .map(|&d| d as usize)
        .collect();
    if expected != Some(result.dtype) || tail != operand_tail || result.shape != result_shape {
        return Ok(None);
    }
    Ok(Some(Box::new(FftKernel {
        fft_type: *fft_type,
        lengths,
        operand: (*operand).clone(),
        result: (*result).clone(),
    })))
}

/// A compiled `fft`.
#[derive(Debug)]
pub struct FftKernel {
    fft_type: FftType,
    /// The transform lengths of the trailing dimensions.
    lengths: Vec<usize>,
    operand: TensorType,
    result: TensorType,
}

impl Kernel for FftKernel {
    fn name(&self) -> String {
        format!(
            "fft {} {:?} {} -> {}",
            self.fft_type.keyword(),
            self.lengths,
            self.operand,
            self.result
        )
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        let [x] = args.as_slice() else {
            return Err(CpuError::new("fft expects one operand"));
        };
        let storage = match (x.buffer().storage(), self.operand.dtype) {
            (Storage::C64(v), DType::C64) => self.storage_of(self.transform(v)),
            (Storage::C128(v), DType::C128) => self.storage_of(self.transform(v)),
            (Storage::F32(v), DType::F32) => self.storage_of(self.transform(&widen(v))),
            (Storage::F64(v), DType::F64) => self.storage_of(self.transform(&widen(v))),
            _ => {
                return Err(CpuError::new(format!(
                    "fft: operand {} does not hold {}",
                    x.buffer().ty(),
                    self.operand
                )))
            }
        }?;
        let out = CpuBuffer::new(self.result.clone(), storage)
            .map_err(|e| CpuError::new(format!("fft: {e}")))?;
        Ok(vec![out])
    }
}

/// Real numbers as complex ones with imaginary part 0.
fn widen<T: FftNum>(v: &[T]) -> Vec<Complex<T>> {
    v.iter().map(|&a| Complex::new(a, T::zero())).collect()
}

/// The result of a transform: complex numbers, or reals for IRFFT.
enum Values<T> {
    Complex(Vec<Complex<T>>),
    Real(Vec<T>),
}

impl FftKernel {
    /// Wraps a transform's values in the storage of the result dtype.
    fn storage_of<T: FftNum>(&self, values: Values<T>) -> Result<Storage>
    where
        Values<T>: IntoStorage,
    {
        values.into_storage(self.result.dtype)
    }

    /// The transform of the whole operand (complex numbers, real ones widened).
    fn transform<T: FftNum>(&self, x: &[Complex<T>]) -> Values<T> {
        let shape: Vec<usize> = self.operand.shape.iter().map(|&d| d as usize).collect();
        let k = self.lengths.len();
        let item_shape = &shape[shape.len() - k..];
        let item: usize = item_shape.iter().product();
        let last = self.lengths[k - 1];
        let half = last / 2 + 1;
        let mut planner = FftPlanner::<T>::new();
        let mut plans = |direction: FftDirection| -> Vec<Arc<dyn rustfft::Fft<T>>> {
            self.lengths
                .iter()
                .map(|&n| planner.plan_fft(n, direction))
                .collect()
        };
        let scale = T::from_f64(1.0 / self.lengths.iter().map(|&n| n as f64).product::<f64>())
            .unwrap_or_else(T::one);
        match self.fft_type {
            FftType::Fft | FftType::Ifft => {
                let inverse = self.fft_type == FftType::Ifft;
                let direction = if inverse {
                    FftDirection::Inverse
                } else {
                    FftDirection::Forward
                };
                let plans = plans(direction);
                let mut data = x.to_vec();
                data.par_chunks_mut(item).for_each(|chunk| {
                    for (axis, plan) in plans.iter().enumerate() {
                        transform_axis(chunk, item_shape, axis, plan);
                    }
                    if inverse {
                        chunk.iter_mut().for_each(|z| *z = *z * scale);
                    }
                });
                Values::Complex(data)
            }
            FftType::Rfft => {
                let plans = plans(FftDirection::Forward);
                let out_item = item / last * half;
                let mut out = vec![Complex::new(T::zero(), T::zero()); x.len() / item * out_item];
                out.par_chunks_mut(out_item)
                    .zip(x.par_chunks(item))
                    .for_each(|(o, chunk)| {
                        let mut work = chunk.to_vec();
                        for (axis, plan) in plans.iter().enumerate() {
                            transform_axis(&mut work, item_shape, axis, plan);
                        }
                        for (row_out, row) in o.chunks_mut(half).zip(work.chunks(last)) {
                            row_out.copy_from_slice(&row[..half]);
                        }
                    });
                Values::Complex(out)
            }
            FftType::Irfft => {
                let plans = plans(FftDirection::Inverse);
                let out_item = item / half * last;
                let mut full_shape = item_shape.to_vec();
                full_shape[k - 1] = last;
                let mut out = vec![T::zero(); x.len() / item * out_item];
                out.par_chunks_mut(out_item)
                    .zip(x.par_chunks(item))
                    .for_each(|(o, chunk)| {
                        let mut work = chunk.to_vec();
                        for (axis, plan) in plans[..k - 1].iter().enumerate() {
                            transform_axis(&mut work, item_shape, axis, plan);
                        }
                        let mut full = Vec::with_capacity(out_item);
                        for row in work.chunks(half) {
                            for j in 0..last {
                                full.push(if j < half {
                                    row[j]
                                } else {
                                    row[last - j].conj()
                                });
                            }
                        }
                        transform_axis(&mut full, &full_shape, k - 1, &plans[k - 1]);
                        for (v, z) in o.iter_mut().zip(&full) {
                            *v = z.re * scale;
                        }
                    });
                Values::Real(out)
            }
        }
    }
}

/// Builds the result storage of a transform's values.
trait IntoStorage {
    fn into_storage(self, dtype: DType) -> Result<Storage>;
}

impl IntoStorage for Values<f32> {
    fn into_storage(self, dtype: DType) -> Result<Storage> {
        match (self, dtype) {
            (Values::Complex(v), DType::C64) => Ok(Storage::C64(v)),
            (Values::Real(v), DType::F32) => Ok(Storage::F32(v)),
            _ => Err(CpuError::new(format!(
                "fft: f32 values for a {dtype} result"
            ))),
        }
    }
}

impl IntoStorage for Values<f64> {
    fn into_storage(self, dtype: DType) -> Result<Storage> {
        match (self, dtype) {
            (Values::Complex(v), DType::C128) => Ok(Storage::C128(v)),
            (Values::Real(v), DType::F64) => Ok(Storage::F64(v)),
            _ => Err(CpuError::new(format!(
                "fft: f64 values for a {dtype} result"
            ))),
        }
    }
}

/// Runs `plan` along dimension `axis` of the row-major `data` of shape `shape`, in place: the
/// last dimension's rows directly (contiguous), others through a gathered line.
fn transform_axis<T: FftNum>(
    data: &mut [Complex<T>],
    shape: &[usize],
    axis: usize,
    plan: &Arc<dyn rustfft::Fft<T>>,
) {
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    if len == 0 || inner == 0 || data.is_empty() {
        return;
    }
    let mut scratch = vec![Complex::new(T::zero(), T::zero()); plan.get_inplace_scratch_len()];
    if inner == 1 {
        plan.process_with_scratch(data, &mut scratch);
        return;
    }
    let mut line = vec![Complex::new(T::zero(), T::zero()); len];
    for block in data.chunks_mut(len * inner) {
        for i in 0..inner {
            for (j, z) in line.iter_mut().enumerate() {
                *z = block[j * inner + i];
            }
            plan.process_with_scratch(&mut line, &mut scratch);
            for (j, z) in line.iter().enumerate() {
                block[j * inner + i] = *z;
            }
        }
    }
}
