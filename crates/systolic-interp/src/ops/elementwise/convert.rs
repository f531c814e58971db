//! Conversions: `convert` between any two dtypes, `bitcast_convert` (reinterpreting bits,
//! possibly splitting or joining elements along a new last dimension), and `reduce_precision`.

use super::daz;
use crate::error::Result;
use crate::operands::{check_result, make};
use systolic_ir::{numerics, Complex64, DType, DTypeKind, Data, Tensor, TensorType};

/// `convert`: each element to the result's dtype, as XLA:CPU does it.
///
/// - to `i1`: nonzero (NaN included) is true;
/// - float → integer: truncate toward zero, saturate, NaN → 0;
/// - integer → integer: keep the low bits (two's complement);
/// - integer → float: round to nearest even; bf16/f16 through f32 (two roundings, as XLA);
/// - float → float: f64↔f32 and bf16 → f64 flush subnormals; f64 → bf16 goes through f32;
///   f64 → f16 rounds once; f32 → bf16/f16 rounds to nearest even keeping subnormals;
/// - anything → complex: to the parts' float dtype as above, imaginary part 0;
/// - complex → complex: part by part; complex → anything else: the real part, converted as a
///   float of the parts' dtype (the spec's and XLA's rule; the imaginary part is dropped).
pub fn convert(x: &Tensor, out: &TensorType) -> Result<Tensor> {
    check_result(out, x.shape(), out.dtype)?;
    let from = x.dtype();
    let to = out.dtype;
    if let Some(data) = convert_complex(x, out)? {
        return make(out.clone(), data);
    }
    let data = match (x.data(), to.kind()) {
        (Data::Bool(v), DTypeKind::Bool) => Data::Bool(v.clone()),
        (Data::Bool(v), DTypeKind::Signed) => Data::Int(v.iter().map(|&b| b as i64).collect()),
        (Data::Bool(v), DTypeKind::Unsigned) => Data::UInt(v.iter().map(|&b| b as u64).collect()),
        (Data::Bool(v), DTypeKind::Float) => {
            Data::Float(v.iter().map(|&b| b as u8 as f64).collect())
        }
        (Data::Int(v), DTypeKind::Bool) => Data::Bool(v.iter().map(|&a| a != 0).collect()),
        (Data::Int(v), DTypeKind::Signed) => Data::Int(v.clone()),
        (Data::Int(v), DTypeKind::Unsigned) => Data::UInt(v.iter().map(|&a| a as u64).collect()),
        (Data::Int(v), DTypeKind::Float) => {
            Data::Float(v.iter().map(|&a| int_to_float(to, a as i128)).collect())
        }
        (Data::UInt(v), DTypeKind::Bool) => Data::Bool(v.iter().map(|&a| a != 0).collect()),
        (Data::UInt(v), DTypeKind::Signed) => Data::Int(v.iter().map(|&a| a as i64).collect()),
        (Data::UInt(v), DTypeKind::Unsigned) => Data::UInt(v.clone()),
        (Data::UInt(v), DTypeKind::Float) => {
            Data::Float(v.iter().map(|&a| int_to_float(to, a as i128)).collect())
        }
        (Data::Float(v), DTypeKind::Bool) => {
            // f32 and f64 compare with zero under flush-to-zero; bf16 and f16 are tested on
            // their bits (observed: a bf16 subnormal converts to true, an f32 one to false).
            let flushes = matches!(from, DType::F32 | DType::F64);
            Data::Bool(
                v.iter()
                    .map(|&a| if flushes { daz(from, a) } else { a } != 0.0)
                    .collect(),
            )
        }
        (Data::Float(v), DTypeKind::Signed) => Data::Int(
            v.iter()
                .map(|&a| numerics::float_to_signed(to, a))
                .collect(),
        ),
        (Data::Float(v), DTypeKind::Unsigned) => Data::UInt(
            v.iter()
                .map(|&a| numerics::float_to_unsigned(to, a))
                .collect(),
        ),
        (Data::Float(v), DTypeKind::Float) => {
            Data::Float(v.iter().map(|&a| float_to_float(from, to, a)).collect())
        }
        (Data::Complex(_), _) | (_, DTypeKind::Complex) => {
            crate::bail!("{} to {} is not a complex conversion", x.ty(), out)
        }
    };
    make(out.clone(), data)
}

/// The conversions that involve complex numbers (`None` for the others), each through the
/// real conversions: complex → x converts the real part (a float of the parts' dtype) to x;
/// x → complex converts x to the parts' dtype, with imaginary part 0.
fn convert_complex(x: &Tensor, out: &TensorType) -> Result<Option<Data>> {
    let (from, to) = (x.dtype(), out.dtype);
    let part_type = |dtype: DType| TensorType::new(x.shape().to_vec(), dtype);
    let floats = |t: Tensor| match t.into_data() {
        Data::Float(v) => v,
        _ => Vec::new(),
    };
    let data = match (x.data(), to.component().filter(|_| to.is_complex())) {
        (Data::Complex(v), Some(to_part)) => {
            let from_part = from.component().unwrap_or(DType::F64);
            Data::Complex(
                v.iter()
                    .map(|z| {
                        Complex64::new(
                            float_to_float(from_part, to_part, z.re),
                            float_to_float(from_part, to_part, z.im),
                        )
                    })
                    .collect(),
            )
        }
        (Data::Complex(v), None) => {
            let from_part = from.component().unwrap_or(DType::F64);
            let re = Tensor::new(
                part_type(from_part),
                Data::Float(v.iter().map(|z| z.re).collect()),
            )
            .map_err(|e| crate::error::InterpError::new(e.to_string()))?;
            return convert(&re, out).map(|t| Some(t.into_data()));
        }
        (_, Some(to_part)) => {
            let re = floats(convert(x, &part_type(to_part))?);
            Data::Complex(re.into_iter().map(|a| Complex64::new(a, 0.0)).collect())
        }
        (_, None) => return Ok(None),
    };
    Ok(Some(data))
}

/// An integer to a float dtype: f64 and f32 round once; bf16 and f16 go through f32.
fn int_to_float(to: DType, a: i128) -> f64 {
    match to {
        DType::F64 => a as f64,
        _ => numerics::round_to(to, a as f32 as f64),
    }
}

/// A float value of dtype `from` to dtype `to`.
fn float_to_float(from: DType, to: DType, a: f64) -> f64 {
    use DType::*;
    match (from, to) {
        (F64, F32) | (F32, F64) => numerics::arith_result(to, daz(from, a)),
        (F64, BF16) => numerics::round_to(BF16, numerics::arith_result(F32, daz(F64, a))),
        (F64, F16) => half::f16::from_f64(a).to_f64(),
        // bf16 widens to f32 exactly, then f32 -> f64 reads subnormals as zero.
        (BF16, F64) => daz(F32, a),
        _ => numerics::round_to(to, a),
    }
}

/// `bitcast_convert`: reinterprets the bits. Equal widths map element to element; a narrower
/// result splits each element into `ratio` pieces along a new last dimension, least
/// significant bits first (little-endian, as XLA); a wider result joins the operand's last
/// dimension, which must have size `ratio`.
pub fn bitcast_convert(x: &Tensor, out: &TensorType) -> Result<Tensor> {
    let in_bits = x.dtype().bit_width();
    let out_bits = out.dtype.bit_width();
    let n = x.num_elements();
    // 128-bit patterns: a complex<f64> is the widest element.
    let patterns: Vec<u128> = (0..n).map(|i| x.bits_wide(i)).collect();
    let mut shape = x.shape().to_vec();
    let result_bits: Vec<u128> = if in_bits == out_bits {
        patterns
    } else if in_bits > out_bits && (in_bits / out_bits) * out_bits == in_bits {
        let ratio = in_bits / out_bits;
        shape.push(ratio as i64);
        let mask = u128::MAX >> (128 - out_bits);
        patterns
            .iter()
            .flat_map(|&p| (0..ratio).map(move |k| (p >> (k * out_bits)) & mask))
            .collect()
    } else if out_bits > in_bits && (out_bits / in_bits) * in_bits == out_bits {
        let ratio = out_bits / in_bits;
        if shape.last() != Some(&(ratio as i64)) {
            crate::bail!(
                "operand {} must end in a dimension of size {ratio} to make {} elements",
                x.ty(),
                out.dtype
            );
        }
        shape.pop();
        patterns
            .chunks(ratio as usize)
            .map(|piece| {
                piece
                    .iter()
                    .enumerate()
                    .fold(0u128, |acc, (k, &p)| acc | (p << (k as u32 * in_bits)))
            })
            .collect()
    } else {
        crate::bail!(
            "cannot reinterpret {}-bit {} as {}-bit {}",
            in_bits,
            x.dtype(),
            out_bits,
            out.dtype
        );
    };
    check_result(out, &shape, out.dtype)?;
    Tensor::from_bits_wide(out.clone(), &result_bits)
        .map_err(|e| crate::error::InterpError::new(e.to_string()))
}

/// `reduce_precision`: rounds each float to `exponent_bits` exponent bits and `mantissa_bits`
/// mantissa bits (round to nearest even, overflow to ±inf, values below the reduced format's
/// smallest normal to ±0), keeping the dtype. Done on the dtype's own bit pattern, as XLA does;
/// NaNs pass through unchanged (observed on XLA:CPU, payloads included, even with no mantissa
/// bit left), except under [`numerics::Mode::Spec`] with zero mantissa bits (infinity).
pub fn reduce_precision(
    x: &Tensor,
    exponent_bits: i32,
    mantissa_bits: i32,
    out: &TensorType,
) -> Result<Tensor> {
    let dtype = x.dtype();
    let (Some(src_mantissa), Some(src_exponent)) = (dtype.mantissa_bits(), dtype.exponent_bits())
    else {
        crate::bail!("needs a float operand, got {}", x.ty());
    };
    if exponent_bits < 1 || mantissa_bits < 0 {
        crate::bail!(
            "needs exponent_bits >= 1 and mantissa_bits >= 0, got e{exponent_bits}m{mantissa_bits}"
        );
    }
    check_result(out, x.shape(), dtype)?;
    let format = ReducedFormat {
        src_mantissa,
        src_exponent,
        width: dtype.bit_width(),
        exponent_bits: exponent_bits as u32,
        mantissa_bits: mantissa_bits as u32,
    };
    let Data::Float(v) = x.data() else {
        crate::bail!("needs a float operand, got {}", x.ty());
    };
    let data = v
        .iter()
        .map(|&a| {
            if a.is_nan() && mantissa_bits == 0 && numerics::mode() == numerics::Mode::Spec {
                // No mantissa bit is left to mark a NaN: the spec's answer is an infinity.
                f64::INFINITY.copysign(a)
            } else if a.is_nan() {
                a
            } else {
                let bits = numerics::float_to_bits(dtype, a);
                numerics::float_from_bits(dtype, format.apply(bits))
            }
        })
        .collect();
    make(out.clone(), Data::Float(data))
}

/// The source and target float formats of a `reduce_precision`.
struct ReducedFormat {
    src_mantissa: u32,
    src_exponent: u32,
    width: u32,
    exponent_bits: u32,
    mantissa_bits: u32,
}

impl ReducedFormat {
    /// Rounds one bit pattern of the source format.
    fn apply(&self, mut bits: u64) -> u64 {
        if self.mantissa_bits < self.src_mantissa {
            let dropped = self.src_mantissa - self.mantissa_bits;
            let last_kept = 1u64 << dropped;
            // Round to nearest, ties to even: add just under half, plus the last kept bit.
            let bias = (last_kept >> 1) - 1 + ((bits & last_kept) >> dropped);
            bits = (bits + bias) & !(last_kept - 1);
        }
        if self.exponent_bits < self.src_exponent {
            let sign = bits & (1u64 << (self.width - 1));
            let exponent_mask = ((1u64 << self.src_exponent) - 1) << self.src_mantissa;
            let bias = (1u64 << (self.src_exponent - 1)) - 1;
            let reduced_bias = (1u64 << (self.exponent_bits - 1)) - 1;
            let max_exponent = (bias + reduced_bias) << self.src_mantissa;
            let min_exponent = (bias - reduced_bias) << self.src_mantissa;
            let exponent = bits & exponent_mask;
            if exponent > max_exponent {
                bits = sign | exponent_mask;
            } else if exponent <= min_exponent {
                bits = sign;
            }
        }
        numerics::wrap_unsigned(self.width, bits)
    }
}
