//! Inlining.

use crate::common;

use common::{count, parse, run_main, run_pass};
use systolic_compiler::passes::Inline;
use systolic_compiler::Pass;
use systolic_interp::Value;
use systolic_ir::Tensor;

#[test]
fn inlines_nested_calls_and_removes_unused_private_functions() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<2xf32>, %p: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = func.call @twice(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = func.call @twice(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "stablehlo.if"(%p) ({
    %3 = func.call @square(%1) : (tensor<2xf32>) -> tensor<2xf32>
    stablehlo.return %3 : tensor<2xf32>
  }, {
    stablehlo.return %0 : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %1, %2 : tensor<2xf32>, tensor<2xf32>
}
func.func private @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @square(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = stablehlo.add %0, %x : tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @square(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func public @kept(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
"#,
    );
    let out = run_pass(&Inline, &m);
    let names: Vec<&str> = out.funcs.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["main", "kept"]);
    assert_eq!(count(&out, "main", "func.call"), 0);
    // Two copies of twice (each one multiply + one add) and one square in the branch.
    assert_eq!(count(&out, "main", "stablehlo.multiply"), 3);
    assert_eq!(count(&out, "main", "stablehlo.add"), 2);
    let a = Tensor::from_f32(vec![2], vec![1.0, -2.0]);
    let p = Tensor::from_bool(vec![], vec![true]).unwrap();
    let args = vec![Value::Tensor(a), Value::Tensor(p)];
    // twice(1) = 2, twice(2) = 6, square(6) = 36; twice(-2) = 2, twice(2) = 6.
    let got = run_main(&out, args.clone()).unwrap();
    let want = run_main(&m, args).unwrap();
    assert_eq!(got, want);
    assert_eq!(got[1].as_tensor().unwrap().to_f64_vec(), vec![36.0, 36.0]);
}

#[test]
fn recursion_is_reported_with_the_cycle() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = func.call @ping(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @ping(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @pong(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @pong(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @ping(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
"#,
    );
    let mut out = m.clone();
    let err = Inline.run(&mut out).unwrap_err();
    assert!(
        err.message.contains("@ping -> @pong -> @ping"),
        "{}",
        err.message
    );
}

#[test]
fn composite_decompositions_stay() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.composite "my.id" %a {decomposition = @my_id} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @my_id(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
"#,
    );
    let out = run_pass(&Inline, &m);
    assert_eq!(out, m);
}

#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&Inline, 300);
}
