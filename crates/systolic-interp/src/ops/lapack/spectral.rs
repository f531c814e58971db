//! `syevd` (symmetric eigendecomposition) and `gesdd` (singular value decomposition), on
//! faer's divide-and-conquer solvers.
//!
//! - `syevd` (`heevd` for complex types) reads the `uplo` triangle; eigenvalues are real; eigenvalues ascending (LAPACK's and faer's order),
//!   eigenvectors as columns. With `mode = 'N'` the first result is the operand (LAPACK
//!   overwrites it; JAX does not read it). A solver failure sets `info = 1` (JAX then returns
//!   NaN).
//! - `gesdd` returns `[a, s, u, vt, info]` with real singular values descending (`vt` is `Vᴴ`); `mode = 'A'` gives
//!   full `u` (m×m) and `vt` (n×n), `'S'` the first min(m, n), `'N'` none (`u`/`vt` zero).
//!
//! Eigenvectors and singular vectors are unique up to sign (and rotations within repeated
//! values): they may differ from LAPACK's by exactly those freedoms.

use super::driver::{concat, from_faer, to_faer, Exec, LapackOut, Matrices, Real, Scalar};

/// The row-major data of `mᴴ`.
fn adjoint_of<T: Scalar>(m: faer::MatRef<'_, T>) -> Vec<T> {
    let (rows, cols) = (m.nrows(), m.ncols());
    let mut out = Vec::with_capacity(rows * cols);
    for j in 0..cols {
        for i in 0..rows {
            out.push(T::from_c64(m[(i, j)].to_c64().conj()));
        }
    }
    out
}
use faer::Side;
use systolic_ir::lapack::{LapackCall, SvdVectors};

/// Eigendecomposition of each matrix: `[v, w, info]`.
pub fn syevd<T: Scalar>(call: &LapackCall, a: Matrices<'_, T>, exec: Exec) -> Vec<LapackOut<T>> {
    let n = a.rows;
    let side = if call.lower { Side::Lower } else { Side::Upper };
    let nan = <T::Real as Real>::from_f64(f64::NAN);
    let pieces = exec.per_matrix(a.batch, |b| {
        let src = a.get(b);
        if n == 0 {
            return (vec![], vec![], 0);
        }
        let mat = to_faer(n, n, src);
        if call.eigenvectors {
            match mat.self_adjoint_eigen(side) {
                Ok(e) => {
                    let w = e.S().column_vector().iter().map(|x| x.re()).collect();
                    (from_faer(e.U()), w, 0)
                }
                Err(_) => (src.to_vec(), vec![nan; n], 1),
            }
        } else {
            match mat.self_adjoint_eigenvalues(side) {
                Ok(w) => (src.to_vec(), w, 0),
                Err(_) => (src.to_vec(), vec![nan; n], 1),
            }
        }
    });
    let mut v = Vec::with_capacity(a.data.len());
    let mut w = Vec::with_capacity(a.batch * n);
    let mut info = Vec::with_capacity(a.batch);
    for (vb, wb, ib) in pieces {
        v.extend(vb);
        w.extend(wb);
        info.push(ib);
    }
    vec![LapackOut::Same(v), LapackOut::Real(w), LapackOut::Int(info)]
}

/// Singular value decomposition of each matrix: `[a, s, u, vt, info]`. `uv_sizes` are the
/// element counts of one `u` and one `vt` as declared (used for `mode = 'N'`, whose zero
/// matrices JAX declares full).
pub fn gesdd<T: Scalar>(
    call: &LapackCall,
    a: Matrices<'_, T>,
    uv_sizes: (usize, usize),
    exec: Exec,
) -> Vec<LapackOut<T>> {
    let (m, n) = (a.rows, a.cols);
    let k = m.min(n);
    let zero = T::from_f64(0.0);
    let nan = T::from_f64(f64::NAN);
    let real_nan = <T::Real as Real>::from_f64(f64::NAN);
    let pieces = exec.per_matrix(a.batch, |b| {
        let src = a.get(b);
        let failed = || {
            (
                vec![real_nan; k],
                vec![nan; uv_sizes.0],
                vec![nan; uv_sizes.1],
                1,
            )
        };
        let (u_cols, vt_rows) = match call.svd_vectors {
            SvdVectors::Full => (m, n),
            SvdVectors::Thin => (k, k),
            SvdVectors::None => (0, 0),
        };
        if k == 0 {
            // No singular values: u and vt are (parts of) identities.
            let eye = |r: usize, c: usize| {
                let mut e = vec![zero; r * c];
                (0..r.min(c)).for_each(|i| e[i * c + i] = T::from_f64(1.0));
                e
            };
            let (u, vt) = if call.svd_vectors == SvdVectors::None {
                (vec![zero; uv_sizes.0], vec![zero; uv_sizes.1])
            } else {
                (eye(m, u_cols), eye(vt_rows, n))
            };
            return (vec![], u, vt, 0);
        }
        let mat = to_faer(m, n, src);
        match call.svd_vectors {
            SvdVectors::None => match mat.singular_values() {
                Ok(s) => (s, vec![zero; uv_sizes.0], vec![zero; uv_sizes.1], 0),
                Err(_) => failed(),
            },
            full_or_thin => {
                let svd = if full_or_thin == SvdVectors::Full {
                    mat.svd()
                } else {
                    mat.thin_svd()
                };
                match svd {
                    Ok(svd) => (
                        svd.S().column_vector().iter().map(|x| x.re()).collect(),
                        from_faer(svd.U()),
                        adjoint_of(svd.V()),
                        0,
                    ),
                    Err(_) => failed(),
                }
            }
        }
    });
    let mut s = Vec::new();
    let mut u = Vec::new();
    let mut vt = Vec::new();
    let mut info = Vec::new();
    for (sb, ub, vb, ib) in pieces {
        s.extend(sb);
        u.extend(ub);
        vt.extend(vb);
        info.push(ib);
    }
    vec![
        LapackOut::Same(a.data.to_vec()),
        LapackOut::Real(concat(std::iter::once(s))),
        LapackOut::Same(u),
        LapackOut::Same(vt),
        LapackOut::Int(info),
    ]
}
