//! `jax.tree`'s functions over any [`Tree`]: leaves, structure, flatten/unflatten, maps over
//! one or several trees, key paths, transpose and reduce.

use super::{DynTree, KeyPath, Tree, TreeDef};
use crate::array::Array;
use crate::error::{Error, Result};

/// The leaves of `tree`, in order (`jax.tree.leaves`).
///
/// ```
/// use systolic::{tree_leaves, Array, Static};
/// let leaves = tree_leaves(&(Array::scalar(1.0f32), Static("x"), vec![Array::scalar(2.0f32)]));
/// assert_eq!(leaves.len(), 2);
/// ```
pub fn tree_leaves<T: Tree>(tree: &T) -> Vec<Array> {
    let mut out = vec![];
    tree.leaves(&mut out);
    out
}

/// The structure of `tree` (`jax.tree.structure`).
///
/// ```
/// use systolic::{tree_structure, Array};
/// let def = tree_structure(&(Array::scalar(1.0f32), vec![Array::scalar(2.0f32)]));
/// assert_eq!(def.to_string(), "(*,[*])");
/// assert_eq!(def.num_leaves(), 2);
/// ```
pub fn tree_structure<T: Tree>(tree: &T) -> TreeDef {
    tree.def()
}

/// The leaves and the structure (`jax.tree.flatten`).
///
/// ```
/// use systolic::{tree_flatten, Array};
/// let (leaves, def) = tree_flatten(&vec![Array::scalar(1.0f32); 3]);
/// assert_eq!((leaves.len(), def.to_string()), (3, "[*,*,*]".to_string()));
/// ```
pub fn tree_flatten<T: Tree>(tree: &T) -> (Vec<Array>, TreeDef) {
    (tree_leaves(tree), tree.def())
}

/// The tree `def` describes, with `leaves` in order (`jax.tree.unflatten`). A [`TreeDef`] does
/// not know a Rust type, so the result is a [`DynTree`]; [`tree_unflatten_as`] rebuilds a
/// typed tree from an example of it.
///
/// ```
/// use systolic::{tree_flatten, tree_unflatten, Array, Tree};
/// let (leaves, def) = tree_flatten(&(Array::scalar(1.0f32), Array::scalar(2.0f32)));
/// let swapped = tree_unflatten(&def, leaves.into_iter().rev().collect()).unwrap();
/// assert_eq!(swapped.structure(), "(*,*)");
/// assert!(tree_unflatten(&def, vec![]).is_err()); // too few leaves
/// ```
pub fn tree_unflatten(def: &TreeDef, leaves: Vec<Array>) -> Result<DynTree> {
    DynTree::from_def(def, leaves)
}

/// A tree of `like`'s type and structure with `leaves` in order; the number of leaves must
/// match.
///
/// ```
/// use systolic::{tree_unflatten_as, Array};
/// let like = (Array::scalar(0.0f32), vec![Array::scalar(0.0f32)]);
/// let t = tree_unflatten_as(&like, vec![Array::scalar(1.0f32), Array::scalar(2.0f32)]).unwrap();
/// assert_eq!(t.1[0].to_vec::<f32>().unwrap(), vec![2.0]);
/// ```
pub fn tree_unflatten_as<T: Tree>(like: &T, leaves: Vec<Array>) -> Result<T> {
    rebuild_exact("tree_unflatten", like, leaves)
}

/// `like` rebuilt from exactly its number of leaves.
fn rebuild_exact<T: Tree>(op: &str, like: &T, leaves: Vec<Array>) -> Result<T> {
    let want = like.def().num_leaves();
    if leaves.len() != want {
        return Err(Error::Trace(format!(
            "{op}: {} has {want} leaves, {} were given",
            like.def(),
            leaves.len()
        )));
    }
    like.rebuild(&mut leaves.into_iter())
}

/// `tree` with `f` applied to every leaf (`jax.tree.map`); static parts are kept.
///
/// ```
/// use systolic::{tree_map, Array, Static};
/// let params = (Array::scalar(1.0f32), Static(7u8));
/// let scaled = tree_map(&params, |a| a * 3.0).unwrap();
/// assert_eq!(scaled.0.to_vec::<f32>().unwrap(), vec![3.0]);
/// assert_eq!(*scaled.1, 7);
/// ```
pub fn tree_map<T: Tree>(tree: &T, f: impl FnMut(&Array) -> Array) -> Result<T> {
    let mapped = tree_leaves(tree).iter().map(f).collect();
    rebuild_exact("tree_map", tree, mapped)
}

/// The error when the trees given to a multi-tree function differ in structure, naming both
/// structures and the first place they differ.
pub(crate) fn check_same(op: &str, first: &TreeDef, other: &TreeDef, index: usize) -> Result<()> {
    check_same_as(op, ("tree 0", first), (&format!("tree {index}"), other))
}

/// [`check_same`] with the trees' names (`("params", def)`, `("grads", def)`).
pub(crate) fn check_same_as(
    op: &str,
    (first_name, first): (&str, &TreeDef),
    (other_name, other): (&str, &TreeDef),
) -> Result<()> {
    if first == other {
        return Ok(());
    }
    let at = first
        .diff(other, "tree", 1)
        .into_iter()
        .map(|(_, m)| format!(" ({m})"))
        .next()
        .unwrap_or_default();
    Err(Error::Trace(format!(
        "{op}: {other_name} has structure {other}, {first_name} has {first}; they must be \
         equal{at}"
    )))
}

/// `f` applied leaf by leaf to two trees of one structure (`jax.tree.map(f, a, b)`); the
/// result has `a`'s type. Trees of different structures are an error naming both.
///
/// ```
/// use systolic::{tree_map2, Array};
/// let params = vec![Array::scalar(1.0f32), Array::scalar(2.0f32)];
/// let grads = vec![Array::scalar(0.5f32), Array::scalar(1.0f32)];
/// let stepped = tree_map2(&params, &grads, |p, g| p - &(g * 0.1)).unwrap();
/// assert_eq!(stepped[1].to_vec::<f32>().unwrap(), vec![1.9]);
/// let err = tree_map2(&params, &grads[..1].to_vec(), |p, _| p.clone()).unwrap_err();
/// assert!(err.to_string().contains("tree 1 has structure [*], tree 0 has [*,*]"));
/// ```
pub fn tree_map2<T: Tree, U: Tree>(
    a: &T,
    b: &U,
    mut f: impl FnMut(&Array, &Array) -> Array,
) -> Result<T> {
    check_same("tree_map", &a.def(), &b.def(), 1)?;
    let mapped = tree_leaves(a)
        .iter()
        .zip(&tree_leaves(b))
        .map(|(x, y)| f(x, y))
        .collect();
    rebuild_exact("tree_map", a, mapped)
}

/// `f` applied leaf by leaf to three trees of one structure; the result has `a`'s type.
///
/// ```
/// use systolic::{tree_map3, Array};
/// let one = |x: f32| vec![Array::scalar(x)];
/// let fma = tree_map3(&one(2.0), &one(3.0), &one(1.0), |a, b, c| &(a * b) + c).unwrap();
/// assert_eq!(fma[0].to_vec::<f32>().unwrap(), vec![7.0]);
/// ```
pub fn tree_map3<T: Tree, U: Tree, V: Tree>(
    a: &T,
    b: &U,
    c: &V,
    mut f: impl FnMut(&Array, &Array, &Array) -> Array,
) -> Result<T> {
    let def = a.def();
    check_same("tree_map", &def, &b.def(), 1)?;
    check_same("tree_map", &def, &c.def(), 2)?;
    let (lb, lc) = (tree_leaves(b), tree_leaves(c));
    let mapped = tree_leaves(a)
        .iter()
        .zip(lb.iter().zip(&lc))
        .map(|(x, (y, z))| f(x, y, z))
        .collect();
    rebuild_exact("tree_map", a, mapped)
}

/// `f` applied leaf by leaf to any number of trees of one type and structure: `f` gets the
/// leaves at one position, one per tree. The result has the trees' type.
///
/// ```
/// use systolic::{tree_map_n, Array};
/// let t = |x: f32| (Array::scalar(x), Array::scalar(10.0 * x));
/// let (a, b, c) = (t(1.0), t(2.0), t(3.0));
/// let sum = tree_map_n(&[&a, &b, &c], |xs| &(&xs[0] + &xs[1]) + &xs[2]).unwrap();
/// assert_eq!(sum.1.to_vec::<f32>().unwrap(), vec![60.0]);
/// ```
pub fn tree_map_n<T: Tree>(trees: &[&T], mut f: impl FnMut(&[Array]) -> Array) -> Result<T> {
    let Some(first) = trees.first() else {
        return Err(Error::Trace("tree_map: no trees were given".into()));
    };
    let def = first.def();
    for (i, t) in trees.iter().enumerate().skip(1) {
        check_same("tree_map", &def, &t.def(), i)?;
    }
    let all: Vec<Vec<Array>> = trees.iter().map(|t| tree_leaves(*t)).collect();
    let mapped = (0..all[0].len())
        .map(|j| f(&all.iter().map(|l| l[j].clone()).collect::<Vec<_>>()))
        .collect();
    rebuild_exact("tree_map", *first, mapped)
}

/// Every leaf with its key path, and the structure (`jax.tree.flatten_with_path`); paths print
/// as JAX's `keystr`: `['w']` for a map key, `[0]` for a position, `.w` for a field.
///
/// ```
/// use systolic::{tree_flatten_with_path, Array, Tree};
/// #[derive(Tree, Clone)]
/// struct Layer { w: Array, b: Array }
/// let layers = vec![Layer { w: Array::scalar(1.0f32), b: Array::scalar(0.0f32) }];
/// let (pairs, def) = tree_flatten_with_path(&layers);
/// let paths: Vec<String> = pairs.iter().map(|(p, _)| p.to_string()).collect();
/// assert_eq!(paths, ["[0].w", "[0].b"]);
/// assert_eq!(def.num_leaves(), 2);
/// ```
pub fn tree_flatten_with_path<T: Tree>(tree: &T) -> (Vec<(KeyPath, Array)>, TreeDef) {
    let def = tree.def();
    let pairs = def.key_paths().into_iter().zip(tree_leaves(tree)).collect();
    (pairs, def)
}

/// `tree` with `f(path, leaf)` applied to every leaf (`jax.tree.map_with_path`): for example
/// weight decay on the matrices only, chosen by name.
///
/// ```
/// use std::collections::BTreeMap;
/// use systolic::{tree_map_with_path, Array, PathKey};
/// let params = BTreeMap::from([("b", Array::scalar(1.0f32)), ("w", Array::scalar(1.0f32))]);
/// let decayed = tree_map_with_path(&params, |path, p| match path.last() {
///     Some(PathKey::Key(k)) if k == "\"w\"" => p * 0.5,
///     _ => p.clone(),
/// })
/// .unwrap();
/// assert_eq!(decayed["w"].to_vec::<f32>().unwrap(), vec![0.5]);
/// assert_eq!(decayed["b"].to_vec::<f32>().unwrap(), vec![1.0]);
/// ```
pub fn tree_map_with_path<T: Tree>(
    tree: &T,
    mut f: impl FnMut(&KeyPath, &Array) -> Array,
) -> Result<T> {
    let (pairs, _) = tree_flatten_with_path(tree);
    let mapped = pairs.iter().map(|(p, a)| f(p, a)).collect();
    rebuild_exact("tree_map_with_path", tree, mapped)
}

/// Folds the leaves in order into an accumulator (`jax.tree.reduce(f, tree, initializer)`).
///
/// ```
/// use systolic::{numpy as np, tree_reduce, Array};
/// let t = (Array::from_vec(vec![1.0f32, 2.0], &[2]), Array::scalar(3.0f32));
/// let total = tree_reduce(&t, Array::scalar(0.0f32), |acc, x| &acc + &np::sum(x, None, false));
/// assert_eq!(total.to_vec::<f32>().unwrap(), vec![6.0]);
/// let count = tree_reduce(&t, 0, |n, x| n + x.size());
/// assert_eq!(count, 3);
/// ```
pub fn tree_reduce<T: Tree, A>(tree: &T, init: A, f: impl FnMut(A, &Array) -> A) -> A {
    tree_leaves(tree).iter().fold(init, f)
}

/// Swaps the two levels of a tree whose structure is `outer` with an `inner` tree at each of
/// its leaves (`jax.tree.transpose`): a list of pairs becomes a pair of lists. The result is a
/// [`DynTree`] of structure `inner` with an `outer` tree at each leaf.
///
/// ```
/// use systolic::{tree_structure, tree_transpose, Array, Tree};
/// let pair = |x: f32| (Array::scalar(x), Array::scalar(-x));
/// let rows = vec![pair(1.0), pair(2.0), pair(3.0)];
/// let outer = tree_structure(&vec![Array::scalar(0.0f32); 3]);
/// let inner = tree_structure(&pair(0.0));
/// let cols = tree_transpose(&outer, &inner, &rows).unwrap();
/// assert_eq!(cols.structure(), "([*,*,*],[*,*,*])");
/// let neg = cols.get("[1][2]").and_then(|n| n.as_leaf()).unwrap();
/// assert_eq!(neg.to_vec::<f32>().unwrap(), vec![-3.0]);
/// ```
pub fn tree_transpose<T: Tree>(outer: &TreeDef, inner: &TreeDef, tree: &T) -> Result<DynTree> {
    let expected = outer.compose(inner);
    let got = tree.def();
    if got != expected {
        return Err(Error::Trace(format!(
            "tree_transpose: the tree has structure {got}, not {expected} (outer {outer} \
             composed with inner {inner})"
        )));
    }
    let leaves = tree_leaves(tree);
    let (n_outer, n_inner) = (outer.num_leaves(), inner.num_leaves());
    let swapped = (0..n_inner)
        .flat_map(|j| (0..n_outer).map(move |i| i * n_inner + j))
        .map(|k| leaves[k].clone())
        .collect();
    DynTree::from_def(&inner.compose(outer), swapped)
}
