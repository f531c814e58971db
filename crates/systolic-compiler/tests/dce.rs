//! Dead code elimination.

use crate::common;

use common::{count, op_names, parse, run_pass};
use systolic_compiler::passes::Dce;

#[test]
fn removes_dead_chains_keeps_effects() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.exponential %a : tensor<2xf32>
  %1 = stablehlo.add %0, %0 : tensor<2xf32>
  %2 = stablehlo.multiply %1, %a : tensor<2xf32>
  %3 = stablehlo.custom_call @effect(%a) {has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>
  %4 = stablehlo.custom_call @pure(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %5 = stablehlo.negate %a : tensor<2xf32>
  return %5 : tensor<2xf32>
}
"#,
    );
    let out = run_pass(&Dce, &m);
    assert_eq!(
        op_names(&out, "main"),
        vec!["stablehlo.custom_call", "stablehlo.negate", "func.return"]
    );
}

#[test]
fn drops_unused_if_results_and_dead_private_functions() {
    let m = parse(
        r#"
func.func public @main(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {
  %0:2 = "stablehlo.if"(%p) ({
    %e = stablehlo.exponential %a : tensor<f32>
    %n = stablehlo.negate %a : tensor<f32>
    stablehlo.return %e, %n : tensor<f32>, tensor<f32>
  }, {
    %c = func.call @used(%a) : (tensor<f32>) -> tensor<f32>
    stablehlo.return %a, %c : tensor<f32>, tensor<f32>
  }) : (tensor<i1>) -> (tensor<f32>, tensor<f32>)
  %1 = func.call @unused(%a) : (tensor<f32>) -> tensor<f32>
  return %0#1 : tensor<f32>
}
func.func private @unused(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func private @used(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.sqrt %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @orphan(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
"#,
    );
    let out = run_pass(&Dce, &m);
    let names: Vec<&str> = out.funcs.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["main", "used"]);
    assert_eq!(count(&out, "main", "stablehlo.exponential"), 0);
    assert_eq!(count(&out, "main", "stablehlo.negate"), 1);
    let if_op = &out.funcs[0].body.blocks[0].ops[0];
    assert_eq!(if_op.results.len(), 1);
}

#[test]
fn keeps_calls_to_effectful_functions_and_loops_with_effects() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = func.call @loud(%a) : (tensor<f32>) -> tensor<f32>
  %1 = stablehlo.while(%it = %a) : tensor<f32>
   cond {
    %c = stablehlo.compare LT, %it, %it : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %x = stablehlo.custom_call @print(%it) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>
    stablehlo.return %x : tensor<f32>
  }
  return %a : tensor<f32>
}
func.func private @loud(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.custom_call @print(%x) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
"#,
    );
    let out = run_pass(&Dce, &m);
    assert_eq!(count(&out, "main", "func.call"), 1);
    assert_eq!(count(&out, "main", "stablehlo.while"), 1);
    assert!(out.func("loud").is_some());
}

#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&Dce, 300);
}

#[test]
fn drops_dead_loop_carried_values() {
    let m = parse(
        r#"
func.func public @main(%n: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0:5 = stablehlo.while(%i = %c0, %a = %x, %dead = %z, %feeds = %z, %limit = %n) : tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>
   cond {
    %p = stablehlo.compare LT, %i, %limit : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %a1 = stablehlo.add %a, %feeds : tensor<f32>
    %d1 = stablehlo.exponential %dead : tensor<f32>
    %d2 = stablehlo.add %d1, %a : tensor<f32>
    %f1 = stablehlo.sine %feeds : tensor<f32>
    stablehlo.return %i1, %a1, %d2, %f1, %limit : tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i32>
  }
  return %0#1 : tensor<f32>
}
"#,
    );
    let out = run_pass(&Dce, &m);
    let w = &out.funcs[0].body.blocks[0].ops[2];
    assert_eq!(w.kind.name(), "stablehlo.while");
    // %dead goes (with its exponential); %feeds feeds %a, the counter and limit feed cond.
    assert_eq!(w.results.len(), 4);
    assert_eq!(count(&out, "main", "stablehlo.exponential"), 0);
    assert_eq!(count(&out, "main", "stablehlo.sine"), 1);
    let args = vec![
        systolic_interp::Value::Tensor(
            systolic_ir::Tensor::from_i64(vec![], systolic_ir::DType::I32, vec![3]).unwrap(),
        ),
        systolic_interp::Value::Tensor(systolic_ir::Tensor::scalar_f32(0.5)),
    ];
    assert_eq!(
        common::run_main(&out, args.clone()).unwrap(),
        common::run_main(&m, args).unwrap()
    );
}

#[test]
fn keeps_carried_values_that_reach_effects() {
    let m = parse(
        r#"
func.func public @main(%x: tensor<f32>) -> tensor<f32> {
  %0:2 = stablehlo.while(%a = %x, %b = %x) : tensor<f32>, tensor<f32>
   cond {
    %p = stablehlo.compare LT, %a, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %e = stablehlo.custom_call @print(%b) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>
    stablehlo.return %a, %e : tensor<f32>, tensor<f32>
  }
  return %0#0 : tensor<f32>
}
"#,
    );
    let out = run_pass(&Dce, &m);
    assert_eq!(out.funcs[0].body.blocks[0].ops[0].results.len(), 2);
}
