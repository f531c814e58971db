//! Function transformations, JAX's `jax.jit`, `jax.grad` and `jax.vmap`: each takes a user
//! function over pytrees ([`Tree`](trait@crate::Tree)), stages it into IR through the tracing
//! core (`core::staging`) and compiles, differentiates or batches that IR. Because each one
//! calls its result through the same staging, they compose; and because each takes and is a
//! [`Function`](crate::Function) (`function.rs`), they compose without wrapper closures:
//! `jit(grad(f))`, `vmap(jit(f))`, `grad(grad(f))`.
//!
//! - `jit`: trace once per abstract signature, compile, cache, call asynchronously.
//! - `grad`: `grad`, `value_and_grad`, `jvp`, `vjp` and `checkpoint`, through
//!   `systolic_autodiff`.
//! - `vmap`: the vectorising map, through `systolic_vmap`.
//!
//! - `shard_map`: `shard_map` and `pmap`, a function run on every device of a mesh with
//!   collectives between them.

pub(crate) mod aot;
pub(crate) mod custom;
pub(crate) mod fallible;
pub(crate) mod function;
pub(crate) mod grad;
pub(crate) mod jac;
pub(crate) mod jit;
pub(crate) mod remat;
pub(crate) mod shard_map;
pub(crate) mod stop_gradient;
pub(crate) mod vmap;
