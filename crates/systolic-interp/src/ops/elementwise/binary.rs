//! Binary elementwise ops with XLA:CPU's integer edge cases: division by zero gives -1 (all
//! ones), `INT_MIN / -1 = INT_MIN`, `x % 0 = x`, shifts by the width or more give 0 or the sign
//! fill, and integer `power` follows XLA's square-and-multiply over the exponent's low six bits.

use super::{complex, daz, rounded};
use crate::error::{InterpError, Result};
use crate::operands::{check_result, make};
use systolic_ir::{numerics, BinaryOp, Complex64, DType, Data, Tensor, TensorType};

/// Applies a binary op elementwise to two tensors of the same type (`complex` makes complex
/// numbers of two float tensors).
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor, out: &TensorType) -> Result<Tensor> {
    if a.ty() != b.ty() {
        crate::bail!("operand types {} and {} differ", a.ty(), b.ty());
    }
    let dtype = a.dtype();
    if op == BinaryOp::Complex {
        return make_complex(a, b, out);
    }
    check_result(out, a.shape(), dtype)?;
    let unsupported = || InterpError::new(format!("not defined for element type {dtype}"));
    let bits = dtype.bit_width();
    let data = match (a.data(), b.data()) {
        (Data::Float(x), Data::Float(y)) => {
            let f = float_fn(op).ok_or_else(unsupported)?;
            let values = x.iter().zip(y);
            if op == BinaryOp::Remainder {
                Data::Float(
                    values
                        .map(|(&p, &q)| float_remainder(dtype, p, q))
                        .collect(),
                )
            } else {
                // Every other float op reads subnormals as zero on XLA:CPU, maximum and minimum
                // included (observed: maximum(1e-40, 0) = 0, minimum(-1e-40, 0) = -0 in f32).
                Data::Float(
                    values
                        .map(|(&p, &q)| rounded(dtype, f(daz(dtype, p), daz(dtype, q))))
                        .collect(),
                )
            }
        }
        (Data::Int(x), Data::Int(y)) => {
            let f = signed_fn(op).ok_or_else(unsupported)?;
            Data::Int(x.iter().zip(y).map(|(&p, &q)| f(p, q, bits)).collect())
        }
        (Data::UInt(x), Data::UInt(y)) => {
            let f = unsigned_fn(op).ok_or_else(unsupported)?;
            Data::UInt(x.iter().zip(y).map(|(&p, &q)| f(p, q, bits)).collect())
        }
        (Data::Bool(x), Data::Bool(y)) => {
            let f = bool_fn(op).ok_or_else(unsupported)?;
            Data::Bool(x.iter().zip(y).map(|(&p, &q)| f(p, q)).collect())
        }
        (Data::Complex(x), Data::Complex(y)) => {
            let f = complex::binary_fn(op).ok_or_else(unsupported)?;
            Data::Complex(
                x.iter()
                    .zip(y)
                    .map(|(&p, &q)| complex::rounded(dtype, f(p, q)))
                    .collect(),
            )
        }
        _ => return Err(unsupported()),
    };
    make(out.clone(), data)
}

/// `complex(re, im)`: f32 or f64 parts into `complex<f32>`/`complex<f64>`. The parts are
/// values of that dtype already, so nothing is rounded.
fn make_complex(re: &Tensor, im: &Tensor, out: &TensorType) -> Result<Tensor> {
    let Some(dtype) = re.dtype().complex_of() else {
        // Only f32 and f64 parts make complex numbers.
        crate::bail!("not defined for element type {}", re.dtype());
    };
    check_result(out, re.shape(), dtype)?;
    let (Data::Float(x), Data::Float(y)) = (re.data(), im.data()) else {
        crate::bail!(
            "operands of kinds {:?} and {:?}",
            re.data().kind(),
            im.data().kind()
        );
    };
    let z = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| Complex64::new(a, b))
        .collect();
    make(out.clone(), Data::Complex(z))
}

/// The f64 function of a float op.
fn float_fn(op: BinaryOp) -> Option<fn(f64, f64) -> f64> {
    use BinaryOp::*;
    Some(match op {
        Add => |a, b| a + b,
        Subtract => |a, b| a - b,
        Multiply => |a, b| a * b,
        Divide => |a, b| a / b,
        // Rust's `%` on floats is C's fmod: the result has the dividend's sign.
        Remainder => |a, b| a % b,
        Power => f64::powf,
        Atan2 => f64::atan2,
        Maximum => float_max,
        Minimum => float_min,
        And | Or | Xor | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | Complex => {
            return None
        }
    })
}

/// Float `remainder` as XLA:CPU computes it: C's fmod on the values as they are (so subnormal
/// dividends and results survive: `1e-40 % 1 = 1e-40`), except that a divisor that reads as
/// zero under flush-to-zero gives NaN (`1 % 1e-40 = NaN`), all observed in f32.
fn float_remainder(dtype: DType, a: f64, b: f64) -> f64 {
    if daz(dtype, b) == 0.0 {
        f64::NAN
    } else {
        numerics::round_to(dtype, a % b)
    }
}

/// `maximum`: NaN propagates; `maximum(-0, +0) = +0`.
pub fn float_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else {
        a.max(b)
    }
}

/// `minimum`: NaN propagates; `minimum(-0, +0) = -0`.
pub fn float_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else {
        a.min(b)
    }
}

/// The smallest value of a signed dtype of `bits` bits.
fn signed_min(bits: u32) -> i64 {
    if bits >= 64 {
        i64::MIN
    } else {
        -(1i64 << (bits - 1))
    }
}

/// The function of an op on signed integers of `bits` bits; results are wrapped to the width
/// when the tensor is built.
fn signed_fn(op: BinaryOp) -> Option<fn(i64, i64, u32) -> i64> {
    use BinaryOp::*;
    Some(match op {
        Add => |a, b, _| a.wrapping_add(b),
        Subtract => |a, b, _| a.wrapping_sub(b),
        Multiply => |a, b, _| a.wrapping_mul(b),
        Divide => |a, b, bits| {
            if b == 0 {
                -1
            } else if b == -1 && a == signed_min(bits) {
                a
            } else {
                a / b
            }
        },
        Remainder => |a, b, bits| {
            if b == 0 {
                a
            } else if b == -1 && a == signed_min(bits) {
                0
            } else {
                a % b
            }
        },
        Maximum => |a, b, _| a.max(b),
        Minimum => |a, b, _| a.min(b),
        And => |a, b, _| a & b,
        Or => |a, b, _| a | b,
        Xor => |a, b, _| a ^ b,
        Power => |a, b, bits| integer_power(a as u64, b as u64, bits) as i64,
        ShiftLeft => |a, b, bits| shift_left(a as u64, b as u64, bits) as i64,
        ShiftRightLogical => |a, b, bits| shift_right_logical(a as u64, b as u64, bits) as i64,
        ShiftRightArithmetic => {
            |a, b, bits| shift_right_arithmetic(a as u64, b as u64, bits) as i64
        }
        Atan2 | Complex => return None,
    })
}

/// The function of an op on unsigned integers of `bits` bits.
fn unsigned_fn(op: BinaryOp) -> Option<fn(u64, u64, u32) -> u64> {
    use BinaryOp::*;
    Some(match op {
        Add => |a, b, _| a.wrapping_add(b),
        Subtract => |a, b, _| a.wrapping_sub(b),
        Multiply => |a, b, _| a.wrapping_mul(b),
        Divide => |a, b, _| a.checked_div(b).unwrap_or(u64::MAX),
        Remainder => |a, b, _| if b == 0 { a } else { a % b },
        Maximum => |a, b, _| a.max(b),
        Minimum => |a, b, _| a.min(b),
        And => |a, b, _| a & b,
        Or => |a, b, _| a | b,
        Xor => |a, b, _| a ^ b,
        Power => integer_power,
        ShiftLeft => shift_left,
        ShiftRightLogical => shift_right_logical,
        ShiftRightArithmetic => shift_right_arithmetic,
        Atan2 | Complex => return None,
    })
}

/// Booleans: `add`/`or`/`maximum` are OR, `multiply`/`and`/`minimum` are AND (as the spec).
fn bool_fn(op: BinaryOp) -> Option<fn(bool, bool) -> bool> {
    use BinaryOp::*;
    Some(match op {
        Add | Or | Maximum => |a, b| a | b,
        Multiply | And | Minimum => |a, b| a & b,
        Xor => |a, b| a ^ b,
        _ => return None,
    })
}

/// The shift amount as XLA reads it: the bit pattern as an unsigned number, so a negative
/// amount counts as "too large".
fn shift_amount(b: u64, bits: u32) -> Option<u32> {
    let amount = numerics::wrap_unsigned(bits, b);
    (amount < bits as u64).then_some(amount as u32)
}

/// `shift_left` on `bits`-bit patterns: shifting by the width or more gives 0.
fn shift_left(a: u64, b: u64, bits: u32) -> u64 {
    match shift_amount(b, bits) {
        Some(s) => numerics::wrap_unsigned(bits, a << s),
        None => 0,
    }
}

/// `shift_right_logical`: zero fill; by the width or more gives 0.
fn shift_right_logical(a: u64, b: u64, bits: u32) -> u64 {
    match shift_amount(b, bits) {
        Some(s) => numerics::wrap_unsigned(bits, a) >> s,
        None => 0,
    }
}

/// `shift_right_arithmetic`: fills with the top bit of the width (for unsigned types too,
/// as XLA does); by the width or more gives all sign bits.
fn shift_right_arithmetic(a: u64, b: u64, bits: u32) -> u64 {
    let signed = numerics::wrap_signed(bits, a as i64);
    let shifted = match shift_amount(b, bits) {
        Some(s) => signed >> s,
        None => signed >> 63,
    };
    numerics::wrap_unsigned(bits, shifted as u64)
}

/// Integer `power` as XLA:CPU computes it, on `bits`-bit patterns. The exponent is read as a
/// signed number (for unsigned types too). A negative exponent gives 1 for base 1, ±1 for
/// base -1 (all ones) by the exponent's parity, and 0 otherwise. A non-negative one is done by
/// square-and-multiply over its six low bits only (observed: `2^64 = 1` in i32, `3^70 = 3^6`).
fn integer_power(base: u64, exponent: u64, bits: u32) -> u64 {
    let base = numerics::wrap_unsigned(bits, base);
    let all_ones = numerics::wrap_unsigned(bits, u64::MAX);
    let exponent_signed = numerics::wrap_signed(bits, exponent as i64);
    if exponent_signed < 0 {
        return if base == 1 {
            1
        } else if base == all_ones {
            if exponent_signed & 1 == 1 {
                all_ones
            } else {
                1
            }
        } else {
            0
        };
    }
    let mut acc: u64 = 1;
    let mut square = base;
    let mut e = exponent_signed as u64;
    for _ in 0..6 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(square);
        }
        square = square.wrapping_mul(square);
        e >>= 1;
    }
    numerics::wrap_unsigned(bits, acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xla_integer_power() {
        // Observed on XLA:CPU (jax 0.10.2) with i32 operands passed as parameters.
        let cases: [(i64, i64, i64); 12] = [
            (2, 64, 1),
            (2, 65, 2),
            (3, 70, 729),
            (-1, -3, -1),
            (-1, -4, 1),
            (1, -5, 1),
            (0, -1, 0),
            (0, 0, 1),
            (2, 31, -2147483648),
            (-2, 63, 0),
            (5, -1, 0),
            (-1, -1, -1),
        ];
        for (b, e, want) in cases {
            let got = numerics::wrap_signed(32, integer_power(b as u64, e as u64, 32) as i64);
            assert_eq!(got, want, "{b}^{e}");
        }
        // ui8: exponents with the top bit set count as negative.
        assert_eq!(integer_power(3, 128, 8), 0);
        assert_eq!(integer_power(255, 200, 8), 1);
        assert_eq!(integer_power(255, 201, 8), 255);
        assert_eq!(integer_power(3, 127, 8), 171);
    }

    #[test]
    fn shifts_out_of_range() {
        assert_eq!(shift_left(1, u64::MAX, 32), 0);
        assert_eq!(shift_left(1, 31, 32), 0x8000_0000);
        assert_eq!(shift_right_arithmetic(0x80, 1, 8), 0xc0);
        assert_eq!(shift_right_arithmetic(0x80, 200, 8), 0xff);
        assert_eq!(shift_right_logical((-8i64) as u64, 2, 32), 1_073_741_822);
    }
}
