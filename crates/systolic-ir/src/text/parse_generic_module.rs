//! The fully generic spelling of modules and functions, as `mlir-opt --mlir-print-op-generic`
//! and some interpreter tests write them: `"builtin.module"() ({ … }) : () -> ()` and
//! `"func.func"() <{function_type = …, sym_name = "f"}> ({ ^bb0(…): … }) : () -> ()`.

use super::lexer::Tok;
use super::parser::{Parser, Scopes};
use crate::attrs::{Attribute, NamedAttr};
use crate::diag::Diagnostic;
use crate::module::{Func, Module, Visibility};

impl Parser<'_> {
    /// The generic module form: `"builtin.module"() [<{sym_name = "m"}>] ({ … }) [{attrs}] :
    /// () -> ()`.
    pub fn parse_generic_module(&mut self, module: &mut Module) -> Result<(), Diagnostic> {
        self.next()?;
        self.expect_punct("(")?;
        self.expect_punct(")")?;
        if self.eat_punct("<")? {
            for a in self.parse_attr_dict()? {
                match (a.name.as_str(), a.value) {
                    ("sym_name", Attribute::String(n)) => module.name = Some(n),
                    (_, value) => module.attrs.push(NamedAttr::new(a.name, value)),
                }
            }
            self.expect_punct(">")?;
        }
        self.expect_punct("(")?;
        self.expect_punct("{")?;
        if self.peek()?.kind == Tok::BlockId {
            self.next()?;
            self.expect_punct(":")?;
        }
        loop {
            let t = self.peek()?;
            match t.kind {
                Tok::Punct if self.text(t) == "}" => {
                    self.next()?;
                    break;
                }
                Tok::Str if self.text(t) == "\"func.func\"" => {
                    let f = self.parse_generic_func()?;
                    module.funcs.push(f);
                }
                Tok::Ident if self.text(t) == "func.func" => {
                    let f = self.parse_func()?;
                    module.funcs.push(f);
                }
                Tok::Ident if self.text(t) == "sdy.mesh" => {
                    let mesh = self.parse_sdy_mesh()?;
                    module.meshes.push(mesh);
                }
                _ => return Err(self.expected("'\"func.func\"' or '}'")),
            }
        }
        self.expect_punct(")")?;
        if self.is_punct("{")? {
            let more = self.parse_attr_dict()?;
            module.attrs.extend(more);
        }
        self.expect_punct(":")?;
        self.parse_op_signature()?;
        self.parse_optional_loc()?;
        Ok(())
    }

    /// The generic function form: `"func.func"() <{function_type = (T) -> U, sym_name = "f",
    /// sym_visibility = "private", arg_attrs = […], res_attrs = […]}> ({ ^bb0(…): … }) :
    /// () -> ()`.
    pub fn parse_generic_func(&mut self) -> Result<Func, Diagnostic> {
        let start = self.next()?;
        let mut func = Func::new("");
        func.span = Some(self.span_of(start));
        self.expect_punct("(")?;
        self.expect_punct(")")?;
        let mut param_types = Vec::new();
        let mut named = false;
        if self.eat_punct("<")? {
            self.expect_punct("{")?;
            let items = self.comma_list("}", |p| {
                let t = p.peek()?;
                if t.kind == Tok::Ident && p.text(t) == "function_type" {
                    p.next()?;
                    p.expect_punct("=")?;
                    p.expect_punct("(")?;
                    let inputs = p.comma_list(")", |p| p.parse_type())?;
                    p.expect_punct("->")?;
                    let results = p.parse_result_types()?;
                    Ok(Err((inputs, results)))
                } else {
                    p.parse_named_attr().map(Ok)
                }
            })?;
            self.expect_punct(">")?;
            for item in items {
                match item {
                    Err((inputs, results)) => {
                        param_types = inputs;
                        func.result_attrs = vec![vec![]; results.len()];
                        func.result_types = results;
                    }
                    Ok(a) => match (a.name.as_str(), a.value) {
                        ("sym_name", Attribute::String(n)) => {
                            func.name = n;
                            named = true;
                        }
                        ("sym_visibility", Attribute::String(v)) => {
                            if v == "private" {
                                func.visibility = Visibility::Private;
                            }
                        }
                        ("arg_attrs", Attribute::Array(items)) => {
                            func.arg_attrs = dicts(items);
                        }
                        ("res_attrs", Attribute::Array(items)) => {
                            func.result_attrs = dicts(items);
                        }
                        (_, value) => func.attrs.push(NamedAttr::new(a.name, value)),
                    },
                }
            }
        }
        if !named {
            return Err(self.err_at(start, "a generic func.func needs sym_name"));
        }
        func.arg_attrs.resize(param_types.len(), vec![]);
        func.result_attrs.resize(func.result_types.len(), vec![]);
        self.func = func;
        self.scopes = Scopes::default();
        self.shape_constants.clear();
        self.scopes.push();
        self.expect_punct("(")?;
        let region = self.parse_region(&[])?;
        self.expect_punct(")")?;
        let empty = region
            .blocks
            .iter()
            .all(|b| b.ops.is_empty() && b.args.is_empty());
        if !empty {
            self.func.body = region;
        }
        if self.is_punct("{")? {
            let more = self.parse_attr_dict()?;
            self.func.attrs.extend(more);
        }
        self.expect_punct(":")?;
        self.parse_op_signature()?;
        self.func.loc = self.parse_optional_loc()?;
        self.scopes = Scopes::default();
        self.shape_constants.clear();
        Ok(std::mem::replace(&mut self.func, Func::new("")))
    }
}

/// The dictionaries of an `arg_attrs`/`res_attrs` array (anything else counts as empty).
fn dicts(items: Vec<Attribute>) -> Vec<Vec<NamedAttr>> {
    items
        .into_iter()
        .map(|a| match a {
            Attribute::Dict(d) => d,
            _ => vec![],
        })
        .collect()
}
