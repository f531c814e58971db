//! JAX's LAPACK custom calls (`lapack_{s,d,c,z}*_ffi`, [`systolic_ir::lapack`]) as kernels: the
//! interpreter's implementation ([`systolic_interp::ops::lapack::driver`]) run on the buffers'
//! slices, with a batch's matrices in parallel (or faer's parallel algorithms for one matrix).
//! The calls run on the backend's IEEE threads ([`crate::threads::run_ieee`]): faer's
//! arithmetic is written for IEEE subnormals, which the kernels' threads flush.
//! Complex calls are native too (the one op family on complex values besides `fft` that does
//! not run on the fallback). Real `getrf` has an implementation of its own ([`lu`]), blocked
//! for the row-major matrices the buffers hold, instead of the driver's copies into faer's
//! column-major layout. A call that cannot be read (an unknown routine or layout) is an
//! error at compile time naming the target, as the interpreter would report it at run time.

mod lu;

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::shape::elem::{elems, Elem};
use crate::lower_ctx::LowerCtx;
use num_complex::{Complex, Complex32, Complex64};
use systolic_interp::ops::lapack::driver::{self, Exec, LapackOut, Scalar};
use systolic_ir::lapack::{Convention, LapackCall, Routine};
use systolic_ir::{DType, Op, TensorType, Type};

/// A kernel for `op` when it is a LAPACK custom call; `None` for any other op.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let Some(call) = LapackCall::from_op(op) else {
        return Ok(None);
    };
    let operands: Vec<TensorType> = ctx.operand_types(op)?.into_iter().cloned().collect();
    let Some(first) = operands.first() else {
        return Err(CpuError::new(format!("{}: no operands", op.kind.name())));
    };
    let call = call.map_err(CpuError::new)?.with_operand_dtype(first.dtype);
    let results: Vec<TensorType> = ctx.result_types(op)?.into_iter().cloned().collect();
    let operand_types: Vec<Type> = operands.iter().cloned().map(Type::Tensor).collect();
    let result_types: Vec<Type> = results.iter().cloned().map(Type::Tensor).collect();
    call.check(&operand_types, &result_types)
        .map_err(CpuError::new)?;
    Ok(Some(Box::new(LapackKernel {
        call,
        operands,
        results,
        result_types,
    })))
}

/// A compiled LAPACK call.
#[derive(Debug)]
pub struct LapackKernel {
    call: LapackCall,
    operands: Vec<TensorType>,
    results: Vec<TensorType>,
    result_types: Vec<Type>,
}

impl LapackKernel {
    fn run_typed<T>(&self, args: &[Arg<'_>]) -> Result<Vec<CpuBuffer>>
    where
        T: Scalar + Elem,
        T::Real: Elem,
        Complex<T::Real>: Elem,
    {
        let name = &self.call.target;
        let slices = args
            .iter()
            .map(|a| elems::<T>(a.buffer(), name))
            .collect::<Result<Vec<_>>>()?;
        let operands: Vec<(&[i64], &[T])> = self
            .operands
            .iter()
            .zip(slices)
            .map(|(t, s)| (t.shape.as_slice(), s))
            .collect();
        // faer relies on IEEE subnormals (complex divisions): run it on IEEE threads.
        let outs = crate::threads::run_ieee(|| {
            driver::run(&self.call, &operands, &self.result_types, Exec::Parallel)
        })
        .map_err(CpuError::new)?;
        outs.into_iter()
            .zip(&self.results)
            .map(|(out, ty)| {
                let storage = match out {
                    LapackOut::Same(v) => T::wrap(v),
                    LapackOut::Real(v) => T::Real::wrap(v),
                    LapackOut::Complex(v) => Complex::<T::Real>::wrap(v),
                    LapackOut::Int(v) => i32::wrap(v),
                };
                CpuBuffer::new(ty.clone(), storage)
                    .map_err(|e| CpuError::new(format!("{name}: {e}")))
            })
            .collect()
    }

    /// LAPACK's `getrf` on real matrices with [`lu::getrf`]: the factors overwrite the
    /// operand's storage when it dies here (JAX aliases the result to the operand), the
    /// batch's matrices one per task.
    fn getrf_native<T>(&self, mut args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>>
    where
        T: lu::LuReal + Elem,
    {
        use rayon::prelude::*;
        let name = &self.call.target;
        let shape = &self.operands[0].shape;
        let r = shape.len();
        if r < 2 {
            return Err(CpuError::new(format!(
                "{name}: expected a batch of matrices, got {}",
                self.operands[0]
            )));
        }
        let (m, n) = (shape[r - 2] as usize, shape[r - 1] as usize);
        let k = m.min(n);
        let batch: usize = shape[..r - 2].iter().map(|&d| d as usize).product();
        let operand = args.remove(0);
        let mut factors = match operand {
            Arg::Owned(_) => operand.into_owned(),
            Arg::Borrowed(b) => {
                // A pooled vector, not a clone's fresh allocation (its pages fault in anew on
                // every run).
                let from = elems::<T>(b, name)?;
                let mut storage = crate::pool::take(self.operands[0].dtype, from.len());
                T::slice_mut(&mut storage)
                    .ok_or_else(|| CpuError::new(format!("{name}: element type mismatch")))?
                    .copy_from_slice(from);
                CpuBuffer::new(self.operands[0].clone(), storage)
                    .map_err(|e| CpuError::new(format!("{name}: {e}")))?
            }
        };
        let a = T::slice_mut(factors.storage_mut()).ok_or_else(|| {
            CpuError::new(format!(
                "{name}: operand of type {} does not hold the expected element type",
                self.operands[0]
            ))
        })?;
        let mut ipiv = vec![0i32; batch * k];
        let mut info = vec![0i32; batch];
        if m > 0 && n > 0 {
            crate::threads::run_ieee(|| {
                if batch == 1 {
                    // One matrix: its trailing products may use both cores.
                    info[0] = lu::getrf(a, m, n, &mut ipiv, gemm::Parallelism::Rayon(0));
                } else {
                    a.par_chunks_mut(m * n)
                        .zip(ipiv.par_chunks_mut(k))
                        .zip(info.par_iter_mut())
                        .for_each(|((a, ipiv), info)| {
                            *info = lu::getrf(a, m, n, ipiv, gemm::Parallelism::None)
                        });
                }
            });
        }
        let wrap = |ty: &TensorType, v: Vec<i32>| {
            CpuBuffer::new(ty.clone(), i32::wrap(v))
                .map_err(|e| CpuError::new(format!("{name}: {e}")))
        };
        Ok(vec![
            factors,
            wrap(&self.results[1], ipiv)?,
            wrap(&self.results[2], info)?,
        ])
    }
}

impl Kernel for LapackKernel {
    fn name(&self) -> String {
        format!("{} {}", self.call.target, self.operands[0])
    }

    fn run(&self, args: Vec<Arg<'_>>) -> Result<Vec<CpuBuffer>> {
        if args.len() != self.operands.len() {
            return Err(CpuError::new(format!(
                "{} expects {} operands, got {}",
                self.call.target,
                self.operands.len(),
                args.len()
            )));
        }
        let native_lu =
            self.call.routine == Routine::Getrf && self.call.convention == Convention::Lapack;
        match self.call.dtype {
            DType::F32 if native_lu => self.getrf_native::<f32>(args),
            DType::F64 if native_lu => self.getrf_native::<f64>(args),
            DType::F32 => self.run_typed::<f32>(&args),
            DType::F64 => self.run_typed::<f64>(&args),
            DType::C64 => self.run_typed::<Complex32>(&args),
            DType::C128 => self.run_typed::<Complex64>(&args),
            other => Err(CpuError::new(format!(
                "{}: element type {other} is not supported",
                self.call.target
            ))),
        }
    }
}
