//! [`DotPlan`]: a `dot_general` prepared at compile time — geometry, strides and the kernel
//! chosen for its dtypes — so that running it is only arithmetic.
//!
//! Routes by (operand dtypes → result dtype):
//! - f32 × f32 → f32 and f64 × f64 → f64: the `gemm` crate (f32 accumulates in f32 as on
//!   XLA:CPU); `complex<f32>` and `complex<f64>` alike on its complex kernels.
//! - bf16 × bf16 → f32 / bf16: our `vdpbf16ps` kernel, f32 accumulation, bf16 results rounded
//!   once at the end; on CPUs without AVX512-BF16, converted to f32 for `gemm`.
//! - int8 × int8 → any integer of at most 32 bits: our `vpdpbusd` kernel (i32 wrapping, then
//!   truncated: the same bits as wrapping at the narrower width).
//! - Other float results (f16, mixed or integer operands): operands converted to f32 (f64 for
//!   f64 results) and multiplied by `gemm`, results rounded once.
//! - Other integer and boolean results: exact wrapping loops.
//!
//! Tolerance against the interpreter (which sums in f64 and rounds once): for f32
//! accumulation, `|got − want| ≤ c · K · eps_f32 · Σ_k |a_k||b_k|` plus one rounding of the
//! result dtype; the tests use that bound with `c = 2`.

use super::convert;
use super::float::{gemm_batched, BatchedShape, GemmFloat};
use super::layout::{gather, DotGeometry, MatView, OperandAccess};
use super::packed::{self, bf16::Bf16Kernel, int8::I8Kernel};
use super::slabs;
use crate::buffer::{CpuBuffer, Storage};
use crate::cpu_bail;
use crate::error::Result;
use crate::kernels::fusion::elementwise::complex::ComplexLane;
use num_complex::Complex64;
use std::borrow::Cow;
use systolic_ir::{DType, DotDimensionNumbers, TensorType};

/// The kernel a plan runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotRoute {
    /// f32 × f32 → f32 on `gemm`.
    F32,
    /// f64 × f64 → f64 on `gemm`.
    F64,
    /// complex<f32> × complex<f32> → complex<f32> on `gemm`'s c32 kernels.
    C64,
    /// complex<f64> × complex<f64> → complex<f64> on `gemm`'s c64 kernels.
    C128,
    /// bf16 × bf16 → f32 or bf16 on the packed bf16 kernel.
    Bf16(Bf16Kernel),
    /// int8 × int8 → integer (≤ 32 bits) on the packed int8 kernel.
    Int8(I8Kernel),
    /// bf16 × bf16 → f32 or bf16 on AMX tiles.
    AmxBf16,
    /// int8 × int8 → integer (≤ 32 bits) on AMX tiles.
    AmxInt8,
    /// Operands converted to f32, `gemm`, result converted (f16, bf16, f32 results).
    ViaF32,
    /// Operands converted to f64, `gemm` (f64 results).
    ViaF64,
    /// Exact wrapping integer loops.
    Wrapping,
    /// Boolean loops (or of ands).
    Bool,
}

/// A prepared `dot_general`: call [`DotPlan::run`] with buffers of the planned types.
#[derive(Clone, Debug)]
pub struct DotPlan {
    lhs_ty: TensorType,
    rhs_ty: TensorType,
    out_ty: TensorType,
    geometry: DotGeometry,
    route: DotRoute,
    /// Every result is multiplied by this (1 unless [`DotPlan::with_scale`]).
    scale: f64,
}

impl DotPlan {
    /// Plans `out = dot_general(lhs, rhs)`; errors name the shapes when the dimension numbers
    /// or the result type do not fit.
    pub fn new(
        lhs: &TensorType,
        rhs: &TensorType,
        dims: &DotDimensionNumbers,
        out: &TensorType,
    ) -> Result<DotPlan> {
        let geometry = DotGeometry::new(lhs, rhs, dims)?;
        if geometry.out_shape != out.shape {
            cpu_bail!(
                "dot_general of {lhs} and {rhs} gives shape {:?}, but the result type is {out}",
                geometry.out_shape
            );
        }
        let Some(route) = route_for(lhs.dtype, rhs.dtype, out.dtype) else {
            cpu_bail!("dot_general of {lhs} and {rhs} into {out} has no native kernel");
        };
        let route = if amx_worthwhile(&geometry) {
            match route {
                DotRoute::Bf16(_) => DotRoute::AmxBf16,
                DotRoute::Int8(_) => DotRoute::AmxInt8,
                r => r,
            }
        } else {
            route
        };
        Ok(DotPlan {
            lhs_ty: lhs.clone(),
            rhs_ty: rhs.clone(),
            out_ty: out.clone(),
            geometry,
            route,
            scale: 1.0,
        })
    }

    /// The same plan with every result multiplied by `scale` inside the product (the `gemm`
    /// routes only; see [`super::scaled`] for when that is exact). Other routes ignore it, so
    /// callers check [`DotPlan::route`] first.
    pub fn with_scale(mut self, scale: f64) -> DotPlan {
        self.scale = scale;
        self
    }

    /// The same plan forced onto another route (for tests of the portable kernels).
    pub fn with_route(mut self, route: DotRoute) -> DotPlan {
        self.route = route;
        self
    }

    /// The kernel chosen.
    pub fn route(&self) -> DotRoute {
        self.route
    }

    /// The batched-matrix geometry.
    pub fn geometry(&self) -> &DotGeometry {
        &self.geometry
    }

    /// The result type.
    pub fn out_type(&self) -> &TensorType {
        &self.out_ty
    }

    /// A short description: `dot_general bf16[B,M,K]x[B,K,N]->f32 (Bf16(Avx512))`.
    pub fn describe(&self) -> String {
        let g = &self.geometry;
        format!(
            "dot_general {}[{},{},{}]x{}[{},{},{}]->{} ({:?})",
            self.lhs_ty.dtype,
            g.batch,
            g.m,
            g.k,
            self.rhs_ty.dtype,
            g.batch,
            g.k,
            g.n,
            self.out_ty.dtype,
            self.route
        )
    }

    /// Computes the product into `out` (every element is written).
    pub fn run(&self, lhs: &CpuBuffer, rhs: &CpuBuffer, out: &mut CpuBuffer) -> Result<()> {
        for (what, got, want) in [
            ("lhs", lhs.ty(), &self.lhs_ty),
            ("rhs", rhs.ty(), &self.rhs_ty),
            ("result", out.ty(), &self.out_ty),
        ] {
            if got != want {
                cpu_bail!(
                    "dot_general planned for {} x {} -> {} got a {what} of type {got}",
                    self.lhs_ty,
                    self.rhs_ty,
                    self.out_ty
                );
            }
        }
        self.run_storage(lhs.storage(), rhs.storage(), out.storage_mut())
    }

    /// Like [`DotPlan::run`] on bare storage: each must hold the planned dtype and element
    /// count (the shapes are the plan's; a caller may pass, say, an NHWC tensor's storage as a
    /// `[1, N·H·W, C]` operand without copying it).
    pub fn run_storage(&self, ls: &Storage, rs: &Storage, out: &mut Storage) -> Result<()> {
        for (what, got, want) in [
            ("lhs", ls, &self.lhs_ty),
            ("rhs", rs, &self.rhs_ty),
            ("result", &*out, &self.out_ty),
        ] {
            if got.len() != want.num_elements() || !got.holds(want.dtype) {
                cpu_bail!(
                    "dot_general planned for {} x {} -> {} got {what} storage of {} elements that does not fit {want}",
                    self.lhs_ty,
                    self.rhs_ty,
                    self.out_ty,
                    got.len()
                );
            }
        }
        if matches!(self.route, DotRoute::AmxBf16 | DotRoute::AmxInt8) && !packed::amx::available()
        {
            cpu_bail!(
                "dot_general: route {:?} needs AMX, which this CPU or OS does not offer",
                self.route
            );
        }
        let g = &self.geometry;
        let shape = BatchedShape {
            batch: g.batch,
            m: g.m,
            n: g.n,
            k: g.k,
        };
        let out_dtype = self.out_ty.dtype;
        let mismatch = || {
            crate::error::CpuError::new(format!(
                "dot_general route {:?} does not fit {} x {} -> {}",
                self.route, self.lhs_ty, self.rhs_ty, self.out_ty
            ))
        };
        match self.route {
            DotRoute::F32 => {
                let (Storage::F32(l), Storage::F32(r), Storage::F32(o)) = (ls, rs, out) else {
                    return Err(mismatch());
                };
                let (l, lv, r, rv) = self.operands(l, r);
                gemm_batched(shape, &l, lv, &r, rv, o, self.scale as f32);
            }
            DotRoute::F64 => {
                let (Storage::F64(l), Storage::F64(r), Storage::F64(o)) = (ls, rs, out) else {
                    return Err(mismatch());
                };
                let (l, lv, r, rv) = self.operands(l, r);
                gemm_batched(shape, &l, lv, &r, rv, o, self.scale);
            }
            DotRoute::C64 => {
                let (Storage::C64(l), Storage::C64(r), Storage::C64(o)) = (ls, rs, out) else {
                    return Err(mismatch());
                };
                let (l, lv, r, rv) = self.operands(l, r);
                let scale = num_complex::Complex32::new(self.scale as f32, 0.0);
                complex_product(shape, &l, lv, &r, rv, o, scale);
            }
            DotRoute::C128 => {
                let (Storage::C128(l), Storage::C128(r), Storage::C128(o)) = (ls, rs, out) else {
                    return Err(mismatch());
                };
                let (l, lv, r, rv) = self.operands(l, r);
                let scale = num_complex::Complex64::new(self.scale, 0.0);
                complex_product(shape, &l, lv, &r, rv, o, scale);
            }
            DotRoute::Bf16(kernel) => {
                let (Storage::BF16(l), Storage::BF16(r)) = (ls, rs) else {
                    return Err(mismatch());
                };
                let (l, lv, r, rv) = self.operands(l, r);
                if !convert::into_float(out, |o| packed::run(&kernel, shape, &l, lv, &r, rv, o)) {
                    return Err(mismatch());
                }
            }
            DotRoute::AmxBf16 => {
                let (Storage::BF16(l), Storage::BF16(r)) = (ls, rs) else {
                    return Err(mismatch());
                };
                let (l, lv, r, rv) = self.operands(l, r);
                match out {
                    Storage::F32(o) => packed::amx::run(shape, &l, lv, &r, rv, o),
                    Storage::BF16(o) => packed::amx::run_bf16(shape, &l, lv, &r, rv, o),
                    _ => return Err(mismatch()),
                }
            }
            DotRoute::Int8(_) | DotRoute::AmxInt8 => {
                let (Storage::I8(l), Storage::I8(r)) = (ls, rs) else {
                    return Err(mismatch());
                };
                let (l, lv, r, rv) = self.operands(l, r);
                let run = |o: &mut [i32]| match self.route {
                    DotRoute::Int8(kernel) => {
                        packed::int8::run_i8(kernel, shape, &l, lv, &r, rv, o)
                    }
                    _ => packed::amx::run(shape, &l, lv, &r, rv, o),
                };
                match out {
                    Storage::I32(o) => run(o),
                    other => {
                        let mut acc = vec![0i32; self.out_ty.num_elements()];
                        run(&mut acc);
                        let wide: Vec<u64> = acc.iter().map(|&x| x as i64 as u64).collect();
                        if !convert::write_wrapping(other, out_dtype, &wide) {
                            return Err(mismatch());
                        }
                    }
                }
            }
            DotRoute::ViaF32 => {
                if let (OperandAccess::Strided(lv), OperandAccess::Strided(rv)) = (&g.lhs, &g.rhs) {
                    if slabs::product(slabs::Slabs::default(), shape, ls, *lv, rs, *rv, out) {
                        return Ok(());
                    }
                }
                let (l, r) = (convert::to_f32(ls), convert::to_f32(rs));
                let written = {
                    let (l, lv, r, rv) = self.operands(&l, &r);
                    convert::into_float(out, |o| gemm_batched(shape, &l, lv, &r, rv, o, 1.0))
                };
                crate::pool::recycle_vec(l);
                crate::pool::recycle_vec(r);
                if !written {
                    return Err(mismatch());
                }
            }
            DotRoute::ViaF64 => {
                let (l, r) = (convert::to_f64(ls), convert::to_f64(rs));
                let (l, lv, r, rv) = self.operands(&l, &r);
                let mut acc = vec![0f64; self.out_ty.num_elements()];
                gemm_batched(shape, &l, lv, &r, rv, &mut acc, 1.0);
                match out {
                    Storage::F64(o) => o.copy_from_slice(&acc),
                    _ => return Err(mismatch()),
                }
            }
            DotRoute::Wrapping => {
                let l = convert::to_wrapping(ls, out_dtype);
                let r = convert::to_wrapping(rs, out_dtype);
                let (l, lv, r, rv) = self.operands(&l, &r);
                let acc = convert::loops(shape, &l, lv, &r, rv);
                if !convert::write_wrapping(out, out_dtype, &acc) {
                    return Err(mismatch());
                }
            }
            DotRoute::Bool => {
                let (l, r) = (convert::to_bool(ls), convert::to_bool(rs));
                let (l, lv, r, rv) = self.operands(&l, &r);
                let acc = convert::loops(shape, &l, lv, &r, rv);
                match out {
                    Storage::Bool(o) => o.copy_from_slice(&acc),
                    _ => return Err(mismatch()),
                }
            }
        }
        Ok(())
    }

    /// Both operands as strided batches, gathering those whose groups need it.
    #[allow(clippy::type_complexity)]
    fn operands<'a, T: Copy>(
        &self,
        lhs: &'a [T],
        rhs: &'a [T],
    ) -> (Cow<'a, [T]>, MatView, Cow<'a, [T]>, MatView) {
        let g = &self.geometry;
        let (l, lv) = view(lhs, &g.lhs, g.m, g.k);
        let (r, rv) = view(rhs, &g.rhs, g.k, g.n);
        (l, lv, r, rv)
    }
}

/// An operand as a strided batch of `rows × cols` matrices.
fn view<'a, T: Copy>(
    data: &'a [T],
    access: &OperandAccess,
    rows: usize,
    cols: usize,
) -> (Cow<'a, [T]>, MatView) {
    match access {
        OperandAccess::Strided(v) => (Cow::Borrowed(data), *v),
        OperandAccess::Gathered(dims) => (
            Cow::Owned(gather(data, dims)),
            MatView::contiguous(rows, cols),
        ),
    }
}

/// A complex product on `gemm`, or — when an operand holds an infinity or a NaN, or a sum
/// overflows — in plain loops the interpreter's way (`Complex64` products and sums in k
/// order, operands read with DAZ, parts rounded once, IEEE arithmetic): `gemm` multiplies
/// every sum by its complex `beta` (here 1), which turns an infinite part into NaN (`inf · 0`
/// in the cross terms) where the interpreter keeps the infinity. Scanning the operands and
/// the result is linear, the product is not.
fn complex_product<C: ComplexLane + GemmFloat>(
    shape: BatchedShape,
    lhs: &[C],
    lv: MatView,
    rhs: &[C],
    rv: MatView,
    out: &mut [C],
    scale: C,
) {
    let finite = |v: &[C]| v.iter().all(|z| z.is_finite());
    if finite(lhs) && finite(rhs) {
        gemm_batched(shape, lhs, lv, rhs, rv, out, scale);
        if finite(out) {
            return;
        }
    }
    let _ieee = crate::threads::DenormalMode::ieee();
    let widen = |v: &[C]| -> Vec<Complex64> { v.iter().map(|z| z.widen_flushed()).collect() };
    let (l, r) = (widen(lhs), widen(rhs));
    let sums = convert::loops(shape, &l, lv, &r, rv);
    let scale = scale.widen();
    for (o, z) in out.iter_mut().zip(sums) {
        *o = C::rounded(if scale == Complex64::new(1.0, 0.0) {
            z
        } else {
            z * scale
        });
    }
}

/// AMX pays when its 32 × 32 tiles are mostly used and the CPU and OS allow it.
fn amx_worthwhile(g: &DotGeometry) -> bool {
    g.m >= 16 && g.n >= 16 && g.k >= 32 && packed::amx::available()
}

/// The kernel for a combination of dtypes (`None`: complex values mixed with other dtypes,
/// which the interpreter fallback computes).
pub fn route_for(lhs: DType, rhs: DType, out: DType) -> Option<DotRoute> {
    use DType::*;
    let int8 = |d: DType| matches!(d, I2 | I4 | I8);
    Some(match (lhs, rhs, out) {
        (C64, C64, C64) => DotRoute::C64,
        (C128, C128, C128) => DotRoute::C128,
        (l, r, o) if l.is_complex() || r.is_complex() || o.is_complex() => return None,
        (F32, F32, F32) => DotRoute::F32,
        (F64, F64, F64) => DotRoute::F64,
        (BF16, BF16, F32 | BF16) => match Bf16Kernel::detect() {
            Bf16Kernel::Scalar => DotRoute::ViaF32,
            k => DotRoute::Bf16(k),
        },
        (l, r, o) if int8(l) && int8(r) && o.is_integer() && o.bit_width() <= 32 => {
            DotRoute::Int8(I8Kernel::detect())
        }
        (_, _, F64) => DotRoute::ViaF64,
        (_, _, o) if o.is_float() => DotRoute::ViaF32,
        (_, _, o) if o.is_integer() => DotRoute::Wrapping,
        _ => DotRoute::Bool,
    })
}
