//! Value types: statically shaped tensors, tuples and tokens.

use crate::dtype::DType;
use crate::quant::Quantization;
use std::fmt;
use std::sync::Arc;

/// A tensor type with a static shape, e.g. `tensor<2x3xf32>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// Dimension sizes, outermost first; empty for a scalar (rank 0).
    pub shape: Vec<i64>,
    /// Element type (for a quantized type, its storage type).
    pub dtype: DType,
    /// The quantization of a uniformly quantized type (`!quant.uniform<…>`), whose values are
    /// the storage integers in `dtype`; `None` for every other type.
    pub quant: Option<Arc<Quantization>>,
}

impl TensorType {
    /// A tensor type from a shape and an element type.
    ///
    /// ```
    /// use systolic_ir::{DType, TensorType};
    /// let t = TensorType::new(vec![2, 3], DType::F32);
    /// assert_eq!(t.to_string(), "tensor<2x3xf32>");
    /// assert_eq!(t.num_elements(), 6);
    /// ```
    pub fn new(shape: Vec<i64>, dtype: DType) -> Self {
        TensorType {
            shape,
            dtype,
            quant: None,
        }
    }

    /// A uniformly quantized tensor type: integers of `storage` meaning
    /// `(q - zero_point) * scale`.
    pub fn quantized(shape: Vec<i64>, storage: DType, quant: Quantization) -> Self {
        TensorType {
            shape,
            dtype: storage,
            quant: Some(Arc::new(quant)),
        }
    }

    /// Whether this is a quantized type.
    pub fn is_quantized(&self) -> bool {
        self.quant.is_some()
    }

    /// A rank-0 tensor type.
    pub fn scalar(dtype: DType) -> Self {
        TensorType {
            shape: vec![],
            dtype,
            quant: None,
        }
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements (product of the dimension sizes; 1 for a scalar). Saturates at
    /// `usize::MAX` rather than wrapping: the verifier rejects types whose size does not fit
    /// ([`TensorType::checked_byte_size`]), so only unverified types can get there, and a
    /// saturated size fails every budget it meets instead of passing as a small one.
    pub fn num_elements(&self) -> usize {
        if self.shape.contains(&0) {
            return 0;
        }
        self.shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d.max(0) as usize))
            .unwrap_or(usize::MAX)
    }

    /// Size in bytes of a dense host buffer of this type (saturating, as
    /// [`TensorType::num_elements`]).
    pub fn byte_size(&self) -> usize {
        self.num_elements().saturating_mul(self.dtype.byte_size())
    }

    /// The dense size in bytes when it fits in an `i64` (the largest size any buffer, index
    /// or cost computed from it may take), `None` otherwise. A shape with a zero dimension
    /// has no bytes whatever its other dimensions.
    ///
    /// ```
    /// use systolic_ir::{DType, TensorType};
    /// assert_eq!(TensorType::new(vec![2, 3], DType::F32).checked_byte_size(), Some(24));
    /// assert_eq!(TensorType::new(vec![1 << 62], DType::F32).checked_byte_size(), None);
    /// assert_eq!(TensorType::new(vec![4, 1 << 62, 0], DType::F32).checked_byte_size(), Some(0));
    /// ```
    pub fn checked_byte_size(&self) -> Option<u64> {
        if self.shape.contains(&0) {
            return Some(0);
        }
        let elements = self
            .shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?))?;
        let bytes = elements.checked_mul(self.dtype.byte_size() as u64)?;
        (bytes <= i64::MAX as u64).then_some(bytes)
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        row_major_strides(&self.shape)
    }

    /// The same shape with another element type.
    pub fn with_dtype(&self, dtype: DType) -> TensorType {
        TensorType::new(self.shape.clone(), dtype)
    }
}

/// Row-major strides (in elements) of a shape.
pub fn row_major_strides(shape: &[i64]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1].max(0) as usize;
    }
    strides
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor<")?;
        for d in &self.shape {
            write!(f, "{d}x")?;
        }
        match &self.quant {
            Some(q) => write!(
                f,
                "!quant.uniform<{}{q}>>",
                crate::quant::storage_name(self.dtype)
            ),
            None => write!(f, "{}>", self.dtype),
        }
    }
}

/// The type of an SSA value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// A tensor.
    Tensor(TensorType),
    /// A tuple of values, `tuple<tensor<f32>, !stablehlo.token>`.
    Tuple(Vec<Type>),
    /// `!stablehlo.token`: orders side effects.
    Token,
}

impl Type {
    /// The tensor type, if this is a tensor.
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// Shorthand for a tensor type.
    pub fn tensor(shape: Vec<i64>, dtype: DType) -> Type {
        Type::Tensor(TensorType::new(shape, dtype))
    }
}

impl From<TensorType> for Type {
    fn from(t: TensorType) -> Self {
        Type::Tensor(t)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Tensor(t) => t.fmt(f),
            Type::Token => f.write_str("!stablehlo.token"),
            Type::Tuple(elems) => {
                f.write_str("tuple<")?;
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    e.fmt(f)?;
                }
                f.write_str(">")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        assert_eq!(TensorType::scalar(DType::Bool).to_string(), "tensor<i1>");
        let tup = Type::Tuple(vec![Type::tensor(vec![0, 4], DType::BF16), Type::Token]);
        assert_eq!(tup.to_string(), "tuple<tensor<0x4xbf16>, !stablehlo.token>");
    }

    #[test]
    fn strides() {
        assert_eq!(row_major_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(row_major_strides(&[]), Vec::<usize>::new());
        assert_eq!(TensorType::new(vec![3, 0], DType::F32).num_elements(), 0);
    }
}
