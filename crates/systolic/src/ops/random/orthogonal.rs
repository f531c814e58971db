//! `jax.random.orthogonal`: uniformly distributed orthogonal (or semi-orthogonal) matrices, as
//! JAX draws them (Mezzadri 2007): the QR decomposition of a normal matrix, each column of `Q`
//! multiplied by the sign of `R`'s diagonal entry so that the distribution is uniform (Haar).

use crate::array::Array;
use crate::error::Error;
use crate::numpy as np;
use crate::ops::np_decomp::qr;
use systolic_ir::DType;

/// `jax.random.orthogonal(key, n, shape, dtype, m)`: an array of shape `shape + [n, m]`
/// (`m` `None`: `n`) whose matrices have orthonormal columns when `m <= n` and orthonormal
/// rows when `n <= m`. The draw is JAX's: `normal(key, shape + [max, min])`, its QR
/// decomposition (LAPACK's, as JAX on CPU) and `Q · sign(diag R)`, transposed when `n < m`;
/// `dtype` must be float32 (the samplers' widest type without x64, and a type the
/// decomposition takes).
///
/// ```
/// use systolic::{numpy as np, random};
/// use systolic_ir::DType;
/// let q = random::orthogonal(&random::key(0), 3, &[], DType::F32, None);
/// assert_eq!(q.shape(), &[3, 3]);
/// // QᵀQ = I.
/// let qtq = np::matmul(&np::transpose(&q, None), &q).to_vec::<f32>().unwrap();
/// for (i, v) in qtq.iter().enumerate() {
///     let want = if i % 4 == 0 { 1.0 } else { 0.0 };
///     assert!((v - want).abs() < 1e-5, "{qtq:?}");
/// }
/// // A wide draw has orthonormal rows.
/// let w = random::orthogonal(&random::key(1), 2, &[4], DType::F32, Some(5));
/// assert_eq!(w.shape(), &[4, 2, 5]);
/// let rows = np::matmul(&w, &np::swapaxes(&w, -1, -2)).to_vec::<f32>().unwrap();
/// assert!((rows[0] - 1.0).abs() < 1e-5 && rows[1].abs() < 1e-5);
/// assert!(random::orthogonal(&random::key(1), 2, &[], DType::BF16, None).check().is_err());
/// ```
pub fn orthogonal(key: &Array, n: i64, shape: &[i64], dtype: DType, m: Option<i64>) -> Array {
    const OP: &str = "random.orthogonal";
    let m = m.unwrap_or(n);
    if n < 0 || m < 0 {
        return Array::failed(Error::op(
            OP,
            format!("the matrix shape must not be negative, got {n}×{m}"),
        ));
    }
    if dtype != DType::F32 {
        return Array::failed(Error::op(
            OP,
            format!(
                "dtype must be float32 (the QR decomposition's), got {}",
                dtype.numpy_name()
            ),
        ));
    }
    let mut z_shape = shape.to_vec();
    z_shape.extend([n.max(m), n.min(m)]);
    let z = super::normal(key, &z_shape, dtype);
    let (q, r) = qr(&z, "reduced");
    let Some(q) = q else {
        return r;
    };
    let d = np::diagonal(&r, 0, -2, -1);
    let x = &q * &np::expand_dims(&np::sign(&d), -2);
    if n < m {
        np::swapaxes(&x, -1, -2)
    } else {
        x
    }
}
