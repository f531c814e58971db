//! [`DynTree`]: a pytree whose structure is data, not a Rust type.
//!
//! JAX can rebuild any tree from a `PyTreeDef` and leaves because Python containers are
//! values. In Rust a tree's type fixes its structure, so [`tree_unflatten`](super::tree_unflatten)
//! and [`tree_transpose`](super::tree_transpose) return a `DynTree`: the same nodes as
//! [`TreeDef`], holding arrays. It is itself a [`Tree`], so it passes through `jit`, `grad`
//! and checkpoints like any other; the optimizers of [`optim`](crate::optim) keep their state
//! in one.

use super::{Tree, TreeDef};
use crate::array::Array;
use crate::error::{Error, Result};

/// A pytree built at run time; its nodes mirror [`TreeDef`]'s.
///
/// ```
/// use systolic::{tree, Array, Tree};
/// let t = (Array::scalar(1.0f32), vec![Array::scalar(2.0f32)]);
/// let (leaves, def) = tree::flatten(&t);
/// let d = tree::unflatten(&def, leaves).unwrap();
/// assert_eq!(d.structure(), t.structure());
/// let leaf = d.get("[1][0]").and_then(|n| n.as_leaf()).unwrap();
/// assert_eq!(leaf.to_vec::<f32>().unwrap(), vec![2.0]);
/// ```
#[derive(Clone, Debug)]
pub enum DynTree {
    /// An array leaf.
    Leaf(Array),
    /// A static value's `Debug` text.
    Static(String),
    /// A tuple, tuple struct or unit (see [`TreeDef::Tuple`]).
    Tuple(String, Vec<DynTree>),
    /// A struct with named fields.
    Struct(String, Vec<(String, DynTree)>),
    /// A sequence.
    List(Vec<DynTree>),
    /// A map; keys are `Debug` texts in sorted order.
    Map(Vec<(String, DynTree)>),
}

impl DynTree {
    /// Builds the tree `def` describes with `leaves` in order; the number of leaves must be
    /// `def.num_leaves()`.
    pub fn from_def(def: &TreeDef, leaves: Vec<Array>) -> Result<DynTree> {
        let n = leaves.len();
        let mut it = leaves.into_iter();
        let out = build(def, &mut it).ok_or_else(|| {
            Error::Trace(format!(
                "tree_unflatten: {def} has {} leaves, {n} were given",
                def.num_leaves()
            ))
        })?;
        if it.next().is_some() {
            return Err(Error::Trace(format!(
                "tree_unflatten: {def} has {} leaves, {n} were given",
                def.num_leaves()
            )));
        }
        Ok(out)
    }

    /// The array of a leaf, if this node is one.
    pub fn as_leaf(&self) -> Option<&Array> {
        match self {
            DynTree::Leaf(a) => Some(a),
            _ => None,
        }
    }

    /// The child under one key: a field name (`"mu"` or `".mu"`), a position (`"0"`, `"[0]"`)
    /// or a map key's `Debug` text (`"\"w\""`).
    pub fn child(&self, key: &str) -> Option<&DynTree> {
        let key = key.trim_start_matches('.');
        let key = key
            .strip_prefix('[')
            .and_then(|k| k.strip_suffix(']'))
            .unwrap_or(key);
        match self {
            DynTree::Leaf(_) | DynTree::Static(_) => None,
            DynTree::Tuple(_, c) | DynTree::List(c) => c.get(key.parse::<usize>().ok()?),
            DynTree::Struct(_, c) | DynTree::Map(c) => {
                let quoted = format!("{key:?}");
                c.iter()
                    .find(|(k, _)| k == key || *k == quoted || python_key(k) == key)
                    .map(|(_, t)| t)
            }
        }
    }

    /// The node at a key path such as `.mu[0]` or `[1]['w']` (the paths
    /// [`flatten_with_path`](super::flatten_with_path) prints), `None` where it does not exist.
    pub fn get(&self, path: &str) -> Option<&DynTree> {
        let mut node = self;
        for key in split_path(path) {
            node = node.child(&key)?;
        }
        Some(node)
    }
}

/// A map key's `Debug` text as Python would quote it (`"w"` → `'w'`).
fn python_key(k: &str) -> String {
    k.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .map(|s| format!("'{s}'"))
        .unwrap_or_else(|| k.to_string())
}

/// `.a[0]['w']` → `["a", "0", "'w'"]`.
fn split_path(path: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut in_bracket = false;
    for ch in path.chars() {
        match ch {
            '.' if !in_bracket => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            '[' if !in_bracket => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                in_bracket = true;
            }
            ']' if in_bracket => {
                out.push(std::mem::take(&mut cur));
                in_bracket = false;
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn build(def: &TreeDef, leaves: &mut dyn Iterator<Item = Array>) -> Option<DynTree> {
    Some(match def {
        TreeDef::Leaf => DynTree::Leaf(leaves.next()?),
        TreeDef::Static(s) => DynTree::Static(s.clone()),
        TreeDef::Tuple(name, c) => DynTree::Tuple(
            name.clone(),
            c.iter().map(|d| build(d, leaves)).collect::<Option<_>>()?,
        ),
        TreeDef::Struct(name, c) => DynTree::Struct(
            name.clone(),
            c.iter()
                .map(|(k, d)| Some((k.clone(), build(d, leaves)?)))
                .collect::<Option<_>>()?,
        ),
        TreeDef::List(c) => {
            DynTree::List(c.iter().map(|d| build(d, leaves)).collect::<Option<_>>()?)
        }
        TreeDef::Map(c) => DynTree::Map(
            c.iter()
                .map(|(k, d)| Some((k.clone(), build(d, leaves)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

fn rebuild_all(items: &[DynTree], leaves: &mut dyn Iterator<Item = Array>) -> Result<Vec<DynTree>> {
    items.iter().map(|t| t.rebuild(leaves)).collect()
}

fn rebuild_keyed(
    items: &[(String, DynTree)],
    leaves: &mut dyn Iterator<Item = Array>,
) -> Result<Vec<(String, DynTree)>> {
    items
        .iter()
        .map(|(k, t)| Ok((k.clone(), t.rebuild(leaves)?)))
        .collect()
}

impl Tree for DynTree {
    fn leaves(&self, out: &mut Vec<Array>) {
        match self {
            DynTree::Leaf(a) => out.push(a.clone()),
            DynTree::Static(_) => {}
            DynTree::Tuple(_, c) | DynTree::List(c) => c.iter().for_each(|t| t.leaves(out)),
            DynTree::Struct(_, c) | DynTree::Map(c) => c.iter().for_each(|(_, t)| t.leaves(out)),
        }
    }

    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        Ok(match self {
            DynTree::Leaf(a) => DynTree::Leaf(a.rebuild(leaves)?),
            DynTree::Static(s) => DynTree::Static(s.clone()),
            DynTree::Tuple(n, c) => DynTree::Tuple(n.clone(), rebuild_all(c, leaves)?),
            DynTree::List(c) => DynTree::List(rebuild_all(c, leaves)?),
            DynTree::Struct(n, c) => DynTree::Struct(n.clone(), rebuild_keyed(c, leaves)?),
            DynTree::Map(c) => DynTree::Map(rebuild_keyed(c, leaves)?),
        })
    }

    fn def(&self) -> TreeDef {
        let keyed = |c: &[(String, DynTree)]| c.iter().map(|(k, t)| (k.clone(), t.def())).collect();
        match self {
            DynTree::Leaf(_) => TreeDef::Leaf,
            DynTree::Static(s) => TreeDef::Static(s.clone()),
            DynTree::Tuple(n, c) => TreeDef::Tuple(n.clone(), c.iter().map(Tree::def).collect()),
            DynTree::List(c) => TreeDef::List(c.iter().map(Tree::def).collect()),
            DynTree::Struct(n, c) => TreeDef::Struct(n.clone(), keyed(c)),
            DynTree::Map(c) => TreeDef::Map(keyed(c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys() {
        assert_eq!(split_path(".mu[0]['w']"), ["mu", "0", "'w'"]);
        assert_eq!(split_path("[1].x"), ["1", "x"]);
    }
}
