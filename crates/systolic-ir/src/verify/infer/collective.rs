//! Collectives and the other ops that talk to processes, devices or the host.
//!
//! Group sizes come from `replica_groups` (the length of its rows), except in two cases where
//! only the runtime knows them: an empty `replica_groups` (one group of every process), and a
//! channel without `use_global_device_ids` (cross replica and partition: each group holds its
//! replicas times every partition, and the partition count is a module setting). There the
//! declared result supplies the gathered or scattered size, and only its divisibility is checked.

use super::common::*;
use super::RegionSignature;
use crate::attrs::{ChannelHandle, CollectiveAttrs};
use crate::dtype::DType;
use crate::types::{TensorType, Type};

/// How many processes a group holds, as far as the op's attributes tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupSize {
    /// Exactly this many.
    Exact(i64),
    /// A positive multiple of this many (replicas per group times the partition count).
    MultipleOf(i64),
}

/// Checks `replica_groups` (rows of one length, ids unique and not below -1, the padding
/// value) and `use_global_device_ids`, and returns the group size. `partitions_join` is true
/// for the collectives whose channel mode groups replicas across partitions.
fn group_size(c: &CollectiveAttrs, partitions_join: bool) -> Result<GroupSize, String> {
    let channel = c.channel_handle.is_some_and(|h| h.handle > 0);
    if c.use_global_device_ids && !channel {
        return Err("use_global_device_ids needs a channel_handle with a positive handle".into());
    }
    let Some(first) = c.replica_groups.first() else {
        return Ok(GroupSize::MultipleOf(1));
    };
    let width = first.len();
    // A set, not a list: a mesh of thousands of devices has as many ids per op.
    let mut seen = std::collections::HashSet::new();
    for row in &c.replica_groups {
        if row.len() != width {
            return Err("`replica_groups` rows must have the same length".into());
        }
        for &id in row {
            if id < -1 {
                return Err(format!("`replica_groups` holds the invalid id {id}"));
            }
            if id >= 0 && !seen.insert(id) {
                return Err(format!("`replica_groups` repeats the id {id}"));
            }
        }
    }
    let width = width as i64;
    Ok(if partitions_join && channel && !c.use_global_device_ids {
        GroupSize::MultipleOf(width)
    } else {
        GroupSize::Exact(width)
    })
}

/// True if `value` is a positive multiple of `unit` (or both are 0).
fn is_multiple(value: i64, unit: i128) -> bool {
    let value = i128::from(value);
    if unit == 0 {
        value == 0
    } else {
        value > 0 && value % unit == 0
    }
}

/// The operand type with dimension `d` set to `size`.
fn with_dim(t: &TensorType, d: usize, size: i64) -> Type {
    let mut shape = t.shape.clone();
    shape[d] = size;
    tensor(shape, t.dtype)
}

/// The declared size of dimension `d` of result `i`, for collectives whose group size only the
/// runtime knows.
fn declared_dim(
    declared: Option<&[Type]>,
    i: usize,
    d: usize,
) -> Result<(&TensorType, i64), String> {
    let r = declared_tensor_at(declared, i).ok_or_else(|| {
        "the result types must be declared when the group size depends on the runtime".to_string()
    })?;
    Ok((r, r.shape.get(d).copied().unwrap_or(-1)))
}

/// `stablehlo.all_gather`: each operand's `all_gather_dim` multiplied by the group size.
pub(crate) fn all_gather(
    all_gather_dim: i64,
    c: &CollectiveAttrs,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> Inferred {
    if operands.is_empty() {
        return Err("expects at least one operand".into());
    }
    let groups = group_size(c, true)?;
    let inputs = tensors(operands, "operand")?;
    let mut out = Vec::with_capacity(inputs.len());
    for (i, t) in inputs.iter().enumerate() {
        let d = axis(all_gather_dim, t.rank(), "all_gather_dim")?;
        let size = match groups {
            GroupSize::Exact(g) => to_dim(
                i128::from(t.shape[d]) * i128::from(g),
                "the gathered dimension",
            )?,
            GroupSize::MultipleOf(g) => {
                let (r, size) = declared_dim(declared, i, d)?;
                if !is_multiple(size, i128::from(t.shape[d]) * i128::from(g)) {
                    return Err(format!(
                        "result {r} does not gather operand {t} along dimension {d} over groups of {g} replicas"
                    ));
                }
                size
            }
        };
        out.push(with_dim(t, d, size));
    }
    Ok(out)
}

/// Checks a collective's reducer: `(E, E) -> E` for the one element type of all operands.
fn check_reducer(inputs: &[&TensorType], regions: &[RegionSignature]) -> Result<(), String> {
    expect_regions(regions, 1, "computation")?;
    let e = inputs[0].dtype;
    if let Some(t) = inputs.iter().find(|t| t.dtype != e) {
        return Err(format!(
            "operands {} and {t} must have the same element type",
            inputs[0]
        ));
    }
    let s = scalar(e);
    expect_region(&regions[0], "computation", &[s.clone(), s.clone()], &[s])
}

/// `stablehlo.all_reduce`: the operands' types.
pub(crate) fn all_reduce(
    c: &CollectiveAttrs,
    operands: &[Type],
    regions: &[RegionSignature],
) -> Inferred {
    if operands.is_empty() {
        return Err("expects at least one operand".into());
    }
    group_size(c, true)?;
    let inputs = tensors(operands, "operand")?;
    check_reducer(&inputs, regions)?;
    Ok(operands.to_vec())
}

/// `stablehlo.reduce_scatter`: `scatter_dimension` divided by the group size.
pub(crate) fn reduce_scatter(
    scatter_dimension: i64,
    c: &CollectiveAttrs,
    operands: &[Type],
    regions: &[RegionSignature],
    declared: Option<&[Type]>,
) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let groups = group_size(c, true)?;
    let t = tensor_at(operands, 0, "operand")?;
    check_reducer(&[t], regions)?;
    let d = axis(scatter_dimension, t.rank(), "scatter_dimension")?;
    let size = match groups {
        GroupSize::Exact(g) => {
            if g == 0 || t.shape[d] % g != 0 {
                return Err(format!(
                    "dimension {d} of {t} is not divisible by the group size {g}"
                ));
            }
            t.shape[d] / g
        }
        GroupSize::MultipleOf(g) => {
            let (r, size) = declared_dim(declared, 0, d)?;
            let unit = i128::from(size) * i128::from(g);
            if size < 0 || !is_multiple(t.shape[d], unit) {
                return Err(format!(
                    "result {r} does not scatter operand {t} along dimension {d} over groups of {g} replicas"
                ));
            }
            size
        }
    };
    Ok(vec![with_dim(t, d, size)])
}

/// `stablehlo.all_to_all`: each operand's `split_dimension` divided and `concat_dimension`
/// multiplied by `split_count`.
pub(crate) fn all_to_all(
    split_dimension: i64,
    concat_dimension: i64,
    split_count: i64,
    c: &CollectiveAttrs,
    operands: &[Type],
) -> Inferred {
    if operands.is_empty() {
        return Err("expects at least one operand".into());
    }
    let groups = group_size(c, false)?;
    if split_count <= 0 {
        return Err(format!("split_count {split_count} must be positive"));
    }
    match groups {
        GroupSize::Exact(g) if g != split_count => {
            return Err(format!(
                "split_count {split_count} must equal the group size {g} of `replica_groups`"
            ));
        }
        _ => {}
    }
    let mut out = Vec::with_capacity(operands.len());
    for t in tensors(operands, "operand")? {
        let s = axis(split_dimension, t.rank(), "split_dimension")?;
        let cd = axis(concat_dimension, t.rank(), "concat_dimension")?;
        if t.shape[s] % split_count != 0 {
            return Err(format!(
                "dimension {s} of {t} is not divisible by split_count {split_count}"
            ));
        }
        let mut shape = t.shape.clone();
        shape[s] /= split_count;
        shape[cd] = to_dim(
            i128::from(shape[cd]) * i128::from(split_count),
            "the concatenated dimension",
        )?;
        out.push(tensor(shape, t.dtype));
    }
    Ok(out)
}

/// `stablehlo.collective_permute`: sources distinct, targets distinct, ids not negative;
/// the operand's type.
pub(crate) fn collective_permute(pairs: &[(i64, i64)], operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "operand")?;
    let t = tensor_at(operands, 0, "operand")?;
    for (i, &(s, d)) in pairs.iter().enumerate() {
        if s < 0 || d < 0 {
            return Err(format!(
                "`source_target_pairs` entry [{s}, {d}] has a negative process id"
            ));
        }
        if pairs[..i].iter().any(|p| p.0 == s) {
            return Err(format!("`source_target_pairs` repeats the source {s}"));
        }
        if pairs[..i].iter().any(|p| p.1 == d) {
            return Err(format!("`source_target_pairs` repeats the target {d}"));
        }
    }
    Ok(vec![Type::Tensor(t.clone())])
}

/// `stablehlo.collective_broadcast`: the operands' types; with `has_dynamic_root`, the last
/// operand is the roots (`tensor<Nxi32>`, one per result) and gives no result.
pub(crate) fn collective_broadcast(c: &CollectiveAttrs, operands: &[Type]) -> Inferred {
    group_size(c, false)?;
    let data = if c.has_dynamic_root {
        if operands.len() < 2 {
            return Err("with has_dynamic_root it expects data operands and the roots".into());
        }
        let n = operands.len() - 1;
        let want = Type::Tensor(TensorType::new(vec![n as i64], DType::I32));
        if operands[n] != want {
            return Err(format!(
                "the roots operand must be {want}, got {}",
                operands[n]
            ));
        }
        &operands[..n]
    } else {
        if operands.is_empty() {
            return Err("expects at least one operand".into());
        }
        operands
    };
    (0..data.len())
        .map(|i| tensor_at(data, i, "operand").map(|t| Type::Tensor(t.clone())))
        .collect()
}

/// `stablehlo.collective_reduce`: the operands' types (without the roots operand, with
/// `has_dynamic_root`), reduced by a scalar region as `all_reduce`'s.
pub(crate) fn collective_reduce(
    c: &CollectiveAttrs,
    operands: &[Type],
    regions: &[RegionSignature],
) -> Inferred {
    let results = collective_broadcast(c, operands)?;
    let inputs = tensors(&results, "operand")?;
    check_reducer(&inputs, regions)?;
    Ok(results)
}

/// `stablehlo.replica_id` / `partition_id`: `tensor<ui32>`.
pub(crate) fn process_id(operands: &[Type]) -> Inferred {
    expect_operands(operands, 0, "none")?;
    Ok(vec![scalar(DType::U32)])
}

/// Checks a channel's type against `is_host_transfer` (spec send/recv C1):
/// `host_type` (2 device-to-host for send, 3 host-to-device for recv) when transferring to or
/// from the host, 1 (device-to-device) otherwise.
fn check_channel(h: &ChannelHandle, is_host_transfer: bool, host_type: i64) -> Result<(), String> {
    let want = if is_host_transfer { host_type } else { 1 };
    if h.kind != want {
        return Err(format!(
            "channel type {} does not match is_host_transfer = {is_host_transfer} (expected type {want})",
            h.kind
        ));
    }
    Ok(())
}

/// Checks that the last operand is a token and the others tensors.
fn tensors_then_token(operands: &[Type]) -> Result<(), String> {
    match operands.last() {
        Some(Type::Token) => {}
        Some(other) => return Err(format!("the last operand must be a token, got {other}")),
        None => return Err("expects a token operand".into()),
    }
    tensors(&operands[..operands.len() - 1], "input").map(|_| ())
}

/// Checks declared results: at least one, the last a token.
fn results_then_token(declared: Option<&[Type]>) -> Inferred {
    let d = declared.ok_or_else(|| "the result types must be declared".to_string())?;
    match d.last() {
        Some(Type::Token) => Ok(d.to_vec()),
        _ => Err(format!(
            "declares results {}; the last one must be a token",
            type_list(d)
        )),
    }
}

/// Checks that the single operand is a token.
fn token_only(operands: &[Type]) -> Result<(), String> {
    expect_operands(operands, 1, "token")?;
    if operands[0] != Type::Token {
        return Err(format!("the operand must be a token, got {}", operands[0]));
    }
    Ok(())
}

/// `stablehlo.send(inputs…, token)` → token.
pub(crate) fn send(h: &ChannelHandle, is_host_transfer: bool, operands: &[Type]) -> Inferred {
    tensors_then_token(operands)?;
    check_channel(h, is_host_transfer, 2)?;
    Ok(vec![Type::Token])
}

/// `stablehlo.recv(token)` → (values…, token), as declared.
pub(crate) fn recv(
    h: &ChannelHandle,
    is_host_transfer: bool,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> Inferred {
    token_only(operands)?;
    check_channel(h, is_host_transfer, 3)?;
    results_then_token(declared)
}

/// `stablehlo.infeed(token)` → (values…, token), as declared.
pub(crate) fn infeed(operands: &[Type], declared: Option<&[Type]>) -> Inferred {
    token_only(operands)?;
    results_then_token(declared)
}

/// `stablehlo.outfeed(inputs…, token)` → token.
pub(crate) fn outfeed(operands: &[Type]) -> Inferred {
    tensors_then_token(operands)?;
    Ok(vec![Type::Token])
}
