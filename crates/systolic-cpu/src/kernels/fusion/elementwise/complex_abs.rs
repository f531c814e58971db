//! `abs` of `complex<f32>` lanes as the interpreter computes it — `hypot` of the parts in f64,
//! rounded to f32 and flushed — without calling `hypot` for all but a few lanes in a million.
//!
//! The vector pass computes the correctly rounded f32 root of `re² + im²` in f32 arithmetic:
//! the sum as an unevaluated pair `hi + lo` (each square split exactly by a fused
//! multiply-add, the two high parts added with their rounding error kept), the candidate
//! `r = sqrt(hi)` (within an ulp of the answer), then the exact residual `re² + im² − r²`
//! compared with the distance `r · ulp(r)` from `r²` to the square of either neighbouring
//! rounding midpoint to move `r` up or down one ulp. The interpreter's `hypot` is within an
//! f64 ulp of |z|, so wherever |z| lies clearly apart from an f32 midpoint both round to the
//! same f32. Lanes where that is not certain come out as NaN and are recomputed with `hypot`:
//! a residual within 2^-19 of the decision distance (about one lane in 2^17), moduli below
//! 2^-30 (where squares leave the normal range) or rounding to infinity, roots that are powers
//! of two (their lower neighbour is half as far), infinite and NaN parts.
//!
//! Why not the f64 root ([`settled_wide`]): `sqrt` of 8 f64 lanes occupies a Zen 4 core for
//! about 17 cycles, the whole f32 route for 16 lanes about 29. The f32 route is written with
//! intrinsics, for AVX-512 (1.80 cycles per lane against 1.96 for the loop LLVM vectorises from
//! [`settled`] and 2.11 for the f64 root, on 512 lanes in L1 of a Zen 4) and for AVX2 with FMA
//! (`settle_v3`). The AVX2 pass runs in two sweeps over each chunk of lanes, the root and
//! residual first, the rounding decision second: in one sweep every lane is a chain of some
//! 45 cycles (the root alone takes 14) and an AMD Zen 3 core keeps only about two 8-lane
//! iterations in flight, so the loop LLVM vectorises from [`settled`] took 3.35 cycles per
//! lane and the same in intrinsics 2.5–2.7; the two sweeps take 2.0–2.1 (512 lanes in L1).
//! On the baseline target the f64 root is used: the portable copy of the loop has no fused
//! multiply-add instruction, and [`settled`] needs four per lane. Every pass gives the
//! interpreter's bits after the patch.

use crate::kernels::math::simd::{any, has_avx2_fma, has_avx512, map1};
use num_complex::Complex32;

/// Lanes per NaN test of the patch pass.
const PATCH: usize = 64;

/// The smallest modulus the vector pass settles (below it the squares' low parts may leave
/// the normal range).
const SMALLEST: f32 = 1.0 / (1u64 << 30) as f32;

/// How close (relative to the decision distance) the residual may come to it before the lane
/// is left to `hypot`: covers the f32 errors of the residual (under 2^-21 of it), the f64
/// ulps between `hypot` and |z| (2^-22) and the square of half an ulp (2^-25).
const NEAR: f32 = 1.0 / (1u32 << 19) as f32;

/// `out[i] = |a[i]|` as the interpreter gives it (`hypot` in f64, rounded to f32, flushed).
pub fn abs_block(a: &[Complex32], out: &mut [f32]) {
    assert_eq!(
        a.len(),
        out.len(),
        "abs_block: operand and result lengths differ"
    );
    #[cfg(target_arch = "x86_64")]
    {
        type VectorPass = unsafe fn(&[Complex32], &mut [f32]) -> bool;
        let pass: Option<VectorPass> = if has_avx512() {
            Some(settle_v4)
        } else if has_avx2_fma() {
            Some(settle_v3)
        } else {
            None
        };
        if let Some(pass) = pass {
            // SAFETY: the CPU supports every feature the chosen pass is compiled for (checked
            // above).
            if unsafe { pass(a, out) } {
                patch(a, out);
            }
            return;
        }
    }
    map1(
        a,
        out,
        #[inline(always)]
        |z: Complex32| settled_wide(z),
    );
    patch(a, out);
}

/// The interpreter's value for the lanes the vector pass left NaN.
fn patch(a: &[Complex32], out: &mut [f32]) {
    for (out, a) in out.chunks_mut(PATCH).zip(a.chunks(PATCH)) {
        if any(out, |r: f32| r.is_nan()) {
            for (o, z) in out.iter_mut().zip(a) {
                if o.is_nan() {
                    *o = reference(*z);
                }
            }
        }
    }
}

/// `|z|` as the interpreter computes it.
pub fn reference(z: Complex32) -> f32 {
    let r = (z.re as f64).hypot(z.im as f64) as f32;
    if r.is_subnormal() {
        0.0
    } else {
        r
    }
}

/// `|z|` correctly rounded where the f32 arithmetic settles it, NaN where [`reference`] must
/// decide (branch-free, vectorisable; see the module's documentation). `settle_v4` and
/// `settle_v3` compute the same, step for step.
#[inline(always)]
pub fn settled(z: Complex32) -> f32 {
    let (x, y) = (z.re, z.im);
    // re² + im² = hi + lo: the squares split exactly, their high parts summed with the
    // rounding error kept (the larger first).
    let (px, py) = (x * x, y * y);
    let (ex, ey) = (x.mul_add(x, -px), y.mul_add(y, -py));
    let (big, small) = (px.max(py), px.min(py));
    let hi = big + small;
    let lo = (small - (hi - big) + ex) + ey;
    let r = hi.sqrt();
    // re² + im² − r², exactly enough: r² − hi is exact from the fused multiply-add.
    let d = lo - r.mul_add(r, -hi);
    let bits = r.to_bits();
    let ulp = f32::from_bits((bits & 0x7f80_0000).wrapping_sub(23 << 23));
    // The square of the midpoint above r is r² + w (+ a quarter ulp², inside NEAR), the one
    // below r² − w.
    let w = r * ulp;
    let ad = d.abs();
    let clear = (ad - w).abs() > w * NEAR
        && ad < 3.0 * w
        && bits.wrapping_sub(SMALLEST.to_bits()) < f32::MAX.to_bits() - SMALLEST.to_bits()
        && bits & 0x007f_ffff != 0;
    let up = d > w;
    let down = ad > w && !up;
    let rounded = f32::from_bits(bits.wrapping_add(up as u32).wrapping_sub(down as u32));
    if clear {
        rounded
    } else {
        f32::NAN
    }
}

/// `|z|` from the f64 root of `re² + im²` where it settles the rounding, NaN where
/// [`reference`] must decide (branch-free, vectorisable without fused multiply-adds). The
/// squares are exact in f64, the sum and root add under an ulp each, so a root more than 64
/// f64 ulps from an f32 midpoint rounds as |z| does; roots near one (one in 2^22), below twice
/// f32's smallest normal (the flush) or rounding to infinity, and NaN are left to `hypot`.
#[inline(always)]
pub fn settled_wide(z: Complex32) -> f32 {
    const MIDPOINT: u32 = 1 << 28;
    let (x, y) = (z.re as f64, z.im as f64);
    let root = (x * x + y * y).sqrt();
    let rounded = root as f32;
    // The low 29 mantissa bits, which f32 drops: an f32 midpoint has exactly the top one.
    let dropped = root.to_bits() as u32 & ((1 << 29) - 1);
    let clear = dropped.wrapping_sub(MIDPOINT - 64) > 128;
    // NaN fails both comparisons.
    let in_range = (2.0 * f32::MIN_POSITIVE..=f32::MAX).contains(&rounded);
    if clear && in_range {
        rounded
    } else {
        f32::NAN
    }
}

/// [`settled`] on 16 lanes at a time with AVX-512 intrinsics, the tail through [`settled`].
/// True when some lane was left NaN (so the patch pass can be skipped without a test).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn settle_v4(a: &[Complex32], out: &mut [f32]) -> bool {
    use std::arch::x86_64::*;
    let whole = a.len() / 16 * 16;
    let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    let exponent = _mm512_set1_epi32(0x7f80_0000);
    let shift = _mm512_set1_epi32(23 << 23);
    let smallest = _mm512_set1_epi32(SMALLEST.to_bits() as i32);
    let span = _mm512_set1_epi32((f32::MAX.to_bits() - SMALLEST.to_bits()) as i32);
    let mantissa = _mm512_set1_epi32(0x007f_ffff);
    let near = _mm512_set1_ps(NEAR);
    let three = _mm512_set1_ps(3.0);
    let magnitude = _mm512_set1_epi32(0x7fff_ffff);
    let one = _mm512_set1_epi32(1);
    let nan = _mm512_set1_ps(f32::NAN);
    let abs = |v: __m512| _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), magnitude));
    let mut settled_everywhere: __mmask16 = 0xffff;
    for i in (0..whole).step_by(16) {
        // SAFETY: i + 16 ≤ whole ≤ a.len(), and Complex32 is two f32s (repr(C)).
        let p = a.as_ptr().add(i) as *const f32;
        let (v0, v1) = (_mm512_loadu_ps(p), _mm512_loadu_ps(p.add(16)));
        let x = _mm512_permutex2var_ps(v0, even, v1);
        let y = _mm512_permutex2var_ps(v0, odd, v1);
        let (px, py) = (_mm512_mul_ps(x, x), _mm512_mul_ps(y, y));
        let (ex, ey) = (_mm512_fmsub_ps(x, x, px), _mm512_fmsub_ps(y, y, py));
        let (big, small) = (_mm512_max_ps(px, py), _mm512_min_ps(px, py));
        let hi = _mm512_add_ps(big, small);
        let lo = _mm512_sub_ps(small, _mm512_sub_ps(hi, big));
        let lo = _mm512_add_ps(_mm512_add_ps(lo, ex), ey);
        let r = _mm512_sqrt_ps(hi);
        let d = _mm512_sub_ps(lo, _mm512_fmsub_ps(r, r, hi));
        let bits = _mm512_castps_si512(r);
        let ulp = _mm512_sub_epi32(_mm512_and_si512(bits, exponent), shift);
        let w = _mm512_mul_ps(r, _mm512_castsi512_ps(ulp));
        let ad = abs(d);
        let gap = abs(_mm512_sub_ps(ad, w));
        let clear = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(gap, _mm512_mul_ps(w, near))
            & _mm512_cmp_ps_mask::<_CMP_LT_OQ>(ad, _mm512_mul_ps(w, three))
            & _mm512_cmplt_epu32_mask(_mm512_sub_epi32(bits, smallest), span)
            & _mm512_test_epi32_mask(bits, mantissa);
        let up = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(d, w);
        let down = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(ad, w) & !up;
        let moved = _mm512_mask_add_epi32(bits, up, bits, one);
        let moved = _mm512_mask_sub_epi32(moved, down, moved, one);
        let result = _mm512_mask_blend_ps(clear, nan, _mm512_castsi512_ps(moved));
        settled_everywhere &= clear;
        // SAFETY: out has a.len() ≥ i + 16 lanes.
        _mm512_storeu_ps(out.as_mut_ptr().add(i), result);
    }
    let mut tail_settled = true;
    for (o, &z) in out[whole..].iter_mut().zip(&a[whole..]) {
        *o = settled(z);
        tail_settled &= !o.is_nan();
    }
    settled_everywhere != 0xffff || !tail_settled
}

/// Lanes per chunk of [`settle_v3`]'s two sweeps (the residuals wait on the stack).
#[cfg(target_arch = "x86_64")]
const SWEEP: usize = 512;

/// How far ahead (in f32s: 1024 lanes, two fusion blocks) [`settle_v3`] asks for its operand
/// to be brought into L1. The pass computes about 2 cycles per lane against well under one
/// for streaming it from memory, and the hardware prefetcher alone left the two overlapping
/// poorly: with the hint, `complex_abs2_sum_4M` (32 MB read) ran 9–12% faster on a Zen 3
/// (`scripts/bench_ab.py`, 20 rounds each at 1024, 2048 and 4096 f32s ahead, 2026-11-29).
#[cfg(target_arch = "x86_64")]
const PREFETCH_AHEAD: usize = 2048;

/// [`settled`] on 8 lanes at a time with AVX2 and FMA, in two sweeps per chunk of lanes: the
/// root `r` (into `out`) and the residual `d` (into a stack buffer), then the rounding
/// decision from the two (see the module's documentation for why). The tail goes through
/// [`settled`]. True when some lane was left NaN.
///
/// Within a sweep the lanes stay in the order the de-interleaving shuffles leave them
/// (0, 1, 4, 5, 2, 3, 6, 7 of each 8); the second sweep restores the order as it stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,fma,bmi1,bmi2,lzcnt,popcnt,f16c")]
unsafe fn settle_v3(a: &[Complex32], out: &mut [f32]) -> bool {
    use std::arch::x86_64::*;
    let whole = a.len() / 8 * 8;
    let exponent = _mm256_set1_epi32(0x7f80_0000);
    let shift = _mm256_set1_epi32(23 << 23);
    let smallest = _mm256_set1_epi32(SMALLEST.to_bits() as i32);
    // `bits - SMALLEST < span` unsigned, as `0 <= bits - SMALLEST < span` signed (span < 2^31).
    let span = _mm256_set1_epi32((f32::MAX.to_bits() - SMALLEST.to_bits()) as i32);
    let mantissa = _mm256_set1_epi32(0x007f_ffff);
    let near = _mm256_set1_ps(NEAR);
    let three = _mm256_set1_ps(3.0);
    let magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
    let nan = _mm256_set1_ps(f32::NAN);
    let mut residuals = [0f32; SWEEP];
    let mut settled_everywhere = true;
    for start in (0..whole).step_by(SWEEP) {
        let lanes = SWEEP.min(whole - start);
        // SAFETY: start + lanes ≤ whole ≤ a.len() = out.len(), and Complex32 is two f32s
        // (repr(C)).
        let (src, dst) = (
            a.as_ptr().add(start) as *const f32,
            out.as_mut_ptr().add(start),
        );
        let res = residuals.as_mut_ptr();
        for i in (0..lanes).step_by(8) {
            // A hint only: it never faults, so it may point past the operand's end.
            _mm_prefetch::<_MM_HINT_T0>(src.wrapping_add(2 * i + PREFETCH_AHEAD) as *const i8);
            let (v0, v1) = (
                _mm256_loadu_ps(src.add(2 * i)),
                _mm256_loadu_ps(src.add(2 * i + 8)),
            );
            let x = _mm256_shuffle_ps::<0x88>(v0, v1);
            let y = _mm256_shuffle_ps::<0xdd>(v0, v1);
            let (px, py) = (_mm256_mul_ps(x, x), _mm256_mul_ps(y, y));
            let (ex, ey) = (_mm256_fmsub_ps(x, x, px), _mm256_fmsub_ps(y, y, py));
            let (big, small) = (_mm256_max_ps(px, py), _mm256_min_ps(px, py));
            let hi = _mm256_add_ps(big, small);
            let lo = _mm256_sub_ps(small, _mm256_sub_ps(hi, big));
            let lo = _mm256_add_ps(_mm256_add_ps(lo, ex), ey);
            let r = _mm256_sqrt_ps(hi);
            let d = _mm256_sub_ps(lo, _mm256_fmsub_ps(r, r, hi));
            _mm256_storeu_ps(dst.add(i), r);
            _mm256_storeu_ps(res.add(i), d);
        }
        let mut clear_all = _mm256_set1_epi32(-1);
        for i in (0..lanes).step_by(8) {
            let (r, d) = (_mm256_loadu_ps(dst.add(i)), _mm256_loadu_ps(res.add(i)));
            let bits = _mm256_castps_si256(r);
            let ulp = _mm256_sub_epi32(_mm256_and_si256(bits, exponent), shift);
            let w = _mm256_mul_ps(r, _mm256_castsi256_ps(ulp));
            let ad = _mm256_and_ps(d, magnitude);
            let gap = _mm256_and_ps(_mm256_sub_ps(ad, w), magnitude);
            let decided = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_GT_OQ>(gap, _mm256_mul_ps(w, near)),
                _mm256_cmp_ps::<_CMP_LT_OQ>(ad, _mm256_mul_ps(w, three)),
            );
            let offset = _mm256_sub_epi32(bits, smallest);
            let in_range = _mm256_andnot_si256(
                _mm256_srai_epi32::<31>(offset),
                _mm256_cmpgt_epi32(span, offset),
            );
            let power_of_two =
                _mm256_cmpeq_epi32(_mm256_and_si256(bits, mantissa), _mm256_setzero_si256());
            let clear = _mm256_andnot_si256(
                power_of_two,
                _mm256_and_si256(in_range, _mm256_castps_si256(decided)),
            );
            // All-ones masks are -1: `bits - up + down` moves r one ulp up or down.
            let up = _mm256_cmp_ps::<_CMP_GT_OQ>(d, w);
            let down = _mm256_andnot_ps(up, _mm256_cmp_ps::<_CMP_GT_OQ>(ad, w));
            let moved = _mm256_add_epi32(
                _mm256_sub_epi32(bits, _mm256_castps_si256(up)),
                _mm256_castps_si256(down),
            );
            let result =
                _mm256_blendv_ps(nan, _mm256_castsi256_ps(moved), _mm256_castsi256_ps(clear));
            clear_all = _mm256_and_si256(clear_all, clear);
            // Lanes back in order: 64-bit pairs (0, 2, 1, 3).
            let ordered = _mm256_permute4x64_pd::<0xd8>(_mm256_castps_pd(result));
            _mm256_storeu_ps(dst.add(i), _mm256_castpd_ps(ordered));
        }
        settled_everywhere &= _mm256_movemask_ps(_mm256_castsi256_ps(clear_all)) == 0xff;
    }
    for (o, &z) in out[whole..].iter_mut().zip(&a[whole..]) {
        *o = settled(z);
        settled_everywhere &= !o.is_nan();
    }
    !settled_everywhere
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Values whose moduli are exactly f32 rounding midpoints (the Pythagorean triples with
    /// hypotenuse 2^24 + 1, scaled by powers of two), midpoints' neighbours, random bit
    /// patterns of every magnitude and the edge values.
    pub(crate) fn cases() -> Vec<Complex32> {
        let c: u64 = (1 << 24) + 1;
        let mut zs = vec![];
        for m in 1u64..4097 {
            let Some(n2) = c.checked_sub(m * m) else {
                break;
            };
            let n = (n2 as f64).sqrt() as u64;
            if n * n == n2 && n > 0 {
                let (a, b) = ((m * m).abs_diff(n * n) as f32, (2 * m * n) as f32);
                for e in [-100, -40, -20, 0, 30, 60, 100] {
                    let s = 2f32.powi(e);
                    for (a, b) in [(a, b), (a.next_up(), b), (a, b.next_down())] {
                        zs.push(Complex32::new(a * s, -b * s));
                        zs.push(Complex32::new(-b * s, a * s));
                    }
                }
            }
        }
        assert!(zs.len() >= 100, "no midpoint moduli found");
        let mut next = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1d);
        let unit = |bits: u64| (bits >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0;
        for _ in 0..200_000 {
            let (u, v) = (next(), next());
            zs.push(Complex32::new(
                f32::from_bits(u as u32),
                f32::from_bits(v as u32),
            ));
            zs.push(Complex32::new(unit(u), unit(v)));
        }
        let edges = [
            0.0,
            -0.0,
            1e-45,
            1e-38,
            SMALLEST,
            1.0,
            3.0,
            1.8e19,
            1e38,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        for &x in &edges {
            for &y in &edges {
                zs.push(Complex32::new(x, -y));
            }
        }
        zs
    }

    /// Every pass gives the interpreter's bits on every case (the dispatched one, the f32
    /// route and the f64 root, each patched), and leaves few lanes to `hypot`.
    #[test]
    fn abs_block_is_the_rounded_hypot_on_every_path() {
        let zs = cases();
        let mut out = vec![0f32; zs.len()];
        abs_block(&zs, &mut out);
        let patched = |pass: fn(Complex32) -> f32| {
            let mut out = vec![0f32; zs.len()];
            map1(&zs, &mut out, pass);
            patch(&zs, &mut out);
            out
        };
        let (narrow, wide) = (patched(settled), patched(settled_wide));
        for (i, z) in zs.iter().enumerate() {
            let want = reference(*z);
            for got in [out[i], narrow[i], wide[i]] {
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "abs of {z}: got {got:e}, want {want:e}"
                );
            }
        }
        let mut next = crate::test_rng::xorshift(7);
        let unit = |bits: u64| (bits >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0;
        let zs: Vec<Complex32> = (0..1 << 20)
            .map(|_| Complex32::new(unit(next()), unit(next())))
            .collect();
        for pass in [settled, settled_wide] {
            let unsettled = zs.iter().filter(|&&z| pass(z).is_nan()).count();
            assert!(
                unsettled < 64,
                "{unsettled} of 2^20 random lanes left to hypot"
            );
        }
    }

    /// Each vector pass this CPU runs (AVX-512, AVX2) and the portable one agree bit for bit,
    /// NaN lanes included, and the passes report unsettled lanes exactly when there are some.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_passes_are_the_portable_one() {
        type Pass = unsafe fn(&[Complex32], &mut [f32]) -> bool;
        let mut passes: Vec<(&str, Pass)> = vec![];
        if has_avx512() {
            passes.push(("avx512", settle_v4));
        }
        if has_avx2_fma() {
            passes.push(("avx2", settle_v3));
        }
        let zs = cases();
        for (name, pass) in passes {
            let mut vector = vec![0f32; zs.len()];
            // SAFETY: the CPU supports the pass's features (checked above).
            let unsettled = unsafe { pass(&zs, &mut vector) };
            assert_eq!(unsettled, vector.iter().any(|v| v.is_nan()), "{name}");
            // Lengths around the sweep and vector widths, every lane settled.
            for len in [0, 7, 37, SWEEP - 1, SWEEP + 9, 3 * SWEEP] {
                let settled_block = vec![Complex32::new(3.0, 4.0); len];
                let mut out = vec![0f32; len];
                // SAFETY: as above.
                assert!(!unsafe { pass(&settled_block, &mut out) }, "{name} {len}");
                assert!(out.iter().all(|&v| v == 5.0), "{name} {len}");
            }
            // One unsettled lane (an infinite part) anywhere in a long block is reported.
            for at in [0, 8, SWEEP + 3, 2 * SWEEP - 1] {
                let mut block = vec![Complex32::new(3.0, 4.0); 2 * SWEEP];
                block[at] = Complex32::new(f32::INFINITY, 1.0);
                let mut out = vec![0f32; block.len()];
                // SAFETY: as above.
                assert!(unsafe { pass(&block, &mut out) }, "{name} at {at}");
                assert!(out[at].is_nan() && out.iter().filter(|v| v.is_nan()).count() == 1);
            }
            for (z, v) in zs.iter().zip(&vector) {
                let s = settled(*z);
                assert!(
                    s.to_bits() == v.to_bits() || (s.is_nan() && v.is_nan()),
                    "{name} settled({z}): portable {s:e}, vector {v:e}"
                );
            }
        }
    }
}
