//! The op implementations behind the user namespaces [`numpy`](crate::numpy),
//! [`lax`](crate::lax), [`nn`](crate::nn) and [`random`](crate::random), one module per family.
//! The namespaces only re-export from here, so one implementation can serve several of them
//! (`iota` is `lax.iota` and the base of `numpy.arange`) and a namespace's file reads as its
//! table of contents. Every op goes through [`bind`](crate::core::bind), so it runs eagerly and
//! traces alike.

pub(crate) mod activation;
pub(crate) mod attention;
pub(crate) mod collective;
pub(crate) mod complex;
pub(crate) mod control;
pub(crate) mod conv;
pub(crate) mod creation;
pub(crate) mod einsum;
pub(crate) mod elementwise;
pub(crate) mod fft;
pub(crate) mod indexing;
pub(crate) mod linalg;
pub(crate) mod matrix;
pub(crate) mod norm;
pub(crate) mod np_decomp;
pub(crate) mod np_decomp_rules;
pub(crate) mod np_fft;
pub(crate) mod np_linalg;
pub(crate) mod pad;
pub(crate) mod ragged_dot;
pub(crate) mod random;
pub(crate) mod reduce;
pub(crate) mod region;
pub(crate) mod scipy_linalg;
pub(crate) mod search;
pub(crate) mod shape;
pub(crate) mod softmax;
pub(crate) mod sort;
pub(crate) mod stats;
pub(crate) mod strict;
pub(crate) mod ufuncs;
pub(crate) mod window;
