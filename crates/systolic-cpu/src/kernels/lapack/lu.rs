//! `getrf` on real matrices as they lie in the buffer (row-major): a blocked right-looking LU
//! with partial pivoting, written here rather than taken from faer because the layout is the
//! cost. faer factors column-major matrices, so the shared driver copies each matrix into
//! faer's layout and back, element by element; for JAX's batched `solve` (32 matrices of
//! 256 × 256) the copies and faer's short-column panel took about twice LAPACK's time.
//! Row-major suits LU's blocked form: a row interchange is a contiguous swap, `U`'s block row
//! is solved by row `axpy`s, and the trailing update, most of the arithmetic, is one `gemm`
//! product per panel. Only the narrow panel is factored in a column-major copy, where its
//! pivot searches and updates run down contiguous columns.
//!
//! The results are LAPACK's: the packed `L\U`, the 1-based interchanges `ipiv` (the pivot of
//! column `j` is the first row at or below `j` whose magnitude is largest, as `isamax` picks
//! it), and `info`, the 1-based index of the first exactly zero `U[i,i]` (else 0). A column
//! with no nonzero pivot is left unscaled, as LAPACK leaves it (faer would divide by zero).
//! The rounding differs from the driver's (another order of the same sums), so results agree
//! with the interpreter within a tolerance, not bit for bit.

use gemm::Parallelism;
use std::ops::{Mul, Sub};

/// Columns per panel: the panel is factored column by column, the trailing product's depth is
/// the panel width. Measured on JAX's batched solve (32 × 256² f32, AMD EPYC Zen 4, 2 cores,
/// whole program median): 16 columns 9.3 ms, 8 13.6, 32 12.8, 64 14.8 (a busy machine, so
/// only the order is reliable).
const PANEL: usize = 16;

/// A real element type the factorisation runs on (`f32`, `f64`).
pub trait LuReal:
    Copy + PartialOrd + Send + Sync + 'static + Mul<Output = Self> + Sub<Output = Self>
{
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The magnitude.
    fn abs(self) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self;
}

impl LuReal for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn abs(self) -> Self {
        f32::abs(self)
    }
    fn recip(self) -> Self {
        1.0 / self
    }
}

impl LuReal for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn abs(self) -> Self {
        f64::abs(self)
    }
    fn recip(self) -> Self {
        1.0 / self
    }
}

/// Factors the `m`×`n` row-major matrix `a` in place into `L\U`, writing the `min(m, n)`
/// 1-based interchanges into `ipiv`; returns `info`. `par` is handed to the trailing products
/// (a lone large matrix may use the pool; a batch's matrices run one per task).
pub fn getrf<T: LuReal>(
    a: &mut [T],
    m: usize,
    n: usize,
    ipiv: &mut [i32],
    par: Parallelism,
) -> i32 {
    assert_eq!(a.len(), m * n, "getrf: matrix size");
    assert_eq!(ipiv.len(), m.min(n), "getrf: pivot count");
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernels::math::simd::{level, Level};
        match level() {
            // SAFETY: the CPU has every feature `getrf_v4` is compiled for (checked by `level`).
            Level::V4 => unsafe { getrf_v4(a, m, n, ipiv, par) },
            // SAFETY: as above, for `getrf_v3`.
            Level::V3 => unsafe { getrf_v3(a, m, n, ipiv, par) },
            Level::Plain => getrf_plain(a, m, n, ipiv, par),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    getrf_plain(a, m, n, ipiv, par);
    info(a, m, n)
}

/// The factorisation compiled for AVX2 (x86-64-v3), as [`getrf_v4`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma,bmi1,bmi2,lzcnt,popcnt,f16c")]
unsafe fn getrf_v3<T: LuReal>(a: &mut [T], m: usize, n: usize, ipiv: &mut [i32], par: Parallelism) {
    getrf_plain(a, m, n, ipiv, par)
}

/// The factorisation compiled for AVX-512 (x86-64-v4): the row `axpy`s become vector loops.
/// The same operations as [`getrf_plain`] (no fused multiply-add is introduced), so the same
/// results.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn getrf_v4<T: LuReal>(a: &mut [T], m: usize, n: usize, ipiv: &mut [i32], par: Parallelism) {
    getrf_plain(a, m, n, ipiv, par)
}

/// LAPACK's `info`: the 1-based index of the first zero on `U`'s diagonal, else 0.
fn info<T: LuReal>(a: &[T], m: usize, n: usize) -> i32 {
    (0..m.min(n))
        .find(|&i| a[i * n + i] == T::ZERO)
        .map_or(0, |i| i as i32 + 1)
}

/// The blocked factorisation: per panel of [`PANEL`] columns, factor the panel (in a
/// column-major copy, see [`factor_panel`]), apply its row interchanges to the columns left
/// and right of it, solve for `U`'s block row right of it, and subtract the panel's outer
/// product from the trailing matrix.
#[inline(always)]
fn getrf_plain<T: LuReal>(a: &mut [T], m: usize, n: usize, ipiv: &mut [i32], par: Parallelism) {
    let k = m.min(n);
    let mut panel: Vec<T> = Vec::with_capacity(m * PANEL.min(k));
    let mut j0 = 0;
    while j0 < k {
        let j1 = (j0 + PANEL).min(k);
        let (w, h) = (j1 - j0, m - j0);
        // The panel's rows j0..m, column-major: its columns are contiguous.
        panel.clear();
        panel.resize(w * h, T::ZERO);
        for (c, col) in panel.chunks_exact_mut(h).enumerate() {
            for (v, row) in col.iter_mut().zip(a[j0 * n + j0 + c..].iter().step_by(n)) {
                *v = *row;
            }
        }
        factor_panel(&mut panel, h, w, j0, &mut ipiv[j0..j1]);
        for (i, row) in a[j0 * n..].chunks_exact_mut(n).enumerate() {
            for (c, v) in row[j0..j1].iter_mut().enumerate() {
                *v = panel[c * h + i];
            }
        }
        // The same interchanges, in order, on the columns outside the panel (LAPACK's laswp).
        for j in j0..j1 {
            let p = ipiv[j] as usize - 1;
            if p != j {
                let (top, bottom) = a.split_at_mut(p * n);
                let (row_j, row_p) = (&mut top[j * n..(j + 1) * n], &mut bottom[..n]);
                row_j[..j0].swap_with_slice(&mut row_p[..j0]);
                row_j[j1..].swap_with_slice(&mut row_p[j1..]);
            }
        }
        solve_block_row(a, n, j0, j1);
        trailing_update(a, m, n, j0, j1, par);
        j0 = j1;
    }
}

/// Unblocked LU of an `h`×`w` column-major panel (the matrix's rows `j0..`): per column, the
/// pivot (the first row at or below the diagonal with the largest magnitude; a NaN never
/// wins, as in `isamax`), the interchange across the panel, the multipliers, and the rank-1
/// update of the panel's later columns — long contiguous column `axpy`s. `ipiv[c]` gets the
/// 1-based matrix row of column `c`'s pivot.
#[inline(always)]
fn factor_panel<T: LuReal>(p: &mut [T], h: usize, w: usize, j0: usize, ipiv: &mut [i32]) {
    for c in 0..w.min(h) {
        let col = &p[c * h + c..(c + 1) * h];
        let max = col.iter().fold(T::ZERO, |m, &v| {
            let v = v.abs();
            if v > m {
                v
            } else {
                m
            }
        });
        let pivot_row = if max > T::ZERO {
            c + col.iter().position(|&v| v.abs() == max).unwrap_or(0)
        } else {
            c
        };
        ipiv[c] = (j0 + pivot_row + 1) as i32;
        if pivot_row != c {
            for cc in 0..w {
                p.swap(cc * h + c, cc * h + pivot_row);
            }
        }
        let (left, right) = p.split_at_mut((c + 1) * h);
        let col = &mut left[c * h..];
        let pivot = col[c];
        if pivot == T::ZERO {
            // Nothing below the diagonal is nonzero either: no multipliers, no update.
            continue;
        }
        let r = pivot.recip();
        for v in &mut col[c + 1..] {
            *v = *v * r;
        }
        let multipliers = &col[c + 1..];
        for later in right.chunks_exact_mut(h) {
            let u = later[c];
            axpy_neg(&mut later[c + 1..], u, multipliers);
        }
    }
}

/// `U`'s block row right of the panel: `L11⁻¹ · A[j0..j1, j1..n]`, by row operations (`L11`
/// unit lower triangular).
#[inline(always)]
fn solve_block_row<T: LuReal>(a: &mut [T], n: usize, j0: usize, j1: usize) {
    if j1 >= n {
        return;
    }
    for r in j0 + 1..j1 {
        let (above, rest) = a.split_at_mut(r * n);
        let row = &mut rest[..n];
        for s in j0..r {
            let l = row[s];
            axpy_neg(&mut row[j1..], l, &above[s * n + j1..(s + 1) * n]);
        }
    }
}

/// `A[j1..m, j1..n] -= A[j1..m, j0..j1] · A[j0..j1, j1..n]` on `gemm`.
#[inline(always)]
fn trailing_update<T: LuReal>(
    a: &mut [T],
    m: usize,
    n: usize,
    j0: usize,
    j1: usize,
    par: Parallelism,
) {
    if j1 >= m || j1 >= n {
        return;
    }
    let base = a.as_mut_ptr();
    // SAFETY: the three blocks lie inside `a` (rows < m, columns < n, row stride n) and do
    // not overlap: the destination is rows j1.., columns j1..; the left factor rows j1..,
    // columns j0..j1; the right factor rows j0..j1, columns j1... `a` is borrowed mutably
    // for the call, so nothing else reads or writes it meanwhile.
    unsafe {
        gemm::gemm(
            m - j1,
            n - j1,
            j1 - j0,
            base.add(j1 * n + j1),
            1,
            n as isize,
            true,
            base.add(j1 * n + j0),
            1,
            n as isize,
            base.add(j0 * n + j1),
            1,
            n as isize,
            T::ONE,
            T::ZERO - T::ONE,
            false,
            false,
            false,
            par,
        );
    }
}

/// `dst -= l · src`, elementwise over the common length.
#[inline(always)]
fn axpy_neg<T: LuReal>(dst: &mut [T], l: T, src: &[T]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = *d - l * s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `P·A = L·U` rebuilt from the factors, as the largest error relative to `A`'s magnitude.
    fn reconstruction_error(a: &[f64], lu: &[f64], ipiv: &[i32], m: usize, n: usize) -> f64 {
        let mut pa = a.to_vec();
        for (i, &p) in ipiv.iter().enumerate() {
            let p = p as usize - 1;
            for c in 0..n {
                pa.swap(i * n + c, p * n + c);
            }
        }
        let k = m.min(n);
        let scale = a.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        let mut worst = 0.0f64;
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0;
                for t in 0..k.min(i + 1).min(j + 1) {
                    let l = if t == i { 1.0 } else { lu[i * n + t] };
                    s += l * lu[t * n + j];
                }
                worst = worst.max((s - pa[i * n + j]).abs() / scale);
            }
        }
        worst
    }

    fn pseudo_random(len: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn factors_rebuild_the_permuted_matrix_for_every_shape() {
        // Square, tall and wide; smaller than a panel, a panel, several panels with a ragged end.
        for &(m, n) in &[
            (1, 1),
            (5, 5),
            (7, 3),
            (3, 7),
            (32, 32),
            (70, 70),
            (100, 45),
            (45, 100),
        ] {
            let a = pseudo_random(m * n, (m * 131 + n) as u64);
            let mut lu = a.clone();
            let mut ipiv = vec![0; m.min(n)];
            let info = getrf(&mut lu, m, n, &mut ipiv, Parallelism::None);
            assert_eq!(info, 0, "{m}x{n}");
            for (i, &p) in ipiv.iter().enumerate() {
                assert!(
                    p as usize > i && p as usize <= m,
                    "{m}x{n}: ipiv[{i}] = {p}"
                );
            }
            let err = reconstruction_error(&a, &lu, &ipiv, m, n);
            assert!(err < 1e-12, "{m}x{n}: P·A = L·U off by {err:e}");
            // Partial pivoting: every multiplier is at most 1 in magnitude.
            for i in 0..m {
                for j in 0..i.min(n) {
                    assert!(lu[i * n + j].abs() <= 1.0, "{m}x{n}: L[{i},{j}]");
                }
            }
        }
    }

    #[test]
    fn a_zero_column_leaves_its_multipliers_unscaled_and_sets_info() {
        // Column 1 is zero below row 0 once column 0 is eliminated: U[1,1] = 0.
        let a = vec![2.0f32, 4.0, 1.0, 1.0, 2.0, 3.0, 4.0, 8.0, 5.0];
        let mut lu = a.clone();
        let mut ipiv = vec![0; 3];
        let info = getrf(&mut lu, 3, 3, &mut ipiv, Parallelism::None);
        assert_eq!(ipiv, [3, 2, 3]);
        assert_eq!(info, 2);
        assert!(lu.iter().all(|v| v.is_finite()), "{lu:?}");
        assert_eq!(lu, [4.0, 8.0, 5.0, 0.25, 0.0, 1.75, 0.5, 0.0, -1.5]);
    }
}
