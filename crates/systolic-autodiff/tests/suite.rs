//! Every integration test of this crate, one module per file, in one test binary.
//!
//! One binary links and instantiates the dependencies' generics once instead of once per file,
//! which shortens a clean `cargo test --workspace`; run one file's tests with
//! `cargo test -p systolic-autodiff --test suite FILE::`.

mod collective;
mod goldens;
mod manual_computation;
mod numeric;
mod pairing;
mod scatter;
mod transform;
