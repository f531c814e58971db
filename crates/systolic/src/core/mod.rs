//! The tracing core: the machinery under every op and every transformation, between the user
//! namespaces above and the runtime below. It exists so that one user function runs the same
//! eagerly and under `jit`, `grad` and `vmap`, and so that the ops in `ops/` and the
//! transformations in `transforms/` need to know nothing about how a value is computed.
//!
//! - `bind`: the one entry point of every op: check operands, infer result types, then stage
//!   the op into the active trace or run it eagerly.
//! - `trace`: the thread-local stack of traces that ops are staged into (omnistaging).
//! - `staging`: stage a user function into an IR function, and call an IR function on arrays
//!   (compile and run, or inline into the enclosing trace): what the transformations share.
//! - `eager`: single-op executables, compiled once per op signature and cached.
//! - `composite`: many-op front-end functions (the PRNG hash) run eagerly as one cached
//!   executable.
//! - `dispatch`: the asynchronous dispatch queue that eager ops and compiled calls run on.
//! - `body`: region bodies (reducers, comparators) as data, built the same traced or eager.
//! - `scope`: name scopes (`named_scope`) that staged ops carry in their locations.
//! - `raise`: errors that leave a traced user function by unwinding (a failed array's
//!   metadata read under a trace, `jit_fallible`'s `Err`), caught by staging.
//! - [`promote`]: JAX's type promotion lattice with weak types (public as
//!   `systolic::promote`).

pub(crate) mod bind;
pub(crate) mod body;
pub(crate) mod composite;
pub(crate) mod dispatch;
pub(crate) mod eager;
pub mod promote;
pub(crate) mod raise;
pub(crate) mod scope;
pub(crate) mod staging;
pub(crate) mod trace;
