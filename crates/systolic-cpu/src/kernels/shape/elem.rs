//! [`Elem`]: the element types of [`Storage`], so that data-movement kernels are written once,
//! generically, and dispatched once per call (never per element).

use crate::buffer::{CpuBuffer, Storage};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use systolic_ir::DType;

/// A native element type of a [`Storage`] variant.
pub trait Elem: Copy + Default + Send + Sync + 'static {
    /// The elements, if `s` holds this type.
    fn slice(s: &Storage) -> Option<&[Self]>;
    /// The elements, mutably, if `s` holds this type.
    fn slice_mut(s: &mut Storage) -> Option<&mut [Self]>;
    /// Wraps a vector in its storage variant.
    fn wrap(v: Vec<Self>) -> Storage;
    /// The integer `i` as this type (wrapping integers, rounding floats).
    fn from_count(i: u64) -> Self;
}

macro_rules! elem {
    ($t:ty, $variant:ident, |$i:ident| $from:expr) => {
        impl Elem for $t {
            fn slice(s: &Storage) -> Option<&[Self]> {
                match s {
                    Storage::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(s: &mut Storage) -> Option<&mut [Self]> {
                match s {
                    Storage::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> Storage {
                Storage::$variant(v)
            }
            fn from_count($i: u64) -> Self {
                $from
            }
        }
    };
}

elem!(bool, Bool, |i| i != 0);
elem!(i8, I8, |i| i as i8);
elem!(i16, I16, |i| i as i16);
elem!(i32, I32, |i| i as i32);
elem!(i64, I64, |i| i as i64);
elem!(u8, U8, |i| i as u8);
elem!(u16, U16, |i| i as u16);
elem!(u32, U32, |i| i as u32);
elem!(u64, U64, |i| i);
elem!(f16, F16, |i| f16::from_f64(i as f64));
elem!(bf16, BF16, |i| bf16::from_f64(i as f64));
elem!(f32, F32, |i| i as f32);
elem!(f64, F64, |i| i as f64);
elem!(Complex32, C64, |i| Complex32::new(i as f32, 0.0));
elem!(Complex64, C128, |i| Complex64::new(i as f64, 0.0));

/// [`dispatch_dtype!`] for kernels that only move elements (copies, views, gathers), which
/// are the same for every element type: complex values included.
#[macro_export]
macro_rules! dispatch_movable {
    ($dtype:expr, $t:ident => $body:expr) => {{
        match $dtype {
            systolic_ir::DType::C64 => {
                type $t = num_complex::Complex32;
                $body
            }
            systolic_ir::DType::C128 => {
                type $t = num_complex::Complex64;
                $body
            }
            d => $crate::dispatch_dtype!(d, $t => $body),
        }
    }};
}

/// Runs `$body` with the type alias `$t` set to the storage type of `$dtype`.
#[macro_export]
macro_rules! dispatch_dtype {
    ($dtype:expr, $t:ident => $body:expr) => {{
        use systolic_ir::DType as D;
        match $dtype {
            D::Bool => {
                type $t = bool;
                $body
            }
            D::I2 | D::I4 | D::I8 => {
                type $t = i8;
                $body
            }
            D::I16 => {
                type $t = i16;
                $body
            }
            D::I32 => {
                type $t = i32;
                $body
            }
            D::I64 => {
                type $t = i64;
                $body
            }
            D::U2 | D::U4 | D::U8 => {
                type $t = u8;
                $body
            }
            D::U16 => {
                type $t = u16;
                $body
            }
            D::U32 => {
                type $t = u32;
                $body
            }
            D::U64 => {
                type $t = u64;
                $body
            }
            D::F16 => {
                type $t = half::f16;
                $body
            }
            D::BF16 => {
                type $t = half::bf16;
                $body
            }
            D::F32 => {
                type $t = f32;
                $body
            }
            D::F64 => {
                type $t = f64;
                $body
            }
            // Ops computing on complex values run on the interpreter fallback
            // (`kernels::lower_native`; data movement uses `dispatch_movable!`); a kernel built
            // for them anyway reports it rather than computing.
            d @ (D::C64 | D::C128) => Err($crate::CpuError::new(format!(
                "no native kernel for {d} elements (complex values run on the interpreter)"
            ))),
            d @ (D::F8E4M3FN
            | D::F8E5M2
            | D::F8E4M3FNUZ
            | D::F8E5M2FNUZ
            | D::F8E4M3B11FNUZ
            | D::F8E3M4
            | D::F8E4M3
            | D::F8E8M0FNU
            | D::F6E2M3FN
            | D::F6E3M2FN
            | D::F4E2M1FN) => Err($crate::CpuError::new(format!(
                "no native kernel for {d} elements (narrow floats run on the interpreter)"
            ))),
        }
    }};
}

/// The elements of `b` as `T`, or an error naming the kernel and the type found.
pub fn elems<'b, T: Elem>(b: &'b CpuBuffer, kernel: &str) -> crate::Result<&'b [T]> {
    T::slice(b.storage()).ok_or_else(|| {
        crate::CpuError::new(format!(
            "{kernel}: operand of type {} does not hold the expected element type",
            b.ty()
        ))
    })
}

/// True for the integer types stored wider than their width (i2, i4, u2, u4): kernels that
/// compute new integer values leave them to the interpreter.
pub fn is_sub_byte(dtype: DType) -> bool {
    matches!(dtype, DType::I2 | DType::I4 | DType::U2 | DType::U4)
}

/// An integer scalar operand (a start index) as i64; unsigned values above i64::MAX saturate.
pub fn index_scalar(b: &CpuBuffer) -> crate::Result<i64> {
    let v = match b.storage() {
        Storage::I8(v) => v.first().map(|&x| x as i64),
        Storage::I16(v) => v.first().map(|&x| x as i64),
        Storage::I32(v) => v.first().map(|&x| x as i64),
        Storage::I64(v) => v.first().copied(),
        Storage::U8(v) => v.first().map(|&x| x as i64),
        Storage::U16(v) => v.first().map(|&x| x as i64),
        Storage::U32(v) => v.first().map(|&x| x as i64),
        Storage::U64(v) => v.first().map(|&x| x.min(i64::MAX as u64) as i64),
        _ => None,
    };
    match (v, b.num_elements()) {
        (Some(x), 1) => Ok(x),
        _ => Err(crate::CpuError::new(format!(
            "a start index must be an integer scalar, got {}",
            b.ty()
        ))),
    }
}
