//! numpy `.npy` files as [`systolic_ir::Tensor`]s.
//!
//! Reads format versions 1.0, 2.0 and 3.0, C and Fortran order, little- and big-endian data, and
//! every dtype Systolic has: numpy's bool, integers and floats, plus ml_dtypes' `bfloat16` and
//! sub-byte integers, which `np.save` writes as raw void types (`'<V2'`, `'<V1'`). Writes what
//! `np.save` writes for the same array (C order, little-endian, version 1.0 when it fits), so
//! `np.load(f).view(ml_dtypes.bfloat16)` reads a bf16 output back.
//!
//! A hand-written reader rather than a crate because of those void types: a general `.npy`
//! library cannot know that `'<V2'` is bf16, while we know the dtype the program expects.
//!
//! ```
//! use systolic_ir::Tensor;
//! let t = Tensor::from_f32(vec![2], vec![1.5, -2.0]);
//! let bytes = systolic_npy::to_bytes(&t);
//! assert_eq!(systolic_npy::from_bytes(&bytes, None).unwrap(), t);
//! ```

#![warn(missing_docs)]

pub mod descr;
pub mod error;
pub mod header;

pub use descr::ElementType;
pub use error::{NpyError, NpyErrorKind};
pub use header::Header;

use std::io::Write;
use std::path::Path;
use systolic_ir::{DType, Tensor, TensorType};

/// An array as a `.npy` file holds it, normalised: its type and its elements as dense
/// little-endian bytes in C order (one byte per element for booleans, 0 or 1, and for the
/// sub-byte integer types). What a runtime copies into a device buffer with one pass, without
/// the exact per-element values a [`Tensor`] keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawArray {
    /// Shape and dtype.
    pub ty: TensorType,
    /// `ty.num_elements() × ty.dtype.byte_size()` bytes.
    pub bytes: Vec<u8>,
}

/// Decodes a `.npy` buffer into a tensor. `expected` names the dtype of raw void elements
/// (see [`ElementType::resolve`]); it does not convert named types.
pub fn from_bytes(bytes: &[u8], expected: Option<DType>) -> Result<Tensor, NpyErrorKind> {
    let array = decode(bytes.to_vec(), expected)?;
    Tensor::from_le_bytes(array.ty, &array.bytes)
        .map_err(|e| NpyErrorKind::BadHeader(e.to_string()))
}

/// Decodes a whole `.npy` file's bytes into a [`RawArray`], reusing the buffer: the data is
/// moved to its front in place, so a large file costs one move and no second allocation.
/// `expected` is as for [`from_bytes`].
///
/// ```
/// use systolic_ir::{DType, Tensor};
/// let t = Tensor::from_f32(vec![2], vec![1.5, -2.0]);
/// let array = systolic_npy::decode(systolic_npy::to_bytes(&t), None).unwrap();
/// assert_eq!(array.ty.dtype, DType::F32);
/// assert_eq!(array.bytes, t.to_le_bytes());
/// ```
pub fn decode(mut bytes: Vec<u8>, expected: Option<DType>) -> Result<RawArray, NpyErrorKind> {
    let (header, data_start) = header::parse(&bytes)?;
    let layout = Layout::of(&header, expected, bytes.len() - data_start)?;
    bytes.copy_within(data_start.., 0);
    bytes.truncate(layout.len);
    let bytes = normalise(&header, &layout, bytes)?;
    Ok(RawArray {
        ty: layout.ty,
        bytes,
    })
}

/// The array a header describes, checked against the `data_len` bytes that follow it.
#[derive(Debug)]
struct Layout {
    /// Its type.
    ty: TensorType,
    /// Bytes per element in the file.
    width: usize,
    /// Bytes of data (`data_len`, checked).
    len: usize,
}

impl Layout {
    fn of(
        header: &Header,
        expected: Option<DType>,
        data_len: usize,
    ) -> Result<Layout, NpyErrorKind> {
        let dtype = header.element.resolve(expected)?;
        let count = header
            .shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .ok_or_else(|| NpyErrorKind::TooLarge(header.shape.clone()))?;
        let width = header.element.width();
        let len = count
            .checked_mul(width)
            .ok_or_else(|| NpyErrorKind::TooLarge(header.shape.clone()))?;
        if data_len != len {
            return Err(NpyErrorKind::DataLength {
                shape: header.shape.clone(),
                descr: header.element.descr(),
                expected: len,
                got: data_len,
            });
        }
        let shape = header
            .shape
            .iter()
            .map(|&d| i64::try_from(d).map_err(|_| NpyErrorKind::TooLarge(header.shape.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Layout {
            ty: TensorType::new(shape, dtype),
            width,
            len,
        })
    }

    /// True when the file's data bytes already are the array's dense little-endian C-order
    /// bytes, which [`normalise`] leaves as they are.
    fn is_dense_le(&self, header: &Header) -> bool {
        let dtype = self.ty.dtype;
        (!header.big_endian || self.width == 1)
            && !(header.fortran_order && header.shape.len() > 1)
            && dtype != DType::Bool
            && dtype.bit_width() >= 8
    }
}

/// The array's dense little-endian C-order bytes from the file's data bytes: byte order
/// swapped, Fortran order transposed, booleans made 0 or 1, sub-byte integers checked and
/// masked to their bits.
fn normalise(
    header: &Header,
    layout: &Layout,
    mut bytes: Vec<u8>,
) -> Result<Vec<u8>, NpyErrorKind> {
    let (dtype, width) = (layout.ty.dtype, layout.width);
    if header.big_endian && width > 1 {
        // Byte order is per number: a complex element is two floats, each swapped alone.
        let swap = if dtype.is_complex() { width / 2 } else { width };
        bytes.chunks_exact_mut(swap).for_each(|c| c.reverse());
    }
    if header.fortran_order && header.shape.len() > 1 {
        bytes = fortran_to_c_order(&bytes, &header.shape, width);
    }
    if dtype == DType::Bool {
        // numpy reads any nonzero byte as True.
        bytes.iter_mut().for_each(|b| *b = (*b != 0) as u8);
    } else if dtype.bit_width() < 8 {
        // A sub-byte integer is its low bits (ml_dtypes may store a negative int4 sign-extended
        // to the byte); keep only those, as the exact tensors do. Any other byte holds no value
        // of the type and is refused rather than read as its low bits.
        let bits = dtype.bit_width();
        let mask = ((1u16 << bits) - 1) as u8;
        let signed = dtype.kind() == systolic_ir::DTypeKind::Signed;
        let sign_extended = |b: u8| signed && (b as i8) < 0 && (b as i8) >= -(1i8 << (bits - 1));
        if let Some(index) = bytes
            .iter()
            .position(|&b| b & !mask != 0 && !sign_extended(b))
        {
            return Err(NpyErrorKind::SubByteOutOfRange {
                index,
                byte: bytes[index],
                dtype: dtype.numpy_name().to_string(),
            });
        }
        bytes.iter_mut().for_each(|b| *b &= mask);
    }
    Ok(bytes)
}

/// A `.npy` file whose header has been read and checked against the file's size: the array's
/// type is known and its data not yet read, so a caller can read it straight into storage of
/// its own ([`NpyFile::read_dense_le_into`]) instead of into a byte vector first.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # let path = dir.path().join("x.npy");
/// use systolic_ir::Tensor;
/// let t = Tensor::from_f32(vec![2], vec![1.5, -2.0]);
/// systolic_npy::write(&path, &t).unwrap();
/// let mut file = systolic_npy::open(&path, None).unwrap();
/// assert!(file.is_dense_le());
/// let mut bytes = vec![0u8; 8];
/// file.read_dense_le_into(&mut bytes).unwrap();
/// assert_eq!(bytes, t.to_le_bytes());
/// ```
#[derive(Debug)]
pub struct NpyFile {
    path: String,
    header: Header,
    layout: Layout,
    file: std::fs::File,
}

/// Opens a `.npy` file and reads its header (see [`NpyFile`]); `expected` is as for
/// [`from_bytes`]. Errors name the file: unreadable, not `.npy`, a bad header, or data that is
/// not exactly what the header's shape and dtype take.
pub fn open(path: &Path, expected: Option<DType>) -> Result<NpyFile, NpyError> {
    use std::io::{Read, Seek};
    let name = path.display().to_string();
    let error = |kind| NpyError {
        file: name.clone(),
        kind,
    };
    let io = |what: &str, e: std::io::Error| error(NpyErrorKind::Io(format!("cannot {what}: {e}")));
    let mut file = std::fs::File::open(path).map_err(|e| io("read", e))?;
    let size = file.metadata().map_err(|e| io("read", e))?.len();
    let mut head = Vec::new();
    (&mut file)
        .take(header::PREFIX_LEN as u64)
        .read_to_end(&mut head)
        .map_err(|e| io("read", e))?;
    let data_start = header::data_start(&head).map_err(error)?;
    if data_start as u64 > size {
        return Err(error(NpyErrorKind::Truncated("the header")));
    }
    if data_start > head.len() {
        let more = data_start - head.len();
        head.resize(data_start, 0);
        file.read_exact(&mut head[data_start - more..])
            .map_err(|e| io("read", e))?;
    } else {
        // The header is shorter than the prefix read: go back to the data's start.
        file.seek(std::io::SeekFrom::Start(data_start as u64))
            .map_err(|e| io("read", e))?;
    }
    let (header, _) = header::parse(&head[..data_start]).map_err(error)?;
    let data_len = usize::try_from(size - data_start as u64)
        .map_err(|_| error(NpyErrorKind::TooLarge(header.shape.clone())))?;
    let layout = Layout::of(&header, expected, data_len).map_err(error)?;
    Ok(NpyFile {
        path: name,
        header,
        layout,
        file,
    })
}

impl NpyFile {
    /// The array's type.
    pub fn ty(&self) -> &TensorType {
        &self.layout.ty
    }

    /// True when the file holds the array's dense little-endian C-order bytes as they are
    /// (little-endian or one-byte elements, C order, not booleans or sub-byte integers, which
    /// are normalised): [`NpyFile::read_dense_le_into`] reads them straight into place.
    pub fn is_dense_le(&self) -> bool {
        self.layout.is_dense_le(&self.header)
    }

    /// Reads the data into `dst`, which must be exactly its size
    /// (`ty().num_elements() × dtype.byte_size()` bytes), for files that are
    /// [`NpyFile::is_dense_le`]; otherwise an error (read those with [`NpyFile::read_raw`]).
    pub fn read_dense_le_into(&mut self, dst: &mut [u8]) -> Result<(), NpyError> {
        use std::io::Read;
        let kind = if !self.is_dense_le() {
            Some(NpyErrorKind::Io(
                "the data needs converting; read it as a whole array".into(),
            ))
        } else if dst.len() != self.layout.len {
            Some(NpyErrorKind::Io(format!(
                "the data is {} bytes, not the {} given for it",
                self.layout.len,
                dst.len()
            )))
        } else {
            self.file
                .read_exact(dst)
                .err()
                .map(|e| NpyErrorKind::Io(format!("cannot read: {e}")))
        };
        match kind {
            None => Ok(()),
            Some(kind) => Err(NpyError {
                file: self.path.clone(),
                kind,
            }),
        }
    }

    /// Reads the data as a [`RawArray`], whatever its layout.
    pub fn read_raw(self) -> Result<RawArray, NpyError> {
        use std::io::Read;
        let NpyFile {
            path,
            header,
            layout,
            mut file,
        } = self;
        let error = |kind| NpyError {
            file: path.clone(),
            kind,
        };
        let mut bytes = vec![0u8; layout.len];
        file.read_exact(&mut bytes)
            .map_err(|e| error(NpyErrorKind::Io(format!("cannot read: {e}"))))?;
        let bytes = normalise(&header, &layout, bytes).map_err(error)?;
        Ok(RawArray {
            ty: layout.ty,
            bytes,
        })
    }
}

/// Encodes a tensor as the bytes of a `.npy` file (C order, little-endian).
pub fn to_bytes(tensor: &Tensor) -> Vec<u8> {
    let mut out = header_bytes(tensor.ty());
    out.extend_from_slice(&tensor.to_le_bytes());
    out
}

/// The header `np.save` writes for an array of type `ty`.
fn header_bytes(ty: &TensorType) -> Vec<u8> {
    header::format(&Header {
        element: descr::element_type_of(ty.dtype),
        big_endian: false,
        fortran_order: false,
        shape: ty.shape.iter().map(|&d| d.max(0) as usize).collect(),
    })
}

/// Reads a `.npy` file into a tensor; errors name the file.
pub fn read(path: &Path, expected: Option<DType>) -> Result<Tensor, NpyError> {
    let array = read_raw(path, expected)?;
    Tensor::from_le_bytes(array.ty, &array.bytes).map_err(|e| NpyError {
        file: path.display().to_string(),
        kind: NpyErrorKind::BadHeader(e.to_string()),
    })
}

/// Reads a `.npy` file into a [`RawArray`] (the header, then the data into a vector of its
/// size); errors name the file.
pub fn read_raw(path: &Path, expected: Option<DType>) -> Result<RawArray, NpyError> {
    open(path, expected)?.read_raw()
}

/// Writes a tensor to a `.npy` file; errors name the file.
pub fn write(path: &Path, tensor: &Tensor) -> Result<(), NpyError> {
    write_raw(path, tensor.ty(), &tensor.to_le_bytes())
}

/// Writes dense little-endian C-order bytes of an array of type `ty` as a `.npy` file (the
/// header, then the bytes as they are); errors name the file. The file appears whole or not
/// at all: it is written beside `path` and renamed into place, so a failed write leaves what
/// was there before.
pub fn write_raw(path: &Path, ty: &TensorType, le_bytes: &[u8]) -> Result<(), NpyError> {
    let error = |kind| NpyError {
        file: path.display().to_string(),
        kind,
    };
    let staged = stage_raw(path, ty, le_bytes)?;
    staged
        .persist(path)
        .map(|_| ())
        .map_err(|e| error(NpyErrorKind::Io(format!("cannot write: {}", e.error))))
}

/// The `.npy` file for `path` written completely to a temporary file beside it, not yet in
/// place: [`tempfile::NamedTempFile::persist`] renames it over `path` (replacing a symlink
/// there rather than writing through it), and dropping it removes it. Writing several
/// files all-or-nothing stages them all first. Errors name `path`.
pub fn stage_raw(
    path: &Path,
    ty: &TensorType,
    le_bytes: &[u8],
) -> Result<tempfile::NamedTempFile, NpyError> {
    let error = |kind| NpyError {
        file: path.display().to_string(),
        kind,
    };
    let expected = ty.num_elements().saturating_mul(ty.dtype.byte_size());
    if le_bytes.len() != expected {
        return Err(error(NpyErrorKind::Io(format!(
            "cannot write {} bytes as {ty}, which takes {expected}",
            le_bytes.len()
        ))));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let write = || -> std::io::Result<tempfile::NamedTempFile> {
        let mut file = tempfile::Builder::new()
            .prefix(".systolic-")
            .suffix(".npy.tmp")
            .tempfile_in(dir)?;
        file.write_all(&header_bytes(ty))?;
        file.write_all(le_bytes)?;
        file.as_file().sync_all()?;
        Ok(file)
    };
    write().map_err(|e| error(NpyErrorKind::Io(format!("cannot write: {e}"))))
}

/// Reorders column-major element bytes to row-major.
fn fortran_to_c_order(data: &[u8], shape: &[usize], width: usize) -> Vec<u8> {
    let rank = shape.len();
    // Column-major strides in elements: the first index varies fastest.
    let mut f_strides = vec![1usize; rank];
    for k in 1..rank {
        f_strides[k] = f_strides[k - 1] * shape[k - 1];
    }
    let count = data.len() / width.max(1);
    let mut out = Vec::with_capacity(data.len());
    let mut index = vec![0usize; rank];
    for _ in 0..count {
        let src: usize = index.iter().zip(&f_strides).map(|(i, s)| i * s).sum();
        out.extend_from_slice(&data[src * width..(src + 1) * width]);
        // Advance the row-major multi-index: the last index varies fastest.
        for k in (0..rank).rev() {
            index[k] += 1;
            if index[k] < shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::Data;

    fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let dict = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}\n",
            if fortran { "True" } else { "False" }
        );
        let mut out = header::MAGIC.to_vec();
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn every_dtype_round_trips() {
        for d in DType::ALL {
            let t = Tensor::from_bits(TensorType::new(vec![2, 2], d), &[0, 1, 2, 3]).unwrap();
            let back = from_bytes(&to_bytes(&t), Some(d)).unwrap();
            assert_eq!(back, t, "{d}");
        }
    }

    #[test]
    fn bf16_as_ml_dtypes_saves_it() {
        // np.save(f, np.array([1.0, -2.5], ml_dtypes.bfloat16)): descr '<V2', raw bf16 bits.
        let bytes = npy("<V2", false, "(2,)", &[0x80, 0x3f, 0x20, 0xc0]);
        let t = from_bytes(&bytes, None).unwrap();
        assert_eq!(t.dtype(), DType::BF16);
        assert_eq!(t.data(), &Data::Float(vec![1.0, -2.5]));
        assert_eq!(to_bytes(&t), {
            let mut v = header::format(&Header {
                element: ElementType::Raw(2),
                big_endian: false,
                fortran_order: false,
                shape: vec![2],
            });
            v.extend_from_slice(&[0x80, 0x3f, 0x20, 0xc0]);
            v
        });
    }

    #[test]
    fn narrow_floats_as_ml_dtypes_saves_them() {
        // np.save(f, np.array([1, 2, nan], ml_dtypes.float8_e4m3fn)) writes '<V1' and the
        // codes; np.array([1, 2, 3], ml_dtypes.float4_e2m1fn) the codes in the low bits. The
        // file does not name the type: the reader must be told it (`systolic run` takes it
        // from the program's parameter types).
        let f8 = npy("<V1", false, "(3,)", &[56, 64, 127]);
        let t = from_bytes(&f8, Some(DType::F8E4M3FN)).unwrap();
        assert_eq!(t.dtype(), DType::F8E4M3FN);
        let v = t.to_f64_vec();
        assert_eq!(&v[..2], &[1.0, 2.0]);
        assert!(v[2].is_nan());
        let written = to_bytes(&t);
        // What np.save writes: a 128-byte header naming '<V1', then the codes.
        assert_eq!(written.len(), 128 + 3);
        assert!(String::from_utf8_lossy(&written[..128]).contains("'descr': '<V1'"));
        assert_eq!(&written[128..], &[56, 64, 127]);
        let f4 = npy("<V1", false, "(3,)", &[2, 4, 5]);
        let t = from_bytes(&f4, Some(DType::F4E2M1FN)).unwrap();
        assert_eq!(t.to_f64_vec(), vec![1.0, 2.0, 3.0]);
        assert_eq!(&to_bytes(&t)[128..], &[2, 4, 5]);
        // The same bytes read as another f8 type are other numbers; without a type, an error.
        let e5 = from_bytes(&f8, Some(DType::F8E5M2)).unwrap().to_f64_vec();
        assert_eq!(&e5[..2], &[0.5, 2.0]);
        let e = from_bytes(&f8, None).unwrap_err().to_string();
        assert!(e.contains("float8"), "{e}");
        // float8_e5m2 is saved with its own type string '<f1'.
        let e5m2 = from_bytes(&npy("<f1", false, "(2,)", &[0x3c, 0xfc]), None).unwrap();
        assert_eq!(e5m2.dtype(), DType::F8E5M2);
        assert_eq!(e5m2.to_f64_vec(), vec![1.0, f64::NEG_INFINITY]);
        // An f4 byte with bits above its four is not an f4 value.
        assert!(from_bytes(&npy("<V1", false, "(1,)", &[0x12]), Some(DType::F4E2M1FN)).is_err());
    }

    #[test]
    fn fortran_order_is_reordered() {
        // np.asfortranarray(np.arange(6, dtype=np.int8).reshape(2, 3)) stores 0 3 1 4 2 5.
        let bytes = npy("|i1", true, "(2, 3)", &[0, 3, 1, 4, 2, 5]);
        let t = from_bytes(&bytes, None).unwrap();
        assert_eq!(t.shape(), &[2, 3]);
        assert_eq!(t.data(), &Data::Int(vec![0, 1, 2, 3, 4, 5]));
    }

    #[test]
    fn big_endian_and_bool() {
        let bytes = npy(">i2", false, "(2,)", &[0x01, 0x02, 0xff, 0xfe]);
        let t = from_bytes(&bytes, None).unwrap();
        assert_eq!(t.data(), &Data::Int(vec![0x0102, -2]));
        let bytes = npy("|b1", false, "(3,)", &[0, 1, 7]);
        let t = from_bytes(&bytes, None).unwrap();
        assert_eq!(t.data(), &Data::Bool(vec![false, true, true]));
    }

    #[test]
    fn scalar_and_empty() {
        let t = from_bytes(&npy("<f8", false, "()", &2.5f64.to_le_bytes()), None).unwrap();
        assert_eq!(t.shape(), &[] as &[i64]);
        assert_eq!(t.data(), &Data::Float(vec![2.5]));
        let t = from_bytes(&npy("<f4", false, "(0, 3)", &[]), None).unwrap();
        assert_eq!(t.shape(), &[0, 3]);
    }

    #[test]
    fn wrong_data_length_is_reported() {
        let err = from_bytes(&npy("<f4", false, "(2,)", &[0; 7]), None).unwrap_err();
        assert!(
            matches!(
                err,
                NpyErrorKind::DataLength {
                    expected: 8,
                    got: 7,
                    ..
                }
            ),
            "{err}"
        );
        let err = from_bytes(&npy("<f4", false, "(2,)", &[0; 9]), None).unwrap_err();
        assert!(matches!(
            err,
            NpyErrorKind::DataLength {
                expected: 8,
                got: 9,
                ..
            }
        ));
    }

    #[test]
    fn damaged_files_give_errors_not_panics() {
        let t = Tensor::from_f32(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let good = to_bytes(&t);
        for len in 0..good.len() {
            assert!(
                from_bytes(&good[..len], None).is_err(),
                "truncated to {len}"
            );
        }
        for pos in 0..good.len() {
            for value in [0u8, b' ', b'(', b'\'', b'9', b'-', 0xff] {
                let mut bad = good.clone();
                bad[pos] = value;
                // Any outcome but a panic is fine; a changed data byte still decodes.
                let _ = from_bytes(&bad, None);
            }
        }
    }

    /// Files in every layout the reader normalises (byte order, Fortran order, booleans,
    /// void bf16, a scalar, an empty array, sub-byte integers), with the dtype to expect, and
    /// whether their data bytes already are the array's dense little-endian bytes.
    fn layout_cases() -> Vec<(Vec<u8>, Option<DType>, bool)> {
        vec![
            (
                npy("<f4", false, "(2,)", &[0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0]),
                None,
                true,
            ),
            (
                npy(">i2", false, "(2,)", &[0x01, 0x02, 0xff, 0xfe]),
                None,
                false,
            ),
            (npy("|i1", true, "(2, 3)", &[0, 3, 1, 4, 2, 5]), None, false),
            (npy("|i1", true, "(3,)", &[0, 3, 1]), None, true),
            (npy("|b1", false, "(3,)", &[0, 1, 7]), None, false),
            (
                npy("<V2", false, "(2,)", &[0x80, 0x3f, 0x20, 0xc0]),
                Some(DType::BF16),
                true,
            ),
            (npy("<f8", false, "()", &2.5f64.to_le_bytes()), None, true),
            (npy("<f4", false, "(0, 3)", &[]), None, true),
            // Sub-byte integers as their low bits and sign-extended (-8, -1, 0, -1, -8).
            (
                npy("<V1", false, "(5,)", &[8, 15, 0, 0xff, 0xf8]),
                Some(DType::I4),
                false,
            ),
            (
                npy("<V1", false, "(2,)", &[0x03, 0x01]),
                Some(DType::U2),
                false,
            ),
        ]
    }

    #[test]
    fn raw_arrays_match_tensors_for_every_layout() {
        // Each case decodes to the same bytes the tensor path gives, in C order, little-endian.
        for (bytes, expected, _) in layout_cases() {
            let t = from_bytes(&bytes, expected).unwrap();
            let raw = decode(bytes, expected).unwrap();
            assert_eq!(&raw.ty, t.ty());
            assert_eq!(raw.bytes, t.to_le_bytes(), "{}", t.ty());
        }
    }

    #[test]
    fn opened_files_read_as_whole_files_decode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("case.npy");
        let mut cases = layout_cases();
        // A version 2.0 header (a 4-byte length), and one longer than the 12 bytes `open`
        // reads first.
        let mut v2 = npy("<f4", false, "(1,)", &1.0f32.to_le_bytes());
        v2[6] = 2;
        v2.splice(8..10, [v2[8], v2[9], 0, 0]);
        cases.push((v2, None, true));
        for (bytes, expected, dense) in cases {
            std::fs::write(&path, &bytes).unwrap();
            let whole = decode(bytes, expected).unwrap();
            let file = open(&path, expected).unwrap();
            assert_eq!(file.ty(), &whole.ty);
            assert_eq!(file.is_dense_le(), dense, "{}", whole.ty);
            assert_eq!(file.read_raw().unwrap(), whole);
            let mut file = open(&path, expected).unwrap();
            let mut into = vec![0u8; whole.bytes.len()];
            let read = file.read_dense_le_into(&mut into);
            if dense {
                read.unwrap();
                assert_eq!(into, whole.bytes, "{}", whole.ty);
            } else {
                let err = read.unwrap_err().to_string();
                assert!(
                    err.contains("case.npy") && err.contains("converting"),
                    "{err}"
                );
            }
        }
    }

    #[test]
    fn opened_files_check_their_size_and_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.npy");
        let t = Tensor::from_f32(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let good = to_bytes(&t);
        let (_, data_start) = header::parse(&good).unwrap();
        // Every cut is refused without a panic; a cut in the data names both lengths.
        for len in 0..good.len() {
            std::fs::write(&path, &good[..len]).unwrap();
            let err = open(&path, None).unwrap_err();
            assert!(err.to_string().contains("cut.npy"), "{err}");
            if len >= data_start {
                assert!(
                    matches!(err.kind, NpyErrorKind::DataLength { expected: 24, got, .. }
                        if got == len - data_start),
                    "{err}"
                );
            }
        }
        let mut long = good.clone();
        long.push(0);
        std::fs::write(&path, &long).unwrap();
        let err = open(&path, None).unwrap_err();
        assert!(
            matches!(err.kind, NpyErrorKind::DataLength { got: 25, .. }),
            "{err}"
        );
        // A destination of the wrong size is refused before anything is read into it.
        std::fs::write(&path, &good).unwrap();
        let mut file = open(&path, None).unwrap();
        let err = file
            .read_dense_le_into(&mut [0u8; 20])
            .unwrap_err()
            .to_string();
        assert!(err.contains("24 bytes") && err.contains("20"), "{err}");
        let mut into = vec![0u8; 24];
        file.read_dense_le_into(&mut into).unwrap();
        assert_eq!(into, t.to_le_bytes());
    }

    /// Issue 20, item 11: an int4 byte 0x7F silently read as -1 (its low bits). A byte that
    /// is neither a value's low bits nor their sign extension is refused, naming the element
    /// and the byte. (Found by fuzzing first: bits above the width were masked.)
    #[test]
    fn sub_byte_elements_out_of_their_range_are_refused() {
        for (bytes, dtype, index, byte) in [
            (vec![0u8, 0x7f], DType::I4, 1, 0x7f),
            (vec![8, 15, 0, 135], DType::I4, 3, 0x87),
            (vec![0x01, 0xf0], DType::I4, 1, 0xf0),
            (vec![0xfe, 0x07], DType::U2, 0, 0xfe),
            (vec![0x10], DType::U4, 0, 0x10),
            (vec![0xfe, 0x04], DType::I2, 1, 0x04),
        ] {
            let shape = format!("({},)", bytes.len());
            let file = npy("<V1", false, &shape, &bytes);
            let err = from_bytes(&file, Some(dtype)).unwrap_err();
            assert_eq!(
                err,
                NpyErrorKind::SubByteOutOfRange {
                    index,
                    byte,
                    dtype: dtype.numpy_name().to_string()
                },
                "{bytes:?} as {dtype}"
            );
            assert!(err.to_string().contains("holds no"), "{err}");
        }
    }

    #[test]
    fn raw_writes_are_what_np_save_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("raw.npy");
        let t = Tensor::from_f32(vec![2, 1], vec![0.25, -8.0]);
        write_raw(&path, t.ty(), &t.to_le_bytes()).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), to_bytes(&t));
        assert_eq!(read_raw(&path, None).unwrap().bytes, t.to_le_bytes());
        let err = write_raw(&path, t.ty(), &[0; 7]).unwrap_err().to_string();
        assert!(err.contains("raw.npy") && err.contains("7 bytes"), "{err}");
    }

    #[test]
    fn file_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing.npy");
        let err = read(&path, None).unwrap_err();
        assert!(
            err.to_string().starts_with(&path.display().to_string()),
            "{err}"
        );
        let bad = dir.path().join("bad.npy");
        std::fs::write(&bad, b"hello").unwrap();
        let err = read(&bad, None).unwrap_err().to_string();
        assert!(
            err.contains("bad.npy") && err.contains("not a .npy file"),
            "{err}"
        );
        let t = Tensor::from_f32(vec![3], vec![1.0, 2.0, 3.0]);
        let good = dir.path().join("good.npy");
        write(&good, &t).unwrap();
        assert_eq!(read(&good, None).unwrap(), t);
    }
}
