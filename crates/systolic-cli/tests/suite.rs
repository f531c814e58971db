//! Every integration test of this crate, one module per file, in one test binary.
//!
//! One binary links and instantiates the dependencies' generics once instead of once per file,
//! which shortens a clean `cargo test --workspace`; run one file's tests with
//! `cargo test -p systolic-cli --test suite FILE::`.

mod common;

mod check_command;
mod errors;
mod goldens;
mod npy_files;
mod partitioned;
mod run_command;
mod shard_map_nested;
mod simulate_command;
mod simulate_sharded;
mod spmd_goldens;
mod tour;
mod tour_training;
mod trace_command;
