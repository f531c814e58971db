//! TPU numerics as an IR rewrite: what the MXU does to a product's inputs, written as ordinary
//! StableHLO ops so that any backend (the CPU one, in practice) computes the TPU's numbers.
//!
//! The MXU multiplies bf16 values and accumulates in f32. So on a TPU:
//!
//! - a product of f32 (or f16) operands at `DEFAULT` precision rounds both operands to bf16
//!   (round to nearest even) and accumulates the exact bf16 × bf16 products in f32: one pass;
//! - at `HIGH` it splits each operand into `hi = bf16(x)` and `lo = bf16(x − hi)` and sums three
//!   passes, `lo·hi + hi·lo` then `+ hi·hi` (bf16_3x, as XLA's `BF16_BF16_F32_X3`);
//! - at `HIGHEST` it computes in f32 (on the chip: six bf16 passes, which are within an f32
//!   rounding of it; here the f32 product itself);
//! - bf16 operands are multiplied exactly and accumulated in f32, whatever the result type
//!   (a bf16 result is the f32 sum rounded once).
//!
//! An explicit `algorithm` on a `dot_general` decides instead of the precision: bf16 inputs
//! with 1 primitive product are one pass, with 3 the bf16_3x split, with 6 or more f32;
//! any other algorithm computes in f32.
//!
//! Rewritten, every floating-point `dot_general`, `dot` and `convolution` computes in f32 on
//! operands already rounded as the MXU would (a bf16 → f32 conversion is exact, and so is the
//! product of two bf16 values in f32), so the backend's f32 product gives the TPU's result up
//! to the order of the f32 additions. f64 products (the TPU has no f64 MXU path) and integer
//! products are left as they are. Elementwise ops are not changed: the VPU computes f32 in f32.

use crate::mxu::pass_plan;
use systolic_compiler::Pass;
use systolic_ir::{
    BinaryOp, DType, Diagnostic, Func, Module, Op, OpKind, Precision, Region, TensorType, Type,
    ValueId,
};

/// How the MXU treats one product's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProductNumerics {
    /// Operands rounded to bf16, one pass accumulated in f32.
    Bf16,
    /// Three bf16 passes (hi·hi + hi·lo + lo·hi), accumulated in f32.
    Bf16x3,
    /// f32 throughout.
    F32,
}

/// The numerics of a product with operand types `lhs`, `rhs`, at `precision` (the stricter of
/// the operands'), or with an explicit algorithm (its rounding type and primitive products).
pub fn product_numerics(
    lhs: DType,
    rhs: DType,
    precision: Precision,
    algorithm: Option<(Option<DType>, i64)>,
) -> ProductNumerics {
    if let Some((rounding, primitive)) = algorithm {
        return match (rounding, primitive) {
            (Some(DType::BF16), 1) => ProductNumerics::Bf16,
            (Some(DType::BF16), 3) => ProductNumerics::Bf16x3,
            _ => ProductNumerics::F32,
        };
    }
    match pass_plan(lhs, rhs, precision, None).passes {
        1 => ProductNumerics::Bf16,
        3 => ProductNumerics::Bf16x3,
        _ => ProductNumerics::F32,
    }
}

/// The pass that rewrites products to TPU numerics (see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct TpuNumerics;

impl Pass for TpuNumerics {
    fn name(&self) -> &'static str {
        "tpu-numerics"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            let mut body = std::mem::take(&mut func.body);
            changed |= rewrite_region(func, &mut body);
            func.body = body;
        }
        Ok(changed)
    }
}

/// `module` with its products rewritten to TPU numerics (the input is left as it was).
pub fn with_tpu_numerics(module: &Module) -> Module {
    let mut out = module.clone();
    // The pass cannot fail.
    let _ = TpuNumerics.run(&mut out);
    out
}

fn rewrite_region(func: &mut Func, region: &mut Region) -> bool {
    let mut changed = false;
    for block in &mut region.blocks {
        let ops = std::mem::take(&mut block.ops);
        let mut out = Vec::with_capacity(ops.len());
        for mut op in ops {
            for r in &mut op.regions {
                changed |= rewrite_region(func, r);
            }
            match rewrite_product(func, &op) {
                Some(replacement) => {
                    out.extend(replacement);
                    changed = true;
                }
                None => out.push(op),
            }
        }
        block.ops = out;
    }
    changed
}

fn tensor(func: &Func, v: ValueId) -> Option<TensorType> {
    func.values.get(v.index())?.ty.as_tensor().cloned()
}

/// Float types the MXU takes (f64 is not one).
fn mxu_float(d: DType) -> bool {
    matches!(d, DType::F16 | DType::BF16 | DType::F32)
}

fn strictest(precisions: &[Precision]) -> Precision {
    let rank = |p: &Precision| match p {
        Precision::Default => 0,
        Precision::High => 1,
        Precision::Highest => 2,
    };
    precisions
        .iter()
        .copied()
        .max_by_key(rank)
        .unwrap_or(Precision::Default)
}

/// Emits ops into a list, each carrying the original op's location.
struct Emitter<'f> {
    func: &'f mut Func,
    ops: Vec<Op>,
    template: Op,
}

impl Emitter<'_> {
    fn emit(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: TensorType) -> ValueId {
        let v = self.func.new_value(Type::Tensor(ty), None);
        let mut op = Op::new(kind, operands, vec![v]);
        op.loc = self.template.loc.clone();
        op.span = self.template.span;
        self.ops.push(op);
        v
    }

    fn convert(&mut self, x: ValueId, ty: &TensorType, to: DType) -> ValueId {
        self.emit(OpKind::Convert, vec![x], ty.with_dtype(to))
    }

    fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId, ty: &TensorType) -> ValueId {
        self.emit(OpKind::Binary(op), vec![a, b], ty.clone())
    }

    /// `x` as f32 after rounding to bf16 (exact when `x` is bf16).
    fn hi(&mut self, x: ValueId, ty: &TensorType) -> ValueId {
        if ty.dtype == DType::BF16 {
            return self.convert(x, ty, DType::F32);
        }
        let x32 = if ty.dtype == DType::F32 {
            x
        } else {
            self.convert(x, ty, DType::F32)
        };
        let b = self.convert(x32, ty, DType::BF16);
        self.convert(b, ty, DType::F32)
    }

    /// `x` as f32 (exact for every MXU float type).
    fn f32(&mut self, x: ValueId, ty: &TensorType) -> ValueId {
        if ty.dtype == DType::F32 {
            x
        } else {
            self.convert(x, ty, DType::F32)
        }
    }

    /// `bf16(x − hi)` as f32, or `None` when `x` is bf16 (its low part is zero).
    fn lo(&mut self, x: ValueId, hi: ValueId, ty: &TensorType) -> Option<ValueId> {
        if ty.dtype == DType::BF16 {
            return None;
        }
        let t32 = ty.with_dtype(DType::F32);
        let x32 = self.f32(x, ty);
        let rest = self.binary(BinaryOp::Subtract, x32, hi, &t32);
        Some(self.hi(rest, &t32))
    }

    /// The original product on new operands, computing in f32 (precision HIGHEST so that no
    /// later TPU rewrite rounds it again).
    fn product(&mut self, lhs: ValueId, rhs: ValueId, out: &TensorType) -> ValueId {
        let kind = match &self.template.kind {
            OpKind::DotGeneral {
                dimension_numbers, ..
            } => OpKind::DotGeneral {
                dimension_numbers: dimension_numbers.clone(),
                precision_config: vec![Precision::Highest, Precision::Highest],
                algorithm: None,
            },
            OpKind::Dot { .. } => OpKind::Dot {
                precision_config: vec![Precision::Highest, Precision::Highest],
            },
            OpKind::Convolution(c) => {
                let mut c = c.clone();
                c.precision_config = vec![Precision::Highest, Precision::Highest];
                OpKind::Convolution(c)
            }
            other => other.clone(),
        };
        let v = self.emit(kind, vec![lhs, rhs], out.with_dtype(DType::F32));
        if let Some(last) = self.ops.last_mut() {
            last.attrs = self.template.attrs.clone();
        }
        v
    }
}

/// The ops that compute `op` with TPU numerics, or `None` to keep it.
fn rewrite_product(func: &mut Func, op: &Op) -> Option<Vec<Op>> {
    let (precision, algorithm) = match &op.kind {
        OpKind::DotGeneral {
            precision_config,
            algorithm,
            ..
        } => (
            strictest(precision_config),
            algorithm.as_ref().map(|a| {
                let rounding = a.lhs_precision_type.dtype();
                (rounding, a.num_primitive_operations)
            }),
        ),
        OpKind::Dot { precision_config } => (strictest(precision_config), None),
        OpKind::Convolution(c) => (strictest(&c.precision_config), None),
        _ => return None,
    };
    if op.operands.len() != 2 || op.results.len() != 1 {
        return None;
    }
    let (a, b, r) = (op.operands[0], op.operands[1], op.results[0]);
    let (ta, tb, tr) = (tensor(func, a)?, tensor(func, b)?, tensor(func, r)?);
    if !(mxu_float(ta.dtype) && mxu_float(tb.dtype) && mxu_float(tr.dtype)) {
        return None;
    }
    let numerics = product_numerics(ta.dtype, tb.dtype, precision, algorithm);
    // Already computed as the TPU would: f32 operands at HIGHEST into an f32 result.
    if numerics == ProductNumerics::F32
        && ta.dtype == DType::F32
        && tb.dtype == DType::F32
        && tr.dtype == DType::F32
    {
        return None;
    }
    let mut e = Emitter {
        func,
        ops: vec![],
        template: op.clone(),
    };
    let t32 = tr.with_dtype(DType::F32);
    let sum = match numerics {
        ProductNumerics::F32 => {
            let (x, y) = (e.f32(a, &ta), e.f32(b, &tb));
            e.product(x, y, &tr)
        }
        ProductNumerics::Bf16 => {
            let (x, y) = (e.hi(a, &ta), e.hi(b, &tb));
            e.product(x, y, &tr)
        }
        ProductNumerics::Bf16x3 => {
            let (ah, bh) = (e.hi(a, &ta), e.hi(b, &tb));
            let (al, bl) = (e.lo(a, ah, &ta), e.lo(b, bh, &tb));
            // The small terms first, then the large one (as XLA's bf16_3x).
            let mut small = None;
            if let Some(al) = al {
                small = Some(e.product(al, bh, &tr));
            }
            if let Some(bl) = bl {
                let p = e.product(ah, bl, &tr);
                small = Some(match small {
                    Some(s) => e.binary(BinaryOp::Add, s, p, &t32),
                    None => p,
                });
            }
            let big = e.product(ah, bh, &tr);
            match small {
                Some(s) => e.binary(BinaryOp::Add, s, big, &t32),
                None => big,
            }
        }
    };
    // The last op defines the original result (with its type).
    let mut ops = e.ops;
    if tr.dtype == DType::F32 {
        let last = ops.last_mut()?;
        if last.results == vec![sum] {
            last.results = vec![r];
            return Some(ops);
        }
    }
    let mut convert = Op::new(OpKind::Convert, vec![sum], vec![r]);
    convert.loc = op.loc.clone();
    convert.span = op.span;
    ops.push(convert);
    Some(ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::text::{parse_module, print_module};
    use systolic_ir::verify::verify_module;

    fn rewritten(text: &str) -> String {
        let m = parse_module(text, "t").unwrap();
        let out = with_tpu_numerics(&m);
        verify_module(&out).unwrap_or_else(|d| panic!("{d:?}\n{}", print_module(&out)));
        print_module(&out)
    }

    const DOT: &str = "func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
        %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [PRECISION, PRECISION] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
        return %0 : tensor<4x2xf32>
      }";

    #[test]
    fn default_rounds_operands_to_bf16() {
        let text = rewritten(&DOT.replace("PRECISION", "DEFAULT"));
        assert_eq!(text.matches("-> tensor<4x8xbf16>").count(), 1, "{text}");
        assert_eq!(text.matches("-> tensor<8x2xbf16>").count(), 1, "{text}");
        assert_eq!(text.matches("stablehlo.dot_general").count(), 1, "{text}");
    }

    #[test]
    fn high_is_three_passes_highest_unchanged() {
        let text = rewritten(&DOT.replace("PRECISION", "HIGH"));
        assert_eq!(text.matches("stablehlo.dot_general").count(), 3, "{text}");
        assert_eq!(text.matches("stablehlo.subtract").count(), 2, "{text}");
        let highest = DOT.replace("PRECISION", "HIGHEST");
        let m = parse_module(&highest, "t").unwrap();
        assert_eq!(with_tpu_numerics(&m), m);
    }

    #[test]
    fn convolutions_round_like_products() {
        let text = rewritten(
            "func.func @main(%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32> {
               %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
               return %0 : tensor<1x6x6x4xf32>
             }",
        );
        assert!(text.contains("-> tensor<1x8x8x3xbf16>"), "{text}");
        assert!(text.contains("-> tensor<3x3x3x4xbf16>"), "{text}");
        assert_eq!(text.matches("stablehlo.convolution").count(), 1, "{text}");
    }

    #[test]
    fn bf16_operands_accumulate_in_f32() {
        let text = rewritten(
            "func.func @main(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
               %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
               return %0 : tensor<4x2xbf16>
             }",
        );
        assert!(text.contains("-> tensor<4x2xf32>"), "{text}");
        assert!(
            text.contains("(tensor<4x2xf32>) -> tensor<4x2xbf16>"),
            "{text}"
        );
    }
}
