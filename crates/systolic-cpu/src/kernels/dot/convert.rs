//! The straightforward paths: operands converted to an accumulation domain (f32, f64, wrapping
//! 64-bit integers or booleans), as the interpreter's "operands are converted to the result
//! element type first" rule says, and results written back in the result dtype.
//!
//! Conversions keep each operand's layout, so the strided views of the plan still apply.
//! Integer products are exact modulo 2⁶⁴ and truncated once to the result width, which gives
//! the same bits as wrapping at the result width after every step.

use super::float::BatchedShape;
use super::layout::MatView;
use crate::buffer::Storage;
use crate::kernels::fusion::elementwise::lanes::bf16_bits;
use crate::threads::for_each_chunk_mut;
use half::{bf16, f16};
use systolic_ir::{numerics, DType};

/// An operand's elements as f32 (integers and wider floats rounded to nearest), in a vector
/// from the buffer pool: hand it back with [`crate::pool::recycle_vec`] once the product is
/// done.
///
/// A bf16 language model's products convert operands of up to 32 MiB per step on CPUs without
/// AVX512-BF16; fresh vectors for them were zero-filled and faulted in on every step. Large
/// operands convert in parallel chunks.
pub fn to_f32(s: &Storage) -> Vec<f32> {
    let mut out = crate::pool::take_vec::<f32>(s.len());
    let parallel = s.len() >= 2 * CONVERT_CHUNK;
    for_each_chunk_mut(&mut out, CONVERT_CHUNK, parallel, |c, chunk| {
        convert_f32(s, c * CONVERT_CHUNK, chunk)
    });
    out
}

/// `out[i]` = element `start + i` of `s` as f32 (see [`to_f32`]).
pub fn convert_f32(s: &Storage, start: usize, out: &mut [f32]) {
    // One vector loop per element type, in the widest copy the CPU runs (the baseline copy
    // converts bf16 four lanes at a time with SSE2).
    fn each<T: Copy>(v: &[T], start: usize, out: &mut [f32], f: impl Fn(T) -> f32) {
        crate::kernels::math::simd::map1(&v[start..], out, f);
    }
    match s {
        Storage::Bool(v) => each(v, start, out, |x| x as u8 as f32),
        Storage::I8(v) => each(v, start, out, |x| x as f32),
        Storage::I16(v) => each(v, start, out, |x| x as f32),
        Storage::I32(v) => each(v, start, out, |x| x as f32),
        Storage::I64(v) => each(v, start, out, |x| x as f32),
        Storage::U8(v) => each(v, start, out, |x| x as f32),
        Storage::U16(v) => each(v, start, out, |x| x as f32),
        Storage::U32(v) => each(v, start, out, |x| x as f32),
        Storage::U64(v) => each(v, start, out, |x| x as f32),
        Storage::F16(v) => each(v, start, out, |x| x.to_f32()),
        Storage::BF16(v) => each(v, start, out, |x| x.to_f32()),
        Storage::F32(v) => each(v, start, out, |x| x),
        Storage::F64(v) => each(v, start, out, |x| x as f32),
        // As `convert` does: the real part (complex products run on the fallback).
        Storage::C64(v) => each(v, start, out, |z| z.re),
        Storage::C128(v) => each(v, start, out, |z| z.re as f32),
    }
}

/// An operand's elements as f64 (exact except for 64-bit integers beyond 2⁵³).
pub fn to_f64(s: &Storage) -> Vec<f64> {
    match s {
        Storage::Bool(v) => v.iter().map(|&x| x as u8 as f64).collect(),
        Storage::I8(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::I16(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::I32(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::I64(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::U8(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::U16(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::U32(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::U64(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
        Storage::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
        Storage::F32(v) => v.iter().map(|&x| x as f64).collect(),
        Storage::F64(v) => v.clone(),
        Storage::C64(v) => v.iter().map(|z| z.re as f64).collect(),
        Storage::C128(v) => v.iter().map(|z| z.re).collect(),
    }
}

/// An operand's elements as 64-bit two's-complement patterns of their value converted to the
/// integer dtype `result`: integers sign- or zero-extend (the low bits are those of the
/// conversion), floats convert saturating (NaN → 0), booleans are 0 or 1.
pub fn to_wrapping(s: &Storage, result: DType) -> Vec<u64> {
    let float = |x: f64| -> u64 {
        if result.is_signed_integer() {
            numerics::float_to_signed(result, x) as u64
        } else {
            numerics::float_to_unsigned(result, x)
        }
    };
    match s {
        Storage::Bool(v) => v.iter().map(|&x| x as u64).collect(),
        Storage::I8(v) => v.iter().map(|&x| x as i64 as u64).collect(),
        Storage::I16(v) => v.iter().map(|&x| x as i64 as u64).collect(),
        Storage::I32(v) => v.iter().map(|&x| x as i64 as u64).collect(),
        Storage::I64(v) => v.iter().map(|&x| x as u64).collect(),
        Storage::U8(v) => v.iter().map(|&x| x as u64).collect(),
        Storage::U16(v) => v.iter().map(|&x| x as u64).collect(),
        Storage::U32(v) => v.iter().map(|&x| x as u64).collect(),
        Storage::U64(v) => v.clone(),
        Storage::F16(v) => v.iter().map(|x| float(x.to_f64())).collect(),
        Storage::BF16(v) => v.iter().map(|x| float(x.to_f64())).collect(),
        Storage::F32(v) => v.iter().map(|&x| float(x as f64)).collect(),
        Storage::F64(v) => v.iter().map(|&x| float(x)).collect(),
        Storage::C64(v) => v.iter().map(|z| float(z.re as f64)).collect(),
        Storage::C128(v) => v.iter().map(|z| float(z.re)).collect(),
    }
}

/// An operand's elements as booleans (nonzero is true).
pub fn to_bool(s: &Storage) -> Vec<bool> {
    match s {
        Storage::Bool(v) => v.clone(),
        other => to_f64(other).iter().map(|&x| x != 0.0).collect(),
    }
}

/// Runs `f` on a scratch of `len` f32s whose contents are unspecified (`f` must write every
/// element it reads back): the f32 accumulators of a product whose result has another dtype.
///
/// The scratch comes from the buffer pool and goes back to it, so a product reuses the one its
/// previous run used (a fresh zeroed vector per product cost page faults and a fill pass: 7% of
/// a bf16 product's samples in `perf`). A per-thread vector kept between calls did not: the
/// products of a run execute on whichever worker is free, a product nested in another's
/// parallel region (two paired steps) found that thread's vector taken and made its own, and
/// one vector grown to the largest product's size was reallocated and faulted in again by the
/// others. lm_train_step_bf16 (AMD EPYC Zen 3) faulted 75 k pages (290 MB) in four steady
/// runs with it, 13 k with the pool (minor faults of `systolic run --repeat 4` less those of
/// `--repeat 0`).
pub fn with_f32_scratch<R>(len: usize, f: impl FnOnce(&mut [f32]) -> R) -> R {
    let mut buf = crate::pool::take_vec::<f32>(len);
    let r = f(&mut buf);
    crate::pool::recycle_vec(buf);
    r
}

/// Runs `product` straight into `out` when it holds f32, else into the kept f32 scratch
/// ([`with_f32_scratch`]) whose values are then written into `out`, rounded once
/// ([`write_f32`]). False when `out` is not float storage.
pub fn into_float(out: &mut Storage, product: impl FnOnce(&mut [f32])) -> bool {
    match out {
        Storage::F32(o) => {
            product(o);
            true
        }
        other => with_f32_scratch(other.len(), |acc| {
            product(acc);
            write_f32(other, acc)
        }),
    }
}

/// Elements per parallel task of a conversion.
const CONVERT_CHUNK: usize = 1 << 16;

/// Writes f32 results into float storage, rounding once to nearest even for f16/bf16.
/// Returns false when `out` is not float storage.
pub fn write_f32(out: &mut Storage, values: &[f32]) -> bool {
    write_f32_block(out, 0, values.len(), values.len(), values)
}

/// True for the storage [`write_f32`] and [`write_f32_block`] write (f32, bf16, f16, f64).
pub fn is_float_storage(s: &Storage) -> bool {
    matches!(
        s,
        Storage::F32(_) | Storage::BF16(_) | Storage::F16(_) | Storage::F64(_)
    )
}

/// Writes a block of f32 results into float storage as [`write_f32`] does: `values` holds rows
/// of `width` values, row `i` going to `out[offset + i · row_len ..][..width]`. Full rows
/// (`width == row_len`) are one contiguous range, converted in parallel chunks; narrower
/// blocks in parallel rows. Returns false when `out` is not float storage.
pub fn write_f32_block(
    out: &mut Storage,
    offset: usize,
    row_len: usize,
    width: usize,
    values: &[f32],
) -> bool {
    fn block<T: Send>(
        out: &mut [T],
        offset: usize,
        row_len: usize,
        width: usize,
        values: &[f32],
        round: impl Fn(f32) -> T + Sync,
    ) {
        let store = |o: &mut [T], v: &[f32]| {
            for (d, &x) in o.iter_mut().zip(v) {
                *d = round(x);
            }
        };
        if width == 0 || values.is_empty() {
            return;
        }
        let parallel = values.len() >= 2 * CONVERT_CHUNK;
        if width == row_len {
            let o = &mut out[offset..offset + values.len()];
            return for_each_chunk_mut(o, CONVERT_CHUNK, parallel, |c, o| {
                store(o, &values[c * CONVERT_CHUNK..])
            });
        }
        let rows = values.len() / width;
        let o = &mut out[offset..offset + (rows - 1) * row_len + width];
        for_each_chunk_mut(o, row_len, parallel, |r, o| {
            store(&mut o[..width], &values[r * width..][..width])
        });
    }
    match out {
        Storage::F32(o) => block(o, offset, row_len, width, values, |x| x),
        Storage::BF16(o) => block(o, offset, row_len, width, values, |x| {
            bf16::from_bits(bf16_bits(x))
        }),
        Storage::F16(o) => block(o, offset, row_len, width, values, f16::from_f32),
        Storage::F64(o) => block(o, offset, row_len, width, values, |x| x as f64),
        _ => return false,
    }
    true
}

/// Writes wrapping 64-bit results into integer storage of dtype `dtype`, truncated to its
/// width. Returns false when `out` is not integer storage.
pub fn write_wrapping(out: &mut Storage, dtype: DType, values: &[u64]) -> bool {
    let bits = dtype.bit_width();
    let signed = |x: u64| numerics::wrap_signed(bits, x as i64);
    let unsigned = |x: u64| numerics::wrap_unsigned(bits, x);
    match out {
        Storage::I8(o) => o
            .iter_mut()
            .zip(values)
            .for_each(|(d, &x)| *d = signed(x) as i8),
        Storage::I16(o) => o.iter_mut().zip(values).for_each(|(d, &x)| *d = x as i16),
        Storage::I32(o) => o.iter_mut().zip(values).for_each(|(d, &x)| *d = x as i32),
        Storage::I64(o) => o.iter_mut().zip(values).for_each(|(d, &x)| *d = x as i64),
        Storage::U8(o) => o
            .iter_mut()
            .zip(values)
            .for_each(|(d, &x)| *d = unsigned(x) as u8),
        Storage::U16(o) => o.iter_mut().zip(values).for_each(|(d, &x)| *d = x as u16),
        Storage::U32(o) => o.iter_mut().zip(values).for_each(|(d, &x)| *d = x as u32),
        Storage::U64(o) => o.copy_from_slice(values),
        _ => return false,
    }
    true
}

/// A value the plain product loops accumulate.
pub trait Ring: Copy + Send + Sync {
    /// The additive identity.
    const ZERO: Self;
    /// `self + a · b` (wrapping for integers; or/and for booleans).
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl Ring for u64 {
    const ZERO: Self = 0;
    fn mul_add(self, a: Self, b: Self) -> Self {
        self.wrapping_add(a.wrapping_mul(b))
    }
}

impl Ring for num_complex::Complex64 {
    const ZERO: Self = num_complex::Complex64::new(0.0, 0.0);
    /// The interpreter's complex accumulation (`acc + a · b`, num_complex's product).
    fn mul_add(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}

impl Ring for bool {
    const ZERO: Self = false;
    fn mul_add(self, a: Self, b: Self) -> Self {
        self | (a & b)
    }
}

/// Plain loops (row of lhs times rhs, rhs rows streamed) for the types no fast kernel covers.
pub fn loops<T: Ring>(s: BatchedShape, lhs: &[T], lv: MatView, rhs: &[T], rv: MatView) -> Vec<T> {
    let mut out = vec![T::ZERO; s.batch * s.m * s.n];
    if s.m * s.n == 0 {
        return out;
    }
    for (b, o) in out.chunks_mut(s.m * s.n).enumerate() {
        for (m, row) in o.chunks_mut(s.n).enumerate() {
            for k in 0..s.k {
                let a = lhs[lv.start(b) + m * lv.row + k * lv.col];
                let r0 = rv.start(b) + k * rv.row;
                for (n, x) in row.iter_mut().enumerate() {
                    *x = x.mul_add(a, rhs[r0 + n * rv.col]);
                }
            }
        }
    }
    out
}
