//! Pytrees: the nested containers of arrays that `jit` takes and returns, as in JAX.
//!
//! A [`Tree`] lists its array leaves in a fixed order, rebuilds itself from new leaves, and
//! describes its structure as a [`TreeDef`]: the containers, their field names and keys, and
//! the values of its static parts ([`Static`] values, `#[tree(static)]` fields). Two trees with
//! equal `TreeDef`s and leaves of equal shapes, dtypes and weak types trace to the same program,
//! which is what the jit cache key says.
//!
//! Implementations exist for [`Array`], `()`, tuples up to 12, `Vec`, `[T; N]`, `Option`,
//! `Box`/`Rc`/`Arc`, `BTreeMap` and `HashMap` (keys in sorted order), `PhantomData` and
//! [`Static`]; `#[derive(Tree)]` writes them for structs and enums.
//!
//! This module is also `jax.tree`: its functions under JAX's short names (`tree::map`,
//! `tree::leaves`, `tree::structure`, …), also re-exported at the crate root with the
//! `tree_` prefix of `jax.tree_util` (`systolic::tree_map`).
//!
//! ```
//! use systolic::{tree, Array};
//! let params = (Array::scalar(1.0f32), vec![Array::scalar(2.0f32)]);
//! let grads = (Array::scalar(0.5f32), vec![Array::scalar(0.5f32)]);
//! let new = tree::map2(&params, &grads, |p, g| p - g).unwrap();
//! assert_eq!(tree::structure(&new).to_string(), "(*,[*])");
//! assert_eq!(tree::leaves(&new)[1].to_vec::<f32>().unwrap(), vec![1.5]);
//! ```

mod dynamic;
mod functions;
mod path;

pub use dynamic::DynTree;
pub(crate) use functions::check_same_as;
pub use functions::{
    tree_flatten, tree_flatten_with_path, tree_leaves, tree_map, tree_map2, tree_map3, tree_map_n,
    tree_map_with_path, tree_reduce, tree_structure, tree_transpose, tree_unflatten,
    tree_unflatten_as,
};
pub use functions::{
    tree_flatten as flatten, tree_flatten_with_path as flatten_with_path, tree_leaves as leaves,
    tree_map as map, tree_map2 as map2, tree_map3 as map3, tree_map_n as map_n,
    tree_map_with_path as map_with_path, tree_reduce as reduce, tree_structure as structure,
    tree_transpose as transpose, tree_unflatten as unflatten, tree_unflatten_as as unflatten_as,
};
pub use path::{KeyPath, PathKey};

use crate::array::Array;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

/// A container of arrays that `jit` can flatten and rebuild.
///
/// Write it with `#[derive(Tree)]` (see [`derive@crate::Tree`]) for your own structs and enums.
/// An implementation must list its leaves ([`Tree::leaves`]) in the order of the
/// [`TreeDef::Leaf`] nodes of its [`Tree::def`], and [`Tree::rebuild`] must take them back in
/// that order.
///
/// ```
/// use systolic::{Array, Tree};
/// let t = (Array::scalar(1.0f32), vec![Array::scalar(2i32)], None::<Array>);
/// let mut leaves = vec![];
/// t.leaves(&mut leaves);
/// assert_eq!(leaves.len(), 2);
/// assert_eq!(t.structure(), "(*,[*],None)");
/// let doubled = t.rebuild(&mut leaves.iter().map(|l| l * 2)).unwrap();
/// assert_eq!(doubled.1[0].to_vec::<i32>().unwrap(), vec![4]);
/// ```
pub trait Tree: Sized {
    /// Appends the array leaves, in order.
    fn leaves(&self, out: &mut Vec<Array>);
    /// A copy of `self` with its leaves taken from `leaves` in order (static parts are cloned).
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self>;
    /// The structure: containers, field names, keys and static values (not the arrays).
    fn def(&self) -> TreeDef;
    /// The structure as text, part of the jit cache key: `(*,[*],None)`.
    ///
    /// ```
    /// use systolic::{Array, Static, Tree};
    /// assert_eq!((Array::scalar(1.0f32), Static(3)).structure(), "(*,static 3)");
    /// ```
    fn structure(&self) -> String {
        self.def().to_string()
    }
}

/// The structure of a [`Tree`] without its arrays, like JAX's `PyTreeDef`.
///
/// Printed compactly (`Mlp{layers:[Layer{w:*,b:*}],act:static "relu"}`); [`TreeDef::paths`] names
/// every leaf with a key path (`.layers[0].w`) for messages.
///
/// ```
/// use systolic::{Array, Static, Tree, TreeDef};
/// let t = (Array::scalar(1.0f32), Static("relu"));
/// assert_eq!(
///     t.def(),
///     TreeDef::Tuple(String::new(), vec![TreeDef::Leaf, TreeDef::Static("\"relu\"".into())])
/// );
/// assert_eq!(t.def().paths(), vec!["[0]".to_string()]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TreeDef {
    /// An array leaf, printed `*`.
    Leaf,
    /// A static value (its `Debug` text), printed `static <text>`.
    Static(String),
    /// A tuple-like node: a plain tuple (empty name, `(a,b)`), a tuple struct or enum variant
    /// (`Name(a,b)`), or, without children, a unit struct or variant (`Name`; `()` when the name
    /// is empty too).
    Tuple(String, Vec<TreeDef>),
    /// A struct or enum variant with named fields: `Name{a:…,b:…}`.
    Struct(String, Vec<(String, TreeDef)>),
    /// A sequence (`Vec`, `[T; N]`): `[a,b]`.
    List(Vec<TreeDef>),
    /// A map, keys (their `Debug` text) in sorted order: `{k:…}`.
    Map(Vec<(String, TreeDef)>),
}

impl TreeDef {
    /// The number of array leaves.
    ///
    /// ```
    /// use systolic::{Array, Tree};
    /// assert_eq!(vec![(Array::scalar(1.0f32), Array::scalar(2.0f32))].def().num_leaves(), 2);
    /// ```
    pub fn num_leaves(&self) -> usize {
        let mut n = 0;
        self.walk("", &mut |_, d| n += usize::from(matches!(d, TreeDef::Leaf)));
        n
    }

    /// The key path of every leaf, in leaf order: `[0]` for tuple and list positions, `.name`
    /// for fields (`.0` for tuple-struct fields), `[key]` for map keys.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use systolic::{Array, Tree};
    /// let m = BTreeMap::from([("w", vec![Array::scalar(1.0f32)])]);
    /// assert_eq!(m.def().paths(), vec![r#"["w"][0]"#.to_string()]);
    /// ```
    pub fn paths(&self) -> Vec<String> {
        let mut out = vec![];
        self.walk("", &mut |p, d| {
            if matches!(d, TreeDef::Leaf) {
                out.push(p.to_string());
            }
        });
        out
    }

    /// The key path and text of every static value, in order.
    ///
    /// ```
    /// use systolic::{Array, Static, Tree};
    /// let t = (Array::scalar(1.0f32), Static(0.5f32));
    /// assert_eq!(t.def().statics(), vec![("[1]".to_string(), "0.5".to_string())]);
    /// ```
    pub fn statics(&self) -> Vec<(String, String)> {
        let mut out = vec![];
        self.walk("", &mut |p, d| {
            if let TreeDef::Static(s) = d {
                out.push((p.to_string(), s.clone()));
            }
        });
        out
    }

    /// Calls `f` on every node with its key path, parents first.
    fn walk(&self, path: &str, f: &mut dyn FnMut(&str, &TreeDef)) {
        if let Some(inner) = self.transparent() {
            return inner.walk(path, f);
        }
        f(path, self);
        for (key, child) in self.children() {
            child.walk(&format!("{path}{key}"), f);
        }
    }

    /// The children with the key each adds to a path (the map keys as their `Debug` text).
    fn children(&self) -> Vec<(String, &TreeDef)> {
        self.keyed_children()
            .into_iter()
            .map(|(k, d)| {
                let key = match k {
                    PathKey::Index(i) => format!("[{i}]"),
                    PathKey::Field(name) => format!(".{name}"),
                    PathKey::Key(text) => format!("[{text}]"),
                };
                (key, d)
            })
            .collect()
    }

    /// What a `Some(t)` holds: it adds nothing to key paths, as an optional attribute of a
    /// flax module or an optax state is just its value in JAX (`.bias`, not `.bias.0`).
    fn transparent(&self) -> Option<&TreeDef> {
        match self {
            TreeDef::Tuple(name, c) if name == "Some" && c.len() == 1 => c.first(),
            _ => None,
        }
    }

    /// The children with the [`PathKey`] of each.
    fn keyed_children(&self) -> Vec<(PathKey, &TreeDef)> {
        match self {
            TreeDef::Leaf | TreeDef::Static(_) => vec![],
            TreeDef::Tuple(name, c) => c
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let key = if name.is_empty() {
                        PathKey::Index(i)
                    } else {
                        PathKey::Field(i.to_string())
                    };
                    (key, d)
                })
                .collect(),
            TreeDef::List(c) => c
                .iter()
                .enumerate()
                .map(|(i, d)| (PathKey::Index(i), d))
                .collect(),
            TreeDef::Struct(_, c) => c
                .iter()
                .map(|(k, d)| (PathKey::Field(k.clone()), d))
                .collect(),
            TreeDef::Map(c) => c
                .iter()
                .map(|(k, d)| (PathKey::Key(k.clone()), d))
                .collect(),
        }
    }

    /// The [`KeyPath`] of every leaf, in leaf order; printed as JAX's `keystr` (`['w'][0]`).
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use systolic::{Array, Tree};
    /// let m = BTreeMap::from([("w", vec![Array::scalar(1.0f32)])]);
    /// assert_eq!(m.def().key_paths()[0].to_string(), "['w'][0]");
    /// ```
    pub fn key_paths(&self) -> Vec<KeyPath> {
        let mut out = vec![];
        self.key_paths_into(&KeyPath::default(), &mut out);
        out
    }

    fn key_paths_into(&self, path: &KeyPath, out: &mut Vec<KeyPath>) {
        if let Some(inner) = self.transparent() {
            return inner.key_paths_into(path, out);
        }
        if matches!(self, TreeDef::Leaf) {
            out.push(path.clone());
        }
        for (key, child) in self.keyed_children() {
            child.key_paths_into(&path.child(key), out);
        }
    }

    /// This structure with `inner` in place of every leaf (`PyTreeDef.compose`).
    ///
    /// ```
    /// use systolic::{Array, Tree};
    /// let outer = vec![Array::scalar(1.0f32); 2].def();
    /// let inner = (Array::scalar(1.0f32), Array::scalar(1.0f32)).def();
    /// assert_eq!(outer.compose(&inner).to_string(), "[(*,*),(*,*)]");
    /// ```
    pub fn compose(&self, inner: &TreeDef) -> TreeDef {
        let keyed = |c: &[(String, TreeDef)]| {
            c.iter()
                .map(|(k, d)| (k.clone(), d.compose(inner)))
                .collect()
        };
        match self {
            TreeDef::Leaf => inner.clone(),
            TreeDef::Static(_) => self.clone(),
            TreeDef::Tuple(n, c) => {
                TreeDef::Tuple(n.clone(), c.iter().map(|d| d.compose(inner)).collect())
            }
            TreeDef::List(c) => TreeDef::List(c.iter().map(|d| d.compose(inner)).collect()),
            TreeDef::Struct(n, c) => TreeDef::Struct(n.clone(), keyed(c)),
            TreeDef::Map(c) => TreeDef::Map(keyed(c)),
        }
    }

    /// The first differences between `self` (before) and `now`, at most `limit`, each naming
    /// the key path (`root` names the tree: `args`): a changed static value, or a different
    /// container. Each comes with its size: 1 for a static value, 10 for a structure change.
    pub(crate) fn diff(&self, now: &TreeDef, root: &str, limit: usize) -> Vec<(u32, String)> {
        let mut out = vec![];
        diff_into(root, self, now, limit, &mut out);
        out
    }
}

fn diff_into(path: &str, old: &TreeDef, new: &TreeDef, limit: usize, out: &mut Vec<(u32, String)>) {
    if out.len() >= limit || old == new {
        return;
    }
    let same_shape = match (old, new) {
        (TreeDef::Tuple(a, x), TreeDef::Tuple(b, y)) => a == b && x.len() == y.len(),
        (TreeDef::Struct(a, x), TreeDef::Struct(b, y)) => {
            a == b && x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.0 == q.0)
        }
        (TreeDef::List(x), TreeDef::List(y)) => x.len() == y.len(),
        (TreeDef::Map(x), TreeDef::Map(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.0 == q.0)
        }
        _ => false,
    };
    if same_shape {
        for ((key, a), (_, b)) in old.children().into_iter().zip(new.children()) {
            diff_into(&format!("{path}{key}"), a, b, limit, out);
        }
        return;
    }
    out.push(match (old, new) {
        (TreeDef::Static(a), TreeDef::Static(b)) => {
            (1, format!("static value `{path}` changed from {a} to {b}"))
        }
        _ => (
            10,
            format!("tree structure at `{path}` changed from {old} to {new}"),
        ),
    });
}

fn join<T>(items: &[T], f: &mut fmt::Formatter<'_>, each: impl Fn(&T) -> String) -> fmt::Result {
    let parts: Vec<String> = items.iter().map(each).collect();
    f.write_str(&parts.join(","))
}

impl fmt::Display for TreeDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeDef::Leaf => f.write_str("*"),
            TreeDef::Static(s) => write!(f, "static {s}"),
            TreeDef::Tuple(name, c) if c.is_empty() && !name.is_empty() => f.write_str(name),
            TreeDef::Tuple(name, c) => {
                write!(f, "{name}(")?;
                join(c, f, |d| d.to_string())?;
                f.write_str(")")
            }
            TreeDef::Struct(name, c) => {
                write!(f, "{name}{{")?;
                join(c, f, |(k, d)| format!("{k}:{d}"))?;
                f.write_str("}")
            }
            TreeDef::List(c) => {
                f.write_str("[")?;
                join(c, f, |d| d.to_string())?;
                f.write_str("]")
            }
            TreeDef::Map(c) => {
                f.write_str("{")?;
                join(c, f, |(k, d)| format!("{k}:{d}"))?;
                f.write_str("}")
            }
        }
    }
}

/// A static part of a tree: not an array leaf but part of its structure, like an argument in
/// JAX's `static_argnums`. Its `Debug` text goes into the [`TreeDef`] and so into the jit cache
/// key: a call with another value re-traces, and the function sees the value itself (not a
/// tracer), so it may branch on it or use it as a shape.
///
/// `Debug` must tell apart values that trace differently (every std type's does).
///
/// Bare Rust numbers and strings are deliberately not trees: JAX traces a Python scalar argument
/// as a weak-typed array, so a Rust `f32` argument is either static (`Static(x)`, one trace per
/// value) or dynamic ([`weak_float`](crate::weak_float)`(x)`, one trace for all values), and the
/// caller says which.
///
/// ```
/// use systolic::{jit, numpy as np, Array, Static};
/// // `n` is static: a Rust integer the function uses as a shape.
/// let f = jit(|(x, n): &(Array, Static<i64>)| np::sum(&np::reshape(x, &[**n, -1]), Some(&[1]), false));
/// let x = Array::from_vec((0..6).map(|i| i as f32).collect(), &[6]);
/// assert_eq!(f.call(&(x.clone(), Static(2))).unwrap().to_vec::<f32>().unwrap(), vec![3.0, 12.0]);
/// assert_eq!(f.call(&(x.clone(), Static(3))).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 5.0, 9.0]);
/// assert_eq!(f.trace_count(), 2); // a new static value re-traces
/// f.call(&(x, Static(2))).unwrap();
/// assert_eq!(f.trace_count(), 2); // a seen one does not
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Static<T>(pub T);

impl<T> std::ops::Deref for Static<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: fmt::Debug + Clone> Tree for Static<T> {
    fn leaves(&self, _: &mut Vec<Array>) {}
    fn rebuild(&self, _: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        Ok(self.clone())
    }
    fn def(&self) -> TreeDef {
        TreeDef::Static(format!("{:?}", self.0))
    }
}

impl Tree for Array {
    fn leaves(&self, out: &mut Vec<Array>) {
        out.push(self.clone());
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        leaves
            .next()
            .ok_or_else(|| Error::Trace("too few leaves to rebuild a tree".into()))
    }
    fn def(&self) -> TreeDef {
        TreeDef::Leaf
    }
}

impl Tree for () {
    fn leaves(&self, _: &mut Vec<Array>) {}
    fn rebuild(&self, _: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        Ok(())
    }
    fn def(&self) -> TreeDef {
        TreeDef::Tuple(String::new(), vec![])
    }
}

impl<T: ?Sized> Tree for PhantomData<T> {
    fn leaves(&self, _: &mut Vec<Array>) {}
    fn rebuild(&self, _: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        Ok(PhantomData)
    }
    fn def(&self) -> TreeDef {
        TreeDef::Tuple("PhantomData".into(), vec![])
    }
}

impl<T: Tree> Tree for Vec<T> {
    fn leaves(&self, out: &mut Vec<Array>) {
        self.iter().for_each(|t| t.leaves(out));
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        self.iter().map(|t| t.rebuild(leaves)).collect()
    }
    fn def(&self) -> TreeDef {
        TreeDef::List(self.iter().map(Tree::def).collect())
    }
}

impl<T: Tree, const N: usize> Tree for [T; N] {
    fn leaves(&self, out: &mut Vec<Array>) {
        self.iter().for_each(|t| t.leaves(out));
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        let items = self
            .iter()
            .map(|t| t.rebuild(leaves))
            .collect::<Result<Vec<T>>>()?;
        items
            .try_into()
            .map_err(|_| Error::Trace("rebuilding a fixed-size array".into()))
    }
    fn def(&self) -> TreeDef {
        TreeDef::List(self.iter().map(Tree::def).collect())
    }
}

impl<T: Tree> Tree for Option<T> {
    fn leaves(&self, out: &mut Vec<Array>) {
        if let Some(t) = self {
            t.leaves(out);
        }
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        self.as_ref().map(|t| t.rebuild(leaves)).transpose()
    }
    fn def(&self) -> TreeDef {
        match self {
            Some(t) => TreeDef::Tuple("Some".into(), vec![t.def()]),
            None => TreeDef::Tuple("None".into(), vec![]),
        }
    }
}

macro_rules! pointer_tree {
    ($($ptr:ident),+) => {$(
        /// Transparent: the structure of the pointee.
        impl<T: Tree> Tree for $ptr<T> {
            fn leaves(&self, out: &mut Vec<Array>) {
                (**self).leaves(out)
            }
            fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
                (**self).rebuild(leaves).map($ptr::new)
            }
            fn def(&self) -> TreeDef {
                (**self).def()
            }
        }
    )+};
}

pointer_tree!(Box, Rc, Arc);

/// Keys in sorted order; each key's `Debug` text is part of the structure.
impl<K: Ord + Clone + fmt::Debug, T: Tree> Tree for BTreeMap<K, T> {
    fn leaves(&self, out: &mut Vec<Array>) {
        self.values().for_each(|t| t.leaves(out));
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        self.iter()
            .map(|(k, t)| Ok((k.clone(), t.rebuild(leaves)?)))
            .collect()
    }
    fn def(&self) -> TreeDef {
        TreeDef::Map(
            self.iter()
                .map(|(k, t)| (format!("{k:?}"), t.def()))
                .collect(),
        )
    }
}

fn sorted<K: Ord, T, S>(map: &HashMap<K, T, S>) -> Vec<(&K, &T)> {
    let mut entries: Vec<(&K, &T)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// Keys in sorted order (not the map's iteration order), so that the leaf order is
/// deterministic; each key's `Debug` text is part of the structure.
impl<K, T, S> Tree for HashMap<K, T, S>
where
    K: Ord + Hash + Clone + fmt::Debug,
    T: Tree,
    S: BuildHasher + Clone,
{
    fn leaves(&self, out: &mut Vec<Array>) {
        sorted(self).into_iter().for_each(|(_, t)| t.leaves(out));
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
        let mut map = HashMap::with_capacity_and_hasher(self.len(), self.hasher().clone());
        for (k, t) in sorted(self) {
            map.insert(k.clone(), t.rebuild(leaves)?);
        }
        Ok(map)
    }
    fn def(&self) -> TreeDef {
        TreeDef::Map(
            sorted(self)
                .into_iter()
                .map(|(k, t)| (format!("{k:?}"), t.def()))
                .collect(),
        )
    }
}

macro_rules! tuple_tree {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Tree),+> Tree for ($($name,)+) {
            fn leaves(&self, out: &mut Vec<Array>) {
                $(self.$idx.leaves(out);)+
            }
            fn rebuild(&self, leaves: &mut dyn Iterator<Item = Array>) -> Result<Self> {
                Ok(($(self.$idx.rebuild(leaves)?,)+))
            }
            fn def(&self) -> TreeDef {
                TreeDef::Tuple(String::new(), vec![$(self.$idx.def()),+])
            }
        }
    };
}

tuple_tree!(A 0);
tuple_tree!(A 0, B 1);
tuple_tree!(A 0, B 1, C 2);
tuple_tree!(A 0, B 1, C 2, D 3);
tuple_tree!(A 0, B 1, C 2, D 3, E 4);
tuple_tree!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_tree!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_tree!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_tree!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_tree!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_tree!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_tree!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

#[cfg(test)]
mod tests {
    use crate::{jit, Array, Static, Tree};

    // The derive names `::systolic::…`, which resolves inside the crate too.
    #[derive(Tree, Clone)]
    struct Scaled {
        x: Array,
        #[tree(static)]
        k: i32,
    }

    #[test]
    fn derive_works_inside_the_crate() {
        let s = Scaled {
            x: Array::from_vec(vec![1.0f32, 2.0], &[2]),
            k: 3,
        };
        assert_eq!(s.structure(), "Scaled{x:*,k:static 3}");
        let f = jit(|s: &Scaled| &s.x * f64::from(s.k));
        assert_eq!(f.call(&s).unwrap().to_vec::<f32>().unwrap(), vec![3.0, 6.0]);
    }

    #[test]
    fn diff_names_the_changed_static_value_and_structure() {
        let a = (Static(1), vec![Array::scalar(1.0f32)]).def();
        let b = (Static(2), vec![Array::scalar(1.0f32)]).def();
        let c = (Static(1), vec![Array::scalar(1.0f32); 2]).def();
        assert_eq!(
            a.diff(&b, "args", 4),
            vec![(1, "static value `args[0]` changed from 1 to 2".to_string())]
        );
        assert_eq!(
            a.diff(&c, "args", 4),
            vec![(
                10,
                "tree structure at `args[1]` changed from [*] to [*,*]".to_string()
            )]
        );
        assert!(a.diff(&a, "args", 4).is_empty());
    }
}
