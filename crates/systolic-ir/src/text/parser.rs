//! The parser: MLIR text (as JAX prints it and as the StableHLO interpreter tests write it) into
//! a [`Module`].
//!
//! This file holds the parser state, its token helpers and the structure of a module: top-level
//! aliases, `module`, `sdy.mesh`, `func.func`, regions, blocks and SSA value scopes. Types,
//! attributes, constants, locations, shardings and the ops themselves are parsed by the
//! `parse_*` files next to it, as further `impl Parser` blocks.
//!
//! Conventions of the parsed module, for the code that reads it:
//! - Every result of `%r:3 = …` gets [`crate::ValueDef::name`] `r`; block arguments and
//!   results keep their names as written; the body the `applies` form of `reduce` implies has
//!   unnamed values.
//! - A scalar type written in attribute position (`1 : i32`, `accumulation_type = f32`) is a
//!   rank-0 [`crate::Type::Tensor`].
//! - Attributes an op kind models are moved into its [`crate::OpKind`]; the rest stay on the op.
//!   Dialect attributes the IR has no type for are [`crate::Attribute::Opaque`] with their exact
//!   text (validated first when they are shardings).
//! - [`crate::Op::span`] is the op's first token; errors about an op point at its name.
//! - Locations of block arguments inside regions are read and dropped; function parameters keep
//!   theirs in [`crate::Func::arg_locs`].

use super::lexer::{unescape, Lexer, Tok, Token};
use super::resolve_dynamic::ShapeConstants;
use crate::attrs::{Attribute, Location, NamedAttr};
use crate::diag::Diagnostic;
use crate::module::{Block, Func, Module, Region, Span, ValueId, Visibility};
use crate::tensor::Tensor;
use crate::types::Type;
use std::collections::HashMap;

/// The deepest nesting of regions, brackets and locations the parser accepts, so that hostile
/// input cannot exhaust the stack.
pub(crate) const MAX_NESTING: usize = 64;

/// Parses a module from MLIR text. `source_name` names the text in error messages.
///
/// Accepts a `module { … }` or bare top-level `func.func`s (the interpreter-test form), with
/// `#alias = …` definitions before or after. Ops may be in the pretty form the StableHLO, CHLO
/// and func printers write or in the generic `"dialect.op"(…) … : (…) -> …` form. Types are not
/// verified here; result types are taken from each op's trailing type as written.
///
/// ```
/// let m = systolic_ir::text::parse_module(
///     "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n\
///        %0 = stablehlo.add %x, %x : tensor<2xf32>\n\
///        return %0 : tensor<2xf32>\n\
///      }",
///     "f.mlir",
/// ).unwrap();
/// assert_eq!(m.funcs[0].body.blocks[0].ops[0].kind.name(), "stablehlo.add");
/// ```
pub fn parse_module(src: &str, source_name: &str) -> Result<Module, Diagnostic> {
    let mut p = Parser::new(src);
    let result = p.parse_top_level();
    result
        .map(|mut m| {
            m.source_name = Some(source_name.to_string());
            m
        })
        .map_err(|e| e.in_source(Some(source_name)))
}

/// Parses a list of tensor values, `[dense<1> : tensor<2xi32>, dense<[1, 2]> : tensor<2xf32>]`:
/// the arguments the upstream interpreter takes on its command line (`--args`).
///
/// ```
/// let ts = systolic_ir::text::parse_tensor_list("[dense<1> : tensor<2xi32>]", "args").unwrap();
/// assert_eq!(ts[0].shape(), &[2]);
/// ```
pub fn parse_tensor_list(src: &str, source_name: &str) -> Result<Vec<Tensor>, Diagnostic> {
    let mut p = Parser::new(src);
    let parsed = (|| {
        let at = p.peek()?;
        if !p.is_punct("[")? {
            return Err(p.expected("a list of tensors, i.e. [dense<1> : tensor<2xi32>, …]"));
        }
        let Attribute::Array(items) = p.parse_attr()? else {
            return Err(p.err_at(
                at,
                "expected a list of tensors, i.e. [dense<1> : tensor<2xi32>, …]",
            ));
        };
        if p.peek()?.kind != Tok::Eof {
            return Err(p.expected("the end after the list"));
        }
        items
            .into_iter()
            .map(|a| match a {
                Attribute::Dense(t) => Ok(t),
                other => Err(p.err_at(at, format!("expected a dense<…> tensor, got {other:?}"))),
            })
            .collect()
    })();
    parsed.map_err(|e| e.in_source(Some(source_name)))
}

/// SSA names visible at a point: one map per enclosing region.
#[derive(Default)]
pub(crate) struct Scopes {
    stack: Vec<HashMap<String, Vec<ValueId>>>,
}

impl Scopes {
    pub fn push(&mut self) {
        self.stack.push(HashMap::new());
    }

    pub fn pop(&mut self) {
        self.stack.pop();
    }

    /// Looks a name (without `%`) up from the innermost scope out.
    pub fn lookup(&self, name: &str) -> Option<&Vec<ValueId>> {
        self.stack.iter().rev().find_map(|s| s.get(name))
    }

    /// Defines a name in the innermost scope; false if it is already visible.
    pub fn define(&mut self, name: &str, values: Vec<ValueId>) -> bool {
        if self.lookup(name).is_some() {
            return false;
        }
        if let Some(top) = self.stack.last_mut() {
            top.insert(name.to_string(), values);
        }
        true
    }
}

/// The parser state: a lexer plus what is being built.
pub(crate) struct Parser<'a> {
    pub lx: Lexer<'a>,
    /// Current nesting depth (regions, brackets, locations).
    pub depth: usize,
    /// Attribute aliases defined so far (`#name = …`), except locations.
    pub attr_aliases: HashMap<String, Attribute>,
    /// The function being parsed and its name scopes.
    pub func: Func,
    pub scopes: Scopes,
    /// The function's small integer constants, for the dynamic ops' shape operands.
    pub shape_constants: ShapeConstants,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str) -> Self {
        Parser {
            lx: Lexer::new(src),
            depth: 0,
            attr_aliases: HashMap::new(),
            func: Func::new(""),
            scopes: Scopes::default(),
            shape_constants: ShapeConstants::default(),
        }
    }

    // ---------------------------------------------------------------- token helpers

    pub fn peek(&mut self) -> Result<Token, Diagnostic> {
        self.lx.peek()
    }

    pub fn next(&mut self) -> Result<Token, Diagnostic> {
        self.lx.next_token()
    }

    pub fn text(&self, t: Token) -> &'a str {
        self.lx.text(t)
    }

    pub fn span_of(&self, t: Token) -> Span {
        self.lx.span_at(t.start)
    }

    /// How a token reads in an error message.
    pub fn describe(&self, t: Token) -> String {
        match t.kind {
            Tok::Eof => "end of input".to_string(),
            _ => {
                let s = self.text(t);
                let short: String = s.chars().take(40).collect();
                if short.len() < s.len() {
                    format!("'{short}…'")
                } else {
                    format!("'{s}'")
                }
            }
        }
    }

    /// An error at a token.
    pub fn err_at(&self, t: Token, msg: impl Into<String>) -> Diagnostic {
        self.lx.error_at(t.start, msg)
    }

    /// "expected X, found 'Y'" at the next token.
    pub fn expected(&mut self, what: &str) -> Diagnostic {
        match self.peek() {
            Ok(t) => {
                let found = self.describe(t);
                self.err_at(t, format!("expected {what}, found {found}"))
            }
            Err(e) => e,
        }
    }

    /// True if the next token is the punctuation `p`.
    pub fn is_punct(&mut self, p: &str) -> Result<bool, Diagnostic> {
        let t = self.peek()?;
        Ok(t.kind == Tok::Punct && self.text(t) == p)
    }

    /// Consumes the punctuation `p` if it is next.
    pub fn eat_punct(&mut self, p: &str) -> Result<bool, Diagnostic> {
        if self.is_punct(p)? {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Consumes the punctuation `p` or fails.
    pub fn expect_punct(&mut self, p: &str) -> Result<Token, Diagnostic> {
        if self.is_punct(p)? {
            self.next()
        } else {
            Err(self.expected(&format!("'{p}'")))
        }
    }

    /// True if the next token is the bare word `kw`.
    pub fn is_keyword(&mut self, kw: &str) -> Result<bool, Diagnostic> {
        let t = self.peek()?;
        Ok(t.kind == Tok::Ident && self.text(t) == kw)
    }

    /// Consumes the bare word `kw` if it is next.
    pub fn eat_keyword(&mut self, kw: &str) -> Result<bool, Diagnostic> {
        if self.is_keyword(kw)? {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Consumes the bare word `kw` or fails.
    pub fn expect_keyword(&mut self, kw: &str) -> Result<Token, Diagnostic> {
        if self.is_keyword(kw)? {
            self.next()
        } else {
            Err(self.expected(&format!("'{kw}'")))
        }
    }

    /// Consumes a bare identifier and returns its text.
    pub fn expect_ident(&mut self, what: &str) -> Result<&'a str, Diagnostic> {
        let t = self.peek()?;
        if t.kind == Tok::Ident {
            self.next()?;
            Ok(self.text(t))
        } else {
            Err(self.expected(what))
        }
    }

    /// Consumes a string literal and returns its decoded value.
    pub fn expect_string(&mut self, what: &str) -> Result<String, Diagnostic> {
        let t = self.peek()?;
        if t.kind != Tok::Str {
            return Err(self.expected(what));
        }
        self.next()?;
        self.string_value(t)
    }

    /// The decoded value of a string token.
    pub fn string_value(&self, t: Token) -> Result<String, Diagnostic> {
        let s = self.text(t);
        unescape(&s[1..s.len() - 1]).map_err(|m| self.err_at(t, m))
    }

    /// The name of a symbol token without `@` (quoted names are decoded).
    pub fn symbol_name(&self, t: Token) -> Result<String, Diagnostic> {
        let s = &self.text(t)[1..];
        if s.starts_with('"') {
            unescape(&s[1..s.len() - 1]).map_err(|m| self.err_at(t, m))
        } else {
            Ok(s.to_string())
        }
    }

    /// Consumes `@name` and returns the name.
    pub fn expect_symbol(&mut self, what: &str) -> Result<String, Diagnostic> {
        let t = self.peek()?;
        if t.kind != Tok::SymbolRef {
            return Err(self.expected(what));
        }
        self.next()?;
        self.symbol_name(t)
    }

    /// Enters one more level of nesting, failing when too deep.
    pub fn enter(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let pos = self.lx.pos();
            return Err(self
                .lx
                .error_at(pos, format!("nesting deeper than {MAX_NESTING} levels")));
        }
        Ok(())
    }

    /// Leaves a level of nesting.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Parses `item (, item)*` up to the closing punctuation `close` (consumed); the opening
    /// punctuation must already be consumed. An empty list is allowed.
    pub fn comma_list<T>(
        &mut self,
        close: &str,
        mut item: impl FnMut(&mut Self) -> Result<T, Diagnostic>,
    ) -> Result<Vec<T>, Diagnostic> {
        let mut out = Vec::new();
        if self.eat_punct(close)? {
            return Ok(out);
        }
        self.enter()?;
        loop {
            out.push(item(self)?);
            if self.eat_punct(",")? {
                continue;
            }
            if self.eat_punct(close)? {
                break;
            }
            return Err(self.expected(&format!("',' or '{close}'")));
        }
        self.leave();
        Ok(out)
    }

    // ---------------------------------------------------------------- module structure

    fn parse_top_level(&mut self) -> Result<Module, Diagnostic> {
        let mut module = Module::default();
        let mut saw_module = false;
        let mut saw_funcs = false;
        loop {
            let t = self.peek()?;
            match t.kind {
                Tok::Eof => break,
                Tok::HashId => self.parse_alias_definition(&mut module)?,
                Tok::Ident if self.text(t) == "module" => {
                    if saw_module || saw_funcs {
                        return Err(self.err_at(t, "expected one module per text, found another"));
                    }
                    saw_module = true;
                    self.parse_module_op(&mut module)?;
                }
                Tok::Ident if self.text(t) == "func.func" => {
                    if saw_module {
                        return Err(self.err_at(t, "func.func after the module"));
                    }
                    saw_funcs = true;
                    let f = self.parse_func()?;
                    module.funcs.push(f);
                }
                Tok::Ident if self.text(t) == "sdy.mesh" => {
                    let mesh = self.parse_sdy_mesh()?;
                    module.meshes.push(mesh);
                }
                Tok::Str if self.text(t) == "\"builtin.module\"" => {
                    if saw_module || saw_funcs {
                        return Err(self.err_at(t, "expected one module per text, found another"));
                    }
                    saw_module = true;
                    self.parse_generic_module(&mut module)?;
                }
                Tok::Str if self.text(t) == "\"func.func\"" => {
                    if saw_module {
                        return Err(self.err_at(t, "func.func after the module"));
                    }
                    saw_funcs = true;
                    let f = self.parse_generic_func()?;
                    module.funcs.push(f);
                }
                _ => {
                    return Err(self.expected("'module', 'func.func' or an alias definition"));
                }
            }
        }
        Ok(module)
    }

    /// `#name = loc(…)` or `#name = <attribute>`.
    fn parse_alias_definition(&mut self, module: &mut Module) -> Result<(), Diagnostic> {
        let t = self.next()?;
        let name = self.text(t)[1..].to_string();
        self.expect_punct("=")?;
        if self.is_keyword("loc")? {
            let loc = self.parse_loc()?;
            module.loc_aliases.push((name, loc));
        } else {
            let value = self.parse_attr()?;
            self.attr_aliases.insert(name, value);
        }
        Ok(())
    }

    /// `module [@name] [attributes {…}] { … } [loc(…)]`.
    fn parse_module_op(&mut self, module: &mut Module) -> Result<(), Diagnostic> {
        self.expect_keyword("module")?;
        if self.peek()?.kind == Tok::SymbolRef {
            module.name = Some(self.expect_symbol("a module name")?);
        }
        if self.eat_keyword("attributes")? {
            module.attrs = self.parse_attr_dict()?;
        }
        self.expect_punct("{")?;
        loop {
            let t = self.peek()?;
            match t.kind {
                Tok::Punct if self.text(t) == "}" => {
                    self.next()?;
                    break;
                }
                Tok::Ident if self.text(t) == "func.func" => {
                    let f = self.parse_func()?;
                    module.funcs.push(f);
                }
                Tok::Str if self.text(t) == "\"func.func\"" => {
                    let f = self.parse_generic_func()?;
                    module.funcs.push(f);
                }
                Tok::Ident if self.text(t) == "sdy.mesh" => {
                    let mesh = self.parse_sdy_mesh()?;
                    module.meshes.push(mesh);
                }
                _ => return Err(self.expected("'func.func', 'sdy.mesh' or '}'")),
            }
        }
        if self.is_keyword("loc")? {
            self.parse_loc()?;
        }
        Ok(())
    }

    /// `func.func [public|private] @name(args) [-> results] [attributes {…}] [{ body }] [loc]`.
    pub fn parse_func(&mut self) -> Result<Func, Diagnostic> {
        let start = self.expect_keyword("func.func")?;
        let mut func = Func::new("");
        func.span = Some(self.span_of(start));
        if self.eat_keyword("private")? {
            func.visibility = Visibility::Private;
        } else if !self.eat_keyword("public")? {
            self.eat_keyword("nested")?;
        }
        func.name = self.expect_symbol("a function name '@name'")?;
        self.func = func;
        self.scopes = Scopes::default();
        self.shape_constants.clear();
        self.scopes.push();

        // Parameters: `%a: type {attrs} loc(…)` or, for a declaration, `type {attrs}`.
        self.expect_punct("(")?;
        let mut entry = Block::default();
        let mut declaration_only = false;
        let params = self.comma_list(")", |p| {
            let t = p.peek()?;
            let name = if t.kind == Tok::ValueId {
                p.next()?;
                p.expect_punct(":")?;
                Some((t, p.text(t)[1..].to_string()))
            } else {
                None
            };
            let ty = p.parse_type()?;
            let attrs = if p.is_punct("{")? {
                p.parse_attr_dict()?
            } else {
                vec![]
            };
            let loc = p.parse_optional_loc()?;
            Ok((name, ty, attrs, loc))
        })?;
        let arg_locs: Vec<Option<Location>> = params.iter().map(|p| p.3.clone()).collect();
        if arg_locs.iter().any(Option::is_some) {
            self.func.arg_locs = arg_locs;
        }
        for (name, ty, attrs, _) in params {
            match name {
                Some((t, name)) => {
                    if name.contains('#') {
                        return Err(self.err_at(t, format!("bad parameter name '%{name}'")));
                    }
                    let v = self.func.new_value(ty, Some(name.clone()));
                    if !self.scopes.define(&name, vec![v]) {
                        return Err(self.err_at(t, format!("redefinition of '%{name}'")));
                    }
                    entry.args.push(v);
                }
                None => {
                    declaration_only = true;
                    let v = self.func.new_value(ty, None);
                    entry.args.push(v);
                }
            }
            self.func.arg_attrs.push(attrs);
        }

        // Results: `-> type`, `-> (type {attrs}, …)`.
        if self.eat_punct("->")? {
            if self.eat_punct("(")? {
                let results = self.comma_list(")", |p| {
                    let ty = p.parse_type()?;
                    let attrs = if p.is_punct("{")? {
                        p.parse_attr_dict()?
                    } else {
                        vec![]
                    };
                    Ok((ty, attrs))
                })?;
                for (ty, attrs) in results {
                    self.func.result_types.push(ty);
                    self.func.result_attrs.push(attrs);
                }
            } else {
                let ty = self.parse_type()?;
                self.func.result_types.push(ty);
                self.func.result_attrs.push(vec![]);
            }
        }
        if self.eat_keyword("attributes")? {
            self.func.attrs = self.parse_attr_dict()?;
        }
        if self.is_punct("{")? {
            if declaration_only {
                return Err(self.expected("no body for a function whose parameters are unnamed"));
            }
            self.next()?;
            // An explicit entry label without arguments (`^bb0:`) is allowed.
            let t = self.peek()?;
            if t.kind == Tok::BlockId {
                let save = self.lx.pos();
                self.next()?;
                if !self.eat_punct(":")? {
                    self.lx.set_pos(save);
                }
            }
            self.parse_block_ops(&mut entry)?;
            self.func.body = Region::single(entry);
        } else if !declaration_only && !entry.args.is_empty() {
            return Err(self.expected("'{' (the function body)"));
        }
        if self.is_keyword("loc")? {
            self.func.loc = Some(self.parse_loc()?);
        }
        self.scopes = Scopes::default();
        self.shape_constants.clear();
        Ok(std::mem::replace(&mut self.func, Func::new("")))
    }

    /// Parses ops into `block` up to the closing `}` of its region (consumed). A second block
    /// label is an error: StableHLO regions have one block.
    pub fn parse_block_ops(&mut self, block: &mut Block) -> Result<(), Diagnostic> {
        loop {
            let t = self.peek()?;
            match t.kind {
                Tok::Punct if self.text(t) == "}" => {
                    self.next()?;
                    return Ok(());
                }
                Tok::Eof => return Err(self.expected("'}'")),
                Tok::BlockId => {
                    return Err(self.err_at(
                        t,
                        "regions with more than one block are not supported (StableHLO regions \
                         have one block)",
                    ))
                }
                _ => {
                    let op = self.parse_op()?;
                    block.ops.push(op);
                }
            }
        }
    }

    /// Parses a region `{ [^bb0(%a: type, …):] ops }` whose block arguments are written in it.
    /// `implicit_args` (name, type) pairs become the block arguments when no label is written
    /// (used by the pretty forms of `while` and the `reducer` form of `reduce`).
    pub fn parse_region(&mut self, implicit_args: &[(String, Type)]) -> Result<Region, Diagnostic> {
        self.enter()?;
        self.expect_punct("{")?;
        self.scopes.push();
        let mut block = Block::default();
        let mut result = Ok(());
        if self.peek()?.kind == Tok::BlockId {
            self.next()?;
            if self.eat_punct("(")? {
                result = self
                    .comma_list(")", |p| {
                        let t = p.peek()?;
                        if t.kind != Tok::ValueId {
                            return Err(p.expected("a block argument '%name'"));
                        }
                        p.next()?;
                        p.expect_punct(":")?;
                        let ty = p.parse_type()?;
                        if p.is_keyword("loc")? {
                            p.parse_loc()?;
                        }
                        Ok((t, ty))
                    })
                    .and_then(|args| {
                        for (t, ty) in args {
                            let v = self.define_arg(t, ty)?;
                            block.args.push(v);
                        }
                        Ok(())
                    });
            }
            if result.is_ok() {
                result = self.expect_punct(":").map(|_| ());
            }
        } else {
            for (name, ty) in implicit_args {
                let v = self.func.new_value(ty.clone(), Some(name.clone()));
                if !self.scopes.define(name, vec![v]) {
                    let pos = self.lx.pos();
                    result = Err(self.lx.error_at(pos, format!("redefinition of '%{name}'")));
                }
                block.args.push(v);
            }
        }
        let result = result.and_then(|_| self.parse_block_ops(&mut block));
        self.scopes.pop();
        self.leave();
        result.map(|_| Region::single(block))
    }

    /// Defines a block argument named by the value token `t`.
    pub fn define_arg(&mut self, t: Token, ty: Type) -> Result<ValueId, Diagnostic> {
        let name = self.text(t)[1..].to_string();
        if name.contains('#') {
            return Err(self.err_at(t, format!("bad argument name '%{name}'")));
        }
        let v = self.func.new_value(ty, Some(name.clone()));
        if !self.scopes.define(&name, vec![v]) {
            return Err(self.err_at(t, format!("redefinition of '%{name}'")));
        }
        Ok(v)
    }

    /// Resolves a value use `%name` or `%name#k`.
    pub fn resolve_value(&mut self, t: Token) -> Result<ValueId, Diagnostic> {
        let text = &self.text(t)[1..];
        let (name, index) = match text.rsplit_once('#') {
            Some((n, k)) => match k.parse::<usize>() {
                Ok(k) => (n, Some(k)),
                Err(_) => return Err(self.err_at(t, format!("bad value use '%{text}'"))),
            },
            None => (text, None),
        };
        let Some(values) = self.scopes.lookup(name) else {
            return Err(self.err_at(t, format!("use of undefined value '%{name}'")));
        };
        match index {
            None if values.len() == 1 => Ok(values[0]),
            None => Err(self.err_at(
                t,
                format!(
                    "'%{name}' names {} results; use '%{name}#k' to pick one",
                    values.len()
                ),
            )),
            Some(k) => values.get(k).copied().ok_or_else(|| {
                self.err_at(
                    t,
                    format!("'%{name}' has {} results, no result #{k}", values.len()),
                )
            }),
        }
    }

    /// Consumes a value use and resolves it.
    pub fn parse_value_use(&mut self) -> Result<ValueId, Diagnostic> {
        let t = self.peek()?;
        if t.kind != Tok::ValueId {
            return Err(self.expected("a value '%name'"));
        }
        self.next()?;
        self.resolve_value(t)
    }

    /// Parses an attribute dictionary `{name = value, …}` into named attributes.
    pub fn parse_attr_dict(&mut self) -> Result<Vec<NamedAttr>, Diagnostic> {
        self.expect_punct("{")?;
        self.comma_list("}", |p| p.parse_named_attr())
    }

    /// A location attached to something, if written: `loc(…)`.
    pub fn parse_optional_loc(&mut self) -> Result<Option<Location>, Diagnostic> {
        if self.is_keyword("loc")? {
            Ok(Some(self.parse_loc()?))
        } else {
            Ok(None)
        }
    }
}
