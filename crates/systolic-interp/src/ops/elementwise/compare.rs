//! `compare`: IEEE (`FLOAT`) or total-order comparison of floats, signed or unsigned
//! comparison of integers, `false < true` for booleans, lexicographic (real, imaginary) order
//! for complex numbers.

use super::daz;
use crate::error::Result;
use crate::operands::{check_result, make};
use std::cmp::Ordering;
use systolic_ir::{numerics, ComparisonDirection, ComparisonType, DType, Data, Tensor, TensorType};

/// Compares two tensors of the same type elementwise; the result is `i1`.
///
/// Without a comparison type, floats compare as IEEE (`FLOAT`: NaN is unordered, so only `NE`
/// holds), signed integers as `SIGNED`, unsigned ones and booleans as `UNSIGNED`.
/// `TOTALORDER` orders -NaN < -inf < … < -0 < +0 < … < inf < NaN. `FLOAT` comparisons read
/// f32/f64/bf16 subnormals as zero, as XLA:CPU does.
pub fn compare(
    direction: ComparisonDirection,
    compare_type: Option<ComparisonType>,
    a: &Tensor,
    b: &Tensor,
    out: &TensorType,
) -> Result<Tensor> {
    if a.ty() != b.ty() {
        crate::bail!("operand types {} and {} differ", a.ty(), b.ty());
    }
    check_result(out, a.shape(), DType::Bool)?;
    let dtype = a.dtype();
    let bits = dtype.bit_width();
    let compare_type = compare_type.unwrap_or(ComparisonType::NoType);
    let holds: Vec<bool> = match (a.data(), b.data()) {
        (Data::Float(x), Data::Float(y)) => {
            if compare_type == ComparisonType::TotalOrder {
                x.iter()
                    .zip(y)
                    .map(|(p, q)| ordering_holds(direction, p.total_cmp(q)))
                    .collect()
            } else {
                x.iter()
                    .zip(y)
                    .map(|(&p, &q)| partial_holds(direction, daz(dtype, p), daz(dtype, q)))
                    .collect()
            }
        }
        (Data::Int(x), Data::Int(y)) => {
            if compare_type == ComparisonType::Unsigned {
                x.iter()
                    .zip(y)
                    .map(|(&p, &q)| {
                        let p = numerics::wrap_unsigned(bits, p as u64);
                        let q = numerics::wrap_unsigned(bits, q as u64);
                        ordering_holds(direction, p.cmp(&q))
                    })
                    .collect()
            } else {
                x.iter()
                    .zip(y)
                    .map(|(p, q)| ordering_holds(direction, p.cmp(q)))
                    .collect()
            }
        }
        (Data::UInt(x), Data::UInt(y)) => {
            if compare_type == ComparisonType::Signed {
                x.iter()
                    .zip(y)
                    .map(|(&p, &q)| {
                        let p = numerics::wrap_signed(bits, p as i64);
                        let q = numerics::wrap_signed(bits, q as i64);
                        ordering_holds(direction, p.cmp(&q))
                    })
                    .collect()
            } else {
                x.iter()
                    .zip(y)
                    .map(|(p, q)| ordering_holds(direction, p.cmp(q)))
                    .collect()
            }
        }
        (Data::Bool(x), Data::Bool(y)) => x
            .iter()
            .zip(y)
            .map(|(p, q)| ordering_holds(direction, p.cmp(q)))
            .collect(),
        (Data::Complex(x), Data::Complex(y)) => {
            let total = compare_type == ComparisonType::TotalOrder;
            x.iter()
                .zip(y)
                .map(|(&p, &q)| super::complex::compare(direction, p, q, total))
                .collect()
        }
        _ => crate::bail!(
            "operands of kinds {:?} and {:?}",
            a.data().kind(),
            b.data().kind()
        ),
    };
    make(out.clone(), Data::Bool(holds))
}

/// Whether `direction` holds for two values in this order.
fn ordering_holds(direction: ComparisonDirection, ord: Ordering) -> bool {
    use ComparisonDirection::*;
    match direction {
        Eq => ord == Ordering::Equal,
        Ne => ord != Ordering::Equal,
        Lt => ord == Ordering::Less,
        Le => ord != Ordering::Greater,
        Gt => ord == Ordering::Greater,
        Ge => ord != Ordering::Less,
    }
}

/// IEEE comparison: every relation but `NE` is false when a NaN is involved.
fn partial_holds(direction: ComparisonDirection, a: f64, b: f64) -> bool {
    match a.partial_cmp(&b) {
        Some(ord) => ordering_holds(direction, ord),
        None => direction == ComparisonDirection::Ne,
    }
}
