//! The interpreter fallback: runs one op with the reference interpreter.
//!
//! Correct for every op the interpreter knows, slow (values are converted to exact tensors and
//! back), and logged. Each fallback op becomes a tiny function of its own — parameters are the
//! op's operands and the outer values its regions capture, the body is the op and a return —
//! added to one module per executable that also holds every function of the compiled module (so
//! `func.call`s inside regions resolve). The module is shared by all fallback kernels of an
//! executable and sealed once lowering is done.

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::program::{RtValue, ValueArg, ValueKernel};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use systolic_interp::{Interpreter, Value};
use systolic_ir::{Block, Func, Module, Op, OpKind, Region, ReturnKind, ValueId, Visibility};

/// Collects the functions of the fallback ops of one executable; [`FallbackModule::seal`] makes
/// the module available to the kernels.
pub struct FallbackModule<'m> {
    funcs: Vec<Func>,
    base: &'m Module,
    sealed: Arc<OnceLock<Module>>,
}

impl<'m> FallbackModule<'m> {
    /// A builder whose module starts with every function of `module` (copied only if some op
    /// falls back).
    pub fn new(module: &'m Module) -> FallbackModule<'m> {
        FallbackModule {
            funcs: vec![],
            base: module,
            sealed: Arc::new(OnceLock::new()),
        }
    }

    /// A kernel running `op` of `func` on the interpreter. Its operands at run time are the op's
    /// operands followed by `captures` (outer values the op's regions read).
    pub fn kernel(&mut self, func: &Func, op: &Op, captures: &[ValueId]) -> FallbackKernel {
        let name = format!("__systolic_fallback_{}", self.funcs.len());
        let mut params: Vec<ValueId> = vec![];
        for &v in op.operands.iter().chain(captures) {
            if !params.contains(&v) {
                params.push(v);
            }
        }
        let arg_positions: Vec<usize> = op
            .operands
            .iter()
            .chain(captures)
            .map(|v| params.iter().position(|p| p == v).expect("listed above"))
            .collect();
        self.funcs.push(single_op_func(&name, func, op, &params));
        FallbackKernel {
            module: self.sealed.clone(),
            func_name: name,
            op_name: op.kind.name(),
            params: arg_positions,
            num_params: params.len(),
        }
    }

    /// Finishes the module; the kernels handed out can run from now on.
    pub fn seal(self) {
        if self.funcs.is_empty() {
            return;
        }
        let mut module = self.base.clone();
        module.funcs.extend(self.funcs);
        // A fresh builder's cell is empty; sealing twice is impossible (seal takes self).
        let _ = self.sealed.set(module);
    }
}

/// Runs one op on the reference interpreter.
#[derive(Debug)]
pub struct FallbackKernel {
    module: Arc<OnceLock<Module>>,
    func_name: String,
    op_name: String,
    /// For each run-time operand, which parameter of the function it is (duplicates collapse).
    params: Vec<usize>,
    num_params: usize,
}

impl ValueKernel for FallbackKernel {
    fn name(&self) -> String {
        format!("{} (interpreter fallback)", self.op_name)
    }

    fn run(&self, args: Vec<ValueArg<'_>>) -> Result<Vec<RtValue>> {
        // The interpreter keeps subnormals by IEEE rules and flushes where XLA does itself;
        // the kernels' FTZ/DAZ mode would flush inside its bit-level helpers too.
        let _ieee = crate::threads::DenormalMode::ieee();
        let module = self.module.get().ok_or_else(|| {
            CpuError::new("internal: the fallback module was not sealed after lowering")
        })?;
        let mut values: Vec<Option<Value>> = vec![None; self.num_params];
        for (arg, &p) in args.iter().zip(&self.params) {
            if values[p].is_none() {
                values[p] = Some(to_value(arg));
            }
        }
        let values: Vec<Value> = values
            .into_iter()
            .map(|v| v.unwrap_or(Value::Token))
            .collect();
        drop(args);
        let out = Interpreter::new(module)
            .call(&self.func_name, values)
            .map_err(|e| CpuError::new(format!("interpreter fallback: {}", e.message)))?;
        Ok(out.iter().map(from_value).collect())
    }
}

/// An interpreter value from a run-time value.
pub fn to_value(arg: &ValueArg<'_>) -> Value {
    match arg {
        ValueArg::Owned(v) => rt_to_value(v),
        ValueArg::Value(v) => rt_to_value(v),
        ValueArg::Buffer(b) => Value::Tensor(b.to_tensor()),
    }
}

fn rt_to_value(v: &RtValue) -> Value {
    match v {
        RtValue::Buffer(b) => Value::Tensor(b.to_tensor()),
        RtValue::Tuple(vs) => Value::Tuple(vs.iter().map(rt_to_value).collect()),
        RtValue::Token => Value::Token,
    }
}

/// A run-time value from an interpreter value.
pub fn from_value(v: &Value) -> RtValue {
    match v {
        Value::Tensor(t) => RtValue::Buffer(CpuBuffer::from_tensor(t)),
        Value::Tuple(vs) => RtValue::Tuple(vs.iter().map(from_value).collect()),
        Value::Token => RtValue::Token,
    }
}

/// A function `name(params) { results = op; return results }` with its own compact value arena.
fn single_op_func(name: &str, func: &Func, op: &Op, params: &[ValueId]) -> Func {
    let mut renumber = Renumber {
        src: func,
        map: HashMap::new(),
        out: Func::new(name),
    };
    let params: Vec<ValueId> = params.iter().map(|&v| renumber.id(v)).collect();
    let op = renumber.op(op);
    let mut f = renumber.out;
    f.visibility = Visibility::Private;
    f.result_types = op
        .results
        .iter()
        .map(|&r| f.value_type(r).clone())
        .collect();
    let ret = Op::new(OpKind::Return(ReturnKind::Func), op.results.clone(), vec![]);
    f.body = Region::single(Block {
        args: params,
        ops: vec![op, ret],
    });
    f
}

/// Copies an op into a new function, giving its values dense ids in the new arena.
struct Renumber<'a> {
    src: &'a Func,
    map: HashMap<ValueId, ValueId>,
    out: Func,
}

impl Renumber<'_> {
    fn id(&mut self, v: ValueId) -> ValueId {
        if let Some(&n) = self.map.get(&v) {
            return n;
        }
        let def = &self.src.values[v.index()];
        let n = self.out.new_value(def.ty.clone(), def.name.clone());
        self.map.insert(v, n);
        n
    }

    fn op(&mut self, op: &Op) -> Op {
        let mut copy = op.clone();
        copy.operands = op.operands.iter().map(|&v| self.id(v)).collect();
        copy.results = op.results.iter().map(|&v| self.id(v)).collect();
        copy.regions = op.regions.iter().map(|r| self.region(r)).collect();
        copy
    }

    fn region(&mut self, r: &Region) -> Region {
        Region {
            blocks: r
                .blocks
                .iter()
                .map(|b| Block {
                    args: b.args.iter().map(|&v| self.id(v)).collect(),
                    ops: b.ops.iter().map(|o| self.op(o)).collect(),
                })
                .collect(),
        }
    }
}
