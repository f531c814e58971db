//! The builder autodiff's rules emit into: `systolic_ir`'s [`FuncBuilder`] (result types from
//! the verifier's inference, so every emitted op is checked as it is made) with this crate's
//! [`Error`], plus autodiff's own conventions in [`AdBuilder`].

use crate::Error;
use systolic_ir::builder::{BuildError, FuncBuilder};
use systolic_ir::{DType, TensorType, Type, ValueId};

/// A function under construction, its errors in autodiff's type.
pub(crate) type Builder = FuncBuilder<Error>;

pub(crate) type Res<T> = Result<T, Error>;

/// A failed build is a bug in a rule (the source function verified), hence "internal".
impl From<BuildError> for Error {
    fn from(e: BuildError) -> Error {
        Error::new(format!("internal: {e}"))
    }
}

/// What autodiff assumes on top of the builder: every value it differentiates is a tensor
/// (tuples and tokens never carry tangents, so a rule asking for their type reads a scalar
/// f32), and a tangent that is `None` is symbolically zero.
pub(crate) trait AdBuilder {
    /// The tensor type of a value (a scalar f32 for the non-tensors no rule differentiates).
    fn tt(&self, v: ValueId) -> TensorType;

    /// The shape of a value.
    fn shape(&self, v: ValueId) -> Vec<i64> {
        self.tt(v).shape
    }

    /// The element type of a value.
    fn dtype(&self, v: ValueId) -> DType {
        self.tt(v).dtype
    }

    /// Sums `a` and `b`, treating `None` as zero.
    fn add_opt(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Res<Option<ValueId>>;
}

impl AdBuilder for Builder {
    fn tt(&self, v: ValueId) -> TensorType {
        match self.func.value_type(v) {
            Type::Tensor(t) => t.clone(),
            _ => TensorType::scalar(DType::F32),
        }
    }

    fn add_opt(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Res<Option<ValueId>> {
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(self.add(a, b)?),
            (x, None) | (None, x) => x,
        })
    }
}
