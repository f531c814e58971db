//! JAX's type promotion lattice (x64 disabled), with weak types.
//!
//! Rust scalars mixed with arrays are *weak*: they take the array's dtype when that is of the
//! same or a higher kind (`f16 + 1.0 → f16`, `i8 + 1000 → i8`, wrapping), as JAX treats Python
//! scalars. The result of a promotion is the least upper bound of the operands in the lattice
//!
//! ```text
//! bool → i* → u8 → u16 → u32 → u64 → f* → {bf16, f16} → f32 → f64
//!        i* → i8 → i16 → i32 → i64 → f*     u8 → i16, u16 → i32, u32 → i64
//! ```
//!
//! where `i*` and `f*` are the weak integer and float nodes; 64-bit results made from narrower
//! operands are then canonicalised to 32 bits as JAX does without x64 (`i32 + u32 → i64 →
//! i32`). An operand that is itself 64-bit (Systolic has float64 and int64 arrays, which JAX
//! has only with x64 on) keeps its dtype: `f64 + 1.0 → f64`, `f64 + f32 → f64`, as with x64.

use systolic_ir::DType;

/// A node of the lattice: a dtype, or one of the weak kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Strong(DType),
    WeakInt,
    WeakFloat,
    WeakComplex,
}

fn successors(n: Node) -> Vec<Node> {
    use DType::*;
    use Node::*;
    match n {
        Strong(Bool) => vec![WeakInt],
        WeakInt => vec![Strong(U8), Strong(I8)],
        Strong(U8) => vec![Strong(U16), Strong(I16)],
        Strong(U16) => vec![Strong(U32), Strong(I32)],
        Strong(U32) => vec![Strong(U64), Strong(I64)],
        Strong(U64) => vec![WeakFloat],
        Strong(I8) => vec![Strong(I16)],
        Strong(I16) => vec![Strong(I32)],
        Strong(I32) => vec![Strong(I64)],
        Strong(I64) => vec![WeakFloat],
        // As JAX: a weak float takes a narrow float's type, and narrow floats promote with
        // no other float: JAX raises, and so does `implicit_promotion_error`, which the ops
        // check first.
        WeakFloat => vec![
            WeakComplex,
            Strong(BF16),
            Strong(F16),
            Strong(F8E4M3FN),
            Strong(F8E5M2),
            Strong(F8E4M3FNUZ),
            Strong(F8E5M2FNUZ),
            Strong(F8E4M3B11FNUZ),
            Strong(F8E3M4),
            Strong(F8E4M3),
            Strong(F8E8M0FNU),
            Strong(F6E2M3FN),
            Strong(F6E3M2FN),
            Strong(F4E2M1FN),
        ],
        Strong(
            F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E3M4 | F8E4M3
            | F8E8M0FNU | F6E2M3FN | F6E3M2FN | F4E2M1FN,
        ) => vec![],
        Strong(BF16) | Strong(F16) => vec![Strong(F32)],
        // JAX's lattice: a float type promotes with a complex one to the complex type of
        // enough precision (f32 → complex64, f64 → complex128).
        Strong(F32) => vec![Strong(F64), Strong(C64)],
        // A weak complex scalar (a Rust `Complex32`/`Complex64`, JAX's Python complex) takes
        // a complex array's dtype and makes a float array complex of at least 64 bits.
        WeakComplex => vec![Strong(C64)],
        Strong(C64) => vec![Strong(C128)],
        Strong(C128) => vec![],
        Strong(I2) | Strong(I4) => vec![Strong(I8)],
        Strong(U2) | Strong(U4) => vec![Strong(U8)],
        Strong(F64) => vec![Strong(C128)],
    }
}

/// Every node reachable from `n`, `n` included.
fn upper_set(n: Node) -> Vec<Node> {
    let mut seen = vec![n];
    let mut i = 0;
    while i < seen.len() {
        for s in successors(seen[i]) {
            if !seen.contains(&s) {
                seen.push(s);
            }
        }
        i += 1;
    }
    seen
}

fn node(dtype: DType, weak: bool) -> Node {
    match (weak, dtype.is_float(), dtype.is_integer()) {
        (true, true, _) => Node::WeakFloat,
        (true, _, true) => Node::WeakInt,
        (true, _, _) if dtype.is_complex() => Node::WeakComplex,
        _ => Node::Strong(dtype),
    }
}

/// Without x64, 64-bit dtypes become their 32-bit counterparts.
pub fn canonicalize(dtype: DType) -> DType {
    match dtype {
        DType::I64 => DType::I32,
        DType::U64 => DType::U32,
        DType::F64 => DType::F32,
        d => d,
    }
}

/// Why these operands cannot be promoted implicitly, as JAX refuses: a narrow float (f8, f6,
/// f4) meets another floating-point array type. (A weak float scalar takes the narrow type,
/// and integers promote to it.) `None` when [`result_type`] applies.
///
/// ```
/// use systolic::promote::implicit_promotion_error;
/// use systolic_ir::DType;
/// assert!(implicit_promotion_error(&[(DType::F8E4M3FN, false), (DType::F32, false)]).is_some());
/// assert!(implicit_promotion_error(&[(DType::F8E4M3FN, false), (DType::F32, true)]).is_none());
/// assert!(implicit_promotion_error(&[(DType::F8E4M3FN, false), (DType::I8, false)]).is_none());
/// ```
pub fn implicit_promotion_error(operands: &[(DType, bool)]) -> Option<String> {
    let narrow = operands
        .iter()
        .find(|(d, weak)| !weak && d.is_narrow_float())?
        .0;
    let other = operands
        .iter()
        .find(|&&(d, weak)| !weak && d != narrow && (d.is_float() || d.is_complex()))?;
    Some(format!(
        "input dtypes ('{}', '{}') have no implicit promotion path: narrow floats (8 bits and \
         fewer) do not promote implicitly, as in JAX; convert one explicitly, e.g. \
         x.astype(DType::{:?})",
        narrow.numpy_name(),
        other.0.numpy_name(),
        other.0
    ))
}

/// The dtype and weak flag of an operation on operands of these `(dtype, weak)` pairs, as
/// `jnp.result_type` computes it.
///
/// ```
/// use systolic::promote::result_type;
/// use systolic_ir::DType;
/// assert_eq!(result_type(&[(DType::I8, false), (DType::U8, false)]), (DType::I16, false));
/// assert_eq!(result_type(&[(DType::F16, false), (DType::BF16, false)]), (DType::F32, false));
/// // A weak float scalar with an int32 array: a weak f32.
/// assert_eq!(result_type(&[(DType::I32, false), (DType::F32, true)]), (DType::F32, true));
/// // A weak scalar takes the array's dtype when it can.
/// assert_eq!(result_type(&[(DType::F16, false), (DType::F32, true)]), (DType::F16, false));
/// // 64 bits made from 32 are canonicalised; an operand's own 64 bits are kept.
/// assert_eq!(result_type(&[(DType::I32, false), (DType::U32, false)]), (DType::I32, false));
/// assert_eq!(result_type(&[(DType::F64, false), (DType::F32, true)]), (DType::F64, false));
/// assert_eq!(result_type(&[(DType::F64, false), (DType::F32, false)]), (DType::F64, false));
/// // A weak complex scalar makes a float array complex and keeps a complex array's dtype.
/// assert_eq!(result_type(&[(DType::F32, false), (DType::C64, true)]), (DType::C64, false));
/// assert_eq!(result_type(&[(DType::C64, false), (DType::C64, true)]), (DType::C64, false));
/// ```
pub fn result_type(operands: &[(DType, bool)]) -> (DType, bool) {
    let Some(&first) = operands.first() else {
        return (DType::F32, true);
    };
    if operands.iter().all(|&o| o == first) {
        return first;
    }
    let nodes: Vec<Node> = operands.iter().map(|&(d, w)| node(d, w)).collect();
    let sets: Vec<Vec<Node>> = nodes.iter().map(|&n| upper_set(n)).collect();
    let common: Vec<Node> = sets[0]
        .iter()
        .copied()
        .filter(|n| sets[1..].iter().all(|s| s.contains(n)))
        .collect();
    // The least upper bound: the common bound from which every other common bound is reachable.
    let lub = common
        .iter()
        .copied()
        .find(|&c| {
            let up = upper_set(c);
            common.iter().all(|o| up.contains(o))
        })
        .unwrap_or(Node::Strong(DType::F64));
    match lub {
        // A 64-bit join made from narrower dtypes is canonicalised (JAX without x64); one that
        // is an operand's own dtype stays: an explicitly 64-bit array keeps its precision with
        // weak scalars and narrower arrays, as JAX computes it with x64 on.
        Node::Strong(d) if operands.iter().any(|&(o, weak)| !weak && o == d) => (d, false),
        Node::Strong(d) => (canonicalize(d), false),
        Node::WeakInt => {
            // Only weak ints and bools met here: the widest weak dtype given, or i32.
            let weak_dtype = operands
                .iter()
                .find(|(d, w)| *w && d.is_integer())
                .map(|(d, _)| *d)
                .unwrap_or(DType::I32);
            (weak_dtype, true)
        }
        Node::WeakFloat => {
            let weak_dtype = operands
                .iter()
                .find(|(d, w)| *w && d.is_float())
                .map(|(d, _)| *d)
                .unwrap_or(DType::F32);
            // Strong i64 + u64 meet at f* too (promote_types gives a float): strong then.
            (weak_dtype, operands.iter().any(|o| o.1))
        }
        Node::WeakComplex => {
            // Weak complex scalars with integers, bools or weak scalars: the widest weak
            // complex dtype given, or complex<f32>.
            let weak_dtype = operands
                .iter()
                .find(|(d, w)| *w && d.is_complex())
                .map(|(d, _)| *d)
                .unwrap_or(DType::C64);
            (weak_dtype, true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    /// The promotions observed with JAX 0.10.2 (`shared/golden/jax0.10.2_semantics_observed*.txt`).
    #[test]
    fn observed_jax_promotions() {
        let cases = [
            ((I8, false), (U8, false), (I16, false)),
            ((I32, false), (U32, false), (I32, false)),
            ((F16, false), (BF16, false), (F32, false)),
            ((I32, false), (F16, false), (F16, false)),
            ((U8, false), (BF16, false), (BF16, false)),
            ((I8, false), (I16, false), (I16, false)),
            ((I64, false), (U64, false), (F32, false)),
            ((I8, false), (F32, true), (F32, true)),
            ((F16, false), (F32, true), (F16, false)),
            ((I8, false), (I32, true), (I8, false)),
            ((U8, false), (I32, true), (U8, false)),
            ((I32, false), (F32, true), (F32, true)),
            ((BF16, false), (F32, true), (BF16, false)),
            ((Bool, false), (Bool, false), (Bool, false)),
            ((Bool, false), (F32, true), (F32, true)),
            ((BF16, false), (I32, true), (BF16, false)),
            ((F16, false), (F32, false), (F32, false)),
            ((U32, false), (I32, false), (I32, false)),
        ];
        for (a, b, want) in cases {
            assert_eq!(result_type(&[a, b]), want, "{a:?} + {b:?}");
            assert_eq!(result_type(&[b, a]), want, "{b:?} + {a:?}");
        }
    }
}
