//! Loop-invariant carried values of `while` read as captures.

use crate::common;

use common::{assert_same_outputs, parse, run_pass};
use systolic_compiler::passes::WhileInvariants;
use systolic_interp::Value;
use systolic_ir::walk::walk_ops;
use systolic_ir::{OpKind, Tensor};

/// A scan as JAX lowers it: the weights `%w` and the inputs `%xs` ride in the carried tuple
/// and come back unchanged; the counter and the state change. A second loop carries nothing
/// invariant, a third only invariant values (never ends or never runs).
const SCAN: &str = r#"
func.func public @main(%xs: tensor<4x3xf32>, %w: tensor<3xf32>, %h0: tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:4 = stablehlo.while(%i = %c0, %x = %xs, %ww = %w, %h = %h0) : tensor<i32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
  cond {
    %n = stablehlo.constant dense<4> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, 3] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %r = stablehlo.reshape %row : (tensor<1x3xf32>) -> tensor<3xf32>
    %m = stablehlo.multiply %ww, %h : tensor<3xf32>
    %s = stablehlo.add %m, %r : tensor<3xf32>
    %t = stablehlo.tanh %s : tensor<3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %x, %ww, %t : tensor<i32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  %1:2 = stablehlo.while(%k = %c0, %g = %h0) : tensor<i32>, tensor<3xf32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %lt = stablehlo.compare LT, %k, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k2 = stablehlo.add %k, %one : tensor<i32>
    %g2 = stablehlo.multiply %g, %g : tensor<3xf32>
    stablehlo.return %k2, %g2 : tensor<i32>, tensor<3xf32>
  }
  %2 = stablehlo.while(%q = %w) : tensor<3xf32>
  cond {
    %f = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %f : tensor<i1>
  } do {
    stablehlo.return %q : tensor<3xf32>
  }
  return %0#3, %0#1, %1#1, %2 : tensor<3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
}
"#;

fn f32s(shape: Vec<i64>, values: Vec<f32>) -> Value {
    Value::Tensor(Tensor::from_f32(shape, values))
}

#[test]
fn invariant_carried_values_become_captures() {
    let m = parse(SCAN);
    let out = run_pass(&WhileInvariants, &m);
    let loops: Vec<(usize, usize)> = {
        let mut v = vec![];
        walk_ops(&out.funcs[0].body, &mut |op, _| {
            if op.kind == OpKind::While {
                v.push((op.operands.len(), op.results.len()));
            }
        });
        v
    };
    // The scan keeps its counter and state; the second loop has nothing invariant; the third
    // only invariant values.
    assert_eq!(loops, vec![(2, 2), (2, 2), (1, 1)]);
    // The function returns the scan's inputs operand itself for the unchanged `%x`.
    let f = &out.funcs[0];
    let ret = f.body.blocks[0].ops.last().unwrap();
    assert_eq!(ret.operands[1], f.body.blocks[0].args[0]);
    let args = vec![
        f32s(vec![4, 3], (0..12).map(|i| i as f32 * 0.1 - 0.5).collect()),
        f32s(vec![3], vec![0.5, -1.5, 2.0]),
        f32s(vec![3], vec![0.25, 0.5, -0.75]),
    ];
    assert_same_outputs("while-invariants on the scan", &m, &out, args);
}

#[test]
fn the_pass_preserves_semantics() {
    common::assert_pass_preserves_semantics(&WhileInvariants, 200);
}
