//! The `check` dialect of the StableHLO interpreter tests, in the forms those tests write:
//! `check.expect_eq %a, %b : T`, `check.expect_close %a, %b, max_ulp_difference = 3 : T, T`,
//! `check.expect_eq_const %a, dense<…> : T`, and a tolerance as an attribute:
//! `check.expect_almost_eq_const %a, dense<…> : T {tolerance = 1.000000e-09 : f64}`.
//! Also the tests' harness op `interpreter.run_parallel`, in the generic form they write.

use super::print_dense::write_dense;
use super::print_op_attrs::{prop, Props};
use super::printer::FuncPrinter;
use crate::attrs::Attribute;
use crate::dtype::DType;
use crate::module::Op;
use crate::ops::CheckOp;
use crate::types::{TensorType, Type};
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
            CheckOp::ExpectAlmostEq { tolerance } => {
                self.attrs(op, tolerance_attr(*tolerance));
                lhs_type_only(self);
            }
            CheckOp::ExpectEqConst(t) => {
                self.out.push_str(", ");
                write_dense(self.out, t);
                let _ = write!(self.out, " : {}", t.ty());
                self.attrs(op, vec![]);
            }
            CheckOp::ExpectAlmostEqConst {
                expected,
                tolerance,
            } => {
                self.out.push_str(", ");
                write_dense(self.out, expected);
                let _ = write!(self.out, " : {}", expected.ty());
                self.attrs(op, tolerance_attr(*tolerance));
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
    pub(super) fn run_parallel(&mut self, op: &Op, programs: &[Vec<String>], infeed: &[String]) {
        let symbols = |names: &[String]| {
            Attribute::Array(names.iter().cloned().map(Attribute::SymbolRef).collect())
        };
        let mut props = Props::new();
        if !infeed.is_empty() {
            prop(&mut props, "infeed", symbols(infeed));
        }
        let rows = programs.iter().map(|row| symbols(row)).collect();
        prop(&mut props, "programs", Attribute::Array(rows));
        self.generic(op, props);
    }
}

/// `tolerance = 1.000000e-03 : f64` when given.
fn tolerance_attr(tolerance: Option<f64>) -> Props {
    let mut props = Props::new();
    if let Some(t) = tolerance {
        let f64_type = Type::Tensor(TensorType::scalar(DType::F64));
        prop(&mut props, "tolerance", Attribute::Float(t, Some(f64_type)));
    }
    props
}
