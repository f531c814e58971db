//! `jax.debug`: printing and host callbacks from inside transformed functions.
//!
//! [`print!`](crate::debug::print) formats arrays as `jax.debug.print` does (each value as
//! numpy's `str`, the crate's [`Display`](std::fmt::Display) of an array) and [`callback`]
//! calls a Rust closure with the values. Outside any trace both run at once. Inside `jit`,
//! `grad`, `vmap` or a `lax` loop body they are staged as a host callback
//! (`systolic_ir::host_callback`: a `custom_call` with a side effect, which no pass removes,
//! merges or reorders) and run when the compiled program reaches them, with the values the
//! program computed there:
//!
//! - in program order, once per execution (inside `fori_loop`/`while_loop`/`scan`, once per
//!   iteration);
//! - under `grad`/`jvp`/`vjp`, on the primal values only (JAX's rule: the callback is not
//!   differentiated, no tangent or cotangent is printed);
//! - under `vmap`, once per example, in example order, each with that example's values (JAX's
//!   batching rule unrolls the callback over the batch).
//!
//! A `jit` call returns before its program has run (dispatch is asynchronous, as JAX's), so a
//! print inside it shows when the program runs: reading a result, or
//! [`Array::block_until_ready`](crate::Array::block_until_ready), waits for it. An eager print
//! first waits for the work queued before it, so prints come out in the order the program
//! asked for them. Prints go to standard output unless [`set_print_sink`] chose another sink;
//! [`capture_prints`] collects them (for tests).
//!
//! ```
//! use systolic::{debug, jit, vmap, Array};
//! let f = |x: &Array| {
//!     let y = x * 2.0;
//!     debug::print!("x = {}, y = {y}", x, y = &y);
//!     y
//! };
//! let x = Array::from_vec(vec![1.0f32, 2.0], &[2]);
//! let (_, lines) = debug::capture_prints(|| jit(vmap(f)).call(&x).unwrap().block_until_ready().map(|_| ()));
//! assert_eq!(lines, vec!["x = 1.0, y = 2.0", "x = 2.0, y = 4.0"]);
//! ```

mod callback;
pub(crate) mod format;
mod print;
mod sink;

pub use callback::callback;
pub use format::Formatted;
pub use sink::{capture_prints, set_print_sink, PrintSink};

/// `jax.debug.print`: formats arrays with a `format!` string when the values exist — at once
/// outside a trace, when the compiled program reaches it inside `jit`, `grad`, `vmap` or a
/// loop — and writes the line to the print sink (standard output by default, [`set_print_sink`]).
///
/// Arguments are arrays (`Array` or `&Array`), positional or named (`name = value`); the
/// format string names them as `format!` does (`{}`, `{0}`, `{name}`). A name the call does not
/// pass (`{y}` meaning a local `y`) is a compile error: the values are formatted later, where
/// the function's locals are gone, so pass it as `y = &y`. Values print as `jax.debug.print`
/// shows them ([`Formatted`]): arrays as numpy's `str`, 0-d arrays as Python numbers
/// (`0.10000000149011612` for an f32 `0.1`, `True`, `-3`).
///
/// ```
/// use systolic::{debug, jit, numpy as np, Array};
/// let f = jit(|x: &Array| {
///     debug::print!("sum = {s}", s = np::sum(x, None, false));
///     x + 1.0
/// });
/// let x = Array::from_vec(vec![1.0f32, 2.0, 3.5], &[3]);
/// let (y, lines) = debug::capture_prints(|| f.call(&x).unwrap().to_vec::<f32>().unwrap());
/// assert_eq!(y, vec![2.0, 3.0, 4.5]);
/// assert_eq!(lines, vec!["sum = 6.5"]);
/// // Outside jit it prints at once.
/// let (_, lines) = debug::capture_prints(|| debug::print!("{}", x));
/// assert_eq!(lines, vec!["[1.  2.  3.5]"]);
/// ```
pub use crate::__debug_print as print;

#[doc(hidden)]
pub use print::{__next, __print_impl, __to_array};
