//! `fft`. Every transform is linear (RFFT and IRFFT over the reals), so a tangent is the same
//! transform of the operand's tangent. The transposes are JAX's (no conjugation):
//! - FFT ↔ FFT and IFFT ↔ IFFT: the DFT matrix is symmetric.
//! - RFFT is "the complex FFT of the real input, keeping the first `n/2 + 1` coefficients of
//!   the last axis", so its transpose pads the cotangent with zeros to the full length, takes
//!   the complex FFT over every transformed axis, and keeps the real part.
//! - IRFFT: the RFFT of the cotangent, scaled by `1/N` (N the product of the lengths) and by 2
//!   on the coefficients the half spectrum stands for twice (all but the first and, for an
//!   even length, the last), conjugated.

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::{Complex64, Data, FftType, Op, OpKind, Tensor, TensorType, UnaryOp, ValueId};

/// The tangent of an FFT's result: the same transform of the operand's tangent.
pub(crate) fn jvp(b: &mut Builder, op: &Op, t: Option<ValueId>) -> Res<Option<ValueId>> {
    let Some(t) = t else { return Ok(None) };
    Ok(Some(b.emit(op.kind.clone(), vec![t])?))
}

/// The cotangent of an FFT's operand.
pub(crate) fn transpose(b: &mut Builder, op: &Op, c: ValueId) -> Res<Vec<Option<ValueId>>> {
    let OpKind::Fft {
        fft_type,
        fft_length,
    } = &op.kind
    else {
        return Err(Error::new("internal: fft transpose of another op"));
    };
    let fft = |b: &mut Builder, kind: FftType, v: ValueId| {
        b.emit(
            OpKind::Fft {
                fft_type: kind,
                fft_length: fft_length.clone(),
            },
            vec![v],
        )
    };
    let ct = match fft_type {
        FftType::Fft | FftType::Ifft => fft(b, *fft_type, c)?,
        FftType::Rfft => {
            let shape = b.shape(c);
            let rank = shape.len();
            let n = *fft_length.last().unwrap_or(&1);
            let mut hi = vec![0; rank];
            hi[rank - 1] = n - shape[rank - 1];
            let zero = b.scalar(b.dtype(c), 0.0)?;
            let full = b.pad(c, zero, vec![0; rank], hi, vec![0; rank])?;
            let spectrum = fft(b, FftType::Fft, full)?;
            b.unary(UnaryOp::Real, spectrum)?
        }
        FftType::Irfft => {
            let x = fft(b, FftType::Rfft, c)?;
            let ty = b.tt(x);
            let rank = ty.shape.len();
            let m = ty.shape[rank - 1];
            let n = *fft_length.last().unwrap_or(&1);
            let scale = 1.0 / fft_length.iter().product::<i64>().max(1) as f64;
            let weights: Vec<Complex64> = (0..m)
                .map(|k| {
                    let doubled = k > 0 && (n % 2 == 1 || k < m - 1);
                    Complex64::new(if doubled { 2.0 * scale } else { scale }, 0.0)
                })
                .collect();
            let weights =
                Tensor::new(TensorType::new(vec![m], ty.dtype), Data::Complex(weights))
                    .map_err(|e| Error::new(format!("internal: irfft transpose weights: {e}")))?;
            let w = b.constant(weights)?;
            let w = b.broadcast_in_dim(w, &ty.shape, &[rank as i64 - 1])?;
            let scaled = b.mul(x, w)?;
            super::elementwise::conj(b, scaled)?
        }
    };
    Ok(vec![Some(ct)])
}
