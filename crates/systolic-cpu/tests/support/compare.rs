//! Comparing compiled results with references: bit for bit for exact ops, within ulps for
//! approximated math, within rtol/atol for JAX goldens.

use systolic_ir::{DType, Tensor};

/// How close two results must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Same bits (every NaN counts as equal to every NaN: payloads are not specified).
    Exact,
    /// Floats within this many units in the last place; other kinds exact.
    Ulps(u64),
    /// `|got - want| <= atol + rtol·|want|`; NaN matches NaN; infinities exact.
    Close {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
    },
}

impl Tolerance {
    /// `rtol` relative to each element plus `rtol` of the largest finite magnitude of `want`:
    /// for sums and products computed in another order, whose error scales with the terms,
    /// not with the (possibly cancelled) result.
    pub fn scaled_to(want: &Tensor, rtol: f64) -> Tolerance {
        let magnitude = want
            .to_f64_vec()
            .into_iter()
            .filter(|x| x.is_finite())
            .fold(0.0f64, |m, x| m.max(x.abs()));
        Tolerance::Close {
            rtol,
            atol: rtol * magnitude,
        }
    }
}

/// The mismatches between `got` and `want`, worded for a failure message (empty when equal).
pub fn mismatches(got: &Tensor, want: &Tensor, tol: Tolerance) -> Vec<String> {
    if got.ty() != want.ty() {
        return vec![format!("type {} but expected {}", got.ty(), want.ty())];
    }
    let dtype = want.dtype();
    if dtype.is_complex() {
        // Each part as a float tensor of the parts' dtype, under the same tolerance.
        let (gr, gi) = parts(got);
        let (wr, wi) = parts(want);
        let mut bad = mismatches(&gr, &wr, tol);
        bad.iter_mut().for_each(|m| m.insert_str(0, "real "));
        let mut imag = mismatches(&gi, &wi, tol);
        imag.iter_mut().for_each(|m| m.insert_str(0, "imag "));
        bad.extend(imag);
        return bad;
    }
    let mut bad = vec![];
    for i in 0..want.num_elements() {
        let (g, w) = (got.get(i), want.get(i));
        let ok = if !dtype.is_float() {
            got.bits(i) == want.bits(i)
        } else {
            let (gf, wf) = (got.to_f64_at(i), want.to_f64_at(i));
            if gf.is_nan() || wf.is_nan() {
                gf.is_nan() && wf.is_nan()
            } else {
                match tol {
                    Tolerance::Exact => got.bits(i) == want.bits(i),
                    Tolerance::Ulps(n) => ulp_distance(dtype, gf, wf) <= n,
                    Tolerance::Close { rtol, atol } => {
                        if gf.is_infinite() || wf.is_infinite() {
                            gf == wf
                        } else {
                            (gf - wf).abs() <= atol + rtol * wf.abs()
                        }
                    }
                }
            }
        };
        if !ok {
            bad.push(format!("[{i}] got {g} expected {w}"));
        }
    }
    bad
}

/// The real and imaginary parts of a complex tensor, as tensors of the parts' dtype.
pub fn parts(t: &Tensor) -> (Tensor, Tensor) {
    let systolic_ir::Data::Complex(v) = t.data() else {
        panic!("parts of a non-complex tensor {}", t.ty())
    };
    let part = t.dtype().component().expect("complex dtype");
    let make = |f: fn(&systolic_ir::Complex64) -> f64| {
        Tensor::from_f64(t.shape().to_vec(), part, v.iter().map(f).collect()).unwrap()
    };
    (make(|z| z.re), make(|z| z.im))
}

/// Distance in representable values of `dtype` between two non-NaN floats.
pub fn ulp_distance(dtype: DType, a: f64, b: f64) -> u64 {
    let ordered = |x: f64| -> i128 {
        let bits = systolic_ir::numerics::float_to_bits(dtype, x) as i128;
        let sign_bit = 1i128 << (dtype.bit_width() - 1);
        if bits & sign_bit != 0 {
            sign_bit - bits
        } else {
            bits
        }
    };
    (ordered(a) - ordered(b)).unsigned_abs() as u64
}

/// Small extension so the comparison can read one element as f64.
trait ToF64At {
    fn to_f64_at(&self, i: usize) -> f64;
}

impl ToF64At for Tensor {
    fn to_f64_at(&self, i: usize) -> f64 {
        match self.get(i) {
            systolic_ir::Scalar::Float(x) => x,
            systolic_ir::Scalar::Int(x) => x as f64,
            systolic_ir::Scalar::UInt(x) => x as f64,
            systolic_ir::Scalar::Bool(b) => b as u8 as f64,
            // `mismatches` compares complex tensors part by part before reaching here.
            systolic_ir::Scalar::Complex(z) => z.re,
        }
    }
}
