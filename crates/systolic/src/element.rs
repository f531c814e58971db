//! Host element types: the Rust types an [`Array`](crate::Array) is created from and read
//! back into, each tied to one dtype and one native storage of the CPU runtime.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use systolic_cpu::Storage;
use systolic_ir::DType;

/// A Rust type that is the element of exactly one dtype.
///
/// ```
/// use systolic::Element;
/// assert_eq!(<f32 as Element>::DTYPE, systolic_ir::DType::F32);
/// assert_eq!(<half::bf16 as Element>::DTYPE, systolic_ir::DType::BF16);
/// assert_eq!(<systolic::Complex64 as Element>::DTYPE, systolic_ir::DType::C128);
/// ```
pub trait Element: Copy + Send + Sync + 'static {
    /// The dtype of arrays of this element.
    const DTYPE: DType;
    /// Wraps host values in the runtime's native storage.
    fn into_storage(values: Vec<Self>) -> Storage;
    /// The values, when `storage` holds this element type.
    fn from_storage(storage: &Storage) -> Option<Vec<Self>>;
}

macro_rules! element {
    ($t:ty, $dtype:ident, $variant:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            fn into_storage(values: Vec<Self>) -> Storage {
                Storage::$variant(values)
            }
            fn from_storage(storage: &Storage) -> Option<Vec<Self>> {
                match storage {
                    Storage::$variant(v) => Some(v.clone()),
                    _ => None,
                }
            }
        }
    };
}

element!(bool, Bool, Bool);
element!(i8, I8, I8);
element!(i16, I16, I16);
element!(i32, I32, I32);
element!(i64, I64, I64);
element!(u8, U8, U8);
element!(u16, U16, U16);
element!(u32, U32, U32);
element!(u64, U64, U64);
element!(f16, F16, F16);
element!(bf16, BF16, BF16);
element!(f32, F32, F32);
element!(f64, F64, F64);
// complex<f32>/complex<f64> as num-complex's pairs: the CPU runtime's storage already uses
// them (through rustfft), so arrays cross the host boundary without conversion.
element!(Complex32, C64, C64);
element!(Complex64, C128, C128);
