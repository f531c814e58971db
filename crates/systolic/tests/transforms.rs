//! The transformation tests of issue 18, one module per file (`transforms_*.rs`), in one test
//! binary; run one file's tests with `cargo test -p systolic --test transforms FILE::`.

mod transforms_compose;
mod transforms_custom;
mod transforms_fallible;
mod transforms_grad;
mod transforms_jac;
mod transforms_remat;
