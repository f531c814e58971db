//! Registers of the loop programs: one block of elements (a few hundred, sized for L1) in a
//! compute type. Every dtype computes in a lane type: f16 and bf16 in f32 (rounded back to their
//! format after each op, as XLA:CPU does), the sub-byte integers in i8/u8 (wrapped to their
//! width after each op), every other dtype in itself; `complex<f32>` and `complex<f64>` in
//! lanes of `num_complex` pairs (each op computing in `Complex64` and rounding its parts, as
//! the interpreter does, see [`super::elementwise::complex`]).

use num_complex::{Complex32, Complex64};
use systolic_ir::DType;

/// The compute type of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    /// `bool`.
    Bool,
    /// `i8` (also i2, i4).
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u8` (also u2, u4).
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `f32` (also f16, bf16).
    F32,
    /// `f64`.
    F64,
    /// `complex<f32>`.
    C64,
    /// `complex<f64>`.
    C128,
}

impl Lane {
    /// The lane a dtype computes in.
    pub fn of(dtype: DType) -> Lane {
        use DType::*;
        match dtype {
            Bool => Lane::Bool,
            I2 | I4 | I8 => Lane::I8,
            I16 => Lane::I16,
            I32 => Lane::I32,
            I64 => Lane::I64,
            U2 | U4 | U8 => Lane::U8,
            U16 => Lane::U16,
            U32 => Lane::U32,
            U64 => Lane::U64,
            F16 | BF16 | F32 => Lane::F32,
            F64 => Lane::F64,
            C64 => Lane::C64,
            C128 => Lane::C128,
            // Narrow floats go to the fallback the same way (see `kernels::interpreter_only`);
            // XLA computes them in f32.
            F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E3M4 | F8E4M3
            | F8E8M0FNU | F6E2M3FN | F6E3M2FN | F4E2M1FN => Lane::F32,
        }
    }
}

/// The lanes of a register: a vector it owns, or for a while a view of a buffer it reads in
/// place (see [`Reg::view`]). Reads go through `Deref`; a write to a view copies it into the
/// owned vector first, so a view is never written through.
pub struct Lanes<T> {
    owned: Vec<T>,
    /// The viewed lanes (null: none, the owned vector is the value).
    view: *const T,
    view_len: usize,
    /// Lane 0 of the owned vector is the value of every lane (see [`Reg::splat`]); reads see
    /// that one lane, so only bodies that expect a splat (see [`splat`]) can read the block.
    splat: bool,
}

// SAFETY: a view is only read, and only while the buffer it points into is alive and not
// written (the contract of `Reg::view`); the lanes are then shared like a `&[T]`.
unsafe impl<T: Sync> Send for Lanes<T> {}
// SAFETY: as above: shared access only reads.
unsafe impl<T: Sync> Sync for Lanes<T> {}

impl<T> From<Vec<T>> for Lanes<T> {
    fn from(owned: Vec<T>) -> Self {
        Lanes {
            owned,
            view: std::ptr::null(),
            view_len: 0,
            splat: false,
        }
    }
}

impl<T> std::ops::Deref for Lanes<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        if self.splat {
            &self.owned[..1]
        } else if self.view.is_null() {
            &self.owned
        } else {
            // SAFETY: set by `Reg::view`, whose caller keeps the viewed buffer alive and
            // unwritten for as long as the register is read.
            unsafe { std::slice::from_raw_parts(self.view, self.view_len) }
        }
    }
}

impl<T: Copy> std::ops::DerefMut for Lanes<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        if !self.view.is_null() {
            self.copy_view();
        }
        self.splat = false;
        &mut self.owned
    }
}

impl<T> Lanes<T> {
    /// Drops the view, if any, without copying it: the owned vector (stale contents) is the
    /// value again. For a register about to be overwritten.
    #[inline]
    fn unview(&mut self) {
        self.view = std::ptr::null();
        self.splat = false;
    }

    /// The address of the owned vector's lanes (for tests of register reuse).
    #[cfg(test)]
    pub fn owned_address(&self) -> usize {
        self.owned.as_ptr() as usize
    }
}

impl<T: Copy> Lanes<T> {
    #[cold]
    fn copy_view(&mut self) {
        // SAFETY: as in `deref`.
        let view = unsafe { std::slice::from_raw_parts(self.view, self.view_len) };
        if self.owned.len() < view.len() {
            self.owned.resize(view.len(), view[0]);
        }
        self.owned[..view.len()].copy_from_slice(view);
        self.view = std::ptr::null();
    }
}

impl<T: Copy> Clone for Lanes<T> {
    fn clone(&self) -> Self {
        Lanes::from(self.to_vec())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Lanes<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for Lanes<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

/// One register: a block of elements of one lane type.
#[derive(Clone, Debug, PartialEq)]
pub enum Reg {
    /// Booleans.
    Bool(Lanes<bool>),
    /// i8 lanes.
    I8(Lanes<i8>),
    /// i16 lanes.
    I16(Lanes<i16>),
    /// i32 lanes.
    I32(Lanes<i32>),
    /// i64 lanes.
    I64(Lanes<i64>),
    /// u8 lanes.
    U8(Lanes<u8>),
    /// u16 lanes.
    U16(Lanes<u16>),
    /// u32 lanes.
    U32(Lanes<u32>),
    /// u64 lanes.
    U64(Lanes<u64>),
    /// f32 lanes.
    F32(Lanes<f32>),
    /// f64 lanes.
    F64(Lanes<f64>),
    /// `complex<f32>` lanes.
    C64(Lanes<Complex32>),
    /// `complex<f64>` lanes.
    C128(Lanes<Complex64>),
}

impl Default for Reg {
    fn default() -> Self {
        Reg::Bool(Lanes::from(Vec::new()))
    }
}

/// Applies `$body` to the lanes of any register, bound to `$v`.
macro_rules! with_lanes {
    ($reg:expr, $v:ident => $body:expr) => {
        match $reg {
            Reg::Bool($v) => $body,
            Reg::I8($v) => $body,
            Reg::I16($v) => $body,
            Reg::I32($v) => $body,
            Reg::I64($v) => $body,
            Reg::U8($v) => $body,
            Reg::U16($v) => $body,
            Reg::U32($v) => $body,
            Reg::U64($v) => $body,
            Reg::F32($v) => $body,
            Reg::F64($v) => $body,
            Reg::C64($v) => $body,
            Reg::C128($v) => $body,
        }
    };
}

impl Reg {
    /// A zeroed register of `len` lanes.
    pub fn new(lane: Lane, len: usize) -> Reg {
        match lane {
            Lane::Bool => Reg::Bool(vec![false; len].into()),
            Lane::I8 => Reg::I8(vec![0; len].into()),
            Lane::I16 => Reg::I16(vec![0; len].into()),
            Lane::I32 => Reg::I32(vec![0; len].into()),
            Lane::I64 => Reg::I64(vec![0; len].into()),
            Lane::U8 => Reg::U8(vec![0; len].into()),
            Lane::U16 => Reg::U16(vec![0; len].into()),
            Lane::U32 => Reg::U32(vec![0; len].into()),
            Lane::U64 => Reg::U64(vec![0; len].into()),
            Lane::F32 => Reg::F32(vec![0.0; len].into()),
            Lane::F64 => Reg::F64(vec![0.0; len].into()),
            Lane::C64 => Reg::C64(vec![Complex32::new(0.0, 0.0); len].into()),
            Lane::C128 => Reg::C128(vec![Complex64::new(0.0, 0.0); len].into()),
        }
    }

    /// True when this is a register of `len` lanes of `lane` that owns them (what
    /// [`Reg::new`] would make, up to its contents).
    pub fn fits(&self, lane: Lane, len: usize) -> bool {
        let of = match self {
            Reg::Bool(_) => Lane::Bool,
            Reg::I8(_) => Lane::I8,
            Reg::I16(_) => Lane::I16,
            Reg::I32(_) => Lane::I32,
            Reg::I64(_) => Lane::I64,
            Reg::U8(_) => Lane::U8,
            Reg::U16(_) => Lane::U16,
            Reg::U32(_) => Lane::U32,
            Reg::U64(_) => Lane::U64,
            Reg::F32(_) => Lane::F32,
            Reg::F64(_) => Lane::F64,
            Reg::C64(_) => Lane::C64,
            Reg::C128(_) => Lane::C128,
        };
        of == lane && with_lanes!(self, v => v.owned.len() == len)
    }

    /// Makes the register read `lanes` in place instead of a copy of them (a load of a
    /// contiguous run of a buffer in the register's own lane type).
    ///
    /// # Safety
    /// The buffer `lanes` borrows must stay alive and unwritten for as long as the register
    /// is read, until the register is overwritten (a load, an op's result) or dropped.
    pub unsafe fn view<T: LaneType>(&mut self, lanes: &[T]) {
        let l = T::lanes_of(self);
        l.view = lanes.as_ptr();
        l.view_len = lanes.len();
        l.splat = false;
    }

    /// Marks the register's lane 0 (already written) as the value of every lane of the
    /// block: a value uniform over a row is loaded once instead of filled into every lane,
    /// and the bodies reading it (see [`splat`]) take it as a scalar operand. Cleared when
    /// the register is written again.
    pub fn splat(&mut self) {
        with_lanes!(self, v => v.splat = true)
    }

    /// Drops a view (see [`Reg::view`]) without copying it, for a register about to be
    /// overwritten: it holds its own (stale) lanes again.
    #[inline]
    pub fn unview(&mut self) {
        with_lanes!(self, v => v.unview())
    }

    /// The address of the lanes this register views, if it is a view (see [`Reg::view`]):
    /// a store of it to that same address has nothing to write (an in-place update storing
    /// an operand's block back unchanged).
    #[inline]
    pub fn viewed_address(&self) -> Option<usize> {
        with_lanes!(self, v => (!v.view.is_null() && !v.splat).then_some(v.view as usize))
    }
}

/// A Rust type that is a lane type, with typed access to registers holding it.
///
/// The planner gives every instruction registers of the lanes it expects, so a mismatch is a
/// bug in the planner, not bad input; the accessors then panic naming both lanes.
pub trait LaneType: Copy + Default + PartialEq + Send + Sync + 'static {
    /// The lane this type is.
    const LANE: Lane;
    /// The lanes of a register of this type.
    fn of(reg: &Reg) -> &[Self];
    /// The lanes of a register of this type, mutably.
    fn of_mut(reg: &mut Reg) -> &mut [Self];
    /// The register's lane storage (owned or viewed).
    fn lanes_of(reg: &mut Reg) -> &mut Lanes<Self>;
    /// The register's lane storage, shared.
    fn lanes_ref(reg: &Reg) -> &Lanes<Self>;
}

macro_rules! lane_type {
    ($t:ty, $variant:ident) => {
        impl LaneType for $t {
            const LANE: Lane = Lane::$variant;
            #[inline]
            fn of(reg: &Reg) -> &[Self] {
                match reg {
                    Reg::$variant(v) => v,
                    other => lane_mismatch(Lane::$variant, other),
                }
            }
            #[inline]
            fn of_mut(reg: &mut Reg) -> &mut [Self] {
                match reg {
                    Reg::$variant(v) => v,
                    other => lane_mismatch(Lane::$variant, other),
                }
            }
            #[inline]
            fn lanes_of(reg: &mut Reg) -> &mut Lanes<Self> {
                match reg {
                    Reg::$variant(v) => v,
                    other => lane_mismatch(Lane::$variant, other),
                }
            }
            #[inline]
            fn lanes_ref(reg: &Reg) -> &Lanes<Self> {
                match reg {
                    Reg::$variant(v) => v,
                    other => lane_mismatch(Lane::$variant, other),
                }
            }
        }
    };
}

lane_type!(bool, Bool);
lane_type!(i8, I8);
lane_type!(i16, I16);
lane_type!(i32, I32);
lane_type!(i64, I64);
lane_type!(u8, U8);
lane_type!(u16, U16);
lane_type!(u32, U32);
lane_type!(u64, U64);
lane_type!(f32, F32);
lane_type!(f64, F64);
lane_type!(Complex32, C64);
lane_type!(Complex64, C128);

#[cold]
fn lane_mismatch(want: Lane, got: &Reg) -> ! {
    panic!(
        "fusion planner bug: an instruction expected {want:?} lanes, the register holds {:?}",
        std::mem::discriminant(got)
    )
}

/// An instruction body of one input: `out[..n] = f(a[..n])`.
pub type Fn1 = fn(&Reg, &mut Reg, usize);
/// An instruction body of two inputs.
pub type Fn2 = fn(&Reg, &Reg, &mut Reg, usize);
/// An instruction body of three inputs.
pub type Fn3 = fn(&Reg, &Reg, &Reg, &mut Reg, usize);

/// The first `n` lanes of a register.
#[inline]
pub fn lanes<T: LaneType>(reg: &Reg, n: usize) -> &[T] {
    &T::of(reg)[..n]
}

/// The value of every lane of a splat register (see [`Reg::splat`]), or `None` for a
/// register holding its lanes.
#[inline]
pub fn splat<T: LaneType>(reg: &Reg) -> Option<T> {
    let l = T::lanes_ref(reg);
    l.splat.then(|| l.owned[0])
}

/// The first `n` lanes of a register, mutably.
#[inline]
pub fn lanes_mut<T: LaneType>(reg: &mut Reg, n: usize) -> &mut [T] {
    &mut T::of_mut(reg)[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A register viewing a buffer reads it in place; writing the register copies the view
    /// into its own lanes first (the buffer is never written); a load or an op's result drops
    /// the view without copying.
    #[test]
    fn views_are_read_in_place_and_copied_on_write() {
        let buffer: Vec<f32> = (0..6).map(|i| i as f32).collect();
        let mut reg = Reg::new(Lane::F32, 8);
        // SAFETY: `buffer` outlives every read of `reg` below and is not written.
        unsafe { reg.view(&buffer[1..5]) };
        assert_eq!(lanes::<f32>(&reg, 4), &[1.0, 2.0, 3.0, 4.0]);
        lanes_mut::<f32>(&mut reg, 2)[0] = 9.0;
        assert_eq!(lanes::<f32>(&reg, 4), &[9.0, 2.0, 3.0, 4.0]);
        assert_eq!(buffer[1], 1.0);
        assert_eq!(f32::of(&reg).len(), 8, "the register keeps its width");
        // SAFETY: as above.
        unsafe { reg.view(&buffer[..3]) };
        reg.unview();
        assert_eq!(lanes::<f32>(&reg, 4), &[9.0, 2.0, 3.0, 4.0]);
    }
}
