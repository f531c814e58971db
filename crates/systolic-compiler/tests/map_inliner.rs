//! Map inlining: a `map` of scalar arithmetic becomes the same ops on whole tensors (constants
//! and scalars read from outside the region broadcast), computing the interpreter's map
//! results bit for bit; maps the pass cannot inline are left as they were.

use crate::common;

use common::{assert_same_outputs, count, op_names, parse, random_inputs, run_pass};
use systolic_compiler::passes::MapInliner;
use systolic_compiler::Pass;
use systolic_ir::text::print_module;
use systolic_ir::Module;

/// Inlines, checks no map is left, and compares with the original on random inputs.
fn inline_and_compare(src: &str) -> Module {
    let m = parse(src);
    let out = run_pass(&MapInliner, &m);
    assert_eq!(
        count(&out, "main", "stablehlo.map"),
        0,
        "{}",
        print_module(&out)
    );
    for seed in 0..6 {
        assert_same_outputs("map_inliner", &m, &out, random_inputs(&m, seed));
    }
    out
}

fn map_of(ty: &str, scalar: &str, dims: &str, body: &str) -> String {
    let dims = if dims.is_empty() {
        "array<i64>".to_string()
    } else {
        format!("array<i64: {dims}>")
    };
    format!(
        "func.func public @main(%a: {ty}, %b: {ty}) -> {ty} {{
  %r = \"stablehlo.map\"(%a, %b) ({{
  ^bb0(%x: {scalar}, %y: {scalar}):
{body}
  }}) {{dimensions = {dims}}} : ({ty}, {ty}) -> {ty}
  return %r : {ty}
}}"
    )
}

#[test]
fn a_two_operand_body_in_every_float_type() {
    for dtype in ["f32", "f64", "f16", "bf16"] {
        let body = format!(
            "    %m = stablehlo.multiply %x, %y : tensor<{dtype}>
    %z = stablehlo.subtract %m, %x : tensor<{dtype}>
    stablehlo.return %z : tensor<{dtype}>"
        );
        let src = map_of(
            &format!("tensor<3x4x{dtype}>"),
            &format!("tensor<{dtype}>"),
            "0, 1",
            &body,
        );
        let out = inline_and_compare(&src);
        assert_eq!(
            op_names(&out, "main"),
            ["stablehlo.multiply", "stablehlo.subtract", "func.return"]
        );
    }
}

/// Constants broadcast to the map's shape; comparisons and selects keep their types.
#[test]
fn constants_comparisons_and_selects() {
    let body = "    %c = stablehlo.constant dense<2.5> : tensor<f32>
    %m = stablehlo.multiply %x, %c : tensor<f32>
    %p = stablehlo.compare GT, %m, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %e = stablehlo.exponential %y : tensor<f32>
    %s = stablehlo.select %p, %m, %e : tensor<i1>, tensor<f32>
    %k = stablehlo.clamp %c, %s, %m : tensor<f32>
    stablehlo.return %k : tensor<f32>";
    let out = inline_and_compare(&map_of("tensor<5x3xf32>", "tensor<f32>", "0, 1", body));
    assert_eq!(count(&out, "main", "stablehlo.broadcast_in_dim"), 1);
    assert_eq!(count(&out, "main", "stablehlo.constant"), 1);
}

/// A region reading a scalar from outside it, converting types, and returning an argument
/// or a constant.
#[test]
fn captured_values_conversions_and_trivial_bodies() {
    let captured = "func.func public @main(%a: tensor<4xf32>, %k: tensor<f32>) -> tensor<4xi32> {
  %r = \"stablehlo.map\"(%a) ({
  ^bb0(%x: tensor<f32>):
    %m = stablehlo.add %x, %k : tensor<f32>
    %f = stablehlo.floor %m : tensor<f32>
    %i = stablehlo.convert %f : (tensor<f32>) -> tensor<i32>
    stablehlo.return %i : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}";
    let out = inline_and_compare(captured);
    assert_eq!(count(&out, "main", "stablehlo.broadcast_in_dim"), 1);

    let second = map_of(
        "tensor<2x3xi32>",
        "tensor<i32>",
        "0, 1",
        "    stablehlo.return %y : tensor<i32>",
    );
    let out = inline_and_compare(&second);
    assert_eq!(op_names(&out, "main"), ["func.return"]);

    let constant = map_of(
        "tensor<2x3xi32>",
        "tensor<i32>",
        "0, 1",
        "    %c = stablehlo.constant dense<7> : tensor<i32>
    stablehlo.return %c : tensor<i32>",
    );
    inline_and_compare(&constant);
}

/// A map of rank 0 is its body.
#[test]
fn rank_zero() {
    let body = "    %m = stablehlo.maximum %x, %y : tensor<f64>
    stablehlo.return %m : tensor<f64>";
    let out = inline_and_compare(&map_of("tensor<f64>", "tensor<f64>", "", body));
    assert_eq!(op_names(&out, "main"), ["stablehlo.maximum", "func.return"]);
}

/// Maps nested in another op's region are inlined there.
#[test]
fn inside_a_loop_body() {
    let src = "func.func public @main(%a: tensor<3xf32>, %n: tensor<i32>) -> tensor<3xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %v = %a) : tensor<i32>, tensor<3xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %m = \"stablehlo.map\"(%v) ({
    ^bb0(%x: tensor<f32>):
      %h = stablehlo.constant dense<0.5> : tensor<f32>
      %y = stablehlo.multiply %x, %h : tensor<f32>
      stablehlo.return %y : tensor<f32>
    }) {dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %m : tensor<i32>, tensor<3xf32>
  }
  return %r#1 : tensor<3xf32>
}";
    inline_and_compare(src);
}

/// A region with an op that is not elementwise on scalars stays a map.
#[test]
fn a_body_with_shape_ops_is_left_alone() {
    let body = "    %r = stablehlo.reshape %x : (tensor<f32>) -> tensor<1xf32>
    %s = stablehlo.reshape %r : (tensor<1xf32>) -> tensor<f32>
    %t = stablehlo.add %s, %y : tensor<f32>
    stablehlo.return %t : tensor<f32>";
    let m = parse(&map_of("tensor<4xf32>", "tensor<f32>", "0", body));
    let mut out = m.clone();
    let changed = MapInliner.run(&mut out).unwrap();
    assert!(!changed);
    assert_eq!(out, m);
}

/// Every other program (the goldens, check files — including the map one — and random
/// programs) means the same after the pass, bit for bit.
#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&MapInliner, 20);
}

/// The CPU pipeline runs the pass among its expanders: after CHLO legalization, before the
/// simplification rounds (which clean up after it) and fusion.
#[test]
fn registered_in_the_cpu_pipeline_before_simplification() {
    let names = systolic_compiler::backend_pipeline::cpu_pipeline(Default::default()).pass_names();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
    assert!(at("chlo_legalize") < at("map_inliner"), "{names:?}");
    assert!(at("map_inliner") < at("simplify"), "{names:?}");
    assert!(
        systolic_compiler::backend_pipeline::cpu_expander_pass_names().contains(&"map_inliner")
    );
}
