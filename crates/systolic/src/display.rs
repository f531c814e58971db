//! `Display` for arrays: the values as `print(x)` shows a JAX array, which is numpy's `str`.
//!
//! numpy's printing rules, reproduced because users compare printed values with JAX's by eye
//! (and tests compare them character for character, `tests/display_golden.rs`):
//! - floats: each value's shortest digits that round-trip in its dtype, at most 8 after the
//!   point; scientific notation for the whole array when its largest magnitude is ≥ 1e8, its
//!   smallest non-zero one < 1e-4, or their ratio > 1000; every element padded to the widest
//!   integer and fraction parts so the points line up; `nan`/`inf` right-aligned;
//! - integers right-aligned to the widest; booleans as ` True`/`False`;
//! - rows wrapped at 75 columns, nested brackets, one blank line per extra dimension between
//!   blocks; arrays of more than 1000 elements summarised with `...` and 3 edge items per axis
//!   (the widths computed from the shown elements only);
//! - 0-d arrays as numpy scalars: `5.0`, `1e-05`, `7`, `True`.
//!
//! Traced arrays show their abstract type (`Traced<float32[3]>`), failed ones their error.

use crate::array::{describe, Array, Repr};
use std::fmt;
use systolic_ir::{numerics, DType, Data, Tensor};

/// numpy's default `linewidth`.
const LINE_WIDTH: usize = 75;
/// numpy's default `threshold`: larger arrays are summarised.
const THRESHOLD: usize = 1000;
/// numpy's default `edgeitems`.
const EDGE_ITEMS: usize = 3;
/// numpy's default `precision` (digits after the point, `floatmode='maxprec'`).
const PRECISION: usize = 8;

impl fmt::Display for Array {
    /// ```
    /// use systolic::Array;
    /// let x = Array::from_vec(vec![1.0f32, 2.5, 3.0, 4.0], &[2, 2]);
    /// assert_eq!(x.to_string(), "[[1.  2.5]\n [3.  4. ]]");
    /// assert_eq!(Array::scalar(0.1f32).to_string(), "0.1");
    /// assert_eq!(Array::from_vec(vec![1e-5f32, 1.0], &[2]).to_string(), "[1.e-05 1.e+00]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner.repr {
            Repr::Traced { .. } => write!(f, "Traced<{}>", describe(self.aval())),
            Repr::Failed(e) => write!(f, "<failed array: {e}>"),
            _ => match self.to_tensor() {
                Ok(t) => f.write_str(&array_str(&t)),
                Err(e) => write!(f, "<array not available: {e}>"),
            },
        }
    }
}

/// numpy's `str(a)` of a host tensor.
pub(crate) fn array_str(t: &Tensor) -> String {
    let shape: Vec<usize> = t.shape().iter().map(|&d| d.max(0) as usize).collect();
    if shape.is_empty() {
        return scalar_str(t.dtype(), t.data(), 0);
    }
    if t.num_elements() == 0 {
        return "[]".to_string();
    }
    let summarize = t.num_elements() > THRESHOLD;
    let printer = Printer {
        shape: &shape,
        strides: strides(&shape),
        summarize,
        format: ElementFormat::new(t.dtype(), t.data(), &shown_elements(&shape, summarize)),
        data: t.data(),
    };
    printer.recurse(&mut Vec::new(), " ", LINE_WIDTH)
}

/// Row-major strides in elements.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The indices shown along an axis of length `len`.
fn shown_along(len: usize, summarize: bool) -> Vec<usize> {
    if summarize && len > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).chain(len - EDGE_ITEMS..len).collect()
    } else {
        (0..len).collect()
    }
}

/// Flat indices of every element printed (numpy formats widths over these only).
fn shown_elements(shape: &[usize], summarize: bool) -> Vec<usize> {
    let strides = strides(shape);
    let mut flat = vec![0usize];
    for (d, &len) in shape.iter().enumerate() {
        let along = shown_along(len, summarize);
        let stride = strides[d];
        flat = flat
            .iter()
            .flat_map(|&base| along.iter().map(move |&i| base + i * stride))
            .collect();
    }
    flat
}

struct Printer<'a> {
    shape: &'a [usize],
    strides: Vec<usize>,
    summarize: bool,
    format: ElementFormat,
    data: &'a Data,
}

impl Printer<'_> {
    /// numpy's `_formatArray` recursion: `index` is the position of the sub-array printed,
    /// `hanging` the indentation of its continuation lines, `width` the columns left.
    fn recurse(&self, index: &mut Vec<usize>, hanging: &str, width: usize) -> String {
        let axis = index.len();
        if axis == self.shape.len() {
            let flat: usize = index.iter().zip(&self.strides).map(|(i, s)| i * s).sum();
            return self.format.element(self.data, flat);
        }
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let len = self.shape[axis];
        let summary = self.summarize && len > 2 * EDGE_ITEMS;
        let (leading, trailing) = if summary {
            (EDGE_ITEMS, EDGE_ITEMS)
        } else {
            (0, len)
        };
        let mut item = |i: usize, this: &Self| {
            index.push(i);
            let s = this.recurse(index, &next_hanging, next_width);
            index.pop();
            s
        };
        let axes_left = self.shape.len() - axis;
        let mut s = String::new();
        if axes_left == 1 {
            let elem_width = width.saturating_sub(1);
            let mut line = hanging.to_string();
            for i in 0..leading {
                let word = item(i, self);
                extend_line(&mut s, &mut line, &word, elem_width, hanging);
                line.push(' ');
            }
            if summary {
                extend_line(&mut s, &mut line, "...", elem_width, hanging);
                line.push(' ');
            }
            for i in (2..=trailing).rev() {
                let word = item(len - i, self);
                extend_line(&mut s, &mut line, &word, elem_width, hanging);
                line.push(' ');
            }
            let word = item(len - 1, self);
            extend_line(&mut s, &mut line, &word, width, hanging);
            s.push_str(&line);
        } else {
            let line_sep = "\n".repeat(axes_left - 1);
            for i in 0..leading {
                s += &format!("{hanging}{}{line_sep}", item(i, self));
            }
            if summary {
                s += &format!("{hanging}...{line_sep}");
            }
            for i in (2..=trailing).rev() {
                s += &format!("{hanging}{}{line_sep}", item(len - i, self));
            }
            s += &format!("{hanging}{}", item(len - 1, self));
        }
        format!("[{}]", &s[hanging.len()..])
    }
}

/// numpy's `_extendLine`: wraps before `word` when the line would pass `width`, unless the
/// line holds nothing but its indentation.
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, hanging: &str) {
    if line.len() + word.len() > width && line.len() > hanging.len() {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = hanging.to_string();
    }
    line.push_str(word);
}

/// How every element of one array is printed (numpy's `FloatingFormat`/`IntegerFormat`/
/// `BoolFormat`, fixed over the shown elements).
enum ElementFormat {
    Bool,
    Int {
        width: usize,
    },
    Float(FloatFormat),
    /// Python's `repr` of each complex number.
    Complex,
}

impl ElementFormat {
    fn new(dtype: DType, data: &Data, shown: &[usize]) -> ElementFormat {
        match data {
            Data::Bool(_) => ElementFormat::Bool,
            Data::Int(_) | Data::UInt(_) => ElementFormat::Int {
                width: shown
                    .iter()
                    .map(|&i| int_str(data, i).len())
                    .max()
                    .unwrap_or(0),
            },
            Data::Float(v) => ElementFormat::Float(FloatFormat::new(
                dtype,
                &shown.iter().map(|&i| v[i]).collect::<Vec<_>>(),
            )),
            Data::Complex(_) => ElementFormat::Complex,
        }
    }

    fn element(&self, data: &Data, i: usize) -> String {
        match (self, data) {
            (ElementFormat::Bool, Data::Bool(v)) => {
                if v[i] { " True" } else { "False" }.to_string()
            }
            (ElementFormat::Int { width }, _) => format!("{:>width$}", int_str(data, i)),
            (ElementFormat::Float(f), Data::Float(v)) => f.element(v[i]),
            (ElementFormat::Complex, Data::Complex(v)) => {
                crate::debug::format::python_complex_repr(v[i].re, v[i].im)
            }
            // The format is built from the same data: kinds always agree.
            _ => String::new(),
        }
    }
}

fn int_str(data: &Data, i: usize) -> String {
    match data {
        Data::Int(v) => v[i].to_string(),
        Data::UInt(v) => v[i].to_string(),
        Data::Bool(v) => v[i].to_string(),
        Data::Float(v) => v[i].to_string(),
        Data::Complex(v) => v[i].to_string(),
    }
}

/// A float's shortest round-trip digits in its dtype: `d.ddd × 10^exp`.
#[derive(Clone, Debug, PartialEq)]
struct Digits {
    negative: bool,
    /// Significant digits, no leading zeros ("0" for zero).
    digits: String,
    exp: i32,
}

impl Digits {
    /// Shortest digits that read back as `x` in `dtype` (f64 and f32 by Rust's shortest
    /// formatting; narrower floats by the fewest digits that round back).
    fn shortest(dtype: DType, x: f64) -> Digits {
        let sci = match dtype {
            DType::F64 => format!("{x:e}"),
            DType::F32 => format!("{:e}", x as f32),
            _ => (0..17)
                .map(|p| format!("{x:.p$e}"))
                .find(|s| {
                    s.parse::<f64>()
                        .is_ok_and(|y| numerics::round_to(dtype, y) == x)
                })
                .unwrap_or_else(|| format!("{x:e}")),
        };
        Digits::parse_sci(&sci)
    }

    /// `x` rounded to `frac` digits after the point of its scientific form.
    fn rounded_sci(x: f64, frac: usize) -> Digits {
        Digits::parse_sci(&format!("{x:.frac$e}"))
    }

    /// Parses Rust's `{:e}` form (`-1.25e-3`), dropping trailing zeros of the mantissa.
    fn parse_sci(s: &str) -> Digits {
        let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
        let negative = mantissa.starts_with('-');
        let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
        let digits = digits.trim_end_matches('0');
        Digits {
            negative,
            digits: if digits.is_empty() {
                "0".into()
            } else {
                digits.into()
            },
            exp: exp.parse().unwrap_or(0),
        }
    }

    fn sign(&self) -> &'static str {
        if self.negative {
            "-"
        } else {
            ""
        }
    }

    /// Digits after the point in positional form.
    fn positional_fraction_len(&self) -> usize {
        (self.digits.len() as i64 - 1 - self.exp as i64).max(0) as usize
    }

    /// Positional `(integer part with sign, fraction digits)`, trailing zeros trimmed.
    fn positional(&self) -> (String, String) {
        let n = self.digits.len() as i64;
        let e = self.exp as i64;
        let (int, frac) = if e < 0 {
            (
                "0".to_string(),
                format!("{}{}", "0".repeat((-e - 1) as usize), self.digits),
            )
        } else if n > e + 1 {
            let (i, f) = self.digits.split_at((e + 1) as usize);
            (i.to_string(), f.to_string())
        } else {
            (
                format!("{}{}", self.digits, "0".repeat((e + 1 - n) as usize)),
                String::new(),
            )
        };
        (
            format!("{}{int}", self.sign()),
            frac.trim_end_matches('0').to_string(),
        )
    }

    /// Scientific `(first digit with sign, fraction digits, exponent)`.
    fn scientific(&self) -> (String, String, i32) {
        let (first, rest) = self.digits.split_at(1);
        (
            format!("{}{first}", self.sign()),
            rest.to_string(),
            self.exp,
        )
    }
}

/// numpy's `FloatingFormat` under the default options.
struct FloatFormat {
    dtype: DType,
    exp_format: bool,
    pad_left: usize,
    pad_right: usize,
    /// Scientific only: fraction digits (every element padded with zeros to it).
    precision: usize,
    /// Scientific only: exponent digits.
    exp_size: usize,
}

impl FloatFormat {
    fn new(dtype: DType, shown: &[f64]) -> FloatFormat {
        let finite: Vec<f64> = shown.iter().copied().filter(|x| x.is_finite()).collect();
        let non_zero: Vec<f64> = finite
            .iter()
            .map(|x| x.abs())
            .filter(|&x| x != 0.0)
            .collect();
        let exp_format = !non_zero.is_empty() && {
            let max = non_zero.iter().copied().fold(f64::MIN, f64::max);
            let min = non_zero.iter().copied().fold(f64::MAX, f64::min);
            max >= 1e8 || min < 1e-4 || max / min > 1000.0
        };
        let mut format = FloatFormat {
            dtype,
            exp_format,
            pad_left: 0,
            pad_right: 0,
            precision: 0,
            exp_size: 0,
        };
        if !finite.is_empty() {
            let digits: Vec<Digits> = finite.iter().map(|&x| format.first_pass(x)).collect();
            if exp_format {
                let parts: Vec<_> = digits.iter().map(Digits::scientific).collect();
                format.exp_size = parts
                    .iter()
                    .map(|p| exp_str(p.2, 2).len() - 1)
                    .max()
                    .unwrap_or(2);
                format.precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
                format.pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(1);
                format.pad_right = format.exp_size + 2 + format.precision;
            } else {
                let parts: Vec<_> = digits.iter().map(Digits::positional).collect();
                format.pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(1);
                format.pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            }
        }
        if finite.len() != shown.len() {
            let neg_inf = shown.contains(&f64::NEG_INFINITY) as usize;
            let offset = format.pad_right + 1;
            format.pad_left = format
                .pad_left
                .max((3usize).saturating_sub(offset))
                .max((3 + neg_inf).saturating_sub(offset));
        }
        format
    }

    /// A value's digits as numpy's first pass prints it: unique, at most 8 fraction digits.
    fn first_pass(&self, x: f64) -> Digits {
        let d = Digits::shortest(self.dtype, x);
        if self.exp_format {
            if d.digits.len() > PRECISION + 1 {
                return Digits::rounded_sci(x, PRECISION);
            }
        } else if d.positional_fraction_len() > PRECISION {
            let mut r = Digits::parse_sci(&format!(
                "{:e}",
                format!("{x:.PRECISION$}").parse::<f64>().unwrap_or(x)
            ));
            r.negative = x.is_sign_negative();
            return r;
        }
        d
    }

    fn element(&self, x: f64) -> String {
        if !x.is_finite() {
            let s = if x.is_nan() {
                "nan"
            } else if x < 0.0 {
                "-inf"
            } else {
                "inf"
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{s:>width$}");
        }
        let d = self.first_pass(x);
        if self.exp_format {
            let (first, frac, exp) = d.scientific();
            format!(
                "{first:>pl$}.{frac:0<pr$}e{}",
                exp_str(exp, self.exp_size),
                pl = self.pad_left,
                pr = self.precision
            )
        } else {
            let (int, frac) = d.positional();
            format!(
                "{int:>pl$}.{frac:<pr$}",
                pl = self.pad_left,
                pr = self.pad_right
            )
        }
    }
}

/// An exponent as numpy prints it: sign and at least `digits` digits.
fn exp_str(exp: i32, digits: usize) -> String {
    format!(
        "{}{:0digits$}",
        if exp < 0 { '-' } else { '+' },
        exp.unsigned_abs()
    )
}

/// numpy's `str` of a scalar (a 0-d array's element `i`).
fn scalar_str(dtype: DType, data: &Data, i: usize) -> String {
    match data {
        Data::Bool(v) => if v[i] { "True" } else { "False" }.to_string(),
        Data::Float(v) => float_scalar_str(dtype, v[i]),
        Data::Complex(v) => crate::debug::format::python_complex_repr(v[i].re, v[i].im),
        _ => int_str(data, i),
    }
}

/// numpy's scalar float `str`: positional with at least one fraction digit between 1e-4 and
/// 1e16, scientific (`1e-05`, `1.5e+16`) outside.
fn float_scalar_str(dtype: DType, x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    let d = Digits::shortest(dtype, x);
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        let (first, frac, exp) = d.scientific();
        let point = if frac.is_empty() { "" } else { "." };
        format!("{first}{point}{frac}e{}", exp_str(exp, 2))
    } else {
        let (int, frac) = d.positional();
        format!("{int}.{}", if frac.is_empty() { "0" } else { &frac })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(values: &[f32], shape: &[i64]) -> String {
        array_str(&Tensor::from_f32(shape.to_vec(), values.to_vec()))
    }

    #[test]
    fn floats_line_up_on_the_point() {
        assert_eq!(f32s(&[1.0, 2.5, 3.0], &[3]), "[1.  2.5 3. ]");
        assert_eq!(f32s(&[-1.0, 0.125], &[2]), "[-1.     0.125]");
        assert_eq!(f32s(&[0.1, 100.0], &[2]), "[  0.1 100. ]");
    }

    #[test]
    fn scientific_when_magnitudes_spread() {
        assert_eq!(f32s(&[1e-5, 1.5e-5], &[2]), "[1.0e-05 1.5e-05]");
        assert_eq!(f32s(&[1.0, 1e9], &[2]), "[1.e+00 1.e+09]");
    }

    #[test]
    fn non_finite_values() {
        assert_eq!(
            f32s(&[f32::NAN, 1.0, f32::NEG_INFINITY], &[3]),
            "[ nan   1. -inf]"
        );
        assert_eq!(f32s(&[f32::NAN], &[1]), "[nan]");
    }

    #[test]
    fn scalars_as_numpy_scalars() {
        assert_eq!(float_scalar_str(DType::F32, 5.0), "5.0");
        assert_eq!(float_scalar_str(DType::F32, 1e-5f32 as f64), "1e-05");
        assert_eq!(float_scalar_str(DType::F64, 1.5e16), "1.5e+16");
        assert_eq!(float_scalar_str(DType::F32, 0.1f32 as f64), "0.1");
    }

    #[test]
    fn integers_and_booleans() {
        let t = Tensor::from_i64(vec![3], DType::I32, vec![1, -20, 300]).unwrap();
        assert_eq!(array_str(&t), "[  1 -20 300]");
        let b = Tensor::from_bool(vec![2], vec![true, false]).unwrap();
        assert_eq!(array_str(&b), "[ True False]");
    }

    #[test]
    fn summarised_above_a_thousand_elements() {
        let v: Vec<f32> = (0..2000).map(|i| i as f32).collect();
        assert_eq!(
            f32s(&v, &[2000]),
            "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]"
        );
    }
}
