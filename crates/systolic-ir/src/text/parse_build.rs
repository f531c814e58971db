//! Building an [`OpKind`] from an op name and its attribute dictionary, as the generic form
//! writes them (`"stablehlo.iota"() {iota_dimension = 1 : i64}`). The pretty-form parsers put
//! what they read into the same dictionary under the same names. Each op's attributes are
//! described once, in `op_schema`, which the printer uses too. Attributes an op kind models are
//! removed from the dictionary; the rest stay on the op (`mhlo.sharding`, `operand_layouts`, …).

use super::op_schema::read_op;
use super::parse_stablehlo_attrs::enum_keyword;
use crate::attrs::*;
use crate::ops::*;

/// The attribute dictionary of one op being built; `op_schema` takes out what it models.
pub(crate) struct Bag<'x> {
    pub attrs: &'x mut Vec<NamedAttr>,
}

impl Bag<'_> {
    /// Removes and returns an attribute.
    pub fn take(&mut self, name: &str) -> Option<Attribute> {
        let i = self.attrs.iter().position(|a| a.name == name)?;
        Some(self.attrs.remove(i).value)
    }
}

/// Builds the op kind for a full op name, taking the attributes it models out of `attrs`.
/// `Ok(None)` means the name is not a known op.
pub(crate) fn build_kind(name: &str, attrs: &mut Vec<NamedAttr>) -> Result<Option<OpKind>, String> {
    let mut b = Bag { attrs };
    let kind = read_op(name, &mut b)?;
    if let Some(OpKind::RunParallel { .. }) = kind {
        if let Some(other) = b.attrs.first() {
            return Err(format!(
                "unsupported attribute '{}' (run_parallel takes 'programs' and 'infeed')",
                other.name
            ));
        }
    }
    Ok(kind)
}

/// An attribute as it reads in an error message: its text when kept verbatim, else its value.
pub(crate) fn describe_attr(a: &Attribute) -> String {
    match a {
        Attribute::Opaque(text) => match enum_keyword(a, "precision") {
            Some(kw) => format!("'{kw}'"),
            None => text.clone(),
        },
        Attribute::String(s) => format!("\"{s}\""),
        other => format!("{other:?}"),
    }
}
