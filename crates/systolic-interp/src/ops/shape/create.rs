//! Ops that create values from attributes: `constant`, `iota`, `get_dimension_size`.

use super::check_dim;
use crate::error::Result;
use crate::index::MultiIndex;
use crate::operands::{check_result, make};
use systolic_ir::{DType, DTypeKind, Data, Tensor, TensorType};

/// `constant`: the attribute's value, which must have the declared type.
pub fn constant(value: &Tensor, out: &TensorType) -> Result<Tensor> {
    check_result(out, value.shape(), value.dtype())?;
    Ok(value.clone())
}

/// `iota`: each element is its index along `dimension`, converted to the dtype (a complex
/// one with imaginary part 0).
pub fn iota(dimension: i64, out: &TensorType) -> Result<Tensor> {
    let dim = check_dim(dimension, out.rank(), "iota_dimension")?;
    let counts = MultiIndex::new(&out.shape).map(|index| index[dim]);
    let data = match out.dtype.kind() {
        DTypeKind::Signed => Data::Int(counts.collect()),
        DTypeKind::Unsigned => Data::UInt(counts.map(|c| c as u64).collect()),
        DTypeKind::Float => Data::Float(counts.map(|c| c as f64).collect()),
        DTypeKind::Bool => Data::Bool(counts.map(|c| c != 0).collect()),
        DTypeKind::Complex => Data::Complex(
            counts
                .map(|c| systolic_ir::Complex64::new(c as f64, 0.0))
                .collect(),
        ),
    };
    make(out.clone(), data)
}

/// `get_dimension_size`: the size of `dimension` as a `tensor<i32>`.
pub fn get_dimension_size(x: &Tensor, dimension: i64, out: &TensorType) -> Result<Tensor> {
    let dim = check_dim(dimension, x.shape().len(), "dimension")?;
    check_result(out, &[], DType::I32)?;
    make(out.clone(), Data::Int(vec![x.shape()[dim]]))
}
