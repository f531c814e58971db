//! The `.safetensors` layout: a JSON header naming each tensor's dtype, shape and byte range,
//! then the bytes (the `safetensors` crate writes and validates it). The header's metadata
//! holds the tree's structure (`systolic.tree`) and, for the 2- and 4-bit integers that
//! safetensors has no dtype for, their real dtypes (`systolic.dtypes`, a JSON object of key
//! path → numpy name; the bytes are stored as int8/uint8, one element per byte).

use super::stored::{Contents, Entry, Stored};
use ::safetensors::tensor::{Dtype, SafeTensors, View};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use systolic_ir::{DType, TensorType};

/// The metadata key of the tree's structure text.
const TREE_KEY: &str = "systolic.tree";
/// The metadata key of the sub-byte dtypes.
const DTYPES_KEY: &str = "systolic.dtypes";

/// A leaf as the `safetensors` crate sees it.
struct Leaf<'a> {
    bytes: Cow<'a, [u8]>,
    dtype: Dtype,
    shape: Vec<usize>,
}

impl View for Leaf<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// The safetensors dtype that holds `dtype`'s elements (sub-byte integers: a byte each);
/// `None` for `complex<f64>`, which the format has no type for.
fn to_safetensors(dtype: DType) -> Option<Dtype> {
    Some(match dtype {
        DType::Bool => Dtype::BOOL,
        DType::I2 | DType::I4 | DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::U2 | DType::U4 | DType::U8 => Dtype::U8,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        DType::C64 => Dtype::C64,
        DType::C128 => return None,
        // Narrow floats as their one-byte codes, named in the metadata like the sub-byte
        // integers (safetensors' packed F4/F6 and its F8 names are not used yet).
        DType::F8E4M3FN
        | DType::F8E5M2
        | DType::F8E4M3FNUZ
        | DType::F8E5M2FNUZ
        | DType::F8E4M3B11FNUZ
        | DType::F8E3M4
        | DType::F8E4M3
        | DType::F8E8M0FNU
        | DType::F6E2M3FN
        | DType::F6E3M2FN
        | DType::F4E2M1FN => Dtype::U8,
    })
}

/// The dtype of a safetensors tensor, when Systolic has it.
fn from_safetensors(dtype: Dtype) -> Option<DType> {
    Some(match dtype {
        Dtype::BOOL => DType::Bool,
        Dtype::I8 => DType::I8,
        Dtype::I16 => DType::I16,
        Dtype::I32 => DType::I32,
        Dtype::I64 => DType::I64,
        Dtype::U8 => DType::U8,
        Dtype::U16 => DType::U16,
        Dtype::U32 => DType::U32,
        Dtype::U64 => DType::U64,
        Dtype::F16 => DType::F16,
        Dtype::BF16 => DType::BF16,
        Dtype::F32 => DType::F32,
        Dtype::F64 => DType::F64,
        Dtype::C64 => DType::C64,
        _ => return None,
    })
}

/// The whole file for `tensors` of a tree whose structure is `structure`.
pub(crate) fn encode(tensors: &[Stored], structure: &str) -> Result<Vec<u8>, String> {
    let mut metadata = HashMap::from([(TREE_KEY.to_string(), structure.to_string())]);
    let sub_byte: BTreeMap<&str, &str> = tensors
        .iter()
        .filter(|t| is_named_in_metadata(t.ty.dtype))
        .map(|t| (t.name.as_str(), t.ty.dtype.numpy_name()))
        .collect();
    if !sub_byte.is_empty() {
        let json = serde_json::to_string(&sub_byte).map_err(|e| e.to_string())?;
        metadata.insert(DTYPES_KEY.to_string(), json);
    }
    if let Some(t) = tensors
        .iter()
        .find(|t| to_safetensors(t.ty.dtype).is_none())
    {
        return Err(format!(
            "safetensors has no element type for {} (leaf '{}')",
            t.ty, t.name
        ));
    }
    let leaves = tensors.iter().filter_map(|t| {
        let leaf = Leaf {
            bytes: int8_values(t),
            dtype: to_safetensors(t.ty.dtype)?,
            shape: t.ty.shape.iter().map(|&d| d.max(0) as usize).collect(),
        };
        Some((t.name.as_str(), leaf))
    });
    ::safetensors::serialize(leaves, Some(metadata)).map_err(|e| format!("safetensors: {e}"))
}

/// A leaf's bytes as the safetensors dtype holds them: a signed 2- or 4-bit integer, which
/// Systolic's dense bytes keep as its low bits, sign-extended to the int8 of its value (so a
/// reader that sees int8 sees the right numbers).
fn int8_values(t: &Stored) -> Cow<'_, [u8]> {
    match t.ty.dtype {
        DType::I2 | DType::I4 => {
            let shift = 8 - t.ty.dtype.bit_width();
            Cow::Owned(
                t.bytes
                    .iter()
                    .map(|&b| (((b << shift) as i8) >> shift) as u8)
                    .collect(),
            )
        }
        _ => Cow::Borrowed(&t.bytes),
    }
}

/// The tensors and recorded structure of a `.safetensors` file's bytes.
pub(crate) fn decode(bytes: &[u8]) -> Result<Contents, String> {
    let bad = |e: ::safetensors::SafeTensorError| format!("not a valid safetensors file: {e}");
    let (_, metadata) = SafeTensors::read_metadata(bytes).map_err(bad)?;
    let extra = metadata.metadata().clone().unwrap_or_default();
    let sub_byte: BTreeMap<String, String> = match extra.get(DTYPES_KEY) {
        Some(json) => serde_json::from_str(json)
            .map_err(|e| format!("its metadata `{DTYPES_KEY}` is not a JSON object: {e}"))?,
        None => BTreeMap::new(),
    };
    let file = SafeTensors::deserialize(bytes).map_err(bad)?;
    let mut tensors = BTreeMap::new();
    for (name, view) in file.iter() {
        let stored = from_safetensors(view.dtype()).ok_or_else(|| {
            format!(
                "tensor `{name}` has dtype {:?}, which Systolic does not have",
                view.dtype()
            )
        })?;
        let dtype = match sub_byte.get(name) {
            Some(numpy) => sub_byte_dtype(numpy, stored).ok_or_else(|| {
                format!("tensor `{name}`: `{DTYPES_KEY}` names {numpy} for {stored}")
            })?,
            None => stored,
        };
        let shape = view
            .shape()
            .iter()
            .map(|&d| i64::try_from(d).map_err(|_| format!("tensor `{name}`: shape too large")))
            .collect::<Result<Vec<_>, _>>()?;
        let bytes = view.data().to_vec();
        if let Some(i) = first_out_of_range(dtype, &bytes) {
            return Err(format!(
                "tensor `{name}`: element {i} ({}) is not a {} value",
                bytes[i] as i8,
                dtype.numpy_name()
            ));
        }
        tensors.insert(
            name.to_string(),
            Entry::Dense {
                ty: TensorType::new(shape, dtype),
                bytes,
            },
        );
    }
    Ok(Contents {
        tensors,
        structure: extra.get(TREE_KEY).cloned(),
    })
}

/// The sub-byte dtype named `numpy` that the stored dtype `stored` can hold.
fn sub_byte_dtype(numpy: &str, stored: DType) -> Option<DType> {
    DType::ALL
        .into_iter()
        .find(|d| d.numpy_name() == numpy)
        .filter(|d| is_named_in_metadata(*d) && to_safetensors(*d) == to_safetensors(stored))
}

/// True for the dtypes stored as another (wider or plain byte) safetensors dtype and named in
/// the metadata: sub-byte integers and narrow floats.
fn is_named_in_metadata(d: DType) -> bool {
    (d.bit_width() < 8 && d != DType::Bool) || d.is_narrow_float()
}

/// The first byte that is not a value of the sub-byte integer `dtype` (none for other dtypes).
fn first_out_of_range(dtype: DType, bytes: &[u8]) -> Option<usize> {
    let bits = dtype.bit_width();
    if bits >= 8 || dtype == DType::Bool {
        return None;
    }
    let signed = dtype.kind() == systolic_ir::DTypeKind::Signed;
    // Narrow float codes (f4, f6) use the low bits like unsigned integers.
    let ok = |b: u8| {
        if signed {
            let v = b as i8 as i32;
            (-(1 << (bits - 1))..(1 << (bits - 1))).contains(&v)
        } else {
            u32::from(b) < (1 << bits)
        }
    };
    bytes.iter().position(|&b| !ok(b))
}
