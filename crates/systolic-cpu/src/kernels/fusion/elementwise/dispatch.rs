//! Macros that turn a runtime dtype into the lane type (and width, or float format) that
//! instantiates the generic instruction bodies.

/// `with_int!(dtype, T, BITS => body)`: `body` with `T` the lane type and `BITS` the width of
/// an integer dtype; evaluates to `None` for other dtypes.
macro_rules! with_int {
    ($dtype:expr, $T:ident, $B:ident => $body:expr) => {{
        use systolic_ir::DType as D;
        match $dtype {
            D::I2 => {
                type $T = i8;
                #[allow(dead_code)]
                const $B: u32 = 2;
                Some($body)
            }
            D::I4 => {
                type $T = i8;
                #[allow(dead_code)]
                const $B: u32 = 4;
                Some($body)
            }
            D::I8 => {
                type $T = i8;
                #[allow(dead_code)]
                const $B: u32 = 8;
                Some($body)
            }
            D::I16 => {
                type $T = i16;
                #[allow(dead_code)]
                const $B: u32 = 16;
                Some($body)
            }
            D::I32 => {
                type $T = i32;
                #[allow(dead_code)]
                const $B: u32 = 32;
                Some($body)
            }
            D::I64 => {
                type $T = i64;
                #[allow(dead_code)]
                const $B: u32 = 64;
                Some($body)
            }
            D::U2 => {
                type $T = u8;
                #[allow(dead_code)]
                const $B: u32 = 2;
                Some($body)
            }
            D::U4 => {
                type $T = u8;
                #[allow(dead_code)]
                const $B: u32 = 4;
                Some($body)
            }
            D::U8 => {
                type $T = u8;
                #[allow(dead_code)]
                const $B: u32 = 8;
                Some($body)
            }
            D::U16 => {
                type $T = u16;
                #[allow(dead_code)]
                const $B: u32 = 16;
                Some($body)
            }
            D::U32 => {
                type $T = u32;
                #[allow(dead_code)]
                const $B: u32 = 32;
                Some($body)
            }
            D::U64 => {
                type $T = u64;
                #[allow(dead_code)]
                const $B: u32 = 64;
                Some($body)
            }
            _ => None,
        }
    }};
}

/// `with_float!(dtype, F => body)`: `body` with `F` the [`super::lanes::Format`] of a float
/// dtype; `None` for other dtypes.
macro_rules! with_float {
    ($dtype:expr, $F:ident => $body:expr) => {{
        use systolic_ir::DType as D;
        match $dtype {
            D::F32 => {
                type $F = $crate::kernels::fusion::elementwise::lanes::F32Format;
                Some($body)
            }
            D::F64 => {
                type $F = $crate::kernels::fusion::elementwise::lanes::F64Format;
                Some($body)
            }
            D::BF16 => {
                type $F = $crate::kernels::fusion::elementwise::lanes::Bf16Format;
                Some($body)
            }
            D::F16 => {
                type $F = $crate::kernels::fusion::elementwise::lanes::F16Format;
                Some($body)
            }
            _ => None,
        }
    }};
}

/// `with_lane!(lane, T => body)`: `body` with `T` the Rust type of a [`super::super::reg::Lane`].
macro_rules! with_lane {
    ($lane:expr, $T:ident => $body:expr) => {{
        use $crate::kernels::fusion::reg::Lane as L;
        match $lane {
            L::Bool => {
                type $T = bool;
                $body
            }
            L::I8 => {
                type $T = i8;
                $body
            }
            L::I16 => {
                type $T = i16;
                $body
            }
            L::I32 => {
                type $T = i32;
                $body
            }
            L::I64 => {
                type $T = i64;
                $body
            }
            L::U8 => {
                type $T = u8;
                $body
            }
            L::U16 => {
                type $T = u16;
                $body
            }
            L::U32 => {
                type $T = u32;
                $body
            }
            L::U64 => {
                type $T = u64;
                $body
            }
            L::F32 => {
                type $T = f32;
                $body
            }
            L::F64 => {
                type $T = f64;
                $body
            }
            L::C64 => {
                type $T = num_complex::Complex32;
                $body
            }
            L::C128 => {
                type $T = num_complex::Complex64;
                $body
            }
        }
    }};
}

pub(crate) use {with_float, with_int, with_lane};
