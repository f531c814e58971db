//! Whether two backends' results agree, as closely as the generator says they must.

use crate::gen::Exactness;
use systolic_ir::{Data, Tensor};

/// Relative tolerance for [`Exactness::Close`] values (fusion may reorder a float sum, and
/// transcendental functions differ in their last bits between implementations).
///
/// Relative to the larger of the element and the tensor's largest finite value (a normwise
/// comparison): an element of a product or sum whose terms cancel (`x·y` with large terms of
/// both signs) is exact in neither backend; its error is bounded by the size of the terms, of
/// the order of the tensor's largest values, not by its own (near zero) size. The first
/// compile_vs_interpret run found such an element (a row of an 8×8 `x·xᵀ` over inputs near
/// ±2^31: −5.2e10 against an exact 0, where the diagonal is ~1e19).
const RTOL: f64 = 1e-3;

/// Why `got` does not match `want`, or `None` when it does.
pub fn mismatch(want: &Tensor, got: &Tensor, exact: Exactness) -> Option<String> {
    if want.ty() != got.ty() {
        return Some(format!("type {} vs {}", want.ty(), got.ty()));
    }
    if exact == Exactness::Unchecked {
        return None;
    }
    match (want.data(), got.data()) {
        (Data::Float(a), Data::Float(b)) => {
            let scale = a
                .iter()
                .filter(|x| x.is_finite())
                .fold(0.0f64, |m, x| m.max(x.abs()));
            for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
                if !floats_agree(x, y, exact, scale) {
                    return Some(format!("element {i}: {x:e} vs {y:e} ({exact:?})"));
                }
            }
            None
        }
        _ => {
            for i in 0..want.num_elements() {
                if want.bits(i) != got.bits(i) {
                    return Some(format!("element {i}: {} vs {}", want.get(i), got.get(i)));
                }
            }
            None
        }
    }
}

fn floats_agree(x: f64, y: f64, exact: Exactness, scale: f64) -> bool {
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x == y {
        return true;
    }
    match exact {
        Exactness::Exact => false,
        // One side overflowing where the other lands just below the largest f32 is a rounding
        // difference too.
        Exactness::Close if x.is_infinite() || y.is_infinite() => {
            let finite = if x.is_infinite() { y } else { x };
            let inf = if x.is_infinite() { x } else { y };
            finite.signum() == inf.signum() && finite.abs() > 1e37
        }
        Exactness::Close => (x - y).abs() <= RTOL * (1.0 + x.abs().max(y.abs()).max(scale)),
        Exactness::Unchecked => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::DType;

    fn f32s(values: &[f64]) -> Tensor {
        Tensor::from_f64(vec![values.len() as i64], DType::F32, values.to_vec()).unwrap()
    }

    #[test]
    fn cancelling_sums_are_compared_against_the_tensors_scale() {
        // The first finding: an exact 0 where the compiled product gave −5.2e10, beside
        // diagonal entries ~1e19.
        let want = f32s(&[1.2e19, 0.0, 3.4e18]);
        let got = f32s(&[1.2e19, -5.15e10, 3.4e18]);
        assert_eq!(mismatch(&want, &got, Exactness::Close), None);
        // A real error at the tensor's scale is still one.
        let wrong = f32s(&[1.2e19, 5.0e17, 3.4e18]);
        assert!(mismatch(&want, &wrong, Exactness::Close).is_some());
        // And exact values are compared bit for bit.
        assert!(mismatch(&want, &got, Exactness::Exact).is_some());
    }
}
