//! `chlo.mulhi` in StableHLO ops: the high half of the double-width product of two integers.
//!
//! Up to 32 bits the product fits a 64-bit integer: widen, multiply, shift right by the width
//! (arithmetic for signed types, logical for unsigned), narrow. For 64-bit operands the product
//! is assembled from 32-bit halves (the classic `mulhs`/`mulhu` of Hacker's Delight, §8-2): four
//! partial products, carries propagated through the middle word, all in 64-bit arithmetic that
//! wraps as StableHLO integer arithmetic does.

use super::super::simplify::splat::emit_splat_tensor;
use crate::rewrite::Rewriter;
use systolic_ir::{BinaryOp, DType, OpKind, Tensor, TensorType, Type, ValueId};

/// The ops computing `mulhi(x, y)` for integer operands of type `ty`; `None` for other types.
pub fn mulhi(
    rw: &mut Rewriter<'_, '_>,
    ty: &TensorType,
    x: ValueId,
    y: ValueId,
) -> Option<ValueId> {
    let dtype = ty.dtype;
    if !dtype.is_integer() {
        return None;
    }
    let signed = dtype.is_signed_integer();
    let bits = dtype.bit_width();
    let mut e = Emit {
        rw,
        ty: ty.with_dtype(if signed { DType::I64 } else { DType::U64 }),
        signed,
    };
    if bits <= 32 {
        let (xw, yw) = (e.convert(x), e.convert(y));
        let product = e.binary(BinaryOp::Multiply, xw, yw);
        let high = e.shift_right(product, bits as i64, signed);
        return Some(e.convert_to(high, ty));
    }
    // 64 bits: x = x1·2^32 + x0, y = y1·2^32 + y0 (x1, y1 carry the sign when signed).
    let (x0, x1) = (e.low_half(x), e.shift_right(x, 32, signed));
    let (y0, y1) = (e.low_half(y), e.shift_right(y, 32, signed));
    let w0 = e.binary(BinaryOp::Multiply, x0, y0);
    let x1y0 = e.binary(BinaryOp::Multiply, x1, y0);
    let w0_high = e.shift_right(w0, 32, false);
    let t = e.binary(BinaryOp::Add, x1y0, w0_high);
    let w1 = e.low_half(t);
    let w2 = e.shift_right(t, 32, signed);
    let x0y1 = e.binary(BinaryOp::Multiply, x0, y1);
    let w1 = e.binary(BinaryOp::Add, x0y1, w1);
    let x1y1 = e.binary(BinaryOp::Multiply, x1, y1);
    let carry = e.shift_right(w1, 32, signed);
    let high = e.binary(BinaryOp::Add, x1y1, w2);
    Some(e.binary(BinaryOp::Add, high, carry))
}

/// Emits 64-bit integer ops of one shape.
struct Emit<'r, 's, 'a> {
    rw: &'r mut Rewriter<'s, 'a>,
    /// The 64-bit type computed in (i64 or u64).
    ty: TensorType,
    signed: bool,
}

impl Emit<'_, '_, '_> {
    fn binary(&mut self, op: BinaryOp, x: ValueId, y: ValueId) -> ValueId {
        let ty = Type::Tensor(self.ty.clone());
        self.rw.emit1(OpKind::Binary(op), vec![x, y], ty)
    }

    fn splat(&mut self, value: u64) -> ValueId {
        let scalar = if self.signed {
            Tensor::from_i64(vec![], DType::I64, vec![value as i64])
        } else {
            Tensor::from_u64(vec![], DType::U64, vec![value])
        }
        .expect("a 64-bit scalar");
        emit_splat_tensor(self.rw, &self.ty, scalar)
    }

    /// `x >> by`, arithmetic or logical.
    fn shift_right(&mut self, x: ValueId, by: i64, arithmetic: bool) -> ValueId {
        let amount = self.splat(by as u64);
        let op = if arithmetic {
            BinaryOp::ShiftRightArithmetic
        } else {
            BinaryOp::ShiftRightLogical
        };
        self.binary(op, x, amount)
    }

    /// The low 32 bits, as a non-negative value.
    fn low_half(&mut self, x: ValueId) -> ValueId {
        let mask = self.splat(0xFFFF_FFFF);
        self.binary(BinaryOp::And, x, mask)
    }

    fn convert(&mut self, x: ValueId) -> ValueId {
        let ty = Type::Tensor(self.ty.clone());
        self.rw.emit1(OpKind::Convert, vec![x], ty)
    }

    fn convert_to(&mut self, x: ValueId, ty: &TensorType) -> ValueId {
        self.rw
            .emit1(OpKind::Convert, vec![x], Type::Tensor(ty.clone()))
    }
}
