//! One op statement: `%r:2, %s = <op> … loc(…)`.
//!
//! Both op forms end in the same [`RawOp`] (name, operands, regions, attribute dictionary,
//! result types); [`super::parse_build`] then turns the name and dictionary into an
//! [`OpKind`], and this file creates the result values and binds their names.
//!
//! - The generic form `"stablehlo.x"(%a, %b) <{props}> ({regions}) {attrs} : (T, T) -> T`.
//! - The pretty forms (`stablehlo.add %a, %b : T`, …) are in `parse_pretty.rs`.

use super::lexer::{Tok, Token};
use super::parse_build::build_kind;
use super::parse_pretty::unknown_op_message;
use super::parse_types::OpSignature;
use super::parser::Parser;
use super::resolve_dynamic::{self, DynamicOp};
use crate::attrs::NamedAttr;
use crate::diag::Diagnostic;
use crate::module::{Op, Region, ValueId};
use crate::ops::OpKind;
use crate::types::Type;

/// An op as read, before its kind is built.
#[derive(Default)]
pub(crate) struct RawOp {
    /// Full op name (`stablehlo.add`, `func.return`).
    pub name: String,
    /// Operands.
    pub operands: Vec<ValueId>,
    /// Regions.
    pub regions: Vec<Region>,
    /// Attributes (inherent and discardable), by their generic names.
    pub attrs: Vec<NamedAttr>,
    /// Result types.
    pub result_types: Vec<Type>,
    /// The kind, when a pretty parser builds it directly.
    pub kind: Option<OpKind>,
}

/// A group of results on the left of `=`: `%name` or `%name:N`.
struct ResultGroup {
    token: Token,
    name: String,
    count: usize,
}

impl Parser<'_> {
    /// Parses one op statement.
    pub fn parse_op(&mut self) -> Result<Op, Diagnostic> {
        let first = self.peek()?;
        let span = self.span_of(first);
        let groups = self.parse_result_groups()?;
        let n_results: usize = groups.iter().map(|g| g.count).sum();

        let name_tok = self.peek()?;
        let mut raw = match name_tok.kind {
            Tok::Str => {
                self.next()?;
                let name = self.string_value(name_tok)?;
                self.parse_generic_op(name, name_tok)?
            }
            Tok::Ident => {
                self.next()?;
                let name = match self.text(name_tok) {
                    "return" => "func.return",
                    "call" => "func.call",
                    other => other,
                };
                self.parse_pretty_op(name, name_tok, n_results)?
            }
            _ => return Err(self.expected("an op name")),
        };

        let op_name = raw.name.clone();
        let op_err = |p: &Self, msg: String| p.err_at(name_tok, msg).in_op(op_name.clone());
        if raw.kind.is_none() && resolve_dynamic::is_dynamic_op(&raw.name) {
            let dynamic = DynamicOp {
                name: &mut raw.name,
                operand_types: raw
                    .operands
                    .iter()
                    .map(|&v| self.func.value_type(v).clone())
                    .collect(),
                operands: &mut raw.operands,
                attrs: &mut raw.attrs,
                result_types: &raw.result_types,
            };
            if let Err(m) = resolve_dynamic::resolve(dynamic, &self.shape_constants) {
                return Err(op_err(self, m));
            }
        }
        let kind = match raw.kind.take() {
            Some(k) => k,
            None => match build_kind(&raw.name, &mut raw.attrs) {
                Ok(Some(k)) => k,
                Ok(None) => {
                    return Err(self.err_at(name_tok, unknown_op_message(&raw.name)));
                }
                Err(m) => return Err(op_err(self, m)),
            },
        };
        if raw.result_types.len() != n_results {
            return Err(op_err(
                self,
                format!(
                    "{} result name(s) on the left of '=' but {} result type(s)",
                    n_results,
                    raw.result_types.len()
                ),
            ));
        }
        let loc = self.parse_optional_loc()?;

        // Results are defined after the op's regions, which cannot see them. (The counts
        // match, checked above.)
        let mut results = Vec::with_capacity(n_results);
        let mut types = raw.result_types.into_iter();
        for g in &groups {
            let mut ids = Vec::with_capacity(g.count);
            for ty in types.by_ref().take(g.count) {
                ids.push(self.func.new_value(ty, Some(g.name.clone())));
            }
            if !self.scopes.define(&g.name, ids.clone()) {
                return Err(self.err_at(g.token, format!("redefinition of '%{}'", g.name)));
            }
            results.extend(ids);
        }
        if let (OpKind::Constant(t), [v]) = (&kind, results.as_slice()) {
            self.shape_constants.note(*v, t);
        }
        Ok(Op {
            kind,
            operands: raw.operands,
            results,
            regions: raw.regions,
            attrs: raw.attrs,
            loc,
            span: Some(span),
        })
    }

    /// `%a, %b:2 =` (or nothing).
    fn parse_result_groups(&mut self) -> Result<Vec<ResultGroup>, Diagnostic> {
        let mut groups = Vec::new();
        if self.peek()?.kind != Tok::ValueId {
            return Ok(groups);
        }
        loop {
            let t = self.peek()?;
            if t.kind != Tok::ValueId {
                return Err(self.expected("a result name '%name'"));
            }
            self.next()?;
            let name = self.text(t)[1..].to_string();
            if name.contains('#') {
                return Err(self.err_at(t, format!("bad result name '%{name}'")));
            }
            let count = if self.eat_punct(":")? {
                let c = self.peek()?;
                if c.kind != Tok::Int {
                    return Err(self.expected("a result count"));
                }
                self.next()?;
                let n = self.parse_u64(c)?;
                if n == 0 || n > 1 << 16 {
                    return Err(self.err_at(c, format!("bad result count {n}")));
                }
                n as usize
            } else {
                1
            };
            groups.push(ResultGroup {
                token: t,
                name,
                count,
            });
            if !self.eat_punct(",")? {
                break;
            }
        }
        self.expect_punct("=")?;
        Ok(groups)
    }

    /// The generic form after the quoted name.
    fn parse_generic_op(&mut self, name: String, name_tok: Token) -> Result<RawOp, Diagnostic> {
        if !super::parse_pretty::is_known_op(&name) {
            return Err(self.err_at(name_tok, unknown_op_message(&name)));
        }
        let mut raw = RawOp {
            name,
            ..RawOp::default()
        };
        self.expect_punct("(")?;
        raw.operands = self.comma_list(")", |p| p.parse_value_use())?;
        if self.is_punct("[")? {
            return Err(self.err_at(name_tok, "ops with successor blocks are not supported"));
        }
        if self.eat_punct("<")? {
            // `<{properties}>`.
            raw.attrs = self.parse_attr_dict()?;
            self.expect_punct(">")?;
        }
        if self.is_punct("(")? {
            self.next()?;
            self.enter()?;
            raw.regions = self.comma_list(")", |p| p.parse_region(&[]))?;
            self.leave();
        }
        if self.is_punct("{")? {
            let more = self.parse_attr_dict()?;
            raw.attrs.extend(more);
        }
        let colon = self.peek()?;
        self.expect_punct(":")?;
        match self.parse_op_signature()? {
            OpSignature::Function { operands, results } => {
                self.check_operand_types(colon, &raw.operands, &operands)?;
                raw.result_types = results;
            }
            OpSignature::List(_) => {
                return Err(self.expected("'->' (a generic op needs a function type)"));
            }
        }
        Ok(raw)
    }

    /// Checks the operand types a signature declares against the operands' real types (MLIR
    /// rejects a contradiction; ignoring it would run the op on other types than the text
    /// says). Only a signature that lists every operand is compared.
    pub fn check_operand_types(
        &self,
        at: Token,
        operands: &[ValueId],
        declared: &[Type],
    ) -> Result<(), Diagnostic> {
        if operands.len() != declared.len() {
            return Ok(());
        }
        for (i, (&v, want)) in operands.iter().zip(declared).enumerate() {
            let have = self.func.value_type(v);
            if have != want {
                let name = self
                    .func
                    .values
                    .get(v.index())
                    .and_then(|d| d.name.clone())
                    .map_or_else(String::new, |n| format!(" (%{n})"));
                return Err(self.err_at(
                    at,
                    format!("operand #{i}{name} has type {have}, but the op's types say {want}"),
                ));
            }
        }
        Ok(())
    }

    /// Parses the optional attribute dictionary and the `: types` that end most pretty forms,
    /// and works out the result types: from `-> results` when written, otherwise the last
    /// `n_results` types of the list (`: T` for elementwise ops, `: tensor<i1>, T` for select,
    /// `: T1, T2` for multi-result ops).
    pub fn parse_pretty_tail(
        &mut self,
        raw: &mut RawOp,
        n_results: usize,
    ) -> Result<(), Diagnostic> {
        if self.is_punct("{")? {
            let more = self.parse_attr_dict()?;
            raw.attrs.extend(more);
        }
        if !self.is_punct(":")? {
            if n_results > 0 {
                return Err(self.expected("':' and the op's types"));
            }
            return Ok(());
        }
        let colon = self.next()?;
        raw.result_types = match self.parse_op_signature()? {
            OpSignature::Function { operands, results } => {
                self.check_operand_types(colon, &raw.operands, &operands)?;
                results
            }
            OpSignature::List(list) => {
                if n_results == 0 {
                    // `return %a, %b : T1, T2`: the list is the operands' types.
                    self.check_operand_types(colon, &raw.operands, &list)?;
                    vec![]
                } else if list.len() >= n_results {
                    list[list.len() - n_results..].to_vec()
                } else {
                    return Err(self.err_at(
                        colon,
                        format!(
                            "{n_results} results but only {} type(s) after ':'",
                            list.len()
                        ),
                    ));
                }
            }
        };
        Ok(())
    }

    /// Zero or more comma-separated value uses; stops before a `,` not followed by a value.
    pub fn parse_operands(&mut self) -> Result<Vec<ValueId>, Diagnostic> {
        let mut out = Vec::new();
        if self.peek()?.kind != Tok::ValueId {
            return Ok(out);
        }
        out.push(self.parse_value_use()?);
        loop {
            let save = self.lx.pos();
            if !self.eat_punct(",")? {
                break;
            }
            if self.peek()?.kind != Tok::ValueId {
                self.lx.set_pos(save);
                break;
            }
            out.push(self.parse_value_use()?);
        }
        Ok(out)
    }

    /// Consumes `, kw =` if it is next; otherwise consumes nothing.
    pub fn eat_comma_kw(&mut self, kw: &str) -> Result<bool, Diagnostic> {
        let save = self.lx.pos();
        if self.eat_punct(",")? && self.eat_keyword(kw)? && self.eat_punct("=")? {
            return Ok(true);
        }
        self.lx.set_pos(save);
        Ok(false)
    }

    /// Consumes `, kw =` or fails.
    pub fn expect_comma_kw(&mut self, kw: &str) -> Result<(), Diagnostic> {
        if self.eat_comma_kw(kw)? {
            Ok(())
        } else {
            Err(self.expected(&format!("', {kw} ='")))
        }
    }

    /// Consumes `kw =` or fails.
    pub fn expect_kw_eq(&mut self, kw: &str) -> Result<(), Diagnostic> {
        self.expect_keyword(kw)?;
        self.expect_punct("=")?;
        Ok(())
    }
}
