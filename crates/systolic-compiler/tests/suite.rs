//! Every integration test of this crate, one module per file, in one test binary.
//!
//! One binary links and instantiates the dependencies' generics once instead of once per file,
//! which shortens a clean `cargo test --workspace`; run one file's tests with
//! `cargo test -p systolic-compiler --test suite FILE::`.

mod common;

mod batch_norm_expander;
mod buffer_assignment;
mod cf_simplify;
mod chlo_legalize;
mod const_fold;
mod cse;
mod dce;
mod fusion;
mod fusion_pipeline;
mod fusion_random;
mod gspmd_import;
mod inline;
mod layout;
mod lower_manual_computations;
mod map_inliner;
mod partly_manual;
mod pass_manager;
mod robustness;
mod shard_map_nested;
mod sharding_propagation;
mod simplify;
mod single_device_spmd;
mod spmd_partitioner;
mod spmd_partitioner_check;
mod spmd_partitioner_control_flow;
mod spmd_partitioner_indexing;
mod spmd_partitioner_jax;
mod spmd_partitioner_local_ops;
mod spmd_partitioner_permute;
mod spmd_partitioner_random;
mod spmd_partitioner_reduce_scatter;
mod spmd_partitioner_uneven;
mod spmd_partitioner_variadic;
mod spmd_partitioner_warnings;
mod spmd_partitioner_windows;
mod while_invariants;
