//! numpy-style ops (`jax.numpy`): operands are promoted (JAX's lattice, weak scalars) and
//! broadcast numpy-style; reductions take `axis` and `keepdims`.
//!
//! This module only re-exports: the implementations are in `ops/`, one module per family, so
//! this file is the namespace's table of contents.
//!
//! ```
//! use systolic::{numpy as np, Array};
//! let x = Array::from_vec(vec![-1.0f32, 0.0, 2.0], &[3]);
//! let y = np::where_(&np::greater(&x, &np::zeros(&[], systolic_ir::DType::F32)), &x, &(&x * 0.5));
//! assert_eq!(y.to_vec::<f32>().unwrap(), vec![-0.5, 0.0, 2.0]);
//! ```

pub use crate::ops::complex::{angle, conj, conj as conjugate, imag, real};
pub use crate::ops::creation::{arange, arange_f, eye, full, linspace, ones, zeros, zeros_like};
pub use crate::ops::einsum::{einsum, einsum_with};
pub use crate::ops::elementwise::{
    abs, add, astype, ceil, clip, cos, divide, equal, erf, exp, expm1, floor, greater,
    greater_equal, is_finite, less, less_equal, log, log1p, maximum, minimum, multiply, negative,
    not_equal, power, round, rsqrt, sigmoid, sign, sin, sqrt, square, subtract, tanh, where_,
};
pub use crate::ops::indexing::{at, index, take, take_along_axis, At, Idx, TakeMode};
pub use crate::ops::linalg::{dot, dot_with, matmul, matmul_with};
pub use crate::ops::matrix::{
    diag, diagonal, inner, kron, outer, ravel, tensordot, tensordot_with, trace, tril, triu,
    TensorAxes,
};
pub use crate::ops::pad::{pad, PadMode};
pub use crate::ops::reduce::{
    all, any, argmax, argmin, count_nonzero, max, max as amax, mean, min, min as amin, nanmax,
    nanmean, nanmin, nansum, prod, ptp, sum,
};
pub use crate::ops::search::{
    argwhere, bincount, diff, flatnonzero, meshgrid, nonzero, searchsorted,
};
pub use crate::ops::shape::{
    broadcast_to, concatenate, expand_dims, flip, moveaxis, repeat, reshape, roll, split, squeeze,
    squeeze_axes, stack, swapaxes, tile, transpose, Split,
};
pub use crate::ops::sort::{argsort, sort_np as sort};
pub use crate::ops::stats::{average, median, quantile, std, var};
pub use crate::ops::ufuncs::{
    allclose, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, bitwise_and, bitwise_not,
    bitwise_or, bitwise_xor, cbrt, copysign, cosh, deg2rad, exp2, floor_divide, fmod, hypot,
    invert, isclose, isinf, isnan, left_shift, log10, log2, logaddexp, logical_and, logical_not,
    logical_or, logical_xor, mod_, nan_to_num, rad2deg, reciprocal, remainder, right_shift, rint,
    signbit, sinh, tan, true_divide, trunc,
};
pub use crate::ops::window::{cumprod, cumsum};

/// `jnp.fft`: the discrete Fourier transforms (one, two and n axes; complex, real and
/// Hermitian), their sample frequencies and the zero-frequency shifts.
pub mod fft {
    pub use crate::ops::np_fft::{
        fft, fft2, fftfreq, fftn, fftshift, hfft, ifft, ifft2, ifftn, ifftshift, ihfft, irfft,
        irfft2, irfftn, rfft, rfft2, rfftfreq, rfftn, Norm,
    };
}

/// `jnp.linalg`: norms, Cholesky factorisation and triangular solves (ops the IR has), and
/// det, slogdet, solve, inv, qr, eigh, eigvalsh, svd and pinv (staged as JAX's CPU LAPACK
/// custom calls, differentiated by JAX's rules), lstsq, matrix_power and matrix_rank; eig and
/// eigvals (the general eigenproblem, LAPACK's `geev`, on real and complex matrices).
pub mod linalg {
    pub use crate::ops::np_decomp::{
        det, eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_power, matrix_rank, pinv, qr,
        slogdet, solve, svd,
    };
    pub use crate::ops::np_linalg::{
        cholesky, norm, solve_triangular, triangular_solve, NormOrd, Trans,
    };
}
