//! Every integration test of this crate, one module per file, in one test binary.
//!
//! One binary links and instantiates the dependencies' generics once instead of once per file,
//! which shortens a clean `cargo test --workspace`; run one file's tests with
//! `cargo test -p systolic-tpu --test suite FILE::`.

mod chlo_ops;
mod collectives;
mod fusion;
mod lapack;
mod loop_memory;
mod programs;
mod roofline;
mod spmd;
mod spmd_scale;
