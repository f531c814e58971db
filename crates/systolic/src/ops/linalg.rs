//! Products: `lax.dot_general` and numpy's `matmul`/`dot`, each with JAX's `precision` and
//! `preferred_element_type` options ([`DotOptions`]).

use crate::array::{describe, Array};
use crate::core::bind::bind1;
use crate::error::Error;
use crate::ops::shape::{broadcast_to, reshape};
use systolic_ir::{DType, DotDimensionNumbers, OpKind, Precision, TensorType};

/// JAX's keyword arguments of every product (`precision=`, `preferred_element_type=`).
///
/// `precision` is how many bf16 passes a TPU spends on an f32 product (the simulated TPU
/// costs it; CPUs compute f32 products in full either way); unset, a product takes
/// [`config::default_matmul_precision`](crate::config::default_matmul_precision).
/// `preferred_element_type` is the result's dtype, the accumulation type on hardware that
/// accumulates wider (`int8 x int8 -> int32`, `bf16 x bf16 -> f32`).
///
/// ```
/// use systolic::{numpy as np, Array, DType, DotOptions, Precision};
/// let a = Array::from_vec(vec![100i8, 100], &[1, 2]);
/// let b = Array::from_vec(vec![100i8, 100], &[2, 1]);
/// let opts = DotOptions::new().preferred_element_type(DType::I32).precision(Precision::Highest);
/// let c = np::matmul_with(&a, &b, opts);
/// assert_eq!((c.dtype(), c.to_vec::<i32>().unwrap()), (DType::I32, vec![20000]));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DotOptions {
    /// Passes per operand (`None`: the configured default).
    pub precision: Option<Precision>,
    /// The result dtype (`None`: the operands' promoted dtype).
    pub preferred_element_type: Option<DType>,
}

impl DotOptions {
    /// No options: the operands' dtype and the default precision.
    pub fn new() -> DotOptions {
        DotOptions::default()
    }

    /// Sets `precision` (both operands).
    pub fn precision(mut self, precision: Precision) -> DotOptions {
        self.precision = Some(precision);
        self
    }

    /// Sets `preferred_element_type`.
    pub fn preferred_element_type(mut self, dtype: DType) -> DotOptions {
        self.preferred_element_type = Some(dtype);
        self
    }

    /// The IR's per-operand precision list: the explicit one, else the configured default,
    /// else none.
    fn precision_config(&self) -> Vec<Precision> {
        self.precision
            .or_else(crate::config::default_matmul_precision)
            .map_or(vec![], |p| vec![p, p])
    }
}

/// `lax.dot_general(lhs, rhs, dimension_numbers, preferred_element_type)`; operands are
/// promoted to a common dtype first (as `jnp` does), the result has `preferred` or that dtype.
pub fn dot_general(
    lhs: &Array,
    rhs: &Array,
    dims: DotDimensionNumbers,
    preferred: Option<DType>,
) -> Array {
    let opts = DotOptions {
        precision: None,
        preferred_element_type: preferred,
    };
    dot_general_with(lhs, rhs, dims, opts)
}

/// `lax.dot_general(lhs, rhs, dimension_numbers, precision=, preferred_element_type=)`.
///
/// ```
/// use systolic::{lax, Array, DotDimensionNumbers, DotOptions, Precision};
/// let a = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// let dims = DotDimensionNumbers {
///     lhs_batching_dimensions: vec![],
///     rhs_batching_dimensions: vec![],
///     lhs_contracting_dimensions: vec![0],
///     rhs_contracting_dimensions: vec![0],
/// };
/// let d = lax::dot_general_with(&a, &a, dims, DotOptions::new().precision(Precision::High));
/// assert_eq!(d.to_vec::<f32>().unwrap(), vec![5.0]);
/// ```
pub fn dot_general_with(
    lhs: &Array,
    rhs: &Array,
    dims: DotDimensionNumbers,
    opts: DotOptions,
) -> Array {
    let preferred = opts.preferred_element_type;
    let pairs = [
        (lhs.element_type(), lhs.weak_type()),
        (rhs.element_type(), rhs.weak_type()),
    ];
    if let Some(why) = crate::core::promote::implicit_promotion_error(&pairs) {
        return Array::failed(Error::op("dot_general", why));
    }
    let (dtype, weak) = crate::core::promote::result_type(&pairs);
    if let Err(e) = lhs.check().and(rhs.check()) {
        return Array::failed(e);
    }
    let l = crate::ops::elementwise::convert("dot_general", lhs, dtype, weak);
    let r = crate::ops::elementwise::convert("dot_general", rhs, dtype, weak);
    let out_dtype = preferred.unwrap_or(dtype);
    // The result shape: batch, lhs free, rhs free.
    let free = |a: &Array, batch: &[i64], contract: &[i64]| -> Vec<i64> {
        (0..a.rank() as i64)
            .filter(|d| !batch.contains(d) && !contract.contains(d))
            .map(|d| a.dims()[d as usize])
            .collect()
    };
    let mut shape: Vec<i64> = dims
        .lhs_batching_dimensions
        .iter()
        .filter_map(|&d| l.dims().get(d as usize).copied())
        .collect();
    shape.extend(free(
        &l,
        &dims.lhs_batching_dimensions,
        &dims.lhs_contracting_dimensions,
    ));
    shape.extend(free(
        &r,
        &dims.rhs_batching_dimensions,
        &dims.rhs_contracting_dimensions,
    ));
    bind1(
        "dot_general",
        OpKind::DotGeneral {
            dimension_numbers: dims,
            precision_config: opts.precision_config(),
            algorithm: None,
        },
        &[&l, &r],
        Some(TensorType::new(shape, out_dtype)),
        weak,
    )
}

/// `jnp.matmul(a, b)`: 1-D operands are vectors; N-D operands are stacks of matrices whose
/// leading (batch) dimensions broadcast as numpy's do.
///
/// ```
/// use systolic::{numpy as np, Array};
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let b = Array::from_vec(vec![1.0f32, 1.0], &[2]);
/// assert_eq!(np::matmul(&a, &b).to_vec::<f32>().unwrap(), vec![3.0, 7.0]);
/// // A stack of matrices times one matrix, and batch dimensions that broadcast.
/// let stack = Array::from_vec(vec![1.0f32; 12], &[3, 2, 2]);
/// assert_eq!(np::matmul(&stack, &a).shape(), &[3, 2, 2]);
/// let ones = Array::from_vec(vec![1.0f32; 8], &[2, 1, 2, 2]);
/// assert_eq!(np::matmul(&ones, &stack).shape(), &[2, 3, 2, 2]);
/// let err = np::matmul(&a, &Array::from_vec(vec![1.0f32; 3], &[3])).check().unwrap_err();
/// assert!(err.to_string().contains("matmul"), "{err}");
/// ```
pub fn matmul(a: &Array, b: &Array) -> Array {
    matmul_with(a, b, DotOptions::new())
}

/// `jnp.matmul(a, b, precision=, preferred_element_type=)`.
pub fn matmul_with(a: &Array, b: &Array, opts: DotOptions) -> Array {
    if let Err(e) = a.check().and(b.check()) {
        return Array::failed(e);
    }
    if a.rank() == 0 || b.rank() == 0 {
        return Array::failed(Error::op(
            "matmul",
            format!(
                "needs arrays of rank >= 1, got {} and {}",
                describe(a.aval()),
                describe(b.aval())
            ),
        ));
    }
    let a2 = if a.rank() == 1 {
        reshape(a, &[1, a.dims()[0]])
    } else {
        a.clone()
    };
    let b2 = if b.rank() == 1 {
        reshape(b, &[b.dims()[0], 1])
    } else {
        b.clone()
    };
    let (ra, rb) = (a2.rank(), b2.rank());
    let (m, k_a) = (a2.dims()[ra - 2], a2.dims()[ra - 1]);
    let (k_b, n) = (b2.dims()[rb - 2], b2.dims()[rb - 1]);
    let (batch_a, batch_b) = (&a2.dims()[..ra - 2], &b2.dims()[..rb - 2]);
    let differ = || {
        Array::failed(Error::op(
            "matmul",
            format!(
                "contracting dimensions or batch dimensions differ: {} @ {}",
                describe(a.aval()),
                describe(b.aval())
            ),
        ))
    };
    if k_a != k_b {
        return differ();
    }
    let (r, batch) = if batch_b.is_empty() {
        // A stack of matrices times one matrix: one contraction, `b` not broadcast (as JAX).
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: vec![],
            rhs_batching_dimensions: vec![],
            lhs_contracting_dimensions: vec![ra as i64 - 1],
            rhs_contracting_dimensions: vec![0],
        };
        (dot_general_with(&a2, &b2, dims, opts), batch_a.to_vec())
    } else {
        // Batch dimensions broadcast against each other as numpy's do.
        let Some(batch) = broadcast_batch(batch_a, batch_b) else {
            return differ();
        };
        let with = |tail: [i64; 2]| -> Vec<i64> { batch.iter().copied().chain(tail).collect() };
        let a3 = broadcast_to(&a2, &with([m, k_a]));
        let b3 = broadcast_to(&b2, &with([k_b, n]));
        let nb = batch.len() as i64;
        let dims = DotDimensionNumbers {
            lhs_batching_dimensions: (0..nb).collect(),
            rhs_batching_dimensions: (0..nb).collect(),
            lhs_contracting_dimensions: vec![nb + 1],
            rhs_contracting_dimensions: vec![nb],
        };
        (dot_general_with(&a3, &b3, dims, opts), batch)
    };
    let mut shape = batch;
    if a.rank() > 1 {
        shape.push(m);
    }
    if b.rank() > 1 {
        shape.push(n);
    }
    reshape(&r, &shape)
}

/// numpy's broadcast of two batch shapes (right-aligned; equal sizes or 1), if they meet.
fn broadcast_batch(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let rank = a.len().max(b.len());
    let at = |s: &[i64], d: usize| (d + s.len()).checked_sub(rank).map_or(1, |i| s[i]);
    (0..rank)
        .map(|d| match (at(a, d), at(b, d)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// `jnp.dot(a, b)`: a product of scalars when either is 0-d, else the last axis of `a`
/// contracted with the second-to-last of `b` (its only one when `b` is a vector); the result
/// has `a`'s other axes then `b`'s (numpy's N-D `dot`, unlike `matmul` no batch axes).
///
/// ```
/// use systolic::{numpy as np, Array};
/// let v = Array::from_vec(vec![1.0f32, 2.0], &[2]);
/// assert_eq!(np::dot(&v, &v).to_vec::<f32>().unwrap(), vec![5.0]);
/// let a = Array::from_vec(vec![1.0f32; 24], &[2, 3, 4]);
/// let b = Array::from_vec(vec![1.0f32; 40], &[5, 4, 2]);
/// assert_eq!(np::dot(&a, &b).shape(), &[2, 3, 5, 2]);
/// ```
pub fn dot(a: &Array, b: &Array) -> Array {
    dot_with(a, b, DotOptions::new())
}

/// `jnp.dot(a, b, precision=, preferred_element_type=)`.
pub fn dot_with(a: &Array, b: &Array, opts: DotOptions) -> Array {
    if let Err(e) = a.check().and(b.check()) {
        return Array::failed(e);
    }
    if a.rank() == 0 || b.rank() == 0 {
        let p = crate::numpy::multiply(a, b);
        return match opts.preferred_element_type {
            Some(dt) => crate::ops::elementwise::convert("dot", &p, dt, false),
            None => p,
        };
    }
    let ca = a.rank() as i64 - 1;
    let cb = if b.rank() == 1 {
        0
    } else {
        b.rank() as i64 - 2
    };
    if a.dims()[ca as usize] != b.dims()[cb as usize] {
        return Array::failed(Error::op(
            "dot",
            format!(
                "the last axis of {} and axis {cb} of {} differ in length",
                describe(a.aval()),
                describe(b.aval())
            ),
        ));
    }
    let dims = DotDimensionNumbers {
        lhs_batching_dimensions: vec![],
        rhs_batching_dimensions: vec![],
        lhs_contracting_dimensions: vec![ca],
        rhs_contracting_dimensions: vec![cb],
    };
    dot_general_with(a, b, dims, opts)
}
