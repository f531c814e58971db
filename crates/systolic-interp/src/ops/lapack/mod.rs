//! JAX's LAPACK custom calls (`custom_call @lapack_{s,d,c,z}{getrf,potrf,geqrf,orgqr/ungqr,
//! syevd/heevd,gesdd,trsm,geev}_ffi`, read by [`systolic_ir::lapack`]): what `jnp.linalg` and
//! `jax.scipy.linalg` lower to on CPU.
//!
//! [`driver::run`] is the one implementation; the interpreter calls it here, sequentially, and
//! the CPU backend's kernel calls it on its buffers in parallel, so both paths compute the same
//! factorisations. It is built on the `faer` crate (LU, Cholesky, triangular solves, the
//! symmetric and general eigensolvers and the SVD, real and complex): pure Rust, blocked and recursive, within a small factor
//! of an optimised LAPACK and faster than nalgebra on every decomposition here; bindings to a
//! system LAPACK would need a C/Fortran toolchain and library on every machine. QR is written
//! out ([`householder`]) because JAX reads LAPACK's packed reflectors, whose conventions faer
//! does not promise.
//!
//! Unlike the interpreter's other ops, results are computed in the element type (f32 in f32),
//! as LAPACK computes them: the decompositions are not correctly rounded, and JAX's own
//! results differ from any reference by their backward error anyway.

pub mod driver;
mod factor;
mod general_eigen;
mod householder;
mod reduction;
mod schur;
mod spectral;

use crate::error::{InterpError, Result};
use crate::value::Value;
use driver::{Exec, LapackOut, Real, Scalar};
use num_complex::{Complex32, Complex64};
use systolic_ir::lapack::LapackCall;
use systolic_ir::{DType, Data, Tensor, Type};

/// Evaluates a LAPACK custom call on the interpreter's values.
pub fn eval(call: &LapackCall, args: &[Value], result_types: &[Type]) -> Result<Vec<Value>> {
    let tensors = crate::ops::reduce::operands::tensor_args(args)?;
    let Some(first) = tensors.first() else {
        crate::bail!("{} takes operands, got none", call.target);
    };
    let call = &call.clone().with_operand_dtype(first.dtype());
    match call.dtype {
        DType::F32 => run_typed::<f32>(call, &tensors, result_types),
        DType::F64 => run_typed::<f64>(call, &tensors, result_types),
        DType::C64 => run_typed::<Complex32>(call, &tensors, result_types),
        DType::C128 => run_typed::<Complex64>(call, &tensors, result_types),
        other => crate::bail!("{}: element type {other} is not supported", call.target),
    }
}

/// The elements of `t` as complex f64 values (real tensors with zero imaginary parts).
fn complex_values(t: &Tensor) -> Vec<Complex64> {
    match t.data() {
        Data::Complex(v) => v.clone(),
        _ => t
            .to_f64_vec()
            .into_iter()
            .map(|x| Complex64::new(x, 0.0))
            .collect(),
    }
}

fn run_typed<T: Scalar>(
    call: &LapackCall,
    tensors: &[&Tensor],
    result_types: &[Type],
) -> Result<Vec<Value>> {
    for t in tensors {
        if t.dtype() != T::DTYPE {
            crate::bail!(
                "{} works on {}, got an operand of type {}",
                call.target,
                T::DTYPE,
                t.ty()
            );
        }
    }
    let data: Vec<Vec<T>> = tensors
        .iter()
        .map(|t| complex_values(t).into_iter().map(T::from_c64).collect())
        .collect();
    let operands: Vec<(&[i64], &[T])> = tensors
        .iter()
        .zip(&data)
        .map(|(t, d)| (t.shape(), d.as_slice()))
        .collect();
    let outs =
        driver::run(call, &operands, result_types, Exec::Sequential).map_err(InterpError::new)?;
    outs.into_iter()
        .zip(result_types)
        .map(|(out, ty)| {
            let Type::Tensor(ty) = ty else {
                crate::bail!("{}: results must be tensors, got {ty}", call.target);
            };
            let complex = |v: Vec<Complex64>| {
                if ty.dtype.is_complex() {
                    Data::Complex(v)
                } else {
                    Data::Float(v.into_iter().map(|z| z.re).collect())
                }
            };
            let data = match out {
                LapackOut::Same(v) => complex(v.into_iter().map(Scalar::to_c64).collect()),
                LapackOut::Real(v) => Data::Float(v.into_iter().map(Real::to_f64).collect()),
                LapackOut::Complex(v) => complex(
                    v.into_iter()
                        .map(|z| Complex64::new(z.re.to_f64(), z.im.to_f64()))
                        .collect(),
                ),
                LapackOut::Int(v) => Data::Int(v.into_iter().map(i64::from).collect()),
            };
            Tensor::new(ty.clone(), data)
                .map(Value::Tensor)
                .map_err(|e| InterpError::new(format!("{}: {e}", call.target)))
        })
        .collect()
}
