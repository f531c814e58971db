//! The one place every op goes through: check operands, infer result types with the IR's
//! verifier rules, then either stage the op into the active trace or run it eagerly.
//! Keeping both paths here is what makes a user function work the same eagerly and in `jit`.

use crate::array::{describe, Array, Repr};
use crate::core::body::Body;
use crate::core::dispatch;
use crate::core::eager;
use crate::core::trace;
use crate::device::default_device;
use crate::error::{Error, Result};
use systolic_ir::verify::infer_result_types;
use systolic_ir::{OpKind, Tensor, TensorType, Type, ValueId};

/// Describes operand types for error messages: `(float32[2,3], int32[])`.
pub(crate) fn describe_all(operands: &[&Array]) -> String {
    let parts: Vec<String> = operands.iter().map(|a| describe(a.aval())).collect();
    format!("({})", parts.join(", "))
}

/// Binds an op: its results, or the first error among the operands or of the op itself.
///
/// `name` is the user-facing op name for errors; `declared` gives result types for ops whose
/// results do not follow from the operands (convert, reshape, iota, …); `weak` marks results
/// weakly typed.
pub(crate) fn bind(
    name: &str,
    kind: OpKind,
    operands: &[&Array],
    bodies: Vec<Body>,
    declared: Option<Vec<TensorType>>,
    weak: bool,
) -> Result<Vec<Array>> {
    for a in operands {
        a.check()?;
    }
    let operand_types: Vec<Type> = operands
        .iter()
        .map(|a| Type::Tensor(a.aval().clone()))
        .collect();
    let sigs: Vec<_> = bodies.iter().map(Body::signature).collect();
    let declared_types: Option<Vec<Type>> = declared
        .as_ref()
        .map(|d| d.iter().cloned().map(Type::Tensor).collect());
    let results = infer_result_types(&kind, &operand_types, &sigs, declared_types.as_deref())
        .map_err(|m| Error::op(name, format!("{m} (operands {})", describe_all(operands))))?;
    let results: Vec<TensorType> = results
        .into_iter()
        .map(|t| match t {
            Type::Tensor(t) => Ok(t),
            other => Err(Error::op(name, format!("unexpected result type {other}"))),
        })
        .collect::<Result<_>>()?;
    if let Some((id, device)) = trace::current() {
        let values = trace::with_trace(id, |t| {
            let ins = operands
                .iter()
                .map(|a| lift(t, a))
                .collect::<Result<Vec<ValueId>>>()?;
            Ok(t.stage(kind, ins, &bodies, &results))
        })?;
        return Ok(values
            .into_iter()
            .zip(results)
            .map(|(v, ty)| {
                Array::make(
                    ty,
                    weak,
                    device,
                    Repr::Traced {
                        trace: id,
                        value: v,
                    },
                )
            })
            .collect());
    }
    let device = operands.first().map_or_else(default_device, |a| a.device());
    if let Some(other) = operands.iter().find(|a| a.device() != device) {
        return Err(Error::op(
            name,
            format!(
                "operands are on different devices ({device} and {}); device_put one of them",
                other.device()
            ),
        ));
    }
    if let Some(t) = operands.iter().find(|a| a.is_traced()) {
        return Err(Error::Trace(format!(
            "{name}: a traced {} was used after its jit trace ended (did it escape through a \
             closure or a global?)",
            describe(t.aval())
        )));
    }
    let inputs: Vec<Array> = operands.iter().map(|a| (*a).clone()).collect();
    let result_types = results.clone();
    let slots = dispatch::submit(results.len(), move || {
        let buffers = inputs
            .iter()
            .map(Array::buffer_of_call)
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&systolic_runtime::Buffer> = buffers.iter().collect();
        eager::run(&kind, &refs, &bodies, &result_types, device)
    });
    Ok(slots
        .into_iter()
        .zip(results)
        .map(|(p, ty)| Array::make(ty, weak, device, Repr::Pending(p)))
        .collect())
}

/// [`bind`] for single-result ops; a failure becomes a failed array.
pub(crate) fn bind1(
    name: &str,
    kind: OpKind,
    operands: &[&Array],
    declared: Option<TensorType>,
    weak: bool,
) -> Array {
    bind_with(name, kind, operands, vec![], declared, weak)
}

/// [`bind1`] with region bodies.
pub(crate) fn bind_with(
    name: &str,
    kind: OpKind,
    operands: &[&Array],
    bodies: Vec<Body>,
    declared: Option<TensorType>,
    weak: bool,
) -> Array {
    match bind(
        name,
        kind,
        operands,
        bodies,
        declared.map(|d| vec![d]),
        weak,
    ) {
        Ok(mut v) if v.len() == 1 => v.pop().unwrap_or_else(|| unreachable_failed(name)),
        Ok(v) => Array::failed(Error::op(
            name,
            format!("expected one result, got {}", v.len()),
        )),
        Err(e) => Array::failed(e),
    }
}

fn unreachable_failed(name: &str) -> Array {
    Array::failed(Error::op(name, "no result"))
}

/// A constant: staged under a trace, else put on the default device.
pub(crate) fn constant(tensor: Tensor, weak: bool) -> Array {
    if let Some((id, device)) = trace::current() {
        let ty = tensor.ty().clone();
        return match trace::with_trace(id, |t| Ok(t.constant(tensor))) {
            Ok(v) => Array::make(
                ty,
                weak,
                device,
                Repr::Traced {
                    trace: id,
                    value: v,
                },
            ),
            Err(e) => Array::failed(e),
        };
    }
    Array::from_tensor_weak(tensor, weak)
}

/// The trace value of `a`: its own if traced by `t`; a captured parameter if it belongs to an
/// enclosing trace (or is a large concrete array and `t` captures those); else a constant
/// holding its data.
pub(crate) fn lift(t: &mut trace::Trace, a: &Array) -> Result<ValueId> {
    match &a.inner.repr {
        Repr::Traced { trace, value } if *trace == t.id => Ok(*value),
        Repr::Traced { trace, .. } if t.outer.contains(trace) => Ok(t.capture(a)),
        Repr::Traced { .. } => Err(Error::Trace(
            "a traced array from a finished jit trace was used (did it escape through a \
             closure or a global?)"
                .into(),
        )),
        Repr::Concrete(_) | Repr::Pending(_) | Repr::Sharded(_)
            if t.capture_concrete && a.num_elements() > trace::SMALL_CONSTANT_ELEMENTS =>
        {
            Ok(t.capture(a))
        }
        Repr::Concrete(b) => Ok(t.constant(b.to_tensor()?)),
        Repr::Pending(p) => Ok(t.constant(p.wait()?.to_tensor()?)),
        Repr::Sharded(_) => Ok(t.constant(a.buffer()?.to_tensor()?)),
        Repr::Failed(e) => Err(e.clone()),
    }
}
