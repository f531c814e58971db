//! Small dense linear algebra: batched cholesky and triangular_solve, computed in f64 with the
//! interpreter's operation order and rounded once (bit-exact with it), batches in parallel.
//! Complex element types and malformed shapes are left to the interpreter.

pub mod cholesky;
pub mod matrix;
pub mod triangular_solve;

use crate::error::Result;
use crate::kernel::Kernel;
use crate::lower_ctx::LowerCtx;
use matrix::matrix_dims;
use systolic_ir::{Op, OpKind, TransposeKind};

/// A linear-algebra kernel for `op`, or `None` to let the interpreter run it.
pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>> {
    let operands = ctx.operand_types(op)?;
    let results = ctx.result_types(op)?;
    let is_float = |d: systolic_ir::DType| d.is_float();
    match (&op.kind, operands.as_slice(), results.as_slice()) {
        (OpKind::Cholesky { lower }, [a], [result]) => {
            let Some((_, n, n2)) = matrix_dims(&a.shape) else {
                return Ok(None);
            };
            if n != n2 || result != a || !is_float(a.dtype) {
                return Ok(None);
            }
            Ok(Some(Box::new(cholesky::CholeskyKernel {
                lower: *lower,
                n,
                ty: (*a).clone(),
            })))
        }
        (
            OpKind::TriangularSolve {
                left_side,
                lower,
                unit_diagonal,
                transpose_a,
            },
            [a, b],
            [result],
        ) => {
            let (Some((batch, m, m2)), Some((b_batch, rows, cols))) =
                (matrix_dims(&a.shape), matrix_dims(&b.shape))
            else {
                return Ok(None);
            };
            let r = a.rank();
            let solved = if *left_side { rows } else { cols };
            let fits = m == m2
                && b.rank() == r
                && a.shape[..r - 2] == b.shape[..r - 2]
                && batch == b_batch
                && solved == m
                && a.dtype == b.dtype
                && result == b
                && is_float(a.dtype);
            if !fits {
                return Ok(None);
            }
            Ok(Some(Box::new(triangular_solve::TriangularSolveKernel {
                left_side: *left_side,
                lower: *lower,
                unit_diagonal: *unit_diagonal,
                transposed: *transpose_a != TransposeKind::NoTranspose,
                m,
                rows,
                cols,
                ty: (*b).clone(),
            })))
        }
        _ => Ok(None),
    }
}
