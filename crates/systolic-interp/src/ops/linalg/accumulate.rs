//! Multiply-accumulate in the result's element type, shared by `dot_general` and
//! `convolution`.
//!
//! Operands are first converted to the result element type (the "preferred element type": i8 ×
//! i8 → i32 accumulates in i32, bf16 × bf16 → f32 in f32), as XLA:CPU does. Then:
//! - integers multiply and add with wrap-around at the result width (done in 64 bits and wrapped
//!   once at the end, which gives the same bits, since wrapping commutes with + and ×);
//! - booleans: AND then OR;
//! - complex numbers: as floats, part by part (products and sums in f64, rounded once);
//! - floats: every product and sum is taken in f64 and the total is rounded once to the result
//!   dtype (and denormals flushed as XLA:CPU does). Products of f32 values are exact in f64, so
//!   this is as close to the exact dot product as one rounding allows for short sums; a backend
//!   accumulating in f32 differs by its own rounding, within the usual tolerances.
//!   `precision_config` and `algorithm` do not change the oracle's numbers: XLA:CPU ignores them
//!   too.

use crate::error::Result;
use crate::ops::reduce::operands::{convert_scalar, new_tensor};
use systolic_ir::{numerics, Complex64, DType, Data, Scalar, Tensor, TensorType};

/// An operand's elements in the accumulation domain of a result dtype.
pub(crate) enum Elements {
    /// Float results.
    Float(Vec<f64>),
    /// Signed integer results.
    Int(Vec<i64>),
    /// Unsigned integer results.
    UInt(Vec<u64>),
    /// Boolean results.
    Bool(Vec<bool>),
    /// Complex results.
    Complex(Vec<Complex64>),
}

/// Converts `t`'s elements for accumulation into `result` (input denormals flush to zero, as
/// under XLA:CPU's denormals-are-zero mode).
pub(crate) fn elements_for(t: &Tensor, result: DType) -> Elements {
    let n = t.num_elements();
    let converted = (0..n).map(|i| match t.get(i) {
        Scalar::Float(x) => Scalar::Float(numerics::flush_denormal(t.dtype(), x)),
        Scalar::Complex(z) => Scalar::Complex(Complex64::new(
            numerics::flush_denormal(t.dtype(), z.re),
            numerics::flush_denormal(t.dtype(), z.im),
        )),
        s => s,
    });
    match result.kind() {
        systolic_ir::DTypeKind::Float => Elements::Float(
            converted
                .map(|s| match s {
                    Scalar::Float(x) => x,
                    Scalar::Int(i) => i as f64,
                    Scalar::UInt(u) => u as f64,
                    Scalar::Bool(b) => b as u8 as f64,
                    // The verifier refuses complex operands with a real result.
                    Scalar::Complex(z) => z.re,
                })
                .collect(),
        ),
        systolic_ir::DTypeKind::Complex => Elements::Complex(
            converted
                .map(|s| match convert_scalar(s, result) {
                    Scalar::Complex(z) => z,
                    _ => Complex64::new(0.0, 0.0),
                })
                .collect(),
        ),
        systolic_ir::DTypeKind::Signed => Elements::Int(
            converted
                .map(|s| match convert_scalar(s, result) {
                    Scalar::Int(i) => i,
                    _ => 0,
                })
                .collect(),
        ),
        systolic_ir::DTypeKind::Unsigned => Elements::UInt(
            converted
                .map(|s| match convert_scalar(s, result) {
                    Scalar::UInt(u) => u,
                    _ => 0,
                })
                .collect(),
        ),
        systolic_ir::DTypeKind::Bool => Elements::Bool(
            converted
                .map(|s| matches!(convert_scalar(s, result), Scalar::Bool(true)))
                .collect(),
        ),
    }
}

/// A number that can be multiplied and accumulated.
pub(crate) trait Accumulate: Copy {
    /// The additive identity.
    const ZERO: Self;
    /// `self + a · b`.
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl Accumulate for f64 {
    const ZERO: Self = 0.0;
    fn mul_add(self, a: Self, b: Self) -> Self {
        // Not fused: a product then a sum, each rounded in f64.
        self + a * b
    }
}

impl Accumulate for i64 {
    const ZERO: Self = 0;
    fn mul_add(self, a: Self, b: Self) -> Self {
        self.wrapping_add(a.wrapping_mul(b))
    }
}

impl Accumulate for u64 {
    const ZERO: Self = 0;
    fn mul_add(self, a: Self, b: Self) -> Self {
        self.wrapping_add(a.wrapping_mul(b))
    }
}

impl Accumulate for Complex64 {
    const ZERO: Self = Complex64::new(0.0, 0.0);
    fn mul_add(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}

impl Accumulate for bool {
    const ZERO: Self = false;
    fn mul_add(self, a: Self, b: Self) -> Self {
        self | (a & b)
    }
}

/// Receives one product to accumulate: `(result position, lhs position, rhs position)`.
pub(crate) type Mac<'a> = &'a mut dyn FnMut(usize, usize, usize);

/// Enumerates every product of an op, in accumulation order, through the [`Mac`] it is given.
pub(crate) type Kernel<'a> = &'a dyn Fn(Mac);

/// `e` with a zero appended: position `lhs.num_elements()` of the lhs is a zero, which a kernel
/// may multiply where XLA multiplies an implicit zero (a convolution's padding).
fn with_zero(e: Elements) -> Elements {
    match e {
        Elements::Float(mut v) => {
            v.push(0.0);
            Elements::Float(v)
        }
        Elements::Int(mut v) => {
            v.push(0);
            Elements::Int(v)
        }
        Elements::UInt(mut v) => {
            v.push(0);
            Elements::UInt(v)
        }
        Elements::Bool(mut v) => {
            v.push(false);
            Elements::Bool(v)
        }
        Elements::Complex(mut v) => {
            v.push(Complex64::new(0.0, 0.0));
            Elements::Complex(v)
        }
    }
}

/// Runs `kernel` on both operands in their common accumulation domain (the lhs has one more
/// element, a zero, at position `lhs.num_elements()`) and builds the result
/// tensor of type `ty` from the sums (rounded and flushed once for floats, wrapped for
/// integers).
pub(crate) fn contract(
    lhs: &Tensor,
    rhs: &Tensor,
    ty: &TensorType,
    kernel: Kernel,
) -> Result<Tensor> {
    fn run<T: Accumulate>(l: &[T], r: &[T], n: usize, kernel: Kernel) -> Vec<T> {
        let mut out = vec![T::ZERO; n];
        kernel(&mut |o, i, j| out[o] = out[o].mul_add(l[i], r[j]));
        out
    }
    let n = ty.num_elements();
    let dtype = ty.dtype;
    /// Floats: a sum of one product is that product (XLA rewrites such a contraction into a
    /// multiply, so (-1)·0 stays -0), while longer sums start from +0 as XLA:CPU's loops do
    /// (so (-0) + (-0) gives +0).
    fn run_float(l: &[f64], r: &[f64], n: usize, kernel: Kernel) -> Vec<f64> {
        let mut out = vec![0.0; n];
        let mut count = vec![0u8; n];
        kernel(&mut |o, i, j| {
            let product = l[i] * r[j];
            out[o] = match count[o] {
                0 => product,
                1 => 0.0 + out[o] + product,
                _ => out[o] + product,
            };
            count[o] = count[o].saturating_add(1);
        });
        out
    }
    let data = match (
        with_zero(elements_for(lhs, dtype)),
        elements_for(rhs, dtype),
    ) {
        (Elements::Float(l), Elements::Float(r)) => Data::Float(
            run_float(&l, &r, n, kernel)
                .into_iter()
                .map(|x| numerics::arith_result(dtype, x))
                .collect(),
        ),
        (Elements::Int(l), Elements::Int(r)) => Data::Int(run(&l, &r, n, kernel)),
        (Elements::UInt(l), Elements::UInt(r)) => Data::UInt(run(&l, &r, n, kernel)),
        (Elements::Bool(l), Elements::Bool(r)) => Data::Bool(run(&l, &r, n, kernel)),
        (Elements::Complex(l), Elements::Complex(r)) => Data::Complex(
            run(&l, &r, n, kernel)
                .into_iter()
                .map(|z| numerics::complex_result(dtype, z))
                .collect(),
        ),
        _ => crate::bail!("internal: operands converted to different kinds"),
    };
    new_tensor(ty.clone(), data)
}
