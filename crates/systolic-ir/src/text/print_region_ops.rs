//! The pretty forms of the region-holding ops that have one: `stablehlo.reduce` (the compact
//! `applies stablehlo.add` form or the `reducer(…) {…}` form, chosen as MLIR chooses) and
//! `stablehlo.while` (`cond {…} do {…}` with `%iterArg` names).

use super::op_schema::op_props;
use super::print_attrs::{write_attr_dict, write_int_list};
use super::printer::FuncPrinter;
use crate::module::Op;
use crate::ops::{OpKind, ReturnKind};
use crate::types::Type;
use std::fmt::Write;

impl FuncPrinter<'_> {
    /// `stablehlo.reduce(%a init: %x) applies stablehlo.add across dimensions = [1] : …` when
    /// the body is one commutative binary op on the block arguments (as MLIR decides), else the
    /// `reducer(%a: T, %b: T) {…}` form; the generic form if the region is malformed.
    pub(super) fn reduce(&mut self, op: &Op, dimensions: &[i64]) {
        let n = op.operands.len() / 2;
        let Some(block) = op.regions.first().and_then(|r| r.entry()) else {
            return self.generic(op, op_props(&op.kind));
        };
        if !op.operands.len().is_multiple_of(2)
            || n == 0
            || op.regions.len() != 1
            || op.regions[0].blocks.len() != 1
            || block.args.len() != 2 * n
        {
            return self.generic(op, op_props(&op.kind));
        }
        self.out.push_str("stablehlo.reduce");
        for i in 0..n {
            self.out.push_str(if i == 0 { "(" } else { ", (" });
            let input = self.names.reference(op.operands[i]);
            let init = self.names.reference(op.operands[n + i]);
            let _ = write!(self.out, "{input} init: {init})");
        }
        let compact = self.compact_reducer(op);
        if let Some(inner) = &compact {
            let _ = write!(self.out, " applies {inner}");
        }
        self.out.push_str(" across dimensions = ");
        write_int_list(self.out, dimensions);
        self.attrs(op, vec![]);
        self.out.push_str(" : ");
        self.functional_type(&op.operands, &op.results);
        if compact.is_some() {
            return;
        }
        self.out.push('\n');
        self.indent();
        self.out.push_str(" reducer");
        for i in 0..n {
            if i > 0 {
                self.out.push(' ');
            }
            self.out.push('(');
            self.typed_values(&[block.args[i], block.args[n + i]]);
            self.out.push(')');
        }
        self.out.push_str("  ");
        self.region_body_only(&op.regions[0]);
    }

    /// The inner op's name when a reduce body qualifies for the compact `applies` form.
    fn compact_reducer(&self, op: &Op) -> Option<String> {
        let block = op.regions.first()?.entry()?;
        let [inner, ret] = block.ops.as_slice() else {
            return None;
        };
        // MLIR prints the compact form for bodies of one commutative binary op.
        let commutative = matches!(inner.kind, OpKind::Binary(b) if b.is_commutative());
        let input_dtype = match self.type_of(*op.operands.first()?)? {
            Type::Tensor(t) => t.dtype,
            _ => return None,
        };
        let scalar = Type::tensor(vec![], input_dtype);
        let ok = commutative
            && op.operands.len() == 2
            && inner.regions.is_empty()
            && inner.attrs.is_empty()
            && inner.operands == block.args
            && inner.results.len() == 1
            && self.type_of(inner.operands[0]) == Some(&scalar)
            && self.type_of(inner.operands[1]) == Some(&scalar)
            && self.type_of(inner.results[0]) == Some(&scalar)
            && ret.kind == OpKind::Return(ReturnKind::Stablehlo)
            && ret.operands == inner.results
            && ret.attrs.is_empty();
        ok.then(|| inner.kind.name())
    }

    /// `stablehlo.while(%iterArg = %a, …) : T, … cond {…} do {…}`.
    pub(super) fn while_op(&mut self, op: &Op) {
        let well_formed = op.regions.len() == 2
            && !op.operands.is_empty()
            && op
                .regions
                .iter()
                .all(|r| r.blocks.len() == 1 && r.blocks[0].args.len() == op.operands.len());
        if !well_formed {
            return self.generic(op, op_props(&op.kind));
        }
        let cond_args = &op.regions[0].blocks[0].args;
        self.out.push_str("stablehlo.while(");
        for (i, (&arg, &init)) in cond_args.iter().zip(&op.operands).enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let (a, v) = (self.names.reference(arg), self.names.reference(init));
            let _ = write!(self.out, "{a} = {v}");
        }
        self.out.push_str(") : ");
        self.type_list(&op.operands);
        if !op.attrs.is_empty() {
            self.out.push_str(" attributes ");
            write_attr_dict(self.out, &op.attrs.iter().collect::<Vec<_>>());
        }
        self.out.push('\n');
        self.indent();
        self.out.push_str("cond ");
        self.region_body_only(&op.regions[0]);
        self.out.push_str(" do ");
        self.region_body_only(&op.regions[1]);
    }
}
