//! Constant folding.

use crate::common;

use common::{count, parse, run_pass};
use systolic_compiler::passes::{ConstFold, Dce};
use systolic_ir::{Module, OpKind, Tensor};

/// The constants `@main` returns, in order (after folding and DCE).
fn returned_constants(m: &Module) -> Vec<Tensor> {
    let f = m.func("main").unwrap();
    let block = &f.body.blocks[0];
    let ret = block.ops.last().unwrap();
    ret.operands
        .iter()
        .map(|v| {
            let op = block.ops.iter().find(|o| o.results.contains(v)).unwrap();
            match &op.kind {
                OpKind::Constant(t) => t.clone(),
                k => panic!("{} is not folded", k.name()),
            }
        })
        .collect()
}

#[test]
fn folds_elementwise_shapes_and_reductions() {
    let m = parse(
        r#"
func.func public @main() -> (tensor<2xf32>, tensor<3x2xi32>, tensor<i32>, tensor<2xi8>) {
  %a = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0.25, 4.0]> : tensor<2xf32>
  %0 = stablehlo.multiply %a, %b : tensor<2xf32>
  %1 = stablehlo.add %0, %a : tensor<2xf32>
  %c = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %2 = stablehlo.transpose %c, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %3 = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<i32>
  %d = stablehlo.constant dense<[100, 27]> : tensor<2xi8>
  %4 = stablehlo.add %d, %d : tensor<2xi8>
  return %1, %2, %3, %4 : tensor<2xf32>, tensor<3x2xi32>, tensor<i32>, tensor<2xi8>
}
"#,
    );
    let out = run_pass(&Dce, &run_pass(&ConstFold, &m));
    let c = returned_constants(&out);
    assert_eq!(c[0].to_f64_vec(), vec![1.875, -10.0]);
    assert_eq!(c[1].to_f64_vec(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    assert_eq!(c[2].to_f64_vec(), vec![21.0]);
    // i8 wraps: 200 -> -56.
    assert_eq!(c[3].to_f64_vec(), vec![-56.0, 54.0]);
    assert_eq!(count(&out, "main", "stablehlo.reduce"), 0);
}

#[test]
fn leaves_broadcasts_iota_rng_and_large_results() {
    let m = parse(
        r#"
func.func public @main(%s: tensor<2xui64>) -> (tensor<4xf32>, tensor<3xi32>, tensor<2xui64>, tensor<70000xf32>) {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.iota dim = 0 : tensor<3xi32>
  %2:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui64>)
  %big = stablehlo.constant dense<2.0> : tensor<70000xf32>
  %3 = stablehlo.negate %big : tensor<70000xf32>
  return %0, %1, %2#1, %3 : tensor<4xf32>, tensor<3xi32>, tensor<2xui64>, tensor<70000xf32>
}
"#,
    );
    let out = run_pass(&ConstFold, &m);
    for k in [
        "stablehlo.broadcast_in_dim",
        "stablehlo.iota",
        "stablehlo.rng_bit_generator",
        "stablehlo.negate",
    ] {
        assert_eq!(count(&out, "main", k), 1, "{k}");
    }
}

#[test]
fn run_time_errors_are_not_folded_away() {
    // Folding must not turn a failing program into a passing one or crash the compiler.
    let m = parse(
        r#"
func.func public @main() -> tensor<2xi32> {
  %a = stablehlo.constant dense<[7, -7]> : tensor<2xi32>
  %z = stablehlo.constant dense<0> : tensor<2xi32>
  %0 = stablehlo.divide %a, %z : tensor<2xi32>
  return %0 : tensor<2xi32>
}
"#,
    );
    let out = run_pass(&Dce, &run_pass(&ConstFold, &m));
    // x / 0 = -1 in StableHLO's integer semantics, so it folds.
    assert_eq!(returned_constants(&out)[0].to_f64_vec(), vec![-1.0, -1.0]);
}

#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&ConstFold, 300);
}
