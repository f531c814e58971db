//! Building and reading optimizer states: optax's named-tuple states as [`DynTree`] structs,
//! and the int32 step count.

use super::Flat;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::numpy as np;
use crate::ops::elementwise::weak_int;
use crate::tree::{tree_leaves, DynTree, Tree};

/// A state named tuple: `Name{field:…,…}`.
pub(crate) fn named(name: &str, fields: Vec<(&str, DynTree)>) -> DynTree {
    DynTree::Struct(
        name.to_string(),
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// optax's `EmptyState()`.
pub(crate) fn empty() -> DynTree {
    DynTree::Tuple("EmptyState".into(), vec![])
}

/// A fresh count: int32 zero.
pub(crate) fn zero_count() -> DynTree {
    DynTree::Leaf(Array::scalar(0i32))
}

/// `count + 1`, staying at the largest int32 instead of wrapping (`optax.safe_increment`).
pub(crate) fn safe_increment(count: &Array) -> Array {
    let max = weak_int(i32::MAX as i64);
    np::where_(&np::less(count, &max), &(count + 1), &max)
}

/// The error for a state that is not what the transformation's `init` made.
fn bad_state(op: &str, state: &DynTree, want: &str) -> Error {
    Error::op(
        &format!("optim.{op}"),
        format!(
            "the state {} has no {want}; pass the state this optimizer's init returned",
            state.structure()
        ),
    )
}

/// The child `name` of a state struct.
pub(crate) fn field<'a>(op: &str, state: &'a DynTree, name: &str) -> Result<&'a DynTree> {
    match state {
        DynTree::Struct(_, fields) => fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
            .ok_or_else(|| bad_state(op, state, &format!("field `{name}`"))),
        _ => Err(bad_state(op, state, &format!("field `{name}`"))),
    }
}

/// The leaves of the state field `name`, which must mirror the params (one leaf each).
pub(crate) fn per_param(
    op: &str,
    state: &DynTree,
    name: &str,
    params: &Flat,
) -> Result<Vec<Array>> {
    let part = field(op, state, name)?;
    let leaves = tree_leaves(part);
    if leaves.len() != params.leaves.len() {
        return Err(Error::op(
            &format!("optim.{op}"),
            format!(
                "the state's `{name}` has {} leaves for {} params ({}); pass the state this \
                 optimizer's init returned for these params",
                leaves.len(),
                params.leaves.len(),
                params.def
            ),
        ));
    }
    Ok(leaves)
}

/// The scalar int32 leaf `name` (a step count) of a state.
pub(crate) fn scalar(op: &str, state: &DynTree, name: &str) -> Result<Array> {
    match field(op, state, name)? {
        DynTree::Leaf(a) => Ok(a.clone()),
        _ => Err(bad_state(op, state, &format!("array `{name}`"))),
    }
}

/// The `i`-th element of a tuple state (a chain's).
pub(crate) fn element<'a>(
    op: &str,
    state: &'a DynTree,
    i: usize,
    len: usize,
) -> Result<&'a DynTree> {
    match state {
        DynTree::Tuple(name, items) if name.is_empty() && items.len() == len => Ok(&items[i]),
        _ => Err(bad_state(op, state, &format!("tuple of {len} states"))),
    }
}

/// `zeros_like` every leaf.
pub(crate) fn zeros_like(leaves: &[Array]) -> Vec<Array> {
    leaves.iter().map(np::zeros_like).collect()
}

/// A tree of the params' structure holding `leaves`.
pub(crate) fn like_params(params: &Flat, leaves: Vec<Array>) -> Result<DynTree> {
    params.tree_like(leaves)
}
