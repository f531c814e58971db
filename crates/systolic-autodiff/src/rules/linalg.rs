//! `triangular_solve` (linear in its right-hand side; the matrix's tangent through the
//! product rule for the inverse) and `cholesky` (L̇ = L·Φ(L⁻¹ sym(Ȧ) L⁻ᴴ), Φ = lower triangle
//! with the diagonal halved, sym(Ȧ) = (Ȧ + Ȧᴴ)/2). On complex matrices the transposes of the
//! maths are conjugate transposes (Hermitian factors), while the transpose of the linear map
//! itself does not conjugate (JAX's convention).

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::ComparisonDirection as Dir;
use systolic_ir::{
    Complex64, DType, DotDimensionNumbers, Op, OpKind, Tensor, TensorType, TransposeKind, ValueId,
};

/// Swaps the last two dimensions.
fn mt(b: &mut Builder, x: ValueId) -> Res<ValueId> {
    let r = b.shape(x).len() as i64;
    let mut perm: Vec<i64> = (0..r).collect();
    perm.swap(r as usize - 2, r as usize - 1);
    b.transpose(x, &perm)
}

/// The conjugate transpose of the trailing matrices (the transpose for real ones).
fn adjoint(b: &mut Builder, x: ValueId) -> Res<ValueId> {
    let t = mt(b, x)?;
    if b.dtype(t).is_complex() {
        super::elementwise::conj(b, t)
    } else {
        Ok(t)
    }
}

/// Batched matrix product over leading batch dimensions.
fn matmul(b: &mut Builder, x: ValueId, y: ValueId) -> Res<ValueId> {
    let r = b.shape(x).len() as i64;
    let batch: Vec<i64> = (0..r - 2).collect();
    let dt = b.dtype(x);
    b.dot_general(
        x,
        y,
        DotDimensionNumbers {
            lhs_batching_dimensions: batch.clone(),
            rhs_batching_dimensions: batch,
            lhs_contracting_dimensions: vec![r - 1],
            rhs_contracting_dimensions: vec![r - 2],
        },
        vec![],
        dt,
    )
}

/// A triangle mask of `like`'s (square) trailing matrices.
fn triangle(b: &mut Builder, like: ValueId, lower: bool, strict: bool) -> Res<ValueId> {
    let s = b.shape(like);
    let r = s.len() as i64;
    let ty = TensorType::new(s, DType::I32);
    let rows = b.emit_as(OpKind::Iota { dimension: r - 2 }, vec![], ty.clone())?;
    let cols = b.emit_as(OpKind::Iota { dimension: r - 1 }, vec![], ty)?;
    let dir = match (lower, strict) {
        (true, false) => Dir::Ge,
        (true, true) => Dir::Gt,
        (false, false) => Dir::Le,
        (false, true) => Dir::Lt,
    };
    b.compare(dir, rows, cols)
}

fn solve(
    b: &mut Builder,
    a: ValueId,
    rhs: ValueId,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: TransposeKind,
) -> Res<ValueId> {
    b.emit(
        OpKind::TriangularSolve {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        },
        vec![a, rhs],
    )
}

pub(crate) fn triangular_solve_jvp(
    b: &mut Builder,
    op: &Op,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: ValueId,
) -> Res<Option<ValueId>> {
    let OpKind::TriangularSolve {
        left_side,
        lower,
        unit_diagonal,
        transpose_a,
    } = op.kind
    else {
        unreachable!()
    };
    let a = x[0];
    let mut out = None;
    if let Some(tb) = t[1] {
        out = Some(solve(
            b,
            a,
            tb,
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        )?);
    }
    if let Some(ta) = t[0] {
        let mask = triangle(b, a, lower, unit_diagonal)?;
        let zero = b.full_like(ta, 0.0)?;
        let mut m = b.select(mask, ta, zero)?;
        match transpose_a {
            TransposeKind::NoTranspose => {}
            TransposeKind::Transpose => m = mt(b, m)?,
            TransposeKind::Adjoint => m = adjoint(b, m)?,
        }
        let prod = if left_side {
            matmul(b, m, y)?
        } else {
            matmul(b, y, m)?
        };
        let s = solve(b, a, prod, left_side, lower, unit_diagonal, transpose_a)?;
        let n = b.neg(s)?;
        out = b.add_opt(out, Some(n))?;
    }
    Ok(out)
}

pub(crate) fn cholesky_jvp(
    b: &mut Builder,
    op: &Op,
    t: &[Option<ValueId>],
    y: ValueId,
) -> Res<Option<ValueId>> {
    let OpKind::Cholesky { lower } = op.kind else {
        unreachable!()
    };
    let Some(ta) = t[0] else { return Ok(None) };
    let l = if lower { y } else { adjoint(b, y)? };
    // The result's other triangle is not part of the factor.
    let tri = triangle(b, l, true, false)?;
    let zero = b.full_like(l, 0.0)?;
    let l = b.select(tri, l, zero)?;
    let tat = adjoint(b, ta)?;
    let sum = b.add(ta, tat)?;
    let sym = b.mul_const(sum, 0.5)?;
    let right = solve(b, l, sym, false, true, false, TransposeKind::Adjoint)?;
    let inner = solve(b, l, right, true, true, false, TransposeKind::NoTranspose)?;
    // Φ: the lower triangle with the diagonal halved, as a constant mask.
    let s = b.shape(l);
    let n = s[s.len() - 1];
    let mut phi = vec![0.0; (n * n) as usize];
    for i in 0..n {
        for j in 0..=i {
            phi[(i * n + j) as usize] = if i == j { 0.5 } else { 1.0 };
        }
    }
    let dt = b.dtype(l);
    let data = if dt.is_complex() {
        systolic_ir::Data::Complex(phi.iter().map(|&x| Complex64::new(x, 0.0)).collect())
    } else {
        systolic_ir::Data::Float(phi)
    };
    let pm = Tensor::new(TensorType::new(vec![n, n], dt), data)
        .map_err(|e| Error::new(format!("internal: {e}")))?;
    let pm = b.constant(pm)?;
    let r = s.len() as i64;
    let pm = b.broadcast_in_dim(pm, &s, &[r - 2, r - 1])?;
    let masked = b.mul(inner, pm)?;
    let dl = matmul(b, l, masked)?;
    Ok(Some(if lower { dl } else { adjoint(b, dl)? }))
}

pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let OpKind::TriangularSolve {
        left_side,
        lower,
        unit_diagonal,
        transpose_a,
    } = op.kind
    else {
        return Err(super::unsupported(op, "transpose"));
    };
    if lin[0] {
        return Err(Error::new(
            "internal: a triangular solve with a tangent matrix is not linear",
        ));
    }
    // The plain transpose of X = op(A)⁻¹B in B: op(A)⁻ᵀ. For op = adjoint that is conj(A)⁻¹,
    // which the op's flags cannot say of A itself, so the matrix is conjugated.
    let a = op.operands[0];
    let (a, flipped) = match transpose_a {
        TransposeKind::NoTranspose => (a, TransposeKind::Transpose),
        TransposeKind::Transpose => (a, TransposeKind::NoTranspose),
        TransposeKind::Adjoint if b.dtype(a).is_complex() => {
            (super::elementwise::conj(b, a)?, TransposeKind::NoTranspose)
        }
        TransposeKind::Adjoint => (a, TransposeKind::NoTranspose),
    };
    let ct = solve(b, a, c, left_side, lower, unit_diagonal, flipped)?;
    Ok(vec![None, Some(ct)])
}
