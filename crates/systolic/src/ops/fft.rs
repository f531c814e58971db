//! Fourier transforms: `lax.fft`, one `stablehlo.fft` over the trailing dimensions.
//!
//! `numpy.fft` (axes, `n`, norms) is built on this op in `ops/np_fft.rs`, as JAX builds it on
//! `lax.fft`.

use crate::array::describe;
use crate::core::bind::bind1;
use crate::error::Error;
use crate::ops::elementwise::{convert, to_inexact};
use systolic_ir::{DType, FftType, OpKind};

/// `lax.fft(x, fft_type, fft_lengths)`: the transform `fft_type` over the last
/// `fft_lengths.len()` (1 to 3) dimensions, which must match `fft_lengths` (for IRFFT the last
/// one is `n / 2 + 1`). As in JAX the operand is converted first: to a complex dtype for
/// FFT, IFFT and IRFFT (`f64` → `complex<f64>`, anything else → `complex<f32>`), to an inexact
/// one for RFFT (integers → `f32`; a complex operand is an error); no lengths return the
/// converted operand. Shapes and dtypes the op does not accept give an error naming `fft`.
///
/// ```
/// use systolic::{lax, Array, Complex32};
/// use systolic_ir::FftType;
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]);
/// let y = lax::fft(&x, FftType::Rfft, &[4]).to_vec::<Complex32>().unwrap();
/// assert_eq!(y, vec![Complex32::new(10.0, 0.0), Complex32::new(-2.0, 2.0), Complex32::new(-2.0, 0.0)]);
/// ```
pub fn fft(x: &crate::Array, fft_type: FftType, fft_lengths: &[i64]) -> crate::Array {
    if let Err(e) = x.check() {
        return crate::Array::failed(e);
    }
    let d = x.element_type();
    let x = match fft_type {
        FftType::Rfft if d.is_complex() => {
            return crate::Array::failed(Error::op(
                "fft",
                format!("RFFT takes a real operand, got {}", describe(x.aval())),
            ))
        }
        FftType::Rfft => to_inexact("fft", x),
        FftType::Fft | FftType::Ifft | FftType::Irfft if !d.is_complex() => {
            let c = if d == DType::F64 {
                DType::C128
            } else {
                DType::C64
            };
            convert("fft", x, c, x.weak_type())
        }
        FftType::Fft | FftType::Ifft | FftType::Irfft => x.clone(),
    };
    if fft_lengths.is_empty() {
        return x;
    }
    bind1(
        "fft",
        OpKind::Fft {
            fft_type,
            fft_length: fft_lengths.to_vec(),
        },
        &[&x],
        None,
        false,
    )
}
