//! Batch-norm expansion: no batch-norm op survives, the expansion is reductions along every
//! dimension but the feature one and broadcasts along it, and the expanded module computes
//! the interpreter's batch-norm results within a few ulps of the operand's type (relative to
//! the largest element of each result) on random inputs, for every feature dimension, feature
//! counts 1 and odd, and every float type.

use crate::common;

use common::{count, op_names, parse, run_main, run_pass, Lcg};
use systolic_compiler::passes::BatchNormExpander;
use systolic_interp::Value;
use systolic_ir::text::print_module;
use systolic_ir::walk::walk_ops;
use systolic_ir::{DType, Module, OpKind, Tensor};

const OPS: [&str; 3] = [
    "stablehlo.batch_norm_inference",
    "stablehlo.batch_norm_training",
    "stablehlo.batch_norm_grad",
];

fn ty(shape: &[i64], dtype: DType) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        s += &format!("{d}x");
    }
    s + dtype.mlir_name() + ">"
}

/// `@main` with the three batch-norm ops on `shape` along `feature`: training on
/// (x, scale, offset); inference on (x, scale, offset, mean, variance); grad on
/// (x, scale, mean, variance, g).
fn module(shape: &[i64], feature: usize, dtype: DType, epsilon: f64) -> Module {
    let a = ty(shape, dtype);
    let v = ty(&[shape[feature]], dtype);
    let attrs = format!("{{epsilon = {epsilon:e} : f32, feature_index = {feature} : i64}}");
    parse(&format!(
        "func.func public @main(%x: {a}, %s: {v}, %o: {v}, %m: {v}, %var: {v}, %g: {a}) -> ({a}, {v}, {v}, {a}, {a}, {v}, {v}) {{
  %t:3 = \"stablehlo.batch_norm_training\"(%x, %s, %o) {attrs} : ({a}, {v}, {v}) -> ({a}, {v}, {v})
  %i = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %m, %var) {attrs} : ({a}, {v}, {v}, {v}, {v}) -> {a}
  %d:3 = \"stablehlo.batch_norm_grad\"(%x, %s, %m, %var, %g) {attrs} : ({a}, {v}, {v}, {v}, {a}) -> ({a}, {v}, {v})
  return %t#0, %t#1, %t#2, %i, %d#0, %d#1, %d#2 : {a}, {v}, {v}, {a}, {a}, {v}, {v}
}}"
    ))
}

fn uniform(rng: &mut Lcg, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * (rng.next() % 1_000_000) as f64 / 1_000_000.0
}

fn tensor(rng: &mut Lcg, shape: &[i64], dtype: DType, lo: f64, hi: f64) -> Value {
    let n = shape.iter().product::<i64>() as usize;
    let values = (0..n).map(|_| uniform(rng, lo, hi)).collect();
    Value::Tensor(Tensor::from_f64(shape.to_vec(), dtype, values).unwrap())
}

/// Inputs of [`module`]: data with a mean away from 0, positive variances.
fn inputs(rng: &mut Lcg, shape: &[i64], feature: usize, dtype: DType) -> Vec<Value> {
    let c = [shape[feature]];
    vec![
        tensor(rng, shape, dtype, -1.0, 3.0),
        tensor(rng, &c, dtype, -2.0, 2.0),
        tensor(rng, &c, dtype, -2.0, 2.0),
        tensor(rng, &c, dtype, -1.0, 2.0),
        tensor(rng, &c, dtype, 0.05, 2.0),
        tensor(rng, shape, dtype, -2.0, 2.0),
    ]
}

/// A few ulps of `dtype`, relative.
fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F64 => 1e-12,
        DType::F32 => 1e-5,
        DType::F16 => 4e-3,
        _ => 2e-2,
    }
}

/// Asserts `got` is within `rtol` of `want`, elementwise, relative to the element plus the
/// largest element of the result (sums and differences of larger terms round at that scale).
fn assert_close(what: &str, want: &[Value], got: &[Value], rtol: f64) {
    assert_eq!(want.len(), got.len(), "{what}: number of results");
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        let (w, g) = (w.as_tensor().unwrap(), g.as_tensor().unwrap());
        assert_eq!(w.ty(), g.ty(), "{what}: result {i} type");
        let (w, g) = (w.to_f64_vec(), g.to_f64_vec());
        let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for (k, (a, b)) in w.iter().zip(&g).enumerate() {
            assert!(
                (a - b).abs() <= rtol * (a.abs() + scale),
                "{what}: result {i} element {k}: want {a}, got {b} (rtol {rtol})"
            );
        }
    }
}

fn assert_no_batch_norm(m: &Module) {
    for op in OPS {
        assert_eq!(count(m, "main", op), 0, "{op} left:\n{}", print_module(m));
    }
}

#[test]
fn every_float_type_feature_dimension_and_size() {
    let shapes: [&[i64]; 6] = [&[5], &[1], &[4, 3], &[2, 1, 3], &[3, 5, 2], &[2, 3, 1, 7]];
    let dtypes = [DType::F32, DType::F64, DType::F16, DType::BF16];
    let mut rng = Lcg(17);
    for shape in shapes {
        for feature in 0..shape.len() {
            for dtype in dtypes {
                let m = module(shape, feature, dtype, 1e-3);
                let out = run_pass(&BatchNormExpander, &m);
                assert_no_batch_norm(&out);
                for _ in 0..2 {
                    let args = inputs(&mut rng, shape, feature, dtype);
                    let want = run_main(&m, args.clone()).unwrap();
                    let got = run_main(&out, args).unwrap();
                    let what = format!("{shape:?} feature {feature} {dtype}");
                    assert_close(&what, &want, &got, tolerance(dtype));
                }
            }
        }
    }
}

/// Larger batches: f32 sums over a few thousand elements per feature stay within 1e-5.
#[test]
fn larger_batches_in_f32() {
    let mut rng = Lcg(5);
    for (shape, feature) in [(&[64i64, 33, 3][..], 2), (&[8, 5, 9, 11][..], 1)] {
        let m = module(shape, feature, DType::F32, 1e-5);
        let out = run_pass(&BatchNormExpander, &m);
        let args = inputs(&mut rng, shape, feature, DType::F32);
        let want = run_main(&m, args.clone()).unwrap();
        let got = run_main(&out, args).unwrap();
        assert_close(&format!("{shape:?}"), &want, &got, 1e-5);
    }
}

/// Reductions run over every dimension but the feature one, broadcasts along it; f32 needs no
/// conversions, bf16 converts its operands in and its results out.
#[test]
fn the_expansion_reduces_and_broadcasts_along_the_feature_dimension() {
    let out = run_pass(&BatchNormExpander, &module(&[2, 3, 4], 1, DType::F32, 1e-3));
    let main = out.func("main").unwrap();
    let (mut reduces, mut broadcasts) = (vec![], vec![]);
    walk_ops(&main.body, &mut |op, _| match &op.kind {
        OpKind::Reduce { dimensions } => reduces.push(dimensions.clone()),
        OpKind::BroadcastInDim {
            broadcast_dimensions,
        } if !broadcast_dimensions.is_empty() => broadcasts.push(broadcast_dimensions.clone()),
        _ => {}
    });
    // training: Σx and Σ(x − mean)²; grad: Σg and Σg·x̂.
    assert_eq!(reduces, vec![vec![0, 2]; 4]);
    assert!(!broadcasts.is_empty());
    assert!(broadcasts.iter().all(|d| d == &[1]), "{broadcasts:?}");
    assert_eq!(count(&out, "main", "stablehlo.convert"), 0);

    let out = run_pass(&BatchNormExpander, &module(&[2, 3], 0, DType::BF16, 1e-3));
    let converts = count(&out, "main", "stablehlo.convert");
    // Operands in: 3 + 5 + 5; results out: 3 + 1 + 3.
    assert_eq!(converts, 20, "{}", print_module(&out));
}

/// A rank-1 operand has one element per feature: no reduction or broadcast is needed.
#[test]
fn a_rank_one_operand_needs_no_reduction() {
    let out = run_pass(&BatchNormExpander, &module(&[7], 0, DType::F32, 1e-3));
    let names = op_names(&out, "main");
    assert!(!names.iter().any(|n| n == "stablehlo.reduce"), "{names:?}");
    assert_no_batch_norm(&out);
}

/// Every other program (the goldens, check files — including the batch-norm ones, whose
/// checks still pass — and random programs) means the same after the pass.
#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&BatchNormExpander, 20);
}

/// The CPU pipeline runs the pass among its expanders: after CHLO legalization, before the
/// simplification rounds (which clean up after it) and fusion.
#[test]
fn registered_in_the_cpu_pipeline_before_simplification() {
    let names = systolic_compiler::backend_pipeline::cpu_pipeline(Default::default()).pass_names();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
    assert!(at("chlo_legalize") < at("batch_norm_expander"), "{names:?}");
    assert!(at("batch_norm_expander") < at("simplify"), "{names:?}");
    assert!(
        systolic_compiler::backend_pipeline::cpu_expander_pass_names()
            .contains(&"batch_norm_expander")
    );
}
