//! Family: control flow, calls, tuples and tokens — `while`, `if`, `case`,
//! `optimization_barrier`, `tuple`, `get_tuple_element`, `after_all`, `create_token`,
//! `func.call`, `composite` (runs its decomposition) and `custom_call` (the few targets JAX
//! emits on one CPU device; anything else is a clear error naming the target).

use crate::error::Result;
use crate::operands::{expect_count, scalar_int, tensor};
use crate::regions::Regions;
use crate::value::Value;
use systolic_ir::{DType, OpKind, Tensor, Type};

/// Most iterations a `while` may run before the interpreter reports it as runaway.
const MAX_WHILE_ITERATIONS: u64 = 100_000_000;

/// Evaluates an op of this family.
pub fn eval(
    kind: &OpKind,
    args: Vec<Value>,
    result_types: &[Type],
    regions: &mut dyn Regions,
) -> Result<Vec<Value>> {
    use OpKind::*;
    match kind {
        While => run_while(args, regions),
        If => {
            expect_count(&args, 1)?;
            let pred = tensor(&args, 0)?;
            if pred.dtype() != DType::Bool {
                crate::bail!("pred must be tensor<i1>, got {}", pred.ty());
            }
            let branch = if scalar_int(pred, "pred")? != 0 { 0 } else { 1 };
            regions.run(branch, vec![])
        }
        Case => {
            expect_count(&args, 1)?;
            let index = scalar_int(tensor(&args, 0)?, "index")?;
            let branches = regions.count();
            if branches == 0 {
                crate::bail!("has no branches");
            }
            // An index outside [0, branches) selects the last branch, as the spec says.
            let branch = if index >= 0 && (index as usize) < branches {
                index as usize
            } else {
                branches - 1
            };
            regions.run(branch, vec![])
        }
        OptimizationBarrier => Ok(args),
        // A fusion means what its region computes: run it on the operands.
        Fusion { .. } => regions.run(0, args),
        // An identity: the layout it asks for means nothing on one device.
        ShardingConstraint(_) => {
            expect_count(&args, 1)?;
            Ok(args)
        }
        ManualComputation(attrs) => manual_computation(attrs, args, regions),
        Tuple => Ok(vec![Value::Tuple(args)]),
        GetTupleElement { index } => {
            expect_count(&args, 1)?;
            match &args[0] {
                Value::Tuple(elems) => usize::try_from(*index)
                    .ok()
                    .and_then(|i| elems.get(i))
                    .cloned()
                    .map(|v| vec![v])
                    .ok_or_else(|| {
                        crate::error::InterpError::new(format!(
                            "index {index} is out of range for a tuple of {} elements",
                            elems.len()
                        ))
                    }),
                other => crate::bail!("operand must be a tuple, got {}", other.ty()),
            }
        }
        AfterAll | CreateToken => {
            if let Some(v) = args.iter().find(|v| !matches!(v, Value::Token)) {
                crate::bail!("operands must be tokens, got {}", v.ty());
            }
            Ok(vec![Value::Token])
        }
        Call { callee } => regions.call(callee, args),
        Composite { decomposition, .. } => regions.call(decomposition, args),
        CustomCall { .. } if systolic_ir::host_callback::is_host_callback(kind) => {
            host_callback(kind, args, result_types)
        }
        CustomCall {
            call_target_name, ..
        } => custom_call(call_target_name, args, result_types),
        other => crate::bail!("{} is not a control-flow op", other.name()),
    }
}

/// `while`: runs the body while the condition region returns true, threading the values.
fn run_while(mut values: Vec<Value>, regions: &mut dyn Regions) -> Result<Vec<Value>> {
    if regions.count() != 2 {
        crate::bail!(
            "needs a condition and a body region, has {}",
            regions.count()
        );
    }
    let mut iterations = 0u64;
    // A run stopped by its time limit says how far this loop got.
    let stopped = |e: crate::error::InterpError, iterations: u64| {
        if systolic_ir::deadline::check().is_err() {
            crate::error::InterpError::new(format!(
                "{}; a while loop had run {iterations} iterations",
                e.message
            ))
        } else {
            e
        }
    };
    loop {
        if let Err(e) = systolic_ir::deadline::check() {
            return Err(stopped(
                crate::error::InterpError::new(e.to_string()),
                iterations,
            ));
        }
        let cond = regions
            .run(0, values.clone())
            .map_err(|e| stopped(e, iterations))?;
        let keep_going = match cond.as_slice() {
            [Value::Tensor(t)] if t.dtype() == DType::Bool && t.shape().is_empty() => {
                scalar_int(t, "condition")? != 0
            }
            _ => crate::bail!(
                "the condition region must return one tensor<i1>, returned {}",
                describe(&cond)
            ),
        };
        if !keep_going {
            return Ok(values);
        }
        iterations += 1;
        if iterations > MAX_WHILE_ITERATIONS {
            crate::bail!("ran more than {MAX_WHILE_ITERATIONS} iterations (an endless loop?)");
        }
        // The next condition call checks that the body returned as many values as it took.
        values = regions.run(1, values).map_err(|e| stopped(e, iterations))?;
    }
}

fn describe(values: &[Value]) -> String {
    let types: Vec<String> = values.iter().map(|v| v.ty().to_string()).collect();
    format!("({})", types.join(", "))
}

/// Custom-call targets that only annotate a value: shardings (`Sharding`, the SPMD shape
/// changes, which are identities on one device, and Shardy's round-trip `xla.sdy.*` results),
/// memory placement (`annotate_device_placement`, XLA's `MoveToHost`/`MoveToDevice`) and
/// layouts (`LayoutConstraint`). On one device, with one memory, they return their operand.
const IDENTITY_TARGETS: [&str; 8] = [
    "Sharding",
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "xla.sdy.FuncResultSharding",
    "annotate_device_placement",
    "MoveToHost",
    "MoveToDevice",
    "LayoutConstraint",
];

fn custom_call(target: &str, args: Vec<Value>, result_types: &[Type]) -> Result<Vec<Value>> {
    // JAX's pvary (`systolic_ir::pvary`) changes a value's type-level variance, never its
    // data: the identity on every process, not only on one device.
    if IDENTITY_TARGETS.contains(&target) || target == systolic_ir::pvary::PVARY_TARGET {
        let got: Vec<Type> = args.iter().map(Value::ty).collect();
        if got.as_slice() != result_types {
            crate::bail!(
                "custom_call target '{target}' is an identity on one device, but its operands \
                 {} and results ({}) differ",
                describe(&args),
                result_types
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        return Ok(args);
    }
    crate::bail!("custom_call target '{target}' is not supported by the interpreter")
}

/// `systolic.host_callback`: the registered closure, called on the operands
/// ([`systolic_ir::host_callback`]); its error is the op's.
fn host_callback(kind: &OpKind, args: Vec<Value>, result_types: &[Type]) -> Result<Vec<Value>> {
    let tensors = args
        .into_iter()
        .map(|v| match v {
            Value::Tensor(t) => Ok(t),
            other => Err(crate::error::InterpError::new(format!(
                "{}: a host callback takes tensors, not {}",
                kind.name(),
                other.ty()
            ))),
        })
        .collect::<Result<Vec<Tensor>>>()?;
    let results = systolic_ir::host_callback::invoke(kind, &tensors, result_types)
        .map_err(crate::error::InterpError::new)?;
    Ok(results.into_iter().map(Value::Tensor).collect())
}

/// `sdy.manual_computation` on one device: when every manual axis has size 1, each device's
/// piece is the whole value and the body is the computation itself (inline semantics).
/// Otherwise the body is a per-device program, which the compiler's
/// `lower_manual_computations` makes into one to run on that many devices.
fn manual_computation(
    attrs: &systolic_ir::ManualComputationAttrs,
    args: Vec<Value>,
    regions: &mut dyn Regions,
) -> Result<Vec<Value>> {
    let mesh = attrs.mesh_name().and_then(|m| regions.mesh(m));
    if let Err(m) = attrs.check_single_device(mesh) {
        crate::bail!("{m}");
    }
    regions.run(0, args)
}
