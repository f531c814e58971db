//! Op implementations shared by the [`numpy`](crate::numpy) and [`lax`](crate::lax)
//! namespaces, one module per family.

pub(crate) mod attention;
pub(crate) mod control;
pub(crate) mod conv;
pub(crate) mod creation;
pub(crate) mod einsum;
pub(crate) mod elementwise;
pub(crate) mod indexing;
pub(crate) mod linalg;
pub(crate) mod matrix;
pub(crate) mod norm;
pub(crate) mod np_linalg;
pub(crate) mod pad;
pub(crate) mod reduce;
pub(crate) mod region;
pub(crate) mod search;
pub(crate) mod shape;
pub(crate) mod sort;
pub(crate) mod stats;
pub(crate) mod ufuncs;
pub(crate) mod window;
