//! Key paths: where a leaf sits in a tree, printed as JAX's `keystr` prints them.

use std::fmt;

/// One step of a [`KeyPath`], like JAX's key types.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathKey {
    /// A position in a tuple or sequence (`SequenceKey`), printed `[0]`.
    Index(usize),
    /// A named field of a struct, or a tuple struct's position (`GetAttrKey`), printed `.w`.
    Field(String),
    /// A map key (`DictKey`), held as its Rust `Debug` text and printed as Python's `repr`:
    /// `['w']` for the string key `"w"`, `[3]` for an integer key.
    Key(String),
}

impl fmt::Display for PathKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathKey::Index(i) => write!(f, "[{i}]"),
            PathKey::Field(name) => write!(f, ".{name}"),
            PathKey::Key(text) => write!(f, "[{}]", python_repr(text)),
        }
    }
}

/// A Rust string's `Debug` text (`"w"`) as Python's `repr` of it (`'w'`); other keys unchanged.
fn python_repr(debug: &str) -> String {
    let Some(inner) = debug.strip_prefix('"').and_then(|s| s.strip_suffix('"')) else {
        return debug.to_string();
    };
    let text = inner.replace("\\\"", "\"");
    if text.contains('\'') && !text.contains('"') {
        format!("\"{text}\"")
    } else {
        format!("'{}'", text.replace('\'', "\\'"))
    }
}

/// The keys from the root of a tree to one of its leaves (`jax.tree_util.KeyPath`); its
/// `Display` is JAX's `keystr`.
///
/// ```
/// use std::collections::BTreeMap;
/// use systolic::{tree, Array};
/// let params = BTreeMap::from([("w", vec![Array::scalar(1.0f32), Array::scalar(2.0f32)])]);
/// let (pairs, _def) = tree::flatten_with_path(&params);
/// let paths: Vec<String> = pairs.iter().map(|(p, _)| p.to_string()).collect();
/// assert_eq!(paths, ["['w'][0]", "['w'][1]"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KeyPath(pub Vec<PathKey>);

impl KeyPath {
    /// The path with `key` appended.
    pub(crate) fn child(&self, key: PathKey) -> KeyPath {
        let mut keys = self.0.clone();
        keys.push(key);
        KeyPath(keys)
    }

    /// The last key, if any: the leaf's own name in its container.
    pub fn last(&self) -> Option<&PathKey> {
        self.0.last()
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|k| write!(f, "{k}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keys_print_as_python_reprs() {
        assert_eq!(PathKey::Key("\"w\"".into()).to_string(), "['w']");
        assert_eq!(PathKey::Key("\"it's\"".into()).to_string(), "[\"it's\"]");
        assert_eq!(PathKey::Key("3".into()).to_string(), "[3]");
        let p = KeyPath(vec![PathKey::Field("layers".into()), PathKey::Index(0)]);
        assert_eq!(p.to_string(), ".layers[0]");
    }
}
