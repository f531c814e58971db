//! Algebraic rules for elementwise ops, as tables where they are tables: identity elements
//! (`x op e = x`), absorbing elements (`x op z = z`) and idempotent ops (`x op x = x`), each
//! with the element types it is exact for. Float rules are listed only where IEEE arithmetic
//! makes them exact for every input (NaN compared as NaN, signed zeros kept): `x + (-0.0) = x`
//! holds for all x but `x + 0.0` does not (`-0.0 + 0.0 = +0.0`), and `x * 0` is never
//! simplified for floats (NaN, infinities, signed zeros).
//!
//! Like XLA's algebraic simplifier, these rules treat denormal flushing as not observable:
//! `x * 1` is `x` even for a denormal `x`, which XLA:CPU's arithmetic would flush to zero.

use super::splat::{emit_splat, is_special, splat_of, Special};
use crate::rewrite::Rewriter;
use systolic_ir::{
    BinaryOp, ComparisonDirection, DType, DTypeKind, Op, OpKind, Scalar, Type, UnaryOp, ValueId,
};

/// Which element types a rule is exact for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Domain {
    /// Signed and unsigned integers.
    Int,
    /// Integers and `i1`.
    Bits,
    /// Floats only.
    Float,
    /// Integers and floats.
    Numeric,
    /// Every element type.
    Any,
}

impl Domain {
    fn contains(self, dtype: DType) -> bool {
        match self {
            Domain::Int => dtype.is_integer(),
            Domain::Bits => dtype.is_integer() || dtype.is_bool(),
            Domain::Float => dtype.is_float(),
            Domain::Numeric => dtype.is_integer() || dtype.is_float(),
            Domain::Any => true,
        }
    }
}

use BinaryOp::*;
use Domain::*;
use Special::*;

/// `x op e = x` for the right operand `e` (and the left one too when `op` is commutative).
const IDENTITIES: &[(BinaryOp, Special, Domain)] = &[
    (Add, Zero, Int),
    (Add, NegZero, Float),
    (Subtract, Zero, Numeric), // x - (+0.0) = x for every float x, -0.0 included
    (Multiply, One, Numeric),
    (Divide, One, Numeric),
    (And, AllOnes, Bits),
    (Or, Zero, Bits),
    (Xor, Zero, Bits),
    (ShiftLeft, Zero, Int),
    (ShiftRightLogical, Zero, Int),
    (ShiftRightArithmetic, Zero, Int),
    (Maximum, Lowest, Any),
    (Minimum, Highest, Any),
];

/// `x op z = z` (either side, all these ops being commutative).
const ABSORBING: &[(BinaryOp, Special, Domain)] = &[
    (And, Zero, Bits),
    (Or, AllOnes, Bits),
    (Multiply, Zero, Int),
    (Maximum, Highest, Bits),
    (Minimum, Lowest, Bits),
];

/// `x op n = -x` for the right operand `n` (and the left one when `op` is commutative), exact
/// also for integers (`INT_MIN * -1 = INT_MIN = -INT_MIN` with wrapping) and for floats.
const NEGATING_RIGHT: &[(BinaryOp, Special, Domain)] =
    &[(Multiply, MinusOne, Numeric), (Divide, MinusOne, Numeric)];

/// `n op x = -x` for the left operand `n`: `0 - x` for integers, `-0.0 - x` for floats
/// (`+0.0 - x` is not `-x` at `x = +0.0`).
const NEGATING_LEFT: &[(BinaryOp, Special, Domain)] =
    &[(Subtract, Zero, Int), (Subtract, NegZero, Float)];

/// `x op x = x`.
const IDEMPOTENT: &[(BinaryOp, Domain)] =
    &[(And, Bits), (Or, Bits), (Maximum, Any), (Minimum, Any)];

/// `x op x = 0`.
const SELF_CANCELLING: &[(BinaryOp, Domain)] = &[(Subtract, Int), (Xor, Bits)];

/// Unary ops that undo themselves: `f(f(x)) = x`.
const INVOLUTIONS: &[UnaryOp] = &[UnaryOp::Negate, UnaryOp::Not];

/// Unary ops that are idempotent: `f(f(x)) = f(x)`.
const IDEMPOTENT_UNARY: &[UnaryOp] = &[
    UnaryOp::Abs,
    UnaryOp::Floor,
    UnaryOp::Ceil,
    UnaryOp::RoundNearestAfz,
    UnaryOp::RoundNearestEven,
];

fn element_type(rw: &Rewriter<'_, '_>, v: ValueId) -> Option<DType> {
    rw.tensor_ty(v).map(|t| t.dtype)
}

/// Puts a splat operand of a commutative op on the right (XLA's canonical form), so rules
/// and CSE see one form; returns whether the op changed.
pub fn canonicalise(rw: &Rewriter<'_, '_>, op: &mut Op) -> bool {
    if !op.kind.is_commutative() || op.operands.len() != 2 {
        return false;
    }
    let (a, b) = (op.operands[0], op.operands[1]);
    if splat_of(rw, a).is_some() && splat_of(rw, b).is_none() {
        op.operands.swap(0, 1);
        return true;
    }
    false
}

/// Simplifies a binary elementwise op.
pub fn binary(rw: &mut Rewriter<'_, '_>, op: &Op, b: BinaryOp) -> Option<Vec<ValueId>> {
    let [x, y] = op.operands[..] else {
        return None;
    };
    let dtype = element_type(rw, x)?;
    for &(rule_op, special, domain) in IDENTITIES {
        if rule_op == b && domain.contains(dtype) {
            if is_special(rw, y, special) {
                return Some(vec![x]);
            }
            if op.kind.is_commutative() && is_special(rw, x, special) {
                return Some(vec![y]);
            }
        }
    }
    for &(rule_op, special, domain) in ABSORBING {
        if rule_op == b && domain.contains(dtype) {
            if is_special(rw, y, special) {
                return Some(vec![y]);
            }
            if is_special(rw, x, special) {
                return Some(vec![x]);
            }
        }
    }
    let negated = if NEGATING_RIGHT
        .iter()
        .any(|&(o, sp, d)| o == b && d.contains(dtype) && is_special(rw, y, sp))
    {
        Some(x)
    } else if NEGATING_RIGHT.iter().any(|&(o, sp, d)| {
        o == b && op.kind.is_commutative() && d.contains(dtype) && is_special(rw, x, sp)
    }) || NEGATING_LEFT
        .iter()
        .any(|&(o, sp, d)| o == b && d.contains(dtype) && is_special(rw, x, sp))
    {
        Some(y)
    } else {
        None
    };
    if let Some(v) = negated {
        let ty = rw.ty(v)?.clone();
        return Some(vec![rw.emit1(OpKind::Unary(UnaryOp::Negate), vec![v], ty)]);
    }
    if x == y {
        if IDEMPOTENT.iter().any(|&(o, d)| o == b && d.contains(dtype)) {
            return Some(vec![x]);
        }
        if SELF_CANCELLING
            .iter()
            .any(|&(o, d)| o == b && d.contains(dtype))
        {
            let ty = rw.tensor_ty(x)?.clone();
            return Some(vec![emit_splat(rw, &ty, zero_scalar(dtype))?]);
        }
    }
    // x ^ all-ones = not x.
    if b == Xor && Bits.contains(dtype) {
        let other = if is_special(rw, y, AllOnes) {
            Some(x)
        } else if is_special(rw, x, AllOnes) {
            Some(y)
        } else {
            None
        };
        if let Some(v) = other {
            let ty = rw.ty(v)?.clone();
            return Some(vec![rw.emit1(OpKind::Unary(UnaryOp::Not), vec![v], ty)]);
        }
    }
    None
}

fn zero_scalar(dtype: DType) -> Scalar {
    match dtype.kind() {
        DTypeKind::Bool => Scalar::Bool(false),
        DTypeKind::Signed => Scalar::Int(0),
        DTypeKind::Unsigned => Scalar::UInt(0),
        DTypeKind::Float => Scalar::Float(0.0),
        DTypeKind::Complex => Scalar::Complex(systolic_ir::Complex64::new(0.0, 0.0)),
    }
}

/// Simplifies a unary elementwise op applied to the result of another.
pub fn unary(rw: &mut Rewriter<'_, '_>, op: &Op, u: UnaryOp) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    let (inner, _) = rw.producer(x)?;
    // |-x| = |x|.
    if u == UnaryOp::Abs && inner.kind == OpKind::Unary(UnaryOp::Negate) {
        let source = *inner.operands.first()?;
        let ty = rw.ty(op.results[0])?.clone();
        return Some(vec![rw.emit1(
            OpKind::Unary(UnaryOp::Abs),
            vec![source],
            ty,
        )]);
    }
    if inner.kind != OpKind::Unary(u) {
        return None;
    }
    if INVOLUTIONS.contains(&u) {
        return Some(vec![*inner.operands.first()?]);
    }
    if IDEMPOTENT_UNARY.contains(&u) {
        return Some(vec![x]);
    }
    None
}

/// `select(p, x, x) = x`; a splat predicate picks a side; `select(not p, a, b) =
/// select(p, b, a)`.
pub fn select(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    let [p, on_true, on_false] = op.operands[..] else {
        return None;
    };
    if on_true == on_false {
        return Some(vec![on_true]);
    }
    if let Some((_, bits)) = splat_of(rw, p) {
        return Some(vec![if bits != 0 { on_true } else { on_false }]);
    }
    if let Some((inner, _)) = rw.producer(p) {
        if inner.kind == OpKind::Unary(UnaryOp::Not) {
            let q = *inner.operands.first()?;
            let ty = rw.ty(op.results[0])?.clone();
            return Some(vec![rw.emit1(
                OpKind::Select,
                vec![q, on_false, on_true],
                ty,
            )]);
        }
    }
    None
}

/// A comparison of a value with itself is known for integers and booleans (for floats and
/// complex numbers NaN makes `x == x` false).
pub fn compare(
    rw: &mut Rewriter<'_, '_>,
    op: &Op,
    direction: ComparisonDirection,
) -> Option<Vec<ValueId>> {
    let [x, y] = op.operands[..] else {
        return None;
    };
    if x != y || element_type(rw, x)?.is_float_or_complex() {
        return None;
    }
    use ComparisonDirection as D;
    let value = matches!(direction, D::Eq | D::Ge | D::Le);
    let ty = rw.tensor_ty(op.results[0])?.clone();
    Some(vec![emit_splat(rw, &ty, Scalar::Bool(value))?])
}

/// True when every value of `from` converts to `to` exactly, so a conversion through `to`
/// loses nothing.
pub fn lossless(from: DType, to: DType) -> bool {
    if from == to || from.is_bool() {
        return true;
    }
    if to.is_bool() {
        return false;
    }
    let magnitude_bits = |d: DType| {
        if d.is_signed_integer() {
            d.bit_width() - 1
        } else {
            d.bit_width()
        }
    };
    match (from.kind(), to.kind()) {
        (DTypeKind::Signed, DTypeKind::Signed) | (DTypeKind::Unsigned, DTypeKind::Unsigned) => {
            to.bit_width() >= from.bit_width()
        }
        (DTypeKind::Unsigned, DTypeKind::Signed) => to.bit_width() > from.bit_width(),
        (DTypeKind::Signed | DTypeKind::Unsigned, DTypeKind::Float) => to
            .mantissa_bits()
            .is_some_and(|m| magnitude_bits(from) <= m + 1),
        (DTypeKind::Float, DTypeKind::Float) => matches!(
            (from, to),
            (DType::F16 | DType::BF16, DType::F32 | DType::F64) | (DType::F32, DType::F64)
        ),
        _ => false,
    }
}

/// `convert` to the same type is the operand; `convert(convert(x))` through a lossless middle
/// type is one conversion (or `x`), except integer → float → integer where the outer
/// conversion could overflow (it saturates where the direct one would wrap).
pub fn convert(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    let x = *op.operands.first()?;
    let out = rw.ty(op.results[0])?.clone();
    if rw.ty(x)? == &out {
        return Some(vec![x]);
    }
    let (inner, _) = rw.producer(x)?;
    if inner.kind != OpKind::Convert {
        return None;
    }
    let source = *inner.operands.first()?;
    let (from, mid) = (element_type(rw, source)?, element_type(rw, x)?);
    if !lossless(from, mid) {
        return None;
    }
    // Integer to integer wraps, float to integer saturates: an integer going through a float
    // to an integer type keeps the float's meaning only where nothing overflows.
    let to = out.as_tensor()?.dtype;
    if from.is_integer() && mid.is_float() && to.is_integer() && !lossless(from, to) {
        return None;
    }
    if rw.ty(source)? == &out {
        return Some(vec![source]);
    }
    Some(vec![rw.emit1(OpKind::Convert, vec![source], out)])
}

/// The result type of `op` (its first result).
pub fn result_type(rw: &Rewriter<'_, '_>, op: &Op) -> Option<Type> {
    rw.ty(*op.results.first()?).cloned()
}
