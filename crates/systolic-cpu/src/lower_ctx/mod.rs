//! [`LowerCtx`]: what a kernel family sees while lowering one op, and [`captures`]: the values
//! an op's regions read from outside. The layer below the kernel families and the lowering
//! driver ([`crate::lower`]) alike: both use it, and it depends on neither.
//!
//! Every family's entry point has the signature
//! `pub fn lower(op: &Op, ctx: &LowerCtx) -> Result<Option<Box<dyn Kernel>>>`: it returns
//! `Ok(Some(kernel))` when it has a native kernel for the op, `Ok(None)` when it does not (the
//! op then runs on the interpreter fallback) and `Err` only for an op it recognises as malformed.
//! The context answers the questions a family asks at compile time — operand and result types,
//! whether an operand is a compile-time constant and its value — so that kernels can prepare
//! their loop plans before any data exists.

pub mod captures;

use crate::error::{CpuError, Result};
use std::collections::HashMap;
use systolic_ir::{
    Func, Module, Op, OpKind, ProcessGrid, ProcessId, Region, Tensor, TensorType, Type, ValueId,
};

/// One process of an SPMD set ([`crate::spmd`]), as lowering sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmdProcess {
    /// The process.
    pub id: ProcessId,
    /// The grid it belongs to.
    pub grid: ProcessGrid,
}

/// The compile-time view of the op being lowered: its module, its function, value types and
/// constant operands.
pub struct LowerCtx<'a> {
    module: &'a Module,
    func: &'a Func,
    constants: HashMap<ValueId, &'a Tensor>,
    process: Option<SpmdProcess>,
}

impl<'a> LowerCtx<'a> {
    /// A context for the ops of `func` (including the ops of its nested regions: value ids are
    /// per function).
    pub fn new(module: &'a Module, func: &'a Func) -> LowerCtx<'a> {
        let mut constants = HashMap::new();
        collect_constants(&func.body, &mut constants);
        LowerCtx {
            module,
            func,
            constants,
            process: None,
        }
    }

    /// The context for one process of an SPMD set ([`crate::spmd`]): collectives lower to
    /// kernels that meet the other processes.
    pub fn with_process(mut self, process: Option<SpmdProcess>) -> LowerCtx<'a> {
        self.process = process;
        self
    }

    /// The process the program is lowered for, when it is one of an SPMD set.
    pub fn process(&self) -> Option<SpmdProcess> {
        self.process
    }

    /// The module being compiled (after the optimisation pipeline).
    pub fn module(&self) -> &'a Module {
        self.module
    }

    /// The function the op is in.
    pub fn func(&self) -> &'a Func {
        self.func
    }

    /// The type of a value.
    pub fn value_type(&self, v: ValueId) -> &'a Type {
        self.func.value_type(v)
    }

    /// The tensor type of a value, or an error naming the value when it is a tuple or a token.
    pub fn tensor_type(&self, v: ValueId) -> Result<&'a TensorType> {
        match self.func.value_type(v) {
            Type::Tensor(t) => Ok(t),
            other => Err(CpuError::new(format!(
                "value {} has type {other}, a tensor was expected",
                self.value_name(v)
            ))),
        }
    }

    /// The tensor types of the op's operands (an error, naming the op, if one is not a tensor).
    pub fn operand_types(&self, op: &Op) -> Result<Vec<&'a TensorType>> {
        op.operands
            .iter()
            .map(|&v| self.tensor_type(v).map_err(|e| e.at_op(op)))
            .collect()
    }

    /// The tensor types of the op's results (an error, naming the op, if one is not a tensor).
    pub fn result_types(&self, op: &Op) -> Result<Vec<&'a TensorType>> {
        op.results
            .iter()
            .map(|&v| self.tensor_type(v).map_err(|e| e.at_op(op)))
            .collect()
    }

    /// The value of `v` when a `stablehlo.constant` of this function defines it.
    pub fn constant(&self, v: ValueId) -> Option<&'a Tensor> {
        self.constants.get(&v).copied()
    }

    /// The value of operand `index` of `op` when it is a constant.
    pub fn operand_constant(&self, op: &Op, index: usize) -> Option<&'a Tensor> {
        op.operands.get(index).and_then(|&v| self.constant(v))
    }

    /// The value's name in the source (`%arg0`, `%3`), or its arena number, for messages.
    pub fn value_name(&self, v: ValueId) -> String {
        match self
            .func
            .values
            .get(v.index())
            .and_then(|d| d.name.as_ref())
        {
            Some(name) => format!("%{name}"),
            None => format!("%#{}", v.0),
        }
    }
}

/// Records every value defined by a `stablehlo.constant` in `region` and its nested regions.
fn collect_constants<'a>(region: &'a Region, out: &mut HashMap<ValueId, &'a Tensor>) {
    for block in &region.blocks {
        for op in &block.ops {
            if let (OpKind::Constant(t), [result]) = (&op.kind, op.results.as_slice()) {
                out.insert(*result, t);
            }
            for r in &op.regions {
                collect_constants(r, out);
            }
        }
    }
}
