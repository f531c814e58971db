//! int8 × int8 → i32 tiles: `vpdpbusd` (AVX512-VNNI) when the CPU has it, else portable
//! scalar code with the same packing.
//!
//! `vpdpbusd` multiplies *unsigned* bytes of one operand by signed bytes of the other. The lhs
//! is therefore packed shifted by 128 (`a + 128` fits a u8), which adds `128 · Σ_k b[k, n]` to
//! every result of column `n`; [`run_i8`] subtracts those column sums afterwards. All sums wrap
//! at 32 bits, so the result is exact modulo 2³² — the i32 (and narrower, after truncation)
//! wrapping semantics of StableHLO.

use super::super::float::BatchedShape;
use super::super::layout::MatView;
use super::{Blocking, MicroKernel};

/// Rows of a tile: 14 rows × 2 vectors = 28 accumulators.
const MR: usize = 14;
/// Columns of a tile: two vectors of 16 i32 lanes.
const NR: usize = 32;

/// Which implementation of the int8 tile runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum I8Kernel {
    /// `vpdpbusd` on 512-bit vectors.
    Avx512Vnni,
    /// Plain Rust (any CPU).
    Scalar,
}

impl I8Kernel {
    /// The fastest implementation this CPU runs.
    pub fn detect() -> I8Kernel {
        #[cfg(target_arch = "x86_64")]
        if crate::isa::allows(crate::isa::IsaCap::Avx512)
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vnni")
        {
            return I8Kernel::Avx512Vnni;
        }
        I8Kernel::Scalar
    }
}

impl MicroKernel for I8Kernel {
    type In = i8;
    type Acc = i32;
    const MR: usize = MR;
    const NR: usize = NR;
    /// Shifted to unsigned: `a ^ 0x80 = a + 128` in every byte (missing K elements still give
    /// zero products: the rhs pads with zeros).
    const LHS_FLIP: u32 = 0x8080_8080;

    fn add(x: i32, y: i32) -> i32 {
        x.wrapping_add(y)
    }

    unsafe fn tile(
        &self,
        kw: usize,
        a: *const u32,
        b: *const u32,
        c: *mut i32,
        ldc: usize,
        accumulate: bool,
    ) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` saw the features; the caller vouches for the pointers.
            I8Kernel::Avx512Vnni => unsafe { avx512::tile(kw, a, b, c, ldc, accumulate) },
            // SAFETY: the caller vouches for the pointers.
            _ => unsafe { scalar_tile(kw, a, b, c, ldc, accumulate) },
        }
    }
}

/// `out[b] = lhs[b] · rhs[b]` in wrapping i32 for a batch (dense `[B, M, N]` result).
pub fn run_i8(
    kern: I8Kernel,
    s: BatchedShape,
    lhs: &[i8],
    lv: MatView,
    rhs: &[i8],
    rv: MatView,
    out: &mut [i32],
) {
    run_i8_blocked(
        kern,
        Blocking::detect::<I8Kernel>(),
        s,
        lhs,
        lv,
        rhs,
        rv,
        out,
    );
}

/// [`run_i8`] with the blocking given.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_i8_blocked(
    kern: I8Kernel,
    blocking: Blocking,
    s: BatchedShape,
    lhs: &[i8],
    lv: MatView,
    rhs: &[i8],
    rv: MatView,
    out: &mut [i32],
) {
    super::run_blocked(&kern, blocking, s, lhs, lv, rhs, rv, out);
    let per_matrix = s.m * s.n;
    if per_matrix == 0 || s.k == 0 {
        return;
    }
    let mut column_sums = vec![0i32; s.n];
    for (b, o) in out.chunks_mut(per_matrix).enumerate() {
        column_sums.fill(0);
        for k in 0..s.k {
            let row = rv.start(b) + k * rv.row;
            for (n, sum) in column_sums.iter_mut().enumerate() {
                *sum = sum.wrapping_add(rhs[row + n * rv.col] as i32);
            }
        }
        for row in o.chunks_mut(s.n) {
            for (x, &sum) in row.iter_mut().zip(&column_sums) {
                *x = x.wrapping_sub(sum.wrapping_mul(128));
            }
        }
    }
}

/// The same arithmetic as `vpdpbusd` (u8 × i8 products, wrapping i32 sums).
///
/// # Safety
/// As [`MicroKernel::tile`].
unsafe fn scalar_tile(
    kw: usize,
    a: *const u32,
    b: *const u32,
    c: *mut i32,
    ldc: usize,
    accumulate: bool,
) {
    let mut acc = [[0i32; NR]; MR];
    for w in 0..kw {
        // SAFETY: `kw` words of MR (A) and NR (B) lanes exist.
        let (aw, bw) = unsafe {
            (
                std::slice::from_raw_parts(a.add(w * MR), MR),
                std::slice::from_raw_parts(b.add(w * NR), NR),
            )
        };
        for (row, &x) in acc.iter_mut().zip(aw) {
            let xs = x.to_le_bytes();
            for (lane, &y) in row.iter_mut().zip(bw) {
                let ys = y.to_le_bytes();
                let dot: i32 = (0..4).map(|j| xs[j] as i32 * ys[j] as i8 as i32).sum();
                *lane = lane.wrapping_add(dot);
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        // SAFETY: the caller vouches for an MR × NR tile at `c` with row stride `ldc`.
        let dst = unsafe { std::slice::from_raw_parts_mut(c.add(r * ldc), NR) };
        for (d, &v) in dst.iter_mut().zip(row) {
            *d = if accumulate { d.wrapping_add(v) } else { v };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{MR, NR};
    use std::arch::x86_64::*;

    /// One 14 × 32 tile: per K word (4 bytes), two B vectors and 14 broadcast A words feed
    /// 28 `vpdpbusd`.
    ///
    /// # Safety
    /// The CPU has AVX512F and AVX512-VNNI; pointers as in [`super::MicroKernel::tile`].
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub unsafe fn tile(
        kw: usize,
        a: *const u32,
        b: *const u32,
        c: *mut i32,
        ldc: usize,
        accumulate: bool,
    ) {
        let mut acc = [[_mm512_setzero_si512(); 2]; MR];
        let (mut a, mut b) = (a, b);
        for _ in 0..kw {
            // SAFETY: `kw` words of MR and NR lanes are readable (caller's contract).
            unsafe {
                let b0 = _mm512_loadu_si512(b as *const _);
                let b1 = _mm512_loadu_si512(b.add(16) as *const _);
                for (r, row) in acc.iter_mut().enumerate() {
                    let x = _mm512_set1_epi32(*a.add(r) as i32);
                    row[0] = _mm512_dpbusd_epi32(row[0], x, b0);
                    row[1] = _mm512_dpbusd_epi32(row[1], x, b1);
                }
                a = a.add(MR);
                b = b.add(NR);
            }
        }
        for (r, row) in acc.iter().enumerate() {
            // SAFETY: an MR × NR tile with row stride `ldc` is writable at `c`.
            unsafe {
                let p = c.add(r * ldc);
                let (mut v0, mut v1) = (row[0], row[1]);
                if accumulate {
                    v0 = _mm512_add_epi32(v0, _mm512_loadu_si512(p as *const _));
                    v1 = _mm512_add_epi32(v1, _mm512_loadu_si512(p.add(16) as *const _));
                }
                _mm512_storeu_si512(p as *mut _, v0);
                _mm512_storeu_si512(p.add(16) as *mut _, v1);
            }
        }
    }
}
