//! custom_call: the annotation targets (shardings, memory placement, layout constraints) are
//! identities on a value; batched, they are dropped (their attributes describe the per-example
//! value's rank) and the value passes through. Other targets are opaque kernels with no rule.

use crate::builder::{BVal, Cx};
use crate::Result;
use systolic_ir::batch_collective::{self, Collective, Marker};
use systolic_ir::{BinaryOp, DType, Op, OpKind, TensorType};

/// Targets that only annotate their operands (as the interpreter treats them).
const ANNOTATIONS: [&str; 8] = [
    "Sharding",
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "xla.sdy.FuncResultSharding",
    "annotate_device_placement",
    "MoveToHost",
    "MoveToDevice",
    "LayoutConstraint",
];

pub(crate) fn custom_call(cx: &mut Cx, op: &Op, args: &[BVal]) -> Result<Vec<BVal>> {
    let OpKind::CustomCall {
        call_target_name, ..
    } = &op.kind
    else {
        unreachable!()
    };
    let same_types = op.operands.len() == op.results.len()
        && op
            .operands
            .iter()
            .zip(&op.results)
            .all(|(&a, &r)| cx.src.value_type(a) == cx.src.value_type(r));
    if let Some(marker) = batch_collective::read(&op.kind) {
        return named_collective(cx, op, args, marker);
    }
    if ANNOTATIONS.contains(&call_target_name.as_str()) && same_types {
        return Ok(args.to_vec());
    }
    Err(cx.err(format!(
        "target @{call_target_name} has no batching rule (an opaque kernel; only its unbatched \
         use is supported)"
    )))
}

/// A collective over the named axis being batched: the same thing across the batch dimension.
/// `psum`/`pmax`/`pmin` reduce over it (every example gets the result: unbatched), an unbatched
/// operand is the same in every example (`psum` multiplies it by the batch size);
/// `all_gather` hands every example the whole batch stacked at its axis; `axis_index` is each
/// example's position.
fn named_collective(cx: &mut Cx, op: &Op, args: &[BVal], marker: Marker) -> Result<Vec<BVal>> {
    if cx.axis_name.as_deref() != Some(marker.axis_name.as_str()) {
        return Err(cx.err(format!(
            "a collective over axis '{}', which this vmap does not bind ({})",
            marker.axis_name,
            match &cx.axis_name {
                Some(n) => format!("its axis is '{n}'"),
                None => "it has no axis_name".to_string(),
            }
        )));
    }
    let operand = |cx: &Cx| {
        args.first()
            .copied()
            .ok_or_else(|| cx.err("the collective has no operand"))
    };
    let out = match marker.collective {
        Collective::AxisIndex => {
            let ty = TensorType::new(vec![cx.size], DType::I32);
            let v = cx.emit_as(OpKind::Iota { dimension: 0 }, vec![], ty)?;
            BVal::at(v, 0)
        }
        Collective::Sum | Collective::Max | Collective::Min => {
            let b = operand(cx)?;
            if !b.batched() {
                match marker.collective {
                    Collective::Sum => {
                        let n = cx.size as f64;
                        BVal::un(cx.mul_const(b.v, n)?)
                    }
                    _ => b,
                }
            } else {
                let v = cx.move_to(b, 0)?;
                let dtype = cx.ty(v)?.dtype;
                let (reducer, init) = match marker.collective {
                    Collective::Sum => (BinaryOp::Add, 0.0),
                    Collective::Max if dtype.is_float() => (BinaryOp::Maximum, f64::NEG_INFINITY),
                    Collective::Min if dtype.is_float() => (BinaryOp::Minimum, f64::INFINITY),
                    _ => {
                        return Err(cx.err(format!(
                            "pmax/pmin over a vmap axis of {} values (floats only)",
                            dtype.numpy_name()
                        )))
                    }
                };
                let init = cx.scalar(dtype, init)?;
                let region = cx.reducer(reducer, dtype)?;
                let kind = OpKind::Reduce {
                    dimensions: vec![0],
                };
                BVal::un(cx.emit_full(kind, vec![v, init], vec![region], None)?[0])
            }
        }
        Collective::AllGather(axis) => {
            let b = operand(cx)?;
            let rank = cx.src_ty(op.operands[0])?.rank() as i64;
            if axis < 0 || axis > rank {
                return Err(cx.err(format!(
                    "all_gather axis {axis} is out of range for rank {rank}"
                )));
            }
            BVal::un(cx.materialize(b, axis as usize)?)
        }
    };
    Ok(vec![out])
}
