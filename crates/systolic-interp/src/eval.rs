//! The evaluator: walks a function's blocks op by op, binding SSA values, and routes each op to
//! the module of its family in [`crate::ops`]. Ops with regions get a [`Regions`] handle to run
//! their bodies; `interpreter.run_parallel` starts one interpreter per process
//! ([`crate::parallel`]).

use crate::error::{InterpError, Result};
use crate::ops;
use crate::parallel::Process;
use crate::regions::Regions;
use crate::value::Value;
use std::collections::HashMap;
use systolic_ir::{CheckOp, Func, Module, Op, OpKind, Region, Tensor, Type};

/// What a `check.*` op found.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckOutcome {
    /// The check op (`check.expect_eq`).
    pub op: String,
    /// The function it is in.
    pub func: String,
    /// Where it is in the source.
    pub span: Option<systolic_ir::Span>,
    /// `None` when the check passed, or why it failed.
    pub failure: Option<String>,
}

/// The reference interpreter over one module.
///
/// ```
/// # // The parser is needed for a text example; see the crate tests.
/// use systolic_interp::Interpreter;
/// let module = systolic_ir::Module::default();
/// let mut interp = Interpreter::new(&module);
/// assert!(interp.call("main", vec![]).is_err());
/// ```
pub struct Interpreter<'m> {
    module: &'m Module,
    checks: Vec<CheckOutcome>,
    /// The functions being called, outermost first (to find recursion).
    calls: Vec<&'m str>,
    process: Option<Process>,
    /// The values `interpreter.probe` recorded, per probe id in execution order (iteration 0
    /// first): what `check.expect_serialized_eq` compares with. The upstream interpreter
    /// writes them to files and reads them back; holding them is the same comparison.
    probes: HashMap<String, Vec<Tensor>>,
}

/// Values bound so far in one activation of a function, indexed by `ValueId`.
type Env = Vec<Option<Value>>;

/// Stack left when a call grows the stack (`stacker`): enough for one function's ops to reach
/// the next call.
const STACK_RED_ZONE: usize = 256 << 10;
/// Stack added each time: a chain of thousands of calls runs without overflowing the thread's
/// stack, however small it is.
const STACK_GROWTH: usize = 4 << 20;

impl<'m> Interpreter<'m> {
    /// An interpreter for `module`.
    pub fn new(module: &'m Module) -> Self {
        Interpreter {
            module,
            checks: vec![],
            calls: vec![],
            process: None,
            probes: HashMap::new(),
        }
    }

    /// An interpreter for `module` running as `process` of an `interpreter.run_parallel` grid.
    pub fn with_process(module: &'m Module, process: Process) -> Self {
        Interpreter {
            process: Some(process),
            ..Interpreter::new(module)
        }
    }

    /// The process this interpreter runs as, under `interpreter.run_parallel`.
    pub fn process(&self) -> Option<&Process> {
        self.process.as_ref()
    }

    /// The outcomes of the `check.*` ops run so far.
    pub fn checks(&self) -> &[CheckOutcome] {
        &self.checks
    }

    /// Takes the outcomes of the `check.*` ops run so far.
    pub fn take_checks(&mut self) -> Vec<CheckOutcome> {
        std::mem::take(&mut self.checks)
    }

    /// Calls function `name` with `args`, checking their number and types.
    pub fn call(&mut self, name: &str, args: Vec<Value>) -> Result<Vec<Value>> {
        let module = self.module;
        let func = module.func(name).ok_or_else(|| {
            let names: Vec<&str> = module.funcs.iter().map(|f| f.name.as_str()).collect();
            InterpError::new(format!(
                "no function @{name} in the module (it has: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names
                        .iter()
                        .map(|n| format!("@{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ))
        })?;
        let params = func.param_types();
        if params.len() != args.len() {
            return Err(InterpError {
                func: Some(name.to_string()),
                ..InterpError::new(format!(
                    "expects {} arguments, got {}",
                    params.len(),
                    args.len()
                ))
            });
        }
        for (i, (p, a)) in params.iter().zip(&args).enumerate() {
            let got = a.ty();
            if &got != p {
                return Err(InterpError {
                    func: Some(name.to_string()),
                    ..InterpError::new(format!("argument {i} must be {p}, got {got}"))
                });
            }
        }
        // A function already being called is recursion, which StableHLO functions cannot do
        // (XLA refuses it): name the cycle. Any acyclic chain runs, however deep.
        if let Some(first) = self.calls.iter().position(|&f| f == func.name.as_str()) {
            let mut cycle: Vec<String> = self.calls[first..]
                .iter()
                .map(|f| format!("@{f}"))
                .collect();
            cycle.push(format!("@{name}"));
            return Err(InterpError::new(format!(
                "recursion: {} (functions cannot call themselves)",
                cycle.join(" → ")
            )));
        }
        self.calls.push(func.name.as_str());
        let mut env: Env = vec![None; func.values.len()];
        let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || {
            self.eval_region(func, &func.body, args, &mut env)
        });
        self.calls.pop();
        result
    }

    fn eval_region(
        &mut self,
        func: &'m Func,
        region: &'m Region,
        args: Vec<Value>,
        env: &mut Env,
    ) -> Result<Vec<Value>> {
        let block = region
            .entry()
            .ok_or_else(|| InterpError::new("region has no block"))?;
        if block.args.len() != args.len() {
            return Err(InterpError::new(format!(
                "region expects {} arguments, got {}",
                block.args.len(),
                args.len()
            )));
        }
        for (&id, v) in block.args.iter().zip(args) {
            env[id.index()] = Some(v);
        }
        for op in &block.ops {
            if let OpKind::Return(_) = op.kind {
                return op
                    .operands
                    .iter()
                    .map(|&v| lookup(env, v, func, op))
                    .collect();
            }
            // A run past its time limit stops between ops (`systolic run --timeout`).
            systolic_ir::deadline::check()
                .map_err(|e| locate(InterpError::new(e.to_string()), func, op))?;
            let results = self
                .eval_op(func, op, env)
                .map_err(|e| locate(e, func, op))?;
            if results.len() != op.results.len() {
                return Err(locate(
                    InterpError::new(format!(
                        "produced {} results, the op declares {}",
                        results.len(),
                        op.results.len()
                    )),
                    func,
                    op,
                ));
            }
            for (&id, v) in op.results.iter().zip(results) {
                env[id.index()] = Some(v);
            }
        }
        Err(InterpError {
            func: Some(func.name.clone()),
            ..InterpError::new("block ends without a return")
        })
    }

    fn eval_op(&mut self, func: &'m Func, op: &'m Op, env: &mut Env) -> Result<Vec<Value>> {
        let args: Vec<Value> = op
            .operands
            .iter()
            .map(|&v| lookup(env, v, func, op))
            .collect::<Result<_>>()?;
        let result_types: Vec<Type> = op
            .results
            .iter()
            .map(|&r| func.value_type(r).clone())
            .collect();
        // The results' memory, within the host budget, before anything is computed.
        let result_bytes = result_types
            .iter()
            .filter_map(Type::as_tensor)
            .fold(0u64, |n, t| n.saturating_add(t.byte_size() as u64));
        systolic_ir::memory_budget::check(result_bytes, || {
            let tys: Vec<String> = result_types.iter().map(Type::to_string).collect();
            format!("the result {}", tys.join(", "))
        })
        .map_err(|e| InterpError::new(e.to_string()))?;
        if let OpKind::InterpreterProbe { probe_id } = &op.kind {
            let value = crate::operands::tensor(&args, 0)?.clone();
            self.probes.entry(probe_id.clone()).or_default().push(value);
            return Ok(args);
        }
        if let OpKind::InterpreterPrint = &op.kind {
            let value = crate::operands::tensor(&args, 0)?;
            let label = match func
                .values
                .get(op.operands[0].index())
                .and_then(|v| v.name.as_deref())
            {
                Some(name) => format!("%{name}"),
                None => format!("%{}", op.operands[0].index()),
            };
            crate::print_sink::print_value(&label, value);
            return Ok(vec![]);
        }
        if let OpKind::Check(check) = &op.kind {
            let failure = match check {
                CheckOp::ExpectSerializedEq {
                    probe_id,
                    iteration,
                } => {
                    let recorded = usize::try_from(*iteration)
                        .ok()
                        .and_then(|i| self.probes.get(probe_id)?.get(i));
                    ops::check::serialized_eq(&args, probe_id, *iteration, recorded)?
                }
                _ => ops::check::eval(check, &args)?,
            };
            self.checks.push(CheckOutcome {
                op: op.kind.name(),
                func: func.name.clone(),
                span: op.span,
                failure,
            });
            return Ok(vec![]);
        }
        if let OpKind::RunParallel { programs, infeed } = &op.kind {
            if let Some(p) = &self.process {
                crate::bail!(
                    "process {} runs a nested interpreter.run_parallel, which is not supported",
                    p.id()
                );
            }
            let module = self.module;
            return crate::parallel::run_parallel(
                module,
                programs,
                infeed,
                args,
                &result_types,
                &mut self.checks,
            );
        }
        // JAX's LAPACK custom calls carry their flags in the op's attributes.
        if let Some(call) = systolic_ir::lapack::LapackCall::from_op(op) {
            let call = call.map_err(crate::error::InterpError::new)?;
            return ops::lapack::eval(&call, &args, &result_types);
        }
        let mut regions = OpRegions {
            interp: self,
            func,
            op,
            env,
        };
        ops::eval(&op.kind, args, &result_types, &mut regions)
    }
}

/// The [`Regions`] of the op being evaluated.
struct OpRegions<'a, 'm> {
    interp: &'a mut Interpreter<'m>,
    func: &'m Func,
    op: &'m Op,
    env: &'a mut Env,
}

impl Regions for OpRegions<'_, '_> {
    fn count(&self) -> usize {
        self.op.regions.len()
    }

    fn run(&mut self, index: usize, args: Vec<Value>) -> Result<Vec<Value>> {
        let region = self.op.regions.get(index).ok_or_else(|| {
            InterpError::new(format!(
                "region {index} requested, the op has {}",
                self.op.regions.len()
            ))
        })?;
        self.interp.eval_region(self.func, region, args, self.env)
    }

    fn call(&mut self, func: &str, args: Vec<Value>) -> Result<Vec<Value>> {
        self.interp.call(func, args)
    }

    fn process(&self) -> Option<&Process> {
        self.interp.process.as_ref()
    }

    fn mesh(&self, name: &str) -> Option<&systolic_ir::SdyMesh> {
        self.interp.module.meshes.iter().find(|m| m.name == name)
    }
}

fn lookup(env: &Env, v: systolic_ir::ValueId, func: &Func, op: &Op) -> Result<Value> {
    env.get(v.index()).cloned().flatten().ok_or_else(|| {
        let name = func.values[v.index()]
            .name
            .clone()
            .unwrap_or_else(|| format!("#{}", v.0));
        locate(
            InterpError::new(format!("value %{name} is used before it is defined")),
            func,
            op,
        )
    })
}

/// Adds the op, function and place to an error that does not have them yet.
fn locate(mut e: InterpError, func: &Func, op: &Op) -> InterpError {
    if e.op.is_none() {
        e.op = Some(op.kind.name());
        e.span = op.span;
    }
    if e.func.is_none() {
        e.func = Some(func.name.clone());
    }
    e
}
