//! f32, f64 and complex products on the `gemm` crate (its AVX-512 micro-kernels, chosen at
//! run time; `complex<f32>` and `complex<f64>` on its c32/c64 kernels).
//!
//! f32 accumulates in f32, as XLA:CPU does (Eigen/oneDNN); results therefore differ from the
//! interpreter (f64 accumulation, one rounding) by at most about `K · eps · Σ|a||b|`. The
//! same holds part by part for `complex<f32>`, whose products and sums run in f32.

use super::layout::MatView;
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

/// Element types the `gemm` crate multiplies.
pub trait GemmFloat: Copy + Send + Sync + 'static {
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
}

impl GemmFloat for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
}

impl GemmFloat for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
}

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
        // SAFETY: the plan checked that every (b, r, c) of both views lies in its slice, and
        // `o` is a dense M×N matrix (row stride N, column stride 1).
        unsafe {
            gemm::gemm(
                s.m,
                s.n,
                s.k,
                o.as_mut_ptr(),
                1,
                s.n as isize,
                false,
                lhs.as_ptr().add(lv.start(b)),
                lv.col as isize,
                lv.row as isize,
                rhs.as_ptr().add(rv.start(b)),
                rv.col as isize,
                rv.row as isize,
                T::ZERO,
                scale,
                false,
                false,
                false,
                par,
            )
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
