//! CHLO legalization: every CHLO op is rewritten into StableHLO ops the way XLA decomposes
//! it (openxla/stablehlo `ChloLegalizeToStablehlo`), so backends only implement StableHLO.
//!
//! - [`erf`]: erf, erfc, erf_inv (f32 and f64 variants).
//! - [`gamma`]: lgamma, digamma, zeta, polygamma.
//! - [`elementary`]: acos, asin, atan, acosh, asinh, atanh, tan, sinh, cosh.
//! - [`special`]: is_inf/is_pos_inf/is_neg_inf, next_after, bessel_i1e, top_k.
//! - `square` is `x·x`, `conj` of a real value is the value.
//!
//! CHLO ops on complex values are kept (see `legalize`).
//!
//! f16 and bf16 are computed in f32 and rounded once at the end (XLA does this for the
//! functions with polynomial approximations; doing it for all of them keeps bf16 results
//! within an ulp of the correctly rounded value instead of collecting one rounding per step).
//! f64 uses the double-precision approximations where XLA has them.

// Coefficients are quoted as published (Cephes, Eigen, Giles, Lanczos), digits beyond the
// dtype's precision included, so they can be checked against their sources.
#![allow(clippy::excessive_precision)]

pub mod builder;
pub mod elementary;
pub mod erf;
pub mod gamma;
pub mod mulhi;
pub mod special;

use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action, Rewriter};
use builder::Builder;
use special::InfSign;
use systolic_ir::{
    BinaryOp, ChloBinaryOp, ChloUnaryOp, DType, Diagnostic, Module, Op, OpKind, Type, ValueId,
};

/// The CHLO legalization pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChloLegalize;

impl Pass for ChloLegalize {
    fn name(&self) -> &'static str {
        "chlo_legalize"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        legalize_module(module, false)
    }
}

/// CHLO legalization for a backend with a native `chlo.top_k` kernel (the CPU's partial
/// selection): every CHLO op but top_k is decomposed. top_k's decomposition sorts each whole
/// row (n log n comparisons, and the index operand carried through) to keep k elements, which
/// on rows of tens of thousands costs seconds where a selection costs milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChloLegalizeKeepTopK;

impl Pass for ChloLegalizeKeepTopK {
    fn name(&self) -> &'static str {
        "chlo_legalize"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        legalize_module(module, true)
    }
}

fn legalize_module(module: &mut Module, keep_top_k: bool) -> Result<bool, Diagnostic> {
    let mut changed = false;
    let source = module.source_name.clone();
    for func in &mut module.funcs {
        changed |= rewrite_func(func, &mut |rw, op| {
            legalize(rw, op, keep_top_k).map_err(|d| d.in_source(source.as_deref()))
        })?;
    }
    Ok(changed)
}

fn legalize(
    rw: &mut Rewriter<'_, '_>,
    op: &mut Op,
    keep_top_k: bool,
) -> Result<Action, Diagnostic> {
    let replaced = match &op.kind {
        // On complex values (`conj`, and the holomorphic functions JAX emits: `square`,
        // `sinh`, `asin`, …) the ops stay: the interpreter and the CPU's loop kernels compute
        // them directly, with the interpreter's formulas (XLA expands them into many real ops).
        OpKind::ChloUnary(_) if complex_operand(rw, op) => return Ok(Action::Keep),
        OpKind::ChloUnary(u) => unary(rw, op, *u),
        OpKind::ChloBinary(b) => binary(rw, op, *b),
        OpKind::TopK { .. } if keep_top_k => return Ok(Action::Keep),
        OpKind::TopK { largest, .. } => special::top_k(rw, op, *largest),
        _ => return Ok(Action::Keep),
    };
    match replaced {
        Some(values) => Ok(Action::Replace(values)),
        None => {
            let types: Vec<String> = op
                .operands
                .iter()
                .map(|&v| rw.ty(v).map_or("?".to_string(), Type::to_string))
                .collect();
            Err(Diagnostic::new(format!(
                "cannot decompose for operand types ({}) in @{}",
                types.join(", "),
                rw.func_name()
            ))
            .in_op(op.kind.name())
            .at(op.span))
        }
    }
}

/// True when the op's first operand holds complex numbers.
fn complex_operand(rw: &Rewriter<'_, '_>, op: &Op) -> bool {
    op.operands
        .first()
        .and_then(|&x| rw.tensor_ty(x))
        .is_some_and(|t| t.dtype.is_complex())
}

/// The dtype a float CHLO op is computed in.
fn compute_dtype(dtype: DType) -> DType {
    if dtype == DType::F64 {
        DType::F64
    } else {
        DType::F32
    }
}

fn unary(rw: &mut Rewriter<'_, '_>, op: &Op, u: ChloUnaryOp) -> Option<Vec<ValueId>> {
    use ChloUnaryOp::*;
    let x = *op.operands.first()?;
    let ty = rw.tensor_ty(x)?.clone();
    if u == Conj {
        return Some(vec![x]);
    }
    if !ty.dtype.is_float() {
        return match u {
            Square if ty.dtype.is_integer() => {
                let t = Type::Tensor(ty);
                Some(vec![rw.emit1(
                    OpKind::Binary(BinaryOp::Multiply),
                    vec![x, x],
                    t,
                )])
            }
            _ => None,
        };
    }
    if let Some(sign) = match u {
        IsInf => Some(InfSign::Either),
        IsPosInf => Some(InfSign::Positive),
        IsNegInf => Some(InfSign::Negative),
        _ => None,
    } {
        let mut b = Builder::new(rw, ty);
        return Some(vec![special::is_inf(&mut b, x, sign)]);
    }
    let compute = compute_dtype(ty.dtype);
    let f64_math = compute == DType::F64;
    let mut b = Builder::new(rw, ty.with_dtype(compute));
    let xin = if compute != ty.dtype {
        b.convert(x, compute)
    } else {
        x
    };
    let r = match u {
        Acos => elementary::acos(&mut b, xin),
        Acosh => elementary::acosh(&mut b, xin),
        Asin => elementary::asin(&mut b, xin),
        Asinh => elementary::asinh(&mut b, xin),
        Atan => elementary::atan(&mut b, xin),
        Atanh => elementary::atanh(&mut b, xin),
        BesselI1e => special::bessel_i1e(&mut b, xin),
        Cosh => elementary::cosh(&mut b, xin),
        Digamma => gamma::digamma(&mut b, xin),
        Erf if f64_math => erf::erf_f64(&mut b, xin),
        Erf => erf::erf_f32(&mut b, xin),
        ErfInv if f64_math => erf::erf_inv_f64(&mut b, xin),
        ErfInv => erf::erf_inv_f32(&mut b, xin),
        Erfc if f64_math => erf::erfc_f64(&mut b, xin),
        Erfc => erf::erfc_f32(&mut b, xin),
        Lgamma => gamma::lgamma(&mut b, xin),
        Sinh => elementary::sinh(&mut b, xin),
        Square => b.mul(xin, xin),
        Tan => elementary::tan(&mut b, xin),
        Conj | IsInf | IsPosInf | IsNegInf => return None,
    };
    let r = if compute != ty.dtype {
        b.convert(r, ty.dtype)
    } else {
        r
    };
    Some(vec![r])
}

fn binary(rw: &mut Rewriter<'_, '_>, op: &Op, kind: ChloBinaryOp) -> Option<Vec<ValueId>> {
    let [x, y] = op.operands[..] else {
        return None;
    };
    let ty = rw.tensor_ty(x)?.clone();
    if kind == ChloBinaryOp::Mulhi {
        return mulhi::mulhi(rw, &ty, x, y).map(|v| vec![v]);
    }
    if !ty.dtype.is_float() {
        return None;
    }
    if kind == ChloBinaryOp::NextAfter {
        return special::next_after(rw, &ty, x, y).map(|v| vec![v]);
    }
    let compute = compute_dtype(ty.dtype);
    let mut b = Builder::new(rw, ty.with_dtype(compute));
    let (xin, yin) = if compute != ty.dtype {
        (b.convert(x, compute), b.convert(y, compute))
    } else {
        (x, y)
    };
    let r = match kind {
        ChloBinaryOp::Polygamma => gamma::polygamma(&mut b, xin, yin),
        ChloBinaryOp::Zeta => gamma::zeta(&mut b, xin, yin),
        ChloBinaryOp::NextAfter | ChloBinaryOp::Mulhi => return None,
    };
    let r = if compute != ty.dtype {
        b.convert(r, ty.dtype)
    } else {
        r
    };
    Some(vec![r])
}
