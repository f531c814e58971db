//! Every integration test of this crate, one module per file, in one test binary.
//!
//! One binary links and instantiates the dependencies' generics once instead of once per file,
//! which shortens a clean `cargo test --workspace`; run one file's tests with
//! `cargo test -p systolic --test suite FILE::`.

mod api_semantics;
mod complex_front;
mod complex_grad;
mod complex_linalg;
mod complex_linalg_grad;
mod constructs_golden;
mod control_flow;
mod conv_transpose;
mod data;
mod debug_print;
mod disable_jit;
mod display_golden;
mod failed_arrays;
mod golden_util;
mod grad;
mod grad_perf;
mod jit_async;
mod jit_donate;
mod jit_lower;
mod linalg_golden;
mod linalg_grad;
mod linalg_hessian;
mod nn_golden;
mod np_decomp;
mod np_eig;
mod np_fft_golden;
mod ops_golden;
mod ops_golden_ops2;
mod porting_mlp;
mod prng_dists;
mod prng_golden;
mod ragged_dot;
mod reductions_golden;
mod tree_derive;
mod ufuncs_golden;
mod vmap;
mod vmap_grad;
mod vmap_programs;
