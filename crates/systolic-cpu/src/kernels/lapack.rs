//! JAX's LAPACK custom calls (`lapack_{s,d,c,z}*_ffi`, [`systolic_ir::lapack`]) as kernels: the
//! interpreter's implementation ([`systolic_interp::ops::lapack::driver`]) run on the buffers'
//! slices, with a batch's matrices in parallel (or faer's parallel algorithms for one matrix).
//! The calls run on the backend's IEEE threads ([`crate::threads::run_ieee`]): faer's
//! arithmetic is written for IEEE subnormals, which the kernels' threads flush.
//! Complex calls are native too (the one op family on complex values besides `fft` that does
//! not run on the fallback). A call that cannot be read (an unknown routine or layout) is an
//! error at compile time naming the target, as the interpreter would report it at run time.

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernel::{Arg, Kernel};
use crate::kernels::shape::elem::{elems, Elem};
use crate::lower_ctx::LowerCtx;
use num_complex::{Complex, Complex32, Complex64};
use systolic_interp::ops::lapack::driver::{self, Exec, LapackOut, Scalar};
use systolic_ir::lapack::LapackCall;
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
        match self.call.dtype {
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
