//! Floats as MLIR prints them, digit for digit.
//!
//! MLIR (LLVM's `APFloat`) first tries a short scientific form with six significant digits
//! (`2.000000e+00`, `1.000000e-01`); if that text does not parse back to the same bits it prints
//! enough digits to round-trip (`1.41421354`, `0.33333333333333331`, `3.40282347E+38`); values
//! whose text would have no `.` (large integers such as `16777216`), infinities and NaNs are
//! printed as the raw bits in hex (`0x4B800000`, `0x7FC00000`). Matching this exactly makes our
//! output byte-identical to what JAX prints, and every printed value parses back to its bits.

use crate::dtype::DType;
use crate::numerics::float_to_bits;
use half::{bf16, f16};

/// How `APFloat::toString` lays out digits: significant digits kept, how many zeros it may pad
/// before switching to scientific notation, and whether it trims zeros (`E`) or pads them (`e`).
struct Layout {
    precision: usize,
    max_padding: i64,
    truncate_zero: bool,
}

/// The MLIR text of the float `x` of dtype `dtype` (which must be a float dtype; other dtypes
/// are treated as f64).
pub(crate) fn format_float(dtype: DType, x: f64) -> String {
    let bits = bits_of(dtype, x);
    if x.is_nan() || x.is_infinite() {
        return hex_bits(bits);
    }
    let short = layout_digits(
        x,
        &Layout {
            precision: 6,
            max_padding: 0,
            truncate_zero: false,
        },
    );
    if parses_to_bits(dtype, &short, bits) {
        return short;
    }
    let full = layout_digits(
        x,
        &Layout {
            precision: round_trip_precision(dtype),
            max_padding: 3,
            truncate_zero: true,
        },
    );
    if full.contains('.') {
        full
    } else {
        hex_bits(bits)
    }
}

/// The raw bits of `x` in `dtype`, MLIR's hex float literal: `0x` and upper-case digits.
pub(crate) fn hex_bits(bits: u64) -> String {
    format!("0x{bits:X}")
}

fn float_dtype(dtype: DType) -> DType {
    if dtype.is_float() {
        dtype
    } else {
        DType::F64
    }
}

fn bits_of(dtype: DType, x: f64) -> u64 {
    float_to_bits(float_dtype(dtype), x)
}

/// Digits `APFloat` uses to make a value round-trip: `2 + precision_bits * 59 / 196`.
fn round_trip_precision(dtype: DType) -> usize {
    let significand_bits = float_dtype(dtype).mantissa_bits().unwrap_or(52) as usize + 1;
    2 + significand_bits * 59 / 196
}

/// True when `text` read as a `dtype` float (correctly rounded) has exactly the bits `bits`.
fn parses_to_bits(dtype: DType, text: &str, bits: u64) -> bool {
    let parsed = match float_dtype(dtype) {
        DType::F32 => text.parse::<f32>().map(|v| v.to_bits() as u64),
        DType::F16 => text
            .parse::<f64>()
            .map(|v| f16::from_f64(v).to_bits() as u64),
        DType::BF16 => text
            .parse::<f64>()
            .map(|v| bf16::from_f64(v).to_bits() as u64),
        d if d.is_narrow_float() => text.parse::<f64>().map(|v| float_to_bits(d, v)),
        _ => text.parse::<f64>().map(f64::to_bits),
    };
    parsed.is_ok_and(|b| b == bits)
}

/// Significant decimal digits of `|x|` (no trailing zeros) and the power of ten of the last
/// one, as `APFloat::toString` computes them for `precision` digits: the exact value
/// `N · 10^k` is first cut to about `precision` digits' worth of bits by dropping decimal digits
/// (truncating), then rounded to `precision` digits with ties going up.
fn decimal_digits(x: f64, precision: usize) -> (Vec<u8>, i64) {
    let (mantissa, exp2) = odd_mantissa(x.abs());
    // The exact value is N · 10^exp10 with N an integer.
    let (n, mut exp10) = if exp2 >= 0 {
        (BigUint::from_u64(mantissa).shl(exp2 as u32), 0i64)
    } else {
        let mut n = BigUint::from_u64(mantissa);
        let mut fives = (-exp2) as u32;
        while fives > 0 {
            let step = fives.min(13);
            n.mul_small(5u32.pow(step));
            fives -= step;
        }
        (n, exp2)
    };
    let bits = n.bit_len();
    let bits_required = (precision * 196).div_ceil(59);
    let tens_removable = if bits > bits_required {
        (bits - bits_required) * 59 / 196
    } else {
        0
    };
    let all = n.to_decimal();
    let keep = all.len().saturating_sub(tens_removable).max(1);
    exp10 += (all.len() - keep) as i64;
    let mut digits: Vec<u8> = all[..keep].to_vec();
    strip_trailing_zeros(&mut digits, &mut exp10);
    if digits.len() > precision {
        let dropped = digits.len() - precision;
        let round_up = digits[precision] >= 5;
        digits.truncate(precision);
        exp10 += dropped as i64;
        if round_up {
            let mut i = digits.len();
            loop {
                if i == 0 {
                    // Carried through every digit: the value is 10^(len).
                    exp10 += digits.len() as i64;
                    digits = vec![1];
                    break;
                }
                i -= 1;
                if digits[i] == 9 {
                    digits[i] = 0;
                } else {
                    digits[i] += 1;
                    break;
                }
            }
        }
        strip_trailing_zeros(&mut digits, &mut exp10);
    }
    (digits, exp10)
}

fn strip_trailing_zeros(digits: &mut Vec<u8>, exp10: &mut i64) {
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
        *exp10 += 1;
    }
}

/// `x = m · 2^e` with `m` odd (for a nonzero finite `x >= 0`).
fn odd_mantissa(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mut m, mut e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    if m == 0 {
        return (0, 0);
    }
    let zeros = m.trailing_zeros();
    m >>= zeros;
    e += zeros as i64;
    (m, e)
}

/// Just enough of an unsigned big integer for exact decimal expansions of binary floats.
struct BigUint {
    /// Base-2^32 limbs, least significant first.
    limbs: Vec<u32>,
}

impl BigUint {
    fn from_u64(v: u64) -> Self {
        BigUint {
            limbs: vec![v as u32, (v >> 32) as u32],
        }
    }

    fn shl(mut self, shift: u32) -> Self {
        let (words, bits) = ((shift / 32) as usize, shift % 32);
        let mut out = vec![0u32; words];
        let mut carry = 0u32;
        for &limb in &self.limbs {
            if bits == 0 {
                out.push(limb);
            } else {
                out.push((limb << bits) | carry);
                carry = limb >> (32 - bits);
            }
        }
        out.push(carry);
        self.limbs = out;
        self
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs {
            let v = *limb as u64 * factor as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn bit_len(&self) -> usize {
        match self.limbs.iter().rposition(|&l| l != 0) {
            Some(i) => i * 32 + (32 - self.limbs[i].leading_zeros() as usize),
            None => 0,
        }
    }

    /// Decimal digits, most significant first (`[0]` for zero).
    fn to_decimal(&self) -> Vec<u8> {
        let mut limbs = self.limbs.clone();
        let mut chunks = Vec::new();
        while limbs.iter().any(|&l| l != 0) {
            let mut rem = 0u64;
            for limb in limbs.iter_mut().rev() {
                let v = (rem << 32) | *limb as u64;
                *limb = (v / 1_000_000_000) as u32;
                rem = v % 1_000_000_000;
            }
            chunks.push(rem as u32);
            while limbs.last() == Some(&0) {
                limbs.pop();
            }
        }
        let mut out = Vec::new();
        for (i, chunk) in chunks.iter().rev().enumerate() {
            let text = if i == 0 {
                chunk.to_string()
            } else {
                format!("{chunk:09}")
            };
            out.extend(text.bytes().map(|b| b - b'0'));
        }
        if out.is_empty() {
            out.push(0);
        }
        out
    }
}

/// `APFloat::toString` of `x` under a layout.
fn layout_digits(x: f64, layout: &Layout) -> String {
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    if x == 0.0 {
        if layout.max_padding == 0 {
            if layout.truncate_zero {
                out.push_str("0.0E+0");
            } else {
                out.push_str("0.0");
                for _ in 1..layout.precision {
                    out.push('0');
                }
                out.push_str("e+00");
            }
        } else {
            out.push('0');
        }
        return out;
    }
    let (digits, exp) = decimal_digits(x, layout.precision);
    let n = digits.len() as i64;
    let digit = |i: usize| char::from(b'0' + digits[i]);
    let scientific = if layout.max_padding == 0 {
        true
    } else if exp >= 0 {
        exp > layout.max_padding || n + exp > layout.precision as i64
    } else {
        let most_significant = exp + n - 1;
        most_significant < 0 && -most_significant > layout.max_padding
    };
    if scientific {
        let exp10 = exp + n - 1;
        out.push(digit(0));
        out.push('.');
        if n == 1 && layout.truncate_zero {
            out.push('0');
        } else {
            (1..digits.len()).for_each(|i| out.push(digit(i)));
        }
        if !layout.truncate_zero && layout.precision as i64 > n - 1 {
            for _ in 0..(layout.precision as i64 - n + 1) {
                out.push('0');
            }
        }
        out.push(if layout.truncate_zero { 'E' } else { 'e' });
        out.push(if exp10 >= 0 { '+' } else { '-' });
        let magnitude = exp10.unsigned_abs().to_string();
        if !layout.truncate_zero && magnitude.len() < 2 {
            out.push('0');
        }
        out.push_str(&magnitude);
    } else if exp >= 0 {
        (0..digits.len()).for_each(|i| out.push(digit(i)));
        for _ in 0..exp {
            out.push('0');
        }
    } else {
        let whole = exp + n;
        if whole > 0 {
            (0..whole as usize).for_each(|i| out.push(digit(i)));
            out.push('.');
            (whole as usize..digits.len()).for_each(|i| out.push(digit(i)));
        } else {
            out.push_str("0.");
            for _ in 0..-whole {
                out.push('0');
            }
            (0..digits.len()).for_each(|i| out.push(digit(i)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected texts were printed by MLIR (jaxlib 0.10.2) for the same values.
    #[test]
    fn matches_mlir_f32() {
        let cases: [(f32, &str); 16] = [
            (2.0, "2.000000e+00"),
            (0.0, "0.000000e+00"),
            (-0.0, "-0.000000e+00"),
            (1.234567, "1.23456705"),
            (1.2345678, "1.23456776"),
            (16777216.0, "0x4B800000"),
            (0.1, "1.000000e-01"),
            (1e-30, "1.000000e-30"),
            (f32::MAX, "3.40282347E+38"),
            (f32::MIN_POSITIVE, "1.17549435E-38"),
            (1e-45, "1.401300e-45"),
            (1234567.0, "0x4996B438"),
            (0.001953125, "0.001953125"),
            (-0.99999994, "-0.99999994"),
            (std::f32::consts::SQRT_2, "1.41421354"),
            (f32::NAN, "0x7FC00000"),
        ];
        for (x, want) in cases {
            assert_eq!(format_float(DType::F32, x as f64), want, "{x}");
        }
        assert_eq!(format_float(DType::F32, f64::NEG_INFINITY), "0xFF800000");
    }

    #[test]
    fn matches_mlir_half_and_double() {
        let f16v = |x: f64| f16::from_f64(x).to_f64();
        let bf16v = |x: f64| bf16::from_f64(x).to_f64();
        assert_eq!(format_float(DType::F16, f16v(0.1)), "9.997550e-02");
        assert_eq!(format_float(DType::F16, 65504.0), "6.550400e+04");
        assert_eq!(format_float(DType::F16, f16v(1e-7)), "1.192090e-07");
        assert_eq!(format_float(DType::BF16, bf16v(0.1)), "1.000980e-01");
        // A tie at the sixth digit rounds away from zero, as APFloat does.
        assert_eq!(format_float(DType::BF16, 0.001953125), "1.953130e-03");
        assert_eq!(format_float(DType::BF16, bf16v(3.0e38)), "3.004060e+38");
        assert_eq!(format_float(DType::F64, 1.0 / 3.0), "0.33333333333333331");
        assert_eq!(format_float(DType::F64, 5e-324), "4.940660e-324");
        assert_eq!(format_float(DType::F64, 16777217.0), "0x4170000010000000");
        assert_eq!(
            format_float(DType::F64, 2f64.powi(60)),
            "1.152921504606847E+18"
        );
        assert_eq!(format_float(DType::F64, f64::NAN), "0x7FF8000000000000");
        assert_eq!(format_float(DType::F16, f64::NAN), "0x7E00");
    }

    /// 1884 bit patterns (random and "nice") printed by MLIR; see `tests/print_golden`.
    #[test]
    fn matches_mlir_on_golden_bit_patterns() {
        let golden = include_str!("../../tests/print_golden/floats.txt");
        let mut checked = 0;
        for line in golden.lines() {
            let mut fields = line.split_whitespace();
            let (Some(name), Some(hex), Some(want)) = (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let dtype = DType::from_mlir_name(name).unwrap();
            let bits = u64::from_str_radix(hex, 16).unwrap();
            let x = crate::numerics::float_from_bits(dtype, bits);
            if x.is_nan() {
                // Host tensors hold floats as f64, which quiets signalling NaNs; only check
                // that a NaN prints as a hex NaN.
                let got = format_float(dtype, x);
                let got_bits = u64::from_str_radix(&got[2..], 16).unwrap();
                assert!(
                    crate::numerics::float_from_bits(dtype, got_bits).is_nan(),
                    "{got}"
                );
                continue;
            }
            assert_eq!(format_float(dtype, x), want, "{name} 0x{hex}");
            checked += 1;
        }
        assert!(checked > 1800);
    }

    #[test]
    fn every_printed_value_parses_back() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f32::from_bits(state as u32);
            if !x.is_finite() {
                continue;
            }
            let text = format_float(DType::F32, x as f64);
            if let Some(hex) = text.strip_prefix("0x") {
                assert_eq!(u32::from_str_radix(hex, 16).unwrap(), x.to_bits());
            } else {
                assert_eq!(
                    text.parse::<f32>().unwrap().to_bits(),
                    x.to_bits(),
                    "{text}"
                );
            }
        }
    }
}
