//! Generic attributes: numbers, strings, symbols, arrays, dictionaries, `array<i64: …>`,
//! `dense<…>` constants, types, shardings, and dialect attributes kept verbatim.
//!
//! Typed StableHLO attributes (`#stablehlo.gather<…>`, `#stablehlo<precision …>`, …) are parsed
//! here as [`Attribute::Opaque`] with their exact text; the op builder interprets the ones an op
//! needs (see `parse_stablehlo_attrs.rs`), and the rest print back unchanged.

use super::lexer::{Tok, Token};
use super::parse_sharding::{parse_hlo_sharding, parse_sdy_sharding_body};
use super::parser::Parser;
use crate::attrs::{Attribute, NamedAttr};
use crate::diag::Diagnostic;
use crate::dtype::DType;
use crate::numerics;
use crate::sharding::SdySharding;
use crate::types::{TensorType, Type};

impl<'a> Parser<'a> {
    /// `name = value` or a bare `name` (a unit attribute). Names may be quoted.
    pub fn parse_named_attr(&mut self) -> Result<NamedAttr, Diagnostic> {
        let t = self.peek()?;
        let name = match t.kind {
            Tok::Ident => {
                self.next()?;
                self.text(t).to_string()
            }
            Tok::Str => {
                self.next()?;
                self.string_value(t)?
            }
            _ => return Err(self.expected("an attribute name")),
        };
        if !self.eat_punct("=")? {
            return Ok(NamedAttr::new(name, Attribute::Unit));
        }
        let at = self.peek()?;
        let mut value = self.parse_attr()?;
        if name == "mhlo.sharding" {
            if let Attribute::String(s) = &value {
                let sharding = parse_hlo_sharding(s).map_err(|m| {
                    self.err_at(at, format!("malformed mhlo.sharding \"{s}\": {m}"))
                })?;
                value = Attribute::HloSharding(sharding);
            }
        }
        Ok(NamedAttr::new(name, value))
    }

    /// Parses one attribute value.
    pub fn parse_attr(&mut self) -> Result<Attribute, Diagnostic> {
        let t = self.peek()?;
        match t.kind {
            Tok::Int | Tok::Float => self.parse_number_attr(),
            Tok::Punct if self.text(t) == "-" => self.parse_number_attr(),
            Tok::Str => {
                self.next()?;
                let s = self.string_value(t)?;
                if self.is_punct(":")? {
                    // A typed string (`"…" : i32`) is rare; keep the type-less value.
                    self.next()?;
                    self.parse_attr_value_type()?;
                }
                Ok(Attribute::String(s))
            }
            Tok::SymbolRef => {
                self.next()?;
                let mut name = self.symbol_name(t)?;
                while self.eat_punct("::")? {
                    name.push_str("::");
                    name.push_str(&self.expect_symbol("a nested symbol '@name'")?);
                }
                Ok(Attribute::SymbolRef(name))
            }
            Tok::Punct if self.text(t) == "[" => {
                self.next()?;
                self.enter()?;
                let items = self.comma_list("]", |p| p.parse_attr())?;
                self.leave();
                Ok(Attribute::Array(items))
            }
            Tok::Punct if self.text(t) == "{" => {
                self.enter()?;
                let items = self.parse_attr_dict()?;
                self.leave();
                Ok(Attribute::Dict(items))
            }
            Tok::HashId => self.parse_hash_attr(),
            Tok::BangId => Ok(Attribute::Type(self.parse_type()?)),
            Tok::Ident => self.parse_keyword_attr(t),
            _ => Err(self.expected("an attribute value")),
        }
    }

    /// Attributes that start with a bare word: `true`, `unit`, `dense<…>`, `array<…>`, types.
    fn parse_keyword_attr(&mut self, t: Token) -> Result<Attribute, Diagnostic> {
        let word = self.text(t);
        match word {
            "true" | "false" => {
                self.next()?;
                Ok(Attribute::Bool(word == "true"))
            }
            "unit" => {
                self.next()?;
                Ok(Attribute::Unit)
            }
            "dense" if self.dense_of_index_type(t)? => {
                // `dense<[0, 1]> : tensor<2xindex>` (custom-call layouts): kept verbatim, as
                // `index` is not a tensor element type here.
                let end = self.lx.pos();
                Ok(Attribute::Opaque(self.lx.src()[t.start..end].to_string()))
            }
            "dense" => Ok(Attribute::Dense(self.parse_dense_attr()?)),
            "dense_resource" => Err(self.err_at(
                t,
                "dense_resource constants are not supported (their data is not in the text)",
            )),
            "array" => self.parse_dense_array(),
            "tensor" | "tuple" => Ok(Attribute::Type(self.parse_type()?)),
            _ if DType::from_mlir_name(word).is_some() => {
                self.next()?;
                let d = DType::from_mlir_name(word).unwrap_or(DType::F32);
                Ok(Attribute::Type(Type::Tensor(TensorType::scalar(d))))
            }
            "complex" => {
                let d = self.parse_element_type()?;
                Ok(Attribute::Type(Type::Tensor(TensorType::scalar(d))))
            }
            // tf32 names a precision in a dot algorithm (never an element type): kept as
            // its word for `dot_algorithm` to read; anywhere else the verifier's readers of
            // the attribute refuse it.
            "tf32" => {
                self.next()?;
                Ok(Attribute::Opaque(word.to_string()))
            }
            _ if super::parse_types::unsupported_element_type(word) => {
                Err(self.err_at(t, format!("element type '{word}' is not supported")))
            }
            _ if self.lx.src().as_bytes().get(t.end) == Some(&b'<') => {
                // `affine_map<…>`, `strided<…>` and other builtin attributes: kept verbatim.
                let end = self.lx.balanced_angle_end(t.end)?;
                self.lx.set_pos(end);
                Ok(Attribute::Opaque(self.lx.src()[t.start..end].to_string()))
            }
            _ => Err(self.expected("an attribute value")),
        }
    }

    /// Looks ahead from the word `dense` at `t`: if its type is `tensor<…xindex>`, moves past
    /// the whole attribute and returns true; otherwise moves nowhere and returns false.
    fn dense_of_index_type(&mut self, t: Token) -> Result<bool, Diagnostic> {
        let src = self.lx.src();
        if src.as_bytes().get(t.end) != Some(&b'<') {
            return Ok(false);
        }
        let body_end = self.lx.balanced_angle_end(t.end)?;
        let rest = &src[body_end..];
        let trimmed = rest.trim_start();
        let Some(after_colon) = trimmed.strip_prefix(':') else {
            return Ok(false);
        };
        let ty = after_colon.trim_start();
        let Some(angle) = ty.strip_prefix("tensor").filter(|r| r.starts_with('<')) else {
            return Ok(false);
        };
        let open = src.len() - angle.len();
        let end = self.lx.balanced_angle_end(open)?;
        if !src[open..end].ends_with("index>") {
            return Ok(false);
        }
        self.lx.set_pos(end);
        Ok(true)
    }

    /// `#alias`, `#dialect<…>`, `#dialect.name<…>`.
    fn parse_hash_attr(&mut self) -> Result<Attribute, Diagnostic> {
        let t = self.next()?;
        let name = self.text(t);
        if self.lx.src().as_bytes().get(t.end) != Some(&b'<') {
            return Ok(match self.attr_aliases.get(&name[1..]) {
                Some(a) => a.clone(),
                None => Attribute::Opaque(name.to_string()),
            });
        }
        let end = self.lx.balanced_angle_end(t.end)?;
        self.lx.set_pos(end);
        let text = &self.lx.src()[t.start..end];
        if name == "#sdy.sharding" {
            let body = &self.lx.src()[t.end + 1..end - 1];
            let sharding = parse_sdy_sharding_body(body)
                .map_err(|m| self.err_at(t, format!("malformed #sdy.sharding: {m}")))?;
            return Ok(Attribute::SdySharding(sharding));
        }
        if name == "#sdy.sharding_per_value" {
            // Kept as text, but each sharding in it must be well formed.
            let body = &self.lx.src()[t.end + 1..end - 1];
            parse_sharding_list(body)
                .map_err(|m| self.err_at(t, format!("malformed #sdy.sharding_per_value: {m}")))?;
        }
        Ok(Attribute::Opaque(text.to_string()))
    }

    /// A number with an optional `: type`: `3`, `-1 : i32`, `1.5 : f32`, `0x7F800000 : f32`.
    fn parse_number_attr(&mut self) -> Result<Attribute, Diagnostic> {
        let neg = self.eat_punct("-")?;
        let t = self.next()?;
        let ty = if self.eat_punct(":")? {
            self.parse_attr_value_type()?
        } else {
            None
        };
        let float_dtype = ty
            .as_ref()
            .and_then(Type::as_tensor)
            .map(|t| t.dtype)
            .filter(|d| d.is_float());
        match (t.kind, float_dtype) {
            (Tok::Float, _) => {
                let x: f64 = self
                    .text(t)
                    .parse()
                    .map_err(|_| self.err_at(t, "bad float literal"))?;
                // A typed float holds a value of its type (`1.0e-3 : f32` is the f32 nearest).
                let x = match float_dtype {
                    Some(DType::F32) => self.text(t).parse::<f32>().map_or(x, f64::from),
                    Some(d) => numerics::round_to(d, x),
                    None => x,
                };
                Ok(Attribute::Float(if neg { -x } else { x }, ty))
            }
            (Tok::Int, Some(d)) if self.text(t).starts_with("0x") => {
                let bits = self.parse_u64(t)?;
                let x = numerics::float_from_bits(d, bits);
                Ok(Attribute::Float(if neg { -x } else { x }, ty))
            }
            (Tok::Int, Some(_)) => {
                let x = self.parse_u64(t)? as f64;
                Ok(Attribute::Float(if neg { -x } else { x }, ty))
            }
            (Tok::Int, None) => {
                let v = self.parse_u64(t)?;
                let v = if neg {
                    if v > i64::MAX as u64 + 1 {
                        return Err(self.err_at(t, "integer literal is too small for 64 bits"));
                    }
                    (v as i64).wrapping_neg()
                } else {
                    v as i64
                };
                Ok(Attribute::Int(v, ty))
            }
            _ => Err(self.err_at(t, format!("expected a number, found {}", self.describe(t)))),
        }
    }

    /// The value of an unsigned integer token (decimal or `0x` hex).
    pub fn parse_u64(&self, t: Token) -> Result<u64, Diagnostic> {
        let s = self.text(t);
        let parsed = match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => s.parse::<u64>(),
        };
        parsed.map_err(|_| self.err_at(t, format!("integer literal {s} does not fit 64 bits")))
    }

    /// The type after a scalar attribute's `:`: `i64`, `f32`, `index` (dropped), a tensor type.
    fn parse_attr_value_type(&mut self) -> Result<Option<Type>, Diagnostic> {
        let t = self.peek()?;
        if t.kind == Tok::Ident {
            let word = self.text(t);
            if let Some(d) = DType::from_mlir_name(word) {
                self.next()?;
                return Ok(Some(Type::Tensor(TensorType::scalar(d))));
            }
            if word == "index" {
                self.next()?;
                return Ok(None);
            }
        }
        Ok(Some(self.parse_type()?))
    }

    /// An integer with an optional leading `-`, not followed by a type.
    pub fn parse_signed_int(&mut self) -> Result<i64, Diagnostic> {
        let neg = self.eat_punct("-")?;
        let t = self.peek()?;
        if t.kind != Tok::Int {
            return Err(self.expected("an integer"));
        }
        self.next()?;
        let v = self.parse_u64(t)?;
        if neg {
            if v > i64::MAX as u64 + 1 {
                return Err(self.err_at(t, "integer literal is too small for 64 bits"));
            }
            Ok((v as i64).wrapping_neg())
        } else if v > i64::MAX as u64 {
            Err(self.err_at(t, "integer literal is too large for i64"))
        } else {
            Ok(v as i64)
        }
    }

    /// `[1, -2, 3]`.
    pub fn parse_int_list(&mut self) -> Result<Vec<i64>, Diagnostic> {
        self.expect_punct("[")?;
        self.comma_list("]", |p| p.parse_signed_int())
    }

    /// `array<i64: 1, 2>`, `array<i1: true, false>`, `array<i64>`.
    fn parse_dense_array(&mut self) -> Result<Attribute, Diagnostic> {
        let kw = self.expect_keyword("array")?;
        self.expect_punct("<")?;
        let elem = self.expect_ident("an element type")?.to_string();
        let Some(dtype) = DType::from_mlir_name(&elem) else {
            return Err(self.err_at(kw, format!("array<{elem}: …> is not supported")));
        };
        if dtype.is_float() {
            // Float dense arrays do not occur in StableHLO ops; keep them verbatim.
            self.lx.set_pos(kw.start);
            let t = self.next()?;
            let end = self.lx.balanced_angle_end(t.end)?;
            self.lx.set_pos(end);
            return Ok(Attribute::Opaque(self.lx.src()[kw.start..end].to_string()));
        }
        let mut values = Vec::new();
        if self.eat_punct(":")? {
            loop {
                let t = self.peek()?;
                let v = if t.kind == Tok::Ident && matches!(self.text(t), "true" | "false") {
                    self.next()?;
                    (self.text(t) == "true") as i64
                } else {
                    self.parse_signed_int()?
                };
                values.push(v);
                if !self.eat_punct(",")? {
                    break;
                }
            }
        }
        self.expect_punct(">")?;
        Ok(Attribute::DenseArray(elem, values))
    }
}

/// The integers of an attribute that holds a list of them: `array<i64: …>`, `[1, 2]`, or a
/// (legacy) `dense<[…]> : tensor<Nxi64>`.
pub(crate) fn attr_int_list(a: &Attribute) -> Option<Vec<i64>> {
    match a {
        Attribute::DenseArray(_, v) => Some(v.clone()),
        Attribute::Array(items) => items
            .iter()
            .map(|i| match i {
                Attribute::Int(v, _) => Some(*v),
                _ => None,
            })
            .collect(),
        Attribute::Dense(t) if t.dtype().is_integer() => {
            let n = t.num_elements();
            (0..n)
                .map(|i| match t.get(i) {
                    crate::tensor::Scalar::Int(v) => Some(v),
                    crate::tensor::Scalar::UInt(v) => i64::try_from(v).ok(),
                    _ => None,
                })
                .collect()
        }
        _ => None,
    }
}

/// Parses the body of `#sdy.sharding_per_value<[<@mesh, […]>, …]>` (also the `[<…>, …]`
/// lists of `sdy.manual_computation`'s pretty form): a list of shardings.
pub(crate) fn parse_sharding_list(body: &str) -> Result<Vec<SdySharding>, String> {
    let inner = body
        .trim()
        .strip_prefix('[')
        .and_then(|b| b.strip_suffix(']'))
        .ok_or("expected a list '[<…>, …]'")?;
    // Split the list at top-level commas between `<…>` elements.
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = None;
    let mut separated = true;
    for (i, c) in inner.char_indices() {
        match c {
            '<' => {
                if depth == 0 {
                    if !separated {
                        return Err("expected ',' between shardings".to_string());
                    }
                    start = Some(i + 1);
                }
                depth += 1;
            }
            '>' => {
                depth -= 1;
                if depth == 0 {
                    let s = start.take().ok_or("unbalanced '>'")?;
                    out.push(parse_sdy_sharding_body(&inner[s..i])?);
                    separated = false;
                }
                if depth < 0 {
                    return Err("unbalanced '>'".to_string());
                }
            }
            ',' if depth == 0 => separated = true,
            ' ' | '\n' | '\t' if depth == 0 => {}
            _ if depth == 0 => return Err(format!("unexpected '{c}' between shardings")),
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unbalanced '<'".to_string());
    }
    Ok(out)
}
