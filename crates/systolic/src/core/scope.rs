//! Name scopes (JAX's `jax.named_scope`): a thread-local stack of names that every op staged
//! while it is open carries in its location, as `loc("outer/inner/add")`. The compiler keeps
//! locations through its passes (a fusion takes its root's), so the CPU backend names each
//! kernel by its scope path in traces (`outer/inner/fusion.3 (loop) …`) and in `systolic run
//! --profile`-style tables, and a printed module shows where each op came from.
//!
//! Only staged ops are named: a scope around a call of a `jit` function names the ops of the
//! trace it is in, so a scope meant for a jitted function's ops goes inside the function (the
//! compiled executable is cached with the names it was traced with).

use std::cell::RefCell;
use systolic_ir::{Location, OpKind};

thread_local! {
    static SCOPES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// A name scope, open until dropped: ops staged meanwhile on this thread carry its path.
///
/// ```
/// use systolic::{jit, numpy as jnp, Array, NamedScope};
/// let f = jit(|x: &Array| {
///     let _scope = NamedScope::new("layer1");
///     jnp::sin(x) * 2.0
/// });
/// let text = f.lower(&Array::from_vec(vec![1.0f32, 2.0], &[2])).unwrap().as_text();
/// assert!(text.contains(r#"loc("layer1/sine")"#), "{text}");
/// ```
#[must_use = "the scope names the ops staged until it is dropped"]
pub struct NamedScope {
    depth: usize,
}

impl NamedScope {
    /// Opens a scope named `name` inside the open ones (a `/` in `name` nests further).
    pub fn new(name: &str) -> NamedScope {
        let depth = SCOPES.with(|s| {
            let mut s = s.borrow_mut();
            s.push(name.to_string());
            s.len()
        });
        NamedScope { depth }
    }
}

impl Drop for NamedScope {
    fn drop(&mut self) {
        SCOPES.with(|s| s.borrow_mut().truncate(self.depth - 1));
    }
}

/// Runs `f` inside a [`NamedScope`] named `name` (JAX's `with jax.named_scope(name):`).
///
/// ```
/// use systolic::{jit, named_scope, numpy as jnp, Array};
/// let f = jit(|x: &Array| named_scope("encoder", || named_scope("mlp", || jnp::tanh(x))));
/// let text = f.lower(&Array::from_vec(vec![1.0f32], &[1])).unwrap().as_text();
/// assert!(text.contains(r#"loc("encoder/mlp/tanh")"#), "{text}");
/// ```
pub fn named_scope<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let _scope = NamedScope::new(name);
    f()
}

/// The location of an op of `kind` staged now: `scope/path/op` inside a scope, else none.
pub(crate) fn location(kind: &OpKind) -> Option<Location> {
    SCOPES.with(|s| {
        let s = s.borrow();
        if s.is_empty() {
            return None;
        }
        let full = kind.name();
        let short = full.rsplit('.').next().unwrap_or(&full);
        Some(Location::Name {
            name: format!("{}/{short}", s.join("/")),
            child: None,
        })
    })
}
