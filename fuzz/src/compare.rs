//! Whether two backends' results agree, as closely as the generator says they must.

use crate::gen::Exactness;
use systolic_ir::{Data, Tensor};

/// Relative tolerance for [`Exactness::Close`] values (fusion may reorder a float sum, and
/// transcendental functions differ in their last bits between implementations).
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
            for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
                if !floats_agree(x, y, exact) {
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

fn floats_agree(x: f64, y: f64, exact: Exactness) -> bool {
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
        Exactness::Close => (x - y).abs() <= RTOL * (1.0 + x.abs().max(y.abs())),
        Exactness::Unchecked => true,
    }
}
