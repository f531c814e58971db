//! How `print!` shows one value: as `jax.debug.print` does, which formats with Python's
//! `str.format`. An array of rank 1 or more shows as numpy's `str` (the crate's `Display`);
//! a 0-d array as the Python number `x.item()` — `str.format` calls `ndarray.__format__`,
//! which formats the item — so an f32 `0.1` prints as the float64 it widens to,
//! `0.10000000149011612`, an int as `-3`, a bool as `True`.

use crate::array::Array;
use crate::display::array_str;
use std::fmt;
use systolic_ir::{Data, Tensor};

/// A value of `print!`, formatted as `jax.debug.print` shows it.
///
/// ```
/// use systolic::{debug::Formatted, Array};
/// assert_eq!(Formatted(&Array::scalar(0.1f32)).to_string(), "0.10000000149011612");
/// assert_eq!(Formatted(&Array::scalar(1e-5f64)).to_string(), "1e-05");
/// assert_eq!(Formatted(&Array::from_vec(vec![1.0f32, 2.5], &[2])).to_string(), "[1.  2.5]");
/// // A precision applies to a 0-d float, as in Rust: `{:.3}` shows 0.100.
/// assert_eq!(format!("{:.3}", Formatted(&Array::scalar(0.1f32))), "0.100");
/// ```
pub struct Formatted<'a>(pub &'a Array);

impl fmt::Display for Formatted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_traced() || self.0.error().is_some() {
            return fmt::Display::fmt(self.0, f);
        }
        match self.0.to_tensor() {
            Ok(t) if t.shape().is_empty() => write_item(&t, f),
            Ok(t) => f.write_str(&array_str(&t)),
            Err(e) => write!(f, "<array not available: {e}>"),
        }
    }
}

/// The one element of a 0-d tensor as Python formats `x.item()`.
fn write_item(t: &Tensor, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match t.data() {
        Data::Bool(v) => f.write_str(if v[0] { "True" } else { "False" }),
        Data::Int(v) => write!(f, "{}", v[0]),
        Data::UInt(v) => write!(f, "{}", v[0]),
        Data::Float(v) => match f.precision() {
            Some(p) => write!(f, "{:.*}", p, v[0]),
            None => f.write_str(&python_float_repr(v[0])),
        },
        Data::Complex(v) => f.write_str(&python_complex_repr(v[0].re, v[0].im)),
    }
}

/// Python's `repr(complex)`: `(1+2j)`, `-3j` for a zero real part (`+0.0`), each part as
/// `repr(float)` writes it (without a trailing `.0`).
pub(crate) fn python_complex_repr(re: f64, im: f64) -> String {
    let part = |x: f64| {
        let s = python_float_repr(x);
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    let imag = part(im);
    if re == 0.0 && re.is_sign_positive() {
        return format!("{imag}j");
    }
    let sign = if imag.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{imag}j)", part(re))
}

/// Python's `repr(float)`: the shortest digits that round-trip, in positional notation when
/// the decimal point falls within 16 digits of them (`0.0001`, `1234567890123456.0`), else
/// scientific with a signed exponent of at least two digits (`1e-05`, `1.5e+16`).
pub(crate) fn python_float_repr(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `-1.25e-7`, `0e0`.
    let e = format!("{v:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // The value is 0.DIGITS × 10^decpt.
    let decpt = exp + 1;
    let n = digits.len() as i32;
    let body = if decpt <= -4 || decpt > 16 {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let x = decpt - 1;
        format!(
            "{first}{frac}e{}{:02}",
            if x < 0 { '-' } else { '+' },
            x.abs()
        )
    } else if decpt <= 0 {
        format!("0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt >= n {
        format!("{digits}{}.0", "0".repeat((decpt - n) as usize))
    } else {
        let (int, frac) = digits.split_at(decpt as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::python_float_repr as r;

    #[test]
    fn floats_print_as_python_reprs_them() {
        let cases = [
            (0.1f32 as f64, "0.10000000149011612"),
            (1.0945039987564087, "1.0945039987564087"),
            (1.500000053056283e-06, "1.500000053056283e-06"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (0.0001, "0.0001"),
            (1e-5, "1e-05"),
            (1234567890123456.0, "1234567890123456.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e100, "1e+100"),
            (123.456, "123.456"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (v, want) in cases {
            assert_eq!(r(v), want, "{v:e}");
        }
    }
}
