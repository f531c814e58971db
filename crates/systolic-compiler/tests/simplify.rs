//! Algebraic simplification: each rule family on a small module, the float rules that must
//! not fire, and the semantic property on every corpus.

use crate::common;

use common::{op_names, parse, run_pass};
use systolic_compiler::passes::{Dce, Simplify};
use systolic_interp::Value;
use systolic_ir::{Module, Tensor};

/// Simplify then DCE, and the op names left in `@main` (without the return).
fn simplified(src: &str) -> (Module, Vec<String>) {
    let m = parse(src);
    let out = run_pass(&Dce, &run_pass(&Simplify, &m));
    let mut names = op_names(&out, "main");
    names.pop();
    (out, names)
}

/// True when `@main` returns exactly its parameters in this order.
fn returns_params(m: &Module, params: &[usize]) -> bool {
    let f = m.func("main").unwrap();
    let ret = f.body.blocks[0].ops.last().unwrap();
    let want: Vec<_> = params.iter().map(|&i| f.params()[i]).collect();
    ret.operands == want
}

#[test]
fn identity_elements_vanish() {
    let (m, names) = simplified(
        r#"
func.func public @main(%x: tensor<2xf32>, %i: tensor<2xi32>, %b: tensor<2xi1>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xi1>) {
  %one = stablehlo.constant dense<1.0> : tensor<2xf32>
  %nz = stablehlo.constant dense<-0.0> : tensor<f32>
  %nzb = stablehlo.broadcast_in_dim %nz, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %pz = stablehlo.constant dense<0.0> : tensor<2xf32>
  %0 = stablehlo.multiply %one, %x : tensor<2xf32>
  %1 = stablehlo.add %0, %nzb : tensor<2xf32>
  %2 = stablehlo.subtract %1, %pz : tensor<2xf32>
  %3 = stablehlo.divide %2, %one : tensor<2xf32>
  %4 = stablehlo.negate %3 : tensor<2xf32>
  %5 = stablehlo.negate %4 : tensor<2xf32>
  %zi = stablehlo.constant dense<0> : tensor<2xi32>
  %mi = stablehlo.constant dense<-1> : tensor<2xi32>
  %6 = stablehlo.add %zi, %i : tensor<2xi32>
  %7 = stablehlo.and %6, %mi : tensor<2xi32>
  %8 = stablehlo.or %7, %zi : tensor<2xi32>
  %9 = stablehlo.xor %8, %zi : tensor<2xi32>
  %10 = stablehlo.not %9 : tensor<2xi32>
  %11 = stablehlo.not %10 : tensor<2xi32>
  %t = stablehlo.constant dense<true> : tensor<2xi1>
  %12 = stablehlo.and %b, %t : tensor<2xi1>
  %13 = stablehlo.or %12, %12 : tensor<2xi1>
  return %5, %11, %13 : tensor<2xf32>, tensor<2xi32>, tensor<2xi1>
}
"#,
    );
    assert!(names.is_empty(), "{names:?}");
    assert!(returns_params(&m, &[0, 1, 2]));
}

#[test]
fn inexact_float_rules_do_not_fire() {
    // x + 0.0 changes -0.0; x * 0 changes NaN, inf and signs; x - x is NaN for inf.
    let (_, names) = simplified(
        r#"
func.func public @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>) {
  %z = stablehlo.constant dense<0.0> : tensor<2xf32>
  %0 = stablehlo.add %x, %z : tensor<2xf32>
  %1 = stablehlo.multiply %x, %z : tensor<2xf32>
  %2 = stablehlo.subtract %x, %x : tensor<2xf32>
  %3 = stablehlo.compare EQ, %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>
}
"#,
    );
    // The splat zero becomes a broadcast of a scalar zero; the rules that would change values
    // still do not fire.
    assert_eq!(
        names,
        vec![
            "stablehlo.constant",
            "stablehlo.broadcast_in_dim",
            "stablehlo.add",
            "stablehlo.multiply",
            "stablehlo.subtract",
            "stablehlo.compare"
        ]
    );
}

#[test]
fn splat_constants_become_broadcasts_of_their_scalar() {
    let (m, names) = simplified(
        r#"
func.func public @main() -> (tensor<2048x2048xf32>, tensor<3xi32>, tensor<2xf32>, tensor<1xf32>) {
  %0 = stablehlo.constant dense<0.5> : tensor<2048x2048xf32>
  %1 = stablehlo.constant dense<-7> : tensor<3xi32>
  %2 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %3 = stablehlo.constant dense<4.0> : tensor<1xf32>
  return %0, %1, %2, %3 : tensor<2048x2048xf32>, tensor<3xi32>, tensor<2xf32>, tensor<1xf32>
}
"#,
    );
    // Two splats as broadcasts; the non-splat and the one-element constant stay.
    assert_eq!(
        names,
        vec![
            "stablehlo.constant",
            "stablehlo.broadcast_in_dim",
            "stablehlo.constant",
            "stablehlo.broadcast_in_dim",
            "stablehlo.constant",
            "stablehlo.constant"
        ]
    );
    let text = systolic_ir::text::print_module(&m);
    assert!(
        text.contains("dense<5.000000e-01> : tensor<f32>")
            && text.contains("dense<-7> : tensor<i32>"),
        "{text}"
    );
}

#[test]
fn absorbing_and_self_cancelling_integers() {
    let (m, names) = simplified(
        r#"
func.func public @main(%i: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi1>, tensor<3xi32>) {
  %z = stablehlo.constant dense<0> : tensor<3xi32>
  %0 = stablehlo.multiply %i, %z : tensor<3xi32>
  %1 = stablehlo.subtract %i, %i : tensor<3xi32>
  %2 = stablehlo.compare LT, %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %m = stablehlo.constant dense<-1> : tensor<3xi32>
  %3 = stablehlo.xor %i, %m : tensor<3xi32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<3xi32>, tensor<3xi1>, tensor<3xi32>
}
"#,
    );
    assert!(
        !names.iter().any(|n| n == "stablehlo.multiply"
            || n == "stablehlo.subtract"
            || n == "stablehlo.compare"),
        "{names:?}"
    );
    assert!(names.contains(&"stablehlo.not".to_string()), "{names:?}");
    let out = common::run_main(
        &m,
        vec![systolic_interp::Value::Tensor(
            systolic_ir::Tensor::from_i64(vec![3], systolic_ir::DType::I32, vec![5, -7, 0])
                .unwrap(),
        )],
    )
    .unwrap();
    assert_eq!(out[0].as_tensor().unwrap().to_f64_vec(), vec![0.0; 3]);
    assert_eq!(out[1].as_tensor().unwrap().to_f64_vec(), vec![0.0; 3]);
    assert_eq!(out[2].as_tensor().unwrap().to_f64_vec(), vec![0.0; 3]);
    assert_eq!(
        out[3].as_tensor().unwrap().to_f64_vec(),
        vec![-6.0, 6.0, -1.0]
    );
}

#[test]
fn data_movement_identities_and_compositions() {
    let (m, names) = simplified(
        r#"
func.func public @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<4x2x3xf32>, tensor<3x2xf32>) {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.reshape %1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %3 = stablehlo.reshape %2 : (tensor<3x2xf32>) -> tensor<6xf32>
  %4 = stablehlo.slice %1 [0:2, 0:3] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %5 = stablehlo.pad %4, %z, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %6 = stablehlo.reverse %5, dims = [1] : tensor<2x3xf32>
  %7 = stablehlo.reverse %6, dims = [1] : tensor<2x3xf32>
  %8 = stablehlo.concatenate %7, dim = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = stablehlo.convert %8 : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %10 = stablehlo.convert %9 : (tensor<2x3xf64>) -> tensor<2x3xf32>
  %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = stablehlo.broadcast_in_dim %11, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x2x3xf32>) -> tensor<4x2x3xf32>
  %14 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %11, %3, %13, %14 : tensor<2x3xf32>, tensor<6xf32>, tensor<4x2x3xf32>, tensor<3x2xf32>
}
"#,
    );
    assert_eq!(
        names,
        vec![
            "stablehlo.reshape",
            "stablehlo.broadcast_in_dim",
            "stablehlo.transpose"
        ]
    );
    let f = &m.funcs[0];
    let ops = &f.body.blocks[0].ops;
    assert_eq!(
        ops[0].operands,
        vec![f.params()[0]],
        "reshape of x directly"
    );
    match &ops[1].kind {
        systolic_ir::OpKind::BroadcastInDim {
            broadcast_dimensions,
        } => {
            assert_eq!(broadcast_dimensions, &vec![1, 2])
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(ops[1].operands, vec![f.params()[0]]);
}

#[test]
fn lossy_convert_chains_stay() {
    let (_, names) = simplified(
        r#"
func.func public @main(%x: tensor<2xf32>, %i: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf64>) {
  %0 = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xbf16>
  %1 = stablehlo.convert %0 : (tensor<2xbf16>) -> tensor<2xf32>
  %2 = stablehlo.convert %i : (tensor<2xi32>) -> tensor<2xf32>
  %3 = stablehlo.convert %2 : (tensor<2xf32>) -> tensor<2xi32>
  %4 = stablehlo.convert %i : (tensor<2xi32>) -> tensor<2xi64>
  %5 = stablehlo.convert %4 : (tensor<2xi64>) -> tensor<2xf64>
  return %1, %3, %5 : tensor<2xf32>, tensor<2xi32>, tensor<2xf64>
}
"#,
    );
    // f32->bf16 rounds, i32->f32 rounds: both pairs stay; i32->i64->f64 is one convert.
    assert_eq!(names.len(), 5, "{names:?}");
}

/// A reduce whose dimensions all have size 1 is its body applied once per element, on the
/// input reshaped to the result: JAX's bias gradient `sum(g.reshape(1, n), axis=0)` and a
/// max over a unit axis. The same bits as the reduce, signed zeros and NaN included.
#[test]
fn reduces_over_unit_dimensions_become_elementwise() {
    let src = r#"
func.func public @main(%g: tensor<1x5xf32>, %h: tensor<4x1x1xf32>) -> (tensor<5xf32>, tensor<4xf32>, tensor<4x1xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%g init: %z) applies stablehlo.add across dimensions = [0] : (tensor<1x5xf32>, tensor<f32>) -> tensor<5xf32>
  %1 = stablehlo.reduce(%h init: %ninf) applies stablehlo.maximum across dimensions = [1, 2] : (tensor<4x1x1xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = stablehlo.reduce(%h init: %z) applies stablehlo.add across dimensions = [2] : (tensor<4x1x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  return %0, %1, %2 : tensor<5xf32>, tensor<4xf32>, tensor<4x1xf32>
}
"#;
    let (m, names) = simplified(src);
    assert_eq!(
        common::count(&m, "main", "stablehlo.reduce"),
        0,
        "{names:?}"
    );
    let g = Tensor::from_f32(vec![1, 5], vec![-0.0, 1.5, f32::NAN, -3.0, 0.0]);
    let h = Tensor::from_f32(vec![4, 1, 1], vec![-0.0, f32::NEG_INFINITY, f32::NAN, 2.0]);
    common::assert_same_outputs(
        "unit reduces",
        &parse(src),
        &m,
        vec![Value::Tensor(g), Value::Tensor(h)],
    );
    // A reduce over a dimension larger than 1 stays.
    let kept = r#"
func.func public @main(%g: tensor<2x5xf32>) -> tensor<5xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%g init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x5xf32>, tensor<f32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
"#;
    let (m, _) = simplified(kept);
    assert_eq!(common::count(&m, "main", "stablehlo.reduce"), 1);
}

#[test]
fn select_dot_reduce_and_dimension_size() {
    let (m, names) = simplified(
        r#"
func.func public @main(%p: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2x0xf32>, %n: tensor<0x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<i32>) {
  %0 = stablehlo.select %p, %a, %a : tensor<2xi1>, tensor<2xf32>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %1 = stablehlo.select %f, %a, %b : tensor<i1>, tensor<2xf32>
  %np = stablehlo.not %p : tensor<2xi1>
  %2 = stablehlo.select %np, %a, %b : tensor<2xi1>, tensor<2xf32>
  %3 = stablehlo.dot_general %m, %n, contracting_dims = [1] x [0] : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  %z = stablehlo.constant dense<-0.0> : tensor<f32>
  %4 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [] : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %5 = stablehlo.get_dimension_size %m, dim = 0 : (tensor<2x0xf32>) -> tensor<i32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<i32>
}
"#,
    );
    assert_eq!(
        common::count(&m, "main", "stablehlo.select"),
        1,
        "{names:?}"
    );
    assert_eq!(common::count(&m, "main", "stablehlo.not"), 0, "{names:?}");
    assert_eq!(common::count(&m, "main", "stablehlo.dot_general"), 0);
    assert_eq!(common::count(&m, "main", "stablehlo.reduce"), 0);
    assert_eq!(common::count(&m, "main", "stablehlo.get_dimension_size"), 0);
    let f = &m.funcs[0];
    let ret = f.body.blocks[0].ops.last().unwrap();
    // -0.0 + a is a: the reduce is gone without a trace.
    assert_eq!(ret.operands[0], f.params()[1]);
    assert_eq!(ret.operands[1], f.params()[2]);
    assert_eq!(ret.operands[4], f.params()[1]);
    let sel = f.body.blocks[0]
        .ops
        .iter()
        .find(|o| o.kind.name() == "stablehlo.select")
        .unwrap();
    assert_eq!(
        sel.operands,
        vec![f.params()[0], f.params()[2], f.params()[1]]
    );
}

#[test]
fn preserves_semantics() {
    common::assert_pass_preserves_semantics(&Simplify, 400);
}

#[test]
fn slices_of_slices_compose() {
    // Every combination of starts and strides on a 9x8 input, against the interpreter.
    let x = systolic_interp::Value::Tensor(systolic_ir::Tensor::from_f32(
        vec![9, 8],
        (0..72).map(|v| v as f32).collect(),
    ));
    let mut checked = 0;
    for (s1, t1) in [(0, 1), (1, 2), (2, 3)] {
        for (s2, t2) in [(0, 1), (1, 1), (0, 2), (1, 3)] {
            let n1 = (9 - s1 + t1 - 1) / t1;
            let n2 = (n1 - s2 + t2 - 1) / t2;
            if n2 <= 0 {
                continue;
            }
            let src = format!(
                r#"
func.func public @main(%x: tensor<9x8xf32>) -> tensor<{n2}x2xf32> {{
  %0 = stablehlo.slice %x [{s1}:9:{t1}, 0:8] : (tensor<9x8xf32>) -> tensor<{n1}x8xf32>
  %1 = stablehlo.slice %0 [{s2}:{n1}:{t2}, 3:5] : (tensor<{n1}x8xf32>) -> tensor<{n2}x2xf32>
  return %1 : tensor<{n2}x2xf32>
}}
"#
            );
            let (m, names) = simplified(&src);
            assert_eq!(names, vec!["stablehlo.slice"], "{src}");
            let before = parse(&src);
            common::assert_same_outputs("slice∘slice", &before, &m, vec![x.clone()]);
            checked += 1;
        }
    }
    assert!(checked >= 10);
}

#[test]
fn nested_concatenates_flatten() {
    let (m, names) = simplified(
        r#"
func.func public @main(%a: tensor<1x2xf32>, %b: tensor<2x2xf32>, %c: tensor<1x2xf32>) -> (tensor<4x2xf32>, tensor<3x4xf32>) {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.concatenate %0, %c, dim = 0 : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  %2 = stablehlo.concatenate %0, %0, dim = 1 : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %1, %2 : tensor<4x2xf32>, tensor<3x4xf32>
}
"#,
    );
    // The dim-0 chain becomes one concatenate of three; the dim-1 one keeps reading %0.
    assert_eq!(names.len(), 3, "{names:?}");
    let f = &m.funcs[0];
    let three = f.body.blocks[0]
        .ops
        .iter()
        .find(|o| o.operands.len() == 3)
        .unwrap();
    assert_eq!(three.operands, f.params().to_vec());
}

#[test]
fn negations_and_splats_through_data_movement() {
    let (m, names) = simplified(
        r#"
func.func public @main(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>) {
  %m1 = stablehlo.constant dense<-1.0> : tensor<2x3xf32>
  %0 = stablehlo.multiply %m1, %x : tensor<2x3xf32>
  %nz = stablehlo.constant dense<-0.0> : tensor<2x3xf32>
  %1 = stablehlo.subtract %nz, %x : tensor<2x3xf32>
  %zi = stablehlo.constant dense<0> : tensor<2x3xi32>
  %2 = stablehlo.subtract %zi, %i : tensor<2x3xi32>
  %pz = stablehlo.constant dense<0.0> : tensor<2x3xf32>
  %3 = stablehlo.subtract %pz, %x : tensor<2x3xf32>
  %c = stablehlo.constant dense<2.5> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %4 = stablehlo.transpose %b, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %n = stablehlo.negate %x : tensor<2x3xf32>
  %5 = stablehlo.abs %n : tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>
}
"#,
    );
    // +0.0 - x stays a subtraction (it is +0.0, not -0.0, at x = +0.0).
    assert_eq!(
        common::count(&m, "main", "stablehlo.subtract"),
        1,
        "{names:?}"
    );
    assert_eq!(
        common::count(&m, "main", "stablehlo.negate"),
        3,
        "{names:?}"
    );
    assert_eq!(
        common::count(&m, "main", "stablehlo.transpose"),
        0,
        "{names:?}"
    );
    assert_eq!(
        common::count(&m, "main", "stablehlo.multiply"),
        0,
        "{names:?}"
    );
    let f = &m.funcs[0];
    let abs = f.body.blocks[0]
        .ops
        .iter()
        .find(|o| o.kind.name() == "stablehlo.abs")
        .unwrap();
    assert_eq!(abs.operands, vec![f.params()[0]]);
}

/// (element type, ops, constants, inputs) of one row of the rule-table test.
type RuleCase = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    Vec<f64>,
);

/// Every binary op with every special constant on either side, on inputs that include signed
/// zeros, infinities, NaN and the integer extremes: the simplified module computes the same
/// bits. This checks the identity, absorbing and negation tables entry by entry.
#[test]
fn rule_tables_are_exact_on_special_values() {
    let cases: [RuleCase; 3] = [
        (
            "f32",
            &[
                "add",
                "subtract",
                "multiply",
                "divide",
                "maximum",
                "minimum",
                "power",
                "remainder",
                "atan2",
            ],
            &[
                "0.0",
                "-0.0",
                "1.0",
                "-1.0",
                "0x7F800000",
                "0xFF800000",
                "2.0",
            ],
            vec![
                0.0,
                -0.0,
                1.0,
                -1.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                2.5,
            ],
        ),
        (
            "i32",
            &[
                "add",
                "subtract",
                "multiply",
                "divide",
                "maximum",
                "minimum",
                "and",
                "or",
                "xor",
                "shift_left",
                "shift_right_logical",
                "shift_right_arithmetic",
                "remainder",
            ],
            &["0", "1", "-1", "-2147483648", "2147483647", "3"],
            vec![0.0, 1.0, -1.0, -2147483648.0, 2147483647.0, 7.0, -7.0, 31.0],
        ),
        (
            "ui8",
            &[
                "add", "subtract", "multiply", "divide", "maximum", "minimum", "and", "or", "xor",
            ],
            &["0", "1", "255", "3"],
            vec![0.0, 1.0, 255.0, 128.0, 7.0, 3.0, 2.0, 254.0],
        ),
    ];
    let mut simplified_count = 0;
    for (dtype, ops, constants, inputs) in cases {
        let d = systolic_ir::DType::from_mlir_name(dtype).unwrap();
        let data = match d.kind() {
            systolic_ir::DTypeKind::Float => systolic_ir::Data::Float(inputs.clone()),
            systolic_ir::DTypeKind::Signed => {
                systolic_ir::Data::Int(inputs.iter().map(|&v| v as i64).collect())
            }
            _ => systolic_ir::Data::UInt(inputs.iter().map(|&v| v as u64).collect()),
        };
        let x = systolic_ir::Tensor::new(systolic_ir::TensorType::new(vec![8], d), data).unwrap();
        let x = systolic_interp::Value::Tensor(x);
        for op in ops {
            for c in constants {
                for left in [false, true] {
                    let t = format!("tensor<8x{dtype}>");
                    let (a, b) = if left { ("%c", "%x") } else { ("%x", "%c") };
                    let src = format!(
                        "func.func public @main(%x: {t}) -> {t} {{\n  %c = stablehlo.constant dense<{c}> : {t}\n  %r = stablehlo.{op} {a}, {b} : {t}\n  return %r : {t}\n}}\n"
                    );
                    let before = parse(&src);
                    let after = run_pass(&Simplify, &before);
                    if common::count(&after, "main", &format!("stablehlo.{op}")) == 0 {
                        simplified_count += 1;
                    }
                    common::assert_same_outputs(&src, &before, &after, vec![x.clone()]);
                }
            }
        }
    }
    // The tables do fire on these (identities, absorbing elements, negations).
    assert!(simplified_count >= 30, "only {simplified_count} simplified");
}

/// convert(convert(x: A) -> B) -> C for every triple of these element types, on extreme and
/// special values of A: merged only when A -> B is exact, and bit for bit the same.
#[test]
fn convert_chains_are_exact_for_every_type_triple() {
    use systolic_ir::{DType, DTypeKind, Data, Tensor, TensorType};
    let types = [
        DType::Bool,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ];
    let values = |d: DType| -> Data {
        match d.kind() {
            DTypeKind::Bool => Data::Bool(vec![true, false, true, false, true, false]),
            DTypeKind::Signed => {
                let (lo, hi) = d.signed_range().unwrap();
                Data::Int(vec![lo, hi, 0, -1, 1, 16_777_217.min(hi)])
            }
            DTypeKind::Unsigned => {
                let hi = d.unsigned_max().unwrap() as i64;
                Data::UInt(vec![
                    0,
                    hi as u64,
                    1,
                    255,
                    256.min(hi as u64),
                    16_777_217.min(hi as u64),
                ])
            }
            DTypeKind::Float => {
                Data::Float(vec![-0.0, f64::INFINITY, f64::NAN, 1e30, -2.5, 65519.0])
            }
            DTypeKind::Complex => Data::Complex(
                [
                    (-0.0, 1.0),
                    (f64::INFINITY, -2.5),
                    (f64::NAN, 0.0),
                    (1e30, 3.0),
                ]
                .into_iter()
                .chain([(-2.5, -0.0), (65519.0, 7.0)])
                .map(|(re, im)| systolic_ir::Complex64::new(re, im))
                .collect(),
            ),
        }
    };
    let mut merged = 0;
    for a in types {
        let x = Tensor::new(TensorType::new(vec![6], a), values(a)).unwrap();
        let x = systolic_interp::Value::Tensor(x);
        for b in types {
            for c in types {
                if a == b || b == c {
                    continue;
                }
                let (ta, tb, tc) = (
                    format!("tensor<6x{a}>"),
                    format!("tensor<6x{b}>"),
                    format!("tensor<6x{c}>"),
                );
                let src = format!(
                    "func.func public @main(%x: {ta}) -> {tc} {{\n  %0 = stablehlo.convert %x : ({ta}) -> {tb}\n  %1 = stablehlo.convert %0 : ({tb}) -> {tc}\n  return %1 : {tc}\n}}\n"
                );
                let before = parse(&src);
                let after = run_pass(&Dce, &run_pass(&Simplify, &before));
                if common::count(&after, "main", "stablehlo.convert") < 2 {
                    merged += 1;
                }
                common::assert_same_outputs(&src, &before, &after, vec![x.clone()]);
            }
        }
    }
    assert!(merged >= 150, "only {merged} chains merged");
}

/// f(g(x)) for every pair of these unary ops, on special values: whatever the rules make of
/// it computes the same bits.
#[test]
fn unary_compositions_are_exact_on_special_values() {
    use systolic_ir::{DType, Data, Tensor, TensorType};
    let float_ops = [
        "negate",
        "abs",
        "floor",
        "ceil",
        "round_nearest_even",
        "round_nearest_afz",
        "sign",
    ];
    let int_ops = ["negate", "abs", "not", "sign"];
    let f = Tensor::new(
        TensorType::new(vec![8], DType::F32),
        Data::Float(vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.5,
            -2.5,
            0.5,
        ]),
    )
    .unwrap();
    let i = Tensor::new(
        TensorType::new(vec![8], DType::I32),
        Data::Int(vec![i32::MIN as i64, i32::MAX as i64, 0, -1, 1, 5, -5, 2]),
    )
    .unwrap();
    let mut rewritten = 0;
    for (dtype, ops, x) in [("f32", &float_ops[..], f), ("i32", &int_ops[..], i)] {
        let t = format!("tensor<8x{dtype}>");
        for outer in ops {
            for inner in ops {
                let src = format!(
                    "func.func public @main(%x: {t}) -> {t} {{\n  %0 = stablehlo.{inner} %x : {t}\n  %1 = stablehlo.{outer} %0 : {t}\n  return %1 : {t}\n}}\n"
                );
                let before = parse(&src);
                let after = run_pass(&Dce, &run_pass(&Simplify, &before));
                if common::op_names(&after, "main").len() < 3 {
                    rewritten += 1;
                }
                let x = systolic_interp::Value::Tensor(x.clone());
                common::assert_same_outputs(&src, &before, &after, vec![x]);
            }
        }
    }
    // neg∘neg, not∘not, abs∘abs, abs∘neg, floor∘floor, … (both element types).
    assert!(rewritten >= 10, "only {rewritten} rewritten");
}

/// select and compare rules on special values, with the predicate constant, computed or
/// negated.
#[test]
fn select_and_compare_rules_are_exact() {
    let src = r#"
func.func public @main(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %np = stablehlo.not %p : tensor<4xi1>
  %0 = stablehlo.select %np, %a, %b : tensor<4xi1>, tensor<4xf32>
  %t = stablehlo.constant dense<true> : tensor<4xi1>
  %1 = stablehlo.select %t, %a, %b : tensor<4xi1>, tensor<4xf32>
  %2 = stablehlo.compare GE, %i, %i, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %3 = stablehlo.compare NE, %i, %i, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %4 = stablehlo.compare EQ, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %5 = stablehlo.select %p, %b, %b : tensor<4xi1>, tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}
"#;
    let before = parse(src);
    let after = run_pass(&Dce, &run_pass(&Simplify, &before));
    assert_eq!(
        common::count(&after, "main", "stablehlo.compare"),
        1,
        "float x == x stays"
    );
    assert_eq!(common::count(&after, "main", "stablehlo.select"), 1);
    use systolic_interp::Value;
    use systolic_ir::{DType, Tensor};
    let args = vec![
        Value::Tensor(Tensor::from_bool(vec![4], vec![true, false, true, false]).unwrap()),
        Value::Tensor(
            Tensor::from_f64(vec![4], DType::F32, vec![f64::NAN, -0.0, 1.0, 2.0]).unwrap(),
        ),
        Value::Tensor(
            Tensor::from_f64(vec![4], DType::F32, vec![0.0, f64::INFINITY, -1.0, 3.0]).unwrap(),
        ),
        Value::Tensor(
            Tensor::from_i64(vec![4], DType::I32, vec![i32::MIN as i64, 0, -1, 7]).unwrap(),
        ),
    ];
    common::assert_same_outputs("select/compare", &before, &after, args);
}
