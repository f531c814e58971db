//! Batch-norm expansion (XLA's `BatchNormExpander`): `stablehlo.batch_norm_inference`,
//! `batch_norm_training` and `batch_norm_grad` become per-feature reductions, broadcasts
//! along the feature dimension and elementwise arithmetic. No backend kernel family takes the
//! batch-norm ops themselves (they would run on the CPU backend's interpreter fallback); the
//! expanded ops are ones the CPU backend fuses and compiles.
//!
//! Statistics are per feature (the `feature_index` dimension) over every other dimension, N
//! elements per feature; the variance is the biased one (divided by N), as the spec defines
//! it. With `b(v)` a per-feature vector broadcast along the feature dimension:
//!
//! - inference: `(x − b(mean))·b(scale / √(variance + ε)) + b(offset)`;
//! - training: `mean = Σx / N`, `variance = Σ(x − b(mean))² / N`, then inference with them
//!   (two passes: the squared deviations from the mean, not `E[x²] − E[x]²`, which loses the
//!   digits of a small variance under a large mean);
//! - grad: with `r = 1 / √(variance + ε)` and `x̂ = (x − b(mean))·b(r)`:
//!   `grad_offset = Σ g`, `grad_scale = Σ g·x̂`,
//!   `grad_operand = b(scale·r / N)·(N·g − b(grad_offset) − x̂·b(grad_scale))`.
//!
//! The interpreter computes these ops in f64 and rounds each result once; the expansion
//! computes in the operand's float type (f16 and bf16 in f32, rounded once at the end, as
//! `chlo_legalize` does), so results agree within a few ulps plus the rounding of the sums.
//! An op whose operand or result types do not fit the rules (the verifier rejects those) is
//! left alone.

use super::simplify::splat::emit_splat_tensor;
use crate::pass::Pass;
use crate::rewrite::{rewrite_func, Action, Rewriter};
use systolic_ir::{
    BinaryOp, Block, DType, Diagnostic, Module, Op, OpKind, Region, ReturnKind, Tensor, TensorType,
    Type, UnaryOp, ValueId,
};

/// The batch-norm expansion pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchNormExpander;

impl Pass for BatchNormExpander {
    fn name(&self) -> &'static str {
        "batch_norm_expander"
    }

    fn run(&self, module: &mut Module) -> Result<bool, Diagnostic> {
        let mut changed = false;
        for func in &mut module.funcs {
            changed |= rewrite_func(func, &mut |rw, op| {
                Ok(match expand(rw, op) {
                    Some(values) => Action::Replace(values),
                    None => Action::Keep,
                })
            })?;
        }
        Ok(changed)
    }
}

fn expand(rw: &mut Rewriter<'_, '_>, op: &Op) -> Option<Vec<ValueId>> {
    match op.kind {
        OpKind::BatchNormInference {
            epsilon,
            feature_index,
        } => inference(rw, op, epsilon, feature_index),
        OpKind::BatchNormTraining {
            epsilon,
            feature_index,
        } => training(rw, op, epsilon, feature_index),
        OpKind::BatchNormGrad {
            epsilon,
            feature_index,
        } => grad(rw, op, epsilon, feature_index),
        _ => None,
    }
}

/// `(operand, scale, offset, mean, variance) → output`.
fn inference(
    rw: &mut Rewriter<'_, '_>,
    op: &Op,
    epsilon: f64,
    feature_index: i64,
) -> Option<Vec<ValueId>> {
    let [x, scale, offset, mean, variance] = op.operands[..] else {
        return None;
    };
    let mut e = Expander::new(
        rw,
        op,
        x,
        feature_index,
        &[scale, offset, mean, variance],
        1,
    )?;
    let [x, scale, offset, mean, variance] = [x, scale, offset, mean, variance].map(|v| e.input(v));
    let centered = e.centered(x, mean);
    let r = e.scale_over_stddev(scale, variance, epsilon);
    let out = e.affine(centered, r, offset);
    Some(vec![e.output(out)])
}

/// `(operand, scale, offset) → (output, batch mean, batch variance)`.
fn training(
    rw: &mut Rewriter<'_, '_>,
    op: &Op,
    epsilon: f64,
    feature_index: i64,
) -> Option<Vec<ValueId>> {
    let [x, scale, offset] = op.operands[..] else {
        return None;
    };
    let mut e = Expander::new(rw, op, x, feature_index, &[scale, offset], 3)?;
    let [x, scale, offset] = [x, scale, offset].map(|v| e.input(v));
    let sum = e.sum(x);
    let mean = e.per_n(sum);
    let centered = e.centered(x, mean);
    let squares = e.binary(BinaryOp::Multiply, centered, centered);
    let sum_squares = e.sum(squares);
    let variance = e.per_n(sum_squares);
    let r = e.scale_over_stddev(scale, variance, epsilon);
    let out = e.affine(centered, r, offset);
    Some(vec![e.output(out), e.output(mean), e.output(variance)])
}

/// `(operand, scale, mean, variance, grad_output) → (grad_operand, grad_scale, grad_offset)`.
fn grad(
    rw: &mut Rewriter<'_, '_>,
    op: &Op,
    epsilon: f64,
    feature_index: i64,
) -> Option<Vec<ValueId>> {
    let [x, scale, mean, variance, grad_out] = op.operands[..] else {
        return None;
    };
    if rw.ty(grad_out) != rw.ty(x) {
        return None;
    }
    let mut e = Expander::new(rw, op, x, feature_index, &[scale, mean, variance], 3)?;
    let [x, scale, mean, variance, g] = [x, scale, mean, variance, grad_out].map(|v| e.input(v));
    let one = e.splat(1.0, false);
    let stddev = e.stddev(variance, epsilon);
    let r = e.binary(BinaryOp::Divide, one, stddev);
    let centered = e.centered(x, mean);
    let r_full = e.broadcast(r);
    let x_hat = e.binary(BinaryOp::Multiply, centered, r_full);
    let grad_offset = e.sum(g);
    let g_x_hat = e.binary(BinaryOp::Multiply, g, x_hat);
    let grad_scale = e.sum(g_x_hat);
    // N·g − b(grad_offset) − x̂·b(grad_scale)
    let n = e.splat(e.n as f64, true);
    let n_g = e.binary(BinaryOp::Multiply, n, g);
    let offset_full = e.broadcast(grad_offset);
    let d = e.binary(BinaryOp::Subtract, n_g, offset_full);
    let scale_full = e.broadcast(grad_scale);
    let x_hat_scale = e.binary(BinaryOp::Multiply, x_hat, scale_full);
    let inner = e.binary(BinaryOp::Subtract, d, x_hat_scale);
    // b(scale·r / N)·inner
    let scale_r = e.binary(BinaryOp::Multiply, scale, r);
    let k = e.per_n(scale_r);
    let k_full = e.broadcast(k);
    let grad_x = e.binary(BinaryOp::Multiply, k_full, inner);
    Some(vec![
        e.output(grad_x),
        e.output(grad_scale),
        e.output(grad_offset),
    ])
}

/// Emits the expansion of one batch-norm op: values of the operand's shape ("full") or one per
/// feature ("per-feature"), all in the compute type.
struct Expander<'r, 's, 'a> {
    rw: &'r mut Rewriter<'s, 'a>,
    /// The operand's shape.
    shape: Vec<i64>,
    /// The operand's (and every result's) element type.
    dtype: DType,
    /// The element type computed in.
    compute: DType,
    /// The feature dimension.
    feature: usize,
    /// Elements per feature.
    n: usize,
}

impl<'r, 's, 'a> Expander<'r, 's, 'a> {
    /// Checks the types: a float operand `x` with `feature_index` in range, the per-feature
    /// operands `tensor<C x dtype>`, the op's first result of `x`'s type and the other
    /// `results - 1` per-feature.
    fn new(
        rw: &'r mut Rewriter<'s, 'a>,
        op: &Op,
        x: ValueId,
        feature_index: i64,
        per_feature: &[ValueId],
        results: usize,
    ) -> Option<Self> {
        let ty = rw.tensor_ty(x)?.clone();
        if !ty.dtype.is_float() || feature_index < 0 || feature_index as usize >= ty.rank() {
            return None;
        }
        let feature = feature_index as usize;
        let vector = TensorType::new(vec![ty.shape[feature]], ty.dtype);
        let vector_ty = Type::Tensor(vector);
        if per_feature.iter().any(|&v| rw.ty(v) != Some(&vector_ty)) || op.results.len() != results
        {
            return None;
        }
        if rw.ty(op.results[0]) != Some(&Type::Tensor(ty.clone()))
            || op.results[1..]
                .iter()
                .any(|&r| rw.ty(r) != Some(&vector_ty))
        {
            return None;
        }
        let count = ty.shape[feature].max(1) as usize;
        let compute = match ty.dtype {
            DType::F64 => DType::F64,
            _ => DType::F32,
        };
        Some(Expander {
            rw,
            n: ty.num_elements() / count,
            shape: ty.shape,
            dtype: ty.dtype,
            compute,
            feature,
        })
    }

    fn full_type(&self, dtype: DType) -> TensorType {
        TensorType::new(self.shape.clone(), dtype)
    }

    fn vector_type(&self, dtype: DType) -> TensorType {
        TensorType::new(vec![self.shape[self.feature]], dtype)
    }

    /// The type of `v`, which the expander made or checked.
    fn ty(&self, v: ValueId) -> TensorType {
        self.rw
            .tensor_ty(v)
            .cloned()
            .expect("batch-norm expansion values are tensors")
    }

    /// An operand converted to the compute type.
    fn input(&mut self, v: ValueId) -> ValueId {
        self.convert(v, self.compute)
    }

    /// A result converted back to the operand's element type.
    fn output(&mut self, v: ValueId) -> ValueId {
        self.convert(v, self.dtype)
    }

    fn convert(&mut self, v: ValueId, dtype: DType) -> ValueId {
        let ty = self.ty(v);
        if ty.dtype == dtype {
            return v;
        }
        self.rw
            .emit1(OpKind::Convert, vec![v], Type::Tensor(ty.with_dtype(dtype)))
    }

    /// `a op b`, both of one type.
    fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = Type::Tensor(self.ty(a));
        self.rw.emit1(OpKind::Binary(op), vec![a, b], ty)
    }

    /// A splat of `x` in the compute type, full or per-feature.
    fn splat(&mut self, x: f64, full: bool) -> ValueId {
        let ty = if full {
            self.full_type(self.compute)
        } else {
            self.vector_type(self.compute)
        };
        let scalar = Tensor::from_f64(vec![], self.compute, vec![x])
            .expect("a float is representable in a float dtype");
        emit_splat_tensor(self.rw, &ty, scalar)
    }

    /// A per-feature vector broadcast along the feature dimension.
    fn broadcast(&mut self, v: ValueId) -> ValueId {
        if self.shape.len() == 1 {
            return v;
        }
        let ty = Type::Tensor(self.full_type(self.compute));
        self.rw.emit1(
            OpKind::BroadcastInDim {
                broadcast_dimensions: vec![self.feature as i64],
            },
            vec![v],
            ty,
        )
    }

    /// The per-feature sums of a full value (over every dimension but the feature one).
    fn sum(&mut self, v: ValueId) -> ValueId {
        if self.shape.len() == 1 {
            return v;
        }
        let scalar = TensorType::scalar(self.compute);
        let zero = self.rw.emit_constant(Tensor::zeros(scalar.clone()));
        let s = Type::Tensor(scalar);
        let (a, b, r) = (
            self.rw.fresh(s.clone()),
            self.rw.fresh(s.clone()),
            self.rw.fresh(s),
        );
        let body = Block {
            args: vec![a, b],
            ops: vec![
                Op::new(OpKind::Binary(BinaryOp::Add), vec![a, b], vec![r]),
                Op::new(OpKind::Return(ReturnKind::Stablehlo), vec![r], vec![]),
            ],
        };
        let dimensions = (0..self.shape.len() as i64)
            .filter(|&d| d != self.feature as i64)
            .collect();
        let out = self.rw.fresh(Type::Tensor(self.vector_type(self.compute)));
        let mut reduce = Op::new(OpKind::Reduce { dimensions }, vec![v, zero], vec![out]);
        reduce.regions.push(Region::single(body));
        self.rw.emit_op(reduce);
        out
    }

    /// A per-feature value divided by N.
    fn per_n(&mut self, v: ValueId) -> ValueId {
        let n = self.splat(self.n as f64, false);
        self.binary(BinaryOp::Divide, v, n)
    }

    /// `x − b(mean)`.
    fn centered(&mut self, x: ValueId, mean: ValueId) -> ValueId {
        let mean = self.broadcast(mean);
        self.binary(BinaryOp::Subtract, x, mean)
    }

    /// `√(variance + ε)`, per feature.
    fn stddev(&mut self, variance: ValueId, epsilon: f64) -> ValueId {
        let eps = self.splat(epsilon, false);
        let v = self.binary(BinaryOp::Add, variance, eps);
        let ty = Type::Tensor(self.ty(v));
        self.rw.emit1(OpKind::Unary(UnaryOp::Sqrt), vec![v], ty)
    }

    /// `scale / √(variance + ε)`, per feature.
    fn scale_over_stddev(&mut self, scale: ValueId, variance: ValueId, epsilon: f64) -> ValueId {
        let stddev = self.stddev(variance, epsilon);
        self.binary(BinaryOp::Divide, scale, stddev)
    }

    /// `centered·b(factor) + b(offset)`.
    fn affine(&mut self, centered: ValueId, factor: ValueId, offset: ValueId) -> ValueId {
        let factor = self.broadcast(factor);
        let scaled = self.binary(BinaryOp::Multiply, centered, factor);
        let offset = self.broadcast(offset);
        self.binary(BinaryOp::Add, scaled, offset)
    }
}
