//! Which ops still run on the interpreter fallback, tracked: each program below compiles with
//! exactly the listed fallback ops (and still computes the interpreter's results). When a
//! kernel family learns one of them, move it out of this list.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::Rng;
use systolic_ir::{DType, TensorType};

fn fallbacks(text: &str) -> Vec<String> {
    let module = support::parse(text);
    let exe = support::compile_main_with(&module, false);
    exe.fallback_ops().iter().map(|f| f.op.clone()).collect()
}

/// Ops with no native kernel yet, each with why.
#[test]
fn remaining_fallbacks_are_listed() {
    // batch_norm_* : no kernel family (JAX never emits them; they decompose).
    let bn = "func.func @main(%x: tensor<2x2xf32>, %s: tensor<2xf32>, %o: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<2x2xf32> {
  %0 = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %m, %v) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}";
    assert_eq!(fallbacks(bn), ["stablehlo.batch_norm_inference"]);
    // select_and_scatter with a sub-byte operand: the native kernel covers comparison selects
    // and simple scatters on byte-sized types only.
    let sas = "func.func @main(%x: tensor<4xi4>, %s: tensor<2xi4>, %i: tensor<i4>) -> tensor<4xi4> {
  %0 = \"stablehlo.select_and_scatter\"(%x, %s, %i) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<i4>, %b: tensor<i4>):
    %c = stablehlo.compare GE, %a, %b : (tensor<i4>, tensor<i4>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<i4>, %b: tensor<i4>):
    %c = stablehlo.add %a, %b : tensor<i4>
    stablehlo.return %c : tensor<i4>
  }) : (tensor<4xi4>, tensor<2xi4>, tensor<i4>) -> tensor<4xi4>
  return %0 : tensor<4xi4>
}";
    assert_eq!(fallbacks(sas), ["stablehlo.select_and_scatter"]);
    // A scatter whose update region reads a value from outside it: region programs take only
    // their arguments.
    let captured = "func.func @main(%x: tensor<4xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>, %k: tensor<f32>) -> tensor<4xf32> {
  %0 = \"stablehlo.scatter\"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.multiply %b, %k : tensor<f32>
    %d = stablehlo.add %a, %c : tensor<f32>
    stablehlo.return %d : tensor<f32>
  }) : (tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}";
    assert_eq!(fallbacks(captured), ["stablehlo.scatter"]);
    let mut rng = Rng::new(1);
    let inputs = [
        TensorType::new(vec![4], DType::I4),
        TensorType::new(vec![2], DType::I4),
        TensorType::new(vec![], DType::I4),
    ];
    let body = sas.lines().skip(1).take(9).collect::<Vec<_>>().join("\n");
    let body = body
        .replace("%x", "%a0")
        .replace("%s,", "%a1,")
        .replace("%i)", "%a2)");
    let body = body.replace("%0 =", "%r0 =");
    let case = Case::new(&mut rng, &inputs, &body, &[inputs[0].clone()]);
    check(&case, Tolerance::Exact, Expect::Any);
}
