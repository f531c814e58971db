//! Which ops still run on the interpreter fallback, tracked: each program below compiles with
//! exactly the listed fallback ops (and still computes the interpreter's results). When a
//! kernel family learns one of them, move it out of this list. Ops the optimising pipeline
//! expands into ops with kernels (batch norms, `map`, single-device collectives) are listed
//! apart: they must not fall back when optimised.

use crate::support;

use support::compare::Tolerance;
use support::harness::{check, Case, Expect};
use support::random::Rng;
use systolic_ir::{DType, TensorType};

fn fallbacks_with(text: &str, optimize: bool) -> Vec<String> {
    let module = support::parse(text);
    let exe = support::compile_main_with(&module, optimize);
    exe.fallback_ops().iter().map(|f| f.op.clone()).collect()
}

fn fallbacks(text: &str) -> Vec<String> {
    fallbacks_with(text, false)
}

/// Ops no kernel family takes, which expander passes of the optimising pipeline rewrite into
/// ops that have kernels (`batch_norm_expander`, `map_inliner`, `single_device_spmd`): none
/// falls back when optimised; each still does without the pipeline.
#[test]
fn expanded_ops_do_not_fall_back_when_optimised() {
    let bn = "func.func @main(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %g: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %t:3 = \"stablehlo.batch_norm_training\"(%x, %s, %o) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  %i = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %t#1, %t#2) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %d:3 = \"stablehlo.batch_norm_grad\"(%x, %s, %t#1, %t#2, %g) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %t#0, %i, %d#0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}";
    let map = "func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = \"stablehlo.map\"(%x, %y) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.constant dense<2.0> : tensor<f32>
    %m = stablehlo.multiply %a, %c : tensor<f32>
    %s = stablehlo.add %m, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}";
    let collectives = "func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<ui32>) {
  %r = \"stablehlo.all_reduce\"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %g = \"stablehlo.all_gather\"(%r) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %p = \"stablehlo.collective_permute\"(%g) {source_target_pairs = dense<> : tensor<0x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %h = stablehlo.custom_call @Sharding(%g) {backend_config = \"\"} : (tensor<4xf32>) -> tensor<4xf32>
  %i = stablehlo.replica_id : tensor<ui32>
  return %p, %h, %i : tensor<4xf32>, tensor<4xf32>, tensor<ui32>
}";
    for (text, unoptimised) in [
        (
            bn,
            &[
                "stablehlo.batch_norm_training",
                "stablehlo.batch_norm_inference",
                "stablehlo.batch_norm_grad",
            ][..],
        ),
        (map, &["stablehlo.map"][..]),
        (
            collectives,
            &[
                "stablehlo.all_reduce",
                "stablehlo.all_gather",
                "stablehlo.collective_permute",
                "stablehlo.custom_call",
                "stablehlo.replica_id",
            ][..],
        ),
    ] {
        assert_eq!(fallbacks_with(text, true), Vec::<String>::new(), "{text}");
        assert_eq!(fallbacks(text), unoptimised, "{text}");
    }
}

/// Ops with no native kernel yet, each with why.
#[test]
fn remaining_fallbacks_are_listed() {
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
    let captured = support::SCATTER_READING_AN_OUTER_VALUE;
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
    // `Any`: select_and_scatter on a sub-byte integer (i4) runs on the interpreter fallback
    // (kernels/window/mod.rs), as asserted above; this checks the fallback's values.
    check(&case, Tolerance::Exact, Expect::Any);
}

/// `chlo.scan` and `chlo.ragged_dot` have no kernels and no decomposition yet: both run on the
/// fallback, through the optimising pipeline too (CHLO legalization keeps them), with the
/// interpreter's values.
#[test]
fn scan_and_ragged_dot_fall_back_with_the_interpreters_values() {
    let scan = "  %z = stablehlo.constant dense<0.0> : tensor<3xf32>
  %r0, %c = chlo.scan(%a0) inits(%z) dimension = 0 {
  ^bb0(%x: tensor<3xf32>, %s: tensor<3xf32>):
    %m = stablehlo.multiply %x, %x : tensor<3xf32>
    %t = stablehlo.add %s, %m : tensor<3xf32>
    stablehlo.return %t, %t : tensor<3xf32>, tensor<3xf32>
  } : (tensor<5x3xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>)";
    let ragged = "  %g = stablehlo.constant dense<[2, 0, 3]> : tensor<3xi32>
  %r1 = \"chlo.ragged_dot\"(%a1, %a2, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<
    lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
    lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}
    : (tensor<6x4xf32>, tensor<3x4x2xf32>, tensor<3xi32>) -> tensor<6x2xf32>";
    let params = [
        TensorType::new(vec![5, 3], DType::F32),
        TensorType::new(vec![6, 4], DType::F32),
        TensorType::new(vec![3, 4, 2], DType::F32),
    ];
    let results = [
        TensorType::new(vec![5, 3], DType::F32),
        TensorType::new(vec![6, 2], DType::F32),
    ];
    let mut rng = Rng::new(3);
    let case = Case::new(&mut rng, &params, &format!("{scan}\n{ragged}"), &results);
    for optimize in [false, true] {
        assert_eq!(
            fallbacks_with(&case.text, optimize),
            ["chlo.scan", "chlo.ragged_dot"],
            "optimize = {optimize}"
        );
    }
    check(&case, Tolerance::Exact, Expect::Any);
}

/// Every op on quantized values runs on the fallback (no kernel knows the scales), through
/// the optimising pipeline too, with the interpreter's values; the plain ops around them stay
/// native.
#[test]
fn quantized_ops_fall_back_with_the_interpreters_values() {
    let q = "tensor<4x3x!quant.uniform<i8:f32:1, {0.05:-3,0.1,0.02:7}>>";
    let r = "tensor<4x3x!quant.uniform<i8:f32, 0.04:2>>";
    let ops = format!(
        "  %m = stablehlo.multiply %a0, %a0 : tensor<4x3xf32>
  %q = \"stablehlo.uniform_quantize\"(%m) : (tensor<4x3xf32>) -> {q}
  %s = stablehlo.add %q, %q : ({q}, {q}) -> {r}
  %r0 = \"stablehlo.uniform_dequantize\"(%s) : ({r}) -> tensor<4x3xf32>"
    );
    let params = [TensorType::new(vec![4, 3], DType::F32)];
    let mut rng = Rng::new(5);
    let case = Case::new(&mut rng, &params, &ops, &params);
    for optimize in [false, true] {
        assert_eq!(
            fallbacks_with(&case.text, optimize),
            [
                "stablehlo.uniform_quantize",
                "stablehlo.add",
                "stablehlo.uniform_dequantize"
            ],
            "optimize = {optimize}"
        );
    }
    check(&case, Tolerance::Exact, Expect::Any);
}

/// A quantized product (per-tensor lhs, per-axis rhs and result along the free dimension)
/// between float values: the conversions and the product fall back, and the compiled run
/// gives the interpreter's stored integers.
#[test]
fn quantized_dot_general_falls_back_with_the_interpreters_values() {
    let lhs = "tensor<2x3x!quant.uniform<i8:f32, 0.05:-3>>";
    let rhs = "tensor<3x4x!quant.uniform<i8:f32:1, {0.1,0.2,0.05,0.02}>>";
    let out = "tensor<2x4x!quant.uniform<i32:f32:1, {0.01,0.02,0.005,0.002}>>";
    let ops = format!(
        "  %ql = \"stablehlo.uniform_quantize\"(%a0) : (tensor<2x3xf32>) -> {lhs}
  %qr = \"stablehlo.uniform_quantize\"(%a1) : (tensor<3x4xf32>) -> {rhs}
  %p = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : ({lhs}, {rhs}) -> {out}
  %r0 = \"stablehlo.uniform_dequantize\"(%p) : ({out}) -> tensor<2x4xf32>"
    );
    let params = [
        TensorType::new(vec![2, 3], DType::F32),
        TensorType::new(vec![3, 4], DType::F32),
    ];
    let results = [TensorType::new(vec![2, 4], DType::F32)];
    let mut rng = Rng::new(6);
    let case = Case::new(&mut rng, &params, &ops, &results);
    for optimize in [false, true] {
        assert_eq!(
            fallbacks_with(&case.text, optimize),
            [
                "stablehlo.uniform_quantize",
                "stablehlo.uniform_quantize",
                "stablehlo.dot_general",
                "stablehlo.uniform_dequantize"
            ],
            "optimize = {optimize}"
        );
    }
    check(&case, Tolerance::Exact, Expect::Any);
}
