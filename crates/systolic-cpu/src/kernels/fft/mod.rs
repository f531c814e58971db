//! `stablehlo.fft` as a native kernel: `rustfft` (and `realfft` on its plans for the real
//! transforms) in the element precision (f32 for `complex<f32>`/f32, f64 for the others), as
//! XLA:CPU's ducc computes; the batch (the dimensions before the transformed ones) split over
//! the pool's threads, and a long run of rows of one item too. Plans are made at lowering. A
//! long last dimension of FFT/IFFT is transformed by the four-step method ([`four_step`]):
//! two short plans instead of one long one, and both passes threaded.
//!
//! The transforms are the interpreter's (`systolic_interp::ops::linalg::fft`): FFT/IFFT along
//! each of the last 1–3 dimensions (IFFT scaled by 1/N), RFFT as the real-to-complex transform
//! of the last dimension (its first `n/2 + 1` frequencies) then complex transforms of the
//! leading ones, IRFFT as the inverse transforms of the leading dimensions, then the last
//! dimension's complex-to-real transform (the imaginary parts of its zero and Nyquist bins
//! ignored). The interpreter computes in f64, so f32 results differ from it by
//! f32 rounding (about log2(n) roundings of the largest magnitudes).

use crate::buffer::{CpuBuffer, Storage};
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::lower_ctx::LowerCtx;
use num_complex::Complex;
use rayon::prelude::*;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{FftDirection, FftNum, FftPlanner};
use std::sync::Arc;
use systolic_ir::{DType, FftType, Op, OpKind, TensorType};

mod four_step;

use four_step::FourStep;

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
    let plans = if matches!(operand.dtype, DType::C64 | DType::F32) {
        Plans::F32(PlanSet::new(*fft_type, &lengths))
    } else {
        Plans::F64(PlanSet::new(*fft_type, &lengths))
    };
    Ok(Some(Box::new(FftKernel {
        fft_type: *fft_type,
        lengths,
        operand: (*operand).clone(),
        result: (*result).clone(),
        plans,
    })))
}

/// The plans of one kernel, made once when it is lowered (planning picks algorithms and
/// computes twiddles: for a batch of short transforms it cost as much as the transforms).
struct PlanSet<T: FftNum> {
    /// Complex plans for the leading transformed dimensions (all but the last).
    axes: Vec<Arc<dyn rustfft::Fft<T>>>,
    /// The last dimension's complex plan (FFT and IFFT).
    last: Option<LastAxis<T>>,
    /// The last dimension's real-to-complex plan (RFFT).
    r2c: Option<Arc<dyn RealToComplex<T>>>,
    /// The last dimension's complex-to-real plan (IRFFT).
    c2r: Option<Arc<dyn ComplexToReal<T>>>,
}

/// How FFT and IFFT transform the last dimension.
enum LastAxis<T: FftNum> {
    /// One rustfft plan of its length, rows of the batch in tasks over the pool.
    Direct(Arc<dyn rustfft::Fft<T>>),
    /// A long length: the four-step method, row after row, each threaded inside.
    FourStep(FourStep<T>),
}

impl<T: FftNum> PlanSet<T> {
    fn new(fft_type: FftType, lengths: &[usize]) -> PlanSet<T> {
        let (k, last) = (lengths.len(), lengths[lengths.len() - 1]);
        let mut planner = FftPlanner::<T>::new();
        let mut real = RealFftPlanner::<T>::new();
        let direction = if matches!(fft_type, FftType::Ifft | FftType::Irfft) {
            FftDirection::Inverse
        } else {
            FftDirection::Forward
        };
        let axes = lengths[..k - 1]
            .iter()
            .map(|&n| planner.plan_fft(n, direction))
            .collect();
        let mut plans = PlanSet {
            axes,
            last: None,
            r2c: None,
            c2r: None,
        };
        match fft_type {
            FftType::Fft | FftType::Ifft => {
                plans.last = Some(match FourStep::new(last, direction, &mut planner) {
                    Some(four_step) => LastAxis::FourStep(four_step),
                    None => LastAxis::Direct(planner.plan_fft(last, direction)),
                })
            }
            FftType::Rfft => plans.r2c = Some(real.plan_fft_forward(last)),
            FftType::Irfft => plans.c2r = Some(real.plan_fft_inverse(last)),
        }
        plans
    }
}

/// The element precisions the kernel computes in, with pooled vectors of their complex
/// numbers and reals: outputs and scratch come from [`crate::pool`], so a steady state of
/// runs does not fault in fresh pages for them every time.
trait Precision: FftNum {
    /// A vector of `n` complex numbers whose contents do not matter (the caller writes all).
    fn take_complex(n: usize) -> Vec<Complex<Self>>;
    /// A vector of `n` reals whose contents do not matter.
    fn take_real(n: usize) -> Vec<Self>;
    /// Hands scratch back to the pool.
    fn recycle_complex(v: Vec<Complex<Self>>);
}

macro_rules! precision {
    ($t:ty) => {
        impl Precision for $t {
            fn take_complex(n: usize) -> Vec<Complex<$t>> {
                crate::pool::take_vec(n)
            }
            fn take_real(n: usize) -> Vec<$t> {
                crate::pool::take_vec(n)
            }
            fn recycle_complex(v: Vec<Complex<$t>>) {
                crate::pool::recycle_vec(v);
            }
        }
    };
}

precision!(f32);
precision!(f64);

/// The plans in the kernel's precision.
enum Plans {
    F32(PlanSet<f32>),
    F64(PlanSet<f64>),
}

impl std::fmt::Debug for Plans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Plans::F32(_) => "Plans::F32",
            Plans::F64(_) => "Plans::F64",
        })
    }
}

/// A compiled `fft`.
#[derive(Debug)]
pub struct FftKernel {
    fft_type: FftType,
    /// The transform lengths of the trailing dimensions.
    lengths: Vec<usize>,
    operand: TensorType,
    result: TensorType,
    plans: Plans,
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
        let values = match (x.buffer().storage(), &self.plans) {
            (Storage::C64(v), Plans::F32(p)) => Ok(self.complex_input(v, p).into_storage()),
            (Storage::C128(v), Plans::F64(p)) => Ok(self.complex_input(v, p).into_storage()),
            (Storage::F32(v), Plans::F32(p)) => Ok(Storage::C64(self.rfft(v, p))),
            (Storage::F64(v), Plans::F64(p)) => Ok(Storage::C128(self.rfft(v, p))),
            _ => Err(CpuError::new(format!(
                "fft: operand {} does not hold {}",
                x.buffer().ty(),
                self.operand
            ))),
        }?;
        let out = CpuBuffer::new(self.result.clone(), values)
            .map_err(|e| CpuError::new(format!("fft: {e}")))?;
        Ok(vec![out])
    }
}

/// The result of a transform of a complex operand: complex numbers, or reals for IRFFT.
enum Values<T> {
    Complex(Vec<Complex<T>>),
    Real(Vec<T>),
}

impl Values<f32> {
    fn into_storage(self) -> Storage {
        match self {
            Values::Complex(v) => Storage::C64(v),
            Values::Real(v) => Storage::F32(v),
        }
    }
}

impl Values<f64> {
    fn into_storage(self) -> Storage {
        match self {
            Values::Complex(v) => Storage::C128(v),
            Values::Real(v) => Storage::F64(v),
        }
    }
}

impl FftKernel {
    /// The transformed dimensions' shape (one item of the batch) and its element count.
    fn item_shape(&self) -> (Vec<usize>, usize) {
        let k = self.lengths.len();
        let shape: Vec<usize> = self.operand.shape[self.operand.rank() - k..]
            .iter()
            .map(|&d| d as usize)
            .collect();
        let item = shape.iter().product();
        (shape, item)
    }

    /// FFT, IFFT and IRFFT, whose operand is complex. The last dimension's rows are
    /// transformed across the whole batch at once ([`rows_in_parallel`]), or row by row by
    /// the four-step method when long, the leading transformed dimensions item by item.
    fn complex_input<T: Precision>(&self, x: &[Complex<T>], plans: &PlanSet<T>) -> Values<T> {
        if self.fft_type == FftType::Irfft {
            return Values::Real(self.irfft(x, plans));
        }
        let (item_shape, item) = self.item_shape();
        let k = self.lengths.len();
        let inverse = self.fft_type == FftType::Ifft;
        let mut data = T::take_complex(x.len());
        // Whether IFFT's 1/N is applied yet.
        let mut scaled = false;
        match &plans.last {
            Some(LastAxis::FourStep(plan)) => {
                let mut work = T::take_complex(plan.len());
                let scale = inverse.then(|| self.inverse_scale::<T>());
                for (row, out) in x.chunks(plan.len()).zip(data.chunks_mut(plan.len())) {
                    plan.process(row, out, &mut work, scale);
                }
                T::recycle_complex(work);
                scaled = true;
            }
            Some(LastAxis::Direct(plan)) => {
                data.copy_from_slice(x);
                rows_in_parallel(&mut data, plan);
            }
            None => data.copy_from_slice(x),
        }
        if k > 1 {
            data.par_chunks_mut(item).for_each(|chunk| {
                for (axis, plan) in plans.axes.iter().enumerate() {
                    transform_axis(chunk, &item_shape, axis, plan);
                }
            });
        }
        if inverse && !scaled {
            let scale = self.inverse_scale::<T>();
            data.par_iter_mut().for_each(|z| *z = *z * scale);
        }
        Values::Complex(data)
    }

    /// `1 / (product of the lengths)`, IFFT's and IRFFT's normalisation.
    fn inverse_scale<T: FftNum>(&self) -> T {
        T::from_f64(1.0 / self.lengths.iter().map(|&n| n as f64).product::<f64>())
            .unwrap_or_else(T::one)
    }

    /// The real-to-complex transform of a real operand: the rows of the last dimension by
    /// realfft (half the work of a complex transform) across the whole batch, then the leading
    /// transformed dimensions of the half spectrum item by item.
    fn rfft<T: Precision>(&self, x: &[T], plans: &PlanSet<T>) -> Vec<Complex<T>> {
        let (mut half_shape, item) = self.item_shape();
        let k = self.lengths.len();
        let last = self.lengths[k - 1];
        let half = last / 2 + 1;
        half_shape[k - 1] = half;
        let Some(r2c) = &plans.r2c else {
            return vec![];
        };
        let rows = x.len() / last.max(1);
        // Every row of the half spectrum is written below.
        let mut out = T::take_complex(rows * half);
        let rows_per_task = (ROW_TASK_ELEMENTS / last.max(1)).max(1);
        out.par_chunks_mut(half * rows_per_task)
            .zip(x.par_chunks(last * rows_per_task))
            .for_each(|(o, chunk)| {
                let mut input = r2c.make_input_vec();
                let mut scratch = r2c.make_scratch_vec();
                for (row_out, row) in o.chunks_mut(half).zip(chunk.chunks(last)) {
                    input.copy_from_slice(row);
                    // The lengths were checked at lowering, so this cannot fail.
                    let _ = r2c.process_with_scratch(&mut input, row_out, &mut scratch);
                }
            });
        if k > 1 {
            let out_item = item / last * half;
            out.par_chunks_mut(out_item).for_each(|o| {
                for (axis, plan) in plans.axes.iter().enumerate() {
                    transform_axis(o, &half_shape, axis, plan);
                }
            });
        }
        out
    }

    /// The complex-to-real transform: the leading transformed dimensions of the half spectrum
    /// item by item, then the last dimension's rows by realfft across the whole batch. The
    /// imaginary parts of the zero and (even lengths) Nyquist bins are ignored, as pocketfft
    /// and the interpreter do.
    fn irfft<T: Precision>(&self, x: &[Complex<T>], plans: &PlanSet<T>) -> Vec<T> {
        let (item_shape, item) = self.item_shape();
        let k = self.lengths.len();
        let last = self.lengths[k - 1];
        let half = last / 2 + 1;
        let scale = self.inverse_scale::<T>();
        let Some(c2r) = &plans.c2r else {
            return vec![];
        };
        let mut work = T::take_complex(x.len());
        work.copy_from_slice(x);
        if k > 1 {
            work.par_chunks_mut(item).for_each(|chunk| {
                for (axis, plan) in plans.axes.iter().enumerate() {
                    transform_axis(chunk, &item_shape, axis, plan);
                }
            });
        }
        let rows = work.len() / half;
        // Every row of the result is written below.
        let mut out = T::take_real(rows * last);
        let rows_per_task = (ROW_TASK_ELEMENTS / last.max(1)).max(1);
        out.par_chunks_mut(last * rows_per_task)
            .zip(work.par_chunks_mut(half * rows_per_task))
            .for_each(|(o, chunk)| {
                let mut scratch = c2r.make_scratch_vec();
                for (row_out, row) in o.chunks_mut(last).zip(chunk.chunks_mut(half)) {
                    row[0].im = T::zero();
                    if last.is_multiple_of(2) {
                        row[half - 1].im = T::zero();
                    }
                    let _ = c2r.process_with_scratch(row, row_out, &mut scratch);
                    row_out.iter_mut().for_each(|v| *v = *v * scale);
                }
            });
        T::recycle_complex(work);
        out
    }
}

/// Elements of rows one task transforms at least (whole rows): enough to outweigh a task's
/// start and its scratch buffer.
const ROW_TASK_ELEMENTS: usize = 32_768;

/// Runs `plan` on the rows (of its length) of `data`, tasks of whole rows over the pool, each
/// task with its own scratch buffer.
fn rows_in_parallel<T: FftNum>(data: &mut [Complex<T>], plan: &Arc<dyn rustfft::Fft<T>>) {
    let len = plan.len();
    if len == 0 || data.is_empty() {
        return;
    }
    let rows_per_task = (ROW_TASK_ELEMENTS / len).max(1);
    data.par_chunks_mut(len * rows_per_task).for_each(|rows| {
        let mut scratch = vec![Complex::new(T::zero(), T::zero()); plan.get_inplace_scratch_len()];
        plan.process_with_scratch(rows, &mut scratch);
    });
}

/// Lines of a strided dimension transformed together: gathered into one contiguous buffer so
/// each pass reads whole cache lines and rustfft runs them as one batch.
const LINES_PER_GATHER: usize = 16;

/// Runs `plan` along dimension `axis` of the row-major `data` of shape `shape`, in place: the
/// last dimension's rows directly (contiguous, as one batch, rows split over the pool when
/// there are many), others gathered [`LINES_PER_GATHER`] lines at a time.
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
    let zero = Complex::new(T::zero(), T::zero());
    if inner == 1 {
        rows_in_parallel(data, plan);
        return;
    }
    let mut scratch = vec![zero; plan.get_inplace_scratch_len()];
    let mut lines = vec![zero; len * LINES_PER_GATHER];
    for block in data.chunks_mut(len * inner) {
        for first in (0..inner).step_by(LINES_PER_GATHER) {
            let count = LINES_PER_GATHER.min(inner - first);
            let buf = &mut lines[..len * count];
            for j in 0..len {
                let src = &block[j * inner + first..j * inner + first + count];
                for (c, &z) in src.iter().enumerate() {
                    buf[c * len + j] = z;
                }
            }
            plan.process_with_scratch(buf, &mut scratch);
            for j in 0..len {
                let dst = &mut block[j * inner + first..j * inner + first + count];
                for (c, z) in dst.iter_mut().enumerate() {
                    *z = buf[c * len + j];
                }
            }
        }
    }
}
