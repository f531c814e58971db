//! `systolic.pvary`: JAX's `pvary` as a marker op, `stablehlo.custom_call @systolic.pvary(%x)`.
//!
//! Inside a per-device program (JAX's `shard_map` with `check_vma`), a value is *invariant*
//! over a group of devices (the same on each) or *varying*. `pvary` turns an invariant value
//! into a varying one without changing its data, so at run time it is the identity (the
//! interpreter returns its operand; the compiler's `erase_pvary` pass removes it before the CPU
//! and TPU backends see it). It exists for the transformations: its transpose is an
//! `all_reduce` sum over its groups (the cotangents of the devices that shared the value are
//! summed back into one invariant cotangent), just as `all_reduce`'s transpose is the identity.
//!
//! The groups live in the custom call's `backend_config`, a dictionary (api_version 4), so the
//! op round-trips through text:
//!
//! ```text
//! %1 = stablehlo.custom_call @systolic.pvary(%0) {api_version = 4 : i32,
//!        backend_config = {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>,
//!                          use_global_device_ids = true}} : (tensor<4xf32>) -> tensor<4xf32>
//! ```
//!
//! The groups are those of an `all_reduce` over the same `replica_groups`: with
//! `use_global_device_ids` they name flattened ids (what JAX's `shard_map` emits for `psum`),
//! otherwise replicas (the cross-replica mode). This module is the one place that writes and
//! reads the marker.
//!
//! ```
//! use systolic_ir::pvary::{is_pvary, pvary_groups, pvary_kind};
//! let kind = pvary_kind(&[vec![0, 1], vec![2, 3]], true);
//! assert!(is_pvary(&kind));
//! let groups = pvary_groups(&kind).unwrap();
//! assert_eq!(groups.replica_groups, vec![vec![0, 1], vec![2, 3]]);
//! assert!(groups.use_global_device_ids);
//! // Flattened ids need a channel: a placeholder a transformation replaces with a fresh one.
//! assert!(groups.channel_handle.is_some());
//! ```

use crate::attrs::{find_attr, Attribute, ChannelHandle, CollectiveAttrs, NamedAttr};
use crate::dtype::DType;
use crate::module::{Func, Op, ValueId};
use crate::ops::OpKind;
use crate::tensor::{Data, Tensor};

/// The custom call target of the marker.
pub const PVARY_TARGET: &str = "systolic.pvary";

/// The `backend_config` key holding the groups (a dense 2-D i64 array, rows padded with -1).
const GROUPS_KEY: &str = "replica_groups";
/// The `backend_config` key holding `use_global_device_ids` (a bool).
const GLOBAL_KEY: &str = "use_global_device_ids";

/// The op kind of a pvary over `replica_groups` (rows of process ids; flattened ids when
/// `use_global_device_ids`, replica ids otherwise).
pub fn pvary_kind(replica_groups: &[Vec<i64>], use_global_device_ids: bool) -> OpKind {
    let config = vec![
        NamedAttr::new(GROUPS_KEY, groups_attr(replica_groups)),
        NamedAttr::new(GLOBAL_KEY, Attribute::Bool(use_global_device_ids)),
    ];
    OpKind::CustomCall {
        call_target_name: PVARY_TARGET.to_string(),
        has_side_effect: false,
        backend_config: Some(Attribute::Dict(config)),
        api_version: 4,
        called_computations: vec![],
    }
}

/// A pvary of `operand` (a value of `func`) over `replica_groups`; its result is a new value of
/// `func` with the operand's type. The caller places the op.
pub fn pvary_op(
    func: &mut Func,
    operand: ValueId,
    replica_groups: &[Vec<i64>],
    use_global_device_ids: bool,
) -> Op {
    let ty = func.value_type(operand).clone();
    let result = func.new_value(ty, None);
    Op::new(
        pvary_kind(replica_groups, use_global_device_ids),
        vec![operand],
        vec![result],
    )
}

/// True for a `custom_call @systolic.pvary`.
pub fn is_pvary(kind: &OpKind) -> bool {
    matches!(kind, OpKind::CustomCall { call_target_name, .. } if call_target_name == PVARY_TARGET)
}

/// The groups of a pvary, as the attributes of the `all_reduce` that transposes it: its
/// `replica_groups` and `use_global_device_ids`, and, when the latter is set (flattened ids,
/// which the spec only forms for a collective with a channel), the placeholder channel
/// `handle = 1, type = 1` (device to device), which an emitter replaces with a fresh handle.
/// `None` when `kind` is not a pvary or its `backend_config` is not one this module wrote.
pub fn pvary_groups(kind: &OpKind) -> Option<CollectiveAttrs> {
    let OpKind::CustomCall {
        backend_config: Some(Attribute::Dict(config)),
        ..
    } = kind
    else {
        return None;
    };
    if !is_pvary(kind) {
        return None;
    }
    let replica_groups = match find_attr(config, GROUPS_KEY)? {
        Attribute::Dense(t) => groups_of(t)?,
        _ => return None,
    };
    let use_global_device_ids = match find_attr(config, GLOBAL_KEY) {
        Some(Attribute::Bool(b)) => *b,
        None => false,
        Some(_) => return None,
    };
    Some(CollectiveAttrs {
        replica_groups,
        channel_handle: use_global_device_ids.then_some(ChannelHandle { handle: 1, kind: 1 }),
        use_global_device_ids,
        has_dynamic_root: false,
    })
}

/// `dense<[[…], …]> : tensor<RxCxi64>`, short rows padded with -1 (as `replica_groups`).
fn groups_attr(groups: &[Vec<i64>]) -> Attribute {
    let cols = groups.iter().map(Vec::len).max().unwrap_or(0);
    let mut flat = Vec::with_capacity(groups.len() * cols);
    for g in groups {
        flat.extend_from_slice(g);
        flat.extend(std::iter::repeat_n(-1, cols - g.len()));
    }
    let shape = vec![groups.len() as i64, cols as i64];
    // The shape holds exactly the values given, so this does not fail; were it to, the
    // reader would find no groups and refuse the marker.
    Tensor::from_i64(shape, DType::I64, flat).map_or(Attribute::Array(vec![]), Attribute::Dense)
}

/// The rows of a 2-D integer tensor, `-1` padding dropped.
fn groups_of(t: &Tensor) -> Option<Vec<Vec<i64>>> {
    let [rows, cols] = *t.shape() else {
        return None;
    };
    let Data::Int(flat) = t.data() else {
        return None;
    };
    if cols == 0 {
        return Some(vec![]);
    }
    Some(
        flat.chunks(cols as usize)
            .take(rows as usize)
            .map(|r| r.iter().copied().filter(|&id| id != -1).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse_module, print_module};

    #[test]
    fn the_marker_round_trips_through_text() {
        let src = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n\
                   return %x : tensor<4xf32>\n}";
        let mut m = parse_module(src, "pvary").unwrap();
        let f = &mut m.funcs[0];
        let x = f.params()[0];
        let op = pvary_op(f, x, &[vec![0, 2], vec![1]], true);
        let y = op.results[0];
        let body = &mut f.body.blocks[0];
        body.ops.insert(0, op);
        body.ops.last_mut().unwrap().operands = vec![y];
        let text = print_module(&m);
        assert!(text.contains("@systolic.pvary"), "{text}");
        crate::verify::verify_module(&m).unwrap();
        let back = parse_module(&text, "printed").unwrap();
        let kind = &back.funcs[0].body.blocks[0].ops[0].kind;
        assert!(is_pvary(kind), "{text}");
        let groups = pvary_groups(kind).unwrap();
        assert_eq!(groups.replica_groups, vec![vec![0, 2], vec![1]]);
        assert!(groups.use_global_device_ids);
        assert_eq!(
            pvary_groups(&pvary_kind(&[vec![0, 1]], false)),
            Some(CollectiveAttrs {
                replica_groups: vec![vec![0, 1]],
                ..CollectiveAttrs::default()
            })
        );
    }

    #[test]
    fn other_custom_calls_are_not_pvary() {
        let OpKind::CustomCall {
            backend_config,
            api_version,
            called_computations,
            has_side_effect,
            ..
        } = pvary_kind(&[], false)
        else {
            unreachable!()
        };
        let other = OpKind::CustomCall {
            call_target_name: "Sharding".into(),
            backend_config,
            api_version,
            called_computations,
            has_side_effect,
        };
        assert!(!is_pvary(&other));
        assert_eq!(pvary_groups(&other), None);
        assert_eq!(
            pvary_groups(&pvary_kind(&[], false)).map(|g| g.replica_groups),
            Some(vec![])
        );
    }
}
