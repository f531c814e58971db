//! `dense<…> : tensor<…>` constants into exact [`Tensor`]s.
//!
//! Forms: nested lists (`[[1, 2], [3, 4]]`), a single element splatted over the shape, `true` /
//! `false`, negative integers, decimal floats, hex bit patterns (`0x7FC00000` is an f32 NaN),
//! `inf`/`nan` spellings, complex elements `(re, im)` of those, and hex blobs `"0x…"` holding the raw little-endian bytes of every
//! element (or of one element, splatted). Literals are gathered first and converted once the
//! type is known, since the type follows the value in the text. Large constants are the bulk of
//! big modules, so the element loop is flat (no recursion) and the hex decoder is a table-free
//! byte loop.

use super::lexer::Tok;
use super::parser::{Parser, MAX_NESTING};
use crate::diag::Diagnostic;
use crate::dtype::{DType, DTypeKind};
use crate::numerics;
use crate::tensor::{Data, Tensor};
use crate::types::TensorType;
use num_complex::Complex64;

/// The most elements a constant may have. Constants are stored densely, so this bounds the
/// memory one constant takes (512 MiB as f64).
const MAX_CONSTANT_ELEMENTS: usize = 1 << 26;

/// The most elements a splat (one value written for a whole tensor) may expand to: a few bytes
/// of text such as `dense<0.0> : tensor<100000x100000xf32>` must not allocate gigabytes.
const MAX_SPLAT_ELEMENTS: usize = 1 << 24;

/// One element literal as written.
#[derive(Clone, Copy, Debug)]
enum Lit {
    /// A decimal integer: sign and magnitude.
    Int { neg: bool, mag: u64 },
    /// A `0x…` literal: a bit pattern.
    Hex { neg: bool, bits: u64 },
    /// A decimal float: sign and the byte range of its text.
    Float { neg: bool, start: usize, end: usize },
    /// `true` / `false`.
    Bool(bool),
    /// `inf` / `nan` spellings (with sign).
    Special(f64),
    /// `(`: a complex element follows as two literals, its real and imaginary parts (kept
    /// flat so that a literal stays a small `Copy` value).
    ComplexOpen,
}

/// The body of a `dense<…>`.
enum DenseBody {
    /// `dense<>` / `dense<[]>` style empty literal.
    Empty,
    /// One element, splatted over the type's shape (three literals for a complex one).
    Splat(Vec<Lit>),
    /// A nested list: its shape and its elements in row-major order (a complex element as
    /// three literals: [`Lit::ComplexOpen`] and its parts).
    List(Vec<i64>, Vec<Lit>),
    /// `"0x…"`: raw bytes.
    Blob(Vec<u8>),
}

impl Parser<'_> {
    /// Parses `dense<…> : tensor<…>` (the word `dense` is next) into a tensor.
    pub fn parse_dense_attr(&mut self) -> Result<Tensor, Diagnostic> {
        let kw = self.expect_keyword("dense")?;
        self.expect_punct("<")?;
        let body = self.parse_dense_body()?;
        self.expect_punct(">")?;
        if !self.eat_punct(":")? {
            return Err(self.expected("':' and the type of the dense constant"));
        }
        let ty = self.parse_tensor_type()?;
        self.dense_to_tensor(body, ty)
            .map_err(|m| self.err_at(kw, m))
    }

    fn parse_dense_body(&mut self) -> Result<DenseBody, Diagnostic> {
        let t = self.peek()?;
        if t.kind == Tok::Punct && self.text(t) == ">" {
            return Ok(DenseBody::Empty);
        }
        if t.kind == Tok::Str {
            self.next()?;
            let s = self.text(t);
            let body = &s[1..s.len() - 1];
            let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) else {
                return Err(self.err_at(t, "expected a hex blob \"0x…\" in dense<…>"));
            };
            let bytes = decode_hex(hex).map_err(|m| self.err_at(t, m))?;
            return Ok(DenseBody::Blob(bytes));
        }
        if !(t.kind == Tok::Punct && self.text(t) == "[") {
            let mut lits = Vec::with_capacity(1);
            self.parse_element(&mut lits)?;
            return Ok(DenseBody::Splat(lits));
        }

        // A nested list, parsed with an explicit stack of element counts.
        let mut counts: Vec<i64> = Vec::new();
        let mut dims: Vec<Option<i64>> = Vec::new();
        let mut leaf_depth: Option<usize> = None;
        let mut elems: Vec<Lit> = Vec::new();
        loop {
            // An element position: either a new list or a scalar.
            if self.eat_punct("[")? {
                if leaf_depth.is_some_and(|l| counts.len() >= l) {
                    return Err(self.expected("a scalar element (lists are nested unevenly)"));
                }
                counts.push(0);
                if counts.len() > MAX_NESTING {
                    let pos = self.lx.pos();
                    return Err(self
                        .lx
                        .error_at(pos, format!("nesting deeper than {MAX_NESTING} levels")));
                }
                if dims.len() < counts.len() {
                    dims.push(None);
                }
                if !self.is_punct("]")? {
                    continue;
                }
            } else {
                let depth = counts.len();
                if *leaf_depth.get_or_insert(depth) != depth {
                    return Err(self.expected("a list (lists are nested unevenly)"));
                }
                self.parse_element(&mut elems)?;
                if let Some(c) = counts.last_mut() {
                    *c += 1;
                }
            }
            // After an element: `,` or one or more `]`.
            loop {
                if self.eat_punct(",")? {
                    break;
                }
                let t = self.peek()?;
                if !(t.kind == Tok::Punct && self.text(t) == "]") {
                    return Err(self.expected("',' or ']'"));
                }
                self.next()?;
                let count = counts.pop().unwrap_or(0);
                let depth = counts.len();
                match dims[depth] {
                    None => dims[depth] = Some(count),
                    Some(d) if d != count => {
                        return Err(self.err_at(
                            t,
                            format!("ragged dense literal: a list of {count} elements where {d} were expected"),
                        ))
                    }
                    Some(_) => {}
                }
                match counts.last_mut() {
                    Some(c) => *c += 1,
                    None => {
                        let shape = dims.into_iter().map(|d| d.unwrap_or(0)).collect();
                        return Ok(DenseBody::List(shape, elems));
                    }
                }
            }
        }
    }

    /// One element: a literal, or `(re, im)` as three (see [`Lit::ComplexOpen`]).
    fn parse_element(&mut self, out: &mut Vec<Lit>) -> Result<(), Diagnostic> {
        if self.eat_punct("(")? {
            out.push(Lit::ComplexOpen);
            out.push(self.parse_lit()?);
            if !self.eat_punct(",")? {
                return Err(self.expected("',' between the parts of a complex constant"));
            }
            out.push(self.parse_lit()?);
            if !self.eat_punct(")")? {
                return Err(self.expected("')' after the parts of a complex constant"));
            }
        } else {
            out.push(self.parse_lit()?);
        }
        Ok(())
    }

    /// One element literal.
    fn parse_lit(&mut self) -> Result<Lit, Diagnostic> {
        let neg = self.eat_punct("-")?;
        let t = self.peek()?;
        match t.kind {
            Tok::Int => {
                self.next()?;
                let s = self.text(t);
                if s.starts_with("0x") {
                    Ok(Lit::Hex {
                        neg,
                        bits: self.parse_u64(t)?,
                    })
                } else {
                    Ok(Lit::Int {
                        neg,
                        mag: self.parse_u64(t)?,
                    })
                }
            }
            Tok::Float => {
                self.next()?;
                Ok(Lit::Float {
                    neg,
                    start: t.start,
                    end: t.end,
                })
            }
            Tok::Ident => {
                let word = self.text(t);
                let v = match word {
                    "true" if !neg => return self.next().map(|_| Lit::Bool(true)),
                    "false" if !neg => return self.next().map(|_| Lit::Bool(false)),
                    "inf" | "INF" | "Inf" | "infinity" => f64::INFINITY,
                    "nan" | "NaN" | "NAN" => f64::NAN,
                    _ => return Err(self.expected("a constant element")),
                };
                self.next()?;
                Ok(Lit::Special(if neg { -v } else { v }))
            }
            _ => Err(self.expected("a constant element")),
        }
    }

    /// Converts a parsed body to a tensor of type `ty`; errors are plain messages.
    fn dense_to_tensor(&self, body: DenseBody, ty: TensorType) -> Result<Tensor, String> {
        let n = ty.num_elements();
        let splat = match &body {
            DenseBody::Splat(_) => true,
            DenseBody::Blob(bytes) => bytes.len() == ty.dtype.byte_size() && n != 1,
            _ => false,
        };
        if splat && n > MAX_SPLAT_ELEMENTS {
            return Err(format!(
                "splat constant of type {ty} is too large ({n} elements; the limit is {MAX_SPLAT_ELEMENTS})"
            ));
        }
        if n > MAX_CONSTANT_ELEMENTS {
            return Err(format!(
                "constant of type {ty} is too large ({n} elements; the limit is {MAX_CONSTANT_ELEMENTS})"
            ));
        }
        let tensor = match body {
            DenseBody::Empty => {
                if n != 0 {
                    return Err(format!("empty dense literal for {ty} with {n} elements"));
                }
                Tensor::new(ty.clone(), Data::zeros(ty.dtype.kind(), 0))
            }
            DenseBody::Blob(bytes) => {
                let w = ty.dtype.byte_size();
                if bytes.len() == w && n != 1 {
                    let one = Tensor::from_le_bytes(TensorType::scalar(ty.dtype), &bytes)
                        .map_err(|e| e.to_string())?;
                    Tensor::splat(ty.clone(), one.get(0))
                } else if bytes.len() == n * w {
                    Tensor::from_le_bytes(ty.clone(), &bytes)
                } else {
                    return Err(format!(
                        "hex constant has {} bytes; {ty} needs {} ({} per element)",
                        bytes.len(),
                        n * w,
                        w
                    ));
                }
            }
            DenseBody::Splat(lits) => {
                let data = self.convert_lits(&lits, ty.dtype)?;
                let one =
                    Tensor::new(TensorType::scalar(ty.dtype), data).map_err(|e| e.to_string())?;
                Tensor::splat(ty.clone(), one.get(0))
            }
            DenseBody::List(shape, lits) => {
                if shape != ty.shape && !(n == 0 && lits.is_empty()) {
                    return Err(format!(
                        "dense literal of shape {shape:?} does not match its type {ty}"
                    ));
                }
                let data = self.convert_lits(&lits, ty.dtype)?;
                Tensor::new(ty.clone(), data)
            }
        };
        tensor.map_err(|e| e.to_string())
    }

    /// Converts element literals to the storage of `dtype`, checking ranges.
    fn convert_lits(&self, lits: &[Lit], dtype: DType) -> Result<Data, String> {
        let src = self.lx.src();
        let bad = |lit: &Lit| {
            format!(
                "constant element {} does not fit {dtype}",
                lit_text(src, lit)
            )
        };
        match dtype.kind() {
            DTypeKind::Bool => lits
                .iter()
                .map(|l| match *l {
                    Lit::Bool(b) => Ok(b),
                    Lit::Int { neg: false, mag }
                    | Lit::Hex {
                        neg: false,
                        bits: mag,
                    } if mag <= 1 => Ok(mag == 1),
                    _ => Err(bad(l)),
                })
                .collect::<Result<_, _>>()
                .map(Data::Bool),
            DTypeKind::Signed => {
                let (lo, hi) = dtype.signed_range().unwrap_or((i64::MIN, i64::MAX));
                lits.iter()
                    .map(|l| match *l {
                        Lit::Int { neg, mag } => {
                            let v = if neg {
                                0i128 - mag as i128
                            } else {
                                mag as i128
                            };
                            if v < lo as i128 || v > hi as i128 {
                                Err(format!("integer {v} does not fit {dtype}"))
                            } else {
                                Ok(v as i64)
                            }
                        }
                        Lit::Hex { neg: false, bits } => {
                            Ok(numerics::wrap_signed(dtype.bit_width(), bits as i64))
                        }
                        _ => Err(bad(l)),
                    })
                    .collect::<Result<_, _>>()
                    .map(Data::Int)
            }
            DTypeKind::Unsigned => {
                let hi = dtype.unsigned_max().unwrap_or(u64::MAX);
                lits.iter()
                    .map(|l| match *l {
                        Lit::Int { neg: false, mag }
                        | Lit::Hex {
                            neg: false,
                            bits: mag,
                        } if mag <= hi => Ok(mag),
                        Lit::Int { neg: true, mag: 0 } => Ok(0),
                        _ => Err(bad(l)),
                    })
                    .collect::<Result<_, _>>()
                    .map(Data::UInt)
            }
            DTypeKind::Float => self.float_lits(lits, dtype).map(Data::Float),
            DTypeKind::Complex => {
                let well_formed = lits.len().is_multiple_of(3)
                    && lits.chunks(3).all(|c| {
                        matches!(c[0], Lit::ComplexOpen)
                            && !c[1..].iter().any(|l| matches!(l, Lit::ComplexOpen))
                    });
                if !well_formed {
                    let first = lits
                        .iter()
                        .find(|l| !matches!(l, Lit::ComplexOpen))
                        .map_or_else(|| "?".to_string(), |l| lit_text(src, l));
                    return Err(format!(
                        "constant element {first} does not fit {dtype} (write (re, im))"
                    ));
                }
                let parts: Vec<Lit> = lits
                    .iter()
                    .copied()
                    .filter(|l| !matches!(l, Lit::ComplexOpen))
                    .collect();
                let part = dtype.component().unwrap_or(DType::F64);
                let values = self.float_lits(&parts, part)?;
                Ok(Data::Complex(
                    values
                        .chunks_exact(2)
                        .map(|p| Complex64::new(p[0], p[1]))
                        .collect(),
                ))
            }
        }
    }

    /// Float literals as values of the float dtype `dtype`, checking ranges.
    fn float_lits(&self, lits: &[Lit], dtype: DType) -> Result<Vec<f64>, String> {
        let src = self.lx.src();
        let bad = |lit: &Lit| {
            format!(
                "constant element {} does not fit {dtype}",
                lit_text(src, lit)
            )
        };
        lits.iter()
            .map(|l| {
                let v = match *l {
                    Lit::Float { neg, start, end } => {
                        let text = &src[start..end];
                        let x = if dtype == DType::F32 {
                            text.parse::<f32>().map(f64::from).map_err(|_| bad(l))?
                        } else {
                            text.parse::<f64>().map_err(|_| bad(l))?
                        };
                        // A finite literal that rounds to infinity in its type (`1e999`,
                        // `1e39` as f32, `70000` as f16) is refused, as MLIR does.
                        if numerics::overflows(dtype, x) {
                            return Err(format!(
                                "floating point value {text} is too large for {dtype}"
                            ));
                        }
                        if neg {
                            -x
                        } else {
                            x
                        }
                    }
                    Lit::Int { neg, mag } => {
                        let x = mag as f64;
                        if numerics::overflows(dtype, x) {
                            return Err(format!(
                                "floating point value {mag} is too large for {dtype}"
                            ));
                        }
                        if neg {
                            -x
                        } else {
                            x
                        }
                    }
                    Lit::Hex { neg: false, bits } => {
                        if dtype.bit_width() < 64 && bits >> dtype.bit_width() != 0 {
                            return Err(format!("hex float 0x{bits:X} is wider than {dtype}"));
                        }
                        numerics::float_from_bits(dtype, bits)
                    }
                    Lit::Special(x) => x,
                    _ => return Err(bad(l)),
                };
                Ok(v)
            })
            .collect()
    }
}

/// A literal as written, for error messages.
fn lit_text(src: &str, lit: &Lit) -> String {
    let sign = |neg: bool| if neg { "-" } else { "" };
    match *lit {
        Lit::Int { neg, mag } => format!("{}{mag}", sign(neg)),
        Lit::Hex { neg, bits } => format!("{}0x{bits:X}", sign(neg)),
        Lit::Float { neg, start, end } => format!("{}{}", sign(neg), &src[start..end]),
        Lit::Bool(b) => b.to_string(),
        Lit::Special(x) => format!("{x}"),
        Lit::ComplexOpen => "(…)".to_string(),
    }
}

/// Decodes hex digits into bytes.
fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    let b = hex.as_bytes();
    if !b.len().is_multiple_of(2) {
        return Err("hex constant has an odd number of digits".to_string());
    }
    // One table lookup per digit, and one check at the end: weights embedded in a module are
    // tens of megabytes of hex, and a branch per digit made decoding a quarter of the compile.
    let mut out = Vec::with_capacity(b.len() / 2);
    let mut bad = 0u8;
    for pair in b.chunks_exact(2) {
        let (hi, lo) = (HEX_DIGITS[pair[0] as usize], HEX_DIGITS[pair[1] as usize]);
        bad |= hi | lo;
        out.push(hi << 4 | lo);
    }
    if bad & NOT_HEX != 0 {
        let c = b
            .iter()
            .find(|&&c| HEX_DIGITS[c as usize] & NOT_HEX != 0)
            .map_or('?', |&c| c as char);
        return Err(format!("bad hex digit '{c}' in constant"));
    }
    Ok(out)
}

/// Marks a byte that is not a hex digit in [`HEX_DIGITS`].
const NOT_HEX: u8 = 0x10;

/// The value of each byte as a hex digit, or [`NOT_HEX`].
const HEX_DIGITS: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};
