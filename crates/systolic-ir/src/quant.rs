//! Uniformly quantized element types, `!quant.uniform<i8:f32, 0.1:-30>`, as the StableHLO spec
//! defines them: an integer *storage* type, a float *expressed* type, and a scale and zero
//! point — one pair for the whole tensor, or one per position of a quantization dimension
//! (`!quant.uniform<i8:f32:0, {0.1:-30, 0.5:-20}>`). A stored integer `q` means the real
//! value `(q - zero_point) * scale`.
//!
//! A quantized tensor type is a [`TensorType`] whose `dtype` is the storage type and whose
//! `quant` holds these parameters, so buffers, byte sizes and `.npy` files are the storage
//! integers' and every table over dtypes keeps working; two types differ when their
//! quantizations differ. The interpreter computes an op on quantized values the spec's way:
//! dequantize the operands, compute in the expressed type, quantize the results
//! (`dequantize_op_quantize`).

use crate::dtype::DType;
use crate::numerics::round_to;
use crate::tensor::{Data, Tensor};
use crate::types::{TensorType, Type};
use std::fmt;
use std::hash::{Hash, Hasher};

/// The parameters of a uniformly quantized element type.
#[derive(Clone, Debug)]
pub struct Quantization {
    /// The float type the values are expressed in (`f32`, `bf16`, `f16`, `f64`).
    pub expressed: DType,
    /// The smallest and largest stored value (the storage type's range unless narrowed,
    /// `i8<-127:127>`).
    pub storage_min: i64,
    /// See `storage_min`.
    pub storage_max: i64,
    /// The quantization dimension for per-axis quantization; `None` for one scale.
    pub axis: Option<i64>,
    /// The scales: one, or one per position of `axis`.
    pub scales: Vec<f64>,
    /// The zero points, as many as the scales.
    pub zero_points: Vec<i64>,
    /// Whether the storage range is narrower than the storage type's (`i8<-127:127>`), which
    /// is when MLIR writes it.
    pub narrowed: bool,
}

impl PartialEq for Quantization {
    fn eq(&self, other: &Self) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        self.expressed == other.expressed
            && self.storage_min == other.storage_min
            && self.storage_max == other.storage_max
            && self.axis == other.axis
            && bits(&self.scales) == bits(&other.scales)
            && self.zero_points == other.zero_points
    }
}

impl Eq for Quantization {}

impl Hash for Quantization {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.expressed.hash(state);
        self.storage_min.hash(state);
        self.storage_max.hash(state);
        self.axis.hash(state);
        for s in &self.scales {
            s.to_bits().hash(state);
        }
        self.zero_points.hash(state);
    }
}

/// The range of an integer dtype.
fn int_range(storage: DType) -> Option<(i64, i64)> {
    if !storage.is_integer() || storage == DType::Bool {
        return None;
    }
    let bits = storage.bit_width();
    if storage.is_unsigned_integer() {
        let max = if bits >= 63 {
            i64::MAX
        } else {
            (1i64 << bits) - 1
        };
        Some((0, max))
    } else {
        let half = 1i64 << (bits - 1).min(62);
        Some((-half, half - 1))
    }
}

impl Quantization {
    /// Parses what is between the angle brackets of `!quant.uniform<…>`, with `storage`
    /// resolved from the storage type name by `dtype_of`.
    ///
    /// ```
    /// use systolic_ir::quant::Quantization;
    /// use systolic_ir::DType;
    /// let (s, q) = Quantization::parse_body("i8:f32:0, {0.1:-30,0.5:-20}", DType::from_mlir_name).unwrap();
    /// assert_eq!((s, q.axis, q.zero_points.clone()), (DType::I8, Some(0), vec![-30, -20]));
    /// ```
    pub fn parse_body(
        body: &str,
        dtype_of: impl Fn(&str) -> Option<DType>,
    ) -> Result<(DType, Quantization), String> {
        let body = body.trim();
        // `storage[<min:max>]:expressed[:axis], params`.
        let (head, params) = split_top_comma(body).ok_or_else(|| {
            format!("expected '<storage>:<expressed>, <scale>[:<zero point>]' in '{body}'")
        })?;
        let (storage_text, rest) = match head.find('<') {
            Some(open) => {
                let close = head[open..]
                    .find('>')
                    .map(|c| open + c)
                    .ok_or_else(|| format!("unclosed storage range in '{head}'"))?;
                (&head[..close + 1], head[close + 1..].trim_start())
            }
            None => match head.find(':') {
                Some(c) => (&head[..c], &head[c..]),
                None => (head, ""),
            },
        };
        let (storage_name, range) = match storage_text.split_once('<') {
            Some((name, r)) => (name.trim(), Some(r.trim_end_matches('>'))),
            None => (storage_text.trim(), None),
        };
        // MLIR's quant dialect writes unsigned storage `u8`; `ui8` is read too.
        let storage = dtype_of(storage_name)
            .or_else(|| {
                storage_name
                    .strip_prefix('u')
                    .filter(|w| w.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|w| dtype_of(&format!("ui{w}")))
            })
            .filter(|d| int_range(*d).is_some())
            .ok_or_else(|| format!("'{storage_name}' is not an integer storage type"))?;
        let (lo, hi) = int_range(storage).expect("checked above");
        let (storage_min, storage_max) = match range {
            None => (lo, hi),
            Some(r) => {
                let (a, b) = r
                    .split_once(':')
                    .ok_or_else(|| format!("expected '<min:max>' in '{storage_text}'"))?;
                let parse = |s: &str| {
                    s.trim()
                        .parse::<i64>()
                        .map_err(|_| format!("bad storage bound '{s}'"))
                };
                (parse(a)?, parse(b)?)
            }
        };
        if storage_min < lo || storage_max > hi {
            return Err(format!(
                "storage range [{storage_min}, {storage_max}] is not within {storage}'s [{lo}, {hi}]"
            ));
        }
        let mut parts = rest.trim_start_matches(':').split(':');
        let expressed_name = parts.next().unwrap_or("").trim();
        let expressed = dtype_of(expressed_name)
            .filter(|d| d.is_float())
            .ok_or_else(|| format!("'{expressed_name}' is not a float expressed type"))?;
        let axis = match parts.next() {
            Some(a) => Some(
                a.trim()
                    .parse::<i64>()
                    .map_err(|_| format!("bad quantization dimension '{a}'"))?,
            ),
            None => None,
        };
        let params = params.trim();
        let pairs: Vec<&str> = match (axis, params.strip_prefix('{')) {
            (Some(_), Some(inner)) => inner
                .strip_suffix('}')
                .ok_or_else(|| format!("unclosed '{{' in '{params}'"))?
                .split(',')
                .collect(),
            (Some(_), None) => return Err("per-axis parameters must be in '{…}'".to_string()),
            (None, Some(_)) => {
                return Err("'{…}' parameters need a quantization dimension".to_string())
            }
            (None, None) => vec![params],
        };
        let mut scales = Vec::with_capacity(pairs.len());
        let mut zero_points = Vec::with_capacity(pairs.len());
        for pair in pairs {
            let (s, z) = match pair.split_once(':') {
                Some((s, z)) => (s.trim(), Some(z.trim())),
                None => (pair.trim(), None),
            };
            scales.push(s.parse::<f64>().map_err(|_| format!("bad scale '{s}'"))?);
            zero_points.push(match z {
                Some(z) => z
                    .parse::<i64>()
                    .map_err(|_| format!("bad zero point '{z}'"))?,
                None => 0,
            });
        }
        let q = Quantization {
            expressed,
            storage_min,
            storage_max,
            axis,
            scales,
            zero_points,
            narrowed: (storage_min, storage_max) != (lo, hi),
        };
        q.check()?;
        Ok((storage, q))
    }

    /// The spec's constraints that do not depend on the shape (its "Quantized element
    /// types" C3–C11): a non-empty storage range, scales positive and finite as values of the
    /// expressed type, zero points within the storage range, one zero point per scale, one
    /// scale without a quantization dimension, a non-negative quantization dimension.
    pub fn check(&self) -> Result<(), String> {
        if self.storage_min >= self.storage_max {
            return Err(format!(
                "storage range [{}, {}] must have storage_min < storage_max",
                self.storage_min, self.storage_max
            ));
        }
        if let Some(axis) = self.axis.filter(|a| *a < 0) {
            return Err(format!(
                "quantization dimension {axis} must be non-negative"
            ));
        }
        if self.scales.is_empty() || self.scales.len() != self.zero_points.len() {
            return Err(
                "a quantized type needs as many zero points as scales, at least one".into(),
            );
        }
        // A scale is a value of the expressed type (C4): 1e-50 is 0 in f32, 1e5 is ∞ in f16.
        let e = self.expressed;
        if let Some(s) = self
            .scales
            .iter()
            .find(|&&s| !(round_to(e, s).is_finite() && round_to(e, s) > 0.0))
        {
            return Err(format!(
                "scale {s} must be positive and finite as a value of the expressed type {e}"
            ));
        }
        if let Some(z) = self
            .zero_points
            .iter()
            .find(|&&z| z < self.storage_min || z > self.storage_max)
        {
            return Err(format!(
                "zero point {z} is outside the storage range [{}, {}]",
                self.storage_min, self.storage_max
            ));
        }
        if self.axis.is_none() && self.scales.len() != 1 {
            return Err("a per-tensor quantized type has one scale".into());
        }
        Ok(())
    }

    /// Checks the parameters against a tensor shape: the quantization dimension exists and
    /// has one scale per position.
    pub fn check_shape(&self, shape: &[i64]) -> Result<(), String> {
        if let Some(axis) = self.axis {
            let size = usize::try_from(axis).ok().and_then(|a| shape.get(a));
            match size {
                None => {
                    return Err(format!(
                        "quantization dimension {axis} is not a dimension of a rank-{} tensor",
                        shape.len()
                    ))
                }
                Some(&n) if n != self.scales.len() as i64 => {
                    return Err(format!(
                        "quantization dimension {axis} has size {n} but {} scale(s)",
                        self.scales.len()
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The (scale, zero point) of the element at row-major position `i` of `shape`.
    fn params_at(&self, shape: &[i64], i: usize) -> (f64, i64) {
        let k = match self.axis {
            None => 0,
            Some(axis) => {
                let a = axis as usize;
                let inner: usize = shape[a + 1..].iter().map(|&d| d.max(0) as usize).product();
                (i / inner.max(1)) % (shape[a].max(1) as usize)
            }
        };
        (self.scales[k], self.zero_points[k])
    }
}

/// Splits `a, b` at the first comma outside `<…>` and `{…}`.
fn split_top_comma(s: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '{' => depth += 1,
            '>' | '}' => depth -= 1,
            ',' if depth == 0 => return Some((&s[..i], &s[i + 1..])),
            _ => {}
        }
    }
    None
}

/// The storage type's name as MLIR's quant dialect writes it: `i8` signed, `u8` unsigned.
pub fn storage_name(storage: DType) -> String {
    let name = storage.mlir_name();
    match name.strip_prefix("ui") {
        Some(width) => format!("u{width}"),
        None => name.to_string(),
    }
}

/// A scale as MLIR prints a double (`raw_ostream`'s `%e`: `1.000000e-01`) when that reads
/// back as the same value, else the shortest text that does (`%e` keeps seven digits, which
/// would change a scale like 1/3 on a round trip).
fn format_scale(s: f64) -> String {
    let mlir = format!("{s:.6e}");
    // Rust writes `1.000000e-1`; C's `%e` pads the exponent to two digits with a sign.
    let (mantissa, exp) = mlir.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent");
    let mlir = format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    );
    if mlir.parse::<f64>().ok() == Some(s) {
        mlir
    } else {
        format!("{s:e}")
    }
}

impl fmt::Display for Quantization {
    /// The part inside `!quant.uniform<…>` after the storage type's name ([`storage_name`],
    /// written by the caller), as MLIR prints it: the storage range only when it is not the
    /// storage type's whole range, a zero point only when it is not 0.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.narrowed {
            write!(f, "<{}:{}>", self.storage_min, self.storage_max)?;
        }
        write!(f, ":{}", self.expressed)?;
        let pair = |f: &mut fmt::Formatter<'_>, s: f64, z: i64| {
            f.write_str(&format_scale(s))?;
            if z != 0 {
                write!(f, ":{z}")?;
            }
            Ok(())
        };
        match self.axis {
            None => {
                f.write_str(", ")?;
                pair(f, self.scales[0], self.zero_points[0])
            }
            Some(axis) => {
                write!(f, ":{axis}, {{")?;
                for (i, (&s, &z)) in self.scales.iter().zip(&self.zero_points).enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    pair(f, s, z)?;
                }
                f.write_str("}")
            }
        }
    }
}

/// The type the values of a quantized type are expressed in (`ty` itself if not quantized).
pub fn expressed_type(ty: &TensorType) -> TensorType {
    match &ty.quant {
        Some(q) => TensorType::new(ty.shape.clone(), q.expressed),
        None => ty.clone(),
    }
}

/// [`expressed_type`] of a value type (tuples and tokens as they are).
pub fn expressed_value_type(ty: &Type) -> Type {
    match ty {
        Type::Tensor(t) => Type::Tensor(expressed_type(t)),
        other => other.clone(),
    }
}

/// Whether a value type is a quantized tensor type.
pub fn is_quantized(ty: &Type) -> bool {
    matches!(ty, Type::Tensor(t) if t.quant.is_some())
}

/// The plain storage type of a quantized type (`tensor<2xi8>` for
/// `tensor<2x!quant.uniform<i8:f32, …>>`).
pub fn storage_type(ty: &TensorType) -> TensorType {
    TensorType::new(ty.shape.clone(), ty.dtype)
}

/// The spec's `dequantize`: `(q - zero_point) * scale` in the expressed type. (The spec
/// subtracts in the storage type; this subtracts exactly, which differs only where the
/// storage type would overflow, and is what XLA's lowering computes.)
pub fn dequantize(x: &Tensor) -> Result<Tensor, String> {
    let q = x
        .ty()
        .quant
        .as_ref()
        .ok_or_else(|| format!("{} is not a quantized type", x.ty()))?;
    let shape = x.shape();
    let values = (0..x.num_elements())
        .map(|i| {
            let stored = match x.data() {
                Data::Int(v) => v[i],
                Data::UInt(v) => v[i] as i64,
                _ => 0,
            };
            let (scale, zp) = q.params_at(shape, i);
            let e = q.expressed;
            round_to(e, round_to(e, (stored - zp) as f64) * round_to(e, scale))
        })
        .collect();
    Tensor::new(
        TensorType::new(shape.to_vec(), q.expressed),
        Data::Float(values),
    )
    .map_err(|e| e.to_string())
}

/// The spec's `quantize` of float values into the quantized type `to`, step by step in the
/// expressed type as the spec writes it: `x / scale`, plus the zero point (each rounded to
/// the expressed type), clamped to the storage range, rounded to nearest even. (Adding the
/// zero point before rounding matters: in f32, `x / scale + zero_point` can round to a
/// half that `x / scale` was not.) NaN, which the spec leaves to `convert`, is stored as the
/// zero point.
pub fn quantize(x: &Tensor, to: &TensorType) -> Result<Tensor, String> {
    let q = to
        .quant
        .as_ref()
        .ok_or_else(|| format!("{to} is not a quantized type"))?;
    let Data::Float(v) = x.data() else {
        return Err(format!("quantize takes float values, got {}", x.ty()));
    };
    let e = q.expressed;
    let (lo, hi) = (
        round_to(e, q.storage_min as f64),
        round_to(e, q.storage_max as f64),
    );
    let stored: Vec<i64> = v
        .iter()
        .enumerate()
        .map(|(i, &value)| {
            let (scale, zp) = q.params_at(&to.shape, i);
            let scaled = round_to(e, round_to(e, value) / round_to(e, scale));
            let with_zp = round_to(e, scaled + round_to(e, zp as f64));
            if with_zp.is_nan() {
                return zp;
            }
            // The bounds rounded to the expressed type can lie outside the storage range
            // (i32's in f32); the final clamp keeps the stored integer in it.
            (with_zp.clamp(lo, hi).round_ties_even() as i64).clamp(q.storage_min, q.storage_max)
        })
        .collect();
    let data = if to.dtype.is_unsigned_integer() {
        Data::UInt(stored.into_iter().map(|s| s as u64).collect())
    } else {
        Data::Int(stored)
    };
    Tensor::new(to.clone(), data).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &str) -> Result<(DType, Quantization), String> {
        Quantization::parse_body(body, DType::from_mlir_name)
    }

    #[test]
    fn per_tensor_and_per_axis_forms_parse_and_print_back() {
        for body in [
            "i8:f32, 0.1:-30",
            "i8:f32:0, {0.1:-30,0.5:-20}",
            "i8<-127:127>:f32, 2.0",
            "ui8:bf16, 0.25:128",
        ] {
            let (storage, q) = parse(body).unwrap();
            let printed = format!("{}{q}", storage.mlir_name());
            let (s2, q2) = parse(&printed).unwrap();
            assert_eq!((storage, &q), (s2, &q2), "{body} printed as {printed}");
        }
    }

    #[test]
    fn broken_constraints_are_named() {
        let e = |b: &str| parse(b).unwrap_err();
        assert!(e("i8:f32, 0.0:1").contains("scale 0 must be positive"));
        assert!(e("i8:f32, 1.0:200").contains("zero point 200 is outside"));
        assert!(e("i8<-200:0>:f32, 1.0").contains("not within i8's"));
        assert!(e("f32:f32, 1.0").contains("not an integer storage type"));
        assert!(e("i8:i32, 1.0").contains("not a float expressed type"));
        assert!(e("i8:f32, {1.0}").contains("need a quantization dimension"));
        assert!(e("i8<5:5>:f32, 1.0").contains("must have storage_min < storage_max"));
        assert!(e("i8:f32:-1, {1.0}").contains("quantization dimension -1 must be non-negative"));
        assert!(e("i8:f32, 1.0e-50").contains("as a value of the expressed type f32"));
        assert!(e("i8:f16, 1.0e5").contains("as a value of the expressed type f16"));
        assert!(e("i8:f32, 0.5, 1").contains("bad scale"));
    }

    #[test]
    fn prints_as_mlir_does() {
        let print = |body: &str| {
            let (storage, q) = parse(body).unwrap();
            format!("{}{q}", storage_name(storage))
        };
        // MLIR: `%e` scales, zero point 0 left out, `u8` for unsigned storage, the storage
        // range only when narrowed.
        assert_eq!(print("i8:f32, 0.1:-30"), "i8:f32, 1.000000e-01:-30");
        assert_eq!(print("ui8:f32, 2.0:0"), "u8:f32, 2.000000e+00");
        assert_eq!(print("u8:f32, 2.0:3"), "u8:f32, 2.000000e+00:3");
        assert_eq!(print("i8<-128:127>:f32, 1.0"), "i8:f32, 1.000000e+00");
        assert_eq!(
            print("i8<-127:127>:f32:1, {0.1:-30,5e-01}"),
            "i8<-127:127>:f32:1, {1.000000e-01:-30,5.000000e-01}"
        );
        // Seven digits would change 1/3 on a round trip: the shortest exact form instead.
        let third = print("i8:f64, 0.3333333333333333");
        assert_eq!(third, "i8:f64, 3.333333333333333e-1");
    }

    #[test]
    fn quantize_rounds_half_to_even_and_saturates() {
        let (storage, q) = parse("i8:f32, 0.5:-20").unwrap();
        let ty = TensorType::quantized(vec![5], storage, q);
        let x =
            Tensor::from_f64(vec![5], DType::F32, vec![0.25, 0.75, 3.0, 1000.0, -1000.0]).unwrap();
        let qx = quantize(&x, &ty).unwrap();
        // x / 0.5 + (-20): -19.5 → -20 (even), -18.5 → -18 (even), -14; clamped to
        // [-128, 127].
        assert_eq!(qx.data(), &Data::Int(vec![-20, -18, -14, 127, -128]));
        let back = dequantize(&qx).unwrap();
        assert_eq!(back.data(), &Data::Float(vec![0.0, 1.0, 3.0, 73.5, -54.0]));
    }
}
