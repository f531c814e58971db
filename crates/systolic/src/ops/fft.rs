//! Fourier transforms: `lax.fft`, one `stablehlo.fft` over the trailing dimensions.
//!
//! `numpy.fft` (axes, `n`, norms) is to be built on this op, as JAX builds it on `lax.fft`.

use crate::core::bind::bind1;
use crate::ops::elementwise::convert;
use systolic_ir::{FftType, OpKind};

/// `lax.fft(x, fft_type, fft_lengths)`: the transform `fft_type` over the last
/// `fft_lengths.len()` (1 to 3) dimensions, which must match `fft_lengths` (for IRFFT the last
/// one is `n / 2 + 1`). A real operand of FFT/IFFT becomes complex first, as in JAX; shapes
/// and dtypes the op does not accept give an error naming `fft`.
///
/// ```
/// use systolic::{lax, Array, Complex32};
/// use systolic_ir::FftType;
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]);
/// let y = lax::fft(&x, FftType::Rfft, &[4]).to_vec::<Complex32>().unwrap();
/// assert_eq!(y, vec![Complex32::new(10.0, 0.0), Complex32::new(-2.0, 2.0), Complex32::new(-2.0, 0.0)]);
/// ```
pub fn fft(x: &crate::Array, fft_type: FftType, fft_lengths: &[i64]) -> crate::Array {
    let x = match fft_type {
        FftType::Fft | FftType::Ifft if x.error().is_none() && !x.element_type().is_complex() => {
            let c = x
                .element_type()
                .component()
                .and_then(|d| d.complex_of())
                .unwrap_or(systolic_ir::DType::C64);
            convert("fft", x, c, x.weak_type())
        }
        _ => x.clone(),
    };
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
