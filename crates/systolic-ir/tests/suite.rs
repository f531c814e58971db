//! Every integration test of this crate, one module per file, in one test binary.
//!
//! One binary links and instantiates the dependencies' generics once instead of once per file,
//! which shortens a clean `cargo test --workspace`; run one file's tests with
//! `cargo test -p systolic-ir --test suite FILE::`.

mod roundtrip_common;

mod complex_types;
mod fusion_op;
mod narrow_floats;
mod parse_errors;
mod parse_fixtures;
mod parse_forms;
mod parse_perf;
mod parse_shardings;
mod print_build;
mod print_golden;
mod roundtrip_corpus;
mod roundtrip_fixtures;
mod roundtrip_random;
mod run_parallel;
mod shardy_ops;
mod verify_indexing;
#[path = "verify_infer/main.rs"]
mod verify_infer;
mod verify_jax_fixtures;
mod verify_module;
mod verify_no_panic;
mod verify_shapes;
mod verify_text;
