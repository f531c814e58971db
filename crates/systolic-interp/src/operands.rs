//! Typed access to an op's operands and declared result types, with errors that say which
//! operand was wrong and why. Shared by the op families so that every op reports bad input the
//! same way instead of panicking.

use crate::error::Result;
use crate::value::Value;
use systolic_ir::{DType, Data, Tensor, TensorType, Type};

/// Checks that the op got exactly `n` operands.
pub fn expect_count(args: &[Value], n: usize) -> Result<()> {
    if args.len() != n {
        crate::bail!("expects {n} operands, got {}", args.len());
    }
    Ok(())
}

/// Operand `i` as a tensor.
pub fn tensor(args: &[Value], i: usize) -> Result<&Tensor> {
    match args.get(i) {
        Some(Value::Tensor(t)) => Ok(t),
        Some(other) => crate::bail!("operand {i} must be a tensor, got {}", other.ty()),
        None => crate::bail!("operand {i} is missing ({} operands given)", args.len()),
    }
}

/// Every operand as a tensor, taken by value.
pub fn into_tensors(args: Vec<Value>) -> Result<Vec<Tensor>> {
    args.into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Tensor(t) => Ok(t),
            other => crate::bail!("operand {i} must be a tensor, got {}", other.ty()),
        })
        .collect()
}

/// Declared result `i` as a tensor type.
pub fn result_tensor(result_types: &[Type], i: usize) -> Result<&TensorType> {
    match result_types.get(i) {
        Some(Type::Tensor(t)) => Ok(t),
        Some(other) => crate::bail!("result {i} must be a tensor, the op declares {other}"),
        None => crate::bail!(
            "result {i} is missing (the op declares {} results)",
            result_types.len()
        ),
    }
}

/// The value of a rank-0 integer tensor (an index, a branch number, a predicate as 0/1).
pub fn scalar_int(t: &Tensor, what: &str) -> Result<i64> {
    if !t.shape().is_empty() {
        crate::bail!("{what} must be a scalar, got {}", t.ty());
    }
    integer_at(t, 0, what)
}

/// Element `i` of an integer or boolean tensor as an i64 (unsigned values above i64::MAX
/// saturate, which is harmless for indices that are clamped anyway).
pub fn integer_at(t: &Tensor, i: usize, what: &str) -> Result<i64> {
    Ok(match t.data() {
        Data::Int(v) => v[i],
        Data::UInt(v) => i64::try_from(v[i]).unwrap_or(i64::MAX),
        Data::Bool(v) => v[i] as i64,
        Data::Float(_) | Data::Complex(_) => {
            crate::bail!("{what} must be an integer, got {}", t.ty())
        }
    })
}

/// Checks that a computed shape matches the declared result type.
pub fn check_result(ty: &TensorType, shape: &[i64], dtype: DType) -> Result<()> {
    if ty.shape != shape || ty.dtype != dtype {
        crate::bail!(
            "result type {ty} does not match the computed {}",
            TensorType::new(shape.to_vec(), dtype)
        );
    }
    Ok(())
}

/// Builds a tensor, turning a storage error into an interpreter error.
pub fn make(ty: TensorType, data: Data) -> Result<Tensor> {
    Tensor::new(ty, data).map_err(|e| crate::error::InterpError::new(e.to_string()))
}
