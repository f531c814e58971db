//! `jax.scipy`: so far its `linalg` namespace.
//!
//! This module only re-exports (as [`numpy`](crate::numpy) does): the implementations are in
//! `ops/scipy_linalg.rs` and, for the functions scipy shares with numpy, `ops/np_decomp.rs`.

/// `jax.scipy.linalg`: LU (`lu`, `lu_factor`, `lu_solve`), Cholesky (`cho_factor`,
/// `cho_solve`), `solve` (with `assume_a = "pos"`), `solve_triangular`, `expm`, `det`, `inv`,
/// `qr`, `svd` and `eigh`, all differentiable, on real and complex matrices.
pub mod linalg {
    pub use crate::ops::np_linalg::Trans;
    pub use crate::ops::scipy_linalg::{
        cho_factor, cho_solve, det, eigh, expm, inv, lu, lu_factor, lu_solve, qr, solve,
        solve_triangular, svd,
    };
}
