//! The reference interpreter of Systolic's IR.
//!
//! Small, exact and slow on purpose: it is the oracle every compiled backend is tested against.
//! Values are [`systolic_ir::Tensor`]s with exact per-dtype semantics (integer wrap-around,
//! float→int saturation, bf16 round-to-nearest-even, denormals flushed as XLA:CPU does; see
//! [`systolic_ir::numerics`]).

#![warn(missing_docs)]

pub mod checkfile;
pub mod error;
pub mod eval;
pub mod index;
pub mod operands;
pub mod ops;
pub mod parallel;
pub mod print_sink;
pub mod quantized;
pub mod regions;
pub mod value;

pub use checkfile::{
    run_check_source, run_check_source_with, CheckOptions, CheckReport, FunctionReport,
};
pub use error::{InterpError, Result};
pub use eval::{CheckOutcome, Interpreter};
pub use parallel::{run_programs, Process, ProcessId, Rendezvous};
pub use print_sink::{PrintFormat, PrintSettings};
pub use regions::Regions;
pub use value::Value;
