//! bf16 × bf16 → f32 tiles: `vdpbf16ps` (AVX512-BF16) when the CPU has it, else portable
//! scalar code with the same packing.
//!
//! A word holds the bf16 pair `(x[k], x[k+1])` (k even in the low half), so one `vdpbf16ps`
//! adds two products per f32 lane. Products of bf16 values are exact in f32; sums round in f32
//! (the instruction also treats denormal inputs as zero, as XLA:CPU's flush-to-zero mode does).

use super::MicroKernel;
use half::bf16;

/// Rows of a tile: 14 rows × 2 vectors = 28 accumulators of the 32 vector registers.
const MR: usize = 14;
/// Columns of a tile: two vectors of 16 f32 lanes.
const NR: usize = 32;

/// Which implementation of the bf16 tile runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bf16Kernel {
    /// `vdpbf16ps` on 512-bit vectors.
    Avx512,
    /// Plain Rust (any CPU).
    Scalar,
}

impl Bf16Kernel {
    /// The fastest implementation this CPU runs.
    pub fn detect() -> Bf16Kernel {
        #[cfg(target_arch = "x86_64")]
        if crate::isa::allows(crate::isa::IsaCap::Avx512)
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bf16")
        {
            return Bf16Kernel::Avx512;
        }
        Bf16Kernel::Scalar
    }
}

impl MicroKernel for Bf16Kernel {
    type In = bf16;
    type Acc = f32;
    const MR: usize = MR;
    const NR: usize = NR;
    const LHS_FLIP: u32 = 0;

    fn add(x: f32, y: f32) -> f32 {
        x + y
    }

    unsafe fn tile(
        &self,
        kw: usize,
        a: *const u32,
        b: *const u32,
        c: *mut f32,
        ldc: usize,
        accumulate: bool,
    ) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` saw the features; the caller vouches for the pointers.
            Bf16Kernel::Avx512 => unsafe { avx512::tile(kw, a, b, c, ldc, accumulate) },
            // SAFETY: the caller vouches for the pointers.
            _ => unsafe { scalar_tile(kw, a, b, c, ldc, accumulate) },
        }
    }
}

/// The same arithmetic as `vdpbf16ps` (two products per lane, f32 sums), one lane at a time.
///
/// # Safety
/// As [`MicroKernel::tile`].
unsafe fn scalar_tile(
    kw: usize,
    a: *const u32,
    b: *const u32,
    c: *mut f32,
    ldc: usize,
    accumulate: bool,
) {
    let mut acc = [[0f32; NR]; MR];
    let widen = |bits: u32| f32::from_bits(bits << 16);
    for w in 0..kw {
        // SAFETY: `kw` words of MR (A) and NR (B) lanes exist.
        let (aw, bw) = unsafe {
            (
                std::slice::from_raw_parts(a.add(w * MR), MR),
                std::slice::from_raw_parts(b.add(w * NR), NR),
            )
        };
        for (row, &x) in acc.iter_mut().zip(aw) {
            let (x0, x1) = (widen(x & 0xffff), widen(x >> 16));
            for (lane, &y) in row.iter_mut().zip(bw) {
                *lane += x0 * widen(y & 0xffff) + x1 * widen(y >> 16);
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        // SAFETY: the caller vouches for an MR × NR tile at `c` with row stride `ldc`.
        let dst = unsafe { std::slice::from_raw_parts_mut(c.add(r * ldc), NR) };
        for (d, &v) in dst.iter_mut().zip(row) {
            *d = if accumulate { *d + v } else { v };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{MR, NR};
    use std::arch::x86_64::*;

    /// One 14 × 32 tile: per K word, two B vectors and 14 broadcast A words feed 28
    /// `vdpbf16ps` into 28 accumulator registers.
    ///
    /// # Safety
    /// The CPU has AVX512F and AVX512-BF16; pointers as in [`super::MicroKernel::tile`].
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub unsafe fn tile(
        kw: usize,
        a: *const u32,
        b: *const u32,
        c: *mut f32,
        ldc: usize,
        accumulate: bool,
    ) {
        let mut acc = [[_mm512_setzero_ps(); 2]; MR];
        let (mut a, mut b) = (a, b);
        for _ in 0..kw {
            // SAFETY: `kw` words of MR and NR lanes are readable (caller's contract).
            unsafe {
                let b0: __m512bh = std::mem::transmute(_mm512_loadu_si512(b as *const _));
                let b1: __m512bh = std::mem::transmute(_mm512_loadu_si512(b.add(16) as *const _));
                for (r, row) in acc.iter_mut().enumerate() {
                    let x: __m512bh = std::mem::transmute(_mm512_set1_epi32(*a.add(r) as i32));
                    row[0] = _mm512_dpbf16_ps(row[0], x, b0);
                    row[1] = _mm512_dpbf16_ps(row[1], x, b1);
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
                    v0 = _mm512_add_ps(v0, _mm512_loadu_ps(p));
                    v1 = _mm512_add_ps(v1, _mm512_loadu_ps(p.add(16)));
                }
                _mm512_storeu_ps(p, v0);
                _mm512_storeu_ps(p.add(16), v1);
            }
        }
    }
}
