//! Tensors as a checkpoint file holds them: named dense little-endian bytes on the way out,
//! and on the way in entries whose type is resolved against the template's dtype (an `.npz`
//! member of a raw void type is bf16 or a sub-byte integer only by what the template says).

use std::collections::{BTreeMap, HashSet};
use systolic_ir::{DType, TensorType};
use systolic_npy::{header, ElementType};

/// A leaf to write: its key path, type and dense little-endian C-order bytes.
pub(crate) struct Stored {
    pub(crate) name: String,
    pub(crate) ty: TensorType,
    pub(crate) bytes: Vec<u8>,
}

/// The first name given to two tensors.
pub(crate) fn first_duplicate(tensors: &[Stored]) -> Option<&str> {
    let mut seen = HashSet::new();
    tensors
        .iter()
        .map(|t| t.name.as_str())
        .find(|n| !seen.insert(*n))
}

/// What a checkpoint file holds: its tensors by name, and the tree structure it records (files
/// written by other programs record none).
pub(crate) struct Contents {
    pub(crate) tensors: BTreeMap<String, Entry>,
    pub(crate) structure: Option<String>,
}

/// One tensor of a file, not yet read into a leaf.
pub(crate) enum Entry {
    /// A type the file states fully, with its dense little-endian bytes.
    Dense { ty: TensorType, bytes: Vec<u8> },
    /// A whole `.npy` file (an `.npz` member).
    Npy(Vec<u8>),
}

impl Entry {
    /// The entry's type as read for a leaf of dtype `expected`, and — only when that type has
    /// `expected`'s dtype — its dense little-endian bytes (empty otherwise: the caller reports
    /// the mismatch and nothing is decoded). An error says why the type cannot be read.
    pub(crate) fn into_bytes(self, expected: DType) -> Result<(TensorType, Vec<u8>), String> {
        match self {
            Entry::Dense { ty, bytes } => Ok((ty, bytes)),
            Entry::Npy(bytes) => {
                let (head, _) = header::parse(&bytes).map_err(|e| e.to_string())?;
                let dtype = head
                    .element
                    .resolve(Some(expected))
                    .or_else(|_| head.element.resolve(None))
                    .map_err(|_| raw_mismatch(head.element, expected, &head.shape))?;
                let shape = head
                    .shape
                    .iter()
                    .map(|&d| {
                        i64::try_from(d).map_err(|_| format!("shape {:?} is too large", head.shape))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let ty = TensorType::new(shape, dtype);
                if dtype != expected {
                    return Ok((ty, vec![]));
                }
                let array =
                    systolic_npy::decode(bytes, Some(expected)).map_err(|e| e.to_string())?;
                Ok((array.ty, array.bytes))
            }
        }
    }
}

/// Why a raw void member cannot be a leaf of `expected`.
fn raw_mismatch(element: ElementType, expected: DType, shape: &[usize]) -> String {
    format!(
        "the file has a raw '{}' array of shape {shape:?} (ml_dtypes' int4/uint4/int2/uint2 are \
         saved so), the template {}",
        element.descr(),
        expected.numpy_name()
    )
}
