//! The `check` dialect of the StableHLO interpreter tests, in the forms those tests write:
//! `check.expect_eq %a, %b : T`, `check.expect_close %a, %b, max_ulp_difference = 3 : T, T`,
//! `check.expect_eq_const %a, dense<…> : T`, and a tolerance as an attribute:
//! `check.expect_almost_eq_const %a, dense<…> : T {tolerance = 1.000000e-09 : f64}`.
//! Also the tests' harness op `interpreter.run_parallel`, in the generic form they write.

use super::op_schema::{op_props, op_props_except};
use super::print_dense::write_dense;
use super::printer::FuncPrinter;
use crate::module::Op;
use crate::ops::CheckOp;
use std::fmt::Write;

impl FuncPrinter<'_> {
    /// The check dialect of the interpreter tests.
    pub(super) fn check(&mut self, op: &Op, name: &str, check: &CheckOp) {
        self.head_operands(name, op);
        let lhs_type_only = |p: &mut Self| {
            p.out.push_str(" : ");
            if let Some(&v) = op.operands.first() {
                p.value_type(v);
            }
        };
        match check {
            CheckOp::ExpectEq => {
                self.attrs(op, vec![]);
                lhs_type_only(self);
            }
            CheckOp::ExpectAlmostEq { .. } => {
                self.attrs(op, op_props_except(&op.kind, &["value"]));
                lhs_type_only(self);
            }
            CheckOp::ExpectEqConst(t) => {
                self.out.push_str(", ");
                write_dense(self.out, t);
                let _ = write!(self.out, " : {}", t.ty());
                self.attrs(op, vec![]);
            }
            CheckOp::ExpectAlmostEqConst { expected, .. } => {
                self.out.push_str(", ");
                write_dense(self.out, expected);
                let _ = write!(self.out, " : {}", expected.ty());
                self.attrs(op, op_props_except(&op.kind, &["value"]));
            }
            CheckOp::ExpectClose {
                max_ulp_difference,
                min_ulp_difference,
            } => {
                let _ = write!(self.out, ", max_ulp_difference = {max_ulp_difference}");
                if *min_ulp_difference != 0 {
                    let _ = write!(self.out, ", min_ulp_difference = {min_ulp_difference}");
                }
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.type_list(&op.operands);
            }
            CheckOp::ExpectSerializedEq {
                probe_id,
                iteration,
            } => {
                self.out.push_str(", probe_id = ");
                self.string(probe_id);
                if *iteration != 0 {
                    let _ = write!(self.out, ", iter = {iteration}");
                }
                self.attrs(op, vec![]);
                lhs_type_only(self);
            }
        }
    }
}

impl FuncPrinter<'_> {
    /// `"interpreter.run_parallel"(%a, …) {infeed = [@q], programs = [[@f, @g]]} : (…) -> (…)`.
    pub(super) fn run_parallel(&mut self, op: &Op) {
        self.generic(op, op_props(&op.kind));
    }
}
