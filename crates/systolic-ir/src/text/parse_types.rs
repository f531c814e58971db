//! Types: `tensor<2x3xf32>`, `tuple<…>`, `!stablehlo.token`, element types, and the trailing
//! type signatures of ops (`: T`, `: T1, T2`, `: (T1, T2) -> T3`, `: T -> (T1, T2)`).
//!
//! Only static shapes, the element types of [`DType`] (`complex<f32>` and `complex<f64>`
//! among them) and uniformly quantized tensor elements (`!quant.uniform<…>`, see
//! [`crate::quant`]) are supported; anything else (dynamic dimensions, encodings, complex
//! numbers of other parts) is a parse error that names the type.

use super::lexer::Tok;
use super::parser::Parser;
use crate::diag::Diagnostic;
use crate::dtype::DType;
use crate::quant::Quantization;
use crate::types::{TensorType, Type};

/// The types after an op's `:`: either a function type or a plain list.
pub(crate) enum OpSignature {
    /// `(inputs) -> results` or `input -> results`.
    Function {
        /// The operand types written before the arrow.
        operands: Vec<Type>,
        /// The result types.
        results: Vec<Type>,
    },
    /// `T1, T2, …` without an arrow.
    List(Vec<Type>),
}

impl Parser<'_> {
    /// Parses a value type.
    pub fn parse_type(&mut self) -> Result<Type, Diagnostic> {
        let t = self.peek()?;
        match t.kind {
            Tok::Ident => match self.text(t) {
                "tensor" => self.parse_tensor_type().map(Type::Tensor),
                "tuple" => {
                    self.next()?;
                    self.expect_punct("<")?;
                    self.enter()?;
                    let elems = self.comma_list(">", |p| p.parse_type())?;
                    self.leave();
                    Ok(Type::Tuple(elems))
                }
                "complex" => Err(self.err_at(
                    t,
                    "expected a tensor type, found 'complex' (write tensor<complex<f32>>)",
                )),
                "index" => Err(self.err_at(t, "the 'index' type is not supported")),
                other => {
                    if DType::from_mlir_name(other).is_some() {
                        Err(self.err_at(
                            t,
                            format!(
                                "expected a tensor type, found '{other}' (write tensor<{other}>)"
                            ),
                        ))
                    } else if unsupported_element_type(other) {
                        Err(self.err_at(t, format!("element type '{other}' is not supported")))
                    } else {
                        Err(self.expected("a type"))
                    }
                }
            },
            Tok::BangId => {
                let s = self.text(t);
                if s == "!stablehlo.token" {
                    self.next()?;
                    Ok(Type::Token)
                } else if s.starts_with("!quant") {
                    Err(self.err_at(t, format!("quantized types ('{s}') are not supported")))
                } else {
                    Err(self.err_at(t, format!("type '{s}' is not supported")))
                }
            }
            _ => Err(self.expected("a type")),
        }
    }

    /// Parses `tensor<d0xd1x…xdtype>` (the keyword `tensor` is next).
    pub fn parse_tensor_type(&mut self) -> Result<TensorType, Diagnostic> {
        let kw = self.expect_keyword("tensor")?;
        if self.lx.peek_byte() != Some(b'<') {
            return Err(self.expected("'<' after 'tensor'"));
        }
        self.lx.bump_byte();
        let mut shape = Vec::new();
        loop {
            let at = self.lx.pos();
            match self.lx.peek_byte() {
                Some(b'0'..=b'9') => {
                    let at = self.lx.pos();
                    let digits = self.lx.raw_digits();
                    let dim: i64 = digits.parse().map_err(|_| {
                        self.lx
                            .error_at(at, format!("dimension size {digits} is too large"))
                    })?;
                    shape.push(dim);
                    if shape.len() > super::parser::MAX_NESTING {
                        return Err(self.lx.error_at(at, "tensor type has too many dimensions"));
                    }
                    if self.lx.peek_byte() != Some(b'x') {
                        return Err(self.expected("'x' after a dimension size"));
                    }
                    self.lx.bump_byte();
                }
                Some(b'?') | Some(b'*') => {
                    return Err(self
                        .lx
                        .error_at(at, "dynamic shapes are not supported (found '?' or '*')"));
                }
                _ => break,
            }
        }
        // A zero dimension empties the shape whatever the others (`4x2^62x0` as `0x2^62x4`);
        // otherwise the element count must fit.
        if !shape.contains(&0)
            && shape
                .iter()
                .try_fold(1i64, |n: i64, &d| n.checked_mul(d))
                .is_none()
        {
            return Err(self
                .lx
                .error_at(kw.start, "tensor type has too many elements"));
        }
        let peeked = self.peek()?;
        let ty = if peeked.kind == Tok::BangId && self.text(peeked) == "!quant.uniform" {
            self.next()?;
            let (storage, quant) = self.parse_quant_body()?;
            quant
                .check_shape(&shape)
                .map_err(|m| self.err_at(peeked, m))?;
            TensorType::quantized(shape, storage, quant)
        } else {
            TensorType::new(shape, self.parse_element_type()?)
        };
        if self.is_punct(",")? {
            let t = self.next()?;
            return Err(self.err_at(t, "tensor encodings (bounds, sparsity) are not supported"));
        }
        self.expect_punct(">")?;
        Ok(ty)
    }

    /// `<i8:f32, 0.1:-30>` after `!quant.uniform` (see [`crate::quant`]).
    fn parse_quant_body(&mut self) -> Result<(DType, Quantization), Diagnostic> {
        let open = self.peek()?;
        if !(open.kind == Tok::Punct && self.text(open) == "<") {
            return Err(self.expected("'<' after '!quant.uniform'"));
        }
        let end = self.lx.balanced_angle_end(open.start)?;
        let body = &self.lx.src()[open.start + 1..end - 1];
        let parsed = Quantization::parse_body(body, DType::from_mlir_name)
            .map_err(|m| self.err_at(open, format!("bad quantized type: {m}")))?;
        self.lx.set_pos(end);
        Ok(parsed)
    }

    /// Parses an element type name (`f32`, `i1`, `ui8`, `si32`, `bf16`).
    pub fn parse_element_type(&mut self) -> Result<DType, Diagnostic> {
        let t = self.peek()?;
        match t.kind {
            Tok::Ident => {
                let name = self.text(t);
                if let Some(d) = DType::from_mlir_name(name) {
                    self.next()?;
                    Ok(d)
                } else if name == "complex" {
                    self.next()?;
                    self.expect_punct("<")?;
                    let part_at = self.peek()?;
                    let part = self.parse_element_type()?;
                    self.expect_punct(">")?;
                    part.complex_of().ok_or_else(|| {
                        self.err_at(
                            part_at,
                            format!(
                                "element type 'complex<{part}>' is not supported (complex \
                                 numbers have f32 or f64 parts)"
                            ),
                        )
                    })
                } else if unsupported_element_type(name) || name == "index" {
                    Err(self.err_at(t, format!("element type '{name}' is not supported")))
                } else {
                    Err(self.expected("an element type"))
                }
            }
            Tok::BangId if self.text(t).starts_with("!quant") => Err(self.err_at(
                t,
                "a quantized element type is only supported as a tensor's (tensor<4x!quant.uniform<…>>)",
            )),
            _ => Err(self.expected("an element type")),
        }
    }

    /// Parses the types after an op's `:`. The operand types of a function type are read
    /// and dropped: operands already have their types, and checking them is the verifier's job.
    pub fn parse_op_signature(&mut self) -> Result<OpSignature, Diagnostic> {
        let operands = if self.eat_punct("(")? {
            let operands = self.comma_list(")", |p| p.parse_type())?;
            if !self.is_punct("->")? {
                // `(T)` without an arrow is not a function type; MLIR has no parenthesised
                // type lists elsewhere.
                return Err(self.expected("'->' after the operand types"));
            }
            operands
        } else {
            let mut list = vec![self.parse_type()?];
            while self.eat_punct(",")? {
                list.push(self.parse_type()?);
            }
            if !self.is_punct("->")? {
                return Ok(OpSignature::List(list));
            }
            list
        };
        self.expect_punct("->")?;
        Ok(OpSignature::Function {
            operands,
            results: self.parse_result_types()?,
        })
    }

    /// Parses result types after `->`: one type or a parenthesised list.
    pub fn parse_result_types(&mut self) -> Result<Vec<Type>, Diagnostic> {
        if self.eat_punct("(")? {
            self.comma_list(")", |p| p.parse_type())
        } else {
            Ok(vec![self.parse_type()?])
        }
    }
}

/// Element types MLIR has but Systolic does not (yet): the f8/f6/f4 families, tf32, and so on.
pub(crate) fn unsupported_element_type(name: &str) -> bool {
    name.starts_with("f8")
        || name.starts_with("f6")
        || name.starts_with("f4")
        || name == "tf32"
        || name == "f80"
        || name == "f128"
        || (name.starts_with('i') || name.starts_with("si") || name.starts_with("ui"))
            && name
                .trim_start_matches(['s', 'u', 'i'])
                .parse::<u32>()
                .is_ok()
}
