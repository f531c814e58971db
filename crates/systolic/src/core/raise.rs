//! Errors that leave a traced user function by unwinding, JAX's exceptions in Rust.
//!
//! A traced function returns arrays, not `Result`s, so an error found inside it (its own `Err`
//! under [`jit_fallible`](crate::jit_fallible), or the metadata of a failed array read by its
//! code: [`Array::shape`](crate::Array::shape) and the other accessors) has no value to return.
//! It leaves by `std::panic::resume_unwind` with a private payload, which runs no panic hook
//! and prints nothing; staging ([`stage_with`](crate::core::staging::stage_with)) catches it
//! and returns the error, so the transformation's `call` returns `Err` with the original
//! message. Every trace on the way is popped by its guard as the stack unwinds, so enclosing
//! traces stay usable. Other panics pass through unchanged.

use crate::error::{Error, Result};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// The payload that carries an error out of a traced function.
struct Raised(Error);

/// Leaves the traced function with `error` (caught by the staging that runs it).
pub(crate) fn raise(error: Error) -> ! {
    resume_unwind(Box::new(Raised(error)))
}

/// `f()`, or the error it [`raise`]d; other panics continue.
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => Ok(r),
        Err(payload) => match payload.downcast::<Raised>() {
            Ok(raised) => Err(raised.0),
            Err(other) => resume_unwind(other),
        },
    }
}
