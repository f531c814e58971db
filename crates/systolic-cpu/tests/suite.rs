//! Every integration test of this crate, one module per file, in one test binary.
//!
//! One binary links and instantiates the dependencies' generics once instead of once per file,
//! which shortens a clean `cargo test --workspace`; run one file's tests with
//! `cargo test -p systolic-cpu --test suite FILE::`.

mod fusion_support;
mod support;

mod compiled_vs_interp;
mod compiled_vs_interp_elementwise;
mod compiled_vs_interp_families;
mod compiled_vs_interp_other;
mod compiled_vs_interp_runtime;
mod complex;
mod complex_goldens;
mod complex_native;
mod conv;
mod dot;
mod dot_compiled;
mod dot_epilogue;
mod fallback_list;
mod fusion_chains;
mod fusion_elementwise;
mod fusion_random_compiled;
mod fusion_reduce;
mod fusion_reduce_segments;
mod fusion_rows;
mod goldens;
mod host_callback;
mod indexing;
mod isa_caps;
mod jax_fixtures;
mod linalg;
mod linalg_custom_calls;
mod lu_native;
mod math_accuracy;
mod narrow_float_goldens;
mod narrow_floats;
mod narrow_reduce_goldens;
mod region_kernels;
mod rng;
mod rng_native;
mod sort;
mod spmd;
mod window;
