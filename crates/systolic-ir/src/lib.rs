//! Systolic's IR: StableHLO semantics in plain Rust types.
//!
//! - [`DType`], [`TensorType`], [`Type`]: element and value types.
//! - [`Tensor`]: exact host tensors (constants, interpreter values).
//! - [`Module`], [`Func`], [`Region`], [`Block`], [`Op`], [`OpKind`]: the program.
//! - [`text`]: the MLIR text parser and printer (`jax.jit(f).lower(…).as_text()` form).
//! - [`verify`]: the verifier and per-op shape/type inference.
//! - [`Window`]: the window of `reduce_window`/`select_and_scatter` and its geometry
//!   ([`Window::resolve`] → [`ResolvedWindow`]), which convolution shares.
//! - [`walk`], [`inline`], [`builder`]: walks and rewrites, call inlining, and building a
//!   function op by op with inferred result types (what the passes and transformations share).
//!
//! The semantic reference is the StableHLO specification (openxla/stablehlo, `docs/spec.md`).

#![warn(missing_docs)]

pub mod attrs;
pub mod batch_collective;
pub mod builder;
pub mod collective_groups;
pub mod deadline;
pub mod diag;
pub mod dtype;
pub mod host_callback;
pub mod inline;
pub mod lapack;
pub mod memory_budget;
pub mod minifloat;
pub mod module;
pub mod numerics;
pub mod op_properties;
pub mod ops;
pub mod pvary;
pub mod quant;
pub mod shard_layout;
pub mod sharding;
pub mod tensor;
pub mod text;
pub mod types;
pub mod verify;
pub mod walk;
pub mod window;

pub use attrs::*;
pub use collective_groups::{GroupMode, ProcessGrid, ProcessId};
pub use diag::Diagnostic;
pub use dtype::{DType, DTypeKind};
pub use module::{Block, Func, Module, Op, Region, Span, ValueDef, ValueId, Visibility};
/// A complex element as the IR stores it: two f64s (each exactly a value of the complex dtype's
/// parts), the type `num_complex` and `rustfft` compute with.
pub use num_complex::Complex64;
pub use op_properties::{ElementCost, OpFamily, OpTraits, RegionArity};
pub use ops::*;
pub use shard_layout::{ShardLayout, ShardLayoutError};
pub use sharding::*;
pub use tensor::{Data, Scalar, Tensor, TensorError};
pub use types::{row_major_strides, TensorType, Type};
pub use window::{ResolvedWindow, Window, WindowDim, WindowError};
