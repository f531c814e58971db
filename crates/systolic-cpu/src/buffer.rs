//! Dense host buffers in their native element types: what CPU kernels read and write.
//!
//! Unlike [`systolic_ir::Tensor`] (exact values stored by kind, for the interpreter), a
//! [`CpuBuffer`] stores each dtype in its own Rust type so kernels run at machine speed. The
//! sub-byte integer types (i2, i4, u2, u4) are stored one per byte in `i8`/`u8`, as XLA's host
//! literals do; complex numbers as `num_complex`'s pairs (real part first, numpy's layout).

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use systolic_ir::{DType, Tensor, TensorType};

/// Elements of a buffer, row-major, in their native type.
#[derive(Clone, Debug, PartialEq)]
pub enum Storage {
    /// `i1`.
    Bool(Vec<bool>),
    /// `i2`, `i4`, `i8` (narrow types hold values in their range).
    I8(Vec<i8>),
    /// `i16`.
    I16(Vec<i16>),
    /// `i32`.
    I32(Vec<i32>),
    /// `i64`.
    I64(Vec<i64>),
    /// `ui2`, `ui4`, `ui8`.
    U8(Vec<u8>),
    /// `ui16`.
    U16(Vec<u16>),
    /// `ui32`.
    U32(Vec<u32>),
    /// `ui64`.
    U64(Vec<u64>),
    /// `f16`.
    F16(Vec<f16>),
    /// `bf16`.
    BF16(Vec<bf16>),
    /// `f32`.
    F32(Vec<f32>),
    /// `f64`.
    F64(Vec<f64>),
    /// `complex<f32>`.
    C64(Vec<Complex32>),
    /// `complex<f64>`.
    C128(Vec<Complex64>),
}

/// Runs `$body` with `$v` bound to the typed vector inside a [`Storage`] (by reference or by
/// mutable reference, following how `$storage` is passed).
#[macro_export]
macro_rules! with_storage {
    ($storage:expr, $v:ident => $body:expr) => {
        match $storage {
            $crate::buffer::Storage::Bool($v) => $body,
            $crate::buffer::Storage::I8($v) => $body,
            $crate::buffer::Storage::I16($v) => $body,
            $crate::buffer::Storage::I32($v) => $body,
            $crate::buffer::Storage::I64($v) => $body,
            $crate::buffer::Storage::U8($v) => $body,
            $crate::buffer::Storage::U16($v) => $body,
            $crate::buffer::Storage::U32($v) => $body,
            $crate::buffer::Storage::U64($v) => $body,
            $crate::buffer::Storage::F16($v) => $body,
            $crate::buffer::Storage::BF16($v) => $body,
            $crate::buffer::Storage::F32($v) => $body,
            $crate::buffer::Storage::F64($v) => $body,
            $crate::buffer::Storage::C64($v) => $body,
            $crate::buffer::Storage::C128($v) => $body,
        }
    };
}

impl Storage {
    /// `n` zeros of the storage type of `dtype`. Every variant comes from a zeroed
    /// allocation: `vec![zero; n]` of a type the standard library does not know to be all
    /// zero bits (half floats, complex numbers) writes each element, so a large vector's pages
    /// were all touched (faulted in and written) here instead of left to the kernel's zeroing
    /// on first use, as `calloc`'s fresh mappings are.
    pub fn zeros(dtype: DType, n: usize) -> Storage {
        match dtype {
            DType::Bool => Storage::Bool(vec![false; n]),
            DType::I2 | DType::I4 | DType::I8 => Storage::I8(vec![0; n]),
            DType::I16 => Storage::I16(vec![0; n]),
            DType::I32 => Storage::I32(vec![0; n]),
            DType::I64 => Storage::I64(vec![0; n]),
            DType::U2 | DType::U4 | DType::U8 => Storage::U8(vec![0; n]),
            DType::U16 => Storage::U16(vec![0; n]),
            DType::U32 => Storage::U32(vec![0; n]),
            DType::U64 => Storage::U64(vec![0; n]),
            DType::F16 => Storage::F16(bytemuck::zeroed_vec(n)),
            DType::BF16 => Storage::BF16(bytemuck::zeroed_vec(n)),
            DType::F32 => Storage::F32(vec![0.0; n]),
            DType::F64 => Storage::F64(vec![0.0; n]),
            DType::C64 => Storage::C64(bytemuck::zeroed_vec(n)),
            DType::C128 => Storage::C128(bytemuck::zeroed_vec(n)),
            // Narrow floats (f8/f6/f4) are held as their codes, one byte each (code 0 is +0,
            // or 2^-127 in f8E8M0FNU, which has no zero); every op on them runs on the
            // interpreter fallback, which reads and writes the codes.
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
            | DType::F4E2M1FN => Storage::U8(vec![0; n]),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_storage!(self, v => v.len())
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when this storage type is the one `dtype` uses.
    pub fn holds(&self, dtype: DType) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(&Storage::zeros(dtype, 0))
    }
}

/// A dense tensor in host memory with native element types.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuBuffer {
    ty: TensorType,
    storage: Storage,
}

/// A buffer whose storage does not fit its type.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("storage of {got} elements of another type does not fit {ty}")]
pub struct StorageMismatch {
    /// The type asked for.
    pub ty: TensorType,
    /// Elements in the storage.
    pub got: usize,
}

impl CpuBuffer {
    /// A buffer from a type and matching storage.
    pub fn new(ty: TensorType, storage: Storage) -> Result<CpuBuffer, StorageMismatch> {
        if storage.len() != ty.num_elements() || !storage.holds(ty.dtype) {
            return Err(StorageMismatch {
                got: storage.len(),
                ty,
            });
        }
        Ok(CpuBuffer { ty, storage })
    }

    /// Moves the storage out, leaving an empty buffer (shape `[0]`) behind: for a value's
    /// last holder that has it only by reference (an [`crate::Arg`] being dropped).
    pub(crate) fn take_storage(&mut self) -> Storage {
        let dtype = self.ty.dtype;
        self.ty = TensorType::new(vec![0], dtype);
        std::mem::replace(&mut self.storage, Storage::zeros(dtype, 0))
    }

    /// A zero-filled buffer.
    pub fn zeros(ty: TensorType) -> CpuBuffer {
        let storage = Storage::zeros(ty.dtype, ty.num_elements());
        CpuBuffer { ty, storage }
    }

    /// An f32 buffer.
    ///
    /// ```
    /// use systolic_cpu::CpuBuffer;
    /// let b = CpuBuffer::from_f32(vec![2], vec![1.0, 2.0]);
    /// assert_eq!(b.as_f32().unwrap(), &[1.0, 2.0]);
    /// ```
    pub fn from_f32(shape: Vec<i64>, values: Vec<f32>) -> CpuBuffer {
        CpuBuffer::new(TensorType::new(shape, DType::F32), Storage::F32(values))
            .expect("element count matches shape")
    }

    /// The type.
    pub fn ty(&self) -> &TensorType {
        &self.ty
    }

    /// True when the buffer has type `ty`: `self.ty() == ty`, compared field by field without
    /// a call into the C library's `memcmp` for the shape. The executor checks every kernel's
    /// results and every fused loop its operands this way; in a loop body of a dozen kernels
    /// on scalars, comparing through `memcmp` was a tenth of the run time.
    #[inline]
    pub fn has_type(&self, ty: &TensorType) -> bool {
        let (a, b) = (&self.ty, ty);
        a.dtype == b.dtype
            && a.shape.len() == b.shape.len()
            && a.shape.iter().zip(&b.shape).all(|(x, y)| x == y)
            && match (&a.quant, &b.quant) {
                (None, None) => true,
                (Some(x), Some(y)) => std::sync::Arc::ptr_eq(x, y) || x == y,
                _ => false,
            }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.ty.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[i64] {
        &self.ty.shape
    }

    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.storage.len()
    }

    /// The elements.
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The elements, mutably (the type cannot change).
    pub fn storage_mut(&mut self) -> &mut Storage {
        &mut self.storage
    }

    /// Splits into type and storage.
    pub fn into_parts(self) -> (TensorType, Storage) {
        (self.ty, self.storage)
    }

    /// The same storage viewed with another shape of equal element count (no copy).
    pub fn reshaped(self, shape: Vec<i64>) -> Result<CpuBuffer, StorageMismatch> {
        let ty = TensorType::new(shape, self.ty.dtype);
        CpuBuffer::new(ty, self.storage)
    }

    /// The address of the first element: which memory holds the data (two buffers with the
    /// same address share it; an in-place update keeps its operand's). For tests and
    /// diagnostics, never for reading through.
    pub fn data_address(&self) -> usize {
        with_storage!(&self.storage, v => v.as_ptr() as usize)
    }

    /// The f32 elements, if this is an f32 buffer.
    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.storage {
            Storage::F32(v) => Some(v),
            _ => None,
        }
    }

    /// Copies from an exact interpreter tensor (values are already representable).
    pub fn from_tensor(t: &Tensor) -> CpuBuffer {
        let ty = t.ty().clone();
        let bytes = t.to_le_bytes();
        let storage = storage_from_le_bytes(ty.dtype, &bytes);
        CpuBuffer { ty, storage }
    }

    /// Copies from dense little-endian bytes in C order (numpy's layout: one byte per element
    /// for `i1` and the sub-byte integer types, of which only the low bits count), as a `.npy`
    /// file holds them. One pass, no per-element exact values in between.
    ///
    /// ```
    /// use systolic_cpu::CpuBuffer;
    /// use systolic_ir::{DType, TensorType};
    /// let ty = TensorType::new(vec![2], DType::F32);
    /// let bytes: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    /// let b = CpuBuffer::from_le_bytes(ty, &bytes).unwrap();
    /// assert_eq!(b.as_f32(), Some(&[1.5f32, -2.0][..]));
    /// assert_eq!(b.to_le_bytes(), bytes);
    /// ```
    pub fn from_le_bytes(ty: TensorType, bytes: &[u8]) -> Result<CpuBuffer, ByteCountMismatch> {
        let expected = ty.num_elements() * ty.dtype.byte_size();
        if bytes.len() != expected {
            return Err(ByteCountMismatch {
                ty,
                got: bytes.len(),
            });
        }
        let storage = storage_from_le_bytes(ty.dtype, bytes);
        Ok(CpuBuffer { ty, storage })
    }

    /// True when [`CpuBuffer::from_le_fill`] reads a `dtype`'s bytes in place: on little-endian
    /// hosts, for the types whose storage holds each element as exactly its little-endian
    /// bytes (not booleans, sub-byte types or the narrow floats, which are converted).
    pub fn reads_le_in_place(dtype: DType) -> bool {
        cfg!(target_endian = "little")
            && matches!(
                dtype,
                DType::I8
                    | DType::I16
                    | DType::I32
                    | DType::I64
                    | DType::U8
                    | DType::U16
                    | DType::U32
                    | DType::U64
                    | DType::F16
                    | DType::BF16
                    | DType::F32
                    | DType::F64
                    | DType::C64
                    | DType::C128
            )
    }

    /// A buffer of `ty` whose storage `fill` writes in place as its dense little-endian bytes
    /// (numpy's layout; exactly `ty`'s byte size): a file read straight into the buffer takes
    /// half the memory of reading its bytes and converting them
    /// ([`CpuBuffer::from_le_bytes`]). `None`, without calling `fill`, for the dtypes
    /// [`CpuBuffer::reads_le_in_place`] refuses.
    ///
    /// ```
    /// use systolic_cpu::CpuBuffer;
    /// use systolic_ir::{DType, Tensor, TensorType};
    /// let ty = TensorType::new(vec![2], DType::F32);
    /// let bytes = [1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat();
    /// let filled = CpuBuffer::from_le_fill(ty, |dst| {
    ///     dst.copy_from_slice(&bytes);
    ///     Ok::<(), ()>(())
    /// });
    /// let buffer = filled.unwrap().unwrap();
    /// assert_eq!(buffer.to_tensor(), Tensor::from_f32(vec![2], vec![1.5, -2.0]));
    /// ```
    pub fn from_le_fill<E>(
        ty: TensorType,
        fill: impl FnOnce(&mut [u8]) -> Result<(), E>,
    ) -> Option<Result<CpuBuffer, E>> {
        if !CpuBuffer::reads_le_in_place(ty.dtype) {
            return None;
        }
        // Every element is written by `fill`: a pooled vector's stale values do not matter.
        let mut storage = crate::pool::take(ty.dtype, ty.num_elements());
        let bytes: &mut [u8] = match &mut storage {
            Storage::I8(v) => bytemuck::cast_slice_mut(v),
            Storage::I16(v) => bytemuck::cast_slice_mut(v),
            Storage::I32(v) => bytemuck::cast_slice_mut(v),
            Storage::I64(v) => bytemuck::cast_slice_mut(v),
            Storage::U8(v) => v,
            Storage::U16(v) => bytemuck::cast_slice_mut(v),
            Storage::U32(v) => bytemuck::cast_slice_mut(v),
            Storage::U64(v) => bytemuck::cast_slice_mut(v),
            Storage::F16(v) => bytemuck::cast_slice_mut(v),
            Storage::BF16(v) => bytemuck::cast_slice_mut(v),
            Storage::F32(v) => bytemuck::cast_slice_mut(v),
            Storage::F64(v) => bytemuck::cast_slice_mut(v),
            Storage::C64(v) => bytemuck::cast_slice_mut(v),
            Storage::C128(v) => bytemuck::cast_slice_mut(v),
            Storage::Bool(_) => return None,
        };
        Some(fill(bytes).map(|()| CpuBuffer { ty, storage }))
    }

    /// Copies into an exact interpreter tensor.
    pub fn to_tensor(&self) -> Tensor {
        Tensor::from_le_bytes(self.ty.clone(), &self.to_le_bytes())
            .expect("a CpuBuffer's bytes always fit its type")
    }

    /// The dense little-endian bytes (numpy's layout).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match &self.storage {
            Storage::Bool(v) => v.iter().map(|&b| b as u8).collect(),
            Storage::I8(v) => {
                // Sub-byte signed types leave only their low bits, as the exact tensors do.
                let mask = (((1u16 << self.ty.dtype.bit_width()) - 1) & 0xff) as u8;
                v.iter().map(|&x| x as u8 & mask).collect()
            }
            Storage::U8(v) => v.clone(),
            Storage::I16(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::I32(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::I64(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::U16(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::U32(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::U64(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::F16(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::BF16(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::F32(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::F64(v) => le_bytes(v, |x| x.to_le_bytes()),
            Storage::C64(v) => le_bytes(v, |z| {
                let mut b = [0u8; 8];
                b[..4].copy_from_slice(&z.re.to_le_bytes());
                b[4..].copy_from_slice(&z.im.to_le_bytes());
                b
            }),
            Storage::C128(v) => le_bytes(v, |z| {
                let mut b = [0u8; 16];
                b[..8].copy_from_slice(&z.re.to_le_bytes());
                b[8..].copy_from_slice(&z.im.to_le_bytes());
                b
            }),
        }
    }
}

/// Bytes that do not fill a buffer's type exactly.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{got} bytes do not fit {ty}, which takes {}", .ty.num_elements() * .ty.dtype.byte_size())]
pub struct ByteCountMismatch {
    /// The type asked for.
    pub ty: TensorType,
    /// Bytes given.
    pub got: usize,
}

/// The little-endian bytes of `v`: on a little-endian machine the memory as it is (one copy).
fn le_bytes<T: bytemuck::Pod, const N: usize>(v: &[T], to_le: fn(&T) -> [u8; N]) -> Vec<u8> {
    if cfg!(target_endian = "little") {
        bytemuck::cast_slice(v).to_vec()
    } else {
        v.iter().flat_map(to_le).collect()
    }
}

/// Elements from little-endian bytes (a whole number of them, checked by the caller): on a
/// little-endian machine the bytes as they are (one copy into aligned memory).
fn from_le<T: bytemuck::Pod, const N: usize>(bytes: &[u8], from_le: fn([u8; N]) -> T) -> Vec<T> {
    if cfg!(target_endian = "little") {
        bytemuck::pod_collect_to_vec(bytes)
    } else {
        bytes
            .chunks_exact(N)
            .map(|c| from_le(c.try_into().expect("chunk of N bytes")))
            .collect()
    }
}

/// Builds storage from dense little-endian bytes whose length fits `dtype` (checked by caller).
fn storage_from_le_bytes(dtype: DType, bytes: &[u8]) -> Storage {
    match dtype {
        DType::Bool => Storage::Bool(bytes.iter().map(|&b| b != 0).collect()),
        // Sub-byte signed types arrive as their low bits: sign-extend them to the byte.
        DType::I2 | DType::I4 | DType::I8 => {
            let shift = 8 - dtype.bit_width();
            Storage::I8(
                bytes
                    .iter()
                    .map(|&b| ((b << shift) as i8) >> shift)
                    .collect(),
            )
        }
        // Sub-byte unsigned types keep their low bits (the exact tensors wrap them the same).
        DType::U2 | DType::U4 => {
            let mask = ((1u16 << dtype.bit_width()) - 1) as u8;
            Storage::U8(bytes.iter().map(|&b| b & mask).collect())
        }
        DType::U8 => Storage::U8(bytes.to_vec()),
        // Narrow float codes in their low bits (f4/f6 ignore the bits above their width).
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
        | DType::F4E2M1FN => {
            let mask = ((1u16 << dtype.bit_width()) - 1) as u8;
            Storage::U8(bytes.iter().map(|&b| b & mask).collect())
        }
        DType::I16 => Storage::I16(from_le(bytes, i16::from_le_bytes)),
        DType::I32 => Storage::I32(from_le(bytes, i32::from_le_bytes)),
        DType::I64 => Storage::I64(from_le(bytes, i64::from_le_bytes)),
        DType::U16 => Storage::U16(from_le(bytes, u16::from_le_bytes)),
        DType::U32 => Storage::U32(from_le(bytes, u32::from_le_bytes)),
        DType::U64 => Storage::U64(from_le(bytes, u64::from_le_bytes)),
        DType::F16 => Storage::F16(from_le(bytes, f16::from_le_bytes)),
        DType::BF16 => Storage::BF16(from_le(bytes, bf16::from_le_bytes)),
        DType::F32 => Storage::F32(from_le(bytes, f32::from_le_bytes)),
        DType::F64 => Storage::F64(from_le(bytes, f64::from_le_bytes)),
        DType::C64 => Storage::C64(from_le(bytes, |b: [u8; 8]| {
            let part = |k: usize| f32::from_le_bytes(b[k..k + 4].try_into().expect("4 bytes"));
            Complex32::new(part(0), part(4))
        })),
        DType::C128 => Storage::C128(from_le(bytes, |b: [u8; 16]| {
            let part = |k: usize| f64::from_le_bytes(b[k..k + 8].try_into().expect("8 bytes"));
            Complex64::new(part(0), part(8))
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_round_trip_every_dtype() {
        for dtype in DType::ALL {
            let ty = TensorType::new(vec![2, 2], dtype);
            let t = Tensor::from_bits(ty, &[0, 1, 2, 3]).unwrap();
            let b = CpuBuffer::from_tensor(&t);
            assert!(b.storage().holds(dtype), "{dtype}");
            assert_eq!(b.to_tensor(), t, "{dtype}");
        }
    }

    #[test]
    fn narrow_signed_values_keep_their_sign() {
        let t = Tensor::from_i64(vec![3], DType::I4, vec![-3, 7, -8]).unwrap();
        let b = CpuBuffer::from_tensor(&t);
        assert_eq!(b.storage(), &Storage::I8(vec![-3, 7, -8]));
        assert_eq!(b.to_tensor(), t);
        assert_eq!(b.to_le_bytes(), t.to_le_bytes());
        let t = Tensor::from_i64(vec![2], DType::I2, vec![-2, 1]).unwrap();
        assert_eq!(
            CpuBuffer::from_tensor(&t).storage(),
            &Storage::I8(vec![-2, 1])
        );
    }

    #[test]
    fn le_fill_reads_the_common_types_in_place_and_passes_errors_on() {
        for dtype in [DType::F32, DType::BF16, DType::C64, DType::I8, DType::U64] {
            assert!(CpuBuffer::reads_le_in_place(dtype), "{dtype}");
        }
        for dtype in [DType::Bool, DType::I4, DType::U2, DType::F8E4M3FN] {
            assert!(!CpuBuffer::reads_le_in_place(dtype), "{dtype}");
        }
        let failed = CpuBuffer::from_le_fill(TensorType::new(vec![2], DType::F32), |_| Err("no"));
        assert_eq!(failed.unwrap().unwrap_err(), "no");
    }

    #[test]
    fn le_bytes_round_trip_every_dtype_and_match_the_tensor_path() {
        for dtype in DType::ALL {
            let ty = TensorType::new(vec![3], dtype);
            let t = Tensor::from_bits(ty.clone(), &[0, 1, 3]).unwrap();
            let bytes = t.to_le_bytes();
            let b = CpuBuffer::from_le_bytes(ty.clone(), &bytes).unwrap();
            assert_eq!(b, CpuBuffer::from_tensor(&t), "{dtype}");
            // Read in place where the storage holds exactly these bytes, the same buffer.
            let mut called = false;
            let filled = CpuBuffer::from_le_fill(ty.clone(), |dst| {
                called = true;
                dst.copy_from_slice(&bytes);
                Ok::<(), ()>(())
            });
            let in_place = CpuBuffer::reads_le_in_place(dtype);
            assert_eq!((filled.is_some(), called), (in_place, in_place), "{dtype}");
            if let Some(filled) = filled {
                assert_eq!(filled.unwrap(), b, "{dtype}");
            }
            assert_eq!(b.to_le_bytes(), bytes, "{dtype}");
            let err = CpuBuffer::from_le_bytes(ty, &bytes[1..]).unwrap_err();
            assert_eq!(err.got, bytes.len() - 1, "{dtype}");
        }
        // Bits above a sub-byte type's width do not count, as for the exact tensors.
        let ty = TensorType::new(vec![2], DType::U4);
        let b = CpuBuffer::from_le_bytes(ty.clone(), &[0xf3, 0x2c]).unwrap();
        assert_eq!(b.storage(), &Storage::U8(vec![3, 12]));
        assert_eq!(
            b.to_tensor(),
            Tensor::from_le_bytes(ty, &[0xf3, 0x2c]).unwrap()
        );
    }

    #[test]
    fn new_checks_storage() {
        let ty = TensorType::new(vec![2], DType::F32);
        assert!(CpuBuffer::new(ty.clone(), Storage::F64(vec![0.0; 2])).is_err());
        assert!(CpuBuffer::new(ty.clone(), Storage::F32(vec![0.0; 3])).is_err());
        assert!(CpuBuffer::new(ty, Storage::F32(vec![0.0; 2])).is_ok());
    }
}
