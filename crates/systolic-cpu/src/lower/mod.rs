//! Lowering: from the optimised entry function to a [`crate::program::Program`] of kernels.
//!
//! [`LowerCtx`] is the contract with the kernel families in [`crate::kernels`].

pub mod captures;
pub mod cost;
mod ctx;
mod function;
mod pipeline;

pub use ctx::LowerCtx;
pub use function::{FallbackOp, Lowerer};
pub use pipeline::{cpu_pipeline, optimize};
