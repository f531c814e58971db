//! `stablehlo.convolution` in its pretty form: `dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[…],
//! window = {stride = …, pad = …}` and the group counts and precisions in the attribute
//! dictionary; the generic form with raw dimension numbers when they are not a layout.

use super::op_schema::{op_props, op_props_except, CONV_PRETTY_SYNTAX};
use super::print_op_attrs::{conv_dims_text, conv_window_text};
use super::printer::FuncPrinter;
use crate::attrs::ConvAttrs;
use crate::module::Op;
use std::fmt::Write;

impl FuncPrinter<'_> {
    /// `stablehlo.convolution(%x, %k) dim_numbers = […]x[…]->[…], window = {…} {attrs} : …`.
    pub(super) fn convolution(&mut self, op: &Op, c: &ConvAttrs) {
        let Some(dims) = conv_dims_text(&c.dimension_numbers) else {
            return self.generic(op, op_props(&op.kind));
        };
        self.out.push_str("stablehlo.convolution(");
        self.operand_list(&op.operands);
        let _ = write!(self.out, ") dim_numbers = {dims}");
        let _ = write!(self.out, ", window = {}", conv_window_text(c));
        self.attrs(op, op_props_except(&op.kind, CONV_PRETTY_SYNTAX));
        self.out.push_str(" : ");
        self.functional_type(&op.operands, &op.results);
    }
}
