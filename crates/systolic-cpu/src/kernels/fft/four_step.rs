//! Long one-dimensional transforms by the four-step method (Bailey's): a length `n = n1 · n2`
//! is the `n1 × n2` row-major matrix of its elements, transformed as `n2` transforms of length
//! `n1` down its columns, a twiddle factor per element, then `n1` transforms of length `n2`
//! along its rows, read out transposed.
//!
//! Why not one rustfft plan of length `n`: planning computes one f64 sine and cosine per
//! twiddle, about `n` of them (66 ms for 2^22 points on an AMD EPYC Zen 4, paid at every
//! compile), and the transform then runs on one thread over a working set far beyond the
//! caches. Here the plans are two short ones, the twiddles come from two exact tables of
//! about `√n` entries each, and each pass is a set of batches of [`LINES`] short transforms,
//! every batch in cache, split over the pool's threads. In numbers: `X[k1 + n1·k2] =
//! Σ_b W_n^{b·k1} W_{n2}^{b·k2} Σ_a x[n2·a + b] W_{n1}^{a·k1}` with `W_m = e^{∓2πi/m}`.

use num_complex::Complex;
use rayon::prelude::*;
use rustfft::{Fft, FftDirection, FftNum, FftPlanner};
use std::sync::Arc;

/// Transforms at least this long take the four-step path; shorter ones fit the caches and plan
/// quickly as one rustfft plan.
pub const MIN_LENGTH: usize = 1 << 16;

/// The shorter factor is at least this long, or the split is not worth it (a length with no
/// such divisor, e.g. a large prime, stays one rustfft plan: Rader or Bluestein).
const MIN_FACTOR: usize = 64;

/// Lines (columns in the first pass, rows in the second) one task transforms as one batch:
/// 16 lines of 2048 `complex<f32>` are 256 KiB, inside a 1 MiB L2 with room for the pass's
/// reads; a column gather reads 16 neighbours, two 64-byte lines of `complex<f32>`.
const LINES: usize = 16;

/// A planned four-step transform of one length and direction.
pub struct FourStep<T: FftNum> {
    /// The column length: the first pass's transforms.
    n1: usize,
    /// The row length: the second pass's transforms.
    n2: usize,
    columns: Arc<dyn Fft<T>>,
    rows: Arc<dyn Fft<T>>,
    twiddles: Twiddles,
}

impl<T: FftNum> FourStep<T> {
    /// The plan for length `n`, or `None` when `n` is too short or has no split into two
    /// factors of at least [`MIN_FACTOR`].
    pub fn new(n: usize, direction: FftDirection, planner: &mut FftPlanner<T>) -> Option<Self> {
        if n < MIN_LENGTH {
            return None;
        }
        let n1 = (MIN_FACTOR..=n.isqrt())
            .rev()
            .find(|d| n.is_multiple_of(*d))?;
        let n2 = n / n1;
        Some(FourStep {
            n1,
            n2,
            columns: planner.plan_fft(n1, direction),
            rows: planner.plan_fft(n2, direction),
            twiddles: Twiddles::new(n1, n2, direction),
        })
    }

    /// The transform length.
    pub fn len(&self) -> usize {
        self.n1 * self.n2
    }

    /// Transforms `x` (one transform's length) into `out`, every element multiplied by
    /// `scale` (IFFT's `1/N`, applied while writing); `work` is scratch of the same length.
    pub fn process(
        &self,
        x: &[Complex<T>],
        out: &mut [Complex<T>],
        work: &mut [Complex<T>],
        scale: Option<T>,
    ) {
        let n = self.len();
        assert!(
            x.len() == n && out.len() == n && work.len() == n,
            "four-step buffers must hold one transform"
        );
        self.columns_pass(x, work);
        self.rows_pass(work, out, scale);
    }

    /// Transforms the columns of `x` (as `n1 × n2`) and multiplies each by its twiddles,
    /// writing column `b` as row `b` of `work` (as `n2 × n1`): each task owns a contiguous
    /// block of `work`.
    fn columns_pass(&self, x: &[Complex<T>], work: &mut [Complex<T>]) {
        let (n1, n2) = (self.n1, self.n2);
        let scratch_len = self.columns.get_inplace_scratch_len();
        work.par_chunks_mut(LINES * n1).enumerate().for_each_init(
            || vec![zero::<T>(); scratch_len],
            |scratch, (block, lines)| {
                let first = block * LINES;
                let count = lines.len() / n1;
                for a in 0..n1 {
                    let src = &x[a * n2 + first..a * n2 + first + count];
                    for (c, &z) in src.iter().enumerate() {
                        lines[c * n1 + a] = z;
                    }
                }
                self.columns.process_with_scratch(lines, scratch);
                for (c, line) in lines.chunks_mut(n1).enumerate() {
                    self.twiddles.apply(first + c, line);
                }
            },
        );
    }

    /// Transforms the rows of the twiddled matrix (held transposed in `work`, `n2 × n1`) and
    /// writes result `k1 + n1·k2` from row `k1`'s element `k2`. A task owns the rows
    /// `k1 ∈ [first, first + LINES)`, so it writes `LINES` neighbours of each of `out`'s `n2`
    /// rows of `n1`: disjoint from every other task's.
    fn rows_pass(&self, work: &[Complex<T>], out: &mut [Complex<T>], scale: Option<T>) {
        let (n1, n2) = (self.n1, self.n2);
        let scratch_len = self.rows.get_inplace_scratch_len();
        let out = SharedOut(out.as_mut_ptr());
        let blocks = n1.div_ceil(LINES);
        (0..blocks).into_par_iter().for_each_init(
            || {
                (
                    vec![zero::<T>(); scratch_len],
                    vec![zero::<T>(); LINES * n2],
                )
            },
            |(scratch, lines), block| {
                let first = block * LINES;
                let count = LINES.min(n1 - first);
                let lines = &mut lines[..count * n2];
                for b in 0..n2 {
                    let src = &work[b * n1 + first..b * n1 + first + count];
                    for (c, &z) in src.iter().enumerate() {
                        lines[c * n2 + b] = z;
                    }
                }
                self.rows.process_with_scratch(lines, scratch);
                for k2 in 0..n2 {
                    // SAFETY: `out` holds n1·n2 elements (checked in `process`), and this
                    // task alone writes the elements k2·n1 + [first, first + count) of it
                    // (tasks own disjoint ranges of k1); nothing reads `out` meanwhile.
                    let dst =
                        unsafe { std::slice::from_raw_parts_mut(out.at(k2 * n1 + first), count) };
                    for (c, d) in dst.iter_mut().enumerate() {
                        let z = lines[c * n2 + k2];
                        *d = match scale {
                            Some(s) => z * s,
                            None => z,
                        };
                    }
                }
            },
        );
    }
}

/// `out`'s start, shared by the second pass's tasks, which write disjoint elements.
struct SharedOut<T>(*mut Complex<T>);

impl<T> SharedOut<T> {
    /// The element at `index`: through a method, so closures capture the whole (`Sync`)
    /// wrapper rather than its raw pointer field.
    fn at(&self, index: usize) -> *mut Complex<T> {
        // SAFETY: callers stay inside the slice the pointer came from.
        unsafe { self.0.add(index) }
    }
}

// SAFETY: the pointer is only used to write elements no two tasks share (see `rows_pass`).
unsafe impl<T: Send> Send for SharedOut<T> {}
unsafe impl<T: Send> Sync for SharedOut<T> {}

fn zero<T: FftNum>() -> Complex<T> {
    Complex::new(T::zero(), T::zero())
}

/// The twiddle factors `W_n^j` for `j < n`, as the product of two exact tables:
/// `W_n^{q·n1 + r} = coarse[q] · fine[r]`, each entry one f64 sine and cosine, the product in
/// f64 (within a few f64 roundings of the exact value, far below any `T`'s rounding).
struct Twiddles {
    n1: usize,
    /// `W_n^r`, `r < n1`.
    fine: Vec<Complex<f64>>,
    /// `W_n^{q·n1}`, `q < n2`.
    coarse: Vec<Complex<f64>>,
}

impl Twiddles {
    fn new(n1: usize, n2: usize, direction: FftDirection) -> Twiddles {
        let n = (n1 * n2) as f64;
        let sign = match direction {
            FftDirection::Forward => -1.0,
            FftDirection::Inverse => 1.0,
        };
        let w = |j: usize| Complex::from_polar(1.0, sign * std::f64::consts::TAU * j as f64 / n);
        Twiddles {
            n1,
            fine: (0..n1).map(w).collect(),
            coarse: (0..n2).map(|q| w(q * n1)).collect(),
        }
    }

    /// Multiplies element `k1` of column `b`'s transform by `W_n^{b·k1}`. The exponent
    /// `b·k1 < n` advances by `b` per element, kept as a quotient and remainder by `n1`.
    fn apply<T: FftNum>(&self, b: usize, line: &mut [Complex<T>]) {
        let n1 = self.n1;
        let (dq, dr) = (b / n1, b % n1);
        let (mut q, mut r) = (0, 0);
        for z in line.iter_mut() {
            let w = self.coarse[q] * self.fine[r];
            let w = Complex::new(
                T::from_f64(w.re).unwrap_or_else(T::zero),
                T::from_f64(w.im).unwrap_or_else(T::zero),
            );
            *z = *z * w;
            r += dr;
            q += dq;
            if r >= n1 {
                r -= n1;
                q += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-step transform against rustfft's one-plan transform of the same length, in
    /// f64 (so the difference is the methods', not f32 rounding), both directions, lengths
    /// that are powers of two, odd and mixed, including a square and unequal factors.
    #[test]
    fn equals_the_direct_transform() {
        for n in [1 << 16, 3 * 5 * 7 * 11 * 13 * 7, 1 << 17, 65_536 * 3] {
            for direction in [FftDirection::Forward, FftDirection::Inverse] {
                let mut planner = FftPlanner::<f64>::new();
                let plan = FourStep::new(n, direction, &mut planner).expect("splits");
                assert_eq!(plan.len(), n);
                let x: Vec<Complex<f64>> = (0..n)
                    .map(|i| {
                        let t = i as f64;
                        Complex::new((t * 0.37).sin() + 0.25, (t * 1.3).cos() - (t * 0.01).sin())
                    })
                    .collect();
                let mut direct = x.clone();
                planner.plan_fft(n, direction).process(&mut direct);
                let (mut out, mut work) = (vec![zero(); n], vec![zero(); n]);
                plan.process(&x, &mut out, &mut work, None);
                let scale = direct.iter().map(|z| z.norm()).fold(0.0, f64::max);
                let err = out
                    .iter()
                    .zip(&direct)
                    .map(|(a, b)| (a - b).norm())
                    .fold(0.0, f64::max);
                assert!(err <= 1e-13 * scale, "n = {n} {direction:?}: error {err:e}");
                let mut scaled = vec![zero(); n];
                plan.process(&x, &mut scaled, &mut work, Some(0.5));
                assert!(scaled.iter().zip(&out).all(|(s, o)| *s == o * 0.5));
            }
        }
    }

    /// Lengths too short, or without two factors of at least `MIN_FACTOR`, keep one plan.
    #[test]
    fn declines_short_and_unsplittable_lengths() {
        let mut planner = FftPlanner::<f32>::new();
        let prime = 65_537;
        let two_primes = 2 * 32_771;
        for n in [MIN_LENGTH - 1, 4096, prime, two_primes] {
            assert!(
                FourStep::new(n, FftDirection::Forward, &mut planner).is_none(),
                "{n}"
            );
        }
        let plan = FourStep::new(1 << 22, FftDirection::Forward, &mut planner).unwrap();
        assert_eq!((plan.n1, plan.n2), (2048, 2048));
    }
}
