//! Systolic's CPU backend.
//!
//! The optimised IR (after the shared passes and fusion) is lowered op by op into [`Kernel`]s;
//! an executable runs them in order over [`CpuBuffer`]s, freeing each value after its last use
//! and letting kernels update dying operands in place. Ops without a native kernel run on the
//! reference interpreter ([`CpuExecutable::fallback_ops`] lists them).
//!
//! ```
//! use systolic_cpu::{compile, CompileOptions, CpuBuffer};
//! let module = systolic_ir::text::parse_module(
//!     "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
//!        %0 = stablehlo.add %a, %a : tensor<2xf32>
//!        return %0 : tensor<2xf32>
//!      }",
//!     "example",
//! ).unwrap();
//! let exe = compile(&module, &CompileOptions::default()).unwrap();
//! let out = exe.execute(vec![CpuBuffer::from_f32(vec![2], vec![1.0, 2.5])]).unwrap();
//! assert_eq!(out[0].as_f32().unwrap(), &[2.0, 5.0]);
//! ```

#![warn(missing_docs)]

pub mod alloc;
pub mod buffer;
pub mod error;
pub mod executable;
pub mod isa;
pub mod kernel;
pub mod kernels;
pub mod lower;
pub mod lower_ctx;
pub mod pages;
pub mod pool;
pub mod program;
pub mod schedule;
pub mod shards;
pub mod spmd;
pub mod switch;
#[cfg(test)]
mod test_rng;
pub mod threads;

pub use buffer::{ByteCountMismatch, CpuBuffer, Storage};
pub use error::{CpuError, Result};
pub use executable::{compile, lower_optimized, CompileOptions, CpuExecutable};
pub use kernel::{Arg, Kernel};
pub use lower::LowerCtx;
pub use program::{RtValue, ValueArg};
pub use spmd::{compile_mpmd, compile_spmd, SpmdExecutable, SpmdProcess};
