//! Element types of tensors.
//!
//! StableHLO's element types with static widths: booleans (`i1`), signed and unsigned integers of
//! 2 to 64 bits, and the floating-point formats f16, bf16, f32, f64. In MLIR text, signless
//! integers (`i32`) mean signed in StableHLO; `si32` is accepted as a synonym and printed as `i32`.
//! Complex numbers (`complex<f32>`, `complex<f64>`) are pairs of floats of one width, stored
//! real part first as numpy and XLA lay them out. The narrow floats (f8E4M3FN, f8E5M2, …,
//! f6E2M3FN, f4E2M1FN) are each one byte per element, as ml_dtypes stores them; their formats
//! are rows of one table ([`crate::minifloat`]).

use crate::minifloat::Format;
use std::fmt;

/// The element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `i1`: a boolean.
    Bool,
    /// `i2`/`si2`.
    I2,
    /// `i4`/`si4`.
    I4,
    /// `i8`/`si8`.
    I8,
    /// `i16`/`si16`.
    I16,
    /// `i32`/`si32`.
    I32,
    /// `i64`/`si64`.
    I64,
    /// `ui2`.
    U2,
    /// `ui4`.
    U4,
    /// `ui8`.
    U8,
    /// `ui16`.
    U16,
    /// `ui32`.
    U32,
    /// `ui64`.
    U64,
    /// IEEE half precision.
    F16,
    /// bfloat16: f32's exponent range with an 8-bit significand.
    BF16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
    /// `f8E4M3FN` (ml_dtypes' `float8_e4m3fn`): see [`crate::minifloat::Format::F8E4M3FN`].
    F8E4M3FN,
    /// `f8E5M2` (ml_dtypes' `float8_e5m2`): see [`crate::minifloat::Format::F8E5M2`].
    F8E5M2,
    /// `f8E4M3FNUZ` (ml_dtypes' `float8_e4m3fnuz`): see [`crate::minifloat::Format::F8E4M3FNUZ`].
    F8E4M3FNUZ,
    /// `f8E5M2FNUZ` (ml_dtypes' `float8_e5m2fnuz`): see [`crate::minifloat::Format::F8E5M2FNUZ`].
    F8E5M2FNUZ,
    /// `f8E4M3B11FNUZ` (ml_dtypes' `float8_e4m3b11fnuz`): see [`crate::minifloat::Format::F8E4M3B11FNUZ`].
    F8E4M3B11FNUZ,
    /// `f8E3M4` (ml_dtypes' `float8_e3m4`): see [`crate::minifloat::Format::F8E3M4`].
    F8E3M4,
    /// `f8E4M3` (ml_dtypes' `float8_e4m3`): see [`crate::minifloat::Format::F8E4M3`].
    F8E4M3,
    /// `f8E8M0FNU` (ml_dtypes' `float8_e8m0fnu`): see [`crate::minifloat::Format::F8E8M0FNU`].
    F8E8M0FNU,
    /// `f6E2M3FN` (ml_dtypes' `float6_e2m3fn`): see [`crate::minifloat::Format::F6E2M3FN`].
    F6E2M3FN,
    /// `f6E3M2FN` (ml_dtypes' `float6_e3m2fn`): see [`crate::minifloat::Format::F6E3M2FN`].
    F6E3M2FN,
    /// `f4E2M1FN` (ml_dtypes' `float4_e2m1fn`): see [`crate::minifloat::Format::F4E2M1FN`].
    F4E2M1FN,
    /// `complex<f32>` (numpy's complex64): two f32s, real then imaginary.
    C64,
    /// `complex<f64>` (numpy's complex128): two f64s, real then imaginary.
    C128,
}

/// The broad kind of a dtype, which decides how the interpreter stores its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DTypeKind {
    /// `i1`.
    Bool,
    /// Two's-complement signed integers.
    Signed,
    /// Unsigned integers.
    Unsigned,
    /// Binary floating point.
    Float,
    /// Complex numbers: a pair of floats of one dtype ([`DType::component`]).
    Complex,
}

impl DType {
    /// Every dtype, in a stable order (useful for property tests).
    pub const ALL: [DType; 30] = [
        DType::Bool,
        DType::I2,
        DType::I4,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U2,
        DType::U4,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
        DType::F8E4M3FN,
        DType::F8E5M2,
        DType::F8E4M3FNUZ,
        DType::F8E5M2FNUZ,
        DType::F8E4M3B11FNUZ,
        DType::F8E3M4,
        DType::F8E4M3,
        DType::F8E8M0FNU,
        DType::F6E2M3FN,
        DType::F6E3M2FN,
        DType::F4E2M1FN,
    ];

    /// The narrow float dtypes (f8, f6, f4), each described by a [`Format`].
    pub const NARROW_FLOATS: [DType; 11] = [
        DType::F8E4M3FN,
        DType::F8E5M2,
        DType::F8E4M3FNUZ,
        DType::F8E5M2FNUZ,
        DType::F8E4M3B11FNUZ,
        DType::F8E3M4,
        DType::F8E4M3,
        DType::F8E8M0FNU,
        DType::F6E2M3FN,
        DType::F6E3M2FN,
        DType::F4E2M1FN,
    ];

    /// The kind of this dtype.
    pub fn kind(self) -> DTypeKind {
        use DType::*;
        match self {
            Bool => DTypeKind::Bool,
            I2 | I4 | I8 | I16 | I32 | I64 => DTypeKind::Signed,
            U2 | U4 | U8 | U16 | U32 | U64 => DTypeKind::Unsigned,
            F16 | BF16 | F32 | F64 => DTypeKind::Float,
            F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E3M4 | F8E4M3
            | F8E8M0FNU | F6E2M3FN | F6E3M2FN | F4E2M1FN => DTypeKind::Float,
            C64 | C128 => DTypeKind::Complex,
        }
    }

    /// Width in bits of one element.
    pub fn bit_width(self) -> u32 {
        use DType::*;
        match self {
            Bool => 1,
            I2 | U2 => 2,
            I4 | U4 | F4E2M1FN => 4,
            F6E2M3FN | F6E3M2FN => 6,
            I8 | U8 => 8,
            F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E3M4 | F8E4M3
            | F8E8M0FNU => 8,
            I16 | U16 | F16 | BF16 => 16,
            I32 | U32 | F32 => 32,
            I64 | U64 | F64 | C64 => 64,
            C128 => 128,
        }
    }

    /// Bytes one element occupies in a dense host buffer (sub-byte types take a whole byte, as
    /// in numpy and XLA's host literals).
    pub fn byte_size(self) -> usize {
        (self.bit_width() as usize).div_ceil(8)
    }

    /// True for the float dtypes: f16, bf16, f32, f64 and the narrow floats.
    pub fn is_float(self) -> bool {
        self.kind() == DTypeKind::Float
    }

    /// True for `complex<f32>` and `complex<f64>`.
    pub fn is_complex(self) -> bool {
        self.kind() == DTypeKind::Complex
    }

    /// True for floats and complex numbers: the dtypes of the spec's floating-point ops
    /// (`exp`, `sqrt`, `divide` rounding, …).
    pub fn is_float_or_complex(self) -> bool {
        matches!(self.kind(), DTypeKind::Float | DTypeKind::Complex)
    }

    /// The float dtype of a complex dtype's parts (`complex<f32>` → `f32`); a float dtype is
    /// its own component, so code rounding "to the element's precision" can ask either.
    /// `None` for booleans and integers.
    pub fn component(self) -> Option<DType> {
        match self {
            DType::C64 => Some(DType::F32),
            DType::C128 => Some(DType::F64),
            d if d.is_float() => Some(d),
            _ => None,
        }
    }

    /// The complex dtype whose parts are `self` (`f32` → `complex<f32>`): only f32 and f64
    /// have one, as in StableHLO and numpy.
    pub fn complex_of(self) -> Option<DType> {
        match self {
            DType::F32 => Some(DType::C64),
            DType::F64 => Some(DType::C128),
            _ => None,
        }
    }

    /// True for signed and unsigned integers (not `i1`).
    pub fn is_integer(self) -> bool {
        matches!(self.kind(), DTypeKind::Signed | DTypeKind::Unsigned)
    }

    /// True for signed integers.
    pub fn is_signed_integer(self) -> bool {
        self.kind() == DTypeKind::Signed
    }

    /// True for unsigned integers.
    pub fn is_unsigned_integer(self) -> bool {
        self.kind() == DTypeKind::Unsigned
    }

    /// True for `i1`.
    pub fn is_bool(self) -> bool {
        self == DType::Bool
    }

    /// The MLIR spelling (`f32`, `i32`, `ui8`, `i1`, `bf16`).
    pub fn mlir_name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "i1",
            I2 => "i2",
            I4 => "i4",
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            U2 => "ui2",
            U4 => "ui4",
            U8 => "ui8",
            U16 => "ui16",
            U32 => "ui32",
            U64 => "ui64",
            F16 => "f16",
            BF16 => "bf16",
            F32 => "f32",
            F64 => "f64",
            C64 => "complex<f32>",
            C128 => "complex<f64>",
            F8E4M3FN => "f8E4M3FN",
            F8E5M2 => "f8E5M2",
            F8E4M3FNUZ => "f8E4M3FNUZ",
            F8E5M2FNUZ => "f8E5M2FNUZ",
            F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            F8E3M4 => "f8E3M4",
            F8E4M3 => "f8E4M3",
            F8E8M0FNU => "f8E8M0FNU",
            F6E2M3FN => "f6E2M3FN",
            F6E3M2FN => "f6E3M2FN",
            F4E2M1FN => "f4E2M1FN",
        }
    }

    /// Parses an MLIR element type name; `si32` is a synonym of `i32`. Complex types are
    /// written `complex<f32>` (the text parser reads them token by token and asks
    /// [`DType::complex_of`]; this accepts the whole spelling).
    pub fn from_mlir_name(name: &str) -> Option<DType> {
        use DType::*;
        Some(match name {
            "i1" => Bool,
            "i2" | "si2" => I2,
            "i4" | "si4" => I4,
            "i8" | "si8" => I8,
            "i16" | "si16" => I16,
            "i32" | "si32" => I32,
            "i64" | "si64" => I64,
            "ui2" => U2,
            "ui4" => U4,
            "ui8" => U8,
            "ui16" => U16,
            "ui32" => U32,
            "ui64" => U64,
            "f16" => F16,
            "bf16" => BF16,
            "f32" => F32,
            "f64" => F64,
            "complex<f32>" => C64,
            "complex<f64>" => C128,
            "f8E4M3FN" => F8E4M3FN,
            "f8E5M2" => F8E5M2,
            "f8E4M3FNUZ" => F8E4M3FNUZ,
            "f8E5M2FNUZ" => F8E5M2FNUZ,
            "f8E4M3B11FNUZ" => F8E4M3B11FNUZ,
            "f8E3M4" => F8E3M4,
            "f8E4M3" => F8E4M3,
            "f8E8M0FNU" => F8E8M0FNU,
            "f6E2M3FN" => F6E2M3FN,
            "f6E3M2FN" => F6E3M2FN,
            "f4E2M1FN" => F4E2M1FN,

            _ => return None,
        })
    }

    /// The numpy dtype name (`float32`, `int8`, `bool`, `bfloat16`).
    pub fn numpy_name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "bool",
            I2 => "int2",
            I4 => "int4",
            I8 => "int8",
            I16 => "int16",
            I32 => "int32",
            I64 => "int64",
            U2 => "uint2",
            U4 => "uint4",
            U8 => "uint8",
            U16 => "uint16",
            U32 => "uint32",
            U64 => "uint64",
            F16 => "float16",
            BF16 => "bfloat16",
            F32 => "float32",
            F64 => "float64",
            C64 => "complex64",
            C128 => "complex128",
            F8E4M3FN => "float8_e4m3fn",
            F8E5M2 => "float8_e5m2",
            F8E4M3FNUZ => "float8_e4m3fnuz",
            F8E5M2FNUZ => "float8_e5m2fnuz",
            F8E4M3B11FNUZ => "float8_e4m3b11fnuz",
            F8E3M4 => "float8_e3m4",
            F8E4M3 => "float8_e4m3",
            F8E8M0FNU => "float8_e8m0fnu",
            F6E2M3FN => "float6_e2m3fn",
            F6E3M2FN => "float6_e3m2fn",
            F4E2M1FN => "float4_e2m1fn",
        }
    }

    /// Smallest and largest value of a signed integer dtype.
    pub fn signed_range(self) -> Option<(i64, i64)> {
        if !self.is_signed_integer() {
            return None;
        }
        let bits = self.bit_width();
        if bits == 64 {
            Some((i64::MIN, i64::MAX))
        } else {
            Some((-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1))
        }
    }

    /// Largest value of an unsigned integer dtype.
    pub fn unsigned_max(self) -> Option<u64> {
        if !self.is_unsigned_integer() {
            return None;
        }
        let bits = self.bit_width();
        Some(if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        })
    }

    /// Number of explicitly stored mantissa bits of a float dtype (not of a complex one:
    /// ask its [`DType::component`]).
    pub fn mantissa_bits(self) -> Option<u32> {
        match self {
            DType::F16 => Some(10),
            DType::BF16 => Some(7),
            DType::F32 => Some(23),
            DType::F64 => Some(52),
            d => d.narrow_format().map(|f| f.mantissa_bits),
        }
    }

    /// Number of exponent bits of a float dtype (not of a complex one).
    pub fn exponent_bits(self) -> Option<u32> {
        match self {
            DType::F16 => Some(5),
            DType::BF16 => Some(8),
            DType::F32 => Some(8),
            DType::F64 => Some(11),
            d => d.narrow_format().map(|f| f.exponent_bits),
        }
    }
}

impl DType {
    /// The table entry of a narrow float dtype (f8/f6/f4), which its conversions follow;
    /// `None` for every other dtype.
    pub fn narrow_format(self) -> Option<Format> {
        use DType::*;
        Some(match self {
            F8E4M3FN => Format::F8E4M3FN,
            F8E5M2 => Format::F8E5M2,
            F8E4M3FNUZ => Format::F8E4M3FNUZ,
            F8E5M2FNUZ => Format::F8E5M2FNUZ,
            F8E4M3B11FNUZ => Format::F8E4M3B11FNUZ,
            F8E3M4 => Format::F8E3M4,
            F8E4M3 => Format::F8E4M3,
            F8E8M0FNU => Format::F8E8M0FNU,
            F6E2M3FN => Format::F6E2M3FN,
            F6E3M2FN => Format::F6E3M2FN,
            F4E2M1FN => Format::F4E2M1FN,
            _ => return None,
        })
    }

    /// True for the f8, f6 and f4 dtypes.
    pub fn is_narrow_float(self) -> bool {
        self.narrow_format().is_some()
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mlir_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_mlir_name(d.mlir_name()), Some(d));
        }
        assert_eq!(DType::from_mlir_name("si32"), Some(DType::I32));
        assert_eq!(DType::from_mlir_name("f8E4M3FN"), Some(DType::F8E4M3FN));
        assert_eq!(DType::from_mlir_name("tf32"), None);
    }

    #[test]
    fn ranges() {
        assert_eq!(DType::I8.signed_range(), Some((-128, 127)));
        assert_eq!(DType::I4.signed_range(), Some((-8, 7)));
        assert_eq!(DType::U2.unsigned_max(), Some(3));
        assert_eq!(DType::U64.unsigned_max(), Some(u64::MAX));
        assert_eq!(DType::F32.signed_range(), None);
    }

    #[test]
    fn narrow_floats() {
        for d in DType::NARROW_FLOATS {
            assert!(d.is_float() && d.is_narrow_float(), "{d}");
            assert_eq!(d.byte_size(), 1, "{d}");
            assert_eq!(d.component(), Some(d));
            assert_eq!(d.complex_of(), None);
            let f = d.narrow_format().unwrap();
            assert_eq!(f.bits, d.bit_width(), "{d}");
        }
        assert_eq!(DType::F4E2M1FN.bit_width(), 4);
        assert_eq!(DType::F6E3M2FN.mantissa_bits(), Some(2));
        assert_eq!(DType::F8E8M0FNU.exponent_bits(), Some(8));
        assert_eq!(DType::F8E4M3B11FNUZ.numpy_name(), "float8_e4m3b11fnuz");
        assert!(!DType::F32.is_narrow_float());
    }

    #[test]
    fn complex() {
        assert_eq!(DType::C64.byte_size(), 8);
        assert_eq!(DType::C128.byte_size(), 16);
        assert_eq!(DType::C64.component(), Some(DType::F32));
        assert_eq!(DType::F64.complex_of(), Some(DType::C128));
        assert_eq!(DType::BF16.complex_of(), None);
        assert_eq!(DType::C128.kind(), DTypeKind::Complex);
        assert!(!DType::C64.is_float());
        assert!(DType::C64.is_float_or_complex());
        assert_eq!(DType::C64.numpy_name(), "complex64");
    }
}
