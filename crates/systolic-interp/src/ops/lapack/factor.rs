//! `getrf` (LU with partial pivoting), `potrf` (Cholesky) and `trsm` (triangular solve), on
//! faer's blocked, recursive factorisations and solves.
//!
//! - `getrf` returns LAPACK's packed `L\U` (unit lower `L` below the diagonal), the 1-based row
//!   interchanges `ipiv` (row `i` was swapped with row `ipiv[i]`, in order) and `info`: `i` when
//!   `U[i-1,i-1]` is exactly zero, else 0. faer returns the permutation; a permutation has one
//!   such swap sequence with each swap partner at or below its row, so it is LAPACK's.
//! - `potrf` writes the factor into the `uplo` triangle and leaves the other as given (JAX masks
//!   it); `info = k` when the leading minor of order `k` is not positive definite (the matrix is
//!   then returned unchanged: JAX replaces a failed factor with NaN).
//! - `trsm` solves `op(a)·x = b` (`side = 'L'`) or `x·op(a) = b` (`op` is the identity, the
//!   transpose, or for `trans_x = 'C'` the conjugate transpose), reading only `a`'s `uplo`
//!   triangle (and not its diagonal when `diag = 'U'`): JAX passes `getrf`'s packed `L\U` to
//!   two solves.

use super::driver::{concat, from_faer, to_faer, Exec, LapackOut, Matrices, Scalar};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::linalg::triangular_solve as tri;
use faer::Side;
use systolic_ir::lapack::LapackCall;

/// LU factorisation of each matrix: `[lu, ipiv, info]`.
pub fn getrf<T: Scalar>(a: Matrices<'_, T>, exec: Exec) -> Vec<LapackOut<T>> {
    let (m, n) = (a.rows, a.cols);
    let k = m.min(n);
    let par = exec.inner(a.batch);
    let pieces = exec.per_matrix(a.batch, |b| {
        let src = a.get(b);
        if k == 0 {
            return (src.to_vec(), vec![], 0);
        }
        let mut mat = to_faer(m, n, src);
        let mut perm = vec![0usize; m];
        let mut perm_inv = vec![0usize; m];
        let mut mem = MemBuffer::new(lu_in_place_scratch::<usize, T>(
            m,
            n,
            par,
            Default::default(),
        ));
        lu_in_place(
            mat.as_mut(),
            &mut perm,
            &mut perm_inv,
            par,
            MemStack::new(&mut mem),
            Default::default(),
        );
        let info = (0..k)
            .find(|&i| mat[(i, i)] == T::from_f64(0.0))
            .map_or(0, |i| i as i32 + 1);
        (from_faer(mat.as_ref()), swaps(&perm[..], k), info)
    });
    let mut lu = Vec::with_capacity(a.data.len());
    let mut ipiv = Vec::with_capacity(a.batch * k);
    let mut info = Vec::with_capacity(a.batch);
    for (l, p, i) in pieces {
        lu.extend(l);
        ipiv.extend(p);
        info.push(i);
    }
    vec![
        LapackOut::Same(lu),
        LapackOut::Int(ipiv),
        LapackOut::Int(info),
    ]
}

/// LAPACK's `ipiv` (first `k` swaps, 1-based) for the row permutation `perm`, where row `i` of
/// the permuted matrix is row `perm[i]` of the original.
fn swaps(perm: &[usize], k: usize) -> Vec<i32> {
    let m = perm.len();
    let mut at: Vec<usize> = (0..m).collect(); // position -> original row
    let mut position: Vec<usize> = (0..m).collect(); // original row -> position
    (0..k)
        .map(|i| {
            let j = position[perm[i]];
            at.swap(i, j);
            position[at[i]] = i;
            position[at[j]] = j;
            j as i32 + 1
        })
        .collect()
}

/// Cholesky factorisation of each matrix: `[a with the factor in its uplo triangle, info]`.
pub fn potrf<T: Scalar>(lower: bool, a: Matrices<'_, T>, exec: Exec) -> Vec<LapackOut<T>> {
    let n = a.rows;
    let pieces = exec.per_matrix(a.batch, |b| {
        let src = a.get(b);
        let mut out = src.to_vec();
        if n == 0 {
            return (out, 0);
        }
        let side = if lower { Side::Lower } else { Side::Upper };
        match to_faer(n, n, src).llt(side) {
            Ok(llt) => {
                let l = llt.L();
                for i in 0..n {
                    for j in 0..=i {
                        let (r, c) = if lower { (i, j) } else { (j, i) };
                        out[r * n + c] = l[(i, j)];
                    }
                }
                (out, 0)
            }
            Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => {
                (out, index as i32 + 1)
            }
        }
    });
    let (factors, info): (Vec<_>, Vec<_>) = pieces.into_iter().unzip();
    vec![
        LapackOut::Same(concat(factors.into_iter())),
        LapackOut::Int(info),
    ]
}

/// Triangular solve of each pair: `[x]`.
pub fn trsm<T: Scalar>(
    call: &LapackCall,
    a: Matrices<'_, T>,
    b: Matrices<'_, T>,
    exec: Exec,
) -> Vec<LapackOut<T>> {
    let k = a.rows;
    let (m, n) = (b.rows, b.cols);
    let par = exec.inner(a.batch);
    let pieces = exec.per_matrix(b.batch, |i| {
        // Views of the row-major data, not column-major copies: copying `a` element by element
        // cost more than solving (JAX's `solve` passes 256 × 256 factors with one column `b`).
        let mut out = b.get(i).to_vec();
        if m == 0 || n == 0 {
            return out;
        }
        let x = faer::MatMut::from_row_major_slice_mut(&mut out, m, n);
        let a_mat = faer::MatRef::from_row_major_slice(a.get(i), k, k);
        let op_a = if call.transpose_a {
            a_mat.transpose()
        } else {
            a_mat
        };
        // `trans_x = 'C'`: the conjugate of the transpose, which faer applies while solving.
        let conj = if call.conjugate_a {
            faer::Conj::Yes
        } else {
            faer::Conj::No
        };
        // op(a) is lower when a is lower and not transposed, or upper and transposed.
        let op_lower = call.lower != call.transpose_a;
        // x·op(a) = b is op(a)ᵀ·xᵀ = bᵀ.
        let (tri_mat, rhs, lower) = if call.left_side {
            (op_a, x, op_lower)
        } else {
            (op_a.transpose(), x.transpose_mut(), !op_lower)
        };
        match (lower, call.unit_diagonal) {
            (true, false) => {
                tri::solve_lower_triangular_in_place_with_conj(tri_mat, conj, rhs, par)
            }
            (true, true) => {
                tri::solve_unit_lower_triangular_in_place_with_conj(tri_mat, conj, rhs, par)
            }
            (false, false) => {
                tri::solve_upper_triangular_in_place_with_conj(tri_mat, conj, rhs, par)
            }
            (false, true) => {
                tri::solve_unit_upper_triangular_in_place_with_conj(tri_mat, conj, rhs, par)
            }
        }
        out
    });
    vec![LapackOut::Same(concat(pieces.into_iter()))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_replay_the_permutation() {
        // Rows [2, 0, 3, 1]: swap 0<->2, then 1<->2 (row 0 now sits at 2), then 2<->3.
        let perm = [2, 0, 3, 1];
        let ipiv = swaps(&perm, 4);
        let mut rows: Vec<usize> = (0..4).collect();
        for (i, &p) in ipiv.iter().enumerate() {
            assert!(p as usize > i, "each partner is at or below its row");
            rows.swap(i, p as usize - 1);
        }
        assert_eq!(rows, perm);
    }
}
