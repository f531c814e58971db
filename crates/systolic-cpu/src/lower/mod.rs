//! Lowering: from the optimised entry function to a [`crate::program::Program`] of kernels.
//!
//! [`LowerCtx`], the contract with the kernel families in [`crate::kernels`], lives below both
//! in [`crate::lower_ctx`] (kernels depend on it, not on this module); it is re-exported here.

pub mod cost;
mod function;
mod pipeline;

pub use crate::lower_ctx::{captures, LowerCtx};
pub use function::{FallbackOp, Lowerer};
pub use pipeline::{cpu_pipeline, optimize};
