//! Inlining `func.call`s (and `stablehlo.composite`s, by their decomposition), so a module as
//! JAX exports it (with private helper functions) can be differentiated as one function. Calls
//! to a function that carries [`crate::REMAT_ATTR`] get their inlined ops marked as one
//! rematerialisation group. The inlining itself is `systolic_ir::inline::Inliner`'s.

use crate::{Error, REMAT_ATTR};
use systolic_ir::inline::Inliner;
use systolic_ir::{find_attr, Attribute, Func, Module, NamedAttr, Op};

/// Group ids given to inlined rematerialised calls start above this (ids a user sets on ops
/// stay below it).
const FIRST_INLINED_GROUP: i64 = 1_000_000;

/// Function `name` of `module` with every `func.call` and `stablehlo.composite` (at any depth)
/// replaced by the callee's body; each call of a function carrying [`REMAT_ATTR`] becomes its
/// own rematerialisation group.
pub fn inline_calls(module: &Module, name: &str) -> Result<Func, Error> {
    let mut group = FIRST_INLINED_GROUP;
    let mut mark = |callee: &Func, ops: &mut [Op]| {
        if find_attr(&callee.attrs, REMAT_ATTR).is_none() {
            return;
        }
        group += 1;
        for op in ops {
            op.attrs
                .push(NamedAttr::new(REMAT_ATTR, Attribute::Int(group, None)));
        }
    };
    Inliner::new(module)
        .composites(true)
        .on_inline(&mut mark)
        .inline_entry(name)
        .map_err(|d| match d.op {
            Some(op) => Error::new(format!("{op}: {}", d.message)),
            None => Error::new(d.message),
        })
}
