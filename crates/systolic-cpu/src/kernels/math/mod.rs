//! Vectorised math for the CPU kernels: f32 approximations of the transcendental functions
//! that auto-vectorise (AVX2 or AVX-512 when the CPU has them, see [`simd`]).
//!
//! Every f32 function but exp and tanh is evaluated in f64 with polynomials accurate to
//! ~1e-12, so the final rounding to f32 dominates: the result is within 1 ulp of the correctly
//! rounded value (the reference interpreter computes in f64 and rounds, so it is that value).
//! exp and tanh, the hottest ones, run in f32 lanes (twice the vector width): exp within 2
//! ulp, tanh within 1 ulp (checked on every f32). Measured bounds, over millions of random and
//! edge-case inputs, are asserted in `tests/math_accuracy.rs`. The f64
//! variants of the kernels use the Rust standard library, identical to the interpreter.
//!
//! Subnormal inputs are computed as the numbers they are (except cbrt, which reads them as
//! zero); the fused-loop kernels apply XLA:CPU's flush-to-zero around these functions.

pub mod exp;
pub mod hyperbolic;
pub mod log;
pub mod simd;
pub mod special;
pub mod trig;
pub mod ulp;
pub mod wide;

pub use exp::{exp, expm1};
pub use hyperbolic::{logistic, tanh};
pub use log::{log, log1p};
pub use special::{atan2, cbrt, erf, erf_inv, pow, rsqrt};
pub use trig::{cos, sin, tan};

systolic_ir::enum_with_all! {
    /// An f32 function of one argument with a slice form.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum F32Unary {
        /// e^x.
        Exp,
        /// e^x − 1.
        Expm1,
        /// ln x.
        Log,
        /// ln(1 + x).
        Log1p,
        /// tanh x.
        Tanh,
        /// 1 / (1 + e^−x).
        Logistic,
        /// sin x.
        Sin,
        /// cos x.
        Cos,
        /// tan x.
        Tan,
        /// ∛x.
        Cbrt,
        /// erf x.
        Erf,
        /// erf⁻¹ x (XLA's polynomial).
        ErfInv,
        /// 1/√x.
        Rsqrt,
        /// √x (IEEE, correctly rounded).
        Sqrt,
    }
}

impl F32Unary {
    /// `out[i] = f(x[i])` over the common length.
    pub fn apply(self, x: &[f32], out: &mut [f32]) {
        use simd::map1;
        match self {
            F32Unary::Exp => exp::exp_slice(x, out),
            F32Unary::Expm1 => map1(x, out, expm1),
            F32Unary::Log => map1(x, out, log),
            F32Unary::Log1p => map1(x, out, log1p),
            F32Unary::Tanh => map1(x, out, tanh),
            F32Unary::Logistic => map1(x, out, logistic),
            F32Unary::Sin => trig_slice(x, out, trig::sin_reduced, f64::sin),
            F32Unary::Cos => trig_slice(x, out, trig::cos_reduced, f64::cos),
            F32Unary::Tan => trig_slice(x, out, trig::tan_reduced, f64::tan),
            F32Unary::Cbrt => map1(x, out, cbrt),
            F32Unary::Erf => map1(x, out, erf),
            F32Unary::ErfInv => map1(x, out, erf_inv),
            F32Unary::Rsqrt => map1(x, out, rsqrt),
            F32Unary::Sqrt => map1(x, out, f32::sqrt),
        }
    }

    /// The function on one value (the slice form's exact per-element result).
    pub fn eval(self, x: f32) -> f32 {
        let mut out = [0.0f32];
        self.apply(&[x], &mut out);
        out[0]
    }
}

/// A trig function over a slice: the vectorised reduction everywhere, then the f64 library on
/// the rare inputs beyond the reduction's range (and inf, NaN).
fn trig_slice(
    x: &[f32],
    out: &mut [f32],
    reduced: impl Fn(f32) -> f32 + Copy,
    library: fn(f64) -> f64,
) {
    simd::map1(x, out, reduced);
    simd::patch_rare(x, out, trig::needs_library, |v| library(v as f64) as f32);
}

/// An f32 function of two arguments with a slice form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum F32Binary {
    /// x^y.
    Pow,
    /// atan2(y, x) (first argument y).
    Atan2,
}

impl F32Binary {
    /// `out[i] = f(a[i], b[i])` over the common length.
    pub fn apply(self, a: &[f32], b: &[f32], out: &mut [f32]) {
        match self {
            F32Binary::Pow => {
                simd::map2(a, b, out, special::pow_positive);
                simd::patch_rare2(a, b, out, special::pow_needs_library, |x, y| {
                    (x as f64).powf(y as f64) as f32
                });
            }
            F32Binary::Atan2 => simd::map2(a, b, out, atan2),
        }
    }
}
