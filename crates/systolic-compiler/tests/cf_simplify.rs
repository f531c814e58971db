//! Control-flow simplification.

use crate::common;

use common::{count, op_names, parse, run_main, run_pass};
use systolic_compiler::passes::CfSimplify;
use systolic_interp::Value;
use systolic_ir::Tensor;

#[test]
fn if_and_case_with_constant_selectors_become_their_branch() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %0 = "stablehlo.if"(%t) ({
    %e = stablehlo.exponential %a : tensor<f32>
    stablehlo.return %e : tensor<f32>
  }, {
    %n = stablehlo.negate %a : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  %i = stablehlo.constant dense<7> : tensor<i32>
  %1 = "stablehlo.case"(%i) ({
    %s = stablehlo.sine %a : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }, {
    %c = stablehlo.cosine %0 : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  %j = stablehlo.constant dense<0> : tensor<i32>
  %2 = "stablehlo.case"(%j) ({
    stablehlo.return %1 : tensor<f32>
  }, {
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  return %0, %1, %2 : tensor<f32>, tensor<f32>, tensor<f32>
}
"#,
    );
    let out = run_pass(&CfSimplify, &m);
    // The if took its true branch, the case with index 7 (out of range) its last branch.
    assert_eq!(
        op_names(&out, "main"),
        vec![
            "stablehlo.constant",
            "stablehlo.exponential",
            "stablehlo.constant",
            "stablehlo.cosine",
            "stablehlo.constant",
            "func.return"
        ]
    );
    let f = &out.funcs[0];
    let ops = &f.body.blocks[0].ops;
    // cos reads exp's result, and the last case returns cos's result directly.
    assert_eq!(ops[3].operands, ops[1].results);
    assert_eq!(
        ops[5].operands,
        vec![ops[1].results[0], ops[3].results[0], ops[3].results[0]]
    );
    let x = Value::Tensor(Tensor::scalar_f32(0.5));
    let got = run_main(&out, vec![x.clone()]).unwrap();
    assert_eq!(got, run_main(&m, vec![x]).unwrap());
}

#[test]
fn while_with_false_condition_is_its_operands() {
    let m = parse(
        r#"
func.func public @main(%a: tensor<f32>, %p: tensor<i1>) -> (tensor<f32>, tensor<f32>) {
  %0 = stablehlo.while(%it = %a) : tensor<f32>
   cond {
    %f = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %f : tensor<i1>
  } do {
    %x = stablehlo.add %it, %it : tensor<f32>
    stablehlo.return %x : tensor<f32>
  }
  %1 = stablehlo.while(%it = %a) : tensor<f32>
   cond {
    %c = stablehlo.compare LT, %it, %it : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %x = stablehlo.add %it, %it : tensor<f32>
    stablehlo.return %x : tensor<f32>
  }
  %2 = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %0, %2 : tensor<f32>, tensor<f32>
}
"#,
    );
    let out = run_pass(&CfSimplify, &m);
    assert_eq!(count(&out, "main", "stablehlo.while"), 1);
    assert_eq!(
        count(&out, "main", "stablehlo.if"),
        1,
        "non-constant predicate stays"
    );
    let f = &out.funcs[0];
    let ret = f.body.blocks[0].ops.last().unwrap();
    assert_eq!(ret.operands[0], f.params()[0]);
}

#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&CfSimplify, 300);
}
