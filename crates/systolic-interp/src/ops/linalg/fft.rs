//! `fft`: discrete Fourier transforms over the last 1–3 dimensions, by `rustfft`.
//!
//! - FFT: `X[k] = Σ x[n] e^(-2πi·kn/N)` along each transformed dimension;
//! - IFFT: the inverse, `e^(+2πi·kn/N)` and divided by the product of the lengths;
//! - RFFT: the FFT of a real operand, keeping the `N/2 + 1` non-negative frequencies of the
//!   last dimension (the rest is their conjugate mirror);
//! - IRFFT: the inverse of RFFT: inverse transforms over the leading dimensions, then the last
//!   one extended by conjugate symmetry and only the real part kept (so the imaginary parts of
//!   the zero and Nyquist frequencies are ignored, as pocketfft/ducc, XLA:CPU's FFT, does).
//!
//! Every transform is computed in f64 (f32 operands are widened) and the result rounded once to
//! the element type: the oracle is more precise than XLA:CPU, which transforms f32 in f32.

use crate::bail;
use crate::error::{InterpError, Result};
use rustfft::{Fft, FftDirection, FftPlanner};
use std::sync::Arc;
use systolic_ir::{numerics, Complex64, Data, FftType, Tensor, TensorType};

/// Evaluates `fft` of type `fft_type` over the last `fft_length.len()` dimensions of `x`.
pub fn fft(x: &Tensor, fft_type: FftType, fft_length: &[i64], out: &TensorType) -> Result<Tensor> {
    let kind = fft_type.keyword();
    let rank = x.shape().len();
    let k = fft_length.len();
    if !(1..=3).contains(&k) || k > rank || fft_length.iter().any(|&n| n < 0) {
        bail!(
            "{kind}: fft_length {fft_length:?} must have 1 to 3 non-negative entries, at most the rank of {}",
            x.ty()
        );
    }
    let lengths: Vec<usize> = fft_length.iter().map(|&n| n as usize).collect();
    let shape: Vec<usize> = x.shape().iter().map(|&d| d as usize).collect();
    let last = lengths[k - 1];
    let half = if last == 0 { 0 } else { last / 2 + 1 };
    // What the operand's trailing dimensions must be, and the result's shape.
    let mut operand_tail = lengths.clone();
    let mut result_shape = shape.clone();
    match fft_type {
        FftType::Fft | FftType::Ifft => {}
        FftType::Rfft => result_shape[rank - 1] = half,
        FftType::Irfft => {
            operand_tail[k - 1] = half;
            result_shape[rank - 1] = last;
        }
    }
    if shape[rank - k..] != operand_tail[..] {
        bail!(
            "{kind} of {} with fft_length {fft_length:?}: the last dimensions must be {operand_tail:?}",
            x.ty()
        );
    }
    let out_shape: Vec<usize> = out.shape.iter().map(|&d| d as usize).collect();
    if out_shape != result_shape {
        bail!(
            "{kind} of {}: the result type {out} should have shape {result_shape:?}",
            x.ty()
        );
    }
    let real_out = fft_type == FftType::Irfft;
    let expected_dtype = match fft_type {
        FftType::Rfft => x.dtype().complex_of(),
        FftType::Irfft => x.dtype().component().filter(|_| x.dtype().is_complex()),
        FftType::Fft | FftType::Ifft => Some(x.dtype()).filter(|d| d.is_complex()),
    };
    if expected_dtype != Some(out.dtype) {
        bail!("{kind} of {} cannot give {out}", x.ty());
    }

    let mut data: Vec<Complex64> = match (fft_type, x.data()) {
        (FftType::Rfft, Data::Float(v)) => v.iter().map(|&a| Complex64::new(a, 0.0)).collect(),
        (FftType::Rfft, _) => bail!("RFFT takes f32 or f64, got {}", x.ty()),
        (_, Data::Complex(v)) => v.clone(),
        _ => bail!("{kind} takes complex numbers, got {}", x.ty()),
    };
    let axes = rank - k..rank;
    let mut planner = FftPlanner::<f64>::new();
    let mut plan = |n: usize, direction: FftDirection| planner.plan_fft(n, direction);

    let values: Vec<Complex64> = if out.num_elements() == 0 || x.num_elements() == 0 {
        vec![Complex64::new(0.0, 0.0); out.num_elements()]
    } else {
        match fft_type {
            FftType::Fft | FftType::Ifft => {
                let direction = if fft_type == FftType::Fft {
                    FftDirection::Forward
                } else {
                    FftDirection::Inverse
                };
                for axis in axes {
                    transform_axis(&mut data, &shape, axis, &plan(shape[axis], direction));
                }
                if fft_type == FftType::Ifft {
                    scale(&mut data, &lengths);
                }
                data
            }
            FftType::Rfft => {
                for axis in axes {
                    let p = plan(shape[axis], FftDirection::Forward);
                    transform_axis(&mut data, &shape, axis, &p);
                }
                keep_prefix(&data, &shape, half)
            }
            FftType::Irfft => {
                for axis in rank - k..rank - 1 {
                    let p = plan(shape[axis], FftDirection::Inverse);
                    transform_axis(&mut data, &shape, axis, &p);
                }
                let mut full = conjugate_extend(&data, &shape, last);
                let p = plan(last, FftDirection::Inverse);
                transform_axis(&mut full, &result_shape, rank - 1, &p);
                scale(&mut full, &lengths);
                full
            }
        }
    };
    let data = if real_out {
        Data::Float(
            values
                .iter()
                .map(|z| numerics::arith_result(out.dtype, z.re))
                .collect(),
        )
    } else {
        Data::Complex(
            values
                .iter()
                .map(|&z| numerics::complex_result(out.dtype, z))
                .collect(),
        )
    };
    Tensor::new(out.clone(), data).map_err(|e| InterpError::new(e.to_string()))
}

/// Runs `plan` along dimension `axis` of the row-major `data` of shape `shape`, in place.
fn transform_axis(data: &mut [Complex64], shape: &[usize], axis: usize, plan: &Arc<dyn Fft<f64>>) {
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    if len == 0 || inner == 0 || outer == 0 {
        return;
    }
    let mut line = vec![Complex64::new(0.0, 0.0); len];
    let mut scratch = vec![Complex64::new(0.0, 0.0); plan.get_inplace_scratch_len()];
    for o in 0..outer {
        for i in 0..inner {
            let base = o * len * inner + i;
            for (j, z) in line.iter_mut().enumerate() {
                *z = data[base + j * inner];
            }
            plan.process_with_scratch(&mut line, &mut scratch);
            for (j, z) in line.iter().enumerate() {
                data[base + j * inner] = *z;
            }
        }
    }
}

/// Divides by the product of the transform lengths (the inverse transforms' normalisation).
fn scale(data: &mut [Complex64], lengths: &[usize]) {
    let n: f64 = lengths.iter().map(|&l| l as f64).product();
    data.iter_mut().for_each(|z| *z /= n);
}

/// The first `keep` entries of the last dimension of each row.
fn keep_prefix(data: &[Complex64], shape: &[usize], keep: usize) -> Vec<Complex64> {
    let len = shape.last().copied().unwrap_or(1);
    data.chunks(len.max(1))
        .flat_map(|row| row[..keep.min(row.len())].iter().copied())
        .collect()
}

/// Each row of the last dimension (`n/2 + 1` frequencies) extended to `n` by conjugate
/// symmetry, `X[n - j] = conj(X[j])`: the full spectrum of a real signal.
fn conjugate_extend(data: &[Complex64], shape: &[usize], n: usize) -> Vec<Complex64> {
    let half = shape.last().copied().unwrap_or(1).max(1);
    let mut out = Vec::with_capacity(data.len() / half * n);
    for row in data.chunks(half) {
        for j in 0..n {
            out.push(if j < half { row[j] } else { row[n - j].conj() });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::DType;

    /// The definition, summed directly: the transform the planner's algorithms must match.
    fn naive_dft(x: &[Complex64], sign: f64) -> Vec<Complex64> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter()
                    .enumerate()
                    .map(|(j, &v)| {
                        let angle = sign * 2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
                        v * Complex64::from_polar(1.0, angle)
                    })
                    .sum()
            })
            .collect()
    }

    fn signal(n: usize) -> Vec<Complex64> {
        (0..n)
            .map(|i| Complex64::new((i as f64 * 0.7).sin(), (i as f64 * 1.3).cos() - 0.2))
            .collect()
    }

    #[test]
    fn fft_matches_the_definition() {
        for n in [1, 2, 5, 8, 12, 17] {
            let x = signal(n);
            let t = Tensor::from_complex(vec![n as i64], DType::C128, x.clone()).unwrap();
            let out = t.ty().clone();
            let got = fft(&t, FftType::Fft, &[n as i64], &out).unwrap();
            let Data::Complex(got) = got.data() else {
                panic!("complex result")
            };
            for (g, w) in got.iter().zip(naive_dft(&x, -1.0)) {
                assert!((g - w).norm() < 1e-12, "n = {n}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn rfft_then_irfft_is_the_identity() {
        for n in [1usize, 2, 7, 8] {
            let x: Vec<f64> = (0..3 * n).map(|i| (i as f64 * 0.37).cos()).collect();
            let t = Tensor::from_f64(vec![3, n as i64], DType::F64, x.clone()).unwrap();
            let half = n / 2 + 1;
            let spec_ty = TensorType::new(vec![3, half as i64], DType::C128);
            let spec = fft(&t, FftType::Rfft, &[n as i64], &spec_ty).unwrap();
            let back = fft(&spec, FftType::Irfft, &[n as i64], t.ty()).unwrap();
            for (a, b) in back.to_f64_vec().iter().zip(&x) {
                assert!((a - b).abs() < 1e-12, "n = {n}");
            }
        }
    }
}
