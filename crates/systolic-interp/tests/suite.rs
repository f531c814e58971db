//! Every integration test of this crate, one module per file, in one test binary.
//!
//! One binary links and instantiates the dependencies' generics once instead of once per file,
//! which shortens a clean `cargo test --workspace`; run one file's tests with
//! `cargo test -p systolic-interp --test suite FILE::`.

mod support;

mod chlo;
mod collective_parallel;
mod indexing;
mod interpret;
mod linalg;
mod narrow_floats;
mod ops;
mod printing;
mod reduce;
mod rng_bit_generator;
mod robustness;
mod shardy;
mod special_functions;
mod xla_elementwise;
mod xla_math;
