//! Helpers shared by the inference rules: operand and attribute checks that produce the
//! verifier's messages, so that every rule words the same mistake the same way.

use crate::dtype::DType;
use crate::types::{TensorType, Type};
use crate::verify::infer::RegionSignature;

/// What an inference rule returns: the result types, or why the op is invalid.
pub(crate) type Inferred = Result<Vec<Type>, String>;

/// A tensor type as a [`Type`].
pub(crate) fn tensor(shape: Vec<i64>, dtype: DType) -> Type {
    Type::Tensor(TensorType::new(shape, dtype))
}

/// A rank-0 tensor type as a [`Type`].
pub(crate) fn scalar(dtype: DType) -> Type {
    Type::Tensor(TensorType::scalar(dtype))
}

/// `[1, 2, 3]`.
pub(crate) fn list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `(tensor<f32>, tensor<i32>)`.
pub(crate) fn type_list(types: &[Type]) -> String {
    let items: Vec<String> = types.iter().map(Type::to_string).collect();
    format!("({})", items.join(", "))
}

/// Checks that a type is well formed: no negative dimension sizes, at any tuple depth.
pub(crate) fn check_type(ty: &Type) -> Result<(), String> {
    match ty {
        Type::Tensor(t) => {
            if t.shape.iter().any(|&d| d < 0) {
                Err(format!("{t} has a negative dimension size"))
            } else if t.checked_byte_size().is_none() {
                Err(format!(
                    "{t} is too large: its size in bytes does not fit in 2^63 (a buffer, an \
                     index and every cost computed from it must)"
                ))
            } else {
                Ok(())
            }
        }
        Type::Tuple(elems) => elems.iter().try_for_each(check_type),
        Type::Token => Ok(()),
    }
}

/// Checks the operand count exactly; `roles` names them for the message (`lhs, rhs`).
pub(crate) fn expect_operands(operands: &[Type], count: usize, roles: &str) -> Result<(), String> {
    if operands.len() == count {
        Ok(())
    } else {
        Err(format!(
            "expects {count} operand{} ({roles}), got {}",
            plural(count),
            operands.len()
        ))
    }
}

/// Checks the region count exactly; `roles` names them for the message.
pub(crate) fn expect_regions(
    regions: &[RegionSignature],
    count: usize,
    roles: &str,
) -> Result<(), String> {
    if regions.len() == count {
        Ok(())
    } else if count == 0 {
        Err(format!("takes no regions, got {}", regions.len()))
    } else {
        Err(format!(
            "expects {count} region{} ({roles}), got {}",
            plural(count),
            regions.len()
        ))
    }
}

/// `"1 entry"`, `"2 entries"`: a count with its noun in the right number.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `"s"` unless `n` is 1.
pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Operand `index` as a tensor; `role` names it in the message.
pub(crate) fn tensor_at<'a>(
    operands: &'a [Type],
    index: usize,
    role: &str,
) -> Result<&'a TensorType, String> {
    match operands.get(index) {
        Some(Type::Tensor(t)) => Ok(t),
        Some(other) => Err(format!("{role} must be a tensor, got {other}")),
        None => Err(format!("{role} is missing")),
    }
}

/// All operands as tensors; `role` names them (`input`), numbered in the message.
pub(crate) fn tensors<'a>(operands: &'a [Type], role: &str) -> Result<Vec<&'a TensorType>, String> {
    (0..operands.len())
        .map(|i| tensor_at(operands, i, &format!("{role} #{i}")))
        .collect()
}

/// Checks that a tensor's element type belongs to a class; `class` words it for the message.
pub(crate) fn expect_dtype(
    t: &TensorType,
    ok: fn(DType) -> bool,
    class: &str,
    role: &str,
) -> Result<(), String> {
    if ok(t.dtype) {
        Ok(())
    } else {
        Err(format!("{role} has type {t}; expected a tensor of {class}"))
    }
}

/// Floating-point element types.
pub(crate) fn is_float(d: DType) -> bool {
    d.is_float()
}

/// Signed and unsigned integers (not `i1`).
pub(crate) fn is_integer(d: DType) -> bool {
    d.is_integer()
}

/// Integers and floats (not `i1`).
pub(crate) fn is_numeric(d: DType) -> bool {
    d.is_integer() || d.is_float()
}

/// Floats and complex numbers: the spec's floating-point ops.
pub(crate) fn is_float_or_complex(d: DType) -> bool {
    d.is_float_or_complex()
}

/// Integers, floats and complex numbers (not `i1`).
pub(crate) fn is_numeric_or_complex(d: DType) -> bool {
    is_numeric(d) || d.is_complex()
}

/// `complex<f32>` and `complex<f64>`.
pub(crate) fn is_complex(d: DType) -> bool {
    d.is_complex()
}

/// `i1` and integers.
pub(crate) fn is_bool_or_integer(d: DType) -> bool {
    d.is_bool() || d.is_integer()
}

/// Signed integers and floats.
pub(crate) fn is_signed_or_float(d: DType) -> bool {
    d.is_signed_integer() || d.is_float()
}

/// Signed integers, floats and complex numbers (`abs`, `sign`).
pub(crate) fn is_signed_float_or_complex(d: DType) -> bool {
    is_signed_or_float(d) || d.is_complex()
}

/// Every element type.
pub(crate) fn is_any(_: DType) -> bool {
    true
}

/// Checks that a tensor is a scalar (rank 0).
pub(crate) fn expect_scalar(t: &TensorType, role: &str) -> Result<(), String> {
    if t.rank() == 0 {
        Ok(())
    } else {
        Err(format!("{role} must be a 0-dimensional tensor, got {t}"))
    }
}

/// Checks that an attribute list has one entry per dimension.
pub(crate) fn expect_len(len: usize, expected: usize, attr: &str, why: &str) -> Result<(), String> {
    if len == expected {
        Ok(())
    } else {
        Err(format!(
            "`{attr}` has {} but {why} {expected}",
            count(len, "entry", "entries")
        ))
    }
}

/// A dimension number as an index, checked against a rank.
pub(crate) fn axis(d: i64, rank: usize, attr: &str) -> Result<usize, String> {
    if d >= 0 && (d as u64) < rank as u64 {
        Ok(d as usize)
    } else {
        Err(format!(
            "`{attr}` entry {d} is out of range for rank {rank} (must be in [0, {rank}))"
        ))
    }
}

/// Every entry of a dimension list as an index, checked against a rank.
pub(crate) fn axes(dims: &[i64], rank: usize, attr: &str) -> Result<Vec<usize>, String> {
    dims.iter().map(|&d| axis(d, rank, attr)).collect()
}

/// Checks that no value repeats; `attr` may name several lists joined.
pub(crate) fn expect_unique(dims: &[i64], attr: &str) -> Result<(), String> {
    for (i, d) in dims.iter().enumerate() {
        if dims[..i].contains(d) {
            return Err(format!("`{attr}` repeats dimension {d} in {}", list(dims)));
        }
    }
    Ok(())
}

/// Checks that a list is in ascending order.
pub(crate) fn expect_sorted(dims: &[i64], attr: &str) -> Result<(), String> {
    if dims.windows(2).all(|w| w[0] <= w[1]) {
        Ok(())
    } else {
        Err(format!("`{attr}` must be sorted, got {}", list(dims)))
    }
}

/// Converts a size computed in wide arithmetic back to a dimension size, or says why not.
pub(crate) fn to_dim(value: i128, what: &str) -> Result<i64, String> {
    if value < 0 {
        Err(format!("{what} would be negative ({value})"))
    } else {
        i64::try_from(value).map_err(|_| format!("{what} overflows ({value})"))
    }
}

/// Number of elements of a shape, without overflow.
pub(crate) fn element_count(shape: &[i64]) -> Option<i128> {
    shape
        .iter()
        .try_fold(1i128, |acc, &d| acc.checked_mul(i128::from(d)))
}

/// The declared result types, which an op whose results do not follow from its operands needs.
pub(crate) fn need_declared<'a>(
    declared: Option<&'a [Type]>,
    count: usize,
    why: &str,
) -> Result<&'a [Type], String> {
    let d = declared.ok_or_else(|| format!("the result type must be declared ({why})"))?;
    if d.len() != count {
        return Err(format!(
            "declares {} result{}; expected {count}",
            d.len(),
            plural(d.len())
        ));
    }
    Ok(d)
}

/// The one declared result as a tensor.
pub(crate) fn need_declared_tensor<'a>(
    declared: Option<&'a [Type]>,
    why: &str,
) -> Result<&'a TensorType, String> {
    match &need_declared(declared, 1, why)?[0] {
        Type::Tensor(t) => Ok(t),
        other => Err(format!("the result must be a tensor, got {other}")),
    }
}

/// The declared result at `index` as a tensor, if results were declared and it is one.
pub(crate) fn declared_tensor_at(declared: Option<&[Type]>, index: usize) -> Option<&TensorType> {
    declared
        .and_then(|d| d.get(index))
        .and_then(Type::as_tensor)
}

/// Checks a region's argument and result types against what the op requires of it.
pub(crate) fn expect_region(
    region: &RegionSignature,
    name: &str,
    args: &[Type],
    results: &[Type],
) -> Result<(), String> {
    if region.arg_types != args {
        return Err(format!(
            "{name} takes {} but must take {}",
            type_list(&region.arg_types),
            type_list(args)
        ));
    }
    if region.result_types != results {
        return Err(format!(
            "{name} returns {} but must return {}",
            type_list(&region.result_types),
            type_list(results)
        ));
    }
    Ok(())
}
