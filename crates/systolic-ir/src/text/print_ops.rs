//! One op as text: the pretty form MLIR's StableHLO/CHLO/func printers use for it, or the
//! generic form for the ops that have none (gather, scatter, sort, if, case, collectives, …).
//! The result names (`%0 = `) and the trailing location are printed by the caller; the
//! longer forms live in `print_region_ops`, `print_conv` and `print_check`.

use super::op_schema::{op_props, op_props_except};
use super::print_attrs::{write_attr_dict, write_int_list, write_symbol};
use super::print_dense::write_dense;
use super::print_op_attrs::*;
use super::print_sharding::{write_axis_names, write_sdy_sharding_body, write_sharding_list};
use super::printer::FuncPrinter;
use crate::attrs::NamedAttr;
use crate::module::{Op, ValueId};
use crate::ops::{OpKind, ReturnKind};
use crate::sharding::ManualComputationAttrs;
use std::fmt::Write;

impl FuncPrinter<'_> {
    /// Prints `op` after its `%results = `.
    pub(crate) fn op(&mut self, op: &Op, in_func_body: bool) {
        use OpKind::*;
        let name = op.kind.name();
        match &op.kind {
            Return(kind) => {
                let short = match (kind, in_func_body) {
                    (ReturnKind::Func, true) => "return",
                    _ => name.as_str(),
                };
                self.out.push_str(short);
                // `func.return` writes its attributes before the operands, `stablehlo.return`
                // after them.
                let func_return = *kind == ReturnKind::Func;
                if func_return {
                    self.attrs(op, vec![]);
                }
                if !op.operands.is_empty() {
                    self.out.push(' ');
                    self.operand_list(&op.operands);
                }
                if !func_return {
                    self.attrs(op, vec![]);
                }
                if !op.operands.is_empty() {
                    self.out.push_str(" : ");
                    self.type_list(&op.operands);
                }
            }
            Call { callee } => {
                self.out
                    .push_str(if in_func_body { "call" } else { "func.call" });
                self.out.push(' ');
                write_symbol(self.out, callee);
                self.out.push('(');
                self.operand_list(&op.operands);
                self.out.push(')');
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            Unary(_) | Convert | BitcastConvert | UniformQuantize | UniformDequantize => {
                self.head_operands(&name, op);
                self.attrs(op, vec![]);
                self.same_or_functional_type(op);
            }
            Binary(_) => {
                self.head_operands(&name, op);
                self.attrs(op, vec![]);
                self.same_or_functional_type(op);
            }
            Clamp => {
                self.head_operands(&name, op);
                self.attrs(op, vec![]);
                self.same_or_functional_type(op);
            }
            Select => self.select(op),
            Compare {
                direction,
                compare_type,
            } => {
                let _ = write!(self.out, "{name} {}, ", direction.keyword());
                self.operand_list(&op.operands);
                if let Some(t) = compare_type {
                    let _ = write!(self.out, ", {}", t.keyword());
                }
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                self.head_operands(&name, op);
                let _ = write!(self.out, ", format = e{exponent_bits}m{mantissa_bits}");
                self.attrs(op, vec![]);
                self.same_or_functional_type(op);
            }
            ChloUnary(_) | ChloBinary(_) => {
                self.head_operands(&name, op);
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.type_list(&op.operands);
                self.out.push_str(" -> ");
                self.result_types(&op.results);
            }
            Constant(t) => {
                self.out.push_str(&name);
                self.attrs(op, vec![]);
                self.out.push(' ');
                write_dense(self.out, t);
                let _ = write!(self.out, " : {}", t.ty());
            }
            Iota { dimension } => {
                let _ = write!(self.out, "{name} dim = {dimension}");
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.result_types(&op.results);
            }
            BroadcastInDim {
                broadcast_dimensions,
            } => self.operands_then_list(op, "dims", broadcast_dimensions),
            Broadcast { broadcast_sizes } => self.operands_then_list(op, "sizes", broadcast_sizes),
            Transpose { permutation } => self.operands_then_list(op, "dims", permutation),
            DynamicSlice { slice_sizes } => self.operands_then_list(op, "sizes", slice_sizes),
            Reshape | DynamicUpdateSlice => {
                self.head_operands(&name, op);
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            Reverse { dimensions } => {
                self.head_operands(&name, op);
                self.out.push_str(", dims = ");
                write_int_list(self.out, dimensions);
                self.attrs(op, vec![]);
                self.same_or_functional_type(op);
            }
            Concatenate { dimension } => self.operands_then_scalar(op, "dim", *dimension),
            GetDimensionSize { dimension } => self.operands_then_scalar(op, "dim", *dimension),
            Slice {
                start_indices,
                limit_indices,
                strides,
            } => self.slice(op, start_indices, limit_indices, strides),
            Pad {
                edge_padding_low,
                edge_padding_high,
                interior_padding,
            } => {
                self.head_operands(&name, op);
                self.out.push_str(", low = ");
                write_int_list(self.out, edge_padding_low);
                self.out.push_str(", high = ");
                write_int_list(self.out, edge_padding_high);
                self.out.push_str(", interior = ");
                write_int_list(self.out, interior_padding);
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            Gather { .. } | Scatter { .. } => self.generic(op, op_props(&op.kind)),
            Reduce { dimensions } => self.reduce(op, dimensions),
            ReduceWindow { .. } | SelectAndScatter { .. } | Sort { .. } | Map { .. } => {
                self.generic(op, op_props(&op.kind))
            }
            DotGeneral {
                dimension_numbers: d,
                precision_config,
                algorithm,
            } => {
                self.head_operands(&name, op);
                if !d.lhs_batching_dimensions.is_empty() || !d.rhs_batching_dimensions.is_empty() {
                    self.out.push_str(", batching_dims = ");
                    write_int_list(self.out, &d.lhs_batching_dimensions);
                    self.out.push_str(" x ");
                    write_int_list(self.out, &d.rhs_batching_dimensions);
                }
                self.out.push_str(", contracting_dims = ");
                write_int_list(self.out, &d.lhs_contracting_dimensions);
                self.out.push_str(" x ");
                write_int_list(self.out, &d.rhs_contracting_dimensions);
                if !precision_config.is_empty() {
                    self.out.push_str(", precision = ");
                    write_precisions(self.out, precision_config);
                }
                if let Some(a) = algorithm {
                    self.out.push_str(", algorithm = ");
                    write_dot_algorithm(self.out, a);
                }
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            Dot { precision_config } => {
                self.head_operands(&name, op);
                if !precision_config.is_empty() {
                    self.out.push_str(", precision = ");
                    write_precisions(self.out, precision_config);
                }
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            Convolution(c) => self.convolution(op, c),
            TriangularSolve { .. } => self.generic(op, op_props(&op.kind)),
            Cholesky { lower } => {
                self.head_operands(&name, op);
                if *lower {
                    self.out.push_str(", lower = true");
                }
                self.attrs(op, vec![]);
                self.same_or_functional_type(op);
            }
            Fft {
                fft_type,
                fft_length,
            } => {
                self.head_operands(&name, op);
                let _ = write!(self.out, ", type = {}, length = ", fft_type.keyword());
                write_int_list(self.out, fft_length);
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            BatchNormInference { .. } | BatchNormTraining { .. } | BatchNormGrad { .. } => {
                self.generic(op, op_props(&op.kind))
            }
            While => self.while_op(op),
            If | Case => self.generic(op, op_props(&op.kind)),
            OptimizationBarrier => {
                if op.operands.is_empty() {
                    self.out.push_str(&name);
                    self.out.push_str("()");
                    self.attrs(op, vec![]);
                } else {
                    self.head_operands(&name, op);
                    self.attrs(op, vec![]);
                    self.out.push_str(" : ");
                    self.type_list(&op.operands);
                }
            }
            Tuple | AfterAll => {
                // The operand list is printed even when empty: `stablehlo.tuple  : tuple<>`.
                self.out.push_str(&name);
                self.out.push(' ');
                self.operand_list(&op.operands);
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.result_types(&op.results);
            }
            CreateToken | ReplicaId | PartitionId => {
                self.out.push_str(&name);
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.result_types(&op.results);
            }
            GetTupleElement { index } => {
                self.head_operands(&name, op);
                let _ = write!(self.out, "[{index}]");
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            RngBitGenerator { algorithm } => {
                self.head_operands(&name, op);
                let _ = write!(self.out, ", algorithm = {}", algorithm.keyword());
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            Rng { distribution } => {
                self.head_operands(&name, op);
                let _ = write!(self.out, ", distribution = {}", distribution.keyword());
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            Composite {
                name: composite_name,
                ..
            } => {
                self.out.push_str(&name);
                self.out.push(' ');
                self.string(composite_name);
                if !op.operands.is_empty() {
                    self.out.push(' ');
                    self.operand_list(&op.operands);
                }
                // The name is written above; the rest of the schema's dictionary here.
                let extra = op_props_except(&op.kind, &["name"]);
                self.attrs(op, extra);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            CustomCall {
                call_target_name, ..
            } => {
                self.out.push_str(&name);
                self.out.push(' ');
                write_symbol(self.out, call_target_name);
                self.out.push('(');
                self.operand_list(&op.operands);
                self.out.push(')');
                let extra = op_props_except(&op.kind, &["call_target_name"]);
                self.attrs(op, extra);
                self.out.push_str(" : ");
                self.functional_type(&op.operands, &op.results);
            }
            AllGather { .. }
            | AllReduce { .. }
            | CollectiveBroadcast { .. }
            | CollectiveReduce { .. }
            | ReduceScatter { .. }
            | AllToAll { .. }
            | CollectivePermute { .. }
            | Send { .. }
            | Recv { .. }
            | Infeed { .. }
            | Outfeed { .. } => self.generic(op, op_props(&op.kind)),
            TopK { k, .. } => {
                let _ = write!(self.out, "{name}(");
                self.operand_list(&op.operands);
                let _ = write!(self.out, ", k = {k})");
                let extra = op_props_except(&op.kind, &["k"]);
                self.attrs(op, extra);
                self.out.push_str(" : ");
                self.type_list(&op.operands);
                self.out.push_str(" -> ");
                self.result_types(&op.results);
            }
            Check(check) => self.check(op, &name, check),
            RunParallel { .. } => self.run_parallel(op),
            InterpreterProbe { .. } => self.generic(op, op_props(&op.kind)),
            InterpreterPrint => self.generic(op, op_props(&op.kind)),
            RaggedDot { .. } | Scan { .. } => self.generic(op, op_props(&op.kind)),
            Fusion { .. } => self.generic(op, op_props(&op.kind)),
            ManualComputation(attrs) => self.manual_computation(op, attrs),
            ShardingConstraint(sharding) => {
                self.head_operands(&name, op);
                self.out.push_str(" <");
                write_sdy_sharding_body(self.out, sharding);
                self.out.push('>');
                self.attrs(op, vec![]);
                self.out.push_str(" : ");
                self.result_types(&op.results);
            }
        }
    }

    /// `sdy.manual_computation(%x) in_shardings=[…] out_shardings=[…] manual_axes={…}
    /// (%arg: T) {…} : (G) -> R`, as Shardy prints it (the generic form when the op has not
    /// the one region it needs).
    fn manual_computation(&mut self, op: &Op, attrs: &ManualComputationAttrs) {
        let [region] = op.regions.as_slice() else {
            return self.generic(op, op_props(&op.kind));
        };
        if region.blocks.len() != 1 {
            return self.generic(op, op_props(&op.kind));
        }
        self.out.push_str("sdy.manual_computation(");
        self.operand_list(&op.operands);
        self.out.push_str(") in_shardings=");
        write_sharding_list(self.out, &attrs.in_shardings);
        self.out.push_str(" out_shardings=");
        write_sharding_list(self.out, &attrs.out_shardings);
        self.out.push_str(" manual_axes=");
        write_axis_names(self.out, &attrs.manual_axes);
        self.out.push_str(" (");
        self.typed_values(&region.blocks[0].args);
        self.out.push_str(") ");
        self.region_body_only(region);
        self.attrs(op, vec![]);
        self.out.push_str(" : ");
        self.functional_type(&op.operands, &op.results);
    }

    /// `name %a, %b` (no space or operands when there are none).
    pub(super) fn head_operands(&mut self, name: &str, op: &Op) {
        self.out.push_str(name);
        if !op.operands.is_empty() {
            self.out.push(' ');
            self.operand_list(&op.operands);
        }
    }

    /// ` {attrs}`: the op's discardable attributes and `extra` inherent ones, sorted.
    pub(super) fn attrs(&mut self, op: &Op, extra: Props) {
        if op.attrs.is_empty() && extra.is_empty() {
            return;
        }
        let all: Vec<&NamedAttr> = extra.iter().chain(op.attrs.iter()).collect();
        self.out.push(' ');
        write_attr_dict(self.out, &all);
    }

    /// ` : T` when every operand and result has type `T`, else ` : (T1, T2) -> R`.
    pub(super) fn same_or_functional_type(&mut self, op: &Op) {
        self.out.push_str(" : ");
        let all: Vec<ValueId> = op.operands.iter().chain(&op.results).copied().collect();
        let first = all.first().and_then(|&v| self.type_of(v));
        let same = first.is_some() && all.iter().all(|&v| self.type_of(v) == first);
        if same && op.results.len() == 1 {
            self.value_type(op.results[0]);
        } else {
            self.functional_type(&op.operands, &op.results);
        }
    }

    /// `select %p, %a, %b : Tp, T` when both choices and the result share `T`.
    fn select(&mut self, op: &Op) {
        self.head_operands("stablehlo.select", op);
        self.attrs(op, vec![]);
        self.out.push_str(" : ");
        let uniform = op.operands.len() == 3
            && op.results.len() == 1
            && self.type_of(op.operands[1]).is_some()
            && self.type_of(op.operands[1]) == self.type_of(op.operands[2])
            && self.type_of(op.operands[1]) == self.type_of(op.results[0]);
        if uniform {
            self.value_type(op.operands[0]);
            self.out.push_str(", ");
            self.value_type(op.results[0]);
        } else {
            self.functional_type(&op.operands, &op.results);
        }
    }

    /// `name %x, key = [..] : (T) -> R`.
    fn operands_then_list(&mut self, op: &Op, key: &str, list: &[i64]) {
        self.head_operands(&op.kind.name(), op);
        let _ = write!(self.out, ", {key} = ");
        write_int_list(self.out, list);
        self.attrs(op, vec![]);
        self.out.push_str(" : ");
        self.functional_type(&op.operands, &op.results);
    }

    /// `name %x, %y, key = v : (T, U) -> R`.
    fn operands_then_scalar(&mut self, op: &Op, key: &str, value: i64) {
        self.head_operands(&op.kind.name(), op);
        let _ = write!(self.out, ", {key} = {value}");
        self.attrs(op, vec![]);
        self.out.push_str(" : ");
        self.functional_type(&op.operands, &op.results);
    }

    /// `stablehlo.slice %x [0:2, 1:3:2]` (a stride of 1 is left out).
    fn slice(&mut self, op: &Op, start: &[i64], limit: &[i64], strides: &[i64]) {
        if start.len() != limit.len() || start.len() != strides.len() {
            return self.generic(op, op_props(&op.kind));
        }
        self.head_operands("stablehlo.slice", op);
        self.out.push_str(" [");
        for i in 0..start.len() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let _ = write!(self.out, "{}:{}", start[i], limit[i]);
            if strides[i] != 1 {
                let _ = write!(self.out, ":{}", strides[i]);
            }
        }
        self.out.push(']');
        self.attrs(op, vec![]);
        self.out.push_str(" : ");
        self.functional_type(&op.operands, &op.results);
    }

    /// `"name"(%a) <{props}> ({regions}) {attrs} : (T) -> R`.
    pub(crate) fn generic(&mut self, op: &Op, props: Props) {
        self.out.push('"');
        self.out.push_str(&op.kind.name());
        self.out.push_str("\"(");
        self.operand_list(&op.operands);
        self.out.push(')');
        if !props.is_empty() {
            self.out.push_str(" <");
            write_attr_dict(self.out, &props.iter().collect::<Vec<_>>());
            self.out.push('>');
        }
        if !op.regions.is_empty() {
            self.out.push_str(" (");
            for (i, region) in op.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.region_generic(region);
            }
            self.out.push(')');
        }
        self.attrs(op, vec![]);
        self.out.push_str(" : ");
        self.functional_type(&op.operands, &op.results);
    }
}
