//! Recognising and building splats: tensors whose elements are all the same bit pattern,
//! written as a constant or as a broadcast (or reshape) of one. Identity and absorbing
//! elements of the algebraic rules are matched here, bit for bit, so `-0.0` is not `0.0`.

use crate::rewrite::Rewriter;
use systolic_ir::{DType, DTypeKind, Data, OpKind, Scalar, Tensor, TensorType, Type, ValueId};

/// Special splat values the rules name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// Integer 0, `false`, or float `+0.0`.
    Zero,
    /// Float `-0.0` only.
    NegZero,
    /// 1 or 1.0.
    One,
    /// -1 or -1.0 (signed integers and floats).
    MinusOne,
    /// Every bit set: -1, the unsigned maximum, `true`.
    AllOnes,
    /// The smallest value: INT_MIN, 0 unsigned, `false`, -inf.
    Lowest,
    /// The largest value: INT_MAX, the unsigned maximum, `true`, +inf.
    Highest,
}

/// The element every element of `v` equals, bit for bit, when `v` is a splat; with its dtype.
pub fn splat_of(rw: &Rewriter<'_, '_>, v: ValueId) -> Option<(DType, u64)> {
    let mut v = v;
    // Broadcasts and reshapes of a splat are splats; follow a few of them.
    for _ in 0..8 {
        let (op, _) = rw.producer(v)?;
        match &op.kind {
            OpKind::Constant(t) => return uniform_bits(t).map(|b| (t.dtype(), b)),
            OpKind::BroadcastInDim { .. } | OpKind::Broadcast { .. } | OpKind::Reshape => {
                v = *op.operands.first()?;
            }
            _ => return None,
        }
    }
    None
}

/// The common bit pattern of a non-empty tensor whose elements all have it.
///
/// Compares the stored values, not each element's bit pattern (which converts every element:
/// a 4M-element constant took 60 ms a look, and the rules look often); values equal bit for bit
/// have equal patterns. Only NaNs can have different stored payloads but one pattern, so a
/// float tensor starting with a NaN is compared pattern by pattern. A `complex<f64>` element
/// is 128 bits, more than the pattern holds: never a splat here (a `complex<f32>` is 64).
fn uniform_bits(t: &Tensor) -> Option<u64> {
    fn all_equal<T: PartialEq>(v: &[T]) -> Option<bool> {
        let first = v.first()?;
        Some(v.iter().all(|x| x == first))
    }
    let uniform = match t.data() {
        Data::Bool(v) => all_equal(v)?,
        Data::Int(v) => all_equal(v)?,
        Data::UInt(v) => all_equal(v)?,
        Data::Float(v) if !v.first()?.is_nan() => {
            let first = v[0].to_bits();
            v.iter().all(|x| x.to_bits() == first)
        }
        Data::Float(_) => {
            let first = t.bits(0);
            (1..t.num_elements()).all(|i| t.bits(i) == first)
        }
        Data::Complex(_) if t.dtype() != DType::C64 => return None,
        Data::Complex(_) => {
            let first = t.bits(0);
            (1..t.num_elements()).all(|i| t.bits(i) == first)
        }
    };
    uniform.then(|| t.bits(0))
}

/// A constant of more than one element that is a splat, as a broadcast of its scalar: the
/// module stays small, the rules see the scalar, and backends fuse the broadcast into its
/// users instead of reading an array of copies (a `dense<0.5> : tensor<2048x2048xf32>` is
/// 16 MiB a backend would otherwise hold and stream).
pub fn constant_as_broadcast(rw: &mut Rewriter<'_, '_>, t: &Tensor) -> Option<Vec<ValueId>> {
    if t.num_elements() < 2 {
        return None;
    }
    let bits = uniform_bits(t)?;
    let scalar = scalar_from_bits(t.dtype(), bits)?;
    Some(vec![emit_splat_tensor(rw, t.ty(), scalar)])
}

/// True when `v` is a splat of `special`.
pub fn is_special(rw: &Rewriter<'_, '_>, v: ValueId, special: Special) -> bool {
    splat_of(rw, v).is_some_and(|(dtype, bits)| special_bits(dtype, special) == Some(bits))
}

/// The bit pattern of a special value in `dtype`, if it has one.
pub fn special_bits(dtype: DType, special: Special) -> Option<u64> {
    let width = dtype.bit_width();
    let all_ones = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let sign = 1u64 << (width - 1);
    let float = |x: f64| Some(systolic_ir::numerics::float_to_bits(dtype, x));
    match (dtype.kind(), special) {
        // Complex zero is both parts +0; the rules' other values are not named for complex
        // numbers (and a `complex<f64>` is never a splat, see `uniform_bits`).
        (DTypeKind::Complex, Special::Zero) => Some(0),
        (DTypeKind::Complex, _) => None,
        (DTypeKind::Float, Special::Zero) => Some(0),
        (DTypeKind::Float, Special::NegZero) => Some(sign),
        (DTypeKind::Float, Special::One) => float(1.0),
        (DTypeKind::Float, Special::MinusOne) => float(-1.0),
        (DTypeKind::Signed, Special::MinusOne) => Some(all_ones),
        (_, Special::MinusOne) => None,
        (DTypeKind::Float, Special::AllOnes) => None,
        (DTypeKind::Float, Special::Lowest) => float(f64::NEG_INFINITY),
        (DTypeKind::Float, Special::Highest) => float(f64::INFINITY),
        (_, Special::NegZero) => None,
        (_, Special::Zero) => Some(0),
        (_, Special::One) => Some(1),
        (_, Special::AllOnes) => Some(all_ones),
        (DTypeKind::Signed, Special::Lowest) => Some(sign),
        (DTypeKind::Signed, Special::Highest) => Some(all_ones & !sign),
        (_, Special::Lowest) => Some(0),
        (_, Special::Highest) => Some(all_ones),
    }
}

/// The scalar of a dtype with this bit pattern.
pub fn scalar_from_bits(dtype: DType, bits: u64) -> Option<Tensor> {
    Tensor::from_bits(TensorType::scalar(dtype), &[bits]).ok()
}

/// Emits a splat of `value` with type `ty`: a scalar constant, broadcast when `ty` has rank > 0
/// (a broadcast keeps the module small whatever the shape).
pub fn emit_splat(rw: &mut Rewriter<'_, '_>, ty: &TensorType, value: Scalar) -> Option<ValueId> {
    let scalar = Tensor::splat(TensorType::scalar(ty.dtype), value).ok()?;
    Some(emit_splat_tensor(rw, ty, scalar))
}

/// Emits a broadcast of a rank-0 tensor to `ty` (or the constant itself for rank 0).
pub fn emit_splat_tensor(rw: &mut Rewriter<'_, '_>, ty: &TensorType, scalar: Tensor) -> ValueId {
    let c = rw.emit_constant(scalar);
    if ty.rank() == 0 {
        return c;
    }
    rw.emit1(
        OpKind::BroadcastInDim {
            broadcast_dimensions: vec![],
        },
        vec![c],
        Type::Tensor(ty.clone()),
    )
}
