//! Collectives of a single-device program: when a module is compiled for one replica and one
//! partition (its `mhlo.num_replicas` and `mhlo.num_partitions` attributes are 1, or absent),
//! every process id is 0 and every collective has one participant, so the device ids and the
//! collectives are constants and identities. No backend kernel family takes them (they would
//! run on the CPU backend's interpreter fallback, which computes them the same way); the
//! rewritten program is plain data flow the backend compiles.
//!
//! The rules, kept together in [`rewrite`], match the interpreter's single-process collectives
//! (`systolic-interp`, `ops/collective.rs`):
//!
//! - `replica_id`, `partition_id` → the constant 0 of their type (`tensor<ui32>`);
//! - `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all` (split count 1) and
//!   `collective_broadcast` → their operands, when every replica group is `[0]` (padding `-1`
//!   ignored) or there are none (all processes: the one), and each result has its operand's
//!   type (a reduction over one value is that value; gathering, scattering or exchanging one
//!   piece moves nothing) — except a `collective_broadcast` with `has_dynamic_root`, whose
//!   last operand is the roots (kept: the fallback checks them);
//! - `collective_permute` → its operand when every source–target pair is `(0, 0)`, zeros of its
//!   type when there are no pairs (the spec: a process no pair targets receives zeros);
//! - `custom_call @Sharding`, `@SPMDFullToShardShape`, `@SPMDShardToFullShape` without side
//!   effects or called computations, with one operand of the result's type → the operand (on
//!   one device a shard is the whole value).
//!
//! Anything else — groups naming other processes, pairs between other processes, a module for
//! several devices, a module running functions on a grid of processes with
//! `interpreter.run_parallel` — is left alone: it is not a single-device program, and whatever
//! runs it reports that.

use super::simplify::splat::emit_splat_tensor;
use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action, Rewriter};
use systolic_ir::{
    Attribute, CollectiveAttrs, Diagnostic, Module, Op, OpKind, Tensor, TensorType, ValueId,
};

/// The module attribute with the number of replicas.
pub const NUM_REPLICAS_ATTR: &str = "mhlo.num_replicas";
/// The module attribute with the number of partitions.
pub const NUM_PARTITIONS_ATTR: &str = "mhlo.num_partitions";

/// Custom-call targets that only annotate shardings: identities on one device.
const SHARDING_TARGETS: [&str; 3] = ["Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"];

/// The single-device collective rewrite.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleDeviceSpmd;

impl Pass for SingleDeviceSpmd {
    fn name(&self) -> &'static str {
        "single_device_spmd"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        if !is_single_device(module) {
            return Ok(false);
        }
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= rewrite_func(func, &mut |rw, op| {
                Ok(match rewrite(rw, op) {
                    Some(values) => Action::Replace(values),
                    None => Action::Keep,
                })
            })?;
        }
        Ok(changed)
    }
}

/// True when the module runs on one replica and one partition (an absent count is 1; a count
/// that is not an integer is not understood, and the module is not taken as single-device).
pub fn is_single_device(module: &Module) -> bool {
    let count = |name: &str| match module.attrs.iter().find(|a| a.name == name) {
        None => Some(1),
        Some(a) => match a.value {
            Attribute::Int(n, _) => Some(n),
            _ => None,
        },
    };
    count(NUM_REPLICAS_ATTR) == Some(1)
        && count(NUM_PARTITIONS_ATTR) == Some(1)
        && !runs_a_process_grid(module)
}

/// True when the module runs functions on a grid of processes (`interpreter.run_parallel`, the
/// interpreter tests' harness): those functions are not single-device programs whatever the
/// module's attributes say.
fn runs_a_process_grid(module: &Module) -> bool {
    let mut found = false;
    for func in &module.funcs {
        systolic_ir::walk::walk_ops(&func.body, &mut |op, _| {
            found |= matches!(op.kind, OpKind::RunParallel { .. });
        });
    }
    found
}

/// The values replacing `op`'s results on a single device, or `None` to keep it.
fn rewrite(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    use OpKind::*;
    match &op.kind {
        ReplicaId | PartitionId => {
            let [r] = op.results[..] else {
                return None;
            };
            let ty = rw.tensor_ty(r)?.clone();
            Some(vec![rw.emit_constant(Tensor::zeros(ty))])
        }
        // With `has_dynamic_root` the last operand of a broadcast or reduce is the roots, not a value sent:
        // "results = operands" would be wrong, and a root other than 0 is an error only the
        // run can report. Such a broadcast is kept (the fallback runs it).
        CollectiveBroadcast { collective } | CollectiveReduce { collective }
            if collective.has_dynamic_root =>
        {
            None
        }
        AllReduce { collective }
        | AllGather { collective, .. }
        | ReduceScatter { collective, .. }
        | CollectiveBroadcast { collective }
        | CollectiveReduce { collective }
        | AllToAll {
            split_count: 1,
            collective,
            ..
        } if one_participant(collective) => identity(rw, op),
        CollectivePermute {
            source_target_pairs,
            ..
        } => {
            if source_target_pairs.is_empty() {
                identity(rw, op)?;
                let types: Vec<TensorType> = op
                    .results
                    .iter()
                    .map(|&r| rw.tensor_ty(r).cloned())
                    .collect::<Option<_>>()?;
                let zeros = types.iter().map(|ty| {
                    let zero = Tensor::zeros(TensorType::scalar(ty.dtype));
                    emit_splat_tensor(rw, ty, zero)
                });
                Some(zeros.collect())
            } else if source_target_pairs.iter().all(|&p| p == (0, 0)) {
                identity(rw, op)
            } else {
                None
            }
        }
        CustomCall {
            call_target_name,
            has_side_effect: false,
            called_computations,
            ..
        } if SHARDING_TARGETS.contains(&call_target_name.as_str())
            && called_computations.is_empty()
            && op.operands.len() == 1 =>
        {
            identity(rw, op)
        }
        _ => None,
    }
}

/// True when every replica group is just process 0 (`-1` pads short rows), or there are no
/// groups (all processes: here, process 0).
fn one_participant(attrs: &CollectiveAttrs) -> bool {
    attrs
        .replica_groups
        .iter()
        .all(|group| group.iter().copied().filter(|&p| p != -1).eq([0]))
}

/// The operands as the results, when they are as many and of the same types.
fn identity(rw: &Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    let same = op.operands.len() == op.results.len()
        && op
            .operands
            .iter()
            .zip(&op.results)
            .all(|(&a, &r)| rw.tensor_ty(a).is_some() && rw.ty(a) == rw.ty(r));
    same.then(|| op.operands.clone())
}
