//! Element types as `.npy` files spell them (`descr`): numpy's type strings such as `'<f4'`,
//! `'|b1'`, `'<i8'`, and the raw void types `'<V2'`/`'<V1'` that `np.save` writes for
//! ml_dtypes' `bfloat16`, `int4`/`uint4`/`int2`/`uint2` and the narrow floats `float8_e4m3fn`,
//! …, `float4_e2m1fn` (numpy has no name for them, so the file only records the element width;
//! `np.load` of such a file gives `|V1` elements that `.view(ml_dtypes.float8_e4m3fn)` names).

use crate::error::NpyErrorKind;
use systolic_ir::DType;

/// The element type recorded in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementType {
    /// A numpy type that names its dtype (`'<f4'` is f32).
    DType(DType),
    /// Raw bytes of this width per element (`'<V2'`): the dtype must come from elsewhere, e.g.
    /// the parameter type of the function the array is fed to.
    Raw(usize),
}

impl ElementType {
    /// Parses a `descr` string, returning the element type and whether it is big-endian.
    pub fn from_descr(descr: &str) -> Result<(ElementType, bool), NpyErrorKind> {
        let (big_endian, code) = match descr.as_bytes().first() {
            Some(b'<' | b'=' | b'|') => (false, &descr[1..]),
            Some(b'>') => (true, &descr[1..]),
            _ => (false, descr),
        };
        use DType::*;
        let dtype = match code {
            "b1" | "?" => Bool,
            "i1" => I8,
            "i2" => I16,
            "i4" => I32,
            "i8" => I64,
            "u1" => U8,
            "u2" => U16,
            "u4" => U32,
            "u8" => U64,
            "f2" => F16,
            "f4" => F32,
            "f8" => F64,
            "c8" => C64,
            "c16" => C128,
            // np.save of ml_dtypes' float8_e5m2 writes '<f1' (its numpy type string), which
            // numpy itself cannot read back; the other narrow floats write '<V1'.
            "f1" => F8E5M2,
            _ => {
                if let Some(width) = code.strip_prefix('V').and_then(|w| w.parse::<usize>().ok()) {
                    if width == 1 || width == 2 {
                        return Ok((ElementType::Raw(width), big_endian));
                    }
                }
                return Err(NpyErrorKind::UnsupportedDescr(format!(
                    "numpy type '{descr}' (supported: bool, int8-64, uint8-64, float16/32/64, \
                     complex64/128, and ml_dtypes' bfloat16, int4/uint4/int2/uint2 and float8/6/4 types \
                     saved as '<V2'/'<V1')"
                )));
            }
        };
        Ok((ElementType::DType(dtype), big_endian))
    }

    /// The `descr` numpy writes for this element type (little-endian).
    pub fn descr(self) -> String {
        use DType::*;
        match self {
            ElementType::Raw(w) => format!("<V{w}"),
            ElementType::DType(d) => match d {
                Bool => "|b1",
                I8 => "|i1",
                I16 => "<i2",
                I32 => "<i4",
                I64 => "<i8",
                U8 => "|u1",
                U16 => "<u2",
                U32 => "<u4",
                U64 => "<u8",
                F16 => "<f2",
                F32 => "<f4",
                F64 => "<f8",
                C64 => "<c8",
                C128 => "<c16",
                // ml_dtypes' types have no numpy type string: np.save writes void types.
                BF16 => "<V2",
                I2 | I4 | U2 | U4 => "<V1",
                F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E3M4 | F8E4M3
                | F8E8M0FNU | F6E2M3FN | F6E3M2FN | F4E2M1FN => "<V1",
            }
            .to_string(),
        }
    }

    /// Bytes per element in the file.
    pub fn width(self) -> usize {
        match self {
            ElementType::Raw(w) => w,
            ElementType::DType(d) => d.byte_size(),
        }
    }

    /// The dtype of the elements, using `expected` to name raw void types: `'<V2'` is bf16
    /// (the only 2-byte ml_dtypes type) unless something else is expected; `'<V1'` needs
    /// `expected` to say which sub-byte integer or narrow float (f8/f6/f4) it holds.
    pub fn resolve(self, expected: Option<DType>) -> Result<DType, NpyErrorKind> {
        use DType::*;
        match (self, expected) {
            (ElementType::DType(d), _) => Ok(d),
            (ElementType::Raw(2), None | Some(BF16)) => Ok(BF16),
            (ElementType::Raw(1), Some(d @ (I2 | I4 | U2 | U4))) => Ok(d),
            (ElementType::Raw(1), Some(d)) if d.is_narrow_float() => Ok(d),
            (ElementType::Raw(w), expected) => {
                Err(NpyErrorKind::AmbiguousRaw { width: w, expected })
            }
        }
    }
}

/// The element type a tensor of `dtype` is written as.
pub fn element_type_of(dtype: DType) -> ElementType {
    match dtype {
        DType::BF16 => ElementType::Raw(2),
        DType::I2 | DType::I4 | DType::U2 | DType::U4 => ElementType::Raw(1),
        d if d.is_narrow_float() => ElementType::Raw(1),
        d => ElementType::DType(d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descr_round_trip_for_named_types() {
        for d in DType::ALL {
            let e = element_type_of(d);
            let (back, big) = ElementType::from_descr(&e.descr()).unwrap();
            assert!(!big);
            assert_eq!(back, e, "{d}");
            assert_eq!(back.width(), d.byte_size(), "{d}");
            assert_eq!(back.resolve(Some(d)).unwrap(), d, "{d}");
        }
    }

    #[test]
    fn byte_orders() {
        assert_eq!(
            ElementType::from_descr(">f4").unwrap(),
            (ElementType::DType(DType::F32), true)
        );
        assert_eq!(
            ElementType::from_descr("|u1").unwrap(),
            (ElementType::DType(DType::U8), false)
        );
        assert_eq!(
            ElementType::from_descr("<V2").unwrap(),
            (ElementType::Raw(2), false)
        );
    }

    #[test]
    fn raw_types_need_a_hint_when_ambiguous() {
        assert_eq!(ElementType::Raw(2).resolve(None), Ok(DType::BF16));
        assert!(ElementType::Raw(2).resolve(Some(DType::F16)).is_err());
        assert!(ElementType::Raw(1).resolve(None).is_err());
        assert_eq!(ElementType::Raw(1).resolve(Some(DType::I4)), Ok(DType::I4));
    }

    #[test]
    fn unsupported_types_are_named() {
        let err = ElementType::from_descr("<c32").unwrap_err();
        assert!(err.to_string().contains("'<c32'"), "{err}");
        assert_eq!(
            ElementType::from_descr(">c16"),
            Ok((ElementType::DType(DType::C128), true))
        );
        assert!(ElementType::from_descr("<U10").is_err());
        assert!(ElementType::from_descr("|V4").is_err());
    }
}
