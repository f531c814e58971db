//! Lowering functions and regions into [`Program`]s, op by op.
//!
//! Control flow, calls, tuples and constants are lowered here; every other op is offered to its
//! kernel family ([`crate::kernels::lower_native`]) and runs on the interpreter fallback when
//! the family has no kernel for it.

use super::LowerCtx;
use crate::buffer::CpuBuffer;
use crate::error::{CpuError, Result};
use crate::kernels::control::{
    BranchIndex, BranchKernel, CallKernel, GetTupleElementKernel, IdentityKernel, TokenKernel,
    TupleKernel, WhileKernel,
};
use crate::kernels::fallback::FallbackModule;
use crate::kernels::lower_native;
use crate::lower_ctx::captures::op_captures;
use crate::program::{Exec, Program, RtValue, Step};
use crate::spmd::SpmdProcess;
use std::collections::HashMap;
use std::sync::Arc;
use systolic_ir::{Module, Op, OpKind, Region, Span, Type, ValueId};

/// An op that runs on the interpreter fallback.
#[derive(Clone, Debug, PartialEq)]
pub struct FallbackOp {
    /// The op (`stablehlo.sort`).
    pub op: String,
    /// The function it is in.
    pub func: String,
    /// Where it is in the source.
    pub span: Option<Span>,
}

/// Lowers the functions of one module; shares lowered callees between call sites.
pub struct Lowerer<'m> {
    module: &'m Module,
    fallback: FallbackModule<'m>,
    fallback_ops: Vec<FallbackOp>,
    callees: HashMap<String, Arc<Program>>,
    call_stack: Vec<String>,
    process: Option<SpmdProcess>,
}

impl<'m> Lowerer<'m> {
    /// A lowerer for `module` (already optimised).
    pub fn new(module: &'m Module) -> Lowerer<'m> {
        Lowerer {
            module,
            fallback: FallbackModule::new(module),
            fallback_ops: vec![],
            callees: HashMap::new(),
            call_stack: vec![],
            process: None,
        }
    }

    /// A lowerer for one process of an SPMD set: the process ids become constants and the
    /// collectives kernels that meet the other processes ([`crate::kernels::collective`]).
    pub fn for_process(module: &'m Module, process: SpmdProcess) -> Lowerer<'m> {
        Lowerer {
            process: Some(process),
            ..Lowerer::new(module)
        }
    }

    /// Finishes lowering: seals the fallback module and returns the ops that use it.
    pub fn finish(self) -> Vec<FallbackOp> {
        self.fallback.seal();
        self.fallback_ops
    }

    /// The program of function `name` (lowered once, shared by every caller).
    pub fn lower_function(&mut self, name: &str) -> Result<Arc<Program>> {
        if let Some(p) = self.callees.get(name) {
            return Ok(p.clone());
        }
        if self.call_stack.iter().any(|n| n == name) {
            return Err(CpuError::new(format!(
                "recursive call of @{name} (call chain: @{})",
                self.call_stack.join(" -> @")
            )));
        }
        let module = self.module;
        let func = module.func(name).ok_or_else(|| {
            let names: Vec<String> = module
                .funcs
                .iter()
                .map(|f| format!("@{}", f.name))
                .collect();
            CpuError::new(format!(
                "no function @{name} in the module (it has: {})",
                names.join(", ")
            ))
        })?;
        self.call_stack.push(name.to_string());
        let ctx = LowerCtx::new(module, func).with_process(self.process);
        let program = self.lower_region(&ctx, &func.body, &[], format!("@{name}"));
        self.call_stack.pop();
        let program = Arc::new(program?);
        self.callees.insert(name.to_string(), program.clone());
        Ok(program)
    }

    /// A program for `region`: inputs are its block arguments then `captures`.
    fn lower_region(
        &mut self,
        ctx: &LowerCtx<'m>,
        region: &'m Region,
        captures: &[ValueId],
        name: String,
    ) -> Result<Program> {
        let block = region
            .entry()
            .ok_or_else(|| CpuError::new(format!("{name}: region has no block")))?;
        let mut b = Builder::default();
        let inputs: Vec<usize> = block
            .args
            .iter()
            .chain(captures)
            .map(|&v| b.def(v))
            .collect();
        let input_types = block
            .args
            .iter()
            .chain(captures)
            .map(|&v| ctx.value_type(v).clone())
            .collect();
        for op in &block.ops {
            if let OpKind::Return(_) = op.kind {
                let outputs = op
                    .operands
                    .iter()
                    .map(|&v| b.slot(ctx, v).map_err(|e| e.at_op(op)))
                    .collect::<Result<_>>()?;
                return Ok(Program::new(
                    name,
                    b.num_slots,
                    inputs,
                    input_types,
                    b.steps,
                    outputs,
                ));
            }
            let (exec, extra) = self.lower_op(ctx, op).map_err(|e| e.at_op(op))?;
            let operands = op
                .operands
                .iter()
                .chain(&extra)
                .map(|&v| b.slot(ctx, v).map_err(|e| e.at_op(op)))
                .collect::<Result<_>>()?;
            let results = op.results.iter().map(|&v| b.def(v)).collect();
            let result_types = op
                .results
                .iter()
                .map(|&v| ctx.value_type(v).clone())
                .collect();
            b.steps.push(
                Step::new(
                    exec,
                    operands,
                    results,
                    result_types,
                    op.kind.name(),
                    op.span,
                )
                .with_cost(super::cost::estimate_ns(op, ctx))
                .with_fused_ops(fused_ops(op))
                .with_scope(scope(op)),
            );
        }
        Err(CpuError::new(format!(
            "{name}: block ends without a return"
        )))
    }

    /// What runs for `op`, and the extra operands it takes after its own (captured values).
    fn lower_op(&mut self, ctx: &LowerCtx<'m>, op: &'m Op) -> Result<(Exec, Vec<ValueId>)> {
        let value = |k: Box<dyn crate::program::ValueKernel>| Ok((Exec::Value(k), vec![]));
        match &op.kind {
            OpKind::Constant(t) => Ok((
                Exec::Constant(RtValue::Buffer(CpuBuffer::from_tensor(t))),
                vec![],
            )),
            OpKind::While => {
                let captures = op_captures(op);
                let [cond, body] = op.regions.as_slice() else {
                    return Err(CpuError::new("while needs two regions (cond, body)"));
                };
                let here = ctx.func().name.clone();
                let cond =
                    self.lower_region(ctx, cond, &captures, format!("while cond in @{here}"))?;
                let body =
                    self.lower_region(ctx, body, &captures, format!("while body in @{here}"))?;
                let k = WhileKernel::new(cond, body, op.operands.len());
                Ok((Exec::Value(Box::new(k)), captures))
            }
            OpKind::If | OpKind::Case => {
                let captures = op_captures(op);
                let here = ctx.func().name.clone();
                let branches = op
                    .regions
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        self.lower_region(ctx, r, &captures, format!("branch {i} in @{here}"))
                    })
                    .collect::<Result<Vec<_>>>()?;
                let kind = if op.kind == OpKind::If {
                    BranchIndex::Predicate
                } else {
                    BranchIndex::Index
                };
                Ok((
                    Exec::Value(Box::new(BranchKernel::new(kind, branches))),
                    captures,
                ))
            }
            OpKind::Call { callee } => {
                let p = self.lower_function(callee)?;
                value(Box::new(CallKernel::new(p)))
            }
            OpKind::Tuple => value(Box::new(TupleKernel)),
            OpKind::GetTupleElement { index } => value(Box::new(GetTupleElementKernel {
                index: usize::try_from(*index)
                    .map_err(|_| CpuError::new(format!("negative tuple index {index}")))?,
            })),
            OpKind::AfterAll | OpKind::CreateToken => value(Box::new(TokenKernel)),
            OpKind::ReplicaId | OpKind::PartitionId if self.process.is_some() => {
                let p = self.process.expect("checked").id;
                let id = if op.kind == OpKind::ReplicaId {
                    p.replica
                } else {
                    p.partition
                };
                let ty = ctx.result_types(op)?[0].clone();
                let storage = crate::buffer::Storage::U32(vec![id]);
                let b = CpuBuffer::new(ty, storage)
                    .map_err(|e| CpuError::new(format!("the process id: {e}")))?;
                Ok((Exec::Constant(RtValue::Buffer(b)), vec![]))
            }
            // Identities: results are the operands (moved when they die here).
            OpKind::OptimizationBarrier | OpKind::ShardingConstraint(_) => {
                value(Box::new(IdentityKernel))
            }
            // On one device with every manual axis of size 1, the body is the computation.
            OpKind::ManualComputation(attrs) => {
                let mesh = attrs
                    .mesh_name()
                    .and_then(|m| self.module.meshes.iter().find(|x| x.name == m));
                attrs
                    .check_single_device(mesh)
                    .map_err(|m| CpuError::new(m).at_op(op))?;
                let [region] = op.regions.as_slice() else {
                    return Err(CpuError::new("sdy.manual_computation needs one region").at_op(op));
                };
                let captures = op_captures(op);
                let here = ctx.func().name.clone();
                let body = self.lower_region(
                    ctx,
                    region,
                    &captures,
                    format!("sdy.manual_computation in @{here}"),
                )?;
                Ok((
                    Exec::Value(Box::new(CallKernel::new(Arc::new(body)))),
                    captures,
                ))
            }
            _ => self.lower_compute_op(ctx, op),
        }
    }

    /// A native kernel when the op's family has one, else the interpreter fallback.
    fn lower_compute_op(&mut self, ctx: &LowerCtx<'m>, op: &'m Op) -> Result<(Exec, Vec<ValueId>)> {
        let captures = op_captures(op);
        let all_tensors = op
            .operands
            .iter()
            .chain(&op.results)
            .all(|&v| matches!(ctx.value_type(v), Type::Tensor(_)));
        // Families see only the op's own operands, so an op whose regions read outer values
        // always falls back.
        if all_tensors && captures.is_empty() {
            if let Some(k) = lower_native(op, ctx)? {
                return Ok((Exec::Kernel(k), vec![]));
            }
        }
        if let OpKind::Composite { decomposition, .. } = &op.kind {
            let p = self.lower_function(decomposition)?;
            return Ok((Exec::Value(Box::new(CallKernel::new(p))), vec![]));
        }
        if let (OpKind::Fusion { name, .. }, [region]) = (&op.kind, op.regions.as_slice()) {
            // No fused kernel for it: run its ops one by one, each on its own kernel.
            let here = ctx.func().name.clone();
            let body = self.lower_region(ctx, region, &captures, format!("{name} in @{here}"))?;
            return Ok((
                Exec::Value(Box::new(CallKernel::new(Arc::new(body)))),
                captures,
            ));
        }
        if let Some(p) = self.process {
            if op.kind.family() == systolic_ir::OpFamily::Collective {
                return Err(CpuError::new(format!(
                    "process {} of a {}×{} SPMD set has no kernel for this op (the interpreter \
                     fallback runs one process only)",
                    p.id, p.grid.replicas, p.grid.partitions
                )));
            }
        }
        self.fallback_ops.push(FallbackOp {
            op: op.kind.name(),
            func: ctx.func().name.clone(),
            span: op.span,
        });
        let k = self.fallback.kernel(ctx.func(), op, &captures);
        Ok((Exec::Value(Box::new(k)), captures))
    }
}

/// Assigns dense slot numbers to the values of one program.
#[derive(Default)]
struct Builder {
    slots: HashMap<ValueId, usize>,
    num_slots: usize,
    steps: Vec<Step>,
}

impl Builder {
    /// A new slot for a value defined here.
    fn def(&mut self, v: ValueId) -> usize {
        let s = self.num_slots;
        self.num_slots += 1;
        self.slots.insert(v, s);
        s
    }

    /// The slot of a value read here.
    fn slot(&self, ctx: &LowerCtx, v: ValueId) -> Result<usize> {
        self.slots.get(&v).copied().ok_or_else(|| {
            CpuError::new(format!(
                "value {} is used before it is defined",
                ctx.value_name(v)
            ))
        })
    }
}

/// The ops of a `systolic.fusion` in program order, each once, without the dialect and the
/// region's return (`sine,multiply,add,reduce`): how a trace names the fused kernel. Empty for
/// other ops.
/// The scope path of `op` from its location: a named location `scope/path/op` (what
/// `systolic::named_scope` and JAX's `jax.named_scope` give an op, `jit(f)/layer1/dot_general`)
/// is the scope `scope/path`; found through call sites (the callee) and fused locations (the
/// first named one). Empty when the op has none.
fn scope(op: &Op) -> String {
    fn named(loc: &systolic_ir::Location) -> Option<&str> {
        use systolic_ir::Location;
        match loc {
            Location::Name { name, .. } => Some(name),
            Location::CallSite { callee, .. } => named(callee),
            Location::Fused { locations, .. } => locations.iter().find_map(named),
            _ => None,
        }
    }
    op.loc
        .as_ref()
        .and_then(named)
        .and_then(|n| n.rsplit_once('/'))
        .map_or_else(String::new, |(scope, _)| scope.to_string())
}

fn fused_ops(op: &Op) -> String {
    if !matches!(op.kind, OpKind::Fusion { .. }) {
        return String::new();
    }
    let mut names: Vec<String> = vec![];
    for region in &op.regions {
        systolic_ir::walk::walk_ops(region, &mut |inner, _| {
            let full = inner.kind.name();
            let short = full.rsplit('.').next().unwrap_or(&full).to_string();
            if short != "return" && !names.contains(&short) {
                names.push(short);
            }
        });
    }
    names.join(",")
}
