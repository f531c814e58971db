//! The pretty (custom) op forms the StableHLO, CHLO, func and check printers write, e.g.
//! `stablehlo.broadcast_in_dim %x, dims = [0] : (T) -> U`, `stablehlo.compare LT, %a, %b, FLOAT`,
//! `stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1]`,
//! `stablehlo.while(%iterArg = %x) : T cond {…} do {…}`.
//!
//! Each form is read into the op's generic attribute names (`dims = [0]` becomes
//! `broadcast_dimensions = array<i64: 0>`), so that one builder makes every [`OpKind`].

use super::lexer::Tok;
use super::parse_build::build_kind;
use super::parse_ops::RawOp;
use super::parse_sharding::{parse_axis_names, parse_sdy_sharding_body};
use super::parse_types::OpSignature;
use super::parser::Parser;
use crate::attrs::{Attribute, NamedAttr};
use crate::diag::Diagnostic;
use crate::dtype::DType;
use crate::module::{Block, Op, Region};
use crate::ops::{OpKind, ReturnKind};
use crate::sharding::{ManualComputationAttrs, SdySharding};
use crate::types::{TensorType, Type};

fn ints_attr(v: Vec<i64>) -> Attribute {
    Attribute::DenseArray("i64".to_string(), v)
}

fn int_attr(v: i64) -> Attribute {
    Attribute::Int(v, Some(Type::Tensor(TensorType::scalar(DType::I64))))
}

fn enum_attr(kind: &str, kw: &str) -> Attribute {
    Attribute::Opaque(format!("#stablehlo<{kind} {kw}>"))
}

fn fmt_list(v: &[i64]) -> String {
    format!("{v:?}")
}

/// The error for an op name the IR does not model, with a hint where one helps.
pub(crate) fn unknown_op_message(name: &str) -> String {
    if name.starts_with("sdy.") {
        format!(
            "unknown op '{name}' (of Shardy, the IR models sdy.mesh, sdy.manual_computation, \
             sdy.sharding_constraint and sdy.return; exporting with \
             jax_use_shardy_partitioner=False gives mhlo.sharding annotations instead)"
        )
    } else {
        format!("unknown op '{name}'")
    }
}

/// True when `name` is an op the builder knows (missing attributes still count as known).
pub(crate) fn is_known_op(name: &str) -> bool {
    super::resolve_dynamic::is_dynamic_op(name)
        || !matches!(build_kind(name, &mut Vec::new()), Ok(None))
}

impl Parser<'_> {
    /// Parses the pretty form of op `name` (its name token is consumed).
    pub fn parse_pretty_op(
        &mut self,
        name: &str,
        name_tok: super::lexer::Token,
        n_results: usize,
    ) -> Result<RawOp, Diagnostic> {
        if !is_known_op(name) {
            return Err(self.err_at(name_tok, unknown_op_message(name)));
        }
        let mut raw = RawOp {
            name: name.to_string(),
            ..RawOp::default()
        };
        let attr = |raw: &mut RawOp, n: &str, v: Attribute| raw.attrs.push(NamedAttr::new(n, v));
        let short = name.split_once('.').map_or(name, |(_, s)| s);
        match name {
            "stablehlo.constant" => return self.parse_pretty_constant(raw),
            "stablehlo.dynamic_iota" => {
                // `stablehlo.dynamic_iota %shape, dim = 0 : (T) -> U`.
                raw.operands = self.parse_operands()?;
                self.expect_comma_kw("dim")?;
                let d = self.parse_signed_int()?;
                attr(&mut raw, "iota_dimension", int_attr(d));
            }
            "stablehlo.iota" => {
                self.expect_kw_eq("dim")?;
                let d = self.parse_signed_int()?;
                attr(&mut raw, "iota_dimension", int_attr(d));
            }
            "stablehlo.broadcast_in_dim" | "stablehlo.transpose" | "stablehlo.reverse" => {
                raw.operands = self.parse_operands()?;
                self.expect_comma_kw("dims")?;
                let dims = self.parse_int_list()?;
                let key = match short {
                    "broadcast_in_dim" => "broadcast_dimensions",
                    "transpose" => "permutation",
                    _ => "dimensions",
                };
                attr(&mut raw, key, ints_attr(dims));
            }
            "stablehlo.broadcast" => {
                raw.operands = self.parse_operands()?;
                self.expect_comma_kw("sizes")?;
                let sizes = self.parse_int_list()?;
                attr(&mut raw, "broadcast_sizes", ints_attr(sizes));
            }
            "stablehlo.dynamic_slice" => {
                raw.operands = self.parse_operands()?;
                self.expect_comma_kw("sizes")?;
                let sizes = self.parse_int_list()?;
                attr(&mut raw, "slice_sizes", ints_attr(sizes));
            }
            "stablehlo.concatenate" | "stablehlo.get_dimension_size" => {
                raw.operands = self.parse_operands()?;
                self.expect_comma_kw("dim")?;
                let d = self.parse_signed_int()?;
                attr(&mut raw, "dimension", int_attr(d));
            }
            "stablehlo.pad" => {
                raw.operands = self.parse_operands()?;
                for (kw, key) in [
                    ("low", "edge_padding_low"),
                    ("high", "edge_padding_high"),
                    ("interior", "interior_padding"),
                ] {
                    self.expect_comma_kw(kw)?;
                    let v = self.parse_int_list()?;
                    attr(&mut raw, key, ints_attr(v));
                }
            }
            "stablehlo.slice" => {
                raw.operands = self.parse_operands()?;
                if self.eat_comma_kw("starts")? {
                    // An older spelling: `, starts = […], limits = […], strides = […]`.
                    let s = self.parse_int_list()?;
                    self.expect_comma_kw("limits")?;
                    let l = self.parse_int_list()?;
                    self.expect_comma_kw("strides")?;
                    let st = self.parse_int_list()?;
                    attr(&mut raw, "start_indices", ints_attr(s));
                    attr(&mut raw, "limit_indices", ints_attr(l));
                    attr(&mut raw, "strides", ints_attr(st));
                } else {
                    self.expect_punct("[")?;
                    let ranges = self.comma_list("]", |p| {
                        let start = p.parse_signed_int()?;
                        p.expect_punct(":")?;
                        let limit = p.parse_signed_int()?;
                        let stride = if p.eat_punct(":")? {
                            p.parse_signed_int()?
                        } else {
                            1
                        };
                        Ok((start, limit, stride))
                    })?;
                    attr(
                        &mut raw,
                        "start_indices",
                        ints_attr(ranges.iter().map(|r| r.0).collect()),
                    );
                    attr(
                        &mut raw,
                        "limit_indices",
                        ints_attr(ranges.iter().map(|r| r.1).collect()),
                    );
                    attr(
                        &mut raw,
                        "strides",
                        ints_attr(ranges.iter().map(|r| r.2).collect()),
                    );
                }
            }
            "stablehlo.get_tuple_element" => {
                raw.operands = self.parse_operands()?;
                self.expect_punct("[")?;
                let i = self.parse_signed_int()?;
                self.expect_punct("]")?;
                attr(&mut raw, "index", int_attr(i));
            }
            "stablehlo.compare" => {
                let dir = self.expect_ident("a comparison direction (EQ, NE, LT, …)")?;
                attr(
                    &mut raw,
                    "comparison_direction",
                    enum_attr("comparison_direction", dir),
                );
                self.expect_punct(",")?;
                raw.operands = self.parse_operands()?;
                if self.eat_punct(",")? {
                    let ty = self.expect_ident("a comparison type (FLOAT, SIGNED, …)")?;
                    attr(&mut raw, "compare_type", enum_attr("comparison_type", ty));
                }
            }
            "stablehlo.reduce_precision" => {
                raw.operands = self.parse_operands()?;
                self.expect_comma_kw("format")?;
                let t = self.peek()?;
                let fmt = self.expect_ident("a format 'eXmY'")?;
                let (e, m) = fmt
                    .strip_prefix('e')
                    .and_then(|r| r.split_once('m'))
                    .and_then(|(e, m)| Some((e.parse::<i64>().ok()?, m.parse::<i64>().ok()?)))
                    .ok_or_else(|| self.err_at(t, format!("bad format '{fmt}', expected eXmY")))?;
                attr(&mut raw, "exponent_bits", int_attr(e));
                attr(&mut raw, "mantissa_bits", int_attr(m));
            }
            "stablehlo.cholesky" => {
                raw.operands = self.parse_operands()?;
                if self.eat_comma_kw("lower")? {
                    let v = self.parse_attr()?;
                    attr(&mut raw, "lower", v);
                }
            }
            "stablehlo.dot" => {
                raw.operands = self.parse_operands()?;
                self.parse_precision_kw(&mut raw)?;
            }
            "stablehlo.dot_general" => self.parse_pretty_dot_general(&mut raw)?,
            "stablehlo.convolution" => self.parse_pretty_convolution(&mut raw)?,
            "stablehlo.rng_bit_generator" | "stablehlo.rng" | "stablehlo.fft" => {
                raw.operands = self.parse_operands()?;
                match short {
                    "rng_bit_generator" => {
                        self.expect_comma_kw("algorithm")?;
                        let kw = self.expect_ident("an RNG algorithm")?;
                        attr(&mut raw, "rng_algorithm", enum_attr("rng_algorithm", kw));
                    }
                    "rng" => {
                        self.expect_comma_kw("distribution")?;
                        let kw = self.expect_ident("an RNG distribution")?;
                        attr(
                            &mut raw,
                            "rng_distribution",
                            enum_attr("rng_distribution", kw),
                        );
                    }
                    _ => {
                        self.expect_comma_kw("type")?;
                        let kw = self.expect_ident("an FFT type")?;
                        attr(&mut raw, "fft_type", enum_attr("fft_type", kw));
                        self.expect_comma_kw("length")?;
                        let v = self.parse_int_list()?;
                        attr(&mut raw, "fft_length", ints_attr(v));
                    }
                }
            }
            "stablehlo.reduce" => return self.parse_pretty_reduce(raw, n_results),
            "stablehlo.while" => return self.parse_pretty_while(raw, n_results),
            "chlo.scan" => return self.parse_pretty_scan(raw),
            "sdy.manual_computation" => return self.parse_pretty_manual_computation(raw),
            "sdy.sharding_constraint" => {
                raw.operands = self.parse_operands()?;
                let (sharding, _) = self.parse_angle_sharding()?;
                raw.kind = Some(OpKind::ShardingConstraint(Box::new(sharding)));
            }
            "stablehlo.custom_call" | "func.call" => {
                let target = self.expect_symbol("a callee '@name'")?;
                if short == "call" {
                    attr(&mut raw, "callee", Attribute::SymbolRef(target));
                } else {
                    attr(&mut raw, "call_target_name", Attribute::String(target));
                }
                self.expect_punct("(")?;
                raw.operands = self.comma_list(")", |p| p.parse_value_use())?;
            }
            "stablehlo.composite" => {
                let n = self.expect_string("the composite name")?;
                attr(&mut raw, "name", Attribute::String(n));
                raw.operands = self.parse_operands()?;
            }
            "chlo.top_k" => {
                self.expect_punct("(")?;
                raw.operands = self.parse_operands()?;
                self.expect_comma_kw("k")?;
                let k = self.parse_signed_int()?;
                attr(&mut raw, "k", int_attr(k));
                if self.eat_comma_kw("largest")? {
                    let v = self.parse_attr()?;
                    attr(&mut raw, "largest", v);
                }
                self.expect_punct(")")?;
            }
            _ if name.starts_with("check.") || name == "interpreter.probe" => {
                self.parse_pretty_check(&mut raw)?
            }
            "stablehlo.optimization_barrier" if self.is_punct("(")? => {
                // `stablehlo.optimization_barrier()`: no operands at all.
                self.next()?;
                self.expect_punct(")")?;
            }
            _ => {
                // `operands attr-dict : types`: elementwise ops, select, clamp, convert,
                // reshape, tuple, return, optimization_barrier, and any op written this way
                // with its attributes in the dictionary.
                raw.operands = self.parse_operands()?;
            }
        }
        self.parse_pretty_tail(&mut raw, n_results)?;
        Ok(raw)
    }

    /// `stablehlo.constant [{attrs}] dense<…> : T` (or `() <{value = …}> : () -> T`).
    fn parse_pretty_constant(&mut self, mut raw: RawOp) -> Result<RawOp, Diagnostic> {
        if self.eat_punct("(")? {
            self.expect_punct(")")?;
            if self.eat_punct("<")? {
                raw.attrs = self.parse_attr_dict()?;
                self.expect_punct(">")?;
            }
            self.parse_pretty_tail(&mut raw, 1)?;
            return Ok(raw);
        }
        if self.is_punct("{")? {
            raw.attrs = self.parse_attr_dict()?;
        }
        let at = self.peek()?;
        let value = self.parse_attr()?;
        let Attribute::Dense(t) = value else {
            return Err(self.err_at(at, "expected a dense<…> constant"));
        };
        raw.result_types = vec![Type::Tensor(t.ty().clone())];
        raw.kind = Some(OpKind::Constant(t));
        Ok(raw)
    }

    /// `, precision = [DEFAULT, HIGH]` if present.
    fn parse_precision_kw(&mut self, raw: &mut RawOp) -> Result<(), Diagnostic> {
        if self.eat_comma_kw("precision")? {
            self.expect_punct("[")?;
            let kws = self.comma_list("]", |p| Ok(p.expect_ident("a precision")?.to_string()))?;
            let list = kws
                .iter()
                .map(|k| enum_attr("precision", k))
                .collect::<Vec<_>>();
            raw.attrs
                .push(NamedAttr::new("precision_config", Attribute::Array(list)));
        }
        Ok(())
    }

    /// `%a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = […],
    /// algorithm = <…>`.
    fn parse_pretty_dot_general(&mut self, raw: &mut RawOp) -> Result<(), Diagnostic> {
        raw.operands = self.parse_operands()?;
        let pair = |p: &mut Self| -> Result<(Vec<i64>, Vec<i64>), Diagnostic> {
            let l = p.parse_int_list()?;
            p.expect_keyword("x")?;
            let r = p.parse_int_list()?;
            Ok((l, r))
        };
        let (lb, rb) = if self.eat_comma_kw("batching_dims")? {
            pair(self)?
        } else {
            (vec![], vec![])
        };
        self.expect_comma_kw("contracting_dims")?;
        let (lc, rc) = pair(self)?;
        raw.attrs.push(NamedAttr::new(
            "dot_dimension_numbers",
            Attribute::Opaque(format!(
                "#stablehlo.dot<lhs_batching_dimensions = {}, rhs_batching_dimensions = {}, \
                 lhs_contracting_dimensions = {}, rhs_contracting_dimensions = {}>",
                fmt_list(&lb),
                fmt_list(&rb),
                fmt_list(&lc),
                fmt_list(&rc)
            )),
        ));
        self.parse_precision_kw(raw)?;
        if self.eat_comma_kw("algorithm")? {
            let open = self.expect_punct("<")?;
            let end = self.lx.balanced_angle_end(open.start)?;
            let body = &self.lx.src()[open.start..end];
            self.lx.set_pos(end);
            raw.attrs.push(NamedAttr::new(
                "algorithm",
                Attribute::Opaque(format!("#stablehlo.dot_algorithm{body}")),
            ));
        }
        Ok(())
    }

    /// `(%a, %b) dim_numbers = […]x[…]->[…], window = {stride = …, pad = …, lhs_dilate = …,
    /// rhs_dilate = …, reverse = …}`.
    fn parse_pretty_convolution(&mut self, raw: &mut RawOp) -> Result<(), Diagnostic> {
        self.expect_punct("(")?;
        raw.operands = self.comma_list(")", |p| p.parse_value_use())?;
        self.expect_kw_eq("dim_numbers")?;
        let start = self.peek()?.start;
        self.parse_conv_dims_compact()?;
        let end = self.lx.pos();
        let text = self.lx.src()[start..end].trim_end().to_string();
        raw.attrs.push(NamedAttr::new(
            "dimension_numbers",
            Attribute::Opaque(format!("#stablehlo.conv<{text}>")),
        ));
        if self.eat_comma_kw("window")? {
            self.expect_punct("{")?;
            let fields = self.comma_list("}", |p| {
                let key = p.expect_ident("a window field")?.to_string();
                p.expect_punct("=")?;
                let value = p.parse_attr()?;
                Ok((key, value))
            })?;
            for (key, value) in fields {
                let name = match key.as_str() {
                    "stride" => "window_strides",
                    "pad" => "padding",
                    "lhs_dilate" => "lhs_dilation",
                    "rhs_dilate" => "rhs_dilation",
                    "reverse" => "window_reversal",
                    other => {
                        return Err(self.expected(&format!(
                            "a window field (stride, pad, lhs_dilate, rhs_dilate, reverse), not '{other}'"
                        )))
                    }
                };
                let value = match (name, value) {
                    ("window_reversal", Attribute::Array(items)) => Attribute::Array(
                        items
                            .into_iter()
                            .map(|a| match a {
                                Attribute::Int(v, _) => Attribute::Bool(v != 0),
                                other => other,
                            })
                            .collect(),
                    ),
                    (_, v) => v,
                };
                raw.attrs.push(NamedAttr::new(name, value));
            }
        }
        Ok(())
    }

    /// Both pretty forms of `reduce`.
    fn parse_pretty_reduce(
        &mut self,
        mut raw: RawOp,
        n_results: usize,
    ) -> Result<RawOp, Diagnostic> {
        let mut inputs = Vec::new();
        let mut inits = Vec::new();
        loop {
            self.expect_punct("(")?;
            inputs.push(self.parse_value_use()?);
            self.expect_keyword("init")?;
            self.expect_punct(":")?;
            inits.push(self.parse_value_use()?);
            self.expect_punct(")")?;
            if !self.eat_punct(",")? {
                break;
            }
        }
        raw.operands = inputs.iter().chain(&inits).copied().collect();
        let applies = if self.eat_keyword("applies")? {
            let t = self.peek()?;
            let inner = self.expect_ident("the reduction op (e.g. stablehlo.add)")?;
            Some((t, inner.to_string()))
        } else {
            None
        };
        self.expect_keyword("across")?;
        self.expect_kw_eq("dimensions")?;
        let dims = self.parse_int_list()?;
        raw.attrs
            .push(NamedAttr::new("dimensions", ints_attr(dims)));
        self.parse_pretty_tail(&mut raw, n_results)?;

        let init_types: Vec<Type> = inits
            .iter()
            .map(|&v| self.func.value_type(v).clone())
            .collect();
        if let Some((t, inner)) = applies {
            // The body is `inner(acc, x)` on scalars, returned.
            let kind = match build_kind(&inner, &mut Vec::new()) {
                Ok(Some(k)) if init_types.len() == 1 => k,
                Ok(Some(_)) => {
                    return Err(self.err_at(
                        t,
                        "'applies' needs exactly one input (use the 'reducer' form for more)",
                    ))
                }
                _ => return Err(self.err_at(t, format!("'{inner}' cannot be a reduction body"))),
            };
            let ty = init_types[0].clone();
            let a = self.func.new_value(ty.clone(), None);
            let b = self.func.new_value(ty.clone(), None);
            let r = self.func.new_value(ty, None);
            let mut op = Op::new(kind, vec![a, b], vec![r]);
            op.span = Some(self.span_of(t));
            let ret = Op::new(OpKind::Return(ReturnKind::Stablehlo), vec![r], vec![]);
            raw.regions = vec![Region::single(Block {
                args: vec![a, b],
                ops: vec![op, ret],
            })];
        } else {
            // `reducer(%a: T, %b: T) (%c: U, %d: U) { … }`: block args are the first of each
            // pair, then the second of each pair.
            self.expect_keyword("reducer")?;
            let mut firsts = Vec::new();
            let mut seconds = Vec::new();
            while self.eat_punct("(")? {
                let mut pair = Vec::new();
                for i in 0..2 {
                    if i == 1 {
                        self.expect_punct(",")?;
                    }
                    let t = self.peek()?;
                    if t.kind != Tok::ValueId {
                        return Err(self.expected("a reducer argument '%name'"));
                    }
                    self.next()?;
                    self.expect_punct(":")?;
                    let ty = self.parse_type()?;
                    self.parse_optional_loc()?;
                    pair.push((self.text(t)[1..].to_string(), ty));
                }
                self.expect_punct(")")?;
                seconds.push(pair.pop().unwrap_or_else(|| (String::new(), Type::Token)));
                firsts.push(pair.pop().unwrap_or_else(|| (String::new(), Type::Token)));
            }
            firsts.extend(seconds);
            raw.regions = vec![self.parse_region(&firsts)?];
        }
        Ok(raw)
    }

    /// `stablehlo.while(%iterArg = %x, …) : T, … [attributes {…}] cond {…} do {…}`.
    fn parse_pretty_while(
        &mut self,
        mut raw: RawOp,
        n_results: usize,
    ) -> Result<RawOp, Diagnostic> {
        self.expect_punct("(")?;
        let pairs = self.comma_list(")", |p| {
            let t = p.peek()?;
            if t.kind != Tok::ValueId {
                return Err(p.expected("a loop variable '%name = %value'"));
            }
            p.next()?;
            p.expect_punct("=")?;
            let v = p.parse_value_use()?;
            Ok((p.text(t)[1..].to_string(), v))
        })?;
        raw.operands = pairs.iter().map(|(_, v)| *v).collect();
        let mut types = Vec::new();
        if self.eat_punct(":")? {
            types.push(self.parse_type()?);
            while self.eat_punct(",")? {
                types.push(self.parse_type()?);
            }
        }
        if types.len() != pairs.len() {
            return Err(self.expected(&format!(
                "{} loop variable types after ':' (found {})",
                pairs.len(),
                types.len()
            )));
        }
        if self.eat_keyword("attributes")? {
            let more = self.parse_attr_dict()?;
            raw.attrs.extend(more);
        }
        let args: Vec<(String, Type)> = pairs
            .iter()
            .map(|(n, _)| n.clone())
            .zip(types.iter().cloned())
            .collect();
        self.expect_keyword("cond")?;
        let cond = self.parse_region(&args)?;
        self.expect_keyword("do")?;
        let body = self.parse_region(&args)?;
        raw.regions = vec![cond, body];
        raw.result_types = if n_results == 0 { vec![] } else { types };
        Ok(raw)
    }

    /// `chlo.scan(%in…) inits(%init…) dimension = D [attributes {…}] { ^bb0(…): … } :
    /// (T…) -> (U…)`. The segment sizes the generic form states come from the two lists and
    /// the number of inits (the carries).
    fn parse_pretty_scan(&mut self, mut raw: RawOp) -> Result<RawOp, Diagnostic> {
        self.expect_punct("(")?;
        let inputs = self.comma_list(")", |p| p.parse_value_use())?;
        self.expect_keyword("inits")?;
        self.expect_punct("(")?;
        let inits = self.comma_list(")", |p| p.parse_value_use())?;
        self.expect_kw_eq("dimension")?;
        let d = self.parse_signed_int()?;
        if self.eat_keyword("attributes")? {
            let more = self.parse_attr_dict()?;
            raw.attrs.extend(more);
        }
        let body = self.parse_region(&[])?;
        let colon = self.peek()?;
        self.expect_punct(":")?;
        let (operand_types, results) = match self.parse_op_signature()? {
            OpSignature::Function { operands, results } => (operands, results),
            OpSignature::List(_) => return Err(self.expected("'->' and the result types")),
        };
        let (n_in, n_init) = (inputs.len() as i64, inits.len() as i64);
        raw.operands = inputs.into_iter().chain(inits).collect();
        self.check_operand_types(colon, &raw.operands, &operand_types)?;
        let outputs = results.len() as i64 - n_init;
        raw.attrs.push(NamedAttr::new("dimension", int_attr(d)));
        raw.attrs.push(NamedAttr::new(
            "operandSegmentSizes",
            Attribute::DenseArray("i32".to_string(), vec![n_in, n_init]),
        ));
        raw.attrs.push(NamedAttr::new(
            "resultSegmentSizes",
            Attribute::DenseArray("i32".to_string(), vec![outputs.max(0), n_init]),
        ));
        raw.result_types = results;
        raw.regions = vec![body];
        Ok(raw)
    }

    /// `<@mesh, [{"x"}, {}]>`: a Shardy sharding without its `#sdy.sharding` prefix, as
    /// `sdy.sharding_constraint` and the lists of `sdy.manual_computation` write it.
    fn parse_angle_sharding(&mut self) -> Result<(SdySharding, super::lexer::Token), Diagnostic> {
        let open = self.peek()?;
        if !(open.kind == Tok::Punct && self.text(open) == "<") {
            return Err(self.expected("a sharding '<@mesh, [...]>'"));
        }
        let end = self.lx.balanced_angle_end(open.start)?;
        let body = &self.lx.src()[open.start + 1..end - 1];
        let sharding = parse_sdy_sharding_body(body)
            .map_err(|m| self.err_at(open, format!("malformed sharding: {m}")))?;
        self.lx.set_pos(end);
        Ok((sharding, open))
    }

    /// `[<@mesh, […]>, …]`: the shardings of `in_shardings=`/`out_shardings=`.
    fn parse_sharding_list_syntax(&mut self) -> Result<Vec<SdySharding>, Diagnostic> {
        self.expect_punct("[")?;
        self.comma_list("]", |p| Ok(p.parse_angle_sharding()?.0))
    }

    /// `sdy.manual_computation(%x, …) in_shardings=[<…>, …] out_shardings=[<…>, …]
    /// manual_axes={"x", …} (%local: T, …) {body} [{attrs}] : (G, …) -> (R, …)`.
    fn parse_pretty_manual_computation(&mut self, mut raw: RawOp) -> Result<RawOp, Diagnostic> {
        self.expect_punct("(")?;
        raw.operands = self.comma_list(")", |p| p.parse_value_use())?;
        self.expect_kw_eq("in_shardings")?;
        let in_shardings = self.parse_sharding_list_syntax()?;
        self.expect_kw_eq("out_shardings")?;
        let out_shardings = self.parse_sharding_list_syntax()?;
        self.expect_kw_eq("manual_axes")?;
        let open = self.peek()?;
        if !(open.kind == Tok::Punct && self.text(open) == "{") {
            return Err(self.expected("the manual axes '{\"x\", …}'"));
        }
        let end = self.lx.balanced_angle_end(open.start)?;
        let manual_axes = parse_axis_names(&self.lx.src()[open.start..end])
            .map_err(|m| self.err_at(open, format!("malformed manual_axes: {m}")))?;
        self.lx.set_pos(end);
        self.expect_punct("(")?;
        let args = self.comma_list(")", |p| {
            let t = p.peek()?;
            if t.kind != Tok::ValueId {
                return Err(p.expected("a body argument '%name: type'"));
            }
            p.next()?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            Ok((p.text(t)[1..].to_string(), ty))
        })?;
        raw.regions = vec![self.parse_region(&args)?];
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
                return Err(self.expected("'->' (the operands' and results' global types)"));
            }
        }
        raw.kind = Some(OpKind::ManualComputation(Box::new(
            ManualComputationAttrs {
                in_shardings,
                out_shardings,
                manual_axes,
            },
        )));
        Ok(raw)
    }

    /// `check.expect_* %a[, %b][, dense<…> : T][, key = value]* [: types]`.
    fn parse_pretty_check(&mut self, raw: &mut RawOp) -> Result<(), Diagnostic> {
        let paren = self.eat_punct("(")?;
        raw.operands = self.parse_operands()?;
        while self.eat_punct(",")? {
            if self.is_keyword("dense")? {
                let t = self.parse_dense_attr()?;
                raw.attrs.push(NamedAttr::new("value", Attribute::Dense(t)));
                continue;
            }
            let key = self.expect_ident("a check option (tolerance, max_ulp_difference, …)")?;
            self.expect_punct("=")?;
            let value = self.parse_check_value()?;
            raw.attrs.push(NamedAttr::new(key, value));
        }
        if paren {
            self.expect_punct(")")?;
        }
        Ok(())
    }

    /// A number, string or boolean option value of a check op. A scalar type after it
    /// (`1.0e-3 : f64`) belongs to the value; a tensor type is the op's.
    fn parse_check_value(&mut self) -> Result<Attribute, Diagnostic> {
        let t = self.peek()?;
        let value = match t.kind {
            Tok::Str => Attribute::String(self.expect_string("a string")?),
            Tok::Ident if matches!(self.text(t), "true" | "false") => {
                self.next()?;
                Attribute::Bool(self.text(t) == "true")
            }
            _ => {
                let neg = self.eat_punct("-")?;
                let n = self.next()?;
                let sign = if neg { -1.0 } else { 1.0 };
                match n.kind {
                    Tok::Float => Attribute::Float(
                        sign * self
                            .text(n)
                            .parse::<f64>()
                            .map_err(|_| self.err_at(n, "bad number"))?,
                        None,
                    ),
                    Tok::Int => {
                        let v = self.parse_u64(n)?;
                        let v = i64::try_from(v).map_err(|_| self.err_at(n, "number too large"))?;
                        Attribute::Int(if neg { -v } else { v }, None)
                    }
                    _ => {
                        return Err(self
                            .err_at(n, format!("expected a number, found {}", self.describe(n))))
                    }
                }
            }
        };
        let save = self.lx.pos();
        if self.eat_punct(":")? {
            let ty = self.peek()?;
            if ty.kind == Tok::Ident && DType::from_mlir_name(self.text(ty)).is_some() {
                self.next()?;
            } else {
                self.lx.set_pos(save);
            }
        }
        Ok(value)
    }
}
