//! Shardy's ops: `sdy.manual_computation` and `sdy.sharding_constraint`.
//!
//! What can be checked without the module is checked here (counts, element types, ranks);
//! the sizes of the per-device pieces depend on the mesh the shardings name, which only the
//! module declares, so the verifier checks them (`verify/sharding.rs`).

use super::common::*;
use super::RegionSignature;
use crate::sharding::{ManualComputationAttrs, SdySharding};
use crate::types::Type;

/// `sdy.manual_computation`: one sharding per operand and per result; one region taking one
/// piece per operand (same element type and rank) and returning one piece per result. The
/// results are the global types the op declares.
pub(crate) fn manual_computation(
    attrs: &ManualComputationAttrs,
    operands: &[Type],
    regions: &[RegionSignature],
    declared: Option<&[Type]>,
) -> Inferred {
    expect_regions(regions, 1, "body")?;
    let declared = declared.ok_or_else(|| {
        "the result types must be declared (they are the global types of the body's pieces)"
            .to_string()
    })?;
    let body = &regions[0];
    if attrs.in_shardings.len() != operands.len() {
        return Err(format!(
            "has {} in_shardings for {} operands",
            attrs.in_shardings.len(),
            operands.len()
        ));
    }
    if attrs.out_shardings.len() != declared.len() {
        return Err(format!(
            "has {} out_shardings for {} results",
            attrs.out_shardings.len(),
            declared.len()
        ));
    }
    if body.arg_types.len() != operands.len() {
        return Err(format!(
            "the body takes {} arguments {} for {} operands {}",
            body.arg_types.len(),
            type_list(&body.arg_types),
            operands.len(),
            type_list(operands)
        ));
    }
    if body.result_types.len() != declared.len() {
        return Err(format!(
            "the body returns {} values {} for {} results {}",
            body.result_types.len(),
            type_list(&body.result_types),
            declared.len(),
            type_list(declared)
        ));
    }
    let pairs = operands
        .iter()
        .zip(&body.arg_types)
        .map(|p| ("operand", "body argument", p))
        .chain(
            declared
                .iter()
                .zip(&body.result_types)
                .map(|p| ("result", "returned value", p)),
        );
    let mut index = [0usize; 2];
    for (what, local_what, (global, local)) in pairs {
        let i = &mut index[usize::from(what == "result")];
        let (Type::Tensor(g), Type::Tensor(l)) = (global, local) else {
            return Err(format!(
                "{what} #{i} is {global} and its {local_what} {local}; only tensors cross a \
                 manual computation"
            ));
        };
        if g.dtype != l.dtype || g.rank() != l.rank() {
            return Err(format!(
                "{what} #{i} is {g} but its per-device {local_what} is {l}; a piece has the \
                 global value's element type and rank"
            ));
        }
        *i += 1;
    }
    Ok(declared.to_vec())
}

/// `sdy.sharding_constraint`: an identity on one tensor.
pub(crate) fn sharding_constraint(sharding: &SdySharding, operands: &[Type]) -> Inferred {
    expect_operands(operands, 1, "input")?;
    let t = tensor_at(operands, 0, "input")?;
    if sharding.dims.len() != t.rank() {
        return Err(format!(
            "the sharding has {} dimension shardings but the input {t} has rank {}",
            sharding.dims.len(),
            t.rank()
        ));
    }
    Ok(operands.to_vec())
}
