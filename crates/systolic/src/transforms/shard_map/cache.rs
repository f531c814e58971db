//! The compile cache of [`shard_map`](crate::shard_map) and [`pmap`](crate::pmap) calls made
//! outside `jit`: like `jit`'s, one compiled program per abstract signature (the argument
//! tree, each leaf's type, weak type and sharding), so a training loop traces and compiles its
//! step once.

use super::spmd::SpmdProgram;
use crate::array::{abstract_value, Array};
use crate::error::Result;
use crate::tree::Tree;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A traced and compiled call.
pub(crate) struct Entry<R> {
    pub(crate) program: SpmdProgram,
    /// The outputs' structure (its leaves are values of a finished trace).
    pub(crate) template: R,
    /// Arrays the function read from outside, passed after the arguments.
    pub(crate) captures: Vec<Array>,
    pub(crate) out_weak: Vec<bool>,
}

impl<R: Tree> Entry<R> {
    /// Runs the program on `leaves` (then the captures) and rebuilds the outputs.
    pub(crate) fn run(&self, label: &str, leaves: Vec<Array>) -> Result<R> {
        let mut inputs = leaves;
        inputs.extend(self.captures.iter().cloned());
        let outs = self.program.execute(label, inputs, &self.out_weak);
        self.template.rebuild(&mut outs.into_iter())
    }
}

/// Entries by signature.
pub(crate) struct Cache<R> {
    entries: RefCell<HashMap<String, Rc<Entry<R>>>>,
}

impl<R> Default for Cache<R> {
    fn default() -> Self {
        Cache {
            entries: RefCell::new(HashMap::new()),
        }
    }
}

/// The signature of a call on `args` (`extra` adds what else decides the program).
pub(crate) fn signature<A: Tree>(args: &A, leaves: &[Array], extra: &str) -> Result<String> {
    let mut avals = Vec::with_capacity(leaves.len());
    for a in leaves {
        a.check()?;
        avals.push(abstract_value(a));
    }
    Ok(format!("{} | {} | {extra}", args.def(), avals.join(" ")))
}

impl<R> Cache<R> {
    /// The entry for `key`, made by `make` on a miss.
    pub(crate) fn get_or_make(
        &self,
        key: String,
        make: impl FnOnce() -> Result<Entry<R>>,
    ) -> Result<Rc<Entry<R>>> {
        if let Some(e) = self.entries.borrow().get(&key) {
            return Ok(e.clone());
        }
        let entry = Rc::new(make()?);
        self.entries.borrow_mut().insert(key, entry.clone());
        Ok(entry)
    }

    /// How many signatures were compiled.
    pub(crate) fn len(&self) -> usize {
        self.entries.borrow().len()
    }
}
