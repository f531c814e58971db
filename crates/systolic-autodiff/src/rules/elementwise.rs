//! Elementwise ops: unary and binary math, CHLO functions, select, clamp, convert.
//!
//! Complex values follow JAX: holomorphic functions (exp, log, sqrt, tanh, sine, products, …)
//! have the same rules as on reals with complex coefficients; `real`, `imag`, `complex` and
//! `conj` are linear over the reals, transposed without conjugation (`real` ↔ `complex(c̄, 0)`,
//! `imag` ↔ `complex(0, -c̄)`); `abs` of a complex `x` has tangent `Re(conj(x)/|x| · ẋ)`.

use crate::builder::{AdBuilder, Builder, Res};
use crate::Error;
use systolic_ir::ComparisonDirection as Dir;
use systolic_ir::{BinaryOp, ChloBinaryOp, ChloUnaryOp, Op, OpKind, UnaryOp, ValueId};

const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// `t * c` where `c` is a primal coefficient.
fn scale(b: &mut Builder, t: ValueId, c: ValueId) -> Res<Option<ValueId>> {
    Ok(Some(b.mul(t, c)?))
}

pub(crate) fn unary_jvp(
    b: &mut Builder,
    u: UnaryOp,
    x: ValueId,
    t: Option<ValueId>,
    y: ValueId,
) -> Res<Option<ValueId>> {
    use UnaryOp::*;
    let Some(t) = t else { return Ok(None) };
    let complex_x = b.dtype(x).is_complex();
    if !b.dtype(y).is_float_or_complex() {
        return Ok(None);
    }
    match u {
        Negate => Ok(Some(b.neg(t)?)),
        Abs if complex_x => {
            // d|x| = Re(conj(x)/|x| · ẋ); at x = 0 the coefficient is 0 (JAX divides by 1).
            let zero = b.full_like(y, 0.0)?;
            let one = b.full_like(y, 1.0)?;
            let is0 = b.compare(Dir::Eq, y, zero)?;
            let safe = b.select(is0, one, y)?;
            let re = b.unary(Real, x)?;
            let im = b.unary(Imag, x)?;
            let re = b.div(re, safe)?;
            let nim = b.neg(im)?;
            let nim = b.div(nim, safe)?;
            let coef = b.binary(BinaryOp::Complex, re, nim)?;
            let p = b.mul(t, coef)?;
            Ok(Some(b.unary(Real, p)?))
        }
        Abs => {
            let zero = b.full_like(x, 0.0)?;
            let ge = b.compare(Dir::Ge, x, zero)?;
            let nt = b.neg(t)?;
            Ok(Some(b.select(ge, t, nt)?))
        }
        Exponential => scale(b, t, y),
        ExponentialMinusOne => {
            let c = b.add_const(y, 1.0)?;
            scale(b, t, c)
        }
        Log => Ok(Some(b.div(t, x)?)),
        LogPlusOne => {
            let c = b.add_const(x, 1.0)?;
            Ok(Some(b.div(t, c)?))
        }
        Logistic => {
            let one = b.full_like(y, 1.0)?;
            let om = b.sub(one, y)?;
            let c = b.mul(y, om)?;
            scale(b, t, c)
        }
        Sqrt => {
            let c = b.mul_const(y, 2.0)?;
            Ok(Some(b.div(t, c)?))
        }
        Rsqrt => {
            let q = b.div(y, x)?;
            let c = b.mul_const(q, -0.5)?;
            scale(b, t, c)
        }
        Cbrt => {
            let y2 = b.mul(y, y)?;
            let c = b.mul_const(y2, 3.0)?;
            Ok(Some(b.div(t, c)?))
        }
        Tanh => {
            let one = b.full_like(y, 1.0)?;
            let y2 = b.mul(y, y)?;
            let c = b.sub(one, y2)?;
            scale(b, t, c)
        }
        Sine => {
            let c = b.unary(Cosine, x)?;
            scale(b, t, c)
        }
        Cosine => {
            let s = b.unary(Sine, x)?;
            let c = b.neg(s)?;
            scale(b, t, c)
        }
        Tan => {
            let y2 = b.mul(y, y)?;
            let c = b.add_const(y2, 1.0)?;
            scale(b, t, c)
        }
        Sign | Floor | Ceil | RoundNearestAfz | RoundNearestEven | IsFinite | Not | Popcnt
        | CountLeadingZeros => Ok(None),
        // Linear over the reals; of a real operand, `real` is the identity and `imag` zero.
        Real | Imag if complex_x => Ok(Some(b.unary(u, t)?)),
        Real => Ok(Some(t)),
        Imag => Ok(None),
    }
}

pub(crate) fn binary_jvp(
    b: &mut Builder,
    o: BinaryOp,
    x: &[ValueId],
    t: &[Option<ValueId>],
    y: ValueId,
) -> Res<Option<ValueId>> {
    use BinaryOp::*;
    let (a, c) = (x[0], x[1]);
    let (ta, tc) = (t[0], t[1]);
    if !b.dtype(y).is_float_or_complex() {
        return Ok(None);
    }
    match o {
        Add => b.add_opt(ta, tc),
        Subtract => Ok(match (ta, tc) {
            (Some(p), Some(q)) => Some(b.sub(p, q)?),
            (Some(p), None) => Some(p),
            (None, Some(q)) => Some(b.neg(q)?),
            (None, None) => None,
        }),
        Multiply => {
            let l = ta.map(|p| b.mul(p, c)).transpose()?;
            let r = tc.map(|q| b.mul(q, a)).transpose()?;
            b.add_opt(l, r)
        }
        Divide => {
            let l = ta.map(|p| b.div(p, c)).transpose()?;
            let r = match tc {
                Some(q) => {
                    let coef = b.div(y, c)?;
                    let m = b.mul(q, coef)?;
                    Some(b.neg(m)?)
                }
                None => None,
            };
            b.add_opt(l, r)
        }
        Maximum | Minimum => {
            // Ties split the tangent evenly, as JAX does.
            let dir = if o == Maximum { Dir::Gt } else { Dir::Lt };
            let wins = b.compare(dir, a, c)?;
            let ties = b.compare(Dir::Eq, a, c)?;
            let one = b.full_like(a, 1.0)?;
            let half = b.full_like(a, 0.5)?;
            let zero = b.full_like(a, 0.0)?;
            let tie_or_not = b.select(ties, half, zero)?;
            let ca = b.select(wins, one, tie_or_not)?;
            let l = ta.map(|p| b.mul(p, ca)).transpose()?;
            let r = match tc {
                Some(q) => {
                    let cc = b.sub(one, ca)?;
                    Some(b.mul(q, cc)?)
                }
                None => None,
            };
            b.add_opt(l, r)
        }
        Power => {
            let l = match ta {
                Some(p) => {
                    let zero = b.full_like(c, 0.0)?;
                    let is0 = b.compare(Dir::Eq, c, zero)?;
                    let cm1 = b.add_const(c, -1.0)?;
                    let pw = b.binary(Power, a, cm1)?;
                    let m = b.mul(c, pw)?;
                    let coef = b.select(is0, zero, m)?;
                    Some(b.mul(p, coef)?)
                }
                None => None,
            };
            let r = match tc {
                Some(q) => {
                    let zero = b.full_like(a, 0.0)?;
                    let one = b.full_like(a, 1.0)?;
                    let is0 = b.compare(Dir::Eq, a, zero)?;
                    let safe = b.select(is0, one, a)?;
                    let lg = b.unary(UnaryOp::Log, safe)?;
                    let coef = b.mul(lg, y)?;
                    Some(b.mul(q, coef)?)
                }
                None => None,
            };
            b.add_opt(l, r)
        }
        Atan2 => {
            let a2 = b.mul(a, a)?;
            let c2 = b.mul(c, c)?;
            let den = b.add(a2, c2)?;
            let l = match ta {
                Some(p) => {
                    let coef = b.div(c, den)?;
                    Some(b.mul(p, coef)?)
                }
                None => None,
            };
            let r = match tc {
                Some(q) => {
                    let na = b.neg(a)?;
                    let coef = b.div(na, den)?;
                    Some(b.mul(q, coef)?)
                }
                None => None,
            };
            b.add_opt(l, r)
        }
        Remainder => {
            let r = match tc {
                Some(q) => {
                    let quot = b.div(a, c)?;
                    let s = b.unary(UnaryOp::Sign, quot)?;
                    let ab = b.unary(UnaryOp::Abs, quot)?;
                    let fl = b.unary(UnaryOp::Floor, ab)?;
                    let tr = b.mul(s, fl)?;
                    let coef = b.neg(tr)?;
                    Some(b.mul(q, coef)?)
                }
                None => None,
            };
            b.add_opt(ta, r)
        }
        And | Or | Xor | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical => Ok(None),
        // Linear in both parts: complex(ṙ, i̇), a missing part's tangent zero.
        Complex => {
            if ta.is_none() && tc.is_none() {
                return Ok(None);
            }
            let re = match ta {
                Some(p) => p,
                None => b.full_like(a, 0.0)?,
            };
            let im = match tc {
                Some(q) => q,
                None => b.full_like(c, 0.0)?,
            };
            Ok(Some(b.binary(Complex, re, im)?))
        }
    }
}

pub(crate) fn chlo_unary_jvp(
    b: &mut Builder,
    u: ChloUnaryOp,
    x: ValueId,
    t: Option<ValueId>,
    y: ValueId,
) -> Res<Option<ValueId>> {
    use ChloUnaryOp::*;
    let Some(t) = t else { return Ok(None) };
    if !b.dtype(y).is_float_or_complex() {
        return Ok(None);
    }
    let one = |b: &mut Builder, v| b.full_like(v, 1.0);
    match u {
        Erf | Erfc => {
            let x2 = b.mul(x, x)?;
            let n = b.neg(x2)?;
            let e = b.unary(UnaryOp::Exponential, n)?;
            let k = if u == Erf {
                TWO_OVER_SQRT_PI
            } else {
                -TWO_OVER_SQRT_PI
            };
            let c = b.mul_const(e, k)?;
            scale(b, t, c)
        }
        ErfInv => {
            let y2 = b.mul(y, y)?;
            let e = b.unary(UnaryOp::Exponential, y2)?;
            let c = b.mul_const(e, std::f64::consts::PI.sqrt() / 2.0)?;
            scale(b, t, c)
        }
        Square => {
            let c = b.mul_const(x, 2.0)?;
            scale(b, t, c)
        }
        Atan => {
            let x2 = b.mul(x, x)?;
            let d = b.add_const(x2, 1.0)?;
            Ok(Some(b.div(t, d)?))
        }
        Asin | Acos => {
            let o = one(b, x)?;
            let x2 = b.mul(x, x)?;
            let d = b.sub(o, x2)?;
            let r = b.unary(UnaryOp::Rsqrt, d)?;
            let c = if u == Asin { r } else { b.neg(r)? };
            scale(b, t, c)
        }
        Sinh => {
            let c = b.emit(OpKind::ChloUnary(Cosh), vec![x])?;
            scale(b, t, c)
        }
        Cosh => {
            let c = b.emit(OpKind::ChloUnary(Sinh), vec![x])?;
            scale(b, t, c)
        }
        Asinh => {
            let x2 = b.mul(x, x)?;
            let d = b.add_const(x2, 1.0)?;
            let c = b.unary(UnaryOp::Rsqrt, d)?;
            scale(b, t, c)
        }
        Acosh => {
            let xm = b.add_const(x, -1.0)?;
            let xp = b.add_const(x, 1.0)?;
            let d = b.mul(xm, xp)?;
            let c = b.unary(UnaryOp::Rsqrt, d)?;
            scale(b, t, c)
        }
        Atanh => {
            let o = one(b, x)?;
            let x2 = b.mul(x, x)?;
            let d = b.sub(o, x2)?;
            Ok(Some(b.div(t, d)?))
        }
        Tan => {
            let y2 = b.mul(y, y)?;
            let c = b.add_const(y2, 1.0)?;
            scale(b, t, c)
        }
        Lgamma => {
            let c = b.emit(OpKind::ChloUnary(Digamma), vec![x])?;
            scale(b, t, c)
        }
        Digamma => {
            let n = b.full_like(x, 1.0)?;
            let c = b.emit(OpKind::ChloBinary(ChloBinaryOp::Polygamma), vec![n, x])?;
            scale(b, t, c)
        }
        // Emitted as JAX lowers conj, `complex(real(ṫ), -imag(ṫ))`, so the transpose table
        // needs no rule of its own for it.
        Conj if b.dtype(x).is_complex() => Ok(Some(conj(b, t)?)),
        Conj => Ok(Some(t)),
        IsInf | IsNegInf | IsPosInf => Ok(None),
        BesselI1e => Err(Error::new(
            "cannot differentiate chlo.bessel_i1e: no rule for this op",
        )),
    }
}

pub(crate) fn select_jvp(
    b: &mut Builder,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Option<ValueId>> {
    if t[1].is_none() && t[2].is_none() {
        return Ok(None);
    }
    if !b.dtype(x[1]).is_float_or_complex() {
        return Ok(None);
    }
    let ta = match t[1] {
        Some(v) => v,
        None => b.full_like(x[1], 0.0)?,
    };
    let tb = match t[2] {
        Some(v) => v,
        None => b.full_like(x[2], 0.0)?,
    };
    Ok(Some(b.select(x[0], ta, tb)?))
}

pub(crate) fn clamp_jvp(
    b: &mut Builder,
    x: &[ValueId],
    t: &[Option<ValueId>],
) -> Res<Option<ValueId>> {
    let (lo, v, hi) = (x[0], x[1], x[2]);
    if !b.dtype(v).is_float() {
        return Ok(None);
    }
    let shape = b.shape(v);
    let full = |b: &mut Builder, a: ValueId| -> Res<ValueId> {
        if b.shape(a) == shape {
            Ok(a)
        } else {
            b.broadcast_in_dim(a, &shape, &[])
        }
    };
    let lo_f = full(b, lo)?;
    let hi_f = full(b, hi)?;
    let zero = b.full_like(v, 0.0)?;
    let mut out = None;
    if let Some(tv) = t[1] {
        let gt = b.compare(Dir::Gt, v, lo_f)?;
        let lt = b.compare(Dir::Lt, v, hi_f)?;
        let inside = b.binary(BinaryOp::And, gt, lt)?;
        out = Some(b.select(inside, tv, zero)?);
    }
    if let Some(tl) = t[0] {
        let tl = full(b, tl)?;
        let gt = b.compare(Dir::Gt, lo_f, v)?;
        let lt = b.compare(Dir::Lt, lo_f, hi_f)?;
        let m = b.binary(BinaryOp::And, gt, lt)?;
        let s = b.select(m, tl, zero)?;
        out = b.add_opt(out, Some(s))?;
    }
    if let Some(th) = t[2] {
        let th = full(b, th)?;
        let lt = b.compare(Dir::Lt, hi_f, v)?;
        let s = b.select(lt, th, zero)?;
        out = b.add_opt(out, Some(s))?;
    }
    Ok(out)
}

pub(crate) fn convert_jvp(
    b: &mut Builder,
    x: ValueId,
    t: Option<ValueId>,
    y: ValueId,
) -> Res<Option<ValueId>> {
    let Some(t) = t else { return Ok(None) };
    // Between floats and complex numbers in any direction (complex → real keeps the real
    // part); integers carry no tangent.
    if !(b.dtype(x).is_float_or_complex() && b.dtype(y).is_float_or_complex()) {
        return Ok(None);
    }
    Ok(Some(b.convert(t, b.dtype(y))?))
}

/// `conj(v)` of a complex `v`, as `complex(real(v), -imag(v))`.
pub(crate) fn conj(b: &mut Builder, v: ValueId) -> Res<ValueId> {
    let re = b.unary(UnaryOp::Real, v)?;
    let im = b.unary(UnaryOp::Imag, v)?;
    let nim = b.neg(im)?;
    b.binary(BinaryOp::Complex, re, nim)
}

/// `complex(re, im)` with a zero imaginary part.
fn complex_of_real(b: &mut Builder, re: ValueId) -> Res<ValueId> {
    let zero = b.full_like(re, 0.0)?;
    b.binary(BinaryOp::Complex, re, zero)
}

/// The same op applied to the tangent (ops linear in their operand).
pub(crate) fn linear_same(b: &mut Builder, op: &Op, t: Option<ValueId>) -> Res<Option<ValueId>> {
    let Some(t) = t else { return Ok(None) };
    Ok(Some(b.emit(op.kind.clone(), vec![t])?))
}

pub(crate) fn transpose(
    b: &mut Builder,
    op: &Op,
    c: ValueId,
    lin: &[bool],
) -> Res<Vec<Option<ValueId>>> {
    use BinaryOp::*;
    let n = op.operands.len();
    let mut out = vec![None; n];
    let operand = |i: usize| op.operands[i];
    match &op.kind {
        OpKind::Binary(Add) => {
            for i in 0..2 {
                if lin[i] {
                    out[i] = Some(c);
                }
            }
        }
        OpKind::Binary(Subtract) => {
            if lin[0] {
                out[0] = Some(c);
            }
            if lin[1] {
                out[1] = Some(b.neg(c)?);
            }
        }
        OpKind::Binary(Multiply) => {
            if lin[0] && lin[1] {
                return Err(Error::new(
                    "internal: a product of two tangents is not linear",
                ));
            }
            if lin[0] {
                out[0] = Some(b.mul(c, operand(1))?);
            }
            if lin[1] {
                out[1] = Some(b.mul(c, operand(0))?);
            }
        }
        OpKind::Binary(Divide) => {
            if lin[1] {
                return Err(Error::new("internal: division by a tangent is not linear"));
            }
            out[0] = Some(b.div(c, operand(1))?);
        }
        OpKind::Unary(UnaryOp::Negate) => out[0] = Some(b.neg(c)?),
        // `real`/`imag` of a complex tangent (JAX's transposes: no conjugation).
        OpKind::Unary(UnaryOp::Real) => out[0] = Some(complex_of_real(b, c)?),
        OpKind::Unary(UnaryOp::Imag) => {
            let zero = b.full_like(c, 0.0)?;
            let nc = b.neg(c)?;
            out[0] = Some(b.binary(Complex, zero, nc)?);
        }
        OpKind::Binary(Complex) => {
            if lin[0] {
                out[0] = Some(b.unary(UnaryOp::Real, c)?);
            }
            if lin[1] {
                let im = b.unary(UnaryOp::Imag, c)?;
                out[1] = Some(b.neg(im)?);
            }
        }
        OpKind::Convert => {
            let d = b.dtype(operand(0));
            // A real value converted to complex: the cotangent's real part goes back.
            let c = if b.dtype(c).is_complex() && !d.is_complex() {
                b.unary(UnaryOp::Real, c)?
            } else {
                c
            };
            out[0] = Some(b.convert(c, d)?);
        }
        OpKind::ReducePrecision { .. } => out[0] = Some(b.emit(op.kind.clone(), vec![c])?),
        OpKind::Select => {
            let zero = b.full_like(c, 0.0)?;
            if lin[1] {
                out[1] = Some(b.select(operand(0), c, zero)?);
            }
            if lin[2] {
                out[2] = Some(b.select(operand(0), zero, c)?);
            }
        }
        _ => return Err(super::unsupported(op, "transpose")),
    }
    Ok(out)
}
