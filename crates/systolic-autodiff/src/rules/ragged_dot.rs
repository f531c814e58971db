//! `chlo.ragged_dot`: bilinear in its two operands (the group sizes are integers and carry no
//! tangent), so its JVP is the product rule in every mode (`rules::product_rule`). Its transposes are written for
//! the mode `lax.ragged_dot` stages, JAX's basic dimension numbers: `lhs [m, k]` cut into
//! groups of rows, `rhs [g, k, n]`, `out [m, n]`, row `i` of group `j` being
//! `lhs[i] · rhs[j]`.
//! - The lhs cotangent is the same kind of product of the cotangent with each group's
//!   transposed matrix: `ct [m, n] · rhs[j]ᵀ` per group of rows, a free-mode ragged dot
//!   contracting `n` with `rhs`'s last dimension.
//! - The rhs cotangent of group `j` is `lhs_jᵀ · ct_j` over that group's rows only: the
//!   contracting-mode ragged dot of `lhs` with `ct`, contracting the ragged `m`, which puts
//!   the groups in front (`[g, k, n]`; rows in no group contribute nothing, as their output
//!   rows are zero).
//!
//! (The maths of JAX's ragged dot transposes for this mode.) Other dimension numbers (batch dimensions, a ragged contracting dimension) are differentiated
//! in forward mode; transposing them is an error naming the mode.

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::{
    DotDimensionNumbers, Op, OpKind, Precision, RaggedDotDimensionNumbers, TensorType, ValueId,
};

/// The dimension numbers of `lax.ragged_dot` (`lhs [m, k]`, `rhs [g, k, n]`).
fn is_basic(dn: &RaggedDotDimensionNumbers, lhs_rank: usize, rhs_rank: usize) -> bool {
    lhs_rank == 2
        && rhs_rank == 3
        && dn.dot.lhs_batching_dimensions.is_empty()
        && dn.dot.rhs_batching_dimensions.is_empty()
        && dn.dot.lhs_contracting_dimensions == [1]
        && dn.dot.rhs_contracting_dimensions == [1]
        && dn.lhs_ragged_dimensions == [0]
        && dn.rhs_group_dimensions == [0]
}

/// A ragged dot of `a` and `b` with the group sizes `sizes`, of type `ty`.
fn ragged(
    bld: &mut Builder,
    (a, b, sizes): (ValueId, ValueId, ValueId),
    dot: DotDimensionNumbers,
    groups: (Vec<i64>, Vec<i64>),
    precision: Vec<Precision>,
    ty: TensorType,
) -> Res<ValueId> {
    let kind = OpKind::RaggedDot {
        dimension_numbers: RaggedDotDimensionNumbers {
            dot,
            lhs_ragged_dimensions: groups.0,
            rhs_group_dimensions: groups.1,
        },
        precision_config: precision,
    };
    bld.emit_as(kind, vec![a, b, sizes], ty)
}

/// The cotangents of the linear operands (`lin[0]`: lhs, `lin[1]`: rhs) given the output's
/// cotangent `c`.
pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    let OpKind::RaggedDot {
        dimension_numbers: dn,
        precision_config,
    } = &op.kind
    else {
        return Err(Error::new("internal: ragged_dot transpose of another op"));
    };
    let (lhs, rhs, sizes) = (op.operands[0], op.operands[1], op.operands[2]);
    let (lt, rt) = (b.tt(lhs), b.tt(rhs));
    if lin[0] && lin[1] {
        return Err(Error::new(
            "internal: a ragged_dot of two tangents is not linear",
        ));
    }
    if !is_basic(dn, lt.rank(), rt.rank()) {
        return Err(Error::new(format!(
            "cannot transpose chlo.ragged_dot of {lt} and {rt} with lhs_ragged_dimensions {:?}, \
             rhs_group_dimensions {:?}, contracting {:?}/{:?} and batching {:?}/{:?}: only \
             lax.ragged_dot's form (lhs [m, k] ragged along m, rhs [g, k, n]) has a transpose \
             rule (reverse mode of a second derivative through ragged_dot needs the others)",
            dn.lhs_ragged_dimensions,
            dn.rhs_group_dimensions,
            dn.dot.lhs_contracting_dimensions,
            dn.dot.rhs_contracting_dimensions,
            dn.dot.lhs_batching_dimensions,
            dn.dot.rhs_batching_dimensions,
        )));
    }
    let prec = precision_config.clone();
    if lin[0] {
        // ct [m, n] · rhs[j]ᵀ: contract n with rhs's last dimension, per group of rows.
        let dot = DotDimensionNumbers {
            lhs_contracting_dimensions: vec![1],
            rhs_contracting_dimensions: vec![2],
            ..Default::default()
        };
        let d = ragged(b, (c, rhs, sizes), dot, (vec![0], vec![0]), prec, lt)?;
        return Ok(vec![Some(d), None, None]);
    }
    // lhs_jᵀ · ct_j: contract the ragged m, one product per group, stacked in front.
    let dot = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![0],
        rhs_contracting_dimensions: vec![0],
        ..Default::default()
    };
    let d = ragged(b, (lhs, c, sizes), dot, (vec![0], vec![]), prec, rt)?;
    Ok(vec![None, Some(d), None])
}
