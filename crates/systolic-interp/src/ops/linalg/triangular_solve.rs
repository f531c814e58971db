//! `stablehlo.triangular_solve`: solves `op(a) · x = b` (left side) or `x · op(a) = b` (right
//! side) for batches of triangular `a`.
//!
//! Only the triangle `lower` names is read (the other is ignored, whatever it holds), and with
//! `unit_diagonal` the diagonal is taken as ones without being read. `op` is identity,
//! transpose, or adjoint (the conjugate transpose; = transpose for real types). The right-side
//! problem is solved as the transposed left-side one, `op(a)ᵀ · xᵀ = bᵀ`. Substitution runs in
//! f64 (complex numbers of f64 parts) and each result is rounded once to the element type. A zero on the diagonal gives infinities and NaNs, not an
//! error; which elements are inf and which NaN depends on the algorithm (XLA:CPU's blocked
//! solver turns some of this solver's infinities into NaNs), so no backend should be compared
//! on singular systems.

use super::matrices::{matrix_dims, Field};
use crate::bail;
use crate::error::Result;
use crate::ops::reduce::operands::{expect_result_type, new_tensor};
use systolic_ir::{Complex64, Tensor, TensorType, TransposeKind};

/// The op's flags.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Solve `op(a) x = b` rather than `x op(a) = b`.
    pub left_side: bool,
    /// Read the lower triangle of `a`.
    pub lower: bool,
    /// Take the diagonal of `a` as ones.
    pub unit_diagonal: bool,
    /// `op`.
    pub transpose_a: TransposeKind,
}

/// Evaluates a triangular solve.
pub fn triangular_solve(
    a: &Tensor,
    b: &Tensor,
    opts: Options,
    result_ty: &TensorType,
) -> Result<Tensor> {
    let (batch, m, m2) = matrix_dims(a, "a")?;
    let (b_batch, rows, cols) = matrix_dims(b, "b")?;
    if m != m2 {
        bail!(
            "a must be square in its last two dimensions, got {}",
            a.ty()
        );
    }
    let (ar, br) = (a.shape().len(), b.shape().len());
    if ar != br || a.shape()[..ar - 2] != b.shape()[..br - 2] || batch != b_batch {
        bail!(
            "a {} and b {} must have the same batch dimensions",
            a.ty(),
            b.ty()
        );
    }
    let solved_dim = if opts.left_side { rows } else { cols };
    if solved_dim != m {
        bail!(
            "b {} must have {m} {} to match a {}",
            b.ty(),
            if opts.left_side { "rows" } else { "columns" },
            a.ty()
        );
    }
    if a.dtype() != b.dtype() {
        bail!(
            "a {} and b {} must share their element type",
            a.ty(),
            b.ty()
        );
    }
    expect_result_type(result_ty, b.ty())?;
    let dims = (batch, m, rows, cols);
    let data = if a.dtype().is_complex() {
        solve::<Complex64>(a, b, opts, dims)?
    } else {
        solve::<f64>(a, b, opts, dims)?
    };
    new_tensor(result_ty.clone(), data)
}

/// The substitution over every matrix of the batch, in the numbers `T`.
fn solve<T: Field>(
    a: &Tensor,
    b: &Tensor,
    opts: Options,
    (batch, m, rows, cols): (usize, usize, usize, usize),
) -> Result<systolic_ir::Data> {
    let (Some(av), Some(bv)) = (T::elements(a), T::elements(b)) else {
        bail!(
            "a {} and b {} hold elements of another kind",
            a.ty(),
            b.ty()
        );
    };
    let transposed = opts.transpose_a != TransposeKind::NoTranspose;
    let adjoint = opts.transpose_a == TransposeKind::Adjoint;
    let mut out = vec![T::ZERO; bv.len()];
    for k in 0..batch {
        let a_k = &av[k * m * m..(k + 1) * m * m];
        // t[i][j] = op(a)[i][j] restricted to the triangle, or its transpose for the right side.
        let read = |i: usize, j: usize| -> T {
            let (r, c) = if transposed { (j, i) } else { (i, j) };
            let in_triangle = if opts.lower { c <= r } else { c >= r };
            if r == c && opts.unit_diagonal {
                T::ONE
            } else if in_triangle && adjoint {
                a_k[r * m + c].conj()
            } else if in_triangle {
                a_k[r * m + c]
            } else {
                T::ZERO
            }
        };
        let t = |i: usize, j: usize| {
            if opts.left_side {
                read(i, j)
            } else {
                read(j, i)
            }
        };
        // Lower triangular after op and the right-side transpose?
        let t_lower = opts.lower ^ transposed ^ !opts.left_side;
        let rhs_count = if opts.left_side { cols } else { rows };
        let b_k = &bv[k * rows * cols..(k + 1) * rows * cols];
        // Element (i, r) of the left-side right-hand sides: b, or bᵀ for the right side.
        let b_at = |i: usize, r: usize| {
            if opts.left_side {
                b_k[i * cols + r]
            } else {
                b_k[r * cols + i]
            }
        };
        for r in 0..rhs_count {
            let mut x = vec![T::ZERO; m];
            let order: Vec<usize> = if t_lower {
                (0..m).collect()
            } else {
                (0..m).rev().collect()
            };
            for (done, &i) in order.iter().enumerate() {
                let mut s = b_at(i, r);
                for &j in &order[..done] {
                    s = s - t(i, j) * x[j];
                }
                x[i] = s / t(i, i);
            }
            for (i, &xi) in x.iter().enumerate() {
                let pos = if opts.left_side {
                    i * cols + r
                } else {
                    r * cols + i
                };
                out[k * rows * cols + pos] = xi;
            }
        }
    }
    Ok(T::data(out, b.dtype()))
}
