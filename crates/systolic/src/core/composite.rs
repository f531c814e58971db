//! Eager composites: a front-end function of many ops, called outside any trace, runs as one
//! executable compiled once per input signature instead of one dispatch per op.
//!
//! Why: the threefry hash under every random draw is ~150 elementwise ops; run eagerly op by
//! op, a `randint` outside `jit` cost ~3 ms of dispatch. As a composite it is one cached
//! executable per shape, as JAX runs its PRNG primitives outside `jit`. Inside a trace (or
//! with traced or sharded inputs) the function is simply called, so it stages op by op into
//! the enclosing program as before and `grad`/`vmap` see ordinary ops.

use crate::array::{Array, Repr};
use crate::core::trace;
use crate::transforms::jit::{jit, Jit};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

type Body = fn(&[Array]) -> Vec<Array>;
type BoxedBody = Box<dyn Fn(&Vec<Array>) -> Vec<Array>>;
type CompositeJit = Jit<Vec<Array>, Vec<Array>, BoxedBody>;

thread_local! {
    /// One `jit` per composite name (it caches per input signature itself).
    static COMPOSITES: RefCell<HashMap<&'static str, Rc<CompositeJit>>> =
        RefCell::new(HashMap::new());
}

/// Runs `body` on `inputs`: as one cached executable when called eagerly on concrete,
/// unsharded arrays, else op by op. `body` is a plain function (it captures nothing), so its
/// `name` and the inputs' types are everything that identifies the program.
pub(crate) fn composite(name: &'static str, inputs: &[&Array], body: Body) -> Vec<Array> {
    let owned: Vec<Array> = inputs.iter().map(|a| (*a).clone()).collect();
    let eager = trace::current().is_none()
        && owned
            .iter()
            .all(|a| matches!(a.inner.repr, Repr::Concrete(_) | Repr::Pending(_)));
    if !eager {
        return body(&owned);
    }
    let f = COMPOSITES.with(|c| {
        c.borrow_mut()
            .entry(name)
            .or_insert_with(|| {
                let f: BoxedBody = Box::new(move |a| body(a));
                Rc::new(jit(f).named(name))
            })
            .clone()
    });
    match f.call(&owned) {
        Ok(outs) => outs,
        // The op-by-op path reports the same failure with the op that caused it.
        Err(_) => body(&owned),
    }
}
