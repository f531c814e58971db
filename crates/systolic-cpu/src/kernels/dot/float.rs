//! f32, f64 and complex products on the `gemm` crate (its AVX-512 micro-kernels, chosen at
//! run time; `complex<f32>` and `complex<f64>` on its c32/c64 kernels), and f32/f64 products on
//! CPUs with AVX2 but not AVX-512 on faer's matrix product instead ([`faer_route`]).
//!
//! f32 accumulates in f32, as XLA:CPU does (Eigen/oneDNN); results therefore differ from the
//! interpreter (f64 accumulation, one rounding) by at most about `K · eps · Σ|a||b|`. The
//! same holds part by part for `complex<f32>`, whose products and sums run in f32.

use super::layout::MatView;
use crate::kernels::shape::strided::{self, View};
use gemm::Parallelism;
use rayon::prelude::*;

/// Below this many multiply-adds per matrix, a product runs on one thread: waking the pool
/// costs more than it saves.
const PARALLEL_MACS: usize = 1 << 18;

/// True when a batch of `batch` products of `work` multiply-adds each runs best as one task per
/// product rather than product after product with threads inside each: when each product is
/// below `small`, or when there are enough products to keep every thread busy (attention's
/// `[B·H, S, D] × [B·H, D, S]` products: 64 of 4M multiply-adds).
pub fn split_by_matrix(batch: usize, work: usize, small: usize) -> bool {
    batch > 1 && (work < small || batch >= 2 * rayon::current_num_threads())
}

/// The sizes of a batched product `[B, M, K] x [B, K, N] -> [B, M, N]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchedShape {
    /// Matrices in the batch.
    pub batch: usize,
    /// Rows of each result.
    pub m: usize,
    /// Columns of each result.
    pub n: usize,
    /// Contraction length.
    pub k: usize,
}

/// True when f32 and f64 products run on faer's matrix product (`faer::linalg::matmul`, whose
/// x86 kernels are the `private-gemm-x86` crate's) rather than on `gemm`: on CPUs whose widest
/// loops are AVX2 (`simd::Level::V3`).
///
/// Measured on an AMD EPYC Zen 3 (AVX2 + FMA, 2 cores; `/tmp` scratch harness calling both on
/// the same row-major operands, interleaved, medians), GFLOP/s gemm → faer: 2048³ 97–103 →
/// 97–126, 1024×784×1024 86–100 → 90–118, 1024³ 105–110 → 111–122, 256×1024×1024 83–89 →
/// 88–97, 32×512×512 (an RNN step) 54–56 → 76–77, 1024×1024×10 42–51 → 52–54. On AVX-512
/// machines `gemm` was measured in earlier sessions and stays until faer is measured there;
/// without AVX2 faer would call `gemm` itself. `SYSTOLIC_CPU_GEMM=faer` or `=gemm` fixes the
/// choice for a process (to measure one against the other on any machine, e.g. with
/// `examples/gemm_bench`).
///
/// Two cores are as fast as this machine goes with faer: a 6 × 16 tile in assembly in the
/// BLIS loop nest (packed 64-byte-aligned panels, kc 256–384; not kept) ran 2048³ on one Zen 3
/// core at 88–93 GFLOP/s against faer's sequential 70–80 and OpenBLAS's (the same tile) 90–96,
/// but on two cores at 0.97–1.03 of faer's time on 2048³, 1024³ and 1024 × 784 × 1024 (faer
/// 160–176 GFLOP/s, OpenBLAS 177–190, JAX 170–177 in the same minutes), and slower on narrow
/// products (1024 × 1024 × 10: 40 against 80; 512 × 512 × 64 on one core: 85 against 98).
pub fn faer_route() -> bool {
    static FAER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAER.get_or_init(|| {
        let by_cpu =
            || crate::kernels::math::simd::level() == crate::kernels::math::simd::Level::V3;
        crate::switch::from_env(
            "SYSTOLIC_CPU_GEMM",
            &[("faer", true), ("gemm", false)],
            by_cpu,
        )
    })
}

/// Element types the `gemm` crate multiplies.
pub trait GemmFloat: Copy + Send + Sync + 'static {
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;

    /// `o = scale · (lhs · rhs)` on faer when that is this type's route ([`faer_route`]);
    /// false (nothing written) when `gemm` should run instead.
    ///
    /// # Safety
    /// As for `gemm::gemm`: every element the views address lies in its allocation, and `o`
    /// is a dense `m × n` matrix with row stride `n`.
    unsafe fn faer_product(_: &Operands<Self>, _: bool) -> bool {
        false
    }
}

/// One product's operands as raw views, as `gemm::gemm` takes them: `m × k` times `k × n`
/// into the dense row-major `m × n` at `out`, scaled by `scale`.
pub struct Operands<T> {
    m: usize,
    n: usize,
    k: usize,
    out: *mut T,
    lhs: *const T,
    lhs_row: isize,
    lhs_col: isize,
    rhs: *const T,
    rhs_row: isize,
    rhs_col: isize,
    scale: T,
}

/// `o = scale · (lhs · rhs)` by `gemm`, whatever the route.
///
/// # Safety
/// As for [`GemmFloat::faer_product`].
unsafe fn gemm_matmul<T: GemmFloat>(p: &Operands<T>, par: Parallelism) {
    // SAFETY: forwarded from the caller; `gemm` takes column stride, then row stride.
    unsafe {
        gemm::gemm(
            p.m,
            p.n,
            p.k,
            p.out,
            1,
            p.n as isize,
            false,
            p.lhs,
            p.lhs_col,
            p.lhs_row,
            p.rhs,
            p.rhs_col,
            p.rhs_row,
            T::ZERO,
            p.scale,
            false,
            false,
            false,
            par,
        )
    }
}

/// Products with at least this many result columns copy a left operand that does not run
/// along the contraction into a row-major scratch first (see [`faer_matmul`]).
const ROW_MAJOR_LHS_MIN_N: usize = 128;

/// `o = scale · (lhs · rhs)` by faer, whatever the route (see [`GemmFloat::faer_product`]).
///
/// faer computes the row-major result as its transpose, `oᵀ = rhsᵀ · lhsᵀ`, and multiplies
/// 30–40% slower when that right-hand operand `lhsᵀ` is row-major — our left operand
/// contiguous along `m`, as `xᵀ · g` of a weight gradient reads it (`contracting_dims = [0] x
/// [0]`). Measured on an AMD EPYC Zen 3 (2 cores, scratch harness calling faer on each layout,
/// interleaved medians, GFLOP/s): 1024³ 134–162 with the lhs row-major, 88–108 transposed;
/// copying it row-major first (`strided::copy`, tiled) gives back 123–141, 1024 × 784 × 1024
/// 104 → 140, 1024 × 1024 × 256 106 → 126, 1024 × 1024 × 128 99 → 108. With fewer result
/// columns the copy is not repaid (1024 × 1024 × 10: 47 → 26, 256 × 8192 × 64: 105 → 75), so
/// only products with at least [`ROW_MAJOR_LHS_MIN_N`] columns copy.
///
/// # Safety
/// As for [`GemmFloat::faer_product`].
unsafe fn faer_matmul<T>(p: &Operands<T>, parallel: bool)
where
    T: faer::traits::ComplexField + crate::pool::PoolElement + Send + Sync,
{
    let copy_lhs = p.lhs_col != 1 && p.n >= ROW_MAJOR_LHS_MIN_N && p.m > 1 && p.k > 1;
    let row_major = copy_lhs.then(|| {
        // SAFETY: the caller's lhs view addresses `m × k` elements with these (non-negative)
        // strides inside its allocation, the last at (m−1)·row + (k−1)·col.
        let span = (p.m - 1) * p.lhs_row as usize + (p.k - 1) * p.lhs_col as usize + 1;
        let src = unsafe { std::slice::from_raw_parts(p.lhs, span) };
        let mut dense = crate::pool::take_vec::<T>(p.m * p.k);
        let view = View {
            offset: 0,
            strides: vec![p.lhs_row, p.lhs_col],
        };
        strided::copy(
            src,
            &view,
            &mut dense,
            &View::dense(&[p.m, p.k], 0),
            &[p.m, p.k],
        );
        dense
    });
    let (lhs_ptr, lhs_row, lhs_col) = match &row_major {
        Some(dense) => (dense.as_ptr(), p.k as isize, 1),
        None => (p.lhs, p.lhs_row, p.lhs_col),
    };
    // SAFETY: the caller's views (or the dense copy) stay inside their allocations; `out` is
    // dense m × n.
    let (lhs, rhs, out) = unsafe {
        (
            faer::MatRef::from_raw_parts(lhs_ptr, p.m, p.k, lhs_row, lhs_col),
            faer::MatRef::from_raw_parts(p.rhs, p.k, p.n, p.rhs_row, p.rhs_col),
            faer::MatMut::from_raw_parts_mut(p.out, p.m, p.n, p.n as isize, 1),
        )
    };
    let par = if parallel {
        faer::Par::rayon(0)
    } else {
        faer::Par::Seq
    };
    faer::linalg::matmul::matmul(out, faer::Accum::Replace, lhs, rhs, p.scale, par);
    if let Some(dense) = row_major {
        crate::pool::recycle_vec(dense);
    }
}

/// [`GemmFloat`] for a real type faer multiplies: its products take faer's route where
/// [`faer_route`] says so.
macro_rules! real_gemm_float {
    ($($t:ty),*) => {$(
        impl GemmFloat for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            unsafe fn faer_product(p: &Operands<Self>, parallel: bool) -> bool {
                // SAFETY: forwarded from the caller.
                faer_route() && {
                    unsafe { faer_matmul(p, parallel) };
                    true
                }
            }
        }
    )*};
}

real_gemm_float!(f32, f64);

impl GemmFloat for num_complex::Complex32 {
    const ZERO: Self = num_complex::Complex32::new(0.0, 0.0);
    const ONE: Self = num_complex::Complex32::new(1.0, 0.0);
}

impl GemmFloat for num_complex::Complex64 {
    const ZERO: Self = num_complex::Complex64::new(0.0, 0.0);
    const ONE: Self = num_complex::Complex64::new(1.0, 0.0);
}

/// `out[b] = scale · (lhs[b] · rhs[b])` for every matrix of the batch; `out` is dense
/// `[B, M, N]`. `gemm` applies `scale` to each block's sum as it stores it.
///
/// The views must stay inside their slices (checked by the caller's plan); every element of
/// `out` is written.
pub fn gemm_batched<T: GemmFloat>(
    s: BatchedShape,
    lhs: &[T],
    lv: MatView,
    rhs: &[T],
    rv: MatView,
    out: &mut [T],
    scale: T,
) {
    let per_matrix = s.m * s.n;
    if per_matrix == 0 || s.batch == 0 {
        return;
    }
    if s.k == 0 {
        out.fill(T::ZERO);
        return;
    }
    let work = s.m * s.n * s.k;
    let run_one = |b: usize, o: &mut [T], par: Parallelism| {
        // SAFETY (both calls): the plan checked that every (b, r, c) of both views lies in its
        // slice, and `o` is a dense M×N matrix (row stride N, column stride 1).
        let p = Operands {
            m: s.m,
            n: s.n,
            k: s.k,
            out: o.as_mut_ptr(),
            lhs: unsafe { lhs.as_ptr().add(lv.start(b)) },
            lhs_row: lv.row as isize,
            lhs_col: lv.col as isize,
            rhs: unsafe { rhs.as_ptr().add(rv.start(b)) },
            rhs_row: rv.row as isize,
            rhs_col: rv.col as isize,
            scale,
        };
        if !unsafe { T::faer_product(&p, !matches!(par, Parallelism::None)) } {
            unsafe { gemm_matmul(&p, par) }
        }
    };
    if split_by_matrix(s.batch, work, PARALLEL_MACS * 8) {
        // Many products: one per task (a small product's own threads cost more than they
        // save, and whole products per core need no synchronisation inside them).
        out.par_chunks_mut(per_matrix)
            .enumerate()
            .with_min_len((PARALLEL_MACS / work.max(1)).max(1))
            .for_each(|(b, o)| run_one(b, o, Parallelism::None));
    } else {
        let par = if work >= PARALLEL_MACS {
            Parallelism::Rayon(0)
        } else {
            Parallelism::None
        };
        for (b, o) in out.chunks_mut(per_matrix).enumerate() {
            run_one(b, o, par);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A product of strided views `m × k · k × n` (lhs read transposed from a `k × m` buffer,
    /// rhs column-major) by faer and by `gemm`, whatever route this CPU takes, each against
    /// the f64 sum.
    fn both_routes<
        T: GemmFloat + faer::traits::ComplexField + crate::pool::PoolElement + Into<f64>,
    >(
        m: usize,
        n: usize,
        k: usize,
        parallel: bool,
        from: impl Fn(f64) -> T,
    ) {
        let lhs: Vec<T> = (0..m * k)
            .map(|i| from(((i * 37) % 101) as f64 / 50.0 - 1.0))
            .collect();
        let rhs: Vec<T> = (0..k * n)
            .map(|i| from(((i * 53) % 97) as f64 / 48.0 - 1.0))
            .collect();
        let mut by_faer = vec![T::ZERO; m * n];
        let mut by_gemm = vec![T::ZERO; m * n];
        let operands = |out: *mut T| Operands {
            m,
            n,
            k,
            out,
            lhs: lhs.as_ptr(),
            lhs_row: 1,
            lhs_col: m as isize,
            rhs: rhs.as_ptr(),
            rhs_row: 1,
            rhs_col: k as isize,
            scale: from(0.5),
        };
        let p = operands(by_faer.as_mut_ptr());
        // SAFETY: the views address the lhs (k × m) and rhs (n × k) buffers exactly.
        unsafe { faer_matmul(&p, parallel) };
        let q = operands(by_gemm.as_mut_ptr());
        let par = if parallel {
            Parallelism::Rayon(0)
        } else {
            Parallelism::None
        };
        // SAFETY: as above.
        unsafe { gemm_matmul(&q, par) };
        for (i, (&a, &b)) in by_faer.iter().zip(&by_gemm).enumerate() {
            let (r, c) = (i / n, i % n);
            let exact: f64 = 0.5
                * (0..k)
                    .map(|j| lhs[j * m + r].into() * rhs[c * k + j].into())
                    .sum::<f64>();
            let (a, b): (f64, f64) = (a.into(), b.into());
            let bound = 1e-5 * k as f64;
            assert!(
                (a - exact).abs() <= bound,
                "faer ({m}x{k}x{n}) [{r},{c}]: {a} vs {exact}"
            );
            assert!(
                (b - exact).abs() <= bound,
                "gemm ({m}x{k}x{n}) [{r},{c}]: {b} vs {exact}"
            );
        }
    }

    #[test]
    fn faer_and_gemm_agree_on_strided_views() {
        // Small (faer's nano-gemm), mid and large (its blocked kernels, threaded) sizes.
        for (m, n, k) in [(3, 5, 7), (32, 40, 64), (130, 70, 300), (257, 129, 190)] {
            for parallel in [false, true] {
                both_routes::<f32>(m, n, k, parallel, |x| x as f32);
                both_routes::<f64>(m, n, k, parallel, |x| x);
            }
        }
    }
}
