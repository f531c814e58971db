//! Host tensors with exact per-dtype values: constants in the IR and the values the reference
//! interpreter computes with.
//!
//! Elements are stored by kind, not by width: booleans as `bool`, signed integers as `i64`,
//! unsigned as `u64`, floats as `f64` and complex numbers as pairs of `f64`
//! ([`Complex64`]). Every stored value is representable in the tensor's
//! dtype (an i8 tensor holds values in -128..=127, an f32 tensor holds values that are exactly
//! f32s, a `complex<f32>` tensor pairs of f32s). This makes the interpreter's code one implementation per kind, and keeps it obviously
//! correct; [`crate::numerics`] holds the rounding and wrapping rules.

use crate::dtype::{DType, DTypeKind};
use crate::numerics;
use crate::types::TensorType;
use num_complex::Complex64;
use std::fmt;

/// Elements of a tensor, row-major, stored by kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// `i1`.
    Bool(Vec<bool>),
    /// Signed integers of any width.
    Int(Vec<i64>),
    /// Unsigned integers of any width.
    UInt(Vec<u64>),
    /// Floats of any width.
    Float(Vec<f64>),
    /// Complex numbers of either width (each part a value of the parts' float dtype).
    Complex(Vec<Complex64>),
}

impl Data {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::Bool(v) => v.len(),
            Data::Int(v) => v.len(),
            Data::UInt(v) => v.len(),
            Data::Float(v) => v.len(),
            Data::Complex(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kind these elements are stored as.
    pub fn kind(&self) -> DTypeKind {
        match self {
            Data::Bool(_) => DTypeKind::Bool,
            Data::Int(_) => DTypeKind::Signed,
            Data::UInt(_) => DTypeKind::Unsigned,
            Data::Float(_) => DTypeKind::Float,
            Data::Complex(_) => DTypeKind::Complex,
        }
    }

    /// A new `Data` of the same kind holding the elements at `indices` (in that order).
    pub fn gather(&self, indices: &[usize]) -> Data {
        match self {
            Data::Bool(v) => Data::Bool(indices.iter().map(|&i| v[i]).collect()),
            Data::Int(v) => Data::Int(indices.iter().map(|&i| v[i]).collect()),
            Data::UInt(v) => Data::UInt(indices.iter().map(|&i| v[i]).collect()),
            Data::Float(v) => Data::Float(indices.iter().map(|&i| v[i]).collect()),
            Data::Complex(v) => Data::Complex(indices.iter().map(|&i| v[i]).collect()),
        }
    }

    /// `n` copies of `value`, stored as its kind (not yet converted to any dtype).
    pub fn repeated(value: Scalar, n: usize) -> Data {
        match value {
            Scalar::Bool(b) => Data::Bool(vec![b; n]),
            Scalar::Int(i) => Data::Int(vec![i; n]),
            Scalar::UInt(u) => Data::UInt(vec![u; n]),
            Scalar::Float(x) => Data::Float(vec![x; n]),
            Scalar::Complex(z) => Data::Complex(vec![z; n]),
        }
    }

    /// `n` zeros of the given kind.
    pub fn zeros(kind: DTypeKind, n: usize) -> Data {
        match kind {
            DTypeKind::Bool => Data::Bool(vec![false; n]),
            DTypeKind::Signed => Data::Int(vec![0; n]),
            DTypeKind::Unsigned => Data::UInt(vec![0; n]),
            DTypeKind::Float => Data::Float(vec![0.0; n]),
            DTypeKind::Complex => Data::Complex(vec![Complex64::new(0.0, 0.0); n]),
        }
    }
}

/// One element, for building tensors element by element and for error messages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float.
    Float(f64),
    /// A complex number.
    Complex(Complex64),
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::UInt(u) => write!(f, "{u}"),
            Scalar::Float(x) => write!(f, "{x:?}"),
            Scalar::Complex(z) => write!(f, "({:?}, {:?})", z.re, z.im),
        }
    }
}

/// Why a tensor could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TensorError {
    /// The element count does not match the shape.
    #[error("{ty} needs {expected} elements, got {got}")]
    ElementCount {
        /// The requested type.
        ty: TensorType,
        /// Elements the shape needs.
        expected: usize,
        /// Elements given.
        got: usize,
    },
    /// The elements are of another kind than the dtype.
    #[error("elements stored as {got:?} do not fit dtype {dtype}")]
    KindMismatch {
        /// The requested dtype.
        dtype: DType,
        /// The kind given.
        got: DTypeKind,
    },
    /// A byte buffer has the wrong length.
    #[error("{ty} needs {expected} bytes, got {got}")]
    ByteCount {
        /// The requested type.
        ty: TensorType,
        /// Bytes the type needs.
        expected: usize,
        /// Bytes given.
        got: usize,
    },
}

/// A dense, statically shaped tensor on the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    ty: TensorType,
    data: Data,
}

impl Tensor {
    /// Builds a tensor, normalising the elements to the dtype (floats are rounded to it,
    /// integers wrapped to its width) so that the storage invariant holds.
    ///
    /// ```
    /// use systolic_ir::{DType, Data, Tensor, TensorType};
    /// let t = Tensor::new(TensorType::new(vec![2], DType::I8), Data::Int(vec![127, 128])).unwrap();
    /// assert_eq!(t.data(), &Data::Int(vec![127, -128]));
    /// ```
    pub fn new(ty: TensorType, data: Data) -> Result<Tensor, TensorError> {
        let expected = ty.num_elements();
        if data.len() != expected {
            return Err(TensorError::ElementCount {
                ty,
                expected,
                got: data.len(),
            });
        }
        if data.kind() != ty.dtype.kind() {
            return Err(TensorError::KindMismatch {
                dtype: ty.dtype,
                got: data.kind(),
            });
        }
        let dtype = ty.dtype;
        let data = match data {
            Data::Int(mut v) => {
                let bits = dtype.bit_width();
                v.iter_mut()
                    .for_each(|x| *x = numerics::wrap_signed(bits, *x));
                Data::Int(v)
            }
            Data::UInt(mut v) => {
                let bits = dtype.bit_width();
                v.iter_mut()
                    .for_each(|x| *x = numerics::wrap_unsigned(bits, *x));
                Data::UInt(v)
            }
            Data::Float(mut v) => {
                v.iter_mut()
                    .for_each(|x| *x = numerics::round_to(dtype, *x));
                Data::Float(v)
            }
            Data::Complex(mut v) => {
                v.iter_mut().for_each(|z| {
                    *z = Complex64::new(
                        numerics::round_to(dtype, z.re),
                        numerics::round_to(dtype, z.im),
                    )
                });
                Data::Complex(v)
            }
            d => d,
        };
        Ok(Tensor { ty, data })
    }

    /// A tensor of zeros (false for `i1`).
    pub fn zeros(ty: TensorType) -> Tensor {
        let data = Data::zeros(ty.dtype.kind(), ty.num_elements());
        Tensor { ty, data }
    }

    /// A tensor whose every element is `value` (converted to the dtype as by [`Tensor::new`]).
    ///
    /// The value is converted once and then repeated: a `dense<0.0> : tensor<1024x1024xf32>`
    /// constant spent 9 ms of parsing rounding each of its million copies.
    pub fn splat(ty: TensorType, value: Scalar) -> Result<Tensor, TensorError> {
        let one = Tensor::new(TensorType::new(vec![], ty.dtype), Data::repeated(value, 1))?;
        let data = Data::repeated(one.get(0), ty.num_elements());
        Ok(Tensor { ty, data })
    }

    /// A rank-0 f32 tensor.
    pub fn scalar_f32(x: f32) -> Tensor {
        Tensor::from_f32(vec![], vec![x])
    }

    /// An f32 tensor from a shape and row-major values.
    ///
    /// Panics when the count does not match the shape (a programming error in the caller).
    pub fn from_f32(shape: Vec<i64>, values: Vec<f32>) -> Tensor {
        let data = Data::Float(values.into_iter().map(f64::from).collect());
        Tensor::new(TensorType::new(shape, DType::F32), data).expect("element count")
    }

    /// A tensor of any float dtype from f64 values (rounded to the dtype).
    pub fn from_f64(
        shape: Vec<i64>,
        dtype: DType,
        values: Vec<f64>,
    ) -> Result<Tensor, TensorError> {
        Tensor::new(TensorType::new(shape, dtype), Data::Float(values))
    }

    /// A signed-integer tensor (values wrapped to the dtype).
    pub fn from_i64(
        shape: Vec<i64>,
        dtype: DType,
        values: Vec<i64>,
    ) -> Result<Tensor, TensorError> {
        Tensor::new(TensorType::new(shape, dtype), Data::Int(values))
    }

    /// An unsigned-integer tensor (values wrapped to the dtype).
    pub fn from_u64(
        shape: Vec<i64>,
        dtype: DType,
        values: Vec<u64>,
    ) -> Result<Tensor, TensorError> {
        Tensor::new(TensorType::new(shape, dtype), Data::UInt(values))
    }

    /// A complex tensor (`complex<f32>` or `complex<f64>`; parts rounded to the dtype).
    pub fn from_complex(
        shape: Vec<i64>,
        dtype: DType,
        values: Vec<Complex64>,
    ) -> Result<Tensor, TensorError> {
        Tensor::new(TensorType::new(shape, dtype), Data::Complex(values))
    }

    /// A boolean tensor.
    pub fn from_bool(shape: Vec<i64>, values: Vec<bool>) -> Result<Tensor, TensorError> {
        Tensor::new(TensorType::new(shape, DType::Bool), Data::Bool(values))
    }

    /// The tensor's type.
    pub fn ty(&self) -> &TensorType {
        &self.ty
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
        self.data.len()
    }

    /// The elements.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// Takes the elements out.
    pub fn into_data(self) -> Data {
        self.data
    }

    /// Element `i` (row-major) as a [`Scalar`].
    pub fn get(&self, i: usize) -> Scalar {
        match &self.data {
            Data::Bool(v) => Scalar::Bool(v[i]),
            Data::Int(v) => Scalar::Int(v[i]),
            Data::UInt(v) => Scalar::UInt(v[i]),
            Data::Float(v) => Scalar::Float(v[i]),
            Data::Complex(v) => Scalar::Complex(v[i]),
        }
    }

    /// The same elements with another shape of equal element count.
    pub fn reshape(self, shape: Vec<i64>) -> Result<Tensor, TensorError> {
        let ty = TensorType::new(shape, self.ty.dtype);
        if ty.num_elements() != self.data.len() {
            return Err(TensorError::ElementCount {
                expected: ty.num_elements(),
                got: self.data.len(),
                ty,
            });
        }
        Ok(Tensor {
            ty,
            data: self.data,
        })
    }

    /// Element `i` as a raw bit pattern of the dtype's width (two's complement for signed
    /// integers, IEEE bits for floats, 0/1 for booleans; a `complex<f32>` as its memory
    /// layout, the real part's bits low). A `complex<f64>` is 128 bits wide: this is its real
    /// part only, so code that may see one uses [`Tensor::bits_wide`].
    pub fn bits(&self, i: usize) -> u64 {
        let dtype = self.ty.dtype;
        match &self.data {
            Data::Bool(v) => v[i] as u64,
            Data::Int(v) => numerics::wrap_unsigned(dtype.bit_width(), v[i] as u64),
            Data::UInt(v) => v[i],
            Data::Float(v) => numerics::float_to_bits(dtype, v[i]),
            Data::Complex(_) => self.bits_wide(i) as u64,
        }
    }

    /// Element `i` as a bit pattern of the dtype's width for every dtype, complex<f64>
    /// included: the real part's bits in the low half and the imaginary part's above them, as
    /// the little-endian bytes lie in memory.
    pub fn bits_wide(&self, i: usize) -> u128 {
        match &self.data {
            Data::Complex(v) => {
                let part = self.ty.dtype.component().unwrap_or(DType::F64);
                let width = part.bit_width();
                let re = numerics::float_to_bits(part, v[i].re) as u128;
                let im = numerics::float_to_bits(part, v[i].im) as u128;
                re | im << width
            }
            _ => self.bits(i) as u128,
        }
    }

    /// Builds a tensor from raw bit patterns of the dtype's width, one per element (the
    /// inverse of [`Tensor::bits`]; a `complex<f64>` takes its real part from the pattern and
    /// zero as its imaginary part: [`Tensor::from_bits_wide`] takes both).
    pub fn from_bits(ty: TensorType, bits: &[u64]) -> Result<Tensor, TensorError> {
        let wide: Vec<u128> = bits.iter().map(|&b| b as u128).collect();
        Tensor::from_bits_wide(ty, &wide)
    }

    /// Builds a tensor from bit patterns as [`Tensor::bits_wide`] gives them.
    pub fn from_bits_wide(ty: TensorType, bits: &[u128]) -> Result<Tensor, TensorError> {
        let dtype = ty.dtype;
        let bits_u64 = || bits.iter().map(|&b| b as u64);
        let data = match dtype.kind() {
            DTypeKind::Bool => Data::Bool(bits_u64().map(|b| b & 1 != 0).collect()),
            DTypeKind::Signed => Data::Int(
                bits_u64()
                    .map(|b| numerics::wrap_signed(dtype.bit_width(), b as i64))
                    .collect(),
            ),
            DTypeKind::Unsigned => Data::UInt(
                bits_u64()
                    .map(|b| numerics::wrap_unsigned(dtype.bit_width(), b))
                    .collect(),
            ),
            DTypeKind::Float => Data::Float(
                bits_u64()
                    .map(|b| numerics::float_from_bits(dtype, b))
                    .collect(),
            ),
            DTypeKind::Complex => {
                let part = dtype.component().unwrap_or(DType::F64);
                let width = part.bit_width();
                let mask = (1u128 << width) - 1;
                Data::Complex(
                    bits.iter()
                        .map(|&b| {
                            Complex64::new(
                                numerics::float_from_bits(part, (b & mask) as u64),
                                numerics::float_from_bits(part, (b >> width & mask) as u64),
                            )
                        })
                        .collect(),
                )
            }
        };
        Tensor::new(ty, data)
    }

    /// The dense little-endian host bytes (as numpy and XLA lay them out; one byte per element
    /// for `i1` and the sub-byte integer types).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        // Floats, the bulk of large constants, in one typed loop each (the same conversions as
        // `numerics::float_to_bits`, without its per-element dispatch).
        match (&self.data, self.ty.dtype) {
            (Data::Float(v), DType::F64) => {
                return v.iter().flat_map(|x| x.to_le_bytes()).collect()
            }
            (Data::Float(v), DType::F32) => {
                return v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
            }
            (Data::Float(v), DType::BF16) => {
                return v
                    .iter()
                    .flat_map(|&x| half::bf16::from_f64(x).to_le_bytes())
                    .collect()
            }
            (Data::Float(v), DType::F16) => {
                return v
                    .iter()
                    .flat_map(|&x| half::f16::from_f64(x).to_le_bytes())
                    .collect()
            }
            (Data::Complex(v), DType::C128) => {
                return v
                    .iter()
                    .flat_map(|z| [z.re.to_le_bytes(), z.im.to_le_bytes()])
                    .flatten()
                    .collect()
            }
            (Data::Complex(v), _) => {
                return v
                    .iter()
                    .flat_map(|z| [(z.re as f32).to_le_bytes(), (z.im as f32).to_le_bytes()])
                    .flatten()
                    .collect()
            }
            _ => {}
        }
        let width = self.ty.dtype.byte_size();
        let mut out = Vec::with_capacity(self.num_elements() * width);
        for i in 0..self.num_elements() {
            let b = self.bits(i).to_le_bytes();
            out.extend_from_slice(&b[..width]);
        }
        out
    }

    /// Builds a tensor from dense little-endian host bytes.
    pub fn from_le_bytes(ty: TensorType, bytes: &[u8]) -> Result<Tensor, TensorError> {
        let width = ty.dtype.byte_size();
        let expected = ty.num_elements() * width;
        if bytes.len() != expected {
            return Err(TensorError::ByteCount {
                ty,
                expected,
                got: bytes.len(),
            });
        }
        // Floats in one typed loop each: widening to f64 is exact, so the values need no
        // rounding pass (`Tensor::new`'s) either.
        fn floats<const N: usize>(bytes: &[u8], f: impl Fn([u8; N]) -> f64) -> Data {
            Data::Float(
                bytes
                    .chunks_exact(N)
                    .map(|c| f(c.try_into().expect("N bytes")))
                    .collect(),
            )
        }
        let data = match ty.dtype {
            DType::F64 => Some(floats(bytes, f64::from_le_bytes)),
            DType::F32 => Some(floats(bytes, |b| f32::from_le_bytes(b) as f64)),
            DType::BF16 => Some(floats(bytes, |b| half::bf16::from_le_bytes(b).to_f64())),
            DType::F16 => Some(floats(bytes, |b| half::f16::from_le_bytes(b).to_f64())),
            DType::C64 => Some(Data::Complex(
                bytes
                    .chunks_exact(8)
                    .map(|c| {
                        let part = |k: usize| {
                            f32::from_le_bytes(c[k..k + 4].try_into().expect("4 bytes")) as f64
                        };
                        Complex64::new(part(0), part(4))
                    })
                    .collect(),
            )),
            DType::C128 => Some(Data::Complex(
                bytes
                    .chunks_exact(16)
                    .map(|c| {
                        let part =
                            |k: usize| f64::from_le_bytes(c[k..k + 8].try_into().expect("8 bytes"));
                        Complex64::new(part(0), part(8))
                    })
                    .collect(),
            )),
            _ => None,
        };
        if let Some(data) = data {
            return Ok(Tensor { ty, data });
        }
        let bits: Vec<u64> = bytes
            .chunks_exact(width)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..width].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect();
        Tensor::from_bits(ty, &bits)
    }

    /// Elements as f64 (booleans as 0/1), for comparisons in tests and tools. Complex
    /// elements give two numbers each, real then imaginary (numpy's `view(float)`), so the
    /// vector is twice the element count.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match &self.data {
            Data::Bool(v) => v.iter().map(|&b| b as u8 as f64).collect(),
            Data::Int(v) => v.iter().map(|&x| x as f64).collect(),
            Data::UInt(v) => v.iter().map(|&x| x as f64).collect(),
            Data::Float(v) => v.clone(),
            Data::Complex(v) => v.iter().flat_map(|z| [z.re, z.im]).collect(),
        }
    }
}

impl fmt::Display for Tensor {
    /// Prints the type and up to 16 elements, e.g. `tensor<3xf32> [1.0, 2.0, 3.0]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [", self.ty)?;
        let n = self.num_elements();
        for i in 0..n.min(16) {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", self.get(i))?;
        }
        if n > 16 {
            write!(f, ", … ({n} elements)")?;
        }
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A splat is the value converted once (rounded, wrapped) and repeated: the same tensor
    /// `new` gives from the repeated value, and the same errors.
    #[test]
    fn splat_equals_new_of_the_repeated_value() {
        let cases = [
            (DType::F32, Scalar::Float(0.1)),
            (DType::BF16, Scalar::Float(1.0 + 1.0 / 512.0)),
            (DType::I8, Scalar::Int(300)),
            (DType::U8, Scalar::UInt(257)),
            (DType::Bool, Scalar::Bool(true)),
            (DType::C64, Scalar::Complex(Complex64::new(0.1, -0.3))),
        ];
        for (dtype, value) in cases {
            for shape in [vec![], vec![0], vec![2, 3]] {
                let ty = TensorType::new(shape, dtype);
                let repeated = Data::repeated(value, ty.num_elements());
                let splat = Tensor::splat(ty.clone(), value).unwrap();
                assert_eq!(
                    splat,
                    Tensor::new(ty, repeated).unwrap(),
                    "{dtype} {value:?}"
                );
            }
        }
        let ty = TensorType::new(vec![4], DType::F32);
        assert!(matches!(
            Tensor::splat(ty, Scalar::Int(1)),
            Err(TensorError::KindMismatch { .. })
        ));
    }

    #[test]
    fn new_checks_count_and_kind() {
        let ty = TensorType::new(vec![2], DType::F32);
        assert!(matches!(
            Tensor::new(ty.clone(), Data::Float(vec![1.0])),
            Err(TensorError::ElementCount { .. })
        ));
        assert!(matches!(
            Tensor::new(ty, Data::Int(vec![1, 2])),
            Err(TensorError::KindMismatch { .. })
        ));
    }

    #[test]
    fn new_rounds_floats() {
        let t = Tensor::from_f64(vec![1], DType::BF16, vec![1.00390625]).unwrap();
        assert_eq!(t.data(), &Data::Float(vec![1.0]));
    }

    #[test]
    fn bytes_round_trip() {
        for dtype in DType::ALL {
            let ty = TensorType::new(vec![3], dtype);
            let t = Tensor::from_bits(ty.clone(), &[0, 1, 3]).unwrap();
            let bytes = t.to_le_bytes();
            assert_eq!(bytes.len(), 3 * dtype.byte_size());
            assert_eq!(Tensor::from_le_bytes(ty, &bytes).unwrap(), t, "{dtype}");
        }
    }

    #[test]
    fn complex_bytes_and_bits() {
        let z = vec![
            Complex64::new(1.5, -2.0),
            Complex64::new(0.1, f64::INFINITY),
        ];
        let t = Tensor::from_complex(vec![2], DType::C64, z.clone()).unwrap();
        // Parts are rounded to f32.
        assert_eq!(
            t.get(1),
            Scalar::Complex(Complex64::new(0.1f32 as f64, f64::INFINITY))
        );
        let bytes = t.to_le_bytes();
        assert_eq!(&bytes[..8], &[0, 0, 0xC0, 0x3F, 0, 0, 0, 0xC0]);
        assert_eq!(t.bits(0), 0xC000_0000_3FC0_0000);
        let t2 = Tensor::from_complex(vec![2], DType::C128, z).unwrap();
        let expected = ((-2.0f64).to_bits() as u128) << 64 | 1.5f64.to_bits() as u128;
        assert_eq!(t2.bits_wide(0), expected);
        for t in [t, t2] {
            let ty = t.ty().clone();
            assert_eq!(
                Tensor::from_le_bytes(ty.clone(), &t.to_le_bytes()).unwrap(),
                t
            );
            let wide: Vec<u128> = (0..2).map(|i| t.bits_wide(i)).collect();
            assert_eq!(Tensor::from_bits_wide(ty, &wide).unwrap(), t);
        }
    }

    #[test]
    fn signed_bits() {
        let t = Tensor::from_i64(vec![1], DType::I8, vec![-1]).unwrap();
        assert_eq!(t.bits(0), 0xff);
        assert_eq!(t.to_le_bytes(), vec![0xff]);
    }
}
